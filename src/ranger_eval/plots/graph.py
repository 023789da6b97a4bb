"""Connected graph of a comparison: which systems are *not* significantly different.

Following the IBM multi-metric framework (Ackerman et al. 2025): every system is a node placed at
the height of its mean score; an edge joins two systems whose difference is **not** significant
after the multiplicity correction, and its width grows with the adjusted p-value (a thick edge is
"clearly indistinguishable"). The best system (highest mean) is highlighted. Layout: the nodes
alternate between two columns in order of their means, so neighbours in the ranking are side by
side; labels sit outside the columns (spread apart, with a leader line when moved), so no edge
crosses a label; an edge within one column bows towards the other column so that it never passes
through another node.

With ``cliques=True`` the graph is split into its maximal cliques (networkx ``find_cliques``):
each panel is a group of systems that are pairwise indistinguishable, ordered by their best mean.
A system may belong to several groups.

Above :data:`GRAPH_MAX_SYSTEMS` systems a graph cannot be read (17 systems have 136 pairs: the
edges cover each other and the labels of a 4-inch column overlap), so the same answers are drawn
as the sorted pair matrix of :func:`ranger_eval.plots.matrix.pair_matrix`, and its footer says so.
"""
from __future__ import annotations

from typing import Any

import matplotlib as mpl
import numpy as np
import pandas as pd
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.patches import FancyArrowPatch

from ..formatting import format_correction
from ._page import PAGE_H, PAGE_W
from ._style import FIGURE_RC, FONT_SIZE, INK, add_signature, font, text_width_in
from .matrix import pair_matrix

__all__ = ["comparison_graph", "nonsignificance_graph", "edge_width"]

BEST = "#c8102e"  # highlight of the best system
NODE = "#1f3a5f"
EDGE = "#7a8ca3"
MIN_WIDTH, MAX_WIDTH = 0.8, 6.0
#: tested pairs that differ significantly, drawn only when some pairs were not tested
#: (``pairs="baseline"``, ``"successive"`` or a list): then "no line" means "not tested".
SIG_EDGE = "#4d4d4d"
SIG_WIDTH = 0.9
SIG_STYLE = (0, (4, 2.5))
#: Most systems drawn as a graph; above, :func:`comparison_graph` draws the sorted pair matrix.
GRAPH_MAX_SYSTEMS = 12


def edge_width(p: float) -> float:
    """Line width (points) of an edge: grows linearly with the adjusted p-value, 0.8 → 6."""
    return float(MIN_WIDTH + (MAX_WIDTH - MIN_WIDTH) * min(max(float(p), 0.0), 1.0))


def _group(comp: Any, dataset: str | None, metric: str | None) -> tuple[str, str, pd.DataFrame, pd.DataFrame]:
    dataset, metric = comp.group(dataset, metric)
    rows = comp.table[(comp.table["dataset"] == dataset) & (comp.table["metric"] == metric)]
    means = comp.means[(comp.means["dataset"] == dataset) & (comp.means["metric"] == metric)]
    return dataset, metric, rows, means


def nonsignificance_graph(comp: Any, *, dataset: str | None = None,
                          metric: str | None = None) -> Any:
    """networkx Graph: nodes = systems (attribute ``mean``), edges = non-significant pairs
    (attributes ``pvalue_adjusted``, ``diff``).

    Parameters
    ----------
    comp : Comparison
        The result of :func:`ranger_eval.compare`.
    dataset, metric : str, optional
        The combination (required when the comparison has several).

    Returns
    -------
    networkx.Graph
        One node per system, one edge per compared pair that is not significant after the
        comparison's correction.

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
    >>> graph = plots.nonsignificance_graph(comparison)
    >>> sorted(graph.nodes), sorted(graph.edges)
    (['a', 'b', 'c'], [('a', 'c')])
    """
    import networkx as nx

    _, _, rows, means = _group(comp, dataset, metric)
    g = nx.Graph()
    for r in means.itertuples(index=False):
        g.add_node(r.system, mean=float(r.mean))  # type: ignore[arg-type]  # pandas-stubs: itertuples fields typed as a Scalar union
    for r in rows.itertuples(index=False):
        if not bool(r.significant):
            p_adj, diff = (float(v) for v in (r.pvalue_adjusted, r.diff))  # type: ignore[arg-type]  # pandas-stubs: itertuples fields typed as a Scalar union
            g.add_edge(r.system_a, r.system_b, pvalue_adjusted=p_adj, diff=diff)
    return g


_text_width_in = text_width_in


def _spread(targets: np.ndarray, gap: float, low: float, high: float) -> np.ndarray:
    """Label heights near ``targets`` (inches, any order) at least ``gap`` apart within
    [low, high]: push up from the bottom, then down from the top (a 1-D label repel)."""
    order = np.argsort(targets, kind="stable")
    y = targets[order].astype(float).copy()
    for i in range(y.size):
        y[i] = max(y[i], low if i == 0 else y[i - 1] + gap)
    for i in range(y.size - 1, -1, -1):
        y[i] = min(y[i], high if i == y.size - 1 else y[i + 1] - gap)
    out = np.empty_like(y)
    out[order] = y
    return out


def _draw_panel(
    ax: Any,
    names: list[str],
    means: np.ndarray,
    edges: list[tuple[str, str, float]],
    best: str,
    ylim: tuple[float, float],
    axis_h_in: float,
    decimals: int,
    sig_edges: list[tuple[str, str]] | None = None,
) -> float:
    """Draw one graph panel; returns the panel width in inches it needs.

    Nodes alternate between two columns in order of their means (best first, left column), so
    neighbours in the ranking are never in the same column; labels sit outside the columns (left
    column: labels on the left; right column: on the right) and are spread apart vertically, with
    a leader line when a label had to move. Edges stay between the columns, so they never cross a
    label; an edge between two nodes of one column bows towards the other column.
    """
    yrange = ylim[1] - ylim[0]

    def to_in(y: np.ndarray | float) -> np.ndarray:
        return (np.asarray(y, dtype=float) - ylim[0]) / yrange * axis_h_in

    def to_data(y_in: np.ndarray) -> np.ndarray:
        return ylim[0] + np.asarray(y_in, dtype=float) / axis_h_in * yrange

    order = np.argsort(-means, kind="stable")
    col = np.empty(means.size, dtype=int)
    col[order] = np.arange(means.size) % 2
    if means.size == 1:
        col[:] = 1  # a lone node: label on the right
    labels = [f"{n}  {means[i]:.{decimals}f}" for i, n in enumerate(names)]
    widths = np.array(
        [_text_width_in(lab, bold=(n == best)) for lab, n in zip(labels, names, strict=True)]
    )
    left_w = float(widths[col == 0].max()) if (col == 0).any() else 0.0
    right_w = float(widths[col == 1].max()) if (col == 1).any() else 0.0
    between = 1.1 if (col == 0).any() and (col == 1).any() else 0.0
    pad = 0.18  # node to label
    x_col = np.array([0.3 + left_w + pad, 0.3 + left_w + pad + between])
    if not (col == 0).any():
        x_col = x_col - (left_w + pad)
    xs = x_col[col]
    total_w = float(x_col[1] + pad + right_w + 0.1) if (col == 1).any() else float(x_col[0] + 0.2)
    pos = {n: (float(xs[i]), float(means[i])) for i, n in enumerate(names)}
    ax.set_xlim(0, total_w)
    ax.set_ylim(*ylim)
    drawn = [(a, b, p, False) for a, b, p in edges] + [(a, b, 0.0, True) for a, b in sig_edges or []]
    for a, b, p, significant in drawn:
        (xa, ya), (xb, yb) = pos[a], pos[b]
        rad = 0.0
        if abs(xa - xb) < 1e-9:
            # same column: bow towards the other column, about 0.35 in at the middle (arc3's
            # control point is the midpoint + rad·(dy, −dx): positive rad bends an upward
            # chord to the right)
            dist = float(abs(to_in(yb) - to_in(ya)))
            rad = min(0.6, 0.7 / max(dist, 1e-9))
            going_up = yb > ya
            inward_is_left = xa > x_col[0] + 1e-9  # right column bends left
            rad = rad if going_up != inward_is_left else -rad
        if significant:  # tested and significantly different (only when some pairs are untested)
            patch = FancyArrowPatch(
                (xa, ya), (xb, yb), arrowstyle="-", connectionstyle=f"arc3,rad={rad}",
                linewidth=SIG_WIDTH, color=SIG_EDGE, linestyle=SIG_STYLE, zorder=1,
                shrinkA=0, shrinkB=0, capstyle="butt", gid="edge-significant",
            )
        else:
            patch = FancyArrowPatch(
                (xa, ya), (xb, yb), arrowstyle="-", connectionstyle=f"arc3,rad={rad}",
                linewidth=edge_width(p), color=EDGE, alpha=0.7, zorder=1,
                shrinkA=0, shrinkB=0, capstyle="round", gid="edge-not-significant",
            )
        ax.add_patch(patch)
    line_h = 1.45 * FONT_SIZE / 72.0
    for c in (0, 1):
        idx = np.flatnonzero(col == c)
        if idx.size == 0:
            continue
        target = to_in(means[idx])
        placed = to_data(_spread(target, line_h, 0.5 * line_h - 0.1, axis_h_in - 0.5 * line_h + 0.1))
        for j, i in enumerate(idx):
            is_best = names[i] == best
            tx = xs[i] + (-pad if c == 0 else pad)
            if abs(placed[j] - means[i]) > 0.02 * yrange:
                ax.plot([xs[i], tx + (0.04 if c == 0 else -0.04)], [means[i], placed[j]],
                        color="#8c8c8c", linewidth=0.6, zorder=2)
            ax.text(
                tx, placed[j], labels[i], fontproperties=font(bold=is_best),
                color=BEST if is_best else INK, va="center", ha="right" if c == 0 else "left",
                zorder=4,
            )
    for k, n in enumerate(names):
        is_best = n == best
        ax.plot(
            [xs[k]], [means[k]], marker="o", markersize=9 if is_best else 7,
            markerfacecolor=BEST if is_best else NODE, markeredgecolor="white",
            markeredgewidth=1.2, zorder=3, linestyle="none",
        )
    ax.set_xticks([])
    for side in ("top", "right", "bottom"):
        ax.spines[side].set_visible(False)
    return total_w


def _panel_rows(widths: list[float], gap: float, room: float) -> list[list[int]]:
    """Panels (indices) in rows at most ``room`` inches wide, in order; a panel wider than
    ``room`` gets a row of its own."""
    rows: list[list[int]] = [[]]
    used = 0.0
    for i, w in enumerate(widths):
        need = w if not rows[-1] else used + gap + w
        if rows[-1] and need > room:
            rows.append([i])
            used = w
        else:
            rows[-1].append(i)
            used = need
    return rows


def comparison_graph(
    comp: Any,
    *,
    dataset: str | None = None,
    metric: str | None = None,
    cliques: bool = False,
    title: str | None = None,
    height: float = 4.2,
    decimals: int = 3,
    signature: object | None = None,
) -> Figure:
    """The connected graph of one dataset × metric of a :class:`~ranger_eval.compare.Comparison`.

    ``dataset``/``metric`` may be omitted when the comparison has a single combination.
    ``signature``: the footer's, when the graph draws a result built on the comparison (a
    :class:`~ranger_eval.aggregate.Ranking` passes its own); by default the comparison's.
    Only compared pairs can be edges (with ``pairs="baseline"`` only the baseline's pairs).
    Above :data:`GRAPH_MAX_SYSTEMS` systems the figure is the sorted pair matrix instead.
    Returns a matplotlib Figure; rcParams are only changed inside ``rc_context``.

    Parameters
    ----------
    comp : Comparison
        The result of :func:`ranger_eval.compare` (or a ranking's comparison).
    dataset, metric : str, optional
        The combination to draw; required when the comparison has several.
    cliques : bool, default False
        Also shade the maximal groups of mutually indistinguishable systems.
    title : str, optional
        Drawn above the graph.
    height : float, default 4.2
        Figure height in inches.
    decimals : int, default 3
        Decimals of the means in the node labels.
    signature : object, optional
        The footer's signature (default: the comparison's).

    Returns
    -------
    matplotlib.figure.Figure
        Nodes are systems (best first), edges join the pairs whose adjusted p-value is above
        α = 1 − level (not significantly different).

    Raises
    ------
    PlotError
        An unknown or missing ``dataset``/``metric``, or not a comparison.

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
    >>> fig = plots.comparison_graph(comparison)
    >>> len(fig.axes)
    1
    >>> import matplotlib.pyplot as plt
    >>> plt.close(fig)
    """
    dataset, metric, rows, means_df = _group(comp, dataset, metric)
    names = list(means_df["system"])
    if len(names) > GRAPH_MAX_SYSTEMS:
        return pair_matrix(
            comp, dataset, metric, title=title, decimals=decimals, signature=signature,
            note=(f"{len(names)} systems: drawn as a sorted matrix instead of a graph (a graph "
                  f"of more than {GRAPH_MAX_SYSTEMS} systems cannot be read)."))
    means = means_df["mean"].to_numpy(dtype=float)
    best = names[int(np.argmax(means))]
    edges = [
        (str(r.system_a), str(r.system_b), float(r.pvalue_adjusted))  # type: ignore[arg-type]  # pandas-stubs: itertuples fields typed as a Scalar union
        for r in rows.itertuples(index=False)
        if not bool(r.significant)
    ]
    significant = [(str(r.system_a), str(r.system_b)) for r in rows.itertuples(index=False)
                   if bool(r.significant)]
    tested = {frozenset((str(r.system_a), str(r.system_b))) for r in rows.itertuples(index=False)}
    n_all = len(names) * (len(names) - 1) // 2
    partial = len(tested) < n_all  # some pairs untested: draw significant pairs as dashed lines
    lo, hi = float(means.min()), float(means.max())
    pad = 0.08 * (hi - lo) if hi > lo else max(abs(hi) * 0.05, 0.05)
    ylim = (lo - pad, hi + pad)
    if cliques:
        import networkx as nx  # only here: importing it takes 0.2 s

        g = nx.Graph()
        g.add_nodes_from(names)
        g.add_edges_from((a, b) for a, b, _ in edges)
        mean_of = dict(zip(names, means, strict=True))
        groups = [sorted(c, key=lambda s: -mean_of[s]) for c in nx.find_cliques(g)]
        groups.sort(key=lambda c: (-mean_of[c[0]], -len(c), c[0]))
        panels = [(grp, [e for e in edges if e[0] in grp and e[1] in grp]) for grp in groups]
    else:
        panels = [(names, edges)]
    sig_of = {
        tuple(grp): [e for e in significant if e[0] in grp and e[1] in grp] if partial else []
        for grp, _ in panels
    }

    alpha = comp.alpha
    head = title if title is not None else f"{dataset} · {metric}"
    sub = (
        f"edges: not significantly different ({format_correction(comp.correction)}, α = {alpha:g}); "
        "width grows with adjusted p"
    )
    if partial:
        pairs_kind = getattr(comp, "pairs", None)
        how = f" (pairs = {pairs_kind})" if isinstance(pairs_kind, str) else ""
        sub2 = (f"dashed: significantly different; no line: pair not tested{how}, "
                f"{len(tested)} of {n_all} pairs tested")
    else:
        sub2 = ""
    top_in, bottom_in, left_in = (1.0 if cliques else 0.75) + (0.2 if partial else 0.0), 0.75, 0.75
    axis_h = height - top_in - bottom_in
    with mpl.rc_context(FIGURE_RC):
        fig = Figure(figsize=(6.0, height), dpi=100, facecolor="white")
        widths = []
        axes = []
        for k, (grp, grp_edges) in enumerate(panels):
            ax = fig.add_axes((0, 0, 1, 1))  # placed below once widths are known
            gm = np.array([means[names.index(s)] for s in grp])
            w = _draw_panel(ax, list(grp), gm, grp_edges, best, ylim, axis_h, decimals,
                            sig_edges=sig_of[tuple(grp)])
            if cliques:
                ax.set_title(f"group {k + 1}", fontproperties=font(bold=True), loc="left")
            widths.append(w)
            axes.append(ax)
        gap = 0.25
        # clique panels wrap into rows one page wide (plots._page), the rows thinner when many
        panel_rows = _panel_rows(widths, gap, PAGE_W - left_in - 0.2)
        if len(panel_rows) > 1:
            row_gap = 0.55  # room for the "group k" titles
            thin = min(axis_h, (PAGE_H - top_in - bottom_in - (len(panel_rows) - 1) * row_gap)
                       / len(panel_rows))
            if thin < axis_h:
                axis_h = thin
                for k, (ax, (grp, grp_edges)) in enumerate(zip(axes, panels, strict=True)):
                    ax.cla()
                    gm = np.array([means[names.index(s)] for s in grp])
                    _draw_panel(ax, list(grp), gm, grp_edges, best, ylim, axis_h, decimals,
                                sig_edges=sig_of[tuple(grp)])
                    ax.set_title(f"group {k + 1}", fontproperties=font(bold=True), loc="left")
            height = top_in + len(panel_rows) * axis_h + (len(panel_rows) - 1) * row_gap + bottom_in
        else:
            row_gap = 0.0
        fig_w = left_in + max(sum(widths[i] for i in row) + gap * (len(row) - 1)
                              for row in panel_rows) + 0.2
        fig_w = max(fig_w, left_in + _text_width_in(sub, FONT_SIZE - 1) + 0.3,
                    left_in + _text_width_in(sub2, FONT_SIZE - 1) + 0.3,
                    left_in + _text_width_in(head, FONT_SIZE + 2, bold=True) + 0.3, 5.2)
        fig.set_size_inches(fig_w, height)
        for r, row in enumerate(panel_rows):
            x = left_in
            y0 = bottom_in + (len(panel_rows) - 1 - r) * (axis_h + row_gap)
            for j, k in enumerate(row):
                ax, w = axes[k], widths[k]
                ax.set_position((x / fig_w, y0 / height, w / fig_w, axis_h / height))
                if j == 0:
                    ax.set_ylabel(f"mean {metric}", fontproperties=font())
                    for t in ax.get_yticklabels():
                        t.set_fontproperties(font())
                else:
                    ax.spines["left"].set_visible(False)
                    ax.set_yticks([])
                x += w + gap
        fig.text(left_in / fig_w, 1 - 0.22 / height, head, fontproperties=font(FONT_SIZE + 2, bold=True),
                 va="top", ha="left")
        fig.text(left_in / fig_w, 1 - 0.48 / height, sub, fontproperties=font(FONT_SIZE - 1),
                 va="top", ha="left", color="#444444")
        if sub2:
            fig.text(left_in / fig_w, 1 - 0.70 / height, sub2, fontproperties=font(FONT_SIZE - 1),
                     va="top", ha="left", color="#444444")
        legend_ps = (0.05, 0.5, 1.0)
        handles = [Line2D([], [], color=EDGE, alpha=0.75, linewidth=edge_width(p)) for p in legend_ps]
        legend_labels = [f"p = {p:g}" for p in legend_ps]
        if partial:
            handles.append(Line2D([], [], color=SIG_EDGE, linewidth=SIG_WIDTH, linestyle=SIG_STYLE))
            legend_labels.append("significant")
            handles.append(Line2D([], [], color="none"))
            legend_labels.append("no line: not tested")
        handles.append(Line2D([], [], marker="o", color="none", markerfacecolor=BEST,
                              markeredgecolor="white", markersize=9))
        legend_labels.append("best mean")
        fig.legend(
            handles, legend_labels, loc="lower left",
            bbox_to_anchor=(left_in / fig_w, 0.02), ncol=4 if not partial else 3, frameon=False,
            prop=font(FONT_SIZE - 1), handlelength=2.2,
        )
    add_signature(fig, comp.signature if signature is None else signature)
    return fig
