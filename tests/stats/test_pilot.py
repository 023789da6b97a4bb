"""plan_from_pilot: simulated power, Type S and Type M from pilot scores (Card et al. 2020)."""
from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ranger_eval as rg
from ranger_eval.stats import StatsInputError


def _pilot(n: int = 300, shift: float = 0.03, sd: float = 0.1, seed: int = 1,
           cluster: bool = False) -> rg.Scores:
    rng = np.random.default_rng(seed)
    a = rng.normal(0.5, 0.2, n)
    b = a + rng.normal(shift, sd, n)
    frame = pd.DataFrame({"dataset": "qa", "system": ["A"] * n + ["B"] * n,
                          "item": [f"q{i}" for i in range(n)] * 2, "value": np.r_[a, b]})
    if cluster:
        frame["cluster"] = [f"c{i // 5}" for i in range(n)] * 2
    return rg.Scores(frame)


def test_normal_pilot_agrees_with_closed_form() -> None:
    # normal differences: the simulated power, Type S and Type M approach the retrodesign closed
    # form at the pilot's SD (a t test at n = 60 is close to the z test of the closed form)
    res = rg.plan_from_pilot(_pilot(), treatment="B", control="A", effect=0.02, n=60,
                             n_resamples=4000)
    mc = math.sqrt(res.power_normal * (1 - res.power_normal) / 4000)
    assert abs(res.power - res.power_normal) < 5 * mc + 0.02
    assert res.type_m is not None and res.type_m_normal is not None
    assert res.type_m == pytest.approx(res.type_m_normal, rel=0.08)
    assert res.type_s is not None and res.type_s < 0.05
    assert res.n_pilot == 300 and res.solved_for == "power"


def test_solved_n_is_the_smallest_reaching_power() -> None:
    scores = _pilot()
    res = rg.plan_from_pilot(scores, treatment="B", control="A", effect=0.02, power=0.8,
                             n_resamples=500)
    assert res.power >= 0.8
    below = rg.plan_from_pilot(scores, treatment="B", control="A", effect=0.02, n=res.n - 1,
                               n_resamples=500)
    assert below.power < 0.8
    # and near the normal-theory n of the paired t test with the pilot's SD
    assert res.n == pytest.approx(rg.plan("paired-t", effect=0.02, sd=res.pilot_sd,
                                          power=0.8).n, rel=0.15)


def test_solved_effect_reaches_power() -> None:
    res = rg.plan_from_pilot(_pilot(), treatment="B", control="A", n=80, power=0.8,
                             n_resamples=500, test="wilcoxon")
    assert res.power >= 0.8 and res.effect > 0
    less = rg.plan_from_pilot(_pilot(), treatment="B", control="A", n=80, power=0.8,
                              n_resamples=500, alternative="less")
    assert less.effect < 0


def test_seeded_and_reproducible() -> None:
    kwargs = {"treatment": "B", "control": "A", "effect": 0.01, "n": 50, "n_resamples": 300}
    a = rg.plan_from_pilot(_pilot(), seed=3, **kwargs)
    b = rg.plan_from_pilot(_pilot(), seed=3, **kwargs)
    assert a == b
    assert a.signature.fields["seed"] == "3" and a.signature.fields["n_resamples"] == "300"


@settings(max_examples=12, deadline=None)
@given(shift=st.floats(-1.0, 1.0), test=st.sampled_from(["paired-t", "sign", "wilcoxon"]))
def test_pilot_mean_does_not_matter(shift: float, test: str) -> None:
    # the pilot's differences are centred before θ is added: only their spread counts
    kwargs = {"treatment": "B", "control": "A", "effect": 0.02, "n": 40, "n_resamples": 200,
              "test": test}
    base = rg.plan_from_pilot(_pilot(n=50, shift=0.0), **kwargs)
    moved = rg.plan_from_pilot(_pilot(n=50, shift=0.0).frame.assign(
        value=lambda f: f["value"] + np.where(f["system"] == "B", shift, 0.0)), **kwargs)
    assert moved.power == pytest.approx(base.power, abs=0.011)


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"effect": 0.02}, "exactly one of effect=, n= and power="),
    ({"effect": 0.0, "power": 0.8}, "cannot be detected"),
    ({"effect": 0.02, "power": 1.0}, "power must be above alpha"),
    ({"effect": 0.02, "n": 1}, "n must be an integer ≥ 2"),
    ({"effect": 0.02, "n": 10, "n_resamples": 5}, "n_resamples: must be a whole number from 100"),
    ({"effect": 0.02, "n": 10, "test": "welch"}, "unknown test"),
])
def test_bad_arguments(kwargs: dict, message: str) -> None:
    with pytest.raises(StatsInputError, match=message):
        rg.plan_from_pilot(_pilot(n=30), treatment="B", control="A", **kwargs)


def test_identical_systems_refused() -> None:
    frame = _pilot(n=20).frame
    frame.loc[frame["system"] == "B", "value"] = frame.loc[frame["system"] == "A",
                                                           "value"].to_numpy()
    with pytest.raises(StatsInputError, match="no variability"):
        rg.plan_from_pilot(frame, treatment="B", control="A", effect=0.1, n=20)


def test_several_datasets_need_dataset() -> None:
    frame = pd.concat([_pilot(n=20).frame, _pilot(n=20).frame.assign(dataset="other")])
    with pytest.raises(StatsInputError, match="pass dataset="):
        rg.plan_from_pilot(frame, treatment="B", control="A", effect=0.1, n=20)
    res = rg.plan_from_pilot(frame, treatment="B", control="A", effect=0.1, n=20,
                             dataset="other", n_resamples=100)
    assert res.dataset == "other"


def test_cluster_robust_t_is_statsmodels_cr1() -> None:
    import statsmodels.api as sm

    from ranger_eval.stats.pilot import cluster_robust_t

    rng = np.random.default_rng(9)
    codes = np.repeat(np.arange(12), rng.integers(1, 7, 12))
    d = rng.normal(0.1, 1.0, codes.size) + rng.normal(0, 0.5, 12)[codes]
    fit = sm.OLS(d, np.ones(codes.size)).fit(cov_type="cluster", cov_kwds={"groups": codes})
    estimate, t = cluster_robust_t(np.bincount(codes, weights=d)[None, :],
                                   np.bincount(codes).astype(float)[None, :])
    assert estimate[0] == pytest.approx(fit.params[0], rel=1e-12)
    assert t[0] == pytest.approx(fit.tvalues[0], rel=1e-10)


def test_clustered_pilot_resamples_whole_clusters() -> None:
    rng = np.random.default_rng(3)
    clusters, size = 60, 5
    codes = np.repeat(np.arange(clusters), size)
    n = clusters * size
    a = rng.normal(0.5, 0.2, n)
    b = a + 0.02 + 0.1 * rng.normal(0, 1, clusters)[codes] + rng.normal(0, 0.1, n)
    frame = pd.DataFrame({"dataset": "qa", "system": ["A"] * n + ["B"] * n,
                          "item": [f"q{i}" for i in range(n)] * 2, "value": np.r_[a, b],
                          "cluster": [f"c{c}" for c in codes] * 2})
    clustered = rg.plan_from_pilot(frame, treatment="B", control="A", effect=0.05, power=0.8,
                                   n_resamples=500)
    naive = rg.plan_from_pilot(frame.drop(columns="cluster"), treatment="B", control="A",
                               effect=0.05, power=0.8, n_resamples=500)
    assert clustered.n_clusters is not None and clustered.n == math.ceil(
        clustered.n_clusters * size)
    assert clustered.n > 2 * naive.n        # the design effect of ICC ≈ 0.5 in clusters of 5
    assert clustered.power >= 0.8 and naive.n_clusters is None
    # simulated power close to the normal closed form at the CR1 standard error
    at = rg.plan_from_pilot(frame, treatment="B", control="A", effect=0.05, n=200,
                            n_resamples=2000)
    assert abs(at.power - at.power_normal) < 0.05
    with pytest.raises(StatsInputError, match="no clustered simulation"):
        rg.plan_from_pilot(frame, treatment="B", control="A", effect=0.05, n=100,
                           test="wilcoxon")
