"""Figures of a Bradley–Terry leaderboard (:class:`~ranger_eval.verdicts.bradley_terry.Ratings`):
they draw the result, never compute a statistic.

- :func:`ratings_plot`: one row per model, best first: the rating as a dot and its bootstrap
  percentile interval as a line (the axis label says what they are relative to: the mean of
  all models or the anchor), the rank interval (from the bootstrap rounds' ranks) written at
  the right.
  With style control (``Ratings.uncontrolled``) every model has two rows of marks: the
  style-controlled rating (filled dot, dark line) above the rating without style control (open
  square, light line), both with their intervals, and two rank columns (``rank``: style
  controlled, ``no style``: without).
- :func:`coefficients_plot` (style control only): one row per covariate, its effect in Elo
  points per standard deviation with its bootstrap interval, a line at 0.
- :func:`win_probability_heatmap`: the fitted P(row beats column), blue above ½, red below,
  the value in the cell when the cells are large enough to read.

Both grow with the number of models and stay within one page up to 50 models (fonts shrink
from 9 pt towards 7 pt as rows are added); the heatmap's canvas is its cells, labels and colour
bar, nothing more.
"""
from __future__ import annotations

from typing import Any

import matplotlib as mpl
import numpy as np
from matplotlib.figure import Figure

from ..errors import PlotError
from ._page import MIN_FONT, PAGE_H, PAGE_W
from ._style import FIGURE_RC, INK, add_signature, font
from ._text import hinted_width

__all__ = ["coefficients_plot", "ratings_plot", "win_probability_heatmap"]


def _check(ratings: Any) -> None:
    if not hasattr(ratings, "win_probability") or not hasattr(ratings, "to_frame"):
        raise PlotError(f"ratings: expected the result of ranger_eval.bradley_terry, got "
                        f"{type(ratings).__name__}")


def _size(n: int) -> float:
    """Font size for n rows: 9 pt up to 20 rows, down to :data:`MIN_FONT` (7 pt) at 50."""
    return float(np.clip(9 - (9 - MIN_FONT) * (n - 20) / 30, MIN_FONT, 9))


def ratings_plot(ratings: Any) -> Figure:
    """Ratings with their intervals, best model at the top; with style control the ratings
    without it beside them (module docstring)."""
    _check(ratings)
    board = ratings.to_frame()
    n = len(board)
    size = _size(n)
    styled = "rating_uncontrolled" in board.columns
    # rows of at least 1.6 lines (two marks a row with style control: 2.2 lines), roomier
    # (up to 0.3 in, 0.4 in) when there are few models
    row_h = max(size / 72 * (2.2 if styled else 1.6), min(0.4 if styled else 0.3, 3.0 / n))
    legend_h = 0.3 if styled else 0.0
    height = min(PAGE_H, 1.2 + legend_h + n * row_h)
    width = min(PAGE_W, 6.5 if not styled else 7.0)
    # the names' column as wide as the longest name (at most 40 % of the width)
    label_w = min(0.4 * width, max(hinted_width(str(m), font(size)) for m in board.model) + 0.2)
    # the rank columns at the right: "1–12" or "no style" wide each, and a gap
    rank_w = max(hinted_width("no style", font(size, bold=True)),
                 hinted_width("10–10", font(size))) + 0.12
    n_rank = 2 if styled else 1
    with mpl.rc_context(FIGURE_RC):
        fig = Figure(figsize=(width, height))
        left = label_w / width
        right = 1 - (0.1 + n_rank * rank_w) / width
        # below the axes: tick labels and the axis label (two lines) and a little air
        bottom = (2.6 * size / 72 + 0.25) / height
        ax = fig.add_axes((left, bottom, right - left,
                           1 - bottom - (0.35 + legend_h) / height))
        y = np.arange(n)[::-1].astype(float)
        has_ci = bool(np.all(np.isfinite(board.ci_low)))
        off = 0.17 if styled else 0.0
        ms = max(3.0, size * 0.5)
        if has_ci:
            ax.hlines(y + off, board.ci_low, board.ci_high, color="#1f4e89", lw=1.6)
        ax.plot(board.rating, y + off, "o", color=INK, ms=ms,
                label="with style control" if styled else None)
        if styled:
            if bool(np.all(np.isfinite(board.ci_low_uncontrolled))):
                ax.hlines(y - off, board.ci_low_uncontrolled, board.ci_high_uncontrolled,
                          color="#9cb8d9", lw=1.6)
            ax.plot(board.rating_uncontrolled, y - off, "s", mfc="white", mec="#4a7ab5",
                    mew=1.2, ms=ms * 0.9, label="without style control")
            ax.legend(loc="lower left", bbox_to_anchor=(0.0, 1.0), ncol=2, frameon=False,
                      prop=font(size), borderaxespad=0.2, handletextpad=0.3,
                      columnspacing=1.2)
        ax.set_yticks(y)
        ax.set_yticklabels([str(m) for m in board.model], fontproperties=font(size))
        ax.set_ylim(-0.7, n - 0.3)
        where = ("vs the mean of all models" if ratings.anchor is None
                 else f"vs {ratings.anchor[0]} = {ratings.anchor[1]:g}")
        ax.set_xlabel(f"rating (Elo scale, {where})"
                      + (f"; {ratings.level * 100:g} % bootstrap interval" if has_ci else ""),
                      fontproperties=font(size))
        for label in ax.get_xticklabels():
            label.set_fontproperties(font(size))
        ax.grid(axis="x", color="#dddddd", lw=0.5)
        ax.set_axisbelow(True)
        for side in ("top", "right"):
            ax.spines[side].set_visible(False)
        if has_ci:
            columns = [("rank", board.rank_low, board.rank_high, y)]
            if styled:
                columns.append(("no style", board.rank_low_uncontrolled,
                                board.rank_high_uncontrolled, y))
            for c, (head, lows, highs, ys) in enumerate(columns):
                x_in = 0.08 + c * rank_w    # inches right of the axes
                trans = mpl.transforms.blended_transform_factory(
                    ax.transAxes + mpl.transforms.ScaledTranslation(x_in, 0,
                                                                    fig.dpi_scale_trans),
                    ax.transData)
                for yy, lo, hi in zip(ys, lows, highs, strict=True):
                    if not (np.isfinite(lo) and np.isfinite(hi)):
                        continue
                    text = f"{int(lo)}" if lo == hi else f"{int(lo)}–{int(hi)}"
                    ax.text(1.0, yy, text, transform=trans, va="center",
                            fontproperties=font(size), color="#333333")
                ax.text(1.0, n - 0.3, head, transform=trans, va="bottom",
                        fontproperties=font(size, bold=True), color="#333333")
        add_signature(fig, ratings.signature)
    return fig


def coefficients_plot(ratings: Any) -> Figure:
    """The style covariates' effects (Elo points per standard deviation of the covariate's
    difference) with their bootstrap intervals, a line at 0 (module docstring)."""
    _check(ratings)
    coef = getattr(ratings, "coefficients", None)
    if coef is None or len(coef) == 0:
        raise PlotError("coefficients_plot: the ratings have no covariates (fit them with "
                        "bradley_terry(battles, covariates=[...]))")
    k = len(coef)
    size = 9.0
    factor = ratings.scale / np.log(ratings.base)
    est = coef["elo"].to_numpy(dtype=float)
    lo = coef["ci_low"].to_numpy(dtype=float) * factor
    hi = coef["ci_high"].to_numpy(dtype=float) * factor
    names = [str(c) for c in coef["covariate"]]
    label_w = max(hinted_width(m, font(size)) for m in names) + 0.2
    row_h = 0.32
    height = 1.0 + k * row_h
    width = min(PAGE_W, 5.5)
    with mpl.rc_context(FIGURE_RC):
        fig = Figure(figsize=(width, height))
        left = label_w / width
        bottom = (2.6 * size / 72 + 0.2) / height
        ax = fig.add_axes((left, bottom, 0.95 - left, 1 - bottom - 0.15 / height))
        y = np.arange(k)[::-1].astype(float)
        ax.axvline(0.0, color="#888888", lw=0.8, ls="--")
        if bool(np.all(np.isfinite(lo))):
            ax.hlines(y, lo, hi, color="#4a7ab5", lw=1.6)
        ax.plot(est, y, "o", color=INK, ms=4.5)
        ax.set_yticks(y)
        ax.set_yticklabels(names, fontproperties=font(size))
        ax.set_ylim(-0.6, k - 0.4)
        ax.set_xlabel("Elo points per sd of the covariate's difference"
                      + (f"; {ratings.level * 100:g} % bootstrap interval"
                         if np.all(np.isfinite(lo)) else ""), fontproperties=font(size))
        for label in ax.get_xticklabels():
            label.set_fontproperties(font(size))
        ax.grid(axis="x", color="#dddddd", lw=0.5)
        ax.set_axisbelow(True)
        for side in ("top", "right"):
            ax.spines[side].set_visible(False)
        add_signature(fig, ratings.signature)
    return fig


def win_probability_heatmap(ratings: Any) -> Figure:
    """P(row model beats column model) under the fitted model, models ordered by rating."""
    _check(ratings)
    order = list(ratings.to_frame().model)
    wp = ratings.win_probability.loc[order, order].to_numpy(dtype=float)
    n = len(order)
    size = _size(n)
    # the names, measured (rows at the left, columns rotated above the cells)
    label_w = max(hinted_width(m, font(size)) for m in order) + 0.15
    # the colour bar: a gap, the bar, its tick labels and its rotated label
    bar_w = 0.1 + 0.15 + hinted_width("0.0", font(size)) + 0.1 + 1.3 * size / 72 + 0.1
    # square cells: up to 0.8 in for a few models, 4.5 in for the whole matrix from 6 models
    # on, at least 1.6 lines of text high, and no wider than the page allows
    cell = float(np.clip(4.5 / n, 1.6 * size / 72, 0.8))
    cell = min(cell, (PAGE_W - label_w - bar_w - 0.05) / n, (PAGE_H - label_w - 0.25) / n)
    width = label_w + n * cell + bar_w
    height = label_w + n * cell + 0.2
    with mpl.rc_context(FIGURE_RC):
        fig = Figure(figsize=(width, height))
        left, bottom = label_w / width, 0.1 / height
        ax = fig.add_axes((left, bottom, (n * cell) / width, (n * cell) / height))
        shown = np.ma.masked_invalid(wp)
        cmap = mpl.colormaps["RdBu"].with_extremes(bad="#eeeeee")
        image = ax.imshow(shown, cmap=cmap, vmin=0, vmax=1, aspect="auto")
        ax.set_xticks(range(n))
        ax.set_yticks(range(n))
        ax.set_xticklabels(order, rotation=90, fontproperties=font(size))
        ax.set_yticklabels(order, fontproperties=font(size))
        ax.xaxis.tick_top()
        if cell * 72 >= 3.2 * size:   # room for "0.73" in the cell
            for r in range(n):
                for c in range(n):
                    if np.isfinite(wp[r, c]):
                        ax.text(c, r, f"{wp[r, c]:.2f}", ha="center", va="center",
                                fontproperties=font(size * 0.85),
                                color="white" if abs(wp[r, c] - 0.5) > 0.3 else INK)
        bar = fig.add_axes((left + (n * cell) / width + 0.1 / width, bottom,
                            0.15 / width, (n * cell) / height))
        cb = fig.colorbar(image, cax=bar)
        cb.set_label("P(row beats column)", fontproperties=font(size))
        for label in bar.get_yticklabels():
            label.set_fontproperties(font(size))
        add_signature(fig, ratings.signature)
    return fig
