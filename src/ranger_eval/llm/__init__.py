"""LLM evaluation's own currency, computed from :class:`~ranger_eval.scores.Scores`.

pass@k and pass^k over repeated samples, variance components across items, prompts and samples,
and agreement between judges and annotators. Every function here returns either an ordinary
:class:`~ranger_eval.scores.Scores` table (so every analysis follows) or a frozen result object
that the report registry renders.
"""

from .variance import VarianceComponents, VarianceRow, variance_components

__all__ = ["VarianceComponents", "VarianceRow", "variance_components"]
