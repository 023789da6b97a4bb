"""Post-op ordered ranking (IBM §7.1), test-result aggregation (§6.2), by= (§10.1), §10.2."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from statsmodels.stats.meta_analysis import combine_effects

import ranger_eval as rg
from ranger_eval.aggregate import (
    AggregateComparison,
    aggregate_comparisons,
    condition_and_compare,
    harmonic_mean_p,
    rank_systems,
)
from ranger_eval.aggregate.comparisons import effect_variance
from ranger_eval.errors import AggregateError


def _scores(seed: int = 1, datasets=(("py", 300), ("java", 250), ("cs", 200)),
            shift: float = 0.03) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    rows = []
    for d, n in datasets:
        base = rng.normal(0.5, 0.2, n)
        hard = rng.uniform(0, 1, n) > 0.5
        for k, s in enumerate("ABCD"):
            for m, sc in (("exact_match", 1.0), ("edit_sim", 0.8), ("latency", -5.0)):
                v = base * sc + shift * k * np.sign(sc) + rng.normal(0, 0.05, n)
                if m == "exact_match":
                    v = (v > 0.5).astype(float)
                rows += [(d, s, m, f"{d}{i}", float(x), "hard" if hard[i] else "easy")
                         for i, x in enumerate(v)]
    return pd.DataFrame(rows, columns=["dataset", "system", "metric", "item", "value",
                                       "difficulty"])


DIRS = {"edit_sim": True}


def test_aggregate_comparisons_matches_hmp_and_statsmodels_fixed_effect():
    df = _scores()
    comp = rg.compare(df[df.metric == "edit_sim"], test="paired-t")
    agg = aggregate_comparisons(comp)
    assert isinstance(agg, AggregateComparison) and isinstance(agg, rg.Comparison)
    assert len(agg.table) == 6 and agg.n_tests == 6 * 3
    for r in agg.table.itertuples(index=False):
        rows = comp.table[(comp.table.system_a == r.system_a) & (comp.table.system_b == r.system_b)]
        p = rows["pvalue"].to_numpy()
        expected = harmonic_mean_p(p, weights=np.full(3, 1 / 3) / 6, L=18).pvalue_adjusted
        assert r.pvalue_adjusted == pytest.approx(min(1.0, expected), rel=1e-12)
        v = [effect_variance(n, e, a, b) for n, e, a, b in
             zip(rows.effect_size_name, rows.effect_size, rows.n_a, rows.n_b, strict=True)]
        fe = combine_effects(rows["effect_size"].to_numpy(), np.array(v)).summary_frame()
        assert r.effect_size == pytest.approx(fe.loc["fixed effect", "eff"], rel=1e-12)
        assert r.significant == (r.pvalue_adjusted <= 0.05)
    with pytest.raises(AggregateError, match="cannot be aggregated again"):
        aggregate_comparisons(agg)
    with pytest.raises(AggregateError, match="at least two"):
        aggregate_comparisons(rg.compare(df[(df.metric == "edit_sim") & (df.dataset == "py")]))


def test_effect_variances_are_the_textbook_formulas():
    assert effect_variance("cohens_dz", 0.5, 100, 100) == pytest.approx(1 / 100 + 0.25 / 200)
    assert effect_variance("cohens_d", 0.5, 40, 60) == pytest.approx(100 / 2400 + 0.25 / 200)
    assert effect_variance("cohens_h", 0.3, 40, 60) == pytest.approx(1 / 40 + 1 / 60)
    with pytest.raises(AggregateError):
        effect_variance("glass", 0.1, 3, 3)


def test_aggregate_plots_draw_the_aggregate(tmp_path):
    df = _scores()
    agg = aggregate_comparisons(rg.compare(df[df.metric == "edit_sim"]))
    from ranger_eval.plots import comparison_graph, comparison_heatmap, pvalue_plot

    for fig in (comparison_graph(agg), comparison_heatmap(agg), pvalue_plot(agg)):
        fig.savefig(tmp_path / "f.png")


def test_rank_systems_orders_by_aggregate_and_tests_one_sided():
    r = rank_systems(_scores(), comparisons="successive", higher_is_better=DIRS)
    assert r.order == ("D", "C", "B", "A")  # the simulated order
    assert list(r.pairwise[["a", "b"]].itertuples(index=False, name=None)) == [
        ("D", "C"), ("C", "B"), ("B", "A")]
    assert r.comparison.alternative == "greater" and r.mean_kind == "standardized mean"
    assert r.cliques == (("D",), ("C",), ("B",), ("A",))
    assert r.signature.fields["kind"] == "rank" and r.signature.fields["order"] == "successive"
    frame = r.to_frame()
    assert list(frame["system"]) == ["D", "C", "B", "A"] and list(frame["rank"]) == [1, 2, 3, 4]
    all_pairs = rank_systems(_scores(), comparisons="all", higher_is_better=DIRS)
    assert all_pairs.comparison.alternative == "two-sided" and len(all_pairs.pairwise) == 6
    first = rank_systems(_scores(), comparisons="first-vs-rest", higher_is_better=DIRS)
    assert set(first.pairwise["a"]) == {"D"}


def test_rank_systems_single_dataset_is_paired_and_cliques_join_equal_systems():
    df = _scores(shift=0.0)  # no real differences
    one = df[df.dataset == "py"]
    r = rank_systems(one, comparisons="all", higher_is_better=DIRS)
    assert r.mean_kind == "aggregate mean" and bool(r.comparison.table["paired"].all())
    assert len(r.cliques) == 1 and set(r.cliques[0]) == set("ABCD")


def test_rank_systems_lower_is_better_single_metric_and_errors():
    df = _scores()
    lat = df[df.metric == "latency"]
    r = rank_systems(lat, higher_is_better=False)
    assert r.order[0] == "D"  # lowest latency first
    with pytest.raises(AggregateError, match="unknown direction of metric"):
        rank_systems(df)
    with pytest.raises(AggregateError, match="unknown comparisons 'pairs'"):
        rank_systems(df, comparisons="pairs", higher_is_better=DIRS)
    with pytest.raises(AggregateError, match="at least two systems"):
        rank_systems(df[df.system == "A"], higher_is_better=DIRS)


def test_rank_is_invariant_to_row_order():
    df = _scores()
    a = rank_systems(df, higher_is_better=DIRS)
    b = rank_systems(df.sample(frac=1.0, random_state=3), higher_is_better=DIRS)
    assert a.order == b.order
    np.testing.assert_allclose(a.means.to_numpy(), b.means.to_numpy(), rtol=1e-12)


def test_by_runs_per_level_in_compare_and_rank():
    df = _scores()
    comp = rg.compare(df[df.metric == "edit_sim"], by="difficulty")
    assert set(comp.table["difficulty"]) == {"easy", "hard"}
    assert "py [difficulty=hard]" in set(comp.table["dataset"])
    ranks = rank_systems(df, by=["difficulty"], higher_is_better=DIRS)
    assert set(ranks) == {("easy",), ("hard",)}
    with pytest.raises(rg.RangerError, match="metadata column"):
        rg.compare(df[df.metric == "edit_sim"], by="colour")


def test_condition_and_compare_partitions_pools_and_ranks(tmp_path):
    df = _scores()
    es = df[df.metric == "edit_sim"]
    params = pd.DataFrame({"system": list("ABCD"), "size": ["7b", "7b", "13b", "13b"],
                           "temp": [0.2, 0.8, 0.2, 0.8]})
    cc = condition_and_compare(es, params, condition=["size"], compare=["temp"], color=["temp"],
                               higher_is_better=True)
    assert set(cc.rankings) == {("7b",), ("13b",)}
    for ranking in cc.rankings.values():
        assert ranking.order == ("temp=0.8", "temp=0.2")
        assert not bool(ranking.comparison.table["paired"].any())  # pooled groups are unpaired
    pooled = cc.partitions[("7b",)].frame
    assert len(pooled) == len(es[es.system.isin(["A", "B"])])
    cc.plot().savefig(tmp_path / "cc.png")
    with pytest.raises(AggregateError, match="no hyper-parameter 'depth'"):
        condition_and_compare(es, params, compare=["depth"])
    with pytest.raises(AggregateError, match="subset of compare"):
        condition_and_compare(es, params, compare=["temp"], color=["size"])


def test_ranking_plot_is_the_connected_graph(tmp_path):
    r = rank_systems(_scores(), higher_is_better=DIRS)
    fig = r.plot()
    texts = [t.get_text() for t in fig.texts]
    assert any("Ranking over 3 dataset(s)" in t for t in texts)
    fig.savefig(tmp_path / "g.png")


def test_ranking_reports_topsis_and_its_kendall_tau_with_the_order():
    from scipy.stats import kendalltau

    from ranger_eval.aggregate import topsis

    df = _scores()
    r = rank_systems(df, higher_is_better=DIRS)
    means = df.groupby(["dataset", "metric", "system"])["value"].mean().unstack("system")
    matrix = means.T.reindex(list(r.order))
    matrix.columns = [f"{d}/{m}" for d, m in means.index]
    dirs = [m != "latency" for _, m in means.index]
    expected = topsis(matrix, weights=[1.0] * matrix.shape[1], higher_is_better=dirs,
                      normalization="minmax")
    np.testing.assert_allclose(r.topsis.reindex(expected.index), expected, rtol=1e-12)
    tau = kendalltau(expected.reindex(list(r.order)), -np.arange(4)).statistic
    assert r.topsis_tau == pytest.approx(tau, rel=1e-12)
    assert "Kendall's τ with the ranking" in rg.report.to_markdown(r)


def test_cliques_tied_on_first_system_and_size_are_ordered_by_their_members():
    """networkx's find_cliques lists cliques in an order that follows string hashes, which
    change from one process to the next; ties (same first system, same size) are ordered by
    their members' places in the ranking, so the cliques are the same in every run."""
    from ranger_eval.aggregate.ranking import _cliques

    order = ["E", "C", "B", "D", "A"]
    table = pd.DataFrame({"system_a": ["E"] * 4, "system_b": ["A", "D", "B", "C"],
                          "significant": [False] * 4})
    assert _cliques(order, table) == (("E", "C"), ("E", "B"), ("E", "D"), ("E", "A"))
