"""rg.win_rate: HELM's mean win rate (oracle: tests/oracles/win_rate_oracle.py) and its bootstrap."""
from __future__ import annotations

import json
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ranger_eval as rg
from ranger_eval.aggregate.winrate import dataset_win_rates
from ranger_eval.errors import AggregateError

ORACLE = json.loads((Path(__file__).parents[1] / "oracles" / "win_rate_oracle.json").read_text())


def _wide(cells: list[list[float | None]]) -> pd.DataFrame:
    x = np.array([[np.nan if v is None else v for v in row] for row in cells], dtype=float)
    return pd.DataFrame(x, index=[f"d{i}" for i in range(x.shape[0])],
                        columns=[f"s{j}" for j in range(x.shape[1])])


@pytest.mark.parametrize("fx", ORACLE["fixtures"], ids=lambda f: f["name"])
def test_equals_helm(fx: dict) -> None:
    table = _wide(fx["table"])
    if all(v is None for v in fx["helm"]):  # HELM: all None; Ranger: an error saying why
        with pytest.raises(AggregateError, match="no dataset has scores of two systems"):
            rg.win_rate(table, higher_is_better=fx["higher_is_better"], n_bootstrap=0)
        return
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # skipped datasets are announced
        res = rg.win_rate(table, higher_is_better=fx["higher_is_better"], n_bootstrap=0)
    got = res.win_rate.reindex(table.columns).to_numpy()
    want = np.array([np.nan if v is None else v for v in fx["helm"]], dtype=float)
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
    ok = ~np.isnan(want)
    np.testing.assert_allclose(got[ok], want[ok], rtol=1e-12, atol=0)
    assert res.n_missing == int(table.isna().to_numpy().sum())


def test_missing_cells_warn_and_are_counted() -> None:
    t = pd.DataFrame({"A": [0.9, 0.8, np.nan], "B": [0.7, 0.8, np.nan], "C": [0.1, np.nan, 0.3]},
                     index=["x", "y", "z"])
    with pytest.warns(UserWarning, match=r"1 dataset\(s\) with fewer than two scores skipped.*'z'"):
        res = rg.win_rate(t, n_bootstrap=0)
    assert res.skipped == ("z",)
    assert res.n_missing == 3
    # x: A beats B, C; B beats C; y: A and B tie, C missing
    assert res.win_rate.to_dict() == pytest.approx({"A": (1.0 + 0.5) / 2, "B": (0.5 + 0.5) / 2,
                                                    "C": 0.0})
    assert res.n_datasets.to_dict() == {"A": 2, "B": 2, "C": 1}
    frame = res.to_frame()
    assert list(frame.columns) == ["system", "win_rate", "ci_low", "ci_high", "n_datasets"]
    assert list(frame["system"]) == ["A", "B", "C"] and frame["ci_low"].isna().all()


def test_system_with_no_comparable_score_is_named() -> None:
    t = pd.DataFrame({"A": [0.9, 0.8, np.nan], "B": [0.7, 0.6, np.nan], "C": [np.nan, np.nan, 0.3]},
                     index=["x", "y", "z"])
    with pytest.warns(UserWarning, match=r"no win rate.*'C'"), \
            pytest.warns(UserWarning, match=r"skipped \(as HELM\): 'z'"):
        res = rg.win_rate(t, n_bootstrap=10)
    assert np.isnan(res.win_rate["C"]) and list(res.win_rate.index)[-1] == "C"
    assert res.n_invalid_replicates["C"] == 10


def test_dataset_bootstrap_equals_a_plain_loop() -> None:
    rng = np.random.default_rng(3)
    t = pd.DataFrame(np.round(rng.normal(size=(9, 4)), 1), columns=list("ABCD"))
    t.iloc[2, 1] = np.nan
    res = rg.win_rate(t, n_bootstrap=200, seed=7, level=0.9)
    per = dataset_win_rates(t.to_numpy())
    draw = np.random.default_rng(7).integers(0, 9, size=(200, 9))
    reps = np.array([np.nanmean(per[d], axis=0) for d in draw])
    lo, hi = np.quantile(reps, [0.05, 0.95], axis=0)
    np.testing.assert_allclose(res.ci_low.reindex(list("ABCD")), lo, rtol=1e-12)
    np.testing.assert_allclose(res.ci_high.reindex(list("ABCD")), hi, rtol=1e-12)
    assert res.resample == "datasets"
    fields = res.signature.fields
    assert fields["kind"] == "win_rate" and fields["resample"] == "datasets"
    assert fields["seed"] == "7" and fields["n_resamples"] == "200" and fields["level"] == "0.9"


def _item_scores(rng: np.random.Generator, n_items: int, constant: bool) -> rg.scores.Scores:
    rows = []
    for d in ("d1", "d2", "d3", "d4"):
        base = rng.random(3)
        for j, s in enumerate("ABC"):
            for i in range(n_items):
                v = base[j] if constant else float(rng.random() < 0.3 + 0.2 * j)
                rows.append((d, s, f"q{i}", v))
    return rg.scores.Scores(pd.DataFrame(rows, columns=["dataset", "system", "item", "value"]))


def test_item_bootstrap() -> None:
    rng = np.random.default_rng(5)
    scores = _item_scores(rng, 40, constant=False)
    res = rg.win_rate(scores, n_bootstrap=300, seed=1)
    table = scores.frame.groupby(["dataset", "system"])["value"].mean().unstack()
    plain = rg.win_rate(table, n_bootstrap=300, seed=1)
    # the point estimate is the win rate of the per-dataset means
    np.testing.assert_allclose(res.win_rate.reindex(list("ABC")),
                               plain.win_rate.reindex(list("ABC")), rtol=1e-15)
    assert res.resample == "datasets+items" and res.signature.fields["resample"] == "datasets+items"
    assert (res.ci_low <= res.win_rate).all() and (res.win_rate <= res.ci_high).all()
    again = rg.win_rate(scores, n_bootstrap=300, seed=1)
    pd.testing.assert_series_equal(res.ci_low, again.ci_low)
    # item noise widens the interval of at least one system against datasets alone
    width = (res.ci_high - res.ci_low).reindex(list("ABC"))
    assert (width >= (plain.ci_high - plain.ci_low).reindex(list("ABC")) - 1e-12).any()


def test_item_bootstrap_without_item_noise_is_the_dataset_bootstrap() -> None:
    scores = _item_scores(np.random.default_rng(8), 5, constant=True)
    res = rg.win_rate(scores, n_bootstrap=200, seed=2)
    table = scores.frame.groupby(["dataset", "system"])["value"].mean().unstack()
    plain = rg.win_rate(table, n_bootstrap=200, seed=2)
    for name in ("win_rate", "ci_low", "ci_high"):
        np.testing.assert_allclose(getattr(res, name).reindex(list("ABC")),
                                   getattr(plain, name).reindex(list("ABC")), rtol=1e-13)


def test_tidy_with_seeds_and_metric() -> None:
    df = pd.DataFrame({
        "dataset": ["x"] * 4 + ["y"] * 4,
        "system": ["A", "A", "B", "B"] * 2,
        "metric": ["acc"] * 8,
        "value": [1.0, 0.0, 0.2, 0.2, 0.1, 0.3, 0.9, 0.9],
    })
    res = rg.win_rate(df, metric="acc", n_bootstrap=0)
    assert res.win_rate.to_dict() == {"A": 0.5, "B": 0.5}  # A wins x (0.5 > 0.2), B wins y
    with pytest.raises(AggregateError, match="unknown metric 'f1'"):
        rg.win_rate(df, metric="f1")


@pytest.mark.parametrize("kwargs, match", [
    ({"higher_is_better": "yes"}, "higher_is_better must be True or False; got 'yes'"),
    ({"level": 95}, r"level must be a number in \(0, 1\); got 95"),
    ({"n_bootstrap": -1}, "n_bootstrap must be a whole number from 0 to 10\\^7; got -1"),
    ({"seed": 1.5}, "seed must be a whole number ≥ 0 or None; got 1.5"),
])
def test_bad_arguments(kwargs: dict, match: str) -> None:
    with pytest.raises(AggregateError, match=match):
        rg.win_rate(pd.DataFrame({"A": [1.0, 2.0], "B": [2.0, 1.0]}), **kwargs)


def test_bad_tables() -> None:
    with pytest.raises(AggregateError, match="no dataset has scores of two systems"):
        rg.win_rate(pd.DataFrame({"A": [1.0, np.nan], "B": [np.nan, 2.0]}))
    with pytest.raises(AggregateError, match="at least 1 dataset and 2 systems"):
        rg.win_rate(pd.DataFrame({"A": [1.0, 2.0]}))
    with pytest.raises(AggregateError, match="system 'B' has an infinite score \\(inf\\) on dataset '1'"):
        rg.win_rate(pd.DataFrame({"A": [1.0, 2.0], "B": [0.0, np.inf]}))
    with pytest.raises(AggregateError, match="non-numeric score"):
        rg.win_rate(pd.DataFrame({"A": [1.0, 2.0], "B": ["x", "y"]}))


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 6), st.integers(2, 6), st.integers(0, 2**31 - 1), st.booleans())
def test_invariants(n: int, k: int, seed: int, hib: bool) -> None:
    """Complete table: win rates in [0, 1], they sum to k/2 on every dataset, the direction
    flips them to 1 − w, and ranking is invariant to a monotone transform."""
    x = np.round(np.random.default_rng(seed).normal(size=(n, k)), 1)
    t = pd.DataFrame(x, columns=[f"s{j}" for j in range(k)])
    per = dataset_win_rates(x, higher_is_better=hib)
    assert ((per >= 0) & (per <= 1)).all()
    np.testing.assert_allclose(per.sum(axis=1), k / 2)
    np.testing.assert_allclose(dataset_win_rates(x, higher_is_better=not hib), 1 - per, atol=1e-15)
    a = rg.win_rate(t, higher_is_better=hib, n_bootstrap=0).win_rate
    b = rg.win_rate(np.exp(t), higher_is_better=hib, n_bootstrap=0).win_rate
    pd.testing.assert_series_equal(a, b)


def test_report_states_the_result_in_words() -> None:
    t = pd.DataFrame({"A": [0.9, 0.8, np.nan, 0.5], "B": [0.7, 0.8, 0.3, 0.6],
                      "C": [0.1, 0.2, 0.3, np.nan]}, index=list("wxyz"))
    res = rg.win_rate(t, n_bootstrap=200)
    md = rg.report.to_markdown(res)
    lo, hi = res.ci_low["B"], res.ci_high["B"]
    assert f"B has the highest mean win rate, 0.688 (95 % interval {lo:.3f}–{hi:.3f})" in md
    assert "2 (dataset, system) cell(s) missing" in md and str(res.signature) in md
    assert "| B | 0.688 |" in md
    assert rg.report.to_csv(res).splitlines()[0] == "system,win_rate,ci_low,ci_high,n_datasets"
    assert "\\caption{B has the highest" in rg.report.to_latex(res)
    tie = rg.win_rate(pd.DataFrame({"A": [1.0, 0.0], "B": [0.0, 1.0]}), n_bootstrap=0)
    assert "A and B share the highest mean win rate, 0.500." in rg.report.to_markdown(tie)
