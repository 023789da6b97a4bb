"""The lazy engines the lazy tests run on (DuckDB always, Dask in the slow tier) and how a
pandas table is opened on each: shared by tests/lazy/test_lazy_clusters.py and test_lazy_describe.py."""
from __future__ import annotations

import importlib.util
from pathlib import Path

import pandas as pd
import pytest

from ranger_eval.lazy import LazyScores, open_scores

#: ``@pytest.fixture(params=ENGINES)``: DuckDB, and Dask (LocalCluster-free, 3 partitions) slow
ENGINES = ["duckdb", pytest.param("dask", marks=pytest.mark.slow)]


def engine_name(param: str) -> str:
    """The engine of a fixture parameter; Dask skips when it is not installed."""
    if param == "dask" and importlib.util.find_spec("dask") is None:
        pytest.skip("dask is not installed (pip install 'ranger-eval[dask]')")
    return str(param)


def open_on(df: pd.DataFrame, tmp_path: Path, engine: str) -> LazyScores:
    """``df`` opened lazily: a Dask frame of 3 partitions, or a Parquet file for DuckDB."""
    if engine == "dask":
        import dask.dataframe as dd

        return open_scores(dd.from_pandas(df, npartitions=3))
    path = tmp_path / "scores.parquet"
    df.to_parquet(path, index=False)
    return open_scores(path)
