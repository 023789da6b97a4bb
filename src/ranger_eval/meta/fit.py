"""The intercept-only fixed/random-effects fit (``metafor::rma.uni`` without moderators), its
Q-profile intervals for τ² and I², and the fit of extreme inputs on standardised data.

Inference (``rma.uni``): ``estimate = mu(τ²)``, ``se = sqrt(1/Σ w̃)``. ``test="z"`` uses the normal
distribution; ``test="t"`` uses t with k-1 df; ``test="knha"`` (Knapp & Hartung 2003; Hartung & Knapp
2001, "HKSJ") multiplies the variance by ``s² = Σ w̃ (y_i - mu)² / (k-1)`` (no truncation at 1, as
metafor's default; s² = 0 when the residual sum is ≤ machine epsilon) and uses t with k-1 df.
Prediction interval (``predict.rma``): ``mu ± c·sqrt(se² + τ²)`` with c the same normal or t(k-1)
quantile as the CI; for FE it equals the CI.

Heterogeneity (``rma.uni``): Q with k-1 df, ``Q_pvalue = P(χ²_{k-1} > Q)``. With the "typical"
within-study variance ``vt = (k-1)/trP`` (Higgins & Thompson 2002), random-effects models report
``I² = 100 τ²/(vt + τ²)`` and ``H² = 1 + τ²/vt``; FE models report ``I² = max(0, 100 (Q-(k-1))/Q)``
(0 when Q = 0) and ``H² = Q/(k-1)``. Weights are ``w̃_i / Σ w̃`` (``weights.rma.uni``/100).

CIs for τ² and I² (``confint.rma.uni``, Q-profile, Viechtbauer 2007): the lower/upper bounds solve
``Q(τ²) = χ²_{k-1, 1-α/2}`` / ``χ²_{k-1, α/2}``, searched on [0, max(100, 10 τ̂²)] like metafor (a
bound at the end of that range means "at least"), bounds are 0 when Q(0) is below the quantile;
the I² bounds are ``100 τ²_b/(vt + τ²_b)``. metafor's ``confint`` refuses FE models: here FE results
carry the same Q-profile interval of the data (what ``confint`` gives for any random-effects fit of
the same data with the search range [0, 100]), i.e. the heterogeneity the FE model assumes away.

Degenerate cases: k = 1 is valid (estimate = the study, τ² = 0, Q = 0 with 0 df, Q_pvalue = 1,
I² = 0, H² = 1, τ²/I² CIs (0, 0), and ``test`` falls back to "z" with a warning, as metafor).
Sampling variances must be finite and > 0: metafor cannot compute Q, I² or H² otherwise and its
FE/DL/HS/PM estimators fail, so zero or negative ``vi`` raise :class:`MetaInputError` naming every
such study and only the estimator asked for.
With ``test="knha"`` and all effects identical, s² = 0 gives se = 0 (as metafor); the statistic is then
±inf (0 when the estimate is 0) and the p-value 0 (1 when the estimate is 0) instead of NaN.

Extreme values (scores × 1e-300 or near the float64 limit must give the same answer). The model
is equivariant under ``y → c + a·y``, ``v → a²·v``, so inputs
outside the range where every intermediate (weights, their squares and the four-weight products
of tr P²) fits in float64 — vi outside [1e-60, 1e60] or |yi| > 1e30 — are fitted on standardised
data (``a`` a power of two near ``(min vi · max vi)^(1/4)``, exact even for subnormal vi; ``c`` the
median effect) and mapped back (:func:`_standardise`): 1e-300 or 1e300 variances, 1e200 effects
and subnormal variances give metafor's answer for the same data rescaled (metafor's own iterations
stop early at such scales; ``tests/oracles/metafor_extreme.R``). Ordinary inputs are untouched.
What float64 cannot hold is a :class:`MetaInputError` naming the studies: max(vi)/min(vi) above
``VI_RATIO_MAX`` (1e120), an effect more than ``Y_SPREAD_MAX`` (1e30) mid-range standard errors from
the median, or a summary (τ² in particular) beyond the float64 range. Leave-one-out is computed
only when asked for (:meth:`MetaResult.leave_one_out`); every fit is O(k) per iteration (no k × k
matrices), so 1,000,000 studies take 2–3 s per estimator (benchmarks/meta_scale_bench.py).
"""
from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from ..errors import MetaInputError
from ._distributions import _chi2_lower_q, _chi2_sf, _chi2_upper_q, _crit, _two_sided_p
from .tau2 import _EPS, _q_gen, _root_q, _tau2, _traces

#: Range handled without rescaling: vi in [_SAFE_V_LO, _SAFE_V_HI] and |yi| <= _SAFE_Y. Outside
#: it the intercept-only model is fitted on standardised data (see :func:`_standardise`).
_SAFE_V_LO, _SAFE_V_HI, _SAFE_Y = 1e-60, 1e60, 1e30
#: largest accepted distance of an effect from the median effect, in units of the (geometric)
#: mid-range standard error sqrt(sqrt(min vi · max vi)).
Y_SPREAD_MAX = 1e30
#: kept for compatibility: variances below this are rescaled (not rejected), see Extreme
#: values above
VI_MIN = _SAFE_V_LO


# --------------------------------------------------------------------------------------------
# extreme values: fit on standardised data
# --------------------------------------------------------------------------------------------
def _standardise(
    y: np.ndarray, v: np.ndarray, names: Sequence[str] | None = None
) -> tuple[np.ndarray, np.ndarray, float, float]:
    """``(y', v', c, a)`` with ``y = c + a·y'`` and ``v = a²·v'`` for fitting extreme inputs.

    The model is equivariant under ``y → c + a·y``, ``v → a²·v``: μ, CI and PI bounds map by
    ``c + a·(.)``, se by ``a``, τ² (and its CI, vt) by ``a²``; weights, Q, I², H², z/t and p-values
    are unchanged. Inside the safe range (vi in [1e-60, 1e60], |yi| ≤ 1e30) nothing is changed
    (``c = 0``, ``a = 1``), so ordinary inputs keep metafor's numbers bit for bit. Outside it
    ``a`` is the power of two nearest the geometric mid-range standard error
    ``(min vi · max vi)^(1/4)`` (exact scaling, even for subnormal vi) and ``c`` the median effect
    (so 1e200 ± 1e190 is fitted as 0 ± 1e190, without cancellation). Raises
    :class:`MetaInputError` naming the study when an effect lies more than ``Y_SPREAD_MAX``
    standard errors from the median (τ² would overflow).
    """
    vmin, vmax = float(v.min()), float(v.max())
    if _SAFE_V_LO <= vmin and vmax <= _SAFE_V_HI and float(np.max(np.abs(y))) <= _SAFE_Y:
        return y, v, 0.0, 1.0
    # exponent of the geometric mid-range of v, from the exponents (no overflow/underflow)
    e_lo, e_hi = np.frexp(vmin)[1], np.frexp(vmax)[1]
    e = int(np.floor((int(e_lo) + int(e_hi)) / 4.0))  # a = 2^e, a² = 2^(2e) ≈ sqrt(vmin·vmax)
    v2 = np.ldexp(v, -2 * e)
    c = float(np.median(y))  # centring keeps the residuals exact when |y| >> their spread
    with np.errstate(over="ignore"):
        y2 = np.ldexp(y - c, -e)
    far = np.flatnonzero(~np.isfinite(y2) | (np.abs(y2) > Y_SPREAD_MAX))
    if far.size:
        i = int(far[np.argmax(np.abs(y2[far]))]) if np.all(np.isfinite(y2[far])) else int(far[0])
        name = repr(names[i]) if names is not None else repr(str(i + 1))
        raise MetaInputError(
            f"yi out of range: study {name} (position {i}) has yi={float(y[i])!r}, more than "
            f"{Y_SPREAD_MAX:g} standard errors (sqrt of the mid-range vi, {math.ldexp(1.0, e):.3g}) "
            f"from the median effect {float(np.median(y))!r}; τ² would overflow float64: check "
            "the study or rescale the effects"
        )
    return y2, v2, c, math.ldexp(1.0, e)


def _fit_any(y: np.ndarray, v: np.ndarray, method: str, test: str, level: float) -> _Fit:
    """:func:`_fit` on any valid input: standardised (:func:`_standardise`) when extreme, the
    results mapped back to the original scale."""
    y2, v2, c, a = _standardise(y, v)
    fit = _fit(y2, v2, method, test, level)
    if c == 0.0 and a == 1.0:
        return fit
    return _unscale(fit, c, a, level)


def _unscale(fit: _Fit, c: float, a: float, level: float) -> _Fit:
    """A fit on ``y' = (y - c)/a``, ``v' = v/a²`` back on the scale of ``y``."""
    import dataclasses

    with np.errstate(over="ignore"):
        mu = c + a * fit.estimate
        se = a * fit.se
        df = fit.Q_df
        if se > 0.0:
            stat = mu / se
            pval = _two_sided_p(stat, fit.test, df)
        elif mu == 0.0:
            stat, pval = 0.0, 1.0
        else:
            stat, pval = math.copysign(math.inf, mu), 0.0
        crit = _crit(level, fit.test, df)
        half_pi = (fit.estimate - fit.pi_low) * a
        out = dataclasses.replace(
            fit, estimate=mu, se=se, statistic=float(stat), pvalue=float(pval),
            ci_low=mu - crit * se, ci_high=mu + crit * se, pi_low=mu - half_pi,
            pi_high=mu + half_pi, tau2=fit.tau2 * a * a, vt=fit.vt * a * a,
        )
    values = (out.estimate, out.se, out.ci_low, out.ci_high, out.pi_low, out.pi_high, out.tau2)
    if not all(math.isfinite(x) for x in values):
        raise MetaInputError(
            f"summary out of range: it overflows float64 (estimate {out.estimate!r}, se "
            f"{out.se!r}, tau2 {out.tau2!r}): the effects or variances are too large; rescale "
            f"them"
        )
    return out


# --------------------------------------------------------------------------------------------
# core fit
# --------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class _Fit:
    estimate: float
    se: float
    statistic: float
    pvalue: float
    ci_low: float
    ci_high: float
    pi_low: float
    pi_high: float
    tau2: float
    I2: float
    H2: float
    Q: float
    Q_df: int
    Q_pvalue: float
    vt: float
    weights: np.ndarray
    test: str


def _fit(y: np.ndarray, v: np.ndarray, method: str, test: str, level: float) -> _Fit:
    """Fit one model (validated inputs; ``method`` already canonical, EE → FE)."""
    k = y.size
    if k == 1:
        test = "z"
        tau2 = 0.0
    else:
        tau2 = _tau2(y, v, method)

    w = 1.0 / (v + tau2)
    sw = float(w.sum())
    mu = float(np.dot(w, y) / sw)
    vb = 1.0 / sw
    if test == "knha":
        rss = float(np.dot(w, (y - mu) ** 2))
        s2w = 0.0 if rss <= _EPS else rss / (k - 1)
        vb *= s2w
    se = math.sqrt(vb)
    df = k - 1
    if se > 0.0:
        stat = mu / se
        pval = _two_sided_p(stat, test, df)
    elif mu == 0.0:
        stat, pval = 0.0, 1.0
    else:
        stat, pval = math.copysign(math.inf, mu), 0.0
    crit = _crit(level, test, df)
    ci_low, ci_high = mu - crit * se, mu + crit * se
    half_pi = crit * math.sqrt(vb + tau2)
    pi_low, pi_high = mu - half_pi, mu + half_pi

    if k > 1:
        q = max(0.0, _q_gen(0.0, y, v))
        q_p = _chi2_sf(q, df)
        vt = df / _traces(1.0 / v)[1]
        if method == "FE":
            i2 = max(0.0, 100.0 * (q - df) / q) if q > 0.0 else 0.0
            h2 = q / df
        else:
            i2 = 100.0 * tau2 / (vt + tau2)
            h2 = tau2 / vt + 1.0
    else:
        q, q_p, vt, i2, h2 = 0.0, 1.0, 0.0, 0.0, 1.0

    return _Fit(
        estimate=mu, se=se, statistic=float(stat), pvalue=float(pval), ci_low=ci_low,
        ci_high=ci_high, pi_low=pi_low, pi_high=pi_high, tau2=tau2, I2=float(i2), H2=float(h2),
        Q=q, Q_df=df, Q_pvalue=q_p, vt=vt, weights=w / sw, test=test,
    )


def _qprofile_ci(
    y: np.ndarray, v: np.ndarray, tau2: float, vt: float, level: float,
    qfun: Callable[[float], float] | None = None, p: int = 1,
) -> tuple[tuple[float, float], tuple[float, float]]:
    """Q-profile CI for τ² and the implied I² CI (metafor ``confint.rma.uni``, type "QP").

    With ``qfun`` (the residual ``QE(τ²)`` of a meta-regression with ``p`` coefficients) the
    quantiles are those of χ² with k - p df.
    """
    k = y.size
    if k <= p:
        return (0.0, 0.0), (0.0, 0.0)
    alpha = 1.0 - level
    df = k - p
    crit_u = _chi2_upper_q(alpha / 2, df)
    crit_l = _chi2_lower_q(alpha / 2, df)
    q = (lambda t: _q_gen(t, y, v)) if qfun is None else qfun
    t_min, t_max = 0.0, max(100.0, 10.0 * tau2)
    q_min = q(t_min)
    q_max = q(t_max)
    lb = ub = math.nan
    if q_min < crit_l:
        lb = ub = t_min
    elif q_max > crit_l:
        ub = t_max
    else:
        ub = _root_q(crit_l, y, v, t_max, qfun)
    if q_max > crit_u:
        lb = ub = t_max
    elif q_min < crit_u:
        lb = t_min
    else:
        lb = _root_q(crit_u, y, v, t_max, qfun)
    i2 = (100.0 * lb / (vt + lb), 100.0 * ub / (vt + ub))
    return (float(lb), float(ub)), (float(i2[0]), float(i2[1]))
