"""Checks of a command's output folder: plain CSV that ``pandas.read_csv``
and ``csv.DictReader`` read unchanged with the expected header, and a ``manifest.json`` that
lists every file of the folder with the signature of the result it holds."""
from __future__ import annotations

import csv
import json
import shutil
from collections.abc import Mapping, Sequence
from pathlib import Path

import pandas as pd


def check_csv(path: Path, columns: Sequence[str], sep: str = ",") -> pd.DataFrame:
    """``path`` reads with both readers, unchanged, with ``columns`` as its header (line 1)."""
    frame = pd.read_csv(path, sep=sep, keep_default_na=False, na_values=[""])
    assert list(frame.columns) == list(columns), (path.name, list(frame.columns))
    with path.open(newline="", encoding="utf-8") as fh:
        reader = csv.DictReader(fh, delimiter=sep)
        rows = list(reader)
    assert list(reader.fieldnames or []) == list(columns) and len(rows) == len(frame), path.name
    assert not path.read_text(encoding="utf-8").startswith("#"), path.name
    return frame


def check_folder(folder: Path, csvs: Mapping[str, Sequence[str]],
                 signatures: Mapping[str, str] = {}) -> dict[str, str]:  # noqa: B006 (read only)
    """Every CSV of ``folder`` is one of ``csvs`` (name → expected header) and reads plain; the
    manifest lists every file there (nothing else: no lock or temporary file is left) with a
    signature, ``signatures[name]`` for the files named there. Returns name → signature."""
    on_disk = {p.name for p in folder.iterdir() if p.is_file()}
    assert {p for p in on_disk if p.endswith(".csv")} == set(csvs), folder
    for name, columns in csvs.items():
        check_csv(folder / name, columns)
    manifest = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
    listed = {f["file"]: f["signature"] for f in manifest["files"]}
    assert set(listed) | {"manifest.json"} == on_disk - {"report.html"}, folder
    assert all(str(s).startswith("ranger-eval:") for s in listed.values()), listed
    for name, signature in signatures.items():
        assert listed[name] == signature, (name, listed[name], signature)
    return listed


def demo_copy(demo_run: Path, dst: Path) -> Path:
    """A private copy of the shared ``demo_run`` folder (tests/conftest.py) at ``dst``, free to
    be written to."""
    shutil.copytree(demo_run, dst)
    return dst
