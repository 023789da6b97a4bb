"""Per-group sufficient statistics in numpy: one dataset × metric as a systems × items matrix.

A group's rows (system, item, value) arrive as Arrow/numpy columns from one DuckDB scan. They are
paired in numpy rather than by a SQL pivot (``benchmarks/large_scores_bench.py``: the pivot's
hash aggregation over every item dominated the run time):

1. items are dictionary-encoded (``pyarrow.compute.dictionary_encode``, hash-based) to codes
   0..N−1; when every system lists the *same* items in the *same* order (the usual layout of
   evaluation outputs) only the first system is encoded and the others are compared with it;
2. duplicate (system, item) keys are found with one ``np.bincount`` of system·N + code;
3. the values are scattered into an S × N float64 matrix ``X`` with a presence mask (``None``
   when every system scored every item);
4. per system and per pair of systems the statistics of :mod:`ranger_eval.lazy._stats` are
   formed with column operations: for a pair (a, b) over the items both scored, d = a − b,
   n, Σd, M2_d = Σ(d − d̄)² (two-pass, centred), min d, max d, Σ|d|, and the paired-item sums
   and centred moments of a and b with the co-moment C_ab = Σ(a − ā)(b − b̄) (for systems that
   scored every item, from rows centred once). Sums are numpy's pairwise sums, not BLAS dot
   products: OpenBLAS's threads spin on a busy machine (measured 100× slower under load).

The two-pass centred sums are at least as accurate as the streaming (Welford) aggregates of the
SQL engines (Chan, Golub & LeVeque 1983, "Algorithms for computing the sample variance").
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["GroupStatistics", "encode_items", "group_statistics", "matrix_from_codes"]

#: Order of the per-system statistics in :attr:`GroupStatistics.own` (see ``_stats.SYSTEM_FIELDS``).
OWN_FIELDS: tuple[str, ...] = ("n", "sum", "m2", "min", "max", "nonbinary")
#: Per-pair fields of :attr:`GroupStatistics.pair`.
PAIR_FIELDS: tuple[str, ...] = ("n", "sum_d", "m2_d", "min_d", "max_d", "sum_abs_d", "sum_pa",
                                "sum_pb", "m2_pa", "m2_pb", "m2_ab")


@dataclass(frozen=True)
class GroupStatistics:
    """Statistics of one dataset × metric: ``own[f][s]`` per system and ``pair[f][a, b]`` per
    ordered pair (a ≠ b; d = a − b; the diagonal is unused), systems in :attr:`systems` order."""

    systems: tuple[str, ...]
    own: dict[str, np.ndarray]
    pair: dict[str, np.ndarray]

    def index(self, system: str) -> int:
        return self.systems.index(system)


def encode_items(items: object) -> tuple[np.ndarray, int]:
    """Codes 0..N−1 (order of first appearance) of a string Arrow array or chunked array, and N."""
    import pyarrow as pa
    import pyarrow.compute as pc

    enc = pc.dictionary_encode(items)
    if isinstance(enc, pa.ChunkedArray):
        # dictionary_encode on a chunked array unifies the dictionary across chunks
        n_items = len(enc.chunk(0).dictionary) if enc.num_chunks else 0
        codes = (np.concatenate([c.indices.to_numpy(zero_copy_only=False) for c in enc.chunks])
                 if enc.num_chunks else np.empty(0, np.int32))
    else:
        n_items = len(enc.dictionary)
        codes = enc.indices.to_numpy(zero_copy_only=False)
    return codes.astype(np.int64, copy=False), n_items


def matrix_from_codes(n_systems: int, n_items: int, system_codes: np.ndarray,
                      item_codes: np.ndarray, values: np.ndarray,
                      seed_codes: np.ndarray | None = None, n_seeds: int = 0
                      ) -> tuple[np.ndarray, np.ndarray | None, bool]:
    """The S × N value matrix, its presence mask (``None`` if complete) and whether any
    (system, item[, seed]) key occurs more than once (then the matrix is not usable).

    With seeds, the values of one (system, item) are averaged over its seeds.
    """
    key = system_codes.astype(np.int64) * n_items + item_codes
    size = n_systems * n_items
    if seed_codes is None:
        counts = np.bincount(key, minlength=size)
        if counts.size and counts.max() > 1:
            return np.empty((0, 0)), None, True
        x = np.empty(size, dtype=np.float64)
        x[key] = values
        present = counts.astype(bool)
    else:
        key3 = key * max(n_seeds, 1) + seed_codes
        if np.unique(key3).size < key3.size:
            return np.empty((0, 0)), None, True
        counts = np.bincount(key, minlength=size)
        sums = np.bincount(key, weights=values, minlength=size)
        present = counts > 0
        x = np.zeros(size, dtype=np.float64)
        np.divide(sums, counts, out=x, where=present)
    matrix = x.reshape(n_systems, n_items)
    mask = present.reshape(n_systems, n_items)
    if mask.all():
        return matrix, None, False
    matrix[~mask] = 0.0
    return matrix, mask, False


def _centred_square(v: np.ndarray, mean: float) -> float:
    c = v - mean
    np.multiply(c, c, out=c)
    return float(np.sum(c))  # numpy's pairwise sum; BLAS dot spins its threads on a busy machine


def _co_moment(ca: np.ndarray, cb: np.ndarray) -> float:
    """Σ ca·cb with numpy's pairwise sum (not a BLAS dot: its threads spin on a busy machine)."""
    return float(np.sum(ca * cb))


def group_statistics(systems: tuple[str, ...], x: np.ndarray, present: np.ndarray | None
                     ) -> GroupStatistics:
    """Per-system and per-pair statistics of the S × N matrix ``x`` (module docstring).

    ``present[s, i]`` says whether system s scored item i (``None``: all did); absent cells are
    ignored. Every system has at least one value. Scores beyond about 1e154 in magnitude give
    second moments beyond float64 (``inf``), scores below about 1e-154 moments that underflow;
    the lazy tests recognise such groups from their min/max (``_compare._extreme``) and test them
    in memory, where they are rescaled exactly, so these float64 warnings are silenced here.
    """
    with np.errstate(over="ignore", invalid="ignore", under="ignore"):
        return _group_statistics(systems, x, present)


def _group_statistics(systems: tuple[str, ...], x: np.ndarray, present: np.ndarray | None
                      ) -> GroupStatistics:
    n_sys = len(systems)
    own = {f: np.zeros(n_sys) for f in OWN_FIELDS}
    full: np.ndarray = (np.ones(n_sys, dtype=bool) if present is None
                        else np.asarray(present.all(axis=1)))
    rows: list[np.ndarray] = []
    for s in range(n_sys):
        v = x[s] if present is None or full[s] else x[s][present[s]]
        rows.append(v)
        n = int(v.size)
        total = float(np.sum(v))
        own["n"][s] = n
        own["sum"][s] = total
        own["m2"][s] = _centred_square(v, total / n) if n else 0.0
        own["min"][s] = float(np.min(v)) if n else np.nan
        own["max"][s] = float(np.max(v)) if n else np.nan
        own["nonbinary"][s] = n - np.count_nonzero((v == 0.0) | (v == 1.0))
    # systems that scored every item: centre each row once for the co-moments
    centred: dict[int, np.ndarray] = {}
    for k in np.flatnonzero(full).tolist():
        centred[k] = x[k] - own["sum"][k] / own["n"][k]
    pair = {f: np.full((n_sys, n_sys), np.nan) for f in PAIR_FIELDS}
    buf, buf2 = np.empty(x.shape[1]), np.empty(x.shape[1])  # reused: no page faults per pair
    for a in range(n_sys):
        for b in range(a + 1, n_sys):
            both_full = bool(full[a] and full[b])
            if both_full:
                va, vb = rows[a], rows[b]
            else:
                assert present is not None
                if full[a]:
                    mask = present[b]
                elif full[b]:
                    mask = present[a]
                else:
                    mask = present[a] & present[b]
                va, vb = x[a][mask], x[b][mask]
            n = va.size
            if n == 0:
                st = dict(n=0, sum_d=0.0, m2_d=0.0, min_d=np.nan, max_d=np.nan, sum_abs_d=0.0,
                          sum_pa=0.0, sum_pb=0.0, m2_pa=0.0, m2_pb=0.0, m2_ab=0.0)
            else:
                d = np.subtract(va, vb, out=buf[:n])
                sum_d = float(np.sum(d))
                st = dict(n=n, sum_d=sum_d, min_d=float(np.min(d)), max_d=float(np.max(d)))
                c = np.subtract(d, sum_d / n, out=buf2[:n])
                st["m2_d"] = float(np.sum(np.multiply(c, c, out=c)))
                st["sum_abs_d"] = float(np.sum(np.abs(d, out=d)))
                if both_full:
                    st.update(sum_pa=own["sum"][a], sum_pb=own["sum"][b], m2_pa=own["m2"][a],
                              m2_pb=own["m2"][b], m2_ab=float(np.sum(
                                  np.multiply(centred[a], centred[b], out=buf[:n]))))
                else:
                    sa, sb = float(np.sum(va)), float(np.sum(vb))
                    ca, cb = va - sa / n, vb - sb / n
                    st.update(sum_pa=sa, sum_pb=sb, m2_pa=_co_moment(ca, ca),
                              m2_pb=_co_moment(cb, cb), m2_ab=_co_moment(ca, cb))
            for f, v in st.items():
                pair[f][a, b] = v
            # the same pair seen from b: d changes sign, a and b swap
            pair["n"][b, a] = st["n"]
            pair["sum_d"][b, a] = -st["sum_d"]
            pair["m2_d"][b, a] = st["m2_d"]
            pair["min_d"][b, a] = -st["max_d"]
            pair["max_d"][b, a] = -st["min_d"]
            pair["sum_abs_d"][b, a] = st["sum_abs_d"]
            pair["sum_pa"][b, a] = st["sum_pb"]
            pair["sum_pb"][b, a] = st["sum_pa"]
            pair["m2_pa"][b, a] = st["m2_pb"]
            pair["m2_pb"][b, a] = st["m2_pa"]
            pair["m2_ab"][b, a] = st["m2_ab"]
    return GroupStatistics(systems=tuple(systems), own=own, pair=pair)
