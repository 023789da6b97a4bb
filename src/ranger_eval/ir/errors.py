"""Exceptions and warnings of the IR engine: the IR layer's part of :mod:`ranger_eval.errors`."""
from __future__ import annotations

from ..errors import DuplicateEntryError, MeasureError, MissingTopicsError, TrecFormatError

__all__ = [
    "DuplicateEntryError",
    "IgnoredTopicsWarning",
    "MeasureError",
    "MissingTopicsError",
    "TrecFormatError",
]


class IgnoredTopicsWarning(UserWarning):
    """Run topics without qrels were ignored, or qrels topics absent from a run were dropped."""
