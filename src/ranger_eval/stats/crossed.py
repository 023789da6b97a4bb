"""REML for crossed random effects: ``y = mu + a_item + b_prompt [+ c_item:prompt] + e``.

The model of :func:`ranger_eval.variance_components` and of ``compare``'s test for a design with
prompts, fitted by our own vectorised restricted maximum likelihood (REML); the numbers equal
R ``lme4::lmer(y ~ 1 + (1|item) + (1|prompt) [+ (1|item:prompt)], REML=TRUE)`` and, for the
intercept, ``lmerTest``'s Satterthwaite summary.

Algorithm
---------
1. **Reduction to cells.** Every observation lies in one (item, prompt) cell j with n_j rows
   (replicate samples, unbalanced; missing cells are simply absent). The within-cell contrasts
   are independent of every random effect and of mu, so the REML likelihood factorises into the
   within-cell sum of squares W (n − m degrees of freedom, m cells) and the likelihood of the
   cell means ybar_j, whose covariance is ``sigma^2 H``, ``H = D + r_a A A' + r_b B B'`` with
   ``D = diag(r_c + 1/n_j)``, A, B the cell → item / prompt incidence matrices and
   r_k = sigma_k^2 / sigma^2 the variance ratios (r_c = 0 without the interaction term).
2. **Woodbury and a Schur complement.** With theta_k = sqrt(r_k) and Lambda = diag(theta),
   ``|H| = |D| |M|`` and ``H^-1 = D^-1 − D^-1 Z Lambda M^-1 Lambda Z' D^-1`` where
   ``M = I + Lambda Z' D^-1 Z Lambda`` (Z = [A, B]; lme4's parameterisation, so theta = 0 is
   allowed). M's item block is diagonal, so items are eliminated in closed form and only the
   P × P Schur complement (P = the smaller factor's levels) is Cholesky-factorised: one
   evaluation costs O(m + I·P^2), never a dense m × m matrix.
3. **Profiled REML criterion** (lme4's ``REMLcrit``), sigma^2 profiled out:
   ``log|H| + sum log n_j + log(1'H^-1 1) + (n − 1)(1 + log(2 pi pwrss / (n − 1)))`` with
   ``pwrss = W + ybar'H^-1 ybar − (1'H^-1 ybar)^2 / 1'H^-1 1``; ``sigma^2 = pwrss / (n − 1)``,
   ``mu = 1'H^-1 ybar / 1'H^-1 1``.
4. **Optimisation** over theta ≥ 0 (L-BFGS-B from theta = 1), then Newton steps with a
   central-difference gradient and Hessian on the free coordinates (a theta at 0 whose
   gradient points outward stays at the bound) until the largest change of a variance
   parameter is below ``tol`` (1e-8 relative by default).
5. **Satterthwaite degrees of freedom of mu** (Kuznetsova, Brockhoff & Christensen 2017,
   lmerTest): ``df = 2 Var(mu)^2 / (g' A g)`` with A = 2 × the inverse Hessian of the
   (non-profiled) REML deviance in the variance parameters and g the gradient of
   Var(mu) = sigma^2 / 1'H^-1 1 in the same parameters; both by Richardson-extrapolated central
   differences in log variances (invariant to the parameterisation at the optimum; a component
   at 0 has zero gradient and zero cross-curvature, and is left out).

References
----------
Bates, D., Mächler, M., Bolker, B. & Walker, S. (2015), "Fitting linear mixed-effects models using
lme4", J. Statistical Software 67(1), sec. 3 (profiled REML criterion);
Kuznetsova, A., Brockhoff, P. B. & Christensen, R. H. B. (2017), "lmerTest package: tests in
linear mixed effects models", J. Statistical Software 82(13), sec. 3.1 (Satterthwaite df);
Searle, S. R., Casella, G. & McCulloch, C. E. (1992), *Variance Components*, ch. 6 (REML).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import optimize
from scipy import stats as sps

from ..errors import ScoresError
from ._validation import StatsInputError

__all__ = ["CrossedFit", "CrossedTest", "check_crossed", "crossed_mean_test", "crossed_reml"]

_LOG2PI = float(np.log(2 * np.pi))


@dataclass(frozen=True)
class CrossedFit:
    """A REML fit of ``y = mu + a_item + b_prompt [+ c_item:prompt] + e``.

    ``item_var``, ``prompt_var``, ``interaction_var`` (NaN when the term is not in the model)
    and ``residual_var`` are the variance components; ``mu`` the GLS intercept and ``mu_var``
    its variance; ``reml_crit`` lme4's REML criterion; ``n_obs``, ``n_items``, ``n_prompts``,
    ``n_cells`` the design; ``iterations`` the Newton steps of the polish.
    """

    mu: float
    mu_var: float
    item_var: float
    prompt_var: float
    interaction_var: float
    residual_var: float
    reml_crit: float
    n_obs: int
    n_items: int
    n_prompts: int
    n_cells: int
    iterations: int


@dataclass(frozen=True)
class CrossedTest:
    """The Satterthwaite t test of the intercept of a crossed fit (lmerTest ``summary``):
    ``estimate``, ``se``, ``df``, ``statistic`` (t), ``pvalue`` (two-sided unless
    ``alternative`` says otherwise), ``ci_low``/``ci_high`` (estimate ± t_{df} · se) and the
    ``fit``."""

    estimate: float
    se: float
    df: float
    statistic: float
    pvalue: float
    ci_low: float
    ci_high: float
    level: float
    alternative: str
    fit: CrossedFit


class _Cells:
    """The data reduced to cells, with the incidence codes (module docstring, step 1)."""

    def __init__(self, y: np.ndarray, item: np.ndarray, prompt: np.ndarray | None) -> None:
        y = np.asarray(y, dtype=np.float64)
        #: the values are centred (mu is estimated for y − offset): no cancellation in pwrss
        self.offset = float(np.mean(y))
        y = y - self.offset
        icode, iuniq = pd.factorize(np.asarray(item), sort=False)
        if prompt is None:
            pcode = np.zeros(y.size, dtype=np.int64)
            n_p = 0
        else:
            pcode, puniq = pd.factorize(np.asarray(prompt), sort=False)
            n_p = len(puniq)
        n_i = len(iuniq)
        cell, first = np.unique(icode.astype(np.int64) * max(n_p, 1) + pcode, return_inverse=True)
        cnt = np.bincount(first).astype(np.float64)
        sums = np.bincount(first, weights=y)
        ybar = sums / cnt
        resid = y - ybar[first]
        self.n = y.size
        self.m = cell.size
        self.W = float(np.sum(resid * resid))
        self.cnt = cnt
        self.ybar = ybar
        self.n_items, self.n_prompts = n_i, n_p
        ci = cell // max(n_p, 1)
        cp = cell % max(n_p, 1)
        # the larger factor is eliminated in closed form, the smaller one is the Schur block
        self.swap = n_p > n_i
        self.big, self.small = (cp, ci) if self.swap else (ci, cp)
        self.n_big, self.n_small = (n_p, n_i) if self.swap else (n_i, n_p)
        self.log_cnt = float(np.log(cnt).sum())


def _core(c: _Cells, theta: np.ndarray, interaction: bool) -> tuple[float, float, float, float]:
    """(log|H|, 1'H^-1 1, 1'H^-1 ybar, ybar'H^-1 ybar) at sd ratios ``theta`` (item, prompt[,
    item:prompt]) by the Woodbury identity and the Schur complement (module docstring)."""
    t_item, t_prompt = float(theta[0]), (float(theta[1]) if c.n_prompts else 0.0)
    rc = float(theta[2]) ** 2 if interaction else 0.0
    d = rc + 1.0 / c.cnt
    dinv = 1.0 / d
    t_big, t_small = (t_prompt, t_item) if c.swap else (t_item, t_prompt)
    logdet = float(np.log(d).sum())
    ones_d = dinv
    y_d = c.ybar * dinv
    one_q = float(dinv.sum())
    y1_q = float(y_d.sum())
    yy_q = float(np.sum(c.ybar * y_d))  # not BLAS ddot: its threads cost ms on busy cores
    # Lambda Z' D^-1 applied to 1 and ybar, and M's blocks
    sa = np.bincount(c.big, weights=dinv, minlength=c.n_big)
    ga = t_big * np.stack([np.bincount(c.big, weights=ones_d, minlength=c.n_big),
                           np.bincount(c.big, weights=y_d, minlength=c.n_big)], axis=1)
    da = 1.0 + t_big ** 2 * sa
    logdet += float(np.log(da).sum())
    if c.n_small:
        sb = np.bincount(c.small, weights=dinv, minlength=c.n_small)
        gb = t_small * np.stack([np.bincount(c.small, weights=ones_d, minlength=c.n_small),
                                 np.bincount(c.small, weights=y_d, minlength=c.n_small)], axis=1)
        cmat = np.zeros((c.n_big, c.n_small))
        cmat[c.big, c.small] = t_big * t_small * dinv
        cs = cmat / da[:, None]
        schur = np.diag(1.0 + t_small ** 2 * sb) - cmat.T @ cs
        chol = np.linalg.cholesky(schur)
        logdet += 2.0 * float(np.log(np.diag(chol)).sum())
        rhs = gb - cs.T @ ga
        x2 = np.linalg.solve(schur, rhs)
        x1 = (ga - cmat @ x2) / da[:, None]
        quad = ga.T @ x1 + gb.T @ x2
    else:
        quad = ga.T @ (ga / da[:, None])
    return (logdet, one_q - float(quad[0, 0]), y1_q - float(quad[0, 1]),
            yy_q - float(quad[1, 1]))


def _profiled(c: _Cells, theta: np.ndarray, interaction: bool) -> tuple[float, float, float, float]:
    """(REML criterion, sigma^2, mu, 1'H^-1 1) at ``theta``, sigma^2 profiled out."""
    logdet, xx, xy, yy = _core(c, theta, interaction)
    mu = xy / xx
    pwrss = c.W + yy - mu * xy
    dof = c.n - 1
    sigma2 = max(pwrss, 0.0) / dof
    crit = logdet + c.log_cnt + np.log(xx) + dof * (1.0 + np.log(2 * np.pi * max(pwrss, 1e-300) / dof))
    return float(crit), sigma2, mu, xx


def _deviance(c: _Cells, logv: np.ndarray, interaction: bool, free: np.ndarray) -> float:
    """The REML deviance (not profiled) at log variances of the ``free`` components (the
    others 0) and log sigma^2 last (module docstring, step 5)."""
    k = free.size
    v = np.zeros(k)
    v[free] = np.exp(logv[:-1])
    sigma2 = float(np.exp(logv[-1]))
    theta = np.sqrt(v / sigma2)
    logdet, xx, xy, yy = _core(c, theta, interaction)
    pwrss = c.W + yy - xy * xy / xx
    return float((c.n - 1) * (np.log(sigma2) + _LOG2PI) + logdet + c.log_cnt + np.log(xx)
                 + pwrss / sigma2)


def _mu_var(c: _Cells, logv: np.ndarray, interaction: bool, free: np.ndarray) -> float:
    v = np.zeros(free.size)
    v[free] = np.exp(logv[:-1])
    sigma2 = float(np.exp(logv[-1]))
    _, xx, _, _ = _core(c, np.sqrt(v / sigma2), interaction)
    return sigma2 / xx


def _richardson_grad_hess(f, x: np.ndarray, h0: float = 1e-2, levels: int = 4,  # type: ignore[no-untyped-def]
                          hessian: bool = True):
    """Gradient and Hessian of ``f`` at ``x`` by central differences with Richardson
    extrapolation over step halvings (as numDeriv's default ``method = "Richardson"``)."""
    k = x.size
    f0 = f(x)
    grads, hesses = [], []
    h = h0
    for _ in range(levels):
        g = np.empty(k)
        hm = np.empty((k, k))
        fp = np.empty(k)
        fm = np.empty(k)
        for i in range(k):
            e = np.zeros(k)
            e[i] = h
            fp[i], fm[i] = f(x + e), f(x - e)
            g[i] = (fp[i] - fm[i]) / (2 * h)
            hm[i, i] = (fp[i] - 2 * f0 + fm[i]) / h ** 2
        for i in range(k if hessian else 0):
            for j in range(i + 1, k):
                ei = np.zeros(k)
                ej = np.zeros(k)
                ei[i] = h
                ej[j] = h
                val = (f(x + ei + ej) - f(x + ei - ej) - f(x - ei + ej) + f(x - ei - ej)) / (4 * h * h)
                hm[i, j] = hm[j, i] = val
        grads.append(g)
        hesses.append(hm)
        h /= 2
    for lev in range(1, levels):  # eliminate h^2, h^4, ... error terms
        fac = 4.0 ** lev
        grads = [(fac * grads[i + 1] - grads[i]) / (fac - 1) for i in range(len(grads) - 1)]
        hesses = [(fac * hesses[i + 1] - hesses[i]) / (fac - 1) for i in range(len(hesses) - 1)]
    return grads[0], hesses[0]


def _minimise(crit, r0: np.ndarray, *, tol: float, max_iter: int) -> tuple[np.ndarray, int]:  # type: ignore[no-untyped-def]
    """Minimise ``crit`` over variance ratios r >= 0 (module docstring, step 4): L-BFGS-B, then
    projected Newton steps with central differences (forward ones at the bound, where a ratio
    whose derivative points outward stays at 0) until the largest change of a ratio, relative to
    max(r, 0.01), is below ``tol``."""
    k = r0.size
    res = optimize.minimize(crit, r0, method="L-BFGS-B", bounds=[(0.0, None)] * k,
                            options={"ftol": 1e-14, "gtol": 1e-9, "maxiter": 500})
    r = np.maximum(np.asarray(res.x, dtype=np.float64), 0.0)
    iterations = 0
    for iterations in range(1, max_iter + 1):  # noqa: B007 - reported
        h = 1e-4 * np.maximum(r, 1e-2)
        f0 = crit(r)
        at_bound = r < h
        g = np.empty(k)
        hess = np.zeros((k, k))
        fp = np.empty(k)
        fm = np.empty(k)
        for i in range(k):
            e = np.zeros(k)
            e[i] = h[i]
            fp[i] = crit(r + e)
            if at_bound[i]:  # one-sided: f(r), f(r + h), f(r + 2h)
                f2 = crit(r + 2 * e)
                g[i] = (-3 * f0 + 4 * fp[i] - f2) / (2 * h[i])
                hess[i, i] = (f2 - 2 * fp[i] + f0) / h[i] ** 2
            else:
                fm[i] = crit(r - e)
                g[i] = (fp[i] - fm[i]) / (2 * h[i])
                hess[i, i] = (fp[i] - 2 * f0 + fm[i]) / h[i] ** 2
        for i in range(k):
            for j in range(i):
                ei = np.zeros(k)
                ej = np.zeros(k)
                ei[i], ej[j] = h[i], h[j]
                hess[i, j] = hess[j, i] = (crit(r + ei + ej) - fp[i] - fp[j] + f0) / (h[i] * h[j])
        free = ~(at_bound & (r == 0.0) & (g > 0))
        step = np.zeros(k)
        if not free.any():
            break
        hf = hess[np.ix_(free, free)]
        ev = np.linalg.eigvalsh(hf)
        if ev.min() <= 0:
            hf = hf + (abs(ev.min()) + 1e-8 * max(abs(ev.max()), 1.0)) * np.eye(hf.shape[0])
        step[free] = -np.linalg.solve(hf, g[free])
        new = np.maximum(r + step, 0.0)
        while crit(new) > f0 and np.max(np.abs(new - r)) > 1e-15:
            step /= 2
            new = np.maximum(r + step, 0.0)
        delta = float(np.max(np.abs(new - r) / np.maximum(r, 1e-2)))
        r = new
        if delta < tol:
            break
    return r, iterations


def check_crossed(where: str, item: np.ndarray, prompt: np.ndarray) -> None:
    """Prompts must be crossed with items: more than one prompt, some item seen with two
    prompts and some prompt with two items; else a :class:`~ranger_eval.errors.ScoresError`
    naming ``where`` and saying which (the prompt variance would not be estimable).

    Examples
    --------
    >>> import numpy as np
    >>> check_crossed("qa", np.array(["q1", "q1", "q2", "q2"]), np.array(["p1", "p2"] * 2))
    """
    pairs = pd.DataFrame({"i": item, "p": prompt}).drop_duplicates()
    n_p = pairs["p"].nunique()
    if n_p < 2:
        raise ScoresError(f"{where}: the prompt column has one prompt "
                          f"({pairs['p'].iloc[0]!r}); the prompt variance needs two prompts or "
                          "more (leave the prompt column out, or use factors=('item',))")
    if pairs.groupby("i").size().max() < 2 or pairs.groupby("p").size().max() < 2:
        raise ScoresError(
            f"{where}: prompts are not crossed with items (every item has one prompt, or every "
            "prompt one item), so item and prompt variance cannot be told apart; a prompt is a "
            "template or paraphrase used for many items (a per-item prompt id is the item)")


def crossed_reml(
    y: np.ndarray,
    item: np.ndarray,
    prompt: np.ndarray | None = None,
    *,
    interaction: bool = False,
    tol: float = 1e-8,
    max_iter: int = 50,
) -> CrossedFit:
    """REML fit of crossed random effects ``y = mu + a_item + b_prompt [+ c_item:prompt] + e``.

    Equal to ``lme4::lmer(y ~ 1 + (1|item) + (1|prompt) [+ (1|item:prompt)], REML = TRUE)``;
    the algorithm is the module docstring's (cell reduction, Woodbury with a Schur complement,
    profiled REML, L-BFGS-B then Newton to ``tol`` on the variance parameters).

    Parameters
    ----------
    y : numpy.ndarray
        Observations (finite).
    item, prompt : numpy.ndarray
        Item and prompt ids of each observation (``prompt`` None: items only).
    interaction : bool
        Include the item × prompt term (estimable only with replicate rows in some cell).
    tol : float
        Convergence of the variance parameters (largest relative change of a Newton step).
    max_iter : int
        Newton steps at most.

    Returns
    -------
    CrossedFit
        The components, the intercept and its variance, lme4's REML criterion.

    Raises
    ------
    StatsInputError
        Fewer than 2 observations, or an interaction without replicate rows or prompts.

    References
    ----------
    Bates et al. (2015), J. Statistical Software 67(1), sec. 3.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> item = np.repeat(np.arange(30), 4); prompt = np.tile(np.arange(4), 30)
    >>> y = rng.normal(size=30)[item] + 0.5 * rng.normal(size=4)[prompt] + rng.normal(size=120)
    >>> fit = crossed_reml(y, item, prompt)
    >>> fit.n_items, fit.n_prompts, fit.residual_var > 0
    (30, 4, True)
    """
    y = np.asarray(y, dtype=np.float64)
    if y.size < 2:
        raise StatsInputError(f"a crossed REML fit needs at least 2 observations; got {y.size}")
    if not np.all(np.isfinite(y)):
        raise StatsInputError("a crossed REML fit needs finite values")
    c = _Cells(y, np.asarray(item), None if prompt is None else np.asarray(prompt))
    if interaction and (prompt is None or c.m == c.n):
        raise StatsInputError("the item × prompt component needs prompts and replicate rows "
                              "(samples) in at least one item × prompt cell")
    k = 1 + (1 if c.n_prompts else 0) + (1 if interaction else 0)
    if c.n_prompts == 0:
        theta0 = np.ones(k)
    else:
        theta0 = np.ones(k)
    if interaction and c.n_prompts == 0:  # pragma: no cover - guarded above
        raise StatsInputError("interaction needs prompts")

    def full(th: np.ndarray) -> np.ndarray:
        if c.n_prompts:
            return th
        return np.array([th[0], 0.0])

    def crit(r: np.ndarray) -> float:  # in the variance ratios r = theta^2 >= 0
        return _profiled(c, full(np.sqrt(np.maximum(r, 0.0))), interaction)[0]

    if c.n == c.m and c.n_prompts == 0:
        # one row per item: the item effect is confounded with the residual
        raise StatsInputError("with one row per item and no prompts, the item variance is "
                              "not separable from the residual")
    ratios, iterations = _minimise(crit, theta0, tol=tol, max_iter=max_iter)
    theta = np.sqrt(ratios)
    thf = full(theta)
    crit_v, sigma2, mu, xx = _profiled(c, thf, interaction)
    return CrossedFit(
        mu=float(mu + c.offset), mu_var=float(sigma2 / xx),
        item_var=float(thf[0] ** 2 * sigma2),
        prompt_var=float(thf[1] ** 2 * sigma2) if c.n_prompts else float("nan"),
        interaction_var=float(theta[2] ** 2 * sigma2) if interaction else float("nan"),
        residual_var=float(sigma2), reml_crit=float(crit_v), n_obs=c.n,
        n_items=c.n_items, n_prompts=c.n_prompts, n_cells=c.m, iterations=iterations)


def crossed_mean_test(
    y: np.ndarray,
    item: np.ndarray,
    prompt: np.ndarray,
    *,
    level: float = 0.95,
    alternative: str = "two-sided",
    tol: float = 1e-8,
) -> CrossedTest:
    """Test of the intercept of ``y = mu + a_item + b_prompt + e`` (REML) with Satterthwaite
    degrees of freedom: lmerTest's ``summary(lmer(y ~ 1 + (1|item) + (1|prompt)))``.

    ``se = sqrt(Var(mu))``, ``t = mu / se``, ``df = 2 Var(mu)^2 / (g' A g)`` (module docstring,
    step 5), p from Student's t with df, interval ``mu ± t_{df, 1 − (1 − level)/2} · se``
    (one-sided alternatives give a one-sided bound, the other end infinite).

    Parameters
    ----------
    y : numpy.ndarray
        Paired differences, one per item × prompt cell (or several: replicate rows).
    item, prompt : numpy.ndarray
        Item and prompt ids.
    level : float
        Confidence level of the interval.
    alternative : {"two-sided", "greater", "less"}
        Direction of the test ("greater": mu > 0).
    tol : float
        Convergence of the variance parameters.

    Returns
    -------
    CrossedTest
        Estimate, se, df, t, p, interval and the fit.

    Raises
    ------
    StatsInputError
        Fewer than 2 observations or an unknown alternative.

    References
    ----------
    Kuznetsova, Brockhoff & Christensen (2017), J. Statistical Software 82(13), sec. 3.1;
    Satterthwaite, F. E. (1946), Biometrics Bulletin 2:110–114.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(1)
    >>> item = np.repeat(np.arange(40), 5); prompt = np.tile(np.arange(5), 40)
    >>> d = 0.3 + rng.normal(size=40)[item] + 0.4 * rng.normal(size=5)[prompt] + rng.normal(size=200)
    >>> res = crossed_mean_test(d, item, prompt)
    >>> res.ci_low < res.estimate < res.ci_high and res.df > 1
    True
    """
    if alternative not in ("two-sided", "greater", "less"):
        raise StatsInputError(f"alternative must be 'two-sided', 'greater' or 'less'; got "
                              f"{alternative!r}")
    fit = crossed_reml(y, item, prompt, tol=tol)
    c = _Cells(np.asarray(y, dtype=np.float64), np.asarray(item), np.asarray(prompt))
    comps = np.array([fit.item_var, fit.prompt_var])
    free = comps > 1e-12 * max(fit.residual_var, 1e-300)
    var = fit.mu_var
    if fit.residual_var <= 0:
        df = float("nan")
    else:
        x = np.log(np.append(comps[free], fit.residual_var))

        def dev(u: np.ndarray) -> float:
            return _deviance(c, u, False, free)

        def muv(u: np.ndarray) -> float:
            return _mu_var(c, u, False, free)

        _, hess = _richardson_grad_hess(dev, x)
        grad, _ = _richardson_grad_hess(muv, x, levels=4, hessian=False)
        try:
            acov = 2.0 * np.linalg.inv(hess)
            df = float(2.0 * var ** 2 / (grad @ acov @ grad))
        except np.linalg.LinAlgError:
            df = float("nan")
    se = float(np.sqrt(var))
    est = fit.mu
    t = est / se if se > 0 else float("nan")
    alpha = 1.0 - level
    if alternative == "two-sided":
        p = float(2 * sps.t.sf(abs(t), df))
        q = float(sps.t.ppf(1 - alpha / 2, df))
        lo, hi = est - q * se, est + q * se
    elif alternative == "greater":
        p = float(sps.t.sf(t, df))
        lo, hi = est - float(sps.t.ppf(level, df)) * se, float("inf")
    else:
        p = float(sps.t.cdf(t, df))
        lo, hi = float("-inf"), est + float(sps.t.ppf(level, df)) * se
    return CrossedTest(estimate=float(est), se=se, df=df, statistic=float(t), pvalue=p,
                       ci_low=float(lo), ci_high=float(hi), level=level,
                       alternative=alternative, fit=fit)
