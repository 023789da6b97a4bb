"""Hodges–Lehmann location estimate and its distribution-free interval, in bounded memory.

The Walsh averages of differences d_1..d_n are w_ij = (d_i + d_j)/2 for i <= j (N = n(n+1)/2 of
them). The Hodges–Lehmann estimate is their median; the confidence interval for the centre of
symmetry is [w_(q), w_(N-q+1)] where q is the lower alpha/2 quantile of the Wilcoxon signed-rank
statistic (Hollander, Wolfe & Chicken 2014, sec. 3.3; R ``wilcox.test(conf.int=TRUE)``).

Order statistics of the Walsh averages are selected without materialising all N of them: a window
of candidate sums is narrowed with weighted-median pivots (Monahan 1984, ACM TOMS 10(3)); for
sorted d, row i's sums d_i + d_j (j >= i) are non-decreasing in j, so every count is a vectorised
binary search with the exact float comparison. Once the window holds at most ``max_enum`` sums
they are enumerated and partitioned.
"""
from __future__ import annotations

import math

import numpy as np

MAX_ENUM = 1 << 21  # at most ~2 M candidate sums (16 MB) are materialised at once
EXACT_SIGNRANK_MAX_N = 50  # R's wilcox.test uses the exact distribution for n < 50


def _first_true(d: np.ndarray, pred_strict: bool, t: float) -> np.ndarray:
    """For each row i: the first j >= i with d_i + d_j > t (strict) or >= t (not strict); n if none."""
    n = d.size
    lo = np.arange(n)
    hi = np.full(n, n)
    while True:
        active = lo < hi
        if not active.any():
            return lo
        mid = (lo + hi) // 2
        midc = np.minimum(mid, n - 1)
        s = d + d[midc]
        ok = (s > t) if pred_strict else (s >= t)
        ok &= mid < n
        hi = np.where(active & ok, mid, hi)
        lo = np.where(active & ~ok, mid + 1, lo)


def _count_le(d: np.ndarray, t: float) -> int:
    return int((_first_true(d, True, t) - np.arange(d.size)).sum())


def _count_lt(d: np.ndarray, t: float) -> int:
    return int((_first_true(d, False, t) - np.arange(d.size)).sum())


def walsh_sum_select(d_sorted: np.ndarray, k: int, max_enum: int = MAX_ENUM) -> float:
    """The k-th smallest (1-based) of the sums d_i + d_j, i <= j, for ascending ``d_sorted``."""
    d = d_sorted
    n = d.size
    total = n * (n + 1) // 2
    if not 1 <= k <= total:
        raise ValueError(f"rank {k} outside 1..{total}")
    rows = np.arange(n)
    low_t = -math.inf  # every candidate s satisfies low_t < s < high_t
    high_t = math.inf
    below = 0  # number of sums <= low_t
    while True:
        a = rows.copy() if low_t == -math.inf else _first_true(d, True, low_t)
        b = np.full(n, n) if high_t == math.inf else _first_true(d, False, high_t)
        cnt = np.maximum(b - a, 0)
        m = int(cnt.sum())
        if m <= max_enum:
            nz = np.flatnonzero(cnt)
            c = cnt[nz]
            r = np.repeat(nz, c)
            starts = np.repeat(np.cumsum(c) - c, c)
            cols = np.repeat(a[nz], c) + (np.arange(m) - starts)
            s = d[r] + d[cols]
            kk = k - below - 1
            return float(np.partition(s, kk)[kk])
        # weighted median of the row medians as pivot (>= 1/4 of the window on each side)
        nz = np.flatnonzero(cnt)
        c = cnt[nz]
        med = d[nz] + d[a[nz] + (c - 1) // 2]
        order = np.argsort(med, kind="stable")
        cum = np.cumsum(c[order])
        p = float(med[order][np.searchsorted(cum, cum[-1] / 2.0)])
        c_lt = _count_lt(d, p)
        if c_lt >= k:
            high_t = p
            continue
        c_le = _count_le(d, p)
        if c_le >= k:
            return p
        low_t = p
        below = c_le


def walsh_select(d_sorted: np.ndarray, k: int, max_enum: int = MAX_ENUM) -> float:
    """The k-th smallest (1-based) Walsh average (d_i + d_j)/2, i <= j."""
    return walsh_sum_select(d_sorted, k, max_enum) / 2.0


def hodges_lehmann(d_sorted: np.ndarray, max_enum: int = MAX_ENUM) -> float:
    """Median of the Walsh averages (mean of the two middle ones when N is even)."""
    n = d_sorted.size
    total = n * (n + 1) // 2
    if total % 2 == 1:
        return walsh_select(d_sorted, (total + 1) // 2, max_enum)
    lo = walsh_sum_select(d_sorted, total // 2, max_enum)
    hi = walsh_sum_select(d_sorted, total // 2 + 1, max_enum)
    return (lo + hi) / 4.0


def signrank_cdf(n: int) -> np.ndarray:
    """P(W+ <= w), w = 0..n(n+1)/2, for the exact null signed-rank distribution (no ties)."""
    total = n * (n + 1) // 2
    counts = np.zeros(total + 1)
    counts[0] = 1.0
    for r in range(1, n + 1):  # counts of subsets of {1..n} with each sum; exact below 2**53
        counts[r:] = counts[r:] + counts[:-r].copy()
    return np.cumsum(counts) / 2.0**n


def signrank_lower_quantile(n: int, alpha: float) -> int:
    """qsignrank(alpha, n) as in R (smallest q with P(W+ <= q) >= alpha), at least 1.

    Exact for n <= 50; otherwise the normal approximation with continuity correction,
    q = ceil(mu + z_alpha * sigma - 1/2), mu = n(n+1)/4, sigma^2 = n(n+1)(2n+1)/24.
    """
    if n <= EXACT_SIGNRANK_MAX_N:
        cdf = signrank_cdf(n)
        # R's qsignrank: first q with P(W+ <= q) >= alpha - 10 * DBL_EPSILON
        q = int(np.searchsorted(cdf, alpha - 10 * np.finfo(float).eps, side="left"))
    else:
        from scipy.special import ndtri

        mu = n * (n + 1) / 4.0
        sigma = math.sqrt(n * (n + 1) * (2 * n + 1) / 24.0)
        q = math.ceil(mu + float(ndtri(alpha)) * sigma - 0.5)
    return max(q, 1)


def hodges_lehmann_ci(
    d_sorted: np.ndarray, level: float, alternative: str, max_enum: int = MAX_ENUM
) -> tuple[float, float]:
    """Walsh-average interval with R's wilcox.test (exact branch) index rule."""
    n = d_sorted.size
    total = n * (n + 1) // 2
    alpha = 1.0 - level
    if alternative == "two-sided":
        q = signrank_lower_quantile(n, alpha / 2.0)
        return (walsh_select(d_sorted, q, max_enum), walsh_select(d_sorted, total - q + 1, max_enum))
    q = signrank_lower_quantile(n, alpha)
    if alternative == "greater":
        return (walsh_select(d_sorted, q, max_enum), math.inf)
    return (-math.inf, walsh_select(d_sorted, total - q + 1, max_enum))
