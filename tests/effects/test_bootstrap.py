"""Effect sizes of set-level metrics (paired bootstrap) and the combination of seeds."""
from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import ranger_eval as rg
from ranger_eval.effects import (
    BootstrapEffectSize,
    EffectSizeError,
    effect_size,
    effect_size_bootstrap,
    effect_sizes,
)
from ranger_eval.errors import ScoresError
from tests.helpers.setmetric_cases import tidy_case as _tidy

ORACLE = json.loads((Path(__file__).parent.parent / "oracles" / "setmetrics_oracle.json").read_text())
CASES = {c["name"]: c for c in ORACLE["cases"]}
B, SEED = ORACLE["n_resamples"], ORACLE["seed"]




# --------------------------------------------------------------------------- one dataset
@pytest.mark.parametrize(("case", "name"), [
    ("binary", "mcc"), ("binary", "f1"), ("multiclass", "macro_f1"), ("strings", "mcc"),
    ("regression", "spearman"), ("regression", "rmse"),
])
def test_effect_size_bootstrap_matches_reference(case, name):
    c = CASES[case]
    e = effect_size_bootstrap(c["treatment"], c["control"], metric_fn=name, labels=c["labels"], n_resamples=B,
                              seed=SEED, dataset="x")
    want = c["metrics"][name]
    assert isinstance(e, BootstrapEffectSize)
    assert e.yi == pytest.approx(want["treatment"] - want["control"], rel=1e-12)
    assert e.vi == pytest.approx(want["boot_vi"], rel=1e-10)
    assert e.vi_items == e.vi and e.vi_seeds == 0.0
    assert e.mean_treatment == pytest.approx(want["treatment"], rel=1e-12)
    assert (e.measure, e.metric, e.n, e.n_resamples, e.seed) == ("MD", name, len(c["labels"]), B, SEED)
    assert e.boot.shape == (B,)
    lo, hi = e.percentile_interval()
    assert lo <= hi and e.ci_low < e.yi < e.ci_high
    sig = e.signature
    assert f"paired-bootstrap[{name}]" in sig and f"n_resamples:{B}" in sig and f"seed:{SEED}" in sig


def test_bootstrap_of_accuracy_agrees_with_the_analytic_mean_difference():
    rng = np.random.default_rng(3)
    n = 2000
    y = rng.integers(0, 2, n)
    t = np.where(rng.random(n) < 0.8, y, 1 - y)
    c = np.where(rng.random(n) < 0.75, y, 1 - y)
    boot = effect_size_bootstrap(t, c, metric_fn="accuracy", labels=y, n_resamples=2000)
    md = effect_size((t == y).astype(float), (c == y).astype(float), measure="MD")
    assert boot.yi == pytest.approx(md.yi, rel=1e-12)
    assert boot.vi == pytest.approx(md.vi, rel=0.1)  # bootstrap variance ≈ sd(d)²/n
    mean = effect_size_bootstrap((t == y).astype(float), (c == y).astype(float), metric_fn=np.mean)
    assert mean.metric == "mean" and mean.yi == pytest.approx(md.yi, rel=1e-12)


def test_same_seed_same_variance_other_seed_other_variance():
    c = CASES["multiclass"]
    a = effect_size_bootstrap(c["treatment"], c["control"], metric_fn="mcc", labels=c["labels"], seed=1)
    b = effect_size_bootstrap(c["treatment"], c["control"], metric_fn="mcc", labels=c["labels"], seed=1)
    d = effect_size_bootstrap(c["treatment"], c["control"], metric_fn="mcc", labels=c["labels"], seed=2)
    assert a.vi == b.vi and np.array_equal(a.boot, b.boot)
    assert a.vi != d.vi and a.yi == d.yi


def test_effect_size_bootstrap_errors():
    c = CASES["binary"]
    args = (c["treatment"], c["control"])
    kw = {"metric_fn": "mcc", "labels": c["labels"]}
    with pytest.raises(EffectSizeError, match="n_resamples must be an integer >= 2"):
        effect_size_bootstrap(*args, **kw, n_resamples=1)
    with pytest.raises(EffectSizeError, match="seed: must be a whole number ≥ 0; got -3"):
        effect_size_bootstrap(*args, **kw, seed=-3)
    with pytest.raises(EffectSizeError, match="seeds: unknown seeds policy .some.; use one of balanced, allow-unbalanced"):
        effect_size_bootstrap(*args, **kw, seeds="some")
    with pytest.raises(EffectSizeError, match=r"dataset 'x', metric pearson: metric 'pearson' is undefined .*control"):
        effect_size_bootstrap([1.0, 2.0, 3.0], [2.0, 2.0, 2.0], metric_fn="pearson", labels=[1.0, 2.0, 2.5],
                              dataset="x")
    with pytest.raises(EffectSizeError, match="at least 2 items"):
        effect_size_bootstrap([1], [0], metric_fn="accuracy", labels=[1])
    with pytest.raises(EffectSizeError, match=r"unbalanced seeds: treatment has 2 runs and control 1"):
        effect_size_bootstrap([c["treatment"]] * 2, [c["control"]], metric_fn="mcc", labels=c["labels"])


def test_undefined_on_a_resample_is_an_error_naming_the_count():
    # 4 items: some resamples draw one item only → constant predictions → r undefined
    with pytest.raises(EffectSizeError, match=r"undefined on \d+ of 500 bootstrap resamples"):
        effect_size_bootstrap([1.0, 2.0, 3.0, 4.0], [1.0, 3.0, 2.0, 4.0], metric_fn="pearson",
                              labels=[1.0, 2.0, 3.0, 4.5], n_resamples=500)


# --------------------------------------------------------------------------- over Scores
def test_effect_sizes_with_metric_fn_over_datasets_then_meta_analysis():
    df = pd.concat([_tidy(CASES["binary"], "bin"), _tidy(CASES["multiclass"], "multi"),
                    _tidy(CASES["strings"], "str")], ignore_index=True)
    eff = effect_sizes(df, treatment="T", control="C", metric_fn="mcc", n_resamples=B, seed=SEED)
    assert eff.names == ("bin", "multi", "str")
    assert eff.measure == "MD" and eff.metric == "mcc" and eff.metrics == ("mcc",) * 3
    for name, case in zip(eff.names, ("binary", "multiclass", "strings"), strict=True):
        want = CASES[case]["metrics"]["mcc"]
        i = eff.names.index(name)
        assert eff.yi[i] == pytest.approx(want["treatment"] - want["control"], rel=1e-12)
        assert eff.vi[i] == pytest.approx(want["boot_vi"], rel=1e-10)
        assert eff.mean_control[i] == pytest.approx(want["control"], rel=1e-12)
    assert (eff.n_resamples, eff.seed) == (B, SEED)
    assert "method_detail:paired-bootstrap[mcc]" in eff.signature
    assert eff.extra is None  # no seed column
    res = rg.meta_analysis(eff, method="REML")
    assert res.k == 3 and np.isfinite(res.estimate)
    # the old API is unchanged: per-item values, measure SMD by default
    old = effect_sizes(df, treatment="T", control="C")
    assert old.measure == "SMD" and old.n_resamples is None and "bootstrap" not in old.signature


def test_metric_fn_item_order_does_not_matter():
    df = _tidy(CASES["multiclass"], "m")
    a = effect_sizes(df, treatment="T", control="C", metric_fn="macro_f1")
    b = effect_sizes(df.sample(frac=1.0, random_state=4), treatment="T", control="C", metric_fn="macro_f1")
    assert a.yi[0] == b.yi[0] and a.vi[0] == b.vi[0]


def test_values_callable_reads_the_value_column():
    df = _tidy(CASES["binary"], "bin").drop(columns=["label", "prediction"])
    eff = effect_sizes(df, treatment="T", control="C", metric_fn=np.mean, n_resamples=B, seed=SEED)
    acc = CASES["binary"]["metrics"]["accuracy"]
    assert eff.yi[0] == pytest.approx(acc["treatment"] - acc["control"], rel=1e-12)
    assert eff.vi[0] == pytest.approx(acc["boot_vi"], rel=1e-10)


def test_metric_fn_errors_name_dataset_system_and_item():
    df = _tidy(CASES["binary"], "bin")
    with pytest.raises(EffectSizeError, match="measure 'SMD' is not available with metric_fn='mcc'"):
        effect_sizes(df, treatment="T", control="C", measure="SMD", metric_fn="mcc")
    with pytest.raises(EffectSizeError, match="did you mean 'macro_f1'"):
        effect_sizes(df, treatment="T", control="C", metric_fn="macro_f")
    with pytest.raises(ScoresError, match=r"dataset 'bin', system 'T'.*missing: 'label'"):
        effect_sizes(df.drop(columns=["label"]), treatment="T", control="C", metric_fn="mcc")
    bad = df.copy()
    bad.loc[(bad["system"] == "C") & (bad["item"] == "i004"), "label"] = 1 - bad.loc[
        (bad["system"] == "C") & (bad["item"] == "i004"), "label"]
    with pytest.raises(ScoresError, match=r"item 'i004' has label .* for 'T' but .* for 'C'"):
        effect_sizes(bad, treatment="T", control="C", metric_fn="mcc")
    empty = df.astype({"prediction": object})
    empty.loc[3, "prediction"] = None
    with pytest.raises(ScoresError, match=r"system 'T'.*empty 'prediction' for item 'i003'"):
        effect_sizes(empty, treatment="T", control="C", metric_fn="mcc")
    const = df.assign(prediction=np.where(df["system"] == "C", 0.0, df["prediction"]))
    with pytest.raises(EffectSizeError, match=r"dataset 'bin', metric 'pearson'.*undefined .*system 'C'"):
        effect_sizes(const, treatment="T", control="C", metric_fn="pearson")


# --------------------------------------------------------------------------- seeds
def _seeded(n=40, seeds_t=(0, 1, 2), seeds_c=(0, 1, 2), delta=0.0, rng_seed=0) -> pd.DataFrame:
    """Treatment seed k is shifted by delta·(k − mean k); items share a per-item noise."""
    rng = np.random.default_rng(rng_seed)
    base = rng.normal(0.5, 0.2, n)
    item_noise = rng.normal(0.0, 0.1, n)
    rows = []
    centre = np.mean(seeds_t)
    for system, seeds in (("T", seeds_t), ("C", seeds_c)):
        for k in seeds:
            noise = rng.normal(0.0, 0.05, n)
            v = base + noise if system == "C" else base + 0.1 + item_noise + noise + delta * (k - centre)
            rows += [("d", system, f"i{i:03d}", str(k), float(x)) for i, x in enumerate(v)]
    return pd.DataFrame(rows, columns=["dataset", "system", "item", "seed", "value"])


def _matrix(df, system):
    return df[df["system"] == system].pivot(index="seed", columns="item", values="value").to_numpy()


def test_single_seed_column_changes_nothing():
    df = _seeded(seeds_t=(0,), seeds_c=(0,))
    for measure in ("MD", "SMD", "ZCOR"):
        a = effect_sizes(df, treatment="T", control="C", measure=measure)
        b = effect_sizes(df.drop(columns=["seed"]), treatment="T", control="C", measure=measure)
        assert a.yi[0] == b.yi[0] and a.vi[0] == b.vi[0]
        assert a.extra is not None and a.extra.loc["d", "n_seeds_treatment"] == 1
        assert a.extra.loc["d", "vi_seeds"] == 0.0


def test_md_over_seeds_is_the_documented_two_way_formula():
    df = _seeded(delta=0.03)
    eff = effect_sizes(df, treatment="T", control="C", measure="MD")
    t, c = _matrix(df, "T"), _matrix(df, "C")
    per_seed = (t - c).mean(axis=1)
    s, n = t.shape
    vi_items = (t - c).mean(axis=0).var(ddof=1) / n
    vi_seeds = per_seed.var(ddof=1) / s
    assert eff.yi[0] == pytest.approx(per_seed.mean(), rel=1e-12)
    assert eff.vi[0] == pytest.approx(vi_items + vi_seeds, rel=1e-12)
    frame = eff.to_frame()
    assert frame.loc[0, "n_seeds_treatment"] == 3 and frame.loc[0, "n_seeds_control"] == 3
    assert frame.loc[0, "vi_items"] == pytest.approx(vi_items, rel=1e-12)
    assert frame.loc[0, "vi_seeds"] == pytest.approx(vi_seeds, rel=1e-12)
    assert eff.seed_rule == "paired" and "seeds[paired]" in eff.signature
    # two-way ANOVA: (MS_items + MS_seeds) / (nS)
    d = t - c
    ms_items = s * ((d.mean(axis=0) - d.mean()) ** 2).sum() / (n - 1)
    ms_seeds = n * ((d.mean(axis=1) - d.mean()) ** 2).sum() / (s - 1)
    assert eff.vi[0] == pytest.approx((ms_items + ms_seeds) / (n * s), rel=1e-12)


def test_standardised_measures_over_seeds():
    df = _seeded(delta=0.03)
    t, c = _matrix(df, "T"), _matrix(df, "C")
    for measure in ("SMD", "SMCC", "SMCR", "ZCOR"):
        per = [effect_size(t[k], c[k], measure=measure) for k in range(3)]
        yis = np.array([e.yi for e in per])
        eff = effect_sizes(df, treatment="T", control="C", measure=measure)
        assert eff.yi[0] == pytest.approx(yis.mean(), rel=1e-12)
        assert eff.vi[0] == pytest.approx(np.mean([e.vi for e in per]) + yis.var(ddof=1) / 3, rel=1e-12)


@pytest.mark.parametrize("measure", ["MD", "SMD"])
def test_variance_grows_with_the_spread_between_seeds(measure):
    vis = []
    for delta in (0.0, 0.02, 0.05, 0.1, 0.2):
        eff = effect_sizes(_seeded(delta=delta), treatment="T", control="C", measure=measure)
        vis.append(eff.vi[0])
        if measure == "MD":
            assert eff.extra is not None
            # items part unchanged: the seed shifts are constant over items
            assert eff.extra.loc["d", "vi_items"] == pytest.approx(
                effect_sizes(_seeded(delta=0.0), treatment="T", control="C", measure="MD").extra.loc["d", "vi_items"],
                rel=1e-9)
    assert all(b > a for a, b in zip(vis, vis[1:], strict=False))


def test_seeds_are_paired_in_natural_order():
    # seeds "2" and "10": numeric order pairs 2 with 2 and 10 with 10
    df = _seeded(seeds_t=(2, 10), seeds_c=(2, 10), delta=0.01)
    eff = effect_sizes(df, treatment="T", control="C", measure="SMD")
    t = df[df["system"] == "T"].pivot(index="item", columns="seed", values="value")
    c = df[df["system"] == "C"].pivot(index="item", columns="seed", values="value")
    per = [effect_size(t[k].to_numpy(), c[k].to_numpy(), measure="SMD").yi for k in ("2", "10")]
    assert eff.yi[0] == pytest.approx(np.mean(per), rel=1e-12)


def test_unbalanced_seeds_are_an_error_naming_systems_and_counts():
    df = _seeded(seeds_t=(0, 1, 2), seeds_c=(0, 1))
    with pytest.raises(EffectSizeError, match=(
            r"dataset 'd' \(metric 'score'\): unbalanced seeds of 'T' and 'C': .*'T' has 3 seeds "
            r"\('0', '1', '2'\); 'C' has 2 seeds .*seeds='allow-unbalanced'")):
        effect_sizes(df, treatment="T", control="C", measure="MD")
    gap = _seeded()
    gap = gap[~((gap["system"] == "C") & (gap["seed"] == "1") & gap["item"].isin(["i003", "i007"]))]
    with pytest.raises(EffectSizeError, match=r"system 'C': seed '1' did not score 2 of its 40 items \('i003', 'i007'\)"):
        effect_sizes(gap, treatment="T", control="C", measure="MD")


def test_allow_unbalanced_md_is_unpaired():
    df = _seeded(seeds_t=(0, 1, 2), seeds_c=(0, 1), delta=0.02)
    eff = effect_sizes(df, treatment="T", control="C", measure="MD", seeds="allow-unbalanced")
    t, c = _matrix(df, "T"), _matrix(df, "C")
    d_bar = t.mean(axis=0) - c.mean(axis=0)
    want_seeds = t.mean(axis=1).var(ddof=1) / 3 + c.mean(axis=1).var(ddof=1) / 2
    assert eff.yi[0] == pytest.approx(d_bar.mean(), rel=1e-12)
    assert eff.vi[0] == pytest.approx(d_bar.var(ddof=1) / d_bar.size + want_seeds, rel=1e-12)
    assert eff.seed_rule == "unpaired" and "seeds[unpaired]" in eff.signature
    assert list(eff.extra.loc["d", ["n_seeds_treatment", "n_seeds_control"]]) == [3, 2]
    with pytest.raises(EffectSizeError, match="only for measure 'MD' or a metric_fn, not 'SMD'"):
        effect_sizes(df, treatment="T", control="C", measure="SMD", seeds="allow-unbalanced")
    # a seed missing items: per-item means over the seeds that scored the item
    gap = _seeded(delta=0.02)
    gap = gap[~((gap["system"] == "C") & (gap["seed"] == "1") & (gap["item"] == "i003"))]
    eff = effect_sizes(gap, treatment="T", control="C", measure="MD", seeds="allow-unbalanced")
    assert np.isfinite(eff.vi[0]) and eff.extra.loc["d", "vi_seeds"] > 0


def _seeded_predictions(seeds_t=(0, 1, 2), seeds_c=(0, 1, 2), n=60, flip=0.0, rng_seed=1):
    rng = np.random.default_rng(rng_seed)
    y = rng.integers(0, 3, n)
    rows = []
    for system, seeds, acc in (("T", seeds_t, 0.8), ("C", seeds_c, 0.65)):
        for k in seeds:
            a = acc + (flip * (k - 1) if system == "T" else 0.0)
            p = np.where(rng.random(n) < a, y, rng.integers(0, 3, n))
            rows += [("d", system, f"i{i:03d}", str(k), int(y[i]), int(p[i]), float(y[i] == p[i]))
                     for i in range(n)]
    return pd.DataFrame(rows, columns=["dataset", "system", "item", "seed", "label", "prediction",
                                       "value"])


def test_metric_fn_over_seeds_bootstraps_items_jointly():
    skm = pytest.importorskip("sklearn.metrics", reason="scikit-learn is the oracle here (the 'test' extra)")
    from ranger_eval.setmetrics import bootstrap_values, encode, metric

    df = _seeded_predictions()
    eff = effect_sizes(df, treatment="T", control="C", metric_fn="mcc", n_resamples=300, seed=5)
    pick = {s: df[df["system"] == s].sort_values(["seed", "item"]) for s in ("T", "C")}
    y = pick["T"][pick["T"]["seed"] == "0"]["label"].to_numpy()
    runs = {s: [g["prediction"].to_numpy() for _, g in pick[s].groupby("seed")] for s in pick}
    per_seed = np.array([skm.matthews_corrcoef(y, a) - skm.matthews_corrcoef(y, b)
                         for a, b in zip(runs["T"], runs["C"], strict=True)])
    enc = encode(metric("mcc"), y, runs["T"] + runs["C"])
    boot, _ = bootstrap_values(enc, 300, 5)
    d_star = boot[:, :3].mean(axis=1) - boot[:, 3:].mean(axis=1)
    assert eff.yi[0] == pytest.approx(per_seed.mean(), rel=1e-12)
    assert eff.extra.loc["d", "vi_items"] == pytest.approx(d_star.var(ddof=1), rel=1e-12)
    assert eff.extra.loc["d", "vi_seeds"] == pytest.approx(per_seed.var(ddof=1) / 3, rel=1e-12)
    assert eff.vi[0] == pytest.approx(d_star.var(ddof=1) + per_seed.var(ddof=1) / 3, rel=1e-12)
    again = effect_sizes(df, treatment="T", control="C", metric_fn="mcc", n_resamples=300, seed=5)
    assert again.vi[0] == eff.vi[0]
    assert "paired-bootstrap[mcc],seeds[paired]" in eff.signature


def test_metric_fn_unbalanced_seeds():
    df = _seeded_predictions(seeds_c=(0, 1))
    with pytest.raises(EffectSizeError, match="unbalanced seeds"):
        effect_sizes(df, treatment="T", control="C", metric_fn="mcc")
    eff = effect_sizes(df, treatment="T", control="C", metric_fn="mcc", seeds="allow-unbalanced", n_resamples=200)
    assert eff.seed_rule == "unpaired" and math.isfinite(eff.vi[0])
    gap = _seeded_predictions()
    gap = gap[~((gap["system"] == "T") & (gap["seed"] == "2") & (gap["item"] == "i005"))]
    with pytest.raises(EffectSizeError, match=r"system 'T', seed '2' did not score 1 .*every seed to score every item"):
        effect_sizes(gap, treatment="T", control="C", metric_fn="mcc", seeds="allow-unbalanced")
