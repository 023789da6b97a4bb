"""IR engine: TREC run/qrels readers, measure parsing and trec_eval-exact vectorised evaluation.

>>> from ranger_eval import ir
>>> df = ir.evaluate("qrels.txt", "run.txt", ["nDCG@10", "AP", "RR"])   # doctest: +SKIP
"""
from .errors import (
    DuplicateEntryError,
    IgnoredTopicsWarning,
    MeasureError,
    MissingTopicsError,
    NoCommonTopicsError,
    TrecFormatError,
)
from .evaluation import IREvaluation, evaluate, evaluate_many, prepare_qrels, summarize, to_scores
from .measures import Measure, parse_measure, parse_measures
from .readers import read_qrels, read_run

__all__ = [
    "DuplicateEntryError",
    "IREvaluation",
    "IgnoredTopicsWarning",
    "Measure",
    "MeasureError",
    "MissingTopicsError",
    "NoCommonTopicsError",
    "TrecFormatError",
    "evaluate",
    "evaluate_many",
    "parse_measure",
    "parse_measures",
    "prepare_qrels",
    "read_qrels",
    "read_run",
    "summarize",
    "to_scores",
]
