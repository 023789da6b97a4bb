"""Exceptions and warnings of the IR engine: the IR layer's part of :mod:`ranger_eval.errors`."""
from __future__ import annotations

from ..errors import (
    DuplicateEntryError,
    Hint,
    MeasureError,
    MissingTopicsError,
    RangerWarning,
    TrecFormatError,
)

__all__ = [
    "DuplicateEntryError",
    "IgnoredTopicsWarning",
    "MeasureError",
    "MissingTopicsError",
    "NoCommonTopicsError",
    "TrecFormatError",
]


def _examples(names: list[str], n: int = 5) -> str:
    shown = ", ".join(repr(x) for x in names[:n])
    return shown + (f", ... ({len(names)} in all)" if len(names) > n else "")


class NoCommonTopicsError(MissingTopicsError):
    """A run and the qrels share no topic (a run of another collection, or mismatched topic ids).

    Raised whatever the ``missing`` policy, unless ``allow_no_overlap=True``. Carries ``run`` and
    ``qrels`` (sources) and ``run_topics``/``qrels_topics`` (the distinct ids, in file order and
    byte order); :meth:`describe` words the message with another hint (the CLI names its flag).
    """

    def __init__(self, run: str, qrels: str, run_topics: list[str], qrels_topics: list[str]):
        self.run, self.qrels = run, qrels
        self.run_topics, self.qrels_topics = run_topics, qrels_topics
        hint = Hint("allow_no_overlap", True)
        super().__init__(self.describe(f"{hint.text} to evaluate anyway"), hints=[hint])

    def describe(self, hint: str, loud: bool = False) -> str:
        what = "NO TOPIC IN COMMON" if loud else "no topic in common"
        return (f"{self.run}: {what} with the qrels {self.qrels}: run topics "
                f"{_examples(self.run_topics)}; qrels topics {_examples(self.qrels_topics)}; "
                f"are they from the same collection? ({hint})")


class IgnoredTopicsWarning(RangerWarning):
    """Run topics without qrels were ignored, or qrels topics absent from a run were dropped
    (a :class:`~ranger_eval.errors.RangerWarning`: its hints are said as options on the command
    line)."""
