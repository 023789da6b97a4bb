"""Every figure of a command fits one page with readable, non-overlapping text from 2 to 50
systems and from 1 to 200 datasets (they used to be a 65-inch heatmap at 17 TREC runs, a
59-inch one at 54 datasets, rank-axis labels running together, a tangled graph).

The comparison is real (``compare`` on one dataset); the 54- and 200-dataset tables repeat its
rows under other dataset names with their p-values shifted, so that the layout sees as many
cells, and as many different ones, as a real run would without the minutes of testing."""
from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd
import pytest

import ranger_eval as rg
from ranger_eval.comparison import rank_intervals
from ranger_eval.plots._page import MIN_FONT, PAGE_H, PAGE_W
from ranger_eval.plots.boxplots import comparison_boxplots, rank_ticks
from ranger_eval.plots.cd import cd_diagram
from ranger_eval.plots.graph import GRAPH_MAX_SYSTEMS, comparison_graph
from ranger_eval.plots.heatmap import comparison_heatmap, heatmap_plan
from ranger_eval.plots.pvalues import pvalue_plot
from tests.helpers.layout import assert_texts_clean, texts

SIZES = [(2, 1), pytest.param(17, 54, marks=pytest.mark.slow),
         pytest.param(50, 200, marks=pytest.mark.slow)]


def _scores(k: int, n: int = 12, seed: int = 0) -> rg.Scores:
    rng = np.random.default_rng(seed)
    base = rng.normal(0.5, 0.1, n)
    rows = [pd.DataFrame({"dataset": "dataset-000", "system": f"system-{s:02d}",
                          "metric": "nDCG@10", "item": [f"q{i}" for i in range(n)],
                          "value": base + 0.3 * s / max(k - 1, 1) + rng.normal(0, 0.1, n)})
            for s in range(k)]
    return rg.Scores(pd.concat(rows, ignore_index=True))


def _comparison(k: int, d: int) -> rg.Comparison:
    comp = rg.compare(_scores(k), test="paired-t")
    if d == 1:
        return comp
    tables, means = [], []
    for i in range(d):
        t = comp.table.copy()
        t["dataset"] = f"dataset-{i:03d}"
        t["pvalue_adjusted"] = np.minimum(1.0, t["pvalue_adjusted"].to_numpy() * (1 + i % 7))
        t["significant"] = t["pvalue_adjusted"] <= comp.alpha
        tables.append(t)
        m = comp.means.copy()
        m["dataset"] = f"dataset-{i:03d}"
        means.append(m)
    return dataclasses.replace(comp, table=pd.concat(tables, ignore_index=True),
                               means=pd.concat(means, ignore_index=True))


def _rank_test(k: int, d: int) -> object:
    rng = np.random.default_rng(1)
    table = pd.DataFrame(rng.normal(0, 0.05, (max(d, 3), k)) + np.linspace(0.8, 0.5, k),
                         columns=[f"system-{i:02d}" for i in range(k)],
                         index=[f"ds{i}" for i in range(max(d, 3))])
    return rg.rank_test(table)


def _check(fig: object) -> None:
    """One page, no overlapping or clipped text, no information in a font below 7 pt (the
    signature footer, 6.5 pt, is a reference, not a label)."""
    w, h = fig.get_size_inches()  # type: ignore[attr-defined]
    assert w <= PAGE_W + 1e-6 and h <= PAGE_H + 1e-6, (w, h)
    assert_texts_clean(fig, min_texts=2)  # type: ignore[arg-type]
    small = [t.get_text() for t in texts(fig) if t.get_fontsize() < MIN_FONT - 1e-9  # type: ignore[arg-type]
             and t.get_gid() != "ranger-signature"]
    assert not small, small[:3]


@pytest.mark.parametrize(("k", "d"), SIZES)
def test_compare_figures_fit_a_page(k: int, d: int) -> None:
    comp = _comparison(k, d)
    heatmap = comparison_heatmap(comp)
    _check(heatmap)
    footer = " ".join(t.get_text() for t in texts(heatmap)).replace("\n", " ")
    assert ("Every cell is in comparison.csv." in footer) == (k * d > 2)  # said when capped
    _check(comparison_graph(comp, dataset="dataset-000", metric="nDCG@10"))
    _check(pvalue_plot(comp, dataset="dataset-000", metric="nDCG@10"))
    ri = rank_intervals(comp, dataset="dataset-000", metric="nDCG@10", n_resamples=200)
    _check(comparison_boxplots(ri))


@pytest.mark.parametrize(("k", "d"), SIZES)
def test_cd_diagram_fits_a_page(k: int, d: int) -> None:
    _check(cd_diagram(_rank_test(k, d)))


def test_heatmap_plan_says_what_it_leaves_out() -> None:
    comp = _comparison(17, 54)
    plan = heatmap_plan(comp)
    assert plan.compact and not plan.annotate and not plan.matrix
    assert (plan.n_pairs, plan.n_cols) == (136, 54)
    assert len(plan.pairs) < 136 and len(plan.cols) <= 54
    assert f"showing the {len(plan.pairs)} of 136 pairs significant on the most columns" \
        in plan.note and "Every cell is in comparison.csv" in plan.note
    # the pairs kept are those significant on the most columns
    sig = comp.table.groupby(["system_a", "system_b"], sort=False)["significant"].sum()
    kept = min(sig[p] for p in plan.pairs)
    assert all(sig[p] <= kept for p in sig.index if p not in set(plan.pairs))


def test_small_heatmap_is_unchanged_and_one_dataset_becomes_a_matrix() -> None:
    small = heatmap_plan(_comparison(4, 3))
    assert small.annotate and not small.compact and not small.matrix and small.note == ""
    many = _comparison(17, 1)
    plan = heatmap_plan(many)
    assert plan.matrix and "sorted matrix" in plan.note
    fig = comparison_heatmap(many)
    assert [t.get_text() for t in fig.axes[0].get_xticklabels()][:1] == ["system-16"]


def test_graph_of_many_systems_is_the_sorted_matrix() -> None:
    comp = _comparison(GRAPH_MAX_SYSTEMS + 1, 1)
    fig = comparison_graph(comp)
    ax = fig.axes[0]
    rows = [t.get_text().split()[0] for t in ax.get_yticklabels()]
    means = comp.means.set_index("system")["mean"]
    assert rows == sorted(rows, key=lambda s: -means[s])  # best first
    assert any(f"more than {GRAPH_MAX_SYSTEMS} systems" in t.get_text() for t in texts(fig))
    small = comparison_graph(_comparison(GRAPH_MAX_SYSTEMS, 1))
    assert not any("sorted matrix" in t.get_text() for t in texts(small))


def test_rank_ticks_never_run_together() -> None:
    assert rank_ticks(5, 2.35, 8.5) == [1, 2, 3, 4, 5]
    assert rank_ticks(17, 2.35, 8.5) == [1, 5, 10, 15]
    assert rank_ticks(50, 2.35, 8.5)[:2] == [1, 10]
    assert rank_ticks(1, 2.35, 8.5) == [1]


def test_clique_panels_wrap_into_rows_one_page_wide() -> None:
    comp = _comparison(GRAPH_MAX_SYSTEMS, 1)
    fig = comparison_graph(comp, cliques=True)
    _check(fig)
    assert len(fig.axes) > 2  # several groups, laid out in rows instead of one wide strip


@pytest.mark.slow  # condition_and_compare of 50 systems: ~10 s
def test_condition_boxplots_of_50_systems_fit_a_page() -> None:
    rng = np.random.default_rng(3)
    sizes, temps = [f"{s}b" for s in (1, 3, 7, 13, 70)], [f"{t / 10:.1f}" for t in range(10)]
    params = pd.DataFrame([(f"m-{s}-{t}", s, t) for s in sizes for t in temps],
                          columns=["system", "size", "temp"])
    scores = pd.DataFrame([("d", sysname, "acc", f"q{i}", float(v))
                           for sysname in params["system"]
                           for i, v in enumerate(rng.normal(0.6, 0.1, 10))],
                          columns=["dataset", "system", "metric", "item", "value"])
    cc = rg.condition_and_compare(scores, params, condition=["size"], compare=["temp"],
                                  color=["temp"])
    _check(cc.plot())


@pytest.mark.slow  # 47 sizes × 3 repeats of the predictive check: ~5 s
def test_predictive_plot_of_200_datasets_fits_a_page() -> None:
    from ranger_eval.aggregate.crossdataset import predictive_check
    from ranger_eval.plots.predictive import predictive_plot
    from tests.aggregate.test_crossdataset import predictive_effects

    res = predictive_check(predictive_effects(200), k=tuple(range(2, 190, 4)), n_test=5,
                           n_resamples=3, seed=1)
    _check(predictive_plot(res))  # 47 k values: tick labels thinned, a long signature wrapped


def _ratings(k: int) -> object:
    """A Bradley–Terry fit of k models with long, mixed-length names (every pair met)."""
    rng = np.random.default_rng(k)
    names = [f"model-{i:02d}" + "-instruct-long-name" * (i % 3 == 0) for i in range(k)]
    strength = np.linspace(-0.6, 0.6, k)
    rows = []
    for i in range(k):
        for j in range(i + 1, k):
            p = 1 / (1 + np.exp(strength[j] - strength[i]))
            wins = rng.random(20) < p
            rows += [{"model_a": names[i], "model_b": names[j],
                      "winner": "model_a" if w else "model_b"} for w in wins]
            rows.append({"model_a": names[i], "model_b": names[j], "winner": "tie"})
    return rg.bradley_terry(pd.DataFrame(rows), n_resamples=20)


@pytest.mark.slow  # 0.6-2.7 s: two figures laid out and drawn twice
@pytest.mark.parametrize("k", [2, 10, 50])
def test_arena_figures_fit_a_page_and_use_their_canvas(k: int) -> None:
    """The win-probability heatmap left half its width empty (the one-line signature
    footer was wider than the figure, and the saved tight box grew to it)."""
    from ranger_eval.output import footer_signature
    from ranger_eval.plots._style import _tight_bbox_inches
    from ranger_eval.plots.arena import ratings_plot, win_probability_heatmap

    res = _ratings(k)
    for fig in (ratings_plot(res), win_probability_heatmap(res)):
        _check(fig)
        assert footer_signature(fig) == str(res.signature)  # wrapped, joined back
        w, h = fig.get_size_inches()
        box = _tight_bbox_inches(fig, pad=0.0, dpi=100)
        # the saved canvas is the figure, give or take its labels: nothing sticks out sideways
        assert box.width <= w + 0.05, (k, box.width, w)
