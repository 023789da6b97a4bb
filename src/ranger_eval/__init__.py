"""Ranger: honest statistics for comparing systems across datasets and metrics.

Public names are loaded lazily (PEP 562) so that ``import ranger_eval`` stays fast; the heavy
modules (pandas, scipy, matplotlib) are imported on first use. Every class a function here returns
is exported here too (``tests/test_namespace.py``); plot style and column objects live in
:mod:`ranger_eval.plots` (``rg.plots.ForestStyle``).
"""
from __future__ import annotations

import importlib
from typing import Any

from ._version import __version__

_EXPORTS: dict[str, str] = {
    "Scores": "scores",
    "describe": "stats.describe",
    "PairedScores": "scores",
    "effect_size": "effects",
    "effect_sizes": "effects",
    "EffectSize": "effects",
    "EffectSizes": "effects",
    "EffectSizeError": "effects",
    "effect_size_bootstrap": "effects",
    "BootstrapEffectSize": "effects",
    "meta_analysis": "meta",
    "MetaResult": "meta",
    "MetaRegressionResult": "meta",
    "SubgroupResult": "meta",
    "RegTestResult": "meta",
    "subgroup_analysis": "meta",
    "regtest": "meta",
    "funnel_plot": "plots.funnel",
    "multi_forest_plot": "plots.multiforest",
    "cd_diagram": "plots.cd",
    "forest_plot": "plots.forest",
    "save_figure": "plots.forest",
    "load_experiment": "io",
    "Experiment": "io",
    "Battles": "io",
    "read_values": "io",
    "read_item_scores": "io",
    "read_scores": "io",
    "run_experiment": "pipeline",
    "ExperimentResult": "pipeline",
    "compare": "comparison",
    "Comparison": "comparison",
    "rank_intervals": "comparison",
    "RankIntervals": "comparison",
    "resolve_design": "design",
    "Design": "design",
    "RangerError": "errors",
    "aggregate_metrics": "aggregate",
    "aggregate_comparisons": "aggregate",
    "AggregateComparison": "aggregate",
    "harmonic_mean_p": "aggregate",
    "HarmonicMeanP": "aggregate",
    "standardized_means": "aggregate",
    "rank_systems": "aggregate",
    "Ranking": "aggregate",
    "rank_test": "aggregate",
    "RankTest": "aggregate",
    "win_rate": "aggregate",
    "WinRate": "aggregate",
    "BayesianRankTest": "aggregate",
    "topsis": "aggregate",
    "condition_and_compare": "aggregate",
    "ConditionComparison": "aggregate",
    "predictive_check": "aggregate",
    "PredictiveCheck": "aggregate",
    "cross_dataset_estimates": "aggregate",
    "CrossDatasetEstimates": "aggregate",
    "error_reduction": "aggregate",
    "ErrorReduction": "aggregate",
    "parse_signature": "signature",
    "open_scores": "lazy",
    "LazyScores": "lazy",
    "CompareSettings": "settings",
    "MetaSettings": "settings",
    "RankSettings": "settings",
    "ASOSettings": "settings",
    "BayesSettings": "settings",
    "WinRateSettings": "settings",
    "RankIntervalSettings": "settings",
    "ErrorReductionSettings": "settings",
    "CrossDatasetSettings": "settings",
    "PredictiveCheckSettings": "settings",
    "ArenaSettings": "settings",
    "PlanSettings": "settings",
    "AgreementSettings": "settings",
    "AltTestSettings": "settings",
    "agreement": "llm",
    "AgreementResult": "llm",
    "alt_test": "llm",
    "AltTestResult": "llm",
    "IRTSettings": "settings",
    "irt": "budget.irt",
    "IRTResult": "budget.irt",
    "IRTPrediction": "budget.irt",
    "SubsetSettings": "settings",
    "ChooseSubsetSettings": "settings",
    "estimate_from_subset": "budget.subset",
    "SubsetEstimate": "budget.subset",
    "choose_subset": "budget.subset",
    "SubsetChoice": "budget.subset",
    "ppi_mean": "verdicts",
    "pass_at_k": "llm",
    "pass_hat_k": "llm",
    "PassKSettings": "settings",
    "ppi_mean_difference": "verdicts",
    "PPIResult": "verdicts",
    "bradley_terry": "verdicts",
    "battles_from_scores": "verdicts",
    "battle_counts": "verdicts",
    "Ratings": "verdicts",
    "bayesian_correlated_ttest": "verdicts",
    "bayesian_signed_rank": "verdicts",
    "bayesian_sign_test": "verdicts",
    "confidence_sequence": "budget",
    "ConfidenceSequence": "budget",
    "monitor": "budget",
    "MonitorResult": "budget",
    "MonitorStopping": "budget",
    "BayesResult": "verdicts",
    "aso": "verdicts",
    "multi_aso": "verdicts",
    "ASOResult": "verdicts",
    "plan": "stats.power",
    "Plan": "stats.power",
    "plan_from_pilot": "stats.pilot",
    "PilotPlan": "stats.pilot",
    "variance_components": "llm",
    "VarianceComponents": "llm",
    "VarianceSettings": "settings",
}
_SUBMODULES = (
    "ir", "stats", "plots", "report", "io", "scores", "effects", "meta", "comparison", "pipeline",
    "errors", "signature", "formatting", "aggregate", "setmetrics", "lazy", "settings", "verdicts",
    "llm",
)

__all__ = ["__version__", *_EXPORTS, *_SUBMODULES]


def __getattr__(name: str) -> Any:
    if name in _EXPORTS:
        module = importlib.import_module(f".{_EXPORTS[name]}", __name__)
        value = getattr(module, name)
        globals()[name] = value
        return value
    if name in _SUBMODULES:
        module = importlib.import_module(f".{name}", __name__)
        globals()[name] = module
        return module
    raise AttributeError(f"module 'ranger_eval' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(__all__)
