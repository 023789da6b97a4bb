"""Verdicts beyond a p-value, computed from :class:`~ranger_eval.scores.Scores`.

``ppi.py``: prediction-powered inference on judge-scored items (``ppi_mean``,
``ppi_mean_difference``); the array kernel is :mod:`ranger_eval.stats.ppi`.
``bradley_terry.py``: Bradley–Terry leaderboards from pairwise battles (``bradley_terry``), and
per-item scores as battles (``battles_from_scores``; as counts of the distinct outcomes,
``battle_counts``).
``bayes.py``: Bayesian comparison with a ROPE (``bayesian_correlated_ttest``,
``bayesian_signed_rank``, ``bayesian_sign_test``; baycomp's tests).
``aso.py``: Almost Stochastic Order of score distributions over seeds (``aso``, ``multi_aso``;
every dataset × metric of run scores, ``aso_groups``, as ``ranger-eval aso``).
``bayes.py`` also runs the correlated t-test of every pair on every dataset × metric of
cross-validation folds (``correlated_ttests``, as ``ranger-eval bayes``).
"""
from ..stats.ppi import PPI_METHODS, PPIResult
from .aso import ASOAnalysis, ASOGroup, ASOResult, aso, aso_groups, multi_aso
from .battle_counts import battle_counts, battles_from_scores
from .bayes import (
    BayesAnalysis,
    BayesGroup,
    BayesResult,
    bayesian_correlated_ttest,
    bayesian_sign_test,
    bayesian_signed_rank,
    correlated_ttests,
    dataset_tests,
)
from .bradley_terry import Ratings, bradley_terry
from .ppi import ppi_mean, ppi_mean_difference

__all__ = ["ASOResult", "PPI_METHODS", "PPIResult", "Ratings", "battle_counts", "battles_from_scores", "bradley_terry",
           "aso", "multi_aso", "ASOAnalysis", "aso_groups", "BayesAnalysis", "correlated_ttests",
           "ppi_mean", "ppi_mean_difference", "BayesResult", "bayesian_correlated_ttest",
           "bayesian_sign_test", "bayesian_signed_rank", "ASOGroup", "BayesGroup",
           "dataset_tests"]
