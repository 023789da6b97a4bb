"""Vectorised two-system tests: one call tests many pairs (the rows of equally shaped matrices).

Each function gives, row by row, exactly the numbers of its one-pair counterpart in
:mod:`ranger_eval.stats.tests` (bit for bit: the same scipy calls with ``axis=1`` on C-contiguous
rows, whose reductions use the same pairwise summation as a 1-D array), including the
degenerate-data conventions documented there. They exist for :func:`ranger_eval.compare`, which
aligns a dataset × metric once into an items × systems matrix and then tests all its pairs with
column operations and one vectorised distribution call:

* :func:`paired_ttest_many` -- t = mean(d)/(sd(d)/sqrt(n)), df = n - 1, ``scipy.stats.ttest_1samp``;
* :func:`welch_ttest_many` -- Welch's t with Welch–Satterthwaite df, ``scipy.stats.ttest_ind``;
* :func:`mcnemar_many` -- McNemar's exact test from the discordant counts b and c
  (b ~ Binomial(b + c, 1/2) under H0; two-sided p = min(1, 2 P(B <= min(b, c))));
* :func:`proportions_ztest_many` -- pooled two-proportion z test, the formula of statsmodels'
  ``proportions_ztest``: z = (p1 - p2)/sqrt(p(1 - p)(1/n1 + 1/n2)), p = (c1 + c2)/(n1 + n2);
* :func:`wald_interval_many` -- Wald interval of p1 - p2 (statsmodels
  ``confint_proportions_2indep(method="wald")``);
* :func:`cohens_dz_many`, :func:`cohens_d_many` -- the effect sizes of
  :mod:`ranger_eval.stats.effectsize`.

Inputs are float64 matrices with one row per pair (validated: finite, two-dimensional).
"""
from __future__ import annotations

import numpy as np

from ._validation import StatsInputError, check_alternative, check_level
from .results import ManyTestResult

__all__ = [
    "paired_ttest_many",
    "welch_ttest_many",
    "mcnemar_many",
    "proportions_ztest_many",
    "wald_interval_many",
    "cohens_dz_many",
    "cohens_d_many",
]


def _matrix(a: object, name: str, min_n: int) -> np.ndarray:
    try:
        m = np.ascontiguousarray(np.asarray(a, dtype=np.float64))
    except (TypeError, ValueError) as exc:
        raise StatsInputError(f"{name} must be a numeric matrix (pairs x items): {exc}") from None
    if m.ndim != 2:
        raise StatsInputError(f"{name} must be two-dimensional (pairs x items); got {m.shape}")
    if not np.isfinite(m).all():
        r, c = np.argwhere(~np.isfinite(m))[0]
        raise StatsInputError(f"{name} contains a non-finite value at pair {r}, item {c}")
    if m.shape[1] < min_n:
        raise StatsInputError(f"{name} needs at least {min_n} items per pair; got {m.shape[1]}")
    return m


def _rows_equal(m: np.ndarray) -> np.ndarray:
    """Per row: every element equals the row's first (exact comparison, as ``all_equal``)."""
    if m.shape[1] == 0:
        return np.ones(m.shape[0], dtype=bool)
    return np.asarray((m == m[:, :1]).all(axis=1))


def _degenerate_t(effect: np.ndarray, alternative: str) -> tuple[np.ndarray, np.ndarray]:
    """Vectorised ``tests._degenerate_t``: 0 and p = 1 at no effect, else +-inf and p in {0, 1}."""
    stat = np.where(effect == 0.0, 0.0, np.copysign(np.inf, effect))
    if alternative == "two-sided":
        p = np.where(effect == 0.0, 1.0, 0.0)
    else:
        toward = (effect > 0) == (alternative == "greater")
        p = np.where(effect == 0.0, 1.0, np.where(toward, 0.0, 1.0))
    return stat, p


def _one_sided(lo: np.ndarray, hi: np.ndarray, alternative: str) -> tuple[np.ndarray, np.ndarray]:
    if alternative == "greater":
        hi = np.full_like(hi, np.inf)
    elif alternative == "less":
        lo = np.full_like(lo, -np.inf)
    return lo, hi


def paired_ttest_many(
    diffs: object, *, alternative: str = "two-sided", level: float = 0.95
) -> ManyTestResult:
    """:func:`~ranger_eval.stats.tests.paired_ttest` of every row of ``diffs`` (pairs x n).

    t = mean(d)/(sd(d)/sqrt(n)) with ``scipy.stats.ttest_1samp(axis=1)`` (one call); rows of
    equal differences get the documented limit (statistic 0 or +-inf, interval = the point).
    """
    check_alternative(alternative)
    level = check_level(level)
    d = _matrix(diffs, "diffs", 2)
    n = d.shape[1]
    est = d.mean(axis=1)
    const = _rows_equal(d)
    stat = np.empty(d.shape[0])
    p = np.empty(d.shape[0])
    lo = np.empty(d.shape[0])
    hi = np.empty(d.shape[0])
    if const.any():
        est[const] = d[const, 0]
        stat[const], p[const] = _degenerate_t(est[const], alternative)
        lo[const], hi[const] = _one_sided(est[const], est[const], alternative)
    ok = ~const
    if ok.any():
        from scipy import stats as sps

        res = sps.ttest_1samp(d[ok], 0.0, axis=1, alternative=alternative)
        ci = res.confidence_interval(confidence_level=level)
        stat[ok], p[ok] = res.statistic, res.pvalue
        lo[ok], hi[ok] = ci.low, ci.high
    return ManyTestResult(
        test="paired t-test", statistic=stat, pvalue=p, alternative=alternative, n=n,
        estimate=est, ci_low=lo, ci_high=hi, level=level, df=np.full(d.shape[0], n - 1.0),
        estimate_name="mean difference",
    )


def welch_ttest_many(
    x: object, y: object, *, alternative: str = "two-sided", level: float = 0.95
) -> ManyTestResult:
    """:func:`~ranger_eval.stats.tests.welch_ttest` of every row pair of ``x`` (pairs x n_x)
    and ``y`` (pairs x n_y), one ``scipy.stats.ttest_ind(equal_var=False, axis=1)`` call.

    Two constant rows: statistic 0 or +-inf, interval = the point, df NaN (undefined).
    """
    check_alternative(alternative)
    level = check_level(level)
    xa = _matrix(x, "x", 2)
    ya = _matrix(y, "y", 2)
    if xa.shape[0] != ya.shape[0]:
        raise StatsInputError(f"x and y need the same number of rows; got {xa.shape[0]}, {ya.shape[0]}")
    m = xa.shape[0]
    est = xa.mean(axis=1) - ya.mean(axis=1)
    const = _rows_equal(xa) & _rows_equal(ya)
    stat, p, lo, hi, df = (np.empty(m) for _ in range(5))
    if const.any():
        est[const] = xa[const, 0] - ya[const, 0]
        stat[const], p[const] = _degenerate_t(est[const], alternative)
        lo[const], hi[const] = _one_sided(est[const], est[const], alternative)
        df[const] = np.nan
    ok = ~const
    if ok.any():
        from scipy import stats as sps

        res = sps.ttest_ind(xa[ok], ya[ok], axis=1, equal_var=False, alternative=alternative)
        ci = res.confidence_interval(confidence_level=level)
        stat[ok], p[ok], df[ok] = res.statistic, res.pvalue, res.df
        lo[ok], hi[ok] = ci.low, ci.high
    return ManyTestResult(
        test="Welch t-test", statistic=stat, pvalue=p, alternative=alternative, n=xa.shape[1],
        n_y=ya.shape[1], estimate=est, ci_low=lo, ci_high=hi, level=level, df=df,
        estimate_name="difference in means",
    )


def mcnemar_many(x: object, y: object, *, alternative: str = "two-sided") -> ManyTestResult:
    """McNemar's exact test (:func:`~ranger_eval.stats.tests.mcnemar` with ``exact=True``) of
    every row pair of the binary matrices ``x`` and ``y`` (pairs x n).

    b = #(x=1, y=0), c = #(x=0, y=1), m = b + c; two-sided statistic min(b, c) and
    p = min(1, 2 F(min(b, c); m, 1/2)); "greater": statistic b, p = P(B >= b); "less":
    p = P(B <= b); m = 0: statistic 0, p = 1. One vectorised ``scipy.stats.binom`` call.
    """
    check_alternative(alternative)
    xa = _matrix(x, "x", 1)
    ya = _matrix(y, "y", 1)
    if xa.shape != ya.shape:
        raise StatsInputError(f"paired test needs equal shapes: x is {xa.shape}, y is {ya.shape}")
    for name, a in (("x", xa), ("y", ya)):
        bad = (a != 0.0) & (a != 1.0)
        if bad.any():
            r, c = np.argwhere(bad)[0]
            raise StatsInputError(
                f"{name} must be binary (0/1) for McNemar's test; pair {r}, item {c} is "
                f"{float(a[r, c])!r}"
            )
    xb, yb = xa.astype(bool), ya.astype(bool)
    b = (xb & ~yb).sum(axis=1)
    c = (~xb & yb).sum(axis=1)
    m = b + c
    from scipy import stats as sps

    with np.errstate(invalid="ignore", divide="ignore"):
        if alternative == "two-sided":
            k = np.minimum(b, c)
            stat = k.astype(np.float64)
            p = 2.0 * sps.binom.cdf(k, m, 0.5)
        elif alternative == "greater":
            stat = b.astype(np.float64)
            p = sps.binom.sf(b - 1, m, 0.5)
        else:
            stat = b.astype(np.float64)
            p = sps.binom.cdf(b, m, 0.5)
    p = np.minimum(np.asarray(p, dtype=np.float64), 1.0)
    none = m == 0
    stat = np.where(none, 0.0, stat)
    p = np.where(none, 1.0, p)
    return ManyTestResult(
        test="McNemar test", statistic=stat, pvalue=p, alternative=alternative, n=xa.shape[1],
        method="exact", estimate=(b - c) / xa.shape[1], estimate_name="difference in proportions",
    )


def _counts(count_a: object, n_a: object, count_b: object, n_b: object) -> tuple[np.ndarray, ...]:
    arrs = [np.atleast_1d(np.asarray(v, dtype=np.float64)) for v in (count_a, n_a, count_b, n_b)]
    shape = arrs[0].shape
    if any(a.shape != shape for a in arrs) or len(shape) != 1:
        raise StatsInputError("count_a, n_a, count_b and n_b must be 1-D arrays of one length")
    c1, n1, c2, n2 = arrs
    if not all(np.isfinite(a).all() for a in arrs):
        raise StatsInputError("counts and sample sizes must be finite")
    if (n1 < 1).any() or (n2 < 1).any() or (c1 < 0).any() or (c2 < 0).any() or (
            c1 > n1).any() or (c2 > n2).any():
        raise StatsInputError("need 0 <= count <= nobs and nobs >= 1 for every pair")
    return c1, n1, c2, n2


def proportions_ztest_many(
    count_a: object, n_a: object, count_b: object, n_b: object, *, alternative: str = "two-sided"
) -> ManyTestResult:
    """Two-sample pooled z test of p_a = p_b for every pair (vectorised
    :func:`~ranger_eval.stats.tests.proportions_ztest`; statsmodels' arithmetic, so the same
    bits). Zero pooled variance: statistic 0 and p = 1 when p_a = p_b, else +-inf."""
    check_alternative(alternative)
    c1, n1, c2, n2 = _counts(count_a, n_a, count_b, n_b)
    from scipy import stats as sps

    est = c1 / n1 - c2 / n2
    diff = (c1 * 1.0 / n1 - c2 * 1.0 / n2) - 0
    pooled = (c1 + c2) * 1.0 / (n1 + n2)
    var = pooled * (1 - pooled) * (1.0 / n1 + 1.0 / n2)
    degenerate = (c1 + c2) / (n1 + n2) * (1.0 - (c1 + c2) / (n1 + n2)) == 0.0
    with np.errstate(invalid="ignore", divide="ignore"):
        z = diff / np.sqrt(var)
    if alternative == "two-sided":
        p = sps.norm.sf(np.abs(z)) * 2
    elif alternative == "greater":
        p = sps.norm.sf(z)
    else:
        p = sps.norm.cdf(z)
    d_stat, d_p = _degenerate_t(est, alternative)
    stat = np.where(degenerate, d_stat, z)
    p = np.where(degenerate, d_p, p)
    return ManyTestResult(
        test="proportions z-test", statistic=np.asarray(stat, dtype=np.float64),
        pvalue=np.asarray(p, dtype=np.float64), alternative=alternative, n=int(n1[0]) if n1.size else 0,
        n_y=int(n2[0]) if n2.size else None, method="asymptotic", estimate=est,
        estimate_name="difference in proportions",
    )


def wald_interval_many(
    count_a: object, n_a: object, count_b: object, n_b: object, *,
    alternative: str = "two-sided", level: float = 0.95,
) -> tuple[np.ndarray, np.ndarray]:
    """Wald interval of p_a - p_b: diff -+ z sqrt(p_a(1 - p_a)/n_a + p_b(1 - p_b)/n_b), z the
    normal quantile at alpha/2 (one-sided: alpha, the other bound infinite); statsmodels
    ``confint_proportions_2indep(method="wald", compare="diff")`` arithmetic."""
    check_alternative(alternative)
    level = check_level(level)
    c1, n1, c2, n2 = _counts(count_a, n_a, count_b, n_b)
    from scipy import stats as sps

    alpha = 1.0 - level
    two_sided_alpha = alpha if alternative == "two-sided" else 2.0 * alpha
    p1 = c1 / n1
    p2 = c2 / n2
    var = p1 * (1 - p1) / n1 + p2 * (1 - p2) / n2
    z = sps.norm.isf(two_sided_alpha / 2)
    d_wald = z * np.sqrt(var)
    lo, hi = (p1 - p2) - d_wald, (p1 - p2) + d_wald
    return _one_sided(lo, hi, alternative)


def _ratio(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(den > 0.0, num / np.where(den > 0.0, den, 1.0),
                        np.where(num == 0.0, 0.0, np.copysign(np.inf, num)))


def cohens_dz_many(diffs: object) -> np.ndarray:
    """Cohen's d_z = mean(d)/sd(d) (ddof = 1) of every row (as
    :func:`~ranger_eval.stats.effectsize.cohens_dz`; equal differences: 0 or +-inf)."""
    d = _matrix(diffs, "diffs", 2)
    const = _rows_equal(d)
    mean = d.mean(axis=1)
    sd = np.zeros(d.shape[0])
    if (~const).any():
        sd[~const] = d[~const].std(axis=1, ddof=1)
    mean[const] = d[const, 0]
    return _ratio(mean, sd)


def cohens_d_many(x: object, y: object) -> np.ndarray:
    """Unpaired Cohen's d with the pooled SD for every row pair (as
    :func:`~ranger_eval.stats.effectsize.cohens_d`)."""
    xa = _matrix(x, "x", 2)
    ya = _matrix(y, "y", 2)
    nx, ny = xa.shape[1], ya.shape[1]
    sx = np.where(_rows_equal(xa), 0.0, xa.var(axis=1, ddof=1))
    sy = np.where(_rows_equal(ya), 0.0, ya.var(axis=1, ddof=1))
    sp = np.sqrt(((nx - 1) * sx + (ny - 1) * sy) / (nx + ny - 2))
    return _ratio(xa.mean(axis=1) - ya.mean(axis=1), sp)
