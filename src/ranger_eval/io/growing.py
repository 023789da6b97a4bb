"""Logs that are still being written: what is complete in them, as
:class:`~ranger_eval.scores.Scores` in the order the log records it (:func:`read_growing`).

An evaluation that writes as it goes leaves a file whose end may be cut in the middle of a
record. A reader that parsed the cut record would *misread* it (``q7,A,0.`` read as 0 where the
writer was about to write 0.75), so only complete records are read:

* **a growing CSV/TSV table** (``dataset, system, item, value[, metric]``, as every table
  reader): the text up to the last newline; a last line without its newline is ignored, with a
  warning naming the file, its line number and its length;
* **lm-evaluation-harness samples** (``samples_<task>_<date>.jsonl``, one JSON object per
  document): the complete lines; a last line without its newline is ignored with a warning. With
  the run's ``results_<date>.json`` beside it the file is read by the lm-eval adapter (model
  name, filters, doc-hash checks); while the harness still runs there is none, and the lines are
  read directly: item = ``doc_id``, dataset = the task of the file name, system = the folder
  the harness writes each model's files into (``--system`` overrides it), metric = every key
  with a number or boolean that is not one of lm-eval's own keys, suffixed ``,<filter>`` unless
  the filter is ``none`` (as the adapter names them);
* **Inspect AI logs**: what the Inspect reader can read. A ``.eval`` log being written is a zip
  archive that Inspect rewrites as samples complete (``_journal/start.json`` instead of
  ``header.json`` until the end); its samples are read in the order of the archive's members
  (the order Inspect wrote them), not by name. A JSON log is written whole at the end.
  A log that cannot be read *yet* (a zip caught mid-write) raises :class:`~ranger_eval.errors.
  InputError`; ``ranger-eval monitor --follow`` reads it again at the next round.

Any other input is read by :func:`~ranger_eval.io.tables.read_scores` as it is.

**Reading again** (:class:`GrowingReader`, ``ranger-eval monitor --follow``): for one growing
CSV/TSV table the reader keeps the rows already parsed and the file offset just after the last
complete line, and parses only the complete lines appended since (with the header, by the same
table reader); the rows are the same as a whole read's. A file that shrank or whose first bytes
changed (rewritten), a chunk the table reader refuses, and every other input are read whole
(:func:`read_growing`), so errors name the file's own lines.
"""
from __future__ import annotations

import json
import math
import tempfile
import warnings
import zipfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from ..errors import InputError, RangerError
from ..scores import Scores
from .adapters import concat_inputs
from .adapters.lmeval import RESERVED, SAMPLES_RE, metric_name
from .tables import read_scores

__all__ = ["GrowingReader", "complete_text", "eval_member_order", "read_growing"]

_TABLE_SUFFIXES = (".csv", ".tsv", ".txt")


def complete_text(path: Path) -> tuple[bytes, int]:
    """The bytes of ``path`` up to and including its last newline, and the number of bytes
    after it (a record being written; 0 when the file ends with a newline). A partial last line
    is reported with a warning that names the file, the line and its length."""
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise InputError(f"{path}: cannot be read ({exc})") from None
    return _complete(path, data)


def _complete(path: Path, data: bytes) -> tuple[bytes, int]:
    """:func:`complete_text` of bytes already read."""
    cut = data.rfind(b"\n") + 1
    rest = len(data) - cut
    if rest:
        line = data[:cut].count(b"\n") + 1
        warnings.warn(f"{path}: line {line} is incomplete ({rest} bytes without a newline: a "
                      f"record still being written); it is ignored until it is complete",
                      stacklevel=4)
    return data[:cut], rest


def eval_member_order(path: Path) -> list[str]:
    """The sample ids of an Inspect ``.eval`` archive in the order of its members
    (``samples/<id>_epoch_<n>.json``), i.e. the order Inspect wrote them."""
    try:
        with zipfile.ZipFile(path) as zf:
            names = zf.namelist()
    except (zipfile.BadZipFile, OSError, ValueError, EOFError) as exc:
        raise InputError(f"{path}: not a readable .eval archive yet ({exc})") from None
    out: dict[str, None] = {}
    for name in names:
        if name.startswith("samples/") and name.endswith(".json"):
            stem = name[len("samples/"):-len(".json")]
            sample_id, sep, _epoch = stem.rpartition("_epoch_")
            out[sample_id if sep else stem] = None
    return list(out)


def _in_order(scores: Scores, order: list[str]) -> Scores:
    frame = scores.raw_frame
    rank = {item: i for i, item in enumerate(order)}
    key = frame["item"].astype(str).map(rank).fillna(len(rank)).to_numpy()
    frame = frame.iloc[pd.Series(key).sort_values(kind="stable").index.to_numpy()]
    return Scores(frame.reset_index(drop=True))


def _renamed(exc: RangerError, temp: Path, path: Path) -> RangerError:
    """``exc`` with the temporary copy's path replaced by the file's own."""
    text = str(exc).replace(str(temp), str(path))
    try:
        return type(exc)(text)
    except TypeError:  # pragma: no cover - every RangerError takes a message
        return exc


def _read_complete(path: Path, data: bytes, **options: Any) -> Scores:
    with tempfile.TemporaryDirectory(prefix="ranger-growing-") as tmp:
        temp = Path(tmp, path.name)
        temp.write_bytes(data)
        try:
            scores = read_scores(temp, **options)
        except RangerError as exc:
            raise _renamed(exc, temp, path) from None
    return Scores(scores.raw_frame, source=str(path))


def _number(value: Any) -> float | None:
    if isinstance(value, bool):
        return float(value)
    if isinstance(value, (int, float)) and math.isfinite(value):
        return float(value)
    return None


def _lmeval_lines(path: Path, data: bytes, system: str | None) -> Scores:
    """lm-eval samples lines read directly (module docstring)."""
    match = SAMPLES_RE.match(path.name)
    task = match.group(1) if match else path.stem
    name = system if system is not None else path.parent.name
    rows: list[tuple[str, str, str, str, float]] = []
    for line_no, line in enumerate(data.decode("utf-8-sig").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as exc:
            raise InputError(f"{path}:{line_no}: not a JSON object ({exc.msg}); expected "
                             f"lm-evaluation-harness samples (one JSON object per line)"
                             ) from None
        if not isinstance(obj, dict) or "doc_id" not in obj:
            raise InputError(f"{path}:{line_no}: a sample without doc_id; expected "
                             f"lm-evaluation-harness samples")
        filt = str(obj.get("filter", "none"))
        keys = obj.get("metrics") or [k for k in obj if k not in RESERVED]
        for key in keys:
            value = _number(obj.get(key))
            if value is None:
                if key in obj and not isinstance(obj[key], (list, dict, str)):
                    raise InputError(f"{path}:{line_no}: metric {key!r} is {obj[key]!r}, not a "
                                     f"number")
                continue
            rows.append((task, name, str(obj["doc_id"]), metric_name(key, filt), value))
    if not rows:
        raise InputError(f"{path}: no complete sample with a numeric metric yet")
    frame = pd.DataFrame(rows, columns=["dataset", "system", "item", "metric", "value"])
    return Scores(frame, source=str(path))


def _read_one(path: Path, *, format: str | None, system: str | None,
              system_from: Sequence[str] | None, cluster: str | None) -> Scores:
    options: dict[str, Any] = {"format": format, "system": system, "system_from": system_from,
                               "cluster": cluster}
    suffix = path.suffix.lower()
    if path.is_dir() or format not in (None, "auto", "table", "lm-eval"):
        return read_scores(path, **options)
    if suffix in _TABLE_SUFFIXES:
        data, _ = complete_text(path)
        return _read_complete(path, data, **options)
    if suffix == ".jsonl":
        data, _ = complete_text(path)
        first = next((ln for ln in data.decode("utf-8-sig").splitlines() if ln.strip()), "")
        try:
            is_lmeval = isinstance(json.loads(first), dict) and "doc_id" in json.loads(first)
        except json.JSONDecodeError:
            is_lmeval = False
        if not is_lmeval:
            return _read_complete(path, data, **options)
        match = SAMPLES_RE.match(path.name)
        if match and path.with_name(f"results_{match.group(2)}.json").exists():
            return _read_complete_lmeval(path, data, options)
        return _lmeval_lines(path, data, system)
    scores = read_scores(path, **options)
    if suffix == ".eval":
        scores = _in_order(scores, eval_member_order(path))
    return scores


def _read_complete_lmeval(path: Path, data: bytes, options: dict[str, Any]) -> Scores:
    """Through the lm-eval adapter, with the run's results file copied beside the samples."""
    match = SAMPLES_RE.match(path.name)
    assert match is not None
    results = path.with_name(f"results_{match.group(2)}.json")
    with tempfile.TemporaryDirectory(prefix="ranger-growing-") as tmp:
        temp = Path(tmp, path.name)
        temp.write_bytes(data)
        Path(tmp, results.name).write_bytes(results.read_bytes())
        try:
            scores = read_scores(Path(tmp, results.name), **{**options, "format": "lm-eval"})
        except RangerError as exc:
            raise _renamed(exc, temp, path) from None
    return Scores(scores.raw_frame, source=str(path))


def read_growing(paths: str | Path | Sequence[str | Path], *, format: str | None = None,
                 system: str | None = None, system_from: str | Sequence[str] | None = None,
                 cluster: str | None = None) -> Scores:
    """Per-item scores from logs that may still be being written: only their complete records,
    in the order the logs record them (module docstring).

    Parameters
    ----------
    paths : str, Path or sequence of them
        The logs (tables, lm-eval samples JSONL, Inspect logs, folders of logs).
    format : str, optional
        The adapter to read evaluation logs with (default: recognised by content).
    system : str, optional
        The system of every input (an lm-eval samples file without its results file).
    system_from : str or sequence of str, optional
        Name the systems of evaluation logs after other fields (``task_args.<key>``, ``file``,
        …) as :func:`~ranger_eval.io.tables.read_scores` does.
    cluster : str, optional
        The field that holds each item's cluster.

    Returns
    -------
    Scores
        The complete records, in the logs' order (several logs concatenated in the order
        given).

    Raises
    ------
    InputError
        A log that cannot be read (yet), a malformed complete record (named with its line).

    Examples
    --------
    >>> import pathlib, tempfile, warnings
    >>> from ranger_eval.io.growing import read_growing
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     path = pathlib.Path(tmp, "log.csv")
    ...     _ = path.write_text("dataset,system,item,value\\nqa,A,q1,1\\nqa,B,q1,0\\nqa,A,q2,0.")
    ...     with warnings.catch_warnings(record=True) as caught:
    ...         warnings.simplefilter("always")
    ...         scores = read_growing(path)
    >>> len(scores.raw_frame), "line 4 is incomplete" in str(caught[0].message)
    (2, True)
    """
    items = [Path(paths)] if isinstance(paths, (str, Path)) else [Path(p) for p in paths]
    if not items:
        raise InputError("no log given")
    sources = ([system_from] if isinstance(system_from, str) else
               list(system_from) if system_from is not None else None)
    read = [_read_one(p, format=format, system=system, system_from=sources, cluster=cluster)
            for p in items]
    if len(read) == 1:
        return read[0]
    return concat_inputs([s.raw_frame for s in read], items,
                         source=f"{len(items)} logs ({items[0]}, ...)")


class GrowingReader:
    """Reads ``paths`` again and again as :func:`read_growing` does, parsing only what a single
    growing CSV/TSV table appended since the previous read (module docstring, "Reading again").

    Parameters
    ----------
    paths : str, Path or sequence of them
        The logs.
    format, system, system_from, cluster : optional
        As :func:`read_growing`.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> from ranger_eval.io.growing import GrowingReader
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     path = pathlib.Path(tmp, "log.csv")
    ...     _ = path.write_text("dataset,system,item,value\\nqa,A,q1,1\\nqa,B,q1,0\\n")
    ...     reader = GrowingReader(path)
    ...     first = len(reader.read().raw_frame)
    ...     with path.open("a") as fh:
    ...         _ = fh.write("qa,A,q2,1\\nqa,B,q2,1\\n")
    ...     second = len(reader.read().raw_frame)
    >>> first, second, reader.incremental_reads
    (2, 4, 1)
    """

    def __init__(self, paths: str | Path | Sequence[str | Path], *, format: str | None = None,
                 system: str | None = None, system_from: str | Sequence[str] | None = None,
                 cluster: str | None = None) -> None:
        self.paths = paths
        self.options: dict[str, Any] = {"format": format, "system": system,
                                        "system_from": system_from, "cluster": cluster}
        one = ([Path(paths)] if isinstance(paths, (str, Path))
               else [Path(p) for p in paths])
        self._table = (one[0] if len(one) == 1 and one[0].suffix.lower() in _TABLE_SUFFIXES
                       and format in (None, "auto", "table") and not one[0].is_dir() else None)
        self._offset = 0
        self._head = b""
        self._header = b""
        self._frames: list[pd.DataFrame] = []
        #: Reads that parsed only the appended lines.
        self.incremental_reads = 0

    def _whole(self) -> Scores:
        path = self._table
        if path is None:
            return read_growing(self.paths, **self.options)
        # one read of the bytes: what is parsed and the offset kept are the same bytes
        try:
            data = path.read_bytes()
        except OSError as exc:
            raise InputError(f"{path}: cannot be read ({exc})") from None
        complete, _ = _complete(path, data)
        scores = _read_complete(path, complete, **self.options)
        self._offset = len(complete)
        self._head = data[:min(self._offset, 4096)]
        self._header = data[:data.find(b"\n") + 1]
        self._frames = [scores.raw_frame]
        return scores

    def read(self) -> Scores:
        """The complete records so far (as :func:`read_growing`)."""
        path = self._table
        if path is None or not self._frames:
            return self._whole()
        try:
            with path.open("rb") as fh:
                head = fh.read(len(self._head))
                fh.seek(self._offset)
                tail = fh.read()
        except OSError as exc:
            raise InputError(f"{path}: cannot be read ({exc})") from None
        if head != self._head:
            return self._whole()  # rewritten
        cut = tail.rfind(b"\n") + 1
        if tail[cut:]:
            warnings.warn(f"{path}: its last line is incomplete ({len(tail) - cut} bytes without a "
                          f"newline: a record still being written); it is ignored until it is "
                          f"complete", stacklevel=2)
        if cut == 0:
            return Scores(self._frames[0] if len(self._frames) == 1
                          else pd.concat(self._frames, ignore_index=True), source=str(path))
        try:
            new = _read_complete(path, self._header + tail[:cut], **self.options).raw_frame
        except RangerError:
            return self._whole()  # the whole read names the file's own line
        old_cols = list(self._frames[0].columns)
        if list(new.columns) != old_cols:
            return self._whole()
        self._frames.append(new)
        self._offset += cut
        frame = pd.concat(self._frames, ignore_index=True)
        frame.attrs.update(self._frames[0].attrs)  # the reader's notes (cluster name, bounds)
        self._frames = [frame]
        self.incremental_reads += 1
        try:
            return Scores(frame, source=str(path))
        except RangerError:
            return self._whole()
