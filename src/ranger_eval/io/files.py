"""What every input file passes before it is read, and the one text decoder every reader uses.

Decisions shared by all readers of :mod:`ranger_eval.io` (tables, YAML, adapters), the same as
the TREC readers of :mod:`ranger_eval.ir`:

* **File kinds.** Only regular files (symlinks followed). A FIFO, a device (``/dev/zero``), a
  socket or a folder would hang or exhaust memory: an :class:`~ranger_eval.errors.InputError`
  naming the path, before anything is read.
* **Compression.** gzip (recognised by its magic bytes, whatever the file name) is decompressed
  as a stream. The decompressed size is capped (:attr:`Limits.max_decompressed_bytes`) and so is
  the compression ratio once a few MiB have come out (:attr:`Limits.max_ratio`): a
  decompression bomb is an error within a second, in bounded memory. bzip2, xz, zstd, zip and
  7-zip data are rejected by their magic bytes with a message saying to decompress first
  (Inspect's ``.eval`` logs are zip archives and are read by their own adapter).
* **Encoding.** UTF-8, with or without a byte-order mark. UTF-16 and UTF-32 (byte-order marks
  FF FE, FE FF, FF FE 00 00, 00 00 FE FF) are an error naming the encoding and the ``iconv``
  command that converts the file; a NUL byte (UTF-16 without a mark, or binary data) and bytes
  that are not UTF-8 are errors naming the line.
* **Line endings.** LF and CRLF, read identically (CRLF becomes LF). A carriage return not
  followed by a line feed (old Mac OS line ends) is an error naming the line in line-oriented
  formats (tables, JSON Lines, YAML, tool outputs); inside a JSON document it is whitespace
  (RFC 8259) and read as a line end.
* **Line length.** A line longer than :attr:`Limits.max_line_length` characters (1 MiB) in a
  line-oriented format, or a JSON record (one JSON Lines line, one element of a streamed JSON
  document) longer than :attr:`Limits.max_record_length` (256 MiB), is an error naming the
  file and line, raised as soon as the limit is passed (nothing more is read).
* **Nesting.** JSON and YAML nested deeper than :attr:`Limits.max_depth` levels are an error
  naming the file, never a ``RecursionError``.

The limits are a :class:`Limits`; :func:`current_limits` gives the ones in force: the defaults,
overridden by the environment variables ``RANGER_EVAL_MAX_LINE_LENGTH``,
``RANGER_EVAL_MAX_RECORD_LENGTH``, ``RANGER_EVAL_MAX_DECOMPRESSED_BYTES``,
``RANGER_EVAL_MAX_RATIO`` and ``RANGER_EVAL_MAX_DEPTH``, and within a ``with limits(...):`` block.
"""
from __future__ import annotations

import codecs
import contextlib
import contextvars
import dataclasses
import gzip
import io
import os
import stat
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from ..errors import InputError

__all__ = [
    "MAX_CONFIG_BYTES",
    "Limits",
    "TextReader",
    "check_input_file",
    "current_limits",
    "limits",
    "open_text",
]

#: An experiment YAML larger than this is not a configuration (64 MiB).
MAX_CONFIG_BYTES = 64 * 2**20
MiB = 2**20


@dataclass(frozen=True)
class Limits:
    """Resource limits of the readers (see the module doc for what each one guards)."""

    #: characters of one line of a line-oriented text format (tables, YAML, tool outputs)
    max_line_length: int = MiB
    #: characters of one JSON record: a JSON Lines line, one value of a streamed JSON document
    max_record_length: int = 256 * MiB
    #: bytes a compressed file may decompress to
    max_decompressed_bytes: int = 16 * 2**30
    #: decompressed / compressed bytes, checked once :attr:`ratio_after_bytes` came out
    max_ratio: float = 100.0
    ratio_after_bytes: int = 8 * MiB
    #: nesting levels of JSON and YAML values
    max_depth: int = 100

    def __post_init__(self) -> None:
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or value <= 0:
                raise InputError(f"limit {f.name}={value!r}: must be a positive number")


_ENV = {
    "max_line_length": "RANGER_EVAL_MAX_LINE_LENGTH",
    "max_record_length": "RANGER_EVAL_MAX_RECORD_LENGTH",
    "max_decompressed_bytes": "RANGER_EVAL_MAX_DECOMPRESSED_BYTES",
    "max_ratio": "RANGER_EVAL_MAX_RATIO",
    "max_depth": "RANGER_EVAL_MAX_DEPTH",
}
_LIMITS: contextvars.ContextVar[Limits | None] = contextvars.ContextVar("ranger_limits",
                                                                        default=None)


def _env_limits() -> Limits:
    changes: dict[str, float] = {}
    for name, var in _ENV.items():
        text = os.environ.get(var)
        if text is None or not text.strip():
            continue
        try:
            changes[name] = float(text) if name == "max_ratio" else int(text)
        except ValueError:
            raise InputError(f"environment variable {var}={text!r}: expected a positive "
                             f"{'number' if name == 'max_ratio' else 'integer'}") from None
    return Limits(**changes)  # type: ignore[arg-type]


def current_limits() -> Limits:
    """The limits in force: those of the innermost ``with limits(...)``, else the defaults
    with the ``RANGER_EVAL_MAX_*`` environment variables applied.

    Returns
    -------
    Limits
        The frozen limits every reader of this thread/task checks against.

    Raises
    ------
    InputError
        A ``RANGER_EVAL_MAX_*`` variable that is not a positive number.

    Examples
    --------
    >>> from ranger_eval.io.files import current_limits, limits
    >>> with limits(max_depth=20):
    ...     current_limits().max_depth
    20
    """
    return _LIMITS.get() or _env_limits()


@contextlib.contextmanager
def limits(**changes: float) -> Iterator[Limits]:
    """``with limits(max_line_length=10_000_000): ...`` reads with other limits in that block
    (thread- and task-local). Unknown names are an error.

    Parameters
    ----------
    **changes : float
        New values for fields of :class:`Limits` (``max_line_length``, ``max_record_length``,
        ``max_decompressed_bytes``, ``max_ratio``, ``ratio_after_bytes``, ``max_depth``); the
        others keep the values in force (:func:`current_limits`).

    Returns
    -------
    contextlib.AbstractContextManager of Limits
        A context manager whose ``as`` target is the new :class:`Limits`; the previous limits
        are restored when the block ends.

    Raises
    ------
    InputError
        An unknown limit name, or a value that is not a positive number.

    Examples
    --------
    >>> from ranger_eval.io.files import current_limits, limits
    >>> with limits(max_line_length=10_000_000) as lim:
    ...     lim.max_line_length, current_limits().max_line_length
    (10000000, 10000000)
    >>> with limits(max_lines=5):
    ...     pass
    Traceback (most recent call last):
    ...
    ranger_eval.errors.InputError: unknown limit(s) max_lines; the limits are max_line_length, ...
    """
    unknown = sorted(set(changes) - {f.name for f in dataclasses.fields(Limits)})
    if unknown:
        raise InputError(f"unknown limit(s) {', '.join(unknown)}; the limits are "
                         f"{', '.join(f.name for f in dataclasses.fields(Limits))}")
    new = dataclasses.replace(current_limits(), **changes)  # type: ignore[arg-type]
    token = _LIMITS.set(new)
    try:
        yield new
    finally:
        _LIMITS.reset(token)


def check_input_file(path: str | os.PathLike[str], *, what: str = "input",
                     max_bytes: int | None = None) -> Path:
    """``path`` if it is an existing regular file (symlinks followed) no larger than ``max_bytes``;
    else an :class:`InputError` saying what it is instead."""
    p = Path(path)
    try:
        st = os.stat(p)
    except FileNotFoundError:
        raise InputError(f"{p}: file not found") from None
    except OSError as exc:
        raise InputError(f"{p}: cannot read ({exc.strerror})") from None
    mode = st.st_mode
    if not stat.S_ISREG(mode):
        kind = ("a folder" if stat.S_ISDIR(mode) else "a FIFO (named pipe)" if stat.S_ISFIFO(mode)
                else "a device" if stat.S_ISCHR(mode) or stat.S_ISBLK(mode)
                else "a socket" if stat.S_ISSOCK(mode) else "not a regular file")
        raise InputError(f"{p}: is {kind}; the {what} must be a regular file")
    if max_bytes is not None and st.st_size > max_bytes:
        raise InputError(
            f"{p}: {st.st_size} bytes; the {what} may have at most {max_bytes} bytes"
        )
    return p


# ------------------------------------------------------------------------------- the decoder
GZIP_MAGIC = b"\x1f\x8b"
#: magic bytes of compressed or archive formats that are not read (gzip is)
_OTHER_COMPRESSION = (
    (b"BZh", "bzip2", "bunzip2"),
    (b"\xfd7zXZ\x00", "xz", "unxz"),
    (b"\x28\xb5\x2f\xfd", "zstd", "unzstd"),
    (b"PK\x03\x04", "a zip archive", "unzip"),
    (b"7z\xbc\xaf\x27\x1c", "a 7-zip archive", "7z x"),
)
#: byte-order marks of encodings other than UTF-8 (UTF-32 first: its LE mark starts like UTF-16's)
FOREIGN_BOMS = (
    (b"\xff\xfe\x00\x00", "UTF-32 little-endian", "UTF-32"),
    (b"\x00\x00\xfe\xff", "UTF-32 big-endian", "UTF-32"),
    (b"\xff\xfe", "UTF-16 little-endian", "UTF-16"),
    (b"\xfe\xff", "UTF-16 big-endian", "UTF-16"),
)
UTF8_BOM = b"\xef\xbb\xbf"
_BLOCK = 1 << 16


class _Counting(io.RawIOBase):
    """A raw file that counts the bytes read from it (the compressed size consumed)."""

    def __init__(self, fh: IO[bytes]) -> None:
        self._fh = fh
        self.count = 0

    def readable(self) -> bool:
        return True

    def readinto(self, b: bytearray | memoryview) -> int:  # type: ignore[override]
        n = self._fh.readinto(b)  # type: ignore[attr-defined]
        self.count += n or 0
        return n or 0


class TextReader(io.TextIOBase):
    """The decoded text of one input file, read incrementally under the :class:`Limits`.

    ``max_line``: characters allowed between two line feeds (None: no limit, for a JSON
    document whose values :class:`~ranger_eval.io.adapters._json.JsonStream` limits itself).
    ``json``: a bare carriage return is a line end rather than an error.
    Every error is an :class:`InputError` naming the file and the line.
    """

    def __init__(self, path: Path, *, what: str, max_line: int | None, json: bool,
                 lim: Limits) -> None:
        self.path = path
        self.what = what
        self.max_line = max_line
        self.json = json
        self.limits = lim
        self._raw = path.open("rb")
        self._counting: _Counting | None = None
        self._stream: io.BufferedIOBase | IO[bytes] = self._raw
        self._decoder = codecs.getincrementaldecoder("utf-8")("strict")
        self._buf = ""
        self._pos = 0
        self._eof = False
        self._pending_cr = False
        self._line = 1  # line of the next character to decode
        self._line_len = 0  # characters since the last line feed (decoded text)
        self._out_bytes = 0
        self.compressed = False
        self._peeked = b""
        self._skip_bom = True
        try:
            self._start()
        except BaseException:
            self._raw.close()
            raise

    # --------------------------------------------------------------- set-up
    def _start(self) -> None:
        head = self._raw.read(8)
        self._raw.seek(0)
        if head.startswith(GZIP_MAGIC):
            self.compressed = True
            self._counting = _Counting(self._raw)
            self._stream = gzip.GzipFile(fileobj=io.BufferedReader(self._counting), mode="rb")
            head = self._read_block(8, peek=True)
        else:
            for magic, name, tool in _OTHER_COMPRESSION:
                if head.startswith(magic):
                    raise InputError(
                        f"{self.path}: the file is {name} compressed; Ranger reads plain or "
                        f"gzip-compressed text: decompress it first (`{tool}`)")
        for bom, name, codec in FOREIGN_BOMS:
            if head.startswith(bom):
                raise InputError(
                    f"{self.path}: the file is {name} encoded (byte-order mark "
                    f"{bom.hex(' ').upper()}); Ranger reads UTF-8 (or ASCII) text: convert it "
                    f"with `iconv -f {codec} -t UTF-8 {self.path} > {self.path.name}.utf8`")

    def _read_block(self, size: int, peek: bool = False) -> bytes:
        try:
            data = self._stream.read(size)
        except (OSError, EOFError, zlib.error) as exc:
            raise InputError(f"{self.path}: corrupt gzip data ({exc}); the {self.what} is damaged "
                             f"or truncated") from None
        if peek:
            self._peeked = data
        return data

    # --------------------------------------------------------------- decoding
    def _fill(self) -> bool:
        """Decode one more block into the buffer; False at end of file."""
        if self._eof:
            return False
        lim = self.limits
        block = _BLOCK if self.max_line is None else max(1, min(_BLOCK, self.max_line))
        data = self._peeked
        if data:
            self._peeked = b""
        else:
            data = self._read_block(block)
        if self._skip_bom:
            if len(data) < 3 and data and UTF8_BOM.startswith(data):
                data += self._read_block(3 - len(data))
            if data.startswith(UTF8_BOM):
                data = data[3:]
            self._skip_bom = False
        final = not data
        if self.compressed and data:
            self._out_bytes += len(data)
            self._check_bomb(lim)
        try:
            text = self._decoder.decode(data, final=final)
        except UnicodeDecodeError as exc:
            good = data[:max(0, exc.start)].decode("utf-8", errors="replace")
            raise InputError(
                f"{self.path}:{self._line + good.count(chr(10))}: not UTF-8 text (byte "
                f"{data[exc.start:exc.start + 1].hex().upper()}: {exc.reason}); Ranger reads "
                f"UTF-8 text: convert it with `iconv -f LATIN1 -t UTF-8` (or its encoding)"
            ) from None
        if final:
            self._eof = True
        text = self._newlines(text, final)
        if "\x00" in text:
            at = text.index("\x00")
            raise InputError(
                f"{self.path}:{self._line + text.count(chr(10), 0, at)}: NUL byte (0x00) in the "
                f"text; is the file UTF-16 or UTF-32 without a byte-order mark, or binary? "
                f"Ranger reads UTF-8 text")
        self._check_lines(text)
        if self._pos:
            self._buf = self._buf[self._pos:]
            self._pos = 0
        self._buf += text
        return bool(text) or not final

    def _check_bomb(self, lim: Limits) -> None:
        out = self._out_bytes
        if out > lim.max_decompressed_bytes:
            raise InputError(
                f"{self.path}: decompresses to more than {lim.max_decompressed_bytes} bytes (the "
                f"limit; set RANGER_EVAL_MAX_DECOMPRESSED_BYTES to raise it)")
        consumed = max(1, self._counting.count if self._counting else 1)
        if out > lim.ratio_after_bytes and out > lim.max_ratio * consumed:
            raise InputError(
                f"{self.path}: a decompression bomb? {consumed} compressed bytes gave {out} "
                f"bytes (ratio {out / consumed:.0f}, limit {lim.max_ratio:g}; set "
                f"RANGER_EVAL_MAX_RATIO to raise it)")

    def _newlines(self, text: str, final: bool) -> str:
        if self._pending_cr:
            text = "\r" + text
            self._pending_cr = False
        if "\r" not in text:
            return text
        if text.endswith("\r") and not final:
            text = text[:-1]
            self._pending_cr = True
        if self.json:
            return text.replace("\r\n", "\n").replace("\r", "\n")
        bare = text.replace("\r\n", "").find("\r")
        if bare >= 0:
            at = 0
            while True:
                at = text.index("\r", at)
                if not text.startswith("\r\n", at):
                    break
                at += 2
            raise InputError(
                f"{self.path}:{self._line + text.count(chr(10), 0, at)}: CR-only line endings "
                f"are not supported (a carriage return not followed by a line feed; lines must "
                f"end with LF or CRLF): convert the file with `tr '\\r' '\\n'` (or mac2unix)")
        return text.replace("\r\n", "\n")

    def _check_lines(self, text: str) -> None:
        first = text.find("\n")
        if first < 0:
            self._line_len += len(text)
            current = self._line_len
            last = -1
        else:
            current = self._line_len + first
            last = text.rfind("\n")
            self._line_len = len(text) - last - 1
        if self.max_line is not None and (current > self.max_line or
                                          self._line_len > self.max_line):
            line = self._line if current > self.max_line else self._line + text.count("\n")
            raise InputError(
                f"{self.path}:{line}: line longer than {self.max_line} characters (the limit "
                f"of a line; set RANGER_EVAL_MAX_"
                f"{'RECORD' if self.max_line == self.limits.max_record_length else 'LINE'}"
                f"_LENGTH to raise it)")
        if last >= 0:
            self._line += text.count("\n")

    # --------------------------------------------------------------- file interface
    def readable(self) -> bool:
        return True

    def read(self, size: int | None = -1) -> str:
        if size is None or size < 0:
            parts = [self._buf[self._pos:]]
            self._buf, self._pos = "", 0
            while self._fill():
                parts.append(self._buf)
                self._buf = ""
            return "".join(parts)
        while len(self._buf) - self._pos < size and self._fill():
            pass
        out = self._buf[self._pos:self._pos + size]
        self._pos += len(out)
        return out

    def readline(self, size: int | None = -1) -> str:  # type: ignore[override]
        start = self._pos
        scan = start
        while True:
            nl = self._buf.find("\n", scan)
            if nl >= 0:
                end = nl + 1
                break
            scan = len(self._buf)
            more = self._fill()
            # the buffer may have been shifted, also by the last (empty) fill: a last line
            # without a line end is then still there, at the new position
            start, scan = self._pos, scan - (start - self._pos)
            if not more:
                end = len(self._buf)
                break
        if size is not None and size >= 0:
            end = min(end, start + size)
        out = self._buf[start:end]
        self._pos = end
        return out

    def __iter__(self) -> Iterator[str]:  # type: ignore[override]
        while True:
            line = self.readline()
            if not line:
                return
            yield line

    def __next__(self) -> str:  # type: ignore[override]
        line = self.readline()
        if not line:
            raise StopIteration
        return line

    def close(self) -> None:
        if not self.closed:
            with contextlib.suppress(Exception):
                if self._stream is not self._raw:
                    self._stream.close()
            self._raw.close()
        super().close()


def open_text(path: str | os.PathLike[str], *, what: str = "input file",
              record: bool = False, json: bool = False,
              max_bytes: int | None = None) -> TextReader:
    """Open ``path`` as UTF-8 text under the decisions of this module (regular file, gzip,
    encoding, line ends, line length; see the module doc).

    ``record``: lines are JSON records (limit :attr:`Limits.max_record_length` instead of
    :attr:`Limits.max_line_length`); ``json``: a whole JSON document (no line limit, bare CR is
    whitespace). Use as a context manager.
    """
    p = check_input_file(path, what=what, max_bytes=max_bytes)
    lim = current_limits()
    max_line = None if json else lim.max_record_length if record else lim.max_line_length
    return TextReader(p, what=what, max_line=max_line, json=json, lim=lim)
