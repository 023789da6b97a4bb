"""``rank_test(table, approach="bayesian")``: every pair of systems by the Bayesian signed-rank
test with a region of practical equivalence (ROPE), decided as autorank does (Herbold 2020,
``autorank(data, approach="bayesian")``; Benavoli, Corani, Demšar & Zaffalon, JMLR 18, 2017).

On a datasets × systems table (one score per dataset and system, complete):

1. **Normality.** Every system's scores are tested with Shapiro–Wilk at α/k (α = 1 − ``level``,
   Bonferroni over the k systems). All normal: the central tendency is the mean, the spread the
   SD (ddof 1); otherwise the median and the MAD (unscaled, ``scipy.stats.median_abs_deviation``).
   The systems are ordered by it, best first (stable for ties).
2. **ROPE of each pair.** ``rope_mode="effsize"``: ``rope`` × the pooled SD
   ``√(((n−1)s_a² + (n−1)s_b²)/(2n − 2))`` (all normal) or × the pooled MAD·1.4826 (otherwise),
   so ``rope=0.1`` is half of a "small" effect (Kruschke 2018, autorank's default);
   ``rope_mode="absolute"``: ``rope`` in the metric's units.
3. **Posterior.** For systems a (earlier in the order) and b, d = b − a per dataset (a − b when
   lower is better) and the Bayesian signed-rank test (Benavoli et al. 2014; baycomp's
   ``SignedRankTest``): Dirichlet weights w ~ Dir(``prior``, 1, …, 1) over {0, d_1, …, d_n},
   ``n_draws`` draws from ``numpy.random.RandomState(seed)`` (the same draws for every pair, as
   autorank passes one ``random_state`` to each test); θ = (θ_a, θ_rope, θ_b) per draw
   (:mod:`ranger_eval.stats.bayes`) and P(a better), P(rope), P(b better) the shares of draws in
   which each θ is the largest. With a ROPE of 0 the rope outcome is absent.
4. **Decision** at probability ``level`` (autorank's ``_posterior_decision``, in its order):
   a is *better* than b if P(a better) ≥ level, else *equivalent* if P(rope) ≥ level, else
   *worse* if P(b better) ≥ level, else *inconclusive*. Each probability differs from the exact
   posterior probability by Monte-Carlo error, standard error √(p(1 − p)/n_draws) (≤ 0.0022 at
   50,000 draws).

The average ranks (rank 1 = best per dataset, ties averaged) are kept for the CD-style
diagram: its bars (``cliques``) are the maximal runs of systems, in average-rank order, between
which no pair is decided better or worse, and the maximal runs in which every pair is
practically equivalent; a bar is *equivalent* when every pair in it is practically equivalent,
else *undecided*.

A pair whose ROPE is 0 and whose scores are identical on every dataset has no evidence either
way: every posterior draw gives θ_a = θ_b = ½ and baycomp's ``argmax`` would call a better by
its tie rule; here the two probabilities are ½ each and the decision *inconclusive* (a warning
names the pair).
"""
from __future__ import annotations

import math
import warnings
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd
from scipy import stats

from ..errors import AggregateError, Hint
from ..formatting import format_probability as _prob
from ..settings import RankSettings
from ..signature import Signature, make_signature
from ..stats.bayes import bayesian_pairwise

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.figure import Figure

__all__ = ["BayesianRankTest", "bayesian_rank_test", "MIN_DATASETS"]

#: Fewest datasets of the Bayesian rank test: autorank's minimum ("at least five performance
#: estimations"); with fewer, Shapiro–Wilk cannot tell normal from not, and the signed-rank
#: posterior of n differences puts at least 1/(n + 1) of its expected weight on the prior's
#: pseudo-observation 0.
MIN_DATASETS = 5
#: The setting this test is chosen by, as each front end says it (``--approach bayesian``).
_BAYESIAN = Hint("approach", "bayesian", form="set")
#: Largest Dirichlet weight matrix drawn (n_draws × (datasets + 1) floats, 512 MB).
_MAX_FLOATS = 1 << 26


def _width(r: float) -> str:
    return f"{r:.3g}"


@dataclass(frozen=True)
class BayesianRankTest:
    """autorank's Bayesian comparison of k systems over N datasets (module docstring).

    Attributes
    ----------
    systems
        The systems, best first by ``central`` (mean if all are normal, else median).
    central, spread
        ``pd.Series`` system → mean and SD (``central_kind="mean"``) or median and MAD, in
        ``systems`` order.
    average_ranks
        ``pd.Series`` system → average rank (1 = best, ties averaged), sorted best first.
    shapiro_pvalues
        ``pd.Series`` system → Shapiro–Wilk p-value; ``all_normal`` when all are ≥ α/k.
    p_better, p_rope, ropes
        k × k ``pd.DataFrame`` s in ``systems`` order: ``p_better.loc[a, b]`` = P(a is better
        than b by more than the ROPE), ``p_rope.loc[a, b]`` = P(practically equivalent),
        ``ropes.loc[a, b]`` the ROPE's half-width in the metric's units (NaN on the diagonal).
    decisions
        k × k ``pd.DataFrame``: ``decisions.loc[a, b]`` is ``"better"``, ``"worse"``,
        ``"equivalent"`` or ``"inconclusive"`` for a against b (``""`` on the diagonal).
    pairwise
        One row per pair ``a`` before ``b`` in ``systems``: ``rope``, ``p_a_better``,
        ``p_rope``, ``p_b_better``, ``decision`` (a against b) and ``verdict`` (in words).
    cliques, clique_kinds
        The diagram's bars: maximal runs of systems in average-rank order with no decided
        difference, and maximal runs of practically equivalent systems; each
        ``"equivalent"`` (every pair practically equivalent) or ``"undecided"``.
    """

    systems: tuple[str, ...]
    central: pd.Series
    central_kind: str
    spread: pd.Series
    average_ranks: pd.Series
    shapiro_pvalues: pd.Series
    all_normal: bool
    p_better: pd.DataFrame
    p_rope: pd.DataFrame
    ropes: pd.DataFrame
    decisions: pd.DataFrame
    pairwise: pd.DataFrame
    cliques: list[tuple[str, ...]]
    clique_kinds: tuple[str, ...]
    rope: float
    rope_mode: str
    level: float
    prior: float
    n_draws: int
    seed: int
    higher_is_better: bool
    n_datasets: int
    n_systems: int
    signature: Signature
    #: the settings object of the call that made this result (:func:`~ranger_eval.aggregate.
    #: rank_test` with ``approach="bayesian"``)
    settings: RankSettings | None = field(default=None, compare=False, repr=False)

    #: the approach that made this result (``RankTest`` is the frequentist one)
    approach = "bayesian"
    #: no post-hoc test, control or critical difference: every pair has its own posterior
    posthoc = "bayesian"
    control = None
    critical_difference = None

    @property
    def alpha(self) -> float:
        """``1 − level``: the Shapiro–Wilk tests are at α/k."""
        return 1.0 - self.level

    @property
    def rope_scale(self) -> str:
        """What ``rope`` multiplies: ``"sd"`` (pooled SD), ``"mad"`` (pooled MAD·1.4826) or
        ``"absolute"`` (nothing: the metric's units)."""
        if self.rope_mode == "absolute":
            return "absolute"
        return "sd" if self.all_normal else "mad"

    def verdict(self, a: str, b: str) -> str:
        """The decision of one pair in words, e.g. ``"A is practically equivalent to B (P(rope)
        = 0.93, ROPE ±0.01)"``, ``"A is better than B (P = 0.97, ROPE ±0.01)"`` or ``"A vs B:
        inconclusive at 0.95 (P(A better) = 0.60, P(rope) = 0.30, P(B better) = 0.10, ROPE
        ±0.01)"``."""
        for name in (a, b):
            if name not in self.systems:
                raise AggregateError(f"unknown system {name!r}; systems: "
                                     f"{', '.join(map(repr, self.systems))}")
        if a == b:
            raise AggregateError(f"verdict needs two different systems; got {a!r} twice")
        r = self._at(self.ropes, a, b)
        rope = f", ROPE ±{_width(r)}" if r > 0 else ""
        pa, pe, pb = (self._at(self.p_better, a, b), self._at(self.p_rope, a, b),
                      self._at(self.p_better, b, a))
        decision = self.decisions.loc[a, b]
        if decision == "better":
            return f"{a} is better than {b} (P {_prob(pa)}{rope})"
        if decision == "worse":
            return f"{b} is better than {a} (P {_prob(pb)}{rope})"
        if decision == "equivalent":
            return f"{a} is practically equivalent to {b} (P(rope) {_prob(pe)}{rope})"
        parts = [f"P({a} better) {_prob(pa)}"] + ([f"P(rope) {_prob(pe)}"] if r > 0 else []) \
            + [f"P({b} better) {_prob(pb)}"]
        return f"{a} vs {b}: inconclusive at {self.level:g} ({', '.join(parts)}{rope})"

    def _at(self, frame: pd.DataFrame, a: str, b: str) -> float:
        """``frame.loc[a, b]`` of a k × k matrix in ``systems`` order, as a float."""
        return float(frame.to_numpy(dtype=float)[self.systems.index(a), self.systems.index(b)])

    def verdicts(self) -> list[str]:
        """:meth:`verdict` of every pair, in ``pairwise`` order."""
        return [str(v) for v in self.pairwise["verdict"]]

    def describe_rope(self) -> str:
        """How the ROPE was set, in words (``"ROPE = 0.1 × pooled SD of each pair"``)."""
        if self.rope_mode == "absolute":
            return f"ROPE ±{self.rope:g} (absolute, in the metric's units)"
        scale = "pooled SD" if self.all_normal else "pooled MAD·1.4826"
        return f"ROPE ±{self.rope:g} × the {scale} of each pair (effect-size ROPE, autorank)"

    def to_frame(self) -> pd.DataFrame:
        """One row per system in ``systems`` order (autorank's ``rankdf``): ``system``,
        ``rank`` (position), the central tendency and spread, ``average_rank``, and against the
        first system ``p_rope``, ``p_first_better`` and ``decision`` (the first's decision
        against this one; empty for the first)."""
        first = self.systems[0]
        rest = list(self.systems)
        return pd.DataFrame({
            "system": rest,
            "rank": np.arange(1, len(rest) + 1),
            self.central_kind: self.central.reindex(rest).to_numpy(dtype=float),
            "sd" if self.central_kind == "mean" else "mad":
                self.spread.reindex(rest).to_numpy(dtype=float),
            "average_rank": self.average_ranks.reindex(rest).to_numpy(dtype=float),
            "p_rope": [math.nan if s == first else self._at(self.p_rope, first, s)
                       for s in rest],
            "p_first_better": [math.nan if s == first else self._at(self.p_better, first, s)
                               for s in rest],
            "decision": [self.decisions.loc[first, s] for s in rest],
        })

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict at full precision (non-finite numbers become ``None``)."""
        def num(v: Any) -> float | None:
            x = float(v)
            return x if math.isfinite(x) else None

        pw = [{"a": str(r.a), "b": str(r.b), "rope": num(r.rope),
               "p_a_better": num(r.p_a_better), "p_rope": num(r.p_rope),
               "p_b_better": num(r.p_b_better), "decision": str(r.decision),
               "verdict": str(r.verdict)}
              for r in self.pairwise.itertuples(index=False)]
        return {
            "approach": "bayesian",
            "n_datasets": self.n_datasets,
            "n_systems": self.n_systems,
            "level": self.level,
            "higher_is_better": self.higher_is_better,
            "systems": list(self.systems),
            "central_kind": self.central_kind,
            "central": {str(k): float(v) for k, v in self.central.items()},
            "spread": {str(k): float(v) for k, v in self.spread.items()},
            "average_ranks": {str(k): float(v) for k, v in self.average_ranks.items()},
            "shapiro_pvalues": {str(k): num(v) for k, v in self.shapiro_pvalues.items()},
            "all_normal": self.all_normal,
            "rope": self.rope,
            "rope_mode": self.rope_mode,
            "rope_scale": self.rope_scale,
            "prior": self.prior,
            "n_draws": self.n_draws,
            "seed": self.seed,
            "pairwise": pw,
            "cliques": [list(c) for c in self.cliques],
            "clique_kinds": list(self.clique_kinds),
            "posthoc": self.posthoc,
            "control": None,
            "critical_difference": None,
            "signature": str(self.signature),
        }

    def plot(self, **kwargs: Any) -> Figure:
        """The CD-style diagram of the decisions (:func:`ranger_eval.plots.cd.cd_diagram`)."""
        from ..plots.cd import cd_diagram

        return cd_diagram(self, **kwargs)


def _runs(block: np.ndarray) -> list[tuple[int, int]]:
    """Maximal runs ``i..j`` (j > i) of the order in which ``block`` holds for no pair."""
    k = block.shape[0]
    runs: list[tuple[int, int]] = []
    for i in range(k):
        j = i
        while j + 1 < k and not block[i:j + 2, i:j + 2].any():
            j += 1
        if j > i and not any(lo <= i and j <= hi for lo, hi in runs):
            runs.append((i, j))
    return runs


def _cliques(order: list[str], decided: pd.DataFrame,
             equivalent: pd.DataFrame) -> tuple[list[tuple[str, ...]], tuple[str, ...]]:
    """The diagram's bars in ``order`` (average ranks): maximal runs with no decided pair, and
    the maximal runs of practically equivalent systems (inside the former); each with its kind,
    ``"equivalent"`` when every pair in it is practically equivalent, else ``"undecided"``."""
    d = decided.loc[order, order].to_numpy(dtype=bool)
    eq = equivalent.loc[order, order].to_numpy(dtype=bool)
    not_eq = ~eq
    np.fill_diagonal(not_eq, False)
    runs = sorted(set(_runs(d)) | set(_runs(not_eq)))
    kinds = tuple("equivalent" if not not_eq[i:j + 1, i:j + 1].any() else "undecided"
                  for i, j in runs)
    return [tuple(order[i:j + 1]) for i, j in runs], kinds


def bayesian_rank_test(df: pd.DataFrame, *, higher_is_better: bool, level: float, rope: float,
                       rope_mode: str, prior: float, n_draws: int,
                       seed: int) -> BayesianRankTest:
    """The Bayesian rank test of a checked datasets × systems table (``rank_table``'s; settings
    checked by :class:`~ranger_eval.settings.RankSettings`). See the module docstring."""
    values = df.to_numpy(dtype=float)
    n, k = values.shape
    systems = tuple(str(c) for c in df.columns)
    bad = ~np.isfinite(values)
    if bad.any():
        r, c = (int(x[0]) for x in np.nonzero(bad))
        raise AggregateError(
            f"{_BAYESIAN.text} needs a score for every system on every dataset (each pair "
            f"is compared on the same datasets); missing: dataset {df.index[r]!r}, system "
            f"{systems[c]!r} ({bad.sum()} cell(s) in all)", hints=[_BAYESIAN])
    if n < MIN_DATASETS:
        raise AggregateError(
            f"{_BAYESIAN.text} needs at least {MIN_DATASETS} datasets (autorank's minimum: "
            f"Shapiro–Wilk chooses the ROPE's scale and the order); got {n}: "
            f"{', '.join(map(repr, list(df.index)[:10]))}", hints=[_BAYESIAN])
    if n_draws * (n + 1) > _MAX_FLOATS:
        most = _MAX_FLOATS // (n + 1)
        raise AggregateError(
            f"n_draws={n_draws:,} posterior draws of {n + 1} Dirichlet weights "
            f"({n:,} datasets) need {n_draws * (n + 1) * 8 / 2**20:,.0f} MB; pass "
            f"n_draws={most:,} or fewer")
    with warnings.catch_warnings():  # scipy warns on a constant column (its p-value is 1)
        warnings.simplefilter("ignore", UserWarning)
        shapiro = [float(stats.shapiro(values[:, c]).pvalue) for c in range(k)]
        res = bayesian_pairwise(values, systems, rope=rope, rope_mode=rope_mode, level=level,
                                prior=prior, n_samples=n_draws, seed=seed,
                                higher_is_better=higher_is_better)
    names = list(res.systems)
    p_better = pd.DataFrame(res.p_better, index=names, columns=names)
    p_rope = pd.DataFrame(res.p_rope, index=names, columns=names)
    ropes = pd.DataFrame(res.rope, index=names, columns=names)
    dec = pd.DataFrame(res.decisions, index=names, columns=names)
    col = {s: i for i, s in enumerate(systems)}
    for i, a in enumerate(names):   # identical scores and no ROPE: no evidence either way
        for b in names[i + 1:]:
            if ropes.loc[a, b] == 0 and np.array_equal(values[:, col[a]], values[:, col[b]]):
                warnings.warn(
                    f"rank_test: {a!r} and {b!r} have identical scores on all {n} datasets "
                    f"and the ROPE is 0: inconclusive (P = 0.5 each way); give a ROPE > 0 to "
                    f"ask whether they are practically equivalent", stacklevel=3)
                p_better.loc[a, b] = p_better.loc[b, a] = 0.5
                dec.loc[a, b] = dec.loc[b, a] = "inconclusive"

    positions = [col[s] for s in names]
    v = values[:, positions]
    if res.all_normal:
        central, spread, kind = v.mean(axis=0), v.std(axis=0, ddof=1), "mean"
    else:
        central, kind = np.median(v, axis=0), "median"
        spread = stats.median_abs_deviation(v, axis=0)
    oriented = -values if higher_is_better else values
    avg = stats.rankdata(oriented, axis=1, method="average").mean(axis=0)
    rank_order = np.argsort(avg, kind="stable")
    average_ranks = pd.Series(avg[rank_order], index=pd.Index([systems[i] for i in rank_order],
                                                              dtype=object),
                              name="average_rank")

    rows = []
    for i, a in enumerate(names):
        for b in names[i + 1:]:
            rows.append((a, b, float(ropes.loc[a, b]), float(p_better.loc[a, b]),
                         float(p_rope.loc[a, b]), float(p_better.loc[b, a]), dec.loc[a, b]))
    pairwise = pd.DataFrame(rows, columns=["a", "b", "rope", "p_a_better", "p_rope",
                                           "p_b_better", "decision"])
    decided = dec.isin(["better", "worse"])
    cliques, kinds = _cliques(list(average_ranks.index), decided, dec == "equivalent")
    signature = make_signature("rank", {
        "test": "bayesian-signed-rank",
        "approach": "bayesian",
        "rope": rope,
        "rope_mode": res.scale if rope_mode == "effsize" else "absolute",
        "prior": prior,
        "n_draws": n_draws,
        "seed": seed,
        "level": level,
    })
    out = BayesianRankTest(
        systems=tuple(names),
        central=pd.Series(central, index=pd.Index(names, dtype=object), name=kind),
        central_kind=kind,
        spread=pd.Series(spread, index=pd.Index(names, dtype=object),
                         name="sd" if kind == "mean" else "mad"),
        average_ranks=average_ranks,
        shapiro_pvalues=pd.Series(shapiro, index=pd.Index(systems, dtype=object),
                                  name="shapiro_pvalue"),
        all_normal=bool(res.all_normal),
        p_better=p_better, p_rope=p_rope, ropes=ropes, decisions=dec,
        pairwise=pairwise.assign(verdict=""),
        cliques=cliques, clique_kinds=kinds,
        rope=float(rope), rope_mode=rope_mode, level=float(level), prior=float(prior),
        n_draws=int(n_draws), seed=int(seed), higher_is_better=bool(higher_is_better),
        n_datasets=int(n), n_systems=int(k), signature=signature,
    )
    verdicts = [out.verdict(a, b) for a, b in zip(pairwise["a"], pairwise["b"], strict=True)]
    object.__setattr__(out, "pairwise", pairwise.assign(verdict=verdicts))
    return out
