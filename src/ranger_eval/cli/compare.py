"""``ranger-eval compare``: pairwise significance tests of many systems, tables and plots.

INPUT is either an experiment YAML (every system under ``systems`` is compared on every task;
IR tasks with ``qrels`` are evaluated from the TREC runs; settings from its ``compare:`` section
and ``level``) or a tidy scores table (CSV/TSV/JSONL/Parquet with ``dataset, system, item,
value[, metric, seed]`` columns), an evaluation tool's output, or a folder of those (several
Inspect logs: name their systems with ``--system-from``). Command-line options override the
config.
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


def _split(option: str | None) -> list[str] | None:
    if option is None:
        return None
    parts = [p.strip() for p in option.split(",") if p.strip()]
    return parts or None


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
                "evaluation tool's output (.eval, lm-eval, HELM ...) or a folder of logs."
            ),
        ],
        out: Annotated[Path, typer.Option("--out", "-o", help="Output folder.")] = Path(
            "ranger-compare"
        ),
        pairs: Annotated[
            str | None, typer.Option(help="Pairs to test: all, baseline or successive [all].")
        ] = None,
        baseline: Annotated[
            str | None, typer.Option(help="Baseline system (with --pairs baseline).")
        ] = None,
        test: Annotated[
            str | None,
            typer.Option(
                help="auto, paired-t, welch, wilcoxon, sign, mannwhitney, mcnemar, "
                "proportions-z, permutation, bootstrap [auto]."
            ),
        ] = None,
        alternative: Annotated[
            str | None, typer.Option(help="two-sided, greater or less (system A vs B).")
        ] = None,
        correction: Annotated[
            str | None,
            typer.Option(help="Multiplicity correction (statsmodels multipletests name, or none) "
                         "[holm-sidak]."),
        ] = None,
        family: Annotated[
            str | None, typer.Option(help="Adjust within: dataset-metric, dataset or all.")
        ] = None,
        level: Annotated[
            float | None, typer.Option(help="Confidence level; alpha = 1 - level [0.95].")
        ] = None,
        n_resamples: Annotated[
            int | None, typer.Option(help="Resamples of the permutation/bootstrap tests, 1 to "
                                    "10^8 [10000].")
        ] = None,
        seed: Annotated[
            int | None, typer.Option(help="Seed of the resampling tests and plots, ≥ 0 [0].")
        ] = None,
        metric: Annotated[
            str | None,
            typer.Option(help="Metric(s), comma-separated (IR: measures such as nDCG@10,AP)."),
        ] = None,
        figures: Annotated[
            str | None,
            typer.Option("--figures", help="Figure formats, e.g. pdf,png or svg, or none."),
        ] = None,
        html: Annotated[
            bool, typer.Option("--html", help="Also write one self-contained report.html.")
        ] = False,
        metric_fn: Annotated[
            str | None,
            typer.Option("--metric-fn", help="Set-level metric(s), comma-separated (mcc, f1, "
                         "macro_f1, pearson …): permutation/bootstrap test on the metric itself."),
        ] = None,
        seeds: Annotated[
            str | None, typer.Option(help="Seeds policy: balanced (default) or allow-unbalanced.")
        ] = None,
        input_format: Annotated[
            str | None,
            typer.Option("--format", help="Input format: auto, lm-eval, inspect, helm, "
                         "pyterrier, trec-eval-q, tsml."),
        ] = None,
        by: Annotated[
            str | None,
            typer.Option(help="Item metadata column(s), comma-separated: compare per level."),
        ] = None,
        systems: Annotated[
            str | None,
            typer.Option(help="Systems to compare, comma-separated, in table order (default: all)."),
        ] = None,
        system_from: Annotated[
            str | None, typer.Option("--system-from", help=SYSTEM_FROM_HELP)] = None,
    ) -> None:
        """Compare systems pairwise: tests, corrections, effect sizes, tables and plots."""
        from ..pipeline import run_compare

        imports_done()

        run = run_compare(
            input, out, command_line(), figures, html, input_format, system_from,
            systems=_split(systems), pairs=pairs, baseline=baseline,
            test=test, alternative=alternative, correction=correction, family=family,
            level=level, n_resamples=n_resamples, seed=seed, metrics=_split(metric),
            by=_split(by), metric_fn=_split(metric_fn), seeds=seeds,
        )
        warn(run.warnings)
        comp = run.comparison
        from ..pipeline import capped_comparison
        from ..report import to_markdown

        n_sig = int(comp.table["significant"].sum())
        shown, _, note = capped_comparison(comp, warn=False)  # the warning is in run.warnings
        typer.echo(to_markdown(shown.leaderboard()) + ("" if note is None else f"\n{note}"))
        typer.echo(f"{len(comp.table)} comparisons, {n_sig} significant")
        report_written(run.written)
