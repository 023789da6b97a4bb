"""Cluster-robust tests (ranger_eval.stats.clustered) against R sandwich / clust.bin.pair,
statsmodels and Inspect AI (tests/oracles/clustered_oracles.{R,py} and their JSON), and their
reduction to the unclustered tests when every cluster holds one item."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ranger_eval.stats import (
    StatsInputError,
    paired_bootstrap_many,
    paired_permutation_test_many,
    paired_ttest,
)
from ranger_eval.stats import clustered as cl

ORACLES = Path(__file__).resolve().parents[1] / "oracles"
R_CASES = json.loads((ORACLES / "clustered_oracles.json").read_text())["cases"]
PY_CASES = json.loads((ORACLES / "clustered_oracles_py.json").read_text())["cases"]
TOL = 1e-10


def _close(a: float, b: float, rel: float = TOL) -> None:
    assert a == pytest.approx(b, rel=rel, abs=1e-14), (a, b)


@pytest.mark.parametrize("case", [c for c in R_CASES + PY_CASES if c["kind"] == "paired"],
                         ids=lambda c: f"n{len(c['d'])}")
def test_paired_cr1_matches_sandwich_and_statsmodels(case: dict) -> None:
    r = case["r"]
    res = cl.clustered_paired_ttest(case["d"], clusters=case["cluster"])
    _close(res.estimate, r["estimate"])
    _close(res.se, r["se"])
    _close(res.statistic, r["statistic"])
    _close(res.pvalue, r["p_two"])
    assert res.df == r["df"] and res.n_clusters == r["df"] + 1
    _close(res.ci_low, r["ci_low"])
    _close(res.ci_high, r["ci_high"])
    if "p_greater" in r:  # the R oracle: one-sided p-values and intervals
        g = cl.clustered_paired_ttest(case["d"], clusters=case["cluster"], alternative="greater")
        sm = cl.clustered_paired_ttest(case["d"], clusters=case["cluster"], alternative="less")
        _close(g.pvalue, r["p_greater"])
        _close(sm.pvalue, r["p_less"])
        _close(g.ci_low, r["ci_low_greater"])
        _close(sm.ci_high, r["ci_high_less"])
        assert g.ci_high == np.inf and sm.ci_low == -np.inf


@pytest.mark.parametrize("case", [c for c in R_CASES if c["kind"] == "paired"],
                         ids=lambda c: f"n{len(c['d'])}")
def test_paired_cr2_bell_mccaffrey_matches_clubsandwich(case: dict) -> None:
    r = case["r"]
    res = cl.clustered_paired_ttest(case["d"], clusters=case["cluster"], vcov="CR2")
    _close(res.se, r["cr2_se"])
    _close(res.df, r["cr2_df"])
    _close(res.pvalue, r["cr2_p"])
    assert res.method == "CR2"


def test_many_pairs_equal_one_pair() -> None:
    case = R_CASES[0]
    d = np.asarray(case["d"])
    rows = np.stack([d, -d, d * 3.0 + 1.0])
    many = cl.clustered_ttest_many(rows, case["cluster"])
    for j, row in enumerate(rows):
        one = cl.clustered_paired_ttest(row, clusters=case["cluster"])
        _close(many.pvalue[j], one.pvalue, 1e-13)
        _close(many.se[j], one.se, 1e-13)


@pytest.mark.parametrize("case", [c for c in R_CASES + PY_CASES if c["kind"] == "unpaired"],
                         ids=lambda c: f"n{len(c['x'])}+{len(c['y'])}")
def test_unpaired_cr1_matches_vcovcl_regression(case: dict) -> None:
    r = case["r"]
    res = cl.clustered_unpaired_ttest(case["x"], case["y"], clusters_x=case["cluster_x"],
                                      clusters_y=case["cluster_y"])
    for key in ("estimate", "se", "statistic", "ci_low", "ci_high"):
        _close(getattr(res, key), r[key])
    _close(res.pvalue, r["p_two"])
    assert res.df == r["df"]
    if "p_greater" in r:
        _close(cl.clustered_unpaired_ttest(
            case["x"], case["y"], clusters_x=case["cluster_x"], clusters_y=case["cluster_y"],
            alternative="greater").pvalue, r["p_greater"])


@pytest.mark.parametrize("case", [c for c in R_CASES if c["kind"] == "mcnemar"],
                         ids=lambda c: c.get("source", f"n{len(c['x'])}"))
def test_clustered_mcnemar_matches_clust_bin_pair(case: dict) -> None:
    res = cl.clustered_mcnemar(case["x"], case["y"], clusters=case["cluster"])
    _close(res.statistic, case["r"]["statistic"])
    # R: p = 1 - pchisq(X2, 1), accurate to ~1e-16 absolute
    assert res.pvalue == pytest.approx(case["r"]["p_two"], rel=1e-10, abs=1e-15)


@pytest.mark.parametrize("case", [c for c in R_CASES if c["kind"] == "mcnemar"],
                         ids=lambda c: c.get("source", f"n{len(c['x'])}"))
@pytest.mark.parametrize("method", ["durkalski", "yang"])
def test_durkalski_and_yang_match_clust_bin_pair(case: dict, method: str) -> None:
    res = cl.clustered_mcnemar(case["x"], case["y"], clusters=case["cluster"], method=method)
    _close(res.statistic, case["r"][method])
    assert res.pvalue == pytest.approx(case["r"][f"{method}_p"], rel=1e-10, abs=1e-15)
    assert res.method == method.capitalize()


def test_mcnemar_method_is_yang_sun_hardins_recommendation() -> None:
    assert cl.mcnemar_method([3] * 20) == "yang"  # equal sizes: always the modified test
    assert cl.mcnemar_method([2, 3] * 10) == "durkalski"  # unequal, fewer than 50 clusters
    assert cl.mcnemar_method([2, 3] * 25) == "yang"  # 50 clusters
    x, y = [1, 0, 1, 1, 0, 1, 0, 0, 1], [0, 0, 1, 0, 1, 0, 0, 0, 0]
    clusters = ["a", "a", "b", "b", "b", "c", "d", "d", "d"]
    auto = cl.clustered_mcnemar(x, y, clusters=clusters, method="auto")
    assert auto == cl.clustered_mcnemar(x, y, clusters=clusters, method="durkalski")
    with pytest.raises(StatsInputError, match="method"):
        cl.clustered_mcnemar(x, y, clusters=clusters, method="eliasziw")
    with pytest.raises(StatsInputError, match="cluster sizes"):
        cl.clustered_mcnemar_from_sums([[1.0, -1.0, 2.0]], 9, method="yang")


@pytest.mark.parametrize("method", ["obuchowski", "durkalski", "yang"])
def test_clustered_mcnemar_one_sided_halves_the_two_sided_p(method: str) -> None:
    x, y = [1, 1, 1, 1, 0, 1, 0, 1, 1, 1], [0, 0, 1, 0, 1, 0, 0, 0, 1, 0]
    clusters = [1, 1, 2, 2, 2, 3, 4, 4, 5, 5]
    two = cl.clustered_mcnemar(x, y, clusters=clusters, method=method)
    gr = cl.clustered_mcnemar(x, y, clusters=clusters, method=method, alternative="greater")
    le = cl.clustered_mcnemar(x, y, clusters=clusters, method=method, alternative="less")
    assert gr.statistic > 0 and gr.statistic ** 2 == pytest.approx(two.statistic, rel=1e-12)
    assert gr.pvalue == pytest.approx(two.pvalue / 2, rel=1e-12)
    assert gr.pvalue + le.pvalue == pytest.approx(1.0, rel=1e-12)


@pytest.mark.parametrize("case", [c for c in R_CASES if c["kind"] == "signed_rank"],
                         ids=lambda c: f"n{len(c['d'])}")
def test_clustered_signed_rank_matches_clusrank(case: dict) -> None:
    r = case["r"]
    for alternative, key in (("two-sided", "p_two"), ("greater", "p_greater"),
                             ("less", "p_less")):
        res = cl.clustered_signed_rank(case["d"], clusters=case["cluster"],
                                       alternative=alternative)
        _close(res.statistic, r["statistic"])
        _close(res.pvalue, r[key])
        assert res.n_clusters == r["n_clusters"]


@pytest.mark.parametrize("case", [c for c in PY_CASES if c["kind"] == "inspect"],
                         ids=lambda c: f"n{len(c['x'])}")
def test_one_mean_se_and_ci_match_inspect(case: dict) -> None:
    res = cl.clustered_mean_test(case["x"], clusters=case["cluster"])
    _close(res.se, case["r"]["se"])
    _close(res.ci_low, case["r"]["ci_low"])
    _close(res.ci_high, case["r"]["ci_high"])
    assert res.estimate == pytest.approx(float(np.mean(case["x"])), rel=1e-14)


def test_one_item_per_cluster_is_the_unclustered_test() -> None:
    rng = np.random.default_rng(5)
    d = rng.normal(0.1, 1.0, size=(4, 23))
    ids = [f"i{j}" for j in range(23)]
    for row in d:
        b = paired_ttest(row)
        for vcov in cl.VCOVS:
            a = cl.clustered_paired_ttest(row, clusters=ids, vcov=vcov)
            assert (a.statistic, a.pvalue, a.ci_low, a.ci_high, a.df) == pytest.approx(
                (b.statistic, b.pvalue, b.ci_low, b.ci_high, b.df), rel=1e-12)
    ones = np.ones(23)
    boot_c = cl.cluster_bootstrap_many(d, ones, n_resamples=999, seed=3)
    boot = paired_bootstrap_many(d, n_resamples=999, seed=3)
    for key in ("pvalue", "ci_low", "ci_high", "estimate"):
        np.testing.assert_array_equal(getattr(boot_c, key), getattr(boot, key))
    perm_c = cl.cluster_permutation_test_many(d, ones, n_resamples=999, seed=3)
    perm = paired_permutation_test_many(d, n_resamples=999, seed=3)
    np.testing.assert_array_equal(perm_c.pvalue, perm.pvalue)
    np.testing.assert_allclose(perm_c.estimate, perm.estimate, rtol=1e-15)


def test_cluster_resampling_uses_whole_clusters() -> None:
    # a huge cluster effect: resampling items would give a far narrower interval
    rng = np.random.default_rng(9)
    codes = np.repeat(np.arange(10), 20)
    d = rng.normal(0, 3, 10)[codes] + rng.normal(0, 0.05, codes.size)
    sums = cl.cluster_sums(d, codes, 10)[None, :]
    sizes = np.bincount(codes)
    boot_c = cl.cluster_bootstrap_many(sums, sizes, n_resamples=2000, seed=1)
    boot = paired_bootstrap_many(d[None, :], n_resamples=2000, seed=1)
    assert (boot_c.ci_high[0] - boot_c.ci_low[0]) > 3 * (boot.ci_high[0] - boot.ci_low[0])
    # 10 clusters: the sign-flip distribution is enumerated exactly (2^10 <= B)
    perm = cl.cluster_permutation_test_many(sums, sizes, n_resamples=2000)
    assert perm.method == "exact" and perm.n_resamples == 1024
    assert perm.pvalue[0] > paired_permutation_test_many(d[None, :]).pvalue[0]


def test_one_cluster_is_an_error_naming_the_problem() -> None:
    with pytest.raises(StatsInputError, match="at least 2 clusters.*got 1"):
        cl.clustered_paired_ttest([1.0, 2.0, 0.5], clusters=["a", "a", "a"])
    with pytest.raises(StatsInputError, match="at least 2 clusters"):
        cl.clustered_mcnemar([1, 0, 1], [0, 0, 1], clusters=["a"] * 3)
    with pytest.raises(StatsInputError, match="item 1 is missing"):
        cl.clustered_paired_ttest([1.0, 2.0, 0.5], clusters=["a", None, "b"])
    with pytest.raises(StatsInputError, match="3 ids for 2 items"):
        cl.clustered_paired_ttest([1.0, 2.0], clusters=["a", "b", "c"])


def test_clustered_signed_rank_all_differences_equal() -> None:
    # unequal clusters, every non-zero difference +1: clusrank's ICC is 0/0 (R stops); the
    # unweighted statistic sum S_k / sqrt(sum S_k^2) = 5 / sqrt(4 + 1 + 4) is used
    r = cl.clustered_signed_rank([1, 1, 1, 0, 1, 1, 0], [0] * 7, clusters=[1, 1, 2, 2, 3, 3, 3])
    assert r.statistic == pytest.approx(5 / 3, rel=1e-14) and r.n_clusters == 3


def test_degenerate_cluster_means() -> None:
    # every cluster's mean difference equals the overall mean: se = 0, the t-test's limit
    r = cl.clustered_paired_ttest([1.0, 1.0, 1.0, 1.0], clusters=[1, 1, 2, 2])
    assert r.se == 0.0 and r.statistic == np.inf and r.pvalue == 0.0
    z = cl.clustered_paired_ttest([0.0, 0.0, 0.0], clusters=[1, 2, 2])
    assert z.statistic == 0.0 and z.pvalue == 1.0
    m = cl.clustered_mcnemar([1, 1, 0], [1, 1, 0], clusters=[1, 2, 2])
    assert m.statistic == 0.0 and m.pvalue == 1.0


@settings(max_examples=60, deadline=None)
@given(st.lists(st.floats(-100, 100, allow_nan=False), min_size=4, max_size=30),
       st.integers(2, 6), st.randoms(use_true_random=False))
def test_invariant_to_cluster_labels_and_item_order(values: list[float], k: int, rnd) -> None:
    n = len(values)
    codes = [i % k for i in range(n)] if n >= k else list(range(n))
    if len(set(codes)) < 2:
        return
    base = cl.clustered_paired_ttest(values, clusters=codes)
    order = list(range(n))
    rnd.shuffle(order)
    relabel = {c: f"x{(c * 7) % 11}" for c in set(codes)}
    moved = cl.clustered_paired_ttest([values[i] for i in order],
                                      clusters=[relabel[codes[i]] for i in order])
    assert moved.pvalue == pytest.approx(base.pvalue, rel=1e-9, abs=1e-12)
    assert moved.se == pytest.approx(base.se, rel=1e-9, abs=1e-12)
    # a two-sided CR1 p-value is never below its one-sided counterpart in the effect's direction
    assert 0.0 <= base.pvalue <= 1.0


@settings(max_examples=40, deadline=None)
@given(st.lists(st.integers(-5, 5), min_size=3, max_size=40))
def test_signed_rank_with_one_item_per_cluster_is_wilcoxons_normal_approximation(
        values: list[int]) -> None:
    """One item per cluster: the RGL statistic is sum sr / sqrt(sum r^2), the signed-rank normal
    approximation with the tie-corrected variance and no continuity correction (scipy)."""
    from scipy import stats as sps

    d = np.asarray(values, dtype=float) / 2.0
    if np.count_nonzero(d) < 2:
        return
    r = cl.clustered_signed_rank(d, clusters=np.arange(d.size))
    ref = sps.wilcoxon(d, method="approx", correction=False, zero_method="wilcox")
    assert r.pvalue == pytest.approx(float(ref.pvalue), rel=1e-9, abs=1e-15)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 1), st.integers(0, 1)), min_size=4, max_size=40),
       st.integers(2, 8), st.randoms(use_true_random=False))
def test_clustered_mcnemar_statistics_relations(pairs: list[tuple[int, int]], k: int,
                                                rnd) -> None:
    """The three clustered McNemar statistics (Yang, Sun & Hardin 2010): each is unchanged by
    relabelling and reordering clusters and by swapping the systems; with equal cluster sizes
    Yang's variance (the mean of the null and the centred sums of squares, the centred one then
    the smaller) is at most Obuchowski's, so its X² is at least Obuchowski's, and Durkalski's X²
    is Obuchowski's times C/(C − 1)."""
    x = [a for a, _ in pairs]
    y = [b for _, b in pairs]
    clusters = [i % k for i in range(len(pairs))]
    if len(set(clusters)) < 2:
        return
    stat = {m: cl.clustered_mcnemar(x, y, clusters=clusters, method=m).statistic
            for m in cl.MCNEMAR_METHODS}
    order = list(range(len(pairs)))
    rnd.shuffle(order)
    labels = [f"c{i}" for i in range(k)]
    rnd.shuffle(labels)
    relabel = dict(enumerate(labels))
    for m in cl.MCNEMAR_METHODS:
        moved = cl.clustered_mcnemar([x[i] for i in order], [y[i] for i in order],
                                     clusters=[relabel[clusters[i]] for i in order], method=m)
        swapped = cl.clustered_mcnemar(y, x, clusters=clusters, method=m)
        assert moved.statistic == pytest.approx(stat[m], rel=1e-12, abs=1e-12)
        assert swapped.statistic == pytest.approx(stat[m], rel=1e-12, abs=1e-12)
    sizes = np.bincount(clusters)
    c = sizes.size
    if np.all(sizes == sizes[0]):
        assert stat["yang"] >= stat["obuchowski"] * (1 - 1e-12)
        assert stat["durkalski"] == pytest.approx(stat["obuchowski"] * c / (c - 1), rel=1e-12,
                                                  abs=1e-12)
