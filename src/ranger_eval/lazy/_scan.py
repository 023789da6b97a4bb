"""``LazyScores``: a tidy score table in Parquet, scanned with DuckDB instead of loaded.

The table (columns ``dataset, system, item, value`` [, ``metric``, ``seed``, metadata]; one file
or a folder of files with the same columns) is validated when it is opened, with one scan that
reads only the key columns and ``value``, and then queried per need:

* :meth:`LazyScores.sufficient_statistics` computes, per dataset × metric × pair of systems, the
  statistics of :mod:`ranger_eval.lazy._stats` with one pivot query (GROUP BY dataset, metric,
  item with one column per system, then GROUP BY dataset, metric with every pair's
  aggregates). Files clustered by dataset (every Parquet row group holds one dataset) are
  scanned one dataset at a time, which keeps the hash tables small.
* :meth:`LazyScores.load` materialises a selection as an in-memory :class:`~ranger_eval.Scores`,
  one group at a time, for the tests that need the per-item vectors.

DuckDB was chosen over Polars by measurement (``benchmarks/large_scores_bench.py --mode
engines``): same time on the pivot, half the peak memory.
"""
from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from ..errors import ScoresError
from ._stats import PAIR_COLUMNS, SYSTEM_FIELDS

if TYPE_CHECKING:
    import duckdb

    from ..comparison import Comparison
    from ..effects import EffectSizes
    from ..scores import Scores

__all__ = ["LazyScores", "open_scores"]

REQUIRED = ("dataset", "system", "item", "value")
KEYS = ("dataset", "system", "metric", "item")
DEFAULT_METRIC = "score"


def _duckdb() -> Any:
    try:
        import duckdb
    except ImportError:  # pragma: no cover - depends on the environment
        raise ScoresError(
            "lazy Parquet scores need DuckDB: pip install 'ranger-eval[large]' (or duckdb)"
        ) from None
    return duckdb


def _lit(text: str) -> str:
    """A SQL string literal."""
    return "'" + str(text).replace("'", "''") + "'"


def _preview(values: Iterable[object], limit: int = 10) -> str:
    values = list(values)
    shown = ", ".join(repr(v) for v in values[:limit])
    return shown + (f", … ({len(values) - limit} more)" if len(values) > limit else "")


def _files(path: str | Path | Sequence[str | Path]) -> tuple[Path, ...]:
    if isinstance(path, (str, Path)):
        p = Path(path)
        if p.is_dir():
            found = sorted(q for q in p.rglob("*.parquet") if q.is_file())
            if not found:
                raise ScoresError(f"no *.parquet files in folder {str(p)!r}")
            return tuple(found)
        if not p.exists():
            raise ScoresError(f"no such Parquet file or folder: {str(p)!r}")
        return (p,)
    files = tuple(Path(x) for x in path)
    if not files:
        raise ScoresError("no Parquet files given")
    for f in files:
        if not f.is_file():
            raise ScoresError(f"no such Parquet file: {str(f)!r}")
    return files


@dataclass(frozen=True)
class _Schema:
    has_metric: bool
    has_seed: bool
    columns: tuple[str, ...]


def _check_schema(files: Sequence[Path]) -> _Schema:
    """Every file has the required columns, a numeric ``value`` and the same optional columns."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    first: _Schema | None = None
    for f in files:
        try:
            schema = pq.read_schema(f)
        except (OSError, pa.ArrowInvalid) as exc:
            raise ScoresError(f"{f}: not a readable Parquet file ({exc})") from None
        names = tuple(schema.names)
        missing = [c for c in REQUIRED if c not in names]
        if missing:
            raise ScoresError(
                f"{f}: missing column(s) {', '.join(missing)}; have: {', '.join(names)} "
                f"(needed: {', '.join(REQUIRED)} [, metric, seed])"
            )
        vtype = schema.field("value").type
        if not (pa.types.is_integer(vtype) or pa.types.is_floating(vtype)
                or pa.types.is_decimal(vtype)):
            raise ScoresError(
                f"{f}: column 'value' has type {vtype}, not numeric; store the scores as "
                "integers or floats"
            )
        here = _Schema("metric" in names, "seed" in names, names)
        if first is None:
            first = here
        elif (here.has_metric, here.has_seed) != (first.has_metric, first.has_seed):
            which = "metric" if here.has_metric != first.has_metric else "seed"
            raise ScoresError(
                f"{f}: column {which!r} is {'present' if getattr(here, 'has_' + which) else 'absent'}"
                f" but {'absent' if getattr(here, 'has_' + which) else 'present'} in {files[0]}; "
                "every file of a folder needs the same columns"
            )
    assert first is not None
    return first


def _clustered(files: Sequence[Path]) -> bool:
    """True when every Parquet row group holds a single dataset (by its column statistics)."""
    import pyarrow.parquet as pq

    for f in files:
        meta = pq.ParquetFile(f).metadata
        col = meta.schema.names.index("dataset")
        for g in range(meta.num_row_groups):
            st = meta.row_group(g).column(col).statistics
            if st is None or not st.has_min_max or st.min != st.max:
                return False
    return True


class LazyScores:
    """Tidy per-item scores in Parquet files, validated on opening and scanned lazily.

    ``LazyScores.from_parquet(path)`` (or :func:`open_scores`) takes a ``.parquet`` file, a
    folder (all ``*.parquet`` below it) or a list of files. Identifiers are read as strings,
    ``value`` as float64, like :class:`~ranger_eval.Scores`. Opening raises
    :class:`~ranger_eval.errors.ScoresError` naming the file (and row) for a missing column, a
    non-numeric ``value`` column, an empty identifier or value, a non-finite value, or a
    duplicate (dataset, system, metric, item[, seed]) key (detected without sorting: the number
    of rows per key group is compared with the number of keys, and only then are the duplicates
    looked up).

    Orders of first appearance (files in sorted path order, rows in file order) give
    :attr:`datasets`, :attr:`systems` and :attr:`metrics`, as in ``Scores``.
    """

    def __init__(self, files: Sequence[Path], *, threads: int | None = None,
                 memory_limit: str | None = None) -> None:
        self._files = tuple(files)
        self._schema = _check_schema(self._files)
        self._threads = threads
        self._memory_limit = memory_limit
        self._clustered = _clustered(self._files)
        self._catalog = self._scan_catalog()

    # ------------------------------------------------------------------ construction
    @classmethod
    def from_parquet(cls, path: str | Path | Sequence[str | Path], *, threads: int | None = None,
                     memory_limit: str | None = None) -> LazyScores:
        """Open a Parquet file, a folder of Parquet files or a list of files (see the class)."""
        return cls(_files(path), threads=threads, memory_limit=memory_limit)

    def _connect(self) -> duckdb.DuckDBPyConnection:
        con = _duckdb().connect()
        con.execute("SET preserve_insertion_order = false")
        if self._threads is not None:
            con.execute(f"SET threads = {int(self._threads)}")
        if self._memory_limit is not None:
            con.execute(f"SET memory_limit = {_lit(self._memory_limit)}")
        return con

    def _source(self, extra: str = "") -> str:
        """The scores as a SQL subquery with string keys, a float64 value and the file position."""
        files = "[" + ", ".join(_lit(str(f)) for f in self._files) + "]"
        metric = "CAST(metric AS VARCHAR)" if self._schema.has_metric else _lit(DEFAULT_METRIC)
        seed = ", CAST(seed AS VARCHAR) AS seed" if self._schema.has_seed else ""
        return (
            f"(SELECT CAST(dataset AS VARCHAR) AS dataset, CAST(system AS VARCHAR) AS system, "
            f"{metric} AS metric, CAST(item AS VARCHAR) AS item, CAST(value AS DOUBLE) AS value"
            f"{seed}{extra} FROM read_parquet({files}, filename = true, file_row_number = true))"
        )

    def _first_bad(self, con: duckdb.DuckDBPyConnection, condition: str, what: str) -> None:
        """Raise a ScoresError naming the file and row of the first row matching ``condition``."""
        row = con.execute(
            f"SELECT filename, file_row_number, dataset, system, item, value, count(*) OVER () "
            f"FROM {self._source(', filename, file_row_number')} WHERE {condition} "
            "ORDER BY filename, file_row_number LIMIT 1"
        ).fetchone()
        if row is None:  # pragma: no cover - only called when a count said there is one
            return
        f, r, d, s, i, v, total = row
        raise ScoresError(
            f"{f}, row {r}: {what} (dataset {d!r}, system {s!r}, item {i!r}, value {v!r})"
            + (f"; {total} such rows" if total > 1 else "")
        )

    def _scan_catalog(self) -> pd.DataFrame:
        """One scan: rows, non-null values, non-finite values and first row per group; then the
        checks that need them."""
        con = self._connect()
        src = self._source(", filename, file_row_number")
        cat = con.execute(
            "SELECT filename, dataset, metric, system, count(*) AS rows, count(value) AS n_value,"
            " count(*) FILTER (WHERE isnan(value) OR isinf(value)) AS n_nonfinite,"
            " min(file_row_number) AS first_row, count(*) - count(item) AS n_null_item"
            + (", count(*) - count(seed) AS n_null_seed" if self._schema.has_seed else "")
            + f" FROM {src} GROUP BY ALL"
        ).df()
        if cat.empty:
            raise ScoresError(f"no scores in {self._where()}: the table is empty")
        for col in ("dataset", "system", "metric"):
            if cat[col].isna().any():
                self._first_bad(con, f"{col} IS NULL", f"empty {col!r}")
        if (cat["n_null_item"] > 0).any():
            self._first_bad(con, "item IS NULL", "empty 'item'")
        if self._schema.has_seed and (cat["n_null_seed"] > 0).any():
            self._first_bad(con, "seed IS NULL", "empty 'seed'")
        if (cat["n_value"] < cat["rows"]).any():
            self._first_bad(con, "value IS NULL", "empty (non-numeric) value")
        if (cat["n_nonfinite"] > 0).any():
            self._first_bad(con, "isnan(value) OR isinf(value)", "non-finite value")
        order = {str(f): i for i, f in enumerate(self._files)}
        cat["file_index"] = cat["filename"].map(lambda f: order.get(str(f), len(order)))
        # one row per dataset × metric × system: total rows, first appearance, distinct items
        grouped = cat.groupby(["dataset", "metric", "system"], sort=False)
        per = grouped.agg(rows=("rows", "sum")).reset_index()
        first = cat.sort_values(["file_index", "first_row"], kind="stable")
        per = per.merge(first.drop_duplicates(["dataset", "metric", "system"])[
            ["dataset", "metric", "system", "file_index", "first_row"]],
            on=["dataset", "metric", "system"])
        per = per.sort_values(["file_index", "first_row"], kind="stable").reset_index(drop=True)
        return per[["dataset", "metric", "system", "rows"]]

    def validate(self) -> LazyScores:
        """The exact duplicate-key check (one GROUP BY over every key; costly on huge tables).

        Analyses detect duplicates on their own, cheaply: the pivot of
        :meth:`sufficient_statistics` compares the rows per item with the systems that scored
        it, and :meth:`load` validates like ``Scores``. Returns ``self``.
        """
        self._raise_duplicates(self._connect(), "TRUE")
        return self

    def _raise_duplicates(self, con: duckdb.DuckDBPyConnection, cond: str) -> None:
        keycols = "dataset, system, metric, item" + (", seed" if self._schema.has_seed else "")
        src = self._source(", filename, file_row_number")
        dups = con.execute(
            f"SELECT {keycols}, count(*) AS c, list(filename ORDER BY filename, file_row_number), "
            f"list(file_row_number ORDER BY filename, file_row_number) FROM {src} "
            f"WHERE {cond} GROUP BY ALL HAVING count(*) > 1 ORDER BY ALL LIMIT 4"
        ).fetchall()
        if dups:
            listed = "; ".join(
                "/".join(map(str, r[:-3])) + f" ({r[-3]} rows: "
                + ", ".join(f"{f} row {n}" for f, n in zip(r[-2][:3], r[-1][:3], strict=True))
                + ")"
                for r in dups[:3]
            )
            raise ScoresError(
                f"rows share a key ({keycols}) in {self._where()}: {listed}"
                + ("; more duplicated keys follow" if len(dups) > 3 else "")
            )

    def _where(self) -> str:
        return str(self._files[0]) if len(self._files) == 1 else (
            f"{len(self._files)} files under {self._files[0].parent}"
        )

    # ------------------------------------------------------------------ views
    @property
    def files(self) -> tuple[Path, ...]:
        return self._files

    @property
    def datasets(self) -> tuple[str, ...]:
        return tuple(pd.unique(self._catalog["dataset"]))

    @property
    def systems(self) -> tuple[str, ...]:
        return tuple(pd.unique(self._catalog["system"]))

    @property
    def metrics(self) -> tuple[str, ...]:
        return tuple(pd.unique(self._catalog["metric"]))

    @property
    def has_seeds(self) -> bool:
        return self._schema.has_seed

    @property
    def columns(self) -> tuple[str, ...]:
        return self._schema.columns

    @property
    def catalog(self) -> pd.DataFrame:
        """Rows per dataset × metric × system (a copy), in order of first appearance."""
        return self._catalog.copy()

    def __len__(self) -> int:
        return int(self._catalog["rows"].sum())

    def __repr__(self) -> str:
        return (
            f"LazyScores({len(self):,} rows in {len(self._files)} file(s): "
            f"{len(self.datasets)} dataset(s), {len(self.systems)} system(s), "
            f"{len(self.metrics)} metric(s))"
        )

    def groups(self) -> list[tuple[str, str, tuple[str, ...]]]:
        """(dataset, metric, systems present) per group, datasets and systems in order."""
        out = []
        systems = self.systems
        for d in self.datasets:
            sub = self._catalog[self._catalog["dataset"] == d]
            for m in pd.unique(sub["metric"]):
                here = set(sub.loc[sub["metric"] == m, "system"])
                out.append((str(d), str(m), tuple(s for s in systems if s in here)))
        return out

    # ------------------------------------------------------------------ materialise
    def load(self, *, datasets: Sequence[str] | None = None, metrics: Sequence[str] | None = None,
             systems: Sequence[str] | None = None, columns: str = "all") -> Scores:
        """The selected rows as an in-memory :class:`~ranger_eval.Scores` (validated again).

        ``columns="all"`` keeps metadata columns (``label``, ``prediction``, …); ``"keys"``
        reads only the key columns, ``value`` and ``seed``.
        """
        from ..scores import Scores

        conds = []
        for col, wanted, known in (("dataset", datasets, self.datasets),
                                   ("metric", metrics, self.metrics),
                                   ("system", systems, self.systems)):
            if wanted is None:
                continue
            wanted = [wanted] if isinstance(wanted, str) else [str(w) for w in wanted]
            unknown = [w for w in wanted if w not in known]
            if unknown:
                raise ScoresError(f"unknown {col}(s) {_preview(unknown)}; known: {_preview(known)}")
            conds.append(f"{col} IN ({', '.join(_lit(w) for w in wanted)})")
        meta = [c for c in self._schema.columns if c not in (*KEYS, "value", "seed")]
        extra = "".join(f', "{c}"' for c in meta) if columns == "all" else ""
        where = f" WHERE {' AND '.join(conds)}" if conds else ""
        con = self._connect()
        df = con.execute(
            f"SELECT * EXCLUDE (filename, file_row_number) FROM "
            f"{self._source(', filename, file_row_number' + extra)}{where} "
            "ORDER BY filename, file_row_number"
        ).df()
        return Scores(df.reset_index(drop=True), source=self._where())

    def filter(self, *, datasets: Iterable[str] | None = None, systems: Iterable[str] | None = None,
               metrics: Iterable[str] | None = None) -> Scores:
        """Like :meth:`Scores.filter`: the selection, loaded into memory."""
        return self.load(datasets=None if datasets is None else list(datasets),
                         systems=None if systems is None else list(systems),
                         metrics=None if metrics is None else list(metrics))

    @property
    def frame(self) -> pd.DataFrame:
        """The whole table in memory (only for tables that fit; prefer :meth:`load`)."""
        return self.load().frame

    # ------------------------------------------------------------------ statistics
    def sufficient_statistics(
        self,
        *,
        systems: Sequence[str] | None = None,
        pairs: Sequence[tuple[str, str]] | None = None,
        datasets: Sequence[str] | None = None,
        metrics: Sequence[str] | None = None,
        moments: bool = True,
    ) -> pd.DataFrame:
        """Per dataset × metric × pair of systems, the sufficient statistics of the paired tests,
        the two-sample tests and the effect sizes (columns :data:`PAIR_COLUMNS`).

        Pair columns (over the items both systems scored, d = a − b): ``n``, ``sum_d``, ``m2_d``
        = Σ(d − d̄)², ``min_d``, ``max_d``, ``sum_abs_d``, ``sum_pa``/``sum_pb`` and
        ``m2_pa``/``m2_pb`` (a's and b's sums and centred second moments over those items) and
        the co-moment ``m2_ab`` = Σ(a − ā)(b − b̄). Per-system columns ``n_a, sum_a, m2_a,
        min_a, max_a, nonbinary_a`` (and ``_b``) over each system's own items in the group
        (``nonbinary`` counts values other than 0 and 1). Merge rules:
        :func:`ranger_eval.lazy.merge_statistics`. Seeds are averaged per item first.

        ``pairs`` (default: every pair of the group's systems, in order of first appearance, a
        before b) restricts the pairs; ``moments=False`` skips the paired-item moments
        (``sum_pa`` … ``m2_ab`` are then NaN), which only the standardised effect sizes need.
        """
        groups = self.groups()
        if datasets is not None:
            groups = [g for g in groups if g[0] in set(datasets)]
        if metrics is not None:
            groups = [g for g in groups if g[1] in set(metrics)]
        if systems is not None:
            keep = [str(s) for s in systems]
            groups = [(d, m, tuple(s for s in keep if s in here)) for d, m, here in groups]
        con = self._connect()
        frames: list[pd.DataFrame] = []
        if self._clustered:
            by_dataset: dict[str, list[tuple[str, str, tuple[str, ...]]]] = {}
            for g in groups:
                by_dataset.setdefault(g[0], []).append(g)
            batches = list(by_dataset.values())
        else:
            batches = [groups]
        for batch in batches:
            frames.append(self._pair_query(con, batch, pairs, moments))
        frames = [f for f in frames if not f.empty]
        if not frames:
            return pd.DataFrame(columns=list(PAIR_COLUMNS))
        return pd.concat(frames, ignore_index=True)

    def _pair_query(self, con: duckdb.DuckDBPyConnection,
                    groups: list[tuple[str, str, tuple[str, ...]]],
                    pairs: Sequence[tuple[str, str]] | None, moments: bool) -> pd.DataFrame:
        if not groups:
            return pd.DataFrame(columns=list(PAIR_COLUMNS))
        names = list(dict.fromkeys(s for g in groups for s in g[2]))
        col = {s: f"v{i}" for i, s in enumerate(names)}
        value = "avg(value)" if self._schema.has_seed else "any_value(value)"
        if self._schema.has_seed:  # rows per item vs distinct (system, seed) keys
            row_count = "count(*) - count(DISTINCT system || chr(31) || seed)"
            keys_ = "0"
        else:
            row_count = "count(*)"
            keys_ = " + ".join(f"count({col[s]})" for s in names)
        inner = ", ".join(f"{value} FILTER (WHERE system = {_lit(s)}) AS {col[s]}" for s in names)
        cond = " OR ".join(f"(dataset = {_lit(d)} AND metric = {_lit(m)})" for d, m, _ in groups)
        datasets = list(dict.fromkeys(g[0] for g in groups))
        pre = (f"dataset IN ({', '.join(_lit(d) for d in datasets)}) AND ({cond}) AND system IN "
               f"({', '.join(_lit(s) for s in names)})")
        wanted: list[tuple[str, str]] = []
        if pairs is None:
            for s_i, a in enumerate(names):
                for b in names[s_i + 1:]:
                    wanted.append((a, b))
        else:
            wanted = [(str(a), str(b)) for a, b in pairs if a in col and b in col]
        used = list(dict.fromkeys(s for p in wanted for s in p))
        aggs: list[str] = []
        for s in used:
            v = col[s]
            aggs += [f"count({v})", f"fsum({v})", f"coalesce(var_samp({v}) * (count({v}) - 1), 0)",
                     f"min({v})", f"max({v})", f"count({v}) FILTER (WHERE {v} <> 0 AND {v} <> 1)"]
        for a, b in wanted:
            va, vb = col[a], col[b]
            d = f"({va} - {vb})"
            aggs += [f"count({d})", f"fsum({d})", f"coalesce(var_samp({d}) * (count({d}) - 1), 0)",
                     f"min({d})", f"max({d})", f"fsum(abs({d}))"]
            if moments:
                pa_, pb_ = (f"({va} + 0 * {vb})", f"({vb} + 0 * {va})")
                aggs += [f"fsum({pa_})", f"fsum({pb_})",
                         f"coalesce(var_samp({pa_}) * (count({d}) - 1), 0)",
                         f"coalesce(var_samp({pb_}) * (count({d}) - 1), 0)",
                         f"coalesce(covar_samp({va}, {vb}) * (count({d}) - 1), 0)"]
        if not aggs:
            return pd.DataFrame(columns=list(PAIR_COLUMNS))
        sql = (
            f"WITH w AS (SELECT dataset, metric, item, {inner}, {row_count} AS rows_ FROM "
            f"{self._source()} WHERE {pre} GROUP BY dataset, metric, item) "
            f"SELECT dataset, metric, sum(rows_) - ({keys_}), {', '.join(aggs)} FROM w "
            "GROUP BY dataset, metric"
        )
        res = con.execute(sql).fetchall()
        if any(r[2] for r in res):  # more rows than (system, item[, seed]) keys: duplicates
            self._raise_duplicates(con, pre)
        stats = {(str(r[0]), str(r[1])): r[3:] for r in res}
        rows: list[dict[str, Any]] = []
        n_sys = 6
        n_pair = 11 if moments else 6
        pos_sys = {s: i * n_sys for i, s in enumerate(used)}
        base = len(used) * n_sys
        for d_, m_, here in groups:
            vals = stats.get((d_, m_))
            if vals is None:
                continue
            present = set(here)
            for j, (a, b) in enumerate(wanted):
                if a not in present or b not in present:
                    continue
                p = vals[base + j * n_pair: base + (j + 1) * n_pair]
                row: dict[str, Any] = {"dataset": d_, "metric": m_, "system_a": a, "system_b": b,
                                       "n": p[0], "sum_d": p[1], "m2_d": p[2], "min_d": p[3],
                                       "max_d": p[4], "sum_abs_d": p[5]}
                if moments:
                    row.update(sum_pa=p[6], sum_pb=p[7], m2_pa=p[8], m2_pb=p[9], m2_ab=p[10])
                for side, s in (("a", a), ("b", b)):
                    q = vals[pos_sys[s]: pos_sys[s] + n_sys]
                    for f, v in zip(SYSTEM_FIELDS, q, strict=True):
                        row[f"{f}_{side}"] = v
                rows.append(row)
        out = pd.DataFrame(rows, columns=list(PAIR_COLUMNS))
        for c in ("n", "n_a", "n_b", "nonbinary_a", "nonbinary_b"):
            out[c] = out[c].astype(np.int64)
        float_cols = [c for c in PAIR_COLUMNS if c not in ("dataset", "metric", "system_a",
                                                             "system_b", "n", "n_a", "n_b",
                                                             "nonbinary_a", "nonbinary_b")]
        out[float_cols] = out[float_cols].astype(np.float64)
        return out

    # ------------------------------------------------------------------ analyses
    def __ranger_compare__(self, **kwargs: Any) -> Comparison:
        """The hook :func:`ranger_eval.compare` calls: see :func:`ranger_eval.lazy.compare_lazy`."""
        from ._compare import compare_lazy

        return compare_lazy(self, **kwargs)

    def compare(self, **kwargs: Any) -> Comparison:
        """Same as ``ranger_eval.compare(self, **kwargs)``."""
        from ._compare import compare_lazy

        return compare_lazy(self, **kwargs)

    def effect_sizes(self, treatment: str, control: str, measure: str | None = None,
                     metric: str | None = None, datasets: Sequence[str] | None = None,
                     missing: str = "error", level: float = 0.95, **kwargs: Any) -> EffectSizes:
        """Like :func:`ranger_eval.effect_sizes`, from the sufficient statistics (see
        :func:`ranger_eval.lazy.effect_sizes_lazy`)."""
        from ._compare import effect_sizes_lazy

        return effect_sizes_lazy(self, treatment, control, measure, metric, datasets, missing,
                                 level, **kwargs)


def open_scores(path: str | Path | Sequence[str | Path], *, threads: int | None = None,
                memory_limit: str | None = None) -> LazyScores:
    """Open tidy scores in a Parquet file or folder lazily (:class:`LazyScores`)."""
    return LazyScores.from_parquet(path, threads=threads, memory_limit=memory_limit)
