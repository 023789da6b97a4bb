"""Qrels files: :func:`load_qrels` (a validated :class:`~ranger_eval.ir.readers.QrelsTable`) and
:func:`read_qrels` (a DataFrame)."""
from __future__ import annotations

import os

import numpy as np
import pandas as pd
import pyarrow.compute as pc

from ..errors import DuplicateEntryError, TrecFormatError
from .frames import _frame_columns
from .general import _parse_file
from .tables import PathLike, QrelsTable


def load_qrels(src: PathLike | pd.DataFrame | QrelsTable) -> QrelsTable:
    """Parse and validate qrels (path, DataFrame with query_id/doc_id/relevance, or QrelsTable)."""
    if isinstance(src, QrelsTable):
        return src
    if isinstance(src, (str, os.PathLike)):
        source, qid, docid, rel, line, _ = _parse_file(src, "qrels")
        unit = "line"
    else:
        source, qid, docid, rel = _frame_columns(src, "qrels")
        line, unit = None, "row"
    table = QrelsTable(source=source, query_id=qid, doc_id=docid, line=line, unit=unit,
                       relevance=np.asarray(rel, dtype=np.int64))
    huge = np.flatnonzero(np.abs(table.relevance) > 2**31 - 1)
    if len(huge):
        i = int(huge[0])
        raise TrecFormatError(f"{table.where(i)}: relevance label out of range: "
                              f"{int(table.relevance[i])}")
    qenc = pc.dictionary_encode(qid)
    denc = pc.dictionary_encode(docid)
    key = (qenc.indices.to_numpy(zero_copy_only=False).astype(np.int64) * len(denc.dictionary)
           + denc.indices.to_numpy(zero_copy_only=False))
    order = np.argsort(key, kind="stable")
    same = np.flatnonzero(key[order][1:] == key[order][:-1])
    if len(same):
        pairs = [(int(order[i]), int(order[i + 1])) for i in same]
        a, b = min(pairs, key=lambda p: p[1])
        raise DuplicateEntryError(
            f"{source}: duplicate qrels entry for query {qid[a].as_py()!r}, document "
            f"{docid[a].as_py()!r} ({table.numbers([a, b])})")
    return table



def read_qrels(path: PathLike) -> pd.DataFrame:
    """Read TREC qrels (``qid iter docid relevance``) into ``[query_id, doc_id, relevance]``.

    Parameters
    ----------
    path : str or PathLike
        The qrels file (plain or compressed).

    Returns
    -------
    pandas.DataFrame
        ``query_id`` and ``doc_id`` as strings, ``relevance`` as int64, in file order.

    Raises
    ------
    TrecFormatError
        A malformed line, named by file, line and text.

    Examples
    --------
    >>> import pathlib
    >>> import tempfile
    >>> from ranger_eval.ir.readers.qrels import read_qrels
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     path = pathlib.Path(folder, "qrels.txt")
    ...     _ = path.write_text("1 0 a 1\\n1 0 b 0\\n2 0 c 2\\n")
    ...     qrels = read_qrels(path)
    >>> qrels.values.tolist()
    [['1', 'a', 1], ['1', 'b', 0], ['2', 'c', 2]]
    """
    t = load_qrels(path)
    return pd.DataFrame({"query_id": t.query_id.to_pandas(), "doc_id": t.doc_id.to_pandas(),
                         "relevance": t.relevance})
