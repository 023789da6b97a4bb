"""Table-like inputs of the Python API, normalised once into a plain pandas DataFrame.

Every entry point that takes a table (``Scores``, ``compare``, ``effect_sizes``, ``rank_test``,
``ir.evaluate``) calls :func:`as_frame` first, then :func:`id_strings` for its identifier columns
and :func:`float_values` for its number columns. The rules (docs/api-inputs.md):

Containers
    a pandas ``DataFrame`` (or a named ``Series``, as ``series.to_frame()``), a pyarrow ``Table`` or
    ``RecordBatch``, a polars ``DataFrame`` or ``LazyFrame`` (collected; read through Arrow), any
    object with ``__arrow_c_stream__``, a numpy structured or record array (one column per field)
    and a dict of equally long columns. Anything else (a plain 2-D array, a list of rows) is an
    error listing these.
Columns
    duplicated names are an error naming them and their positions; MultiIndex columns are
    flattened when every column has exactly one non-empty level (``df.reset_index()`` after
    ``groupby().agg`` gives ``('dataset', '')``), otherwise they are an error that shows how to
    flatten them.
Index
    index levels named like one of the entry point's identifier columns (``item``, ``query_id`` …)
    become columns (``df.reset_index()``); a name that is both an index level and a column is an
    error; any other index (a ``RangeIndex``, a filtered integer index) is ignored. Row numbers
    in messages are 0-based positions.
Identifiers (:func:`id_strings`)
    exact strings: strings as they are, integers (numpy, Python, nullable ``Int64``) without a
    decimal point, booleans as ``True``/``False``, floats only when they hold an integer below
    2**53 (``1.0`` → ``'1'``: ids that passed through a float column still match ``'1'``
    elsewhere; ``0.5`` is an error, convert such ids to strings yourself), bytes decoded as
    UTF-8, datetimes (naive or timezone-aware) as ISO 8601 (``Timestamp.isoformat()``,
    ``2024-01-01T00:00:00+00:00``), categoricals by these rules applied to their labels. Missing
    ids (None, NaN, ``<NA>``) and other objects (tuples, lists …) are bad cells.
Values (:func:`float_values`)
    float64, exactly: numbers and numeric strings, booleans as 0/1 (as ``pandas.to_numeric``),
    nullable ``Int64``/``Float64``/``boolean``, categoricals with numeric labels. Bad cells:
    missing values (NaN, None, ``<NA>``), text that is not a number, integers that float64
    cannot hold exactly (beyond 2**53, e.g. 2**53 + 1), and datetimes, timedeltas, periods,
    intervals or complex numbers (``to_numeric`` would turn a datetime into nanoseconds).

The functions never raise for a bad cell: they return a :class:`BadCells` so that each entry
point names the row with its own context (dataset, system, item); :func:`as_frame` raises the
entry point's own :class:`~ranger_eval.errors.RangerError` subclass.
"""
from __future__ import annotations

import datetime as _dt
import decimal
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
from pandas.api import types as ptypes

from .errors import RangerError

__all__ = ["ACCEPTED", "BadCells", "as_frame", "float_values", "id_strings"]

ACCEPTED = ("a pandas DataFrame, a pyarrow Table or RecordBatch, a polars DataFrame or LazyFrame, "
            "a numpy structured (record) array or a dict of columns")
#: the largest magnitude below which every integer is exact in float64
EXACT_INT = 2**53


@dataclass(frozen=True)
class BadCells:
    """Cells of one column that cannot be converted: their 0-based row positions (ascending),
    what is wrong (``problem``, e.g. ``"non-numeric value"``) and the first offending value."""

    rows: np.ndarray
    problem: str
    value: object

    @property
    def first(self) -> int:
        return int(self.rows[0])

    @property
    def shown(self) -> str:
        """The first offending value as written in messages (``<NA>``, ``1.5``, ``'x'``)."""
        return _show(self.value)

    def describe(self) -> str:
        """``"<problem> <value> at row <r>"`` (the caller appends its own context)."""
        return f"{self.problem} {_show(self.value)} at row {self.first}"

    def more(self) -> str:
        """``"; N such rows"`` when there is more than one bad cell, else ``""``."""
        return f"; {self.rows.size} such rows" if self.rows.size > 1 else ""


def _show(x: object) -> str:
    if isinstance(x, np.generic):
        x = x.item()
    return "<NA>" if x is pd.NA else repr(x)


# ------------------------------------------------------------------------------- containers

def as_frame(data: object, *, what: str, error: type[RangerError],
             index_columns: Sequence[str] = ()) -> pd.DataFrame:
    """``data`` as a pandas DataFrame with unique, flat column names (module docstring).

    ``what`` names the entry point in messages (``"Scores"``, ``"rank_test"``); ``error`` is the
    class raised; index levels named in ``index_columns`` are moved to columns. A DataFrame that
    needs no change is returned as it is (not copied).
    """
    frame = _to_pandas(data, what, error)
    if isinstance(frame.columns, pd.MultiIndex):
        frame = _flatten_columns(frame, what, error)
    if frame.columns.has_duplicates:
        cols = [str(c) for c in frame.columns]
        dup = list(dict.fromkeys(c for c in cols if cols.count(c) > 1))
        listed = "; ".join(
            f"{c!r} (columns {', '.join(str(i) for i, x in enumerate(cols) if x == c)})"
            for c in dup
        )
        raise error(f"{what}: duplicated column name(s) {listed}; every column needs its own name "
                    "(rename or drop the copies, e.g. df.loc[:, ~df.columns.duplicated()])")
    names = [n for n in frame.index.names if n is not None and str(n) in index_columns]
    if names:
        both = [str(n) for n in names if n in frame.columns]
        if both:
            raise error(f"{what}: {', '.join(map(repr, both))} is both an index level and a "
                        "column; drop one of them (df.reset_index(drop=True) drops the index)")
        frame = frame.reset_index(level=names)
    return frame


def _to_pandas(data: object, what: str, error: type[RangerError]) -> pd.DataFrame:
    if isinstance(data, pd.DataFrame):
        return data
    if isinstance(data, pd.Series):
        if data.name is None:
            raise error(f"{what}: got a pandas Series without a name; name it after the column it "
                        "holds (series.rename('value').reset_index()) or pass a DataFrame")
        return data.to_frame()
    module = type(data).__module__ or ""
    if module.startswith("polars"):
        if hasattr(data, "collect"):  # LazyFrame
            data = data.collect()
        return _arrow_to_pandas(data.to_arrow(), what, error)  # type: ignore[attr-defined]
    if module.startswith("pyarrow") and hasattr(data, "to_pandas") and hasattr(data, "schema"):
        return _arrow_to_pandas(data, what, error)
    if isinstance(data, np.ndarray):
        return _structured_to_pandas(data, what, error)
    if isinstance(data, Mapping):
        bad_keys = [k for k in data if not isinstance(k, str)]
        if bad_keys:
            raise error(f"{what}: a dict of columns needs text keys (column names); got "
                        f"{bad_keys[0]!r}")
        lengths = {k: (len(v) if hasattr(v, "__len__") and not isinstance(v, (str, bytes))
                       else None) for k, v in data.items()}
        scalars = [k for k, n in lengths.items() if n is None]
        if scalars:
            raise error(f"{what}: column {scalars[0]!r} of the dict is a single value, not a "
                        "column; give a list or array of values per column")
        if len(set(lengths.values())) > 1:
            shown = ", ".join(f"{k!r}: {n}" for k, n in lengths.items())
            raise error(f"{what}: the columns of the dict differ in length ({shown})")
        return pd.DataFrame(dict(data))
    if hasattr(data, "__arrow_c_stream__"):
        import pyarrow as pa

        return _arrow_to_pandas(pa.table(data), what, error)
    kind = type(data).__name__ if type(data).__module__ == "builtins" else \
        f"{type(data).__module__}.{type(data).__name__}"
    raise error(f"{what} expects {ACCEPTED}; got {kind}"
                + (" (a plain array has no column names: pass a structured array or "
                   "pd.DataFrame(array, columns=[...]))" if isinstance(data, (list, tuple)) else ""))


def _arrow_to_pandas(table: Any, what: str, error: type[RangerError]) -> pd.DataFrame:
    """Arrow → pandas keeping integers and booleans exact (nullable ``Int64``/``boolean``
    rather than float64 with NaN), dictionaries as categoricals."""
    import pyarrow as pa

    names = [str(n) for n in table.schema.names]
    dup = list(dict.fromkeys(n for n in names if names.count(n) > 1))
    if dup:
        raise error(f"{what}: duplicated column name(s) "
                    + ", ".join(f"{d!r} (columns {', '.join(str(i) for i, n in enumerate(names) if n == d)})"
                                for d in dup)
                    + " in the Arrow table; rename them (table.rename_columns([...]))")

    def mapper(t: pa.DataType) -> Any:
        if pa.types.is_integer(t):
            return pd.api.types.pandas_dtype(str(t).replace("u", "U").replace("int", "Int")
                                             if str(t).startswith("u") else str(t).capitalize())
        if pa.types.is_boolean(t):
            return pd.BooleanDtype()
        return None

    return table.to_pandas(types_mapper=mapper)


def _structured_to_pandas(arr: np.ndarray, what: str, error: type[RangerError]) -> pd.DataFrame:
    if arr.dtype.names is None:
        raise error(f"{what}: a plain numpy array (dtype {arr.dtype}, shape {arr.shape}) has no "
                    "column names; pass a structured array (named fields) or "
                    "pd.DataFrame(array, columns=[...])")
    if arr.ndim != 1:
        raise error(f"{what}: a structured array must be one-dimensional (one row per element); "
                    f"got shape {arr.shape}; pass arr.ravel()")
    nested = [n for n in arr.dtype.names if arr.dtype.fields[n][0].shape]  # type: ignore[index]
    if nested:
        raise error(f"{what}: field {nested[0]!r} of the structured array holds sub-arrays "
                    f"(dtype {arr.dtype.fields[nested[0]][0]}); give one value per row and field")  # type: ignore[index]
    return pd.DataFrame({n: np.asarray(arr[n]) for n in arr.dtype.names})


def _flatten_columns(frame: pd.DataFrame, what: str, error: type[RangerError]) -> pd.DataFrame:
    flat: list[object] = []
    for col in frame.columns:
        parts = [p for p in col if p is not None and str(p) != ""]
        if len(parts) != 1:
            raise error(
                f"{what}: MultiIndex columns such as {col!r} are ambiguous; flatten them first, "
                "e.g. df.columns = ['_'.join(map(str, c)) for c in df.columns] and rename the "
                "value column to 'value', or select one level with df.droplevel(0, axis=1)"
            )
        flat.append(parts[0])
    out = frame.copy(deep=False)
    out.columns = pd.Index(flat)
    return out


# ------------------------------------------------------------------------------ identifiers

def id_strings(series: pd.Series) -> tuple[pd.Series, BadCells | None]:
    """The column as exact id strings (``astype(str)`` dtype, same index), or the bad cells."""
    na = series.isna().to_numpy(dtype=bool)
    if na.any():
        rows = np.flatnonzero(na)
        return series, BadCells(rows, "missing id", series.iloc[int(rows[0])])
    dtype = series.dtype
    if isinstance(dtype, pd.CategoricalDtype):
        labels, bad = id_strings(pd.Series(dtype.categories, dtype=dtype.categories.dtype))
        codes = series.cat.codes.to_numpy()
        if bad is not None:
            rows = np.flatnonzero(np.isin(codes, bad.rows))
            return series, BadCells(rows, bad.problem, series.iloc[int(rows[0])])
        return pd.Series(labels.to_numpy(dtype=object)[codes], index=series.index).astype(str), None
    if ptypes.is_bool_dtype(dtype) or ptypes.is_integer_dtype(dtype) or ptypes.is_string_dtype(dtype) \
            and not ptypes.is_object_dtype(dtype):
        return series.astype(str), None
    if ptypes.is_float_dtype(dtype):
        v = series.to_numpy(dtype=np.float64)
        nonint = np.flatnonzero((v != np.floor(v)) | (np.abs(v) >= EXACT_INT))
        if nonint.size:
            return series, BadCells(nonint, "non-integer number as an id (convert ids to text "
                                            "with .astype(str) if it is meant):",
                                    series.iloc[int(nonint[0])])
        return pd.Series(v.astype(np.int64), index=series.index).astype(str), None
    if isinstance(dtype, pd.DatetimeTZDtype) or ptypes.is_datetime64_dtype(dtype):
        return series.map(lambda t: t.isoformat()).astype(str), None
    kind = ptypes.infer_dtype(series, skipna=False)
    if kind in ("string", "integer", "boolean"):
        return series.astype(str), None
    out = np.empty(len(series), dtype=object)
    for i, x in enumerate(series.to_numpy(dtype=object)):
        s = _one_id(x)
        if s is None:
            problem = ("non-integer number as an id (convert ids to text with .astype(str) if it "
                       "is meant):" if isinstance(x, (float, np.floating, decimal.Decimal))
                       else f"id of type {type(x).__name__}")
            rows = np.flatnonzero([_one_id(y) is None for y in series.to_numpy(dtype=object)])
            return series, BadCells(rows, problem, x)
        out[i] = s
    return pd.Series(out, index=series.index, dtype=object).astype(str), None


def _one_id(x: object) -> str | None:
    if isinstance(x, str):
        return x
    if isinstance(x, (bool, np.bool_)):
        return str(bool(x))
    if isinstance(x, (int, np.integer)):
        return str(int(x))
    if isinstance(x, (float, np.floating, decimal.Decimal)):
        if x != x or not float(x).is_integer() or abs(x) >= EXACT_INT:
            return None
        return str(int(x))
    if isinstance(x, bytes):
        try:
            return x.decode("utf-8")
        except UnicodeDecodeError:
            return None
    if isinstance(x, (_dt.datetime, _dt.date, _dt.time)):
        return x.isoformat()
    return None


# ----------------------------------------------------------------------------------- values

def float_values(series: pd.Series) -> tuple[np.ndarray, BadCells | None]:
    """The column as float64 values (NaN where bad), and its bad cells (None when all good).

    Missing cells come first in the report (``"missing value"``), then the others in row order.
    """
    dtype = series.dtype
    n = len(series)
    if isinstance(dtype, pd.CategoricalDtype):
        cats, bad = float_values(pd.Series(dtype.categories))
        codes = series.cat.codes.to_numpy()
        values = np.where(codes >= 0, cats[np.maximum(codes, 0)], np.nan)
        if (codes < 0).any():
            rows = np.flatnonzero(codes < 0)
            return values, BadCells(rows, "missing value", series.iloc[int(rows[0])])
        if bad is not None:
            rows = np.flatnonzero(np.isin(codes, bad.rows))
            return values, BadCells(rows, bad.problem, series.iloc[int(rows[0])])
        return values, None
    if (ptypes.is_datetime64_any_dtype(dtype) or ptypes.is_timedelta64_dtype(dtype)
            or isinstance(dtype, (pd.PeriodDtype, pd.IntervalDtype))
            or ptypes.is_complex_dtype(dtype)):
        return (np.full(n, np.nan),
                BadCells(np.arange(n), f"{dtype} value (not a score)", series.iloc[0] if n else None))
    na = series.isna().to_numpy(dtype=bool)
    if ptypes.is_bool_dtype(dtype):
        values = series.to_numpy(dtype=np.float64, na_value=np.nan)
    elif ptypes.is_integer_dtype(dtype):
        values = series.to_numpy(dtype=np.float64, na_value=np.nan)
        big = np.flatnonzero(~na & (np.abs(values) >= EXACT_INT))
        inexact = [int(i) for i in big if int(series.iloc[int(i)]) != int(values[i])]
        if inexact and not na.any():
            return values, BadCells(np.asarray(inexact), "integer value beyond 2**53 that "
                                    "float64 cannot hold exactly:", series.iloc[inexact[0]])
    elif ptypes.is_float_dtype(dtype):
        values = series.to_numpy(dtype=np.float64, na_value=np.nan)
    else:
        kind = ptypes.infer_dtype(series, skipna=True)
        if kind in ("datetime", "datetime64", "date", "time", "timedelta", "period", "interval",
                    "complex"):
            first = int(np.flatnonzero(~na)[0])
            return np.full(n, np.nan), BadCells(np.flatnonzero(~na), f"{kind} value (not a score)",
                                                series.iloc[first])
        objects = series.to_numpy(dtype=object)
        odd = [i for i, x in enumerate(objects) if not isinstance(
            x, (str, int, float, np.number, np.bool_, decimal.Decimal)) and not na[i]]
        if odd:
            first_odd = objects[odd[0]]
            problem = ("datetime value (not a score)" if isinstance(
                first_odd, (_dt.date, _dt.time, _dt.timedelta, np.datetime64, np.timedelta64))
                else "non-numeric value")
            return np.full(n, np.nan), BadCells(np.asarray(odd), problem, first_odd)
        numeric = pd.to_numeric(series, errors="coerce")
        values = numeric.to_numpy(dtype=np.float64, na_value=np.nan)
        if "integer" in kind:
            inexact = [i for i, x in enumerate(objects)
                       if isinstance(x, (int, np.integer)) and not isinstance(x, (bool, np.bool_))
                       and abs(int(x)) >= EXACT_INT and int(x) != int(values[i])]
            if inexact and not na.any():
                return values, BadCells(np.asarray(inexact), "integer value beyond 2**53 that "
                                        "float64 cannot hold exactly:", objects[inexact[0]])
        text = np.isnan(values) & ~na
        if text.any() and not na.any():
            rows = np.flatnonzero(text)
            return values, BadCells(rows, "non-numeric value", objects[int(rows[0])])
    if na.any():
        rows = np.flatnonzero(na)
        return values, BadCells(rows, "missing value", series.iloc[int(rows[0])])
    return values, None
