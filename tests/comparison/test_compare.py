"""compare(): test selection (IBM table), p-values against scipy/statsmodels, adjustment within
families, comparison orders, seeds, and bad input."""
from __future__ import annotations

import math
import warnings

import numpy as np
import pandas as pd
import pytest
from scipy import stats as sps
from statsmodels.stats.contingency_tables import mcnemar as sm_mcnemar
from statsmodels.stats.proportion import confint_proportions_2indep
from statsmodels.stats.proportion import proportions_ztest as sm_ztest

import ranger_eval as rg
from ranger_eval.comparison import COLUMNS, CompareError, compare, rank_intervals
from ranger_eval.scores import Scores, ScoresError
from tests.helpers.multitest import multipletests

SHIFTS = {"A": 0.0, "B": 0.04, "C": 0.12, "D": 0.13}


def _numeric(n: int = 40, datasets=("d1", "d2"), metrics=("m",), seed: int = 3, paired=True):
    rng = np.random.default_rng(seed)
    rows = []
    for d in datasets:
        for m in metrics:
            base = rng.normal(0.5, 0.2, n)
            for s, shift in SHIFTS.items():
                v = base + shift + rng.normal(0, 0.1, n)
                items = [f"q{i}" for i in range(n)] if paired else [f"{s}-{i}" for i in range(n)]
                rows += [(d, s, m, it, float(x)) for it, x in zip(items, v, strict=True)]
    return pd.DataFrame(rows, columns=["dataset", "system", "metric", "item", "value"])


def _binary(n: int = 60, paired=True, seed: int = 5):
    rng = np.random.default_rng(seed)
    p = {"A": 0.55, "B": 0.6, "C": 0.85}
    rows = []
    latent = rng.uniform(size=n)
    for s, ps in p.items():
        v = (latent < ps).astype(float) if paired else (rng.uniform(size=n) < ps).astype(float)
        flip = rng.uniform(size=n) < 0.1
        v = np.where(flip, 1 - v, v)
        items = [f"x{i}" for i in range(n)] if paired else [f"{s}{i}" for i in range(n)]
        rows += [("glue", s, "acc", it, x) for it, x in zip(items, v, strict=True)]
    return pd.DataFrame(rows, columns=["dataset", "system", "metric", "item", "value"])


def _vals(df, dataset, system, metric=None):
    sel = (df["dataset"] == dataset) & (df["system"] == system)
    if metric is not None:
        sel &= df["metric"] == metric
    return df[sel].sort_values("item")["value"].to_numpy()


# --------------------------------------------------------------------------- shape, selection
def test_rows_and_columns_all_pairs():
    df = _numeric()
    comp = compare(df, n_resamples=100)
    frame = comp.to_frame()
    assert list(frame.columns) == list(COLUMNS)
    assert len(frame) == 2 * 6  # 2 datasets x 4 choose 2
    assert frame["test"].eq("paired-t").all()
    assert frame["paired"].all()
    assert frame.groupby("dataset").size().to_dict() == {"d1": 6, "d2": 6}
    assert list(zip(frame["system_a"][:6], frame["system_b"][:6], strict=True)) == [
        ("A", "B"), ("A", "C"), ("A", "D"), ("B", "C"), ("B", "D"), ("C", "D")
    ]
    assert isinstance(comp, rg.Comparison)
    # rg.compare may hold the module once it is imported; calling it still runs compare()
    again = rg.compare(df, n_resamples=100)
    pd.testing.assert_frame_equal(again.to_frame(), frame)


def test_paired_numeric_matches_scipy_ttest_rel_and_holm_sidak():
    df = _numeric()
    comp = compare(df)
    frame = comp.to_frame()
    for d in ("d1", "d2"):
        sub = frame[frame["dataset"] == d]
        raw = []
        for r in sub.itertuples():
            x, y = _vals(df, d, r.system_a), _vals(df, d, r.system_b)
            ref = sps.ttest_rel(x, y)
            ci = ref.confidence_interval(0.95)
            assert r.pvalue == pytest.approx(ref.pvalue, rel=1e-12)
            assert r.statistic == pytest.approx(ref.statistic, rel=1e-12)
            assert r.ci_low == pytest.approx(ci.low, rel=1e-12)
            assert r.ci_high == pytest.approx(ci.high, rel=1e-12)
            assert r.diff == pytest.approx(x.mean() - y.mean(), rel=1e-12)
            assert r.mean_a == pytest.approx(x.mean()) and r.mean_b == pytest.approx(y.mean())
            dd = x - y
            assert r.effect_size == pytest.approx(dd.mean() / dd.std(ddof=1), rel=1e-12)
            assert r.effect_size_name == "cohens_dz"
            raw.append(ref.pvalue)
        adj = multipletests(raw, alpha=0.05, method="holm-sidak")[1]
        np.testing.assert_allclose(sub["pvalue_adjusted"].to_numpy(), adj, rtol=1e-12)
        np.testing.assert_array_equal(sub["significant"].to_numpy(), adj <= 0.05)


def test_unpaired_numeric_chooses_welch():
    df = _numeric(paired=False, datasets=("d1",))
    comp = compare(df)
    frame = comp.to_frame()
    assert frame["test"].eq("welch").all() and not frame["paired"].any()
    for r in frame.itertuples():
        x = df[df["system"] == r.system_a]["value"].to_numpy()
        y = df[df["system"] == r.system_b]["value"].to_numpy()
        ref = sps.ttest_ind(x, y, equal_var=False)
        assert r.pvalue == pytest.approx(ref.pvalue, rel=1e-12)
        ci = ref.confidence_interval(0.95)
        assert (r.ci_low, r.ci_high) == pytest.approx((ci.low, ci.high), rel=1e-12)
        sp = math.sqrt(((x.size - 1) * x.var(ddof=1) + (y.size - 1) * y.var(ddof=1))
                       / (x.size + y.size - 2))
        assert r.effect_size == pytest.approx((x.mean() - y.mean()) / sp, rel=1e-12)
        assert r.effect_size_name == "cohens_d"


def test_paired_binary_chooses_exact_mcnemar():
    df = _binary()
    frame = compare(df).to_frame()
    assert frame["test"].eq("mcnemar").all()
    for r in frame.itertuples():
        x, y = _vals(df, "glue", r.system_a), _vals(df, "glue", r.system_b)
        table = [[np.sum((x == 1) & (y == 1)), np.sum((x == 1) & (y == 0))],
                 [np.sum((x == 0) & (y == 1)), np.sum((x == 0) & (y == 0))]]
        ref = sm_mcnemar(table, exact=True)
        assert r.pvalue == pytest.approx(ref.pvalue, rel=1e-12)
        h = 2 * math.asin(math.sqrt(x.mean())) - 2 * math.asin(math.sqrt(y.mean()))
        assert r.effect_size == pytest.approx(h, rel=1e-12)
        assert r.effect_size_name == "cohens_h"
    raw = frame["pvalue"].to_numpy()
    np.testing.assert_allclose(
        frame["pvalue_adjusted"], multipletests(raw, method="holm-sidak")[1], rtol=1e-12
    )


def test_unpaired_binary_chooses_proportions_z():
    df = _binary(paired=False)
    frame = compare(df).to_frame()
    assert frame["test"].eq("proportions-z").all()
    for r in frame.itertuples():
        x = df[df["system"] == r.system_a]["value"].to_numpy()
        y = df[df["system"] == r.system_b]["value"].to_numpy()
        stat, p = sm_ztest([x.sum(), y.sum()], [x.size, y.size])
        assert r.pvalue == pytest.approx(p, rel=1e-12)
        assert r.statistic == pytest.approx(stat, rel=1e-12)
        lo, hi = confint_proportions_2indep(x.sum(), x.size, y.sum(), y.size, method="wald")
        assert (r.ci_low, r.ci_high) == pytest.approx((lo, hi), rel=1e-12)
        assert r.ci_method == "Wald"


def test_one_sided_alternative_matches_scipy():
    df = _numeric(datasets=("d1",))
    frame = compare(df, alternative="less", correction="none").to_frame()
    for r in frame.itertuples():
        x, y = _vals(df, "d1", r.system_a), _vals(df, "d1", r.system_b)
        assert r.pvalue == pytest.approx(sps.ttest_rel(x, y, alternative="less").pvalue, rel=1e-12)
        assert r.pvalue_adjusted == r.pvalue
        assert r.ci_low == -math.inf


@pytest.mark.parametrize(
    ("test", "ref"),
    [
        ("wilcoxon", lambda x, y: sps.wilcoxon(x, y).pvalue),
        ("sign", lambda x, y: sps.binomtest(int(np.sum(x > y)), int(np.sum(x != y))).pvalue),
        ("mannwhitney", lambda x, y: sps.mannwhitneyu(x, y).pvalue),
    ],
)
def test_explicit_classical_tests_match_scipy(test, ref):
    df = _numeric(datasets=("d1",), n=25)
    frame = compare(df, test=test).to_frame()
    assert frame["test"].eq(test).all()
    for r in frame.itertuples():
        x, y = _vals(df, "d1", r.system_a), _vals(df, "d1", r.system_b)
        assert r.pvalue == pytest.approx(ref(x, y), rel=1e-10)
    assert frame["paired"].all() == (test != "mannwhitney")


def test_exact_paired_permutation_matches_scipy():
    df = _numeric(datasets=("d1",), n=9)
    frame = compare(df, test="permutation", n_resamples=1000).to_frame()
    for r in frame.itertuples():
        x, y = _vals(df, "d1", r.system_a), _vals(df, "d1", r.system_b)
        ref = sps.permutation_test(
            (x, y), lambda a, b: np.mean(a - b), permutation_type="samples",
            n_resamples=np.inf,
        )
        assert r.pvalue == pytest.approx(ref.pvalue, rel=1e-12)
        assert r.ci_method == "paired t"


def test_resampling_tests_share_one_matrix_across_pairs():
    df = _numeric(datasets=("d1",), n=30)
    comp = compare(df, test="permutation", n_resamples=499, seed=7)
    boot = compare(df, test="bootstrap", n_resamples=499, seed=7)
    for r, b in zip(comp.to_frame().itertuples(), boot.to_frame().itertuples(), strict=True):
        x, y = _vals(df, "d1", r.system_a), _vals(df, "d1", r.system_b)
        single = rg.stats.paired_permutation_test(x, y, n_resamples=499, seed=7)
        assert r.pvalue == single.pvalue
        bs = rg.stats.paired_bootstrap(x, y, n_resamples=499, seed=7)
        assert b.pvalue == bs.pvalue
        assert (b.ci_low, b.ci_high) == pytest.approx((bs.ci_low, bs.ci_high), rel=1e-12)
        assert b.ci_low <= b.diff <= b.ci_high
    assert "n_resamples:499" in comp.signature and "seed:7" in comp.signature


def test_unpaired_permutation_uses_two_sample_test():
    df = _numeric(datasets=("d1",), n=6, paired=False)
    frame = compare(df, test="permutation", n_resamples=5000).to_frame()
    for r in frame.itertuples():
        x = df[df["system"] == r.system_a]["value"].to_numpy()
        y = df[df["system"] == r.system_b]["value"].to_numpy()
        ref = sps.permutation_test(
            (x, y), lambda a, b: np.mean(a) - np.mean(b), permutation_type="independent",
            n_resamples=np.inf,
        )
        assert r.pvalue == pytest.approx(ref.pvalue, rel=1e-12)
        assert not r.paired


# --------------------------------------------------------------------------- orders, families
def test_pair_orders():
    df = _numeric(datasets=("d1",))
    k = 4
    assert len(compare(df, pairs="all").table) == k * (k - 1) // 2
    base = compare(df, pairs="baseline", baseline="B").to_frame()
    assert len(base) == k - 1
    assert base["system_b"].eq("B").all()
    assert set(base["system_a"]) == {"A", "C", "D"}
    succ = compare(df, pairs="successive").to_frame()
    assert len(succ) == k - 1
    means = {s: _vals(df, "d1", s).mean() for s in SHIFTS}
    ranked = sorted(means, key=lambda s: -means[s])
    assert list(succ["system_a"]) == ranked[:-1]
    assert list(succ["system_b"]) == ranked[1:]
    assert (succ["diff"] >= 0).all()
    custom = compare(df, pairs=[("D", "A"), ("B", "C")]).to_frame()
    assert list(zip(custom["system_a"], custom["system_b"], strict=True)) == [("D", "A"), ("B", "C")]
    assert compare(df, pairs=[("D", "A")]).pairs == "custom"


def test_systems_selects_and_orders():
    df = _numeric(datasets=("d1",))
    comp = compare(df, systems=["D", "A", "C"])
    assert comp.systems == ("D", "A", "C")
    assert list(zip(comp.table["system_a"], comp.table["system_b"], strict=True)) == [
        ("D", "A"), ("D", "C"), ("A", "C")
    ]


@pytest.mark.parametrize("family", ["dataset", "all"])
def test_families(family):
    df = _numeric(datasets=("d1", "d2"), metrics=("m1", "m2"))
    frame = compare(df, family=family, correction="holm").to_frame()
    assert len(frame) == 2 * 2 * 6
    groups = frame.groupby("dataset").groups.values() if family == "dataset" else [frame.index]
    assert len(groups) == (2 if family == "dataset" else 1)
    for idx in groups:
        sub = frame.loc[idx]
        adj = multipletests(sub["pvalue"].to_numpy(), method="holm")[1]
        np.testing.assert_allclose(sub["pvalue_adjusted"].to_numpy(), adj, rtol=1e-12)


def test_correction_none_and_level():
    df = _numeric(datasets=("d1",))
    comp = compare(df, correction="none", level=0.99)
    frame = comp.to_frame()
    np.testing.assert_array_equal(frame["pvalue_adjusted"], frame["pvalue"])
    np.testing.assert_array_equal(frame["significant"], frame["pvalue"] <= 0.01)
    assert "level:0.99" in comp.signature and "corr:none" in comp.signature


# --------------------------------------------------------------------------- seeds
def test_seeds_are_averaged_before_testing_and_seed_sd_reported():
    rng = np.random.default_rng(11)
    n = 30
    rows = []
    for s, shift in (("A", 0.0), ("B", 0.1)):
        for seed in range(3):
            v = rng.normal(0.5 + shift + 0.02 * seed, 0.2, n)
            rows += [("d", s, "m", f"i{i}", seed, float(x)) for i, x in enumerate(v)]
    df = pd.DataFrame(rows, columns=["dataset", "system", "metric", "item", "seed", "value"])
    comp = compare(df)
    r = comp.to_frame().iloc[0]
    avg = df.groupby(["system", "item"])["value"].mean()
    x, y = avg["A"].sort_index().to_numpy(), avg["B"].sort_index().to_numpy()
    assert r["pvalue"] == pytest.approx(sps.ttest_rel(x, y).pvalue, rel=1e-12)
    assert r["n_a"] == n
    per_seed = df.groupby(["system", "seed"])["value"].mean()
    assert r["seed_sd_a"] == pytest.approx(per_seed["A"].std(ddof=1), rel=1e-12)
    assert r["seed_sd_b"] == pytest.approx(per_seed["B"].std(ddof=1), rel=1e-12)
    means = comp.means.set_index("system")
    assert means.loc["A", "n_seeds"] == 3
    # same numbers as testing the pre-averaged table
    pre = avg.reset_index().assign(dataset="d", metric="m")
    r2 = compare(pre).to_frame().iloc[0]
    assert r2["pvalue"] == r["pvalue"] and math.isnan(r2["seed_sd_a"])


# --------------------------------------------------------------------------- signature, repr
def test_signature_and_repr():
    comp = compare(_binary(), n_resamples=123, seed=4)
    sig = comp.signature
    for part in ("test:auto[mcnemar]", "corr:holm-sidak", "level:0.95", "n_resamples:123",
                 "seed:4", f"ranger-eval:{rg.__version__}", "family:dataset-metric"):
        assert part in sig
    assert "significant" in repr(comp)


def test_csv_round_trip(tmp_path):
    comp = compare(_numeric(datasets=("d1",)))
    path = tmp_path / "c.csv"
    text = comp.to_csv(path)
    back = pd.read_csv(path)
    assert text == path.read_text()
    np.testing.assert_allclose(back["pvalue"], comp.table["pvalue"], rtol=1e-15)
    assert list(back.columns) == list(COLUMNS)


# --------------------------------------------------------------------------- degenerate data
def test_identical_systems_have_defined_result():
    df = _numeric(datasets=("d1",))
    a = df[df["system"] == "A"].assign(system="A2")
    frame = compare(pd.concat([df[df["system"] == "A"], a]), correction="holm").to_frame()
    r = frame.iloc[0]
    assert (r["statistic"], r["pvalue"], r["pvalue_adjusted"], r["diff"]) == (0.0, 1.0, 1.0, 0.0)
    assert r["effect_size"] == 0.0 and r["effect_label"] == "negligible"
    assert not r["significant"]


def test_constant_scores_have_defined_result():
    rows = [("d", s, "m", f"i{i}", v) for s, v in (("A", 0.3), ("B", 0.3), ("C", 0.5))
            for i in range(10)]
    frame = compare(pd.DataFrame(rows, columns=["dataset", "system", "metric", "item", "value"]))
    t = frame.to_frame().set_index(["system_a", "system_b"])
    assert t.loc[("A", "B"), "pvalue"] == 1.0 and t.loc[("A", "B"), "effect_size"] == 0.0
    assert t.loc[("A", "C"), "pvalue"] == 0.0 and t.loc[("A", "C"), "effect_size"] == -math.inf
    assert t.loc[("A", "C"), "effect_label"] == "huge" and t.loc[("A", "C"), "significant"]
    assert t.loc[("A", "C"), "ci_low"] == t.loc[("A", "C"), "ci_high"] == pytest.approx(-0.2)


# --------------------------------------------------------------------------- bad input
def _partial():
    df = _numeric(datasets=("d1",), n=12)
    return df[~((df["system"] == "B") & df["item"].isin(["q3", "q7"]))]


def test_unpaired_items_in_paired_mode_list_the_ids():
    with pytest.raises(ScoresError, match=r"2 only in 'A': 'q3', 'q7'"):
        compare(_partial(), test="paired-t")
    with pytest.raises(ScoresError, match=r"differ on dataset 'd1'.*'q3'"):
        compare(_partial())  # auto: a partial overlap is never silently unpaired


def test_missing_intersect_uses_common_items_with_warning():
    with pytest.warns(UserWarning, match="dropped 2 item"):
        frame = compare(_partial(), missing="intersect").to_frame()
    ab = frame[(frame["system_a"] == "A") & (frame["system_b"] == "B")].iloc[0]
    assert ab["n_a"] == ab["n_b"] == 10


def test_one_system_only():
    df = _numeric(datasets=("d1",))
    with pytest.raises(CompareError, match="at least two systems"):
        compare(df[df["system"] == "A"])
    with pytest.raises(CompareError, match="at least two systems"):
        compare(df, systems=["A"])


def test_nan_scores_are_rejected():
    df = _numeric(datasets=("d1",))
    df.loc[5, "value"] = np.nan
    with pytest.raises(ScoresError, match="row 5"):
        compare(df)


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"test": "ttest"}, "unknown test 'ttest'"),
        ({"correction": "holmes"}, "unknown correction 'holmes'"),
        ({"pairs": "some"}, "unknown pairs order 'some'"),
        ({"family": "metric"}, "unknown family 'metric'"),
        ({"alternative": "bigger"}, "unknown alternative 'bigger'"),
        ({"pairs": "baseline"}, "needs baseline="),
        ({"pairs": "baseline", "baseline": "Z"}, "unknown baseline 'Z'"),
        ({"baseline": "A"}, "only used with pairs='baseline'"),
        ({"level": 1.5}, "level: must be strictly between 0 and 1"),
        ({"n_resamples": 0}, "n_resamples: must be a whole number from 1"),
        ({"seed": -1}, "seed: must be a whole number ≥ 0; got -1"),
        ({"systems": ["A", "A"]}, "duplicate"),
        ({"systems": ["A", "Q"]}, "unknown system"),
        ({"pairs": [("A", "A")]}, "with itself"),
        ({"pairs": [("A", "Nope")]}, "unknown system 'Nope'"),
        ({"test": "welch", "paired": True}, "independent samples"),
    ],
)
def test_bad_arguments(kwargs, match):
    with pytest.raises(CompareError, match=match):
        compare(_numeric(datasets=("d1",), n=10), **kwargs)


def test_binary_test_on_numeric_data():
    with pytest.raises(CompareError, match=r"needs binary \(0/1\) scores.*system 'A'"):
        compare(_numeric(datasets=("d1",), n=10), test="mcnemar")
    with pytest.raises(CompareError, match="needs binary"):
        compare(_numeric(datasets=("d1",), n=10, paired=False), test="proportions-z")


def test_bootstrap_needs_paired_items():
    with pytest.raises(ScoresError, match="differ on dataset"):
        compare(_numeric(datasets=("d1",), n=10, paired=False), test="bootstrap")


def test_system_missing_on_a_dataset():
    df = _numeric(datasets=("d1", "d2"))
    df = df[~((df["dataset"] == "d2") & (df["system"] == "C"))]
    with pytest.raises(CompareError, match=r"dataset 'd2'.*no scores for system\(s\) 'C'"):
        compare(df, systems=["A", "C"])
    # without a selection, each dataset compares the systems it has
    frame = compare(df).to_frame()
    assert len(frame[frame["dataset"] == "d2"]) == 3


def test_too_few_items_names_the_dataset_and_pair():
    rows = [("tiny", s, "m", "i0", v) for s, v in (("A", 0.2), ("B", 0.4))]
    df = pd.DataFrame(rows, columns=["dataset", "system", "metric", "item", "value"])
    with pytest.raises(CompareError, match=r"dataset 'tiny' \(metric 'm'\), 'A' vs 'B': .*at least 2"):
        compare(df)


def test_accepts_scores_and_rejects_other_types():
    df = _numeric(datasets=("d1",), n=8)
    assert len(compare(Scores(df)).table) == 6
    with pytest.raises(CompareError, match="compare expects .*DataFrame.*; got list"):
        compare([1, 2, 3])  # type: ignore[arg-type]


# --------------------------------------------------------------------------- rank intervals
def test_rank_intervals_separated_and_tied_systems():
    rng = np.random.default_rng(2)
    n = 200
    base = rng.normal(0, 1, n)
    rows = []
    for s, shift in (("low", 0.0), ("mid1", 1.0), ("mid2", 1.0), ("top", 2.0)):
        v = base + shift + rng.normal(0, 0.05, n)
        rows += [("d", s, "m", f"i{i}", float(x)) for i, x in enumerate(v)]
    ri = rank_intervals(pd.DataFrame(rows, columns=["dataset", "system", "metric", "item", "value"]),
                        n_resamples=300)
    assert ri.systems[0] == "top" and ri.systems[-1] == "low"
    got = dict(zip(ri.systems, zip(ri.rank_low, ri.rank_high, strict=True), strict=True))
    assert got["top"] == (1, 1) and got["low"] == (4, 4)
    assert got["mid1"] == got["mid2"] == (2, 3)
    assert ri.boot_means.shape == (300, 4) and ri.boot_ranks.shape == (300, 4)
    frame = ri.to_frame()
    assert (frame["rank_low"] <= frame["rank"]).all() and (frame["rank"] <= frame["rank_high"]).all()


def test_rank_intervals_need_common_items():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(ScoresError, match="differ"):
            rank_intervals(_partial(), n_resamples=50)


@pytest.mark.parametrize(
    ("test", "binary", "ci"),
    [("paired-t", False, None), ("wilcoxon", False, None), ("bootstrap", False, None),
     ("sign", False, "sign=paired t"), ("permutation", False, "permutation=paired t"),
     ("mcnemar", True, None)],
)
def test_signature_names_an_interval_that_is_not_the_tests_own(test, binary, ci):
    """Every interval in compare matches its test or says which method it is, in the
    table (``ci_method``) and in the signature (``ci:test=interval``)."""
    rng = np.random.default_rng(3)
    rows = [("d", "m", s, str(i), float(rng.normal() > 0) if binary else rng.normal())
            for s in "AB" for i in range(25)]
    frame = pd.DataFrame(rows, columns=["dataset", "metric", "system", "item", "value"])
    comp = rg.compare(frame, test=test, n_resamples=200)
    assert comp.signature.fields.get("ci") == ci
    own = comp.table["ci_method"].iloc[0]
    assert (ci is None) == (test != "sign" and test != "permutation")
    if ci is not None:
        assert ci.endswith("=" + own)


def test_mcnemar_rows_carry_tangos_score_interval_equal_to_ratesci():
    """The McNemar rows' interval is Tango's score interval (R ratesci's closed
    form, tests/oracles/tango_interval.R), in one compare call over many datasets; the p-value
    stays McNemar's exact one."""
    import json
    from pathlib import Path

    cases = json.loads((Path(__file__).parents[1] / "oracles" / "tango_interval_R.json")
                       .read_text())["tango"]
    rows = []
    for k, case in enumerate(c for c in cases if c["level"] == 0.95):
        pattern = ([(1, 1)] * case["a"] + [(1, 0)] * case["b"] + [(0, 1)] * case["c"]
                   + [(0, 0)] * case["d"])
        for i, (x, y) in enumerate(pattern):
            rows += [(f"d{k:02d}", "A", str(i), float(x)), (f"d{k:02d}", "B", str(i), float(y))]
    frame = pd.DataFrame(rows, columns=["dataset", "system", "item", "value"])
    table = rg.compare(frame).table.sort_values("dataset")
    want = [c for c in cases if c["level"] == 0.95]
    assert (table["test"] == "mcnemar").all() and (table["ci_method"] == "Tango score").all()
    np.testing.assert_allclose(table["ci_low"], [c["ci_low"] for c in want], rtol=1e-9,
                               atol=1e-12)
    np.testing.assert_allclose(table["ci_high"], [c["ci_high"] for c in want], rtol=1e-9,
                               atol=1e-12)
    for r, c in zip(table.itertuples(), want, strict=True):
        if c["b"] + c["c"]:
            assert r.pvalue == pytest.approx(
                min(1.0, 2 * sps.binom.cdf(min(c["b"], c["c"]), c["b"] + c["c"], 0.5)),
                rel=1e-12)
