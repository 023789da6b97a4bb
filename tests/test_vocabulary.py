"""One vocabulary: renamed keywords are errors that name their replacement."""
from __future__ import annotations

import inspect

import pytest

from ranger_eval.errors import RangerError, RenamedKeywordError, reject_renamed, renamed_keywords


def test_renamed_keyword_error_names_the_replacement() -> None:
    @renamed_keywords(alpha="level", method="correction")
    def f(p: float, *, level: float = 0.95, correction: str = "holm") -> tuple[float, str]:
        """A documented function."""
        return level, correction

    assert f(0.5, level=0.9, correction="bonferroni") == (0.9, "bonferroni")
    assert str(inspect.signature(f)) == str(inspect.signature(f.__wrapped__))  # type: ignore[attr-defined]
    assert f.__doc__ == "A documented function."
    with pytest.raises(RenamedKeywordError, match=r"f\(\) has no keyword 'alpha': it is called "
                       r"'level' now .*alpha=0\.05 is level=0\.95"):
        f(0.5, alpha=0.05)  # type: ignore[call-arg]
    with pytest.raises(TypeError, match="'method': it is called 'correction'"):
        f(0.5, method="holm")  # type: ignore[call-arg]
    with pytest.raises(RangerError):
        reject_renamed({"alpha": "x"}, {"alpha": "level"}, where="rank_test")
    reject_renamed({"level": 0.9}, {"alpha": "level"}, where="rank_test")  # nothing renamed: no error


def test_renamed_direction_flips_the_value() -> None:
    with pytest.raises(RenamedKeywordError, match="lower_is_better=True is higher_is_better=False"):
        reject_renamed({"lower_is_better": True}, {"lower_is_better": "higher_is_better"},
                       where="forest_plot")


# --------------------------------------------------------------------------- the public API
import ranger_eval as rg  # noqa: E402
from ranger_eval import stats  # noqa: E402

#: Words that name a concept of the glossary (docs/architecture.md) a second time.
SECOND_WORDS = {
    "alpha": "level (alpha = 1 - level is derived, never a second knob)",
    "conf_level": "level", "confidence_level": "level",
    "lower_is_better": "higher_is_better", "larger_is_better": "higher_is_better",
    "greater_is_better": "higher_is_better", "maximize": "higher_is_better",
    "ties_corr": "tie_correction", "adjust": "correction", "p_adjust": "correction",
    "correct": "continuity_correction",
}

#: ``method`` is not the multiplicity procedure (that is ``correction``) anywhere; where it is a
#: parameter, it is one of these (metafor's and scipy's own words, kept on purpose).
METHOD_MEANS = {
    # the confidence sequence (betting, hoeffding, empirical_bernstein)
    "confidence_sequence": "sequence", "monitor": "sequence", "ConfidenceSequence": "sequence",
    "ConfidenceSequenceSettings": "sequence", "MonitorSettings": "sequence",
    "MonitorStopping": "sequence",
    # the design of a subset of a benchmark's items (random, stratified, anchor)
    "choose_subset": "subset design", "ChooseSubsetSettings": "subset design",
    "SubsetChoice": "subset design",
    # the τ² estimator (metafor's ``method``)
    "meta_analysis": "tau2", "subgroup_analysis": "tau2", "cross_dataset_estimates": "tau2",
    "predictive_check": "tau2", "MetaSettings": "tau2", "MetaResult": "tau2",
    "MetaRegressionResult": "tau2", "SubgroupResult": "tau2", "RegTestResult": "tau2",
    "CrossDatasetEstimates": "tau2", "PredictiveCheck": "tau2", "ExperimentConfig": "tau2",
    "CrossDatasetSettings": "tau2", "PredictiveCheckSettings": "tau2",
    # how one test computes its p-value (scipy's ``method``: exact, asymptotic, ...) and the
    # results that record it (``method_detail`` of the signature)
    "wilcoxon": "p-value computation", "mannwhitney": "p-value computation",
    "TestResult": "p-value computation", "ManyTestResult": "p-value computation",
    "RankIntervals": "the interval's method, a description",
    # the estimator of prediction-powered inference (``method="ppi++"``)
    "ppi_mean": "ppi estimator", "ppi_mean_difference": "ppi estimator",
    "PPISettings": "ppi estimator",
    "PPIResult": "ppi estimator", "prediction_powered_mean": "ppi estimator",
    # which clustered McNemar statistic (Obuchowski, Durkalski, Yang-Sun-Hardin)
    "clustered_mcnemar": "clustered McNemar statistic",
    # the agreement coefficient (krippendorff, cohen, fleiss; the command's --coefficient)
    "agreement": "agreement coefficient", "AgreementSettings": "agreement coefficient",
    "AgreementResult": "agreement coefficient",
}

#: Data a public function of ``ranger_eval`` takes positionally; everything else is keyword-only.
DATA: dict[str, tuple[str, ...]] = {
    "confidence_sequence": ("x",),
    "monitor": ("scores",),
    "effect_size": ("treatment", "control"),
    "effect_sizes": ("scores",),
    "effect_size_bootstrap": ("treatment", "control"),
    "meta_analysis": ("yi", "vi"),
    "subgroup_analysis": ("yi", "vi", "groups"),
    "regtest": ("result",),
    "funnel_plot": ("result",),
    "multi_forest_plot": ("results",),
    "cd_diagram": ("rank_test",),
    "forest_plot": ("result",),
    "save_figure": ("fig", "path_or_stem"),
    "load_experiment": ("path",),
    "read_values": ("path",),
    "read_item_scores": ("path",),
    "read_scores": ("path",),
    "run_experiment": ("exp",),
    "compare": ("scores",),
    "rank_intervals": ("scores",),
    "ppi_mean": ("scores",),
    "ppi_mean_difference": ("scores",),
    "bayesian_correlated_ttest": ("treatment", "control"),
    "bayesian_signed_rank": ("treatment", "control"),
    "bayesian_sign_test": ("treatment", "control"),
    "aggregate_metrics": ("scores",),
    "aggregate_comparisons": ("comparisons",),
    "harmonic_mean_p": ("pvalues",),
    "standardized_means": ("summary",),
    "rank_systems": ("scores",),
    "rank_test": ("table",),
    "win_rate": ("table_or_scores",),
    "topsis": ("matrix",),
    "condition_and_compare": ("scores", "params"),
    "predictive_check": ("scores",),
    "cross_dataset_estimates": ("effects",),
    "error_reduction": ("scores",),
    "parse_signature": ("text",),
    "open_scores": ("path",),
    "plan": ("test",),
    "plan_from_pilot": ("scores",),
    "describe": ("scores",),
    "variance_components": ("scores",),
    "aso": ("treatment", "control"),
    "agreement": ("table",),
    "alt_test": ("table",),
    "multi_aso": ("scores_by_system",),
    "bradley_terry": ("battles",),
    "battles_from_scores": ("scores",),
    "battle_counts": ("scores",),
    "pass_at_k": ("scores", "k"),  # k is the estimand's own number, as in pass@k
    "pass_hat_k": ("scores", "k"),
    "irt": ("responses",),
    "estimate_from_subset": ("history", "responses"),
    "choose_subset": ("history", "n"),  # n: the subset's size, the estimand's own number
    "resolve_design": ("scores",),
}


def _public() -> dict[str, object]:
    """Every function and class of ``ranger_eval.__all__`` and of the ``__all__`` of each public
    submodule it lists, by name (first place seen)."""
    out: dict[str, object] = {}
    modules = []
    for name in rg.__all__:
        obj = getattr(rg, name)
        if inspect.ismodule(obj):
            modules.append(obj)
        elif inspect.isfunction(obj) or inspect.isclass(obj):
            out.setdefault(name, obj)
    for module in modules:
        for name in getattr(module, "__all__", ()):
            obj = getattr(module, name)
            if inspect.isfunction(obj) or inspect.isclass(obj):
                out.setdefault(name, obj)
    return out


def _parameters(obj: object) -> dict[str, inspect.Parameter]:
    try:
        return dict(inspect.signature(obj).parameters)  # type: ignore[arg-type]
    except (TypeError, ValueError):  # builtins without a signature
        return {}


def test_no_public_name_takes_a_second_word_for_a_glossary_concept() -> None:
    public = _public()
    assert len(public) > 100  # the walk sees the package, not an empty list
    found = [f"{name}({p}=): say {SECOND_WORDS[p]}" for name, obj in sorted(public.items())
             for p in _parameters(obj) if p in SECOND_WORDS]
    assert found == []


def test_method_is_never_the_multiplicity_procedure() -> None:
    takes_method = sorted(name for name, obj in _public().items() if "method" in _parameters(obj))
    assert set(takes_method) <= set(METHOD_MEANS), set(takes_method) - set(METHOD_MEANS)
    assert "adjust_pvalues" not in takes_method and "correction" in _parameters(stats.adjust_pvalues)


def test_only_data_is_positional() -> None:
    """Every public function of ``ranger_eval`` takes its data positionally and everything
    else by keyword (keyword-only arguments after the data)."""
    functions = {n: getattr(rg, n) for n in rg.__all__ if inspect.isfunction(getattr(rg, n))}
    assert set(functions) == set(DATA), "declare the data of a new public function in DATA"
    wrong = {}
    for name, fn in functions.items():
        positional = tuple(p.name for p in _parameters(fn).values()
                           if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD))
        if positional != DATA[name]:
            wrong[name] = positional
    assert wrong == {}


@pytest.mark.parametrize(("fn", "n_data", "old", "new"), [
    (rg.rank_test, 1, {"alpha": 0.05}, "level"),
    (rg.rank_systems, 1, {"alpha": 0.05}, "level"),
    (rg.condition_and_compare, 2, {"alpha": 0.05}, "level"),
    (rg.rank_test, 1, {"n_samples": 1000}, "n_draws"),
    (rg.win_rate, 1, {"n_bootstrap": 100}, "n_resamples"),
    (stats.adjust_pvalues, 1, {"method": "holm"}, "correction"),
    (stats.adjust_pvalues, 1, {"alpha": 0.05}, "level"),
    (stats.wilcoxon, 1, {"correction": True}, "continuity_correction"),
    (stats.mcnemar, 2, {"correction": True}, "continuity_correction"),
    (stats.paired_permutation_test_many, 1, {"adjust": "westfall-young"}, "correction"),
    (rg.forest_plot, 1, {"lower_is_better": True}, "higher_is_better"),
    (rg.aso, 2, {"confidence_level": 0.95}, "level"),
    (rg.aso, 2, {"n_bootstrap": 1000}, "n_resamples"),
    (rg.aso, 0, {"a": [1.0]}, "treatment"),
    (rg.multi_aso, 1, {"confidence_level": 0.95}, "level"),
    (rg.multi_aso, 1, {"n_bootstrap": 1000}, "n_resamples"),
    (rg.multi_aso, 1, {"use_bonferroni": True}, "correction"),
    (rg.verdicts.aso_groups, 1, {"n_bootstrap": 1000}, "n_resamples"),
    (rg.bayesian_signed_rank, 2, {"n_samples": 1000}, "n_draws"),
    (rg.bayesian_sign_test, 2, {"n_samples": 1000}, "n_draws"),
    (rg.bayesian_correlated_ttest, 0, {"x": [1.0]}, "treatment"),
    (rg.verdicts.dataset_tests, 1, {"n_samples": 1000}, "n_draws"),
    (rg.bradley_terry, 1, {"n_bootstrap": 100}, "n_resamples"),
    (rg.plan, 1, {"alpha": 0.05}, "level"),
    (rg.plan_from_pilot, 1, {"alpha": 0.05}, "level"),
    (rg.plan_from_pilot, 1, {"n_simulations": 500}, "n_resamples"),
    (rg.predictive_check, 1, {"repeats": 20}, "n_resamples"),
    (stats.power.power_of, 1, {"alpha": 0.05}, "level"),
    (stats.power.detectable_noncentrality, 1, {"alpha": 0.05}, "level"),
    (stats.power.minimum_detectable_effect, 1, {"alpha": 0.05}, "level"),
    (stats.power.retrodesign, 2, {"alpha": 0.05}, "level"),
    (rg.multi_forest_plot, 1, {"lower_is_better": True}, "higher_is_better"),
])
def test_a_renamed_keyword_names_its_replacement(fn, n_data, old, new) -> None:
    (key,) = old
    with pytest.raises(RenamedKeywordError, match=rf"{fn.__name__}\(\) has no keyword '{key}': "
                                                 rf"it is called '{new}' now"):
        fn(*[None] * n_data, **old)


#: The resample count's other names (``n_resamples`` is the only one); checked on the
#: Python keywords and command-line options of arena and plan (the other commands' own tests).
RESAMPLE_WORDS = {"n_bootstrap", "n_simulations", "repeats"}


def test_arena_and_plan_say_level_and_n_resamples() -> None:
    from ranger_eval.stats import pilot, power
    from ranger_eval.verdicts.bradley_terry import battle_counts, table_battle_counts

    funcs = (rg.bradley_terry, battle_counts, table_battle_counts,
             rg.plan, rg.plan_from_pilot, power.power_of, power.detectable_noncentrality,
             power.minimum_detectable_effect, power.retrodesign, rg.Ratings, power.Plan,
             pilot.PilotPlan, rg.ArenaSettings, rg.PlanSettings)
    found = [f"{getattr(f, '__name__', f)}({p}=)" for f in funcs for p in _parameters(f)
             if p in RESAMPLE_WORDS or p in SECOND_WORDS]
    assert found == []
    assert "level" in _parameters(rg.plan) and "n_resamples" in _parameters(rg.bradley_terry)


@pytest.mark.parametrize(("args", "new"), [
    (["plan", "--test", "paired-t", "--effect", "0.3", "--power", "0.8", "--alpha", "0.05"],
     "--level"),
    (["plan", "--n-simulations", "300"], "--n-resamples"),
])
def test_renamed_plan_options_name_their_replacement(args, new) -> None:
    from typer.testing import CliRunner

    from ranger_eval.cli import app

    result = CliRunner().invoke(app, args)
    assert result.exit_code == 2
    assert f"option {args[-2]} is called {new} now" in result.output


def test_cli_options_use_the_glossary_words() -> None:
    import typer.main

    from ranger_eval.cli import app
    from ranger_eval.cli._common import RENAMED_OPTIONS

    group = typer.main.get_command(app)
    found = []
    for command_name, command in group.commands.items():  # type: ignore[attr-defined]
        for param in command.params:
            for opt in (*param.opts, *param.secondary_opts):
                word = opt.lstrip("-").replace("-", "_")
                if word in SECOND_WORDS or opt in RENAMED_OPTIONS:
                    found.append(f"{command_name} {opt}")
                if word in RESAMPLE_WORDS or word in COUNT_WORDS:  # every command
                    found.append(f"{command_name} {opt}")
                if word == "method" and command_name != "meta":  # meta's τ² estimator only
                    found.append(f"{command_name} {opt}")
    assert found == []


#: The resample and draw counts' second words (``n_resamples`` counts resamples,
#: ``n_draws`` posterior draws).
COUNT_WORDS = {"n_bootstrap": "n_resamples", "repeats": "n_resamples",
               "n_simulations": "n_resamples", "n_samples": "n_draws",
               "use_bonferroni": "correction"}

#: The rank and meta families: every public function and result of ``ranger_eval.aggregate``,
#: ``ranger_eval.meta`` and the rank intervals, with their settings classes (no exception:
#: ``predictive_check``'s held-out splits are ``n_resamples`` too).


def test_rank_and_meta_families_count_resamples_and_draws_in_one_word() -> None:
    from ranger_eval import aggregate, comparison, meta
    from ranger_eval import settings as S

    objects = {n: getattr(m, n) for m in (aggregate, meta) for n in m.__all__}
    objects |= {"rank_intervals": comparison.rank_intervals,
                "RankIntervals": comparison.RankIntervals}
    objects |= {c.__name__: c for c in (S.RankSettings, S.MetaSettings, S.WinRateSettings,
                                        S.RankIntervalSettings, S.ErrorReductionSettings,
                                        S.CrossDatasetSettings, S.PredictiveCheckSettings)}
    objects = {n: o for n, o in objects.items() if inspect.isfunction(o) or inspect.isclass(o)}
    assert {"rank_test", "win_rate", "meta_analysis", "error_reduction",
            "predictive_check", "PredictiveCheck"} <= set(objects)
    found = [f"{name}({p}=): say {COUNT_WORDS[p]}" for name, obj in sorted(objects.items())
             for p in _parameters(obj) if p in COUNT_WORDS]
    assert found == []




def test_verdicts_take_the_glossary_words_for_counts_and_corrections() -> None:
    """ASO and the Bayesian tests (their functions, results and settings) say ``level``,
    ``n_resamples``, ``n_draws`` and ``correction``; the pair is ``treatment``, ``control``."""
    import importlib

    from ranger_eval import settings as S

    modules = [importlib.import_module(f"ranger_eval.verdicts.{m}") for m in ("aso", "bayes")]
    names = [getattr(m, n) for m in modules for n in m.__all__]
    names += [S.ASOSettings, S.BayesSettings]
    found = [f"{obj.__name__}({p}=)" for obj in names  # type: ignore[attr-defined]
             if inspect.isfunction(obj) or inspect.isclass(obj)
             for p in _parameters(obj) if p in COUNT_WORDS or p in SECOND_WORDS
             or p in ("x", "y", "a", "b")]
    assert found == []


@pytest.mark.parametrize(("command", "old", "new"), [
    ("aso", "--n-bootstrap", "--n-resamples"),
    ("bayes", "--n-samples", "--n-draws"),
    ("aso", "--confidence-level", None),
    ("aso", "--use-bonferroni", None),
])
def test_aso_and_bayes_options_use_the_glossary_words(command, old, new) -> None:
    """The options of ``aso`` and ``bayes`` are the settings' glossary words; an old one is an
    error naming the new one (or an unknown option)."""
    import typer.main
    from typer.testing import CliRunner

    from ranger_eval.cli import app

    params = typer.main.get_command(app).commands[command].params  # type: ignore[attr-defined]
    opts = {o for p in params for o in p.opts}
    assert old not in opts
    assert {"--level", "--seed"} <= opts
    assert ("--n-resamples" in opts) == (command == "aso")
    assert ("--n-draws" in opts) == (command == "bayes")
    result = CliRunner().invoke(app, [command, "scores.csv", old, "10"])
    assert result.exit_code != 0
    if new is not None:
        assert f"option {old} is called {new} now" in result.output


@pytest.mark.parametrize("command", ["rank", "meta"])
def test_rank_and_meta_options_count_draws_and_resamples_in_one_word(command: str) -> None:
    import typer.main

    from ranger_eval.cli import app

    params = typer.main.get_command(app).commands[command].params  # type: ignore[attr-defined]
    options = {o for p in params for o in (*p.opts, *p.secondary_opts)}
    words = {o.lstrip("-").replace("-", "_") for o in options}
    assert not words & set(COUNT_WORDS), words & set(COUNT_WORDS)
    if command == "rank":
        assert "--n-draws" in options
    # meta's --method is the τ² estimator, the one meaning of method in the meta family
    assert ("--method" in options) == (command == "meta")


def test_rank_renamed_option_and_yaml_key_name_the_new_word(tmp_path) -> None:
    from typer.testing import CliRunner

    from ranger_eval.cli import app
    from ranger_eval.errors import ConfigError
    from ranger_eval.io.config import load_experiment

    run = CliRunner().invoke(app, ["rank", str(tmp_path / "t.csv"), "--n-samples", "5"])
    assert run.exit_code != 0 and "--n-samples is called --n-draws now" in run.output
    cfg = tmp_path / "e.yaml"
    cfg.write_text("scores: s.csv\naggregate:\n  n_samples: 100\n")
    with pytest.raises(ConfigError, match=r"aggregate.n_samples: renamed to aggregate.n_draws"):
        load_experiment(cfg)
