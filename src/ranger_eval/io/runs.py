"""Run scores: one score per training run (seed) of each system, the input of Almost Stochastic
Order (``ranger-eval aso``).

Two layouts are read:

* a **run table** (CSV/TSV/JSONL/Parquet) with columns ``system, seed, value`` and optionally
  ``dataset`` and ``metric`` — one row per run, e.g. the test accuracy of each fine-tuning seed;
* **per-item scores with a seed column** — any input :func:`~ranger_eval.io.tables.read_scores`
  reads (a tidy table ``dataset, system, item, value, seed``, evaluation logs …); each run's
  score is then its mean over the items (:func:`runs_from_scores`).

Both give one tidy frame with the columns :data:`RUN_COLUMNS`. Errors name the file and the line
(Parquet: the row): a missing or blank id, a value that is not a finite number, a run given twice.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from ..errors import InputError
from ..scores import DEFAULT_METRIC, Scores
from . import adapters
from .tables import (
    _check_frame_values,
    _raise_duplicates,
    check_ids,
    is_item_table,
    read_scores,
    read_table,
)

__all__ = ["RUN_COLUMNS", "read_runs", "runs_from_scores"]

#: The columns of a run frame, in order.
RUN_COLUMNS = ("dataset", "metric", "system", "seed", "value")
_DEFAULT_DATASET = "data"


def runs_from_scores(scores: Scores, *, where: str = "scores") -> pd.DataFrame:
    """One score per run from per-item scores with a ``seed`` column: each (dataset, metric,
    system, seed)'s mean over its items. Every run of a dataset × metric must cover the same
    number of items (a run that lost items would be averaged over others, silently): otherwise
    an :class:`~ranger_eval.errors.InputError` names the run and the counts."""
    if not scores.has_seeds:
        raise InputError(
            f"{where}: per-item scores without a 'seed' column; Almost Stochastic Order "
            "compares distributions of run scores (one score per seed and system): add a seed "
            "column, or give a run table (system, seed, value[, dataset, metric]); to compare "
            "per-item scores of single runs use `ranger-eval compare`")
    keys = ["dataset", "metric", "system", "seed"]
    grouped = scores.table.groupby(keys, sort=False, observed=True)["value"]
    runs = grouped.agg(["mean", "size"]).reset_index()
    sizes = runs.groupby(["dataset", "metric"], sort=False, observed=True)["size"]
    low, high = sizes.transform("min"), sizes.transform("max")
    uneven = np.flatnonzero((low != high).to_numpy())
    if uneven.size:
        top = runs.iloc[int(uneven[0])]
        group = runs[(runs["dataset"] == top["dataset"]) & (runs["metric"] == top["metric"])]
        few = group.iloc[int(np.argmin(group["size"].to_numpy()))]
        raise InputError(
            f"{where}: dataset {few['dataset']!r}, metric {few['metric']!r}: the run of system "
            f"{few['system']!r}, seed {few['seed']!r} has {int(few['size'])} items, others up to "
            f"{int(group['size'].max())}; a run's score is its mean over the items, so every "
            "run needs the same items")
    out = runs.rename(columns={"mean": "value"})[list(RUN_COLUMNS)]
    for col in ("dataset", "metric", "system", "seed"):
        out[col] = out[col].astype(str)
    return out.reset_index(drop=True)


def read_runs(path: str | Path) -> pd.DataFrame:
    """The run scores in ``path`` as a frame with the columns :data:`RUN_COLUMNS` (module
    docstring for the layouts); a missing ``dataset`` or ``metric`` column is one dataset
    ``data`` or one metric ``score``."""
    path = Path(path)
    if path.is_dir() or adapters.input_format(path) is not None:
        return runs_from_scores(read_scores(path), where=str(path))
    frame = read_table(path)
    if "item" in frame.columns or is_item_table(frame.columns):
        return runs_from_scores(read_scores(path), where=str(path))
    missing = [c for c in ("system", "seed", "value") if c not in frame.columns]
    if missing:
        hint = ("; ASO compares distributions of run scores, one per seed: add the seed of "
                "each run (or use `ranger-eval compare` for per-item scores of single runs)"
                if "seed" in missing else "")
        raise InputError(f"{path}: no {' or '.join(map(repr, missing))} column (have: "
                         f"{', '.join(map(str, frame.columns))}); a run table has columns "
                         f"system, seed, value[, dataset, metric]{hint}")
    if frame.empty:
        raise InputError(f"{path}: the table has no rows")
    _check_frame_values(frame, path, "value")
    check_ids(frame, path, [c for c in ("dataset", "metric", "system", "seed")
                            if c in frame.columns])
    if "dataset" not in frame.columns:
        frame = frame.assign(dataset=_DEFAULT_DATASET)
    if "metric" not in frame.columns:
        frame = frame.assign(metric=DEFAULT_METRIC)
    _raise_duplicates(frame, path, ["dataset", "metric", "system", "seed"])
    out = frame[list(RUN_COLUMNS)].copy()
    for col in ("dataset", "metric", "system", "seed"):
        out[col] = out[col].astype(str)
    out["value"] = pd.to_numeric(out["value"]).astype(np.float64)
    return out.reset_index(drop=True)
