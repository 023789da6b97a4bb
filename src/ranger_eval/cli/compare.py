"""``ranger-eval compare``: pairwise significance tests of many systems, tables and plots.

INPUT is either an experiment YAML (every system under ``systems`` is compared on every task;
IR tasks with ``qrels`` are evaluated from the TREC runs; settings from its ``compare:`` section
and ``level``) or a tidy scores table (CSV/TSV/JSONL/Parquet with ``dataset, system, item,
value[, metric, seed]`` columns), an evaluation tool's output, or a folder tree of those
(Inspect's ``logs/<model>/``, lm-eval's output tree: searched recursively, see
docs/configuration.md#folders-of-logs; several logs of one model: name their systems with
``--system-from``). Command-line options override the
config.
"""
from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from ..formatting import comma_list
from ..settings import CompareSettings
from ._common import (
    CLUSTER_HELP,
    SYSTEM_FROM_HELP,
    command_line,
    friendly_errors,
    imports_done,
    report_written,
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


# --------------------------------------------------------------------------- command
def register(app: typer.Typer) -> None:
    """Add the ``compare`` command to ``app``."""
    @app.command("compare")
    @friendly_errors
    def compare_command(
        input: Annotated[  # noqa: A002
            Path,
            typer.Argument(
                help="Experiment YAML, a tidy scores table (.csv/.tsv/.jsonl/.parquet), an "
                "evaluation tool's output (.eval, lm-eval, HELM ...) or a folder tree of logs "
                "(searched recursively; what was read and skipped is listed in "
                "manifest.json's inputs)."
            ),
        ],
        out: OutOption = default_out("compare"),
        pairs: Annotated[
            str | None, setting_option(CompareSettings, "pairs")
        ] = None,
        baseline: Annotated[
            str | None, setting_option(CompareSettings, "baseline")
        ] = None,
        test: Annotated[
            str | None,
            setting_option(CompareSettings, "test"),
        ] = None,
        alternative: Annotated[
            str | None, setting_option(CompareSettings, "alternative")
        ] = None,
        hypothesis: Annotated[
            str | None, setting_option(CompareSettings, "hypothesis")
        ] = None,
        margin: Annotated[
            float | None, setting_option(CompareSettings, "margin")
        ] = None,
        correction: Annotated[
            str | None,
            setting_option(CompareSettings, "correction"),
        ] = None,
        family: Annotated[
            str | None, setting_option(CompareSettings, "family")
        ] = None,
        level: Annotated[
            float | None, setting_option(CompareSettings, "level")
        ] = None,
        n_resamples: Annotated[
            int | None, setting_option(CompareSettings, "n_resamples")
        ] = None,
        seed: Annotated[
            int | None, setting_option(CompareSettings, "seed")
        ] = None,
        metric: Annotated[
            str | None,
            setting_option(CompareSettings, "metrics"),
        ] = None,
        figures: FiguresOption = None,
        html: HtmlOption = False,
        per_dataset_figures: Annotated[
            bool, typer.Option(
                "--per-dataset-figures",
                help="Also draw the graph, p-value plot and boxplots of every dataset × metric "
                     "(by default only the heatmap when there are several).")
        ] = False,
        metric_fn: Annotated[
            str | None,
            setting_option(CompareSettings, "metric_fn", "--metric-fn"),
        ] = None,
        seeds: Annotated[
            str | None, setting_option(CompareSettings, "seeds")
        ] = None,
        missing: Annotated[
            str | None, setting_option(CompareSettings, "missing")
        ] = None,
        input_format: Annotated[
            str | None,
            typer.Option("--format", help="Input format: auto, lm-eval, inspect, helm, "
                         "pyterrier, trec-eval-q, tsml."),
        ] = None,
        by: Annotated[
            str | None,
            setting_option(CompareSettings, "by"),
        ] = None,
        systems: Annotated[
            str | None,
            setting_option(CompareSettings, "systems"),
        ] = None,
        system_from: Annotated[
            str | None, typer.Option("--system-from", help=SYSTEM_FROM_HELP)] = None,
        cluster: Annotated[
            str | None, typer.Option("--cluster", metavar="FIELD", help=CLUSTER_HELP)] = None,
        cluster_se: Annotated[
            str | None, setting_option(CompareSettings, "cluster_se")
        ] = None,
        bounds: BoundsOption = None,
    ) -> None:
        """Compare systems pairwise: tests, corrections, effect sizes, tables and plots."""
        from ..pipeline import compare_summary, run_compare

        imports_done()

        run = run_compare(
            input, out, command_line(), figures, html, input_format, system_from,
            systems=comma_list(systems), pairs=pairs, baseline=baseline,
            test=test, alternative=alternative, correction=correction, family=family,
            level=level, n_resamples=n_resamples, seed=seed, metrics=comma_list(metric),
            by=comma_list(by), metric_fn=comma_list(metric_fn), seeds=seeds, missing=missing,
            hypothesis=hypothesis, margin=margin, cluster_se=cluster_se,
            per_dataset_figures=per_dataset_figures, cluster=cluster, bounds=bounds,
        )
        warn(run.warnings)
        typer.echo(compare_summary(run.result))
        report_written(run.written)
