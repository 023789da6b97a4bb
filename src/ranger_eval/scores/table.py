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
    the mean of its K samples, and the no-sample path is untouched. K may differ between items
    (a failed generation, a capped budget) and between systems: each item's value is the mean of
    its own K_i samples (every item weighs 1 in the analyses, as an item without samples does),
    and :meth:`Scores.sample_stats` keeps each row's K_i and within-item variance, so
    ``describe``'s within-item variance Σ_i s_i² / K_i / n² and pass@k (each item's own n) use
    the item's own count; :attr:`Scores.samples_label` is the signature's ``samples:`` field
    (``"3-5"`` when K varies). Duplicate (item, sample) rows are duplicate keys.
``prompt``
    which prompt template or paraphrase of the item a row answers: crossed with the items, part
    of the row key like ``sample`` (duplicate (item, prompt, sample) rows are duplicate keys).
    Rows are averaged per item over its prompts and samples at construction like samples, but
    unbalanced designs and missing item × prompt cells are allowed (K may vary per item; the
    per-item mean is the mean of the item's rows). :attr:`Scores.raw_frame` keeps the rows per
    prompt for the analyses that model prompts: :func:`ranger_eval.variance_components` and
    ``compare``'s crossed random-effects test.
``human_value``
    a human score of the row's output where one exists, NaN (or absent) elsewhere; finite where
    present. With samples it is averaged like ``value`` and must be present for all K samples of
    an item or for none. Read by prediction-powered inference (``ppi_mean``).
"""
from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np
import pandas as pd

from .._frames import as_frame, float_values, id_strings
from ..errors import Hint, RangerError, ScoresError
from ..formatting import preview as _preview
from .columns import (
    BOUNDS,
    CLUSTER,
    CLUSTER_NAME,
    DEFAULT_METRIC,
    HUMAN_VALUE,
    KEY_COLUMNS,
    LABEL,
    MISSING_POLICIES,
    PREDICTION,
    PROMPT,
    REQUIRED,
    SAMPLE,
)
from .runs import (
    PairedRuns,
    PairedScores,
    PairedTable,
    SystemRuns,
    check_same_labels,
    common_items,
    seed_order,
)
from .validation import (
    _average_samples,
    _check_one_cluster_per_item,
    _cluster_ids,
    _correctness,
    _has_duplicate_keys,
    _human_values,
    _tighten,
    check_bounds,
    concat_frames,
)

__all__ = ["Scores", "as_scores"]



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
        within = [c for c in (PROMPT, SAMPLE) if c in df.columns]  # averaged per item
        key.extend(within)
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
        if within:
            self._raw = df
            df, self._within = _average_samples(df, key[:-len(within)], where)
            self._codes = {}  # the codes were the raw rows'
        self._df = df

    @classmethod
    def _from_checked(cls, df: pd.DataFrame, *,
                      codes: dict[str, tuple[np.ndarray, pd.Index]] | None = None) -> Scores:
        """A Scores around ``df`` without checking it: for library code whose table is valid
        by construction (derived row by row from a validated Scores: ids exact non-blank
        strings, ``value`` finite float64, unique keys, one cluster per item, declared bounds
        held), so a million rows are not validated twice. ``codes`` are factorised key columns
        of ``df`` (as :meth:`codes` gives them) to reuse. Never for user data."""
        new = cls.__new__(cls)
        new._codes = dict(codes or {})
        new._raw = None
        new._within = None
        new._cluster_cache = {}
        new._df = df
        return new

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
        return self._raw is not None and SAMPLE in self._raw.columns

    @property
    def has_prompts(self) -> bool:
        """True when the table had a ``prompt`` column (its rows are per-item means over the
        item's prompts and samples now; :attr:`raw_frame` keeps the rows per prompt)."""
        return self._raw is not None and PROMPT in self._raw.columns

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
        when items or systems have different K; None without a ``sample`` column. With a ``prompt``
        column K counts the samples per item × prompt cell."""
        if self._within is None or self._raw is None or not self.has_samples:
            return None
        k = self._within["k_samples"].to_numpy()
        if self.has_prompts:
            raw = self._raw
            cell = [c for c in ("dataset", "system", "metric", "item", "seed", PROMPT)
                    if c in raw.columns]
            k = raw.groupby(cell, sort=False, observed=True).size().to_numpy()
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



