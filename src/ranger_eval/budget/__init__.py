"""Evaluate less, know as much: anytime-valid monitoring of a running evaluation, item response
theory, and valid estimates of a whole benchmark from a subset of its items.
"""
from .monitor import DECISIONS, ConfidenceSequence, MonitorResult, confidence_sequence, monitor

__all__ = ["DECISIONS", "ConfidenceSequence", "MonitorResult", "confidence_sequence", "monitor"]
