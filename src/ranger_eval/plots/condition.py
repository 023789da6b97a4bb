"""Boxplots of condition-and-compare (IBM §10.2): pooled scores per compare value, per partition.

One panel per partition of the ``condition`` hyper-parameters; in each, one box per pooled group
(a combination of ``compare`` values), ordered as the partition's first-vs-rest ranking (best at
the top), coloured by the ``color`` hyper-parameters, the mean as a diamond. A group that the
first (best) group significantly beats is marked with ``*`` after its name. Nothing is computed
here: the values, order and significance come from the :class:`ConditionComparison`.

The figure is typed against :class:`ConditionResult`, the protocol of the members it reads,
rather than against :class:`~ranger_eval.aggregate.ConditionComparison` itself: the result's
``.plot()`` imports this module, so an import back (even for annotations only) would close a
circle between ``aggregate`` and ``plots``.
"""
from __future__ import annotations

import math
from collections.abc import Mapping
from typing import TYPE_CHECKING, Protocol

import matplotlib as mpl
import numpy as np
from matplotlib.figure import Figure
from matplotlib.patches import Patch

from ..errors import PlotError
from ._page import COMPACT_ROW, MIN_FONT, PAGE_H
from ._style import FIGURE_RC, FONT_SIZE, INK, add_signature, font, text_width_in

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

    from ..signature import Signature

__all__ = ["ConditionResult", "PartitionRanking", "PooledScores", "condition_boxplots"]

PALETTE = ("#4c72b0", "#dd8452", "#55a868", "#c44e52", "#8172b3", "#937860", "#da8bc3",
           "#8c8c8c", "#ccb974", "#64b5cd")


class PooledScores(Protocol):
    """One partition's pooled scores (a :class:`~ranger_eval.Scores`): the tidy table."""

    @property
    def frame(self) -> pd.DataFrame: ...


class PartitionRanking(Protocol):
    """One partition's first-vs-rest ranking (a :class:`~ranger_eval.aggregate.Ranking`):
    the groups best first, the pairwise tests (columns ``b`` and ``significant`` are read),
    the metrics combined and the signature printed below the figure."""

    @property
    def order(self) -> tuple[str, ...]: ...

    @property
    def pairwise(self) -> pd.DataFrame: ...

    @property
    def metrics(self) -> tuple[str, ...]: ...

    @property
    def signature(self) -> Signature: ...


class ConditionResult(Protocol):
    """What :func:`condition_boxplots` reads from a condition-and-compare result (a
    :class:`~ranger_eval.aggregate.ConditionComparison`): the ``condition`` columns and, per
    partition (a tuple of condition values), the pooled scores and their ranking, and the
    ``color`` group of each pooled group."""

    @property
    def condition(self) -> tuple[str, ...]: ...

    @property
    def partitions(self) -> Mapping[tuple[str, ...], PooledScores]: ...

    @property
    def rankings(self) -> Mapping[tuple[str, ...], PartitionRanking]: ...

    @property
    def colors(self) -> Mapping[str, str]: ...


def condition_boxplots(
    result: ConditionResult, *, partition: tuple[str, ...] | None = None,
    title: str | None = None,
) -> Figure:
    """Draw the pooled scores of ``partition`` (default: every partition, one panel each).

    Parameters
    ----------
    result : ConditionComparison
        The result of :func:`ranger_eval.aggregate.condition_and_compare` (any object with the
        members of :class:`ConditionResult`).
    partition : tuple of str, optional
        One partition (a key of ``result.rankings``); default every partition, one panel each.
    title : str, optional
        Drawn above the panels.

    Returns
    -------
    matplotlib.figure.Figure
        Boxplots of the pooled per-item scores of each compared group, coloured by ``color``.

    Raises
    ------
    PlotError
        An unknown ``partition``.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import pandas as pd
    >>> import ranger_eval as rg
    >>> from ranger_eval import plots
    >>> scores = rg.Scores(pd.DataFrame({
    ...     "dataset": "qa", "system": ["a"] * 6 + ["b"] * 6 + ["c"] * 6, "item": list(range(6)) * 3,
    ...     "value": [0.61, 0.72, 0.55, 0.80, 0.67, 0.70, 0.74, 0.81, 0.69, 0.88, 0.79, 0.83,
    ...               0.60, 0.70, 0.58, 0.79, 0.66, 0.69]}))
    >>> from ranger_eval.aggregate import condition_and_compare
    >>> params = pd.DataFrame({"system": ["a", "b", "c"], "size": ["small", "large", "large"]})
    >>> fig = plots.condition_boxplots(condition_and_compare(scores, params, compare=["size"]))
    >>> len(fig.axes)
    1
    >>> import matplotlib.pyplot as plt
    >>> plt.close(fig)
    """
    keys = list(result.rankings)
    if partition is not None:
        if partition not in result.rankings:
            raise PlotError(f"partition {partition!r} not found; partitions: {keys}")
        keys = [partition]
    color_groups = list(dict.fromkeys(result.colors.values()))
    colour_of = {g: PALETTE[i % len(PALETTE)] for i, g in enumerate(color_groups)}
    names = [s for k in keys for s in result.rankings[k].order]
    label_w = max(text_width_in(s + " *") for s in names) + 0.3
    panel_w = 3.6
    # rows of 0.38 in, thinner (down to one 7-pt line, labels in 7 pt below 0.16 in) so that
    # the panels fit one page
    n_rows = sum(max(len(result.rankings[k].order), 2) for k in keys)
    # legend rows beyond the first (4 colour groups a row) below the panels
    legend_h = 0.2 * (math.ceil(len(color_groups) / 4) - 1) if len(color_groups) > 1 else 0.0
    room = PAGE_H - 0.7 * len(keys) - 0.55 - legend_h - (0.35 if title else 0.0)
    row_h = max(COMPACT_ROW, min(0.38, room / n_rows))
    size = FONT_SIZE if row_h >= 0.16 else MIN_FONT
    heights = [max(len(result.rankings[k].order), 2) * row_h + 0.7 for k in keys]
    fig_h = sum(heights) + 0.55 + legend_h + (0.35 if title else 0.0)
    fig_w = label_w + panel_w + 0.4
    with mpl.rc_context(FIGURE_RC):
        fig = Figure(figsize=(fig_w, fig_h), dpi=100, facecolor="white")
        top = fig_h - (0.45 if title else 0.15)
        for k, h in zip(keys, heights, strict=True):
            ranking = result.rankings[k]
            order = list(ranking.order)
            frame = result.partitions[k].frame
            data = [frame.loc[frame["system"] == s, "value"].to_numpy(dtype=float) for s in order]
            sig = {str(r.b) for r in ranking.pairwise.itertuples(index=False) if bool(r.significant)}
            ax = fig.add_axes((label_w / fig_w, (top - h + 0.45) / fig_h, panel_w / fig_w,
                               (h - 0.7) / fig_h))
            pos = np.arange(len(order))[::-1].astype(float)
            parts = ax.boxplot(data, positions=pos, orientation="horizontal", widths=0.55,
                               patch_artist=True, manage_ticks=False, showfliers=True,
                               medianprops={"color": INK, "linewidth": 1.1},
                               flierprops={"marker": "o", "markersize": 2.0, "alpha": 0.5})
            for box, s in zip(parts["boxes"], order, strict=True):
                box.set_facecolor(colour_of[result.colors[s]])
                box.set_alpha(0.85)
            ax.plot([d.mean() for d in data], pos, linestyle="none", marker="D", markersize=4,
                    color=INK, zorder=4)
            ax.set_yticks(pos)
            ax.set_yticklabels([s + (" *" if s in sig else "") for s in order],
                               fontproperties=font(size))
            ax.set_ylim(-0.7, len(order) - 0.3)
            for side in ("top", "right"):
                ax.spines[side].set_visible(False)
            ax.grid(axis="x", color="#e6e6e6", linewidth=0.6)
            ax.set_axisbelow(True)
            head = ", ".join(f"{c}={v}" for c, v in zip(result.condition, k, strict=True)) or "all systems"
            ax.set_title(head, fontproperties=font(bold=True), loc="left")
            metric = "aggregate" if len(ranking.metrics) > 1 else ranking.metrics[0]
            ax.set_xlabel(metric, fontproperties=font(FONT_SIZE - 0.5))
            top -= h
        if title:
            fig.text(0.12 / fig_w, 1 - 0.1 / fig_h, title, fontproperties=font(FONT_SIZE + 2, bold=True),
                     va="top", ha="left")
        handles = [Patch(facecolor=colour_of[g], label=g) for g in color_groups]
        if len(handles) > 1:
            fig.legend(handles=handles, loc="lower left", ncol=min(len(handles), 4), frameon=False,
                       prop=font(FONT_SIZE - 1), bbox_to_anchor=(0.1 / fig_w, 0.0))
        fig.text(1 - 0.1 / fig_w, 0.06 / fig_h, "* significantly below the first (first-vs-rest)",
                 fontproperties=font(FONT_SIZE - 1.5), ha="right", va="bottom", color="#444444")
    add_signature(fig, next(iter(result.rankings.values())).signature)
    return fig
