"""Leaderboards: systems × (dataset, metric) means with ranx-style letters of the systems each
one significantly beats, and the metric directions they read from the scores.
"""
from __future__ import annotations

import string
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..errors import CompareError


# --------------------------------------------------------------------------- leaderboard
def system_letters(n: int) -> tuple[str, ...]:
    """Letters for ``n`` systems in table order: a … z, then aa, ab, … (ranx's convention).

    Parameters
    ----------
    n : int
        The number of systems (0 gives no letters).

    Returns
    -------
    tuple of str
        ``n`` distinct letters, the i-th for the i-th system of the table.

    References
    ----------
    Bassani (2022), "ranx: a blazing-fast Python library for ranking evaluation and comparison",
    ECIR 2022 (the letters of its comparison tables).

    Examples
    --------
    >>> from ranger_eval.comparison.leaderboard import system_letters
    >>> system_letters(3), system_letters(28)[-3:]
    (('a', 'b', 'c'), ('z', 'aa', 'ab'))
    """
    letters = string.ascii_lowercase
    out = []
    for i in range(n):
        if i < 26:
            out.append(letters[i])
        else:
            j = i - 26
            out.append(letters[j // 26 % 26] + letters[j % 26])
    return tuple(out)


@dataclass(frozen=True)
class Leaderboard:
    """Systems × (dataset, metric) means with the letters of the systems each one beats.

    ``means[i, j]`` is system ``i``'s mean on column ``j`` (NaN when it was not compared there);
    ``beats[i][j]`` the letters (in table order) of the systems that system ``i`` significantly
    beats on column ``j``. ``ci_low``/``ci_high`` (same shape as ``means``, NaN where not
    defined; None when not computed) are the confidence interval of each mean at ``level``
    (:func:`ranger_eval.describe`: cluster-robust when ``clustered``); ``interval_method``
    names another method when there is one (the prediction-powered interval of judge scores with
    human scores), for the caption. ``n``, ``n_clusters`` and ``se`` (same shape; None when not
    computed) are each mean's items, clusters (items without clusters) and standard error, the
    plain or cluster-robust one of :func:`ranger_eval.describe` (the number an evaluation log
    reports: Inspect's ``stderr(cluster=...)``); ``intervals`` names each cell's interval
    (describe's ``interval`` column: ``t``, ``wilson``, ``korn-graubard``).
    Rendered by :mod:`ranger_eval.report`.
    """

    systems: tuple[str, ...]
    letters: tuple[str, ...]
    columns: tuple[tuple[str, str], ...]
    means: np.ndarray
    beats: tuple[tuple[str, ...], ...]
    signature: str
    #: Direction of each column (``True``: higher is better); empty means higher everywhere.
    higher_is_better: tuple[bool, ...] = ()
    ci_low: np.ndarray | None = None
    ci_high: np.ndarray | None = None
    level: float = 0.95
    clustered: bool = False
    interval_method: str | None = None
    n: np.ndarray | None = None
    n_clusters: np.ndarray | None = None
    se: np.ndarray | None = None
    intervals: np.ndarray | None = None
    #: the columns' metrics computed over the whole set (corpus BLEU, F1, MCC, perplexity …):
    #: no per-item standard error or interval (their cells show a dash, the caption says why)
    set_level: tuple[str, ...] = ()

    @property
    def has_counts(self) -> bool:
        """Whether ``n``, ``n_clusters`` and ``se`` are known."""
        return self.n is not None and self.n_clusters is not None and self.se is not None

    def interval_names(self) -> tuple[str, ...]:
        """The interval methods of the cells that have an interval, in order of appearance."""
        if self.intervals is None or self.ci_low is None:
            return ()
        shown = np.isfinite(self.ci_low)
        return tuple(dict.fromkeys(str(m) for m in self.intervals[shown] if m))

    @property
    def has_intervals(self) -> bool:
        """Whether the per-system confidence intervals are known (some finite)."""
        return self.ci_low is not None and bool(np.isfinite(self.ci_low).any())

    def interval(self, i: int, j: int) -> tuple[float, float] | None:
        """The confidence interval of ``means[i, j]``, or None where it is not defined."""
        if self.ci_low is None or self.ci_high is None:
            return None
        lo, hi = float(self.ci_low[i, j]), float(self.ci_high[i, j])
        return (lo, hi) if np.isfinite(lo) and np.isfinite(hi) else None

    def direction(self, j: int) -> bool:
        """``True`` when a higher mean is better in column ``j``."""
        return self.higher_is_better[j] if self.higher_is_better else True

    def headers(self) -> list[str]:
        """Column headers: the dataset, the metric, or both, whichever varies."""
        datasets = {d for d, _ in self.columns}
        metrics = {m for _, m in self.columns}
        if len(metrics) == 1:
            return [d for d, _ in self.columns]
        if len(datasets) == 1:
            return [m for _, m in self.columns]
        return [f"{d} {m}" for d, m in self.columns]

    def best(self) -> np.ndarray:
        """Boolean grid: the best mean of each column (the highest, or the lowest in a column
        where lower is better)."""
        best = np.zeros(self.means.shape, dtype=bool)
        for j in range(self.means.shape[1]):
            col = self.means[:, j]
            if np.isfinite(col).any():
                best[:, j] = col == (np.nanmax(col) if self.direction(j) else np.nanmin(col))
        return best

    def to_frame(self) -> pd.DataFrame:
        """Index ``system``; columns ``letter`` then ``(dataset, metric, mean|beats)``."""
        data: dict[object, object] = {("letter", "", ""): list(self.letters)}
        for j, (d, m) in enumerate(self.columns):
            data[(d, m, "mean")] = self.means[:, j]
            if self.se is not None and self.n is not None and self.n_clusters is not None:
                data[(d, m, "se")] = self.se[:, j]
                data[(d, m, "n")] = self.n[:, j]
                data[(d, m, "n_clusters")] = self.n_clusters[:, j]
            if self.ci_low is not None and self.ci_high is not None:
                data[(d, m, "ci_low")] = self.ci_low[:, j]
                data[(d, m, "ci_high")] = self.ci_high[:, j]
                if self.intervals is not None:
                    data[(d, m, "interval")] = self.intervals[:, j]
            data[(d, m, "beats")] = [self.beats[i][j] for i in range(len(self.systems))]
        frame = pd.DataFrame(data, index=pd.Index(self.systems, name="system"))
        frame.columns = pd.MultiIndex.from_tuples(
            list(frame.columns), names=["dataset", "metric", ""]
        )
        return frame


def metric_directions(scores: object) -> dict[tuple[str, str], bool]:
    """``(dataset, metric) -> higher_is_better`` from the scores' ``higher_is_better`` column
    (the adapters fill it from the tool's own metadata: lm-eval marks perplexity, TER, Brier
    score … lower-is-better). Groups without the column, or with only ``<NA>`` there, are left
    out (higher is better by default); a group whose rows disagree is an error.

    Parameters
    ----------
    scores : Scores or LazyScores
        The scores; anything without a ``higher_is_better`` column gives ``{}`` (lazy scores
        without it are answered from their column names, without reading a row).

    Returns
    -------
    dict
        ``(dataset, metric) -> bool`` for every group whose direction the column states.

    Raises
    ------
    CompareError
        A dataset × metric whose rows say both True and False.

    Examples
    --------
    >>> import pandas as pd
    >>> import ranger_eval as rg
    >>> from ranger_eval.comparison.leaderboard import metric_directions
    >>> scores = rg.Scores(pd.DataFrame({
    ...     "dataset": "d", "metric": "ppl", "system": ["A", "A", "B", "B"], "item": [0, 1, 0, 1],
    ...     "value": [3.0, 4.0, 5.0, 6.0], "higher_is_better": False}))
    >>> metric_directions(scores)
    {('d', 'ppl'): False}
    """
    columns = getattr(scores, "columns", None)  # lazy scores: known without reading a row
    if isinstance(columns, tuple) and "higher_is_better" not in columns:
        return {}
    frame = getattr(scores, "frame", None)
    if not isinstance(frame, pd.DataFrame) or "higher_is_better" not in frame.columns:
        return {}
    known = frame.loc[frame["higher_is_better"].notna(), ["dataset", "metric", "higher_is_better"]]
    if known.empty:
        return {}
    known = known.drop_duplicates()
    clash = known.duplicated(["dataset", "metric"], keep=False)
    if clash.any():
        d, m = known.loc[clash, ["dataset", "metric"]].iloc[0]
        raise CompareError(
            f"dataset {d!r}, metric {m!r}: the scores' higher_is_better column says both True "
            f"and False; give one direction per dataset × metric"
        )
    return {(str(d), str(m)): bool(h) for d, m, h in known.itertuples(index=False)}


def build_leaderboard(
    table: pd.DataFrame, means: pd.DataFrame, systems: Sequence[str], *, signature: str,
    higher_is_better: Mapping[tuple[str, str], bool] | None = None,
    intervals: pd.DataFrame | None = None, level: float = 0.95, clustered: bool = False,
    interval_method: str | None = None, described: pd.DataFrame | None = None,
    set_level: Sequence[str] = (),
) -> Leaderboard:
    """Assemble a :class:`Leaderboard` from comparison rows and per-system means.

    ``table`` needs ``dataset, metric, system_a, system_b, diff, significant``; ``means`` needs
    ``dataset, metric, system, mean``. Only compared pairs can give letters (with
    ``pairs="baseline"`` only the baseline's pairs do). ``higher_is_better`` maps a
    ``(dataset, metric)`` column to its direction (default: higher is better): a significant
    pair's winner is the system with the better mean, the lower one where lower is better.
    ``intervals`` (``dataset, metric, system, ci_low, ci_high``, e.g. from
    :func:`ranger_eval.describe`) gives each mean its confidence interval at ``level``
    (and, with describe's ``interval`` column, its method); ``described`` (describe's table:
    ``n``, ``n_clusters``, ``se``) gives each mean its counts and standard error.

    Parameters
    ----------
    table : DataFrame
        Pairwise comparison rows (:attr:`Comparison.table` or the like): ``dataset``, ``metric``,
        ``system_a``, ``system_b``, ``diff`` (a − b) and ``significant``.
    means : DataFrame
        Per-system means: ``dataset``, ``metric``, ``system``, ``mean``.
    systems : sequence of str
        The table order of the systems (those without a mean are left out); it fixes the letters.
    signature : str
        The reproducibility signature the leaderboard carries.
    higher_is_better : mapping, optional
        ``(dataset, metric) -> bool``; a column not listed is higher-is-better.
    intervals : DataFrame, optional
        Confidence intervals of the means (``dataset, metric, system, ci_low, ci_high`` and
        optionally ``interval``).
    level : float, default 0.95
        The confidence level of ``intervals`` (for the caption).
    clustered : bool, default False
        Whether the intervals are cluster-robust (for the caption).
    interval_method : str, optional
        The intervals' method when it is not the default one (e.g. ``"ppi++"``).
    described : DataFrame, optional
        Describe's table giving ``n``, ``n_clusters`` and ``se`` of each mean.
    set_level : sequence of str, default ()
        The metrics computed over the whole set (no per-item interval or standard error).

    Returns
    -------
    Leaderboard
        Systems × (dataset, metric) means, each system's letter and the letters it beats.

    Raises
    ------
    CompareError
        ``means`` is empty.

    Examples
    --------
    >>> import pandas as pd
    >>> from ranger_eval.comparison.leaderboard import build_leaderboard
    >>> table = pd.DataFrame({"dataset": "d", "metric": "acc", "system_a": ["A", "A", "B"],
    ...                       "system_b": ["B", "C", "C"], "diff": [-0.1, -0.2, -0.1],
    ...                       "significant": [True, True, False]})
    >>> means = pd.DataFrame({"dataset": "d", "metric": "acc", "system": ["A", "B", "C"],
    ...                       "mean": [0.5, 0.6, 0.7]})
    >>> lb = build_leaderboard(table, means, ["A", "B", "C"], signature="example")
    >>> lb.letters, lb.columns, lb.beats
    (('a', 'b', 'c'), (('d', 'acc'),), (('',), ('a',), ('a',)))
    """
    directions = dict(higher_is_better or {})
    if means.empty:
        raise CompareError("leaderboard: no means to show (empty selection)")
    present = set(means["system"])
    order = tuple(s for s in systems if s in present)
    letters = system_letters(len(order))
    letter_of = dict(zip(order, letters, strict=True))
    columns = tuple(
        dict.fromkeys(zip(means["dataset"].astype(str), means["metric"].astype(str), strict=True))
    )
    col_of = {c: j for j, c in enumerate(columns)}
    row_of = {s: i for i, s in enumerate(order)}
    grid = np.full((len(order), len(columns)), np.nan)
    for r in means.itertuples(index=False):
        grid[row_of[str(r.system)], col_of[(str(r.dataset), str(r.metric))]] = float(r.mean)  # type: ignore[arg-type]
    lows = highs = None
    if intervals is not None:
        lows, highs = np.full(grid.shape, np.nan), np.full(grid.shape, np.nan)
        for r in intervals.itertuples(index=False):
            i = row_of.get(str(r.system))
            j = col_of.get((str(r.dataset), str(r.metric)))
            if i is not None and j is not None:
                lows[i, j], highs[i, j] = float(r.ci_low), float(r.ci_high)  # type: ignore[arg-type]
    methods = None
    if intervals is not None and "interval" in intervals.columns:
        methods = np.full(grid.shape, "", dtype=object)
        for r in intervals.itertuples(index=False):
            i = row_of.get(str(r.system))
            j = col_of.get((str(r.dataset), str(r.metric)))
            if i is not None and j is not None:
                methods[i, j] = str(r.interval)
    counts: dict[str, np.ndarray | None] = {"n": None, "n_clusters": None, "se": None}
    if described is not None:
        for c in counts:
            counts[c] = np.full(grid.shape, np.nan)
        for r in described.itertuples(index=False):
            i = row_of.get(str(r.system))
            j = col_of.get((str(r.dataset), str(r.metric)))
            if i is not None and j is not None:
                for c in counts:
                    counts[c][i, j] = float(getattr(r, c))  # type: ignore[index]
    won: list[list[set[str]]] = [[set() for _ in columns] for _ in order]
    for r in table.itertuples(index=False):
        diff = float(r.diff)  # type: ignore[arg-type]
        if not bool(r.significant) or diff == 0:
            continue
        a, b = str(r.system_a), str(r.system_b)
        key = (str(r.dataset), str(r.metric))
        a_better = (diff > 0) == directions.get(key, True)
        winner, loser = (a, b) if a_better else (b, a)
        won[row_of[winner]][col_of[key]].add(letter_of[loser])
    beats = tuple(
        tuple("".join(sorted(cell, key=letters.index)) for cell in row) for row in won
    )
    return Leaderboard(
        systems=order, letters=letters, columns=columns, means=grid, beats=beats,
        signature=signature,
        higher_is_better=tuple(directions.get(c, True) for c in columns),
        ci_low=lows, ci_high=highs, level=level, clustered=clustered,
        interval_method=interval_method, n=counts["n"], n_clusters=counts["n_clusters"],
        se=counts["se"], intervals=methods,
        set_level=tuple(m for m in dict.fromkeys(m for _, m in columns) if m in set(set_level)),
    )
