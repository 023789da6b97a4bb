"""Scores larger than memory: tidy Parquet tables scanned lazily (issue 13 §4; docs/large.md).

``open_scores(path)`` gives a :class:`LazyScores`; ``ranger_eval.compare(lazy, ...)`` runs the
classical tests from per-pair sufficient statistics (and streams one group at a time for the
tests that need the per-item vectors); ``lazy.effect_sizes(...)`` feeds
``ranger_eval.meta_analysis``. Needs DuckDB (the ``large`` extra).
"""
from __future__ import annotations

from ._compare import CLASSICAL, compare_lazy, effect_sizes_lazy
from ._scan import LazyScores, open_scores
from ._stats import PAIR_COLUMNS, merge_statistics

__all__ = [
    "CLASSICAL",
    "PAIR_COLUMNS",
    "LazyScores",
    "compare_lazy",
    "effect_sizes_lazy",
    "merge_statistics",
    "open_scores",
]
