"""Run files: :func:`load_run` (a validated :class:`~ranger_eval.ir.readers.RunTable`),
:func:`read_run` (a DataFrame) and :func:`run_tag` (the run's name from its tag field)."""
from __future__ import annotations

import gzip
import os
import zlib
from pathlib import Path

import numpy as np
import pandas as pd

from ..errors import DuplicateEntryError, TrecFormatError
from .frames import _frame_columns
from .general import _parse_file, _plain
from .hashing import _as_codes, _duplicate_pair, hash_strings, pair_hash
from .tables import _BOM, _GZIP_MAGIC, PathLike, RunTable


def load_run(src: PathLike | pd.DataFrame | RunTable) -> RunTable:
    """Parse and validate a run (path, DataFrame with query_id/doc_id/score, or RunTable)."""
    if isinstance(src, RunTable):
        return src
    if isinstance(src, (str, os.PathLike)):
        source, qid, docid, score, line, pairs = _parse_file(src, "run")
        unit = "line"
    else:
        source, qid, docid, score = _frame_columns(src, "run")
        line, unit, pairs = None, "row", None
    qid = _as_codes(qid)
    codes = qid.indices.to_numpy(zero_copy_only=False)
    if pairs is None:
        pairs = pair_hash(hash_strings(qid.dictionary)[codes], docid)
    table = RunTable(source=source, query_id=qid, doc_id=docid, line=line, unit=unit,
                     score=np.asarray(score, dtype=np.float64), query_codes=codes,
                     query_dict=qid.dictionary, pair_hash=pairs)
    nan = np.flatnonzero(np.isnan(table.score))
    if len(nan):
        i = int(nan[0])
        raise TrecFormatError(f"{table.where(i)}: score is not a number: 'nan'")
    dup = _duplicate_pair(codes, docid, pairs)
    if dup is not None:
        a, b = dup
        raise DuplicateEntryError(
            f"{source}: duplicate document {docid[a].as_py()!r} for query {qid[a].as_py()!r} "
            f"({table.numbers([a, b])})")
    return table



def read_run(path: PathLike) -> pd.DataFrame:
    """Read a TREC run (6+ fields) or a Ranger run (4 fields) into ``[query_id, doc_id, score]``.

    Extra trailing fields are ignored, as by trec_eval; the rank field is ignored (rankings are
    rebuilt from scores). Raises :class:`TrecFormatError` naming file, line and text on bad input
    and :class:`DuplicateEntryError` when a document occurs twice for one query.

    Parameters
    ----------
    path : str or PathLike
        The run file (plain or compressed).

    Returns
    -------
    pandas.DataFrame
        ``query_id`` and ``doc_id`` as strings, ``score`` as float64, in file order.

    Raises
    ------
    TrecFormatError
        A malformed line.
    DuplicateEntryError
        A document twice for one query.

    Examples
    --------
    >>> import pathlib
    >>> import tempfile
    >>> from ranger_eval.ir.readers.runs import read_run
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     path = pathlib.Path(folder, "run.txt")
    ...     _ = path.write_text("1 Q0 b 1 2.0 bm25\\n1 Q0 a 2 1.0 bm25\\n2 Q0 c 1 3.0 bm25\\n")
    ...     run = read_run(path)
    >>> run.values.tolist()
    [['1', 'b', 2.0], ['1', 'a', 1.0], ['2', 'c', 3.0]]
    """
    t = load_run(path)
    return pd.DataFrame({"query_id": _plain(t.query_id).to_pandas(),
                         "doc_id": t.doc_id.to_pandas(), "score": t.score})



def _tag_of(line: bytes) -> str | None:
    fields = line.split()
    return fields[5].decode("utf-8", "replace") if len(fields) >= 6 else None


def run_tag(path: PathLike) -> str | None:
    """The run tag of a TREC run file (the 6th field, ``qid Q0 docid rank score tag``), read from
    its first and last lines (the last of a gzip file is not read: that would decompress all of
    it); ``None`` when the run has no tag (Ranger's 4-field format, an empty or unreadable file)
    or when the two lines disagree (a file of several runs). Names runs after the data
    (``ranger-eval trec``) without parsing the file twice."""
    p = Path(path)
    try:
        with p.open("rb") as raw:
            if raw.read(2) == _GZIP_MAGIC:
                raw.seek(0)
                with gzip.open(raw) as fh:
                    return _tag_of(fh.readline(1 << 16))
            raw.seek(0)
            first = _tag_of(raw.readline(1 << 16).lstrip(_BOM))
            size = p.stat().st_size
            raw.seek(max(0, size - (1 << 16)))
            tail = raw.read().rstrip().rsplit(b"\n", 1)[-1]
    except (OSError, EOFError, zlib.error):
        return None
    last = _tag_of(tail)
    return first if first is not None and first == last else None
