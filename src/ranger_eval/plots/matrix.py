"""Sorted pair matrix of one dataset × metric: the readable form of many systems' comparisons.

A graph of non-significance (:mod:`.graph`) becomes a tangle beyond a dozen systems (17 systems
have 136 pairs), and a heatmap with one row per pair is 136 rows tall. The matrix shows the same
answers in k × k cells, k ≤ 50 on one page: rows and columns are the systems sorted by their
mean (best first, as in the compact-letter display of a leaderboard), and the cell in row *r*,
column *c* is

* blue when *r* is significantly higher than *c* after the multiplicity correction, red when
  significantly lower, the colour's strength growing with the absolute effect size exactly as
  in :func:`~ranger_eval.plots.heatmap.comparison_heatmap` (capped at 1.2);
* light grey when the difference is not significant;
* white when the pair was not compared (``pairs="baseline"`` or ``"successive"``).

Because the systems are sorted, the significant differences gather in the corners away from the
diagonal and groups of indistinguishable systems show as grey blocks along it (the "sorted
matrix" reading of Demšar's CD diagram and of the IBM framework's graph). Nothing is computed
here: each cell is a row of the comparison's table.
"""
from __future__ import annotations

from typing import Any

import matplotlib as mpl
import numpy as np
from matplotlib.colors import to_rgba
from matplotlib.figure import Figure
from matplotlib.patches import Patch

from ..formatting import format_correction
from ._cells import A_BETTER, B_BETTER, CAP, NOT_SIG, cell_colour, draw_cells
from ._page import COMPACT_ROW, MIN_FONT, PAGE_H, PAGE_W
from ._style import FIGURE_RC, FONT_SIZE, add_signature, font, text_width_in
from ._text import wrap_parts

__all__ = ["pair_matrix"]

DIAGONAL = "#9e9e9e"
_TOP, _BOTTOM_MIN = 0.75, 0.95  # title and subtitle; legend and footer (inches)


def _cells(rows: Any) -> dict[tuple[str, str], tuple[float, float, bool]]:
    """(row system, column system) → (difference row − column, effect size, significant), both
    orientations of every compared pair."""
    out: dict[tuple[str, str], tuple[float, float, bool]] = {}
    for r in rows.itertuples(index=False):
        a, b = str(r.system_a), str(r.system_b)
        diff, es, sig = float(r.diff), float(r.effect_size), bool(r.significant)
        out[(a, b)] = (diff, es, sig)
        out[(b, a)] = (-diff, -es, sig)
    return out


def pair_matrix(comp: Any, dataset: str | None = None, metric: str | None = None, *,
                title: str | None = None, note: str = "", decimals: int = 3,
                signature: object | None = None) -> Figure:
    """The sorted pair matrix of one dataset × metric of a comparison (see the module).

    ``note`` is printed first in the footer (what this figure replaces, and why);
    ``signature``: the footer's, by default the comparison's. Returns a matplotlib Figure whose
    size fits one page (:data:`~ranger_eval.plots._page.PAGE_W` ×
    :data:`~ranger_eval.plots._page.PAGE_H`) for up to 50 systems.
    """
    dataset, metric = comp.group(dataset, metric)
    rows = comp.table[(comp.table["dataset"] == dataset) & (comp.table["metric"] == metric)]
    means_df = comp.means[(comp.means["dataset"] == dataset) & (comp.means["metric"] == metric)]
    order = np.argsort(-means_df["mean"].to_numpy(dtype=float), kind="stable")
    names = [str(means_df["system"].iloc[i]) for i in order]
    means = means_df["mean"].to_numpy(dtype=float)[order]
    k = len(names)
    size = FONT_SIZE if k <= 20 else MIN_FONT
    row_labels = [f"{n}  {m:.{decimals}f}" for n, m in zip(names, means, strict=True)]
    label_w = max(text_width_in(s, size) for s in row_labels) + 0.2
    header_h = max(text_width_in(n, size) for n in names) + 0.15
    head = title if title is not None else f"{dataset} · {metric}"
    foot = [note] if note else []
    foot.append(f"row vs column, systems sorted by mean; adjusted p-values "
                f"({format_correction(comp.correction)}), α = {comp.alpha:g}; colour strength: "
                f"|effect size| (capped at {CAP})")
    foot_lines = [ln for part in foot for ln in
                  wrap_parts(part.split(" "), " ", PAGE_W - 0.4,
                             lambda t: text_width_in(t, MIN_FONT))]
    bottom = _BOTTOM_MIN + 0.14 * len(foot_lines)
    room_w = PAGE_W - label_w - 0.3
    room_h = PAGE_H - _TOP - header_h - bottom
    cell = max(COMPACT_ROW, min(0.32, room_w / k, room_h / k))
    fig_w = max(label_w + k * cell + 0.3, 5.5, text_width_in(head, FONT_SIZE + 2, True) + 0.4)
    fig_h = _TOP + header_h + k * cell + bottom
    cells = _cells(rows)
    with mpl.rc_context(FIGURE_RC):
        fig = Figure(figsize=(fig_w, fig_h), dpi=100, facecolor="white")
        ax = fig.add_axes((label_w / fig_w, bottom / fig_h, k * cell / fig_w, k * cell / fig_h))
        ax.set_xlim(0, k)
        ax.set_ylim(k, 0)
        colours = np.ones((k, k, 4))
        for i, a in enumerate(names):
            for j, b in enumerate(names):
                if i == j:
                    colours[i, j] = to_rgba(DIAGONAL)
                elif (a, b) in cells:
                    colours[i, j] = to_rgba(cell_colour(*cells[(a, b)]))
        draw_cells(ax, colours, 0.8 if k > 20 else 1.2)
        ax.set_xticks(np.arange(k) + 0.5)
        ax.xaxis.tick_top()
        ax.set_xticklabels(names, fontproperties=font(size), rotation=90, ha="center",
                           va="bottom")
        ax.set_yticks(np.arange(k) + 0.5)
        ax.set_yticklabels(row_labels, fontproperties=font(size))
        ax.tick_params(length=0, pad=2)
        for s in ax.spines.values():
            s.set_edgecolor("#bdbdbd")
            s.set_linewidth(0.6)
        fig.text(0.12 / fig_w, 1 - 0.12 / fig_h, head,
                 fontproperties=font(FONT_SIZE + 2, bold=True), va="top", ha="left")
        fig.text(0.12 / fig_w, 1 - 0.42 / fig_h,
                 f"{k} systems, {len(rows)} pairs compared",
                 fontproperties=font(FONT_SIZE - 1), va="top", ha="left", color="#444444")
        handles = [Patch(facecolor=A_BETTER, label="row significantly higher"),
                   Patch(facecolor=B_BETTER, label="row significantly lower"),
                   Patch(facecolor=NOT_SIG, label="not significant"),
                   Patch(facecolor="white", edgecolor="#bdbdbd", label="not compared")]
        fig.legend(handles=handles, loc="lower left",
                   bbox_to_anchor=(0.12 / fig_w, (0.2 + 0.14 * len(foot_lines)) / fig_h),
                   ncol=2 if fig_w < 6.5 else 4, frameon=False, prop=font(MIN_FONT + 0.5))
        fig.text(0.12 / fig_w, 0.1 / fig_h, "\n".join(foot_lines),
                 fontproperties=font(MIN_FONT), color="#444444", va="bottom", ha="left",
                 linespacing=1.35)
    add_signature(fig, comp.signature if signature is None else signature)
    return fig
