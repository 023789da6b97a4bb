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
from hypothesis import given, settings
from hypothesis import strategies as st

from ranger_eval.stats import ALTERNATIVES, wilcoxon
from ranger_eval.stats._hodges_lehmann import (
    hodges_lehmann,
    hodges_lehmann_ci,
    r_asymptotic_interval,
    r_asymptotic_interval_rows,
    walsh_select,
    walsh_sum_select_rows,
)
from ranger_eval.stats.many import wilcoxon_many
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


# --- 3. the all-pairs kernel: wilcoxon_many equals wilcoxon row by row, bit for bit -------------

def _same(a: float, b: float) -> bool:
    return a == b or (math.isnan(a) and math.isnan(b))


def _hostile_rows(n: int, rng: np.random.Generator) -> np.ndarray:
    """Rows of every kind the kernel separates: continuous, ties, zeros, all zero, constant,
    one non-zero value, symmetric (a midpoint tie at the first bisection), extreme scales."""
    rows = [rng.normal(0.05, 0.2, n), np.round(rng.normal(0.05, 0.2, n) * 5) / 5,
            np.where(np.arange(n) % 3 == 0, 0.0, rng.normal(0.1, 0.3, n)),
            np.zeros(n), np.full(n, 0.25), np.r_[np.zeros(n - 1), 0.5],
            np.linspace(-1.0, 1.0, n) + 0.125, rng.normal(0, 1, n) * 1e-300,
            rng.normal(0, 1, n) * 1e300, np.round(rng.normal(0, 0.3, n) * 3) / 3 - 1 / 3]
    return np.stack(rows)


@pytest.mark.parametrize("n", [2, 3, 5, 12, 14, 30, 49, 50, 51, 97,
                               pytest.param(13, marks=pytest.mark.slow)])
@pytest.mark.parametrize("alternative", ALTERNATIVES)
def test_wilcoxon_many_equals_wilcoxon_bit_for_bit(n: int, alternative: str) -> None:
    rng = np.random.default_rng(n)
    d = _hostile_rows(n, rng)
    level = 0.9 if n % 2 else 0.95
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        many = wilcoxon_many(d, alternative=alternative, level=level)
        for r, row in enumerate(d):
            one = wilcoxon(row, alternative=alternative, level=level)
            got = (many.statistic[r], many.pvalue[r], many.estimate[r], many.ci_low[r],
                   many.ci_high[r])
            want = (one.statistic, one.pvalue, one.estimate, one.ci_low, one.ci_high)
            assert all(_same(float(a), float(b)) for a, b in zip(got, want, strict=True)), (
                r, got, want)


def test_wilcoxon_many_warns_like_wilcoxon_when_the_level_is_unachievable() -> None:
    d = np.array([[0.4, -0.1, 0.7, 1.3, 0.0, 0.0, 0.2, 0.2, -0.2, 0.5, 0.5, 0.1, 0.9, 0.3],
                  [0.4, -0.1, 0.7, 1.3, 0.0, 0.0, 0.2, 0.2, -0.2, 0.5, 0.5, 0.1, 0.9, 0.3]])
    with pytest.warns(UserWarning, match="not achievable with 12 non-zero") as rec:
        wilcoxon_many(d, level=0.9999)
    with pytest.warns(UserWarning, match="not achievable with 12 non-zero") as rec_one:
        wilcoxon(d[0], level=0.9999)
    assert len(rec) == 2 * len(rec_one)


@pytest.mark.parametrize("correct", [False, True])
@pytest.mark.parametrize("alternative", ALTERNATIVES)
def test_asymptotic_interval_rows_equal_the_one_row_roots(correct: bool, alternative: str) -> None:
    """R's uniroot in lockstep over rows takes every step of the one-row version: same floats
    (rows with ties, zeros dropped beforehand, tiny and large n, an unreachable quantile)."""
    rng = np.random.default_rng(11)
    for n in (2, 4, 9, 60, 300):
        x = np.stack([rng.normal(0.1, 1, n), np.round(rng.normal(0.1, 1, n) * 2) / 2 + 0.25,
                      np.r_[rng.normal(0, 1, n - 1), 1e-3], np.linspace(-1, 2, n)])
        x = np.where(x == 0, 0.5, x)
        est, lo, hi, lev = r_asymptotic_interval_rows(x, 0.95, alternative, correct)
        for r in range(x.shape[0]):
            want = r_asymptotic_interval(x[r], 0.95, alternative, correct)
            assert (est[r], lo[r], hi[r], lev[r]) == want, (n, r)


# --- 4. the Walsh-average selection equals the full O(n^2) matrix ---------------------------------

def _walsh_sorted(d: np.ndarray) -> np.ndarray:
    n = d.size
    return np.sort((d[:, None] + d[None, :])[np.triu_indices(n)] / 2.0)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from([-2.0, -0.5, 0.0, 0.0, 0.25, 1.0, 3.0]) | st.floats(-5, 5),
                min_size=1, max_size=40),
       st.integers(1, 64))
def test_walsh_selection_equals_all_walsh_averages(values: list[float], max_enum: int) -> None:
    """Hostile inputs (ties, zeros, n = 1-3, a window forced to shrink many times by a tiny
    max_enum): the selected order statistics, the median and R's exact interval equal those of
    the sorted n(n+1)/2 Walsh averages exactly."""
    d = np.sort(np.asarray(values))
    w = _walsh_sorted(d)
    for k in {1, w.size, (w.size + 1) // 2, max(1, w.size // 3)}:
        assert walsh_select(d, k, max_enum=max_enum) == w[k - 1]
    assert hodges_lehmann(d, max_enum=max_enum) == np.median(w)
    if d.size >= 2:
        lo, hi, _ = hodges_lehmann_ci(d, 0.9, "two-sided", max_enum=max_enum)
        assert (lo, hi) == hodges_lehmann_ci(d, 0.9, "two-sided", max_enum=w.size)[:2]
        assert lo in w and hi in w


# --- 5. hodges_lehmann="walsh": exact Walsh order statistics of many rows at once -------------

def _padded(rows: list[np.ndarray]) -> np.ndarray:
    n = max(r.size for r in rows)
    out = np.full((len(rows), n), np.inf)
    for j, r in enumerate(rows):
        out[j, :r.size] = np.sort(r)
    return out


@settings(max_examples=60, deadline=None)
@given(st.lists(st.lists(st.sampled_from([-2.0, -0.5, 0.0, 0.0, 0.25, 1.0, 3.0])
                         | st.floats(-5, 5), min_size=1, max_size=30), min_size=1, max_size=4),
       st.integers(0, 2**31), st.sampled_from([1, 3, None]))
def test_walsh_rows_selection_equals_sorted_walsh_sums(rows: list[list[float]], seed: int,
                                                        budget: int | None) -> None:
    """Rows of unequal lengths (+inf padding), ties, zeros, n = 1-3; a budget of 1 or 3 sums
    forces the sampled brackets, round after round: every rank equals the sorted n(n+1)/2 sums."""
    arrs = [np.asarray(r) for r in rows]
    x = _padded(arrs)
    rng = np.random.default_rng(seed)
    ks, want = [], []
    for r in arrs:
        s = np.sort((r[:, None] + r[None, :])[np.triu_indices(r.size)])
        k = int(rng.integers(1, s.size + 1))
        ks.append(k)
        want.append(s[k - 1])
    got = walsh_sum_select_rows(x, np.array(ks), seed=seed, budget=budget)
    assert got.tolist() == want


def test_walsh_rows_large_n_with_ties_equals_sorted_walsh_sums() -> None:
    rng = np.random.default_rng(11)
    rows = [rng.normal(size=700), np.round(rng.normal(size=650) * 4) / 4,
            rng.integers(-2, 3, 600).astype(float)]
    x = _padded(rows)
    for r, row in enumerate(rows):
        s = np.sort((row[:, None] + row[None, :])[np.triu_indices(row.size)])
        ks = np.array([1, s.size // 2, s.size // 2 + 1, s.size - 7, s.size])
        got = walsh_sum_select_rows(np.repeat(x[r:r + 1], ks.size, axis=0), ks, budget=50)
        assert got.tolist() == s[ks - 1].tolist()


@pytest.mark.parametrize("alternative", ALTERNATIVES)
def test_walsh_interval_is_the_order_statistics_and_near_r(alternative: str) -> None:
    """hodges_lehmann="walsh": estimate = median of the Walsh averages, bounds = w_(q) with the
    documented large-sample indices (numpy's sorted O(n^2) averages, exactly), within R's
    uniroot tolerance 1e-4 of R's roots (the default path); p-values unchanged."""
    rng = np.random.default_rng(5)
    d = np.vstack([rng.normal(0.05, 0.2, 400), np.round(rng.normal(0.05, 0.2, 400) * 20) / 20])
    walsh = wilcoxon_many(d, alternative=alternative, hodges_lehmann="walsh")
    r = wilcoxon_many(d, alternative=alternative)
    assert np.array_equal(walsh.pvalue, r.pvalue)
    z = sps.norm.isf(0.025 if alternative == "two-sided" else 0.05)
    for j in range(2):
        nz = d[j][d[j] != 0]
        w = _walsh_sorted(np.sort(nz))
        n, big = nz.size, w.size
        sigma = math.sqrt(n * (n + 1) * (2 * n + 1) / 24)
        assert walsh.estimate[j] == np.median(w)
        lo = w[math.floor(big / 2 - z * sigma)] if alternative != "less" else -math.inf
        hi = w[math.floor(big / 2 + z * sigma)] if alternative != "greater" else math.inf
        assert (walsh.ci_low[j], walsh.ci_high[j]) == (lo, hi)
        one = wilcoxon(d[j], alternative=alternative, hodges_lehmann="walsh")
        assert (one.estimate, one.ci_low, one.ci_high) == (walsh.estimate[j], walsh.ci_low[j],
                                                           walsh.ci_high[j])
        for a, b in ((walsh.estimate, r.estimate), (walsh.ci_low, r.ci_low),
                     (walsh.ci_high, r.ci_high)):
            assert a[j] == b[j] or abs(a[j] - b[j]) <= 1e-4  # R_TOL_ROOT


def test_walsh_interval_equals_r_exact_branch_and_r_within_tolerance(r_oracle: dict) -> None:
    """R's oracle cases: exact equality in R's exact branch (n < 50, no ties: order statistics
    in R too), bounds within tol.root = 1e-4 elsewhere (R's bounds are uniroot roots at the
    jumps of the statistic); R's estimate there is a root anywhere on the flat between the two
    middle Walsh averages (N even), ours their mean."""
    for k in r_oracle["wilcox_branch"]:
        d = np.asarray(k["d"], dtype=float)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            ours = wilcoxon(d, alternative=ALT[k["alternative"]], level=k["level"],
                            continuity_correction=k["correct"], hodges_lehmann="walsh")
        lo = -math.inf if k["ci_low"] is None else k["ci_low"]
        hi = math.inf if k["ci_high"] is None else k["ci_high"]
        exact = "exact" in k["method"]
        tol = dict(rel=1e-12, abs=0.0) if exact else dict(rel=0.0, abs=1e-4)
        if not exact and k["conf_level"] != k["level"]:
            continue  # R lowered the level (not achievable): walsh keeps the requested one
        cid = _r_case_id(k)
        if exact:
            assert ours.estimate == pytest.approx(k["estimate"], **tol), cid
        else:  # R: any root of W(mu) = 0, a step function that is 0 between the middle two
            w = _walsh_sorted(np.sort(d[d != 0]))
            mid = w[(w.size - 1) // 2], w[w.size // 2]
            assert mid[0] - 1e-4 <= k["estimate"] <= mid[1] + 1e-4, cid
            assert ours.estimate == (mid[0] + mid[1]) / 2, cid
        assert ours.ci_low == pytest.approx(lo, **tol), cid
        assert ours.ci_high == pytest.approx(hi, **tol), cid


def test_hodges_lehmann_choice_is_checked() -> None:
    with pytest.raises(Exception, match="hodges_lehmann"):
        wilcoxon([0.1, 0.2, 0.3], hodges_lehmann="exact")
