"""``LazyScores``: a tidy score table in Parquet, scanned with DuckDB instead of loaded.

The table (columns ``dataset, system, item, value`` [, ``metric``, ``seed``, metadata]; one file
or a folder of files with the same columns) is validated when it is opened, with one aggregate
scan that reads only the key columns and ``value``, and then queried per need:

* :meth:`LazyScores.sufficient_statistics` computes, per dataset × metric × pair of systems, the
  statistics of :mod:`ranger_eval.lazy._stats`. Each dataset × metric is scanned on its own
  (DuckDB, projection and filter pushdown: only that group's ``item`` and ``value``; when every
  Parquet row group holds one dataset × system, one query per system that reads only its row
  groups), the rows are paired in numpy (:mod:`ranger_eval.lazy._numeric`) while the next group
  is read in a background thread, and the statistics are kept, so ``compare`` followed by
  ``effect_sizes`` scans the table once.
* :meth:`LazyScores.load` materialises a selection as an in-memory :class:`~ranger_eval.Scores`,
  one group at a time, for the tests that need the per-item vectors.

DuckDB was chosen over Polars and over a SQL pivot by measurement
(``benchmarks/large_scores_bench.py --mode engines``, docs/large.md).
"""
from __future__ import annotations

import math
from collections.abc import Iterable, Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from ..errors import ScoresError
from ..formatting import preview as _preview
from ..progress import progress_bar
from ..scores import Scores
from ..stats._scale import SAFE_HI, SAFE_LO, exponent
from ._compare import compare_lazy, effect_sizes_lazy
from ._describe import describe_lazy
from ._numeric import (
    OWN_FIELDS,
    PAIR_FIELDS,
    GroupStatistics,
    encode_items,
    group_statistics,
    matrix_from_codes,
)
from ._source import (
    CLUSTER,
    CLUSTER_COLUMNS,
    DEFAULT_METRIC,
    KEYS,
    _arrow,
    _check_schema,
    _clustered,
    _duckdb,
    _file_state,
    _files,
    _lit,
    bad_row_error,
    duplicates_error,
    several_clusters_error,
)
from ._source import REQUIRED as REQUIRED
from ._source import _Schema as _Schema
from ._source import refuse_in_memory_columns as refuse_in_memory_columns
from ._stats import PAIR_COLUMNS

if TYPE_CHECKING:
    import duckdb

    from ..comparison import Comparison
    from ..effects import EffectSizes
    from ..scores import Scores

__all__ = ["LazyScores"]

@dataclass
class _GroupRows:
    """The raw rows of one dataset × metric, as read by the background thread."""

    per_system: list[tuple[Any, np.ndarray]] | None = None  # (items, values) per system
    table: Any = None  # pyarrow Table: system, item, value[, seed]




class LazyScores:
    """Tidy per-item scores in Parquet files, validated on opening and scanned lazily.

    ``LazyScores.from_parquet(path)`` (or :func:`open_scores`) takes a ``.parquet`` file, a
    folder (all ``*.parquet`` below it) or a list of files. Identifiers are read as strings,
    ``value`` as float64, like :class:`~ranger_eval.Scores`. Opening raises
    :class:`~ranger_eval.errors.ScoresError` naming the file (and row) for a missing column, a
    non-numeric ``value`` column, an empty identifier or value or a non-finite value. A
    duplicate (dataset, system, metric, item[, seed]) key raises when a scan first reads its
    group (:meth:`sufficient_statistics`, ``compare``, ``effect_sizes``; detected without
    sorting, with one ``np.bincount`` of the encoded keys, and only then looked up by file and
    row), or up front with :meth:`validate`.

    Orders of first appearance (files in sorted path order, rows in file order) give
    :attr:`datasets`, :attr:`systems` and :attr:`metrics`, as in ``Scores``.
    """

    def __init__(self, files: Sequence[Path], *, threads: int | None = None,
                 memory_limit: str | None = None) -> None:
        self._files = tuple(files)
        self._schema = _check_schema(self._files)
        self._threads = threads
        self._memory_limit = memory_limit
        keys = ["dataset", "system"] + (["metric"] if self._schema.has_metric else [])
        self._clustered = not self._schema.has_seed and _clustered(self._files, keys)
        self._state = _file_state(self._files)
        self._catalog = self._scan_catalog()
        self._groups: list[tuple[str, str, tuple[str, ...]]] | None = None
        self._cache: dict[tuple[str, str], GroupStatistics] = {}

    # ------------------------------------------------------------------ construction
    @classmethod
    def from_parquet(cls, path: str | Path | Sequence[str | Path], *, threads: int | None = None,
                     memory_limit: str | None = None) -> LazyScores:
        """Open a Parquet file, a folder of Parquet files or a list of files (see the class).

        Parameters
        ----------
        path : str, Path or sequence of them
            A ``.parquet`` file, a folder (every ``*.parquet`` below it, in sorted path order) or
            a list of files.
        threads : int, optional
            DuckDB's thread count (default: DuckDB's own).
        memory_limit : str, optional
            DuckDB's memory limit, e.g. ``"4GB"``.

        Returns
        -------
        LazyScores
            Opened and checked (schema, empty or non-finite values); nothing is loaded.

        Raises
        ------
        ScoresError
            No Parquet file at ``path``, a missing column, a non-numeric, empty or non-finite
            value, named by file and row; DuckDB not installed.

        Examples
        --------
        >>> import tempfile, pandas as pd
        >>> from ranger_eval.lazy import LazyScores
        >>> folder = tempfile.TemporaryDirectory()
        >>> pd.DataFrame({"dataset": "qa", "system": ["a"] * 4 + ["b"] * 4, "item": list("wxyz") * 2,
        ...               "value": [0.8, 0.6, 0.9, 0.7, 0.7, 0.6, 0.8, 0.5]}
        ...              ).to_parquet(folder.name + "/scores.parquet")
        >>> lazy = LazyScores.from_parquet(folder.name)
        >>> lazy
        LazyScores(8 rows in 1 file(s): 1 dataset(s), 2 system(s), 1 metric(s))
        >>> folder.cleanup()
        """
        return cls(_files(path), threads=threads, memory_limit=memory_limit)

    def _connect(self) -> duckdb.DuckDBPyConnection:
        con = _duckdb().connect()
        con.execute("SET preserve_insertion_order = false")
        con.execute("SET enable_progress_bar = false")
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
        if self._schema.has_cluster and '"cluster"' not in extra:
            seed += f", CAST({CLUSTER} AS VARCHAR) AS {CLUSTER}"
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
        raise bad_row_error(what, *row)

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
        if self._schema.has_cluster:
            self._check_clusters(con)
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

    def _check_clusters(self, con: duckdb.DuckDBPyConnection) -> None:
        """The cluster column as :class:`~ranger_eval.Scores` checks it: no missing or blank
        cluster id, and one cluster per item of a dataset (whatever the system or metric); each
        error names the file and row (one aggregate scan of dataset, item and cluster)."""
        src = self._source(", filename, file_row_number")
        counts = con.execute(
            f"SELECT count(*) FILTER (WHERE {CLUSTER} IS NULL), "
            f"count(*) FILTER (WHERE trim({CLUSTER}) = '') FROM {src}").fetchone()
        n_null, n_blank = counts if counts is not None else (0, 0)
        if n_null:
            self._first_bad(con, f"{CLUSTER} IS NULL", "missing cluster id (every row needs "
                            "the cluster of its item when there is a cluster column)")
        if n_blank:
            self._first_bad(con, f"trim({CLUSTER}) = ''", "blank cluster id (every row needs "
                            "the cluster of its item)")
        bad = con.execute(
            f"SELECT dataset, item, count(*) OVER () FROM {src} GROUP BY dataset, item "
            f"HAVING min({CLUSTER}) <> max({CLUSTER}) ORDER BY dataset, item LIMIT 1").fetchone()
        if bad is None:
            return
        d, item, total = bad
        rows = con.execute(
            f"SELECT {CLUSTER}, filename, file_row_number, system FROM {src} "
            f"WHERE dataset = {_lit(d)} AND item = {_lit(item)} "
            "ORDER BY filename, file_row_number").fetchall()
        raise several_clusters_error(d, item, [(c, f, r, sy) for c, f, r, sy in rows],
                                     int(total))

    def validate(self) -> LazyScores:
        """The exact duplicate-key check (one GROUP BY over every key; costly on huge tables).

        Analyses detect duplicates on their own, cheaply: the scans of
        :meth:`sufficient_statistics` count each encoded (system, item) key, and :meth:`load`
        validates like ``Scores``. Returns ``self``.

        Returns
        -------
        LazyScores
            ``self``, so that ``LazyScores.from_parquet(path).validate()`` chains.

        Raises
        ------
        ScoresError
            Rows that share a (dataset, system, metric, item[, seed]) key, naming files and rows.

        Examples
        --------
        >>> import tempfile, pandas as pd
        >>> from ranger_eval.lazy import LazyScores
        >>> folder = tempfile.TemporaryDirectory()
        >>> pd.DataFrame({"dataset": "qa", "system": "a", "item": ["w", "x", "w"],
        ...               "value": [1.0, 0.0, 1.0]}).to_parquet(folder.name + "/dup.parquet")
        >>> LazyScores.from_parquet(folder.name).validate()
        Traceback (most recent call last):
        ...
        ranger_eval.errors.ScoresError: rows share a key (dataset, system, metric, item) in ...: qa/a/score/w (2 rows: ... row 0, ... row 2)
        >>> folder.cleanup()
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
            raise duplicates_error(keycols, self._where(), dups)

    def _first_nonbinary(self, d: str, m: str, system: str) -> float:
        """The value other than 0 and 1 of ``system`` on ``d`` × ``m`` with the smallest item id
        (NaN if none): the example a binary-only test's error shows."""
        row = self._connect().execute(
            f"SELECT value FROM {self._source()} WHERE dataset = {_lit(d)} AND metric = {_lit(m)} "
            f"AND system = {_lit(system)} AND value <> 0 AND value <> 1 ORDER BY item LIMIT 1"
        ).fetchone()
        return float(row[0]) if row else math.nan

    def _only_in(self, d: str, m: str, x: str, y: str) -> list[str]:
        """The item ids ``x`` scored on ``d`` × ``m`` and ``y`` did not, sorted."""
        src = self._source()
        base = f"dataset = {_lit(d)} AND metric = {_lit(m)}"
        return [r[0] for r in self._connect().execute(
            f"SELECT DISTINCT item FROM {src} WHERE {base} AND system = {_lit(x)} EXCEPT "
            f"SELECT DISTINCT item FROM {src} WHERE {base} AND system = {_lit(y)} ORDER BY 1"
        ).fetchall()]

    @property
    def engine(self) -> str:
        """The engine that scans the table: ``"duckdb"`` (here) or ``"dask"``."""
        return "duckdb"

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
    def samples_label(self) -> str | None:
        """Always None: a ``sample`` column is refused here (only in-memory ``Scores`` average
        K samples per item), so the signature has no ``samples:`` field (as ``Scores``)."""
        return None

    @property
    def has_seeds(self) -> bool:
        return self._schema.has_seed

    @property
    def has_cluster(self) -> bool:
        """True when the table has a ``cluster`` column: the resampling unit of the design
        (:mod:`ranger_eval.design`), honoured by ``compare`` and ``effect_sizes``."""
        return self._schema.has_cluster

    @property
    def has_prompts(self) -> bool:
        """Always False: a table with a ``prompt`` column is refused when it is opened (the
        crossed random-effects model needs the cells in memory), so every analysis of a lazy
        table reads the same design as :attr:`Scores.has_prompts <ranger_eval.Scores.has_prompts>`."""
        return False

    @property
    def cluster_name(self) -> str | None:
        """``"cluster"`` for a table with a cluster column (the signature's ``cluster:`` field,
        as :attr:`Scores.cluster_name <ranger_eval.Scores.cluster_name>`), else None."""
        return CLUSTER if self.has_cluster else None

    @property
    def columns(self) -> tuple[str, ...]:
        return self._schema.columns

    @property
    def catalog(self) -> pd.DataFrame:
        """Rows per dataset × metric × system (a copy), in order of first appearance."""
        return self._catalog.copy()

    def nonbinary_counts(self) -> pd.DataFrame:
        """Per dataset × metric × system, the rows (every seed as stored) whose value is
        neither 0 nor 1 (columns dataset, metric, system, nonbinary): the 0/1 detection of
        :func:`ranger_eval.describe` for a table with seeds (without seeds the per-system
        statistics count them). One aggregate scan on first use, kept.

        Returns
        -------
        pandas.DataFrame
            Columns ``dataset``, ``metric``, ``system``, ``nonbinary`` (int64), one row per group
            present (in the engine's order; sort for a stable display); a copy.

        Examples
        --------
        >>> import tempfile, pandas as pd
        >>> from ranger_eval.lazy import LazyScores
        >>> folder = tempfile.TemporaryDirectory()
        >>> pd.DataFrame({"dataset": "qa", "system": ["a"] * 4 + ["b"] * 4, "item": list("wxyz") * 2,
        ...               "value": [0.8, 0.6, 0.9, 0.7, 0.7, 0.6, 0.8, 0.5]}
        ...              ).to_parquet(folder.name + "/scores.parquet")
        >>> lazy = LazyScores.from_parquet(folder.name)
        >>> counts = lazy.nonbinary_counts().sort_values("system")
        >>> counts["system"].tolist(), counts["nonbinary"].tolist()
        (['a', 'b'], [4, 4])
        >>> folder.cleanup()
        """
        cached = self.__dict__.get("_nonbinary")
        if cached is None:
            self._check_unchanged()
            cached = self._scan_nonbinary()
            cached["nonbinary"] = cached["nonbinary"].astype(np.int64)
            self.__dict__["_nonbinary"] = cached
        return cached.copy()

    def _scan_nonbinary(self) -> pd.DataFrame:
        """DuckDB: one GROUP BY dataset, metric, system counting the values other than 0, 1."""
        return self._connect().execute(
            "SELECT dataset, metric, system, count(*) FILTER (WHERE value <> 0 AND value <> 1)"
            f" AS nonbinary FROM {self._source()} GROUP BY ALL").df()

    def __len__(self) -> int:
        return int(self._catalog["rows"].sum())

    def __repr__(self) -> str:
        return (
            f"LazyScores({len(self):,} rows in {len(self._files)} file(s): "
            f"{len(self.datasets)} dataset(s), {len(self.systems)} system(s), "
            f"{len(self.metrics)} metric(s))"
        )

    def groups(self) -> list[tuple[str, str, tuple[str, ...]]]:
        """(dataset, metric, systems present) per group, datasets and systems in order.

        Returns
        -------
        list of (str, str, tuple of str)
            One entry per dataset × metric; ``metric`` is ``"score"`` when the table has none.

        Examples
        --------
        >>> import tempfile, pandas as pd
        >>> from ranger_eval import open_scores
        >>> folder = tempfile.TemporaryDirectory()
        >>> pd.DataFrame({"dataset": "qa", "system": ["a"] * 4 + ["b"] * 4, "item": list("wxyz") * 2,
        ...               "value": [0.8, 0.6, 0.9, 0.7, 0.7, 0.6, 0.8, 0.5]}
        ...              ).to_parquet(folder.name + "/scores.parquet")
        >>> lazy = open_scores(folder.name + "/scores.parquet")
        >>> lazy.groups()
        [('qa', 'score', ('a', 'b'))]
        >>> lazy.groups_systems("qa", "score")
        ('a', 'b')
        >>> folder.cleanup()
        """
        if self._groups is None:
            self._groups = self._list_groups()
        return list(self._groups)

    def _list_groups(self) -> list[tuple[str, str, tuple[str, ...]]]:
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

        Parameters
        ----------
        datasets, metrics, systems : sequence of str, optional
            Keep only these (default: all); an unknown name raises ScoresError.
        columns : {"all", "keys"}, default "all"
            Which columns to read besides the keys.

        Returns
        -------
        Scores
            The rows in file order, validated as any ``Scores``.

        Examples
        --------
        >>> import tempfile, pandas as pd
        >>> from ranger_eval import open_scores
        >>> folder = tempfile.TemporaryDirectory()
        >>> pd.DataFrame({"dataset": "qa", "system": ["a"] * 4 + ["b"] * 4,
        ...               "item": list("wxyz") * 2,
        ...               "value": [0.8, 0.6, 0.9, 0.7, 0.7, 0.6, 0.8, 0.5]}
        ...              ).to_parquet(folder.name + "/scores.parquet")
        >>> lazy = open_scores(folder.name + "/scores.parquet")
        >>> scores = lazy.load(systems=["b"])
        >>> scores.systems, len(scores)
        (('b',), 4)
        >>> folder.cleanup()
        """
        conds = [f"{col} IN ({', '.join(_lit(w) for w in wanted)})"
                 for col, wanted in self._selection(datasets, metrics, systems)]
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

    def _selection(self, datasets: Sequence[str] | None, metrics: Sequence[str] | None,
                   systems: Sequence[str] | None) -> list[tuple[str, list[str]]]:
        """(column, wanted values) of a :meth:`load` selection; unknown names raise."""
        out = []
        for col, wanted, known in (("dataset", datasets, self.datasets),
                                   ("metric", metrics, self.metrics),
                                   ("system", systems, self.systems)):
            if wanted is None:
                continue
            wanted = [wanted] if isinstance(wanted, str) else [str(w) for w in wanted]
            unknown = [w for w in wanted if w not in known]
            if unknown:
                raise ScoresError(f"unknown {col}(s) {_preview(unknown)}; known: {_preview(known)}")
            out.append((col, wanted))
        return out

    def filter(self, *, datasets: Iterable[str] | None = None, systems: Iterable[str] | None = None,
               metrics: Iterable[str] | None = None) -> Scores:
        """Like :meth:`Scores.filter`: the selection, loaded into memory.

        Parameters
        ----------
        datasets, systems, metrics : iterable of str, optional
            Keep only these (default: all).

        Returns
        -------
        Scores
            The selected rows in memory (:meth:`load` with ``columns="all"``).

        Raises
        ------
        ScoresError
            An unknown name (with the names that are known).

        Examples
        --------
        >>> import tempfile, pandas as pd
        >>> from ranger_eval.lazy import LazyScores
        >>> folder = tempfile.TemporaryDirectory()
        >>> pd.DataFrame({"dataset": "qa", "system": ["a"] * 4 + ["b"] * 4, "item": list("wxyz") * 2,
        ...               "value": [0.8, 0.6, 0.9, 0.7, 0.7, 0.6, 0.8, 0.5]}
        ...              ).to_parquet(folder.name + "/scores.parquet")
        >>> lazy = LazyScores.from_parquet(folder.name)
        >>> lazy.filter(systems=["b"]).systems
        ('b',)
        >>> folder.cleanup()
        """
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
        the co-moment ``m2_ab`` = Σ(a − ā)(b − b̄); with no common item the sums are 0 and
        ``min_d``/``max_d`` NaN. Per-system columns ``n_a, sum_a, m2_a, min_a, max_a,
        nonbinary_a`` (and ``_b``) over each system's own items in the group (``nonbinary``
        counts values other than 0 and 1). Merge rules: :func:`ranger_eval.lazy.merge_statistics`.
        Seeds are averaged per item first.

        ``pairs`` (default: every pair of the group's systems, in order of first appearance, a
        before b) restricts the pairs; ``moments=False`` blanks the paired-item moments
        (``sum_pa`` … ``m2_ab`` are then NaN), which only the standardised effect sizes need.

        Each dataset × metric is scanned once per :class:`LazyScores` (module docstring); the
        statistics of every pair of the scanned systems are kept for later calls. A duplicate
        (dataset, system, metric, item[, seed]) key raises :class:`ScoresError` naming the files
        and rows.

        ``scale`` (int): the row holds the statistics of the scores times 2^-scale, so sums,
        minima, maxima and Σ|d| are ``column · 2**scale`` and the second moments ``m2_*``
        ``column · 4**scale`` (``numpy.ldexp``). It is 0 — the plain float64 statistics — unless
        the largest |score| of the two systems in the group lies outside [2^-100, 2^100]
        (about 1e±30), where plain sums of squares overflow to inf or underflow to 0; such a
        pair is computed from its group's rows in memory (:meth:`load`), scaled by the binary
        exponent of that largest |score| (exact: a power of two), as the in-memory tests
        rescale (:mod:`ranger_eval.stats._scale`; rules in :mod:`ranger_eval.lazy._stats`).

        Parameters
        ----------
        systems : sequence of str, optional
            Only pairs of these systems (default: all).
        pairs : sequence of (str, str), optional
            Only these (a, b) pairs; a pair with a system absent from a group is skipped there.
        datasets, metrics : sequence of str, optional
            Only these groups (default: all).
        moments : bool, default True
            False leaves ``sum_pa`` … ``m2_ab`` NaN.

        Returns
        -------
        pandas.DataFrame
            One row per dataset × metric × pair, columns :data:`PAIR_COLUMNS`.

        Raises
        ------
        ScoresError
            A duplicate key, or files changed since opening.

        References
        ----------
        Chan, T. F., Golub, G. H. & LeVeque, R. J. (1983), "Algorithms for computing the sample
        variance: analysis and recommendations", The American Statistician 37:242–247.

        Examples
        --------
        >>> import tempfile, pandas as pd
        >>> from ranger_eval.lazy import LazyScores
        >>> folder = tempfile.TemporaryDirectory()
        >>> pd.DataFrame({"dataset": "qa", "system": ["a"] * 4 + ["b"] * 4, "item": list("wxyz") * 2,
        ...               "value": [0.8, 0.6, 0.9, 0.7, 0.7, 0.6, 0.8, 0.5]}
        ...              ).to_parquet(folder.name + "/scores.parquet")
        >>> lazy = LazyScores.from_parquet(folder.name)
        >>> row = lazy.sufficient_statistics().iloc[0]
        >>> row["system_a"], row["system_b"], int(row["n"]), round(float(row["sum_d"]), 6), round(float(row["m2_d"]), 6)
        ('a', 'b', 4, 0.4, 0.02)
        >>> folder.cleanup()
        """
        groups = self.groups()
        if datasets is not None:
            groups = [g for g in groups if g[0] in set(datasets)]
        if metrics is not None:
            groups = [g for g in groups if g[1] in set(metrics)]
        if systems is not None:
            keep = [str(s) for s in systems]
            groups = [(d, m, tuple(s for s in keep if s in here)) for d, m, here in groups]
        groups = [g for g in groups if g[2]]
        stats = self._group_statistics(groups)
        rows: list[list[Any]] = []
        for d, m, here in groups:
            g = stats[(d, m)]
            if pairs is None:
                wanted = [(a, b) for i, a in enumerate(here) for b in here[i + 1:]]
            else:
                present = set(here)
                wanted = [(str(a), str(b)) for a, b in pairs
                          if str(a) in present and str(b) in present]
            extreme = _ExtremeGroup(self, d, m, here)
            for a, b in wanted:
                i, j = g.index(a), g.index(b)
                e, src = 0, g
                if not _safe(g, i, j):  # the exact statistics of the scores times 2^-e
                    e, src = extreme.statistics(a, b, _exponent(g, i, j))
                ia, jb = src.index(a), src.index(b)
                row: list[Any] = [d, m, a, b]
                row += [src.pair[f][ia, jb] for f in PAIR_FIELDS]
                row += [src.own[f][ia] if f != "nonbinary" else g.own[f][i] for f in OWN_FIELDS]
                row += [src.own[f][jb] if f != "nonbinary" else g.own[f][j] for f in OWN_FIELDS]
                rows.append([*row, e])
        columns = ["dataset", "metric", "system_a", "system_b", *PAIR_FIELDS,
                   *(f"{f}_a" for f in OWN_FIELDS), *(f"{f}_b" for f in OWN_FIELDS), "scale"]
        out = pd.DataFrame(rows, columns=columns)[list(PAIR_COLUMNS)]
        for c in ("n", "n_a", "n_b", "nonbinary_a", "nonbinary_b", "scale"):
            out[c] = out[c].astype(np.int64)
        float_cols = [c for c in PAIR_COLUMNS if c not in ("dataset", "metric", "system_a",
                                                             "system_b", "n", "n_a", "n_b",
                                                             "nonbinary_a", "nonbinary_b",
                                                             "scale")]
        out[float_cols] = out[float_cols].astype(np.float64)
        if not moments:
            out[["sum_pa", "sum_pb", "m2_pa", "m2_pb", "m2_ab"]] = np.nan
        return out

    def cluster_statistics(self, *, systems: Sequence[str] | None = None,
                           datasets: Sequence[str] | None = None,
                           metrics: Sequence[str] | None = None) -> pd.DataFrame:
        """Per dataset × metric × system × cluster, the number of items ``n`` and the sum of
        their scores ``sum`` (columns :data:`CLUSTER_COLUMNS`; clusters sorted by id within each
        dataset × metric × system; seeds averaged per item first), for a table with a
        ``cluster`` column (a :class:`ScoresError` otherwise).

        They are the sufficient statistics of the cluster-robust tests of a dataset × metric
        whose systems all scored the same items: a pair's cluster sums of d = a − b are
        S_k = sum_a,k − sum_b,k and its cluster sizes m_k the ``n`` of either system, all that
        the CR1/CR2 paired t, the clustered McNemar tests and the CR1 regression of an unpaired
        difference need (:mod:`ranger_eval.lazy._compare`). DuckDB computes them with one
        GROUP BY over the requested rows; Dask with a groupby aggregation. Kept per dataset ×
        metric for later calls.

        Parameters
        ----------
        systems : sequence of str, optional
            Only these systems (default: all).
        datasets, metrics : sequence of str, optional
            Only these groups (default: all).

        Returns
        -------
        pandas.DataFrame
            Columns :data:`CLUSTER_COLUMNS` (``n`` int64, ``sum`` float64).

        Raises
        ------
        ScoresError
            The table has no ``cluster`` column.

        References
        ----------
        Cameron, A. C. & Miller, D. L. (2015), "A practitioner's guide to cluster-robust
        inference", Journal of Human Resources 50:317–372.

        Examples
        --------
        >>> import tempfile, pandas as pd
        >>> from ranger_eval.lazy import LazyScores
        >>> folder = tempfile.TemporaryDirectory()
        >>> pd.DataFrame({"dataset": "qa", "system": ["a"] * 4 + ["b"] * 4, "item": list("wxyz") * 2,
        ...               "cluster": list("ppqq") * 2,
        ...               "value": [0.8, 0.6, 0.9, 0.7, 0.7, 0.6, 0.8, 0.5]}
        ...              ).to_parquet(folder.name + "/scores.parquet")
        >>> stats = LazyScores.from_parquet(folder.name).cluster_statistics(systems=["a"])
        >>> stats["cluster"].tolist(), stats["n"].tolist(), [round(x, 6) for x in stats["sum"]]
        (['p', 'q'], [2, 2], [1.4, 1.6])
        >>> folder.cleanup()
        """
        if not self.has_cluster:
            raise ScoresError(f"{self._where()} has no 'cluster' column")
        cache: dict[tuple[str, str], pd.DataFrame] = self.__dict__.setdefault(
            "_cluster_stats", {})
        groups = [(d, m) for d, m, _ in self.groups()
                  if (datasets is None or d in datasets) and (metrics is None or m in metrics)]
        todo = [g for g in groups if g not in cache]
        if todo:
            self._check_unchanged()
            frame = self._scan_cluster_statistics(todo)
            for key, part in frame.groupby(["dataset", "metric"], sort=False):
                cache[(str(key[0]), str(key[1]))] = part.reset_index(drop=True)
            empty = pd.DataFrame({c: pd.Series(dtype=object if c in (
                "dataset", "metric", "system", "cluster") else float) for c in CLUSTER_COLUMNS})
            for g in todo:
                cache.setdefault(g, empty)
        parts = [cache[g] for g in groups]
        out = (pd.concat(parts, ignore_index=True) if parts else
               pd.DataFrame(columns=list(CLUSTER_COLUMNS)))
        if systems is not None:
            out = out[out["system"].isin([str(x) for x in systems])].reset_index(drop=True)
        out["n"] = out["n"].astype(np.int64)
        out["sum"] = out["sum"].astype(np.float64)
        return out[list(CLUSTER_COLUMNS)]

    def _scan_cluster_statistics(self, groups: Sequence[tuple[str, str]]) -> pd.DataFrame:
        """DuckDB: one GROUP BY dataset, metric, system, cluster over the rows of ``groups``
        (seeds averaged per item first)."""
        con = self._connect()
        cond = " OR ".join(f"(dataset = {_lit(d)} AND metric = {_lit(m)})" for d, m in groups)
        src = self._source()
        if self._schema.has_seed:  # one value per item: the mean over its seeds
            src = (f"(SELECT dataset, metric, system, item, any_value({CLUSTER}) AS {CLUSTER}, "
                   f"avg(value) AS value FROM {src} WHERE {cond} GROUP BY ALL)")
        frame = con.execute(
            f"SELECT dataset, metric, system, {CLUSTER}, count(*) AS n, sum(value) AS sum "
            f"FROM {src} WHERE {cond} GROUP BY ALL ORDER BY dataset, metric, system, {CLUSTER}"
        ).df()
        return frame

    def _group_statistics(self, groups: Sequence[tuple[str, str, tuple[str, ...]]]
                          ) -> dict[tuple[str, str], GroupStatistics]:
        """The statistics of each group's systems: from the cache, or computed by the engine
        (:meth:`_scan_groups`) and kept when they cover the group's systems."""
        out: dict[tuple[str, str], GroupStatistics] = {}
        todo: list[tuple[str, str, tuple[str, ...]]] = []
        for d, m, names in groups:
            hit = self._cache.get((d, m))
            if hit is not None and set(names) <= set(hit.systems):
                out[(d, m)] = hit
            else:
                todo.append((d, m, names))
        if not todo:
            return out
        self._check_unchanged()
        for (d, m, names), g in zip(todo, self._scan_groups(todo), strict=True):
            full = self.groups_systems(d, m)
            if set(names) == set(full) or (d, m) not in self._cache:
                self._cache[(d, m)] = g
            out[(d, m)] = g
        return out

    def _check_unchanged(self) -> None:
        if self._files and _file_state(self._files) != self._state:
            raise ScoresError(f"{self._where()} changed on disk since it was opened; open it again")

    def _scan_groups(self, todo: Sequence[tuple[str, str, tuple[str, ...]]]
                     ) -> Iterator[GroupStatistics]:
        """DuckDB: one scan per group, reading group k + 1 in a background thread while group k
        is paired in numpy."""
        with ThreadPoolExecutor(max_workers=1) as pool, progress_bar(
                "scanning scores", total=len(todo)) as advance:
            ahead: Future[_GroupRows] = pool.submit(self._read_group, *todo[0])
            for k, (d, m, names) in enumerate(todo):
                rows = ahead.result()
                if k + 1 < len(todo):
                    ahead = pool.submit(self._read_group, *todo[k + 1])
                yield self._pair_group(d, m, names, rows)
                del rows
                advance()

    def groups_systems(self, dataset: str, metric: str) -> tuple[str, ...]:
        """The systems with scores on ``dataset`` × ``metric``, in order of first appearance.

        Parameters
        ----------
        dataset, metric : str
            One group of :meth:`groups`.

        Returns
        -------
        tuple of str
            Its systems (empty for a group the table lacks).

        Examples
        --------
        >>> import tempfile, pandas as pd
        >>> from ranger_eval import open_scores
        >>> folder = tempfile.TemporaryDirectory()
        >>> pd.DataFrame({"dataset": "qa", "system": ["a"] * 4 + ["b"] * 4, "item": list("wxyz") * 2,
        ...               "value": [0.8, 0.6, 0.9, 0.7, 0.7, 0.6, 0.8, 0.5]}
        ...              ).to_parquet(folder.name + "/scores.parquet")
        >>> lazy = open_scores(folder.name + "/scores.parquet")
        >>> lazy.groups_systems("qa", "score")
        ('a', 'b')
        >>> folder.cleanup()
        """
        for d, m, here in self.groups():
            if (d, m) == (dataset, metric):
                return here
        return ()

    def _where_sql(self, column: str, value: str) -> str:
        if column == "metric" and not self._schema.has_metric:
            return "TRUE" if value == DEFAULT_METRIC else "FALSE"
        ref = f'"{column}"'
        if column not in self._schema.strings:
            ref = f"CAST({ref} AS VARCHAR)"
        return f"{ref} = {_lit(value)}"

    def _files_sql(self) -> str:
        return "[" + ", ".join(_lit(str(f)) for f in self._files) + "]"

    def _read_group(self, d: str, m: str, names: tuple[str, ...]) -> _GroupRows:
        """One dataset × metric's rows (only ``item``, ``value`` and what pairs them)."""
        con = self._connect()
        con.execute("SET preserve_insertion_order = true")  # same item order across systems
        base = f"{self._where_sql('dataset', d)} AND {self._where_sql('metric', m)}"
        scan = f"read_parquet({self._files_sql()})"
        item = "item" if "item" in self._schema.strings else "CAST(item AS VARCHAR)"
        if self._clustered:  # each query reads only the row groups of one system
            per = []
            for s in names:
                t = _arrow(con.sql(
                    f"SELECT {item} AS item, CAST(value AS DOUBLE) AS value FROM {scan} "
                    f"WHERE {base} AND {self._where_sql('system', s)}"))
                per.append((t.column("item"),
                            t.column("value").to_numpy().astype(np.float64, copy=False)))
            return _GroupRows(per_system=per)
        system = "system" if "system" in self._schema.strings else "CAST(system AS VARCHAR)"
        seed = ", CAST(seed AS VARCHAR) AS seed" if self._schema.has_seed else ""
        return _GroupRows(table=_arrow(con.sql(
            f"SELECT {system} AS system, {item} AS item, CAST(value AS DOUBLE) AS value{seed} "
            f"FROM {scan} WHERE {base} AND {system} IN ({', '.join(_lit(s) for s in names)})")))

    def _pair_group(self, d: str, m: str, names: tuple[str, ...], rows: _GroupRows
                    ) -> GroupStatistics:
        """Encode, check for duplicate keys, scatter into a matrix and compute the statistics."""
        import pyarrow as pa
        import pyarrow.compute as pc

        cond = (f"dataset = {_lit(d)} AND metric = {_lit(m)} AND system IN "
                f"({', '.join(_lit(s) for s in names)})")
        if rows.per_system is not None:
            per = rows.per_system
            first = per[0][0].combine_chunks() if isinstance(per[0][0], pa.ChunkedArray) else per[0][0]
            if len(first) > 1 and first.null_count == 0 and pc.all(
                    pc.less(first.slice(0, len(first) - 1), first.slice(1))).as_py():
                n_items = len(first)  # strictly increasing ids are distinct: no hashing needed
            else:
                n_items = encode_items(first)[1]
            if n_items < len(first):  # a duplicate item within the first system
                self._raise_duplicates(self._connect(), cond)
            first_c = pa.chunked_array([first])
            if all(len(it) == len(first) and (it.equals(first_c) if isinstance(
                    it, pa.ChunkedArray) else it.equals(first)) for it, _ in per[1:]):
                # every system lists the same items in the same order: no scatter needed
                x = np.empty((len(names), n_items))
                for k, (_, v) in enumerate(per):
                    x[k] = v
                return group_statistics(names, x, None)
            items = pa.chunked_array([c for it, _ in per for c in (
                it.chunks if isinstance(it, pa.ChunkedArray) else [it])], pa.string())
            sys_codes = np.repeat(np.arange(len(names)), [len(it) for it, _ in per])
            values = np.concatenate([v for _, v in per])
            seed_codes, n_seeds = None, 0
        else:
            t = rows.table
            enc = pc.dictionary_encode(t.column("system")).combine_chunks()
            lookup = np.array([names.index(s) for s in enc.dictionary.to_pylist()], dtype=np.int64)
            sys_codes = lookup[enc.indices.to_numpy(zero_copy_only=False)]
            items = t.column("item")
            values = t.column("value").to_numpy().astype(np.float64, copy=False)
            seed_codes, n_seeds = None, 0
            if self._schema.has_seed:
                seed_codes, n_seeds = encode_items(t.column("seed"))
        item_codes, n_items = encode_items(items)
        x, present, duplicated = matrix_from_codes(len(names), n_items, sys_codes, item_codes,
                                                   values, seed_codes, n_seeds)
        if duplicated:
            self._raise_duplicates(self._connect(), cond)
        return group_statistics(names, x, present)

    # ------------------------------------------------------------------ analyses
    def __ranger_compare__(self, **kwargs: Any) -> Comparison:
        """The hook :func:`ranger_eval.compare` calls: see :func:`ranger_eval.lazy.compare_lazy`."""
        return compare_lazy(self, **kwargs)

    def __ranger_describe__(self, **kwargs: Any) -> pd.DataFrame:
        """The hook :func:`ranger_eval.describe` calls: see :mod:`ranger_eval.lazy._describe`."""
        return describe_lazy(self, **kwargs)

    def describe(self, **kwargs: Any) -> pd.DataFrame:
        """Same as ``ranger_eval.describe(self, **kwargs)``: each system's mean, its (cluster-
        robust) standard error and interval from the sufficient statistics.

        Parameters
        ----------
        **kwargs
            The keywords of :func:`ranger_eval.describe` (``level``, ``cluster``, …).

        Returns
        -------
        pandas.DataFrame
            One row per dataset × metric × system.

        Examples
        --------
        >>> import tempfile, pandas as pd
        >>> from ranger_eval import open_scores
        >>> folder = tempfile.TemporaryDirectory()
        >>> pd.DataFrame({"dataset": "qa", "system": ["a"] * 4 + ["b"] * 4,
        ...               "item": list("wxyz") * 2,
        ...               "value": [0.8, 0.6, 0.9, 0.7, 0.7, 0.6, 0.8, 0.5]}
        ...              ).to_parquet(folder.name + "/scores.parquet")
        >>> lazy = open_scores(folder.name + "/scores.parquet")
        >>> table = lazy.describe()
        >>> list(table["system"]), [round(m, 3) for m in table["mean"]]
        (['a', 'b'], [0.75, 0.65])
        >>> folder.cleanup()
        """
        return describe_lazy(self, **kwargs)

    def compare(self, **kwargs: Any) -> Comparison:
        """Same as ``ranger_eval.compare(self, **kwargs)``, from the sufficient statistics.

        Parameters
        ----------
        **kwargs
            The keywords of :func:`ranger_eval.compare` (``settings=``, ``test``, ``level``, …).

        Returns
        -------
        Comparison
            As :func:`ranger_eval.compare` returns for the same table in memory.

        Examples
        --------
        >>> import tempfile, pandas as pd
        >>> from ranger_eval import open_scores
        >>> folder = tempfile.TemporaryDirectory()
        >>> pd.DataFrame({"dataset": "qa", "system": ["a"] * 4 + ["b"] * 4,
        ...               "item": list("wxyz") * 2,
        ...               "value": [0.8, 0.6, 0.9, 0.7, 0.7, 0.6, 0.8, 0.5]}
        ...              ).to_parquet(folder.name + "/scores.parquet")
        >>> lazy = open_scores(folder.name + "/scores.parquet")
        >>> result = lazy.compare(test="paired-t")
        >>> row = result.table.iloc[0]
        >>> row["system_a"], row["system_b"], round(float(row["diff"]), 3), round(float(row["pvalue"]), 4)
        ('a', 'b', 0.1, 0.0917)
        >>> folder.cleanup()
        """
        return compare_lazy(self, **kwargs)

    def effect_sizes(self, *, treatment: str, control: str, measure: str | None = None,
                     metric: str | None = None, datasets: Sequence[str] | None = None,
                     missing: str = "error", level: float = 0.95, **kwargs: Any) -> EffectSizes:
        """Like :func:`ranger_eval.effect_sizes`, from the sufficient statistics (see
        :func:`ranger_eval.lazy.effect_sizes_lazy`).

        Parameters
        ----------
        treatment, control : str
            The two systems (y_i = treatment − control).
        measure : {"MD", "SMD", "SMCC", "SMCR", "ZCOR"}, optional
            The effect-size measure (default as :func:`ranger_eval.effect_sizes`).
        metric : str, optional
            Required when a dataset has several metrics.
        datasets : sequence of str, optional
            Which datasets (default: all).
        missing : {"error", "intersect"}, default "error"
            Items scored by only one system: an error, or dropped with a counting warning.
        level : float, default 0.95
            Confidence level of the per-dataset intervals.
        **kwargs
            The other keywords of :func:`ranger_eval.effect_sizes` (``settings=`` …).

        Returns
        -------
        EffectSizes
            One estimate ``yi`` and sampling variance ``vi`` per dataset, as in memory.

        Raises
        ------
        EffectSizeError
            An unknown measure or a setting the sufficient statistics cannot serve.

        Examples
        --------
        >>> import tempfile, pandas as pd
        >>> from ranger_eval.lazy import LazyScores
        >>> folder = tempfile.TemporaryDirectory()
        >>> pd.DataFrame({"dataset": "qa", "system": ["a"] * 4 + ["b"] * 4, "item": list("wxyz") * 2,
        ...               "value": [0.8, 0.6, 0.9, 0.7, 0.7, 0.6, 0.8, 0.5]}
        ...              ).to_parquet(folder.name + "/scores.parquet")
        >>> lazy = LazyScores.from_parquet(folder.name)
        >>> es = lazy.effect_sizes(treatment="a", control="b", measure="MD")
        >>> es.names, [round(float(y), 6) for y in es.yi], [round(float(v), 6) for v in es.vi]
        (('qa',), [0.1], [0.001667])
        >>> folder.cleanup()
        """
        return effect_sizes_lazy(self, treatment=treatment, control=control, measure=measure,
                                 metric=metric, datasets=datasets, missing=missing, level=level,
                                 **kwargs)


def _top(g: GroupStatistics, i: int, j: int) -> float:
    """The largest |score| of systems i and j in the group (their own minima and maxima)."""
    return max(abs(float(g.own[f][k])) for f in ("min", "max") for k in (i, j))


def _safe(g: GroupStatistics, i: int, j: int) -> bool:
    """Whether the plain float64 statistics of systems i and j are exact enough: their largest
    |score| is 0 or within [SAFE_LO, SAFE_HI] of :mod:`ranger_eval.stats._scale` (an overflowed
    seed mean, inf, is not)."""
    top = _top(g, i, j)
    return top == 0.0 or SAFE_LO <= top <= SAFE_HI


def _exponent(g: GroupStatistics, i: int, j: int) -> int | None:
    """The binary exponent of the largest |score| of systems i and j (the scores the statistics
    are of: seed means with seeds), or None when that is not finite (a seed mean overflowed)."""
    top = _top(g, i, j)
    return int(np.frexp(top)[1]) if math.isfinite(top) else None


class _ExtremeGroup:
    """The rows of one dataset × metric, loaded on first use (:meth:`LazyScores.load`, either
    engine), and its statistics on the scores times 2^-e for each exponent e asked for."""

    def __init__(self, lazy: LazyScores, dataset: str, metric: str,
                 systems: tuple[str, ...]) -> None:
        self._lazy, self._d, self._m, self._systems = lazy, dataset, metric, systems
        self._frame: pd.DataFrame | None = None
        self._by_exponent: dict[int, GroupStatistics] = {}

    def statistics(self, a: str, b: str, e: int | None) -> tuple[int, GroupStatistics]:
        """(e, statistics of the group's scores times 2^-e); ``e`` None: the binary exponent of
        the largest |row value| of systems a and b (:func:`ranger_eval.stats._scale.exponent`)."""
        if self._frame is None:
            self._frame = self._lazy.load(datasets=[self._d], metrics=[self._m],
                                          systems=list(self._systems), columns="keys").frame
        f = self._frame
        if e is None:
            e = exponent(f.loc[f["system"].isin([a, b]), "value"].to_numpy(np.float64))
        if e not in self._by_exponent:
            names = self._systems
            sys_codes = pd.Index(names).get_indexer(f["system"].astype(str))
            items, uniques = pd.factorize(f["item"])
            seeds, n_seeds = None, 0
            if "seed" in f.columns:
                seeds, seed_uniques = pd.factorize(f["seed"])
                n_seeds = len(seed_uniques)
            values = np.ldexp(f["value"].to_numpy(np.float64), -e)  # exact: a power of two
            x, present, _ = matrix_from_codes(len(names), len(uniques), sys_codes.astype(np.int64),
                                              items.astype(np.int64), values, seeds, n_seeds)
            self._by_exponent[e] = group_statistics(names, x, present)
        return e, self._by_exponent[e]
