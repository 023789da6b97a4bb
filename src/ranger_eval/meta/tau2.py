"""τ² estimators of the intercept-only random-effects model, as ``metafor::rma.uni`` (their
shared Fisher-scoring loop and its fallbacks are also used by :mod:`.regression`).

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
"""
from __future__ import annotations

import math
import warnings
from collections.abc import Callable

import numpy as np

from ..errors import ConvergenceError

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
