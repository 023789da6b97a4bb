"""The meta-regression fit (``metafor::rma.uni`` with ``mods``): weighted least squares through
the QR decomposition, τ² estimators with moderators, Wald tests of the coefficients, QM and QE.

Meta-regression (``moderators=``; ``rma(yi, vi, mods = ~ ...)``): ``y = Xβ + u + e`` with X the
intercept and the moderator columns (numeric as given; categorical as treatment-coded dummies,
like R's ``model.matrix``), k > p. With ``P(w) = W - WX(X'WX)⁻¹X'W``, the estimators above use
``y'Py`` for Q, ``tr P`` and k-p (HE: OLS residuals and ``Σ v_i (1 - h_i)``; SJ: τ₀² from the
unweighted variance of y), as metafor. ``β = (X'W̃X)⁻¹X'W̃y``, ``vcov = (X'W̃X)⁻¹`` (× s² for knha,
t tests with k-p df); ``QE = y'P(1/v)y`` on k-p df; ``QM`` the Wald test of all coefficients but
the intercept (χ² on p-1 df; for t/knha ``QM/(p-1)`` against F(p-1, k-p)); I²/H² from
``vt = (k-p)/tr P(1/v)``; R² as metafor (see :class:`MetaRegressionResult`). Computed from the QR
decomposition of ``√w·X`` (no explicit inverse), so ill-conditioned designs stay accurate.
"""
from __future__ import annotations

import math
import warnings
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from ._distributions import _chi2_sf, _crit, _f_sf, _two_sided_p
from .tau2 import _EPS, _LL0_TOL, MAXITER, THRESHOLD, _solve_fisher, _tau2


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
        # the ratio first: (τ²₀ - τ²)/τ²₀ <= 1 exactly for τ² >= 0, so R² never exceeds 100
        # (metafor's 100 * (τ²₀ - τ²) / τ²₀ gives 100.00000000000001 for some τ²₀ with τ² = 0)
        r2 = 0.0 if tau2_0 == 0.0 else max(0.0, 100.0 * ((tau2_0 - tau2) / tau2_0))
    w = f.w
    return _RegFit(
        beta=f.beta, vb=vb, se=se, stat=stat, pval=pval, ci_low=lo, ci_high=hi, tau2=tau2,
        tau2_0=tau2_0, I2=float(i2), H2=float(h2), R2=float(r2), QE=qe, QE_pvalue=qe_p, QM=qm,
        QM_pvalue=qm_p, vt=vt, weights=w / w.sum(), fitted=X @ f.beta,
    )
