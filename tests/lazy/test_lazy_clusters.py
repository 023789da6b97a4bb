"""ranger_eval.lazy with a ``cluster`` column: the lazy engines honour the design.

DuckDB and Dask compute per dataset × metric × system × cluster the item count and the sum of
the scores (``cluster_statistics``), and ``compare`` / ``effect_sizes`` give the rows of the
in-memory engine on the same table (p, diff, interval, df, test, ci_method, n_clusters,
signature) at 1e-10 relative: CR2 (default) and CR1 paired t, the clustered McNemar tests
(Durkalski below 50 clusters of unequal sizes, Yang–Sun–Hardin otherwise), the CR1 unpaired t,
the cluster-robust effect-size variances; groups that the sums cannot test (items that differ
between systems, one cluster) are compared in memory, with the in-memory rows or error.
"""
from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import ranger_eval as rg
from ranger_eval.errors import CompareError, EffectSizeError, ScoresError

pytest.importorskip("duckdb", reason="ranger_eval.lazy needs duckdb (the 'large' extra)")
from tests.helpers.lazy import ENGINES, engine_name, open_on  # noqa: E402

RTOL = 1e-10
ATOL = 1e-13  # quantities that are 0 up to summation order


@pytest.fixture(params=ENGINES)
def engine(request: pytest.FixtureRequest) -> str:
    return engine_name(request.param)


def _open(df: pd.DataFrame, tmp_path: Path, engine: str) -> rg.lazy.LazyScores:
    return open_on(df, tmp_path, engine)


def _clustered(seed: int, sizes: dict[str, list[int]], systems: tuple[str, ...] = ("A", "B", "C"),
               metrics: tuple[str, ...] = ("acc", "f1")) -> pd.DataFrame:
    """Per dataset the cluster sizes given; metric ``acc`` 0/1 scores, ``f1`` continuous, both
    with a cluster effect (a shared cluster level) and system shifts."""
    rng = np.random.default_rng(seed)
    rows = []
    for d, m_k in sizes.items():
        items = [(f"p{k:02d}", f"{d}-q{k:02d}-{j}") for k, m in enumerate(m_k) for j in range(m)]
        level = {c: rng.normal(0, 0.6) for c, _ in items}
        for metric in metrics:
            for s_i, s in enumerate(systems):
                for c, i in items:
                    z = level[c] + 0.25 * s_i + rng.normal(0, 1)
                    v = float(z > 0.3) if metric == "acc" else round(z, 6)
                    rows.append((d, metric, s, i, c, v))
    return pd.DataFrame(rows, columns=["dataset", "metric", "system", "item", "cluster", "value"])


TABLES = {
    # 12 clusters of 4: balanced (McNemar: Yang's modified Obuchowski, equal sizes)
    "balanced": {"d1": [4] * 12, "d2": [3] * 15},
    # unequal sizes, fewer than 50 clusters (McNemar: Durkalski)
    "unbalanced": {"d1": [1, 2, 3, 5, 8, 2, 4, 6, 1, 7, 3, 2, 9, 4, 2, 3, 5, 1, 6, 2],
                   "d2": [2, 6, 3, 1, 4, 4, 7, 2, 5, 3, 1, 2, 6, 8]},
    # 60 unequal clusters (McNemar: Yang's modified Obuchowski)
    "many": {"d1": [1 + k % 5 for k in range(60)]},
}

COMPARED = ["pvalue", "pvalue_adjusted", "diff", "ci_low", "ci_high", "ci_df", "n_clusters",
            "statistic", "effect_size", "mean_a", "mean_b", "n_a", "n_b"]


def _assert_same(lazy_c: rg.Comparison, mem_c: rg.Comparison) -> None:
    a, b = lazy_c.table, mem_c.table
    assert list(a.columns) == list(b.columns)
    assert len(a) == len(b) > 0
    for c in ("dataset", "metric", "system_a", "system_b", "test", "ci_method",
              "effect_size_name", "paired", "significant"):
        assert list(a[c]) == list(b[c]), c
    for c in COMPARED:
        np.testing.assert_allclose(a[c].to_numpy(float), b[c].to_numpy(float), rtol=RTOL,
                                   atol=ATOL, err_msg=c)
    assert lazy_c.tests_used == mem_c.tests_used
    # the design in the signature: cluster:cluster and cse:CR2/CR1, and the leaderboard's
    # mean_ci field (describe from the lazy statistics, tests/lazy/test_lazy_describe.py), as in
    # memory
    assert lazy_c.signature.split("|") == mem_c.signature.split("|")


@pytest.mark.parametrize("table", [
    "unbalanced", pytest.param("balanced", marks=pytest.mark.slow), pytest.param("many", marks=pytest.mark.slow)])
def test_compare_equals_in_memory(tmp_path: Path, engine: str, table: str) -> None:
    df = _clustered(3, TABLES[table])
    lazy = _open(df, tmp_path, engine)
    assert lazy.has_cluster and lazy.cluster_name == "cluster"
    got = rg.compare(lazy)
    want = rg.compare(rg.Scores(df))
    _assert_same(got, want)
    assert set(got.table["test"]) == {"paired-t", "mcnemar"}
    assert got.table["ci_method"].eq("cluster-robust t (CR2)").all()
    assert "cluster:cluster|cse:CR2" in got.signature


@pytest.mark.slow
def test_mcnemar_method_follows_the_cluster_sizes(tmp_path: Path) -> None:
    """The clustered McNemar statistic of each table is the one YSH recommend for its sizes:
    checked against stats.clustered_mcnemar on the per-item vectors."""
    from ranger_eval.stats import clustered_mcnemar

    for table, method in (("balanced", "yang"), ("unbalanced", "durkalski"), ("many", "yang")):
        df = _clustered(5, TABLES[table], systems=("A", "B"), metrics=("acc",))
        got = rg.compare(_open(df, tmp_path, "duckdb")).table
        for d, row in got.set_index("dataset").iterrows():
            sub = df[df["dataset"] == d].sort_values("item")
            x = sub[sub.system == "A"]["value"].to_numpy()
            y = sub[sub.system == "B"]["value"].to_numpy()
            ref = clustered_mcnemar(x, y, clusters=sub[sub.system == "A"]["cluster"].to_numpy(),
                                    method=method)
            np.testing.assert_allclose(row["pvalue"], ref.pvalue, rtol=RTOL)
            np.testing.assert_allclose(row["statistic"], ref.statistic, rtol=RTOL)


@pytest.mark.parametrize("options", [
    {"cluster_se": "CR1"},
    pytest.param({"paired": False}, marks=pytest.mark.slow),
    {"test": "welch"},
    pytest.param({"test": "paired-t", "alternative": "greater", "level": 0.9}, marks=pytest.mark.slow),
    pytest.param({"pairs": "baseline", "baseline": "A", "correction": "fdr_bh"}, marks=pytest.mark.slow),
])
def test_compare_options_equal_in_memory(tmp_path: Path, engine: str, options: dict) -> None:
    df = _clustered(7, TABLES["unbalanced"])
    got = rg.compare(_open(df, tmp_path, engine), **options)
    want = rg.compare(rg.Scores(df), **options)
    _assert_same(got, want)


def test_singleton_clusters_and_streamed_groups(tmp_path: Path) -> None:
    """A dataset whose clusters each hold one item is tested as without clusters (NaN
    n_clusters); a dataset whose systems scored different items (missing='intersect') is
    compared in memory; the rows are the in-memory ones."""
    df = _clustered(11, {"d1": [1] * 20, "d2": [3, 1, 4, 2, 5, 2, 3, 6]})
    drop = (df["dataset"] == "d2") & (df["system"] == "C") & df["item"].isin(["d2-q00-0",
                                                                              "d2-q03-1"])
    df = df[~drop].reset_index(drop=True)
    got = rg.compare(_open(df, tmp_path, "duckdb"), missing="intersect")
    want = rg.compare(rg.Scores(df), missing="intersect")
    _assert_same(got, want)
    d1 = got.table[got.table["dataset"] == "d1"]
    assert d1["n_clusters"].isna().all() and set(d1["ci_method"]) <= {"paired t",
                                                                        "Tango score"}


def test_streamed_tests_keep_the_clusters(tmp_path: Path) -> None:
    """Tests that need the per-item vectors stream each group into memory with its cluster
    column: the cluster permutation test, and the in-memory refusal of a test without a
    clustered version (sign), naming the alternative."""
    df = _clustered(13, {"d1": [2, 3, 4, 1, 5, 2, 3, 2, 4, 3]}, metrics=("f1",))
    lazy = _open(df, tmp_path, "duckdb")
    got = rg.compare(lazy, test="permutation", n_resamples=999)
    want = rg.compare(rg.Scores(df), test="permutation", n_resamples=999)
    _assert_same(got, want)
    with pytest.raises(CompareError, match="no cluster-robust version.*'permutation'"):
        rg.compare(lazy, test="sign")


def test_one_cluster_is_the_in_memory_error(tmp_path: Path) -> None:
    df = _clustered(17, {"d1": [6]}, metrics=("f1",))
    with pytest.raises(CompareError, match="one cluster") as lazy_err:
        rg.compare(_open(df, tmp_path, "duckdb"))
    with pytest.raises(CompareError) as mem_err:
        rg.compare(rg.Scores(df))
    assert str(lazy_err.value) == str(mem_err.value)


@pytest.mark.parametrize("measure", ["MD", "SMD", pytest.param("SMCC", marks=pytest.mark.slow),
                                     pytest.param("SMCR", marks=pytest.mark.slow)])
def test_effect_sizes_are_cluster_robust(tmp_path: Path, engine: str, measure: str) -> None:
    df = _clustered(19, TABLES["unbalanced"], metrics=("f1",))
    lazy = _open(df, tmp_path, engine)
    got = lazy.effect_sizes(treatment="C", control="A", measure=measure)
    want = rg.effect_sizes(rg.Scores(df), treatment="C", control="A", measure=measure)
    np.testing.assert_allclose(got.yi, want.yi, rtol=RTOL)
    np.testing.assert_allclose(got.vi, want.vi, rtol=RTOL)
    naive = rg.effect_sizes(rg.Scores(df.drop(columns="cluster")), treatment="C", control="A",
                            measure=measure)
    assert not np.allclose(got.vi, naive.vi)  # the clusters changed the variances
    with pytest.raises(EffectSizeError, match="ZCOR has no cluster-robust variance"):
        lazy.effect_sizes(treatment="C", control="A", measure="ZCOR")


def test_cluster_statistics_are_sums_and_sizes(tmp_path: Path, engine: str) -> None:
    df = _clustered(23, {"d1": [2, 3, 1], "d2": [4, 2]}, metrics=("f1",))
    got = _open(df, tmp_path, engine).cluster_statistics()
    want = (df.groupby(["dataset", "metric", "system", "cluster"])["value"]
            .agg(n="size", sum="sum").reset_index())
    assert list(got.columns) == ["dataset", "metric", "system", "cluster", "n", "sum"]
    merged = got.merge(want, on=["dataset", "metric", "system", "cluster"],
                       suffixes=("", "_ref"))
    assert len(merged) == len(got) == len(want)
    assert (merged["n"] == merged["n_ref"]).all()
    np.testing.assert_allclose(merged["sum"], merged["sum_ref"], rtol=1e-12)


def test_item_in_two_clusters_is_named(tmp_path: Path, engine: str) -> None:
    df = _clustered(29, {"d1": [2, 2, 2]}, metrics=("f1",))
    df.loc[(df["system"] == "B") & (df["item"] == "d1-q01-0"), "cluster"] = "p02"
    with pytest.raises(ScoresError, match=r"item 'd1-q01-0' is in several clusters: 'p01' .*"
                                          r"'p02' .*system 'B'"):
        _open(df, tmp_path, engine)


def test_blank_cluster_id_is_named(tmp_path: Path, engine: str) -> None:
    df = _clustered(31, {"d1": [2, 2]}, metrics=("f1",))
    df.loc[4, "cluster"] = "  "
    with pytest.raises(ScoresError, match="row 4: blank cluster id"):
        _open(df, tmp_path, engine)


def test_unused_cluster_se_warns_once(tmp_path: Path) -> None:
    df = _clustered(37, {"d1": [2, 2, 3]}, metrics=("f1",)).drop(columns="cluster")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        comp = rg.compare(_open(df, tmp_path, "duckdb"), cluster_se="CR1", test="wilcoxon")
    assert sum("cluster_se='CR1' has no effect" in str(w.message) for w in caught) == 1
    assert "n_clusters" not in comp.table.columns
