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

Above :data:`PWPP_MAX_PAIRS` compared pairs (45, every pair of 10 systems, as many as the ten
colours of tab10 that tell the better system apart) the segments cross too many rows to be
followed (1,225 of them over 50 rows at 50 systems), and the plot keeps emmeans' rows, means
and p axis but drops the segments: each pair is its two end dots, one in each system's row at
the pair's p-value, blue in the row of the higher system and red in the lower one's (the
heatmap's colours). A row then reads as that system against all the others: blue dots right
of α are the systems it beats significantly, red ones those that beat it; a column right of
the panel counts each row's pairs with p ≤ α (dots pile up at p = 1 and at the edge), and the
note under the title counts the pairs with p ≤ α.
"""
from __future__ import annotations

from typing import Any

import matplotlib as mpl
import numpy as np
from matplotlib.colors import to_rgba
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.patches import Patch
from matplotlib.transforms import ScaledTranslation
from scipy.special import ndtr

from ..formatting import format_correction
from ._cells import A_BETTER, B_BETTER
from ._page import COMPACT_ROW, MIN_FONT, PAGE_H, PAGE_W
from ._style import FIGURE_RC, FONT_SIZE, INK, add_signature, font, text_width_in
from ._text import wrap_parts
from .graph import _group

__all__ = ["pvalue_plot", "pval_transform", "P_TICKS", "P_MIN", "PWPP_MAX_PAIRS"]

P_MIN = 5e-5
#: Most compared pairs drawn as emmeans' segments; beyond, each pair is its two end dots.
PWPP_MAX_PAIRS = 45
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

    Parameters
    ----------
    p : array_like
        P-values.

    Returns
    -------
    numpy.ndarray
        The transformed values, same shape as ``p``.

    References
    ----------
    Lenth, R. V. emmeans (R package), the ``pwpp`` p-value scale.

    Examples
    --------
    >>> from ranger_eval.plots import pval_transform
    >>> [round(float(v), 4) for v in pval_transform([1.0, 0.05, 0.001])]
    [1.0, 0.5446, 0.0889]
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
    ``pairs="successive"``) are simply absent. Beyond :data:`PWPP_MAX_PAIRS` compared pairs
    each pair is drawn as its two end dots without the segment (see the module). Returns a matplotlib Figure; rcParams are only
    changed inside ``rc_context``.

    Parameters
    ----------
    comp : Comparison
        The result of :func:`ranger_eval.compare`.
    dataset, metric : str, optional
        The combination (required when the comparison has several).
    adjusted : bool, default True
        Plot the adjusted p-values (False: the raw ones).
    title : str, optional
        Drawn above the plot.
    decimals : int, default 3
        Decimals of the means beside the system names.

    Returns
    -------
    matplotlib.figure.Figure
        One row per system, pairs as segments at their p-value on the scale of
        :func:`pval_transform`.

    Raises
    ------
    PlotError
        Not a comparison, or an unknown or missing ``dataset``/``metric``.

    References
    ----------
    Lenth, R. V. (2024). emmeans: Estimated marginal means, aka least-squares means, R package
    (``pwpp``, the pairwise p-value plot).

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import pandas as pd
    >>> import ranger_eval as rg
    >>> from ranger_eval import plots
    >>> scores = rg.Scores(pd.DataFrame({
    ...     "dataset": "qa", "system": ["a"] * 6 + ["b"] * 6 + ["c"] * 6, "item": list(range(6)) * 3,
    ...     "value": [0.61, 0.72, 0.55, 0.80, 0.67, 0.70, 0.74, 0.81, 0.69, 0.88, 0.79, 0.83,
    ...               0.60, 0.70, 0.58, 0.79, 0.66, 0.69]}))
    >>> comparison = rg.compare(scores, test="paired-t")
    >>> fig = plots.pvalue_plot(comparison)
    >>> len(fig.axes)
    1
    >>> import matplotlib.pyplot as plt
    >>> plt.close(fig)
    """
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
    n_pairs = len(pmat) // 2
    dots = n_pairs > PWPP_MAX_PAIRS
    cmap = mpl.colormaps["tab10"] if k <= 10 else mpl.colormaps["turbo"]
    colours = {n: cmap(i % 10) if k <= 10 else cmap(i / max(k - 1, 1)) for i, n in enumerate(names)}
    if dots:  # rows are read by position, not colour
        colours = {n: to_rgba(INK) for n in names}

    # 9-pt rows while a page holds them (about 50 systems), then 7-pt rows one 7-pt line
    # high, the page growing taller beyond 70 systems rather than its names overlapping
    size = FONT_SIZE if (PAGE_H - 2.2) / max(k, 2) >= 1.3 * FONT_SIZE / 72.0 else MIN_FONT
    name_w = max(text_width_in(n, size) for n in names) + 0.25
    value_w = max(text_width_in(f"{m:.{decimals}f}", size) for m in means) + 0.3
    # with dots, a column right of the panel counts each row's pairs with p <= alpha
    count_w = (max(text_width_in(f"{k - 1}/{k - 1}", size), text_width_in("p ≤ α")) + 0.2
               if dots else 0.0)
    plot_w = max(3.0, min(5.0, PAGE_W - name_w - value_w - count_w - 0.35))  # one page
    fig_w = name_w + value_w + plot_w + count_w + 0.35
    alpha = comp.alpha
    n_sig = sum(v <= alpha for v in pmat.values()) // 2
    note = ((f"{n_pairs:,} compared pairs, too many for segments: each pair is two dots at its "
             "p-value, one in each system's row, blue in the higher system's row, red in the "
             f"lower one's; {n_sig:,} of {n_pairs:,} pairs with p ≤ α; means on the left")
            if dots else
            ("each compared pair: a vertical segment joining the two systems' rows at its "
             "p-value, in the colour of the better system; means on the left")
            ) + ("; p < 0.00005 at the right edge" if any(v < P_MIN for v in pmat.values()) else "")
    note_lines = wrap_parts(note.split(" "), " ", fig_w - 0.3,
                            lambda t: text_width_in(t, FONT_SIZE - 1.5))
    note_h = 0.17  # inches per line of the note under the title
    top, bottom = 0.8 + (len(note_lines) - 1) * note_h, 1.0 if dots else 0.85
    row_h = max(COMPACT_ROW, min(0.42, (PAGE_H - top - bottom) / max(k, 2)))  # 0.42 in: ≤ 22
    fig_h = top + max(k, 2) * row_h + bottom
    with mpl.rc_context(FIGURE_RC):
        fig = Figure(figsize=(fig_w, fig_h), dpi=100, facecolor="white")
        ax = fig.add_axes(((name_w + value_w) / fig_w, bottom / fig_h, plot_w / fig_w,
                           (fig_h - top - bottom) / fig_h))
        x_alpha = float(_x(alpha))
        ax.axvspan(x_alpha, 1.03, color=SIGNIFICANT_SHADE, zorder=0, linewidth=0,
                   gid="significant-region")
        ax.axvline(x_alpha, color="#595959", linestyle=(0, (4, 3)), linewidth=0.9, zorder=1,
                   gid="alpha-line")
        rank = {n: i for i, n in enumerate(names)}
        pairs: list[tuple[str, str]] = sorted(
            {(a, b) if rank[a] < rank[b] else (b, a) for a, b in pmat},
            key=lambda ab: (rank[ab[0]], rank[ab[1]]))
        if dots:
            _draw_dots(ax, pairs, pmat, y_of)
        placed: list[tuple[float, float, float, int]] = []  # x, y low, y high, dodge slot
        for better, worse in [] if dots else sorted(pairs, key=lambda ab: float(_x(pmat[ab]))):
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
        if dots:
            _draw_counts(ax, names, pmat, y_of, alpha, k, size)
        for n, m in zip(names, means, strict=True):
            y = y_of[n]
            ax.annotate(n, xy=(0, y), xycoords=("axes fraction", "data"),
                        xytext=(-(value_w + 0.1) * 72, 0), textcoords="offset points",
                        ha="right", va="center", fontproperties=font(size), color=colours[n])
            ax.annotate(f"{m:.{decimals}f}", xy=(0, y), xycoords=("axes fraction", "data"),
                        xytext=(-0.12 * 72, 0), textcoords="offset points", ha="right",
                        va="center", fontproperties=font(size), color=INK,
                        # boxed while rows are taller than a box (not in 7-pt rows)
                        bbox={"boxstyle": "round,pad=0.2", "facecolor": "white",
                              "edgecolor": "#b3b3b3", "linewidth": 0.6}
                        if size == FONT_SIZE else None)
        adj = (f"{format_correction(comp.correction)}-adjusted p-value"
               if adjusted and comp.correction != "none" else "unadjusted p-value")
        ax.set_xlabel(adj, fontproperties=font())
        head = title if title is not None else f"{dataset} · {metric}: pairwise p-values"
        fig.text(0.12 / fig_w, 1 - 0.15 / fig_h, head, fontproperties=font(FONT_SIZE + 2, bold=True),
                 va="top", ha="left")
        for i, line in enumerate(note_lines):
            fig.text(0.12 / fig_w, 1 - (0.42 + i * note_h) / fig_h, line,
                     fontproperties=font(FONT_SIZE - 1.5), color="#444444", va="top", ha="left")
        handles: list[Any] = [Line2D([], [], color="#595959", linestyle=(0, (4, 3)), linewidth=0.9),
                              Patch(facecolor=SIGNIFICANT_SHADE, edgecolor="none")]
        labels = [f"α = {alpha:g}", "significant (p ≤ α)"]
        if dots:
            handles += [Line2D([], [], linestyle="none", marker="o", color=c, markersize=4)
                        for c in (A_BETTER, B_BETTER)]
            labels += ["row's system higher", "row's system lower"]
        fig.legend(handles, labels, loc="lower right", frameon=False,
                   prop=font(FONT_SIZE - 1), ncol=len(labels),
                   # at most 0.18 in from the bottom: clear of the axis label on a tall page
                   bbox_to_anchor=(1 - 0.1 / fig_w, min(0.02, 0.18 / fig_h)))
    add_signature(fig, comp.signature)
    return fig


def _draw_dots(ax: Any, pairs: list[tuple[str, str]], pmat: dict[tuple[str, str], float],
               y_of: dict[str, int]) -> None:
    """Each pair (better, worse) as two dots at its p-value: blue in the better system's row,
    red in the worse one's; two artists however many pairs (``dots-higher``, ``dots-lower``)."""
    x = _x(np.array([pmat[ab] for ab in pairs], dtype=float))
    for gid, colour, rows in (("dots-higher", A_BETTER, [y_of[a] for a, _ in pairs]),
                              ("dots-lower", B_BETTER, [y_of[b] for _, b in pairs])):
        ax.scatter(x, rows, s=11, color=colour, alpha=0.75, linewidths=0.3, edgecolors="white",
                   zorder=3, gid=gid)


def _draw_counts(ax: Any, names: list[str], pmat: dict[tuple[str, str], float],
                 y_of: dict[str, int], alpha: float, k: int, size: float) -> None:
    """Right of the panel, each row's count of compared pairs with p <= alpha out of its
    compared pairs (the dots piled at p = 1 and at the right edge cannot be counted by eye)."""
    for n in names:
        ps = [v for (a, _), v in pmat.items() if a == n]
        ax.annotate(f"{sum(v <= alpha for v in ps)}/{len(ps)}", xy=(1, y_of[n]),
                    xycoords=("axes fraction", "data"), xytext=(0.1 * 72, 0),
                    textcoords="offset points", ha="left", va="center",
                    fontproperties=font(size), color=INK, gid="row-count")
    ax.annotate("p ≤ α", xy=(1, k - 0.4), xycoords=("axes fraction", "data"),
                xytext=(0.1 * 72, 2), textcoords="offset points", ha="left", va="bottom",
                fontproperties=font(FONT_SIZE - 1), color="#444444")
