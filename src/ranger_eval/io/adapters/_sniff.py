"""Recognise an evaluation output by its content (never by its name alone)."""
from __future__ import annotations

import re
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ...errors import InputError
from ..files import check_input_file, open_text
from . import lmeval, pyterrier, tsml
from ._json import JsonStream
from .lmeval import RESULTS_RE, SAMPLES_RE, _pairs

__all__ = ["EXTENSIONS", "TreeInputs", "detect", "folder_inputs", "input_format",
           "tree_inputs"]

HEAD_BYTES = 1 << 16
#: Stop looking into a JSON file after this many characters without a verdict.
JSON_BUDGET = 1 << 26
_MEASURE = re.compile(r"^[A-Za-z0-9][\w.@()=,:+-]*$")
#: File extensions only one adapter writes: such a file is read by it even when its content
#: is not recognised (a damaged ``.eval`` archive gets the Inspect reader's precise error).
EXTENSIONS: dict[str, str] = {".eval": "inspect"}


def _json_kind(path: Path) -> str | None:
    try:
        with JsonStream(path, expected="JSON") as js:
            first = js.peek()
            if first == "[":
                for _ in js.array():
                    el = js.value()
                    if isinstance(el, dict) and "instance_id" in el and "stats" in el:
                        return "helm"
                    if isinstance(el, dict) and "doc_id" in el:
                        return "lm-eval"
                    return None
                return None
            if first != "{":
                return None
            seen: list[str] = []
            for key in js.object():
                if key == "doc_id" and not seen:
                    return "lm-eval"
                if key == "eval":
                    ev = js.value()
                    # Inspect's eval spec: task and model (task_id when a log lost its model)
                    if isinstance(ev, dict) and "task" in ev and ("model" in ev
                                                                  or "task_id" in ev):
                        return "inspect"
                    return None
                if key == "results" and not seen:
                    value: Any = js.value()
                    if isinstance(value, dict) and all(isinstance(v, dict) for v in value.values()):
                        seen.append(key)
                        continue
                    return None
                if seen == ["results"] and key in ("configs", "config", "versions",
                                                   "group_subtasks", "groups"):
                    return "lm-eval"
                if not seen and key not in ("version", "status"):
                    docs = js.value()
                    if isinstance(docs, dict) and docs and all(
                            isinstance(v, (int, float)) and not isinstance(v, bool)
                            for v in docs.values()):
                        return "beir"
                    return None
                seen.append(key)
                js.skip()
                if js.offset > JSON_BUDGET:
                    return None
            return None
    except InputError:
        return None


def _text_kind(text: str, complete: bool) -> str | None:
    lines = text.split("\n")
    if not complete and lines:
        lines = lines[:-1]  # the last line may be cut
    lines = [ln for ln in lines if ln.strip()]
    if not lines:
        return None
    if pyterrier.header_columns(lines[0]):
        return "pyterrier"
    if len(lines) >= 4 and len(lines[0].split(",")) >= 5 and tsml.task_of(lines[2]):
        return "tsml"
    sample = lines[:50]
    if all(len(ln.split()) == 3 for ln in sample):
        ok = 0
        for ln in sample:
            measure, _, value = ln.split()
            if not _MEASURE.match(measure):
                return None
            try:
                float(value)
                ok += 1
            except ValueError:
                if measure != "runid" and not measure.startswith("relstring"):
                    return None
        return "trec-eval-q" if ok else None
    return None


def detect(path: str | Path) -> str | None:
    """The adapter format of ``path`` (a file or a folder), or None when none fits."""
    p = Path(path)
    if p.is_dir():
        if (p / "per_instance_stats.json").is_file():
            return "helm"
        if (p / "results.json").is_file() or any(
                lmeval.RESULTS_RE.match(f.name) for f in p.rglob("results_*.json")):
            return "lm-eval"
        return None
    check_input_file(p, what="evaluation output")
    with p.open("rb") as fh:
        magic = fh.read(4)
    if magic.startswith(b"PK\x03\x04"):
        try:
            with zipfile.ZipFile(p) as zf:
                names = set(zf.namelist())
        except (zipfile.BadZipFile, OSError):
            return None
        return "inspect" if {"header.json", "_journal/start.json"} & names else None
    if magic == b"PAR1":  # Parquet: a table, not a tool's output
        return None
    # decoded under the shared decisions (gzip, UTF-8, line ends): a file those reject is an
    # error here already, whatever its format
    with open_text(p, what="evaluation output", json=True) as fh:
        head = fh.read(HEAD_BYTES + 1)
    complete = len(head) <= HEAD_BYTES
    if head.lstrip()[:1] in ("{", "["):
        return _json_kind(p)
    return _text_kind(head, complete)


def input_format(path: str | Path) -> str | None:
    """The adapter format of ``path``: recognised from its content (:func:`detect`), else from
    an extension only one adapter writes (:data:`EXTENSIONS`); None for anything else."""
    fmt = detect(path)
    if fmt is None and Path(path).is_file():
        fmt = EXTENSIONS.get(Path(path).suffix.lower())
    return fmt


def folder_inputs(folder: str | Path, table_suffixes: tuple[str, ...] = ()
                  ) -> tuple[list[Path], list[tuple[Path, str]]]:
    """(inputs, skipped) of a folder tree of logs: :func:`tree_inputs` without the parts."""
    found = tree_inputs(folder, table_suffixes)
    return found.inputs, found.skipped


@dataclass(frozen=True)
class TreeInputs:
    """What a folder tree of logs holds (:func:`tree_inputs`).

    ``inputs``: the files (and HELM run folders) to read, one by one, in path order;
    ``parts``: the files read with an input (an lm-eval results file's
    ``samples_<task>_<date>.jsonl``), by input; ``skipped``: every other entry with the reason.
    """

    inputs: list[Path]
    parts: dict[Path, tuple[Path, ...]]
    skipped: list[tuple[Path, str]]


def tree_inputs(folder: str | Path, table_suffixes: tuple[str, ...] = ()) -> TreeInputs:
    """The inputs of a folder tree of logs, searched recursively (Inspect's ``logs/<model>/``,
    lm-eval's ``<output_path>/<model>/``): every file an adapter reads
    (:func:`input_format`), every HELM run folder (read whole), every file ending in
    ``table_suffixes`` (tidy tables, also gzip-compressed); an lm-eval results file takes the
    ``samples_*`` files of its run as its parts. Every other entry is skipped with its reason:
    hidden entries (not searched), files no adapter reads, files that cannot be opened."""
    inputs: list[Path] = []
    skipped: list[tuple[Path, str]] = []
    lmeval_files: list[Path] = []

    def visit(where: Path) -> None:
        try:
            entries = sorted(where.iterdir())
        except OSError as exc:
            skipped.append((where, f"cannot be listed ({exc.strerror or exc})"))
            return
        for entry in entries:
            if entry.name.startswith("."):
                skipped.append((entry, "hidden"))
                continue
            if entry.is_dir():
                if (entry / "per_instance_stats.json").is_file():
                    inputs.append(entry)  # a HELM run folder: read whole
                else:
                    visit(entry)
                continue
            try:
                fmt = input_format(entry)
            except InputError as exc:
                skipped.append((entry, str(exc).removeprefix(f"{entry}: ")))
                continue
            suffixes = [s.lower() for s in entry.suffixes]
            if suffixes and suffixes[-1] == ".gz":
                suffixes.pop()
            if fmt is not None or (entry.is_file() and suffixes
                                   and suffixes[-1] in table_suffixes):
                inputs.append(entry)
                if fmt == "lm-eval":
                    lmeval_files.append(entry)
            else:
                skipped.append((entry, "not an evaluation log an adapter reads, nor a table"))

    visit(Path(folder))
    # an lm-eval run is its results file with its samples files: the samples are its parts
    parts: dict[Path, tuple[Path, ...]] = {}
    for rp in lmeval_files:
        if SAMPLES_RE.match(rp.name) or not (RESULTS_RE.match(rp.name)
                                             or rp.suffix.lower() == ".json"):
            continue
        try:
            pairs = _pairs(rp)
        except InputError:
            continue  # not a results file with samples: its reader names why when it is read
        parts[rp] = tuple(sp for _, _, samples in pairs for sp, _ in samples if sp != rp)
    taken = {sp for ps in parts.values() for sp in ps}
    inputs = [p for p in inputs if p not in taken]
    return TreeInputs(inputs, parts, skipped)
