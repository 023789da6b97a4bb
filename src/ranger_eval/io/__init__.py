"""Readers: per-item score files and tidy tables (:mod:`.tables`), experiment YAML (:mod:`.config`).

This layer only reads and validates; turning a config into scores and analyses is
:mod:`ranger_eval.pipeline`'s job.
"""
from __future__ import annotations

from ..errors import ConfigError, InputError
from .battles import Battles
from .config import (
    CompareSection,
    Experiment,
    ExperimentConfig,
    IRConfig,
    SystemConfig,
    TaskConfig,
    experiment_from_table,
    load_experiment,
)
from .files import Limits, current_limits, limits
from .tables import read_item_scores, read_scores, read_table, read_values

__all__ = [
    "Battles",
    "CompareSection",
    "ConfigError",
    "Experiment",
    "ExperimentConfig",
    "IRConfig",
    "InputError",
    "Limits",
    "SystemConfig",
    "TaskConfig",
    "current_limits",
    "experiment_from_table",
    "limits",
    "load_experiment",
    "read_item_scores",
    "read_scores",
    "read_table",
    "read_values",
]
