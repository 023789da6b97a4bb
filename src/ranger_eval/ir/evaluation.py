"""Vectorised per-query evaluation with trec_eval 10 semantics.

Ranking (form_res_rels.c): documents of a query are ordered by score descending, ties broken by
docid descending in byte order (``strcmp``); the rank column of the file is ignored; ``max_docs``
keeps the first N after sorting (trec_eval ``-M``). A retrieved document's relevance is its qrels
label; a document absent from the qrels, or with a negative label, is not relevant.

Measures, for one query with ranked relevance labels ``l_1..l_n`` and threshold ``t`` (``rel=`` or the
evaluation's ``relevance_level``, trec_eval ``-l``); ``R`` = number of qrels documents with label ≥ t:

* ``P@k`` = |{i ≤ k : l_i ≥ t}| / k                                        (m_P.c)
* ``R@k`` = |{i ≤ k : l_i ≥ t}| / R                                        (m_recall.c)
* ``Success@k`` = 1 if some l_i ≥ t with i ≤ k                             (m_success.c)
* ``RR@k`` = 1 / min{i ≤ k : l_i ≥ t}                                       (m_recip_rank.c)
* ``AP@k`` = Σ_{i ≤ k, l_i ≥ t} P@i / R   (``AP`` without cutoff: k = n)    (m_map.c, m_map_cut.c)
* ``Rprec`` = |{i ≤ R : l_i ≥ t}| / R                                       (m_Rprec.c)
* ``nDCG@k`` = Σ_{i ≤ k} g_i / log2(i+1) over the same sum for the ideal ordering of all judged
  labels, g = label for labels ≥ 1 (thresholds do not change gains)        (m_ndcg.c, m_ndcg_cut.c)
* ``Judged@k`` = |{i ≤ k : doc_i in qrels}| / min(k, n)                    (ir_measures' judged)
* ``NumRet`` = n, ``NumRel`` = R, ``NumRelRet`` = |{i : l_i ≥ t}|           (m_num_*.c)

All queries are computed at once with ``np.bincount``; no per-query loops. Every measure depends
only on the judged retrieved documents (their topic, rank and label) and on the number retrieved
per topic, so the run's rows are never reordered as a whole: the judged rows are found first (a
hash filter, then an exact lookup), the ranking is checked in one vectorised pass (runs are usually
written in rank order) and only the judged rows are placed at their ranks. A measure whose
denominator is 0 (no relevant documents, empty ranking) is 0, as in trec_eval.
"""
from __future__ import annotations

import contextlib
import os
import warnings
from collections.abc import Iterable, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from .._frames import as_frame, float_values, id_strings
from ..errors import Hint, IRError, TrecFormatError
from ..progress import progress_bar
from ..scores import Scores
from ..signature import Signature, make_signature
from .errors import IgnoredTopicsWarning, MeasureError, MissingTopicsError, NoCommonTopicsError
from .measures import (
    COUNT_MEASURES,
    MEASURES,
    Measure,
    measure_bounds,
    parse_measure,
    parse_measures,
)
from .readers import (
    PathLike,
    QrelsTable,
    RunTable,
    hash_strings,
    helper_pool,
    load_qrels,
    load_run,
    one_thread,
    pair_hash,
    take_rows,
)

if TYPE_CHECKING:
    from ..scores import Scores

__all__ = ["evaluate", "evaluate_many", "summarize", "to_scores"]

MISSING_POLICIES = ("zero", "drop", "error")
_NOT_JUDGED = -2  # label of a retrieved document absent from the qrels
SCORE_PRECISIONS = ("float64", "float32")


# --------------------------------------------------------------------------------------------
# qrels preparation (once per evaluation / per evaluate_many)
# --------------------------------------------------------------------------------------------

@dataclass(frozen=True, eq=False)
class PreparedQrels:
    """Qrels encoded for joins: topics sorted in byte order, (topic, doc) keys sorted."""

    source: str
    topics: pa.Array  # sorted distinct query ids
    doc_dict: pa.Array  # distinct judged docids
    keys: np.ndarray  # sorted int64 topic * n_docs + doc code
    key_label: np.ndarray  # label of each key
    topic_of: np.ndarray  # topic index of every qrels entry
    label: np.ndarray  # label of every qrels entry
    pair_filter: np.ndarray  # bool, True at pair_hash(topic, doc) & (len - 1) for every entry

    @property
    def n_topics(self) -> int:
        return len(self.topics)

    @cached_property
    def topic_names(self) -> np.ndarray:
        return np.asarray(self.topics.to_pylist(), dtype=object)

    @cached_property
    def _ideal(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Positive gains sorted descending within each topic, with their 0-based ideal rank."""
        pos = self.label >= 1
        t, g = self.topic_of[pos], self.label[pos]
        order = np.lexsort((-g, t))
        t, g = t[order], g[order]
        starts = np.flatnonzero(np.r_[True, t[1:] != t[:-1]]) if len(t) else np.zeros(0, int)
        counts = np.diff(np.r_[starts, len(t)])
        rank = np.arange(len(t)) - np.repeat(starts, counts)
        return t, g.astype(np.float64), rank

    def num_rel(self, t: int) -> np.ndarray:
        """Number of qrels documents with label ≥ t per topic (negative labels never count)."""
        return np.bincount(self.topic_of[self.label >= max(t, 0)], minlength=self.n_topics)

    def ideal_dcg(self, k: int | None) -> np.ndarray:
        t, g, rank = self._ideal
        m = slice(None) if k is None else rank < k
        return np.bincount(t[m], weights=g[m] / np.log2(rank[m] + 2.0), minlength=self.n_topics)


_ID_COLUMNS = ("query_id", "qid", "doc_id", "docid")
_VALUE_COLUMNS = {"run": ("score",), "qrels": ("relevance", "label", "rel")}


def _table_input(src: object, kind: str) -> object:
    """A table-like run or qrels (DataFrame, Arrow, polars, structured array, dict of columns)
    as a pandas DataFrame whose id columns hold exact strings and whose value columns hold
    float64 (rules in :mod:`ranger_eval._frames`: ``1.0`` → ``'1'``, categoricals by label,
    nullable dtypes exact); paths and parsed tables pass through. Bad cells raise
    :class:`TrecFormatError` naming the row (0-based), column and value."""
    if isinstance(src, (str, os.PathLike, RunTable, QrelsTable, PreparedQrels)):
        return src
    frame = as_frame(src, what=f"ir.evaluate: the {kind}", error=TrecFormatError,
                     index_columns=_ID_COLUMNS)
    changed: dict[str, pd.Series | np.ndarray] = {}
    for col in (c for c in _ID_COLUMNS if c in frame.columns):
        ids, bad = id_strings(frame[col])
        if bad is not None:
            problem = "missing" if bad.problem == "missing id" else bad.problem
            raise TrecFormatError(f"<DataFrame> row {bad.first}: {col}: {problem} "
                                  f"{bad.shown}{bad.more()}")
        changed[col] = ids
    for col in (c for c in _VALUE_COLUMNS[kind] if c in frame.columns):
        values, bad_value = float_values(frame[col])
        if bad_value is not None:
            what = "score" if kind == "run" else "relevance label"
            raise TrecFormatError(f"<DataFrame> row {bad_value.first}: {what} is not a number: "
                                  f"{bad_value.shown} ({bad_value.problem}, column {col!r})"
                                  f"{bad_value.more()}")
        changed[col] = values
    return frame.assign(**changed)


def prepare_qrels(qrels: PathLike | pd.DataFrame | QrelsTable | PreparedQrels) -> PreparedQrels:
    """Read (if needed) and encode qrels once, for repeated evaluations. ``qrels`` may be any
    table-like input (:func:`_table_input`).

    Parameters
    ----------
    qrels : path or DataFrame or QrelsTable or PreparedQrels
        The relevance judgements; a PreparedQrels is returned as is.

    Returns
    -------
    PreparedQrels
        Topic order, sorted (topic, doc) keys, labels and the pair filter, to pass as ``qrels``
        to :func:`evaluate` or :func:`evaluate_many` again and again.

    Raises
    ------
    RangerError
        Unreadable or malformed qrels (named by file and line).

    Examples
    --------
    >>> import pandas as pd
    >>> from ranger_eval.ir import evaluate, prepare_qrels
    >>> qrels = prepare_qrels(pd.DataFrame({"query_id": ["1", "1", "2"], "doc_id": ["a", "b", "c"],
    ...                                     "relevance": [1, 0, 2]}))
    >>> qrels.n_topics, list(qrels.topic_names)
    (2, ['1', '2'])
    >>> run = pd.DataFrame({"query_id": ["1", "2"], "doc_id": ["a", "c"], "score": [1.0, 1.0]})
    >>> evaluate(qrels, run, "AP")["value"].tolist()
    [1.0, 1.0]
    """
    if isinstance(qrels, PreparedQrels):
        return qrels
    t = load_qrels(_table_input(qrels, "qrels"))  # type: ignore[arg-type]
    qenc = pc.dictionary_encode(t.query_id)
    order = pc.sort_indices(qenc.dictionary).to_numpy()
    rank = np.empty(len(order), dtype=np.int64)
    rank[order] = np.arange(len(order))
    topic_of = rank[qenc.indices.to_numpy(zero_copy_only=False)]
    denc = pc.dictionary_encode(t.doc_id)
    n_docs = len(denc.dictionary)
    keys = topic_of * n_docs + denc.indices.to_numpy(zero_copy_only=False)
    korder = np.argsort(keys)
    # about 1/64 of the filter is set (it keeps ~1.5% of the unjudged rows as candidates); at most
    # 4 MiB, so that probing it stays in cache
    bits = min(max(len(keys).bit_length() + 6, 16), 22)
    pairs = pair_hash(hash_strings(qenc.dictionary)[qenc.indices.to_numpy(zero_copy_only=False)],
                      t.doc_id)
    pair_filter = np.zeros(1 << bits, dtype=bool)
    pair_filter[_filter_slot(pairs, bits)] = True
    return PreparedQrels(source=t.source, topics=qenc.dictionary.take(pa.array(order)),
                         doc_dict=denc.dictionary, keys=keys[korder],
                         key_label=t.relevance[korder], topic_of=topic_of, label=t.relevance,
                         pair_filter=pair_filter)


_FILTER_BLOCK = 1 << 20


def _filter_slot(pairs: np.ndarray, bits: int) -> np.ndarray:
    """Slot of each pair hash in a filter of 2**bits entries (its low bits, as an index array)."""
    return (pairs & np.uint64((1 << bits) - 1)).view(np.int64)


def _judged_rows(q: PreparedQrels, topic: np.ndarray, docs: pa.Array | pa.ChunkedArray,
                 pairs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Rows whose (topic, document) is in the qrels, ascending, and their labels (at least -1).

    A row whose pair hash misses ``q.pair_filter`` is certainly not judged (equal strings hash
    equally); the few remaining candidates are looked up exactly: docid -> code with
    ``pc.index_in``, then (topic, code) in the sorted qrels keys. The filter is probed in blocks of
    2**20 rows, so temporaries stay small.
    """
    bits = len(q.pair_filter).bit_length() - 1
    cand = np.concatenate([
        np.flatnonzero(q.pair_filter[_filter_slot(pairs[lo: lo + _FILTER_BLOCK], bits)]) + lo
        for lo in range(0, len(pairs), _FILTER_BLOCK)] or [np.zeros(0, dtype=np.int64)])
    if len(cand) == 0:
        return cand, np.zeros(0, dtype=np.int64)
    dcode = pc.index_in(take_rows(docs, cand), value_set=q.doc_dict).fill_null(-1)
    dcode = dcode.to_numpy(zero_copy_only=False).astype(np.int64)
    hit = dcode >= 0
    cand, dcode = cand[hit], dcode[hit]
    key = topic[cand].astype(np.int64) * len(q.doc_dict) + dcode
    at = np.minimum(np.searchsorted(q.keys, key), len(q.keys) - 1)
    ok = q.keys[at] == key
    return cand[ok], np.maximum(q.key_label[at[ok]], -1)


# --------------------------------------------------------------------------------------------
# ranking
# --------------------------------------------------------------------------------------------

@dataclass(frozen=True, eq=False)
class _Ranking:
    """Where the rows land when sorted by (topic, score descending, docid descending).

    Topics occupy consecutive sorted positions: ``count[t]`` rows from ``start[t]`` on. ``order`` is
    the full permutation (sorted position -> row) when the rows had to be sorted; it is None when
    they already are in ranking order except inside stretches of tied scores, whose rows then move
    to the positions ``moved_to`` (``moved_row[i]`` goes to ``moved_to[i]``; by row) and every other
    row keeps its own position.
    """

    count: np.ndarray
    start: np.ndarray
    order: np.ndarray | None
    moved_row: np.ndarray
    moved_to: np.ndarray

    def place(self, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``rows`` (ascending) reordered by sorted position, and their sorted positions."""
        if self.order is not None:
            sel = np.zeros(len(self.order), dtype=bool)
            sel[rows] = True
            pos = np.flatnonzero(sel[self.order])
            return self.order[pos], pos
        pos = rows.copy()
        if len(self.moved_row) and len(rows):
            at = np.minimum(np.searchsorted(self.moved_row, rows), len(self.moved_row) - 1)
            hit = self.moved_row[at] == rows
            pos[hit] = self.moved_to[at[hit]]
        by = np.argsort(pos, kind="stable")
        return rows[by], pos[by]


def _ranking_order(topic: np.ndarray, score: np.ndarray, docs: pa.Array | pa.ChunkedArray,
                   n_topics: int) -> _Ranking:
    """The ranking of all rows (see :class:`_Ranking`); ``topic`` holds indices < ``n_topics``.

    Rows already in order (runs written in rank order) are recognised in one vectorised pass: each
    topic forms one stretch and scores never increase inside it. Otherwise rows are sorted by score
    descending and then stably by topic (a radix sort for < 65,536 topics). Rows with tied scores
    are then ordered by docid descending with Arrow's byte-wise string sort, on the tied rows only.
    """
    n = len(topic)
    none = np.zeros(0, dtype=np.int64)
    if n == 0:
        zero = np.zeros(n_topics, dtype=np.int64)
        return _Ranking(zero, zero, None, none, none)
    cut = np.flatnonzero(topic[1:] != topic[:-1])  # a new topic starts at cut + 1
    starts = np.r_[0, cut + 1]
    lengths = np.diff(np.r_[starts, n])
    count = np.bincount(topic[starts], weights=lengths, minlength=n_topics).astype(np.int64)
    in_order = len(starts) == np.count_nonzero(count)  # each topic is one stretch
    if in_order:
        step = score[1:] >= score[:-1]  # a tie or an increase...
        step[cut] = False  # ...inside a topic
        tie = np.flatnonzero(step)
        in_order = not np.any(score[tie + 1] > score[tie])
    order: np.ndarray | None = None
    if in_order:
        start = np.zeros(n_topics, dtype=np.int64)
        start[topic[starts]] = starts
    else:
        by_score = np.argsort(-score)
        t1 = topic[by_score]
        if n_topics <= 2**16:
            t1 = t1.astype(np.uint16)
        order = by_score[np.argsort(t1, kind="stable")]
        start = np.cumsum(count) - count
        t_s = np.repeat(np.arange(n_topics), count)
        s_s = score[order]
        tie = np.flatnonzero((t_s[1:] == t_s[:-1]) & (s_s[1:] == s_s[:-1]))
        del t_s, s_s
    if len(tie) == 0:
        return _Ranking(count, start, order, none, none)
    member = np.zeros(n, dtype=bool)
    member[tie] = True
    member[tie + 1] = True
    pos = np.flatnonzero(member)
    del member
    # tie groups: consecutive member positions linked by a tie
    linked = np.zeros(len(pos), dtype=bool)
    linked[1:] = np.isin(pos[1:] - 1, tie, assume_unique=True)
    group = np.cumsum(~linked)
    rows = pos if order is None else order[pos]
    sub = pa.table({"g": group, "d": take_rows(docs, rows)})
    perm = pc.sort_indices(sub, sort_keys=[("g", "ascending"), ("d", "descending")]).to_numpy()
    if order is not None:
        order[pos] = rows[perm]
        return _Ranking(count, start, order, none, none)
    moved = perm != np.arange(len(perm))
    moved_row, moved_to = rows[perm][moved], pos[moved]
    by_row = np.argsort(moved_row)
    return _Ranking(count, start, None, moved_row[by_row], moved_to[by_row])


# --------------------------------------------------------------------------------------------
# per-query measures over the judged retrieved rows
# --------------------------------------------------------------------------------------------

class _Rows:
    """The judged retrieved rows of all topics in ranking order: topic, 0-based rank ``pos`` and
    label (-1 = negative label); rows absent from the qrels are left out, as no measure needs them
    beyond the number retrieved per topic, ``nret``."""

    def __init__(self, q: PreparedQrels, topic: np.ndarray, pos: np.ndarray, label: np.ndarray,
                 count: np.ndarray, max_docs: int | None, relevance_level: int):
        if max_docs is not None:
            keep = pos < max_docs
            topic, pos, label = topic[keep], pos[keep], label[keep]
            count = np.minimum(count, max_docs)
        n = len(topic)
        self.starts = (np.flatnonzero(np.r_[True, topic[1:] != topic[:-1]]) if n
                       else np.zeros(0, dtype=np.int64))
        self.q, self.Q = q, q.n_topics
        self.topic, self.label, self.pos = topic, label, pos
        self.level = relevance_level
        self.nret = count
        self._rel: dict[int, np.ndarray] = {}
        self._numrel: dict[int, np.ndarray] = {}

    def threshold(self, m: Measure) -> int:
        return self.level if m.rel is None else m.rel

    def rel(self, t: int) -> np.ndarray:
        if t not in self._rel:
            self._rel[t] = self.label >= max(t, 0)
        return self._rel[t]

    def numrel(self, t: int) -> np.ndarray:
        if t not in self._numrel:
            self._numrel[t] = self.q.num_rel(t)
        return self._numrel[t]

    def count(self, mask: np.ndarray) -> np.ndarray:
        return np.bincount(self.topic[mask], minlength=self.Q)

    def top(self, mask: np.ndarray, k: int | None) -> np.ndarray:
        return mask if k is None else mask & (self.pos < k)

    @cached_property
    def block(self) -> np.ndarray:
        return np.repeat(np.arange(len(self.starts)), np.diff(np.r_[self.starts, len(self.topic)]))


def _ratio(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    out = np.zeros(len(num), dtype=np.float64)
    ok = den > 0
    out[ok] = num[ok] / den[ok]
    return out


def _measure(r: _Rows, m: Measure) -> np.ndarray:
    name, k = m.name, m.cutoff
    if name == "NumRet":
        return r.nret.astype(np.float64)
    if name == "nDCG":
        g = r.top(r.label >= 1, k)
        dcg = np.bincount(r.topic[g], weights=r.label[g] / np.log2(r.pos[g] + 2.0),
                          minlength=r.Q)
        return _ratio(dcg, r.q.ideal_dcg(k))
    if name == "Judged":
        judged = r.count(r.top(r.label != _NOT_JUDGED, k)).astype(np.float64)
        den = r.nret if k is None else np.minimum(r.nret, k)
        return _ratio(judged, den)
    t = r.threshold(m)
    rel = r.rel(t)
    if name == "NumRel":
        return r.numrel(t).astype(np.float64)
    if name == "NumRelRet":
        return r.count(rel).astype(np.float64)
    if name == "P":
        if k is None:  # pragma: no cover - Measure requires a cutoff for P
            raise MeasureError(f"{name} needs a cutoff, e.g. {name}@10")
        return r.count(r.top(rel, k)) / float(k)
    if name == "R":
        return _ratio(r.count(r.top(rel, k)), r.numrel(t))
    if name == "Success":
        return (r.count(r.top(rel, k)) > 0).astype(np.float64)
    if name == "Rprec":
        return _ratio(r.count(rel & (r.pos < r.numrel(t)[r.topic])), r.numrel(t))
    if name == "RR":
        rows = np.flatnonzero(r.top(rel, k))
        out = np.zeros(r.Q)
        if len(rows):
            tr = r.topic[rows]
            first = rows[np.r_[True, tr[1:] != tr[:-1]]]
            out[r.topic[first]] = 1.0 / (r.pos[first] + 1.0)
        return out
    if name == "AP":
        cum = np.cumsum(rel)
        before = np.where(r.starts > 0, cum[np.maximum(r.starts - 1, 0)], 0)
        rows = np.flatnonzero(r.top(rel, k))
        prec = (cum[rows] - before[r.block[rows]]) / (r.pos[rows] + 1.0)
        return _ratio(np.bincount(r.topic[rows], weights=prec, minlength=r.Q), r.numrel(t))
    raise AssertionError(f"unhandled measure {m}")  # pragma: no cover


def _check_options(missing: str, score_precision: str, max_docs: object,
                   relevance_level: object) -> None:
    if missing not in MISSING_POLICIES:
        raise IRError(f"missing must be one of {', '.join(map(repr, MISSING_POLICIES))}; "
                         f"got {missing!r}")
    if score_precision not in SCORE_PRECISIONS:
        raise IRError(f"score_precision must be 'float64' or 'float32'; got {score_precision!r}")
    if max_docs is not None and (isinstance(max_docs, bool) or not isinstance(max_docs, (int, np.integer))
                                 or max_docs < 1):
        raise IRError(f"max_docs must be a positive integer or None; got {max_docs!r}")
    if (isinstance(relevance_level, bool) or not isinstance(relevance_level, (int, np.integer))
            or relevance_level < 0):
        raise IRError(f"relevance_level must be a non-negative integer; got {relevance_level!r}")


def _examples(names: Iterable[str], n: int = 5) -> str:
    names = list(names)
    shown = ", ".join(repr(x) for x in names[:n])
    return shown + (f", ... ({len(names)} in all)" if len(names) > n else "")


class IREvaluation(pd.DataFrame):
    """Per-query values (``[(system,) query_id, measure, value]``): a pandas DataFrame that also
    carries the reproducibility :attr:`signature` of the evaluation (measures, relevance level,
    judged handling, missing topics, score precision, ties, depth). Operations on it return
    plain DataFrames; ``attrs`` keeps the signature and the sources."""

    @property
    def _constructor(self) -> type[pd.DataFrame]:  # derived frames are plain DataFrames
        return pd.DataFrame

    @property
    def signature(self) -> Signature:
        return Signature(self.attrs.get("signature", ""))


def _signature(measures: tuple[Measure, ...], missing: str, score_precision: str,
               max_docs: int | None, relevance_level: int) -> Signature:
    return make_signature("ir", {
        "measures": [str(m) for m in measures], "rel": relevance_level, "judged": "nonrel",
        "missing": missing, "precision": score_precision, "ties": "docid-desc",
        "max_docs": "all" if max_docs is None else max_docs,
    })


def _with_signature(frame: pd.DataFrame, signature: Signature) -> IREvaluation:
    out = IREvaluation(frame)
    out.attrs.update(frame.attrs)
    out.attrs["signature"] = str(signature)
    return out


# warnings of one evaluation, emitted by the caller (a Warning instance: with its hints)
_Notes = list[tuple[str | Warning, type[Warning]]]


def _emit(notes: _Notes, stacklevel: int) -> None:
    for message, category in notes:
        warnings.warn(message, category, stacklevel=stacklevel + 1)


def _note_unreachable_levels(q: PreparedQrels, measures: tuple[Measure, ...],
                             relevance_level: int, notes: _Notes) -> None:
    """A binary measure whose relevance threshold no qrels label reaches is 0 on every topic:
    almost always a wrong ``-l``/``rel=``, so say so (trec_eval prints the zeros silently)."""
    top = int(q.label.max()) if len(q.label) else 0
    high = sorted({str(m) for m in measures if MEASURES[m.name][1]
                   and (m.rel if m.rel is not None else relevance_level) > top})
    if high:
        notes.append((f"{q.source}: no qrels label reaches the relevance level of "
                      f"{', '.join(high)} (highest label {top}): no document counts as relevant, "
                      f"so these measures are 0 on every topic; check -l / rel=",
                      IgnoredTopicsWarning))


def _evaluate_table(q: PreparedQrels, run: RunTable, measures: tuple[Measure, ...], missing: str,
                    score_precision: str, max_docs: int | None, relevance_level: int,
                    allow_no_overlap: bool = False, notes: _Notes | None = None) -> pd.DataFrame:
    """Per-query values of one loaded run. Warnings go to ``notes`` (message, category) when it is
    given, so that concurrent evaluations (:func:`evaluate_many`) report them in run order;
    otherwise they are emitted here."""
    if notes is None:
        own: _Notes = []
        out = _evaluate_table(q, run, measures, missing, score_precision, max_docs,
                              relevance_level, allow_no_overlap, own)
        _emit(own, stacklevel=3)
        return out
    tmap = pc.index_in(run.query_dict, value_set=q.topics).fill_null(-1)
    tmap = tmap.to_numpy(zero_copy_only=False).astype(np.int32)
    ignored = np.flatnonzero(tmap < 0)
    if len(ignored) == len(tmap):  # not one run topic has qrels
        err = NoCommonTopicsError(run.source, q.source, run.query_dict.to_pylist(),
                                  list(q.topic_names))
        if not allow_no_overlap:
            raise err
        zero, drop = Hint("missing", "zero", form="set"), Hint("missing", "drop", form="set")
        notes.append((IgnoredTopicsWarning(err.describe(
            f"evaluated anyway as asked: every qrels topic scores 0 with {zero.text} "
            f"(trec_eval -c); with {drop.text} no topic is left", loud=True),
            hints=[zero, drop]), IgnoredTopicsWarning))
    topic = tmap[run.query_codes]
    score, docs, pairs = run.score, run.doc_id, run.pair_hash
    if len(ignored):
        keep = np.flatnonzero(topic >= 0)
        topic, score, pairs = topic[keep], score[keep], pairs[keep]
        docs = take_rows(docs, keep)
    if len(ignored) and len(ignored) < len(tmap):  # (no overlap at all: warned above)
        notes.append((f"{run.source}: {len(ignored)} run topic(s) without qrels in {q.source} "
                      f"ignored: {_examples(run.query_dict.take(pa.array(ignored)).to_pylist())}",
                      IgnoredTopicsWarning))
    if score_precision == "float32":
        score = score.astype(np.float32).astype(np.float64)

    # the judged rows and the ranking are independent: numpy and pyarrow release the GIL, so on
    # large runs they are computed side by side
    with helper_pool(1) as pool:
        lookup = pool.submit(_judged_rows, q, topic, docs, pairs)
        ranking = _ranking_order(topic, score, docs, q.n_topics)
        judged, label = lookup.result()
    judged_t = topic[judged]  # before reordering: topic and label belong to the row
    rows_sorted, pos_sorted = ranking.place(judged)
    by = np.searchsorted(judged, rows_sorted)
    t = judged_t[by]
    rows = _Rows(q, t, pos_sorted - ranking.start[t], label[by], ranking.count, max_docs,
                 relevance_level)
    values = np.column_stack([_measure(rows, m) for m in measures])
    _note_unreachable_levels(q, measures, relevance_level, notes)

    present = rows.nret > 0
    if not present.all():
        absent = q.topic_names[~present]
        if missing == "error":
            raise MissingTopicsError(f"{run.source}: {len(absent)} qrels topic(s) have no ranking "
                                     f"in the run: {_examples(absent)}")
        if missing == "drop":
            notes.append((f"{run.source}: {len(absent)} qrels topic(s) absent from the run "
                          f"dropped: {_examples(absent)}", IgnoredTopicsWarning))
            values = values[present]
    ids = q.topic_names if missing == "zero" else q.topic_names[present]
    names = [str(m) for m in measures]
    out = pd.DataFrame({
        "query_id": np.repeat(ids, len(names)),
        "measure": np.tile(np.asarray(names, dtype=object), len(ids)),
        "value": values.reshape(-1),
    })
    out.attrs.update(run=run.source, qrels=q.source, ignored_topics=int(len(ignored)),
                     missing_topics=int((~present).sum()), missing=missing)
    return out


def evaluate(qrels: PathLike | pd.DataFrame | QrelsTable | PreparedQrels, run: PathLike | pd.DataFrame,
             measures: str | Measure | Iterable[str | Measure], *, missing: str = "zero",
             score_precision: str = "float64", max_docs: int | None = None,
             relevance_level: int = 1, allow_no_overlap: bool = False) -> pd.DataFrame:
    """Per-query values of ``measures`` for one run, as trec_eval 10 computes them.

    Run topics without qrels are ignored with a warning. Measures are named canonically
    (``ndcg_cut.10`` → ``nDCG@10``); topics come in byte order.

    Parameters
    ----------
    qrels : path or DataFrame
        TREC qrels (:mod:`ranger_eval.ir.readers`) or a frame ``query_id, doc_id, relevance``.
    run : path or DataFrame
        A TREC run or a frame ``query_id, doc_id, score``.
    measures : str, Measure or iterable of them
        The measures (:func:`parse_measures`).
    missing : {"zero", "drop", "error"}, default "zero"
        What a qrels topic absent from the run gets: an empty ranking (``trec_eval -c``), nothing
        (plain trec_eval; counted in a warning), or an error.
    score_precision : {"float64", "float32"}, default "float64"
        "float32" rounds scores to float32 before ranking (trec_eval 9, pytrec_eval, ir_measures).
    max_docs : int, optional
        Keep the top N documents per topic (trec_eval ``-M``).
    relevance_level : int, default 1
        The default threshold of binary measures (trec_eval ``-l``).
    allow_no_overlap : bool, default False
        Accept a run that shares no topic with the qrels (then a loud ``IgnoredTopicsWarning``).

    Returns
    -------
    pandas.DataFrame
        ``[query_id, measure, value]``, one row per (topic, measure); its ``attrs`` carry the
        signature.

    Raises
    ------
    NoCommonTopicsError
        A run that shares no topic with the qrels (another collection, mismatched ids), whatever
        ``missing`` says, unless ``allow_no_overlap=True``.
    MeasureError
        An unknown measure.

    References
    ----------
    NIST ``trec_eval`` 10 (https://github.com/usnistgov/trec_eval), whose values these equal;
    Järvelin, K. & Kekäläinen, J. (2002), "Cumulated gain-based evaluation of IR techniques",
    ACM TOIS 20:422–446 (nDCG).

    Examples
    --------
    >>> import pandas as pd
    >>> from ranger_eval.ir import evaluate
    >>> qrels = pd.DataFrame({"query_id": ["1", "1", "2"], "doc_id": ["a", "b", "c"],
    ...                       "relevance": [1, 0, 2]})
    >>> run = pd.DataFrame({"query_id": ["1", "1", "2", "2"], "doc_id": ["b", "a", "c", "d"],
    ...                     "score": [2.0, 1.0, 3.0, 1.0]})
    >>> table = evaluate(qrels, run, ["nDCG@10", "AP", "RR"])
    >>> for query_id, measure, value in table.itertuples(index=False):
    ...     print(query_id, measure, round(value, 4))
    1 nDCG@10 0.6309
    1 AP 0.5
    1 RR 0.5
    2 nDCG@10 1.0
    2 AP 1.0
    2 RR 1.0
    """
    _check_options(missing, score_precision, max_docs, relevance_level)
    ms = parse_measures(measures)
    q, table = _load_side_by_side(qrels, run)
    out = _evaluate_table(q, table, ms, missing, score_precision, max_docs, relevance_level,
                          allow_no_overlap)
    return _with_signature(out, _signature(ms, missing, score_precision, max_docs, relevance_level))


def _load_side_by_side(qrels: PathLike | pd.DataFrame | QrelsTable | PreparedQrels,
                       run: PathLike | pd.DataFrame | RunTable) -> tuple[PreparedQrels, RunTable]:
    """The prepared qrels and the loaded run of one evaluation: the qrels are read and indexed on
    a helper thread while the run is parsed (inline, one after the other, inside
    :func:`~ranger_eval.ir.readers.one_thread`). As when they were read in turn, an error in the
    qrels is raised before one in the run."""
    failed: BaseException | None = None
    with helper_pool(1) as pool:
        prepared = pool.submit(prepare_qrels, qrels)
        try:
            table = load_run(_table_input(run, "run"))  # type: ignore[arg-type]
        except BaseException as exc:  # noqa: BLE001 (raised below, after the qrels' own error)
            failed = exc
        q = prepared.result()
    if failed is not None:
        raise failed
    return q, table


def _batch_workers(n_runs: int) -> int:
    """Runs evaluated at once by :func:`evaluate_many`: one per CPU core (at most 4), never more
    than there are runs. Each worker holds one parsed run at a time, so memory stays bounded."""
    return max(1, min(n_runs, os.cpu_count() or 1, 4))


def evaluate_many(qrels: PathLike | pd.DataFrame | QrelsTable | PreparedQrels,
                  runs: Mapping[str, PathLike | pd.DataFrame | RunTable],
                  measures: str | Measure | Iterable[str | Measure], *, missing: str = "zero",
                  score_precision: str = "float64", max_docs: int | None = None,
                  relevance_level: int = 1, progress: bool | None = None,
                  allow_no_overlap: bool = False) -> pd.DataFrame:
    """:func:`evaluate` for several systems against the same qrels, in one call.

    The qrels are read and indexed once (:func:`prepare_qrels`: topic order, sorted (topic, doc)
    keys, pair-hash filter, ideal gains) and shared by every run. Runs are parsed and evaluated
    concurrently, one per worker thread (:func:`_batch_workers`: one per core, at most 4), each
    run within its thread alone (:func:`~ranger_eval.ir.readers.one_thread`: pyarrow's CSV
    reader single-threaded, no helper threads, parsing buffers reused from run to run).
    pyarrow's CSV reader, the numpy checks and the hashing release the GIL, so the CPU-bound
    stages of different runs overlap, and the result never takes longer than a loop of
    :func:`evaluate` calls (benchmarks/ir_batch_bench.py: 20 runs of 500,000 lines in 1.0 s on
    2 cores, 8.7× faster than pytrec_eval). Each worker holds one parsed run at a
    time, so memory is bounded by the number of workers, not of runs. Values are identical to
    :func:`evaluate` on each run; warnings are emitted in run order, and the first bad run (in
    order) raises its error.

    ``runs`` maps a system name to a run. Returns ``[system, query_id, measure, value]``. A rich
    progress bar is shown on stderr when it is a terminal (``progress=None``) or when ``progress=True``.

    Parameters
    ----------
    qrels : path or DataFrame or QrelsTable or PreparedQrels
        The relevance judgements (``query_id, doc_id, relevance``), read once.
    runs : mapping of {str: path or DataFrame or RunTable}
        System name → its run (``query_id, doc_id, score``).
    measures : str or Measure or iterable of them
        The measures (:func:`~ranger_eval.ir.measures.parse_measures`).
    missing, score_precision, max_docs, relevance_level, allow_no_overlap
        As for :func:`evaluate`, applied to every run.
    progress : bool, optional
        Show a progress bar; by default when stderr is a terminal.

    Returns
    -------
    pandas.DataFrame
        ``[system, query_id, measure, value]``, systems in the order of ``runs``.

    Raises
    ------
    RangerError
        The first bad run's error (in the order of ``runs``), or bad qrels or options.

    Examples
    --------
    >>> from ranger_eval.ir import evaluate_many
    >>> import pandas as pd
    >>> qrels = pd.DataFrame({"query_id": ["1", "1", "2"], "doc_id": ["a", "b", "c"],
    ...                       "relevance": [1, 0, 2]})
    >>> runs = {"bm25": pd.DataFrame({"query_id": ["1", "1", "2"], "doc_id": ["b", "a", "c"],
    ...                               "score": [2.0, 1.0, 3.0]}),
    ...         "dense": pd.DataFrame({"query_id": ["1", "2"], "doc_id": ["a", "d"],
    ...                                "score": [1.0, 2.0]})}
    >>> table = evaluate_many(qrels, runs, ["AP", "RR"], progress=False)
    >>> table.groupby(["system", "measure"])["value"].mean().to_dict()
    {('bm25', 'AP'): 0.75, ('bm25', 'RR'): 0.75, ('dense', 'AP'): 0.5, ('dense', 'RR'): 0.5}
    """
    _check_options(missing, score_precision, max_docs, relevance_level)
    if not isinstance(runs, Mapping) or not runs:
        raise IRError("runs must be a non-empty mapping {system name: run}")
    ms = parse_measures(measures)
    q = prepare_qrels(qrels)

    def one(system: str, run: PathLike | pd.DataFrame | RunTable) -> tuple[pd.DataFrame, _Notes]:
        notes: _Notes = []
        with one_thread() if parallel else contextlib.nullcontext():
            df = _evaluate_table(q, load_run(_table_input(run, "run")),  # type: ignore[arg-type]
                                 ms, missing, score_precision, max_docs,
                                 relevance_level, allow_no_overlap, notes)
        df.insert(0, "system", system)
        return df, notes

    frames: list[pd.DataFrame] = []
    items = [(str(k), v) for k, v in runs.items()]
    workers = _batch_workers(len(items))
    parallel = workers > 1  # then each run in one thread (readers.one_thread), the runs side by side
    pool = ThreadPoolExecutor(max_workers=workers)
    try:
        with progress_bar("evaluating runs", total=len(items), enabled=progress) as advance:
            futures = [pool.submit(one, system, run) for system, run in items]
            for (system, _), future in zip(items, futures, strict=True):
                df, notes = future.result()
                _emit(notes, stacklevel=2)
                frames.append(df)
                advance(description=f"evaluated {system}")
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
        if parallel:  # the runs' parsing buffers, kept for reuse between runs (readers.one_thread)
            pa.default_memory_pool().release_unused()
    out = pd.concat(frames, ignore_index=True)
    out.attrs.update(qrels=q.source, missing=missing)
    return _with_signature(out, _signature(ms, missing, score_precision, max_docs, relevance_level))


def summarize(evaluation: pd.DataFrame) -> pd.DataFrame:
    """trec_eval's ``all`` row: the mean over topics per measure (sums for NumRet, NumRel, NumRelRet).

    With ``missing="zero"`` the mean runs over all qrels topics (``trec_eval -c``), with ``"drop"``
    over the topics present in the run (plain trec_eval). Returns ``[(system,) measure, value, num_q]``.
    One trec_eval value differs: under ``-c`` its ``num_rel`` ``all`` counts the qrels documents
    with a label > 0 over all qrels topics whatever ``-l`` says (m_num_rel.c), not the sum of its
    per-topic values (labels ≥ ``-l``); this sums them, ``ranger-eval trec -c`` prints trec_eval's.

    Parameters
    ----------
    evaluation : pandas.DataFrame
        The output of :func:`evaluate` or :func:`evaluate_many`.

    Returns
    -------
    pandas.DataFrame
        ``[(system,) measure, value, num_q]``: one row per (system ×) measure.

    Examples
    --------
    >>> from ranger_eval.ir import evaluate_many, summarize
    >>> import pandas as pd
    >>> qrels = pd.DataFrame({"query_id": ["1", "1", "2"], "doc_id": ["a", "b", "c"],
    ...                       "relevance": [1, 0, 2]})
    >>> runs = {"bm25": pd.DataFrame({"query_id": ["1", "1", "2"], "doc_id": ["b", "a", "c"],
    ...                               "score": [2.0, 1.0, 3.0]}),
    ...         "dense": pd.DataFrame({"query_id": ["1", "2"], "doc_id": ["a", "d"],
    ...                                "score": [1.0, 2.0]})}
    >>> summarize(evaluate_many(qrels, runs, ["AP"], progress=False)).values.tolist()
    [['bm25', 'AP', 0.75, 2], ['dense', 'AP', 0.5, 2]]
    """
    keys = ["system", "measure"] if "system" in evaluation.columns else ["measure"]
    g = evaluation.groupby(keys, sort=False)["value"]
    out = g.agg(["mean", "sum", "count"]).reset_index()
    count = out["measure"].map(lambda s: parse_measure(s).name in COUNT_MEASURES).astype(bool)
    out["value"] = np.where(count, out["sum"], out["mean"])
    return out[keys + ["value", "count"]].rename(columns={"count": "num_q"})


def to_scores(evaluation: pd.DataFrame, dataset: str, system: str | None = None) -> Scores:
    """Turn an evaluation (or :func:`evaluate_many` output) into a :class:`ranger_eval.scores.Scores`.

    Columns: dataset, system, metric (= measure), item (= query id as string), value. The
    measures in [0, 1] (all but the counts) are declared so (:func:`~ranger_eval.ir.measures.
    measure_bounds`): the intervals of their means stay in range.

    Parameters
    ----------
    evaluation : pandas.DataFrame
        The output of :func:`evaluate` (one system) or :func:`evaluate_many`.
    dataset : str
        The dataset name of every row.
    system : str, optional
        The system name, for an :func:`evaluate` output (which has no ``system`` column).

    Returns
    -------
    Scores
        Per-query values ready for :func:`ranger_eval.compare`.

    Examples
    --------
    >>> from ranger_eval.ir import evaluate_many, to_scores
    >>> import pandas as pd
    >>> qrels = pd.DataFrame({"query_id": ["1", "1", "2"], "doc_id": ["a", "b", "c"],
    ...                       "relevance": [1, 0, 2]})
    >>> runs = {"bm25": pd.DataFrame({"query_id": ["1", "1", "2"], "doc_id": ["b", "a", "c"],
    ...                               "score": [2.0, 1.0, 3.0]}),
    ...         "dense": pd.DataFrame({"query_id": ["1", "2"], "doc_id": ["a", "d"],
    ...                                "score": [1.0, 2.0]})}
    >>> scores = to_scores(evaluate_many(qrels, runs, ["AP", "RR"], progress=False), "toy")
    >>> scores.datasets, scores.systems, scores.metrics, len(scores)
    (('toy',), ('bm25', 'dense'), ('AP', 'RR'), 8)
    """
    if "system" in evaluation.columns:
        systems = evaluation["system"].astype(str).to_numpy()
        if system is not None:
            raise IRError("to_scores: the evaluation already has a 'system' column; "
                             "do not pass system=")
    elif system is None:
        raise IRError("to_scores: a single-run evaluation needs system='name'")
    else:
        systems = np.full(len(evaluation), str(system), dtype=object)
    df = pd.DataFrame({
        "dataset": str(dataset),
        "system": systems,
        "metric": evaluation["measure"].astype(str).to_numpy(),
        "item": evaluation["query_id"].astype(str).to_numpy(),
        "value": evaluation["value"].to_numpy(dtype=np.float64),
    })
    scores = Scores(df)
    bounds = {m: b for m, b in measure_bounds(scores.metrics).items()
              if df.loc[df["metric"] == m, "value"].between(*b).all()}
    return scores.with_bounds(bounds) if bounds else scores
