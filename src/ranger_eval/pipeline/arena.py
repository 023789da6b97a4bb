"""``ranger-eval arena``: a Bradley–Terry leaderboard from a battles file or per-item scores.

:func:`run_arena` reads the file, fits :func:`ranger_eval.bradley_terry` with the command's
:class:`~ranger_eval.settings.ArenaSettings` and hands the result to the report and plot
writers: ``arena.md``, ``arena.csv``, ``arena.tex``, ``arena.json`` (the full result), the
figures ``arena_ratings`` (ratings with intervals) and ``arena_win_probability`` (heatmap),
``manifest.json`` with the signature and, with ``html``, ``report.html``.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any

from .. import report
from ..errors import ConfigError
from ..io.battles import read_battles
from ..io.tables import is_item_table, read_scores, read_table
from ..output import OutputFolder
from ..plots.arena import coefficients_plot, ratings_plot, win_probability_heatmap
from ..settings import ArenaSettings
from ..verdicts.battle_counts import battle_counts
from ..verdicts.bradley_terry import bradley_terry
from ._common import collecting_warnings, finish_outputs
from ._run import CommandRun

__all__ = ["ARENA_OUTPUTS", "run_arena"]

#: Files ``ranger-eval arena`` writes (besides the figures and manifest.json).
ARENA_OUTPUTS = ("arena.md", "arena.csv", "arena.tex", "arena.json")


def run_arena(battles: str | Path, out: str | Path, command: str | None = None, *,
              figures: str | None = None, html: bool = False, cluster: str | None = None,
              settings: ArenaSettings | None = None, **options: Any) -> CommandRun:
    """Read ``battles``, fit :func:`ranger_eval.bradley_terry`, write the leaderboard
    (Markdown, CSV, LaTeX, JSON), the two figures, the manifest and (``html``) report.html.
    With the settings' ``covariates`` (``--covariate COL``) the ratings are style-controlled
    and every output shows them beside the ratings without style control, with the
    covariates' coefficients.

    ``settings`` (default: the defaults) with ``options`` (:class:`ArenaSettings` fields; None
    values: not given) on top. A per-item scores table (dataset, system, item, value) instead
    of battles becomes battles by :func:`~ranger_eval.verdicts.bradley_terry.battle_counts`
    (the settings' ``metric`` and ``higher_is_better``; counts of the distinct outcomes, not a
    row per battle); with ``cluster`` (``--cluster FIELD``, or a ``cluster`` column) the battles
    of a cluster's items are resampled together (:mod:`ranger_eval.design`). Returns the
    :class:`CommandRun` (``result``: the :class:`~ranger_eval.verdicts.Ratings`).

    Parameters
    ----------
    battles : str or Path
        A battles table (``model_a, model_b, winner``) or per-item scores.
    out : str or Path
        The output folder.
    command : str or None, default None
        The command line, recorded in the manifest.
    figures : str or None, default None
        Figure formats or ``"none"``.
    html : bool, default False
        Also write ``report.html``.
    cluster : str or None, default None
        The field of each item's cluster.
    settings : ArenaSettings or None, default None
        The settings; None: the defaults.
    **options
        :class:`~ranger_eval.settings.ArenaSettings` fields; None values are not given.

    Returns
    -------
    CommandRun
        The run.

    Raises
    ------
    RangerError
        A bad input or option (named).

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> folder = tempfile.TemporaryDirectory()
    >>> table = Path(folder.name, "scores.csv")
    >>> _ = table.write_text("dataset,system,item,value\\n" + "".join(
    ...     f"qa,{s},{i},{(3 * i + 5 * k) % 7 / 7:.3f}\\n" for k, s in enumerate("abc")
    ...     for i in range(12)))
    >>> from ranger_eval.pipeline import run_arena
    >>> run = run_arena(table, Path(folder.name, "out"), figures="none", n_resamples=50, seed=0)
    >>> run.command, type(run.result).__name__
    ('arena', 'Ratings')
    >>> folder.cleanup()
    """
    settings = ArenaSettings.from_options(options, settings)
    path = Path(battles)
    notes: list[str] = []
    with collecting_warnings(notes):
        columns = read_table(path).columns
        if "winner" not in columns and is_item_table(columns):
            # per-item scores: every item a battle between every pair of systems
            if settings.covariates:
                raise ConfigError(
                    f"{path}: --covariate {','.join(settings.covariates)} describes each "
                    "battle's two responses, but this is a table of per-item scores (no "
                    "responses to compare); give a battles table or leave --covariate out")
            fitted: Any = battle_counts(read_scores(path, cluster=cluster), settings=settings)
        else:
            if cluster is not None:
                raise ConfigError(
                    f"{path}: --cluster {cluster} groups the items of per-item scores, but "
                    "this is a battles table (model_a, model_b, winner); leave --cluster out")
            fitted = read_battles(path, covariates=settings.covariates or ())[1]
        result = bradley_terry(fitted, settings=settings)
    folder = OutputFolder(out, [path], figures)
    folder.claim(ARENA_OUTPUTS)
    folder.text("arena.md", report.to_markdown(result))
    folder.text("arena.csv", report.to_csv(result))
    folder.text("arena.tex", report.to_latex(result))
    folder.text("arena.json", report.to_json(result))
    folder.figure(lambda: ratings_plot(result), "arena_ratings", ("pdf", "png"))
    folder.figure(lambda: win_probability_heatmap(result), "arena_win_probability",
                  ("pdf", "png"))
    if result.coefficients is not None:   # style control: the covariates' effects
        folder.figure(lambda: coefficients_plot(result), "arena_coefficients", ("pdf", "png"))
    notes += finish_outputs(folder, str(result.signature), command, html, notes)
    return CommandRun(result, tuple(folder.written), tuple(notes), settings=settings,
                      command="arena")
