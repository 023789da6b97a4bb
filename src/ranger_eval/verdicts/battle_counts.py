"""Battles from per-item scores: every item a battle between every pair of systems, won by the
better score (equal scores a tie), counted as distinct (model_a, model_b, outcome) rows in one
columnar pass (:func:`battle_counts`, :func:`table_battle_counts`, :func:`battles_from_scores`);
:func:`~ranger_eval.verdicts.bradley_terry.bradley_terry` fits them."""
from __future__ import annotations

import dataclasses
import warnings
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import sparse

from ..design import refuse_prompts, resolve_design
from ..errors import Hint, VerdictError
from ..formatting import preview
from ..io.battles import Battles
from ..pairing import scores_table
from ..scores import Scores, as_scores
from ..settings import ArenaSettings, resolve_settings

__all__ = ["SOURCE_ATTR", "battle_counts", "battles_from_scores", "table_battle_counts"]

_DEFAULT = ArenaSettings()
#: what to do instead of battles from scores with prompts (a Bradley–Terry bootstrap of items
#: and prompts crossed is not implemented)
_BATTLE_INSTEAD = ("rank the systems with `rank_systems` or `rank_test` (`ranger-eval rank`: "
                   "datasets are their unit) or compare them with `compare` (`ranger-eval "
                   "compare`: the crossed random-effects test of the item × prompt "
                   "differences); for battles, select the rows of one prompt, or "
                   "average the prompts away yourself (one row per item) if they are the fixed "
                   "population of interest")
#: the attribute of a battles frame made from scores saying how (``Ratings.source``)
SOURCE_ATTR = "ranger_eval.battles"


@dataclass(frozen=True)
class _Cells:
    """Scores as a cells × systems matrix (a cell: one dataset × item, or one dataset of a
    dataset-level table), oriented so that higher is better, NaN where a system has no score;
    ``dataset``/``item`` give each cell's labels (for :func:`battles_from_scores`)."""

    systems: tuple[str, ...]
    values: np.ndarray
    dataset: np.ndarray
    item: np.ndarray
    metric: str
    source: str
    #: the design's resampling unit of every cell when it is not the cell (item) itself:
    #: int64 codes of its (dataset, cluster), and their label ``cluster(NAME)``
    units: np.ndarray | None = None
    unit: str | None = None


def _score_cells(scores: object, higher_is_better: bool, metric: str | None,
                 what: str, ordered: bool = False) -> _Cells:
    """One columnar pass over the tidy table (no loop over datasets): the Scores' integer
    codes of dataset, item and system; cells = distinct dataset × item (``ordered``: in
    dataset order, then item id order); seeds averaged per cell and system by two bincounts;
    systems without a score of this metric left out."""
    if not isinstance(higher_is_better, bool):
        raise VerdictError(f"{what}: higher_is_better={higher_is_better!r} must be True or "
                           "False")
    sc: Scores = as_scores(scores, what=what, error=VerdictError)
    refuse_prompts(sc, where=what, error=VerdictError, instead=_BATTLE_INSTEAD,
                   why="a battle is one item (its mean over the prompts) and the bootstrap "
                       "draws battles or items as independent")
    metrics = tuple(sc.metrics)
    if metric is None:
        if len(metrics) > 1:
            hint = Hint("metric")
            raise VerdictError(f"{what}: the scores hold {len(metrics)} metrics "
                               f"({preview(metrics)}); battles compare one metric; {hint.text}",
                               hints=[hint])
        metric = metrics[0]
    elif metric not in metrics:
        raise VerdictError(f"{what}: unknown metric {metric!r}; metrics: {preview(metrics)}")
    keep = None
    if len(metrics) > 1:
        mcode, mnames = sc.codes("metric")
        keep = mcode == list(mnames).index(metric)
    values_all = scores_table(sc)["value"].to_numpy(dtype=np.float64)
    # the design's unit (ranger_eval.design): with a cluster column, an item's battles are
    # drawn with those of every item of its cluster
    design = resolve_design(sc)
    row_units = design.row_units() if design.clustered else None
    # the Scores' cached codes: no second pass over a million dataset names
    (dcode, dnames), (icode, inames), (scode, snames) = (
        sc.codes("dataset"), sc.codes("item"), sc.codes("system"))
    if keep is not None:
        dcode, icode, scode, values_all = dcode[keep], icode[keep], scode[keep], values_all[keep]
        if row_units is not None:
            row_units = row_units[keep]
    n_sys = len(snames)
    n_items = max(len(inames), 1)
    rank = None
    if ordered:   # item codes in id order (as everywhere: items sorted by id within a dataset)
        rank = np.empty(len(inames), dtype=np.int64)
        rank[np.asarray(pd.Index(inames).argsort(), dtype=np.int64)] = np.arange(len(inames))
        key = dcode.astype(np.int64) * n_items + rank[icode]
    else:
        key = dcode.astype(np.int64) * n_items + icode
    span = len(dnames) * n_items
    if span * n_sys <= 4 * max(key.size, 1):   # the dense cells × systems arrays stay small
        # item ids shared by the datasets (q1, q2, …): the key itself is the cell, in order;
        # cells no row fills are dropped below (no hashing of the keys)
        cell, n_cells = key, span
    else:
        cell, cell_keys = pd.factorize(key, sort=ordered)
        n_cells = len(cell_keys)
    flat = cell.astype(np.int64) * n_sys + scode
    size = n_cells * n_sys
    count = np.bincount(flat, minlength=size).reshape(n_cells, n_sys)
    total = np.bincount(flat, weights=values_all, minlength=size).reshape(n_cells, n_sys)
    filled = count.any(axis=1)
    keys = np.flatnonzero(filled) if cell is key else np.asarray(cell_keys, dtype=np.int64)
    cell_units = None
    if row_units is not None:
        cell_units = np.zeros(n_cells, dtype=np.int64)
        cell_units[cell] = row_units   # one cluster per item (checked by Scores)
        if cell is key:
            cell_units = cell_units[filled]
    if cell is key:
        count, total = count[filled], total[filled]
    with np.errstate(invalid="ignore", divide="ignore"):
        values = total / count
    if not higher_is_better:
        values = -values
    scored = np.asarray(count.any(axis=0), dtype=bool)   # the systems of this metric
    datasets = items = np.empty(0, dtype=object)
    if ordered:   # labels of the cells, for battles_from_scores (not needed by the counts)
        assert rank is not None
        datasets = np.asarray(dnames, dtype=object)[keys // n_items]
        items = np.asarray(inames, dtype=object)[np.argsort(rank)][keys % n_items]
    return _Cells(tuple(str(x) for x, ok in zip(snames, scored, strict=True) if ok),
                  values[:, scored], datasets, items, str(metric), "scores(items)",
                  cell_units, design.label if design.clustered else None)


def _pair_outcomes(cells: _Cells) -> tuple[list[tuple[int, int, np.ndarray, np.ndarray]], int]:
    """Per pair of systems (a < b in the cells' order): the cells where both have a score and
    the outcome there (0: a better, 1: b better, 2: equal); and the number of pair × cell
    combinations with a score of only one of the two (no battle)."""
    values = cells.values
    present = ~np.isnan(values)
    out = []
    missing = 0
    n = values.shape[1]
    for a in range(n):
        for b in range(a + 1, n):
            both = present[:, a] & present[:, b]
            missing += int((present[:, a] ^ present[:, b]).sum())
            where = np.flatnonzero(both)
            d = values[where, a] - values[where, b]
            outcome = np.where(d > 0, 0, np.where(d < 0, 1, 2)).astype(np.int8)
            out.append((a, b, where, outcome))
    return out, missing


def _warn_missing(missing: int, what: str) -> None:
    if missing:
        warnings.warn(f"{what}: {missing} system pair × item combinations have a score for "
                      "only one of the two systems and are no battle", UserWarning,
                      stacklevel=3)


def _counts(cells: _Cells, what: str) -> Battles:
    """The distinct (model_a, model_b, outcome) rows with their counts (at most 3 per pair)."""
    if len(cells.systems) < 2:
        raise VerdictError(f"{what}: the scores hold one system ({preview(cells.systems)}); "
                           "a battle needs two")
    # systems in the order of their names (the models' order), not of first appearance, so
    # that the item patterns, and the bootstrap's draws over them, do not depend on row order
    order = np.argsort(np.asarray(cells.systems, dtype=object), kind="stable")
    models = tuple(cells.systems[k] for k in order)
    cells = dataclasses.replace(cells, systems=models, values=cells.values[:, order])
    position = np.arange(order.size, dtype=np.int64)
    pairs, missing = _pair_outcomes(cells)
    _warn_missing(missing, what)
    if not any(where.size for _, _, where, _ in pairs):
        raise VerdictError(f"{what}: no item has scores of two systems")
    # every cell (item) as its pattern: the outcome on each pair of systems, 3 = no battle
    n_cells = cells.values.shape[0]
    codes = np.full((n_cells, len(pairs)), 3, dtype=np.int8)
    for k, (_, _, where, outcome) in enumerate(pairs):
        codes[where, k] = outcome
    battling = (codes < 3).any(axis=1)
    codes = codes[battling]           # items without a battle add nothing
    if cells.units is not None:       # clusters of items: whole clusters are the patterns
        cluster_rows, cluster_count, keys = _cluster_patterns(codes, cells.units[battling])
    else:
        patterns, cluster_count = _distinct_rows(codes)
        # the distinct (pair, outcome) rows, and how many battles of each a pattern holds
        pat, col = np.nonzero(patterns < 3)
        row_key = col.astype(np.int64) * 3 + patterns[pat, col]
        keys, row_of = np.unique(row_key, return_inverse=True)
        cluster_rows = sparse.csr_matrix((np.ones(pat.size), (pat, row_of)),
                                         shape=(patterns.shape[0], keys.size))
    count = np.asarray(cluster_count @ cluster_rows, dtype=np.int64).ravel()
    first = np.array([position[a] for a, _, _, _ in pairs], dtype=np.int64)
    second = np.array([position[b] for _, b, _, _ in pairs], dtype=np.int64)
    return Battles(models, first[keys // 3], second[keys // 3], (keys % 3).astype(np.int64),
                   np.ones(keys.size), count, cells.source, cluster_rows, cluster_count,
                   cells.unit)


#: largest clusters × (pair, outcome) rows matrix held dense to merge identical clusters
_DENSE_PATTERNS = 20_000_000


def _cluster_patterns(codes: np.ndarray, units: np.ndarray
                      ) -> tuple[sparse.csr_matrix, np.ndarray, np.ndarray]:
    """The battles of whole clusters (the design's unit, :mod:`ranger_eval.design`): from the
    items' patterns (``codes``: items × pairs, 3 = no battle) and each item's cluster, the
    distinct cluster patterns — how many battles of each (pair, outcome) row one cluster
    holds — with how many clusters have each, and the rows' keys (``pair · 3 + outcome``).
    Identical clusters are merged when the dense clusters × rows matrix is small; else every
    cluster is its own pattern (the same bootstrap distribution, drawn over more categories)."""
    item, col = np.nonzero(codes < 3)
    row_key = col.astype(np.int64) * 3 + codes[item, col]
    keys, row_of = np.unique(row_key, return_inverse=True)
    unit_of, _ = pd.factorize(units[item], sort=True)
    n_units = int(unit_of.max()) + 1
    per_unit = sparse.csr_matrix((np.ones(item.size), (unit_of, row_of)),
                                 shape=(n_units, keys.size))
    per_unit.sum_duplicates()
    if n_units * keys.size <= _DENSE_PATTERNS:
        dense = per_unit.toarray()
        uniq, count = np.unique(dense, axis=0, return_counts=True)
        return sparse.csr_matrix(uniq), count.astype(np.int64), keys
    return per_unit, np.ones(n_units, dtype=np.int64), keys


def _distinct_rows(codes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The distinct rows of a small-integer matrix (values 0–3) and how often each occurs:
    up to 31 columns as one base-4 integer per row (a hash, not a sort of rows), else
    ``np.unique(axis=0)``."""
    if codes.shape[1] <= 31:
        key = codes.astype(np.int64) @ (4 ** np.arange(codes.shape[1], dtype=np.int64))
        which, uniq = pd.factorize(key, sort=True)
        first = np.zeros(len(uniq), dtype=np.int64)
        first[which[::-1]] = np.arange(which.size)[::-1]
        return codes[first], np.bincount(which, minlength=len(uniq)).astype(np.int64)
    uniq_rows, counts = np.unique(codes, axis=0, return_counts=True)
    return uniq_rows, counts.astype(np.int64)


def battle_counts(scores: object, *, higher_is_better: bool = _DEFAULT.higher_is_better,
                  metric: str | None = _DEFAULT.metric,
                  settings: ArenaSettings | None = None) -> Battles:
    """Per-item scores as battle counts for :func:`bradley_terry`: the battles of
    :func:`battles_from_scores` (every item a battle between every pair of systems scored on
    it, won by the better score, a tie when the scores are equal after averaging seeds), kept
    as the distinct (model_a, model_b, outcome) rows and how many battles each stands for —
    at most 3 rows per pair of systems, however many items. Built in one columnar pass (numpy
    ``bincount``; no row per battle, no loop over datasets), so a million datasets cost a
    few array operations; ``bradley_terry`` on it equals ``bradley_terry`` on the rows of
    :func:`battles_from_scores` (fit and bootstrap: the bootstrap draws battles) and its
    signature says ``battles:scores(items)``. ``settings``: an
    :class:`~ranger_eval.settings.ArenaSettings` whose ``metric`` and ``higher_is_better``
    are used instead of the keywords (its other fields are :func:`bradley_terry`'s).

    Parameters
    ----------
    scores : Scores or pandas.DataFrame
        Per-item scores of at least two systems.
    higher_is_better : bool, default True
        Whether the larger score wins.
    metric : str, optional
        The metric, when the scores hold several.
    settings : ArenaSettings, optional
        Its ``metric`` and ``higher_is_better`` instead of the keywords.

    Returns
    -------
    Battles
        ``models``, the distinct rows (``a``, ``b``, ``outcome``) and their ``count``.

    Raises
    ------
    VerdictError
        Fewer than two systems, or an unknown metric.

    Examples
    --------
    >>> import pandas as pd
    >>> import ranger_eval as rg
    >>> df = pd.DataFrame({"dataset": "d", "metric": "acc", "item": list(range(4)) * 3,
    ...                    "system": ["A"] * 4 + ["B"] * 4 + ["C"] * 4,
    ...                    "value": [.8, .6, .9, .5, .7, .7, .8, .6, .5, .8, .6, .7]})
    >>> b = rg.battle_counts(df)
    >>> b.models, b.count.tolist(), int(b.count.sum())
    (('A', 'B', 'C'), [2, 2, 2, 2, 2, 2], 12)
    """
    settings = resolve_settings(ArenaSettings, {"higher_is_better": higher_is_better,
                                                "metric": metric}, settings,
                                where="battle_counts")
    cells = _score_cells(scores, settings.higher_is_better, settings.metric, "battle_counts")
    return _counts(cells, "battle_counts")


def table_battle_counts(table: pd.DataFrame, *,
                        higher_is_better: bool = _DEFAULT.higher_is_better,
                        settings: ArenaSettings | None = None) -> Battles:
    """A dataset-level table (datasets × systems, NaN where a system has no result) as battle
    counts: every dataset a battle between every pair of systems with a result on it (equal
    results a tie); the signature says ``battles:scores(datasets)``. ``settings``: an
    :class:`~ranger_eval.settings.ArenaSettings` whose ``higher_is_better`` is used.

    Parameters
    ----------
    table : DataFrame
        Datasets (rows) × systems (columns), NaN where a system has no result (a pair with a
        hole on a dataset is no battle there, counted in a warning).
    higher_is_better : bool, default True
        Direction of the scores.
    settings : ArenaSettings, optional
        Its ``higher_is_better`` instead of the keyword.

    Returns
    -------
    Battles
        Rows of (``a``, ``b``, ``outcome``) codes into ``models`` with their ``count``:
        outcome 0 ``a`` won, 1 ``b`` won, 2 a tie.

    Examples
    --------
    >>> import pandas as pd
    >>> from ranger_eval.verdicts.bradley_terry import table_battle_counts
    >>> table = pd.DataFrame({"A": [0.8, 0.7, 0.9], "B": [0.6, 0.7, 0.95], "C": [0.5, 0.6, 0.85]},
    ...                      index=["d1", "d2", "d3"])
    >>> b = table_battle_counts(table)
    >>> b.models, b.a.tolist(), b.b.tolist(), b.outcome.tolist(), b.count.tolist()
    (('A', 'B', 'C'), [0, 0, 0, 0, 1], [1, 1, 1, 2, 2], [0, 1, 2, 0, 0], [1, 1, 1, 3, 3])
    """
    higher_is_better = resolve_settings(ArenaSettings, {"higher_is_better": higher_is_better},
                                        settings, where="table_battle_counts").higher_is_better
    values = table.to_numpy(dtype=np.float64, na_value=np.nan)
    cells = _Cells(tuple(str(c) for c in table.columns),
                   values if higher_is_better else -values,
                   np.asarray(table.index, dtype=object), np.asarray(table.index, dtype=object),
                   "", "scores(datasets)")
    return _counts(cells, "table_battle_counts")


def battles_from_scores(scores: object, *, higher_is_better: bool = True,
                        metric: str | None = None) -> pd.DataFrame:
    """Per-item scores as battles: on every item, every pair of systems that both have a score
    there is one battle, won by the better score, a tie when the scores are equal (after
    averaging seeds/samples per item, as everywhere). Items of every dataset count; one metric
    at a time (``metric=`` when the scores hold several).

    Returns LMArena's schema (``model_a``, ``model_b``, ``winner``) plus ``dataset``,
    ``metric`` and ``item`` (rows by dataset, then pair of systems, then item id), ready for
    :func:`bradley_terry`, which signs its result ``battles:scores(items)``. A pair × item
    where one system has no score is no battle; such pairs are counted in a warning. One row
    per battle: for many items, :func:`battle_counts` gives the same fit from counts.

    Parameters
    ----------
    scores : Scores or pandas.DataFrame
        Per-item scores of at least two systems.
    higher_is_better : bool, default True
        Whether the larger score wins.
    metric : str, optional
        The metric, when the scores hold several.

    Returns
    -------
    pandas.DataFrame
        ``model_a``, ``model_b``, ``winner``, ``dataset``, ``metric``, ``item``.

    Raises
    ------
    VerdictError
        Fewer than two systems, or an unknown metric.

    Examples
    --------
    >>> import pandas as pd
    >>> import ranger_eval as rg
    >>> df = pd.DataFrame({"dataset": "d", "metric": "acc", "item": list(range(4)) * 3,
    ...                    "system": ["A"] * 4 + ["B"] * 4 + ["C"] * 4,
    ...                    "value": [.8, .6, .9, .5, .7, .7, .8, .6, .5, .8, .6, .7]})
    >>> b = rg.battles_from_scores(df)
    >>> len(b), b.loc[:1, ["model_a", "model_b", "winner", "item"]].values.tolist()
    (12, [['A', 'B', 'model_a', '0'], ['A', 'B', 'model_b', '1']])
    """
    cells = _score_cells(scores, higher_is_better, metric, "battles_from_scores",
                         ordered=True)
    pairs, missing = _pair_outcomes(cells)
    _warn_missing(missing, "battles_from_scores")
    if not any(where.size for _, _, where, _ in pairs):
        raise VerdictError("battles_from_scores: no item has scores of two systems")
    names = np.asarray(cells.systems, dtype=object)
    labels = np.array(["model_a", "model_b", "tie"], dtype=object)
    rows = [(np.full(where.size, k, dtype=np.int64), where, outcome)
            for k, (_, _, where, outcome) in enumerate(pairs)]
    pair_of = np.concatenate([r[0] for r in rows])
    cell = np.concatenate([r[1] for r in rows])
    outcome = np.concatenate([r[2] for r in rows])
    # datasets in order, then pairs, then items (cells are already dataset-then-item ordered)
    _, dataset_rank = np.unique(pd.factorize(cells.dataset)[0][cell], return_inverse=True)
    order = np.lexsort((cell, pair_of, dataset_rank))
    first = np.array([a for a, _, _, _ in pairs], dtype=np.int64)
    second = np.array([b for _, b, _, _ in pairs], dtype=np.int64)
    frame = pd.DataFrame({
        "model_a": names[first[pair_of[order]]], "model_b": names[second[pair_of[order]]],
        "winner": labels[outcome[order]], "dataset": cells.dataset[cell[order]],
        "metric": cells.metric, "item": cells.item[cell[order]]})
    frame.attrs[SOURCE_ATTR] = cells.source
    return frame
