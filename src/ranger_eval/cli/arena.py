"""``ranger-eval arena BATTLES``: a Bradley–Terry leaderboard from pairwise battles (LMArena's
schema: model_a, model_b, winner, optional weight; CSV, TSV, JSONL or Parquet), or from a table
of per-item scores (every item a battle between every pair of systems).

Writes ``arena.md``, ``arena.csv``, ``arena.tex``, ``arena.json`` (the full result), the figures
``arena_ratings`` (ratings with intervals) and ``arena_win_probability`` (heatmap),
``manifest.json`` with the signature, and with ``--html`` (as every command) ``report.html``: the
one-file HTML report of the folder (:mod:`ranger_eval.report.html`, as ``ranger-eval report``
writes it: the verdicts in words, the leaderboard table, the figures embedded, the signature).
The default folder is ``ranger-arena`` (every command's is ``ranger-<command>``). This module
only parses the options (generated from :class:`~ranger_eval.settings.ArenaSettings`) and calls
:func:`ranger_eval.pipeline.arena.run_arena`.
"""
from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from ..errors import ConfigError
from ..formatting import comma_list
from ..settings import ArenaSettings
from ._common import (
    CLUSTER_HELP,
    command_line,
    friendly_errors,
    imports_done,
    report_written,
    true_or_false,
    warn,
)
from ._options import FiguresOption, HtmlOption, OutOption, default_out, setting_option


def parse_anchor(text: str | None) -> tuple[str, float] | None:
    """``MODEL=RATING`` (the last ``=`` splits, so a model name may hold ``=``)."""
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


def _covariates(values: list[str] | None) -> tuple[str, ...] | None:
    """``--covariate`` given several times and/or as comma lists → one tuple (None: not
    given)."""
    if not values:
        return None
    names = [name for value in values for name in (comma_list(value) or [])]
    return tuple(names) or None


def register(app: typer.Typer) -> None:
    @app.command("arena")
    @friendly_errors
    def arena(  # noqa: PLR0913 - one option per ArenaSettings field
        battles: Annotated[Path, typer.Argument(
            help="Battles: model_a, model_b, winner (model_a, model_b, tie, tie (bothbad)) and "
                 "optionally weight; CSV, TSV, JSONL or Parquet.")],
        anchor: Annotated[str | None, setting_option(ArenaSettings, "anchor")] = None,
        ties: Annotated[str | None, setting_option(ArenaSettings, "ties")] = None,
        scale: Annotated[float | None, setting_option(ArenaSettings, "scale")] = None,
        base: Annotated[float | None, setting_option(ArenaSettings, "base")] = None,
        init_rating: Annotated[float | None,
                               setting_option(ArenaSettings, "init_rating")] = None,
        n_resamples: Annotated[int | None,
                               setting_option(ArenaSettings, "n_resamples")] = None,
        level: Annotated[float | None, setting_option(ArenaSettings, "level")] = None,
        seed: Annotated[int | None, setting_option(ArenaSettings, "seed")] = None,
        out: OutOption = default_out("arena"),
        figures: FiguresOption = None,
        html: HtmlOption = False,
        metric: Annotated[str | None, setting_option(ArenaSettings, "metric")] = None,
        higher_is_better: Annotated[
            str | None, setting_option(ArenaSettings, "higher_is_better")] = None,
        covariate: Annotated[list[str] | None, setting_option(
            ArenaSettings, "covariates", "--covariate")] = None,
        cluster: Annotated[str | None, typer.Option(
            "--cluster", metavar="FIELD",
            help="Per-item scores given: " + CLUSTER_HELP[0].lower() + CLUSTER_HELP[1:]
            + " The battles of a cluster's items are resampled together.")] = None,
    ) -> None:
        """Bradley–Terry leaderboard of pairwise battles: ratings with bootstrap intervals,
        rank intervals, win probabilities; writes arena.md/.csv/.tex/.json, two figures,
        manifest.json and, with --html, report.html."""
        from ..pipeline.arena import run_arena

        imports_done()
        run = run_arena(battles, out, command_line(), figures=figures, html=html,
                        cluster=cluster, anchor=parse_anchor(anchor), ties=ties, scale=scale,
                        base=base, init_rating=init_rating, n_resamples=n_resamples,
                        level=level, seed=seed, metric=metric,
                        covariates=_covariates(covariate),
                        higher_is_better=true_or_false("--higher-is-better", higher_is_better))
        warn(run.warnings)
        board = run.result.to_frame()
        typer.echo(f"{len(board)} models, {run.result.n_battles:,} battles; ratings "
                   f"{run.result.reference_text}")
        styled = run.result.uncontrolled is not None
        if styled:
            typer.echo(f"  style control on {', '.join(run.result.covariates)}: rating "
                       "(without style control in brackets)")
        for row in board.head(10).itertuples(index=False):
            rank = "" if row.rank_low != row.rank_low else \
                f"  {run.result.rank_sentence(row.model)}"
            plain = f" ({row.rating_uncontrolled:.1f})" if styled else ""
            typer.echo(f"  {row.model}: {row.rating:.1f}{plain}{rank}")
        if len(board) > 10:
            typer.echo(f"  … {len(board) - 10} more in arena.md")
        if run.result.coefficients is not None:
            for c in run.result.coefficients.itertuples(index=False):
                typer.echo(f"  coefficient {c.covariate}: {c.estimate:.4f} log-odds per sd "
                           f"({c.elo:.1f} Elo), se {c.se:.4f}, {run.result.level * 100:g} % CI "
                           f"[{c.ci_low:.4f}, {c.ci_high:.4f}]")
        typer.echo(str(run.result.signature))
        report_written(run.written)
