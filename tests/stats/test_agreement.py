"""ranger_eval.stats.agreement and describe's judge–human agreement with a ``human_value``
column: krippendorff's interval α and sklearn's κ (tests/oracles/agreement_oracle.py, the
``judge_human`` fixture), the PPI++ mean next to them equal to rg.ppi_mean, the bootstrap over
items or whole clusters, and NaN (not an error) where a coefficient is undefined."""
from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

import ranger_eval as rg
from ranger_eval.stats.agreement import (
    JUDGE_HUMAN_COLUMNS,
    judge_human_agreement,
    judge_human_table,
    percentile_interval,
)
from ranger_eval.stats.describe import JUDGE_COLUMNS


@pytest.fixture(scope="module")
def judged(oracles):
    fixture = json.loads((oracles / "agreement_oracle.json").read_text())["judge_human"]
    frame = pd.DataFrame(fixture["rows"], columns=fixture["columns"])
    frame["human_value"] = frame["human_value"].astype(float)
    return frame, fixture["expected"]


@pytest.fixture(scope="module")
def described(judged):
    frame, _ = judged
    return rg.describe(frame)


def test_describe_alpha_and_kappa_equal_krippendorff_and_sklearn(judged, described):
    _, expected = judged
    table = described.set_index(["dataset", "metric", "system"])
    assert len(expected) == len(table) == 12
    for case in expected:
        row = table.loc[(case["dataset"], case["metric"], case["system"])]
        assert row["n_labelled"] == case["n_labelled"]
        assert row["alpha"] == pytest.approx(case["alpha"], rel=1e-10)
        if "kappa" in case:
            assert row["kappa"] == pytest.approx(case["kappa"], rel=1e-10)
        else:  # 1-5 scores: no unweighted 0/1 kappa
            assert np.isnan(row["kappa"]) and np.isnan(row["kappa_low"])
        assert row["alpha_low"] < row["alpha"] < row["alpha_high"]


def test_describe_ppi_columns_equal_ppi_mean(judged, described):
    frame, _ = judged
    assert list(described.columns[-len(JUDGE_COLUMNS):]) == list(JUDGE_COLUMNS)
    for row in described.itertuples(index=False):
        ppi = rg.ppi_mean(frame, system=row.system, dataset=row.dataset, metric=row.metric)
        assert row.ppi_mean == pytest.approx(ppi.estimate, rel=1e-12)
        assert (row.ppi_low, row.ppi_high) == pytest.approx((ppi.ci_low, ppi.ci_high),
                                                            rel=1e-12)


def test_describe_without_human_scores_has_no_judge_columns(judged):
    frame, _ = judged
    table = rg.describe(frame.drop(columns="human_value"))
    assert not set(JUDGE_COLUMNS) & set(table.columns)


def test_clusters_are_resampled_whole():
    rng = np.random.default_rng(3)
    human = (rng.random(120) < 0.5).astype(float)
    judge = np.where(rng.random(120) < 0.8, human, 1 - human)
    clusters = np.repeat(np.arange(12), 10)
    by_item = judge_human_agreement(judge, human, level=0.9, n_resamples=400)
    by_cluster = judge_human_agreement(judge, human, clusters, level=0.9, n_resamples=400)
    assert by_item["alpha"] == by_cluster["alpha"] and by_item["kappa"] == by_cluster["kappa"]
    assert (by_item["alpha_low"], by_item["alpha_high"]) != (by_cluster["alpha_low"],
                                                             by_cluster["alpha_high"])
    table = judge_human_table(judge, human, clusters)
    assert table.unit_label == "cluster" and table.units.max() == 11


def test_describe_clustered_uses_cluster_bootstrap(judged):
    frame, _ = judged
    clustered = frame.assign(cluster=frame["item"].str.rsplit("-", n=1).str[1].astype(int) // 5)
    plain = rg.describe(frame)
    table = rg.describe(clustered)
    assert np.allclose(plain["alpha"], table["alpha"])
    assert not np.allclose(plain["alpha_low"], table["alpha_low"])


def test_undefined_coefficients_are_nan_not_errors():
    equal = judge_human_agreement(np.ones(5), np.ones(5), n_resamples=10)
    assert equal["n_labelled"] == 5 and np.isnan(equal["alpha"]) and np.isnan(equal["kappa"])
    one = judge_human_agreement(np.array([1.0, 0.0]), np.array([np.nan, 1.0]))
    assert one["n_labelled"] == 1 and all(np.isnan(one[c]) for c in JUDGE_HUMAN_COLUMNS[1:])


def test_describe_too_few_human_scores_gives_nan_ppi():
    frame = pd.DataFrame({"dataset": "d", "metric": "m", "system": "A",
                          "item": [f"q{i}" for i in range(6)],
                          "value": [1, 0, 1, 1, 0, 1.0],
                          "human_value": [1, np.nan, np.nan, np.nan, np.nan, np.nan]})
    row = rg.describe(frame).iloc[0]
    assert row["n_labelled"] == 1 and np.isnan(row["ppi_mean"]) and np.isnan(row["alpha"])


def test_percentile_interval_counts_undefined_rounds():
    low, high, undefined = percentile_interval(np.array([np.nan, np.nan]), 0.95)
    assert np.isnan(low) and np.isnan(high) and undefined == 2
