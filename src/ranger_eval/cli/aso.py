"""``ranger-eval aso SCORES``: Almost Stochastic Order of score distributions over seeds
(Dror, Shlomov & Reichart 2019; deepsig's ``multi_aso``), one ε_min matrix per dataset × metric.

SCORES is a run table (``system, seed, value[, dataset, metric]``: one score per run) or per-item
scores with a ``seed`` column (any input ``compare`` reads; a run's score is its mean over the
items). Without seeds there are no distributions to compare: the error names ``compare``.

This module only parses the options (one per :class:`~ranger_eval.settings.ASOSettings` field,
from its metadata: ``setting_option``) and calls :func:`ranger_eval.pipeline.aso.run_aso`, which
reads the file, runs :func:`~ranger_eval.verdicts.aso.aso_groups` and writes ``aso.md``,
``aso.csv``, ``aso.tex``, ``aso.json``, the heatmaps, ``manifest.json`` (and ``report.html``).
"""
from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from ..formatting import comma_list
from ..settings import ASOSettings
from ._common import (
    command_line,
    friendly_errors,
    imports_done,
    report_written,
    true_or_false,
    warn,
)
from ._options import FiguresOption, HtmlOption, OutOption, default_out, setting_option


def register(app: typer.Typer) -> None:
    @app.command("aso")
    @friendly_errors
    def aso(  # noqa: PLR0913 - one option per ASOSettings field
        scores: Annotated[Path, typer.Argument(
            help="Run scores: a table system, seed, value[, dataset, metric] (one score per "
                 "run), or per-item scores with a seed column (a run's mean over its items).")],
        dataset: Annotated[str | None, setting_option(ASOSettings, "datasets", "--dataset")] = None,
        metric: Annotated[str | None, setting_option(ASOSettings, "metrics", "--metric")] = None,
        systems: Annotated[str | None, setting_option(ASOSettings, "systems")] = None,
        level: Annotated[float | None, setting_option(ASOSettings, "level")] = None,
        n_resamples: Annotated[int | None, setting_option(ASOSettings, "n_resamples")] = None,
        seed: Annotated[int | None, setting_option(ASOSettings, "seed")] = None,
        threshold: Annotated[float | None, setting_option(ASOSettings, "threshold")] = None,
        correction: Annotated[str | None, setting_option(ASOSettings, "correction")] = None,
        higher_is_better: Annotated[
            str | None, setting_option(ASOSettings, "higher_is_better")] = None,
        out: OutOption = default_out("aso"),
        figures: FiguresOption = None,
        html: HtmlOption = False,
    ) -> None:
        """Almost Stochastic Order of score distributions over seeds: ε_min of every pair of
        systems per dataset × metric, the verdicts in words, heatmaps and manifest.json."""
        from ..pipeline.aso import run_aso

        imports_done()
        run = run_aso(scores, out, command_line(), figures=figures, html=html,
                      datasets=comma_list(dataset), metrics=comma_list(metric), systems=comma_list(systems),
                      level=level, n_resamples=n_resamples, seed=seed,
                      threshold=threshold, correction=correction,
                      higher_is_better=true_or_false("--higher-is-better", higher_is_better))
        warn(run.warnings)
        for group, verdicts in run.result.verdicts():
            typer.echo(f"{group.dataset} · {group.metric}:")
            for v in verdicts:
                typer.echo(f"  {v}")
        typer.echo(str(run.result.signature))
        report_written(run.written)
