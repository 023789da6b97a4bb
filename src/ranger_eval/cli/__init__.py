"""The ``ranger-eval`` command line: a thin layer over :mod:`ranger_eval.pipeline`.

One module per command (``meta``, ``demo``, ``compare``, ``rank``, ``trec``, ``report``, ``signature``), each with a
``register(app)``; shared printing of warnings and errors lives in :mod:`._common`. Heavy modules
(numpy, pandas, matplotlib) are imported inside the commands so that ``ranger-eval --help`` stays
fast. Bad input ends with one line on stderr and exit code 2.
"""
from __future__ import annotations

import sys

import typer

from . import (
    agree,
    arena,
    aso,
    bayes,
    compare,
    demo,
    estimate,
    meta,
    monitor,
    plan,
    rank,
    report,
    signature,
    trec,
)
from ._common import EXIT_BAD_INPUT, RangerGroup, fail, friendly_errors

__all__ = ["EXIT_BAD_INPUT", "app", "fail", "friendly_errors", "main"]

app = typer.Typer(
    name="ranger-eval",
    cls=RangerGroup,
    help="Honest statistics for comparing systems across datasets and metrics.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


def _version_callback(value: bool) -> None:
    if value:
        from .._version import __version__

        typer.echo(f"ranger-eval {__version__}")
        raise typer.Exit()


@app.callback()
def _main(
    version: bool = typer.Option(
        False, "--version", callback=_version_callback, is_eager=True, help="Show the version."
    ),
) -> None:
    """Ranger: effect sizes, meta-analysis and significance tests from per-item scores."""


for _command in (meta, demo, compare, rank, trec, report, signature, plan, arena, aso, bayes, agree,
                 monitor, estimate):
    _command.register(app)


def main() -> None:
    """Console-script entry point."""
    from . import _common

    _common.ONE_COMMAND_PROCESS = True
    try:
        app()
    except KeyboardInterrupt:  # pragma: no cover
        sys.exit(130)


if __name__ == "__main__":  # pragma: no cover
    main()
