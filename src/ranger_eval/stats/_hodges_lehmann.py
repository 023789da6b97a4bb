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

R's ``wilcox.test(conf.int=TRUE)`` uses these Walsh-average order statistics only in its exact
branch (n < 50 non-zero differences, no ties, no zeros). Otherwise its estimate and interval are
roots, found by ``uniroot`` (Brent's zeroin, tolerance ``tol.root = 1e-4``), of the standardised
signed-rank statistic of x - mu as a function of the shift mu; :func:`r_asymptotic_interval`
reproduces that computation step by step (:func:`r_zeroin` is R's ``R_zeroin2``).

Scale: :func:`~ranger_eval.stats.tests.wilcoxon` passes differences in the safe range of
:mod:`ranger_eval.stats._scale` (extreme ones times a power of two), so Walsh sums cannot
overflow. ``R_TOL_ROOT`` is absolute, as in R: for rescaled extreme scores it is 1e-4 of the
largest difference's binary magnitude; for unscaled scores far below 1 the asymptotic interval
is as coarse as R's.
"""
from __future__ import annotations

import math
import sys
from collections.abc import Callable

import numpy as np

MAX_ENUM = 1 << 21  # at most ~2 M candidate sums (16 MB) are materialised at once
R_EXACT_BELOW_N = 50  # R's wilcox.test: exact branch when n < 50 (and no ties, no zeros)
R_TOL_ROOT = 1e-4  # wilcox.test's default tol.root


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
    """qsignrank(alpha, n) as in R (smallest q with P(W+ <= q) >= alpha), at least 1 (R's
    ``if (qu == 0) qu <- 1``). Exact null distribution; used for n < 50 (R's exact branch)."""
    cdf = signrank_cdf(n)
    # R's qsignrank: first q with P(W+ <= q) >= alpha - 10 * DBL_EPSILON
    q = int(np.searchsorted(cdf, alpha - 10 * np.finfo(float).eps, side="left"))
    return max(q, 1)


def hodges_lehmann_ci(
    d_sorted: np.ndarray, level: float, alternative: str, max_enum: int = MAX_ENUM
) -> tuple[float, float, float]:
    """R's exact-branch interval [w_(q), w_(N-q+1)] of the Walsh averages, q = qsignrank(alpha/2, n)
    (alpha for one-sided), and its achieved confidence level: R replaces ``conf.level`` by
    1 - signif(achieved alpha, 2) when the achieved alpha exceeds 1.5 alpha.
    Returns (low, high, achieved level or ``level``)."""
    n = d_sorted.size
    total = n * (n + 1) // 2
    alpha = 1.0 - level
    cdf = signrank_cdf(n)
    a = alpha / 2.0 if alternative == "two-sided" else alpha
    q = signrank_lower_quantile(n, a)
    achieved = (2.0 if alternative == "two-sided" else 1.0) * (float(cdf[q - 1]) if q >= 1 else 0.0)
    level_out = level
    if achieved - alpha > alpha / 2.0:
        level_out = 1.0 - float(f"{achieved:.2g}")  # R: signif(achieved.alpha, 2)
    if alternative == "two-sided":
        lo = walsh_select(d_sorted, q, max_enum)
        return lo, walsh_select(d_sorted, total - q + 1, max_enum), level_out
    if alternative == "greater":
        return walsh_select(d_sorted, q, max_enum), math.inf, level_out
    return -math.inf, walsh_select(d_sorted, total - q + 1, max_enum), level_out


# --------------------------------------------------------------------------------------------
# R's normal-approximation branch of wilcox.test(conf.int = TRUE)
# --------------------------------------------------------------------------------------------

def _ranks_and_ties(a: np.ndarray) -> tuple[np.ndarray, float]:
    """Average ranks of ``a`` (R's ``rank``, exact comparisons) and sum(t^3 - t) over tie groups."""
    order = np.argsort(a, kind="stable")
    s = a[order]
    n = s.size
    new = np.r_[True, s[1:] != s[:-1]]
    start = np.flatnonzero(new)
    size = np.diff(np.r_[start, n])
    avg = start + (size + 1) / 2.0  # 1-based average rank of each tie group
    ranks = np.empty(n)
    ranks[order] = np.repeat(avg, size)
    t = size.astype(np.float64)
    return ranks, float(np.sum(t**3 - t))


def r_signrank_z(x: np.ndarray, mu: float, alternative: str, correct: bool) -> float:
    """R's ``W(d)`` inside wilcox.test.default: the standardised signed-rank statistic of x - mu.

    xd = (x - mu) without zeros, nx = length, ranks of |xd| (average for ties);
    z = (sum of ranks of positive xd - nx(nx+1)/4 - c) / sigma with
    sigma^2 = nx(nx+1)(2nx+1)/24 - sum(t^3 - t)/48 and continuity correction c = sign(z) / 2
    (two-sided), 1/2 (greater), -1/2 (less) when ``correct``, else 0. NaN when nx = 0.
    """
    xd = x - mu
    xd = xd[xd != 0]
    nx = float(xd.size)
    if nx == 0:
        return math.nan
    dr, ties = _ranks_and_ties(np.abs(xd))
    zd = float(dr[xd > 0].sum()) - nx * (nx + 1) / 4
    sigma = math.sqrt(nx * (nx + 1) * (2 * nx + 1) / 24 - ties / 48)
    corr = 0.0
    if correct:
        corr = {"two-sided": 0.5 * float(np.sign(zd)), "greater": 0.5, "less": -0.5}[alternative]
    return (zd - corr) / sigma


def r_zeroin(f: Callable[[float], float], ax: float, bx: float, fa: float, fb: float,
             tol: float, maxit: int = 1000) -> float:
    """Brent's root finder exactly as R's ``R_zeroin2`` (``uniroot``): bisection combined with
    linear or inverse quadratic interpolation (Forsythe, Malcolm & Moler 1977). ``f(ax) = fa``
    and ``f(bx) = fb`` must not have the same sign."""
    eps = sys.float_info.epsilon  # DBL_EPSILON
    a, b = float(ax), float(bx)
    c, fc = a, fa
    if fa == 0.0:
        return a
    if fb == 0.0:
        return b
    for _ in range(maxit + 1):
        prev_step = b - a
        if abs(fc) < abs(fb):
            a, b, c = b, c, b
            fa, fb, fc = fb, fc, fb
        tol_act = 2 * eps * abs(b) + tol / 2
        new_step = (c - b) / 2
        if abs(new_step) <= tol_act or fb == 0.0:
            return b
        if abs(prev_step) >= tol_act and abs(fa) > abs(fb):
            cb = c - b
            if a == c:
                t1 = fb / fa
                p = cb * t1
                q = 1.0 - t1
            else:
                q = fa / fc
                t1 = fb / fc
                t2 = fb / fa
                p = t2 * (cb * q * (q - t1) - (b - a) * (t1 - 1.0))
                q = (q - 1.0) * (t1 - 1.0) * (t2 - 1.0)
            if p > 0:
                q = -q
            else:
                p = -p
            if p < (0.75 * cb * q - abs(tol_act * q) / 2) and p < abs(prev_step * q / 2):
                new_step = p / q
        if abs(new_step) < tol_act:
            new_step = tol_act if new_step > 0 else -tol_act
        a, fa = b, fb
        b += new_step
        fb = f(b)
        if (fb > 0 and fc > 0) or (fb < 0 and fc < 0):
            c, fc = a, fa
    return b  # R warns "_NOT_ converged"; W is a step function, so this is not reached


def _qnorm_upper(p: float) -> float:
    from scipy.special import ndtri

    return -float(ndtri(p))


def r_asymptotic_interval(
    x: np.ndarray, level: float, alternative: str, correct: bool, tol: float = R_TOL_ROOT
) -> tuple[float, float, float, float]:
    """R's normal-approximation estimate and interval (wilcox.test.default, ``conf.int = TRUE``).

    ``x``: the non-zero differences (R drops zeros first), not all equal. The interval bounds
    solve W(mu) = z_{1-alpha/2} and W(mu) = z_{alpha/2} (one-sided: z_{1-alpha} or z_alpha) on
    [min x, max x]; when W cannot reach the quantile (small n with ties), alpha is doubled until
    it can and the confidence level drops to 1 - alpha (R warns "requested conf.level not
    achievable"). The estimate solves W(mu) = 0 without continuity correction.
    Returns (estimate, low, high, achieved level).
    """
    alpha = 1.0 - level
    mumin, mumax = float(x.min()), float(x.max())

    def w(mu: float) -> float:
        return r_signrank_z(x, mu, alternative, correct)

    w_min, w_max = w(mumin), w(mumax)

    def root(zq: float) -> float:
        return r_zeroin(lambda mu: w(mu) - zq, mumin, mumax, w_min - zq, w_max - zq, tol)

    out_level = level
    lo, hi = -math.inf, math.inf
    if alternative == "two-sided":
        while w_min - _qnorm_upper(alpha / 2) < 0 or w_max + _qnorm_upper(alpha / 2) > 0:
            alpha *= 2
    elif alternative == "greater":
        while w_min - _qnorm_upper(alpha) < 0:
            alpha *= 2
    else:  # R's "less" branch checks against qnorm(alpha/2) but solves at qnorm(alpha)
        while w_max + _qnorm_upper(alpha / 2) > 0:
            alpha *= 2
    if alpha >= 1 or 1 - level < alpha * 0.75:
        out_level = 1 - min(1.0, alpha)
    median = float(np.median(x))
    if alternative == "two-sided":
        if alpha < 1:
            lo, hi = root(_qnorm_upper(alpha / 2)), root(-_qnorm_upper(alpha / 2))
        else:
            lo = hi = median
    elif alternative == "greater":
        lo = root(_qnorm_upper(alpha)) if alpha < 1 else median
    else:
        hi = root(-_qnorm_upper(alpha)) if alpha < 1 else median

    def w0(mu: float) -> float:
        return r_signrank_z(x, mu, alternative, False)

    est = r_zeroin(w0, mumin, mumax, w0(mumin), w0(mumax), tol)
    return est, lo, hi, out_level
