"""The one record every command's run returns (:class:`CommandRun`)."""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any

__all__ = ["CommandRun"]


@dataclass(frozen=True)
class CommandRun:
    """What a ``ranger-eval COMMAND`` run returns, whatever the command: ``result`` (the
    analysis result: a :class:`~ranger_eval.Comparison`, :class:`~ranger_eval.verdicts.Ratings`,
    …), ``written`` (the files, in the order written), ``warnings`` (one line each, as printed),
    ``settings`` (the command's settings object, e.g. :class:`~ranger_eval.settings.ASOSettings`),
    ``command`` (its name) and ``parts``: the other results of a command that makes several,
    by name (read-only), e.g. ``run.parts["rank_test"]``, ``run.parts["win_rate"]`` of
    ``rank``, ``run.parts["experiment"]`` of ``meta``; each command's ``run_<command>`` lists
    its parts."""

    result: Any
    written: tuple[Path, ...]
    warnings: tuple[str, ...]
    settings: Any = None
    command: str = ""
    parts: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        object.__setattr__(self, "parts", MappingProxyType(dict(self.parts)))
