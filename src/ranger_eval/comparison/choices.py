"""The menus of :func:`~ranger_eval.comparison.compare`: tests, pair orders, families, seed
policies, and the columns of its table.
"""
from __future__ import annotations

from .. import settings as _settings

#: the values of compare's choices are those of its settings (:mod:`ranger_eval.settings`)
SEED_POLICIES: tuple[str, ...] = _settings.SEED_POLICIES
TESTS: tuple[str, ...] = _settings.COMPARE_TESTS


PAIRED_ONLY = frozenset({"paired-t", "wilcoxon", "sign", "mcnemar", "bootstrap"})


UNPAIRED_ONLY = frozenset({"welch", "mannwhitney", "proportions-z"})


BINARY_ONLY = frozenset({"mcnemar", "proportions-z"})


RESAMPLING: tuple[str, ...] = ("permutation", "bootstrap")


PAIR_ORDERS: tuple[str, ...] = _settings.PAIR_ORDERS


FAMILIES: tuple[str, ...] = _settings.FAMILIES


ALTERNATIVES: tuple[str, ...] = _settings.ALTERNATIVES


MISSING: tuple[str, ...] = _settings.MISSING


#: The resampling-based correction (Westfall & Young 1993 step-down max-T; permutation tests).
WESTFALL_YOUNG = "westfall-young"


#: Columns of :meth:`Comparison.to_frame`, in order.
COLUMNS: tuple[str, ...] = (
    "dataset",
    "metric",
    "system_a",
    "system_b",
    "mean_a",
    "mean_b",
    "diff",
    "ci_low",
    "ci_high",
    "se",
    "df",
    "test",
    "statistic",
    "pvalue",
    "pvalue_adjusted",
    "effect_size",
    "effect_size_name",
    "effect_label",
    "significant",
    "paired",
    "n_a",
    "n_b",
    "ci_method",
    "seed_sd_a",
    "seed_sd_b",
    "mde",
)
