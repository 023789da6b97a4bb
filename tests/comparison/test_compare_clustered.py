"""compare() with a cluster column: every test takes its cluster-robust version
(ranger_eval.comparison.clustered), equal to the kernels of ranger_eval.stats.clustered, and a
cluster column with one item per cluster changes nothing."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import ranger_eval as rg
from ranger_eval.errors import CompareError
from ranger_eval.stats import clustered as cl


def _frame(binary: bool = False, n_clusters: int = 12, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    rows = []
    for k in range(n_clusters):
        u = rng.normal(0, 1)
        for j in range(1 + k % 4):
            for s, shift in (("A", 0.3), ("B", 0.0), ("C", -0.1)):
                v = u + shift + rng.normal()
                rows.append({"dataset": "d", "system": s, "item": f"q{k:02d}-{j}",
                             "value": float(v > 0) if binary else round(v, 6),
                             "cluster": f"passage {k}"})
    return pd.DataFrame(rows)


def _pair(df: pd.DataFrame, a: str, b: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    wide = df.pivot(index="item", columns="system", values="value").sort_index()
    clusters = df.drop_duplicates("item").set_index("item")["cluster"].sort_index()
    return wide[a].to_numpy(), wide[b].to_numpy(), clusters.to_numpy(dtype=object)


def test_paired_t_auto_is_cr1() -> None:
    df = _frame()
    c = rg.compare(rg.Scores(df))
    row = c.table.iloc[0]
    x, y, clusters = _pair(df, row.system_a, row.system_b)
    ref = cl.clustered_paired_ttest(x, y, clusters=clusters, vcov="CR2")
    assert row.test == "paired-t" and row.ci_method == "cluster-robust t (CR2)"
    assert (row.statistic, row.pvalue, row.ci_low, row.ci_high) == pytest.approx(
        (ref.statistic, ref.pvalue, ref.ci_low, ref.ci_high), rel=1e-12)
    assert row.n_clusters == 12
    assert c.signature.fields["cluster"] == "cluster"
    assert "ci" not in c.signature.fields  # CR2 is the paired t's own interval here


def test_binary_auto_is_clustered_mcnemar_and_unpaired_is_cr1_regression() -> None:
    df = _frame(binary=True)
    row = rg.compare(rg.Scores(df)).table.iloc[0]
    x, y, clusters = _pair(df, row.system_a, row.system_b)
    # 12 clusters of 1-4 items: Durkalski's statistic (Yang, Sun & Hardin's recommendation)
    ref = cl.clustered_mcnemar(x, y, clusters=clusters, method="durkalski")
    assert row.test == "mcnemar"
    assert (row.statistic, row.pvalue) == pytest.approx((ref.statistic, ref.pvalue), rel=1e-12)
    explicit = rg.compare(rg.Scores(df), test="mcnemar").table.iloc[0]
    assert (explicit.statistic, explicit.pvalue) == (row.statistic, row.pvalue)
    un = rg.compare(rg.Scores(df), paired=False).table.iloc[0]
    ref_u = cl.clustered_unpaired_ttest(x, y, clusters_x=clusters, clusters_y=clusters)
    assert un.test == "proportions-z" and un.ci_method == "cluster-robust t (CR1)"
    assert (un.pvalue, un.ci_low, un.ci_high) == pytest.approx(
        (ref_u.pvalue, ref_u.ci_low, ref_u.ci_high), rel=1e-12)


def test_resampling_tests_resample_clusters() -> None:
    df = _frame()
    x, y, clusters = _pair(df, "A", "B")
    codes, c = cl.cluster_codes(clusters, clusters.size)
    sums = cl.cluster_sums(x - y, codes, c)[None, :]
    sizes = np.bincount(codes)
    with pytest.warns(UserWarning, match="cluster bootstrap with 12 clusters rejects"):
        boot = rg.compare(rg.Scores(df), test="bootstrap", n_resamples=999,
                          seed=4).table.iloc[0]
    ref = cl.cluster_bootstrap_many(sums, sizes, n_resamples=999, seed=4)
    assert (boot.pvalue, boot.ci_low, boot.ci_high) == pytest.approx(
        (ref.pvalue[0], ref.ci_low[0], ref.ci_high[0]), rel=1e-12)
    perm = rg.compare(rg.Scores(df), test="permutation", n_resamples=999, seed=4).table.iloc[0]
    ref_p = cl.cluster_permutation_test_many(sums, sizes, n_resamples=999, seed=4)
    assert perm.pvalue == ref_p.pvalue[0]


@pytest.mark.parametrize("test,binary,paired", [
    ("auto", False, None), ("auto", True, None), ("auto", False, False), ("auto", True, False),
    ("paired-t", False, None), ("welch", False, None), ("wilcoxon", False, None),
    ("sign", False, None), ("mannwhitney", False, None), ("mcnemar", True, None),
    ("proportions-z", True, None), ("permutation", False, None), ("permutation", False, False),
    ("bootstrap", False, None)])
def test_one_item_per_cluster_gives_the_unclustered_numbers(test: str, binary: bool,
                                                            paired: bool | None) -> None:
    df = _frame(binary=binary)
    single = rg.compare(rg.Scores(df.assign(cluster=df["item"])), test=test, paired=paired,
                        n_resamples=499)
    plain = rg.compare(rg.Scores(df.drop(columns="cluster")), test=test, paired=paired,
                       n_resamples=499)
    pd.testing.assert_frame_equal(single.table[plain.table.columns], plain.table)
    assert single.table["n_clusters"].isna().all()


def test_wilcoxon_is_the_rosner_glynn_lee_signed_rank_test() -> None:
    df = _frame()
    row = rg.compare(rg.Scores(df), test="wilcoxon").table.iloc[0]
    x, y, clusters = _pair(df, row.system_a, row.system_b)
    ref = cl.clustered_signed_rank(x, y, clusters=clusters)
    assert (row.statistic, row.pvalue) == (ref.statistic, ref.pvalue)
    assert row.ci_method == "cluster-robust t (CR2)"


@pytest.mark.parametrize("test", ["sign", "mannwhitney"])
def test_rank_tests_are_refused_naming_the_alternative(test: str) -> None:
    with pytest.raises(CompareError, match="no cluster-robust version.*(clusrank|Rosner)"):
        rg.compare(rg.Scores(_frame()), test=test)


def test_one_cluster_is_an_error() -> None:
    df = _frame().assign(cluster="all")
    with pytest.raises(CompareError, match="one cluster.*at least 2 clusters"):
        rg.compare(rg.Scores(df))


def test_reports_name_the_clusters_in_the_test_column() -> None:
    from ranger_eval.report import to_markdown

    md = to_markdown(rg.compare(rg.Scores(_frame())))
    assert "| paired-t (12 clusters) |" in md and "cluster:cluster" in md
    plain = to_markdown(rg.compare(rg.Scores(_frame().drop(columns="cluster"))))
    assert "| paired-t |" in plain and "clusters)" not in plain


def test_missing_intersect_tests_the_common_items_with_their_clusters() -> None:
    df = _frame()
    gone = df[~((df.system == "A") & df.item.isin(["q00-0", "q03-1", "q03-2"]))]
    with pytest.warns(UserWarning, match="dropped 3 item"):
        table = rg.compare(rg.Scores(gone), missing="intersect").table
    row = table[(table.system_a == "B") & (table.system_b == "A")].iloc[0]
    common = gone[gone.item.isin(gone[gone.system == "A"].item)]
    x, y, clusters = _pair(common, "B", "A")
    ref = cl.clustered_paired_ttest(x, y, clusters=clusters, vcov="CR2")
    assert (row.pvalue, row.ci_low, row.ci_high) == pytest.approx(
        (ref.pvalue, ref.ci_low, ref.ci_high), rel=1e-12)
    assert row.n_clusters == ref.n_clusters == 11  # cluster 0 held only q00-0


def test_disjoint_items_are_the_unpaired_cr1_regression() -> None:
    df = _frame()
    half = df[((df.system == "A") & df.item.str.endswith("-0"))
              | ((df.system == "B") & ~df.item.str.endswith("-0"))]
    row = rg.compare(rg.Scores(half)).table.iloc[0]
    a, b = half[half.system == "A"].sort_values("item"), half[half.system == "B"].sort_values("item")
    ref = cl.clustered_unpaired_ttest(a.value, b.value, clusters_x=a.cluster.to_numpy(),
                                      clusters_y=b.cluster.to_numpy())
    assert (row.test, bool(row.paired)) == ("welch", False)
    assert (row.pvalue, row.ci_low, row.ci_high) == pytest.approx(
        (ref.pvalue, ref.ci_low, ref.ci_high), rel=1e-12)
    assert row.n_clusters == 12


def test_mde_of_a_clustered_two_proportion_row_uses_its_t_interval() -> None:
    from scipy import stats as sps

    from ranger_eval.stats.power import detectable_noncentrality

    row = rg.compare(rg.Scores(_frame(binary=True)), paired=False).table.iloc[0]
    assert row.test == "proportions-z" and not row.significant
    df = row.n_clusters - 1.0
    se = (row.ci_high - row.ci_low) / 2.0 / sps.t.isf(0.025, df)
    assert row.mde == pytest.approx(se * detectable_noncentrality(df, level=0.95, power=0.8,
                                                                  alternative="two-sided"),
                                    rel=1e-12)


def test_mcnemar_with_equal_or_many_clusters_is_yang_sun_hardins_modified_test() -> None:
    equal = _frame(binary=True, n_clusters=12)
    equal = equal[equal.item.str.endswith("-0")]  # one item per cluster would be unclustered
    equal = pd.concat([equal, equal.assign(item=equal.item + "b")])  # 12 clusters of 2
    many = _frame(binary=True, n_clusters=60)  # 60 clusters of 1-4 items
    for df in (equal, many):
        row = rg.compare(rg.Scores(df), test="mcnemar").table.iloc[0]
        x, y, clusters = _pair(df, row.system_a, row.system_b)
        ref = cl.clustered_mcnemar(x, y, clusters=clusters, method="yang")
        assert (row.statistic, row.pvalue) == pytest.approx((ref.statistic, ref.pvalue),
                                                            rel=1e-12)


ORACLES = Path(__file__).resolve().parents[1] / "oracles"


def _oracle_cases() -> list[dict]:
    py = json.loads((ORACLES / "clustered_oracles_py.json").read_text())["cases"]
    r = json.loads((ORACLES / "clustered_oracles.json").read_text())["cases"]
    return [c for c in py + r if c["kind"] in ("paired", "unpaired")]


@pytest.mark.parametrize("case", _oracle_cases(), ids=lambda c: f"{c['kind']}{len(c.get('d', c.get('x')))}")
def test_cluster_se_cr1_is_statsmodels_and_sandwich_hc1(case: dict) -> None:
    """compare(cluster_se="CR1") = statsmodels OLS(cov_type="cluster") / R vcovCL(type="HC1"):
    t, p, interval and df = C − 1, at 1e-10 (tests/oracles/clustered_oracles*.json)."""
    r = case["r"]
    if case["kind"] == "paired":  # d = A − B with B = 0 on the same items
        d = np.asarray(case["d"], dtype=float)
        items = [f"i{i}" for i in range(d.size)]
        df = pd.DataFrame({"dataset": "d", "system": np.repeat(["A", "B"], d.size),
                           "item": items * 2, "value": np.r_[d, np.zeros(d.size)],
                           "cluster": list(case["cluster"]) * 2})
    else:
        x, y = case["x"], case["y"]
        df = pd.DataFrame({"dataset": "d", "system": ["A"] * len(x) + ["B"] * len(y),
                           "item": [f"a{i}" for i in range(len(x))]
                           + [f"b{i}" for i in range(len(y))],
                           "value": x + y, "cluster": case["cluster_x"] + case["cluster_y"]})
    c = rg.compare(rg.Scores(df), cluster_se="CR1")
    row = c.table.iloc[0]
    assert bool(row.paired) == (case["kind"] == "paired")
    for got, want in ((row["diff"], r["estimate"]), (row.statistic, r["statistic"]),
                      (row.pvalue, r["p_two"]), (row.ci_low, r["ci_low"]),
                      (row.ci_high, r["ci_high"])):
        assert got == pytest.approx(want, rel=1e-10, abs=1e-14)
    if case["kind"] == "paired" and len(set(case["cluster"])) == len(case["cluster"]):
        # one item per cluster: not clustered, the paired t (= CR1, df = n − 1 = C − 1)
        assert row.ci_method == "paired t" and np.isnan(row.n_clusters)
    else:
        assert row.ci_method == "cluster-robust t (CR1)"
        assert row.ci_df == r["df"] == row.n_clusters - 1
    assert c.signature.fields["cse"] == "CR1"
    assert "ci" not in c.signature.fields  # CR1 is then the paired t's own interval


def test_cluster_se_cr2_is_the_default_and_cr1_reaches_the_margin_tests() -> None:
    df = _frame()
    cr2, cr1 = (rg.compare(rg.Scores(df), cluster_se=v).table.iloc[0] for v in ("CR2", "cr1"))
    x, y, clusters = _pair(df, cr1.system_a, cr1.system_b)
    ref = cl.clustered_paired_ttest(x, y, clusters=clusters, vcov="CR1")
    assert (cr1.statistic, cr1.pvalue, cr1.ci_df) == pytest.approx(
        (ref.statistic, ref.pvalue, ref.df), rel=1e-12)
    assert cr2.ci_df == pytest.approx(cl.bell_mccaffrey_df(np.bincount(
        cl.cluster_codes(clusters, clusters.size)[0])), rel=1e-12)
    eq = rg.compare(rg.Scores(df), hypothesis="equivalence", margin=0.5, cluster_se="CR1")
    assert set(eq.table.ci_method) == {"cluster-robust t (CR1)"}
    with pytest.raises(rg.errors.SettingsError, match="cluster_se: unknown cluster-robust"):
        rg.compare(rg.Scores(df), cluster_se="CR3")


def test_mde_of_a_clustered_paired_row_uses_the_bell_mccaffrey_df() -> None:
    from scipy import stats as sps

    from ranger_eval.stats.power import detectable_noncentrality

    df = _frame(n_clusters=6, seed=3)
    table = rg.compare(rg.Scores(df)).table
    row = table[~table.significant].iloc[0]
    assert row.ci_method == "cluster-robust t (CR2)"
    x, y, clusters = _pair(df, row.system_a, row.system_b)
    bm = cl.bell_mccaffrey_df(np.bincount(cl.cluster_codes(clusters, clusters.size)[0]))
    assert row.ci_df == pytest.approx(bm, rel=1e-12) and bm < row.n_clusters - 1
    se = (row.ci_high - row.ci_low) / 2.0 / sps.t.isf(0.025, bm)
    assert row.mde == pytest.approx(se * detectable_noncentrality(
        bm, level=0.95, power=0.8, alternative="two-sided"), rel=1e-12)
    # the clustered McNemar row borrows the CR2 interval, and its mde its df
    binary = rg.compare(rg.Scores(_frame(binary=True, n_clusters=6, seed=3))).table
    assert (binary.ci_df < binary.n_clusters - 1).all()


@pytest.mark.parametrize("case", [c for c in json.loads(
    (ORACLES / "clustered_oracles_py.json").read_text())["cases"] if c["kind"] == "inspect"],
    ids=lambda c: f"n{len(c['x'])}")
def test_leaderboard_interval_of_one_mean_is_inspects(case: dict) -> None:
    """The one-mean case: each system's interval in compare's leaderboard is the CR1 interval
    on C − 1 df, Inspect AI's ci(cluster=...) (describe's; cluster_se is the pairs')."""
    x = np.asarray(case["x"], dtype=float)
    n = x.size
    df = pd.DataFrame({"dataset": "d", "system": ["A"] * n + ["B"] * n,
                       "item": [f"i{i}" for i in range(n)] * 2, "value": np.r_[x, np.zeros(n)],
                       "cluster": list(case["cluster"]) * 2})
    board = rg.compare(rg.Scores(df), cluster_se="CR1").leaderboard()
    row = rg.describe(df, interval="t").iloc[0]  # the t interval is Inspect's
    assert (row["ci_low"], row["ci_high"]) == pytest.approx(
        (case["r"]["ci_low"], case["r"]["ci_high"]), rel=1e-10)
    auto = rg.describe(df).iloc[0]  # the leaderboard shows describe's default interval
    assert board.interval(0, 0) == pytest.approx((auto["ci_low"], auto["ci_high"]), rel=1e-15)
    assert board.se[0, 0] == pytest.approx(case["r"]["se"], rel=1e-10)


def test_fewer_than_five_clusters_warns_with_the_measured_coverage() -> None:
    from ranger_eval.comparison.clustered import FEW_CLUSTERS_COVERAGE, FEW_CLUSTERS_INTERVAL

    few = _frame(binary=True, n_clusters=FEW_CLUSTERS_INTERVAL - 1)
    with pytest.warns(UserWarning, match=r"rest on 5 clusters; with fewer than 6") as rec:
        row = rg.compare(rg.Scores(few)).table.iloc[0]
    assert row.n_clusters == 5
    assert any(FEW_CLUSTERS_COVERAGE in str(w.message) for w in rec)
    import warnings

    enough = _frame(binary=True, n_clusters=FEW_CLUSTERS_INTERVAL)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert rg.compare(rg.Scores(enough)).table.iloc[0].n_clusters == 6
