"""Checks every input file passes before it is read: a regular file, within the size limits.

A FIFO, a device (``/dev/zero``), a socket or a folder given as an input would hang or exhaust
memory; they are rejected at once with an :class:`~ranger_eval.errors.InputError` naming the path.
"""
from __future__ import annotations

import os
import stat
from pathlib import Path

from ..errors import InputError

__all__ = ["MAX_CONFIG_BYTES", "check_input_file"]

#: An experiment YAML larger than this is not a configuration (64 MiB).
MAX_CONFIG_BYTES = 64 * 2**20


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
