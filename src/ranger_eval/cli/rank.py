"""``ranger-eval rank``: which system is best overall, across datasets and metrics.

INPUT is an experiment YAML or a tidy table of per-item scores (then the IBM post-op ranking with
its connected graph, and Demšar's rank test on the per-dataset means), or a dataset-level table:
a wide CSV/Parquet with one row per dataset and one column per system (first column: the dataset
names), or a tidy ``dataset, system, value`` table (then the rank test and the CD diagram).
"""
from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from ._common import (
    SYSTEM_FROM_HELP,
    command_line,
    friendly_errors,
    imports_done,
    report_written,
    warn,
)


def register(app: typer.Typer) -> None:
    @app.command("rank")
    @friendly_errors
    def rank(
        input: Annotated[  # noqa: A002
            Path, typer.Argument(help="Experiment YAML, tidy scores table, datasets × systems "
                               "table, evaluation tool's output, or a folder of logs.")
        ],
        out: Annotated[Path, typer.Option("--out", "-o", help="Output folder.")] = Path(
            "ranger-rank"
        ),
        posthoc: Annotated[
            str | None, typer.Option(help="nemenyi, bonferroni-dunn, holm or wilcoxon [nemenyi].")
        ] = None,
        control: Annotated[
            str | None, typer.Option(help="Control system (bonferroni-dunn, holm).")
        ] = None,
        comparisons: Annotated[
            str | None,
            typer.Option(help="successive, all or first-vs-rest (per-item scores) [successive]."),
        ] = None,
        level: Annotated[
            float | None,
            typer.Option(help="Confidence level; the tests are significant at alpha = 1 - level "
                         "[0.95]."),
        ] = None,
        correction: Annotated[
            str | None, typer.Option(help="Multiplicity correction of the pairwise tests.")
        ] = None,
        test: Annotated[str | None, typer.Option(help="Pairwise test (as compare) [auto].")] = None,
        lower_is_better: Annotated[
            bool, typer.Option("--lower-is-better", help="Lower values are better (all metrics).")
        ] = False,
        seed: Annotated[int | None, typer.Option(help="Seed of resampling tests [0].")] = None,
        figures: Annotated[
            str | None,
            typer.Option("--figures", help="Figure formats, e.g. pdf,png or svg, or none."),
        ] = None,
        html: Annotated[
            bool, typer.Option("--html", help="Also write one self-contained report.html.")
        ] = False,
        system_from: Annotated[
            str | None, typer.Option("--system-from", help=SYSTEM_FROM_HELP)] = None,
    ) -> None:
        """Rank systems over datasets: ranking table, CD diagram, connected graph, signature."""
        from ..pipeline import run_rank

        imports_done()

        run = run_rank(
            input, out, command_line(), figures, html, system_from, posthoc=posthoc,
            control=control,
            comparisons=comparisons, level=level, correction=correction, test=test, seed=seed,
            higher_is_better=False if lower_is_better else None,
        )
        warn(run.warnings)
        from ..report import to_markdown

        typer.echo(to_markdown(run.ranking if run.ranking is not None else run.rank_test))
        report_written(run.written)
