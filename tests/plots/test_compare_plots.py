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
from tests.helpers.layout import assert_texts_clean, strings


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
    g = nonsignificance_graph(comp, dataset="dl19")
    t = comp.table[comp.table["dataset"] == "dl19"]
    ns = {frozenset((r.system_a, r.system_b)) for r in t.itertuples() if not r.significant}
    assert {frozenset(e) for e in g.edges} == ns
    assert set(g.nodes) == set(comp.systems)
    before = dict(mpl.rcParams)
    fig = comparison_graph(comp, dataset="dl19")
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
    g = nonsignificance_graph(comp, dataset="dl20")
    cliques = list(nx.find_cliques(g))
    fig = comparison_graph(comp, dataset="dl20", cliques=True)
    _render(fig)
    assert len(fig.axes) == len(cliques)
    titles = [ax.get_title(loc="left") for ax in fig.axes]
    assert titles == [f"group {i + 1}" for i in range(len(cliques))]


def test_graph_needs_a_single_combination(comp):
    with pytest.raises(CompareError, match="pass dataset="):
        comparison_graph(comp)
    with pytest.raises(CompareError, match="available: dl19/nDCG@10, dl20/nDCG@10"):
        comparison_graph(comp, dataset="msmarco")


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
    assert stars(0.03, level=0.99) == "ns"
    with pytest.raises(TypeError, match="level"):
        stars(0.03, alpha=0.01)  # the confidence level is the one knob


def test_pvalue_transform_is_emmeans():
    p = np.array([1.0, 0.5, 0.05, 0.001, 1e-4, 5e-5, 1e-9])
    clamped = np.clip(p, 5e-5, 1)
    expected = norm.cdf((np.log(clamped) + 2.5) / 3) / norm.cdf(2.5 / 3)
    np.testing.assert_allclose(pval_transform(p), expected, rtol=1e-14)
    assert pval_transform(1.0) == pytest.approx(1.0)
    assert pval_transform(1e-9) == pval_transform(5e-5)
    assert P_TICKS == (0.001, 0.01, 0.05, 0.1, 0.5, 1.0)


def test_pvalue_plot(comp):
    fig = pvalue_plot(comp, dataset="dl19")
    _render(fig)
    ax = fig.axes[0]
    ticks = [t.get_text() for t in ax.get_xticklabels()]
    assert ticks == ["0.001", "0.01", "0.05", "0.1", "0.5", "1"]
    np.testing.assert_allclose(ax.get_xticks(), 1 - pval_transform(np.array(P_TICKS)))
    # emmeans pwpp layout: rows ordered by mean (best on top); one vertical segment per compared
    # pair at its (transformed) p-value, joining the two systems' rows
    t = comp.table[comp.table["dataset"] == "dl19"]
    means = comp.means[comp.means["dataset"] == "dl19"].sort_values("mean", ascending=False)
    k = len(means)
    row = {s: k - 1 - i for i, s in enumerate(means["system"])}
    segments = {ln.get_gid(): ln for ln in ax.lines if str(ln.get_gid()).startswith("pair:")}
    assert len(segments) == len(t)
    for r in t.itertuples():
        a, b = sorted((r.system_a, r.system_b), key=lambda s: -row[s])
        seg = segments[f"pair:{a}|{b}"]
        np.testing.assert_allclose(seg.get_xdata(), 1 - pval_transform(r.pvalue_adjusted))
        assert sorted(seg.get_ydata()) == sorted([row[a], row[b]])
    # the significance threshold: a dashed line at alpha and a shaded region p <= alpha
    (alpha_line,) = [ln for ln in ax.lines if ln.get_gid() == "alpha-line"]
    assert alpha_line.get_xdata()[0] == pytest.approx(1 - pval_transform(comp.alpha))
    assert [p for p in ax.patches if p.get_gid() == "significant-region"]
    assert ax.get_xlabel() == "Holm–Šídák-adjusted p-value"
    assert_texts_clean(fig)


def test_pvalue_plot_baseline_pairs_only():
    comp = compare(_scores(), pairs="baseline", baseline="bm25", n_resamples=100)
    fig = pvalue_plot(comp, dataset="dl20")
    segments = [ln for ln in fig.axes[0].lines if str(ln.get_gid()).startswith("pair:")]
    assert len(segments) == 4 and all("bm25" in ln.get_gid() for ln in segments)


def test_boxplots(comp):
    before = dict(mpl.rcParams)
    fig = comparison_boxplots(rank_intervals(comp, dataset="dl19", n_resamples=200))
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

    ri = rank_intervals(Scores(_scores()), dataset="dl20", n_resamples=100)
    fig = comparison_boxplots(ri)
    _render(fig)
    labels = [t.get_text() for t in fig.axes[0].get_yticklabels()]
    assert labels == list(ri.systems)  # drawn from the intervals' order: best at the top
    observed = np.arange(1, len(ri.systems) + 1)  # systems are ordered by mean
    assert np.all(ri.rank_low <= observed) and np.all(observed <= ri.rank_high)
    np.testing.assert_allclose(ri.values.mean(axis=1), ri.means, rtol=1e-12)
    with pytest.raises(PlotError, match="draws a RankIntervals result"):
        comparison_boxplots(Scores(_scores()))  # type: ignore[arg-type]


# --------------------------------------------------------------------------- readable at a glance


def test_graph_baseline_pairs_untested_look_different():
    """With pairs="baseline" a missing line means "not tested"; tested pairs that differ
    significantly are dashed, tested pairs that do not are solid (width ∝ p)."""
    comp = compare(_scores(), pairs="baseline", baseline="bm25", n_resamples=200)
    fig = comparison_graph(comp, dataset="dl19")
    assert_texts_clean(fig)
    t = comp.table[comp.table["dataset"] == "dl19"]
    edges = [p for p in fig.axes[0].patches if isinstance(p, FancyArrowPatch)]
    sig = [p for p in edges if p.get_gid() == "edge-significant"]
    ns = [p for p in edges if p.get_gid() == "edge-not-significant"]
    assert len(sig) == int(t["significant"].sum()) >= 1
    assert len(ns) == int((~t["significant"]).sum()) >= 1
    assert len(edges) == len(t) == 4  # the 6 untested pairs have no line
    assert all(p.get_linestyle() not in ("-", "solid") for p in sig)
    assert all(p.get_linestyle() in ("-", "solid") for p in ns)
    legend = [x.get_text() for x in fig.legends[0].get_texts()]
    assert "significant" in legend and "no line: not tested" in legend
    assert any("no line: pair not tested (pairs = baseline), 4 of 10 pairs tested" in s
               for s in strings(fig))


def test_graph_all_pairs_has_no_dashed_edges(comp):
    fig = comparison_graph(comp, dataset="dl19")
    assert not [p for p in fig.axes[0].patches if p.get_gid() == "edge-significant"]
    assert "no line: not tested" not in [x.get_text() for x in fig.legends[0].get_texts()]


def _many_columns(n_cols: int, n_metrics: int = 1) -> pd.DataFrame:
    rng = np.random.default_rng(3)
    rows = []
    for j in range(n_cols):
        d = f"collection_{j:02d}-with-a-long-name" if j % 4 == 0 else f"task{j}"
        base = rng.normal(0.5, 0.2, 25)
        for s, shift in (("bert", 0.0), ("distilbert", 0.05), ("roberta_large", 0.12)):
            for m in ("accuracy", "macro-F1")[:n_metrics]:
                v = base + shift + rng.normal(0, 0.1, 25)
                rows += [(d, s, m, f"q{i}", float(x)) for i, x in enumerate(v)]
    return pd.DataFrame(rows, columns=["dataset", "system", "metric", "item", "value"])


@pytest.mark.parametrize(("n_cols", "n_metrics"), [(8, 1), (12, 1), (20, 1), (5, 2)])
def test_heatmap_headers_never_collide(n_cols, n_metrics):
    comp = compare(_many_columns(n_cols, n_metrics))
    fig = comparison_heatmap(comp)
    _, boxes = assert_texts_clean(fig)  # no overlapping or clipped text, headers included
    ax = fig.axes[0]
    headers = [t for t in ax.get_xticklabels() if t.get_text()]
    assert len(headers) == n_cols * n_metrics
    # long names are turned 90° (read bottom to top) rather than overlapping their neighbours
    assert {t.get_rotation() for t in headers} == {90.0}
    # cells are as narrow as their numbers: 20 columns need far less than 1.25 in each
    assert ax.get_position().width * fig.get_figwidth() / (n_cols * n_metrics) < 1.1


def test_heatmap_short_headers_stay_horizontal(comp):
    fig = comparison_heatmap(comp)
    assert_texts_clean(fig)
    assert {t.get_rotation() for t in fig.axes[0].get_xticklabels()} == {0.0}


def _binary_scores(n: int = 120) -> pd.DataFrame:
    rng = np.random.default_rng(2)
    rows = []
    for s, p in (("bert", 0.84), ("distilbert", 0.8), ("roberta_large", 0.9), ("perfect", 1.0)):
        v = (rng.random(n) < p).astype(float)
        rows += [("MNLI", s, "accuracy", f"q{i}", float(x)) for i, x in enumerate(v)]
    return pd.DataFrame(rows, columns=["dataset", "system", "metric", "item", "value"])


def test_boxplots_of_binary_values_show_wilson_proportions():
    """0/1 data get proportions with Wilson intervals, not boxplots of 0s and 1s."""
    from statsmodels.stats.proportion import proportion_confint

    from ranger_eval.scores import Scores

    ri = rank_intervals(Scores(_binary_scores()), dataset="MNLI", n_resamples=100, level=0.9)
    fig = comparison_boxplots(ri)
    assert_texts_clean(fig)
    ax = fig.axes[0]
    assert ax.get_title(loc="left") == "proportions, 90% CI"
    assert "proportions: Wilson intervals, as the leaderboard's" in " ".join(
        t.get_text() for t in fig.texts)
    assert ax.get_xlabel() == "proportion accuracy = 1"
    assert not [p for p in ax.patches if p.get_gid() is None and type(p).__name__ == "PathPatch"]
    (points,) = [ln for ln in ax.lines if ln.get_gid() == "proportion"]
    bars = [ln for ln in ax.lines if ln.get_gid() == "proportion-interval"]
    assert len(bars) == len(ri.systems)
    for i in range(len(ri.systems)):
        v = np.asarray(ri.values[i], dtype=float)
        x, n = int(v.sum()), v.size
        assert points.get_xdata()[i] == pytest.approx(x / n, rel=1e-12)
        lo, hi = proportion_confint(x, n, alpha=0.1, method="wilson")
        np.testing.assert_allclose(bars[i].get_xdata(), [lo, hi], rtol=1e-10, atol=1e-15)
    assert "perfect" in ri.systems  # x = n: the interval is not degenerate
    i = ri.systems.index("perfect")
    assert bars[i].get_xdata()[0] < 1.0 == pytest.approx(bars[i].get_xdata()[1])


def test_wilson_interval_matches_statsmodels():
    from statsmodels.stats.proportion import proportion_confint

    from ranger_eval.plots.boxplots import is_binary
    from ranger_eval.stats.tests import wilson_interval

    x = np.array([0, 1, 7, 50, 99, 100, 3])
    n = np.array([10, 10, 20, 100, 100, 100, 3])
    for level in (0.8, 0.95, 0.99):
        lo, hi = wilson_interval(x, n, level)
        ref = np.array([proportion_confint(a, b, alpha=1 - level, method="wilson")
                        for a, b in zip(x, n, strict=True)])
        np.testing.assert_allclose(lo, ref[:, 0], rtol=1e-10, atol=1e-15)
        np.testing.assert_allclose(hi, ref[:, 1], rtol=1e-10, atol=1e-15)
    assert is_binary([np.array([0.0, 1.0]), np.array([1.0, 1.0, np.nan])])
    assert not is_binary([np.array([0.0, 0.5])]) and not is_binary([np.array([np.nan])])


def test_boxplots_of_continuous_values_keep_boxes(comp):
    fig = comparison_boxplots(rank_intervals(comp, dataset="dl19", n_resamples=100))
    assert fig.axes[0].get_title(loc="left") == "values"
    assert not [ln for ln in fig.axes[0].lines if ln.get_gid() == "proportion"]
