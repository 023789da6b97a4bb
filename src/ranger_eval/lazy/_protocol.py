"""What the lazy analyses read from a score table: the :class:`LazyTable` protocol.

:mod:`ranger_eval.lazy._compare` (``compare``, ``effect_sizes``) and
:mod:`ranger_eval.lazy._describe` (``describe``) compute from sufficient statistics and never
need the engine behind them; :class:`~ranger_eval.lazy.LazyScores` (DuckDB) and its subclass
:class:`~ranger_eval.lazy.DaskScores` provide them, and call the analyses from their own
``compare``/``describe``/``effect_sizes`` methods. Typing the analyses against this protocol
instead of ``LazyScores`` keeps the modules one-way (``_scan`` → ``_compare``/``_describe`` →
``_protocol``), with no import back to ``_scan``, not even for annotations.

The three private members are engine-specific (DuckDB answers them with SQL, Dask with its own
scans) and are read only on error paths (the example value of a binary-only test's error, the
items one system lacks) or by ``describe`` (the per-group statistics, cached by the engine), so
they stay methods of the engines rather than functions of a lower module.
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    import pandas as pd

    from ..scores import Scores
    from ._numeric import GroupStatistics

__all__ = ["LazyTable"]


class LazyTable(Protocol):
    """The members of a lazy score table that ``compare_lazy``, ``effect_sizes_lazy`` and
    ``describe_lazy`` use (see :class:`~ranger_eval.lazy.LazyScores` for their meaning)."""

    @property
    def datasets(self) -> tuple[str, ...]: ...

    @property
    def systems(self) -> tuple[str, ...]: ...

    @property
    def metrics(self) -> tuple[str, ...]: ...

    @property
    def has_seeds(self) -> bool: ...

    @property
    def has_cluster(self) -> bool: ...

    def groups(self) -> list[tuple[str, str, tuple[str, ...]]]: ...

    def load(self, *, datasets: Sequence[str] | None = None, metrics: Sequence[str] | None = None,
             systems: Sequence[str] | None = None, columns: str = "all") -> Scores: ...

    def sufficient_statistics(
        self, *, systems: Sequence[str] | None = None,
        pairs: Sequence[tuple[str, str]] | None = None, datasets: Sequence[str] | None = None,
        metrics: Sequence[str] | None = None, moments: bool = True,
    ) -> pd.DataFrame: ...

    def cluster_statistics(self, *, systems: Sequence[str] | None = None,
                           datasets: Sequence[str] | None = None,
                           metrics: Sequence[str] | None = None) -> pd.DataFrame: ...

    def nonbinary_counts(self) -> pd.DataFrame: ...

    def _group_statistics(self, groups: Sequence[tuple[str, str, tuple[str, ...]]]
                          ) -> dict[tuple[str, str], GroupStatistics]: ...

    def _first_nonbinary(self, d: str, m: str, system: str) -> float: ...

    def _only_in(self, d: str, m: str, x: str, y: str) -> list[str]: ...
