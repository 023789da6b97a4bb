"""The fast path of the TREC readers: regular text, segment by segment, through pyarrow's
multi-threaded CSV reader, each segment proven regular before it is accepted (the package
docstring, :mod:`ranger_eval.ir.readers`, says what "regular" means); segments are checked and
hashed in worker threads beside pyarrow."""
from __future__ import annotations

import zlib
from concurrent.futures import Future
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pcsv

from .hashing import _encode_heads, _stretches, hash_strings, pair_hash
from .tables import _LAYOUTS, _QRELS, _RANGER_RUN, _TREC_RUN
from .text import _LineTooLong, _long_line_at, _Parsed, _segments, _Text
from .threads import helper_pool, single_threaded


def _fast_delimiter(data: _Text, end: int | None = None, start: int = 0) -> str | None:
    """The delimiter for pyarrow's CSV reader — tab if the first line has one, else space — when
    the start of ``data[start:end]`` is regular, else None.

    Checked here: the text starts with a field; the first line splits the same way on the
    delimiter as on whitespace; every carriage return ends a CRLF line end (two counts, only if
    there is one). The rest of the text is checked by :func:`_separators` and by the CSV reader
    itself (every line must have as many fields as the first).
    """
    end = len(data) if end is None else end
    if end <= start or data[start: start + 1] in (b" ", b"\t", b"\r", b"\n", b"#"):
        return None
    first = _first_line(data, start, end)
    delim = b"\t" if b"\t" in first else b" "
    if len(first.split(delim)) != len(first.split()):
        return None
    if data.find(b"\r", start, end) >= 0:
        text = data[start:end]
        if text.count(b"\r") != text.count(b"\r\n"):
            return None
    return delim.decode()


def _first_line(data: _Text, start: int, end: int) -> bytes:
    stop = data.find(b"\n", start, end)
    return bytes(data[start: stop if stop >= 0 else end]).rstrip(b"\r")


def _layout_for(kind: str, nfields: int) -> str | None:
    if kind == "qrels":
        return _QRELS if nfields == 4 else None
    if nfields == 4:
        return _RANGER_RUN
    if nfields >= 6:
        return _TREC_RUN
    return None


_SCAN_BLOCK = 1 << 18  # bytes per step of the separator scan (its buffers stay in cache)


def _separators(data: _Text, start: int, end: int, delim: str) -> int | None:
    """The number of separator bytes (≤ 0x20, carriage returns of CRLF line ends excepted) in
    ``data[start:end]``, or None when two separators touch or the text ends with the delimiter.

    Touching separators — a doubled delimiter, a delimiter at the start or end of a line, a blank
    line — are what the CSV reader would read as an empty field, where trec_eval's whitespace
    splitting sees one field less. The count lets :func:`_parse_checked` prove, once the CSV reader
    has counted the lines, that the delimiter and the line ends are the only whitespace (or control)
    bytes. The scan is vectorised over blocks of 256 KiB with preallocated buffers; numpy releases
    the GIL, so it runs beside pyarrow.
    """
    if data[end - 1: end] == delim.encode():
        return None  # a last line without newline ends with the delimiter
    buf = np.frombuffer(data, dtype=np.uint8, count=end - start, offset=start)
    crlf = data.find(b"\r", start, end) >= 0
    sep = np.empty(_SCAN_BLOCK + 1, dtype=bool)
    pair = np.empty(_SCAN_BLOCK, dtype=bool)
    d = ord(delim)
    count = 0
    for lo in range(0, len(buf), _SCAN_BLOCK):
        x = buf[lo: lo + _SCAN_BLOCK + 1]  # one byte more: pairs across block edges
        m = len(x)
        s, pr = sep[:m], pair[: m - 1]
        np.less_equal(x, 32, out=s)
        if crlf:
            s &= x != 13
            if np.any((x[:-1] == d) & (x[1:] == 13)):
                return None  # delimiter before a CRLF line end
        np.logical_and(s[:-1], s[1:], out=pr)
        if pr.any():
            return None
        count += int(np.count_nonzero(s[: _SCAN_BLOCK]))
    return count


def _check_text(data: _Text, start: int, end: int) -> tuple[str, int] | None:
    """(delimiter, number of separator bytes) of a regular ``data[start:end]``, else None.

    Besides :func:`_fast_delimiter` and :func:`_separators`, the whole text must be valid UTF-8
    (pyarrow's validator, a few ms per segment), as the general path requires of every line; the
    CSV reader then need not check its string columns.
    """
    long = _long_line_at(data, start, end)
    if long is not None:
        raise _LineTooLong(long)  # relative to start: the caller adds the segment's offset
    delim = _fast_delimiter(data, end, start)
    if delim is None:
        return None
    nsep = _separators(data, start, end, delim)
    if nsep is None:
        return None
    text = pa.LargeStringArray.from_buffers(
        1, pa.py_buffer(np.array([0, end - start], dtype=np.int64)),
        pa.py_buffer(memoryview(data)[start:end]))
    try:
        text.validate(full=True)
    except pa.ArrowInvalid:
        return None
    return delim, nsep


def _read_options(names: list[str]) -> pcsv.ReadOptions:
    """pyarrow's CSV read options: its default 1 MiB blocks, parsed on all cores, or inside
    :func:`one_thread` one thread and 4 MiB blocks (a sixth less CPU than 1 MiB blocks when the
    blocks are not shared out among threads)."""
    if single_threaded():
        return pcsv.ReadOptions(column_names=names, use_threads=False, block_size=4 << 20)
    return pcsv.ReadOptions(column_names=names)


def _parse_checked(data: _Text, start: int, end: int, delim: str, nsep: int, kind: str,
                   value_type: pa.DataType,
                   ) -> tuple[str, int, str, dict[str, pa.ChunkedArray]] | None:
    """Parse ``data[start:end]`` once :func:`_check_text` passed: (delimiter, fields per line,
    layout, columns qid, docid, value), or None when it is not regular after all."""
    ncols = _first_line(data, start, end).count(delim.encode()) + 1
    layout = _layout_for(kind, ncols)
    if layout is None:
        return None
    idx = _LAYOUTS[layout][2]
    names = [f"f{i}" for i in range(ncols)]
    types = {f"f{idx['qid']}": pa.string(), f"f{idx['docid']}": pa.string(),
             f"f{idx['value']}": value_type}
    try:
        table = pcsv.read_csv(
            pa.py_buffer(memoryview(data)[start:end]),
            read_options=_read_options(names),
            parse_options=pcsv.ParseOptions(delimiter=delim, quote_char=False, double_quote=False,
                                            escape_char=False, newlines_in_values=False,
                                            ignore_empty_lines=False),
            convert_options=pcsv.ConvertOptions(column_types=types, include_columns=list(types),
                                                null_values=[], strings_can_be_null=False,
                                                quoted_strings_can_be_null=False,
                                                check_utf8=False),  # done by _check_text
        )
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
        return None
    rows = table.num_rows  # = lines: no blank lines (touching separators), no lone CR
    line_ends = rows if data[end - 1: end] == b"\n" else rows - 1
    if nsep != rows * (ncols - 1) + line_ends:
        return None  # whitespace (or control bytes) other than the delimiter and the line ends
    return delim, ncols, layout, {k: table.column(f"f{i}") for k, i in idx.items()}


def _parse_segment(data: _Text, kind: str, value_type: pa.DataType, end: int | None = None,
                   start: int = 0) -> tuple[str, int, str, dict[str, pa.ChunkedArray]] | None:
    """:func:`_check_text` then :func:`_parse_checked` on ``data[start:end]``."""
    end = len(data) if end is None else end
    checked = _check_text(data, start, end)
    if checked is None:
        return None
    return _parse_checked(data, start, end, *checked, kind, value_type)


def _fast_parse(data: bytes | bytearray, kind: str, value_type: pa.DataType) -> _Parsed | None:
    """Parse a regular in-memory text with pyarrow.csv: (layout, columns, None), or None when the
    general path must be used."""
    parsed = _parse_segment(data, kind, value_type)
    if parsed is None:
        return None
    cols = parsed[3]
    if pc.any(pc.starts_with(cols["qid"], "#")).as_py():
        return None  # a comment line with as many fields as data lines
    return parsed[2], cols, None


def _fast_parse_file(p: Path, kind: str, value_type: pa.DataType) -> _Parsed | None:
    """The fast path over a whole file, one segment (:func:`_segments`) at a time.

    Returns (layout, columns, None) — query ids as a DictionaryArray, values as numpy and, for
    runs, ``columns["pair_hash"]`` (see :func:`pair_hash`) — or None when the file is
    empty, a segment is not regular, segments disagree on the delimiter or the number of fields, a
    line is a comment, or the gzip data are corrupt; the caller then runs the general path, which
    reports any error with its line number.

    pyarrow parses a segment on all cores without the GIL; meanwhile two worker threads check the
    next segment (:func:`_check_text`) and digest the previous one (:func:`_digest_segment`: query
    ids reduced to stretches, so they never pile up as strings; pairs hashed while in cache).
    """
    shape: tuple[str, int, str] | None = None
    digests: list[Future] = []
    pool = helper_pool(2)
    try:
        segments = _segments(p)
        seg = next(segments, None)
        check = pool.submit(_check_text, *seg) if seg is not None else None
        base = 0  # text offset of the checked segment's start
        while seg is not None and check is not None:  # set together
            try:
                checked = check.result()
            except _LineTooLong as exc:
                raise _LineTooLong(base + exc.offset) from None
            if checked is None:
                return None
            data, start, end = seg
            base += end - start
            seg = next(segments, None)
            check = pool.submit(_check_text, *seg) if seg is not None else None
            parsed = _parse_checked(data, start, end, *checked, kind, value_type)
            del data
            if parsed is None or (shape is not None and parsed[:3] != shape):
                return None
            shape = parsed[:3]
            digests.append(pool.submit(_digest_segment, parsed[3], kind != "qrels"))
        parts = [d.result() for d in digests]
    except (OSError, EOFError, zlib.error):  # corrupt gzip data: the general path says so
        return None
    finally:
        pool.shutdown(cancel_futures=True)
        # parsing left pyarrow's pool (mimalloc by default) holding freed blocks; give them back,
        # except between the runs of a batch (one_thread), which reuse them and give them back
        # once at the end (evaluate_many): the first batch in a process is then as fast as later
        if not single_threaded():
            pa.default_memory_pool().release_unused()
    if shape is None:
        return None
    qid = _encode_heads([x[0] for x in parts], [x[1] for x in parts])
    if pc.any(pc.starts_with(qid.dictionary, "#")).as_py():
        return None  # a comment line with as many fields as data lines
    cols = {"qid": qid, "docid": pa.chunked_array([c for x in parts for c in x[2]], pa.string()),
            "value": np.concatenate([x[3] for x in parts])}
    if kind != "qrels":
        cols["pair_hash"] = np.concatenate([x[4] for x in parts])
    return shape[2], cols, None


def _digest_segment(
    cols: dict[str, pa.ChunkedArray], hash_pairs: bool
) -> tuple[pa.Array, np.ndarray, list[pa.Array], np.ndarray, np.ndarray | None]:
    """(query id stretch heads, stretch lengths, docid chunks, values as numpy, pair hashes or
    None) of one parsed segment."""
    heads, lengths = _stretches(cols["qid"])
    docs = cols["docid"]
    pairs = None
    if hash_pairs:
        pairs = pair_hash(np.repeat(hash_strings(heads), lengths), docs)
    return heads, lengths, docs.chunks, cols["value"].to_numpy(), pairs
