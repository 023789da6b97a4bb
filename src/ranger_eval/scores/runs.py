"""Pairs and runs of a Scores table: two systems aligned by item (:class:`PairedScores`,
:class:`PairedTable`), the seeds of a system's runs (:class:`SystemRuns`, :class:`PairedRuns`,
:func:`seed_order`, :func:`seed_imbalance`) and the items two systems share
(:func:`items_only_in`, :func:`common_items`, :func:`check_same_labels`).
"""
from __future__ import annotations

import warnings
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..errors import Hint, ScoresError
from ..formatting import preview as _preview


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
