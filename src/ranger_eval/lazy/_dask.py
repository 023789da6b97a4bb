"""The Dask engine of :mod:`ranger_eval.lazy`: the same statistics, validation and numbers as the
DuckDB engine, computed by ``dask.dataframe`` on a cluster (``distributed.Client``) or on dask's
current scheduler.

``open_scores(path, engine="dask")`` reads a Parquet file, folder or list of files in partitions
of whole row groups (about ``partition_rows`` rows each, every partition within one file, so each
row keeps its file and row number for the error messages); ``open_scores(ddf)`` takes an existing
``dask.dataframe.DataFrame`` as it is partitioned. Every partition is first normalised as the
DuckDB engine reads its rows: identifiers as exact strings (integers as their digits, other types
as ``str`` gives them, missing stays missing), ``value`` as float64, a null ``value`` told apart
from a NaN (in a pandas frame a NaN *is* pandas' missing marker, as it is when pandas writes
Parquet).

* Opening: one pass of per-partition ``groupby`` aggregations (rows, missing keys and values,
  non-finite values, first row per dataset × metric × system), combined in pandas; the first
  offending row is then looked up by file and row (for a frame: its row number counted over the
  partitions), with the messages of the DuckDB engine.
* :meth:`DaskScores.sufficient_statistics` (inherited): the rows of the requested groups are
  shuffled so that each (dataset × metric, item) lies in one partition (``DataFrame.shuffle``;
  datasets, metrics and systems travel as small integer codes); each partition pairs its items
  with the numpy kernel of :mod:`ranger_eval.lazy._numeric` (``matrix_from_codes``, which also
  counts repeated keys, and ``group_statistics``), and the per-partition statistics are pooled
  in pandas with the exact k-way form of Chan, Golub & LeVeque's update (:func:`pool_statistics`).
* :meth:`DaskScores.load`: the selected rows computed into an in-memory ``Scores``, for the tests
  that need the per-item vectors (``compare`` streams them one group at a time, as with DuckDB).
"""
from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from ..errors import ScoresError
from ..scores import Scores
from ._numeric import OWN_FIELDS, PAIR_FIELDS, GroupStatistics, group_statistics, matrix_from_codes
from ._scan import (
    CLUSTER,
    CLUSTER_COLUMNS,
    DEFAULT_METRIC,
    KEYS,
    REQUIRED,
    LazyScores,
    _check_schema,
    _file_state,
    _files,
    _preview,
    _Schema,
    bad_row_error,
    duplicates_error,
    refuse_in_memory_columns,
    several_clusters_error,
)

if TYPE_CHECKING:
    from ..scores import Scores
    from ._protocol import LazyTable

__all__ = ["DEFAULT_PARTITION_ROWS", "DaskScores", "pool_statistics"]

#: Rows per partition when reading Parquet (whole row groups are kept together).
DEFAULT_PARTITION_ROWS = 2_000_000
FRAME = "dask DataFrame"
_OWN, _PAIR, _DUP = 0, 1, 2
_STAT_COLUMNS = ("kind", "g", "a", "b", *(f"own_{f}" for f in OWN_FIELDS), *PAIR_FIELDS)


def _dask() -> Any:
    try:
        import dask
        import dask.dataframe  # noqa: F401
    except ImportError:  # pragma: no cover - depends on the environment
        raise ScoresError("the Dask engine needs dask: pip install 'ranger-eval[dask]' "
                          "(dask[dataframe] and distributed)") from None
    return dask


# --------------------------------------------------------------------------- normalising rows
def _as_strings(col: pd.Series) -> pd.Series:
    """Identifiers as exact strings, missing kept missing (``str`` dtype)."""
    return col.astype(str)


def _arrow_keys(table: Any, names: Sequence[str]) -> Any:
    """Integer key columns cast to strings in Arrow (their digits, nulls kept: pandas would turn
    an integer column with nulls into floats first)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    for name in names:
        if name in table.column_names and pa.types.is_integer(table.schema.field(name).type):
            i = table.column_names.index(name)
            table = table.set_column(i, name, pc.cast(table.column(name), pa.string()))
    return table


def _normalise(df: pd.DataFrame, value_null: np.ndarray, part: int, rows: np.ndarray,
               has_metric: bool, has_seed: bool, extra: Sequence[str]) -> pd.DataFrame:
    out = {c: _as_strings(df[c]) for c in ("dataset", "system")}
    out["metric"] = (_as_strings(df["metric"]) if has_metric
                     else pd.Series(DEFAULT_METRIC, index=df.index, dtype="str"))
    out["item"] = _as_strings(df["item"])
    out["value"] = pd.Series(df["value"].to_numpy(dtype=np.float64, na_value=np.nan),
                             index=df.index)
    if has_seed:
        out["seed"] = _as_strings(df["seed"])
    for c in extra:  # cluster ids as exact strings, like the keys (Scores reads them so)
        out[c] = _as_strings(df[c]) if c == CLUSTER else df[c]
    out["_vnull"] = pd.Series(value_null, index=df.index, dtype=bool)
    out["_part"] = pd.Series(np.full(len(df), part, dtype=np.int64), index=df.index)
    out["_row"] = pd.Series(rows, index=df.index, dtype=np.int64)
    return pd.DataFrame(out).reset_index(drop=True)


@dataclass(frozen=True)
class _Piece:
    """One partition of a Parquet source: consecutive row groups of one file."""

    part: int
    file: int
    path: str
    row_groups: tuple[int, ...]
    first_row: int


def _read_piece(piece: _Piece, extra: tuple[str, ...], has_metric: bool, has_seed: bool
                ) -> pd.DataFrame:
    import pyarrow.parquet as pq

    cols = [*("dataset", "system", "item", "value"), *(["metric"] if has_metric else []),
            *(["seed"] if has_seed else []), *extra]
    pf = pq.ParquetFile(piece.path)
    table = (pf.read_row_groups(list(piece.row_groups), columns=cols) if piece.row_groups
             else pf.schema_arrow.empty_table().select(cols))
    return _from_arrow(table, piece.part, piece.first_row, has_metric, has_seed, extra)


def _from_arrow(table: Any, part: int, first_row: int, has_metric: bool, has_seed: bool,
                extra: Sequence[str]) -> pd.DataFrame:
    import pyarrow as pa
    import pyarrow.compute as pc

    value = table.column("value")
    null = value.is_null().to_numpy(zero_copy_only=False)
    table = table.set_column(table.column_names.index("value"), "value",
                             pc.cast(value, pa.float64()))
    df = _arrow_keys(table, KEYS + ("seed", CLUSTER)).to_pandas()
    rows = np.arange(first_row, first_row + table.num_rows, dtype=np.int64)
    return _normalise(df, null, part, rows, has_metric, has_seed, extra)


def _frame_part(df: pd.DataFrame, has_metric: bool, has_seed: bool, extra: tuple[str, ...],
                partition_info: dict[str, Any] | None = None) -> pd.DataFrame:
    part = 0 if partition_info is None else int(partition_info["number"])
    null = df["value"].isna().to_numpy()
    return _normalise(df, null, part, np.arange(len(df), dtype=np.int64), has_metric, has_seed,
                      extra)


# --------------------------------------------------------------------------- per-partition work
def _factor(col: pd.Series) -> tuple[np.ndarray, list[Any]]:
    """Codes 0..K−1 of a key column (hash-based, Arrow's for Arrow strings) and its K values in
    order of first appearance; a missing value is one more code, for ``None``."""
    codes, uniques = pd.factorize(col, use_na_sentinel=True)
    codes = np.asarray(codes, dtype=np.int64)
    values: list[Any] = list(uniques)
    missing = codes < 0
    if missing.any():
        codes[missing] = len(values)
        values.append(None)
    return codes, values


def _catalog_part(p: pd.DataFrame, has_seed: bool) -> pd.DataFrame:
    """Per dataset × metric × system of one partition: rows, null values, non-finite values, null
    items and seeds, and the first row (grouped on integer codes: no string hashing per row
    beyond one factorisation of each key column)."""
    value = p["value"].to_numpy()
    vnull = p["_vnull"].to_numpy()
    (cd, vd), (cm, vm), (cs, vs) = (_factor(p[c]) for c in ("dataset", "metric", "system"))
    key = (cd * len(vm) + cm) * len(vs) + cs
    frame = pd.DataFrame({
        "key": key, "n_null_value": vnull, "n_nonfinite": ~vnull & ~np.isfinite(value),
        "n_null_item": p["item"].isna().to_numpy(),
        "n_null_seed": p["seed"].isna().to_numpy() if has_seed else False,
        "first_row": p["_row"].to_numpy()})
    out = frame.groupby("key", sort=False).agg(
        rows=("first_row", "size"), n_null_value=("n_null_value", "sum"),
        n_nonfinite=("n_nonfinite", "sum"), n_null_item=("n_null_item", "sum"),
        n_null_seed=("n_null_seed", "sum"), first_row=("first_row", "min"))
    k = out.index.to_numpy()
    out.insert(0, "system", pd.array([vs[i] for i in k % len(vs)], dtype="str"))
    out.insert(0, "metric", pd.array([vm[i] for i in k // len(vs) % len(vm)], dtype="str"))
    out.insert(0, "dataset", pd.array([vd[i] for i in k // len(vs) // len(vm)], dtype="str"))
    out = out.reset_index(drop=True)
    out["part"] = int(p["_part"].iloc[0]) if len(p) else -1
    return out.astype({c: np.int64 for c in ("rows", "n_null_value", "n_nonfinite",
                                             "n_null_item", "n_null_seed", "first_row", "part")})


def _first_match(p: pd.DataFrame, test: Callable[[pd.DataFrame], Any]) -> pd.DataFrame:
    """The first row of the partition for which ``test`` holds, with the number of such rows."""
    mask = np.asarray(test(p), dtype=bool)
    hit = p.loc[mask, ["dataset", "system", "item", "value", "_vnull", "_part", "_row"]]
    return hit.head(1).assign(count=int(mask.sum()))


def _encode(p: pd.DataFrame, datasets: pd.Index, metrics: pd.Index, systems: pd.Index,
            group_of: np.ndarray, keep: np.ndarray, has_seed: bool) -> pd.DataFrame:
    """Rows as (group code, system code, item, value[, seed]); only the (group, system) cells
    that ``keep`` marks."""
    def codes(col: str, known: pd.Index) -> np.ndarray:
        local, values = _factor(p[col])
        return np.asarray(known.get_indexer(pd.Index(values, dtype=object)))[local]

    d, m, s = codes("dataset", datasets), codes("metric", metrics), codes("system", systems)
    g = group_of[d, m]
    ok = (g >= 0) & keep[np.maximum(g, 0), s]
    rows = p.loc[ok, ["item", "value", *(["seed"] if has_seed else [])]]
    return pd.concat([pd.DataFrame({"_g": g[ok].astype(np.int32), "_s": s[ok].astype(np.int32)},
                                   index=rows.index), rows], axis=1).reset_index(drop=True)


def _statistics_part(p: pd.DataFrame, order: tuple[tuple[int, ...], ...], has_seed: bool
                     ) -> pd.DataFrame:
    """The statistics of each group's items in this partition (every item of a group lies in one
    partition after the shuffle): one row per system (``kind`` 0), per ordered pair of systems
    present here (1), or one row flagging a repeated key (2)."""
    blocks: list[np.ndarray] = []
    width = len(_STAT_COLUMNS)
    for key, sub in p.groupby("_g", sort=False):
        g = int(key)  # type: ignore[arg-type]
        codes = sub["_s"].to_numpy()
        here = set(np.unique(codes).tolist())
        present = [s for s in order[g] if s in here]
        local = np.full(max(present) + 1, -1, dtype=np.int64)
        local[present] = np.arange(len(present))
        items, uniques = pd.factorize(sub["item"])
        seeds, n_seeds = None, 0
        if has_seed:
            seeds, seed_uniques = pd.factorize(sub["seed"])
            n_seeds = len(seed_uniques)
        x, mask, dup = matrix_from_codes(len(present), len(uniques), local[codes],
                                         items.astype(np.int64), sub["value"].to_numpy(np.float64),
                                         seeds, n_seeds)
        if dup:
            row = np.full((1, width), np.nan)
            row[0, :2] = (_DUP, g)
            blocks.append(row)
            continue
        st = group_statistics(tuple(map(str, present)), x, mask)
        k = len(present)
        own = np.full((k, width), np.nan)
        own[:, 0], own[:, 1], own[:, 2] = _OWN, g, present
        for j, f in enumerate(OWN_FIELDS):
            own[:, 4 + j] = st.own[f]
        blocks.append(own)
        if k > 1:
            ia, ib = np.nonzero(~np.eye(k, dtype=bool))
            pair = np.full((ia.size, width), np.nan)
            pair[:, 0], pair[:, 1] = _PAIR, g
            pair[:, 2], pair[:, 3] = np.asarray(present)[ia], np.asarray(present)[ib]
            for j, f in enumerate(PAIR_FIELDS):
                pair[:, 4 + len(OWN_FIELDS) + j] = st.pair[f][ia, ib]
            blocks.append(pair)
    data = np.concatenate(blocks) if blocks else np.empty((0, width))
    return pd.DataFrame(data, columns=list(_STAT_COLUMNS))


def _duplicated_part(p: pd.DataFrame, keys: list[str]) -> pd.DataFrame:
    return p[p.duplicated(keys, keep=False)]


# --------------------------------------------------------------------------- pooling
def _pooled_m2(key: list[str], t: pd.DataFrame, n: str, sums: tuple[str, str],
               m2: str) -> pd.Series:
    """Σ M2_i + Σ n_i (x̄_i − x̄)(ȳ_i − ȳ) per key: the exact k-way form of Chan, Golub & LeVeque's
    update (Pébay 2008, SAND2008-6212, eq. 3.12); ``sums`` = (Σx, Σy) of each part, the same
    column twice for a second moment."""
    g = t.groupby(key, sort=False)
    nn = t[n].to_numpy(float)
    tot_n = g[n].transform("sum").to_numpy(float)
    with np.errstate(invalid="ignore", divide="ignore", over="ignore", under="ignore"):
        dev = [np.where(nn > 0, t[c].to_numpy(float) / np.maximum(nn, 1)
                        - g[c].transform("sum").to_numpy(float) / np.maximum(tot_n, 1), 0.0)
               for c in sums]
        term = t[m2].to_numpy(float) + np.where(nn > 0, nn * dev[0] * dev[1], 0.0)
    return pd.Series(term, index=t.index).groupby([t[k] for k in key], sort=False).sum()


def pool_statistics(parts: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Pool the per-partition statistics of :func:`_statistics_part` (partitions that split the
    items): per (group, system) ``n, sum, m2, min, max, nonbinary`` and per (group, a, b) the
    pair fields of :data:`ranger_eval.lazy._numeric.PAIR_FIELDS`.

    Counts, sums and Σ|d| add, minima and maxima take the extremes, and the centred moments pool
    exactly (module docstring of :mod:`ranger_eval.lazy._stats`) as
    M2 = Σ M2_i + Σ n_i (x̄_i − x̄)² and C = Σ C_i + Σ n_i (ā_i − ā)(b̄_i − b̄), x̄_i = S_i/n_i.
    """
    own = parts.loc[parts["kind"] == _OWN, ["g", "a", *(f"own_{f}" for f in OWN_FIELDS)]]
    own = own.rename(columns={f"own_{f}": f for f in OWN_FIELDS})
    key = ["g", "a"]
    g = own.groupby(key, sort=False)
    own_out = g.agg(n=("n", "sum"), sum=("sum", "sum"), min=("min", "min"), max=("max", "max"),
                    nonbinary=("nonbinary", "sum"))
    own_out["m2"] = _pooled_m2(key, own, "n", ("sum", "sum"), "m2")
    pair = parts[parts["kind"] == _PAIR]
    key = ["g", "a", "b"]
    g = pair.groupby(key, sort=False)
    pair_out = g.agg(n=("n", "sum"), sum_d=("sum_d", "sum"), min_d=("min_d", "min"),
                     max_d=("max_d", "max"), sum_abs_d=("sum_abs_d", "sum"),
                     sum_pa=("sum_pa", "sum"), sum_pb=("sum_pb", "sum"))
    for m2, sums in (("m2_d", ("sum_d", "sum_d")), ("m2_pa", ("sum_pa", "sum_pa")),
                     ("m2_pb", ("sum_pb", "sum_pb")), ("m2_ab", ("sum_pa", "sum_pb"))):
        pair_out[m2] = _pooled_m2(key, pair, "n", sums, m2)
    return own_out, pair_out


def _empty_pair() -> dict[str, float]:
    """The statistics of a pair with no common item (as ``group_statistics`` gives them)."""
    return dict(n=0, sum_d=0.0, m2_d=0.0, min_d=math.nan, max_d=math.nan, sum_abs_d=0.0,
                sum_pa=0.0, sum_pb=0.0, m2_pa=0.0, m2_pb=0.0, m2_ab=0.0)


# --------------------------------------------------------------------------- the engine
class DaskScores(LazyScores):
    """:class:`LazyScores` computed by ``dask.dataframe`` (module docstring): the same
    validation, statistics, ``compare``/``effect_sizes`` hooks and in-memory fall-back
    (:meth:`load`) as the DuckDB engine. Open it with :func:`ranger_eval.lazy.open_scores`."""

    def __init__(self, frame: Any, schema: _Schema, *, files: Sequence[Path] = (),
                 pieces: Sequence[_Piece] = (), client: Any = None) -> None:
        self._files = tuple(files)
        self._pieces = tuple(pieces)
        self._schema = schema
        self._client = client
        self._norm = frame
        self._state = _file_state(self._files) if self._files else ()
        self._offsets: np.ndarray | None = None
        self._catalog = self._scan_catalog_dask()
        self._groups: list[tuple[str, str, tuple[str, ...]]] | None = None
        self._cache: dict[tuple[str, str], GroupStatistics] = {}

    # ------------------------------------------------------------------ construction
    @classmethod
    def from_parquet(cls, path: str | Path | Sequence[str | Path], *, client: Any = None,  # type: ignore[override]
                     partition_rows: int | None = None) -> DaskScores:
        """Parquet file(s) read in partitions of whole row groups (about ``partition_rows``)."""
        import pyarrow.parquet as pq

        dd = _dask().dataframe
        rows_per = DEFAULT_PARTITION_ROWS if partition_rows is None else partition_rows
        if isinstance(rows_per, bool) or not isinstance(rows_per, int) or rows_per < 1:
            raise ScoresError(f"partition_rows must be a positive integer, got {partition_rows!r}")
        files = _files(path)
        schema = _check_schema(files)
        pieces: list[_Piece] = []
        for k, f in enumerate(files):
            meta = pq.ParquetFile(f).metadata
            groups: list[int] = []
            start = size = 0
            for rg in range(meta.num_row_groups):
                n = meta.row_group(rg).num_rows
                if groups and size + n > rows_per:
                    pieces.append(_Piece(len(pieces), k, str(f), tuple(groups), start))
                    start, groups, size = start + size, [], 0
                groups.append(rg)
                size += n
            pieces.append(_Piece(len(pieces), k, str(f), tuple(groups), start))
        extra = tuple(c for c in schema.columns if c not in (*KEYS, "value", "seed"))
        empty = pq.read_schema(files[0]).empty_table()
        meta_df = _from_arrow(empty.select([c for c in empty.column_names
                                            if c in (*KEYS, "value", "seed", *extra)]),
                              0, 0, schema.has_metric, schema.has_seed, extra)
        frame = dd.from_map(_read_piece, pieces, args=(extra, schema.has_metric, schema.has_seed),
                            meta=meta_df, enforce_metadata=False)
        return cls(frame, schema, files=files, pieces=pieces, client=client)

    @classmethod
    def from_frame(cls, ddf: Any, *, client: Any = None) -> DaskScores:
        """An existing ``dask.dataframe.DataFrame`` (columns as for a Parquet table)."""
        _dask()
        columns = [str(c) for c in ddf.columns]
        dup = sorted({c for c in columns if columns.count(c) > 1})
        if dup:
            raise ScoresError(f"{FRAME}: duplicated column name(s) {', '.join(map(repr, dup))}; "
                              "every column needs its own name")
        missing = [c for c in REQUIRED if c not in columns]
        if missing:
            index = getattr(ddf.index, "name", None)
            hint = (f"; {index!r} is the index: ddf.reset_index() makes it a column"
                    if index in missing else "")
            raise ScoresError(f"{FRAME}: missing column(s) {', '.join(missing)}; have: "
                              f"{', '.join(columns)} (needed: {', '.join(REQUIRED)} "
                              f"[, metric, seed]){hint}")
        refuse_in_memory_columns(FRAME, columns, "ddf.compute() and pass the Scores")
        vtype = ddf.dtypes["value"]
        if not pd.api.types.is_numeric_dtype(vtype) or pd.api.types.is_bool_dtype(vtype):
            raise ScoresError(f"{FRAME}: column 'value' has type {vtype}, not numeric; store the "
                              "scores as integers or floats")
        schema = _Schema("metric" in columns, "seed" in columns, tuple(columns))
        extra = tuple(c for c in columns if c not in (*KEYS, "value", "seed"))
        meta_df = _frame_part(ddf._meta, schema.has_metric, schema.has_seed, extra)
        frame = ddf.map_partitions(_frame_part, schema.has_metric, schema.has_seed, extra,
                                   partition_info=True, meta=meta_df, enforce_metadata=False)
        return cls(frame, schema, client=client)

    def _compute(self, *objs: Any) -> tuple[Any, ...]:
        dask = _dask()
        if self._client is None:
            return tuple(dask.compute(*objs))
        with dask.config.set(scheduler=self._client):
            return tuple(dask.compute(*objs))

    @property
    def engine(self) -> str:
        return "dask"

    @property
    def client(self) -> Any:
        """The ``distributed.Client`` given to :func:`open_scores` (``None``: dask's current
        scheduler)."""
        return self._client

    @property
    def dask_frame(self) -> Any:
        """The normalised rows as a dask DataFrame (string keys, float64 ``value``; the
        ``_vnull``, ``_part`` and ``_row`` columns locate each row)."""
        return self._norm

    def _where(self) -> str:
        return FRAME if not self._files else super()._where()

    def __repr__(self) -> str:
        if self._files:
            return "DaskScores" + super().__repr__()[len("LazyScores"):]
        return (f"DaskScores({len(self):,} rows in a {FRAME} of {self._norm.npartitions} "
                f"partition(s): {len(self.datasets)} dataset(s), {len(self.systems)} system(s), "
                f"{len(self.metrics)} metric(s))")

    # ------------------------------------------------------------------ locating rows
    def _locations(self, part: np.ndarray, row: np.ndarray) -> tuple[list[str], list[int]]:
        """(file or frame name, row number) of rows given by partition and row in it."""
        if self._files:
            names = [str(self._files[self._pieces[int(k)].file]) for k in part]
            return names, [int(r) for r in row]
        if self._offsets is None:
            (lengths,) = self._compute(self._norm.map_partitions(len))
            self._offsets = np.concatenate([[0], np.cumsum(np.asarray(lengths, dtype=np.int64))])
        return [FRAME] * len(part), [int(self._offsets[int(k)] + r) for k, r in zip(part, row,
                                                                                    strict=True)]

    def _raise_first(self, test: Callable[[pd.DataFrame], Any], what: str) -> None:
        meta = self._norm._meta[["dataset", "system", "item", "value", "_vnull", "_part",
                                 "_row"]].assign(count=np.int64(0))
        (hits,) = self._compute(self._norm.map_partitions(_first_match, test, meta=meta))
        total = int(hits["count"].sum())
        if hits.empty:  # pragma: no cover - only called when a count said there is one
            return
        names, rows = self._locations(hits["_part"].to_numpy(), hits["_row"].to_numpy())
        hits = hits.assign(_name=names, _at=rows).sort_values(["_name", "_at"], kind="stable")
        r = hits.iloc[0]

        def plain(v: Any) -> Any:
            return None if v is None or (not isinstance(v, str) and pd.isna(v)) else v

        value = None if bool(r["_vnull"]) else float(r["value"])
        raise bad_row_error(what, r["_name"], int(r["_at"]), plain(r["dataset"]),
                            plain(r["system"]), plain(r["item"]), value, total)

    # ------------------------------------------------------------------ opening
    def _scan_catalog_dask(self) -> pd.DataFrame:
        has_seed = self._schema.has_seed
        meta = pd.DataFrame({c: pd.Series(dtype="str") for c in ("dataset", "metric", "system")}
                            | {c: pd.Series(dtype=np.int64) for c in (
                                "rows", "n_null_value", "n_nonfinite", "n_null_item",
                                "n_null_seed", "first_row", "part")})
        (cat,) = self._compute(self._norm.map_partitions(_catalog_part, has_seed, meta=meta))
        cat = cat[cat["rows"] > 0]
        if cat.empty:
            raise ScoresError(f"no scores in {self._where()}: the table is empty")
        for col in ("dataset", "system", "metric"):
            if cat[col].isna().any():
                self._raise_first(_IsNull(col), f"empty {col!r}")
        if (cat["n_null_item"] > 0).any():
            self._raise_first(_IsNull("item"), "empty 'item'")
        if has_seed and (cat["n_null_seed"] > 0).any():
            self._raise_first(_IsNull("seed"), "empty 'seed'")
        if (cat["n_null_value"] > 0).any():
            self._raise_first(_NullValue(), "empty (non-numeric) value")
        if (cat["n_nonfinite"] > 0).any():
            self._raise_first(_NonFinite(), "non-finite value")
        if self._schema.has_cluster:
            self._check_clusters_dask()
        key = ["dataset", "metric", "system"]
        per = cat.groupby(key, sort=False).agg(rows=("rows", "sum")).reset_index()
        first = cat.sort_values(["part", "first_row"], kind="stable").drop_duplicates(key)
        per = per.merge(first[[*key, "part", "first_row"]], on=key)
        per = per.sort_values(["part", "first_row"], kind="stable").reset_index(drop=True)
        return per[["dataset", "metric", "system", "rows"]]

    def _check_clusters_dask(self) -> None:
        """The cluster checks of the DuckDB engine (:meth:`LazyScores._check_clusters`): no
        missing or blank cluster id, one cluster per item of a dataset; the same messages."""
        col = self._norm[CLUSTER]
        n_null, n_blank = self._compute(col.isna().sum(),
                                        col.fillna("x").str.strip().eq("").sum())
        if int(n_null):
            self._raise_first(_IsNull(CLUSTER), "missing cluster id (every row needs the "
                              "cluster of its item when there is a cluster column)")
        if int(n_blank):
            self._raise_first(_Blank(CLUSTER), "blank cluster id (every row needs the cluster "
                              "of its item)")
        counts = self._norm.groupby(["dataset", "item"])[CLUSTER].nunique()
        (bad,) = self._compute(counts[counts > 1])
        if len(bad) == 0:
            return
        d, item = sorted(bad.index.tolist())[0]
        frame = self._norm
        sel = frame[(frame["dataset"] == d) & (frame["item"] == item)]
        (rows,) = self._compute(sel[[CLUSTER, "system", "_part", "_row"]])
        names, at = self._locations(rows["_part"].to_numpy(), rows["_row"].to_numpy())
        rows = rows.assign(_name=names, _at=at).sort_values(["_name", "_at"], kind="stable")
        raise several_clusters_error(d, item, list(zip(rows[CLUSTER], rows["_name"], rows["_at"],
                                                       rows["system"], strict=True)), len(bad))

    def _scan_cluster_statistics(self, groups: Sequence[tuple[str, str]]) -> pd.DataFrame:
        """Dask: one groupby aggregation (count, sum) per dataset × metric × system × cluster
        over the rows of ``groups`` (seeds averaged per item first)."""
        frame = self._norm
        frame = frame[frame["dataset"].isin(sorted({d for d, _ in groups}))
                      & frame["metric"].isin(sorted({m for _, m in groups}))]
        keys = ["dataset", "metric", "system", CLUSTER]
        if self._schema.has_seed:  # one value per item: the mean over its seeds
            frame = frame.groupby([*keys, "item"])["value"].mean().reset_index()
        (agg,) = self._compute(frame.groupby(keys)["value"].agg(["count", "sum"]))
        out = agg.reset_index().rename(columns={"count": "n"})
        wanted = set(groups)
        out = out[[(d, m) in wanted for d, m in zip(out["dataset"], out["metric"],
                                                     strict=True)]]
        for c in keys:
            out[c] = out[c].astype(str)
        return out.sort_values(keys, kind="stable").reset_index(drop=True)[list(CLUSTER_COLUMNS)]

    def _scan_nonbinary(self) -> pd.DataFrame:
        """Dask: one groupby sum per dataset × metric × system of the values other than 0, 1."""
        frame = self._norm
        off = frame.assign(nonbinary=(frame["value"] != 0.0) & (frame["value"] != 1.0))
        (agg,) = self._compute(off.groupby(["dataset", "metric", "system"])["nonbinary"].sum())
        out = agg.reset_index()
        for c in ("dataset", "metric", "system"):
            out[c] = out[c].astype(str)
        return out

    # ------------------------------------------------------------------ duplicates
    def validate(self) -> DaskScores:
        """The exact duplicate-key check over the whole table (one shuffle on every key)."""
        self._check_unchanged()
        self._raise_duplicates_dask(None)
        return self

    def _raise_duplicates_dask(self, groups: Sequence[tuple[str, str]] | None) -> None:
        keys = ["dataset", "system", "metric", "item"] + (["seed"] if self._schema.has_seed
                                                          else [])
        frame = self._norm[[*keys, "_part", "_row"]]
        if groups is not None:
            frame = frame[frame["dataset"].isin(sorted({d for d, _ in groups}))
                          & frame["metric"].isin(sorted({m for _, m in groups}))]
        shuffled = frame.shuffle(on=keys, npartitions=max(1, frame.npartitions))
        (rows,) = self._compute(shuffled.map_partitions(_duplicated_part, keys,
                                                        meta=frame._meta))
        if groups is not None:
            wanted = set(groups)
            rows = rows[[(d, m) in wanted for d, m in zip(rows["dataset"], rows["metric"],
                                                          strict=True)]]
        if rows.empty:
            return
        names, at = self._locations(rows["_part"].to_numpy(), rows["_row"].to_numpy())
        rows = rows.assign(_name=names, _at=at).sort_values([*keys, "_name", "_at"],
                                                            kind="stable")
        dups = [(*k, len(g), list(g["_name"]), list(g["_at"]))
                for k, g in rows.groupby(keys, sort=True)][:4]
        raise duplicates_error(", ".join(keys), self._where(), dups)

    # ------------------------------------------------------------------ statistics
    def _scan_groups(self, todo: Sequence[tuple[str, str, tuple[str, ...]]]
                     ) -> Iterator[GroupStatistics]:
        """All the groups in one dask computation (module docstring)."""
        datasets = pd.Index(self.datasets)
        metrics = pd.Index(self.metrics)
        systems = pd.Index(self.systems)
        group_of = np.full((len(datasets), len(metrics)), -1, dtype=np.int64)
        keep = np.zeros((len(todo), len(systems)), dtype=bool)
        order = []
        for g, (d, m, names) in enumerate(todo):
            group_of[datasets.get_loc(d), metrics.get_loc(m)] = g
            codes = tuple(int(systems.get_loc(s)) for s in names)
            keep[g, list(codes)] = True
            order.append(codes)
        has_seed = self._schema.has_seed
        meta = pd.DataFrame({"_g": pd.Series(dtype=np.int32), "_s": pd.Series(dtype=np.int32),
                             "item": pd.Series(dtype="str"), "value": pd.Series(dtype=float)}
                            | ({"seed": pd.Series(dtype="str")} if has_seed else {}))
        cols = ["dataset", "metric", "system", "item", "value"] + (["seed"] if has_seed else [])
        coded = self._norm[cols].map_partitions(_encode, datasets, metrics, systems, group_of,
                                                keep, has_seed, meta=meta)
        shuffled = (coded if coded.npartitions == 1  # already together
                    else coded.shuffle(on=["_g", "item"], npartitions=coded.npartitions))
        stat_meta = pd.DataFrame({c: pd.Series(dtype=float) for c in _STAT_COLUMNS})
        (parts,) = self._compute(shuffled.map_partitions(_statistics_part, tuple(order),
                                                         has_seed, meta=stat_meta))
        dup = sorted(set(parts.loc[parts["kind"] == _DUP, "g"].astype(int)))
        if dup:
            self._raise_duplicates_dask([todo[g][:2] for g in dup])
            raise ScoresError(  # pragma: no cover - the exact check above names them
                f"rows share a key in {self._where()} (dataset × metric "
                f"{_preview([todo[g][:2] for g in dup])})")
        own, pair = pool_statistics(parts)
        own_rows = own.to_dict("index")
        pair_rows = pair.to_dict("index")
        for g, (_, _, names) in enumerate(todo):
            codes = order[g]
            st_own = {f: np.array([own_rows[(g, c)][f] for c in codes], dtype=float)
                      for f in OWN_FIELDS}
            st_pair = {f: np.full((len(codes), len(codes)), np.nan) for f in PAIR_FIELDS}
            for i, ca in enumerate(codes):
                for j, cb in enumerate(codes):
                    if i != j:
                        row = pair_rows.get((g, ca, cb)) or _empty_pair()
                        for f in PAIR_FIELDS:
                            st_pair[f][i, j] = row[f]
            yield GroupStatistics(systems=tuple(names), own=st_own, pair=st_pair)

    # ------------------------------------------------------------------ the rows themselves
    def _rows(self, d: str, m: str, systems: Sequence[str], columns: list[str]) -> pd.DataFrame:
        frame = self._norm
        sel = frame[(frame["dataset"] == d) & (frame["metric"] == m)
                    & frame["system"].isin(list(systems))]
        (out,) = self._compute(sel[columns])
        return out

    def _first_nonbinary(self, d: str, m: str, system: str) -> float:
        rows = self._rows(d, m, [system], ["item", "value"])
        rows = rows[(rows["value"] != 0) & (rows["value"] != 1)]
        if rows.empty:
            return math.nan
        return float(rows.sort_values("item", kind="stable")["value"].iloc[0])

    def _only_in(self, d: str, m: str, x: str, y: str) -> list[str]:
        rows = self._rows(d, m, [x, y], ["system", "item"])
        mine = set(rows.loc[rows["system"] == x, "item"])
        return sorted(mine - set(rows.loc[rows["system"] == y, "item"]))

    def load(self, *, datasets: Sequence[str] | None = None, metrics: Sequence[str] | None = None,
             systems: Sequence[str] | None = None, columns: str = "all") -> Scores:
        """The selected rows as an in-memory :class:`~ranger_eval.Scores` (as the DuckDB engine:
        rows in file and row order, metadata columns with ``columns="all"``)."""
        self._check_unchanged()
        frame = self._norm
        for col, wanted in self._selection(datasets, metrics, systems):
            frame = frame[frame[col].isin(wanted)]
        keys = ["dataset", "system", "metric", "item", "value"] + (
            ["seed"] if self._schema.has_seed else [])
        extra = [c for c in self._schema.columns if c not in (*KEYS, "value", "seed")]
        (df,) = self._compute(frame[[*keys, *(extra if columns == "all" else []), "_part",
                                     "_row"]])
        if self._files:  # as DuckDB orders them: by file name, then row
            names = np.array([str(self._files[p.file]) for p in self._pieces])
            df = df.assign(_name=names[df["_part"].to_numpy()]).sort_values(
                ["_name", "_row"], kind="stable").drop(columns="_name")
        df = df.drop(columns=["_part", "_row"]).reset_index(drop=True)
        return Scores(df, source=self._where())


@dataclass(frozen=True)
class _IsNull:
    """Picklable row test: ``column`` is missing."""

    column: str

    def __call__(self, p: pd.DataFrame) -> Any:
        return p[self.column].isna().to_numpy()


@dataclass(frozen=True)
class _NullValue:
    """Picklable row test: ``value`` is null (not NaN)."""

    def __call__(self, p: pd.DataFrame) -> Any:
        return p["_vnull"].to_numpy()


@dataclass(frozen=True)
class _NonFinite:
    """Picklable row test: ``value`` is NaN or ±inf (and not null)."""

    def __call__(self, p: pd.DataFrame) -> Any:
        return ~p["_vnull"].to_numpy() & ~np.isfinite(p["value"].to_numpy())


@dataclass(frozen=True)
class _Blank:
    """Picklable row test: ``column`` is present but blank (only white space)."""

    column: str

    def __call__(self, p: pd.DataFrame) -> Any:
        col = p[self.column]
        return (col.notna() & col.fillna("x").str.strip().eq("")).to_numpy(dtype=bool)


if TYPE_CHECKING:  # pragma: no cover
    def _offers_the_lazy_table(scores: DaskScores) -> LazyTable:
        """mypy's check that the Dask engine (its overrides included) offers every member the
        lazy analyses read (:class:`~ranger_eval.lazy._protocol.LazyTable`)."""
        return scores
