"""Atomic output files: write to a temporary file in the same folder, then rename over the target.

A reader never sees a half-written file and a crash never leaves one behind: ``os.replace`` is
atomic on POSIX and Windows when source and target are on the same file system, which a temporary
file in the target's own folder guarantees.
"""
from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Iterable, Iterator
from pathlib import Path

__all__ = ["atomic_path", "write_bytes", "write_text"]


@contextlib.contextmanager
def atomic_path(target: str | os.PathLike[str]) -> Iterator[Path]:
    """Yield a temporary path beside ``target``; on success it is renamed to ``target``.

    On an exception the temporary file is removed and ``target`` is left as it was.
    """
    target = Path(target)
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".part", dir=target.parent)
    os.close(fd)
    tmp_path = Path(tmp)
    try:
        yield tmp_path
        os.chmod(tmp_path, 0o644)
        os.replace(tmp_path, target)
    except BaseException:
        with contextlib.suppress(OSError):
            tmp_path.unlink()
        raise


def write_text(target: str | os.PathLike[str], text: str) -> Path:
    """Write ``text`` (UTF-8, ``\\n`` line endings) to ``target`` atomically; returns the path."""
    with atomic_path(target) as tmp:
        tmp.write_text(text, encoding="utf-8", newline="\n")
    return Path(target)


def write_parts(target: str | os.PathLike[str], parts: Iterable[bytes]) -> Path:
    """Write the concatenation of ``parts`` to ``target`` atomically, one part at a time (a
    file of hundreds of megabytes is never joined into one more copy in memory); returns the
    path."""
    with atomic_path(target) as tmp, open(tmp, "wb") as handle:
        for part in parts:
            handle.write(part)
    return Path(target)


def write_bytes(target: str | os.PathLike[str], data: bytes) -> Path:
    """Write ``data`` to ``target`` atomically; returns the path."""
    with atomic_path(target) as tmp:
        tmp.write_bytes(data)
    return Path(target)
