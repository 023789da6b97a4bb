"""Command-line options made from the fields of the settings objects (:mod:`ranger_eval.settings`):
the help text and the shown default come from the field, so they cannot drift from the analysis.

The parser's own default stays ``None`` ("not given"): the YAML's value, or else the settings
default, applies (``pipeline`` merges them).
"""
from __future__ import annotations

from typing import Any

import typer

from ..settings import settings_fields

__all__ = ["setting_option"]


def setting_option(cls: type, name: str, *param_decls: str) -> Any:
    """``typer.Option`` of the settings field ``name`` of ``cls``: its help, and its default
    shown as ``[default: …]`` (nothing shown when the default is None)."""
    default, meta = settings_fields(cls)[name]
    shown: bool | str = False if default is None else str(default)
    return typer.Option(*param_decls, help=meta.help, show_default=shown)
