"""Reading per-item scores: one-value-per-line files and tidy tables.

Formats:
- one value per line (the Ranger format): line ``i`` (1-based) is item ``i``;
- tables (CSV, TSV, JSONL, Parquet) with an item-id column and a value column, or a whole tidy
  table with ``dataset, system, item, value[, metric, seed]`` columns.

Identifier columns are read as the exact strings written (``"01"`` stays ``"01"``, ``"NA"`` is
an id, not a missing value). A first line ``# ranger-eval:…`` (the signature that Ranger wrote
on its CSV outputs before they became plain CSV) is skipped. An empty or whitespace-only id
(dataset, system, metric, item, seed) is an error: it is never a legitimate id (see
:func:`check_ids`). Every error names the file, the line (Parquet files, which have no lines:
the 1-based row) and the offending text.
"""
from __future__ import annotations

import re
import warnings
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ..errors import InputError, RangerError, ScoresError
from ..scores import CLUSTER_NAME, DEFAULT_METRIC, Scores
from . import adapters
from .adapters._json import iter_jsonl, load_json
from .files import check_input_file, current_limits, open_text
from .logtree import read_log_tree, record

TABLE_SUFFIXES = {".csv": ",", ".tsv": "\t"}
#: Columns read as exact strings, never type-inferred.
ID_COLUMNS = ("dataset", "system", "metric", "item", "seed", "prompt", "sample", "cluster",
              "query_id", "run")
#: formats whose per-item fields can name an item's cluster (``cluster=``): a table's column,
#: an Inspect sample-metadata key, an lm-evaluation-harness ``doc`` field
CLUSTER_FORMATS = ("table", "inspect", "lm-eval")
SIGNATURE_PREFIX = "# ranger-eval:"
#: Text read as a missing value in the non-identifier columns of CSV/TSV tables.
NA_TEXT = ["", "NA", "NaN", "nan", "null", "None"]


# ---------------------------------------------------------------------------- score files
def read_values(path: str | Path) -> np.ndarray:
    """Read a one-value-per-line file (the Ranger format) as float64; line ``i`` is item ``i``.

    Blank lines at the end are ignored. Read as a stream of 1 MiB blocks under the decisions of
    :mod:`ranger_eval.io.files` (gzip, UTF-8, LF/CRLF, line length), each block converted at once;
    a block with a bad line is re-read line by line to name it.

    Parameters
    ----------
    path : str or Path
        The file (optionally gzip-compressed).

    Returns
    -------
    ndarray of float64

    Raises
    ------
    InputError
        An empty file, a blank line before the last value, a non-numeric line or a NaN/infinite
        value: the message names the file and line.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> from ranger_eval import read_values
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     path = pathlib.Path(tmp, "A.txt")
    ...     _ = path.write_text("0.5\\n1\\n0.25\\n")
    ...     values = read_values(path)
    >>> values.tolist()
    [0.5, 1.0, 0.25]
    """
    parts: list[np.ndarray] = []
    done = 0  # lines converted so far
    blank: list[int | None] = [None]  # first blank line not yet followed by a value
    with open_text(path, what="score file") as fh:
        tail = ""
        while True:
            chunk = fh.read(1 << 20)
            text = tail + chunk
            if not chunk:
                lines = [text] if text else []
                tail = ""
            else:
                cut = text.rfind("\n")
                lines, tail = (text[:cut].split("\n"), text[cut + 1:]) if cut >= 0 else ([], text)
            if lines:
                parts.append(_values_block(lines, done, fh.path, blank))
                done += len(lines)
            if not chunk:
                break
        values = np.concatenate(parts) if parts else np.empty(0)
        if not values.size:
            raise InputError(f"{fh.path}: empty file (expected one numeric value per line)")
    return values


def _values_block(lines: list[str], done: int, path: Path, blank: list[int | None]
                  ) -> np.ndarray:
    """The values of ``lines`` (file lines ``done + 1 ...``); ``blank[0]`` carries the first
    pending blank line across blocks."""
    try:
        if blank[0] is not None:
            raise ValueError
        values = np.array(lines, dtype=object).astype(np.float64)
    except ValueError:
        out: list[float] = []
        for number, line in enumerate(lines, start=done + 1):
            token = line.strip()
            if not token:
                if blank[0] is None:
                    blank[0] = number
                continue
            if blank[0] is not None:
                raise InputError(f"{path}:{blank[0]}: blank line (every line is one item's "
                                 f"value)") from None
            try:
                out.append(float(token))
            except ValueError:
                raise InputError(f"{path}:{number}: not a number: {line!r}") from None
        values = np.asarray(out, dtype=np.float64)
    bad = ~np.isfinite(values)
    if bad.any():
        r = int(np.flatnonzero(bad)[0])
        raise InputError(f"{path}:{done + r + 1}: non-finite value {lines[r].strip()!r}")
    return values


def read_table(path: str | Path, *, id_columns: Sequence[str] = ()) -> pd.DataFrame:
    """Any table (CSV/TSV/JSONL/Parquet, optionally gzip-compressed) as read for Ranger.

    The columns :data:`ID_COLUMNS` and ``id_columns`` are read as the exact strings written (an id
    ``007`` stays ``"007"``); Ranger's own ``# ranger-eval:`` signature line is skipped.

    Parameters
    ----------
    path : str or Path
        The table; its suffix decides the format.
    id_columns : sequence of str, default ()
        Further columns read as exact strings.

    Returns
    -------
    pandas.DataFrame

    Raises
    ------
    InputError
        An unknown suffix or a table that cannot be parsed: the message names the file.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> from ranger_eval.io.tables import read_table
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     path = pathlib.Path(tmp, "scores.csv")
    ...     _ = path.write_text("item,value\\n007,0.5\\n8,1\\n")
    ...     frame = read_table(path)
    >>> frame["item"].tolist(), frame["value"].tolist()
    (['007', '8'], [0.5, 1.0])
    """
    return _read_frame(Path(path), tuple(id_columns))


def _table_suffix(path: Path) -> str:
    suffixes = [s.lower() for s in path.suffixes]
    if suffixes and suffixes[-1] == ".gz":
        suffixes = suffixes[:-1]
    return suffixes[-1] if suffixes else ""


def _read_frame(path: Path, extra_ids: tuple[str, ...] = ()) -> pd.DataFrame:
    suffix = _table_suffix(path)
    id_names = ID_COLUMNS + extra_ids
    check_input_file(path, what="table")
    try:
        if suffix in TABLE_SUFFIXES:
            return _read_delimited(path, TABLE_SUFFIXES[suffix], id_names)
        if suffix in (".jsonl", ".ndjson"):
            return _read_jsonl(path, id_names)
        if suffix == ".json":
            frame = _read_json_records(path, id_names)
            if frame is not None:
                return frame
        if suffix == ".parquet":
            return _read_parquet(path, id_names)
    except RangerError:
        raise
    except (ValueError, OSError, RecursionError) as exc:
        text = str(exc).strip().splitlines()
        raise InputError(f"{path}: cannot parse as {suffix[1:]} table "
                         f"({text[0][:200] if text else type(exc).__name__})") from None
    if suffix == ".txt":
        raise InputError(
            f"{path}: unknown file type '.txt' for a table of scores (tables are .csv, .tsv, "
            f".json, .jsonl or .parquet; a .txt file holds one value per line, listed under a "
            f"system in an experiment YAML); for `ranger-eval trec` output, write it with "
            f"--format csv")
    raise InputError(
        f"{path}: unknown file type {suffix!r} (use .txt, .csv, .tsv, .json, .jsonl or .parquet, "
        f"optionally gzip-compressed as .csv.gz ...; evaluation logs — Inspect .eval/.json, "
        f"lm-eval, HELM … — are recognised by their content, and this file is none: see "
        f"docs/adapters.md)"
    )


def _read_delimited(path: Path, sep: str, id_names: tuple[str, ...]) -> pd.DataFrame:
    import csv

    with open_text(path, what="table") as fh:
        first = fh.readline()
        skip = int(first.startswith(SIGNATURE_PREFIX))
        header = fh.readline() if skip else first
        if not header.strip():
            raise InputError(f"{path}:{1 + skip}: no header line (expected column names)")
        columns = next(csv.reader([header], delimiter=sep))
        dups = sorted({c for c in columns if columns.count(c) > 1})
        if dups:
            raise InputError(f"{path}:{1 + skip}: column {dups[0]!r} appears twice in the header")
        ids = [c for c in columns if c in id_names]
        with warnings.catch_warnings():
            warnings.simplefilter("error", pd.errors.ParserWarning)
            try:
                frame = pd.read_csv(
                    fh, sep=sep, header=None, names=columns, index_col=False,
                    dtype=dict.fromkeys(ids, str), keep_default_na=False,
                    na_values={c: NA_TEXT for c in columns if c not in ids},
                )
            except (pd.errors.ParserError, pd.errors.ParserWarning) as exc:
                # pandas counts lines from where it started reading (after the header)
                m = re.search(r"Expected (\d+) fields in line (\d+), saw (\d+)", str(exc))
                quote = re.search(r"EOF inside string starting at row (\d+)", str(exc))
                if quote is not None:  # rows count from 0 after the header
                    raise InputError(
                        f"{path}:{int(quote.group(1)) + 2 + skip}: a quote (\") opened in this "
                        f"row is never closed: the rest of the file was read as one field "
                        f"(check the quoting)") from None
                if m is None and isinstance(exc, pd.errors.ParserWarning):
                    raise _wider_row_error(path, sep, skip, len(columns)) from None
                if m is None:
                    raise
                line = int(m.group(2)) + 1 + skip
                raise InputError(f"{path}:{line}: {m.group(3)} fields where the header "
                                 f"has {m.group(1)} (check the separator and quoting)") from None
    frame.attrs["first_line"] = 2 + skip
    return frame


def _wider_row_error(path: Path, sep: str, skip: int, width: int) -> InputError:
    """The error for a delimited file whose rows have more fields than its header (pandas only
    warns, "loss of data with index_col=False", and would drop the extra fields): it names the
    first such row, its line and its text, found again with :mod:`csv` (same quoting rules)."""
    import csv

    with open_text(path, what="table") as fh:
        for _ in range(1 + skip):  # the signature line and the header
            fh.readline()
        reader = csv.reader(fh, delimiter=sep)
        for row in reader:
            if len(row) > width:
                line = reader.line_num + 1 + skip
                text = sep.join(row)
                return InputError(
                    f"{path}:{line}: {len(row)} fields where the header has {width} "
                    f"(row {text[:80]!r}; check the separator and quoting)")
    return InputError(f"{path}:{1 + skip}: the rows have more fields than the header's {width} "
                      f"(check the separator and quoting)")


def _read_jsonl(path: Path, id_names: tuple[str, ...]) -> pd.DataFrame:
    rows: list[dict[str, Any]] = []
    lines: list[int] = []
    for number, obj in iter_jsonl(path, expected="a JSON Lines table"):
        if not isinstance(obj, dict):
            raise InputError(f"{path}:{number}: a JSON {type(obj).__name__}, not an object; "
                             f"expected a JSON Lines table (one object per line)")
        rows.append(_ids_as_text(obj, id_names, f"{path}:{number}"))
        lines.append(number)
    if not rows:
        return pd.DataFrame()
    frame = _records_frame(rows, id_names)
    frame.attrs["lines"] = lines
    return frame


def _ids_as_text(obj: dict[str, Any], id_names: tuple[str, ...], where: str) -> dict[str, Any]:
    """``obj`` (one row of a JSON table) with its identifiers as the text written for them."""
    for col in id_names:
        v = obj.get(col)
        if col in obj and not isinstance(v, str) and v is not None:
            if isinstance(v, (dict, list)):
                raise InputError(f"{where}: {col!r} is a JSON {type(v).__name__}; "
                                 f"an identifier must be a string or a number")
            obj[col] = str(v)
    return obj


def _records_frame(rows: list[dict[str, Any]], id_names: tuple[str, ...]) -> pd.DataFrame:
    frame = pd.DataFrame.from_records(rows)
    for col in frame.columns:
        if col in id_names:
            frame[col] = frame[col].astype(object)
    return frame


def _read_json_records(path: Path, id_names: tuple[str, ...]) -> pd.DataFrame | None:
    """A JSON array of flat objects, one a row (``ranger-eval trec --format json``); errors
    name the (1-based) row, as for Parquet. ``None`` when the file holds no array (then it is
    no table: an unknown file type, or a log no adapter knows)."""
    expected = "a JSON table (an array of objects, one a row, as `ranger-eval trec --format json`)"
    records = load_json(path, expected=expected)
    if not isinstance(records, list):
        return None
    for row, obj in enumerate(records, start=1):
        if not isinstance(obj, dict):
            raise InputError(f"{path}: row {row}: a JSON {type(obj).__name__}, not an object; "
                             f"expected {expected}")
        _ids_as_text(obj, id_names, f"{path}: row {row}")
    frame = _records_frame(records, id_names) if records else pd.DataFrame()
    frame.attrs["row_numbers"] = True
    return frame


def _read_parquet(path: Path, id_names: tuple[str, ...]) -> pd.DataFrame:
    import pyarrow.parquet as pq

    lim = current_limits()
    meta = pq.ParquetFile(path).metadata
    size = sum(meta.row_group(i).total_byte_size for i in range(meta.num_row_groups))
    stored = max(1, path.stat().st_size)
    if size > lim.max_decompressed_bytes or (size > lim.ratio_after_bytes
                                             and size > lim.max_ratio * stored):
        raise InputError(
            f"{path}: its {meta.num_rows} rows decompress to {size} bytes from {stored} (limits: "
            f"{lim.max_decompressed_bytes} bytes, ratio {lim.max_ratio:g}; set "
            f"RANGER_EVAL_MAX_DECOMPRESSED_BYTES / RANGER_EVAL_MAX_RATIO to raise them)")
    frame = pd.read_parquet(path)
    for col in frame.columns:
        if col in id_names and frame[col].dtype != object:
            column = frame[col]
            if isinstance(column.dtype, pd.StringDtype):
                continue  # Arrow strings are the exact strings already (Scores keeps them)
            if pd.api.types.is_string_dtype(column.dtype):  # other strings: converted in C
                frame[col] = column.astype(object).where(column.notna(), None)
            else:  # numbers stored as ids: the text Python writes for them
                frame[col] = [v if v is None or isinstance(v, str) else str(v) for v in column]
    frame.attrs["row_numbers"] = True  # no lines: errors name the (1-based) row
    return frame


def _lines(frame: pd.DataFrame, rows: np.ndarray) -> list[int]:
    """File line numbers of 0-based ``rows`` (kept by the readers in ``frame.attrs``)."""
    numbers = frame.attrs.get("lines")
    if numbers is not None:
        return [int(numbers[r]) for r in rows]
    first = int(frame.attrs.get("first_line", 1))
    return [int(r) + first for r in rows]


def row_location(frame: pd.DataFrame, path: Path, row: int) -> str:
    """Where 0-based ``row`` of ``frame`` is in ``path``: ``path:LINE`` as an editor numbers the
    lines of a text table, ``path, row N`` (1-based) for a Parquet file, which has no lines."""
    if frame.attrs.get("row_numbers"):
        return f"{path}, row {row + 1}"
    return f"{path}:{_lines(frame, np.array([row]))[0]}"


def check_ids(frame: pd.DataFrame, path: Path, columns: Sequence[str]) -> None:
    """An empty, whitespace-only or missing identifier in ``columns`` is an :class:`InputError`
    naming the file, the line (Parquet: the row) and the column.

    An empty id is never legitimate: it cannot be told apart from a forgotten field, it prints
    as nothing in every table and figure, and items are matched by id, so a blank item would be
    paired with another system's blank item (or reported only as an id ``''`` that differs).
    Ids are otherwise kept exactly as written (``" a"`` and ``"a"`` are different ids).
    """
    for col in columns:
        if col not in frame.columns:
            continue
        ids = frame[col]
        if isinstance(ids.dtype, pd.StringDtype) or (
                ids.dtype == object
                and pd.api.types.infer_dtype(ids.to_numpy(), skipna=True) == "string"):
            # text ids (what every reader gives; Parquet's as Arrow strings): the test on the
            # distinct ids only (a system or item id repeats on every dataset), without the
            # .str accessor's per-element overhead (4M ids: ~1 s instead of ~5 s; most of that
            # second saved by the distinct)
            blank = ids.isna().to_numpy(dtype=bool).copy()
            text = ids[~blank] if blank.any() else ids
            bad = [s for s in text.unique().tolist() if not s or s.isspace()]
            if bad:
                blank[~blank] = text.isin(bad).to_numpy(dtype=bool)
        else:
            text = ids.astype(str) if ids.dtype != object else ids
            blank = ids.isna().to_numpy() | (text.str.len() == 0).to_numpy()
            blank |= text.str.isspace().fillna(False).to_numpy(dtype=bool)
        if blank.any():
            rows = np.flatnonzero(blank)
            r = int(rows[0])
            shown = "missing" if pd.isna(ids.iloc[r]) else "empty" if ids.iloc[r] == "" \
                else f"blank ({ids.iloc[r]!r})"
            raise InputError(
                f"{row_location(frame, path, r)}: {shown} {col!r} (every row needs a non-blank "
                f"{col} id"
                + (f"; {rows.size} such rows" if rows.size > 1 else "") + ")")


def _raise_duplicates(frame: pd.DataFrame, path: Path, key: list[str]) -> None:
    """Raise the :class:`InputError` of rows of ``frame`` that repeat a ``key``, naming the file
    and the lines (Parquet: rows) of the first repeated key (at most 10) and the count."""
    dup = frame.duplicated(key, keep=False).to_numpy()
    rows = np.flatnonzero(dup)
    if not rows.size:
        return
    first = frame[key].iloc[int(rows[0])]
    same = rows[(frame[key].iloc[rows] == first).all(axis=1).to_numpy()][:10]
    by_row = bool(frame.attrs.get("row_numbers"))
    places = [int(r) + 1 for r in same] if by_row else _lines(frame, same)
    where = f"{'rows' if by_row else 'lines'} {', '.join(map(str, places))}"
    shown = "/".join(map(str, first))
    at = row_location(frame, path, int(same[0]))
    if len(key) == 1:
        raise InputError(f"{at}: duplicate {key[0]} id {shown!r} ({where})")
    raise InputError(f"{at}: {rows.size} rows share a key ({', '.join(key)}): {shown} on {where}")


def _check_frame_values(frame: pd.DataFrame, path: Path, value_column: str) -> None:
    """Name the first bad value with its line."""
    col = frame[value_column]
    numeric = pd.to_numeric(col, errors="coerce")
    bad = numeric.isna().to_numpy() | ~np.isfinite(numeric.to_numpy(dtype=np.float64))
    if bad.any():
        r = int(np.flatnonzero(bad)[0])
        line = _lines(frame, np.array([r]))[0]
        shown = col.iloc[r]
        if not isinstance(shown, str):  # read as NaN/inf: show the text as written
            shown = _field_text(path, line, frame, value_column)
        what = f"empty {value_column!r} field" if shown == "" else \
            f"bad {value_column!r} value {shown!r}"
        raise InputError(f"{row_location(frame, path, r)}: {what} (must be a finite number; "
                         f"{int(bad.sum())} bad value(s) in all)")


def _field_text(path: Path, line: int, frame: pd.DataFrame, column: str) -> object:
    """The text of ``column`` on file line ``line`` of a CSV/TSV table (error messages only)."""
    import csv

    sep = TABLE_SUFFIXES.get(_table_suffix(path))
    if sep is None:
        return frame[column].iloc[0]
    with open_text(path, what="table") as fh:
        for number, text in enumerate(fh, start=1):
            if number == line:
                fields = next(csv.reader([text.rstrip("\r\n")], delimiter=sep), [])
                position = list(frame.columns).index(column)
                return fields[position] if position < len(fields) else ""
    return None


def read_item_scores(
    path: str | Path, *, item_column: str = "item", value_column: str = "value"
) -> pd.Series:
    """Per-item values of one system on one dataset, indexed by item id (as strings).

    ``.txt`` files are one value per line (ids ``"1", "2", …``); tables need ``item_column`` and
    ``value_column`` (the item column is read as the exact strings written).

    Parameters
    ----------
    path : str or Path
        A one-value-per-line file or a table.
    item_column : str, default "item"
        The table's column of item ids.
    value_column : str, default "value"
        The table's column of scores.

    Returns
    -------
    pandas.Series
        Float values indexed by item id (index name ``item``).

    Raises
    ------
    InputError
        A missing column, an empty table, a non-numeric value or duplicate item ids (each named
        with its file and line).

    Examples
    --------
    >>> import pathlib, tempfile
    >>> from ranger_eval import read_item_scores
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     path = pathlib.Path(tmp, "A.csv")
    ...     _ = path.write_text("item,value\\nq1,0.5\\nq2,1\\n")
    ...     values = read_item_scores(path)
    >>> values.to_dict()
    {'q1': 0.5, 'q2': 1.0}
    """
    path = Path(path)
    if _table_suffix(path) in (".txt", ".dat", ".scores", ""):
        vals = read_values(path)
        return pd.Series(vals, index=pd.Index(np.arange(1, vals.size + 1).astype(str), name="item"))
    frame = _read_frame(path, (item_column,))
    for col in (item_column, value_column):
        if col not in frame.columns:
            raise InputError(
                f"{path}: no column {col!r}; columns are {', '.join(map(str, frame.columns))}"
            )
    if frame.empty:
        raise InputError(f"{path}: empty table")
    _check_frame_values(frame, path, value_column)
    check_ids(frame, path, (item_column,))
    items = frame[item_column].astype(str)
    dup = items.duplicated(keep=False)
    if dup.any():
        _raise_duplicates(frame, path, [item_column])
    return pd.Series(
        pd.to_numeric(frame[value_column]).to_numpy(dtype=np.float64),
        index=pd.Index(items.to_numpy(), name="item"),
    )


TREC_TABLE = ("run", "measure", "query_id", "value")
#: The columns that make a table one of per-item scores (with ``metric``, ``seed`` … optional).
ITEM_TABLE = ("dataset", "system", "item", "value")


def is_item_table(columns: Iterable[object]) -> bool:
    """Whether a table with these columns holds per-item scores that :func:`read_scores` reads:
    the tidy layout (:data:`ITEM_TABLE` columns, in any order, among others) or the table of
    ``ranger-eval trec -q --format csv|tsv|json`` (:data:`TREC_TABLE`). Every command decides
    with this one test, so each accepts the tables the others write."""
    cols = tuple(map(str, columns))
    return cols == TREC_TABLE or set(ITEM_TABLE) <= set(cols)


def read_scores(path: str | Path | Sequence[str | Path], *, format: str | None = None,
                system: str | None = None,
                system_from: str | Sequence[str] | None = None,
                cluster: str | None = None) -> Scores:
    """Per-item scores from a file or folder, or several of them, concatenated in the order given.

    Inputs:

    * a tidy table (CSV/TSV/JSONL/Parquet) with ``dataset, system, item, value[, metric, seed]``;
    * the ``--format csv/tsv/json`` output of ``ranger-eval trec`` (``run, measure, query_id,
      value``; the ``all`` rows are left out, the dataset is the file's stem);
    * the output of an evaluation tool (lm-evaluation-harness, Inspect AI, HELM, PyTerrier,
      trec_eval -q, tsml), recognised by its content (or a ``.eval`` extension) or named by
      ``format`` (:mod:`ranger_eval.io.adapters`);
    * a folder of those (e.g. an Inspect log folder): every file or run folder an adapter reads
      and every table in it, in name order; the other entries are skipped with a warning that
      names each and says why.

    Parameters
    ----------
    path : str, Path or sequence of them
        The inputs (e.g. the files a config's ``scores: runs/*.jsonl`` pattern matched).
    format : str, optional
        The adapter to read evaluation logs with (default: recognised by content).
    system : str, optional
        The (one) system of every input.
    system_from : str or sequence of str, optional
        Name the systems of evaluation logs after other fields than the model (``run_id``,
        ``task_args.<key>``, ``file`` ...; :data:`ranger_eval.io.adapters.SYSTEM_SOURCES`), so
        that several logs of one model can be compared.
    cluster : str, optional
        The field that holds each item's cluster (``--cluster``, YAML ``cluster:``;
        :data:`CLUSTER_FORMATS`): a table's column (read as exact strings), an Inspect
        sample-metadata key or an lm-evaluation-harness ``doc`` field; it becomes the ``cluster``
        column of the scores. A table with a ``cluster`` column has clusters without it.

    Returns
    -------
    Scores

    Raises
    ------
    InputError
        No input; a path given twice; a row (dataset, system, metric, item, seed) found in two
        inputs (the message names both files and the ``system_from`` that tells them apart); an
        input without the ``cluster`` field (named with the file and line, or sample).

    Examples
    --------
    >>> import pathlib, tempfile
    >>> from ranger_eval import read_scores
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     path = pathlib.Path(tmp, "scores.csv")
    ...     _ = path.write_text("dataset,system,item,value\\n"
    ...                         "qa,A,q1,1\\nqa,A,q2,0\\nqa,B,q1,0\\nqa,B,q2,0\\n")
    ...     scores = read_scores(path)
    >>> scores.systems
    ('A', 'B')
    """
    if cluster is not None and (not isinstance(cluster, str) or not cluster.strip()):
        raise InputError(f"cluster: {cluster!r} is not a field name; name the column, "
                         "metadata key or doc field that holds each item's cluster")
    opts = {} if cluster is None else {"cluster": cluster}

    if not isinstance(path, (str, Path)):
        paths = [Path(p) for p in path]
        if not paths:
            raise InputError("no score files given")
        seen: set[Path] = set()
        for p in paths:
            key = p.resolve()
            if key in seen:
                raise InputError(f"{p}: given twice as a score file")
            seen.add(key)
        if len(paths) == 1:
            return read_scores(paths[0], format=format, system=system, system_from=system_from,
                               cluster=cluster)
        frames = [read_scores(p, format=format, system=system, system_from=system_from,
                              cluster=cluster).raw_frame for p in paths]
        return adapters.concat_inputs(frames, paths,
                                      source=f"{len(paths)} files ({paths[0]}, ...)")
    sources = adapters.check_system_from(system_from)
    path = Path(path)
    if format not in (None, "auto", "table"):
        return adapters.read_adapter(path, format, system=system, system_from=sources, **opts)
    if format is None or format == "auto":
        detected = adapters.input_format(path)
        if path.is_dir() and detected != "helm":  # a tree of logs (lm-eval's output too)
            return _read_folder(path, format, system, sources, cluster)
        if detected is not None:
            return _read_runs(path, detected, system, sources, cluster)
    if any(s not in ("model", "file") for s in sources):
        raise InputError(f"{path}: system_from {', '.join(sources)}: a table has no log "
                         f"fields (its systems are its 'system' column); use file, or system=")
    scores = _read_table_scores(path, cluster)
    if system is not None or "file" in sources:
        name = system if system is not None else _table_stem(path)
        present = scores.systems
        if len(present) > 1:
            raise InputError(f"{path}: holds {len(present)} systems ({', '.join(present[:5])})"
                             f"; one name ({name!r}) cannot stand for them all")
        scores = Scores(scores.raw_frame.assign(system=name), source=str(path))
    return scores


def _read_runs(path: Path, fmt: str, system: str | None, sources: Sequence[str],
               cluster: str | None = None) -> Scores:
    """One tool output; an lm-eval folder of several runs (results files) is read run by run
    when their systems are named (``system``/``system_from``), or when two runs hold one key
    (then the error names both results files and the ``system_from`` that tells them apart)."""
    runs = adapters.run_inputs(path, fmt)
    named = system is not None or any(s != "model" for s in sources)
    opts = {} if cluster is None else {"cluster": cluster}
    if len(runs) > 1 and named:
        scores = read_scores(runs, format=fmt, system=system, system_from=sources,
                             cluster=cluster)
        adapters.check_doc_hashes(scores.frame, str(path))
        return scores
    try:
        return adapters.read_adapter(path, fmt, system=system, system_from=sources, **opts)
    except InputError as exc:
        if len(runs) < 2 or "share a key" not in str(exc):
            raise
        frames = [adapters.read_adapter(r, fmt).raw_frame for r in runs]
        shared = adapters.shared_key_error(frames, runs)
        raise (shared or exc) from None


def _read_folder(folder: Path, format: str | None, system: str | None,
                 system_from: Sequence[str], cluster: str | None = None) -> Scores:
    """Every input of a folder tree of logs (:func:`ranger_eval.io.logtree.read_log_tree`);
    what is skipped is named in a warning, never dropped silently, and the tree is handed to
    the caller's :func:`~ranger_eval.io.logtree.recording_log_trees` block."""
    table = (*TABLE_SUFFIXES, ".jsonl", ".ndjson", ".parquet")
    tree = read_log_tree(folder, format=format, system=system, system_from=system_from,
                         cluster=cluster, table_suffixes=table, read_table=read_scores)
    if tree.skipped:
        warnings.warn(tree.warning_text(), UserWarning, stacklevel=3)
    record(tree)
    return tree.scores


def _read_table_scores(path: Path, cluster: str | None = None) -> Scores:
    """A tidy scores table or ``ranger-eval trec`` output (see :func:`read_scores`); with
    ``cluster``, its column of that name (read as exact strings) is the ``cluster`` column."""
    frame = _read_frame(path, () if cluster is None else (cluster,))
    if cluster is not None and cluster != "cluster":
        if cluster not in frame.columns:
            raise InputError(f"{path}: no column {cluster!r} to read the clusters from "
                             f"(cluster: {cluster}); columns: "
                             f"{', '.join(map(str, frame.columns))}")
        if "cluster" in frame.columns:
            raise InputError(f"{path}: has a 'cluster' column and cluster: {cluster} names "
                             "another column; rename one of them")
        frame = frame.rename(columns={cluster: "cluster"})
        frame.attrs[CLUSTER_NAME] = cluster  # the signature's cluster:<field>
    elif cluster is not None and "cluster" not in frame.columns:
        raise InputError(f"{path}: no column 'cluster' to read the clusters from; columns: "
                         f"{', '.join(map(str, frame.columns))}")
    # name the file line of a bad value or id (Scores only knows rows)
    if "value" in frame.columns:
        _check_frame_values(frame, path, "value")
    check_ids(frame, path, ID_COLUMNS)
    trec = tuple(frame.columns) == TREC_TABLE
    if not trec and "item" not in frame.columns and len(frame.columns):
        raise InputError(
            f"{path}: no 'item' column (have: {', '.join(map(str, frame.columns))}); per-item "
            f"scores need columns {', '.join(ITEM_TABLE)} (or the table of `ranger-eval trec "
            f"-q`); a table of one value per dataset and system (dataset, system, value, or "
            f"wide: datasets × systems) is an input of `ranger-eval rank`")
    if trec:
        frame = _without_trec_means(frame, path).rename(
            columns={"run": "system", "measure": "metric", "query_id": "item"})
        frame.insert(0, "dataset", _table_stem(path))
    try:
        return Scores(frame, source=str(path))
    except ScoresError as exc:
        if "share a key" in str(exc) and not trec:  # name the lines (paid on error only)
            if "metric" not in frame.columns:  # the key as Scores shows it
                frame = frame.assign(metric=DEFAULT_METRIC)
            _raise_duplicates(frame, path, [c for c in ("dataset", "system", "metric", "item",
                                                        "seed", "prompt", "sample")
                                                       if c in frame.columns])
        raise InputError(str(exc) if str(path) in str(exc) else f"{path}: {exc}") from None


def _without_trec_means(frame: pd.DataFrame, path: Path) -> pd.DataFrame:
    """A ``ranger-eval trec`` table without its ``all`` rows (trec_eval's means over the queries,
    not items), counted in a warning."""
    means = (frame["query_id"] == "all").to_numpy()
    n = int(means.sum())
    if not n:
        return frame
    if n == len(frame):
        raise InputError(f"{path}: only 'all' rows (trec_eval's means over the queries), no "
                         "per-query values; write the table with `ranger-eval trec -q`")
    warnings.warn(f"{path}: left out {n} 'all' row(s) (trec_eval's means over the queries); "
                  f"the analysis uses the {len(frame) - n} per-query row(s)", UserWarning,
                  stacklevel=3)
    return frame[~means]


def _table_stem(path: Path) -> str:
    """``run`` for ``run.csv`` and ``run.csv.gz``."""
    name = path.name
    if name.lower().endswith(".gz"):
        name = name[:-3]
    return Path(name).stem
