"""Scores larger than memory: tidy Parquet tables scanned lazily (docs/large.md).

``open_scores(path)`` gives a :class:`LazyScores`; ``ranger_eval.compare(lazy, ...)`` runs the
classical tests from per-pair sufficient statistics (and streams one group at a time for the
tests that need the per-item vectors); ``lazy.effect_sizes(...)`` feeds
``ranger_eval.meta_analysis``. Two engines compute the same numbers: DuckDB on this machine (the
``large`` extra) and Dask, on a cluster or from an existing ``dask.dataframe`` (the ``dask``
extra; ``open_scores(path, engine="dask", client=...)`` or ``open_scores(ddf)``).
"""
from __future__ import annotations

from ._compare import CLASSICAL, compare_lazy, effect_sizes_lazy
from ._open import ENGINES, open_scores
from ._scan import LazyScores
from ._stats import PAIR_COLUMNS, merge_statistics

__all__ = [
    "CLASSICAL",
    "ENGINES",
    "PAIR_COLUMNS",
    "LazyScores",
    "compare_lazy",
    "effect_sizes_lazy",
    "merge_statistics",
    "open_scores",
]
