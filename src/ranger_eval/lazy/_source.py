"""The Parquet source of the DuckDB engine (:mod:`ranger_eval.lazy._scan`, whose ``LazyScores``
reads through these, and :mod:`ranger_eval.lazy._dask`): the required and key columns, the files
of a path, the schema check, the DuckDB import and SQL literals, and the errors for bad rows,
duplicated keys, several clusters per item and columns only in-memory ``Scores`` can analyse.
:mod:`ranger_eval.lazy._scan` re-exports every name here.
"""
from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import ScoresError

__all__ = [
    "CLUSTER",
    "CLUSTER_COLUMNS",
    "DEFAULT_METRIC",
    "KEYS",
    "REQUIRED",
    "bad_row_error",
    "duplicates_error",
    "refuse_in_memory_columns",
    "several_clusters_error",
]

REQUIRED = ("dataset", "system", "item", "value")
KEYS = ("dataset", "system", "metric", "item")
DEFAULT_METRIC = "score"
#: the optional cluster column (clusters nested within datasets, one per item; ranger_eval.scores)
CLUSTER = "cluster"
#: columns of :meth:`LazyScores.cluster_statistics`
CLUSTER_COLUMNS: tuple[str, ...] = ("dataset", "metric", "system", "cluster", "n", "sum")


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
    strings: frozenset[str] = frozenset()  # key columns stored as strings in every file

    @property
    def has_cluster(self) -> bool:
        """Whether the table has a ``cluster`` column (the design's resampling unit)."""
        return CLUSTER in self.columns


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
        refuse_in_memory_columns(f, names, "read the file with ranger_eval.read_scores (or "
                                 "pandas) and pass the Scores")
        vtype = schema.field("value").type
        if not (pa.types.is_integer(vtype) or pa.types.is_floating(vtype)
                or pa.types.is_decimal(vtype)):
            raise ScoresError(
                f"{f}: column 'value' has type {vtype}, not numeric; store the scores as "
                "integers or floats"
            )
        strings = frozenset(
            c for c in KEYS if c in names
            and (pa.types.is_string(schema.field(c).type)
                 or pa.types.is_large_string(schema.field(c).type)))
        here = _Schema("metric" in names, "seed" in names, names, strings)
        if first is None:
            first = here
        elif first.strings != strings:
            first = _Schema(first.has_metric, first.has_seed, first.columns,
                            first.strings & strings)
        if here.has_cluster and not pa.types.is_string(schema.field(CLUSTER).type) and not (
                pa.types.is_large_string(schema.field(CLUSTER).type)
                or pa.types.is_integer(schema.field(CLUSTER).type)
                or pa.types.is_dictionary(schema.field(CLUSTER).type)):
            raise ScoresError(
                f"{f}: column 'cluster' has type {schema.field(CLUSTER).type}; store cluster "
                "ids as strings or integers (exact ids, like item ids)")
        if ((here.has_metric, here.has_seed, here.has_cluster)
                != (first.has_metric, first.has_seed, first.has_cluster)):
            which = ("metric" if here.has_metric != first.has_metric else
                     "seed" if here.has_seed != first.has_seed else CLUSTER)
            raise ScoresError(
                f"{f}: column {which!r} is {'present' if getattr(here, 'has_' + which) else 'absent'}"
                f" but {'absent' if getattr(here, 'has_' + which) else 'present'} in {files[0]}; "
                "every file of a folder needs the same columns"
            )
    assert first is not None
    return first


def _clustered(files: Sequence[Path], columns: Sequence[str]) -> bool:
    """True when every Parquet row group holds a single value of each of ``columns`` (by its
    column statistics). Only a hint for choosing the scan: the queries filter exactly."""
    import pyarrow.parquet as pq

    for f in files:
        meta = pq.ParquetFile(f).metadata
        for name in columns:
            col = meta.schema.names.index(name)
            for g in range(meta.num_row_groups):
                st = meta.row_group(g).column(col).statistics
                if st is None or not st.has_min_max or st.min != st.max:
                    return False
    return True


def _file_state(files: Sequence[Path]) -> tuple[tuple[int, int], ...]:
    out = []
    for f in files:
        st = os.stat(f)
        out.append((st.st_size, st.st_mtime_ns))
    return tuple(out)


def _arrow(relation: Any) -> Any:
    """A DuckDB relation as a pyarrow Table (DuckDB ≥ 1.4 returns a reader from ``arrow()``)."""
    import pyarrow as pa

    to_table = getattr(relation, "to_arrow_table", None)
    out = to_table() if to_table is not None else relation.arrow()
    return out.read_all() if isinstance(out, pa.RecordBatchReader) else out


def bad_row_error(what: str, where: str, row: int, dataset: Any, system: Any, item: Any,
                  value: Any, total: int) -> ScoresError:
    """The error for a bad row (every engine): file (or frame) and row, the row's keys and value,
    and how many rows are bad the same way."""
    return ScoresError(
        f"{where}, row {row}: {what} (dataset {dataset!r}, system {system!r}, item {item!r}, "
        f"value {value!r})" + (f"; {total} such rows" if total > 1 else "")
    )


def several_clusters_error(dataset: Any, item: Any, rows: Sequence[tuple[Any, Any, Any, Any]],
                           total: int) -> ScoresError:
    """The error for an item of a dataset whose rows carry different cluster ids (every engine;
    the words of :class:`~ranger_eval.Scores`). ``rows``: (cluster, file, row, system) of the
    item's rows in file and row order; ``total``: the items with more than one cluster."""
    seen: dict[Any, tuple[Any, Any, Any]] = {}
    for c, f, r, sy in rows:
        seen.setdefault(c, (f, r, sy))
    shown = "; ".join(f"{c!r} ({f} row {int(r)}, system {sy!r})" for c, (f, r, sy) in
                      seen.items())
    return ScoresError(
        f"dataset {dataset!r}: item {item!r} is in several clusters: {shown}"
        + (f" ({total} items have more than one cluster)" if total > 1 else "")
        + "; an item belongs to one cluster of its dataset, whatever the system, metric or "
        "seed (clusters are nested within datasets)")


def duplicates_error(keycols: str, where: str, dups: Sequence[Sequence[Any]]) -> ScoresError:
    """The error for repeated keys (every engine). ``dups``: up to 4 rows (key values…, count,
    files, rows), sorted; the first 3 are listed with up to 3 (file, row) places each."""
    listed = "; ".join(
        "/".join(map(str, r[:-3])) + f" ({r[-3]} rows: "
        + ", ".join(f"{f} row {n}" for f, n in zip(r[-2][:3], r[-1][:3], strict=True))
        + ")"
        for r in dups[:3]
    )
    return ScoresError(f"rows share a key ({keycols}) in {where}: {listed}"
                       + ("; more duplicated keys follow" if len(dups) > 3 else ""))


#: columns only in-memory ``Scores`` can analyse, and why (the lazy engines refuse them)
_IN_MEMORY_ONLY = (
    ("human_value", "(human scores of judge-scored items) needs prediction-powered inference, "
     "which runs on scores in memory only: {remedy}; or drop the column to analyse the judge's "
     "scores as they are"),
    ("sample", "(K generations of a system per item) is averaged per item by Scores in memory "
     "only: {remedy}, or average the samples per item first"),
    ("prompt", "(prompt templates crossed with items) is modelled by the crossed random-effects "
     "test of Scores in memory only: {remedy}"),
)


def refuse_in_memory_columns(where: object, columns: Sequence[str], remedy: str) -> None:
    """A ScoresError naming ``where`` for the first column of :data:`_IN_MEMORY_ONLY` present
    (the DuckDB and Dask engines' tests would silently analyse it wrongly)."""
    for column, why in _IN_MEMORY_ONLY:
        if column in columns:
            raise ScoresError(f"{where}: column '{column}' {why.format(remedy=remedy)}")
