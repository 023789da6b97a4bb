"""Rank tests for tables with missing cells, and Conover's post-hoc test.

Kernels of :func:`ranger_eval.aggregate.rank_test`; all work on ``oriented`` scores, an
``N × k`` array (datasets × systems) in which a smaller value is better and NaN marks a missing
cell, and are linear in the datasets (``O(N k²)`` array work).

**Skillings–Mack test** (Skillings & Mack 1981, *Technometrics* 23(2):171–177; Chatfield &
Mander 2009, *Stata Journal* 9(2):299–305). Dataset ``i`` has ``n_i ≥ 2`` results, ranked
among themselves (mid-ranks for ties); a missing cell gets the dataset's mid-rank
``(n_i + 1)/2``. The adjusted rank sums are

    ``A_j = Σ_i √(12/(n_i + 1)) · (r_ij − (n_i + 1)/2)``

and the statistic is ``T = Aᵀ Σ⁻ A`` (``Σ⁻``: the Moore–Penrose inverse), referred to χ² with
``rank(Σ)`` degrees of freedom (``k − 1`` when every two systems are linked through shared
datasets). Skillings and Mack's null covariance, as R ``Skillings.Mack::Ski.Mack`` and
``PMCMRplus::skillingsMackTest`` compute it, has ``Σ_st = −λ_st`` (``λ_st``: the datasets where
both ``s`` and ``t`` have a result) and ``Σ_ss = Σ_{t≠s} λ_st``; it ignores ties (both packages
rank with average ranks and keep this covariance), so on a complete table ``T`` is Demšar's
untied Friedman statistic. ``tie_correction=True`` (the default of ``rank_test``) uses the exact
permutation covariance of the mid-ranks instead: within dataset ``i`` a rank's variance is
``(n_i² − 1)/12 · c_i`` with ``c_i = 1 − Σ_ties (t³ − t)/(n_i³ − n_i)``, so ``λ_st`` becomes
``Σ_{i ∋ s,t} c_i``. On a complete table ``Σ`` is then ``N c̄ (k I − J)`` with ``c̄`` the
Friedman tie correction ``C``, and ``T`` is exactly the tie-corrected Friedman statistic of R
``friedman.test``; without ties both covariances are the same. ``tie_correction=False`` gives
``Ski.Mack``'s numbers (equal to 1e-10: ``tests/oracles/skillings_mack_oracle.R``).

**Pairwise contrasts with missing cells** (the post-hoc tests of ``rank_test`` when cells are
missing): ``z_st = (A_s − A_t) / √(Σ_ss + Σ_tt − 2 Σ_st)`` with the untied covariance, the
standardised difference of the Skillings–Mack adjusted sums under the null. It uses every
dataset (as the omnibus test does, not only the datasets the two systems share) and on a
complete table it is exactly Demšar's ``z = (R_s − R_t)/√(k(k + 1)/(6N))``, so the post-hoc
tests do not depend on ``tie_correction`` with or without holes.

**Conover's all-pairs test** for complete blocks (Conover & Iman 1979; Conover 1999,
*Practical Nonparametric Statistics*, §5.8), as R ``PMCMRplus::frdAllPairsConoverTest``: with
``R_j`` the rank sums, ``S² = (Σ r² − N k (k + 1)²/4)/(k − 1)``, ``T₂ = Σ_j (R_j − N(k +
1)/2)²/S²`` (the tie-corrected Friedman statistic), ``t = (R_a − R_b) / √(2 N S²/(N − 1) ·
(1 − T₂/(N(k − 1))))`` on ``(N − 1)(k − 1)`` df; the unadjusted p-value is two-sided Student t,
the adjusted one PMCMRplus's default ``"single-step"``: the studentized range of ``k`` means
with infinite df at ``√2 |t|``.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .._lazymodule import lazy_module

stats = lazy_module("scipy.stats")

__all__ = ["SkillingsMack", "conover_pairs", "row_tie_terms", "skillings_mack"]


@dataclass(frozen=True)
class SkillingsMack:
    """The parts of a Skillings–Mack test (internal to ``rank_test``).

    ``ranks``: ranks among each dataset's results (NaN where missing); ``adjusted_sums``: the
    ``A_j``; ``covariance``: the ``Σ`` of the statistic (tie-corrected when asked);
    ``contrast_covariance``: the untied ``Σ`` of the pairwise contrasts; ``df``: ``rank(Σ)``.
    """

    ranks: np.ndarray
    adjusted_sums: np.ndarray
    covariance: np.ndarray
    contrast_covariance: np.ndarray
    statistic: float
    df: int
    pvalue: float


def row_tie_terms(oriented: np.ndarray) -> np.ndarray:
    """``Σ_ties (t³ − t)`` of each row (tie groups of equal values; NaN cells are no group).

    Parameters
    ----------
    oriented : ndarray
        Datasets × systems scores (NaN = missing).

    Returns
    -------
    ndarray
        One float per row: the sum over its tie groups of size t of t³ − t (0 without ties).

    Examples
    --------
    >>> import numpy as np
    >>> from ranger_eval.aggregate.skillings_mack import row_tie_terms
    >>> row_tie_terms(np.array([[1.0, 1.0, 2.0], [1.0, 1.0, 1.0], [1.0, 2.0, np.nan]])).tolist()
    [6.0, 24.0, 0.0]
    """
    s = np.sort(oriented, axis=1)  # NaN last
    new = np.ones(s.shape, dtype=bool)
    new[:, 1:] = s[:, 1:] != s[:, :-1]  # NaN != NaN: each NaN its own group of 1
    flat = new.ravel()
    starts = np.flatnonzero(flat)
    t = np.diff(np.append(starts, flat.size)).astype(float)
    row = starts // s.shape[1]
    return np.bincount(row, weights=t ** 3 - t, minlength=s.shape[0])


def _pinv_form(cov: np.ndarray, a: np.ndarray) -> tuple[float, int]:
    """``aᵀ cov⁻ a`` and ``rank(cov)`` by the eigen-decomposition (eigenvalues below
    ``1e-9 · λ_max`` count as zero, as ``MASS::ginv``'s relative tolerance ~1.5e-8 does)."""
    lam, vec = np.linalg.eigh(cov)
    top = float(lam.max()) if lam.size else 0.0
    keep = lam > 1e-9 * top if top > 0 else np.zeros(lam.shape, dtype=bool)
    proj = vec[:, keep].T @ a
    return float(np.sum(proj * proj / lam[keep])), int(keep.sum())


def _covariance(present: np.ndarray, weight: np.ndarray) -> np.ndarray:
    """``Σ_st = −Σ_{i ∋ s,t} weight_i``, ``Σ_ss = Σ_{t≠s} Σ_{i ∋ s,t} weight_i``."""
    p = present.astype(float)
    m = p.T @ (weight[:, None] * p)
    cov = -m
    np.fill_diagonal(cov, m.sum(axis=1) - np.diag(m))
    return cov


def skillings_mack(oriented: np.ndarray, *, tie_correction: bool) -> SkillingsMack:
    """The Skillings–Mack test of ``oriented`` (datasets × systems, NaN = missing; every row
    with at least two results). Formulas in the module docstring.

    Parameters
    ----------
    oriented : ndarray
        Datasets × systems scores, oriented so that higher is better (rank 1 = the highest
        score); NaN where a result is missing, at least two results per row.
    tie_correction : bool
        Whether the covariance of the statistic accounts for ties within rows.

    Returns
    -------
    SkillingsMack
        The ``ranks``, the adjusted sums ``A_j``, their covariances, the ``statistic``, its
        ``df`` and the chi-square ``pvalue``.

    References
    ----------
    Skillings & Mack (1981), "On the use of a Friedman-type statistic in balanced and
    unbalanced block designs", Technometrics 23(2):171–177. Chatfield & Mander (2009), "The
    Skillings–Mack test (Friedman test when there are missing data)", Stata Journal
    9(2):299–305.

    Examples
    --------
    >>> import numpy as np
    >>> from ranger_eval.aggregate.skillings_mack import skillings_mack
    >>> scores = np.array([[3.0, 2.0, 1.0], [3.0, 1.0, 2.0], [2.0, np.nan, 1.0],
    ...                    [3.0, 2.0, np.nan], [3.0, 1.0, 2.0]])
    >>> sm = skillings_mack(scores, tie_correction=True)
    >>> round(sm.statistic, 4), sm.df, round(sm.pvalue, 4)
    (6.6231, 2, 0.0365)
    """
    present = ~np.isnan(oriented)
    n_i = present.sum(axis=1).astype(float)
    ranks = stats.rankdata(oriented, axis=1, method="average", nan_policy="omit")
    centred = np.where(present, ranks - ((n_i + 1.0) / 2.0)[:, None], 0.0)
    a = (np.sqrt(12.0 / (n_i + 1.0))[:, None] * centred).sum(axis=0)
    contrast_cov = _covariance(present, np.ones(n_i.size))
    if tie_correction:
        c = 1.0 - row_tie_terms(oriented) / (n_i ** 3 - n_i)
        cov = _covariance(present, c)
    else:
        cov = contrast_cov
    stat, df = _pinv_form(cov, a)
    stat = max(stat, 0.0)
    pvalue = float(stats.chi2.sf(stat, df)) if df > 0 else 1.0
    return SkillingsMack(ranks=ranks, adjusted_sums=a, covariance=cov,
                         contrast_covariance=contrast_cov, statistic=stat, df=df, pvalue=pvalue)


def contrast_z(sm: SkillingsMack, ia: np.ndarray, ib: np.ndarray) -> np.ndarray:
    """``z = (A_a − A_b)/√(Σ_aa + Σ_bb − 2Σ_ab)`` (untied Σ) for system columns ``ia``, ``ib``;
    0 where the variance is 0 and the sums are equal."""
    cov = sm.contrast_covariance
    a = sm.adjusted_sums
    d = a[ia] - a[ib]
    v = cov[ia, ia] + cov[ib, ib] - 2.0 * cov[ia, ib]
    with np.errstate(divide="ignore", invalid="ignore"):
        z = np.where(v > 0, d / np.sqrt(np.where(v > 0, v, 1.0)), np.sign(d) * math.inf)
    return np.where(d == 0, 0.0, z)


def conover_pairs(ranks: np.ndarray, ia: np.ndarray, ib: np.ndarray
                  ) -> tuple[np.ndarray, np.ndarray, float]:
    """Conover's ``t`` for the pairs of columns ``ia``, ``ib`` of complete ``ranks`` (N × k,
    rank 1 = best), its two-sided p-values on ``(N − 1)(k − 1)`` df and ``√(A·B)/N``, the
    standard error of a difference of average ranks (module docstring).

    Parameters
    ----------
    ranks : ndarray
        N datasets × k systems within-dataset ranks, without holes.
    ia, ib : ndarray of int
        Column indices of the two systems of each pair.

    Returns
    -------
    tuple
        ``t`` and the unadjusted two-sided ``p`` of each pair (arrays), and the standard error
        of a difference of average ranks (float); every dataset tying all systems gives t = 0,
        p = 1 and 0.

    References
    ----------
    Conover & Iman (1979), "On multiple-comparisons procedures", Los Alamos technical report
    LA-7677-MS. Conover (1999), *Practical Nonparametric Statistics*, 3rd ed., Wiley, §5.8.

    Examples
    --------
    >>> import numpy as np
    >>> from ranger_eval.aggregate.skillings_mack import conover_pairs
    >>> ranks = np.array([[1.0, 2, 3], [1, 3, 2], [1, 2, 3], [2, 1, 3], [1, 2, 3]])
    >>> t, p, se = conover_pairs(ranks, np.array([0, 0, 1]), np.array([1, 2, 2]))
    >>> t.round(4).tolist(), p.round(4).tolist(), round(se, 4)
    ([-1.8856, -3.7712, -1.8856], [0.0961, 0.0055, 0.0961], 0.4243)
    """
    n, k = ranks.shape
    rsum = ranks.sum(axis=0)
    s2 = (float(np.sum(ranks * ranks)) - n * k * (k + 1.0) ** 2 / 4.0) / (k - 1.0)
    d = rsum[ia] - rsum[ib]
    if s2 <= 1e-12 * n * k * k:  # every dataset ties all systems: no difference anywhere
        return np.zeros(d.size), np.ones(d.size), 0.0
    t2 = float(np.sum((rsum - n * (k + 1.0) / 2.0) ** 2)) / s2
    b = max(1.0 - t2 / (n * (k - 1.0)), 0.0)
    scale = math.sqrt(2.0 * n * s2 / (n - 1.0) * b)
    with np.errstate(divide="ignore", invalid="ignore"):
        t = np.where(d == 0, 0.0, d / scale if scale > 0 else np.sign(d) * math.inf)
    p = np.minimum(1.0, 2.0 * stats.t.sf(np.abs(t), (n - 1.0) * (k - 1.0)))
    return t, p, scale / n
