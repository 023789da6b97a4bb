"""Boxplots of one dataset × metric: per-item values, bootstrap means and bootstrap ranks.

Three panels share the system axis (systems sorted by mean, best at the top):

1. the per-item values of each system (seeds averaged), with the mean as a diamond; when every
   value is 0 or 1 (accuracy, exact match, pass@1 per item) a boxplot of 0s and 1s says nothing,
   so the panel shows each system's proportion of 1s with its Wilson score interval instead;
2. the bootstrap distribution of each system's mean score;
3. the bootstrap distribution of each system's rank (1 = best) with the simultaneous
   ``level`` rank interval drawn as a thick bar.

Panels 2 and 3 come from one *paired joint* bootstrap: items — or whole clusters, when the scores
have a cluster column (the design's resampling unit, named in the footnote and the signature's
``resample:``) — are resampled jointly for all systems
(:func:`ranger_eval.comparison.rank_intervals`), and the rank intervals are the simultaneous max-T
intervals of Mogstad, Romano, Shaikh & Wilhelm (2024) documented there.

The proportions' intervals are Wilson (1927) score intervals,
:func:`ranger_eval.stats.tests.wilson_interval` (the formula and its sources are there).
"""
from __future__ import annotations

from typing import Any

import matplotlib as mpl
import numpy as np
from matplotlib.figure import Figure
from matplotlib.lines import Line2D

from ..comparison import RankIntervals
from ..errors import PlotError
from ..formatting import format_level
from ..stats.tests import wilson_interval
from ._page import PAGE_H, PAGE_W
from ._style import FIGURE_RC, FONT_SIZE, INK, add_signature, font, text_width_in
from ._text import wrap_parts

__all__ = ["comparison_boxplots", "is_binary", "rank_ticks", "wilson_interval"]

BOX = "#9fb4cc"
MEAN = "#c8102e"
INTERVAL = "#1f3a5f"


def is_binary(values: list[np.ndarray]) -> bool:
    """True when every finite value of every system is 0 or 1 (and there is at least one)."""
    arrays = [np.asarray(v, dtype=float).ravel() for v in values]
    finite = [a[np.isfinite(a)] for a in arrays]
    return bool(sum(a.size for a in finite)) and all(np.all((a == 0) | (a == 1)) for a in finite)


def _proportions(ax: Any, values: list[np.ndarray], positions: np.ndarray, level: float,
                 intervals: tuple[np.ndarray, np.ndarray] | None = None) -> None:
    """Proportion of 1s per system (diamond) with its interval (bar with caps): ``intervals``
    (the result's own, as the leaderboard gives them: Korn–Graubard with clusters), else the
    Wilson interval of the independent items."""
    arrays = [np.asarray(v, dtype=float).ravel() for v in values]
    arrays = [a[np.isfinite(a)] for a in arrays]
    n = np.array([a.size for a in arrays], dtype=float)
    x = np.array([a.sum() for a in arrays], dtype=float)
    if intervals is not None and np.isfinite(intervals[0]).all() \
            and np.isfinite(intervals[1]).all():
        lo, hi = intervals
    else:
        lo, hi = wilson_interval(x, n, level)
    for i in range(len(arrays)):
        ax.plot([lo[i], hi[i]], [positions[i]] * 2, color=INTERVAL, linewidth=1.6,
                solid_capstyle="butt", zorder=3, gid="proportion-interval")
        ax.plot([lo[i], hi[i]], [positions[i]] * 2, linestyle="none", marker="|", markersize=7,
                markeredgewidth=1.2, color=INTERVAL, zorder=3)
    # the proportion of 1s is the mean: the same red diamond as the mean elsewhere
    ax.plot(x / n, positions, linestyle="none", marker="D", markersize=4.5, color=MEAN, zorder=4,
            gid="proportion")
    span = float(hi.max() - lo.min())
    pad = max(0.05 * span, 0.01)
    ax.set_xlim(max(0.0, float(lo.min()) - pad), min(1.0, float(hi.max()) + pad))


def rank_ticks(k: int, width: float, size: float) -> list[int]:
    """Ranks labelled on an axis of ranks 1..k that is ``width`` inches wide: every rank when
    their labels fit side by side, else 1 and the multiples of the first step of 2, 5, 10, 20
    or 50 whose labels keep at least their own width apart (17 ranks on 2.35 in: 1, 5, 10, 15)."""
    if k < 2:
        return [1]
    unit = width / k  # inches per rank
    need = text_width_in(str(k), size) + 0.08
    for step in (1, 2, 5, 10, 20, 50, 100):
        if step == 1 and unit >= need:
            return list(range(1, k + 1))
        if step > 1 and (step - 1) * unit >= need and step * unit >= need:
            return [1, *range(step, k + 1, step)]
    return [1, k]


def _boxes(ax: Any, data: list[np.ndarray], positions: np.ndarray, width: float = 0.55) -> None:
    ax.boxplot(
        data, positions=positions, orientation="horizontal", widths=width, patch_artist=True,
        showfliers=True, manage_ticks=False,
        boxprops={"facecolor": BOX, "edgecolor": INK, "linewidth": 0.8},
        medianprops={"color": INK, "linewidth": 1.2},
        whiskerprops={"color": INK, "linewidth": 0.8},
        capprops={"color": INK, "linewidth": 0.8},
        flierprops={"marker": "o", "markersize": 2.5, "markerfacecolor": "none",
                    "markeredgecolor": "#7f7f7f", "alpha": 0.6, "markeredgewidth": 0.5},
    )


def comparison_boxplots(intervals: RankIntervals, *, title: str | None = None) -> Figure:
    """Values, bootstrap means and bootstrap ranks of the systems of one dataset × metric,
    drawn from a :class:`~ranger_eval.comparison.RankIntervals` (which holds the per-item values,
    the joint bootstrap and the simultaneous rank intervals; nothing is recomputed here).

    Returns
    -------
    matplotlib.figure.Figure
        Three panels: per-item values, bootstrap means, bootstrap ranks with their simultaneous
        intervals, best system at the top; rcParams are only changed inside ``rc_context``.

    Parameters
    ----------
    intervals : RankIntervals
        The result of :func:`ranger_eval.rank_intervals` for one dataset × metric.
    title : str, optional
        Drawn above the panels.

    Raises
    ------
    PlotError
        ``intervals`` is not a RankIntervals.

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
    >>> intervals = rg.rank_intervals(scores, n_resamples=200)
    >>> fig = plots.comparison_boxplots(intervals)
    >>> intervals.systems, len(fig.axes)
    (('b', 'a', 'c'), 3)
    >>> import matplotlib.pyplot as plt
    >>> plt.close(fig)
    """
    if not isinstance(intervals, RankIntervals):
        raise PlotError(
            "comparison_boxplots draws a RankIntervals result: pass "
            "ranger_eval.comparison.rank_intervals(comparison, dataset, metric); "
            f"got {type(intervals).__name__}"
        )
    ri = intervals
    level = ri.level
    k = len(ri.systems)
    pos = np.arange(k)[::-1].astype(float)  # best at the top
    values = [ri.values[i] for i in range(k)]
    name_w = max(text_width_in(s) for s in ri.systems) + 0.3
    gap = 0.3
    # one page (plots._page): the panels narrow to fit the names, the rows thin to fit the
    # systems (0.42 in each up to 22 systems, 0.19 in at 50)
    panel_w = max(1.6, min(2.35, (PAGE_W - name_w - 2 * gap - 0.25) / 3))
    fig_w = name_w + 3 * panel_w + 2 * gap + 0.25
    how = "paired joint bootstrap" if ri.paired else "independent bootstrap per system"
    binary = is_binary(values)
    given = (None if ri.mean_ci_low is None or ri.mean_ci_high is None
             else (ri.mean_ci_low, ri.mean_ci_high))
    method = ("Korn–Graubard" if "korn-graubard" in ri.mean_interval and given is not None
              else "Wilson")
    note = ((f"proportions: {method} intervals, as the leaderboard's; " if binary else "")
            + f"{how}, {ri.caption}, B = {ri.n_resamples}, seed = {ri.seed}; "
            "rank intervals: max-T simultaneous pairwise intervals (Mogstad et al. 2024)")
    note_lines = wrap_parts(note.split(" "), " ", fig_w - 0.3,
                            lambda t: text_width_in(t, FONT_SIZE - 1.5))
    top, bottom = 0.75, 0.8 + 0.14 * (len(note_lines) - 1)
    row_h = min(0.42, (PAGE_H - top - bottom) / max(k, 2))
    fig_h = top + max(k, 2) * row_h + bottom
    pct = format_level(level)
    with mpl.rc_context(FIGURE_RC):
        fig = Figure(figsize=(fig_w, fig_h), dpi=100, facecolor="white")
        axes = []
        for j in range(3):
            x0 = name_w + j * (panel_w + gap)
            axes.append(fig.add_axes((x0 / fig_w, bottom / fig_h, panel_w / fig_w,
                                      (fig_h - top - bottom) / fig_h)))
        ax_v, ax_m, ax_r = axes
        if binary:
            _proportions(ax_v, values, pos, level, given)
        else:
            _boxes(ax_v, values, pos)
            ax_v.plot(ri.means, pos, linestyle="none", marker="D", markersize=4.5, color=MEAN,
                      zorder=4)
        _boxes(ax_m, [ri.boot_means[:, i] for i in range(k)], pos)
        ax_m.plot(ri.means, pos, linestyle="none", marker="D", markersize=4.5, color=MEAN, zorder=4)
        _boxes(ax_r, [ri.boot_ranks[:, i] for i in range(k)], pos + 0.12, width=0.34)
        for i in range(k):
            lo, hi = float(ri.rank_low[i]), float(ri.rank_high[i])
            if lo == hi:  # a single rank: keep the bar visible
                lo, hi = lo - 0.1, hi + 0.1
            ax_r.plot([lo, hi], [pos[i] - 0.3] * 2, color=INTERVAL, linewidth=3.0,
                      solid_capstyle="butt", zorder=4)
            ax_r.plot([lo, hi], [pos[i] - 0.3] * 2, linestyle="none", marker="|",
                      markersize=8, markeredgewidth=1.5, color=INTERVAL, zorder=4)
        ax_r.set_xlim(0.5, k + 0.5)
        ax_r.set_xticks(rank_ticks(k, panel_w, FONT_SIZE - 0.5))
        ax_r.invert_xaxis()  # rank 1 (best) on the right, like higher means
        for ax in axes:
            ax.set_ylim(-0.7, k - 0.3)
            ax.set_yticks(pos)
            ax.set_yticklabels([])
            ax.tick_params(axis="y", length=0)
            ax.grid(axis="x", color="#e6e6e6", linewidth=0.6, zorder=0)
            ax.set_axisbelow(True)
            for s in ("top", "right"):
                ax.spines[s].set_visible(False)
            for t in ax.get_xticklabels():
                t.set_fontproperties(font(FONT_SIZE - 0.5))
        ax_v.set_yticklabels(list(ri.systems), fontproperties=font())
        ax_v.set_xlabel(f"proportion {ri.metric} = 1" if binary else f"per-item {ri.metric}",
                        fontproperties=font())
        ax_m.set_xlabel(f"bootstrap mean {ri.metric}", fontproperties=font())
        ax_r.set_xlabel("bootstrap rank (1 = best)", fontproperties=font())
        titles = (f"proportions, {pct} CI" if binary else "values", "bootstrap means",
                  f"ranks, simultaneous {pct} intervals")
        for ax, title_text in zip(axes, titles, strict=True):
            ax.set_title(title_text, fontproperties=font(bold=True), loc="left")
        head = title if title is not None else f"{ri.dataset} · {ri.metric}"
        fig.text(0.12 / fig_w, 1 - 0.12 / fig_h, head, fontproperties=font(FONT_SIZE + 2, bold=True),
                 va="top", ha="left")
        fig.text(0.12 / fig_w, 0.1 / fig_h, "\n".join(note_lines),
                 fontproperties=font(FONT_SIZE - 1.5),
                 color="#444444", va="bottom", ha="left")
        fig.legend(
            [Line2D([], [], linestyle="none", marker="D", color=MEAN, markersize=4.5),
             Line2D([], [], color=INTERVAL, linewidth=3.0)],
            ["mean", f"simultaneous {pct} rank interval"], loc="upper right", frameon=False,
            prop=font(FONT_SIZE - 1), ncol=2, bbox_to_anchor=(1 - 0.1 / fig_w, 1 - 0.02 / fig_h),
        )
    add_signature(fig, ri.signature)
    return fig
