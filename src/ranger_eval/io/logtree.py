"""Folder trees of evaluation logs, read as the tools write them: what was read, what was
skipped and why.

Inspect users keep one folder per model (``logs/<model>/<time>_<task>_<id>.eval`` or
``.json``); lm-evaluation-harness writes ``<output_path>/<model_name_sanitized>/results_<date>.json``
with ``samples_<task>_<date>.jsonl`` beside it. :func:`read_log_tree` reads such a tree
recursively (:func:`ranger_eval.io.adapters.tree_inputs`) under these rules:

* **systems** come from each log's own metadata (Inspect ``eval.model``, lm-eval
  ``model_name``/``model_args``), never from folder names; only a log that names no model gets
  its folder's name, with a warning. ``system_from`` and ``system`` apply to every log.
* **skipped, never dropped silently**: hidden entries, files no adapter reads, and logs that
  cannot be read (a cut ``.eval`` archive, broken JSON, a results file without samples) are
  skipped with the reader's reason while the good logs are used; each skip is named in one
  warning that counts them and in :attr:`LogTree.skipped` (``manifest.json``'s ``inputs`` from
  the command line). A log that reads on its own but not with the caller's options
  (``cluster``, ``system_from``) is an error, not a skip: the options are wrong, not the log.
* **retried runs**: an unfinished Inspect run (log status ``error`` or ``cancelled``) whose
  model × task a finished log of the tree holds is skipped with that reason (Inspect's
  ``eval-retry`` writes the finished log next to the failed one). Any other two logs holding
  one key (model × task × metric × item, e.g. a run repeated by hand) are an error naming
  both files and the ``system_from`` that tells them apart.
* an empty tree, or one where no log can be read, is an error naming the folder.
"""
from __future__ import annotations

import warnings
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import InputError
from ..scores import Scores
from . import adapters

__all__ = ["LogTree", "SkippedInput", "TakenInput", "read_log_tree", "recording_log_trees"]

#: Skipped entries named in the warning (all of them are in :attr:`LogTree.skipped`).
SHOWN_SKIPS = 10


@dataclass(frozen=True)
class TakenInput:
    """One input read from a tree: its path, format (an adapter's name or ``table``), the
    systems and datasets it gave, its number of score rows, and the files read with it (an
    lm-eval results file's samples files)."""

    path: Path
    format: str
    systems: tuple[str, ...]
    datasets: tuple[str, ...]
    rows: int
    parts: tuple[Path, ...] = ()


@dataclass(frozen=True)
class SkippedInput:
    """An entry of a tree that was not read, and why."""

    path: Path
    reason: str


@dataclass(frozen=True)
class LogTree:
    """A folder tree of logs as read by :func:`read_log_tree`: the scores of every input
    taken, and every entry skipped with its reason."""

    folder: Path
    scores: Scores
    taken: tuple[TakenInput, ...]
    skipped: tuple[SkippedInput, ...]

    def relative(self, path: Path) -> str:
        """``path`` relative to the tree's folder (as the listings show it)."""
        try:
            return path.relative_to(self.folder).as_posix()
        except ValueError:
            return str(path)

    def to_dict(self) -> dict[str, Any]:
        """JSON-friendly: the folder, every input read (file relative to the folder, format,
        systems, datasets, rows, parts) and every entry skipped with its reason."""
        return {
            "folder": str(self.folder),
            "n_read": len(self.taken),
            "n_skipped": len(self.skipped),
            "read": [{"file": self.relative(t.path), "format": t.format,
                      "systems": list(t.systems), "datasets": list(t.datasets),
                      "rows": t.rows, "parts": [self.relative(p) for p in t.parts]}
                     for t in self.taken],
            "skipped": [{"file": self.relative(s.path), "reason": s.reason}
                        for s in self.skipped],
        }

    def skipped_text(self) -> str:
        """``a/notes.txt (reason); …`` for the first :data:`SHOWN_SKIPS` skipped entries."""
        return _skips_text(self.folder, self.skipped)

    def warning_text(self) -> str:
        """The warning of a tree with skipped entries: what was read, what was skipped."""
        systems = list(dict.fromkeys(s for t in self.taken for s in t.systems))
        shown = ", ".join(systems[:5]) + (", ..." if len(systems) > 5 else "")
        return (f"{self.folder}: read {len(self.taken)} input(s) (system(s) {shown}); "
                f"skipped {len(self.skipped)}: {self.skipped_text()}")


def _skips_text(root: Path, skipped: Sequence[SkippedInput]) -> str:
    def rel(path: Path) -> str:
        try:
            return path.relative_to(root).as_posix()
        except ValueError:
            return str(path)

    shown = "; ".join(f"{rel(s.path)} ({s.reason})" for s in skipped[:SHOWN_SKIPS])
    more = len(skipped) - SHOWN_SKIPS
    return shown + (f"; ... ({more} more)" if more > 0 else "")


_RECORDED: ContextVar[list[LogTree] | None] = ContextVar("ranger_eval_log_trees", default=None)


@contextmanager
def recording_log_trees() -> Iterator[list[LogTree]]:
    """Collect every :class:`LogTree` that :func:`ranger_eval.io.read_scores` reads inside the
    block (the command line lists them in ``manifest.json``'s ``inputs``)."""
    sink: list[LogTree] = []
    token = _RECORDED.set(sink)
    try:
        yield sink
    finally:
        _RECORDED.reset(token)


def record(tree: LogTree) -> None:
    """Hand ``tree`` to the innermost :func:`recording_log_trees` block, if any."""
    sink = _RECORDED.get()
    if sink is not None:
        sink.append(tree)


def _reason(exc: Exception, path: Path) -> str:
    """The reader's message without the path it starts with (``path:12: …`` → ``line 12:
    …``); the listing names the file."""
    text = " ".join(str(exc).split())
    if text.startswith(f"{path}: "):
        return text[len(f"{path}: "):]
    if text.startswith(f"{path}:"):
        line, sep, rest = text[len(f"{path}:"):].partition(": ")
        if sep and line.isdigit():
            return f"line {line}: {rest}"
    return text


def read_log_tree(folder: str | Path, *, format: str | None = None, system: str | None = None,
                  system_from: Sequence[str] = (), cluster: str | None = None,
                  table_suffixes: tuple[str, ...] = (),
                  read_table: Callable[..., Scores] | None = None) -> LogTree:
    """Every log (and score table) of the folder tree ``folder``, read one by one under the
    rules of this module; see :class:`LogTree`. ``format`` (an adapter's name) reads every
    input with that adapter; ``system``, ``system_from`` and ``cluster`` are those of
    :func:`ranger_eval.io.read_scores`; ``read_table`` reads a score table among the logs
    (:func:`ranger_eval.io.read_scores`, passed in by it: this module sits below the table
    reader, which calls it for folders)."""

    def read_scores(path: Path, **options: Any) -> Scores:
        if read_table is None:
            raise InputError(f"{path}: a score table in a folder of logs needs read_table= "
                             "(ranger_eval.io.read_scores reads it)")
        return read_table(path, **options)

    root = Path(folder)
    found = adapters.tree_inputs(root, table_suffixes)
    skipped = [SkippedInput(p, why) for p, why in found.skipped]
    if not found.inputs:
        raise InputError(f"{root}: no evaluation log or score table in this folder"
                         + (f"; skipped {len(skipped)}: "
                            f"{_skips_text(root, skipped)}"
                            if skipped else " (it is empty)"))
    sources = tuple(system_from)
    given = system is not None or any(s != "model" for s in sources) or cluster is not None

    def read(path: Path, fmt: str | None, bare: bool) -> tuple[Any, Scores]:
        if fmt is None or fmt == "table":
            if bare:
                return None, read_scores(path, format=fmt)
            return None, read_scores(path, format=fmt, system=system, system_from=sources,
                                     cluster=cluster)
        opts: dict[str, Any] = {}
        if fmt in ("inspect", "lm-eval"):
            opts["default_system"] = path.parent.name
        if not bare:
            opts.update(system=system, system_from=sources,
                        **({} if cluster is None else {"cluster": cluster}))
        res = adapters.load_adapter(path, fmt, **opts)
        return res, adapters.adapter_scores(res, path)

    read_ok: list[tuple[Path, str, Any, Scores, list[warnings.WarningMessage]]] = []
    for path in found.inputs:
        fmt = format if format not in (None, "auto") else adapters.input_format(path)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                res, scores = read(path, fmt, bare=False)
            except InputError as exc:
                if not given:
                    skipped.append(SkippedInput(path, _reason(exc, path)))
                    continue
                try:  # the log itself, or the caller's options?
                    read(path, fmt, bare=True)
                except InputError as bare_exc:
                    skipped.append(SkippedInput(path, _reason(bare_exc, path)))
                    continue
                raise
        read_ok.append((path, fmt or "table", res, scores, list(caught)))

    # retried runs: an unfinished log whose model × task a finished log holds is left out
    pairs = [set(zip(s.frame["dataset"].astype(str), s.frame["system"].astype(str),
                     strict=True)) for _, _, _, s, _ in read_ok]
    finished = [getattr(res, "finished", None) for _, _, res, _, _ in read_ok]
    superseded: set[int] = set()
    for i, done in enumerate(finished):
        if done is not False:
            continue
        by = next((j for j, d in enumerate(finished) if d is True and pairs[i] <= pairs[j]),
                  None)
        if by is not None:
            superseded.add(i)
            what = ", ".join(f"{sy} on {ds}" for ds, sy in sorted(pairs[i]))
            skipped.append(SkippedInput(
                read_ok[i][0],
                f"an unfinished run (its log status is not 'success') of {what}; "
                f"{read_ok[by][0].relative_to(root).as_posix()} holds the finished run "
                f"(a retried run: the finished log is read)"))
    used = [r for i, r in enumerate(read_ok) if i not in superseded]
    if not used:
        raise InputError(f"{root}: none of the {len(found.inputs)} log(s) or table(s) in this "
                         f"folder could be read; skipped {len(skipped)}: "
                         f"{_skips_text(root, sorted(skipped, key=lambda s: str(s.path)))}")
    for *_, caught in used:  # the readers' own warnings, of the inputs used only
        for w in caught:
            warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
    paths = [p for p, *_ in used]
    scores = adapters.concat_inputs([s.raw_frame for _, _, _, s, _ in used], paths,
                                    source=str(root))
    adapters.check_doc_hashes(scores.frame, str(root))
    taken = tuple(
        TakenInput(p, fmt, tuple(dict.fromkeys(s.frame["system"].astype(str))),
                   tuple(dict.fromkeys(s.frame["dataset"].astype(str))), len(s.frame),
                   found.parts.get(p, ()))
        for p, fmt, _, s, _ in used)
    skipped.sort(key=lambda s: str(s.path))
    return LogTree(root, scores, taken, tuple(skipped))
