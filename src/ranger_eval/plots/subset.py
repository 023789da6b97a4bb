"""A whole-benchmark estimate from a subset (:class:`~ranger_eval.budget.subset.SubsetEstimate`):
it draws the result, never computes a statistic of its own.

Left panel: the cross-fitted estimate with its interval beside the plain subset mean with its
Wilson interval (one row each, the value printed at the right) and, when the caller knows it,
the full-benchmark mean as a vertical dashed line. Right panel: the predictor checked on the
items the system ran — the items sorted by their (fold-averaged) prediction and cut into at
most ten groups of near-equal size; each group's mean prediction (x) against the share the
system got right (y), with the group's Wilson interval (Wilson 1927, at the estimate's level),
and the diagonal where a calibrated predictor lies. The footer is the result's signature.
"""
from __future__ import annotations

from typing import Any

import matplotlib as mpl
import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from ..errors import PlotError
from ..stats.bounded import wilson
from ._style import FIGURE_RC, INK, NULL_LINE, add_signature

__all__ = ["subset_plot"]

_OURS = "#2f56e0"
_PLAIN = "#7f7f7f"
_TRUTH = "#c0392b"


def _observed(result: Any, responses: Any) -> pd.Series:
    """The new system's results as item → value (dict, Series or long item/value table)."""
    if isinstance(responses, pd.DataFrame) and {"item", "value"} <= set(responses):
        series = pd.Series(responses["value"].to_numpy(dtype=float),
                           index=responses["item"].to_numpy())
    elif isinstance(responses, pd.DataFrame) and len(responses) == 1:
        series = responses.iloc[0].astype(float)
    else:
        series = pd.Series(responses, dtype=float)
    missing = [i for i in series.index if i not in result.predictions.index]
    if missing:
        raise PlotError(f"subset_plot: {len(missing)} response item(s) have no prediction "
                        f"(e.g. {missing[0]!r}); give the responses the estimate was made from")
    return series


def subset_plot(result: Any, responses: Any = None, *, full_mean: float | None = None,
                title: str | None = None, width: float = 7.6, height: float = 3.4) -> Figure:
    """The figure of ``result`` (a :class:`~ranger_eval.budget.subset.SubsetEstimate`; module
    docstring). ``responses``: the new system's results the estimate was made from (item →
    value; without them the right panel is left out); ``full_mean``: the system's mean over the
    whole benchmark when known (a dashed line)."""
    if not hasattr(result, "predictions") or not hasattr(result, "subset_mean"):
        raise PlotError(f"subset_plot draws a SubsetEstimate; got {type(result).__name__}")
    with mpl.rc_context(FIGURE_RC):
        fig = Figure(figsize=(width, height), layout="constrained")
        if responses is not None:
            left, right = fig.subplots(1, 2, width_ratios=(1.25, 1.0))
        else:
            left, right = fig.subplots(1, 1), None
        rows = [("subset mean (Wilson)", result.subset_mean, result.subset_low,
                 result.subset_high, _PLAIN),
                ("estimate", result.estimate, result.low, result.high, _OURS)]
        for y, (_, value, low, high, colour) in enumerate(rows):
            left.plot([low, high], [y, y], color=colour, lw=2.2, solid_capstyle="butt")
            left.plot([value], [y], "o", color=colour, ms=6)
            left.annotate(f"{value:.3f} [{low:.3f}, {high:.3f}]", (high, y),
                          xytext=(0, 7), textcoords="offset points", ha="right",
                          fontsize="small", color=INK)
        span = [r[2] for r in rows] + [r[3] for r in rows]
        if full_mean is not None:
            left.axvline(full_mean, color=_TRUTH, lw=1.0, ls="--",
                         label=f"full benchmark {full_mean:.3f}")
            span.append(full_mean)
            left.legend(loc="upper center", frameon=True, framealpha=1.0, edgecolor="white",
                        fontsize="small")
        lo, hi = min(span), max(span)
        pad = 0.08 * (hi - lo or 0.1)
        left.set_xlim(max(0.0, lo - pad), min(1.0, hi + pad))
        left.set_ylim(-0.6, 2.0)
        left.set_yticks([0, 1], [r[0] for r in rows])
        left.set_xlabel(f"mean over all {result.n_population:,} items "
                        f"({100 * result.level:g}% interval)")
        worth = (f"worth {result.effective_n:,.0f} random items" if result.design_based
                 else "no design-based guarantee")
        left.set_title(title or f"{result.n} of {result.n_population:,} items: {worth}",
                       fontsize="medium")
        if right is not None:
            seen = _observed(result, responses)
            pred = result.predictions.reindex(seen.index).to_numpy(dtype=float)
            obs = seen.to_numpy(dtype=float)
            order = np.argsort(pred, kind="stable")
            groups = np.array_split(order, min(10, max(1, obs.size // 10)))
            px = np.array([pred[g].mean() for g in groups])
            py = np.array([obs[g].mean() for g in groups])
            count = np.array([float(g.size) for g in groups])
            w_low, w_high = wilson(py * count, count, result.level)
            right.plot([0, 1], [0, 1], color=NULL_LINE, lw=0.7, ls=":")
            right.errorbar(px, py, yerr=np.maximum([py - w_low, w_high - py], 0.0), fmt="o", color=_OURS,
                           ms=4, lw=1.0, capsize=2)
            right.set_xlim(-0.03, 1.03)
            right.set_ylim(-0.03, 1.03)
            right.set_aspect("equal")
            right.set_xlabel(f"predicted ({result.predictor}, cross-fitted)")
            right.set_ylabel("observed share right")
            right.set_title(f"predictor on the {obs.size} items run",
                            fontsize="medium")
        add_signature(fig, result.signature)
    return fig
