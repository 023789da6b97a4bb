"""``ranger-eval aso SCORES``: Almost Stochastic Order of score distributions over seeds
(Dror, Shlomov & Reichart 2019; deepsig's ``multi_aso``), one ε_min matrix per dataset × metric.

SCORES is a run table (``system, seed, value[, dataset, metric]``: one score per run) or per-item
scores with a ``seed`` column (any input ``compare`` reads; a run's score is its mean over the
items). Without seeds there are no distributions to compare: the error names ``compare``.

Writes ``aso.md`` (every verdict in words and the matrices), ``aso.csv`` (one row per ordered
pair), ``aso.tex``, ``aso.json`` (the full result), a heatmap of each matrix (``aso`` or
``aso-DATASET-METRIC``), ``manifest.json`` with the signature, and with ``--html`` the one-file
``report.html``. The run is :func:`run_aso`: it reads the file, calls
:func:`~ranger_eval.verdicts.aso.aso_groups` and hands the result to the writers.
"""
from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Annotated, Any

import typer

from ..pipeline import CommandRun
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

ASO_OUTPUTS = ("aso.md", "aso.csv", "aso.tex", "aso.json")


def figure_stem(prefix: str, groups: Sequence[tuple[str, ...]], i: int) -> str:
    """``prefix`` for one group, else ``prefix-SUFFIX`` (:func:`figure_suffix`)."""
    from ..report.verdicts import figure_suffix

    return prefix if len(groups) == 1 else f"{prefix}-{figure_suffix(groups[i], i)}"


def split(option: str | None) -> list[str] | None:
    """A comma-separated option as a list (None when not given)."""
    if option is None:
        return None
    parts = [p.strip() for p in option.split(",") if p.strip()]
    return parts or None


def run_aso(scores: str | Path, out: str | Path, command: str | None = None, *,
            figures: str | None = None, html: bool = False, **options: Any) -> CommandRun:
    """Read ``scores`` (:func:`~ranger_eval.io.runs.read_runs`), run
    :func:`~ranger_eval.verdicts.aso.aso_groups` with the :class:`ASOSettings` ``options`` (None:
    the default), write the tables, the heatmaps and the manifest (and ``report.html``)."""
    from ..io.runs import read_runs
    from ..output import OutputFolder
    from ..pipeline import collecting_warnings, finish_outputs
    from ..plots.aso import aso_heatmap
    from ..report.verdicts import aso_csv, aso_json, aso_latex, aso_markdown
    from ..verdicts.aso import aso_groups

    settings = ASOSettings.from_options(options)
    path = Path(scores)
    notes: list[str] = []
    with collecting_warnings(notes):
        result = aso_groups(read_runs(path), **settings.as_dict())
    folder = OutputFolder(out, [path], figures)
    folder.claim(ASO_OUTPUTS)
    folder.text("aso.md", aso_markdown(result))
    folder.text("aso.csv", aso_csv(result))
    folder.text("aso.tex", aso_latex(result))
    folder.text("aso.json", aso_json(result))
    keys = [(g.dataset, g.metric) for g in result.groups]
    for i in range(len(keys)):
        folder.figure(lambda i=i: aso_heatmap(result, i), figure_stem("aso", keys, i),
                      ("pdf", "png"))
    notes += finish_outputs(folder, str(result.signature), command, html, notes)
    return CommandRun(result, tuple(folder.written), tuple(notes))


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
        n_bootstrap: Annotated[int | None, setting_option(ASOSettings, "n_bootstrap")] = None,
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
        imports_done()
        run = run_aso(scores, out, command_line(), figures=figures, html=html,
                      datasets=split(dataset), metrics=split(metric), systems=split(systems),
                      level=level, n_bootstrap=n_bootstrap, seed=seed,
                      threshold=threshold, correction=correction,
                      higher_is_better=true_or_false("--higher-is-better", higher_is_better))
        warn(run.warnings)
        for group, verdicts in run.result.verdicts():
            typer.echo(f"{group.dataset} · {group.metric}:")
            for v in verdicts:
                typer.echo(f"  {v}")
        typer.echo(str(run.result.signature))
        report_written(run.written)
