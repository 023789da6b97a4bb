"""``ranger-eval meta CONFIG.yaml``: effect sizes per task and the meta-analytic summary."""
from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from ..settings import MetaSettings
from ._common import (
    CLUSTER_HELP,
    SYSTEM_FROM_HELP,
    command_line,
    friendly_errors,
    imports_done,
    report_written,
    warn,
)
from ._options import BoundsOption, HtmlOption, OutOption, default_out, flag_value, setting_option


def register(app: typer.Typer) -> None:
    @app.command("meta")
    @friendly_errors
    def meta(
        config: Path = typer.Argument(
            ..., help="Experiment YAML (paths inside are relative to it), or a scores table / "
            "tool output / folder tree of logs with --control and --treatment."),
        out: OutOption = default_out("meta"),
        method: Annotated[str | None, setting_option(MetaSettings, "method")] = None,
        test: Annotated[str | None, setting_option(MetaSettings, "test")] = None,
        level: Annotated[float | None, setting_option(MetaSettings, "level")] = None,
        measure: Annotated[str | None, setting_option(MetaSettings, "measure")] = None,
        order: Annotated[str | None, setting_option(MetaSettings, "order")] = None,
        control: Annotated[str | None, setting_option(MetaSettings, "control")] = None,
        treatment: Annotated[str | None, setting_option(MetaSettings, "treatment")] = None,
        metric: str | None = typer.Option(None, help="Metric to analyse (tables with several); "  # noqa: UP007
                                          "pass@K or pass^K: per-item pass@K over the samples."),
        metric_fn: Annotated[
            str | None, setting_option(MetaSettings, "metric_fn", "--metric-fn")] = None,
        seeds: Annotated[str | None, setting_option(MetaSettings, "seeds")] = None,
        drop_degenerate: Annotated[
            bool | None, setting_option(MetaSettings, "degenerate")] = None,
        margin: Annotated[float | None, setting_option(MetaSettings, "margin")] = None,
        input_format: str | None = typer.Option(  # noqa: UP007
            None, "--format", help="Input format of a table: auto, lm-eval, inspect, helm, "
            "pyterrier, trec-eval-q, tsml."),
        system_from: str | None = typer.Option(  # noqa: UP007
            None, "--system-from", help=SYSTEM_FROM_HELP),
        cluster: str | None = typer.Option(  # noqa: UP007
            None, "--cluster", metavar="FIELD", help=CLUSTER_HELP),
        figures: str | None = typer.Option(  # noqa: UP007
            None, "--figures", help="Figure formats, e.g. pdf,png or svg, or none [each figure's own]."),
        html: HtmlOption = False,
        bounds: BoundsOption = None,
    ) -> None:
        """Meta-analyse an experiment: forest.pdf/svg/png, effects.csv, summary.json, summary.md."""
        from ..pipeline import run_meta

        imports_done()

        run = run_meta(config, out, command_line(), figures, html, method=method, test=test, level=level,
                       measure=measure, order=order,
                       control=control, treatment=treatment, metric=metric, format=input_format,
                       system_from=system_from, cluster=cluster, bounds=bounds,
                       meta_metric_fn=metric_fn, meta_seeds=seeds,
                       meta_degenerate=flag_value(MetaSettings, "degenerate", drop_degenerate),
                       margin=margin)
        warn(run.warnings)
        typer.echo(run.result.result.summary())
        report_written(run.written)
