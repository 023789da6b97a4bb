"""Classical two-system tests, wrapping scipy.stats and statsmodels with uniform results.

Every function takes ``alternative`` in {"two-sided", "greater", "less"}; "greater" means the
first system (``x``) scores higher. Paired tests accept ``(x, y)`` aligned by item, or the
differences ``x - y`` alone. Degenerate data have a defined answer instead of NaN:

* all paired differences zero (identical systems), or two constant samples with equal means:
  ``statistic = 0``, ``pvalue = 1``, the estimate 0 (or the common value's difference) — except
  Wilcoxon's ``zero_method="zsplit"``, whose zeros split evenly between R+ and R−: statistic
  n(n+1)/4 and scipy's p-value (1 for two-sided tests);
* constant non-zero differences (or two different constants in Welch's test): the limit of the
  t statistic, ``statistic = +-inf``, ``pvalue = 0`` in the direction of the effect (1 against it),
  as scipy returns; the interval collapses onto the estimate.

Extreme scores (largest magnitude outside [2^-100, 2^100], e.g. scores × 1e-300 or near the
float64 limit) are tested on the scores times a power of two (:mod:`ranger_eval.stats._scale`,
exact), so statistics and p-values do not depend on the scores' unit; estimates and interval
bounds are scaled back, and one that does not fit in float64 raises :class:`StatsInputError`.
"""
from __future__ import annotations

import math
import warnings

import numpy as np

from ..errors import renamed_keywords
from ._hodges_lehmann import (
    R_EXACT_BELOW_N,
    hodges_lehmann,
    hodges_lehmann_ci,
    r_asymptotic_interval,
    walsh_interval_rows,
)
from ._scale import exponent, scaled, unscale
from ._validation import (
    StatsInputError,
    all_equal,
    as_vector,
    check_alternative,
    check_choice,
    check_level,
    paired_scaled,
)
from .results import TestResult

__all__ = [
    "paired_ttest",
    "welch_ttest",
    "wilcoxon",
    "sign_test",
    "mannwhitney",
    "mcnemar",
    "proportions_ztest",
]


def _scipy_stats():  # scipy.stats is slow to import; load it on first use
    from scipy import stats

    return stats


def degenerate_t(effect: float, alternative: str) -> tuple[float, float]:
    """Statistic and p-value of a t test whose standard error is exactly zero: (0, 1) at no
    effect, else (±inf, 0) two-sided and p in {0, 1} one-sided (1 when the effect points away
    from ``alternative``). Internal API shared with :mod:`ranger_eval.lazy` (not in ``__all__``)."""
    if effect == 0.0:
        return 0.0, 1.0
    stat = math.copysign(math.inf, effect)
    if alternative == "two-sided":
        return stat, 0.0
    toward = (effect > 0) == (alternative == "greater")
    return stat, 0.0 if toward else 1.0


def one_sided_ci(low: float, high: float, alternative: str) -> tuple[float, float]:
    """The interval ``[low, high]`` of a two-sided test, opened on the side ``alternative`` does
    not bound: ``[low, inf)`` for "greater", ``(-inf, high]`` for "less". Internal API shared
    with :mod:`ranger_eval.lazy` (not in ``__all__``)."""
    if alternative == "greater":
        return low, math.inf
    if alternative == "less":
        return -math.inf, high
    return low, high


def paired_ttest(
    x: object, y: object | None = None, *, alternative: str = "two-sided", level: float = 0.95
) -> TestResult:
    """Paired t test of mean(x - y) = 0.

    t = mean(d) / (sd(d) / sqrt(n)) with d = x - y and df = n - 1; statistic, p-value and interval
    are ``scipy.stats.ttest_rel``'s (computed as ``ttest_1samp`` on d). Estimate: mean(d).

    Parameters
    ----------
    x, y : array_like
        Scores of the two systems aligned by item; or ``x`` alone as the differences ``x - y``.
    alternative : {"two-sided", "greater", "less"}, default "two-sided"
        "greater" means ``x`` scores higher.
    level : float, default 0.95
        Confidence level of the interval, in (0, 1).

    Returns
    -------
    TestResult
        ``statistic`` t, ``pvalue``, ``df``, ``estimate`` mean difference, ``ci_low``/``ci_high``.

    Raises
    ------
    StatsInputError
        Unequal lengths, fewer than 2 pairs, non-finite scores, or a bad ``alternative``/``level``.

    References
    ----------
    Student (1908), "The probable error of a mean", Biometrika 6(1):1–25 (the t statistic).

    Examples
    --------
    >>> from ranger_eval.stats import paired_ttest
    >>> r = paired_ttest([0.81, 0.62, 0.90, 0.55, 0.73, 0.68],
    ...                  [0.70, 0.60, 0.82, 0.50, 0.66, 0.69])
    >>> round(r.statistic, 3), round(r.pvalue, 4), r.df
    (3.024, 0.0293, 5.0)
    >>> round(r.estimate, 4), round(r.ci_low, 4), round(r.ci_high, 4)
    (0.0533, 0.008, 0.0987)
    """
    sps = _scipy_stats()
    check_alternative(alternative)
    level = check_level(level)
    d, e = paired_scaled(x, y)  # x - y = d · 2^e (e = 0 unless the scores are extreme)
    n = d.size
    est = float(d.mean())
    if all_equal(d):
        est = float(d[0])
        stat, p = degenerate_t(est, alternative)
        lo, hi = one_sided_ci(est, est, alternative)
    else:
        res = sps.ttest_1samp(d, 0.0, alternative=alternative)
        stat, p = float(res.statistic), float(res.pvalue)
        ci = res.confidence_interval(confidence_level=level)
        lo, hi = float(ci.low), float(ci.high)
    est, lo, hi = (unscale(v, e, w) for v, w in ((est, "mean difference"), (
        lo, "lower confidence bound"), (hi, "upper confidence bound")))
    return TestResult(
        test="paired t-test", statistic=stat, pvalue=p, alternative=alternative, n=n,
        estimate=est, ci_low=lo, ci_high=hi, level=level, df=float(n - 1),
        estimate_name="mean difference",
    )


def welch_ttest(
    x: object, y: object, *, alternative: str = "two-sided", level: float = 0.95
) -> TestResult:
    """Welch's unequal-variance t test of mean(x) = mean(y) on two independent samples.

    t = (mean x - mean y) / sqrt(s_x^2/n_x + s_y^2/n_y) with the Welch–Satterthwaite df; wraps
    ``scipy.stats.ttest_ind(equal_var=False)``. Estimate: mean x - mean y. Two constant samples:
    df is undefined (``None``) and the statistic is 0 or +-inf.

    Parameters
    ----------
    x, y : array_like
        The two samples (at least 2 values each; lengths may differ).
    alternative : {"two-sided", "greater", "less"}, default "two-sided"
        "greater" means ``x`` scores higher.
    level : float, default 0.95
        Confidence level of the interval.

    Returns
    -------
    TestResult
        ``statistic`` t, ``pvalue``, ``df``, ``estimate``, ``ci_low``/``ci_high``, ``n``, ``n_y``.

    Raises
    ------
    StatsInputError
        Fewer than 2 values in a sample, non-finite values, or a bad ``alternative``/``level``.

    References
    ----------
    Welch, B. L. (1947), "The generalization of 'Student's' problem when several different
    population variances are involved", Biometrika 34:28–35.

    Examples
    --------
    >>> from ranger_eval.stats import welch_ttest
    >>> r = welch_ttest([0.81, 0.62, 0.90, 0.55, 0.73, 0.68],
    ...                 [0.70, 0.60, 0.82, 0.50, 0.66, 0.69])
    >>> round(r.statistic, 3), round(r.pvalue, 4), round(r.df, 2)
    (0.786, 0.4508, 9.72)
    """
    sps = _scipy_stats()
    check_alternative(alternative)
    level = check_level(level)
    e = exponent(xa := as_vector(x, "x", 2), ya := as_vector(y, "y", 2))
    xa, ya = scaled(e, xa, ya)  # x, y · 2^-e: exact, e = 0 unless the scores are extreme
    est = float(xa.mean() - ya.mean())
    df: float | None
    if all_equal(xa) and all_equal(ya):
        est = float(xa[0] - ya[0])
        stat, p = degenerate_t(est, alternative)
        lo, hi = one_sided_ci(est, est, alternative)
        df = None
    else:
        res = sps.ttest_ind(xa, ya, equal_var=False, alternative=alternative)
        stat, p, df = float(res.statistic), float(res.pvalue), float(res.df)
        ci = res.confidence_interval(confidence_level=level)
        lo, hi = float(ci.low), float(ci.high)
    est, lo, hi = (unscale(v, e, w) for v, w in ((est, "difference in means"), (
        lo, "lower confidence bound"), (hi, "upper confidence bound")))
    return TestResult(
        test="Welch t-test", statistic=stat, pvalue=p, alternative=alternative, n=xa.size,
        n_y=ya.size, estimate=est, ci_low=lo, ci_high=hi, level=level, df=df,
        estimate_name="difference in means",
    )


_WILCOXON_ZERO = ("wilcox", "pratt", "zsplit")
_WILCOXON_METHODS = ("auto", "exact", "asymptotic", "approx")
#: how the Hodges–Lehmann interval is found: R's uniroot roots, or exact Walsh order statistics
HODGES_LEHMANN = ("r", "walsh")


@renamed_keywords(correction="continuity_correction")
def wilcoxon(
    x: object,
    y: object | None = None,
    *,
    alternative: str = "two-sided",
    zero_method: str = "wilcox",
    continuity_correction: bool = False,
    method: str = "auto",
    level: float = 0.95,
    hodges_lehmann: str = "r",
) -> TestResult:
    """Wilcoxon signed-rank test with the Hodges–Lehmann estimate and its interval.

    Statistic and p-value: ``scipy.stats.wilcoxon`` (same ``zero_method``, ``method``, and its
    ``correction`` as ``continuity_correction``), except that ``method="auto"`` switches where R's
    ``wilcox.test`` does: the exact signed-rank distribution when there are fewer than 50 non-zero
    differences and neither ties nor zeros, otherwise the normal approximation (scipy's own "auto"
    stays exact at n = 50). With ties or zeros and n <= 13 the p-value is scipy's exact permutation
    distribution (R would use the normal approximation there).

    Estimate and interval: exactly R's ``wilcox.test(d, conf.int=TRUE,
    correct=continuity_correction)``, whatever ``zero_method`` (R drops zero differences). Exact
    branch (as above): the median of the Walsh averages (d_i + d_j)/2, i <= j, and
    [w_(q), w_(N-q+1)], q = qsignrank(alpha/2, n). Otherwise R's normal-approximation roots
    (tolerance 1e-4) of the standardised statistic as a function of the shift
    (:func:`~ranger_eval.stats._hodges_lehmann.r_asymptotic_interval`). When the requested level is
    not achievable (small n) the interval is R's, at the level R reports; ``level`` holds that
    achieved level and a ``UserWarning`` says so. So ``wilcoxon(d, continuity_correction=True)``
    reproduces R's default ``wilcox.test(d, conf.int=TRUE)`` (estimate, interval, p-value; the
    statistic is R's V for one-sided tests and min(V, N - V) for two-sided ones, as in scipy).

    Degenerate data: all differences zero — statistic 0 and p = 1 (``zsplit``: the zeros split
    evenly, statistic n(n+1)/4 and scipy's p-value, 1 for two-sided tests), estimate 0 and
    interval [0, 0]; all non-zero differences equal to c (R: NaN interval) — estimate c and
    interval [c, c].

    Parameters
    ----------
    x, y : array_like
        Paired scores aligned by item, or ``x`` alone as the differences.
    alternative : {"two-sided", "greater", "less"}, default "two-sided"
        "greater" means ``x`` scores higher.
    zero_method : {"wilcox", "pratt", "zsplit"}, default "wilcox"
        Treatment of zero differences in the statistic (scipy's meaning).
    continuity_correction : bool, default False
        Continuity correction of the normal approximation (``correction`` was the old keyword).
    method : {"auto", "exact", "asymptotic", "approx"}, default "auto"
        Null distribution of the statistic ("auto": R's switch described above).
    level : float, default 0.95
        Confidence level of the Hodges–Lehmann interval.
    hodges_lehmann : {"r", "walsh"}, default "r"
        "r": R's numbers as above. "walsh": where R uses the normal approximation, the exact
        Walsh-average order statistics instead of R's ``uniroot`` roots — the median of the
        Walsh averages and [w_(q_lo), w_(q_hi)] with the large-sample indices of
        :func:`~ranger_eval.stats._hodges_lehmann.walsh_interval_rows` (within R's root
        tolerance 1e-4 of R's bounds; R's exact branch is unchanged).

    Returns
    -------
    TestResult
        ``statistic``, ``pvalue``, ``estimate`` (Hodges–Lehmann pseudo-median), ``ci_low``,
        ``ci_high``, ``level`` (the achieved level), ``method``.

    Raises
    ------
    StatsInputError
        Unequal lengths, non-finite values, or a bad choice of ``zero_method``/``method``/``level``.

    References
    ----------
    Wilcoxon, F. (1945), "Individual comparisons by ranking methods", Biometrics Bulletin 1:80–83;
    Hodges, J. L. & Lehmann, E. L. (1963), "Estimates of location based on rank tests", Annals of
    Mathematical Statistics 34:598–611; R Core Team, ``stats::wilcox.test`` (the interval).

    Examples
    --------
    >>> from ranger_eval.stats import wilcoxon
    >>> r = wilcoxon([0.81, 0.62, 0.90, 0.55, 0.73, 0.68],
    ...              [0.70, 0.60, 0.82, 0.50, 0.66, 0.69])
    >>> r.statistic, round(r.pvalue, 4), round(r.estimate, 4)
    (1.0, 0.0625, 0.05)
    >>> round(r.ci_low, 3), round(r.ci_high, 3)
    (-0.01, 0.11)
    """
    sps = _scipy_stats()
    check_alternative(alternative)
    check_choice("zero_method", zero_method, _WILCOXON_ZERO)
    check_choice("method", method, _WILCOXON_METHODS)
    check_choice("hodges_lehmann", hodges_lehmann, HODGES_LEHMANN)
    level = check_level(level)
    d, e = paired_scaled(x, y)  # x - y = d · 2^e: same signs, zeros and ranks
    n = d.size
    nz = d[d != 0]
    untied = nz.size == n and np.unique(np.abs(d)).size == n  # no zeros, no ties
    r_exact = untied and n < R_EXACT_BELOW_N  # R's exact branch
    if not nz.size and zero_method != "zsplit":
        stat, p = 0.0, 1.0  # scipy: NaN (no non-zero difference left)
    elif not nz.size and method == "auto" and n <= 13:
        # zsplit, all zero: scipy's exact permutation distribution is a point mass at the
        # observed n(n+1)/4, so every p-value is 1 (scipy enumerates 2^n sign flips to say so)
        stat, p = n * (n + 1) / 4.0, 1.0
    else:
        scipy_method = "approx" if method == "asymptotic" else method
        if method == "auto" and untied and not r_exact:
            scipy_method = "approx"  # n >= 50: R's normal approximation (scipy: exact at 50)
        res = sps.wilcoxon(
            d, zero_method=zero_method, correction=continuity_correction, alternative=alternative,
            method=scipy_method,
        )
        stat, p = float(res.statistic), float(res.pvalue)
    est, lo, hi, achieved = _wilcoxon_interval(nz, r_exact, level, alternative,
                                               continuity_correction, hodges_lehmann)
    est, lo, hi = (unscale(v, e, w) for v, w in ((est, "Hodges-Lehmann estimate"), (
        lo, "lower confidence bound"), (hi, "upper confidence bound")))
    if achieved != level:
        warnings.warn(
            f"Wilcoxon interval: confidence level {level:g} is not achievable with "
            f"{nz.size} non-zero difference(s); the interval is at level {achieved:g} (as R's "
            "wilcox.test)", UserWarning, stacklevel=2,
        )
    return TestResult(
        test="Wilcoxon signed-rank test", statistic=stat, pvalue=p, alternative=alternative,
        n=n, estimate=est, ci_low=lo, ci_high=hi, level=achieved, method=method,
        estimate_name="Hodges-Lehmann pseudo-median",
    )


def _wilcoxon_interval(
    nz: np.ndarray, r_exact: bool, level: float, alternative: str, correct: bool,
    how: str = "r",
) -> tuple[float, float, float, float]:
    """(estimate, low, high, achieved level) of R's wilcox.test on the non-zero differences
    (``how="walsh"``: exact Walsh order statistics outside R's exact branch)."""
    if not nz.size or all_equal(nz):
        c = float(nz[0]) if nz.size else 0.0
        lo, hi = one_sided_ci(c, c, alternative)
        return c, lo, hi, level
    if r_exact:
        ds = np.sort(nz)
        lo, hi, achieved = hodges_lehmann_ci(ds, level, alternative)
        return hodges_lehmann(ds), lo, hi, achieved
    if how == "walsh":
        est, lo_w, hi_w = walsh_interval_rows(np.sort(nz)[None, :], level, alternative, correct)
        return float(est[0]), float(lo_w[0]), float(hi_w[0]), level
    return r_asymptotic_interval(nz, level, alternative, correct)


def sign_test(x: object, y: object | None = None, *, alternative: str = "two-sided") -> TestResult:
    """Sign test: the statistic is the number of positive differences among the non-zero ones.

    p-value: exact binomial test with probability 1/2 (``scipy.stats.binomtest``); zero
    differences are dropped (their count is ``n - n_pos - n_neg``). Estimate: median difference.
    All differences zero: statistic 0, p = 1.

    Parameters
    ----------
    x, y : array_like
        Paired scores aligned by item, or ``x`` alone as the differences.
    alternative : {"two-sided", "greater", "less"}, default "two-sided"
        "greater" means ``x`` scores higher.

    Returns
    -------
    TestResult
        ``statistic`` (count of positive differences), ``pvalue``, ``estimate`` median difference.

    References
    ----------
    Dixon, W. J. & Mood, A. M. (1946), "The statistical sign test", Journal of the American
    Statistical Association 41:557–566.

    Examples
    --------
    >>> from ranger_eval.stats import sign_test
    >>> r = sign_test([0.81, 0.62, 0.90, 0.55, 0.73, 0.68],
    ...               [0.70, 0.60, 0.82, 0.50, 0.66, 0.69])
    >>> r.statistic, round(r.pvalue, 4), round(r.estimate, 4)
    (5.0, 0.2188, 0.06)
    """
    sps = _scipy_stats()
    check_alternative(alternative)
    d, e = paired_scaled(x, y)  # x - y = d · 2^e: same signs
    n_pos = int((d > 0).sum())
    n_nonzero = n_pos + int((d < 0).sum())
    if n_nonzero == 0:
        p = 1.0
    else:
        p = float(sps.binomtest(n_pos, n_nonzero, 0.5, alternative=alternative).pvalue)
    return TestResult(
        test="sign test", statistic=float(n_pos), pvalue=p, alternative=alternative, n=d.size,
        estimate=unscale(float(np.median(d)), e, "median difference"), method="exact",
        estimate_name="median difference",
    )


_MWU_METHODS = ("auto", "exact", "asymptotic")


def mannwhitney(
    x: object,
    y: object,
    *,
    alternative: str = "two-sided",
    use_continuity: bool = True,
    method: str = "auto",
) -> TestResult:
    """Mann–Whitney U test of two independent samples (``scipy.stats.mannwhitneyu``).

    The statistic is U of ``x``. Estimate: the probability of superiority U / (n_x n_y) =
    P(X > Y) + P(X = Y)/2. All values equal: statistic n_x n_y / 2, p = 1.

    Parameters
    ----------
    x, y : array_like
        The two samples.
    alternative : {"two-sided", "greater", "less"}, default "two-sided"
        "greater" means ``x`` tends to score higher.
    use_continuity : bool, default True
        Continuity correction of the normal approximation (scipy's meaning).
    method : {"auto", "exact", "asymptotic"}, default "auto"
        Null distribution of U (scipy's meaning).

    Returns
    -------
    TestResult
        ``statistic`` U, ``pvalue``, ``estimate`` probability of superiority, ``n``, ``n_y``.

    References
    ----------
    Mann, H. B. & Whitney, D. R. (1947), "On a test of whether one of two random variables is
    stochastically larger than the other", Annals of Mathematical Statistics 18:50–60.

    Examples
    --------
    >>> from ranger_eval.stats import mannwhitney
    >>> r = mannwhitney([0.81, 0.62, 0.90, 0.55, 0.73, 0.68],
    ...                 [0.70, 0.60, 0.82, 0.50, 0.66, 0.69])
    >>> r.statistic, round(r.pvalue, 4), round(r.estimate, 4)
    (22.0, 0.5887, 0.6111)
    """
    sps = _scipy_stats()
    check_alternative(alternative)
    check_choice("method", method, _MWU_METHODS)
    xa = as_vector(x, "x", 1)
    ya = as_vector(y, "y", 1)
    if xa.size + ya.size < 3:
        raise StatsInputError(
            f"Mann-Whitney test needs at least 3 values in total; got {xa.size} + {ya.size}"
        )
    nxy = xa.size * ya.size
    if all_equal(np.concatenate([xa, ya])):
        stat, p = nxy / 2.0, 1.0
    else:
        res = sps.mannwhitneyu(
            xa, ya, use_continuity=use_continuity, alternative=alternative, method=method
        )
        stat, p = float(res.statistic), float(res.pvalue)
    return TestResult(
        test="Mann-Whitney U test", statistic=stat, pvalue=p, alternative=alternative,
        n=xa.size, n_y=ya.size, estimate=stat / nxy, method=method,
        estimate_name="probability of superiority",
    )


def _binary(values: object, name: str) -> np.ndarray:
    arr = np.asarray(values)
    if arr.dtype == bool:
        return arr.reshape(-1) if arr.ndim else arr.reshape(1)
    a = as_vector(arr, name, 0)
    bad = (a != 0) & (a != 1)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise StatsInputError(
            f"{name} must be binary (0/1 or bool) for McNemar's test; index {i} is {float(a[i])!r}"
            f" ({int(bad.sum())} non-binary value(s))"
        )
    return a.astype(bool)


@renamed_keywords(correction="continuity_correction")
def mcnemar(
    x: object,
    y: object,
    *,
    alternative: str = "two-sided",
    exact: bool = True,
    mid_p: bool = False,
    continuity_correction: bool = True,
) -> TestResult:
    """McNemar's test on paired binary outcomes (e.g. per-item correctness of two systems).

    b = #(x=1, y=0), c = #(x=0, y=1), m = b + c. Exact: under H0, b ~ Binomial(m, 1/2); two-sided
    statistic min(b, c), p = min(1, 2 P(B <= min(b, c))) (statsmodels ``mcnemar(exact=True)``);
    one-sided statistic b. ``mid_p`` subtracts half the probability of the observed value.
    Asymptotic (``exact=False``): two-sided chi2 = (|b - c| - k)^2 / m with k = 1 under
    ``continuity_correction`` and b != c, else 0 — exactly R's ``mcnemar.test`` (YATES = 1 only if
    ``any(x - t(x) != 0)``), so b = c gives statistic 0 and p = 1 (statsmodels subtracts 1 even
    then: 1/m, p < 1); one-sided z = (b - c -+ k)/sqrt(m), k = 1 under ``continuity_correction``
    (the binomial tail's continuity correction). Estimate: (b - c)/n, the accuracy difference.
    No discordant pairs (m = 0): statistic 0, p = 1.

    Parameters
    ----------
    x, y : array_like of {0, 1} or bool
        Paired binary outcomes aligned by item.
    alternative : {"two-sided", "greater", "less"}, default "two-sided"
        "greater" means ``x`` is right more often.
    exact : bool, default True
        Exact binomial test; False for the chi-square / normal approximation.
    mid_p : bool, default False
        Mid-p exact test (needs ``exact=True``).
    continuity_correction : bool, default True
        Continuity correction of the asymptotic test (``correction`` was the old keyword).

    Returns
    -------
    TestResult
        ``statistic``, ``pvalue``, ``estimate`` difference in proportions, ``method``.

    Raises
    ------
    StatsInputError
        Non-binary values, unequal lengths, no pair, or ``mid_p`` without ``exact``.

    References
    ----------
    McNemar, Q. (1947), "Note on the sampling error of the difference between correlated
    proportions or percentages", Psychometrika 12:153–157; Fagerland, M. W., Lydersen, S. &
    Laake, P. (2013), "The McNemar test for binary matched-pairs data: mid-p and asymptotic are
    better than exact conditional", BMC Medical Research Methodology 13:91 (the mid-p test).

    Examples
    --------
    >>> from ranger_eval.stats import mcnemar
    >>> r = mcnemar([1, 1, 0, 1, 1, 0, 1, 1], [0, 1, 0, 0, 1, 0, 0, 1])
    >>> r.statistic, round(r.pvalue, 4), r.estimate
    (0.0, 0.25, 0.375)
    """
    sps = _scipy_stats()
    check_alternative(alternative)
    xa = _binary(x, "x")
    ya = _binary(y, "y")
    if xa.size != ya.size:
        raise StatsInputError(
            f"paired test needs equal lengths: x has {xa.size} items, y has {ya.size}"
        )
    if xa.size < 1:
        raise StatsInputError("McNemar's test needs at least 1 pair; got 0")
    if mid_p and not exact:
        raise StatsInputError("mid_p=True requires exact=True")
    b = int((xa & ~ya).sum())
    c = int((~xa & ya).sum())
    m = b + c
    method = ("exact mid-p" if mid_p else "exact") if exact else "asymptotic"
    if m == 0:
        stat, p = 0.0, 1.0
    elif exact:
        binom = sps.binom(m, 0.5)
        if alternative == "two-sided":
            k = min(b, c)
            stat = float(k)
            p = 2.0 * binom.cdf(k) - (binom.pmf(k) if mid_p else 0.0)
        elif alternative == "greater":
            stat = float(b)
            p = binom.sf(b) + 0.5 * binom.pmf(b) if mid_p else binom.sf(b - 1)
        else:
            stat = float(b)
            p = binom.cdf(b - 1) + 0.5 * binom.pmf(b) if mid_p else binom.cdf(b)
        p = float(min(p, 1.0))
    else:
        cc = 1.0 if continuity_correction else 0.0
        if alternative == "two-sided":
            if b == c:
                cc = 0.0  # R's mcnemar.test: no correction when b = c (statistic 0, p = 1)
            stat = (abs(b - c) - cc) ** 2 / m
            p = float(sps.chi2.sf(stat, 1))
        elif alternative == "greater":
            stat = (b - c - cc) / math.sqrt(m)
            p = float(sps.norm.sf(stat))
        else:
            stat = (b - c + cc) / math.sqrt(m)
            p = float(sps.norm.sf(-stat))
    return TestResult(
        test="McNemar test", statistic=float(stat), pvalue=p, alternative=alternative,
        n=xa.size, estimate=(b - c) / xa.size, method=method,
        estimate_name="difference in proportions",
    )


_SM_ALTERNATIVE = {"two-sided": "two-sided", "greater": "larger", "less": "smaller"}


def proportions_ztest(
    count: object,
    nobs: object,
    *,
    value: float | None = None,
    alternative: str = "two-sided",
    prop_var: float | bool = False,
) -> TestResult:
    """z test for one proportion or the difference of two (statsmodels ``proportions_ztest``).

    Two samples: z = (p1 - p2 - value)/sqrt(p(1 - p)(1/n1 + 1/n2)) with the pooled p (or
    ``prop_var``); one sample: z = (p1 - value)/sqrt(p1(1 - p1)/n1). Zero variance (all successes
    or all failures): statistic 0 and p = 1 when the numerator is 0, else +-inf. Estimate: p1 - p2
    (two samples) or p1.

    Parameters
    ----------
    count : int or array_like of 2 ints
        Successes of one sample, or of the two samples.
    nobs : int or array_like of 2 ints
        Trials of one sample, or of the two samples.
    value : float, optional
        The proportion (one sample) or difference (two samples) under H0; default 0.
    alternative : {"two-sided", "greater", "less"}, default "two-sided"
        "greater" means the first proportion is larger.
    prop_var : float or False, default False
        A proportion to use in the variance instead of the estimate (statsmodels' meaning).

    Returns
    -------
    TestResult
        ``statistic`` z, ``pvalue``, ``estimate``.

    References
    ----------
    Seabold, S. & Perktold, J. (2010), "statsmodels: Econometric and statistical modeling with
    Python" (``statsmodels.stats.proportion.proportions_ztest``, whose formula this follows).

    Examples
    --------
    >>> from ranger_eval.stats import proportions_ztest
    >>> r = proportions_ztest([45, 30], [60, 60])
    >>> round(r.statistic, 3), round(r.pvalue, 4), round(r.estimate, 4)
    (2.828, 0.0047, 0.25)
    """
    check_alternative(alternative)
    counts = np.atleast_1d(np.asarray(count, dtype=np.float64))
    ns = np.atleast_1d(np.asarray(nobs, dtype=np.float64))
    if counts.ndim != 1 or counts.size not in (1, 2):
        raise StatsInputError(f"count must hold 1 or 2 counts; got {np.asarray(count)!r}")
    if ns.size == 1:
        ns = np.repeat(ns, counts.size)
    if ns.shape != counts.shape:
        raise StatsInputError(f"nobs must match count in length; got {np.asarray(nobs)!r}")
    if not (np.isfinite(counts).all() and np.isfinite(ns).all()):
        raise StatsInputError("count and nobs must be finite")
    if (ns < 1).any() or (counts < 0).any() or (counts > ns).any():
        raise StatsInputError(
            f"need 0 <= count <= nobs and nobs >= 1; got count={counts.tolist()}, "
            f"nobs={ns.tolist()}"
        )
    if counts.size == 1 and value is None:
        raise StatsInputError("value (the null proportion) must be given for a one-sample test")
    if not isinstance(prop_var, bool) and not 0.0 < float(prop_var) < 1.0:
        raise StatsInputError(f"prop_var must be False or in (0, 1); got {prop_var!r}")
    props = counts / ns
    est = float(props[0] - props[1]) if counts.size == 2 else float(props[0])
    if counts.size == 2:
        pooled = counts.sum() / ns.sum()
    else:
        pooled = props[0]
    if not isinstance(prop_var, bool) or prop_var:
        pooled = float(prop_var)
    if pooled * (1.0 - pooled) == 0.0:
        stat, p = degenerate_t(est - (value or 0.0), alternative)
    else:
        from statsmodels.stats.proportion import proportions_ztest as sm_ztest

        stat, p = sm_ztest(
            counts if counts.size == 2 else counts[0],
            ns if counts.size == 2 else ns[0],
            value=value,
            alternative=_SM_ALTERNATIVE[alternative],
            prop_var=prop_var,
        )
    return TestResult(
        test="proportions z-test", statistic=float(stat), pvalue=float(p),
        alternative=alternative, n=int(ns[0]), n_y=int(ns[1]) if ns.size == 2 else None,
        estimate=est, method="asymptotic",
        estimate_name="difference in proportions" if counts.size == 2 else "proportion",
    )


def wilson_interval(successes: object, n: object, level: float = 0.95
                    ) -> tuple[np.ndarray, np.ndarray]:
    """Wilson (1927) score interval of the proportions ``successes / n`` at ``level`` (vectorised).

    With z = Φ⁻¹(1 − α/2)::

        (x + z²/2) / (n + z²)  ±  z / (n + z²) · √(x(n − x)/n + z²/4)

    Recommended over the Wald and the conservative Clopper–Pearson intervals by Brown, Cai &
    DasGupta (2001): it stays inside [0, 1] and is not degenerate at x = 0 or x = n. Equals
    statsmodels' ``proportion_confint(x, n, alpha, method="wilson")``.

    Parameters
    ----------
    successes : array_like
        Successes x per proportion.
    n : array_like
        Trials per proportion (broadcast with ``successes``).
    level : float, default 0.95
        Confidence level.

    Returns
    -------
    (ndarray, ndarray)
        Lower and upper bounds.

    References
    ----------
    Wilson, E. B. (1927), "Probable inference, the law of succession, and statistical inference",
    JASA 22:209–212; Brown, L. D., Cai, T. T. & DasGupta, A. (2001), "Interval estimation for a
    binomial proportion", Statistical Science 16:101–133.

    Examples
    --------
    >>> from ranger_eval.stats.tests import wilson_interval
    >>> low, high = wilson_interval([0, 7], [10, 10])
    >>> [round(float(v), 4) for v in low], [round(float(v), 4) for v in high]
    ([0.0, 0.3968], [0.2775, 0.8922])
    """
    x = np.asarray(successes, dtype=float)
    nn = np.asarray(n, dtype=float)
    z = float(_scipy_stats().norm.isf((1.0 - level) / 2.0))
    centre = (x + z * z / 2.0) / (nn + z * z)
    half = z / (nn + z * z) * np.sqrt(x * (nn - x) / nn + z * z / 4.0)
    return np.clip(centre - half, 0.0, 1.0), np.clip(centre + half, 0.0, 1.0)
