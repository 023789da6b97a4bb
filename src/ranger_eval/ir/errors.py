"""Exceptions and warnings of the IR engine (all errors are ``ValueError`` subclasses)."""
from __future__ import annotations


class TrecFormatError(ValueError):
    """A run or qrels file (or table) is malformed; the message names the file, line and text."""


class DuplicateEntryError(TrecFormatError):
    """The same (query, document) pair occurs twice in a run or in qrels."""


class MeasureError(ValueError):
    """A measure name cannot be parsed, is unknown, or has a bad parameter."""


class MissingTopicsError(ValueError):
    """``missing="error"`` and some qrels topics have no ranking in the run."""


class IgnoredTopicsWarning(UserWarning):
    """Run topics without qrels were ignored, or qrels topics absent from a run were dropped."""
