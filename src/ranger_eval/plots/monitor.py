"""The confidence sequence of a monitored comparison (:class:`~ranger_eval.budget.monitor.
MonitorResult`): it draws the result, never computes.

x: units seen (items or clusters, in the order used); y: the mean difference treatment −
control. The running mean is a dark line, the confidence sequence a shaded band, zero a thin
line and ±margin dashed lines; a vertical line marks the unit at which the decision was reached
(n_used) and the title states the decision. The footer is the result's signature.
"""
from __future__ import annotations

from typing import Any

import matplotlib as mpl
import numpy as np
from matplotlib.figure import Figure

from ..errors import PlotError
from ._style import FIGURE_RC, INK, add_signature

__all__ = ["monitor_plot"]

_BAND = "#9bb4f0"
_LINE = "#2f56e0"
_DECIDED = "#c0392b"


def monitor_plot(result: Any, *, title: str | None = None, width: float = 6.4,
                 height: float = 3.6) -> Figure:
    """The sequence of ``result`` (a :class:`~ranger_eval.budget.monitor.MonitorResult`;
    module docstring)."""
    if not hasattr(result, "sequence") or not hasattr(result, "decision"):
        raise PlotError(f"monitor_plot draws a MonitorResult; got {type(result).__name__}")
    cs = result.sequence
    if cs.n == 0:
        raise PlotError("monitor_plot: the stream has no units yet")
    t = np.arange(1, cs.n + 1)
    with mpl.rc_context(FIGURE_RC):
        fig = Figure(figsize=(width, height))
        ax = fig.add_subplot()
        ax.fill_between(t, cs.lower, cs.upper, color=_BAND, alpha=0.5, lw=0,
                        label=f"{result.level:.0%} confidence sequence")
        ax.plot(t, cs.mean, color=_LINE, lw=1.2, label="mean difference")
        ax.axhline(0, color=INK, lw=0.6)
        if result.margin > 0:
            for m in (-result.margin, result.margin):
                ax.axhline(m, color=INK, lw=0.6, ls="--")
        if result.stopped:
            ax.axvline(result.n_used, color=_DECIDED, lw=1.0,
                       label=f"decision at {result.n_used}")
        lo = float(np.min(cs.lower[min(cs.n - 1, 9):])) if cs.n > 10 else float(cs.lower.min())
        hi = float(np.max(cs.upper[min(cs.n - 1, 9):])) if cs.n > 10 else float(cs.upper.max())
        pad = 0.05 * (hi - lo or 1.0)
        ax.set_ylim(min(lo, -result.margin) - pad, max(hi, result.margin) + pad)
        ax.set_xlim(1, cs.n)
        ax.set_xlabel(f"{result.unit}s seen")
        ax.set_ylabel(f"{result.treatment} − {result.control}")
        ax.set_title(title or f"{result.dataset} × {result.metric}: {result.decision}"
                     + (f" after {result.n_used} {result.unit}s" if result.stopped else ""))
        ax.legend(loc="upper right", frameon=False, fontsize="small")
        add_signature(fig, result.signature)
    return fig
