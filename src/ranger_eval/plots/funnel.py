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
from typing import Any

import matplotlib as mpl
import numpy as np
from matplotlib.figure import Figure
from matplotlib.font_manager import FontProperties
from matplotlib.lines import Line2D
from matplotlib.patches import Polygon, Rectangle
from matplotlib.ticker import FixedLocator, MaxNLocator, NullLocator

from ..effects import z_critical
from ..errors import PlotError, check_level
from ..formatting import format_level
from ._style import (
    _SUPERSCRIPT,
    FIGURE_RC,
    FONT_FAMILY,
    FONT_SIZE,
    INK,
    MINUS,
    NULL_LINE,
    SUMMARY,
    format_number,
    format_pvalue,
    tick_decimals,
)
from ._text import hinted_width as _text_width
from ._text import hinted_wrap as _wrap
from ._text import line_height as _line_height

__all__ = ["funnel_plot"]


_MARGIN = 0.12
_TICK_LEN_PT = 3.0
_TICK_PAD_PT = 2.5
_LABEL_PAD_PT = 4.0
REGION = "#e9edf2"  # fill of the pseudo-confidence funnel
REGION_EDGE = "#8a96a3"
EGGER = "#b35806"  # Egger's regression line (orange, distinct from SUMMARY in greyscale too)

_METHOD_NAMES = {
    "FE": "fixed effect", "EE": "common effect", "DL": "random effects, DerSimonian–Laird",
    "HE": "random effects, Hedges", "HS": "random effects, Hunter–Schmidt",
    "SJ": "random effects, Sidik–Jonkman", "ML": "random effects, ML",
    "REML": "random effects, REML", "EB": "random effects, empirical Bayes",
    "PM": "random effects, Paule–Mandel",
}


def _nice_ticks(lo: float, hi: float, n: int) -> np.ndarray:
    return np.asarray(MaxNLocator(nbins=n, steps=[1, 2, 2.5, 5, 10]).tick_values(lo, hi))


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
    plot_size: tuple[float, float] = (3.6, 3.0),
    fontsize: float = FONT_SIZE,
    fontfamily: str = FONT_FAMILY,
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
    plot_size : (width, height) of the plotting area in inches; the figure adds the axis labels,
        the legend and the footer around it at the fixed font size.

    Returns a :class:`matplotlib.figure.Figure` (not registered with pyplot).
    """
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
    lvl = check_level(result.level if level is None else level, error=PlotError)
    if not fontsize >= 4:
        raise PlotError(f"fontsize must be at least 4 pt, got {fontsize!r}")
    pw, ph = (float(v) for v in plot_size)
    if not (pw >= 1.5 and ph >= 1.5):
        raise PlotError(f"plot_size must be at least 1.5 × 1.5 inches, got {plot_size!r}")
    if regtest is not None:
        for attr in ("statistic", "pvalue", "predictor", "k", "limit_estimate", "slope"):
            if not hasattr(regtest, attr):
                raise PlotError(f"regtest must be a RegTestResult; the object has no {attr!r}")
        if int(regtest.k) != k:
            raise PlotError(f"regtest is of {regtest.k} studies but the result has {k}")

    sei = np.sqrt(vi)
    est = float(result.estimate)
    crit = z_critical(lvl)
    se_max = float(sei.max())

    # ---- y range: 0 at the top, a tick at or just below the largest standard error ---------------
    yt = _nice_ticks(0.0, se_max, max(3, min(6, int(ph / 0.5))))
    y_bottom = float(yt[yt >= se_max * (1 - 1e-12)][0]) if np.any(yt >= se_max * (1 - 1e-12)) \
        else se_max
    if y_bottom > 1.25 * se_max:
        y_bottom = se_max * 1.05
    yt = yt[(yt >= 0) & (yt <= y_bottom * (1 + 1e-12))]

    # ---- x range (metafor: studies and the funnel's base, plus 10% per side) ---------------------
    base_lo, base_hi = est - crit * y_bottom, est + crit * y_bottom
    if xlim is not None:
        lo, hi = (float(v) for v in xlim)
        if not (math.isfinite(lo) and math.isfinite(hi) and lo < hi):
            raise PlotError(f"xlim must be two finite numbers with low < high, got {xlim!r}")
    else:
        lo, hi = min(base_lo, float(yi.min())), max(base_hi, float(yi.max()))
        pad = 0.1 * (hi - lo)
        lo, hi = lo - pad, hi + pad
    xt = _nice_ticks(lo, hi, max(3, min(7, int(pw / 0.6))))
    xt = xt[(xt >= lo - 1e-12 * (hi - lo)) & (xt <= hi + 1e-12 * (hi - lo))]

    # ---- text ---------------------------------------------------------------------------------
    f_body = FontProperties(family=fontfamily, size=fontsize)
    f_small = FontProperties(family=fontfamily, size=fontsize - 0.5)
    f_title = FontProperties(family=fontfamily, size=fontsize + 1.5, weight="bold")
    measure = getattr(result, "measure", None)
    if xlabel is None:
        xlabel = "Fisher's z" if (measure or "").upper() == "ZCOR" else (measure or "Effect")
    x_labels, x_note = _tick_labels(xt, max(abs(lo), abs(hi)))
    y_labels, y_note = _tick_labels(yt, y_bottom)
    xlabel += x_note
    ylabel += y_note

    pct = format_level(lvl)
    method = str(result.method).upper()
    legend: list[tuple[str, str]] = [  # (kind, text)
        ("point", f"Study (k = {k})"),
        ("summary", f"Summary estimate {format_number(est, _decimals(est))} "
                    f"({_METHOD_NAMES.get(method, method)})"),
        ("region", f"{pct} pseudo-confidence region, estimate ± {crit:.2f} × SE"),
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
    if show_null and lo < 0.0 < hi:
        legend.append(("null", "No effect (0)"))
    signature = str(getattr(result, "signature", "") or "")

    # ---- layout in inches ---------------------------------------------------------------------
    tick_h = (_TICK_LEN_PT + _TICK_PAD_PT) / 72 + _line_height(fontsize - 0.5)
    xlabel_h = _LABEL_PAD_PT / 72 + _line_height(fontsize)
    ytick_w = max(_text_width(s, f_small) for s in y_labels) + (_TICK_LEN_PT + _TICK_PAD_PT) / 72
    ylabel_w = _LABEL_PAD_PT / 72 + _line_height(fontsize)
    left = _MARGIN + ylabel_w + ytick_w
    sample_w = 0.32
    legend_w = max(sample_w + 0.08 + _text_width(t, f_small) for _, t in legend)
    fig_w = max(left + pw + 0.25, 2 * _MARGIN + legend_w)
    avail = fig_w - 2 * _MARGIN
    # x tick labels may overhang the axes at the right end
    fig_w = max(fig_w, left + pw + _text_width(x_labels[-1], f_small) / 2 + _MARGIN)
    sig_lines = _wrap([f + "|" for f in signature.split("|")[:-1]] + signature.split("|")[-1:],
                      "", avail, f_small) if signature else []
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
    y_leg_top = y_ax_bot - tick_h - xlabel_h - 0.12

    with mpl.rc_context(FIGURE_RC):
        fig = Figure(figsize=(fig_w, fig_h), dpi=100, facecolor="white")
        T = fig.dpi_scale_trans

        def put(x: float, y: float, s: str, prop: FontProperties, **kw: Any) -> None:
            fig.text(x, y, s, transform=T, fontproperties=prop, va="center", color=INK,
                     parse_math=False, usetex=False, **kw)

        for i, line in enumerate(title_lines):
            put(_MARGIN, fig_h - _MARGIN - (i + 0.5) * _line_height(fontsize + 1.5), line, f_title)

        ax = fig.add_axes((left / fig_w, y_ax_bot / fig_h, pw / fig_w, ph / fig_h))
        ax.set_xlim(lo, hi)
        ax.set_ylim(y_bottom, 0.0)  # inverted: SE = 0 at the top
        ax.set_facecolor("white")
        for side in ("top", "right"):
            ax.spines[side].set_visible(False)
        for side in ("left", "bottom"):
            ax.spines[side].set_linewidth(0.8)
            ax.spines[side].set_color(INK)
        ax.xaxis.set_major_locator(FixedLocator(xt))  # type: ignore[arg-type]
        ax.yaxis.set_major_locator(FixedLocator(yt))  # type: ignore[arg-type]
        ax.xaxis.set_minor_locator(NullLocator())
        ax.yaxis.set_minor_locator(NullLocator())
        ax.set_xticks(xt, x_labels, fontproperties=f_small, parse_math=False)
        ax.set_yticks(yt, y_labels, fontproperties=f_small, parse_math=False)
        ax.tick_params(axis="both", direction="out", length=_TICK_LEN_PT, width=0.8,
                       pad=_TICK_PAD_PT, colors=INK)
        ax.set_xlabel(xlabel, fontproperties=f_body, labelpad=_LABEL_PAD_PT, color=INK,
                      parse_math=False)
        ax.set_ylabel(ylabel, fontproperties=f_body, labelpad=_LABEL_PAD_PT, color=INK,
                      parse_math=False)

        # pseudo-confidence region: a triangle from the apex (estimate, 0) to the base at y_bottom
        ax.add_patch(Polygon([(base_lo, y_bottom), (est, 0.0), (base_hi, y_bottom)], closed=True,
                             facecolor=REGION, edgecolor="none", zorder=0, gid="funnel-region"))
        for x_end in (base_lo, base_hi):
            ax.plot([est, x_end], [0.0, y_bottom], color=REGION_EDGE, lw=0.8, ls=(0, (4, 2)),
                    zorder=1)
        ax.plot([est, est], [0.0, y_bottom], color=SUMMARY, lw=1.2, zorder=2, gid="summary-line")
        if show_null and lo < 0.0 < hi:
            ax.axvline(0.0, color=NULL_LINE, lw=0.9, ls=(0, (1, 1.6)), zorder=1)
        if egger_line is not None:
            b0, b1, pred = egger_line
            se_grid = np.linspace(0.0, y_bottom, 200)
            x_line = b0 + b1 * (se_grid if pred == "sei" else se_grid**2)
            ax.plot(x_line, se_grid, color=EGGER, lw=1.2, ls=(0, (6, 2)), zorder=3,
                    gid="egger-line")
        ax.scatter(yi, sei, s=22, marker="o", facecolor=INK, edgecolor="white", linewidths=0.6,
                   zorder=4, clip_on=False, gid="study-points")

        # legend rows: a drawn sample and its text
        for i, (kind, text) in enumerate(legend):
            yy = y_leg_top - (i + 0.5) * leg_lh
            x0, x1 = _MARGIN, _MARGIN + sample_w
            if kind == "point":
                fig.add_artist(Line2D([(x0 + x1) / 2], [yy], transform=T, ls="none", marker="o",
                                      markersize=4.7, markerfacecolor=INK,
                                      markeredgecolor="white", markeredgewidth=0.6))
            elif kind == "summary":
                fig.add_artist(Line2D([x0, x1], [yy, yy], transform=T, color=SUMMARY, lw=1.2))
            elif kind == "region":
                h = 0.6 * leg_lh
                fig.add_artist(Rectangle((x0, yy - h / 2), sample_w, h, transform=T,
                                         facecolor=REGION, edgecolor=REGION_EDGE, lw=0.8,
                                         ls=(0, (4, 2))))
            elif kind == "egger":
                fig.add_artist(Line2D([x0, x1], [yy, yy], transform=T, color=EGGER, lw=1.2,
                                      ls=(0, (6, 2))))
            elif kind == "null":
                fig.add_artist(Line2D([x0, x1], [yy, yy], transform=T, color=NULL_LINE, lw=0.9,
                                      ls=(0, (1, 1.6))))
            put(x1 + 0.08, yy, text, f_small)
        y_sig = y_leg_top - legend_h + 0.12 - 0.06
        for i, line in enumerate(sig_lines):
            put(_MARGIN, y_sig - (i + 0.5) * foot_lh, line, f_small)
    return fig


def _tick_labels(ticks: np.ndarray, magnitude: float) -> tuple[list[str], str]:
    """Tick labels, in units of 10^e (stated in the axis label) for very small or large scales."""
    exponent = math.floor(math.log10(magnitude)) if magnitude > 0 else 0
    if -3 <= exponent <= 4:
        exponent = 0
    scaled = ticks / 10.0**exponent
    d = tick_decimals(scaled)
    note = f" (×10{str(exponent).translate(_SUPERSCRIPT)})".replace("-", MINUS) if exponent else ""
    return [format_number(t, d, min_sig=1) for t in scaled], note


def _decimals(value: float) -> int:
    """Two decimals, more for small values so two significant digits show (at most 4)."""
    a = abs(value)
    if a == 0 or a >= 0.1:
        return 2
    return int(min(4, 1 - math.floor(math.log10(a))))
