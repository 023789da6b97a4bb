"""ranger_eval.lazy on Dask: on a ``distributed.LocalCluster`` of two worker processes,
the Dask engine gives the DuckDB engine's statistics, tests and effect sizes (1e-9 relative) and
the same errors, from Parquet files or an existing dask DataFrame."""
from __future__ import annotations

import math
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ranger_eval as rg
from ranger_eval.errors import ScoresError

pytest.importorskip("duckdb", reason="the DuckDB engine is the reference (the 'large' extra)")
dd = pytest.importorskip("dask.dataframe", reason="the Dask engine needs the 'dask' extra")
distributed = pytest.importorskip("distributed", reason="the cluster tests need distributed")

from ranger_eval.lazy import PAIR_COLUMNS, open_scores  # noqa: E402
from tests.lazy.test_lazy import (  # noqa: E402
    _assert_same_table,
    _frame,
    _write,
    _write_clustered,
)

# End-to-end tier, starts Dask LocalClusters (5 s each): CI runs it (`pytest -m "slow or hypothesis"`);
# the default `pytest` leaves it out to stay under two minutes on two cores.
pytestmark = pytest.mark.slow

RTOL = 1e-9
ATOL = 1e-12


@pytest.fixture(scope="module")
def client() -> Iterator[Any]:
    """Two worker processes, one thread each (start-up takes a few seconds: once per module)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # distributed's port / resource notices
        cluster = distributed.LocalCluster(n_workers=2, processes=True, threads_per_worker=1,
                                           dashboard_address=None, memory_limit="2GiB")
        c = distributed.Client(cluster, set_as_default=False)
    try:
        assert len(c.scheduler_info()["workers"]) == 2
        yield c
    finally:
        c.close()
        cluster.close()


def _folder(df: pd.DataFrame, path: Path, files: int = 3, row_group: int = 37) -> Path:
    """``df`` split by rows into ``files`` Parquet files with small row groups, so that a read
    with a small ``partition_rows`` gives several partitions per file and every group's items
    are spread over partitions (the shuffle and the pooling are exercised)."""
    path.mkdir()
    for k, part in enumerate(np.array_split(np.arange(len(df)), files)):
        df.iloc[part].to_parquet(path / f"part-{k}.parquet", index=False,
                                 row_group_size=row_group)
    return path


def _same_statistics(got: pd.DataFrame, want: pd.DataFrame) -> None:
    assert list(got.columns) == list(PAIR_COLUMNS)
    _assert_same_table(got, want)


# --------------------------------------------------------------------------- on the cluster
@pytest.fixture(scope="module")
def table(tmp_path_factory: pytest.TempPathFactory) -> tuple[pd.DataFrame, Path]:
    """Rows in shuffled order, one system scoring 70 % of the items and one system on items of
    its own, in a folder of two files of small row groups."""
    rng = np.random.default_rng(3)
    df = _frame(31, n=40, systems=("A", "B", "C", "D"))
    df = df[~((df["system"] == "C") & (rng.random(len(df)) < 0.3))]
    df.loc[df["system"] == "D", "item"] = "d-" + df.loc[df["system"] == "D", "item"]
    df = df.sample(frac=1.0, random_state=4).reset_index(drop=True)
    return df, _folder(df, tmp_path_factory.mktemp("dask") / "parts", files=2, row_group=60)


@pytest.fixture(scope="module")
def engines(client: Any, table: tuple[pd.DataFrame, Path]) -> tuple[Any, Any]:
    """The table opened by DuckDB and by Dask on the cluster (several partitions per file)."""
    _, folder = table
    lazy = open_scores(folder, engine="dask", client=client, partition_rows=120)
    assert lazy.engine == "dask" and lazy.client is client and lazy.dask_frame.npartitions >= 4
    return open_scores(folder), lazy


def test_statistics_equal_duckdb_on_cluster(engines: tuple[Any, Any],
                                            table: tuple[pd.DataFrame, Path]) -> None:
    duck, lazy = engines
    assert (lazy.datasets, lazy.systems, lazy.metrics) == (duck.datasets, duck.systems,
                                                           duck.metrics)
    pd.testing.assert_frame_equal(lazy.catalog, duck.catalog, check_dtype=False)
    _same_statistics(lazy.sufficient_statistics(), duck.sufficient_statistics())
    pairs = [("C", "A"), ("D", "B")]
    _same_statistics(lazy.sufficient_statistics(systems=["C", "A", "D", "B"], pairs=pairs),
                     duck.sufficient_statistics(systems=["C", "A", "D", "B"], pairs=pairs))


def test_compare_effect_sizes_and_meta_on_cluster(engines: tuple[Any, Any]) -> None:
    duck, lazy = engines
    for kw in (dict(systems=["A", "B", "D"]),
               dict(systems=["A", "B", "D"], test="welch", alternative="greater", level=0.9)):
        got, want = rg.compare(lazy, **kw), rg.compare(duck, **kw)
        _assert_same_table(got.table, want.table)
        _assert_same_table(got.means, want.means)
        assert got.signature == want.signature
    for measure in ("MD", "SMD", "ZCOR"):
        e1, e2 = lazy.effect_sizes(treatment="B", control="A", measure=measure), duck.effect_sizes(
            treatment="B", control="A", measure=measure)
        for f in ("yi", "vi", "mean_treatment", "mean_control"):
            np.testing.assert_allclose(getattr(e1, f), getattr(e2, f), rtol=RTOL, atol=ATOL)
        r1, r2 = rg.meta_analysis(e1, method="REML"), rg.meta_analysis(e2, method="REML")
        for f in ("estimate", "se", "tau2", "pvalue"):
            assert math.isclose(getattr(r1, f), getattr(r2, f), rel_tol=RTOL, abs_tol=ATOL)


def test_in_memory_fall_back_on_cluster(engines: tuple[Any, Any],
                                        table: tuple[pd.DataFrame, Path]) -> None:
    """A partial overlap with missing='intersect': the group is loaded (``load``, on the
    cluster) and compared in memory, as with DuckDB (the error without it: test_lazy.py)."""
    df, _ = table
    duck, lazy = engines
    kw = dict(systems=["A", "C"], datasets=["d2"], missing="intersect", test="wilcoxon")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _assert_same_table(lazy.compare(**kw).table, rg.compare(rg.Scores(df), **kw).table)
    pd.testing.assert_frame_equal(lazy.load(datasets=["d3"], systems=["B"]).frame,
                                  duck.load(datasets=["d3"], systems=["B"]).frame)


def test_existing_dask_frame_on_cluster(client: Any, engines: tuple[Any, Any],
                                        table: tuple[pd.DataFrame, Path]) -> None:
    df, _ = table
    duck, _ = engines
    lazy = open_scores(dd.from_pandas(df, npartitions=3), client=client)
    assert lazy.engine == "dask" and lazy.files == ()
    _same_statistics(lazy.sufficient_statistics(), duck.sufficient_statistics())
    bad = df.copy()
    bad.loc[57, "value"] = np.inf
    with pytest.raises(ScoresError, match=rf"dask DataFrame, row 57: non-finite value "
                                          rf".*'{bad.loc[57, 'item']}'"):
        open_scores(dd.from_pandas(bad, npartitions=3), client=client)


# --------------------------------------------------------------------------- default scheduler
def test_parquet_layouts_and_dask_read_parquet(tmp_path: Path) -> None:
    """One file clustered by dataset × system, a folder read by ``dd.read_parquet``, binary
    scores: the DuckDB numbers (dask's default scheduler)."""
    binary = _frame(33, n=60, binary=True)
    p = _write_clustered(binary, tmp_path / "b.parquet")
    _assert_same_table(open_scores(p, engine="dask").compare(test="mcnemar").table,
                       open_scores(p).compare(test="mcnemar").table)
    df = _frame(35, n=40)
    folder = _folder(df, tmp_path / "parts")
    _same_statistics(open_scores(dd.read_parquet(str(folder))).sufficient_statistics(),
                     open_scores(folder).sufficient_statistics())


def test_seeds_and_extreme_scores(tmp_path: Path) -> None:
    df = _frame(36, n=20)
    seeded = pd.concat([df.assign(seed=k, value=df["value"] + 0.01 * k) for k in range(3)],
                       ignore_index=True)
    p = _write(seeded, tmp_path / "seeded.parquet")
    _same_statistics(open_scores(p, engine="dask", partition_rows=50).sufficient_statistics(),
                     open_scores(p).sufficient_statistics())
    # scores near the float64 limits: both engines recognise them and test them in memory
    huge = df.assign(value=df["value"] * 1e300)
    p = _write(huge, tmp_path / "huge.parquet")
    _assert_same_table(open_scores(p, engine="dask").compare().table,
                       open_scores(p).compare().table)


# --------------------------------------------------------------------------- same errors
def _bad_tables(tmp_path: Path) -> dict[str, Path]:
    out = {}
    df = _frame(37)
    for name, bad in (("null-value", df.assign(value=df["value"].where(df.index != 11))),
                      ("null-item", df.assign(item=df["item"].where(df.index != 13))),
                      ("null-system", df.assign(system=df["system"].where(df.index != 2)))):
        out[name] = _write(bad, tmp_path / f"{name}.parquet")
    inf = df.copy()
    inf.loc[[8, 80], "value"] = -np.inf
    out["inf"] = _write(inf, tmp_path / "inf.parquet")
    out["duplicate"] = _write(pd.concat([df, df.iloc[[5, 5, 90]]], ignore_index=True),
                              tmp_path / "duplicate.parquet")
    return out


def test_same_error_messages_as_duckdb(tmp_path: Path) -> None:
    """Every validation error of the DuckDB engine, word for word (default dask scheduler)."""
    for name, path in _bad_tables(tmp_path).items():
        messages = []
        for engine in ("duckdb", "dask"):
            with pytest.raises(ScoresError) as exc:
                open_scores(path, engine=engine).validate()
            messages.append(str(exc.value))
        assert messages[0] == messages[1], name
        assert path.name in messages[1], name


def test_engine_arguments(tmp_path: Path) -> None:
    p = _write(_frame(38), tmp_path / "s.parquet")
    with pytest.raises(ScoresError, match=r"unknown engine 'spark': engine must be one of "
                                          r"'duckdb', 'dask'"):
        open_scores(p, engine="spark")
    with pytest.raises(ScoresError, match="threads= and memory_limit= are options of "
                                          "engine='duckdb'"):
        open_scores(p, engine="dask", threads=2)
    with pytest.raises(ScoresError, match="client= and partition_rows= are options"):
        open_scores(p, partition_rows=10)
    with pytest.raises(ScoresError, match="partition_rows must be a positive integer"):
        open_scores(p, engine="dask", partition_rows=0)
    with pytest.raises(ScoresError, match=r"pandas\.DataFrame.*ranger_eval\.Scores\(df\)"):
        open_scores(_frame(38))
    ddf = dd.from_pandas(_frame(38), npartitions=2)
    with pytest.raises(ScoresError, match="opened with engine='dask'"):
        open_scores(ddf, engine="duckdb")


def test_dask_frame_schema_errors() -> None:
    df = _frame(39)
    with pytest.raises(ScoresError, match=r"dask DataFrame: missing column\(s\) item; .*"
                                          r"'item' is the index: ddf\.reset_index\(\)"):
        open_scores(dd.from_pandas(df.set_index("item"), npartitions=2))
    with pytest.raises(ScoresError, match=r"dask DataFrame: column 'value' has type bool"):
        open_scores(dd.from_pandas(df.assign(value=df["value"] > 0.5), npartitions=2))
    with pytest.raises(ScoresError, match=r"column 'value' has type (str|object|string)"):
        open_scores(dd.from_pandas(df.astype({"value": str}), npartitions=2))
    with pytest.raises(ScoresError, match=r"dask DataFrame, row 3: empty \(non-numeric\) value"):
        open_scores(dd.from_pandas(df.assign(value=df["value"].where(df.index != 3)),
                                   npartitions=3))


def test_integer_ids_are_exact_strings(tmp_path: Path) -> None:
    """Integer item ids (with a null elsewhere in the file) are their digits, as in DuckDB."""
    df = _frame(40, n=10)
    df["item"] = df["item"].str[5:].astype(int)
    p = _write(df, tmp_path / "ints.parquet")
    duck, dask_ = open_scores(p), open_scores(p, engine="dask")
    assert set(dask_.load().frame["item"]) == set(duck.load().frame["item"]) == {
        str(i) for i in range(10)}
    _same_statistics(dask_.sufficient_statistics(), duck.sufficient_statistics())


# --------------------------------------------------------------------------- pooling
@settings(max_examples=15, deadline=None)
@given(data=st.data())
def test_pooled_partitions_equal_the_whole(data: st.DataObject) -> None:
    """Statistics of the items split over random partitions, pooled, equal those of the whole
    matrix (the invariant the Dask engine rests on), over magnitudes 1e-100..1e100."""
    from ranger_eval.lazy._dask import _statistics_part, pool_statistics
    from ranger_eval.lazy._numeric import group_statistics

    n_sys = data.draw(st.integers(2, 4))
    n_items = data.draw(st.integers(2, 30))
    rng = np.random.default_rng(data.draw(st.integers(0, 2**31 - 1)))
    scale = 10.0 ** data.draw(st.integers(-100, 100))
    x = rng.normal(size=(n_sys, n_items)) * scale + scale * data.draw(st.sampled_from([0, 3]))
    present = rng.random((n_sys, n_items)) < data.draw(st.sampled_from([1.0, 0.7]))
    present[:, 0] = True
    s_idx, i_idx = np.nonzero(present)
    rows = pd.DataFrame({"_g": 0, "_s": s_idx.astype(np.int32), "item": [f"i{i}" for i in i_idx],
                         "value": x[s_idx, i_idx]})
    part_of = rng.integers(0, data.draw(st.integers(1, 5)), n_items)[i_idx]
    order = (tuple(range(n_sys)),)
    parts = pd.concat([_statistics_part(rows[part_of == k], order, False)
                       for k in np.unique(part_of)], ignore_index=True)
    own, pair = pool_statistics(parts)
    whole = group_statistics(tuple(map(str, range(n_sys))), np.where(present, x, 0.0),
                             None if present.all() else present)
    for s in range(n_sys):
        for f in ("n", "sum", "m2", "min", "max", "nonbinary"):
            np.testing.assert_allclose(own.loc[(0, s), f], whole.own[f][s], rtol=RTOL,
                                       atol=1e-12 * scale * scale, err_msg=f)
    for a in range(n_sys):
        for b in range(n_sys):
            if a == b or (0, a, b) not in pair.index:
                continue
            for f in ("n", "sum_d", "m2_d", "min_d", "max_d", "sum_abs_d", "m2_ab", "m2_pa"):
                np.testing.assert_allclose(pair.loc[(0, a, b), f], whole.pair[f][a, b],
                                           rtol=RTOL, atol=1e-12 * scale * scale, err_msg=f)
