"""The general path of the TREC readers: any whitespace, comments and blank lines, every error
with its file and line number; and :func:`_parse_file`, which tries the fast path first and falls
back to this one."""
from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ..errors import TrecFormatError
from .fast import _fast_parse_file, _layout_for
from .hashing import _as_codes
from .tables import _LAYOUTS, _QRELS, _RUN_EITHER, PathLike
from .text import (
    _check_bytes,
    _check_path,
    _LineTooLong,
    _long_line_at,
    _long_line_error,
    _Parsed,
    _read_bytes,
)


def _line_array(data: bytes) -> pa.LargeStringArray:
    """All lines of ``data`` (each with its trailing newline) as one Arrow array, zero-copy."""
    buf = np.frombuffer(data, dtype=np.uint8)
    nl = np.flatnonzero(buf == 10)
    ends = nl + 1
    if len(data) and data[-1:] != b"\n":
        ends = np.append(ends, len(data))
    offsets = np.empty(len(ends) + 1, dtype=np.int64)
    offsets[0] = 0
    offsets[1:] = ends
    return pa.LargeStringArray.from_buffers(len(ends), pa.py_buffer(offsets), pa.py_buffer(data))


def _first_invalid_utf8(data: bytes) -> tuple[int, str]:
    for i, raw in enumerate(data.split(b"\n")):
        try:
            raw.decode("utf-8")
        except UnicodeDecodeError:
            return i + 1, raw.decode("utf-8", "replace").rstrip("\r")
    return 0, ""  # pragma: no cover - only called after Arrow found invalid UTF-8


_LINES_PER_CHUNK = 1 << 19


def _general_parse(data: bytes, source: str, kind: str) -> _Parsed:
    """Split any whitespace-separated file; returns layout, string columns and line numbers.

    Lines are processed in chunks of 524,288 so that the split tokens never exist for the whole
    file at once; only the three needed fields are kept.
    """
    long = _long_line_at(data, 0, len(data))
    if long is not None:
        raise _LineTooLong(long)
    _check_bytes(data, source)
    lines = _line_array(data)
    try:
        lines.validate(full=True)
    except pa.ArrowInvalid:
        n, text = _first_invalid_utf8(data)
        raise TrecFormatError(f"{source}:{n}: not valid UTF-8 text: {text!r}") from None
    what = "qrels" if kind == "qrels" else "run"
    layout: str | None = None
    parts: dict[str, list[pa.Array]] = {"qid": [], "docid": [], "value": []}
    line_parts: list[np.ndarray] = []
    for first_line in range(0, len(lines), _LINES_PER_CHUNK):
        chunk = lines.slice(first_line, _LINES_PER_CHUNK)
        trimmed = pc.ascii_trim_whitespace(chunk)
        keep = pc.and_(pc.greater(pc.binary_length(trimmed), 0),
                       pc.invert(pc.starts_with(trimmed, "#")))
        rows = np.flatnonzero(keep.to_numpy(zero_copy_only=False))
        if len(rows) == 0:
            continue
        tokens = pc.ascii_split_whitespace(trimmed.take(pa.array(rows)))
        nfields = pc.list_value_length(tokens).to_numpy(zero_copy_only=False)
        line_no = rows.astype(np.int64) + first_line + 1

        def fail(j: int, expected: str, chunk: pa.Array = chunk, rows: np.ndarray = rows,
                 line_no: np.ndarray = line_no, nfields: np.ndarray = nfields) -> TrecFormatError:
            text = chunk[int(rows[j])].as_py().rstrip("\r\n")
            return TrecFormatError(f"{source}:{line_no[j]}: expected {expected}, found "
                                   f"{nfields[j]} field(s): {text!r}")

        if layout is None:
            layout = _layout_for(kind, int(nfields[0]))
            if layout is None:
                raise fail(0, _LAYOUTS[_QRELS][3] if kind == "qrels" else _RUN_EITHER)
        need, exact, idx, desc = _LAYOUTS[layout]
        bad = np.flatnonzero(nfields != need) if exact else np.flatnonzero(nfields < need)
        if len(bad):
            raise fail(int(bad[0]), desc)
        for k, i in idx.items():
            parts[k].append(pc.list_element(tokens, i))
        line_parts.append(line_no)
    if layout is None:
        raise TrecFormatError(f"{source}: {what} file is empty (no data lines)")
    cols = {k: pa.chunked_array(v) for k, v in parts.items()}
    return layout, cols, np.concatenate(line_parts)


def _first_bad(col: pa.Array, typ: pa.DataType) -> int:
    """Index of the first element of ``col`` that does not cast to ``typ`` (bisection)."""
    lo, hi = 0, len(col)
    while hi - lo > 1:
        mid = (lo + hi) // 2
        try:
            pc.cast(col.slice(lo, mid - lo), typ)
            lo = mid
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
            hi = mid
    return lo


def _convert(col: pa.Array, typ: pa.DataType, table_where: Callable[[int], str],
             what: str) -> np.ndarray:
    if col.type == typ:
        arr = col
    else:
        try:
            arr = pc.cast(col, typ)
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
            i = _first_bad(col, typ)
            kind = "an integer" if pa.types.is_integer(typ) else "a number"
            raise TrecFormatError(f"{table_where(i)}: {what} is not {kind}: "
                                  f"{col[i].as_py()!r}") from None
    return arr.to_numpy(zero_copy_only=False)


def _parse_file(
    path: PathLike, kind: str
) -> tuple[str, pa.Array, pa.Array | pa.ChunkedArray, np.ndarray, np.ndarray | None,
           np.ndarray | None]:
    """(source, query ids, docids, values, line numbers or None, pair hashes or None) of a run or
    qrels file.

    Query ids come back dictionary-encoded for runs (see :func:`_as_codes`) and as plain strings for
    qrels; run docids stay chunked as read (they are only hashed, looked up and taken, which work
    chunk-wise).
    """
    what = "qrels" if kind == "qrels" else "run"
    p = _check_path(path, what)
    source = str(p)
    value_type = pa.int64() if kind == "qrels" else pa.float64()
    try:
        parsed = _fast_parse_file(p, kind, value_type)
        if parsed is None:
            parsed = _general_parse(_read_bytes(p), source, kind)
    except _LineTooLong as exc:
        raise _long_line_error(p, exc.offset) from None
    layout, cols, line = parsed
    if len(cols["qid"]) == 0:
        raise TrecFormatError(f"{source}: {what} file is empty (no data lines)")

    def where(i: int) -> str:
        return f"{source}:{int(line[i]) if line is not None else i + 1}"

    pairs = cols.get("pair_hash")
    values = cols["value"]
    if not isinstance(values, np.ndarray):
        what_value = "relevance label" if kind == "qrels" else "score"
        values = _convert(values, value_type, where, what_value)
    qid, docid = cols["qid"], cols["docid"]
    if kind == "qrels":
        qid = _plain(qid)
        if isinstance(docid, pa.ChunkedArray):
            docid = docid.combine_chunks()
    else:
        qid = _as_codes(qid)
    return source, qid, docid, values, line, pairs


def _plain(ids: pa.Array | pa.ChunkedArray) -> pa.Array:
    """Ids as one plain string array (dictionary-encoded and chunked ids are decoded/combined)."""
    if isinstance(ids, pa.ChunkedArray):
        ids = ids.combine_chunks()
    if isinstance(ids, pa.DictionaryArray):
        ids = ids.dictionary_decode()
    return ids
