"""ranger_eval.lazy: Parquet scores scanned lazily give the in-memory numbers."""
from __future__ import annotations

import importlib.util
import math
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import ranger_eval as rg
from ranger_eval.errors import CompareError, ScoresError

pytest.importorskip("duckdb", reason="ranger_eval.lazy needs duckdb (the 'large' extra)")
from ranger_eval.lazy import PAIR_COLUMNS, merge_statistics, open_scores  # noqa: E402

RTOL = 1e-9
ATOL = 1e-12  # for quantities that are 0 up to summation order (a zero mean difference)
ROOT = Path(__file__).resolve().parents[2]


def _frame(seed: int = 0, n: int = 40, binary: bool = False, systems: tuple[str, ...] = ("A", "B", "C"),
           datasets: tuple[str, ...] = ("d1", "d2", "d3")) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    rows = []
    for d in datasets:
        base = rng.random(n)
        for k, s in enumerate(systems):
            if binary:
                v = (rng.random(n) < 0.5 + 0.1 * k).astype(float)
            else:
                v = np.round(base + 0.05 * k + rng.normal(0, 0.2, n), 4)
            rows += [(d, s, "acc", f"item-{i:03d}", float(x)) for i, x in enumerate(v)]
    return pd.DataFrame(rows, columns=["dataset", "system", "metric", "item", "value"])


def _write(df: pd.DataFrame, path: Path) -> Path:
    df.to_parquet(path, index=False)
    return path


def _write_clustered(df: pd.DataFrame, path: Path) -> Path:
    """One Parquet row group per (dataset, system), as large tables are written (the per-system
    scan of ``LazyScores``)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    table = pa.Table.from_pandas(df, preserve_index=False)
    with pq.ParquetWriter(path, table.schema) as writer:
        for (_, _), part in df.groupby(["dataset", "system"], sort=False):
            writer.write_table(pa.Table.from_pandas(part, schema=table.schema,
                                                    preserve_index=False))
    return path


def _layout(df: pd.DataFrame, path: Path, layout: str) -> Path:
    return _write_clustered(df, path) if layout == "clustered" else _write(df, path)


def _assert_same_table(lazy_t: pd.DataFrame, mem_t: pd.DataFrame) -> None:
    assert list(lazy_t.columns) == list(mem_t.columns)
    assert len(lazy_t) == len(mem_t)
    for c in lazy_t.columns:
        a, b = lazy_t[c].to_numpy(), mem_t[c].to_numpy()
        if lazy_t[c].dtype.kind == "f" or mem_t[c].dtype.kind == "f":
            np.testing.assert_allclose(a.astype(float), b.astype(float), rtol=RTOL, atol=ATOL,
                                       err_msg=c)
        else:
            assert list(a) == list(b), c


@pytest.fixture(params=["duckdb", "dask"])
def engine(request: pytest.FixtureRequest) -> str:
    if request.param == "dask" and importlib.util.find_spec("dask") is None:
        pytest.skip("dask is not installed (pip install 'ranger-eval[dask]')")
    return str(request.param)


@pytest.mark.parametrize("layout", ["one-group", "clustered"])
@pytest.mark.parametrize("test", ["auto", "paired-t", "welch"])
@pytest.mark.parametrize("alternative", ["two-sided", "greater", "less"])
def test_numeric_tests_equal_in_memory(tmp_path: Path, test: str, alternative: str,
                                       layout: str) -> None:
    df = _frame(1)
    lazy = open_scores(_layout(df, tmp_path / "s.parquet", layout))
    assert lazy._clustered == (layout == "clustered")
    kw = dict(test=test, alternative=alternative, level=0.9)
    mem = rg.compare(rg.Scores(df), **kw)
    got = lazy.compare(**kw)
    _assert_same_table(got.table, mem.table)
    _assert_same_table(got.means, mem.means)
    assert got.signature == mem.signature
    assert got.systems == mem.systems


@pytest.mark.parametrize("layout", ["one-group", "clustered"])
@pytest.mark.parametrize("test", ["auto", "mcnemar", "proportions-z"])
@pytest.mark.parametrize("alternative", ["two-sided", "greater"])
def test_binary_tests_equal_in_memory(tmp_path: Path, test: str, alternative: str,
                                      layout: str) -> None:
    df = _frame(2, n=60, binary=True)
    lazy = open_scores(_layout(df, tmp_path / "s.parquet", layout))
    mem = rg.compare(rg.Scores(df), test=test, alternative=alternative)
    got = lazy.compare(test=test, alternative=alternative)
    _assert_same_table(got.table, mem.table)
    assert set(got.table["effect_size_name"]) == {"cohens_h"}


@pytest.mark.parametrize("kw", [
    dict(pairs="baseline", baseline="B", correction="holm", family="dataset"),
    dict(pairs="successive", correction="bonferroni", family="all"),
    dict(systems=["C", "A"], datasets=["d2", "d3"], correction="none"),
    dict(pairs=[("C", "A"), ("B", "C")]),
])
def test_pair_orders_and_corrections(tmp_path: Path, kw: dict) -> None:
    df = _frame(3)
    lazy = open_scores(_write(df, tmp_path / "s.parquet"))
    _assert_same_table(lazy.compare(**kw).table, rg.compare(rg.Scores(df), **kw).table)


def test_unpaired_systems_use_welch(tmp_path: Path) -> None:
    df = _frame(4)
    df.loc[df["system"] == "B", "item"] = "other-" + df.loc[df["system"] == "B", "item"]
    lazy = open_scores(_write(df, tmp_path / "s.parquet"))
    got = lazy.compare(pairs=[("A", "B")])
    assert set(got.table["test"]) == {"welch"}
    _assert_same_table(got.table, rg.compare(rg.Scores(df), pairs=[("A", "B")]).table)


def test_streamed_tests_equal_in_memory(tmp_path: Path) -> None:
    df = _frame(5, n=25)
    lazy = open_scores(_write(df, tmp_path / "s.parquet"))
    for test in ("wilcoxon", "permutation", "bootstrap"):
        kw = dict(test=test, n_resamples=199, seed=3, family="all")
        _assert_same_table(lazy.compare(**kw).table, rg.compare(rg.Scores(df), **kw).table)


def test_partial_overlap_error_and_intersect(tmp_path: Path, engine: str) -> None:
    df = _frame(6)
    df = df[~((df["system"] == "B") & (df["item"] == "item-007"))]
    lazy = open_scores(_write(df, tmp_path / "s.parquet"), engine=engine)
    with pytest.raises(ScoresError, match=r"item-007"):
        lazy.compare()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = lazy.compare(missing="intersect")
        mem = rg.compare(rg.Scores(df), missing="intersect")
    _assert_same_table(got.table, mem.table)


def test_compare_hook() -> None:
    """compare() hands a scores object that has ``__ranger_compare__`` every keyword (defaults
    filled in) and returns its result before reading any data."""
    import inspect

    seen: dict[str, object] = {}
    answer = object()

    class Backend:
        def __ranger_compare__(self, **kwargs: object) -> object:
            seen.update(kwargs)
            return answer

    assert rg.compare(Backend(), test="welch", level=0.9) is answer  # type: ignore[arg-type]
    expected = {name: p.default for name, p in inspect.signature(rg.compare).parameters.items()
                if name not in ("scores", "settings")}  # the settings' fields, resolved
    expected.update(test="welch", level=0.9)
    assert seen == expected


def test_compare_through_rg_compare(tmp_path: Path) -> None:
    df = _frame(7)
    lazy = open_scores(_write(df, tmp_path / "s.parquet"))
    _assert_same_table(rg.compare(lazy, pairs="successive").table,
                       rg.compare(rg.Scores(df), pairs="successive").table)


@pytest.mark.parametrize("measure", ["MD", "SMD", "SMCC", "SMCR", "ZCOR"])
def test_effect_sizes_and_meta_equal_in_memory(tmp_path: Path, measure: str) -> None:
    df = _frame(8)
    lazy = open_scores(_write(df, tmp_path / "s.parquet"))
    got = lazy.effect_sizes(treatment="C", control="A", measure=measure)
    mem = rg.effect_sizes(rg.Scores(df), treatment="C", control="A", measure=measure)
    assert got.names == mem.names
    for f in ("yi", "vi", "mean_treatment", "mean_control"):
        np.testing.assert_allclose(getattr(got, f), getattr(mem, f), rtol=RTOL, atol=ATOL)
    assert list(got.n) == list(mem.n)
    r1, r2 = rg.meta_analysis(got, method="REML"), rg.meta_analysis(mem, method="REML")
    for f in ("estimate", "se", "tau2", "Q", "pvalue"):
        assert math.isclose(getattr(r1, f), getattr(r2, f), rel_tol=RTOL, abs_tol=ATOL)


def test_effect_size_degenerate_cases_match(tmp_path: Path) -> None:
    df = _frame(9)
    same = df[df["system"] == "A"].assign(system="A2")
    df2 = pd.concat([df, same], ignore_index=True)
    lazy = open_scores(_write(df2, tmp_path / "s.parquet"))
    got = lazy.effect_sizes(treatment="A2", control="A", measure="SMD")
    assert list(got.yi) == [0.0, 0.0, 0.0] and list(got.vi) == [0.0, 0.0, 0.0]
    from ranger_eval.errors import EffectSizeError

    with pytest.raises(EffectSizeError, match="perfectly correlated"):
        lazy.effect_sizes(treatment="A2", control="A", measure="ZCOR")


def test_folder_of_files_and_merge(tmp_path: Path) -> None:
    df = _frame(10)
    folder = tmp_path / "parts"
    folder.mkdir()
    items = sorted(df["item"].unique())
    chunks = [items[:13], items[13:29], items[29:]]
    for i, chunk in enumerate(chunks):
        _write(df[df["item"].isin(chunk)], folder / f"part-{i}.parquet")
    whole = open_scores(_write(df, tmp_path / "all.parquet")).sufficient_statistics()
    lazy = open_scores(folder)
    assert len(lazy) == len(df)
    got = lazy.sufficient_statistics()
    parts = [open_scores(folder / f"part-{i}.parquet").sufficient_statistics() for i in range(3)]
    merged = merge_statistics(parts)
    for other in (got, merged):
        assert list(other.columns) == list(PAIR_COLUMNS)
        _assert_same_table(other, whole)
    _assert_same_table(lazy.compare().table, rg.compare(rg.Scores(df)).table)


def test_load_roundtrip(tmp_path: Path) -> None:
    df = _frame(11)
    lazy = open_scores(_write(df, tmp_path / "s.parquet"))
    assert lazy.datasets == ("d1", "d2", "d3") and lazy.systems == ("A", "B", "C")
    sub = lazy.load(datasets=["d2"], systems=["B"])
    pd.testing.assert_frame_equal(
        sub.frame.reset_index(drop=True),
        rg.Scores(df).filter(datasets=["d2"], systems=["B"]).frame.reset_index(drop=True),
        check_dtype=False)


def _brute_statistics(df: pd.DataFrame) -> pd.DataFrame:
    """PAIR_COLUMNS from the per-item vectors with plain numpy (the definitions, not the code)."""
    rows = []
    for (d, m), g in df.groupby(["dataset", "metric"], sort=False):
        names = list(dict.fromkeys(g["system"]))
        own = {s: g.loc[g["system"] == s].set_index("item")["value"] for s in names}
        for i, a in enumerate(names):
            for b in names[i + 1:]:
                common = own[a].index.intersection(own[b].index, sort=False)
                va = own[a].loc[common].to_numpy(float)
                vb = own[b].loc[common].to_numpy(float)
                dd = va - vb
                n = dd.size
                row = dict(dataset=d, metric=m, system_a=a, system_b=b, n=n,
                           sum_d=dd.sum(), m2_d=((dd - dd.mean()) ** 2).sum() if n else 0.0,
                           min_d=dd.min() if n else np.nan, max_d=dd.max() if n else np.nan,
                           sum_abs_d=np.abs(dd).sum(), sum_pa=va.sum(), sum_pb=vb.sum(),
                           m2_pa=((va - va.mean()) ** 2).sum() if n else 0.0,
                           m2_pb=((vb - vb.mean()) ** 2).sum() if n else 0.0,
                           m2_ab=((va - va.mean()) * (vb - vb.mean())).sum() if n else 0.0)
                for side, s_ in (("a", a), ("b", b)):
                    v = own[s_].to_numpy(float)
                    row.update({f"n_{side}": v.size, f"sum_{side}": v.sum(),
                                f"m2_{side}": ((v - v.mean()) ** 2).sum(),
                                f"min_{side}": v.min(), f"max_{side}": v.max(),
                                f"nonbinary_{side}": int(((v != 0) & (v != 1)).sum())})
                row["scale"] = 0  # ordinary magnitudes: the plain float64 statistics
                rows.append(row)
    return pd.DataFrame(rows, columns=list(PAIR_COLUMNS))


@pytest.mark.parametrize("layout", ["one-group", "clustered"])
@pytest.mark.parametrize("case", ["aligned", "shuffled-items", "partial", "disjoint"])
def test_sufficient_statistics_match_definitions(tmp_path: Path, layout: str, case: str) -> None:
    """Every scan path (one query per group or per system; items aligned across systems, in
    another order, partly or not at all shared) gives the defining sums."""
    df = _frame(20, n=30)
    rng = np.random.default_rng(1)
    if case == "shuffled-items":  # system B lists its items in another order
        parts = [g.sample(frac=1.0, random_state=1) if s == "B" else g
                 for (_, s), g in df.groupby(["dataset", "system"], sort=False)]
        df = pd.concat(parts, ignore_index=True)
    elif case == "partial":
        df = df[~((df["system"] == "C") & (rng.random(len(df)) < 0.3))]
    elif case == "disjoint":
        df.loc[df["system"] == "B", "item"] = "b-" + df.loc[df["system"] == "B", "item"]
    df = df.reset_index(drop=True)
    got = open_scores(_layout(df, tmp_path / "s.parquet", layout)).sufficient_statistics()
    _assert_same_table(got, _brute_statistics(df))


def test_statistics_are_computed_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """compare, then effect_sizes + meta: one scan per dataset × metric, not two."""
    from ranger_eval.lazy._scan import LazyScores

    df = _frame(21)
    lazy = open_scores(_write_clustered(df, tmp_path / "s.parquet"))
    calls: list[tuple[str, str]] = []
    original = LazyScores._read_group

    def counting(self: LazyScores, d: str, m: str, names: tuple[str, ...]) -> object:
        calls.append((d, m))
        return original(self, d, m, names)

    monkeypatch.setattr(LazyScores, "_read_group", counting)
    lazy.compare()
    lazy.effect_sizes(treatment="B", control="A", measure="SMD")
    assert sorted(calls) == [("d1", "acc"), ("d2", "acc"), ("d3", "acc")]


def test_seeds_are_averaged_per_item(tmp_path: Path, engine: str) -> None:
    df = _frame(22, n=20)
    rng = np.random.default_rng(2)
    seeded = pd.concat([df.assign(seed=k, value=df["value"] + rng.normal(0, 0.01, len(df)))
                        for k in range(3)], ignore_index=True)
    lazy = open_scores(_write(seeded, tmp_path / "s.parquet"), engine=engine)
    mean = seeded.groupby(["dataset", "system", "metric", "item"], sort=False, as_index=False)[
        "value"].mean()
    _assert_same_table(lazy.sufficient_statistics(), _brute_statistics(mean))
    dup = pd.concat([seeded, seeded.iloc[[4]]], ignore_index=True)
    with pytest.raises(ScoresError, match=r"rows share a key .*seed"):
        open_scores(_write(dup, tmp_path / "dup.parquet"), engine=engine).sufficient_statistics()


@pytest.mark.parametrize("where", ["first-system", "other-system"])
def test_duplicate_keys_in_clustered_files(tmp_path: Path, where: str, engine: str) -> None:
    df = _frame(23)
    row = 3 if where == "first-system" else int(np.flatnonzero(df["system"] == "C")[5])
    dup = pd.concat([df, df.iloc[[row]]], ignore_index=True)
    dup = dup.sort_values(["dataset", "system"], kind="stable").reset_index(drop=True)
    lazy = open_scores(_write_clustered(dup, tmp_path / "dup.parquet"), engine=engine)
    assert engine == "dask" or lazy._clustered
    item = df.loc[row, "item"]
    with pytest.raises(ScoresError, match=rf"rows share a key .*{item}.*dup\.parquet row \d+"):
        lazy.compare()


def test_file_changed_after_opening(tmp_path: Path, engine: str) -> None:
    import os

    p = _write(_frame(24), tmp_path / "s.parquet")
    lazy = open_scores(p, engine=engine)
    _write(_frame(25), p)
    st = os.stat(p)
    os.utime(p, ns=(st.st_atime_ns, st.st_mtime_ns + 10**9))
    with pytest.raises(ScoresError, match=r"s\.parquet changed on disk since it was opened"):
        lazy.compare()


@settings(max_examples=25, deadline=None)
@given(data=st.data())
def test_group_statistics_property(data: st.DataObject) -> None:
    """The numpy kernel against the definitions, on random matrices with random gaps."""
    from ranger_eval.lazy._numeric import group_statistics

    n_sys = data.draw(st.integers(2, 4))
    n_items = data.draw(st.integers(1, 12))
    seed = data.draw(st.integers(0, 2**31 - 1))
    rng = np.random.default_rng(seed)
    x = np.round(rng.normal(size=(n_sys, n_items)), 3)
    present = rng.random((n_sys, n_items)) < data.draw(st.sampled_from([1.0, 0.8, 0.5]))
    present[:, 0] = True  # every system has a value
    names = tuple(f"s{i}" for i in range(n_sys))
    g = group_statistics(names, np.where(present, x, 0.0), None if present.all() else present)
    for a in range(n_sys):
        va = x[a][present[a]]
        assert g.own["n"][a] == va.size
        np.testing.assert_allclose(g.own["m2"][a], ((va - va.mean()) ** 2).sum(),
                                   rtol=1e-9, atol=1e-12)
        for b in range(n_sys):
            if a == b:
                continue
            both = present[a] & present[b]
            d = x[a][both] - x[b][both]
            assert g.pair["n"][a, b] == d.size
            np.testing.assert_allclose(g.pair["sum_d"][a, b], d.sum(), rtol=1e-9, atol=1e-12)
            np.testing.assert_allclose(g.pair["m2_d"][a, b], ((d - d.mean()) ** 2).sum(),
                                       rtol=1e-9, atol=1e-12)
            np.testing.assert_allclose(g.pair["sum_abs_d"][a, b], np.abs(d).sum(), rtol=1e-9)
            pa_, pb_ = x[a][both], x[b][both]
            np.testing.assert_allclose(
                g.pair["m2_ab"][a, b], ((pa_ - pa_.mean()) * (pb_ - pb_.mean())).sum(),
                rtol=1e-9, atol=1e-12)
            np.testing.assert_allclose(g.pair["m2_pa"][a, b], ((pa_ - pa_.mean()) ** 2).sum(),
                                       rtol=1e-9, atol=1e-12)
            assert g.pair["min_d"][a, b] == d.min() and g.pair["max_d"][a, b] == d.max()


# --------------------------------------------------------------------------- bad input
# Every check below runs on both engines (tests/lazy/test_lazy_dask.py: the Dask engine on a cluster):
# the same error class and message.
def test_missing_column(tmp_path: Path, engine: str) -> None:
    p = _write(_frame().drop(columns="item"), tmp_path / "bad.parquet")
    with pytest.raises(ScoresError, match=r"bad\.parquet: missing column\(s\) item"):
        open_scores(p, engine=engine)


def test_non_numeric_value_column(tmp_path: Path, engine: str) -> None:
    df = _frame().astype({"value": str})
    p = _write(df, tmp_path / "bad.parquet")
    with pytest.raises(ScoresError, match=r"bad\.parquet: column 'value' has type (large_)?string"):
        open_scores(p, engine=engine)


def test_null_and_nonfinite_values_name_file_and_row(tmp_path: Path, engine: str) -> None:
    df = _frame()
    df.loc[5, "value"] = np.nan
    df.loc[7, "value"] = np.nan
    p = _write(df, tmp_path / "bad.parquet")
    with pytest.raises(ScoresError, match=r"bad\.parquet, row 5: .*2 such rows"):
        open_scores(p, engine=engine)
    df = _frame()
    df.loc[9, "value"] = np.inf
    p = _write(df, tmp_path / "inf.parquet")
    with pytest.raises(ScoresError, match=r"inf\.parquet, row 9: non-finite value"):
        open_scores(p, engine=engine)


def test_duplicate_keys_detected(tmp_path: Path, engine: str) -> None:
    df = _frame()
    dup = pd.concat([df, df.iloc[[3]]], ignore_index=True)
    lazy = open_scores(_write(dup, tmp_path / "dup.parquet"), engine=engine)
    with pytest.raises(ScoresError, match=r"rows share a key .*d1/A/acc/item-003"):
        lazy.sufficient_statistics()
    with pytest.raises(ScoresError, match=r"dup\.parquet row 3"):
        lazy.validate()
    # across two files of a folder
    folder = tmp_path / "f"
    folder.mkdir()
    _write(df, folder / "a.parquet")
    _write(df.iloc[[0]], folder / "b.parquet")
    with pytest.raises(ScoresError, match=r"rows share a key"):
        open_scores(folder, engine=engine).compare()


def test_inconsistent_folder_and_missing_path(tmp_path: Path, engine: str) -> None:
    folder = tmp_path / "f"
    folder.mkdir()
    _write(_frame(), folder / "a.parquet")
    _write(_frame().drop(columns="metric"), folder / "b.parquet")
    with pytest.raises(ScoresError, match=r"b\.parquet: column 'metric' is absent"):
        open_scores(folder, engine=engine)
    with pytest.raises(ScoresError, match="no such Parquet file"):
        open_scores(tmp_path / "nope.parquet", engine=engine)
    with pytest.raises(ScoresError, match="no \\*.parquet files"):
        (tmp_path / "empty").mkdir()
        open_scores(tmp_path / "empty", engine=engine)


def test_bad_compare_arguments(tmp_path: Path, engine: str) -> None:
    lazy = open_scores(_write(_frame(), tmp_path / "s.parquet"), engine=engine)
    with pytest.raises(CompareError, match="test"):
        lazy.compare(test="nope")
    with pytest.raises(CompareError, match="unknown system"):
        lazy.compare(systems=["A", "Z"])
    with pytest.raises(CompareError, match="needs binary"):
        lazy.compare(test="mcnemar")


# --------------------------------------------------------------------------- properties
@pytest.mark.slow
@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(perm_seed=st.integers(0, 2**32 - 1), binary=st.booleans())
def test_row_order_does_not_change_results(tmp_path: Path, perm_seed: int, binary: bool) -> None:
    df = _frame(12, n=15, binary=binary)
    shuffled = df.sample(frac=1.0, random_state=perm_seed % (2**32 - 1)).reset_index(drop=True)
    base = open_scores(_write(df, tmp_path / "base.parquet"))
    lazy = open_scores(_write(shuffled, tmp_path / "shuffled.parquet"))
    kw = dict(systems=["A", "B", "C"])
    _assert_same_table(lazy.compare(**kw).table.sort_values(["dataset", "system_a", "system_b"])
                       .reset_index(drop=True),
                       base.compare(**kw).table.sort_values(["dataset", "system_a", "system_b"])
                       .reset_index(drop=True))
    # and the lazy path equals the in-memory path on the shuffled table itself
    _assert_same_table(lazy.compare().table, rg.compare(rg.Scores(shuffled)).table)


def test_row_order_one_shuffle(tmp_path: Path) -> None:
    """The fast, deterministic version of the property above (which is marked slow)."""
    df = _frame(12, n=15)
    shuffled = df.sample(frac=1.0, random_state=7).reset_index(drop=True)
    lazy = open_scores(_write(shuffled, tmp_path / "shuffled.parquet"))
    _assert_same_table(lazy.compare().table, rg.compare(rg.Scores(shuffled)).table)


# --------------------------------------------------------------------------- distributed example
@pytest.mark.slow
def test_dask_example_matches(tmp_path: Path) -> None:
    """The usage example of docs/large.md gives the DuckDB engine's statistics."""
    if importlib.util.find_spec("dask") is None:
        pytest.skip("dask is not installed (pip install 'ranger-eval[dask]')")
    spec = importlib.util.spec_from_file_location(
        "sufficient_stats_dask", ROOT / "examples" / "distributed" / "sufficient_stats_dask.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    folder = tmp_path / "parts"
    folder.mkdir()
    df = _frame(13, n=30)
    for i, d in enumerate(("d1", "d2", "d3")):
        _write(df[df["dataset"] == d], folder / f"part-{i}.parquet")
    got = mod.sufficient_statistics_dask(str(folder))
    _assert_same_table(got, open_scores(folder).sufficient_statistics())


# ------------------------------------------------------------------ extreme magnitudes
def _exact_statistics(df: pd.DataFrame) -> dict[tuple[str, str, str, str], dict[str, object]]:
    """PAIR_COLUMNS of ``df`` in exact rational arithmetic (``fractions.Fraction`` of every float
    score; seeds averaged per item), keyed by (dataset, metric, system_a, system_b)."""
    from fractions import Fraction

    def moments(xs: list[Fraction], ys: list[Fraction]) -> Fraction:
        if not xs:
            return Fraction(0)
        mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
        return sum(((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)), Fraction(0))

    out: dict[tuple[str, str, str, str], dict[str, object]] = {}
    for (d, m), g in df.groupby(["dataset", "metric"], sort=False):
        names = list(dict.fromkeys(g["system"]))
        own: dict[str, dict[str, Fraction]] = {}
        for s in names:
            per: dict[str, list[Fraction]] = {}
            for item, v in zip(g.loc[g["system"] == s, "item"], g.loc[g["system"] == s, "value"],
                               strict=True):
                per.setdefault(item, []).append(Fraction(float(v)))
            own[s] = {k: sum(v) / len(v) for k, v in per.items()}
        for i, a in enumerate(names):
            for b in names[i + 1:]:
                common = [k for k in own[a] if k in own[b]]
                va, vb = [own[a][k] for k in common], [own[b][k] for k in common]
                dd = [x - y for x, y in zip(va, vb, strict=True)]
                row: dict[str, object] = dict(
                    n=len(dd), sum_d=sum(dd, Fraction(0)), m2_d=moments(dd, dd),
                    min_d=min(dd) if dd else None, max_d=max(dd) if dd else None,
                    sum_abs_d=sum((abs(x) for x in dd), Fraction(0)),
                    sum_pa=sum(va, Fraction(0)), sum_pb=sum(vb, Fraction(0)),
                    m2_pa=moments(va, va), m2_pb=moments(vb, vb), m2_ab=moments(va, vb))
                for side, s_ in (("a", a), ("b", b)):
                    v = list(own[s_].values())
                    row.update({f"n_{side}": len(v), f"sum_{side}": sum(v, Fraction(0)),
                                f"m2_{side}": moments(v, v), f"min_{side}": min(v),
                                f"max_{side}": max(v),
                                f"nonbinary_{side}": sum(1 for x in v if x not in (0, 1))})
                out[(str(d), str(m), str(a), str(b))] = row
    return out


def _assert_exact(table: pd.DataFrame, exact: dict[tuple[str, str, str, str], dict[str, object]],
                  check_scale: bool = True) -> None:
    """Every row of ``table`` scaled back by its ``scale`` equals the exact statistics: locations
    and second moments to 1e-9 relative (absolute 1e-12 of the row's largest score, or of its
    square, for quantities that are 0 up to summation order); counts exactly."""
    from fractions import Fraction

    from ranger_eval.lazy._stats import LOCATION_COLUMNS, MOMENT_COLUMNS

    assert len(table) == len(exact)
    for r in table.to_dict("records"):
        want = exact[(r["dataset"], r["metric"], r["system_a"], r["system_b"])]
        e = int(r["scale"])
        top = max(abs(Fraction(want[c])) for c in ("min_a", "max_a", "min_b", "max_b"))
        if top and check_scale:  # the exponent the rule of stats._scale gives (0 if safe)
            safe = 2.0**-100 <= top <= 2.0**100
            assert e == (0 if safe else math.frexp(float(top))[1]), (r, float(top))
        for c in ("n", "n_a", "n_b", "nonbinary_a", "nonbinary_b"):
            assert r[c] == want[c], c
        for c, power in [*((c, 1) for c in LOCATION_COLUMNS), *((c, 2) for c in MOMENT_COLUMNS)]:
            if want[c] is None:
                assert math.isnan(r[c]), c
                continue
            # compared in units of 2^e: both sides representable, no overflow or underflow
            expect = float(Fraction(want[c]) / Fraction(2) ** (power * e))
            tol = 1e-12 * float(top / Fraction(2) ** e) ** power
            assert math.isfinite(r[c]), (c, r)
            assert r[c] == pytest.approx(expect, rel=1e-9, abs=tol), (c, r[c], expect, e)


@st.composite
def _extreme_frames(draw: st.DrawFn) -> pd.DataFrame:
    """Two or three systems on one or two datasets, partly overlapping items, optional seeds,
    scores of ordinary spread times 10^p for p in [-300, 300] (a different p per dataset)."""
    n_sys = draw(st.integers(2, 3))
    seeded = draw(st.booleans())
    rows = []
    for k in range(draw(st.integers(1, 2))):
        p = draw(st.integers(-300, 300))
        factor = 10.0**p
        n = draw(st.integers(2, 8))
        base = draw(st.lists(st.floats(-1, 1, allow_nan=False, width=32), min_size=n,
                             max_size=n))
        for s in range(n_sys):
            keep = draw(st.lists(st.booleans(), min_size=n, max_size=n)) if s else [True] * n
            if sum(keep) < 1:
                keep[0] = True
            noise = draw(st.lists(st.floats(-0.5, 0.5, allow_nan=False, width=32), min_size=n,
                                  max_size=n))
            for i in range(n):
                if keep[i]:
                    for seed in (("0", "1") if seeded else ("0",)):
                        jitter = 0.01 * int(seed)
                        rows.append((f"d{k}", f"S{s}", "m", f"i{i}",
                                     (base[i] + noise[i] + jitter) * factor, seed))
    df = pd.DataFrame(rows, columns=["dataset", "system", "metric", "item", "value", "seed"])
    return df if seeded else df.drop(columns="seed")


# Dask takes about a second an example here: its run is in the slow run (tests/lazy/test_lazy_dask.py
# checks the Dask engine's extremes on a cluster in the default run)
@pytest.mark.parametrize("engine", ["duckdb", pytest.param("dask", marks=pytest.mark.slow)],
                         indirect=True)
@settings(max_examples=15, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(df=_extreme_frames())
def test_sufficient_statistics_scaled_back_are_exact(tmp_path: Path, engine: str,
                                                     df: pd.DataFrame) -> None:
    """At every magnitude from 1e-300 to 1e300 the public statistics, scaled
    back by ``scale``, are the exact statistics of the scores (not inf, not an underflowed 0),
    on both engines; a merge of parts that split the items at different scales too."""
    path = _write(df, tmp_path / f"x-{engine}.parquet")
    table = open_scores(path, engine=engine).sufficient_statistics()
    assert list(table.columns) == list(PAIR_COLUMNS)
    _assert_exact(table, _exact_statistics(df))
    items = sorted(set(df["item"]))
    first = df["item"].isin(items[: max(1, len(items) // 2)])
    if first.all():
        return
    # the second half of the items moved by 2^±900 (exact): its part carries another scale
    shift = -900 if float(np.abs(df["value"]).max()) > 1.0 else 900
    second = df[~first].assign(value=lambda f: np.ldexp(f["value"].to_numpy(), shift))
    parts = [open_scores(_write(part, tmp_path / f"part{i}-{engine}.parquet"),
                         engine=engine).sufficient_statistics()
             for i, part in enumerate((df[first], second))]
    merged = merge_statistics(parts)
    # a pair listed in both orientations by the parts is two rows of merge_statistics, and a
    # pair missing from a part loses that part's own-item statistics: only pairs that both parts
    # hold, in the whole table's orientation, are compared
    exact = _exact_statistics(pd.concat([df[first], second], ignore_index=True))
    both = set.intersection(*(set(zip(t["dataset"], t["metric"], t["system_a"], t["system_b"],
                                      strict=True)) for t in parts))
    mine = merged[[k in exact and k in both for k in zip(
        merged["dataset"], merged["metric"], merged["system_a"], merged["system_b"],
        strict=True)]]
    whole = {k: v for k, v in exact.items() if k in set(zip(
        mine["dataset"], mine["metric"], mine["system_a"], mine["system_b"], strict=True))}
    _assert_exact(mine, whole, check_scale=False)
