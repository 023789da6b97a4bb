"""Columnar readers for TREC runs and qrels.

Run files follow trec_eval's ``trec_results`` format (get_trec_results.c): ``qid Q0 docid rank score tag``,
fields after the tag ignored; or Ranger's 4-field format ``qid docid rank score``. Qrels follow
trec_eval's ``qrels`` format (get_qrels.c): ``qid iter docid relevance`` with an integer relevance,
negative values allowed (trec_eval: "in the pool but unjudged"). As in trec_eval, fields are separated
by any run of ASCII whitespace, blank lines are skipped and a line whose first non-blank character is
``#`` is a comment (a ``#`` inside a docid is data). Files may be gzip-compressed, start with a UTF-8 BOM
and use CRLF line ends (read exactly as LF). A carriage return not followed by a line feed (old Mac OS
line ends, or a stray CR inside a line) is an error naming the file and the 1-based line, as are NUL
bytes; UTF-16 and UTF-32 files (byte-order mark FF FE, FE FF, FF FE 00 00, 00 00 FE FF) are an error
naming the file and the encoding. The fast path never sees them: a segment with a lone CR, a NUL or
invalid UTF-8 is not regular, and the general path reports it.

Parsing is columnar, with two paths that give identical results:

* **Fast path** (:mod:`~ranger_eval.ir.readers.fast`): the text is taken in segments of about 32 MiB cut at
  line ends (plain files memory-mapped one segment at a time, gzip files decompressed as a
  stream), and each segment goes through pyarrow's multi-threaded CSV reader with a one-character
  delimiter, reading only the query id, docid and score/label columns. A segment is accepted only
  if it is *regular*, which is proven, not assumed: its first line splits the same way on the
  delimiter (tab if the first line has one, else space) as on whitespace; every line has as many
  fields as the file's first line (the CSV reader fails otherwise); no two separators touch (a
  doubled, leading or trailing delimiter or a blank line would make an empty CSV field where
  trec_eval sees one field less); the bytes ≤ 0x20 are exactly the delimiters and line ends the CSV
  reader counted (no tab, vertical tab, form feed, lone carriage return or control byte elsewhere);
  no line starts with ``#``; the text is valid UTF-8. The checks are vectorised (numpy over 256 KiB
  blocks) and run in worker threads beside pyarrow, as do the query-id encoding and the hashing of
  each segment. Nothing but the current segments is ever held as raw text.
* **General path** (:mod:`~ranger_eval.ir.readers.general`): as soon as one segment is not regular, the whole file is
  read, split on runs of whitespace with pyarrow's kernel, and blank and comment lines are skipped.
  This path produces every error message, naming the file, the line number and the text.

Duplicate (query, document) pairs are errors naming both lines; they are found by sorting 64-bit
hashes of the pairs (:func:`pair_hash`), candidates being compared exactly.

Modules, in the order a file goes through them: :mod:`~ranger_eval.ir.readers.runs` and
:mod:`~ranger_eval.ir.readers.qrels` (the loaders of each format), :mod:`~.tables` (the formats'
layouts, :class:`RunTable`, :class:`QrelsTable`), :mod:`~.text` (path, compression, encoding, line
ends and lengths, segments), :mod:`~.fast` and :mod:`~.general` (the two parsing paths),
:mod:`~.frames` (DataFrames instead of files), :mod:`~.hashing` (id and pair hashes, query
encoding, duplicates), :mod:`~.threads` (:func:`one_thread`).
"""
from __future__ import annotations

from .hashing import hash_strings, pair_hash, take_rows
from .qrels import load_qrels, read_qrels
from .runs import load_run, read_run, run_tag
from .tables import PathLike, QrelsTable, RunTable
from .text import MAX_GZIP_BASE, MAX_GZIP_RATIO, MAX_LINE_BYTES
from .threads import helper_pool, one_thread, single_threaded

__all__ = [
    "MAX_GZIP_BASE",
    "MAX_GZIP_RATIO",
    "MAX_LINE_BYTES",
    "PathLike",
    "QrelsTable",
    "RunTable",
    "hash_strings",
    "helper_pool",
    "load_qrels",
    "load_run",
    "one_thread",
    "pair_hash",
    "read_qrels",
    "read_run",
    "run_tag",
    "single_threaded",
    "take_rows",
]
