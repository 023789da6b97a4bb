"""Prediction-powered rank tests of paired differences: the sign test and Wilcoxon's signed rank.

Judge scores on all items, human scores on a few: for a pair of systems (a, b) let
D = judge(a) − judge(b) (every item) and H = human(a) − human(b) (the n labelled items; the N
unlabelled items are the others). Each test is prediction-powered inference (PPI; Angelopoulos,
Bates, Fannjiang, Jordan & Zrnic, Science 2023; PPI++: Angelopoulos, Duchi & Zrnic 2023) for a
parameter θ of the distribution of the **human** difference that is 0 under the rank test's null.

**Sign test** (``ppi sign``). θ = P(H > 0) − P(H < 0) = E[sign(H)], a mean, so PPI++ for a mean
applies directly to s = sign(H) and ŝ = sign(D) (:func:`~ranger_eval.stats.ppi.prediction_powered_rows`)::

    θ̂ = λ · mean(ŝ, unlabelled) + mean(s − λ · ŝ, labelled)
    se² = λ² · σ̂²(ŝ, unlabelled) / N + σ̂²(s − λ · ŝ, labelled) / n
    λ = Ĉov(s, ŝ) / ((1 + n/N) · V̂ar(ŝ, all)), clipped to [0, 1]

with z = θ̂ / se and the normal p-value (clusters: the cluster-robust t of
:mod:`ranger_eval.stats.ppi`, CR2 or CR1). Without a judge (λ = 0) θ̂ is the classical sign
statistic (#positive − #negative)/n. The interval θ̂ ± z·se is clipped to θ's range [−1, 1].

**Wilcoxon signed rank** (``ppi wilcoxon``). θ = P(W > 0) + ½ P(W = 0) − ½ with W = (D₁ + D₂)/2
a Walsh average of two independent differences — the parameter of the signed-rank statistic
(Hodges & Lehmann 1963; the mid-rank convention handles ties). Its estimate on a sample
d₁ … dₘ is the U-statistic over the Walsh averages with i ≤ j (self-pairs included)::

    T(d) = Σ_{i≤j} k(dᵢ, dⱼ) / (m(m+1)/2) − ½,   k(x, y) = 1{x + y > 0} + ½ · 1{x + y = 0}

which, without ties and zeros, is W⁺ / (m(m+1)/2) − ½ for Wilcoxon's signed-rank sum W⁺. The
prediction-powered estimate combines T on the three samples (evalstats 0.3.3,
``evalstats.ppi._analytic_walsh_theta_correct``)::

    θ̂ = T(H) + λ · (T(D, unlabelled) − T(D, labelled))

Its variance is the U-statistic's first-order (Hájek) projection: per item
h₁(dᵢ) = (1/m) Σⱼ k(dᵢ, dⱼ) (all j), V(d) = 4 · s²(h₁(d)) / m (ddof = 1), and
C = 4 · ĉov(h₁(H), h₁(D_lab)) / n on the labelled items, so::

    se² = V(H) + λ² · (V(D, unlabelled) + V(D, labelled)) − 2λ · C        (floored at 0)

t = θ̂ / se on n − 1 df (the interval θ̂ ± t_{n−1}·se, clipped to [−½, ½]). λ: with
``power_tune=False`` λ = 1 (the original PPI; what :func:`ranger_eval.compare` uses), which
is evalstats 0.3.3's ``wilcoxon(..., power_tune=False)`` exactly
(tests/oracles/ppi_rank_evalstats.py, agreement to 1e-10). With ``power_tune=True`` λ is the
variance-minimising weight C / (V(D, unlabelled) + V(D, labelled)), clipped to [0, 1] (1 when
the denominator is below 1e-12) — evalstats' "raw" λ; plugged in as if known, it over-rejects a
true null with few human scores (6.3 % at α = 5 % with 30 labelled items against 4.1–5.3 % for
λ = 1; benchmarks/ppi_rank_null.py), which is why compare keeps λ = 1. evalstats 0.3.3's own
``power_tune=True`` (its default) goes further, and is not followed: it shrinks that λ towards
a target estimated from 800 seeded bootstrap replicates of λ, adds a bootstrap variance of λ,
and replaces V(H) by a Monte Carlo sign-flip null variance (200 seeded flips) with the
covariance rescaled — randomised heuristics whose numbers cannot be derived from a formula;
at its λ its estimate is the formula above (tests/comparison/test_ppi_rank.py checks it).

**Clustered items.** The estimate is unchanged; its variance sums per cluster the influence
terms of both parts — labelled items (2/n)·[(h₁(Hᵢ) − mean) − λ·(h₁(D_lab,ᵢ) − mean)],
unlabelled items λ·(2/N)·(h₁(D_unl,ⱼ) − mean) — and se² = C/(C − 1) · Σ_c u_c² (CR1; Liang &
Zeger 1986) with t on C − 1 df (C: clusters holding an item of the pair). The influence terms
are those of the Hájek projection above (a U-statistic of degree 2: 2·(h₁ − θ)/m per item).

All pairs are rows of matrices: the Hájek components of every row come from one stable
``argsort`` of the rows of [d, −d] (counts of dⱼ ≤ −dᵢ and dⱼ < −dᵢ as running sums), so the
cost is O(P · m log m) array work for P pairs, no Python loop over pairs.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import StatsInputError
from .ppi import PPIRows, prediction_powered_rows

__all__ = ["PPIRankRows", "ppi_sign_rows", "ppi_walsh_rows", "walsh_components",
           "walsh_theta"]

#: the range of each test's θ (the interval never leaves it)
SIGN_RANGE = (-1.0, 1.0)
WALSH_RANGE = (-0.5, 0.5)


@dataclass(frozen=True)
class PPIRankRows:
    """Prediction-powered rank-test estimates of many rows: θ̂, its standard error, λ, the
    labelled and unlabelled item counts, clusters (0 without), the test's df (∞: normal) and θ's
    range ``bounds`` (the interval is clipped to it)."""

    estimate: np.ndarray
    se: np.ndarray
    lam: np.ndarray
    n_labelled: np.ndarray
    n_unlabelled: np.ndarray
    n_clusters: np.ndarray
    df: np.ndarray
    bounds: tuple[float, float]

    def test(self, alternative: str, level: float
             ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """(statistic, p-value, ci_low, ci_high) of H0: θ = 0 per row (the t or z test of
        :meth:`ranger_eval.stats.ppi.PPIRows.test`), the interval clipped to ``bounds``."""
        rows = PPIRows(self.estimate, self.se, self.lam, self.n_labelled, self.n_unlabelled,
                       self.n_clusters, self.df)
        stat, p, low, high = rows.test(alternative, level)
        lo_b, hi_b = self.bounds
        if alternative != "less":
            low = np.clip(low, lo_b, hi_b)
        if alternative != "greater":
            high = np.clip(high, lo_b, hi_b)
        return stat, np.clip(p, 0.0, 1.0), low, high


def _counts(d: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per row of ``d`` (rows × m) and item i: #{j: dⱼ ≤ −dᵢ} and #{j: dⱼ < −dᵢ}, from one
    stable sort of each row of [d, −d] (resp. [−d, d]): at equal values the first block sorts
    first, so the running count of d-entries at −dᵢ's place is the wanted count."""
    rows, m = d.shape
    out = []
    for first_d in (True, False):
        z = np.concatenate([d, -d] if first_d else [-d, d], axis=1)
        order = np.argsort(z, axis=1, kind="stable")
        is_d = (order < m) if first_d else (order >= m)
        running = np.cumsum(is_d, axis=1)
        neg = ~is_d  # the places of the −dᵢ
        item = np.where(order >= m, order - m, order)[neg].reshape(rows, m)
        got = np.empty((rows, m), dtype=np.int64)
        np.put_along_axis(got, item, running[neg].reshape(rows, m), axis=1)
        out.append(got)
    return out[0], out[1]


def walsh_components(d: np.ndarray) -> np.ndarray:
    """Hájek components h₁(dᵢ) = (1/m) Σⱼ [1{dᵢ + dⱼ > 0} + ½ · 1{dᵢ + dⱼ = 0}] (all j,
    i itself included) of every row of ``d`` (rows × m; a 1-d array is one row)."""
    d = np.atleast_2d(np.asarray(d, dtype=np.float64))
    m = d.shape[1]
    if m == 0:
        return np.zeros(d.shape)
    le, lt = _counts(d)
    return ((m - le) + 0.5 * (le - lt)) / m


def walsh_theta(d: np.ndarray) -> np.ndarray:
    """T(d) = Σ_{i≤j} k(dᵢ, dⱼ) / (m(m+1)/2) − ½ of every row of ``d`` (module docstring;
    0 for an empty row): (m · Σᵢ h₁(dᵢ) + Σᵢ k(dᵢ, dᵢ)) / (m(m+1)) − ½."""
    d = np.atleast_2d(np.asarray(d, dtype=np.float64))
    m = d.shape[1]
    if m == 0:
        return np.zeros(d.shape[0])
    h1 = walsh_components(d)
    own = (d > 0).sum(axis=1) + 0.5 * (d == 0).sum(axis=1)
    return (m * h1.sum(axis=1) + own) / (m * (m + 1.0)) - 0.5


def _var_h1(h: np.ndarray) -> np.ndarray:
    """4 · s²(h₁) / m per row (ddof = 1): the U-statistic's projection variance."""
    m = h.shape[1]
    return 4.0 * h.var(axis=1, ddof=1) / m


def ppi_walsh_rows(human: np.ndarray, judge: np.ndarray, judge_unlabelled: np.ndarray, *,
                   power_tune: bool = True, clusters: np.ndarray | None = None,
                   clusters_unlabelled: np.ndarray | None = None) -> PPIRankRows:
    """Prediction-powered Wilcoxon signed-rank estimates of every row (module docstring).

    ``human`` / ``judge``: rows × n human and judge differences of the labelled items;
    ``judge_unlabelled``: rows × N judge differences of the unlabelled items (no NaN).
    ``power_tune``: λ̂ (True) or λ = 1 (False, evalstats' ``power_tune=False``).
    ``clusters`` / ``clusters_unlabelled``: integer codes 0 … C − 1 of the columns' clusters
    (one numbering): the CR1 variance on C − 1 df. Raises :class:`StatsInputError` for fewer
    than 2 labelled or 2 unlabelled items, or (clusters) fewer than 2 clusters.
    """
    y = np.atleast_2d(np.asarray(human, dtype=np.float64))
    yh = np.atleast_2d(np.asarray(judge, dtype=np.float64))
    yu = np.atleast_2d(np.asarray(judge_unlabelled, dtype=np.float64))
    rows, n = y.shape
    big_n = yu.shape[1]
    if yh.shape != y.shape or yu.shape[0] != rows:
        raise StatsInputError(f"shapes {y.shape}, {yh.shape}, {yu.shape} do not match")
    if n < 2 or big_n < 2:
        raise StatsInputError(f"{n} labelled and {big_n} unlabelled item(s); the "
                              f"prediction-powered Wilcoxon test needs at least 2 of each")
    if not (np.isfinite(y).all() and np.isfinite(yh).all() and np.isfinite(yu).all()):
        raise StatsInputError("a difference is NaN or infinite")
    h_y, h_yh, h_yu = walsh_components(y), walsh_components(yh), walsh_components(yu)
    t_y, t_yh, t_yu = walsh_theta(y), walsh_theta(yh), walsh_theta(yu)
    v_y, v_yh, v_yu = _var_h1(h_y), _var_h1(h_yh), _var_h1(h_yu)
    cy = h_y - h_y.mean(axis=1, keepdims=True)
    cyh = h_yh - h_yh.mean(axis=1, keepdims=True)
    cov = 4.0 * np.einsum("ij,ij->i", cy, cyh) / (n - 1.0) / n
    if power_tune:
        denom = v_yu + v_yh
        with np.errstate(divide="ignore", invalid="ignore"):
            lam = np.where(denom > 1e-12, np.clip(cov / np.where(denom > 1e-12, denom, 1.0),
                                                  0.0, 1.0), 1.0)
    else:
        lam = np.ones(rows)
    estimate = t_y + lam * (t_yu - t_yh)
    n_lab = np.full(rows, n, dtype=np.int64)
    n_unl = np.full(rows, big_n, dtype=np.int64)
    if clusters is None:
        var = np.maximum(v_y + lam * lam * (v_yu + v_yh) - 2.0 * lam * cov, 0.0)
        return PPIRankRows(estimate, np.sqrt(var), lam, n_lab, n_unl,
                           np.zeros(rows, dtype=np.int64), np.full(rows, n - 1.0),
                           WALSH_RANGE)
    if clusters_unlabelled is None:
        raise StatsInputError("clusters of the labelled items without those of the unlabelled")
    codes = np.concatenate([np.asarray(clusters, dtype=np.intp),
                            np.asarray(clusters_unlabelled, dtype=np.intp)])
    c = int(codes.max()) + 1 if codes.size else 0
    used = np.unique(codes)
    if used.size < 2:
        raise StatsInputError(f"the items are in {used.size} cluster(s); a cluster-robust "
                              f"variance needs at least 2")
    infl = np.concatenate([
        (2.0 / n) * (cy - lam[:, None] * cyh),
        lam[:, None] * (2.0 / big_n) * (h_yu - h_yu.mean(axis=1, keepdims=True))], axis=1)
    flat = (np.arange(rows)[:, None] * c + codes[None, :]).ravel()
    totals = np.bincount(flat, weights=infl.ravel(), minlength=rows * c).reshape(rows, c)
    k = float(used.size)
    var = k / (k - 1.0) * np.einsum("ij,ij->i", totals, totals)
    return PPIRankRows(estimate, np.sqrt(var), lam, n_lab, n_unl,
                       np.full(rows, used.size, dtype=np.int64), np.full(rows, k - 1.0),
                       WALSH_RANGE)


def ppi_sign_rows(human: np.ndarray, judge: np.ndarray, judge_unlabelled: np.ndarray, *,
                  labelled: np.ndarray | None = None, unlabelled: np.ndarray | None = None,
                  clusters: np.ndarray | None = None,
                  clusters_unlabelled: np.ndarray | None = None,
                  vcov: str = "CR2") -> PPIRankRows:
    """Prediction-powered sign-test estimates θ̂ of θ = P(H > 0) − P(H < 0) of every row
    (module docstring): PPI++ for the mean of sign(H) with sign(D) as the prediction
    (:func:`~ranger_eval.stats.ppi.prediction_powered_rows`, whose arguments these are: masks,
    cluster codes, ``vcov`` "CR2" or "CR1"); normal z without clusters."""
    def sgn(x: np.ndarray) -> np.ndarray:
        with np.errstate(invalid="ignore"):
            return np.sign(np.asarray(x, dtype=np.float64))

    r = prediction_powered_rows(sgn(human), sgn(judge), sgn(judge_unlabelled),
                                labelled=labelled, unlabelled=unlabelled, clusters=clusters,
                                clusters_unlabelled=clusters_unlabelled, vcov=vcov)
    return PPIRankRows(r.estimate, r.se, r.lam, r.n_labelled, r.n_unlabelled, r.n_clusters,
                       r.df, SIGN_RANGE)

