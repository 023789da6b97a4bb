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
    since the run."""
    path, warnings = write_report(folder, command)
    return CommandRun(path, (path,), warnings, None, "report")
