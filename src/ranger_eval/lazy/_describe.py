"""``describe`` on :class:`~ranger_eval.lazy.LazyScores` (either engine) from sufficient
statistics: the table of :func:`ranger_eval.describe`, to floating-point summation order, with
no row of the scores in memory.

Per dataset × metric × system the engine already keeps, from its scans:

* n, S = Σy and the centred M2 = Σ(y − ȳ)² of the items' values (seeds averaged per item),
  their min and max, the count of values other than 0 and 1 (``GroupStatistics.own`` of
  :meth:`LazyScores.sufficient_statistics`, two-pass centred sums in numpy:
  :mod:`ranger_eval.lazy._numeric`; Dask pools the partitions with Chan, Golub & LeVeque's
  exact update);
* with a ``cluster`` column, each cluster's size m_k and sum Σ_{i∈k} y_i
  (:meth:`LazyScores.cluster_statistics`, the statistics of the clustered lazy tests);
* the count of item values other than 0 and 1 (without seeds, these are the stored rows; with
  seeds the stored rows are counted by one more aggregate scan,
  :meth:`LazyScores.nonbinary_counts`).

From them, ȳ = S/n and the cluster sums of deviations S_k = Σ_k y − m_k ȳ (the residual sums
of the clustered lazy tests), so Σ_k S_k², Σ_k S_k²/m_k and Σ_k m_k² feed the formulas of
:func:`ranger_eval.stats.describe.describe_sums`, the kernel the in-memory :func:`describe`
uses; without clusters S_k = y_k − ȳ, m_k = 1 and every one of them is M2 (or n). The
standard error (iid ddof = 1, or CR1), the t interval on C − 1 df, the intra-cluster
correlation and the design effect are therefore the in-memory numbers; the 0/1 detection is
describe's (per dataset × metric over the described systems' raw scores) and the intervals
of known ranges :func:`ranger_eval.stats.bounded.bounded_intervals`' (Wilson, Korn–Graubard).
``k_samples`` is 1 and ``within_sd``, ``var_between``, ``var_within`` are NaN, as describe
gives them without a ``sample`` column (the lazy engines refuse one).

A group whose largest |value| lies outside [2^-100, 2^100] (where M2 over- or underflows in
float64) is loaded alone and described in memory, where the values are rescaled exactly, as
the lazy tests do. ``bounds=`` is not available lazily (the check that no score lies outside
the declared range, and the count of values at the bounds, would need their own scan): load
the scores (``lazy.load()``) to declare them.
"""
from __future__ import annotations

from collections.abc import Iterable

import numpy as np
import pandas as pd

from ..errors import check_level
from ..formatting import preview
from ..stats._scale import SAFE_HI, SAFE_LO
from ..stats._validation import StatsInputError
from ..stats.bounded import INTERVAL_METHODS
from ..stats.describe import (
    COLUMNS,
    auto_intervals,
    describe,
    describe_sums,
    describe_table,
    known_bounds,
    too_few_units,
)
from ._protocol import LazyTable

__all__ = ["describe_lazy"]


def describe_lazy(lazy: LazyTable, *, level: float = 0.95,
                  groups: Iterable[tuple[str, str]] | None = None, bounds: object = None,
                  interval: str = "auto", systems: Iterable[str] | None = None
                  ) -> pd.DataFrame:
    """:func:`ranger_eval.describe` of lazily scanned scores (module docstring): the same
    columns, rows, order, ``attrs`` and errors, from the engine's sufficient statistics."""
    level = check_level(level, error=StatsInputError)
    if interval not in INTERVAL_METHODS:
        raise StatsInputError(f"describe: interval must be one of {', '.join(INTERVAL_METHODS)}; "
                              f"got {interval!r}")
    if bounds is not None:
        raise StatsInputError(
            "describe: bounds= needs the scores in memory (the check that no score lies outside "
            "the range reads every row); load them with lazy.load() and pass the Scores")
    chosen = lazy.groups()
    if systems is not None:
        keep = [str(s) for s in systems]
        unknown = [s for s in keep if s not in set(lazy.systems)]
        if unknown:
            raise StatsInputError(f"describe: unknown system(s) {preview(unknown)}; known: "
                                  f"{preview(list(lazy.systems))}")
        chosen = [(d, m, tuple(s for s in here if s in set(keep))) for d, m, here in chosen]
    if groups is not None:
        wanted = [(str(d), str(m)) for d, m in groups]
        chosen = [g for g in chosen if (g[0], g[1]) in set(wanted)]
        if not any(g[2] for g in chosen):
            raise StatsInputError(f"describe: no scores in the groups {wanted[:5]}")
    chosen = [g for g in chosen if g[2]]
    stats = lazy._group_statistics(chosen)
    # one row per dataset × metric × system, in describe's order (datasets, metrics, systems
    # each in order of first appearance)
    d_idx, m_idx, s_idx = (pd.Index(lazy.datasets), pd.Index(lazy.metrics),
                           pd.Index(lazy.systems))
    rows = [(d, m, s) for d, m, here in chosen for s in here]
    order = np.lexsort((s_idx.get_indexer([r[2] for r in rows]),
                        m_idx.get_indexer([r[1] for r in rows]),
                        d_idx.get_indexer([r[0] for r in rows])))
    rows = [rows[i] for i in order]
    own = {f: np.array([stats[(d, m)].own[f][stats[(d, m)].index(s)] for d, m, s in rows],
                       dtype=np.float64) for f in ("n", "sum", "m2", "min", "max", "nonbinary")}
    top = np.maximum(np.abs(own["min"]), np.abs(own["max"]))
    extreme = ~((top == 0.0) | ((top >= SAFE_LO) & (top <= SAFE_HI)))
    clustered = lazy.has_cluster
    with np.errstate(all="ignore"):  # extreme groups' float64 sums: replaced below
        table = _from_statistics(lazy, rows, chosen, own, extreme, clustered, level, interval)
    if extreme.any():
        table = _with_extreme_groups(lazy, table, rows, extreme, level, interval)
    return table


def _from_statistics(lazy: LazyTable, rows: list[tuple[str, str, str]],
                     chosen: list[tuple[str, str, tuple[str, ...]]], own: dict[str, np.ndarray],
                     extreme: np.ndarray, clustered: bool, level: float, interval: str
                     ) -> pd.DataFrame:
    """describe's table of ``rows`` from the per-system statistics ``own`` (module
    docstring)."""
    n = own["n"]
    mean = own["sum"] / n
    if clustered:
        c, sum_s2, between, sum_m2 = _cluster_sums(lazy, rows, chosen, mean)
    else:
        c, sum_s2, between, sum_m2 = n.copy(), own["m2"], own["m2"], n.copy()
    few = np.flatnonzero((c < 2) & ~extreme)
    if few.size:
        d, m, s = rows[int(few[0])]
        raise too_few_units((d, m, s), int(c[few[0]]), few.size, clustered)
    core = describe_sums(n, c, total=own["m2"], sum_s2=sum_s2, between=between, sum_m2=sum_m2,
                         level=level)
    n_groups = len(rows)
    out: dict[str, np.ndarray] = {
        "n": n.astype(np.int64), "n_clusters": c.astype(np.int64), "mean": mean,
        "se": core["se"], "ci_low": mean - core["half"], "ci_high": mean + core["half"],
        "icc": core["icc"], "design_effect": core["design_effect"],
        "k_samples": np.ones(n_groups, dtype=np.int64), "within_sd": np.full(n_groups, np.nan),
        "var_between": np.full(n_groups, np.nan), "var_within": np.full(n_groups, np.nan),
        "interval": np.full(n_groups, "t", dtype=object)}
    if interval == "auto":
        if lazy.has_seeds:  # every seed as stored, as describe's detection reads them
            counts = lazy.nonbinary_counts()
            counts = counts[counts["system"].isin({r[2] for r in rows})]
            off = counts.groupby(["dataset", "metric"], sort=False)["nonbinary"].sum()
            zero_one = np.array([off.get((d, m), 1) == 0 for d, m, _ in rows], dtype=bool)
        else:  # one value per item: the per-system counts are the raw ones
            pair = pd.Series([f"{d}\x00{m}" for d, m, _ in rows])
            off_pair = pd.Series(own["nonbinary"]).groupby(pair).transform("sum").to_numpy()
            zero_one = off_pair == 0
        lo, hi = known_bounds({}, np.array([r[1] for r in rows], dtype=object), zero_one)
        auto_intervals(out, lower=lo, upper=hi, binary=own["nonbinary"] == 0,
                       clustered=clustered, level=level)
    names = [np.array([r[k] for r in rows], dtype=object) for k in range(3)]
    return describe_table(names[0], names[1], names[2], out, level=level, clustered=clustered)


def _cluster_sums(lazy: LazyTable, rows: list[tuple[str, str, str]],
                  chosen: list[tuple[str, str, tuple[str, ...]]], mean: np.ndarray
                  ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Per row (dataset, metric, system): C, Σ_k S_k², Σ_k S_k²/m_k and Σ_k m_k², from the
    engine's per-cluster sizes and sums (S_k = Σ_k y − m_k ȳ)."""
    systems = list(dict.fromkeys(s for _, _, here in chosen for s in here))
    frame = lazy.cluster_statistics(systems=systems,
                                    datasets=list(dict.fromkeys(g[0] for g in chosen)),
                                    metrics=list(dict.fromkeys(g[1] for g in chosen)))
    where = pd.MultiIndex.from_tuples(rows, names=["dataset", "metric", "system"])
    idx = where.get_indexer(pd.MultiIndex.from_frame(
        frame[["dataset", "metric", "system"]].astype(str)))
    inside = idx >= 0
    idx = idx[inside]
    m_k = frame["n"].to_numpy(dtype=np.float64)[inside]
    s_k = frame["sum"].to_numpy(dtype=np.float64)[inside] - m_k * mean[idx]
    size = len(rows)
    c = np.bincount(idx, minlength=size).astype(np.float64)
    sum_s2 = np.bincount(idx, weights=s_k * s_k, minlength=size)
    between = np.bincount(idx, weights=s_k * s_k / m_k, minlength=size)
    sum_m2 = np.bincount(idx, weights=m_k * m_k, minlength=size)
    return c, sum_s2, between, sum_m2


def _with_extreme_groups(lazy: LazyTable, table: pd.DataFrame,
                         rows: list[tuple[str, str, str]], extreme: np.ndarray, level: float,
                         interval: str) -> pd.DataFrame:
    """``table`` with the rows of every dataset × metric holding an extreme value replaced by
    the in-memory :func:`describe` of that group's rows (loaded one group at a time)."""
    attrs = dict(table.attrs)
    groups = list(dict.fromkeys((rows[i][0], rows[i][1]) for i in np.flatnonzero(extreme)))
    for d, m in groups:
        names = [s for d_, m_, s in rows if (d_, m_) == (d, m)]
        here = describe(lazy.load(datasets=[d], metrics=[m], systems=names, columns="keys"),
                        level=level, interval=interval)
        at = np.flatnonzero(((table["dataset"] == d) & (table["metric"] == m)).to_numpy())
        sub = here.set_index("system").loc[table["system"].iloc[at]].reset_index()
        for col in COLUMNS[3:]:
            table.loc[table.index[at], col] = sub[col].to_numpy()
    attrs["intervals"] = tuple(dict.fromkeys(table["interval"].tolist()))
    table.attrs.update(attrs)
    return table
