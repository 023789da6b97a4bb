"""Hashing, query encoding and duplicate detection: 64-bit hashes of ids and of (query, document)
pairs (:func:`hash_strings`, :func:`pair_hash`), dictionary-encoded query ids, and the first
repeated (query, document) pair of a run, found by sorting the pair hashes."""
from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from .threads import helper_pool

_K1 = np.uint64(0x9E3779B97F4A7C15)
_K2 = np.uint64(0xBF58476D1CE4E5B9)
_K3 = np.uint64(0x94D049BB133111EB)
_LOW_BYTES = np.array([(1 << (8 * k)) - 1 for k in range(9)], dtype=np.uint64)  # k low bytes set
_U = {k: np.uint64(k) for k in (1, 3, 27, 29, 30, 31, 63)}


def _mix(h: np.ndarray, tmp: np.ndarray) -> None:
    """splitmix64 finaliser, in place (``tmp``: scratch of the same shape)."""
    for shift, k in ((_U[30], _K2), (_U[27], _K3)):
        np.right_shift(h, shift, out=tmp)
        h ^= tmp
        h *= k
    np.right_shift(h, _U[31], out=tmp)
    h ^= tmp


class _Scratch:
    """Temporaries for :func:`_piece_hash`, allocated once per :func:`hash_strings` call: fresh
    arrays of a few hundred KiB per piece would each be a new memory mapping to fault in."""

    def __init__(self, n: int):
        self.i = [np.empty(n, dtype=np.int64) for _ in range(4)]
        self.u = [np.empty(n, dtype=np.uint64) for _ in range(5)]
        self._words = np.empty(0, dtype=np.uint64)

    def words(self, data: np.ndarray) -> np.ndarray:
        """``data`` (bytes) copied to the start of an aligned uint64 buffer with at least two
        words to spare, so that 8-byte loads never run out (spare bytes are never used)."""
        need = len(data) // 8 + 3
        if len(self._words) < need:
            self._words = np.empty(max(need, 2 * len(self._words)), dtype=np.uint64)
        self._words.view(np.uint8)[: len(data)] = data
        return self._words


def _load8(words: np.ndarray, at: np.ndarray, out: np.ndarray, idx: np.ndarray,
           shift: np.ndarray, high: np.ndarray) -> None:
    """``out`` = the 8 bytes starting at byte offsets ``at`` of ``words`` (little-endian uint64),
    from two aligned loads (numpy gathers aligned words much faster than unaligned ones);
    ``idx``, ``shift``, ``high``: scratch."""
    np.right_shift(at, 3, out=idx)
    np.take(words, idx, out=out, mode="clip")  # indices are in range: "clip" skips buffering
    idx += 1
    np.take(words, idx, out=high, mode="clip")
    np.bitwise_and(at, 7, out=idx)
    idx <<= 3
    np.copyto(shift, idx, casting="unsafe")  # 0..56
    out >>= shift
    np.subtract(_U[63], shift, out=shift)
    high <<= shift  # two shifts, so that a shift by 64 (at & 7 == 0) clears high
    high <<= _U[1]
    out |= high


def _piece_hash(arr: pa.Array, out: np.ndarray, scratch: _Scratch) -> None:
    """Hash the strings of one (small) Arrow string array into ``out``.

    A string of length L with bytes b is reduced to its first 8 bytes ``f`` (zero-padded) and its
    last 8 bytes ``l`` (overlapping ``f`` when L < 16; equal to ``f`` when L ≤ 8), plus, for L > 16,
    the 8-byte words at 8, 16, ... before the last one. The state starts as L·K3 and absorbs each
    word w as ``h = ((h ^ w)·K) ^ (... >> 29)``; a splitmix64 finaliser ends it. The hash is a
    function of (L, b) only, so equal strings hash equally wherever they are stored.
    """
    n = len(arr)
    bufs = arr.buffers()
    wide = pa.types.is_large_string(arr.type) or pa.types.is_large_binary(arr.type)
    odt = np.int64 if wide else np.int32
    offsets = np.frombuffer(bufs[1], dtype=odt, count=n + 1, offset=arr.offset * odt().itemsize)
    lo, hi = int(offsets[0]), int(offsets[-1])
    data = (np.frombuffer(bufs[2], dtype=np.uint8, count=hi - lo, offset=lo) if hi > lo
            else np.zeros(0, dtype=np.uint8))
    words = scratch.words(data)
    starts, lens, at, idx = (x[:n] for x in scratch.i)
    keep, first, last, shift, high = (x[:n] for x in scratch.u)
    np.subtract(offsets[:-1], lo, out=starts)
    np.subtract(offsets[1:], offsets[:-1], out=lens)
    np.minimum(lens, 8, out=at)
    np.take(_LOW_BYTES, at, out=keep, mode="clip")
    _load8(words, starts, first, idx, shift, high)
    first &= keep
    np.subtract(lens, 8, out=at)
    np.maximum(at, 0, out=at)
    at += starts
    _load8(words, at, last, idx, shift, high)
    last &= keep
    np.copyto(out, lens, casting="unsafe")
    out *= _K3
    for word, k in ((first, _K1), (last, _K2)):
        out ^= word
        out *= k
        np.right_shift(out, _U[29], out=high)
        out ^= high
    long = np.flatnonzero(lens > 16)
    if len(long):
        _absorb_middle(words, starts[long], lens[long], out, long)
    _mix(out, high)


_MIDDLE_BLOCK = 1 << 20  # middle words gathered at once by _absorb_middle (bounded temporaries)


def _absorb_middle(words: np.ndarray, starts: np.ndarray, lens: np.ndarray, out: np.ndarray,
                   which: np.ndarray) -> None:
    """Absorb the middle words of strings longer than 16 bytes into ``out[which]``.

    A string of length L has m = ⌊(L − 9) / 8⌋ middle words w_1..w_m at byte offsets 8, 16, ...
    (the last 8 bytes are absorbed separately). Each is mixed with its position,
    ``v_k = ((w_k ^ k·K2)·K1) ^ (... >> 29)``, and the sum Σ v_k (mod 2⁶⁴) is absorbed like a word.
    All words of all strings are gathered in vectorised blocks of about 2**20 words and summed
    per string with ``np.add.reduceat``: linear time, however long one string is.
    """
    nw = (lens - 9) // 8
    ends = np.cumsum(nw)
    total = np.zeros(len(nw), dtype=np.uint64)
    lo = 0
    while lo < len(nw):  # strings lo..hi-1 hold about _MIDDLE_BLOCK words (at least one string)
        base = int(ends[lo] - nw[lo])
        hi = max(int(np.searchsorted(ends, base + _MIDDLE_BLOCK, side="right")), lo + 1)
        cnt = nw[lo:hi]
        n = int(cnt.sum())
        first = np.cumsum(cnt) - cnt  # first word of each string in this block
        k = np.arange(n, dtype=np.int64) - np.repeat(first, cnt)  # 0-based position
        at = np.repeat(starts[lo:hi], cnt) + 8 + 8 * k
        w = np.empty(n, dtype=np.uint64)
        _load8(words, at, w, np.empty(n, dtype=np.int64), np.empty(n, dtype=np.uint64),
               np.empty(n, dtype=np.uint64))
        w ^= (k + 1).astype(np.uint64) * _K2
        w *= _K1
        w ^= w >> _U[29]
        total[lo:hi] = np.add.reduceat(w, first)
        lo = hi
    h = out[which]
    h ^= total
    h *= _K1
    h ^= h >> _U[29]
    out[which] = h


_PIECE = 1 << 13
"""Strings hashed at once by :func:`hash_strings`. Its ~50 vectorised steps then work on 64 KiB
arrays that stay in the L1/L2 caches, and the nine scratch arrays (576 KiB) come from the heap
rather than from fresh memory mappings faulted in on every call: measured on 200,000 docids
(numpy 2.4, 2 cores, 4 MiB L2), 4.2 ms at 8,192 strings a piece, 5.6-6.2 ms at 65,536, 7 ms at
2,048."""


def hash_strings(arr: pa.Array | pa.ChunkedArray) -> np.ndarray:
    """64-bit hash of every string of ``arr``, vectorised 8 bytes at a time: equal strings get equal
    hashes. Used only to find candidate duplicates or matches, which are then compared exactly.
    Works in pieces of :data:`_PIECE` strings, with one set of temporaries, so that they stay in cache."""
    chunks = arr.chunks if isinstance(arr, pa.ChunkedArray) else [arr]
    out = np.empty(len(arr), dtype=np.uint64)
    scratch = _Scratch(min(len(arr), _PIECE))
    i = 0
    with np.errstate(over="ignore"):
        for ch in chunks:
            for s in range(0, len(ch), _PIECE):
                piece = ch.slice(s, _PIECE)
                _piece_hash(piece, out[i: i + len(piece)], scratch)
                i += len(piece)
    return out


def pair_hash(query_hash: np.ndarray, docs: pa.Array | pa.ChunkedArray) -> np.ndarray:
    """64-bit key of each (query id, docid) pair: ``hash_strings(docs) ^ (query_hash · K1)``,
    ``query_hash`` holding ``hash_strings`` of each row's query id. A function of the two strings
    only (K1 odd: one document under two queries gets two keys), so runs and qrels compute the same
    keys independently; equal keys are only candidates, always confirmed exactly."""
    out = hash_strings(docs)
    with np.errstate(over="ignore"):
        out ^= query_hash * _K1
    return out


def take_rows(arr: pa.Array | pa.ChunkedArray, rows: np.ndarray) -> pa.Array:
    """``arr[rows]`` as one array. pyarrow's ``ChunkedArray.take`` first concatenates all chunks
    (a full copy of, say, 5 million docids for a handful of rows); here each chunk is taken from
    separately, for the rows that fall in it."""
    rows = np.asarray(rows, dtype=np.int64)
    if not isinstance(arr, pa.ChunkedArray):
        return arr.take(pa.array(rows))
    if arr.num_chunks == 1:
        return arr.chunk(0).take(pa.array(rows))
    sizes = np.array([len(c) for c in arr.chunks], dtype=np.int64)
    first = np.cumsum(sizes) - sizes  # first row of each chunk
    order = np.argsort(rows, kind="stable")
    srt = rows[order]
    where = np.searchsorted(first, srt, side="right") - 1
    cut = np.flatnonzero(np.diff(where)) + 1
    pieces = [arr.chunk(int(where[lo])).take(pa.array(srt[lo:hi] - first[where[lo]]))
              for lo, hi in zip(np.r_[0, cut], np.r_[cut, len(srt)], strict=True) if hi > lo]
    out = pa.concat_arrays(pieces) if pieces else arr.chunk(0).slice(0, 0)
    if not np.array_equal(order, np.arange(len(order))):
        inverse = np.empty_like(order)
        inverse[order] = np.arange(len(order))
        out = out.take(pa.array(inverse))
    return out


def _stretches(ids: pa.Array | pa.ChunkedArray) -> tuple[pa.Array, np.ndarray]:
    """The first id of every stretch of equal neighbours and the stretch lengths (a run lists the
    documents of a query together, so a few thousand stretches stand for millions of rows)."""
    n = len(ids)
    if n == 0:
        return pa.array([], type=pa.string()), np.zeros(0, dtype=np.int64)
    change = pc.not_equal(ids.slice(1), ids.slice(0, n - 1)).to_numpy(zero_copy_only=False)
    starts = np.flatnonzero(np.r_[True, change])
    return take_rows(ids, starts), np.diff(np.r_[starts, n])


def _encode_heads(heads: list[pa.Array], lengths: list[np.ndarray]) -> pa.DictionaryArray:
    """Dictionary-encode ids given as stretches: int32 codes into the distinct ids, in order of
    first appearance (as ``pc.dictionary_encode``); only the stretch heads are hashed."""
    enc = pc.dictionary_encode(pa.concat_arrays(heads) if len(heads) != 1 else heads[0])
    codes = np.repeat(enc.indices.to_numpy(zero_copy_only=False), np.concatenate(lengths))
    return pa.DictionaryArray.from_arrays(pa.array(codes), enc.dictionary)


def _as_codes(ids: pa.Array | pa.ChunkedArray) -> pa.DictionaryArray:
    """Ids as a DictionaryArray (codes in order of first appearance), encoding them if needed."""
    if isinstance(ids, pa.DictionaryArray):
        return ids
    heads, lengths = _stretches(ids)
    return _encode_heads([heads], [lengths])


_SORT_BLOCK = 1 << 16
"""Rows per independently sorted block of pair hashes (512 KiB of uint64: sorted in cache)."""


def _repeat_in_block(srt: np.ndarray, lo: int, hi: int) -> bool:
    """Sort ``srt[lo:hi]`` in place; True if two of its values are equal."""
    block = srt[lo:hi]
    block.sort()  # numpy releases the GIL: blocks are sorted side by side
    return bool(np.any(block[1:] == block[:-1]))


def _sorted_hashes(pairs: np.ndarray, qcodes: np.ndarray) -> tuple[np.ndarray, np.ndarray, bool]:
    """(``pairs`` sorted in independent blocks, the block starts other than 0, whether a block
    holds two equal values).

    When every query's rows are contiguous (runs list each query's documents together), the
    rows are cut between queries into blocks of about :data:`_SORT_BLOCK` rows: a repeated
    (query, document) pair lies within one block, so each block is sorted alone. The blocks are
    sorted on every pyarrow CPU thread (at most 8), or inline inside :func:`one_thread`. Measured
    on 1.5 million pair hashes (numpy 2.4, pandas 3.1, 2 cores): 30 ms in one thread, where one
    sort of all rows took 45-60 ms and a hash table (pandas ``duplicated``) 230-270 ms. Otherwise
    (a run whose queries are interleaved) one sort of all rows.
    """
    srt = pairs.copy()
    n = len(srt)
    cuts = np.flatnonzero(qcodes[1:] != qcodes[:-1]) + 1  # where a stretch of one query starts
    if n <= _SORT_BLOCK or len(cuts) + 1 != int(qcodes.max()) + 1:
        return srt, np.zeros(0, dtype=np.int64), _repeat_in_block(srt, 0, n)
    want = np.arange(_SORT_BLOCK, n, _SORT_BLOCK)
    bounds = (np.unique(cuts[np.minimum(np.searchsorted(cuts, want), len(cuts) - 1)])
              if len(cuts) else cuts)
    edges = np.r_[0, bounds, n]
    workers = min(pa.cpu_count(), 8, len(edges) - 1)
    with helper_pool(workers) as pool:
        found = any(list(pool.map(_repeat_in_block, [srt] * (len(edges) - 1), edges[:-1].tolist(),
                                  edges[1:].tolist())))
    return srt, bounds, found


def _duplicate_pair(qcodes: np.ndarray, docs: pa.Array | pa.ChunkedArray,
                    pairs: np.ndarray) -> tuple[int, int] | None:
    """Rows (first, second) of the first repeated (query, document) pair, or None.

    Repeated pair hashes (:func:`pair_hash`) are found by sorting them (:func:`_sorted_hashes`);
    rows sharing a hash are then compared exactly, so a hash collision can never produce a false
    error.
    """
    if len(qcodes) < 2:
        return None
    srt, bounds, found = _sorted_hashes(pairs, qcodes)
    if not found:
        return None
    eq = srt[1:] == srt[:-1]
    eq[bounds - 1] = False  # neighbours across a block boundary belong to different queries
    shared = np.unique(srt[1:][eq])
    del srt
    rows = np.flatnonzero(np.isin(pairs, shared))
    seen: dict[tuple[int, str], int] = {}
    for row, qc, doc in zip(rows.tolist(), qcodes[rows].tolist(),
                            take_rows(docs, rows).to_pylist(), strict=True):
        prev = seen.setdefault((qc, doc), row)
        if prev != row:
            return prev, row
    return None
