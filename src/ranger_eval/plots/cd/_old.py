"""Critical-difference (CD) diagram of a multi-dataset rank test (Demšar 2006, Figs. 1–2).

Draws a :class:`~ranger_eval.aggregate.ranktests.RankTest` as the machine-learning and
time-series communities know it (Demšar 2006; Orange's ``graph_ranks``; aeon's
``plot_critical_difference``):

* a horizontal axis of average ranks from 1 to k at the top, ticks at the integers (and halves),
  rank 1 (best) at the left unless ``reverse=True``;
* every system hangs from its average rank on the axis by an elbow line: the better half of the
  axis to the left, labelled ``name  2.14``, the other half to the right, labelled
  ``2.86  name`` (average rank to two decimals, next to its line); the system nearest an edge
  of the axis hangs highest, so no two lines cross;
* thick black bars under the axis join the systems of each clique (the result's ``cliques``:
  maximal groups of systems not significantly different), packed into as few rows as possible;
* a scale bar "CD = 1.25" above the axis when the test has a critical difference (Nemenyi,
  Bonferroni–Dunn); with Bonferroni–Dunn, the interval control ± CD is also drawn under the axis
  (Demšar Fig. 2). Holm and Wilcoxon post-hoc tests have no CD: cliques only.
* a footer saying what the bars mean, the Friedman test, and the result's signature (small).

Nothing is computed here: every number comes from the result. Lengths are laid out in inches
from the measured width of every text, so labels never overlap; font sizes are fixed (9 pt
labels, 8.5 pt ticks, 7 pt signature) and the figure grows with the number of systems. Names are
drawn literally (no mathtext: ``$`` and ``_`` stay as written). The figure is a plain
:class:`matplotlib.figure.Figure` (no pyplot state); rcParams are only used inside
``rc_context``. Save it with :func:`~ranger_eval.plots.save_figure` (PDF with TrueType fonts,
SVG with editable text, PNG at 300 dpi).
"""
from __future__ import annotations

import math
from collections.abc import Mapping
from numbers import Real
from typing import Any

import matplotlib as mpl
import numpy as np
import pandas as pd
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.text import Text

from ..errors import PlotError
from ..formatting import format_pvalue
from ._style import FIGURE_RC, FONT_SIZE, INK, MINUS, font, text_width_in, wrap_parts

__all__ = ["cd_diagram"]

TICK_SIZE = FONT_SIZE - 0.5
SMALL_SIZE = 7.0
CONTROL_BAND = "#8c1c13"  # Bonferroni–Dunn interval around the control
ELBOW = "#404040"
_POSTHOC_NAMES = {
    "nemenyi": "Nemenyi test",
    "bonferroni-dunn": "Bonferroni–Dunn test",
    "holm": "Holm-adjusted z-tests",
    "wilcoxon": "Holm-adjusted Wilcoxon signed-rank tests",
}

# layout (inches)
_MARGIN = 0.15
_GAP = 0.10  # line end to label
_STUB = 0.25  # horizontal part of an elbow beyond the axis ends
_ROW = 1.45 * FONT_SIZE / 72.0  # label rows
_BAR_ROW = 0.085  # rows of clique bars
_BAR_WIDTH = 3.2  # points
_TICK = 0.06


def _width(text: str, size: float = FONT_SIZE, bold: bool = False) -> float:
    return text_width_in(text, size, bold) if text else 0.0


def _line(size: float) -> float:
    return 1.25 * size / 72.0


def _wrap(parts: list[str], sep: str, width: float, size: float) -> list[str]:
    """Greedy wrap of ``parts`` joined by ``sep`` into lines at most ``width`` inches wide."""
    return wrap_parts(parts, sep, width, lambda text: _width(text, size))


def _get(result: Any, name: str) -> Any:
    if not hasattr(result, name):
        raise PlotError(
            f"cd_diagram needs a RankTest (ranger_eval.aggregate.rank_test); "
            f"{type(result).__name__} has no {name!r}"
        )
    return getattr(result, name)


def _number(value: float, decimals: int) -> str:
    return f"{value:.{decimals}f}".replace("-", MINUS)


def _pvalue(p: float) -> str:
    if p == 0:  # the survival function underflowed: p is below the smallest double
        return "p < 10⁻³⁰⁰"
    return format_pvalue(p, 2, "unicode", prefix="p = ").replace("-", MINUS)


def _pack(spans: list[tuple[float, float]], gap: float) -> list[int]:
    """Row of every interval: the first row where it does not touch an interval already there."""
    ends: list[float] = []
    rows = []
    for lo, hi in spans:
        for r, end in enumerate(ends):
            if lo > end + gap:
                ends[r] = hi
                rows.append(r)
                break
        else:
            ends.append(hi)
            rows.append(len(ends) - 1)
    return rows


def cd_diagram(
    rank_test: Any,
    *,
    title: str | None = None,
    width: float | None = None,
    reverse: bool = False,
    labels: Mapping[str, str] | None = None,
    decimals: int = 2,
    footer: bool = True,
) -> Figure:
    """The critical-difference diagram of a :class:`~ranger_eval.aggregate.ranktests.RankTest`.

    Parameters
    ----------
    rank_test
        Result of :func:`ranger_eval.aggregate.rank_test` (its ``average_ranks``,
        ``critical_difference``, ``cliques``, ``posthoc``, ``alpha``, ``n_datasets``,
        ``n_systems``, ``control`` and ``signature`` are drawn; nothing is recomputed).
    title
        Bold title above the diagram (none by default).
    width
        Figure width in inches; default: enough for the labels and about 0.3 in per rank
        (3 to 7 in of axis). Too narrow for the labels is a :class:`~ranger_eval.errors.PlotError`
        saying the least width that fits.
    reverse
        Put rank 1 (best) at the right end of the axis.
    labels
        Display names ``{system: label}`` (drawn literally); systems not listed keep their name.
    decimals
        Decimals of the average ranks and of the CD (2).
    footer
        Print what the bars mean, the Friedman test and the signature under the diagram.
    """
    ranks = _get(rank_test, "average_ranks")
    cd = _get(rank_test, "critical_difference")
    cliques = _get(rank_test, "cliques")
    if not isinstance(ranks, pd.Series) or ranks.empty:
        raise PlotError(f"rank_test.average_ranks must be a non-empty pandas Series; got {ranks!r}")
    names = [str(n) for n in ranks.index]
    values = ranks.to_numpy(dtype=float)
    k = len(names)
    if k < 2:
        raise PlotError(f"a CD diagram needs at least 2 systems; got {names}")
    if len(set(names)) != k:
        raise PlotError(f"rank_test.average_ranks has duplicate systems: {names}")
    bad = ~np.isfinite(values) | (values < 1 - 1e-9) | (values > k + 1e-9)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise PlotError(
            f"average rank of system {names[i]!r} must be between 1 and {k}; got {values[i]!r}"
        )
    if cd is not None:
        if not (isinstance(cd, Real) and math.isfinite(float(cd)) and float(cd) > 0):
            raise PlotError(f"rank_test.critical_difference must be None or > 0; got {cd!r}")
        cd = float(cd)
    known = set(names)
    for clique in cliques:
        unknown = [s for s in clique if str(s) not in known]
        if unknown:
            raise PlotError(f"clique {tuple(clique)!r} names unknown system(s) {unknown}")
    if width is not None and not (isinstance(width, Real) and width > 0):
        raise PlotError(f"width must be a positive number of inches; got {width!r}")
    if not isinstance(decimals, int) or isinstance(decimals, bool) or not 0 <= decimals <= 6:
        raise PlotError(f"decimals must be an integer from 0 to 6; got {decimals!r}")
    labels = dict(labels or {})
    unknown_labels = [s for s in labels if s not in known]
    if unknown_labels:
        raise PlotError(f"labels names unknown system(s) {unknown_labels}; systems: {names}")
    posthoc = str(getattr(rank_test, "posthoc", "") or "")
    control = getattr(rank_test, "control", None)
    alpha = getattr(rank_test, "alpha", None)

    # ---- sides and rows: the half of the axis nearer rank 1 (or k) hangs to that side
    pos = np.asarray(values if not reverse else (k + 1) - values)  # 1 = left end
    order = np.argsort(pos, kind="stable")
    n_left = math.ceil(k / 2)
    left = [int(i) for i in order[:n_left]]  # leftmost first: top row
    right = [int(i) for i in order[n_left:][::-1]]  # rightmost first: top row
    text = {}
    for i in left:
        text[i] = f"{labels.get(names[i], names[i])}  {_number(values[i], decimals)}"
    for i in right:
        text[i] = f"{_number(values[i], decimals)}  {labels.get(names[i], names[i])}"
    bold = {names.index(control)} if control in known else set()
    left_w = max(_width(text[i], bold=i in bold) for i in left)
    right_w = max((_width(text[i], bold=i in bold) for i in right), default=0.0)

    # ---- widths: labels | stub | axis | stub | labels
    tick_w = _width(str(k), TICK_SIZE)
    side_left = _MARGIN + left_w + _GAP + _STUB
    side_right = _STUB + _GAP + right_w + _MARGIN
    min_axis = max(1.2, (k - 1) * 0.6 * tick_w + tick_w)
    if width is None:
        axis_w = min(7.0, max(3.0, 0.3 * (k - 1)))
        fig_w = side_left + axis_w + side_right
    else:
        fig_w = float(width)
        axis_w = fig_w - side_left - side_right
        if axis_w < min_axis:
            need = side_left + side_right + min_axis
            raise PlotError(
                f"width={width!r} in is too narrow for these labels: a width of at least "
                f"{need:.2f} in is needed"
            )
    x0 = side_left

    def x_of(rank: float) -> float:
        p = rank if not reverse else (k + 1) - rank
        return x0 + (p - 1) / (k - 1) * axis_w

    # ---- clique bars (and the Bonferroni–Dunn band), packed into rows
    pad = 0.05
    spans = []
    for clique in cliques:
        xs = [x_of(values[names.index(str(s))]) for s in clique]
        spans.append((min(xs) - pad, max(xs) + pad))
    bar_rows = _pack(spans, 0.06)
    n_bar_rows = max(bar_rows, default=-1) + 1
    band = None
    if posthoc == "bonferroni-dunn" and cd is not None and control in known:
        rc = values[names.index(control)]
        lo, hi = max(1.0, rc - cd), min(float(k), rc + cd)
        band = (min(x_of(lo), x_of(hi)), max(x_of(lo), x_of(hi)))
        n_bar_rows += 1

    # ---- footer lines
    foot: list[tuple[str, float]] = []
    avail_w = fig_w - 2 * _MARGIN
    if footer:
        what = _POSTHOC_NAMES.get(posthoc, posthoc or "post-hoc test")
        nb = "\u00a0"  # no-break space: "α = 0.05" and "X ± CD" stay on one line
        alpha_txt = f", α{nb}={nb}{alpha:g}" if isinstance(alpha, Real) else ""
        n_data = getattr(rank_test, "n_datasets", None)
        ctrl = labels.get(control, control) if control in known else None
        if posthoc == "bonferroni-dunn" and ctrl is not None:
            meaning = (f"Bars join systems whose average ranks differ by less than the CD "
                       f"({what}{alpha_txt}); systems outside the red interval {ctrl}{nb}±{nb}CD "
                       f"differ significantly from the control {ctrl}.")
        elif posthoc == "holm" and ctrl is not None:
            meaning = (f"Bars join systems with no significant difference among them ({what} "
                       f"against the control {ctrl}{alpha_txt}; other pairs are not tested).")
        else:
            meaning = f"Bars join systems not significantly different ({what}{alpha_txt})."
        parts = meaning.split(" ")
        stat, p = getattr(rank_test, "statistic", None), getattr(rank_test, "pvalue", None)
        line2 = f"Average ranks over N = {n_data} datasets" if n_data is not None else ""
        if isinstance(stat, (int, float)) and isinstance(p, (int, float)):
            line2 += (("; " if line2 else "") + f"Friedman χ²({k - 1}) = "
                      f"{_number(float(stat), 2)}, {_pvalue(float(p))}")
        for ln in _wrap(parts, " ", avail_w, FONT_SIZE - 0.5):
            foot.append((ln, FONT_SIZE - 0.5))
        if line2:
            for ln in _wrap((line2 + ".").split(" "), " ", avail_w, FONT_SIZE - 0.5):
                foot.append((ln, FONT_SIZE - 0.5))
        sig = getattr(rank_test, "signature", None)
        if sig:
            fields = str(sig).split("|")
            for ln in _wrap([f + "|" for f in fields[:-1]] + fields[-1:], "", avail_w,
                            SMALL_SIZE):
                foot.append((ln, SMALL_SIZE))
    title_lines = _wrap(title.split(" "), " ", avail_w, FONT_SIZE + 1.5) if title else []

    # ---- vertical layout (inches from the top)
    y = _MARGIN
    title_y = []
    for _ in title_lines:
        title_y.append(y)
        y += _line(FONT_SIZE + 1.5)
    if title_lines:
        y += 0.08
    cd_y = None
    if cd is not None:
        cd_y = y + _line(FONT_SIZE)  # baseline of the "CD = " text; bar just under it
        y = cd_y + 0.12
    tick_label_y = y + _line(TICK_SIZE)
    axis_y = tick_label_y + 0.05 + _TICK
    bars_top = axis_y + 0.13
    first_row = bars_top + n_bar_rows * _BAR_ROW + (0.06 if n_bar_rows else 0.0) + 0.5 * _ROW
    n_rows = max(len(left), len(right))
    last_row = first_row + (n_rows - 1) * _ROW
    y = last_row + 0.5 * _ROW + 0.12
    foot_y = []
    for _, size in foot:
        foot_y.append(y)
        y += _line(size)
    fig_h = y + _MARGIN - 0.05

    with mpl.rc_context(FIGURE_RC):
        fig = Figure(figsize=(fig_w, fig_h), dpi=100, facecolor="white")
        ax = fig.add_axes((0, 0, 1, 1))
        ax.set_xlim(0, fig_w)
        ax.set_ylim(fig_h, 0)  # inches from the top
        ax.set_axis_off()

        def put(x: float, yy: float, s: str, *, size: float = FONT_SIZE, ha: str = "left",
                va: str = "baseline", b: bool = False, color: str = INK,
                gid: str | None = None) -> Text:
            t = ax.text(x, yy, s, fontproperties=font(size, bold=b), ha=ha, va=va, color=color,
                        parse_math=False, usetex=False)
            if gid:
                t.set_gid(gid)
            return t

        def seg(xs: list[float], ys: list[float], lw: float = 0.9, color: str = INK,
                gid: str | None = None, **kw: Any) -> Line2D:
            ln = Line2D(xs, ys, linewidth=lw, color=color, solid_capstyle="butt", **kw)
            if gid:
                ln.set_gid(gid)
            ax.add_line(ln)
            return ln

        for line, yy in zip(title_lines, title_y, strict=True):
            put(_MARGIN, yy, line, size=FONT_SIZE + 1.5, va="top", b=True)

        # axis, ticks and tick labels (every `step`-th integer labelled when crowded)
        seg([x_of(1), x_of(k)], [axis_y, axis_y], lw=1.0, gid="rank-axis")
        spacing = axis_w / (k - 1)
        need = tick_w + 0.06
        # labels 1, s, 2s, …: the closest pair is (1, s), or neighbours when s = 1
        step = next(s for s in (1, 5, 10, 20, 50, 100, 10**9)
                    if max(s - 1, 1) * spacing >= need)
        shown: list[int] = []
        for r in [1, k, *range(step, k, step)]:
            if all(abs(r - c) * spacing >= need for c in shown):
                shown.append(r)
        for r in range(1, k + 1):
            xr = x_of(r)
            seg([xr, xr], [axis_y, axis_y - _TICK], lw=0.8)
            if r in shown:
                put(xr, axis_y - _TICK - 0.04, str(r), size=TICK_SIZE, ha="center")
            if r < k and spacing >= 0.12:
                xh = x_of(r + 0.5)
                seg([xh, xh], [axis_y, axis_y - _TICK / 2], lw=0.6)

        # CD scale bar from the rank-1 end of the axis
        if cd is not None and cd_y is not None:
            length = min(cd, k - 1.0)
            xa, xb = x_of(1), x_of(1 + length)
            bar_y = cd_y + 0.06
            seg([xa, xb], [bar_y, bar_y], lw=1.2, gid="cd-bar")
            for xe in (xa, xb):
                seg([xe, xe], [bar_y - 0.035, bar_y + 0.035], lw=1.0)
            if cd > k - 1.0:  # longer than the axis: an arrow says it goes on
                ax.plot([xb], [bar_y], marker=">" if (xb > xa) else "<", markersize=4,
                        color=INK, linestyle="none")
            put(min(xa, xb), cd_y, f"CD = {_number(cd, decimals)}", ha="left")

        # clique bars
        for (lo, hi), row in zip(spans, bar_rows, strict=True):
            yy = bars_top + row * _BAR_ROW
            seg([lo, hi], [yy, yy], lw=_BAR_WIDTH, gid="clique")
        if band is not None:
            yy = bars_top + (n_bar_rows - 1) * _BAR_ROW
            seg([band[0], band[1]], [yy, yy], lw=_BAR_WIDTH, color=CONTROL_BAND,
                gid="control-band")

        # elbows and labels
        x_left_end = x0 - _STUB
        x_right_end = x_of(k if not reverse else 1) + _STUB
        for side, members in (("left", left), ("right", right)):
            for row, i in enumerate(members):
                yy = first_row + row * _ROW
                xr = x_of(values[i])
                end = x_left_end if side == "left" else x_right_end
                seg([xr, xr, end], [axis_y, yy, yy], lw=0.9, color=ELBOW, gid="elbow")
                put(end - _GAP if side == "left" else end + _GAP, yy, text[i],
                    ha="right" if side == "left" else "left", va="center", b=i in bold,
                    gid="label")

        for (line, size), yy in zip(foot, foot_y, strict=True):
            put(_MARGIN, yy, line, size=size, va="top",
                color=INK if size > SMALL_SIZE else "#595959")
    return fig
