"""Set-level metrics: values, vectorised resampling and errors, against scikit-learn, scipy and
sacrebleu (tests/oracles/setmetrics_oracle.json, plus live checks when the libraries are here)."""
from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ranger_eval import setmetrics as sm
from ranger_eval.errors import CompareError, EffectSizeError, RangerError
from ranger_eval.stats.resampling import BootstrapIndices, SignFlips

ORACLE = json.loads((Path(__file__).parent / "oracles" / "setmetrics_oracle.json").read_text())
CASES = [(c["name"], m) for c in ORACLE["cases"] for m in c["metrics"]]
BY_NAME = {c["name"]: c for c in ORACLE["cases"]}
RTOL = 1e-10


TEXT = ("bleu", "chrf", "chrf++", "ter")
LIKELIHOOD = ("perplexity", "weighted_perplexity", "bits_per_byte", "upper_median")


def _needs(name: str) -> None:
    if name in TEXT:
        pytest.importorskip("sacrebleu", reason="sacrebleu is the oracle here (the 'test' extra)")


def test_oracle_covers_every_named_metric():
    assert {m for _, m in CASES} == set(sm.NAMES)


@pytest.mark.parametrize(("case", "name"), CASES)
def test_values_and_bootstrap_variance_match_the_reference_libraries(case, name):
    _needs(name)
    c = BY_NAME[case]
    entry = c["metrics"][name]
    metric = sm.metric(name, pos_label=c["pos_label"])
    enc = sm.encode(metric, c["labels"], [c["treatment"], c["control"]])
    vals = enc.values()
    np.testing.assert_allclose(vals, [entry["treatment"], entry["control"]], rtol=RTOL, atol=1e-13)
    boot, used = sm.bootstrap_values(enc, ORACLE["n_resamples"], ORACLE["seed"])
    assert used == ORACLE["seed"]
    diff = boot[:, 0] - boot[:, 1]
    assert diff.var(ddof=1) == pytest.approx(entry["boot_vi"], rel=RTOL)
    assert diff.mean() == pytest.approx(entry["boot_diff_mean"], rel=RTOL, abs=1e-13)


@pytest.mark.parametrize(("case", "name"), [(c, m) for c, m in CASES if "perm_p" in BY_NAME[c]["metrics"][m]])
def test_exact_permutation_distribution_matches_brute_force_enumeration(case, name):
    _needs(name)
    c = BY_NAME[case]
    enc = sm.encode(sm.metric(name), c["labels"], [c["treatment"], c["control"]])
    stats, exact, seed = sm.permutation_statistics(enc, [[(0, 1)]], n_resamples=10_000, seed=0)
    assert exact and seed is None and stats.shape == (2 ** enc.n, 1)
    obs = enc.value(0) - enc.value(1)
    assert stats[0, 0] == obs  # row 0 is the observed arrangement
    np.testing.assert_allclose(np.sort(stats[:, 0]), np.sort(-stats[:, 0]), atol=1e-12)  # symmetric
    p = float(np.mean(np.abs(stats[:, 0]) >= abs(obs) - sm.tolerance(enc.n, 1.0)))
    assert p == BY_NAME[case]["metrics"][name]["perm_p"]


def test_compute_one_system_and_calling_a_metric():
    c = BY_NAME["binary"]
    want = c["metrics"]["mcc"]["treatment"]
    assert sm.compute("mcc", c["labels"], c["treatment"]) == pytest.approx(want, rel=RTOL)
    assert sm.metric("mcc")(c["labels"], c["treatment"]) == pytest.approx(want, rel=RTOL)
    assert sm.compute(np.median, None, [3.0, 1.0, 2.0]) == 2.0


# --------------------------------------------------------------------------- live references
def _random_case(rng, kind, n):
    if kind == "classification":
        k = int(rng.integers(2, 6))
        y = rng.integers(0, k, n)
        p = np.where(rng.random(n) < 0.6, y, rng.integers(0, k, n))
        return y, p
    y = np.round(rng.normal(size=n), 1)
    return y, np.round(y + rng.normal(0, 0.7, n), 1)


@pytest.mark.parametrize("seed", range(6))
def test_named_metrics_match_sklearn_and_scipy_on_random_data(seed):
    skm = pytest.importorskip("sklearn.metrics", reason="scikit-learn is the oracle here (the 'test' extra)")
    from scipy import stats

    rng = np.random.default_rng(seed)
    n = int(rng.integers(5, 120))
    y, p = _random_case(rng, "classification", n)
    assert sm.compute("accuracy", y, p) == pytest.approx(skm.accuracy_score(y, p), rel=1e-12)
    assert sm.compute("macro_f1", y, p) == pytest.approx(
        skm.f1_score(y, p, average="macro", zero_division=0), rel=1e-12)
    assert sm.compute("mcc", y, p) == pytest.approx(skm.matthews_corrcoef(y, p), rel=1e-12, abs=1e-15)
    yb, pb = (y > 0).astype(int), (p > 0).astype(int)
    assert sm.compute("f1", yb, pb) == pytest.approx(skm.f1_score(yb, pb, zero_division=0), rel=1e-12)
    x, z = _random_case(rng, "regression", n)
    assert sm.compute("pearson", x, z) == pytest.approx(stats.pearsonr(x, z).statistic, rel=1e-12)
    assert sm.compute("spearman", x, z) == pytest.approx(stats.spearmanr(x, z).statistic, rel=1e-12)
    assert sm.compute("kendall", x, z) == pytest.approx(stats.kendalltau(x, z).statistic, rel=1e-12)
    assert sm.compute("mae", x, z) == pytest.approx(skm.mean_absolute_error(x, z), rel=1e-12)
    assert sm.compute("rmse", x, z) == pytest.approx(skm.root_mean_squared_error(x, z), rel=1e-12)


def _random_text(rng, n):
    words = np.array(["the", "cat", "sat", "on", "a", "mat", "dog", "runs", "Hello,", "x."])
    def one():
        return " ".join(words[rng.integers(0, words.size, int(rng.integers(0, 7)))])
    return (np.array([one() for _ in range(n)], dtype=object),
            np.array([one() for _ in range(n)], dtype=object))


def _random_likelihood(rng, n):
    counts = rng.integers(0, 40, n).astype(float)  # a document may have 0 words
    return counts, -rng.gamma(2.0, 1.0, n) * (counts + 1) / 10


def _random_data(rng, name, n):
    kind = sm.metric(name).kind
    if kind == "text":
        return _random_text(rng, n)
    if kind == "likelihood":
        return _random_likelihood(rng, n)
    return _random_case(rng, "classification" if kind == "classification" else "regression", n)


@pytest.mark.parametrize("name", sm.NAMES)
def test_vectorised_rows_equal_one_call_per_resample(name):
    """evaluate() on a batch of bootstrap and permutation rows == compute() row by row."""
    _needs(name)
    rng = np.random.default_rng(5)
    n = 30
    y, t = _random_data(rng, name, n)
    _, c = _random_data(rng, name, n)
    if name == "f1":
        y, t, c = (y > 0).astype(int), (t > 0).astype(int), (c > 0).astype(int)
    enc = sm.encode(sm.metric(name), y, [t, c])
    idx = BootstrapIndices(n, 25, 3).indices(0, 25)
    rows = enc.evaluate(idx, idx + n)
    want = [sm.compute(name, y[r], c[r]) for r in idx]
    np.testing.assert_allclose(rows, want, rtol=1e-12, atol=1e-15)
    swap = SignFlips(n, 25, 4).bits(0, 25).astype(bool)
    perm, _, _ = sm.permutation_statistics(enc, [[(0, 1)]], n_resamples=25, seed=4)
    ref = [sm.compute(name, y, np.where(s, c, t)) - sm.compute(name, y, np.where(s, t, c))
           for s in swap]
    np.testing.assert_allclose(perm[:, 0], ref, rtol=1e-12, atol=1e-14)


def test_kendall_of_many_items_loops_over_scipy():
    stats = pytest.importorskip("scipy.stats")
    rng = np.random.default_rng(8)
    n = 300
    y = np.round(rng.normal(size=n), 1)
    t, c = y + rng.normal(0, 0.5, n), np.round(y + rng.normal(0, 1.0, n), 1)
    enc = sm.encode(sm.metric("kendall"), y, [t, c])
    idx = BootstrapIndices(n, 4, 1).indices(0, 4)
    np.testing.assert_allclose(enc.evaluate(idx, idx + n),
                               [stats.kendalltau(y[r], c[r]).statistic for r in idx], rtol=1e-12)
    small = sm.encode(sm.metric("kendall"), y[:40], [c[:40]])
    idx = BootstrapIndices(40, 4, 1).indices(0, 4)
    np.testing.assert_allclose(small.evaluate(idx, idx),
                               [stats.kendalltau(y[:40][r], c[:40][r]).statistic for r in idx],
                               rtol=1e-12)


def test_bootstrap_is_deterministic_and_batch_independent():
    c = BY_NAME["multiclass"]
    enc = sm.encode(sm.metric("mcc"), c["labels"], [c["treatment"], c["control"]])
    a, _ = sm.bootstrap_values(enc, 300, 11)
    b, _ = sm.bootstrap_values(enc, 300, 11, batch=7)
    d, _ = sm.bootstrap_values(enc, 300, 12)
    np.testing.assert_array_equal(a, b)
    assert not np.array_equal(a, d)
    _, used = sm.bootstrap_values(enc, 5, None)
    assert isinstance(used, int)


def test_seed_pairs_are_swapped_together():
    """A contrast of two seed pairs averages the per-seed differences; one swap matrix for both."""
    rng = np.random.default_rng(2)
    n = 6
    y = rng.integers(0, 3, n)
    runs = [rng.integers(0, 3, n) for _ in range(4)]  # t_0, t_1, c_0, c_1
    enc = sm.encode(sm.metric("macro_f1"), y, runs)
    stats, exact, _ = sm.permutation_statistics(enc, [[(0, 2), (1, 3)]], n_resamples=64)
    assert exact
    for k, s in enumerate(SignFlips(n, 64, 0).bits(0, 64).astype(bool)):
        want = np.mean([
            sm.compute("macro_f1", y, np.where(s, runs[b], runs[a]))
            - sm.compute("macro_f1", y, np.where(s, runs[a], runs[b]))
            for a, b in ((0, 2), (1, 3))
        ])
        assert stats[k, 0] == pytest.approx(want, rel=1e-12, abs=1e-15)


# --------------------------------------------------------------------------- callables
def test_callables_by_signature():
    skm = pytest.importorskip("sklearn.metrics", reason="scikit-learn is the oracle here (the 'test' extra)")
    c = BY_NAME["multiclass"]
    m = sm.get_metric(skm.matthews_corrcoef)
    assert m.inputs == "label-prediction" and m.name == "matthews_corrcoef"
    enc = sm.encode(m, c["labels"], [c["treatment"], c["control"]])
    boot, _ = sm.bootstrap_values(enc, ORACLE["n_resamples"], ORACLE["seed"])
    assert (boot[:, 0] - boot[:, 1]).var(ddof=1) == pytest.approx(
        c["metrics"]["mcc"]["boot_vi"], rel=RTOL)
    med = sm.get_metric(np.median)
    assert med.inputs == "values" and med.name == "median"
    assert sm.get_metric(lambda y, p: 0.0).inputs == "label-prediction"
    wrapped = sm.custom(lambda *a: 1.0, inputs="values", name="one", higher_is_better=False)
    assert wrapped.name == "one" and not wrapped.higher_is_better
    assert sm.compute(wrapped, None, [1.0, 2.0]) == 1.0


def test_callable_errors():
    with pytest.raises(EffectSizeError, match="3 required positional"):
        sm.get_metric(lambda a, b, c: 0.0)
    with pytest.raises(EffectSizeError, match="not a number"):
        sm.compute(lambda y, p: "high", [1, 0], [1, 1])
    with pytest.raises(CompareError, match="metric name .* or a callable"):
        sm.get_metric(3, error=CompareError)
    with pytest.raises(EffectSizeError, match="inputs must be one of"):
        sm.custom(np.mean, inputs="rows")


# --------------------------------------------------------------------------- bad input
def test_unknown_metric_suggests_a_name():
    with pytest.raises(EffectSizeError, match=r"unknown metric_fn 'mmc'.*did you mean 'mcc'"):
        sm.metric("mmc")
    with pytest.raises(CompareError):
        sm.get_metric("F1-score", error=CompareError)


def test_binary_f1_needs_two_classes_and_the_positive_class():
    with pytest.raises(EffectSizeError, match=r"'f1' is binary but .* 3 classes.*'macro_f1'"):
        sm.compute("f1", [0, 1, 2], [0, 1, 1])
    with pytest.raises(EffectSizeError, match=r"positive class 1 of metric 'f1' is not among the classes \('no', 'yes'\).*pos_label"):
        sm.compute("f1", ["yes", "no"], ["yes", "yes"])
    assert sm.compute(sm.metric("f1", pos_label="yes"), ["yes", "no"], ["yes", "yes"]) == pytest.approx(2 / 3)
    assert sm.compute("f1", [0, 0], [0, 0]) == 0.0  # positive class absent: 0 (sklearn's zero_division)
    assert sm.compute("f1", ["0", "1"], ["1", "1"]) == pytest.approx(2 / 3)  # "1" read as text


def test_regression_metrics_need_numbers_and_undefined_is_nan():
    with pytest.raises(EffectSizeError, match=r"numeric predictions, got 'high'"):
        sm.compute("pearson", [1.0, 2.0, 3.0], [1.0, "high", 2.0])
    assert np.isnan(sm.compute("pearson", [1.0, 2.0, 3.0], [2.0, 2.0, 2.0]))
    assert np.isnan(sm.compute("kendall", [1.0, 1.0], [2.0, 3.0]))


def test_missing_and_misshapen_input():
    with pytest.raises(EffectSizeError, match="predictions at item position 1 is missing"):
        sm.compute("mcc", [1, 0], [1, None])
    with pytest.raises(EffectSizeError, match="needs the items' labels"):
        sm.compute("mcc", None, [1, 0])
    with pytest.raises(EffectSizeError, match="3 labels for 2 predictions"):
        sm.compute("mcc", [1, 0, 1], [1, 0])
    with pytest.raises(EffectSizeError, match="must be 1-D"):
        sm.compute("mcc", [[1, 0]], [[1, 0]])


@pytest.mark.parametrize("name", TEXT)
def test_text_metrics_without_sacrebleu_are_a_clear_error(monkeypatch, name):
    monkeypatch.setitem(sys.modules, "sacrebleu", None)
    with pytest.raises(RangerError, match=f"'{re.escape(name)}' needs the sacrebleu package"):
        sm.metric(name)


def test_bleu_needs_text():
    pytest.importorskip("sacrebleu", reason="sacrebleu is the oracle here (the 'test' extra)")
    with pytest.raises(EffectSizeError, match="'bleu' needs text predictions, got 3"):
        sm.compute("bleu", ["a b", "c d"], np.array(["a b", 3], dtype=object))


@pytest.mark.parametrize("name", ["chrf", "ter"])
def test_chrf_ter_need_text(name):
    pytest.importorskip("sacrebleu", reason="sacrebleu is the oracle here (the 'test' extra)")
    with pytest.raises(EffectSizeError, match=f"'{name}' needs text labels \\(references\\), got 3"):
        sm.compute(name, np.array(["a b", 3], dtype=object), ["a b", "c"])


# --------------------------------------------------------------------------- lm-eval likelihoods
def test_text_metric_directions():
    """ter is an error rate (lower is better); chrf and chrf++ are scores (higher is better)."""
    _needs("ter")
    assert not sm.metric("ter").higher_is_better
    assert sm.metric("chrf").higher_is_better and sm.metric("chrf++").higher_is_better


def test_likelihood_metrics_directions_inputs_and_bad_counts():
    assert sm.metric("perplexity").inputs == "values"
    assert sm.metric("weighted_perplexity").inputs == "label-prediction"
    for name in LIKELIHOOD[:3]:
        assert not sm.metric(name).higher_is_better
    assert sm.metric("upper_median").inputs == "values"
    assert sm.compute("upper_median", None, [4.0, 1.0, 3.0, 2.0]) == 3.0  # lm-eval: sorted[n//2]
    # a perplexity ignores labels: the values are the log-likelihoods
    assert sm.compute("perplexity", None, [-1.0, -3.0]) == pytest.approx(np.exp(2.0), rel=1e-15)
    with pytest.raises(EffectSizeError, match=r"label \(word or byte count\) at item position 1 "
                                              r"is -2.0; counts must be >= 0"):
        sm.compute("weighted_perplexity", [3, -2], [-1.0, -2.0])
    with pytest.raises(EffectSizeError, match="needs the items' word or byte counts"):
        sm.compute("bits_per_byte", None, [-1.0])
    with pytest.raises(EffectSizeError, match=r"numeric predictions \(log-likelihoods\), got 'x'"):
        sm.compute("bits_per_byte", [1, 2], [-1.0, "x"])
    with pytest.raises(EffectSizeError, match="2 labels for 3 predictions"):
        sm.compute("weighted_perplexity", [1, 2], [-1.0, -2.0, -3.0])
    # no words at all: undefined (NaN; the calling layer names it), as lm-eval's 0/0
    assert np.isnan(sm.compute("weighted_perplexity", [0, 0], [0.0, 0.0]))


def test_likelihood_metrics_beyond_float64_are_inf_not_wrong():
    """exp(-mean ll) beyond float64 is inf (reported as undefined by name), never a wrap."""
    assert sm.compute("perplexity", None, [-1000.0, -1000.0]) == np.inf
    assert sm.compute("weighted_perplexity", [1.0, 1.0], [-1e308, -1e308]) == np.inf
    assert sm.compute("bits_per_byte", [1e300, 1e300], [-1e300, -3e300]) == pytest.approx(
        2.0 / np.log(2.0), rel=1e-15)


def _permuted(draw, arrays):
    order = draw(st.permutations(range(len(arrays[0]))))
    return [np.asarray(a, dtype=object if a.dtype == object else a.dtype)[list(order)]
            for a in arrays]


@st.composite
def _lm_eval_cases(draw):
    name = draw(st.sampled_from(sorted(LIKELIHOOD + TEXT[1:])))
    n = draw(st.integers(2, 25))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    y, t = _random_data(rng, name, n)
    _, c = _random_data(rng, name, n)
    return name, y, t, c, _permuted(draw, [y, t, c])


@settings(max_examples=60, deadline=None)
@given(_lm_eval_cases())
def test_lm_eval_set_metrics_do_not_depend_on_the_item_order(case):
    """The new set metrics are functions of the set of items: the same value, bootstrap
    variance and permutation p-value of the paired difference whatever the items' order
    (the resamples draw different items, so the bootstrap variance is compared loosely)."""
    name, y, t, c, (py, pt, pc) = case
    _needs(name)
    a = sm.encode(sm.metric(name), y, [t, c])
    b = sm.encode(sm.metric(name), py, [pt, pc])
    va, vb = a.values(), b.values()
    finite = np.isfinite(va)
    assert np.array_equal(finite, np.isfinite(vb))
    np.testing.assert_allclose(vb[finite], va[finite], rtol=1e-12, atol=1e-12)
    if finite.all() and len(y) <= 10:  # exact permutation: the same distribution
        pa, ea, _ = sm.permutation_statistics(a, [[(0, 1)]], n_resamples=4096)
        pb, eb, _ = sm.permutation_statistics(b, [[(0, 1)]], n_resamples=4096)
        assert ea and eb
        np.testing.assert_allclose(np.sort(pb[:, 0]), np.sort(pa[:, 0]), rtol=1e-9, atol=1e-9)
