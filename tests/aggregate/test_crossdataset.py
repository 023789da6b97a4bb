"""Tests of Søgaard's (2013) cross-dataset estimation: error reduction with its paired-bootstrap
variance, the five estimators side by side (macro, micro, fixed, random, Gumbel) with
Anderson–Darling checks, the held-out predictive check and its figure.

Numbers are checked against tests/oracles/crossdataset_oracle.json (plain Python, scipy and
statsmodels; see tests/oracles/crossdataset_oracle.py), against scipy's ``gumbel_r.fit`` and
``anderson`` and against ``meta_analysis``; properties with hypothesis; and the GLUE and
time-series bake-off case studies from the shared corpus (skipped when it is absent).
"""
from __future__ import annotations

import dataclasses
import itertools
import json
import math
import warnings
from dataclasses import dataclass
from pathlib import Path
from unittest import mock

import matplotlib as mpl
import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scipy import stats

import ranger_eval.aggregate.crossdataset as cd
import ranger_eval.aggregate.errorreduction as er_module
from ranger_eval.aggregate import (
    CrossDatasetEstimates,
    ErrorReduction,
    PredictiveCheck,
    cross_dataset_estimates,
    error_reduction,
    gumbel_fit,
    predictive_check,
)
from ranger_eval.aggregate.crossdataset import ESTIMATORS, anderson_darling
from ranger_eval.effects import effect_sizes
from ranger_eval.errors import (
    AggregateError,
    PlotError,
    RangerError,
    RenamedKeywordError,
    SettingsError,
)
from ranger_eval.meta import meta_analysis
from ranger_eval.plots import save_figure
from ranger_eval.plots.predictive import predictive_plot
from ranger_eval.scores import Scores
from ranger_eval.settings import (
    CrossDatasetSettings,
    ErrorReductionSettings,
    PredictiveCheckSettings,
    settings_fields,
)
from ranger_eval.signature import parse_signature
from tests.helpers.layout import assert_texts_clean, texts

RTOL = 1e-9
ORACLE = Path(__file__).resolve().parents[1] / "oracles" / "crossdataset_oracle.json"
GLUE_TASKS = ["mnli", "mrpc", "qnli", "qqp", "rte", "sst2", "wnli"]


@dataclass(frozen=True)
class Effects:
    """The minimal duck type the estimators accept: names, yi, vi, n."""

    names: tuple[str, ...]
    yi: np.ndarray
    vi: np.ndarray
    n: np.ndarray
    measure: str = "GEN"


def make_effects(y, v, n=None) -> Effects:
    y = np.asarray(y, dtype=float)
    n = np.full(y.size, 100) if n is None else np.asarray(n)
    return Effects(tuple(f"d{i}" for i in range(y.size)), y, np.asarray(v, dtype=float), n)


@pytest.fixture(scope="module")
def oracle() -> dict:
    return json.loads(ORACLE.read_text(encoding="utf-8"))


def binary_scores(n_datasets: int = 12, seed: int = 0, n_range=(40, 300)) -> Scores:
    """0/1 correctness of a control (error 15–40%) and a treatment fixing part of its errors."""
    rng = np.random.default_rng(seed)
    rows = []
    for j in range(n_datasets):
        n = int(rng.integers(*n_range))
        e = rng.uniform(0.15, 0.4)
        ctrl = (rng.random(n) >= e).astype(float)
        fix = (ctrl == 0) & (rng.random(n) < rng.uniform(0.0, 0.5))
        brk = (ctrl == 1) & (rng.random(n) < 0.05)
        treat = np.where(fix, 1.0, np.where(brk, 0.0, ctrl))
        for system, vals in (("ctrl", ctrl), ("treat", treat)):
            rows.append(pd.DataFrame({"dataset": f"set-{j:02d}", "system": system,
                                      "item": [f"i{i}" for i in range(n)], "value": vals}))
    return Scores(pd.concat(rows, ignore_index=True))


# ============================================================================ error reduction


def test_error_reduction_matches_oracle(oracle):
    fx = oracle["error_reduction"]
    scores = Scores(pd.DataFrame(fx["rows"]))
    for case in fx["cases"]:
        er = error_reduction(scores, treatment=fx["treatment"], control=fx["control"],
                             n_resamples=case["n_resamples"], seed=case["seed"])
        exp = case["expected"]
        assert list(er.names) == exp["names"]
        np.testing.assert_array_equal(er.n, exp["n"])
        for key in ("yi", "vi", "e_control", "e_treatment"):
            np.testing.assert_allclose(getattr(er, key), exp[key], rtol=RTOL, atol=0, err_msg=key)


def test_error_reduction_by_hand():
    # control wrong on 20 of 50 items, treatment on 15: T = (0.4 − 0.3)/0.4 = 0.25
    ctrl = [0, 0, 0, 0, 1, 1, 1, 1, 1, 1] * 5
    treat = [1, 0, 0, 0, 1, 1, 1, 1, 1, 1] * 5
    scores = Scores.from_arrays({"a": {"c": ctrl, "t": treat}})
    er = error_reduction(scores, treatment="t", control="c", n_resamples=30)
    assert er.yi[0] == pytest.approx(0.25, abs=1e-15)
    assert er.e_control[0] == pytest.approx(0.4) and er.e_treatment[0] == pytest.approx(0.3)
    assert er.vi[0] > 0 and er.n[0] == 50
    # the sign: a worse treatment has a negative reduction
    worse = error_reduction(scores, treatment="c", control="t", n_resamples=30)
    assert worse.yi[0] == pytest.approx((0.3 - 0.4) / 0.3)


def test_error_reduction_pairs_items_by_id():
    scores = binary_scores(3)
    df = scores.frame
    shuffled = df.sample(frac=1.0, random_state=3).reset_index(drop=True)
    a = error_reduction(scores, treatment="treat", control="ctrl").to_frame()
    b = error_reduction(Scores(shuffled), treatment="treat", control="ctrl").to_frame()
    assert list(a["dataset"]) != list(b["dataset"])  # datasets come in another order …
    pd.testing.assert_frame_equal(a.set_index("dataset"), b.set_index("dataset").loc[a["dataset"]])


def test_error_reduction_seeded():
    scores = binary_scores(4)
    a = error_reduction(scores, treatment="treat", control="ctrl", seed=11)
    b = error_reduction(scores, treatment="treat", control="ctrl", seed=11)
    c = error_reduction(scores, treatment="treat", control="ctrl", seed=12)
    np.testing.assert_array_equal(a.vi, b.vi)
    np.testing.assert_array_equal(a.yi, c.yi)  # the point estimate does not resample
    assert np.all(a.vi != c.vi)
    assert a.signature == b.signature != c.signature
    fields = parse_signature(a.signature)
    assert fields["kind"] == "effects" and fields["measure"] == "error_reduction"
    assert fields["n_resamples"] == "50" and fields["seed"] == "11"


def test_error_reduction_variance_does_not_depend_on_other_datasets():
    """Each dataset's bootstrap stream depends on the seed and its name only."""
    scores = binary_scores(5)
    full = error_reduction(scores, treatment="treat", control="ctrl")
    names = list(full.names)
    part = error_reduction(scores, treatment="treat", control="ctrl",
                           datasets=names[::-1][:3])
    for name, vi in zip(part.names, part.vi, strict=True):
        assert vi == full.vi[names.index(name)]


def test_error_reduction_batches_give_the_same_numbers():
    scores = binary_scores(3)
    a = error_reduction(scores, treatment="treat", control="ctrl", n_resamples=37)
    with mock.patch.object(er_module, "_MAX_CELLS", 500):  # a few rows per batch
        b = error_reduction(scores, treatment="treat", control="ctrl", n_resamples=37)
    np.testing.assert_array_equal(a.vi, b.vi)


def test_error_reduction_variance_is_the_bootstrap_variance():
    """vi = var(ddof=1) of T over the documented index matrix, recomputed here vectorised."""
    scores = binary_scores(2)
    er = error_reduction(scores, treatment="treat", control="ctrl", n_resamples=64, seed=4)
    for name, vi in zip(er.names, er.vi, strict=True):
        p = scores.pair(name, "treat", "ctrl")
        rng = np.random.default_rng([4, 0, __import__("zlib").crc32(name.encode())])
        idx = rng.integers(0, p.n, size=(64, p.n))
        ec = 1 - p.control[idx].mean(axis=1)
        et = 1 - p.treatment[idx].mean(axis=1)
        assert vi == pytest.approx(np.var((ec - et) / ec, ddof=1), rel=1e-12)


def test_error_reduction_result_object():
    scores = binary_scores(3)
    er = error_reduction(scores, treatment="treat", control="ctrl")
    assert isinstance(er, ErrorReduction) and len(er) == 3
    frame = er.to_frame()
    assert list(frame.columns) == ["dataset", "yi", "vi", "se", "n", "e_control", "e_treatment"]
    np.testing.assert_allclose(frame["se"] ** 2, er.vi)
    with pytest.raises(ValueError):
        er.yi[0] = 1.0  # read-only
    # usable wherever an EffectSizes is
    res = meta_analysis(er, method="DL")
    assert res.k == 3 and res.names == er.names and res.measure == "error_reduction"
    assert "paired bootstrap" in str(er)


def test_error_reduction_with_continuous_scores_and_seeds():
    rng = np.random.default_rng(2)
    rows = []
    for d in ("x", "y"):
        for s, base in (("a", 0.8), ("b", 0.85)):
            for seed in ("1", "2"):
                for i in range(25):
                    rows.append({"dataset": d, "system": s, "item": str(i), "seed": seed,
                                 "value": float(np.clip(rng.normal(base, 0.05), 0, 1))})
    scores = Scores(pd.DataFrame(rows))
    er = error_reduction(scores, treatment="b", control="a")
    p = scores.pair("x", "b", "a")  # seeds averaged per item
    assert er.yi[0] == pytest.approx((np.mean(1 - p.control) - np.mean(1 - p.treatment))
                                     / np.mean(1 - p.control), rel=1e-12)


@pytest.mark.parametrize(
    "values, match",
    [
        ({"c": [1, 1, 1, 1], "t": [1, 0, 1, 1]}, r"dataset 'a'.*makes no error"),
        ({"c": [1.0, 0.5, 1.2, 1.0], "t": [1, 0, 1, 1]},
         r"dataset 'a', system 'c', item '3'.*1\.2"),
        ({"c": [1, 0, 1, 1], "t": [1, -0.1, 1, 1]}, r"system 't'.*-0\.1"),
        ({"c": [0], "t": [1]}, r"dataset 'a' has 1 paired item"),
    ],
)
def test_error_reduction_bad_data(values, match):
    scores = Scores.from_arrays({"a": values})
    with pytest.raises(AggregateError, match=match):
        error_reduction(scores, treatment="t", control="c")


def test_error_reduction_zero_control_error_in_a_resample():
    # one control error in 40 items: about (39/40)^40 = 36% of resamples have none
    ctrl = [0.0] + [1.0] * 39
    treat = [1.0] * 40
    scores = Scores.from_arrays({"easy": {"c": ctrl, "t": treat}})
    with pytest.raises(AggregateError, match=r"dataset 'easy'.*no error in \d+ of 50 bootstrap"):
        error_reduction(scores, treatment="t", control="c")


def test_error_reduction_bad_arguments():
    scores = binary_scores(2)
    with pytest.raises(AggregateError, match="same system"):
        error_reduction(scores, treatment="ctrl", control="ctrl")
    with pytest.raises(AggregateError, match="unknown system 'nope'"):
        error_reduction(scores, treatment="nope", control="ctrl")
    with pytest.raises(AggregateError, match="n_resamples"):
        error_reduction(scores, treatment="treat", control="ctrl", n_resamples=1)
    with pytest.raises(AggregateError, match="seed"):
        error_reduction(scores, treatment="treat", control="ctrl", seed=-1)
    with pytest.raises(AggregateError, match="seed"):
        error_reduction(scores, treatment="treat", control="ctrl", seed=True)
    with pytest.raises(AggregateError, match="unknown dataset"):
        error_reduction(scores, treatment="treat", control="ctrl", datasets=["zzz"])
    with pytest.raises(RangerError):  # a ValueError too
        error_reduction(scores, treatment="treat", control="ctrl", datasets=["set-00", "set-00"])


# ============================================================================ Gumbel fit


GUMBEL_SAMPLES = [
    np.random.default_rng(1).gumbel(0.3, 0.2, 12),
    np.random.default_rng(2).normal(0.0, 1.0, 40),
    np.random.default_rng(3).gumbel(-500.0, 3000.0, 7),  # weighted effects are large
    np.random.default_rng(4).exponential(1e-4, 25),
    np.array([0.0, 1.0]),
    np.array([3.0, 3.0, 3.0, 4.0]),
    np.random.default_rng(5).standard_t(2, 60),
]


@pytest.mark.parametrize("x", GUMBEL_SAMPLES)
def test_gumbel_fit_equals_scipy(x):
    loc, scale = gumbel_fit(x)
    s_loc, s_scale = stats.gumbel_r.fit(x)
    assert scale == pytest.approx(s_scale, rel=1e-8)
    assert loc == pytest.approx(s_loc, rel=1e-8, abs=1e-8 * s_scale)


@pytest.mark.parametrize("x", GUMBEL_SAMPLES)
def test_gumbel_fit_is_the_likelihood_maximum(x):
    loc, scale = gumbel_fit(x)

    def ll(a, b):
        return float(np.sum(stats.gumbel_r.logpdf(x, a, b)))

    best = ll(loc, scale)
    assert best >= ll(*stats.gumbel_r.fit(x)) - 1e-9 * abs(best)
    for da, db in itertools.product((-1e-3, 0.0, 1e-3), (-1e-3, 0.0, 1e-3)):
        if da == db == 0.0:
            continue
        assert best >= ll(loc + da * scale, scale * (1 + db))


def test_gumbel_fit_vectorised_rows_equal_single_fits():
    rng = np.random.default_rng(9)
    x = rng.gumbel(0.0, 1.0, (50, 9)) * rng.uniform(0.01, 100, (50, 1))
    loc, scale = cd._gumbel_mle(x)
    for i in range(50):
        a, b = gumbel_fit(x[i])
        assert loc[i] == pytest.approx(a, rel=1e-12, abs=1e-12 * b)
        assert scale[i] == pytest.approx(b, rel=1e-12)


def test_gumbel_fit_degenerate():
    assert gumbel_fit([2.5, 2.5, 2.5]) == (2.5, 0.0)
    assert gumbel_fit([-1.0]) == (-1.0, 0.0)
    with pytest.raises(AggregateError):
        gumbel_fit([1.0, np.nan])
    with pytest.raises(AggregateError):
        gumbel_fit([])


# ============================================================================ Anderson–Darling


@pytest.mark.parametrize("dist", ["norm", "gumbel_r"])
def test_ad_critical_values_equal_scipy(dist):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = stats.anderson(np.random.default_rng(0).normal(size=10), dist=dist)
        if not hasattr(res, "critical_values"):
            pytest.skip("this scipy no longer returns critical values")
        for n in range(3, 120):
            x = np.random.default_rng(n).normal(size=n)
            ref = stats.anderson(x, dist=dist)
            assert cd._ad_critical_5(dist, n) == float(ref.critical_values[2])
            assert float(ref.significance_level[2]) == 5.0
            stat, crit = anderson_darling(x, dist)
            assert stat == pytest.approx(float(ref.statistic), rel=1e-12)


def test_ad_undefined_cases():
    assert all(math.isnan(v) for v in anderson_darling([1.0, 2.0]))
    assert all(math.isnan(v) for v in anderson_darling([1.0, 1.0, 1.0, 1.0]))


# ============================================================================ estimators


def test_estimates_match_oracle(oracle):
    for case in oracle["estimates"]:
        eff = make_effects(case["yi"], case["vi"], case["n"])
        res = cross_dataset_estimates(eff, level=case["level"])
        exp = case["expected"]
        t = res.table.set_index("estimator")
        for col in ("estimate", "ci_low", "ci_high"):
            for e in ESTIMATORS:
                assert t.loc[e, col] == pytest.approx(exp[col][e], rel=RTOL), (col, e)
        assert res.random.tau2 == pytest.approx(exp["tau2"], rel=RTOL, abs=1e-15)
        assert res.gumbel_scale == pytest.approx(exp["gumbel_scale"], rel=1e-8)
        assert res.gumbel_loc == pytest.approx(exp["gumbel_loc"], rel=1e-8,
                                               abs=1e-8 * exp["gumbel_scale"])
        gof = res.goodness_of_fit.set_index(["input", "distribution"])
        for key, by_dist in exp["anderson"].items():
            for dist, pair in by_dist.items():
                row = gof.loc[(key, dist)]
                if pair is None:
                    assert math.isnan(row["statistic"]) and row["rejected"] is pd.NA
                    continue
                assert row["statistic"] == pytest.approx(pair[0], rel=1e-7)
                assert row["critical_5"] == pair[1]
                assert bool(row["rejected"]) == (pair[0] >= pair[1])
        for e in ESTIMATORS:
            key = t.loc[e, "ad_input"]
            pair = exp["anderson"][key]["norm"]
            if pair is not None:
                assert t.loc[e, "ad_statistic"] == pytest.approx(pair[0], rel=1e-7)
                assert bool(t.loc[e, "normal"]) == (pair[0] < pair[1])


def test_estimates_formulas_and_inputs():
    rng = np.random.default_rng(5)
    y, v = rng.normal(0.1, 0.1, 9), rng.uniform(0.001, 0.01, 9)
    n = rng.integers(10, 1000, 9)
    res = cross_dataset_estimates(make_effects(y, v, n), method="REML", level=0.9)
    assert isinstance(res, CrossDatasetEstimates) and res.k == 9
    est = res.estimates
    assert list(est.index) == list(ESTIMATORS)
    assert est["macro"] == pytest.approx(y.mean(), rel=1e-14)
    assert est["micro"] == pytest.approx(np.sum(n * y) / n.sum(), rel=1e-14)
    assert est["fixed"] == pytest.approx(meta_analysis(y, v, method="FE").estimate, rel=1e-14)
    re = meta_analysis(y, v, method="REML", level=0.9)
    assert est["random"] == re.estimate and res.table.iloc[3]["ci_low"] == re.ci_low
    w = 1 / v
    a, b = stats.gumbel_r.fit(w * y)
    assert est["gumbel"] == pytest.approx((a + np.euler_gamma * b) / w.mean(), rel=1e-8)
    g = res.table.set_index("estimator").loc["gumbel"]
    half = stats.norm.ppf(0.95) * math.pi / math.sqrt(6) * b / w.mean()
    assert g["ci_high"] - g["ci_low"] == pytest.approx(2 * half, rel=1e-8)
    assert list(res.table["ad_input"]) == ["y", "n·y", "y/v", "y/(v+τ²)", "y/v"]
    assert str(res.table["normal"].dtype) == "boolean"
    fields = parse_signature(res.signature)
    assert fields["kind"] == "aggregate" and fields["method"] == "REML"
    assert fields["level"] == "0.9" and fields["k"] == "9"
    text = str(res)
    assert "Gumbel (Søgaard)" in text and "AD(" in text and res.signature in text


def test_gumbel_random_effects_weights():
    rng = np.random.default_rng(6)
    y, v = rng.normal(0.1, 0.2, 10), rng.uniform(0.001, 0.01, 10)
    res = cross_dataset_estimates(make_effects(y, v), gumbel_weights="RE")
    w = 1 / (v + res.random.tau2)
    a, b = gumbel_fit(w * y)
    assert res.estimates["gumbel"] == pytest.approx((a + np.euler_gamma * b) / w.mean(), rel=1e-12)
    assert res.table.iloc[4]["ad_input"] == "y/(v+τ²)"
    assert parse_signature(res.signature)["weights"] == "gumbel:RE"


def test_gumbel_estimate_is_fixed_effect_when_weighted_effects_are_equal():
    v = np.array([0.01, 0.02, 0.04])
    y = 0.5 * v  # w·y = 0.5 for every dataset
    res = cross_dataset_estimates(make_effects(y, v))
    assert res.gumbel_scale == 0.0
    assert res.estimates["gumbel"] == pytest.approx(res.estimates["fixed"], rel=1e-14)


def test_single_dataset():
    res = cross_dataset_estimates(make_effects([0.2], [0.01], [50]))
    np.testing.assert_allclose(res.table["estimate"], 0.2, rtol=1e-15)
    assert res.table["ad_statistic"].isna().all() and res.table["normal"].isna().all()


def test_sizes_argument():
    y, v = [0.1, 0.2, 0.4], [0.01, 0.02, 0.03]
    eff = Effects(("a", "b", "c"), np.array(y), np.array(v), np.array([np.nan] * 3))
    with pytest.raises(AggregateError, match="micro-average needs|size of dataset 'a'"):
        cross_dataset_estimates(eff)
    by_map = cross_dataset_estimates(eff, sizes={"a": 1, "b": 1, "c": 2})
    by_seq = cross_dataset_estimates(eff, sizes=[1, 1, 2])
    assert by_map.estimates["micro"] == by_seq.estimates["micro"] == pytest.approx(0.275)
    with pytest.raises(AggregateError, match="no entry for dataset"):
        cross_dataset_estimates(eff, sizes={"a": 1})
    with pytest.raises(AggregateError, match="2 entries"):
        cross_dataset_estimates(eff, sizes=[1, 2])
    with pytest.raises(AggregateError, match="dataset 'b' is 0.0"):
        cross_dataset_estimates(eff, sizes=[1, 0, 2])


def test_estimator_bad_input():
    with pytest.raises(AggregateError, match="vi of dataset 'd1' is 0.0"):
        cross_dataset_estimates(make_effects([0.1, 0.2, 0.3], [0.01, 0.0, 0.02]))
    with pytest.raises(AggregateError, match="yi of dataset 'd0'"):
        cross_dataset_estimates(make_effects([np.inf, 0.2], [0.01, 0.02]))
    with pytest.raises(AggregateError, match="method"):
        cross_dataset_estimates(make_effects([0.1, 0.2], [0.01, 0.02]), method="XX")
    with pytest.raises(AggregateError, match="level"):
        cross_dataset_estimates(make_effects([0.1, 0.2], [0.01, 0.02]), level=95)
    with pytest.raises(AggregateError, match="gumbel_weights"):
        cross_dataset_estimates(make_effects([0.1, 0.2], [0.01, 0.02]), gumbel_weights="x")
    with pytest.raises(AggregateError, match="has no yi"):
        cross_dataset_estimates([0.1, 0.2])


def test_estimates_from_effect_sizes():
    scores = binary_scores(6)
    eff = effect_sizes(scores, treatment="treat", control="ctrl", measure="MD")
    res = cross_dataset_estimates(eff)
    assert res.measure == "MD"
    assert res.estimates["micro"] == pytest.approx(np.sum(eff.n * eff.yi) / eff.n.sum())


finite = st.floats(-2.0, 2.0, allow_nan=False, allow_infinity=False)
variances = st.floats(1e-4, 1.0, allow_nan=False, allow_infinity=False)


@st.composite
def effect_sets(draw, min_k=2, max_k=12):
    k = draw(st.integers(min_k, max_k))
    y = draw(st.lists(finite, min_size=k, max_size=k))
    v = draw(st.lists(variances, min_size=k, max_size=k))
    n = draw(st.lists(st.integers(5, 10_000), min_size=k, max_size=k))
    return np.array(y), np.array(v), np.array(n)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(effect_sets(), st.randoms(use_true_random=False))
def test_property_order_invariance(data, rnd):
    y, v, n = data
    perm = list(range(y.size))
    rnd.shuffle(perm)
    a = cross_dataset_estimates(make_effects(y, v, n)).table
    b = cross_dataset_estimates(make_effects(y[perm], v[perm], n[perm])).table
    for col in ("estimate", "ci_low", "ci_high", "ad_statistic"):
        np.testing.assert_allclose(a[col], b[col], rtol=1e-9, atol=1e-12, err_msg=col)


@settings(max_examples=60, deadline=None)
@given(effect_sets(), st.integers(1, 5000))
def test_property_macro_equals_micro_with_equal_sizes(data, size):
    y, v, _ = data
    res = cross_dataset_estimates(make_effects(y, v, np.full(y.size, size)))
    assert res.estimates["micro"] == pytest.approx(res.estimates["macro"], rel=1e-12, abs=1e-15)


@settings(max_examples=60, deadline=None)
@given(effect_sets(min_k=1))
def test_property_weighted_estimates_within_range(data):
    y, v, n = data
    est = cross_dataset_estimates(make_effects(y, v, n)).estimates
    tol = 1e-12 * max(1.0, float(np.abs(y).max()))
    for e in ("macro", "micro", "fixed", "random"):
        assert y.min() - tol <= est[e] <= y.max() + tol, e


# ============================================================================ DL closed form


@pytest.mark.parametrize("seed", range(6))
def test_vectorised_dl_equals_meta_analysis(seed):
    rng = np.random.default_rng(seed)
    k = int(rng.integers(2, 30))
    y = rng.normal(0, 0.3, (40, k))
    v = rng.uniform(1e-4, 0.05, (40, k))
    if seed % 2:  # one dominant weight per row and some homogeneous rows (τ² truncated at 0)
        v[:, 0] = 1e-7
        y[:5] = 0.1 + rng.normal(0, 1e-4, (5, k))
    est, tau2 = cd._dl_rows(y, v)
    for i in range(40):
        ref = meta_analysis(y[i], v[i], method="DL")
        assert abs(est[i] - ref.estimate) <= 1e-12 * max(1.0, abs(ref.estimate))
        assert abs(tau2[i] - ref.tau2) <= 1e-12 * max(1.0, ref.tau2)
    assert (tau2 == 0).any() or seed % 2 == 0


def test_vectorised_dl_identical_effects():
    y = np.full((2, 4), 0.3)
    est, tau2 = cd._dl_rows(y, np.array([[0.1, 0.2, 0.3, 0.4]] * 2))
    np.testing.assert_array_equal(tau2, 0.0)
    np.testing.assert_allclose(est, 0.3, rtol=1e-15)


# ============================================================================ predictive check


def predictive_effects(d: int = 30, seed: int = 0) -> Effects:
    rng = np.random.default_rng(seed)
    return make_effects(rng.gumbel(0.05, 0.1, d), rng.uniform(0.001, 0.02, d),
                        rng.integers(100, 2000, d))


def test_predictive_matches_oracle(oracle):
    fx = oracle["predictive"]
    eff = make_effects(fx["yi"], fx["vi"], fx["n"])
    res = predictive_check(eff, k=fx["k"], n_test=fx["n_test"], n_resamples=fx["repeats"],
                           seed=fx["seed"])
    exp = fx["expected"]
    for k in fx["k"]:
        np.testing.assert_array_equal(res.draws[k], exp["draws"][str(k)])
    t = res.table.set_index(["k", "estimator"])
    for row in exp["rows"]:
        got = t.loc[(row["k"], row["estimator"])]
        for col in ("mae", "sd", "mean_error"):
            assert got[col] == pytest.approx(row[col], rel=RTOL), (row["k"], row["estimator"], col)
        errs = res.errors.query(f"k == {row['k']} and estimator == '{row['estimator']}'")
        np.testing.assert_allclose(errs["abs_error"], row["abs_errors"], rtol=RTOL, atol=1e-15)
        if row["estimator"] == "macro":
            assert math.isnan(got["pvalue"]) and math.isnan(got["wins"])
            continue
        assert got["wilcoxon_statistic"] == row["wilcoxon_statistic"]
        assert got["pvalue"] == pytest.approx(row["pvalue"], rel=RTOL)
        assert got["wins"] == row["wins"]


def test_predictive_estimates_equal_cross_dataset_estimates_per_draw():
    eff = predictive_effects(25, seed=3)
    for method in ("DL", "REML"):
        res = predictive_check(eff, k=(4, 11), n_test=3, n_resamples=6, seed=2, method=method)
        for k, draws in res.draws.items():
            for r, row in enumerate(draws[:3]):
                sub = make_effects(eff.yi[row[:k]], eff.vi[row[:k]], eff.n[row[:k]])
                ref = cross_dataset_estimates(sub, method=method).estimates
                got = res.errors.query(f"k == {k} and repeat == {r}").set_index("estimator")
                for e in ESTIMATORS:
                    assert got.loc[e, "estimate"] == pytest.approx(ref[e], rel=1e-12, abs=1e-14)
                observed = eff.yi[row[k:]].mean()
                np.testing.assert_allclose(got["observed"], observed, rtol=1e-14)


def test_predictive_draws():
    eff = predictive_effects(20)
    res = predictive_check(eff, k=(2, 10, 15), n_test=5, n_resamples=30, seed=1)
    for k, draws in res.draws.items():
        assert draws.shape == (30, k + 5)
        assert all(len(set(row)) == k + 5 for row in draws.tolist())  # disjoint, no repeats
        assert draws.min() >= 0 and draws.max() < 20
        assert not draws.flags.writeable
    assert len(res.errors) == 3 * 30 * len(ESTIMATORS)
    assert list(res.errors.columns) == ["k", "repeat", "estimator", "estimate", "observed",
                                        "error", "abs_error"]
    np.testing.assert_allclose(res.errors["abs_error"], res.errors["error"].abs())


def test_predictive_seeded():
    eff = predictive_effects()
    a = predictive_check(eff, seed=4)
    b = predictive_check(eff, seed=4)
    c = predictive_check(eff, seed=5)
    pd.testing.assert_frame_equal(a.errors, b.errors)
    pd.testing.assert_frame_equal(a.table, b.table)
    assert not a.errors["estimate"].equals(c.errors["estimate"])
    assert a.signature == b.signature != c.signature


def test_predictive_from_scores_equals_from_effects():
    """The scores path computes the error reduction with ErrorReductionSettings' 50 resamples
    and the seed: the same as passing that ErrorReduction."""
    scores = binary_scores(14, seed=8)
    direct = predictive_check(scores, treatment="treat", control="ctrl", k=(3, 6), n_test=4,
                              n_resamples=8, seed=3)
    er = error_reduction(scores, treatment="treat", control="ctrl", n_resamples=50, seed=3)
    via = predictive_check(er, k=(3, 6), n_test=4, n_resamples=8, seed=3)
    pd.testing.assert_frame_equal(direct.errors, via.errors)
    assert direct.signature == via.signature
    np.testing.assert_array_equal(direct.effects.vi, er.vi)
    assert direct.effects.n_resamples == 50 == ErrorReductionSettings().n_resamples
    md = predictive_check(scores, treatment="treat", control="ctrl", k=(3, 6), n_test=4,
                          n_resamples=8, effect="MD")
    assert md.effect == "MD" and md.n_resamples == 8
    assert parse_signature(md.signature)["method_detail"] == "holdout:n_test=4"
    np.testing.assert_allclose(
        md.effects.yi, effect_sizes(scores, treatment="treat", control="ctrl", measure="MD").yi)


#: ``to_frame()["mae"]`` and ``["pvalue"]`` of the two calls below, computed by the code before
#: the splits were called ``n_resamples`` (``repeats=8``; the scores path's ``n_resamples=50``
#: then set the error reduction's bootstrap): the rename changes no number.
_BEFORE_DEFAULT_MAE = [0.16703133764092448, 0.16573289683829623, 0.12470644069337607,
                       0.15652562347074017, 0.1260886884357248, 0.11680725800301976,
                       0.11138333387491976, 0.10135261455783393, 0.10572189398659426,
                       0.10333903031566635]
_BEFORE_ER100_MAE = [0.12885919794415043, 0.1301923296349026, 0.0958724923013826,
                     0.1168417589023272, 0.0987428598722842, 0.15198943670026988,
                     0.14945616755199592, 0.16972978290359692, 0.15091565556854555,
                     0.17199478218683123]
_BEFORE_ER100_P = [math.nan, 0.25, 0.0546875, 0.109375, 0.0546875, math.nan, 1.0, 0.3828125,
                   1.0, 0.3671875]


@pytest.mark.slow  # two error reductions and two checks: ~0.6 s
def test_predictive_numbers_unchanged_by_the_rename():
    scores = binary_scores(9, seed=8, n_range=(40, 90))
    default = predictive_check(scores, treatment="treat", control="ctrl", k=(3, 5), n_test=4,
                               seed=3)
    assert default.n_resamples == 20 and default.effects.n_resamples == 50
    np.testing.assert_allclose(default.table["mae"], _BEFORE_DEFAULT_MAE, rtol=1e-12)
    er = error_reduction(scores, treatment="treat", control="ctrl", n_resamples=100, seed=3)
    res = predictive_check(er, k=(3, 5), n_test=4, n_resamples=8, seed=3)
    np.testing.assert_allclose(res.table["mae"], _BEFORE_ER100_MAE, rtol=1e-12)
    np.testing.assert_allclose(res.table["pvalue"], _BEFORE_ER100_P, rtol=1e-12)
    assert (res.table["n_resamples"] == 8).all() and "repeats" not in res.table
    fields = parse_signature(res.signature)
    assert fields["n_resamples"] == "8"
    assert fields["method_detail"] == "holdout:n_test=4;effects:n_resamples=100"
    assert parse_signature(default.signature)["method_detail"] == (
        "holdout:n_test=4;effects:n_resamples=50")


def test_predictive_settings_object():
    eff = predictive_effects(15)
    s = PredictiveCheckSettings(k=(3, 6), n_test=4, n_resamples=6, seed=2, method="reml")
    by_settings = predictive_check(eff, settings=s)
    by_keywords = predictive_check(eff, k=[3, 6], n_test=4, n_resamples=6, seed=2,
                                   method="REML")
    assert by_settings.settings is s and by_keywords.settings == s
    pd.testing.assert_frame_equal(by_settings.errors, by_keywords.errors)
    assert by_settings.signature == by_keywords.signature
    assert by_settings.method == "REML" and by_settings.k == (3, 6)
    with pytest.raises(SettingsError, match=r"predictive_check: seed=1 given together with "
                                            r"settings="):
        predictive_check(eff, seed=1, settings=s)
    with pytest.raises(RenamedKeywordError, match=r"predictive_check\(\) has no keyword "
                                                  r"'repeats': it is called 'n_resamples' now"):
        predictive_check(eff, k=3, repeats=5)


def test_cross_dataset_settings_object():
    eff = predictive_effects(9)
    s = CrossDatasetSettings(method="reml", level=0.9, gumbel_weights="RE")
    res = cross_dataset_estimates(eff, settings=s)
    assert res.settings is s
    plain = cross_dataset_estimates(eff, method="REML", level=0.9, gumbel_weights="RE")
    assert plain.settings == s and plain.signature == res.signature
    pd.testing.assert_frame_equal(plain.table, res.table)
    default = cross_dataset_estimates(eff)
    assert default.settings == CrossDatasetSettings() and default.method == "DL"
    with pytest.raises(SettingsError, match=r"cross_dataset_estimates: level=0.8 given together"):
        cross_dataset_estimates(eff, level=0.8, settings=s)
    # every signature key the settings mark is in the result's signature
    for cls, result in ((CrossDatasetSettings, res),
                        (PredictiveCheckSettings, predictive_check(eff, k=3, n_test=3,
                                                                   n_resamples=4))):
        keys = {meta.signature for _, meta in settings_fields(cls).values()}
        assert keys <= set(parse_signature(result.signature)), cls


def test_predictive_equal_sizes_micro_ties_macro():
    eff = make_effects(np.random.default_rng(0).normal(0, 0.1, 15),
                       np.random.default_rng(1).uniform(0.001, 0.01, 15), np.full(15, 30))
    res = predictive_check(eff, k=(3, 7), n_test=4, n_resamples=10)
    micro = res.table[res.table["estimator"] == "micro"]
    assert (micro["pvalue"] == 1.0).all() and (micro["wins"] == 0.0).all()
    # effects nearly equal: errors far below the effects' size, where rounding is relatively large
    close = make_effects(0.03 + 1e-9 * np.random.default_rng(2).normal(size=15),
                         np.full(15, 0.001), np.full(15, 30))
    micro = predictive_check(close, k=(7, 11), n_test=4, n_resamples=20).table.query(
        "estimator == 'micro'")
    assert (micro["pvalue"] == 1.0).all() and (micro["wins"] == 0.0).all()


def test_predictive_summary_and_views():
    res = predictive_check(predictive_effects(), k=(3, 8), n_test=4, n_resamples=10, seed=0)
    assert isinstance(res, PredictiveCheck)
    s = res.summary()
    assert list(s.columns) == list(ESTIMATORS)
    assert list(s.index) == [(3, "mae"), (3, "sd"), (3, "pvalue"),
                             (8, "mae"), (8, "sd"), (8, "pvalue")]
    t = res.to_frame().set_index(["k", "estimator"])
    assert s.loc[(8, "mae"), "gumbel"] == t.loc[(8, "gumbel"), "mae"]
    assert math.isnan(s.loc[(3, "pvalue"), "macro"])
    np.testing.assert_allclose(t["se"], t["sd"] / math.sqrt(10))
    best = res.best()
    for k in (3, 8):
        assert t.loc[(k, best[k]), "mae"] == t.xs(k)["mae"].min()
    text = str(res)
    assert "Wilcoxon" in text and res.signature in text
    fields = parse_signature(res.signature)
    assert fields["k"] == "3,8" and fields["method"] == "DL" and fields["seed"] == "0"
    assert fields["method_detail"] == "holdout:n_test=4" and fields["n_resamples"] == "10"


def test_predictive_bad_arguments():
    eff = predictive_effects(12)
    with pytest.raises(AggregateError, match=r"k = 10 .* n_test = 5 .* need 15 datasets.* only 12"):
        predictive_check(eff, k=(3, 10), n_test=5)
    with pytest.raises(AggregateError, match="k: lists a value twice"):
        predictive_check(eff, k=(3, 3))
    with pytest.raises(AggregateError, match="k: must be a whole number ≥ 1; got 0"):
        predictive_check(eff, k=(0,))
    with pytest.raises(AggregateError, match="k: must list at least one"):
        predictive_check(eff, k=())
    with pytest.raises(AggregateError, match="n_resamples: must be a whole number from 2"):
        predictive_check(eff, k=3, n_resamples=1)
    with pytest.raises(AggregateError, match="effect"):
        predictive_check(eff, k=3, effect="ER")
    with pytest.raises(AggregateError, match="treatment= and control="):
        predictive_check(binary_scores(8), k=3)
    one = predictive_check(eff, k=3, n_resamples=3)
    assert one.k == (3,)


def test_predictive_is_fast():
    """100 datasets, k up to 50, 200 splits: the draws and estimators run in well under seconds."""
    import time

    eff = predictive_effects(100, seed=7)
    t0 = time.perf_counter()
    res = predictive_check(eff, k=(5, 10, 20, 30, 40, 50), n_test=5, n_resamples=200)
    elapsed = time.perf_counter() - t0
    assert len(res.errors) == 6 * 200 * len(ESTIMATORS)
    assert elapsed < 5.0, elapsed


# ============================================================================ figure


def assert_layout_clean(fig) -> None:
    renderer, boxes = assert_texts_clean(fig, 8)
    # the legend lies outside the data area
    (ax,) = fig.axes
    (legend,) = fig.legends
    lb, ab = legend.get_window_extent(renderer), ax.get_window_extent(renderer)
    assert lb.x0 >= ab.x1


@pytest.mark.parametrize("ks", [(5,), (3, 8), (2, 5, 10, 20, 40), tuple(range(30, 46))])
def test_plot_layout(ks, tmp_path):
    base = predictive_effects(50)
    eff = Effects(tuple(f"$d_{i}$" for i in range(50)), base.yi, base.vi, base.n)
    res = predictive_check(eff, k=ks, n_test=5, n_resamples=12)
    before = dict(mpl.rcParams)
    fig = res.plot()
    assert dict(mpl.rcParams) == before
    assert_layout_clean(fig)
    strings = [t.get_text() for t in texts(fig)]
    assert "mean absolute error" in strings
    assert any(s.startswith("ranger-eval:") for s in strings)
    assert "random effects (DL)" in strings and "Gumbel (Søgaard 2013)" in strings
    assert str(ks[0]) in strings and str(ks[-1]) in strings  # crowded middle labels may be left out
    (ax,) = fig.axes
    assert ax.get_xscale() == ("log" if max(ks) / min(ks) >= 8 else "linear")
    out = save_figure(fig, tmp_path / "predictive", formats=("png", "svg"))
    assert all(p.stat().st_size > 0 for p in out)


def test_plot_literal_names_and_selection():
    eff = predictive_effects(20)
    er_like = dataclasses.replace(predictive_check(eff, k=(3, 6), n_resamples=5),
                                  treatment="$new_model$", control="base_v2 (50%)")
    fig = predictive_plot(er_like, estimators=["macro", "gumbel"], title="Held-out $check$")
    strings = " ".join(t.get_text() for t in texts(fig))
    assert "$new_model$" in strings and "base_v2 (50%)" in strings and "Held-out $check$" in strings
    assert_layout_clean(fig)
    with pytest.raises(PlotError, match="not in the result"):
        predictive_plot(er_like, estimators=["median"])
    with pytest.raises(PlotError, match="PredictiveCheck"):
        predictive_plot(object())


# ============================================================================ case studies


def glue_scores(corpus: Path) -> Scores:
    glue = corpus / "ranger" / "glue"
    if not glue.is_dir():
        pytest.skip(f"GLUE case study not in the corpus ({glue})")

    def read(model: str, task: str) -> np.ndarray:
        return np.loadtxt(glue / model / f"{task}.txt", dtype=float, ndmin=1)

    return Scores.from_arrays(
        {t: {"bert": read("bert-base-cased", t), "distilbert": read("distilbert-base-cased", t)}
         for t in GLUE_TASKS},
        metric="accuracy",
    )


def test_glue_case_study(corpus):
    """DistilBERT (treatment) vs BERT (control) on 7 GLUE tasks: error reduction and estimators."""
    scores = glue_scores(corpus)
    er = error_reduction(scores, treatment="distilbert", control="bert")
    again = error_reduction(scores, treatment="distilbert", control="bert")
    np.testing.assert_array_equal(er.vi, again.vi)
    for name, e_c, e_t in zip(er.names, er.e_control, er.e_treatment, strict=True):
        p = scores.pair(name, "distilbert", "bert")
        assert e_c == pytest.approx(np.count_nonzero(p.control == 0) / p.n, rel=1e-12)
        assert e_t == pytest.approx(np.count_nonzero(p.treatment == 0) / p.n, rel=1e-12)
    # DistilBERT makes more errors than BERT on every task but WNLI (71 items)
    assert [name for name, y in zip(er.names, er.yi, strict=True) if y > 0] == ["wnli"]
    assert np.all(er.vi > 0)
    # the bootstrap variance shrinks with the number of items (~1/n): QQP's is the smallest
    assert er.names[int(np.argmin(er.vi))] == "qqp"
    res = cross_dataset_estimates(er)
    again_res = cross_dataset_estimates(again)
    pd.testing.assert_frame_equal(res.table, again_res.table)
    t = res.table.set_index("estimator")
    assert np.all(t["ci_low"] <= t["estimate"]) and np.all(t["estimate"] <= t["ci_high"])
    for e in ("macro", "micro", "fixed", "random"):
        assert er.yi.min() <= t.loc[e, "estimate"] <= er.yi.max()
        assert t.loc[e, "ci_high"] < 0  # DistilBERT is worse overall
    with pd.option_context("display.width", 200, "display.max_columns", 20):
        print(er)
        print(res)
        print(res.goodness_of_fit)


def tsc_scores(corpus: Path, control: str = "ROCKET", treatment: str = "HC2") -> Scores:
    path = corpus / "tsc_bakeoff" / "accuracy_long.csv.gz"
    if not path.is_file():
        pytest.skip(f"time-series bake-off not in the corpus ({path})")
    df = pd.read_csv(path)
    df = df[df["system"].isin([control, treatment])]
    by = df.groupby(["system", "dataset"])["accuracy"]
    # the error reduction needs a control error on every bootstrap resample (here: on every one of
    # the 30 resamples) and a bootstrap variance > 0 (the treatment not perfect on all 30)
    keep = (by.max()[control] < 1.0) & (by.min()[treatment] < 1.0)
    df = df[df["dataset"].isin(keep[keep].index)]
    return Scores(pd.DataFrame({"dataset": df["dataset"], "system": df["system"],
                                "metric": "accuracy", "item": df["resample"],
                                "value": df["accuracy"]}))


def test_tsc_bakeoff_predictive_check(corpus):
    """HC2 (treatment) vs ROCKET (control) on the UCR datasets, resamples as paired items."""
    scores = tsc_scores(corpus)
    # of 112: ROCKET is perfect on some resample of 22, HC2 on all resamples of 1
    assert len(scores.datasets) == 89
    # 20 splits (not more) keep the test about a second: every check below holds per draw
    res = predictive_check(scores, treatment="HC2", control="ROCKET", k=(5, 10, 20, 40),
                           n_test=5, n_resamples=20, seed=0)
    again = predictive_check(scores, treatment="HC2", control="ROCKET", k=(5, 10, 20, 40),
                             n_test=5, n_resamples=20, seed=0)
    pd.testing.assert_frame_equal(res.errors, again.errors)
    t = res.to_frame()
    assert len(t) == 4 * len(ESTIMATORS) and np.isfinite(t["mae"]).all()
    # every dataset has 30 resamples: micro = macro, tied in every draw
    micro = t[t["estimator"] == "micro"]
    assert (micro["pvalue"] == 1.0).all()
    # HC2 reduces ROCKET's error on average
    assert res.effects.yi.mean() > 0
    # random effects per draw equal meta_analysis(method="DL")
    for k in (5, 40):
        row = res.draws[k][0, :k]
        ref = meta_analysis(res.effects.yi[row], res.effects.vi[row], method="DL").estimate
        got = res.errors.query(f"k == {k} and repeat == 0 and estimator == 'random'")
        assert float(got["estimate"].iloc[0]) == pytest.approx(ref, rel=1e-12)
    with pd.option_context("display.width", 200, "display.max_columns", 20):
        print(res)
        print(res.summary())
        print(res.to_frame())
        print("best by k:", res.best().to_dict())
        print(cross_dataset_estimates(res.effects))
    fig = res.plot()
    assert_layout_clean(fig)
