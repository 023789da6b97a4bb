"""Heatmap table of a comparison: pairs × (dataset, metric), colour = direction and significance.

After the IBM multi-metric framework's significance heatmap (Ackerman et al. 2025): one row per
compared pair "A vs B", one column per dataset × metric. A significant pair is coloured blue when
A scores higher and red when B does, with the colour's strength growing with the absolute effect
size (capped at 1.2, Sawilowsky's "very large"); a non-significant pair is light grey; a pair not
compared on that column is white with a dash. Each cell shows the difference A − B and the
adjusted p-value with stars (*** < 0.001, ** < 0.01, * < alpha, ns otherwise).
"""
from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import matplotlib as mpl
import numpy as np
from matplotlib.colors import LinearSegmentedColormap, Normalize
from matplotlib.figure import Figure
from matplotlib.patches import Patch, Rectangle

from ..errors import PlotError
from ..formatting import format_correction, format_pvalue
from ._style import FIGURE_RC, FONT_SIZE, INK, MINUS, add_signature, font, text_width_in

if TYPE_CHECKING:
    from matplotlib.typing import ColorType

__all__ = ["comparison_heatmap", "stars"]

A_BETTER = "#2166ac"
B_BETTER = "#b2182b"
NOT_SIG = "#e6e6e6"
CAP = 1.2
_CMAP = LinearSegmentedColormap.from_list(
    "ranger_diverging", [B_BETTER, "#f4a582", "#f7f7f7", "#92c5de", A_BETTER]
)


def stars(p: float, alpha: float = 0.05) -> str:
    """``***`` below 0.001, ``**`` below 0.01, ``*`` at or below alpha, else ``ns``."""
    if math.isnan(p):
        return ""
    if p < 0.001 and p <= alpha:
        return "***"
    if p < 0.01 and p <= alpha:
        return "**"
    if p <= alpha:
        return "*"
    return "ns"


def _luminance(colour: ColorType) -> float:
    """WCAG relative luminance of a colour (0 = black, 1 = white), to pick readable text."""
    from matplotlib.colors import to_rgb

    c = np.array(to_rgb(colour))
    lin = np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)
    return float(0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2])


def _fmt_p(p: float) -> str:
    return format_pvalue(p, 2, "unicode", prefix="p=")


def _p_line(p: float, alpha: float) -> str:
    """Second line of a cell: the adjusted p-value and its stars."""
    return f"{_fmt_p(p)} {stars(p, alpha)}"


def _fmt_diff(d: float, decimals: int) -> str:
    text = f"{d:+.{decimals}f}"
    if float(text) == 0:
        text = f"{0:.{decimals}f}"
    return text.replace("-", MINUS)


def comparison_heatmap(
    comp: Any,
    *,
    datasets: list[str] | None = None,
    metrics: list[str] | None = None,
    annotate: bool = True,
    decimals: int = 3,
    title: str | None = None,
) -> Figure:
    """Heatmap of every compared pair (rows) on every dataset × metric (columns).

    ``datasets``/``metrics`` restrict the columns. Returns a matplotlib Figure; rcParams are
    only changed inside ``rc_context``.
    """
    table = comp.table
    if datasets is not None:
        table = table[table["dataset"].isin(datasets)]
    if metrics is not None:
        table = table[table["metric"].isin(metrics)]
    if table.empty:
        raise PlotError(
            f"heatmap: nothing to show for datasets={datasets!r}, metrics={metrics!r}"
        )
    cols = list(dict.fromkeys(zip(table["dataset"], table["metric"], strict=True)))
    pairs = list(dict.fromkeys(zip(table["system_a"], table["system_b"], strict=True)))
    n_r, n_c = len(pairs), len(cols)
    alpha = comp.alpha
    one_metric = len({m for _, m in cols}) == 1
    one_dataset = len({d for d, _ in cols}) == 1
    if one_metric:
        col_labels = [d for d, _ in cols]
    elif one_dataset:
        col_labels = [m for _, m in cols]
    else:
        col_labels = [f"{d}\n{m}" for d, m in cols]
    row_labels = [f"{a} vs {b}" for a, b in pairs]

    index = {
        (r.system_a, r.system_b, r.dataset, r.metric): r for r in table.itertuples(index=False)
    }
    # cells as narrow as their numbers allow (a table of 20 columns still fits a page), headers
    # horizontal when every one fits its cell, else turned 90° (read bottom to top) so that
    # neighbouring headers can never collide, however many columns and however long the names
    cell_h = 0.46 if annotate else 0.3
    if annotate:
        widest = max(
            max(text_width_in(_fmt_diff(float(r.diff), decimals), FONT_SIZE, bold=True),
                text_width_in(_p_line(float(r.pvalue_adjusted), alpha), FONT_SIZE - 1.5))
            for r in index.values()
        )
        cell_w = max(0.6, widest + 0.16)
    else:
        cell_w = 0.45
    header_w = max(text_width_in(line, bold=True) for lab in col_labels for line in lab.split("\n"))
    header_lines = max(lab.count("\n") + 1 for lab in col_labels)
    rotate = header_w > cell_w - 0.1
    if rotate:
        header_h = header_w + 0.15
    else:
        header_h = 0.18 * header_lines + 0.2
    label_w = max(text_width_in(s) for s in row_labels) + 0.3
    top = 0.45 + header_h
    bottom = 1.05
    fig_w = max(label_w + n_c * cell_w + 0.3, 5.5)
    fig_h = top + n_r * cell_h + bottom
    norm = Normalize(-CAP, CAP)
    with mpl.rc_context(FIGURE_RC):
        fig = Figure(figsize=(fig_w, fig_h), dpi=100, facecolor="white")
        ax = fig.add_axes((label_w / fig_w, bottom / fig_h, n_c * cell_w / fig_w, n_r * cell_h / fig_h))
        ax.set_xlim(0, n_c)
        ax.set_ylim(n_r, 0)
        for i, (a, b) in enumerate(pairs):
            for j, (d, m) in enumerate(cols):
                r = index.get((a, b, d, m))
                if r is None:
                    ax.add_patch(Rectangle((j, i), 1, 1, facecolor="white", edgecolor="white"))
                    ax.text(j + 0.5, i + 0.5, "–", ha="center", va="center",
                            fontproperties=font(), color="#999999")
                    continue
                sig = bool(r.significant) and r.diff != 0
                colour: ColorType
                if sig:
                    es = float(r.effect_size) if np.isfinite(r.effect_size) else math.copysign(CAP, r.effect_size)
                    mag = min(max(abs(es), 0.25), CAP)  # a significant cell is never near-white
                    colour = _CMAP(norm(math.copysign(mag, r.diff)))
                else:
                    colour = NOT_SIG
                ax.add_patch(Rectangle((j, i), 1, 1, facecolor=colour, edgecolor="white", linewidth=1.5))
                if annotate:
                    txt_colour = "white" if _luminance(colour) < 0.4 else INK
                    ax.text(j + 0.5, i + 0.34, _fmt_diff(float(r.diff), decimals), ha="center",
                            va="center", fontproperties=font(FONT_SIZE, bold=sig), color=txt_colour)
                    ax.text(j + 0.5, i + 0.72, _p_line(float(r.pvalue_adjusted), alpha),
                            ha="center", va="center", fontproperties=font(FONT_SIZE - 1.5),
                            color=txt_colour)
        ax.set_xticks(np.arange(n_c) + 0.5)
        ax.xaxis.tick_top()
        if rotate:
            ax.set_xticklabels(col_labels, fontproperties=font(bold=True), rotation=90,
                               ha="center", va="bottom", multialignment="left")
        else:
            ax.set_xticklabels(col_labels, fontproperties=font(bold=True))
        ax.set_yticks(np.arange(n_r) + 0.5)
        ax.set_yticklabels(row_labels, fontproperties=font())
        ax.tick_params(length=0)
        for s in ax.spines.values():
            s.set_visible(False)
        head = title if title is not None else (
            "Pairwise differences (A − B)" + (f", {cols[0][1]}" if one_metric else "")
        )
        fig.text(0.12 / fig_w, 1 - 0.12 / fig_h, head, fontproperties=font(FONT_SIZE + 2, bold=True),
                 va="top", ha="left")
        handles = [
            Patch(facecolor=A_BETTER, label="A significantly higher"),
            Patch(facecolor=B_BETTER, label="B significantly higher"),
            Patch(facecolor=NOT_SIG, label="not significant"),
        ]
        fig.legend(handles=handles, loc="lower left", bbox_to_anchor=(0.12 / fig_w, 0.45 / fig_h),
                   ncol=3, frameon=False, prop=font(FONT_SIZE - 1))
        fig.text(0.12 / fig_w, 0.1 / fig_h,
                 f"colour strength: |effect size| (capped at {CAP})\nadjusted p-values "
                 f"({format_correction(comp.correction)}): *** < 0.001, ** < 0.01, * ≤ α = {alpha:g}",
                 fontproperties=font(FONT_SIZE - 1.5), color="#444444", va="bottom", ha="left")
    add_signature(fig, comp.signature)
    return fig
