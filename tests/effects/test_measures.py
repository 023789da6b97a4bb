"""Tests for ranger_eval.effects against metafor's escalc (tests/oracles/metafor_escalc.R)."""
from __future__ import annotations

import dataclasses
import json
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from scipy.stats import norm

from ranger_eval.effects import (
    MEASURES,
    EffectSize,
    EffectSizeError,
    EffectSizes,
    effect_size,
    effect_sizes,
)
from ranger_eval.scores import Scores

ORACLES = Path(__file__).resolve().parent.parent / "oracles"

RTOL = 1e-9
ORACLE = json.loads((ORACLES / "metafor_escalc.json").read_text())
CASES = [(d["name"], m) for d in ORACLE["datasets"] for m in MEASURES if m in d]
BY_NAME = {d["name"]: d for d in ORACLE["datasets"]}


def _oracle_scores() -> Scores:
    return Scores.from_arrays(
        {d["name"]: {"B": d["treatment"], "A": d["control"]} for d in ORACLE["datasets"]},
        metric="accuracy",
    )


# --------------------------------------------------------------------------- oracle agreement
def test_oracle_covers_every_measure():
    assert {m for _, m in CASES} == set(MEASURES)
    assert len(ORACLE["datasets"]) >= 8


@pytest.mark.parametrize(("name", "measure"), CASES)
def test_matches_metafor_escalc(name, measure):
    d = BY_NAME[name]
    es = effect_size(d["treatment"], d["control"], measure=measure, dataset=name)
    assert es.n == d["n"]
    assert es.measure == measure and es.dataset == name
    np.testing.assert_allclose(es.yi, d[measure]["yi"], rtol=RTOL)
    np.testing.assert_allclose(es.vi, d[measure]["vi"], rtol=RTOL)
    np.testing.assert_allclose(es.mean_treatment, d["mean_treatment"], rtol=RTOL)
    np.testing.assert_allclose(es.mean_control, d["mean_control"], rtol=RTOL)


@pytest.mark.parametrize("name", list(BY_NAME))
def test_smcr_mapping_matches_conventional_escalc_reading(name):
    # escalc SMCR with m1i = mean(control), m2i = mean(treatment), sd1i = sd(control) gives -yi, same vi
    d = BY_NAME[name]
    es = effect_size(d["treatment"], d["control"], measure="SMCR")
    np.testing.assert_allclose(-es.yi, d["SMCR_swapped"]["yi"], rtol=RTOL)
    np.testing.assert_allclose(es.vi, d["SMCR_swapped"]["vi"], rtol=RTOL)


@pytest.mark.parametrize("name", [n for n, m in CASES if m == "ZCOR"])
def test_zcor_back_transform_is_r_cor(name):
    d = BY_NAME[name]
    es = effect_size(d["treatment"], d["control"], measure="ZCOR")
    np.testing.assert_allclose(es.r, d["r"], rtol=RTOL)
    assert es.r_ci_low < es.r < es.r_ci_high
    np.testing.assert_allclose(es.r_ci_low, np.tanh(es.ci_low), rtol=1e-12)
    with pytest.raises(EffectSizeError, match="only for measure 'ZCOR'"):
        _ = effect_size(d["treatment"], d["control"], measure="MD").r


@pytest.mark.parametrize("level", [0.9, 0.95, 0.99])
def test_ci_is_scipy_normal_interval(level):
    d = BY_NAME["continuous"]
    es = effect_size(d["treatment"], d["control"], measure="SMD", level=level)
    low, high = norm.interval(level, loc=d["SMD"]["yi"], scale=np.sqrt(d["SMD"]["vi"]))
    np.testing.assert_allclose([es.ci_low, es.ci_high], [low, high], rtol=RTOL)
    np.testing.assert_allclose(es.se, np.sqrt(d["SMD"]["vi"]), rtol=RTOL)


# --------------------------------------------------------------------------- properties
@st.composite
def paired(draw):
    n = draw(st.integers(5, 40))
    seed = draw(st.integers(0, 2**32 - 1))
    kind = draw(st.sampled_from(["continuous", "binary"]))
    rho = draw(st.floats(-0.9, 0.9))
    rng = np.random.default_rng(seed)
    if kind == "binary":
        c = rng.integers(0, 2, n).astype(float)
        t = np.where(rng.random(n) < 0.3, 1 - c, c)
    else:
        c = rng.normal(size=n)
        t = 0.3 + rho * c + np.sqrt(1 - rho**2) * rng.normal(size=n)
    assume(np.ptp(t) > 0 and np.ptp(c) > 0 and not np.array_equal(t, c))
    assume(abs(np.corrcoef(t, c)[0, 1]) < 0.999)
    assume(np.std(t - c) > 1e-6)
    perm = rng.permutation(n)
    return t, c, perm


@settings(max_examples=50, deadline=None)
@given(data=paired(), measure=st.sampled_from(MEASURES))
def test_item_order_invariance(data, measure):
    t, c, perm = data
    a = effect_size(t, c, measure=measure)
    b = effect_size(t[perm], c[perm], measure=measure)
    np.testing.assert_allclose([b.yi, b.vi], [a.yi, a.vi], rtol=1e-9, atol=1e-13)


@settings(max_examples=50, deadline=None)
@given(data=paired(), measure=st.sampled_from(["MD", "SMD", "SMCC"]))
def test_swapping_systems_negates_effect(data, measure):
    t, c, _ = data
    a = effect_size(t, c, measure=measure)
    b = effect_size(c, t, measure=measure)
    np.testing.assert_allclose(b.yi, -a.yi, rtol=1e-9, atol=1e-13)
    np.testing.assert_allclose(b.vi, a.vi, rtol=1e-9)
    np.testing.assert_allclose(b.ci_low, -a.ci_high, rtol=1e-9, atol=1e-13)


@settings(max_examples=30, deadline=None)
@given(data=paired())
def test_zcor_symmetric_in_systems(data):
    t, c, _ = data
    a, b = effect_size(t, c, measure="ZCOR"), effect_size(c, t, measure="ZCOR")
    np.testing.assert_allclose([b.yi, b.vi], [a.yi, a.vi], rtol=1e-12, atol=1e-15)


# --------------------------------------------------------------------------- degenerate input
X = np.array([0.2, 0.5, 0.1, 0.9, 0.4, 0.7])
ONES = np.ones(6)


def test_identical_systems_are_a_defined_zero_effect():
    n = X.size
    expected = {"MD": 0.0, "SMD": 0.0, "SMCC": 1.0 / n, "SMCR": 0.0}
    for measure, vi in expected.items():
        es = effect_size(X, X.copy(), measure=measure)
        assert (es.yi, es.vi) == (0.0, vi), measure
        assert es.ci_low <= 0.0 <= es.ci_high
    with pytest.raises(EffectSizeError, match=r"perfectly correlated .*Fisher's z = atanh\(r\) is infinite"):
        effect_size(X, X.copy(), measure="ZCOR", dataset="wnli")


def test_identical_constant_systems():
    # e.g. two classifiers both right on every item: no difference, but r is undefined
    for measure in ("MD", "SMD", "SMCR"):
        es = effect_size(ONES, ONES, measure=measure)
        assert (es.yi, es.vi) == (0.0, 0.0)
    assert effect_size(ONES, ONES, measure="SMCC").vi == 1.0 / ONES.size
    with pytest.raises(EffectSizeError, match="dataset 'sst2'.*constant.*identical systems"):
        effect_size(ONES, ONES, measure="ZCOR", dataset="sst2")


def test_constant_shift():
    c = np.array([0.25, 0.5, 0.0, 1.0, 0.75])
    t = c + 0.5  # exactly representable: the differences are exactly 0.5
    md = effect_size(t, c, measure="MD")
    assert (md.yi, md.vi) == (0.5, 0.0)
    for measure in ("SMD", "SMCC"):
        with pytest.raises(EffectSizeError, match=rf"dataset 'rte', measure {measure}: .*same on every item"):
            effect_size(t, c, measure=measure, dataset="rte")
    smcr = effect_size(t, c, measure="SMCR")  # defined: r = 1, vi = yi^2 / (2n)
    assert smcr.yi > 0
    np.testing.assert_allclose(smcr.vi, smcr.yi**2 / (2 * c.size), rtol=1e-12)


def test_constant_shift_with_rounding_noise_is_detected():
    c = np.random.default_rng(1).normal(size=50)
    t = c + 0.1  # t - c is 0.1 only up to rounding
    assert np.ptp(t - c) > 0
    with pytest.raises(EffectSizeError, match="same on every item"):
        effect_size(t, c, measure="SMD")
    with pytest.raises(EffectSizeError, match="same on every item"):
        effect_size(t, c, measure="SMCC")


@pytest.mark.parametrize("measure", ["SMD", "SMCC", "SMCR", "ZCOR"])
def test_one_constant_system_is_an_error(measure):
    with pytest.raises(EffectSizeError, match=rf"dataset 'mrpc', measure {measure}: the control scores are constant"):
        effect_size(X, ONES, measure=measure, dataset="mrpc")
    with pytest.raises(EffectSizeError, match="the treatment scores are constant"):
        effect_size(ONES, X, measure=measure)


def test_one_constant_system_md_is_defined():
    es = effect_size(X, ONES, measure="MD")
    np.testing.assert_allclose([es.yi, es.vi], [X.mean() - 1, X.var(ddof=1) / X.size], rtol=1e-12)


def test_perfect_correlation():
    with pytest.raises(EffectSizeError, match=r"perfectly correlated.*S_within"):
        effect_size(2 * X, X, measure="SMD")
    for t in (2 * X, 1 - X):
        with pytest.raises(EffectSizeError, match="perfectly correlated"):
            effect_size(t, X, measure="ZCOR")
    es = effect_size(1 - X, X, measure="SMD")  # r = -1 is fine for SMD: S_within = S_diff / 2
    assert np.isfinite(es.yi) and es.vi > 0


@pytest.mark.parametrize(("measure", "minimum"), [("MD", 2), ("SMD", 3), ("SMCC", 3), ("SMCR", 3), ("ZCOR", 4)])
def test_too_few_items(measure, minimum):
    t, c = X[: minimum - 1], X[::-1][: minimum - 1]
    with pytest.raises(EffectSizeError, match=rf"needs at least {minimum} paired items, got {minimum - 1}"):
        effect_size(t, c, measure=measure)
    es = effect_size(np.array([0.3, 0.9, 0.2, 0.5])[:minimum], np.array([0.1, 0.4, 0.6, 0.3])[:minimum], measure=measure)
    assert np.isfinite(es.yi) and np.isfinite(es.vi)


def test_bad_arrays():
    with pytest.raises(EffectSizeError, match="dataset 'qqp', measure SMD: treatment has 3 scores but control has 4"):
        effect_size([1, 2, 3], [1, 2, 3, 4], dataset="qqp")
    with pytest.raises(EffectSizeError, match="control score at position 2 is nan"):
        effect_size([1, 2, 3, 4], [1, 2, np.nan, 4])
    with pytest.raises(EffectSizeError, match=r"treatment score at position 0 is inf; .*\(2 non-finite"):
        effect_size([np.inf, 2, -np.inf, 4], [1, 2, 3, 4])
    with pytest.raises(EffectSizeError, match=r"must be 1-D, got shape \(2, 2\)"):
        effect_size([[1, 2], [3, 4]], [[1, 2], [3, 4]])
    with pytest.raises(EffectSizeError, match="not numeric"):
        effect_size(["a", "b", "c"], [1, 2, 3])


def test_unknown_measure_and_level():
    with pytest.raises(EffectSizeError, match="unknown measure 'SMDH' for dataset 'x'; valid measures: MD, SMD, SMCC, SMCR, ZCOR"):
        effect_size(X, X[::-1], measure="SMDH", dataset="x")
    with pytest.raises(EffectSizeError, match="level: must be strictly between 0 and 1"):
        effect_size(X, X[::-1], measure="MD", level=95)
    with pytest.raises(EffectSizeError, match="level"):
        EffectSize(0.1, 0.01, 10, "MD", 0.5, 0.4, level=0.0)


# ------------------------------------------------------------- pandas Series paired by index
def _series_pair():
    ids = [f"q{i}" for i in range(1, 9)]
    a = pd.Series([0.9, 0.2, 0.5, 0.7, 0.35, 0.8, 0.1, 0.6], index=ids)
    b = pd.Series([0.4, 0.6, 0.1, 0.3, 0.5, 0.45, 0.2, 0.9], index=ids)
    return a, b


@pytest.mark.parametrize("measure", MEASURES)
def test_series_are_paired_by_index_not_position(measure):
    a, b = _series_pair()
    shuffled = b.iloc[[3, 0, 7, 5, 1, 2, 6, 4]]
    ref = effect_size(a.to_numpy(), b.to_numpy(), measure=measure)
    got = effect_size(a, shuffled, measure=measure)
    assert (got.yi, got.vi, got.n) == (ref.yi, ref.vi, ref.n)
    assert (got.mean_treatment, got.mean_control) == (ref.mean_treatment, ref.mean_control)
    wrong = effect_size(a.to_numpy(), shuffled.to_numpy(), measure=measure)  # pairing by position
    assert (wrong.yi, wrong.vi) != pytest.approx((ref.yi, ref.vi))


def test_series_with_different_ids_name_the_missing_ones():
    a = pd.Series(np.linspace(0, 1, 12), index=[f"q{i}" for i in range(1, 13)])
    b = pd.Series(np.linspace(1, 0, 12), index=[f"q{i}" for i in range(3, 15)])
    with pytest.raises(EffectSizeError, match=r"dataset 'nq', measure SMD: .*different item ids.*"
                       r"2 id\(s\) of treatment missing from control: 'q1', 'q2'; "
                       r"2 id\(s\) of control missing from treatment: 'q13', 'q14'"):
        effect_size(a, b, dataset="nq")
    c = pd.Series(np.linspace(1, 0, 30), index=[f"d{i}" for i in range(30)])
    with pytest.raises(EffectSizeError, match=r"12 id\(s\) of treatment missing from control: "
                       r"'q1', 'q2', .*'q10', \.\.\. \(12 in all\); 30 id\(s\) of control"):
        effect_size(a, c)


def test_series_with_duplicate_ids_raise():
    a = pd.Series([0.1, 0.5, 0.3, 0.8], index=["q1", "q2", "q2", "q3"])
    b = pd.Series([0.2, 0.4, 0.9, 0.6], index=["q1", "q2", "q3", "q4"])
    with pytest.raises(EffectSizeError, match=r"treatment has duplicate item ids in its index: 'q2'"):
        effect_size(a, b)


def test_arrays_lists_and_default_indexes_stay_positional():
    a, b = _series_pair()
    ref = effect_size(a.to_numpy(), b.to_numpy(), measure="SMD")
    for t, c in ((list(a), list(b)), (a.reset_index(drop=True), b.reset_index(drop=True)),
                 (a, b.to_numpy()), (a.to_numpy(), b)):
        got = effect_size(t, c, measure="SMD")
        assert (got.yi, got.vi) == (ref.yi, ref.vi)
    with pytest.raises(EffectSizeError, match="treatment has 8 scores but control has 7"):
        effect_size(a.reset_index(drop=True), b.reset_index(drop=True).iloc[:7])


def test_no_runtime_warnings_on_degenerate_input():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for measure in MEASURES:
            for t, c in ((X, X), (ONES, ONES), (X, ONES), (2 * X, X), (X + 0.5, X)):
                try:
                    es = effect_size(t, c, measure=measure)
                except EffectSizeError:
                    continue
                assert np.isfinite(es.yi) and np.isfinite(es.vi)


# --------------------------------------------------------------------------- effect_sizes
def test_effect_sizes_over_scores_match_oracle():
    eff = effect_sizes(_oracle_scores(), treatment="B", control="A", measure="MD")
    assert eff.names == tuple(BY_NAME) and eff.k == len(eff) == len(BY_NAME)
    assert (eff.treatment, eff.control, eff.metric, eff.measure) == ("B", "A", "accuracy", "MD")
    assert eff.dropped == {}
    np.testing.assert_allclose(eff.yi, [d["MD"]["yi"] for d in BY_NAME.values()], rtol=RTOL)
    np.testing.assert_allclose(eff.vi, [d["MD"]["vi"] for d in BY_NAME.values()], rtol=RTOL)
    np.testing.assert_array_equal(eff.n, [d["n"] for d in BY_NAME.values()])
    np.testing.assert_allclose(eff.mean_treatment, [d["mean_treatment"] for d in BY_NAME.values()], rtol=RTOL)
    np.testing.assert_allclose(eff.mean_control, [d["mean_control"] for d in BY_NAME.values()], rtol=RTOL)


def test_effect_sizes_select_order_and_pair_by_id():
    names = ["ndcg_like", "negative", "binary_glue"]
    frame = _oracle_scores().frame.sample(frac=1.0, random_state=3)  # rows shuffled
    eff = effect_sizes(Scores(frame), treatment="B", control="A", measure="SMCC", datasets=names, level=0.9)
    assert eff.names == tuple(names) and eff.level == 0.9
    np.testing.assert_allclose(eff.yi, [BY_NAME[x]["SMCC"]["yi"] for x in names], rtol=RTOL)
    np.testing.assert_allclose(eff.vi, [BY_NAME[x]["SMCC"]["vi"] for x in names], rtol=RTOL)
    z = norm.isf(0.05)
    np.testing.assert_allclose(eff.ci_low, eff.yi - z * np.sqrt(eff.vi), rtol=1e-12)
    np.testing.assert_allclose(eff.ci_high, eff.yi + z * np.sqrt(eff.vi), rtol=1e-12)
    # a plain DataFrame is accepted too
    again = effect_sizes(frame, treatment="B", control="A", measure="SMCC", datasets=names, level=0.9)
    np.testing.assert_array_equal(again.yi, eff.yi)


def test_effect_sizes_errors():
    scores = _oracle_scores()
    with pytest.raises(EffectSizeError, match=r"unknown dataset\(s\) \['cola'\]"):
        effect_sizes(scores, treatment="B", control="A", datasets=["cola"])
    with pytest.raises(EffectSizeError, match="twice"):
        effect_sizes(scores, treatment="B", control="A", datasets=["negative", "negative"])
    with pytest.raises(EffectSizeError, match=r"treatment: must differ from control \(both 'A'\)"):
        effect_sizes(scores, treatment="A", control="A")
    with pytest.raises(EffectSizeError, match=r"measure: unknown effect measure .OR.; use one of MD, SMD"):
        effect_sizes(scores, treatment="B", control="A", measure="OR")
    with pytest.raises(EffectSizeError, match=r"1 of \d+ dataset\(s\) have no defined ZCOR "
                       r"effect: 'tiny_n3' \(needs at least 4 paired items, got 3\)"):
        effect_sizes(scores, treatment="B", control="A", measure="ZCOR")


def test_effect_sizes_missing_items():
    rows = [("d1", "A", str(i), float(v)) for i, v in enumerate([0.1, 0.5, 0.3, 0.9, 0.4])]
    rows += [("d1", "B", str(i), float(v)) for i, v in enumerate([0.2, 0.7, 0.3, 1.0])]  # item 4 missing
    rows += [("d2", "A", str(i), float(v)) for i, v in enumerate([0.3, 0.2, 0.8])]
    rows += [("d2", "B", str(i), float(v)) for i, v in enumerate([0.6, 0.1, 0.9])]
    scores = Scores(pd.DataFrame(rows, columns=["dataset", "system", "item", "value"]))
    with pytest.raises(ValueError, match="differ on dataset 'd1'"):
        effect_sizes(scores, treatment="B", control="A", measure="MD")
    with pytest.warns(UserWarning, match="dropped 1 item"):
        eff = effect_sizes(scores, treatment="B", control="A", measure="MD", missing="intersect")
    assert eff.dropped == {"d1": 1}
    np.testing.assert_array_equal(eff.n, [4, 3])
    np.testing.assert_allclose(eff.yi[0], np.mean([0.1, 0.2, 0.0, 0.1]), rtol=1e-12)


def test_effect_sizes_per_dataset_metrics():
    df = pd.DataFrame(
        {
            "dataset": ["ir"] * 8 + ["glue"] * 8,
            "metric": ["nDCG@10"] * 8 + ["accuracy"] * 8,
            "system": (["A"] * 4 + ["B"] * 4) * 2,
            "item": [str(i) for i in range(4)] * 4,
            "value": [0.1, 0.5, 0.3, 0.2, 0.3, 0.6, 0.2, 0.5, 1, 0, 1, 1, 1, 1, 1, 0],
        }
    )
    eff = effect_sizes(df, treatment="B", control="A", measure="MD")
    assert eff.metrics == ("nDCG@10", "accuracy") and eff.metric is None


# --------------------------------------------------------------------------- EffectSizes
def test_to_frame_content():
    eff = effect_sizes(_oracle_scores(), treatment="B", control="A", measure="SMD", datasets=["continuous", "tiny_n4"])
    frame = eff.to_frame()
    assert list(frame.columns) == [
        "dataset", "yi", "vi", "se", "ci_low", "ci_high", "n", "mean_control", "mean_treatment",
    ]
    assert frame["dataset"].tolist() == ["continuous", "tiny_n4"]
    for row, name in zip(frame.itertuples(index=False), ["continuous", "tiny_n4"], strict=True):
        d = BY_NAME[name]
        np.testing.assert_allclose([row.yi, row.vi], [d["SMD"]["yi"], d["SMD"]["vi"]], rtol=RTOL)
        low, high = norm.interval(0.95, loc=d["SMD"]["yi"], scale=np.sqrt(d["SMD"]["vi"]))
        np.testing.assert_allclose([row.se, row.ci_low, row.ci_high], [np.sqrt(d["SMD"]["vi"]), low, high], rtol=RTOL)
        assert row.n == d["n"]
        np.testing.assert_allclose([row.mean_control, row.mean_treatment], [d["mean_control"], d["mean_treatment"]], rtol=RTOL)


def test_with_extra():
    eff = EffectSizes.from_arrays(["a", "b", "c"], [0.1, -0.2, 0.3], [0.01, 0.02, 0.03], n=[10, 20, 30])
    labelled = eff.with_extra(pd.DataFrame({"dataset": ["c", "a"], "label": ["C!", "A!"], "J@10": [0.5, 0.7]}))
    assert eff.extra is None  # the original is unchanged
    frame = labelled.to_frame()
    assert list(frame.columns)[-2:] == ["label", "J@10"]
    assert frame["label"].tolist()[0] == "A!" and frame["label"].tolist()[2] == "C!"
    assert pd.isna(frame["label"].iloc[1]) and pd.isna(frame["J@10"].iloc[1])
    relabelled = labelled.with_extra(pd.Series({"b": "B!"}, name="label"))
    assert relabelled.to_frame()["label"].isna().tolist() == [True, False, True]
    assert relabelled.to_frame()["label"].iloc[1] == "B!"
    assert relabelled.to_frame()["J@10"].tolist()[0] == 0.7
    with pytest.raises(EffectSizeError, match=r"unknown dataset\(s\) \['z'\]"):
        eff.with_extra(pd.DataFrame({"label": ["Z"]}, index=["z"]))
    with pytest.raises(EffectSizeError, match=r"core column name\(s\) \['yi'\]"):
        eff.with_extra(pd.DataFrame({"yi": [1.0]}, index=["a"]))
    with pytest.raises(EffectSizeError, match="duplicate dataset"):
        eff.with_extra(pd.DataFrame({"label": ["x", "y"]}, index=["a", "a"]))


def test_from_arrays_and_validation():
    eff = EffectSizes.from_arrays(["a", "b"], [0.1, 0.2], [0.01, 0.04])
    assert eff.measure == "GEN" and eff.k == 2 and np.isnan(eff.n).all()
    np.testing.assert_allclose(eff.se, [0.1, 0.2])
    assert eff.to_frame()["n"].isna().all()
    numbered = EffectSizes.from_arrays(None, [0.1, 0.2, 0.3], [0.01, 0.04, 0.09], n=[5, 6, 7], measure="MD")
    assert numbered.names == ("1", "2", "3") and numbered.n.dtype.kind == "i"
    with pytest.raises(ValueError):
        numbered.yi[0] = 5.0  # read-only arrays
    with pytest.raises(EffectSizeError, match="duplicate dataset names: 'a'"):
        EffectSizes.from_arrays(["a", "a"], [0.1, 0.2], [0.01, 0.04])
    with pytest.raises(EffectSizeError, match="vi must be a 1-D array of length 3"):
        EffectSizes.from_arrays(["a", "b", "c"], [0.1, 0.2, 0.3], [0.01, 0.04])
    with pytest.raises(EffectSizeError, match="vi of 'b' is -0.04"):
        EffectSizes.from_arrays(["a", "b"], [0.1, 0.2], [0.01, -0.04])
    with pytest.raises(EffectSizeError, match="yi of 'a' is nan"):
        EffectSizes.from_arrays(["a", "b"], [np.nan, 0.2], [0.01, 0.04])


def test_rename_carries_extra_and_dropped():
    import pandas as pd

    from ranger_eval.effects import EffectSizeError, EffectSizes

    eff = EffectSizes.from_arrays(["a", "b"], [0.1, 0.2], [0.01, 0.02], measure="MD")
    eff = eff.with_extra(pd.DataFrame({"col": ["x", "y"]}, index=["a", "b"]))
    eff = dataclasses.replace(eff, dropped={"b": 3})
    out = eff.rename({"a": "Alpha"})
    assert out.names == ("Alpha", "b")
    assert list(out.extra.index) == ["Alpha", "b"] and out.extra.loc["Alpha", "col"] == "x"
    assert out.dropped == {"b": 3}
    with pytest.raises(EffectSizeError, match="collide"):
        eff.rename({"a": "b"})
