"""``ranger-eval bayes SCORES --rope R``: the Bayesian correlated t-test (Corani & Benavoli 2015;
baycomp's ``two_on_single``) of every pair of systems on every dataset × metric of
cross-validation scores.

SCORES are per-item scores (any input ``compare`` reads) whose items are the folds, matched by id
between systems; with a ``seed`` column each seed is a repetition (run) of the
cross-validation (``--runs`` then comes from the seeds), otherwise ``--runs N`` says how many
repetitions the folds come from (default 1).

Writes ``bayes.md`` (every verdict in words: "A is practically equivalent to B (P(rope) = 0.93,
ROPE ±0.01)"), ``bayes.csv``, ``bayes.tex``, ``bayes.json``, the posterior of each pair with
the ROPE shaded (``posterior`` or ``posterior-DATASET-METRIC-A-B``; the first
:data:`MAX_POSTERIOR_FIGURES`, the count of the others in a warning), ``manifest.json`` and with
``--html`` the one-file ``report.html``.
"""
from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from ..pipeline import CommandRun
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
from .aso import figure_stem, split

BAYES_OUTPUTS = ("bayes.md", "bayes.csv", "bayes.tex", "bayes.json")
#: Most posterior figures drawn (one per pair of systems and dataset × metric); the others are
#: in bayes.json and bayes.csv, and a warning says how many were not drawn.
MAX_POSTERIOR_FIGURES = 24


def run_bayes(scores: str | Path, out: str | Path, command: str | None = None, *,
              figures: str | None = None, html: bool = False, input_format: str | None = None,
              system_from: str | None = None, **options: Any) -> CommandRun:
    """Read ``scores``, run :func:`~ranger_eval.verdicts.bayes.correlated_ttests` with the
    :class:`BayesSettings` ``options`` (None: the default), write the tables, the posterior
    figures and the manifest (and ``report.html``)."""
    from ..io.tables import read_scores
    from ..output import OutputFolder
    from ..pipeline import collecting_warnings, finish_outputs
    from ..plots.bayes import posterior_plot, simplex_plot
    from ..report.verdicts import bayes_csv, bayes_json, bayes_latex, bayes_markdown
    from ..verdicts.bayes import correlated_ttests, dataset_tests

    settings = BayesSettings.from_options(options)
    path = Path(scores)
    notes: list[str] = []
    with collecting_warnings(notes):
        if settings.test == "correlated-t":
            table = read_scores(path, format=input_format, system_from=split(system_from))
            result = correlated_ttests(table, **settings.as_dict())
        else:
            result = dataset_tests(_dataset_table(path, input_format, system_from),
                                   **settings.as_dict())
    folder = OutputFolder(out, [path], figures)
    folder.claim(BAYES_OUTPUTS)
    folder.text("bayes.md", bayes_markdown(result))
    folder.text("bayes.csv", bayes_csv(result))
    folder.text("bayes.tex", bayes_latex(result))
    folder.text("bayes.json", bayes_json(result))
    pairs = [(g.dataset, g.metric, r.names[0], r.names[1], r)
             for g in result.groups for r in g.results]
    keys = [(d, m, a, b) for d, m, a, b, _ in pairs]
    for i, (*_, r) in enumerate(pairs[:MAX_POSTERIOR_FIGURES]):
        title = f"{keys[i][0]} · {keys[i][1]}: {keys[i][2]} vs {keys[i][3]}"
        if settings.test != "correlated-t":  # the Dirichlet draws on baycomp's triangle
            folder.figure(lambda r=r: simplex_plot(r), figure_stem("simplex", keys, i),
                          ("pdf", "png"))
            continue
        folder.figure(lambda r=r, title=title: posterior_plot(r, title=title),
                      figure_stem("posterior", keys, i),
                      ("pdf", "png"))
    if len(pairs) > MAX_POSTERIOR_FIGURES:
        notes.append(f"drew the posteriors of the first {MAX_POSTERIOR_FIGURES} of {len(pairs)} "
                     f"pairs; the other {len(pairs) - MAX_POSTERIOR_FIGURES} are in bayes.json "
                     "and bayes.csv (choose some with --dataset, --metric or --systems)")
    notes += finish_outputs(folder, str(result.signature), command, html, notes)
    return CommandRun(result, tuple(folder.written), tuple(notes))


def _dataset_table(path: Path, input_format: str | None, system_from: str | None) -> Any:
    """One score per dataset and system for the signed-rank and sign tests: per-item scores
    (any input ``compare`` reads; their per-dataset means), a wide table (rows = datasets,
    columns = systems, empty cells missing) or a tidy ``dataset, system, value[, metric]`` table
    (one metric), as ``ranger-eval rank`` reads them."""
    import pandas as pd

    from ..errors import InputError
    from ..io.tables import read_scores
    from ..pipeline import read_rank_input

    if input_format not in (None, "auto", "table"):
        return read_scores(path, format=input_format, system_from=split(system_from))
    scores, table, _ = read_rank_input(path, system_from)
    if scores is not None:
        return scores
    assert table is not None
    if not {"dataset", "system", "value"} <= set(table.columns):
        return table  # wide: datasets × systems
    if "metric" in table.columns and table["metric"].nunique() > 1:
        raise InputError(f"{path}: several metrics in a dataset-level table "
                         f"({', '.join(map(str, table['metric'].unique()[:5]))}); give one "
                         "metric's table, or per-item scores")
    dup = table.duplicated(["dataset", "system"], keep=False)
    if dup.any():
        row = table[dup].iloc[0]
        raise InputError(f"{path}: dataset {row['dataset']!r}, system {row['system']!r} has "
                         f"{int(((table.dataset == row['dataset']) & (table.system == row['system'])).sum())}"
                         " rows; a dataset-level table has one score per dataset and system")
    values = pd.to_numeric(table["value"], errors="coerce")
    bad = values.isna() & table["value"].notna()
    if bad.any():
        row = table[bad].iloc[0]
        raise InputError(f"{path}: dataset {row['dataset']!r}, system {row['system']!r}: value "
                         f"{row['value']!r} is not a number")
    return table.assign(value=values).pivot(index="dataset", columns="system", values="value")


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
        n_samples: Annotated[int | None, setting_option(BayesSettings, "n_samples")] = None,
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
        imports_done()
        run = run_bayes(scores, out, command_line(), figures=figures, html=html,
                        input_format=input_format, system_from=system_from, test=test,
                        rope=rope, runs=runs, level=level, prior=prior, n_samples=n_samples,
                        seed=seed, datasets=split(dataset),
                        metrics=split(metric), systems=split(systems),
                        higher_is_better=true_or_false("--higher-is-better", higher_is_better))
        warn(run.warnings)
        for group in run.result.groups:
            typer.echo(f"{group.dataset} · {group.metric}:")
            for r in group.results:
                typer.echo(f"  {r.verdict(level=run.result.level)}")
        typer.echo(str(run.result.signature))
        report_written(run.written)
