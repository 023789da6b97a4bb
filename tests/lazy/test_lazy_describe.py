"""``rg.describe`` and the leaderboards of lazily scanned scores.

The lazy engines (DuckDB, Dask) describe each system's mean from their sufficient statistics
(ranger_eval.lazy._describe); the table, the comparison's ``described_means()`` (comparison.json's
``means``), its leaderboard and its signature (``mean_ci:``) equal the in-memory ones on the same
table at 1e-12: clustered and unclustered, 0/1 and continuous scores, seeds, a subset of the
systems, a group of extreme values (described in memory), and describe's errors.
"""
from __future__ import annotations

import io
import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import ranger_eval as rg
from ranger_eval.errors import CompareError, StatsInputError
from ranger_eval.report.tables import comparison_json
from ranger_eval.stats.describe import COLUMNS

pytest.importorskip("duckdb", reason="ranger_eval.lazy needs duckdb (the 'large' extra)")
from tests.helpers.lazy import ENGINES, engine_name, open_on  # noqa: E402

RTOL = 1e-12
ATOL = 1e-14  # quantities that are 0 up to summation order
NUMERIC = [c for c in COLUMNS[3:] if c != "interval"]


@pytest.fixture(params=ENGINES)
def engine(request: pytest.FixtureRequest) -> str:
    return engine_name(request.param)


def _open(df: pd.DataFrame, tmp_path: Path, engine: str) -> rg.lazy.LazyScores:
    return open_on(df, tmp_path, engine)


def _table(seed: int, *, clusters: bool, seeds: int = 0) -> pd.DataFrame:
    """Two datasets of unequal cluster sizes, metric ``acc`` (0/1: Wilson or Korn–Graubard),
    ``f1`` (continuous in [0, 1], a t interval) and ``acc`` of one dataset all 0/1 for two
    systems but not the third (no known range on that dataset)."""
    rng = np.random.default_rng(seed)
    rows = []
    for d, sizes in (("d1", [3, 1, 4, 2, 5, 3, 2]), ("d2", [2, 2, 6, 1, 3])):
        items = [(f"{d}-c{k}", f"{d}-q{k}-{j}") for k, m in enumerate(sizes) for j in range(m)]
        level = {c: rng.normal(0, 0.7) for c, _ in items}
        for metric in ("acc", "f1"):
            for s_i, s in enumerate(("A", "B", "C")):
                for c, i in items:
                    for r in range(max(seeds, 1)):
                        z = level[c] + 0.3 * s_i + rng.normal(0, 1)
                        v = float(z > 0) if metric == "acc" else float(1 / (1 + np.exp(-z)))
                        if metric == "acc" and d == "d2" and s == "C" and i.endswith("-0"):
                            v = 0.5  # d2/acc is not 0/1 (over all systems)
                        row = {"dataset": d, "metric": metric, "system": s, "item": i,
                               "value": v}
                        if clusters:
                            row["cluster"] = c
                        if seeds:
                            row["seed"] = f"s{r}"
                        rows.append(row)
    return pd.DataFrame(rows)


def _assert_same(lazy_table: pd.DataFrame, memory: pd.DataFrame) -> None:
    assert list(lazy_table.columns) == list(memory.columns)
    keys = ["dataset", "metric", "system"]
    pd.testing.assert_frame_equal(lazy_table[keys].astype(str), memory[keys].astype(str))
    assert lazy_table["interval"].tolist() == memory["interval"].tolist()
    for c in NUMERIC:
        np.testing.assert_allclose(lazy_table[c].to_numpy(float), memory[c].to_numpy(float),
                                   rtol=RTOL, atol=ATOL, equal_nan=True, err_msg=c)
    for k in ("level", "clustered", "intervals"):
        assert lazy_table.attrs[k] == memory.attrs[k], k


@pytest.mark.parametrize("clusters", [True, False])
def test_describe_equals_in_memory(tmp_path: Path, engine: str, clusters: bool) -> None:
    df = _table(1, clusters=clusters)
    lazy = _open(df, tmp_path, engine)
    memory = rg.describe(rg.Scores(df))
    out = rg.describe(lazy)
    _assert_same(out, memory)
    # every interval kind occurs: the test covers Wilson/Korn–Graubard and t
    assert "t" in set(out["interval"])
    assert ("korn-graubard" if clusters else "wilson") in set(out["interval"])
    if clusters:  # the design columns are the in-memory ones, not NaN
        assert np.isfinite(out["icc"]).any() and (out["n_clusters"] < out["n"]).all()
    # the level, a t interval everywhere, a selection of groups and systems
    _assert_same(lazy.describe(level=0.9, interval="t", groups=[("d2", "acc")],
                               systems=["C", "A"]),
                 rg.describe(rg.Scores(df), level=0.9, interval="t", groups=[("d2", "acc")],
                             systems=["C", "A"]))


def test_seeds_average_per_item_first(tmp_path: Path, engine: str) -> None:
    df = _table(2, clusters=True, seeds=2)
    lazy = _open(df, tmp_path, engine)
    out = rg.describe(lazy)
    _assert_same(out, rg.describe(rg.Scores(df)))
    # d1/acc: every stored score 0/1 (a proportion) though seed means are not: Korn–Graubard
    assert set(out.loc[(out["dataset"] == "d1") & (out["metric"] == "acc"), "interval"]) == {
        "korn-graubard"}


@pytest.mark.parametrize("clusters", [True, False])
def test_comparison_means_leaderboard_and_signature(tmp_path: Path, engine: str,
                                                    clusters: bool) -> None:
    df = _table(3, clusters=clusters)
    lazy_c = rg.compare(_open(df, tmp_path, engine), systems=["C", "A"])
    mem_c = rg.compare(rg.Scores(df), systems=["C", "A"])
    assert lazy_c.signature == mem_c.signature
    assert "mean_ci:" in str(lazy_c.signature)
    a, b = lazy_c.described_means(), mem_c.described_means()
    assert a["interval"].tolist() == b["interval"].tolist()
    for c in ("mean", "se", "n", "n_clusters", "ci_low", "ci_high"):
        np.testing.assert_allclose(a[c].to_numpy(float), b[c].to_numpy(float), rtol=RTOL,
                                   atol=ATOL, err_msg=c)
    # comparison.json's means: the same keys and cells
    j_l, j_m = (json.loads(comparison_json(c))["means"] for c in (lazy_c, mem_c))
    assert list(j_l) == list(j_m)
    for k in j_l:
        if k in ("se", "ci_low", "ci_high", "mean"):
            np.testing.assert_allclose(j_l[k], j_m[k], rtol=RTOL, atol=ATOL, err_msg=k)
        else:
            assert j_l[k] == j_m[k], k
    board_l, board_m = lazy_c.leaderboard(), mem_c.leaderboard()
    assert rg.report.to_markdown(board_l) == rg.report.to_markdown(board_m)
    # leaderboard.csv at full precision: the same cells up to summation order
    csv_l, csv_m = (pd.read_csv(io.StringIO(rg.report.to_csv(b))) for b in (board_l, board_m))
    assert list(csv_l.columns) == list(csv_m.columns)
    for c in csv_l.columns:
        if pd.api.types.is_float_dtype(csv_m[c]):
            np.testing.assert_allclose(csv_l[c], csv_m[c], rtol=RTOL, atol=ATOL, err_msg=c)
        else:
            assert csv_l[c].tolist() == csv_m[c].tolist(), c
    one_l = lazy_c.leaderboard(dataset="d1", metric="acc")
    assert rg.report.to_markdown(one_l) == rg.report.to_markdown(
        mem_c.leaderboard(dataset="d1", metric="acc"))


def test_extreme_group_is_described_in_memory(tmp_path: Path) -> None:
    df = _table(4, clusters=False)
    big = df["metric"] == "f1"
    df.loc[big & (df["dataset"] == "d1"), "value"] *= 1e200  # sums of squares overflow
    lazy = _open(df, tmp_path, "duckdb")
    out = rg.describe(lazy)
    _assert_same(out, rg.describe(rg.Scores(df)))
    assert np.isfinite(out["se"]).all() and out["se"].max() > 1e190


def test_errors_as_in_memory(tmp_path: Path) -> None:
    df = _table(5, clusters=True)
    df = df[~((df["dataset"] == "d2") & (df["system"] == "B")
              & ~df["cluster"].eq("d2-c2"))]  # B on d2: one cluster
    lazy = _open(df, tmp_path, "duckdb")
    with pytest.raises(StatsInputError) as lazy_err:
        rg.describe(lazy)
    with pytest.raises(StatsInputError) as mem_err:
        rg.describe(rg.Scores(df))
    assert str(lazy_err.value) == str(mem_err.value)
    assert "has 1 cluster" in str(lazy_err.value)
    with pytest.raises(StatsInputError, match="bounds= needs the scores in memory"):
        rg.describe(lazy, bounds=(0, 1))
    with pytest.raises(StatsInputError, match="unknown system"):
        rg.describe(lazy, systems=["Z"])
    with pytest.raises(StatsInputError, match="interval must be"):
        rg.describe(lazy, interval="wald")
    comp = rg.compare(lazy, datasets=["d1"])  # d1 alone describes: its leaderboard works
    assert np.isfinite(comp.described_means()["se"]).all()
    with pytest.raises(CompareError, match="no standard error for every mean"):
        rg.compare(lazy, paired=False).leaderboard()
