"""Rosner, Glynn & Lee's clustered Wilcoxon signed-rank test of many pairs at once: the rows
version of :func:`ranger_eval.stats.clustered.clustered_signed_rank` (its docstring gives the
statistic; R ``clusrank::clusWilcox.test(..., paired = TRUE, method = "rgl")``).

Every row of a rows × n matrix is one pair (its own cluster codes, so pairs of different
datasets with the same number of items share one matrix), and every step runs on all rows with
array operations, in the reduction order of the one-pair function, so each row's Z and p-value
equal ``clustered_signed_rank`` of that row bit for bit:

* the differences are scaled per row as :func:`ranger_eval.stats._scale.scaled_difference`;
* zero differences are dropped by ranking |d| with every zero replaced by +inf (a row-wise
  :func:`~ranger_eval.stats.many.average_ranks`): the non-zero values keep the ranks they have
  among themselves, and their signed ranks are those of the compacted row;
* the clusters of each row's non-zero differences are renumbered by first appearance (one
  ``factorize`` of (row, code) over all rows, so each row's clusters are a contiguous block of
  global ids) and the cluster sums and sizes are one ``bincount`` over all rows (it adds each
  bin's values in item order, as the one-pair ``bincount`` does);
* the sums over a row's non-zero signed ranks (``sr.sum()``, the ANOVA sums of squares) are
  row-wise ``numpy.sum`` of rows of equal length (numpy's pairwise summation of each row, as
  for the 1-D array) and the dot products over a row's clusters (``sums @ sums``, ``means @ w``)
  are stacked ``numpy.matmul`` of rows with equal cluster counts (one BLAS ``ddot`` per row, as
  the 1-D ``@``); rows are bucketed by these lengths.
"""
from __future__ import annotations

import numpy as np

from ._clusters import _need_clusters
from ._scale import row_exponents, scaled_difference, scaled_rows
from ._validation import StatsInputError, check_alternative
from .many import average_ranks

__all__ = ["SignedRankRows", "clustered_signed_rank_rows", "nonzero_cluster_counts",
           "scaled_difference_rows"]

WHAT = "the clustered signed-rank test (clusters with a non-zero difference)"


class SignedRankRows:
    """Z (``statistic``), ``pvalue`` and the number of clusters with a non-zero difference
    (``n_clusters``) of every row; Z = 0, p = 1 and 0 clusters for a row without a non-zero
    difference, as the one-pair function."""

    __slots__ = ("n_clusters", "pvalue", "statistic")

    def __init__(self, statistic: np.ndarray, pvalue: np.ndarray, n_clusters: np.ndarray
                 ) -> None:
        self.statistic, self.pvalue, self.n_clusters = statistic, pvalue, n_clusters


def scaled_difference_rows(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Row by row, ``scaled_difference(x[r], y[r])[0]`` (the differences the one-pair test
    ranks): ``x − y`` scaled by a power of two only when outside the safe range."""
    x = np.asarray(x, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    if x.shape != y.shape or x.ndim != 2:
        raise StatsInputError(f"x and y must be rows x items matrices of one shape; got "
                              f"{x.shape} and {y.shape}")
    if not (np.isfinite(x).all() and np.isfinite(y).all()):
        raise StatsInputError("x and y must be finite (NaN or inf found)")
    if x.size == 0:
        return x - y
    big = row_exponents(x, y)
    d = x - y
    e = row_exponents(d)
    d = scaled_rows(e, d)[0] if e.any() else d
    for r in np.flatnonzero(big > 1000):  # |x| or |y| above 2^1000 (rare): as the one pair
        d[r] = scaled_difference(x[r], y[r])[0]
    return d


def _kept_clusters(d: np.ndarray, codes: np.ndarray
                   ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(keep mask, global cluster id of each non-zero difference in row-major order, clusters
    per row, first global id of each row, row of each global id)."""
    import pandas as pd

    keep = d != 0.0
    rows, cols = np.nonzero(keep)
    code = codes[rows, cols] if codes.ndim == 2 else codes[cols]
    width = int(code.max()) + 1 if code.size else 1
    gid, uniq = pd.factorize(rows.astype(np.int64) * width + code.astype(np.int64))
    urow = np.asarray(uniq, dtype=np.int64) // width
    c = np.bincount(urow, minlength=d.shape[0])
    first = np.cumsum(c) - c
    return keep, gid.astype(np.intp), c, first, urow


def nonzero_cluster_counts(d: np.ndarray, codes: np.ndarray) -> np.ndarray:
    """The number of clusters holding a non-zero difference in each row of ``d`` (``codes``:
    one row of cluster codes per row of ``d``, or one vector shared by every row)."""
    d = np.asarray(d, dtype=np.float64)
    return _kept_clusters(d, np.asarray(codes))[2]


def _row_sums(values: np.ndarray, start: np.ndarray, length: np.ndarray, sel: np.ndarray
              ) -> np.ndarray:
    """``values[start[r]:start[r] + length[r]].sum()`` for the rows ``sel`` (pairwise
    summation of each segment, as the 1-D ``.sum()``): rows of equal length at once."""
    out = np.zeros(sel.size)
    lens = length[sel]
    for k in np.unique(lens):
        at = np.flatnonzero(lens == k)
        idx = start[sel[at]][:, None] + np.arange(k)
        out[at] = values[idx].sum(axis=1)
    return out


def _row_dots(a: np.ndarray, b: np.ndarray, start: np.ndarray, length: np.ndarray,
              sel: np.ndarray) -> np.ndarray:
    """``a[s:s + l] @ b[s:s + l]`` for the rows ``sel`` (one BLAS ddot per row through stacked
    ``matmul``, as the 1-D ``@``): rows of equal length at once."""
    out = np.zeros(sel.size)
    lens = length[sel]
    for k in np.unique(lens):
        at = np.flatnonzero(lens == k)
        idx = start[sel[at]][:, None] + np.arange(k)
        out[at] = np.matmul(a[idx][:, None, :], b[idx][:, :, None])[:, 0, 0]
    return out


def clustered_signed_rank_rows(d: object, codes: object, *, alternative: str = "two-sided"
                               ) -> SignedRankRows:
    """Rosner–Glynn–Lee clustered signed-rank test of every row of ``d`` (module docstring):
    row ``r`` equals ``clustered_signed_rank(d[r], clusters=codes[r])`` bit for bit (Z,
    p-value, clusters with a non-zero difference).

    Parameters
    ----------
    d : array_like
        Rows × n paired differences (:func:`scaled_difference_rows` of the scores, for the
        one-pair function's scaling), finite, n ≥ 2.
    codes : array_like of int
        Non-negative integer cluster codes: rows × n, or one vector of n shared by every row.
    alternative : {"two-sided", "greater", "less"}, default "two-sided"

    Returns
    -------
    SignedRankRows

    Raises
    ------
    StatsInputError
        A row whose non-zero differences lie in one cluster (the one-pair function's error),
        fewer than 2 items, shapes that do not match.

    Examples
    --------
    >>> import numpy as np
    >>> from ranger_eval.stats.clustered_rank import clustered_signed_rank_rows
    >>> d = np.array([[.1, 0, .1, 0, .1, 0, .1, .2], [.1, -.2, .3, 0, .1, .2, -.1, .2]])
    >>> r = clustered_signed_rank_rows(d, np.array([0, 0, 1, 1, 2, 2, 3, 3]))
    >>> np.round(r.statistic, 4).tolist(), r.n_clusters.tolist()
    ([1.7321, 1.3016], [4, 4])
    """
    check_alternative(alternative)
    from scipy.special import ndtr

    d = np.asarray(d, dtype=np.float64)
    cd = np.asarray(codes)
    if d.ndim != 2 or cd.shape not in (d.shape, d.shape[1:]):
        raise StatsInputError(f"d must be a rows x items matrix and codes of its shape (or one "
                              f"row); got {d.shape} and {cd.shape}")
    if d.shape[1] < 2:
        raise StatsInputError(f"paired test needs at least 2 pairs; got {d.shape[1]}")
    if not np.isfinite(d).all():
        raise StatsInputError("d must be finite (NaN or inf found)")
    b = d.shape[0]
    keep, gid, c, first, urow = _kept_clusters(d, cd)
    nk = keep.sum(axis=1)
    if ((nk > 0) & (c < 2)).any():
        _need_clusters(int(c[(nk > 0) & (c < 2)][0]), WHAT)
    a = np.abs(d)
    a[~keep] = np.inf  # zeros rank last: the others keep their ranks among themselves
    sr = (np.sign(d) * average_ranks(a))[keep]  # row-major: each row's kept items in order
    kstart = np.cumsum(nk) - nk
    m = np.bincount(gid, minlength=int(c.sum())).astype(np.float64)
    sums = np.bincount(gid, weights=sr, minlength=m.size)
    live = np.flatnonzero(nk > 0)
    t = np.zeros(b)
    var = np.zeros(b)
    if live.size:
        mmin = np.minimum.reduceat(m, first[live])
        mmax = np.maximum.reduceat(m, first[live])
        smin = np.minimum.reduceat(sr, kstart[live])
        smax = np.maximum.reduceat(sr, kstart[live])
        plain = (mmin == mmax) | (smin == smax)
        eq, uneq = live[plain], live[~plain]
        # equal sizes, or every signed rank equal: T = sum sr, Var = sum_k S_k^2
        t[eq] = _row_sums(sr, kstart, nk, eq)
        var[eq] = _row_dots(sums, sums, first, c, eq)
        if uneq.size:
            ku = np.isin(urow[gid], uneq)  # the kept items of the weighted rows
            kr = urow[gid]
            means = sums / m
            n = nk[uneq].astype(np.float64)
            cu = c[uneq].astype(np.float64)
            sq_err = np.zeros(sr.size)
            sq_err[ku] = (sr[ku] - means[gid[ku]]) ** 2
            error_ss = _row_sums(sq_err, kstart, nk, uneq)
            mean_sr = np.zeros(b)
            mean_sr[uneq] = _row_sums(sr, kstart, nk, uneq) / n
            sq_tot = np.zeros(sr.size)
            sq_tot[ku] = (sr[ku] - mean_sr[kr[ku]]) ** 2
            total_ss = _row_sums(sq_tot, kstart, nk, uneq)
            model_ss = total_ss - error_ss
            error_df, model_df = n - cu, cu - 1.0
            m0 = (n - _row_dots(m, m, first, c, uneq) / n) / (cu - 1.0)
            within = error_ss / error_df
            s2b = (model_ss / model_df - within) / m0
            den = s2b + within
            with np.errstate(divide="ignore", invalid="ignore"):
                q = s2b / den
            rho = np.where((den > 0) & (q > 0.0), q, 0.0)  # max(0, .) as Python's max
            rho = rho * (1.0 + (1.0 - rho * rho) / (cu - 2.5))
            rho = np.where(rho < 1.0, rho, 1.0)  # min(1, .)
            gu = np.isin(urow, uneq)  # the clusters of the weighted rows
            pos = np.zeros(b, dtype=np.intp)
            pos[uneq] = np.arange(uneq.size)
            gr = pos[urow[gu]]
            w = np.zeros(m.size)
            w[gu] = m[gu] / (total_ss[gr] / (n[gr] - 1.0) * (1.0 + (m[gu] - 1.0) * rho[gr]))
            t[uneq] = _row_dots(means, w, first, c, uneq)
            var[uneq] = _row_dots(w * w, means * means, first, c, uneq)
    z = np.zeros(b)
    pos_var = var > 0
    z[pos_var] = t[pos_var] / np.sqrt(var[pos_var])
    if alternative == "two-sided":
        p = 2.0 * np.minimum(ndtr(np.abs(z)), ndtr(-np.abs(z)))
    else:
        p = ndtr(-z) if alternative == "greater" else ndtr(z)
    p = np.where(nk > 0, p, 1.0)
    return SignedRankRows(z, np.asarray(p, dtype=np.float64), np.where(nk > 0, c, 0))
