"""Intervals that stay in the metric's range: rg.describe's Wilson interval for
0/1 scores against statsmodels, its Korn–Graubard interval for clustered 0/1 scores and bounded
metrics against R survey::svyciprop(method="beta") (tests/oracles/bounded_oracles.py, .R), and
the declared bounds of Scores."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import ranger_eval as rg
from ranger_eval.errors import ScoresError, StatsInputError
from ranger_eval.stats.bounded import korn_graubard, wilson

ORACLES = Path(__file__).resolve().parents[1] / "oracles"
PY = json.loads((ORACLES / "bounded_oracles.json").read_text())
R = json.loads((ORACLES / "bounded_oracles_R.json").read_text())["cases"]
CASES = {c["name"]: c for c in PY["cases"]}


def _frame(case: dict[str, object]) -> pd.DataFrame:
    values = case["values"]
    assert isinstance(values, list)
    df = pd.DataFrame({"dataset": "d", "system": "A", "metric": "m",
                       "item": [f"q{i:03d}" for i in range(len(values))], "value": values})
    if case["clusters"] is not None:
        df["cluster"] = case["clusters"]
    return df


@pytest.mark.parametrize("name", [n for n, c in CASES.items() if c["kind"] == "wilson"])
def test_wilson_equals_statsmodels(name: str) -> None:
    case = CASES[name]
    for level in PY["levels"]:
        row = rg.describe(_frame(case), level=level).iloc[0]
        lo, hi = case["wilson"][str(level)]
        assert row["interval"] == "wilson"
        assert row["ci_low"] == pytest.approx(lo, rel=1e-12, abs=1e-15)
        assert row["ci_high"] == pytest.approx(hi, rel=1e-12, abs=1e-15)
        # the se column stays the plain standard error s/√n (the log's)
        v = np.asarray(case["values"])
        assert row["se"] == pytest.approx(v.std(ddof=1) / np.sqrt(v.size), rel=1e-13, abs=0)


@pytest.mark.parametrize("name", list(R))
def test_korn_graubard_equals_r_survey(name: str) -> None:
    case = CASES[name]
    bounds = {"m": (case["lo"], case["hi"])} if "continuous" in name else None
    for level in PY["levels"]:
        want = R[name][str(level)]
        row = rg.describe(_frame(case), level=level, bounds=bounds).iloc[0]
        assert row["interval"] == "korn-graubard"
        assert row["mean"] == pytest.approx(want["mean"], rel=1e-13)
        assert row["se"] == pytest.approx(want["se"], rel=1e-10, abs=1e-15)
        assert row["ci_low"] == pytest.approx(want["ci"][0], rel=1e-9, abs=1e-14)
        assert row["ci_high"] == pytest.approx(want["ci"][1], rel=1e-9, abs=1e-14)
        assert case["lo"] <= row["ci_low"] <= row["mean"] <= row["ci_high"] <= case["hi"]


def test_oracles_cover_the_cases_the_issue_names() -> None:
    names = set(R)
    assert {"kg-balanced", "kg-unbalanced", "kg-near-0", "kg-near-1", "kg-all-0", "kg-all-1",
            "kg-small"} <= names
    assert R["kg-all-0"]["0.95"]["fallback"] and not R["kg-balanced"]["0.95"]["fallback"]


def test_pass_at_3_near_one_stays_below_one() -> None:
    """The issue's case: 0.8750 [0.6977, 1.0523] on 8 items is now inside [0, 1]."""
    df = pd.DataFrame({"dataset": "d", "system": "A", "item": [f"q{i}" for i in range(8)],
                       "value": [1, 1, 1, 1, 1, 1, 1, 0.0]})
    t = rg.describe(df, interval="t").iloc[0]
    assert t["ci_high"] > 1 and t["interval"] == "t"
    row = rg.describe(df).iloc[0]
    assert row["interval"] == "wilson" and 0 <= row["ci_low"] < 0.875 < row["ci_high"] <= 1
    assert row["se"] == t["se"]
    # pass@3 values (not 0/1) declared in [0, 1]: Korn–Graubard on the declared range
    df["value"] = [1, 1, 1, 1, 2 / 3, 1, 1, 1 / 3]
    assert rg.describe(df, interval="t").iloc[0]["ci_high"] > 1
    row = rg.describe(df, bounds=(0, 1)).iloc[0]
    assert row["interval"] == "korn-graubard" and row["ci_high"] <= 1


def test_undeclared_continuous_metric_keeps_the_t_interval() -> None:
    df = pd.DataFrame({"dataset": "d", "system": "A", "item": [f"q{i}" for i in range(6)],
                       "value": [0.1, 0.5, 0.7, 0.2, 0.9, 0.4]})
    a, b = rg.describe(df), rg.describe(df, interval="t")
    assert a["interval"].iloc[0] == "t"
    pd.testing.assert_frame_equal(a, b)


def test_binary_is_judged_per_dataset_and_metric_over_all_systems() -> None:
    df = pd.DataFrame({"dataset": "d", "system": np.repeat(["A", "B"], 4),
                       "item": [f"q{i}" for i in range(4)] * 2,
                       "value": [1, 0, 1, 1, 0.5, 0.25, 1, 0]})
    assert list(rg.describe(df)["interval"]) == ["t", "t"]
    # declared: A's items are all 0 or 1 (a proportion), B's are not
    assert list(rg.describe(df, bounds=(0, 1))["interval"]) == ["wilson", "korn-graubard"]


def test_samples_of_0_1_scores_are_a_bounded_mean() -> None:
    rng = np.random.default_rng(3)
    df = pd.DataFrame({"dataset": "d", "system": "A",
                       "item": np.repeat([f"q{i}" for i in range(10)], 3),
                       "sample": np.tile(["1", "2", "3"], 10),
                       "value": (rng.random(30) < 0.9).astype(float)})
    row = rg.describe(df).iloc[0]
    assert row["interval"] == "korn-graubard" and row["ci_high"] <= 1


def test_kernels_degenerate_cases() -> None:
    lo, hi = wilson(np.array([0.0, 5.0]), np.array([5.0, 5.0]), 0.95)
    assert lo[0] == 0 and hi[1] == 1
    lo, hi = korn_graubard(np.array([0.0, 1.0, 0.4]), np.zeros(3), np.array([10, 10, 10]),
                           np.array([5, 5, 5]), 0.95)
    assert lo[0] == 0 and 0 < hi[0] < 1 and hi[1] == 1 and 0 < lo[1] < 1
    assert lo[2] == hi[2] == 0.4  # all values equal inside the range: the point


def test_declared_bounds_excluding_the_data_name_metric_bound_and_value() -> None:
    df = pd.DataFrame({"dataset": "d", "system": "A", "metric": "ndcg",
                       "item": ["q1", "q2", "q3"], "value": [0.2, 1.5, 0.4]})
    with pytest.raises(ScoresError, match=r"'ndcg'.*\[0, 1\].*1\.5.*upper bound 1.*'q2'"):
        rg.describe(df, bounds={"ndcg": (0, 1)})
    with pytest.raises(ScoresError, match="unknown metric 'f1'"):
        rg.Scores(df).with_bounds({"f1": (0, 1)})
    with pytest.raises(ScoresError, match="lo < hi"):
        rg.Scores(df).with_bounds((1, 0))
    with pytest.raises(StatsInputError, match="interval must be one of"):
        rg.describe(df, interval="wald")


def test_with_bounds_is_kept_by_selections_and_leaves_the_original_alone() -> None:
    df = pd.DataFrame({"dataset": "d", "system": np.repeat(["A", "B"], 3), "metric": "f1",
                       "item": ["q1", "q2", "q3"] * 2, "value": [0.2, 0.9, 0.4, 0.5, 0.6, 1.0]})
    s = rg.Scores(df)
    b = s.with_bounds({"f1": [0, 1]})
    assert s.bounds == {} and b.bounds == {"f1": (0.0, 1.0)}
    assert b.filter(systems=["A"]).bounds == {"f1": (0.0, 1.0)}
    assert set(rg.describe(b)["interval"]) == {"korn-graubard"}


def test_yaml_bounds_key_reaches_the_leaderboard(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from ranger_eval.cli import app

    df = pd.DataFrame({"dataset": "code", "system": np.repeat(["a", "b"], 8), "metric": "pass3",
                       "item": [f"q{i}" for i in range(8)] * 2,
                       "value": [1, 1, 1, 1, 2 / 3, 1, 1, 1 / 3] + [0, 1 / 3, 2 / 3, 1] * 2})
    df.to_csv(tmp_path / "s.csv", index=False)
    (tmp_path / "e.yaml").write_text(f"scores: {tmp_path / 's.csv'}\nbounds: {{pass3: [0, 1]}}\n")
    run = CliRunner().invoke(app, ["compare", str(tmp_path / "e.yaml"), "--out",
                                   str(tmp_path / "o"), "--figures", "none"])
    assert run.exit_code == 0, run.output
    board = pd.read_csv(tmp_path / "o" / "leaderboard.csv")
    assert set(board["code interval"]) == {"korn-graubard"}
    assert (board["code ci_high"] <= 1).all() and (board["code ci_low"] >= 0).all()
