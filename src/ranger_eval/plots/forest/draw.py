"""Drawing a laid-out forest plot (:func:`draw`): texts placed in inches, the rules and stripes
of the table, and on the plotting area the study whiskers and squares (area proportional to the
weight), the summary diamond and the prediction interval. The figure is a plain
:class:`matplotlib.figure.Figure` (no pyplot state); rcParams are only used inside
``rc_context``."""
from __future__ import annotations

from typing import Any

import matplotlib as mpl
from matplotlib.figure import Figure
from matplotlib.font_manager import FontProperties
from matplotlib.lines import Line2D
from matplotlib.patches import Rectangle

from .._axis import EffectAxis, Whisker, diamond, effect_axes, whisker
from .._style import FIGURE_RC, INK, LIGHT_RULE, RULE, STRIPE, SUMMARY, put_text
from .._text import line_height
from .columns import Column, ForestValues
from .layout import MARGIN, ForestLayout, marker_areas
from .options import ForestStyle

__all__ = ["draw"]


def draw(lay: ForestLayout, values: ForestValues, axis: EffectAxis, style: ForestStyle) -> Figure:
    """The forest plot of ``values`` on ``axis`` as laid out in ``lay``."""
    fig_w, fig_h = lay.size
    with mpl.rc_context(FIGURE_RC):
        fig = Figure(figsize=(fig_w, fig_h), dpi=100, facecolor="white")
        _draw_table(fig, lay, values.k, style)
        ax = effect_axes(fig, lay.plot[0], lay.plot[1], (lay.y_axes_bottom, lay.y_header_rule),
                         lay.xlim, lay.ticks, axis.exponent, axis.label, style)
        _draw_marks(ax, lay, values)
        foot_lh = line_height(style.fontsize - 0.5) * 1.1
        for i, line in enumerate(lay.footer):
            put_text(fig, MARGIN, lay.y_footer_top - (i + 0.5) * foot_lh, line, style.small)
    return fig


def _put_col(fig: Figure, c: Column, y: float, s: str, prop: FontProperties) -> None:
    """A cell of column ``c`` at height ``y``, aligned as the column."""
    if c.align == "left":
        put_text(fig, c.x, y, s, prop, "left")
    else:
        put_text(fig, c.x + c.width, y, s, prop, "right")


def _draw_table(fig: Figure, lay: ForestLayout, k: int, style: ForestStyle) -> None:
    """Title, headers, rules, stripes, and the cells of the study, summary and PI rows."""
    f_body, f_bold = style.body, style.bold
    table = lay.table
    label_col, (eff_est, eff_lo, eff_hi) = table.label, table.effect
    T = fig.dpi_scale_trans
    for i, line in enumerate(lay.title_lines):
        put_text(fig, MARGIN, lay.y_title - (i + 0.5) * line_height(style.fontsize + 1.5), line,
             style.title)

    # headers: lines stacked upwards from just above the rule (bottom-aligned)
    def head_y(line_from_bottom: int) -> float:
        return lay.y_header_rule + 0.05 + (line_from_bottom + 0.5) * lay.line_h

    for c in [label_col, *table.left, *table.right, *table.extra]:
        lines = c.header.split("\n")
        for j, hl in enumerate(lines):
            _put_col(fig, c, head_y(len(lines) - 1 - j), hl, f_bold)
    put_text(fig, lay.effect_right, head_y(0), table.effect_header, f_bold, "right")

    # rules: under the headers (full width) and a light line above the summary
    x_rule0, x_rule1 = MARGIN, lay.table_right
    fig.add_artist(Line2D([x_rule0, x_rule1], [lay.y_header_rule, lay.y_header_rule], transform=T,
                          color=RULE, lw=0.8, solid_capstyle="butt"))
    fig.add_artist(Line2D([x_rule0, x_rule1], [lay.y_sep, lay.y_sep], transform=T,
                          color=LIGHT_RULE, lw=0.6, solid_capstyle="butt"))

    # light zebra stripes help follow long tables across the plot (every other row)
    row_h = lay.row_h
    if style.stripes is None and k >= 12 or style.stripes:
        for r in range(1, k, 2):
            fig.add_artist(Rectangle((MARGIN, float(lay.y_rows[r]) - row_h / 2), x_rule1 - MARGIN,
                                     row_h, transform=T, facecolor=STRIPE, edgecolor="none",
                                     zorder=-1))
    # study rows
    for r in range(k):
        yy = float(lay.y_rows[r])
        for c in table.all():
            _put_col(fig, c, yy, c.cells[r], f_body)
    # summary and PI rows
    _put_col(fig, label_col, lay.y_sum, label_col.summary, f_bold)
    for c in [*table.right, eff_est, eff_lo, eff_hi]:
        _put_col(fig, c, lay.y_sum, c.summary, f_bold)
    if lay.y_pi is not None:
        _put_col(fig, label_col, lay.y_pi, label_col.pi, f_body)
        for c in (eff_lo, eff_hi):
            _put_col(fig, c, lay.y_pi, c.pi, f_body)


def _draw_marks(ax: Any, lay: ForestLayout, values: ForestValues) -> None:
    """Study whiskers and squares, the summary diamond and the prediction interval."""
    lo, hi = lay.xlim
    idx, row_h, y_rows = values.rows, lay.row_h, lay.y_rows
    yi_d = values.yi
    study = Whisker(INK, 1.0, arrow_size=7)
    inside = (yi_d[idx] >= lo) & (yi_d[idx] <= hi)
    for r in range(values.k):
        whisker(ax, float(y_rows[r]), float(values.lo[idx[r]]), float(values.hi[idx[r]]), study)
    sizes = marker_areas(values.weights[idx], row_h * 72)
    ax.scatter(yi_d[idx][inside], y_rows[inside], s=sizes[inside], marker="s", color=INK,
               linewidths=0, zorder=4, gid="study-markers")
    est, c_lo, c_hi = values.summary
    diamond(ax, lay.y_sum, (est, c_lo, c_hi), 0.62 * row_h, Whisker(SUMMARY, arrow_size=7),
            gid="summary-diamond")
    if lay.y_pi is not None:
        p_lo, p_hi = values.prediction
        whisker(ax, lay.y_pi, p_lo, p_hi,
                Whisker(SUMMARY, 1.4, arrow_size=7, cap_height=0.32 * row_h))
