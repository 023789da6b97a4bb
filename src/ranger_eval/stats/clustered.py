"""Cluster-robust tests: items that come in clusters (questions about one passage, one document,
one prompt template) are not independent, so every test here treats the *cluster* as the
independent unit.

Notation: items i = 1..n in clusters k = 1..C (C >= 2), m_k items in cluster k; for paired data
d_i = x_i - y_i and S_k = sum_{i in k} d_i its cluster sum.

* **CR1 t test of one mean or of a paired difference** (:func:`clustered_mean_test`,
  :func:`clustered_paired_ttest`, :func:`clustered_ttest_many`): the estimate is
  dbar = sum d / n; the cluster-robust (Liang & Zeger 1986; "CR1", Cameron & Miller 2015,
  J. Human Resources 50:317, eq. 11 with the factor c = C/(C - 1) · (n - 1)/(n - K), K = 1)
  variance is

      V = C/(C - 1) · sum_k (S_k - m_k dbar)^2 / n^2,

  and t = dbar / sqrt(V) has C - 1 degrees of freedom. For one mean this is exactly Inspect's
  ``stderr(cluster=...)`` and ``ci(cluster=...)``; for a paired difference it equals statsmodels'
  ``OLS(d, ones).fit(cov_type="cluster", cov_kwds={"groups": c})`` and R
  ``sandwich::vcovCL(lm(d ~ 1), cluster = ~c, type = "HC1")``. When every cluster has one item,
  V = s_d^2 / n and df = n - 1: the paired t test.
* **CR1 t test of an unpaired difference** (:func:`clustered_unpaired_ttest`): the regression of
  the score on an indicator of system x, y_i = b0 + b1 [i in x] + e_i; b1 = mean(x) - mean(y) and
  its CR1 variance (K = 2)

      V = G/(G - 1) · (N - 1)/(N - 2) · sum_g (sum_{i in g, x} e_i/n_x - sum_{i in g, y} e_i/n_y)^2

  over the G clusters of both samples (e_i the deviation from its own sample's mean), t on G - 1
  df: R ``vcovCL(lm(v ~ s), cluster = ~c, type = "HC1")``, statsmodels ``cov_type="cluster"``.
* **Clustered McNemar tests** (:func:`clustered_mcnemar`, :func:`mcnemar_method`) for paired 0/1
  scores: Obuchowski, Durkalski et al. and Yang–Sun–Hardin (R ``clust.bin.pair``), in
  :mod:`ranger_eval.stats.clustered_mcnemar`.
* **Cluster bootstrap** (:func:`cluster_bootstrap_many`, :func:`cluster_bootstrap_means`) and
  **cluster sign-flip permutation test** (:func:`cluster_permutation_test_many`), in
  :mod:`ranger_eval.stats.clustered_resampling`.
* **Clustered Wilcoxon signed-rank test** (:func:`clustered_signed_rank`) of Rosner, Glynn & Lee
  (2006, Biometrics 62:185), as R ``clusrank::clusWilcox.test(d, cluster = c, paired = TRUE,
  method = "rgl")`` (its default asymptotic version): zero differences are dropped, the others
  ranked by |d| over all clusters (average ranks) and signed, sr_i = sign(d_i) R_i. With equal
  cluster sizes T = sum sr_i, Var T = sum_k (sum_{i in k} sr_i)^2; otherwise the weighted
  statistic T = sum_k w_k mbar_k, Var T = sum_k w_k^2 mbar_k^2 with mbar_k the cluster mean of
  sr, w_k = m_k / (s^2 (1 + (m_k - 1) rho)) and rho the one-way ANOVA intraclass correlation
  of sr (truncated at 0, small-sample corrected rho (1 + (1 - rho^2)/(C - 2.5)), at most 1);
  Z = T / sqrt(Var T) against the normal distribution. When every signed rank is equal (all
  non-zero differences of one sign and size) the intraclass correlation is 0/0 and clusrank
  stops with an error; here the unweighted form is used, Z = sum_k S_k / sqrt(sum_k S_k^2).

The clustered sign and rank-sum tests are not implemented (:data:`NOT_CLUSTERED`).
"""
from __future__ import annotations

import math

import numpy as np

from ._clusters import _need_clusters, cluster_codes, cluster_sums
from ._scale import unscale
from ._validation import (
    StatsInputError,
    as_vector,
    check_alternative,
    check_choice,
    check_level,
    paired_scaled,
)
from .clustered_mcnemar import (
    MCNEMAR_METHODS,
    clustered_mcnemar,
    clustered_mcnemar_from_sums,
    mcnemar_method,
)
from .clustered_resampling import (
    cluster_bootstrap_many,
    cluster_bootstrap_means,
    cluster_permutation_test_many,
)
from .many import _degenerate_t, _one_sided, average_ranks
from .results import ManyTestResult, TestResult

__all__ = [
    "NOT_CLUSTERED",
    "VCOVS",
    "bell_mccaffrey_df",
    "bell_mccaffrey_df_rows",
    "cluster_codes",
    "cluster_sums",
    "clustered_mean_test",
    "clustered_paired_ttest",
    "clustered_ttest_many",
    "clustered_ttest_from_sums",
    "clustered_unpaired_ttest",
    "clustered_mcnemar",
    "clustered_mcnemar_from_sums",
    "MCNEMAR_METHODS",
    "mcnemar_method",
    "clustered_signed_rank",
    "cluster_bootstrap_many",
    "cluster_bootstrap_means",
    "cluster_permutation_test_many",
]

#: Tests without a cluster-robust version: test -> (the clustered test that exists elsewhere,
#: the test to use instead, why that one).
NOT_CLUSTERED: dict[str, tuple[str, str, str]] = {
    "sign": (
        "the clustered sign test (Rosner, Glynn & Lee 2003; R clusrank) is not implemented",
        "permutation", "signs of whole clusters flipped; or test 'paired-t', the cluster-robust t"),
    "mannwhitney": (
        "the clustered rank-sum test (Datta & Satten 2005; R clusrank::clusWilcox.test) is not "
        "implemented", "welch", "the cluster-robust CR1 t of the difference in means"),
}


def _t_result(est: np.ndarray, se: np.ndarray, df: np.ndarray, alternative: str, level: float
              ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(t, p, low, high) of t = est/se on ``df`` degrees of freedom (``scipy.special.stdtr`` /
    ``stdtrit``); se = 0 gives the limits of :func:`~ranger_eval.stats.tests.degenerate_t`."""
    from scipy import special


    with np.errstate(divide="ignore", invalid="ignore"):
        t = est / se
    if alternative == "two-sided":
        p = 2 * special.stdtr(df, -np.abs(t))
        q = special.stdtrit(df, 1 - (1 - level) / 2)
        lo, hi = est - q * se, est + q * se
    else:
        p = special.stdtr(df, -t) if alternative == "greater" else special.stdtr(df, t)
        q = special.stdtrit(df, level)
        lo, hi = _one_sided(est - q * se, est + q * se, alternative)
    t, p = np.array(t, dtype=np.float64), np.array(p, dtype=np.float64)
    zero = se == 0.0
    if zero.any():
        t[zero], p[zero] = _degenerate_t(est[zero], alternative)
        lo, hi = np.array(lo, dtype=np.float64), np.array(hi, dtype=np.float64)
        lo[zero], hi[zero] = _one_sided(est[zero], est[zero], alternative)
    return t, p, np.asarray(lo, dtype=np.float64), np.asarray(hi, dtype=np.float64)


VCOVS = ("CR1", "CR2")


def bell_mccaffrey_df(sizes: object) -> float:
    """Bell & McCaffrey (2002) Satterthwaite degrees of freedom of the CR2 variance of a mean
    (intercept-only regression) with cluster sizes m_k, n = sum m_k, under the working model of
    independent homoskedastic errors (Pustejovsky & Tipton 2018, J. Bus. Econ. Stat. 36:672,
    as R ``clubSandwich::coef_test(vcov = "CR2", test = "Satterthwaite")``)::

        G_jk = a_j a_k (δ_jk m_j − m_j m_k / n),  a_k = (1/n) (1 − m_k/n)^(-1/2),
        df = (tr G)^2 / ||G||_F^2.

    G is the Gram matrix of the vectors g_k = (I − H) A_k 1_k / n whose squared projections of
    the data sum to V_CR2. One item per cluster gives df = n − 1 (the paired t).

    Parameters
    ----------
    sizes : array_like of int
        The cluster sizes m_k.

    Returns
    -------
    float
        The Satterthwaite degrees of freedom.

    References
    ----------
    Bell, R. M. & McCaffrey, D. F. (2002), "Bias reduction in standard errors for linear
    regression with multi-stage samples", Survey Methodology 28(2):169–181. Pustejovsky, J. E.
    & Tipton, E. (2018), "Small-sample methods for cluster-robust variance estimation and
    hypothesis testing in fixed effects models", J. Business & Economic Statistics 36(4):672–683.

    Examples
    --------
    Equal clusters give C − 1; unequal ones fewer:

    >>> from ranger_eval.stats.clustered import bell_mccaffrey_df
    >>> round(bell_mccaffrey_df([2, 2, 2, 2]), 4), round(bell_mccaffrey_df([1, 2, 5, 8]), 4)
    (3.0, 1.8599)
    """
    m = np.asarray(sizes, dtype=np.float64).reshape(-1)
    n = float(m.sum())
    a = 1.0 / (n * np.sqrt(1.0 - m / n))
    return float(bell_mccaffrey_df_rows(((a[None, :], m[None, :], np.array([n])),))[0])


def bell_mccaffrey_df_rows(blocks: tuple[tuple[np.ndarray, np.ndarray, np.ndarray], ...]
                           ) -> np.ndarray:
    """Bell–McCaffrey (Satterthwaite) df of a CR2 variance, row by row, for an estimate that is a
    weighted sum of the intercepts of B independent blocks of items (one intercept each, a block
    diagonal hat matrix; e.g. the labelled and unlabelled items of a prediction-powered mean).
    Block b gives per row its cluster sizes m_bk (rows × C), its item count n_b (rows) and the
    weights a_bk (rows × C) of :func:`bell_mccaffrey_df` (a_bk = w_b (1 − m_bk/n_b)^(-1/2),
    w_b the block's coefficient over n_b; 0 where the cluster holds the whole block, the
    Moore–Penrose root as clubSandwich); with Φ = I (Pustejovsky & Tipton 2018, eq. 11)::

        G = Σ_b diag(a_b) (diag(m_b) − m_b m_b'/n_b) diag(a_b) = D − Σ_b v_b v_b',
        D = Σ_b a_b² m_b,  v_b = a_b m_b / √n_b,   df = (tr G)² / ||G||_F²,

    in O(C) per row: tr G = Σ D − Σ_b |v_b|², ||G||_F² = Σ D² − 2 Σ_b Σ_k D_k v_bk² +
    Σ_b Σ_b' (v_b'v_b')². One block of all rows is :func:`bell_mccaffrey_df`.

    Parameters
    ----------
    blocks : tuple of (a, m, n)
        Per block: the weights a_bk (rows × C), the cluster sizes m_bk (rows × C) and the item
        counts n_b (rows).

    Returns
    -------
    numpy.ndarray
        One df per row.

    References
    ----------
    Bell, R. M. & McCaffrey, D. F. (2002), "Bias reduction in standard errors for linear
    regression with multi-stage samples", Survey Methodology 28(2):169–181. Pustejovsky, J. E.
    & Tipton, E. (2018), "Small-sample methods for cluster-robust variance estimation and
    hypothesis testing in fixed effects models", J. Business & Economic Statistics 36(4):672–683.

    Examples
    --------
    One block of four clusters of 2 items is :func:`bell_mccaffrey_df`:

    >>> import numpy as np
    >>> from ranger_eval.stats.clustered import bell_mccaffrey_df_rows
    >>> m = np.array([[2.0, 2.0, 2.0, 2.0]])
    >>> a = 1.0 / (8 * np.sqrt(1 - m / 8))
    >>> bell_mccaffrey_df_rows(((a, m, np.array([8.0])),)).round(4).tolist()
    [3.0]
    """
    big_d = sum(a * a * m for a, m, _ in blocks)
    vs = [a * m / np.sqrt(np.maximum(n, 1.0))[:, None] for a, m, n in blocks]
    trace = big_d.sum(axis=1) - sum(np.einsum("ij,ij->i", v, v) for v in vs)
    fro = np.einsum("ij,ij->i", big_d, big_d)
    for i, v in enumerate(vs):
        fro -= 2.0 * np.einsum("ij,ij,ij->i", big_d, v, v)
        for w in vs[i:]:
            cross = np.einsum("ij,ij->i", v, w) ** 2
            fro += cross if w is v else 2.0 * cross
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.asarray(trace * trace / fro, dtype=np.float64)


def clustered_ttest_from_sums(
    sums: object, sizes: object, *, alternative: str = "two-sided", level: float = 0.95,
    vcov: str = "CR1",
) -> ManyTestResult:
    """Cluster-robust t test of the mean for every row of cluster sums ``sums`` (rows x C) with
    cluster sizes ``sizes`` (C), dbar = sum_k S_k / n:

    * ``vcov="CR1"``: V = C/(C - 1) sum_k (S_k - m_k dbar)^2 / n^2 and t on C - 1 df (module
      docstring; sandwich ``vcovCL(type = "HC1")``, statsmodels, Inspect);
    * ``vcov="CR2"``: the bias-reduced linearisation of Bell & McCaffrey (2002),
      V = sum_k (S_k - m_k dbar)^2 / (1 - m_k/n) / n^2 (for an intercept-only model
      A_k = (I - H_kk)^(-1/2) multiplies the cluster's residual sum by (1 - m_k/n)^(-1/2)), with
      the Satterthwaite df of :func:`bell_mccaffrey_df` — R ``clubSandwich::coef_test(lm(d ~ 1),
      vcov = "CR2", test = "Satterthwaite")``. Fewer clusters or unequal sizes give fewer df
      than C - 1, which keeps the test's size near alpha where CR1 with t(C - 1) over-rejects
      (20 clusters of 2-20 items, 10,000 null replicates: CR1 5.6-6.7 %, CR2 4.9-5.9 % at
      alpha = 5 %; benchmarks/cluster_validity.py).

    Both reduce to the paired t test when every cluster has one item. ``n_clusters`` and
    ``se`` are set; ``method`` is the ``vcov``.

    Parameters
    ----------
    sums : array_like
        Cluster sums of the differences, rows × C.
    sizes : array_like of int
        The C cluster sizes.
    alternative : {"two-sided", "greater", "less"}, default "two-sided"
        "greater" means ``x`` scores higher.
    level : float, default 0.95
        Confidence level of the interval.
    vcov : {"CR1", "CR2"}, default "CR1"
        The cluster-robust variance.

    Returns
    -------
    ManyTestResult
        Per row: ``statistic``, ``pvalue``, ``estimate``, ``se``, ``ci_low``/``ci_high``,
        ``df``; ``n_clusters``.

    Raises
    ------
    StatsInputError
        Fewer than 2 clusters, mismatched shapes, a bad choice.

    References
    ----------
    Cameron, A. C. & Miller, D. L. (2015), "A practitioner's guide to cluster-robust
    inference", Journal of Human Resources 50(2):317–372.
    Bell, R. M. & McCaffrey, D. F. (2002), "Bias reduction in standard errors for linear
    regression with multi-stage samples", Survey Methodology 28(2):169–181. Pustejovsky, J. E.
    & Tipton, E. (2018), "Small-sample methods for cluster-robust variance estimation and
    hypothesis testing in fixed effects models", J. Business & Economic Statistics 36(4):672–683.

    Examples
    --------
    >>> from ranger_eval.stats.clustered import clustered_ttest_from_sums
    >>> r = clustered_ttest_from_sums([[0.1, 0.1, 0.1, 0.3]], [2, 2, 2, 2])
    >>> r.estimate.round(4).tolist(), r.se.round(4).tolist(), r.pvalue.round(4).tolist()
    ([0.075], [0.025], [0.0577])
    """
    check_alternative(alternative)
    level = check_level(level)

    check_choice("vcov", vcov, VCOVS)
    s = np.atleast_2d(np.asarray(sums, dtype=np.float64))
    m = np.asarray(sizes, dtype=np.float64).reshape(-1)
    c = m.size
    if s.shape[1] != c:
        raise StatsInputError(f"sums has {s.shape[1]} clusters per row; sizes has {c}")
    _need_clusters(c, "a cluster-robust t test")
    n = float(m.sum())
    est = s.sum(axis=1) / n
    dev = s - m[None, :] * est[:, None]
    if vcov == "CR1":
        se = np.sqrt(c / (c - 1.0) * np.einsum("ij,ij->i", dev, dev)) / n
        df = np.full(est.shape, c - 1.0)
    else:
        w = 1.0 / (1.0 - m / n)
        se = np.sqrt(np.einsum("ij,ij,j->i", dev, dev, w)) / n
        df = np.full(est.shape, bell_mccaffrey_df(m))
    t, p, lo, hi = _t_result(est, se, df, alternative, level)
    return ManyTestResult(
        test="cluster-robust t-test", statistic=t, pvalue=p, alternative=alternative,
        n=int(n), method=vcov, estimate=est, ci_low=lo, ci_high=hi, level=level, df=df,
        estimate_name="mean difference", se=se, n_clusters=c)


def clustered_ttest_many(
    diffs: object, clusters: object, *, alternative: str = "two-sided", level: float = 0.95,
    vcov: str = "CR1",
) -> ManyTestResult:
    """:func:`clustered_paired_ttest` of every row of ``diffs`` (pairs x n) with one cluster id
    per column, from the rows' cluster sums (:func:`clustered_ttest_from_sums`).

    Parameters
    ----------
    diffs : array_like
        Paired differences, pairs × n items.
    clusters : array_like
        One cluster id per item (column).
    alternative : {"two-sided", "greater", "less"}, default "two-sided"
        "greater" means ``x`` scores higher.
    level : float, default 0.95
        Confidence level of the interval.
    vcov : {"CR1", "CR2"}, default "CR1"
        The cluster-robust variance.

    Returns
    -------
    ManyTestResult
        One test per row.

    Raises
    ------
    StatsInputError
        A non-finite difference, a missing cluster id, fewer than 2 clusters.

    References
    ----------
    Cameron, A. C. & Miller, D. L. (2015), "A practitioner's guide to cluster-robust
    inference", Journal of Human Resources 50(2):317–372.

    Examples
    --------
    >>> import numpy as np
    >>> from ranger_eval.stats.clustered import clustered_ttest_many
    >>> d = np.array([[.1, 0, .1, 0, .1, 0, .1, .2], [0, .1, 0, .1, .1, 0, .2, .1]])
    >>> r = clustered_ttest_many(d, ["p1", "p1", "p2", "p2", "p3", "p3", "p4", "p4"])
    >>> r.pvalue.round(4).tolist(), r.n_clusters
    ([0.0577, 0.0577], 4)
    """
    d = np.atleast_2d(np.asarray(diffs, dtype=np.float64))
    if not np.isfinite(d).all():
        r, i = (int(v) for v in np.argwhere(~np.isfinite(d))[0])
        raise StatsInputError(f"diffs contains a non-finite value at pair {r}, item {i}")
    codes, c = cluster_codes(clusters, d.shape[1])
    sizes = np.bincount(codes, minlength=c)
    return clustered_ttest_from_sums(cluster_sums(d, codes, c), sizes, alternative=alternative,
                                     level=level, vcov=vcov)


def _one(r: ManyTestResult, scale_exp: int, test: str) -> TestResult:
    one = r[0]
    if scale_exp == 0:
        return one
    import dataclasses

    est, lo, hi, se = (unscale(v, scale_exp, w) if v is not None and math.isfinite(v) else v
                       for v, w in ((one.estimate, "mean difference"),
                                    (one.ci_low, "lower confidence bound"),
                                    (one.ci_high, "upper confidence bound"),
                                    (one.se, "standard error")))
    return dataclasses.replace(one, test=test, estimate=est, ci_low=lo, ci_high=hi, se=se)


def clustered_paired_ttest(
    x: object, y: object | None = None, *, clusters: object, alternative: str = "two-sided",
    level: float = 0.95, vcov: str = "CR1",
) -> TestResult:
    """Cluster-robust (CR1) paired t test of mean(x - y) = 0 with t on C - 1 df (module
    docstring); equals statsmodels ``OLS(d, ones).fit(cov_type="cluster")`` and R
    ``sandwich::vcovCL(lm(d ~ 1), cluster = ~c, type = "HC1")``; with one item per cluster,
    :func:`~ranger_eval.stats.tests.paired_ttest`. ``y=None`` tests the mean of ``x``.
    ``vcov="CR2"``: Bell–McCaffrey CR2 with Satterthwaite df (:func:`clustered_ttest_from_sums`;
    R clubSandwich), the version ``compare`` uses.

    Parameters
    ----------
    x, y : array_like
        Paired scores (``y=None``: ``x`` is the differences).
    clusters : array_like
        One cluster id per pair.
    alternative : {"two-sided", "greater", "less"}, default "two-sided"
        "greater" means ``x`` scores higher.
    level : float, default 0.95
        Confidence level of the interval.
    vcov : {"CR1", "CR2"}, default "CR1"
        The cluster-robust variance.

    Returns
    -------
    TestResult
        ``statistic`` t, ``pvalue``, ``df`` (C − 1 for CR1), ``estimate``, ``se``,
        ``ci_low``/``ci_high``, ``n_clusters``.

    Raises
    ------
    StatsInputError
        Unequal lengths, non-finite scores, a missing cluster id, fewer than 2 clusters.

    References
    ----------
    Liang, K.-Y. & Zeger, S. L. (1986), "Longitudinal data analysis using generalized linear
    models", Biometrika 73(1):13–22.
    Cameron, A. C. & Miller, D. L. (2015), "A practitioner's guide to cluster-robust
    inference", Journal of Human Resources 50(2):317–372.

    Examples
    --------
    >>> from ranger_eval.stats.clustered import clustered_paired_ttest
    >>> x = [.8, .6, .9, .5, .7, .7, .6, .8]
    >>> y = [.7, .6, .8, .5, .6, .7, .5, .6]
    >>> clusters = ["p1", "p1", "p2", "p2", "p3", "p3", "p4", "p4"]
    >>> r = clustered_paired_ttest(x, y, clusters=clusters)
    >>> round(r.statistic, 4), round(r.pvalue, 4), r.df, round(r.estimate, 4), round(r.se, 4)
    (3.0, 0.0577, 3.0, 0.075, 0.025)
    """
    check_alternative(alternative)
    level = check_level(level)
    d, e = paired_scaled(x, y)  # x - y = d · 2^e: t and p are scale free
    codes, c = cluster_codes(clusters, d.size)
    r = clustered_ttest_from_sums(cluster_sums(d, codes, c), np.bincount(codes, minlength=c),
                                  alternative=alternative, level=level, vcov=vcov)
    return _one(r, e, r.test)


def clustered_mean_test(
    x: object, *, clusters: object, value: float = 0.0, alternative: str = "two-sided",
    level: float = 0.95,
) -> TestResult:
    """Mean of one system with its cluster-robust (CR1) standard error ``se`` and the t interval
    on C - 1 df; tests mean = ``value``. ``se`` is exactly Inspect's ``stderr(cluster=...)``
    (Miller 2024, "Adding Error Bars to Evals", appendix A, with the finite-cluster factor
    C/(C - 1)) and the interval Inspect's ``ci(cluster=...)``.

    Parameters
    ----------
    x : array_like
        The system's scores.
    clusters : array_like
        One cluster id per score.
    value : float, default 0.0
        The mean under the null hypothesis.
    alternative : {"two-sided", "greater", "less"}, default "two-sided"
        "greater" means the mean exceeds ``value``.
    level : float, default 0.95
        Confidence level of the interval.

    Returns
    -------
    TestResult
        ``estimate`` the mean, ``se``, ``ci_low``/``ci_high``, ``statistic``, ``pvalue``,
        ``df`` = C − 1.

    Raises
    ------
    StatsInputError
        Non-finite scores, a missing cluster id, fewer than 2 clusters.

    References
    ----------
    Miller, E. (2024), "Adding error bars to evals: A statistical approach to language model
    evaluations", arXiv:2411.00640.
    Cameron, A. C. & Miller, D. L. (2015), "A practitioner's guide to cluster-robust
    inference", Journal of Human Resources 50(2):317–372.

    Examples
    --------
    >>> from ranger_eval.stats.clustered import clustered_mean_test
    >>> y = [.7, .6, .8, .5, .6, .7, .5, .6]
    >>> r = clustered_mean_test(y, clusters=["p1", "p1", "p2", "p2", "p3", "p3", "p4", "p4"])
    >>> round(r.estimate, 4), round(r.se, 4), round(r.ci_low, 4), round(r.ci_high, 4)
    (0.625, 0.025, 0.5454, 0.7046)
    """
    xa = as_vector(x, "x", 2)
    r = clustered_paired_ttest(xa - value if value else xa, None, clusters=clusters,
                               alternative=alternative, level=level)
    import dataclasses

    shift = float(value)
    return dataclasses.replace(
        r, test="cluster-robust t-test (one mean)", estimate_name="mean",
        estimate=None if r.estimate is None else r.estimate + shift,
        ci_low=None if r.ci_low is None else r.ci_low + shift,
        ci_high=None if r.ci_high is None else r.ci_high + shift)


def clustered_unpaired_ttest(
    x: object, y: object, *, clusters_x: object, clusters_y: object,
    alternative: str = "two-sided", level: float = 0.95,
) -> TestResult:
    """Cluster-robust (CR1) test of mean(x) - mean(y) = 0 for independent samples: the
    regression of the score on an indicator of ``x`` with R ``vcovCL(type = "HC1")`` /
    statsmodels ``cov_type="cluster"`` standard errors, t on G - 1 df (G clusters over both
    samples; module docstring). Cluster ids of the two samples share one namespace (a cluster
    may hold items of both).

    Parameters
    ----------
    x, y : array_like
        The two independent samples.
    clusters_x, clusters_y : array_like
        One cluster id per value of each sample (one namespace).
    alternative : {"two-sided", "greater", "less"}, default "two-sided"
        "greater" means ``x`` scores higher.
    level : float, default 0.95
        Confidence level of the interval.

    Returns
    -------
    TestResult
        ``estimate`` mean(x) − mean(y), ``se``, ``statistic``, ``pvalue``, ``df`` = G − 1,
        ``ci_low``/``ci_high``, ``n_clusters``.

    Raises
    ------
    StatsInputError
        Fewer than 3 values, id counts that do not match, fewer than 2 clusters.

    References
    ----------
    Cameron, A. C. & Miller, D. L. (2015), "A practitioner's guide to cluster-robust
    inference", Journal of Human Resources 50(2):317–372.

    Examples
    --------
    >>> from ranger_eval.stats.clustered import clustered_unpaired_ttest
    >>> x = [.8, .6, .9, .5, .7, .7, .6, .8]
    >>> y = [.7, .6, .8, .5, .6, .7, .5, .6]
    >>> clusters = ["p1", "p1", "p2", "p2", "p3", "p3", "p4", "p4"]
    >>> r = clustered_unpaired_ttest(x, y, clusters_x=clusters, clusters_y=clusters)
    >>> round(r.estimate, 4), round(r.se, 4), round(r.pvalue, 4), r.df
    (0.075, 0.0259, 0.0626, 3.0)
    """
    check_alternative(alternative)
    level = check_level(level)
    xa = as_vector(x, "x", 1)
    ya = as_vector(y, "y", 1)
    if xa.size + ya.size < 3:
        raise StatsInputError(f"an unpaired test needs at least 3 values; got {xa.size} + "
                              f"{ya.size}")
    cx = np.asarray(clusters_x, dtype=object).reshape(-1)
    cy = np.asarray(clusters_y, dtype=object).reshape(-1)
    if cx.size != xa.size or cy.size != ya.size:
        raise StatsInputError(f"clusters_x/clusters_y must hold one id per value: {cx.size} for "
                              f"{xa.size}, {cy.size} for {ya.size}")
    codes, g = cluster_codes(np.concatenate([cx, cy]), xa.size + ya.size)
    _need_clusters(g, "a cluster-robust t test")
    nx, ny = xa.size, ya.size
    big_n = nx + ny
    est = float(xa.mean() - ya.mean())
    psi = np.concatenate([(xa - xa.mean()) / nx, -(ya - ya.mean()) / ny])
    s = np.bincount(codes, weights=psi, minlength=g)
    se = math.sqrt(g / (g - 1.0) * (big_n - 1.0) / (big_n - 2.0) * float(s @ s))
    t, p, lo, hi = _t_result(np.array([est]), np.array([se]), np.array([g - 1.0]), alternative,
                             level)
    return TestResult(
        test="cluster-robust t-test (unpaired)", statistic=float(t[0]), pvalue=float(p[0]),
        alternative=alternative, n=nx, n_y=ny, estimate=est, ci_low=float(lo[0]),
        ci_high=float(hi[0]), level=level, df=g - 1.0, method="CR1",
        estimate_name="difference in means", se=se, n_clusters=g)


def clustered_signed_rank(
    x: object, y: object | None = None, *, clusters: object, alternative: str = "two-sided",
) -> TestResult:
    """Clustered Wilcoxon signed-rank test of Rosner, Glynn & Lee (2006) on d = x - y (module
    docstring), equal to R ``clusrank::clusWilcox.test(x, y, cluster = c, paired = TRUE,
    method = "rgl")``. ``statistic`` is Z; ``estimate`` the median difference; ``n`` counts all
    pairs, ``n_clusters`` the clusters with a non-zero difference. No non-zero difference:
    Z = 0, p = 1. Fewer than 2 clusters with non-zero differences: :class:`StatsInputError`.

    Parameters
    ----------
    x, y : array_like
        Paired scores (``y=None``: ``x`` is the differences).
    clusters : array_like
        One cluster id per pair.
    alternative : {"two-sided", "greater", "less"}, default "two-sided"
        "greater" means ``x`` scores higher.

    Returns
    -------
    TestResult
        ``statistic`` Z, ``pvalue``, ``n`` the pairs, ``n_clusters``.

    Raises
    ------
    StatsInputError
        Fewer than 2 clusters with a non-zero difference, unequal lengths, a missing id.

    References
    ----------
    Rosner, B., Glynn, R. J. & Lee, M.-L. T. (2006), "The Wilcoxon signed rank test for paired
    comparisons of clustered data", Biometrics 62(1):185–192.

    Examples
    --------
    >>> from ranger_eval.stats.clustered import clustered_signed_rank
    >>> x = [.8, .6, .9, .5, .7, .7, .6, .8]
    >>> y = [.7, .6, .8, .5, .6, .7, .5, .6]
    >>> clusters = ["p1", "p1", "p2", "p2", "p3", "p3", "p4", "p4"]
    >>> r = clustered_signed_rank(x, y, clusters=clusters)
    >>> round(r.statistic, 4), round(r.pvalue, 4), r.n, r.n_clusters
    (1.7556, 0.0792, 8, 4)
    """
    check_alternative(alternative)
    from scipy.special import ndtr


    d, _ = paired_scaled(x, y)  # signs and ranks are scale free
    codes, _c = cluster_codes(clusters, d.size)
    keep = d != 0.0
    median = float(np.median(d))
    if not keep.any():
        return TestResult(test="clustered Wilcoxon signed-rank test", statistic=0.0, pvalue=1.0,
                          alternative=alternative, n=d.size, estimate=median, method="RGL",
                          estimate_name="median difference", n_clusters=0)
    dk = d[keep]
    kc, c = cluster_codes(codes[keep], dk.size)
    _need_clusters(c, "the clustered signed-rank test (clusters with a non-zero difference)")
    sr = np.sign(dk) * average_ranks(np.abs(dk))
    m = np.bincount(kc, minlength=c).astype(np.float64)
    sums = np.bincount(kc, weights=sr, minlength=c)
    n = float(dk.size)
    if np.all(m == m[0]) or np.all(sr == sr[0]):
        # equal sizes; or every signed rank equal (all non-zero differences of one sign and one
        # size: the ANOVA intraclass correlation is 0/0, where R's clusrank stops with an
        # error) — the unweighted statistic, Z = sum S_k / sqrt(sum S_k^2)
        t = float(sr.sum())
        var = float(sums @ sums)
    else:
        means = sums / m
        error_ss = float(((sr - means[kc]) ** 2).sum())
        total_ss = float(((sr - sr.mean()) ** 2).sum())
        model_ss = total_ss - error_ss
        error_df, model_df = n - c, c - 1.0
        m0 = (n - float(m @ m) / n) / (c - 1.0)
        within = error_ss / error_df
        s2b = (model_ss / model_df - within) / m0
        den = s2b + within  # > 0 unless the signed ranks barely vary (then rho = 0)
        rho = max(0.0, s2b / den) if den > 0 else 0.0
        rho = min(1.0, rho * (1.0 + (1.0 - rho * rho) / (c - 2.5)))
        w = m / (total_ss / (n - 1.0) * (1.0 + (m - 1.0) * rho))
        t = float(means @ w)
        var = float((w * w) @ (means * means))
    z = t / math.sqrt(var) if var > 0 else 0.0
    if alternative == "two-sided":
        p = 2.0 * min(float(ndtr(abs(z))), float(ndtr(-abs(z))))
    else:
        p = float(ndtr(-z) if alternative == "greater" else ndtr(z))
    return TestResult(test="clustered Wilcoxon signed-rank test", statistic=z, pvalue=p,
                      alternative=alternative, n=d.size, estimate=median, method="RGL",
                      estimate_name="median difference", n_clusters=c)
