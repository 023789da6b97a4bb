"""Item characteristic curves and item information of an item response fit
(:class:`~ranger_eval.budget.irt.IRTResult`): it draws the result, never computes beyond
evaluating the fitted curves.

Left panel: P(correct | θ) = σ(a_i(θ − b_i)) of the items shown; right panel: their information
a_i² P(1 − P) and, on a second axis, the test information of every fitted item (its reciprocal
square root is the SE of an ability). With many items a readable subset is drawn: every item
flagged ``misfit`` (dashed, up to half of ``max_items``), then items spread over the difficulty
range (its quantiles), or the ``items`` given. Short ticks on the θ axis of the curves mark the systems'
abilities. The legend (item, b, and a for the 2PL, "misfit" when flagged) sits below the panels
so it never covers a curve; the footer is the result's signature.
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import matplotlib as mpl
import numpy as np
from matplotlib.figure import Figure
from scipy import special

from ..errors import PlotError
from ._style import FIGURE_RC, INK, MINUS, add_signature

__all__ = ["choose_items", "irt_plot"]

_TEST = "#595959"


def choose_items(result: Any, max_items: int = 8) -> list[Any]:
    """The items to draw: the misfits with the largest mean-square distance from 1 (at most half
    of ``max_items``), then items at evenly spaced quantiles of the difficulties, ordered by
    difficulty."""
    if max_items < 1:
        raise PlotError(f"irt_plot: max_items must be at least 1; got {max_items}")
    b = result.difficulty.sort_values()
    if len(b) <= max_items:
        return list(b.index)
    misfit = result.misfit[result.misfit]
    badness = (np.maximum(np.abs(result.infit - 1), np.abs(result.outfit - 1)))[misfit.index]
    chosen = list(badness.sort_values(ascending=False).index[: max_items // 2])
    rest = b.drop(chosen)
    need = max_items - len(chosen)
    pos = np.unique(np.round(np.linspace(0, len(rest) - 1, need)).astype(int))
    chosen += list(rest.index[pos])
    return [i for i in b.index if i in set(chosen)]


def irt_plot(result: Any, *, items: Sequence[Any] | None = None, max_items: int = 8,
             theta_range: tuple[float, float] | None = None, title: str | None = None,
             width: float = 7.6, height: float = 3.0) -> Figure:
    """Item characteristic curves and item information of ``result`` (an
    :class:`~ranger_eval.budget.irt.IRTResult`; module docstring)."""
    if not hasattr(result, "difficulty") or not hasattr(result, "discrimination"):
        raise PlotError(f"irt_plot draws an IRTResult; got {type(result).__name__}")
    if items is None:
        shown = choose_items(result, max_items)
    else:
        shown = list(items)
        unknown = [i for i in shown if i not in result.difficulty.index]
        if unknown:
            raise PlotError(f"irt_plot: item(s) {unknown[:5]} are not fitted items "
                            f"(excluded items have no curve: {list(result.excluded_items)[:5]})")
        if not shown:
            raise PlotError("irt_plot: items is empty")
    b_all = result.difficulty.to_numpy()
    a_all = result.discrimination.to_numpy()
    theta_sys = result.ability.to_numpy()
    b = result.difficulty[shown].to_numpy()
    a = result.discrimination[shown].to_numpy()
    if theta_range is None:
        # the systems' abilities ± 1.5, widened to the items shown (at most 3 further)
        lo, hi = float(np.min(theta_sys)) - 1.5, float(np.max(theta_sys)) + 1.5
        theta_range = (max(min(lo, float(np.min(b)) - 1.0), lo - 3.0),
                       min(max(hi, float(np.max(b)) + 1.0), hi + 3.0))
    t = np.linspace(theta_range[0], theta_range[1], 301)
    p = special.expit(a * (t[:, None] - b))
    info = a**2 * p * (1 - p)
    p_all = special.expit(a_all * (t[:, None] - b_all))
    test_info = (a_all**2 * p_all * (1 - p_all)).sum(1)
    colors = mpl.colormaps["viridis"](np.linspace(0.0, 0.9, len(shown)))
    twopl = result.model == "2pl"
    with mpl.rc_context(FIGURE_RC):
        # ``height`` is the panels'; the legend's rows (below the axis labels) are added to it
        ncol = min(3, len(shown) + 1)
        rows = -(-(len(shown) + 1) // ncol)
        below = 0.62 + 0.2 * rows + 0.2                  # axis labels, legend rows, footer
        above = 0.55
        total = height + below + above
        fig = Figure(figsize=(width, total))
        fig.subplots_adjust(left=0.08, right=0.91, top=1 - above / total, bottom=below / total,
                            wspace=0.45)
        ax, ax_info = fig.add_subplot(1, 2, 1), fig.add_subplot(1, 2, 2)
        handles = []
        for j, item in enumerate(shown):
            bad = bool(result.misfit[item])
            style = "--" if bad else "-"
            label = f"{item}: b = {b[j]:.2f}".replace("-", MINUS)
            if twopl:
                label += f", a = {a[j]:.2f}"
            if bad:
                label += " (misfit)"
            (line,) = ax.plot(t, p[:, j], color=colors[j], lw=1.3, ls=style, label=label)
            ax_info.plot(t, info[:, j], color=colors[j], lw=1.3, ls=style)
            handles.append(line)
        ax.vlines(theta_sys, 0, 0.03, color=INK, lw=0.6)
        ax.set_ylim(0, 1)
        ax.set_xlim(*theta_range)
        ax.set_xlabel("ability θ (ticks: the systems)")
        ax.set_ylabel("P(correct)")
        ax.set_title("item characteristic curves", fontsize="medium")
        ax_info.set_xlim(*theta_range)
        ax_info.set_ylim(0, None)
        ax_info.set_xlabel("ability θ")
        ax_info.set_ylabel("item information")
        ax_info.set_title("item information", fontsize="medium")
        ax_test = ax_info.twinx()
        (test_line,) = ax_test.plot(t, test_info, color=_TEST, lw=1.0, ls=":",
                                    label=f"test information ({len(b_all)} items)")
        ax_test.set_ylim(0, None)
        ax_test.set_ylabel("test information", color=_TEST)
        ax_test.tick_params(axis="y", colors=_TEST)
        handles.append(test_line)
        n_items = len(b_all)
        model = "2PL" if twopl else "Rasch"
        fig.suptitle(title or f"{model}: {len(shown)} of {n_items} items, "
                     f"{len(theta_sys)} systems", fontsize="medium")
        fig.legend(handles=handles, loc="upper center", ncol=ncol, frameon=False,
                   fontsize="small", bbox_to_anchor=(0.5, (below - 0.55) / total))
        add_signature(fig, result.signature)
    return fig
