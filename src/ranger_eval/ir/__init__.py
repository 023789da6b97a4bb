"""IR engine: TREC run/qrels readers, measure parsing and trec_eval-exact vectorised evaluation.

>>> from ranger_eval import ir
>>> df = ir.evaluate("qrels.txt", "run.txt", ["nDCG@10", "AP", "RR"])   # doctest: +SKIP
"""
from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from .errors import (
    DuplicateEntryError,
    IgnoredTopicsWarning,
    MeasureError,
    MissingTopicsError,
    NoCommonTopicsError,
    TrecFormatError,
)
from .measures import Measure, measure_bounds, parse_measure, parse_measures

# pandas and pyarrow are imported only when evaluation or reading is first used (PEP 562), so
# `import ranger_eval.ir` and measure parsing stay fast.
_LAZY = {
    "IREvaluation": "evaluation", "evaluate": "evaluation", "evaluate_many": "evaluation",
    "prepare_qrels": "evaluation", "PreparedQrels": "evaluation", "summarize": "evaluation", "to_scores": "evaluation",
    "read_qrels": "readers", "read_run": "readers",
}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        module = importlib.import_module(f".{_LAZY[name]}", __name__)
        value = getattr(module, name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'ranger_eval.ir' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(__all__)

if TYPE_CHECKING:  # pragma: no cover
    from .evaluation import (
        IREvaluation,
        PreparedQrels,
        evaluate,
        evaluate_many,
        prepare_qrels,
        summarize,
        to_scores,
    )
    from .readers import read_qrels, read_run

__all__ = [
    "DuplicateEntryError",
    "IREvaluation",
    "IgnoredTopicsWarning",
    "Measure",
    "MeasureError",
    "MissingTopicsError",
    "NoCommonTopicsError",
    "PreparedQrels",
    "TrecFormatError",
    "evaluate",
    "evaluate_many",
    "measure_bounds",
    "parse_measure",
    "parse_measures",
    "prepare_qrels",
    "read_qrels",
    "read_run",
    "summarize",
    "to_scores",
]
