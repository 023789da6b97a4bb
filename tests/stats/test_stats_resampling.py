"""Resampling kernels: exact enumeration vs brute force and scipy, Monte-Carlo accuracy,
determinism, batch-size invariance, pair reuse, bootstrap intervals vs scipy.stats.bootstrap."""
from __future__ import annotations

import itertools
import math
from fractions import Fraction
from types import SimpleNamespace

import numpy as np
import pytest
import scipy.stats as sps
from hypothesis import given, settings
from hypothesis import strategies as st

from ranger_eval.stats import (
    ALTERNATIVES,
    BootstrapIndices,
    SignFlips,
    paired_bootstrap,
    paired_bootstrap_many,
    paired_permutation_test,
    paired_permutation_test_many,
    permutation_test,
)


def _mean_diff(a, b, axis=-1):
    return np.mean(a - b, axis=axis)


def _brute_sign_flip(d: np.ndarray, alternative: str) -> float:
    """p over all 2^n sign vectors, enumerated with itertools (independent of our kernel)."""
    s_obs = float(np.sum(d))
    tol = 1e-9 * float(np.sum(np.abs(d)))
    hits = 0
    for signs in itertools.product((1.0, -1.0), repeat=d.size):
        s = float(np.dot(signs, d))
        if alternative == "two-sided":
            hits += abs(s) >= abs(s_obs) - tol
        elif alternative == "greater":
            hits += s >= s_obs - tol
        else:
            hits += s <= s_obs + tol
    return hits / 2.0**d.size


def _data(seed: int, n: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    if seed % 3 == 0:  # discrete differences: ties and zeros
        return rng.integers(-2, 3, n).astype(float)
    if seed % 3 == 1:  # correctness differences of two classifiers
        return (rng.random(n) < 0.6).astype(float) - (rng.random(n) < 0.5)
    return rng.normal(0.3, 1.0, n)


@pytest.mark.parametrize("n", [2, 3, 5, 8, 11])
@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("alternative", ALTERNATIVES)
def test_exact_sign_flip_equals_brute_force(n: int, seed: int, alternative: str) -> None:
    d = _data(seed * 10 + n, n)
    res = paired_permutation_test(d, alternative=alternative, n_resamples=2**n)
    assert res.method == "exact" and res.n_resamples == 2**n and res.seed is None
    assert res.pvalue == _brute_sign_flip(d, alternative)


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("alternative", ALTERNATIVES)
def test_exact_sign_flip_equals_scipy_exact(seed: int, alternative: str) -> None:
    rng = np.random.default_rng(seed)
    n = 9
    x = rng.normal(0.2, 1, n)
    y = rng.normal(0.0, 1, n)
    ours = paired_permutation_test(x, y, alternative=alternative, n_resamples=600)
    ref = sps.permutation_test(
        (x, y), _mean_diff, permutation_type="samples", alternative=alternative,
        n_resamples=10**6, vectorized=True,
    )
    assert ours.pvalue == pytest.approx(ref.pvalue, rel=1e-12)
    assert ours.statistic == pytest.approx(ref.statistic, rel=1e-12)


@pytest.mark.parametrize("n", [14, 15, 16])
@pytest.mark.parametrize("alternative", ALTERNATIVES)
def test_monte_carlo_within_three_standard_errors_of_exact(n: int, alternative: str) -> None:
    for seed in (2, 5, 8):  # continuous data, p spread over (0, 1)
        rng = np.random.default_rng(seed)
        d = rng.normal(rng.uniform(0.0, 0.6), 1.0, n)
        exact = paired_permutation_test(d, alternative=alternative, n_resamples=2**n).pvalue
        b = 4000
        mc = paired_permutation_test(d, alternative=alternative, n_resamples=b, seed=seed)
        assert mc.method == "monte-carlo"
        se = math.sqrt(exact * (1 - exact) / b)
        assert abs(mc.pvalue - exact) <= 3 * se + 1.0 / (b + 1)


def test_same_seed_same_pvalue_and_batch_invariance() -> None:
    rng = np.random.default_rng(11)
    x = rng.normal(0.05, 1, 3001)
    y = rng.normal(0.0, 1, 3001)
    ref = paired_permutation_test(x, y, n_resamples=3000, seed=42)
    for batch in (None, 1, 7, 512, 2999, 10**6):
        again = paired_permutation_test(x, y, n_resamples=3000, seed=42, batch=batch)
        assert again.pvalue == ref.pvalue
    other = paired_permutation_test(x, y, n_resamples=3000, seed=43)
    assert other.seed == 43 and 0 < other.pvalue <= 1
    unseeded = paired_permutation_test(x, y, n_resamples=500, seed=None)
    replay = paired_permutation_test(x, y, n_resamples=500, seed=unseeded.seed)
    assert replay.pvalue == unseeded.pvalue


def test_sign_matrix_rows_do_not_depend_on_batching() -> None:
    flips = SignFlips(130, 50, seed=3)
    whole = flips.bits(0, 50)
    parts = np.vstack([flips.bits(0, 1), flips.bits(1, 17), flips.bits(17, 50)])
    assert np.array_equal(whole, parts)
    assert set(np.unique(flips.signs(0, 50))) == {-1.0, 1.0}
    assert 0.45 < whole.mean() < 0.55
    exact = SignFlips(4, 16)
    assert exact.exact and exact.size == 16
    assert np.array_equal(exact.signs(0, 1), np.ones((1, 4)))
    assert {tuple(r) for r in exact.signs(0, 16)} == set(itertools.product((1.0, -1.0), repeat=4))


def test_many_pairs_share_one_matrix_and_match_single_calls() -> None:
    rng = np.random.default_rng(5)
    n = 400
    diffs = np.vstack([
        rng.normal(0.1, 1, n),
        (rng.random(n) < 0.55).astype(float) - (rng.random(n) < 0.5),
        np.round(rng.normal(0, 1, n), 1),
        np.zeros(n),
        rng.normal(-0.2, 0.3, n),
    ])
    for alternative in ALTERNATIVES:
        many = paired_permutation_test_many(diffs, alternative=alternative, n_resamples=2000, seed=9)
        flips = SignFlips(n, 2000, seed=9)
        reused = paired_permutation_test_many(diffs, alternative=alternative, flips=flips, batch=333)
        assert np.array_equal(many.pvalue, reused.pvalue)
        for i, row in enumerate(diffs):
            single = paired_permutation_test(row, alternative=alternative, n_resamples=2000, seed=9)
            assert single.pvalue == many.pvalue[i] == many[i].pvalue
            assert single.statistic == pytest.approx(many.statistic[i], rel=1e-12, abs=1e-15)
    assert many[3].pvalue == 1.0 and many[3].statistic == 0.0
    assert len(many) == 5


def test_pvalue_is_never_zero() -> None:
    d = np.linspace(1.0, 2.0, 500)  # every resample is less extreme than the observed sum
    res = paired_permutation_test(d, n_resamples=999)
    assert res.pvalue == pytest.approx(1 / 1000)
    assert paired_permutation_test(d, alternative="less", n_resamples=999).pvalue == 1.0


def _rational_sign_flip(decimals: list[str], alternative: str) -> float:
    """Exact p with rational arithmetic: theoretically tied sums are exactly tied."""
    d = [Fraction(v) for v in decimals]
    obs = sum(d)
    hits = 0
    for signs in itertools.product((1, -1), repeat=len(d)):
        s = sum(a * b for a, b in zip(signs, d, strict=True))
        hits += {"two-sided": abs(s) >= abs(obs), "greater": s >= obs, "less": s <= obs}[alternative]
    return hits / 2 ** len(d)


@pytest.mark.parametrize("decimals", [
    ["0.1", "0.2", "-0.3", "0.6", "0.7", "-0.4"],
    ["0.1", "0.7", "0.3", "-0.2", "0.6", "-0.9", "0.4"],
    ["0.3", "-0.1", "-0.2", "0.05", "0.15", "0.45"],
])
def test_floating_ties_count_as_extreme(decimals: list[str]) -> None:
    """0.1 + 0.2 != 0.3 in floating point: sums tied in exact arithmetic must all count."""
    d = np.array([float(v) for v in decimals])
    naive_differs = False
    for alt in ALTERNATIVES:
        exact = _rational_sign_flip(decimals, alt)
        assert paired_permutation_test(d, alternative=alt, n_resamples=2**d.size).pvalue == exact
        naive = np.mean([
            {"two-sided": abs(s) >= abs(d.sum()), "greater": s >= d.sum(), "less": s <= d.sum()}[alt]
            for s in (np.dot(signs, d) for signs in itertools.product((1.0, -1.0), repeat=d.size))
        ])
        naive_differs |= naive != exact
    assert naive_differs  # the case really exercises rounding ties


@settings(max_examples=50, deadline=None)
@given(
    st.lists(st.floats(-5, 5, allow_nan=False, allow_subnormal=False), min_size=2, max_size=40),
    st.integers(0, 2**32),
)
def test_direction_symmetry_and_range(values: list[float], seed: int) -> None:
    d = np.array(values)
    greater = paired_permutation_test(d, alternative="greater", n_resamples=300, seed=seed)
    less = paired_permutation_test(-d, alternative="less", n_resamples=300, seed=seed)
    two = paired_permutation_test(d, n_resamples=300, seed=seed)
    assert greater.pvalue == less.pvalue
    assert 0 < two.pvalue <= 1 and 0 < greater.pvalue <= 1
    assert paired_permutation_test(-d, n_resamples=300, seed=seed).pvalue == two.pvalue


# --------------------------------------------------------------------------- unpaired


def _brute_unpaired(x: np.ndarray, y: np.ndarray, alternative: str) -> float:
    pooled = np.concatenate([x, y])
    obs = x.mean() - y.mean()
    tol = 1e-9 * np.abs(pooled).sum()
    hits = total = 0
    for idx in itertools.combinations(range(pooled.size), x.size):
        mask = np.zeros(pooled.size, bool)
        mask[list(idx)] = True
        s = pooled[mask].mean() - pooled[~mask].mean()
        total += 1
        if alternative == "two-sided":
            hits += abs(s) >= abs(obs) - tol
        elif alternative == "greater":
            hits += s >= obs - tol
        else:
            hits += s <= obs + tol
    return hits / total


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("alternative", ALTERNATIVES)
def test_unpaired_exact_equals_brute_force(seed: int, alternative: str) -> None:
    rng = np.random.default_rng(seed)
    nx, ny = int(rng.integers(1, 7)), int(rng.integers(2, 7))
    x = np.round(rng.normal(0.5, 1, nx), 1 if seed % 2 else 8)
    y = np.round(rng.normal(0.0, 1, ny), 1 if seed % 2 else 8)
    res = permutation_test(x, y, alternative=alternative, n_resamples=10**4)
    assert res.method == "exact"
    assert res.pvalue == pytest.approx(_brute_unpaired(x, y, alternative), rel=1e-12)


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("alternative", ["greater", "less"])
def test_unpaired_exact_one_sided_equals_scipy(seed: int, alternative: str) -> None:
    rng = np.random.default_rng(100 + seed)
    x, y = rng.normal(0.4, 1, 6), rng.normal(0, 1, 7)
    ours = permutation_test(x, y, alternative=alternative, n_resamples=5000)
    ref = sps.permutation_test(
        (x, y), lambda a, b, axis: np.mean(a, axis=axis) - np.mean(b, axis=axis),
        permutation_type="independent", alternative=alternative, n_resamples=10**6,
        vectorized=True,
    )
    assert ours.pvalue == pytest.approx(ref.pvalue, rel=1e-12)


def test_unpaired_monte_carlo_close_to_exact_and_batch_invariant() -> None:
    rng = np.random.default_rng(3)
    x, y = rng.normal(0.6, 1, 8), rng.normal(0, 1, 9)
    exact = permutation_test(x, y, n_resamples=10**5).pvalue
    mc = permutation_test(x, y, n_resamples=4000, seed=1)
    assert mc.method == "monte-carlo"
    assert abs(mc.pvalue - exact) <= 3 * math.sqrt(exact * (1 - exact) / 4000) + 1 / 4001
    for batch in (1, 13, None):
        assert permutation_test(x, y, n_resamples=4000, seed=1, batch=batch).pvalue == mc.pvalue


# --------------------------------------------------------------------------- bootstrap


def test_bootstrap_indices_and_means() -> None:
    boot = BootstrapIndices(37, 500, seed=4)
    idx = boot.indices(0, 500)
    assert idx.min() >= 0 and idx.max() <= 36
    assert np.array_equal(idx, np.vstack([boot.indices(0, 123), boot.indices(123, 500)]))
    counts = boot.counts(0, 500)
    assert np.array_equal(counts, np.stack([np.bincount(r, minlength=37) for r in idx]))
    d = np.random.default_rng(0).normal(size=(3, 37))
    means = boot.means(d, batch=77)
    direct = np.stack([row[idx].mean(axis=1) for row in d], axis=1)
    np.testing.assert_allclose(means, direct, rtol=1e-12, atol=1e-14)
    # uniform index distribution: chi-square goodness of fit
    freq = np.bincount(idx.ravel(), minlength=37)
    assert sps.chisquare(freq).pvalue > 1e-4


@pytest.mark.parametrize("seed", range(20))
def test_bootstrap_interval_equals_scipy_on_same_distribution(seed: int) -> None:
    rng = np.random.default_rng(seed)
    n = int(rng.integers(8, 120))
    d = rng.gamma(rng.uniform(0.5, 3), 1.0, n) - 1.0  # skewed: BCa differs from percentile
    alternative = ALTERNATIVES[seed % 3]
    level = (0.95, 0.9)[seed % 2]
    theta_b = BootstrapIndices(n, 2000, seed).means(d[None, :])[:, 0]
    for ci_method, scipy_method in (("bca", "BCa"), ("percentile", "percentile")):
        ours = paired_bootstrap(d, alternative=alternative, n_resamples=2000, seed=seed,
                                level=level, ci_method=ci_method)
        ref = sps.bootstrap(
            (d,), np.mean, n_resamples=0, method=scipy_method, confidence_level=level,
            alternative=alternative, bootstrap_result=SimpleNamespace(bootstrap_distribution=theta_b),
        ).confidence_interval
        np.testing.assert_allclose([ours.ci_low, ours.ci_high], [ref.low, ref.high], rtol=1e-10)
        # shift-method p-value from the same distribution
        t = d.mean()
        hits = {"two-sided": np.abs(theta_b - t) >= abs(t), "greater": theta_b - t >= t,
                "less": theta_b - t <= t}[alternative]
        assert ours.pvalue == pytest.approx((1 + hits.sum()) / 2001, rel=1e-12)


def test_bootstrap_determinism_batches_and_many() -> None:
    rng = np.random.default_rng(8)
    diffs = rng.normal(0.05, 1, (4, 250))
    a = paired_bootstrap(diffs[0], n_resamples=1500, seed=2)
    b = paired_bootstrap(diffs[0], n_resamples=1500, seed=2, batch=11)
    assert (a.pvalue, a.ci_low, a.ci_high) == (b.pvalue, b.ci_low, b.ci_high)
    many = paired_bootstrap_many(diffs, n_resamples=1500, seed=2)
    assert many[0].pvalue == a.pvalue
    assert many.ci_low[0] == pytest.approx(a.ci_low, rel=1e-12)
    assert np.all(many.ci_low < many.estimate) and np.all(many.estimate < many.ci_high)


def test_bootstrap_identical_systems() -> None:
    x = np.linspace(0, 1, 30)
    res = paired_bootstrap(x, x.copy(), n_resamples=200)
    assert (res.statistic, res.pvalue, res.ci_low, res.ci_high) == (0.0, 1.0, 0.0, 0.0)
    shifted = paired_bootstrap(x + 0.5, x, n_resamples=200)
    assert shifted.ci_low == shifted.ci_high == pytest.approx(0.5)
    assert shifted.pvalue == pytest.approx(1 / 201)
