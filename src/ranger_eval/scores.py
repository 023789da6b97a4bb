"""Scores: the tidy per-item table every analysis starts from.

One row per (dataset, system, metric, item[, seed]) with a numeric ``value``. Items are matched **by
id**, never by position (DESIGN.md, "Data flow"). Construction validates the table and reports the
offending rows; nothing is dropped silently.

Optional columns ``label`` and ``prediction`` (kept as metadata, numeric or class names/text) carry
each item's gold label and each system's prediction, for set-level metrics such as F1, MCC or
BLEU (:mod:`ranger_eval.setmetrics`). They are read, and checked, only by :meth:`Scores.runs` /
:meth:`Scores.pair_runs`: a label must be the same in every row of an item, and neither may be
empty there.

With a ``seed`` column every (system, seed) is one *run*. :meth:`Scores.runs` gives a system's
runs as a seeds × items matrix and :func:`seed_imbalance` says whether a set of systems is
balanced: the same number of seeds for every system and every seed scoring every item.

Evaluations as they are run (clustered items, repeated samples, judge scores) add three
optional columns:

``cluster``
    the cluster of an item (several questions about one passage, document, conversation, prompt
    template or subject), read as an exact id string like item ids. Clusters are **nested within
    a dataset**: a cluster is the pair (dataset, cluster id), so the same id in two datasets names
    two different clusters (datasets are independent samples, as the meta-analysis assumes). An
    item belongs to exactly one cluster: every row of an item of a dataset (all systems, metrics,
    seeds and samples) must carry the same cluster id, else :class:`ScoresError` names the
    dataset, the item and the clusters — this is also how a cluster that "crosses" rows it cannot
    belong to is caught. Missing (NaN, None) or blank cluster ids are errors naming the row.
    :attr:`Scores.has_cluster`, :meth:`Scores.item_clusters`, :meth:`Scores.cluster_codes` and
    the ``clusters`` fields of :class:`PairedScores` / :class:`PairedTable` give them to the tests.
    A reader that renames the user's field (``--cluster passage``, ``read_scores(cluster=
    "passage")``) records that name in the frame's ``attrs[CLUSTER_NAME]``, which pandas carries
    through copies, selections and concatenations of frames that agree on it;
    :attr:`Scores.cluster_name` gives it (``"cluster"`` otherwise) to the signatures
    (``cluster:passage``).
``sample``
    which of K generations of the same system on the same item a row is (temperature > 0,
    Inspect "epochs"; a retrained system is a ``seed``). Rows are averaged per item (per
    dataset, system, metric, item and seed) **at construction**, before any test, as Miller
    (2024, "Adding Error Bars to Evals", §4) recommends: every analysis sees one value per item,
    the mean of its K samples, and the no-sample path is untouched. K must be the same for every
    item of a dataset × system × metric (an item with a different K is an error naming both
    items and their Ks: an unequal K would give items unequal precision, which the per-item mean
    hides); different systems may use different K. :meth:`Scores.sample_stats` keeps K and the
    within-item variance of every averaged row for ``describe``; :attr:`Scores.samples_label`
    is the signature's ``samples:`` field. Duplicate (item, sample) rows are duplicate keys.
``human_value``
    a human score of the row's output where one exists, NaN (or absent) elsewhere; finite where
    present. With samples it is averaged like ``value`` and must be present for all K samples of
    an item or for none. Read by prediction-powered inference (``ppi_mean``).
"""
from __future__ import annotations

import warnings
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ._frames import as_frame, float_values, id_strings
from .errors import Hint, RangerError, ScoresError
from .formatting import preview as _preview

__all__ = [
    "BOUNDS", "CLUSTER", "CLUSTER_NAME", "HUMAN_VALUE", "SAMPLE",
    "PairedRuns", "PairedScores", "PairedTable", "Scores", "ScoresError", "SystemRuns", "as_scores",
    "check_same_labels", "common_items", "seed_imbalance", "seed_order",
]

REQUIRED = ("dataset", "system", "item", "value")
OPTIONAL = ("metric", "seed", "sample", "cluster", "human_value", "label", "prediction")
LABEL = "label"
PREDICTION = "prediction"
#: optional column: the cluster (passage, document, conversation, template …) of an item
CLUSTER = "cluster"
#: key of a frame's ``attrs`` holding the user's name of the cluster field (module docstring)
CLUSTER_NAME = "ranger_eval.cluster_name"
#: key of a frame's ``attrs`` holding the declared range of each metric, ``{metric: (lo, hi)}``
#: (:meth:`Scores.with_bounds`; YAML ``bounds:``)
BOUNDS = "ranger_eval.bounds"
#: optional column: which of K generations of one system on one item a row is
SAMPLE = "sample"
#: optional column: a human score of the row's output where one exists (NaN elsewhere)
HUMAN_VALUE = "human_value"
DEFAULT_METRIC = "score"
MISSING_POLICIES = ("error", "intersect")
#: identifier columns; index levels with these names become columns (``df.reset_index()``)
KEY_COLUMNS = ("dataset", "system", "metric", "item", "seed", "sample")


@dataclass(frozen=True)
class PairedScores:
    """Two systems' values on the same items of one dataset, aligned by item id.

    ``items`` is sorted, so the pairing does not depend on the order rows arrived in.
    ``n_dropped`` counts items present for only one of the systems that a ``missing="intersect"``
    policy removed (0 otherwise). ``clusters`` (scores with a ``cluster`` column, else None) is
    the cluster id of each item, aligned with ``items``.
    """

    dataset: str
    metric: str
    items: np.ndarray
    treatment: np.ndarray
    control: np.ndarray
    n_dropped: int = 0
    clusters: np.ndarray | None = None

    @property
    def n(self) -> int:
        return int(self.items.size)


@dataclass(frozen=True)
class PairedTable:
    """Two systems' values on many datasets at once, aligned by item id (columnar).

    Dataset ``i`` (``datasets[i]``, scored with ``metrics[i]``) occupies rows
    ``offsets[i]:offsets[i + 1]`` of ``treatment``, ``control`` and ``item_codes``; within a
    dataset the rows are sorted by item id, as in :class:`PairedScores`. ``item_labels[code]`` is
    the id of an item code. ``n_dropped[i]`` counts the items a ``missing="intersect"`` policy
    removed from dataset ``i``. Built by :meth:`Scores.pair_all` in O(rows) memory and
    O(rows · log rows) time, whatever the number of datasets.

    With a ``cluster`` column, ``clusters`` holds each row's cluster as an int64 code that is
    unique across datasets (clusters are nested within datasets: the code stands for the pair
    dataset × cluster id) and ``cluster_labels[code]`` is its cluster id; both are None
    otherwise. The clusters of dataset ``i`` are ``np.unique(clusters[offsets[i]:offsets[i+1]])``.
    """

    datasets: tuple[str, ...]
    metrics: tuple[str, ...]
    offsets: np.ndarray
    item_codes: np.ndarray
    item_labels: np.ndarray
    treatment: np.ndarray
    control: np.ndarray
    n_dropped: np.ndarray
    clusters: np.ndarray | None = None
    cluster_labels: np.ndarray | None = None

    @property
    def k(self) -> int:
        return len(self.datasets)

    @property
    def n(self) -> np.ndarray:
        """Number of paired items per dataset."""
        return np.diff(self.offsets)

    def items(self, i: int) -> np.ndarray:
        """Sorted item ids of dataset ``i``."""
        seg = slice(int(self.offsets[i]), int(self.offsets[i + 1]))
        return np.asarray(self.item_labels[self.item_codes[seg]], dtype=object)

    def pair(self, i: int) -> PairedScores:
        """Dataset ``i`` as a :class:`PairedScores`."""
        seg = slice(int(self.offsets[i]), int(self.offsets[i + 1]))
        clusters = None
        if self.clusters is not None and self.cluster_labels is not None:
            clusters = np.asarray(self.cluster_labels[self.clusters[seg]], dtype=object)
        return PairedScores(self.datasets[i], self.metrics[i], self.items(i),
                            self.treatment[seg].copy(), self.control[seg].copy(),
                            int(self.n_dropped[i]), clusters)


def seed_order(seeds: Iterable[object]) -> list[str]:
    """Seed labels in natural order: numerically when every label is a number, else as text.

    Parameters
    ----------
    seeds : iterable
        Seed labels (any values; compared as their ``str``).

    Returns
    -------
    list of str
        The labels as text, sorted.

    Examples
    --------
    >>> from ranger_eval.scores import seed_order
    >>> seed_order([10, 2, 1]), seed_order(["b", "a10", "a2"])
    (['1', '2', '10'], ['a10', 'a2', 'b'])
    """
    labels = [str(s) for s in seeds]
    try:
        return sorted(labels, key=lambda s: (float(s), s))
    except ValueError:
        return sorted(labels)


@dataclass(frozen=True)
class SystemRuns:
    """One system's runs (seeds) on one dataset and metric, as a seeds × items matrix.

    ``items`` are sorted ids; ``seeds`` in natural order (``("",)`` without a seed column).
    ``values[s, i]`` is NaN where seed ``s`` did not score item ``i``. ``labels`` (one per item)
    and ``predictions`` (seeds × items, object; None where missing) are filled when asked for.
    """

    dataset: str
    metric: str
    system: str
    items: np.ndarray
    seeds: tuple[str, ...]
    values: np.ndarray
    labels: np.ndarray | None = None
    predictions: np.ndarray | None = None

    @property
    def n(self) -> int:
        return int(self.items.size)

    @property
    def n_seeds(self) -> int:
        return len(self.seeds)

    @property
    def present(self) -> np.ndarray:
        """Seeds × items: True where the seed scored the item."""
        return ~np.isnan(self.values)

    def missing_by_seed(self) -> dict[str, list[str]]:
        """Seed → ids of the system's items it did not score (only seeds that miss some)."""
        out = {}
        for s, row in zip(self.seeds, self.present, strict=True):
            if not row.all():
                out[s] = [str(x) for x in self.items[~row]]
        return out

    def select(self, items: np.ndarray) -> SystemRuns:
        """The runs restricted to ``items`` (a subset of :attr:`items`), in that order."""
        pos = pd.Index(self.items).get_indexer(items)
        if (pos < 0).any():
            raise ScoresError(f"select: unknown item(s) {_preview(np.asarray(items)[pos < 0])}")
        return SystemRuns(
            self.dataset, self.metric, self.system, np.asarray(items, dtype=object), self.seeds,
            self.values[:, pos],
            None if self.labels is None else self.labels[pos],
            None if self.predictions is None else self.predictions[:, pos],
        )


@dataclass(frozen=True)
class PairedRuns:
    """Treatment and control runs on the same items of one dataset (aligned by item id)."""

    dataset: str
    metric: str
    items: np.ndarray
    treatment: SystemRuns
    control: SystemRuns
    n_dropped: int = 0

    @property
    def n(self) -> int:
        return int(self.items.size)

    @property
    def labels(self) -> np.ndarray | None:
        return self.treatment.labels


def seed_imbalance(runs: Sequence[SystemRuns]) -> str | None:
    """Why the seeds of these systems are unbalanced, or None when they are balanced.

    Balanced: every system has the same number of seeds, and every seed of a system scored
    every item of that system.

    Parameters
    ----------
    runs : sequence of SystemRuns
        The systems' runs on one dataset and metric.

    Returns
    -------
    str or None
        The first imbalance found, in words; None when the seeds are balanced.

    Examples
    --------
    >>> import numpy as np
    >>> from ranger_eval.scores import SystemRuns, seed_imbalance
    >>> items = np.array(["q1", "q2"], dtype=object)
    >>> a = SystemRuns("qa", "acc", "a", items, ("0", "1"), np.array([[1.0, 0.0], [1.0, np.nan]]))
    >>> b = SystemRuns("qa", "acc", "b", items, ("0",), np.array([[1.0, 1.0]]))
    >>> seed_imbalance([a, b])
    "the systems have different numbers of seeds: 'a' has 2 seeds ('0', '1'); 'b' has 1 seed ('0')"
    >>> seed_imbalance([a])
    "system 'a': seed '1' did not score 1 of its 2 items ('q2')"
    >>> seed_imbalance([b, b]) is None
    True
    """
    counts = {r.system: r.n_seeds for r in runs}
    if len(set(counts.values())) > 1:
        listed = "; ".join(
            f"{r.system!r} has {r.n_seeds} seed{'s' if r.n_seeds != 1 else ''} "
            f"({_preview(r.seeds, 5)})" for r in runs
        )
        return f"the systems have different numbers of seeds: {listed}"
    for r in runs:
        for s, ids in r.missing_by_seed().items():
            return (
                f"system {r.system!r}: seed {s!r} did not score {len(ids)} of its {r.n} items "
                f"({_preview(ids)})"
            )
    return None


def _correctness(data: pd.DataFrame, where: str) -> pd.DataFrame:
    """``data`` (label and prediction columns, no ``value``) with ``value`` = 1.0 where the
    prediction equals the label, else 0.0: the per-item accuracy, so that a table written for a
    set-level metric (``metric_fn=``, which reads only the labels and predictions) needs no
    ``value`` column. A row without a label or a prediction is an error naming it."""
    absent = (data[LABEL].isna() | data[PREDICTION].isna()).to_numpy(dtype=bool)
    if absent.any():
        r = int(np.flatnonzero(absent)[0])
        raise ScoresError(
            f"no 'value' column{where}, and row {r} has no {LABEL!r} or {PREDICTION!r} to "
            f"score it by (label {data[LABEL].iloc[r]!r}, prediction "
            f"{data[PREDICTION].iloc[r]!r}); {int(absent.sum())} such row(s)")
    equal = (data[PREDICTION].to_numpy(dtype=object) == data[LABEL].to_numpy(dtype=object))
    return data.assign(value=np.asarray(equal, dtype=np.float64))


class Scores:
    """Validated tidy per-item scores.

    ``Scores(df)`` needs columns ``dataset, system, item, value`` and optionally ``metric`` (defaults
    to ``"score"``) and ``seed``. Other columns are kept as metadata. A table with ``label`` and
    ``prediction`` columns (for a set-level metric, ``metric_fn=``) may leave out ``value``: it is
    then 1.0 where the prediction equals the label, else 0.0 (the per-item accuracy). ``df`` may also be a pyarrow
    or polars table, a numpy structured array or a dict of columns, and the key columns may be
    index levels (:mod:`ranger_eval._frames` gives the rules: ids become exact strings, values
    exact float64). Identifier columns are stored
    as strings; ``value`` as float64. Order of first appearance of datasets, systems and metrics is
    remembered for display.

    Optional ``cluster``, ``sample`` and ``human_value`` columns are described in the module
    docstring: clusters are nested within datasets and one per item; samples are averaged per
    item here, before any analysis (:attr:`table` holds the per-item means).

    Raises :class:`ScoresError` for missing columns, non-numeric or non-finite values and duplicate
    (dataset, system, metric, item[, seed][, sample]) keys, naming the offending rows.
    """

    def __init__(self, data: pd.DataFrame | Scores | object, *, source: str | None = None) -> None:
        #: factorised key columns (codes, uniques in order of first appearance), kept from the
        #: duplicate check for :meth:`pair_all`
        self._codes: dict[str, tuple[np.ndarray, pd.Index]] = {}
        #: with a ``sample`` column: the checked rows before averaging, and K and the
        #: within-item variance of every averaged row (aligned with ``_df``)
        self._raw: pd.DataFrame | None = None
        self._within: pd.DataFrame | None = None
        #: cached cluster lookups (:meth:`item_clusters`, :meth:`_row_cluster_codes`)
        self._cluster_cache: dict[str, object] = {}
        if isinstance(data, Scores):
            self._df: pd.DataFrame = data._df
            self._codes = data._codes
            self._raw, self._within = data._raw, data._within
            self._cluster_cache = data._cluster_cache
            return
        data = as_frame(data, what="Scores", error=ScoresError, index_columns=KEY_COLUMNS)
        where = f" in {source}" if source else ""
        if "value" not in data.columns and {LABEL, PREDICTION} <= set(data.columns):
            data = _correctness(data, where)
        missing = [c for c in REQUIRED if c not in data.columns]
        if missing:
            raise ScoresError(
                f"missing column(s) {', '.join(missing)}{where}; have: {', '.join(map(str, data.columns))}"
            )
        df = data.copy()
        if "metric" not in df.columns:
            df["metric"] = DEFAULT_METRIC
        if df.empty:
            raise ScoresError(f"no scores{where}: the table is empty")
        key = ["dataset", "system", "metric", "item"] + (["seed"] if "seed" in df.columns else [])
        if SAMPLE in df.columns:
            key.append(SAMPLE)
        for col in key:
            ids, bad_id = id_strings(df[col])
            if bad_id is not None:
                if bad_id.problem == "missing id":
                    raise ScoresError(f"empty {col!r} at row {bad_id.first}{where}")
                raise ScoresError(f"column {col!r}: {bad_id.describe()}{where}{bad_id.more()}")
            blank = np.flatnonzero(ids.str.strip().eq("").to_numpy(dtype=bool))
            if blank.size:
                more = f" (and {blank.size - 1} more row(s))" if blank.size > 1 else ""
                raise ScoresError(
                    f"empty {col!r} at row {int(blank[0])}{where}: {ids.iloc[int(blank[0])]!r}"
                    f"{more}; every row needs a non-blank {col} id (as in score files)"
                )
            df[col] = ids
        values, bad = float_values(df["value"])
        if bad is not None:
            r = bad.first
            raise ScoresError(
                f"{bad.describe()} (dataset {df['dataset'].iloc[r]!r}, "
                f"system {df['system'].iloc[r]!r}, item {df['item'].iloc[r]!r}){where}{bad.more()}"
            )
        nonfinite = ~np.isfinite(values)
        if nonfinite.any():
            rows = np.flatnonzero(nonfinite)
            r = int(rows[0])
            raise ScoresError(
                f"non-finite value {values[r]!r} at row {r} (dataset {df['dataset'].iloc[r]!r}, "
                f"system {df['system'].iloc[r]!r}, item {df['item'].iloc[r]!r}){where}"
                + (f"; {rows.size} such rows" if rows.size > 1 else "")
            )
        df["value"] = values
        if CLUSTER in df.columns:
            df[CLUSTER] = _cluster_ids(df, where)
        if HUMAN_VALUE in df.columns:
            df[HUMAN_VALUE] = _human_values(df, where)
        if _has_duplicate_keys(df, key, self._codes):
            dup = df.duplicated(key, keep=False)
            first = df.loc[dup, key].head(10)
            listed = "; ".join("/".join(map(str, row)) for row in first.itertuples(index=False))
            raise ScoresError(
                f"{int(dup.sum())} rows share a key ({', '.join(key)}){where}: {listed}"
            )
        df = df.reset_index(drop=True)
        if CLUSTER in df.columns:
            _check_one_cluster_per_item(df, self._codes, where)
        if SAMPLE in df.columns:
            self._raw = df
            df, self._within = _average_samples(df, key[:-1], where)
            self._codes = {}  # the codes were the raw rows'
        self._df = df

    # ------------------------------------------------------------------ views
    @property
    def frame(self) -> pd.DataFrame:
        """A copy of the underlying tidy table (with a ``sample`` column: the per-item means;
        :attr:`raw_frame` has the rows as given)."""
        return self._df.copy()

    @property
    def table(self) -> pd.DataFrame:
        """The stored tidy table itself, not a copy, for code that only reads it (the
        comparison engine); do not modify it."""
        return self._df

    @property
    def datasets(self) -> tuple[str, ...]:
        # the uniques kept from the duplicate check (first appearance order, as pd.unique), and
        # .tolist(): one conversion of the Arrow strings, not one Python call per element
        # (a million datasets: 9 s → 0.3 s)
        return tuple(self._factorized("dataset")[1].tolist())

    @property
    def systems(self) -> tuple[str, ...]:
        return tuple(self._factorized("system")[1].tolist())

    @property
    def metrics(self) -> tuple[str, ...]:
        return tuple(self._factorized("metric")[1].tolist())

    @property
    def has_seeds(self) -> bool:
        return "seed" in self._df.columns

    @property
    def has_cluster(self) -> bool:
        """True when the table has a ``cluster`` column (clusters nested within datasets)."""
        return CLUSTER in self._df.columns

    @property
    def cluster_name(self) -> str | None:
        """The user's name of the cluster field (``passage`` when read with ``--cluster
        passage``), recorded by the reader in the frame's ``attrs[CLUSTER_NAME]``; ``"cluster"``
        for a table whose column is named so; None without clusters. The signatures write
        ``cluster:<cluster_name>``."""
        if not self.has_cluster:
            return None
        name = self._df.attrs.get(CLUSTER_NAME)
        return name if isinstance(name, str) and name else CLUSTER

    @property
    def bounds(self) -> dict[str, tuple[float, float]]:
        """The declared range ``(lo, hi)`` of each metric that has one (:meth:`with_bounds`,
        YAML ``bounds:``, or an adapter that knows its metric's range), recorded in the frame's
        ``attrs[BOUNDS]``; metrics without one are absent. Intervals of means of those metrics
        stay in the range (:func:`ranger_eval.describe`)."""
        raw = self._df.attrs.get(BOUNDS)
        if not isinstance(raw, dict):
            return {}
        return {str(m): (float(lo), float(hi)) for m, (lo, hi) in raw.items()
                if str(m) in set(self.metrics)}

    def with_bounds(self, bounds: object, *, option: str = "bounds") -> Scores:
        """The same scores with the range of some metrics declared: ``bounds`` maps a metric
        to ``(lo, hi)`` (finite, lo < hi), or is one ``(lo, hi)`` for every metric; declared
        ranges add to (and replace) those already known. A value outside its metric's range
        is a :class:`ScoresError` naming the metric, the bound and the value (with its
        dataset, system and item); so is a metric the scores do not have. ``option`` is the
        name the messages give the argument (``bounds`` in Python and YAML).

        Parameters
        ----------
        bounds : (float, float) or dict of {str: (float, float)}
            One range for every metric, or one per metric.
        option : str, default "bounds"
            The name the messages use for ``bounds`` (a CLI option when called from the CLI).

        Returns
        -------
        Scores
            A new table with the ranges declared (used by bounded intervals and effect sizes).

        Raises
        ------
        ScoresError
            A malformed range, or a value outside its metric's range.

        Examples
        --------
        >>> from ranger_eval import Scores
        >>> scores = Scores.from_arrays({"qa": {"a": [0.8, 0.6, 0.9, 0.7], "b": [0.7, 0.6, 0.8, 0.5]}})
        >>> len(scores.with_bounds((0, 1)))
        8
        """
        given = check_bounds(bounds, self.metrics, option=option)
        frame = self._df if self._raw is None else self._raw
        for metric, (lo, hi) in given.items():
            rows = (frame["metric"] == metric).to_numpy(dtype=bool)
            vals = frame["value"].to_numpy(dtype=np.float64)
            out = np.flatnonzero(rows & ((vals < lo) | (vals > hi)))
            if out.size:
                r = int(out[0])
                v = float(vals[r])
                side = f"lower bound {lo:g}" if v < lo else f"upper bound {hi:g}"
                raise ScoresError(
                    f"{option}: metric {metric!r} is declared in [{lo:g}, {hi:g}] but has the "
                    f"value {v!r} beyond its {side} (dataset {frame['dataset'].iloc[r]!r}, "
                    f"system {frame['system'].iloc[r]!r}, item {frame['item'].iloc[r]!r})"
                    + (f"; {out.size} values lie outside" if out.size > 1 else "")
                    + "; declare the metric's true range, or leave it undeclared")
        merged = {**self.bounds, **given}
        new = Scores(self)
        df = self._df.copy(deep=False)
        df.attrs = {**self._df.attrs, BOUNDS: merged}
        object.__setattr__(new, "_df", df)
        if self._raw is not None:
            raw = self._raw.copy(deep=False)
            raw.attrs = {**self._raw.attrs, BOUNDS: merged}
            object.__setattr__(new, "_raw", raw)
        return new

    @property
    def has_samples(self) -> bool:
        """True when the table had a ``sample`` column (its rows are per-item means now)."""
        return self._raw is not None

    @property
    def has_human_values(self) -> bool:
        """True when the table has a ``human_value`` column (values may be NaN where absent)."""
        return HUMAN_VALUE in self._df.columns

    @property
    def raw_frame(self) -> pd.DataFrame:
        """A copy of the rows as given (with their ``sample`` column) before the per-item
        averaging; the same as :attr:`frame` for a table without samples."""
        return (self._df if self._raw is None else self._raw).copy()

    def sample_stats(self) -> pd.DataFrame:
        """Per row of :attr:`table` (same order): ``k_samples`` (K, the samples averaged into
        the row; 1 without a ``sample`` column) and ``within_var``, the variance (ddof = 1) of
        the row's K sample values (NaN for K = 1): the within-item part of Miller (2024, §4).

        Returns
        -------
        pandas.DataFrame
            Columns ``k_samples`` (int64) and ``within_var`` (float64), one row per row of
            :attr:`table`; a copy.

        References
        ----------
        Miller, E. (2024), "Adding Error Bars to Evals: A Statistical Approach to Language Model
        Evaluations", arXiv:2411.00640, §4 (resampling answers within a question).

        Examples
        --------
        >>> import pandas as pd
        >>> from ranger_eval import Scores
        >>> scores = Scores(pd.DataFrame({"dataset": "qa", "system": "a", "item": ["q1"] * 3 + ["q2"] * 3,
        ...                               "sample": [1, 2, 3] * 2, "value": [1, 0, 1, 1, 1, 1]}))
        >>> stats = scores.sample_stats()
        >>> stats["k_samples"].tolist(), [round(v, 4) for v in stats["within_var"]]
        ([3, 3], [0.3333, 0.0])
        """
        if self._within is not None:
            return self._within.copy()
        return pd.DataFrame({"k_samples": np.ones(len(self._df), dtype=np.int64),
                             "within_var": np.full(len(self._df), np.nan)})

    @property
    def samples_label(self) -> str | None:
        """The signature's ``samples:`` field: K (``"5"``), or ``"3-5"`` (smallest-largest)
        when systems used different K; None without a ``sample`` column."""
        if self._within is None:
            return None
        k = self._within["k_samples"].to_numpy()
        lo, hi = int(k.min()), int(k.max())
        return str(lo) if lo == hi else f"{lo}-{hi}"

    def item_clusters(self, dataset: str) -> pd.Series:
        """Cluster id of every item of ``dataset`` (index: the item ids, sorted), for scores
        with a ``cluster`` column (a :class:`ScoresError` otherwise or for an unknown dataset).
        Computed for all datasets in one pass on first use and cached.

        Parameters
        ----------
        dataset : str
            Which dataset (clusters are nested within datasets).

        Returns
        -------
        pandas.Series
            Cluster id (object) per item id, index named ``item``, sorted; a copy.

        Raises
        ------
        ScoresError
            The table has no ``cluster`` column, or ``dataset`` is unknown.

        Examples
        --------
        >>> import pandas as pd
        >>> from ranger_eval import Scores
        >>> scores = Scores(pd.DataFrame({"dataset": "qa", "system": ["a"] * 4 + ["b"] * 4,
        ...                               "item": ["q1", "q2", "q3", "q4"] * 2,
        ...                               "cluster": ["p1", "p1", "p2", "p2"] * 2,
        ...                               "value": [1, 0, 1, 1, 0, 0, 1, 0]}))
        >>> scores.item_clusters("qa").to_dict()
        {'q1': 'p1', 'q2': 'p1', 'q3': 'p2', 'q4': 'p2'}
        """
        if not self.has_cluster:
            raise ScoresError("the scores have no 'cluster' column")
        by_ds = self._cluster_cache.get("by_dataset")
        if by_ds is None:
            first = self._df[["dataset", "item", CLUSTER]].drop_duplicates(["dataset", "item"])
            by_ds = {str(d): pd.Series(g[CLUSTER].to_numpy(dtype=object),
                                       index=pd.Index(g["item"].to_numpy(dtype=object),
                                                      name="item"), name=CLUSTER).sort_index()
                     for d, g in first.groupby("dataset", sort=False)}
            self._cluster_cache["by_dataset"] = by_ds
        assert isinstance(by_ds, dict)
        if dataset not in by_ds:
            raise ScoresError(f"unknown dataset {dataset!r}; known: {_preview(self.datasets)}")
        return by_ds[dataset].copy()

    def cluster_codes(self, dataset: str, items: Sequence[str] | np.ndarray) -> np.ndarray:
        """Integer cluster codes (int64, 0 … C − 1, in sorted cluster-id order) of ``items`` of
        ``dataset``, aligned with ``items`` (e.g. a :class:`~ranger_eval.pairing.Group`'s or a
        :class:`PairedScores`' items); C = the clusters among these items. An item unknown in
        the dataset is a :class:`ScoresError`.

        Parameters
        ----------
        dataset : str
            Which dataset.
        items : sequence of str or numpy.ndarray
            Item ids of that dataset, in the order wanted.

        Returns
        -------
        numpy.ndarray
            int64 codes aligned with ``items``; code c is the c-th cluster id in sorted order
            among the clusters these items belong to.

        Raises
        ------
        ScoresError
            No ``cluster`` column, an unknown dataset, or an item not in the dataset.

        Examples
        --------
        >>> import pandas as pd
        >>> from ranger_eval import Scores
        >>> scores = Scores(pd.DataFrame({"dataset": "qa", "system": ["a"] * 4 + ["b"] * 4,
        ...                               "item": ["q1", "q2", "q3", "q4"] * 2,
        ...                               "cluster": ["p2", "p2", "p1", "p1"] * 2,
        ...                               "value": [1, 0, 1, 1, 0, 0, 1, 0]}))
        >>> scores.cluster_codes("qa", ["q1", "q3", "q4"]).tolist()
        [1, 0, 0]
        """
        mapping = self.item_clusters(dataset)
        labels = mapping.reindex(pd.Index(np.asarray(items, dtype=object)))
        unknown = labels.isna().to_numpy(dtype=bool)
        if unknown.any():
            raise ScoresError(f"dataset {dataset!r}: unknown item(s) "
                              f"{_preview(np.asarray(items, dtype=object)[unknown])}")
        codes, _ = pd.factorize(labels.to_numpy(dtype=object), sort=True)
        return codes.astype(np.int64, copy=False)

    def _row_cluster_codes(self) -> tuple[np.ndarray, np.ndarray]:
        """Per row of :attr:`table`: an int64 code of (dataset, cluster id), unique across
        datasets, and the cluster id of each code (cached)."""
        cached = self._cluster_cache.get("rows")
        if cached is None:
            dcodes, _ = self._factorized("dataset")
            ccodes, cuniq = pd.factorize(self._df[CLUSTER], sort=False)
            joint = dcodes.astype(np.int64) * max(len(cuniq), 1) + ccodes
            codes, uniq = pd.factorize(joint, sort=False)
            labels = np.asarray(cuniq, dtype=object)[np.asarray(uniq) % max(len(cuniq), 1)]
            cached = (codes.astype(np.int64, copy=False), labels)
            self._cluster_cache["rows"] = cached
        assert isinstance(cached, tuple)
        return cached

    @property
    def has_predictions(self) -> bool:
        """True when the table has both a ``label`` and a ``prediction`` column."""
        return LABEL in self._df.columns and PREDICTION in self._df.columns

    def __len__(self) -> int:
        return len(self._df)

    def __repr__(self) -> str:
        return (
            f"Scores({len(self._df)} rows: {len(self.datasets)} datasets, {len(self.systems)} systems, "
            f"{len(self.metrics)} metrics)"
        )

    # -------------------------------------------------------------- building
    @classmethod
    def from_arrays(
        cls,
        values: dict[str, dict[str, Sequence[float] | np.ndarray]],
        *,
        metric: str = DEFAULT_METRIC,
    ) -> Scores:
        """Build from ``{dataset: {system: values}}`` where position ``i`` is item ``i``.

        This is the Ranger one-value-per-line convention: the line (position) is the item id.

        Parameters
        ----------
        values : dict of {str: dict of {str: array_like}}
            ``{dataset: {system: per-item values}}``; position ``i`` of every list is item ``i + 1``.
        metric : str, default "score"
            The metric name of every row.

        Returns
        -------
        Scores
            Item ids are the 1-based positions, as strings (``"1"``, ``"2"``, …).

        Raises
        ------
        ScoresError
            A missing or non-finite value (named by dataset, system and item).

        Examples
        --------
        >>> from ranger_eval import Scores
        >>> scores = Scores.from_arrays({"qa": {"a": [0.8, 0.6, 0.9, 0.7], "b": [0.7, 0.6, 0.8, 0.5]}})
        >>> scores.datasets, scores.systems, scores.metrics, len(scores)
        (('qa',), ('a', 'b'), ('score',), 8)
        """
        frames = []
        for dataset, systems in values.items():
            for system, vals in systems.items():
                arr = np.asarray(vals)
                frames.append(
                    pd.DataFrame(
                        {
                            "dataset": dataset,
                            "system": system,
                            "metric": metric,
                            "item": np.arange(1, arr.size + 1).astype(str),
                            "value": arr,
                        }
                    )
                )
        if not frames:
            raise ScoresError("no scores: no datasets given")
        return cls(pd.concat(frames, ignore_index=True))

    @classmethod
    def concat(cls, parts: Iterable[Scores]) -> Scores:
        """Stack several Scores (e.g. one per dataset); duplicate keys are an error. Scores
        with samples are stacked as given (before averaging) and averaged again.

        Parameters
        ----------
        parts : iterable of Scores
            The tables to stack, in order.

        Returns
        -------
        Scores
            One table; datasets, systems and metrics in order of first appearance.

        Raises
        ------
        ScoresError
            A (dataset, system, metric, item[, seed]) key in two parts, or no parts.

        Examples
        --------
        >>> from ranger_eval import Scores
        >>> scores = Scores.from_arrays({"qa": {"a": [0.8, 0.6, 0.9, 0.7], "b": [0.7, 0.6, 0.8, 0.5]}})
        >>> more = Scores.from_arrays({"mt": {"a": [1, 0, 1], "b": [0, 0, 1]}})
        >>> both = Scores.concat([scores, more])
        >>> both.datasets, len(both)
        (('qa', 'mt'), 14)
        """
        frames = [q._df if q._raw is None else q._raw for q in map(Scores, parts)]
        if not frames:
            raise ScoresError("no scores to concatenate")
        return cls(concat_frames(frames))

    def filter(
        self,
        *,
        datasets: Iterable[str] | None = None,
        systems: Iterable[str] | None = None,
        metrics: Iterable[str] | None = None,
    ) -> Scores:
        """Rows of the given datasets/systems/metrics; an unknown name is an error. With
        samples the rows as given are selected and averaged again.

        Parameters
        ----------
        datasets, systems, metrics : iterable of str, optional
            Keep only these (default: all).

        Returns
        -------
        Scores
            A new table; ``self`` is unchanged.

        Raises
        ------
        ScoresError
            A name that is not in the table (with the names that are).

        Examples
        --------
        >>> from ranger_eval import Scores
        >>> scores = Scores.from_arrays({"qa": {"a": [0.8, 0.6, 0.9, 0.7], "b": [0.7, 0.6, 0.8, 0.5]}})
        >>> scores.filter(systems=["b"]).systems
        ('b',)
        """
        base = self._df if self._raw is None else self._raw
        df = base
        for col, wanted, known in (
            ("dataset", datasets, self.datasets),
            ("system", systems, self.systems),
            ("metric", metrics, self.metrics),
        ):
            if wanted is None:
                continue
            wanted = [str(w) for w in wanted]
            known_set = set(known)
            unknown = [w for w in wanted if w not in known_set]
            if unknown:
                raise ScoresError(f"unknown {col}(s) {_preview(unknown)}; known: {_preview(known)}")
            if known_set <= set(wanted):  # keeps every row (compare(systems=all of them))
                continue
            df = df[df[col].isin(wanted)]
        # nothing left out: the same checked table, not checked again (a million datasets: 20 s)
        return Scores(self) if df is base else Scores(df)

    # --------------------------------------------------------------- pairing
    def values(self, dataset: str, system: str, metric: str | None = None) -> pd.Series:
        """One system's values on one dataset and metric, indexed by item id (seeds averaged).

        With a ``seed`` column the per-item value is the mean over seeds (the usual way to
        compare neural models trained with several random seeds on the same items).

        Parameters
        ----------
        dataset, system : str
            Which values.
        metric : str, optional
            Required when the dataset has several metrics.

        Returns
        -------
        pandas.Series
            The values, indexed by item id in table order.

        Raises
        ------
        ScoresError
            An unknown dataset, system or metric.

        Examples
        --------
        >>> from ranger_eval import Scores
        >>> scores = Scores.from_arrays({"qa": {"a": [0.8, 0.6, 0.9, 0.7], "b": [0.7, 0.6, 0.8, 0.5]}})
        >>> scores.values("qa", "a").tolist()
        [0.8, 0.6, 0.9, 0.7]
        """
        metric = self._resolve_metric(dataset, metric)
        df = self._df
        sel = df[(df["dataset"] == dataset) & (df["system"] == system) & (df["metric"] == metric)]
        if sel.empty:
            if dataset not in self.datasets:
                raise ScoresError(f"unknown dataset {dataset!r}; known: {_preview(self.datasets)}")
            raise ScoresError(
                f"system {system!r} has no scores on dataset {dataset!r} (metric {metric!r}); "
                f"systems there: {_preview(pd.unique(df.loc[df['dataset'] == dataset, 'system']))}"
            )
        if self.has_seeds:
            return sel.groupby("item", sort=True)["value"].mean()
        return sel.set_index("item")["value"].sort_index()

    def runs(
        self,
        dataset: str,
        system: str,
        metric: str | None = None,
        *,
        predictions: bool = False,
    ) -> SystemRuns:
        """One system's runs on one dataset and metric: values as a seeds × items matrix.

        ``predictions=True`` also reads the ``label`` (one per item: every row of an item must
        agree) and ``prediction`` columns, which must then exist and be non-empty on this
        system's rows. Raises :class:`ScoresError` naming the dataset, system, item and seed.

        Parameters
        ----------
        dataset, system : str
            Which runs.
        metric : str, optional
            Required when the dataset has several metrics.
        predictions : bool, default False
            Also read the labels and predictions (for set-level metrics such as F1).

        Returns
        -------
        SystemRuns
            ``items`` sorted, ``seeds`` in natural order (``("",)`` without a seed column),
            ``values`` seeds × items with NaN where a seed did not score an item.

        Raises
        ------
        ScoresError
            Unknown names; with ``predictions=True`` also missing or empty ``label`` /
            ``prediction`` values, an item with two labels, or a ``sample`` column.

        Examples
        --------
        >>> import pandas as pd
        >>> from ranger_eval import Scores
        >>> scores = Scores(pd.DataFrame({"dataset": "qa", "system": "a", "item": ["q1", "q2"] * 2,
        ...                               "seed": ["1", "1", "2", "2"], "value": [1, 0, 1, 1]}))
        >>> runs = scores.runs("qa", "a")
        >>> runs.seeds, runs.items.tolist(), runs.values.tolist()
        (('1', '2'), ['q1', 'q2'], [[1.0, 0.0], [1.0, 1.0]])
        """
        metric = self._resolve_metric(dataset, metric)
        df = self._df
        sel = df[(df["dataset"] == dataset) & (df["system"] == system) & (df["metric"] == metric)]
        if sel.empty:
            self.values(dataset, system, metric)  # raises with the known names
        items = np.sort(pd.unique(sel["item"]).astype(object))
        item_pos = pd.Index(items).get_indexer(sel["item"])
        if self.has_seeds:
            seeds = tuple(seed_order(pd.unique(sel["seed"])))
            seed_pos = pd.Index(seeds).get_indexer(sel["seed"])
        else:
            seeds = ("",)
            seed_pos = np.zeros(len(sel), dtype=np.int64)
        values = np.full((len(seeds), items.size), np.nan)
        values[seed_pos, item_pos] = sel["value"].to_numpy(dtype=np.float64)
        labels = preds = None
        if predictions:
            where = f"dataset {dataset!r}, system {system!r}, metric {metric!r}"
            if self.has_samples:
                raise ScoresError(
                    f"{where}: a set-level metric needs one prediction per item, but the scores "
                    f"have a 'sample' column (K = {self.samples_label} samples per item); "
                    "score each sample's predictions as its own seed, or use per-item values")
            if not self.has_predictions:
                absent = [c for c in (LABEL, PREDICTION) if c not in df.columns]
                raise ScoresError(
                    f"{where}: a set-level metric needs per-item columns 'label' and "
                    f"'prediction'; missing: {', '.join(map(repr, absent))}"
                )
            for col in (LABEL, PREDICTION):
                empty = sel[col].isna().to_numpy()
                if empty.any():
                    r = sel.iloc[int(np.flatnonzero(empty)[0])]
                    seed = f", seed {r['seed']!r}" if self.has_seeds else ""
                    raise ScoresError(
                        f"{where}: empty {col!r} for item {r['item']!r}{seed} "
                        f"({int(empty.sum())} such rows)"
                    )
            n_labels = sel.groupby("item", sort=True)[LABEL].nunique()
            if (n_labels > 1).any():
                bad = str(n_labels.index[np.flatnonzero(n_labels.to_numpy() > 1)[0]])
                shown = _preview(pd.unique(sel.loc[sel["item"] == bad, LABEL]))
                raise ScoresError(
                    f"{where}: item {bad!r} has different labels in different rows ({shown}); "
                    "an item has one gold label"
                )
            labels = np.empty(items.size, dtype=object)
            labels[item_pos] = sel[LABEL].to_numpy(dtype=object)
            labels = _tighten(labels)
            preds = np.full((len(seeds), items.size), None, dtype=object)
            preds[seed_pos, item_pos] = sel[PREDICTION].to_numpy(dtype=object)
        return SystemRuns(str(dataset), str(metric), str(system), items, seeds, values, labels, preds)

    def pair_runs(
        self,
        dataset: str,
        treatment: str,
        control: str,
        metric: str | None = None,
        missing: str = "error",
        *,
        predictions: bool = False,
    ) -> PairedRuns:
        """:meth:`runs` of ``treatment`` and ``control`` restricted to their common items.

        Item ids are matched as in :meth:`pair` (an item belongs to a system when any of its
        seeds scored it); ``missing`` is the same policy. With ``predictions=True`` the two
        systems must give every common item the same label.

        Parameters
        ----------
        dataset : str
            Which dataset.
        treatment, control : str
            The two systems.
        metric : str, optional
            Required when the dataset has several metrics.
        missing : {"error", "intersect"}, default "error"
            As in :meth:`pair`: items scored by only one system are an error, or dropped with a
            warning that counts them.
        predictions : bool, default False
            As in :meth:`runs`.

        Returns
        -------
        PairedRuns
            ``treatment`` and ``control`` :class:`SystemRuns` on the common ``items``;
            ``n_dropped`` counts the items left out.

        Raises
        ------
        ScoresError
            As :meth:`runs`; items that differ under ``missing="error"``; different labels.

        Examples
        --------
        >>> import pandas as pd
        >>> from ranger_eval import Scores
        >>> scores = Scores(pd.DataFrame({"dataset": "qa", "system": ["a"] * 4 + ["b"] * 4,
        ...                               "item": ["q1", "q2"] * 4, "seed": ["1", "1", "2", "2"] * 2,
        ...                               "value": [1, 0, 1, 1, 0, 0, 1, 0]}))
        >>> pair = scores.pair_runs("qa", "a", "b")
        >>> pair.n, pair.treatment.values.tolist(), pair.control.values.tolist()
        (2, [[1.0, 0.0], [1.0, 1.0]], [[0.0, 0.0], [1.0, 0.0]])
        """
        if missing not in MISSING_POLICIES:
            raise ScoresError(f"unknown missing policy {missing!r}; use one of {MISSING_POLICIES}")
        metric = self._resolve_metric(dataset, metric)
        t = self.runs(dataset, treatment, metric, predictions=predictions)
        c = self.runs(dataset, control, metric, predictions=predictions)
        common, dropped = common_items(
            t.items, c.items, treatment, control, f"dataset {dataset!r}", missing, stacklevel=3
        )
        t, c = t.select(common), c.select(common)
        if t.labels is not None and c.labels is not None:
            check_same_labels(t, c)
        return PairedRuns(str(dataset), metric, common, t, c, dropped)

    def pair_all(
        self,
        treatment: str,
        control: str,
        metric: str | None = None,
        datasets: Sequence[str] | None = None,
        missing: str = "error",
        *,
        stacklevel: int = 2,
    ) -> PairedTable:
        """:meth:`pair` of every dataset at once, in one columnar pass (no per-dataset scan).

        ``datasets`` selects and orders the datasets (default: all, in order of first
        appearance); ``metric=None`` uses each dataset's only metric. Same checks, policy and
        messages as :meth:`pair`; a dataset whose items differ is reported as :meth:`pair` does
        (pairing is checked for all datasets, in order, before anything is computed). Needs a
        table without a ``seed`` column (use :meth:`pair_runs` per dataset otherwise).
        ``stacklevel`` is passed on to the ``missing="intersect"`` warning.

        Parameters
        ----------
        treatment, control : str
            The two systems.
        metric : str, optional
            The metric (default: each dataset's only one).
        datasets : sequence of str, optional
            Which datasets, in this order (default: all).
        missing : {"error", "intersect"}, default "error"
            As in :meth:`pair`.
        stacklevel : int, default 2
            Of the warning that counts dropped items.

        Returns
        -------
        PairedTable
            Every dataset's aligned values concatenated, with ``offsets`` marking the datasets;
            ``pair(k)`` is the k-th dataset's :class:`PairedScores`.

        Raises
        ------
        ScoresError
            As :meth:`pair`, naming the dataset.

        Examples
        --------
        >>> from ranger_eval import Scores
        >>> scores = Scores.from_arrays({"qa": {"a": [0.8, 0.6], "b": [0.7, 0.6]},
        ...                              "mt": {"a": [1, 0, 1], "b": [0, 0, 1]}})
        >>> table = scores.pair_all("a", "b")
        >>> table.datasets, table.k, table.pair(1).n
        (('qa', 'mt'), 2, 3)
        """
        if missing not in MISSING_POLICIES:
            raise ScoresError(f"unknown missing policy {missing!r}; use one of {MISSING_POLICIES}")
        if self.has_seeds:
            raise ScoresError("pair_all needs scores without a 'seed' column; use pair_runs")
        treatment, control = str(treatment), str(control)
        df = self._df
        dcodes, duniq = self._factorized("dataset")  # first appearance = datasets
        known = tuple(str(x) for x in duniq)
        if datasets is None:
            chosen = known
            dpos = dcodes.astype(np.int64, copy=False)
        else:
            chosen = tuple(str(x) for x in datasets)
            known_set = set(known)
            unknown = [x for x in chosen if x not in known_set]
            if unknown:
                raise ScoresError(f"unknown dataset(s) {_preview(unknown)}; known: {_preview(known)}")
            if len(set(chosen)) != len(chosen):
                raise ScoresError(f"datasets lists a dataset twice: {_preview(chosen)}")
            mapping = pd.Index(chosen).get_indexer(pd.Index(known))
            dpos = mapping[dcodes]
        k = len(chosen)
        if k == 0:
            raise ScoresError("no datasets to pair")
        keep = dpos >= 0
        if metric is not None:
            metric = self._resolve_metric(chosen[0], metric)
            keep &= (df["metric"] == metric).to_numpy(dtype=bool)
            metrics = (str(metric),) * k
        else:
            mcodes, muniq = self._factorized("metric")
            if len(muniq) == 1:
                metrics = (str(muniq[0]),) * k
            else:
                pairs = np.unique(dpos[keep] * len(muniq) + mcodes[keep])
                per = np.bincount(pairs // len(muniq), minlength=k)
                for i in np.flatnonzero(per > 1):
                    self._resolve_metric(chosen[int(i)], None)  # raises, naming the metrics
                by_ds = np.empty(k, dtype=np.int64)
                by_ds[pairs // len(muniq)] = pairs % len(muniq)
                metrics = tuple(str(muniq[int(j)]) for j in by_ds)
        system = df["system"]
        is_t = (system == treatment).to_numpy(dtype=bool) & keep
        is_c = (system == control).to_numpy(dtype=bool) & keep
        sel = is_t | is_c
        item_codes, item_uniq = self._factorized("item")
        order = np.asarray(item_uniq.argsort(), dtype=np.int64)  # ids in sorted order
        rank = np.empty(len(order), dtype=np.int64)
        rank[order] = np.arange(len(order))
        icodes = rank[item_codes[sel]]
        iuniq = item_uniq.to_numpy(dtype=object)[order]
        ni = max(len(iuniq), 1)
        d_sel = dpos[sel]
        values = df["value"].to_numpy(dtype=np.float64)[sel]
        t_of_sel = is_t[sel]
        key = d_sel * ni + icodes.astype(np.int64, copy=False)
        key_t, key_c = key[t_of_sel], key[~t_of_sel]
        val_t, val_c = values[t_of_sel], values[~t_of_sel]
        nt = np.bincount(d_sel[t_of_sel], minlength=k)
        nc = np.bincount(d_sel[~t_of_sel], minlength=k)
        common, it, ic = np.intersect1d(key_t, key_c, assume_unique=True, return_indices=True)
        n_common = np.bincount(common // ni, minlength=k)
        dropped = nt + nc - 2 * n_common
        bad = np.flatnonzero((nt == 0) | (nc == 0) | (dropped > 0))
        if bad.size:
            order_t, order_c = np.argsort(key_t), np.argsort(key_c)
            sorted_t, sorted_c = key_t[order_t], key_c[order_c]
            for i in bad.tolist():
                name = chosen[i]
                for system_name, count in ((treatment, nt[i]), (control, nc[i])):
                    if count == 0:
                        self.values(name, system_name, metrics[i])  # raises, naming the systems
                ids = [iuniq[sorted_keys[np.searchsorted(sorted_keys, i * ni):
                                         np.searchsorted(sorted_keys, (i + 1) * ni)] - i * ni]
                       for sorted_keys in (sorted_t, sorted_c)]
                common_items(np.asarray(ids[0], dtype=object), np.asarray(ids[1], dtype=object),
                             treatment, control, f"dataset {name!r}", missing,
                             stacklevel=stacklevel)
        offsets = np.zeros(k + 1, dtype=np.int64)
        np.cumsum(n_common, out=offsets[1:])
        clusters = cluster_labels = None
        if self.has_cluster:
            row_codes, cluster_labels = self._row_cluster_codes()
            clusters = row_codes[sel][t_of_sel][it]
        return PairedTable(
            datasets=chosen, metrics=metrics, offsets=offsets,
            item_codes=common % ni, item_labels=np.asarray(iuniq, dtype=object),
            treatment=val_t[it], control=val_c[ic], n_dropped=dropped.astype(np.int64),
            clusters=clusters, cluster_labels=cluster_labels,
        )

    def codes(self, column: str) -> tuple[np.ndarray, pd.Index]:
        """Integer codes, row by row, of a key column of :attr:`table` (``dataset``,
        ``system``, ``metric`` or ``item``) and its distinct values in order of first
        appearance: computed once and cached (shared with the other views; do not modify
        them), so columnar code needs no second pass over the strings.

        Parameters
        ----------
        column : {"dataset", "system", "metric", "item"}
            The key column.

        Returns
        -------
        codes : numpy.ndarray
            One integer per row of :attr:`table`.
        values : pandas.Index
            The distinct values; ``values[codes]`` is the column.

        Examples
        --------
        >>> from ranger_eval import Scores
        >>> scores = Scores.from_arrays({"qa": {"a": [0.8, 0.6, 0.9, 0.7], "b": [0.7, 0.6, 0.8, 0.5]}})
        >>> codes, systems = scores.codes("system")
        >>> codes.tolist(), list(systems)
        ([0, 0, 0, 0, 1, 1, 1, 1], ['a', 'b'])
        """
        if column not in ("dataset", "system", "metric", "item"):
            raise ScoresError(f"codes: {column!r} is not a key column (dataset, system, "
                              "metric, item)")
        return self._factorized(column)

    def _factorized(self, col: str) -> tuple[np.ndarray, pd.Index]:
        """Codes and uniques (first appearance order) of a key column, cached."""
        if col not in self._codes:
            codes, uniques = pd.factorize(self._df[col], sort=False)
            self._codes[col] = (codes, pd.Index(uniques))
        return self._codes[col]

    def _resolve_metric(self, dataset: str, metric: str | None) -> str:
        if metric is not None:
            if metric not in self.metrics:
                raise ScoresError(f"unknown metric {metric!r}; known: {_preview(self.metrics)}")
            return metric
        here = pd.unique(self._df.loc[self._df["dataset"] == dataset, "metric"])
        if len(here) == 1:
            return str(here[0])
        if len(here) == 0:
            raise ScoresError(f"unknown dataset {dataset!r}; known: {_preview(self.datasets)}")
        hint = Hint("metric")
        raise ScoresError(
            f"dataset {dataset!r} has several metrics ({_preview(here)}); {hint.text}",
            hints=[hint])

    def pair(
        self,
        dataset: str,
        treatment: str,
        control: str,
        metric: str | None = None,
        missing: str = "error",
    ) -> PairedScores:
        """Align ``treatment`` and ``control`` on one dataset **by item id**.

        ``missing="error"`` (default) raises when the item sets differ, listing up to 10 ids per
        side; ``missing="intersect"`` keeps the common items, counts the dropped ones in
        ``n_dropped`` and warns.

        Parameters
        ----------
        dataset : str
            The dataset to align on.
        treatment, control : str
            The two systems.
        metric : str, optional
            Required when the dataset has several metrics.
        missing : {"error", "intersect"}, default "error"
            What to do when the item sets differ.

        Returns
        -------
        PairedScores
            ``treatment`` and ``control`` arrays aligned by ``items``, with ``n`` and ``n_dropped``.

        Raises
        ------
        ScoresError
            Unknown names, or different item sets with ``missing="error"``.

        Examples
        --------
        >>> from ranger_eval import Scores
        >>> scores = Scores.from_arrays({"qa": {"a": [0.8, 0.6, 0.9, 0.7], "b": [0.7, 0.6, 0.8, 0.5]}})
        >>> paired = scores.pair("qa", "a", "b")
        >>> paired.n, (paired.treatment - paired.control).round(2).tolist()
        (4, [0.1, 0.0, 0.1, 0.2])
        """
        if missing not in MISSING_POLICIES:
            raise ScoresError(f"unknown missing policy {missing!r}; use one of {MISSING_POLICIES}")
        metric = self._resolve_metric(dataset, metric)
        t = self.values(dataset, treatment, metric)
        c = self.values(dataset, control, metric)
        items, dropped = common_items(t.index.to_numpy(), c.index.to_numpy(), treatment, control,
                                      f"dataset {dataset!r}", missing)
        common = pd.Index(items)
        clusters = None
        if self.has_cluster:
            clusters = self.item_clusters(dataset).loc[common].to_numpy(dtype=object)
        return PairedScores(
            dataset=dataset,
            metric=metric,
            items=items,
            treatment=t.loc[common].to_numpy(dtype=np.float64),
            control=c.loc[common].to_numpy(dtype=np.float64),
            n_dropped=dropped,
            clusters=clusters,
        )


def concat_frames(frames: Sequence[pd.DataFrame]) -> pd.DataFrame:
    """``pd.concat`` of tidy frames that keeps what their ``attrs`` record (pandas drops attrs
    that differ between the parts): the declared ranges (``attrs[BOUNDS]``) of every part, a
    metric ranged differently by two parts taking the hull of both; the cluster field's name
    when the parts that name one agree."""
    out = pd.concat(frames, ignore_index=True)
    bounds: dict[str, tuple[float, float]] = {}
    for f in frames:
        for m, (lo, hi) in (f.attrs.get(BOUNDS) or {}).items():
            old = bounds.get(m)
            bounds[m] = (lo, hi) if old is None else (min(old[0], lo), max(old[1], hi))
    names = {f.attrs[CLUSTER_NAME] for f in frames if f.attrs.get(CLUSTER_NAME)}
    attrs = dict(out.attrs)
    if bounds:
        attrs[BOUNDS] = bounds
    if len(names) == 1:
        attrs[CLUSTER_NAME] = names.pop()
    out.attrs = attrs
    return out


def check_bounds(bounds: object, metrics: Sequence[str], *,
                 option: str = "bounds") -> dict[str, tuple[float, float]]:
    """``bounds`` as ``{metric: (lo, hi)}``: a mapping of metric to a pair of finite numbers
    with lo < hi, or one pair for every metric of ``metrics``; a :class:`ScoresError` names
    ``option`` and what is wrong (an unknown metric lists the known ones)."""
    def pair(key: str, value: object) -> tuple[float, float]:
        where = option if key == "" else f"{option}[{key!r}]"
        if isinstance(value, (str, bytes)) or not isinstance(value, (Sequence, np.ndarray)) \
                or len(value) != 2:
            raise ScoresError(f"{where} must be a pair [lo, hi] of numbers; got {value!r}")
        try:
            lo, hi = float(value[0]), float(value[1])
        except (TypeError, ValueError):
            raise ScoresError(f"{where} must be a pair [lo, hi] of numbers; got {value!r}") \
                from None
        if not (np.isfinite(lo) and np.isfinite(hi)) or lo >= hi:
            raise ScoresError(f"{where} must be finite with lo < hi; got [{lo!r}, {hi!r}]")
        return lo, hi

    if bounds is None:
        return {}
    if isinstance(bounds, dict):
        out = {}
        known = set(metrics)
        for key, value in bounds.items():
            if str(key) not in known:
                raise ScoresError(f"{option}: unknown metric {str(key)!r}; the scores have "
                                  f"{_preview(list(metrics))}")
            out[str(key)] = pair(str(key), value)
        return out
    lo_hi = pair("", bounds)
    return dict.fromkeys(metrics, lo_hi)


def as_scores(data: object, *, what: str, error: type[RangerError]) -> Scores:
    """``data`` as :class:`Scores`: a Scores as it is, any table-like input (``_frames`` rules,
    docs/api-inputs.md) through :func:`~ranger_eval._frames.as_frame`, whose container errors
    (duplicated or ambiguous MultiIndex columns, an id both index and column, a plain array …)
    name the entry point ``what`` and raise its ``error``; cell errors are the Scores' own.

    Parameters
    ----------
    data : Scores or table-like
        A :class:`Scores`, DataFrame, mapping of columns, structured array or Arrow table with
        the tidy columns (``dataset``, ``system``, ``item``, ``value`` …).
    what : str
        The entry point named in the container errors, e.g. ``"compare"``.
    error : type of RangerError
        The error class the entry point raises for a bad container.

    Returns
    -------
    Scores
        ``data`` itself when it is one, else a new Scores.

    Raises
    ------
    RangerError
        ``error`` for a container that is not a table; :class:`ScoresError` for bad columns or
        cells.

    Examples
    --------
    >>> import numpy as np
    >>> import pandas as pd
    >>> from ranger_eval.errors import CompareError
    >>> from ranger_eval.scores import as_scores
    >>> table = pd.DataFrame({"dataset": "qa", "system": ["a", "a", "b", "b"],
    ...                       "item": ["q1", "q2", "q1", "q2"], "value": [1, 0, 1, 1]})
    >>> scores = as_scores(table, what="compare", error=CompareError)
    >>> scores.systems, len(scores), as_scores(scores, what="compare", error=CompareError) is scores
    (('a', 'b'), 4, True)
    >>> as_scores(np.array([1, 2]), what="compare", error=CompareError)
    Traceback (most recent call last):
    ...
    ranger_eval.errors.CompareError: compare: a plain numpy array (dtype int64, shape (2,)) has no column names; ...
    """
    if isinstance(data, Scores):
        return data
    return Scores(as_frame(data, what=what, error=error, index_columns=KEY_COLUMNS))


def _row_context(df: pd.DataFrame, r: int) -> str:
    """``dataset 'd', system 's', item 'i'`` of row ``r``, for messages."""
    return (f"dataset {df['dataset'].iloc[r]!r}, system {df['system'].iloc[r]!r}, "
            f"item {df['item'].iloc[r]!r}")


def _cluster_ids(df: pd.DataFrame, where: str) -> pd.Series:
    """The ``cluster`` column as exact id strings (:func:`~ranger_eval._frames.id_strings`);
    a missing (NaN, None) or blank cluster id is an error naming the row and its item."""
    ids, bad = id_strings(df[CLUSTER])
    if bad is not None:
        r = bad.first
        problem = ("missing cluster id (NaN/None/empty cell)" if bad.problem == "missing id"
                   else f"column {CLUSTER!r}: {bad.problem} {bad.shown}")
        raise ScoresError(f"{problem} at row {r} ({_row_context(df, r)}){where}{bad.more()}; "
                          "every row needs the cluster of its item when there is a cluster "
                          "column")
    blank = np.flatnonzero(ids.str.strip().eq("").to_numpy(dtype=bool))
    if blank.size:
        r = int(blank[0])
        raise ScoresError(f"blank cluster id {ids.iloc[r]!r} at row {r} ({_row_context(df, r)})"
                          f"{where}" + (f"; {blank.size} such rows" if blank.size > 1 else "")
                          + "; every row needs the cluster of its item")
    return ids


def _human_values(df: pd.DataFrame, where: str) -> np.ndarray:
    """The ``human_value`` column as float64, NaN where there is no human score; a present
    cell that is not a finite number is an error naming the row."""
    col = df[HUMAN_VALUE]
    out = np.full(len(col), np.nan)
    present = ~col.isna().to_numpy(dtype=bool)
    if present.any():
        vals, bad = float_values(col[present])
        rows = np.flatnonzero(present)
        if bad is not None:
            r = int(rows[bad.first])
            raise ScoresError(f"column {HUMAN_VALUE!r}: {bad.problem} {bad.shown} at row {r} "
                              f"({_row_context(df, r)}){where}{bad.more()}")
        nonfinite = np.flatnonzero(~np.isfinite(vals))
        if nonfinite.size:
            r = int(rows[nonfinite[0]])
            raise ScoresError(f"column {HUMAN_VALUE!r}: non-finite value {float(vals[nonfinite[0]])!r} "
                              f"at row {r} ({_row_context(df, r)}){where}; leave the cell empty "
                              "where there is no human score")
        out[rows] = vals
    return out


def _check_one_cluster_per_item(
    df: pd.DataFrame, codes: dict[str, tuple[np.ndarray, pd.Index]], where: str
) -> None:
    """Every row of an item of a dataset carries the same cluster id; else an error naming the
    dataset, item, clusters and the rows (systems) that disagree. ``codes``: the factorised
    dataset and item columns of the duplicate check."""
    dcodes, _ = codes["dataset"]
    icodes, iuniq = codes["item"]
    ccodes, _ = pd.factorize(df[CLUSTER], sort=False)
    item_key = dcodes.astype(np.int64) * max(len(iuniq), 1) + icodes
    pairs = pd.DataFrame({"k": item_key, "c": ccodes}).drop_duplicates()
    if len(pairs) == len(pd.unique(item_key)):
        return
    bad_key = pairs["k"].to_numpy()[pairs["k"].duplicated(keep=False).to_numpy()]
    n_bad = len(np.unique(bad_key))
    rows = np.flatnonzero(item_key == bad_key[0])
    sub = df.iloc[rows]
    firsts = sub.drop_duplicates(CLUSTER)
    shown = "; ".join(
        f"{c!r} (row {int(r)}, system {s!r})"
        for c, r, s in zip(firsts[CLUSTER], firsts.index, firsts["system"], strict=True))
    raise ScoresError(
        f"dataset {sub['dataset'].iloc[0]!r}: item {sub['item'].iloc[0]!r} is in several "
        f"clusters: {shown}{where}"
        + (f" ({n_bad} items have more than one cluster)" if n_bad > 1 else "")
        + "; an item belongs to one cluster of its dataset, whatever the system, metric, seed "
        "or sample (clusters are nested within datasets)")


def _average_samples(
    df: pd.DataFrame, group: list[str], where: str
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The rows averaged over the ``sample`` column per ``group`` key (dataset, system,
    metric, item[, seed]): ``value`` (and ``human_value``) become per-item means, other
    columns keep the first sample's cell; with, per averaged row, ``k_samples`` and
    ``within_var`` (ddof = 1, NaN for K = 1). K must be equal over the items of a dataset ×
    system × metric, and a human score present for all K samples of an item or for none."""
    gid = df.groupby(group, sort=False, observed=True).ngroup().to_numpy()
    first = np.unique(gid, return_index=True)[1]  # groups are numbered by first appearance
    k = np.bincount(gid).astype(np.int64)
    by = pd.Series(df["value"].to_numpy(dtype=np.float64)).groupby(gid, sort=True)
    means = by.mean().to_numpy()
    within = by.var(ddof=1).to_numpy()
    out = df.iloc[first].drop(columns=[SAMPLE]).reset_index(drop=True)
    out["value"] = means
    block = out.groupby(["dataset", "system", "metric"], sort=False, observed=True).ngroup()
    block_codes = block.to_numpy()
    kmin = pd.Series(k).groupby(block_codes).transform("min").to_numpy()
    kmax = pd.Series(k).groupby(block_codes).transform("max").to_numpy()
    uneven = np.flatnonzero(kmin != kmax)
    if uneven.size:
        r = int(uneven[0])
        same = np.flatnonzero(block_codes == block_codes[r])
        lo = int(same[np.argmin(k[same])])
        hi = int(same[np.argmax(k[same])])
        n_blocks = len(np.unique(block_codes[uneven]))
        raise ScoresError(
            f"dataset {out['dataset'].iloc[r]!r}, system {out['system'].iloc[r]!r}, metric "
            f"{out['metric'].iloc[r]!r}: the number of samples K varies per item: item "
            f"{out['item'].iloc[lo]!r} has K = {k[lo]}, item {out['item'].iloc[hi]!r} has "
            f"K = {k[hi]}{where}"
            + (f" ({n_blocks} dataset × system × metric groups vary)" if n_blocks > 1 else "")
            + "; every item of a system needs the same number of samples (drop the extra "
            "samples or the incomplete items)")
    if HUMAN_VALUE in df.columns:
        hv = df[HUMAN_VALUE].to_numpy(dtype=np.float64)
        n_human = np.bincount(gid, weights=~np.isnan(hv)).astype(np.int64)
        partial = np.flatnonzero((n_human > 0) & (n_human < k))
        if partial.size:
            r = int(partial[0])
            raise ScoresError(
                f"column {HUMAN_VALUE!r}: {_row_context(out, r)}"
                f"{', metric ' + repr(out['metric'].iloc[r])} has a human score for {n_human[r]} "
                f"of its {k[r]} samples{where}; give it for all samples of an item or for none")
        out[HUMAN_VALUE] = pd.Series(hv).groupby(gid, sort=True).mean().to_numpy()
    stats = pd.DataFrame({"k_samples": k, "within_var": within})
    return out, stats


def _has_duplicate_keys(
    df: pd.DataFrame, key: list[str], store: dict[str, tuple[np.ndarray, pd.Index]]
) -> bool:
    """Whether two rows share ``key``: the key columns factorised into one int64 code per row,
    sorted, adjacent codes compared (O(rows · log rows), ~3× faster than hashing the frame).
    The factorised columns are put in ``store``."""
    gid = np.zeros(len(df), dtype=np.int64)
    span = 1
    for col in key:
        codes, uniques = pd.factorize(df[col], sort=False)
        store[col] = (codes, pd.Index(uniques))
        span *= max(len(uniques), 1)
        if span >= 2**62:  # the combined code would overflow: let pandas hash the rows
            return bool(df.duplicated(key).any())
        gid = gid * max(len(uniques), 1) + codes
    gid.sort()
    return bool(np.any(gid[1:] == gid[:-1]))


def _tighten(arr: np.ndarray) -> np.ndarray:
    """An object array as a numeric one when every entry is a (non-bool) number."""
    if arr.size and all(isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(
            v, (bool, np.bool_)) for v in arr):
        return arr.astype(np.float64) if any(
            isinstance(v, (float, np.floating)) for v in arr) else arr.astype(np.int64)
    return arr


def items_only_in(only_a: Sequence[object] | np.ndarray | pd.Index, name_a: str,
                  only_b: Sequence[object] | np.ndarray | pd.Index, name_b: str) -> str:
    """``3 only in 'A': a, b, c; 1 only in 'B': d`` (each side that has any; ids previewed by
    :func:`ranger_eval.formatting.preview`), for the messages about unmatched items."""
    parts = [f"{len(ids)} only in {name!r}: {_preview(ids)}"
             for ids, name in ((only_a, name_a), (only_b, name_b)) if len(ids)]
    return "; ".join(parts)


def common_items(
    a: np.ndarray, b: np.ndarray, name_a: str, name_b: str, where: str, missing: str,
    *, stacklevel: int = 2,
) -> tuple[np.ndarray, int]:
    """Sorted common item ids of two systems and how many were dropped (``missing`` policy:
    ``"error"`` raises :class:`ScoresError` listing up to 10 ids per side, ``"intersect"`` warns).
    ``where`` names the data in messages (e.g. ``"dataset 'd'"``).

    Parameters
    ----------
    a, b : numpy.ndarray
        The item ids of the two systems.
    name_a, name_b : str
        The two systems' names, for the messages.
    where : str
        The data, for the messages (``"dataset 'qa'"``).
    missing : {"error", "intersect"}
        What to do with items scored for only one system.
    stacklevel : int, default 2
        The warning's stack level, counted from the caller of this function.

    Returns
    -------
    common : numpy.ndarray
        The sorted common item ids (object array).
    dropped : int
        How many ids were scored for one system only.

    Raises
    ------
    ScoresError
        Items differ and ``missing="error"``, or no item is common.

    Warns
    -----
    UserWarning
        ``missing="intersect"`` dropped items (the warning counts them).

    Examples
    --------
    >>> import warnings
    >>> import numpy as np
    >>> from ranger_eval.scores import common_items
    >>> a, b = np.array(["q1", "q2", "q3"]), np.array(["q3", "q1"])
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     common, dropped = common_items(a, b, "a", "b", "dataset 'qa'", "intersect")
    >>> common.tolist(), dropped
    (['q1', 'q3'], 1)
    >>> common_items(a, b, "a", "b", "dataset 'qa'", "error")
    Traceback (most recent call last):
    ...
    ranger_eval.errors.ScoresError: items of 'a' and 'b' differ on dataset 'qa': 1 only in 'a': 'q2' (pass missing='intersect' to use the common items)
    """
    ia, ib = pd.Index(a), pd.Index(b)
    only_a = ia.difference(ib)
    only_b = ib.difference(ia)
    dropped = len(only_a) + len(only_b)
    if dropped:
        if missing == "error":
            hint = Hint("missing", "intersect")
            raise ScoresError(
                f"items of {name_a!r} and {name_b!r} differ on {where}: "
                + items_only_in(only_a, name_a, only_b, name_b)
                + f" ({hint.text} to use the common items)", hints=[hint]
            )
        warnings.warn(
            f"{where}: dropped {dropped} item(s) not scored for both {name_a!r} and {name_b!r}",
            stacklevel=stacklevel + 1,
        )
    common = ia.intersection(ib).sort_values()
    if common.empty:
        raise ScoresError(f"no common items between {name_a!r} and {name_b!r} on {where}")
    return common.to_numpy(dtype=object), dropped


def check_same_labels(a: SystemRuns, b: SystemRuns) -> None:
    """Two systems' runs (aligned on the same items) must give every item the same label.

    Parameters
    ----------
    a, b : SystemRuns
        Two systems' runs on the same items, with ``labels``.

    Returns
    -------
    None
        Returns quietly when every item has one label.

    Raises
    ------
    ScoresError
        Naming the first item whose labels differ (and how many differ).

    Examples
    --------
    >>> import numpy as np
    >>> from ranger_eval.scores import SystemRuns, check_same_labels
    >>> items = np.array(["q1", "q2"], dtype=object)
    >>> a = SystemRuns("qa", "acc", "a", items, ("",), np.array([[1.0, 0.0]]),
    ...                labels=np.array(["x", "y"], dtype=object))
    >>> b = SystemRuns("qa", "acc", "b", items, ("",), np.array([[1.0, 0.0]]),
    ...                labels=np.array(["x", "z"], dtype=object))
    >>> check_same_labels(a, a)
    >>> check_same_labels(a, b)
    Traceback (most recent call last):
    ...
    ranger_eval.errors.ScoresError: dataset 'qa' (metric 'acc'): item 'q2' has label 'y' for 'a' but 'z' for 'b'; an item has one gold label
    """
    assert a.labels is not None and b.labels is not None
    differ = np.flatnonzero(np.asarray(a.labels != b.labels, dtype=bool))
    if differ.size:
        i = int(differ[0])
        raise ScoresError(
            f"dataset {a.dataset!r} (metric {a.metric!r}): item {a.items[i]!r} has label "
            f"{a.labels[i]!r} for {a.system!r} but {b.labels[i]!r} for {b.system!r}"
            + (f" ({differ.size} items differ)" if differ.size > 1 else "")
            + "; an item has one gold label"
        )
