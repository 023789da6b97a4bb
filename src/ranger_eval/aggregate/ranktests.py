"""Demšar's rank tests: which of k systems is best over N datasets, and which differ.

Demšar (2006), "Statistical comparisons of classifiers over multiple data sets", JMLR 7:1–30.

Every dataset ranks the systems (rank 1 = best; ties share the average rank). With ``r_ij`` the
rank of system ``j`` on dataset ``i`` and ``R_j = (1/N) Σ_i r_ij`` its average rank:

* Friedman's statistic (Demšar eq. 3)
  ``χ²_F = 12N / (k(k+1)) · [Σ_j R_j² − k(k+1)²/4]``, referred to χ² with ``k − 1`` df.
  It is computed as ``12N/(k(k+1)) · Σ_j (R_j − (k+1)/2)²`` (the same number, never negative).
  By default (``tie_correction=True``) it is divided by
  ``C = 1 − Σ_i Σ_ties (t³ − t) / (N k (k² − 1))`` (t: the size of each group of tied scores
  within a dataset; Hollander & Wolfe 1973, §7.1), the statistic of R ``friedman.test``,
  :func:`scipy.stats.friedmanchisquare` and autorank (on baycomp's 5 classifiers × 54 datasets
  of mean accuracies: 20.84; Demšar's untied formula, ``tie_correction=False``, gives 20.20).
  Without ties ``C = 1`` and both are the same number.
* Iman and Davenport's statistic (Demšar eq. 4)
  ``F_F = (N − 1) χ²_F / (N(k − 1) − χ²_F)``, referred to F with ``(k − 1, (k − 1)(N − 1))`` df,
  from the χ²_F chosen (tie-corrected by default), so the two tests always agree on the data.
  The post-hoc tests and the CD use the average ranks and ``SE`` only (mid-ranks for ties), as
  Demšar, scmamp and autorank do: they do not depend on the choice.
* Post-hoc tests of pairs, with ``SE = sqrt(k(k+1) / (6N))`` and ``z = (R_a − R_b) / SE``:

  - ``"nemenyi"``: all pairs; ``CD = q_α / √2 · SE`` with ``q_α`` the (1 − α) quantile of the
    studentized range (α = 1 − ``level``) of ``k`` means with infinite df; the adjusted p-value
    is the studentized range survival function at ``|z|·√2``.
  - ``"bonferroni-dunn"``: each system against ``control``; ``CD = z_{1 − α/(2(k−1))} · SE``;
    p-values ``2·Φ(−|z|)`` multiplied by ``k − 1`` (capped at 1).
  - ``"holm"``: each system against ``control``; ``2·Φ(−|z|)`` adjusted by Holm's step-down.
  - ``"wilcoxon"``: all pairs by the Wilcoxon signed-rank test across datasets (zeros split
    between R+ and R−, Demšar §3.1.3), adjusted by Holm over all ``k(k−1)/2`` pairs
    (Benavoli, Corani and Mangili 2016; aeon's CD diagrams).

  - ``"conover"``: all pairs by Conover's test for complete blocks (Conover & Iman 1979), as R
    ``PMCMRplus::frdAllPairsConoverTest``: a t statistic from the rank sums and the residual
    variance of the ranks; ``pvalue`` two-sided Student t on ``(k − 1)(N − 1)`` df,
    ``pvalue_adjusted`` its default single-step studentized range of k means at ``√2|t|``, and
    ``CD = q_α/√2 · SE_conover`` (:mod:`.skillings_mack`).

* Two systems (k = 2): the Wilcoxon signed-rank test and the sign test of Demšar §3.1.3
  (:func:`two_system_tests`), also on :attr:`RankTest.wilcoxon` and :attr:`RankTest.sign_test`.

**Missing cells** (NaN in a wide table; a system without a score on a dataset in a tidy table or
``Scores``). A dataset with fewer than two results ranks nothing: it is dropped,
with a warning naming it (``RankTest.dropped_datasets``). If cells are still missing, the
omnibus test is the Skillings–Mack test (Skillings & Mack 1981), which is the Friedman
statistic on a complete table (:mod:`.skillings_mack` has the formulas; with
``tie_correction=True`` its covariance is the exact permutation covariance of the mid-ranks, so
it reduces to the tie-corrected Friedman statistic; ``False`` gives R ``Ski.Mack``). Iman and
Davenport's F is not defined then (NaN). A system's average rank is the mean, over the datasets
where it has a result, of its rank among the ``n_i`` systems present there rescaled to ``1..k``
(``1 + (r − 1)(k − 1)/(n_i − 1)``; the usual average rank on a complete table). The post-hoc
z of every pair is the Skillings–Mack contrast ``(A_a − A_b)/√Var`` (Demšar's z on a complete
table); the pairs' standard errors differ, so there is no single critical difference: ``nemenyi``
adjusts by the studentized range (the Tukey–Kramer form, approximate with unequal variances),
``bonferroni-dunn`` and ``holm`` as above, a pair is significant when its adjusted p-value is at
most α and the cliques follow from those pairs. ``wilcoxon`` tests each pair on the datasets
where both have a result. ``conover`` needs complete blocks (an error names the holes).
"""
from __future__ import annotations

import math
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd
from scipy.special import log_ndtr, ndtr

from .._frames import as_frame, float_values, id_strings
from .._lazymodule import lazy_module
from ..errors import AggregateError, Hint, renamed_keywords
from ..formatting import preview
from ..settings import POSTHOCS as _POSTHOCS
from ..settings import RankSettings, resolve_settings
from ..signature import Signature, make_signature
from ..stats.multiplicity import adjust_pvalues
from .bayesrank import BayesianRankTest, bayesian_rank_test
from .skillings_mack import conover_pairs, contrast_z, skillings_mack

stats = lazy_module("scipy.stats")  # imported on first use: it is slow to import

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.figure import Figure

    from ..scores import Scores

#: the defaults of rank_test's keywords: those of its settings object (one place)
_DEFAULT = RankSettings()

__all__ = [
    "POSTHOCS",
    "RankTest",
    "SignTest",
    "TwoSystemTests",
    "WilcoxonTest",
    "rank_test",
    "rank_table",
    "two_system_tests",
]

#: Post-hoc procedures of :func:`rank_test`.
POSTHOCS: tuple[str, ...] = _POSTHOCS
_CONTROL_POSTHOCS = ("bonferroni-dunn", "holm")


# ----------------------------------------------------------------------------- results
@dataclass(frozen=True)
class WilcoxonTest:
    """Wilcoxon signed-rank test of two systems over datasets (Demšar 2006, §3.1.3).

    ``d_i`` is ``a``'s score minus ``b``'s on dataset ``i`` (sign flipped when lower is better,
    so ``d_i > 0`` means ``a`` won). The ``|d_i|`` are ranked (ties averaged);
    ``r_plus = Σ_{d_i>0} rank_i + ½ Σ_{d_i=0} rank_i`` and ``r_minus`` likewise, i.e. zero
    differences are split evenly between the two sums, as Demšar prescribes.
    ``statistic = min(r_plus, r_minus)`` (Demšar's T). ``pvalue`` is two-sided, from
    ``scipy.stats.wilcoxon(d, zero_method="zsplit")`` with scipy's default ``method="auto"``
    (exact null distribution for N ≤ 50 without ties or zeros; exact enumeration of sign flips
    when there are ties or zeros and N ≤ 13; otherwise the normal approximation with continuity
    correction). All differences zero: ``pvalue = 1``.
    """

    a: str
    b: str
    statistic: float
    pvalue: float
    r_plus: float
    r_minus: float
    n: int

    def to_dict(self) -> dict[str, Any]:
        return {
            "a": self.a, "b": self.b, "statistic": _num(self.statistic),
            "pvalue": _num(self.pvalue), "r_plus": _num(self.r_plus),
            "r_minus": _num(self.r_minus), "n": self.n,
        }


@dataclass(frozen=True)
class SignTest:
    """Sign test of two systems over datasets (Demšar 2006, §3.1.3).

    ``wins``/``losses``/``ties`` count the datasets where ``a`` is better/worse/equal. Ties are
    split evenly between wins and losses and, if their number is odd, one tie is ignored: the
    test uses ``n = wins + losses + 2⌊ties/2⌋`` datasets and ``wins + ⌊ties/2⌋`` wins, with the
    exact two-sided binomial p-value at 1/2 (``scipy.stats.binomtest``). ``n = 0`` gives ``pvalue
    = 1``.
    """

    a: str
    b: str
    wins: int
    losses: int
    ties: int
    n: int
    pvalue: float

    def to_dict(self) -> dict[str, Any]:
        return {
            "a": self.a, "b": self.b, "wins": self.wins, "losses": self.losses,
            "ties": self.ties, "n": self.n, "pvalue": _num(self.pvalue),
        }


@dataclass(frozen=True)
class TwoSystemTests:
    """Both tests Demšar (§3.1.3) recommends for two systems over N datasets."""

    wilcoxon: WilcoxonTest
    sign_test: SignTest


@dataclass(frozen=True)
class RankTest:
    """Friedman test with post-hoc comparisons of k systems over N datasets (Demšar 2006).

    Attributes
    ----------
    average_ranks
        ``pd.Series`` system → average rank ``R_j`` (rank 1 = best, ties averaged), sorted best
        first (equal average ranks keep the input column order).
    ranks
        Per-dataset ranks, ``pd.DataFrame`` datasets × systems (columns in ``average_ranks``
        order). With missing cells: each system's rank among the systems present on the
        dataset (1..n_i, not rescaled) and NaN where it has no result.
    statistic, pvalue
        Friedman's ``χ²_F`` (tie-corrected when ``tie_correction``) and its χ²(k−1) p-value.
    iman_davenport, iman_davenport_pvalue, iman_davenport_df
        ``F_F``, its p-value and its ``(k − 1, (k − 1)(N − 1))`` degrees of freedom. When every
        dataset ranks the systems identically (``χ²_F = N(k − 1)``), ``F_F = inf`` and p = 0.
    critical_difference
        Nemenyi or Bonferroni–Dunn CD in average-rank units; ``None`` for holm/wilcoxon.
    pairwise
        ``pd.DataFrame`` with columns ``a, b, statistic, pvalue, pvalue_adjusted, significant``.
        All pairs (``a`` ranked better than or equal to ``b``, in rank order) for nemenyi and
        wilcoxon; ``control`` vs every other system (``a = control``) for holm and
        bonferroni-dunn. ``statistic`` is ``z = (R_a − R_b)/SE`` (negative when ``a`` is better)
        except for wilcoxon, where it is the signed-rank statistic ``min(R+, R−)``.
        ``significant`` is ``|R_a − R_b| ≥ CD`` for nemenyi and bonferroni-dunn (Demšar's rule,
        the same as ``pvalue_adjusted ≤ alpha`` up to rounding) and ``pvalue_adjusted ≤ alpha``
        for holm and wilcoxon, with ``alpha = 1 − level``.
    cliques
        Maximal groups (tuples of ≥ 2 systems, in rank order) of systems that are contiguous in
        rank order and have no significant difference between any two members; these are the
        bars a CD diagram draws. For nemenyi and bonferroni-dunn a group is a run whose
        average-rank span is ``< CD``; for holm and wilcoxon a run with no ``significant`` pair
        (pairs holm does not test, i.e. not involving the control, count as not significant).
        Systems significantly different from all their neighbours belong to no clique.
    wilcoxon, sign_test
        For two systems only (``None`` when k > 2): Demšar's two-classifier tests of the better
        ranked system (``a``) against the other.
    test
        The omnibus test that ran: ``"friedman"`` (complete table) or ``"skillings-mack"``
        (cells missing; ``statistic`` and ``pvalue`` are then Skillings and Mack's T and its
        χ² p-value, the Iman–Davenport fields NaN and ``critical_difference`` ``None``).
    statistic_df
        The χ² degrees of freedom of ``statistic``: ``k − 1`` (Skillings–Mack: the rank of its
        covariance matrix, ``k − 1`` whenever every system has an informative dataset).
    n_missing, n_cells
        Missing cells of the datasets × systems table that was tested, and its ``N · k`` cells.
    dropped_datasets
        Datasets left out because fewer than two systems had a result there.
    """

    average_ranks: pd.Series
    ranks: pd.DataFrame
    statistic: float
    pvalue: float
    iman_davenport: float
    iman_davenport_pvalue: float
    iman_davenport_df: tuple[float, float]
    critical_difference: float | None
    pairwise: pd.DataFrame
    cliques: list[tuple[str, ...]]
    n_datasets: int
    n_systems: int
    level: float
    posthoc: str
    control: str | None
    higher_is_better: bool
    tie_correction: bool
    wilcoxon: WilcoxonTest | None
    sign_test: SignTest | None
    signature: Signature
    test: str = "friedman"
    statistic_df: float = math.nan
    n_missing: int = 0
    n_cells: int = 0
    dropped_datasets: tuple[str, ...] = ()
    #: the settings object of the call that made this result (:func:`rank_test`)
    settings: RankSettings | None = field(default=None, compare=False, repr=False)

    @property
    def alpha(self) -> float:
        """The significance level of the post-hoc tests and the CD, ``1 − level``."""
        return 1.0 - self.level

    def to_frame(self) -> pd.DataFrame:
        """One row per system, best first: ``system``, ``rank`` (1 = best; equal average ranks
        share the lower position) and ``average_rank``."""
        ar = self.average_ranks
        return pd.DataFrame({
            "system": ar.index.astype(str),
            "rank": stats.rankdata(ar.to_numpy(), method="min").astype(int),
            "average_rank": ar.to_numpy(dtype=float),
        })

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict at full precision (non-finite numbers become ``None``)."""
        t = self.pairwise
        pw = [
            {
                "a": str(a), "b": str(b), "statistic": _num(stat), "pvalue": _num(p),
                "pvalue_adjusted": _num(padj), "significant": bool(sig),
            }
            for a, b, stat, p, padj, sig in zip(
                t["a"].tolist(), t["b"].tolist(), t["statistic"].to_numpy(dtype=float).tolist(),
                t["pvalue"].to_numpy(dtype=float).tolist(),
                t["pvalue_adjusted"].to_numpy(dtype=float).tolist(),
                t["significant"].to_numpy(dtype=bool).tolist(), strict=True,
            )
        ]
        return {
            "n_datasets": self.n_datasets,
            "n_systems": self.n_systems,
            "level": self.level,
            "posthoc": self.posthoc,
            "control": self.control,
            "higher_is_better": self.higher_is_better,
            "tie_correction": self.tie_correction,
            "test": self.test,
            "statistic_df": _num(self.statistic_df),
            "n_missing": self.n_missing,
            "n_cells": self.n_cells,
            "dropped_datasets": list(self.dropped_datasets),
            "average_ranks": {str(k): float(v) for k, v in self.average_ranks.items()},
            "statistic": _num(self.statistic),
            "pvalue": _num(self.pvalue),
            "iman_davenport": _num(self.iman_davenport),
            "iman_davenport_pvalue": _num(self.iman_davenport_pvalue),
            "iman_davenport_df": [_num(d) for d in self.iman_davenport_df],
            "critical_difference": _num(self.critical_difference),
            "pairwise": pw,
            "cliques": [list(c) for c in self.cliques],
            "wilcoxon": None if self.wilcoxon is None else self.wilcoxon.to_dict(),
            "sign_test": None if self.sign_test is None else self.sign_test.to_dict(),
            "signature": str(self.signature),
        }

    def plot(self, **kwargs: Any) -> Figure:
        """The critical-difference diagram (:func:`ranger_eval.plots.cd.cd_diagram`)."""
        from ..plots.cd import cd_diagram

        return cd_diagram(self, **kwargs)


def _num(value: float | None) -> float | None:
    if value is None:
        return None
    v = float(value)
    return v if math.isfinite(v) else None


# ----------------------------------------------------------------------------- input
def rank_table(
    table: pd.DataFrame | Scores, *, metric: str | None = None
) -> pd.DataFrame:
    """The datasets × systems table :func:`rank_test` ranks.

    ``table`` is either

    * a wide ``DataFrame``: rows = datasets (index), columns = systems, numeric cells;
    * a tidy ``DataFrame`` with columns ``dataset``, ``system``, ``value`` (and optionally
      ``metric``, ``item``, ``seed``): each (dataset, system) becomes the mean of its values
      (seeds are averaged per item first);
    * a :class:`~ranger_eval.scores.Scores` (treated as its tidy ``.frame``).

    A tidy table must hold one metric per dataset (select one with ``metric=`` or
    ``Scores.filter(metrics=[...])``); different datasets may use different metrics, since each
    dataset only ranks the systems. A missing cell (NaN, or a system without a score on a dataset
    of a tidy table) stays NaN: :func:`rank_test` handles it (Skillings–Mack); an infinite score
    is an error naming the dataset and system.

    Parameters
    ----------
    table : DataFrame or Scores
        A wide table (datasets × systems), a tidy table (``dataset``, ``system``, ``value``
        columns) or a :class:`~ranger_eval.scores.Scores`; other table-like objects (Arrow,
        polars) are converted first.
    metric : str, optional
        The metric to keep from a tidy table with a ``metric`` column; an error for a wide table.

    Returns
    -------
    DataFrame
        One row per dataset (index, as text), one column per system (as text), float cells,
        NaN where a score is missing.

    Raises
    ------
    AggregateError
        Duplicate dataset or system names, a non-numeric or infinite score, several metrics on
        one dataset, or ``metric=`` with a wide table.

    Examples
    --------
    >>> import pandas as pd
    >>> from ranger_eval.aggregate.ranktests import rank_table
    >>> tidy = pd.DataFrame({"dataset": ["d1", "d1", "d2", "d2"], "system": ["A", "B", "A", "B"],
    ...                      "value": [0.5, 0.4, 0.7, 0.6]})
    >>> rank_table(tidy)
          A    B
    d1  0.5  0.4
    d2  0.7  0.6
    """
    if not isinstance(table, pd.DataFrame) and isinstance(getattr(table, "frame", None),
                                                          pd.DataFrame):
        return _from_tidy(table.frame, metric)
    # any table-like input (Arrow, polars, structured array …): module _frames' rules
    table = as_frame(table, what="rank_test (a wide table of datasets × systems, a tidy table "
                     "or Scores)", error=AggregateError)
    tidy = {"dataset", "system", "value"}
    named = {str(n) for n in table.index.names if n is not None}
    if not tidy <= set(map(str, table.columns)) and tidy <= set(map(str, table.columns)) | named:
        table = as_frame(table, what="rank_test", error=AggregateError,
                         index_columns=("dataset", "system", "metric", "item", "seed"))
    if tidy <= set(map(str, table.columns)):
        return _from_tidy(table, metric)
    if metric is not None:
        raise AggregateError(
            f"metric={metric!r} only applies to tidy tables (columns dataset, system, metric, "
            "value); this table is wide (rows = datasets, columns = systems)"
        )
    return _from_wide(table)


def _from_wide(df: pd.DataFrame) -> pd.DataFrame:
    df = df.copy()
    df.columns = [str(c) for c in df.columns]
    if df.index.dtype == "str" and not df.index.hasnans:  # already text: as str() would give
        df.index = df.index.rename(None)  # (a million datasets: no Python call per name)
    else:
        df.index = [str(i) for i in df.index]
    for axis, names in (("system (column)", df.columns), ("dataset (row)", df.index)):
        dup = pd.Index(names)[pd.Index(names).duplicated()].unique()
        if len(dup):
            raise AggregateError(f"duplicate {axis} name(s) in table: {', '.join(map(repr, dup))}")
    cells = {}
    for col, dtype in df.dtypes.items():
        if pd.api.types.is_bool_dtype(dtype):
            raise AggregateError(
                f"system {col!r} has non-numeric scores (dtype {dtype}); the table must hold "
                "one number per dataset (row) and system (column)"
            )
        values, bad = float_values(df[col])
        if bad is not None and bad.problem == "missing value":  # a hole: fine unless others
            other = np.flatnonzero(np.isnan(values) & ~df[col].isna().to_numpy(dtype=bool))
            if other.size:
                raise AggregateError(
                    f"system {col!r} has a non-numeric score {df[col].iloc[other[0]]!r} on "
                    f"dataset {df.index[other[0]]!r}; the table must hold one number per dataset "
                    "(row) and system (column), or nothing (NaN) where a result is missing")
        elif bad is not None:
            raise AggregateError(
                f"system {col!r} has non-numeric scores (dtype {dtype}): {bad.problem} "
                f"{bad.shown} on dataset {df.index[bad.first]!r}{bad.more()}; the table must "
                "hold one number per dataset (row) and system (column)"
            )
        cells[col] = values
    return _check_cells(pd.DataFrame(cells, index=df.index, columns=df.columns))


def _from_tidy(df: pd.DataFrame, metric: str | None) -> pd.DataFrame:
    df = df.copy()
    df.columns = [str(c) for c in df.columns]
    used = ("dataset", "system", "metric") + (
        ("item", "seed") if {"item", "seed"} <= set(df.columns) else ())
    for col in used:
        if col not in df.columns:
            continue
        ids, bad_id = id_strings(df[col])
        if bad_id is not None:
            if bad_id.problem == "missing id":
                raise AggregateError(f"empty {col!r} at row {bad_id.first} of the tidy table")
            raise AggregateError(f"column {col!r} of the tidy table: {bad_id.describe()}"
                                 f"{bad_id.more()}")
        df[col] = ids
    values, bad = float_values(df["value"])
    if bad is not None:
        row = bad.first
        raise AggregateError(
            f"non-numeric or missing value: {bad.describe()} (dataset "
            f"{df['dataset'].iloc[row]!r}, system {df['system'].iloc[row]!r}); "
            f"values must be numbers{bad.more()}"
        )
    df["value"] = values
    if "metric" in df.columns:
        if metric is not None:
            known = list(pd.unique(df["metric"]))
            if str(metric) not in known:
                raise AggregateError(
                    f"unknown metric {metric!r}; the table has: {', '.join(map(repr, known))}"
                )
            df = df[df["metric"] == str(metric)]
        per = df.groupby("dataset", sort=False)["metric"].unique()
        several = per[per.map(len) > 1]
        if len(several):
            ds = several.index[0]
            ms = ", ".join(repr(m) for m in several.iloc[0])
            one = Hint("metric", str(several.iloc[0][0]), form="set")
            raise AggregateError(
                f"dataset {ds!r} has several metrics ({ms}); a rank test ranks the systems on one "
                f"metric per dataset: select one with {one.text}", hints=[one]
            )
    elif metric is not None:
        given = Hint("metric", metric, form="set")
        raise AggregateError(f"{given.text} given but the table has no 'metric' column",
                             hints=[given])
    datasets = list(pd.unique(df["dataset"]))
    systems = list(pd.unique(df["system"]))
    keys = ["dataset", "system"]
    if "seed" in df.columns and "item" in df.columns:
        df = df.groupby([*keys, "item"], sort=False)["value"].mean().reset_index()
    means = df.groupby(keys, sort=False)["value"].mean().unstack("system")
    means = means.reindex(index=datasets, columns=systems)
    means.index.name = None
    means.columns.name = None
    return _check_cells(means)


def _check_cells(df: pd.DataFrame) -> pd.DataFrame:
    values = df.to_numpy(dtype=float)
    bad = np.isinf(values)  # NaN is a missing cell (rank_test: Skillings–Mack)
    if bad.any():
        rows, cols = np.nonzero(bad)
        listed = "; ".join(
            f"dataset {df.index[r]!r}, system {df.columns[c]!r} ({float(values[r, c])!r})"
            for r, c in zip(rows[:5], cols[:5], strict=True)
        )
        more = f" and {rows.size - 5} more" if rows.size > 5 else ""
        raise AggregateError(
            f"infinite score for {listed}{more}; every score must be a finite number (leave a "
            "cell empty (NaN) when a system has no result on a dataset)"
        )
    n, k = values.shape
    if n < 2:
        raise AggregateError(
            f"a rank test needs at least 2 datasets (rows); got {n}: {list(df.index)}"
        )
    if k < 2:
        raise AggregateError(
            f"a rank test needs at least 2 systems (columns); got {k}: {list(df.columns)}"
        )
    return df


def _holes_text(df: pd.DataFrame, present: np.ndarray, limit: int = 3) -> str:
    rows, cols = np.nonzero(~present)
    listed = "; ".join(f"dataset {df.index[r]!r}, system {df.columns[c]!r}"
                       for r, c in zip(rows[:limit], cols[:limit], strict=True))
    return listed + (f" and {rows.size - limit} more" if rows.size > limit else "")


def _names(names: Sequence[object], limit: int = 5) -> str:
    """Quoted names of an error or warning: "'a', 'b' and 3 more"."""
    return preview([str(x) for x in names], limit, tail=" and {more} more")


def _usable_rows(df: pd.DataFrame) -> tuple[pd.DataFrame, tuple[str, ...]]:
    """The table without the datasets that have fewer than two results (a warning names them),
    after the checks a table with holes needs: not all holes, every system with a result on a
    kept dataset, and every two systems linked through datasets they share (else the ranks of
    the two groups are not comparable)."""
    present = df.notna().to_numpy()
    n, k = present.shape
    if not present.any():
        raise AggregateError(
            f"every cell of the datasets × systems table is missing ({n} datasets × {k} systems: "
            f"{_names(list(df.columns))}); a rank test needs scores")
    counts = present.sum(axis=1)
    few = counts < 2
    dropped: tuple[str, ...] = ()
    if few.any():
        dropped = tuple(str(x) for x in df.index[few])
        warnings.warn(
            f"rank_test: {len(dropped)} dataset(s) with fewer than two results dropped (a "
            f"dataset must rank at least two systems): {_names(dropped)}", stacklevel=4)
        df = df.loc[~few]
        present = present[~few]
    if df.shape[0] < 2:
        raise AggregateError(
            f"a rank test needs at least 2 datasets with two or more results; got "
            f"{df.shape[0]}" + (f" after dropping {len(dropped)} with fewer than two results "
                                f"({_names(dropped)})" if dropped else "")
            + f": {_names(list(df.index))}")
    none = ~present.any(axis=0)
    if none.any():
        lost = [str(c) for c in df.columns[none]]
        raise AggregateError(
            f"system(s) {_names(lost)} have no result on any dataset"
            + (" with another result" if dropped else "")
            + "; a rank test ranks every system on some dataset: drop the system or add its "
            "scores")
    if not present.all():
        from scipy.sparse.csgraph import connected_components

        link = present.T.astype(np.int64) @ present.astype(np.int64)
        n_groups, label = connected_components(link > 0, directed=False)
        if n_groups > 1:
            cols = [str(c) for c in df.columns]
            groups = [[cols[j] for j in np.flatnonzero(label == g)] for g in range(n_groups)]
            raise AggregateError(
                f"the systems fall into {n_groups} groups that never share a dataset "
                f"({'; '.join(_names(g, 3) for g in groups)}); ranks from different groups "
                "are not comparable: rank each group separately or add the missing results")
    return df, dropped


# ----------------------------------------------------------------------------- helpers
def _studentized_range_sf_inf(q: np.ndarray, k: int, *, step: float = 0.1) -> np.ndarray:
    """``P(range of k iid N(0, 1) > q)`` — the studentized range survival function, df = ∞.

    ``sf(q) = k ∫ φ(z) [Φ(z)^{k−1} − (Φ(z) − Φ(z − q))^{k−1}] dz`` (the maximum is ``z``; the
    CDF is the same integral with the second term only, Lund & Lund 1983). The bracket is
    evaluated as ``Φ(z)^{k−1} · (−expm1((k−1)·log1p(−Φ(z−q)/Φ(z))))`` so that small p-values keep
    their relative accuracy (scipy's ``studentized_range.sf`` is ``1 − cdf`` with absolute
    tolerance 1e-11 and returns 0 below ~1e-16). The integrand is entire and decays like a
    Gaussian, so the trapezoidal rule with step 0.1 converges geometrically; it agrees with a
    40-digit mpmath quadrature to ~1e-14 relative and with scipy to ~1e-13 absolute. Vectorised
    over all ``q`` at once (one matrix product per block).
    """
    q = np.asarray(q, dtype=float)
    flat = np.abs(q.ravel())
    if np.isinf(flat).any():  # an infinite range has probability 0 (Conover's t = ±inf)
        out = np.zeros(flat.shape)
        fin = ~np.isinf(flat)
        out[fin] = _studentized_range_sf_inf(flat[fin], k, step=step)
        return out.reshape(q.shape)
    out = np.empty(flat.shape)
    if flat.size == 0:
        return out.reshape(q.shape)
    m = k - 1
    qmax = float(flat.max())
    # Beyond z_hi the integrand is below 1e-16 of sf(q) (right tail of the maximum).
    hi = math.sqrt(qmax * qmax / 2.0 + 2.0 * (37.0 + math.log(k))) + 1.5
    z = np.arange(-9.0, hi + step, step)
    log_e = math.log(k) - 0.5 * z * z - 0.5 * math.log(2.0 * math.pi) + m * log_ndtr(z)
    keep = log_e > -745.0
    z, e = z[keep], np.exp(log_e[keep])
    a = ndtr(z)
    rows = max(1, (1 << 20) // max(z.size, 1))
    for s in range(0, flat.size, rows):
        r = ndtr(z[None, :] - flat[s:s + rows, None]) / a[None, :]
        with np.errstate(divide="ignore"):
            t = -np.expm1(m * np.log1p(-r))
        out[s:s + rows] = step * (t @ e)
    return np.minimum(out, 1.0).reshape(q.shape)


def _tie_term(oriented: np.ndarray) -> float:
    """``Σ_i Σ_ties (t³ − t)`` over the rows of ``oriented`` (tie groups of equal values)."""
    s = np.sort(oriented, axis=1)
    new = np.ones(s.shape, dtype=bool)
    new[:, 1:] = s[:, 1:] != s[:, :-1]
    flat = new.ravel()
    starts = np.flatnonzero(flat)
    t = np.diff(np.append(starts, flat.size)).astype(float)
    return float(np.sum(t ** 3 - t))


def _interval_cliques(nonsig: np.ndarray, names: Sequence[str]) -> list[tuple[str, ...]]:
    """Maximal runs ``i..j`` (j > i) of the rank order in which every pair is not significant.

    ``nonsig`` is a symmetric boolean matrix in rank order. ``reach[p]`` is the last index ``j``
    with ``nonsig[p, p..j]`` all true; a run ``i..j`` is a clique iff ``reach[p] ≥ j`` for every
    ``p`` in it. Ends are non-decreasing in ``i``, so a run is maximal iff its end exceeds the
    previous run's end.
    """
    k = len(names)
    reach = np.empty(k, dtype=int)
    for p in range(k):
        row = nonsig[p, p:]
        stop = np.flatnonzero(~row)
        reach[p] = p + (stop[0] - 1 if stop.size else row.size - 1)
    cliques: list[tuple[str, ...]] = []
    prev_end = -1
    for i in range(k):
        j, lowest = i, reach[i]
        while j + 1 < k and min(lowest, reach[j + 1]) >= j + 1:
            j += 1
            lowest = min(lowest, reach[j])
        if j > i and j > prev_end:
            cliques.append(tuple(names[i:j + 1]))
        prev_end = max(prev_end, j)
    return cliques


# ----------------------------------------------------------------------------- two systems
def two_system_tests(
    x: Sequence[float] | np.ndarray | pd.Series,
    y: Sequence[float] | np.ndarray | pd.Series,
    *,
    higher_is_better: bool = True,
    names: tuple[str, str] = ("a", "b"),
) -> TwoSystemTests:
    """Wilcoxon signed-rank and sign tests of system ``x`` against ``y`` over datasets.

    ``x[i]`` and ``y[i]`` are the two systems' scores on dataset ``i`` (aligned by position;
    two ``pd.Series`` are aligned by their index). Demšar (2006) §3.1.3; see
    :class:`WilcoxonTest` and :class:`SignTest` for the formulas.

    Parameters
    ----------
    x, y : array_like or Series
        One score per dataset for each system; the same length (or, two Series, the same
        index); finite.
    higher_is_better : bool, default True
        Direction of the metric: with ``False`` a lower score wins (the differences are
        ``y - x``).
    names : tuple of str, default ("a", "b")
        The names of ``x`` and ``y`` carried into the results.

    Returns
    -------
    TwoSystemTests
        ``wilcoxon`` (:class:`WilcoxonTest`: ``statistic`` T = min(R+, R-), ``r_plus``,
        ``r_minus``, two-sided ``pvalue``) and ``sign_test`` (:class:`SignTest`: ``wins``,
        ``losses``, ``ties``, exact binomial ``pvalue``).

    Raises
    ------
    AggregateError
        Different lengths or datasets, no scores, or a missing or non-finite score.

    References
    ----------
    Demšar (2006), "Statistical comparisons of classifiers over multiple data sets", JMLR 7:1–30.

    Examples
    --------
    >>> from ranger_eval.aggregate.ranktests import two_system_tests
    >>> r = two_system_tests([0.81, 0.62, 0.90, 0.55, 0.73], [0.70, 0.60, 0.82, 0.50, 0.74],
    ...                      names=("A", "B"))
    >>> r.wilcoxon.statistic, r.wilcoxon.r_plus, r.wilcoxon.pvalue
    (1.0, 14.0, 0.125)
    >>> r.sign_test.wins, r.sign_test.losses, r.sign_test.pvalue
    (4, 1, 0.375)
    """
    if isinstance(x, pd.Series) and isinstance(y, pd.Series):
        if set(x.index) != set(y.index):
            only = sorted(map(str, set(x.index) ^ set(y.index)))[:5]
            raise AggregateError(
                f"x and y must score the same datasets; only in one of them: {', '.join(only)}"
            )
        y = y.reindex(x.index)
    xa = np.asarray(x, dtype=float)
    ya = np.asarray(y, dtype=float)
    if xa.ndim != 1 or ya.ndim != 1 or xa.size != ya.size:
        raise AggregateError(
            f"x and y must be 1-D and of equal length (one score per dataset); got shapes "
            f"{xa.shape} and {ya.shape}"
        )
    if xa.size < 1:
        raise AggregateError("x and y are empty: need one score per dataset")
    for label, arr in (("x", xa), ("y", ya)):
        bad = np.flatnonzero(~np.isfinite(arr))
        if bad.size:
            raise AggregateError(
                f"{label} has a missing or non-finite score {arr[bad[0]]!r} at dataset {bad[0]}"
            )
    a, b = (str(n) for n in names)
    d = xa - ya if higher_is_better else ya - xa
    n = int(d.size)
    absrank = stats.rankdata(np.abs(d))
    zero = d == 0
    r_plus = float(absrank[d > 0].sum() + absrank[zero].sum() / 2.0)
    r_minus = float(absrank[d < 0].sum() + absrank[zero].sum() / 2.0)
    if zero.all():
        p_w = 1.0
    else:
        p_w = float(stats.wilcoxon(d, zero_method="zsplit").pvalue)
    wil = WilcoxonTest(a=a, b=b, statistic=min(r_plus, r_minus), pvalue=min(p_w, 1.0),
                       r_plus=r_plus, r_minus=r_minus, n=n)
    wins, losses, ties = int((d > 0).sum()), int((d < 0).sum()), int(zero.sum())
    used = wins + losses + 2 * (ties // 2)
    p_s = 1.0 if used == 0 else float(stats.binomtest(wins + ties // 2, used, 0.5).pvalue)
    sign = SignTest(a=a, b=b, wins=wins, losses=losses, ties=ties, n=used, pvalue=min(p_s, 1.0))
    return TwoSystemTests(wilcoxon=wil, sign_test=sign)


# ----------------------------------------------------------------------------- main
@renamed_keywords(alpha="level", n_samples="n_draws")
def rank_test(
    table: pd.DataFrame | Scores,
    *,
    higher_is_better: Mapping[str, bool] | bool | None = _DEFAULT.higher_is_better,
    level: float = _DEFAULT.level,
    posthoc: str = _DEFAULT.posthoc,
    control: str | None = _DEFAULT.control,
    tie_correction: bool = _DEFAULT.tie_correction,
    metric: str | None = None,
    approach: str = _DEFAULT.approach,
    rope: float = _DEFAULT.rope,
    rope_mode: str = _DEFAULT.rope_mode,
    prior: float = _DEFAULT.prior,
    n_draws: int = _DEFAULT.n_draws,
    seed: int | None = _DEFAULT.seed,
    settings: RankSettings | None = None,
) -> RankTest | BayesianRankTest:
    """Friedman / Iman–Davenport test and a post-hoc procedure (Demšar 2006).

    Parameters
    ----------
    table
        Scores of k systems on N datasets: a wide DataFrame (rows = datasets, columns =
        systems), a tidy DataFrame (columns ``dataset, system, value`` [, ``metric``, ``item``,
        ``seed``]) or a :class:`~ranger_eval.scores.Scores`; tidy input is reduced to each
        system's mean per dataset (:func:`rank_table`).
    higher_is_better
        Whether a larger score is better (rank 1 goes to the largest score); None (the
        default, :class:`~ranger_eval.settings.RankSettings`') is True here, and a mapping of
        metric to direction (the rank command's YAML form) takes the entry of ``metric``.
    level
        Confidence level; the post-hoc tests and the CD are at the significance level
        ``alpha = 1 − level``.
    posthoc
        ``"nemenyi"`` (all pairs), ``"bonferroni-dunn"`` or ``"holm"`` (every system vs
        ``control``), or ``"wilcoxon"`` (all pairs, signed-rank tests with Holm). ``"wilcoxon"``
        runs one scipy test per pair (an exact enumeration of sign flips when N ≤ 13 and there
        are ties or zeros), so it is the slow choice for many systems; the others are
        vectorised.
    control
        The control system, required for ``"bonferroni-dunn"`` and ``"holm"`` only.
    tie_correction
        Divide χ²_F by the tie correction (the default, as R ``friedman.test``,
        ``scipy.stats.friedmanchisquare`` and autorank); ``False``: Demšar's untied formula
        (eq. 3). Iman–Davenport's F follows the χ²_F chosen; the post-hoc tests do not change.
    metric
        For tidy tables with several metrics per dataset: the one to rank.
    approach
        ``"frequentist"`` (the default: Friedman and ``posthoc``, a :class:`RankTest`) or
        ``"bayesian"``: autorank's Bayesian signed-rank test of every pair with a ROPE, each
        pair decided better, equivalent, worse or inconclusive at probability ``level``
        (a :class:`~ranger_eval.aggregate.bayesrank.BayesianRankTest`; formulas in
        :mod:`ranger_eval.aggregate.bayesrank`; at least 5 datasets, no missing cells).
    rope, rope_mode, prior, n_draws, seed
        The Bayesian approach only (autorank's defaults): the ROPE's half-width ``rope`` (×
        each pair's pooled SD or MAD·1.4826 with ``rope_mode="effsize"``, in the metric's units
        with ``"absolute"``), the Dirichlet prior strength of the pseudo-observation 0, the
        posterior draws per pair and their seed (``numpy.random.RandomState(seed)``, as
        autorank's ``random_state``: the same seed gives autorank's probabilities exactly).
    settings
        A :class:`~ranger_eval.settings.RankSettings` instead of the keywords (its fields that
        the rank test does not use, such as ``comparisons`` or ``weights``, are ignored here);
        a keyword other than its default next to it is a
        :class:`~ranger_eval.errors.SettingsError` naming the clash. The result carries the
        settings object of the call (``.settings``).

    The formulas are in the module docstring.

    Returns
    -------
    RankTest or BayesianRankTest
        ``average_ranks``, Friedman's ``statistic`` and ``pvalue``, ``iman_davenport`` (F) and
        its p-value, ``critical_difference``, the ``pairwise`` post-hoc table, the ``cliques``
        of systems not told apart, and ``settings``; with ``approach="bayesian"`` the posterior
        probabilities and decision of every pair.

    Raises
    ------
    AggregateError
        Bad input: missing scores, fewer than 2 datasets or systems, unknown options.

    References
    ----------
    Demšar, J. (2006), "Statistical comparisons of classifiers over multiple data sets", JMLR
    7:1–30 (Friedman eq. 3, Iman–Davenport eq. 4, Nemenyi's critical difference).
    Benavoli, A., Corani, G. & Mangili, F. (2016), "Should we really use post-hoc tests based on
    mean-ranks?", JMLR 17:1–10 (the Wilcoxon post-hoc with Holm).

    Examples
    --------
    >>> import pandas as pd
    >>> import ranger_eval as rg
    >>> table = pd.DataFrame({"A": [.81, .72, .65, .90, .77, .70],
    ...                       "B": [.79, .70, .66, .85, .74, .69],
    ...                       "C": [.70, .65, .60, .80, .70, .61]}, index=list("pqrstu"))
    >>> r = rg.rank_test(table)
    >>> r.average_ranks.round(3).to_dict()
    {'A': 1.167, 'B': 1.833, 'C': 3.0}
    >>> round(r.statistic, 3), round(r.pvalue, 5), round(r.critical_difference, 3)
    (10.333, 0.0057, 1.353)
    >>> r.cliques
    [('A', 'B'), ('B', 'C')]
    """
    # one check, the settings': SettingsError (an AggregateError) naming the key and value
    if not isinstance(tie_correction, (bool, np.bool_)):
        raise AggregateError(f"tie_correction must be True or False; got {tie_correction!r}")
    if isinstance(higher_is_better, np.bool_):
        higher_is_better = bool(higher_is_better)
    settings = resolve_settings(RankSettings, {
        "higher_is_better": higher_is_better, "level": level, "posthoc": posthoc,
        "control": control, "tie_correction": bool(tie_correction), "approach": approach,
        "rope": rope, "rope_mode": rope_mode, "prior": prior, "n_draws": n_draws, "seed": seed,
    }, settings, where="rank_test")
    result = _rank_test_settled(table, metric, settings)
    object.__setattr__(result, "settings", settings)  # the result's one settings record
    return result


def _direction(settings: RankSettings, metric: str | None) -> bool:
    """rank_test's direction: ``higher_is_better`` True/False, None → True, a mapping → its
    entry for ``metric``."""
    hib = settings.higher_is_better
    if hib is None or isinstance(hib, bool):
        return True if hib is None else hib
    if metric is not None and metric in hib:
        return bool(hib[metric])
    hint = Hint("higher_is_better")
    raise AggregateError(
        f"higher_is_better: the rank test ranks one metric; a mapping {dict(hib)!r} needs "
        f"metric= naming one of its keys ({hint.text} True or False for this table)",
        hints=[hint])


def _rank_test_settled(table: pd.DataFrame | Scores, metric: str | None,
                       settings: RankSettings) -> RankTest | BayesianRankTest:
    """:func:`rank_test`'s work, from its one checked settings object."""
    level, posthoc, control = settings.level, settings.posthoc, settings.control
    tie_correction = settings.tie_correction
    alpha = 1.0 - level
    higher_is_better = _direction(settings, metric)
    df = rank_table(table, metric=metric)
    if settings.approach == "bayesian":
        assert settings.seed is not None  # RankSettings: the Bayesian approach needs a seed
        return bayesian_rank_test(
            df, higher_is_better=higher_is_better, level=level, rope=settings.rope,
            rope_mode=settings.rope_mode, prior=settings.prior, n_draws=settings.n_draws,
            seed=settings.seed)
    systems = [str(c) for c in df.columns]
    if posthoc in _CONTROL_POSTHOCS:
        if control is None:
            hint = Hint("control")
            raise AggregateError(
                f"the {posthoc!r} post-hoc test compares every system with a control: "
                f"{hint.text}, one of {', '.join(map(repr, systems))}", hints=[hint]
            )
        if str(control) not in systems:
            raise AggregateError(
                f"unknown control {control!r}; systems: {', '.join(map(repr, systems))}"
            )
        control = str(control)
    elif control is not None:
        given, asked = Hint("control", control, form="set"), Hint("posthoc", posthoc, form="set")
        holm, dunn = Hint("posthoc", "holm", form="set"), Hint("posthoc", "bonferroni-dunn",
                                                                 form="set")
        raise AggregateError(
            f"{given.text} is only used by {holm.text} or {dunn.text}; {asked.text} compares "
            "all pairs", hints=[given, asked, holm, dunn]
        )

    df, dropped = _usable_rows(df)
    values = df.to_numpy(dtype=float)
    n, k = values.shape
    present = ~np.isnan(values)
    n_missing = int(present.size - np.count_nonzero(present))
    if n_missing and posthoc == "conover":
        hint = Hint("posthoc")
        raise AggregateError(
            f"Conover's post-hoc test needs complete blocks; {n_missing} of {n * k} cells are "
            f"missing ({_holes_text(df, present)}): the post-hoc tests 'nemenyi', 'holm' and "
            "'wilcoxon' allow them (Skillings–Mack contrasts, or Wilcoxon on the datasets both "
            f"systems share; {hint.text}), or drop the incomplete datasets", hints=[hint])
    oriented = -values if higher_is_better else values
    sm = None
    if n_missing:  # Skillings–Mack (module docstring)
        sm = skillings_mack(oriented, tie_correction=tie_correction)
        ranks = sm.ranks
        n_i = present.sum(axis=1).astype(float)
        avg = np.nanmean(1.0 + (ranks - 1.0) * ((k - 1.0) / (n_i - 1.0))[:, None], axis=0)
        chi2, pvalue, chi2_df = sm.statistic, sm.pvalue, float(sm.df)
        df1 = df2 = ff = ff_p = math.nan
    else:
        ranks = stats.rankdata(oriented, axis=1, method="average")
        avg = ranks.mean(axis=0)
        # Friedman χ²_F (Demšar eq. 3) as 12N/(k(k+1)) Σ (R_j − (k+1)/2)².
        chi2 = 12.0 * n / (k * (k + 1.0)) * float(np.sum((avg - (k + 1.0) / 2.0) ** 2))
        if tie_correction:
            c = 1.0 - _tie_term(oriented) / (n * k * (k * k - 1.0))
            chi2 = chi2 / c if c > 0 else 0.0
        chi2_df = float(k - 1)
        pvalue = float(stats.chi2.sf(chi2, k - 1))
        df1, df2 = float(k - 1), float((k - 1) * (n - 1))
        denom = n * (k - 1.0) - chi2
        if denom <= 1e-12 * n * (k - 1.0):
            ff, ff_p = math.inf, 0.0
        else:
            ff = (n - 1.0) * chi2 / denom
            ff_p = float(stats.f.sf(ff, df1, df2))
    order = np.argsort(avg, kind="stable")
    names = [systems[i] for i in order]
    avg_sorted = avg[order]

    se = math.sqrt(k * (k + 1.0) / (6.0 * n))
    cd: float | None = None
    ia: np.ndarray
    ib: np.ndarray
    if posthoc in ("nemenyi", "wilcoxon", "conover"):
        ia, ib = np.triu_indices(k, 1)  # positions in rank order
    else:
        c_pos = names.index(control)
        ib = np.array([p for p in range(k) if p != c_pos], dtype=int)
        ia = np.full(ib.size, c_pos, dtype=int)
    diff = avg_sorted[ia] - avg_sorted[ib]
    # with holes: the Skillings–Mack contrasts (Demšar's z on a complete table), no single CD
    z = diff / se if sm is None else contrast_z(sm, order[ia], order[ib])
    nonsig = np.ones((k, k), dtype=bool)
    if posthoc == "wilcoxon":
        stat = np.empty(ia.size)
        p = np.empty(ia.size)
        for t, (i, j) in enumerate(zip(ia, ib, strict=True)):
            x, y = values[:, order[i]], values[:, order[j]]
            both = present[:, order[i]] & present[:, order[j]]  # the datasets both have
            if not both.any():
                stat[t], p[t] = math.nan, 1.0
                continue
            res = two_system_tests(x[both], y[both], higher_is_better=higher_is_better).wilcoxon
            stat[t], p[t] = res.statistic, res.pvalue
        p_adj = adjust_pvalues(p, correction="holm")
        sig = p_adj <= alpha
    elif posthoc == "conover":  # complete blocks (checked above)
        stat, p, se_conover = conover_pairs(ranks, order[ia], order[ib])
        q_alpha = float(stats.studentized_range.ppf(1.0 - alpha, k, np.inf))
        cd = q_alpha / math.sqrt(2.0) * se_conover if se_conover > 0 else None
        p_adj = _studentized_range_sf_inf(np.abs(stat) * math.sqrt(2.0), k)
        sig = p_adj <= alpha
    else:
        stat = z
        p = np.minimum(1.0, 2.0 * stats.norm.sf(np.abs(z)))
        if posthoc == "nemenyi":
            q_alpha = float(stats.studentized_range.ppf(1.0 - alpha, k, np.inf))
            cd = None if sm is not None else q_alpha / math.sqrt(2.0) * se
            p_adj = _studentized_range_sf_inf(np.abs(z) * math.sqrt(2.0), k)
        elif posthoc == "bonferroni-dunn":
            if sm is None:
                cd = float(stats.norm.isf(alpha / (2.0 * (k - 1)))) * se
            p_adj = np.minimum(1.0, p * (k - 1))
        else:  # holm
            p_adj = adjust_pvalues(p, correction="holm")
        if cd is not None:
            sig = np.abs(diff) >= cd
            span = np.abs(avg_sorted[:, None] - avg_sorted[None, :])
            nonsig = span < cd
        else:
            sig = p_adj <= alpha
    if posthoc in ("holm", "wilcoxon", "conover") or sm is not None:
        nonsig[ia[sig], ib[sig]] = False
        nonsig[ib[sig], ia[sig]] = False
    cliques = _interval_cliques(nonsig, names)

    pairwise = pd.DataFrame({
        "a": pd.Series([names[i] for i in ia], dtype=object),
        "b": pd.Series([names[j] for j in ib], dtype=object),
        "statistic": np.asarray(stat, dtype=float),
        "pvalue": np.asarray(p, dtype=float),
        "pvalue_adjusted": np.asarray(p_adj, dtype=float),
        "significant": np.asarray(sig, dtype=bool),
    })

    wil = sgn = None
    if k == 2:
        two = two_system_tests(values[:, order[0]], values[:, order[1]],
                               higher_is_better=higher_is_better, names=(names[0], names[1]))
        wil, sgn = two.wilcoxon, two.sign_test

    corr = {"nemenyi": None, "bonferroni-dunn": "bonferroni", "holm": "holm",
            "wilcoxon": "holm", "conover": None}[posthoc]
    holes = f"{n_missing}/{n * k}" + (f",dropped={len(dropped)}" if dropped else "")
    signature = make_signature("rank", {
        "test": "friedman" if sm is None else "skillings-mack",
        "cells_missing": holes if n_missing or dropped else None,
        "posthoc": posthoc,
        "pairs": "all" if control is None else f"baseline({control})",
        "corr": corr,
        "level": f"{level:.6g}",
        "tie_correction": "yes" if tie_correction else "no",
        "method_detail": "zsplit" if posthoc == "wilcoxon" else None,
    })
    ranks_df = pd.DataFrame(ranks[:, order], index=df.index.copy(), columns=names)
    return RankTest(
        average_ranks=pd.Series(avg_sorted, index=pd.Index(names, dtype=object),
                                name="average_rank"),
        ranks=ranks_df,
        statistic=float(chi2),
        pvalue=pvalue,
        iman_davenport=float(ff),
        iman_davenport_pvalue=float(ff_p),
        iman_davenport_df=(df1, df2),
        critical_difference=None if cd is None else float(cd),
        pairwise=pairwise,
        cliques=cliques,
        n_datasets=int(n),
        n_systems=int(k),
        level=level,
        posthoc=posthoc,
        control=control,
        higher_is_better=higher_is_better,
        tie_correction=tie_correction,
        wilcoxon=wil,
        sign_test=sgn,
        signature=signature,
        test="friedman" if sm is None else "skillings-mack",
        statistic_df=chi2_df,
        n_missing=n_missing,
        n_cells=int(n * k),
        dropped_datasets=dropped,
    )
