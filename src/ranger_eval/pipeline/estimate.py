"""``ranger-eval estimate``: from a history and a new system's answers on a subset to its folder
(:func:`run_estimate`).

Reads ``history`` (past systems × items results on the whole benchmark: a long table
``system, item, value`` or a wide table whose first column names the system) and
``responses`` (the new system's results on a random subset: ``item, value`` with an optional
single ``system``, or a one-row wide table), runs :func:`~ranger_eval.estimate_from_subset` with
the command's :class:`~ranger_eval.settings.SubsetSettings` (a simple random sample of items is
assumed: the interval's validity rests on it) and writes ``estimate.md``, ``estimate.csv``,
``estimate.tex``, ``estimate.json`` and ``manifest.json`` with the signature.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd

from .. import report
from ..budget.subset import estimate_from_subset
from ..errors import VerdictError
from ..io.tables import read_table
from ..output import OutputFolder
from ..settings import SubsetSettings
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
                 command: str | None = None, *, settings: SubsetSettings | None = None,
                 **options: Any) -> CommandRun:
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
    h_path, r_path = Path(history), Path(responses)
    notes: list[str] = []
    with collecting_warnings(notes):
        h_table = _table(h_path, "--history")
        r_table = _table(r_path, "--responses")
        try:
            result = estimate_from_subset(h_table, r_table, settings=settings)
        except VerdictError as exc:
            raise VerdictError(f"--history {h_path.name} / --responses {r_path.name}: "
                               f"{exc}") from exc
    folder = OutputFolder(out, [h_path, r_path], None)
    folder.claim(ESTIMATE_OUTPUTS)
    folder.text("estimate.md", report.to_markdown(result))
    folder.text("estimate.csv", report.to_csv(result))
    folder.text("estimate.tex", report.to_latex(result))
    folder.text("estimate.json", report.to_json(result))
    notes += finish_outputs(folder, str(result.signature), command, False, notes)
    return CommandRun(result, tuple(folder.written), tuple(notes), settings=settings,
                      command="estimate")
