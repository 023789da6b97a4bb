"""Clustered McNemar tests: paired 0/1 scores whose items come in clusters (the cluster, not the
item, is the independent unit; notation of :mod:`ranger_eval.stats.clustered`, which re-exports
every name here).

* **Clustered McNemar tests** (:func:`clustered_mcnemar`) for paired 0/1 scores, the three
  chi-square statistics of R ``clust.bin.pair`` (Yang, Sun & Hardin 2010, Biometrical Journal
  52:638): with b_k, c_k the discordant counts of cluster k, S_k = b_k - c_k, n_k its pairs,
  n = sum n_k and dhat = sum S_k / n,

  - Obuchowski (1998, Statistics in Medicine 17:1495; YSH eq. 5, ``method = "obuchowski"``):
    X^2 = (C - 1)/C · (sum_k S_k)^2 / sum_k S_k^2;
  - Durkalski et al. (2003, Statistics in Medicine 22:2417; ``method = "durkalski"``), each
    cluster's proportions weighted equally: X^2 = (sum_k S_k/n_k)^2 / sum_k (S_k/n_k)^2;
  - Yang, Sun & Hardin's modified Obuchowski test (``method = "yang"``, clust.bin.pair's
    default), the variance the mean of the null and the centred one:
    X^2 = (C - 1)/C · (sum_k S_k)^2 / ((sum_k S_k^2 + sum_k (S_k - n_k dhat)^2) / 2);

  each ~ chi^2_1 under H0 (one-sided: z = sign(numerator) sqrt(X^2), normal tail).
  :func:`mcnemar_method` is YSH's recommendation (their sec. 5: Obuchowski's test is the most
  conservative; Durkalski's for unequal cluster sizes and fewer than 50 clusters, the modified
  Obuchowski test otherwise), the choice of ``compare``: measured at α = 0.05 on clustered null
  data with 20-200 unequal clusters of 2-20 pairs it rejects in 4.6-5.5 % of 10,000 replicates,
  where Obuchowski's rejects in 3.7-4.2 % with 20 clusters (benchmarks/cluster_validity.py).
"""
from __future__ import annotations

import numpy as np

from ._clusters import _need_clusters, cluster_codes, cluster_sums
from ._validation import (
    StatsInputError,
    check_alternative,
    check_choice,
)
from .results import ManyTestResult, TestResult
from .tests import _binary

__all__ = ["MCNEMAR_METHODS", "clustered_mcnemar", "clustered_mcnemar_from_sums", "mcnemar_method"]

#: The clustered McNemar statistics (R ``clust.bin.pair`` method names; module docstring).
MCNEMAR_METHODS = ("obuchowski", "durkalski", "yang")
#: Yang, Sun & Hardin's (2010) number of clusters from which the modified Obuchowski test is
#: preferred to Durkalski's when cluster sizes vary (their recommendation, "K >= 50").
YSH_MANY_CLUSTERS = 50


def mcnemar_method(sizes: object) -> str:
    """The clustered McNemar test Yang, Sun & Hardin (2010, Biometrical Journal 52:638, sec. 5)
    recommend for clusters of ``sizes`` pairs: ``"yang"`` (their modified Obuchowski test) when
    every cluster has the same size or there are at least 50 clusters, else ``"durkalski"``
    (Durkalski et al. 2003). Obuchowski's own test, the most conservative in their simulations,
    is never chosen.

    Parameters
    ----------
    sizes : array_like of int
        The pairs in each cluster.

    Returns
    -------
    str
        ``"yang"`` or ``"durkalski"``.

    References
    ----------
    Yang, Z., Sun, X. & Hardin, J. W. (2010), "A note on the tests for clustered matched-pair
    binary data", Biometrical Journal 52(5):638–652. Obuchowski, N. A. (1998), "On the
    comparison of correlated proportions for clustered data", Statistics in Medicine
    17:1495–1507. Durkalski, V. L. et al. (2003), "A non-parametric approach to testing for
    clustered matched-pair binary data", Statistics in Medicine 22:2417–2428.

    Examples
    --------
    >>> from ranger_eval.stats.clustered import mcnemar_method
    >>> mcnemar_method([3, 3, 3]), mcnemar_method([1, 2, 5]), mcnemar_method([1, 2] * 30)
    ('yang', 'durkalski', 'yang')
    """
    m = np.asarray(sizes).reshape(-1)
    if m.size >= YSH_MANY_CLUSTERS or np.all(m == m[0]):
        return "yang"
    return "durkalski"


def clustered_mcnemar_from_sums(sums: object, n: int | object, *,
                                alternative: str = "two-sided", method: str = "obuchowski"
                                ) -> ManyTestResult:
    """Clustered McNemar test for every row of cluster sums S_k = b_k - c_k (rows x C) of
    paired 0/1 differences, by ``method`` (module docstring; :data:`MCNEMAR_METHODS`):
    ``"obuchowski"`` X^2 = (C - 1)/C (sum S_k)^2 / sum S_k^2, ``"durkalski"`` and ``"yang"``
    need the cluster sizes: pass ``n`` as the C pair counts n_k (a number n, the total, is
    enough for Obuchowski's). p from chi^2_1 (one-sided: z = sign(sum) sqrt(X^2), normal
    tail); no discordant pair: statistic 0, p = 1. Estimate: sum S / n, the difference in
    proportions.

    Parameters
    ----------
    sums : array_like
        Cluster sums b_k − c_k, rows × C.
    n : int or array_like of int
        The total number of pairs, or the C pair counts n_k (needed by "durkalski"/"yang").
    alternative : {"two-sided", "greater", "less"}, default "two-sided"
        "greater" means ``x`` scores higher.
    method : {"obuchowski", "durkalski", "yang"}, default "obuchowski"
        The statistic.

    Returns
    -------
    ManyTestResult
        Per row: ``statistic`` X², ``pvalue``, ``estimate`` (the difference in proportions).

    Raises
    ------
    StatsInputError
        Fewer than 2 clusters, mismatched shapes, a bad choice.

    References
    ----------
    Yang, Z., Sun, X. & Hardin, J. W. (2010), "A note on the tests for clustered matched-pair
    binary data", Biometrical Journal 52(5):638–652. Obuchowski, N. A. (1998), "On the
    comparison of correlated proportions for clustered data", Statistics in Medicine
    17:1495–1507. Durkalski, V. L. et al. (2003), "A non-parametric approach to testing for
    clustered matched-pair binary data", Statistics in Medicine 22:2417–2428.

    Examples
    --------
    >>> from ranger_eval.stats.clustered import clustered_mcnemar_from_sums
    >>> r = clustered_mcnemar_from_sums([[1, 1, 0, 1, 1]], 10)
    >>> r.statistic.round(4).tolist(), r.pvalue.round(4).tolist(), r.estimate.tolist()
    ([3.2], [0.0736], [0.4])
    """
    check_alternative(alternative)
    from scipy.special import chdtrc, ndtr


    check_choice("method", method, MCNEMAR_METHODS)
    s = np.atleast_2d(np.asarray(sums, dtype=np.float64))
    c = s.shape[1]
    _need_clusters(c, "the clustered McNemar test")
    sizes = np.asarray(n, dtype=np.float64).reshape(-1)
    if sizes.size == c:
        total_n = float(sizes.sum())
    elif sizes.size == 1 and method == "obuchowski":
        total_n = float(sizes[0])
    else:
        raise StatsInputError(
            f"n: method {method!r} needs the {c} cluster sizes (got {sizes.size} number(s))"
            if sizes.size == 1 else f"n holds {sizes.size} cluster sizes; sums has {c} clusters")
    tot = s.sum(axis=1)
    if method == "durkalski":
        w = s / sizes[None, :]
        num = w.sum(axis=1)
        den = np.einsum("ij,ij->i", w, w)
        factor = 1.0
    else:
        num = tot
        den = np.einsum("ij,ij->i", s, s)
        factor = (c - 1.0) / c
        if method == "yang":
            dev = s - sizes[None, :] * (tot / total_n)[:, None]
            den = (den + np.einsum("ij,ij->i", dev, dev)) / 2.0
    none = den == 0.0  # no discordant pair (Yang's den is 0 only then too)
    with np.errstate(divide="ignore", invalid="ignore"):
        x2 = factor * num * num / den
    x2 = np.where(none, 0.0, x2)
    if alternative == "two-sided":
        stat = x2
        p = chdtrc(1.0, x2)
    else:
        stat = np.sign(num) * np.sqrt(x2)
        p = ndtr(-stat) if alternative == "greater" else ndtr(stat)
    p = np.where(none, 1.0, p)
    return ManyTestResult(
        test="clustered McNemar test", statistic=np.asarray(stat, dtype=np.float64),
        pvalue=np.asarray(p, dtype=np.float64), alternative=alternative, n=int(total_n),
        method=method.capitalize(), estimate=tot / total_n,
        estimate_name="difference in proportions", n_clusters=c)


def clustered_mcnemar(
    x: object, y: object, *, clusters: object, alternative: str = "two-sided",
    method: str = "obuchowski",
) -> TestResult:
    """Clustered McNemar test of paired 0/1 outcomes, as R ``clust.bin.pair(ak, bk, ck, dk,
    method = method)`` (module docstring): ``"obuchowski"`` (default; Obuchowski 1998),
    ``"durkalski"`` (Durkalski et al. 2003), ``"yang"`` (Yang, Sun & Hardin 2010), or
    ``"auto"``: :func:`mcnemar_method` of the cluster sizes, as ``compare`` chooses.

    Parameters
    ----------
    x, y : array_like of {0, 1}
        Paired binary outcomes.
    clusters : array_like
        One cluster id per pair.
    alternative : {"two-sided", "greater", "less"}, default "two-sided"
        "greater" means ``x`` scores higher.
    method : {"obuchowski", "durkalski", "yang", "auto"}, default "obuchowski"
        The statistic.

    Returns
    -------
    TestResult
        ``statistic`` X², ``pvalue``, ``estimate`` (the difference in proportions), ``method``.

    Raises
    ------
    StatsInputError
        Non-binary values, unequal lengths, a missing cluster id, fewer than 2 clusters.

    References
    ----------
    Yang, Z., Sun, X. & Hardin, J. W. (2010), "A note on the tests for clustered matched-pair
    binary data", Biometrical Journal 52(5):638–652. Obuchowski, N. A. (1998), "On the
    comparison of correlated proportions for clustered data", Statistics in Medicine
    17:1495–1507. Durkalski, V. L. et al. (2003), "A non-parametric approach to testing for
    clustered matched-pair binary data", Statistics in Medicine 22:2417–2428.

    Examples
    --------
    >>> from ranger_eval.stats.clustered import clustered_mcnemar
    >>> x = [1, 1, 0, 1, 1, 0, 1, 1, 1, 0]
    >>> y = [0, 1, 0, 0, 1, 0, 0, 1, 0, 0]
    >>> r = clustered_mcnemar(x, y, clusters=[1, 1, 2, 2, 3, 3, 4, 4, 5, 5])
    >>> round(r.statistic, 4), round(r.pvalue, 4), round(r.estimate, 4), r.method
    (3.2, 0.0736, 0.4, 'Obuchowski')
    """
    check_choice("method", method, (*MCNEMAR_METHODS, "auto"))
    xa, ya = _binary(x, "x"), _binary(y, "y")
    if xa.size != ya.size:
        raise StatsInputError(f"paired test needs equal lengths: x has {xa.size} items, y has "
                              f"{ya.size}")
    d = xa.astype(np.float64) - ya.astype(np.float64)
    codes, c = cluster_codes(clusters, d.size)
    sizes = np.bincount(codes, minlength=c)
    if method == "auto":
        method = mcnemar_method(sizes)
    return clustered_mcnemar_from_sums(cluster_sums(d, codes, c), sizes,
                                       alternative=alternative, method=method)[0]
