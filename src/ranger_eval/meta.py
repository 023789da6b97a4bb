"""Meta-analysis models, heterogeneity, prediction intervals and leave-one-out (metafor-exact).

The intercept-only random-effects model ``y_i = mu + u_i + e_i`` with ``u_i ~ N(0, tau2)`` and
``e_i ~ N(0, v_i)`` is fitted exactly as ``metafor::rma.uni`` (Viechtbauer 2010, J. Stat. Softw. 36(3);
estimators reviewed in Viechtbauer 2005, J. Educ. Behav. Stat. 30(3), and Veroniki et al. 2016).
Every number below reproduces metafor 3.8 to ~1e-10; see ``tests/oracles/metafor_meta.R``.

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
FE/DL/HS/PM estimators fail, so zero or negative ``vi`` raise :class:`MetaInputError` naming the study.
With ``test="knha"`` and all effects identical, s² = 0 gives se = 0 (as metafor); the statistic is then
±inf (0 when the estimate is 0) and the p-value 0 (1 when the estimate is 0) instead of NaN.
"""
from __future__ import annotations

import json
import math
import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from .errors import ConvergenceError, MetaInputError, check_level, suggest
from .formatting import format_level
from .signature import Signature, make_signature

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
#: metafor's ``tol`` (``.Machine$double.eps^0.25``) used by its check of the likelihood at τ² = 0.
_LL0_TOL = _EPS**0.25


#: smallest accepted sampling variance: below it 1/vi² overflows float64
VI_MIN = 1e-150


__all__ = ["ConvergenceError", "MetaInputError", "MetaResult", "TransformedSummary", "meta_analysis"]


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


def _fisher_scoring(y: np.ndarray, v: np.ndarray, method: str) -> float:
    """ML / REML / EB by metafor's Fisher scoring (start max(0, HE); halve steps below 0)."""
    k = y.size
    t = max(0.0, _he(y, v))
    for _ in range(MAXITER + 1):
        w = 1.0 / (v + t)
        sw = float(w.sum())
        mu = float(np.dot(w, y) / sw)
        r = y - mu
        if method == "ML":
            sw2 = float(np.dot(w, w))
            adj = (float(np.dot(w * w, r * r)) - sw) / sw2
        elif method == "REML":
            _, tr_p, tr_pp = _traces(w)
            adj = (float(np.dot(w * w, r * r)) - tr_p) / tr_pp
        else:  # EB
            adj = (float(np.dot(w, r * r)) * k / (k - 1) - k) / sw
        if not math.isfinite(adj):
            adj = 0.0
        while t + adj < 0.0:
            adj /= 2.0
        new = t + adj
        change = abs(new - t)
        t = new
        if change <= max(THRESHOLD, _REL_THRESHOLD * t):
            break
    else:
        hint = " (it solves the same equation as 'PM'; use method='PM')" if method == "EB" else ""
        raise ConvergenceError(
            f"Fisher scoring for method={method!r} did not converge in {MAXITER} iterations "
            f"(metafor's rma.uni stops with this error too; another method, e.g. 'PM' or 'DL', "
            f"avoids the iteration){hint}"
        )
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


def _root_q(target: float, y: np.ndarray, v: np.ndarray, hi: float) -> float:
    """Root of ``Q(t) = target`` on [0, hi] (Q is decreasing in t); requires Q(0) ≥ target ≥ Q(hi)."""
    from scipy.optimize import brentq

    return float(
        brentq(lambda t: _q_gen(t, y, v) - target, 0.0, hi, xtol=1e-300, rtol=4 * _EPS,
               maxiter=MAXITER)
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
    y: np.ndarray, v: np.ndarray, tau2: float, vt: float, level: float
) -> tuple[tuple[float, float], tuple[float, float]]:
    """Q-profile CI for τ² and the implied I² CI (metafor ``confint.rma.uni``, type "QP")."""
    k = y.size
    if k < 2:
        return (0.0, 0.0), (0.0, 0.0)
    alpha = 1.0 - level
    df = k - 1
    crit_u = _chi2_upper_q(alpha / 2, df)
    crit_l = _chi2_lower_q(alpha / 2, df)
    t_min, t_max = 0.0, max(100.0, 10.0 * tau2)
    q_min = _q_gen(t_min, y, v)
    q_max = _q_gen(t_max, y, v)
    lb = ub = math.nan
    if q_min < crit_l:
        lb = ub = t_min
    elif q_max > crit_l:
        ub = t_max
    else:
        ub = _root_q(crit_l, y, v, t_max)
    if q_max > crit_u:
        lb = ub = t_max
    elif q_min < crit_u:
        lb = t_min
    else:
        lb = _root_q(crit_u, y, v, t_max)
    i2 = (100.0 * lb / (vt + lb), 100.0 * ub / (vt + ub))
    return (float(lb), float(ub)), (float(i2[0]), float(i2[1]))


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
        names_t = tuple(str(i + 1) for i in range(k))
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
                f"{label} must be finite: study {names_t[i]!r} (position {i}) has {label}={arr[i]!r}"
                + (f" ({bad.size} non-finite values)" if bad.size > 1 else "")
            )
    bad = np.flatnonzero(v <= 0.0)
    if bad.size:
        i = int(bad[0])
        raise MetaInputError(
            f"vi must be > 0: study {names_t[i]!r} (position {i}) has vi={v[i]!r}; Q, I², H² and "
            "the FE/DL/HS/PM estimators are undefined for non-positive sampling variances"
        )
    bad = np.flatnonzero(v < VI_MIN)
    if bad.size:
        i = int(bad[0])
        raise MetaInputError(
            f"vi too small: study {names_t[i]!r} (position {i}) has vi={v[i]!r} < {VI_MIN:g}; "
            "its weight 1/vi (and 1/vi², used by the τ² estimators) overflows: rescale the effects"
        )
    if method_c == "EE":
        method_c = "FE"
    return y, v, method_c, test_c, level_f, names_t, measure, effects


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


@dataclass(frozen=True)
class MetaResult:
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
        """Reproducibility signature: effect measure, τ² estimator, test, level, k, version."""
        return make_signature(
            "meta",
            {"measure": self.measure, "method": self.method, "test": self.test,
             "level": self.level, "k": self.k},
        )

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
            f = _fit(self.yi[keep], self.vi[keep], method, self.test, self.level)
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

    def to_json(self, **kwargs: Any) -> str:
        """:meth:`to_dict` as a JSON string (``kwargs`` go to :func:`json.dumps`)."""
        return json.dumps(self.to_dict(), allow_nan=False, **kwargs)

    def summary(self, digits: int = 4) -> str:
        """Readable text in the layout of metafor's ``print.rma.uni``."""
        def f(x: float) -> str:
            return f"{x:.{digits}f}"

        def p(x: float) -> str:
            return "< .0001" if x < 1e-4 else f"= {x:.4f}"

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
                  f"Q(df = {self.Q_df}) = {f(self.Q)}, p-val {p(self.Q_pvalue)}", ""]
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

    def __str__(self) -> str:
        return self.summary()


def meta_analysis(
    yi: Any,
    vi: Any = None,
    method: str = "REML",
    test: str = "z",
    level: float = 0.95,
    names: Sequence[Any] | None = None,
) -> MetaResult:
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

    Formulas and references: see the module docstring (Viechtbauer 2005, 2010; Borenstein et al.
    2009, ch. 11–16; metafor's ``rma.uni``, ``predict.rma``, ``confint.rma.uni``).
    """
    y, v, method_c, test_c, level_f, names_t, measure, effects = _validate(
        yi, vi, method, test, level, names
    )
    if y.size == 1 and test_c != "z":
        warnings.warn(f"k = 1: using test='z' instead of {test_c!r} (as metafor)", UserWarning,
                      stacklevel=2)
    fit = _fit(y, v, method_c, test_c, level_f)
    tau2_ci, i2_ci = _qprofile_ci(y, v, fit.tau2, fit.vt, level_f)
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
