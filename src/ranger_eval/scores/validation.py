"""Validation of a Scores table's columns when it is built: bounds, clusters (one per item),
human values, samples averaged per item, duplicate keys, correctness from labels and predictions,
and the concatenation of tables.
"""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from .._frames import float_values, id_strings
from ..errors import ScoresError
from ..formatting import preview as _preview
from .columns import (
    BOUNDS,
    CLUSTER,
    CLUSTER_NAME,
    HUMAN_VALUE,
    LABEL,
    PREDICTION,
    PROMPT,
    SAMPLE,
)


def _correctness(data: pd.DataFrame, where: str) -> pd.DataFrame:
    """``data`` (label and prediction columns, no ``value``) with ``value`` = 1.0 where the
    prediction equals the label, else 0.0: the per-item accuracy, so that a table written for a
    set-level metric (``metric_fn=``, which reads only the labels and predictions) needs no
    ``value`` column. A row without a label or a prediction is an error naming it."""
    absent = (data[LABEL].isna() | data[PREDICTION].isna()).to_numpy(dtype=bool)
    if absent.any():
        r = int(np.flatnonzero(absent)[0])
        raise ScoresError(
            f"no 'value' column{where}, and row {r} has no {LABEL!r} or {PREDICTION!r} to "
            f"score it by (label {data[LABEL].iloc[r]!r}, prediction "
            f"{data[PREDICTION].iloc[r]!r}); {int(absent.sum())} such row(s)")
    equal = (data[PREDICTION].to_numpy(dtype=object) == data[LABEL].to_numpy(dtype=object))
    return data.assign(value=np.asarray(equal, dtype=np.float64))


def concat_frames(frames: Sequence[pd.DataFrame]) -> pd.DataFrame:
    """``pd.concat`` of tidy frames that keeps what their ``attrs`` record (pandas drops attrs
    that differ between the parts): the declared ranges (``attrs[BOUNDS]``) of every part, a
    metric ranged differently by two parts taking the hull of both; the cluster field's name
    when the parts that name one agree."""
    out = pd.concat(frames, ignore_index=True)
    bounds: dict[str, tuple[float, float]] = {}
    for f in frames:
        for m, (lo, hi) in (f.attrs.get(BOUNDS) or {}).items():
            old = bounds.get(m)
            bounds[m] = (lo, hi) if old is None else (min(old[0], lo), max(old[1], hi))
    names = {f.attrs[CLUSTER_NAME] for f in frames if f.attrs.get(CLUSTER_NAME)}
    attrs = dict(out.attrs)
    if bounds:
        attrs[BOUNDS] = bounds
    if len(names) == 1:
        attrs[CLUSTER_NAME] = names.pop()
    out.attrs = attrs
    return out


def check_bounds(bounds: object, metrics: Sequence[str], *,
                 option: str = "bounds") -> dict[str, tuple[float, float]]:
    """``bounds`` as ``{metric: (lo, hi)}``: a mapping of metric to a pair of finite numbers
    with lo < hi, or one pair for every metric of ``metrics``; a :class:`ScoresError` names
    ``option`` and what is wrong (an unknown metric lists the known ones)."""
    def pair(key: str, value: object) -> tuple[float, float]:
        where = option if key == "" else f"{option}[{key!r}]"
        if isinstance(value, (str, bytes)) or not isinstance(value, (Sequence, np.ndarray)) \
                or len(value) != 2:
            raise ScoresError(f"{where} must be a pair [lo, hi] of numbers; got {value!r}")
        try:
            lo, hi = float(value[0]), float(value[1])
        except (TypeError, ValueError):
            raise ScoresError(f"{where} must be a pair [lo, hi] of numbers; got {value!r}") \
                from None
        if not (np.isfinite(lo) and np.isfinite(hi)) or lo >= hi:
            raise ScoresError(f"{where} must be finite with lo < hi; got [{lo!r}, {hi!r}]")
        return lo, hi

    if bounds is None:
        return {}
    if isinstance(bounds, dict):
        out = {}
        known = set(metrics)
        for key, value in bounds.items():
            if str(key) not in known:
                raise ScoresError(f"{option}: unknown metric {str(key)!r}; the scores have "
                                  f"{_preview(list(metrics))}")
            out[str(key)] = pair(str(key), value)
        return out
    lo_hi = pair("", bounds)
    return dict.fromkeys(metrics, lo_hi)


def _row_context(df: pd.DataFrame, r: int) -> str:
    """``dataset 'd', system 's', item 'i'`` of row ``r``, for messages."""
    return (f"dataset {df['dataset'].iloc[r]!r}, system {df['system'].iloc[r]!r}, "
            f"item {df['item'].iloc[r]!r}")


def _cluster_ids(df: pd.DataFrame, where: str) -> pd.Series:
    """The ``cluster`` column as exact id strings (:func:`~ranger_eval._frames.id_strings`);
    a missing (NaN, None) or blank cluster id is an error naming the row and its item."""
    ids, bad = id_strings(df[CLUSTER])
    if bad is not None:
        r = bad.first
        problem = ("missing cluster id (NaN/None/empty cell)" if bad.problem == "missing id"
                   else f"column {CLUSTER!r}: {bad.problem} {bad.shown}")
        raise ScoresError(f"{problem} at row {r} ({_row_context(df, r)}){where}{bad.more()}; "
                          "every row needs the cluster of its item when there is a cluster "
                          "column")
    blank = np.flatnonzero(ids.str.strip().eq("").to_numpy(dtype=bool))
    if blank.size:
        r = int(blank[0])
        raise ScoresError(f"blank cluster id {ids.iloc[r]!r} at row {r} ({_row_context(df, r)})"
                          f"{where}" + (f"; {blank.size} such rows" if blank.size > 1 else "")
                          + "; every row needs the cluster of its item")
    return ids


def _human_values(df: pd.DataFrame, where: str) -> np.ndarray:
    """The ``human_value`` column as float64, NaN where there is no human score; a present
    cell that is not a finite number is an error naming the row."""
    col = df[HUMAN_VALUE]
    out = np.full(len(col), np.nan)
    present = ~col.isna().to_numpy(dtype=bool)
    if present.any():
        vals, bad = float_values(col[present])
        rows = np.flatnonzero(present)
        if bad is not None:
            r = int(rows[bad.first])
            raise ScoresError(f"column {HUMAN_VALUE!r}: {bad.problem} {bad.shown} at row {r} "
                              f"({_row_context(df, r)}){where}{bad.more()}")
        nonfinite = np.flatnonzero(~np.isfinite(vals))
        if nonfinite.size:
            r = int(rows[nonfinite[0]])
            raise ScoresError(f"column {HUMAN_VALUE!r}: non-finite value {float(vals[nonfinite[0]])!r} "
                              f"at row {r} ({_row_context(df, r)}){where}; leave the cell empty "
                              "where there is no human score")
        out[rows] = vals
    return out


def _check_one_cluster_per_item(
    df: pd.DataFrame, codes: dict[str, tuple[np.ndarray, pd.Index]], where: str
) -> None:
    """Every row of an item of a dataset carries the same cluster id; else an error naming the
    dataset, item, clusters and the rows (systems) that disagree. ``codes``: the factorised
    dataset and item columns of the duplicate check."""
    dcodes, _ = codes["dataset"]
    icodes, iuniq = codes["item"]
    ccodes, _ = pd.factorize(df[CLUSTER], sort=False)
    item_key = dcodes.astype(np.int64) * max(len(iuniq), 1) + icodes
    pairs = pd.DataFrame({"k": item_key, "c": ccodes}).drop_duplicates()
    if len(pairs) == len(pd.unique(item_key)):
        return
    bad_key = pairs["k"].to_numpy()[pairs["k"].duplicated(keep=False).to_numpy()]
    n_bad = len(np.unique(bad_key))
    rows = np.flatnonzero(item_key == bad_key[0])
    sub = df.iloc[rows]
    firsts = sub.drop_duplicates(CLUSTER)
    shown = "; ".join(
        f"{c!r} (row {int(r)}, system {s!r})"
        for c, r, s in zip(firsts[CLUSTER], firsts.index, firsts["system"], strict=True))
    raise ScoresError(
        f"dataset {sub['dataset'].iloc[0]!r}: item {sub['item'].iloc[0]!r} is in several "
        f"clusters: {shown}{where}"
        + (f" ({n_bad} items have more than one cluster)" if n_bad > 1 else "")
        + "; an item belongs to one cluster of its dataset, whatever the system, metric, seed "
        "or sample (clusters are nested within datasets)")


def _average_samples(
    df: pd.DataFrame, group: list[str], where: str
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The rows averaged over the ``sample`` (and ``prompt``) column per ``group`` key
    (dataset, system, metric, item[, seed]): ``value`` (and ``human_value``) become per-item
    means, each item the mean of its own K_i rows, other columns keep the first sample's cell;
    with, per averaged row, ``k_samples`` (K_i) and ``within_var`` (ddof = 1, NaN for K_i = 1).
    K may differ between items (a failed generation, a capped budget): every analysis sees
    one value per item, and the items' own K_i reach the within-item variance
    (``describe``'s ``var_within`` = Σ_i s_i² / K_i / n²) and pass@k (each item's own n).
    A human score must be present for all K_i samples of an item or for none."""
    gid = df.groupby(group, sort=False, observed=True).ngroup().to_numpy()
    first = np.unique(gid, return_index=True)[1]  # groups are numbered by first appearance
    k = np.bincount(gid).astype(np.int64)
    by = pd.Series(df["value"].to_numpy(dtype=np.float64)).groupby(gid, sort=True)
    means = by.mean().to_numpy()
    within = by.var(ddof=1).to_numpy()
    out = df.iloc[first].drop(columns=[c for c in (SAMPLE, PROMPT) if c in df.columns])
    out = out.reset_index(drop=True)
    out["value"] = means
    if HUMAN_VALUE in df.columns:
        hv = df[HUMAN_VALUE].to_numpy(dtype=np.float64)
        n_human = np.bincount(gid, weights=~np.isnan(hv)).astype(np.int64)
        partial = np.flatnonzero((n_human > 0) & (n_human < k))
        if partial.size:
            r = int(partial[0])
            raise ScoresError(
                f"column {HUMAN_VALUE!r}: {_row_context(out, r)}"
                f"{', metric ' + repr(out['metric'].iloc[r])} has a human score for {n_human[r]} "
                f"of its {k[r]} samples{where}; give it for all samples of an item or for none")
        out[HUMAN_VALUE] = pd.Series(hv).groupby(gid, sort=True).mean().to_numpy()
    stats = pd.DataFrame({"k_samples": k, "within_var": within})
    return out, stats


def _has_duplicate_keys(
    df: pd.DataFrame, key: list[str], store: dict[str, tuple[np.ndarray, pd.Index]]
) -> bool:
    """Whether two rows share ``key``: the key columns factorised into one int64 code per row,
    sorted, adjacent codes compared (O(rows · log rows), ~3× faster than hashing the frame).
    The factorised columns are put in ``store``."""
    gid = np.zeros(len(df), dtype=np.int64)
    span = 1
    for col in key:
        codes, uniques = pd.factorize(df[col], sort=False)
        store[col] = (codes, pd.Index(uniques))
        span *= max(len(uniques), 1)
        if span >= 2**62:  # the combined code would overflow: let pandas hash the rows
            return bool(df.duplicated(key).any())
        gid = gid * max(len(uniques), 1) + codes
    gid.sort()
    return bool(np.any(gid[1:] == gid[:-1]))


def _tighten(arr: np.ndarray) -> np.ndarray:
    """An object array as a numeric one when every entry is a (non-bool) number."""
    if arr.size and all(isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(
            v, (bool, np.bool_)) for v in arr):
        return arr.astype(np.float64) if any(
            isinstance(v, (float, np.floating)) for v in arr) else arr.astype(np.int64)
    return arr
