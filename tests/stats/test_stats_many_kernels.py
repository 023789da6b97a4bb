"""Kernels of the comparison engine: paired moments equal scipy's paired t test and
numpy's d_z bit for bit; the sign-flip counts of many pairs from the systems' product equal the
pairwise float64 counts, on continuous, tied and binary data."""
from __future__ import annotations

import itertools
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats as sps

from ranger_eval import stats
from ranger_eval.stats import many, resampling
from ranger_eval.stats.resampling import SignFlips

ALTS = ("two-sided", "greater", "less")


def _all_pairs(k: int) -> tuple[np.ndarray, np.ndarray]:
    ia, ib = zip(*itertools.combinations(range(k), 2), strict=True)
    return np.array(ia), np.array(ib)


def _scipy_t(d: np.ndarray, alternative: str, level: float) -> tuple[np.ndarray, ...]:
    res = sps.ttest_1samp(d, 0.0, axis=1, alternative=alternative)
    ci = res.confidence_interval(confidence_level=level)
    return res.statistic, res.pvalue, ci.low, ci.high


# --------------------------------------------------------------------------- paired moments
@pytest.mark.parametrize("n", [2, 3, 37, 9000])
@pytest.mark.parametrize("alternative", ALTS)
def test_paired_moments_equal_scipy_ttest_1samp_and_numpy_std_exactly(n, alternative):
    rng = np.random.default_rng(n)
    values = rng.normal(0.5, 0.2, (7, n)) + rng.normal(0, 0.05, (7, 1))
    for ia, ib in (_all_pairs(7), (np.array([6, 0, 3, 3, 1]), np.array([2, 5, 0, 4, 1]))):
        d = values[ia] - values[ib]
        m = many.paired_moments(values, ia, ib)
        r = m.ttest(alternative, level=0.9)
        ok = ~np.all(d == d[:, :1], axis=1)  # rows scipy tests (pair (1, 1) is constant 0)
        stat, p, lo, hi = _scipy_t(d[ok], alternative, 0.9)
        np.testing.assert_array_equal(r.statistic[ok], stat)
        np.testing.assert_array_equal(r.pvalue[ok], p)
        np.testing.assert_array_equal(r.ci_low[ok], lo)
        np.testing.assert_array_equal(r.ci_high[ok], hi)
        np.testing.assert_array_equal(m.mean, d.mean(axis=1))
        for j in range(d.shape[0]):
            assert m.cohens_dz()[j] == stats.cohens_dz(d[j])
            one = stats.paired_ttest(d[j], alternative=alternative, level=0.9)
            assert (r.statistic[j], r.pvalue[j], r.ci_low[j], r.ci_high[j], r.estimate[j]) == (
                one.statistic, one.pvalue, one.ci_low, one.ci_high, one.estimate)


def test_concatenated_moments_of_different_lengths_test_in_one_call():
    rng = np.random.default_rng(3)
    parts = [rng.normal(size=(4, n)) for n in (5, 40, 12)]
    ms = [many.paired_moments(v, *_all_pairs(4)) for v in parts]
    joint = many.PairedMoments.concat(ms).ttest("greater")
    singles = [m.ttest("greater") for m in ms]
    np.testing.assert_array_equal(joint.pvalue, np.concatenate([s.pvalue for s in singles]))
    np.testing.assert_array_equal(joint.df, [4.0] * 6 + [39.0] * 6 + [11.0] * 6)
    assert len(many.PairedMoments.concat([])) == 0


def test_constant_and_nearly_constant_rows_follow_scipy():
    d = np.array([[0.3] * 6, [0.0] * 6, [1.0, 1.0, 1.0, 1.0, 1.0, 1.0 + 2e-16 * 4],
                  [0.1, 0.5, 0.2, 0.9, 0.4, 0.3]])
    m = many.paired_moments(d)
    assert m.constant.tolist() == [True, True, False, False]
    with warnings.catch_warnings(record=True) as ours:
        warnings.simplefilter("always")
        r = m.ttest()
    with warnings.catch_warnings(record=True) as theirs:
        warnings.simplefilter("always")
        stat, p, lo, hi = _scipy_t(d[2:], "two-sided", 0.95)
    assert sorted({str(w.message) for w in ours}) == sorted({str(w.message) for w in theirs})
    assert len(ours) == 1
    np.testing.assert_array_equal(r.pvalue[2:], p)
    assert (r.statistic[0], r.pvalue[0], r.ci_low[0], r.ci_high[0]) == (np.inf, 0.0, 0.3, 0.3)
    assert (r.statistic[1], r.pvalue[1]) == (0.0, 1.0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        m.ttest(warn=False)
        m.warn_cancellation(np.array([0, 1, 3]))  # rows without cancellation: silent


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(2, 60), st.integers(2, 5),
       st.sampled_from(ALTS), st.sampled_from(["normal", "ties", "binary"]))
def test_paired_ttest_many_property(seed, n, k, alternative, kind):
    rng = np.random.default_rng(seed)
    if kind == "normal":
        v = rng.normal(size=(k, n))
    elif kind == "ties":
        v = rng.integers(0, 4, (k, n)) / 10.0
    else:
        v = rng.integers(0, 2, (k, n)).astype(float)
    ia, ib = _all_pairs(k)
    d = v[ia] - v[ib]
    with warnings.catch_warnings():  # nearly equal differences: scipy's precision warning
        warnings.simplefilter("ignore")
        r = many.paired_ttest_many(d, alternative=alternative)
        dz = many.cohens_dz_many(d)
        for j in range(d.shape[0]):
            one = stats.paired_ttest(d[j], alternative=alternative)
            assert (r.statistic[j], r.pvalue[j], r.ci_low[j], r.ci_high[j]) == (
                one.statistic, one.pvalue, one.ci_low, one.ci_high)
            assert dz[j] == stats.cohens_dz(d[j])


def test_paired_moments_bad_input():
    with pytest.raises(stats.StatsInputError, match="row index"):
        many.paired_moments(np.ones((2, 3)), [0], [2])
    with pytest.raises(stats.StatsInputError, match="same length"):
        many.paired_moments(np.ones((2, 3)), [0, 1], [1])
    with pytest.raises(stats.StatsInputError, match="non-finite"):
        many.paired_moments(np.array([[1.0, np.nan], [1.0, 2.0]]), [0], [1])


# --------------------------------------------------------------------------- sign-flip counts
def _data(kind: str, rng: np.random.Generator, k: int, n: int) -> np.ndarray:
    if kind == "normal":
        return rng.normal(0.5, 0.2, (k, n)) + np.linspace(0, 0.05, k)[:, None]
    if kind == "binary":
        return (rng.uniform(size=(k, n)) < 0.6).astype(float)
    if kind == "p10":  # precision@10-like: many theoretically tied resampled sums
        return rng.integers(0, 11, (k, n)) / 10.0
    base = rng.integers(0, 5, n) / 10.0  # systems equal on most items
    v = np.tile(base, (k, 1))
    v[:, rng.uniform(size=n) < 0.2] += rng.integers(0, 3, (k, 1)) / 10.0
    return v


@pytest.mark.parametrize("kind", ["normal", "binary", "p10", "near"])
@pytest.mark.parametrize("alternative", ALTS)
@pytest.mark.parametrize("n,b,batch", [(6, 100, None), (11, 5000, 700), (300, 999, 128),
                                       (2000, 300, None)])
def test_count_pairs_equals_the_pairwise_float64_counts(kind, alternative, n, b, batch):
    rng = np.random.default_rng(n + b)
    v = _data(kind, rng, 5, n)
    ia, ib = _all_pairs(5)
    ia, ib = np.r_[ia, 3], np.r_[ib, 3]  # and a pair of a system with itself (all d = 0)
    flips = SignFlips(n, b, 17)
    new = flips.count_pairs(v, ia, ib, alternative, batch=batch)
    old = flips.count_extreme(v[ia] - v[ib], alternative, batch=batch)
    np.testing.assert_array_equal(new, old)
    np.testing.assert_array_equal(flips.pvalues(new), flips.test(v[ia] - v[ib], alternative,
                                                                 batch).pvalue)


def test_count_pairs_rechecks_the_resamples_inside_the_rounding_band(monkeypatch):
    """Tied P@10-like sums land within the rounding bound of the threshold: those pairs are
    recomputed as the pairwise engine does, and the counts still agree."""
    calls: list[int] = []
    exact = SignFlips._exact_hits

    def spy(*args: object) -> np.ndarray:
        calls.append(1)
        return exact(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(SignFlips, "_exact_hits", staticmethod(spy))
    rng = np.random.default_rng(8)
    v = rng.integers(0, 11, (4, 60)) / 10.0
    ia, ib = _all_pairs(4)
    flips = SignFlips(60, 2000, 1)
    np.testing.assert_array_equal(flips.count_pairs(v, ia, ib),
                                  flips.count_extreme(v[ia] - v[ib]))
    assert calls
    calls.clear()
    b = (v > 0.5).astype(float)  # binary: every sum is exact, no recomputation needed
    np.testing.assert_array_equal(flips.count_pairs(b, ia, ib),
                                  flips.count_extreme(b[ia] - b[ib]))


def test_binary_scale_finds_the_finest_binary_digit():
    v = np.array([[0.0, 1.0, 3.0], [0.5, 0.25, 2.0], [0.1, 0.0, 0.0], [0.0, 0.0, 0.0]])
    k = resampling._binary_scale(v)
    assert k[:2].tolist() == [0.0, 2.0] and k[2] > 50 and k[3] == 0.0


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(2, 40), st.integers(2, 4),
       st.sampled_from(ALTS), st.sampled_from(["normal", "binary", "p10", "near"]),
       st.integers(1, 3000))
def test_count_pairs_property(seed, n, k, alternative, kind, b):
    rng = np.random.default_rng(seed)
    v = _data(kind, rng, k, n)
    ia, ib = _all_pairs(k)
    flips = SignFlips(n, b, seed % 1000)
    np.testing.assert_array_equal(flips.count_pairs(v, ia, ib, alternative),
                                  flips.count_extreme(v[ia] - v[ib], alternative))


def test_count_pairs_bad_input_and_progress():
    flips = SignFlips(5, 100, 0)
    with pytest.raises(stats.StatsInputError, match="items per row"):
        flips.count_pairs(np.ones((2, 4)), [0], [1])
    with pytest.raises(stats.StatsInputError, match="row index"):
        flips.count_pairs(np.ones((2, 5)), [0], [3])
    assert flips.count_pairs(np.ones((2, 5)), np.array([], int), np.array([], int)).size == 0
    seen: list[int] = []
    v = np.random.default_rng(0).normal(size=(3, 30))
    SignFlips(30, 1000, 0).count_pairs(v, [0, 1], [2, 2], batch=400, advance=seen.append)
    assert seen == [400, 400, 200]


# --------------------------------------------------------------------------- average ranks
@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 30), st.integers(1, 9),
       st.sampled_from(["continuous", "ties", "binary", "nan"]))
def test_average_ranks_equal_scipy_rankdata(seed, b, k, kind):
    rng = np.random.default_rng(seed)
    values = {"continuous": lambda: rng.normal(size=(b, k)),
              "ties": lambda: rng.integers(0, 3, (b, k)).astype(float) / 3,
              "binary": lambda: rng.integers(0, 2, (b, k)).astype(float),
              "nan": lambda: np.where(rng.random((b, k)) < 0.1, np.nan, rng.normal(size=(b, k)))}[kind]()
    got = many.average_ranks(values)
    np.testing.assert_array_equal(got, sps.rankdata(values, axis=1, method="average"))
    np.testing.assert_array_equal(many.average_ranks(values[0]), sps.rankdata(values[0]))


def test_average_ranks_shapes():
    assert many.average_ranks(np.empty((0, 3))).shape == (0, 3)
    np.testing.assert_array_equal(many.average_ranks([3.0, 1.0, 3.0]), [2.5, 1.0, 2.5])
    with pytest.raises(stats.StatsInputError, match="vector or a matrix"):
        many.average_ranks(np.zeros((2, 2, 2)))
