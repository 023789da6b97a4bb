"""PyTerrier per-query tables → per-query scores.

``pt.Experiment(..., perquery=True)`` returns a long table ``name, qid, measure, value``; saved
with ``.to_csv(path, index=False)`` (or written by ``pt.Experiment(..., save_dir=DIR)`` as
``DIR/perquery.csv``) it is read here. A leading unnamed index column (``to_csv`` without
``index=False``) is ignored.

Names: system = ``name``, item = ``qid`` (exact text), metric = ``measure`` (PyTerrier's
measure names, e.g. ``nDCG@10``, ``AP(rel=2)``), dataset = the ``dataset=`` argument, else the
file's name without suffix. Rows whose value is empty/NaN are the topics PyTerrier back-fills
for queries without relevance judgements ("should not contribute to averages"): dropped and
counted.
"""
from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pandas as pd

from ...errors import InputError
from ..files import open_text
from ._common import IR_UNIT_MEASURE, AdapterResult, Builder
from ._json import snippet

__all__ = ["COLUMNS", "FORMAT", "header_columns", "read"]

FORMAT = "pyterrier"
COLUMNS = ("name", "qid", "measure", "value")
EXPECTED = "a PyTerrier per-query CSV with columns name,qid,measure,value"


def header_columns(first_line: str) -> tuple[str, str] | None:
    """(separator, index prefix) when ``first_line`` is a PyTerrier per-query header."""
    for sep in (",", "\t"):
        cols = [c.strip().strip('"') for c in first_line.rstrip("\r\n").split(sep)]
        if tuple(cols) == COLUMNS:
            return sep, ""
        if len(cols) == 5 and tuple(cols[1:]) == COLUMNS and cols[0] in ("", "Unnamed: 0"):
            return sep, "index"
    return None


def read(path: str | Path, *, dataset: str | None = None) -> AdapterResult:
    """Read a PyTerrier per-query table; ``dataset`` names the test collection."""
    path = Path(path)
    with open_text(path, what="PyTerrier per-query table") as fh:
        first = fh.readline()
        found = header_columns(first)
        if found is None:
            raise InputError(f"{path}:1: header {snippet(first)}; expected {EXPECTED}")
        sep, index = found
        names = (["index"] if index else []) + list(COLUMNS)
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("error", pd.errors.ParserWarning)
                frame = pd.read_csv(fh, sep=sep, header=None, names=names, index_col=False,
                                    dtype={"name": str, "qid": str, "measure": str},
                                    keep_default_na=False,
                                    na_values={"value": ["", "NaN", "nan"]})
        except InputError:
            raise
        except (ValueError, pd.errors.ParserError) as exc:
            text = str(exc).strip().splitlines()
            raise InputError(f"{path}: cannot parse as {EXPECTED} "
                             f"({text[0][:200] if text else type(exc).__name__})") from None
    if index:
        frame = frame.iloc[:, 1:]
    frame.columns = list(COLUMNS)
    if frame.empty:
        raise InputError(f"{path}: no rows; expected {EXPECTED}")
    values = pd.to_numeric(frame["value"], errors="coerce")
    bad = values.isna() & frame["value"].notna()
    if bad.any():
        r = int(np.flatnonzero(bad.to_numpy())[0])
        raise InputError(f"{path}:{r + 2}: value {frame['value'].iloc[r]!r} is not a number; "
                         f"expected {EXPECTED}")
    infinite = np.isinf(values.to_numpy(dtype=np.float64))
    if infinite.any():
        r = int(np.flatnonzero(infinite)[0])
        raise InputError(f"{path}:{r + 2}: value {frame['value'].iloc[r]!r} is not finite")
    for col in ("name", "qid", "measure"):
        empty = (frame[col] == "").to_numpy()
        if empty.any():
            r = int(np.flatnonzero(empty)[0])
            raise InputError(f"{path}:{r + 2}: empty {col!r}; expected {EXPECTED}")
    missing = values.isna().to_numpy()
    b = Builder(FORMAT, path)
    if missing.any():
        b.note(f"{int(missing.sum())} row(s) with no value (queries without relevance "
               f"judgements, back-filled by PyTerrier as NaN) dropped")
    keep = ~missing
    name = dataset if dataset is not None else path.stem
    n = int(keep.sum())
    if n == 0:
        raise InputError(f"{path}: every value is empty; expected {EXPECTED}")
    b.rows.data.update({
        "dataset": [name] * n,
        "system": frame["name"].to_numpy()[keep].tolist(),
        "metric": frame["measure"].to_numpy()[keep].tolist(),
        "item": frame["qid"].to_numpy()[keep].tolist(),
        "value": values.to_numpy(dtype=np.float64)[keep].tolist(),
        "higher_is_better": [None] * n,
    })
    for measure in set(b.rows.data["metric"]):
        if IR_UNIT_MEASURE.match(str(measure)):
            b.bound(str(measure))  # nDCG, AP, P@k ... lie in [0, 1]
    return b.result()
