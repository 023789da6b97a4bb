"""HELM's mean win rate: how often a system beats the others, averaged over datasets.

Liang et al. (2022), "Holistic Evaluation of Language Models" (HELM), §4 and the function
``compute_aggregate_row_win_rates`` of ``helm/benchmark/presentation/summarize.py``.

On one dataset (HELM: one column of the leaderboard) with ``m`` systems that have a score, the
win rate of system ``j`` is the share of the other ``m − 1`` systems it beats, a tie counting
half::

    w_dj = (#{i ≠ j: s_dj better than s_di} + ½ #{i ≠ j: s_di = s_dj}) / (m − 1)

(HELM computes it as ``(systems strictly worse + (tied systems − 1)/2) / (m − 1)`` from the
sorted distinct values: the same number.) The mean win rate of ``j`` is the mean of ``w_dj`` over
the datasets where ``j`` has a score.

Missing cells, as HELM handles them: a system without a score on a dataset is left out of that
dataset (the others' win rates there are over the ``m`` systems present); a dataset with fewer
than two scores is skipped (a warning names it); a system's mean is over the datasets where it has
a score, and a system with a score on no usable dataset has no win rate (NaN; HELM's ``None``),
which a warning names.

Interval: a percentile bootstrap. Every replicate draws N datasets with replacement (N = the
number of datasets) and recomputes every system's mean win rate over the datasets drawn. Given
per-item scores (a tidy table with an ``item`` column or :class:`~ranger_eval.scores.Scores`),
each drawn copy of a dataset is also resampled: its items are drawn with replacement (the same
items for every system, so the pairing by item is kept), every system's per-dataset mean is
recomputed from the items drawn, and the win rates of that copy come from those means (a
two-stage bootstrap, datasets then items within each dataset; Davison & Hinkley 1997, §3.8).
Seeds of an item are averaged first. The interval is the ``(1 − level)/2`` and ``(1 + level)/2``
quantiles (numpy's default linear interpolation) of the replicates; a replicate that drew no
dataset where a system has a score does not count for that system (counted on the result).
"""
from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from .._frames import as_frame, float_values, id_strings
from ..errors import AggregateError
from ..signature import Signature, make_signature

if TYPE_CHECKING:  # pragma: no cover
    from ..scores import Scores

__all__ = ["WinRate", "win_rate"]

#: at most this many item counts are drawn at once (memory of the item bootstrap)
_BLOCK_CELLS = 4_000_000


@dataclass(frozen=True)
class WinRate:
    """Mean win rates of systems over datasets (HELM), with bootstrap intervals.

    Attributes
    ----------
    win_rate
        Mean win rate per system, best first (NaN for a system with no usable dataset, last).
    ci_low, ci_high
        Percentile-bootstrap interval at ``level`` (same index).
    n_datasets
        Datasets that count for each system (it has a score there and the dataset has ≥ 2).
    per_dataset
        Win rate of every system (columns, best first) on every dataset (rows); NaN where the
        system has no score or the dataset was skipped.
    skipped
        Datasets with fewer than two scores (left out, as HELM does).
    n_missing
        Missing (dataset, system) cells of the table.
    resample
        ``"datasets"`` or ``"datasets+items"`` (per-item scores given).
    n_invalid_replicates
        Per system, bootstrap replicates that drew no dataset where it has a score (left out of
        its interval).
    """

    win_rate: pd.Series
    ci_low: pd.Series
    ci_high: pd.Series
    n_datasets: pd.Series
    per_dataset: pd.DataFrame
    skipped: tuple[str, ...]
    n_missing: int
    higher_is_better: bool
    level: float
    n_bootstrap: int
    seed: int | None
    resample: str
    n_invalid_replicates: pd.Series
    signature: Signature

    def to_frame(self) -> pd.DataFrame:
        """One row per system, best first: ``system, win_rate, ci_low, ci_high, n_datasets``."""
        return pd.DataFrame({
            "system": pd.Series(list(self.win_rate.index), dtype=object),
            "win_rate": self.win_rate.to_numpy(dtype=float),
            "ci_low": self.ci_low.to_numpy(dtype=float),
            "ci_high": self.ci_high.to_numpy(dtype=float),
            "n_datasets": self.n_datasets.to_numpy(dtype=np.int64),
        })


# ----------------------------------------------------------------------------- kernel
def dataset_win_rates(values: np.ndarray, *, higher_is_better: bool = True) -> np.ndarray:
    """Win rates ``w_dj`` (module docstring) of the rows of ``values`` (``… × k``, NaN = missing).

    NaN where the system has no score or the row has fewer than two scores. The counts of wins
    and half-ties are exact half-integers, divided once by ``m − 1`` as HELM does.
    """
    v = np.asarray(values, dtype=float)
    present = np.isfinite(v)
    filled = np.where(present, v, 0.0)
    a = filled[..., :, None]  # the system j
    b = filled[..., None, :]  # the others i
    both = present[..., :, None] & present[..., None, :]
    better = (a > b) if higher_is_better else (a < b)
    wins = (better & both).sum(axis=-1) + 0.5 * ((a == b) & both).sum(axis=-1) - 0.5
    m = present.sum(axis=-1, keepdims=True).astype(float)
    with np.errstate(invalid="ignore", divide="ignore"):
        out = wins / (m - 1.0)
    return np.where(present & (m >= 2), out, np.nan)


# ----------------------------------------------------------------------------- input
def _direction(higher_is_better: object) -> bool:
    if not isinstance(higher_is_better, (bool, np.bool_)):
        raise AggregateError(
            f"win_rate: higher_is_better must be True or False; got {higher_is_better!r}")
    return bool(higher_is_better)


def _wide(table: pd.DataFrame) -> pd.DataFrame:
    df = table.copy()
    df.columns = [str(c) for c in df.columns]
    df.index = [str(i) for i in df.index]
    for axis, names in (("system (column)", df.columns), ("dataset (row)", df.index)):
        dup = pd.Index(names)[pd.Index(names).duplicated()].unique()
        if len(dup):
            raise AggregateError(
                f"win_rate: duplicate {axis} name(s) in table: {', '.join(map(repr, dup))}")
    cells = {}
    for col in df.columns:
        if pd.api.types.is_bool_dtype(df[col].dtype):
            raise AggregateError(f"win_rate: system {col!r} has non-numeric scores (dtype bool)")
        values, bad = float_values(df[col])
        if bad is not None and bad.problem != "missing value":
            raise AggregateError(
                f"win_rate: system {col!r} has a non-numeric score: {bad.problem} {bad.shown} "
                f"on dataset {df.index[bad.first]!r}{bad.more()}")
        inf = np.isinf(values)
        if inf.any():
            r = int(np.flatnonzero(inf)[0])
            raise AggregateError(
                f"win_rate: system {col!r} has an infinite score ({float(values[r])!r}) on dataset "
                f"{df.index[r]!r}; leave a missing cell empty (NaN)")
        cells[col] = values
    return pd.DataFrame(cells, index=df.index, columns=df.columns)


def _tidy(df: pd.DataFrame, metric: str | None) -> pd.DataFrame:
    df = df.copy()
    df.columns = [str(c) for c in df.columns]
    for col in ("dataset", "system", "metric", "item"):
        if col not in df.columns:
            continue
        ids, bad = id_strings(df[col])
        if bad is not None:
            raise AggregateError(f"win_rate: column {col!r} of the tidy table: "
                                 f"{bad.describe()}{bad.more()}")
        df[col] = ids
    values, bad_v = float_values(df["value"])
    if bad_v is not None or not np.isfinite(values).all():
        row = bad_v.first if bad_v is not None else int(np.flatnonzero(~np.isfinite(values))[0])
        raise AggregateError(
            f"win_rate: non-numeric, missing or infinite value at row {row} (dataset "
            f"{df['dataset'].iloc[row]!r}, system {df['system'].iloc[row]!r}): "
            f"{df['value'].iloc[row]!r}; leave the row out instead")
    df["value"] = values
    if "metric" in df.columns:
        if metric is not None:
            known = list(pd.unique(df["metric"]))
            if str(metric) not in known:
                raise AggregateError(f"win_rate: unknown metric {metric!r}; the table has: "
                                     f"{', '.join(map(repr, known))}")
            df = df[df["metric"] == str(metric)]
        per = df.groupby("dataset", sort=False)["metric"].unique()
        several = per[per.map(len) > 1]
        if len(several):
            raise AggregateError(
                f"win_rate: dataset {several.index[0]!r} has several metrics "
                f"({', '.join(map(repr, several.iloc[0]))}); select one with "
                f"metric={several.iloc[0][0]!r}")
    elif metric is not None:
        raise AggregateError(f"win_rate: metric={metric!r} given but the table has no 'metric' "
                             "column")
    return df


# ----------------------------------------------------------------------------- main
def win_rate(
    table_or_scores: pd.DataFrame | Scores,
    *,
    higher_is_better: bool = True,
    level: float = 0.95,
    n_bootstrap: int = 1000,
    seed: int | None = 0,
    metric: str | None = None,
) -> WinRate:
    """HELM's mean win rate of every system, with a bootstrap interval (module docstring).

    Parameters
    ----------
    table_or_scores
        A wide table (rows = datasets, columns = systems; NaN = missing), a tidy table with
        columns ``dataset, system, value`` [``metric``, ``item``, ``seed``] or
        :class:`~ranger_eval.scores.Scores`. Tidy rows are averaged per (dataset, system) (per
        item first when there is an ``item`` column, which turns on the item bootstrap).
    higher_is_better
        Whether the larger score wins.
    level
        Level of the percentile-bootstrap interval, in (0, 1).
    n_bootstrap
        Bootstrap replicates (≥ 1; 0 skips the interval: NaN bounds).
    seed
        Seed of numpy's ``default_rng`` (None: fresh entropy).
    metric
        For tidy input with several metrics per dataset: the one to use.

    Equal to HELM's ``compute_aggregate_row_win_rates(table, "mean")`` with datasets as HELM's
    columns and systems as its rows (tests/oracles/win_rate_oracle.py). Raises
    :class:`~ranger_eval.errors.AggregateError` for bad input.
    """
    hib = _direction(higher_is_better)
    if isinstance(level, (bool, np.bool_)) or not isinstance(level, (int, float, np.floating)) \
            or not 0.0 < float(level) < 1.0:
        raise AggregateError(f"win_rate: level must be a number in (0, 1); got {level!r}")
    level = float(level)
    if isinstance(n_bootstrap, (bool, np.bool_)) or not isinstance(n_bootstrap,
                                                                  (int, np.integer)) \
            or not 0 <= int(n_bootstrap) <= 10**7:
        raise AggregateError(f"win_rate: n_bootstrap must be a whole number from 0 to 10^7; got "
                             f"{n_bootstrap!r}")
    n_bootstrap = int(n_bootstrap)
    if seed is not None and (isinstance(seed, (bool, np.bool_))
                             or not isinstance(seed, (int, np.integer)) or int(seed) < 0):
        raise AggregateError(f"win_rate: seed must be a whole number ≥ 0 or None; got {seed!r}")

    items: dict[str, np.ndarray] | None = None
    frame = getattr(table_or_scores, "frame", None)
    if not isinstance(table_or_scores, pd.DataFrame) and isinstance(frame, pd.DataFrame):
        tidy = _tidy(frame, metric)
    else:
        df = as_frame(table_or_scores, what="win_rate (a wide table of datasets × systems, a "
                      "tidy table or Scores)", error=AggregateError)
        if {"dataset", "system", "value"} <= set(map(str, df.columns)):
            tidy = _tidy(df, metric)
        else:
            if metric is not None:
                raise AggregateError(f"win_rate: metric={metric!r} only applies to tidy tables; "
                                     "this table is wide (rows = datasets, columns = systems)")
            tidy = None
            wide = _wide(df)
    if tidy is not None:
        datasets = list(pd.unique(tidy["dataset"]))
        systems = list(pd.unique(tidy["system"]))
        if "item" in tidy.columns:
            per_item = tidy.groupby(["dataset", "item", "system"], sort=False)["value"].mean()
            grid = per_item.unstack("system").reindex(columns=systems)
            items = {d: grid.xs(d, level="dataset").to_numpy(dtype=float) for d in datasets}
            wide = pd.DataFrame([_column_means(items[d]) for d in datasets],
                                index=datasets, columns=systems)
        else:
            means = tidy.groupby(["dataset", "system"], sort=False)["value"].mean()
            wide = means.unstack("system").reindex(index=datasets, columns=systems)
            wide.index.name = None
            wide.columns.name = None
    values = wide.to_numpy(dtype=float)
    n, k = values.shape
    if n < 1 or k < 2:
        raise AggregateError(f"win_rate needs at least 1 dataset and 2 systems; got {n} "
                             f"dataset(s) and {k} system(s): {list(map(str, wide.columns))}")
    systems = [str(c) for c in wide.columns]
    datasets = [str(i) for i in wide.index]
    present = np.isfinite(values)
    n_missing = int((~present).sum())
    usable = present.sum(axis=1) >= 2
    skipped = tuple(d for d, u in zip(datasets, usable, strict=True) if not u)
    if not usable.any():
        raise AggregateError(
            f"win_rate: no dataset has scores of two systems ({n_missing} of {n * k} cells are "
            "missing); a win rate compares systems on the same dataset")
    if skipped:
        warnings.warn(f"win_rate: {len(skipped)} dataset(s) with fewer than two scores skipped "
                      f"(as HELM): {', '.join(map(repr, skipped[:10]))}"
                      f"{' …' if len(skipped) > 10 else ''}", stacklevel=2)
    per = dataset_win_rates(values, higher_is_better=hib)
    counted = np.isfinite(per)
    n_ds = counted.sum(axis=0)
    with np.errstate(invalid="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        point = np.nanmean(per, axis=0)
    lost = [s for s, c in zip(systems, n_ds, strict=True) if c == 0]
    if lost:
        warnings.warn(f"win_rate: {len(lost)} system(s) have a score on no dataset with another "
                      f"system's score and get no win rate (NaN, HELM's None): "
                      f"{', '.join(map(repr, lost))}", stacklevel=2)

    low = np.full(k, np.nan)
    high = np.full(k, np.nan)
    invalid = np.zeros(k, dtype=np.int64)
    if n_bootstrap:
        reps = _bootstrap(per, items, n_bootstrap, seed, hib)
        ok = np.isfinite(reps)
        invalid = (~ok).sum(axis=0)
        alpha = 1.0 - level
        for j in range(k):
            col = reps[ok[:, j], j]
            if col.size:
                low[j], high[j] = np.quantile(col, [alpha / 2.0, 1.0 - alpha / 2.0])

    key = np.where(np.isfinite(point), -point, np.inf)
    order = np.argsort(key, kind="stable")
    names = pd.Index([systems[j] for j in order], dtype=object)
    signature = make_signature("win_rate", {
        "resample": "datasets+items" if items is not None else "datasets",
        "level": level,
        "n_resamples": n_bootstrap,
        "seed": seed,
    })
    return WinRate(
        win_rate=pd.Series(point[order], index=names, name="win_rate"),
        ci_low=pd.Series(low[order], index=names, name="ci_low"),
        ci_high=pd.Series(high[order], index=names, name="ci_high"),
        n_datasets=pd.Series(n_ds[order].astype(np.int64), index=names, name="n_datasets"),
        per_dataset=pd.DataFrame(per[:, order], index=pd.Index(datasets, dtype=object),
                                 columns=names),
        skipped=skipped,
        n_missing=n_missing,
        higher_is_better=hib,
        level=level,
        n_bootstrap=n_bootstrap,
        seed=None if seed is None else int(seed),
        resample="datasets+items" if items is not None else "datasets",
        n_invalid_replicates=pd.Series(invalid[order].astype(np.int64), index=names,
                                       name="n_invalid_replicates"),
        signature=signature,
    )


def _column_means(x: np.ndarray) -> np.ndarray:
    """Mean of every column over its finite cells (NaN for a column with none)."""
    ok = np.isfinite(x)
    cnt = ok.sum(axis=0)
    tot = np.where(ok, x, 0.0).sum(axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(cnt > 0, tot / np.maximum(cnt, 1), np.nan)


def _bootstrap(per: np.ndarray, items: dict[str, np.ndarray] | None, b: int,
               seed: Any, hib: bool) -> np.ndarray:
    """``b × k`` replicates of the mean win rates (module docstring)."""
    rng = np.random.default_rng(seed)
    n, k = per.shape
    draw = rng.integers(0, n, size=(b, n))
    num = np.zeros((b, k))
    den = np.zeros((b, k))
    if items is None:
        ok = np.isfinite(per)
        filled = np.where(ok, per, 0.0)
        counts = np.zeros((b, n))
        np.add.at(counts, (np.repeat(np.arange(b), n), draw.ravel()), 1.0)
        num = counts @ filled
        den = counts @ ok.astype(float)
    else:
        for d, x in enumerate(items.values()):
            reps, _slot = np.nonzero(draw == d)  # one independent item resample per drawn copy
            if reps.size == 0:
                continue
            m = x.shape[0]
            ok = np.isfinite(x)
            filled = np.where(ok, x, 0.0)
            okf = ok.astype(float)
            block = max(1, _BLOCK_CELLS // max(m, 1))
            for start in range(0, reps.size, block):
                r = reps[start:start + block]
                c = rng.multinomial(m, np.full(m, 1.0 / m), size=r.size).astype(float)
                cnt = c @ okf
                with np.errstate(invalid="ignore", divide="ignore"):
                    means = np.where(cnt > 0, (c @ filled) / np.maximum(cnt, 1e-300), np.nan)
                w = dataset_win_rates(means, higher_is_better=hib)
                wok = np.isfinite(w)
                np.add.at(num, r, np.where(wok, w, 0.0))
                np.add.at(den, r, wok.astype(float))
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(den > 0, num / np.maximum(den, 1e-300), np.nan)
