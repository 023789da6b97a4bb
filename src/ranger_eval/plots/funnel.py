"""Funnel plot of a meta-analysis (``MetaResult``), as metafor's ``funnel()``.

Each study is a point at its effect ``yi`` (x) and standard error ``√vi`` (y, inverted: the most
precise studies at the top, 0 at the top edge). The pseudo-confidence region is the triangle
``estimate ± z_(1−α/2)·SE`` for SE from 0 to the largest standard error (Sterne & Egger 2001;
metafor ``funnel.rma`` with ``addtau2 = FALSE``), drawn around the summary estimate, whose vertical
line is drawn too; a dotted line marks 0. Given the result of Egger's regression test
(:func:`ranger_eval.meta.regtest`, predictor ``sei`` or ``vi``), its fitted line
``yi = b₀ + b₁·SE`` (or ``b₁·SE²``) is drawn and its statistic printed.

Asymmetry of the funnel is no proof of publication bias (Sterne et al. 2011, BMJ 343:d4002):
with few studies (< 10) the test has little power, and heterogeneity alone can make a funnel
asymmetric.

Everything is laid out in inches from measured text extents with a fixed font size; the figure
is a plain :class:`matplotlib.figure.Figure` (no pyplot state) and rcParams are only used inside
``rc_context``. The plot computes no statistic: the region is the display of the result's
estimate and level, the Egger line is the regression test's own fit.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import matplotlib as mpl
import numpy as np
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.patches import Polygon, Rectangle
from matplotlib.ticker import FixedLocator, MaxNLocator, NullLocator

from ..effects import z_critical
from ..errors import PlotError, check_level, renamed_keywords
from ..formatting import format_level
from ._axis import axis_heights, check_xlim, scale_exponent
from ._style import (
    FIGURE_RC,
    INK,
    NULL_LINE,
    SUMMARY,
    TAU2_METHOD_NAMES,
    PlotStyle,
    format_number,
    format_pvalue,
    put_text,
    tick_decimals,
)
from ._text import hinted_width as _text_width
from ._text import hinted_wrap as _wrap
from ._text import line_height as _line_height
from ._text import wrap_signature

__all__ = ["FunnelStyle", "funnel_plot"]


_MARGIN = 0.12
_TICK_LEN_PT = 3.0
_TICK_PAD_PT = 2.5
_LABEL_PAD_PT = 4.0
REGION = "#e9edf2"  # fill of the pseudo-confidence funnel
REGION_EDGE = "#8a96a3"
EGGER = "#b35806"  # Egger's regression line (orange, distinct from SUMMARY in greyscale too)

_SAMPLE_W = 0.32  # width in inches of a legend row's sample
_METHOD_NAMES = {"FE": "fixed effect", "EE": "common effect",
                 **{m: f"random effects, {name}" for m, name in TAU2_METHOD_NAMES.items()}}


@dataclass(frozen=True)
class FunnelStyle(PlotStyle):
    """How a funnel plot looks: the fixed font (:class:`ranger_eval.plots.PlotStyle`) and
    ``plot_size``, (width, height) of the plotting area in inches (at least 1.5 × 1.5); the
    figure adds the axis labels, the legend and the footer around it at the fixed font size."""

    plot_size: tuple[float, float] = (3.6, 3.0)

    def __post_init__(self) -> None:
        super().__post_init__()
        pw, ph = (float(v) for v in self.plot_size)
        if not (pw >= 1.5 and ph >= 1.5):
            raise PlotError(f"plot_size must be at least 1.5 × 1.5 inches, got {self.plot_size!r}")


@dataclass(frozen=True)
class _Ranges:
    """The axes of a funnel plot: y from 0 (top) to ``y_bottom`` (at or just below the largest
    standard error) with ticks ``yt``; x from ``lo`` to ``hi`` with ticks ``xt``; the base of the
    pseudo-confidence region at ``y_bottom``."""

    y_bottom: float
    yt: np.ndarray
    lo: float
    hi: float
    xt: np.ndarray
    base: tuple[float, float]


@dataclass(frozen=True)
class _Layout:
    """Where a funnel plot's parts go, in inches from the figure's bottom left."""

    size: tuple[float, float]
    left: float  # left edge of the axes
    y_ax_bot: float
    y_leg_top: float
    legend_h: float
    leg_lh: float
    foot_lh: float
    title_lines: tuple[str, ...]
    sig_lines: tuple[str, ...]


_RENAMED = {
    "plot_size": "style=FunnelStyle(plot_size=...)",
    "fontsize": "style=FunnelStyle(fontsize=...)",
    "fontfamily": "style=FunnelStyle(fontfamily=...)",
}


def _nice_ticks(lo: float, hi: float, n: int) -> np.ndarray:
    return np.asarray(MaxNLocator(nbins=n, steps=[1, 2, 2.5, 5, 10]).tick_values(lo, hi))


@renamed_keywords(**_RENAMED)
def funnel_plot(
    result: Any,
    *,
    regtest: Any = None,
    level: float | None = None,
    show_null: bool = True,
    title: str | None = None,
    xlabel: str | None = None,
    ylabel: str = "Standard error",
    xlim: tuple[float, float] | None = None,
    style: FunnelStyle | None = None,
) -> Figure:
    """Funnel plot of a fitted intercept-only meta-analysis ``result`` (a ``MetaResult``).

    Parameters
    ----------
    regtest : a :class:`ranger_eval.meta.RegTestResult` of the same data (``regtest(result)``):
        its regression line is drawn (predictors ``sei`` and ``vi`` of a model without moderators)
        and its test printed under the plot.
    level : level of the pseudo-confidence region (default the result's level).
    show_null : dotted vertical line at 0 (when inside the x range).
    xlabel : default the effect measure (``result.measure``; "Effect" when unknown).
    xlim : fixed x range; default covers the studies and the funnel's base, plus 10% per side.
    style : the look (:class:`FunnelStyle`: font and the size of the plotting area).

    Returns
    -------
    matplotlib.figure.Figure
        The funnel plot, not registered with pyplot; save it with
        :func:`ranger_eval.plots.save_figure`.

    Raises
    ------
    PlotError
        A meta-regression (funnel plots are of intercept-only models), non-finite effects or
        variances, or a ``regtest`` of another number of studies.

    References
    ----------
    Sterne, J. A. C. & Egger, M. (2001). Funnel plots for detecting bias in meta-analysis. Journal of
    Clinical Epidemiology 54(10):1046–1055. Egger, M. et al. (1997). Bias in meta-analysis detected
    by a simple, graphical test. BMJ 315:629–634.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import ranger_eval as rg
    >>> result = rg.meta_analysis(yi=[0.12, 0.30, -0.05, 0.22, 0.18],
    ...                           vi=[0.01, 0.02, 0.015, 0.03, 0.012])
    >>> fig = rg.funnel_plot(result, regtest=rg.regtest(result))
    >>> len(fig.axes), fig.axes[0].get_ylabel()
    (1, 'Standard error')
    >>> import matplotlib.pyplot as plt
    >>> plt.close(fig)
    """
    style = FunnelStyle() if style is None else style
    if not isinstance(style, FunnelStyle):
        raise PlotError(f"style must be a FunnelStyle, got {type(style).__name__}")
    yi, vi = _check(result, regtest)
    lvl = check_level(result.level if level is None else level, error=PlotError)
    sei = np.sqrt(vi)
    est = float(result.estimate)
    crit = z_critical(lvl)
    ranges = _ranges(yi, sei, est, crit, xlim, style.plot_size)

    measure = getattr(result, "measure", None)
    if xlabel is None:
        xlabel = "Fisher's z" if (measure or "").upper() == "ZCOR" else (measure or "Effect")
    x_labels, x_note = _tick_labels(ranges.xt, max(abs(ranges.lo), abs(ranges.hi)))
    y_labels, y_note = _tick_labels(ranges.yt, ranges.y_bottom)
    legend, egger_line = _legend(result, regtest, (est, crit, lvl),
                                 show_null and ranges.lo < 0.0 < ranges.hi)
    signature = str(getattr(result, "signature", "") or "")
    lay = _layout(legend, (x_labels, y_labels), title, signature, style)
    with mpl.rc_context(FIGURE_RC):
        fig = Figure(figsize=lay.size, dpi=100, facecolor="white")
        for i, line in enumerate(lay.title_lines):
            put_text(fig, _MARGIN, lay.size[1] - _MARGIN - (i + 0.5) * _line_height(style.fontsize + 1.5),
                     line, style.title)
        ax = _axes(fig, lay, ranges, (x_labels, y_labels),
                   (xlabel + x_note, ylabel + y_note), style)
        _draw_funnel(ax, ranges, est, show_null, egger_line)
        ax.scatter(yi, sei, s=22, marker="o", facecolor=INK, edgecolor="white", linewidths=0.6,
                   zorder=4, clip_on=False, gid="study-points")
        _draw_legend(fig, lay, legend, style)
    return fig


def _check(result: Any, regtest: Any) -> tuple[np.ndarray, np.ndarray]:
    """The effects and variances of an intercept-only ``result`` (and a ``regtest`` of as many
    studies)."""
    if hasattr(result, "coef_names"):
        raise PlotError(
            "funnel_plot draws models without moderators (a MetaResult); for a meta-regression "
            "plot its residuals against their standard errors instead"
        )
    for attr in ("yi", "vi", "estimate", "level", "method"):
        if not hasattr(result, attr):
            raise PlotError(f"funnel_plot needs a MetaResult; the object has no {attr!r}")
    yi = np.asarray(result.yi, dtype=float).ravel()
    vi = np.asarray(result.vi, dtype=float).ravel()
    k = yi.size
    if k == 0 or vi.shape != yi.shape:
        raise PlotError(f"funnel_plot: result has {yi.size} effects and {vi.size} variances")
    if not (np.all(np.isfinite(yi)) and np.all(np.isfinite(vi)) and np.all(vi > 0)):
        raise PlotError("funnel_plot: effects must be finite and variances finite and > 0")
    if regtest is not None:
        for attr in ("statistic", "pvalue", "predictor", "k", "limit_estimate", "slope"):
            if not hasattr(regtest, attr):
                raise PlotError(f"regtest must be a RegTestResult; the object has no {attr!r}")
        if int(regtest.k) != k:
            raise PlotError(f"regtest is of {regtest.k} studies but the result has {k}")
    return yi, vi


def _ranges(yi: np.ndarray, sei: np.ndarray, est: float, crit: float,
            xlim: tuple[float, float] | None, plot_size: tuple[float, float]) -> _Ranges:
    """The axes' ranges and ticks: y from 0 to a tick at or just below the largest standard
    error; x (metafor) the studies and the funnel's base plus 10% per side, or ``xlim``."""
    pw, ph = (float(v) for v in plot_size)
    se_max = float(sei.max())
    yt = _nice_ticks(0.0, se_max, max(3, min(6, int(ph / 0.5))))
    y_bottom = float(yt[yt >= se_max * (1 - 1e-12)][0]) if np.any(yt >= se_max * (1 - 1e-12)) \
        else se_max
    if y_bottom > 1.25 * se_max:
        y_bottom = se_max * 1.05
    yt = yt[(yt >= 0) & (yt <= y_bottom * (1 + 1e-12))]

    base_lo, base_hi = est - crit * y_bottom, est + crit * y_bottom
    if xlim is not None:
        lo, hi = check_xlim(xlim)
    else:
        lo, hi = min(base_lo, float(yi.min())), max(base_hi, float(yi.max()))
        pad = 0.1 * (hi - lo)
        lo, hi = lo - pad, hi + pad
    xt = _nice_ticks(lo, hi, max(3, min(7, int(pw / 0.6))))
    xt = xt[(xt >= lo - 1e-12 * (hi - lo)) & (xt <= hi + 1e-12 * (hi - lo))]
    return _Ranges(y_bottom, yt, lo, hi, xt, (base_lo, base_hi))


def _legend(result: Any, regtest: Any, region: tuple[float, float, float], show_null: bool
            ) -> tuple[list[tuple[str, str]], tuple[float, float, str] | None]:
    """The legend's rows (kind, text) — studies, summary, the ``region`` = (estimate, critical
    value, level), the regression test, the null line — and the Egger line (b₀, b₁, predictor)
    when the test has one."""
    est, crit, lvl = region
    k = np.asarray(result.yi).size
    method = str(result.method).upper()
    legend: list[tuple[str, str]] = [  # (kind, text)
        ("point", f"Study (k = {k})"),
        ("summary", f"Summary estimate {format_number(est, _decimals(est))} "
                    f"({_METHOD_NAMES.get(method, method)})"),
        ("region", f"{format_level(lvl)} pseudo-confidence region, estimate ± {crit:.2f} × SE"),
    ]
    egger_line = None
    if regtest is not None:
        name = "z" if regtest.df is None else f"t({int(regtest.df)})"
        model = "Egger's regression test" if regtest.model == "rma" else "Egger's test (weighted lm)"
        txt = (f"{model}: {name} = {format_number(float(regtest.statistic), 2, min_sig=1)}, "
               f"{format_pvalue(float(regtest.pvalue))}")
        if regtest.limit_estimate is not None and regtest.predictor in ("sei", "vi"):
            b0, b1 = float(regtest.limit_estimate), float(regtest.slope)
            egger_line = (b0, b1, regtest.predictor)
            lim = format_number(b0, _decimals(b0))
            legend.append(("egger", f"{txt}; limit estimate {lim}"))
        else:
            legend.append(("text", txt))
    if show_null:
        legend.append(("null", "No effect (0)"))
    return legend, egger_line


def _layout(legend: list[tuple[str, str]], tick_labels: tuple[list[str], list[str]],
            title: str | None, signature: str, style: FunnelStyle) -> _Layout:
    """The figure around the plotting area of ``style.plot_size``: the y tick labels and label
    at the left; title above; tick labels, x label, legend and signature below."""
    fontsize = style.fontsize
    f_small, f_title = style.small, style.title
    x_labels, y_labels = tick_labels
    pw, ph = (float(v) for v in style.plot_size)
    tick_h, xlabel_h = axis_heights(fontsize)
    ytick_w = max(_text_width(s, f_small) for s in y_labels) + (_TICK_LEN_PT + _TICK_PAD_PT) / 72
    ylabel_w = _LABEL_PAD_PT / 72 + _line_height(fontsize)
    left = _MARGIN + ylabel_w + ytick_w
    legend_w = max(_SAMPLE_W + 0.08 + _text_width(t, f_small) for _, t in legend)
    fig_w = max(left + pw + 0.25, 2 * _MARGIN + legend_w)
    avail = fig_w - 2 * _MARGIN
    # x tick labels may overhang the axes at the right end
    fig_w = max(fig_w, left + pw + _text_width(x_labels[-1], f_small) / 2 + _MARGIN)
    sig_lines = wrap_signature(signature, avail, f_small, _wrap) if signature else []
    title_lines = _wrap(title.split(" "), " ", avail, f_title) if title else []
    leg_lh = _line_height(fontsize - 0.5) * 1.25
    foot_lh = _line_height(fontsize - 0.5) * 1.1
    title_h = len(title_lines) * _line_height(fontsize + 1.5) + 0.08 if title_lines else 0.0
    top_pad = 0.10  # room for the half of a marker at SE = 0 and the top tick label
    legend_h = 0.12 + len(legend) * leg_lh
    sig_h = (0.06 + len(sig_lines) * foot_lh) if sig_lines else 0.0
    fig_h = _MARGIN + title_h + top_pad + ph + tick_h + xlabel_h + legend_h + sig_h + _MARGIN
    fig_h = math.ceil(fig_h * 300 - 1e-6) / 300

    y_ax_top = fig_h - _MARGIN - title_h - top_pad
    y_ax_bot = y_ax_top - ph
    return _Layout(size=(fig_w, fig_h), left=left, y_ax_bot=y_ax_bot,
                   y_leg_top=y_ax_bot - tick_h - xlabel_h - 0.12, legend_h=legend_h, leg_lh=leg_lh,
                   foot_lh=foot_lh, title_lines=tuple(title_lines), sig_lines=tuple(sig_lines))


def _axes(fig: Figure, lay: _Layout, ranges: _Ranges, tick_labels: tuple[list[str], list[str]],
          labels: tuple[str, str], style: FunnelStyle) -> Axes:
    """The plotting area: x the effect, y the standard error inverted (0 at the top)."""
    fig_w, fig_h = lay.size
    pw, ph = (float(v) for v in style.plot_size)
    f_small = style.small
    ax = fig.add_axes((lay.left / fig_w, lay.y_ax_bot / fig_h, pw / fig_w, ph / fig_h))
    ax.set_xlim(ranges.lo, ranges.hi)
    ax.set_ylim(ranges.y_bottom, 0.0)  # inverted: SE = 0 at the top
    ax.set_facecolor("white")
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)
    for side in ("left", "bottom"):
        ax.spines[side].set_linewidth(0.8)
        ax.spines[side].set_color(INK)
    ax.xaxis.set_major_locator(FixedLocator(ranges.xt))  # type: ignore[arg-type]
    ax.yaxis.set_major_locator(FixedLocator(ranges.yt))  # type: ignore[arg-type]
    ax.xaxis.set_minor_locator(NullLocator())
    ax.yaxis.set_minor_locator(NullLocator())
    ax.set_xticks(ranges.xt, tick_labels[0], fontproperties=f_small, parse_math=False)
    ax.set_yticks(ranges.yt, tick_labels[1], fontproperties=f_small, parse_math=False)
    ax.tick_params(axis="both", direction="out", length=_TICK_LEN_PT, width=0.8,
                   pad=_TICK_PAD_PT, colors=INK)
    ax.set_xlabel(labels[0], fontproperties=style.body, labelpad=_LABEL_PAD_PT, color=INK,
                  parse_math=False)
    ax.set_ylabel(labels[1], fontproperties=style.body, labelpad=_LABEL_PAD_PT, color=INK,
                  parse_math=False)
    return ax


def _draw_funnel(ax: Axes, ranges: _Ranges, est: float, show_null: bool,
                 egger_line: tuple[float, float, str] | None) -> None:
    """The pseudo-confidence region (a triangle from the apex (estimate, 0) to the base at the
    bottom), the summary line, the null line and the Egger line."""
    y_bottom = ranges.y_bottom
    base_lo, base_hi = ranges.base
    ax.add_patch(Polygon([(base_lo, y_bottom), (est, 0.0), (base_hi, y_bottom)], closed=True,
                         facecolor=REGION, edgecolor="none", zorder=0, gid="funnel-region"))
    for x_end in (base_lo, base_hi):
        ax.plot([est, x_end], [0.0, y_bottom], color=REGION_EDGE, lw=0.8, ls=(0, (4, 2)),
                zorder=1)
    ax.plot([est, est], [0.0, y_bottom], color=SUMMARY, lw=1.2, zorder=2, gid="summary-line")
    if show_null and ranges.lo < 0.0 < ranges.hi:
        ax.axvline(0.0, color=NULL_LINE, lw=0.9, ls=(0, (1, 1.6)), zorder=1)
    if egger_line is not None:
        b0, b1, pred = egger_line
        se_grid = np.linspace(0.0, y_bottom, 200)
        x_line = b0 + b1 * (se_grid if pred == "sei" else se_grid**2)
        ax.plot(x_line, se_grid, color=EGGER, lw=1.2, ls=(0, (6, 2)), zorder=3,
                gid="egger-line")


def _draw_legend(fig: Figure, lay: _Layout, legend: list[tuple[str, str]],
                 style: FunnelStyle) -> None:
    """Legend rows (a drawn sample and its text) and the signature under them."""
    T = fig.dpi_scale_trans
    leg_lh = lay.leg_lh
    for i, (kind, text) in enumerate(legend):
        yy = lay.y_leg_top - (i + 0.5) * leg_lh
        x0, x1 = _MARGIN, _MARGIN + _SAMPLE_W
        if kind == "point":
            fig.add_artist(Line2D([(x0 + x1) / 2], [yy], transform=T, ls="none", marker="o",
                                  markersize=4.7, markerfacecolor=INK,
                                  markeredgecolor="white", markeredgewidth=0.6))
        elif kind == "summary":
            fig.add_artist(Line2D([x0, x1], [yy, yy], transform=T, color=SUMMARY, lw=1.2))
        elif kind == "region":
            h = 0.6 * leg_lh
            fig.add_artist(Rectangle((x0, yy - h / 2), _SAMPLE_W, h, transform=T,
                                     facecolor=REGION, edgecolor=REGION_EDGE, lw=0.8,
                                     ls=(0, (4, 2))))
        elif kind == "egger":
            fig.add_artist(Line2D([x0, x1], [yy, yy], transform=T, color=EGGER, lw=1.2,
                                  ls=(0, (6, 2))))
        elif kind == "null":
            fig.add_artist(Line2D([x0, x1], [yy, yy], transform=T, color=NULL_LINE, lw=0.9,
                                  ls=(0, (1, 1.6))))
        put_text(fig, x1 + 0.08, yy, text, style.small)
    y_sig = lay.y_leg_top - lay.legend_h + 0.12 - 0.06
    for i, line in enumerate(lay.sig_lines):
        put_text(fig, _MARGIN, y_sig - (i + 0.5) * lay.foot_lh, line, style.small)


def _tick_labels(ticks: np.ndarray, magnitude: float) -> tuple[list[str], str]:
    """Tick labels, in units of 10^e (stated in the axis label) for very small or large scales."""
    exponent, note = scale_exponent(magnitude)
    scaled = ticks / 10.0**exponent
    d = tick_decimals(scaled)
    return [format_number(t, d, min_sig=1) for t in scaled], note


def _decimals(value: float) -> int:
    """Two decimals, more for small values so two significant digits show (at most 4)."""
    a = abs(value)
    if a == 0 or a >= 0.1:
        return 2
    return int(min(4, 1 - math.floor(math.log10(a))))
