"""``ranger-eval aso``: from a file of run scores to its folder (:func:`run_aso`).

Reads a run table (``system, seed, value[, dataset, metric]``: one score per run; or per-item
scores with a ``seed`` column, a run's score being its mean over the items;
:func:`~ranger_eval.io.runs.read_runs`), runs :func:`~ranger_eval.verdicts.aso.aso_groups` with
the command's :class:`~ranger_eval.settings.ASOSettings`, and writes ``aso.md`` (every verdict in
words and the matrices), ``aso.csv`` (one row per ordered pair), ``aso.tex``, ``aso.json`` (the
full result), a heatmap of each matrix (``aso`` or ``aso-DATASET-METRIC``), ``manifest.json``
with the signature, and with ``html`` the one-file ``report.html``.
"""
from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from .. import report
from ..io.runs import read_runs
from ..output import OutputFolder
from ..plots.aso import aso_heatmap
from ..report.verdicts import figure_suffix
from ..settings import ASOSettings
from ..verdicts.aso import aso_groups
from ._common import collecting_warnings, finish_outputs
from ._run import CommandRun

__all__ = ["ASO_OUTPUTS", "figure_stem", "run_aso"]

ASO_OUTPUTS = ("aso.md", "aso.csv", "aso.tex", "aso.json")


def figure_stem(prefix: str, groups: Sequence[tuple[str, ...]], i: int) -> str:
    """``prefix`` for one group, else ``prefix-SUFFIX`` (:func:`~ranger_eval.report.verdicts.
    figure_suffix`)."""
    return prefix if len(groups) == 1 else f"{prefix}-{figure_suffix(groups[i], i)}"




def run_aso(scores: str | Path, out: str | Path, command: str | None = None, *,
            figures: str | None = None, html: bool = False,
            settings: ASOSettings | None = None, **options: Any) -> CommandRun:
    """Read ``scores``, run :func:`~ranger_eval.verdicts.aso.aso_groups` with ``settings`` (an
    :class:`~ranger_eval.settings.ASOSettings`; default: the defaults) updated by the
    ``options`` that are not None (its field names: ``level=0.9``, ``n_resamples=…``), write
    the tables, the heatmaps and the manifest (and ``report.html`` with ``html``).

    Returns the :class:`~ranger_eval.pipeline.CommandRun` (``result``: the
    :class:`~ranger_eval.verdicts.ASOAnalysis`; ``settings``: the settings used;
    ``command="aso"``).

    Parameters
    ----------
    scores : str or Path
        A run table (``system, seed, value[, dataset, metric]``) or per-item scores with a
        ``seed`` column: one score per run.
    out : str or Path
        The output folder.
    command : str or None, default None
        The command line, recorded in the manifest.
    figures : str or None, default None
        Figure formats or ``"none"``.
    html : bool, default False
        Also write ``report.html``.
    settings : ASOSettings or None, default None
        The settings; None: the defaults.
    **options
        :class:`~ranger_eval.settings.ASOSettings` fields; None values are not given.

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
    >>> table = Path(folder.name, "runs.csv")
    >>> _ = table.write_text("system,seed,value\\n" + "".join(
    ...     f"{s},{seed},{0.6 + 0.05 * k + (7 * seed % 5) / 100:.3f}\\n"
    ...     for k, s in enumerate("ab") for seed in range(6)))
    >>> from ranger_eval.pipeline import run_aso
    >>> run = run_aso(table, Path(folder.name, "out"), figures="none", n_resamples=20, seed=0)
    >>> run.command, type(run.result).__name__
    ('aso', 'ASOAnalysis')
    >>> folder.cleanup()
    """
    settings = ASOSettings.from_options(options, settings)
    path = Path(scores)
    notes: list[str] = []
    with collecting_warnings(notes):
        result = aso_groups(read_runs(path), settings=settings)
    folder = OutputFolder(out, [path], figures)
    folder.claim(ASO_OUTPUTS)
    folder.text("aso.md", report.to_markdown(result))
    folder.text("aso.csv", report.to_csv(result))
    folder.text("aso.tex", report.to_latex(result))
    folder.text("aso.json", report.to_json(result))
    keys = [(g.dataset, g.metric) for g in result.groups]
    for i in range(len(keys)):
        folder.figure(lambda i=i: aso_heatmap(result, i), figure_stem("aso", keys, i),
                      ("pdf", "png"))
    notes += finish_outputs(folder, str(result.signature), command, html, notes)
    return CommandRun(result, tuple(folder.written), tuple(notes), settings=settings,
                      command="aso")
