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
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import matplotlib as mpl
import numpy as np
import pandas as pd
from matplotlib.colors import to_rgba
from matplotlib.figure import Figure
from matplotlib.patches import Patch, Rectangle

from ..errors import PlotError, renamed_keywords
from ..formatting import format_correction, format_pvalue
from ._cells import A_BETTER, B_BETTER, CAP, NOT_SIG, cell_colour, draw_cells
from ._page import COMPACT_ROW, MIN_FONT, PAGE_H, PAGE_W, fits_page
from ._style import (
    FIGURE_RC,
    FONT_SIZE,
    INK,
    MINUS,
    add_signature,
    font,
    text_width_in,
)
from ._text import wrap_parts

if TYPE_CHECKING:
    from matplotlib.typing import ColorType

__all__ = ["HeatmapPlan", "comparison_heatmap", "heatmap_plan", "stars"]



@renamed_keywords(alpha="level")
def stars(p: float, *, level: float = 0.95) -> str:
    """``***`` below 0.001, ``**`` below 0.01, ``*`` at or below alpha = 1 - ``level``, else
    ``ns``."""
    alpha = 1.0 - level
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


def _p_line(p: float, level: float) -> str:
    """Second line of a cell: the adjusted p-value and its stars."""
    return f"{_fmt_p(p)} {stars(p, level=level)}"


def _fmt_diff(d: float, decimals: int) -> str:
    text = f"{d:+.{decimals}f}"
    if float(text) == 0:
        text = f"{0:.{decimals}f}"
    return text.replace("-", MINUS)


@dataclass(frozen=True)
class HeatmapPlan:
    """What :func:`comparison_heatmap` draws so that it fits one page: the rows (pairs) and
    columns (dataset × metric) shown, out of how many, whether cells carry their numbers, the
    compact form (7-pt labels, unannotated cells), the sorted pair matrix of a single column
    (:func:`~ranger_eval.plots.matrix.pair_matrix`), and the note saying what changed."""

    pairs: tuple[tuple[str, str], ...]
    cols: tuple[tuple[str, str], ...]
    n_pairs: int
    n_cols: int
    annotate: bool
    compact: bool
    matrix: bool
    note: str


@dataclass(frozen=True)
class _Layout:
    cell_w: float
    cell_h: float
    header_h: float
    rotate: bool
    label_w: float
    top: float
    bottom: float
    fig_w: float
    fig_h: float
    size: float


def _table(comp: Any, datasets: list[str] | None, metrics: list[str] | None) -> Any:
    table = comp.table
    if datasets is not None:
        table = table[table["dataset"].isin(datasets)]
    if metrics is not None:
        table = table[table["metric"].isin(metrics)]
    if table.empty:
        raise PlotError(
            f"heatmap: nothing to show for datasets={datasets!r}, metrics={metrics!r}"
        )
    return table


def _keys(table: Any, first: str, second: str) -> list[tuple[str, str]]:
    """The distinct (first, second) pairs of two columns in table order (columns read once as
    Python lists: iterating Arrow-backed strings value by value is slow)."""
    keys = table[[first, second]].drop_duplicates()
    return list(zip(keys[first].tolist(), keys[second].tolist(), strict=True))


def _col_labels(cols: list[tuple[str, str]]) -> list[str]:
    if len({m for _, m in cols}) == 1:
        return [d for d, _ in cols]
    if len({d for d, _ in cols}) == 1:
        return [m for _, m in cols]
    return [f"{d}\n{m}" for d, m in cols]


def _pair_label_width(pairs: list[tuple[str, str]], size: float) -> float:
    """Width (inches) of the widest "A vs B" row label, bounded from above by the widest A, the
    widest B and " vs " measured apart (each name measured once, not each of k² labels)."""
    if len(pairs) <= 50:
        return max(text_width_in(f"{a} vs {b}", size) for a, b in pairs)
    a_w = max(text_width_in(a, size) for a in {a for a, _ in pairs})
    b_w = max(text_width_in(b, size) for b in {b for _, b in pairs})
    return a_w + text_width_in(" vs ", size) + b_w


def _layout(rows: list[Any], pairs: list[tuple[str, str]], cols: list[tuple[str, str]],
            annotate: bool, decimals: int, level: float, compact: bool = False,
            foot_lines: int = 0) -> _Layout:
    """Inches of the heatmap: cells as narrow as their numbers allow (a table of 20 columns
    still fits a page), headers horizontal when every one fits its cell, else turned 90° (read
    bottom to top) so that neighbouring headers can never collide, however many columns and
    however long the names. ``compact``: 7-pt labels in cells one 7-pt line high."""
    size = MIN_FONT if compact else FONT_SIZE
    col_labels = _col_labels(cols)
    if compact:
        cell_h = COMPACT_ROW
        cell_w = COMPACT_ROW * max(lab.count("\n") + 1 for lab in col_labels)
    else:
        cell_h = 0.46 if annotate else 0.3
        if annotate:
            widest = max(
                max(text_width_in(_fmt_diff(float(r.diff), decimals), FONT_SIZE, bold=True),
                    text_width_in(_p_line(float(r.pvalue_adjusted), level), FONT_SIZE - 1.5))
                for r in rows
            )
            cell_w = max(0.6, widest + 0.16)
        else:
            cell_w = 0.45
    header_w = max(text_width_in(line, size, bold=True)
                   for lab in col_labels for line in lab.split("\n"))
    header_lines = max(lab.count("\n") + 1 for lab in col_labels)
    rotate = compact or header_w > cell_w - 0.1
    header_h = header_w + 0.15 if rotate else 0.18 * header_lines + 0.2
    label_w = _pair_label_width(pairs, size) + 0.3
    top = 0.45 + header_h
    bottom = 1.05 + 0.14 * foot_lines
    fig_w = max(label_w + len(cols) * cell_w + 0.3, 5.5)
    fig_h = top + len(pairs) * cell_h + bottom
    return _Layout(cell_w, cell_h, header_h, rotate, label_w, top, bottom, fig_w, fig_h, size)


def heatmap_plan(comp: Any, *, datasets: list[str] | None = None,
                 metrics: list[str] | None = None, annotate: bool = True,
                 decimals: int = 3) -> HeatmapPlan:
    """How the heatmap of ``comp`` fits one page (:data:`~ranger_eval.plots._page.PAGE_W` ×
    :data:`~ranger_eval.plots._page.PAGE_H`), trying in turn: every cell with its numbers;
    cells without numbers; for a single dataset × metric, the sorted pair matrix (k × k cells
    instead of k(k − 1)/2 rows); the compact form (7-pt labels, one 7-pt line per row), showing
    the first pairs that fit (those significant on the most columns first) and the first
    columns. The plan's ``note`` says what changed ("" when nothing did)."""
    table = _table(comp, datasets, metrics)
    cols = _keys(table, "dataset", "metric")
    pairs = _keys(table, "system_a", "system_b")
    level = comp.level

    def plan(shown_pairs: list[tuple[str, str]], shown_cols: list[tuple[str, str]], *,
             annotated: bool, compact: bool = False, matrix: bool = False,
             note: str = "") -> HeatmapPlan:
        return HeatmapPlan(tuple(shown_pairs), tuple(shown_cols), len(pairs), len(cols),
                           annotated, compact, matrix, note)

    # each layout is measured only when its cells alone (0.46 × 0.6 in with numbers, 0.3 ×
    # 0.45 in without) can fit: measuring thousands of cell texts takes seconds
    if annotate and len(pairs) * 0.46 < PAGE_H and len(cols) * 0.6 < PAGE_W:
        rows = list(table.itertuples(index=False))
        lay = _layout(rows, pairs, cols, True, decimals, level)
        if fits_page(lay.fig_w, lay.fig_h):
            return plan(pairs, cols, annotated=True)
    bare = (f"{len(pairs):,} pairs × {len(cols):,} dataset × metric columns: cells without "
            "their numbers (they are in comparison.csv).") if annotate else ""
    if len(pairs) * 0.3 < PAGE_H and len(cols) * 0.45 < PAGE_W:
        lay = _layout([], pairs, cols, False, decimals, level)
        if fits_page(lay.fig_w, lay.fig_h):
            return plan(pairs, cols, annotated=False, note=bare)
    if len(cols) == 1:
        return plan(pairs, cols, annotated=False, matrix=True, note=(
            f"{len(pairs):,} pairs of one dataset × metric: drawn as a sorted matrix of the "
            f"systems instead of one row per pair."))
    # compact: as many rows and columns as fit, pairs significant on the most columns first
    counts = table.groupby(["system_a", "system_b"], sort=False, observed=True)[
        "significant"].sum()
    n_sig = dict(zip(zip(*(counts.index.get_level_values(i).tolist() for i in (0, 1)),
                         strict=True), counts.tolist(), strict=True))
    ranked = sorted(pairs, key=lambda ab: -n_sig[ab])  # stable: table order among ties
    lay = _layout([], pairs, cols, False, decimals, level, compact=True, foot_lines=3)
    n_r = max(1, min(len(pairs), int((PAGE_H - lay.top - lay.bottom) / lay.cell_h)))
    n_c = max(1, min(len(cols), int((PAGE_W - lay.label_w - 0.3) / lay.cell_w)))
    shown = ranked[:n_r] if n_r < len(pairs) else pairs
    what = [f"the {n_r:,} of {len(pairs):,} pairs significant on the most columns"
            if n_r < len(pairs) else "",
            f"the first {n_c:,} of {len(cols):,} columns" if n_c < len(cols) else ""]
    note = (f"{len(pairs):,} pairs × {len(cols):,} dataset × metric columns do not fit one "
            "page: cells without their numbers"
            + ("; showing " + " and ".join(w for w in what if w) if any(what) else "")
            + ". Every cell is in comparison.csv.")
    return plan(shown, cols[:n_c], annotated=False, compact=True, note=note)


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

    ``datasets``/``metrics`` restrict the columns. The figure fits one page: when every cell
    with its numbers would not, it is drawn as :func:`heatmap_plan` says (cells without
    numbers, the sorted pair matrix of a single column, or the first pairs and columns in a
    compact form) and its footer says so. Returns a matplotlib Figure; rcParams are only
    changed inside ``rc_context``.
    """
    the_plan = heatmap_plan(comp, datasets=datasets, metrics=metrics, annotate=annotate,
                            decimals=decimals)
    table = _table(comp, datasets, metrics)
    if the_plan.matrix:
        from .matrix import pair_matrix

        (dataset, metric), = the_plan.cols
        return pair_matrix(comp, dataset, metric, title=title, note=the_plan.note,
                           decimals=decimals)
    return _draw(comp, table, the_plan, decimals=decimals, title=title)


def _foot_lines(plan: HeatmapPlan, legend: str, width: float) -> list[str]:
    """The footer under the legend: the plan's note (wrapped to ``width`` inches) and the
    legend's explanation."""
    lines = (wrap_parts(plan.note.split(" "), " ", width, lambda t: text_width_in(t, FONT_SIZE - 1.5))
             if plan.note else [])
    return lines + legend.split("\n")


def _draw(comp: Any, table: Any, plan: HeatmapPlan, *, decimals: int,
          title: str | None) -> Figure:
    """Draw the cells, labels, legend and footer of a planned heatmap."""
    cols, pairs = list(plan.cols), list(plan.pairs)
    n_r, n_c = len(pairs), len(cols)
    level = comp.level
    annotate = plan.annotate
    col_labels = _col_labels(cols)
    one_metric = len({m for _, m in cols}) == 1
    row_labels = [f"{a} vs {b}" for a, b in pairs]
    if plan.n_pairs > n_r or plan.n_cols > n_c:  # only the rows of the cells shown
        keep = (pd.MultiIndex.from_arrays([table["system_a"], table["system_b"]]).isin(pairs)
                & pd.MultiIndex.from_arrays([table["dataset"], table["metric"]]).isin(cols))
        table = table[keep]
    index = {
        (r.system_a, r.system_b, r.dataset, r.metric): r for r in table.itertuples(index=False)
    }
    shown_rows = list(index.values())
    legend = (f"colour strength: |effect size| (capped at {CAP})\nadjusted p-values "
              f"({format_correction(comp.correction)}): *** < 0.001, ** < 0.01, * ≤ α = {1.0 - level:g}")
    base = _layout(shown_rows, pairs, cols, annotate, decimals, level, plan.compact)
    foot = _foot_lines(plan, legend, max(base.fig_w, 5.5) - 0.3)
    lay = _layout(shown_rows, pairs, cols, annotate, decimals, level, plan.compact,
                  foot_lines=len(foot) - 2)
    cell_w, cell_h, fig_w, fig_h = lay.cell_w, lay.cell_h, lay.fig_w, lay.fig_h
    label_w, bottom, size = lay.label_w, lay.bottom, lay.size
    with mpl.rc_context(FIGURE_RC):
        fig = Figure(figsize=(fig_w, fig_h), dpi=100, facecolor="white")
        ax = fig.add_axes((label_w / fig_w, bottom / fig_h, n_c * cell_w / fig_w, n_r * cell_h / fig_h))
        ax.set_xlim(0, n_c)
        ax.set_ylim(n_r, 0)
        colours = np.ones((n_r, n_c, 4))
        for i, (a, b) in enumerate(pairs):
            for j, (d, m) in enumerate(cols):
                r = index.get((a, b, d, m))
                if r is None:
                    if not plan.compact:
                        ax.add_patch(Rectangle((j, i), 1, 1, facecolor="white", edgecolor="white"))
                        ax.text(j + 0.5, i + 0.5, "–", ha="center", va="center",
                                fontproperties=font(), color="#999999")
                    continue
                sig = bool(r.significant) and r.diff != 0
                colour: ColorType = cell_colour(float(r.diff), float(r.effect_size), sig)
                if plan.compact:
                    colours[i, j] = to_rgba(colour)
                    continue
                ax.add_patch(Rectangle((j, i), 1, 1, facecolor=colour, edgecolor="white", linewidth=1.5))
                if annotate:
                    txt_colour = "white" if _luminance(colour) < 0.4 else INK
                    ax.text(j + 0.5, i + 0.34, _fmt_diff(float(r.diff), decimals), ha="center",
                            va="center", fontproperties=font(FONT_SIZE, bold=sig), color=txt_colour)
                    ax.text(j + 0.5, i + 0.72, _p_line(float(r.pvalue_adjusted), level),
                            ha="center", va="center", fontproperties=font(FONT_SIZE - 1.5),
                            color=txt_colour)
        if plan.compact:
            draw_cells(ax, colours, 0.6)
        ax.set_xticks(np.arange(n_c) + 0.5)
        ax.xaxis.tick_top()
        if lay.rotate:
            ax.set_xticklabels(col_labels, fontproperties=font(size, bold=True), rotation=90,
                               ha="center", va="bottom", multialignment="left")
        else:
            ax.set_xticklabels(col_labels, fontproperties=font(bold=True))
        ax.set_yticks(np.arange(n_r) + 0.5)
        ax.set_yticklabels(row_labels, fontproperties=font(size))
        ax.tick_params(length=0, pad=2 if plan.compact else 3.5)
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
        fig.legend(handles=handles, loc="lower left",
                   bbox_to_anchor=(0.12 / fig_w, (0.45 + 0.14 * (len(foot) - 2)) / fig_h),
                   ncol=3, frameon=False, prop=font(FONT_SIZE - 1))
        fig.text(0.12 / fig_w, 0.1 / fig_h, "\n".join(foot),
                 fontproperties=font(FONT_SIZE - 1.5), color="#444444", va="bottom", ha="left")
    add_signature(fig, comp.signature)
    return fig
