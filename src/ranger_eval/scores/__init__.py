"""Scores: the tidy per-item table every analysis starts from (``dataset, system, metric, item,
value`` [+ ``seed``, ``sample``, ``cluster``, ``human_value``, ``label``, ``prediction``]).

* :mod:`.table` — the :class:`Scores` class (construction, validation, pairing and grouping by
  item, cluster, sample and prompt id) and :func:`as_scores`;
* :mod:`.runs` — two systems aligned by item (``PairedScores``, ``PairedTable``), the seeds of a
  system's runs (``SystemRuns``, ``PairedRuns``, ``seed_order``, ``seed_imbalance``) and the items
  systems share (``common_items``, ``items_only_in``, ``check_same_labels``);
* :mod:`.validation` — the column checks run at construction (bounds, clusters, human values,
  samples, duplicate keys) and ``concat_frames``;
* :mod:`.columns` — the column names and their roles.

Every name is importable from ``ranger_eval.scores``.
"""
from __future__ import annotations

from ..errors import ScoresError
from .columns import (
    BOUNDS,
    CLUSTER,
    CLUSTER_NAME,
    HUMAN_VALUE,
    PASSK,
    PROMPT,
    SAMPLE,
    passk_fields,
)
from .columns import DEFAULT_METRIC as DEFAULT_METRIC
from .columns import KEY_COLUMNS as KEY_COLUMNS
from .columns import LABEL as LABEL
from .columns import MISSING_POLICIES as MISSING_POLICIES
from .columns import OPTIONAL as OPTIONAL
from .columns import PREDICTION as PREDICTION
from .columns import REQUIRED as REQUIRED
from .runs import (
    PairedRuns,
    PairedScores,
    PairedTable,
    SystemRuns,
    check_same_labels,
    common_items,
    seed_imbalance,
    seed_order,
)
from .runs import items_only_in as items_only_in
from .table import Scores, as_scores
from .validation import check_bounds as check_bounds
from .validation import concat_frames as concat_frames

__all__ = [
    "BOUNDS", "CLUSTER", "CLUSTER_NAME", "HUMAN_VALUE", "PASSK", "PROMPT", "SAMPLE", "passk_fields",
    "PairedRuns", "PairedScores", "PairedTable", "Scores", "ScoresError", "SystemRuns", "as_scores",
    "check_same_labels", "common_items", "seed_imbalance", "seed_order",
]
