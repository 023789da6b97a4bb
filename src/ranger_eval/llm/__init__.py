"""LLM evaluation's own currency, computed from :class:`~ranger_eval.scores.Scores`.

pass@k and pass^k over repeated samples, variance components across items, prompts and samples,
and agreement between judges and annotators. Every function here returns either an ordinary
:class:`~ranger_eval.scores.Scores` table (so every analysis follows) or a frozen result object
that the report registry renders.
"""
from .agreement import AgreementResult, agreement
from .alt_test import AltTestResult, alt_test
from .passk import (
    pass_at_k,
    pass_at_k_values,
    pass_hat_k,
    pass_hat_k_values,
    passk_label,
)
from .variance import VarianceComponents, VarianceRow, variance_components

__all__ = [
    "AgreementResult", "AltTestResult", "agreement", "alt_test",
    "pass_at_k", "pass_at_k_values", "pass_hat_k", "pass_hat_k_values", "passk_label",
    "VarianceComponents", "VarianceRow", "variance_components",
]
