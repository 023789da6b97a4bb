"""Scores' optional columns: cluster, sample, human_value."""
from __future__ import annotations

import math
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ranger_eval as rg
from ranger_eval.errors import ScoresError
from ranger_eval.scores import Scores


def _table(k: int = 2, *, clusters: bool = True, seed: int = 0) -> pd.DataFrame:
    """Two datasets × systems A, B × 6 items × k samples; items q0-q2 in cluster p, q3-q5 in r
    (the same cluster ids in both datasets: nested, so different clusters)."""
    rng = np.random.default_rng(seed)
    rows = [(d, s, f"q{i}", str(j), "p" if i < 3 else "r", float(rng.integers(0, 2)))
            for d in ("d1", "d2") for s in ("A", "B") for i in range(6) for j in range(k)]
    df = pd.DataFrame(rows, columns=["dataset", "system", "item", "sample", "cluster", "value"])
    return df if clusters else df.drop(columns="cluster")


def test_samples_are_averaged_per_item_before_anything_else() -> None:
    df = _table(3)
    s = Scores(df)
    expected = df.groupby(["dataset", "system", "item"], sort=False)["value"].agg(["mean", "var"])
    got = s.table.set_index(["dataset", "system", "item"])["value"]
    assert np.array_equal(got.to_numpy(), expected["mean"].to_numpy())
    stats = s.sample_stats()
    assert (stats["k_samples"] == 3).all()
    np.testing.assert_allclose(stats["within_var"].to_numpy(), expected["var"].to_numpy(),
                               rtol=1e-15)
    assert s.has_samples and s.samples_label == "3"
    assert "sample" not in s.table.columns and "sample" in s.raw_frame.columns
    assert len(s.raw_frame) == len(df)


def test_compare_and_effects_on_samples_equal_the_averaged_table_and_sign_it() -> None:
    df = _table(3)
    averaged = df.groupby(["dataset", "system", "item", "cluster"], as_index=False,
                          sort=False)["value"].mean()
    with_samples, plain = Scores(df), Scores(averaged)
    a, b = rg.compare(with_samples), rg.compare(plain)
    np.testing.assert_array_equal(a.table["pvalue"].to_numpy(), b.table["pvalue"].to_numpy())
    assert a.signature.fields["samples"] == "3"
    assert "samples" not in b.signature.fields
    ea = rg.effect_sizes(with_samples, treatment="B", control="A", measure="MD")
    eb = rg.effect_sizes(plain, treatment="B", control="A", measure="MD")
    np.testing.assert_array_equal(ea.yi, eb.yi)
    np.testing.assert_array_equal(ea.vi, eb.vi)
    assert ea.signature.fields["samples"] == "3"
    assert rg.meta_analysis(ea).signature.fields["samples"] == "3"


def test_no_sample_column_keeps_the_table_and_reports_k_one() -> None:
    df = _table(1).drop(columns="sample")
    s = Scores(df)
    assert not s.has_samples and s.samples_label is None
    stats = s.sample_stats()
    assert (stats["k_samples"] == 1).all() and stats["within_var"].isna().all()


def test_k_may_differ_between_systems_and_between_items() -> None:
    df = _table(2)
    more = df[(df["system"] == "B") & (df["sample"] == "0")].assign(sample="9")
    s = Scores(pd.concat([df, more]))
    assert s.samples_label == "2-3"
    short = Scores(df.iloc[1:])  # item q0 of the first system lost a sample: K = 1 there
    first = df.iloc[1:].groupby(["dataset", "system", "item"], sort=False)["value"]
    got = short.table.set_index(["dataset", "system", "item"])["value"]
    want = first.mean()
    assert np.array_equal(got.loc[want.index].to_numpy(), want.to_numpy())  # own K_i each
    assert short.samples_label == "1-2"
    assert short.sample_stats()["k_samples"].tolist()[:2] == [1, 2]
    assert len(short) == len(Scores(df))  # no item dropped


def test_duplicate_item_sample_rows_are_duplicate_keys() -> None:
    df = _table(2)
    with pytest.raises(ScoresError, match=r"share a key \(dataset, system, metric, item, sample\)"):
        Scores(pd.concat([df, df.iloc[[3]]]))


@pytest.mark.parametrize("bad, message", [
    (np.nan, r"missing cluster id .* at row 0 \(dataset 'd1', system 'A', item 'q0'\)"),
    (None, r"missing cluster id"),
    ("  ", r"blank cluster id '  ' at row 0"),
])
def test_missing_or_blank_cluster_ids_are_errors_naming_the_row(bad: object, message: str) -> None:
    df = _table(1).astype({"cluster": object})
    df.loc[0, "cluster"] = bad
    with pytest.raises(ScoresError, match=message):
        Scores(df)


def test_an_item_in_two_clusters_is_an_error_naming_dataset_item_and_clusters() -> None:
    df = _table(1)
    df.loc[(df["system"] == "B") & (df["item"] == "q1") & (df["dataset"] == "d2"), "cluster"] = "x"
    with pytest.raises(ScoresError, match=r"dataset 'd2': item 'q1' is in several clusters: "
                                          r"'p' \(row \d+, system 'A'\); 'x' \(row \d+, "
                                          r"system 'B'\)"):
        Scores(df)


def test_clusters_are_nested_within_datasets() -> None:
    s = Scores(_table(1))
    pt = s.pair_all("B", "A")
    assert pt.clusters is not None and pt.cluster_labels is not None
    seg1 = pt.clusters[pt.offsets[0]:pt.offsets[1]]
    seg2 = pt.clusters[pt.offsets[1]:pt.offsets[2]]
    assert set(seg1.tolist()).isdisjoint(seg2.tolist())  # same ids, different clusters
    assert list(pt.cluster_labels[seg2]) == ["p"] * 3 + ["r"] * 3
    assert list(pt.pair(1).clusters) == ["p"] * 3 + ["r"] * 3
    assert list(s.pair("d1", "B", "A").clusters) == ["p"] * 3 + ["r"] * 3
    clusters = s.item_clusters("d2")
    assert list(clusters.index) == [f"q{i}" for i in range(6)]
    codes = s.cluster_codes("d1", np.array(["q5", "q0", "q4"], dtype=object))
    assert codes.tolist() == [1, 0, 1] and codes.dtype == np.int64
    with pytest.raises(ScoresError, match=r"unknown item\(s\) 'zz'"):
        s.cluster_codes("d1", ["zz"])
    assert not Scores(_table(1, clusters=False)).has_cluster
    assert Scores(_table(1, clusters=False)).pair_all("B", "A").clusters is None


def test_filter_and_concat_keep_the_samples() -> None:
    s = Scores(_table(2))
    only = s.filter(datasets=["d1"])
    assert only.has_samples and len(only.raw_frame) == len(s.raw_frame) // 2
    both = Scores.concat([only, s.filter(datasets=["d2"])])
    assert both.table.equals(s.table)
    assert both.sample_stats().equals(s.sample_stats())


def test_human_values_are_averaged_and_checked() -> None:
    df = _table(2).assign(human_value=np.nan)
    df.loc[[0, 1], "human_value"] = [1.0, 0.0]
    s = Scores(df)
    assert s.has_human_values
    assert s.table["human_value"].iloc[0] == 0.5 and s.table["human_value"].iloc[1:].isna().all()
    df.loc[1, "human_value"] = np.nan
    with pytest.raises(ScoresError, match=r"human score for 1 of its 2 samples"):
        Scores(df)
    df.loc[1, "human_value"] = np.inf
    with pytest.raises(ScoresError, match=r"'human_value': non-finite value inf at row 1"):
        Scores(df)
    df = df.astype({"human_value": object})
    df.loc[1, "human_value"] = "good"
    with pytest.raises(ScoresError, match=r"'human_value': .*'good' at row 1"):
        Scores(df)


def test_set_level_metrics_refuse_samples() -> None:
    df = _table(2).assign(label="x", prediction="x")
    s = Scores(df)
    with pytest.raises(ScoresError, match="one prediction per item.*'sample' column"):
        s.runs("d1", "A", predictions=True)


def test_samples_with_seeds_average_within_seed() -> None:
    df = pd.concat([_table(2).assign(seed="1"), _table(2, seed=1).assign(seed="2")])
    s = Scores(df)
    assert len(s.table) == len(df) // 2 and s.has_seeds
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        v = s.values("d1", "A")
    manual = df[(df.dataset == "d1") & (df.system == "A")].groupby("item")["value"].mean()
    np.testing.assert_allclose(v.to_numpy(), manual.to_numpy(), rtol=1e-15)


def test_display_names_keep_the_samples(monkeypatch: pytest.MonkeyPatch) -> None:
    import ranger_eval.pipeline._common as common  # where with_display_names reads them

    monkeypatch.setattr(common, "display_names", lambda exp: ({"A": "Alpha"}, {}))
    renamed = common.with_display_names(Scores(_table(3)), None)
    assert renamed.systems == ("Alpha", "B") and renamed.samples_label == "3"
    assert (renamed.sample_stats()["k_samples"] == 3).all()


@settings(max_examples=30, deadline=None)
@given(st.integers(1, 4), st.integers(2, 6), st.randoms(use_true_random=False))
def test_sample_averaging_is_the_per_item_mean_in_any_row_order(k: int, n: int,
                                                                rnd: object) -> None:
    rows = [("d", s, f"q{i}", f"s{j}", float(rnd.randint(0, 4)) / 4)  # type: ignore[attr-defined]
            for s in ("A", "B") for i in range(n) for j in range(k)]
    df = pd.DataFrame(rows, columns=["dataset", "system", "item", "sample", "value"])
    shuffled = df.sample(frac=1.0, random_state=rnd.randint(0, 10**6))  # type: ignore[attr-defined]
    a, b = Scores(df), Scores(shuffled)
    for s in ("A", "B"):
        want = df[df.system == s].groupby("item")["value"].mean()
        np.testing.assert_allclose(a.values("d", s).to_numpy(), want.to_numpy(), rtol=1e-15)
        np.testing.assert_allclose(b.values("d", s).to_numpy(), want.to_numpy(), rtol=1e-15)
    assert a.samples_label == b.samples_label == str(k)


def test_unequal_samples_per_item_give_the_per_item_mean_analysis() -> None:
    """compare and describe on Scores whose items have different K equal the analyses of the
    per-item means; describe's within-item variance uses each item's own K_i."""
    df = _table(4, clusters=False, seed=5)
    rng = np.random.default_rng(6)
    df = df[~((df["sample"] == "3") & (rng.random(len(df)) < 0.5))]  # K_i ∈ {3, 4}
    df = df[~((df["item"] == "q0") & (df["system"] == "A") & (df["sample"] != "0"))]  # K = 1
    s = Scores(df)
    assert s.samples_label == "1-4"
    means = df.groupby(["dataset", "system", "item"], sort=False, as_index=False)["value"].mean()
    plain = Scores(means)
    assert len(s) == len(plain) == 2 * 2 * 6  # nothing dropped
    got = rg.compare(s).to_frame()
    want = rg.compare(plain).to_frame()
    for col in ("diff", "ci_low", "ci_high", "pvalue", "n_a", "n_b"):
        np.testing.assert_allclose(got[col].to_numpy(dtype=float),
                                   want[col].to_numpy(dtype=float), rtol=1e-12)
    d = rg.describe(s).set_index(["dataset", "system"])
    np.testing.assert_allclose(d["mean"].to_numpy(),
                               rg.describe(plain).set_index(["dataset", "system"])
                               .loc[d.index, "mean"].to_numpy(), rtol=1e-14)
    # var_within = Σ_i s_i² / K_i / n², an item with K_i = 1 taking the pooled s² of the rest
    g = df.groupby(["dataset", "system", "item"], sort=False)["value"]
    per = pd.DataFrame({"var": g.var(ddof=1), "k": g.size()}).reset_index()
    for (dataset, system), block in per.groupby(["dataset", "system"]):
        pooled = block.loc[block["k"] > 1, "var"].mean()
        v = block["var"].fillna(pooled).to_numpy()
        want_within = float((v / block["k"].to_numpy()).sum() / len(block) ** 2)
        row = d.loc[(dataset, system)]
        assert math.isclose(row["var_within"], want_within, rel_tol=1e-12)
        assert math.isclose(row["within_sd"], math.sqrt(pooled), rel_tol=1e-12)
        assert row["k_samples"] == block["k"].max()


def test_describe_with_seeds_weights_each_seed_by_its_own_k() -> None:
    """With seeds, an item's sampling variance is Σ_r s_r² / K_r / R² over its R seeds."""
    rng = np.random.default_rng(11)
    rows = [("d", s, f"q{i}", str(r), str(j), float(rng.random() < 0.5))
            for s in ("A", "B") for i in range(8) for r in range(2)
            for j in range(3 if (i + r) % 2 else 5)]
    df = pd.DataFrame(rows, columns=["dataset", "system", "item", "seed", "sample", "value"])
    d = rg.describe(Scores(df)).set_index("system")
    cell = df.groupby(["system", "item", "seed"])["value"].agg(["var", "size"]).reset_index()
    cell["part"] = cell["var"] / cell["size"]
    for system, block in cell.groupby("system"):
        per_item = block.groupby("item")["part"].sum() / 2 ** 2
        want = float(per_item.sum() / len(per_item) ** 2)
        assert math.isclose(d.loc[system, "var_within"], want, rel_tol=1e-12)
