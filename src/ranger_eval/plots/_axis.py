"""The effect axis shared by the forest plots (:mod:`.forest`, :mod:`.multiforest`).

What is shown on it (the display scale of the values), its range and ticks, the scale note for
very small or large values, the "Favours …" label, and the marks drawn on it: study whiskers that
end in arrows where the range clips them, and summary diamonds. Nothing here computes a
statistic: the values are the result's own (Fisher's z shown as r through the result's
``transformed()`` view).
"""
from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from numbers import Integral
from typing import Any

import numpy as np
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.markers import MarkerStyle
from matplotlib.patches import Polygon
from matplotlib.path import Path as MplPath
from matplotlib.ticker import FixedLocator, MaxNLocator, NullLocator

from ..errors import PlotError
from ._style import (
    _SUPERSCRIPT,
    INK,
    MINUS,
    NULL_LINE,
    PlotStyle,
    choose_decimals,
    format_number,
    tick_decimals,
)
from ._text import line_height

__all__ = [
    "EffectAxis",
    "Whisker",
    "arrow_marker",
    "axis_heights",
    "auto_xlim",
    "axis_ticks",
    "check_precision",
    "check_xlim",
    "diamond",
    "display_values",
    "effect_axes",
    "effect_axis",
    "effect_decimals",
    "favours_label",
    "scale_exponent",
    "whisker",
]

_TICK_LEN_PT = 3.0
_TICK_PAD_PT = 2.5
_LABEL_PAD_PT = 4.0


def effect_decimals(values: Iterable[float], precision: int | None = None) -> int | None:
    """Decimals of the ``effect [CI]`` column: ``precision`` when given, else chosen so the
    smallest non-zero ``|value|`` keeps two significant digits (2 ≤ decimals ≤ 4); ``None`` means
    scientific notation (all values tiny)."""
    if precision is not None:
        check_precision(precision)
        return int(precision)
    return choose_decimals(values, min_sig=2, min_decimals=2, max_decimals=4)


def check_precision(precision: int | None) -> None:
    """Decimals of a values column: None (chosen from the data) or a non-negative integer."""
    if precision is not None and (not isinstance(precision, Integral) or precision < 0):
        raise PlotError(f"precision must be a non-negative integer, got {precision!r}")


def display_values(
    result: Any, back_transform: bool | None, s_lo: np.ndarray, s_hi: np.ndarray
) -> tuple[dict[str, Any], bool]:
    """Values on the display scale: Fisher's z → r (``tanh``) for ZCOR, taken from the result's own
    ``transformed()`` view when it offers one; otherwise the analysis scale unchanged."""
    vals: dict[str, Any] = {
        "yi": np.asarray(result.yi, dtype=float), "lo": s_lo, "hi": s_hi,
        "est": float(result.estimate), "c_lo": float(result.ci_low), "c_hi": float(result.ci_high),
        "p_lo": float(result.pi_low), "p_hi": float(result.pi_high),
    }
    if back_transform is False or (result.measure or "").upper() != "ZCOR":
        return vals, False
    view = getattr(result, "transformed", None)
    if callable(view):
        t = view()
        if getattr(t, "transform", "tanh") == "identity":
            return vals, False
        vals = {
            "yi": np.asarray(t.yi, dtype=float), "lo": np.asarray(t.yi_ci_low, dtype=float),
            "hi": np.asarray(t.yi_ci_high, dtype=float), "est": float(t.estimate),
            "c_lo": float(t.ci_low), "c_hi": float(t.ci_high), "p_lo": float(t.pi_low),
            "p_hi": float(t.pi_high),
        }
        return vals, True
    if back_transform:
        return {key: (np.tanh(v) if isinstance(v, np.ndarray) else math.tanh(v)) for key, v in vals.items()}, True
    return vals, False


def check_xlim(xlim: tuple[float, float]) -> tuple[float, float]:
    """A fixed x range: two finite numbers with low < high."""
    lo, hi = (float(v) for v in xlim)
    if not (math.isfinite(lo) and math.isfinite(hi) and lo < hi):
        raise PlotError(f"xlim must be two finite numbers with low < high, got {xlim!r}")
    return lo, hi


def auto_xlim(core: np.ndarray, wide: np.ndarray) -> tuple[float, float]:
    """x-range: all point estimates, the summary CI, PI and 0 always; study CIs too, unless they
    reach further than half the core range beyond it *and* clipping them saves more than a quarter
    of the width (those whiskers then end in arrows)."""
    core = core[np.isfinite(core)]
    wide = wide[np.isfinite(wide)]
    c_lo, c_hi = float(core.min()), float(core.max())
    span = c_hi - c_lo
    if span <= 0:
        span = max(float(np.max(np.abs(wide))) if wide.size else 0.0, abs(c_lo), 1.0)
    lo = min(c_lo, float(wide.min()) if wide.size else c_lo)
    hi = max(c_hi, float(wide.max()) if wide.size else c_hi)
    clip_lo, clip_hi = max(lo, c_lo - 0.5 * span), min(hi, c_hi + 0.5 * span)
    if (hi - lo) > 1.3 * (clip_hi - clip_lo):
        lo, hi = clip_lo, clip_hi
    if hi <= lo:  # every value identical (zero-width intervals)
        lo, hi = c_lo - span / 2, c_hi + span / 2
    pad = 0.04 * (hi - lo)
    return lo - pad, hi + pad


def axis_ticks(lo: float, hi: float, plot_width: float, fixed: bool) -> tuple[np.ndarray, float, float]:
    """Ticks of an axis ``plot_width`` inches wide (steps 1, 2, 2.5, 5), and the range: a ``fixed``
    range is kept; otherwise its ends snap to the outer ticks unless that wastes more than 12% of
    the range per side."""
    nbins = max(3, min(8, int(plot_width / 0.55)))
    loc = MaxNLocator(nbins=nbins, steps=[1, 2, 2.5, 5, 10])
    ticks = np.asarray(loc.tick_values(lo, hi), dtype=float)
    if fixed:
        eps = 1e-9 * (hi - lo)
        ticks = ticks[(ticks >= lo - eps) & (ticks <= hi + eps)]
        return ticks, lo, hi
    step = float(ticks[1] - ticks[0])
    ticks = ticks[(ticks > lo - step) & (ticks < hi + step)]
    # snap the axis ends to the outer ticks unless that wastes more than 12% of the range per side
    span = hi - lo
    # never inside the given range: matplotlib's locator may put the outer tick a rounding
    # error inside it (lo = 999.9999999998836 → first tick 1000.0), which would clip the data
    new_lo = min(float(ticks[0]), lo) if lo - ticks[0] <= 0.12 * span else lo
    new_hi = max(float(ticks[-1]), hi) if ticks[-1] - hi <= 0.12 * span else hi
    eps = 1e-9 * span
    ticks = ticks[(ticks >= new_lo - eps) & (ticks <= new_hi + eps)]
    return ticks, new_lo, new_hi


def scale_exponent(magnitude: float) -> tuple[int, str]:
    """Very small or large scales are ticked in units of 10^e (e outside −3…4), stated in the axis
    label: ``(e, " (×10ᵉ)")``, or ``(0, "")``."""
    exponent = math.floor(math.log10(magnitude)) if magnitude > 0 else 0
    if -3 <= exponent <= 4:
        exponent = 0
    note = f" (×10{str(exponent).translate(_SUPERSCRIPT)})".replace("-", MINUS) if exponent else ""
    return exponent, note


def favours_label(axis: str, control: str | None, treatment: str | None,
                  higher_is_better: bool = True) -> str:
    """"Favours <control> ← <axis> → Favours <treatment>" when the control is known (the sides
    swapped when lower values are better: positive effects then favour the control), else ``axis``."""
    if not (control and treatment):
        return axis
    left, right = (control, treatment) if higher_is_better else (treatment, control)
    return f"Favours {left} ← {axis} → Favours {right}"


def arrow_marker(direction: str) -> MarkerStyle:
    """A filled arrowhead whose tip is the marker position (so it ends exactly at the axis edge)."""
    sign = -1.0 if direction == "left" else 1.0
    verts = [(0.0, 0.0), (-sign * 1.0, 0.42), (-sign * 1.0, -0.42), (0.0, 0.0)]
    codes = [MplPath.MOVETO, MplPath.LINETO, MplPath.LINETO, MplPath.CLOSEPOLY]
    return MarkerStyle(MplPath(verts, codes))


def effect_axes(fig: Figure, left: float, width: float, ylim: tuple[float, float],
                xlim: tuple[float, float], ticks: np.ndarray, exponent: int, xlabel: str,
                style: PlotStyle) -> Axes:
    """The plotting area of a forest plot, ``left`` and ``width`` inches across ``fig`` and
    spanning ``ylim`` (data y in inches from the figure bottom, so rows line up with the text); x
    range ``xlim``; only a bottom spine; ``ticks`` labelled in units of ``10^exponent``; a dotted
    null line at 0 when 0 is in range."""
    fig_w, fig_h = (float(v) for v in fig.get_size_inches())
    bottom, top = ylim
    lo, hi = xlim
    ax = fig.add_axes((left / fig_w, bottom / fig_h, width / fig_w, (top - bottom) / fig_h))
    ax.set_xlim(lo, hi)
    ax.set_ylim(bottom, top)
    ax.set_facecolor("none")
    for side in ("left", "right", "top"):
        ax.spines[side].set_visible(False)
    ax.spines["bottom"].set_linewidth(0.8)
    ax.spines["bottom"].set_color(INK)
    ax.yaxis.set_major_locator(NullLocator())
    ax.yaxis.set_minor_locator(NullLocator())
    ax.xaxis.set_major_locator(FixedLocator(ticks))  # type: ignore[arg-type]  # matplotlib-stubs: locs is array-like, not only a Sequence
    ax.xaxis.set_minor_locator(NullLocator())
    scaled = ticks / 10.0**exponent
    td = tick_decimals(scaled)
    ax.set_xticks(ticks, [format_number(t, td, min_sig=1) for t in scaled], fontproperties=style.small,
                  parse_math=False)
    ax.tick_params(axis="x", which="major", direction="out", length=_TICK_LEN_PT, width=0.8,
                   pad=_TICK_PAD_PT, labelsize=style.fontsize - 0.5, colors=INK,
                   labelfontfamily=style.fontfamily, top=False, labeltop=False, bottom=True,
                   labelbottom=True)
    ax.set_xlabel(xlabel, fontproperties=style.body, labelpad=_LABEL_PAD_PT, color=INK,
                  parse_math=False)
    if lo < 0 < hi or lo == 0 or hi == 0:
        ax.axvline(0.0, color=NULL_LINE, lw=0.9, ls=(0, (1, 1.6)), zorder=1)
    return ax


def axis_heights(fontsize: float) -> tuple[float, float]:
    """Heights in inches under an axis at ``fontsize``: the tick marks with their labels, and the
    x label."""
    tick_h = (_TICK_LEN_PT + _TICK_PAD_PT) / 72 + line_height(fontsize - 0.5)
    xlabel_h = _LABEL_PAD_PT / 72 + line_height(fontsize)
    return tick_h, xlabel_h


@dataclass(frozen=True)
class Whisker:
    """How an interval is drawn: colour, line width, the arrowhead size (points) where the axis
    clips it, and the height (inches) of end caps (0: none)."""

    color: str
    lw: float = 1.0
    arrow_size: float = 7.0
    cap_height: float = 0.0


def whisker(ax: Axes, y: float, a: float, b: float, look: Whisker) -> None:
    """The interval [a, b] at height ``y``; an end beyond the axis range becomes an arrowhead at the
    edge, an end inside it gets a cap when ``look.cap_height`` > 0."""
    lo, hi = ax.get_xlim()
    aa, bb = max(a, lo), min(b, hi)
    if bb >= aa:
        ax.plot([aa, bb], [y, y], color=look.color, lw=look.lw, solid_capstyle="butt", zorder=2)
    for end, clipped, direction in ((a, a < lo, "left"), (b, b > hi, "right")):
        if clipped:
            ax.plot([lo if direction == "left" else hi], [y], ls="none",
                    marker=arrow_marker(direction), markersize=look.arrow_size, color=look.color,
                    clip_on=False, zorder=3)
        elif look.cap_height > 0:
            ax.plot([end, end], [y - look.cap_height / 2, y + look.cap_height / 2], color=look.color,
                    lw=look.lw, zorder=2)


def diamond(ax: Axes, y: float, summary: tuple[float, float, float], height: float,
            look: Whisker, gid: str) -> None:
    """The summary diamond of ``summary`` = (estimate, CI low, CI high) at height ``y``, ``height``
    inches tall; a CI end beyond the axis range gets an arrowhead at the edge."""
    lo, hi = ax.get_xlim()
    est, c_lo, c_hi = summary
    ax.add_patch(Polygon([(c_lo, y), (est, y + height / 2), (c_hi, y), (est, y - height / 2)],
                         closed=True, facecolor=look.color, edgecolor=look.color, lw=0.6, zorder=4,
                         gid=gid))
    for clipped, direction in ((c_lo < lo, "left"), (c_hi > hi, "right")):
        if clipped:
            ax.plot([lo if direction == "left" else hi], [y], ls="none",
                    marker=arrow_marker(direction), markersize=look.arrow_size, color=look.color,
                    clip_on=False)


@dataclass(frozen=True)
class EffectAxis:
    """The x axis of a forest plot: its range, the power of ten its ticks are in (0: none), its
    label (with that power stated), and whether the range was given (``xlim``: kept as is) or
    chosen from the values (its ends may snap to the outer ticks)."""

    lo: float
    hi: float
    exponent: int
    label: str
    fixed: bool

    def ticks(self, plot_width: float) -> tuple[np.ndarray, float, float]:
        """:func:`axis_ticks` of this axis ``plot_width`` inches wide: (ticks, low, high)."""
        return axis_ticks(self.lo, self.hi, plot_width, fixed=self.fixed)


def effect_axis(core: np.ndarray, wide: np.ndarray, xlim: tuple[float, float] | None,
                xlabel: str | None, measure_label: str, systems: tuple[str | None, str | None],
                higher_is_better: bool = True) -> EffectAxis:
    """The axis of a forest plot: range ``xlim`` or :func:`auto_xlim` of the ``core`` values (always
    shown) and the ``wide`` ones (study CIs); label ``xlabel`` or "Favours …" of ``systems`` =
    (control, treatment) (:func:`favours_label`), with the scale note of :func:`scale_exponent`."""
    lo, hi = check_xlim(xlim) if xlim is not None else auto_xlim(core, wide)
    exponent, scale_note = scale_exponent(max(abs(lo), abs(hi)))
    if xlabel is None:
        label = favours_label(f"{measure_label}{scale_note}", *systems, higher_is_better)
    else:
        label = f"{xlabel}{scale_note}"
    return EffectAxis(lo, hi, exponent, label, fixed=xlim is not None)
