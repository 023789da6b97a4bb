"""``ranger-eval demo``: the meta-analysis on a synthetic example the project generates itself."""
from __future__ import annotations

import typer

from ._common import command_line, friendly_errors, imports_done, report_written, warn
from ._options import HtmlOption, OutOption, default_out


def register(app: typer.Typer) -> None:
    @app.command("demo")
    @friendly_errors
    def demo(
        out: OutOption = default_out("demo"),
        seed: int = typer.Option(2023, help="Seed of the simulated data (a whole number ≥ 0)."),
        figures: str | None = typer.Option(  # noqa: UP007
            None, "--figures", help="Figure formats, e.g. pdf,png or svg, or none [each figure's own]."),
        html: HtmlOption = False,
    ) -> None:
        """Run the meta-analysis on a synthetic example the project generates itself.

        The data are simulated: six made-up tasks with a baseline and a compressed model
        (meta-analysis, forest plot), and five made-up systems on four datasets with three
        metrics (ranking, CD diagram, connected graph in ranking/). They illustrate the workflow
        and are not real results.
        """
        from ..pipeline import demo_summary, run_demo

        imports_done()

        run = run_demo(out, seed=seed, command=command_line(), figures=figures, html=html)
        typer.echo(
            f"synthetic example data written to {out / 'example'} (simulated, not real results)"
        )
        warn(run.warnings)
        typer.echo(demo_summary(run))
        report_written(run.written)
