"""Meta-analysis models, heterogeneity, moderators, subgroups, prediction intervals, leave-one-out
and Egger's regression test (metafor-exact).

The intercept-only random-effects model ``y_i = mu + u_i + e_i`` with ``u_i ~ N(0, tau2)`` and
``e_i ~ N(0, v_i)`` is fitted exactly as ``metafor::rma.uni`` (Viechtbauer 2010, J. Stat. Softw. 36(3);
estimators reviewed in Viechtbauer 2005, J. Educ. Behav. Stat. 30(3), and Veroniki et al. 2016).
Every number below reproduces metafor 3.8 to ~1e-10; see ``tests/oracles/metafor_meta.R`` and
``tests/oracles/metafor_modreg.R``.

Notation: ``w_i = 1/v_i`` (fixed-effect weights), ``W = sum w_i``, ``ybar`` the unweighted mean,
``mu(t)`` the weighted mean with weights ``1/(v_i + t)`` and ``Q(t) = sum (y_i - mu(t))^2/(v_i + t)``
(the generalised Q statistic, Q = Q(0)), ``trP = W - sum w_i^2 / W`` (computed without
cancellation, see ``_traces``).

τ² estimators (all truncated at 0, as metafor):

* ``FE``/``EE``: τ² = 0 (fixed/equal-effects model; Borenstein et al. 2009, ch. 11).
* ``DL``  (DerSimonian & Laird 1986): τ² = (Q - (k-1)) / trP.
* ``HE``  (Hedges 1983): τ² = (Σ(y_i - ybar)² - (1 - 1/k) Σ v_i) / (k-1).
* ``HS``  (Hunter & Schmidt 2004): τ² = (Q - k) / W.
* ``SJ``  (Sidik & Jonkman 2005, metafor's non-iterated version): τ₀² = Σ(y_i - ybar)²/k,
  τ² = τ₀² · Q(τ₀²) / (k-1).
* ``ML``/``REML``: Fisher scoring from max(0, HE) with step halving at the boundary,
  ML: Δ = (Σ w̃²r² - Σ w̃)/Σ w̃²; REML: Δ = (Σ w̃²r² - tr P̃)/tr(P̃²), with w̃ = 1/(v+τ²), r = y - mu(τ²);
  followed by metafor's check that the likelihood at τ² = 0 is not larger (then τ² = 0).
* ``EB``  (Morris 1983; Berkey et al. 1995): iterate Δ = (Q(τ²)·k/(k-1) - k)/Σ w̃ from max(0, HE).
* ``PM``  (Paule & Mandel 1982): root of Q(τ²) = k-1 (0 if Q(0) < k-1).

Convergence of ML/REML/EB: Fisher scoring can oscillate (metafor then stops with "Fisher scoring
algorithm did not converge"). When the default iteration does not converge (or stalls: 200
iterations without halving its smallest step), it is rerun with halved steps (metafor's
``control = list(stepadj = 0.5)``); if that fails too, ML/REML maximise the (restricted)
log-likelihood over τ² ≥ 0 directly (sign changes of the score on a grid, refined by Brent's
method to machine precision, the best candidate or 0 kept) and EB takes the root of its estimating
equation Q(τ²) = k-1 (the PM value). So these estimators converge whenever metafor converges with
some control setting, to its answer; where the default iteration converges nothing changes.

Meta-regression (``moderators=``; ``rma(yi, vi, mods = ~ ...)``): ``y = Xβ + u + e`` with X the
intercept and the moderator columns (numeric as given; categorical as treatment-coded dummies,
like R's ``model.matrix``), k > p. With ``P(w) = W - WX(X'WX)⁻¹X'W``, the estimators above use
``y'Py`` for Q, ``tr P`` and k-p (HE: OLS residuals and ``Σ v_i (1 - h_i)``; SJ: τ₀² from the
unweighted variance of y), as metafor. ``β = (X'W̃X)⁻¹X'W̃y``, ``vcov = (X'W̃X)⁻¹`` (× s² for knha,
t tests with k-p df); ``QE = y'P(1/v)y`` on k-p df; ``QM`` the Wald test of all coefficients but
the intercept (χ² on p-1 df; for t/knha ``QM/(p-1)`` against F(p-1, k-p)); I²/H² from
``vt = (k-p)/tr P(1/v)``; R² as metafor (see :class:`MetaRegressionResult`). Computed from the QR
decomposition of ``√w·X`` (no explicit inverse), so ill-conditioned designs stay accurate.

Subgroups (:func:`subgroup_analysis`, Borenstein et al. 2009, ch. 19): one model per subgroup,
the fixed-effect Q between the subgroup summaries (separate τ² per subgroup), and the mixed-effects
meta-regression on the subgroup dummies (common τ²) with its QM.

Small-study effects (:func:`regtest`; Egger et al. 1997, Sterne & Egger 2005): metafor's
``regtest``, by default the standard error added as a moderator to the fitted model.

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

Extreme values (issue 11). The model is equivariant under ``y → c + a·y``, ``v → a²·v``, so inputs
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

import json
import math
import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, overload

import numpy as np

from .errors import ConvergenceError, MetaInputError, check_level, suggest
from .formatting import format_level
from .signature import Signature, make_signature, parse_signature

if TYPE_CHECKING:  # pragma: no cover - typing only (keeps `import ranger_eval.meta` light)
    import pandas as pd

    from .effects import EffectSizes

METHODS = ("FE", "EE", "DL", "HE", "HS", "SJ", "ML", "REML", "EB", "PM")
TESTS = ("z", "t", "knha")

_EPS = float(np.finfo(float).eps)
#: Convergence threshold on τ² for the Fisher-scoring estimators (metafor's ``threshold``, default
#: 1e-5 there). Iteration also stops once the change is below ``_REL_THRESHOLD·τ²``: rounding noise
#: in the score can otherwise leave a 2-cycle a few ulps wide around the fixed point.
THRESHOLD = 1e-14
_REL_THRESHOLD = 1e-12
MAXITER = 10000
#: Fisher scoring gives up early (and falls back, see ``_solve_fisher``) after this many
#: consecutive iterations without halving its smallest step so far (metafor's default
#: ``maxiter`` is 100 in all).
_STALL = 200
#: metafor's ``tol`` (``.Machine$double.eps^0.25``) used by its check of the likelihood at τ² = 0.
_LL0_TOL = _EPS**0.25


#: Range handled without rescaling: vi in [_SAFE_V_LO, _SAFE_V_HI] and |yi| <= _SAFE_Y. Outside
#: it the intercept-only model is fitted on standardised data (see :func:`_standardise`).
_SAFE_V_LO, _SAFE_V_HI, _SAFE_Y = 1e-60, 1e60, 1e30
#: largest accepted ratio max(vi)/min(vi): beyond it the weights 1/vi (and the products of four
#: weights in tr(P²), used by REML) cannot be held together in float64.
VI_RATIO_MAX = 1e120
#: largest accepted distance of an effect from the median effect, in units of the (geometric)
#: mid-range standard error sqrt(sqrt(min vi · max vi)).
Y_SPREAD_MAX = 1e30
#: kept for compatibility: variances below this are rescaled (not rejected) since issue 11
VI_MIN = _SAFE_V_LO


__all__ = [
    "ConvergenceError",
    "MetaInputError",
    "MetaRegressionResult",
    "MetaResult",
    "RegTestResult",
    "SubgroupResult",
    "TransformedSummary",
    "meta_analysis",
    "regtest",
    "subgroup_analysis",
]


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


# --------------------------------------------------------------------------------------------
# τ² estimators (intercept-only forms of metafor's rma.uni code)
# --------------------------------------------------------------------------------------------
def _others(a: np.ndarray) -> np.ndarray:
    """``Σ_{j≠i} a_j`` for each i, from exclusive prefix and suffix sums (no cancellation)."""
    pre = np.concatenate(([0.0], np.cumsum(a[:-1])))
    suf = np.concatenate((np.cumsum(a[::-1][:-1])[::-1], [0.0]))
    return pre + suf


def _traces(w: np.ndarray) -> tuple[float, float, float]:
    """``(Σw, tr P, tr P²)`` for ``P = W - w wᵀ/Σw`` (intercept-only projection).

    ``tr P = Σ w_i o_i / s`` and ``tr P² = Σ w_i² (o_i² + o2_i) / s²`` with ``o_i = Σ_{j≠i} w_j``,
    ``o2_i = Σ_{j≠i} w_j²``: algebraically ``Σw - Σw²/Σw`` and ``Σ_ij P_ij²``, but free of
    cancellation when one weight dominates.
    """
    s = float(w.sum())
    o = _others(w)
    w2 = w * w
    tr_p = float(np.dot(w, o)) / s
    tr_pp = float(np.dot(w2, o * o + _others(w2))) / (s * s)
    return s, tr_p, tr_pp


def _q_gen(t: float, y: np.ndarray, v: np.ndarray) -> float:
    """Generalised Q: ``Σ (y_i - mu(t))² / (v_i + t)`` (metafor ``.QE.func``).

    Identical effects give Q = 0 exactly (the weighted mean would otherwise leave rounding
    noise of order 1e-31).
    """
    if np.all(y == y[0]):
        return 0.0
    w = 1.0 / (v + t)
    mu = float(np.dot(w, y) / w.sum())
    return float(np.dot(w, (y - mu) ** 2))


def _he(y: np.ndarray, v: np.ndarray) -> float:
    """Hedges' estimator, untruncated: ``(Σ(y-ybar)² - (1-1/k)Σv)/(k-1)``."""
    k = y.size
    rss = float(np.sum((y - y.mean()) ** 2))
    return (rss - float(v.sum()) * (1.0 - 1.0 / k)) / (k - 1)


def _fisher_iterate(adj_fn: Callable[[float], float], t0: float, stepadj: float) -> float | None:
    """metafor's Fisher-scoring loop: ``t += stepadj·adj(t)``, halving steps that would go below 0;
    the fixed point, or None after ``MAXITER`` iterations without convergence, or as soon as
    ``_STALL`` iterations in a row brought no step below half the smallest earlier one (an
    oscillation or cycle; an iteration that shrinks its steps more slowly than that could not
    reach the threshold within ``MAXITER`` iterations anyway)."""
    t = t0
    smallest = math.inf
    stalled = 0
    for _ in range(MAXITER + 1):
        adj = adj_fn(t) * stepadj
        if not math.isfinite(adj):
            adj = 0.0
        while t + adj < 0.0:
            adj /= 2.0
        new = t + adj
        change = abs(new - t)
        t = new
        if change <= max(THRESHOLD, _REL_THRESHOLD * t):
            return t
        if change < 0.5 * smallest:
            smallest, stalled = change, 0
        else:
            stalled += 1
            if stalled >= _STALL:
                return None
    return None


def _maximise_profile(
    score: Callable[[float], float], loglik: Callable[[float], float], hi: float, scale: float
) -> float:
    """Global maximiser of a (restricted) log-likelihood over τ² ≥ 0 from its score.

    The score is evaluated on 0 and a geometric grid up to ``hi`` (doubled until the score is
    negative there); each + → − sign change is refined by Brent's method to machine precision
    (far below 1e-10 on τ²), and the candidate (or the boundary 0) with the largest likelihood wins.
    """
    from scipy.optimize import brentq

    while score(hi) >= 0.0:
        hi *= 2.0
        if not math.isfinite(hi):
            raise ConvergenceError("the (restricted) likelihood increases without bound in tau2")
    lo = max(min(scale, hi) * 1e-10, hi * 1e-16)
    grid = np.concatenate(([0.0], np.geomspace(lo, hi, 400)))
    s = np.array([score(float(g)) for g in grid])
    candidates = [0.0]
    for i in np.flatnonzero((s[:-1] > 0.0) & (s[1:] <= 0.0)):
        a, b = float(grid[i]), float(grid[i + 1])
        root = b if s[i + 1] == 0.0 else brentq(score, a, b, xtol=1e-300, rtol=4 * _EPS,
                                                 maxiter=MAXITER)
        candidates.append(float(root))
    lls = [loglik(c) for c in candidates]
    return candidates[int(np.argmax(lls))]


def _solve_fisher(
    method: str,
    adj_fn: Callable[[float], float],
    t0: float,
    score: Callable[[float], float],
    loglik: Callable[[float], float],
    eb_root: Callable[[], float],
    hi: float,
    scale: float,
) -> float:
    """ML / REML / EB τ²: Fisher scoring as metafor (``stepadj = 1``); if that does not converge,
    again with halved steps (metafor's ``control = list(stepadj = 0.5)``); failing that, the
    bracketed solution: for ML/REML the maximiser of the (restricted) likelihood over τ² ≥ 0
    (:func:`_maximise_profile`), for EB the root of its estimating equation ``Q(τ²) = k - p`` (the
    fixed point of the EB iteration; 0 when ``Q(0) < k - p``). Results where the default iteration
    converges are unchanged."""
    for stepadj in (1.0, 0.5):
        t = _fisher_iterate(adj_fn, t0, stepadj)
        if t is not None:
            return t
    if method == "EB":
        return eb_root()
    return _maximise_profile(score, loglik, hi, scale)


def _fisher_scoring(y: np.ndarray, v: np.ndarray, method: str) -> float:
    """ML / REML / EB by metafor's Fisher scoring (start max(0, HE); halve steps below 0), with the
    fallbacks of :func:`_solve_fisher`; then metafor's check of the likelihood at τ² = 0."""
    k = y.size

    def parts(t: float) -> tuple[np.ndarray, float, np.ndarray]:
        w = 1.0 / (v + t)
        sw = float(w.sum())
        mu = float(np.dot(w, y) / sw)
        return w, sw, y - mu

    def num(t: float) -> tuple[float, float]:
        """(numerator, denominator) of the Fisher-scoring step."""
        w, sw, r = parts(t)
        if method == "ML":
            return float(np.dot(w * w, r * r)) - sw, float(np.dot(w, w))
        if method == "REML":
            _, tr_p, tr_pp = _traces(w)
            return float(np.dot(w * w, r * r)) - tr_p, tr_pp
        return float(np.dot(w, r * r)) * k / (k - 1) - k, sw  # EB

    def adj_fn(t: float) -> float:
        a, b = num(t)
        return a / b

    def eb_root() -> float:
        return _pm(y, v)

    hi = max(100.0, 10.0 * float(np.var(y, ddof=1)))
    t = _solve_fisher(method, adj_fn, max(0.0, _he(y, v)), lambda t: num(t)[0],
                      lambda t: _loglik(t, y, v, method), eb_root, hi, float(np.min(v)))
    if method in ("ML", "REML") and t > THRESHOLD:
        # metafor: if the (RE)ML log-likelihood at tau2 = 0 is larger, the algorithm got stuck.
        if _loglik(0.0, y, v, method) - _loglik(t, y, v, method) > _LL0_TOL:
            warnings.warn(
                f"{method}: Fisher scoring may have got stuck at a local maximum; setting tau2 = 0 "
                "(as metafor)",
                UserWarning,
                stacklevel=3,
            )
            t = 0.0
    return t


def _loglik(t: float, y: np.ndarray, v: np.ndarray, method: str) -> float:
    """(Restricted) log-likelihood of the intercept-only model (metafor's ll0check form)."""
    k = y.size
    w = 1.0 / (v + t)
    sw = float(w.sum())
    mu = float(np.dot(w, y) / sw)
    rss = float(np.dot(w, (y - mu) ** 2))
    ll = -0.5 * float(np.sum(np.log(v + t))) - 0.5 * rss
    if method == "ML":
        return ll - 0.5 * k * math.log(2 * math.pi)
    return ll - 0.5 * (k - 1) * math.log(2 * math.pi) - 0.5 * math.log(sw)


def _root_q(
    target: float, y: np.ndarray, v: np.ndarray, hi: float,
    qfun: Callable[[float], float] | None = None,
) -> float:
    """Root of ``Q(t) = target`` on [0, hi] (Q is decreasing in t); requires Q(0) ≥ target ≥ Q(hi).

    ``qfun`` replaces the intercept-only ``Q(t)`` (the residual ``QE(t)`` of a meta-regression).
    """
    from scipy.optimize import brentq

    q = (lambda t: _q_gen(t, y, v)) if qfun is None else qfun
    return float(
        brentq(lambda t: q(t) - target, 0.0, hi, xtol=1e-300, rtol=4 * _EPS, maxiter=MAXITER)
    )


def _pm(y: np.ndarray, v: np.ndarray) -> float:
    """Paule–Mandel: solve ``Q(τ²) = k-1``; 0 when ``Q(0) < k-1``.

    metafor searches [0, max(100, 10·mad(y)²)] and errors if the root lies beyond; here the upper
    end is doubled until it brackets the root (same root whenever metafor finds one).
    """
    k = y.size
    target = float(k - 1)
    if _q_gen(0.0, y, v) < target:
        return 0.0
    hi = max(100.0, 10.0 * float(np.var(y, ddof=1)))
    while _q_gen(hi, y, v) > target:
        hi *= 2.0
    return _root_q(target, y, v, hi)


def _tau2(y: np.ndarray, v: np.ndarray, method: str) -> float:
    """τ² by ``method`` (k ≥ 2), truncated at 0 as metafor."""
    k = y.size
    if method == "FE":
        return 0.0
    w = 1.0 / v
    sw, tr_p, _ = _traces(w)
    if method == "DL":
        q = _q_gen(0.0, y, v)
        t = (q - (k - 1)) / tr_p
    elif method == "HE":
        t = _he(y, v)
    elif method == "HS":
        t = (_q_gen(0.0, y, v) - k) / sw
    elif method == "SJ":
        t0 = float(np.mean((y - y.mean()) ** 2))
        t = t0 * _q_gen(t0, y, v) / (k - 1)
    elif method in ("ML", "REML", "EB"):
        t = _fisher_scoring(y, v, method)
    else:  # PM
        t = _pm(y, v)
    return max(0.0, float(t))


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


# --------------------------------------------------------------------------------------------
# meta-regression: rma.uni with moderators (X = [1, moderators], k x p, full column rank, k > p)
# --------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class _WLS:
    """Weighted least squares of ``y`` on ``X`` with weights ``w`` via the QR of ``√w·X``.

    ``rs = √w·(y - Xβ)`` (so ``RSS = y'Py = Σ rs²`` and ``Py = √w·rs``), ``q``/``r`` the thin QR
    factors, from which ``(X'WX)⁻¹ = R⁻¹R⁻ᵀ`` and the leverages ``h_i = ‖q_i‖²`` follow.
    """

    w: np.ndarray
    beta: np.ndarray
    q: np.ndarray
    r: np.ndarray
    rs: np.ndarray

    @property
    def rss(self) -> float:
        return float(np.dot(self.rs, self.rs))

    def vb(self) -> np.ndarray:
        rinv = np.linalg.solve(self.r, np.eye(self.r.shape[0]))
        return np.asarray(rinv @ rinv.T)

    def hat(self) -> np.ndarray:
        return np.einsum("ij,ij->i", self.q, self.q)

    def traces(self) -> tuple[float, float]:
        """``(tr P, tr P²)`` for ``P = W - WX(X'WX)⁻¹X'W``: ``tr P = Σ w_i (1 - h_i)`` and
        ``tr P² = Σ w_i² (1 - 2 h_i) + ‖Q'WQ‖²_F``."""
        h = self.hat()
        w = self.w
        qwq = self.q.T @ (w[:, None] * self.q)
        tr_p = float(np.dot(w, 1.0 - h))
        tr_pp = float(np.dot(w * w, 1.0 - 2.0 * h)) + float(np.sum(qwq * qwq))
        return tr_p, tr_pp

    def logdet(self) -> float:
        """``log det(X'WX)``."""
        return 2.0 * float(np.sum(np.log(np.abs(np.diag(self.r)))))


def _wls(X: np.ndarray, y: np.ndarray, w: np.ndarray) -> _WLS:
    sw = np.sqrt(w)
    q, r = np.linalg.qr(X * sw[:, None])
    z = sw * y
    qz = q.T @ z
    beta = np.linalg.solve(r, qz)  # r is p x p upper triangular
    return _WLS(w=w, beta=beta, q=q, r=r, rs=z - q @ qz)


def _qe(t: float, y: np.ndarray, v: np.ndarray, X: np.ndarray) -> float:
    """Residual ``QE(τ²) = y'P(τ²)y`` (metafor ``.QE.func``)."""
    return _wls(X, y, 1.0 / (v + t)).rss


def _loglik_mods(t: float, y: np.ndarray, v: np.ndarray, X: np.ndarray, method: str) -> float:
    """(Restricted) log-likelihood of the meta-regression (metafor's ll0check form)."""
    k, p = X.shape
    f = _wls(X, y, 1.0 / (v + t))
    ll = -0.5 * float(np.sum(np.log(v + t))) - 0.5 * f.rss
    if method == "ML":
        return ll - 0.5 * k * math.log(2 * math.pi)
    return ll - 0.5 * (k - p) * math.log(2 * math.pi) - 0.5 * f.logdet()


def _root_above(qfun: Callable[[float], float], target: float, hi: float) -> float:
    """Root of the decreasing ``qfun(t) = target`` on t ≥ 0; 0 when ``qfun(0) < target``."""
    if qfun(0.0) < target:
        return 0.0
    while qfun(hi) > target:
        hi *= 2.0
    from scipy.optimize import brentq

    return float(brentq(lambda t: qfun(t) - target, 0.0, hi, xtol=1e-300, rtol=4 * _EPS,
                        maxiter=MAXITER))


def _tau2_mods(y: np.ndarray, v: np.ndarray, X: np.ndarray, method: str) -> float:
    """τ² of the meta-regression by ``method`` (metafor ``rma.uni`` with ``mods``), truncated at 0.

    With ``P(w) = W - WX(X'WX)⁻¹X'W`` and ``QE = y'P(1/v)y``:
    DL ``(QE - (k-p))/tr P``; HE ``(y'(I - H)y - Σ v_i(1 - h_i))/(k-p)`` (H the OLS hat matrix);
    HS ``(QE - k)/Σ w_i``; SJ ``τ₀² y'P(1/(v+τ₀²))y/(k-p)`` with ``τ₀² = Σ(y_i - ȳ)²/k``;
    PM root of ``y'P(τ²)y = k-p``; ML/REML/EB Fisher scoring from max(0, HE) (steps as in the
    module docstring with ``y'PPy``, ``tr P``, ``tr P²`` and k-p in place of k-1).
    """
    k, p = X.shape
    if method == "FE":
        return 0.0
    hi = max(100.0, 10.0 * float(np.var(y, ddof=1)))
    if method in ("DL", "HS"):
        f = _wls(X, y, 1.0 / v)
        if method == "DL":
            t = (f.rss - (k - p)) / f.traces()[0]
        else:
            t = (f.rss - k) / float(np.sum(1.0 / v))
    elif method == "HE":
        t = _he_mods(y, v, X)
    elif method == "SJ":
        t0 = float(np.mean((y - y.mean()) ** 2))
        t = t0 * _qe(t0, y, v, X) / (k - p)
    elif method == "PM":
        t = _root_above(lambda s: _qe(s, y, v, X), float(k - p), hi)
    else:
        t = _fisher_scoring_mods(y, v, X, method, hi)
    return max(0.0, float(t))


def _he_mods(y: np.ndarray, v: np.ndarray, X: np.ndarray) -> float:
    k, p = X.shape
    f = _wls(X, y, np.ones(k))
    return (f.rss - float(np.dot(v, 1.0 - f.hat()))) / (k - p)


def _fisher_scoring_mods(y: np.ndarray, v: np.ndarray, X: np.ndarray, method: str,
                         hi: float) -> float:
    """ML / REML / EB of the meta-regression (metafor's Fisher scoring, fallbacks of
    :func:`_solve_fisher`, then metafor's check of the likelihood at τ² = 0)."""
    k, p = X.shape

    def num(t: float) -> tuple[float, float]:
        f = _wls(X, y, 1.0 / (v + t))
        w = f.w
        py = np.sqrt(w) * f.rs
        ypy2 = float(np.dot(py, py))
        if method == "ML":
            return ypy2 - float(w.sum()), float(np.dot(w, w))
        if method == "REML":
            tr_p, tr_pp = f.traces()
            return ypy2 - tr_p, tr_pp
        return f.rss * k / (k - p) - k, float(w.sum())  # EB

    def adj_fn(t: float) -> float:
        a, b = num(t)
        return a / b

    def eb_root() -> float:
        return _root_above(lambda s: _qe(s, y, v, X), float(k - p), hi)

    t = _solve_fisher(method, adj_fn, max(0.0, _he_mods(y, v, X)), lambda t: num(t)[0],
                      lambda t: _loglik_mods(t, y, v, X, method), eb_root, hi, float(np.min(v)))
    if method in ("ML", "REML") and t > THRESHOLD:
        if _loglik_mods(0.0, y, v, X, method) - _loglik_mods(t, y, v, X, method) > _LL0_TOL:
            warnings.warn(
                f"{method}: Fisher scoring may have got stuck at a local maximum; setting tau2 = 0 "
                "(as metafor)",
                UserWarning,
                stacklevel=4,
            )
            t = 0.0
    return t


def _f_sf(x: float, df1: int, df2: int) -> float:
    from scipy import special

    return float(special.fdtrc(df1, df2, x))


def _wald(beta: np.ndarray, se: np.ndarray, test: str, df: int, level: float
          ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """z/t statistics, two-sided p-values and CIs per coefficient (se = 0 handled as ``_fit``)."""
    crit = _crit(level, test, df)
    stat = np.empty_like(beta)
    pval = np.empty_like(beta)
    for j, (b, s) in enumerate(zip(beta, se, strict=True)):
        if s > 0.0:
            stat[j] = b / s
            pval[j] = _two_sided_p(float(stat[j]), test, df)
        elif b == 0.0:
            stat[j], pval[j] = 0.0, 1.0
        else:
            stat[j], pval[j] = math.copysign(math.inf, b), 0.0
    return stat, pval, beta - crit * se, beta + crit * se


@dataclass(frozen=True)
class _RegFit:
    beta: np.ndarray
    vb: np.ndarray
    se: np.ndarray
    stat: np.ndarray
    pval: np.ndarray
    ci_low: np.ndarray
    ci_high: np.ndarray
    tau2: float
    tau2_0: float | None
    I2: float
    H2: float
    R2: float
    QE: float
    QE_pvalue: float
    QM: float
    QM_pvalue: float
    vt: float
    weights: np.ndarray
    fitted: np.ndarray


def _fit_mods(y: np.ndarray, v: np.ndarray, X: np.ndarray, method: str, test: str,
              level: float) -> _RegFit:
    """Fit the meta-regression exactly as ``rma.uni(yi, vi, mods=X[, -1], method, test)``."""
    k, p = X.shape
    tau2 = _tau2_mods(y, v, X, method)
    f = _wls(X, y, 1.0 / (v + tau2))
    vb = f.vb()
    if test == "knha":
        rss = f.rss
        vb = vb * (0.0 if rss <= _EPS else rss / (k - p))
    se = np.sqrt(np.diag(vb))
    df = k - p
    stat, pval, lo, hi = _wald(f.beta, se, test, df, level)

    # omnibus test of the moderators (all coefficients but the intercept)
    m = p - 1
    b = f.beta[1:]
    vbb = vb[1:, 1:]
    try:
        from scipy.linalg import cho_factor, cho_solve

        qm = float(b @ cho_solve(cho_factor(vbb), b))
    except np.linalg.LinAlgError:  # s² = 0 (knha with a perfect fit): vb is 0, as metafor's se
        qm = 0.0 if not np.any(b) else math.inf
    if test == "z":
        qm_p = _chi2_sf(qm, m)
    else:
        qm /= m
        qm_p = _f_sf(qm, m, df)

    # residual heterogeneity
    f0 = _wls(X, y, 1.0 / v)
    qe = max(0.0, f0.rss)
    qe_p = _chi2_sf(qe, df)
    vt = df / f0.traces()[0]
    tau2_0: float | None
    if method == "FE":
        i2 = max(0.0, 100.0 * (qe - df) / qe) if qe > 0.0 else 0.0
        h2 = qe / df
        tau2_0 = None
        # metafor: adjusted R² of the weighted lm(yi ~ X, weights = 1/vi), in %, truncated at 0
        if np.all(y == y[0]):
            r2 = 0.0
        else:
            # R² is invariant to the scale of y: fit y / 2^⌈log2 max|y|⌉ (exact) so that tiny effects (1e-210)
            # do not underflow the sums of squares to 0
            f0s = _wls(X, np.ldexp(y, -int(np.frexp(np.max(np.abs(y)))[1])), 1.0 / v)
            fit_v = X @ f0s.beta
            w0 = 1.0 / v
            mean_f = float(np.dot(w0, fit_v) / w0.sum())
            mss = float(np.dot(w0, (fit_v - mean_f) ** 2))
            total = mss + f0s.rss
            r2_raw = mss / total if total > 0.0 else 0.0
            r2 = max(0.0, 100.0 * (1.0 - (1.0 - r2_raw) * (k - 1) / (k - p)))
    else:
        i2 = 100.0 * tau2 / (vt + tau2)
        h2 = tau2 / vt + 1.0
        # metafor's pseudo-R²: proportional reduction of τ² against the intercept-only model
        tau2_0 = _tau2(y, v, method)
        r2 = 0.0 if tau2_0 == 0.0 else max(0.0, 100.0 * (tau2_0 - tau2) / tau2_0)
    w = f.w
    return _RegFit(
        beta=f.beta, vb=vb, se=se, stat=stat, pval=pval, ci_low=lo, ci_high=hi, tau2=tau2,
        tau2_0=tau2_0, I2=float(i2), H2=float(h2), R2=float(r2), QE=qe, QE_pvalue=qe_p, QM=qm,
        QM_pvalue=qm_p, vt=vt, weights=w / w.sum(), fitted=X @ f.beta,
    )


# --------------------------------------------------------------------------------------------
# moderators → design matrix (R's model.matrix with treatment contrasts)
# --------------------------------------------------------------------------------------------
#: columns of an ``EffectSizes`` besides its ``extra`` table that may serve as moderators
_EFFECT_COLUMNS = ("n", "mean_control", "mean_treatment")


def _is_default_index(index: Any) -> bool:
    import pandas as pd

    return isinstance(index, pd.RangeIndex) and index.start == 0 and index.step == 1


def _align(values: Any, label: str, names: tuple[str, ...]) -> np.ndarray:
    """One value per study: a pandas Series indexed by study names is matched by name; anything
    else (arrays, lists, a Series with the default 0..k-1 index) is taken in study order."""
    import pandas as pd

    k = len(names)
    if isinstance(values, pd.Series) and not _is_default_index(values.index):
        index = [str(i) for i in values.index]
        index_set, name_set = set(index), set(names)
        missing = [n for n in names if n not in index_set]
        unknown = [i for i in index if i not in name_set]
        if missing or unknown or len(set(index)) != len(index):
            raise MetaInputError(
                f"{label}: its index must list every study name once (it is matched by name); "
                f"missing {missing[:10]}, unknown {unknown[:10]}"
            )
        pos = {n: i for i, n in enumerate(index)}
        return np.asarray(values.to_numpy(dtype=object)[[pos[n] for n in names]], dtype=object)
    if isinstance(values, pd.Series):
        values = values.to_numpy(dtype=object)
    if isinstance(values, (str, bytes)) or np.ndim(values) != 1:
        raise MetaInputError(f"{label}: expected one value per study ({k}), got {values!r:.80}")
    arr = np.empty(len(values), dtype=object)
    arr[:] = list(values)
    if arr.size != k:
        raise MetaInputError(f"{label}: {arr.size} values for {k} studies")
    return arr


def _effects_column(effects: Any, col: str, names: tuple[str, ...], label: str) -> np.ndarray:
    extra = getattr(effects, "extra", None)
    if extra is not None and col in extra.columns:
        return _align(extra[col], label, names)
    if col in _EFFECT_COLUMNS:
        return _align(np.asarray(getattr(effects, col)), label, names)
    known = (list(extra.columns) if extra is not None else []) + list(_EFFECT_COLUMNS)
    raise MetaInputError(
        f"{label}: no column {col!r} in the EffectSizes (its extra columns and "
        f"{', '.join(_EFFECT_COLUMNS)}); columns: {known}" + suggest(col, known)
    )


def _moderator_columns(
    moderators: Any, names: tuple[str, ...], effects: Any
) -> list[tuple[str, np.ndarray]]:
    """``[(column name, one value per study)]`` from a DataFrame, Series, mapping or column names."""
    import pandas as pd

    if isinstance(moderators, Sequence) and not isinstance(moderators, (str, bytes)) \
            and len(moderators) == 0:
        return []
    if isinstance(moderators, str) or (
        isinstance(moderators, Sequence) and not isinstance(moderators, (bytes, np.ndarray))
        and all(isinstance(c, str) for c in moderators)
    ):
        cols = [moderators] if isinstance(moderators, str) else list(moderators)
        if effects is None:
            raise MetaInputError(
                f"moderators={moderators!r} names columns, which needs an EffectSizes input (its "
                "extra columns); with arrays pass a DataFrame or a mapping column -> values"
            )
        return [(c, _effects_column(effects, c, names, f"moderator {c!r}")) for c in cols]
    if isinstance(moderators, pd.DataFrame):
        frame = moderators
        if not _is_default_index(frame.index):
            return [(str(c), _align(frame[c], f"moderators (DataFrame index), column {c!r}",
                                    names)) for c in frame.columns]
        return [(str(c), _align(frame[c].to_numpy(dtype=object), f"moderator {c!r}", names))
                for c in frame.columns]
    if isinstance(moderators, pd.Series):
        if moderators.name is None:
            raise MetaInputError("moderators: a pandas Series needs a name (the moderator's name)")
        name = str(moderators.name)
        return [(name, _align(moderators, f"moderator {name!r}", names))]
    if isinstance(moderators, Mapping):
        return [(str(c), _align(vals, f"moderator {c!r}", names)) for c, vals in moderators.items()]
    raise MetaInputError(
        "moderators must be a pandas DataFrame, a mapping column name -> one value per study, or "
        f"(with an EffectSizes) column names; got {type(moderators).__name__}"
    )


def _is_missing(x: Any) -> bool:
    """None, NaN, NaT or pd.NA."""
    import pandas as pd

    try:
        return bool(pd.isna(x))
    except (TypeError, ValueError):  # not a scalar
        return False


def _levels(values: np.ndarray, dtype_source: Any = None) -> list[Any]:
    """Levels of a categorical moderator: a pandas Categorical's categories (those observed), in
    order; otherwise the sorted distinct values (R's ``factor``)."""
    import pandas as pd

    if isinstance(dtype_source, pd.CategoricalDtype):
        observed = set(values.tolist())
        return [c for c in dtype_source.categories if c in observed]
    distinct = set(values.tolist())
    try:
        return sorted(distinct)
    except TypeError:
        return sorted(distinct, key=str)


def _encode(name: str, values: np.ndarray, names: tuple[str, ...], dtype_source: Any = None
            ) -> tuple[list[str], list[np.ndarray], str]:
    """Columns of X for one moderator: numeric → itself; categorical (strings, booleans, pandas
    categories) → one 0/1 dummy per level but the first (treatment coding), named
    ``name + level`` (booleans: ``nameTRUE``) like R's ``model.matrix``. Returns
    (column names, columns, kind)."""
    import pandas as pd

    for i, x in enumerate(values):
        if _is_missing(x):
            raise MetaInputError(
                f"moderator {name!r} is missing for study {names[i]!r} (position {i}); metafor "
                "would drop the study: remove it or fill in the value"
            )
    categorical = isinstance(dtype_source, pd.CategoricalDtype)
    is_bool = all(isinstance(x, (bool, np.bool_)) for x in values)
    is_num = not is_bool and all(
        isinstance(x, (int, float, np.integer, np.floating)) and not isinstance(x, (bool, np.bool_))
        for x in values
    )
    if is_num and not categorical:
        col = np.array(values, dtype=float)
        bad = np.flatnonzero(~np.isfinite(col))
        if bad.size:
            i = int(bad[0])
            raise MetaInputError(
                f"moderator {name!r} must be finite: study {names[i]!r} has {col[i]!r}"
            )
        return [name], [col], "numeric"
    if is_bool:
        values = np.array([bool(x) for x in values], dtype=object)
        levels: list[Any] = [False, True]
        labels = {False: "FALSE", True: "TRUE"}
    else:
        if not categorical and not all(isinstance(x, str) for x in values):
            kinds = sorted({type(x).__name__ for x in values})
            raise MetaInputError(
                f"moderator {name!r} mixes value types ({', '.join(kinds)}): use numbers for a "
                "numeric moderator and strings (or a pandas Categorical) for a categorical one"
            )
        levels = _levels(values, dtype_source)
        labels = {lv: str(lv) for lv in levels}
    present = [lv for lv in levels if any(x == lv for x in values)]
    if len(present) < 2:
        raise MetaInputError(
            f"moderator {name!r} has a single level ({labels[present[0]]!r}) among the studies: "
            "it cannot explain differences between them"
        )
    cols = [np.array([1.0 if x == lv else 0.0 for x in values]) for lv in present[1:]]
    return [f"{name}{labels[lv]}" for lv in present[1:]], cols, "categorical"


def _design(
    moderators: Any, names: tuple[str, ...], effects: Any
) -> tuple[np.ndarray, tuple[str, ...], tuple[str, ...]]:
    """``(X, coefficient names, moderator names)`` with the intercept ``intrcpt`` first."""
    import pandas as pd

    columns = _moderator_columns(moderators, names, effects)
    if not columns:
        raise MetaInputError("moderators has no columns")
    dtypes: dict[str, Any] = {}
    if isinstance(moderators, pd.DataFrame):
        dtypes = {str(c): moderators[c].dtype for c in moderators.columns}
    elif isinstance(moderators, pd.Series):
        dtypes = {str(moderators.name): moderators.dtype}
    elif isinstance(moderators, Mapping):
        dtypes = {str(c): getattr(v, "dtype", None) for c, v in moderators.items()}
    elif effects is not None and getattr(effects, "extra", None) is not None:
        extra = effects.extra
        dtypes = {c: extra[c].dtype for c, _ in columns if c in extra.columns}
    mod_names = tuple(c for c, _ in columns)
    dups = sorted({c for c in mod_names if mod_names.count(c) > 1})
    if dups:
        raise MetaInputError(f"moderators: repeated column name(s) {dups}")
    k = len(names)
    coef_names = ["intrcpt"]
    cols = [np.ones(k)]
    for name, values in columns:
        cn, cv, _ = _encode(name, values, names, dtypes.get(name))
        coef_names += cn
        cols += cv
    dups = sorted({c for c in coef_names if coef_names.count(c) > 1})
    if dups:
        raise MetaInputError(f"moderators: coefficient name(s) {dups} occur twice; rename a column")
    X = np.column_stack(cols)
    p = X.shape[1]
    if k <= p:
        raise MetaInputError(
            f"a meta-regression with {p} coefficients ({', '.join(coef_names)}) needs more than "
            f"{p} studies; there are {k}"
        )
    # full column rank, checked column by column on unit-length columns (scale-free)
    unit = X / np.linalg.norm(X, axis=0)
    for j in range(1, p):
        if np.linalg.matrix_rank(unit[:, : j + 1], tol=1e-9) <= j:
            raise MetaInputError(
                f"moderator column {coef_names[j]!r} is constant or a linear combination of the "
                f"intercept and the columns before it ({', '.join(coef_names[:j])}); metafor "
                "drops such redundant predictors: remove it"
            )
    return X, tuple(coef_names), mod_names


# --------------------------------------------------------------------------------------------
# input validation
# --------------------------------------------------------------------------------------------
def _make_unique(names: tuple[str, ...]) -> tuple[str, ...]:
    """Number repeated labels "a", "a" → "a.1", "a.2" (metafor's ``.make.unique`` for ``slab``)."""
    counts: dict[str, int] = {}
    for n in names:
        counts[n] = counts.get(n, 0) + 1
    if all(c == 1 for c in counts.values()):
        return names
    seen: dict[str, int] = {}
    out = []
    for n in names:
        if counts[n] > 1:
            seen[n] = seen.get(n, 0) + 1
            out.append(f"{n}.{seen[n]}")
        else:
            out.append(n)
    if len(set(out)) != len(out):
        raise MetaInputError(f"study names cannot be made unique by numbering repeats: {names[:10]}")
    return tuple(out)


def _validate(
    yi: Any, vi: Any, method: str, test: str, level: float, names: Sequence[Any] | None
) -> tuple[np.ndarray, np.ndarray, str, str, float, tuple[str, ...], str | None, Any]:
    if not isinstance(method, str) or method.upper() not in METHODS:
        raise MetaInputError(
            f"unknown method {method!r}; valid methods: {', '.join(METHODS)}"
            + suggest(method, METHODS)
        )
    method_c = method.upper()
    if not isinstance(test, str) or test.lower() not in TESTS:
        raise MetaInputError(
            f"unknown test {test!r}; valid tests: {', '.join(TESTS)}" + suggest(test, TESTS)
        )
    test_c = test.lower()
    level_f = check_level(level, error=MetaInputError)

    effects = None
    measure = None
    if hasattr(yi, "yi") and hasattr(yi, "vi"):  # an EffectSizes (duck-typed)
        if vi is not None:
            raise MetaInputError("vi must be None when yi is an EffectSizes (it carries its own vi)")
        effects = yi
        measure = getattr(yi, "measure", None)
        if names is None:
            names = getattr(yi, "names", None)
        y_raw, v_raw = yi.yi, yi.vi
    else:
        if vi is None:
            raise MetaInputError("vi is required when yi is an array of effects")
        y_raw, v_raw = yi, vi

    try:
        y = np.array(y_raw, dtype=float).reshape(-1) if np.ndim(y_raw) <= 1 else None
        v = np.array(v_raw, dtype=float).reshape(-1) if np.ndim(v_raw) <= 1 else None
    except (TypeError, ValueError) as exc:
        raise MetaInputError(f"yi and vi must be numeric: {exc}") from None
    if y is None or v is None:
        raise MetaInputError("yi and vi must be one-dimensional")
    k = y.size
    if k == 0:
        raise MetaInputError("no studies: yi is empty")
    if v.size != k:
        raise MetaInputError(f"yi and vi have different lengths ({k} vs {v.size})")

    if names is None:
        names_t = tuple(map(str, range(1, k + 1)))
    else:
        names_t = tuple(str(n) for n in names)
        if len(names_t) != k:
            raise MetaInputError(f"names has {len(names_t)} entries but there are {k} studies")
        names_t = _make_unique(names_t)

    for arr, label in ((y, "yi"), (v, "vi")):
        bad = np.flatnonzero(~np.isfinite(arr))
        if bad.size:
            i = int(bad[0])
            raise MetaInputError(
                f"{label} must be finite: study {names_t[i]!r} (position {i}) has {label}={float(arr[i])!r}"
                + (f" ({bad.size} non-finite values)" if bad.size > 1 else "")
            )
    bad = np.flatnonzero(v <= 0.0)
    if bad.size:
        raise MetaInputError(_nonpositive_vi(v, bad, names_t, method_c))
    lo, hi = int(np.argmin(v)), int(np.argmax(v))
    if float(v[hi]) > VI_RATIO_MAX * float(v[lo]):  # no division: v[lo] may be subnormal
        raise MetaInputError(
            f"vi out of range: study {names_t[lo]!r} (position {lo}) has vi={float(v[lo])!r} and "
            f"study {names_t[hi]!r} (position {hi}) vi={float(v[hi])!r}; the weights 1/vi cannot be combined "
            f"in float64 when max(vi)/min(vi) > {VI_RATIO_MAX:g}: drop or rescale the outlying "
            "study"
        )
    _standardise(y, v, names_t)  # raises for effects too far apart
    if method_c == "EE":
        method_c = "FE"
    return y, v, method_c, test_c, level_f, names_t, measure, effects


def _nonpositive_vi(v: np.ndarray, bad: np.ndarray, names: tuple[str, ...], method: str) -> str:
    """The error text for studies with ``vi <= 0``: every such study (up to 20, then the count),
    and what of the requested ``method`` is undefined: Q, I² and H² weight every study by 1/vi,
    and so do the FE (EE), DL, HS and PM estimators themselves (at τ² = 0)."""
    listed = ", ".join(f"study {names[i]!r} (position {i}) has vi={float(v[i])!r}"
                       for i in bad[:20].tolist())
    more = f", … ({bad.size} studies in all)" if bad.size > 20 else ""
    count = f"{bad.size} of {v.size} studies: " if bad.size > 1 else ""
    own = (f" and the {method} estimator" if method in ("FE", "EE", "DL", "HS", "PM") else "")
    return (f"vi must be > 0: {count}{listed}{more}; Q, I², "
            f"H²{own} weight each study by 1/vi, which is undefined for them (method {method}); "
            "zero variances come from identical systems or a constant difference: leave them "
            "out (effect_sizes(..., degenerate='drop'))")


# --------------------------------------------------------------------------------------------
# results
# --------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class TransformedSummary:
    """Summary and per-study values on the display scale (``r = tanh(z)`` for ZCOR)."""

    transform: str
    estimate: float
    ci_low: float
    ci_high: float
    pi_low: float
    pi_high: float
    yi: np.ndarray
    yi_ci_low: np.ndarray
    yi_ci_high: np.ndarray


def _jsonable(x: Any) -> Any:
    """Plain Python values; non-finite floats become None (JSON has no NaN/inf)."""
    if isinstance(x, np.ndarray):
        return [_jsonable(e) for e in x.tolist()]
    if isinstance(x, (list, tuple)):
        return [_jsonable(e) for e in x]
    if isinstance(x, (bool, np.bool_)):
        return bool(x)
    if isinstance(x, (int, np.integer)):
        return int(x)
    if isinstance(x, (float, np.floating)):
        f = float(x)
        return f if math.isfinite(f) else None
    return x


class _ResultText:
    """What every result class of this module prints the same way: ``to_json()``, its
    ``to_dict()`` as a JSON string (``kwargs`` go to :func:`json.dumps`), and ``str()``, its
    ``summary()``."""

    def to_dict(self) -> dict[str, Any]:
        raise NotImplementedError

    def summary(self) -> str:
        raise NotImplementedError

    def to_json(self, **kwargs: Any) -> str:
        """:meth:`to_dict` as a JSON string (``kwargs`` go to :func:`json.dumps`)."""
        return json.dumps(self.to_dict(), allow_nan=False, **kwargs)

    def __str__(self) -> str:
        return self.summary()


@dataclass(frozen=True)
class MetaResult(_ResultText):
    """A fitted meta-analysis model (one object, many views, like metafor's ``rma``).

    ``estimate``/``se``/``ci_*``/``statistic``/``pvalue`` are ``coef``/``se``/``ci.lb``/``ci.ub``/
    ``zval``/``pval`` of ``rma.uni``; ``pi_*`` from ``predict.rma``; ``tau2_ci``/``I2_ci`` from
    ``confint`` (Q-profile); ``weights`` = ``weights.rma.uni``/100. See the module docstring.
    ``test`` is the test actually used (``"z"`` when k = 1).
    """

    estimate: float
    se: float
    ci_low: float
    ci_high: float
    statistic: float
    pvalue: float
    tau2: float
    tau: float
    I2: float
    H2: float
    Q: float
    Q_df: int
    Q_pvalue: float
    pi_low: float
    pi_high: float
    weights: np.ndarray
    tau2_ci: tuple[float, float]
    I2_ci: tuple[float, float]
    k: int
    method: str
    test: str
    level: float
    names: tuple[str, ...]
    yi: np.ndarray
    vi: np.ndarray
    measure: str | None = None
    effects: EffectSizes | None = None
    vt: float = field(default=0.0)

    # ----------------------------------------------------------------------------- views
    @property
    def signature(self) -> Signature:
        """Reproducibility signature: effect measure, τ² estimator, test, level, k, version, and
        how the effects were computed when that is not the plain formula (a set-level metric's
        bootstrap: its resamples and seed)."""
        fields: dict[str, object] = {"measure": self.measure, "method": self.method,
                                     "test": self.test, "level": self.level, "k": self.k}
        eff_sig = getattr(self.effects, "signature", None)
        if eff_sig:
            ef = parse_signature(str(eff_sig))
            for key in ("method_detail", "n_resamples", "seed"):
                if key in ef:
                    fields[key] = ef[key]
        return make_signature("meta", fields)

    @property
    def is_fixed(self) -> bool:
        """True for the fixed/equal-effects model."""
        return self.method in ("FE", "EE")

    @property
    def df(self) -> int | None:
        """Degrees of freedom of the t reference distribution (None for the z test)."""
        return None if self.test == "z" else self.k - 1

    def transformed(self) -> TransformedSummary:
        """Back-transformed summary for display: ``tanh`` for ZCOR (pooling stays on the z scale,
        as ``predict(res, transf=transf.ztor)``); the identity for every other measure."""
        z = self.level_crit_z()
        se = np.sqrt(self.vi)
        lo, hi = self.yi - z * se, self.yi + z * se
        f, name = (np.tanh, "tanh") if self.measure == "ZCOR" else (np.positive, "identity")
        return TransformedSummary(
            transform=name,
            estimate=float(f(self.estimate)), ci_low=float(f(self.ci_low)),
            ci_high=float(f(self.ci_high)), pi_low=float(f(self.pi_low)),
            pi_high=float(f(self.pi_high)), yi=np.asarray(f(self.yi), dtype=float),
            yi_ci_low=np.asarray(f(lo), dtype=float), yi_ci_high=np.asarray(f(hi), dtype=float),
        )

    def level_crit_z(self) -> float:
        """Normal quantile ``z_{1-α/2}`` used for the per-study intervals (as metafor's forest)."""
        return _crit(self.level, "z", 0)

    def leave_one_out(self) -> pd.DataFrame:
        """Refit without each study in turn (metafor ``leave1out``): one row per omitted study.

        Columns: name, estimate, se, statistic, ci_low, ci_high, pvalue, Q, Q_pvalue, tau2, I2, H2.
        Same method, test and level; with k = 2 each refit has k = 1 and uses the z test (metafor).
        """
        import pandas as pd

        if self.k < 2:
            raise MetaInputError("leave_one_out needs at least 2 studies (k = 1)")
        method = "FE" if self.method == "EE" else self.method
        rows = []
        idx = np.arange(self.k)
        for i in range(self.k):
            keep = idx != i
            f = _fit_any(self.yi[keep], self.vi[keep], method, self.test, self.level)
            rows.append((self.names[i], f.estimate, f.se, f.statistic, f.ci_low, f.ci_high,
                         f.pvalue, f.Q, f.Q_pvalue, f.tau2, f.I2, f.H2))
        cols = ["name", "estimate", "se", "statistic", "ci_low", "ci_high", "pvalue", "Q",
                "Q_pvalue", "tau2", "I2", "H2"]
        return pd.DataFrame(rows, columns=cols)

    def to_frame(self) -> pd.DataFrame:
        """Per-study table plus a summary row.

        Columns: name, kind ("study"/"summary"), yi, vi, se, ci_low, ci_high (per-study normal CI
        ``yi ± z_{1-α/2}·sqrt(vi)`` at ``level``; the model CI in the summary row), weight (relative;
        1 in the summary row). For ZCOR also r, r_ci_low, r_ci_high (``tanh`` back-transform).
        """
        import pandas as pd

        z = self.level_crit_z()
        se = np.sqrt(self.vi)
        label = "FE Model" if self.is_fixed else f"RE Model ({self.method})"
        df = pd.DataFrame({
            "name": list(self.names) + [label],
            "kind": ["study"] * self.k + ["summary"],
            "yi": np.append(self.yi, self.estimate),
            "vi": np.append(self.vi, self.se**2),
            "se": np.append(se, self.se),
            "ci_low": np.append(self.yi - z * se, self.ci_low),
            "ci_high": np.append(self.yi + z * se, self.ci_high),
            "weight": np.append(self.weights, 1.0),
        })
        if self.measure == "ZCOR":
            df["r"] = np.tanh(df["yi"].to_numpy())
            df["r_ci_low"] = np.tanh(df["ci_low"].to_numpy())
            df["r_ci_high"] = np.tanh(df["ci_high"].to_numpy())
        return df

    def to_dict(self) -> dict[str, Any]:
        """JSON-serialisable dict of all fields (plain floats/lists; non-finite values → None)."""
        d: dict[str, Any] = {
            "estimate": self.estimate, "se": self.se, "ci_low": self.ci_low,
            "ci_high": self.ci_high, "statistic": self.statistic, "pvalue": self.pvalue,
            "tau2": self.tau2, "tau": self.tau, "I2": self.I2, "H2": self.H2, "Q": self.Q,
            "Q_df": self.Q_df, "Q_pvalue": self.Q_pvalue, "pi_low": self.pi_low,
            "pi_high": self.pi_high, "weights": self.weights, "tau2_ci": list(self.tau2_ci),
            "I2_ci": list(self.I2_ci), "k": self.k, "method": self.method, "test": self.test,
            "level": self.level, "names": list(self.names), "yi": self.yi, "vi": self.vi,
            "measure": self.measure, "signature": str(self.signature),
        }
        if self.measure == "ZCOR":
            t = self.transformed()
            d["transformed"] = {
                "transform": t.transform, "estimate": _jsonable(t.estimate),
                "ci_low": _jsonable(t.ci_low), "ci_high": _jsonable(t.ci_high),
                "pi_low": _jsonable(t.pi_low), "pi_high": _jsonable(t.pi_high),
            }
        return {key: _jsonable(val) for key, val in d.items()}

    def summary(self, digits: int = 4) -> str:
        """Readable text in the layout of metafor's ``print.rma.uni``."""
        def f(x: float) -> str:
            return f"{x:.{digits}f}"

        pct_s = format_level(self.level)
        lines = []
        if self.is_fixed:
            model = "Equal-Effects Model" if self.method == "EE" else "Fixed-Effects Model"
            lines.append(f"{model} (k = {self.k})")
        else:
            lines.append(f"Random-Effects Model (k = {self.k}; tau^2 estimator: {self.method})")
        if self.measure:
            lines.append(f"Measure: {self.measure}")
        lines.append("")
        if not self.is_fixed:
            lines.append(
                f"tau^2 (estimated amount of total heterogeneity): {f(self.tau2)} "
                f"({pct_s} CI [{f(self.tau2_ci[0])}, {f(self.tau2_ci[1])}])"
            )
            lines.append(f"tau (square root of estimated tau^2 value):      {f(self.tau)}")
        lines.append(
            f"I^2 (total heterogeneity / total variability):   {self.I2:.2f}% "
            f"({pct_s} CI [{self.I2_ci[0]:.2f}%, {self.I2_ci[1]:.2f}%])"
        )
        lines.append(f"H^2 (total variability / sampling variability):  {self.H2:.2f}")
        lines += ["", "Test for Heterogeneity:",
                  f"Q(df = {self.Q_df}) = {f(self.Q)}, p-val {_p_txt(self.Q_pvalue)}", ""]
        lines.append("Model Results:")
        lines.append("")
        stat_name = "zval" if self.test == "z" else "tval"
        hdr = ["estimate", "se", stat_name]
        if self.test != "z":
            hdr.append("df")
        hdr += ["pval", "ci.lb", "ci.ub"]
        vals = [f(self.estimate), f(self.se), f(self.statistic)]
        if self.test != "z":
            vals.append(str(self.k - 1))
        vals += ["<.0001" if self.pvalue < 1e-4 else f"{self.pvalue:.4f}", f(self.ci_low),
                 f(self.ci_high)]
        widths = [max(len(h), len(v)) for h, v in zip(hdr, vals, strict=True)]
        lines.append("  ".join(h.rjust(w) for h, w in zip(hdr, widths, strict=True)))
        lines.append("  ".join(v.rjust(w) for v, w in zip(vals, widths, strict=True)))
        lines.append("")
        test_txt = {"z": "z", "t": f"t(df = {self.k - 1})",
                    "knha": f"Knapp-Hartung t(df = {self.k - 1})"}[self.test]
        lines.append(f"Test: {test_txt}")
        lines.append(f"{pct_s} prediction interval: [{f(self.pi_low)}, {f(self.pi_high)}]")
        if self.measure == "ZCOR":
            t = self.transformed()
            lines += ["", "Back-transformed to the correlation scale (r = tanh(z)):",
                      f"  r = {f(t.estimate)}, {pct_s} CI [{f(t.ci_low)}, {f(t.ci_high)}], "
                      f"{pct_s} PI [{f(t.pi_low)}, {f(t.pi_high)}]"]
        lines += ["", str(self.signature)]
        return "\n".join(lines)



def _sig_fields(fields: dict[str, object]) -> dict[str, object]:
    """Signature fields, leaving out keys not (yet) documented in ``signature.FIELDS``."""
    from .signature import FIELDS

    return {key: val for key, val in fields.items() if key in FIELDS}


def _p_txt(x: float) -> str:
    return "< .0001" if x < 1e-4 else f"= {x:.4f}"


def _table(rows: list[list[str]], header: list[str]) -> list[str]:
    """Right-aligned text table (first column left-aligned), as R prints a matrix."""
    widths = [max(len(r[j]) for r in [header, *rows]) for j in range(len(header))]
    out = []
    for r in [header, *rows]:
        cells = [r[0].ljust(widths[0])] + [c.rjust(w) for c, w in zip(r[1:], widths[1:], strict=True)]
        out.append("  ".join(cells))
    return out


@dataclass(frozen=True)
class MetaRegressionResult(_ResultText):
    """A fitted meta-regression (mixed-effects model; fixed-effects with moderators for FE), like
    ``metafor::rma(yi, vi, mods = ~ ..., method, test)``.

    Per coefficient (arrays in the order of ``coef_names``: ``"intrcpt"``, then the moderator
    columns as R's ``model.matrix`` names them): ``estimate``, ``se``, ``statistic`` (z, or t with
    ``k - p`` df for ``test="t"``/``"knha"``), ``pvalue``, ``ci_low``, ``ci_high``; ``vcov`` is their
    covariance matrix (metafor ``vcov``). ``tau2`` is the residual heterogeneity, ``I2``/``H2``
    the residual I²/H² (``vt = (k-p)/tr P`` at τ² = 0), ``R2`` the % of heterogeneity accounted
    for: ``max(0, 100 (τ²₀ - τ²)/τ²₀)`` with ``tau2_0`` the τ² of the intercept-only model by the
    same method (0 when τ²₀ = 0); for FE models metafor's adjusted R² of the weighted regression,
    ``max(0, 100 (1 - (1 - R²_w)(k-1)/(k-p)))``. ``QE`` (df ``k - p``) tests residual heterogeneity;
    ``QM`` is the omnibus test of all coefficients but the intercept: χ² with ``QM_df`` df for
    ``test="z"``, else ``F(QM_df, QM_ddf)`` (metafor divides the Wald statistic by ``QM_df``).
    ``tau2_ci``/``I2_ci`` are Q-profile intervals from ``QE(τ²)`` (``confint``). ``weights`` are
    ``w̃_i/Σw̃``, ``fitted`` is ``Xβ``.
    """

    coef_names: tuple[str, ...]
    estimate: np.ndarray
    se: np.ndarray
    statistic: np.ndarray
    pvalue: np.ndarray
    ci_low: np.ndarray
    ci_high: np.ndarray
    vcov: np.ndarray
    tau2: float
    tau: float
    I2: float
    H2: float
    R2: float
    tau2_0: float | None
    tau2_ci: tuple[float, float]
    I2_ci: tuple[float, float]
    QE: float
    QE_df: int
    QE_pvalue: float
    QM: float
    QM_df: int
    QM_ddf: int | None
    QM_pvalue: float
    k: int
    p: int
    method: str
    test: str
    level: float
    names: tuple[str, ...]
    yi: np.ndarray
    vi: np.ndarray
    X: np.ndarray
    moderators: tuple[str, ...]
    weights: np.ndarray
    fitted: np.ndarray
    measure: str | None = None
    effects: EffectSizes | None = None
    vt: float = field(default=0.0)

    @property
    def signature(self) -> Signature:
        """Reproducibility signature: measure, τ² estimator, test, level, k and the moderators."""
        return make_signature("meta", _sig_fields({
            "measure": self.measure, "method": self.method, "test": self.test,
            "level": self.level, "k": self.k, "mods": list(self.moderators),
        }))

    @property
    def is_fixed(self) -> bool:
        return self.method in ("FE", "EE")

    @property
    def df(self) -> int | None:
        """Degrees of freedom of the t tests (``k - p``; None for the z test)."""
        return None if self.test == "z" else self.k - self.p

    @property
    def residuals(self) -> np.ndarray:
        """``yi - Xβ``."""
        return np.asarray(self.yi - self.fitted)

    def coef(self) -> dict[str, float]:
        """``{coefficient name: estimate}`` (metafor ``coef``)."""
        return {n: float(b) for n, b in zip(self.coef_names, self.estimate, strict=True)}

    def to_frame(self) -> pd.DataFrame:
        """The coefficient table (metafor ``coef(summary(res))``), indexed by coefficient name:
        estimate, se, statistic, pvalue, ci_low, ci_high."""
        import pandas as pd

        frame = pd.DataFrame({
            "estimate": self.estimate, "se": self.se, "statistic": self.statistic,
            "pvalue": self.pvalue, "ci_low": self.ci_low, "ci_high": self.ci_high,
        }, index=pd.Index(list(self.coef_names), name="coefficient"))
        return frame

    def to_dict(self) -> dict[str, Any]:
        """JSON-serialisable dict of all fields (plain floats/lists; non-finite values → None)."""
        d: dict[str, Any] = {
            "coef_names": list(self.coef_names), "estimate": self.estimate, "se": self.se,
            "statistic": self.statistic, "pvalue": self.pvalue, "ci_low": self.ci_low,
            "ci_high": self.ci_high, "vcov": self.vcov, "tau2": self.tau2, "tau": self.tau,
            "I2": self.I2, "H2": self.H2, "R2": self.R2, "tau2_0": self.tau2_0,
            "tau2_ci": list(self.tau2_ci), "I2_ci": list(self.I2_ci), "QE": self.QE,
            "QE_df": self.QE_df, "QE_pvalue": self.QE_pvalue, "QM": self.QM, "QM_df": self.QM_df,
            "QM_ddf": self.QM_ddf, "QM_pvalue": self.QM_pvalue, "k": self.k, "p": self.p,
            "method": self.method, "test": self.test, "level": self.level,
            "names": list(self.names), "moderators": list(self.moderators), "yi": self.yi,
            "vi": self.vi, "X": self.X, "weights": self.weights, "fitted": self.fitted,
            "measure": self.measure, "signature": str(self.signature),
        }
        return {key: _jsonable(val) for key, val in d.items()}

    def summary(self, digits: int = 4) -> str:
        """Readable text in the layout of metafor's ``print.rma.uni`` for models with moderators."""
        def f(x: float) -> str:
            return f"{x:.{digits}f}"

        pct_s = format_level(self.level)
        lines = []
        if self.is_fixed:
            model = "Equal-Effects" if self.method == "EE" else "Fixed-Effects"
            lines.append(f"{model} with Moderators Model (k = {self.k})")
        else:
            lines.append(f"Mixed-Effects Model (k = {self.k}; tau^2 estimator: {self.method})")
        if self.measure:
            lines.append(f"Measure: {self.measure}")
        lines.append("")
        rows = []
        if not self.is_fixed:
            rows.append(("tau^2 (estimated amount of residual heterogeneity):",
                         f"{f(self.tau2)} ({pct_s} CI [{f(self.tau2_ci[0])}, "
                         f"{f(self.tau2_ci[1])}])"))
            rows.append(("tau (square root of estimated tau^2 value):", f(self.tau)))
        rows.append(("I^2 (residual heterogeneity / unaccounted variability):",
                     f"{self.I2:.2f}%"))
        rows.append(("H^2 (unaccounted variability / sampling variability):", f"{self.H2:.2f}"))
        rows.append(("R^2 (amount of heterogeneity accounted for):", f"{self.R2:.2f}%"))
        width = max(len(a) for a, _ in rows)
        lines += [f"{a.ljust(width)} {b}" for a, b in rows]
        lines += ["", "Test for Residual Heterogeneity:",
                  f"QE(df = {self.QE_df}) = {f(self.QE)}, p-val {_p_txt(self.QE_pvalue)}", ""]
        coefs = "2" if self.p == 2 else f"2:{self.p}"
        lines.append(f"Test of Moderators (coefficient{'s' if self.p > 2 else ''} {coefs}):")
        if self.QM_ddf is None:
            lines.append(f"QM(df = {self.QM_df}) = {f(self.QM)}, p-val {_p_txt(self.QM_pvalue)}")
        else:
            lines.append(f"F(df1 = {self.QM_df}, df2 = {self.QM_ddf}) = {f(self.QM)}, "
                         f"p-val {_p_txt(self.QM_pvalue)}")
        lines += ["", "Model Results:", ""]
        stat_name = "zval" if self.test == "z" else "tval"
        header = ["", "estimate", "se", stat_name]
        if self.test != "z":
            header.append("df")
        header += ["pval", "ci.lb", "ci.ub"]
        rows_t = []
        for j, name in enumerate(self.coef_names):
            r = [name, f(self.estimate[j]), f(self.se[j]), f(self.statistic[j])]
            if self.test != "z":
                r.append(str(self.k - self.p))
            r += ["<.0001" if self.pvalue[j] < 1e-4 else f"{self.pvalue[j]:.4f}",
                  f(self.ci_low[j]), f(self.ci_high[j])]
            rows_t.append(r)
        lines += _table(rows_t, header)
        lines.append("")
        df = self.k - self.p
        test_txt = {"z": "z", "t": f"t(df = {df})", "knha": f"Knapp-Hartung t(df = {df})"}
        lines.append(f"Test: {test_txt[self.test]}")
        lines += ["", str(self.signature)]
        return "\n".join(lines)



def _meta_regression(
    y: np.ndarray, v: np.ndarray, method: str, test: str, level: float, names: tuple[str, ...],
    measure: str | None, effects: Any, moderators: Any, method_label: str,
    design: tuple[np.ndarray, tuple[str, ...], tuple[str, ...]] | None = None,
) -> MetaRegressionResult:
    X, coef_names, mod_names = _design(moderators, names, effects) if design is None else design
    k, p = X.shape
    fit = _fit_mods(y, v, X, method, test, level)
    tau2_ci, i2_ci = _qprofile_ci(y, v, fit.tau2, fit.vt, level,
                                  qfun=lambda t: _qe(t, y, v, X), p=p)
    arrays = {
        "estimate": fit.beta, "se": fit.se, "statistic": fit.stat, "pvalue": fit.pval,
        "ci_low": fit.ci_low, "ci_high": fit.ci_high, "vcov": fit.vb, "yi": y, "vi": v, "X": X,
        "weights": fit.weights, "fitted": fit.fitted,
    }
    for arr in arrays.values():
        arr.setflags(write=False)
    return MetaRegressionResult(
        coef_names=coef_names, tau2=fit.tau2, tau=math.sqrt(fit.tau2), I2=fit.I2, H2=fit.H2,
        R2=fit.R2, tau2_0=fit.tau2_0, tau2_ci=tau2_ci, I2_ci=i2_ci, QE=fit.QE, QE_df=k - p,
        QE_pvalue=fit.QE_pvalue, QM=fit.QM, QM_df=p - 1, QM_ddf=None if test == "z" else k - p,
        QM_pvalue=fit.QM_pvalue, k=k, p=p, method=method_label, test=test, level=level,
        names=names, moderators=mod_names, measure=measure, effects=effects, vt=fit.vt,
        **arrays,
    )


@overload
def meta_analysis(
    yi: Any, vi: Any = ..., method: str = ..., test: str = ..., level: float = ...,
    names: Sequence[Any] | None = ..., moderators: None = ...,
) -> MetaResult: ...


@overload
def meta_analysis(
    yi: Any, vi: Any = ..., method: str = ..., test: str = ..., level: float = ...,
    names: Sequence[Any] | None = ...,
    *, moderators: pd.DataFrame | pd.Series | Mapping[str, Any] | str | Sequence[str],
) -> MetaRegressionResult: ...


def meta_analysis(
    yi: Any,
    vi: Any = None,
    method: str = "REML",
    test: str = "z",
    level: float = 0.95,
    names: Sequence[Any] | None = None,
    moderators: Any = None,
) -> MetaResult | MetaRegressionResult:
    """Fit a fixed- or random-effects meta-analysis exactly as ``metafor::rma.uni``.

    Parameters
    ----------
    yi : array-like of effect sizes, or an ``EffectSizes`` (its ``names``, ``measure`` are used and
        it is stored in ``effects``; ``vi`` must then be None).
    vi : array-like of sampling variances (finite, > 0).
    method : "FE" (alias "EE"), "DL", "HE", "HS", "SJ", "ML", "REML", "EB" or "PM".
    test : "z", "t" (t with k-1 df) or "knha" (Knapp–Hartung / HKSJ).
    level : confidence level in (0, 1) for the CI, PI and the τ²/I² CIs.
    names : study labels (default "1".."k", or the EffectSizes' names); repeated labels are
        numbered like metafor's ``slab`` ("a", "a" → "a.1", "a.2").
    moderators : fit a meta-regression instead (``rma(yi, vi, mods = ~ ...)``) and return a
        :class:`MetaRegressionResult`. A pandas DataFrame (one row per study: in study order with
        the default index, else matched to the study names by its index), a mapping column name →
        one value per study, or with an ``EffectSizes`` input a column name or list of names of its
        ``extra`` table (or ``n``, ``mean_control``, ``mean_treatment``). Numeric columns enter as
        they are; strings, booleans and pandas Categoricals are categorical: treatment-coded
        dummies with the first level (a Categorical's first category, else the first in sorted
        order; ``False`` for booleans) as reference, named ``column + level`` as R's
        ``model.matrix`` (``allocrandom``; ``xTRUE``). Every estimator works with moderators
        (metafor's ``rma.uni`` allows them all); k must exceed the number of coefficients p, and
        missing values, constant or redundant columns are errors (metafor drops such studies or
        columns with a warning).

    Formulas and references: see the module docstring (Viechtbauer 2005, 2010; Borenstein et al.
    2009, ch. 11–16, 19–20; metafor's ``rma.uni``, ``predict.rma``, ``confint.rma.uni``).
    """
    y, v, method_c, test_c, level_f, names_t, measure, effects = _validate(
        yi, vi, method, test, level, names
    )
    if moderators is not None:
        method_label = "EE" if method.upper() == "EE" else method_c
        res = _meta_regression(y, v, method_c, test_c, level_f, names_t, measure, effects,
                               moderators, method_label)
        return res
    if y.size == 1 and test_c != "z":
        warnings.warn(f"k = 1: using test='z' instead of {test_c!r} (as metafor)", UserWarning,
                      stacklevel=2)
    y2, v2, c, a = _standardise(y, v, names_t)
    fit = _fit(y2, v2, method_c, test_c, level_f)
    tau2_ci, i2_ci = _qprofile_ci(y2, v2, fit.tau2, fit.vt, level_f)
    if c != 0.0 or a != 1.0:
        fit = _unscale(fit, c, a, level_f)
        tau2_ci = (tau2_ci[0] * a * a, tau2_ci[1] * a * a)
    y.setflags(write=False)
    v.setflags(write=False)
    weights = fit.weights
    weights.setflags(write=False)
    return MetaResult(
        estimate=fit.estimate, se=fit.se, ci_low=fit.ci_low, ci_high=fit.ci_high,
        statistic=fit.statistic, pvalue=fit.pvalue, tau2=fit.tau2, tau=math.sqrt(fit.tau2),
        I2=fit.I2, H2=fit.H2, Q=fit.Q, Q_df=fit.Q_df, Q_pvalue=fit.Q_pvalue, pi_low=fit.pi_low,
        pi_high=fit.pi_high, weights=weights, tau2_ci=tau2_ci, I2_ci=i2_ci, k=int(y.size),
        method="EE" if method.upper() == "EE" else method_c, test=fit.test, level=level_f,
        names=names_t, yi=y, vi=v, measure=measure, effects=effects, vt=fit.vt,
    )


# --------------------------------------------------------------------------------------------
# subgroup analysis (Borenstein et al. 2009, ch. 19)
# --------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class SubgroupResult(_ResultText):
    """Subgroup analysis: one model per subgroup and two tests of subgroup differences.

    ``fits`` maps each subgroup (in ``groups`` order) to its own :class:`MetaResult` (same method,
    test and level; each subgroup with its own τ²).

    ``Q_between`` (``Q_between_df = G - 1``, χ²) is the test of Borenstein et al. (2009, ch. 19,
    "separate estimates of τ²"): the fixed-effect Q of the G subgroup summaries with their
    standard errors, ``Σ_g (μ_g - μ̄)²/se_g²`` with ``μ̄ = Σ μ_g/se_g² / Σ 1/se_g²`` (metafor:
    ``rma(estimate, sei = se, method = "FE")$QE`` on the subgroup fits). ``Q_within`` (df k - G) is
    the sum of the subgroups' fixed-effect Q statistics.

    ``regression`` is the mixed-effects meta-regression on the subgroup dummies with one common
    τ² (metafor ``rma(yi, vi, mods = ~ factor(group), method, test)``); its omnibus ``QM``
    (``QM_df = G - 1``; χ² for ``test="z"``, else F(G-1, k-G)) is the other test of differences
    ("pooled estimate of τ²"). It is None when k ≤ G (no residual degrees of freedom).
    """

    groups: tuple[str, ...]
    fits: Mapping[str, MetaResult]
    membership: tuple[str, ...]
    Q_between: float
    Q_between_df: int
    Q_between_pvalue: float
    Q_within: float
    Q_within_df: int
    Q_within_pvalue: float
    regression: MetaRegressionResult | None
    k: int
    method: str
    test: str
    level: float
    names: tuple[str, ...]
    variable: str
    measure: str | None = None
    effects: EffectSizes | None = None

    @property
    def QM(self) -> float | None:
        """Test of subgroup differences with a common τ² (the meta-regression's QM)."""
        return None if self.regression is None else self.regression.QM

    @property
    def QM_pvalue(self) -> float | None:
        return None if self.regression is None else self.regression.QM_pvalue

    @property
    def signature(self) -> Signature:
        return make_signature("meta", _sig_fields({
            "measure": self.measure, "method": self.method, "test": self.test,
            "level": self.level, "k": self.k, "mods": f"subgroups({self.variable})",
        }))

    def to_frame(self) -> pd.DataFrame:
        """One row per subgroup: group, k, estimate, se, ci_low, ci_high, pvalue, tau2, I2, Q,
        Q_df, Q_pvalue, pi_low, pi_high."""
        import pandas as pd

        rows = []
        for g in self.groups:
            r = self.fits[g]
            rows.append({"group": g, "k": r.k, "estimate": r.estimate, "se": r.se,
                         "ci_low": r.ci_low, "ci_high": r.ci_high, "pvalue": r.pvalue,
                         "tau2": r.tau2, "I2": r.I2, "Q": r.Q, "Q_df": r.Q_df,
                         "Q_pvalue": r.Q_pvalue, "pi_low": r.pi_low, "pi_high": r.pi_high})
        return pd.DataFrame(rows)

    def to_dict(self) -> dict[str, Any]:
        """JSON-serialisable dict: the tests, each subgroup's fit and the regression."""
        d: dict[str, Any] = {
            "groups": list(self.groups), "variable": self.variable,
            "membership": list(self.membership), "Q_between": self.Q_between,
            "Q_between_df": self.Q_between_df, "Q_between_pvalue": self.Q_between_pvalue,
            "Q_within": self.Q_within, "Q_within_df": self.Q_within_df,
            "Q_within_pvalue": self.Q_within_pvalue, "QM": self.QM, "QM_pvalue": self.QM_pvalue,
            "k": self.k, "method": self.method, "test": self.test, "level": self.level,
            "names": list(self.names), "measure": self.measure,
            "signature": str(self.signature),
        }
        out = {key: _jsonable(val) for key, val in d.items()}
        out["fits"] = {g: self.fits[g].to_dict() for g in self.groups}
        out["regression"] = None if self.regression is None else self.regression.to_dict()
        return out

    def summary(self, digits: int = 4) -> str:
        """Per-subgroup table and the tests of subgroup differences."""
        def f(x: float) -> str:
            return f"{x:.{digits}f}"

        pct_s = format_level(self.level)
        model = ("Fixed-effects" if self.method == "FE" else "Equal-effects"
                 if self.method == "EE" else f"Random-effects (tau^2 estimator: {self.method})")
        lines = [f"Subgroup analysis by {self.variable} (k = {self.k}; {model} per subgroup)"]
        if self.measure:
            lines.append(f"Measure: {self.measure}")
        lines.append("")
        header = ["group", "k", "estimate", "se", "ci.lb", "ci.ub", "pval", "tau^2", "I^2"]
        rows = []
        for g in self.groups:
            r = self.fits[g]
            rows.append([g, str(r.k), f(r.estimate), f(r.se), f(r.ci_low), f(r.ci_high),
                         "<.0001" if r.pvalue < 1e-4 else f"{r.pvalue:.4f}", f(r.tau2),
                         f"{r.I2:.2f}%"])
        lines += _table(rows, header)
        lines += ["", f"({pct_s} CIs; test: {self.test})", "",
                  "Test of subgroup differences (separate tau^2 per subgroup):",
                  f"Q_between(df = {self.Q_between_df}) = {f(self.Q_between)}, "
                  f"p-val {_p_txt(self.Q_between_pvalue)}"]
        reg = self.regression
        if reg is not None:
            lines.append("Test of subgroup differences (meta-regression, common tau^2):")
            if reg.QM_ddf is None:
                lines.append(f"QM(df = {reg.QM_df}) = {f(reg.QM)}, p-val {_p_txt(reg.QM_pvalue)}")
            else:
                lines.append(f"F(df1 = {reg.QM_df}, df2 = {reg.QM_ddf}) = {f(reg.QM)}, "
                             f"p-val {_p_txt(reg.QM_pvalue)}")
        lines += [f"Q_within(df = {self.Q_within_df}) = {f(self.Q_within)}, "
                  f"p-val {_p_txt(self.Q_within_pvalue)}", "", str(self.signature)]
        return "\n".join(lines)



def subgroup_analysis(
    yi: Any,
    vi: Any = None,
    groups: Any = None,
    method: str = "REML",
    test: str = "z",
    level: float = 0.95,
    names: Sequence[Any] | None = None,
) -> SubgroupResult:
    """Meta-analysis per subgroup plus tests of subgroup differences (see :class:`SubgroupResult`).

    ``yi``/``vi``/``names``/``method``/``test``/``level`` as :func:`meta_analysis`. ``groups`` is
    one label per study (a sequence in study order, or a pandas Series indexed by study name), or
    with an ``EffectSizes`` the name of one of its ``extra`` columns. Subgroups are ordered like
    the levels of a categorical moderator (a pandas Categorical's order, else sorted); the first
    is the reference level of the regression. A subgroup of one study is fitted as metafor does
    (τ² = 0, z test).
    """
    y, v, method_c, test_c, level_f, names_t, measure, effects = _validate(
        yi, vi, method, test, level, names
    )
    if groups is None:
        raise MetaInputError("groups is required: one subgroup label per study, or (with an "
                             "EffectSizes) the name of one of its extra columns")
    import pandas as pd

    if isinstance(groups, str):
        variable = groups
        if effects is None:
            raise MetaInputError(f"groups={groups!r} names a column, which needs an EffectSizes "
                                 "input; with arrays pass one label per study")
        values = _effects_column(effects, groups, names_t, f"groups {groups!r}")
        extra = getattr(effects, "extra", None)
        dtype = extra[groups].dtype if extra is not None and groups in extra.columns else None
    else:
        variable = str(getattr(groups, "name", None) or "group")
        values = _align(groups, "groups", names_t)
        dtype = getattr(groups, "dtype", None)
    for i, x in enumerate(values):
        if _is_missing(x):
            raise MetaInputError(f"groups: no subgroup for study {names_t[i]!r} (position {i})")
    cat = dtype if isinstance(dtype, pd.CategoricalDtype) else None
    levels = _levels(values, cat)
    labels = [str(lv) for lv in levels]
    if len(set(labels)) != len(labels):
        raise MetaInputError(f"groups: distinct labels print the same: {labels}")
    if len(levels) < 2:
        raise MetaInputError(f"groups: all {y.size} studies are in one subgroup ({labels[0]!r})")
    membership = tuple(labels[levels.index(x)] for x in values)
    method_label = "EE" if method.upper() == "EE" else method_c

    fits: dict[str, MetaResult] = {}
    member = np.array(membership, dtype=object)
    small = [g for g in labels if int(np.sum(member == g)) == 1]
    with warnings.catch_warnings():
        if test_c != "z":
            warnings.filterwarnings("ignore", message="k = 1: using test='z'")
        for g in labels:
            idx = np.flatnonzero(member == g)
            fits[g] = meta_analysis(y[idx], v[idx], method=method_label, test=test_c,
                                    level=level_f, names=[names_t[i] for i in idx])
    if small and test_c != "z":
        warnings.warn(f"subgroup(s) {small} have one study: fitted with test='z' (as metafor)",
                      UserWarning, stacklevel=2)
    if measure is not None or effects is not None:
        fits = {g: _with_source(r, measure) for g, r in fits.items()}

    est = np.array([fits[g].estimate for g in labels])
    se = np.array([fits[g].se for g in labels])
    G = len(labels)
    if np.all(se > 0.0):
        q_b = _q_gen(0.0, est, se * se)
    else:  # knha with identical effects in a subgroup: se = 0 (as metafor); infinite weight
        q_b = 0.0 if np.all(est == est[0]) else math.inf
    q_w = float(sum(_q_gen(0.0, y[member == g], v[member == g]) for g in labels))
    k = y.size

    regression = None
    if k > G:
        X = np.column_stack([np.ones(k)] + [(member == g).astype(float) for g in labels[1:]])
        coef_names = ("intrcpt", *(f"{variable}{g}" for g in labels[1:]))
        regression = _meta_regression(y.copy(), v.copy(), method_c, test_c, level_f, names_t,
                                      measure, effects, None, method_label,
                                      design=(X, coef_names, (variable,)))
    y.setflags(write=False)
    v.setflags(write=False)
    return SubgroupResult(
        groups=tuple(labels), fits=MappingProxyType(fits), membership=membership, Q_between=float(q_b),
        Q_between_df=G - 1, Q_between_pvalue=_chi2_sf(q_b, G - 1), Q_within=q_w,
        Q_within_df=k - G, Q_within_pvalue=_chi2_sf(q_w, k - G) if k > G else 1.0,
        regression=regression, k=k, method=method_label, test=test_c, level=level_f,
        names=names_t, variable=variable, measure=measure, effects=effects,
    )


def _with_source(res: MetaResult, measure: str | None) -> MetaResult:
    import dataclasses

    return dataclasses.replace(res, measure=measure)


# --------------------------------------------------------------------------------------------
# small-study effects: Egger's regression test (metafor ``regtest``)
# --------------------------------------------------------------------------------------------
REGTEST_MODELS = ("rma", "lm")
REGTEST_PREDICTORS = ("sei", "vi", "ni", "ninv", "sqrtni", "sqrtninv")
_PREDICTOR_TEXT = {
    "sei": "standard error", "vi": "sampling variance", "ni": "sample size",
    "ninv": "inverse of the sample size", "sqrtni": "square root sample size",
    "sqrtninv": "inverse of the square root sample size",
}


@dataclass(frozen=True)
class RegTestResult(_ResultText):
    """Regression test for funnel-plot asymmetry (Egger et al. 1997; Sterne & Egger 2005), as
    metafor's ``regtest``.

    ``model="rma"`` (default) adds the ``predictor`` (default the standard error ``sei``) as a
    moderator to the fitted model (same method, test and level) and tests its coefficient:
    ``statistic`` is z (``df`` None) or t with ``df = k - p - 1``; ``slope`` is the predictor's
    coefficient (the "bias" of Egger's test). ``model="lm"`` is Egger's
    original weighted regression ``lm(yi ~ X + sei, weights = 1/vi)`` (t with k - p - 1 df).
    ``limit_estimate`` [``limit_ci_low``, ``limit_ci_high``] is the intercept, the estimate as
    the predictor → 0 ("limit estimate"), for the predictors sei, vi, ninv and sqrtninv of a model
    without moderators (None otherwise, as metafor). ``fit`` is the fitted meta-regression
    (``model="rma"``).
    """

    model: str
    predictor: str
    statistic: float
    df: int | None
    pvalue: float
    slope: float
    limit_estimate: float | None
    limit_ci_low: float | None
    limit_ci_high: float | None
    fit: MetaRegressionResult | None
    k: int
    method: str
    test: str
    level: float
    measure: str | None = None

    @property
    def signature(self) -> Signature:
        return make_signature("meta", {
            "measure": self.measure, "method": self.method,
            "test": self.test if self.model == "rma" else "t", "level": self.level, "k": self.k,
            "method_detail": f"regtest({self.model},{self.predictor})",
        })

    def to_dict(self) -> dict[str, Any]:
        d = {
            "model": self.model, "predictor": self.predictor, "statistic": self.statistic,
            "df": self.df, "pvalue": self.pvalue, "slope": self.slope,
            "limit_estimate": self.limit_estimate,
            "limit_ci_low": self.limit_ci_low, "limit_ci_high": self.limit_ci_high, "k": self.k,
            "method": self.method, "test": self.test, "level": self.level,
            "measure": self.measure, "signature": str(self.signature),
        }
        return {key: _jsonable(val) for key, val in d.items()}

    def summary(self) -> str:
        """Text in the layout of metafor's ``print.regtest``."""
        if self.model == "lm":
            model = "weighted regression with multiplicative dispersion"
        elif self.method in ("FE", "EE"):
            model = "fixed-effects meta-regression model"
        else:
            model = "mixed-effects meta-regression model"
        if self.df is None:
            stat = f"z = {self.statistic:.4f}"
        else:
            stat = f"t = {self.statistic:.4f}, df = {self.df}"
        lines = ["Regression Test for Funnel Plot Asymmetry", "",
                 f"Model:     {model}", f"Predictor: {_PREDICTOR_TEXT[self.predictor]}", "",
                 f"Test for Funnel Plot Asymmetry: {stat}, p {_p_txt(self.pvalue)}"]
        if self.limit_estimate is not None:
            pct = format_level(self.level)
            lines.append(f"Limit Estimate (as {self.predictor} -> 0):   b = "
                         f"{self.limit_estimate:.4f} ({pct} CI: {self.limit_ci_low:.4f}, "
                         f"{self.limit_ci_high:.4f})")
        lines += ["", str(self.signature)]
        return "\n".join(lines)



def regtest(
    result: MetaResult | MetaRegressionResult,
    model: str = "rma",
    predictor: str = "sei",
    ni: Any = None,
) -> RegTestResult:
    """Egger's regression test for funnel-plot asymmetry of a fitted model (metafor ``regtest``;
    see :class:`RegTestResult`). ``ni`` gives sample sizes for the predictors ni, ninv, sqrtni,
    sqrtninv (default: ``result.effects.n``)."""
    if not isinstance(result, (MetaResult, MetaRegressionResult)):
        raise MetaInputError(
            f"regtest needs a fitted MetaResult or MetaRegressionResult, got {type(result).__name__}"
        )
    if not isinstance(model, str) or model not in REGTEST_MODELS:
        raise MetaInputError(f"unknown regtest model {model!r}; valid: {', '.join(REGTEST_MODELS)}"
                             + suggest(str(model), REGTEST_MODELS))
    if not isinstance(predictor, str) or predictor not in REGTEST_PREDICTORS:
        raise MetaInputError(
            f"unknown regtest predictor {predictor!r}; valid: {', '.join(REGTEST_PREDICTORS)}"
            + suggest(str(predictor), REGTEST_PREDICTORS)
        )
    y = np.asarray(result.yi, dtype=float)
    v = np.asarray(result.vi, dtype=float)
    k = y.size
    if isinstance(result, MetaRegressionResult):
        X0, names0 = np.asarray(result.X), result.coef_names
    else:
        X0, names0 = np.ones((k, 1)), ("intrcpt",)
    p = X0.shape[1]
    if k < p + 2:
        raise MetaInputError(
            f"regtest needs at least {p + 2} studies for a model with {p} coefficient(s) plus the "
            f"predictor; there are {k}"
        )
    if predictor == "sei":
        col, cname = np.sqrt(v), "sei"
    elif predictor == "vi":
        col, cname = v.copy(), "vi"
    else:
        if ni is None:
            eff = result.effects
            ni = getattr(eff, "n", None) if eff is not None else None
            if ni is None:
                raise MetaInputError(
                    f"predictor {predictor!r} needs sample sizes: pass ni=, or fit the model on an "
                    "EffectSizes with n"
                )
        n = np.asarray(ni, dtype=float).reshape(-1)
        if n.size != k or not np.all(np.isfinite(n)) or np.any(n <= 0):
            raise MetaInputError(
                f"predictor {predictor!r}: sample sizes must be {k} finite numbers > 0, got {n!r}"
            )
        col, cname = {"ni": (n, "ni"), "ninv": (1.0 / n, "ninv"), "sqrtni": (np.sqrt(n), "ni"),
                      "sqrtninv": (1.0 / np.sqrt(n), "ni")}[predictor]
    X = np.column_stack([X0, col])
    unit = X / np.linalg.norm(X, axis=0)
    if np.linalg.matrix_rank(unit, tol=1e-9) < X.shape[1]:
        raise MetaInputError(
            f"regtest: the design is no longer of full rank after adding the predictor "
            f"{predictor!r} (e.g. all sampling variances are equal); the test is undefined"
        )
    method = "FE" if result.method == "EE" else result.method
    limit = predictor in ("sei", "vi", "ninv", "sqrtninv") and p == 1
    fit: MetaRegressionResult | None = None
    if model == "rma":
        fit = _meta_regression(
            y.copy(), v.copy(), method, result.test, result.level, result.names, result.measure,
            result.effects, None, result.method,
            design=(X, (*names0, cname), (*getattr(result, "moderators", ()), cname)),
        )
        stat, pval, slope = float(fit.statistic[p]), float(fit.pvalue[p]), float(fit.estimate[p])
        df = fit.df
        est, lo, hi = (float(fit.estimate[0]), float(fit.ci_low[0]), float(fit.ci_high[0]))
    else:  # Egger's weighted least squares with a free dispersion: t with k - p - 1 df
        f = _wls(X, y, 1.0 / v)
        df = k - p - 1
        sigma2 = f.rss / df
        se = np.sqrt(np.diag(f.vb()) * sigma2)
        stat_a, pval_a, lo_a, hi_a = _wald(f.beta, se, "t", df, result.level)
        stat, pval, slope = float(stat_a[p]), float(pval_a[p]), float(f.beta[p])
        est, lo, hi = float(f.beta[0]), float(lo_a[0]), float(hi_a[0])
    return RegTestResult(
        model=model, predictor=predictor, statistic=stat, df=df, pvalue=pval, slope=slope,
        limit_estimate=est if limit else None, limit_ci_low=lo if limit else None,
        limit_ci_high=hi if limit else None, fit=fit, k=k, method=result.method,
        test=result.test, level=result.level, measure=result.measure,
    )
