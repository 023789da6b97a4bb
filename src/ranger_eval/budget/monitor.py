"""Anytime-valid confidence sequences and the monitoring of a running comparison:
:func:`confidence_sequence` and :func:`monitor`.

A fixed-n test looked at after every batch of items inflates its false-positive rate (peeking
every 50 items of a 1,000-item run at α = 0.05 wrongly declares a winner far more often than
5 % of the time: ``benchmarks/monitor_sim.py``). A *confidence sequence* covers the mean at every
time simultaneously, so a run may be stopped the first time the sequence excludes zero and the
error stays below 1 − level (Ville's inequality; Waudby-Smith & Ramdas 2023; Howard et al.
2021). The kernels are in :mod:`ranger_eval.stats.confseq`.

**Monitoring.** For treatment T and control C on one dataset × metric, each item i contributes
the paired difference d_i = T_i − C_i. With a clustered design (the design resolver's unit is
the cluster) the unit is the cluster and its observation is the mean difference of its items;
clusters enter in the order of their *completion* (the time their last item becomes a pair).
In a log still being written (``ranger-eval monitor``) a cluster with an item scored for one
system and not yet for the other is held out whole (counted in a warning), so no cluster enters
with part of its items; a cluster whose remaining items have not been written by either system
yet cannot be told apart from a complete one, so a log should write each cluster's items
together (the cluster entered is then final). Differences lie in [−(hi − lo), hi − lo]
for a metric with range [lo, hi] (the scores' declared range, ``bounds=``, or [0, 1] when every
score is 0 or 1; a metric without a known range is an error), and are mapped to [0, 1] by
(d + w)/(2w), w = hi − lo. The sequence is by default the betting CS with a mixture of ten
constant bets (``method="mixture"``, :func:`ranger_eval.stats.confseq.mixture_cs`), valid by
Ville's inequality; the decision is read off that same sequence, so the reported interval and
the decision always agree. After each unit t the sequence [L_t, U_t] of the mean difference
gives the decision, the first time one holds (then the run may stop: ``n_used`` = t):

- L_t > margin: "treatment better"; U_t < −margin: "control better";
- margin > 0 and −margin ≤ L_t ≤ U_t ≤ margin: "equivalent within margin";
- otherwise "continue" (``n_used`` = every unit seen).

**Order.** ``order="log"``: an item enters when both systems have a score for it, in the order
of the table's rows (the later of its two first rows), which is the order a log being written
records; ``order="random"``: a permutation of the units drawn from ``numpy.random.
default_rng(seed)`` (valid when the log's order could depend on the outcomes).

References: Waudby-Smith, I. & Ramdas, A. (2023), "Estimating means of bounded random variables
by betting", JRSS-B 86(1):1–27; Howard, S. R., Ramdas, A., McAuliffe, J. & Sekhon, J. (2021),
"Time-uniform, nonparametric, nonasymptotic confidence sequences", Ann. Statist. 49(2):1055–1080.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from ..design import refuse_prompts, resolve_design
from ..errors import ScoresError, StatsInputError
from ..scores import Scores, as_scores
from ..settings import (
    ConfidenceSequenceSettings,
    MonitorSettings,
    resolve_settings,
    signature_fields,
)
from ..signature import Signature, make_signature
from ..stats import confseq as kernels

if TYPE_CHECKING:
    from matplotlib.figure import Figure

__all__ = ["DECISIONS", "ConfidenceSequence", "MonitorResult", "confidence_sequence", "monitor",
           "monitor_again"]

#: The decisions of :func:`monitor`.
DECISIONS: tuple[str, ...] = ("treatment better", "control better", "equivalent within margin",
                              "continue")
_CS_DEFAULT = ConfidenceSequenceSettings()
_DEFAULT = MonitorSettings()


@dataclass(frozen=True)
class ConfidenceSequence:
    """A confidence sequence: ``lower[t − 1]``, ``upper[t − 1]`` after observation t, covering the
    mean at every t at once with probability ≥ ``level``; ``mean`` the running mean.
    ``bounds`` is the observations' range, ``n_population`` N when sampled without replacement.
    """

    lower: np.ndarray
    upper: np.ndarray
    mean: np.ndarray
    level: float
    method: str
    bounds: tuple[float, float]
    n_population: int | None = None
    settings: ConfidenceSequenceSettings | None = field(default=None, compare=False, repr=False)

    @property
    def n(self) -> int:
        return int(self.lower.size)

    @property
    def signature(self) -> Signature:
        fields = ({} if self.settings is None
                  else signature_fields(ConfidenceSequenceSettings, self.settings,
                                        {"bounds": _range_text(self.bounds)}))
        return make_signature("confseq", {**fields, "n": self.n})

    def to_frame(self) -> pd.DataFrame:
        """One row per observation: t, mean, lower, upper."""
        return pd.DataFrame({"t": np.arange(1, self.n + 1), "mean": self.mean,
                             "lower": self.lower, "upper": self.upper})

    def to_dict(self) -> dict[str, Any]:
        """JSON-friendly: the last interval, the settings and the signature (the whole sequence
        is :meth:`to_frame`)."""
        last = (float(self.lower[-1]), float(self.upper[-1])) if self.n else (None, None)
        return {"method": self.method, "level": self.level, "bounds": list(self.bounds),
                "n_population": self.n_population, "n": self.n, "lower": last[0],
                "upper": last[1], "signature": str(self.signature)}

    def summary(self) -> str:
        if not self.n:
            return f"{self.method} confidence sequence: no observations"
        return (f"{self.method} confidence sequence at level {self.level:g} after {self.n} "
                f"observations: mean {self.mean[-1]:.4g}, [{self.lower[-1]:.4g}, "
                f"{self.upper[-1]:.4g}]")


def _range_text(bounds: tuple[float, float]) -> str:
    return f"{bounds[0]:g}..{bounds[1]:g}"


def _observations(x: object, bounds: tuple[float, float]) -> np.ndarray:
    try:
        arr = np.asarray(x, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise StatsInputError(f"x: must be numbers; {exc}") from None
    if arr.ndim != 1:
        raise StatsInputError(f"x: must be one-dimensional; got shape {arr.shape}")
    bad = np.flatnonzero(~np.isfinite(arr))
    if bad.size:
        raise StatsInputError(f"x: observation {bad[0] + 1} is {arr[bad[0]]} (NaN or infinite)")
    lo, hi = bounds
    out = np.flatnonzero((arr < lo) | (arr > hi))
    if out.size:
        raise StatsInputError(
            f"x: observation {out[0] + 1} is {arr[out[0]]:g}, outside bounds=({lo:g}, {hi:g}) "
            f"({out.size} observation(s) outside); give the metric's true range as bounds=")
    return arr


def _sequence(arr: np.ndarray, s: ConfidenceSequenceSettings) -> ConfidenceSequence:
    lo, hi = s.bounds
    n = arr.size
    if s.n_population is not None:
        if s.method not in ("betting", "mixture"):
            raise StatsInputError(f"n_population: only method='betting' or 'mixture' has a "
                                  f"sequence for "
                                  f"sampling without replacement; got method={s.method!r}")
        if n > s.n_population:
            raise StatsInputError(f"n_population: {s.n_population} is smaller than the stream "
                                  f"({n} observations); a finite benchmark of N items gives at "
                                  f"most N observations without replacement")
    y = (arr - lo) / (hi - lo)
    alpha = 1 - s.level
    if n == 0:
        lower = upper = np.empty(0)
    elif s.method == "betting":
        lower, upper = kernels.betting_cs(y, alpha=alpha, n_population=s.n_population)
    elif s.method == "mixture":
        lower, upper = kernels.mixture_cs(y, alpha=alpha, n_population=s.n_population)
    elif s.method == "hoeffding":
        lower, upper = kernels.hoeffding_cs(y, alpha=alpha, t_opt=s.t_opt)
    else:
        lower, upper = kernels.empirical_bernstein_cs(y, alpha=alpha, v_opt=s.t_opt / 4)
    mean = np.cumsum(arr) / np.arange(1, n + 1) if n else np.empty(0)
    return ConfidenceSequence(lo + (hi - lo) * lower, lo + (hi - lo) * upper, mean, s.level,
                              s.method, s.bounds, s.n_population, settings=s)


def confidence_sequence(x: object, *, level: float = _CS_DEFAULT.level,
                        bounds: tuple[float, float] = _CS_DEFAULT.bounds,
                        method: str = _CS_DEFAULT.method,
                        n_population: int | None = _CS_DEFAULT.n_population,
                        settings: ConfidenceSequenceSettings | None = None) -> ConfidenceSequence:
    """An anytime-valid confidence sequence for the mean of bounded observations.

    ``method="betting"`` is the predictable plug-in betting CS of Waudby-Smith & Ramdas (2023),
    equal to ``confseq.betting.betting_cs`` at its defaults (grid of 1,000 candidate means, no
    running intersection); ``"hoeffding"`` and ``"empirical_bernstein"`` are the conjugate
    mixtures of Howard et al. (2021), equal to confseq's ``conjmix_hoeffding_twosided_cs`` and
    ``conjmix_empbern_twosided_cs`` (formulas: :mod:`ranger_eval.stats.confseq`). Bounds other
    than (0, 1) are handled by rescaling: the sequence of (x − lo)/(hi − lo) mapped back.

    Parameters
    ----------
    x : array-like
        Observations in the order observed, each within ``bounds``.
    level : float
        Coverage at every time at once.
    bounds : (float, float)
        The observations' range (lo, hi).
    method : {"betting", "mixture", "hoeffding", "empirical_bernstein"}
        The sequence (``mixture``: the betting CS with a mixture of constant bets).
    n_population : int, optional
        N, when the observations are a sample without replacement of N items (a finite
        benchmark): the sequence is then for the mean of the N items (betting only).
    settings : ConfidenceSequenceSettings, optional
        The settings object instead of the keywords.

    Returns
    -------
    ConfidenceSequence
        ``.lower``, ``.upper`` (after each observation), ``.mean``, ``.settings``.

    Raises
    ------
    StatsInputError
        An observation outside ``bounds`` (naming its position and value), NaN, or
        ``n_population`` smaller than the stream.

    References
    ----------
    Waudby-Smith & Ramdas (2023), JRSS-B 86(1); Howard et al. (2021), Ann. Statist. 49(2).

    Examples
    --------
    >>> import ranger_eval as rg
    >>> cs = rg.confidence_sequence([1, 0, 1, 1] * 100)
    >>> round(float(cs.lower[-1]), 3), round(float(cs.upper[-1]), 3)
    (0.671, 0.824)
    """
    s = resolve_settings(ConfidenceSequenceSettings,
                         {"level": level, "bounds": bounds, "method": method,
                          "n_population": n_population}, settings, where="confidence_sequence")
    return _sequence(_observations(x, s.bounds), s)


@dataclass(frozen=True)
class MonitorResult:
    """The anytime-valid monitoring of treatment − control (module docstring): ``decision`` (one
    of :data:`DECISIONS`), ``n_used`` units to the decision (all units seen for "continue"),
    ``n_available`` units seen, ``unit`` ("item" or the cluster name), ``units`` their ids in
    the order used, ``differences`` their differences, ``sequence`` the confidence sequence of
    the mean difference after each unit (all units seen, the decision's time marked by
    ``n_used``)."""

    dataset: str
    metric: str
    treatment: str
    control: str
    decision: str
    n_used: int
    n_available: int
    unit: str
    units: tuple[str, ...]
    differences: np.ndarray
    sequence: ConfidenceSequence
    margin: float
    level: float
    order: str
    settings: MonitorSettings | None = field(default=None, compare=False, repr=False)

    @property
    def stopped(self) -> bool:
        return self.decision != "continue"

    @property
    def lower(self) -> float:
        """The sequence's lower end at the decision (at the last unit for "continue")."""
        return float(self.sequence.lower[self.n_used - 1]) if self.n_used else -math.inf

    @property
    def upper(self) -> float:
        return float(self.sequence.upper[self.n_used - 1]) if self.n_used else math.inf

    @property
    def estimate(self) -> float:
        return float(self.sequence.mean[self.n_used - 1]) if self.n_used else math.nan

    @property
    def signature(self) -> Signature:
        fields = ({} if self.settings is None
                  else signature_fields(MonitorSettings, self.settings,
                                        {"bounds": _range_text(self.sequence.bounds)}))
        return make_signature("monitor", {**fields, "unit": self.unit,
                                          "n": self.n_available})

    def to_frame(self) -> pd.DataFrame:
        """One row per unit in the order used: t, unit id, difference, running mean, lower,
        upper, and whether a decision held at that time."""
        cs = self.sequence
        return pd.DataFrame({"t": np.arange(1, cs.n + 1), self.unit: list(self.units),
                             "difference": self.differences, "mean": cs.mean,
                             "lower": cs.lower, "upper": cs.upper,
                             "decided": np.arange(1, cs.n + 1) >= self.n_used if self.stopped
                             else np.zeros(cs.n, dtype=bool)})

    def to_dict(self) -> dict[str, Any]:
        return {"dataset": self.dataset, "metric": self.metric, "treatment": self.treatment,
                "control": self.control, "decision": self.decision, "n_used": self.n_used,
                "n_available": self.n_available, "unit": self.unit,
                "estimate": None if not self.n_used else self.estimate,
                "lower": None if not self.n_used else self.lower,
                "upper": None if not self.n_used else self.upper,
                "margin": self.margin, "level": self.level, "method": self.sequence.method,
                "order": self.order, "signature": str(self.signature)}

    def summary(self) -> str:
        """The decision in one sentence."""
        ci = (f"mean difference {self.estimate:+.4g}, {self.level:.0%} confidence sequence "
              f"[{self.lower:+.4g}, {self.upper:+.4g}]") if self.n_used else "no units yet"
        if self.stopped:
            return (f"{self.decision} ({self.treatment} − {self.control} on {self.dataset} × "
                    f"{self.metric}) after {self.n_used} of {self.n_available} {self.unit}s: "
                    f"{ci}; the run may stop")
        return (f"continue: no decision after {self.n_available} {self.unit}s "
                f"({self.treatment} − {self.control}, {ci})")

    def plot(self, **kwargs: Any) -> Figure:
        """The sequence over the units, the margin band and the decision
        (:func:`ranger_eval.plots.monitor.monitor_plot`)."""
        from ..plots.monitor import monitor_plot

        return monitor_plot(self, **kwargs)


def decide(lower: np.ndarray, upper: np.ndarray, margin: float) -> tuple[str, int]:
    """The first decision of a sequence of intervals and its time (1-based; the last time and
    "continue" when none holds)."""
    better = lower > margin
    worse = upper < -margin
    equiv = (lower >= -margin) & (upper <= margin) if margin > 0 else np.zeros(lower.size, bool)
    any_hit = better | worse | equiv
    if not any_hit.any():
        return "continue", int(lower.size)
    t = int(np.argmax(any_hit))
    name = ("treatment better" if better[t] else "control better" if worse[t]
            else "equivalent within margin")
    return name, t + 1


def _pick(names: tuple[str, ...], given: str | None, what: str) -> str:
    if given is not None:
        if given not in names:
            raise ScoresError(f"{what}: unknown {given!r}; known: {', '.join(names)}")
        return given
    if len(names) != 1:
        raise ScoresError(f"{what}: the scores have {len(names)} ({', '.join(names[:10])}); "
                          f"choose one with {what}=")
    return names[0]


def _metric_range(scores: Scores, metric: str, values: np.ndarray,
                  given: tuple[float, float] | None) -> tuple[float, float]:
    if given is not None:
        return given
    declared = scores.bounds.get(metric)
    if declared is not None:
        return declared
    if np.isin(values, (0.0, 1.0)).all():
        return (0.0, 1.0)
    raise ScoresError(f"metric {metric!r} has no known range (its scores are not all 0/1 and "
                      f"none was declared): give bounds=(lo, hi), the metric's range, so the "
                      f"differences are bounded")


def _log_order(frame: pd.DataFrame, treatment: str, control: str) -> pd.Index:
    """Items in the order they become pairs: the later of their first rows in each system
    (item ids encoded to integers once; the first row of each code per system)."""
    codes, uniques = pd.factorize(frame["item"], sort=False)
    systems = frame["system"]
    first: dict[str, np.ndarray] = {}
    for name in (treatment, control):
        rows = np.flatnonzero((systems == name).to_numpy(dtype=bool))
        pos = np.full(len(uniques), -1, dtype=np.int64)
        seen, at = np.unique(codes[rows], return_index=True)
        pos[seen] = rows[at]
        first[name] = pos
    t, c = first[treatment], first[control]
    t_only = uniques[(t >= 0) & (c < 0)]
    c_only = uniques[(c >= 0) & (t < 0)]
    if len(t_only) or len(c_only):
        raise ScoresError(
            f"the items of {treatment!r} and {control!r} do not match: {len(t_only)} only in "
            f"{treatment!r} (e.g. {', '.join(map(str, t_only[:5]))}), {len(c_only)} only in "
            f"{control!r} (e.g. {', '.join(map(str, c_only[:5]))}); monitor pairs items by id")
    both = np.maximum(t, c)
    return pd.Index(uniques[np.argsort(both, kind="stable")])


def _extended(previous: MonitorResult, diff: np.ndarray,
              s: ConfidenceSequenceSettings) -> ConfidenceSequence | None:
    """The sequence of ``diff`` from ``previous``'s when ``diff`` extends its differences with
    the same sequence settings: only the new times are computed (the mixture's intervals at
    a time depend on the observations up to it only). None when it does not apply."""
    old = previous.sequence
    k = previous.differences.size
    if (s.method != "mixture" or old.settings is None or old.settings != s or diff.size < k
            or not np.array_equal(previous.differences, diff[:k])):
        return None
    lo, hi = s.bounds
    y = (diff - lo) / (hi - lo)
    lower, upper = kernels.mixture_cs_tail(y, k, alpha=1 - s.level)
    mean = np.cumsum(diff) / np.arange(1, diff.size + 1)
    return ConfidenceSequence(np.concatenate([old.lower, lo + (hi - lo) * lower]),
                              np.concatenate([old.upper, lo + (hi - lo) * upper]), mean,
                              s.level, s.method, s.bounds, s.n_population, settings=s)


def monitor_again(previous: MonitorResult, scores: object, *, control: str, treatment: str,
                  settings: MonitorSettings) -> MonitorResult:
    """:func:`monitor` on ``scores``, a log that grew since ``previous`` was computed from it:
    the same result, with the sequence computed for the new units only when the stream of
    differences extends ``previous``'s (``ranger-eval monitor --follow``; otherwise in full).

    Examples
    --------
    >>> import numpy as np, ranger_eval as rg
    >>> from ranger_eval.budget.monitor import monitor_again
    >>> from ranger_eval.settings import MonitorSettings
    >>> rng = np.random.default_rng(0)
    >>> a, b = (rng.random(600) < 0.5) * 1.0, (rng.random(600) < 0.6) * 1.0
    >>> first = rg.monitor(rg.Scores.from_arrays({"qa": {"A": a[:300], "B": b[:300]}}),
    ...                    control="A", treatment="B")
    >>> full = rg.Scores.from_arrays({"qa": {"A": a, "B": b}})
    >>> again = monitor_again(first, full, control="A", treatment="B", settings=MonitorSettings())
    >>> bool(np.array_equal(again.sequence.lower, rg.monitor(full, control="A",
    ...                                                      treatment="B").sequence.lower))
    True
    """
    return _monitor(scores, control=control, treatment=treatment, s=settings,
                    previous=previous)


def monitor(scores: object, *, control: str, treatment: str, level: float = _DEFAULT.level,
            margin: float = _DEFAULT.margin, method: str = _DEFAULT.method,
            bounds: tuple[float, float] | None = _DEFAULT.bounds, order: str = _DEFAULT.order,
            seed: int = _DEFAULT.seed, dataset: str | None = _DEFAULT.dataset,
            metric: str | None = _DEFAULT.metric,
            settings: MonitorSettings | None = None) -> MonitorResult:
    """Anytime-valid monitoring of a running comparison: may the evaluation stop now?

    The paired differences treatment − control, one per unit (item, or cluster mean with a
    clustered design) in the log's order, feed a confidence sequence of the mean difference;
    the first time it clears ±``margin`` the run may stop with a decision whose error
    probability is at most 1 − ``level`` however often it was looked at (module docstring).

    Parameters
    ----------
    scores : Scores or table
        Per-item scores of (at least) the two systems, possibly a log still being written.
    control, treatment : str
        The two systems.
    level : float
        Coverage of the sequence at every time at once.
    margin : float
        Differences within ±margin do not matter (metric units); > 0 allows
        "equivalent within margin".
    method : {"mixture", "betting", "hoeffding", "empirical_bernstein"}
        The confidence sequence (:func:`confidence_sequence`). The default ``mixture`` (the
        betting CS with an equal-weight mixture of ten constant bets, Waudby-Smith & Ramdas
        2023 §5) reaches a decision in 0.96–1.26× the items of a fixed-n paired test at equal
        power for effects δ = 0.10 … 0.02; ``betting`` (the plug-in bets) needs up to 2.2×
        (``benchmarks/monitor_sim.py``).
    bounds : (float, float), optional
        The metric's range when the scores do not declare one.
    order : {"log", "random"}
        The units' order: the log's, or a permutation from ``seed``.
    seed : int
        Seed of ``order="random"``.
    dataset, metric : str, optional
        Which dataset and metric (needed when there are several).
    settings : MonitorSettings, optional
        The settings object instead of the keywords.

    Returns
    -------
    MonitorResult
        ``.decision``, ``.n_used``, ``.sequence``, ``.plot()``.

    Raises
    ------
    ScoresError
        Unknown systems, items that do not match between the two systems, or a metric without
        a known range and no ``bounds``.

    Examples
    --------
    >>> import numpy as np, ranger_eval as rg
    >>> rng = np.random.default_rng(0)
    >>> scores = rg.Scores.from_arrays({"qa": {"A": (rng.random(600) < 0.55).astype(float),
    ...                                        "B": (rng.random(600) < 0.75).astype(float)}})
    >>> res = rg.monitor(scores, control="A", treatment="B")
    >>> res.decision, res.n_used
    ('treatment better', 78)
    """
    s = resolve_settings(MonitorSettings,
                         {"level": level, "margin": margin, "method": method, "bounds": bounds,
                          "order": order, "seed": seed, "dataset": dataset, "metric": metric},
                         settings, where="monitor")
    return _monitor(scores, control=control, treatment=treatment, s=s, previous=None)


def _monitor(scores: object, *, control: str, treatment: str, s: MonitorSettings,
             previous: MonitorResult | None) -> MonitorResult:
    sc = as_scores(scores, what="scores", error=ScoresError)
    refuse_prompts(sc, where="monitor", why="the confidence sequence reads one paired difference "
                   "per item (its mean over the prompts) as independent draws")
    ds = _pick(sc.datasets, s.dataset, "dataset")
    for name in (treatment, control):
        if name not in sc.systems:
            raise ScoresError(f"unknown system {name!r}; known: {', '.join(sc.systems[:20])}")
    if treatment == control:
        raise ScoresError(f"treatment and control are both {treatment!r}")
    frame = sc.table
    frame = frame[(frame["dataset"] == ds) & frame["system"].isin([treatment, control])]
    metrics = (tuple(str(m) for m in pd.unique(frame["metric"].to_numpy(dtype=object)))
               if "metric" in frame else ("value",))
    mt = _pick(metrics, s.metric, "metric")
    if "metric" in frame:
        frame = frame[frame["metric"].astype(str) == mt]
    items = _log_order(frame, treatment, control)
    paired = sc.pair(ds, treatment, control, metric=mt if "metric" in sc.table else None)
    pos = pd.Index(paired.items).get_indexer(items)
    diff = (paired.treatment - paired.control)[pos]
    lo, hi = _metric_range(sc, mt, np.concatenate([paired.treatment, paired.control]), s.bounds)
    design = resolve_design(sc)
    unit_name = "item"
    unit_ids = items.to_numpy(dtype=object).astype(str).tolist()
    if design.clustered:
        codes = design.units(ds, items.to_numpy())
        # a cluster enters when its last item becomes a pair: order of completion
        uniq, last_rev = np.unique(codes[::-1], return_index=True)
        done_at = codes.size - 1 - last_rev
        order_u = uniq[np.argsort(done_at, kind="stable")]
        first = np.unique(codes, return_index=True)[1]
        sums = np.bincount(codes, weights=diff)
        counts = np.bincount(codes)
        diff = sums[order_u] / counts[order_u]
        clusters = sc.item_clusters(ds).loc[items].to_numpy(dtype=object)
        unit_ids = [str(clusters[first[np.searchsorted(uniq, u)]]) for u in order_u]
        unit_name = design.cluster_name or "cluster"
    if s.order == "random":
        perm = np.random.default_rng(s.seed).permutation(diff.size)
        diff = diff[perm]
        unit_ids = [unit_ids[i] for i in perm]
    w = hi - lo
    cs_settings = ConfidenceSequenceSettings(level=s.level, bounds=(-w, w), method=s.method,
                                             t_opt=s.t_opt)
    diff = np.clip(diff, -w, w)
    seq = _extended(previous, diff, cs_settings) if previous is not None else None
    if seq is None:
        seq = _sequence(diff, cs_settings)
    decision, n_used = decide(seq.lower, seq.upper, s.margin) if diff.size else ("continue", 0)
    return MonitorResult(ds, mt, treatment, control, decision, n_used, int(diff.size), unit_name,
                         tuple(unit_ids), diff, seq, s.margin, s.level, s.order, settings=s)
