"""Every analysis entry point reads its keyword defaults from its settings object and records it.

One row per entry point: the function, its settings class. The helpers that add an analysis
add its row here (``tests/helpers/settings_contract.py`` states the contract).
"""
from __future__ import annotations

import dataclasses
import inspect

import numpy as np
import pandas as pd
import pytest

import ranger_eval as rg
from ranger_eval import settings as S
from ranger_eval.errors import AggregateError, MetaInputError, SettingsError, StatsInputError
from ranger_eval.verdicts.bradley_terry import table_battle_counts
from tests.helpers.settings_contract import check_entry_point, check_result_settings

ENTRY_POINTS = [
    (rg.compare, S.CompareSettings),
    (rg.rank_test, S.RankSettings),
    (rg.rank_systems, S.RankSettings),
    (rg.win_rate, S.WinRateSettings),
    (rg.meta_analysis, S.MetaSettings),
    (rg.error_reduction, S.ErrorReductionSettings),
    (rg.rank_intervals, S.RankIntervalSettings),
    (rg.aso, S.ASOSettings),
    (rg.multi_aso, S.ASOSettings),
    (rg.verdicts.aso_groups, S.ASOSettings),
    (rg.bayesian_correlated_ttest, S.BayesSettings),
    (rg.bayesian_signed_rank, S.BayesSettings),
    (rg.bayesian_sign_test, S.BayesSettings),
    (rg.verdicts.correlated_ttests, S.BayesSettings),
    (rg.verdicts.dataset_tests, S.BayesSettings),
    (rg.bradley_terry, S.ArenaSettings),
    (rg.battle_counts, S.ArenaSettings),
    (table_battle_counts, S.ArenaSettings),
    (rg.plan, S.PlanSettings),
    (rg.plan_from_pilot, S.PlanSettings),
    (rg.effect_sizes, S.MetaSettings),
    (rg.effect_size_bootstrap, S.MetaSettings),
    (rg.condition_and_compare, S.RankSettings),
    (rg.subgroup_analysis, S.MetaSettings),
    (rg.ppi_mean, S.PPISettings),
    (rg.ppi_mean_difference, S.PPISettings),
    (rg.describe, S.DescribeSettings),
    (rg.cross_dataset_estimates, S.CrossDatasetSettings),
    (rg.predictive_check, S.PredictiveCheckSettings),
    (rg.pass_at_k, S.PassKSettings),
    (rg.pass_hat_k, S.PassKSettings),
    (rg.agreement, S.AgreementSettings),
    (rg.alt_test, S.AltTestSettings),
    (rg.confidence_sequence, S.ConfidenceSequenceSettings),
    (rg.monitor, S.MonitorSettings),
    (rg.estimate_from_subset, S.SubsetSettings),
    (rg.choose_subset, S.ChooseSubsetSettings),
    (rg.variance_components, S.VarianceSettings),
    (rg.irt, S.IRTSettings),
]

#: top-level functions that take an analysis keyword (level, seed, n_resamples, n_draws,
#: correction) but no settings=, each with its reason
NO_SETTINGS = {
    "effect_size": "one dataset's effect from two arrays: a building block of effect_sizes, "
                   "whose MetaSettings it follows",
    "funnel_plot": "a figure of a meta-analysis result (its level only draws the funnel)",
}
ANALYSIS_WORDS = {"level", "seed", "n_resamples", "n_draws", "correction"}


def test_every_top_level_analysis_takes_settings():
    """Every function of ``ranger_eval`` with an analysis keyword takes ``settings=`` and has a
    row above, except the listed few (each with its reason)."""
    rows = {func for func, _ in ENTRY_POINTS}
    missing, unlisted = [], []
    for name in rg.__all__:
        func = getattr(rg, name)
        if not inspect.isfunction(func):
            continue
        params = inspect.signature(func).parameters
        if not ANALYSIS_WORDS & set(params) or name in NO_SETTINGS:
            continue
        if "settings" not in params:
            missing.append(name)
        elif func not in rows:
            unlisted.append(name)
    assert not missing, f"no settings=: {missing}"
    assert not unlisted, f"no row in ENTRY_POINTS: {unlisted}"
    for name in NO_SETTINGS:  # the exceptions are real functions still lacking settings=
        assert "settings" not in inspect.signature(getattr(rg, name)).parameters, name

#: defaults that differ from the settings' on purpose (each explained in the function's docstring
#: and tested below): effect_sizes' measure None is "the data's measure" (SMD, or MD for a
#: set-level metric and judge scores with human scores); effect_size_bootstrap's treatment and
#: control are the data (arrays), not the settings' system names
DIFFERENT_DEFAULTS = {
    rg.effect_sizes: {"measure": None},
    rg.effect_size_bootstrap: {"treatment": inspect.Parameter.empty,
                               "control": inspect.Parameter.empty},
}


@pytest.mark.parametrize(("func", "cls"), ENTRY_POINTS, ids=lambda v: getattr(v, "__name__", ""))
def test_keyword_defaults_are_the_settings_defaults(func, cls):
    check_entry_point(func, cls, DIFFERENT_DEFAULTS.get(func))


def test_compare_result_carries_its_settings():
    rng = np.random.default_rng(0)
    df = pd.DataFrame({"dataset": "d", "metric": "m", "system": np.repeat(["a", "b"], 12),
                       "item": np.tile(np.arange(12), 2), "value": rng.random(24)})
    check_result_settings(rg.compare(df, level=0.9), S.CompareSettings, level=0.9)
    s = S.CompareSettings(test="wilcoxon")
    assert rg.compare(df, settings=s).settings is s


def test_irt_result_carries_its_settings():
    rng = np.random.default_rng(0)
    theta = rng.normal(size=(200, 1))
    x = (rng.random((200, 6)) < 1 / (1 + np.exp(-(theta - np.linspace(-1, 1, 6))))).astype(int)
    check_result_settings(rg.irt(x, fit_high=1.4), S.IRTSettings, fit_high=1.4)
    s = S.IRTSettings(model="2pl", n_quadrature=21)
    assert rg.irt(x, settings=s).settings is s


# --------------------------------------------------------------------------- rank and meta
def _wide(seed: int = 0, n: int = 6, k: int = 4) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    return pd.DataFrame(rng.random((n, k)), columns=[f"s{j}" for j in range(k)])


def _items(n_datasets: int = 3, n_items: int = 12, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    rows = [{"dataset": f"d{d}", "metric": "acc", "system": s, "item": i,
             "value": float(rng.random() * (0.7 if s == "a" else 1.0))}
            for d in range(n_datasets) for s in ("a", "b", "c") for i in range(n_items)]
    return pd.DataFrame(rows)


def test_rank_test_result_carries_its_settings():
    t = _wide()
    check_result_settings(rg.rank_test(t, level=0.9), S.RankSettings, level=0.9)
    s = S.RankSettings(posthoc="holm", control="s0")
    res = rg.rank_test(t, settings=s)
    assert res.settings is s and res.posthoc == "holm" and res.control == "s0"
    assert res.to_dict() == rg.rank_test(t, posthoc="holm", control="s0").to_dict()
    bayes = rg.rank_test(t, approach="bayesian", n_draws=500)
    check_result_settings(bayes, S.RankSettings, approach="bayesian", n_draws=500)
    assert bayes.n_draws == 500 and bayes.signature.fields["n_draws"] == "500"


def test_rank_test_direction_from_the_settings():
    t = _wide()
    assert rg.rank_test(t).higher_is_better is True  # None (RankSettings') is True here
    low = rg.rank_test(t, settings=S.RankSettings(higher_is_better=False))
    assert low.higher_is_better is False
    assert list(low.average_ranks.index) == list(rg.rank_test(-t).average_ranks.index)
    with pytest.raises(AggregateError, match="a mapping .* needs metric= naming one"):
        rg.rank_test(t, higher_is_better={"acc": False})


def test_rank_systems_result_carries_its_settings():
    df = _items()
    r = rg.rank_systems(df, level=0.9)
    check_result_settings(r, S.RankSettings, level=0.9)
    s = S.RankSettings(comparisons="all", level=0.9)
    again = rg.rank_systems(df, settings=s)
    assert again.settings is s and again.comparisons == "all"
    assert str(again.signature) == str(rg.rank_systems(df, comparisons="all",
                                                       level=0.9).signature)
    by = rg.rank_systems(df.assign(part=np.where(df["item"] < 6, "x", "y")), by="part",
                         settings=s)
    assert all(v.settings is s for v in by.values())


def test_win_rate_result_carries_its_settings():
    t = _wide()
    check_result_settings(rg.win_rate(t, n_resamples=50, seed=3), S.WinRateSettings,
                          n_resamples=50, seed=3)
    s = S.WinRateSettings(n_resamples=40, level=0.9)
    res = rg.win_rate(t, settings=s)
    assert res.settings is s and res.n_resamples == 40
    assert res.to_dict() == rg.win_rate(t, n_resamples=40, level=0.9).to_dict()
    assert S.WinRateSettings().n_resamples == 1000  # not RankSettings' 10,000: numbers kept


def test_meta_analysis_result_carries_its_settings():
    y, v = [0.1, 0.3, 0.2, 0.5], [0.01, 0.02, 0.015, 0.03]
    check_result_settings(rg.meta_analysis(y, v, method="dl", test="knha"), S.MetaSettings,
                          method="DL", test="knha")
    s = S.MetaSettings(method="PM", level=0.9, control="A", treatment="B")  # control: ignored
    res = rg.meta_analysis(y, v, settings=s)
    assert res.settings is s and (res.method, res.level) == ("PM", 0.9)
    plain = rg.meta_analysis(y, v, method="PM", level=0.9)
    assert (res.estimate, res.ci_low, res.tau2) == (plain.estimate, plain.ci_low, plain.tau2)
    reg = rg.meta_analysis(y, v, moderators={"x": [0.0, 1.0, 2.0, 3.0]}, settings=s)
    assert reg.settings is s
    with pytest.raises(MetaInputError, match=r"meta_analysis: method='DL' given together "
                       "with settings="):
        rg.meta_analysis(y, v, method="DL", settings=s)


def test_error_reduction_and_rank_intervals_carry_their_settings():
    df = _items()
    er = rg.error_reduction(df, treatment="b", control="a", n_resamples=20, seed=1)
    check_result_settings(er, S.ErrorReductionSettings, n_resamples=20, seed=1)
    s = S.ErrorReductionSettings(n_resamples=20, seed=1)
    same = rg.error_reduction(df, treatment="b", control="a", settings=s)
    assert same.settings is s and np.array_equal(same.vi, er.vi)
    ri = rg.rank_intervals(df, dataset="d0", n_resamples=200)
    check_result_settings(ri, S.RankIntervalSettings, n_resamples=200)
    s2 = S.RankIntervalSettings(n_resamples=200)
    assert np.array_equal(rg.rank_intervals(df, dataset="d0", settings=s2).rank_low,
                          ri.rank_low)
    with pytest.raises(SettingsError, match="rank_intervals: level=0.9 given together"):
        rg.rank_intervals(df, dataset="d0", level=0.9, settings=s2)


@pytest.mark.parametrize(("func", "data", "cls", "keyword"), [
    (rg.rank_test, lambda: (_wide(),), S.RankSettings, {"level": 0.9}),
    (rg.rank_systems, lambda: (_items(),), S.RankSettings, {"comparisons": "all"}),
    (rg.win_rate, lambda: (_wide(),), S.WinRateSettings, {"n_resamples": 10}),
], ids=["rank_test", "rank_systems", "win_rate"])
def test_a_keyword_next_to_settings_is_a_clash(func, data, cls, keyword):
    (key,) = keyword
    with pytest.raises(SettingsError, match=rf"{func.__name__}: {key}=.* given together "
                       "with settings="):
        func(*data(), settings=cls(), **keyword)
def _runs(seed_shift: float = 0.0) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(1)
    return {"a": rng.normal(0.5, 0.1, 6), "b": rng.normal(0.6 + seed_shift, 0.1, 6),
            "c": rng.normal(0.7, 0.1, 6)}


def test_aso_results_carry_their_settings():
    runs = _runs()
    check_result_settings(rg.aso(runs["a"], runs["b"], level=0.9, n_resamples=30),
                          S.ASOSettings, level=0.9, n_resamples=30)
    s = S.ASOSettings(n_resamples=30, correction="deepsig")
    assert rg.aso(runs["a"], runs["b"], settings=s).settings is s
    assert rg.multi_aso(runs, settings=s).attrs["settings"] is s
    frame = pd.DataFrame([("d", "m", name, i, float(v)) for name, xs in runs.items()
                          for i, v in enumerate(xs)],
                         columns=["dataset", "metric", "system", "seed", "value"])
    check_result_settings(rg.verdicts.aso_groups(frame, settings=s), S.ASOSettings,
                          correction="deepsig", n_resamples=30)


def test_bayes_results_carry_their_settings():
    runs = _runs()
    check_result_settings(rg.bayesian_correlated_ttest(runs["a"], runs["b"], rope=0.01),
                          S.BayesSettings, test="correlated-t", rope=0.01)
    check_result_settings(rg.bayesian_signed_rank(runs["a"], runs["b"], n_draws=100),
                          S.BayesSettings, test="signed-rank", n_draws=100)
    s = S.BayesSettings(test="sign", n_draws=100, prior_place="right")
    assert rg.bayesian_sign_test(runs["a"], runs["b"], settings=s).settings is s
    table = pd.DataFrame(runs)
    assert rg.verdicts.dataset_tests(table, settings=s).settings is s
    folds = pd.DataFrame([("d", "m", name, str(i), float(v)) for name, xs in runs.items()
                          for i, v in enumerate(xs)],
                         columns=["dataset", "metric", "system", "item", "value"])
    check_result_settings(rg.verdicts.correlated_ttests(rg.Scores(folds), rope=0.02),
                          S.BayesSettings, rope=0.02)
def test_ratings_carry_their_settings():
    battles = pd.DataFrame({"model_a": ["a", "b", "c", "a", "b"],
                            "model_b": ["b", "c", "a", "c", "a"],
                            "winner": ["model_a", "model_a", "model_a", "tie", "model_a"]})
    check_result_settings(rg.bradley_terry(battles, n_resamples=0, level=0.9), S.ArenaSettings,
                          level=0.9, n_resamples=0)
    s = S.ArenaSettings(n_resamples=0, scale=1.0)
    by_object = rg.bradley_terry(battles, settings=s)
    assert by_object.settings is s and by_object.scale == 1.0
    assert by_object.ratings.equals(rg.bradley_terry(battles, n_resamples=0, scale=1).ratings)
    with pytest.raises(SettingsError, match=r"bradley_terry: seed=3 given together with settings="):
        rg.bradley_terry(battles, settings=s, seed=3)


def test_plans_carry_their_settings():
    check_result_settings(rg.plan("welch", effect=0.5, power=0.8, level=0.9), S.PlanSettings,
                          level=0.9, test="welch")
    s = S.PlanSettings(test="paired-t", level=0.99)
    p = rg.plan(settings=s, effect=0.5, power=0.8)
    assert p.settings is s and p.level == 0.99 and p.alpha == 0.01
    assert p.n == rg.plan("paired-t", effect=0.5, power=0.8, level=0.99).n
    with pytest.raises(StatsInputError, match="n_resamples=500: only a plan simulated from a "
                                              "pilot"):
        rg.plan(settings=S.PlanSettings(test="welch", n_resamples=500), effect=0.5, power=0.8)
    rng = np.random.default_rng(1)
    frame = pd.DataFrame({"dataset": "d", "system": np.repeat(["A", "B"], 20),
                          "item": [f"i{k}" for k in range(20)] * 2, "value": rng.random(40)})
    q = rg.plan_from_pilot(frame, treatment="B", control="A", effect=0.2, n=20,
                           settings=S.PlanSettings(n_resamples=100, seed=2))
    check_result_settings(q, S.PlanSettings, n_resamples=100, seed=2)
    assert q.n_resamples == 100 and q.test == "paired-t"
    with pytest.raises(StatsInputError, match="superiority tests only"):
        rg.plan_from_pilot(frame, treatment="B", control="A", effect=0.2, n=20,
                           settings=S.PlanSettings(margin=0.1))
# --------------------------------------------------------------------------- effect sizes
def _paired_scores(seed: int = 0, k: int = 3) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    n = 12
    return pd.DataFrame({
        "dataset": np.repeat([f"d{i}" for i in range(k)], 2 * n), "metric": "m",
        "system": np.tile(np.repeat(["a", "b"], n), k), "item": np.tile(np.arange(n), 2 * k),
        "value": rng.random(2 * n * k)})


def test_effect_sizes_result_carries_its_settings():
    df = _paired_scores()
    eff = rg.effect_sizes(df, treatment="b", control="a", level=0.9, measure="MD")
    check_result_settings(eff, S.MetaSettings, level=0.9, measure="MD", treatment="b",
                          control="a")
    s = S.MetaSettings(treatment="b", control="a", measure="SMCC", level=0.8)
    by_settings = rg.effect_sizes(df, settings=s)
    assert by_settings.settings is s
    by_keywords = rg.effect_sizes(df, treatment="b", control="a", measure="SMCC", level=0.8)
    np.testing.assert_array_equal(by_settings.yi, by_keywords.yi)
    np.testing.assert_array_equal(by_settings.vi, by_keywords.vi)
    assert by_settings.signature == by_keywords.signature
    # the systems may come from the keywords beside settings (they are the data's)
    assert rg.effect_sizes(df, treatment="b", control="a",
                           settings=S.MetaSettings(level=0.8)).level == 0.8


def test_effect_sizes_settings_clash_and_missing_systems():
    df = _paired_scores()
    with pytest.raises(SettingsError, match=r"effect_sizes: level=0.9 given together with "
                                               r"settings="):
        rg.effect_sizes(df, treatment="b", control="a", level=0.9, settings=S.MetaSettings())
    with pytest.raises(SettingsError, match=r"effect_sizes: treatment='a' given together "
                                               r"with settings= whose treatment is 'b'"):
        rg.effect_sizes(df, treatment="a", settings=S.MetaSettings(treatment="b", control="a"))
    with pytest.raises(rg.EffectSizeError, match="effect_sizes: control is required"):
        rg.effect_sizes(df, treatment="b")


def test_effect_sizes_measure_default_is_the_datas_measure():
    """measure=None (the keyword default) and MetaSettings' "SMD" give the same numbers: SMD for
    per-item scores, MD for a set-level metric, where an explicit measure="SMD" is an error."""
    df = _paired_scores()
    smd = rg.effect_sizes(df, treatment="b", control="a")
    assert smd.measure == "SMD" == S.MetaSettings().measure
    same = rg.effect_sizes(df, settings=S.MetaSettings(treatment="b", control="a"))
    np.testing.assert_array_equal(same.yi, smd.yi)
    labels = df.assign(label=(df["item"] % 2).astype(str),
                       prediction=np.where(df["value"] > 0.5, "1", "0"))
    md = rg.effect_sizes(labels, treatment="b", control="a", metric_fn="accuracy", n_resamples=50)
    assert md.measure == "MD"
    s = S.MetaSettings(treatment="b", control="a", metric_fn="accuracy", n_resamples=50)
    by_settings = rg.effect_sizes(labels, settings=s)
    assert by_settings.measure == "MD" and by_settings.settings is s
    np.testing.assert_array_equal(by_settings.yi, md.yi)
    np.testing.assert_array_equal(by_settings.vi, md.vi)
    with pytest.raises(rg.EffectSizeError, match="measure 'SMD' is not available with metric_fn"):
        rg.effect_sizes(labels, treatment="b", control="a", metric_fn="accuracy", measure="SMD")


def test_effect_size_bootstrap_takes_settings():
    rng = np.random.default_rng(1)
    labels = rng.integers(0, 2, 40)
    t = np.where(rng.random(40) < 0.8, labels, 1 - labels)
    c = np.where(rng.random(40) < 0.6, labels, 1 - labels)
    s = S.MetaSettings(metric_fn="accuracy", n_resamples=120, seed=3, level=0.9)
    by_settings = rg.effect_size_bootstrap(t, c, labels=labels, settings=s)
    by_keywords = rg.effect_size_bootstrap(t, c, labels=labels, metric_fn="accuracy",
                                           n_resamples=120, seed=3, level=0.9)
    assert by_settings.settings is s
    check_result_settings(by_keywords, S.MetaSettings, metric_fn="accuracy", n_resamples=120)
    assert (by_settings.yi, by_settings.vi) == (by_keywords.yi, by_keywords.vi)
    assert by_settings.signature == by_keywords.signature
    with pytest.raises(SettingsError, match="effect_size_bootstrap: seed=4 given together"):
        rg.effect_size_bootstrap(t, c, labels=labels, seed=4, settings=s)
    with pytest.raises(rg.EffectSizeError, match="metric_fn is required"):
        rg.effect_size_bootstrap(t, c, labels=labels)
    replaced = dataclasses.replace(s, seed=None)
    assert rg.effect_size_bootstrap(t, c, labels=labels, settings=replaced).settings.seed is None


# --------------------------------------------------------------------------- wave 2
def _judged() -> pd.DataFrame:
    nan = float("nan")
    return pd.DataFrame({
        "dataset": "d", "metric": "acc", "item": list(range(10)) * 2,
        "system": ["A"] * 10 + ["B"] * 10,
        "value": [.9, .7, .8, .6, .75, .85, .65, .7, .8, .9,
                  .6, .5, .7, .4, .55, .65, .45, .5, .6, .7],
        "human_value": [1, 1, 1, 0, 1] + [nan] * 5 + [1, 0, 1, 0, 0] + [nan] * 5})


def test_ppi_results_carry_their_settings():
    df = _judged()
    r = rg.ppi_mean(df, system="A", level=0.9, method="ppi")
    check_result_settings(r, S.PPISettings, level=0.9, method="ppi")
    s = S.PPISettings(level=0.9, method="ppi")
    again = rg.ppi_mean(df, system="A", settings=s)
    assert again.settings is s and again.to_dict() == r.to_dict()
    assert "settings" not in r.to_dict()  # the JSON keeps its keys
    d = rg.ppi_mean_difference(df, treatment="A", control="B", settings=s)
    assert d.settings is s
    assert d.to_dict() == rg.ppi_mean_difference(df, treatment="A", control="B", level=0.9,
                                                 method="ppi").to_dict()
    with pytest.raises(SettingsError, match="ppi_mean: level=0.8 given together with settings="):
        rg.ppi_mean(df, system="A", level=0.8, settings=s)
    with pytest.warns(UserWarning, match="has no effect"):
        assert rg.ppi_mean(df, system="A", cluster_se="cr1").settings.cluster_se == "CR1"


def test_describe_takes_its_settings():
    df = _items(n_datasets=1)
    s = S.DescribeSettings(level=0.9, interval="t")
    assert rg.describe(df, settings=s).equals(rg.describe(df, level=0.9, interval="t"))
    with pytest.raises(SettingsError, match="describe: level=0.8 given together"):
        rg.describe(df, settings=s, level=0.8)


def test_subgroup_analysis_result_carries_its_settings():
    y, v = [0.10, 0.30, 0.25, 0.05, 0.40, 0.20], [0.01, 0.02, 0.015, 0.01, 0.03, 0.02]
    g = ["a", "a", "b", "b", "b", "a"]
    r = rg.subgroup_analysis(y, v, g, method="dl", level=0.9)
    check_result_settings(r, S.MetaSettings, method="DL", level=0.9)
    s = S.MetaSettings(method="DL", level=0.9)
    again = rg.subgroup_analysis(y, v, g, settings=s)
    assert again.settings is s and again.to_dict() == r.to_dict()
    with pytest.raises(MetaInputError, match="subgroup_analysis: test='t' given together"):
        rg.subgroup_analysis(y, v, g, test="t", settings=s)


def test_condition_and_compare_result_carries_its_settings():
    vals = {"m1-t0": [.8, .6, .9, .5, .7, .7], "m1-t1": [.6, .5, .7, .4, .6, .5],
            "m2-t0": [.7, .7, .8, .6, .8, .6], "m2-t1": [.5, .6, .6, .4, .5, .6]}
    df = pd.DataFrame([{"dataset": "d", "metric": "acc", "item": i, "system": name, "value": x}
                       for name, xs in vals.items() for i, x in enumerate(xs)])
    params = pd.DataFrame({"model": ["m1", "m1", "m2", "m2"],
                           "temperature": [0.0, 1.0, 0.0, 1.0]}, index=list(vals))
    cc = rg.condition_and_compare(df, params, condition=["model"], compare=["temperature"],
                                  test="welch", level=0.9)
    check_result_settings(cc, S.RankSettings, test="welch", level=0.9)
    s = S.RankSettings(test="welch", level=0.9, comparisons="all")  # comparisons: first-vs-rest
    again = rg.condition_and_compare(df, params, condition=["model"], compare=["temperature"],
                                     settings=s)
    assert again.settings is s
    for key, ranking in cc.rankings.items():
        assert str(again.rankings[key].signature) == str(ranking.signature)
        assert again.rankings[key].comparisons == "first-vs-rest"


# --------------------------------------------------------------------------- Søgaard's estimators
def _effects(d: int = 8, n: int = 30) -> rg.ErrorReduction:
    rng = np.random.default_rng(4)
    frame = pd.DataFrame({
        "dataset": np.repeat([f"d{j}" for j in range(d)], 2 * n), "metric": "acc",
        "system": np.tile(np.repeat(["a", "b"], n), d), "item": np.tile(np.arange(n), 2 * d),
        "value": (rng.random(2 * n * d) < np.tile(np.repeat([0.6, 0.75], n), d)).astype(float)})
    return rg.error_reduction(frame, treatment="b", control="a", n_resamples=30)


def test_cross_dataset_estimates_result_carries_its_settings():
    er = _effects()
    check_result_settings(rg.cross_dataset_estimates(er, level=0.9, method="pm"),
                          S.CrossDatasetSettings, level=0.9, method="PM")
    s = S.CrossDatasetSettings(gumbel_weights="RE")
    res = rg.cross_dataset_estimates(er, settings=s)
    assert res.settings is s and res.gumbel_weights == "RE"
    assert S.CrossDatasetSettings().method == "DL" != S.MetaSettings().method  # Søgaard's τ²


def test_predictive_check_result_carries_its_settings():
    er = _effects()
    res = rg.predictive_check(er, k=(2, 4), n_test=3, n_resamples=5, seed=1)
    check_result_settings(res, S.PredictiveCheckSettings, k=(2, 4), n_resamples=5, seed=1)
    assert res.n_resamples == 5 and res.effects.n_resamples == 30
    s = S.PredictiveCheckSettings(k=(2, 4), n_test=3, n_resamples=5, seed=1)
    again = rg.predictive_check(er, settings=s)
    assert again.settings is s and again.signature == res.signature
    with pytest.raises(SettingsError, match="predictive_check: n_resamples=6 given together"):
        rg.predictive_check(er, n_resamples=6, settings=s)
