"""Command-line options made from the fields of the settings objects (:mod:`ranger_eval.settings`):
the help text and the shown default come from the field, so they cannot drift from the analysis.

The parser's own default stays ``None`` ("not given"): the YAML's value, or else the settings
default, applies (``pipeline`` merges them).
"""
from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from ..settings import settings_fields

__all__ = ["OUT_PATTERN", "BoundsOption", "FiguresOption", "HtmlOption", "OutOption", "default_out",
           "flag_help", "flag_value", "setting_option"]

#: The default output folder of every command: ``ranger-<command>`` in the current folder.
OUT_PATTERN = "ranger-{command}"


def default_out(command: str) -> Path:
    """The default ``--out`` of ``command``: :data:`OUT_PATTERN` (``ranger-compare``,
    ``ranger-meta`` …), one pattern for every command that writes an output folder."""
    return Path(OUT_PATTERN.format(command=command))


#: ``--out``/``-o``, ``--figures`` and ``--html``: the same on every command that writes an
#: output folder (its default is :func:`default_out`; ``--html`` writes report.html).
OutOption = Annotated[Path, typer.Option(
    "--out", "-o", help="Output folder (every command's default is ranger-<command>).")]
FiguresOption = Annotated[
    str | None, typer.Option("--figures", help="Figure formats, e.g. pdf,png or svg, or none.")]
HtmlOption = Annotated[
    bool, typer.Option("--html", help="Also write one self-contained report.html.")]
#: ``--bounds METRIC=LO,HI`` (repeatable): the YAML ``bounds:`` key on the command line
#: (:meth:`ranger_eval.Scores.with_bounds`; compare, rank and meta)
BoundsOption = Annotated[
    list[str] | None,
    typer.Option("--bounds", metavar="METRIC=LO,HI",
                 help="The range of a metric, e.g. --bounds f1=0,1 (repeat for several; as "
                      "the YAML's bounds: key): intervals of its means stay inside it; a "
                      "score outside it is an error. IR measures, lm-eval accuracies and "
                      "Inspect C/I scores are ranged by their reader.")]


def setting_option(cls: type, name: str, *param_decls: str) -> Any:
    """``typer.Option`` of the settings field ``name`` of ``cls``: its help, and its default
    shown as ``[default: …]`` (nothing shown when the default is None). A field with a
    ``flag`` value gets a flag ``--OPTION`` (no value; given: the field is ``flag``, see
    :func:`flag_value`); a ``metavar`` is the value's placeholder."""
    default, meta = settings_fields(cls)[name]
    shown: bool | str = False if default is None else str(default)
    if meta.flag is not None:
        option = meta.cli if isinstance(meta.cli, str) else name.replace("_", "-")
        return typer.Option(*(param_decls or (f"--{option}",)), help=flag_help(cls, name),
                            show_default=False)
    return typer.Option(*param_decls, help=meta.help, show_default=shown, metavar=meta.metavar)


def flag_help(cls: Any, name: str) -> str:
    """The ``--help`` text of a flag field: the field's help, what the flag sets, the default."""
    default, meta = settings_fields(cls)[name]
    return (f"{meta.help} The flag: {meta.flag} (YAML {cls.section}.{name}: {meta.flag}); "
            f"default: {default}.")


def flag_value(cls: type, name: str, given: bool | None) -> Any:
    """The value of the settings field ``name`` that its flag sets when ``given``, else None
    (not given: the YAML or the settings default applies)."""
    return settings_fields(cls)[name][1].flag if given else None
