"""Comparison figures: graph, heatmap, pairwise p-value plot and boxplots."""
from __future__ import annotations

import matplotlib as mpl
import networkx as nx
import numpy as np
import pandas as pd
import pytest
from matplotlib.figure import Figure
from matplotlib.patches import FancyArrowPatch, Rectangle
from scipy.stats import norm

from ranger_eval.comparison import CompareError, compare, rank_intervals
from ranger_eval.errors import PlotError
from ranger_eval.plots.boxplots import comparison_boxplots
from ranger_eval.plots.graph import comparison_graph, edge_width, nonsignificance_graph
from ranger_eval.plots.heatmap import comparison_heatmap, stars
from ranger_eval.plots.pvalues import P_TICKS, pval_transform, pvalue_plot


def _scores(seed: int = 1) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    n = 50
    rows = []
    for d in ("dl19", "dl20"):
        base = rng.normal(0.5, 0.2, n)
        for s, shift in (("bm25", 0.0), ("rm3", 0.01), ("splade_long_name", 0.2), ("tasb", 0.21),
                         ("ada2", 0.19)):
            v = base + shift + rng.normal(0, 0.08, n)
            rows += [(d, s, "nDCG@10", f"q{i}", float(x)) for i, x in enumerate(v)]
    return pd.DataFrame(rows, columns=["dataset", "system", "metric", "item", "value"])


@pytest.fixture(scope="module")
def comp():
    return compare(_scores(), n_resamples=200)


def _render(fig: Figure) -> None:
    fig.canvas.draw()  # layout problems (e.g. bad text) raise here


def test_graph_edges_are_nonsignificant_pairs(comp):
    g = nonsignificance_graph(comp, "dl19")
    t = comp.table[comp.table["dataset"] == "dl19"]
    ns = {frozenset((r.system_a, r.system_b)) for r in t.itertuples() if not r.significant}
    assert {frozenset(e) for e in g.edges} == ns
    assert set(g.nodes) == set(comp.systems)
    before = dict(mpl.rcParams)
    fig = comparison_graph(comp, "dl19")
    _render(fig)
    assert dict(mpl.rcParams) == before
    edges = [p for p in fig.axes[0].patches if isinstance(p, FancyArrowPatch)]
    assert len(edges) == len(ns)
    widths = sorted(p.get_linewidth() for p in edges)
    pvals = sorted(r.pvalue_adjusted for r in t.itertuples() if not r.significant)
    assert widths == pytest.approx([edge_width(p) for p in pvals])
    texts = [x.get_text() for x in fig.axes[0].texts]
    best = comp.means[comp.means["dataset"] == "dl19"].sort_values("mean").iloc[-1]
    assert any(x.startswith(best["system"]) for x in texts)


def test_edge_width_grows_with_p():
    ws = [edge_width(p) for p in (0.0, 0.05, 0.5, 1.0, 2.0)]
    assert ws == sorted(ws) and ws[0] < ws[3] == ws[4]


def test_graph_cliques(comp):
    g = nonsignificance_graph(comp, "dl20")
    cliques = list(nx.find_cliques(g))
    fig = comparison_graph(comp, "dl20", cliques=True)
    _render(fig)
    assert len(fig.axes) == len(cliques)
    titles = [ax.get_title(loc="left") for ax in fig.axes]
    assert titles == [f"group {i + 1}" for i in range(len(cliques))]


def test_graph_needs_a_single_combination(comp):
    with pytest.raises(CompareError, match="pass dataset="):
        comparison_graph(comp)
    with pytest.raises(CompareError, match="available: dl19/nDCG@10, dl20/nDCG@10"):
        comparison_graph(comp, "msmarco")


def test_heatmap_cells(comp):
    fig = comparison_heatmap(comp)
    _render(fig)
    ax = fig.axes[0]
    cells = [p for p in ax.patches if isinstance(p, Rectangle)]
    assert len(cells) == len(comp.table)  # 10 pairs x 2 datasets
    texts = [t.get_text() for t in ax.texts]
    r = comp.table.iloc[0]
    assert f"{r['diff']:+.3f}".replace("-", "\u2212") in texts
    assert [t.get_text() for t in ax.get_xticklabels()] == ["dl19", "dl20"]
    assert len(ax.get_yticklabels()) == 10


def test_heatmap_missing_cells_for_successive_pairs():
    comp = compare(_scores(), pairs="successive")
    fig = comparison_heatmap(comp)
    _render(fig)
    ax = fig.axes[0]
    n_pairs = len(set(zip(comp.table["system_a"], comp.table["system_b"], strict=True)))
    assert len([p for p in ax.patches if isinstance(p, Rectangle)]) == n_pairs * 2
    assert sum(t.get_text() == "–" for t in ax.texts) == n_pairs * 2 - len(comp.table)


def test_stars():
    assert [stars(p) for p in (0.0005, 0.005, 0.03, 0.2)] == ["***", "**", "*", "ns"]
    assert stars(0.03, alpha=0.01) == "ns"


def test_pvalue_transform_is_emmeans():
    p = np.array([1.0, 0.5, 0.05, 0.001, 1e-4, 5e-5, 1e-9])
    clamped = np.clip(p, 5e-5, 1)
    expected = norm.cdf((np.log(clamped) + 2.5) / 3) / norm.cdf(2.5 / 3)
    np.testing.assert_allclose(pval_transform(p), expected, rtol=1e-14)
    assert pval_transform(1.0) == pytest.approx(1.0)
    assert pval_transform(1e-9) == pval_transform(5e-5)
    assert P_TICKS == (0.001, 0.01, 0.05, 0.1, 0.5, 1.0)


def test_pvalue_plot(comp):
    fig = pvalue_plot(comp, "dl19")
    _render(fig)
    ax = fig.axes[0]
    ticks = [t.get_text() for t in ax.get_xticklabels()]
    assert ticks == ["0.001", "0.01", "0.05", "0.1", "0.5", "1"]
    np.testing.assert_allclose(ax.get_xticks(), 1 - pval_transform(np.array(P_TICKS)))
    # one dashed path per system, each through every system's row
    paths = [ln for ln in ax.lines if ln.get_linestyle() == "--" and len(ln.get_xdata()) > 2]
    assert len(paths) == len(comp.systems)
    assert all(len(ln.get_xdata()) == len(comp.systems) for ln in paths)
    assert ax.get_xlabel() == "holm-sidak-adjusted p-value"


def test_boxplots(comp):
    before = dict(mpl.rcParams)
    fig = comparison_boxplots(rank_intervals(comp, "dl19", n_resamples=200))
    _render(fig)
    assert dict(mpl.rcParams) == before
    assert len(fig.axes) == 3
    ax = fig.axes[0]
    labels = [t.get_text() for t in ax.get_yticklabels()]
    means = comp.means[comp.means["dataset"] == "dl19"].sort_values("mean", ascending=False)
    assert labels == list(means["system"])
    assert list(ax.get_yticks()) == sorted(ax.get_yticks(), reverse=True)  # best at the top
    assert "simultaneous 95% intervals" in fig.axes[2].get_title(loc="left")


def test_boxplots_from_scores():
    from ranger_eval.scores import Scores

    ri = rank_intervals(Scores(_scores()), "dl20", n_resamples=100)
    fig = comparison_boxplots(ri)
    _render(fig)
    labels = [t.get_text() for t in fig.axes[0].get_yticklabels()]
    assert labels == list(ri.systems)  # drawn from the intervals' order: best at the top
    observed = np.arange(1, len(ri.systems) + 1)  # systems are ordered by mean
    assert np.all(ri.rank_low <= observed) and np.all(observed <= ri.rank_high)
    np.testing.assert_allclose(ri.values.mean(axis=1), ri.means, rtol=1e-12)
    with pytest.raises(PlotError, match="draws a RankIntervals result"):
        comparison_boxplots(Scores(_scores()))  # type: ignore[arg-type]
