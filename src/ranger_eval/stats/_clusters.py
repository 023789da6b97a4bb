"""Cluster identifiers as integer codes, and per-cluster sums: the input every cluster-robust
kernel of :mod:`ranger_eval.stats.clustered` (which re-exports the public names) starts from.
"""
from __future__ import annotations

import numpy as np

from ._validation import (
    StatsInputError,
)

__all__ = ["cluster_codes", "cluster_sums"]


def cluster_codes(clusters: object, n: int, name: str = "clusters") -> tuple[np.ndarray, int]:
    """(codes, C): integer codes 0..C-1 of the cluster identifiers, numbered in order of first
    appearance (so one item per cluster gives codes 0..n-1 in item order), and the number C of
    clusters. Identifiers are compared as given (pandas ``factorize``); a missing one (None,
    NaN) or an empty string raises :class:`StatsInputError` naming its position.

    Parameters
    ----------
    clusters : array_like
        One cluster id per item.
    n : int
        The number of items.
    name : str, default "clusters"
        The keyword named in errors.

    Returns
    -------
    codes : numpy.ndarray of int
        Each item's cluster code.
    C : int
        The number of clusters.

    Raises
    ------
    StatsInputError
        A count other than ``n`` or a missing id.

    Examples
    --------
    >>> from ranger_eval.stats.clustered import cluster_codes
    >>> codes, c = cluster_codes(["b", "a", "b", "c"], 4)
    >>> codes.tolist(), c
    ([0, 1, 0, 2], 3)
    """
    import pandas as pd

    arr = np.asarray(clusters, dtype=object).reshape(-1) if not isinstance(
        clusters, np.ndarray) or clusters.dtype == object else np.asarray(clusters).reshape(-1)
    if arr.size != n:
        raise StatsInputError(f"{name} must hold one cluster id per item: {arr.size} ids for "
                              f"{n} items")
    codes, uniques = pd.factorize(arr, use_na_sentinel=True)
    bad = codes < 0
    if arr.dtype == object:
        bad |= np.array([isinstance(v, str) and v == "" for v in arr], dtype=bool)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise StatsInputError(f"{name}: the cluster id of item {i} is missing ({arr[i]!r}); "
                              f"{int(bad.sum())} item(s) have no cluster id")
    return codes.astype(np.intp), len(uniques)


def _need_clusters(c: int, what: str) -> None:
    if c < 2:
        raise StatsInputError(
            f"{what} needs at least 2 clusters (the cluster-robust variance has C - 1 degrees "
            f"of freedom); got {c} cluster: the items are one dependent unit, nothing can be "
            "tested across clusters")


def cluster_sums(values: np.ndarray, codes: np.ndarray, c: int) -> np.ndarray:
    """Per-cluster sums of the last axis of ``values`` (a vector or a rows x items matrix):
    shape (..., C). Sums run in item order within each cluster (a stable sort by code, then
    ``numpy.add.reduceat``).

    Parameters
    ----------
    values : numpy.ndarray
        A vector of n items or a rows × n matrix.
    codes : numpy.ndarray of int
        Each item's cluster code, 0 … C − 1 (:func:`cluster_codes`).
    c : int
        The number of clusters C.

    Returns
    -------
    numpy.ndarray
        Shape (..., C).

    Examples
    --------
    >>> import numpy as np
    >>> from ranger_eval.stats.clustered import cluster_sums
    >>> cluster_sums(np.array([1.0, 2.0, 3.0, 4.0]), np.array([0, 1, 0, 1]), 2).tolist()
    [4.0, 6.0]
    """
    v = np.asarray(values, dtype=np.float64)
    order = np.argsort(codes, kind="stable")
    sc = codes[order]
    starts = np.flatnonzero(np.r_[True, sc[1:] != sc[:-1]])
    if starts.size != c:
        raise StatsInputError(f"cluster codes must cover 0..{c - 1}; got {starts.size} distinct")
    if v.ndim == 1:
        return np.add.reduceat(v[order], starts)
    return np.add.reduceat(v[:, order], starts, axis=1)
