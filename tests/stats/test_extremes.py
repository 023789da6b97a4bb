"""Numeric extremes in the significance tests.

* Oracle: ``tests/oracles/extremes_oracle.json`` (``make_extremes_oracle.py``, mpmath at 60
  digits, p-values from the regularised incomplete beta function): paired t, Welch, d_z and d at
  scales 1e-300 … 1e300 and at the float64 limit, checked at 1e-9 relative for the one-pair
  functions, the vectorised kernels of :mod:`ranger_eval.stats.many` and ``rg.compare``; the
  cases whose exact mean difference is beyond float64 must raise naming the value.
* Properties (hypothesis): for random data and a random factor 10^k (k in −300…300), every test
  of ``compare``'s menu gives the unscaled p-value to 1e-12 relative and the scaled location;
  through ``rg.compare`` end to end and through ``ranger_eval.lazy`` (DuckDB) on Parquet.
"""
from __future__ import annotations

import json
import math
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import ranger_eval as rg
from ranger_eval import stats
from ranger_eval.errors import CompareError, StatsInputError
from ranger_eval.stats import many
from ranger_eval.stats._scale import SAFE_HI, SAFE_LO, exponent, scaled_difference, unscale

ORACLE = json.loads(
    (Path(__file__).resolve().parents[1] / "oracles" / "extremes_oracle.json").read_text())
CASES = ORACLE["cases"]
REL = 1e-9


def _ids(case: dict) -> str:
    return f"{case['dataset']}@{case['scale']}"


def _xy(case: dict) -> tuple[np.ndarray, np.ndarray]:
    return (np.array([float.fromhex(v) for v in case["x"]]),
            np.array([float.fromhex(v) for v in case["y"]]))


def _close(got: float, want: float | str, rel: float = REL) -> None:
    assert got == pytest.approx(float(want), rel=rel, abs=0.0), (got, want)


FITS = [c for c in CASES if not c["overflow"]]
BEYOND = [c for c in CASES if c["overflow"]]


def test_oracle_covers_every_scale_from_1e_minus_300_to_beyond_max() -> None:
    scales = {c["scale"] for c in CASES}
    assert {"1e-300", "1e-150", "1", "1e+150", "1e+300", "max", "beyond"} <= scales
    # at the float64 limit the squares of the differences overflow in plain float64
    for c in CASES:
        if c["scale"] == "max":
            x, y = _xy(c)
            with np.errstate(over="ignore"):
                assert not np.isfinite(((x - y) ** 2).sum() + (x ** 2).sum())


@pytest.mark.parametrize("case", FITS, ids=_ids)
def test_one_pair_tests_match_the_oracle(case: dict) -> None:
    x, y = _xy(case)
    t = stats.paired_ttest(x, y)
    o = case["paired_t"]
    for got, key in ((t.statistic, "statistic"), (t.pvalue, "pvalue"), (t.estimate, "estimate"),
                     (t.ci_low, "ci_low"), (t.ci_high, "ci_high")):
        _close(float(got), o[key])
    w = stats.welch_ttest(x, y)
    o = case["welch"]
    for got, key in ((w.statistic, "statistic"), (w.pvalue, "pvalue"), (w.estimate, "estimate"),
                     (w.ci_low, "ci_low"), (w.ci_high, "ci_high"), (w.df, "df")):
        _close(float(got), o[key])
    _close(stats.cohens_dz(x, y), case["cohens_dz"])
    _close(stats.cohens_d(x, y), case["cohens_d"])
    _close(stats.hedges_gz(x, y), case["cohens_dz"] * stats.hedges_j(x.size - 1))


@pytest.mark.parametrize("case", FITS, ids=_ids)
def test_vectorised_kernels_match_the_oracle(case: dict) -> None:
    x, y = _xy(case)
    values = np.stack([x, y])
    m = many.paired_moments(values, np.array([0]), np.array([1]))
    t = m.ttest()
    o = case["paired_t"]
    for got, key in ((t.statistic, "statistic"), (t.pvalue, "pvalue"), (t.estimate, "estimate"),
                     (t.ci_low, "ci_low"), (t.ci_high, "ci_high")):
        assert got is not None
        _close(float(got[0]), o[key])
    _close(float(m.location()[0]), o["estimate"])
    _close(float(m.cohens_dz()[0]), case["cohens_dz"])
    w = many.welch_ttest_many(x[None, :], y[None, :])
    o = case["welch"]
    for got, key in ((w.statistic, "statistic"), (w.pvalue, "pvalue"), (w.estimate, "estimate"),
                     (w.ci_low, "ci_low"), (w.ci_high, "ci_high")):
        assert got is not None
        _close(float(got[0]), o[key])
    _close(float(many.cohens_d_many(x[None, :], y[None, :])[0]), case["cohens_d"])


def _frame(x: np.ndarray, y: np.ndarray, dataset: str = "ds") -> pd.DataFrame:
    n = x.size
    return pd.DataFrame({
        "dataset": dataset, "metric": "score", "system": ["A"] * n + ["B"] * n,
        "item": [f"i{i}" for i in range(n)] * 2, "value": np.concatenate([x, y]),
    })


@pytest.mark.parametrize("case", FITS, ids=_ids)
@pytest.mark.parametrize("test", ["paired-t", "welch"])
def test_compare_matches_the_oracle(case: dict, test: str) -> None:
    x, y = _xy(case)
    row = rg.compare(_frame(x, y), test=test, correction="none").table.iloc[0]
    o = case["paired_t" if test == "paired-t" else "welch"]
    for col, key in (("statistic", "statistic"), ("pvalue", "pvalue"), ("diff", "estimate"),
                     ("ci_low", "ci_low"), ("ci_high", "ci_high")):
        _close(float(row[col]), o[key])
    _close(float(row["effect_size"]), case["cohens_dz" if test == "paired-t" else "cohens_d"])


@pytest.mark.parametrize("case", BEYOND, ids=_ids)
def test_a_mean_difference_beyond_float64_is_refused(case: dict) -> None:
    x, y = _xy(case)
    with pytest.raises(StatsInputError, match=r"mean difference .*beyond the float64 range"):
        stats.paired_ttest(x, y)
    with pytest.raises(StatsInputError, match=r"difference in means .*beyond the float64"):
        stats.welch_ttest(x, y)
    with pytest.raises(StatsInputError, match=r"mean difference \(row 0\)"):
        many.paired_moments(np.stack([x, y]), np.array([0]), np.array([1])).ttest()
    # the scale-free numbers are still right
    _close(stats.cohens_dz(x, y), case["cohens_dz"])
    _close(stats.cohens_d(x, y), case["cohens_d"])
    m = many.paired_moments(np.stack([x, y]), np.array([0]), np.array([1]))
    t = m.ttest(overflow="inf")
    _close(float(t.pvalue[0]), case["paired_t"]["pvalue"])
    assert math.isinf(float(t.estimate[0]))  # type: ignore[index]


@pytest.mark.parametrize("test", ["auto", "paired-t", "welch", "wilcoxon", "sign", "permutation",
                                  "bootstrap"])
def test_compare_names_dataset_metric_systems_and_value_when_beyond_float64(test: str) -> None:
    case = BEYOND[0]
    x, y = _xy(case)
    with pytest.raises(CompareError) as err:
        rg.compare(_frame(x, y, dataset="rte"), test=test, n_resamples=99)
    msg = str(err.value)
    assert "'rte'" in msg and "'score'" in msg and "'A'" in msg and "'B'" in msg, msg
    assert "e+308" in msg, msg
    assert "p-values must lie in" not in msg


def test_infinite_scores_are_refused_by_name() -> None:
    x = np.array([0.1, 0.2, np.inf, 0.4])
    for fn in (stats.paired_ttest, stats.welch_ttest, stats.wilcoxon, stats.sign_test):
        with pytest.raises(StatsInputError, match="non-finite"):
            fn(x, np.ones(4))
    with pytest.raises(rg.errors.RangerError, match="inf"):
        rg.compare(_frame(x, np.ones(4)))


# --------------------------------------------------------------------------- the helper
@given(st.floats(min_value=-1e308, max_value=1e308, allow_nan=False, allow_subnormal=False),
       st.floats(min_value=-1e308, max_value=1e308, allow_nan=False, allow_subnormal=False))
def test_scaled_difference_is_exact(a: float, b: float) -> None:
    x, y = np.array([a, 0.5 * a]), np.array([b, b])
    d, e = scaled_difference(x, y)
    top = float(np.abs(d).max())
    assert top == 0.0 or SAFE_LO <= top <= (2 * SAFE_HI if e == 0 else 2.0)
    exact = [math.fsum([p, -q]) if math.isfinite(p - q) else None for p, q in zip(x, y,
                                                                                   strict=True)]
    for di, ex in zip(d, exact, strict=True):
        if ex is not None and abs(ex) > 2.0 ** -1000 * max(abs(a), abs(b), 1e-300):
            assert math.ldexp(float(di), e) == pytest.approx(ex, rel=1e-15)


def test_safe_range_is_left_alone() -> None:
    v = np.array([SAFE_LO, -SAFE_HI, 0.5])
    assert exponent(v) == 0
    assert exponent(np.zeros(3)) == 0
    assert exponent(np.array([1e-300])) == int(np.frexp(1e-300)[1])
    assert unscale(0.75, 0, "x") == 0.75
    with pytest.raises(StatsInputError, match=r"upper bound is .*e\+308"):
        unscale(1.5, 1024, "upper bound")


# --------------------------------------------------------------------------- properties
def _sample(seed: int, n: int, shift: float) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    base = rng.normal(0.5, 0.2, n)
    return base + rng.normal(0.0, 0.1, n), base + shift + rng.normal(0.0, 0.1, n)


def _one_pair(test: str, x: np.ndarray, y: np.ndarray) -> tuple[float, float | None]:
    """(p-value, location) of ``test`` in its one-pair function."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if test == "paired-t":
            r = stats.paired_ttest(x, y)
        elif test == "welch":
            r = stats.welch_ttest(x, y)
        elif test == "wilcoxon":
            r = stats.wilcoxon(x, y)
        elif test == "sign":
            r = stats.sign_test(x, y)
        elif test == "mannwhitney":
            r = stats.mannwhitney(x, y)
        elif test == "permutation":
            r = stats.paired_permutation_test(x, y, n_resamples=499, seed=3)
        elif test == "unpaired-permutation":
            r = stats.permutation_test(x, y, n_resamples=499, seed=3)
        else:
            r = stats.paired_bootstrap(x, y, n_resamples=499, seed=3)
    loc = None if test == "mannwhitney" else r.estimate
    return r.pvalue, loc


MENU = ["paired-t", "welch", "wilcoxon", "sign", "mannwhitney", "permutation",
        "unpaired-permutation", "bootstrap"]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(3, 25), shift=st.floats(-0.3, 0.3),
       k=st.integers(-300, 300), test=st.sampled_from(MENU))
def test_pvalues_do_not_depend_on_the_unit(seed: int, n: int, shift: float, k: int,
                                           test: str) -> None:
    x, y = _sample(seed, n, shift)
    c = 10.0 ** k
    p0, loc0 = _one_pair(test, x, y)
    p1, loc1 = _one_pair(test, x * c, y * c)
    assert p1 == pytest.approx(p0, rel=1e-12, abs=0.0)
    if loc0 is not None and loc1 is not None and loc0 != 0.0:
        assert loc1 / c == pytest.approx(loc0, rel=1e-9)


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(3, 25), k=st.integers(-300, 300))
def test_effect_sizes_do_not_depend_on_the_unit(seed: int, n: int, k: int) -> None:
    x, y = _sample(seed, n, 0.1)
    c = 10.0 ** k
    assert stats.cohens_dz(x * c, y * c) == pytest.approx(stats.cohens_dz(x, y), rel=1e-12)
    assert stats.cohens_d(x * c, y * c) == pytest.approx(stats.cohens_d(x, y), rel=1e-12)
    assert stats.hedges_g(x * c, y * c) == pytest.approx(stats.hedges_g(x, y), rel=1e-12)


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), k=st.integers(-1000, 1000), n=st.integers(3, 30))
def test_power_of_two_scaling_is_bit_exact_for_rank_tests(seed: int, k: int, n: int) -> None:
    """Exact scaling keeps ties and zeros: rank tests give identical p-values even on data full
    of them (0/0.25/0.5/… grades)."""
    rng = np.random.default_rng(seed)
    x, y = rng.integers(0, 5, n) / 4.0, rng.integers(0, 5, n) / 4.0
    if np.all(x == y):
        y[0] = 1.0 - x[0] if x[0] != 0.5 else 0.0
    c = math.ldexp(1.0, k)
    for test in ("wilcoxon", "sign", "mannwhitney", "permutation"):
        assert _one_pair(test, x * c, y * c)[0] == _one_pair(test, x, y)[0], test


def _scores(seed: int, n: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    rows = []
    for ds in ("d1", "d2"):
        base = rng.normal(0.5, 0.1, n)
        for s, sh in (("A", 0.0), ("B", 0.03), ("C", -0.02)):
            v = base + sh + rng.normal(0.0, 0.05, n)
            rows.append(pd.DataFrame({"dataset": ds, "metric": "score", "system": s,
                                      "item": [f"i{i}" for i in range(n)], "value": v}))
    return pd.concat(rows, ignore_index=True)


COMPARE_MENU = [t for t in rg.comparison.TESTS if t not in rg.comparison.BINARY_ONLY]


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(4, 20), k=st.integers(-300, 300),
       test=st.sampled_from(COMPARE_MENU))
def test_compare_end_to_end_does_not_depend_on_the_unit(seed: int, n: int, k: int,
                                                        test: str) -> None:
    df = _scores(seed, n)
    c = 10.0 ** k
    scaled_df = df.assign(value=df["value"] * c)
    kw = dict(test=test, n_resamples=199, seed=1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t0 = rg.compare(df, **kw).table
        t1 = rg.compare(scaled_df, **kw).table
    np.testing.assert_allclose(t1["pvalue"], t0["pvalue"], rtol=1e-12, atol=0)
    np.testing.assert_allclose(t1["pvalue_adjusted"], t0["pvalue_adjusted"], rtol=1e-12, atol=0)
    np.testing.assert_allclose(t1["diff"] / c, t0["diff"], rtol=1e-9)
    np.testing.assert_allclose(t1["ci_low"] / c, t0["ci_low"], rtol=1e-9)
    np.testing.assert_allclose(t1["effect_size"], t0["effect_size"], rtol=1e-9)
    assert (t1["significant"] == t0["significant"]).all()


@pytest.mark.parametrize("k", [-300, -150, 150, 300])
@pytest.mark.parametrize("test", ["auto", "welch", "wilcoxon"])
def test_lazy_duckdb_equals_in_memory_at_extremes(tmp_path: Path, k: int, test: str) -> None:
    pytest.importorskip("duckdb", reason="ranger_eval.lazy needs duckdb (the 'large' extra; in 'test')")
    from ranger_eval import lazy

    df = _scores(7, 12)
    df.loc[df["dataset"] == "d1", "value"] *= 10.0 ** k  # one extreme group, one ordinary
    path = tmp_path / "scores.parquet"
    df.to_parquet(path)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = lazy.open_scores(path).compare(test=test).table
        want = rg.compare(df, test=test).table
        plain = rg.compare(_scores(7, 12), test=test).table
    for col in ("pvalue", "pvalue_adjusted", "diff", "ci_low", "ci_high", "effect_size"):
        np.testing.assert_allclose(got[col], want[col], rtol=1e-9, err_msg=col)
    np.testing.assert_allclose(got["pvalue"], plain["pvalue"], rtol=1e-12)


@pytest.mark.parametrize("k", [-300, 300])
def test_lazy_effect_sizes_equal_in_memory_at_extremes(tmp_path: Path, k: int) -> None:
    pytest.importorskip("duckdb", reason="ranger_eval.lazy needs duckdb (the 'large' extra; in 'test')")
    from ranger_eval import lazy

    df = _scores(11, 15)
    df["value"] *= 10.0 ** k
    path = tmp_path / "scores.parquet"
    df.to_parquet(path)
    got = lazy.open_scores(path).effect_sizes(treatment="B", control="A", measure="SMD")
    want = rg.effect_sizes(rg.Scores(df), treatment="B", control="A", measure="SMD")
    np.testing.assert_allclose(got.yi, want.yi, rtol=1e-9)
    np.testing.assert_allclose(got.vi, want.vi, rtol=1e-9)


# --------------------------------------------------------------------------- set-level metrics
REGRESSION = ["pearson", "spearman", "kendall", "mae", "rmse"]


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(4, 30), k=st.integers(-300, 300),
       name=st.sampled_from(REGRESSION))
def test_set_metrics_do_not_depend_on_the_unit(seed: int, n: int, k: int, name: str) -> None:
    from ranger_eval import setmetrics

    rng = np.random.default_rng(seed)
    labels = rng.normal(0.0, 1.0, n)
    preds = labels + rng.normal(0.0, 0.7, n)
    c = 10.0 ** k
    v0 = setmetrics.compute(name, labels, preds)
    v1 = setmetrics.compute(name, labels * c, preds * c)
    factor = c if name in ("mae", "rmse") else 1.0
    assert v1 / factor == pytest.approx(v0, rel=1e-12)


def test_set_metrics_near_the_float64_limit() -> None:
    from ranger_eval import setmetrics

    labels = np.array([1.0, -0.5, 0.25, 0.8, -0.9]) * 1.7e308
    preds = np.array([0.9, -0.4, 0.3, 0.7, -1.0]) * 1.7e308
    base = (labels / 1.7e308, preds / 1.7e308)
    assert setmetrics.compute("pearson", labels, preds) == pytest.approx(
        setmetrics.compute("pearson", *base), rel=1e-12)
    assert setmetrics.compute("rmse", labels, preds) == pytest.approx(
        setmetrics.compute("rmse", *base) * 1.7e308, rel=1e-12)
    lab, pre = np.array([1.0, 0.05, -0.1, 0.02, 0.0]), np.array([-0.9, 0.0, 0.1, 0.0, 0.03])
    far = setmetrics.compute("mae", lab * 1.7e308, pre * 1.7e308)  # |1.7e308 + 1.53e308| > max
    assert math.isfinite(far)
    assert far == pytest.approx(np.mean(np.abs(lab - pre)) * 1.7e308, rel=1e-12)


@pytest.mark.parametrize("name", ["mae", "pearson"])
@pytest.mark.parametrize("test", ["permutation", "bootstrap"])
def test_compare_set_metric_does_not_depend_on_the_unit(name: str, test: str) -> None:
    rng = np.random.default_rng(5)
    n = 12
    labels = rng.normal(0.0, 1.0, n)
    case = {"labels": list(labels), "treatment": list(labels + rng.normal(0, 0.3, n)),
            "control": list(labels + rng.normal(0.2, 0.6, n))}
    from tests.helpers.setmetric_cases import tidy_case

    df = tidy_case(case)
    kw = dict(test=test, metric_fn=name, n_resamples=499, seed=4)
    t0 = rg.compare(df, **kw).table
    for c in (1e-300, 1e300):
        t1 = rg.compare(df.assign(label=df["label"] * c, prediction=df["prediction"] * c),
                        **kw).table
        np.testing.assert_allclose(t1["pvalue"], t0["pvalue"], rtol=1e-12)
        factor = c if name == "mae" else 1.0
        np.testing.assert_allclose(t1["diff"] / factor, t0["diff"], rtol=1e-9)
        np.testing.assert_allclose(t1["ci_low"] / factor, t0["ci_low"], rtol=1e-9)
        np.testing.assert_allclose(t1["effect_size"], t0["effect_size"], rtol=1e-9)


@pytest.mark.parametrize("k", [-300, -150, 150, 300])
def test_rank_intervals_do_not_depend_on_the_unit(k: int) -> None:
    df = _scores(9, 20)
    c = 10.0 ** k
    r0 = rg.rank_intervals(df, dataset="d1")
    r1 = rg.rank_intervals(df.assign(value=df["value"] * c), dataset="d1")
    assert r1.systems == r0.systems
    np.testing.assert_array_equal(r1.rank_low, r0.rank_low)
    np.testing.assert_array_equal(r1.rank_high, r0.rank_high)
    assert r1.critical_value == pytest.approx(r0.critical_value, rel=1e-9)
    assert 0.0 < r0.critical_value < np.inf


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(2, 30), k=st.integers(-300, 300),
       shape=st.sampled_from(["random", "identical", "constant"]))
def test_vectorised_kernels_equal_the_one_pair_tests_at_any_scale(seed: int, n: int, k: int,
                                                                  shape: str) -> None:
    """The all-pairs kernels rescale the same rows by the same power of two as the one-pair
    tests: paired t and d_z bit for bit, Welch and d to rounding (as for ordinary scores)."""
    rng = np.random.default_rng(seed)
    v = rng.normal(0.5, 0.2, (3, n)) * 10.0 ** k
    if shape == "identical":
        v[2] = v[0]
    elif shape == "constant":
        v[1] = v[0] + 0.25 * 10.0 ** k
    ia, ib = np.array([0, 0, 1]), np.array([1, 2, 2])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        m = many.paired_moments(v, ia, ib)
        t = m.ttest()
        w = many.welch_ttest_many(v[ia], v[ib]) if n >= 2 else None
        cd = many.cohens_d_many(v[ia], v[ib])
        for j, (a, b) in enumerate(zip(ia, ib, strict=True)):
            r = stats.paired_ttest(v[a], v[b])
            assert (r.statistic, r.pvalue, r.estimate, r.ci_low, r.ci_high) == (
                t.statistic[j], t.pvalue[j], t.estimate[j], t.ci_low[j], t.ci_high[j])  # type: ignore[index]
            assert stats.cohens_dz(v[a], v[b]) == m.cohens_dz()[j]
            assert w is not None
            rw = stats.welch_ttest(v[a], v[b])
            assert w.pvalue[j] == pytest.approx(rw.pvalue, rel=1e-12)
            assert w.estimate[j] == pytest.approx(rw.estimate, rel=1e-12)  # type: ignore[index]
            assert cd[j] == pytest.approx(stats.cohens_d(v[a], v[b]), rel=1e-12)


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2**16), k=st.integers(-300, 300))
def test_seed_sd_does_not_depend_on_the_unit(seed: int, k: int) -> None:
    """The SD over seeds that compare reports (``seed_sd_a``/``seed_sd_b``, descriptive) scales
    with the scores: at 1e-300 its squares used to underflow to 0, at 1e300 overflow to inf."""
    rng = np.random.default_rng(seed)
    rows = [{"dataset": "d", "system": s, "item": str(i), "seed": str(r),
             "value": float(rng.normal(shift + 0.2 * r, 1.0))}
            for s, shift in (("a", 0.0), ("b", 0.5)) for r in range(3) for i in range(12)]
    df = pd.DataFrame(rows)
    base = rg.compare(rg.Scores(df)).table
    c = 10.0 ** k
    scaled = df.assign(value=df["value"] * c)
    got = rg.compare(rg.Scores(scaled)).table
    for col in ("seed_sd_a", "seed_sd_b"):
        assert np.isfinite(got[col]).all() and (got[col] > 0).all()
        np.testing.assert_allclose(got[col] / c, base[col], rtol=1e-9)
    np.testing.assert_allclose(got["pvalue"], base["pvalue"], rtol=1e-9)
