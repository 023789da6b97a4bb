"""Bradley–Terry with battle-level covariates (LMArena's style control): the fit behind
``bradley_terry(battles, covariates=[...])``.

**Model.** Battle r between model a and model b, with covariate differences z_r (model_a's
response minus model_b's: length, markdown headers, lists, bold — :mod:`ranger_eval.io.battles`
says how they are read), has P(a beats b) = σ(θ_a − θ_b + z̃_rᵀβ), a tie counting as half a win
for each side (y_r ∈ {1, ½, 0}) and the battle's weight w_r multiplying its log-likelihood:
Σ_r w_r [y_r log σ(s_r) + (1 − y_r) log σ(−s_r)] — the logistic regression on the columns
"+1 for model_a, −1 for model_b" (one model, the first by name, dropped) and z̃, with no
intercept (Chiang et al. 2024, LMArena "Does style matter?" blog, Aug 2024; FastChat
``compute_style_control``; ``arena-rank`` ``ContextualBradleyTerry``).

**Standardisation** (as both LMArena implementations): every covariate's differences are
centred and scaled over the battles, z̃ = (z − mean z) / sd z with the population sd
(ddof = 0; a battle's weight does not enter, as LMArena's); a difference that is constant over
the battles is refused (its coefficient is not identified). β_k is then the change in the
log-odds of winning per standard deviation of covariate k, and the ratings θ are the
strengths "with style held at zero", i.e. at the average style difference. Unlike LMArena,
the fit is the plain maximum-likelihood estimate (FastChat adds an L2 penalty 0.5·‖θ, β‖²/2,
``arena-rank`` ``reg·‖β‖²/2``; with the millions of battles of the arena the difference is
small, with a few thousand it is not): equal to statsmodels ``GLM(Binomial)`` /``Logit`` on
the same design (tests/oracles/bt_style_oracle.py).

**Fit.** Newton's method on the distinct battle rows (identical (model_a, model_b, outcome,
weight, covariates) rows merged with their count), with step halving, to a step below 1e-12;
gradient and information assembled by scatter-adds (the rating block by pairs, the rating ×
covariate block by models, the covariate block by ZᵀDZ), so one iteration is a few passes
over the rows and a (p + k)² solve.

**Uncertainty.** ``se``: the sandwich H⁻¹ B H⁻¹ with B = Σ_battles w² (y − σ(s))² x̃ x̃ᵀ
(Huber 1967; White 1982; HC0 of the GLM), ``se_model`` √diag H⁻¹; bootstrap percentile
intervals as :func:`~ranger_eval.bradley_terry` without covariates: each round draws the
number of copies of every distinct row from a multinomial (N battles, probabilities
count/N: FastChat's row resampling; each round its own random stream, so the bootstrap is
bit-for-bit the same for a seed) and refits warm-started at the estimate by chord Newton
steps (the whole data's information), many rounds at once, until each round's step is below
1e-8, with Newton and step halving as the fallback (:mod:`.bt_style_bootstrap`). The covariates are standardised once, on the data (a
round's β is per standard deviation of the observed differences, LMArena's bootstrap too).
A round without a finite maximum (some group never lost, or a covariate separates wins
from losses) is left out and counted.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.special import expit

from ..errors import VerdictError
from ..formatting import preview
from ..io.battles import Battles
from .bt_style_bootstrap import style_bootstrap

__all__ = ["CovariateFit", "fit_covariates", "standardise"]

_TOL = 1e-12         # Newton stops when the largest step is below this
_TOL_BOOT = 1e-7     # bootstrap rounds: last step below this (remaining error ~ its square)
_MAX_ITER = 100


@dataclass(frozen=True)
class CovariateFit:
    """The numbers of a covariate Bradley–Terry fit (module docstring): parameters
    x = (θ with θ_ref = 0, β), their model-based and sandwich covariances (ref row and column
    0), bootstrap parameters (rounds × (p + k), failed rounds left out), and the covariates'
    standardisation."""

    x: np.ndarray
    v_model: np.ndarray
    v_sand: np.ndarray
    boot: np.ndarray
    n_failed: int
    mean: np.ndarray
    sd: np.ndarray
    n_distinct: int


def standardise(z: np.ndarray, count: np.ndarray, names: tuple[str, ...]
                ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Centre and scale every column of ``z`` (distinct rows, ``count`` battles each) by its
    mean and population sd over the battles; a constant column is a :class:`VerdictError`."""
    n = count.sum()
    mean = (count @ z) / n
    sd = np.sqrt((count @ (z - mean) ** 2) / n)
    const = [names[k] for k in np.flatnonzero(~(sd > 1e-12 * np.maximum(1.0, np.abs(mean))))]
    if const:
        raise VerdictError(
            f"bradley_terry: covariate(s) {preview(const)} have the same difference in every "
            "battle (constant): their coefficient is not identified next to the ratings; leave "
            "them out of covariates")
    return (z - mean) / sd, mean, sd


def _distinct(enc: Battles) -> tuple[np.ndarray, ...]:
    """Distinct (a, b, outcome, weight, covariates) rows and their counts."""
    assert enc.covariates is not None
    table = np.column_stack([enc.a.astype(np.float64), enc.b.astype(np.float64),
                             enc.outcome.astype(np.float64), enc.weight, enc.covariates])
    table = np.ascontiguousarray(table)
    rows = table.view(np.dtype((np.void, table.dtype.itemsize * table.shape[1]))).ravel()
    _, first, count = np.unique(rows, return_index=True, return_counts=True)
    t = table[first]
    y = np.where(t[:, 2] == 0, 1.0, np.where(t[:, 2] == 1, 0.0, 0.5))
    return (t[:, 0].astype(np.int64), t[:, 1].astype(np.int64), y, np.ascontiguousarray(t[:, 3]),
            np.ascontiguousarray(t[:, 4:]), count.astype(np.float64))


def _assemble(q: np.ndarray, a: np.ndarray, b: np.ndarray, z: np.ndarray, p: int) -> np.ndarray:
    """Σ_r q_r x_r x_rᵀ with x_r = (e_a − e_b, z_r): the (p + k)² information-like matrix."""
    k = z.shape[1]
    pair = np.bincount(a * p + b, q, minlength=p * p).reshape(p, p)
    out = np.empty((p + k, p + k))
    block = -(pair + pair.T)
    block[np.diag_indices(p)] += pair.sum(axis=1) + pair.sum(axis=0)
    out[:p, :p] = block
    qz = q[:, None] * z
    cross = np.empty((p, k))
    for c in range(k):
        cross[:, c] = np.bincount(a, qz[:, c], minlength=p) - np.bincount(b, qz[:, c], minlength=p)
    out[:p, p:] = cross
    out[p:, :p] = cross.T
    out[p:, p:] = z.T @ qz
    return out


def _loglik(x: np.ndarray, a: np.ndarray, b: np.ndarray, y: np.ndarray, z: np.ndarray,
            cw: np.ndarray, p: int) -> float:
    s = x[a] - x[b] + z @ x[p:]
    return float(cw @ (y * s - np.logaddexp(0.0, s)))


def _newton(a: np.ndarray, b: np.ndarray, y: np.ndarray, z: np.ndarray, cw: np.ndarray, p: int,
            ref: int, start: np.ndarray, *, tol: float, line_search: bool
            ) -> tuple[np.ndarray, bool]:
    """Maximise the weighted log-likelihood (weights ``cw`` = count × weight) from ``start``;
    returns the parameters and whether the step fell below ``tol``."""
    x = start.copy()
    free = np.flatnonzero(np.arange(x.size) != ref)
    ll = _loglik(x, a, b, y, z, cw, p) if line_search else 0.0
    for _ in range(_MAX_ITER if line_search else 30):
        s = x[a] - x[b] + z @ x[p:]
        pr = expit(s)
        r = cw * (y - pr)
        g = np.concatenate([np.bincount(a, r, minlength=p) - np.bincount(b, r, minlength=p),
                            z.T @ r])
        h = _assemble(cw * pr * (1.0 - pr), a, b, z, p)
        try:
            step_free = np.linalg.solve(h[np.ix_(free, free)], g[free])
        except np.linalg.LinAlgError:
            return x, False
        step = np.zeros_like(x)
        step[free] = step_free
        t = 1.0
        trial = x + step
        if line_search:
            for _half in range(40):
                new = _loglik(trial, a, b, y, z, cw, p)
                if np.isfinite(new) and new >= ll - 1e-12 * max(1.0, abs(ll)):
                    ll = new
                    break
                t /= 2
                trial = x + t * step
            else:
                return x, False
        x = trial
        if not np.all(np.isfinite(x)):
            return x, False
        if np.max(np.abs(t * step)) < tol:
            return x, True
    return x, False


def fit_covariates(enc: Battles, ref: int, n_resamples: int, seed: int) -> CovariateFit:
    """Fit θ (θ_ref = 0) and β on the standardised covariates, their covariances and the
    bootstrap (module docstring)."""
    assert enc.covariates is not None
    p = len(enc.models)
    a, b, y, w, z_raw, count = _distinct(enc)
    z, mean, sd = standardise(z_raw, count, enc.covariate_names)
    k = z.shape[1]
    cw = count * w
    x, ok = _newton(a, b, y, z, cw, p, ref, np.zeros(p + k), tol=_TOL, line_search=True)
    if not ok:
        raise VerdictError(
            "bradley_terry: the maximum-likelihood fit with covariates "
            f"{preview(list(enc.covariate_names))} did not converge: a covariate (or a group of "
            "models) separates wins from losses, so some estimate is infinite; leave that "
            "covariate out or add battles")
    free = np.flatnonzero(np.arange(p + k) != ref)
    s = x[a] - x[b] + z @ x[p:]
    pr = expit(s)
    h = _assemble(cw * pr * (1.0 - pr), a, b, z, p)[np.ix_(free, free)]
    meat = _assemble(count * (w * (y - pr)) ** 2, a, b, z, p)[np.ix_(free, free)]
    inv = np.linalg.inv(h)
    v_model = np.zeros((p + k, p + k))
    v_sand = np.zeros((p + k, p + k))
    v_model[np.ix_(free, free)] = inv
    v_sand[np.ix_(free, free)] = inv @ meat @ inv

    def refit(draw: np.ndarray) -> tuple[np.ndarray, bool]:
        return _newton(a, b, y, z, draw * w, p, ref, x, tol=_TOL_BOOT, line_search=True)

    boot, failed = style_bootstrap(a, b, y, w, z, count, p, ref, x, h, n_resamples, seed, refit)
    return CovariateFit(x, v_model, v_sand, boot, failed, mean, sd, int(count.size))
