"""Recognise an evaluation output by its content (never by its name alone)."""
from __future__ import annotations

import re
import zipfile
from pathlib import Path
from typing import Any

from ...errors import InputError
from ..files import check_input_file, open_text
from . import lmeval, pyterrier, tsml
from ._json import JsonStream

__all__ = ["EXTENSIONS", "detect", "folder_inputs", "input_format"]

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
                    if isinstance(ev, dict) and "task" in ev and "model" in ev:
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
    """(inputs, skipped) of a folder of logs, in name order: the files and sub-folders an
    adapter reads (:func:`input_format`), the files ending in ``table_suffixes`` (tidy
    tables, also gzip-compressed), and every other entry with the reason it is skipped.

    The folder itself must not be one tool's output (a HELM run folder, an lm-eval output
    folder: read those whole). Sub-folders that are not such outputs are not searched."""
    inputs: list[Path] = []
    skipped: list[tuple[Path, str]] = []
    for entry in sorted(Path(folder).iterdir()):
        if entry.name.startswith("."):
            skipped.append((entry, "hidden"))
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
        elif entry.is_dir():
            skipped.append((entry, "a folder that is no HELM run or lm-eval output (folders "
                                   "are not searched)"))
        else:
            skipped.append((entry, "not an evaluation log an adapter reads, nor a table"))
    return inputs, skipped
