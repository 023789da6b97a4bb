"""``ranger-eval monitor LOGS --control A --treatment B``: may a running evaluation stop now?

LOGS are logs that may still be being written: a growing CSV table, lm-evaluation-harness
samples JSONL, Inspect logs (only complete records are read). Prints the decision, the units
used and the current interval of the anytime-valid confidence sequence, writes ``monitor.md``,
``monitor.csv``, ``monitor.tex``, ``monitor.json``, the figure and ``manifest.json``, and exits
0 on a decision, 3 on "continue" (so a script can stop the run). ``--follow`` reads the logs
again every ``--interval`` seconds until a decision or ``--max-rounds`` reads.

This module only parses the options (one per :class:`~ranger_eval.settings.MonitorSettings`
field, from its metadata) and calls :func:`ranger_eval.pipeline.monitor.run_monitor`.
"""
from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from ..settings import MonitorSettings
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


def _line(result: Any) -> str:
    interval = (f"[{result.lower:+.4g}, {result.upper:+.4g}]" if result.n_used
                else "no units yet")
    return (f"{result.decision}: n_used {result.n_used} of {result.n_available} "
            f"{result.unit}s; mean difference {result.treatment} − {result.control} "
            + (f"{result.estimate:+.4g}, " if result.n_used else "")
            + f"{100 * result.level:g}% confidence sequence {interval}")


def register(app: typer.Typer) -> None:
    @app.command("monitor")
    @friendly_errors
    def monitor(  # noqa: PLR0913 - one option per MonitorSettings field
        logs: Annotated[list[Path], typer.Argument(
            help="Logs that may still be being written: a growing CSV (dataset, system, item, "
                 "value[, metric]), lm-eval samples JSONL, Inspect logs (.eval, .json), or "
                 "folders of them.")],
        control: Annotated[str, typer.Option("--control", help="The control system.")],
        treatment: Annotated[str, typer.Option("--treatment", help="The treatment system.")],
        dataset: Annotated[str | None, setting_option(MonitorSettings, "dataset")] = None,
        metric: Annotated[str | None, setting_option(MonitorSettings, "metric")] = None,
        level: Annotated[float | None, setting_option(MonitorSettings, "level")] = None,
        margin: Annotated[float | None, setting_option(MonitorSettings, "margin")] = None,
        sequence: Annotated[str | None, setting_option(MonitorSettings, "method",
                                                       "--sequence")] = None,
        order: Annotated[str | None, setting_option(MonitorSettings, "order")] = None,
        seed: Annotated[int | None, setting_option(MonitorSettings, "seed")] = None,
        t_opt: Annotated[int | None, setting_option(MonitorSettings, "t_opt")] = None,
        interval: Annotated[float | None, setting_option(MonitorSettings, "interval")] = None,
        max_rounds: Annotated[
            int | None, setting_option(MonitorSettings, "max_rounds")] = None,
        follow: Annotated[bool, typer.Option(
            "--follow", help="Read the logs again every --interval seconds until a decision "
                             "(at most --max-rounds reads).")] = False,
        input_format: Annotated[str | None, typer.Option(
            "--format", help="Input format: auto, lm-eval, inspect, helm, pyterrier, "
                             "trec-eval-q, tsml.")] = None,
        system_from: Annotated[
            str | None, typer.Option("--system-from", help=SYSTEM_FROM_HELP)] = None,
        cluster: Annotated[
            str | None, typer.Option("--cluster", metavar="FIELD", help=CLUSTER_HELP)] = None,
        bounds: BoundsOption = None,
        out: OutOption = default_out("monitor"),
        figures: FiguresOption = None,
        html: HtmlOption = False,
    ) -> None:
        """Anytime-valid monitoring of a running evaluation: the decision (treatment better,
        control better, equivalent within margin, or continue), the units used and the
        confidence sequence; exit 0 on a decision, 3 on continue."""
        from ..pipeline.monitor import EXIT_CONTINUE, EXIT_DECISION, run_monitor

        imports_done()

        def said(rounds: int, result: Any) -> None:
            if follow:
                typer.echo(f"read {rounds}: {_line(result)}")

        run = run_monitor(logs, out, command_line(), control=control, treatment=treatment,
                          follow=follow, figures=figures, html=html,
                          input_format=input_format, system_from=system_from, cluster=cluster,
                          bounds=bounds, on_round=said, dataset=dataset, metric=metric,
                          level=level, margin=margin, method=sequence, order=order, seed=seed,
                          t_opt=t_opt, interval=interval, max_rounds=max_rounds)
        warn(run.warnings)
        typer.echo(_line(run.result))
        typer.echo(run.result.summary())
        typer.echo(str(run.result.signature))
        report_written(run.written)
        raise typer.Exit(EXIT_DECISION if run.result.stopped else EXIT_CONTINUE)
