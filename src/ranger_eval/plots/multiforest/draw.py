"""Drawing a laid-out multi-system forest plot (:func:`draw`): title, legend, headers, rules and
stripes, row labels and values, and on the plotting area each system's whiskers and markers
(dodged within each dataset row) and its summary diamond (with its prediction interval). The
figure is a plain :class:`matplotlib.figure.Figure`; rcParams are only used inside
``rc_context``."""
from __future__ import annotations

import matplotlib as mpl
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.patches import Rectangle

from .._axis import EffectAxis, Whisker, diamond, effect_axes, whisker
from .._style import FIGURE_RC, LIGHT_RULE, RULE, STRIPE, put_text
from .._text import line_height
from .layout import MARGIN, SAMPLE_W, MultiForestLayout
from .options import MultiForestStyle
from .systems import SystemValues

__all__ = ["draw"]

_MARKER_PT = 5.0
#: marker sizes that look equally large (a triangle of the circle's size looks smaller)
_MARKER_SCALE = {"o": 1.0, "s": 0.9, "^": 1.15, "v": 1.15, "D": 0.85, "P": 1.05, "X": 1.05}


def draw(lay: MultiForestLayout, systems: list[SystemValues], rows: tuple[list[str], list[str]],
         axis: EffectAxis, label_header: str, style: MultiForestStyle) -> Figure:
    """The multi-forest plot of ``systems`` over ``rows`` = (datasets, row labels) on ``axis``, as
    laid out in ``lay``."""
    fig_w, fig_h = lay.size
    with mpl.rc_context(FIGURE_RC):
        fig = Figure(figsize=(fig_w, fig_h), dpi=100, facecolor="white")
        _draw_text(fig, lay, systems, rows[1], label_header, style)
        x_plot0, plot_w = lay.plot
        ax = effect_axes(fig, x_plot0, plot_w, (lay.y_axes_bottom, lay.y_header_rule), lay.xlim,
                         lay.ticks, axis.exponent, axis.label, style)
        _draw_marks(ax, lay, systems, rows[0])
        for i, line in enumerate(lay.footer):
            put_text(fig, MARGIN, lay.y_footer_top - (i + 0.5) * lay.foot_lh, line, style.small)
        y_sig = lay.y_footer_top - len(lay.footer) * lay.foot_lh - 0.04
        f_sig = style.signature
        for i, line in enumerate(lay.sig_lines):
            put_text(fig, MARGIN, y_sig - (i + 0.5) * lay.sig_lh, line, f_sig, color="#4d4d4d")
    return fig


def _marker_size(marker: str) -> float:
    return _MARKER_PT * _MARKER_SCALE.get(marker, 1.0)


def _draw_text(fig: Figure, lay: MultiForestLayout, systems: list[SystemValues],
               row_labels: list[str], label_header: str, style: MultiForestStyle) -> None:
    """Title, legend, header, rules, stripes, row labels, values and summary rows."""
    f_body, f_bold = style.body, style.bold
    T = fig.dpi_scale_trans
    fig_w = lay.size[0]
    top = lay.size[1] - MARGIN
    for i, line in enumerate(lay.title_lines):
        put_text(fig, MARGIN, top - (i + 0.5) * line_height(style.fontsize + 1.5), line, style.title)

    # legend
    for r, entries_row in enumerate(lay.legend_rows):
        yy = lay.y_legend_top - (r + 0.5) * lay.line_h * 1.2
        x = MARGIN
        for j, w in entries_row:
            s = systems[j]
            fig.add_artist(Line2D([x, x + SAMPLE_W], [yy, yy], transform=T, color=s.color, lw=1.1))
            fig.add_artist(Line2D([x + SAMPLE_W / 2], [yy], transform=T, ls="none", marker=s.marker,
                                  markersize=_marker_size(s.marker), markerfacecolor=s.color,
                                  markeredgecolor="white", markeredgewidth=0.5))
            put_text(fig, x + SAMPLE_W + 0.06, yy, s.name, f_body)
            x += w + 0.25

    # header and rules
    values = lay.values
    y_head = lay.y_header_rule + 0.04 + lay.line_h / 2
    put_text(fig, MARGIN, y_head, label_header, f_bold)
    x_end = fig_w - MARGIN if values is not None else lay.plot[0] + lay.plot[1]
    if values is not None:
        put_text(fig, lay.values_x + values.width, y_head, values.header, f_bold, ha="right")
    fig.add_artist(Line2D([MARGIN, x_end], [lay.y_header_rule, lay.y_header_rule], transform=T,
                          color=RULE, lw=0.8))
    fig.add_artist(Line2D([MARGIN, x_end], [lay.y_sep, lay.y_sep], transform=T, color=LIGHT_RULE,
                          lw=0.6))
    for r in range(1, len(row_labels), 2):  # zebra stripes group each dataset's systems
        fig.add_artist(Rectangle((MARGIN, lay.y_row_top - (r + 1) * lay.row_h), x_end - MARGIN,
                                 lay.row_h, transform=T, facecolor=STRIPE, edgecolor="none",
                                 zorder=-1))

    # row labels and values
    x_est, x_lo, x_hi = lay.value_edges
    for r, lab in enumerate(row_labels):
        put_text(fig, MARGIN, float(lay.row_centres[r]), lab, f_body)
        if values is not None:
            for j in range(len(systems)):
                cell = values.cells[r][j]
                yy = float(lay.row_centres[r] + lay.offsets[j])
                if cell is None:
                    put_text(fig, x_est, yy, "–", f_body, ha="right")
                    continue
                put_text(fig, x_est, yy, cell[0], f_body, ha="right")
                put_text(fig, x_lo, yy, cell[1], f_body, ha="right")
                put_text(fig, x_hi, yy, cell[2], f_body, ha="right")
    for j, s in enumerate(systems):
        yy = float(lay.y_sums[j])
        put_text(fig, MARGIN, yy, f"{s.name} ({s.model()})", f_bold)
        if values is not None:
            cells = values.summaries[j]
            put_text(fig, x_est, yy, cells[0], f_bold, ha="right")
            put_text(fig, x_lo, yy, cells[1], f_bold, ha="right")
            put_text(fig, x_hi, yy, cells[2], f_bold, ha="right")


def _draw_marks(ax: Axes, lay: MultiForestLayout, systems: list[SystemValues],
                datasets: list[str]) -> None:
    """Each system's whiskers and markers (dodged within the rows) and its summary diamond."""
    lo, hi = lay.xlim
    for j, s in enumerate(systems):
        look = Whisker(s.color, 1.0, arrow_size=5.5)
        xs, ys = [], []
        for r, n in enumerate(datasets):
            if n not in s.pos:
                continue
            i = s.pos[n]
            yy = float(lay.row_centres[r] + lay.offsets[j])
            whisker(ax, yy, float(s.lo[i]), float(s.hi[i]), look)
            if lo <= s.yi[i] <= hi:
                xs.append(float(s.yi[i]))
                ys.append(yy)
        ax.plot(xs, ys, ls="none", marker=s.marker, markersize=_marker_size(s.marker),
                markerfacecolor=s.color, markeredgecolor="white", markeredgewidth=0.5,
                zorder=4, gid=f"system-{j}-markers")
        yy = float(lay.y_sums[j])
        if s.with_pi:
            whisker(ax, yy, s.p_lo, s.p_hi, look)
        diamond(ax, yy, (s.est, s.c_lo, s.c_hi), 0.62 * lay.sum_h, Whisker(s.color, arrow_size=6),
                gid=f"system-{j}-diamond")
