"""Pairwise p-value plot (emmeans' ``pwpp``, Lenth 2024) of one dataset × metric.

Layout of emmeans' ``pwpp``: one row per system on the vertical axis, ordered by its mean (best at
the top), with the means in a column left of the panel; p-values on the horizontal axis. Each
compared pair (i, j) is one vertical segment at its p-value joining the rows of i and j, with a
dot at each end; segment and dots take the colour of the pair's better system (higher mean), so
the segments that leave a row are read off by colour. The region p ≤ α is shaded and bounded by a
dashed line at α (the significance threshold); pairs that were not compared (``pairs="baseline"``
or ``"successive"``) have no segment.

The p axis uses emmeans' scale (``.pval.tran`` in emmeans' ``pwpp.R``): a p-value, clamped to
[5e-5, 1], is placed at 1 − Φ((ln p + 2.5)/3) / Φ(2.5/3), so p = 1 is at the left, small p-values
are stretched to the right without letting extremely small ones run away; ticks at 0.001, 0.01,
0.05, 0.1, 0.5 and 1.
"""
from __future__ import annotations

from typing import Any

import matplotlib as mpl
import numpy as np
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.patches import Patch
from matplotlib.transforms import ScaledTranslation
from scipy.special import ndtr

from ..formatting import format_correction
from ._page import PAGE_H, PAGE_W
from ._style import FIGURE_RC, FONT_SIZE, INK, add_signature, font, text_width_in
from ._text import wrap_parts

__all__ = ["pvalue_plot", "pval_transform", "P_TICKS", "P_MIN"]

P_MIN = 5e-5
P_TICKS = (0.001, 0.01, 0.05, 0.1, 0.5, 1.0)
P_MINOR = (
    *np.round(np.arange(0.002, 0.0095, 0.001), 4),
    *np.round(np.arange(0.02, 0.095, 0.01), 3),
    0.2, 0.3, 0.4, 0.6, 0.7, 0.8, 0.9,
)
SIGNIFICANT_SHADE = "#f0e4e4"  # background of the region p ≤ alpha
_DODGE_X = 0.006  # segments closer than this (axis units) and overlapping in rows are dodged
_DODGE_PT = 3.0
_CENTRE, _SCALE = -2.5, 3.0
_DIV = float(ndtr((0.0 - _CENTRE) / _SCALE))  # Φ(2.5/3), as scipy.stats.norm.cdf computes it


def pval_transform(p: Any) -> np.ndarray:
    """emmeans' p-value scale: Φ((ln p + 2.5)/3) / Φ(2.5/3), p clamped to [5e-5, 1].

    Returns values in (0, 1]; 1 for p = 1. (The plot's x coordinate is 1 minus this.)
    """
    pp = np.clip(np.asarray(p, dtype=float), P_MIN, 1.0)
    return ndtr((np.log(pp) - _CENTRE) / _SCALE) / _DIV


def _x(p: Any) -> np.ndarray:
    return 1.0 - pval_transform(p)


def pvalue_plot(
    comp: Any,
    *,
    dataset: str | None = None,
    metric: str | None = None,
    adjusted: bool = True,
    title: str | None = None,
    decimals: int = 3,
) -> Figure:
    """emmeans-style pairwise p-value plot of a :class:`~ranger_eval.compare.Comparison`.

    ``adjusted=False`` plots the unadjusted p-values. Pairs that were not compared (e.g. with
    ``pairs="successive"``) are simply absent. Returns a matplotlib Figure; rcParams are only
    changed inside ``rc_context``.
    """
    from .graph import _group, _text_width_in

    dataset, metric, rows, means_df = _group(comp, dataset, metric)
    order = np.argsort(-means_df["mean"].to_numpy(dtype=float), kind="stable")
    names = [means_df["system"].iloc[i] for i in order]
    means = means_df["mean"].to_numpy(dtype=float)[order]
    k = len(names)
    y_of = {n: k - 1 - i for i, n in enumerate(names)}  # best on top
    col = "pvalue_adjusted" if adjusted else "pvalue"
    pmat: dict[tuple[str, str], float] = {}
    for r in rows.itertuples(index=False):
        p = float(getattr(r, col))
        a, b = str(r.system_a), str(r.system_b)
        pmat[(a, b)] = p
        pmat[(b, a)] = p
    cmap = mpl.colormaps["tab10"] if k <= 10 else mpl.colormaps["turbo"]
    colours = {n: cmap(i % 10) if k <= 10 else cmap(i / max(k - 1, 1)) for i, n in enumerate(names)}

    name_w = max(_text_width_in(n) for n in names) + 0.25
    value_w = max(_text_width_in(f"{m:.{decimals}f}") for m in means) + 0.3
    plot_w = max(3.0, min(5.0, PAGE_W - name_w - value_w - 0.35))  # one page (plots._page)
    fig_w = name_w + value_w + plot_w + 0.35
    note = ("each compared pair: a vertical segment joining the two systems' rows at its "
            "p-value, in the colour of the better system; means on the left"
            + ("; p < 0.00005 at the right edge" if any(v < P_MIN for v in pmat.values()) else ""))
    note_lines = wrap_parts(note.split(" "), " ", fig_w - 0.3,
                            lambda t: text_width_in(t, FONT_SIZE - 1.5))
    note_h = 0.17  # inches per line of the note under the title
    top, bottom = 0.8 + (len(note_lines) - 1) * note_h, 0.85
    row_h = min(0.42, (PAGE_H - top - bottom) / max(k, 2))  # 0.42 in up to 22 systems
    fig_h = top + max(k, 2) * row_h + bottom
    with mpl.rc_context(FIGURE_RC):
        fig = Figure(figsize=(fig_w, fig_h), dpi=100, facecolor="white")
        ax = fig.add_axes(((name_w + value_w) / fig_w, bottom / fig_h, plot_w / fig_w,
                           (fig_h - top - bottom) / fig_h))
        alpha = comp.alpha
        x_alpha = float(_x(alpha))
        ax.axvspan(x_alpha, 1.03, color=SIGNIFICANT_SHADE, zorder=0, linewidth=0,
                   gid="significant-region")
        ax.axvline(x_alpha, color="#595959", linestyle=(0, (4, 3)), linewidth=0.9, zorder=1,
                   gid="alpha-line")
        rank = {n: i for i, n in enumerate(names)}
        pairs: list[tuple[str, str]] = sorted(
            {(a, b) if rank[a] < rank[b] else (b, a) for a, b in pmat},
            key=lambda ab: (rank[ab[0]], rank[ab[1]]))
        placed: list[tuple[float, float, float, int]] = []  # x, y low, y high, dodge slot
        for better, worse in sorted(pairs, key=lambda ab: float(_x(pmat[ab]))):
            x = float(_x(pmat[(better, worse)]))
            y0, y1 = sorted((y_of[worse], y_of[better]))
            # segments at (nearly) the same p whose rows overlap (Holm-adjusted p = 1 is common)
            # are moved 3 pt apart sideways so that each stays visible
            taken = {slot for px, a, b, slot in placed
                     if abs(px - x) < _DODGE_X and not (b < y0 or a > y1)}
            slot = next(j for j in range(len(placed) + 1) if j not in taken)
            placed.append((x, y0, y1, slot))
            sign = 1.0 if x < 0.5 else -1.0  # towards the middle: never out of the panel
            trans = ax.transData + ScaledTranslation(sign * slot * _DODGE_PT / 72.0, 0,
                                                     fig.dpi_scale_trans)
            c = colours[better]
            ax.plot([x, x], [y_of[better], y_of[worse]], color=c, linewidth=1.3, zorder=2,
                    solid_capstyle="butt", gid=f"pair:{better}|{worse}", transform=trans)
            ax.plot([x, x], [y_of[better], y_of[worse]], linestyle="none", marker="o",
                    markersize=4.5, color=c, markeredgecolor="white", markeredgewidth=0.5,
                    zorder=3, transform=trans)
        ax.set_xlim(-0.03, 1.03)
        ax.set_ylim(-0.6, k - 0.4)
        ax.set_xticks([float(_x(p)) for p in P_TICKS])
        ax.set_xticklabels([f"{p:g}" for p in P_TICKS], fontproperties=font())
        ax.set_xticks([float(_x(p)) for p in P_MINOR], minor=True)
        ax.tick_params(axis="x", which="minor", length=2)
        ax.grid(axis="x", which="major", color="#e0e0e0", linewidth=0.6, zorder=0)
        ax.set_yticks([y_of[n] for n in names])
        ax.set_yticklabels([])
        ax.tick_params(axis="y", length=0)
        for s in ("top", "right", "left"):
            ax.spines[s].set_visible(False)
        for n, m in zip(names, means, strict=True):
            y = y_of[n]
            ax.annotate(n, xy=(0, y), xycoords=("axes fraction", "data"),
                        xytext=(-(value_w + 0.1) * 72, 0), textcoords="offset points",
                        ha="right", va="center", fontproperties=font(), color=colours[n])
            ax.annotate(f"{m:.{decimals}f}", xy=(0, y), xycoords=("axes fraction", "data"),
                        xytext=(-0.12 * 72, 0), textcoords="offset points", ha="right",
                        va="center", fontproperties=font(), color=INK,
                        bbox={"boxstyle": "round,pad=0.2", "facecolor": "white",
                              "edgecolor": "#b3b3b3", "linewidth": 0.6})
        adj = (f"{format_correction(comp.correction)}-adjusted p-value"
               if adjusted and comp.correction != "none" else "unadjusted p-value")
        ax.set_xlabel(adj, fontproperties=font())
        head = title if title is not None else f"{dataset} · {metric}: pairwise p-values"
        fig.text(0.12 / fig_w, 1 - 0.15 / fig_h, head, fontproperties=font(FONT_SIZE + 2, bold=True),
                 va="top", ha="left")
        for i, line in enumerate(note_lines):
            fig.text(0.12 / fig_w, 1 - (0.42 + i * note_h) / fig_h, line,
                     fontproperties=font(FONT_SIZE - 1.5), color="#444444", va="top", ha="left")
        fig.legend([Line2D([], [], color="#595959", linestyle=(0, (4, 3)), linewidth=0.9),
                    Patch(facecolor=SIGNIFICANT_SHADE, edgecolor="none")],
                   [f"α = {alpha:g}", "significant (p ≤ α)"], loc="lower right", frameon=False,
                   prop=font(FONT_SIZE - 1), ncol=2,
                   # at most 0.18 in from the bottom: clear of the axis label on a tall page
                   bbox_to_anchor=(1 - 0.1 / fig_w, min(0.02, 0.18 / fig_h)))
    add_signature(fig, comp.signature)
    return fig
