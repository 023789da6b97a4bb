"""The formats read (TREC runs, Ranger's 4-field runs, qrels: their layouts of fields) and the
validated tables they become: :class:`RunTable`, :class:`QrelsTable`."""
from __future__ import annotations

import os
from dataclasses import dataclass

import numpy as np
import pyarrow as pa

_BOM = b"\xef\xbb\xbf"
_GZIP_MAGIC = b"\x1f\x8b"
_TREC_RUN = "trec"  # qid Q0 docid rank score tag [...]
_RANGER_RUN = "ranger"  # qid docid rank score
_QRELS = "qrels"  # qid iter docid relevance

# layout -> (min fields, exact?, {column: field index}, description)
_LAYOUTS: dict[str, tuple[int, bool, dict[str, int], str]] = {
    _TREC_RUN: (6, False, {"qid": 0, "docid": 2, "value": 4},
                "at least 6 fields (qid Q0 docid rank score tag)"),
    _RANGER_RUN: (4, True, {"qid": 0, "docid": 1, "value": 3}, "4 fields (qid docid rank score)"),
    _QRELS: (4, True, {"qid": 0, "docid": 2, "value": 3}, "4 fields (qid iter docid relevance)"),
}
_RUN_EITHER = ("6 or more fields (qid Q0 docid rank score tag) "
               "or 4 fields (qid docid rank score)")

PathLike = str | os.PathLike


@dataclass(frozen=True, eq=False)
class _Table:
    """Parsed columns of a run or qrels source; ``line[i]`` is the 1-based line of row ``i``."""

    source: str
    query_id: pa.Array
    doc_id: pa.Array
    line: np.ndarray | None
    unit: str  # "line" (files) or "row" (DataFrames, 0-based positions)

    def __len__(self) -> int:
        return len(self.query_id)

    def number(self, i: int) -> int:
        """Line number (files, 1-based) or row position (DataFrames, 0-based) of row ``i``."""
        if self.unit == "row":
            return int(i)
        return int(self.line[i]) if self.line is not None else int(i) + 1

    def where(self, i: int) -> str:
        if self.unit == "row":
            return f"{self.source} row {self.number(i)}"
        return f"{self.source}:{self.number(i)}"

    def numbers(self, rows: list[int]) -> str:
        word = "rows" if self.unit == "row" else "lines"
        return f"{word} {', '.join(str(self.number(r)) for r in rows)}"


@dataclass(frozen=True, eq=False)
class RunTable(_Table):
    """A validated run: docids as Arrow strings, scores as float64, queries encoded once.

    ``query_id`` is a DictionaryArray: ``query_codes[i]`` (its int32 indices) indexes ``query_dict``
    (the distinct query ids in order of first appearance). ``pair_hash[i]`` is
    :func:`pair_hash` of row i's (query id, docid), computed once for the duplicate check and reused
    by the evaluation to skip rows whose pair cannot be in the qrels.
    """

    score: np.ndarray
    query_codes: np.ndarray
    query_dict: pa.Array
    pair_hash: np.ndarray


@dataclass(frozen=True, eq=False)
class QrelsTable(_Table):
    """Validated qrels: ids as Arrow strings, integer relevance labels (negative allowed)."""

    relevance: np.ndarray
