"""One frozen settings object per analysis: every default in one place, checked once.

The defaults of ``compare``, the CLI, the YAML and the lazy backend are all read from the fields
of :class:`CompareSettings`, :class:`RankSettings` and :class:`MetaSettings`; the tests below walk
every field and every consumer, so a default written a second time somewhere fails here.
"""
from __future__ import annotations

import dataclasses

import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

import ranger_eval as rg
from ranger_eval import settings as S
from ranger_eval.errors import AggregateError, CompareError, ConfigError, SettingsError

ALL = (S.CompareSettings, S.RankSettings, S.MetaSettings, S.ArenaSettings, S.PlanSettings)


def test_exported_and_frozen():
    assert rg.CompareSettings is S.CompareSettings
    assert rg.RankSettings is S.RankSettings and rg.MetaSettings is S.MetaSettings
    s = rg.CompareSettings()
    with pytest.raises(dataclasses.FrozenInstanceError):
        s.level = 0.9  # type: ignore[misc]


#: Python-only settings (no command, no YAML section): the analyses whose defaults differ from
#: their command's (win rates 1,000 resamples, rank intervals 2,000, error reductions 50) or
#: that have no command (Søgaard's cross-dataset estimates and predictive check).
PYTHON_ONLY = (S.WinRateSettings, S.RankIntervalSettings, S.ErrorReductionSettings,
               S.CrossDatasetSettings, S.PredictiveCheckSettings)


@pytest.mark.parametrize("cls", ALL + PYTHON_ONLY)
def test_every_field_has_metadata_and_a_valid_default(cls):
    fields = S.settings_fields(cls)
    assert fields
    for name, (default, meta) in fields.items():
        assert isinstance(meta, S.Setting) and meta.help.strip(), name
        assert meta.check(default) == default, name  # the default passes its own check
    assert dataclasses.asdict(cls()) == {k: d for k, (d, _) in fields.items()}


def test_error_is_one_class_naming_key_and_value():
    cases = [
        (S.CompareSettings, {"level": 1.5}, "level: must be strictly between 0 and 1 (e.g. 0.95); got 1.5"),
        (S.CompareSettings, {"n_resamples": 0}, "n_resamples: must be a whole number from 1 to "
                                                "100,000,000 (10^8); got 0"),
        (S.CompareSettings, {"n_resamples": 10**9}, "n_resamples: must be a whole number"),
        (S.CompareSettings, {"seed": -1}, "seed: must be a whole number ≥ 0; got -1"),
        (S.CompareSettings, {"test": "ttest"}, "test: unknown test 'ttest'; use one of auto"),
        (S.CompareSettings, {"correction": "holmes"}, "correction: unknown correction 'holmes'"),
        (S.CompareSettings, {"systems": ["A", "A"]}, "systems: duplicate name(s) 'A'"),
        (S.CompareSettings, {"paired": 1}, "paired: must be True, False or None; got 1"),
        (S.RankSettings, {"posthoc": "tukey"}, "posthoc: unknown post-hoc test 'tukey'"),
        (S.RankSettings, {"level": 0}, "level: must be strictly between 0 and 1"),
        (S.RankSettings, {"weights": {"acc": "x"}}, "weights: acc: weight must be a number"),
        (S.MetaSettings, {"method": "rmle"}, "method: unknown τ² estimator 'rmle'"),
        (S.MetaSettings, {"n_resamples": True}, "n_resamples: must be a whole number"),
        (S.MetaSettings, {"control": "A", "treatment": "A"}, "treatment: must differ from control"),
    ]
    for cls, kwargs, message in cases:
        with pytest.raises(SettingsError) as info:
            cls(**kwargs)
        assert message in str(info.value), (kwargs, str(info.value))
    # one class, caught as the config error and as the error of the analysis it configures
    assert issubclass(SettingsError, ConfigError) and issubclass(SettingsError, CompareError)
    assert issubclass(SettingsError, AggregateError)


def test_combinations_checked_once():
    with pytest.raises(SettingsError, match=r"pairs: 'baseline' .*needs baseline="):
        S.CompareSettings(pairs="baseline")
    with pytest.raises(SettingsError, match="only used with pairs='baseline'"):
        S.CompareSettings(baseline="A")
    with pytest.raises(SettingsError, match="needs test='permutation'"):
        S.CompareSettings(correction="westfall-young")
    with pytest.raises(SettingsError, match="needs family='dataset-metric'"):
        S.CompareSettings(correction="westfall-young", test="permutation", family="all")
    with pytest.raises(SettingsError, match="set-level metric_fn needs test='permutation'"):
        S.CompareSettings(metric_fn="f1", test="welch")
    with pytest.raises(SettingsError, match="need at least two systems"):
        S.CompareSettings(systems=["A"])
    assert S.CompareSettings(pairs="baseline", baseline="A").baseline == "A"


def test_canonical_values():
    s = S.CompareSettings(correction="BH", systems=["a", "b"], metrics="acc",
                          pairs=[("a", "b")], metric_fn=["f1", "mcc"])
    assert s.correction == "fdr_bh" and s.systems == ("a", "b") and s.metrics == ("acc",)
    assert s.pairs == (("a", "b"),) and s.metric_fn == ("f1", "mcc")
    m = S.MetaSettings(method="reml", measure="smd", test="KNHA")
    assert (m.method, m.measure, m.test) == ("REML", "SMD", "knha")
    assert S.RankSettings(level=0.9).alpha == pytest.approx(0.1)


def test_from_options_keeps_the_base_and_refuses_unknown_keys():
    base = S.CompareSettings(test="wilcoxon")
    s = S.CompareSettings.from_options({"level": 0.9, "seed": None}, base)
    assert (s.test, s.level, s.seed) == ("wilcoxon", 0.9, 0)
    with pytest.raises(SettingsError, match=r"levle: unknown compare setting .*did you mean 'level'"):
        S.CompareSettings.from_options({"levle": 0.9})


@given(level=st.floats(0.001, 0.999), n=st.integers(1, S.MAX_RESAMPLES),
       seed=st.none() | st.integers(0, 2**63), test=st.sampled_from(S.COMPARE_TESTS),
       correction=st.sampled_from(("BH", "holm", "none", "bonferroni", "fdr_by")))
def test_validation_is_idempotent(level, n, seed, test, correction):
    s = S.CompareSettings(level=level, n_resamples=n, seed=seed, test=test, correction=correction)
    assert S.CompareSettings(**s.as_dict()) == s


def test_choice_lists_are_the_analyses_lists():
    """The analysis modules use the settings' lists of values (one list per choice)."""
    from ranger_eval import comparison, effects, meta
    from ranger_eval.aggregate import ranking, ranktests

    assert comparison.TESTS == S.COMPARE_TESTS and comparison.PAIR_ORDERS == S.PAIR_ORDERS
    assert comparison.FAMILIES == S.FAMILIES and comparison.MISSING == S.MISSING
    assert comparison.SEED_POLICIES == S.SEED_POLICIES == effects.SEED_POLICIES
    assert ranking.ORDERS == S.RANK_ORDERS and ranktests.POSTHOCS == S.POSTHOCS
    assert tuple(meta.METHODS) == S.META_METHODS and tuple(meta.TESTS) == S.META_TESTS
    assert effects.MEASURES == S.MEASURES


def test_from_keywords_takes_none_as_a_value_and_names_unknown_keywords():
    assert S.CompareSettings.from_keywords({"seed": None}, where="compare").seed is None
    with pytest.raises(SettingsError, match=r"compare: unknown argument\(s\) levle .*did you mean"):
        S.CompareSettings.from_keywords({"levle": 0.9}, where="compare")


# --------------------------------------------------------------------------- one place
def _click_params(command: str) -> dict:
    import typer.main

    from ranger_eval.cli import app

    return {p.name: p for p in typer.main.get_command(app).commands[command].params}


@pytest.mark.parametrize(("command", "cls"), [("compare", S.CompareSettings),
                                              ("rank", S.RankSettings),
                                              ("meta", S.MetaSettings),
                                              ("aso", S.ASOSettings),
                                              ("bayes", S.BayesSettings),
                                              ("arena", S.ArenaSettings),
                                              ("plan", S.PlanSettings)])
def test_cli_options_are_the_settings_fields(command, cls):
    """Each option of a settings field: parser default None (not given: the YAML or the
    settings default applies), the field's help, the settings default shown."""
    from ranger_eval.cli._options import flag_help

    params = _click_params(command)
    fields = S.settings_fields(cls)
    for name, flag in S.cli_options(cls).items():
        default, meta = fields[name]
        p = params[flag.replace("-", "_")]
        assert p.opts == [f"--{flag}"], name
        if meta.flag is not None:  # a flag (--drop-degenerate): no value, sets meta.flag
            assert p.is_flag and not p.default and p.show_default is False, name
            assert p.help == flag_help(cls, name) and p.help.startswith(meta.help), name
            continue
        assert p.default is None and not p.is_flag, name
        assert p.help == meta.help, name
        assert p.show_default == (False if default is None else str(default)), name
        assert meta.metavar is None or p.metavar == meta.metavar, name


#: The options of each command that are no analysis setting: inputs, outputs and how they are
#: read or drawn. Every other option must be a settings field (test below).
INPUT_OUTPUT_OPTIONS = {
    "compare": {"input", "out", "figures", "html", "per_dataset_figures", "input_format",
                "system_from", "cluster", "bounds"},
    "meta": {"config", "out", "metric", "input_format", "system_from", "cluster", "figures",
             "html", "bounds"},
    "rank": {"input", "out", "figures", "html", "system_from", "bounds", "cluster", "metric"},
    "aso": {"scores", "out", "figures", "html"},
    "bayes": {"scores", "out", "figures", "html", "input_format", "system_from"},
    "arena": {"battles", "out", "figures", "html", "cluster"},
    "monitor": {"logs", "control", "treatment", "follow", "out", "figures", "html",
                "input_format", "system_from", "cluster", "bounds"},
    # plan: besides the pilot file and its selection, the quantity solved for and the values
    # that describe the data expected (PlanSettings' docstring says why they are no settings)
    "plan": {"out", "pilot", "treatment", "control", "dataset", "metric", "cluster", "effect",
             "n", "power", "sd", "p_control", "p_treatment", "correlation", "icc",
             "cluster_size", "k_samples", "within_sd"},
}


@pytest.mark.parametrize(("command", "cls"), [("compare", S.CompareSettings),
                                              ("rank", S.RankSettings),
                                              ("meta", S.MetaSettings),
                                              ("aso", S.ASOSettings),
                                              ("bayes", S.BayesSettings),
                                              ("arena", S.ArenaSettings),
                                              ("plan", S.PlanSettings),
                                              ("monitor", S.MonitorSettings)])
def test_every_option_is_a_settings_field_or_an_input_output_option(command, cls):
    params = _click_params(command)
    from_fields = {flag.replace("-", "_") for flag in S.cli_options(cls).values()}
    io = INPUT_OUTPUT_OPTIONS[command]
    assert not from_fields & io
    assert set(params) == from_fields | io, (set(params) ^ (from_fields | io))


def test_flag_options_set_their_field(tmp_path):
    """``--drop-degenerate`` is ``degenerate="drop"``; ``--higher-is-better false`` is
    ``higher_is_better=False`` (the fields' metadata, not the command's own words)."""
    from ranger_eval import pipeline
    from ranger_eval.cli._options import flag_value

    assert flag_value(S.MetaSettings, "degenerate", True) == "drop"
    assert flag_value(S.MetaSettings, "degenerate", False) is None
    assert flag_value(S.MetaSettings, "degenerate", None) is None
    assert pipeline.rank_settings(None, {"higher_is_better": False}).higher_is_better is False


def test_compare_signature_defaults_are_the_settings_defaults():
    import inspect

    from ranger_eval.comparison import compare

    params = list(inspect.signature(compare).parameters.values())[1:]
    assert params[-1].name == "settings" and params[-1].default is None
    params = params[:-1]
    fields = S.settings_fields(S.CompareSettings)
    assert [p.name for p in params] == list(fields)
    assert all(p.kind is inspect.Parameter.KEYWORD_ONLY for p in params)
    assert {p.name: p.default for p in params} == {k: d for k, (d, _) in fields.items()}


def test_yaml_sections_are_the_settings_fields(tmp_path):
    from ranger_eval.io.config import (
        META_KEYS,
        META_SECTION_ONLY,
        AggregateSection,
        CompareSection,
        load_experiment,
    )

    for model, cls in ((CompareSection, S.CompareSettings), (AggregateSection, S.RankSettings)):
        section = {k for k, (_, m) in S.settings_fields(cls).items() if m.yaml in ("section", "both")}
        assert set(model.model_fields) - {"alpha", "n_samples"} == section  # renamed keys
    meta = S.settings_fields(S.MetaSettings)
    assert set(META_KEYS) == {k for k, (_, m) in meta.items() if m.yaml == "both"}
    assert set(META_SECTION_ONLY) == {k for k, (_, m) in meta.items() if m.yaml == "section"}
    cfg = tmp_path / "e.yaml"
    cfg.write_text("scores: s.csv\n")
    exp = load_experiment(cfg)
    for cls in (S.CompareSettings, S.RankSettings, S.MetaSettings):  # a file that sets nothing
        # gives every default (arena and plan have no YAML section)
        assert exp.settings(cls) == cls()


def test_no_second_home_for_a_default():
    from ranger_eval import pipeline
    from ranger_eval.lazy import _compare

    for name in ("COMPARE_DEFAULTS", "RANK_DEFAULTS"):
        assert not hasattr(pipeline, name)
    assert not hasattr(_compare, "_DEFAULTS")
    assert pipeline.compare_settings(None, {}) == S.CompareSettings()
    assert pipeline.rank_settings(None, {}) == S.RankSettings()
    assert pipeline.MAX_RESAMPLES is S.MAX_RESAMPLES


def test_signature_keys_of_the_fields_are_in_the_results_signatures():
    """Every field marked for the signature is in the result's signature, spelt as the result
    spells it (compare's level as alpha = 1 - level, pairs with its baseline, a set-level metric
    as method_detail), and the keys come in the order of the fields (one place)."""
    from ranger_eval.signature import _value

    df = _two_systems()
    cases = [
        {},
        {"test": "permutation", "n_resamples": 99, "seed": 3, "level": 0.9, "correction": "BH",
         "family": "all", "alternative": "greater"},
        {"pairs": "baseline", "baseline": "B", "test": "wilcoxon"},
        {"hypothesis": "equivalence", "margin": 0.5},
    ]
    for keywords in cases:
        c = rg.compare(df, **keywords)
        s = S.CompareSettings(**keywords)
        fields = c.signature.fields
        keys = list(dict.fromkeys(m.signature for _, m in S.settings_fields(S.CompareSettings).values()
                                  if m.signature))
        assert [k for k in fields if k in keys] == [k for k in keys if k in fields]
        expected = {
            "test": s.test if s.test != "auto" else f"auto[{','.join(c.tests_used)}]",
            "alt": s.alternative,
            "pairs": s.pairs + (f"({s.baseline})" if s.baseline else ""),
            "corr": s.correction, "family": s.family, "level": _value(s.level),
            "n_resamples": _value(s.n_resamples), "seed": _value(s.seed),
        }
        assert set(keys) == set(expected) | {"method_detail", "hyp", "margin", "cse"}  # a new key is checked here
        assert "cse" not in fields  # the clustered paired t's variance: only with clusters
        for key, value in expected.items():
            assert fields[key] == value, (key, keywords)
        # the hypothesis and its margin only when not the default superiority
        if s.hypothesis == "superiority":
            assert "hyp" not in fields and "margin" not in fields
        else:
            assert (fields["hyp"], fields["margin"]) == (s.hypothesis, _value(s.margin))
        assert "method_detail" not in fields  # metric_fn not given
    # cluster_se → cse, after the cluster field it qualifies, only for clustered scores
    clustered = df.assign(cluster=[f"c{i // 2}" for i in range(8)] * 2)
    for cse in ("CR2", "CR1"):
        fields = rg.compare(clustered, cluster_se=cse).signature.fields
        assert list(fields)[-2:] == ["cluster", "cse"] and fields["cse"] == cse
    # metric_fn → method_detail
    lab = df.assign(label=[0, 1] * 8, prediction=[0, 1, 1, 1] * 4)
    c = rg.compare(lab, metric_fn="accuracy", test="permutation", n_resamples=50)
    assert c.signature.fields["method_detail"] == "metric[accuracy]"
    # meta: measure, method, test, level as MetaSettings records them
    res = rg.meta_analysis([0.1, 0.3, 0.2], [0.01, 0.02, 0.015], method="DL", test="knha",
                           level=0.9)
    meta_keys = [m.signature for _, m in S.settings_fields(S.MetaSettings).values() if m.signature]
    assert meta_keys == ["measure", "method", "test", "level", "margin"]
    fields = res.signature.fields
    assert (fields["method"], fields["test"], fields["level"]) == ("DL", "knha", "0.9")
    assert "measure" not in fields  # no effect measure for raw yi/vi (None: left out)
    assert list(fields)[2:5] == ["method", "test", "level"]
    assert "margin" not in fields  # only with a margin
    with_margin = rg.meta_analysis([0.1, 0.3, 0.2], [0.01, 0.02, 0.015], margin=0.5)
    assert with_margin.signature.fields["margin"] == "0.5"

def _two_systems():
    import numpy as np
    import pandas as pd

    rng = np.random.default_rng(1)
    return pd.DataFrame({"dataset": "d", "system": np.repeat(["A", "B"], 8),
                         "item": [f"i{i}" for i in range(8)] * 2, "value": rng.normal(size=16)})


def test_compare_takes_a_settings_object_and_refuses_a_clashing_keyword():
    df = _two_systems()
    s = S.CompareSettings(test="wilcoxon", level=0.9)
    by_object = rg.compare(df, settings=s)
    by_keywords = rg.compare(df, test="wilcoxon", level=0.9)
    assert by_object.table.equals(by_keywords.table)
    assert by_object.signature == by_keywords.signature
    # a keyword at its default is no clash; any other value next to settings= is
    assert rg.compare(df, settings=s, level=0.95).level == 0.9
    with pytest.raises(SettingsError, match=r"compare: level=0.8 given together with settings="):
        rg.compare(df, settings=s, level=0.8)
    with pytest.raises(SettingsError, match="settings: must be a CompareSettings; got dict"):
        rg.compare(df, settings={"level": 0.9})  # type: ignore[arg-type]


def test_rank_and_result_defaults_are_the_settings_defaults():
    """rank_test, rank_systems, condition_and_compare and the Comparison result take their
    defaults from the settings objects (one place)."""
    import inspect

    from ranger_eval.aggregate import condition_and_compare, rank_systems, rank_test
    from ranger_eval.comparison import Comparison

    rank = S.settings_fields(S.RankSettings)
    for fn in (rank_test, rank_systems, condition_and_compare):
        params = inspect.signature(fn).parameters
        shared = [name for name in params if name in rank]
        assert shared, fn
        for name in shared:
            if fn is rank_test and name == "higher_is_better":  # rank_test: wide tables, a bool
                continue
            assert params[name].default == rank[name][0], (fn.__name__, name)
    compare_fields = S.settings_fields(S.CompareSettings)
    for f in dataclasses.fields(Comparison):
        if f.name in compare_fields and f.default is not dataclasses.MISSING and f.name != "pairs":
            assert f.default == compare_fields[f.name][0], f.name  # pairs: "custom" allowed


def test_rank_functions_check_their_settings_once():
    import pandas as pd

    from ranger_eval.aggregate import rank_systems, rank_test

    wide = pd.DataFrame({"A": [0.1, 0.2, 0.3], "B": [0.2, 0.3, 0.5]})
    with pytest.raises(SettingsError, match=r"posthoc: unknown post-hoc test 'tukey'"):
        rank_test(wide, posthoc="tukey")
    with pytest.raises(SettingsError, match=r"n_resamples: must be a whole number from 1"):
        rank_systems(_two_systems(), n_resamples=0)
    with pytest.raises(SettingsError, match=r"level: must be strictly between 0 and 1"):
        rank_systems(_two_systems(), level=1.0)


def test_meta_and_effect_functions_default_to_the_meta_settings():
    """meta_analysis keeps metafor's keywords (method, test) and effect_sizes its own; their
    defaults are MetaSettings' (a change to one is caught here; effect_sizes' measure=None
    picks SMD, or MD for a set-level metric)."""
    import inspect

    from ranger_eval import effect_sizes, meta_analysis

    meta = S.settings_fields(S.MetaSettings)
    for fn, names in ((meta_analysis, ("method", "test", "level")),
                      (effect_sizes, ("level", "seeds", "degenerate", "seed", "n_resamples"))):
        params = inspect.signature(fn).parameters
        for name in names:
            assert params[name].default == meta[name][0], (fn.__name__, name)


def test_rank_signature_keys_are_the_rank_settings_fields():
    """The ranking's signature holds every RankSettings field marked for it, in field order
    (posthoc: the rank test's), each as the ranking records it."""
    import numpy as np
    import pandas as pd

    from ranger_eval.aggregate import rank_systems, rank_test

    rng = np.random.default_rng(2)
    df = pd.DataFrame({"dataset": np.repeat(["d1", "d2"], 16),
                       "system": np.tile(np.repeat(["A", "B"], 8), 2),
                       "item": [f"i{i}" for i in range(8)] * 4, "value": rng.normal(size=32)})
    r = rank_systems(df, comparisons="all", level=0.9, weights={"value": 2.0})
    fields = r.signature.fields
    keys = [m.signature for _, m in S.settings_fields(S.RankSettings).values() if m.signature]
    ranking_keys = [k for k in keys if k != "posthoc"]
    assert [k for k in fields if k in ranking_keys] == ranking_keys
    assert (fields["order"], fields["level"], fields["corr"], fields["weights"]) == (
        "all", "0.9", "holm-sidak", "custom")
    assert (fields["n_resamples"], fields["seed"]) == ("10000", "0")
    wide = pd.DataFrame({"A": [0.1, 0.2, 0.3], "B": [0.2, 0.3, 0.5], "C": [0.0, 0.1, 0.2]})
    assert rank_test(wide, posthoc="holm", control="A").signature.fields["posthoc"] == "holm"


@pytest.mark.parametrize("cls", PYTHON_ONLY)
def test_python_only_settings_have_no_option_and_no_yaml_key(cls):
    fields = S.settings_fields(cls)
    assert S.cli_options(cls) == {}
    assert all(meta.yaml is None for _, meta in fields.values())
    assert getattr(rg, cls.__name__) is cls
    if "n_resamples" not in fields:  # the cross-dataset estimates resample nothing
        with pytest.raises(SettingsError, match=r"level: must be strictly between 0 and 1"):
            cls(level=95)
        return
    with pytest.raises(SettingsError, match=r"n_resamples: must be a whole number"):
        cls(n_resamples=-1)
@pytest.mark.parametrize(("cls", "kind", "result"), [
    (S.ASOSettings, "aso", lambda: rg.verdicts.aso_groups(pd.DataFrame({
        "dataset": "d", "metric": "m", "system": ["a"] * 5 + ["b"] * 5,
        "seed": list(range(5)) * 2, "value": [0.1, 0.2, 0.3, 0.4, 0.5, 0.2, 0.3, 0.4, 0.5, 0.6]}),
        n_resamples=20)),
    (S.BayesSettings, "bayes", lambda: rg.verdicts.dataset_tests(pd.DataFrame({
        "a": [0.1, 0.2, 0.3, 0.4], "b": [0.2, 0.25, 0.35, 0.5]}), test="sign", n_draws=50)),
])
def test_verdict_signatures_record_the_signature_fields(cls, kind, result):
    """ASO's and Bayes' signature keys are the settings' ``signature`` keys, the resample and
    draw counts under the glossary's words (``n_resamples``, ``n_draws``)."""
    res = result()
    keys = {meta.signature for _, meta in S.settings_fields(cls).values() if meta.signature}
    fields = res.signature.fields
    assert fields["kind"] == kind and keys - {"runs"} <= set(fields)
    assert res.settings is not None and isinstance(res.settings, cls)
    assert "n_samples" not in fields and "n_bootstrap" not in fields
def test_arena_and_plan_settings_checks_and_yaml():
    """ArenaSettings and PlanSettings: one error per bad value naming the key; no experiment-YAML
    section (yaml=None for every field: arena reads battles, a plan precedes its experiment)."""
    cases = [
        (S.ArenaSettings, {"ties": "thurstone"}, "ties: unknown tie model 'thurstone'"),
        (S.ArenaSettings, {"scale": 0}, "scale: must be a positive, finite number; got 0"),
        (S.ArenaSettings, {"base": 1}, "base: 1 gives no scale"),
        (S.ArenaSettings, {"n_resamples": -1}, "n_resamples: must be a whole number from 0"),
        (S.ArenaSettings, {"anchor": ("a", float("inf"))}, "anchor: the rating of 'a' must be"),
        (S.ArenaSettings, {"level": 95}, "level: must be strictly between 0 and 1"),
        (S.PlanSettings, {"level": 0.3}, "level: must be a number in [0.5, 1)"),
        (S.PlanSettings, {"n_resamples": 99}, "n_resamples: must be a whole number from 100"),
        (S.PlanSettings, {"test": "t-test"}, "test: unknown test 't-test'"),
        (S.PlanSettings, {"margin": 0}, "margin: must be a positive"),
    ]
    for cls, kwargs, message in cases:
        with pytest.raises(SettingsError) as info:
            cls(**kwargs)
        assert message in str(info.value), (kwargs, str(info.value))
    assert S.ArenaSettings(anchor={"m": 1200}).anchor == ("m", 1200.0)
    assert S.PlanSettings(level=0.95).alpha == 0.05  # exactly: the former alpha=0.05
    for cls in (S.ArenaSettings, S.PlanSettings):
        assert all(m.yaml is None for _, m in S.settings_fields(cls).values())


def test_arena_and_plan_signature_keys_are_in_their_results_signatures():
    import numpy as np
    import pandas as pd

    rng = np.random.default_rng(5)
    models = ["a", "b", "c"]
    rows = [(x, y, w) for _ in range(20) for x, y in (("a", "b"), ("b", "c"), ("a", "c"))
            for w in (["model_a", "model_b", "tie"][rng.integers(3)],)]
    battles = pd.DataFrame(rows, columns=["model_a", "model_b", "winner"])
    r = rg.bradley_terry(battles, n_resamples=30, anchor=(models[0], 1100.0))
    keys = list(dict.fromkeys(m.signature for name, (_, m) in
                              S.settings_fields(S.ArenaSettings).items()
                              if m.signature and name != "covariates"))  # recorded when given
    assert [k for k in r.signature.fields if k in keys] == keys
    assert (r.signature.fields["n_resamples"], r.signature.fields["anchor"]) == ("30", "a=1100")
    assert "covariates" not in r.signature.fields  # no style control: the signature as before
    p = rg.plan("paired-t", effect=0.2, power=0.8, sd=1.0, margin=0.5, level=0.9)
    plan_keys = [k for k in ("test", "margin", "alt", "level") if k in p.signature.fields]
    assert plan_keys == ["test", "margin", "alt", "level"] and p.signature.fields["level"] == "0.9"
    frame = pd.DataFrame({"dataset": "d", "system": np.repeat(["A", "B"], 30),
                          "item": [f"i{k}" for k in range(30)] * 2,
                          "value": rng.normal(size=60)})
    q = rg.plan_from_pilot(frame, treatment="B", control="A", effect=0.3, n=20, n_resamples=200,
                           seed=4)
    assert (q.signature.fields["n_resamples"], q.signature.fields["seed"]) == ("200", "4")
    every = {m.signature for _, m in S.settings_fields(S.PlanSettings).values()}
    assert every <= set(p.signature.fields) | set(q.signature.fields)
