"""Tests of the metric aggregates of IBM §6.1 (aggregate_metrics) and §6.3 (standardized_means)."""
from __future__ import annotations

import json
import math
from contextlib import contextmanager
from unittest import mock

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from scipy import stats

import ranger_eval.aggregate.metrics as agg_module
from ranger_eval.aggregate.metrics import (
    aggregate_metrics,
    metric_direction,
    standardized_means,
)
from ranger_eval.errors import AggregateError, RangerError
from ranger_eval.scores import Scores

RTOL = 1e-12
PATHS = ("blocks", "hashed")


@contextmanager
def matching(path: str):
    """Force how items are matched: by comparing blocks of rows, or by hashing the item ids."""
    used: list[bool] = []
    real = agg_module._paired_blocks

    def spy(*args, **kwargs):
        out = real(*args, **kwargs)
        used.append(out is not None)
        return out

    setting = ("_MIN_BLOCK", 1) if path == "blocks" else ("_MAX_BLOCKS", -1)
    with mock.patch.object(agg_module, setting[0], setting[1]), \
            mock.patch.object(agg_module, "_paired_blocks", spy):
        yield used


def tidy(rows: list[dict]) -> pd.DataFrame:
    return pd.DataFrame(rows)


def result_map(scores: Scores) -> dict[tuple, float]:
    f = scores.frame
    keys = ["dataset", "system", "item"] + (["seed"] if "seed" in f.columns else [])
    return {tuple(r[:-1]): float(r[-1]) for r in f[keys + ["value"]].itertuples(index=False)}


def small() -> pd.DataFrame:
    """Two systems, two items, two metrics (one lower-is-better); values chosen by hand."""
    rows = []
    acc = {("A", "1"): 1.0, ("A", "2"): 0.0, ("B", "1"): 1.0, ("B", "2"): 1.0}
    lat = {("A", "1"): 10.0, ("A", "2"): 20.0, ("B", "1"): 30.0, ("B", "2"): 40.0}
    for (s, i), v in acc.items():
        rows.append({"dataset": "d", "system": s, "metric": "accuracy", "item": i, "value": v})
    for (s, i), v in lat.items():
        rows.append({"dataset": "d", "system": s, "metric": "latency", "item": i, "value": v})
    return pd.DataFrame(rows)


# --------------------------------------------------------------------------- §6.1 values


def test_hand_computed_example():
    # accuracy 1,0,1,1: mean 0.75, sd sqrt(0.25) = 0.5 -> z = 0.5, -1.5, 0.5, 0.5
    # latency 10..40: mean 25, sd sqrt(500/3) -> z = ∓1.5/ s, ... negated (lower is better)
    out = aggregate_metrics(Scores(small()))
    s = math.sqrt(500.0 / 3.0)
    expected = {
        ("d", "A", "1"): (0.5 + 15 / s) / 2,
        ("d", "A", "2"): (-1.5 + 5 / s) / 2,
        ("d", "B", "1"): (0.5 - 5 / s) / 2,
        ("d", "B", "2"): (0.5 - 15 / s) / 2,
    }
    got = result_map(out)
    assert got.keys() == expected.keys()
    for k, v in expected.items():
        assert got[k] == pytest.approx(v, rel=RTOL, abs=1e-15)
    f = out.frame
    assert list(f.columns) == ["dataset", "system", "metric", "item", "value"]
    assert set(f["metric"]) == {"aggregate"}
    # the pooled aggregate has mean 0 (each standardised metric has)
    assert f["value"].mean() == pytest.approx(0.0, abs=1e-15)


def test_weights_are_normalised_and_zero_weight_leaves_a_metric_out():
    df = small()
    out = result_map(aggregate_metrics(df, weights={"accuracy": 3.0, "latency": 1.0}))
    s = math.sqrt(500.0 / 3.0)
    assert out[("d", "A", "2")] == pytest.approx(0.75 * -1.5 + 0.25 * 5 / s, rel=RTOL)
    only_acc = result_map(aggregate_metrics(df, weights={"accuracy": 2.0, "latency": 0}))
    assert only_acc[("d", "A", "2")] == pytest.approx(-1.5, rel=RTOL)
    # a weight-0 metric needs no direction and may be constant
    df2 = df.copy()
    df2.loc[df2["metric"] == "latency", "metric"] = "mystery"
    df2.loc[df2["metric"] == "mystery", "value"] = 7.0
    assert result_map(aggregate_metrics(df2, weights={"accuracy": 1, "mystery": 0})) == only_acc


@pytest.mark.parametrize("path", PATHS)
def test_matches_scipy_zscore_oracle(oracles, path):
    data = json.loads((oracles / "aggregate_metrics_oracle.json").read_text())
    case = data["multi"]
    scores = Scores(tidy(case["rows"]))
    for weights, expected in ((case["weights"], case["expected"]),
                              (None, data["equal_weights"]["expected"])):
        with matching(path) as used:
            got = result_map(aggregate_metrics(scores, weights=weights,
                                               higher_is_better=case["higher_is_better"]))
        assert used == [path == "blocks"]
        want = {(e["dataset"], e["system"], e["item"]): e["value"] for e in expected}
        assert got.keys() == want.keys()
        for k, v in want.items():
            assert got[k] == pytest.approx(v, rel=data["rtol"], abs=1e-14), k
    seeds = data["seeds"]
    with matching(path) as used:
        out = aggregate_metrics(Scores(tidy(seeds["rows"])),
                                higher_is_better=seeds["higher_is_better"])
    assert used == [path == "blocks"]
    assert out.has_seeds and "seed" in out.frame.columns
    got = result_map(out)
    want = {(e["dataset"], e["system"], e["item"], e["seed"]): e["value"]
            for e in seeds["expected"]}
    assert got.keys() == want.keys()
    for k, v in want.items():
        assert got[k] == pytest.approx(v, rel=data["rtol"], abs=1e-14), k


def test_directions_by_name_and_output_order():
    # names of the oracle's metrics are all known: the same result without higher_is_better
    rows = small().replace({"metric": {"accuracy": "nDCG@10", "latency": "latency_ms"}})
    a = result_map(aggregate_metrics(rows))
    b = result_map(aggregate_metrics(small()))
    assert a == b
    out = aggregate_metrics(rows, name="agg(nDCG, latency)").frame
    assert list(out["system"]) == ["A", "A", "B", "B"] and list(out["item"]) == ["1", "2", "1", "2"]
    assert set(out["metric"]) == {"agg(nDCG, latency)"}


def test_metadata_columns_are_dropped_and_input_untouched():
    df = small()
    df["run_file"] = "x.run"
    scores = Scores(df)
    before = scores.frame.copy()
    out = aggregate_metrics(scores)
    assert "run_file" not in out.frame.columns
    pd.testing.assert_frame_equal(scores.frame, before)


def test_single_metric_is_its_standardised_values():
    rows = small()
    one = rows[rows["metric"] == "latency"]
    got = result_map(aggregate_metrics(one))
    z = -stats.zscore(one["value"].to_numpy(), ddof=1)
    assert list(got.values()) == pytest.approx(list(z), rel=RTOL)


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("nDCG@10", True), ("ndcg_cut_10", True), ("AP", True), ("MAP", True),
        ("map_cut_100", True), ("MRR", True), ("RR@10", True), ("recip_rank", True), ("P@5", True),
        ("P_10", True), ("P(rel=2)@5", True), ("R@100", True), ("recall_1000", True),
        ("Recall@10", True), ("precision", True), ("accuracy", True), ("acc", True),
        ("acc_norm", True), ("F1", True), ("macro-F1", True), ("exact_match", True), ("EM", True),
        ("BLEU", True), ("bleu4", True), ("rouge1", True), ("ROUGE-L", True), ("rougeLsum", True),
        ("chrF", True), ("chrF++", True), ("BERTScore", True), ("bertscore_f1", True),
        ("MCC", True), ("AUC", True), ("roc_auc", True), ("pass@1", True), ("Judged@10", True),
        ("Success@10", True), ("Rprec", True), ("error", False), ("error_rate", False),
        ("word_error_rate", False), ("loss", False), ("val_loss", False), ("latency", False),
        ("latency_ms", False), ("perplexity", False), ("PPL", False), ("WER", False),
        ("CER", False), ("TER", False), ("time", False), ("inference time (s)", False),
        ("cost", False), ("RMSE", False), ("MAE", False), ("MSE", False), ("log_loss", False),
        ("score", None), ("ERR@20", None), ("quality", None), ("accuracy_error", None), ("", None),
    ],
)
def test_metric_direction_table(name, expected):
    assert metric_direction(name) is expected


# --------------------------------------------------------------------------- §6.1 errors


def test_unknown_direction_is_an_error_naming_the_metric():
    df = small().replace({"metric": {"latency": "quality"}})
    with pytest.raises(AggregateError, match=r"'quality'.*higher_is_better=\{'quality': True\}"):
        aggregate_metrics(df)
    out = aggregate_metrics(df, higher_is_better={"quality": False})
    assert result_map(out) == result_map(aggregate_metrics(small()))
    with pytest.raises(AggregateError, match="unknown metric.*'qualty'"):
        aggregate_metrics(df, higher_is_better={"qualty": False})
    with pytest.raises(AggregateError, match=r"higher_is_better\['quality'\] must be True or"):
        aggregate_metrics(df, higher_is_better={"quality": "no"})
    with pytest.raises(AggregateError, match="higher_is_better must be a dict"):
        aggregate_metrics(df, higher_is_better=["quality"])
    # one bool for every metric
    both_low = result_map(aggregate_metrics(df, higher_is_better=False))
    assert both_low[("d", "A", "1")] == pytest.approx(-(0.5 - 15 / math.sqrt(500 / 3)) / 2)
    assert issubclass(AggregateError, RangerError) and issubclass(AggregateError, ValueError)


def test_unpaired_items_are_listed():
    rows = []
    for m in ("AP", "nDCG@10"):
        for s in ("A", "B"):
            items = range(30) if not (m == "AP" and s == "B") else range(5, 35)
            rows += [{"dataset": "d", "system": s, "metric": m, "item": f"q{i}", "value": i % 7}
                     for i in items]
    with pytest.raises(AggregateError) as info:
        aggregate_metrics(pd.DataFrame(rows))
    msg = str(info.value)
    assert "system 'B'" in msg and "dataset 'd'" in msg and "10 item(s)" in msg
    assert "'q0' (no 'AP')" in msg and "'q30' (no 'nDCG@10')" in msg
    # at most 10 ids are listed
    assert msg.count("(no ") == 10
    paired = [{"dataset": "d", "system": s, "metric": m, "item": f"q{i}", "value": i % 7}
              for m in ("AP", "nDCG@10") for s in ("A", "B") for i in range(30)
              if not (s == "A" and m == "AP" and i < 12)]
    with pytest.raises(AggregateError, match=r"system 'A'.*12 item\(s\).*… \(2 more\)"):
        aggregate_metrics(pd.DataFrame(paired))


def test_system_without_a_metric_and_seed_pairing():
    df = small()
    df = df[~((df["system"] == "B") & (df["metric"] == "latency"))]
    with pytest.raises(AggregateError, match="system 'B' has no 'latency' scores on dataset 'd'"):
        aggregate_metrics(df)
    rows = []
    for seed in ("1", "2"):
        for m in ("f1", "rmse"):
            for i in ("a", "b"):
                if not (seed == "2" and m == "rmse" and i == "b"):
                    rows.append({"dataset": "d", "system": "S", "metric": m, "item": i,
                                 "seed": seed, "value": float(len(rows))})
    with pytest.raises(AggregateError, match=r"system 'S' \(seed '2'\).*'b' \(no 'rmse'\)"):
        aggregate_metrics(pd.DataFrame(rows))


def test_constant_metric_and_single_observation():
    df = small()
    df.loc[df["metric"] == "accuracy", "value"] = 1.0
    with pytest.raises(AggregateError, match=r"'accuracy' has the same value 1\.0 .*dataset 'd'.*"
                                             r"weight 0"):
        aggregate_metrics(df)
    one = pd.DataFrame([
        {"dataset": "d", "system": "A", "metric": "AP", "item": "1", "value": 0.5},
        {"dataset": "d", "system": "A", "metric": "RR", "item": "1", "value": 0.5},
    ])
    with pytest.raises(AggregateError, match="single observation on dataset 'd'"):
        aggregate_metrics(one)


def test_constant_detection_is_exact():
    rows = [{"dataset": "d", "system": f"s{k % 3}", "metric": m, "item": str(k // 3),
             "value": 0.1 if m == "AP" else float(k)} for m in ("AP", "RR") for k in range(21)]
    with pytest.raises(AggregateError, match=r"'AP' has the same value 0\.1 "):
        aggregate_metrics(pd.DataFrame(rows))
    # a tiny but real spread is standardised (to the same z-scores as scipy)
    for r in rows:
        if r["metric"] == "AP" and r["item"] == "0":
            r["value"] = 0.1 + 2 ** -55
    got = aggregate_metrics(pd.DataFrame(rows), weights={"AP": 1, "RR": 0}).frame["value"]
    # 3 of 21 values are δ higher: z = (δ − 3δ/21)/sd and −(3δ/21)/sd, δ cancels
    # (scipy.stats.zscore returns nan here: catastrophic cancellation)
    sd = math.sqrt((3 * (18 / 21) ** 2 + 18 * (3 / 21) ** 2) / 20)
    assert got.to_numpy()[:3] == pytest.approx([18 / 21 / sd] * 3, rel=1e-12)
    assert got.to_numpy()[3:] == pytest.approx([-3 / 21 / sd] * 18, rel=1e-12)


def test_block_layout_and_hashed_items_agree(oracles):
    """Rows in blocks (matched by comparing blocks) and shuffled rows (matched by hashing ids)."""
    data = json.loads((oracles / "aggregate_metrics_oracle.json").read_text())["multi"]
    df = tidy(data["rows"])
    with matching("blocks") as used:
        blocks = aggregate_metrics(df, higher_is_better=data["higher_is_better"])
    assert used == [True]
    shuffled = aggregate_metrics(df.sample(frac=1.0, random_state=1),
                                 higher_is_better=data["higher_is_better"])
    assert_same(blocks, shuffled, rtol=1e-13)
    # blocks whose items come in different orders are matched by id too
    groups = df.groupby(["system", "metric"], sort=False)
    reordered = pd.concat([g.iloc[::-1] if k % 2 else g for k, (_, g) in enumerate(groups)])
    assert_same(blocks, aggregate_metrics(reordered, higher_is_better=data["higher_is_better"]),
                rtol=1e-13)
    seeds = json.loads((oracles / "aggregate_metrics_oracle.json").read_text())["seeds"]
    sd = tidy(seeds["rows"])
    assert_same(aggregate_metrics(sd, higher_is_better=seeds["higher_is_better"]),
                aggregate_metrics(sd.sample(frac=1.0, random_state=2),
                                  higher_is_better=seeds["higher_is_better"]), rtol=1e-13)
    # output rows: first appearance of (dataset, system, item)
    f = blocks.frame
    firsts = df.drop_duplicates(["dataset", "system", "item"])[["dataset", "system", "item"]]
    pd.testing.assert_frame_equal(f[["dataset", "system", "item"]].astype(object),
                                  firsts.reset_index(drop=True).astype(object))


def test_bad_weights_and_name():
    df = small()
    with pytest.raises(AggregateError, match="unknown metric.*'acc'"):
        aggregate_metrics(df, weights={"acc": 1, "accuracy": 1, "latency": 1})
    with pytest.raises(AggregateError, match="no weight for metric.*'latency'"):
        aggregate_metrics(df, weights={"accuracy": 1})
    with pytest.raises(AggregateError, match=r"weights\['latency'\] must be a finite number >= 0"):
        aggregate_metrics(df, weights={"accuracy": 1, "latency": -1})
    with pytest.raises(AggregateError, match=r"weights\['latency'\].*nan"):
        aggregate_metrics(df, weights={"accuracy": 1, "latency": float("nan")})
    with pytest.raises(AggregateError, match=r"weights\['latency'\].*True"):
        aggregate_metrics(df, weights={"accuracy": 1, "latency": True})
    with pytest.raises(AggregateError, match="all zero"):
        aggregate_metrics(df, weights={"accuracy": 0, "latency": 0.0})
    with pytest.raises(AggregateError, match="weights must be a dict"):
        aggregate_metrics(df, weights=[1, 2])
    with pytest.raises(AggregateError, match="name must be a non-empty string"):
        aggregate_metrics(df, name="")
    with pytest.raises(AggregateError, match="aggregate_metrics expects a pandas DataFrame"):
        aggregate_metrics([1, 2, 3])
    two = pd.concat([df, df.assign(dataset="e", metric="latency")]).drop_duplicates(
        ["dataset", "system", "metric", "item"])
    with pytest.raises(AggregateError, match="dataset 'e' has only metrics of weight 0"):
        aggregate_metrics(two, weights={"accuracy": 1, "latency": 0})


def test_datasets_with_different_metrics_are_standardised_separately():
    a = small()
    b = small().assign(dataset="other")
    b["value"] = b["value"] * 3 + 1
    b.loc[b["metric"] == "latency", "metric"] = "cost"
    out = result_map(aggregate_metrics(pd.concat([a, b])))
    for s in ("A", "B"):
        for i in ("1", "2"):
            assert out[("other", s, i)] == pytest.approx(out[("d", s, i)], rel=1e-12)


# --------------------------------------------------------------------------- §6.1 properties

METRICS = ("AP", "nDCG@10", "latency")


@st.composite
def tables(draw):
    n_sys = draw(st.integers(2, 4))
    n_items = draw(st.integers(2, 5))
    n_metrics = draw(st.integers(1, 3))
    n_data = draw(st.integers(1, 2))
    rows = []
    for d in range(n_data):
        for m in METRICS[:n_metrics]:
            for s in range(n_sys):
                for i in range(n_items):
                    v = draw(st.integers(0, 20)) / 4
                    rows.append({"dataset": f"d{d}", "system": f"s{s}", "metric": m,
                                 "item": f"i{i}", "value": v})
    df = pd.DataFrame(rows)
    assume(df.groupby(["dataset", "metric"])["value"].nunique().min() > 1)
    return df


PROPS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def assert_same(a: Scores, b: Scores, rtol: float = 1e-9) -> None:
    ma, mb = result_map(a), result_map(b)
    assert ma.keys() == mb.keys()
    for k in ma:
        assert ma[k] == pytest.approx(mb[k], rel=rtol, abs=1e-9), k


@PROPS
@given(tables(), st.randoms(use_true_random=False), st.sampled_from(PATHS))
def test_property_row_order_invariance(df, rnd, path):
    order = list(range(len(df)))
    rnd.shuffle(order)
    with matching(path):
        ordered = aggregate_metrics(df)
    assert_same(ordered, aggregate_metrics(df.iloc[order]), rtol=1e-12)


@PROPS
@given(tables(), st.floats(1e-3, 1e3), st.floats(-1e3, 1e3), st.sampled_from(METRICS),
       st.sampled_from(PATHS))
def test_property_affine_invariance(df, a, b, metric, path):
    moved = df.copy()
    sel = moved["metric"] == metric
    moved.loc[sel, "value"] = a * moved.loc[sel, "value"] + b
    with matching(path):
        assert_same(aggregate_metrics(df), aggregate_metrics(moved))


@PROPS
@given(tables(), st.sampled_from(METRICS), st.sampled_from(PATHS))
def test_property_direction_flip_and_negation(df, metric, path):
    assume(metric in set(df["metric"]))
    flipped = df.copy()
    sel = flipped["metric"] == metric
    flipped.loc[sel, "value"] = -flipped.loc[sel, "value"]
    hib = {m: metric_direction(m) for m in set(df["metric"])}
    hib[metric] = not hib[metric]
    with matching(path):
        assert_same(aggregate_metrics(df), aggregate_metrics(flipped, higher_is_better=hib))


# --------------------------------------------------------------------------- §6.3


def test_standardized_means_two_systems_is_students_t():
    rng = np.random.default_rng(3)
    x, y = rng.normal(1.0, 2.0, 17), rng.normal(0.2, 1.5, 29)
    summary = pd.DataFrame({
        "dataset": ["d", "d"], "system": ["x", "y"], "mean": [x.mean(), y.mean()],
        "sd": [x.std(ddof=1), y.std(ddof=1)], "n": [x.size, y.size],
    })
    out = standardized_means(summary, higher_is_better=True)
    t = stats.ttest_ind(x, y, equal_var=True).statistic
    assert out["x"] - out["y"] == pytest.approx(t, rel=1e-12)
    assert list(out.index) == (["x", "y"] if t > 0 else ["y", "x"])
    assert out.name == "standardized_mean" and out.index.name == "system"
    # centred at the pooled mean: n-weighted sum of the standardised means is 0
    assert out["x"] * x.size + out["y"] * y.size == pytest.approx(0.0, abs=1e-12)
    # scale="sd": Cohen's d with the pooled SD
    d = standardized_means(summary, higher_is_better=True, scale="sd")
    sp = math.sqrt(((x.size - 1) * x.var(ddof=1) + (y.size - 1) * y.var(ddof=1))
                   / (x.size + y.size - 2))
    assert d["x"] - d["y"] == pytest.approx((x.mean() - y.mean()) / sp, rel=1e-12)


def test_standardized_means_oracle(oracles):
    data = json.loads((oracles / "aggregate_metrics_oracle.json").read_text())["unpaired"]
    summary = pd.DataFrame(data["summary"])
    out = standardized_means(summary)  # bleu: higher, wer: lower, by name
    assert set(out.index) == set(data["expected"])
    for s, v in data["expected"].items():
        assert out[s] == pytest.approx(v, rel=1e-12, abs=1e-14), s
    assert list(out.to_numpy()) == sorted(out.to_numpy(), reverse=True)
    # a direction column overrides the names; the argument maps metrics
    col = summary.assign(higher_is_better=summary["metric"] == "bleu")
    pd.testing.assert_series_equal(standardized_means(col), out, rtol=1e-15)
    flip = standardized_means(summary, higher_is_better={"wer": True, "bleu": False})
    assert flip.sort_index().to_numpy() == pytest.approx(
        standardized_means(summary.assign(mean=-summary["mean"])).sort_index().to_numpy()
    )


def test_standardized_means_weights_and_order():
    rows = []
    for d, means in (("a", [3.0, 2.0, 1.0]), ("b", [1.0, 2.0, 4.0])):
        for s, m in zip(["s1", "s2", "s3"], means, strict=True):
            rows.append({"dataset": d, "system": s, "mean": m, "sd": 1.0, "n": 10})
    summary = pd.DataFrame(rows)
    eq = standardized_means(summary, higher_is_better=True)
    # scale = 1·sqrt(3/10); centre a: 2, b: 7/3
    c = math.sqrt(0.3)
    assert eq["s1"] == pytest.approx(0.5 * (1 / c + (1 - 7 / 3) / c))
    assert list(eq.index) == ["s3", "s1", "s2"]
    only_a = standardized_means(summary.assign(weight=np.where(summary["dataset"] == "a", 1, 0)),
                                higher_is_better=True)
    assert list(only_a.index) == ["s1", "s2", "s3"]
    assert only_a["s1"] == pytest.approx(1 / c)
    # ties keep the order of first appearance
    tie = standardized_means(summary.assign(mean=1.0, sd=1.0), higher_is_better=True)
    assert list(tie.index) == ["s1", "s2", "s3"] and (tie == 0).all()


def test_standardized_means_errors():
    base = pd.DataFrame({"dataset": ["d", "d"], "system": ["a", "b"], "mean": [1.0, 2.0],
                         "sd": [1.0, 1.0], "n": [10, 12]})
    with pytest.raises(AggregateError, match="missing column.*sd"):
        standardized_means(base.drop(columns="sd"), higher_is_better=True)
    with pytest.raises(AggregateError, match="neither a 'metric' nor a 'higher_is_better'"):
        standardized_means(base)
    with pytest.raises(AggregateError, match=r"'n' must be an integer >= 2; got 1 .*system 'a'"):
        standardized_means(base.assign(n=[1, 12]), higher_is_better=True)
    with pytest.raises(AggregateError, match=r"'n' must be an integer >= 2; got 2\.5"):
        standardized_means(base.assign(n=[2.5, 12]), higher_is_better=True)
    with pytest.raises(AggregateError, match=r"'sd' must be a finite number >= 0; got -1"):
        standardized_means(base.assign(sd=[-1.0, 1.0]), higher_is_better=True)
    with pytest.raises(AggregateError, match=r"'mean' must be a finite number; got nan"):
        standardized_means(base.assign(mean=[np.nan, 1.0]), higher_is_better=True)
    with pytest.raises(AggregateError, match="pooled standard deviation is 0 on dataset 'd'"):
        standardized_means(base.assign(sd=0.0), higher_is_better=True)
    with pytest.raises(AggregateError, match="duplicated"):
        standardized_means(pd.concat([base, base]), higher_is_better=True)
    two = pd.concat([base, base.assign(dataset="e").iloc[:1]])
    with pytest.raises(AggregateError, match=r"system\(s\) 'b' have no summary on dataset 'e'"):
        standardized_means(two, higher_is_better=True)
    with pytest.raises(AggregateError, match="'weight' must be the same for every system"):
        standardized_means(base.assign(weight=[1.0, 2.0]), higher_is_better=True)
    with pytest.raises(AggregateError, match="weights are all zero"):
        standardized_means(base.assign(weight=0.0), higher_is_better=True)
    with pytest.raises(AggregateError, match="'higher_is_better' must be True or False"):
        standardized_means(base.assign(higher_is_better="yes"))
    with pytest.raises(AggregateError, match="not both"):
        standardized_means(base.assign(higher_is_better=True), higher_is_better=True)
    with pytest.raises(AggregateError, match="unknown direction.*'quality'"):
        standardized_means(base.assign(metric="quality"))
    with pytest.raises(AggregateError, match="scale must be one of"):
        standardized_means(base, higher_is_better=True, scale="var")
    with pytest.raises(AggregateError, match="standardized_means: column 'a' of the dict is a "
                                             "single value"):
        standardized_means({"a": 1})
    with pytest.raises(AggregateError, match="summary is empty"):
        standardized_means(base.iloc[:0], higher_is_better=True)
