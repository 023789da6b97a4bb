"""Pairing data access: a tidy score table aligned, one dataset × metric at a time, into an
items × systems matrix, and the pairs of systems to test.

Shared by :mod:`ranger_eval.comparison` (the engine of ``compare`` and of rank intervals) and
:mod:`ranger_eval.lazy` (the pairs of a scanned group). A documented internal API of the package
(names without an underscore, no stability promise to users):

* :func:`align_groups` → one :class:`Group` per dataset × metric (datasets in order, metrics in
  order of appearance): the sorted union of item ids, ``matrix[i, j]`` the seed-averaged value
  of system ``i`` on item ``j`` (NaN and ``present`` False when absent), the systems' means
  (:func:`ranger_eval.stats._scale.mean`, no overflow near ±1.8e308), whether each system's values
  are all 0/1, and per system the number of seeds and the SD (ddof=1) of the per-seed means
  (:func:`per_seed_sd`);
* :func:`block_layout` → the runs ("blocks") of one dataset, metric and system of a tidy table
  and their item lists, encoded by Arrow from the block heads (``None`` when the table is not in
  blocks of at least :data:`MIN_BLOCK_ROWS` rows on average);
* :func:`factorize` → ``pd.factorize`` of a string column, by Arrow when the column is
  Arrow-backed (the same codes and uniques);
* :func:`system_pairs` / :func:`group_pairs` → the pairs to test: ``"all"`` (given order),
  ``"baseline"`` (each other system vs the baseline), ``"successive"`` (by mean, highest first,
  ties in the given order) or an explicit list;
* :func:`select_systems`, :func:`scores_table`, :func:`is_arrow_strings`, :func:`arrow_array`,
  :func:`is_binary`.

Errors are :class:`~ranger_eval.errors.CompareError` naming the dataset, metric and systems.
"""
from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from .errors import CompareError, Hint
from .scores import Scores, seed_imbalance
from .stats import _scale
from .stats._scale import mean as _mean

__all__ = [
    "MIN_BLOCK_ROWS",
    "Group",
    "align_groups",
    "arrow_array",
    "block_layout",
    "factorize",
    "group_pairs",
    "is_arrow_strings",
    "is_binary",
    "per_seed_sd",
    "scores_table",
    "select_systems",
    "system_pairs",
]


def per_seed_sd(per_seed: np.ndarray) -> float:
    """SD (ddof=1) of a system's per-seed means, NaN for one seed; computed on the values times
    a power of two (:func:`ranger_eval.stats._scale.std`) so it neither under- nor overflows at
    1e±300.

    Parameters
    ----------
    per_seed : numpy.ndarray
        One mean per seed.

    Returns
    -------
    float
        The sample standard deviation, NaN for fewer than two seeds.

    Examples
    --------
    >>> import numpy as np
    >>> from ranger_eval.pairing import per_seed_sd
    >>> round(per_seed_sd(np.array([0.7, 0.8, 0.9])), 6), per_seed_sd(np.array([0.7]))
    (0.1, nan)
    """
    if per_seed.size < 2:
        return math.nan

    return _scale.std(per_seed)


# --------------------------------------------------------------------------- data access
def select_systems(scores: Scores, here: set[str], systems: Sequence[str] | None,
                    where: str, *, order: Sequence[str] | None = None) -> list[str]:
    """The systems to compare on one dataset (× metric): ``systems`` if given (all must have
    scores there), else those present, in ``scores`` order (``order``: ``scores.systems``
    when the caller already has it); at least two.

    Parameters
    ----------
    scores : Scores
        The scores; their system order is the default order.
    here : set of str
        The systems with scores on this dataset (× metric).
    systems : sequence of str or None
        The systems asked for, in the order wanted; None for all present.
    where : str
        The dataset (and metric) for the error messages, e.g. ``"dataset 'qa'"``.
    order : sequence of str, optional
        ``scores.systems``, when the caller has it already.

    Returns
    -------
    list of str
        The systems to compare, at least two.

    Raises
    ------
    CompareError
        A requested system without scores here, or fewer than two systems.

    Examples
    --------
    >>> from ranger_eval import Scores
    >>> from ranger_eval.pairing import select_systems
    >>> scores = Scores.from_arrays({"qa": {"a": [0.8, 0.6], "b": [0.7, 0.6], "c": [0.5, 0.5]}})
    >>> select_systems(scores, {"a", "b", "c"}, None, "dataset 'qa'")
    ['a', 'b', 'c']
    >>> select_systems(scores, {"a", "b"}, ["a", "c"], "dataset 'qa'")
    Traceback (most recent call last):
    ...
    ranger_eval.errors.CompareError: dataset 'qa': no scores for system(s) 'c'; systems there: 'a', 'b'
    """
    present = [s for s in (scores.systems if order is None else order) if s in here]
    if systems is not None:
        absent = [s for s in systems if s not in present]
        if absent:
            raise CompareError(
                f"{where}: no scores for system(s) {', '.join(map(repr, absent))}; "
                f"systems there: {', '.join(map(repr, present))}"
            )
        names = list(systems)
    else:
        names = present
    if len(names) < 2:
        raise CompareError(
            f"{where}: need at least two systems to compare, found only "
            f"{', '.join(map(repr, names))}"
        )
    return names


@dataclass(frozen=True)
class Group:
    """The systems of one dataset × metric, aligned once into an items × systems matrix.

    ``items`` is the sorted union of the systems' item ids; ``matrix[i, j]`` the seed-averaged
    value of system ``names[i]`` on ``items[j]`` (NaN when absent, ``present`` False).
    """

    dataset: str
    metric: str
    names: tuple[str, ...]
    items: np.ndarray
    matrix: np.ndarray
    present: np.ndarray
    seed_sd: dict[str, float]
    n_seeds: dict[str, int]
    complete: bool = True
    means: tuple[float, ...] = ()
    binary: tuple[bool, ...] = ()

    def __post_init__(self) -> None:
        """Each system's mean and whether its values are all 0/1, on its own items (computed
        once: every pair, mean row and test choice reads them)."""
        object.__setattr__(self, "_position", {s: i for i, s in enumerate(self.names)})
        rows = [self.row(s) for s in self.names]

        object.__setattr__(self, "means", tuple(_mean(r) for r in rows))
        object.__setattr__(self, "binary", tuple(is_binary(r) for r in rows))

    def index(self, system: str) -> int:
        """Row of ``system`` in :attr:`matrix` (ValueError for a system not in the group)."""
        try:
            return int(self._position[system])  # type: ignore[attr-defined]
        except KeyError:
            raise ValueError(f"{system!r} is not a system of this group") from None

    def row(self, system: str) -> np.ndarray:
        """The system's values on its own items, in item order (a view when complete)."""
        i = self.index(system)
        return self.matrix[i] if self.complete else self.matrix[i, self.present[i]]

    def mean(self, system: str) -> float:
        """Mean of the system's values on its own items (computed once, without overflow)."""
        return self.means[self.index(system)]


def scores_table(scores: Scores) -> pd.DataFrame:
    """The scores' tidy table for reading (``Scores.frame`` returns a copy; the engine only
    reads, so it uses the stored table, ``Scores.table``, when there is one).

    Parameters
    ----------
    scores : Scores
        The scores.

    Returns
    -------
    pandas.DataFrame
        One row per dataset × system × metric × item (× seed); not to be modified.

    Examples
    --------
    >>> from ranger_eval import Scores
    >>> from ranger_eval.pairing import scores_table
    >>> table = scores_table(Scores.from_arrays({"qa": {"a": [0.8, 0.6], "b": [0.7, 0.6]}}))
    >>> table.columns.tolist(), len(table)
    (['dataset', 'system', 'metric', 'item', 'value'], 4)
    """
    df = getattr(scores, "table", None)
    return df if isinstance(df, pd.DataFrame) else scores.frame


def is_arrow_strings(column: pd.Series) -> bool:
    """The column holds pyarrow-backed strings (how Scores stores identifiers).

    Parameters
    ----------
    column : pandas.Series
        Any column.

    Returns
    -------
    bool
        True for a ``pd.StringDtype`` column with ``storage="pyarrow"``.

    Examples
    --------
    >>> import pandas as pd
    >>> from ranger_eval import Scores
    >>> from ranger_eval.pairing import is_arrow_strings, scores_table
    >>> table = scores_table(Scores.from_arrays({"qa": {"a": [0.8, 0.6], "b": [0.7, 0.6]}}))
    >>> is_arrow_strings(table["system"]), is_arrow_strings(table["value"])
    (True, False)
    """
    dtype = column.dtype
    return isinstance(dtype, pd.StringDtype) and getattr(dtype, "storage", None) == "pyarrow"


def arrow_array(column: pd.Series) -> Any:
    """The pyarrow array behind an Arrow-backed string column (no copy when it is one chunk).

    Parameters
    ----------
    column : pandas.Series
        A column for which :func:`is_arrow_strings` is True.

    Returns
    -------
    pyarrow.Array
        The column's values as one Arrow array (chunks combined when there are several).

    Examples
    --------
    >>> from ranger_eval import Scores
    >>> from ranger_eval.pairing import arrow_array, scores_table
    >>> table = scores_table(Scores.from_arrays({"qa": {"a": [0.8, 0.6], "b": [0.7, 0.6]}}))
    >>> arrow_array(table["system"]).to_pylist()
    ['a', 'a', 'b', 'b']
    """
    import pyarrow as pa

    chunked = pa.chunked_array(column)
    return chunked.chunk(0) if chunked.num_chunks == 1 else chunked.combine_chunks()


def factorize(column: pd.Series, sort: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """``pd.factorize(column, sort=sort)`` of a string column: int64 codes and an object array
    of the distinct values (in order of first appearance, or sorted by code point).

    Arrow-backed columns (Scores stores identifiers as pyarrow strings) are encoded by Arrow:
    a column made of long runs of one value (dataset, metric, system of a tidy table) by its
    run heads (one vectorised comparison of neighbours), others by ``dictionary_encode``; about
    5x faster than hashing every row again. Other columns go through ``pd.factorize``.

    Parameters
    ----------
    column : pandas.Series
        A string column.
    sort : bool, default False
        Number the distinct values in sorted order instead of order of first appearance.

    Returns
    -------
    codes : numpy.ndarray
        int64, one per row.
    uniques : numpy.ndarray
        object, the distinct values; ``uniques[codes]`` is the column.

    Examples
    --------
    >>> import pandas as pd
    >>> from ranger_eval.pairing import factorize
    >>> codes, uniques = factorize(pd.Series(["b", "a", "b", "c"]))
    >>> codes.tolist(), uniques.tolist()
    ([0, 1, 0, 2], ['b', 'a', 'c'])
    >>> factorize(pd.Series(["b", "a", "b", "c"]), sort=True)[0].tolist()
    [1, 0, 1, 2]
    """
    if not is_arrow_strings(column):
        pd_codes, uniques = pd.factorize(column, sort=sort)
        return pd_codes.astype(np.int64, copy=False), np.asarray(uniques, dtype=object)
    import pyarrow as pa
    import pyarrow.compute as pc

    arr = arrow_array(column)
    size = len(arr)
    codes: np.ndarray
    if size > 1:
        change = pc.not_equal(arr.slice(1), arr.slice(0, size - 1))
        starts = np.flatnonzero(np.r_[True, change.to_numpy(zero_copy_only=False)])
    else:
        starts = np.zeros(size, dtype=np.intp)
    if starts.size * 8 <= size:  # runs: encode the run heads, repeat their codes
        heads = arr.take(pa.array(starts)).dictionary_encode()
        codes = np.repeat(heads.indices.to_numpy(zero_copy_only=False).astype(np.int64),
                          np.diff(np.r_[starts, size]))
        dictionary = heads.dictionary
    else:
        enc = arr.dictionary_encode()
        codes = enc.indices.to_numpy(zero_copy_only=False).astype(np.int64)
        dictionary = enc.dictionary
    if sort:
        perm = pc.array_sort_indices(dictionary).to_numpy()  # UTF-8 byte order = code points
        rank = np.empty(perm.size, dtype=np.int64)
        rank[perm] = np.arange(perm.size)
        codes = rank[codes]
        dictionary = dictionary.take(pa.array(perm))
    return codes, np.asarray(dictionary.to_numpy(zero_copy_only=False), dtype=object)


def align_groups(
    scores: Scores, systems: Sequence[str] | None, seeds: str = "allow-unbalanced",
    layout: tuple[Any, ...] | None | bool = True,
) -> list[Group]:
    """One :class:`Group` per dataset × metric (datasets in order, then metrics in order of
    appearance), built from integer codes of the identifiers: item ids are factorised once,
    sorted, so columns are in item-id order, and seeds are averaged per system × item.

    Tidy tables usually come in blocks: runs of rows of one dataset, metric and system, most
    listing the same items in the same order. Then (:func:`block_layout`) only the run heads
    and one copy of each item list are encoded and the matrix is filled block by block;
    otherwise every row is encoded (:func:`_groups_by_rows`). Both give the same groups.
    ``layout``: the table's :func:`block_layout` when the caller has it.

    Parameters
    ----------
    scores : Scores
        The scores to align.
    systems : sequence of str or None
        The systems to keep on every dataset (see :func:`select_systems`); None for all present.
    seeds : {"allow-unbalanced", "balanced"}, default "allow-unbalanced"
        Whether systems with different numbers of seeds per item are accepted (their seeds are
        averaged per item) or refused.
    layout : tuple or None or True, default True
        The table's :func:`block_layout` (None: not in blocks); True computes it here.

    Returns
    -------
    list of Group
        One per dataset × metric; empty for empty scores.

    Raises
    ------
    CompareError
        A requested system without scores, fewer than two systems, or unbalanced seeds when
        they are refused.

    Examples
    --------
    >>> from ranger_eval import Scores
    >>> from ranger_eval.pairing import align_groups
    >>> scores = Scores.from_arrays({"qa": {"a": [0.8, 0.6, 0.9], "b": [0.7, 0.6, 0.8]}})
    >>> [group] = align_groups(scores, None)
    >>> group.dataset, group.metric, group.names, group.items.tolist()
    ('qa', 'score', ('a', 'b'), ['1', '2', '3'])
    >>> group.matrix.tolist()
    [[0.8, 0.6, 0.9], [0.7, 0.6, 0.8]]
    """
    df = scores_table(scores)
    if df.empty:
        return []
    if layout is True:  # not computed by the caller (``layout`` is this table's, or None)
        layout = block_layout(df)
    if not isinstance(layout, tuple):
        return _groups_by_rows(scores, systems, seeds)
    starts, ends, ds_b, met_b, sys_b, pattern_b, pattern_codes, names_of, items_all = layout
    ds_names, met_names, sys_list = names_of
    values = df["value"].to_numpy(np.float64)
    seed_col = df["seed"].to_numpy(dtype=object) if scores.has_seeds else None
    n_met = len(met_names)
    key = ds_b * n_met + met_b
    first_block: dict[int, int] = {}
    for bi, kk in enumerate(key.tolist()):
        first_block.setdefault(kk, bi)
    group_keys = sorted(first_block, key=lambda kk: (kk // n_met, first_block[kk]))
    out = []
    for kk in group_keys:
        blocks = np.flatnonzero(key == kk)  # in row order
        dataset, metric = str(ds_names[kk // n_met]), str(met_names[kk % n_met])
        here = {sys_list[c] for c in np.unique(sys_b[blocks])}
        names = select_systems(scores, here, systems,
                                f"dataset {dataset!r} (metric {metric!r})", order=sys_list)
        to_row = {sys_list.index(s): i for i, s in enumerate(names)}
        if scores.has_seeds and seeds == "balanced":
            rows_all = np.concatenate([np.arange(starts[b], ends[b]) for b in blocks])
            _check_seeds(scores, df.iloc[rows_all], dataset, metric, names)
        chosen = [int(b) for b in blocks if int(sys_b[b]) in to_row]
        seen = np.zeros(items_all.size, dtype=bool)
        for pat in {int(pattern_b[b]) for b in chosen}:
            seen[pattern_codes[pat]] = True
        uitems = np.flatnonzero(seen)  # sorted codes = item ids in sorted order
        col_of = np.cumsum(seen) - 1
        k, n_items = len(names), uitems.size
        matrix = np.full((k, n_items), np.nan)
        present = np.zeros((k, n_items), dtype=bool)
        cols = {pat: col_of[pattern_codes[pat]] for pat in {int(pattern_b[b]) for b in chosen}}
        seed_sd: dict[str, float] = {}
        n_seeds: dict[str, int] = {}
        if seed_col is None:
            for b in chosen:
                i, c = to_row[int(sys_b[b])], cols[int(pattern_b[b])]
                matrix[i, c] = values[starts[b]:ends[b]]
                present[i, c] = True
            for s in names:
                n_seeds[s] = 1
                seed_sd[s] = math.nan
        else:
            rows = np.concatenate([np.arange(starts[b], ends[b]) for b in chosen])
            srow = np.concatenate([np.full(ends[b] - starts[b], to_row[int(sys_b[b])])
                                   for b in chosen])
            col = np.concatenate([cols[int(pattern_b[b])] for b in chosen])
            present[srow, col] = True
            _average_seeds(matrix, present, values[rows], srow, col, seed_col[rows], names,
                           seed_sd, n_seeds)
        out.append(Group(dataset, metric, tuple(names), items_all[uitems], matrix, present,
                          seed_sd, n_seeds, bool(present.all())))
    return out


def _average_seeds(
    matrix: np.ndarray, present: np.ndarray, values: np.ndarray, srow: np.ndarray,
    col: np.ndarray, seeds_here: np.ndarray, names: Sequence[str],
    seed_sd: dict[str, float], n_seeds: dict[str, int],
) -> None:
    """Fill ``matrix`` with the per system × item mean over seeds (pandas' group mean,
    compensated sum in row order, as a per-system groupby did) and the per-system seed
    counts and SD of the per-seed mean scores."""
    n_items = matrix.shape[1]
    flat = srow * n_items + col
    m = pd.Series(values).groupby(flat, sort=True).mean()
    matrix.reshape(-1)[m.index.to_numpy()] = m.to_numpy()
    for i, s in enumerate(names):
        mine = srow == i
        per_seed = pd.Series(values[mine]).groupby(seeds_here[mine], sort=True).mean()
        n_seeds[s] = int(per_seed.size)
        seed_sd[s] = per_seed_sd(per_seed.to_numpy(dtype=float))


#: :func:`block_layout` needs this many rows per block on average (else rows are encoded).
MIN_BLOCK_ROWS = 64


def block_layout(df: pd.DataFrame) -> tuple[Any, ...] | None:
    """Blocks of a tidy table: maximal runs of rows with one dataset, metric and system
    (``starts``, ``ends``, their codes), each block's item list as one of a few distinct
    patterns (a block whose items equal, in order, those of the last block of the same length
    that started a pattern reuses its codes; Arrow compares the strings), and the pattern's
    sorted item codes. ``None`` when the identifiers are not Arrow strings or the rows are not
    in blocks (fewer than :data:`MIN_BLOCK_ROWS` rows per block).

    Parameters
    ----------
    df : pandas.DataFrame
        A tidy scores table (:func:`scores_table`).

    Returns
    -------
    tuple or None
        ``(starts, ends, dataset_codes, metric_codes, system_codes, pattern_of_block,
        pattern_item_codes, (dataset_names, metric_names, system_names), items)``, as
        :func:`align_groups` reads it; None when the table is not in blocks.

    Examples
    --------
    >>> from ranger_eval import Scores
    >>> from ranger_eval.pairing import block_layout, scores_table
    >>> scores = Scores.from_arrays({"qa": {"a": [i % 2 for i in range(100)],
    ...                                     "b": [i % 3 == 0 for i in range(100)]}})
    >>> layout = block_layout(scores_table(scores))
    >>> layout[0].tolist(), layout[1].tolist(), layout[5].tolist()  # starts, ends, patterns
    ([0, 100], [100, 200], [0, 0])
    >>> small = Scores.from_arrays({"qa": {"a": [0.8, 0.6], "b": [0.7, 0.6]}})
    >>> block_layout(scores_table(small)) is None  # 2 rows per block: not worth it
    True
    """
    cols = ("dataset", "metric", "system", "item")
    if not all(is_arrow_strings(df[c]) for c in cols):
        return None
    import pyarrow as pa
    import pyarrow.compute as pc

    size = len(df)
    arrs = {c: arrow_array(df[c]) for c in cols}
    starts = np.zeros(1, dtype=np.int64)
    if size > 1:
        def neighbours_differ(a: Any) -> Any:
            return pc.not_equal(a.slice(1), a.slice(0, size - 1))

        if size >= 1 << 20:  # Arrow releases the GIL: the three columns on two threads
            from concurrent.futures import ThreadPoolExecutor

            with ThreadPoolExecutor(2) as pool:
                differ = list(pool.map(neighbours_differ, [arrs[c] for c in cols[:3]]))
        else:
            differ = [neighbours_differ(arrs[c]) for c in cols[:3]]
        change = pc.or_(pc.or_(differ[0], differ[1]), differ[2])
        starts = np.r_[starts, pc.indices_nonzero(change).to_numpy().astype(np.int64) + 1]
    if starts.size * MIN_BLOCK_ROWS > size:
        return None
    ends = np.r_[starts[1:], size]
    heads = pa.array(starts)
    codes, names = [], []
    for c in cols[:3]:
        enc = arrs[c].take(heads).dictionary_encode()
        codes.append(enc.indices.to_numpy(zero_copy_only=False).astype(np.int64))
        names.append([str(x) for x in enc.dictionary.to_pylist()])
    items = arrs["item"]
    lengths_b = ends - starts
    # same_as_previous[b]: block b lists the items of block b - 1, in order (one shifted
    # comparison of the whole column per distinct block length, mismatches counted by cumsum)
    same_as_previous = np.zeros(starts.size, dtype=bool)
    for length in np.unique(lengths_b).tolist():
        follow = np.flatnonzero((lengths_b == length) & np.r_[False, lengths_b[:-1] == length])
        if not follow.size:
            continue
        mismatch = pc.indices_nonzero(pc.not_equal(items.slice(length), items.slice(
            0, size - length))).to_numpy().astype(np.int64)  # item[p] != item[p + length]
        prev = starts[follow] - length  # the previous block, of the same length
        same_as_previous[follow] = (np.searchsorted(mismatch, prev)
                                    == np.searchsorted(mismatch, prev + length))
    pattern_b = np.empty(starts.size, dtype=np.int64)
    pattern_start: list[int] = []
    last_of_length: dict[int, int] = {}
    for b, (a0, a1) in enumerate(zip(starts.tolist(), ends.tolist(), strict=True)):
        length = a1 - a0
        if same_as_previous[b]:
            pattern_b[b] = pattern_b[b - 1]
            continue
        pat = last_of_length.get(length)
        if pat is not None:
            ref = pattern_start[pat]
            if pc.all(pc.equal(items.slice(a0, length), items.slice(ref, length))).as_py():
                pattern_b[b] = pat
                continue
        pattern_b[b] = len(pattern_start)
        last_of_length[length] = len(pattern_start)
        pattern_start.append(a0)
    lengths = [int(ends[b] - starts[b]) for b in
               np.unique(pattern_b, return_index=True)[1]]  # first block of each pattern
    joined = pa.concat_arrays([items.slice(a0, n) for a0, n in
                               zip(pattern_start, lengths, strict=True)])
    enc = joined.dictionary_encode()
    perm = pc.array_sort_indices(enc.dictionary).to_numpy()  # UTF-8 byte order = code points
    rank = np.empty(perm.size, dtype=np.int64)
    rank[perm] = np.arange(perm.size)
    all_codes = rank[enc.indices.to_numpy(zero_copy_only=False)]
    bounds = np.cumsum([0, *lengths])
    pattern_codes = [all_codes[bounds[p]:bounds[p + 1]] for p in range(len(lengths))]
    items_all = np.asarray(enc.dictionary.take(pa.array(perm)).to_numpy(zero_copy_only=False),
                           dtype=object)
    return (starts, ends, codes[0], codes[1], codes[2], pattern_b, pattern_codes,
            (names[0], names[1], names[2]), items_all)


def _groups_by_rows(
    scores: Scores, systems: Sequence[str] | None, seeds: str = "allow-unbalanced"
) -> list[Group]:
    """:func:`align_groups` from per-row integer codes of the identifiers (any row order)."""
    df = scores_table(scores)
    ds_codes, ds_names = factorize(df["dataset"])
    met_codes, met_names = factorize(df["metric"])
    sys_codes, sys_names = factorize(df["system"])
    item_codes, items_all = factorize(df["item"], sort=True)
    sys_list = [str(s) for s in sys_names]
    values = df["value"].to_numpy(np.float64)
    seed_col = df["seed"].to_numpy(dtype=object) if scores.has_seeds else None
    n_met = len(met_names)
    key = ds_codes * n_met + met_codes
    in_blocks = bool(np.all(key[1:] >= key[:-1]))  # rows already grouped: slices, no gathers
    order = np.arange(key.size) if in_blocks else np.argsort(key, kind="stable")
    skey = key if in_blocks else key[order]
    starts = np.flatnonzero(np.r_[True, skey[1:] != skey[:-1]])
    ends = np.r_[starts[1:], skey.size]
    group_ds = skey[starts] // n_met
    sequence = np.lexsort((order[starts], group_ds))  # dataset order, then first appearance
    out = []
    for gi in sequence:
        # the group's rows in original row order (stable sort): a slice when contiguous
        rows_all: slice | np.ndarray = (slice(int(starts[gi]), int(ends[gi])) if in_blocks
                                        else order[starts[gi]:ends[gi]])
        dataset = str(ds_names[group_ds[gi]])
        metric = str(met_names[skey[starts[gi]] % n_met])
        here = {sys_list[c] for c in
                np.flatnonzero(np.bincount(sys_codes[rows_all], minlength=len(sys_list)))}
        names = select_systems(scores, here, systems,
                                f"dataset {dataset!r} (metric {metric!r})", order=sys_list)
        if scores.has_seeds and seeds == "balanced":
            _check_seeds(scores, df.iloc[rows_all], dataset, metric, names)
        to_row = np.full(len(sys_list), -1, dtype=np.int64)
        for i, s in enumerate(names):
            to_row[sys_list.index(s)] = i
        srow = to_row[sys_codes[rows_all]]
        rows: slice | np.ndarray = rows_all
        if not (srow >= 0).all():
            keep = srow >= 0
            rows = (np.arange(rows_all.start, rows_all.stop)[keep]
                    if isinstance(rows_all, slice) else rows_all[keep])
            srow = srow[keep]
        codes = item_codes[rows]
        seen = np.zeros(items_all.size, dtype=bool)
        seen[codes] = True
        uitems = np.flatnonzero(seen)  # sorted codes = item ids in sorted order
        col = (np.cumsum(seen) - 1)[codes]
        k, n_items = len(names), uitems.size
        matrix = np.full((k, n_items), np.nan)
        present = np.zeros((k, n_items), dtype=bool)
        present[srow, col] = True
        seed_sd: dict[str, float] = {}
        n_seeds: dict[str, int] = {}
        if seed_col is None:
            matrix[srow, col] = values[rows]
            for s in names:
                n_seeds[s] = 1
                seed_sd[s] = math.nan
        else:
            # pandas' group mean (compensated sum in row order), as a per-system groupby did
            flat = srow * n_items + col
            m = pd.Series(values[rows]).groupby(flat, sort=True).mean()
            matrix.reshape(-1)[m.index.to_numpy()] = m.to_numpy()
            seeds_here = seed_col[rows]
            for i, s in enumerate(names):
                mine = srow == i
                per_seed = pd.Series(values[rows][mine]).groupby(seeds_here[mine], sort=True).mean()
                n_seeds[s] = int(per_seed.size)
                seed_sd[s] = per_seed_sd(per_seed.to_numpy(dtype=float))
        out.append(Group(dataset, metric, tuple(names), items_all[uitems], matrix, present,
                          seed_sd, n_seeds, bool(present.all())))
    return out


def _check_seeds(
    scores: Scores, g: pd.DataFrame, dataset: str, metric: str, names: Sequence[str]
) -> None:
    """CompareError when the systems' seeds are unbalanced (``seeds="balanced"``)."""
    sub = g[g["system"].isin(list(names))]
    per = sub.groupby("system", sort=False).agg(
        n_seeds=("seed", "nunique"), n_items=("item", "nunique"), rows=("value", "size")
    )
    complete = bool((per["rows"] == per["n_seeds"] * per["n_items"]).all())
    if per["n_seeds"].nunique() <= 1 and complete:
        return
    problem = seed_imbalance([scores.runs(dataset, s, metric) for s in names])
    hint = Hint("seeds", "allow-unbalanced")
    raise CompareError(
        f"dataset {dataset!r} (metric {metric!r}): unbalanced seeds: {problem}; {hint.text} to "
        "average each system's seeds per item anyway", hints=[hint]
    )


def group_pairs(
    group: Group, order: str | Sequence[tuple[str, str]], baseline: str | None
) -> list[tuple[str, str]]:
    """:func:`system_pairs` of a :class:`Group` (its systems, their means, its dataset and
    metric for the error messages).

    Parameters
    ----------
    group : Group
        The aligned systems of one dataset × metric.
    order : {"all", "successive", "baseline"} or sequence of (str, str)
        Which pairs, as for :func:`system_pairs`.
    baseline : str or None
        The system every other one is compared with, for ``order="baseline"``.

    Returns
    -------
    list of (str, str)
        The pairs to test.

    Raises
    ------
    CompareError
        A given pair that is not two known, different systems; a baseline without scores.

    Examples
    --------
    >>> from ranger_eval import Scores
    >>> from ranger_eval.pairing import align_groups, group_pairs
    >>> scores = Scores.from_arrays({"qa": {"a": [0.8, 0.6], "b": [0.7, 0.6], "c": [0.5, 0.5]}})
    >>> [group] = align_groups(scores, None)
    >>> group_pairs(group, "successive", None)
    [('a', 'b'), ('b', 'c')]
    >>> group_pairs(group, "baseline", "c")
    [('a', 'c'), ('b', 'c')]
    """
    means = {s: group.mean(s) for s in group.names}
    return system_pairs(list(group.names), means, group.dataset, group.metric, order, baseline)


def system_pairs(
    names: list[str],
    means: dict[str, float],
    dataset: str,
    metric: str,
    order: str | Sequence[tuple[str, str]],
    baseline: str | None,
) -> list[tuple[str, str]]:
    """The pairs to test among ``names`` (``means`` orders the ``"successive"`` pairs).

    Parameters
    ----------
    names : list of str
        The systems compared on this dataset × metric, in table order.
    means : dict of {str: float}
        Each system's mean (orders ``"successive"``; its keys are the known systems).
    dataset, metric : str
        Named in the messages.
    order : {"all", "baseline", "successive"} or sequence of (str, str)
        Every pair in table order; each system against ``baseline``; neighbours by mean,
        highest first (ties keep the given order); or these pairs.
    baseline : str or None
        The baseline of ``order="baseline"``.

    Returns
    -------
    list of (str, str)
        The (system A, system B) pairs.

    Raises
    ------
    CompareError
        A given pair that is not two known, different systems; a baseline without scores.

    Examples
    --------
    >>> from ranger_eval.pairing import system_pairs
    >>> means = {"a": 0.9, "b": 0.7, "c": 0.8}
    >>> system_pairs(["a", "b", "c"], means, "qa", "score", "all", None)
    [('a', 'b'), ('a', 'c'), ('b', 'c')]
    >>> system_pairs(["a", "b", "c"], means, "qa", "score", "successive", None)
    [('a', 'c'), ('c', 'b')]
    >>> system_pairs(["a", "b", "c"], means, "qa", "score", "baseline", "c")
    [('a', 'c'), ('b', 'c')]
    """
    if not isinstance(order, str):
        pairs = []
        for pair in order:
            if len(pair) != 2:
                raise CompareError(f"pairs: each pair needs two system names, got {pair!r}")
            a, b = str(pair[0]), str(pair[1])
            for s in (a, b):
                if s not in means:
                    raise CompareError(
                        f"pairs: unknown system {s!r} on dataset {dataset!r} "
                        f"(metric {metric!r}); systems: {', '.join(map(repr, names))}"
                    )
            if a == b:
                raise CompareError(f"pairs: cannot compare {a!r} with itself")
            pairs.append((a, b))
        return pairs
    if order == "all":
        return list(itertools.combinations(names, 2))
    if order == "baseline":
        assert baseline is not None
        if baseline not in means:
            raise CompareError(
                f"baseline {baseline!r} has no scores on dataset {dataset!r} "
                f"(metric {metric!r}); systems: {', '.join(map(repr, names))}"
            )
        return [(s, baseline) for s in names if s != baseline]
    # successive: by mean, highest first; ties keep the given order (stable sort)
    m = np.array([means[s] for s in names])
    ranked = [names[i] for i in np.argsort(-m, kind="stable")]
    return list(itertools.pairwise(ranked))


def is_binary(v: np.ndarray) -> bool:
    """Every value is exactly 0 or 1 (McNemar's test and the two-proportion z-test apply).

    Parameters
    ----------
    v : numpy.ndarray
        Scores.

    Returns
    -------
    bool

    Examples
    --------
    >>> import numpy as np
    >>> from ranger_eval.pairing import is_binary
    >>> is_binary(np.array([0.0, 1.0, 1.0])), is_binary(np.array([0.0, 0.5]))
    (True, False)
    """
    return bool(np.all((v == 0.0) | (v == 1.0)))
