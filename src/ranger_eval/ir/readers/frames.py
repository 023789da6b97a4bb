"""Runs and qrels given as pandas DataFrames (``query_id``/``doc_id``/``score`` or
``relevance``) turned into the readers' columns, with errors naming the row."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from ..errors import TrecFormatError

_ID_NAMES = {"qid": ("query_id", "qid"), "docid": ("doc_id", "docid")}
_VALUE_NAMES = {"run": ("score",), "qrels": ("relevance", "label", "rel")}


def _pick(df: pd.DataFrame, names: tuple[str, ...], kind: str) -> str:
    for n in names:
        if n in df.columns:
            return n
    need = ", ".join(n[0] for n in (_ID_NAMES["qid"], _ID_NAMES["docid"], _VALUE_NAMES[kind]))
    raise TrecFormatError(f"<DataFrame>: a {kind} table needs columns {need}; "
                          f"found {list(map(str, df.columns))}")


def _id_column(series: pd.Series, name: str) -> pa.Array:
    if series.isna().any():
        i = int(np.flatnonzero(series.isna().to_numpy())[0])
        raise TrecFormatError(f"<DataFrame> row {i}: missing {name}")
    arr = pa.array(series.astype(str).to_numpy(dtype=object), type=pa.string())
    empty = np.flatnonzero(pc.equal(pc.binary_length(arr), 0).to_numpy(zero_copy_only=False))
    if len(empty):
        raise TrecFormatError(f"<DataFrame> row {int(empty[0])}: empty {name}")
    return arr


def _show(x: object) -> str:
    return repr(x.item() if isinstance(x, np.generic) else x)


def _frame_columns(df: pd.DataFrame, kind: str) -> tuple[str, pa.Array, pa.Array, np.ndarray]:
    if not isinstance(df, pd.DataFrame):
        raise TrecFormatError(f"expected a path or a pandas DataFrame, got {type(df).__name__}")
    if len(df) == 0:
        raise TrecFormatError(f"<DataFrame>: {kind} table is empty")
    q = _pick(df, _ID_NAMES["qid"], kind)
    d = _pick(df, _ID_NAMES["docid"], kind)
    v = _pick(df, _VALUE_NAMES[kind], kind)
    qid = _id_column(df[q], "query id")
    docid = _id_column(df[d], "document id")
    raw = df[v]
    num = pd.to_numeric(raw, errors="coerce")
    bad = np.flatnonzero(num.isna().to_numpy())
    what = "relevance label" if kind == "qrels" else "score"
    if kind == "qrels":
        vals = num.to_numpy(dtype=np.float64, na_value=np.nan)
        nonint = np.flatnonzero(~np.isfinite(vals) | (vals != np.round(vals)))
        if len(nonint):
            i = int(nonint[0])
            raise TrecFormatError(f"<DataFrame> row {i}: {what} is not an integer: "
                                  f"{_show(raw.iloc[i])}")
        values = vals.astype(np.int64)
    else:
        if len(bad):
            i = int(bad[0])
            raise TrecFormatError(f"<DataFrame> row {i}: {what} is not a number: "
                                  f"{_show(raw.iloc[i])}")
        values = num.to_numpy(dtype=np.float64)
    return "<DataFrame>", qid, docid, values
