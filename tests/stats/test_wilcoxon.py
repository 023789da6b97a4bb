"""The Wilcoxon signed-rank test (``stats.wilcoxon``) and its Hodges–Lehmann estimate and
interval: against scipy.stats.wilcoxon (statistic and p-value, every zero method, exact and
asymptotic), against R's wilcox.test (estimate, interval, p-value, the exact/asymptotic switch at
n = 50; tests/oracles/stats_r_oracles.R and stats_r_tests.R) and at the degenerate cases (every
difference zero, constant differences, unachievable levels).

The Wilcoxon path of ``compare`` (dispatch, the Hodges–Lehmann columns of the comparison table,
the clustered signed-rank test) is tested in tests/comparison/; the Wilcoxon post-hoc of the rank
tests in tests/aggregate/."""
from __future__ import annotations

import json
import math
import warnings

import numpy as np
import pytest
import scipy.stats as sps

from ranger_eval.stats import ALTERNATIVES, wilcoxon
from ranger_eval.stats._hodges_lehmann import hodges_lehmann, walsh_select
from tests.helpers.samples import paired_sample

ALT = {"two.sided": "two-sided", "greater": "greater", "less": "less"}
TIGHT = dict(rel=1e-9, abs=1e-12)
CASES = range(24)
TOL = dict(rtol=1e-10, atol=1e-12)


@pytest.fixture(scope="module")
def r_oracle(oracles) -> dict:
    return json.loads((oracles / "stats_r_tests.json").read_text())


# --- 1. statistic and p-value equal scipy.stats.wilcoxon ------------------------------------------

@pytest.mark.parametrize("seed", CASES)
@pytest.mark.parametrize("alternative", ALTERNATIVES)
def test_wilcoxon_equals_scipy(seed: int, alternative: str) -> None:
    x, y = paired_sample(seed)
    if seed % 2:  # discrete scores: ties and zero differences (n > 50: scipy's exact
        # permutation fallback for small tied samples takes seconds)
        x, y = paired_sample(seed + 100)
        while x.size <= 50:
            x, y = np.concatenate([x, x + 0.3]), np.concatenate([y, y])
        x, y = np.round(x * 4) / 4, np.round(y * 4) / 4
        if not np.any(x != y):
            y = y + 0.25
    zero_method, cc = ("wilcox", "pratt", "zsplit")[seed % 3], bool(seed % 4 == 1)
    ours = wilcoxon(x, y, alternative=alternative, zero_method=zero_method,
                    continuity_correction=cc)
    # our "auto" switches to the normal approximation at n = 50 like R (scipy's at n = 51)
    ref = sps.wilcoxon(x, y, alternative=alternative, zero_method=zero_method, correction=cc,
                       method="asymptotic" if x.size >= 50 else "auto")
    np.testing.assert_allclose([ours.statistic, ours.pvalue], [ref.statistic, ref.pvalue], **TOL)


def test_wilcoxon_methods_equal_scipy() -> None:
    x, y = paired_sample(3)
    for method in ("exact", "approx", "auto"):
        for alt in ALTERNATIVES:
            ours = wilcoxon(x[:20], y[:20], alternative=alt, method=method)
            ref = sps.wilcoxon(x[:20], y[:20], alternative=alt, method=method)
            np.testing.assert_allclose([ours.statistic, ours.pvalue], [ref.statistic, ref.pvalue], **TOL)


# --- 2. zero_method="zsplit" with every difference zero ------------------------------------------

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


# --- 3. Hodges–Lehmann estimate and interval; R's exact/asymptotic switch -----------------------

def _r_oracle(oracles) -> dict:
    return json.loads((oracles / "stats_r_oracles.json").read_text())


def test_hodges_lehmann_and_interval_equal_r_wilcox_test(oracles) -> None:
    cases = _r_oracle(oracles)["wilcox"]
    assert len(cases) >= 20
    alt = {"two.sided": "two-sided", "greater": "greater", "less": "less"}
    for case in cases:
        res = wilcoxon(case["d"], alternative=alt[case["alternative"]], level=case["level"])
        assert res.estimate == pytest.approx(case["estimate"], rel=1e-9, abs=1e-12)
        lo = -math.inf if case["ci_low"] is None else case["ci_low"]
        hi = math.inf if case["ci_high"] is None else case["ci_high"]
        assert res.ci_low == pytest.approx(lo, rel=1e-9, abs=1e-12)
        assert res.ci_high == pytest.approx(hi, rel=1e-9, abs=1e-12)


def test_hodges_lehmann_equals_brute_force_walsh_median() -> None:
    """Large n takes the selection path (no materialisation); compare with the full matrix.
    (wilcoxon() itself uses R's normal-approximation roots for n >= 50, within R's tol.root.)"""
    rng = np.random.default_rng(7)
    for n, data in [(1500, rng.normal(size=1500)), (900, rng.integers(-3, 4, 900) / 2.0)]:
        d = np.sort(data)
        w = np.sort((d[:, None] + d[None, :])[np.triu_indices(n)] / 2.0)
        assert hodges_lehmann(d, max_enum=1000) == np.median(w)
        assert hodges_lehmann(d) == np.median(w)
        if n == 1500:
            assert wilcoxon(d).estimate == pytest.approx(np.median(w), abs=2e-4)
        for k in rng.integers(1, w.size + 1, 6):
            assert walsh_select(d, int(k), max_enum=1000) == w[k - 1]


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
