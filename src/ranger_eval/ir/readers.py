"""Columnar readers for TREC runs and qrels.

Run files follow trec_eval's ``trec_results`` format (get_trec_results.c): ``qid Q0 docid rank score tag``,
fields after the tag ignored; or Ranger's 4-field format ``qid docid rank score``. Qrels follow
trec_eval's ``qrels`` format (get_qrels.c): ``qid iter docid relevance`` with an integer relevance,
negative values allowed (trec_eval: "in the pool but unjudged"). As in trec_eval, fields are separated
by any run of ASCII whitespace, blank lines are skipped and a line whose first non-blank character is
``#`` is a comment (a ``#`` inside a docid is data). Files may be gzip-compressed, start with a UTF-8 BOM
and use CRLF line ends (read exactly as LF). A carriage return not followed by a line feed (old Mac OS
line ends, or a stray CR inside a line) is an error naming the file and the 1-based line, as are NUL
bytes; UTF-16 and UTF-32 files (byte-order mark FF FE, FE FF, FF FE 00 00, 00 00 FE FF) are an error
naming the file and the encoding. The fast path never sees them: a segment with a lone CR, a NUL or
invalid UTF-8 is not regular, and the general path reports it.

Parsing is columnar, with two paths that give identical results:

* **Fast path** (:func:`_fast_parse_file`): the text is taken in segments of about 32 MiB cut at
  line ends (plain files memory-mapped one segment at a time, gzip files decompressed as a
  stream), and each segment goes through pyarrow's multi-threaded CSV reader with a one-character
  delimiter, reading only the query id, docid and score/label columns. A segment is accepted only
  if it is *regular*, which is proven, not assumed: its first line splits the same way on the
  delimiter (tab if the first line has one, else space) as on whitespace; every line has as many
  fields as the file's first line (the CSV reader fails otherwise); no two separators touch (a
  doubled, leading or trailing delimiter or a blank line would make an empty CSV field where
  trec_eval sees one field less); the bytes ≤ 0x20 are exactly the delimiters and line ends the CSV
  reader counted (no tab, vertical tab, form feed, lone carriage return or control byte elsewhere);
  no line starts with ``#``; the text is valid UTF-8. The checks are vectorised (numpy over 256 KiB
  blocks) and run in worker threads beside pyarrow, as do the query-id encoding and the hashing of
  each segment. Nothing but the current segments is ever held as raw text.
* **General path** (:func:`_general_parse`): as soon as one segment is not regular, the whole file is
  read, split on runs of whitespace with pyarrow's kernel, and blank and comment lines are skipped.
  This path produces every error message, naming the file, the line number and the text.

Duplicate (query, document) pairs are errors naming both lines; they are found by sorting 64-bit
hashes of the pairs (:func:`pair_hash`), candidates being compared exactly.
"""
from __future__ import annotations

import gzip
import io
import mmap
import os
import threading
import zlib
from collections.abc import Callable, Iterator
from concurrent.futures import Executor, Future, ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pcsv

from ..errors import MissingInputError
from .errors import DuplicateEntryError, TrecFormatError

__all__ = [
    "QrelsTable",
    "RunTable",
    "hash_strings",
    "load_qrels",
    "load_run",
    "pair_hash",
    "take_rows",
    "read_qrels",
    "read_run",
    "run_tag",
]

# --------------------------------------------------------------------------------------------
# threads: one file alone uses every core; many files at once use one thread each
# --------------------------------------------------------------------------------------------
_THREAD = threading.local()


@contextmanager
def one_thread() -> Iterator[None]:
    """Inside the block, this thread reads and evaluates without helper threads: pyarrow's CSV
    reader single-threaded, sorts not split, checks and digests inline. For callers that already
    keep every core busy with one run per thread (:func:`ranger_eval.ir.evaluate_many`), where
    nested thread pools only add switching and coordination (a quarter more CPU per run)."""
    before = getattr(_THREAD, "alone", False)
    _THREAD.alone = True
    try:
        yield
    finally:
        _THREAD.alone = before


def single_threaded() -> bool:
    """True inside :func:`one_thread` (in this thread)."""
    return bool(getattr(_THREAD, "alone", False))


class _Inline(Executor):
    """An executor that runs each task at once in the calling thread (for :func:`one_thread`)."""

    def submit(self, fn: Callable[..., object], /, *args: object, **kwargs: object) -> Future:
        done: Future = Future()
        try:
            done.set_result(fn(*args, **kwargs))
        except BaseException as exc:  # noqa: BLE001 (delivered by result(), as a pool would)
            done.set_exception(exc)
        return done


def helper_pool(workers: int) -> Executor:
    """A thread pool of ``workers``, or an inline executor inside :func:`one_thread`."""
    return _Inline() if single_threaded() else ThreadPoolExecutor(max_workers=workers)


_BOM = b"\xef\xbb\xbf"
_GZIP_MAGIC = b"\x1f\x8b"
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
    """A validated run: docids as Arrow strings, scores as float64, queries encoded once.

    ``query_id`` is a DictionaryArray: ``query_codes[i]`` (its int32 indices) indexes ``query_dict``
    (the distinct query ids in order of first appearance). ``pair_hash[i]`` is
    :func:`pair_hash` of row i's (query id, docid), computed once for the duplicate check and reused
    by the evaluation to skip rows whose pair cannot be in the qrels.
    """

    score: np.ndarray
    query_codes: np.ndarray
    query_dict: pa.Array
    pair_hash: np.ndarray


@dataclass(frozen=True, eq=False)
class QrelsTable(_Table):
    """Validated qrels: ids as Arrow strings, integer relevance labels (negative allowed)."""

    relevance: np.ndarray


# --------------------------------------------------------------------------------------------
# fast path: regular files, streamed segment by segment through pyarrow's CSV reader
# --------------------------------------------------------------------------------------------

_SEGMENT = 1 << 25  # bytes of text per pyarrow.csv call on the fast path

_Text = bytes | bytearray | mmap.mmap  # what a segment's bytes live in

# (layout, columns qid/docid/value[/pair_hash], 1-based line numbers or None) of a parsed text
_Parsed = tuple[str, dict[str, pa.ChunkedArray | np.ndarray], np.ndarray | None]


MAX_LINE_BYTES = 1 << 20
"""Longest accepted line, line end excluded (1 MiB; TREC lines hold a few short fields). A
longer one is an error naming the file and the line, found in linear time without reading the
file further than that line."""
MAX_GZIP_RATIO = 100
MAX_GZIP_BASE = 1 << 24
"""gzip data may expand to at most ``MAX_GZIP_BASE + MAX_GZIP_RATIO × compressed size`` bytes
(16 MiB + 100×; TREC runs and qrels compress 3-10×): beyond, the file is rejected as a possible
decompression bomb after reading no more than that, with bounded memory."""

# magic numbers of compressions Ranger does not read (gzip is read)
_OTHER_COMPRESSIONS = (
    (b"\xfd7zXZ\x00", "xz", "xz"),
    (b"\x28\xb5\x2f\xfd", "zstd", "zstd"),
    (b"\x04\x22\x4d\x18", "lz4", "lz4"),
    (b"PK\x03\x04", "zip", "unzip"),
)


class _LineTooLong(Exception):
    """Internal: the line starting at byte ``offset`` of the text (after gunzip and BOM) is longer
    than :data:`MAX_LINE_BYTES`; :func:`_long_line_error` turns it into a TrecFormatError."""

    def __init__(self, offset: int):
        super().__init__(offset)
        self.offset = offset


def _check_path(path: PathLike, what: str) -> Path:
    """The path of a readable regular file (symlinks to one are fine); else an error naming it.

    FIFOs, character devices (``/dev/zero``, a terminal) and sockets are refused before they are
    opened: they can block forever or never end. Standard input (``-``) is not read either."""
    if str(path) == "-":
        raise TrecFormatError(f"-: reading a {what} from standard input is not supported; "
                              f"save it to a file and pass its path")
    p = Path(path)
    if not p.exists():
        raise MissingInputError(f"{what} file not found: {p}")
    if p.is_dir():
        raise TrecFormatError(f"{p}: is a directory, not a {what} file")
    if not p.is_file():
        raise TrecFormatError(f"{p}: not a regular file (a FIFO, device or socket); {what} files "
                              f"must be regular files (plain or gzip-compressed)")
    return p


def _check_compression(head: bytes, p: Path) -> None:
    """Reject bzip2, xz, zstd, lz4 and zip data by their magic numbers, naming the tool."""
    found = [(n, t) for magic, n, t in _OTHER_COMPRESSIONS if head.startswith(magic)]
    if head[:3] == b"BZh" and head[3:4].isdigit() and head[4:10] == b"1AY&SY":
        found.append(("bzip2", "bunzip2"))
    if found:
        name, tool = found[0]
        how = f"unzip {p}" if tool == "unzip" else f"{tool} -dk {p}"
        raise TrecFormatError(f"{p}: {name}-compressed data; TREC files are read plain or "
                              f"gzip-compressed: decompress it first (`{how}`)")


class _CappedGzip(io.RawIOBase):
    """A gzip stream that raises TrecFormatError once it has produced more than ``MAX_GZIP_BASE +
    MAX_GZIP_RATIO × compressed size`` bytes (a decompression bomb), whatever the reader asks."""

    def __init__(self, raw: io.BufferedReader, p: Path):
        super().__init__()
        self._gz = gzip.GzipFile(fileobj=raw, mode="rb")
        self._p = p
        size = os.fstat(raw.fileno()).st_size
        self.limit = MAX_GZIP_BASE + MAX_GZIP_RATIO * size
        self.produced = 0

    def readable(self) -> bool:
        return True

    def readinto(self, b: bytearray | memoryview) -> int:  # type: ignore[override]
        with memoryview(b) as view:
            want = min(len(view), self.limit + 1 - self.produced)
            n = self._gz.readinto(view[:want]) if want > 0 else 0
        self.produced += n
        if self.produced > self.limit:
            raise TrecFormatError(
                f"{self._p}: the gzip data expand to more than {self.limit:,} bytes "
                f"({MAX_GZIP_BASE:,} + {MAX_GZIP_RATIO}x the {os.path.getsize(self._p):,}-byte "
                f"file): refused as a "
                f"possible decompression bomb; if the file is genuine, decompress it first "
                f"(`gunzip -k {self._p}`)")
        return n

    def close(self) -> None:
        self._gz.close()
        super().close()


def _long_line_at(data: _Text, start: int, end: int) -> int | None:
    """Offset (from ``start``) of the first line of ``data[start:end]`` longer than
    :data:`MAX_LINE_BYTES`, or None. Linear and cheap: a line that long covers a whole aligned
    window of MAX_LINE_BYTES / 2 bytes, so one ``find`` (memchr) per window finds the candidates,
    which are then measured exactly."""
    half = MAX_LINE_BYTES // 2
    for w in range(start, end, half):
        if w + half > end or data.find(b"\n", w, w + half) >= 0:
            continue
        lo = data.rfind(b"\n", start, w) + 1 if w > start else start
        lo = max(lo, start)
        nl = data.find(b"\n", w + half, min(end, lo + MAX_LINE_BYTES + 1))
        stop = end if nl < 0 else nl
        # a line ending at the segment end without newline continues nowhere: it ends there
        if stop - lo > MAX_LINE_BYTES:
            return lo - start
    return None


def _text_chunks(p: Path, chunk: int = 1 << 20) -> Iterator[bytes]:
    """The file's text (gunzipped, without a UTF-8 BOM) in chunks, bounded by the gzip cap."""
    with open(p, "rb") as raw:
        stream: io.RawIOBase | io.BufferedReader = (
            _CappedGzip(raw, p) if raw.peek(2)[:2] == _GZIP_MAGIC else raw)
        first = True
        while True:
            b = stream.read(chunk)
            if not b:
                return
            if first and b.startswith(_BOM):
                b = b[len(_BOM):]
            first = False
            yield b


def _long_line_error(p: Path, offset: int) -> TrecFormatError:
    """The error for an over-long line starting at text ``offset``, found by streaming the text
    again up to that line's end (bounded memory). A NUL byte or a lone carriage return up to there
    is reported instead, as the general path's checks would (a file of CR-only line ends is one
    long line to a newline scanner); otherwise the line's 1-based number and start."""
    first = _slice_text(p, 0, 4)
    for bom, _, _ in _FOREIGN_BOMS:
        if first.startswith(bom):
            return _foreign_bom_error(p, bom)
    line, pos = 1, 0  # pos: text offset of buf[0]
    limit = offset + MAX_LINE_BYTES + 1  # the long line's first MAX_LINE_BYTES + 1 bytes
    carry = b""
    chunks = _text_chunks(p)
    while pos < limit:
        b = next(chunks, None)
        buf = carry + (b or b"")
        if not buf:
            break
        carry = b""
        if b is not None and buf.endswith(b"\r"):  # decided with the next chunk
            buf, carry = buf[:-1], b"\r"
        seen = buf[: limit - pos]
        nul = seen.find(b"\x00")
        cr = _bare_cr(seen)
        bad = min((x for x in (nul, cr) if x >= 0), default=-1)
        if bad >= 0:
            n = line + seen.count(b"\n", 0, bad)
            return _nul_error(p, n) if bad == nul else _cr_error(p, n)
        line += seen.count(b"\n", 0, max(0, min(offset - pos, len(seen))))
        pos += len(buf)
        if b is None:
            break
    shown = _slice_text(p, offset, 60).decode("utf-8", "replace")
    return TrecFormatError(
        f"{p}:{line}: line longer than {MAX_LINE_BYTES:,} bytes (it starts {shown!r}); TREC "
        f"lines hold a few short fields: is this a binary file, or an id with text in it?")


def _slice_text(p: Path, offset: int, n: int) -> bytes:
    """``n`` bytes of the text from ``offset`` (streamed, bounded memory)."""
    pos, out = 0, b""
    for b in _text_chunks(p):
        if pos + len(b) > offset:
            out += b[max(offset - pos, 0): max(offset - pos, 0) + n - len(out)]
            if len(out) >= n:
                break
        pos += len(b)
    return out


def _bare_cr(text: bytes) -> int:
    """Index of the first carriage return of ``text`` not followed by a line feed, or -1."""
    i = text.find(b"\r")
    while i >= 0:
        if text[i + 1: i + 2] != b"\n":
            return i
        i = text.find(b"\r", i + 2)
    return -1


def _segments(p: Path, size: int = 0) -> Iterator[tuple[_Text, int, int]]:
    """The file's text (gunzipped, without a leading UTF-8 BOM) as consecutive pieces
    ``(data, start, end)``: ``data[start:end]`` holds about ``size`` bytes (default
    :data:`_SEGMENT`) ending with a newline, except at the end (a piece grows until it holds a
    whole line). A piece stays valid while the caller holds ``data``, so the next piece can be
    prepared while one is parsed. Plain files are memory-mapped one piece at a time (no copy, and
    at most a few pieces resident); gzip files and files that cannot be mapped are read.
    """
    size = size or _SEGMENT
    with open(p, "rb") as raw:
        head = raw.peek(10)[:10]
        _check_compression(head, p)
        if head[:2] == _GZIP_MAGIC:
            with _CappedGzip(raw, p) as stream:
                yield from _read_segments(stream, size)  # type: ignore[arg-type]
            return
        total = os.fstat(raw.fileno()).st_size
        try:
            probe = mmap.mmap(raw.fileno(), min(total, 4), access=mmap.ACCESS_READ)
        except (OSError, ValueError):  # empty, or not mappable (a pipe...)
            yield from _read_segments(raw, size)
            return
        bom = len(_BOM) if probe[:3] == _BOM else 0
        pos = bom
        del probe
        grain = mmap.ALLOCATIONGRANULARITY
        while pos < total:
            lo = pos - pos % grain  # mappings start at a multiple of the granularity
            length = min(total - lo, pos - lo + size)
            data = mmap.mmap(raw.fileno(), length, offset=lo, access=mmap.ACCESS_READ)
            end = length if lo + length == total else data.rfind(b"\n", pos - lo, length) + 1
            if end == 0:  # no line end in the window: a longer one
                if length - (pos - lo) > MAX_LINE_BYTES:
                    raise _LineTooLong(pos - bom)
                size *= 2
                continue
            yield data, pos - lo, end
            pos = lo + end


def _read_segments(stream: io.BufferedIOBase, size: int) -> Iterator[tuple[bytearray, int, int]]:
    """:func:`_segments` for streams: each piece in a buffer of its own."""
    rest = b""
    first = True
    base = 0  # offset in the stream of buf[0]
    bom = 0
    while True:
        buf = bytearray(len(rest) + size)
        buf[: len(rest)] = rest
        filled = len(rest)
        with memoryview(buf) as view:
            while filled < len(buf):
                n = stream.readinto(view[filled:])
                if not n:
                    break
                filled += n
        eof = filled < len(buf)
        start = len(_BOM) if first and buf.startswith(_BOM) else 0
        bom = bom or start
        end = filled if eof else buf.rfind(b"\n", 0, filled) + 1
        if end <= start and not eof:  # no line end yet: read on, keeping everything
            if filled - start > MAX_LINE_BYTES:
                raise _LineTooLong(base + start - bom)
            rest = bytes(buf[:filled])
            continue
        first = False
        if end > start:
            yield buf, start, end
        if eof:
            return
        rest = bytes(buf[end:filled])
        base += end


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


# --------------------------------------------------------------------------------------------
# general path: any whitespace, comments, blank lines; all errors with line numbers
# --------------------------------------------------------------------------------------------

# byte-order marks of encodings other than UTF-8 (UTF-32 first: its LE mark starts like UTF-16's)
_FOREIGN_BOMS = (
    (b"\xff\xfe\x00\x00", "UTF-32 little-endian", "UTF-32"),
    (b"\x00\x00\xfe\xff", "UTF-32 big-endian", "UTF-32"),
    (b"\xff\xfe", "UTF-16 little-endian", "UTF-16"),
    (b"\xfe\xff", "UTF-16 big-endian", "UTF-16"),
)


def _read_bytes(p: Path) -> bytes:
    """The file's bytes (gunzipped, without a UTF-8 BOM); UTF-16/UTF-32 files are an error."""
    with open(p, "rb") as raw:
        head = raw.peek(10)[:10]
        _check_compression(head, p)
        if head[:2] == _GZIP_MAGIC:
            try:
                with _CappedGzip(raw, p) as stream:
                    data = b"".join(iter(lambda: stream.read(1 << 20), b""))
            except (OSError, EOFError, zlib.error) as exc:
                raise TrecFormatError(f"{p}: corrupt gzip data ({exc})") from None
        else:
            data = raw.read()
    for bom, _, _ in _FOREIGN_BOMS:
        if data.startswith(bom):
            raise _foreign_bom_error(p, bom)
    if data.startswith(_BOM):
        data = data[len(_BOM):]
    return data


def _foreign_bom_error(p: Path, bom: bytes) -> TrecFormatError:
    name, codec = next((n, c) for b, n, c in _FOREIGN_BOMS if b == bom)
    return TrecFormatError(
        f"{p}: the file is {name} encoded (byte-order mark {bom.hex(' ').upper()}); "
        f"TREC files must be UTF-8 (or ASCII): convert it with "
        f"`iconv -f {codec} -t UTF-8 {p} > {p.name}.utf8`")


def _check_bytes(data: bytes, source: str) -> None:
    """Reject NUL bytes (UTF-16/32 text without a byte-order mark) and carriage returns that do
    not end a CRLF line end (old Mac OS line ends), naming the 1-based line. Two ``bytes.find``
    scans when the text is clean; numpy only when a carriage return is present."""
    nul = data.find(b"\x00")
    if nul >= 0:
        raise _nul_error(source, data.count(b"\n", 0, nul) + 1)
    if data.find(b"\r") < 0:
        return
    buf = np.frombuffer(data, dtype=np.uint8)
    cr = np.flatnonzero(buf == 13)
    after = cr + 1
    bare = cr[(after >= buf.size) | (buf[np.minimum(after, buf.size - 1)] != 10)]
    if bare.size:
        raise _cr_error(source, data.count(b"\n", 0, int(bare[0])) + 1)


def _nul_error(source: str | Path, line: int) -> TrecFormatError:
    return TrecFormatError(
        f"{source}:{line}: NUL byte (0x00) in the text; is the file "
        "UTF-16 or UTF-32 without a byte-order mark? TREC files must be UTF-8: convert it "
        "with `iconv -f UTF-16LE -t UTF-8` (or the file's actual encoding)")


def _cr_error(source: str | Path, line: int) -> TrecFormatError:
    return TrecFormatError(
        f"{source}:{line}: CR-only line endings are not supported "
        "(a carriage return not followed by a line feed; lines must end with LF or CRLF): "
        f"convert the file with `tr '\\r' '\\n' < {source} > fixed.txt` (or mac2unix)")


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


# --------------------------------------------------------------------------------------------
# hashing, query encoding and duplicate detection
# --------------------------------------------------------------------------------------------

_K1 = np.uint64(0x9E3779B97F4A7C15)
_K2 = np.uint64(0xBF58476D1CE4E5B9)
_K3 = np.uint64(0x94D049BB133111EB)
_LOW_BYTES = np.array([(1 << (8 * k)) - 1 for k in range(9)], dtype=np.uint64)  # k low bytes set
_U = {k: np.uint64(k) for k in (1, 3, 27, 29, 30, 31, 63)}


def _mix(h: np.ndarray, tmp: np.ndarray) -> None:
    """splitmix64 finaliser, in place (``tmp``: scratch of the same shape)."""
    for shift, k in ((_U[30], _K2), (_U[27], _K3)):
        np.right_shift(h, shift, out=tmp)
        h ^= tmp
        h *= k
    np.right_shift(h, _U[31], out=tmp)
    h ^= tmp


class _Scratch:
    """Temporaries for :func:`_piece_hash`, allocated once per :func:`hash_strings` call: fresh
    arrays of a few hundred KiB per piece would each be a new memory mapping to fault in."""

    def __init__(self, n: int):
        self.i = [np.empty(n, dtype=np.int64) for _ in range(4)]
        self.u = [np.empty(n, dtype=np.uint64) for _ in range(5)]
        self._words = np.empty(0, dtype=np.uint64)

    def words(self, data: np.ndarray) -> np.ndarray:
        """``data`` (bytes) copied to the start of an aligned uint64 buffer with at least two
        words to spare, so that 8-byte loads never run out (spare bytes are never used)."""
        need = len(data) // 8 + 3
        if len(self._words) < need:
            self._words = np.empty(max(need, 2 * len(self._words)), dtype=np.uint64)
        self._words.view(np.uint8)[: len(data)] = data
        return self._words


def _load8(words: np.ndarray, at: np.ndarray, out: np.ndarray, idx: np.ndarray,
           shift: np.ndarray, high: np.ndarray) -> None:
    """``out`` = the 8 bytes starting at byte offsets ``at`` of ``words`` (little-endian uint64),
    from two aligned loads (numpy gathers aligned words much faster than unaligned ones);
    ``idx``, ``shift``, ``high``: scratch."""
    np.right_shift(at, 3, out=idx)
    np.take(words, idx, out=out, mode="clip")  # indices are in range: "clip" skips buffering
    idx += 1
    np.take(words, idx, out=high, mode="clip")
    np.bitwise_and(at, 7, out=idx)
    idx <<= 3
    np.copyto(shift, idx, casting="unsafe")  # 0..56
    out >>= shift
    np.subtract(_U[63], shift, out=shift)
    high <<= shift  # two shifts, so that a shift by 64 (at & 7 == 0) clears high
    high <<= _U[1]
    out |= high


def _piece_hash(arr: pa.Array, out: np.ndarray, scratch: _Scratch) -> None:
    """Hash the strings of one (small) Arrow string array into ``out``.

    A string of length L with bytes b is reduced to its first 8 bytes ``f`` (zero-padded) and its
    last 8 bytes ``l`` (overlapping ``f`` when L < 16; equal to ``f`` when L ≤ 8), plus, for L > 16,
    the 8-byte words at 8, 16, ... before the last one. The state starts as L·K3 and absorbs each
    word w as ``h = ((h ^ w)·K) ^ (... >> 29)``; a splitmix64 finaliser ends it. The hash is a
    function of (L, b) only, so equal strings hash equally wherever they are stored.
    """
    n = len(arr)
    bufs = arr.buffers()
    wide = pa.types.is_large_string(arr.type) or pa.types.is_large_binary(arr.type)
    odt = np.int64 if wide else np.int32
    offsets = np.frombuffer(bufs[1], dtype=odt, count=n + 1, offset=arr.offset * odt().itemsize)
    lo, hi = int(offsets[0]), int(offsets[-1])
    data = (np.frombuffer(bufs[2], dtype=np.uint8, count=hi - lo, offset=lo) if hi > lo
            else np.zeros(0, dtype=np.uint8))
    words = scratch.words(data)
    starts, lens, at, idx = (x[:n] for x in scratch.i)
    keep, first, last, shift, high = (x[:n] for x in scratch.u)
    np.subtract(offsets[:-1], lo, out=starts)
    np.subtract(offsets[1:], offsets[:-1], out=lens)
    np.minimum(lens, 8, out=at)
    np.take(_LOW_BYTES, at, out=keep, mode="clip")
    _load8(words, starts, first, idx, shift, high)
    first &= keep
    np.subtract(lens, 8, out=at)
    np.maximum(at, 0, out=at)
    at += starts
    _load8(words, at, last, idx, shift, high)
    last &= keep
    np.copyto(out, lens, casting="unsafe")
    out *= _K3
    for word, k in ((first, _K1), (last, _K2)):
        out ^= word
        out *= k
        np.right_shift(out, _U[29], out=high)
        out ^= high
    long = np.flatnonzero(lens > 16)
    if len(long):
        _absorb_middle(words, starts[long], lens[long], out, long)
    _mix(out, high)


_MIDDLE_BLOCK = 1 << 20  # middle words gathered at once by _absorb_middle (bounded temporaries)


def _absorb_middle(words: np.ndarray, starts: np.ndarray, lens: np.ndarray, out: np.ndarray,
                   which: np.ndarray) -> None:
    """Absorb the middle words of strings longer than 16 bytes into ``out[which]``.

    A string of length L has m = ⌊(L − 9) / 8⌋ middle words w_1..w_m at byte offsets 8, 16, ...
    (the last 8 bytes are absorbed separately). Each is mixed with its position,
    ``v_k = ((w_k ^ k·K2)·K1) ^ (... >> 29)``, and the sum Σ v_k (mod 2⁶⁴) is absorbed like a word.
    All words of all strings are gathered in vectorised blocks of about 2**20 words and summed
    per string with ``np.add.reduceat``: linear time, however long one string is.
    """
    nw = (lens - 9) // 8
    ends = np.cumsum(nw)
    total = np.zeros(len(nw), dtype=np.uint64)
    lo = 0
    while lo < len(nw):  # strings lo..hi-1 hold about _MIDDLE_BLOCK words (at least one string)
        base = int(ends[lo] - nw[lo])
        hi = max(int(np.searchsorted(ends, base + _MIDDLE_BLOCK, side="right")), lo + 1)
        cnt = nw[lo:hi]
        n = int(cnt.sum())
        first = np.cumsum(cnt) - cnt  # first word of each string in this block
        k = np.arange(n, dtype=np.int64) - np.repeat(first, cnt)  # 0-based position
        at = np.repeat(starts[lo:hi], cnt) + 8 + 8 * k
        w = np.empty(n, dtype=np.uint64)
        _load8(words, at, w, np.empty(n, dtype=np.int64), np.empty(n, dtype=np.uint64),
               np.empty(n, dtype=np.uint64))
        w ^= (k + 1).astype(np.uint64) * _K2
        w *= _K1
        w ^= w >> _U[29]
        total[lo:hi] = np.add.reduceat(w, first)
        lo = hi
    h = out[which]
    h ^= total
    h *= _K1
    h ^= h >> _U[29]
    out[which] = h


_PIECE = 1 << 16


def hash_strings(arr: pa.Array | pa.ChunkedArray) -> np.ndarray:
    """64-bit hash of every string of ``arr``, vectorised 8 bytes at a time: equal strings get equal
    hashes. Used only to find candidate duplicates or matches, which are then compared exactly.
    Works in pieces of 65,536 strings, with one set of temporaries, so that they stay in cache."""
    chunks = arr.chunks if isinstance(arr, pa.ChunkedArray) else [arr]
    out = np.empty(len(arr), dtype=np.uint64)
    scratch = _Scratch(min(len(arr), _PIECE))
    i = 0
    with np.errstate(over="ignore"):
        for ch in chunks:
            for s in range(0, len(ch), _PIECE):
                piece = ch.slice(s, _PIECE)
                _piece_hash(piece, out[i: i + len(piece)], scratch)
                i += len(piece)
    return out


def pair_hash(query_hash: np.ndarray, docs: pa.Array | pa.ChunkedArray) -> np.ndarray:
    """64-bit key of each (query id, docid) pair: ``hash_strings(docs) ^ (query_hash · K1)``,
    ``query_hash`` holding ``hash_strings`` of each row's query id. A function of the two strings
    only (K1 odd: one document under two queries gets two keys), so runs and qrels compute the same
    keys independently; equal keys are only candidates, always confirmed exactly."""
    out = hash_strings(docs)
    with np.errstate(over="ignore"):
        out ^= query_hash * _K1
    return out


def take_rows(arr: pa.Array | pa.ChunkedArray, rows: np.ndarray) -> pa.Array:
    """``arr[rows]`` as one array. pyarrow's ``ChunkedArray.take`` first concatenates all chunks
    (a full copy of, say, 5 million docids for a handful of rows); here each chunk is taken from
    separately, for the rows that fall in it."""
    rows = np.asarray(rows, dtype=np.int64)
    if not isinstance(arr, pa.ChunkedArray):
        return arr.take(pa.array(rows))
    if arr.num_chunks == 1:
        return arr.chunk(0).take(pa.array(rows))
    sizes = np.array([len(c) for c in arr.chunks], dtype=np.int64)
    first = np.cumsum(sizes) - sizes  # first row of each chunk
    order = np.argsort(rows, kind="stable")
    srt = rows[order]
    where = np.searchsorted(first, srt, side="right") - 1
    cut = np.flatnonzero(np.diff(where)) + 1
    pieces = [arr.chunk(int(where[lo])).take(pa.array(srt[lo:hi] - first[where[lo]]))
              for lo, hi in zip(np.r_[0, cut], np.r_[cut, len(srt)], strict=True) if hi > lo]
    out = pa.concat_arrays(pieces) if pieces else arr.chunk(0).slice(0, 0)
    if not np.array_equal(order, np.arange(len(order))):
        inverse = np.empty_like(order)
        inverse[order] = np.arange(len(order))
        out = out.take(pa.array(inverse))
    return out


def _stretches(ids: pa.Array | pa.ChunkedArray) -> tuple[pa.Array, np.ndarray]:
    """The first id of every stretch of equal neighbours and the stretch lengths (a run lists the
    documents of a query together, so a few thousand stretches stand for millions of rows)."""
    n = len(ids)
    if n == 0:
        return pa.array([], type=pa.string()), np.zeros(0, dtype=np.int64)
    change = pc.not_equal(ids.slice(1), ids.slice(0, n - 1)).to_numpy(zero_copy_only=False)
    starts = np.flatnonzero(np.r_[True, change])
    return take_rows(ids, starts), np.diff(np.r_[starts, n])


def _encode_heads(heads: list[pa.Array], lengths: list[np.ndarray]) -> pa.DictionaryArray:
    """Dictionary-encode ids given as stretches: int32 codes into the distinct ids, in order of
    first appearance (as ``pc.dictionary_encode``); only the stretch heads are hashed."""
    enc = pc.dictionary_encode(pa.concat_arrays(heads) if len(heads) != 1 else heads[0])
    codes = np.repeat(enc.indices.to_numpy(zero_copy_only=False), np.concatenate(lengths))
    return pa.DictionaryArray.from_arrays(pa.array(codes), enc.dictionary)


def _as_codes(ids: pa.Array | pa.ChunkedArray) -> pa.DictionaryArray:
    """Ids as a DictionaryArray (codes in order of first appearance), encoding them if needed."""
    if isinstance(ids, pa.DictionaryArray):
        return ids
    heads, lengths = _stretches(ids)
    return _encode_heads([heads], [lengths])


_SORT_BLOCK = 1 << 16
"""Rows per independently sorted block of pair hashes (512 KiB of uint64: sorted in cache)."""


def _repeat_in_block(srt: np.ndarray, lo: int, hi: int) -> bool:
    """Sort ``srt[lo:hi]`` in place; True if two of its values are equal."""
    block = srt[lo:hi]
    block.sort()  # numpy releases the GIL: blocks are sorted side by side
    return bool(np.any(block[1:] == block[:-1]))


def _sorted_hashes(pairs: np.ndarray, qcodes: np.ndarray) -> tuple[np.ndarray, np.ndarray, bool]:
    """(``pairs`` sorted in independent blocks, the block starts other than 0, whether a block
    holds two equal values).

    When every query's rows are contiguous (runs list each query's documents together), the
    rows are cut between queries into blocks of about :data:`_SORT_BLOCK` rows: a repeated
    (query, document) pair lies within one block, so each block is sorted alone. The blocks are
    sorted on every pyarrow CPU thread (at most 8), or inline inside :func:`one_thread`. Measured
    on 1.5 million pair hashes (numpy 2.4, pandas 3.1, 2 cores): 30 ms in one thread, where one
    sort of all rows took 45-60 ms and a hash table (pandas ``duplicated``) 230-270 ms. Otherwise
    (a run whose queries are interleaved) one sort of all rows.
    """
    srt = pairs.copy()
    n = len(srt)
    cuts = np.flatnonzero(qcodes[1:] != qcodes[:-1]) + 1  # where a stretch of one query starts
    if n <= _SORT_BLOCK or len(cuts) + 1 != int(qcodes.max()) + 1:
        return srt, np.zeros(0, dtype=np.int64), _repeat_in_block(srt, 0, n)
    want = np.arange(_SORT_BLOCK, n, _SORT_BLOCK)
    bounds = (np.unique(cuts[np.minimum(np.searchsorted(cuts, want), len(cuts) - 1)])
              if len(cuts) else cuts)
    edges = np.r_[0, bounds, n]
    workers = min(pa.cpu_count(), 8, len(edges) - 1)
    with helper_pool(workers) as pool:
        found = any(list(pool.map(_repeat_in_block, [srt] * (len(edges) - 1), edges[:-1].tolist(),
                                  edges[1:].tolist())))
    return srt, bounds, found


def _duplicate_pair(qcodes: np.ndarray, docs: pa.Array | pa.ChunkedArray,
                    pairs: np.ndarray) -> tuple[int, int] | None:
    """Rows (first, second) of the first repeated (query, document) pair, or None.

    Repeated pair hashes (:func:`pair_hash`) are found by sorting them (:func:`_sorted_hashes`);
    rows sharing a hash are then compared exactly, so a hash collision can never produce a false
    error.
    """
    if len(qcodes) < 2:
        return None
    srt, bounds, found = _sorted_hashes(pairs, qcodes)
    if not found:
        return None
    eq = srt[1:] == srt[:-1]
    eq[bounds - 1] = False  # neighbours across a block boundary belong to different queries
    shared = np.unique(srt[1:][eq])
    del srt
    rows = np.flatnonzero(np.isin(pairs, shared))
    seen: dict[tuple[int, str], int] = {}
    for row, qc, doc in zip(rows.tolist(), qcodes[rows].tolist(),
                            take_rows(docs, rows).to_pylist(), strict=True):
        prev = seen.setdefault((qc, doc), row)
        if prev != row:
            return prev, row
    return None


# --------------------------------------------------------------------------------------------
# public loaders
# --------------------------------------------------------------------------------------------

def load_run(src: PathLike | pd.DataFrame | RunTable) -> RunTable:
    """Parse and validate a run (path, DataFrame with query_id/doc_id/score, or RunTable)."""
    if isinstance(src, RunTable):
        return src
    if isinstance(src, (str, os.PathLike)):
        source, qid, docid, score, line, pairs = _parse_file(src, "run")
        unit = "line"
    else:
        source, qid, docid, score = _frame_columns(src, "run")
        line, unit, pairs = None, "row", None
    qid = _as_codes(qid)
    codes = qid.indices.to_numpy(zero_copy_only=False)
    if pairs is None:
        pairs = pair_hash(hash_strings(qid.dictionary)[codes], docid)
    table = RunTable(source=source, query_id=qid, doc_id=docid, line=line, unit=unit,
                     score=np.asarray(score, dtype=np.float64), query_codes=codes,
                     query_dict=qid.dictionary, pair_hash=pairs)
    nan = np.flatnonzero(np.isnan(table.score))
    if len(nan):
        i = int(nan[0])
        raise TrecFormatError(f"{table.where(i)}: score is not a number: 'nan'")
    dup = _duplicate_pair(codes, docid, pairs)
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
    if isinstance(src, (str, os.PathLike)):
        source, qid, docid, rel, line, _ = _parse_file(src, "qrels")
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
    return pd.DataFrame({"query_id": _plain(t.query_id).to_pandas(),
                         "doc_id": t.doc_id.to_pandas(), "score": t.score})


def read_qrels(path: PathLike) -> pd.DataFrame:
    """Read TREC qrels (``qid iter docid relevance``) into ``[query_id, doc_id, relevance]``."""
    t = load_qrels(path)
    return pd.DataFrame({"query_id": t.query_id.to_pandas(), "doc_id": t.doc_id.to_pandas(),
                         "relevance": t.relevance})


def _tag_of(line: bytes) -> str | None:
    fields = line.split()
    return fields[5].decode("utf-8", "replace") if len(fields) >= 6 else None


def run_tag(path: PathLike) -> str | None:
    """The run tag of a TREC run file (the 6th field, ``qid Q0 docid rank score tag``), read from
    its first and last lines (the last of a gzip file is not read: that would decompress all of
    it); ``None`` when the run has no tag (Ranger's 4-field format, an empty or unreadable file)
    or when the two lines disagree (a file of several runs). Names runs after the data
    (``ranger-eval trec``) without parsing the file twice."""
    p = Path(path)
    try:
        with p.open("rb") as raw:
            if raw.read(2) == _GZIP_MAGIC:
                raw.seek(0)
                with gzip.open(raw) as fh:
                    return _tag_of(fh.readline(1 << 16))
            raw.seek(0)
            first = _tag_of(raw.readline(1 << 16).lstrip(_BOM))
            size = p.stat().st_size
            raw.seek(max(0, size - (1 << 16)))
            tail = raw.read().rstrip().rsplit(b"\n", 1)[-1]
    except (OSError, EOFError, zlib.error):
        return None
    last = _tag_of(tail)
    return first if first is not None and first == last else None

