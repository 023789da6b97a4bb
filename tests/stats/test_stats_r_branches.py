"""Wilcoxon signed-rank and McNemar tests against R (wilcox.test, mcnemar.test) and scipy at their
degenerate and branch-switching cases (tests/oracles/stats_r_tests.R)."""
from __future__ import annotations

import json
import math
import warnings

import numpy as np
import pytest
import scipy.stats as sps

from ranger_eval.stats import ALTERNATIVES, mcnemar, wilcoxon

ALT = {"two.sided": "two-sided", "greater": "greater", "less": "less"}
TIGHT = dict(rel=1e-9, abs=1e-12)


@pytest.fixture(scope="module")
def r_oracle(oracles) -> dict:
    return json.loads((oracles / "stats_r_tests.json").read_text())


# --- 1. zero_method="zsplit" with every difference zero ------------------------------------------

@pytest.mark.parametrize("n", [2, 5, 14, 30, 50, 51, 60])
def test_wilcoxon_zsplit_all_zero_splits_the_rank_sum(n: int) -> None:
    """Zeros split evenly between R+ and R-: statistic n(n+1)/4, two-sided p = 1, and every
    (alternative, method, correction) exactly as scipy.stats.wilcoxon(zero_method="zsplit")."""
    x = np.linspace(0.1, 0.9, n)
    for alternative in ALTERNATIVES:
        for method in ("auto", "exact", "asymptotic"):
            for correction in (False, True):
                ours = wilcoxon(x, x.copy(), zero_method="zsplit", alternative=alternative,
                                method=method, continuity_correction=correction)
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    ref = sps.wilcoxon(np.zeros(n), zero_method="zsplit", alternative=alternative,
                                       method=method, correction=correction)
                assert ours.statistic == n * (n + 1) / 4 == ref.statistic
                assert ours.pvalue == pytest.approx(float(ref.pvalue), rel=1e-12)
                if alternative == "two-sided":
                    assert ours.pvalue == 1.0
                assert (ours.estimate, ours.ci_low) == (0.0, 0.0) or alternative == "less"


def test_wilcoxon_zsplit_all_zero_small_n_is_scipy_permutation_answer() -> None:
    """n <= 13: scipy's 'auto' enumerates the 2^n sign flips (a point mass): p = 1 throughout."""
    for alternative in ALTERNATIVES:
        ours = wilcoxon(np.zeros(13), zero_method="zsplit", alternative=alternative)
        assert (ours.statistic, ours.pvalue) == (13 * 14 / 4, 1.0)
    ref = sps.wilcoxon(np.zeros(13), zero_method="zsplit", alternative="greater")
    assert (ref.statistic, ref.pvalue) == (13 * 14 / 4, 1.0)


def test_wilcoxon_all_zero_other_zero_methods_keep_statistic_zero() -> None:
    x = np.linspace(0.1, 0.9, 30)
    for zero_method in ("wilcox", "pratt"):
        res = wilcoxon(x, x.copy(), zero_method=zero_method)
        assert (res.statistic, res.pvalue, res.estimate) == (0.0, 1.0, 0.0)


# --- 2. McNemar's asymptotic test equals R's mcnemar.test --------------------------------------

def _pairs(a: int, b: int, c: int, d: int) -> tuple[np.ndarray, np.ndarray]:
    x = np.array([1] * a + [1] * b + [0] * c + [0] * d)
    y = np.array([1] * a + [0] * b + [1] * c + [0] * d)
    return x, y


def test_mcnemar_asymptotic_equals_r_mcnemar_test(r_oracle: dict) -> None:
    cases = r_oracle["mcnemar"]
    assert {(k["b"] - k["c"]) for k in cases} >= {0, 1, -1}
    for k in cases:
        x, y = _pairs(k["a"], k["b"], k["c"], k["d"])
        ours = mcnemar(x, y, exact=False, continuity_correction=k["correct"])
        if k["statistic"] is None:  # b = c = 0: R gives NaN; ours is the defined "no evidence"
            assert (ours.statistic, ours.pvalue) == (0.0, 1.0)
            continue
        assert ours.statistic == pytest.approx(k["statistic"], rel=1e-12, abs=1e-15), k
        assert ours.pvalue == pytest.approx(k["p_value"], rel=1e-12), k


def test_mcnemar_b_equals_c_has_no_correction_and_p_one() -> None:
    x, y = _pairs(10, 10, 10, 20)  # statsmodels: (|0| - 1)^2 / 20 = 0.05, p = 0.823
    res = mcnemar(x, y, exact=False, continuity_correction=True)
    assert (res.statistic, res.pvalue) == (0.0, 1.0)


# --- 3. Wilcoxon: R's exact/asymptotic switch, Hodges-Lehmann estimate and interval ---------------

def _r_case_id(k: dict) -> str:
    return f"n{k['n']}-{k['kind']}-{k['alternative']}-{'cc' if k['correct'] else 'nocc'}"


def test_oracle_covers_the_switch(r_oracle: dict) -> None:
    cases = r_oracle["wilcox_branch"]
    exact = {(k["n"], k["kind"]) for k in cases if "exact" in k["method"]}
    assert (49, "distinct") in exact
    assert not {(50, "distinct"), (51, "distinct"), (49, "ties"), (49, "zeros")} & exact
    assert {k["n"] for k in cases} >= {49, 50, 51}


def test_wilcoxon_estimate_interval_and_pvalue_equal_r(r_oracle: dict) -> None:
    for k in r_oracle["wilcox_branch"]:
        d = np.asarray(k["d"], dtype=float)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)  # "conf.level not achievable"
            ours = wilcoxon(d, alternative=ALT[k["alternative"]], level=k["level"],
                            continuity_correction=k["correct"])
        cid = _r_case_id(k)
        assert ours.estimate == pytest.approx(k["estimate"], **TIGHT), cid
        lo = -math.inf if k["ci_low"] is None else k["ci_low"]
        hi = math.inf if k["ci_high"] is None else k["ci_high"]
        assert ours.ci_low == pytest.approx(lo, **TIGHT), cid
        assert ours.ci_high == pytest.approx(hi, **TIGHT), cid
        assert ours.level == pytest.approx(k["conf_level"], rel=1e-12), cid
        nz = d[d != 0]
        tied = np.unique(np.abs(nz)).size < nz.size or nz.size < d.size
        if tied and nz.size <= 13:
            continue  # ours: scipy's exact permutation p-value; R: the normal approximation
        assert ours.pvalue == pytest.approx(k["p_value"], rel=1e-9), cid
        big = nz.size * (nz.size + 1) / 2
        want = k["V"] if k["alternative"] != "two.sided" else min(k["V"], big - k["V"])
        assert ours.statistic == pytest.approx(want, rel=1e-12), cid


def test_wilcoxon_auto_switches_at_n_50_like_r() -> None:
    """n = 50 distinct differences: R (and now ours) uses the normal approximation; scipy's own
    'auto' would still be exact there."""
    rng = np.random.default_rng(5)
    for n, exact in ((49, True), (50, False), (51, False)):
        d = rng.normal(0.2, 1, n)
        ours = wilcoxon(d, continuity_correction=True)
        ref = sps.wilcoxon(d, correction=True, method="exact" if exact else "asymptotic")
        assert ours.pvalue == pytest.approx(float(ref.pvalue), rel=1e-12)


def test_wilcoxon_unachievable_level_warns_and_reports_achieved_level() -> None:
    with pytest.warns(UserWarning, match="confidence level 0.95 is not achievable"):
        res = wilcoxon([0.4, -0.1, 0.7, 1.3])
    assert res.level == pytest.approx(0.88)


def test_wilcoxon_constant_nonzero_differences_defined() -> None:
    """R returns a NaN interval here; ours collapses onto the common value."""
    for d, n_zero in (([0.5] * 60, 0), ([0.5] * 16 + [0.0] * 3, 3)):
        res = wilcoxon(d)
        assert (res.estimate, res.ci_low, res.ci_high) == (0.5, 0.5, 0.5), n_zero
        assert res.pvalue < 0.05
        one = wilcoxon(d, alternative="greater")
        assert (one.ci_low, one.ci_high) == (0.5, math.inf)
