"""HELM's mean win rate: how often a system beats the others, averaged over datasets.

Liang et al. (2022), "Holistic Evaluation of Language Models" (HELM), §4 and the function
``compute_aggregate_row_win_rates`` of ``helm/benchmark/presentation/summarize.py``.

On one dataset (HELM: one column of the leaderboard) with ``m`` systems that have a score, the
win rate of system ``j`` is the share of the other ``m − 1`` systems it beats, a tie counting
half::

    w_dj = (#{i ≠ j: s_dj better than s_di} + ½ #{i ≠ j: s_di = s_dj}) / (m − 1)

(HELM computes it as ``(systems strictly worse + (tied systems − 1)/2) / (m − 1)`` from the
sorted distinct values: the same number.) The mean win rate of ``j`` is the mean of ``w_dj`` over
the datasets where ``j`` has a score.

Missing cells, as HELM handles them: a system without a score on a dataset is left out of that
dataset (the others' win rates there are over the ``m`` systems present); a dataset with fewer
than two scores is skipped (a warning names it); a system's mean is over the datasets where it has
a score, and a system with a score on no usable dataset has no win rate (NaN; HELM's ``None``),
which a warning names.

Interval: a percentile bootstrap. Every replicate draws N datasets with replacement (N = the
number of datasets) and recomputes every system's mean win rate over the datasets drawn. Given
per-item scores (a tidy table with an ``item`` column or :class:`~ranger_eval.scores.Scores`),
each drawn copy of a dataset is also resampled: its items are drawn with replacement (the same
items for every system, so the pairing by item is kept), every system's per-dataset mean is
recomputed from the items drawn, and the win rates of that copy come from those means (a
two-stage bootstrap, datasets then items within each dataset; Davison & Hinkley 1997, §3.8).
Seeds of an item are averaged first. With a ``cluster`` column (passages, conversations …;
:func:`~ranger_eval.design.resolve_design`) the second stage draws whole clusters of the
dataset instead of items, the unit of every bootstrap of the scores: a copy's mean of system
``j`` is ``Σ_k w_k S_kj / Σ_k w_k m_kj`` (``w_k`` the draws of cluster k, ``S_kj`` the sum of
its items' scores, ``m_kj`` how many it has; Field & Welsh 2007), and ``resample`` is
``datasets+cluster(NAME)``. Everything below holds with "item" read as "cluster". The interval is the ``(1 − level)/2`` and ``(1 + level)/2``
quantiles (numpy's default linear interpolation) of the replicates; a replicate that drew no
dataset where a system has a score does not count for that system (counted on the result).

Bias of the item bootstrap: a copy's win on a dataset is an indicator of a difference of means,
and resampling the items moves its probability toward a tie (a dataset that A wins with one of
its two items against it is won by A in only 3 of 4 resamples). With few items per dataset and
many datasets the bootstrap distribution can then sit beside the point estimate; such systems
are named by :attr:`WinRate.outside` and a warning, and the reports say it. The interval is then
the win rate expected when the items are drawn again, not an interval around the observed one;
a dataset-level table (per-dataset means) bootstraps the datasets alone.

How the replicates are drawn (linear in the datasets, not in datasets × replicates). A
replicate's numerator and denominator for system ``j`` are sums over the N drawn copies of the
copy's win rate ``w_j`` (0 when missing) and of ``[w_j present]``. The N copies are independent
and each is one draw from the same mixture ``F̄ = (1/N) Σ_d F_d``, where ``F_d`` is the
distribution of the win-rate vector of a copy of dataset ``d`` (a point mass at ``w_d`` without
items; under the item resample, the multinomial distribution of the item counts pushed through
the per-copy means and win rates). So a replicate depends on its draws only through how many
copies fall on each distinct win-rate vector ``o``, and those counts are ``Multinomial(N,
F̄(o))`` — the same distribution as drawing the datasets (and items) one by one. Win rates are
multiples of ``1/(2(m − 1))``, so the distinct vectors are few when the datasets are many (three
for two systems: 0, ½, 1). ``F_d`` is computed exactly by enumerating the ``C(2m − 1, m)``
item-count vectors of a dataset with ``m`` items (probability ``m! / (∏ c_t! · m^m)``) when that
is at most ``n_resamples`` (and 10⁵) vectors; the copies of a dataset with more items are drawn
one by one instead (the number of such copies in a replicate is ``Binomial(N, L/N)`` for ``L``
such datasets, each a uniform pick among them with its own item resample). The cost is
O(N·k²·C + n_resamples · P) for P distinct vectors, plus ``n_resamples · L/N`` item resamples
per large dataset; the per-dataset loop of the direct bootstrap (``n_resamples × N`` draws) is
gone.

Seed semantics: ``numpy.random.default_rng(seed)`` draws, in this order, the ``Binomial(N,
L/N)`` counts (only when some dataset has too many items to enumerate), the multinomial counts
over the distinct vectors (in lexicographic order, missing last, so that the order of the
datasets does not matter; replicates in blocks), then the picks and item resamples of the large
datasets. When the distinct vectors are so many that one
multinomial over them would cost more than one per system over its distinct win rates (many
systems with scattered missing cells), each system's counts come from its own multinomial over
its marginal distribution: every system's interval has the same distribution as before; only
the dependence between the replicates of different systems, which no reported number uses, is
dropped. The replicates differ from those of a per-dataset draw with the same seed (same
distribution, different stream).
"""
from __future__ import annotations

import itertools
import math
import warnings
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

import numpy as np
import pandas as pd

from .._frames import as_frame, float_values, id_strings
from ..design import refuse_prompts, resolve_design
from ..errors import AggregateError, renamed_keywords
from ..scores import CLUSTER, CLUSTER_NAME, Scores
from ..settings import WinRateSettings, resolve_settings
from ..signature import Signature, make_signature

__all__ = ["WinRate", "win_rate"]

#: at most about this many numbers are held at once by a block of the bootstrap
_BLOCK_CELLS = 4_000_000
#: largest number of item-count vectors enumerated for one dataset (module docstring)
_MAX_ENUMERATED = 100_000
#: a multinomial over the joint distinct win-rate vectors is always drawn up to this many
#: binomials (replicates × vectors); above, only when it is cheaper than one per system
_JOINT_BUDGET = 2_000_000


@dataclass(frozen=True)
class WinRate:
    """Mean win rates of systems over datasets (HELM), with bootstrap intervals.

    Attributes
    ----------
    win_rate
        Mean win rate per system, best first (NaN for a system with no usable dataset, last).
    ci_low, ci_high
        Percentile-bootstrap interval at ``level`` (same index).
    n_datasets
        Datasets that count for each system (it has a score there and the dataset has ≥ 2).
    per_dataset
        Win rate of every system (columns, best first) on every dataset (rows); NaN where the
        system has no score or the dataset was skipped.
    skipped
        Datasets with fewer than two scores (left out, as HELM does).
    n_missing
        Missing (dataset, system) cells of the table.
    resample
        ``"datasets"``, ``"datasets+items"`` (per-item scores given) or
        ``"datasets+cluster(NAME)"`` (per-item scores with a cluster column: the design's unit,
        :mod:`ranger_eval.design`; whole clusters drawn within each drawn dataset).
    n_invalid_replicates
        Per system, bootstrap replicates that drew no dataset where it has a score (left out of
        its interval).
    """

    win_rate: pd.Series
    ci_low: pd.Series
    ci_high: pd.Series
    n_datasets: pd.Series
    per_dataset: pd.DataFrame
    skipped: tuple[str, ...]
    n_missing: int
    higher_is_better: bool
    level: float
    n_resamples: int
    seed: int | None
    resample: str
    n_invalid_replicates: pd.Series
    signature: Signature
    #: the bootstrap replicates of the mean win rates (``n_resamples × systems``, columns in
    #: the order of ``win_rate``; NaN where a replicate drew no dataset of the system)
    bootstrap: np.ndarray = field(default_factory=lambda: np.zeros((0, 0)), repr=False,
                                  compare=False)
    #: the settings object of the call that made this result (:func:`win_rate`)
    settings: WinRateSettings | None = field(default=None, compare=False, repr=False)

    def to_frame(self) -> pd.DataFrame:
        """One row per system, best first: ``system, win_rate, ci_low, ci_high, n_datasets``."""
        return pd.DataFrame({
            "system": pd.Series(list(self.win_rate.index), dtype=object),
            "win_rate": self.win_rate.to_numpy(dtype=float),
            "ci_low": self.ci_low.to_numpy(dtype=float),
            "ci_high": self.ci_high.to_numpy(dtype=float),
            "n_datasets": self.n_datasets.to_numpy(dtype=np.int64),
        })

    @property
    def outside(self) -> tuple[str, ...]:
        """Systems whose win rate lies outside its own bootstrap interval (module docstring,
        "Bias of the item bootstrap")."""
        w = self.win_rate.to_numpy(dtype=float)
        lo = self.ci_low.to_numpy(dtype=float)
        hi = self.ci_high.to_numpy(dtype=float)
        with np.errstate(invalid="ignore"):
            out = (w < lo) | (w > hi)
        return tuple(str(s) for s, o in zip(self.win_rate.index, out, strict=True) if o)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready (NaN as None): per system, best first, the win rate, interval, datasets
        counted and replicates left out; the settings; the skipped datasets (their number and
        the first 100); the signature."""
        def num(v: Any) -> float | None:
            return float(v) if np.isfinite(v) else None

        return {
            "systems": [{
                "system": str(s), "win_rate": num(w), "ci_low": num(lo), "ci_high": num(hi),
                "n_datasets": int(n), "n_invalid_replicates": int(bad),
            } for s, w, lo, hi, n, bad in zip(
                self.win_rate.index, self.win_rate, self.ci_low, self.ci_high,
                self.n_datasets, self.n_invalid_replicates, strict=True)],
            "n_datasets": int(len(self.per_dataset)),
            "higher_is_better": self.higher_is_better,
            "level": self.level,
            "n_resamples": self.n_resamples,
            "seed": self.seed,
            "resample": self.resample,
            "n_missing": self.n_missing,
            "n_skipped": len(self.skipped),
            "skipped": list(self.skipped[:100]),
            "outside": list(self.outside),
            "signature": str(self.signature),
        }


# ----------------------------------------------------------------------------- kernel
def dataset_win_rates(values: np.ndarray, *, higher_is_better: bool = True) -> np.ndarray:
    """Win rates ``w_dj`` (module docstring) of the rows of ``values`` (``… × k``, NaN = missing).

    NaN where the system has no score or the row has fewer than two scores. The counts of wins
    and half-ties are exact half-integers, divided once by ``m − 1`` as HELM does.
    """
    v = np.asarray(values, dtype=float)
    present = np.isfinite(v)
    filled = np.where(present, v, 0.0)
    a = filled[..., :, None]  # the system j
    b = filled[..., None, :]  # the others i
    both = present[..., :, None] & present[..., None, :]
    better = (a > b) if higher_is_better else (a < b)
    wins = (better & both).sum(axis=-1) + 0.5 * ((a == b) & both).sum(axis=-1) - 0.5
    m = present.sum(axis=-1, keepdims=True).astype(float)
    with np.errstate(invalid="ignore", divide="ignore"):
        out = wins / (m - 1.0)
    return np.where(present & (m >= 2), out, np.nan)


def _twice_wins(v: np.ndarray, hib: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """For values with the systems on axis 0 (``k × …``, NaN = missing): twice the wins of
    every system, ``2·#better + #tied`` among the others present (whole numbers, int16), whether
    it has a win rate (present, and ``m ≥ 2`` systems present) and ``m``. One pass per pair of
    systems over all rows (the broadcast kernel would hold ``k × k`` comparisons per row)."""
    k = v.shape[0]
    twice = np.zeros(v.shape, dtype=np.int16)
    for i in range(k):
        for j in range(i + 1, k):
            tie = v[i] == v[j]  # False where either is missing (NaN)
            up = v[i] > v[j]
            down = v[i] < v[j]
            if not hib:
                up, down = down, up
            twice[i] += up
            twice[i] += up
            twice[i] += tie
            twice[j] += down
            twice[j] += down
            twice[j] += tie
    present = np.isfinite(v)
    m = present.sum(axis=0)
    return twice, present & (m >= 2), m


def _win_rates_rows(values: np.ndarray, hib: bool) -> np.ndarray:
    """:func:`dataset_win_rates` of ``… × k`` values, the same numbers: twice the wins (an exact
    integer) over ``2(m − 1)`` is the same correctly rounded quotient as ``wins / (m − 1)``.
    Beyond 64 systems the broadcast kernel, in blocks of rows bounding its ``k × k``
    comparisons."""
    k = values.shape[-1]
    flat = values.reshape(-1, k)
    if k > 64:
        block = max(1, _BLOCK_CELLS // (k * k))
        out = np.empty(flat.shape)
        for start in range(0, flat.shape[0], block):
            out[start:start + block] = dataset_win_rates(flat[start:start + block],
                                                         higher_is_better=hib)
        return out.reshape(values.shape)
    twice, usable, m = _twice_wins(np.ascontiguousarray(flat.T), hib)
    with np.errstate(invalid="ignore", divide="ignore"):
        out = np.where(usable, twice / (2.0 * (m - 1.0)), np.nan)
    return np.ascontiguousarray(out.T).reshape(values.shape)


def _code_base(k: int) -> int | None:
    """Base of the integer code of a win-rate vector of ``k`` systems (a digit per system:
    0 = missing, else 1 + twice its wins, below ``2k``); None when ``(2k)^k`` overflows."""
    return 2 * k if (2 * k) ** k < 2**62 else None


def _tally_codes(code: np.ndarray, weights: np.ndarray, k: int
                 ) -> tuple[np.ndarray, np.ndarray]:
    """Distinct codes (:func:`_code_base`) read back as win-rate vectors, with the sum of
    ``weights`` over each: ``bincount`` over a small code space, else a sorted hash."""
    base = 2 * k
    if base ** k <= 1 << 22:
        seen = np.bincount(code, minlength=base ** k)
        uniq = np.flatnonzero(seen)
        mass = np.bincount(code, weights=weights, minlength=base ** k)[uniq]
    else:
        ids, found = pd.factorize(code, sort=True)
        uniq = np.asarray(found, dtype=np.int64)
        mass = np.bincount(np.asarray(ids, dtype=np.int64), weights=weights,
                           minlength=uniq.size)
    digits = (uniq[:, None] // (base ** np.arange(k, dtype=np.int64))) % base
    here = digits > 0
    mu = here.sum(axis=1, keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        vec = np.where(here, (digits - 1.0) / (2.0 * (mu - 1.0)), np.nan)
    return vec, mass


def _codes(twice: np.ndarray, usable: np.ndarray, base: int) -> np.ndarray:
    """The integer code of every win-rate vector (systems on axis 0 of ``twice``)."""
    code = np.zeros(twice.shape[1:], dtype=np.int64)
    for j in range(twice.shape[0] - 1, -1, -1):
        code *= base
        code += np.where(usable[j], twice[j].astype(np.int64) + 1, 0)
    return code


def _distinct_wins(rows: np.ndarray, weights: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """:func:`_distinct` of win-rate rows (``R × k``, NaN = missing), by their integer codes:
    twice the wins is ``2(m − 1)·w_j`` rounded (exact), read back into the same floats."""
    k = rows.shape[1]
    base = _code_base(k)
    if base is None:
        return _distinct(rows, weights)
    ok = np.isfinite(rows)
    m = ok.sum(axis=1, keepdims=True)
    twice = np.rint(np.where(ok, rows, 0.0) * (2.0 * (m - 1.0))).astype(np.int64)
    return _tally_codes(_codes(twice.T, ok.T, base), weights, k)


@dataclass(frozen=True)
class _Items:
    """The resampling units of every dataset: per-item scores ``x`` (items × systems, NaN = no
    score), the rows of dataset ``d`` being ``x[start[d]:start[d + 1]]`` (every dataset has at
    least one row). With clusters (:mod:`ranger_eval.design`) a row is a whole cluster: ``x``
    holds its sums over its items and ``counts`` how many of its items each system has a score
    on, so a resample's mean is ``Σ w_k S_k / Σ w_k m_k`` (the cluster bootstrap's ratio)."""

    x: np.ndarray
    start: np.ndarray
    counts: np.ndarray | None = None

    @property
    def n_items(self) -> np.ndarray:
        """Units (items, or clusters) per dataset."""
        return np.diff(self.start)

    def sums_counts(self, rows: np.ndarray | slice) -> tuple[np.ndarray, np.ndarray]:
        """The units' score sums (0 where missing) and item counts of ``rows``."""
        x = self.x[rows]
        if self.counts is None:
            ok = np.isfinite(x)
            return np.where(ok, x, 0.0), ok.astype(float)
        return x, self.counts[rows]


# ----------------------------------------------------------------------------- input
def _direction(higher_is_better: object) -> bool:
    if not isinstance(higher_is_better, (bool, np.bool_)):
        raise AggregateError(
            f"win_rate: higher_is_better must be True or False; got {higher_is_better!r}")
    return bool(higher_is_better)


def _wide(table: pd.DataFrame) -> pd.DataFrame:
    df = table.copy()
    df.columns = [str(c) for c in df.columns]
    # dataset names as strings in one vectorised step (a million Arrow strings one by one: 6 s)
    df.index = pd.Index(df.index.astype(str), dtype=object) \
        if not pd.api.types.is_string_dtype(df.index.dtype) else df.index
    for axis, names in (("system (column)", df.columns), ("dataset (row)", df.index)):
        dup = pd.Index(names)[pd.Index(names).duplicated()].unique()
        if len(dup):
            raise AggregateError(
                f"win_rate: duplicate {axis} name(s) in table: {', '.join(map(repr, dup))}")
    cells = {}
    for col in df.columns:
        if pd.api.types.is_bool_dtype(df[col].dtype):
            raise AggregateError(f"win_rate: system {col!r} has non-numeric scores (dtype bool)")
        values, bad = float_values(df[col])
        if bad is not None and bad.problem != "missing value":
            raise AggregateError(
                f"win_rate: system {col!r} has a non-numeric score: {bad.problem} {bad.shown} "
                f"on dataset {df.index[bad.first]!r}{bad.more()}")
        inf = np.isinf(values)
        if inf.any():
            r = int(np.flatnonzero(inf)[0])
            raise AggregateError(
                f"win_rate: system {col!r} has an infinite score ({float(values[r])!r}) on dataset "
                f"{df.index[r]!r}; leave a missing cell empty (NaN)")
        cells[col] = values
    return pd.DataFrame(cells, index=df.index, columns=df.columns)


def _tidy(df: pd.DataFrame, metric: str | None) -> pd.DataFrame:
    df = df.copy()
    df.columns = [str(c) for c in df.columns]
    for col in ("dataset", "system", "metric", "item"):
        if col not in df.columns:
            continue
        ids, bad = id_strings(df[col])
        if bad is not None:
            raise AggregateError(f"win_rate: column {col!r} of the tidy table: "
                                 f"{bad.describe()}{bad.more()}")
        df[col] = ids
    values, bad_v = float_values(df["value"])
    if bad_v is not None or not np.isfinite(values).all():
        row = bad_v.first if bad_v is not None else int(np.flatnonzero(~np.isfinite(values))[0])
        raise AggregateError(
            f"win_rate: non-numeric, missing or infinite value at row {row} (dataset "
            f"{df['dataset'].iloc[row]!r}, system {df['system'].iloc[row]!r}): "
            f"{df['value'].iloc[row]!r}; leave the row out instead")
    df["value"] = values
    if "metric" in df.columns:
        if metric is not None:
            known = list(pd.unique(df["metric"]))
            if str(metric) not in known:
                raise AggregateError(f"win_rate: unknown metric {metric!r}; the table has: "
                                     f"{', '.join(map(repr, known))}")
            df = df[df["metric"] == str(metric)]
        per = df.groupby("dataset", sort=False)["metric"].unique()
        several = per[per.map(len) > 1]
        if len(several):
            raise AggregateError(
                f"win_rate: dataset {several.index[0]!r} has several metrics "
                f"({', '.join(map(repr, several.iloc[0]))}); select one with "
                f"metric={several.iloc[0][0]!r}")
    elif metric is not None:
        raise AggregateError(f"win_rate: metric={metric!r} given but the table has no 'metric' "
                             "column")
    return df


# ----------------------------------------------------------------------------- main
#: the defaults of win_rate's keywords: those of its settings object (one place)
_DEFAULT = WinRateSettings()


@renamed_keywords(n_bootstrap="n_resamples")
def win_rate(
    table_or_scores: pd.DataFrame | Scores,
    *,
    higher_is_better: bool = _DEFAULT.higher_is_better,
    level: float = _DEFAULT.level,
    n_resamples: int = _DEFAULT.n_resamples,
    seed: int | None = _DEFAULT.seed,
    metric: str | None = None,
    settings: WinRateSettings | None = None,
) -> WinRate:
    """HELM's mean win rate of every system, with a bootstrap interval (module docstring).

    Parameters
    ----------
    table_or_scores
        A wide table (rows = datasets, columns = systems; NaN = missing), a tidy table with
        columns ``dataset, system, value`` [``metric``, ``item``, ``seed``] or
        :class:`~ranger_eval.scores.Scores`. Tidy rows are averaged per (dataset, system) (per
        item first when there is an ``item`` column, which turns on the item bootstrap).
    higher_is_better
        Whether the larger score wins.
    level
        Level of the percentile-bootstrap interval, in (0, 1).
    n_resamples
        Bootstrap replicates (≥ 1; 0 skips the interval: NaN bounds; at most 10^7).
    seed
        Seed of numpy's ``default_rng`` (None: fresh entropy).
    metric
        For tidy input with several metrics per dataset: the one to use.
    settings
        A :class:`~ranger_eval.settings.WinRateSettings` instead of ``higher_is_better``,
        ``level``, ``n_resamples`` and ``seed`` (a keyword other than its default next to it is
        a :class:`~ranger_eval.errors.SettingsError` naming the clash); the result carries the
        settings object of the call (``.settings``).

    Equal to HELM's ``compute_aggregate_row_win_rates(table, "mean")`` with datasets as HELM's
    columns and systems as its rows (tests/oracles/win_rate_oracle.py).

    Returns
    -------
    WinRate
        ``win_rate``, ``ci_low``, ``ci_high`` and ``n_datasets`` (Series by system), the
        ``per_dataset`` win rates, ``skipped`` datasets, ``signature`` and ``settings``.

    Raises
    ------
    AggregateError
        Bad input (non-numeric scores, a bad level or resample count, an unknown metric).

    References
    ----------
    Liang, P. et al. (2022), "Holistic Evaluation of Language Models" (HELM), §4, and HELM's
    ``compute_aggregate_row_win_rates``. The win rate on dataset d:
    w_dj = (#{i ≠ j: s_dj better than s_di} + ½ #{i ≠ j: s_di = s_dj}) / (m − 1).

    Examples
    --------
    >>> import pandas as pd
    >>> import ranger_eval as rg
    >>> table = pd.DataFrame({"A": [.81, .72, .65, .90, .77, .70],
    ...                       "B": [.79, .70, .66, .85, .74, .69],
    ...                       "C": [.70, .65, .60, .80, .70, .61]}, index=list("pqrstu"))
    >>> w = rg.win_rate(table, n_resamples=200)
    >>> w.win_rate.round(4).to_dict()
    {'A': 0.9167, 'B': 0.5833, 'C': 0.0}
    >>> w.ci_low.to_dict(), w.ci_high.to_dict()
    ({'A': 0.75, 'B': 0.5, 'C': 0.0}, {'A': 1.0, 'B': 0.75, 'C': 0.0})
    """
    hib = _direction(higher_is_better)
    # one check, the settings': SettingsError (an AggregateError) naming the key and value
    settings = resolve_settings(WinRateSettings, {
        "higher_is_better": hib, "level": level, "n_resamples": n_resamples, "seed": seed,
    }, settings, where="win_rate")
    result = _win_rate_settled(table_or_scores, metric, settings)
    object.__setattr__(result, "settings", settings)  # the result's one settings record
    return result


def _win_rate_settled(table_or_scores: pd.DataFrame | Scores, metric: str | None,
                      settings: WinRateSettings) -> WinRate:
    """:func:`win_rate`'s work, from its one checked settings object."""
    hib, level, n_resamples, seed = (settings.higher_is_better, settings.level,
                                     settings.n_resamples, settings.seed)

    items: _Items | None = None
    unit = "items"  # the unit of the item stage: items, or cluster(NAME) (ranger_eval.design)
    if not isinstance(table_or_scores, pd.DataFrame) \
            and isinstance(getattr(table_or_scores, "frame", None), pd.DataFrame):
        values, datasets, systems, items, unit = _scores_cells(table_or_scores, metric)
    else:
        df = as_frame(table_or_scores, what="win_rate (a wide table of datasets × systems, a "
                      "tidy table or Scores)", error=AggregateError)
        if {"dataset", "system", "value"} <= set(map(str, df.columns)):
            tidy = _tidy(df, metric)
            has_items = "item" in tidy.columns
            if has_items and "prompt" in tidy.columns:  # the Scores' refusal, same words
                refuse_prompts(Scores(tidy), where="win_rate", error=AggregateError,
                               why=_PROMPT_WHY)
            units = _tidy_units(tidy) if has_items else None
            if CLUSTER in tidy.columns and not has_items:
                raise AggregateError("win_rate: the tidy table has a 'cluster' column but no "
                                     "'item' column; clusters group items (give per-item "
                                     "scores, or leave the cluster column out)")
            if units is not None:
                name = df.attrs.get(CLUSTER_NAME)
                unit = f"cluster({name if isinstance(name, str) and name else CLUSTER})"
            values, datasets, systems, items = _cells(
                tidy["dataset"], tidy["system"], tidy["item"] if has_items
                else None, tidy["value"].to_numpy(dtype=float), units=units)
        else:
            if metric is not None:
                raise AggregateError(f"win_rate: metric={metric!r} only applies to tidy tables; "
                                     "this table is wide (rows = datasets, columns = systems)")
            wide = _wide(df)
            # systems in the order of their names (the bootstrap's draws are laid out by
            # system), so that the order of the columns changes nothing
            wide = wide[sorted(wide.columns, key=str)]
            values = wide.to_numpy(dtype=float)
            datasets = wide.index
            systems = [str(c) for c in wide.columns]
    n, k = values.shape
    if n < 1 or k < 2:
        raise AggregateError(f"win_rate needs at least 1 dataset and 2 systems; got {n} "
                             f"dataset(s) and {k} system(s): {systems}")
    present = np.isfinite(values)
    n_missing = int((~present).sum())
    usable = present.sum(axis=1) >= 2
    skipped = tuple(str(datasets[i]) for i in np.flatnonzero(~usable).tolist())
    if not usable.any():
        raise AggregateError(
            f"win_rate: no dataset has scores of two systems ({n_missing} of {n * k} cells are "
            "missing); a win rate compares systems on the same dataset")
    if skipped:
        warnings.warn(f"win_rate: {len(skipped)} dataset(s) with fewer than two scores skipped "
                      f"(as HELM): {', '.join(map(repr, skipped[:10]))}"
                      f"{' …' if len(skipped) > 10 else ''}", stacklevel=2)
    per = _win_rates_rows(values, hib)
    counted = np.isfinite(per)
    n_ds = counted.sum(axis=0)
    with np.errstate(invalid="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        point = np.nanmean(per, axis=0)
    lost = [s for s, c in zip(systems, n_ds, strict=True) if c == 0]
    if lost:
        warnings.warn(f"win_rate: {len(lost)} system(s) have a score on no dataset with another "
                      f"system's score and get no win rate (NaN, HELM's None): "
                      f"{', '.join(map(repr, lost))}", stacklevel=2)

    low = np.full(k, np.nan)
    high = np.full(k, np.nan)
    invalid = np.zeros(k, dtype=np.int64)
    reps = np.zeros((0, k))
    if n_resamples:
        reps = _bootstrap(per, items, n_resamples, seed, hib)
        ok = np.isfinite(reps)
        invalid = (~ok).sum(axis=0)
        alpha = 1.0 - level
        for j in range(k):
            col = reps[ok[:, j], j]
            if col.size:
                low[j], high[j] = np.quantile(col, [alpha / 2.0, 1.0 - alpha / 2.0])

    with np.errstate(invalid="ignore"):
        off = np.isfinite(point) & ((point < low) | (point > high))
    unit_name = "items" if unit == "items" else f"clusters ({unit[len('cluster('):-1]})"
    if off.any() and items is not None:
        warnings.warn(
            f"win_rate: the win rate of {', '.join(repr(systems[j]) for j in np.flatnonzero(off))}"
            f" lies outside its bootstrap interval: resampling the {unit_name} moves each "
            f"dataset's win toward a tie (few {unit_name} per dataset); the interval is the win "
            f"rate expected when the {unit_name} are drawn again (bootstrap the datasets alone "
            "with a dataset-level table)",
            stacklevel=2)
    key = np.where(np.isfinite(point), -point, np.inf)
    order = np.argsort(key, kind="stable")
    names = pd.Index([systems[j] for j in order], dtype=object)
    resample = f"datasets+{unit}" if items is not None else "datasets"
    signature = make_signature("win_rate", {
        "resample": resample,
        "level": level,
        "n_resamples": n_resamples,
        "seed": seed,
    })
    return WinRate(
        win_rate=pd.Series(point[order], index=names, name="win_rate"),
        ci_low=pd.Series(low[order], index=names, name="ci_low"),
        ci_high=pd.Series(high[order], index=names, name="ci_high"),
        n_datasets=pd.Series(n_ds[order].astype(np.int64), index=names, name="n_datasets"),
        per_dataset=pd.DataFrame(per[:, order], index=datasets,
                                 columns=names),
        skipped=skipped,
        n_missing=n_missing,
        higher_is_better=hib,
        level=level,
        n_resamples=n_resamples,
        seed=None if seed is None else int(seed),
        resample=resample,
        n_invalid_replicates=pd.Series(invalid[order].astype(np.int64), index=names,
                                       name="n_invalid_replicates"),
        signature=signature,
        bootstrap=reps[:, order],
    )


# ----------------------------------------------------------------------------- cells
#: why the item stage of the win rates' bootstrap cannot honour a ``prompt`` column
_PROMPT_WHY = ("the second stage of the bootstrap draws items (each its mean over the prompts) "
               "as independent; win rates of the per-dataset means (a datasets × systems table) "
               "resample datasets only")


def _scores_cells(scores: Any, metric: str | None
                  ) -> tuple[np.ndarray, pd.Index, list[str], _Items | None, str]:
    """:func:`_cells` of :class:`~ranger_eval.scores.Scores` (already validated): its cached
    codes when it has one metric (the rank pipeline's case), else its tidy frame. The unit of
    the item bootstrap is the design's (:func:`~ranger_eval.design.resolve_design`): whole
    clusters with a ``cluster`` column, else items; returned as its label (``items`` or
    ``cluster(NAME)``)."""
    refuse_prompts(scores, where="win_rate", error=AggregateError, why=_PROMPT_WHY)
    design = resolve_design(scores)
    label = design.label if design.clustered else "items"
    metrics = tuple(scores.metrics)
    if len(metrics) == 1 and (metric is None or str(metric) == metrics[0]):
        table = scores.table
        return (*_cells(table["dataset"], table["system"], table["item"],
                        table["value"].to_numpy(dtype=float),
                        codes={col: scores._factorized(col)
                               for col in ("dataset", "system", "item")},
                        unique=not scores.has_seeds,
                        units=design.row_units() if design.clustered else None), label)
    tidy = _tidy(scores.frame, metric)
    return (*_cells(tidy["dataset"], tidy["system"], tidy["item"],
                    tidy["value"].to_numpy(dtype=float),
                    units=_tidy_units(tidy) if design.clustered else None), label)


def _tidy_units(tidy: pd.DataFrame) -> np.ndarray | None:
    """Per row of a tidy table with a ``cluster`` column: an int64 code of its (dataset,
    cluster id), the resampling unit (clusters nested within datasets); None without one."""
    if CLUSTER not in tidy.columns:
        return None
    ids, bad = id_strings(tidy[CLUSTER])
    if bad is not None:
        raise AggregateError(f"win_rate: column 'cluster' of the tidy table: "
                             f"{bad.describe()}{bad.more()}")
    dc, _ = pd.factorize(tidy["dataset"], sort=False)
    cc, cu = pd.factorize(ids, sort=False)
    joint = dc.astype(np.int64) * max(len(cu), 1) + cc
    codes, _ = pd.factorize(joint, sort=False)
    return np.asarray(codes, dtype=np.int64)


def _cells(dataset: pd.Series, system: pd.Series, item: pd.Series | None, value: np.ndarray,
           codes: dict[str, tuple[np.ndarray, pd.Index]] | None = None, unique: bool = False,
           units: np.ndarray | None = None,
           ) -> tuple[np.ndarray, pd.Index, list[str], _Items | None]:
    """Datasets × systems means of tidy rows (datasets, systems and items in the order of
    their names, whatever the order of the rows), and the per-item scores when there is an
    ``item`` column.

    Without items, a cell is the mean of its rows (seeds). With items, every (dataset, item,
    system) is first the mean of its rows (seeds; ``unique``: one row each, as in Scores without
    seeds), then a cell is the mean over the items where the system has a score. One pass of
    integer codes and ``bincount`` (no per-dataset loop). With ``units`` (per row, an int64 code
    of its (dataset, cluster)), the resampling units returned are the clusters: per cluster
    and system the sum over its items and their number (:class:`_Items`); an item in two
    clusters is an error.
    """
    def factorize(col: str, s: pd.Series) -> tuple[np.ndarray, pd.Index]:
        c, u = codes[col] if codes is not None else pd.factorize(s, sort=False)
        names = pd.Index(u)
        if not (pd.api.types.is_string_dtype(names.dtype) or names.dtype == object):
            names = names.astype(str)
        # codes in the order of the names, not of first appearance: the bootstrap's draws are
        # laid out by dataset, item and system, and must not depend on the rows' order
        order = np.argsort(np.asarray(names.astype(str), dtype=object), kind="stable")
        rank = np.empty(order.size, dtype=np.int64)
        rank[order] = np.arange(order.size)
        return rank[np.asarray(c, dtype=np.int64)], names[order]

    ds, datasets = factorize("dataset", dataset)
    sy, system_names = factorize("system", system)
    systems = [str(s) for s in system_names.tolist()]
    n, k = len(datasets), len(systems)
    if item is None:
        cell = ds * k + sy
        tot = np.bincount(cell, weights=value, minlength=n * k)
        cnt = np.bincount(cell, minlength=n * k)
        with np.errstate(invalid="ignore", divide="ignore"):
            wide = np.where(cnt > 0, tot / np.maximum(cnt, 1), np.nan).reshape(n, k)
        return wide, datasets, systems, None
    it, item_names = factorize("item", item)
    # (dataset, item) pairs numbered in (dataset, item code) order, so already grouped by
    # dataset: a dense table when the key range is small, else a sorted hash
    key = ds * max(len(item_names), 1) + it
    span = n * max(len(item_names), 1)
    if span <= 8 * key.size + 1024:
        seen = np.zeros(span, dtype=bool)
        seen[key] = True
        number = np.cumsum(seen) - 1
        pair = number[key]
        n_pair = int(number[-1]) + 1
    else:
        found, uniq = pd.factorize(key, sort=True)
        pair = np.asarray(found, dtype=np.int64)
        n_pair = len(uniq)
    pair_ds = np.empty(n_pair, dtype=np.int64)
    pair_ds[pair] = ds
    cell = pair * k + sy
    if unique:
        flat = np.full(n_pair * k, np.nan)
        flat[cell] = value
        x = flat.reshape(n_pair, k)
    else:
        tot = np.bincount(cell, weights=value, minlength=n_pair * k)
        cnt = np.bincount(cell, minlength=n_pair * k)
        with np.errstate(invalid="ignore", divide="ignore"):
            x = np.where(cnt > 0, tot / np.maximum(cnt, 1), np.nan).reshape(n_pair, k)
    m = np.bincount(pair_ds, minlength=n)
    start = np.concatenate([[0], np.cumsum(m)])
    ok = np.isfinite(x)
    if ok.all():  # every cell of every item: plain sums over the items
        if (m == m[0]).all():
            sums = x.reshape(n, int(m[0]), k).sum(axis=1)
        else:
            sums = np.add.reduceat(x, start[:-1], axis=0)
        wide = sums / m[:, None]
    else:
        sums = np.add.reduceat(np.where(ok, x, 0.0), start[:-1], axis=0)
        counted = np.add.reduceat(ok.astype(np.int64), start[:-1], axis=0)
        with np.errstate(invalid="ignore", divide="ignore"):
            wide = np.where(counted > 0, sums / np.maximum(counted, 1), np.nan)
    if units is None:
        return wide, datasets, systems, _Items(x, start)
    return wide, datasets, systems, _cluster_items(x, pair, pair_ds, n, units, datasets, item)


def _cluster_items(x: np.ndarray, pair: np.ndarray, pair_ds: np.ndarray, n: int,
                   units: np.ndarray, datasets: pd.Index, item: pd.Series) -> _Items:
    """The clusters of every dataset as resampling units (:class:`_Items` with counts): the
    items' (``x``, rows = (dataset, item) pairs) sums and counts per cluster, clusters grouped
    by dataset."""
    u = np.asarray(units, dtype=np.int64)
    n_pair = x.shape[0]
    lo = np.full(n_pair, np.iinfo(np.int64).max)
    hi = np.full(n_pair, -1, dtype=np.int64)
    np.minimum.at(lo, pair, u)
    np.maximum.at(hi, pair, u)
    if (lo != hi).any():
        r = int(np.flatnonzero(pair == int(np.flatnonzero(lo != hi)[0]))[0])
        raise AggregateError(f"win_rate: item {item.iloc[r]!r} of dataset "
                             f"{datasets[pair_ds[pair[r]]]!r} is in two clusters; an item "
                             "belongs to one cluster")
    span = int(u.max()) + 1 if u.size else 1
    unit_of, found = pd.factorize(pair_ds * span + hi, sort=True)  # grouped by dataset
    unit_of = np.asarray(unit_of, dtype=np.int64)
    n_units = len(found)
    k = x.shape[1]
    ok = np.isfinite(x)
    sums = np.zeros((n_units, k))
    counts = np.zeros((n_units, k))
    for j in range(k):
        sums[:, j] = np.bincount(unit_of, weights=np.where(ok[:, j], x[:, j], 0.0),
                                 minlength=n_units)
        counts[:, j] = np.bincount(unit_of, weights=ok[:, j].astype(float), minlength=n_units)
    unit_ds = np.asarray(found, dtype=np.int64) // span
    m = np.bincount(unit_ds, minlength=n)
    return _Items(sums, np.concatenate([[0], np.cumsum(m)]), counts)


# ----------------------------------------------------------------------------- bootstrap
def _distinct(rows: np.ndarray, weights: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The distinct rows of ``rows`` (NaN equal to NaN; first-appearance order) and the sum of
    ``weights`` over the copies of each: per-column hash codes combined into one code."""
    code = np.zeros(rows.shape[0], dtype=np.int64)
    span = 1
    for j in range(rows.shape[1]):
        cj, uj = pd.factorize(rows[:, j], sort=False)  # NaN → -1
        width = len(uj) + 1
        if span * width >= 2**62:
            code, uniq = pd.factorize(code, sort=False)
            code = np.asarray(code, dtype=np.int64)
            span = len(uniq)
        code = code * width + (np.asarray(cj, dtype=np.int64) + 1)
        span *= width
    ids, uniq = pd.factorize(code, sort=False)
    ids = np.asarray(ids, dtype=np.int64)
    first = np.empty(len(uniq), dtype=np.int64)
    first[ids[::-1]] = np.arange(ids.size - 1, -1, -1)
    return rows[first], np.bincount(ids, weights=weights, minlength=len(uniq))


@lru_cache(maxsize=32)
def _compositions(m: int) -> tuple[np.ndarray, np.ndarray]:
    """Every item-count vector of a resample of ``m`` items (``C(2m − 1, m)`` rows, as floats)
    and its multinomial coefficient ``m! / ∏ c_t!`` (an exact integer, held as a float: below
    2⁵³ for every enumerated ``m``); the probability is the coefficient over ``m^m``."""
    rows = []
    coefs = []
    top = math.factorial(m)
    for bars in itertools.combinations(range(2 * m - 1), m - 1):
        edges = (-1, *bars, 2 * m - 1)
        c = [edges[t + 1] - edges[t] - 1 for t in range(m)]
        rows.append(c)
        coef = top
        for v in c:
            coef //= math.factorial(v)
        coefs.append(float(coef))
    comps = np.array(rows, dtype=float).reshape(-1, m)
    comps.setflags(write=False)
    weights = np.array(coefs)
    weights.setflags(write=False)
    return comps, weights


def _n_compositions(m: int) -> int:
    return math.comb(2 * m - 1, m)


def _outcome_mixture(per: np.ndarray, items: _Items | None, b: int, hib: bool
                     ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The mixture ``F̄`` of the module docstring, unnormalised: distinct win-rate vectors
    (``P × k``, NaN = missing) with their total probability mass (each enumerated dataset
    contributes mass 1), and the datasets whose copies are drawn one by one (too many items to
    enumerate ``C(2m − 1, m) ≤ min(b, _MAX_ENUMERATED)`` item-count vectors)."""
    n, k = per.shape
    if items is None:
        return (*_sorted(*_distinct_wins(per, np.ones(n))), np.zeros(0, dtype=np.int64))
    m = items.n_items
    # a dataset with fewer than two scores stays so under any item resample: all missing
    usable = np.isfinite(per).sum(axis=1) >= 2
    parts: list[tuple[np.ndarray, np.ndarray]] = []
    if (~usable).any():
        parts.append(_distinct_wins(per[~usable], np.ones(int((~usable).sum()))))
    large: list[np.ndarray] = []
    for mm in np.unique(m[usable]).tolist():
        ds = np.flatnonzero(usable & (m == mm))
        if mm == 1:  # one item: every resample is the dataset itself
            parts.append(_distinct_wins(per[ds], np.ones(ds.size)))
            continue
        if _n_compositions(mm) > min(b, _MAX_ENUMERATED):
            large.append(ds)
            continue
        comps, coefs = _compositions(mm)
        n_c = comps.shape[0]
        base = _code_base(k)
        block = max(1, _BLOCK_CELLS // (n_c * k))
        for s in range(0, ds.size, block):
            d = ds[s:s + block]
            # item t of every dataset in the block as one row (m, k·datasets), so that the sums
            # over every count vector are one product (C, k·datasets)
            at = items.start[d][None, :] + np.arange(mm)[:, None]
            if items.counts is None:
                x = items.x[at]  # (m, datasets, k)
                x = np.ascontiguousarray(x.transpose(0, 2, 1)).reshape(mm, -1)
                ok = np.isfinite(x)
                tot = np.einsum("cm,mr->cr", comps, np.where(ok, x, 0.0) if not ok.all() else x)
                cnt = np.einsum("cm,mr->cr", comps, ok.astype(float)) if not ok.all() else mm
            else:  # clusters: sums and item counts of the drawn clusters
                sx, cx = items.sums_counts(at)
                tot = np.einsum("cm,mr->cr", comps,
                                np.ascontiguousarray(sx.transpose(0, 2, 1)).reshape(mm, -1))
                cnt = np.einsum("cm,mr->cr", comps,
                                np.ascontiguousarray(cx.transpose(0, 2, 1)).reshape(mm, -1))
            with np.errstate(invalid="ignore", divide="ignore"):
                means = (tot / cnt).reshape(n_c, k, d.size)  # 0/0: NaN, no item drawn
            weights = np.broadcast_to(coefs[:, None], (n_c, d.size)).ravel()
            if base is None:
                rows = _win_rates_rows(means.transpose(0, 2, 1).reshape(-1, k), hib)
                vec, whole = _distinct(rows, weights)
            else:
                twice, has, _ = _twice_wins(means.transpose(1, 0, 2), hib)
                vec, whole = _tally_codes(_codes(twice, has, base).ravel(), weights, k)
            # masses summed as exact integers, then over m^m: a dataset whose resamples all
            # give one vector contributes exactly 1, as without items
            parts.append((vec, whole / float(mm) ** mm))
    if parts:
        vec, mass = _distinct_wins(np.concatenate([p[0] for p in parts]),
                                   np.concatenate([p[1] for p in parts]))
    else:
        vec, mass = np.zeros((0, k)), np.zeros(0)
    big = np.concatenate(large) if large else np.zeros(0, dtype=np.int64)
    return (*_sorted(vec, mass), np.sort(big))


def _sorted(vec: np.ndarray, mass: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Distinct vectors in lexicographic order (missing last): the multinomial categories, and
    so the replicates, do not depend on the order of the datasets or on how they were read."""
    keys = np.where(np.isfinite(vec), vec, np.inf)
    order = np.lexsort(keys.T[::-1]) if vec.shape[0] else np.zeros(0, dtype=np.int64)
    return vec[order], mass[order]


def _bootstrap(per: np.ndarray, items: _Items | None, b: int, seed: Any,
               hib: bool) -> np.ndarray:
    """``b × k`` replicates of the mean win rates, by multinomial counts over the distinct
    win-rate vectors of the mixture ``F̄`` (module docstring: same distribution as drawing N
    datasets, and their items, one by one)."""
    rng = np.random.default_rng(seed)
    n, k = per.shape
    vec, mass, large = _outcome_mixture(per, items, b, hib)
    num = np.zeros((b, k))
    den = np.zeros((b, k))
    n_large = (rng.binomial(n, large.size / n, size=b) if large.size
               else np.zeros(b, dtype=np.int64))
    if vec.shape[0]:
        _add_multinomial(rng, n - n_large, vec, mass, num, den)
    if large.size:
        assert items is not None
        _add_large(rng, n_large, large, items, hib, num, den)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(den > 0, num / np.maximum(den, 1e-300), np.nan)


def _add_multinomial(rng: np.random.Generator, draws: np.ndarray, vec: np.ndarray,
                     mass: np.ndarray, num: np.ndarray, den: np.ndarray) -> None:
    """Add ``Multinomial(draws[r], mass / Σ mass)`` counts of the vectors ``vec`` to replicate
    ``r``'s numerators and denominators: jointly, or per system over its marginal distinct
    values when that costs less and the joint draw would exceed ``_JOINT_BUDGET`` binomials."""
    b, k = num.shape
    marginals = [_distinct(vec[:, j:j + 1], mass) for j in range(k)]
    if b * vec.shape[0] <= _JOINT_BUDGET or vec.shape[0] <= sum(v.shape[0] for v, _ in marginals):
        groups = [(vec, mass, slice(None))]
    else:
        groups = [(v, w, slice(j, j + 1)) for j, (v, w) in enumerate(marginals)]
    for v, w, cols in groups:
        p = w / w.sum()
        ok = np.isfinite(v)
        filled = np.where(ok, v, 0.0)
        okf = ok.astype(float)
        block = max(1, _BLOCK_CELLS // v.shape[0])
        for s in range(0, b, block):
            counts = rng.multinomial(draws[s:s + block], p).astype(float)
            num[s:s + block, cols] += counts @ filled
            den[s:s + block, cols] += counts @ okf


def _add_large(rng: np.random.Generator, n_large: np.ndarray, large: np.ndarray,
               items: _Items, hib: bool, num: np.ndarray, den: np.ndarray) -> None:
    """The copies of datasets with too many items to enumerate: replicate ``r`` draws
    ``n_large[r]`` of them uniformly, each with its own item resample (module docstring)."""
    b, k = num.shape
    total = int(n_large.sum())
    if total == 0:
        return
    ds = large[rng.integers(0, large.size, size=total)]
    rep = np.repeat(np.arange(b), n_large)
    m_of = items.n_items[ds]
    for mm in np.unique(m_of).tolist():
        sel = np.flatnonzero(m_of == mm)
        p_items = np.full(mm, 1.0 / mm)
        block = max(1, _BLOCK_CELLS // (mm * k + k * k))
        for s in range(0, sel.size, block):
            r = sel[s:s + block]
            sx, cx = items.sums_counts(items.start[ds[r]][:, None] + np.arange(mm))
            c = rng.multinomial(mm, p_items, size=r.size).astype(float)
            tot = np.einsum("rm,rmk->rk", c, sx)  # (copies, m, k) summed over the units
            cnt = np.einsum("rm,rmk->rk", c, cx)
            with np.errstate(invalid="ignore", divide="ignore"):
                means = tot / cnt  # 0/0: NaN, no item with a score drawn
            w = _win_rates_rows(means, hib)
            wok = np.isfinite(w)
            np.add.at(num, rep[r], np.where(wok, w, 0.0))
            np.add.at(den, rep[r], wok.astype(float))
