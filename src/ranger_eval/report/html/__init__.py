"""The one-file HTML report of a ranger-eval output folder (``report.html``).

:func:`write_html_report` reads what ``ranger-eval meta``, ``compare``, ``rank``, ``arena``,
``aso``, ``bayes``, ``agree``, ``estimate`` or ``demo`` wrote into a folder — ``manifest.json`` and the JSON results it
lists (``summary.json`` and ``effects.csv`` of a meta-analysis, ``comparison.json`` and
``leaderboard.json`` of a comparison, ``ranking.json`` with ``ranking.csv`` and ``ranktest.csv``
of a ranking, ``arena.json``, ``aso.json``, ``bayes.json``, ``agreement.json`` and
``alt_test.json``, ``estimate.json``, the figures); never a Markdown file
read back — and writes one self-contained ``report.html`` beside them:

* the figures inline: SVG as markup (ids and ``<style>`` rules prefixed per figure, so two
  figures never clash), a figure that exists only as PNG as a ``data:`` URI;
* the tables as HTML tables, sortable by clicking a column header (a few lines of the report's
  own JavaScript; numeric-aware, ascending/descending, ``aria-sort``);
* the machine-readable results as JSON in ``<script type="application/json"
  id="ranger-results">``;
* the signature and the exact command of every analysis, and a short plain-language reading of
  each result, written from the numbers in the files.

Nothing is fetched: no CDN, no web font, no external reference (a Content-Security-Policy of
``default-src 'none'`` makes the browser refuse any). Nothing is computed either: every number
is read from the files, only counted and formatted (:mod:`ranger_eval.formatting`). Folders one
level down that hold their own ``manifest.json`` (``ranking/`` of ``ranger-eval demo``) become
further sections of the same report. Missing or malformed contents raise
:class:`~ranger_eval.errors.ReportError` naming the folder or file.

One module per part of the page: :mod:`.common` (reading a folder, number formats),
:mod:`.tables` (sortable tables), one per command's section (:mod:`.meta`, :mod:`.compare`,
:mod:`.rank`, :mod:`.verdicts` for aso, bayes and arena, :mod:`.agree`, :mod:`.estimate`), :mod:`.figures` (embedding) and
:mod:`.page` (the shell: CSS, script, provenance).
"""
from __future__ import annotations

from pathlib import Path

from ...atomic import write_text
from ...errors import ReportError
from ...signature import parse_signature
from .agree import _agreement
from .common import (
    _KIND_TITLES,
    FIGURE_MAX_GROUPS,
    REPORT_FILE,
    TABLE_MAX_ROWS,
    _Analysis,
    _listed_files,
    _read_manifest,
)
from .compare import _compare
from .estimate import _estimate
from .figures import _figures
from .meta import _meta
from .page import _page
from .rank import _rank
from .verdicts import _arena, _aso, _bayes

__all__ = ["FIGURE_MAX_GROUPS", "REPORT_FILE", "TABLE_MAX_ROWS", "render_html_report",
           "write_html_report"]


def write_html_report(folder: str | Path, *, command: str | None = None,
                      subfolders: bool = True) -> Path:
    """Write ``report.html`` into the ranger-eval output ``folder`` (atomically); returns its path.

    ``command`` is the command that writes the report (e.g. ``ranger-eval report out/``); it is
    shown in the footer when it differs from the command recorded in ``manifest.json``. With
    ``subfolders``, folders one level down that hold a ``manifest.json`` are reported too.
    Raises :class:`ReportError` when the folder has no ``manifest.json`` or a file it lists is
    missing or malformed.
    """
    text = render_html_report(folder, command=command, subfolders=subfolders)
    return write_text(Path(folder) / REPORT_FILE, text)


def render_html_report(folder: str | Path, *, command: str | None = None,
                       subfolders: bool = True) -> str:
    """The text of the report :func:`write_html_report` writes (nothing is written)."""
    root = Path(folder)
    if not root.is_dir():
        raise ReportError(f"{root}: not a folder (give the --out folder of a ranger-eval run)")
    folders = [root]
    if subfolders:
        folders += sorted(p for p in root.iterdir()
                          if p.is_dir() and (p / "manifest.json").is_file())
    analyses = [_read_analysis(p, root, i) for i, p in enumerate(folders)]
    return _page(root, analyses, command)


def _read_analysis(folder: Path, root: Path, index: int) -> _Analysis:
    manifest = _read_manifest(folder)
    files = _listed_files(folder, manifest)
    rel = "." if folder == root else folder.relative_to(root).as_posix()
    kind = ""
    try:
        kind = parse_signature(str(manifest["signature"])).get("kind", "")
    except ValueError:
        pass
    if kind not in _KIND_TITLES:
        kind = next((k for k, f in (("meta", "summary.json"), ("compare", "comparison.json"),
                                    ("rank", "ranking.json"), ("aso", "aso.json"),
                                    ("bayes", "bayes.json"), ("arena", "arena.json"),
                                    ("agreement", "agreement.json"),
                                    ("subset", "estimate.json"))
                     if f in files), "")
    if not kind:
        raise ReportError(
            f"{folder / 'manifest.json'}: lists no result the report can show "
            "(summary.json, comparison.json or ranking.json)"
        )
    a = _Analysis(folder, rel, index, manifest, kind, files)
    {"meta": _meta, "compare": _compare, "rank": _rank, "aso": _aso, "bayes": _bayes,
     "arena": _arena, "agreement": _agreement, "subset": _estimate}[kind](a)
    a.figures = _figures(a)
    return a
