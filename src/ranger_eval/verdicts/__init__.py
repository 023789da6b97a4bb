"""Verdicts beyond a p-value, computed from :class:`~ranger_eval.scores.Scores`.

``ppi.py``: prediction-powered inference on judge-scored items (``ppi_mean``,
``ppi_mean_difference``); the array kernel is :mod:`ranger_eval.stats.ppi`.
``bradley_terry.py``: Bradley–Terry leaderboards from pairwise battles (``bradley_terry``).
``bayes.py``: Bayesian comparison with a ROPE (``bayesian_correlated_ttest``,
``bayesian_signed_rank``, ``bayesian_sign_test``; baycomp's tests).
"""
from ..stats.ppi import PPI_METHODS, PPIResult
from .bayes import BayesResult, bayesian_correlated_ttest, bayesian_sign_test, bayesian_signed_rank
from .bradley_terry import Ratings, bradley_terry
from .ppi import ppi_mean, ppi_mean_difference

__all__ = ["PPI_METHODS", "PPIResult", "Ratings", "bradley_terry", "ppi_mean",
           "ppi_mean_difference", "BayesResult", "bayesian_correlated_ttest",
           "bayesian_sign_test", "bayesian_signed_rank"]
