"""``ranger-eval estimate``: from a history and a new system's answers on a subset to its folder
(:func:`run_estimate`).

Reads ``history`` (past systems × items results on the whole benchmark: a long table
``system, item, value`` or a wide table whose first column names the system) and
``responses`` (the new system's results on a random subset: ``item, value`` with an optional
single ``system``, or a one-row wide table), runs :func:`~ranger_eval.estimate_from_subset` with
the command's :class:`~ranger_eval.settings.SubsetSettings` and the stated design of the items
(``design``: a simple random sample by default, or a stratified one with the strata recomputed
from the history, or anchor items — no design-based guarantee; the interval's validity rests on
the stated design being the one the items were drawn by) and writes ``estimate.md``,
``estimate.csv``, ``estimate.tex``, ``estimate.json``, the figure ``subset`` (the estimate
beside the plain subset mean and, with ``full_mean``, the full-benchmark value; the predictor
against the results on the items run), ``manifest.json`` with the signature and, with ``html``,
``report.html``.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd

from .. import report
from ..budget.subset import SubsetChoice, estimate_from_subset
from ..errors import SettingsError, VerdictError
from ..io.tables import read_table
from ..output import OutputFolder
from ..plots.subset import subset_plot
from ..settings import ChooseSubsetSettings, SubsetSettings
from ._common import collecting_warnings, finish_outputs
from ._run import CommandRun

__all__ = ["ESTIMATE_OUTPUTS", "run_estimate"]

ESTIMATE_OUTPUTS = ("estimate.md", "estimate.csv", "estimate.tex", "estimate.json")


def _table(path: Path, option: str) -> pd.DataFrame:
    """A long table as read, or a wide one with its first column as the system index."""
    table = read_table(path, id_columns=("system", "item"))
    if {"item", "value"} <= set(table):
        return table
    if table.shape[1] < 2:
        raise VerdictError(f"{option} {path}: expected a long table (system, item, value) or a "
                           f"wide table (a system column, then one column per item); got "
                           f"columns {list(table.columns)}")
    wide = table.set_index(table.columns[0])
    wide.columns = [str(c) for c in wide.columns]
    bad = [c for c in wide.columns if not pd.api.types.is_numeric_dtype(wide[c])]
    if bad:
        raise VerdictError(f"{option} {path}: column {bad[0]!r} of the wide table is not "
                           f"numeric (each item's results must be 0/1)")
    return wide


def run_estimate(history: str | Path, responses: str | Path, out: str | Path,
                 command: str | None = None, *, design: str | None = None,
                 n_strata: int | None = None, full_mean: float | None = None,
                 figures: str | None = None, html: bool = False,
                 settings: SubsetSettings | None = None, **options: Any) -> CommandRun:
    """Read ``history`` and ``responses``, estimate the whole-benchmark mean, write the tables
    and the manifest.

    Parameters
    ----------
    history : str or Path
        Past systems' results on every item (long ``system, item, value`` or wide).
    responses : str or Path
        The new system's results on a random subset (``item, value`` or one wide row).
    out : str or Path
        The output folder.
    command : str or None, default None
        The command line, recorded in the manifest.
    design : {'random', 'stratified', 'anchor'} or None, default None (random)
        How the items of ``responses`` were drawn (as :func:`~ranger_eval.choose_subset` names
        it): stratified recomputes the strata from the history (``n_strata`` strata of equal
        size by the items' mean in the history, as ``choose_subset`` draws them); anchor items
        are not random, so the interval has no design-based guarantee (a warning says so).
    n_strata : int or None, default None (5)
        Strata of ``design="stratified"``.
    full_mean : float or None, default None
        The system's mean over the whole benchmark when known (drawn in the figure, e.g. to
        check the method on a system run on every item).
    figures : str or None, default None
        Figure formats of ``subset`` (``png,pdf``; ``none``: no figure); None: PDF and PNG.
    html : bool, default False
        Also write ``report.html`` (read from the JSON files).
    settings : SubsetSettings or None, default None
        The settings; None: the defaults.
    **options
        Fields of :class:`~ranger_eval.settings.SubsetSettings`; None values are not given.

    Returns
    -------
    CommandRun
        ``result``: the :class:`~ranger_eval.budget.SubsetEstimate`; ``command="estimate"``.

    Raises
    ------
    RangerError
        A bad input or option (named).

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> x = (rng.random((21, 200)) < np.linspace(0.1, 0.9, 200)).astype(int)
    >>> folder = tempfile.TemporaryDirectory()
    >>> h, r = Path(folder.name, "history.csv"), Path(folder.name, "responses.csv")
    >>> _ = h.write_text("system,item,value\\n" + "".join(
    ...     f"s{s},q{i},{x[s, i]}\\n" for s in range(20) for i in range(200)))
    >>> _ = r.write_text("item,value\\n" + "".join(f"q{i},{x[20, i]}\\n" for i in range(0, 200, 4)))
    >>> from ranger_eval.pipeline.estimate import run_estimate
    >>> run = run_estimate(h, r, Path(folder.name, "out"))
    >>> run.command, run.result.n, run.result.n_population
    ('estimate', 50, 200)
    >>> folder.cleanup()
    """
    settings = SubsetSettings.from_options(options, settings)
    try:
        choose = ChooseSubsetSettings.from_options(
            {"method": design, "n_strata": n_strata}, None)
    except SettingsError as exc:
        option = "--design" if design is not None and "design" in str(exc) else "--strata"
        raise SettingsError(f"{option}: {exc}") from exc
    if full_mean is not None and not 0.0 <= full_mean <= 1.0:
        raise VerdictError(f"--full-mean must be a mean of 0/1 results in [0, 1]; got "
                           f"{full_mean:g}")
    h_path, r_path = Path(history), Path(responses)
    notes: list[str] = []
    with collecting_warnings(notes):
        h_table = _table(h_path, "--history")
        r_table = _table(r_path, "--responses")
        try:
            chosen = None
            if design is not None or n_strata is not None:
                items = (r_table["item"] if "item" in r_table else r_table.columns)
                chosen = SubsetChoice.of_items(h_table, items, method=choose.method,
                                               n_strata=choose.n_strata)
            result = estimate_from_subset(h_table, r_table, design=chosen, settings=settings)
        except VerdictError as exc:
            raise VerdictError(f"--history {h_path.name} / --responses {r_path.name}: "
                               f"{exc}") from exc
    folder = OutputFolder(out, [h_path, r_path], figures)
    folder.claim(ESTIMATE_OUTPUTS)
    folder.text("estimate.md", report.to_markdown(result))
    folder.text("estimate.csv", report.to_csv(result))
    folder.text("estimate.tex", report.to_latex(result))
    folder.text("estimate.json", report.to_json(result))
    folder.figure(lambda: subset_plot(result, r_table, full_mean=full_mean), "subset",
                  ("pdf", "png"))
    notes += finish_outputs(folder, str(result.signature), command, html, notes)
    return CommandRun(result, tuple(folder.written), tuple(notes), settings=settings,
                      command="estimate")
