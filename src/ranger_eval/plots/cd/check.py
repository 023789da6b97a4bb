"""The numbers of a rank test that a CD diagram draws, checked once into a frozen
:class:`CDData` (each error names the system or the field and the value)."""
from __future__ import annotations

import math
from dataclasses import dataclass
from numbers import Real
from typing import Any

import numpy as np
import pandas as pd

from ...errors import PlotError
from .options import CDOptions

__all__ = ["CDData", "checked"]


@dataclass(frozen=True)
class CDData:
    """What the diagram shows: the systems (``names``) and their average ranks (``values``), the
    critical difference (None for Holm and Wilcoxon post-hoc tests), the cliques, the post-hoc
    procedure, its control and α, and the display names (``labels``) of the options."""

    names: tuple[str, ...]
    values: np.ndarray
    cd: float | None
    cliques: tuple[tuple[str, ...], ...]
    posthoc: str
    control: Any
    alpha: Any
    labels: dict[str, str]
    result: Any
    #: per clique, ``"equivalent"`` or ``"undecided"`` (a Bayesian rank test's; empty: all alike)
    clique_kinds: tuple[str, ...] = ()

    @property
    def k(self) -> int:
        """Number of systems."""
        return len(self.names)


def _get(result: Any, name: str) -> Any:
    if not hasattr(result, name):
        raise PlotError(
            f"cd_diagram needs a RankTest (ranger_eval.aggregate.rank_test); "
            f"{type(result).__name__} has no {name!r}"
        )
    return getattr(result, name)


def checked(rank_test: Any, options: CDOptions) -> CDData:
    """The rank test's average ranks (finite, from 1 to k, no system twice), critical difference
    (None or > 0), cliques and the options' labels (known systems only), or a
    :class:`~ranger_eval.errors.PlotError` naming the offending value."""
    ranks = _get(rank_test, "average_ranks")
    cd = _get(rank_test, "critical_difference")
    cliques = _get(rank_test, "cliques")
    if not isinstance(ranks, pd.Series) or ranks.empty:
        raise PlotError(f"rank_test.average_ranks must be a non-empty pandas Series; got {ranks!r}")
    names = [str(n) for n in ranks.index]
    values = ranks.to_numpy(dtype=float)
    k = len(names)
    if k < 2:
        raise PlotError(f"a CD diagram needs at least 2 systems; got {names}")
    if len(set(names)) != k:
        raise PlotError(f"rank_test.average_ranks has duplicate systems: {names}")
    bad = ~np.isfinite(values) | (values < 1 - 1e-9) | (values > k + 1e-9)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise PlotError(
            f"average rank of system {names[i]!r} must be between 1 and {k}; got {values[i]!r}"
        )
    if cd is not None:
        if not (isinstance(cd, Real) and math.isfinite(float(cd)) and float(cd) > 0):
            raise PlotError(f"rank_test.critical_difference must be None or > 0; got {cd!r}")
        cd = float(cd)
    known = set(names)
    for clique in cliques:
        unknown = [s for s in clique if str(s) not in known]
        if unknown:
            raise PlotError(f"clique {tuple(clique)!r} names unknown system(s) {unknown}")
    labels = dict(options.labels or {})
    unknown_labels = [s for s in labels if s not in known]
    if unknown_labels:
        raise PlotError(f"labels names unknown system(s) {unknown_labels}; systems: {names}")
    return CDData(
        names=tuple(names), values=values, cd=cd,
        cliques=tuple(tuple(str(s) for s in c) for c in cliques),
        posthoc=str(getattr(rank_test, "posthoc", "") or ""),
        control=getattr(rank_test, "control", None), alpha=getattr(rank_test, "alpha", None),
        labels=labels, result=rank_test,
        clique_kinds=tuple(str(k) for k in getattr(rank_test, "clique_kinds", ()) or ()),
    )
