"""Multiple-testing adjustment of p-values, as ``statsmodels.stats.multitest.multipletests``.

The single-step and step-wise corrections are a sort and an accumulated max/min (formulas in
:func:`_closed_form`), written here with statsmodels' own operations because importing
``statsmodels.stats`` costs about half a second, the whole budget of a quick ``compare``; the
tests check every method against statsmodels at 1e-10. Hommel and the two-stage FDR methods
are delegated to statsmodels.
"""
from __future__ import annotations

import numpy as np

from ..errors import (
    CORRECTION_ALIASES,
    CORRECTIONS,
    StatsInputError,
    check_level,
    renamed_keywords,
)

__all__ = ["ADJUST_METHODS", "adjust_pvalues"]

#: statsmodels' method names (Bonferroni; Šidák; Holm 1979 step-down with Šidák or Bonferroni
#: steps; Simes–Hochberg step-up; Hommel 1988; Benjamini–Hochberg 1995 and Benjamini–Yekutieli
#: 2001 FDR; two-stage FDR of Benjamini, Krieger & Yekutieli 2006 and its variant) plus "none".
#: ("westfall-young" is a correction of :func:`ranger_eval.compare` too, but it needs the joint
#: resampling distribution of the tests, not their p-values: see
#: :func:`ranger_eval.stats.resampling.paired_permutation_test_many`.)
RESAMPLING_CORRECTIONS: tuple[str, ...] = ("westfall-young",)
ADJUST_METHODS: tuple[str, ...] = tuple(c for c in CORRECTIONS if c not in RESAMPLING_CORRECTIONS)
_ALIASES = CORRECTION_ALIASES


@renamed_keywords(method="correction", alpha="level")
def adjust_pvalues(p: object, *, correction: str = "holm", level: float = 0.95) -> np.ndarray:
    """Adjusted p-values for multiple testing, as statsmodels' ``multipletests``.

    The rejection rule is ``adjusted <= alpha = 1 - level``. The closed forms (p₍₁₎ ≤ … ≤ p₍ₘ₎):
    Bonferroni min(1, m·p); Šidák 1 − (1 − p)^m; Holm step-down max_{j≤i} (m − j + 1)·p₍ⱼ₎ (and
    Holm–Šídák); Simes–Hochberg step-up min_{j≥i} (m − j + 1)·p₍ⱼ₎; Benjamini–Hochberg
    min_{j≥i} m·p₍ⱼ₎/j, Benjamini–Yekutieli the same times Σₖ 1/k. Hommel and the two-stage FDR
    methods are delegated to statsmodels.

    Parameters
    ----------
    p : array_like
        p-values in [0, 1] (any shape).
    correction : str, default "holm"
        The multiplicity procedure, one of :data:`ADJUST_METHODS` (aliases: "hochberg", "bh",
        "by", "benjamini-hochberg", "benjamini-yekutieli"). ``method`` was the old keyword.
    level : float, default 0.95
        Matters only for the two-stage FDR methods ("fdr_tsbh", "fdr_tsbky"), whose adjusted
        values depend on alpha = 1 - level. ``alpha`` was the old keyword.

    Returns
    -------
    ndarray
        Adjusted p-values, the shape of ``p``.

    Raises
    ------
    StatsInputError
        An unknown correction, "westfall-young" (it needs the resampling distribution, not
        p-values), or p-values outside [0, 1] or NaN.

    References
    ----------
    Holm, S. (1979), "A simple sequentially rejective multiple test procedure", Scandinavian
    Journal of Statistics 6:65–70; Hochberg, Y. (1988), Biometrika 75:800–802; Hommel, G. (1988),
    Biometrika 75:383–386; Benjamini, Y. & Hochberg, Y. (1995), JRSS B 57:289–300; Benjamini, Y. &
    Yekutieli, D. (2001), Annals of Statistics 29:1165–1188; Benjamini, Krieger & Yekutieli (2006),
    Biometrika 93:491–507.

    Examples
    --------
    >>> from ranger_eval.stats import adjust_pvalues
    >>> adjust_pvalues([0.01, 0.04, 0.03, 0.2]).round(4).tolist()
    [0.04, 0.09, 0.09, 0.2]
    >>> adjust_pvalues([0.01, 0.04, 0.03, 0.2], correction="fdr_bh").round(4).tolist()
    [0.04, 0.0533, 0.0533, 0.2]
    """
    key = _ALIASES.get(str(correction).lower(), str(correction).lower())
    if key in RESAMPLING_CORRECTIONS:
        raise StatsInputError(
            f"{correction!r} adjusts from the joint resampling null of the tests, not from p-values: "
            "use compare(..., test='permutation', correction='westfall-young') or "
            "stats.paired_permutation_test_many(..., correction='westfall-young')"
        )
    if key not in ADJUST_METHODS:
        valid = ", ".join(repr(m) for m in ADJUST_METHODS + tuple(_ALIASES))
        raise StatsInputError(f"unknown correction {correction!r}; valid: {valid}")
    alpha = 1.0 - check_level(level, error=StatsInputError)
    try:
        arr = np.asarray(p, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise StatsInputError(f"p must be numbers: {exc}") from None
    flat = arr.reshape(-1)
    bad = ~np.isfinite(flat) | (flat < 0.0) | (flat > 1.0)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise StatsInputError(
            f"p-values must lie in [0, 1] and not be NaN; {int(bad.sum())} invalid, first at "
            f"index {i}: {float(flat[i])!r}"
        )
    if key == "none" or flat.size == 0:
        return arr.copy()
    if key in _CLOSED_FORM:
        return np.minimum(_closed_form(flat, key), 1.0).reshape(arr.shape)
    from statsmodels.stats.multitest import multipletests

    with np.errstate(divide="ignore"):  # Šidák steps take log1p(-1) = -inf at p = 1: exact 1
        adjusted = multipletests(flat, alpha=float(alpha), method=key)[1]
    return np.minimum(adjusted, 1.0).reshape(arr.shape)


_CLOSED_FORM = frozenset({"bonferroni", "sidak", "holm", "holm-sidak", "simes-hochberg", "fdr_bh",
                          "fdr_by"})


def _closed_form(p: np.ndarray, method: str) -> np.ndarray:
    """Adjusted p-values of ``p`` (1-D, valid) in the order given. With the p-values sorted
    ascending, p₍₁₎ ≤ … ≤ p₍ₘ₎, and i = 1 … m (statsmodels ``multipletests``):

    * Bonferroni: min(1, m·p); Šidák: 1 − (1 − p)^m;
    * Holm (1979), step-down: max over j ≤ i of (m − j + 1)·p₍ⱼ₎; Holm–Šídák: the same with
      1 − (1 − p₍ⱼ₎)^(m − j + 1);
    * Simes–Hochberg (1988), step-up: min over j ≥ i of (m − j + 1)·p₍ⱼ₎;
    * Benjamini–Hochberg (1995): min over j ≥ i of m·p₍ⱼ₎ / j; Benjamini–Yekutieli (2001): the
      same times Σₖ 1/k.
    """
    m = p.size
    if method == "bonferroni":
        return p * m
    with np.errstate(divide="ignore"):  # log1p(-1) = -inf at p = 1: adjusted exactly 1
        if method == "sidak":
            return -np.expm1(m * np.log1p(-p))
        order = np.argsort(p)
        q = p[order]
        if method == "holm":
            adjusted = np.maximum.accumulate(q * np.arange(m, 0, -1))
        elif method == "holm-sidak":
            adjusted = np.maximum.accumulate(-np.expm1(np.arange(m, 0, -1) * np.log1p(-q)))
        elif method == "simes-hochberg":
            adjusted = np.minimum.accumulate(((m - np.arange(m)) * q)[::-1])[::-1]
        else:  # fdr_bh, fdr_by
            factor = np.arange(1, m + 1) / float(m)
            if method == "fdr_by":
                factor = factor / np.sum(1.0 / np.arange(1, m + 1))
            adjusted = np.minimum.accumulate((q / factor)[::-1])[::-1]
    out = np.empty_like(adjusted)
    out[order] = np.minimum(adjusted, 1.0)
    return out
