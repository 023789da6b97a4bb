"""``ranger-eval report DIR``: one self-contained HTML file from an existing output folder."""
from __future__ import annotations

from pathlib import Path

import typer

from ._common import command_line, friendly_errors, imports_done, warn


def register(app: typer.Typer) -> None:
    @app.command("report")
    @friendly_errors
    def report(
        folder: Path = typer.Argument(..., help="Output folder of meta, compare, rank or demo."),
    ) -> None:
        """Write FOLDER/report.html: figures, sortable tables, results as JSON, plain reading."""
        from ..pipeline import run_report

        imports_done()

        run = run_report(folder, command_line())
        warn(run.warnings)
        typer.echo(f"wrote: {run.result}")
