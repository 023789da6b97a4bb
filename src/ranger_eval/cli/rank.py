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

from ..formatting import comma_list
from ..settings import RankSettings
from ._common import (
    CLUSTER_HELP,
    SYSTEM_FROM_HELP,
    command_line,
    friendly_errors,
    imports_done,
    report_written,
    true_or_false,
    warn,
)
from ._options import (
    BoundsOption,
    FiguresOption,
    HtmlOption,
    OutOption,
    default_out,
    setting_option,
)


def register(app: typer.Typer) -> None:
    @app.command("rank")
    @friendly_errors
    def rank(
        input: Annotated[  # noqa: A002
            Path, typer.Argument(help="Experiment YAML, tidy scores table, datasets × systems "
                               "table, evaluation tool's output, or a folder tree of logs "
                               "(searched recursively).")
        ],
        out: OutOption = default_out("rank"),
        posthoc: Annotated[str | None, setting_option(RankSettings, "posthoc")] = None,
        control: Annotated[str | None, setting_option(RankSettings, "control")] = None,
        comparisons: Annotated[str | None, setting_option(RankSettings, "comparisons")] = None,
        level: Annotated[float | None, setting_option(RankSettings, "level")] = None,
        correction: Annotated[str | None, setting_option(RankSettings, "correction")] = None,
        test: Annotated[str | None, setting_option(RankSettings, "test")] = None,
        higher_is_better: Annotated[
            str | None, setting_option(RankSettings, "higher_is_better")] = None,
        seed: Annotated[int | None, setting_option(RankSettings, "seed")] = None,
        tie_correction: Annotated[
            str | None, setting_option(RankSettings, "tie_correction")] = None,
        approach: Annotated[str | None, setting_option(RankSettings, "approach")] = None,
        rope: Annotated[float | None, setting_option(RankSettings, "rope")] = None,
        rope_mode: Annotated[str | None, setting_option(RankSettings, "rope_mode")] = None,
        prior: Annotated[float | None, setting_option(RankSettings, "prior")] = None,
        n_draws: Annotated[int | None, setting_option(RankSettings, "n_draws")] = None,
        bradley_terry: Annotated[
            str | None, setting_option(RankSettings, "bradley_terry")] = None,
        figures: FiguresOption = None,
        html: HtmlOption = False,
        system_from: Annotated[
            str | None, typer.Option("--system-from", help=SYSTEM_FROM_HELP)] = None,
        bounds: BoundsOption = None,
        cluster: Annotated[
            str | None, typer.Option("--cluster", metavar="FIELD", help=CLUSTER_HELP)] = None,
        metric: Annotated[
            str | None, typer.Option(
                "--metric", help="Metric(s) of per-item scores to rank on, comma-separated; "
                "pass@K or pass^K: per-item pass@K over the samples.")] = None,
    ) -> None:
        """Rank systems over datasets: ranking table, CD diagram, connected graph, signature."""
        from ..pipeline import rank_summary, run_rank

        imports_done()

        run = run_rank(
            input, out, command_line(), figures, html, system_from, bounds=bounds,
            cluster=cluster, metrics=comma_list(metric),
            posthoc=posthoc,
            control=control,
            comparisons=comparisons, level=level, correction=correction, test=test, seed=seed,
            higher_is_better=true_or_false("--higher-is-better", higher_is_better),
            tie_correction=true_or_false("--tie-correction", tie_correction),
            approach=approach, rope=rope, rope_mode=rope_mode, prior=prior, n_draws=n_draws,
            bradley_terry=true_or_false("--bradley-terry", bradley_terry),
        )
        warn(run.warnings)
        typer.echo(rank_summary(run))
        report_written(run.written)
