"""Reading per-item scores: one-value-per-line files and tidy tables.

Formats:
- one value per line (the Ranger format): line ``i`` (1-based) is item ``i``;
- tables (CSV, TSV, JSONL, Parquet) with an item-id column and a value column, or a whole tidy
  table with ``dataset, system, item, value[, metric, seed]`` columns.

Identifier columns are read as the exact strings written (``"01"`` stays ``"01"``, ``"NA"`` is
an id, not a missing value). A first line ``# ranger-eval:…`` (the signature Ranger writes on its
own CSV outputs) is skipped. Every error names the file, the line and the offending text.
"""
from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd

from ..errors import InputError, ScoresError
from ..scores import Scores
from .files import check_input_file

TABLE_SUFFIXES = {".csv": ",", ".tsv": "\t"}
#: Columns read as exact strings, never type-inferred.
ID_COLUMNS = ("dataset", "system", "metric", "item", "seed", "query_id", "run")
SIGNATURE_PREFIX = "# ranger-eval:"


def _signature_lines(path: Path) -> int:
    """1 when the file starts with Ranger's ``# ranger-eval:`` signature line, else 0."""
    try:
        with path.open("rb") as fh:
            head = fh.read(len(SIGNATURE_PREFIX) + 3)
    except OSError:
        return 0
    return int(head.lstrip(b"\xef\xbb\xbf").startswith(SIGNATURE_PREFIX.encode()))


# ---------------------------------------------------------------------------- score files
def read_values(path: str | Path) -> np.ndarray:
    """Read a one-value-per-line file (the Ranger format) as float64; line ``i`` is item ``i``.

    Blank lines at the end are ignored; a blank line before the last value, a non-numeric line
    or a NaN/infinite value is an error naming the file and line.
    """
    path = check_input_file(path, what="score file")
    try:
        text = path.read_text(encoding="utf-8-sig")
    except FileNotFoundError:
        raise InputError(f"{path}: file not found") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"{path}: cannot read ({exc})") from None
    lines = text.splitlines()
    while lines and not lines[-1].strip():
        lines.pop()
    if not lines:
        raise InputError(f"{path}: empty file (expected one numeric value per line)")
    values = np.empty(len(lines), dtype=np.float64)
    for i, line in enumerate(lines):
        token = line.strip()
        if not token:
            raise InputError(f"{path}:{i + 1}: blank line (every line is one item's value)")
        try:
            v = float(token)
        except ValueError:
            raise InputError(f"{path}:{i + 1}: not a number: {line!r}") from None
        if not math.isfinite(v):
            raise InputError(f"{path}:{i + 1}: non-finite value {line.strip()!r}")
        values[i] = v
    return values


def read_table(path: str | Path) -> pd.DataFrame:
    """Any table (CSV/TSV/JSONL/Parquet) as read for Ranger: ids as exact strings, Ranger's own
    ``# ranger-eval:`` signature line skipped. Errors name the file."""
    return _read_frame(Path(path))


def _read_frame(path: Path) -> pd.DataFrame:
    suffix = "".join(path.suffixes[-2:]) if path.suffix == ".gz" else path.suffix
    suffix = suffix.lower().removesuffix(".gz")
    check_input_file(path, what="table")
    try:
        if suffix in TABLE_SUFFIXES:
            skip = _signature_lines(path)
            header = pd.read_csv(path, sep=TABLE_SUFFIXES[suffix], nrows=0, skiprows=skip)
            ids = [c for c in header.columns if c in ID_COLUMNS]
            return pd.read_csv(
                path, sep=TABLE_SUFFIXES[suffix], skiprows=skip, dtype=dict.fromkeys(ids, str),
                keep_default_na=False, na_values={c: ["", "NA", "NaN", "nan", "null", "None"]
                                                  for c in header.columns if c not in ids},
            )
        if suffix in (".jsonl", ".ndjson"):
            frame = pd.read_json(path, lines=True, dtype=False)
            for col in (c for c in frame.columns if c in ID_COLUMNS):
                frame[col] = [v if isinstance(v, str) or v is None else str(v) for v in frame[col]]
            return frame
        if suffix == ".parquet":
            return pd.read_parquet(path)
    except (ValueError, OSError) as exc:
        raise InputError(f"{path}: cannot parse as {suffix[1:]} table ({exc})") from None
    raise InputError(
        f"{path}: unknown file type {suffix!r} (use .txt, .csv, .tsv, .jsonl or .parquet)"
    )


def _check_frame_values(frame: pd.DataFrame, path: Path, value_column: str) -> None:
    """Name the first bad value with its line (header is line 1 for CSV/TSV, 0-based row+1 otherwise)."""
    header = 2 if path.suffix.lower() in TABLE_SUFFIXES else 1
    col = frame[value_column]
    numeric = pd.to_numeric(col, errors="coerce")
    bad = numeric.isna().to_numpy() | ~np.isfinite(numeric.to_numpy(dtype=np.float64))
    if bad.any():
        r = int(np.flatnonzero(bad)[0])
        raise InputError(
            f"{path}:{r + header}: bad {value_column!r} value {col.iloc[r]!r} (must be a finite number)"
        )


def read_item_scores(
    path: str | Path, *, item_column: str = "item", value_column: str = "value"
) -> pd.Series:
    """Per-item values of one system on one dataset, indexed by item id (as strings).

    ``.txt`` files are one value per line (ids ``"1", "2", …``); tables need ``item_column`` and
    ``value_column``. Duplicate item ids are an error.
    """
    path = Path(path)
    if path.suffix.lower() in (".txt", ".dat", ".scores", ""):
        vals = read_values(path)
        return pd.Series(vals, index=pd.Index(np.arange(1, vals.size + 1).astype(str), name="item"))
    frame = _read_frame(path)
    for col in (item_column, value_column):
        if col not in frame.columns:
            raise InputError(
                f"{path}: no column {col!r}; columns are {', '.join(map(str, frame.columns))}"
            )
    if frame.empty:
        raise InputError(f"{path}: empty table")
    _check_frame_values(frame, path, value_column)
    items = frame[item_column].astype(str)
    dup = items.duplicated(keep=False)
    if dup.any():
        header = 2 if path.suffix.lower() in TABLE_SUFFIXES else 1
        rows = np.flatnonzero(dup.to_numpy())[:10] + header
        raise InputError(
            f"{path}: duplicate item id {items[dup].iloc[0]!r} (lines {', '.join(map(str, rows))})"
        )
    return pd.Series(
        pd.to_numeric(frame[value_column]).to_numpy(dtype=np.float64),
        index=pd.Index(items.to_numpy(), name="item"),
    )


TREC_TABLE = ("run", "measure", "query_id", "value")


def read_scores(path: str | Path, format: str | None = None) -> Scores:
    """Per-item scores from a file or folder.

    * a tidy table (CSV/TSV/JSONL/Parquet) with ``dataset, system, item, value[, metric, seed]``;
    * the ``--format csv/tsv/json`` output of ``ranger-eval trec`` (``run, measure, query_id,
      value``; the ``all`` rows are left out, the dataset is the file's stem);
    * the output of an evaluation tool (lm-evaluation-harness, Inspect AI, HELM, PyTerrier,
      trec_eval -q, tsml), recognised by its content or named by ``format``
      (:mod:`ranger_eval.io.adapters`).
    """
    from . import adapters

    path = Path(path)
    if format not in (None, "auto", "table"):
        return adapters.read_adapter(path, format)
    if format is None or format == "auto":
        detected = adapters.detect(path)
        if detected is not None:
            return adapters.read_adapter(path, detected)
    frame = _read_frame(path)
    if tuple(frame.columns) == TREC_TABLE:
        frame = frame[frame["query_id"] != "all"].rename(
            columns={"run": "system", "measure": "metric", "query_id": "item"})
        frame.insert(0, "dataset", path.stem)
    try:
        return Scores(frame, source=str(path))
    except ScoresError as exc:
        raise InputError(str(exc)) from None
