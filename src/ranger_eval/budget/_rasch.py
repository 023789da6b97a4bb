"""Kernels of the Rasch model by conditional maximum likelihood (CML), vectorised and scaled.

Notation: item easiness β_i (eRm's ``betapar``; difficulty = −β_i), ε_i = exp(β_i), the
elementary symmetric functions (ESF) γ_r(ε) of order r = 0..k, and a person's raw score r.
The CML log-likelihood of item totals s_i given the counts n_r of persons with score r is
(Andersen 1972; Fischer & Molenaar 1995, ch. 3)::

    log L(β) = Σ_i s_i β_i − Σ_r n_r log γ_r(ε)

**Scaling.** γ_r overflows for a few hundred items (log γ_r spans thousands of nats at 10,000
items), so the summation algorithm is run on the ratios ρ_r = γ_{r−1}/γ_r instead of γ: adding
an item of parameter ε to a set maps γ'_r = γ_r + ε γ_{r−1} (the summation algorithm), hence::

    ρ'_r = ρ_r (1 + ε ρ_{r−1}) / (1 + ε ρ_r),   ρ'_{j+1} = (1 + ε ρ_j) / ε   (ρ_0 = 0)

— only sums and products of positive numbers, no cancellation, no overflow; log γ_r − log γ_0 =
−Σ_{m≤r} log ρ_m. **Conditional probabilities.** π_ri = P(x_i = 1 | r) = ε_i γ^{(i)}_{r−1}/γ_r
and q_ri = 1 − π_ri = γ^{(i)}_r/γ_r follow from the ratios by the recursions

    forward:   q_r = 1 − ε ρ_r q_{r−1}   (q_0 = 1),  stable while π ≤ 1/2
    backward:  q_{r−1} = π_r / (ε ρ_r),  π_{r−1} = 1 − q_{r−1}   (π_k = 1),  stable while π ≥ 1/2

and each (r, i) takes the stable one. Items with the same total have the same CML estimate
(the likelihood is symmetric in them and strictly concave on the sum-zero space), so the
parameters are those of the G ≤ n + 1 distinct totals, and Newton's method runs on them with
the exact Hessian: −∂² log L/∂β_g∂β_h = Σ_r n_r Cov_r(S_g, S_h), S_g the score on group g, from
π_rgh = P(x_i = x_j = 1 | r) = (ε_g π_rh − ε_h π_rg)/(ε_g − ε_h) for two groups and, for two
items of one group, π_rg times the probability of the second item at score r − 1 among the
items without the first (the same recursions on the ratios of that set).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np


def esf_ratios(eps: np.ndarray) -> np.ndarray:
    """ρ_r = γ_{r−1}(ε)/γ_r(ε) for r = 1..k (index r − 1), by the scaled summation algorithm
    (module docstring)."""
    k = eps.size
    rho = np.empty(k)
    rho[0] = 1.0 / eps[0]
    for j in range(1, k):
        e = eps[j]
        head = rho[:j]
        last = (1.0 + e * head[-1]) / e
        den = e * head
        den += 1.0
        num = np.empty(j)
        num[0] = 1.0
        num[1:] = den[:-1]
        num /= den
        head *= num
        rho[j] = last
    return rho


def log_gamma(rho: np.ndarray) -> np.ndarray:
    """log γ_r − log γ_0 for r = 0..k from the ratios."""
    return np.concatenate(([0.0], -np.cumsum(np.log(rho))))


def conditional_probabilities(eps: np.ndarray, rho: np.ndarray,
                              scores: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(π, q): P(x = 1 | r) and P(x = 0 | r) of items of parameters ``eps`` (a vector) at the
    raw scores ``scores`` (any of 0..k), for a set whose ESF ratios are ``rho`` (the items need
    not be in the set's ESF order; each must belong to the set; ``rho`` may also be a
    (k, len(eps)) matrix, one set per item). Returns two arrays of shape (len(scores),
    len(eps)). Both recursions run over every r with two vector operations a step (the
    forward one past its crossing π > 1/2 amplifies rounding and may overflow: those values
    are discarded), and each (r, i) takes the stable one: forward while π_1..π_r ≤ 1/2, else
    backward (module docstring)."""
    k = rho.shape[0]
    n_items = eps.size
    a = rho * eps if rho.ndim == 2 else np.outer(rho, eps)      # ε ρ_r, r = 1..k
    # one loop for both recursions, x_s = m_s y_{s−1}, y_s = 1 − x_s: left half forward
    # (x = π_s, m = ε ρ_s), right half backward from r = k (x = q_{k−s}, m = 1/(ε ρ_{k−s+1}))
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        m = np.hstack([a, 1.0 / a[::-1]])
        x = np.empty((k + 1, 2 * n_items))
        y = np.empty((k + 1, 2 * n_items))
        x[0], y[0] = 0.0, 1.0
        for r in range(1, k + 1):
            np.multiply(m[r - 1], y[r - 1], out=x[r])
            np.subtract(1.0, x[r], out=y[r])
    fp, fq = x[:, :n_items], y[:, :n_items]
    bq, bp = x[::-1, n_items:], y[::-1, n_items:]
    forward = np.logical_and.accumulate(fp <= 0.5, axis=0)[scores]
    return (np.where(forward, fp[scores], bp[scores]),
            np.where(forward, fq[scores], bq[scores]))


@dataclass(frozen=True)
class CMLFit:
    """The CML fit on item groups: ``beta`` per group (sum-zero over items), the item-level
    covariance pieces for the standard errors, the iterations and the final gradient norm."""

    beta: np.ndarray
    var_item: np.ndarray
    iterations: int
    gradient: float
    loglik: float


def _moments(beta: np.ndarray, mult: np.ndarray, scores: np.ndarray, counts: np.ndarray
             ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, float]:
    """π_rg (R × G), the item-level within/between covariances C (G × G, summed over r with
    weights n_r), δ_g = Var-part of an item beyond C_gg, the expected group totals, and the
    log-likelihood's −Σ n_r log γ_r part."""
    eps = np.exp(beta)
    order_items = np.repeat(eps, mult)
    rho = esf_ratios(order_items)
    lg = log_gamma(rho)
    pi, q = conditional_probabilities(eps, rho, scores)
    w = counts.astype(float)
    # pairs of two different groups
    diff = eps[:, None] - eps[None, :]
    np.fill_diagonal(diff, 1.0)
    # π_rgh is linear in π_r: Σ_r n_r π_rgh = (ε_g S_h − ε_h S_g)/(ε_g − ε_h), S = Σ_r n_r π_r
    total = w @ pi
    C = (eps[:, None] * total[None, :] - eps[None, :] * total[:, None]) / diff
    C -= pi.T @ (w[:, None] * pi)
    # two items of one group: Σ_{j≠i} P(x_i = x_j = 1 | r) = (r − 1) π_ri (given x_i = 1 the
    # others hold r − 1), so (m_g − 1) π_rgg = (r − 1) π_rg − Σ_{h≠g} m_h π_rgh
    weight = mult[None, :] / diff
    np.fill_diagonal(weight, 0.0)
    cross = eps[None, :] * (pi @ weight.T) - pi * (weight @ eps)[None, :]
    many = mult >= 2
    spare = np.where(many, mult - 1.0, 1.0)
    pgg = ((scores[:, None] - 1.0) * pi - cross) / spare
    within = np.where(many, w @ (pgg - pi**2), 0.0)
    np.fill_diagonal(C, within)
    var_item = w @ (pi * q)
    delta = var_item - within
    expected = mult * (w @ pi)
    return C, delta, expected, var_item, float(w @ lg[scores])


def _start(totals: np.ndarray, mult: np.ndarray, scores: np.ndarray, counts: np.ndarray
           ) -> np.ndarray:
    """Starting values of Newton's method: the joint ML estimates (persons' abilities per raw
    score and the groups' easiness solved alternately, each by vectorised Newton steps from the
    log-odds of the p-values), times (k − 1)/k, the correction of JML's bias (Wright & Douglas
    1977; Andersen 1973: JML → (k/(k − 1)) CML for the Rasch model), sum-zero. At thousands of
    items it is within ~1e-3 of the CML estimate, saving two of the five Newton iterations of
    the log-odds start; the CML optimum it leads to is the same."""
    n = float(counts.sum())
    k = float(mult.sum())
    p = np.clip(totals / n, 1e-3, 1 - 1e-3)
    beta = np.log(p / (1 - p))
    beta -= (mult @ beta) / k
    r = scores.astype(float)
    w = counts.astype(float)
    theta = np.log(r / (k - r))
    for _ in range(200):
        prob = 1.0 / (1.0 + np.exp(-(theta[:, None] + beta[None, :])))
        info = prob * (1 - prob)
        t_step = np.clip(((prob @ mult) - r) / (info @ mult), -1.0, 1.0)
        theta -= t_step
        prob = 1.0 / (1.0 + np.exp(-(theta[:, None] + beta[None, :])))
        info = prob * (1 - prob)
        b_step = np.clip((w @ prob - totals) / (w @ info), -1.0, 1.0)
        beta -= b_step
        beta -= (mult @ beta) / k
        if max(float(np.abs(t_step).max()), float(np.abs(b_step).max())) < 1e-6:
            break
    beta *= (k - 1) / k
    return beta


def fit_cml(totals: np.ndarray, mult: np.ndarray, scores: np.ndarray, counts: np.ndarray,
            *, tol: float = 1e-6, max_iter: int = 100) -> CMLFit:
    """Newton's method on the group parameters β_g (items of group g share the total
    ``totals[g]``; ``mult[g]`` items), the persons' non-extreme raw scores ``scores`` with
    ``counts``; sum-zero over items (eRm's ``sum0``). Stops when the largest |gradient| is
    below ``tol`` · n. Returns β per group and each item's sampling variance (the diagonal of
    the Moore–Penrose inverse of the item-level information, i.e. the sum-zero covariance)."""
    n = float(counts.sum())
    k = float(mult.sum())
    beta = _start(totals, mult, scores, counts)
    iterations = 0
    for it in range(1, max_iter + 1):
        iterations = it
        C, delta, expected, _, lg_sum = _moments(beta, mult, scores, counts)
        grad = mult * totals - expected
        info = (mult[:, None] * C * mult[None, :]) + np.diag(mult * delta)
        # null direction: β + c for all items; fixed by adding a multiple of its projector
        ones = mult / np.sqrt(mult @ mult)
        step = np.linalg.solve(info + np.outer(ones, ones) * info.trace(), grad)
        step -= (mult @ step) / k
        # a full Newton step can overshoot far from the optimum: at most 1 logit per iteration
        step *= min(1.0, 1.0 / max(float(np.max(np.abs(step))), 1e-300))
        beta = beta + step
        # Newton converges quadratically: after a step below 1e-10 the error is ~1e-20, and
        # the information (the standard errors) was computed within 1e-10 of the optimum
        if float(np.max(np.abs(step))) < 1e-10 and float(np.max(np.abs(grad))) < tol * n:
            break
    grad_norm = float(np.max(np.abs(grad)))
    var_item = _item_variances(C, delta, mult)
    loglik = float((mult * totals) @ beta) - lg_sum
    return CMLFit(beta, var_item, iterations, grad_norm, loglik)


def _item_variances(C: np.ndarray, delta: np.ndarray, mult: np.ndarray) -> np.ndarray:
    """Diagonal of M⁺ for the item-level information M = U C Uᵀ + diag(δ_g(i)) (U: item → group
    membership), whose null space is the constant vector: M⁺ = (M + 11ᵀ)⁻¹ − 11ᵀ/k², and
    (D + U B Uᵀ)⁻¹ by Woodbury with B = C + 11ᵀ (G × G), per group."""
    k = float(mult.sum())
    G = C.shape[0]
    B = C + 1.0
    E = np.diag(mult / delta)
    K = B @ np.linalg.inv(np.eye(G) + E @ B)
    diag = 1.0 / delta - np.diag(K) / delta**2
    return diag - 1.0 / k**2
