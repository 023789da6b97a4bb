"""``ranger-eval arena BATTLES``: a Bradley–Terry leaderboard from pairwise battles (LMArena's
schema: model_a, model_b, winner, optional weight; CSV, TSV, JSONL or Parquet), or from a table
of per-item scores (every item a battle between every pair of systems).

Writes ``arena.md``, ``arena.csv``, ``arena.tex``, ``arena.json`` (the full result), the figures
``arena_ratings`` (ratings with intervals) and ``arena_win_probability`` (heatmap),
``manifest.json`` with the signature, and with ``--html`` (as every command) ``report.html``: the
one-file HTML report of the folder (:mod:`ranger_eval.report.html`, as ``ranger-eval report``
writes it: the verdicts in words, the leaderboard table, the figures embedded, the signature).
The default folder is ``ranger-arena`` (every command's is ``ranger-<command>``). The run is
:func:`run_arena` here: it only reads the file, calls :func:`ranger_eval.bradley_terry` and
hands the result to the report and plot writers.
"""
from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from ..pipeline import CommandRun
from ._common import (
    CLUSTER_HELP,
    command_line,
    friendly_errors,
    imports_done,
    report_written,
    true_or_false,
    warn,
)
from ._options import FiguresOption, HtmlOption, OutOption, default_out

ARENA_OUTPUTS = ("arena.md", "arena.csv", "arena.tex", "arena.json")


def parse_anchor(text: str | None) -> tuple[str, float] | None:
    """``MODEL=RATING`` (the last ``=`` splits, so a model name may hold ``=``)."""
    from ..errors import ConfigError

    if text is None:
        return None
    name, sep, value = text.rpartition("=")
    if not sep or not name.strip():
        raise ConfigError(f"option --anchor: {text!r} is not MODEL=RATING (e.g. --anchor "
                          "gpt-4-0613=1200)")
    try:
        rating = float(value)
    except ValueError:
        raise ConfigError(f"option --anchor: rating {value!r} in {text!r} is not a number") \
            from None
    return name.strip(), rating


def run_arena(battles: str | Path, out: str | Path, command: str | None = None, *,
              figures: str | None = None, html: bool = False, metric: str | None = None,
              higher_is_better: bool = True, cluster: str | None = None,
              **options: Any) -> CommandRun:
    """Read ``battles``, fit :func:`ranger_eval.bradley_terry` with ``options``, write the
    leaderboard (Markdown, CSV, LaTeX, JSON), the two figures, the manifest and (``html``)
    report.html, as every command does with ``--html``. A per-item
    scores table (dataset, system, item, value) instead of battles becomes battles by
    :func:`~ranger_eval.verdicts.bradley_terry.battle_counts` (``metric``,
    ``higher_is_better``; counts of the distinct outcomes, not a row per battle); with
    ``cluster`` (``--cluster FIELD``, or a ``cluster`` column) the battles of a cluster's items
    are resampled together (:mod:`ranger_eval.design`)."""
    from ..io.battles import read_battles
    from ..io.tables import is_item_table, read_scores, read_table
    from ..output import OutputFolder
    from ..pipeline import collecting_warnings, finish_outputs
    from ..plots.arena import ratings_plot, win_probability_heatmap
    from ..report.arena import arena_csv, arena_json, arena_latex, arena_markdown
    from ..verdicts.bradley_terry import battle_counts, bradley_terry

    path = Path(battles)
    notes: list[str] = []
    with collecting_warnings(notes):
        columns = read_table(path).columns
        if "winner" not in columns and is_item_table(columns):
            # per-item scores: every item a battle between every pair of systems
            fitted: Any = battle_counts(read_scores(path, cluster=cluster), metric=metric,
                                        higher_is_better=higher_is_better)
        else:
            if cluster is not None:
                from ..errors import ConfigError

                raise ConfigError(
                    f"{path}: --cluster {cluster} groups the items of per-item scores, but "
                    "this is a battles table (model_a, model_b, winner); leave --cluster out")
            fitted = read_battles(path)[1]
        result = bradley_terry(fitted, **options)
    folder = OutputFolder(out, [path], figures)
    folder.claim(ARENA_OUTPUTS)
    folder.text("arena.md", arena_markdown(result))
    folder.text("arena.csv", arena_csv(result))
    folder.text("arena.tex", arena_latex(result))
    folder.text("arena.json", arena_json(result))
    folder.figure(lambda: ratings_plot(result), "arena_ratings", ("pdf", "png"))
    folder.figure(lambda: win_probability_heatmap(result), "arena_win_probability",
                  ("pdf", "png"))
    notes += finish_outputs(folder, str(result.signature), command, html, notes)
    return CommandRun(result, tuple(folder.written), tuple(notes))


def register(app: typer.Typer) -> None:
    @app.command("arena")
    @friendly_errors
    def arena(  # noqa: PLR0913 - one option per keyword of ranger_eval.bradley_terry
        battles: Annotated[Path, typer.Argument(
            help="Battles: model_a, model_b, winner (model_a, model_b, tie, tie (bothbad)) and "
                 "optionally weight; CSV, TSV, JSONL or Parquet.")],
        anchor: Annotated[str | None, typer.Option(
            "--anchor", help="Fix one model's rating: MODEL=RATING.")] = None,
        ties: Annotated[str, typer.Option(
            "--ties", help="half (a tie is half a win each, as FastChat) or davidson.")] = "half",
        scale: Annotated[float, typer.Option("--scale", help="Elo scale.")] = 400,
        base: Annotated[float, typer.Option("--base", help="Elo base.")] = 10,
        init_rating: Annotated[float, typer.Option(
            "--init-rating", help="Mean rating (without --anchor).")] = 1000,
        n_bootstrap: Annotated[int, typer.Option(
            "--n-bootstrap", help="Bootstrap rounds for the intervals (0: none).")] = 1000,
        level: Annotated[float, typer.Option("--level", help="Confidence level.")] = 0.95,
        seed: Annotated[int, typer.Option("--seed", help="Seed of the bootstrap.")] = 0,
        out: OutOption = default_out("arena"),
        figures: FiguresOption = None,
        html: HtmlOption = False,
        metric: Annotated[str | None, typer.Option(
            "--metric", help="Per-item scores given: the metric whose items are battles.")] = None,
        higher_is_better: Annotated[str | None, typer.Option(
            "--higher-is-better", help="Per-item scores given: true (default) or false.")] = None,
        cluster: Annotated[str | None, typer.Option(
            "--cluster", metavar="FIELD",
            help="Per-item scores given: " + CLUSTER_HELP[0].lower() + CLUSTER_HELP[1:]
            + " The battles of a cluster's items are resampled together.")] = None,
    ) -> None:
        """Bradley–Terry leaderboard of pairwise battles: ratings with bootstrap intervals,
        rank intervals, win probabilities; writes arena.md/.csv/.tex/.json, two figures,
        manifest.json and, with --html, report.html."""
        imports_done()
        direction = true_or_false("--higher-is-better", higher_is_better)
        run = run_arena(battles, out, command_line(), figures=figures, html=html, metric=metric,
                        higher_is_better=True if direction is None else direction,
                        cluster=cluster,
                        anchor=parse_anchor(anchor), ties=ties, scale=scale, base=base,
                        init_rating=init_rating, n_bootstrap=n_bootstrap, level=level, seed=seed)
        warn(run.warnings)
        board = run.result.to_frame()
        typer.echo(f"{len(board)} models, {run.result.n_battles:,} battles; ratings "
                   f"{run.result.reference_text}")
        for row in board.head(10).itertuples(index=False):
            rank = "" if row.rank_low != row.rank_low else \
                f"  {run.result.rank_sentence(row.model)}"
            typer.echo(f"  {row.model}: {row.rating:.1f}{rank}")
        if len(board) > 10:
            typer.echo(f"  … {len(board) - 10} more in arena.md")
        typer.echo(str(run.result.signature))
        report_written(run.written)
