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
from typing import Literal

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


# --------------------------------------------------------------------------------------------
# The same normal-approximation branch for many rows at once (all-pairs Wilcoxon)
# --------------------------------------------------------------------------------------------

_CHUNK = 1 << 16  # values per block of rows: the scratch arrays stay in cache
_INF_BITS = np.uint64(0x7FF0000000000000)  # +inf: the padding of rows with fewer values
_PAD_KEY = np.uint64(0xFFE0000000000001)  # its sort key (bits << 1, positive mark)


def signrank_parts_rows(x: np.ndarray, mu: np.ndarray, rows: np.ndarray | None = None
                        ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per row r of ``x`` (or of ``x[rows]``): (V, nx, ties) of ``x[r] - mu[r]`` as
    :func:`r_signrank_z` computes them — V the sum of the average ranks of |xd| over the
    positive xd, nx the number of non-zero xd, ties = sum(t^3 - t) over the tie groups of |xd|
    (zeros dropped first). Rows may end with +inf padding (rows of fewer values): it is
    left out.

    One sort per row: the IEEE-754 bits of xd shifted left by one (|xd|'s bits, monotone for
    non-negative floats) with the complement of the sign bit in the free bit, so equal |xd|
    stay adjacent whatever their signs (a zero, +0.0, gets key 1). Rows without ties take
    V = sum over positives of their 1-based position among the non-zero values (an integer
    matrix-vector product); rows where two neighbouring keys differ by at most 1 (a possible
    tie) go through the tie groups. Ranks are multiples of 1/2 and every partial sum is far
    below 2^53, so V and ties are exact and equal the one-row computation whatever the
    summation order. Rows are processed in blocks of about ``_CHUNK`` values."""
    idx = np.arange(x.shape[0]) if rows is None else rows
    m, n = idx.size, x.shape[1]
    v, nx, ties = np.zeros(m), np.zeros(m), np.zeros(m)
    if m == 0 or n == 0:
        return v, nx, ties
    step = max(1, _CHUNK // n)
    ranks = np.arange(1, n + 1, dtype=np.uint64)
    for lo in range(0, m, step):
        sl = slice(lo, min(m, lo + step))
        xd = np.subtract(x[idx[sl]], mu[sl, None])
        bits = xd.view(np.uint64)
        keys = bits << np.uint64(1)
        bits >>= np.uint64(63)
        bits ^= np.uint64(1)
        keys |= bits
        keys.sort(axis=1)
        npad = np.zeros(keys.shape[0], dtype=np.int64)
        prows = np.flatnonzero(keys[:, -1] == _PAD_KEY)  # +inf padding sorts last
        if prows.size:
            npad[prows] = np.count_nonzero(keys[prows] == _PAD_KEY, axis=1)
        nzero = np.zeros(keys.shape[0], dtype=np.int64)
        zrows = np.flatnonzero(keys[:, 0] < 2)  # zeros sort first
        if zrows.size:
            nzero[zrows] = np.count_nonzero(keys[zrows] < 2, axis=1)
        gap = np.subtract(keys[:, 1:], keys[:, :-1], out=bits[:, 1:])
        close = gap <= 1  # superset of the rows with ties (or 2+ zeros)
        if prows.size:
            close &= keys[:, 1:] != _PAD_KEY
        maybe_tied = np.any(close, axis=1)
        keys &= np.uint64(1)
        npos = np.zeros(keys.shape[0], dtype=np.int64)
        if zrows.size:  # a zero is +0.0 (x - mu = 0 only for x == mu): marked, not counted
            npos[zrows] = (keys[zrows].sum(axis=1).astype(np.int64) - nzero[zrows]
                           - npad[zrows])  # padding is marked positive too
        pos_rank = (keys @ ranks).astype(np.int64)
        # positions among the non-zero values: rank - nzero, zeros (first) excluded
        # padding: the last npad positions, marked positive
        length = n - npad
        vv = pos_rank - (n * (n + 1) - length * (length + 1)) // 2
        vv = vv - nzero * (nzero + 1) // 2 - nzero * npos
        v[sl] = vv.astype(np.float64)
        nx[sl] = (length - nzero).astype(np.float64)
        if maybe_tied.any():
            t_rows = np.flatnonzero(maybe_tied)
            xd_t = np.subtract(x[idx[sl][t_rows]], mu[sl][t_rows, None])
            kt = (np.abs(xd_t).view(np.uint64) << np.uint64(1)) | (xd_t > 0).view(
                np.uint8).astype(np.uint64)
            kt.sort(axis=1)
            vt, tt = _tied_parts(kt >> np.uint64(1), (kt & np.uint64(1)).astype(np.float64),
                                 nzero[t_rows])
            v[lo + t_rows], ties[lo + t_rows] = vt, tt
    return v, nx, ties


def _tied_parts(val: np.ndarray, pos: np.ndarray, nzero: np.ndarray
                ) -> tuple[np.ndarray, np.ndarray]:
    """(V, ties) of rows whose sorted |xd| (``val``, bit patterns; ``pos`` the positive marks)
    have tie groups: average ranks per group, the zero group (first) dropped."""
    m, n = val.shape
    flat = val.ravel()
    new = np.empty(flat.size, dtype=bool)
    new[0] = True
    np.not_equal(flat[1:], flat[:-1], out=new[1:])
    new[::n] = True  # every row starts a group
    start = np.flatnonzero(new)
    size = np.diff(np.append(start, flat.size))
    row = start // n
    avg = (start - row * n - nzero[row]) + (size + 1) / 2.0
    npos = np.add.reduceat(pos.ravel(), start)
    nonzero_group = (flat[start] != 0) & (flat[start] != _INF_BITS)  # no zeros, no padding
    v = np.bincount(row, weights=np.where(nonzero_group, npos * avg, 0.0), minlength=m)
    t = size.astype(np.float64)
    ties = np.bincount(row, weights=np.where(nonzero_group, t**3 - t, 0.0), minlength=m)
    return v, ties


def signrank_z_rows(v: np.ndarray, nx: np.ndarray, ties: np.ndarray, alternative: str,
                    correct: bool) -> np.ndarray:
    """:func:`r_signrank_z` of every row from its :func:`signrank_parts_rows` (same operations
    in the same order, so the same floats; NaN where nx = 0)."""
    with np.errstate(invalid="ignore", divide="ignore"):
        zd = v - nx * (nx + 1) / 4
        sigma = np.sqrt(nx * (nx + 1) * (2 * nx + 1) / 24 - ties / 48)
        corr: np.ndarray | float = 0.0
        if correct:
            corr = {"two-sided": 0.5 * np.sign(zd), "greater": 0.5, "less": -0.5}[alternative]
        z = (zd - corr) / sigma
    return np.where(nx == 0, np.nan, z)


def r_zeroin_rows(f: Callable[[np.ndarray, np.ndarray], np.ndarray], ax: np.ndarray,
                  bx: np.ndarray, fa: np.ndarray, fb: np.ndarray, tol: float,
                  maxit: int = 1000) -> np.ndarray:
    """:func:`r_zeroin` on many rows in lockstep: every row takes exactly the steps the one-row
    version takes (elementwise IEEE operations in the same order), so the roots are the same
    floats. ``f(rows, mu)`` evaluates the function of the given rows at ``mu``."""
    eps = sys.float_info.epsilon
    a, b = ax.astype(np.float64).copy(), bx.astype(np.float64).copy()
    fa, fb = fa.astype(np.float64).copy(), fb.astype(np.float64).copy()
    c, fc = a.copy(), fa.copy()
    out = np.full(a.size, np.nan)
    done = np.zeros(a.size, dtype=bool)
    out[fa == 0.0] = a[fa == 0.0]
    done |= fa == 0.0
    hit = ~done & (fb == 0.0)
    out[hit] = b[hit]
    done |= hit
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        for _ in range(maxit + 1):
            act = np.flatnonzero(~done)
            if not act.size:
                return out
            A, B, C = a[act], b[act], c[act]
            FA, FB, FC = fa[act], fb[act], fc[act]
            prev_step = B - A
            sw = np.abs(FC) < np.abs(FB)
            A, B, C = np.where(sw, B, A), np.where(sw, C, B), np.where(sw, B, C)
            FA, FB, FC = np.where(sw, FB, FA), np.where(sw, FC, FB), np.where(sw, FB, FC)
            tol_act = 2 * eps * np.abs(B) + tol / 2
            new_step = (C - B) / 2
            conv = (np.abs(new_step) <= tol_act) | (FB == 0.0)
            cb = C - B
            sec = A == C
            t1s = FB / FA
            p_s, q_s = cb * t1s, 1.0 - t1s
            q_i = FA / FC
            t1 = FB / FC
            t2 = FB / FA
            p_i = t2 * (cb * q_i * (q_i - t1) - (B - A) * (t1 - 1.0))
            q_i = (q_i - 1.0) * (t1 - 1.0) * (t2 - 1.0)
            p = np.where(sec, p_s, p_i)
            q = np.where(sec, q_s, q_i)
            q = np.where(p > 0, -q, q)
            p = np.where(p > 0, p, -p)
            interp = (np.abs(prev_step) >= tol_act) & (np.abs(FA) > np.abs(FB))
            take = interp & (p < (0.75 * cb * q - np.abs(tol_act * q) / 2)) & (
                p < np.abs(prev_step * q / 2))
            new_step = np.where(take, p / q, new_step)
            small = np.abs(new_step) < tol_act
            new_step = np.where(small, np.where(new_step > 0, tol_act, -tol_act), new_step)
            # rows that converged return b (after the swap); the others step
            out[act[conv]] = B[conv]
            done[act[conv]] = True
            go = ~conv
            act, A, B, C, FA, FB, FC = (v[go] for v in (act, A, B, C, FA, FB, FC))
            new_step = new_step[go]
            A, FA = B, FB
            B = B + new_step
            FB = f(act, B)
            same = ((FB > 0) & (FC > 0)) | ((FB < 0) & (FC < 0))
            C, FC = np.where(same, A, C), np.where(same, FA, FC)
            a[act], b[act], c[act], fa[act], fb[act], fc[act] = A, B, C, FA, FB, FC
    rest = ~done
    out[rest] = b[rest]
    return out


def r_asymptotic_interval_rows(
    x: np.ndarray, level: float, alternative: str, correct: bool, tol: float = R_TOL_ROOT
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """:func:`r_asymptotic_interval` of every row of ``x`` (each row: one pair's non-zero
    differences, not all equal; rows of fewer values end with +inf padding), bit for bit: the signed-rank statistic of all rows at one
    shift per row is one sorted matrix (:func:`signrank_parts_rows`), and the three roots of
    every row (two bounds and the estimate) are found together by :func:`r_zeroin_rows`.
    Returns (estimate, low, high, achieved level), one entry per row."""
    m, n = x.shape
    s = np.sort(x, axis=1)  # +inf padding last
    length = np.count_nonzero(np.isfinite(s), axis=1)
    at = np.arange(m)
    mumin, mumax = s[:, 0], s[at, length - 1]
    vmin, nmin, tmin = signrank_parts_rows(x, mumin)
    vmax, nmax, tmax = signrank_parts_rows(x, mumax)
    w_min = signrank_z_rows(vmin, nmin, tmin, alternative, correct)
    w_max = signrank_z_rows(vmax, nmax, tmax, alternative, correct)
    alpha = np.full(m, 1.0 - level)
    for r in range(m):  # R doubles alpha until the quantile is reachable (small n with ties)
        a = float(alpha[r])
        if alternative == "two-sided":
            while w_min[r] - _qnorm_upper(a / 2) < 0 or w_max[r] + _qnorm_upper(a / 2) > 0:
                a *= 2
        elif alternative == "greater":
            while w_min[r] - _qnorm_upper(a) < 0:
                a *= 2
        else:
            while w_max[r] + _qnorm_upper(a / 2) > 0:
                a *= 2
        alpha[r] = a
    out_level = np.where((alpha >= 1) | (1 - level < alpha * 0.75),
                         1 - np.minimum(1.0, alpha), level)
    half_len = length // 2  # np.median of the row's values, as the one-row version takes it
    median = np.where(length % 2 == 1, s[at, half_len],
                      (s[at, np.maximum(half_len - 1, 0)] + s[at, half_len]) / 2)
    lo, hi = np.full(m, -math.inf), np.full(m, math.inf)
    ok = alpha < 1
    # the root problems: (row, quantile, continuity correction) stacked
    rows: list[np.ndarray] = []
    zqs: list[np.ndarray] = []
    which: list[str] = []
    if alternative in ("two-sided", "greater"):
        half = alpha / 2 if alternative == "two-sided" else alpha
        r_ = np.flatnonzero(ok)
        rows.append(r_)
        zqs.append(np.array([_qnorm_upper(float(h)) for h in half[r_]]))
        which.append("lo")
    if alternative in ("two-sided", "less"):
        half = alpha / 2 if alternative == "two-sided" else alpha
        r_ = np.flatnonzero(ok)
        rows.append(r_)
        zqs.append(np.array([-_qnorm_upper(float(h)) for h in half[r_]]))
        which.append("hi")
    w0_min = signrank_z_rows(vmin, nmin, tmin, alternative, False)
    w0_max = signrank_z_rows(vmax, nmax, tmax, alternative, False)
    rows.append(np.arange(m))
    zqs.append(np.zeros(m))
    which.append("est")
    sizes = [r_.size for r_ in rows]
    prow = np.concatenate(rows)
    zq = np.concatenate(zqs)
    cc = np.concatenate([np.full(s, w != "est") for s, w in zip(sizes, which, strict=True)])
    fa = np.where(cc, w_min[prow], w0_min[prow]) - np.where(cc, zq, 0.0)
    fb = np.where(cc, w_max[prow], w0_max[prow]) - np.where(cc, zq, 0.0)

    def f(idx: np.ndarray, mu: np.ndarray) -> np.ndarray:
        v, nx, ties = signrank_parts_rows(x, mu, prow[idx])
        out = np.empty(idx.size)
        c = cc[idx]
        if c.any():
            out[c] = signrank_z_rows(v[c], nx[c], ties[c], alternative, correct) - zq[idx[c]]
        if (~c).any():
            out[~c] = signrank_z_rows(v[~c], nx[~c], ties[~c], alternative, False)
        return out

    roots = r_zeroin_rows(f, mumin[prow], mumax[prow], fa, fb, tol)
    first = 0
    est = np.empty(m)
    for r_, size, w in zip(rows, sizes, which, strict=True):
        got = roots[first:first + size]
        first += size
        if w == "lo":
            lo[r_] = got
        elif w == "hi":
            hi[r_] = got
        else:
            est[r_] = got
    # alpha >= 1: the bound(s) collapse onto the median, as in R
    if alternative == "two-sided":
        lo = np.where(ok, lo, median)
        hi = np.where(ok, hi, median)
    elif alternative == "greater":
        lo = np.where(ok, lo, median)
    else:
        hi = np.where(ok, hi, median)
    return est, lo, hi, out_level


# --------------------------------------------------------------------------------------------
# Exact Walsh-average order statistics of many rows at once (hodges_lehmann="walsh")
# --------------------------------------------------------------------------------------------

_SAMPLE = 1024  # candidate sums drawn per problem and round to place the next bracket
_Z_MARGIN = 4.0  # bracket half-width in binomial standard deviations of the sample rank


def _first_above_rows(d: np.ndarray, t: np.ndarray, lo: np.ndarray, hi: np.ndarray,
                      strict: bool = True) -> np.ndarray:
    """For every problem p (row of ``d``) and every i: the first j in [lo[p, i], hi[p, i]] with
    d[p, i] + d[p, j] > t[p] (>= when not ``strict``; the exact float sum), hi[p, i] if none.
    For ascending d, d_i + d_j is non-decreasing in j: a first guess from ``np.searchsorted``
    of t - d_i (one call per problem, in C), then corrected step by step against the exact sum
    (t - d_i is rounded, so the guess can be a few places off)."""
    n = d.shape[1]
    side: Literal["left", "right"] = "right" if strict else "left"
    pos = np.empty(lo.shape, dtype=np.int64)
    with np.errstate(invalid="ignore"):
        for q in range(d.shape[0]):
            # t - d_i descends in i: searched reversed (ascending keys are faster)
            pos[q] = np.searchsorted(d[q], (t[q] - d[q])[::-1], side=side)[::-1]
    np.clip(pos, lo, hi, out=pos)
    tt = t[:, None]

    def above(s: np.ndarray) -> np.ndarray:
        return (s > tt) if strict else (s >= tt)

    while True:  # sum at pos not above t: move right
        fwd = pos < hi
        fwd &= ~above(d + np.take_along_axis(d, np.minimum(pos, n - 1), axis=1))
        if not fwd.any():
            break
        pos += fwd
    while True:  # sum at pos - 1 above t: move left
        back = pos > lo
        back &= above(d + np.take_along_axis(d, np.maximum(pos - 1, 0), axis=1))
        if not back.any():
            return pos
        pos -= back


def walsh_sum_select_rows(d: np.ndarray, k: np.ndarray, seed: int = 0,
                          budget: int | None = None) -> np.ndarray:
    """The k[p]-th smallest (1-based) of the sums d[p, i] + d[p, j], i <= j, of every row p of
    ``d`` (ascending rows; rows of fewer values end with +inf padding, left out).

    Selection without forming the n(n+1)/2 sums (Johnson & Mizoguchi 1978; Monahan 1984, ACM
    TOMS 10(3), algorithm 616): each problem keeps a window of candidate sums, for every i the
    columns j in [a_i, b_i) with low < d_i + d_j <= high and the number of sums <= low. Each
    round draws ``_SAMPLE`` candidates uniformly from the window, takes the sample order
    statistics ``_Z_MARGIN`` binomial standard deviations either side of the target's relative
    rank as new thresholds, and counts the sums <= each threshold exactly (a binary search per
    i, restricted to the window: for ascending d, d_i + d_j is non-decreasing in j, with the
    float sum compared exactly). A threshold only replaces a bound on the side the exact count
    puts it, so an unlucky sample costs a round, never a wrong answer; a threshold with fewer
    than k sums below it and at least k at or below it is the answer (ties). Windows of at most
    ``budget`` (default 4 n) sums are enumerated and the k-th taken from one sort. The random
    draws (``seed``) change the work, not the result."""
    d = np.asarray(d, dtype=np.float64)
    k = np.asarray(k, dtype=np.int64)
    p_count, n = d.shape
    out = np.empty(p_count)
    if p_count == 0:
        return out
    rng = np.random.default_rng(seed)
    ii = np.broadcast_to(np.arange(n), (p_count, n))
    length = np.count_nonzero(d < np.inf, axis=1)
    a = ii.copy()  # window [a, b): initially every j >= i among the row's values
    b = np.maximum(ii, length[:, None])
    below = np.zeros(p_count, dtype=np.int64)  # sums at or under the lower bound
    todo = np.arange(p_count)
    found = np.zeros(p_count, dtype=bool)  # answered by a threshold (a tie at the k-th)
    budget = 4 * n if budget is None else budget
    while todo.size:
        todo = todo[~found[todo]]
        w = b[todo] - a[todo]
        width = w.sum(axis=1)
        small = width <= budget
        if small.any():
            sel = todo[small]
            ws = w[small]
            flat = ws.ravel()
            prob = np.repeat(np.arange(sel.size), ws.sum(axis=1))
            rows_i = np.repeat(np.tile(np.arange(n), sel.size), flat)
            starts = np.repeat(np.cumsum(flat) - flat, flat)
            cols = np.repeat(a[sel].ravel(), flat) + (np.arange(flat.sum()) - starts)
            dd = d[sel]
            s = dd[prob, rows_i] + dd[prob, cols]
            size = ws.sum(axis=1)
            first = np.cumsum(size) - size
            kk = k[sel] - below[sel] - 1
            for q in range(sel.size):  # the k-th of each problem's own candidates
                part = s[first[q]:first[q] + size[q]]
                out[sel[q]] = np.partition(part, kk[q])[kk[q]]
        todo, w, width = todo[~small], w[~small], width[~small]
        if not todo.size:
            break
        dd = d[todo]
        # a uniform sample of the window's candidates: draw a flat position, find its i
        cum = np.cumsum(w, axis=1)
        u = rng.integers(0, width[:, None], size=(todo.size, _SAMPLE))
        u.sort(axis=1)
        i_s = np.empty_like(u)
        for q in range(todo.size):  # one searchsorted per problem (its cumulative widths)
            i_s[q] = np.searchsorted(cum[q], u[q], side="right")
        prev = np.take_along_axis(cum - w, i_s, axis=1)
        j_s = np.take_along_axis(a[todo], i_s, axis=1) + (u - prev)
        samp = np.sort(np.take_along_axis(dd, i_s, axis=1) + np.take_along_axis(dd, j_s, axis=1),
                       axis=1)
        frac = (k[todo] - below[todo]) / width
        half = _Z_MARGIN * np.sqrt(_SAMPLE * frac * (1 - frac)) + 1
        lo_at = np.floor(frac * _SAMPLE - half).astype(np.int64)
        hi_at = np.ceil(frac * _SAMPLE + half).astype(np.int64)
        for at in (lo_at, hi_at):
            use = (at >= 0) & (at < _SAMPLE) & ~found[todo]
            if not use.any():
                continue
            q = todo[use]
            t = samp[use, at[use]]
            aq, bq = a[q], b[q]
            cut = _first_above_rows(d[q], t, aq, bq)
            cnt = below[q] + (cut - aq).sum(axis=1)  # sums <= t
            goes_low = cnt < k[q]  # the answer is above t: t becomes the lower bound
            a[q] = np.where(goes_low[:, None], cut, aq)
            b[q] = np.where(goes_low[:, None], bq, cut)
            below[q] = np.where(goes_low, cnt, below[q])
            hit = np.flatnonzero(~goes_low)
            if hit.size:  # at or below t: t itself when fewer than k sums are below t
                qh = q[hit]
                cut_lt = _first_above_rows(d[qh], t[hit], aq[hit], cut[hit], strict=False)
                is_t = below[qh] + (cut_lt - aq[hit]).sum(axis=1) < k[qh]
                out[qh[is_t]] = t[hit[is_t]]
                found[qh[is_t]] = True
    return out


def walsh_interval_rows(
    x: np.ndarray, level: float, alternative: str, correct: bool
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Hodges–Lehmann estimate and the order-statistic interval of every row of ``x`` (each
    row: one pair's non-zero differences, ascending, +inf padding after them), from exact
    Walsh-average order statistics (:func:`walsh_sum_select_rows`), the interval whose bounds
    R's normal-approximation ``uniroot`` finds to within its tolerance (``tol.root = 1e-4``).

    Estimate: the median of the N = n(n+1)/2 Walsh averages (the mean of the two middle ones
    when N is even), as :func:`hodges_lehmann`. Interval [w_(q_lo), w_(q_hi)]: R's exact
    indices (:func:`hodges_lehmann_ci`) when n < 50 without ties; otherwise the jumps of the
    signed-rank statistic V(mu) = #{w > mu} where the standardised statistic crosses the normal
    quantile z (z_{1-alpha/2}; one-sided z_{1-alpha}): q_lo = floor(N/2 - z sigma - c) + 1 and
    q_hi = floor(N/2 + z sigma + c) + 1, sigma^2 = n(n+1)(2n+1)/24, c = 1/2 with continuity
    correction else 0 (Hollander, Wolfe & Chicken 2014, sec. 3.3, large-sample approximation;
    no tie correction of sigma). One-sided: the other bound is infinite.
    Returns (estimate, low, high) per row."""
    m, n = x.shape
    length = np.count_nonzero(x < np.inf, axis=1)
    total = length * (length + 1) // 2
    alpha = 1.0 - level
    a = alpha / 2.0 if alternative == "two-sided" else alpha
    z = _qnorm_upper(a)
    sigma = np.sqrt(length * (length + 1) * (2 * length + 1) / 24.0)
    c = 0.5 if correct else 0.0
    q_lo = np.floor(total / 2 - z * sigma - c).astype(np.int64) + 1
    q_hi = np.floor(total / 2 + z * sigma + c).astype(np.int64) + 1
    untied = np.array([np.unique(x[r, :length[r]]).size == length[r] for r in range(m)]
                      ) if m else np.zeros(0, dtype=bool)
    for r in np.flatnonzero((length < R_EXACT_BELOW_N) & untied):
        q = signrank_lower_quantile(int(length[r]), a)
        q_lo[r], q_hi[r] = q, total[r] - q + 1
    q_lo = np.clip(q_lo, 1, total)
    q_hi = np.clip(q_hi, 1, total)
    mid_lo = (total + 1) // 2  # the middle one (N odd) or the lower of the two middle ones
    mid_hi = total // 2 + 1
    two = alternative == "two-sided"
    ranks = [mid_lo, mid_hi]
    if two or alternative == "greater":
        ranks.append(q_lo)
    if two or alternative == "less":
        ranks.append(q_hi)
    sums = walsh_sum_select_rows(np.tile(x, (len(ranks), 1)), np.concatenate(ranks))
    parts = sums.reshape(len(ranks), m)
    est = np.where(total % 2 == 1, parts[0] / 2.0, (parts[0] + parts[1]) / 4.0)
    lo, hi = np.full(m, -math.inf), np.full(m, math.inf)
    at = 2
    if two or alternative == "greater":
        lo = parts[at] / 2.0
        at += 1
    if two or alternative == "less":
        hi = parts[at] / 2.0
    return est, lo, hi
