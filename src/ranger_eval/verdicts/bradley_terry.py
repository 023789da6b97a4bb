"""Bradley–Terry leaderboards from pairwise battles (chatbot-arena style): :func:`bradley_terry`.

**Input** (LMArena's schema): one row per battle with ``model_a``, ``model_b`` and ``winner`` ∈
{``model_a``, ``model_b``, ``tie``, ``tie (bothbad)``}, and an optional positive ``weight``.

**Model.** Each model i has a strength θ_i (natural-log scale). With ``ties="half"`` (FastChat /
LMArena's ``compute_elo_mle_with_tie``) the probability that i beats j is
σ(θ_i − θ_j) = 1 / (1 + e^{−(θ_i − θ_j)}) and a tie counts as half a win for each side, i.e. the
weighted log-likelihood is Σ_battles w · [y log σ(s) + (1 − y) log σ(−s)] with y ∈ {1, ½, 0}
(Bradley & Terry 1952; Zermelo 1929). With ``ties="davidson"`` (Davidson 1970)
P(i wins) = π_i / D, P(j wins) = π_j / D, P(tie) = ν √(π_i π_j) / D with
D = π_i + π_j + ν √(π_i π_j), π = e^θ, and ν > 0 a tie parameter fitted with θ.
The fit is the plain maximum-likelihood estimate (no penalty, unlike scikit-learn's default L2
penalty), found by Newton's method with step halving on the aggregated distinct
(model_a, model_b, outcome, weight) rows, to a step below 1e-12.

**Ratings** are on the Elo scale: R_i = init_rating + scale · θ_i / ln(base), so that
P(i beats j) = 1 / (1 + base^{(R_j − R_i)/scale}). Without an anchor the mean rating is
``init_rating`` (Σθ = 0, which is where scikit-learn's solver starting at 0 lands as well); with
``anchor=(MODEL, RATING)`` that model has that rating exactly.

**Uncertainty.**
- ``se``: sandwich (robust) standard errors H⁻¹ B H⁻¹, H the observed information and
  B = Σ_battles w² g gᵀ the outer product of the per-battle scores g (Huber 1967; White 1982),
  valid also when half-ties are not a true likelihood. ``se_model`` is the model-based
  √diag(H⁻¹) that R ``BradleyTerry2::BTm`` reports. Both are for the ratings as identified
  (sum-to-mean or anchored; the anchor's own se is 0).
- ``ci_low``/``ci_high``: percentile bootstrap. Each round draws the number of copies of every
  distinct battle row from a multinomial (N battles, probabilities count/N) — exactly the row
  resampling of FastChat's bootstrap — and refits by Newton warm-started at the estimate,
  many rounds at once. A round in which some group of models never lost (or never won) to
  the others has no finite maximum-likelihood estimate; it is left out, counted in
  ``n_resamples_failed`` and in a warning.
- Battles made from per-item scores (:func:`battle_counts`) are not independent: the battles
  of one item share its scores. They come as item patterns (the outcome on every pair of
  systems) with counts; the bootstrap then draws items (multinomially over the patterns) and
  ``se`` is the cluster-robust sandwich Σ_items g_c g_cᵀ (Liang & Zeger 1986), g_c the sum of
  an item's battle scores (equal to statsmodels' binomial GLM with ``cov_type="cluster"``,
  no small-sample factor, to 1e-8). ``Ratings.resample`` says which (``battles``/``items``).
- ``rank_low``/``rank_high``: simultaneous ``level`` intervals of the ranks, read from the
  bootstrap ranks themselves: in every round each model's rank among the refitted strengths
  (1 = strongest; strengths within 1e-7 of each other share the rank span, so no name or row
  order breaks a tie), then for every model the k-th smallest and k-th largest of its ranks
  over the rounds, with one k for all models: the largest k (at most the marginal one,
  ⌊(1 − level)/2 · B⌋) such that in at least ``level`` of the rounds every model's rank lies
  within its interval — the simultaneous percentile bootstrap of Mandel & Betensky (2008,
  Comput. Stat. Data Anal. 52, 2158–2165) applied to the bootstrap rank vectors (Hall & Miller
  2009, Ann. Statist. 37(6B), on bootstrap distributions of ranks). A round's ranks do not
  move when every rating moves by the same amount, so the rank intervals — like the win
  probabilities, computed from differences of strengths — do not depend on ``anchor``,
  ``init_rating`` or where the scale puts its zero. LMArena's "rank (UB)" (1 + the models
  whose lower rating bound exceeds this model's upper bound) is not used: with an anchor
  (FastChat pins ``mixtral-8x7b-instruct-v0.1`` at 1114 in every round) the anchor's
  interval shrinks to a point and every other interval takes on the anchor's own
  uncertainty, so those ranks changed with the anchor.
- Ratings, ``se`` and ``ci_low``/``ci_high`` are relative to a location (``Ratings.relative_to``):
  ``"mean"`` (no anchor: the mean of all models is ``init_rating``; each interval covers the
  model's distance from that mean) or ``"anchor"`` (the anchor's rating is fixed, its se and
  interval are 0 and every other interval covers the distance from the anchor). The fit and
  the bootstrap never see the anchor: one fit (θ of the first model by name at 0) serves
  both, and only the conversion to ratings (and the covariance, by the contrast matrix of
  the location) differs.

**Checks** (tests/oracles/bradley_terry_oracle.py, .R): ratings equal an independent exact fit
(scipy) and ``choix.ilsr_pairwise(alpha=0)`` to 1e-12 Elo, Davidson's fit and ν the exact fit's;
``se_model`` equals R ``BradleyTerry2::BTm`` (1e-8 relative) and ``se`` the sandwich (HC0) of
the same model as an R ``glm`` (1e-10). FastChat's ``compute_elo_mle_with_tie`` with
``penalty=None`` (its current code) agrees to its solver tolerance (1e-6 Elo); with
scikit-learn's default L2 penalty (C = 1, its earlier code) ratings shrink towards the mean,
by 0.08–1.1 Elo on the fixtures (600–3,000 battles; the fewer battles, the more).

The maximum-likelihood estimate exists iff the directed graph "i beat or tied j" is strongly
connected (Zermelo 1929; Ford 1957); a disconnected comparison graph or a group that never lost
raises :class:`~ranger_eval.errors.VerdictError` naming the models.
"""
from __future__ import annotations

import math
import warnings
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
import pandas as pd
from scipy import sparse
from scipy.sparse import csgraph
from scipy.special import expit
from scipy.stats import norm

from ..errors import Hint, VerdictError, renamed_keywords
from ..formatting import preview
from ..io.battles import WINNER_LABELS, Battles, encode_battles
from ..settings import TIE_MODELS, ArenaSettings, resolve_settings
from ..signature import Signature, make_signature
from .battle_counts import SOURCE_ATTR, battle_counts, battles_from_scores, table_battle_counts
from .bt_covariates import CovariateFit, fit_covariates

__all__ = ["TIE_MODELS", "WINNER_LABELS", "Ratings", "battle_counts", "battles_from_scores",
           "bradley_terry", "table_battle_counts"]

#: ``Ratings.rank_method``: the rank intervals' construction (module docstring)
RANK_METHOD = ("simultaneous percentile intervals of each bootstrap round's ranks (Mandel & "
               "Betensky 2008)")
#: strengths (θ, natural-log scale) closer than this are tied when ranking a bootstrap round
_RANK_TIE = 1e-7

_BATCH = 64          # bootstrap rounds refitted together (memory: batch × models² floats)
_TOL = 1e-12         # Newton stops when the largest step (in θ) is below this
_TOL_BOOT = 1e-9     # the same in bootstrap rounds (ratings to ~1e-7 Elo)
_MAX_ITER = 100


@dataclass(frozen=True)
class Ratings:
    """A fitted Bradley–Terry leaderboard (module docstring for every formula).

    Series are indexed by model name, in the order of the models' names; ``to_frame()`` gives
    the leaderboard sorted by rating.
    """

    ratings: pd.Series
    ci_low: pd.Series
    ci_high: pd.Series
    se: pd.Series
    se_model: pd.Series
    rank_low: pd.Series
    rank_high: pd.Series
    win_probability: pd.DataFrame
    n_battles_by_model: pd.Series
    n_battles: int
    n_distinct: int
    total_weight: float
    ties: str
    tie_parameter: float | None
    scale: float
    base: float
    init_rating: float
    anchor: tuple[str, float] | None
    n_resamples: int
    n_resamples_failed: int
    level: float
    seed: int
    bootstrap: np.ndarray = field(repr=False)
    #: where the battles came from: ``"table"`` (battles read from a file or given as a
    #: table) or ``"scores(items)"`` / ``"scores(datasets)"`` (made from scores by
    #: :func:`battle_counts` / :func:`battles_from_scores`: every item (dataset) a battle
    #: between every pair of systems, equal scores a tie); the signature's ``battles:``
    source: str = "table"
    #: what the bootstrap resampled: ``"battles"`` (the distinct battle rows, FastChat's
    #: bootstrap) or ``"items"`` (battles made from scores: every battle of an item together,
    #: since an item's battles share its scores; the sandwich ``se`` sums within items too;
    #: ``"datasets"`` for a dataset-level table, whose datasets are the items)
    resample: str = "battles"
    #: where the ratings, ``se`` and ``ci_low``/``ci_high`` have their zero: ``"mean"`` (the
    #: mean of all models is ``init_rating``) or ``"anchor"`` (``anchor``'s model is fixed at
    #: its rating; its se and interval are 0). Rank intervals and win probabilities do not
    #: depend on it.
    relative_to: str = "mean"
    #: how ``rank_low``/``rank_high`` were made (module docstring)
    rank_method: str = RANK_METHOD
    #: the settings object of the call (:class:`~ranger_eval.settings.ArenaSettings`)
    settings: ArenaSettings | None = field(default=None, compare=False, repr=False)
    #: style control (:mod:`~ranger_eval.verdicts.bt_covariates`): the battle-level covariates
    #: whose effects the ratings hold at zero (empty: none)
    covariates: tuple[str, ...] = ()
    #: one row per covariate: ``covariate``, ``kind`` (difference/pair), ``estimate`` (log-odds
    #: per sd of the standardised difference), ``elo`` (the same in rating points), ``se``
    #: (sandwich), ``se_model``, ``ci_low``/``ci_high`` (bootstrap percentile), ``z``,
    #: ``pvalue`` (Wald, sandwich se), ``mean``/``sd`` (the standardisation); None without
    #: covariates
    coefficients: pd.DataFrame | None = field(default=None, compare=False, repr=False)
    #: the same battles rated without the covariates (same settings and seed), shown side by
    #: side; None without covariates
    uncontrolled: Ratings | None = field(default=None, compare=False, repr=False)

    @property
    def reference_text(self) -> str:
        """What the ratings' intervals are relative to, in words (captions, readings)."""
        return reference_text(self.relative_to, self.anchor, self.init_rating)

    @property
    def models(self) -> tuple[str, ...]:
        return tuple(str(m) for m in self.ratings.index)

    def to_frame(self) -> pd.DataFrame:
        """The leaderboard: one row per model, best rating first."""
        frame = pd.DataFrame({
            "model": self.ratings.index.astype(str),
            "rating": self.ratings.to_numpy(),
            "ci_low": self.ci_low.to_numpy(),
            "ci_high": self.ci_high.to_numpy(),
            "se": self.se.to_numpy(),
            "rank_low": self.rank_low.to_numpy(),
            "rank_high": self.rank_high.to_numpy(),
            "n_battles": self.n_battles_by_model.to_numpy(),
            "relative_to": self._relative_label(),
        })
        if self.uncontrolled is not None:   # ratings without style control, side by side
            plain = self.uncontrolled
            frame.insert(4, "rating_uncontrolled", plain.ratings.to_numpy())
            frame.insert(5, "ci_low_uncontrolled", plain.ci_low.to_numpy())
            frame.insert(6, "ci_high_uncontrolled", plain.ci_high.to_numpy())
            frame.insert(9, "rank_low_uncontrolled", plain.rank_low.to_numpy())
            frame.insert(10, "rank_high_uncontrolled", plain.rank_high.to_numpy())
        return frame.sort_values(["rating", "model"], ascending=[False, True],
                                 kind="stable").reset_index(drop=True)

    def _relative_label(self) -> str:
        """The leaderboard's ``relative_to`` column: ``mean`` or ``anchor:MODEL``."""
        return "mean" if self.anchor is None else f"anchor:{self.anchor[0]}"

    def rank_sentence(self, model: str) -> str:
        """``"rank 1–3 of 12 (95 % rank interval)"`` for one model."""
        if model not in self.ratings.index:
            raise VerdictError(f"unknown model {model!r}; models: {preview(self.models)}")
        lo, hi = int(self.rank_low[model]), int(self.rank_high[model])
        ranks = f"{lo}" if lo == hi else f"{lo}–{hi}"
        return f"rank {ranks} of {len(self.ratings)} ({self.level * 100:g} % rank interval)"

    @property
    def signature(self) -> Signature:
        """``kind:arena|battles:…|tie_model:…|elo:scale,base,init|anchor:…|level|n_resamples|
        seed``; ``battles:`` says whether the battles were a table (``table``) or made from
        scores (``scores(items)``, ``scores(datasets)``)."""
        anchor = None if self.anchor is None else f"{self.anchor[0]}={self.anchor[1]:g}"
        return make_signature("arena", {
            "battles": self.source, "resample": self.resample, "tie_model": self.ties, "elo": (self.scale, self.base, self.init_rating),
            "anchor": anchor, "covariates": ",".join(self.covariates) or None,
            "level": self.level, "n_resamples": self.n_resamples, "seed": self.seed})

    def to_dict(self) -> dict[str, Any]:
        """JSON-friendly: settings, counts, the leaderboard rows, the win-probability matrix
        and the signature."""
        return {
            "source": self.source, "resample": self.resample,
            "ties": self.ties, "tie_parameter": self.tie_parameter, "scale": self.scale,
            "base": self.base, "init_rating": self.init_rating,
            "anchor": None if self.anchor is None else list(self.anchor),
            "relative_to": self.relative_to, "reference_text": self.reference_text,
            "rank_method": self.rank_method,
            "level": self.level, "n_resamples": self.n_resamples,
            "n_resamples_failed": self.n_resamples_failed, "seed": self.seed,
            "n_battles": self.n_battles, "n_distinct": self.n_distinct,
            "total_weight": self.total_weight,
            "leaderboard": self.to_frame().to_dict(orient="records"),
            "win_probability": {str(k): {str(c): float(v) for c, v in row.items()}
                                for k, row in self.win_probability.iterrows()},
            "covariates": list(self.covariates),
            "coefficients": None if self.coefficients is None else
            self.coefficients.to_dict(orient="records"),
            "signature": str(self.signature),
        }


# ------------------------------------------------------------------------------------ input

@dataclass(frozen=True)
class _Pairs:
    """Battles aggregated by unordered pair (i < j): masses ``m[k] = (Σw i won, Σw j won,
    Σw tie)`` and ``m2`` the same sums of w² (for the sandwich)."""

    models: tuple[str, ...]
    i: np.ndarray
    j: np.ndarray
    m: np.ndarray
    m2: np.ndarray
    row_pair: np.ndarray      # distinct row → pair index
    row_outcome: np.ndarray   # distinct row → outcome 0/1/2 (from i's side)
    row_weight: np.ndarray
    row_count: np.ndarray
    n_battles: int
    source: str = "table"
    #: battles in clusters (items): patterns × distinct rows (sparse, battle counts) and the
    #: number of clusters with each pattern; None: independent battles
    cluster_rows: Any = None
    cluster_count: np.ndarray | None = None
    #: the design's unit when the clusters are not items: ``cluster(NAME)`` (Battles.unit)
    unit: str | None = None


#: ``DataFrame.attrs`` key by which :func:`battles_from_scores` marks its table as made from
#: scores (read back by :func:`bradley_terry` for the signature).


def _battles(battles: object) -> _Pairs:
    if isinstance(battles, Battles):
        enc = battles
    else:
        enc = encode_battles(battles, what="bradley_terry", error=VerdictError)
        attrs = getattr(battles, "attrs", None)
        marked = attrs.get(SOURCE_ATTR) if isinstance(attrs, dict) else None
        if isinstance(marked, str) and marked.startswith("scores("):
            enc = Battles(enc.models, enc.a, enc.b, enc.outcome, enc.weight, source=marked)
    models = np.asarray(enc.models, dtype=object)
    ca, cb, out, w = enc.a, enc.b, enc.outcome, enc.weight
    swap = ca > cb
    i = np.where(swap, cb, ca)
    j = np.where(swap, ca, cb)
    o = np.where(swap & (out < 2), 1 - out, out)
    p = len(models)
    wcode, wvalues = pd.factorize(w)
    key = ((i.astype(np.int64) * p + j) * 3 + o) * len(wvalues) + wcode
    cluster_rows = None
    if enc.count is None:
        distinct, rc = np.unique(key, return_counts=True)
        n_battles = int(ca.size)
    else:   # rows standing for count[r] identical battles each
        distinct, inverse = np.unique(key, return_inverse=True)
        rc = np.bincount(inverse, weights=enc.count, minlength=distinct.size).astype(np.int64)
        n_battles = int(rc.sum())
        if enc.cluster_rows is not None:   # patterns × rows → patterns × distinct rows
            onehot = sparse.csr_matrix((np.ones(key.size), (np.arange(key.size), inverse)),
                                       shape=(key.size, distinct.size))
            cluster_rows = sparse.csr_matrix(enc.cluster_rows @ onehot)
    rw = np.asarray(wvalues, dtype=np.float64)[distinct % len(wvalues)]
    rest = distinct // len(wvalues)
    ro = rest % 3
    pair_key = rest // 3
    pair_ids, row_pair = np.unique(pair_key, return_inverse=True)
    n_pairs = pair_ids.size
    m = np.zeros((n_pairs, 3))
    m2 = np.zeros((n_pairs, 3))
    np.add.at(m, (row_pair, ro), rc * rw)
    np.add.at(m2, (row_pair, ro), rc * rw * rw)
    return _Pairs(tuple(str(x) for x in models), pair_ids // p, pair_ids % p, m, m2, row_pair,
                  ro, rw, rc.astype(np.int64), n_battles, enc.source, cluster_rows,
                  None if cluster_rows is None else np.asarray(enc.cluster_count, np.int64),
                  enc.unit if cluster_rows is not None else None)


def _check_graph(models: tuple[str, ...], i: np.ndarray, j: np.ndarray, m: np.ndarray) -> None:
    """Connected comparison graph and a finite MLE (strongly connected "beat or tied" graph)."""
    p = len(models)
    adj = sparse.coo_matrix((np.ones(i.size), (i, j)), shape=(p, p))
    n_comp, label = csgraph.connected_components(adj, directed=False)
    if n_comp > 1:
        groups = [[models[k] for k in np.flatnonzero(label == c)] for c in range(n_comp)]
        shown = "; ".join(f"{{{preview(g)}}}" for g in groups[:4])
        raise VerdictError(
            f"bradley_terry: the comparison graph is disconnected: {n_comp} groups of models "
            f"never met ({shown}); ratings of models that never met, directly or through "
            "others, cannot be compared — add battles between the groups or rate each group "
            "separately")
    ok, comp = _strongly_connected(p, i, j, m)
    if not ok:
        top = _undefeated_group(p, i, j, m, comp)
        raise VerdictError(
            f"bradley_terry: no finite maximum-likelihood ratings: the model(s) "
            f"{preview([models[k] for k in top])} never lost (nor tied) against any other model, "
            "so their ratings would be infinite; add their losses, or use a penalised fit "
            "elsewhere (Ranger fits the plain maximum likelihood)")


def _strongly_connected(p: int, i: np.ndarray, j: np.ndarray, m: np.ndarray
                        ) -> tuple[bool, np.ndarray]:
    i_beats = (m[:, 0] + m[:, 2]) > 0   # edge i → j: i beat or tied j
    j_beats = (m[:, 1] + m[:, 2]) > 0
    src = np.concatenate([i[i_beats], j[j_beats]])
    dst = np.concatenate([j[i_beats], i[j_beats]])
    g = sparse.coo_matrix((np.ones(src.size), (src, dst)), shape=(p, p))
    n, comp = csgraph.connected_components(g, directed=True, connection="strong")
    return n == 1, comp


def _undefeated_group(p: int, i: np.ndarray, j: np.ndarray, m: np.ndarray,
                      comp: np.ndarray) -> np.ndarray:
    """A strong component with no loss to a model outside it (a source of the condensation)."""
    i_beats = (m[:, 0] + m[:, 2]) > 0
    j_beats = (m[:, 1] + m[:, 2]) > 0
    beaten_from_outside = set()
    for src, dst in ((j[i_beats], i[i_beats]), (i[j_beats], j[j_beats])):
        # src was beaten by dst; a component is "beaten from outside" when it has a loss
        cross = comp[src] != comp[dst]
        beaten_from_outside.update(comp[src][cross].tolist())
    for c in np.unique(comp):
        if int(c) not in beaten_from_outside:
            return np.flatnonzero(comp == c)
    return np.arange(p)  # unreachable for a connected graph that is not strongly connected


# ------------------------------------------------------------------------------- the solver

def _half_terms(theta: np.ndarray, i: np.ndarray, j: np.ndarray, m: np.ndarray
                ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per pair: log-likelihood, d/ds and −d²/ds² of the half-tie model (batched over rows of
    θ), s = θ_i − θ_j."""
    s = theta[..., i] - theta[..., j]
    win = m[..., 0] + 0.5 * m[..., 2]
    n = m.sum(axis=-1)
    p = expit(s)
    # w log σ(s) + (n − w) log σ(−s) = w s − n log(1 + e^s)
    ll = win * s - n * np.logaddexp(0.0, s)
    return ll, win - n * p, n * p * (1.0 - p)


def _davidson_terms(theta: np.ndarray, eta: np.ndarray, i: np.ndarray, j: np.ndarray,
                    m: np.ndarray) -> tuple[np.ndarray, ...]:
    """Per pair of the Davidson model: log-likelihood, d/ds, d/dη and the information
    entries (ss, sη, ηη); derivation in the module docstring's notation with
    D' = e^{s/2} + e^{−s/2} + ν, ν = e^η."""
    s = theta[..., i] - theta[..., j]
    eta_b = np.asarray(eta)[..., None]
    half = 0.5 * s
    big = np.maximum(np.abs(half), eta_b)   # scaled so that no exponential overflows
    u, v, t = np.exp(half - big), np.exp(-half - big), np.exp(eta_b - big)
    d = u + v + t
    pi, pj, pt = u / d, v / d, t / d
    n = m.sum(axis=-1)
    logd = np.log(d) + big
    ll = m[..., 0] * half - m[..., 1] * half + m[..., 2] * eta_b - n * logd
    gs = 0.5 * (m[..., 0] - m[..., 1]) - 0.5 * n * (pi - pj)
    ge = m[..., 2] - n * pt
    a_ss = 0.25 * n * ((pi + pj) - (pi - pj) ** 2)
    a_se = -0.5 * n * pt * (pi - pj)
    a_ee = n * pt * (1.0 - pt)
    return ll, gs, ge, a_ss, a_se, a_ee, pi, pj, pt


def _newton(i: np.ndarray, j: np.ndarray, m: np.ndarray, p: int, ties: str,
            start: np.ndarray, ref: int, tol: float = _TOL, line_search: bool = True
            ) -> tuple[np.ndarray, np.ndarray]:
    """Maximise the log-likelihood for a batch of mass arrays ``m`` (B × pairs × 3).

    Parameters are θ with θ_ref = 0 (plus η = log ν for Davidson, last). Newton steps, with
    step halving (per batch row) when ``line_search``, until the largest step is below
    ``tol``. Returns the parameters (B × p or B × (p + 1)) and which rows converged.
    """
    x = start.copy()
    free = np.flatnonzero(np.arange(x.shape[1]) != ref)
    ll_old = _loglik(x, i, j, m, p, ties) if line_search else np.zeros(x.shape[0])
    done = np.zeros(x.shape[0], dtype=bool)
    for _ in range(_MAX_ITER if line_search else 30):
        act = np.flatnonzero(~done)
        m_act = m[act] if m.shape[0] > 1 else m
        g, h = _grad_hess(x[act], i, j, m_act, p, ties)
        try:
            step_free = np.linalg.solve(h[:, free][:, :, free], g[:, free][..., None])[..., 0]
        except np.linalg.LinAlgError:
            return x, done & np.all(np.isfinite(x), axis=1)
        step = np.zeros((act.size, x.shape[1]))
        step[:, free] = step_free
        t = np.ones(act.size)
        trial = x[act] + step
        for _half in range(40 if line_search else 0):
            trial = x[act] + t[:, None] * step
            ll_new = _loglik(trial, i, j, m_act, p, ties)
            worse = ~(ll_new >= ll_old[act] - 1e-12 * np.abs(ll_old[act]))
            if not worse.any():
                break
            t = np.where(worse, 0.5 * t, t)
        x[act] = trial
        if line_search:
            ll_old[act] = ll_new
        size = np.max(np.abs(t[:, None] * step), axis=1)
        done[act[size < tol]] = True
        if done.all():
            break
    return x, done & np.all(np.isfinite(x), axis=1)


def _loglik(x: np.ndarray, i: np.ndarray, j: np.ndarray, m: np.ndarray, p: int,
            ties: str) -> np.ndarray:
    if ties == "half":
        ll = _half_terms(x[:, :p], i, j, m)[0]
    else:
        ll = _davidson_terms(x[:, :p], x[:, p], i, j, m)[0]
    return np.asarray(ll.sum(axis=-1))


def _grad_hess(x: np.ndarray, i: np.ndarray, j: np.ndarray, m: np.ndarray, p: int,
               ties: str) -> tuple[np.ndarray, np.ndarray]:
    """Gradient and observed information (negative Hessian) of the log-likelihood, for every
    row of the batch at once (the information of θ is the weighted graph Laplacian)."""
    b = x.shape[0]
    k = x.shape[1]
    g = np.zeros((b, k))
    h = np.zeros((b, k, k))
    if ties == "half":
        _, gs, a_ss = _half_terms(x[:, :p], i, j, m)
    else:
        _, gs, ge, a_ss, a_se, a_ee, *_ = _davidson_terms(x[:, :p], x[:, p], i, j, m)
    gs = np.broadcast_to(gs, (b, i.size))
    a_ss = np.broadcast_to(a_ss, (b, i.size))
    inc = _incidence(i, j, p)
    g[:, :p] = (inc.T @ gs.T).T
    h[:, i, j] = -a_ss
    h[:, j, i] = -a_ss
    diag = np.arange(p)
    h[:, diag, diag] = (abs(inc).T @ a_ss.T).T
    if ties == "davidson":
        ge = np.broadcast_to(ge, (b, i.size))
        a_se = np.broadcast_to(a_se, (b, i.size))
        a_ee = np.broadcast_to(a_ee, (b, i.size))
        g[:, p] = ge.sum(axis=1)
        col = (inc.T @ a_se.T).T
        h[:, :p, p] = col
        h[:, p, :p] = col
        h[:, p, p] = a_ee.sum(axis=1)
    return g, h


def _incidence(i: np.ndarray, j: np.ndarray, p: int) -> sparse.csr_matrix:
    """Pairs × models: +1 at i, −1 at j (s = θ_i − θ_j = row · θ)."""
    rows = np.arange(i.size)
    return sparse.csr_matrix((np.concatenate([np.ones(i.size), -np.ones(j.size)]),
                              (np.concatenate([rows, rows]), np.concatenate([i, j]))),
                             shape=(i.size, p))


def _meat(x: np.ndarray, pairs: _Pairs, p: int, ties: str) -> np.ndarray:
    """B = Σ_battles w² g gᵀ from the per-pair sums of w² by outcome. A battle's score in θ is
    its score in s times (e_i − e_j), so the θ block is a weighted graph Laplacian."""
    i, j, m2 = pairs.i, pairs.j, pairs.m2
    k = x.shape[0]
    se = None
    if ties == "half":
        prob = expit(x[i] - x[j])
        # score in s for an i-win, a j-win and a tie
        ss = np.stack([1.0 - prob, -prob, 0.5 - prob], axis=1)
    else:
        *_, pi, pj, pt = _davidson_terms(x[None, :p], x[None, p], i, j, m2[None])
        ds = -0.5 * (pi[0] - pj[0])
        ss = np.stack([0.5 + ds, -0.5 + ds, ds], axis=1)
        se = np.stack([-pt[0], -pt[0], 1.0 - pt[0]], axis=1)
    if pairs.cluster_rows is not None:
        return _cluster_meat(pairs, p, k, ss, se)
    if se is None:
        return _laplacian(i, j, p, (m2 * ss * ss).sum(axis=1))
    meat = np.zeros((k, k))
    meat[:p, :p] = _laplacian(i, j, p, (m2 * ss * ss).sum(axis=1))
    col = _incidence(i, j, p).T @ (m2 * ss * se).sum(axis=1)
    meat[:p, p] = col
    meat[p, :p] = col
    meat[p, p] = (m2 * se * se).sum()
    return meat


def _cluster_meat(pairs: _Pairs, p: int, k: int, ss: np.ndarray,
                  se: np.ndarray | None) -> np.ndarray:
    """B = Σ_clusters g_c g_cᵀ, g_c the sum of the scores of the cluster's battles (Liang &
    Zeger 1986; the cluster-robust sandwich, without a small-sample factor, as statsmodels'
    ``cov_type="cluster"`` with ``use_correction=False``): per distinct row its score vector,
    summed per cluster pattern, weighted by how many clusters have the pattern."""
    n_rows = pairs.row_pair.size
    o, w = pairs.row_outcome, pairs.row_weight
    score_s = w * ss[pairs.row_pair, o]
    rows = np.arange(n_rows)
    cols = [pairs.i[pairs.row_pair], pairs.j[pairs.row_pair]]
    data = [score_s, -score_s]
    if se is not None:
        cols.append(np.full(n_rows, p))
        data.append(w * se[pairs.row_pair, o])
    g_row = sparse.csr_matrix((np.concatenate(data), (np.tile(rows, len(cols)),
                                                      np.concatenate(cols))),
                              shape=(n_rows, k))
    g_pat = np.asarray((pairs.cluster_rows @ g_row).todense())
    count = np.asarray(pairs.cluster_count, dtype=np.float64)
    return np.asarray(g_pat.T @ (count[:, None] * g_pat))


def _laplacian(i: np.ndarray, j: np.ndarray, p: int, weight: np.ndarray) -> np.ndarray:
    """Σ_pairs weight · (e_i − e_j)(e_i − e_j)ᵀ (p × p)."""
    out = np.zeros((p, p))
    out[i, j] = -weight
    out[j, i] = -weight
    out[np.arange(p), np.arange(p)] = (np.bincount(i, weight, minlength=p)
                                       + np.bincount(j, weight, minlength=p))
    return out


def _covariances(x: np.ndarray, pairs: _Pairs, p: int, ties: str,
                 ref: int) -> tuple[np.ndarray, np.ndarray]:
    """Model-based H⁻¹ and sandwich H⁻¹BH⁻¹ of θ with θ_ref fixed at 0 (p × p, zero row and
    column for ref)."""
    _, h = _grad_hess(x[None], pairs.i, pairs.j, pairs.m[None], p, ties)
    k = x.size
    free = np.flatnonzero(np.arange(k) != ref)
    hinv = np.linalg.inv(h[0][np.ix_(free, free)])
    meat = _meat(x, pairs, p, ties)[np.ix_(free, free)]
    sand = hinv @ meat @ hinv
    out = []
    for v in (hinv, sand):
        full = np.zeros((k, k))
        full[np.ix_(free, free)] = v
        out.append(full[:p, :p])
    return out[0], out[1]


# -------------------------------------------------------------------------------- the API

def _anchor(anchor: str | tuple[str, float] | None, models: tuple[str, ...],
            init_rating: float) -> tuple[str, float] | None:
    """The anchor as ``(model, rating)``: ``ArenaSettings.anchor`` has already checked its form
    and rating (None, a model name rated ``init_rating``, or ``(MODEL, RATING)``); here only
    that the model is in the battles."""
    if anchor is None:
        return None
    name, rating = (anchor, init_rating) if isinstance(anchor, str) else anchor
    if name not in models:
        hint = Hint("anchor")
        raise VerdictError(f"bradley_terry: anchor model {name!r} is not in the battles; "
                           f"models: {preview(models, 30)}; {hint.text} naming one of them",
                           hints=[hint])
    return name, float(rating)


_DEFAULT = ArenaSettings()


@renamed_keywords(n_bootstrap="n_resamples")
def bradley_terry(battles: object, *, ties: str = _DEFAULT.ties,
                  scale: float = _DEFAULT.scale, base: float = _DEFAULT.base,
                  init_rating: float = _DEFAULT.init_rating, anchor: object = _DEFAULT.anchor,
                  n_resamples: int = _DEFAULT.n_resamples, level: float = _DEFAULT.level,
                  seed: int = _DEFAULT.seed, covariates: object = _DEFAULT.covariates,
                  settings: ArenaSettings | None = None) -> Ratings:
    """Bradley–Terry ratings of models from pairwise battles (module docstring: model, fit,
    scale, sandwich standard errors, bootstrap intervals, rank intervals).

    ``battles``: a table (pandas, Arrow, polars, …) with ``model_a``, ``model_b``, ``winner``
    and optionally ``weight``. ``ties``: ``"half"`` or ``"davidson"``. ``anchor``:
    ``(MODEL, RATING)`` (or ``{MODEL: RATING}``, or a model name rated ``init_rating``) pins
    one model's rating. ``n_resamples`` bootstrap rounds (0 skips the bootstrap: intervals and
    rank intervals are then NaN). ``settings``: an
    :class:`~ranger_eval.settings.ArenaSettings` instead of the keywords (its ``metric`` and
    ``higher_is_better`` are for per-item scores, :func:`battle_counts`); the result carries
    it as ``.settings``.

    Parameters
    ----------
    battles : table or Battles
        One row per battle (``model_a``, ``model_b``, ``winner`` ∈ {``model_a``, ``model_b``,
        ``tie``, ``tie (bothbad)``}, optional ``weight``), or the counts of :func:`battle_counts`.
    ties : {"half", "davidson"}, default "half"
        A tie as half a win for each side, or Davidson's tie model.
    scale, base, init_rating : float, default 400, 10, 1000
        Rating = init_rating + scale · θ / ln(base) (the Elo scale).
    anchor : tuple, mapping or str, optional
        Pins one model's rating (default: the ratings are relative to their mean).
    n_resamples : int, default 1000
        Bootstrap rounds (0 skips the bootstrap).
    level : float, default 0.95
        Level of the rating and rank intervals.
    seed : int, default 0
        Seed of the bootstrap.
    covariates : str or list of str, optional
        Style control (LMArena; :mod:`~ranger_eval.verdicts.bt_covariates`): battle-level
        covariates whose effects the ratings hold at zero. Each name is either a ready
        difference column ``NAME`` (model_a's feature minus model_b's, used as given) or a pair
        ``NAME_a``/``NAME_b`` of each side's feature (≥ 0: lengths, counts of headers, lists,
        bold), turned into FastChat's relative difference (a − b)/(a + b + 1); either way the
        differences are standardised (mean 0, population sd 1 over the battles) as LMArena
        does. The fit is then the logistic regression on ±1 model columns and the covariates
        (ties half a win, weights), with ``coefficients`` (log-odds per sd, sandwich se,
        bootstrap interval) and the ratings without covariates in ``uncontrolled``.
    settings : ArenaSettings, optional
        The keywords above as one object.

    Returns
    -------
    Ratings
        ``ratings``, ``se`` (sandwich), ``se_model``, ``ci_low``/``ci_high`` and
        ``rank_low``/``rank_high`` (bootstrap), ``win_probability`` matrix, battle counts and
        ``settings``.

    Raises
    ------
    VerdictError
        A malformed table, unknown winners, or a model that never lost or never won (no finite
        maximum-likelihood rating).

    References
    ----------
    Bradley, R. A. & Terry, M. E. (1952), "Rank analysis of incomplete block designs: I. The
    method of paired comparisons", Biometrika 39:324–345. Zermelo, E. (1929). Davidson, R. R.
    (1970), "On extending the Bradley–Terry model to accommodate ties in paired comparison
    experiments", JASA 65:317–328. Huber (1967), White (1982) (sandwich standard errors).
    Mandel & Betensky (2008) (simultaneous rank intervals).

    Examples
    --------
    >>> import pandas as pd
    >>> import ranger_eval as rg
    >>> battles = pd.DataFrame({
    ...     "model_a": ["A", "A", "A", "B", "B", "C", "A", "B", "C"],
    ...     "model_b": ["B", "C", "B", "C", "A", "A", "C", "C", "B"],
    ...     "winner": ["model_a", "model_a", "model_b", "model_a", "tie", "model_b", "model_a",
    ...                "model_b", "model_a"]})
    >>> r = rg.bradley_terry(battles, n_resamples=0)
    >>> r.ratings.round(1).to_dict()
    {'A': 1127.7, 'B': 957.3, 'C': 915.0}
    >>> round(float(r.win_probability.loc["A", "B"]), 3)
    0.727

    Style control: the length of each side's answer (``length_a``, ``length_b``).

    >>> battles["length_a"] = [120, 300, 80, 250, 90, 60, 400, 100, 220]
    >>> battles["length_b"] = [100, 90, 200, 110, 95, 310, 100, 240, 130]
    >>> s = rg.bradley_terry(battles, covariates=["length"], n_resamples=0)
    >>> s.coefficients[["covariate", "kind"]].to_dict(orient="records")
    [{'covariate': 'length', 'kind': 'pair'}]
    >>> list(s.to_frame().columns[:5])
    ['model', 'rating', 'ci_low', 'ci_high', 'rating_uncontrolled']
    """
    keywords = {"ties": ties, "scale": scale, "base": base, "init_rating": init_rating,
                "anchor": anchor, "n_resamples": n_resamples, "level": level, "seed": seed,
                "covariates": covariates}
    settings = resolve_settings(ArenaSettings, keywords, settings, where="bradley_terry")
    ties, scale, base = settings.ties, settings.scale, settings.base
    init, level, seed = settings.init_rating, settings.level, settings.seed
    n_resamples = settings.n_resamples
    covariates = settings.covariates or ()
    uncontrolled = None
    styled: Battles | None = None   # the battles with their covariates (style control)
    if covariates:   # style control: the same battles rated without the covariates too
        battles = styled = _covariate_battles(battles, covariates)
        uncontrolled = bradley_terry(styled, settings=replace(settings, covariates=None))
    pairs = _battles(battles)
    models = pairs.models
    p = len(models)
    if p < 2:
        raise VerdictError("bradley_terry: the battles hold fewer than two models")
    _check_graph(models, pairs.i, pairs.j, pairs.m)
    if ties == "davidson":
        n_ties = pairs.m[:, 2].sum()
        if n_ties == 0:
            hint = Hint("ties", "half")
            davidson = Hint("ties", "davidson", form="set")
            raise VerdictError(f"bradley_terry: {davidson.text} needs at least one tie (the "
                               f"tie parameter ν would be 0); {hint.text}",
                               hints=[davidson, hint])
        if n_ties == pairs.m.sum():
            raise VerdictError("bradley_terry: every battle is a tie: the Davidson tie "
                               "parameter ν would be infinite")
    anchor_ = _anchor(settings.anchor, models, init)
    # one fit for every location: θ of the first model by name held at 0; the anchor and
    # init_rating only move the ratings' zero afterwards (module docstring)
    fit_ref = 0
    factor = scale / math.log(base)
    cov_fit = None
    coefficients: pd.DataFrame | None = None
    if styled is not None:
        cov_fit = fit_covariates(styled, fit_ref, n_resamples, seed)
        coefficients = _coefficients(cov_fit, styled, p, factor, level)
        x = cov_fit.x[:p]
        v_model, v_sand = cov_fit.v_model[:p, :p], cov_fit.v_sand[:p, :p]
    else:
        k = p + (ties == "davidson")
        start = np.zeros((1, k))
        x_all, ok = _newton(pairs.i, pairs.j, pairs.m[None], p, ties, start, fit_ref)
        if not ok[0]:
            raise VerdictError("bradley_terry: the maximum-likelihood fit did not converge "
                               f"(models: {preview(models)}); the ratings may be infinite")
        x = x_all[0]
        v_model, v_sand = _covariances(x, pairs, p, ties, fit_ref)
    # the covariance of the ratings' contrasts with their zero: θ − mean(θ) (C = I − 11ᵀ/p) or
    # θ − θ_anchor (C = I − 1 e_anchorᵀ); either is the same whichever θ was held at 0
    if anchor_ is None:
        contrast = np.eye(p) - 1.0 / p
    else:
        contrast = np.eye(p)
        contrast[:, models.index(anchor_[0])] -= 1.0
    v_model, v_sand = contrast @ v_model @ contrast.T, contrast @ v_sand @ contrast.T

    def to_rating(theta: np.ndarray) -> np.ndarray:
        if anchor_ is None:
            return init + factor * (theta - theta.mean(axis=-1, keepdims=True))
        ref = models.index(anchor_[0])
        return anchor_[1] + factor * (theta - theta[..., [ref]])

    rating = to_rating(x[:p])
    if cov_fit is not None:
        boot, failed = cov_fit.boot, cov_fit.n_failed
    else:
        boot, failed = _bootstrap(pairs, x, p, ties, fit_ref, n_resamples, seed)
    if failed:
        warnings.warn(f"bradley_terry: {failed} of {n_resamples} bootstrap rounds left out: in "
                      "them some models never lost (or never won) to the others, so their "
                      "maximum-likelihood ratings are infinite", UserWarning, stacklevel=3)
    boot_r = to_rating(boot[:, :p]) if boot.size else np.empty((0, p))
    if boot_r.shape[0]:
        alpha = 1.0 - level
        lo = np.quantile(boot_r, alpha / 2, axis=0)
        hi = np.quantile(boot_r, 1 - alpha / 2, axis=0)
        rank_low, rank_high = bootstrap_rank_intervals(boot[:, :p], level)
    else:
        lo = hi = np.full(p, np.nan)
        rank_low = rank_high = np.full(p, np.nan)
    index = pd.Index(models, name="model")
    # win probabilities from the strengths' differences (never from ratings that carry the
    # location: the same to the last bit whatever the anchor or init_rating)
    theta = x[:p]
    diff = theta[:, None] - theta[None, :]
    if ties == "half":
        winp = expit(diff)
        nu = None
    else:
        nu = float(math.exp(x[p]))
        winp = 1.0 / (1.0 + np.exp(-diff) + nu * np.exp(-0.5 * diff))
    np.fill_diagonal(winp, np.nan)
    counts = _battles_by_model(pairs, p)
    return Ratings(
        ratings=pd.Series(rating, index=index, name="rating"),
        ci_low=pd.Series(lo, index=index, name="ci_low"),
        ci_high=pd.Series(hi, index=index, name="ci_high"),
        se=pd.Series(factor * np.sqrt(np.maximum(np.diag(v_sand), 0.0)), index=index, name="se"),
        se_model=pd.Series(factor * np.sqrt(np.maximum(np.diag(v_model), 0.0)), index=index,
                           name="se_model"),
        rank_low=pd.Series(rank_low, index=index, name="rank_low"),
        rank_high=pd.Series(rank_high, index=index, name="rank_high"),
        win_probability=pd.DataFrame(winp, index=index, columns=pd.Index(models, name="opponent")),
        n_battles_by_model=pd.Series(counts, index=index, name="n_battles"),
        n_battles=pairs.n_battles, n_distinct=int(pairs.row_count.size),
        total_weight=float(pairs.m.sum()), ties=ties, tie_parameter=nu, scale=scale, base=base,
        init_rating=init, anchor=anchor_, n_resamples=n_resamples,
        n_resamples_failed=failed, level=level, seed=seed, bootstrap=boot_r,
        source=pairs.source, resample="battles" if pairs.cluster_rows is None else
        pairs.unit if pairs.unit is not None else
        "datasets" if pairs.source == "scores(datasets)" else "items",
        relative_to="mean" if anchor_ is None else "anchor", settings=settings,
        covariates=tuple(covariates), uncontrolled=uncontrolled,
        coefficients=coefficients)


def _covariate_battles(battles: object, names: tuple[str, ...]) -> Battles:
    """The battles encoded with their covariates (a :class:`Battles` must carry them)."""
    if not isinstance(battles, Battles):
        return encode_battles(battles, what="bradley_terry", error=VerdictError,
                              covariates=names)
    if battles.count is not None or battles.cluster_rows is not None:
        raise VerdictError("bradley_terry: covariates describe single battles (each response's "
                           "style); battles made from per-item scores have none — leave "
                           "covariates out")
    if battles.covariate_names != tuple(names):
        raise VerdictError(f"bradley_terry: the battles were read with covariates "
                           f"{list(battles.covariate_names)}, not {list(names)}; read them with "
                           "the covariates to fit")
    return battles


def _coefficients(fit: CovariateFit, battles: Battles, p: int, factor: float, level: float
                  ) -> pd.DataFrame:
    """The covariates' coefficient table (``Ratings.coefficients``)."""
    beta = fit.x[p:]
    se = np.sqrt(np.maximum(np.diag(fit.v_sand)[p:], 0.0))
    se_model = np.sqrt(np.maximum(np.diag(fit.v_model)[p:], 0.0))
    if fit.boot.shape[0]:
        alpha = 1.0 - level
        lo = np.quantile(fit.boot[:, p:], alpha / 2, axis=0)
        hi = np.quantile(fit.boot[:, p:], 1 - alpha / 2, axis=0)
    else:
        lo = hi = np.full(beta.size, np.nan)
    z = beta / se
    return pd.DataFrame({
        "covariate": list(battles.covariate_names), "kind": list(battles.covariate_kinds),
        "estimate": beta, "elo": factor * beta, "se": se, "se_model": se_model,
        "ci_low": lo, "ci_high": hi, "z": z, "pvalue": 2 * norm.sf(np.abs(z)),
        "mean": fit.mean, "sd": fit.sd})


def reference_text(relative_to: str, anchor: Any, init_rating: float) -> str:
    """``"relative to the mean of all models (rated 1000)"`` or ``"relative to the anchor
    delta (fixed at 1000: its own se and interval are 0)"`` — what a leaderboard's ratings,
    se and rating intervals are relative to (``Ratings.relative_to``; also read back from the
    JSON by the HTML report)."""
    if relative_to == "anchor" and anchor is not None:
        name, rating = anchor[0], float(anchor[1])
        return (f"relative to the anchor {name} (fixed at {rating:g}: its own se and interval "
                "are 0)")
    return f"relative to the mean of all models (rated {float(init_rating):g})"


def bootstrap_rank_intervals(theta: np.ndarray, level: float) -> tuple[np.ndarray, np.ndarray]:
    """Simultaneous ``level`` rank intervals from bootstrap rounds of strengths (B × p; rank
    1 = the strongest), Mandel & Betensky's (2008) simultaneous percentile bootstrap on the
    rank vectors (module docstring). In each round a model's ranks span from 1 + the models
    stronger by more than 1e-7 to the models not weaker by more than 1e-7 (ties share the
    span: no order breaks them). With k the number of rounds each side may leave out, a
    model's interval runs from the (k + 1)-th smallest of its low ranks to the (k + 1)-th
    largest of its high ranks; k is the largest value ≤ ⌊(1 − level)/2 · B⌋ whose intervals
    hold every model's ranks at once in at least ``level`` of the rounds. Invariant to a
    shift of every strength of a round (anchor, init_rating) and to the models' order."""
    b, p = theta.shape
    low = np.empty((b, p), dtype=np.int64)
    high = np.empty((b, p), dtype=np.int64)
    chunk = max(1, int(4e6 // max(p * p, 1)))
    for start in range(0, b, chunk):
        t = theta[start:start + chunk]
        gap = t[:, None, :] - t[:, :, None]          # gap[r, j, l] = θ_l − θ_j
        low[start:start + chunk] = 1 + (gap > _RANK_TIE).sum(axis=2)
        high[start:start + chunk] = (gap >= -_RANK_TIE).sum(axis=2)
    low_sorted = np.sort(low, axis=0)
    high_sorted = np.sort(high, axis=0)
    k_max = int(math.floor((1.0 - level) / 2 * b + 1e-9))
    need = level * b - 1e-9
    best = 0
    for k in range(k_max, -1, -1):    # coverage grows as k falls; k = 0 covers every round
        lo_k, hi_k = low_sorted[k], high_sorted[b - 1 - k]
        covered = np.all((low >= lo_k) & (high <= hi_k), axis=1).sum()
        if covered >= need:
            best = k
            break
    return low_sorted[best].copy(), high_sorted[b - 1 - best].copy()


def _battles_by_model(pairs: _Pairs, p: int) -> np.ndarray:
    per_pair = np.bincount(pairs.row_pair, pairs.row_count, minlength=pairs.i.size)
    return (np.bincount(pairs.i, per_pair, minlength=p)
            + np.bincount(pairs.j, per_pair, minlength=p)).astype(np.int64)


def _bootstrap(pairs: _Pairs, x: np.ndarray, p: int, ties: str, ref: int, n_rounds: int,
               seed: int) -> tuple[np.ndarray, int]:
    """Refit on multinomially reweighted distinct rows, ``_BATCH`` rounds at a time."""
    if n_rounds == 0:
        return np.empty((0, x.size)), 0
    rng = np.random.default_rng(seed)
    clustered = pairs.cluster_rows is not None
    # independent battles: draw distinct rows; clusters (items): draw cluster patterns
    counts = pairs.cluster_count if clustered else pairs.row_count
    assert counts is not None
    probs = counts / counts.sum()
    n = int(counts.sum())
    n_pairs = pairs.i.size
    # distinct row → (pair, outcome) cell of the B × pairs × 3 mass array, weighted
    to_cell = sparse.csr_matrix(
        (pairs.row_weight, (np.arange(pairs.row_pair.size),
                            pairs.row_pair * 3 + pairs.row_outcome)),
        shape=(pairs.row_pair.size, n_pairs * 3))
    out = np.empty((n_rounds, x.size))
    good = np.ones(n_rounds, dtype=bool)
    # rounds per batch: at most _BATCH (more for a few models: 1,024 for two, where the
    # per-batch overhead, not the arithmetic, is the cost), and the batch's information
    # matrices ≤ 5e6 floats; the draws and fits do not depend on the batching
    per_batch = max(1, min(_BATCH * max(1, 64 // (x.size * x.size)),
                           int(5e6 // (x.size * x.size))))
    for start in range(0, n_rounds, per_batch):
        b = min(per_batch, n_rounds - start)
        draws = rng.multinomial(n, probs, size=b).astype(np.float64)
        if clustered:   # clusters drawn → battles of each distinct row
            draws = np.asarray((pairs.cluster_rows.T @ draws.T).T)
        m = np.asarray((to_cell.T @ draws.T).T).reshape(b, n_pairs, 3)
        ok = np.ones(b, dtype=bool)
        lost = (m[:, :, 0] + m[:, :, 2] == 0) & (pairs.m[:, 0] + pairs.m[:, 2] > 0) | \
               (m[:, :, 1] + m[:, :, 2] == 0) & (pairs.m[:, 1] + pairs.m[:, 2] > 0)
        for r in np.flatnonzero(lost.any(axis=1)):
            keep = m[r].sum(axis=1) > 0
            i, j = pairs.i[keep], pairs.j[keep]
            if np.unique(np.concatenate([i, j])).size < p or \
                    not _strongly_connected(p, i, j, m[r][keep])[0]:
                ok[r] = False
            elif ties == "davidson" and (m[r, :, 2].sum() == 0 or m[r, :, 2].sum() == m[r].sum()):
                ok[r] = False
        sel = np.flatnonzero(ok)
        fit = np.full((b, x.size), np.nan)
        if sel.size:
            # warm-started plain Newton; rounds it does not settle are redone with step halving
            est, conv = _newton(pairs.i, pairs.j, m[sel], p, ties,
                                np.repeat(x[None], sel.size, 0), ref, tol=_TOL_BOOT,
                                line_search=False)
            for r in np.flatnonzero(~conv):
                again, ok_r = _newton(pairs.i, pairs.j, m[sel][r:r + 1], p, ties, x[None], ref,
                                      tol=_TOL_BOOT)
                est[r] = again[0] if ok_r[0] else np.nan
            fit[sel] = est
        fine = ok & np.all(np.isfinite(fit), axis=1)
        out[start:start + b] = fit
        good[start:start + b] = fine
    return out[good], int((~good).sum())


# ------------------------------------------------------------------ per-item scores → battles
