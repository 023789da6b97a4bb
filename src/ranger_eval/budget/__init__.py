"""Evaluate less, know as much: anytime-valid monitoring of a running evaluation, item response
theory, and valid estimates of a whole benchmark from a subset of its items.
"""
from .irt import IRTPrediction, IRTResult, irt

__all__ = ["IRTPrediction", "IRTResult", "irt"]
