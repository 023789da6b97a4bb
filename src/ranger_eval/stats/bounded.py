"""Confidence intervals of a mean that stay in the metric's range: Wilson for 0/1 scores,
Korn–Graubard for clustered 0/1 scores and for any mean of a metric with known bounds.

A mean ± t·se interval of 0/1 scores leaves [0, 1] near 0 and 1 on small sets (a per-item
pass@3 mean of 0.875 on 8 items gives [0.698, 1.052]). The intervals here never leave the
range, and each one equals a trusted implementation (tests/oracles/bounded_oracles.*):

``wilson``
    the Wilson (1927) score interval of a binomial proportion p̂ = x/n, for 0/1 scores without
    clusters (or in clusters of one item each) (Agresti & Coull 1998; Brown, Cai & DasGupta 2001 recommend it for small n)::

        centre = (p̂ + z²/(2n)) / (1 + z²/n)
        half   = z / (1 + z²/n) · √(p̂(1 − p̂)/n + z²/(4n²)),   z = Φ⁻¹((1 + level)/2)

    exactly statsmodels' ``proportion_confint(x, n, alpha, method="wilson")``.
``korn-graubard``
    the Korn & Graubard (1998, Survey Methodology 24:193) Clopper–Pearson interval on an
    effective sample size, as R's ``survey::svyciprop(method="beta")`` computes it (survey 4.1,
    for the design ``svydesign(ids = ~cluster)``; without clusters ``ids = ~1``)::

        n_eff = p̂(1 − p̂) / se² · (t_{n−1, α/2} / t_{C−1, α/2})²
        lower = qbeta(α/2, n_eff p̂, n_eff (1 − p̂) + 1)
        upper = qbeta(1 − α/2, n_eff p̂ + 1, n_eff (1 − p̂))

    with se the cluster-robust (CR1) standard error of the mean (survey's with-replacement
    variance of the PSU totals, the same number as :func:`ranger_eval.describe`'s ``se``), n
    the items and C the clusters. survey does not cap n_eff at n (some reimplementations do);
    neither does this. survey applies it to the mean of any variable in [0, 1] (it calls
    ``svymean`` on ``as.numeric(y)``), and so does this module: a metric with bounds [a, b]
    (pass@k values, nDCG, F1, anything declared) is rescaled to (y − a)/(b − a), the interval
    is computed there and mapped back. For 0/1 scores this is the design-based exact
    interval; for continuous values the variance is smaller than p̂(1 − p̂), n_eff grows, and the
    interval approaches mean ± t·se away from the bounds while staying inside them.

Degenerate groups have a defined answer where survey's gives NaN: with se = 0 at a bound
(all scores 0, or all 1) n_eff is n (times the df factor): the Clopper–Pearson interval of 0 or
n successes out of n, [0, 1 − (α/2)^{1/n}] for all zeros; with se = 0 inside the range (all
values equal) the interval is the point itself, as the t interval is.

:func:`bounded_intervals` is the vectorised kernel over many groups (one call, no per-group
loop) used by :func:`ranger_eval.describe`.
"""
from __future__ import annotations

import numpy as np
from scipy import stats as _sps

__all__ = ["INTERVAL_METHODS", "INTERVAL_NAMES", "bounded_intervals", "korn_graubard",
           "wilson"]

#: the ``interval`` column of :func:`ranger_eval.describe`: its values and what they mean
INTERVAL_NAMES = {
    "t": "mean ± t · se (t on C − 1 df, or n − 1 without clusters)",
    "wilson": "Wilson score interval (0/1 scores)",
    "korn-graubard": "Korn–Graubard effective-n Clopper–Pearson interval "
                     "(survey::svyciprop, method = \"beta\")",
}
#: the ``interval=`` choices of :func:`ranger_eval.describe`
INTERVAL_METHODS = ("auto", "t")


def wilson(successes: np.ndarray, n: np.ndarray, level: float) -> tuple[np.ndarray, np.ndarray]:
    """The Wilson score interval of ``successes`` out of ``n`` (arrays), as statsmodels'
    ``proportion_confint(method="wilson")`` (module docstring formula)."""
    x = np.asarray(successes, dtype=np.float64)
    n = np.asarray(n, dtype=np.float64)
    z = _sps.norm.isf((1.0 - level) / 2.0)
    p = x / n
    z2 = z * z
    denom = 1.0 + z2 / n
    centre = (p + z2 / (2.0 * n)) / denom
    half = z / denom * np.sqrt(p * (1.0 - p) / n + z2 / (4.0 * n * n))
    return np.maximum(centre - half, 0.0), np.minimum(centre + half, 1.0)


def korn_graubard(mean: np.ndarray, se: np.ndarray, n: np.ndarray, n_clusters: np.ndarray,
                  level: float) -> tuple[np.ndarray, np.ndarray]:
    """The Korn–Graubard interval of means in [0, 1] with standard errors ``se`` from ``n``
    items in ``n_clusters`` clusters (arrays; module docstring formula and degenerate cases)."""
    p = np.clip(np.asarray(mean, dtype=np.float64), 0.0, 1.0)
    se = np.asarray(se, dtype=np.float64)
    n = np.asarray(n, dtype=np.float64)
    c = np.asarray(n_clusters, dtype=np.float64)
    alpha = 1.0 - level
    ratio = _sps.t.ppf(alpha / 2.0, n - 1.0) / _sps.t.ppf(alpha / 2.0, c - 1.0)
    at_bound = (p == 0.0) | (p == 1.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        n_eff = np.where(at_bound, n, p * (1.0 - p) / (se * se)) * ratio * ratio
    point = ~at_bound & ~np.isfinite(n_eff)  # se = 0 inside the range: the point itself
    n_eff = np.where(point, 1.0, n_eff)
    x = n_eff * p
    with np.errstate(invalid="ignore"):
        low = np.where(x > 0, _sps.beta.ppf(alpha / 2.0, np.where(x > 0, x, 1.0),
                                            n_eff - x + 1.0), 0.0)
        high = np.where(n_eff - x > 0,
                        _sps.beta.isf(alpha / 2.0, x + 1.0,
                                      np.where(n_eff - x > 0, n_eff - x, 1.0)), 1.0)
    low = np.where(point, p, low)
    high = np.where(point, p, high)
    return low, high


def bounded_intervals(
    mean: np.ndarray, se: np.ndarray, n: np.ndarray, n_clusters: np.ndarray, *,
    lower: np.ndarray, upper: np.ndarray, binary: np.ndarray, clustered: bool, level: float,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per group: ``(ci_low, ci_high, method)`` for the groups with finite ``lower`` <
    ``upper`` bounds (the others are NaN and ``"t"``, for the caller to fill). ``binary``
    marks groups whose per-item values are all 0 or 1 (Wilson without clusters, or when every
    cluster holds one item); the rest get
    the Korn–Graubard interval on the rescaled mean (module docstring)."""
    mean = np.asarray(mean, dtype=np.float64)
    lower = np.asarray(lower, dtype=np.float64)
    upper = np.asarray(upper, dtype=np.float64)
    n_groups = mean.size
    lo, hi = np.full(n_groups, np.nan), np.full(n_groups, np.nan)
    method = np.full(n_groups, "t", dtype=object)
    known = np.isfinite(lower) & np.isfinite(upper) & (upper > lower)
    width = np.where(known, upper - lower, 1.0)
    # a cluster column of single items is the unclustered design (the same numbers)
    singletons = np.asarray(n_clusters) == np.asarray(n)
    use_wilson = known & np.asarray(binary, dtype=bool) & (singletons | (not clustered))
    if use_wilson.any():
        k = use_wilson
        p = (mean[k] - lower[k]) / width[k]
        wl, wh = wilson(p * n[k], n[k], level)
        lo[k], hi[k] = lower[k] + width[k] * wl, lower[k] + width[k] * wh
        method[k] = "wilson"
    kg = known & ~use_wilson
    if kg.any():
        p = (mean[kg] - lower[kg]) / width[kg]
        kl, kh = korn_graubard(p, np.asarray(se)[kg] / width[kg], np.asarray(n)[kg],
                               np.asarray(n_clusters)[kg], level)
        lo[kg], hi[kg] = lower[kg] + width[kg] * kl, lower[kg] + width[kg] * kh
        method[kg] = "korn-graubard"
    # rounding in the rescaling must not step outside the range, nor past the mean
    lo = np.where(known, np.clip(lo, lower, np.minimum(mean, upper)), lo)
    hi = np.where(known, np.clip(hi, np.maximum(mean, lower), upper), hi)
    return lo, hi, method
