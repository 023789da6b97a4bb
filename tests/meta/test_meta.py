"""ranger_eval.meta against metafor (tests/oracles/metafor_meta.json) plus properties and bad input."""
from __future__ import annotations

import functools
import json
import math
import warnings
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ranger_eval.effects import EffectSizes
from ranger_eval.meta import (
    METHODS,
    MetaInputError,
    MetaResult,
    meta_analysis,
)

FIXTURE = Path(__file__).parents[1] / "oracles" / "metafor_meta.json"
ORACLE = json.loads(FIXTURE.read_text())
DATASETS = {ds["name"]: ds for ds in ORACLE["datasets"]}

RTOL = 1e-9  # metafor fixtures carry 17 significant digits
ATOL = 1e-12
SCALARS = ("estimate", "se", "ci_low", "ci_high", "statistic", "pvalue", "tau2", "tau", "I2", "H2",
           "Q", "Q_pvalue", "pi_low", "pi_high")
L1O = ("estimate", "se", "ci_low", "ci_high", "pvalue", "Q", "Q_pvalue", "tau2", "I2", "H2")


def _arr(x) -> np.ndarray:
    return np.atleast_1d(np.asarray(x, dtype=float))


def _names(ds, key: str = "slab") -> list[str]:
    slab = ds[key]
    return [slab] if isinstance(slab, str) else list(slab)


@functools.cache
def _fit(name: str, method: str, test: str, level: float) -> MetaResult:
    ds = DATASETS[name]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # k = 1 with test != "z"
        return meta_analysis(_arr(ds["yi"]), _arr(ds["vi"]), method=method, test=test, level=level,
                             names=_names(ds))


def _cases(pred=lambda ds, f: True):
    out = []
    for ds in ORACLE["datasets"]:
        for f in ds["fits"]:
            if pred(ds, f):
                cid = f"{ds['name']}-{f['method']}-{f['test']}-{f['level']}"
                out.append(pytest.param(ds["name"], f, id=cid))
    return out


def _assert_close(actual, expected, what: str, atol: float = ATOL) -> None:
    a = np.atleast_1d(np.asarray(actual, dtype=float))
    e = np.atleast_1d(np.asarray(expected, dtype=float))
    assert a.shape == e.shape, f"{what}: shape {a.shape} vs metafor {e.shape}"
    ok = np.abs(a - e) <= RTOL * np.abs(e) + atol
    assert ok.all(), f"{what}: ours {a[~ok]} vs metafor {e[~ok]}"


def test_fixture_provenance():
    assert ORACLE["metafor_version"].startswith(("3.", "4."))
    assert ORACLE["R_version"].startswith("R version")
    assert ORACLE["n_fits"] == sum(len(ds["fits"]) for ds in ORACLE["datasets"]) >= 150
    assert len(ORACLE["datasets"]) >= 6


@pytest.mark.parametrize(("name", "fit"), _cases())
def test_fit_matches_metafor(name, fit):
    res = _fit(name, fit["method"], fit["test"], fit["level"])
    assert res.test == fit["test_used"]
    assert res.Q_df == fit["Q_df"]
    assert res.k == len(_arr(DATASETS[name]["yi"]))
    for key in SCALARS:
        # tau = sqrt(tau2): metafor's boundary step-halving can leave tau2 ~ 1e-16, so tau's
        # absolute floor is sqrt of tau2's.
        _assert_close(getattr(res, key), fit[key], key, atol=1e-6 if key == "tau" else ATOL)
    _assert_close(res.weights, _arr(fit["weights"]), "weights")


@pytest.mark.parametrize(("name", "fit"), _cases())
def test_qprofile_cis_match_metafor(name, fit):
    res = _fit(name, fit["method"], fit["test"], fit["level"])
    if fit["tau2_ci"] is None:  # metafor's confint() stops for k = 1: documented (0, 0)
        assert res.k == 1
        assert res.tau2_ci == (0.0, 0.0) and res.I2_ci == (0.0, 0.0)
        return
    _assert_close(res.tau2_ci, fit["tau2_ci"], "tau2_ci")
    _assert_close(res.I2_ci, fit["I2_ci"], "I2_ci")


@pytest.mark.parametrize(("name", "fit"), _cases(lambda ds, f: "l1o" in f))
def test_leave_one_out_matches_metafor(name, fit):
    res = _fit(name, fit["method"], fit["test"], fit["level"])
    df = res.leave_one_out()
    assert list(df["name"]) == _names(DATASETS[name], "slab_rma")
    for key in L1O:
        _assert_close(df[key].to_numpy(), _arr(fit["l1o"][key]), f"leave1out {key}")


@pytest.mark.parametrize(("name", "fit"), _cases(lambda ds, f: "transformed" in f))
def test_zcor_back_transform_matches_predict_transf(name, fit):
    ds = DATASETS[name]
    es = EffectSizes(names=tuple(_names(ds, "slab_rma")), yi=_arr(ds["yi"]), vi=_arr(ds["vi"]),
                     n=np.round(1 / _arr(ds["vi"]) + 3).astype(int), measure="ZCOR",
                     mean_treatment=np.zeros(len(ds["yi"])), mean_control=np.zeros(len(ds["yi"])))
    res = meta_analysis(es, method=fit["method"], test=fit["test"], level=fit["level"])
    assert res.effects is es and res.measure == "ZCOR"
    assert list(res.names) == _names(ds, "slab_rma")
    tr = res.transformed()
    assert tr.transform == "tanh"
    for key in ("estimate", "ci_low", "ci_high", "pi_low", "pi_high"):
        _assert_close(getattr(tr, key), fit["transformed"][key], f"transformed {key}")
    # pooling stays on the z scale
    _assert_close(res.estimate, fit["estimate"], "estimate")
    assert "tanh" in res.summary() and f"{tr.estimate:.4f}" in res.summary()
    frame = res.to_frame()
    np.testing.assert_allclose(frame["r"].to_numpy(), np.tanh(frame["yi"].to_numpy()))


@pytest.mark.parametrize("name", sorted(DATASETS))
def test_to_frame_study_rows_match_escalc_summary(name):
    ds = DATASETS[name]
    res = _fit(name, "REML", "z", 0.95)
    frame = res.to_frame()
    assert len(frame) == res.k + 1
    studies = frame[frame["kind"] == "study"]
    assert list(studies["name"]) == _names(ds, "slab_rma")
    _assert_close(studies["ci_low"].to_numpy(), _arr(ds["study_ci_low"]), "study ci_low")
    _assert_close(studies["ci_high"].to_numpy(), _arr(ds["study_ci_high"]), "study ci_high")
    np.testing.assert_allclose(studies["weight"].to_numpy(), res.weights)
    summary = frame.iloc[-1]
    assert summary["kind"] == "summary"
    assert summary["yi"] == res.estimate and summary["ci_low"] == res.ci_low
    assert summary["weight"] == pytest.approx(1.0)


# ------------------------------------------------------------------------------ degenerate cases
def test_k1_is_the_study_itself():
    with pytest.warns(UserWarning, match="k = 1"):
        res = meta_analysis([0.3], [0.04], method="REML", test="knha")
    assert res.test == "z" and res.k == 1
    assert res.estimate == 0.3 and res.se == pytest.approx(0.2)
    assert (res.tau2, res.Q, res.Q_df, res.Q_pvalue, res.I2, res.H2) == (0.0, 0.0, 0, 1.0, 0.0, 1.0)
    np.testing.assert_array_equal(res.weights, [1.0])
    assert (res.pi_low, res.pi_high) == (res.ci_low, res.ci_high)
    with pytest.raises(MetaInputError, match="at least 2"):
        res.leave_one_out()


def test_fe_prediction_interval_equals_ci_and_ee_alias():
    ds = DATASETS["bcg_logRR"]
    fe = _fit("bcg_logRR", "FE", "z", 0.95)
    ee = meta_analysis(_arr(ds["yi"]), _arr(ds["vi"]), method="ee")
    assert (fe.pi_low, fe.pi_high) == (fe.ci_low, fe.ci_high)
    assert ee.method == "EE" and ee.estimate == fe.estimate and ee.I2 == fe.I2
    assert "Equal-Effects Model" in ee.summary() and "Fixed-Effects Model" in fe.summary()


def test_knha_with_identical_effects_is_defined():
    res = meta_analysis([0.2, 0.2, 0.2], [0.01, 0.02, 0.03], method="DL", test="knha")
    assert res.se == 0.0 and res.statistic == math.inf and res.pvalue == 0.0
    assert res.I2 == 0.0 and res.Q == 0.0
    zero = meta_analysis([0.0, 0.0], [0.01, 0.02], method="FE", test="knha")
    assert zero.statistic == 0.0 and zero.pvalue == 1.0 and zero.I2 == 0.0
    d = json.loads(res.to_json())
    assert d["statistic"] is None and d["estimate"] == pytest.approx(0.2)


def test_to_dict_is_plain_and_json_round_trips():
    res = _fit("k20", "REML", "knha", 0.95)
    d = res.to_dict()
    assert json.loads(res.to_json()) == d
    assert isinstance(d["weights"], list) and isinstance(d["weights"][0], float)
    assert isinstance(d["Q_df"], int) and d["names"][0] == "S1"
    assert d["tau2_ci"] == list(res.tau2_ci) and d["method"] == "REML" and d["test"] == "knha"


def test_summary_text_has_metafor_sections():
    res = _fit("bcg_logRR", "REML", "z", 0.95)
    text = str(res)
    for needle in ("Random-Effects Model (k = 13; tau^2 estimator: REML)", "tau^2", "I^2", "H^2",
                   "Test for Heterogeneity:", "Q(df = 12) = 152.2330", "Model Results:", "zval",
                   "-0.7145", "prediction interval"):
        assert needle in text, needle
    assert "tval" in _fit("bcg_logRR", "REML", "knha", 0.95).summary()


def test_repeated_names_are_numbered_like_metafor_slab():
    res = meta_analysis([0.1, 0.2, 0.3], [0.1] * 3, names=["a", "b", "a"])
    assert res.names == ("a.1", "b", "a.2")


def test_fisher_scoring_that_oscillates_still_converges():
    # metafor 3.8: rma(y, v, method="REML") -> "Fisher scoring algorithm did not converge.";
    # with control=list(stepadj=0.5) it converges to tau2 = 0.0559267954021977
    # (tests/oracles/metafor_modreg.json, case "reml_oscillates"; more cases in
    # tests/meta/test_meta_regression.py)
    y = [0, 0, 0, 0, 0, 0, 3, 0, 0, 0, 0, 0, 0]
    v = [1, 2, 2, 2, 2, 2, 1, 2, 2, 2, 2, 2, 2]
    res = meta_analysis(y, v, method="REML")
    assert res.tau2 == pytest.approx(0.0559267954021977, rel=1e-12)
    for method in ("ML", "EB"):  # these converge with metafor's defaults, to 0
        assert meta_analysis(y, v, method=method).tau2 == 0.0


def test_input_arrays_are_copied_not_frozen():
    y = np.array([0.1, 0.5, 0.9])
    v = np.array([0.02, 0.03, 0.04])
    res = meta_analysis(y, v)
    assert y.flags.writeable and v.flags.writeable
    y[0] = 99.0
    assert res.yi[0] == 0.1


# ------------------------------------------------------------------------------------ bad input
@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"yi": [], "vi": []}, "empty"),
        ({"yi": [0.1, 0.2], "vi": [0.1]}, "different lengths"),
        ({"yi": [0.1, float("nan")], "vi": [0.1, 0.1]}, r"yi must be finite: study '2'"),
        ({"yi": [0.1, 0.2], "vi": [0.1, float("inf")]}, "vi must be finite"),
        ({"yi": [0.1, 0.2], "vi": [0.1, -0.1]}, r"vi must be > 0: study '2'"),
        ({"yi": [0.1, 0.2], "vi": [0.0, 0.1], "method": "FE"}, "vi must be > 0"),
        ({"yi": [0.1, 0.2], "vi": [0.1, 0.1], "method": "XX"}, "valid methods: FE, EE, DL"),
        ({"yi": [0.1, 0.2], "vi": [0.1, 0.1], "test": "wald"}, "valid tests: z, t, knha"),
        ({"yi": [0.1, 0.2], "vi": [0.1, 0.1], "level": 95}, "level: must be strictly between 0 and 1"),
        ({"yi": [0.1, 0.2], "vi": [0.1, 0.1], "level": 0.0}, "level: must be strictly between 0 and 1"),
        ({"yi": [0.1, 0.2], "vi": [0.1, 0.1], "names": ["a"]}, "names has 1 entries"),
        ({"yi": [0.1, 0.2, 0.3], "vi": [0.1] * 3, "names": ["a", "a", "a.1"]}, "unique"),
        ({"yi": [0.1, 0.2]}, "vi is required"),
        ({"yi": [[0.1, 0.2]], "vi": [[0.1, 0.1]]}, "one-dimensional"),
        ({"yi": ["a", "b"], "vi": [0.1, 0.1]}, "numeric"),
    ],
)
def test_bad_input_raises(kwargs, match):
    with pytest.raises(MetaInputError, match=match):
        meta_analysis(**kwargs)


def test_effectsizes_with_extra_vi_is_rejected():
    es = EffectSizes(names=("a", "b"), yi=np.array([0.1, 0.2]), vi=np.array([0.1, 0.1]),
                     n=np.array([10, 10]), measure="SMD", mean_treatment=np.zeros(2),
                     mean_control=np.zeros(2))
    with pytest.raises(MetaInputError, match="vi must be None"):
        meta_analysis(es, [0.1, 0.1])
    res = meta_analysis(es, method="DL")
    assert res.names == ("a", "b") and res.measure == "SMD" and res.effects is es


# ------------------------------------------------------------------------------------ properties
studies = st.integers(min_value=1, max_value=12).flatmap(
    lambda k: st.tuples(
        st.lists(st.floats(-5, 5, allow_nan=False), min_size=k, max_size=k),
        st.lists(st.floats(1e-3, 2.0, allow_nan=False), min_size=k, max_size=k),
    )
)


@settings(max_examples=50, deadline=None)
@given(data=studies, method=st.sampled_from(METHODS), test=st.sampled_from(("z", "t", "knha")),
       seed=st.integers(0, 2**32 - 1))
def test_properties(data, method, test, seed):
    y, v = (np.array(a) for a in data)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        res = meta_analysis(y, v, method=method, test=test)  # ML/REML/EB always converge
        perm = np.random.default_rng(seed).permutation(y.size)
        res_p = meta_analysis(y[perm], v[perm], method=method, test=test)
    assert res.tau2 >= 0.0 and math.isfinite(res.tau2)
    assert 0.0 <= res.I2 <= 100.0
    assert 0.0 <= res.tau2_ci[0] <= res.tau2_ci[1] and 0.0 <= res.I2_ci[0] <= res.I2_ci[1] <= 100
    assert np.all(res.weights >= 0.0) and res.weights.sum() == pytest.approx(1.0, abs=1e-12)
    assert res.ci_low <= res.estimate <= res.ci_high
    assert res.pi_low <= res.ci_low + 1e-12 and res.pi_high >= res.ci_high - 1e-12
    # every estimator's estimate is a weighted mean, so it lies within the observed range
    assert y.min() - 1e-12 <= res.estimate <= y.max() + 1e-12
    assert res_p.estimate == pytest.approx(res.estimate, rel=1e-9, abs=1e-9)
    assert res_p.tau2 == pytest.approx(res.tau2, rel=1e-7, abs=1e-9)
    np.testing.assert_allclose(res_p.weights, res.weights[perm], rtol=1e-7, atol=1e-9)
    json.loads(res.to_json())


def test_absurdly_small_variances_far_apart_effects_are_a_clear_error():
    # 0.1 apart with standard errors 1e-150: 1e149 standard errors, tau2 cannot be held
    with pytest.raises(MetaInputError, match=r"yi out of range: study '1' \(position 0\)"):
        meta_analysis([0.0, 0.1], [1e-300, 1e-300], method="REML")
