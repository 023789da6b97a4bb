"""Evaluate less, know as much: anytime-valid monitoring of a running evaluation, item response
theory, and valid estimates of a whole benchmark from a subset of its items.
"""
from .inspect_stop import MonitorStopping
from .irt import IRTPrediction, IRTResult, irt
from .monitor import DECISIONS, ConfidenceSequence, MonitorResult, confidence_sequence, monitor
from .subset import SubsetChoice, SubsetEstimate, choose_subset, estimate_from_subset

__all__ = ["DECISIONS", "ConfidenceSequence", "IRTPrediction", "IRTResult", "MonitorResult",
           "MonitorStopping", "SubsetChoice", "SubsetEstimate", "choose_subset",
           "confidence_sequence", "estimate_from_subset", "irt", "monitor"]
