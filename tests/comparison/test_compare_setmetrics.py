"""compare(metric_fn=...): paired permutation and bootstrap tests on set-level metrics, and the
seed policy of compare."""
from __future__ import annotations

import itertools
import json
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from ranger_eval import setmetrics as sm
from ranger_eval.comparison import COLUMNS, compare
from ranger_eval.errors import CompareError, ScoresError
from tests.helpers.setmetric_cases import tidy_case as _tidy

ORACLE = json.loads((Path(__file__).parents[1] / "oracles" / "setmetrics_oracle.json").read_text())
CASES = {c["name"]: c for c in ORACLE["cases"]}




@pytest.mark.parametrize(("case", "name"), [
    ("tiny_binary", "mcc"), ("tiny_binary", "f1"), ("tiny_binary", "accuracy"),
    ("tiny_multiclass", "macro_f1"), ("tiny_multiclass", "mcc"),
    ("tiny_regression", "spearman"), ("tiny_regression", "kendall"), ("tiny_regression", "rmse"),
])
def test_exact_permutation_p_equals_brute_force_enumeration(case, name):
    c = CASES[case]
    comp = compare(_tidy(c), test="permutation", metric_fn=name,
                   n_resamples=2 ** len(c["labels"]), correction="none")
    row = comp.to_frame().iloc[0]
    want = c["metrics"][name]
    assert row["pvalue"] == want["perm_p"]
    assert row["diff"] == pytest.approx(want["treatment"] - want["control"], rel=1e-12)
    assert (row["metric"], row["test"], row["paired"]) == (name, "permutation", True)
    assert row["ci_method"] == "bootstrap percentile" and row["effect_size_name"] == "dz_boot"


def _brute_force(y, a, b, f, alternative):
    obs = f(y, a) - f(y, b)
    hits = 0
    for bits in itertools.product((False, True), repeat=len(y)):
        s = np.array(bits)
        t = f(y, np.where(s, b, a)) - f(y, np.where(s, a, b))
        if alternative == "two-sided":
            hits += abs(t) >= abs(obs) - 1e-12
        elif alternative == "greater":
            hits += t >= obs - 1e-12
        else:
            hits += t <= obs + 1e-12
    return hits / 2 ** len(y)


@pytest.mark.parametrize("alternative", ["two-sided", "greater", "less"])
@pytest.mark.parametrize("seed", range(2))
def test_permutation_alternatives_against_sklearn_enumeration(alternative, seed):
    skm = pytest.importorskip("sklearn.metrics", reason="scikit-learn is the oracle here (the 'test' extra)")
    rng = np.random.default_rng(seed)
    n = 6
    y = rng.integers(0, 3, n)
    a = np.where(rng.random(n) < 0.7, y, rng.integers(0, 3, n))
    b = np.where(rng.random(n) < 0.5, y, rng.integers(0, 3, n))
    case = {"labels": y.tolist(), "treatment": a.tolist(), "control": b.tolist()}
    comp = compare(_tidy(case), test="permutation", metric_fn="mcc", alternative=alternative,
                   n_resamples=200, correction="none")
    want = _brute_force(y, a, b, skm.matthews_corrcoef, alternative)
    assert comp.to_frame().loc[0, "pvalue"] == pytest.approx(want, abs=1e-15)


def test_bootstrap_p_and_interval_against_a_reference_loop():
    skm = pytest.importorskip("sklearn.metrics", reason="scikit-learn is the oracle here (the 'test' extra)")
    c = CASES["multiclass"]
    b_, seed = 200, 9  # the reference loop calls sklearn 2 × b_ times
    comp = compare(_tidy(c), test="bootstrap", metric_fn="macro_f1", n_resamples=b_, seed=seed,
                   correction="none")
    row = comp.to_frame().iloc[0]
    y, t, ctl = (np.asarray(c[k]) for k in ("labels", "treatment", "control"))
    n = y.size
    u = np.random.Generator(np.random.PCG64(seed)).random(b_ * n).reshape(b_, n)
    idx = np.minimum(np.floor(u * n).astype(int), n - 1)

    def f(yy, pp):
        return skm.f1_score(yy, pp, average="macro", zero_division=0)

    obs = f(y, t) - f(y, ctl)
    d_star = np.array([f(y[r], t[r]) - f(y[r], ctl[r]) for r in idx])
    p = (1 + np.sum(np.abs(d_star - obs) >= abs(obs) - 1e-12)) / (1 + b_)
    assert row["pvalue"] == pytest.approx(p, abs=1e-15)
    lo, hi = np.quantile(d_star, [0.025, 0.975])
    assert (row["ci_low"], row["ci_high"]) == (pytest.approx(lo, rel=1e-12), pytest.approx(hi, rel=1e-12))
    assert row["effect_size"] == pytest.approx(obs / (math.sqrt(n) * d_star.std(ddof=1)), rel=1e-10)


def test_monte_carlo_permutation_matches_a_reference_loop():
    skm = pytest.importorskip("sklearn.metrics", reason="scikit-learn is the oracle here (the 'test' extra)")
    from ranger_eval.stats.resampling import SignFlips

    c = CASES["binary"]
    comp = compare(_tidy(c), test="permutation", metric_fn="mcc", n_resamples=150, seed=2,
                   correction="none")
    y, t, ctl = (np.asarray(c[k]) for k in ("labels", "treatment", "control"))
    obs = skm.matthews_corrcoef(y, t) - skm.matthews_corrcoef(y, ctl)
    swaps = SignFlips(y.size, 150, 2).bits(0, 150).astype(bool)
    null = np.array([skm.matthews_corrcoef(y, np.where(s, ctl, t))
                     - skm.matthews_corrcoef(y, np.where(s, t, ctl)) for s in swaps])
    p = (1 + np.sum(np.abs(null) >= abs(obs) - 1e-12)) / 151
    assert comp.to_frame().loc[0, "pvalue"] == pytest.approx(p, abs=1e-15)


def test_many_systems_and_metrics_table_means_and_signature():
    rng = np.random.default_rng(4)
    n = 80
    y = rng.integers(0, 3, n)
    frames = []
    for ds in ("a", "b"):
        for s, acc in (("S1", 0.9), ("S2", 0.7), ("S3", 0.5)):
            p = np.where(rng.random(n) < acc, y, rng.integers(0, 3, n))
            frames.append(pd.DataFrame({"dataset": ds, "system": s, "item": np.arange(n).astype(str),
                                        "label": y, "prediction": p, "value": (p == y) * 1.0}))
    df = pd.concat(frames, ignore_index=True)
    comp = compare(df, metric_fn=["mcc", "macro_f1"], n_resamples=300)
    t = comp.to_frame()
    assert list(t.columns) == list(COLUMNS)
    assert len(t) == 2 * 2 * 3 and set(t["metric"]) == {"mcc", "macro_f1"}
    assert set(t["test"]) == {"permutation"} and comp.tests_used == ("permutation",)
    sig = comp.signature
    assert "test:auto[permutation]" in sig and "method_detail:metric[mcc,macro_f1]" in sig
    m = comp.means.set_index(["dataset", "metric", "system"])
    sub = df[(df["dataset"] == "a") & (df["system"] == "S2")]
    assert m.loc[("a", "mcc", "S2"), "mean"] == pytest.approx(
        sm.compute("mcc", sub["label"], sub["prediction"]), rel=1e-12)
    row = t[(t["dataset"] == "a") & (t["metric"] == "mcc")].iloc[0]
    assert row["diff"] == pytest.approx(row["mean_a"] - row["mean_b"], rel=1e-12)
    assert row["significant"] and row["diff"] > 0
    # the leaderboard works on the metric rows too
    board = comp.leaderboard(metric="mcc")
    assert board.beats[0][0] == "bc"
    # successive pairs are ordered by the metric
    succ = compare(df, metric_fn="mcc", pairs="successive", test="bootstrap", n_resamples=200)
    assert list(zip(succ.table["system_a"], succ.table["system_b"], strict=True))[:2] == [
        ("S1", "S2"), ("S2", "S3")]
    base = compare(df, metric_fn="mcc", pairs="baseline", baseline="S3", n_resamples=200)
    assert set(base.table["system_b"]) == {"S3"}


def test_identical_systems_have_p_one_and_zero_effect():
    c = CASES["binary"]
    comp = compare(_tidy({**c, "control": c["treatment"]}), metric_fn="mcc", test="bootstrap",
                   n_resamples=200)
    row = comp.to_frame().iloc[0]
    assert row["diff"] == 0 and row["pvalue"] == 1.0 and row["effect_size"] == 0.0
    assert row["ci_low"] == row["ci_high"] == 0.0


def test_by_level_passes_the_metric_through():
    df = _tidy(CASES["binary"])
    df["half"] = np.where(df["item"] < "i030", "first", "second")
    comp = compare(df, metric_fn="f1", by="half", n_resamples=100)
    assert set(comp.table["half"]) == {"first", "second"} and set(comp.table["metric"]) == {"f1"}


def test_metric_fn_errors():
    df = _tidy(CASES["binary"])
    with pytest.raises(CompareError, match="test: 'paired-t' compares means .*test='permutation' or 'bootstrap'"):
        compare(df, metric_fn="mcc", test="paired-t")
    with pytest.raises(CompareError, match="paired=False is not possible"):
        compare(df, metric_fn="mcc", paired=False)
    with pytest.raises(CompareError, match="did you mean 'mcc'"):
        compare(df, metric_fn="MCC")
    with pytest.raises(CompareError, match=r"metric\(s\) named twice: 'mcc'"):
        compare(df, metric_fn=["mcc", "mcc"])
    with pytest.raises(CompareError, match=r"dataset 'd' has several metrics .*metrics=\['score'\]") as exc:
        compare(pd.concat([df.assign(metric="score"), df.assign(metric="other")]).reset_index(drop=True),
                metric_fn="mcc")
    assert [(h.keyword, h.value) for h in exc.value.hints] == [("metrics", ["score"])]
    with pytest.raises(CompareError, match=r"dataset 'd', system 'T'.*missing: 'label'"):
        compare(df.drop(columns=["label"]), metric_fn="mcc")
    with pytest.raises(ScoresError, match=r"items of 'T' and 'C' differ .*1 only in 'C': 'i005'"):
        compare(df.drop(index=[5]), metric_fn="mcc")
    with pytest.warns(UserWarning, match="dropped 1 item"):
        comp = compare(df.drop(index=[5]), metric_fn="mcc", missing="intersect", n_resamples=50)
    assert comp.table.loc[0, "n_a"] == len(CASES["binary"]["labels"]) - 1
    with pytest.raises(CompareError, match=r"metric 'pearson' is undefined .*system 'C'"):
        compare(df.assign(prediction=np.where(df["system"] == "C", 0, df["prediction"])),
                metric_fn="pearson")


# --------------------------------------------------------------------------- seeds
def _seeded(seeds_a=(0, 1, 2), seeds_b=(0, 1, 2), n=12, rng_seed=0, gap=False):
    rng = np.random.default_rng(rng_seed)
    y = rng.integers(0, 2, n)
    rows = []
    for system, seeds, acc in (("A", seeds_a, 0.85), ("B", seeds_b, 0.6)):
        for k in seeds:
            p = np.where(rng.random(n) < acc, y, 1 - y)
            for i in range(n):
                if gap and system == "B" and k == 1 and i == 3:
                    continue
                rows.append(("d", system, f"i{i:02d}", str(k), int(y[i]), int(p[i]), float(p[i] == y[i])))
    return pd.DataFrame(rows, columns=["dataset", "system", "item", "seed", "label", "prediction",
                                       "value"])


def test_compare_errors_on_unbalanced_seeds_unless_allowed():
    df = _seeded(seeds_b=(0, 1))
    with pytest.raises(CompareError, match=(
            r"dataset 'd' \(metric 'score'\): unbalanced seeds: .*'A' has 3 seeds .*'B' has 2 "
            r"seeds .*seeds='allow-unbalanced'")):
        compare(df)
    comp = compare(df, seeds="allow-unbalanced")
    means = comp.means.set_index("system")
    assert list(means["n_seeds"]) == [3, 2]
    avg = df.groupby(["system", "item"])["value"].mean()
    assert means.loc["B", "mean"] == pytest.approx(avg["B"].mean(), rel=1e-12)
    with pytest.raises(CompareError, match=r"seed '1' did not score 1 of its 12 items \('i03'\)"):
        compare(_seeded(gap=True))
    assert len(compare(_seeded(gap=True), seeds="allow-unbalanced").table) == 1
    with pytest.raises(CompareError, match="unknown seeds"):
        compare(df, seeds="yes")


def test_metric_permutation_over_seeds_swaps_every_seed_of_an_item():
    df = _seeded(n=8)
    comp = compare(df, metric_fn="mcc", test="permutation", n_resamples=1000, correction="none")
    row = comp.to_frame().iloc[0]
    runs = {s: [g.sort_values("item")["prediction"].to_numpy() for _, g in df[df["system"] == s].groupby("seed")]
            for s in ("A", "B")}
    y = df[(df["system"] == "A") & (df["seed"] == "0")].sort_values("item")["label"].to_numpy()

    def stat(swap):
        return np.mean([sm.compute("mcc", y, np.where(swap, b, a)) - sm.compute("mcc", y, np.where(swap, a, b))
                        for a, b in zip(runs["A"], runs["B"], strict=True)])

    obs = stat(np.zeros(8, dtype=bool))
    null = np.array([stat(np.array(bits)) for bits in itertools.product((False, True), repeat=8)])
    assert row["diff"] == pytest.approx(obs, rel=1e-12)
    assert row["pvalue"] == np.mean(np.abs(null) >= abs(obs) - 1e-12)
    per_seed = [sm.compute("mcc", y, a) for a in runs["A"]]
    assert row["seed_sd_a"] == pytest.approx(np.std(per_seed, ddof=1), rel=1e-12)


def test_metric_with_unbalanced_seeds():
    df = _seeded(seeds_b=(0, 1))
    with pytest.raises(CompareError, match="unbalanced seeds"):
        compare(df, metric_fn="mcc")
    with pytest.raises(CompareError, match="needs the same number of seeds per system .*test='bootstrap'"):
        compare(df, metric_fn="mcc", seeds="allow-unbalanced", test="permutation")
    comp = compare(df, metric_fn="mcc", seeds="allow-unbalanced", test="bootstrap", n_resamples=200)
    assert comp.seeds == "allow-unbalanced" and math.isfinite(comp.table.loc[0, "pvalue"])
    with pytest.raises(CompareError, match="every seed to score every item"):
        compare(_seeded(gap=True), metric_fn="mcc", seeds="allow-unbalanced", test="bootstrap")


def test_labels_must_agree_between_systems():
    df = _tidy(CASES["binary"])
    flip = (df["system"] == "C") & (df["item"] == "i002")
    df.loc[flip, "label"] = 1 - df.loc[flip, "label"]
    with pytest.raises(CompareError, match=r"item 'i002' has label .* for 'T' but .* for 'C'"):
        compare(df, metric_fn="mcc")
