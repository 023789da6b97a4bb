"""Prediction-powered inference (PPI) for a mean: the array kernel.

An automatic judge scores every item (``yhat``); humans score a subset, the *labelled* items
(``y``, with the judge's scores ``yhat`` of the same items); the judge alone scores the
*unlabelled* items (``yhat_unlabelled``). With n labelled and N unlabelled items, the
prediction-powered estimate of the mean human score θ = E[Y] is (Angelopoulos, Bates, Fannjiang,
Jordan & Zrnic, "Prediction-powered inference", Science 382, 2023, §2; with the power-tuning
weight λ of Angelopoulos, Duchi & Zrnic, "PPI++: Efficient prediction-powered inference",
arXiv:2311.01453, 2023, §2 and Example 6.1)::

    θ̂_λ = λ · mean(yhat_unlabelled) + mean(y − λ · yhat)          (imputed mean + rectifier)

unbiased for any fixed λ, since E[λ·f] − E[λ·f] cancels. Its variance is estimated by::

    se² = λ² · σ̂²(yhat_unlabelled) / N + σ̂²(y − λ · yhat) / n

(σ̂² with divisor n or N, as ``ppi_py``), and the interval is the normal one,
θ̂ ± z_{1−α/2} · se with α = 1 − level. The methods differ in λ:

* ``"ppi++"``: the variance-minimising weight, estimated from the data and clipped to [0, 1]::

      λ̂ = Ĉov(y, yhat) / ((1 + n/N) · V̂ar(yhat ∪ yhat_unlabelled))

  with Ĉov the covariance of the labelled pairs (divisor n) and V̂ar the sample variance
  (divisor n + N − 1) of all n + N judge scores; this is ``ppi_py``'s ``_calc_lam_glm`` for a
  mean (identity Hessian, ``clip=True``). A judge uncorrelated with the humans gets λ̂ = 0 (the
  classical estimate); a judge with no spread at all has an undefined λ̂ and gets λ = 0 here
  (``ppi_py`` returns NaN), which changes nothing: with a constant judge every λ gives the
  same estimate and variance;
* ``"ppi"``: λ = 1, the original estimator of Angelopoulos et al. (2023);
* ``"classical"``: λ = 0, the mean of the human scores alone with se = σ̂(y)/√n (``ppi_py``'s
  ``classical_mean_ci``); the unlabelled items are not used.

The p-value is the two-sided z test of θ = 0, z = θ̂/se (``ppi_py.ppi_mean_pval`` with the same
λ): with paired differences as the scores it tests "no difference".

Scores whose largest magnitude lies outside [2^-100, 2^100] are rescaled by an exact power of two
first (:mod:`ranger_eval.stats._scale`): λ, z and p are scale-free, the estimate, se and bounds
are multiplied back, so 1e-200 or 1e200 scores give the same answer as their rescaled copy.

Numbers equal ``ppi_py.ppi_mean_pointestimate`` / ``ppi_mean_ci`` / ``classical_mean_ci`` to
1e-10 (tests/oracles/ppi_oracle.py). Every input must be finite; the labelled set needs n ≥ 2
items (one item has no spread to estimate) and the PPI methods N ≥ 2 unlabelled items.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np
from scipy import special

from ..errors import StatsInputError
from ..signature import Signature, make_signature
from . import _scale
from ._validation import check_choice, check_level

__all__ = ["PPI_METHODS", "PPIResult", "prediction_powered_mean", "ppi_lambda"]

#: the estimators: power-tuned λ (default), λ = 1, λ = 0 (human scores only)
PPI_METHODS = ("ppi++", "ppi", "classical")


@dataclass(frozen=True)
class PPIResult:
    """A prediction-powered estimate of a mean (or of a mean paired difference) and its interval.

    ``estimate`` is θ̂_λ, ``se`` its standard error, ``ci_low``/``ci_high`` the normal interval
    at ``level``, ``lam`` the weight λ used, ``n_labelled`` / ``n_unlabelled`` the items with and
    without a human score, ``statistic`` = estimate / se and ``pvalue`` its two-sided normal
    p-value (H0: the mean is 0). ``dataset``, ``metric`` and ``systems`` say what was estimated
    (one system: its mean; two: the mean of treatment − control); ``n_partial`` counts the items
    of a difference where only one of the two systems had a human score (used as unlabelled).
    """

    estimate: float
    se: float
    ci_low: float
    ci_high: float
    lam: float
    n_labelled: int
    n_unlabelled: int
    method: str
    level: float
    statistic: float
    pvalue: float
    dataset: str | None = None
    metric: str | None = None
    systems: tuple[str, ...] = ()
    n_partial: int = 0

    def confidence_interval(self) -> tuple[float, float]:
        """``(ci_low, ci_high)``."""
        return (self.ci_low, self.ci_high)

    def to_dict(self) -> dict[str, Any]:
        """Plain dictionary of all fields and the signature (JSON-friendly)."""
        out = asdict(self)
        out["systems"] = list(self.systems)
        out["signature"] = str(self.signature)
        return out

    @property
    def signature(self) -> Signature:
        """``kind:ppi|ppi:METHOD|level:L``."""
        return make_signature("ppi", {"ppi": self.method, "level": self.level})


def _as_vector(name: str, values: Sequence[float] | np.ndarray) -> np.ndarray:
    arr = np.asarray(values, dtype=np.float64)
    if arr.ndim != 1:
        raise StatsInputError(f"{name} must be one-dimensional; got shape {arr.shape}")
    bad = np.flatnonzero(~np.isfinite(arr))
    if bad.size:
        raise StatsInputError(
            f"{name} holds a non-finite value {arr[bad[0]]!r} at position {int(bad[0])}"
            + (f" ({bad.size} such values)" if bad.size > 1 else ""))
    return arr


def ppi_lambda(y: np.ndarray, yhat: np.ndarray, yhat_unlabelled: np.ndarray) -> float:
    """The PPI++ weight λ̂ = Ĉov(y, yhat) / ((1 + n/N) · V̂ar(all judge scores)), clipped to
    [0, 1] (Angelopoulos, Duchi & Zrnic 2023, Example 6.1; ``ppi_py.ppi._calc_lam_glm``);
    0 when the judge scores have no spread (the estimate does not depend on λ then)."""
    n, big_n = y.size, yhat_unlabelled.size
    cov = float(np.dot(y - y.mean(), yhat - yhat.mean())) / n
    total = n + big_n
    mean_all = (float(yhat.sum()) + float(yhat_unlabelled.sum())) / total
    ss = (float(np.dot(yhat - mean_all, yhat - mean_all))
          + float(np.dot(yhat_unlabelled - mean_all, yhat_unlabelled - mean_all)))
    var_all = ss / (total - 1)
    if not var_all > 0.0:
        return 0.0
    lam = cov / ((1.0 + n / big_n) * var_all)
    return float(min(max(lam, 0.0), 1.0))


def _var0(x: np.ndarray) -> float:
    """Variance with divisor len(x) (``numpy.var``, as ``ppi_py``'s ``std(0)**2``)."""
    d = x - x.mean()
    return float(np.dot(d, d)) / x.size


def prediction_powered_mean(
    y: Sequence[float] | np.ndarray,
    yhat: Sequence[float] | np.ndarray,
    yhat_unlabelled: Sequence[float] | np.ndarray,
    *,
    method: str = "ppi++",
    level: float = 0.95,
) -> PPIResult:
    """Prediction-powered estimate and normal confidence interval of the mean of ``y``.

    ``y``: human scores of the labelled items; ``yhat``: the judge's scores of the same items
    (aligned); ``yhat_unlabelled``: the judge's scores of the other items. The estimator, its
    variance and λ for each ``method`` (``"ppi++"``, ``"ppi"``, ``"classical"``) are in the
    module docstring. Raises :class:`StatsInputError` naming the argument for non-finite values,
    misaligned arrays, fewer than 2 labelled items, or (PPI methods) fewer than 2 unlabelled.
    """
    method = check_choice("method", method, PPI_METHODS)
    level = check_level(level)
    y_ = _as_vector("y (human scores)", y)
    yhat_ = _as_vector("yhat (judge scores of the labelled items)", yhat)
    yu = _as_vector("yhat_unlabelled (judge scores of the unlabelled items)", yhat_unlabelled)
    if y_.size != yhat_.size:
        raise StatsInputError(
            f"y and yhat must be aligned (one judge score per human score); got {y_.size} human "
            f"and {yhat_.size} judge scores")
    n, big_n = y_.size, yu.size
    if n < 2:
        raise StatsInputError(
            f"prediction-powered inference needs at least 2 items with a human score; got {n}")
    if method != "classical" and big_n < 2:
        raise StatsInputError(
            f"method {method!r} needs at least 2 items without a human score (the judge-only "
            f"items); got {big_n}. With every item human-scored, pass method='classical'")
    # unit-free at the extremes (stats/_scale.py): λ, z and p do not change when every score is
    # multiplied by 2^-e; estimate, se and bounds are multiplied back by 2^e
    e = _scale.exponent(y_, yhat_, yu)
    if e:
        y_, yhat_, yu = _scale.scaled(e, y_, yhat_, yu)
    if method == "classical":
        lam = 0.0
    elif method == "ppi":
        lam = 1.0
    else:
        lam = ppi_lambda(y_, yhat_, yu)
    rect = y_ - lam * yhat_
    if lam == 0.0:
        imputed_mean, imputed_var = 0.0, 0.0
    else:
        imputed = lam * yu
        imputed_mean, imputed_var = float(imputed.mean()), _var0(imputed) / big_n
    estimate = imputed_mean + float(rect.mean())
    se = float(np.sqrt(imputed_var + _var0(rect) / n))
    z = float(-special.ndtri((1.0 - level) / 2.0))
    if se > 0.0:
        statistic = estimate / se
        pvalue = float(2.0 * special.ndtr(-abs(statistic)))
    else:  # no spread at all: the estimate is exact
        statistic = 0.0 if estimate == 0.0 else float(np.copysign(np.inf, estimate))
        pvalue = 1.0 if estimate == 0.0 else 0.0
    ci_low, ci_high = estimate - z * se, estimate + z * se
    if e:
        estimate, se = _scale.unscale(estimate, e, "estimate"), _scale.unscale(se, e, "se")
        ci_low, ci_high = (_scale.unscale(ci_low, e, "ci_low"),
                           _scale.unscale(ci_high, e, "ci_high"))
    return PPIResult(
        estimate=estimate, se=se, ci_low=ci_low, ci_high=ci_high, lam=lam,
        n_labelled=n, n_unlabelled=big_n, method=method,
        level=level, statistic=statistic, pvalue=pvalue,
    )
