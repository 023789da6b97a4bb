"""``csvtext.csv_text`` writes byte for byte what ``DataFrame.to_csv(index=False,
lineterminator="\\n")`` writes (the oracle is pandas itself), on hostile values, on the tables
``compare`` writes, and on random tables (Hypothesis); it falls back to pandas for what it does
not format itself."""
from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ranger_eval import csvtext
from ranger_eval.csvtext import csv_text

HOSTILE_FLOATS = [
    math.nan, math.inf, -math.inf, 0.0, -0.0, 1e-300, -1e-300, 5e-324, -5e-324,
    2.2250738585072014e-308, 1.7976931348623157e308, -1.7976931348623157e308, 1e16, 1e15,
    9999999999999998.0, 1e-4, 9.999999999999999e-05, 1e-5, 0.1, 1 / 3, 2.0, -123456789.125,
    1e22, 1.2345678901234568e17,
]
HOSTILE_TEXT = [
    "", "plain", "a,b", 'say "hi"', '"', '""', "line\nbreak", "carriage\rreturn", "crlf\r\n",
    "nul\x00byte", " spaced ", "tab\there", "ünïcödé", "中文", "emoji 🎲", "\u2028sep", "'single'",
    "trailing,", ",leading", "#comment", "\\back\\slash", "nan", "None", "True", "-0.0",
]


def _pandas(frame: pd.DataFrame) -> str:
    return frame.to_csv(index=False, lineterminator="\n")


def _no_fallback(monkeypatch: pytest.MonkeyPatch) -> None:
    """Make the pandas fall-back fail, to prove a table is written by the fast path."""
    def refuse(frame: pd.DataFrame) -> str:
        raise AssertionError("csv_text fell back to pandas")

    monkeypatch.setattr(csvtext, "_pandas_csv", refuse)


def _hostile_frame(n: int) -> pd.DataFrame:
    floats = (HOSTILE_FLOATS * (n // len(HOSTILE_FLOATS) + 1))[:n]
    text = (HOSTILE_TEXT * (n // len(HOSTILE_TEXT) + 1))[:n]
    obj = np.array(text, dtype=object)
    obj[::7] = None
    obj[3::7] = math.nan
    return pd.DataFrame({
        "float": floats,
        "float_rev": floats[::-1],
        "all_nan": [math.nan] * n,
        "str": pd.array(text, dtype="str"),
        "str_missing": pd.array([None if i % 5 == 0 else t for i, t in enumerate(text)],
                                dtype="str"),
        "object": obj,
        "bool": [i % 3 == 0 for i in range(n)],
        "int": np.arange(n, dtype=np.int64) * -7919 + 2**62,
        "uint": np.arange(n, dtype=np.uint64) * 3 + np.uint64(2**63),
        'name, with "quotes"\n': np.linspace(-1, 1, n),
    })


def test_hostile_values_byte_identical(monkeypatch: pytest.MonkeyPatch) -> None:
    frame = _hostile_frame(len(HOSTILE_FLOATS) * len(HOSTILE_TEXT))
    expected = _pandas(frame)
    _no_fallback(monkeypatch)
    assert csv_text(frame) == expected
    assert "\r" in expected and '""""' in expected and "5e-324" in expected  # hostile indeed


def test_repr_path_when_orjson_writes_floats_differently(monkeypatch: pytest.MonkeyPatch) -> None:
    """Should an orjson version write a canary float unlike ``repr``, floats go through
    ``repr`` alone: the same text."""
    frame = _hostile_frame(200)
    expected = _pandas(frame)
    _no_fallback(monkeypatch)
    assert csvtext._orjson_agrees()  # the installed orjson: the fast path is the one tested above
    monkeypatch.setattr(csvtext, "_orjson_agrees", lambda: False)
    assert csv_text(frame) == expected


def test_rows_across_chunks(monkeypatch: pytest.MonkeyPatch) -> None:
    """Rows split over several chunks join without a missing or doubled line."""
    frame = _hostile_frame(103)
    expected = _pandas(frame)
    _no_fallback(monkeypatch)
    monkeypatch.setattr(csvtext, "CHUNK_ROWS", 10)
    assert csv_text(frame) == expected
    assert csv_text(frame.iloc[:10]) == _pandas(frame.iloc[:10])
    assert csv_text(frame.iloc[:0]) == _pandas(frame.iloc[:0])  # header only


def test_comparison_table_takes_the_fast_path(monkeypatch: pytest.MonkeyPatch) -> None:
    """The comparison rows ``compare`` writes (strings, floats with NaN, booleans, integers)."""
    import ranger_eval as rg
    from ranger_eval import report

    rng = np.random.default_rng(3)
    rows = [(f"d{d}", s, f"q{i}", rng.normal() + (s == "B") * 0.1)
            for d in range(4) for s in ("A", "B", "C") for i in range(6)]
    comp = rg.compare(rg.Scores(pd.DataFrame(rows, columns=["dataset", "system", "item",
                                                            "value"])))
    expected = _pandas(comp.table)
    _no_fallback(monkeypatch)
    assert report.to_csv(comp) == expected
    assert comp.to_csv() == expected


@pytest.mark.parametrize("frame", [
    pd.DataFrame({"only": ["", "x"]}),  # one column: csv quotes a lone empty field
    pd.DataFrame({"a": [1.5, 2.0], "b": np.array([1.5, 2.5], dtype=np.float32)}),
    pd.DataFrame({"a": [1, 2], "b": pd.array([1, None], dtype="Int64")}),
    pd.DataFrame({"a": ["x", "y"], "b": pd.Categorical(["u", "v"])}),
    pd.DataFrame({"a": ["x", "y"], "b": pd.to_datetime(["2024-01-01", "2024-01-02"])}),
    pd.DataFrame({"a": ["x", "y"], "b": np.array([1, "u"], dtype=object)}),
    pd.DataFrame({"a": ["x", "y"], "b": np.array([1.5, None], dtype=object)}),
    pd.DataFrame({"a": ["x", "y"], "b": pd.array([True, None], dtype="boolean")}),
    pd.DataFrame([[1.0, 2.0]], columns=[0, 1]),
    pd.DataFrame([[1.0, 2.0]], columns=pd.MultiIndex.from_tuples([("a", "b"), ("a", "c")])),
    pd.DataFrame([[1.0, 2.0, 3.0]], columns=["a", "a", "b"]),
    pd.DataFrame({"a": np.array([None, None], dtype=object), "b": [1.0, 2.0]}),
    pd.DataFrame(columns=["a", "b"]),
    pd.DataFrame({"a": pd.Series(["x", "lone \ud800 surrogate"], dtype=object), "b": [1, 2]}),
], ids=["one-column", "float32", "nullable-int", "categorical", "datetime", "mixed-object",
        "object-floats", "nullable-bool", "int-labels", "multiindex", "duplicate-labels",
        "object-all-missing", "empty-object", "lone-surrogate"])
def test_other_tables_identical(frame: pd.DataFrame) -> None:
    """Tables the fast path does not format itself are written by pandas; the result is the
    same either way."""
    assert csv_text(frame) == _pandas(frame)


_floats = st.floats(allow_nan=True, allow_infinity=True, allow_subnormal=True, width=64)
_text = st.text(alphabet=st.characters(codec="utf-8", exclude_categories=["Cs"]), max_size=8)
_missing_text = st.one_of(st.none(), _text)


@settings(max_examples=80, deadline=None)
@given(data=st.data(), n=st.integers(0, 12),
       kinds=st.lists(st.sampled_from(["float", "str", "object", "bool", "int"]),
                      min_size=2, max_size=5),
       labels=st.lists(_text, min_size=5, max_size=5, unique=True))
def test_random_tables_byte_identical(data: st.DataObject, n: int, kinds: list[str],
                                      labels: list[str]) -> None:
    columns = {}
    for label, kind in zip(labels, kinds, strict=False):
        if kind == "float":
            columns[label] = np.array(data.draw(st.lists(_floats, min_size=n, max_size=n)),
                                      dtype=np.float64)
        elif kind == "str":
            columns[label] = pd.array(data.draw(st.lists(_missing_text, min_size=n,
                                                         max_size=n)), dtype="str")
        elif kind == "object":
            columns[label] = np.array(data.draw(st.lists(_missing_text, min_size=n,
                                                         max_size=n)) + [None], dtype=object)[:n]
        elif kind == "bool":
            columns[label] = np.array(data.draw(st.lists(st.booleans(), min_size=n, max_size=n)),
                                      dtype=bool)
        else:
            columns[label] = np.array(data.draw(st.lists(st.integers(-2**63, 2**63 - 1),
                                                         min_size=n, max_size=n)),
                                      dtype=np.int64)
    frame = pd.DataFrame(columns)
    assert csv_text(frame) == _pandas(frame)
