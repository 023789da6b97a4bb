"""Standardised effect sizes for two systems and Sawilowsky's verbal labels.

* paired:   Cohen's d_z = mean(d) / sd(d) (Cohen 1988, eq. 2.3.5; Lakens 2013, eq. 6),
            Hedges' g_z = J(n - 1) d_z;
* unpaired: Cohen's d = (mean x - mean y) / s_p, s_p^2 = ((n_x-1)s_x^2 + (n_y-1)s_y^2)/(n_x+n_y-2),
            Hedges' g = J(n_x + n_y - 2) d (Hedges 1981; Borenstein et al. 2009, eq. 4.22);
* proportions: Cohen's h = 2 asin(sqrt p1) - 2 asin(sqrt p2) (Cohen 1988, ch. 6),
with J(df) = 1 - 3/(4 df - 1) (Borenstein et al. 2009, eq. 4.23; needs df >= 2) and sd ddof=1.
Zero spread: the effect is 0 when the mean difference is 0 and +-inf otherwise (documented limit).
The effects are scale free; extreme scores are first multiplied by a power of two (exact,
:mod:`ranger_eval.stats._scale`), so scores × 1e-300 or near 1e308 give the same effect.
"""
from __future__ import annotations

import math

import numpy as np

from ._scale import exponent, scaled
from ._validation import StatsInputError, as_vector, paired_scaled

__all__ = [
    "EFFECT_THRESHOLDS",
    "hedges_j",
    "cohens_dz",
    "hedges_gz",
    "cohens_d",
    "hedges_g",
    "cohens_h",
    "effect_label",
    "significant_by_effect",
]

#: Sawilowsky (2009), "New effect size rules of thumb", JMASM 8(2): lower bounds of |effect|.
EFFECT_THRESHOLDS: dict[str, float] = {
    "very small": 0.01,
    "small": 0.2,
    "medium": 0.5,
    "large": 0.8,
    "very large": 1.2,
    "huge": 2.0,
}


def hedges_j(df: float) -> float:
    """Hedges' small-sample correction J(df) = 1 - 3/(4 df - 1).

    Parameters
    ----------
    df : float
        Degrees of freedom, at least 2 (J(1) = 0 would erase the effect).

    Returns
    -------
    float

    Raises
    ------
    StatsInputError
        ``df < 2``.

    References
    ----------
    Borenstein, M., Hedges, L. V., Higgins, J. P. T. & Rothstein, H. R. (2009), Introduction to
    Meta-Analysis, Wiley, eq. 4.22–4.23; Hedges, L. V. (1981), "Distribution theory for Glass's
    estimator of effect size and related estimators", Journal of Educational Statistics 6:107–128.

    Examples
    --------
    >>> from ranger_eval.stats import hedges_j
    >>> round(hedges_j(10), 4)
    0.9231
    """
    if df < 2:
        raise StatsInputError(f"Hedges' correction needs df >= 2; got df = {df}")
    return 1.0 - 3.0 / (4.0 * df - 1.0)


def _ratio(num: float, den: float) -> float:
    if den > 0.0:
        return num / den
    return 0.0 if num == 0.0 else math.copysign(math.inf, num)


def cohens_dz(x: object, y: object | None = None) -> float:
    """Paired Cohen's d_z = mean(x - y) / sd(x - y), sd with ddof = 1.

    Zero spread: 0 when the mean difference is 0, else +-inf (the limit).

    Parameters
    ----------
    x, y : array_like
        Paired scores aligned by item, or ``x`` alone as the differences.

    Returns
    -------
    float

    References
    ----------
    Cohen, J. (1988), Statistical Power Analysis for the Behavioral Sciences, 2nd ed., Erlbaum,
    eq. 2.3.5; Lakens, D. (2013), "Calculating and reporting effect sizes to facilitate
    cumulative science", Frontiers in Psychology 4:863, eq. 6.

    Examples
    --------
    >>> from ranger_eval.stats import cohens_dz
    >>> x = [0.81, 0.62, 0.90, 0.55, 0.73, 0.68]
    >>> y = [0.70, 0.60, 0.82, 0.50, 0.66, 0.69]
    >>> round(cohens_dz(x, y), 4)
    1.2344
    """
    d = paired_scaled(x, y)[0]  # (x - y) · 2^-e: the same ratio
    if np.all(d == d[0]):
        return _ratio(float(d[0]), 0.0)
    return _ratio(float(d.mean()), float(d.std(ddof=1)))


def hedges_gz(x: object, y: object | None = None) -> float:
    """Paired Hedges' g_z = J(n - 1) d_z, the small-sample corrected :func:`cohens_dz`.

    Parameters
    ----------
    x, y : array_like
        Paired scores aligned by item (at least 3 pairs), or ``x`` alone as the differences.

    Returns
    -------
    float

    References
    ----------
    Borenstein, M., Hedges, L. V., Higgins, J. P. T. & Rothstein, H. R. (2009), Introduction to
    Meta-Analysis, Wiley, eq. 4.22–4.23; Hedges, L. V. (1981), "Distribution theory for Glass's
    estimator of effect size and related estimators", Journal of Educational Statistics 6:107–128.

    Examples
    --------
    >>> from ranger_eval.stats import hedges_gz
    >>> x = [0.81, 0.62, 0.90, 0.55, 0.73, 0.68]
    >>> y = [0.70, 0.60, 0.82, 0.50, 0.66, 0.69]
    >>> round(hedges_gz(x, y), 4)
    1.0395
    """
    d = paired_scaled(x, y, min_n=3)[0]
    return hedges_j(d.size - 1) * cohens_dz(d)


def _pooled(x: object, y: object) -> tuple[np.ndarray, np.ndarray, float]:
    xa = as_vector(x, "x", 2)
    ya = as_vector(y, "y", 2)
    xa, ya = scaled(exponent(xa, ya), xa, ya)  # exact power of two: the same ratio
    df = xa.size + ya.size - 2
    sx = 0.0 if np.all(xa == xa[0]) else float(xa.var(ddof=1))
    sy = 0.0 if np.all(ya == ya[0]) else float(ya.var(ddof=1))
    return xa, ya, math.sqrt(((xa.size - 1) * sx + (ya.size - 1) * sy) / df)


def cohens_d(x: object, y: object) -> float:
    """Unpaired Cohen's d = (mean x - mean y) / s_p with the pooled SD.

    s_p^2 = ((n_x - 1) s_x^2 + (n_y - 1) s_y^2) / (n_x + n_y - 2).

    Parameters
    ----------
    x, y : array_like
        The two samples, at least 2 values each.

    Returns
    -------
    float

    References
    ----------
    Cohen, J. (1988), Statistical Power Analysis for the Behavioral Sciences, 2nd ed., Erlbaum, ch. 2.

    Examples
    --------
    >>> from ranger_eval.stats import cohens_d
    >>> x = [0.81, 0.62, 0.90, 0.55, 0.73, 0.68]
    >>> y = [0.70, 0.60, 0.82, 0.50, 0.66, 0.69]
    >>> round(cohens_d(x, y), 4)
    0.4536
    """
    xa, ya, sp = _pooled(x, y)
    return _ratio(float(xa.mean() - ya.mean()), sp)


def hedges_g(x: object, y: object) -> float:
    """Unpaired Hedges' g = J(n_x + n_y - 2) d, the small-sample corrected :func:`cohens_d`.

    Parameters
    ----------
    x, y : array_like
        The two samples, at least 2 values each.

    Returns
    -------
    float

    References
    ----------
    Borenstein, M., Hedges, L. V., Higgins, J. P. T. & Rothstein, H. R. (2009), Introduction to
    Meta-Analysis, Wiley, eq. 4.22–4.23; Hedges, L. V. (1981), "Distribution theory for Glass's
    estimator of effect size and related estimators", Journal of Educational Statistics 6:107–128.

    Examples
    --------
    >>> from ranger_eval.stats import hedges_g
    >>> x = [0.81, 0.62, 0.90, 0.55, 0.73, 0.68]
    >>> y = [0.70, 0.60, 0.82, 0.50, 0.66, 0.69]
    >>> round(hedges_g(x, y), 4)
    0.4187
    """
    xa, ya, sp = _pooled(x, y)
    return hedges_j(xa.size + ya.size - 2) * _ratio(float(xa.mean() - ya.mean()), sp)


def cohens_h(p1: float, p2: float) -> float:
    """Cohen's h = 2 asin(sqrt p1) - 2 asin(sqrt p2), the effect size of two proportions.

    Parameters
    ----------
    p1, p2 : float
        Proportions in [0, 1].

    Returns
    -------
    float

    Raises
    ------
    StatsInputError
        A value outside [0, 1] or not a number.

    References
    ----------
    Cohen, J. (1988), Statistical Power Analysis for the Behavioral Sciences, 2nd ed., Erlbaum, ch. 6.

    Examples
    --------
    >>> from ranger_eval.stats import cohens_h
    >>> round(cohens_h(0.75, 0.5), 4)
    0.5236
    """
    for name, v in (("p1", p1), ("p2", p2)):
        if not (isinstance(v, (int, float, np.number)) and 0.0 <= float(v) <= 1.0):
            raise StatsInputError(f"{name} must be a proportion in [0, 1]; got {v!r}")
    return 2.0 * math.asin(math.sqrt(float(p1))) - 2.0 * math.asin(math.sqrt(float(p2)))


def effect_label(value: float) -> str:
    """Sawilowsky's verbal label of |value|.

    "negligible" below 0.01, then "very small" [0.01, 0.2), "small" [0.2, 0.5), "medium"
    [0.5, 0.8), "large" [0.8, 1.2), "very large" [1.2, 2), "huge" from 2 (:data:`EFFECT_THRESHOLDS`).

    Parameters
    ----------
    value : float
        A standardised effect size (its sign is ignored).

    Returns
    -------
    str

    Raises
    ------
    StatsInputError
        ``value`` is NaN.

    References
    ----------
    Sawilowsky, S. S. (2009), "New effect size rules of thumb", Journal of Modern Applied
    Statistical Methods 8(2):597–599.

    Examples
    --------
    >>> from ranger_eval.stats import effect_label
    >>> effect_label(0.35), effect_label(-1.5), effect_label(0.005)
    ('small', 'very large', 'negligible')
    """
    v = float(value)
    if math.isnan(v):
        raise StatsInputError("effect size is NaN; it has no label")
    label = "negligible"
    for name, bound in EFFECT_THRESHOLDS.items():
        if abs(v) >= bound:
            label = name
    return label


def significant_by_effect(value: object, threshold: float | str = "small") -> bool | np.ndarray:
    """Whether each |value| reaches a threshold of practical importance.

    Parameters
    ----------
    value : float or array_like
        Standardised effect sizes.
    threshold : float or str, default "small"
        A non-negative number, or a label of :data:`EFFECT_THRESHOLDS` (its lower bound).

    Returns
    -------
    bool or ndarray of bool
        A bool for a scalar ``value``, else an array of its shape.

    Raises
    ------
    StatsInputError
        An unknown label, a negative threshold, or NaN effects.

    References
    ----------
    Sawilowsky, S. S. (2009), "New effect size rules of thumb", JMASM 8(2):597–599 (the labels).

    Examples
    --------
    >>> from ranger_eval.stats import significant_by_effect
    >>> significant_by_effect([0.1, 0.3, -0.6]).tolist()
    [False, True, True]
    >>> significant_by_effect(0.3, "medium")
    False
    """
    if isinstance(threshold, str):
        if threshold not in EFFECT_THRESHOLDS:
            valid = ", ".join(repr(k) for k in EFFECT_THRESHOLDS)
            raise StatsInputError(f"unknown effect-size threshold {threshold!r}; valid: {valid}")
        t = EFFECT_THRESHOLDS[threshold]
    else:
        t = float(threshold)
        if not t >= 0.0:
            raise StatsInputError(f"threshold must be a non-negative number; got {threshold!r}")
    arr = np.asarray(value, dtype=np.float64)
    if np.isnan(arr).any():
        raise StatsInputError("effect sizes contain NaN")
    out = np.abs(arr) >= t
    return bool(out) if out.ndim == 0 else out
