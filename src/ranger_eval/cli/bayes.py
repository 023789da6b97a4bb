"""``ranger-eval bayes SCORES --rope R``: Bayesian comparisons with a ROPE (baycomp) of every
pair of systems: the correlated t-test (Corani & Benavoli 2015; baycomp's ``two_on_single``) on
every dataset × metric of cross-validation scores, or with ``--test signed-rank|sign`` the
Bayesian signed-rank or sign test across datasets.

SCORES are per-item scores (any input ``compare`` reads) whose items are the folds, matched by id
between systems; with a ``seed`` column each seed is a repetition (run) of the
cross-validation (``--runs`` then comes from the seeds), otherwise ``--runs N`` says how many
repetitions the folds come from (default 1).

This module only parses the options (one per :class:`~ranger_eval.settings.BayesSettings` field,
from its metadata: ``setting_option``) and calls :func:`ranger_eval.pipeline.bayes.run_bayes`,
which writes ``bayes.md``, ``bayes.csv``, ``bayes.tex``, ``bayes.json``, the posterior figures,
``manifest.json`` (and ``report.html``).
"""
from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from ..formatting import comma_list
from ..settings import BayesSettings
from ._common import (
    SYSTEM_FROM_HELP,
    command_line,
    friendly_errors,
    imports_done,
    report_written,
    true_or_false,
    warn,
)
from ._options import FiguresOption, HtmlOption, OutOption, default_out, setting_option


def register(app: typer.Typer) -> None:
    @app.command("bayes")
    @friendly_errors
    def bayes(  # noqa: PLR0913 - one option per BayesSettings field
        scores: Annotated[Path, typer.Argument(
            help="Cross-validation scores: per-item scores whose items are the folds "
                 "(dataset, system, item, value[, metric, seed]; a seed is one repetition of "
                 "the cross-validation), or an evaluation tool's output.")],
        test: Annotated[str | None, setting_option(BayesSettings, "test")] = None,
        rope: Annotated[float | None, setting_option(BayesSettings, "rope")] = None,
        runs: Annotated[int | None, setting_option(BayesSettings, "runs")] = None,
        level: Annotated[float | None, setting_option(BayesSettings, "level")] = None,
        prior: Annotated[float | None, setting_option(BayesSettings, "prior")] = None,
        prior_place: Annotated[str | None, setting_option(BayesSettings, "prior_place")] = None,
        n_draws: Annotated[int | None, setting_option(BayesSettings, "n_draws")] = None,
        seed: Annotated[int | None, setting_option(BayesSettings, "seed")] = None,
        dataset: Annotated[str | None, setting_option(BayesSettings, "datasets", "--dataset")] = None,
        metric: Annotated[str | None, setting_option(BayesSettings, "metrics", "--metric")] = None,
        systems: Annotated[str | None, setting_option(BayesSettings, "systems")] = None,
        higher_is_better: Annotated[
            str | None, setting_option(BayesSettings, "higher_is_better")] = None,
        out: OutOption = default_out("bayes"),
        figures: FiguresOption = None,
        html: HtmlOption = False,
        input_format: Annotated[str | None, typer.Option(
            "--format", help="Input format: auto, lm-eval, inspect, helm, pyterrier, "
                             "trec-eval-q, tsml.")] = None,
        system_from: Annotated[
            str | None, typer.Option("--system-from", help=SYSTEM_FROM_HELP)] = None,
    ) -> None:
        """Bayesian comparisons with a ROPE (baycomp): the correlated t-test of cross-validation
        folds, or the signed-rank / sign test across datasets; posterior probabilities and
        verdicts for every pair of systems, figures, manifest.json."""
        from ..pipeline.bayes import run_bayes

        imports_done()
        run = run_bayes(scores, out, command_line(), figures=figures, html=html,
                        input_format=input_format, system_from=system_from, test=test,
                        rope=rope, runs=runs, level=level, prior=prior, prior_place=prior_place,
                        n_draws=n_draws,
                        seed=seed, datasets=comma_list(dataset),
                        metrics=comma_list(metric), systems=comma_list(systems),
                        higher_is_better=true_or_false("--higher-is-better", higher_is_better))
        warn(run.warnings)
        for group in run.result.groups:
            typer.echo(f"{group.dataset} · {group.metric}:")
            for r in group.results:
                typer.echo(f"  {r.verdict(level=run.result.level)}")
        typer.echo(str(run.result.signature))
        report_written(run.written)
