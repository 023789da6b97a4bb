"""Prediction-powered inference (ranger_eval.stats.ppi, ranger_eval.verdicts.ppi) against ppi_py.

Oracle: tests/oracles/ppi_oracle.py → ppi_oracle.json (ppi_py's ppi_mean_ci,
ppi_mean_pointestimate, classical_mean_ci, ppi_mean_pval), compared at rtol 1e-10.
"""
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
from ranger_eval.errors import StatsInputError, VerdictError
from ranger_eval.stats.ppi import PPIResult, ppi_lambda, prediction_powered_mean

ORACLE = json.loads((Path(__file__).resolve().parents[1] / "oracles" / "ppi_oracle.json")
                    .read_text())
CASES = ORACLE["cases"]
RTOL = 1e-10


def case_scores(case: dict) -> rg.Scores:
    frames = []
    for name, data in case["systems"].items():
        frames.append(pd.DataFrame({
            "dataset": "d", "system": name, "item": case["items"], "value": data["value"],
            "human_value": [np.nan if v is None else v for v in data["human_value"]],
        }))
    return rg.Scores(pd.concat(frames, ignore_index=True))


def close(actual: float, wanted: float) -> bool:
    return bool(np.isclose(actual, wanted, rtol=RTOL, atol=RTOL * 1e-3))


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_scores_level_against_ppi_py(case: dict) -> None:
    scores = case_scores(case)
    for key, want in case["expected"].items():
        method, level = key.split("@")
        if "treatment" in case:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", UserWarning)
                res = rg.ppi_mean_difference(scores, treatment=case["treatment"],
                                             control=case["control"], method=method,
                                             level=float(level))
            assert res.n_partial == case["n_partial"]
            assert res.systems == (case["treatment"], case["control"])
        else:
            res = rg.ppi_mean(scores, system=case["system"], method=method, level=float(level))
        assert isinstance(res, PPIResult)
        for field in ("estimate", "ci_low", "ci_high", "lam", "pvalue"):
            assert close(getattr(res, field), want[field]), (key, field, getattr(res, field),
                                                              want[field])
        assert res.method == method and res.level == float(level)
        assert res.signature.endswith(f"|kind:ppi|ppi:{method}|level:{level}")
        n_lab = sum(
            all(case["systems"][s]["human_value"][j] is not None for s in case["systems"])
            for j in range(len(case["items"])))
        assert (res.n_labelled, res.n_unlabelled) == (n_lab, len(case["items"]) - n_lab)


def test_difference_warns_about_partially_labelled_items() -> None:
    case = next(c for c in CASES if c.get("n_partial"))
    with pytest.warns(UserWarning, match=rf"{case['n_partial']} item\(s\) have a human score "
                                         r"for only one"):
        rg.ppi_mean_difference(case_scores(case), treatment="T", control="C")


def test_difference_is_the_mean_of_per_item_differences() -> None:
    """A judge equal to the humans everywhere: the rectifier is 0, and PPI (λ = 1) is the mean
    judge difference of the unlabelled items with its standard error."""
    rng = np.random.default_rng(3)
    n = 50
    t, c = rng.normal(1, 1, n), rng.normal(0, 1, n)
    human = np.where(np.arange(n) < 20, 1.0, np.nan)
    df = pd.concat([pd.DataFrame({"dataset": "d", "system": s, "item": np.arange(n).astype(str),
                                  "value": v, "human_value": human * v})
                    for s, v in (("T", t), ("C", c))])
    res = rg.ppi_mean_difference(df, treatment="T", control="C", method="ppi")
    d_u = (t - c)[20:]
    assert res.estimate == pytest.approx(float(np.mean(d_u)), rel=1e-12)
    assert res.se == pytest.approx(float(np.std(d_u) / np.sqrt(d_u.size)), rel=1e-12)
    assert (res.n_labelled, res.n_unlabelled, res.n_partial) == (20, 30, 0)


def test_array_kernel_and_lambda_edge_cases() -> None:
    y = np.array([0.0, 1.0, 1.0])
    flat = np.full(3, 0.5)
    assert ppi_lambda(y, flat, np.full(4, 0.5)) == 0.0  # a judge without spread: λ = 0
    res = prediction_powered_mean(y, flat, np.full(4, 0.5))
    classical = prediction_powered_mean(y, flat, np.full(4, 0.5), method="classical")
    assert (res.estimate, res.se) == (classical.estimate, classical.se)
    exact = prediction_powered_mean([1.0, 1.0], [1.0, 1.0], [1.0, 1.0])
    assert (exact.se, exact.pvalue, exact.ci_low, exact.ci_high) == (0.0, 0.0, 1.0, 1.0)
    with pytest.raises(StatsInputError, match="aligned"):
        prediction_powered_mean([1.0, 2.0], [1.0], [0.0, 1.0])
    with pytest.raises(StatsInputError, match="non-finite"):
        prediction_powered_mean([1.0, np.inf], [1.0, 2.0], [0.0, 1.0])
    with pytest.raises(StatsInputError, match="method"):
        prediction_powered_mean([1.0, 2.0], [1.0, 2.0], [0.0, 1.0], method="ppi+")
    with pytest.raises(StatsInputError, match="level"):
        prediction_powered_mean([1.0, 2.0], [1.0, 2.0], [0.0, 1.0], level=95)


def test_errors_name_dataset_system_and_advice() -> None:
    base = pd.DataFrame({"dataset": "d", "system": "A", "item": list("abcde"),
                         "value": [0.1, 0.5, 0.9, 0.3, 0.2]})
    with pytest.raises(VerdictError, match="no 'human_value' column"):
        rg.ppi_mean(base, system="A")
    all_nan = base.assign(human_value=np.nan)
    with pytest.raises(VerdictError, match="no human scores for system 'A' on dataset 'd'"):
        rg.ppi_mean(all_nan, system="A")
    everywhere = base.assign(human_value=[0.0, 1.0, 1.0, 0.0, 0.0])
    with pytest.raises(VerdictError, match="method='classical'"):
        rg.ppi_mean(everywhere, system="A")
    res = rg.ppi_mean(everywhere, system="A", method="classical")
    assert res.estimate == pytest.approx(0.4) and res.n_unlabelled == 0
    with pytest.raises(VerdictError, match="system 'B' has no scores"):
        rg.ppi_mean(everywhere, system="B")
    two = pd.concat([everywhere, everywhere.assign(dataset="e")])
    with pytest.raises(VerdictError, match="2 datasets.*pass dataset="):
        rg.ppi_mean(two, system="A")
    with pytest.raises(VerdictError, match="method must be one of"):
        rg.ppi_mean(everywhere, system="A", method="PPI")


def test_seeds_are_averaged_per_item() -> None:
    rng = np.random.default_rng(5)
    n = 40
    judge = rng.normal(size=(2, n))
    human = np.where(np.arange(n) < 10, rng.normal(size=n), np.nan)
    df = pd.concat([pd.DataFrame({"dataset": "d", "system": "A", "seed": str(s),
                                  "item": np.arange(n).astype(str), "value": judge[s],
                                  "human_value": human}) for s in (0, 1)])
    res = rg.ppi_mean(df, system="A")
    ref = prediction_powered_mean(human[:10], judge[:, :10].mean(0), judge[:, 10:].mean(0))
    assert res.estimate == pytest.approx(ref.estimate, rel=1e-12)
    assert res.se == pytest.approx(ref.se, rel=1e-12)
    half = df.copy()
    half.loc[(half["seed"] == "1") & (half["item"] == "0"), "human_value"] = np.nan
    with pytest.raises(VerdictError, match="item '0' has a human_value for 1 of its 2 seeds"):
        rg.ppi_mean(half, system="A")


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32 - 1), st.sampled_from(["ppi++", "ppi", "classical"]))
def test_item_order_does_not_change_the_estimate(seed: int, method: str) -> None:
    """The kernel: permuting the labelled pairs and the unlabelled items changes nothing."""
    rng = np.random.default_rng(seed)
    n, big_n = int(rng.integers(2, 30)), int(rng.integers(2, 60))
    y = rng.normal(size=n) * 10.0 ** rng.integers(-3, 4)
    yhat = y * rng.uniform(-1, 2) + rng.normal(0, rng.uniform(0.01, 2), n)
    yu = rng.normal(yhat.mean(), yhat.std() + 0.1, big_n)
    p, q = rng.permutation(n), rng.permutation(big_n)
    one = prediction_powered_mean(y, yhat, yu, method=method)
    other = prediction_powered_mean(y[p], yhat[p], yu[q], method=method)
    for field in ("estimate", "se", "ci_low", "ci_high", "lam", "pvalue"):
        assert getattr(other, field) == pytest.approx(getattr(one, field), rel=1e-9, abs=1e-12)


def test_row_order_of_the_scores_does_not_change_the_result() -> None:
    rng = np.random.default_rng(11)
    n = 40
    truth = rng.normal(size=n)
    judge = truth + rng.normal(0.1, 0.5, n)
    human = np.where(rng.random(n) < 0.4, truth, np.nan)
    df = pd.DataFrame({"dataset": "d", "system": "A", "item": [f"i{j}" for j in range(n)],
                       "value": judge, "human_value": human})
    df = pd.concat([df, df.assign(system="B", value=judge + rng.normal(0, 0.3, n))])
    perm = rg.Scores(df.sample(frac=1.0, random_state=5))
    scores = rg.Scores(df)
    for one, other in ((rg.ppi_mean(scores, system="A"), rg.ppi_mean(perm, system="A")),
                       (rg.ppi_mean_difference(scores, treatment="B", control="A"),
                        rg.ppi_mean_difference(perm, treatment="B", control="A"))):
        for field in ("estimate", "se", "ci_low", "ci_high", "lam"):
            assert getattr(other, field) == pytest.approx(getattr(one, field), rel=1e-12)
        assert (other.n_labelled, other.n_unlabelled) == (one.n_labelled, one.n_unlabelled)


def test_several_datasets_and_metrics_are_chosen_by_name() -> None:
    case = next(c for c in CASES if "treatment" not in c)
    one = case_scores(case).frame
    two = pd.concat([one, one.assign(dataset="e", human_value=one["human_value"] + 1.0),
                     one.assign(metric="other")], ignore_index=True)
    base = rg.ppi_mean(one, system="A")
    shifted = rg.ppi_mean(two, system="A", dataset="e")
    assert shifted.estimate == pytest.approx(base.estimate + 1.0, rel=1e-12)
    with pytest.raises(VerdictError, match="2 metrics.*pass metric="):
        rg.ppi_mean(two, system="A", dataset="d")
    assert rg.ppi_mean(two, system="A", dataset="d", metric="score").estimate == base.estimate


@pytest.mark.parametrize("power", [-900, -400, 400, 900])
def test_extreme_scales_give_the_rescaled_answer(power: int) -> None:
    """Scores × 2^power (far outside [2^-100, 2^100]): λ, z and p unchanged, locations scaled."""
    rng = np.random.default_rng(8)
    y = rng.normal(size=30)
    yhat = y + rng.normal(0.1, 0.3, 30)
    yu = rng.normal(0.1, 1.0, 80)
    ref = prediction_powered_mean(y, yhat, yu)
    c = 2.0 ** power
    big = prediction_powered_mean(y * c, yhat * c, yu * c)
    assert (big.lam, big.statistic, big.pvalue) == pytest.approx(
        (ref.lam, ref.statistic, ref.pvalue), rel=1e-12)
    for field in ("estimate", "se", "ci_low", "ci_high"):
        assert getattr(big, field) == pytest.approx(getattr(ref, field) * c, rel=1e-12)
