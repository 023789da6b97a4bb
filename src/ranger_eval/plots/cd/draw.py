"""Draw a laid-out CD diagram (:class:`~.layout.CDLayout`) on a plain matplotlib Figure whose
one axes spans it in inches from the top left."""
from __future__ import annotations

from typing import Any

import matplotlib as mpl
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.text import Text

from .._style import FIGURE_RC, FONT_SIZE, INK, font
from .check import CDData
from .layout import BAR_ROW, GAP, MARGIN, ROW, SMALL_SIZE, STUB, TICK, TICK_SIZE, CDLayout, number

__all__ = ["draw"]

CONTROL_BAND = "#8c1c13"  # Bonferroni–Dunn interval around the control
UNDECIDED = "#a6a6a6"  # Bayesian rank test: a group with an inconclusive pair
ELBOW = "#404040"
_BAR_WIDTH = 3.2  # points


class _Canvas:
    """Text and segments placed in inches from the top left of the figure."""

    def __init__(self, ax: Any) -> None:
        self.ax = ax

    def put(self, x: float, yy: float, s: str, *, size: float = FONT_SIZE, ha: str = "left",
            va: str = "baseline", b: bool = False, color: str = INK,
            gid: str | None = None) -> Text:
        t = self.ax.text(x, yy, s, fontproperties=font(size, bold=b), ha=ha, va=va,
                         color=color, parse_math=False, usetex=False)
        if gid:
            t.set_gid(gid)
        return t

    def seg(self, xs: list[float], ys: list[float], lw: float = 0.9, color: str = INK,
            gid: str | None = None, **kw: Any) -> Line2D:
        ln = Line2D(xs, ys, linewidth=lw, color=color, solid_capstyle="butt", **kw)
        if gid:
            ln.set_gid(gid)
        self.ax.add_line(ln)
        return ln


def _axis(c: _Canvas, lay: CDLayout) -> None:
    """The rank axis, its ticks (and halves) and tick labels (every ``step``-th integer
    labelled when crowded)."""
    k, x_of, axis_y = lay.k, lay.x_of, lay.axis_y
    c.seg([x_of(1), x_of(k)], [axis_y, axis_y], lw=1.0, gid="rank-axis")
    spacing = lay.axis_w / (k - 1)
    need = lay.tick_w + 0.06
    # labels 1, s, 2s, …: the closest pair is (1, s), or neighbours when s = 1
    step = next(s for s in (1, 5, 10, 20, 50, 100, 10**9)
                if max(s - 1, 1) * spacing >= need)
    shown: list[int] = []
    for r in [1, k, *range(step, k, step)]:
        if all(abs(r - o) * spacing >= need for o in shown):
            shown.append(r)
    for r in range(1, k + 1):
        xr = x_of(r)
        c.seg([xr, xr], [axis_y, axis_y - TICK], lw=0.8)
        if r in shown:
            c.put(xr, axis_y - TICK - 0.04, str(r), size=TICK_SIZE, ha="center")
        if r < k and spacing >= 0.12:
            xh = x_of(r + 0.5)
            c.seg([xh, xh], [axis_y, axis_y - TICK / 2], lw=0.6)


def _cd_bar(c: _Canvas, lay: CDLayout, cd: float, decimals: int) -> None:
    """The CD scale bar from the rank-1 end of the axis (an arrow when longer than it)."""
    assert lay.cd_y is not None
    k, x_of = lay.k, lay.x_of
    length = min(cd, k - 1.0)
    xa, xb = x_of(1), x_of(1 + length)
    bar_y = lay.cd_y + 0.06
    c.seg([xa, xb], [bar_y, bar_y], lw=1.2, gid="cd-bar")
    for xe in (xa, xb):
        c.seg([xe, xe], [bar_y - 0.035, bar_y + 0.035], lw=1.0)
    if cd > k - 1.0:  # longer than the axis: an arrow says it goes on
        c.ax.plot([xb], [bar_y], marker=">" if (xb > xa) else "<", markersize=4,
                  color=INK, linestyle="none")
    c.put(min(xa, xb), lay.cd_y, f"CD = {number(cd, decimals)}", ha="left")


def _bars_and_labels(c: _Canvas, data: CDData, lay: CDLayout) -> None:
    """Clique bars (and the Bonferroni–Dunn band), then every system's elbow and label."""
    kinds = data.clique_kinds or ("",) * len(lay.spans)
    for (lo, hi), row, kind in zip(lay.spans, lay.bar_rows, kinds, strict=True):
        yy = lay.bars_top + row * BAR_ROW
        c.seg([lo, hi], [yy, yy], lw=_BAR_WIDTH, gid="clique",
              color=UNDECIDED if kind == "undecided" else INK)
    if lay.band is not None:
        yy = lay.bars_top + (lay.n_bar_rows - 1) * BAR_ROW
        c.seg([lay.band[0], lay.band[1]], [yy, yy], lw=_BAR_WIDTH, color=CONTROL_BAND,
              gid="control-band")
    x_left_end = lay.x0 - STUB
    x_right_end = lay.x_of(lay.k if not lay.reverse else 1) + STUB
    for side, members in (("left", lay.left), ("right", lay.right)):
        for row, i in enumerate(members):
            yy = lay.first_row + row * ROW
            xr = lay.x_of(data.values[i])
            end = x_left_end if side == "left" else x_right_end
            c.seg([xr, xr, end], [lay.axis_y, yy, yy], lw=0.9, color=ELBOW, gid="elbow")
            c.put(end - GAP if side == "left" else end + GAP, yy, lay.text[i],
                  ha="right" if side == "left" else "left", va="center", b=i in lay.bold,
                  gid="label")


def draw(data: CDData, lay: CDLayout, decimals: int) -> Figure:
    """The figure of a laid-out diagram: title, CD bar, axis, bars, labels, footer."""
    with mpl.rc_context(FIGURE_RC):
        fig = Figure(figsize=(lay.fig_w, lay.fig_h), dpi=100, facecolor="white")
        ax = fig.add_axes((0, 0, 1, 1))
        ax.set_xlim(0, lay.fig_w)
        ax.set_ylim(lay.fig_h, 0)  # inches from the top
        ax.set_axis_off()
        c = _Canvas(ax)
        for line, yy in zip(lay.title_lines, lay.title_y, strict=True):
            c.put(MARGIN, yy, line, size=FONT_SIZE + 1.5, va="top", b=True)
        _axis(c, lay)
        if data.cd is not None and lay.cd_y is not None:
            _cd_bar(c, lay, data.cd, decimals)
        _bars_and_labels(c, data, lay)
        for (line, size), yy in zip(lay.foot, lay.foot_y, strict=True):
            c.put(MARGIN, yy, line, size=size, va="top",
                  color=INK if size > SMALL_SIZE else "#595959")
    return fig
