"""rg.describe: per-system means with (cluster-robust) standard errors, ICC, design effect and
Miller's variance decomposition, against Inspect AI, statsmodels and R ICC::ICCest
(tests/oracles/describe_oracles.py, describe_oracles.R)."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ranger_eval as rg
from ranger_eval.errors import StatsInputError
from ranger_eval.stats.describe import COLUMNS

ORACLES = Path(__file__).resolve().parents[1] / "oracles"
PY = json.loads((ORACLES / "describe_oracles.json").read_text())
ICC = json.loads((ORACLES / "describe_oracles_icc.json").read_text())["cases"]
CASES = {c["name"]: c for c in PY["cases"]}


def _frame(case: dict[str, object], *, clusters: bool = True) -> pd.DataFrame:
    df = pd.DataFrame({"dataset": "d", "system": "A", "item": case["items"],
                       "value": case["values"]})
    return df.assign(cluster=case["clusters"]) if clusters else df


@pytest.mark.parametrize("name", list(CASES))
@pytest.mark.parametrize("clustered", [False, True])
def test_mean_se_and_interval_equal_inspect_and_statsmodels(name: str, clustered: bool) -> None:
    case = CASES[name]
    want = case["expected"]["clustered" if clustered else "iid"]
    for level in PY["levels"]:
        row = rg.describe(_frame(case, clusters=clustered), level=level, interval="t").iloc[0]
        assert row["mean"] == pytest.approx(case["expected"]["mean"], rel=1e-13)
        assert row["se"] == pytest.approx(want["se"], rel=1e-10)
        assert row["se"] == pytest.approx(want["statsmodels_se"], rel=1e-10)
        interval = want["ci"][str(level)]
        assert row["ci_low"] == pytest.approx(interval["lower"], rel=1e-9)
        assert row["ci_high"] == pytest.approx(interval["upper"], rel=1e-9)
        n_clusters = len(set(case["clusters"])) if clustered else len(case["values"])
        assert row["n"] == len(case["values"]) and row["n_clusters"] == n_clusters


@pytest.mark.parametrize("name", list(ICC))
def test_icc_equals_r_iccest(name: str) -> None:
    row = rg.describe(_frame(CASES[name])).iloc[0]
    assert row["icc"] == pytest.approx(ICC[name]["icc"], rel=1e-10)
    sizes = pd.Series(CASES[name]["clusters"]).value_counts().to_numpy()
    m_w = (sizes ** 2).sum() / sizes.sum()
    assert row["design_effect"] == pytest.approx(1 + (m_w - 1) * ICC[name]["icc"], rel=1e-10)


def test_one_item_per_cluster_gives_exactly_the_unclustered_numbers() -> None:
    case = CASES["strong-icc"]
    plain = rg.describe(_frame(case, clusters=False))
    singletons = rg.describe(_frame(case, clusters=False).assign(cluster=case["items"]))
    pd.testing.assert_frame_equal(plain, singletons, check_exact=True)
    assert plain["design_effect"].iloc[0] == 1.0 and np.isnan(plain["icc"].iloc[0])
    assert plain.columns.tolist() == list(COLUMNS)


def test_design_effect_of_equal_clusters_is_one_plus_m_minus_one_icc() -> None:
    rng = np.random.default_rng(3)
    cl = np.repeat(np.arange(15), 4)
    df = pd.DataFrame({"dataset": "d", "system": "A", "item": np.arange(60).astype(str),
                       "cluster": cl.astype(str),
                       "value": rng.normal(size=15)[cl] + rng.normal(size=60)})
    row = rg.describe(df).iloc[0]
    assert row["design_effect"] == pytest.approx(1 + 3 * row["icc"], rel=1e-14)


def _with_samples(k: int, seed: int = 5) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    truth = rng.normal(size=40)
    rows = [("d", s, f"q{i}", f"c{i // 4}", str(j), truth[i] + rng.normal(0, 0.8))
            for s in ("A", "B") for i in range(40) for j in range(k)]
    return pd.DataFrame(rows, columns=["dataset", "system", "item", "cluster", "sample", "value"])


def test_samples_give_k_within_sd_and_the_variance_split() -> None:
    df = _with_samples(5)
    out = rg.describe(df).set_index("system")
    a = df[df.system == "A"]
    per_item = a.groupby("item")["value"].agg(["mean", "var"])
    assert out.loc["A", "k_samples"] == 5
    assert out.loc["A", "mean"] == pytest.approx(per_item["mean"].mean(), rel=1e-14)
    assert out.loc["A", "within_sd"] == pytest.approx(np.sqrt(per_item["var"].mean()), rel=1e-13)
    var_within = per_item["var"].mean() / (40 * 5)
    assert out.loc["A", "var_within"] == pytest.approx(var_within, rel=1e-13)
    assert out.loc["A", "var_between"] == pytest.approx(out.loc["A", "se"] ** 2 - var_within,
                                                        rel=1e-12)
    averaged = a.groupby(["dataset", "system", "item", "cluster"], as_index=False)["value"].mean()
    same = rg.describe(averaged).iloc[0]
    for col in ("n", "n_clusters", "mean", "se", "ci_low", "ci_high", "icc", "design_effect"):
        assert out.loc["A", col] == pytest.approx(same[col], rel=1e-13)
    one = rg.describe(_with_samples(1)).iloc[0]
    assert one["k_samples"] == 1
    assert np.isnan([one["within_sd"], one["var_within"], one["var_between"]]).all()


def test_seeds_are_averaged_after_samples() -> None:
    df = pd.concat([_with_samples(3, 1).assign(seed="1"), _with_samples(3, 2).assign(seed="2")])
    row = rg.describe(df).iloc[0]
    a = df[df.system == "A"]
    per_row = a.groupby(["item", "seed"])["value"].agg(["mean", "var"])
    item_mean = per_row["mean"].groupby(level="item").mean()
    assert row["mean"] == pytest.approx(item_mean.mean(), rel=1e-14)
    # each item is the mean of 2 seeds × 3 samples: within part var_w / (3 · 2) per item
    assert row["var_within"] == pytest.approx(per_row["var"].mean() / 6 / 40, rel=1e-12)


def test_rows_follow_datasets_metrics_and_systems_in_order_of_appearance() -> None:
    df = _with_samples(2).drop(columns="sample").drop_duplicates(["system", "item"])
    two = pd.concat([df.assign(dataset="z"), df.assign(dataset="a", metric="m2"),
                     df.assign(dataset="a", metric="m1")]).fillna({"metric": "m0"})
    out = rg.describe(two)
    assert list(zip(out.dataset, out.metric, out.system, strict=True)) == [
        ("z", "m0", "A"), ("z", "m0", "B"), ("a", "m2", "A"), ("a", "m2", "B"),
        ("a", "m1", "A"), ("a", "m1", "B")]


def test_a_single_cluster_is_an_error_naming_the_group() -> None:
    df = _with_samples(1).assign(cluster="only")
    with pytest.raises(StatsInputError, match=r"dataset 'd', metric 'score', system 'A' has 1 "
                                              r"cluster; a standard error needs at least 2 "
                                              r"clusters \(2 dataset × metric × system groups"):
        rg.describe(df)
    with pytest.raises(StatsInputError, match=r"has 1 item; .* at least 2 items"):
        rg.describe(pd.DataFrame({"dataset": "d", "system": "A", "item": ["1"], "value": [1.0]}))
    with pytest.raises(StatsInputError, match="level"):
        rg.describe(df, level=95)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 5), st.floats(-10, 10)), min_size=4, max_size=30),
       st.randoms(use_true_random=False))
def test_invariant_to_item_order_and_cluster_labels(rows: list[tuple[int, float]],
                                                    rnd: object) -> None:
    clusters = [c for c, _ in rows]
    if len(set(clusters)) < 2:
        clusters[0] = 6
    df = pd.DataFrame({"dataset": "d", "system": "A", "item": [f"i{j}" for j in range(len(rows))],
                       "cluster": [f"k{c}" for c in clusters], "value": [v for _, v in rows]})
    base = rg.describe(df)
    order = list(range(len(df)))
    rnd.shuffle(order)  # type: ignore[attr-defined]
    labels = sorted(set(df["cluster"]))
    renamed = dict(zip(labels, rnd.sample(labels, len(labels)), strict=True))  # type: ignore[attr-defined]
    other = df.iloc[order].assign(cluster=lambda x: x["cluster"].map(lambda c: "new" + renamed[c]))
    moved = rg.describe(other)
    for col in ("n", "n_clusters", "k_samples"):
        assert moved[col].iloc[0] == base[col].iloc[0]
    for col in ("mean", "se", "ci_low", "ci_high", "icc", "design_effect"):
        a, b = base[col].iloc[0], moved[col].iloc[0]
        assert (np.isnan(a) and np.isnan(b)) or b == pytest.approx(a, rel=1e-9, abs=1e-12)


def test_groups_select_dataset_metric_pairs_before_computing() -> None:
    df = _with_samples(2).drop(columns="sample").drop_duplicates(["system", "item"])
    both = pd.concat([df.assign(dataset="x"), df.assign(dataset="y", cluster="one")])
    with pytest.raises(StatsInputError, match="dataset 'y'"):
        rg.describe(both)  # y has one cluster
    only_x = rg.describe(both, groups=[("x", "score")])
    pd.testing.assert_frame_equal(only_x, rg.describe(df.assign(dataset="x")))
    with pytest.raises(StatsInputError, match="no scores in the groups"):
        rg.describe(both, groups=[("z", "score")])


@pytest.mark.parametrize("clustered", [False, True])
def test_values_near_the_float64_limit_are_described_on_their_own_scale(clustered: bool) -> None:
    # scores up to 1.5e308 (bad input 347): the group's power-of-two scale 2^1024 is itself
    # beyond float64, so each number is scaled back on its own; the statistics equal those of
    # the same scores × 2^-1000, scaled back exactly
    case = CASES["strong-icc"]
    base = _frame(case, clusters=clustered)
    top = np.abs(base["value"]).max()
    big = base.assign(value=base["value"] / top * 1.5e308)
    small = big.assign(value=np.ldexp(big["value"].to_numpy(), -1000))
    with np.errstate(all="raise"):
        got = rg.describe(big)
    ref = rg.describe(small)
    for col in ("mean", "se", "ci_low", "ci_high"):
        np.testing.assert_array_equal(got[col].to_numpy(), np.ldexp(ref[col].to_numpy(), 1000))
    assert np.isfinite(got[["mean", "se", "ci_low", "ci_high"]].to_numpy()).all()
    np.testing.assert_array_equal(got["icc"].to_numpy(), ref["icc"].to_numpy())


@pytest.mark.parametrize("size_factor", [1, 3, 100])  # counting path; counting; np.unique fallback
@pytest.mark.parametrize("n", [0, 1, 7, 5000])
def test_unique_inverse_equals_numpy_unique(n, size_factor):
    """The counting form of ``np.unique(codes, return_inverse=True)`` that describe uses to avoid
    sorting millions of group codes gives numpy's two arrays exactly, on both of its paths."""
    import numpy as np

    from ranger_eval.stats.describe import _unique_inverse

    rng = np.random.default_rng(n + size_factor)
    size = max(1, n * size_factor) + (2000 if size_factor == 100 else 0)
    codes = rng.integers(0, size, n).astype(np.int64)
    uniq, inverse = _unique_inverse(codes, size)
    want_u, want_inv = np.unique(codes, return_inverse=True)
    assert np.array_equal(uniq, want_u) and np.array_equal(inverse, want_inv.reshape(-1))
    assert inverse.dtype == np.int64
