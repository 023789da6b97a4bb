"""``ranger-eval estimate --history H --responses R``: a system's mean over a whole benchmark
from its results on a random subset of the items, with an interval valid whatever the
predictor (a cross-fitted difference estimator with an item response model fitted on the
history), the plain subset mean beside it, and how many random items the estimate is worth.

This module only parses the options (one per :class:`~ranger_eval.settings.SubsetSettings`
field) and calls :func:`ranger_eval.pipeline.estimate.run_estimate`.
"""
from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from ..settings import SubsetSettings
from ._common import command_line, friendly_errors, imports_done, report_written, warn
from ._options import FiguresOption, HtmlOption, OutOption, default_out, setting_option


def register(app: typer.Typer) -> None:
    @app.command("estimate")
    @friendly_errors
    def estimate(
        history: Annotated[Path, typer.Option(
            "--history", help="Past systems' results on every item of the benchmark: a long "
                              "table system, item, value, or a wide table (a system column, "
                              "then one 0/1 column per item).")],
        responses: Annotated[Path, typer.Option(
            "--responses", help="The new system's results on a random sample of the items "
                                "(see --design): a table item, value (one system), or one "
                                "wide row.")],
        level: Annotated[float | None, setting_option(SubsetSettings, "level")] = None,
        predictor: Annotated[str | None, setting_option(SubsetSettings, "predictor")] = None,
        n_folds: Annotated[int | None, setting_option(SubsetSettings, "n_folds")] = None,
        seed: Annotated[int | None, setting_option(SubsetSettings, "seed")] = None,
        design: Annotated[str | None, typer.Option(
            "--design", metavar="[random|stratified|anchor]", help="How the items of --responses were drawn: random (a simple random sample; "
                 "the default), stratified (a stratified random sample in --strata strata of "
                 "equal size by the items' mean in the history, as choose_subset draws it) or "
                 "anchor (items chosen from the history: no design-based guarantee).")] = None,
        strata: Annotated[int | None, typer.Option(
            "--strata", help="Strata of --design stratified (1 to 100; default 5).")] = None,
        full_mean: Annotated[float | None, typer.Option(
            "--full-mean", help="The system's mean over the whole benchmark when known "
                                "(drawn in the figure beside the estimate).")] = None,
        figures: FiguresOption = None,
        html: HtmlOption = False,
        out: OutOption = default_out("estimate"),
    ) -> None:
        """A whole-benchmark mean from a random subset of its items, with a valid interval and
        the number of random items it is worth; tables, the figure subset, manifest.json and
        (--html) report.html."""
        from ..pipeline.estimate import run_estimate

        imports_done()
        run = run_estimate(history, responses, out, command_line(), design=design,
                           n_strata=strata, full_mean=full_mean, figures=figures, html=html,
                           level=level, predictor=predictor, n_folds=n_folds, seed=seed)
        warn(run.warnings)
        typer.echo(run.result.summary())
        report_written(run.written)
