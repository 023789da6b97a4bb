"""The text of a TREC file, before any field is parsed: the path (a regular file), compression
(gzip read with a cap against decompression bombs; bzip2, xz, zstd, lz4 and zip refused by name),
encoding (UTF-8 with an optional BOM; UTF-16/32 refused), line ends (LF or CRLF; a lone CR is an
error), line length (:data:`MAX_LINE_BYTES`), and the segments of about :data:`_SEGMENT` bytes
that the fast path parses one at a time."""
from __future__ import annotations

import gzip
import io
import mmap
import os
import zlib
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pyarrow as pa

from ...errors import MissingInputError
from ..errors import TrecFormatError
from .tables import _BOM, _GZIP_MAGIC, PathLike

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
