"""Aggregation across metrics and datasets: harmonic-mean p-values, Demšar's rank tests, TOPSIS.

* :func:`harmonic_mean_p` — Wilson's harmonic mean p-value (R ``harmonicmeanp::p.hmp``).
* :func:`rank_test` — Friedman / Iman–Davenport with Nemenyi, Bonferroni–Dunn, Holm or
  Wilcoxon post-hoc tests and CD-diagram cliques (Demšar 2006); :func:`two_system_tests` for
  two systems (Wilcoxon signed-rank and sign test).
* :func:`topsis` — TOPSIS closeness coefficients (Hwang & Yoon 1981); :func:`kendall_tau` to
  compare two rankings.
  ``rank_test(table, approach="bayesian")``: autorank's Bayesian signed-rank decisions with a
  ROPE for every pair (:class:`BayesianRankTest`).
* :func:`win_rate` — HELM's mean win rate with a bootstrap interval over datasets (and items).
"""
from __future__ import annotations

from .bayesrank import BayesianRankTest
from .comparisons import AggregateComparison, aggregate_comparisons, effect_variance
from .crossdataset import (
    CrossDatasetEstimates,
    ErrorReduction,
    PredictiveCheck,
    cross_dataset_estimates,
    error_reduction,
    gumbel_fit,
    predictive_check,
)
from .hmp import LANDAU_OFFSET, HarmonicMeanP, harmonic_mean_p
from .metrics import aggregate_metrics, metric_direction, standardized_means
from .ranking import ConditionComparison, Ranking, condition_and_compare, rank_systems
from .ranktests import (
    POSTHOCS,
    RankTest,
    SignTest,
    TwoSystemTests,
    WilcoxonTest,
    rank_table,
    rank_test,
    two_system_tests,
)
from .topsis import NORMALIZATIONS, KendallTau, kendall_tau, topsis
from .winrate import WinRate, win_rate

__all__ = [
    "AggregateComparison",
    "BayesianRankTest",
    "ConditionComparison",
    "Ranking",
    "aggregate_comparisons",
    "aggregate_metrics",
    "condition_and_compare",
    "effect_variance",
    "metric_direction",
    "rank_systems",
    "standardized_means",
    "LANDAU_OFFSET",
    "NORMALIZATIONS",
    "POSTHOCS",
    "HarmonicMeanP",
    "KendallTau",
    "RankTest",
    "SignTest",
    "TwoSystemTests",
    "WilcoxonTest",
    "harmonic_mean_p",
    "kendall_tau",
    "rank_table",
    "rank_test",
    "WinRate",
    "win_rate",
    "topsis",
    "two_system_tests",
    "CrossDatasetEstimates",
    "ErrorReduction",
    "PredictiveCheck",
    "cross_dataset_estimates",
    "error_reduction",
    "gumbel_fit",
    "predictive_check",
]
