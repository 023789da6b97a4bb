"""Python-API inputs that are not the tidy pandas table the docs show.

Every entry point that takes a table (``Scores``, ``compare``, ``effect_sizes``, ``rank_test``,
``ir.evaluate``) gives, for each input container and dtype, either exactly the result of the plain
DataFrame or a clear :class:`RangerError` naming what is wrong (rules: ranger_eval/_frames.py).
"""
from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ranger_eval as rg
from ranger_eval._frames import BadCells, float_values, id_strings
from ranger_eval.errors import (
    AggregateError,
    CompareError,
    RangerError,
    ScoresError,
    TrecFormatError,
)
from ranger_eval.scores import Scores

# ---------------------------------------------------------------------------------- the data

def _tidy(seed: int = 0, n: int = 8) -> pd.DataFrame:
    """3 datasets × 3 systems × n items with integer item ids, as a user builds it."""
    rng = np.random.default_rng(seed)
    rows = [(d, s, i, float(np.round(rng.normal(0.5 + 0.1 * k, 0.2), 6)))
            for d in ("rte", "mrpc", "sst2") for k, s in enumerate(("A", "B", "C"))
            for i in range(1, n + 1)]
    return pd.DataFrame(rows, columns=["dataset", "system", "item", "value"])


QRELS = pd.DataFrame({"query_id": [1, 1, 1, 2, 2, 3], "doc_id": ["a", "b", "c", "a", "d", "e"],
                      "relevance": [1, 0, 2, 1, 1, 3]})
RUN = pd.DataFrame({"query_id": [1, 1, 1, 2, 2, 2, 3, 3],
                    "doc_id": ["a", "b", "c", "a", "b", "d", "e", "f"],
                    "score": [3.0, 2.5, 1.0, 0.2, 0.9, 0.4, 1.0, 2.0]})


def _polars() -> Any:
    return pytest.importorskip("polars", reason="polars inputs need polars (the 'test' extra)")


# --------------------------------------------------------------------- containers and dtypes

#: input kind → (make it from a plain tidy DataFrame); each must give the plain result
KINDS: dict[str, Callable[[pd.DataFrame], Any]] = {
    "pandas": lambda df: df,
    "arrow-table": lambda df: pa.Table.from_pandas(df, preserve_index=False),
    "arrow-recordbatch": lambda df: pa.RecordBatch.from_pandas(df, preserve_index=False),
    "polars": lambda df: _polars().from_pandas(df),
    "polars-lazy": lambda df: _polars().from_pandas(df).lazy(),
    "structured-array": lambda df: df.to_records(index=False),
    "dict-of-columns": lambda df: {c: df[c].tolist() for c in df.columns},
    "ids-in-index": lambda df: df.set_index([c for c in df.columns
                                            if c in ("dataset", "system", "item", "query_id",
                                                     "doc_id")]),
    "named-series": lambda df: df.set_index([c for c in df.columns if c != df.columns[-1]])
    [df.columns[-1]],
    "filtered-index": lambda df: df.set_axis(np.arange(len(df)) * 3 + 7, axis=0),
    "categorical": lambda df: df.astype({c: "category" for c in df.columns}),
    "nullable": lambda df: df.convert_dtypes(),
    "string-pyarrow": lambda df: df.astype({c: "string[pyarrow]" for c in df.columns
                                            if c != df.columns[-1]}),
    "object": lambda df: df.astype(object),
    "float-ids": lambda df: df.astype({c: float for c in df.columns
                                       if c in ("item", "query_id")}),
    "multiindex-columns": lambda df: df.set_axis(
        pd.MultiIndex.from_tuples([(c, "") for c in df.columns]), axis=1),
}

#: entry point → (run it on a table-like input, the class its table errors raise)
ENTRIES: dict[str, tuple[Callable[[Any], Any], type[RangerError]]] = {
    "Scores": (lambda x: Scores(x).frame, ScoresError),
    "compare": (lambda x: rg.compare(x, test="paired-t").table, CompareError),
    "effect_sizes": (lambda x: rg.effect_sizes(x, treatment="B", control="A").to_frame(),
                     ScoresError),
    "rank_test": (lambda x: rg.rank_test(x).pairwise, AggregateError),
}


def _evaluate(qrels: Any, run: Any) -> pd.DataFrame:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return pd.DataFrame(rg.ir.evaluate(qrels, run, ["nDCG@10", "AP", "RR"]))


def _same(got: Any, want: Any) -> None:
    if isinstance(want, pd.DataFrame):
        pd.testing.assert_frame_equal(got.reset_index(drop=True), want.reset_index(drop=True))
    else:
        pd.testing.assert_series_equal(got, want)


@pytest.mark.parametrize("kind", list(KINDS))
@pytest.mark.parametrize("entry", list(ENTRIES))
def test_every_container_gives_the_plain_result(entry: str, kind: str) -> None:
    run, _ = ENTRIES[entry]
    plain = _tidy()
    want = run(plain)
    got = run(KINDS[kind](plain))
    _same(got, want)
    if entry == "Scores":
        assert (got["item"] == [str(i) for i in plain["item"]]).all()  # '1', never '1.0'


@pytest.mark.parametrize("kind", [k for k in KINDS if k != "named-series"])
def test_ir_evaluate_every_container_gives_the_plain_result(kind: str) -> None:
    want = _evaluate(QRELS, RUN)
    assert want["query_id"].tolist()[:3] == ["1", "1", "1"]
    _same(_evaluate(KINDS[kind](QRELS), KINDS[kind](RUN)), want)


def test_ir_evaluate_float_query_ids_match_a_qrels_file(tmp_path) -> None:
    path = tmp_path / "qrels.txt"
    path.write_text("".join(f"{q} 0 {d} {r}\n" for q, d, r in QRELS.itertuples(index=False)))
    # query ids that went through a float column (1.0) are the same topics as '1' in the file
    _same(_evaluate(str(path), RUN.astype({"query_id": float})), _evaluate(str(path), RUN))


# ------------------------------------------------------------------------------------ errors

def _dup_columns(df: pd.DataFrame) -> pd.DataFrame:
    return pd.concat([df, df.iloc[:, [-1]]], axis=1)


def _ambiguous_multiindex(df: pd.DataFrame) -> pd.DataFrame:
    return df.set_axis(pd.MultiIndex.from_tuples([(c, "x") for c in df.columns]), axis=1)


def _both_index_and_column(df: pd.DataFrame) -> pd.DataFrame:
    key = "item" if "item" in df.columns else "query_id"
    return df.set_index(key, drop=False)


#: (make the bad input, message parts); container errors raise the entry point's own class
CONTAINER_ERRORS: dict[str, tuple[Callable[[pd.DataFrame], Any], list[str]]] = {
    "duplicated-columns": (_dup_columns, ["duplicated column name(s)", "columns 3, 4"]),
    "ambiguous-multiindex": (_ambiguous_multiindex, ["MultiIndex columns", "('dataset', 'x')",
                                                      "'_'.join"]),
    "index-and-column": (_both_index_and_column, ["is both an index level and a column"]),
    "list-of-rows": (lambda df: df.to_numpy().tolist(), ["expects a pandas DataFrame",
                                                          "polars", "got list"]),
    "plain-ndarray": (lambda df: df.to_numpy(), ["plain numpy array", "column names"]),
    "unnamed-series": (lambda df: df.iloc[:, -1].rename(None), ["Series without a name"]),
    "ragged-dict": (lambda df: {**{c: df[c].tolist() for c in df.columns},
                                df.columns[-1]: [1.0]}, ["differ in length"]),
    "arrow-duplicated": (lambda df: pa.Table.from_arrays(
        [pa.array(df[c].tolist()) for c in df.columns] + [pa.array(df.iloc[:, -1].tolist())],
        names=[*map(str, df.columns), str(df.columns[-1])]), ["duplicated column name(s)",
                                                            "Arrow table"]),
}


@pytest.mark.parametrize("case", list(CONTAINER_ERRORS))
@pytest.mark.parametrize("entry", list(ENTRIES))
def test_container_errors_name_the_problem(entry: str, case: str) -> None:
    run, error = ENTRIES[entry]
    make, parts = CONTAINER_ERRORS[case]
    if entry == "rank_test" and case == "index-and-column":
        error = AggregateError  # a tidy table's 'item' is not needed by rank_test: no conflict
        run(make(_tidy()))
        return
    with pytest.raises(error) as info:
        run(make(_tidy()))
    for p in parts:
        assert p in str(info.value), (p, str(info.value))


@pytest.mark.parametrize("case", list(CONTAINER_ERRORS))
def test_ir_evaluate_container_errors(case: str) -> None:
    make, parts = CONTAINER_ERRORS[case]
    if case == "duplicated-columns":
        parts = ["duplicated column name(s)", "'score' (columns 2, 3)"]
    if case == "ambiguous-multiindex":
        parts = ["ir.evaluate: the run: MultiIndex columns", "('query_id', 'x')"]
    with pytest.raises(TrecFormatError) as info:
        _evaluate(QRELS, make(RUN))
    for p in parts:
        assert p in str(info.value), (p, str(info.value))


def _cell(df: pd.DataFrame, col: str, values: Any) -> pd.DataFrame:
    out = df.copy()
    out[col] = values
    return out


def _at(df: pd.DataFrame, col: str, row: int, value: object, dtype: str = "object") -> pd.DataFrame:
    s = df[col].astype(dtype)
    s.iloc[row] = value
    return _cell(df, col, s)


#: (make the bad table, message parts): bad cells, named by row and value
CELL_ERRORS: dict[str, tuple[Callable[[pd.DataFrame], pd.DataFrame], list[str]]] = {
    "na-in-Float64": (lambda df: _at(df, "value", 5, pd.NA, "Float64"),
                      ["missing value <NA>", "row 5"]),
    "na-in-string": (lambda df: _at(df, "value", 4, pd.NA, "string"),
                     ["missing value <NA>", "row 4"]),
    "text-in-object": (lambda df: _at(df, "value", 3, "n/a"), ["non-numeric value 'n/a'",
                                                               "row 3"]),
    "text-category": (lambda df: _cell(df, "value", pd.Categorical(
        ["low" if i == 2 else str(v) for i, v in enumerate(df["value"])])),
                      ["non-numeric value 'low'", "row 2"]),
    "tz-datetime-value": (lambda df: _cell(df, "value", pd.date_range(
        "2024-01-01", periods=len(df), freq="h", tz="Europe/Paris")),
                          ["datetime64", "Europe/Paris", "not a score", "row 0"]),
    "naive-datetime-objects": (lambda df: _at(df, "value", 1, pd.Timestamp("2024-05-01")),
                               ["datetime value (not a score)", "row 1"]),
    "int-beyond-2**53": (lambda df: _cell(df, "value", np.arange(len(df), dtype=np.int64)
                                          + 2**53 + 1),
                         ["integer value beyond 2**53", "9007199254740993", "row 0"]),
    "python-int-beyond-2**53": (lambda df: _at(df, "value", 6, 2**64 + 1),
                                ["integer value beyond 2**53", "18446744073709551617", "row 6"]),
    "complex": (lambda df: _cell(df, "value", df["value"] + 1j), ["complex", "not a score"]),
    "missing-item": (lambda df: _at(df, "item", 7, None), ["'item'", "row 7"]),
    "non-integer-float-item": (lambda df: _at(df, "item", 2, 2.5, "float64"),
                               ["non-integer number as an id", "2.5", "row 2"]),
    "tuple-item": (lambda df: _at(df, "item", 9, (1, 2)), ["id of type tuple", "(1, 2)",
                                                           "row 9"]),
    "bad-utf8-item": (lambda df: _at(df, "item", 0, b"\xff\xfe"), ["id of type bytes",
                                                                   "row 0"]),
}


@pytest.mark.parametrize("case", list(CELL_ERRORS))
@pytest.mark.parametrize("entry", ["Scores", "compare", "effect_sizes", "rank_test"])
def test_cell_errors_name_row_and_value(entry: str, case: str) -> None:
    run, _ = ENTRIES[entry]
    make, parts = CELL_ERRORS[case]
    if entry == "rank_test" and "item" in case:
        want = _tidy().drop(columns="item")  # rank_test reads no item column without seeds
        pd.testing.assert_frame_equal(run(make(_tidy())), run(want))
        return
    error = AggregateError if entry == "rank_test" else ScoresError
    with pytest.raises(error) as info:
        run(make(_tidy()))
    msg = str(info.value)
    for p in parts:
        if entry == "rank_test" and p.startswith("'item'"):
            continue
        assert p in msg, (p, msg)


@pytest.mark.parametrize(
    ("make", "parts"),
    [
        (lambda: (QRELS, _at(RUN, "score", 2, pd.NA, "Float64")), ["row 2",
         "score is not a number: <NA> (missing value"]),
        (lambda: (_at(QRELS, "relevance", 1, pd.NA, "Int64"), RUN), ["row 1",
         "relevance label is not a number: <NA> (missing value, column 'relevance')"]),
        (lambda: (QRELS, _cell(RUN, "score", pd.Categorical(["x"] + ["1"] * 7))),
         ["row 0", "score is not a number: 'x' (non-numeric value"]),
        (lambda: (QRELS, _cell(RUN, "score", pd.date_range("2024", periods=8, tz="UTC"))),
         ["row 0: score is not a number", "not a score", "8 such rows"]),
        (lambda: (QRELS, _at(RUN, "query_id", 3, 2.5, "float64")),
         ["row 3", "query_id", "non-integer number as an id", "2.5"]),
        (lambda: (QRELS.drop(columns="relevance"), RUN), ["needs columns", "relevance"]),
    ],
)
def test_ir_evaluate_cell_errors(make: Callable[[], tuple[Any, Any]], parts: list[str]) -> None:
    qrels, run = make()
    with pytest.raises(TrecFormatError) as info:
        _evaluate(qrels, run)
    for p in parts:
        assert p in str(info.value), (p, str(info.value))


def test_rank_test_wide_table_inputs() -> None:
    wide = rg.aggregate.rank_table(_tidy()) if hasattr(rg, "aggregate") else None
    if wide is None:
        from ranger_eval.aggregate.ranktests import rank_table
        wide = rank_table(_tidy())
    want = rg.rank_test(wide).average_ranks
    # object cells holding numbers, nullable floats, Arrow: the same ranks
    pd.testing.assert_series_equal(rg.rank_test(wide.astype(object)).average_ranks, want)
    pd.testing.assert_series_equal(rg.rank_test(wide.astype("Float64")).average_ranks, want)
    # duplicated system columns, MultiIndex system columns, non-numeric cells: errors
    with pytest.raises(AggregateError, match=r"duplicated column name\(s\) 'A'"):
        rg.rank_test(pd.concat([wide, wide[["A"]]], axis=1))
    multi = wide.set_axis(pd.MultiIndex.from_product([["acc", "f1"], ["A", "B", "C"]])[:3],
                          axis=1)
    with pytest.raises(AggregateError, match="MultiIndex columns"):
        rg.rank_test(multi)
    bad = wide.astype(object)
    bad.iloc[1, 2] = "0.7?"
    with pytest.raises(AggregateError, match=r"system 'C' .*'0.7\?' on dataset 'mrpc'"):
        rg.rank_test(bad)


# ----------------------------------------------------------------------- conversion rules

@pytest.mark.parametrize(
    ("series", "want"),
    [
        (pd.Series([1, 2]), ["1", "2"]),
        (pd.Series([1.0, 2.0]), ["1", "2"]),
        (pd.Series([1, 2], dtype="Int64"), ["1", "2"]),
        (pd.Series([2**62, 3], dtype="uint64"), [str(2**62), "3"]),
        (pd.Series([True, False]), ["True", "False"]),
        (pd.Series(["q1", 7, 7.0, b"q\xc3\xa9", np.int32(3)], dtype=object),
         ["q1", "7", "7", "qé", "3"]),
        (pd.Series(pd.Categorical([3, 1, 3])), ["3", "1", "3"]),
        (pd.Series(pd.Categorical([1.0, 2.0])), ["1", "2"]),
        (pd.Series(pd.to_datetime(["2024-03-01 12:00"]).tz_localize("Asia/Tokyo")),
         ["2024-03-01T12:00:00+09:00"]),
        (pd.Series(pd.to_datetime(["2024-03-01"])), ["2024-03-01T00:00:00"]),
    ],
)
def test_id_strings_are_exact(series: pd.Series, want: list[str]) -> None:
    got, bad = id_strings(series)
    assert bad is None and got.tolist() == want


@pytest.mark.parametrize(
    ("series", "want"),
    [
        (pd.Series([True, False]), [1.0, 0.0]),
        (pd.Series([True, False], dtype="boolean"), [1.0, 0.0]),
        (pd.Series([3, 2**53], dtype="Int64"), [3.0, float(2**53)]),
        (pd.Series(["0.25", 1, 2.5], dtype=object), [0.25, 1.0, 2.5]),
        (pd.Series(pd.Categorical([0.5, 0.25, 0.5])), [0.5, 0.25, 0.5]),
        (pd.Series(["1e-300", "2"], dtype="string[pyarrow]"), [1e-300, 2.0]),
    ],
)
def test_float_values_are_exact(series: pd.Series, want: list[float]) -> None:
    got, bad = float_values(series)
    assert bad is None and got.tolist() == want


def test_bad_cells_report_every_row() -> None:
    _, bad = float_values(pd.Series([1.0, "x", 2.0, "y"], dtype=object))
    assert isinstance(bad, BadCells)
    assert bad.rows.tolist() == [1, 3] and bad.describe() == "non-numeric value 'x' at row 1"
    assert bad.more() == "; 2 such rows"


# ---------------------------------------------------------------------- properties

@settings(max_examples=25, deadline=None)
@given(
    n=st.integers(3, 12),
    seed=st.integers(0, 2**32 - 1),
    container=st.sampled_from(["pandas", "arrow-table", "structured-array", "dict-of-columns",
                               "categorical", "nullable"]),
)
def test_row_order_and_container_do_not_change_results(n: int, seed: int, container: str) -> None:
    plain = _tidy(seed % 1000, n)
    order = np.random.default_rng(seed).permutation(len(plain))
    shuffled = KINDS[container](plain.iloc[order].reset_index(drop=True))
    order_kw: dict[str, Any] = {"systems": ["A", "B", "C"], "datasets": ["rte", "mrpc", "sst2"]}
    want = rg.compare(plain, test="paired-t", **order_kw).table
    got = rg.compare(shuffled, test="paired-t", **order_kw).table
    key = ["dataset", "system_a", "system_b"]  # datasets come in order of first appearance
    pd.testing.assert_frame_equal(got.sort_values(key).reset_index(drop=True),
                                  want.sort_values(key).reset_index(drop=True),
                                  check_exact=False, rtol=1e-12)
    es_want = rg.effect_sizes(plain, treatment="B", control="A")
    es_got = rg.effect_sizes(shuffled, treatment="B", control="A")
    at = [es_got.names.index(name) for name in es_want.names]
    assert sorted(es_got.names) == sorted(es_want.names)
    np.testing.assert_allclose(es_got.yi[at], es_want.yi, rtol=1e-12)
    np.testing.assert_allclose(es_got.vi[at], es_want.vi, rtol=1e-12)


# ------------------------------------------- the other public entry points that take tables
# Each reads its table through _frames.as_frame (rank_systems, aggregate_metrics, condition_and_compare,
# error_reduction and predictive_check through scores.as_scores), so every container and dtype
# gives the plain DataFrame's result and every container error names the entry point.

def _unit(seed: int = 0, n: int = 8) -> pd.DataFrame:
    """``_tidy`` with scores in [0, 1] (error_reduction needs them)."""
    df = _tidy(seed, n)
    return df.assign(value=np.round(df["value"].clip(0.0, 1.0), 6))


def _summary() -> pd.DataFrame:
    """A §6.3 summary table: one row per dataset × system."""
    g = _tidy().groupby(["dataset", "system"], sort=False)["value"]
    return pd.DataFrame({"mean": g.mean(), "sd": g.std(ddof=1), "n": g.size()}).reset_index()


def _matrix() -> pd.DataFrame:
    """A TOPSIS decision matrix: systems (rows, default index) × criteria."""
    return pd.DataFrame({"acc": [0.71, 0.64, 0.80, 0.66], "f1": [0.52, 0.61, 0.58, 0.49],
                         "latency": [120.0, 80.0, 200.0, 95.0]})


PARAMS = pd.DataFrame({"system": ["A", "B", "C"], "temp": [0, 1, 1]})


def _rankings(cc: Any) -> pd.DataFrame:
    return pd.concat({str(k): r.to_frame() for k, r in cc.rankings.items()}, names=["partition"])


#: entry point → (run it on a table-like input, the class its container errors raise, plain data)
MORE_ENTRIES: dict[str, tuple[Callable[[Any], Any], type[RangerError], Callable[[], pd.DataFrame]]] = {
    "rank_systems": (lambda x: rg.rank_systems(x, higher_is_better=True, test="paired-t")
                     .to_frame(), AggregateError, _tidy),
    "aggregate_metrics": (lambda x: rg.aggregate_metrics(x, higher_is_better=True).frame,
                          AggregateError, _tidy),
    "condition_and_compare": (lambda x: _rankings(rg.condition_and_compare(
        x, PARAMS, compare=["temp"], higher_is_better=True, test="welch")), AggregateError,
        _tidy),
    "error_reduction": (lambda x: rg.error_reduction(x, treatment="B", control="A").to_frame(),
                        AggregateError, _unit),
    "predictive_check": (lambda x: rg.predictive_check(
        x, treatment="B", control="A", k=(1,), n_test=1, n_resamples=2, effect="MD").table,
        AggregateError, _tidy),
    "standardized_means": (lambda x: rg.standardized_means(x, higher_is_better=True),
                           AggregateError, _summary),
    "topsis": (lambda x: rg.topsis(x, weights=[1.0, 1.0, 0.5], higher_is_better=[True, True,
                                                                                False]),
               AggregateError, _matrix),
}

#: kinds that do not apply to a table without identifier columns (topsis' matrix: its rows are
#: the alternatives, by position) or without a single value column (a summary's mean/sd/n)
_NOT_FOR = {"topsis": {"named-series", "ids-in-index", "float-ids"},
            "standardized_means": {"named-series", "float-ids"}}


@pytest.mark.parametrize("kind", list(KINDS))
@pytest.mark.parametrize("entry", list(MORE_ENTRIES))
def test_more_entry_points_every_container_gives_the_plain_result(entry: str, kind: str) -> None:
    run, error, make = MORE_ENTRIES[entry]
    if kind in _NOT_FOR.get(entry, set()):
        pytest.skip(f"{kind} does not apply to {entry}'s table")
    plain = make()
    want = run(plain)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            got = run(KINDS[kind](plain))
        except RangerError as exc:  # a dtype the entry point cannot take: a clear error
            assert kind in ("categorical", "object", "string-pyarrow"), (kind, exc)
            assert entry in ("standardized_means", "topsis"), (kind, exc)
            assert isinstance(exc, error) and str(exc), exc
            return
    if entry == "topsis" and kind == "filtered-index":
        got = got.reset_index(drop=True)  # the alternatives keep the matrix's own index
    _same(got, want)


@pytest.mark.parametrize("case", list(CONTAINER_ERRORS))
@pytest.mark.parametrize("entry", list(MORE_ENTRIES))
def test_more_entry_points_container_errors_name_the_problem(entry: str, case: str) -> None:
    run, error, make = MORE_ENTRIES[entry]
    bad = CONTAINER_ERRORS[case][0]
    parts = list(CONTAINER_ERRORS[case][1])
    plain = make()
    if case == "index-and-column" and entry in ("topsis", "standardized_means"):
        if entry == "topsis":  # a matrix has no identifier column: its index is the alternatives
            return
        bad = lambda df: df.set_index("system", drop=False)  # noqa: E731
    if case == "duplicated-columns" and entry in ("topsis", "standardized_means"):
        last = len(plain.columns) - 1
        parts = ["duplicated column name(s)", f"columns {last}, {last + 1}"]
    if case == "ambiguous-multiindex":
        parts = [*parts[:1], f"({str(plain.columns[0])!r}, 'x')", *parts[2:]]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(error) as info:
            run(bad(plain))
    message = str(info.value)
    assert message.startswith(entry), message  # the entry point the user called
    for p in parts:
        assert p in message, (p, message)


def test_condition_and_compare_params_containers() -> None:
    """The params table goes through the same rules: Arrow and polars, system as a named index,
    and a duplicated column is an error naming params."""
    run = MORE_ENTRIES["condition_and_compare"][0]
    want = run(_tidy())

    def with_params(params: Any) -> pd.DataFrame:
        return _rankings(rg.condition_and_compare(_tidy(), params, compare=["temp"],
                                                  higher_is_better=True, test="welch"))

    for params in (pa.Table.from_pandas(PARAMS), PARAMS.set_index("system"),
                   PARAMS.to_records(index=False), _polars().from_pandas(PARAMS)):
        _same(with_params(params), want)
    with pytest.raises(AggregateError, match=r"params .*duplicated column name\(s\) 'temp'"):
        with_params(pd.concat([PARAMS, PARAMS[["temp"]]], axis=1))


def test_open_scores_in_memory_tables_say_what_to_use() -> None:
    """lazy.open_scores reads files (or a dask frame); an in-memory table of any container is
    an error that points to ranger_eval.Scores, which takes them all."""
    pytest.importorskip("duckdb", reason="ranger_eval.lazy needs duckdb (the 'large' extra; in 'test')")
    from ranger_eval.lazy import open_scores

    plain = _tidy()
    for kind in ("pandas", "arrow-table", "polars", "structured-array", "dict-of-columns"):
        with pytest.raises(ScoresError) as info:
            open_scores(KINDS[kind](plain))
        assert "ranger_eval.Scores(df)" in str(info.value), (kind, str(info.value))
