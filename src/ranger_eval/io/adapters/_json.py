"""Streaming JSON for large evaluation logs, with the standard library only.

* :func:`iter_jsonl` reads JSON Lines one line at a time.
* :class:`JsonStream` walks one JSON text (an object or an array) incrementally: the caller
  iterates the top-level keys or elements and decides, value by value, whether to parse it
  whole (:meth:`JsonStream.value`), stream it as an array (:meth:`JsonStream.array`) or
  object (:meth:`JsonStream.object`), or skip it. Only one element is held in memory at a time,
  so a 10 GB Inspect log or a JSON array of lm-eval samples is read in bounded memory.

Every error is an :class:`~ranger_eval.errors.InputError` naming the file, the line and the
offending text, and the format that was expected.
"""
from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np

from ...errors import InputError
from ..files import TextReader, current_limits, open_text

__all__ = ["JsonStream", "iter_jsonl", "load_json", "snippet"]

_DECODER = json.JSONDecoder()
_WS = " \t\r\n"
_NUMBER_TAIL = re.compile(r"[0-9.eE+-]+")  # a number cut by the buffer's end
CHUNK = 1 << 20


def snippet(text: str | bytes, limit: int = 80) -> str:
    """A short, printable excerpt of ``text`` for error messages."""
    if isinstance(text, bytes):
        text = text.decode("utf-8", errors="replace")
    text = text.strip()
    return repr(text if len(text) <= limit else text[:limit] + "…")


def _depth_error(path: Path, where: str, expected: str) -> InputError:
    return InputError(f"{path}{where}: JSON nested more than {current_limits().max_depth} levels "
                      f"deep (set RANGER_EVAL_MAX_DEPTH to raise the limit); expected {expected}")


_STRING = re.compile(r'"(?:[^"\\]++|\\.)*+"', re.S)


def _too_deep(text: str, limit: int) -> bool:
    """Does the JSON ``text`` nest deeper than ``limit``? Brackets inside strings do not
    count. Vectorised: a bracket count, then (only when it exceeds the limit) the strings are
    cut out by a regular expression and the depth is a cumulative sum."""
    if text.count("[") + text.count("{") <= limit:
        return False
    bare = np.frombuffer(_STRING.sub("", text).encode("utf-8", "replace"), dtype=np.uint8)
    step = ((bare == 91) | (bare == 123)).astype(np.int64) - ((bare == 93) | (bare == 125))
    return bool(step.size) and int(np.cumsum(step).max()) > limit


def loads(text: str, path: Path, where: str, expected: str) -> Any:
    """``json.loads`` with the nesting limit: deeper JSON is an :class:`InputError`."""
    if _too_deep(text, current_limits().max_depth):
        raise _depth_error(path, where, expected)
    try:
        return json.loads(text)
    except RecursionError:
        raise _depth_error(path, where, expected) from None


def iter_jsonl(path: Path, *, expected: str) -> Iterator[tuple[int, Any]]:
    """``(line number, parsed value)`` for every non-blank line of a JSON Lines file.

    Reads one line at a time (never the whole file), each at most
    :attr:`~ranger_eval.io.files.Limits.max_record_length` characters. A line that is not JSON
    is an :class:`InputError` naming the file, the line number and the start of the line.
    """
    with open_text(path, what=expected, record=True) as fh:
        for number, raw in enumerate(fh, start=1):
            if not raw.strip():
                continue
            try:
                value = loads(raw, path, f":{number}", expected)
            except json.JSONDecodeError as exc:
                raise InputError(
                    f"{path}:{number}: not a JSON line ({exc.msg}): {snippet(raw)} "
                    f"(expected {expected}: one JSON object per line)"
                ) from None
            yield number, value


def load_json(path: Path, *, expected: str, max_bytes: int | None = None) -> Any:
    """One whole JSON file (small files only: ``max_bytes``), under the limits of
    :mod:`ranger_eval.io.files`; errors name the file, the line and what was expected."""
    with open_text(path, what=expected, json=True, max_bytes=max_bytes) as fh:
        text = fh.read()
    try:
        return loads(text, path, "", expected)
    except json.JSONDecodeError as exc:
        cut = exc.msg.startswith("Unterminated") or not exc.doc[exc.pos:].strip()
        end = "incomplete (truncated?)" if cut else f"invalid ({exc.msg})"
        raise InputError(f"{path}:{exc.lineno}: JSON is {end}; expected {expected}") from None


def _unclosed(text: str, start: int) -> bool:
    """True when the JSON text from ``start`` ends inside a string, an array or an object (the
    file was cut), as opposed to being invalid."""
    depth = 0
    in_string = escaped = False
    for ch in text[start:]:
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "[{":
            depth += 1
        elif ch in "]}":
            depth -= 1
    return in_string or depth > 0 or not text[start:].strip()


class JsonStream:
    """Incremental reader of one JSON text.

    ``expected`` names the format for error messages (``"an Inspect AI JSON log"``).
    Use as a context manager, or call :meth:`close`.
    """

    def __init__(self, path: Path, *, expected: str, chunk: int = CHUNK) -> None:
        self.path = path
        self.expected = expected
        self._fh: TextReader = open_text(path, what=expected, json=True)
        self._limits = current_limits()
        self._chunk = chunk
        self._buf = ""
        self._pos = 0
        self._lines_before = 0  # newlines in text already dropped from the buffer
        self._dropped = 0  # characters already dropped from the buffer
        self._eof = False

    # ------------------------------------------------------------------ plumbing
    def __enter__(self) -> JsonStream:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self._fh.close()

    def _read(self, size: int) -> bool:
        """Append up to ``size`` characters; False at end of file."""
        if self._eof:
            return False
        if self._pos > self._chunk:  # drop consumed text, keep line count
            self._lines_before += self._buf.count("\n", 0, self._pos)
            self._dropped += self._pos
            self._buf = self._buf[self._pos:]
            self._pos = 0
        data = self._fh.read(size)
        if not data:
            self._eof = True
            return False
        self._buf += data
        return True

    @property
    def offset(self) -> int:
        """Characters consumed so far (absolute position in the file's text)."""
        return self._dropped + self._pos

    def line(self, pos: int | None = None) -> int:
        """1-based line of buffer position ``pos`` (default: the current position)."""
        p = self._pos if pos is None else pos
        return self._lines_before + self._buf.count("\n", 0, p) + 1

    def error(self, message: str, pos: int | None = None) -> InputError:
        p = self._pos if pos is None else pos
        return InputError(
            f"{self.path}:{self.line(p)}: {message} at {snippet(self._buf[p:p + 60])} "
            f"(expected {self.expected})"
        )

    def _skip_ws(self) -> None:
        while True:
            buf, n = self._buf, len(self._buf)
            p = self._pos
            while p < n and buf[p] in _WS:
                p += 1
            self._pos = p
            if p < n or not self._read(self._chunk):
                return

    def peek(self) -> str:
        """The next non-blank character, or ``""`` at end of file."""
        self._skip_ws()
        return self._buf[self._pos] if self._pos < len(self._buf) else ""

    def _truncated(self) -> InputError:
        return InputError(
            f"{self.path}:{self.line(len(self._buf))}: unexpected end of file: the JSON text is "
            f"incomplete (truncated?); expected {self.expected}"
        )

    def _expect(self, chars: str) -> str:
        c = self.peek()
        if not c:
            raise self._truncated()
        if c not in chars:
            want = " or ".join(repr(ch) for ch in chars)
            raise self.error(f"expected {want}, found {c!r}")
        self._pos += 1
        return c

    # ------------------------------------------------------------------ values
    def value(self) -> Any:
        """Parse the next JSON value whole."""
        if not self.peek():
            raise self._truncated()
        size = self._chunk
        limit = self._limits.max_record_length
        while True:
            if len(self._buf) - self._pos > limit:
                raise InputError(
                    f"{self.path}:{self.line()}: one JSON value longer than {limit} characters "
                    f"(set RANGER_EVAL_MAX_RECORD_LENGTH to raise the limit); expected "
                    f"{self.expected}")
            try:
                obj, end = _DECODER.raw_decode(self._buf, self._pos)
                if isinstance(obj, (list, dict)) and _too_deep(self._buf[self._pos:end],
                                                               self._limits.max_depth):
                    raise RecursionError
            except RecursionError:
                raise _depth_error(self.path, f":{self.line()}", self.expected) from None
            except json.JSONDecodeError as exc:
                if self._read(size):
                    size *= 2
                    continue
                if _unclosed(self._buf, self._pos):
                    raise self._truncated() from None
                raise self.error(f"invalid JSON ({exc.msg})", exc.pos) from None
            # a number may continue past the buffer ("3" of "3.14"): only a delimiter ends it
            if (end == len(self._buf) or (isinstance(obj, (int, float)) and
                                          _NUMBER_TAIL.fullmatch(self._buf, end) is not None)) \
                    and self._read(size):
                size *= 2
                continue
            self._pos = end
            return obj

    def skip(self, _depth: int = 0) -> None:
        """Skip the next value (streamed when it is an array or object)."""
        c = self.peek()
        if c in "[{" and c and _depth >= self._limits.max_depth:
            raise _depth_error(self.path, f":{self.line()}", self.expected)
        if c == "[":
            for _ in self.array():
                self.skip(_depth + 1)
        elif c == "{":
            for _ in self.object():
                self.skip(_depth + 1)
        else:
            self.value()

    def array(self) -> Iterator[int]:
        """Stream an array: yields the index of each element; the caller must consume it."""
        self._expect("[")
        if self.peek() == "]":
            self._pos += 1
            return
        index = 0
        while True:
            start = self.offset
            yield index
            if self.offset == start:
                raise RuntimeError("JsonStream.array: element not consumed")
            index += 1
            if self._expect(",]") == "]":
                return

    def object(self) -> Iterator[str]:
        """Stream an object: yields each key; the caller must consume its value."""
        self._expect("{")
        if self.peek() == "}":
            self._pos += 1
            return
        while True:
            if self.peek() != '"':
                if not self.peek():
                    raise self._truncated()
                raise self.error("expected a quoted key")
            key = self.value()
            self._expect(":")
            start = self.offset
            yield key
            if self.offset == start:
                raise RuntimeError("JsonStream.object: value not consumed")
            if self._expect(",}") == "}":
                return

    def end(self) -> None:
        """Check that nothing but blanks follows the JSON text."""
        c = self.peek()
        if c:
            raise self.error("unexpected text after the JSON value")
