"""Evaluate less, know as much: anytime-valid monitoring of a running evaluation, item response
theory, and valid estimates of a whole benchmark from a subset of its items.
"""
from .inspect_stop import MonitorStopping
from .irt import IRTPrediction, IRTResult, irt
from .monitor import DECISIONS, ConfidenceSequence, MonitorResult, confidence_sequence, monitor

__all__ = ["DECISIONS", "ConfidenceSequence", "IRTPrediction", "IRTResult", "MonitorResult",
           "MonitorStopping",
           "confidence_sequence", "irt", "monitor"]
