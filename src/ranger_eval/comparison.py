"""Multi-system comparison: pairwise tests per dataset × metric, multiplicity, effect sizes.

``compare(scores, ...)`` runs one two-system test per dataset × metric × pair of systems, adjusts
the p-values for multiplicity within a *family* of tests and returns a :class:`Comparison`.

Test selection (``test="auto"``) follows the decision table of the IBM multi-metric framework
(Ackerman et al. 2025, "Statistical multi-metric evaluation and visualization of LLM system
predictive performance"):

============================  =====================  ==========================
data                          paired (same item ids)  unpaired
============================  =====================  ==========================
numeric                       paired t-test           Welch's t-test
binary (every value 0 or 1)   McNemar's exact test    two-proportion z-test
============================  =====================  ==========================

The chosen test is recorded on every row. Explicit tests: ``"paired-t"``, ``"welch"``,
``"wilcoxon"``, ``"sign"``, ``"mannwhitney"``, ``"mcnemar"``, ``"proportions-z"``,
``"permutation"`` (paired sign-flip when paired, otherwise a two-sample permutation test) and
``"bootstrap"`` (paired bootstrap of the mean difference, BCa interval, shift-method p-value;
paired data only).

Conventions
-----------
* Orientation: ``diff = mean_a - mean_b``; ``alternative="greater"`` means system A scores higher.
  ``pairs="all"`` takes the systems in their given order (A before B); ``"successive"`` orders
  them by mean, highest first, and compares each with the next (so ``diff >= 0``);
  ``"baseline"`` compares every other system (A) with the baseline (B), so ``diff > 0`` means the
  system beats the baseline.
* Pairing is by item id. ``paired=None`` pairs two systems when they score the same item ids and
  treats them as independent samples when their items are disjoint; a partial overlap is an error
  listing the ids (``missing="intersect"`` keeps the common items, with a warning).
* Seeds: with a ``seed`` column the per-item value of a system is the mean over its seeds *before*
  testing (items, not seeds, are the unit of replication). ``seed_sd_a``/``seed_sd_b`` report the
  standard deviation (ddof=1) over seeds of the per-seed mean score: the run-to-run variability the
  test does not see. They are NaN without a seed column or with a single seed. Unbalanced seeds
  (systems of a dataset × metric with different numbers of seeds, or a seed that did not score
  every item of its system) are an error naming the systems and their seed counts, unless
  ``seeds="allow-unbalanced"``.
* Set-level metrics (``metric_fn="mcc"``, ``"macro_f1"``, ``"pearson"``, a callable …;
  :mod:`ranger_eval.setmetrics`): the test is on the metric itself, computed from the items'
  ``label`` and ``prediction`` columns; ``diff`` = metric(A) − metric(B) (means over seeds) and
  the ``metric`` column names the set metric. ``test="permutation"`` (also chosen by ``"auto"``)
  is the paired approximate-randomisation test: each resample swaps the two systems'
  predictions on the items whose :class:`~ranger_eval.stats.resampling.SignFlips` bit is set (all
  2^n swaps when 2^n <= n_resamples, p = #{|T*| >= |T|}/2^n; else p = (1 + #)/(1 + B); Noreen
  1989, Riezler & Maxwell 2005). ``test="bootstrap"`` is the paired bootstrap with the shift
  method, p = (1 + #{|T* − T| >= |T|})/(1 + B) (Efron & Tibshirani 1993, sec. 16.4; Koehn 2004),
  on :class:`~ranger_eval.stats.resampling.BootstrapIndices`. Both report the bootstrap
  percentile interval of the difference and the effect size d_z(boot) = diff / (sqrt(n)·SE*),
  SE* the bootstrap standard error (for a mean this is Cohen's d_z = mean(d)/sd(d)). With seeds
  the statistic is the mean over seed pairs (natural order) of the per-seed differences, and a
  permutation swaps an item in every seed at once; every seed must score every item.
* Confidence intervals are for the mean difference at ``level``, unadjusted for multiplicity:
  the test's own interval for the t-tests and the bootstrap; the paired t interval (paired data) or
  the Welch interval (unpaired) for the rank, sign and permutation tests and McNemar's test; the
  Wald interval of p_a - p_b (``statsmodels.stats.proportion.confint_proportions_2indep``) for
  the two-proportion z-test. Column ``ci_method`` names it.
* Effect sizes: Cohen's h = 2 asin(sqrt(p_a)) - 2 asin(sqrt(p_b)) for binary data; for numeric
  data Cohen's d_z = mean(d)/sd(d) when paired (as the IBM framework, t/sqrt(n)) and Cohen's d
  with the pooled SD when unpaired (:mod:`ranger_eval.stats.effectsize`). Labels follow
  Sawilowsky (2009): negligible < 0.01 ≤ very small < 0.2 ≤ small < 0.5 ≤ medium < 0.8 ≤ large
  < 1.2 ≤ very large < 2 ≤ huge.
* Multiplicity: ``correction`` is any method of ``statsmodels.stats.multitest.multipletests``
  (default ``"holm-sidak"``) or ``"none"``, applied within each family: ``"dataset-metric"``
  (the pairs of one dataset and metric), ``"dataset"`` or ``"all"``. A row is ``significant``
  when its adjusted p-value is at most alpha = 1 - level. ``"westfall-young"`` is Westfall &
  Young's (1993, Algorithm 2.8) step-down max-T adjustment from the joint sign-flip null of a
  dataset × metric (paired permutation tests, ``family="dataset-metric"`` only).
* Engine: each dataset × metric is aligned once into an items × systems matrix (item ids
  factorised to sorted integer codes; a table in blocks of one dataset, metric and system is
  encoded from its block heads and one copy of each item list, by Arrow); all pairs of one test
  and one shape are tested together with row operations and vectorised scipy calls
  (:mod:`ranger_eval.stats.many`), giving the same numbers, bit for bit, as the one-pair
  functions of :mod:`ranger_eval.stats`. Paired moments (mean and centred sum of squares of the
  differences, :func:`~ranger_eval.stats.many.paired_moments`) serve the paired t test, the
  paired t intervals and d_z; one ``stdtr``/``stdtrit`` call covers every dataset × metric.
* Resampling tests draw one sign-flip (or index) matrix, defined by the number of items, the
  number of resamples and the seed, so every pair with the same items sees the same resamples.
  Paired permutation tests of all dataset × metric groups with the same number of items share
  it: one product per batch of sign vectors with the systems' scores
  (:meth:`~ranger_eval.stats.resampling.SignFlips.count_pairs`, the same counts as the pairwise
  float64 product, proven by a rounding-error bound with exact recomputation inside it).
"""
from __future__ import annotations

import contextlib
import dataclasses
import itertools
import math
import string
import warnings
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from ._frames import as_frame
from ._version import __version__
from .atomic import write_text
from .errors import (
    CompareError,
    ScoresError,
    check_alternative,
    check_choice,
    check_correction,
    check_level,
)
from .formatting import preview as _preview
from .scores import KEY_COLUMNS, Scores, items_only_in
from .signature import Signature, make_signature

if TYPE_CHECKING:
    from .scores import SystemRuns
    from .setmetrics import SetMetric
    from .stats.results import ManyTestResult, TestResult

#: Seed policies of :func:`compare`.
SEED_POLICIES: tuple[str, ...] = ("balanced", "allow-unbalanced")
TESTS: tuple[str, ...] = (
    "auto",
    "paired-t",
    "welch",
    "wilcoxon",
    "sign",
    "mannwhitney",
    "mcnemar",
    "proportions-z",
    "permutation",
    "bootstrap",
)
PAIRED_ONLY = frozenset({"paired-t", "wilcoxon", "sign", "mcnemar", "bootstrap"})
UNPAIRED_ONLY = frozenset({"welch", "mannwhitney", "proportions-z"})
BINARY_ONLY = frozenset({"mcnemar", "proportions-z"})
RESAMPLING: tuple[str, ...] = ("permutation", "bootstrap")
PAIR_ORDERS: tuple[str, ...] = ("all", "baseline", "successive")
FAMILIES: tuple[str, ...] = ("dataset-metric", "dataset", "all")
ALTERNATIVES: tuple[str, ...] = ("two-sided", "greater", "less")
MISSING: tuple[str, ...] = ("error", "intersect")
#: The resampling-based correction (Westfall & Young 1993 step-down max-T; permutation tests).
WESTFALL_YOUNG = "westfall-young"

#: Columns of :meth:`Comparison.to_frame`, in order.
COLUMNS: tuple[str, ...] = (
    "dataset",
    "metric",
    "system_a",
    "system_b",
    "mean_a",
    "mean_b",
    "diff",
    "ci_low",
    "ci_high",
    "test",
    "statistic",
    "pvalue",
    "pvalue_adjusted",
    "effect_size",
    "effect_size_name",
    "effect_label",
    "significant",
    "paired",
    "n_a",
    "n_b",
    "ci_method",
    "seed_sd_a",
    "seed_sd_b",
)


#: Orders of the ranking comparisons (used by the aggregation layer too).
__all__ = [
    "COLUMNS",
    "CompareError",
    "Comparison",
    "Leaderboard",
    "RankIntervals",
    "TESTS",
    "build_leaderboard",
    "metric_directions",
    "compare",
    "rank_intervals",
    "system_letters",
]


# --------------------------------------------------------------------------- results
@dataclass(frozen=True)
class Comparison:
    """Pairwise comparisons of systems on every dataset × metric.

    ``table`` holds one row per dataset × metric × pair (columns :data:`COLUMNS`); ``means``
    one row per dataset × metric × system (``mean``, ``n``, ``seed_sd``, ``n_seeds``). The
    settings that produced them are kept for the reproducibility :attr:`signature`.
    ``scores`` are the per-item scores that were compared (after the ``systems`` selection).
    """

    table: pd.DataFrame
    means: pd.DataFrame
    systems: tuple[str, ...]
    scores: Scores
    test: str = "auto"
    pairs: str = "all"
    baseline: str | None = None
    alternative: str = "two-sided"
    correction: str = "holm-sidak"
    family: str = "dataset-metric"
    level: float = 0.95
    n_resamples: int = 10_000
    seed: int | None = 0
    version: str = __version__
    tests_used: tuple[str, ...] = field(default=())
    set_metrics: tuple[str, ...] = field(default=())
    seeds: str = "balanced"

    @property
    def alpha(self) -> float:
        return 1.0 - self.level

    @property
    def datasets(self) -> tuple[str, ...]:
        return tuple(pd.unique(self.table["dataset"]))

    @property
    def metrics(self) -> tuple[str, ...]:
        return tuple(pd.unique(self.table["metric"]))

    def to_frame(self) -> pd.DataFrame:
        """One row per dataset × metric × pair (a copy)."""
        return self.table.copy()

    @property
    def signature(self) -> Signature:
        """Reproducibility signature: tests, alternative, pairs, correction, family, alpha,
        resamples, seed and the ranger-eval version (see :mod:`ranger_eval.signature`)."""
        test = self.test
        if test == "auto":
            test = f"auto[{','.join(self.tests_used)}]" if self.tests_used else "auto"
        return make_signature(
            "compare",
            {
                "test": test,
                "alt": self.alternative,
                "pairs": self.pairs + (f"({self.baseline})" if self.baseline else ""),
                "corr": self.correction,
                "family": self.family,
                "alpha": _fmt_alpha(self.alpha),
                "n_resamples": self.n_resamples,
                "seed": self.seed,
                "method_detail": (
                    f"metric[{','.join(self.set_metrics)}]" if self.set_metrics else None
                ),
            },
        )

    def group(self, dataset: str | None = None, metric: str | None = None) -> tuple[str, str]:
        """The one dataset × metric selected by ``dataset``/``metric`` (either may be omitted
        when it is unambiguous); an error lists the choices."""
        return _select_group(self.means, dataset, metric)

    def __repr__(self) -> str:
        n_sig = int(self.table["significant"].sum())
        return (
            f"Comparison({len(self.table)} comparisons of {len(self.systems)} systems on "
            f"{len(self.datasets)} dataset(s) × {len(self.metrics)} metric(s), {n_sig} significant; "
            f"{self.signature})"
        )

    def leaderboard(self, metric: str | None = None, dataset: str | None = None) -> Leaderboard:
        """Systems × (dataset, metric) means with ranx-style significance letters.

        Letters a, b, c, … are given to the systems in table order; a cell carries the letters of
        the systems it significantly beats (significant pair, better mean: lower where the scores'
        ``higher_is_better`` column says lower is better, as the adapters record it for
        perplexity, TER, Brier score …). Render it with
        :func:`ranger_eval.report.to_markdown` / ``to_latex`` / ``to_html`` / ``to_csv``.
        """
        table, means = self.table, self.means
        if metric is not None:
            if metric not in self.metrics:
                raise CompareError(f"unknown metric {metric!r}; compared: {', '.join(self.metrics)}")
            table, means = table[table["metric"] == metric], means[means["metric"] == metric]
        if dataset is not None:
            if dataset not in self.datasets:
                raise CompareError(
                    f"unknown dataset {dataset!r}; compared: {', '.join(self.datasets)}"
                )
            table, means = table[table["dataset"] == dataset], means[means["dataset"] == dataset]
        return build_leaderboard(table, means, self.systems, signature=self.signature,
                                 higher_is_better=metric_directions(self.scores))

    def to_csv(self, path: str | Path | None = None) -> str:
        """CSV of :meth:`to_frame` at full precision; written (atomically) to ``path`` if given."""
        text = self.table.to_csv(index=False, lineterminator="\n")
        if path is not None:
            write_text(path, text)
        return text


# --------------------------------------------------------------------------- leaderboard
def system_letters(n: int) -> tuple[str, ...]:
    """Letters for ``n`` systems in table order: a … z, then aa, ab, … (ranx's convention)."""
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
    beats on column ``j``. Rendered by :mod:`ranger_eval.report`.
    """

    systems: tuple[str, ...]
    letters: tuple[str, ...]
    columns: tuple[tuple[str, str], ...]
    means: np.ndarray
    beats: tuple[tuple[str, ...], ...]
    signature: str
    #: Direction of each column (``True``: higher is better); empty means higher everywhere.
    higher_is_better: tuple[bool, ...] = ()

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
    out (higher is better by default); a group whose rows disagree is an error."""
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
) -> Leaderboard:
    """Assemble a :class:`Leaderboard` from comparison rows and per-system means.

    ``table`` needs ``dataset, metric, system_a, system_b, diff, significant``; ``means`` needs
    ``dataset, metric, system, mean``. Only compared pairs can give letters (with
    ``pairs="baseline"`` only the baseline's pairs do). ``higher_is_better`` maps a
    ``(dataset, metric)`` column to its direction (default: higher is better): a significant
    pair's winner is the system with the better mean, the lower one where lower is better.
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
    )


def _fmt_alpha(alpha: float) -> str:
    return f"{alpha:.6g}"


def _seed_sd(per_seed: np.ndarray) -> float:
    """SD (ddof=1) of a system's per-seed means, NaN for one seed; computed on the values times
    a power of two (:func:`ranger_eval.stats._scale.std`) so it neither under- nor overflows at
    1e±300."""
    if per_seed.size < 2:
        return math.nan
    from .stats import _scale

    return _scale.std(per_seed)


# --------------------------------------------------------------------------- validation
def _check_choice(name: str, value: object, choices: Sequence[str]) -> str:
    return check_choice(name, value, choices, error=CompareError)


# --------------------------------------------------------------------------- data access
def _select_systems(scores: Scores, here: set[str], systems: Sequence[str] | None,
                    where: str, *, order: Sequence[str] | None = None) -> list[str]:
    """The systems to compare on one dataset (× metric): ``systems`` if given (all must have
    scores there), else those present, in ``scores`` order (``order``: ``scores.systems``
    when the caller already has it); at least two."""
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
class _Group:
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
        from .stats._scale import mean as _mean  # no overflow near the float64 limit

        object.__setattr__(self, "means", tuple(_mean(r) for r in rows))
        object.__setattr__(self, "binary", tuple(_is_binary(r) for r in rows))

    def index(self, system: str) -> int:
        try:
            return int(self._position[system])  # type: ignore[attr-defined]
        except KeyError:
            raise ValueError(f"{system!r} is not a system of this group") from None

    def row(self, system: str) -> np.ndarray:
        """The system's values on its own items, in item order (a view when complete)."""
        i = self.index(system)
        return self.matrix[i] if self.complete else self.matrix[i, self.present[i]]

    def mean(self, system: str) -> float:
        return self.means[self.index(system)]


def _table(scores: Scores) -> pd.DataFrame:
    """The scores' tidy table for reading (``Scores.frame`` returns a copy; the engine only
    reads, so it uses the stored table, ``Scores.table``, when there is one)."""
    df = getattr(scores, "table", None)
    return df if isinstance(df, pd.DataFrame) else scores.frame


def _arrow_strings(column: pd.Series) -> bool:
    """The column holds pyarrow-backed strings (how Scores stores identifiers)."""
    dtype = column.dtype
    return isinstance(dtype, pd.StringDtype) and getattr(dtype, "storage", None) == "pyarrow"


def _arrow(column: pd.Series) -> Any:
    """The pyarrow array behind an Arrow-backed string column (no copy when it is one chunk)."""
    import pyarrow as pa

    chunked = pa.chunked_array(column)
    return chunked.chunk(0) if chunked.num_chunks == 1 else chunked.combine_chunks()


def _factorize(column: pd.Series, sort: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """``pd.factorize(column, sort=sort)`` of a string column: int64 codes and an object array
    of the distinct values (in order of first appearance, or sorted by code point).

    Arrow-backed columns (Scores stores identifiers as pyarrow strings) are encoded by Arrow:
    a column made of long runs of one value (dataset, metric, system of a tidy table) by its
    run heads (one vectorised comparison of neighbours), others by ``dictionary_encode``; about
    5x faster than hashing every row again. Other columns go through ``pd.factorize``.
    """
    if not _arrow_strings(column):
        pd_codes, uniques = pd.factorize(column, sort=sort)
        return pd_codes.astype(np.int64, copy=False), np.asarray(uniques, dtype=object)
    import pyarrow as pa
    import pyarrow.compute as pc

    arr = _arrow(column)
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


def _groups(
    scores: Scores, systems: Sequence[str] | None, seeds: str = "allow-unbalanced",
    layout: tuple[Any, ...] | None | bool = True,
) -> list[_Group]:
    """One :class:`_Group` per dataset × metric (datasets in order, then metrics in order of
    appearance), built from integer codes of the identifiers: item ids are factorised once,
    sorted, so columns are in item-id order, and seeds are averaged per system × item.

    Tidy tables usually come in blocks: runs of rows of one dataset, metric and system, most
    listing the same items in the same order. Then (:func:`_block_layout`) only the run heads
    and one copy of each item list are encoded and the matrix is filled block by block;
    otherwise every row is encoded (:func:`_groups_by_rows`). Both give the same groups.
    ``layout``: the table's :func:`_block_layout` when the caller has it.
    """
    df = _table(scores)
    if df.empty:
        return []
    if layout is True:  # not computed by the caller (``layout`` is this table's, or None)
        layout = _block_layout(df)
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
        names = _select_systems(scores, here, systems,
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
        out.append(_Group(dataset, metric, tuple(names), items_all[uitems], matrix, present,
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
        seed_sd[s] = _seed_sd(per_seed.to_numpy(dtype=float))


#: :func:`_block_layout` needs this many rows per block on average (else rows are encoded).
_MIN_BLOCK_ROWS = 64


def _block_layout(df: pd.DataFrame) -> tuple[Any, ...] | None:
    """Blocks of a tidy table: maximal runs of rows with one dataset, metric and system
    (``starts``, ``ends``, their codes), each block's item list as one of a few distinct
    patterns (a block whose items equal, in order, those of the last block of the same length
    that started a pattern reuses its codes; Arrow compares the strings), and the pattern's
    sorted item codes. ``None`` when the identifiers are not Arrow strings or the rows are not
    in blocks (fewer than :data:`_MIN_BLOCK_ROWS` rows per block)."""
    cols = ("dataset", "metric", "system", "item")
    if not all(_arrow_strings(df[c]) for c in cols):
        return None
    import pyarrow as pa
    import pyarrow.compute as pc

    size = len(df)
    arrs = {c: _arrow(df[c]) for c in cols}
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
    if starts.size * _MIN_BLOCK_ROWS > size:
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
) -> list[_Group]:
    """:func:`_groups` from per-row integer codes of the identifiers (any row order)."""
    df = _table(scores)
    ds_codes, ds_names = _factorize(df["dataset"])
    met_codes, met_names = _factorize(df["metric"])
    sys_codes, sys_names = _factorize(df["system"])
    item_codes, items_all = _factorize(df["item"], sort=True)
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
        names = _select_systems(scores, here, systems,
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
                seed_sd[s] = _seed_sd(per_seed.to_numpy(dtype=float))
        out.append(_Group(dataset, metric, tuple(names), items_all[uitems], matrix, present,
                          seed_sd, n_seeds, bool(present.all())))
    return out


def _check_seeds(
    scores: Scores, g: pd.DataFrame, dataset: str, metric: str, names: Sequence[str]
) -> None:
    """CompareError when the systems' seeds are unbalanced (``seeds="balanced"``)."""
    from .scores import seed_imbalance

    sub = g[g["system"].isin(list(names))]
    per = sub.groupby("system", sort=False).agg(
        n_seeds=("seed", "nunique"), n_items=("item", "nunique"), rows=("value", "size")
    )
    complete = bool((per["rows"] == per["n_seeds"] * per["n_items"]).all())
    if per["n_seeds"].nunique() <= 1 and complete:
        return
    problem = seed_imbalance([scores.runs(dataset, s, metric) for s in names])
    raise CompareError(
        f"dataset {dataset!r} (metric {metric!r}): unbalanced seeds: {problem}; pass "
        "seeds='allow-unbalanced' to average each system's seeds per item anyway"
    )


def _pairs_for(
    group: _Group, order: str | Sequence[tuple[str, str]], baseline: str | None
) -> list[tuple[str, str]]:
    means = {s: group.mean(s) for s in group.names}
    return _pair_list(list(group.names), means, group.dataset, group.metric, order, baseline)


def _pair_list(
    names: list[str],
    means: dict[str, float],
    dataset: str,
    metric: str,
    order: str | Sequence[tuple[str, str]],
    baseline: str | None,
) -> list[tuple[str, str]]:
    """The pairs to test among ``names`` (``means`` orders the ``"successive"`` pairs)."""
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


def _is_binary(v: np.ndarray) -> bool:
    return bool(np.all((v == 0.0) | (v == 1.0)))


@dataclass(frozen=True)
class _PairData:
    a: str
    b: str
    paired: bool
    x: np.ndarray  # system a (aligned with y when paired)
    y: np.ndarray
    items: np.ndarray | None = None  # column indices of the common items when paired
    own: bool = True  # x and y are the systems' own items (group.row), not an intersection

    @property
    def n(self) -> tuple[int, int]:
        return (self.x.size, self.y.size)


def _pair_data(
    group: _Group, a: str, b: str, test: str, paired: bool | None, missing: str
) -> _PairData:
    ia, ib = group.index(a), group.index(b)
    if group.complete:
        same, overlap = True, group.items.size > 0
        pa = pb = None
    else:
        pa, pb = group.present[ia], group.present[ib]
        same = bool(np.array_equal(pa, pb))
        overlap = bool((pa & pb).any())
    if test in UNPAIRED_ONLY:
        if paired:
            raise CompareError(f"test {test!r} is for independent samples; it cannot use paired=True")
        use_paired = False
    elif test in PAIRED_ONLY or paired:
        use_paired = True
    elif paired is False:
        use_paired = False
    else:  # auto / resampling with paired=None: paired when the systems score the same items
        if same:
            use_paired = True
        elif not overlap:
            use_paired = False
        else:
            use_paired = True  # partial overlap: the pairing below reports the ids
    if not use_paired:
        return _PairData(a, b, False, group.row(a), group.row(b), None)
    if same:
        cols = np.flatnonzero(group.present[ia]) if pa is not None else None
        return _PairData(a, b, True, group.row(a), group.row(b), cols)
    assert pa is not None and pb is not None
    only_a = group.items[pa & ~pb]
    only_b = group.items[pb & ~pa]
    if missing == "error":
        hint = (
            "pass missing='intersect' to use the common items"
            if test in PAIRED_ONLY or paired
            else "pass missing='intersect' to use the common items or paired=False to treat "
            "them as independent samples"
        )
        raise ScoresError(
            f"items of {a!r} and {b!r} differ on dataset {group.dataset!r} "
            f"(metric {group.metric!r}) but test {test!r} pairs them by item id: "
            + items_only_in(only_a, a, only_b, b)
            + f" ({hint})"
        )
    if not overlap:
        raise ScoresError(
            f"no common items between {a!r} and {b!r} on dataset {group.dataset!r} "
            f"(metric {group.metric!r}); a paired test is impossible"
        )
    warnings.warn(
        f"dataset {group.dataset!r} (metric {group.metric!r}): dropped "
        f"{len(only_a) + len(only_b)} item(s) not scored for both {a!r} and {b!r}",
        stacklevel=4,
    )
    cols = np.flatnonzero(pa & pb)
    return _PairData(a, b, True, group.matrix[ia, cols], group.matrix[ib, cols], cols, own=False)


def _pair_binary(group: _Group, pd_: _PairData) -> bool:
    """Every value of both systems of the pair is 0 or 1 (cached per system for own items)."""
    if pd_.own:
        return group.binary[group.index(pd_.a)] and group.binary[group.index(pd_.b)]
    return _is_binary(pd_.x) and _is_binary(pd_.y)


def _pair_means(group: _Group, pd_: _PairData) -> tuple[float, float]:
    """mean(x), mean(y) of a pair (cached per system for own items)."""
    from .stats._scale import mean as _mean

    if pd_.own:
        return group.means[group.index(pd_.a)], group.means[group.index(pd_.b)]
    return _mean(pd_.x), _mean(pd_.y)


def _choose_test(test: str, pd_: _PairData, group: _Group) -> str:
    binary = _pair_binary(group, pd_)
    if test == "auto":
        if binary:
            return "mcnemar" if pd_.paired else "proportions-z"
        return "paired-t" if pd_.paired else "welch"
    if test in BINARY_ONLY and not binary:
        bad_sys, vals = (pd_.a, pd_.x) if not _is_binary(pd_.x) else (pd_.b, pd_.y)
        first = vals[(vals != 0.0) & (vals != 1.0)][0]
        raise CompareError(
            f"test {test!r} needs binary (0/1) scores, but system {bad_sys!r} has value "
            f"{first!r} on dataset {group.dataset!r} (metric {group.metric!r})"
            + (" after averaging over seeds" if max(group.n_seeds.values()) > 1 else "")
        )
    return test


# --------------------------------------------------------------------------- one test
@dataclass(frozen=True)
class _Outcome:
    statistic: float
    pvalue: float
    ci_low: float
    ci_high: float
    ci_method: str


def _interval(r: TestResult) -> tuple[float, float]:
    """``(ci_low, ci_high)`` of a test that defines a confidence interval."""
    if r.ci_low is None or r.ci_high is None:
        raise CompareError(f"{r.test} did not return a confidence interval")
    return r.ci_low, r.ci_high


def _t_interval(pd_: _PairData, alternative: str, level: float) -> tuple[float, float, str]:
    from . import stats

    if pd_.paired:
        r = stats.paired_ttest(pd_.x, pd_.y, alternative=alternative, level=level)
        lo, hi = _interval(r)
        return float(lo), float(hi), "paired t"
    r = stats.welch_ttest(pd_.x, pd_.y, alternative=alternative, level=level)
    lo, hi = _interval(r)
    return float(lo), float(hi), "Welch t"


def _wald_interval(pd_: _PairData, alternative: str, level: float) -> tuple[float, float, str]:
    """Wald interval of p_a - p_b (statsmodels ``confint_proportions_2indep``, method "wald")."""
    from statsmodels.stats.proportion import confint_proportions_2indep

    alpha = 1.0 - level
    two_sided_alpha = alpha if alternative == "two-sided" else 2.0 * alpha
    lo, hi = confint_proportions_2indep(
        pd_.x.sum(), pd_.x.size, pd_.y.sum(), pd_.y.size, method="wald", compare="diff",
        alpha=two_sided_alpha,
    )
    lo, hi = float(lo), float(hi)
    if alternative == "greater":
        hi = math.inf
    elif alternative == "less":
        lo = -math.inf
    return lo, hi, "Wald"


def _classical(
    test: str, pd_: _PairData, alternative: str, level: float,
    interval: tuple[float, float, str] | None = None,
) -> _Outcome:
    """One pair, one test (``interval``: its t interval when already computed)."""
    from . import stats

    x, y = pd_.x, pd_.y
    if test == "paired-t":
        r = stats.paired_ttest(x, y, alternative=alternative, level=level)
        return _Outcome(r.statistic, r.pvalue, *_interval(r), "paired t")
    if test == "welch":
        r = stats.welch_ttest(x, y, alternative=alternative, level=level)
        return _Outcome(r.statistic, r.pvalue, *_interval(r), "Welch t")
    if test == "wilcoxon":
        r = stats.wilcoxon(x, y, alternative=alternative, level=level)
    elif test == "sign":
        r = stats.sign_test(x, y, alternative=alternative)
    elif test == "mannwhitney":
        r = stats.mannwhitney(x, y, alternative=alternative)
    elif test == "mcnemar":
        r = stats.mcnemar(x, y, alternative=alternative, exact=True)
    elif test == "proportions-z":
        r = stats.proportions_ztest(
            [x.sum(), y.sum()], [x.size, y.size], alternative=alternative
        )
        lo, hi, how = _wald_interval(pd_, alternative, level)
        return _Outcome(r.statistic, r.pvalue, lo, hi, how)
    else:  # pragma: no cover - guarded by _check_choice
        raise CompareError(f"unknown test {test!r}")
    lo, hi, how = interval if interval is not None else _t_interval(pd_, alternative, level)
    return _Outcome(r.statistic, r.pvalue, lo, hi, how)


def _effect(pd_: _PairData, group: _Group) -> tuple[float, str]:
    from . import stats

    if _pair_binary(group, pd_):
        return float(stats.cohens_h(*_pair_means(group, pd_))), "cohens_h"
    if pd_.paired:
        return float(stats.cohens_dz(pd_.x, pd_.y)), "cohens_dz"
    return float(stats.cohens_d(pd_.x, pd_.y)), "cohens_d"


@contextlib.contextmanager
def _context(group: _Group, pairs: list[_PairData]) -> Iterator[None]:
    """Re-raise a statistical input error with the dataset, metric and systems it concerns
    (the one pair when the error names its row of a vectorised kernel: ``exc.row``)."""
    from .stats import StatsInputError

    try:
        yield
    except StatsInputError as exc:
        row, msg = getattr(exc, "row", None), str(exc)
        if isinstance(row, int) and 0 <= row < len(pairs):
            which = f"systems {pairs[row].a!r} vs {pairs[row].b!r}"
            msg = msg.replace(f" (row {row})", "")
        else:
            which = ", ".join(f"{p.a!r} vs {p.b!r}" for p in pairs[:3])
        raise CompareError(
            f"dataset {group.dataset!r} (metric {group.metric!r}), {which}: {msg}"
        ) from None


def _check_outcome(group: _Group, d: _PairData, test: str, o: _Outcome, alternative: str
                   ) -> None:
    """Raise :class:`CompareError` naming the dataset, metric, systems and value when a pair's
    result is not representable: a NaN statistic or p-value, a mean difference or a (finite
    side of the) confidence interval beyond float64. The tests rescale extreme scores exactly
    (:mod:`ranger_eval.stats._scale`), so this is reached only when the answer itself does not
    fit in float64 (e.g. means of -1.7e308 and 1.7e308), never as the multiplicity step's
    anonymous "p-values must lie in [0, 1]"."""
    mean_a, mean_b = _pair_means(group, d)
    with np.errstate(over="ignore", invalid="ignore"):
        diff = mean_a - mean_b
    problems = []
    if not math.isfinite(diff):
        problems.append(f"the mean difference {mean_a!r} - {mean_b!r} is beyond the float64 "
                        "range (±1.8e308)")
    if math.isnan(o.statistic):
        problems.append(f"the {test} statistic is {o.statistic!r}")
    if not 0.0 <= o.pvalue <= 1.0:
        problems.append(f"the {test} p-value is {o.pvalue!r}")
    for bound, value, needed in (("lower", o.ci_low, alternative != "less"),
                                 ("upper", o.ci_high, alternative != "greater")):
        if math.isnan(value) or (needed and math.isinf(value)):
            problems.append(f"the {bound} bound of the {o.ci_method} interval is {value!r} "
                            "(beyond the float64 range)")
    if problems:
        raise CompareError(
            f"dataset {group.dataset!r} (metric {group.metric!r}), systems {d.a!r} vs {d.b!r}: "
            f"{'; '.join(problems)}: the result does not fit in float64; rescale the scores "
            "(e.g. divide them by a power of ten)"
        )


# --------------------------------------------------------------------------- all pairs at once
def _buckets(data: list[_PairData], idx: Iterable[int]) -> dict[tuple[bool, int, int], list[int]]:
    """Pairs of equal shape (paired flag, n_a, n_b), in order: each is one matrix."""
    out: dict[tuple[bool, int, int], list[int]] = {}
    for i in idx:
        d = data[i]
        out.setdefault((d.paired, d.x.size, d.y.size), []).append(i)
    return out


def _stack_diffs(data: list[_PairData], idx: list[int]) -> np.ndarray:
    """The pairs' differences x - y, one row each; a difference beyond float64 (scores near
    ±1.8e308 of opposite signs) raises naming the pair and the two scores (the caller adds the
    dataset and metric)."""
    from .stats import StatsInputError

    with np.errstate(over="ignore"):
        d = np.stack([data[i].x - data[i].y for i in idx])
    if not np.isfinite(d).all():
        j, c = (int(v) for v in np.argwhere(~np.isfinite(d))[0])
        p = data[idx[j]]
        err = StatsInputError(
            f"the difference of the scores {float(p.x[c])!r} - {float(p.y[c])!r} (item "
            f"{c + 1} of the pair) is beyond the float64 range (±1.8e308); rescale the scores "
            "(e.g. divide them by a power of ten)"
        )
        err.row = j  # type: ignore[attr-defined]  # _context names the pair
        raise err
    return d


def _pair_rows(
    group: _Group, data: list[_PairData], sub: list[int]
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(values, ia, ib) with data[sub[j]].x - .y = values[ia[j]] - values[ib[j]]: the group's
    systems x items matrix when every system scores every item (no copy), else the pairs' own
    aligned rows stacked (x rows, then y rows)."""
    if group.complete:
        ia = np.array([group.index(data[i].a) for i in sub], dtype=np.intp)
        ib = np.array([group.index(data[i].b) for i in sub], dtype=np.intp)
        return group.matrix, ia, ib
    m = len(sub)
    values = np.stack([data[i].x for i in sub] + [data[i].y for i in sub])
    return values, np.arange(m, dtype=np.intp), np.arange(m, 2 * m, dtype=np.intp)


@dataclass
class _Shared:
    """The work of all dataset × metric groups that is done once, after every group is
    prepared: one t-distribution call (``scipy.special.stdtr``/``stdtrit``) for every paired t
    statistic and interval, and one sign-flip count per number of items for all paired
    permutation tests (:meth:`~ranger_eval.stats.resampling.SignFlips.count_pairs`: the sign
    matrix is defined by n, B and the seed alone, so groups with the same n share it)."""

    alternative: str
    level: float
    n_resamples: int
    seed: int | None
    moments: list[Any] = field(default_factory=list)
    n_moments: int = 0
    perm: dict[int, list[tuple[np.ndarray, np.ndarray, np.ndarray, _GroupWork, list[int]]]] = (
        field(default_factory=dict))
    t: ManyTestResult | None = None
    mean: np.ndarray = field(default_factory=lambda: np.empty(0))
    t_used: list[int] = field(default_factory=list)  # rows whose t test or interval is reported

    def add_moments(self, m: Any) -> int:
        """Queue the :class:`~ranger_eval.stats.many.PairedMoments` of some pairs; returns the
        row of the first one in :attr:`t`."""
        first = self.n_moments
        self.moments.append(m)
        self.n_moments += len(m)
        return first

    def run(self) -> None:
        from .progress import progress_bar
        from .stats import SignFlips
        from .stats.many import PairedMoments

        if self.moments:
            allm = PairedMoments.concat(self.moments)
            # overflow="inf": a location beyond float64 is reported per pair by _check_outcome
            self.t = allm.ttest(self.alternative, self.level, warn=False, overflow="inf")
            self.mean = allm.location(overflow="inf")
            allm.warn_cancellation(np.asarray(self.t_used, dtype=np.intp))
        for n, jobs in self.perm.items():
            starts = np.cumsum([0] + [v.shape[0] for v, *_ in jobs])
            values = np.concatenate([v for v, *_ in jobs])
            ia = np.concatenate([a + o for (_, a, _, _, _), o in zip(jobs, starts, strict=False)])
            ib = np.concatenate([b + o for (_, _, b, _, _), o in zip(jobs, starts, strict=False)])
            flips = SignFlips(n, self.n_resamples, self.seed)
            with progress_bar(f"permutation tests, {ia.size} pairs", flips.size) as advance:
                count = flips.count_pairs(values, ia, ib, self.alternative, advance=advance)
            p = flips.pvalues(count)
            at = 0
            for _, a, _, work, sub in jobs:
                for j, i in enumerate(sub):
                    work.perm_p[i] = float(p[at + j])
                at += a.size


class _GroupWork:
    """The pairs of one dataset × metric, tested with column operations (see
    :meth:`prepare`); :meth:`finish` reads what :class:`_Shared` computed for all groups."""

    def __init__(self, group: _Group, data: list[_PairData], chosen: list[str]) -> None:
        self.group, self.data, self.chosen = group, data, chosen
        self.out: dict[int, _Outcome] = {}
        self.t_row: dict[int, int] = {}  # pair -> row of its paired t in _Shared.t
        self.t_ci: set[int] = set()  # pairs whose interval is that paired t interval
        self.perm_p: dict[int, float] = {}
        self.effects: dict[int, tuple[float, str]] = {}
        self.adjusted: np.ndarray | None = None

    def prepare(self, shared: _Shared, westfall_young: bool) -> None:
        """Every test that is not shared between groups, in the order of the one-pair engine
        (so its errors come first as before); queue the paired t and permutation tests.

        Pairs of one test and one shape form a pairs × items matrix: t, Welch, McNemar and z
        statistics are row operations with one vectorised scipy call for p-values and intervals
        (:mod:`ranger_eval.stats.many`); paired moments (mean, centred sum of squares) are one
        pass over the differences of the system rows and serve the paired t test, the paired
        t interval of the rank, sign, McNemar and permutation tests and d_z; permutation and
        bootstrap tests share one sign-flip / bootstrap index matrix (defined by n, B and the
        seed alone, so every pair sees the same resamples). Rank and sign tests run pair by pair.
        ``westfall_young`` computes the step-down max-T adjusted p-values of the group's paired
        permutation tests here (one joint null per group).
        """
        from . import stats
        from .progress import progress_bar
        from .stats import many

        group, data, chosen = self.group, self.data, self.chosen
        alternative, level = shared.alternative, shared.level
        n_resamples, seed = shared.n_resamples, shared.seed
        paired_idx = [i for i, d in enumerate(data) if d.paired and d.x.size >= 2]
        dz: dict[int, float] = {}
        for sub in _buckets(data, paired_idx).values():
            values, ia, ib = _pair_rows(group, data, sub)
            m = many.paired_moments(values, ia, ib)
            first = shared.add_moments(m)
            es = m.cohens_dz()
            for j, i in enumerate(sub):
                self.t_row[i] = first + j
                dz[i] = float(es[j])
        by_test: dict[str, list[int]] = {}
        for i, c in enumerate(chosen):
            by_test.setdefault(c, []).append(i)
        intervals: dict[int, tuple[float, float, str]] = {}
        need_t = [i for t in ("wilcoxon", "sign", "mannwhitney", "mcnemar", "permutation")
                  for i in by_test.get(t, [])]
        for (paired, na, nb), sub in _buckets(data, need_t).items():
            if min(na, nb) < 2:
                for i in sub:
                    with _context(group, [data[i]]):
                        intervals[i] = _t_interval(data[i], alternative, level)
            elif paired:
                self.t_ci.update(sub)
                shared.t_used.extend(self.t_row[i] for i in sub)
                for i in sub:
                    intervals[i] = (math.nan, math.nan, "paired t")
            else:
                with _context(group, [data[i] for i in sub]):
                    w = many.welch_ttest_many(np.stack([data[i].x for i in sub]),
                                              np.stack([data[i].y for i in sub]),
                                              alternative=alternative, level=level)
                assert w.ci_low is not None and w.ci_high is not None
                for j, i in enumerate(sub):
                    intervals[i] = (float(w.ci_low[j]), float(w.ci_high[j]), "Welch t")
        if westfall_young:
            idx = by_test.get("permutation", [])
            shapes = _buckets(data, idx)
            if len(idx) != len(data) or len(shapes) != 1 or not next(iter(shapes))[0]:
                raise CompareError(
                    f"correction='westfall-young' needs one joint sign-flip null: on dataset "
                    f"{group.dataset!r} (metric {group.metric!r}) every pair must be a paired "
                    "permutation test on the same items (test='permutation' with paired data); "
                    f"tests here: {', '.join(sorted(set(chosen)))}"
                )
            self.adjusted = np.empty(len(data))
        where = f"{group.dataset}/{group.metric}"
        out = self.out
        for test, idx in by_test.items():
            for (paired, na, nb), sub in _buckets(data, idx).items():
                pairs = [data[i] for i in sub]
                small = min(na, nb) < (1 if test == "mcnemar" else 2)
                if test in ("wilcoxon", "sign", "mannwhitney") or small or (
                        test == "permutation" and not paired):
                    for i in sub:
                        d = data[i]
                        with _context(group, [d]):
                            if test == "permutation":
                                r1 = stats.permutation_test(d.x, d.y, alternative=alternative,
                                                            n_resamples=n_resamples, seed=seed)
                                out[i] = _Outcome(r1.statistic, r1.pvalue, *intervals[i][:2],
                                                  intervals[i][2])
                            elif test in ("wilcoxon", "sign", "mannwhitney"):
                                out[i] = _classical(test, d, alternative, level, intervals.get(i))
                            else:
                                out[i] = _classical(test, d, alternative, level)
                    continue
                if test == "paired-t":
                    shared.t_used.extend(self.t_row[i] for i in sub)
                    continue  # from the shared t distribution call (finish)
                if test == "permutation" and self.adjusted is None:
                    values, ia, ib = _pair_rows(group, data, sub)
                    shared.perm.setdefault(na, []).append((values, ia, ib, self, sub))
                    continue
                r: ManyTestResult
                with _context(group, pairs):
                    if test == "welch":
                        r = many.welch_ttest_many(np.stack([d.x for d in pairs]),
                                                  np.stack([d.y for d in pairs]),
                                                  alternative=alternative, level=level)
                        how = "Welch t"
                    elif test == "mcnemar":
                        r = many.mcnemar_many(np.stack([d.x for d in pairs]),
                                              np.stack([d.y for d in pairs]),
                                              alternative=alternative)
                    elif test == "proportions-z":
                        ca = np.array([d.x.sum() for d in pairs])
                        cb = np.array([d.y.sum() for d in pairs])
                        size_a, size_b = np.full(ca.size, na), np.full(cb.size, nb)
                        r = many.proportions_ztest_many(ca, size_a, cb, size_b,
                                                        alternative=alternative)
                        lo, hi = many.wald_interval_many(ca, size_a, cb, size_b,
                                                         alternative=alternative, level=level)
                        r = dataclasses.replace(r, ci_low=lo, ci_high=hi)
                        how = "Wald"
                    elif test == "permutation":  # Westfall–Young: the group's joint null
                        flips = stats.SignFlips(na, n_resamples, seed)
                        with progress_bar(f"permutation {where}", flips.size) as advance:
                            r = flips.test(_stack_diffs(data, sub), alternative,
                                           adjust="westfall-young", advance=advance)
                        if r.pvalue_adjusted is not None and self.adjusted is not None:
                            self.adjusted[sub] = r.pvalue_adjusted
                    else:  # bootstrap (paired only)
                        boot = stats.BootstrapIndices(na, n_resamples, seed)
                        with progress_bar(f"bootstrap {where}", boot.n_resamples) as advance:
                            r = stats.paired_bootstrap_many(
                                _stack_diffs(data, sub), alternative=alternative, level=level,
                                indices=boot, advance=advance)
                        how = "bootstrap BCa"
                for j, i in enumerate(sub):
                    if test in ("mcnemar", "permutation"):
                        lo_i, hi_i, how = intervals[i]
                    else:
                        assert r.ci_low is not None and r.ci_high is not None
                        lo_i, hi_i = float(r.ci_low[j]), float(r.ci_high[j])
                    out[i] = _Outcome(float(r.statistic[j]), float(r.pvalue[j]), lo_i, hi_i, how)
        self._effects(dz)

    def _effects(self, dz: dict[int, float]) -> None:
        """Effect size of every pair (see :func:`_effect`): d_z from the paired moments,
        Cohen's d vectorised per shape, Cohen's h from the cached means."""
        from .stats import many

        group, data = self.group, self.data
        numeric = []
        for i, d in enumerate(data):
            if _pair_binary(group, d):
                with _context(group, [d]):
                    self.effects[i] = _effect(d, group)
            elif i in dz:
                self.effects[i] = (dz[i], "cohens_dz")
            else:
                numeric.append(i)
        for (paired, na, nb), sub in _buckets(data, numeric).items():
            if paired or min(na, nb) < 2:
                for i in sub:
                    with _context(group, [data[i]]):
                        self.effects[i] = _effect(data[i], group)
                continue
            es = many.cohens_d_many(np.stack([data[i].x for i in sub]),
                                    np.stack([data[i].y for i in sub]))
            for j, i in enumerate(sub):
                self.effects[i] = (float(es[j]), "cohens_d")

    def finish(self, shared: _Shared) -> list[_Outcome]:
        """Outcomes of every pair, in order, with the shared t and permutation results."""
        t = shared.t
        out = self.out
        for i, c in enumerate(self.chosen):
            if i in out and i not in self.t_ci:
                continue
            assert t is not None and t.ci_low is not None and t.ci_high is not None
            row = self.t_row[i]
            lo, hi = float(t.ci_low[row]), float(t.ci_high[row])
            if i in out:  # a test whose interval is the paired t interval
                out[i] = dataclasses.replace(out[i], ci_low=lo, ci_high=hi)
            elif c == "paired-t":
                out[i] = _Outcome(float(t.statistic[row]), float(t.pvalue[row]), lo, hi,
                                  "paired t")
            else:  # shared paired permutation test: statistic mean(d)
                out[i] = _Outcome(float(shared.mean[row]), self.perm_p[i], lo, hi, "paired t")
        outcomes = [out[i] for i in range(len(self.data))]
        for d, c, o in zip(self.data, self.chosen, outcomes, strict=True):
            _check_outcome(self.group, d, c, o, shared.alternative)
        return outcomes


# --------------------------------------------------------------------------- set-level metrics
def _set_metrics(metric_fn: object | None) -> list[SetMetric]:
    """The set-level metrics of ``metric_fn`` (one spec or a list of them)."""
    from .setmetrics import get_metric

    if metric_fn is None:
        return []
    specs = list(metric_fn) if isinstance(metric_fn, (list, tuple)) else [metric_fn]
    if not specs:
        raise CompareError("metric_fn is an empty list")
    out = [get_metric(m, error=CompareError) for m in specs]
    names = [m.name for m in out]
    dup = sorted({x for x in names if names.count(x) > 1})
    if dup:
        raise CompareError(f"metric_fn: metric(s) named twice: {', '.join(map(repr, dup))}")
    return out


def _metric_rows(
    scores: Scores,
    set_metrics: list[SetMetric],
    systems: Sequence[str] | None,
    pairs: str | Sequence[tuple[str, str]],
    baseline: str | None,
    test: str,
    alternative: str,
    level: float,
    n_resamples: int,
    seed: int | None,
    missing: str,
    seeds: str,
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Comparison rows and per-system means of set-level metrics (module docstring)."""
    from .scores import check_same_labels, common_items, seed_imbalance
    from .setmetrics import bootstrap_values, encode, permutation_statistics, tolerance
    from .stats import effect_label
    from .stats._scale import std as _std

    rows: list[dict[str, Any]] = []
    mean_rows: list[dict[str, Any]] = []
    df = scores.frame
    needs_labels = any(m.needs_labels for m in set_metrics)
    for dataset in scores.datasets:
        here = df[df["dataset"] == dataset]
        row_metrics = list(pd.unique(here["metric"]))
        if len(row_metrics) > 1:
            raise CompareError(
                f"dataset {dataset!r} has several metrics ({', '.join(map(repr, row_metrics))}); "
                "a set-level metric_fn reads the label/prediction rows of one of them: pass "
                "metrics=[...]"
            )
        row_metric = str(row_metrics[0])
        names = _select_systems(scores, set(here["system"]), systems, f"dataset {dataset!r}")
        try:
            runs = {s: scores.runs(dataset, s, row_metric, predictions=needs_labels) for s in names}
        except ScoresError as exc:
            raise CompareError(str(exc)) from None
        problem = seed_imbalance(list(runs.values()))
        if problem is not None:
            if seeds == "balanced":
                raise CompareError(
                    f"dataset {dataset!r}: unbalanced seeds: {problem}; pass "
                    "seeds='allow-unbalanced' to compare the seed-averaged metrics"
                )
            gaps = next(((r, r.missing_by_seed()) for r in runs.values() if r.missing_by_seed()),
                        None)
            if gaps is not None:
                r, miss = gaps
                s0, ids = next(iter(miss.items()))
                raise CompareError(
                    f"dataset {dataset!r}: system {r.system!r}, seed {s0!r} did not score "
                    f"{len(ids)} of its items ({_preview(ids)}); a set-level metric needs every "
                    "seed to score every item"
                )
            if test == "permutation":
                raise CompareError(
                    f"dataset {dataset!r}: {problem}; the permutation test swaps seed-paired "
                    "predictions and needs the same number of seeds per system (use "
                    "test='bootstrap')"
                )
        for m in set_metrics:
            where = f"dataset {dataset!r}, metric {m.name!r}"

            def run_arrays(r: SystemRuns, m: SetMetric = m) -> list[np.ndarray]:
                if m.needs_labels:
                    assert r.predictions is not None
                    return [r.predictions[i] for i in range(r.n_seeds)]
                return [r.values[i] for i in range(r.n_seeds)]

            def run_names(r: SystemRuns) -> list[str]:
                return [f"system {r.system!r}" + (f", seed {x!r}" if scores.has_seeds else "")
                        for x in r.seeds]

            own: dict[str, np.ndarray] = {}
            for sname in names:
                r = runs[sname]
                enc = encode(m, r.labels, run_arrays(r), runs=run_names(r), where=where,
                             error=CompareError)
                own[sname] = _finite(enc.values(), enc.runs, where, m.name)
                mean_rows.append({
                    "dataset": dataset, "metric": m.name, "system": sname,
                    "mean": float(own[sname].mean()), "n": r.n,
                    "seed_sd": _seed_sd(np.asarray(own[sname], dtype=float)) if r.n_seeds > 1
                    else math.nan,
                    "n_seeds": r.n_seeds,
                })
            means = {x: float(v.mean()) for x, v in own.items()}
            pair_list = _pair_list(names, means, str(dataset), m.name, pairs, baseline)
            by_items: dict[tuple[str, ...], list[int]] = {}
            for i, (a, b) in enumerate(pair_list):
                common, _ = common_items(runs[a].items, runs[b].items, a, b,
                                         f"dataset {dataset!r} (metric {m.name!r})", missing,
                                         stacklevel=6)
                by_items.setdefault(tuple(common), []).append(i)
            results: dict[int, dict[str, Any]] = {}
            for items, idx in by_items.items():
                involved = list(dict.fromkeys(x for i in idx for x in pair_list[i]))
                sel = {x: runs[x].select(np.asarray(items, dtype=object)) for x in involved}
                if m.needs_labels:  # one set of labels serves every system of this group
                    for x in involved[1:]:
                        try:
                            check_same_labels(sel[involved[0]], sel[x])
                        except ScoresError as exc:
                            raise CompareError(str(exc)) from None
                offsets: dict[str, list[int]] = {}
                arrays: list[np.ndarray] = []
                labels_ = []
                for x in involved:
                    offsets[x] = list(range(len(arrays), len(arrays) + sel[x].n_seeds))
                    arrays += run_arrays(sel[x])
                    labels_ += run_names(sel[x])
                enc = encode(m, sel[involved[0]].labels, arrays, runs=labels_, where=where,
                             error=CompareError)
                if enc.n < 2:
                    raise CompareError(f"{where}: needs at least 2 common items, got {enc.n}")
                full = _finite(enc.values(), enc.runs, where, m.name)
                boot, _used = bootstrap_values(enc, n_resamples, seed)
                _finite_resamples(boot, enc.runs, where, m.name, "bootstrap")
                perm = None
                if test == "permutation":
                    contrasts = [list(zip(offsets[pair_list[i][0]], offsets[pair_list[i][1]],
                                          strict=True)) for i in idx]
                    perm, exact, _ = permutation_statistics(enc, contrasts, n_resamples, seed)
                    _finite_resamples(perm, [f"{pair_list[i][0]!r} vs {pair_list[i][1]!r}"
                                             for i in idx], where, m.name, "permutation")
                for j, i in enumerate(idx):
                    a, b = pair_list[i]
                    oa, ob = offsets[a], offsets[b]
                    diff = float(full[oa].mean() - full[ob].mean())
                    d_star = boot[:, oa].mean(axis=1) - boot[:, ob].mean(axis=1)
                    tol = tolerance(enc.n, float(np.abs(full[oa + ob]).max()))
                    if perm is not None:
                        t_star = perm[:, j]
                        count = _count_extreme(t_star, diff, alternative, tol)
                        pvalue = count / t_star.size if exact else (1.0 + count) / (1.0 + t_star.size)
                    else:
                        count = _count_extreme(d_star - diff, diff, alternative, tol)
                        pvalue = (1.0 + count) / (1.0 + d_star.size)
                    lo, hi = _percentile_interval(d_star, diff, alternative, level)
                    se = _std(d_star) if d_star.size > 1 else 0.0  # no under/overflow
                    es = _dz_boot(diff, se, enc.n)
                    results[i] = {
                        "mean_a": float(full[oa].mean()), "mean_b": float(full[ob].mean()),
                        "diff": diff, "ci_low": lo, "ci_high": hi, "statistic": diff,
                        "pvalue": float(min(pvalue, 1.0)), "effect_size": es, "n": enc.n,
                    }
            seed_sd = {r["system"]: r["seed_sd"] for r in mean_rows
                       if r["dataset"] == dataset and r["metric"] == m.name}
            for i, (a, b) in enumerate(pair_list):
                r_ = results[i]
                rows.append({
                    "dataset": dataset, "metric": m.name, "system_a": a, "system_b": b,
                    "mean_a": r_["mean_a"], "mean_b": r_["mean_b"], "diff": r_["diff"],
                    "ci_low": r_["ci_low"], "ci_high": r_["ci_high"], "test": test,
                    "statistic": r_["statistic"], "pvalue": r_["pvalue"],
                    "pvalue_adjusted": math.nan, "effect_size": r_["effect_size"],
                    "effect_size_name": "dz_boot",
                    "effect_label": str(effect_label(r_["effect_size"])),
                    "significant": False, "paired": True, "n_a": r_["n"], "n_b": r_["n"],
                    "ci_method": "bootstrap percentile",
                    "seed_sd_a": seed_sd[a], "seed_sd_b": seed_sd[b],
                })
    return rows, mean_rows


def _finite(values: np.ndarray, runs: Sequence[str], where: str, name: str) -> np.ndarray:
    bad = np.flatnonzero(~np.isfinite(values))
    if bad.size:
        raise CompareError(
            f"{where}: metric {name!r} is undefined ({values[bad[0]]!r}) for {runs[bad[0]]} "
            "(e.g. a correlation of constant values)"
        )
    return values


def _finite_resamples(
    values: np.ndarray, columns: Sequence[str], where: str, name: str, kind: str
) -> None:
    from .setmetrics import undefined_resamples

    undefined = undefined_resamples(values, columns)
    if undefined is not None:
        count, col = undefined
        raise CompareError(
            f"{where}: metric {name!r} is undefined on {count} of "
            f"{values.shape[0]} {kind} resamples (first for {col}; e.g. a correlation of "
            "constant values); too few or too uniform items for this metric"
        )


def _count_extreme(null: np.ndarray, observed: float, alternative: str, tol: float) -> int:
    """#{null at least as extreme as observed}; two-sided compares |null| with |observed|."""
    if alternative == "two-sided":
        return int((np.abs(null) >= abs(observed) - tol).sum())
    if alternative == "greater":
        return int((null >= observed - tol).sum())
    return int((null <= observed + tol).sum())


def _percentile_interval(
    d_star: np.ndarray, diff: float, alternative: str, level: float
) -> tuple[float, float]:
    """Bootstrap percentile interval of the difference (one-sided: the other end infinite)."""
    if np.ptp(d_star) == 0:
        lo = hi = diff
    else:
        alpha = (1.0 - level) / 2.0 if alternative == "two-sided" else 1.0 - level
        lo, hi = (float(v) for v in np.quantile(d_star, [alpha, 1.0 - alpha]))
    if alternative == "greater":
        hi = math.inf
    elif alternative == "less":
        lo = -math.inf
    return float(lo), float(hi)


def _dz_boot(diff: float, se: float, n: int) -> float:
    """diff / (sqrt(n)·SE*): Cohen's d_z when the metric is a mean; 0 or ±inf at SE* = 0."""
    den = math.sqrt(n) * se
    if den > 0:
        return diff / den
    return 0.0 if diff == 0 else math.copysign(math.inf, diff)


# --------------------------------------------------------------------------- compare

def _adjust_families(out: np.ndarray, pvalues: np.ndarray, families: np.ndarray,
                     correction: str) -> bool:
    """``out[rows of f] = adjust_pvalues(pvalues[rows of f], correction)`` for every family f,
    with array operations: the families of one size m form one families × m matrix, adjusted
    row by row with the operations of :func:`ranger_eval.stats.multiplicity._closed_form`
    (Bonferroni, Šidák, Holm, Holm–Šídák, Simes–Hochberg, BH, BY, ``none``), so the values are
    those of the one-family call bit for bit. ``False`` (nothing written) for another method or
    an invalid p-value (the one-family call raises its error)."""
    from .stats.multiplicity import _ALIASES, _CLOSED_FORM

    key = _ALIASES.get(str(correction).lower(), str(correction).lower())
    if key != "none" and key not in _CLOSED_FORM:
        return False
    if not (np.isfinite(pvalues) & (pvalues >= 0.0) & (pvalues <= 1.0)).all():
        return False
    if key == "none":
        out[:] = pvalues
        return True
    rows = np.argsort(families, kind="stable")
    size = np.bincount(families)
    size_of_row = size[families[rows]]
    for m in np.unique(size[size > 0]).tolist():
        idx = rows[size_of_row == m].reshape(-1, m)  # one family per row, in row order
        p = pvalues[idx]
        with np.errstate(divide="ignore"):
            if key == "bonferroni":
                adj = p * m
            elif key == "sidak":
                adj = -np.expm1(m * np.log1p(-p))
            else:
                order = np.argsort(p, axis=1)
                q = np.take_along_axis(p, order, axis=1)
                if key == "holm":
                    a = np.maximum.accumulate(q * np.arange(m, 0, -1), axis=1)
                elif key == "holm-sidak":
                    a = np.maximum.accumulate(-np.expm1(np.arange(m, 0, -1) * np.log1p(-q)),
                                              axis=1)
                elif key == "simes-hochberg":
                    a = np.minimum.accumulate(((m - np.arange(m)) * q)[:, ::-1], axis=1)[:, ::-1]
                else:  # fdr_bh, fdr_by
                    factor = np.arange(1, m + 1) / float(m)
                    if key == "fdr_by":
                        factor = factor / np.sum(1.0 / np.arange(1, m + 1))
                    a = np.minimum.accumulate((q / factor)[:, ::-1], axis=1)[:, ::-1]
                adj = np.empty_like(a)
                np.put_along_axis(adj, order, np.minimum(a, 1.0), axis=1)
        out[idx] = np.minimum(adj, 1.0)
    return True


def adjust_by_family(table: pd.DataFrame, correction: str, family: str, level: float, *,
                     adjusted: np.ndarray | None = None) -> pd.DataFrame:
    """Fill ``pvalue_adjusted``, ``significant`` (adjusted p ≤ 1 − level) and ``paired`` (bool) of
    a comparison table, adjusting within each family of tests: every dataset × metric, every
    dataset, or all rows. ``adjusted`` gives the values when they come from the joint resampling
    null (Westfall–Young) instead of the p-values."""
    if adjusted is None:
        from .stats import adjust_pvalues

        if family == "dataset-metric":
            key = table["dataset"].astype(str) + "\x1f" + table["metric"].astype(str)
        elif family == "dataset":
            key = table["dataset"].astype(str)
        else:
            key = pd.Series("all", index=table.index)
        adjusted = np.empty(len(table))
        pvalues = table["pvalue"].to_numpy()
        families = pd.factorize(key)[0]
        if not _adjust_families(adjusted, pvalues, families, correction):
            for idx in key.groupby(key, sort=False).indices.values():
                adjusted[idx] = np.asarray(adjust_pvalues(pvalues[idx], correction,
                                                          alpha=1.0 - level))
    table["pvalue_adjusted"] = adjusted
    table["significant"] = table["pvalue_adjusted"] <= 1.0 - level
    table["paired"] = table["paired"].astype(bool)
    return table

# --------------------------------------------------------------------------- many groups at once
def _uniform_paired_t(
    scores: Scores, systems: Sequence[str] | None, pairs: str | Sequence[tuple[str, str]],
    baseline: str | None, alternative: str, level: float,
) -> tuple[pd.DataFrame, pd.DataFrame] | None:
    """The comparison rows and mean rows of every dataset × metric at once, with array
    operations across groups instead of one :class:`_GroupWork` per group, in the common case
    of many small uniform groups: no seeds, every group scored by every system on the same items
    (at least 2, ``complete``), no pair of binary systems, and the paired t test (``test``
    "auto" or "paired-t"; ``pairs`` "all", "baseline", "successive" or a list of pairs of
    known systems, as ``rank`` passes). ``None`` when any of
    that does not hold, or a
    value is extreme (|x| > 2^1000), non-finite, or any pair's result would be refused by
    :func:`_check_outcome`: the caller then takes the group-by-group path, which gives the same
    numbers and names the offending group.

    Groups with the same number of items n form one groups × systems × items array; the
    statistics are the one-pair engine's own (:func:`~ranger_eval.stats.many.paired_moments`,
    :meth:`~ranger_eval.stats.many.PairedMoments.ttest` and ``cohens_dz``, system means as
    ``ndarray.mean`` of each row), so every number equals the group-by-group result bit for bit
    (tests/test_compare_groups.py checks it). Group order: datasets in order, then metrics in
    order of first appearance within the dataset, as :func:`_groups`.
    """
    from .stats import EFFECT_THRESHOLDS, many

    df = _table(scores)
    if df.empty or scores.has_seeds:
        return None
    values = df["value"].to_numpy(np.float64)
    with np.errstate(invalid="ignore"):
        if not (np.abs(values) <= 2.0 ** 1000).all():  # NaN, inf or extreme: the exact path
            return None
    ds_codes, ds_names = _factorize(df["dataset"])
    met_codes, met_names = _factorize(df["metric"])
    sys_codes, sys_names = _factorize(df["system"])
    item_codes, _ = _factorize(df["item"], sort=True)
    sys_list = [str(s) for s in sys_names]
    names = list(systems) if systems is not None else sys_list
    if sorted(names) != sorted(sys_list):
        return None
    k = len(names)
    to_row = np.array([names.index(s) for s in sys_list], dtype=np.int64)
    if not isinstance(pairs, str):  # explicit pairs: the same in every group
        if not all(len(ab) == 2 and str(ab[0]) in names and str(ab[1]) in names
                   and str(ab[0]) != str(ab[1]) for ab in pairs):
            return None  # the group-by-group path names the bad pair
        pair_ab = [(names.index(str(a)), names.index(str(b))) for a, b in pairs]
        if not pair_ab:
            return None
    elif pairs == "all":
        pair_ab = list(itertools.combinations(range(k), 2))
    elif pairs == "baseline":
        assert baseline is not None
        kb = names.index(baseline)
        pair_ab = [(i, kb) for i in range(k) if i != kb]
    else:  # successive: neighbours by mean, per group (below)
        pair_ab = list(itertools.pairwise(range(k)))
    n_pairs = len(pair_ab)
    n_met = len(met_names)
    key = ds_codes * n_met + met_codes
    srow = to_row[sys_codes]
    order = np.lexsort((item_codes, srow, key))
    skey, ssys, sitem = key[order], srow[order], item_codes[order]
    starts = np.flatnonzero(np.r_[True, skey[1:] != skey[:-1]])
    ends = np.r_[starts[1:], skey.size]
    n_groups = starts.size
    count = ends - starts
    if (count % k).any():
        return None
    n_items = count // k
    gid = np.repeat(np.arange(n_groups), count)
    per_sys = np.bincount(gid * k + ssys, minlength=n_groups * k).reshape(n_groups, k)
    if (per_sys != n_items[:, None]).any() or (n_items < 2).any():
        return None
    # within a group, rows are system-major and item-sorted: item ids strictly increase per
    # system (no repeats) and every system lists the items of the first
    pos = np.arange(skey.size) - np.repeat(starts, count)
    col = pos % np.repeat(n_items, count)
    inc = np.r_[True, sitem[1:] > sitem[:-1]]
    if not (inc | (col == 0)).all():
        return None
    first_sys = np.repeat(starts, count) + col
    if not (sitem == sitem[first_sys]).all():
        return None
    sval = values[order]
    group_ds = skey[starts] // n_met
    first_row = np.minimum.reduceat(order, starts)
    sequence = np.lexsort((first_row, group_ds))  # dataset order, then first appearance
    rank = np.empty(n_groups, dtype=np.int64)
    rank[sequence] = np.arange(n_groups)
    means = np.empty((n_groups, k))
    binary = np.empty((n_groups, k), dtype=bool)
    buckets = []
    for n in np.unique(n_items).tolist():
        g = np.flatnonzero(n_items == n)
        idx = (starts[g][:, None] + np.arange(k * n)).reshape(-1)
        v2 = sval[idx].reshape(g.size * k, n)
        means[g] = v2.mean(axis=1).reshape(g.size, k)
        binary[g] = ((v2 == 0.0) | (v2 == 1.0)).all(axis=1).reshape(g.size, k)
        buckets.append((g, v2))
    # system indices (rows of ``means``) of each group's pairs, groups × pairs
    if pairs == "successive":  # by mean, highest first; ties keep the given order
        ranked = np.argsort(-means, axis=1, kind="stable")
        pa_g, pb_g = ranked[:, :-1], ranked[:, 1:]
    else:
        pa_g = np.broadcast_to(np.array([a for a, _ in pair_ab], dtype=np.int64),
                               (n_groups, n_pairs))
        pb_g = np.broadcast_to(np.array([b for _, b in pair_ab], dtype=np.int64),
                               (n_groups, n_pairs))
    if (np.take_along_axis(binary, pa_g, axis=1)
            & np.take_along_axis(binary, pb_g, axis=1)).any():
        return None  # McNemar / Cohen's h: the exact path
    parts, rows_of = [], []
    for g, v2 in buckets:
        base = (np.arange(g.size) * k)[:, None]
        parts.append(many.paired_moments(v2, (base + pa_g[g]).reshape(-1),
                                         (base + pb_g[g]).reshape(-1)))
        rows_of.append((rank[g][:, None] * n_pairs + np.arange(n_pairs)).reshape(-1))
    m = many.PairedMoments.concat(parts)
    t = m.ttest(alternative, level, warn=False, overflow="inf")
    assert t.ci_low is not None and t.ci_high is not None
    dz = m.cohens_dz()
    at = np.concatenate(rows_of)
    total = n_groups * n_pairs

    def placed(a: np.ndarray) -> np.ndarray:
        out = np.empty(total, dtype=a.dtype)
        out[at] = a
        return out

    stat, pval = placed(np.asarray(t.statistic)), placed(np.asarray(t.pvalue))
    lo, hi, es = placed(np.asarray(t.ci_low)), placed(np.asarray(t.ci_high)), placed(dz)
    gseq = np.repeat(sequence, n_pairs)
    sys_a, sys_b = pa_g[sequence].reshape(-1), pb_g[sequence].reshape(-1)
    mean_a = means[gseq, sys_a]
    mean_b = means[gseq, sys_b]
    with np.errstate(over="ignore", invalid="ignore"):
        diff = mean_a - mean_b
    ok = (np.isfinite(diff) & ~np.isnan(stat) & (pval >= 0.0) & (pval <= 1.0) & ~np.isnan(lo)
          & ~np.isnan(hi) & ~np.isnan(es))
    if alternative != "less":
        ok &= ~np.isinf(lo)
    if alternative != "greater":
        ok &= ~np.isinf(hi)
    if not ok.all():
        return None  # the group-by-group path names the group and the value
    m.warn_cancellation()
    ds_of = np.asarray(ds_names, dtype=object)[group_ds[gseq]]
    met_of = np.asarray(met_names, dtype=object)[(skey[starts] % n_met)[gseq]]
    name_arr = np.asarray(names, dtype=object)
    labels = np.full(total, "negligible", dtype=object)
    mag = np.abs(es)
    for label, bound in EFFECT_THRESHOLDS.items():
        labels[mag >= bound] = label
    n_rep = n_items[gseq]
    table = pd.DataFrame({
        "dataset": ds_of, "metric": met_of,
        "system_a": name_arr[sys_a], "system_b": name_arr[sys_b],
        "mean_a": mean_a, "mean_b": mean_b, "diff": diff, "ci_low": lo, "ci_high": hi,
        "test": np.full(total, "paired-t", dtype=object), "statistic": stat, "pvalue": pval,
        "pvalue_adjusted": np.full(total, math.nan), "effect_size": es,
        "effect_size_name": np.full(total, "cohens_dz", dtype=object), "effect_label": labels,
        "significant": np.zeros(total, dtype=bool), "paired": np.ones(total, dtype=bool),
        "n_a": n_rep, "n_b": n_rep, "ci_method": np.full(total, "paired t", dtype=object),
        "seed_sd_a": np.full(total, math.nan), "seed_sd_b": np.full(total, math.nan),
    }, columns=list(COLUMNS))
    gm = np.repeat(sequence, k)
    mean_table = pd.DataFrame({
        "dataset": np.asarray(ds_names, dtype=object)[group_ds[gm]],
        "metric": np.asarray(met_names, dtype=object)[(skey[starts] % n_met)[gm]],
        "system": np.tile(name_arr, n_groups), "mean": means[sequence].reshape(-1),
        "n": n_items[gm], "seed_sd": np.full(gm.size, math.nan),
        "n_seeds": np.ones(gm.size, dtype=np.int64),
    })
    return table, mean_table


def compare(
    scores: Scores | pd.DataFrame,
    systems: Sequence[str] | None = None,
    pairs: str | Sequence[tuple[str, str]] = "all",
    baseline: str | None = None,
    test: str = "auto",
    alternative: str = "two-sided",
    correction: str = "holm-sidak",
    family: str = "dataset-metric",
    level: float = 0.95,
    n_resamples: int = 10_000,
    seed: int | None = 0,
    *,
    paired: bool | None = None,
    missing: str = "error",
    datasets: Sequence[str] | None = None,
    metrics: Sequence[str] | None = None,
    by: Sequence[str] | str | None = None,
    metric_fn: object | None = None,
    seeds: str = "balanced",
) -> Comparison:
    """Compare systems pairwise on every dataset × metric (see the module docstring).

    ``systems`` selects and orders the systems (default: all, in order of first appearance);
    ``pairs`` is ``"all"`` (k(k-1)/2 pairs), ``"baseline"`` (k-1 pairs against ``baseline``),
    ``"successive"`` (k-1 pairs, neighbours by mean) or an explicit list of ``(a, b)`` tuples.
    ``datasets`` and ``metrics`` restrict the comparison. ``by`` names item metadata columns of
    the scores (e.g. ``"difficulty"``): the comparison is run separately per level (IBM §10.1);
    each level becomes its own dataset, labelled ``"dataset [difficulty=hard]"``, with the level
    values also in columns named after ``by``, and p-values are adjusted within each level's
    families. ``metric_fn`` tests a set-level metric (a name of
    :data:`ranger_eval.setmetrics.NAMES`, a callable, or a list of them) computed from the
    ``label``/``prediction`` columns with ``test="permutation"`` or ``"bootstrap"`` (module
    docstring); ``metrics`` then selects the rows that carry them when a dataset has several.
    ``seeds`` is ``"balanced"`` (unbalanced seeds are an error) or ``"allow-unbalanced"``.
    ``correction="westfall-young"`` is Westfall & Young's (1993, Algorithm 2.8) *step-down*
    max-T adjustment computed from the joint sign-flip null of the pairs of each dataset ×
    metric (one shared sign matrix; :class:`~ranger_eval.stats.resampling.SignFlips`), which
    keeps the dependence between pairs and so is more powerful than Holm; it needs
    ``test="permutation"`` on paired data and ``family="dataset-metric"``.
    Raises :class:`CompareError` (or :class:`ScoresError` for unpaired items) naming the
    dataset, metric and systems.

    Alternative score backends (e.g. larger-than-memory scores): if ``scores`` has a callable
    attribute ``__ranger_compare__``, ``compare`` returns
    ``scores.__ranger_compare__(systems=..., pairs=..., ..., seeds=...)`` -- called with every
    argument of ``compare`` except ``scores`` as keywords -- before anything else; the backend
    must return a :class:`Comparison`.
    """
    hook = getattr(scores, "__ranger_compare__", None)
    if callable(hook):
        return hook(
            systems=systems, pairs=pairs, baseline=baseline, test=test,
            alternative=alternative, correction=correction, family=family, level=level,
            n_resamples=n_resamples, seed=seed, paired=paired, missing=missing,
            datasets=datasets, metrics=metrics, by=by, metric_fn=metric_fn, seeds=seeds,
        )
    from .stats import effect_label

    if not isinstance(scores, Scores):  # a table-like input: _frames' rules, compare's errors
        scores = Scores(as_frame(scores, what="compare", error=CompareError,
                                 index_columns=KEY_COLUMNS))
    declared = declared_set_metrics(scores) if metric_fn is None else {}
    if declared:
        return _compare_declared(
            scores, declared, systems=systems, pairs=pairs, baseline=baseline, test=test,
            alternative=alternative, correction=correction, family=family, level=level,
            n_resamples=n_resamples, seed=seed, paired=paired, missing=missing,
            datasets=datasets, metrics=metrics, by=by, seeds=seeds,
        )
    if by is not None:
        return _compare_by(
            scores, by, systems=systems, pairs=pairs, baseline=baseline, test=test,
            alternative=alternative, correction=correction, family=family, level=level,
            n_resamples=n_resamples, seed=seed, paired=paired, missing=missing,
            datasets=datasets, metrics=metrics, metric_fn=metric_fn, seeds=seeds,
        )
    if isinstance(pairs, str):
        _check_choice("pairs", pairs, PAIR_ORDERS)
    _check_choice("test", test, TESTS)
    _check_choice("seeds", seeds, SEED_POLICIES)
    set_metrics = _set_metrics(metric_fn)
    if set_metrics:
        if test not in ("auto", *RESAMPLING):
            raise CompareError(
                f"test {test!r} compares means of per-item values; a set-level metric_fn needs "
                "test='permutation' or 'bootstrap'"
            )
        if paired is False:
            raise CompareError("a set-level metric_fn is tested on paired items; paired=False "
                               "is not possible")
    check_alternative(alternative, error=CompareError)
    _check_choice("family", family, FAMILIES)
    _check_choice("missing", missing, MISSING)
    correction_key = check_correction(correction, error=CompareError)
    westfall_young = correction_key == WESTFALL_YOUNG
    if westfall_young:
        if set_metrics:
            raise CompareError(
                "correction='westfall-young' needs the joint sign-flip null of per-item "
                "permutation tests; it is not available with metric_fn"
            )
        if test != "permutation":
            raise CompareError(
                f"correction='westfall-young' adjusts paired permutation tests with their joint "
                f"sign-flip null distribution; it needs test='permutation' (got test={test!r})"
            )
        if family != "dataset-metric":
            raise CompareError(
                "correction='westfall-young' adjusts within one dataset × metric (one shared "
                f"sign-flip matrix); it needs family='dataset-metric' (got family={family!r})"
            )
    level = check_level(level, error=CompareError)
    if isinstance(n_resamples, bool) or not isinstance(n_resamples, (int, np.integer)) or n_resamples < 1:
        raise CompareError(f"n_resamples must be a positive integer, got {n_resamples!r}")
    if seed is not None and (
        isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0
    ):
        raise CompareError(f"seed must be a non-negative integer or None, got {seed!r}")
    if paired not in (None, True, False):
        raise CompareError(f"paired must be True, False or None, got {paired!r}")
    if pairs == "baseline":
        if baseline is None:
            raise CompareError("pairs='baseline' needs baseline=<system name>")
    if baseline is not None:
        known = systems if systems is not None else scores.systems
        if baseline not in known:
            raise CompareError(
                f"unknown baseline {baseline!r}; systems: {', '.join(map(repr, known))}"
            )
        if pairs != "baseline":
            raise CompareError(f"baseline={baseline!r} is only used with pairs='baseline'")
    if systems is not None:
        if isinstance(systems, str):
            systems = [systems]
        systems = [str(s) for s in systems]
        dup = sorted({s for s in systems if systems.count(s) > 1})
        if dup:
            raise CompareError(f"systems: duplicate name(s) {', '.join(map(repr, dup))}")
        if len(systems) < 2:
            raise CompareError(f"need at least two systems to compare, got {systems!r}")
        try:
            scores = scores.filter(systems=systems)
        except ScoresError as exc:
            raise CompareError(f"systems: {exc}") from None
    if datasets is not None or metrics is not None:
        try:
            scores = scores.filter(datasets=datasets, metrics=metrics)
        except ScoresError as exc:
            raise CompareError(str(exc)) from None
    layout = None if set_metrics else _block_layout(_table(scores))
    if systems is not None:
        order = tuple(systems)
    elif layout is not None:  # = scores.systems (first appearance), from the block heads
        order = tuple(layout[7][2])
    else:
        order = tuple(str(s) for s in _factorize(_table(scores)["system"])[1])
    if len(order) < 2:
        raise CompareError(
            f"need at least two systems to compare, found only {', '.join(map(repr, order))}"
        )

    rows: list[dict[str, Any]] = []
    mean_rows: list[dict[str, Any]] = []
    if set_metrics:
        chosen_test = "permutation" if test == "auto" else test
        rows, mean_rows = _metric_rows(
            scores, set_metrics, systems, pairs, baseline, chosen_test, alternative, level,
            int(n_resamples), seed, missing, seeds,
        )
    uniform = None
    if (not set_metrics and not westfall_young and test in ("auto", "paired-t")
            and paired is not False
            and (not isinstance(pairs, str) or pairs in ("all", "baseline", "successive"))):
        uniform = _uniform_paired_t(scores, systems, pairs, baseline, alternative, level)
    if uniform is not None:  # many small groups: array operations across groups
        table = adjust_by_family(uniform[0], correction, family, level)
        return Comparison(
            table=table, means=uniform[1], systems=tuple(order), scores=scores, test=test,
            pairs=pairs if isinstance(pairs, str) else "custom", baseline=baseline,
            alternative=alternative,
            correction=correction_key, family=family, level=float(level),
            n_resamples=int(n_resamples), seed=seed, tests_used=("paired-t",),
            set_metrics=(), seeds=seeds,
        )
    groups = [] if set_metrics else _groups(scores, systems, seeds, layout=layout)
    wy_adjusted: list[float] = []
    shared = _Shared(alternative, level, int(n_resamples), seed)
    works: list[_GroupWork] = []
    for group in groups:
        for j, s in enumerate(group.names):
            mean_rows.append(
                {
                    "dataset": group.dataset,
                    "metric": group.metric,
                    "system": s,
                    "mean": group.means[j],
                    "n": int(group.present[j].sum()),
                    "seed_sd": group.seed_sd[s],
                    "n_seeds": group.n_seeds[s],
                }
            )
        pair_list = _pairs_for(group, pairs, baseline)
        data = [_pair_data(group, a, b, test, paired, missing) for a, b in pair_list]
        chosen = [_choose_test(test, d, group) for d in data]
        work = _GroupWork(group, data, chosen)
        work.prepare(shared, westfall_young)
        works.append(work)
    shared.run()  # one t-distribution call, one sign-flip product per number of items
    for work in works:
        group, data, chosen = work.group, work.data, work.chosen
        outcomes = work.finish(shared)
        if work.adjusted is not None:
            wy_adjusted.extend(float(v) for v in work.adjusted)
        effects = [work.effects[i] for i in range(len(data))]
        for d, c, o, (es, es_name) in zip(data, chosen, outcomes, effects, strict=True):
            mean_a, mean_b = _pair_means(group, d)
            rows.append(
                {
                    "dataset": group.dataset,
                    "metric": group.metric,
                    "system_a": d.a,
                    "system_b": d.b,
                    "mean_a": mean_a,
                    "mean_b": mean_b,
                    "diff": mean_a - mean_b,
                    "ci_low": float(o.ci_low),
                    "ci_high": float(o.ci_high),
                    "test": c,
                    "statistic": float(o.statistic),
                    "pvalue": float(o.pvalue),
                    "pvalue_adjusted": math.nan,
                    "effect_size": es,
                    "effect_size_name": es_name,
                    "effect_label": str(effect_label(es)),
                    "significant": False,
                    "paired": d.paired,
                    "n_a": int(d.x.size),
                    "n_b": int(d.y.size),
                    "ci_method": o.ci_method,
                    "seed_sd_a": group.seed_sd[d.a],
                    "seed_sd_b": group.seed_sd[d.b],
                }
            )
    table = pd.DataFrame(rows, columns=list(COLUMNS))
    table = adjust_by_family(table, correction, family, level,
                             adjusted=np.asarray(wy_adjusted) if westfall_young else None)
    means = pd.DataFrame(
        mean_rows, columns=["dataset", "metric", "system", "mean", "n", "seed_sd", "n_seeds"]
    )
    used = set(table["test"])
    tests_used = tuple(t for t in TESTS if t in used)
    return Comparison(
        table=table,
        means=means,
        systems=tuple(order),
        scores=scores,
        test=test,
        pairs=pairs if isinstance(pairs, str) else "custom",
        baseline=baseline,
        alternative=alternative,
        correction=correction_key,  # the canonical name ("BH" is recorded as "fdr_bh")
        family=family,
        level=float(level),
        n_resamples=int(n_resamples),
        seed=seed,
        tests_used=tests_used,
        set_metrics=tuple(m.name for m in set_metrics),
        seeds=seeds,
    )


def declared_set_metrics(scores: Scores) -> dict[str, str]:
    """``{metric: set-level metric}`` for the metrics whose rows name one in a ``set_metric``
    column (an adapter's corpus-level metric, e.g. lm-eval's ``f1`` read as label/prediction
    pairs): their value is the set-level metric of all items, never the mean of ``value``.
    One metric with two different set-level metrics is an error."""
    df = scores.frame
    if "set_metric" not in df.columns:
        return {}
    rows = df.loc[df["set_metric"].notna(), ["metric", "set_metric"]].drop_duplicates()
    out: dict[str, str] = {}
    for m, sm in zip(rows["metric"], rows["set_metric"], strict=True):
        if str(m) in out and out[str(m)] != str(sm):
            raise CompareError(f"metric {m!r} is declared as set-level metric {out[str(m)]!r} "
                               f"in some rows and {sm!r} in others (column 'set_metric')")
        out[str(m)] = str(sm)
    return out


def _compare_declared(scores: Scores, declared: dict[str, str], *, metrics: Sequence[str] | None,
                      test: str, correction: str, family: str, level: float,
                      **kwargs: Any) -> Comparison:
    """:func:`compare` of scores whose corpus-level metrics (:func:`declared_set_metrics`) go
    through the set-level path with their own metric (``metric_fn``), the others through the
    per-item tests; the rows are adjusted together by family, as one comparison."""
    wanted = [str(m) for m in (metrics if metrics is not None else scores.metrics)]
    unknown = [m for m in wanted if m not in scores.metrics]
    if unknown:
        try:
            scores.filter(metrics=wanted)
        except ScoresError as exc:
            raise CompareError(str(exc)) from None
    parts: list[Comparison] = []
    per_item = [m for m in wanted if m not in declared]
    plain = scores.filter(metrics=per_item) if per_item else None
    if plain is not None:
        plain = Scores(plain.frame.drop(columns=["set_metric"]))
        parts.append(compare(plain, metrics=None, test=test, correction=correction,
                             family=family, level=level, **kwargs))
    for m in (m for m in wanted if m in declared):
        if test not in ("auto", *RESAMPLING):
            raise CompareError(
                f"metric {m!r} is corpus-level (set-level metric {declared[m]!r} of all items, "
                f"as the tool that wrote the log computes it); test {test!r} compares means of "
                f"per-item values: use test='permutation' or 'bootstrap', or leave {m!r} out "
                f"with metrics=[...]"
            )
        comp = compare(scores.filter(metrics=[m]), test=test, correction=correction,
                       family=family, level=level, metric_fn=declared[m], **kwargs)
        parts.append(dataclasses.replace(
            comp, table=comp.table.assign(metric=m), means=comp.means.assign(metric=m)))
    first = parts[0]
    table = pd.concat([p.table for p in parts], ignore_index=True)
    table = adjust_by_family(table.assign(pvalue_adjusted=math.nan), first.correction, family,
                             level)
    used = {t for p in parts for t in p.tests_used}
    return dataclasses.replace(
        first, table=table, means=pd.concat([p.means for p in parts], ignore_index=True),
        scores=scores, test=test, tests_used=tuple(t for t in TESTS if t in used),
        set_metrics=tuple(dict.fromkeys(x for p in parts for x in p.set_metrics)),
    )


def _compare_by(scores: Scores, by: Sequence[str] | str, **kwargs: Any) -> Comparison:
    """:func:`compare` per level of the item metadata columns ``by`` (IBM §10.1)."""
    cols = [by] if isinstance(by, str) else list(by)
    frame = scores.frame
    reserved = {"dataset", "system", "metric", "item", "value", "seed"}
    bad = [c for c in cols if c not in frame.columns or c in reserved]
    if bad:
        meta = [c for c in frame.columns if c not in reserved]
        raise CompareError(
            f"by: {bad[0]!r} is not an item metadata column of the scores; "
            f"metadata columns: {', '.join(meta) or 'none'}"
        )
    parts: list[Comparison] = []
    levels: list[dict[str, str]] = []
    for level, sub in frame.groupby(cols, sort=False):
        values = [str(v) for v in (level if isinstance(level, tuple) else (level,))]
        tag = ", ".join(f"{c}={v}" for c, v in zip(cols, values, strict=True))
        sub = sub.assign(dataset=sub["dataset"].astype(str) + f" [{tag}]")
        parts.append(compare(Scores(sub.reset_index(drop=True)), **kwargs))
        levels.append(dict(zip(cols, values, strict=True)))
    tables, means = [], []
    for part, lv in zip(parts, levels, strict=True):
        tables.append(part.table.assign(**lv))
        means.append(part.means.assign(**lv))
    first = parts[0]
    tests_used = tuple(t for t in TESTS if any(t in p.tests_used for p in parts))
    systems = tuple(dict.fromkeys(s for p in parts for s in p.systems))
    return dataclasses.replace(
        first, table=pd.concat(tables, ignore_index=True), means=pd.concat(means, ignore_index=True),
        systems=systems, scores=Scores.concat([p.scores for p in parts]), tests_used=tests_used,
    )


# --------------------------------------------------------------------------- rank intervals
@dataclass(frozen=True)
class RankIntervals:
    """Joint bootstrap of the systems' mean scores on one dataset × metric, and their ranks.

    ``systems`` are ordered by mean, best first. ``boot_means`` and ``boot_ranks`` have one row
    per bootstrap resample and one column per system (rank 1 = highest mean, ties averaged).
    ``rank_low``/``rank_high`` are simultaneous ``level`` confidence intervals for the ranks of
    all systems at once (see :func:`rank_intervals`); ``critical_value`` is the max-T quantile.
    ``paired`` is True for the joint bootstrap of common items (``values``: systems × items) and
    False for systems with disjoint items, bootstrapped independently (``values``: a 1-D object
    array holding each system's own values).
    """

    dataset: str
    metric: str
    systems: tuple[str, ...]
    means: np.ndarray
    boot_means: np.ndarray
    boot_ranks: np.ndarray
    rank_low: np.ndarray
    rank_high: np.ndarray
    critical_value: float
    level: float
    n_resamples: int
    seed: int | None
    values: np.ndarray = field(default_factory=lambda: np.empty((0, 0)))
    method: str = "max-T simultaneous pairwise bootstrap intervals (Mogstad et al. 2024)"
    paired: bool = True

    @property
    def signature(self) -> Signature:
        """Reproducibility signature: level, resamples, seed, version."""
        return make_signature(
            "compare",
            {"test": "rank-intervals[max-T bootstrap]", "level": self.level,
             "n_resamples": self.n_resamples, "seed": self.seed},
        )

    def to_frame(self) -> pd.DataFrame:
        """One row per system: mean, bootstrap SE, rank, rank interval."""
        from .stats.many import average_ranks

        return pd.DataFrame(
            {
                "dataset": self.dataset,
                "metric": self.metric,
                "system": list(self.systems),
                "mean": self.means,
                "se": self.boot_means.std(axis=0, ddof=1),
                "rank": average_ranks(-self.means),
                "rank_low": self.rank_low,
                "rank_high": self.rank_high,
            }
        )


def _select_group(
    means: pd.DataFrame, dataset: str | None, metric: str | None
) -> tuple[str, str]:
    """The one dataset × metric a figure shows; an error lists the choices when ambiguous."""
    combos = list(dict.fromkeys(zip(means["dataset"], means["metric"], strict=True)))
    chosen = [
        (d, m) for d, m in combos if (dataset is None or d == dataset) and (metric is None or m == metric)
    ]
    listing = ", ".join(f"{d}/{m}" for d, m in combos)
    if not chosen:
        raise CompareError(
            f"no comparison for dataset={dataset!r}, metric={metric!r}; available: {listing}"
        )
    if len(chosen) > 1:
        raise CompareError(
            f"several dataset/metric combinations match ({', '.join(f'{d}/{m}' for d, m in chosen)});"
            " pass dataset= and metric="
        )
    return str(chosen[0][0]), str(chosen[0][1])


def rank_intervals(
    scores: Scores | pd.DataFrame | Comparison,
    dataset: str | None = None,
    metric: str | None = None,
    *,
    systems: Sequence[str] | None = None,
    level: float = 0.95,
    n_resamples: int = 2_000,
    seed: int | None = 0,
) -> RankIntervals:
    """Simultaneous confidence intervals for the ranks of all systems (paired joint bootstrap).

    Items are resampled jointly for all systems (one index matrix,
    :class:`ranger_eval.stats.resampling.BootstrapIndices`), so the bootstrap keeps the
    correlation between systems. Ranks: the Mogstad, Romano, Shaikh & Wilhelm (2024, "Inference
    for ranks ...", Review of Economic Studies) construction. For every pair (j, l) the
    difference of means theta_jl gets the simultaneous interval theta_jl ± c·se_jl, where se_jl is
    the bootstrap SD of theta*_jl and c the ``level`` quantile of the bootstrap max-T statistic
    max_(j<l) |theta*_jl - theta_jl| / se_jl (pairs with se = 0 are exact and left out of the
    max). Then rank_low_j = 1 + #{l: interval of theta_lj > 0} and rank_high_j = k - #{l:
    interval of theta_jl > 0}; all k intervals hold jointly with probability about ``level``.
    Every system must score the same items (seeds averaged) -- or, for independent samples,
    each system its own items: then each system's items are resampled independently (system j
    in the selection order uses the index stream of seed + j) and ``paired`` is False. Item sets
    that overlap only partly are a :class:`ScoresError` naming some shared ids.
    """
    from .stats._scale import exponent as _exponent
    from .stats.many import average_ranks
    from .stats.resampling import BootstrapIndices

    comp: Comparison | None = None
    if isinstance(scores, Comparison):
        comp = scores
        scores = comp.scores
    if isinstance(scores, pd.DataFrame):
        scores = Scores(scores)
    level = check_level(level, error=CompareError)
    means_tab = pd.DataFrame(
        {"dataset": scores.frame["dataset"], "metric": scores.frame["metric"]}
    ).drop_duplicates()
    dataset, metric = _select_group(means_tab, dataset, metric)
    if comp is not None and systems is None:  # the systems compared on this dataset × metric
        m = comp.means
        here = set(m.loc[(m["dataset"] == dataset) & (m["metric"] == metric), "system"])
        systems = [s for s in comp.systems if s in here]
    sub = scores.filter(datasets=[dataset], metrics=[metric])
    group = next(g for g in _groups(sub, list(systems) if systems is not None else None))
    names = list(group.names)
    k = len(names)
    paired = group.complete
    if paired:
        values = np.array(group.matrix, dtype=np.float64)
        n = values.shape[1]
        if n < 2:
            raise CompareError(
                f"rank intervals on dataset {dataset!r} (metric {metric!r}) need at least 2 "
                f"items; the systems score {n}"
            )
        idx = BootstrapIndices(n, n_resamples, seed)
        boot = idx.means(values)  # (B, k)
        means = values.mean(axis=1)
    else:
        shared = group.present.sum(axis=0) > 1
        if shared.any():  # partial overlap: neither one joint nor independent bootstraps
            counts = group.present.sum(axis=1)
            detail = ", ".join(f"{s!r}: {int(c)}" for s, c in zip(names, counts, strict=True))
            raise ScoresError(
                f"items of the systems differ on dataset {dataset!r} (metric {metric!r}): rank "
                "intervals need every system to score the same items (paired joint bootstrap) "
                f"or each system its own items (independent bootstraps); {int(shared.sum())} "
                "item(s) (e.g. "
                f"{_preview(group.items[shared], 5)}) are shared by some systems but not all "
                f"(items per system: {detail}); select the common items first"
            )
        rows = [group.row(s) for s in names]
        short = [s for s, r in zip(names, rows, strict=True) if r.size < 2]
        if short:
            raise CompareError(
                f"rank intervals on dataset {dataset!r} (metric {metric!r}): system(s) "
                f"{', '.join(map(repr, short))} have fewer than 2 items to bootstrap"
            )
        values = np.empty(k, dtype=object)
        values[:] = [np.array(r, dtype=np.float64) for r in rows]
        boot = np.empty((int(n_resamples), k))
        for j, r in enumerate(rows):  # independent samples: one index stream per system
            seed_j = None if seed is None else int(seed) + j
            boot[:, j] = BootstrapIndices(r.size, n_resamples, seed_j).means(r[None, :])[:, 0]
        means = np.array([float(r.mean()) for r in rows])
    order = np.argsort(-means, kind="stable")
    values, boot, means = values[order], boot[:, order], means[order]
    names = [names[i] for i in order]
    ranks = average_ranks(-boot)
    jj, ll = np.triu_indices(k, 1)
    theta = means[jj] - means[ll]
    theta_b = boot[:, jj] - boot[:, ll]
    # on theta · 2^-e (exact; crit is scale free): SDs of scores near 1e-300 or 1e300 neither
    # underflow to 0 nor overflow (which made every pair significant, or the bounds NaN)
    e = _exponent(theta_b) if theta_b.size else 0
    theta_s, theta_bs = np.ldexp(theta, -e), np.ldexp(theta_b, -e)
    se_s = theta_bs.std(axis=0, ddof=1) if boot.shape[0] > 1 else np.zeros(theta.size)
    se = np.ldexp(se_s, e)
    ok = se_s > 0
    if ok.any():
        t_max = np.max(np.abs(theta_bs[:, ok] - theta_s[ok]) / se_s[ok], axis=1)
        crit = float(np.quantile(t_max, level))
    else:
        crit = 0.0
    lo = theta - crit * se
    hi = theta + crit * se
    better = np.zeros((k, k), dtype=bool)  # better[j, l]: j significantly above l
    better[jj, ll] = lo > 0
    better[ll, jj] = hi < 0
    rank_low = 1 + better.sum(axis=0)
    rank_high = k - better.sum(axis=1)
    return RankIntervals(
        dataset=dataset,
        metric=metric,
        systems=tuple(names),
        means=means,
        boot_means=boot,
        boot_ranks=ranks,
        rank_low=rank_low.astype(int),
        rank_high=rank_high.astype(int),
        critical_value=crit,
        level=float(level),
        n_resamples=int(n_resamples),
        seed=seed,
        values=values,
        paired=paired,
        method=RankIntervals.method if paired else (
            "max-T simultaneous pairwise bootstrap intervals (Mogstad et al. 2024), "
            "independent bootstrap per system"),
    )
