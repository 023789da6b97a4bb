"""The harmonic mean p-value (Wilson 2019), exactly as R ``harmonicmeanp`` 3.0.1 ``p.hmp``.

Wilson, D. J. (2019). The harmonic mean p-value for combining dependent tests. PNAS 116:1195–1200
(and the 2019/2020 corrections that led to harmonicmeanp 3.0). The IBM multi-metric framework
(Ackerman et al. 2025, §6.2) combines a system pair's per-metric (or per-dataset) p-values this
way, with ``L`` the total number of tests performed.

For p-values ``p_1..p_n`` out of ``L`` tests in all, with weights ``w_i ≥ 0`` (default ``1/L``
each) summing to ``w = Σ w_i ≤ 1``, R's ``p.hmp(p, w, L)`` (``multilevel = TRUE``) returns

    HMP = w / Σ (w_i / p_i)                      (hmp.stat: the weighted harmonic mean)
    p.hmp = w · P(Y > w / HMP) = w · P(Y > Σ w_i/p_i)

where ``Y`` is Landau-distributed with location ``μ = log L + 1 + ψ(1) − log(2/π)``
(``= log L + 0.874367040387922…``) and scale ``σ = π/2`` (FMStable's ``pEstable`` with
``alpha = 1``, ``pm = 0``, ``logscale = log(π/2)``; the same distribution as
``scipy.stats.landau(loc=μ, scale=σ)``). ``p.hmp`` is compared with ``w·α``; equivalently the
adjusted p-value ``p.hmp / w = P(Y > Σ w_i/p_i)`` is compared with ``α`` (Wilson's p̊ for a
subset of the ``L`` tests). Since the survival function is at most 1, ``p.hmp ≤ w`` and the
adjusted p-value is at most 1 without any capping (``p.hmp`` caps nothing). The one cap here:
``pvalue`` is ``min(1, w · P(…))``, because a weight sum that is 1 up to rounding (243 × 1/243)
or within R's tolerance (1 + 1e-6) could otherwise give 1.0000000000000004.
"""
from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from numbers import Integral

import numpy as np
from scipy.special import digamma

from .._lazymodule import lazy_module
from ..errors import AggregateError
from ..signature import Signature, make_signature

stats = lazy_module("scipy.stats")  # imported on first use: it is slow to import

__all__ = ["HarmonicMeanP", "LANDAU_OFFSET", "harmonic_mean_p"]

#: ``1 + ψ(1) − log(2/π)``, the location offset of the HMP's Landau law (``O.874`` in R).
LANDAU_OFFSET: float = float(1.0 + digamma(1.0) - math.log(2.0 / math.pi))

#: Tolerance on ``Σ w ≤ 1`` (R's ``w.sum.tolerance``).
W_SUM_TOLERANCE = 1e-6


@dataclass(frozen=True)
class HarmonicMeanP:
    """Result of :func:`harmonic_mean_p`.

    Attributes
    ----------
    pvalue
        R's ``p.hmp(p, w, L)``: ``w · P(Landau(log L + 0.8744, π/2) > Σ w_i/p_i)``, to be compared
        with ``w·α`` (``w = Σ w_i``); capped at 1 against rounding.
    pvalue_adjusted
        ``pvalue / w`` — the p-value to compare with ``α`` directly (≤ 1).
    hmp
        The weighted harmonic mean ``w / Σ (w_i/p_i)`` (R's ``hmp.stat``).
    L
        Total number of tests the combined p-values belong to.
    weights
        The weights used (``1/L`` each unless given).
    n
        Number of p-values combined.
    """

    pvalue: float
    pvalue_adjusted: float
    hmp: float
    L: int
    weights: np.ndarray
    n: int
    signature: Signature

    @property
    def weight_sum(self) -> float:
        """``w = Σ w_i``."""
        return float(np.sum(self.weights))

    def to_dict(self) -> dict[str, object]:
        """JSON-ready, full precision."""
        return {
            "pvalue": self.pvalue,
            "pvalue_adjusted": self.pvalue_adjusted,
            "hmp": self.hmp,
            "L": self.L,
            "n": self.n,
            "weights": [float(w) for w in self.weights],
            "signature": str(self.signature),
        }


def harmonic_mean_p(
    pvalues: Sequence[float] | np.ndarray,
    *,
    weights: Sequence[float] | np.ndarray | None = None,
    L: int | None = None,
) -> HarmonicMeanP:
    """Combine p-values by Wilson's asymptotically exact harmonic mean p-value.

    Returns the quantities of R ``harmonicmeanp::p.hmp(p, w, L)`` (version 3.0.1, ``multilevel =
    TRUE``); see the module docstring for the formula. Differences from R, all on input R would
    accept with a warning or turn into ``NA``: NaN p-values and ``L`` smaller than the number of
    p-values are errors here.

    Parameters
    ----------
    pvalues : array_like of float
        One or more p-values in ``[0, 1]`` (a p-value of 0 gives a combined p-value of 0).
    weights : array_like of float, optional
        Non-negative weights, one per p-value, with ``Σ w ≤ 1`` (up to 1e-6, as R); a sum below 1
        means the p-values are a subset of ``L`` tests. Default ``1/L`` each. A zero weight
        removes its p-value from the harmonic mean.
    L : int, optional
        Total number of tests in the family (default: the number of p-values). Must be at least
        the number of p-values.

    Returns
    -------
    HarmonicMeanP
        ``pvalue`` (the asymptotically exact combined p-value), ``pvalue_adjusted`` (p.hmp / Σw),
        ``hmp`` (the weighted harmonic mean), ``L``, ``weights``, ``signature``.

    Raises
    ------
    AggregateError
        P-values outside [0, 1] or NaN, negative weights, Σ w > 1, ``L`` below the count.

    References
    ----------
    Wilson, D. J. (2019), "The harmonic mean p-value for combining dependent tests", PNAS
    116:1195–1200; R ``harmonicmeanp::p.hmp`` 3.0.1.

    Examples
    --------
    >>> import ranger_eval as rg
    >>> h = rg.harmonic_mean_p([0.01, 0.2, 0.5, 0.03])
    >>> round(h.hmp, 5), round(h.pvalue, 5), h.L
    (0.0285, 0.03293, 4)
    """
    try:
        p = np.atleast_1d(np.asarray(pvalues, dtype=float))
    except (TypeError, ValueError):
        raise AggregateError(f"pvalues must be numbers in [0, 1]; got {pvalues!r}") from None
    if p.ndim != 1:
        raise AggregateError(f"pvalues must be one-dimensional; got shape {p.shape}")
    n = int(p.size)
    if n == 0:
        raise AggregateError("pvalues is empty: need at least one p-value to combine")
    bad = np.flatnonzero(~((p >= 0.0) & (p <= 1.0)))
    if bad.size:
        raise AggregateError(
            f"pvalues must lie in [0, 1]; got {p[bad[0]]!r} at position {int(bad[0])}"
            + (f" ({bad.size} such values)" if bad.size > 1 else "")
        )
    if L is None:
        L = n
    elif (
        isinstance(L, bool)
        or not isinstance(L, (Integral, float))
        or not float(L).is_integer()
    ):
        raise AggregateError(f"L must be a positive integer (the total number of tests); got {L!r}")
    L = int(L)
    if L < n:
        raise AggregateError(
            f"L (the total number of tests) must be at least the number of p-values, {n}; got {L}"
        )
    if weights is None:
        w = np.full(n, 1.0 / L)
        custom = False
    elif isinstance(weights, (str, bytes)):
        raise AggregateError(f"weights must be numbers, one per p-value; got {weights!r}")
    else:
        try:
            w = np.atleast_1d(np.asarray(weights, dtype=float)).reshape(-1)
        except (TypeError, ValueError):
            raise AggregateError(
                f"weights must be numbers, one per p-value; got {weights!r}"
            ) from None
        custom = True
        if w.size != n:
            raise AggregateError(
                f"weights must have one value per p-value ({n}); got {w.size}"
            )
        badw = np.flatnonzero(~(np.isfinite(w) & (w >= 0.0)))
        if badw.size:
            raise AggregateError(
                f"weights must be finite and non-negative; got {w[badw[0]]!r} at position "
                f"{int(badw[0])}"
            )
    w_sum = float(np.sum(w))
    if w_sum > 1.0 + W_SUM_TOLERANCE:
        raise AggregateError(
            f"weights must sum to at most 1 (they are shares of all L tests); they sum to {w_sum!r}"
        )
    if w_sum <= 0.0:
        raise AggregateError("weights are all zero: at least one p-value needs a positive weight")
    used = w > 0
    with np.errstate(divide="ignore"):
        inv = np.where(used, w / np.where(used, p, 1.0), 0.0)
    s = float(np.sum(inv))  # Σ w_i / p_i  (= w / HMP); inf when a weighted p-value is 0
    hmp = w_sum / s if s > 0 else math.inf
    loc = math.log(L) + LANDAU_OFFSET
    sf = float(stats.landau.sf(s, loc=loc, scale=math.pi / 2.0)) if math.isfinite(s) else 0.0
    signature = make_signature("aggregate", {
        "test": "hmp",
        "weights": "custom" if custom else "equal",
    })
    w = w.copy()
    w.setflags(write=False)
    return HarmonicMeanP(
        pvalue=min(1.0, w_sum * sf),
        pvalue_adjusted=sf,
        hmp=float(hmp),
        L=L,
        weights=w,
        n=n,
        signature=signature,
    )
