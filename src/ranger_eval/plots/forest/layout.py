"""Where everything of a forest plot goes, in inches (:func:`layout` → :class:`ForestLayout`).

Every length is laid out from text extents measured with the font actually used, so nothing
overlaps from 1 to 40+ rows; font sizes are fixed and the figure grows with the columns and rows
(or, with ``ForestStyle(figsize=…)``, the rows share the height given and a size too small raises
:class:`ForestLayoutError`). Study squares have an area proportional to the weight down to
:data:`MIN_MARKER_PT` (:func:`marker_areas`). Nothing here draws.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np

from ...errors import PlotError
from .._axis import EffectAxis, axis_heights
from .._style import format_percent
from .._text import hinted_wrap, line_height, text_width, wrap, wrap_footer, wrap_signature
from .columns import Column, ForestTable, ForestValues
from .options import ForestStyle

__all__ = ["MIN_MARKER_PT", "ForestLayout", "ForestLayoutError", "layout", "marker_areas"]

# Layout constants (inches unless noted).
MARGIN = 0.12
_COL_GAP = 0.22
_PLOT_GAP = 0.16
_SUBCOL_GAP = 0.05  # between "[low," and "high]"
_EST_GAP = 0.08  # between the estimate and "[low,"
_MIN_PLOT_WIDTH = 1.2
_DEFAULT_PLOT_WIDTH = 2.8
#: Smallest side of a study square in points (capped at half the largest side): a dataset with a
#: tiny weight (RTE, WNLI in the fixed-effect GLUE forest) stays visible. Above it the square's
#: area is proportional to the weight, as in metafor's and RevMan's forest plots; smaller weights
#: are drawn at this size and the footer says so.
MIN_MARKER_PT = 3.5


class ForestLayoutError(PlotError):
    """The requested ``figsize`` cannot hold the plot at the fixed font size."""


@dataclass(frozen=True)
class ForestLayout:
    """Positions in inches (y from the figure bottom) of everything a forest plot draws."""

    size: tuple[float, float]  # figure width, height
    table: ForestTable  # the columns with their widths and left edges
    effect_right: float  # right edge of the effect [CI] column (its header is right-aligned there)
    table_right: float  # right end of the rules and stripes (they start at MARGIN)
    plot: tuple[float, float]  # left edge and width of the plotting area
    ticks: np.ndarray
    xlim: tuple[float, float]
    title_lines: tuple[str, ...]
    footer: tuple[str, ...]
    row_h: float  # height of a study row
    line_h: float  # height of a header line
    y_title: float  # top of the title
    y_header_rule: float  # the rule under the headers
    y_rows: np.ndarray  # centres of the study rows, top to bottom
    y_sep: float  # the light rule above the summary
    y_sum: float  # centre of the summary row
    y_pi: float | None  # centre of the prediction-interval row (None: not shown)
    y_axes_bottom: float
    y_footer_top: float


def layout(table: ForestTable, values: ForestValues, axis: EffectAxis,
           footer_parts: list[list[str]], title: str | None, signature: object,
           style: ForestStyle) -> ForestLayout:
    """Lay out ``table`` around a plot of ``values`` on ``axis``, with ``title`` above and the
    footer (``footer_parts``, the note on minimum-size squares, the ``signature``) below."""
    table, eff_pad = _size_columns(table, style)
    fig_w, x_plot0, plot_w = _across(table, eff_pad, axis.label, (footer_parts, title), style)
    avail = fig_w - 2 * MARGIN
    f_small = style.small
    # a sentence longer than the figure (which did not widen it, _across) wraps with the
    # hinting margin: its lines fill the width, so the rendered text must not exceed it
    footer_stats = [line for entry in footer_parts for line in (
        hinted_wrap(entry[0].split(" "), " ", avail, f_small)
        if len(entry) == 1 and text_width(entry[0], f_small) > avail
        else wrap_footer([entry], avail, f_small))]
    sig_lines = wrap_signature(str(signature), avail, f_small) if signature else []
    title_lines = wrap(title.split(" "), " ", avail, style.title) if title else []
    n_header_lines = max(c.header.count("\n") + 1
                         for c in [table.label, *table.left, *table.right, *table.extra])
    down = _down(values, (title_lines, n_header_lines), (footer_stats, sig_lines), avail, style)
    placed, eff_x1, x_end = _place_columns(table, x_plot0 + plot_w, eff_pad)
    ticks, lo, hi = axis.ticks(plot_w)
    return ForestLayout(size=(fig_w, down.fig_h), table=placed, effect_right=eff_x1,
                        table_right=x_end, plot=(x_plot0, plot_w), ticks=ticks, xlim=(lo, hi),
                        title_lines=tuple(title_lines), footer=down.footer, row_h=down.row_h,
                        line_h=line_height(style.fontsize), y_title=down.top,
                        y_header_rule=down.y_header_rule, y_rows=down.y_rows, y_sep=down.y_sep,
                        y_sum=down.y_sum, y_pi=down.y_pi, y_axes_bottom=down.y_axes_bottom,
                        y_footer_top=down.y_footer_top)


def _across(table: ForestTable, eff_pad: float, xlabel: str,
            text: tuple[list[list[str]], str | None], style: ForestStyle
            ) -> tuple[float, float, float]:
    """The figure's width, and the left edge and width of the plotting area: the columns' widths
    plus a plot of the default width, widened so that the x label (centred under the plot) and the
    widest footer statement or the title (``text`` = (footer parts, title)) fit; or the width of
    ``style.figsize``, the plot taking what the columns leave."""
    footer_parts, title = text
    label_col, left_cols, right_cols, extra_right = table.label, table.left, table.right, table.extra
    eff_est, eff_lo, eff_hi = table.effect
    eff_width = eff_est.width + eff_lo.width + eff_hi.width + _EST_GAP + _SUBCOL_GAP
    eff_width += eff_pad
    left_w = label_col.width + sum(_COL_GAP + c.width for c in left_cols)
    right_w = sum(c.width + _COL_GAP for c in right_cols) + eff_width + sum(
        _COL_GAP + c.width for c in extra_right
    )
    fixed_w = 2 * MARGIN + left_w + right_w + 2 * _PLOT_GAP
    figsize = style.figsize
    x_plot0 = MARGIN + left_w + _PLOT_GAP
    if figsize is not None:
        fig_w = float(figsize[0])
        plot_w = fig_w - fixed_w
        if plot_w < _MIN_PLOT_WIDTH:
            raise ForestLayoutError(
                f"figsize width {fig_w:.2f} in leaves {plot_w:.2f} in for the plot; the text columns need "
                f"{fixed_w:.2f} in, so use a width of at least {fixed_w + _MIN_PLOT_WIDTH:.2f} in"
            )
        return fixed_w + plot_w, x_plot0, plot_w
    plot_w = _DEFAULT_PLOT_WIDTH
    # the x label is centred under the plot: it may overhang into the empty space below the
    # columns, but never beyond the margins
    xlabel_w = text_width(xlabel, style.body)
    half_room = min(MARGIN + left_w + _PLOT_GAP, MARGIN + right_w + _PLOT_GAP) + plot_w / 2
    if xlabel_w / 2 > half_room - 0.02:
        plot_w += 2 * (xlabel_w / 2 - half_room + 0.02)
    fig_w = fixed_w + plot_w
    avail = fig_w - 2 * MARGIN
    # statistic blocks widen the plot (one block per line); a sentence longer than the figure
    # (the caution of a meta-analysis of one or two datasets) wraps instead
    natural = wrap_footer([p for p in footer_parts
                           if len(p) > 1 or text_width(p[0], style.small) <= avail],
                          float("inf"), style.small) or [""]
    widest = max(text_width(line, style.small) for line in natural)
    title_w = text_width(title, style.title) if title else 0.0
    need = max(widest, title_w)
    if need > avail:
        # widen the plot rather than wrap: keeps one statistic block per line
        plot_w += need - avail
        fig_w += need - avail
    return fig_w, x_plot0, plot_w


@dataclass(frozen=True)
class _Down:
    """The vertical layout: the figure's height, the footer's lines and the y positions."""

    fig_h: float
    row_h: float
    footer: tuple[str, ...]
    top: float
    y_header_rule: float
    y_rows: np.ndarray
    y_sep: float
    y_sum: float
    y_pi: float | None
    y_axes_bottom: float
    y_footer_top: float


def _down(values: ForestValues, head: tuple[list[str], int], foot: tuple[list[str], list[str]],
          avail: float, style: ForestStyle) -> _Down:
    """Rows of the default height (1.75 × the font size) and the figure's height from them, or
    ``style.figsize``'s height shared by the rows; ``head`` = (title lines, header lines), ``foot``
    = (footer statements' lines, signature lines) around which the note on minimum-size squares
    goes when a weight is drawn at the minimum (for the row height found)."""
    fontsize = style.fontsize
    k = values.k
    with_pi = values.with_pi
    title_lines, n_header_lines = head
    footer_stats, sig_lines = foot
    marker_rows = np.asarray(values.weights[values.rows], dtype=float)

    def marker_note(row_height: float) -> list[str]:
        """The footer line saying which weights are drawn at the minimum square size (if any)."""
        threshold = _min_size_ratio(row_height * 72) * float(np.max(marker_rows))
        if not np.any(marker_rows < threshold):
            return []
        text = (f"Squares: area proportional to the weight; weights below {format_percent(threshold)} "
                "are drawn at the minimum size.")
        return wrap(text.split(" "), " ", avail, style.small)

    footer = footer_stats + sig_lines
    line_h = line_height(fontsize)
    header_h = n_header_lines * line_h + 0.10
    title_h = len(title_lines) * line_height(fontsize + 1.5) + 0.10 if title_lines else 0.0
    tick_h, xlabel_h = axis_heights(fontsize)
    n_units = k + 0.6 + 1 + (1 if with_pi else 0) + 0.3  # rows, gap, summary, PI, bottom pad

    def fixed_height(footer_lines: list[str]) -> float:
        footer_h = (0.10 + len(footer_lines) * line_height(fontsize - 0.5) * 1.1) if footer_lines else 0.0
        return 2 * MARGIN + title_h + header_h + 0.06 + tick_h + xlabel_h + footer_h

    min_row_h = 1.3 * fontsize / 72
    fig_h_req = float(style.figsize[1]) if style.figsize is not None else None
    if fig_h_req is not None:
        # the note on minimum-size squares depends on the row height, which depends on the footer:
        # a note only makes rows lower, which keeps (or adds) squares at the minimum size
        row_h = (fig_h_req - fixed_height(footer)) / n_units
        for _ in range(2):
            note = marker_note(row_h) if row_h > 0 else []
            if not note:
                break
            footer = footer_stats + note + sig_lines
            row_h = (fig_h_req - fixed_height(footer)) / n_units
    else:
        row_h = 1.75 * fontsize / 72
        footer = footer_stats + marker_note(row_h) + sig_lines
    fixed_h = fixed_height(footer)
    if fig_h_req is not None:
        if row_h < min_row_h:
            raise ForestLayoutError(
                f"figsize height {fig_h_req:.2f} in is too small for {k} datasets at {fontsize:g} pt; "
                f"use a height of at least {fixed_h + n_units * min_row_h:.2f} in"
            )
        fig_h = fig_h_req
    else:
        fig_h = fixed_h + n_units * row_h
        fig_h = math.ceil(fig_h * 300 - 1e-6) / 300  # whole pixels at 300 dpi (and 100, 150)

    top = fig_h - MARGIN
    y_header_rule = top - title_h - header_h
    y_first = y_header_rule - 0.06 - row_h / 2  # centre of the first study row
    y_rows = y_first - row_h * np.arange(k)
    y_sum = y_rows[-1] - row_h * 1.6
    y_pi = y_sum - row_h if with_pi else None
    y_axes_bottom = (y_pi if y_pi is not None else y_sum) - row_h * 0.8
    return _Down(fig_h=fig_h, row_h=row_h, footer=tuple(footer), top=top,
                 y_header_rule=y_header_rule, y_rows=y_rows, y_sep=float(y_rows[-1] - row_h * 0.8),
                 y_sum=float(y_sum), y_pi=float(y_pi) if y_pi is not None else None,
                 y_axes_bottom=float(y_axes_bottom),
                 y_footer_top=float(y_axes_bottom - tick_h - xlabel_h - 0.10))


def _size_columns(table: ForestTable, style: ForestStyle) -> tuple[ForestTable, float]:
    """The table with each column's header chosen and width measured, and the padding that widens
    the effect column to its header."""
    f_body, f_bold = style.body, style.bold

    def col_width(c: Column, rows_only: bool = False) -> float:
        w = max([text_width(s, f_body) for s in c.cells] + [0.0])
        if not rows_only:
            w = max(w, text_width(c.summary, f_bold), text_width(c.pi, f_body))
        return max(w, text_width(c.header, f_bold))

    def sized(c: Column) -> Column:
        if c.header_options:
            limit = max(1.5 * max(text_width(x, f_body) for x in c.cells), 1.5)
            fitting = [h for h in c.header_options if text_width(h, f_bold) <= limit]
            c = replace(c, header=fitting[0] if fitting else c.header_options[-1])
        return replace(c, width=col_width(c))

    left = tuple(sized(c) for c in table.left)
    right = tuple(sized(c) for c in table.right)
    eff_est, eff_lo, eff_hi = (sized(c) for c in table.effect)
    extra = tuple(sized(c) for c in table.extra)
    # the summary and PI labels may run on into the left columns, which are empty on those rows
    label = table.label
    label_w = col_width(label, rows_only=True)
    overflow = max(text_width(label.summary, f_bold), text_width(label.pi, f_body)) - (
        label_w + sum(_COL_GAP + c.width for c in left)
    )
    if overflow > 0:
        label_w += overflow
    eff_width = eff_est.width + eff_lo.width + eff_hi.width + _EST_GAP + _SUBCOL_GAP
    eff_pad = max(0.0, text_width(table.effect_header, f_bold) - eff_width)
    return replace(table, label=replace(label, width=label_w), left=left, right=right,
                   effect=(eff_est, eff_lo, eff_hi), extra=extra), eff_pad


def _place_columns(table: ForestTable, x_plot1: float,
                   eff_pad: float) -> tuple[ForestTable, float, float]:
    """The table with each column's left edge: labels and left columns from the margin, the others
    after the plot ending at ``x_plot1``; also the right edges of the effect column and of the
    whole table."""
    x = MARGIN
    label = replace(table.label, x=x)
    x += label.width
    left = []
    for c in table.left:
        x += _COL_GAP
        left.append(replace(c, x=x))
        x += c.width
    x = x_plot1 + _PLOT_GAP
    right = []
    for c in table.right:
        right.append(replace(c, x=x))
        x += c.width + _COL_GAP
    x += eff_pad
    eff_est, eff_lo, eff_hi = table.effect
    eff_est = replace(eff_est, x=x)
    x += eff_est.width + _EST_GAP
    eff_lo = replace(eff_lo, x=x)
    x += eff_lo.width + _SUBCOL_GAP
    eff_hi = replace(eff_hi, x=x)
    x += eff_hi.width
    eff_x1 = x
    extra = []
    for c in table.extra:
        x += _COL_GAP
        extra.append(replace(c, x=x))
        x += c.width
    return replace(table, label=label, left=tuple(left), right=tuple(right),
                   effect=(eff_est, eff_lo, eff_hi), extra=tuple(extra)), eff_x1, x


def marker_areas(weights: np.ndarray, row_pt: float) -> np.ndarray:
    """Scatter sizes (areas in pt²) of the study squares in rows ``row_pt`` points high.

    The largest weight gets a side of 0.72 rows; area ∝ weight (side ∝ √w, as metafor's
    ``forest`` and Cochrane's RevMan scale squares by the weight) down to a side of
    ``min(MIN_MARKER_PT, half the largest side)``; smaller weights are drawn at that side.
    """
    w = np.asarray(weights, dtype=float)
    w_max = float(np.max(w)) if w.size and np.max(w) > 0 else 1.0
    max_side = 0.72 * row_pt
    return np.maximum(max_side**2 * (w / w_max), _min_size_ratio(row_pt) * max_side**2)


def _min_size_ratio(row_pt: float) -> float:
    """Area of the minimum square relative to the largest one (rows ``row_pt`` points high)."""
    max_side = 0.72 * row_pt
    return (min(MIN_MARKER_PT, 0.5 * max_side) / max_side) ** 2
