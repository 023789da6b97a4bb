"""``ranger-eval compare``: pairwise significance tests of many systems, tables and plots.

INPUT is either an experiment YAML (every system under ``systems`` is compared on every task;
IR tasks with ``qrels`` are evaluated from the TREC runs) or a tidy scores table
(CSV/TSV/JSONL/Parquet with ``dataset, system, item, value[, metric, seed]`` columns).
Registered on the main app by :func:`ranger_eval.cli._register_optional`.
"""
from __future__ import annotations

import re
import shutil
from pathlib import Path
from typing import Annotated, Any

import typer

YAML_SUFFIXES = (".yaml", ".yml")

OUTPUTS = (
    "comparison.csv",
    "comparison.md",
    "comparison.tex",
    "comparison.html",
    "leaderboard.md",
    "leaderboard.tex",
    "graph.png",
    "graph.pdf",
    "heatmap.png",
    "pvalues.png",
    "boxplots.png",
)


def _split(option: str | None) -> list[str] | None:
    if option is None:
        return None
    parts = [p.strip() for p in option.split(",") if p.strip()]
    return parts or None


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9@.+=-]+", "_", text).strip("_") or "x"


# --------------------------------------------------------------------------- experiment YAML
def _experiment_scores(path: Path, metrics: list[str] | None) -> Any:
    """Per-item scores of every system on every task (IR tasks evaluated on ``metrics``)."""
    from .io import ConfigError, collect_scores, load_experiment

    exp = load_experiment(path)
    cfg = exp.config
    if cfg.scores is None and len(cfg.systems) < 2:
        raise ConfigError(
            f"{path}: systems: compare needs at least two systems "
            f"(defined: {', '.join(cfg.systems) or 'none'})"
        )
    scores = collect_scores(exp, measures=metrics if exp.is_ir else None).scores
    if metrics and not exp.is_ir:
        scores = scores.filter(metrics=metrics)
    return scores


def load_input(path: Path, metrics: list[str] | None = None) -> Any:
    """Scores from an experiment YAML or a tidy scores table."""
    from .io import read_scores

    if path.suffix.lower() in YAML_SUFFIXES:
        return _experiment_scores(path, metrics)
    scores = read_scores(path)
    if metrics:
        scores = scores.filter(metrics=metrics)
    return scores


# --------------------------------------------------------------------------- outputs
def write_outputs(comp: Any, out: Path) -> list[Path]:
    """Write the tables and figures of a comparison into ``out``; returns the written paths."""
    from .plots._style import save_figure
    from .plots.boxplots import comparison_boxplots
    from .plots.graph import comparison_graph
    from .plots.heatmap import comparison_heatmap
    from .plots.pvalues import pvalue_plot

    out.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []

    def text(name: str, content: str) -> None:
        p = out / name
        p.write_text(content, encoding="utf-8")
        written.append(p)

    comp.to_csv(out / "comparison.csv")
    written.append(out / "comparison.csv")
    text("comparison.md", comp.to_markdown())
    text("comparison.tex", comp.to_latex())
    text("comparison.html", comp.to_html())
    board = comp.leaderboard()
    text("leaderboard.md", board.to_markdown())
    text("leaderboard.tex", board.to_latex())

    groups = list(dict.fromkeys(zip(comp.means["dataset"], comp.means["metric"], strict=True)))
    several = len(groups) > 1
    for i, (dataset, metric) in enumerate(groups):
        suffix = f"-{_slug(dataset)}-{_slug(metric)}" if several else ""
        figures = [
            ("graph", comparison_graph(comp, dataset, metric), ("png", "pdf")),
            ("pvalues", pvalue_plot(comp, dataset, metric), ("png",)),
            ("boxplots", comparison_boxplots(comp, dataset, metric), ("png",)),
        ]
        for stem, fig, formats in figures:
            paths = save_figure(fig, out / f"{stem}{suffix}", formats, dpi=150)
            written += paths
            if several and i == 0:  # the plain names show the first dataset × metric
                for p in paths:
                    plain = out / f"{stem}{p.suffix}"
                    shutil.copyfile(p, plain)
                    written.append(plain)
    written += save_figure(comparison_heatmap(comp), out / "heatmap", ("png",), dpi=150)
    return written


# --------------------------------------------------------------------------- command
def register(app: typer.Typer) -> None:
    """Add the ``compare`` command to ``app``."""
    from .cli import friendly_errors

    @app.command("compare")
    @friendly_errors
    def compare_command(
        input: Annotated[  # noqa: A002
            Path,
            typer.Argument(
                help="Experiment YAML, or a tidy scores table (.csv/.tsv/.jsonl/.parquet)."
            ),
        ],
        out: Annotated[Path, typer.Option("--out", "-o", help="Output folder.")] = Path(
            "ranger-compare"
        ),
        pairs: Annotated[
            str, typer.Option(help="Pairs to test: all, baseline or successive.")
        ] = "all",
        baseline: Annotated[
            str | None, typer.Option(help="Baseline system (with --pairs baseline).")
        ] = None,
        test: Annotated[
            str,
            typer.Option(
                help="auto, paired-t, welch, wilcoxon, sign, mannwhitney, mcnemar, "
                "proportions-z, permutation, bootstrap."
            ),
        ] = "auto",
        alternative: Annotated[
            str, typer.Option(help="two-sided, greater or less (system A vs B).")
        ] = "two-sided",
        correction: Annotated[
            str, typer.Option(help="Multiplicity correction (statsmodels multipletests name, or none).")
        ] = "holm-sidak",
        family: Annotated[
            str, typer.Option(help="Adjust within: dataset-metric, dataset or all.")
        ] = "dataset-metric",
        level: Annotated[float, typer.Option(help="Confidence level; alpha = 1 - level.")] = 0.95,
        n_resamples: Annotated[
            int, typer.Option(help="Resamples of the permutation/bootstrap tests.")
        ] = 10_000,
        seed: Annotated[int, typer.Option(help="Seed of the resampling tests and plots.")] = 0,
        metric: Annotated[
            str | None,
            typer.Option(help="Metric(s), comma-separated (IR: measures such as nDCG@10,AP)."),
        ] = None,
        systems: Annotated[
            str | None,
            typer.Option(help="Systems to compare, comma-separated, in table order (default: all)."),
        ] = None,
    ) -> None:
        """Compare systems pairwise: tests, corrections, effect sizes, tables and plots."""
        import warnings

        from .compare import compare

        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            scores = load_input(input, _split(metric))
            comp = compare(
                scores,
                systems=_split(systems),
                pairs=pairs,
                baseline=baseline,
                test=test,
                alternative=alternative,
                correction=correction,
                family=family,
                level=level,
                n_resamples=n_resamples,
                seed=seed,
            )
        for w in caught:
            typer.echo(f"ranger-eval: warning: {' '.join(str(w.message).split())}", err=True)
        written = write_outputs(comp, out)
        n_sig = int(comp.table["significant"].sum())
        typer.echo(comp.leaderboard().to_markdown())
        typer.echo(f"{len(comp.table)} comparisons, {n_sig} significant")
        typer.echo("wrote: " + ", ".join(str(p) for p in written))
