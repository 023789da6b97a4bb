"""``open_scores``: the one entry point of the lazy engines, DuckDB (:mod:`._scan`) or Dask
(:mod:`._dask`). It sits above both, so neither engine module imports the other's opener.
"""
from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ..errors import ScoresError, check_choice
from ._dask import DaskScores
from ._scan import LazyScores

__all__ = ["ENGINES", "open_scores"]

#: The engines of :func:`open_scores`.
ENGINES: tuple[str, ...] = ("duckdb", "dask")


def open_scores(path: Any, *, engine: str | None = None, client: Any = None,
                threads: int | None = None, memory_limit: str | None = None,
                partition_rows: int | None = None) -> LazyScores:
    """Open tidy scores lazily: a Parquet file, a folder of Parquet files or a list of files, or
    an existing ``dask.dataframe.DataFrame``; a :class:`LazyScores` either way.

    ``engine="duckdb"`` (the default for paths) scans the files with DuckDB on this machine
    (``threads``, ``memory_limit``); ``engine="dask"`` (the only engine, and the default, for a
    dask DataFrame) computes the same statistics with ``dask.dataframe`` on ``client`` (a
    ``distributed.Client``; default: dask's current scheduler), reading Parquet in partitions of
    whole row groups of about ``partition_rows`` rows (:mod:`ranger_eval.lazy._dask`;
    docs/large.md says when to use which).

    Parameters
    ----------
    path : str, Path, list of them, or dask.dataframe.DataFrame
        Tidy scores with columns ``dataset``, ``system``, ``item``, ``value`` (and optionally
        ``metric``, ``seed``, a cluster column).
    engine : {"duckdb", "dask"}, optional
        Default: ``"duckdb"`` for paths, ``"dask"`` for a dask DataFrame.
    client : distributed.Client, optional
        Dask engine only.
    threads : int, optional
        DuckDB engine only: its thread count (default: DuckDB's).
    memory_limit : str, optional
        DuckDB engine only, e.g. ``"4GB"``.
    partition_rows : int, optional
        Dask engine with Parquet paths only: about how many rows a partition reads.

    Returns
    -------
    LazyScores
        The scanned table's catalog (datasets, systems, metrics); statistics are computed on
        first use and kept.

    Raises
    ------
    ScoresError
        Unknown engine, an option of the other engine, a missing column or file, or a table in
        memory (which needs :class:`ranger_eval.Scores`, not a lazy engine).

    Examples
    --------
    >>> import tempfile, pandas as pd
    >>> from ranger_eval import open_scores
    >>> folder = tempfile.TemporaryDirectory()
    >>> pd.DataFrame({"dataset": "qa", "system": ["a"] * 4 + ["b"] * 4, "item": list("wxyz") * 2,
    ...               "value": [0.8, 0.6, 0.9, 0.7, 0.7, 0.6, 0.8, 0.5]}
    ...              ).to_parquet(folder.name + "/scores.parquet")
    >>> lazy = open_scores(folder.name + "/scores.parquet")
    >>> lazy.systems, lazy.datasets
    (('a', 'b'), ('qa',))
    >>> len(lazy.compare().table)
    1
    >>> folder.cleanup()
    """
    is_frame = _is_dask_frame(path)
    if engine is None:
        engine = "dask" if is_frame else "duckdb"
    check_choice("engine", engine, ENGINES, error=ScoresError)
    if engine == "dask":
        if threads is not None or memory_limit is not None:
            raise ScoresError("threads= and memory_limit= are options of engine='duckdb'; "
                              "the Dask engine uses the resources of its client")
        if is_frame:
            if partition_rows is not None:
                raise ScoresError("partition_rows= is for Parquet paths; a dask DataFrame keeps "
                                  "its own partitions (repartition it first)")
            return DaskScores.from_frame(path, client=client)
        return DaskScores.from_parquet(_check_path(path), client=client,
                                       partition_rows=partition_rows)
    if is_frame:
        raise ScoresError("a dask DataFrame is opened with engine='dask', not engine='duckdb'")
    if client is not None or partition_rows is not None:
        raise ScoresError("client= and partition_rows= are options of engine='dask'")
    return LazyScores.from_parquet(_check_path(path), threads=threads, memory_limit=memory_limit)


def _is_dask_frame(obj: object) -> bool:
    """Whether ``obj`` is a dask DataFrame (without importing dask when it is not loaded)."""
    import sys

    if "dask.dataframe" not in sys.modules:
        return False
    import dask.dataframe as dd

    return isinstance(obj, dd.DataFrame)


def _check_path(path: object) -> str | Path | Sequence[str | Path]:
    """``path`` if it is a path or a list of paths; else a ScoresError saying what to pass."""
    if isinstance(path, (str, Path)) or (
            isinstance(path, (list, tuple)) and all(isinstance(p, (str, Path)) for p in path)):
        return path
    kind = type(path).__module__.split(".")[0] + "." + type(path).__name__
    table = isinstance(path, (pd.DataFrame, pd.Series, dict, np.ndarray)) or any(
        hasattr(path, a) for a in ("__arrow_c_stream__", "to_arrow", "collect", "schema"))
    hint = (" (a table in memory needs no lazy engine: use ranger_eval.Scores(df), which "
            "takes pandas, Arrow, polars, structured arrays and dicts of columns; or "
            "open_scores(dask.dataframe.from_pandas(df, npartitions=...)) for the Dask engine)"
            if table else "")
    raise ScoresError(f"open_scores takes a Parquet file, a folder or a list of files, or a dask "
                      f"DataFrame; got a {kind}{hint}")
