"""The one record every command's run returns (:class:`CommandRun`)."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = ["CommandRun"]


@dataclass(frozen=True)
class CommandRun:
    """What a ``ranger-eval COMMAND`` run returns, whatever the command: ``result`` (the
    analysis result: a :class:`~ranger_eval.Comparison`, :class:`~ranger_eval.verdicts.Ratings`,
    …), ``written`` (the files, in the order written), ``warnings`` (one line each, as printed),
    ``settings`` (the command's settings object, e.g. :class:`~ranger_eval.settings.ASOSettings`)
    and ``command`` (its name)."""

    result: Any
    written: tuple[Path, ...]
    warnings: tuple[str, ...]
    settings: Any = None
    command: str = ""
