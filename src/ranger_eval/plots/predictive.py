"""Held-out predictive check (Søgaard 2013, Figures 2–3) as a figure: mean absolute error against k.

One line per estimator (macro-average, micro-average, fixed effect, random effects, Gumbel): at each
number k of estimation datasets, the mean over the random splits (``n_resamples``) of the absolute
error of the estimator's prediction of the mean effect on the held-out datasets, with error bars of
±1 standard error (SD/√n_resamples). Points of different estimators are dodged horizontally (at most 4 pt apart, and
within half the gap to the next k) so that their error bars do not hide each other; the legend
sits to the right of the axes, outside the data. The k axis is logarithmic when the largest k is 8
or more times the smallest; tick labels that would touch are left out. Nothing is computed here:
every number comes from :class:`~ranger_eval.aggregate.crossdataset.PredictiveCheck`
(``to_frame()``).
"""
from __future__ import annotations

import math
import re
from typing import Any

import matplotlib as mpl
import numpy as np
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.ticker import MaxNLocator, NullLocator
from matplotlib.transforms import ScaledTranslation

from ..errors import PlotError
from ._style import FIGURE_RC, FONT_SIZE, INK, MINUS, font, text_width_in, tick_decimals

__all__ = ["predictive_plot", "COLOURS", "MARKERS"]

#: Okabe–Ito colours (distinguishable with colour-vision deficiencies); the baseline in grey.
COLOURS: dict[str, str] = {
    "macro": "#595959", "micro": "#E69F00", "fixed": "#0072B2", "random": "#009E73",
    "gumbel": "#D55E00",
}
MARKERS: dict[str, str] = {"macro": "o", "micro": "s", "fixed": "D", "random": "^", "gumbel": "v"}
_LABELS = {
    "macro": "macro-average", "micro": "micro-average (size-weighted)", "fixed": "fixed effect",
    "random": "random effects", "gumbel": "Gumbel (Søgaard 2013)",
}
_EFFECT_NAMES = {"error_reduction": "error reduction", "MD": "mean difference",
                 "SMD": "standardised mean difference"}
_MARGIN = 0.12
_SMALL = FONT_SIZE - 2.0
_NOTE = FONT_SIZE - 1.0
_DODGE_PT = 4.0


def _line_h(size: float) -> float:
    return 1.3 * size / 72.0


def _wrap(words: list[str], sep: str, width: float, size: float) -> list[str]:
    """Greedy wrap of ``words`` joined by ``sep`` into lines no wider than ``width`` inches."""
    lines: list[str] = []
    cur = ""
    for w in words:
        trial = w if not cur else cur + sep + w
        if cur and text_width_in(trial, size) > width:
            lines.append(cur)
            cur = w
        else:
            cur = trial
    if cur:
        lines.append(cur)
    return lines


def _thin_labels(labels: list[str], pos: list[float], size: float, gap: float = 0.06) -> list[str]:
    """Blank tick labels (at ``pos`` inches) that would come within ``gap`` inches of the last kept
    one; the last label is kept and, if needed, the one before it is blanked instead."""
    half = [text_width_in(t, size) / 2 for t in labels]
    keep = [False] * len(labels)
    last = None
    for i in range(len(labels)):
        if last is None or pos[i] - half[i] >= pos[last] + half[last] + gap:
            keep[i] = True
            last = i
    n = len(labels) - 1
    if n > 0 and not keep[n]:
        keep[n] = True
        j = n - 1
        while j > 0:  # blank the kept labels the last one reaches (blanks skipped)
            if keep[j]:
                if pos[n] - half[n] >= pos[j] + half[j] + gap:
                    break
                keep[j] = False
            j -= 1
    return [t if k else "" for t, k in zip(labels, keep, strict=True)]


def predictive_plot(
    result: Any,
    *,
    title: str | None = None,
    estimators: Any = None,
    axes_size: tuple[float, float] = (3.9, 2.7),
) -> Figure:
    """Mean absolute error of each estimator against k, from a ``PredictiveCheck``.

    ``estimators`` selects and orders the lines (default: all five). ``title`` replaces the default
    heading ("Predicting the effect on held-out datasets"). ``axes_size`` is the data area in
    inches; the figure grows around it for the legend, labels and footer. Returns a matplotlib
    Figure; rcParams are only changed inside ``rc_context``.
    """
    table = getattr(result, "table", None)
    if table is None or not {"k", "estimator", "mae", "se"} <= set(table.columns):
        raise PlotError(
            f"predictive_plot needs a PredictiveCheck result; got {type(result).__name__}")
    present = list(dict.fromkeys(table["estimator"]))
    chosen = present if estimators is None else [str(e) for e in estimators]
    unknown = [e for e in chosen if e not in present]
    if unknown or not chosen:
        raise PlotError(f"estimators {unknown or chosen} not in the result; choose from {present}")
    ks = [int(k) for k in result.k]
    method = str(getattr(result, "method", ""))
    labels = {e: _LABELS.get(e, e) for e in chosen}
    if "random" in labels and method:
        labels["random"] = f"random effects ({method})"

    t = table.set_index(["estimator", "k"])
    means = {e: np.array([float(t.loc[(e, k), "mae"]) for k in ks]) for e in chosen}
    ses = {e: np.array([float(t.loc[(e, k), "se"]) for k in ks]) for e in chosen}
    top = max(float(np.nanmax(means[e] + np.nan_to_num(ses[e]))) for e in chosen)
    if not np.isfinite(top) or top <= 0:
        top = 1.0
    y_max = 1.1 * top
    locator = MaxNLocator(nbins=5, steps=[1, 2, 2.5, 5, 10])
    y_ticks = [float(v) for v in locator.tick_values(0, y_max) if -1e-12 <= v <= y_max * (1 + 1e-9)]
    dec = tick_decimals(y_ticks)
    y_labels = ["0" if v == 0 else f"{v:.{dec}f}".replace("-", MINUS) for v in y_ticks]

    # ---- horizontal layout (inches)
    ax_w, ax_h = (float(axes_size[0]), float(axes_size[1]))
    tick_w = max(text_width_in(lab, FONT_SIZE - 0.5) for lab in y_labels)
    left = _MARGIN + _line_h(FONT_SIZE) + 0.1 + tick_w + 0.08  # y label, pad, tick labels, ticks
    legend_w = 0.55 + max(text_width_in(labels[e]) for e in chosen)
    fig_w = left + ax_w + 0.25 + legend_w + _MARGIN
    avail = fig_w - 2 * _MARGIN

    # ---- k axis: logarithmic when k spans a factor of 8 or more (small k would crowd); tick
    # labels that would touch their neighbour are left out (the first and last are kept)
    log_x = max(ks) / min(ks) >= 8
    if log_x:
        lo_k, hi_k = math.log(min(ks)), math.log(max(ks))
        pad = 0.06 * (hi_k - lo_k)
        x_lim = (math.exp(lo_k - pad), math.exp(hi_k + pad))
        pos = [(math.log(k) - lo_k + pad) / (hi_k - lo_k + 2 * pad) * ax_w for k in ks]
    else:
        span = float(max(ks) - min(ks)) or 1.0
        pad = 0.06 * span + (0.5 if len(ks) == 1 else 0.0)
        x_lim = (min(ks) - pad, max(ks) + pad)
        pos = [(k - x_lim[0]) / (x_lim[1] - x_lim[0]) * ax_w for k in ks]
    x_labels = _thin_labels([str(k) for k in ks], pos, FONT_SIZE - 0.5)
    m = len(chosen)
    # dodge step (inches): at most 4 pt, and all estimators of one k within half the gap to the next
    min_gap = min((b - a for a, b in zip(pos, pos[1:], strict=False)), default=ax_w)
    dodge = min(_DODGE_PT / 72.0, 0.5 * min_gap / max(m - 1, 1))

    # ---- texts
    effect = str(getattr(result, "effect", "") or "effect")
    what = _EFFECT_NAMES.get(effect, effect)
    treatment, control = getattr(result, "treatment", None), getattr(result, "control", None)
    who = f" of {treatment} over {control}" if treatment is not None and control is not None else ""
    heading = title if title is not None else "Predicting the effect on held-out datasets"
    n_data = len(getattr(result, "names", ()))
    sub = (f"{what[0].upper()}{what[1:]}{who}. For each k, {result.n_resamples} random draws of k "
           f"datasets (of {n_data}); each estimate is compared with the mean effect on "
           f"{result.n_test} other datasets.")
    note = ("Points: mean absolute error over the draws; bars: ±1 standard error (SD/√draws). "
            "Points are shifted slightly sideways so that their bars stay visible.")
    title_lines = _wrap(heading.split(" "), " ", avail, FONT_SIZE + 1.5) if heading else []
    sub_lines = _wrap(sub.split(" "), " ", avail, _NOTE)
    note_lines = _wrap(note.split(" "), " ", avail, _NOTE)
    sig = getattr(result, "signature", None)
    sig_lines: list[str] = []
    if sig:
        fields = str(sig).split("|")
        # a field may be longer than a line (k:2,6,10,… of 50 sizes): break it after commas
        parts = [piece for f in [f + "|" for f in fields[:-1]] + fields[-1:]
                 for piece in re.split(r"(?<=,)", f) if piece]
        sig_lines = _wrap(parts, "", avail, _SMALL)

    # ---- vertical layout (inches from the top)
    y = _MARGIN
    title_y = []
    for _ in title_lines:
        title_y.append(y)
        y += _line_h(FONT_SIZE + 1.5)
    sub_y = []
    for _ in sub_lines:
        sub_y.append(y)
        y += _line_h(_NOTE)
    ax_top = y + 0.15
    ax_bottom = ax_top + ax_h
    y = ax_bottom + 0.55  # tick labels and x label
    note_y = []
    for _ in note_lines:
        note_y.append(y)
        y += _line_h(_NOTE)
    y += 0.04
    sig_y = []
    for _ in sig_lines:
        sig_y.append(y)
        y += _line_h(_SMALL)
    fig_h = y + _MARGIN

    with mpl.rc_context(FIGURE_RC):
        fig = Figure(figsize=(fig_w, fig_h), dpi=100, facecolor="white")
        ax = fig.add_axes((left / fig_w, 1 - ax_bottom / fig_h, ax_w / fig_w, ax_h / fig_h))
        for i, e in enumerate(chosen):
            dx = (i - (m - 1) / 2) * dodge
            trans = ax.transData + ScaledTranslation(dx, 0, fig.dpi_scale_trans)
            colour = COLOURS.get(e, INK)
            style = (0, (4, 2)) if e == "macro" else "-"
            ax.errorbar(ks, means[e], yerr=ses[e], transform=trans, color=colour, linewidth=1.3,
                        linestyle=style, marker=MARKERS.get(e, "o"), markersize=5,
                        markerfacecolor=colour, markeredgecolor="white", markeredgewidth=0.6,
                        elinewidth=0.9, capsize=2.0, zorder=4 if e == "macro" else 3,
                        label=labels[e], gid=f"estimator-{e}")
        if log_x:
            ax.set_xscale("log")
        ax.set_xlim(*x_lim)
        ax.set_ylim(0.0, y_max)
        ax.xaxis.set_minor_locator(NullLocator())
        ax.set_xticks(ks)
        ax.set_xticklabels(x_labels, fontproperties=font(FONT_SIZE - 0.5))
        ax.set_yticks(y_ticks)
        ax.set_yticklabels(y_labels, fontproperties=font(FONT_SIZE - 0.5))
        for side in ("top", "right"):
            ax.spines[side].set_visible(False)
        ax.grid(axis="y", color="#e6e6e6", linewidth=0.6)
        ax.set_axisbelow(True)
        ax.set_xlabel("k (datasets the estimate is computed from)", fontproperties=font())
        ax.set_ylabel("mean absolute error", fontproperties=font())
        # the rotated label lies left of its anchor: its right edge one line-height past the margin
        ax.yaxis.set_label_coords(-(left - _MARGIN - _line_h(FONT_SIZE)) / ax_w, 0.5)
        handles = [Line2D([], [], color=COLOURS.get(e, INK), marker=MARKERS.get(e, "o"),
                          markersize=5, markeredgecolor="white", markeredgewidth=0.6,
                          linestyle=(0, (4, 2)) if e == "macro" else "-", linewidth=1.3)
                   for e in chosen]
        fig.legend(handles, [labels[e] for e in chosen], loc="upper left", frameon=False,
                   prop=font(), bbox_to_anchor=((left + ax_w + 0.25) / fig_w, 1 - ax_top / fig_h),
                   borderaxespad=0.0, handlelength=2.2)
        for ln, yy in zip(title_lines, title_y, strict=True):
            fig.text(_MARGIN / fig_w, 1 - yy / fig_h, ln,
                     fontproperties=font(FONT_SIZE + 1.5, bold=True), va="top", ha="left",
                     color=INK)
        for ln, yy in zip(sub_lines, sub_y, strict=True):
            fig.text(_MARGIN / fig_w, 1 - yy / fig_h, ln, fontproperties=font(_NOTE), va="top",
                     ha="left", color="#333333")
        for ln, yy in zip(note_lines, note_y, strict=True):
            fig.text(_MARGIN / fig_w, 1 - yy / fig_h, ln, fontproperties=font(_NOTE), va="top",
                     ha="left", color="#333333")
        for ln, yy in zip(sig_lines, sig_y, strict=True):
            fig.text(_MARGIN / fig_w, 1 - yy / fig_h, ln, fontproperties=font(_SMALL), va="top",
                     ha="left", color="#666666", gid="signature")
    return fig
