"""Array kernels of the Bayesian comparisons with a ROPE (baycomp's Dirichlet-process tests).

:mod:`ranger_eval.verdicts.bayes` holds the formulas (its module docstring) and the user-facing
functions; this module holds what both it and a rank test over many systems need:

- :func:`signed_rank_theta`: θ = (θ_left, θ_rope, θ_right) of the Bayesian signed-rank test for
  Dirichlet weights w over {0, d_1, …, d_n}: θ_right = Σ_{i,j} w_i w_j H(d_i + d_j − 2·rope),
  θ_left = Σ_{i,j} w_i w_j H(−(d_i + d_j) − 2·rope) (H(0) = ½), evaluated for many draws at once
  as quadratic forms in blocks;
- :func:`winner_shares`: baycomp's ``Posterior.probs`` (share of draws in which each θ is the
  largest; with rope = 0 left/right renormalised);
- :func:`bayesian_pairwise`: autorank's ``approach="bayesian"`` (Herbold 2020): every pair of
  systems by the signed-rank test across datasets, with a ROPE of ``rope`` × the pooled
  standard deviation (all columns normal by Shapiro–Wilk at α/k) or the pooled MAD·1.4826
  (otherwise), systems ordered by mean (normal) or median, and a decision per pair.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import stats

__all__ = ["DECISIONS", "PairwiseBayes", "bayesian_pairwise", "signed_rank_theta",
           "winner_shares"]

#: Decisions of :func:`bayesian_pairwise`, for the row system against the column system.
DECISIONS = ("better", "worse", "equivalent", "inconclusive")
_BLOCK = 1 << 22     # draws × (n + 1) floats evaluated per block


def _heaviside(a: np.ndarray) -> np.ndarray:
    return (a > 0).astype(np.float64) + 0.5 * (a == 0)


def signed_rank_theta(d: np.ndarray, weights: np.ndarray, rope: float) -> np.ndarray:
    """θ (draws × 3) of the signed-rank test from Dirichlet weights (draws × (n + 1)).

    Parameters
    ----------
    d : numpy.ndarray
        The paired differences (n).
    weights : numpy.ndarray
        Dirichlet draws, draws × (n + 1) (the first column the prior pseudo-observation's).
    rope : float
        Half-width of the region of practical equivalence (0: none).

    Returns
    -------
    numpy.ndarray
        draws × 3: θ_left, θ_rope, θ_right per draw (each row sums to 1).

    References
    ----------
    Benavoli, A., Corani, G., Demšar, J. & Zaffalon, M. (2017), "Time for a change: a tutorial
    for comparing multiple classifiers through Bayesian analysis", JMLR 18(77):1–36.

    Examples
    --------
    >>> import numpy as np
    >>> from ranger_eval.stats.bayes import signed_rank_theta
    >>> d = np.array([0.1, 0.2, -0.05, 0.15, 0.0, 0.3])
    >>> w = np.random.RandomState(0).dirichlet(np.r_[0.5, np.ones(6)], 2)
    >>> signed_rank_theta(d, w, 0.01).round(4).tolist()
    [[0.0311, 0.0189, 0.9501], [0.0035, 0.0205, 0.976]]
    """
    z = np.concatenate(([0.0], d))
    sums = z[:, None] + z[None, :]
    theta = np.empty((weights.shape[0], 3))
    above = _heaviside(sums - 2 * rope)
    below = _heaviside(-sums - 2 * rope) if rope > 0 else None
    step = max(1, _BLOCK // z.size)
    for start in range(0, weights.shape[0], step):   # blocks of draws, not single draws
        w = weights[start:start + step]
        theta[start:start + step, 2] = np.einsum("si,si->s", w @ above, w)
        if below is not None:
            theta[start:start + step, 0] = np.einsum("si,si->s", w @ below, w)
    if below is None:
        theta[:, 0] = 1 - theta[:, 2]
        theta[:, 1] = 0.0
    else:
        theta[:, 1] = 1 - theta[:, 0] - theta[:, 2]
    return theta


def winner_shares(theta: np.ndarray, with_rope: bool) -> tuple[float, float, float]:
    """baycomp's ``Posterior.probs``: the share of draws in which each θ is the largest.

    Parameters
    ----------
    theta : numpy.ndarray
        draws × 3 (left, rope, right).
    with_rope : bool
        Whether the rope cell competes; without it, the left and right shares are renormalised.

    Returns
    -------
    tuple of float
        ``(p_left, p_rope, p_right)``.

    Examples
    --------
    >>> import numpy as np
    >>> from ranger_eval.stats.bayes import winner_shares
    >>> theta = np.array([[0.1, 0.2, 0.7], [0.6, 0.1, 0.3], [0.2, 0.1, 0.7], [0.1, 0.8, 0.1]])
    >>> winner_shares(theta, True)
    (0.25, 0.25, 0.5)
    """
    pl, pe, pr = np.bincount(np.argmax(theta, axis=1), minlength=3) / len(theta)
    if with_rope:
        return float(pl), float(pe), float(pr)
    if pl + pr == 0:  # every draw won by the rope cell (sign test, rope=0): undefined
        return math.nan, 0.0, math.nan
    return float(pl / (pl + pr)), 0.0, float(pr / (pl + pr))


def signed_rank_probabilities(d: np.ndarray, rope: float, prior: float, n_samples: int,
                              seed: int) -> tuple[tuple[float, float, float], np.ndarray]:
    """(p_left, p_rope, p_right) and θ of the signed-rank test, with baycomp's draws
    ``RandomState(seed).dirichlet((prior, 1, …, 1), n_samples)``.

    Parameters
    ----------
    d : numpy.ndarray
        The paired differences.
    rope : float
        Half-width of the region of practical equivalence.
    prior : float
        Weight of the prior pseudo-observation at 0.
    n_samples : int
        Posterior draws.
    seed : int
        Seed of the draws.

    Returns
    -------
    probabilities : tuple of float
        ``(p_left, p_rope, p_right)``.
    theta : numpy.ndarray
        The draws × 3 θ.

    References
    ----------
    Benavoli, A., Corani, G., Demšar, J. & Zaffalon, M. (2017), "Time for a change: a tutorial
    for comparing multiple classifiers through Bayesian analysis", JMLR 18(77):1–36.

    Examples
    --------
    >>> import numpy as np
    >>> from ranger_eval.stats.bayes import signed_rank_probabilities
    >>> d = np.array([0.1, 0.2, -0.05, 0.15, 0.0, 0.3])
    >>> p, theta = signed_rank_probabilities(d, rope=0.01, prior=0.5, n_samples=2000, seed=0)
    >>> [round(x, 4) for x in p], theta.shape
    ([0.016, 0.0105, 0.9735], (2000, 3))
    """
    alpha = np.ones(d.size + 1)
    alpha[0] = prior
    weights = np.random.RandomState(int(seed)).dirichlet(alpha, int(n_samples))
    theta = signed_rank_theta(d, weights, rope)
    return winner_shares(theta, rope > 0), theta


@dataclass(frozen=True)
class PairwiseBayes:
    """Every pair of systems by the Bayesian signed-rank test (:func:`bayesian_pairwise`).

    Matrices are k × k in ``systems`` order (best first): ``p_better[i, j]`` = P(system i is
    better than j by more than the ROPE), ``p_rope[i, j]`` = P(practically equivalent),
    ``rope[i, j]`` the ROPE used, ``decisions[i, j]`` one of :data:`DECISIONS` ("" on the
    diagonal).
    """

    systems: tuple[str, ...]
    p_better: np.ndarray
    p_rope: np.ndarray
    rope: np.ndarray
    decisions: np.ndarray
    all_normal: bool
    scale: str
    level: float
    prior: float
    n_samples: int
    seed: int


def _pooled(a: np.ndarray, b: np.ndarray, mad: bool) -> float:
    if mad:
        sa = stats.median_abs_deviation(a, scale=1 / 1.4826)
        sb = stats.median_abs_deviation(b, scale=1 / 1.4826)
    else:
        sa, sb = np.std(a, ddof=1), np.std(b, ddof=1)
    na, nb = a.size, b.size
    return float(np.sqrt(((na - 1) * sa ** 2 + (nb - 1) * sb ** 2) / (na + nb - 2)))


def bayesian_pairwise(values: np.ndarray, systems: tuple[str, ...], *, rope: float,
                      rope_mode: str = "effsize", level: float = 0.95, prior: float = 0.5,
                      n_samples: int = 50_000, seed: int = 0,
                      higher_is_better: bool = True) -> PairwiseBayes:
    """autorank's Bayesian ranking (module docstring) on ``values`` (datasets × systems, finite,
    checked by the caller). ``rope_mode="effsize"``: the ROPE of each pair is ``rope`` × the
    pooled SD (all systems normal) or pooled MAD·1.4826; ``"absolute"``: ``rope`` itself.
    Decision at probability ``level``: better if P(i better) ≥ level, else equivalent if
    P(rope) ≥ level, else worse if P(j better) ≥ level, else inconclusive (autorank's order).

    Parameters
    ----------
    values : numpy.ndarray
        datasets × systems.
    systems : tuple of str
        The systems' names, in column order.
    rope : float
        The ROPE, as an effect size or absolute (``rope_mode``).
    rope_mode : {"effsize", "absolute"}, default "effsize"
        How ``rope`` is read.
    level : float, default 0.95
        The posterior probability a decision needs (and 1 − level the Shapiro–Wilk test's α,
        Bonferroni-corrected over the systems).
    prior : float, default 0.5
        Weight of the prior pseudo-observation.
    n_samples : int, default 50000
        Posterior draws (the same draws for every pair, as autorank).
    seed : int, default 0
        Seed of the draws.
    higher_is_better : bool, default True
        Direction of the scores.

    Returns
    -------
    PairwiseBayes
        ``systems`` best first; k × k ``p_better``, ``p_rope``, ``rope``, ``decisions``.

    References
    ----------
    Benavoli, A., Corani, G., Demšar, J. & Zaffalon, M. (2017), "Time for a change: a tutorial
    for comparing multiple classifiers through Bayesian analysis", JMLR 18(77):1–36.
    Herbold, S. (2020), "Autorank: A Python package for automated ranking of classifiers",
    Journal of Open Source Software 5(48):2173.

    Examples
    --------
    >>> import numpy as np
    >>> from ranger_eval.stats.bayes import bayesian_pairwise
    >>> v = np.array([[.8, .7, .5], [.9, .6, .6], [.7, .7, .4], [.85, .65, .55], [.75, .72, .5],
    ...               [.8, .6, .45]])
    >>> r = bayesian_pairwise(v, ("A", "B", "C"), rope=0.1, n_samples=2000)
    >>> r.systems, r.decisions[0].tolist()
    (('A', 'B', 'C'), ['', 'better', 'better'])
    >>> float(r.p_better[0, 1]), float(r.p_better[1, 2])
    (0.996, 0.996)
    """
    n, k = values.shape
    alpha = 1 - level
    all_normal = all(stats.shapiro(values[:, c]).pvalue >= alpha / k for c in range(k))
    centre = values.mean(axis=0) if all_normal else np.median(values, axis=0)
    order = np.argsort(-centre if higher_is_better else centre, kind="stable")
    v = values[:, order]
    names = tuple(systems[c] for c in order)
    p_better = np.full((k, k), np.nan)
    p_rope = np.full((k, k), np.nan)
    ropes = np.full((k, k), np.nan)
    dec = np.full((k, k), "", dtype=object)
    # autorank gives every pair's test the same random_state: the same draws, drawn once here
    alpha_d = np.ones(n + 1)
    alpha_d[0] = prior
    weights = np.random.RandomState(int(seed)).dirichlet(alpha_d, int(n_samples))
    for i in range(k):
        for j in range(i + 1, k):
            r = rope * _pooled(v[:, i], v[:, j], not all_normal) if rope_mode == "effsize" \
                else float(rope)
            d = v[:, j] - v[:, i] if higher_is_better else v[:, i] - v[:, j]
            pl, pe, pr = winner_shares(signed_rank_theta(d, weights, r), r > 0)
            p_better[i, j], p_better[j, i] = pl, pr
            p_rope[i, j] = p_rope[j, i] = pe
            ropes[i, j] = ropes[j, i] = r
            for a, b, pa, pb in ((i, j, pl, pr), (j, i, pr, pl)):
                dec[a, b] = ("better" if pa >= level else
                             "equivalent" if r > 0 and pe >= level else
                             "worse" if pb >= level else "inconclusive")
    return PairwiseBayes(names, p_better, p_rope, ropes, dec, all_normal,
                         "absolute" if rope_mode != "effsize" else ("sd" if all_normal else "mad"),
                         level, prior, int(n_samples), int(seed))
