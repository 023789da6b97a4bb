"""Distribution functions of the meta-analysis on ``scipy.special`` (lighter to import than
``scipy.stats``): two-sided critical values and p-values of the normal and t distributions, χ²
quantiles and tails, the F tail."""
from __future__ import annotations


# --------------------------------------------------------------------------------------------
# small distribution helpers on scipy.special (lighter to import than scipy.stats)
# --------------------------------------------------------------------------------------------
def _crit(level: float, test: str, df: int) -> float:
    """Two-sided critical value: ``z_{1-α/2}`` or ``t_{df, 1-α/2}``."""
    from scipy import special

    alpha = 1.0 - level
    if test == "z":
        return float(-special.ndtri(alpha / 2))
    return float(-special.stdtrit(df, alpha / 2))


def _two_sided_p(stat: float, test: str, df: int) -> float:
    """``2 P(Z > |stat|)`` or ``2 P(T_df > |stat|)`` via survival functions."""
    from scipy import special

    a = abs(stat)
    if test == "z":
        return float(2.0 * special.ndtr(-a))
    return float(2.0 * special.stdtr(df, -a))


def _chi2_sf(x: float, df: int) -> float:
    from scipy import special

    return float(special.chdtrc(df, x))


def _chi2_upper_q(a: float, df: int) -> float:
    """χ² quantile with upper-tail probability ``a``."""
    from scipy import special

    return float(special.chdtri(df, a))


def _chi2_lower_q(a: float, df: int) -> float:
    """χ² quantile with lower-tail probability ``a``."""
    from scipy import special

    return float(2.0 * special.gammaincinv(df / 2.0, a))


def _f_sf(x: float, df1: int, df2: int) -> float:
    from scipy import special

    return float(special.fdtrc(df1, df2, x))
