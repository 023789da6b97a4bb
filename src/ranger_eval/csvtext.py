"""Plain CSV text of a table: exactly the text of ``frame.to_csv(index=False, lineterminator="\\n")``,
written several times faster for the columns Ranger's result tables hold.

pandas formats every cell of ``to_csv`` as a Python object (floats through numpy's
``astype(str)``, then the standard library's ``csv.writer`` joins each row): at a million
comparisons × 23 columns that was about 40 % of ``ranger-eval compare``
(``benchmarks/groups_scale_bench.py``). :func:`csv_text` writes the same text column by column
in chunks of rows, each cell an Arrow string and each line joined by Arrow (no Python object
per cell), with the same rules:

- ``float64``: the shortest text that reads back to the same double, which is Python's
  ``repr`` and numpy's ``str`` alike (``0.1``, ``1e-05``, ``1e+16``, ``-0.0``, ``5e-324``,
  ``inf``, ``-inf``); NaN is the empty field (pandas' ``na_rep=""``);
- integers: ``str`` of the number; numpy booleans: ``True`` / ``False``;
- text (pandas' string dtype, or an object column holding only ``str`` and missing values):
  the string itself, missing values as the empty field; a field containing the delimiter, the
  quote character or a line end is quoted by ``csv.writer`` itself with the dialect pandas
  uses (``QUOTE_MINIMAL``, ``"`` doubled), so the quoting rules are the standard library's.

Anything else (other dtypes — float32, nullable, categorical, datetime, mixed objects —, labels
that are not strings, a MultiIndex, fewer than two columns, where the standard library quotes
a lone empty field) goes to ``DataFrame.to_csv`` unchanged. ``tests/test_csvtext.py`` checks the
identity with pandas on hostile values, including a Hypothesis test.
"""
from __future__ import annotations

import csv
import functools
import io
import math
import re
from collections.abc import Callable, Sequence

import numpy as np
import orjson
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

__all__ = ["csv_text"]

#: Rows formatted at a time: the cells of one chunk are Arrow strings, joined into its lines by
#: Arrow (no Python object per cell); the chunk bounds the memory used beyond the text itself.
CHUNK_ROWS = 100_000
#: Characters that make ``csv.writer`` (QUOTE_MINIMAL, delimiter ``,``, quote ``"``,
#: lineterminator ``\n``) quote or reject a field: such fields are formatted by ``csv`` itself.
_SPECIAL_CHARS = ',"\r\n\x00'
_SPECIAL = f"[{_SPECIAL_CHARS}]"
_SPECIAL_RE2 = r'[,"\r\n\x00]'  # the same class for Arrow's RE2, in escapes (NUL included)
_SPECIAL_BYTES = [c.encode() for c in _SPECIAL_CHARS]

_Column = Callable[[int, int], pa.Array]


def _pandas_csv(frame: pd.DataFrame) -> str:
    return frame.to_csv(index=False, lineterminator="\n")


def _csv_field(value: str) -> str:
    """``value`` as ``csv.writer`` writes it as one field of a row of several (quoted and its
    quotes doubled when it holds a delimiter, quote or line end)."""
    buffer = io.StringIO()
    csv.writer(buffer, lineterminator="\n", delimiter=",", quotechar='"', doublequote=True,
               escapechar=None, quoting=csv.QUOTE_MINIMAL).writerow([value, ""])
    return buffer.getvalue()[:-2]  # the trailing ",\n" of the empty second field


#: Doubles in this range of magnitude (and zeros) are written by orjson exactly as by ``repr``
#: (plain decimal notation with at least one digit after the point); outside it ``repr`` uses
#: an exponent (``1e-05``, ``1e+16``) that orjson writes differently (``1e-5``, ``1e16``).
_PLAIN_LOW, _PLAIN_HIGH = 1e-4, 1e16
#: Values at the edges of the plain range and of float formatting, for :func:`_orjson_agrees`.
_CANARIES = (0.0, -0.0, 2.0, -3.0, 0.1, 1 / 3, 1e-4, 1.0000000000000002e-4, 0.00012345,
             123456.789, 1e15, 9999999999999998.0, 2.0**52 + 0.5, 4503599627370497.0,
             0.30000000000000004, 1.7976931348623157e15, -8.5e-3)


@functools.cache
def _orjson_agrees() -> bool:
    """Whether the installed orjson writes every canary value as ``repr`` does (else floats are
    written by ``repr`` alone, more slowly)."""
    values = np.array(_CANARIES, dtype=np.float64)
    return _orjson_floats(values) == [repr(v) for v in _CANARIES]


def _orjson_floats(values: np.ndarray) -> list[str]:
    """The shortest round-trip text of each finite double, by orjson (its own notation)."""
    return _orjson_float_bytes(values).decode("ascii").split(",")


def _orjson_float_bytes(values: np.ndarray) -> bytes:
    """orjson's text of finite doubles, comma-separated (at least one value)."""
    return orjson.dumps(np.ascontiguousarray(values), option=orjson.OPT_SERIALIZE_NUMPY)[1:-1]


def _float_text(value: float) -> str:
    """One cell as pandas writes it: NaN empty, else ``repr`` (``inf``, ``-0.0``, ``1e-05``)."""
    return "" if math.isnan(value) else repr(value)


def _strings(texts: Sequence[str]) -> pa.Array:
    return pa.array(list(texts), type=pa.string())


def _float_column(values: np.ndarray) -> _Column:
    """Cells of a float64 column: orjson (about ten times faster than ``repr`` on doubles with
    17 significant digits), its comma-separated text split by Arrow, for the values it writes
    as ``repr`` does; ``repr`` for the rest (±inf, or outside [1e-4, 1e16) in magnitude); NaN
    empty."""
    values = np.ascontiguousarray(values, dtype=np.float64)
    if not _orjson_agrees():
        return lambda start, stop: _strings(list(map(_float_text, values[start:stop].tolist())))

    def cells(start: int, stop: int) -> pa.Array:
        chunk = values[start:stop]
        missing = np.isnan(chunk)
        if missing.all():
            return pc.if_else(pa.array(missing), "", pa.nulls(len(chunk), pa.string()))
        finite = np.isfinite(chunk)
        safe = chunk if finite.all() else np.where(finite, chunk, 0.0)
        data = _orjson_float_bytes(safe)
        offsets = np.array([0, len(data)], dtype=np.int64)
        one = pa.LargeStringArray.from_buffers(1, pa.py_buffer(offsets), pa.py_buffer(data))
        out = pc.split_pattern(one, ",").flatten().cast(pa.string())
        size = np.abs(safe)
        other = (~finite & ~missing) | ((size < _PLAIN_LOW) & (size != 0.0)) | (
            size >= _PLAIN_HIGH)
        if other.any():
            out = pc.replace_with_mask(out, pa.array(other), _strings(
                [repr(v) for v in chunk[other].tolist()]))
        if missing.any():
            out = pc.if_else(pa.array(missing), "", out)
        return out

    return cells


def _int_column(values: np.ndarray) -> _Column:
    """Cells of an integer column: Arrow's decimal text of each number, which is ``str``'s."""
    array = pa.array(values)
    return lambda start, stop: pc.cast(array.slice(start, stop - start), pa.string())


def _bool_column(values: np.ndarray) -> _Column:
    array = pa.array(values)
    return lambda start, stop: pc.if_else(array.slice(start, stop - start), "True", "False")


def _text_column(column: pd.Series) -> _Column | None:
    """The cells of a column of strings (missing values empty), or ``None`` when it holds
    anything else. Fields ``csv.writer`` would quote (or refuse) are formatted by it."""
    if not isinstance(column.dtype, pd.StringDtype) and not (
            column.dtype == object
            and pd.api.types.infer_dtype(column, skipna=True) in ("string", "empty")):
        return None
    try:  # (a lone surrogate cannot be UTF-8: such a column is left to pandas)
        if column.dtype == object:
            values = column.to_numpy(dtype=object, copy=True)
            values[pd.isna(values)] = None
            array = pa.array(values, type=pa.string())
        else:
            array = pa.chunked_array(column).combine_chunks()
    except (pa.ArrowException, UnicodeError):
        return None
    array = pc.fill_null(array.cast(pa.string()), "")
    data = array.buffers()[2]  # every string's UTF-8 bytes, one after the other
    raw = b"" if data is None else data.to_pybytes()
    if any(c in raw for c in _SPECIAL_BYTES):  # one byte search of all the text: usually none
        special = pc.match_substring_regex(array, _SPECIAL_RE2)  # then the fields that have one
        fields = [_csv_field(v) for v in pc.filter(array, special).to_pylist()]
        array = pc.replace_with_mask(array, special, _strings(fields))
    return lambda start, stop: array.slice(start, stop - start)


def _column_cells(column: pd.Series) -> _Column | None:
    """How to write one column's cells, or ``None`` when this writer does not know its dtype."""
    dtype = column.dtype
    if isinstance(dtype, np.dtype):
        if dtype == np.float64:
            return _float_column(column.to_numpy())
        if dtype.kind in "iu":
            return _int_column(column.to_numpy())
        if dtype.kind == "b":
            return _bool_column(column.to_numpy())
    return _text_column(column)


def csv_text(frame: pd.DataFrame) -> str:
    """``frame`` as CSV: header on line 1, no index, ``\\n`` line ends, floats at full precision;
    the same text as ``frame.to_csv(index=False, lineterminator="\\n")`` (module docstring)."""
    labels = list(frame.columns)
    if (isinstance(frame.columns, pd.MultiIndex) or len(labels) < 2
            or not all(type(c) is str for c in labels)):
        return _pandas_csv(frame)
    columns: list[_Column] = []
    for j in range(len(labels)):
        cells = _column_cells(frame.iloc[:, j])
        if cells is None:
            return _pandas_csv(frame)
        columns.append(cells)
    special = re.compile(_SPECIAL)
    parts = [",".join(_csv_field(c) if special.search(c) else c for c in labels), "\n"]
    for start in range(0, len(frame), CHUNK_ROWS):
        stop = min(start + CHUNK_ROWS, len(frame))
        rows = pc.binary_join_element_wise(*(c(start, stop) for c in columns), ",")
        lines = pa.LargeListArray.from_arrays(pa.array([0, stop - start], pa.int64()), rows)
        parts.append(pc.binary_join(lines, "\n")[0].as_py())
        parts.append("\n")
    return "".join(parts)
