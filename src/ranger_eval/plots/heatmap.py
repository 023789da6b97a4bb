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
from .matrix import pair_matrix

if TYPE_CHECKING:
    from matplotlib.typing import ColorType

__all__ = ["BLOCK_GAP", "CELL_MAX", "FORMS", "MIN_WIDTH", "HeatmapLayout", "HeatmapPlan",
           "comparison_heatmap", "heatmap_plan", "stars"]



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


#: The forms of a cell, tried in turn until every pair fits one page: (form, font size of the
#: labels and numbers in points, row height in inches). ``two-line``: the difference and, under
#: it, the adjusted p-value with its stars; ``one-line``: the difference with its stars (the
#: p-values are in comparison.csv); ``colour``: the colour alone.
FORMS: tuple[tuple[str, float, float], ...] = (
    ("two-line", FONT_SIZE, 0.46),
    ("one-line", FONT_SIZE, 1.3 * FONT_SIZE / 72.0),
    ("one-line", FONT_SIZE - 1.0, 1.3 * (FONT_SIZE - 1.0) / 72.0),
    ("one-line", MIN_FONT, COMPACT_ROW),
    ("colour", MIN_FONT, COMPACT_ROW),
)
#: Cells widen to fill the canvas up to this width (inches).
CELL_MAX = 2.0
#: Narrowest canvas (inches): the legend's one row of three entries.
MIN_WIDTH = 5.5
#: Room between two blocks of rows set side by side (inches).
BLOCK_GAP = 0.25


@dataclass(frozen=True)
class HeatmapLayout:
    """Inches of a planned heatmap: the form of its cells and their font size, the blocks of
    rows set side by side (like a newspaper's columns) and the rows of each, a cell's width and
    height, the room of the row labels and of the headers (turned 90° when wider than a cell),
    the lines of the note, and the figure's width and height."""

    cells: str
    size: float
    blocks: int
    rows: int
    cell_w: float
    cell_h: float
    label_w: float
    header_h: float
    rotate: bool
    top: float
    bottom: float
    note_lines: tuple[str, ...]
    width: float
    height: float


@dataclass(frozen=True)
class HeatmapPlan:
    """What :func:`comparison_heatmap` draws so that it fits one page: the rows (pairs) and
    columns (dataset × metric) shown, out of how many, whether cells carry numbers, the
    compact form (7-pt labels in rows one 7-pt line high), the sorted pair matrix of a single
    column (:func:`~ranger_eval.plots.matrix.pair_matrix`), the note saying what changed and
    the layout in inches (``None`` for the matrix, which lays itself out)."""

    pairs: tuple[tuple[str, str], ...]
    cols: tuple[tuple[str, str], ...]
    n_pairs: int
    n_cols: int
    annotate: bool
    compact: bool
    matrix: bool
    note: str
    layout: HeatmapLayout | None = None


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
    """Width (inches) of the widest "A vs B" row label: measured whole up to 50 pairs; beyond,
    as the widest sum over the pairs of A's and B's widths plus " vs " (each name measured
    once, not each of k² labels)."""
    if len(pairs) <= 50:
        return max(text_width_in(f"{a} vs {b}", size) for a, b in pairs)
    width = {n: text_width_in(n, size) for n in {n for ab in pairs for n in ab}}
    return max(width[a] + width[b] for a, b in pairs) + text_width_in(" vs ", size)


def _one_line(diff: float, p: float, decimals: int, level: float) -> str:
    """A one-line cell: the difference and, when significant, its stars."""
    s = stars(p, level=level)
    return _fmt_diff(diff, decimals) + (s if s not in ("", "ns") else "")


def _widest(strings: Any, size: float, bold: bool = False) -> float:
    """Width (inches) of the widest of ``strings``: digits have one width, so the 40 longest
    distinct strings are measured, not thousands."""
    longest = sorted(set(strings), key=len, reverse=True)[:40]
    return max((text_width_in(t, size, bold=bold) for t in longest), default=0.0)


class _Measures:
    """The widths a layout needs, each measured once: row labels and headers at a font size,
    and the narrowest cell of each form (its widest number and a margin)."""

    def __init__(self, table: Any, pairs: list[tuple[str, str]], col_labels: list[str],
                 decimals: int, level: float) -> None:
        self.table, self.pairs, self.col_labels = table, pairs, col_labels
        self.decimals, self.level = decimals, level
        self._labels: dict[float, float] = {}
        self._headers: dict[float, float] = {}
        self._cells: dict[tuple[str, float], float] = {}
        self.header_lines = max(lab.count("\n") + 1 for lab in col_labels)

    def label_w(self, size: float) -> float:
        if size not in self._labels:
            self._labels[size] = _pair_label_width(self.pairs, size) + 0.3
        return self._labels[size]

    def header_w(self, size: float) -> float:
        if size not in self._headers:
            self._headers[size] = max(text_width_in(line, size, bold=True)
                                      for lab in self.col_labels for line in lab.split("\n"))
        return self._headers[size]

    def cell_w(self, cells: str, size: float, cell_h: float) -> float:
        key = (cells, size)
        if key not in self._cells:
            diffs = self.table["diff"].to_numpy(dtype=float)
            ps = self.table["pvalue_adjusted"].to_numpy(dtype=float)
            if cells == "two-line":
                widest = max(
                    _widest((_fmt_diff(d, self.decimals) for d in diffs), size, bold=True),
                    _widest((_p_line(p, self.level) for p in ps), size - 1.5))
                width = max(0.6, widest + 0.16)
            elif cells == "one-line":
                width = max(cell_h, _widest(
                    (_one_line(d, p, self.decimals, self.level)
                     for d, p in zip(diffs, ps, strict=True)), size, bold=True) + 0.12)
            else:
                width = cell_h * self.header_lines
            self._cells[key] = width
        return self._cells[key]


def _geometry(m: _Measures, cells: str, size: float, cell_h: float, *, rows: int,
              blocks: int, n_cols: int, note: str, width: float | None = None) -> HeatmapLayout:
    """Inches of a heatmap of ``blocks`` blocks of ``rows`` rows side by side, ``n_cols``
    columns of ``cells`` cells: the canvas is ``width`` (by default the narrowest that holds
    the cells and the legend, :data:`MIN_WIDTH`) and the cells widen to fill it, up to
    :data:`CELL_MAX`, and further (the canvas growing) when the widest header then fits a cell
    on the page; headers stay horizontal when each fits its cell, else they are turned 90°
    (read bottom to top) so that neighbours can never collide."""
    label_w, narrow = m.label_w(size), m.cell_w(cells, size, cell_h)

    def needed(cell_w: float) -> float:
        return blocks * (label_w + n_cols * cell_w) + (blocks - 1) * BLOCK_GAP + 0.3

    canvas = max(needed(narrow), MIN_WIDTH if width is None else width)
    cell_w = max(narrow, min(CELL_MAX, narrow + (canvas - needed(narrow)) / (blocks * n_cols)))
    header_w = m.header_w(size)
    if cell_w < header_w + 0.1 <= CELL_MAX and fits_page(needed(header_w + 0.1), 0.0):
        cell_w = header_w + 0.1  # a wider canvas rather than headers turned 90°
    fig_w = max(needed(cell_w), MIN_WIDTH)
    rotate = header_w > cell_w - 0.1
    header_h = (header_w + 0.15 if rotate
                else (size + 4.0) / 72.0 * m.header_lines + 0.2)
    note_lines = tuple(wrap_parts(note.split(" "), " ", fig_w - 0.3,
                                  lambda t: text_width_in(t, FONT_SIZE - 1.5))) if note else ()
    top = 0.45 + header_h
    bottom = 1.05 + 0.14 * len(note_lines)
    return HeatmapLayout(cells, size, blocks, rows, cell_w, cell_h, label_w, header_h, rotate,
                         top, bottom, note_lines, fig_w, top + rows * cell_h + bottom)


def _note(cells: str, n_pairs: int, n_cols: int, annotate: bool, shown: int | None = None,
          shown_cols: int | None = None) -> str:
    """What the heatmap leaves out: nothing (two-line cells of every pair), the p-values
    (one-line cells), every number (colour cells), or pairs and columns."""
    size = f"{n_pairs:,} pairs × {n_cols:,} dataset × metric columns"
    numbers = {"two-line": "",
               "one-line": "cells give the difference and its stars (the p-values are in "
                           "comparison.csv)",
               "colour": "cells without their numbers" + (
                   "" if shown is not None else " (they are in comparison.csv)")}[cells]
    if shown is None or (shown == n_pairs and shown_cols in (None, n_cols)):
        return f"{size}: {numbers}." if numbers and annotate else ""
    what = []
    if shown < n_pairs:
        what.append(f"the {shown:,} of {n_pairs:,} pairs significant on the most columns "
                    "(then those with the smallest p on their least significant column)")
    if shown_cols is not None and shown_cols < n_cols:
        what.append(f"the first {shown_cols:,} of {n_cols:,} columns")
    return (f"{size} do not fit one page"
            + (f"; {numbers}" if numbers and annotate else "")
            + "; showing " + " and ".join(what) + ". Every cell is in comparison.csv.")


def heatmap_plan(comp: Any, *, datasets: list[str] | None = None,
                 metrics: list[str] | None = None, annotate: bool = True,
                 decimals: int = 3) -> HeatmapPlan:
    """How the heatmap of ``comp`` fits one page (:data:`~ranger_eval.plots._page.PAGE_W` ×
    :data:`~ranger_eval.plots._page.PAGE_H`) and uses its canvas.

    The rule: every pair is shown if any of the :data:`FORMS` fits, tried in order (two-line
    cells, then one-line cells at 9, 8 and 7 pt, then colour cells at 7 pt), each first in one
    block of rows, then in 2, 3, … blocks set side by side while the page's width holds them
    (a single dataset × metric stays in one block). Otherwise a single dataset × metric becomes
    the sorted pair matrix (k × k cells instead of k(k − 1)/2 rows), and several show the pairs
    significant on the most columns, ties broken by the smallest adjusted p on the pair's least
    significant column, in as many blocks of one-line cells (colour cells when numbers do not
    fit the width) as the page holds, the first columns only when even one block is too wide;
    the shown pairs keep the table's order. Cells widen to fill the canvas (at most
    :data:`CELL_MAX` inches). The plan's ``note`` says what changed ("" when nothing did).
    """
    table = _table(comp, datasets, metrics)
    cols = _keys(table, "dataset", "metric")
    pairs = _keys(table, "system_a", "system_b")
    n_p, n_c = len(pairs), len(cols)
    m = _Measures(table, pairs, _col_labels(cols), decimals, comp.level)
    forms = [f for f in FORMS if annotate or f[0] == "colour"]

    def plan(shown: list[tuple[str, str]], shown_cols: list[tuple[str, str]],
             lay: HeatmapLayout | None, note: str) -> HeatmapPlan:
        cells = lay.cells if lay is not None else "colour"
        return HeatmapPlan(tuple(shown), tuple(shown_cols), n_p, n_c, cells != "colour",
                           lay is not None and lay.size == MIN_FONT, lay is None, note, lay)

    for cells, size, cell_h in forms:
        if n_p * cell_h / (1 if n_c == 1 else 6) > PAGE_H:
            continue  # not even six blocks would hold the rows: measure nothing
        last_rows = 0
        for blocks in range(1, n_p + 1):
            rows = -(-n_p // blocks)
            if rows == last_rows:
                continue  # as many rows per block as with one block fewer
            last_rows = rows
            note = _note(cells, n_p, n_c, annotate)
            lay = _geometry(m, cells, size, cell_h, rows=rows, blocks=blocks, n_cols=n_c,
                            note=note)
            if not fits_page(lay.width, 0.0):
                break
            if fits_page(lay.width, lay.height):
                return plan(pairs, cols, lay, note)
            if n_c == 1:
                break
    if n_c == 1:
        return plan(pairs, cols, None, (
            f"{n_p:,} pairs of one dataset × metric: drawn as a sorted matrix of the "
            f"systems instead of one row per pair."))
    return _selection(comp, table, m, pairs, cols, forms[-2:], annotate, plan)


def _selection(comp: Any, table: Any, m: _Measures, pairs: list[tuple[str, str]],
               cols: list[tuple[str, str]], forms: list[tuple[str, float, float]],
               annotate: bool, plan: Any) -> HeatmapPlan:
    """The plan of a heatmap whose pairs do not all fit: the pairs significant on the most
    columns (then the smallest p on their least significant column), in as many blocks of the
    first of ``forms`` (at 7 pt) whose one block fits the page's width, filling the page."""
    n_p, n_c = len(pairs), len(cols)
    grouped = table.groupby(["system_a", "system_b"], sort=False, observed=True)
    n_sig = grouped["significant"].sum()
    worst = grouped["pvalue_adjusted"].max()
    keys = list(zip(*(n_sig.index.get_level_values(i).tolist() for i in (0, 1)), strict=True))
    key = {ab: (-int(s), float(p) if p == p else 2.0)
           for ab, s, p in zip(keys, n_sig.tolist(), worst.tolist(), strict=True)}
    order = sorted(range(n_p), key=lambda i: (*key[pairs[i]], i))
    for cells, size, cell_h in [f for f in forms if f[2] == COMPACT_ROW]:
        block_w = m.label_w(size) + n_c * m.cell_w(cells, size, cell_h)
        blocks = int((PAGE_W - 0.3 + BLOCK_GAP) // (block_w + BLOCK_GAP))
        if blocks < 1:
            continue
        shown, rows = n_p, n_p
        for _ in range(2):  # the note's length depends on the count shown (its digits)
            lay = _geometry(m, cells, size, cell_h, rows=1, blocks=blocks, n_cols=n_c,
                            note=_note(cells, n_p, n_c, annotate, shown), width=PAGE_W)
            rows = max(1, int((PAGE_H - lay.top - lay.bottom) / cell_h + 1e-9))
            shown = min(n_p, blocks * rows)
        note = _note(cells, n_p, n_c, annotate, shown)
        lay = _geometry(m, cells, size, cell_h, rows=rows, blocks=-(-shown // rows),
                        n_cols=n_c, note=note, width=PAGE_W)
        return plan([pairs[i] for i in sorted(order[:shown])], cols, lay, note)
    # not even one block of colour cells fits the width: the first columns that do
    cells, size, cell_h = FORMS[-1]
    narrow = m.cell_w(cells, size, cell_h)
    shown_c = max(1, min(n_c, int((PAGE_W - m.label_w(size) - 0.3) / narrow)))
    rows = n_p
    for _ in range(2):  # the note's length depends on the count shown (its digits)
        lay = _geometry(m, cells, size, cell_h, rows=1, blocks=1, n_cols=shown_c,
                        note=_note(cells, n_p, n_c, annotate, rows, shown_c))
        rows = max(1, min(n_p, int((PAGE_H - lay.top - lay.bottom) / cell_h + 1e-9)))
    note = _note(cells, n_p, n_c, annotate, rows, shown_c)
    lay = _geometry(m, cells, size, cell_h, rows=rows, blocks=1, n_cols=shown_c, note=note)
    return plan([pairs[i] for i in sorted(order[:rows])], cols[:shown_c], lay, note)


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

    ``datasets``/``metrics`` restrict the columns. The figure fits one page and uses its
    width: when every cell with its difference and p-value would not fit, it is drawn as
    :func:`heatmap_plan` says (one-line cells with the difference and its stars, colour cells,
    rows in blocks side by side, the sorted pair matrix of a single column, or the pairs
    significant on the most columns) and its footer says so. Returns a matplotlib Figure; rcParams are only
    changed inside ``rc_context``.

    Parameters
    ----------
    comp : Comparison
        The result of :func:`ranger_eval.compare`.
    datasets, metrics : list of str, optional
        Keep only these columns (default: all).
    annotate : bool, default True
        Write the difference and adjusted p-value in each cell.
    decimals : int, default 3
        Decimals of the differences.
    title : str, optional
        Default "Pairwise differences (A − B)", with the metric when there is one.

    Returns
    -------
    matplotlib.figure.Figure
        Cells coloured by the signed effect size, stars by the adjusted p-value.

    Raises
    ------
    PlotError
        Not a comparison, an unknown dataset or metric, or nothing left to draw.

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
    >>> fig = plots.comparison_heatmap(comparison)
    >>> len(fig.axes)
    1
    >>> import matplotlib.pyplot as plt
    >>> plt.close(fig)
    """
    the_plan = heatmap_plan(comp, datasets=datasets, metrics=metrics, annotate=annotate,
                            decimals=decimals)
    table = _table(comp, datasets, metrics)
    if the_plan.matrix:
        (dataset, metric), = the_plan.cols
        return pair_matrix(comp, dataset, metric, title=title, note=the_plan.note,
                           decimals=decimals)
    return _draw(comp, table, the_plan, decimals=decimals, title=title)


def _draw(comp: Any, table: Any, plan: HeatmapPlan, *, decimals: int,
          title: str | None) -> Figure:
    """Draw the blocks of cells, their labels, the legend and the footer of a planned heatmap."""
    lay = plan.layout
    assert lay is not None
    cols, pairs = list(plan.cols), list(plan.pairs)
    n_c = len(cols)
    level = comp.level
    col_labels = _col_labels(cols)
    one_metric = len({m for _, m in cols}) == 1
    if plan.n_pairs > len(pairs) or plan.n_cols > n_c:  # only the rows of the cells shown
        keep = (pd.MultiIndex.from_arrays([table["system_a"], table["system_b"]]).isin(pairs)
                & pd.MultiIndex.from_arrays([table["dataset"], table["metric"]]).isin(cols))
        table = table[keep]
    index = {
        (r.system_a, r.system_b, r.dataset, r.metric): r for r in table.itertuples(index=False)
    }
    legend = (f"colour strength: |effect size| (capped at {CAP})\nadjusted p-values "
              f"({format_correction(comp.correction)}): *** < 0.001, ** < 0.01, * ≤ α = {1.0 - level:g}")
    foot = [*lay.note_lines, *legend.split("\n")]
    fig_w, fig_h = lay.width, lay.height
    with mpl.rc_context(FIGURE_RC):
        fig = Figure(figsize=(fig_w, fig_h), dpi=100, facecolor="white")
        for block in range(lay.blocks):
            chunk = pairs[block * lay.rows:(block + 1) * lay.rows]
            if chunk:
                left = block * (lay.label_w + n_c * lay.cell_w + BLOCK_GAP) + lay.label_w
                height = len(chunk) * lay.cell_h
                ax = fig.add_axes((left / fig_w, (fig_h - lay.top - height) / fig_h,
                                   n_c * lay.cell_w / fig_w, height / fig_h))
                _draw_block(ax, chunk, cols, col_labels, index, lay, decimals, level)
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
                   bbox_to_anchor=(0.12 / fig_w, (0.45 + 0.14 * len(lay.note_lines)) / fig_h),
                   ncol=3, frameon=False, prop=font(FONT_SIZE - 1))
        fig.text(0.12 / fig_w, 0.1 / fig_h, "\n".join(foot),
                 fontproperties=font(FONT_SIZE - 1.5), color="#444444", va="bottom", ha="left")
    add_signature(fig, comp.signature)
    return fig


def _draw_block(ax: Any, pairs: list[tuple[str, str]], cols: list[tuple[str, str]],
                col_labels: list[str], index: dict[Any, Any], lay: HeatmapLayout,
                decimals: int, level: float) -> None:
    """One block of rows: two-line cells as patches with their two texts; one-line and colour
    cells as one image (thousands of patches take seconds), one-line ones with their text."""
    n_r, n_c = len(pairs), len(cols)
    ax.set_xlim(0, n_c)
    ax.set_ylim(n_r, 0)
    two_line = lay.cells == "two-line"
    colours = np.ones((n_r, n_c, 4))
    for i, (a, b) in enumerate(pairs):
        for j, (d, m) in enumerate(cols):
            r = index.get((a, b, d, m))
            if r is None:
                if two_line:
                    ax.add_patch(Rectangle((j, i), 1, 1, facecolor="white", edgecolor="white"))
                if lay.cells != "colour":
                    ax.text(j + 0.5, i + 0.5, "–", ha="center", va="center",
                            fontproperties=font(lay.size), color="#999999")
                continue
            diff, p = float(r.diff), float(r.pvalue_adjusted)
            sig = bool(r.significant) and diff != 0
            colour: ColorType = cell_colour(diff, float(r.effect_size), sig)
            ink = "white" if _luminance(colour) < 0.4 else INK
            if not two_line:
                colours[i, j] = to_rgba(colour)
                if lay.cells == "one-line":
                    ax.text(j + 0.5, i + 0.5, _one_line(diff, p, decimals, level), ha="center",
                            va="center_baseline", fontproperties=font(lay.size, bold=sig),
                            color=ink)
                continue
            ax.add_patch(Rectangle((j, i), 1, 1, facecolor=colour, edgecolor="white", linewidth=1.5))
            ax.text(j + 0.5, i + 0.34, _fmt_diff(diff, decimals), ha="center", va="center",
                    fontproperties=font(FONT_SIZE, bold=sig), color=ink)
            ax.text(j + 0.5, i + 0.72, _p_line(p, level), ha="center", va="center",
                    fontproperties=font(FONT_SIZE - 1.5), color=ink)
    if not two_line:
        draw_cells(ax, colours, 0.6 if lay.size == MIN_FONT else 1.0)
    ax.set_xticks(np.arange(n_c) + 0.5)
    ax.xaxis.tick_top()
    if lay.rotate:
        ax.set_xticklabels(col_labels, fontproperties=font(lay.size, bold=True), rotation=90,
                           ha="center", va="bottom", multialignment="left")
    else:
        ax.set_xticklabels(col_labels, fontproperties=font(lay.size, bold=True))
    ax.set_yticks(np.arange(n_r) + 0.5)
    ax.set_yticklabels([f"{a} vs {b}" for a, b in pairs], fontproperties=font(lay.size))
    ax.tick_params(length=0, pad=2 if lay.size == MIN_FONT else 3.5)
    for s in ax.spines.values():
        s.set_visible(False)
