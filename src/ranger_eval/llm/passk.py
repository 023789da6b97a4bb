"""pass@k and pass^k: per-item estimators over repeated samples, as an ordinary Scores table.

With n samples of a system on an item, c of them correct (value 1, the others 0):

- pass@k, the probability that at least one of k samples drawn without replacement from the n is
  correct, estimated without bias by ``1 − C(n − c, k) / C(n, k)`` (Chen et al. 2021, "Evaluating
  Large Language Models Trained on Code", eq. 1; OpenAI human-eval's ``estimate_pass_at_k``);
- pass^k, the probability that all k are correct, ``C(c, k) / C(n, k)`` (Yao et al. 2024,
  "τ-bench", eq. 2; Inspect's ``pass_k`` reducer).

Both are computed as products, never factorials: ``C(n − c, k) / C(n, k) = Π_{j = n − c + 1}^{n}
(1 − k / j)`` (1 − that product is 1 when n − c < k) and ``C(c, k) / C(n, k) = Π_{i = 0}^{k − 1}
(c − i) / (n − i)`` (0 when c < k). The products are formed once per distinct (n, c) pair and
vectorised over the pairs, so a million items cost one pass over the rows.

The result is one row per key of the input minus its ``sample`` column (dataset × system ×
metric × item, and every other key column such as ``seed`` or ``prompt``), so every analysis
follows: ``compare(pass_at_k(scores, 3))`` is the paired pass@k test on the items (clusters
honoured), and ``describe``, ``rank``, ``meta`` and ``plan_from_pilot`` read it like any table.
"""
from __future__ import annotations

import warnings
from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from .._frames import as_frame, float_values, id_strings
from ..errors import RangerWarning, ScoresError
from ..formatting import preview
from ..scores import Scores
from ..scores.columns import (
    BOUNDS,
    CLUSTER,
    DEFAULT_METRIC,
    KEY_COLUMNS,
    PASSK,
    PREDICTION,
    SAMPLE,
)
from ..settings import PassKSettings, resolve_settings

__all__ = ["pass_at_k", "pass_hat_k", "pass_at_k_values", "pass_hat_k_values", "passk_label"]

_DEFAULT = PassKSettings()
#: per-sample columns that cannot be carried to a per-item row: dropped, not an error
_PER_SAMPLE = (PREDICTION,)


def passk_label(metric: str, k: int, kind: str = "pass@") -> str:
    """The metric name of a pass@k / pass^k row: ``"pass@3"`` for the default metric
    (``"score"``: the input had no metric column), else ``"<metric> pass@3"``.

    Parameters
    ----------
    metric : str
        The input rows' metric.
    k : int
        Samples drawn.
    kind : {'pass@', 'pass^'}, default 'pass@'
        pass@k or pass^k.

    Returns
    -------
    str
        The output rows' metric name.

    Examples
    --------
    >>> from ranger_eval.llm import passk_label
    >>> passk_label("score", 3), passk_label("includes", 3, "pass^")
    ('pass@3', 'includes pass^3')
    """
    label = f"{kind}{k}"
    return label if metric == DEFAULT_METRIC else f"{metric} {label}"


def _checked_k(k: Any, where: str) -> int:
    if isinstance(k, (bool, np.bool_)) or not isinstance(k, (int, np.integer)):
        raise ScoresError(f"{where}: k={k!r} is not a whole number; k is the number of samples "
                          f"drawn (1, 2, 3, …)")
    if k < 1:
        raise ScoresError(f"{where}: k={int(k)}; k must be at least 1 (k samples drawn from "
                          f"each item's n)")
    return int(k)


def pass_at_k_values(n: np.ndarray, c: np.ndarray, k: int) -> np.ndarray:
    """``1 − C(n − c, k) / C(n, k)`` elementwise (Chen et al. 2021, eq. 1), as the product
    ``1 − Π_{j = n − c + 1}^{n} (1 − k / j)``, 1 where ``n − c < k``; needs ``n ≥ k``.

    Parameters
    ----------
    n, c : array of int
        Samples and correct samples per item.
    k : int
        Samples drawn.

    Returns
    -------
    numpy.ndarray
        pass@k per item (float64), computed once per distinct (n, c) pair.

    Examples
    --------
    >>> import numpy as np
    >>> from ranger_eval.llm import pass_at_k_values
    >>> pass_at_k_values(np.array([5, 5, 10]), np.array([0, 1, 3]), 2).round(6).tolist()
    [0.0, 0.4, 0.533333]
    """
    return _by_pair(np.asarray(n, dtype=np.int64), np.asarray(c, dtype=np.int64), k, _at_k)


def pass_hat_k_values(n: np.ndarray, c: np.ndarray, k: int) -> np.ndarray:
    """``C(c, k) / C(n, k)`` elementwise (Yao et al. 2024, eq. 2), as the product
    ``Π_{i = 0}^{k − 1} (c − i) / (n − i)``, 0 where ``c < k``; needs ``n ≥ k``.

    Parameters
    ----------
    n, c : array of int
        Samples and correct samples per item.
    k : int
        Samples drawn.

    Returns
    -------
    numpy.ndarray
        pass^k per item (float64), computed once per distinct (n, c) pair.

    Examples
    --------
    >>> import numpy as np
    >>> from ranger_eval.llm import pass_hat_k_values
    >>> pass_hat_k_values(np.array([5, 5, 10]), np.array([1, 5, 3]), 2).round(6).tolist()
    [0.0, 1.0, 0.066667]
    """
    return _by_pair(np.asarray(n, dtype=np.int64), np.asarray(c, dtype=np.int64), k, _hat_k)


def _at_k(n: np.ndarray, c: np.ndarray, k: int) -> np.ndarray:
    """pass@k of distinct (n, c) pairs: the product over c factors, masked per pair."""
    prod = np.ones(n.size)
    for t in range(int(c.max(initial=0))):
        j = n - c + 1 + t
        prod = np.where(t < c, prod * (1.0 - k / np.maximum(j, 1)), prod)
    return np.where(n - c < k, 1.0, 1.0 - prod)


def _hat_k(n: np.ndarray, c: np.ndarray, k: int) -> np.ndarray:
    """pass^k of distinct (n, c) pairs: the product over k factors."""
    prod = np.ones(n.size)
    for i in range(k):
        prod = prod * (c - i) / (n - i)
    return np.where(c < k, 0.0, prod)


def _by_pair(n: np.ndarray, c: np.ndarray, k: int, kernel: Any) -> np.ndarray:
    """``kernel`` evaluated once per distinct (n, c) pair and spread back to every element."""
    if n.size == 0:
        return np.zeros(0)
    span = int(n.max()) + 1
    pairs, inverse = np.unique(n * span + c, return_inverse=True)
    out: np.ndarray = kernel(pairs // span, pairs % span, k)[inverse]
    return out


def pass_at_k(scores: Scores | pd.DataFrame | Mapping[str, Any], k: int, *,
              missing: str = _DEFAULT.missing,
              settings: PassKSettings | None = None) -> Scores:
    """Per-item pass@k over repeated samples: ``1 − C(n − c, k) / C(n, k)``.

    The unbiased estimator of Chen et al. (2021, "Evaluating Large Language Models Trained on
    Code", eq. 1), equal to OpenAI human-eval's ``estimate_pass_at_k`` and to Inspect's
    ``pass_at(k)`` reducer: n is the item's number of samples (each item its own n), c the
    number of them with value 1. Computed as ``1 − Π_{j = n − c + 1}^{n} (1 − k / j)``, never
    with factorials (module docstring).

    Parameters
    ----------
    scores : Scores or DataFrame
        Scores with a ``sample`` column and values 0 or 1 (a :class:`~ranger_eval.Scores`, a
        DataFrame or anything :class:`~ranger_eval.Scores` reads); items may have different
        numbers of samples, each item's estimate uses its own n.
    k : int
        Samples drawn, ≥ 1 and at most the samples of every item (else ``missing``).
    missing : {'error', 'drop'}, default 'error'
        An item with fewer than k samples: an error naming it, or dropped with a warning
        naming it and counting the items dropped.
    settings : PassKSettings or None, default None
        The settings object (``missing``).

    Returns
    -------
    Scores
        One row per key of ``scores`` minus ``sample`` (dataset, system, metric, item and any
        other key column: seed, prompt), value the estimate, metric ``"pass@k"`` (the input had
        no metric column) or ``"<metric> pass@k"``, declared bounded in [0, 1]. Other columns
        (cluster, human_value, label, metadata) are carried when constant within the item;
        ``prediction`` (each sample's own output) is dropped. With a ``prompt`` column the
        rows are per item × prompt (:attr:`~ranger_eval.Scores.raw_frame`; the table's
        per-item rows are their means, as for any Scores with prompts), so compare's crossed
        random-effects test and ``variance_components`` see the prompts.

    Raises
    ------
    ScoresError
        No ``sample`` column, a value other than 0/1 (naming the first row), k < 1 or not a
        whole number, k above every item's n, an item with fewer than k samples (with
        ``missing="error"``), or a column that varies within an item's samples.

    Examples
    --------
    >>> import pandas as pd
    >>> import ranger_eval as rg
    >>> df = pd.DataFrame({"dataset": "code", "system": "a", "item": ["1"] * 4 + ["2"] * 4,
    ...                    "sample": [1, 2, 3, 4] * 2, "value": [1, 0, 0, 0, 0, 0, 0, 0]})
    >>> out = rg.pass_at_k(df, 2)
    >>> out.frame[["item", "metric", "value"]].to_dict("list")
    {'item': ['1', '2'], 'metric': ['pass@2', 'pass@2'], 'value': [0.5, 0.0]}
    """
    s = resolve_settings(PassKSettings, {"missing": missing}, settings, where="pass_at_k")
    return _estimate(scores, k, s, "pass@", _at_k, "pass_at_k")


def pass_hat_k(scores: Scores | pd.DataFrame | Mapping[str, Any], k: int, *,
               missing: str = _DEFAULT.missing,
               settings: PassKSettings | None = None) -> Scores:
    """Per-item pass^k over repeated samples: ``C(c, k) / C(n, k)``.

    The probability that k samples drawn without replacement from an item's n are all correct
    (Yao et al. 2024, "τ-bench", eq. 2; Inspect's ``pass_k(k)`` reducer), n and c as in
    :func:`pass_at_k`, computed as ``Π_{i = 0}^{k − 1} (c − i) / (n − i)``.

    Parameters
    ----------
    scores : Scores or DataFrame
        Scores with a ``sample`` column and values 0 or 1 (as :func:`pass_at_k`).
    k : int
        Samples drawn, ≥ 1 and at most the samples of every item (else ``missing``).
    missing : {'error', 'drop'}, default 'error'
        An item with fewer than k samples: an error naming it, or dropped with a warning.
    settings : PassKSettings or None, default None
        The settings object (``missing``).

    Returns
    -------
    Scores
        As :func:`pass_at_k`, metric ``"pass^k"`` or ``"<metric> pass^k"``.

    Raises
    ------
    ScoresError
        As :func:`pass_at_k`.

    Examples
    --------
    >>> import pandas as pd
    >>> import ranger_eval as rg
    >>> df = pd.DataFrame({"dataset": "code", "system": "a", "item": ["1"] * 4 + ["2"] * 4,
    ...                    "sample": [1, 2, 3, 4] * 2, "value": [1, 1, 1, 0, 1, 1, 1, 1]})
    >>> rg.pass_hat_k(df, 2).frame["value"].tolist()
    [0.5, 1.0]
    """
    s = resolve_settings(PassKSettings, {"missing": missing}, settings, where="pass_hat_k")
    return _estimate(scores, k, s, "pass^", _hat_k, "pass_hat_k")


def _raw_rows(scores: Scores | pd.DataFrame | Mapping[str, Any], where: str) -> pd.DataFrame:
    """The rows as given, one per sample: a Scores' rows before its per-item averaging, or a
    frame checked here (ids as exact strings, finite values, no duplicate keys), which may
    give items different numbers of samples."""
    if isinstance(scores, Scores):
        if not scores.has_samples:
            raise ScoresError(
                f"{where}: the scores have no 'sample' column: pass@k needs several samples of "
                f"each system on each item (Inspect epochs, repeated generations)")
        raw = scores._raw  # read only: the checked rows before averaging
        assert raw is not None
        return raw
    frame = as_frame(scores, what=where, error=ScoresError, index_columns=KEY_COLUMNS)
    if SAMPLE not in frame.columns:
        raise ScoresError(
            f"{where}: the scores have no 'sample' column: pass@k needs several samples of "
            f"each system on each item (Inspect epochs, repeated generations)")
    need = [c for c in ("dataset", "system", "item", "value") if c not in frame.columns]
    if need:
        raise ScoresError(f"{where}: missing column(s) {', '.join(need)}; have: "
                          f"{', '.join(map(str, frame.columns))}")
    frame = frame.copy()
    if "metric" not in frame.columns:
        frame["metric"] = DEFAULT_METRIC
    for col in _key(frame) + [SAMPLE]:
        ids, bad = id_strings(frame[col])
        if bad is not None:
            raise ScoresError(f"{where}: column {col!r}: {bad.describe()}{bad.more()}")
        frame[col] = ids
    values, bad_value = float_values(frame["value"])
    if bad_value is not None:
        r = bad_value.first
        raise ScoresError(f"{where}: {bad_value.describe()} (dataset {frame['dataset'].iloc[r]!r}, "
                          f"system {frame['system'].iloc[r]!r}, item {frame['item'].iloc[r]!r})")
    frame["value"] = values
    # rows sharing a key are found from the item groups' integer codes (_check_duplicates)
    return frame.reset_index(drop=True)


def _check_duplicates(frame: pd.DataFrame, gid: np.ndarray, where: str) -> None:
    """An error naming the rows of a frame that share a key (the item key and ``sample``),
    from the rows' item group codes ``gid`` and the sample codes combined into one int64 each
    (hashing integers, not the key's strings again)."""
    s_codes, s_uniques = pd.factorize(frame[SAMPLE], sort=False)
    combined = gid * max(len(s_uniques), 1) + s_codes
    cells = (int(gid.max()) + 1) * max(len(s_uniques), 1) if gid.size else 0
    if cells <= 4 * max(gid.size, 1):  # few sample ids: count each (item, sample) cell
        per_cell = np.bincount(combined, minlength=cells)
        if not (per_cell > 1).any():
            return
        dup = per_cell[combined] > 1
    else:
        dup = pd.Series(combined).duplicated(keep=False).to_numpy()
    if dup.any():
        r = int(np.flatnonzero(dup)[0])
        raise ScoresError(f"{where}: {int(dup.sum())} rows share a key "
                          f"({', '.join(_key(frame) + [SAMPLE])}), first at row {r}: "
                          f"{_row_name(frame, r)}, sample {frame[SAMPLE].iloc[r]!r}")


def _key(frame: pd.DataFrame) -> list[str]:
    """The row key of a per-item result: the table's key columns minus ``sample`` (any key
    column the table has, so a ``prompt`` or ``seed`` column stays part of it)."""
    keys = list(KEY_COLUMNS)
    if "prompt" in frame.columns and "prompt" not in keys:
        keys.append("prompt")
    return [c for c in keys if c in frame.columns and c != SAMPLE]


def _row_name(frame: pd.DataFrame, r: int) -> str:
    return (f"dataset {frame['dataset'].iloc[r]!r}, system {frame['system'].iloc[r]!r}, "
            f"item {frame['item'].iloc[r]!r}")


def _group_ids(frame: pd.DataFrame, key: list[str]) -> tuple[np.ndarray, np.ndarray]:
    """One int64 group code per row (groups numbered by first appearance) and each group's
    first row. Rows of one item usually come together: the runs of equal keys are found by
    comparing neighbouring rows, and only each run's first row is factorised (the key columns
    one by one, combined), so runs of the same key that are apart still form one group."""
    n_rows = len(frame)
    change = np.zeros(n_rows, dtype=bool)
    if n_rows:
        change[0] = True
    for col in key:
        v = frame[col].reset_index(drop=True)
        change[1:] |= (v.iloc[1:].reset_index(drop=True) != v.iloc[:-1]).to_numpy(dtype=bool)
    starts = np.flatnonzero(change)
    heads = frame.iloc[starts]
    run_gid = np.zeros(starts.size, dtype=np.int64)
    for col in key:
        codes, uniques = pd.factorize(heads[col], sort=False)
        run_gid = pd.factorize(run_gid * len(uniques) + codes, sort=False)[0].astype(np.int64)
    gid = run_gid[np.cumsum(change) - 1]
    first = starts[np.unique(run_gid, return_index=True)[1]]
    return gid, first


def _counts_of_scores(scores: Scores, raw: pd.DataFrame, key: list[str]
                      ) -> tuple[pd.DataFrame, np.ndarray, np.ndarray] | None:
    """For a Scores without prompts whose only other column is ``cluster``: the per-item rows
    it already holds (its groups are the items × seeds pass@k needs, numbered alike by first
    appearance), n its K_i per row and c = round(mean · n), exact for 0/1 values; None when
    another column must be checked for varying within an item (the general path)."""
    if scores.has_prompts:
        return None
    others = [c for c in raw.columns
              if c not in key and c not in (SAMPLE, "value", CLUSTER) and c not in _PER_SAMPLE]
    if others:
        return None
    base = scores.table
    n = scores._within["k_samples"].to_numpy(dtype=np.int64)  # type: ignore[index]
    c = np.rint(base["value"].to_numpy(dtype=np.float64) * n).astype(np.int64)
    keep = key + ([CLUSTER] if CLUSTER in base.columns else [])
    return base[keep], n, c


def _counts_of_rows(raw: pd.DataFrame, key: list[str], values: np.ndarray, kind: str,
                    where: str, *, checked: bool = True
                    ) -> tuple[pd.DataFrame, np.ndarray, np.ndarray]:
    """Per item (key) of the rows: the key, the columns constant within the item (an error
    naming the first one that varies; ``prediction`` dropped), n and c. ``checked=False``
    (a plain frame): rows sharing a key are an error first."""
    gid, first = _group_ids(raw, key)
    if not checked:
        _check_duplicates(raw, gid, where)
    n = np.bincount(gid).astype(np.int64)
    c = np.bincount(gid, weights=values).astype(np.int64)
    out = raw.iloc[first][key].reset_index(drop=True)
    for col in raw.columns:
        if col in key or col in (SAMPLE, "value") or col in _PER_SAMPLE:
            continue
        codes = pd.factorize(raw[col], sort=False)[0]
        varies = np.flatnonzero(codes != codes[first][gid])
        if varies.size:
            r = int(varies[0])
            raise ScoresError(
                f"{where}: column {col!r} varies between the samples of an item ({_row_name(raw, r)}"
                f", metric {raw['metric'].iloc[r]!r}: {raw[col].iloc[first[gid[r]]]!r} and "
                f"{raw[col].iloc[r]!r}); {kind}k gives one row per item: make it constant or "
                f"drop the column")
        out[col] = raw[col].to_numpy()[first]
    return out, n, c


def _estimate(scores: Scores | pd.DataFrame | Mapping[str, Any], k: Any,
              settings: PassKSettings, kind: str, kernel: Any, where: str) -> Scores:
    k = _checked_k(k, where)
    raw = _raw_rows(scores, where)
    values = raw["value"].to_numpy(dtype=np.float64)
    bad = np.flatnonzero((values != 0.0) & (values != 1.0))
    if bad.size:
        r = int(bad[0])
        raise ScoresError(
            f"{where}: value {float(values[r])!r} at row {r} ({_row_name(raw, r)}, metric "
            f"{raw['metric'].iloc[r]!r}, sample {raw[SAMPLE].iloc[r]!r}) is not 0 or 1"
            + (f" ({bad.size} such rows)" if bad.size > 1 else "")
            + f"; {kind}k counts correct samples: score each sample as correct (1) or not (0)")
    key = _key(raw)
    # a Scores' per-item rows are already grouped and validated: reuse them, their integer
    # codes and skip the second validation (a million items: 2 s of string grouping saved)
    counted = _counts_of_scores(scores, raw, key) if isinstance(scores, Scores) else None
    trusted = counted is not None
    out, n, c = counted if counted is not None else _counts_of_rows(
        raw, key, values, kind, where, checked=isinstance(scores, Scores))
    out = out.copy(deep=False)
    if int(n.max()) < k:
        raise ScoresError(
            f"{where}: k={k} but the most samples any item has is {int(n.max())}; choose "
            f"k ≤ {int(n.max())}")
    short = np.flatnonzero(n < k)
    if short.size:
        names = [f"{out['dataset'].iloc[i]}/{out['system'].iloc[i]}/{out['item'].iloc[i]} "
                 f"(n = {n[i]})" for i in short[:6]]
        listed = preview(names, 5, quote=False, tail=f", … ({short.size} in all)")
        if settings.missing == "error":
            raise ScoresError(
                f"{where}: {short.size} item(s) have fewer than k={k} samples "
                f"(dataset/system/item): {listed}; give them more samples, lower k, or pass "
                f"missing='drop' to leave them out")
        warnings.warn(f"{where}: dropped {short.size} of {len(n)} item(s) with fewer than "
                      f"k={k} samples (dataset/system/item): {listed}", RangerWarning,
                      stacklevel=3)
        keep = n >= k
        out, n, c = out[keep].reset_index(drop=True), n[keep], c[keep]
    out["value"] = _by_pair(n, c, k, kernel)
    codes: dict[str, tuple[np.ndarray, pd.Index]] = {}
    if trusted:
        # the input's integer codes of the key columns, where it has computed them already
        # and no item was dropped (the rows are the same; the metric's uniques relabelled)
        assert isinstance(scores, Scores)
        if not short.size:
            codes = {col: scores._codes[col] for col in ("dataset", "system", "item", "metric")
                     if col in scores._codes}
        metrics = scores.metrics
        labels = {m: passk_label(m, k, kind) for m in metrics}
        if len(metrics) == 1:  # one label: no pass over the rows' strings
            out["metric"] = pd.Series(labels[metrics[0]], index=out.index,
                                      dtype=raw["metric"].dtype)
        else:
            out["metric"] = out["metric"].map(labels)
        if "metric" in codes:
            m_codes, m_uniques = codes["metric"]
            codes["metric"] = (m_codes, pd.Index([labels[m] for m in m_uniques.tolist()]))
    else:
        labels = {m: passk_label(m, k, kind) for m in pd.unique(out["metric"])}
        out["metric"] = out["metric"].map(labels)
    bounded = {label: (0.0, 1.0) for label in labels.values()}
    # the estimator and the samples it used, for the signatures' passk: and samples: fields
    lo, hi = (int(n.min()), int(n.max())) if len(n) else (0, 0)
    made = {"estimator": f"{kind}{k}", "samples": str(lo) if lo == hi else f"{lo}-{hi}"}
    out.attrs = {**{a: v for a, v in raw.attrs.items() if a not in (BOUNDS, PASSK)},
                 BOUNDS: bounded, PASSK: made}
    if trusted:  # rows of a validated Scores, one per item: valid by construction
        return Scores._from_checked(out, codes=codes)
    out.attrs = {a: v for a, v in out.attrs.items() if a != BOUNDS}  # validated below
    return Scores(out).with_bounds(bounded)
