"""``ranger-eval report DIR``: one self-contained ``report.html`` from the files an earlier run
wrote (:func:`run_report`; every command's ``--html`` calls :func:`write_report` itself)."""
from __future__ import annotations

from pathlib import Path

from ._common import write_report
from ._run import CommandRun

__all__ = ["run_report"]


def run_report(folder: str | Path, command: str | None = None) -> CommandRun:
    """``ranger-eval report``: ``folder/report.html`` (:func:`write_report`); the run's
    ``result`` and only written file is its path, its ``warnings`` say e.g. which file changed
    since the run.

    Parameters
    ----------
    folder : str or Path
        The output folder of an earlier run.
    command : str or None, default None
        The command line, recorded in the manifest.

    Returns
    -------
    CommandRun
        The run: ``result`` the path of ``report.html``.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> folder = tempfile.TemporaryDirectory()
    >>> table = Path(folder.name, "scores.csv")
    >>> _ = table.write_text("dataset,system,item,value\\n" + "".join(
    ...     f"qa,{s},{i},{(3 * i + 5 * k) % 7 / 7:.3f}\\n" for k, s in enumerate("abc")
    ...     for i in range(12)))
    >>> from ranger_eval.pipeline import run_compare, run_report
    >>> _ = run_compare(table, Path(folder.name, "out"), figures="none")
    >>> run = run_report(Path(folder.name, "out"))
    >>> run.command, run.result.name, run.warnings
    ('report', 'report.html', ())
    >>> folder.cleanup()
    """
    path, warnings = write_report(folder, command)
    return CommandRun(path, (path,), warnings, None, "report")
