"""Scores: validation, pairing by item id, missing-item policies."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ranger_eval.scores import Scores, ScoresError, SystemRuns, seed_imbalance, seed_order


def _table(values_a, values_b, items_a=None, items_b=None, dataset="d"):
    items_a = items_a if items_a is not None else [str(i) for i in range(len(values_a))]
    items_b = items_b if items_b is not None else [str(i) for i in range(len(values_b))]
    return pd.DataFrame(
        {
            "dataset": dataset,
            "system": ["A"] * len(values_a) + ["B"] * len(values_b),
            "item": list(items_a) + list(items_b),
            "value": list(values_a) + list(values_b),
        }
    )


def test_pair_aligns_by_item_id_not_position():
    df = _table([1.0, 2.0, 3.0], [30.0, 10.0, 20.0], items_b=["2", "0", "1"])
    p = Scores(df).pair("d", treatment="B", control="A")
    assert list(p.items) == ["0", "1", "2"]
    np.testing.assert_array_equal(p.control, [1.0, 2.0, 3.0])
    np.testing.assert_array_equal(p.treatment, [10.0, 20.0, 30.0])
    assert p.n == 3 and p.n_dropped == 0 and p.metric == "score"


def test_missing_columns_are_named():
    with pytest.raises(ScoresError, match="missing column.*item"):
        Scores(pd.DataFrame({"dataset": ["d"], "system": ["A"], "value": [1.0]}))


def test_non_numeric_value_names_row_and_item():
    df = _table([1.0, "x"], [1.0, 2.0])
    with pytest.raises(ScoresError, match=r"non-numeric value 'x' at row 1 .*item '1'"):
        Scores(df)


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_non_finite_values_are_rejected(bad):
    with pytest.raises(ScoresError, match="missing value|non-finite"):
        Scores(_table([1.0, bad], [1.0, 2.0]))


def test_duplicate_keys_are_listed():
    df = _table([1.0, 2.0], [1.0, 2.0], items_a=["q1", "q1"])
    with pytest.raises(ScoresError, match=r"2 rows share a key .*d/A/score/q1"):
        Scores(df)


def test_empty_table():
    with pytest.raises(ScoresError, match="empty"):
        Scores(pd.DataFrame(columns=["dataset", "system", "item", "value"]))


def test_mismatched_items_list_ids_per_side():
    df = _table([1.0] * 12, [1.0] * 12, items_a=[f"a{i}" for i in range(12)],
                items_b=[f"b{i}" for i in range(12)])
    with pytest.raises(ScoresError) as info:
        Scores(df).pair("d", "B", "A")
    msg = str(info.value)
    assert "12 only in 'B'" in msg and "12 only in 'A'" in msg
    assert "'b0'" in msg and "'a7'" in msg and "2 more" in msg
    assert "missing='intersect'" in msg


def test_intersect_drops_and_reports():
    df = _table([1.0, 2.0, 3.0], [4.0, 5.0], items_b=["1", "2"])
    with pytest.warns(UserWarning, match="dropped 1 item"):
        p = Scores(df).pair("d", "B", "A", missing="intersect")
    assert p.n == 2 and p.n_dropped == 1
    np.testing.assert_array_equal(p.control, [2.0, 3.0])


def test_unknown_policy_dataset_system_metric():
    s = Scores(_table([1.0], [2.0]))
    with pytest.raises(ScoresError, match="missing policy"):
        s.pair("d", "B", "A", missing="ignore")
    with pytest.raises(ScoresError, match="unknown dataset 'x'"):
        s.pair("x", "B", "A")
    with pytest.raises(ScoresError, match="system 'C' has no scores"):
        s.pair("d", "C", "A")
    with pytest.raises(ScoresError, match="unknown metric"):
        s.pair("d", "B", "A", metric="F1")
    with pytest.raises(ScoresError, match="unknown system"):
        s.filter(systems=["Z"])


def test_several_metrics_need_a_choice():
    df = pd.concat([_table([1.0], [2.0]).assign(metric="acc"), _table([1.0], [2.0]).assign(metric="f1")])
    s = Scores(df)
    with pytest.raises(ScoresError, match="several metrics"):
        s.pair("d", "B", "A")
    assert s.pair("d", "B", "A", metric="f1").treatment[0] == 2.0


def test_seeds_are_averaged_per_item():
    df = pd.DataFrame(
        {
            "dataset": "d",
            "system": ["A", "A", "A", "A", "B", "B"],
            "item": ["1", "1", "2", "2", "1", "2"],
            "seed": [1, 2, 1, 2, 1, 1],
            "value": [0.0, 1.0, 1.0, 1.0, 1.0, 0.0],
        }
    )
    p = Scores(df).pair("d", "B", "A")
    np.testing.assert_allclose(p.control, [0.5, 1.0])


def test_from_arrays_uses_position_as_id_and_order_is_kept():
    s = Scores.from_arrays({"z": {"A": [1, 2], "B": [2, 3]}, "a": {"A": [1], "B": [1]}})
    assert s.datasets == ("z", "a") and s.systems == ("A", "B")
    assert list(s.pair("z", "B", "A").items) == ["1", "2"]


@settings(max_examples=50, deadline=None)
@given(
    st.lists(st.tuples(st.floats(-1e6, 1e6), st.floats(-1e6, 1e6)), min_size=1, max_size=30),
    st.randoms(use_true_random=False),
)
def test_pairing_is_independent_of_row_order(pairs, rnd):
    df = _table([a for a, _ in pairs], [b for _, b in pairs])
    shuffled = df.sample(frac=1.0, random_state=rnd.randint(0, 10_000))
    p1 = Scores(df).pair("d", "B", "A")
    p2 = Scores(shuffled).pair("d", "B", "A")
    np.testing.assert_array_equal(p1.items, p2.items)
    np.testing.assert_array_equal(p1.treatment, p2.treatment)
    np.testing.assert_array_equal(p1.control, p2.control)


# --------------------------------------------------------------------------- runs, labels, seeds

def _runs_table():
    rows = []
    for system in ("A", "B"):
        for seed in ("10", "2"):
            for item, label in (("q2", "yes"), ("q1", "no")):
                pred = "yes" if (system, seed) != ("B", "2") else "no"
                rows.append(("d", system, item, seed, label, pred, float(pred == label)))
    return pd.DataFrame(rows, columns=["dataset", "system", "item", "seed", "label", "prediction",
                                       "value"])


def test_runs_is_a_seeds_by_items_matrix():
    s = Scores(_runs_table())
    assert s.has_predictions and s.has_seeds
    r = s.runs("d", "B", predictions=True)
    assert isinstance(r, SystemRuns)
    assert r.seeds == ("2", "10") and list(r.items) == ["q1", "q2"]  # natural seed order
    np.testing.assert_array_equal(r.values, [[1.0, 0.0], [0.0, 1.0]])
    assert list(r.labels) == ["no", "yes"]
    assert r.predictions.tolist() == [["no", "no"], ["yes", "yes"]]
    assert r.n == 2 and r.n_seeds == 2 and r.missing_by_seed() == {}
    assert s.runs("d", "A").predictions is None  # only read when asked for
    p = s.pair_runs("d", "B", "A", predictions=True)
    assert p.n == 2 and list(p.labels) == ["no", "yes"] and p.treatment.system == "B"


def test_seed_order_is_numeric_when_possible():
    assert seed_order(["10", "2", "1"]) == ["1", "2", "10"]
    assert seed_order(["b", "a10", "a2"]) == ["a10", "a2", "b"]


def test_runs_without_seed_column_have_one_run():
    r = Scores(_table([1.0, 2.0], [3.0, 4.0])).runs("d", "A")
    assert r.seeds == ("",) and r.values.shape == (1, 2)


def test_seed_imbalance_names_systems_counts_and_missing_items():
    df = _runs_table()
    s = Scores(df)
    assert seed_imbalance([s.runs("d", "A"), s.runs("d", "B")]) is None
    fewer = Scores(df[~((df["system"] == "B") & (df["seed"] == "10"))])
    msg = seed_imbalance([fewer.runs("d", "A"), fewer.runs("d", "B")])
    assert msg == ("the systems have different numbers of seeds: 'A' has 2 seeds ('2', '10'); "
                   "'B' has 1 seed ('2')")
    gap = Scores(df[~((df["system"] == "A") & (df["seed"] == "2") & (df["item"] == "q2"))])
    a = gap.runs("d", "A")
    assert np.isnan(a.values[0, 1]) and a.missing_by_seed() == {"2": ["q2"]}
    assert seed_imbalance([a, gap.runs("d", "B")]) == (
        "system 'A': seed '2' did not score 1 of its 2 items ('q2')")


def test_label_and_prediction_problems_name_dataset_system_and_item():
    df = _runs_table()
    with pytest.raises(ScoresError, match=r"dataset 'd', system 'A'.*missing: 'prediction'"):
        Scores(df.drop(columns=["prediction"])).runs("d", "A", predictions=True)
    bad = df.copy()
    bad.loc[(bad["system"] == "A") & (bad["seed"] == "10") & (bad["item"] == "q1"), "label"] = "yes"
    with pytest.raises(ScoresError, match=r"system 'A'.*item 'q1' has different labels .*\('yes', 'no'\)"):
        Scores(bad).runs("d", "A", predictions=True)
    other = df.copy()
    other.loc[(other["system"] == "B") & (other["item"] == "q1"), "label"] = "maybe"
    with pytest.raises(ScoresError, match=r"item 'q1' has label 'maybe' for 'B' but 'no' for 'A'"):
        Scores(other).pair_runs("d", "B", "A", predictions=True)
    empty = df.copy()
    empty.loc[5, "prediction"] = None
    with pytest.raises(ScoresError, match=r"system 'B'.*empty 'prediction' for item 'q1', seed '10'"):
        Scores(empty).runs("d", "B", predictions=True)
    # the columns are ordinary metadata otherwise (NaN allowed where nobody reads them)
    Scores(empty).pair("d", "B", "A")


def test_pair_runs_missing_items_policy():
    df = _runs_table()
    df = df[~((df["system"] == "A") & (df["item"] == "q2"))]
    with pytest.raises(ScoresError, match=r"items of 'B' and 'A' differ on dataset 'd': 1 only in 'B': 'q2'"):
        Scores(df).pair_runs("d", "B", "A")
    with pytest.warns(UserWarning, match="dropped 1 item"):
        p = Scores(df).pair_runs("d", "B", "A", missing="intersect")
    assert p.n == 1 and p.n_dropped == 1


# ------------------------------------------------------------- pair_all (columnar)
def _multi(k=4):
    frames = []
    for d in range(k):
        f = _table([1.0 + d, 2.0, 4.0, 3.5], [2.0, 2.5 + d, 4.5, 3.0],
                   items_b=["3", "1", "0", "2"], dataset=f"d{d}")
        frames.append(f)
    return pd.concat(frames, ignore_index=True)


def test_pair_all_equals_pair_for_every_dataset():
    scores = Scores(_multi())
    table = scores.pair_all("B", "A")
    assert table.datasets == scores.datasets and table.k == 4
    np.testing.assert_array_equal(table.n, [4, 4, 4, 4])
    for i, d in enumerate(table.datasets):
        one, p = table.pair(i), scores.pair(d, "B", "A")
        assert list(one.items) == list(p.items) and one.metric == p.metric
        np.testing.assert_array_equal(one.treatment, p.treatment)
        np.testing.assert_array_equal(one.control, p.control)


def test_pair_all_policies_and_errors():
    df = _multi()
    df = df.drop(df.index[(df["dataset"] == "d2") & (df["system"] == "A") & (df["item"] == "1")])
    scores = Scores(df)
    with pytest.raises(ScoresError, match=r"items of 'B' and 'A' differ on dataset 'd2': 1 only in 'B'"):
        scores.pair_all("B", "A")
    with pytest.warns(UserWarning, match=r"dataset 'd2': dropped 1 item"):
        table = scores.pair_all("B", "A", missing="intersect")
    assert table.n_dropped.tolist() == [0, 0, 1, 0] and list(table.items(2)) == ["0", "2", "3"]
    with pytest.raises(ScoresError, match=r"unknown dataset\(s\) 'zz'"):
        scores.pair_all("B", "A", datasets=["d1", "zz"])
    with pytest.raises(ScoresError, match=r"unknown missing policy"):
        scores.pair_all("B", "A", missing="drop")
    sub = scores.pair_all("B", "A", datasets=["d3", "d0"])
    assert sub.datasets == ("d3", "d0") and sub.pair(0).treatment.tolist() == \
        scores.pair("d3", "B", "A").treatment.tolist()


def test_pair_all_refuses_seeds():
    df = _multi().assign(seed=1)
    with pytest.raises(ScoresError, match=r"without a 'seed' column"):
        Scores(df).pair_all("B", "A")


def test_duplicate_keys_still_reported_with_fast_check():
    df = _multi()
    df = pd.concat([df, df.iloc[[5]]], ignore_index=True)
    with pytest.raises(ScoresError, match=r"2 rows share a key"):
        Scores(df)


@pytest.mark.parametrize("column", ["dataset", "system", "metric", "item"])
@pytest.mark.parametrize("blank", ["", "   ", "\t"])
def test_blank_ids_are_refused_through_the_api_too(column: str, blank: str) -> None:
    """A blank id is an error in a score file (naming its line) and in a DataFrame alike
    (naming the row): it would otherwise surface later as "items differ: 1 only in A: ''"."""
    df = pd.DataFrame({"dataset": ["d"] * 4, "system": ["a", "a", "b", "b"],
                       "metric": ["m"] * 4, "item": ["1", "2", "1", "2"],
                       "value": [1.0, 2.0, 3.0, 4.0]})
    df.loc[3, column] = blank
    with pytest.raises(ScoresError, match=rf"empty '{column}' at row 3.*non-blank {column} id"):
        Scores(df)


def test_filter_that_keeps_every_row_reuses_the_checked_table():
    """compare(systems=all of them) filters by every system: the table is not checked again
    (a million datasets: 20 s), and a filter that drops rows still builds a new table."""
    s = Scores(pd.concat([_table([1.0, 2.0], [3.0, 4.0], dataset=d) for d in ("d1", "d2")]))
    kept = s.filter(systems=["B", "A"], datasets=["d2", "d1"], metrics=list(s.metrics))
    assert kept.table is s.table
    assert kept.systems == ("A", "B") and kept.datasets == ("d1", "d2")
    some = s.filter(systems=["B"])
    assert some.table is not s.table and some.systems == ("B",) and len(some.table) == 4
    with pytest.raises(ScoresError, match="unknown system"):
        s.filter(systems=["A", "C"])
