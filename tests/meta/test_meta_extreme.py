"""meta_analysis under extreme values: metafor agreement on rescaled data
(tests/oracles/metafor_extreme.R/.json), clear errors naming the study outside the accepted range,
no NaN / ZeroDivisionError / RuntimeWarning, and order invariance (hypothesis)."""
from __future__ import annotations

import json
import math
import warnings
from pathlib import Path

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from ranger_eval.meta import METHODS, MetaInputError, meta_analysis

ORACLE = json.loads((Path(__file__).parents[1] / "oracles" / "metafor_extreme.json").read_text())
FIELDS = {"estimate": "estimate", "se": "se", "tau2": "tau2", "I2": "I2", "H2": "H2", "QE": "Q",
          "pval": "pvalue", "ci_lb": "ci_low", "ci_ub": "ci_high", "pi_lb": "pi_low",
          "pi_ub": "pi_high"}
#: the "mixed" case (vi over 60 orders of magnitude) differs from metafor by up to 9e-7: metafor
#: forms tr P = Σw - Σw²/Σw with cancellation, ranger_eval without (meta.tau2._traces)
RTOL = 1e-6
CASES = [(case, key) for case, c in ORACLE["cases"].items() for key in c["fits"]]


def _fit(y, v, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no RuntimeWarning (overflow, divide, invalid)
        warnings.filterwarnings("ignore", message=".*Fisher scoring may have got stuck",
                                category=UserWarning)
        # k < 3: the caution that τ² and the prediction interval are not estimable (said, not
        # a numeric problem)
        warnings.filterwarnings("ignore", message="k = [12] dataset", category=UserWarning)
        return meta_analysis(y, v, **kw)


@pytest.mark.parametrize(("case", "key"), CASES)
def test_extreme_scales_match_metafor(case, key):
    c = ORACLE["cases"][case]
    y = np.array([float(x) for x in c["yi"]])
    v = np.array([float(x) for x in c["vi"]])
    entry = c["fits"][key]
    res = _fit(y, v, method=entry["method"], test=entry["test"])
    for kind in ("mapped", "direct"):
        if kind not in entry:
            continue
        ref = entry[kind]
        for theirs, ours in FIELDS.items():
            assert getattr(res, ours) == pytest.approx(ref[theirs], rel=RTOL, abs=0.0), (kind, theirs)
        np.testing.assert_allclose(res.weights, ref["weights"], rtol=RTOL, atol=5e-8)


@pytest.mark.parametrize("scale", [2.0**-500, 2.0**-300, 2.0**300, 2.0**500])
@pytest.mark.parametrize("method", METHODS)
def test_rescaling_is_exact_equivariance(scale, method):
    rng = np.random.default_rng(3)
    y = rng.normal(0.3, 0.4, 9)
    v = rng.uniform(0.01, 0.2, 9)
    base = _fit(y, v, method=method, test="knha")
    big = _fit(y * scale, v * scale * scale, method=method, test="knha")
    for name in ("estimate", "se", "ci_low", "ci_high", "pi_low", "pi_high"):
        assert getattr(big, name) == pytest.approx(getattr(base, name) * scale, rel=1e-9)
    assert big.tau2 == pytest.approx(base.tau2 * scale * scale, rel=1e-9, abs=1e-12 * scale**2)
    for name in ("I2", "H2", "Q", "pvalue", "statistic"):
        assert getattr(big, name) == pytest.approx(getattr(base, name), rel=1e-9, abs=1e-12)
    assert big.tau2_ci[1] == pytest.approx(base.tau2_ci[1] * scale * scale, rel=1e-9)
    np.testing.assert_allclose(big.weights, base.weights, rtol=1e-9)
    loo = big.leave_one_out()
    np.testing.assert_allclose(loo["estimate"], base.leave_one_out()["estimate"] * scale, rtol=1e-9)


def test_huge_common_effect_is_fitted_around_the_median():
    # |yi| ~ 1e100 and vi ~ 1e180: outside the safe range, spread of 1e90 kept exactly
    y = 1e100 + np.array([0.0, 3e90, -1e90, 2e90, 5e89])
    v = np.array([1.0, 2.0, 0.5, 1.5, 1.0]) * 1e180
    res = _fit(y, v, method="REML")
    base = _fit((y - 1e100) / 1e90, v / 1e180, method="REML")
    assert res.estimate == pytest.approx(1e100 + base.estimate * 1e90, rel=1e-12)
    assert res.tau2 == pytest.approx(base.tau2 * 1e180, rel=1e-9)
    assert res.pvalue == pytest.approx(0.0, abs=1e-300)  # 1e100 is far from 0


def test_subnormal_and_zero_variances():
    y = np.array([1e-162, 3e-162, 2e-162])
    res = _fit(y, [5e-324, 1e-323, 2e-323], method="REML")
    assert all(math.isfinite(x) for x in (res.estimate, res.se, res.tau2, res.pvalue))
    assert res.ci_low <= res.estimate <= res.ci_high
    with pytest.raises(MetaInputError, match=r"vi must be > 0: study '2' \(position 1\) has vi=0.0"):
        meta_analysis([0.1, 0.2], [0.1, 0.0])


def test_variances_too_far_apart_name_both_studies():
    with pytest.raises(MetaInputError, match=r"vi out of range: study 'a' \(position 0\) has "
                                             r"vi=1e-150 and study 'c' \(position 2\) vi=1e\+300"):
        meta_analysis([0.1, 0.2, 0.3], [1e-150, 1.0, 1e300], names=["a", "b", "c"])
    with pytest.raises(MetaInputError, match=r"vi out of range"):
        meta_analysis([0.1, 0.2], [5e-324, 1.0])


def test_effects_too_far_apart_name_the_study():
    with pytest.raises(MetaInputError, match=r"yi out of range: study 'far' \(position 2\) "
                                             r"has yi=1e\+200"):
        meta_analysis([0.1, 0.2, 1e200], [1.0, 1.0, 1.0], names=["x", "y", "far"])


@pytest.mark.parametrize("bad", [math.nan, math.inf, -math.inf])
def test_nan_and_inf_name_the_study(bad):
    with pytest.raises(MetaInputError, match=r"yi must be finite: study 'b' \(position 1\)"):
        meta_analysis([0.1, bad], [0.1, 0.1], names=["a", "b"])
    with pytest.raises(MetaInputError, match=r"vi must be finite: study 'b' \(position 1\)"):
        meta_analysis([0.1, 0.2], [0.1, bad], names=["a", "b"])


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize(("y", "v"), [(1e200, 1e300), (1e-200, 1e-300), (-3e150, 5e-320)])
def test_k1_extreme_is_the_study_itself(method, y, v):
    res = _fit([y], [v], method=method)
    assert res.estimate == y and res.tau2 == 0.0 and res.se == pytest.approx(math.sqrt(v))


def test_regression_r2_with_tiny_effects_has_no_zero_division():
    # hypothesis found mss + rss underflowing to 0 in the FE adjusted R²
    res = _fit([0.0, 0.0, 0.0, 1.8801514023015896e-210], [1.0] * 4, method="FE",
               moderators={"x": [0.0, 1.0, 0.0, 1.0]})
    assert 0.0 <= res.R2 <= 100.0


finite_effects = st.integers(min_value=2, max_value=9).flatmap(
    lambda k: st.tuples(
        st.lists(st.floats(-1e6, 1e6, allow_nan=False, allow_infinity=False), min_size=k,
                 max_size=k),
        st.lists(st.floats(1e-6, 1e6, allow_nan=False, allow_infinity=False), min_size=k,
                 max_size=k),
        st.integers(-600, 600),  # extra scale 2^e applied to the whole data set
    )
)


@example(data=([0.0, 261869.0], [1.0, 3.0], 509), method="DL", test="z", seed=0)  # tau2 overflows
@example(data=([0.0, 261867.0], [1.0, 1.0], 497), method="EE", test="z", seed=1)  # (2^497)² in the test
@settings(max_examples=60, deadline=None)
@given(data=finite_effects, method=st.sampled_from(METHODS), test=st.sampled_from(("z", "knha")),
       seed=st.integers(0, 2**32 - 1))
def test_summary_finite_and_order_invariant(data, method, test, seed):
    y0, v0, e = data
    with np.errstate(over="ignore", under="ignore"):
        y = np.ldexp(np.array(y0), e)
        v = np.ldexp(np.array(v0), 2 * e)
    if not (np.all(np.isfinite(y)) and np.all(v > 0) and np.all(np.isfinite(v))):
        return  # the exact scaling left float64: not a valid input
    perm = np.random.default_rng(seed).permutation(y.size)
    try:
        res = _fit(y, v, method=method, test=test)
    except MetaInputError as exc:  # only the documented range errors
        assert "out of range" in str(exc)
        return
    res_p = _fit(y[perm], v[perm], method=method, test=test)
    for r in (res, res_p):
        values = [r.estimate, r.se, r.ci_low, r.ci_high, r.pi_low, r.pi_high, r.tau2, r.I2,
                  r.H2, r.Q, r.Q_pvalue, r.pvalue, *r.tau2_ci, *r.I2_ci]
        assert all(math.isfinite(x) for x in values)
        assert np.all(np.isfinite(r.weights)) and r.weights.sum() == pytest.approx(1.0)
    scale_y = math.ldexp(1.0, e) * (1.0 + float(np.max(np.abs(y0))))
    assert res_p.estimate == pytest.approx(res.estimate, rel=1e-7, abs=1e-9 * scale_y)
    # scale_y * scale_y (not **): a float product saturates to inf instead of raising
    assert res_p.tau2 == pytest.approx(res.tau2, rel=1e-6, abs=1e-9 * scale_y * scale_y)
    np.testing.assert_allclose(res_p.weights, res.weights[perm], rtol=1e-6, atol=1e-9)
