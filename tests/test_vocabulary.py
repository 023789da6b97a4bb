"""One vocabulary (issue 19): renamed keywords are errors that name their replacement."""
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

#: The one planned exception to ``level`` for Almost Stochastic Order (issue 21 §2 spells
#: ``rg.aso(a, b, *, confidence_level=0.95, ...)``, deepsig's word for the bound's level).
CONFIDENCE_LEVEL_PLANNED = {"aso", "multi_aso", "ASOResult"}

#: ``method`` is not the multiplicity procedure (that is ``correction``) anywhere; where it is a
#: parameter, it is one of these (metafor's and scipy's own words, kept on purpose).
METHOD_MEANS = {
    # the τ² estimator (metafor's ``method``)
    "meta_analysis": "tau2", "subgroup_analysis": "tau2", "cross_dataset_estimates": "tau2",
    "predictive_check": "tau2", "MetaSettings": "tau2", "MetaResult": "tau2",
    "MetaRegressionResult": "tau2", "SubgroupResult": "tau2", "RegTestResult": "tau2",
    "CrossDatasetEstimates": "tau2", "PredictiveCheck": "tau2", "ExperimentConfig": "tau2",
    # how one test computes its p-value (scipy's ``method``: exact, asymptotic, ...) and the
    # results that record it (``method_detail`` of the signature)
    "wilcoxon": "p-value computation", "mannwhitney": "p-value computation",
    "TestResult": "p-value computation", "ManyTestResult": "p-value computation",
    "RankIntervals": "the interval's method, a description",
    # the estimator of prediction-powered inference (issue 20's ``method="ppi++"``)
    "ppi_mean": "ppi estimator", "ppi_mean_difference": "ppi estimator",
    "PPIResult": "ppi estimator", "prediction_powered_mean": "ppi estimator",
    # which clustered McNemar statistic (Obuchowski, Durkalski, Yang-Sun-Hardin; issue 20)
    "clustered_mcnemar": "clustered McNemar statistic",
}

#: Data a public function of ``ranger_eval`` takes positionally; everything else is keyword-only.
DATA: dict[str, tuple[str, ...]] = {
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
    "bayesian_correlated_ttest": ("x", "y"),
    "bayesian_signed_rank": ("x", "y"),
    "bayesian_sign_test": ("x", "y"),
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
    "aso": ("a", "b"),
    "multi_aso": ("scores_by_system",),
    "bradley_terry": ("battles",),
    "battles_from_scores": ("scores",),
    "battle_counts": ("scores",),
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
             for p in _parameters(obj) if p in SECOND_WORDS
             and not (p == "confidence_level" and name in CONFIDENCE_LEVEL_PLANNED)]
    assert found == []


def test_method_is_never_the_multiplicity_procedure() -> None:
    takes_method = sorted(name for name, obj in _public().items() if "method" in _parameters(obj))
    assert set(takes_method) <= set(METHOD_MEANS), set(takes_method) - set(METHOD_MEANS)
    assert "adjust_pvalues" not in takes_method and "correction" in _parameters(stats.adjust_pvalues)


def test_only_data_is_positional() -> None:
    """Every public function of ``ranger_eval`` takes its data positionally and everything
    else by keyword (issue 19: keyword-only arguments after the data)."""
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
    (stats.adjust_pvalues, 1, {"method": "holm"}, "correction"),
    (stats.adjust_pvalues, 1, {"alpha": 0.05}, "level"),
    (stats.wilcoxon, 1, {"correction": True}, "continuity_correction"),
    (stats.mcnemar, 2, {"correction": True}, "continuity_correction"),
    (stats.paired_permutation_test_many, 1, {"adjust": "westfall-young"}, "correction"),
    (rg.forest_plot, 1, {"lower_is_better": True}, "higher_is_better"),
    (rg.bradley_terry, 1, {"n_bootstrap": 100}, "n_resamples"),
    (rg.plan, 1, {"alpha": 0.05}, "level"),
    (rg.plan_from_pilot, 1, {"alpha": 0.05}, "level"),
    (rg.plan_from_pilot, 1, {"n_simulations": 500}, "n_resamples"),
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


#: The resample count's other names (issue 28: ``n_resamples`` is the only one); checked on the
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
                if command_name in ("arena", "plan") and word in RESAMPLE_WORDS:
                    found.append(f"{command_name} {opt}")
                if word == "method" and command_name != "meta":  # meta's τ² estimator only
                    found.append(f"{command_name} {opt}")
    assert found == []
