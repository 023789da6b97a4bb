"""The vectorised comparison engine: vectorised kernels equal the one-pair tests bit for bit,
Westfall–Young max-T against multtest (exact enumeration) and a plain-loop Algorithm 2.8,
rank intervals for disjoint items and the lazy-scores hook."""
from __future__ import annotations

import itertools
import json
import math
import sys
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ranger_eval import stats
from ranger_eval.comparison import CompareError, Comparison, compare, rank_intervals
from ranger_eval.scores import Scores, ScoresError
from ranger_eval.stats import many
from ranger_eval.stats.resampling import SignFlips, westfall_young_counts

ORACLE = json.loads(
    (Path(__file__).parents[1] / "oracles" / "westfall_young_multtest.json").read_text()
)
COLS = ["dataset", "system", "metric", "item", "value"]


def _tidy(values: np.ndarray, dataset: str = "d", metric: str = "m") -> pd.DataFrame:
    rows = [(dataset, f"S{j}", metric, f"i{i:03d}", float(v))
            for j, row in enumerate(values) for i, v in enumerate(row)]
    return pd.DataFrame(rows, columns=COLS)


def _rng_matrix(seed: int, k: int = 5, n: int = 40) -> np.ndarray:
    rng = np.random.default_rng(seed)
    base = rng.normal(0.5, 0.2, n)
    return np.stack([base + 0.05 * j + rng.normal(0, 0.1, n) for j in range(k)])


# --------------------------------------------------------------------------- vectorised kernels
def _rows_with_degenerate(seed: int, n: int = 30) -> np.ndarray:
    rng = np.random.default_rng(seed)
    d = rng.normal(0.1, 1.0, (6, n))
    d[1] = 0.0  # identical systems
    d[2] = 0.25  # constant non-zero difference
    return d


@pytest.mark.parametrize("alternative", ["two-sided", "greater", "less"])
def test_paired_and_welch_many_equal_the_one_pair_tests_exactly(alternative):
    d = _rows_with_degenerate(1)
    r = many.paired_ttest_many(d, alternative=alternative, level=0.9)
    rng = np.random.default_rng(2)
    x = rng.normal(0, 1, (4, 25))
    y = rng.normal(0.3, 2, (4, 31))
    x[3], y[3] = 1.0, 2.0  # two constants
    w = many.welch_ttest_many(x, y, alternative=alternative, level=0.9)
    for i in range(d.shape[0]):
        one = stats.paired_ttest(d[i], alternative=alternative, level=0.9)
        assert (r.statistic[i], r.pvalue[i], r.ci_low[i], r.ci_high[i], r.estimate[i]) == (
            one.statistic, one.pvalue, one.ci_low, one.ci_high, one.estimate)
        assert many.cohens_dz_many(d)[i] == stats.cohens_dz(d[i])
    for i in range(x.shape[0]):
        one = stats.welch_ttest(x[i], y[i], alternative=alternative, level=0.9)
        assert (w.statistic[i], w.pvalue[i], w.ci_low[i], w.ci_high[i]) == (
            one.statistic, one.pvalue, one.ci_low, one.ci_high)
        assert many.cohens_d_many(x, y)[i] == stats.cohens_d(x[i], y[i])


@pytest.mark.parametrize("alternative", ["two-sided", "greater", "less"])
def test_mcnemar_and_proportions_many_equal_the_one_pair_tests_exactly(alternative):
    rng = np.random.default_rng(3)
    x = (rng.uniform(size=(5, 40)) < 0.6).astype(float)
    y = (rng.uniform(size=(5, 40)) < 0.5).astype(float)
    y[1] = x[1]  # no discordant pairs
    x[4], y[4] = 1.0, 1.0  # pooled variance zero
    mc = many.mcnemar_many(x, y, alternative=alternative)
    ca, cb = x.sum(axis=1), y.sum(axis=1)
    nn = np.full(5, 40)
    z = many.proportions_ztest_many(ca, nn, cb, nn, alternative=alternative)
    for i in range(5):
        one = stats.mcnemar(x[i], y[i], alternative=alternative)
        assert (mc.statistic[i], mc.pvalue[i]) == (one.statistic, one.pvalue)
        zo = stats.proportions_ztest([ca[i], cb[i]], [40, 40], alternative=alternative)
        assert (z.statistic[i], z.pvalue[i]) == (zo.statistic, zo.pvalue)
    with pytest.raises(stats.StatsInputError, match="binary"):
        many.mcnemar_many(x + 0.5, y)


def test_compare_rows_equal_one_pair_scipy_tests_on_partial_overlap():
    values = _rng_matrix(4, k=3, n=30)
    df = _tidy(values)
    df = df[~((df["system"] == "S1") & df["item"].isin(["i003", "i010"]))]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        frame = compare(df, missing="intersect", correction="none").to_frame()
    keep = np.ones(30, dtype=bool)
    keep[[3, 10]] = False
    for row in frame.itertuples():
        a, b = int(row.system_a[1]), int(row.system_b[1])
        both = keep if 1 in (a, b) else np.ones(30, dtype=bool)
        one = stats.paired_ttest(values[a][both], values[b][both])
        assert (row.statistic, row.pvalue, row.ci_low, row.ci_high) == (
            one.statistic, one.pvalue, one.ci_low, one.ci_high)
        assert row.effect_size == stats.cohens_dz(values[a][both], values[b][both])


# --------------------------------------------------------------------------- resampling
def test_permutation_and_bootstrap_share_one_matrix_and_repeat_with_the_seed():
    values = _rng_matrix(5)
    df = _tidy(values)
    pairs = list(itertools.combinations(range(values.shape[0]), 2))
    diffs = np.stack([values[a] - values[b] for a, b in pairs])
    for test, ref in (
        ("permutation", stats.paired_permutation_test_many(diffs, n_resamples=999, seed=3)),
        ("bootstrap", stats.paired_bootstrap_many(diffs, n_resamples=999, seed=3)),
    ):
        one = compare(df, test=test, n_resamples=999, seed=3).to_frame()
        again = compare(df, test=test, n_resamples=999, seed=3).to_frame()
        np.testing.assert_array_equal(one["pvalue"], ref.pvalue)
        pd.testing.assert_frame_equal(one, again)


def test_progress_callback_sees_every_resample():
    d = _rng_matrix(6)[:3] - _rng_matrix(6)[3]
    seen: list[int] = []
    flips = SignFlips(d.shape[1], 1000, 0)
    plain = flips.test(d)
    with_bar = flips.test(d, batch=300, advance=seen.append)
    assert seen == [300, 300, 300, 100]
    np.testing.assert_array_equal(plain.pvalue, with_bar.pvalue)
    steps: list[int] = []
    stats.paired_bootstrap_many(d, n_resamples=500, batch=200, advance=steps.append)
    assert steps == [200, 200, 100]


# --------------------------------------------------------------------------- Westfall–Young
@pytest.mark.parametrize("case", ORACLE["cases"], ids=lambda c: c["name"])
def test_westfall_young_equals_multtest_maxT_exact_enumeration(case):
    values = np.asarray(case["values"], dtype=float)
    pairs = np.asarray(case["pairs"], dtype=int)
    d = np.stack([values[a] - values[b] for a, b in pairs])
    n = d.shape[1]
    res = stats.paired_permutation_test_many(d, n_resamples=2**n, correction="westfall-young")
    assert res.method == "exact"
    np.testing.assert_allclose(res.pvalue, case["rawp"], rtol=1e-12, atol=0)
    np.testing.assert_allclose(res.pvalue_adjusted, case["adjp"], rtol=1e-12, atol=0)
    # through compare: the same numbers in pvalue_adjusted, systems in the oracle's order
    comp = compare(_tidy(values), test="permutation", correction="westfall-young",
                   n_resamples=2**n)
    frame = comp.to_frame()
    np.testing.assert_allclose(frame["pvalue_adjusted"], case["adjp"], rtol=1e-12, atol=0)
    assert "corr:westfall-young" in str(comp.signature)


def _plain_algorithm_2_8(d: np.ndarray, signs: np.ndarray, alternative: str) -> np.ndarray:
    """Westfall & Young (1993) Algorithm 2.8 with loops, on a given sign matrix (Monte Carlo)."""
    m, n = d.shape
    q = np.sqrt((d**2).sum(axis=1))
    tol = max(100.0, 4.0 * n) * np.finfo(float).eps * np.abs(d).sum(axis=1)

    def stat(s: float, j: int) -> float:
        return {"two-sided": abs(s), "greater": s, "less": -s}[alternative] / q[j]

    obs = [stat(float(d[j].sum()), j) for j in range(m)]
    thr = [obs[j] - tol[j] / q[j] for j in range(m)]
    order = sorted(range(m), key=lambda j: -obs[j])
    count = [0] * m
    for b in range(signs.shape[0]):
        z = [stat(float(signs[b] @ d[j]), j) for j in range(m)]
        running = -math.inf
        for pos in range(m - 1, -1, -1):  # successive maxima from the least significant up
            running = max(running, z[order[pos]])
            count[pos] += running >= thr[order[pos]]
    p = [(1 + c) / (1 + signs.shape[0]) for c in count]
    for pos in range(1, m):  # step-down monotonicity
        p[pos] = max(p[pos], p[pos - 1])
    out = np.empty(m)
    out[order] = p
    return out


@pytest.mark.parametrize("alternative", ["two-sided", "greater", "less"])
def test_westfall_young_equals_plain_loop_on_the_same_sign_matrix(alternative):
    values = _rng_matrix(7, k=4, n=50)
    d = np.stack([values[a] - values[b] for a, b in itertools.combinations(range(4), 2)])
    flips = SignFlips(50, 400, 9)
    res = flips.test(d, alternative, correction="westfall-young")
    want = _plain_algorithm_2_8(d, flips.signs(0, 400), alternative)
    np.testing.assert_allclose(res.pvalue_adjusted, want, rtol=1e-12, atol=0)
    raw, adj = westfall_young_counts(d, flips, alternative)
    np.testing.assert_allclose((1 + adj) / 401, res.pvalue_adjusted, rtol=1e-12)


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10_000), k=st.integers(2, 6), n=st.integers(9, 40),  # 2^n > B: Monte Carlo
       alternative=st.sampled_from(["two-sided", "greater", "less"]))
def test_westfall_young_invariants(seed, k, n, alternative):
    rng = np.random.default_rng(seed)
    values = rng.normal(0, 1, (k, n)) + rng.uniform(0, 1, (k, 1))
    d = np.stack([values[a] - values[b] for a, b in itertools.combinations(range(k), 2)])
    res = stats.paired_permutation_test_many(d, n_resamples=300, seed=seed,
                                             alternative=alternative, correction="westfall-young")
    adj, raw = res.pvalue_adjusted, res.pvalue
    assert (adj >= raw).all()
    sign = {"two-sided": 1.0, "greater": 1.0, "less": -1.0}[alternative]
    q = np.sqrt((d**2).sum(axis=1))
    z = sign * d.sum(axis=1) / q
    z = np.abs(z) if alternative == "two-sided" else z
    order = np.argsort(-z, kind="stable")
    ordered = adj[order]
    assert (np.diff(ordered) >= 0).all()  # step-down: monotone in the observed statistic
    # Bonferroni (union) bound of each step: #{max_(k >= j) z*_k >= t_j} <= sum_k #{z*_k >= t_j}
    flips = SignFlips(n, 300, seed)
    zs = sign * (flips.signs(0, flips.size) @ d.T) / q
    zs = np.abs(zs) if alternative == "two-sided" else zs
    tol = max(100.0, 4.0 * n) * np.finfo(float).eps * np.abs(d).sum(axis=1) / q
    union = [sum(int((zs[:, order[k]] >= z[order[j]] - tol[order[j]]).sum())
                 for k in range(j, len(order))) for j in range(len(order))]
    bound = np.maximum.accumulate(np.minimum(1.0, (1.0 + np.array(union)) / 301.0))
    assert (ordered <= np.maximum(bound, ordered[0]) + 1e-12).all()
    single_step = (1.0 + (zs.max(axis=1)[:, None] >= (z - tol)[None, :]).sum(axis=0)) / 301.0
    assert (adj <= np.maximum(single_step, raw) + 1e-12).all()  # step-down <= single-step


def test_westfall_young_needs_paired_permutation_tests():
    df = _tidy(_rng_matrix(8, k=3))
    with pytest.raises(CompareError, match="needs test='permutation'"):
        compare(df, correction="westfall-young")
    with pytest.raises(CompareError, match="family='dataset-metric'"):
        compare(df, test="permutation", correction="westfall-young", family="all")
    unpaired = df.assign(item=df["system"] + df["item"])
    with pytest.raises(CompareError, match="paired permutation test on the same items"):
        compare(unpaired, test="permutation", correction="westfall-young")
    with pytest.raises(stats.StatsInputError, match="joint resampling null"):
        stats.adjust_pvalues([0.01, 0.2], correction="westfall-young")
    with pytest.raises(CompareError, match="unknown correction"):
        compare(df, correction="westfall-yung")


# --------------------------------------------------------------------------- disjoint items
def test_rank_intervals_of_disjoint_items_bootstrap_each_system_independently():
    rng = np.random.default_rng(12)
    rows = [("d", s, "m", f"{s}{i}", float(rng.normal(mu, 0.2)))
            for s, mu, n in (("A", 0.0, 30), ("B", 1.0, 25), ("C", 1.05, 40)) for i in range(n)]
    df = pd.DataFrame(rows, columns=COLS)
    ri = rank_intervals(df, n_resamples=300, seed=1)
    assert not ri.paired and "independent" in ri.method
    assert ri.systems[-1] == "A" and ri.rank_low[-1] == ri.rank_high[-1] == 3
    assert [v.size for v in ri.values] == [40, 25, 30] or [v.size for v in ri.values] == [
        25, 40, 30]
    b = ri.boot_means[:, list(ri.systems).index("B")]
    want = stats.BootstrapIndices(25, 300, 1 + 1).means(
        df[df["system"] == "B"].sort_values("item")["value"].to_numpy()[None, :])[:, 0]
    np.testing.assert_array_equal(b, want)
    comp = compare(df)
    assert not comp.table["paired"].any()
    again = rank_intervals(comp, n_resamples=300, seed=1)
    np.testing.assert_array_equal(again.boot_means, ri.boot_means)
    from ranger_eval.plots import comparison_boxplots

    comparison_boxplots(ri)


def test_rank_intervals_partial_overlap_is_a_clear_error():
    df = _tidy(_rng_matrix(13, k=3, n=10))
    df = df[~((df["system"] == "S2") & (df["item"] == "i004"))]
    with pytest.raises(ScoresError, match=r"differ .*'S2': 9"):
        rank_intervals(df, n_resamples=50)


# --------------------------------------------------------------------------- lazy hook
def test_lazy_scores_hook_receives_every_argument():
    seen: dict[str, object] = {}
    sentinel = object()

    class Lazy:
        def __ranger_compare__(self, **kwargs: object) -> object:
            seen.update(kwargs)
            return sentinel

    out = compare(Lazy(), test="permutation", seed=5, by=None)  # type: ignore[arg-type]
    assert out is sentinel
    assert seen["test"] == "permutation" and seen["seed"] == 5
    assert set(seen) == {"systems", "pairs", "baseline", "test", "alternative", "correction",
                         "family", "level", "n_resamples", "seed", "paired", "missing",
                         "datasets", "metrics", "by", "metric_fn", "seeds", "hypothesis",
                         "margin", "cluster_se"}
    real = compare(Scores(_tidy(_rng_matrix(14, k=2))))
    assert isinstance(real, Comparison)


# --------------------------------------------------------------------------- speed paths
def _multi_group_frame(seed: int = 21) -> pd.DataFrame:
    """Two datasets × two metrics with different numbers of items; on d2/m2 system S2 misses
    two items (an incomplete group whose pairs have different item sets)."""
    rng = np.random.default_rng(seed)
    frames = []
    for dataset, metric, n in (("d1", "m1", 30), ("d1", "m2", 30), ("d2", "m1", 45), ("d2", "m2", 12)):
        frames.append(_tidy(_rng_matrix(int(rng.integers(1 << 30)), k=4, n=n), dataset, metric))
    df = pd.concat(frames, ignore_index=True)
    drop = (df["dataset"] == "d2") & (df["metric"] == "m2") & (df["system"] == "S2") & df[
        "item"].isin(["i001", "i007"])
    return df[~drop].reset_index(drop=True)


def test_permutation_tests_of_all_groups_share_the_sign_matrix_of_their_item_count():
    df = _multi_group_frame()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # items dropped on d2/m2
        table = compare(df, test="permutation", n_resamples=777, seed=5, correction="none",
                        missing="intersect").to_frame()
    for (dataset, metric), rows in table.groupby(["dataset", "metric"], sort=False):
        sub = df[(df["dataset"] == dataset) & (df["metric"] == metric)]
        wide = sub.pivot(index="item", columns="system", values="value")
        for r in rows.itertuples():
            both = wide[[r.system_a, r.system_b]].dropna()
            d = (both[r.system_a] - both[r.system_b]).to_numpy()
            ref = stats.paired_permutation_test_many(d[None, :], n_resamples=777, seed=5)
            assert r.pvalue == ref.pvalue[0]
            assert r.statistic == ref.statistic[0]
            one = stats.paired_ttest(both[r.system_a], both[r.system_b])
            assert (r.ci_low, r.ci_high) == (one.ci_low, one.ci_high)


@pytest.mark.parametrize("seeds", [False, True])
def test_block_and_row_layouts_give_the_same_comparison(monkeypatch, seeds):
    """Tables in blocks (runs of one dataset, metric and system) are encoded block by block;
    shuffled tables row by row; both give identical comparisons."""
    import ranger_eval.pairing as pairing_module

    compare_module = sys.modules["ranger_eval.comparison.compare"]

    df = _multi_group_frame(3)
    if seeds:
        df = pd.concat([df.assign(seed="0"), df.assign(seed="1", value=df["value"] * 0.9)],
                       ignore_index=True)
    shuffled = df.sample(frac=1.0, random_state=4).reset_index(drop=True)
    kwargs = dict(test="auto", missing="intersect", n_resamples=300)
    out = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for name, frame, min_rows in (("blocks", df, 1), ("rows", df, 10**9),
                                      ("shuffled", shuffled, 1), ("shuffled rows", shuffled, 10**9)):
            monkeypatch.setattr(pairing_module, "MIN_BLOCK_ROWS", min_rows)
            calls: list[bool] = []
            real = pairing_module.block_layout

            def spy(frame_: pd.DataFrame, real=real, calls=calls) -> object:
                layout = real(frame_)
                calls.append(layout is not None)
                return layout

            monkeypatch.setattr(compare_module, "block_layout", spy)
            c = compare(frame, **kwargs)
            out[name] = (c.to_frame(), c.means, calls[0])
    assert out["blocks"][2] and out["shuffled"][2] and not out["rows"][2]
    for a, b in (("blocks", "rows"), ("shuffled", "shuffled rows")):
        pd.testing.assert_frame_equal(out[a][0], out[b][0])
        pd.testing.assert_frame_equal(out[a][1], out[b][1])


def test_factorize_of_arrow_strings_equals_pandas():
    from ranger_eval.pairing import factorize

    ids = pd.Series(["b", "a", "é", "Z", "a", "b", "a10", "a9"] * 3, dtype="str")
    runs = pd.Series(["x"] * 40 + ["y"] * 40 + ["x"] * 40, dtype="str")
    for col in (ids, runs, ids.astype(object)):
        for sort in (False, True):
            codes, uniques = factorize(col, sort=sort)
            ref_codes, ref_uniques = pd.factorize(col, sort=sort)
            np.testing.assert_array_equal(codes, ref_codes)
            assert list(uniques) == list(ref_uniques)


def test_compare_takes_only_the_scores_positionally():
    """Everything after the data is keyword-only (one calling convention)."""
    df = pd.DataFrame({"dataset": "d", "system": ["A"] * 3 + ["B"] * 3,
                       "item": ["1", "2", "3"] * 2, "value": [0.1, 0.5, 0.3, 0.2, 0.4, 0.9]})
    with pytest.raises(TypeError, match="positional"):
        compare(df, ["A", "B"])  # type: ignore[misc]
    assert compare(df, systems=["A", "B"]).table["system_a"].tolist() == ["A"]


@pytest.mark.parametrize("alternative", ["two-sided", "greater", "less"])
def test_wilcoxon_rows_carry_the_hodges_lehmann_interval(alternative):
    """compare(test="wilcoxon") reports the test's own interval: the Hodges–Lehmann interval of
    stats.wilcoxon (R's wilcox.test(conf.int=TRUE), tested against R in tests/stats), bit for
    bit, not a paired-t interval beside a rank-test p-value."""
    rng = np.random.default_rng(3)
    items = [f"q{i}" for i in range(30)]
    base = rng.normal(size=30)
    values = {"A": base + 0.4 + rng.normal(0, 0.5, 30), "B": base, "C": base + 0.1 * rng.normal(size=30)}
    df = pd.DataFrame([{"dataset": "d", "system": s, "item": it, "value": float(v[i])}
                       for s, v in values.items() for i, it in enumerate(items)])
    comp = compare(df, test="wilcoxon", alternative=alternative)
    assert set(comp.table["ci_method"]) == {"Hodges-Lehmann"}
    for r in comp.table.itertuples():
        one = stats.wilcoxon(values[r.system_a], values[r.system_b], alternative=alternative)
        assert (r.ci_low, r.ci_high) == (one.ci_low, one.ci_high)
        assert r.pvalue == one.pvalue
