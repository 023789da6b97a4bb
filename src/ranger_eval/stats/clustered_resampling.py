"""Cluster bootstrap and cluster sign-flip permutation tests: whole clusters are the resampled
unit (notation of :mod:`ranger_eval.stats.clustered`, which re-exports every name here).

* **Cluster bootstrap** (:func:`cluster_bootstrap_many`): whole clusters are drawn with
  replacement (Field & Welsh 2007, JRSS B 69:369; Cameron & Miller 2015, sec. VI.A); the
  resampled estimate is the ratio sum w_k S_k / sum w_k m_k (w_k the number of draws of cluster
  k), from one shared :class:`~ranger_eval.stats.resampling.BootstrapIndices` matrix over the C
  clusters; interval BCa with the leave-one-cluster-out jackknife, p-value by the shift method as
  :func:`~ranger_eval.stats.resampling.paired_bootstrap`.
* **Cluster sign-flip permutation test** (:func:`cluster_permutation_test_many`): under H0 each
  cluster's vector of differences is symmetric about 0, so the sign of each S_k is flipped at
  random (the "wild cluster" permutation of the sum; Cameron, Gelbach & Miller 2008, REStat 90:414,
  with Rademacher weights and no studentisation), from one shared
  :class:`~ranger_eval.stats.resampling.SignFlips` over the C clusters.

With one item per cluster, the bootstrap and the permutation test draw exactly the item-level
resamples (same matrices, same arithmetic), so they give the numbers of the unclustered tests.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import numpy as np

from ._clusters import _need_clusters, cluster_sums
from ._validation import (
    StatsInputError,
    check_alternative,
    check_choice,
    check_level,
)
from .resampling import (
    _CI_METHODS,
    BootstrapIndices,
    SignFlips,
    _as_matrix,
    _bootstrap_core,
    _tolerance,
)
from .results import ManyTestResult

if TYPE_CHECKING:
    from .resampling import BootstrapIndices

__all__ = ["cluster_bootstrap_many", "cluster_bootstrap_means", "cluster_permutation_test_many"]


def cluster_bootstrap_many(
    sums: object, sizes: object, *, alternative: str = "two-sided", n_resamples: int = 10_000,
    seed: int | None = 0, level: float = 0.95, ci_method: str = "bca", batch: int | None = None,
    indices: object | None = None, advance: Callable[[int], object] | None = None,
) -> ManyTestResult:
    """Cluster bootstrap of the mean difference for every row of cluster sums (rows x C) with
    cluster sizes ``sizes``: resample r draws cluster k w_rk times (one
    :class:`~ranger_eval.stats.resampling.BootstrapIndices` over C clusters, shared by all rows)
    and gives theta*_r = sum_k w_rk S_k / sum_k w_rk m_k. p-value by the shift method,
    (1 + #{|theta* - theta| >= |theta| - tol})/(1 + B); interval percentile or BCa with the
    jackknife leaving one cluster out, theta_(k) = (sum S - S_k)/(n - m_k) (Efron & Tibshirani
    1993, eq. 14.15 with clusters as the sampling units). Rows whose cluster means are all
    equal get the point interval. With one item per cluster this is exactly
    :func:`~ranger_eval.stats.resampling.paired_bootstrap_many`.

    Parameters
    ----------
    sums : array_like
        Cluster sums of the differences, rows × C.
    sizes : array_like of int
        The C cluster sizes.
    alternative : {"two-sided", "greater", "less"}, default "two-sided"
        "greater" means ``x`` scores higher.
    n_resamples : int, default 10000
        Bootstrap resamples B.
    seed : int or None, default 0
        Seed of the resampling.
    level : float, default 0.95
        Confidence level of the interval.
    ci_method : {"bca", "percentile"}, default "bca"
        The interval.
    batch : int, optional
        Resamples per batch (memory bound).
    indices : BootstrapIndices, optional
        A shared index matrix over the C clusters, instead of one drawn from ``seed``.
    advance : callable, optional
        Called with each batch's size (progress).

    Returns
    -------
    ManyTestResult
        Per row: ``estimate``, ``pvalue``, ``ci_low``/``ci_high``.

    References
    ----------
    Field, C. A. & Welsh, A. H. (2007), "Bootstrapping clustered data", JRSS B 69(3):369–390.
    Efron, B. & Tibshirani, R. J. (1993), *An Introduction to the Bootstrap*, Chapman & Hall.

    Examples
    --------
    >>> from ranger_eval.stats.clustered import cluster_bootstrap_many
    >>> r = cluster_bootstrap_many([[0.1, 0.0, 0.2, 0.3]], [2, 2, 2, 2], n_resamples=999, seed=1)
    >>> r.estimate.round(4).tolist(), r.ci_low.round(4).tolist(), r.ci_high.round(4).tolist()
    ([0.075], [0.025], [0.125])
    """
    check_alternative(alternative)
    check_choice("ci_method", ci_method, _CI_METHODS)
    level = check_level(level)
    s = np.atleast_2d(np.asarray(sums, dtype=np.float64))
    m = np.asarray(sizes, dtype=np.float64).reshape(-1)
    c = m.size
    _need_clusters(c, "the cluster bootstrap")
    n = float(m.sum())
    idx = indices if indices is not None else BootstrapIndices(c, n_resamples, seed)
    assert isinstance(idx, BootstrapIndices)
    if idx.n != c:
        raise StatsInputError(f"indices draw {idx.n} clusters; the data have {c}")
    big_b = idx.n_resamples
    theta_b = _resampled_ratio_means(s, m, idx, batch, advance)
    theta = s.sum(axis=1) / n
    tol = _tolerance(np.abs(s).sum(axis=1) / n, c)
    jack = (s.sum(axis=1, keepdims=True) - s) / (n - m)[None, :]
    constant = np.ptp(s / m[None, :], axis=1) == 0  # all cluster means equal
    pvalue, lo, hi, theta = _bootstrap_core(s, theta_b, alternative, level, ci_method,
                                            clusters=(theta, tol, jack, constant))
    return ManyTestResult(
        test="cluster bootstrap", statistic=theta, pvalue=pvalue, alternative=alternative,
        n=int(n), method=ci_method, n_resamples=big_b, seed=idx.seed, estimate=theta.copy(),
        ci_low=lo, ci_high=hi, level=level, estimate_name="mean difference", n_clusters=c)


def cluster_bootstrap_means(
    values: object, codes: object | None = None, *, n_resamples: int = 2_000,
    seed: int | None = 0, batch: int | None = None,
    advance: Callable[[int], object] | None = None,
) -> np.ndarray:
    """Bootstrap means of every row of ``values`` (rows x n items), shape (n_resamples, rows),
    drawing whole clusters: ``codes`` (n ints 0..C-1, the unit of each item; None = one unit per
    item). Resample r draws cluster k w_rk times (one
    :class:`~ranger_eval.stats.resampling.BootstrapIndices` over the C clusters, shared by all
    rows, so rows stay paired) and its mean is the ratio sum_k w_rk S_k / sum_k w_rk m_k (S_k the
    row's sum over cluster k, m_k its items; Field & Welsh 2007; Cameron & Miller 2015, sec.
    VI.A), the resample of :func:`cluster_bootstrap_many`. With ``codes`` None these are exactly
    :meth:`BootstrapIndices.means <ranger_eval.stats.resampling.BootstrapIndices.means>` of
    the items (bit for bit). Fewer than 2 clusters is a :class:`StatsInputError`.

    Parameters
    ----------
    values : array_like
        rows × n items.
    codes : array_like of int, optional
        Each item's cluster code (None: the items are the units).
    n_resamples : int, default 2000
        Bootstrap resamples.
    seed : int or None, default 0
        Seed of the resampling.
    batch : int, optional
        Resamples per batch (memory bound).
    advance : callable, optional
        Called with each batch's size (progress).

    Returns
    -------
    numpy.ndarray
        Shape (n_resamples, rows).

    Raises
    ------
    StatsInputError
        Fewer than 2 clusters.

    References
    ----------
    Field, C. A. & Welsh, A. H. (2007), "Bootstrapping clustered data", JRSS B 69(3):369–390.

    Examples
    --------
    Two systems on the same resampled clusters (the rows stay paired):

    >>> import numpy as np
    >>> from ranger_eval.stats.clustered import cluster_bootstrap_means
    >>> values = np.array([[.8, .6, .9, .5, .7, .7, .6, .8], [.7, .6, .8, .5, .6, .7, .5, .6]])
    >>> m = cluster_bootstrap_means(values, np.array([0, 0, 1, 1, 2, 2, 3, 3]), n_resamples=3,
    ...                             seed=1)
    >>> m.round(4).tolist()
    [[0.7, 0.6], [0.7, 0.625], [0.7, 0.625]]
    """
    v = _as_matrix(values, "values")
    n = v.shape[1]
    if codes is None:
        return BootstrapIndices(n, n_resamples, seed).means(v, batch=batch, advance=advance)
    cd = np.asarray(codes).reshape(-1)
    if cd.size != n or not np.issubdtype(cd.dtype, np.integer):
        raise StatsInputError(f"codes must hold one integer cluster code per item: got "
                              f"{cd.size} codes of dtype {cd.dtype} for {n} items")
    c = int(cd.max()) + 1 if cd.size else 0
    _need_clusters(c, "the cluster bootstrap")
    s = cluster_sums(v, cd.astype(np.intp), c)
    m = np.bincount(cd, minlength=c).astype(np.float64)
    return _resampled_ratio_means(s, m, BootstrapIndices(c, n_resamples, seed), batch, advance)


def _resampled_ratio_means(s: np.ndarray, m: np.ndarray, idx: BootstrapIndices,
                           batch: int | None,
                           advance: Callable[[int], object] | None) -> np.ndarray:
    """The cluster bootstrap's resampled means, shape (resamples, rows): resample r draws
    cluster k w_rk times (``idx``: BootstrapIndices over the C clusters, in batches) and row i's
    mean is sum_k w_rk s_ik / sum_k w_rk m_k (``s``: rows × C cluster sums, ``m``: C sizes)."""
    st = np.ascontiguousarray(s.T)
    out = np.empty((idx.n_resamples, s.shape[0]))
    den = np.empty(idx.n_resamples)
    buf: np.ndarray | None = None
    for a, b in idx.batches(batch):
        if buf is None:
            buf = np.empty((b - a, s.shape[1]))
        w = idx.counts(a, b, out=buf)
        np.matmul(w, st, out=out[a:b])
        np.matmul(w, m, out=den[a:b])
        if advance is not None:
            advance(b - a)
    out /= den[:, None]
    return out


def cluster_permutation_test_many(
    sums: object, sizes: object, *, alternative: str = "two-sided", n_resamples: int = 10_000,
    seed: int | None = 0, batch: int | None = None, flips: object | None = None,
    advance: Callable[[int], object] | None = None,
) -> ManyTestResult:
    """Sign-flip permutation test of the mean difference flipping whole clusters, for every row
    of cluster sums (rows x C): the resampled statistics are sum_k s_k S_k with s in {-1, +1}^C
    from one :class:`~ranger_eval.stats.resampling.SignFlips` over C clusters (exact enumeration
    when 2^C <= B). Statistic: the mean difference sum S / n. With one item per cluster this is
    exactly :func:`~ranger_eval.stats.resampling.paired_permutation_test_many`.

    Parameters
    ----------
    sums : array_like
        Cluster sums of the differences, rows × C.
    sizes : array_like of int
        The C cluster sizes.
    alternative : {"two-sided", "greater", "less"}, default "two-sided"
        "greater" means ``x`` scores higher.
    n_resamples : int, default 10000
        Random sign flips (all 2^C when that is no more).
    seed : int or None, default 0
        Seed of the flips.
    batch : int, optional
        Flips per batch (memory bound).
    flips : SignFlips, optional
        Shared sign flips over the C clusters, instead of ones drawn from ``seed``.
    advance : callable, optional
        Called with each batch's size (progress).

    Returns
    -------
    ManyTestResult
        Per row: ``estimate`` (the mean difference), ``pvalue``.

    References
    ----------
    Cameron, A. C., Gelbach, J. B. & Miller, D. L. (2008), "Bootstrap-based improvements for
    inference with clustered errors", Review of Economics and Statistics 90(3):414–427.

    Examples
    --------
    Four clusters: all 16 sign patterns are enumerated.

    >>> from ranger_eval.stats.clustered import cluster_permutation_test_many
    >>> r = cluster_permutation_test_many([[0.1, 0.1, 0.1, 0.3]], [2, 2, 2, 2])
    >>> r.estimate.round(4).tolist(), r.pvalue.round(4).tolist()
    ([0.075], [0.125])
    """
    s = np.atleast_2d(np.asarray(sums, dtype=np.float64))
    m = np.asarray(sizes, dtype=np.float64).reshape(-1)
    c = m.size
    _need_clusters(c, "the cluster permutation test")
    sf = flips if flips is not None else SignFlips(c, n_resamples, seed)
    assert isinstance(sf, SignFlips)
    r = sf.test(s, alternative, batch, advance=advance)
    n = float(m.sum())
    est = s.sum(axis=1) / n
    import dataclasses

    return dataclasses.replace(r, test="cluster permutation test", statistic=est,
                               estimate=est.copy(), n=int(n), n_clusters=c)
