"""``ranger-eval bayes``: from a file of scores to its folder (:func:`run_bayes`).

``test="correlated-t"`` (the default): per-item scores (any input ``compare`` reads) whose items
are the folds, matched by id between systems; with a ``seed`` column each seed is a repetition
(run) of the cross-validation; :func:`~ranger_eval.verdicts.bayes.correlated_ttests`.
``"signed-rank"`` / ``"sign"``: one score per dataset and system
(:func:`~ranger_eval.verdicts.bayes.dataset_tests`; :func:`dataset_table` says what is read).

Writes ``bayes.md`` (every verdict in words: "A is practically equivalent to B (P(rope) = 0.93,
ROPE ±0.01)"), ``bayes.csv``, ``bayes.tex``, ``bayes.json``, the posterior of each pair with
the ROPE shaded (``posterior`` or ``posterior-DATASET-METRIC-A-B``; the simplex of the Dirichlet
draws for signed-rank and sign; the first :data:`MAX_POSTERIOR_FIGURES`, the count of the others
in a warning), ``manifest.json`` and with ``html`` the one-file ``report.html``.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd

from .. import report
from ..errors import InputError
from ..formatting import comma_list
from ..io.tables import read_scores
from ..output import OutputFolder
from ..plots.bayes import posterior_plot, simplex_plot
from ..settings import BayesSettings
from ..verdicts.bayes import correlated_ttests, dataset_tests
from ._common import collecting_warnings, finish_outputs
from ._run import CommandRun
from .aso import figure_stem
from .rank import read_rank_input

__all__ = ["BAYES_OUTPUTS", "MAX_POSTERIOR_FIGURES", "dataset_table", "run_bayes"]

BAYES_OUTPUTS = ("bayes.md", "bayes.csv", "bayes.tex", "bayes.json")
#: Most posterior figures drawn (one per pair of systems and dataset × metric); the others are
#: in bayes.json and bayes.csv, and a warning says how many were not drawn.
MAX_POSTERIOR_FIGURES = 24


def run_bayes(scores: str | Path, out: str | Path, command: str | None = None, *,
              figures: str | None = None, html: bool = False, input_format: str | None = None,
              system_from: str | None = None, settings: BayesSettings | None = None,
              **options: Any) -> CommandRun:
    """Read ``scores``, run :func:`~ranger_eval.verdicts.bayes.correlated_ttests` or
    :func:`~ranger_eval.verdicts.bayes.dataset_tests` (``test``) with ``settings`` (a
    :class:`~ranger_eval.settings.BayesSettings`; default: the defaults) updated by the
    ``options`` that are not None (its field names: ``rope=0.01``, ``n_draws=…``), write the
    tables, the posterior figures and the manifest (and ``report.html`` with ``html``).

    Returns the :class:`~ranger_eval.pipeline.CommandRun` (``result``: the
    :class:`~ranger_eval.verdicts.BayesAnalysis`; ``settings``: the settings used;
    ``command="bayes"``).

    Parameters
    ----------
    scores : str or Path
        Per-item scores, or one score per dataset and system (signed-rank and sign tests).
    out : str or Path
        The output folder.
    command : str or None, default None
        The command line, recorded in the manifest.
    figures : str or None, default None
        Figure formats or ``"none"``.
    html : bool, default False
        Also write ``report.html``.
    input_format : str or None, default None
        The input's format; None: detected.
    system_from : str or None, default None
        Where the systems of logs are named.
    settings : BayesSettings or None, default None
        The settings; None: the defaults.
    **options
        :class:`~ranger_eval.settings.BayesSettings` fields; None values are not given.

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
    >>> from ranger_eval.pipeline import run_bayes
    >>> run = run_bayes(table, Path(folder.name, "out"), figures="none", seed=0)
    >>> run.command, type(run.result).__name__
    ('bayes', 'BayesAnalysis')
    >>> folder.cleanup()
    """
    settings = BayesSettings.from_options(options, settings)
    path = Path(scores)
    notes: list[str] = []
    with collecting_warnings(notes):
        if settings.test == "correlated-t":
            table = read_scores(path, format=input_format, system_from=comma_list(system_from))
            result = correlated_ttests(table, settings=settings)
        else:
            result = dataset_tests(dataset_table(path, input_format, system_from),
                                   settings=settings)
    folder = OutputFolder(out, [path], figures)
    folder.claim(BAYES_OUTPUTS)
    folder.text("bayes.md", report.to_markdown(result))
    folder.text("bayes.csv", report.to_csv(result))
    folder.text("bayes.tex", report.to_latex(result))
    folder.text("bayes.json", report.to_json(result))
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
    return CommandRun(result, tuple(folder.written), tuple(notes), settings=settings,
                      command="bayes")


def dataset_table(path: Path, input_format: str | None, system_from: str | None) -> Any:
    """One score per dataset and system for the signed-rank and sign tests: per-item scores
    (any input ``compare`` reads; their per-dataset means), a wide table (rows = datasets,
    columns = systems, empty cells missing) or a tidy ``dataset, system, value[, metric]`` table
    (one metric), as ``ranger-eval rank`` reads them."""
    if input_format not in (None, "auto", "table"):
        return read_scores(path, format=input_format, system_from=comma_list(system_from))
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
