"""Columnar readers for TREC runs and qrels.

Run files follow trec_eval's ``trec_results`` format (get_trec_results.c): ``qid Q0 docid rank score tag``,
fields after the tag ignored; or Ranger's 4-field format ``qid docid rank score``. Qrels follow
trec_eval's ``qrels`` format (get_qrels.c): ``qid iter docid relevance`` with an integer relevance,
negative values allowed (trec_eval: "in the pool but unjudged"). As in trec_eval, fields are separated
by any run of ASCII whitespace, blank lines are skipped and a line whose first non-blank character is
``#`` is a comment (a ``#`` inside a docid is data). Files may be gzip-compressed, start with a UTF-8 BOM
and use CRLF line ends.

Parsing is columnar: regular files (one tab or one space between fields) go through pyarrow's CSV
reader; anything else is split with pyarrow's whitespace-splitting kernel. Every error names the file,
the line number and the offending text. Duplicate (query, document) pairs are errors naming both lines.
"""
from __future__ import annotations

import gzip
import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pcsv

from .errors import DuplicateEntryError, TrecFormatError

__all__ = [
    "QrelsTable",
    "RunTable",
    "load_qrels",
    "load_run",
    "read_qrels",
    "read_run",
]

_BOM = b"\xef\xbb\xbf"
_TREC_RUN = "trec"  # qid Q0 docid rank score tag [...]
_RANGER_RUN = "ranger"  # qid docid rank score
_QRELS = "qrels"  # qid iter docid relevance

# layout -> (min fields, exact?, {column: field index}, description)
_LAYOUTS: dict[str, tuple[int, bool, dict[str, int], str]] = {
    _TREC_RUN: (6, False, {"qid": 0, "docid": 2, "value": 4},
                "at least 6 fields (qid Q0 docid rank score tag)"),
    _RANGER_RUN: (4, True, {"qid": 0, "docid": 1, "value": 3}, "4 fields (qid docid rank score)"),
    _QRELS: (4, True, {"qid": 0, "docid": 2, "value": 3}, "4 fields (qid iter docid relevance)"),
}
_RUN_EITHER = ("6 or more fields (qid Q0 docid rank score tag) "
               "or 4 fields (qid docid rank score)")

PathLike = str | os.PathLike


@dataclass(frozen=True, eq=False)
class _Table:
    """Parsed columns of a run or qrels source; ``line[i]`` is the 1-based line of row ``i``."""

    source: str
    query_id: pa.Array
    doc_id: pa.Array
    line: np.ndarray | None
    unit: str  # "line" (files) or "row" (DataFrames, 0-based positions)

    def __len__(self) -> int:
        return len(self.query_id)

    def number(self, i: int) -> int:
        """Line number (files, 1-based) or row position (DataFrames, 0-based) of row ``i``."""
        if self.unit == "row":
            return int(i)
        return int(self.line[i]) if self.line is not None else int(i) + 1

    def where(self, i: int) -> str:
        if self.unit == "row":
            return f"{self.source} row {self.number(i)}"
        return f"{self.source}:{self.number(i)}"

    def numbers(self, rows: list[int]) -> str:
        word = "rows" if self.unit == "row" else "lines"
        return f"{word} {', '.join(str(self.number(r)) for r in rows)}"


@dataclass(frozen=True, eq=False)
class RunTable(_Table):
    """A validated run: ids as Arrow strings, scores as float64, queries encoded once.

    ``query_codes[i]`` indexes ``query_dict`` (the distinct query ids in order of appearance).
    """

    score: np.ndarray
    query_codes: np.ndarray
    query_dict: pa.Array


@dataclass(frozen=True, eq=False)
class QrelsTable(_Table):
    """Validated qrels: ids as Arrow strings, integer relevance labels (negative allowed)."""

    relevance: np.ndarray


# --------------------------------------------------------------------------------------------
# bytes -> columns
# --------------------------------------------------------------------------------------------

def _read_bytes(path: PathLike, what: str) -> tuple[bytes, str]:
    p = Path(path)
    if not p.exists():
        raise FileNotFoundError(f"{what} file not found: {p}")
    if p.is_dir():
        raise TrecFormatError(f"{p}: is a directory, not a {what} file")
    data = p.read_bytes()
    if data[:2] == b"\x1f\x8b":
        try:
            data = gzip.decompress(data)
        except (OSError, EOFError) as exc:
            raise TrecFormatError(f"{p}: corrupt gzip data ({exc})") from None
    if data.startswith(_BOM):
        data = data[len(_BOM):]
    return data, str(p)


def _fast_delimiter(data: bytes) -> str | None:
    """The single-character delimiter if the file looks regular enough for pyarrow's CSV reader.

    Regular: fields separated by tabs with no spaces anywhere, or by spaces with no tabs; no
    vertical tabs, form feeds or lone carriage returns; the first line splits the same way on the
    delimiter as on whitespace. Lines with a different number of delimiters (blank, indented or
    comment lines, doubled separators) make the CSV reader fail, and :func:`_fast_parse` rejects
    comment lines that happen to parse; all those files take the general path. Only single-byte
    searches (memchr speed) are used on the whole buffer.
    """
    if not data or data[:1] in (b" ", b"\t", b"\r", b"\n", b"#"):
        return None
    delim = b"\t" if b"\t" in data else b" "
    if (delim == b"\t" and b" " in data) or b"\x0b" in data or b"\x0c" in data:
        return None
    if b"\r" in data and data.count(b"\r") != data.count(b"\r\n"):
        return None
    end = data.find(b"\n")
    first = data[: end if end >= 0 else len(data)]
    if first.endswith(b"\r"):
        first = first[:-1]
    if len(first.split(delim)) != len(first.split()):
        return None
    return delim.decode()


def _layout_for(kind: str, nfields: int) -> str | None:
    if kind == "qrels":
        return _QRELS if nfields == 4 else None
    if nfields == 4:
        return _RANGER_RUN
    if nfields >= 6:
        return _TREC_RUN
    return None


def _fast_parse(data: bytes, kind: str, value_type: pa.DataType):
    """Parse a regular file with pyarrow.csv; None when the general path must be used."""
    delim = _fast_delimiter(data)
    if delim is None:
        return None
    end = data.find(b"\n")
    first = data[: end if end >= 0 else len(data)].rstrip(b"\r")
    ncols = first.count(delim.encode()) + 1
    layout = _layout_for(kind, ncols)
    if layout is None:
        return None
    idx = _LAYOUTS[layout][2]
    names = [f"f{i}" for i in range(ncols)]
    types = {f"f{idx['qid']}": pa.string(), f"f{idx['docid']}": pa.string(),
             f"f{idx['value']}": value_type}
    try:
        table = pcsv.read_csv(
            pa.BufferReader(data),
            read_options=pcsv.ReadOptions(column_names=names),
            parse_options=pcsv.ParseOptions(delimiter=delim, quote_char=False, double_quote=False,
                                            escape_char=False, newlines_in_values=False,
                                            ignore_empty_lines=False),
            convert_options=pcsv.ConvertOptions(column_types=types, include_columns=list(types),
                                                null_values=[], strings_can_be_null=False,
                                                quoted_strings_can_be_null=False, check_utf8=True),
        )
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
        return None
    cols = {k: table.column(f"f{i}") for k, i in idx.items()}
    if b"#" in data and pc.any(pc.starts_with(cols["qid"], "#")).as_py():
        return None  # a comment line with as many fields as data lines
    return layout, cols, None


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


def _general_parse(data: bytes, source: str, kind: str):
    """Split any whitespace-separated file; returns layout, string columns and line numbers.

    Lines are processed in chunks of 524,288 so that the split tokens never exist for the whole
    file at once; only the three needed fields are kept.
    """
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

        def fail(j: int, expected: str, chunk=chunk, rows=rows, line_no=line_no,
                 nfields=nfields) -> TrecFormatError:
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


def _convert(col: pa.Array, typ: pa.DataType, table_where, what: str) -> np.ndarray:
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


def _parse_file(path: PathLike, kind: str):
    what = "qrels" if kind == "qrels" else "run"
    data, source = _read_bytes(path, what)
    value_type = pa.int64() if kind == "qrels" else pa.float64()
    parsed = _fast_parse(data, kind, value_type)
    if parsed is None:
        parsed = _general_parse(data, source, kind)
    layout, cols, line = parsed
    if len(cols["qid"]) == 0:
        raise TrecFormatError(f"{source}: {what} file is empty (no data lines)")

    def where(i: int) -> str:
        return f"{source}:{int(line[i]) if line is not None else i + 1}"

    what_value = "relevance label" if kind == "qrels" else "score"
    values = _convert(cols["value"], value_type, where, what_value)
    # query ids (few distinct) and qrels docids (small files) as single arrays; run docids stay
    # chunked as read (they are only hashed, looked up and taken, which work chunk-wise)
    qid, docid = cols["qid"], cols["docid"]
    if isinstance(qid, pa.ChunkedArray):
        qid = qid.combine_chunks()
    if kind == "qrels" and isinstance(docid, pa.ChunkedArray):
        docid = docid.combine_chunks()
    return source, qid, docid, values, line


# --------------------------------------------------------------------------------------------
# DataFrames -> columns
# --------------------------------------------------------------------------------------------

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


def _frame_columns(df: pd.DataFrame, kind: str):
    if not isinstance(df, pd.DataFrame):
        raise TypeError(f"expected a path or a pandas DataFrame, got {type(df).__name__}")
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


# --------------------------------------------------------------------------------------------
# duplicate detection
# --------------------------------------------------------------------------------------------

_K1 = np.uint64(0x9E3779B97F4A7C15)
_K2 = np.uint64(0xBF58476D1CE4E5B9)
_K3 = np.uint64(0x94D049BB133111EB)
_ONES = np.uint64(0xFFFFFFFFFFFFFFFF)


def _mix(h: np.ndarray) -> np.ndarray:
    """splitmix64 finaliser, in place."""
    h ^= h >> np.uint64(30)
    h *= _K2
    h ^= h >> np.uint64(27)
    h *= _K3
    h ^= h >> np.uint64(31)
    return h


def _piece_hash(arr: pa.Array, out: np.ndarray) -> None:
    """Hash the strings of one (small) Arrow string array into ``out``."""
    n = len(arr)
    bufs = arr.buffers()
    wide = pa.types.is_large_string(arr.type) or pa.types.is_large_binary(arr.type)
    odt = np.int64 if wide else np.int32
    offsets = np.frombuffer(bufs[1], dtype=odt, count=n + 1, offset=arr.offset * odt().itemsize)
    data = (np.frombuffer(bufs[2], dtype=np.uint8) if bufs[2] is not None
            else np.zeros(0, dtype=np.uint8))
    if len(data) < 8:
        data = np.concatenate([data, np.zeros(8, dtype=np.uint8)])
    nbuf = len(data)
    words = np.ndarray(shape=(nbuf - 7,), dtype="<u8", buffer=data, strides=(1,))
    starts = offsets[:-1].astype(np.int64)
    lens = np.diff(offsets).astype(np.int64)
    np.multiply(lens.astype(np.uint64), _K1, out=out)
    maxlen, minlen = int(lens.max()), int(lens.min())
    for j in range(0, maxlen, 8):
        idx = starts + j
        clipped = np.flatnonzero(idx > nbuf - 8)
        if len(clipped):
            idx[clipped] = nbuf - 8
        w = words[idx]
        if j + 8 > minlen:
            rem = np.clip(lens - j, 0, 8)
            w &= _ONES >> ((np.int64(8) - rem) * 8).astype(np.uint64)
            w[rem == 0] = 0
            for r in clipped[rem[clipped] > 0]:  # rows ending in the buffer's last 8 bytes
                st = int(starts[r]) + j
                chunk = data[st: st + int(rem[r])].tobytes().ljust(8, b"\0")
                w[r] = np.uint64(int.from_bytes(chunk, "little"))
        if j + 8 > minlen:  # strings already finished keep their hash
            done = lens <= j
            mixed = (out ^ w) * _K1
            mixed ^= mixed >> np.uint64(29)
            out[:] = np.where(done, out, mixed)
        else:
            out ^= w
            out *= _K1
            out ^= out >> np.uint64(29)


_PIECE = 1 << 16


def hash_strings(arr: pa.Array | pa.ChunkedArray, salt: np.ndarray | None = None) -> np.ndarray:
    """64-bit hash of every string of ``arr`` (mixed with ``salt[i]`` if given), vectorised 8 bytes
    at a time: equal (string, salt) pairs get equal hashes. Used only to find candidate duplicates,
    which are then compared exactly. Works in pieces of 65,536 strings so temporaries stay small."""
    chunks = arr.chunks if isinstance(arr, pa.ChunkedArray) else [arr]
    out = np.empty(len(arr), dtype=np.uint64)
    i = 0
    with np.errstate(over="ignore"):
        for ch in chunks:
            for s in range(0, len(ch), _PIECE):
                piece = ch.slice(s, _PIECE)
                h = out[i: i + len(piece)]
                _piece_hash(piece, h)
                if salt is not None:
                    h ^= _mix(salt[i: i + len(piece)].astype(np.uint64) + np.uint64(1))
                _mix(h)
                i += len(piece)
    return out


def _duplicate_pair(qcodes: np.ndarray, docs: pa.Array | pa.ChunkedArray) -> tuple[int, int] | None:
    """Rows (first, second) of the first repeated (query, document) pair, or None.

    Rows are hashed (64 bits, salted with the query code) and the hashes sorted; rows sharing a
    hash are then compared exactly, so a hash collision can never produce a false error.
    """
    if len(qcodes) < 2:
        return None
    key = hash_strings(docs, salt=qcodes)
    srt = np.sort(key)
    eq = srt[1:] == srt[:-1]
    if not eq.any():
        return None
    rows = np.flatnonzero(np.isin(key, np.unique(srt[1:][eq])))
    seen: dict[tuple[int, str], int] = {}
    for row, qc, doc in zip(rows.tolist(), qcodes[rows].tolist(),
                            docs.take(pa.array(rows)).to_pylist(), strict=True):
        prev = seen.setdefault((qc, doc), row)
        if prev != row:
            return prev, row
    return None


# --------------------------------------------------------------------------------------------
# public loaders
# --------------------------------------------------------------------------------------------

def _is_path(src: object) -> bool:
    return isinstance(src, (str, os.PathLike))


def load_run(src: PathLike | pd.DataFrame | RunTable) -> RunTable:
    """Parse and validate a run (path, DataFrame with query_id/doc_id/score, or RunTable)."""
    if isinstance(src, RunTable):
        return src
    if _is_path(src):
        source, qid, docid, score, line = _parse_file(src, "run")
        unit = "line"
    else:
        source, qid, docid, score = _frame_columns(src, "run")
        line, unit = None, "row"
    enc = pc.dictionary_encode(qid)
    codes = enc.indices.to_numpy(zero_copy_only=False)
    table = RunTable(source=source, query_id=qid, doc_id=docid, line=line, unit=unit,
                     score=np.asarray(score, dtype=np.float64), query_codes=codes,
                     query_dict=enc.dictionary)
    nan = np.flatnonzero(np.isnan(table.score))
    if len(nan):
        i = int(nan[0])
        raise TrecFormatError(f"{table.where(i)}: score is not a number: 'nan'")
    dup = _duplicate_pair(codes, docid)
    if dup is not None:
        a, b = dup
        raise DuplicateEntryError(
            f"{source}: duplicate document {docid[a].as_py()!r} for query {qid[a].as_py()!r} "
            f"({table.numbers([a, b])})")
    return table


def load_qrels(src: PathLike | pd.DataFrame | QrelsTable) -> QrelsTable:
    """Parse and validate qrels (path, DataFrame with query_id/doc_id/relevance, or QrelsTable)."""
    if isinstance(src, QrelsTable):
        return src
    if _is_path(src):
        source, qid, docid, rel, line = _parse_file(src, "qrels")
        unit = "line"
    else:
        source, qid, docid, rel = _frame_columns(src, "qrels")
        line, unit = None, "row"
    table = QrelsTable(source=source, query_id=qid, doc_id=docid, line=line, unit=unit,
                       relevance=np.asarray(rel, dtype=np.int64))
    huge = np.flatnonzero(np.abs(table.relevance) > 2**31 - 1)
    if len(huge):
        i = int(huge[0])
        raise TrecFormatError(f"{table.where(i)}: relevance label out of range: "
                              f"{int(table.relevance[i])}")
    qenc = pc.dictionary_encode(qid)
    denc = pc.dictionary_encode(docid)
    key = (qenc.indices.to_numpy(zero_copy_only=False).astype(np.int64) * len(denc.dictionary)
           + denc.indices.to_numpy(zero_copy_only=False))
    order = np.argsort(key, kind="stable")
    same = np.flatnonzero(key[order][1:] == key[order][:-1])
    if len(same):
        pairs = [(int(order[i]), int(order[i + 1])) for i in same]
        a, b = min(pairs, key=lambda p: p[1])
        raise DuplicateEntryError(
            f"{source}: duplicate qrels entry for query {qid[a].as_py()!r}, document "
            f"{docid[a].as_py()!r} ({table.numbers([a, b])})")
    return table


def read_run(path: PathLike) -> pd.DataFrame:
    """Read a TREC run (6+ fields) or a Ranger run (4 fields) into ``[query_id, doc_id, score]``.

    Extra trailing fields are ignored, as by trec_eval; the rank field is ignored (rankings are
    rebuilt from scores). Raises :class:`TrecFormatError` naming file, line and text on bad input
    and :class:`DuplicateEntryError` when a document occurs twice for one query.
    """
    t = load_run(path)
    return pd.DataFrame({"query_id": t.query_id.to_pandas(), "doc_id": t.doc_id.to_pandas(),
                         "score": t.score})


def read_qrels(path: PathLike) -> pd.DataFrame:
    """Read TREC qrels (``qid iter docid relevance``) into ``[query_id, doc_id, relevance]``."""
    t = load_qrels(path)
    return pd.DataFrame({"query_id": t.query_id.to_pandas(), "doc_id": t.doc_id.to_pandas(),
                         "relevance": t.relevance})
