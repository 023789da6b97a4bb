"""Agreement coefficients between raters as functions of item weights, and their bootstrap:
the kernels of :func:`ranger_eval.agreement` (long ratings tables) and of the judge–human
agreement that :func:`ranger_eval.describe` reports with a ``human_value`` column.

A ratings table here is already an items × raters matrix of value codes
(:class:`RatingsTable`, built by :func:`ranger_eval.llm.agreement.ratings_table` from a long
table or by :func:`judge_human_table` from a judge's and a human's scores of the same items);
the resampling unit of every item is given (the callers ask the design resolver).

**Krippendorff's α** (Krippendorff 2019, *Content Analysis*, 4th ed., ch. 12; the
``krippendorff`` package). With n_uc the number of ratings of value c on item u and
m_u = Σ_c n_uc, only items with m_u ≥ 2 (pairable) count. The coincidence matrix is
o_ck = Σ_u (n_uc n_uk − [c = k] n_uc)/(m_u − 1), its margins n_c = Σ_u n_uc (pairable
ratings) and n = Σ_c n_c. With δ²_ck the distance of the level of measurement,
α = 1 − (n − 1) Σ_ck o_ck δ²_ck / Σ_ck n_c n_k δ²_ck. Distances: nominal [c ≠ k]; interval
(c − k)²; ratio ((c − k)/(c + k))² (0 when c + k = 0); ordinal (Σ_{g=c..k} n_g − (n_c + n_k)/2)²
over the sorted values. α is undefined when the expected disagreement is 0 (all pairable
ratings equal): an error says so. Computed without the V × V matrix where the distance allows:
nominal Σ o δ² = Σ_u (m_u² − Σ_c n_uc²)/(m_u − 1) and Σ n_c n_k δ² = n² − Σ n_c²; interval
Σ_u 2(m_u s₂ᵤ − s₁ᵤ²)/(m_u − 1) and 2(n S₂ − S₁²) with the per-item sums s₁, s₂ of the values.

**Cohen's κ** (Cohen 1960; weighted: Cohen 1968), exactly two raters, every item rated by both:
with O the L × L confusion matrix of the sorted categories, E = (row sums)(column sums)ᵀ/n and
w_ij = [i ≠ j], |i − j| (linear) or (i − j)² (quadratic) on the categories' ranks,
κ = 1 − Σ w O / Σ w E (``sklearn.metrics.cohen_kappa_score``).

**Fleiss' κ** (Fleiss 1971), the same number r of ratings per item (not necessarily by the same
raters): p_j = Σ_u n_uj/(N r), P_u = (Σ_j n_uj² − r)/(r(r − 1)), P̄ = mean P_u,
P̄_e = Σ_j p_j², κ = (P̄ − P̄_e)/(1 − P̄_e) (``statsmodels.stats.inter_rater.fleiss_kappa``).

**Bootstrap** (percentile interval over items; Hayes & Krippendorff 2007 resample the
coincidences, we resample the units as every other interval of the package does). The
resampling unit comes from the design resolver (:func:`~ranger_eval.resolve_design`): whole
clusters when the table has a ``cluster`` column, else items. Each round's draws become a weight
per item (``numpy.bincount`` of the drawn indices, all rounds at once), and every coefficient
above is a function of weighted sums over items: per-item sufficient statistics (counts per
value, pairable counts, observed disagreements) are multiplied by the B × U weight matrix in
blocks, so no Python loop runs per round. Ordinal α recomputes its distances from each round's
margins (as ``krippendorff.alpha`` on the resampled table would); Cohen's weights keep the
ranks of the full table's categories. Rounds whose coefficient is undefined (no expected
disagreement in the resample) are left out of the interval and counted (``n_undefined``, with a
warning).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ..errors import StatsInputError

__all__ = ["JUDGE_HUMAN_COLUMNS", "AlphaKernel", "CohenKernel", "FleissKernel", "RatingsTable",
           "bootstrap_rounds", "judge_human_agreement", "judge_human_table",
           "percentile_interval"]

#: Largest block of bootstrap weights held at once (rounds × items, or rounds × V²).
_BLOCK_CELLS = 1_000_000
#: Ordinal α with more values than this resamples pairs of ratings, not the V × V coincidences.
_DENSE_VALUES = 64


@dataclass(frozen=True)
class RatingsTable:
    """A long ratings table made into an items × raters matrix (:func:`ratings_table`).

    ``values`` is the items × raters matrix of value codes (−1: no rating), ``domain`` the
    sorted distinct values (a code indexes it), ``items`` and ``raters`` the labels,
    ``units`` the resampling unit of each item (0…n_units − 1), ``unit_label`` the design's
    label (``item`` or ``cluster(NAME)``) and ``columns`` the columns read, by role.
    """

    values: np.ndarray
    domain: np.ndarray
    items: tuple[Any, ...]
    raters: tuple[Any, ...]
    units: np.ndarray
    unit_label: str
    columns: dict[str, str]

    @property
    def numeric(self) -> bool:
        return bool(np.issubdtype(self.domain.dtype, np.number))

    def numbers(self) -> np.ndarray:
        """The matrix of values as floats (NaN: no rating)."""
        out = np.full(self.values.shape, np.nan)
        seen = self.values >= 0
        out[seen] = self.domain.astype(float)[self.values[seen]]
        return out


def _counts(codes: np.ndarray, n_values: int) -> np.ndarray:
    """Items × values counts of the codes (−1 ignored)."""
    n_items = codes.shape[0]
    seen = codes >= 0
    rows = np.broadcast_to(np.arange(n_items)[:, None], codes.shape)[seen]
    flat = np.bincount(rows * n_values + codes[seen], minlength=n_items * n_values)
    return flat.reshape(n_items, n_values).astype(float)


def _ordinal_delta(n: np.ndarray) -> np.ndarray:
    """Ordinal δ² of every value pair from the margins n (… × V) → (… × V × V)."""
    cum = np.cumsum(n, axis=-1)
    lo = np.minimum.outer(np.arange(n.shape[-1]), np.arange(n.shape[-1]))
    hi = np.maximum.outer(np.arange(n.shape[-1]), np.arange(n.shape[-1]))
    between = cum[..., hi] - cum[..., lo] + n[..., lo]
    return (between - (n[..., :, None] + n[..., None, :]) / 2) ** 2


class AlphaKernel:
    """Krippendorff's α as a function of item weights (module docstring)."""

    def __init__(self, table: RatingsTable, scale: str) -> None:
        self.scale = scale
        v = len(table.domain)
        counts = _counts(table.values, v)
        m = counts.sum(axis=1)
        pairable = m >= 2
        counts[~pairable] = 0.0
        m = np.where(pairable, m, 0.0)
        self.n_pairable = int(pairable.sum())
        denom = np.where(pairable, m - 1, 1.0)
        self.counts = counts
        if scale == "nominal":
            self.do = (m ** 2 - (counts ** 2).sum(axis=1)) / denom
        elif scale == "interval":
            if not table.numeric:
                raise StatsInputError("agreement: scale='interval' needs numeric ratings; use "
                                      "scale='nominal' for labels")
            x = table.domain.astype(float)
            s1, s2 = counts @ x, counts @ x ** 2
            self.do = 2 * (m * s2 - s1 ** 2) / denom
            self.moments = np.column_stack([m, s1, s2])
        elif scale == "ratio":
            if not table.numeric:
                raise StatsInputError("agreement: scale='ratio' needs numeric ratings")
            x = table.domain.astype(float)
            self.delta = _ratio_delta(x[:, None], x[None, :])
            self.do = _pair_disagreement(table, pairable, denom, _ratio_delta)
        else:  # ordinal: the distances depend on the margins
            if not table.numeric and table.domain.dtype.kind not in "US":
                raise StatsInputError("agreement: scale='ordinal' needs ordered ratings")
            self.dense = v <= _DENSE_VALUES
            if self.dense:
                coinc = counts[:, :, None] * counts[:, None, :]
                coinc[:, np.arange(v), np.arange(v)] -= counts
                self.coinc = (coinc / denom[:, None, None]).reshape(len(m), v * v)
            else:
                self.pairs = _ordered_pairs(table.values, pairable, denom)

    def __call__(self, w: np.ndarray) -> np.ndarray:
        """α of each row of item weights ``w`` (B × U); NaN where undefined."""
        if self.scale == "interval":
            n, s1, s2 = (w @ self.moments).T
            do = w @ self.do
            de = 2 * (n * s2 - s1 ** 2)
        elif self.scale == "nominal":
            nv = w @ self.counts
            n = nv.sum(axis=1)
            do = w @ self.do
            de = n ** 2 - (nv ** 2).sum(axis=1)
        elif self.scale == "ratio":
            nv = w @ self.counts
            n = nv.sum(axis=1)
            do = w @ self.do
            de = np.einsum("bi,ij,bj->b", nv, self.delta, nv)
        else:
            nv = w @ self.counts
            n = nv.sum(axis=1)
            delta = _ordinal_delta(nv)
            de = np.einsum("bi,bij,bj->b", nv, delta, nv)
            if self.dense:
                v = nv.shape[1]
                do = ((w @ self.coinc).reshape(-1, v, v) * delta).sum(axis=(1, 2))
            else:
                item, c, k, weight = self.pairs
                do = (w[:, item] * weight * delta[:, c, k]).sum(axis=1)
        with np.errstate(invalid="ignore", divide="ignore"):
            alpha = 1 - (n - 1) * do / de
        return np.where(de > _tiny(de), alpha, np.nan)


def _tiny(de: np.ndarray) -> np.ndarray:
    return np.abs(de) * 0 + 1e-12


def _ratio_delta(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    total = a + b
    return np.divide(a - b, total, out=np.zeros(np.broadcast(a, b).shape),
                     where=total != 0) ** 2


def _pair_disagreement(table: RatingsTable, pairable: np.ndarray, denom: np.ndarray,
                       delta: Any) -> np.ndarray:
    """Σ_{ordered pairs of ratings of item u} δ² / (m_u − 1), over pairs of raters."""
    x = table.numbers()
    total = np.zeros(len(x))
    r = x.shape[1]
    for i in range(r):
        for j in range(i + 1, r):
            both = ~np.isnan(x[:, i]) & ~np.isnan(x[:, j])
            d = np.zeros(len(x))
            d[both] = delta(x[both, i], x[both, j])
            total += 2 * d
    return np.where(pairable, total / denom, 0.0)


def _ordered_pairs(codes: np.ndarray, pairable: np.ndarray,
                   denom: np.ndarray) -> tuple[np.ndarray, ...]:
    """(item, c, k, 1/(m_u − 1)) of every ordered pair of ratings of a pairable item."""
    parts: list[tuple[np.ndarray, ...]] = []
    r = codes.shape[1]
    for i in range(r):
        for j in range(r):
            if i != j:
                ok = pairable & (codes[:, i] >= 0) & (codes[:, j] >= 0)
                idx = np.flatnonzero(ok)
                parts.append((idx, codes[idx, i], codes[idx, j], 1.0 / denom[idx]))
    return tuple(np.concatenate(p) for p in zip(*parts, strict=True))


class CohenKernel:
    """Cohen's κ of two raters as a function of item weights."""

    def __init__(self, table: RatingsTable, weights: str | None) -> None:
        if len(table.raters) != 2:
            raise StatsInputError(
                f"agreement: Cohen's kappa compares exactly two raters; the table has "
                f"{len(table.raters)}: {', '.join(map(repr, table.raters[:10]))} (select two, or "
                "use method='fleiss' or 'krippendorff')")
        rated = table.values >= 0
        if not rated.all():
            u, r = np.argwhere(~rated)[0]
            raise StatsInputError(
                f"agreement: Cohen's kappa needs both ratings of every item; item "
                f"{table.items[u]!r} has no rating by {table.raters[r]!r} (drop the item, or use "
                "method='krippendorff', which allows missing ratings)")
        # sklearn's categories: the sorted values both raters used
        used = np.unique(table.values)
        rank = np.full(len(table.domain), -1)
        rank[used] = np.arange(len(used))
        size = len(used)
        a, b = rank[table.values[:, 0]], rank[table.values[:, 1]]
        self.size = size
        self.cells = np.zeros((len(a), size * size))
        self.cells[np.arange(len(a)), a * size + b] = 1.0
        grid = np.arange(size)
        if weights is None:
            self.w = (grid[:, None] != grid[None, :]).astype(float)
        elif weights == "linear":
            self.w = np.abs(grid[:, None] - grid[None, :]).astype(float)
        else:
            self.w = ((grid[:, None] - grid[None, :]) ** 2).astype(float)
        self.n_pairable = len(a)

    def __call__(self, w: np.ndarray) -> np.ndarray:
        o = (w @ self.cells).reshape(-1, self.size, self.size)
        n = o.sum(axis=(1, 2))
        e = o.sum(axis=2)[:, :, None] * o.sum(axis=1)[:, None, :] / n[:, None, None]
        num = (self.w * o).sum(axis=(1, 2))
        den = (self.w * e).sum(axis=(1, 2))
        with np.errstate(invalid="ignore", divide="ignore"):
            kappa = 1 - num / den
        return np.where(den > 1e-12 * n, kappa, np.nan)


class FleissKernel:
    """Fleiss' κ as a function of item weights."""

    def __init__(self, table: RatingsTable) -> None:
        counts = _counts(table.values, len(table.domain))
        per_item = counts.sum(axis=1)
        r = per_item.max()
        uneven = np.flatnonzero(per_item != r)
        if uneven.size:
            u = uneven[0]
            raise StatsInputError(
                f"agreement: Fleiss' kappa needs the same number of ratings per item; item "
                f"{table.items[u]!r} has {int(per_item[u])}, others {int(r)} (use "
                "method='krippendorff', which allows missing ratings)")
        self.r = r
        self.counts = counts
        self.p_item = ((counts ** 2).sum(axis=1) - r) / (r * (r - 1))
        self.n_pairable = len(counts)

    def __call__(self, w: np.ndarray) -> np.ndarray:
        total = w.sum(axis=1)
        p_cat = (w @ self.counts) / (self.r * total[:, None])
        p_mean = (w @ self.p_item) / total
        p_exp = (p_cat ** 2).sum(axis=1)
        with np.errstate(invalid="ignore", divide="ignore"):
            kappa = (p_mean - p_exp) / (1 - p_exp)
        return np.where(1 - p_exp > 1e-12, kappa, np.nan)


def bootstrap_rounds(stat: Any, units: np.ndarray, n_resamples: int, seed: int,
               width: int) -> np.ndarray:
    """The statistic on ``n_resamples`` bootstrap samples of the units (whole units drawn
    with replacement; each round's draws are a weight per item), in blocks of rounds."""
    n_units = int(units.max()) + 1
    rng = np.random.default_rng(seed)
    block = max(1, _BLOCK_CELLS // max(len(units), width, 1))
    out = np.empty(n_resamples)
    small = n_units * block < 2**31
    identity = len(units) == n_units and bool((units == np.arange(n_units)).all())
    for start in range(0, n_resamples, block):
        b = min(block, n_resamples - start)
        draws = rng.integers(0, n_units, size=(b, n_units), dtype=np.int32 if small else np.int64)
        draws += (np.arange(b, dtype=draws.dtype) * n_units)[:, None]
        unit_w = np.bincount(draws.ravel(), minlength=b * n_units).reshape(b, n_units)
        weights = unit_w if identity else unit_w[:, units]
        out[start:start + b] = stat(weights.astype(float))
    return out




def percentile_interval(rounds: np.ndarray, level: float) -> tuple[float, float, int]:
    """The percentile interval at ``level`` of the bootstrap ``rounds`` whose coefficient is
    defined, and the number of undefined (NaN) rounds left out: (low, high, n_undefined);
    NaN bounds when no round is defined.

    Examples
    --------
    >>> tuple(round(x, 6) for x in percentile_interval(np.array([0.1, 0.2, np.nan, 0.3]), 0.5))
    (0.15, 0.25, 1)
    """
    defined = rounds[~np.isnan(rounds)]
    n_undefined = int(rounds.size - defined.size)
    if not defined.size:
        return float("nan"), float("nan"), n_undefined
    tail = (1 - level) / 2
    low, high = np.quantile(defined, [tail, 1 - tail])
    return float(low), float(high), n_undefined


def judge_human_table(judge: np.ndarray, human: np.ndarray,
                      units: np.ndarray | None = None) -> RatingsTable:
    """The two-rater table (raters ``judge`` and ``human``) of the items where both scored.

    ``judge`` and ``human`` are the two scores of the same items (NaN: not scored; an item
    lacking either score is left out), ``units`` the resampling unit of every item (cluster
    codes; None: the items themselves).

    Examples
    --------
    >>> t = judge_human_table(np.array([1.0, 0.0, 1.0]), np.array([1.0, np.nan, 0.0]))
    >>> t.values.tolist(), t.domain.tolist()
    ([[1, 1], [1, 0]], [0.0, 1.0])
    """
    both = ~np.isnan(judge) & ~np.isnan(human)
    pair = np.column_stack([judge[both], human[both]])
    domain, codes = np.unique(pair, return_inverse=True)
    idx = np.flatnonzero(both)
    if units is None:
        unit = np.arange(idx.size)
        label = "item"
    else:
        unit = np.unique(units[both], return_inverse=True)[1].reshape(-1)
        label = "cluster"
    return RatingsTable(codes.reshape(pair.shape).astype(np.int64), domain,
                        tuple(idx.tolist()), ("judge", "human"), unit, label,
                        {"rater 1": "value", "rater 2": "human_value"})


#: The columns :func:`judge_human_agreement` returns, in order (describe's with human scores).
JUDGE_HUMAN_COLUMNS = ("n_labelled", "alpha", "alpha_low", "alpha_high", "kappa", "kappa_low",
                       "kappa_high")


def judge_human_agreement(judge: np.ndarray, human: np.ndarray,
                          units: np.ndarray | None = None, *, level: float = 0.95,
                          n_resamples: int = 1000, seed: int = 0) -> dict[str, float]:
    """Agreement between a judge's and a human's scores of the same items, with percentile
    bootstrap intervals over items (or the clusters ``units``).

    ``alpha``: Krippendorff's α on the interval scale (module docstring; for 0/1 scores it equals
    the nominal α), defined for any numeric scores; ``kappa``: Cohen's κ (unweighted), only when
    every score of both is 0 or 1 (else NaN). Both are computed on the items where both scored
    (``n_labelled``). A coefficient is NaN where it is undefined: fewer than two such items, or
    every score the same value (no disagreement to expect by chance); interval bounds are NaN
    with ``n_resamples=0`` or when no bootstrap round is defined.

    Parameters
    ----------
    judge, human : numpy.ndarray
        The two scores of every item (NaN: not scored).
    units : numpy.ndarray, optional
        The resampling unit of every item (cluster codes); None: the items.
    level : float, default 0.95
        Level of the percentile intervals.
    n_resamples : int, default 1000
        Bootstrap rounds (0: no interval).
    seed : int, default 0
        Seed of the bootstrap (the same draws for α and κ).

    Returns
    -------
    dict of str to float
        The keys :data:`JUDGE_HUMAN_COLUMNS`.

    References
    ----------
    Krippendorff, K. (2019), *Content Analysis*, 4th ed., ch. 12; Cohen, J. (1960), Educ.
    Psychol. Meas. 20:37.

    Examples
    --------
    >>> judge = np.array([1, 1, 0, 0, 1, 0, 1, 1], dtype=float)
    >>> human = np.array([1, 1, 0, 1, 1, 0, 0, 1], dtype=float)
    >>> out = judge_human_agreement(judge, human, n_resamples=0)
    >>> round(out["alpha"], 4), round(out["kappa"], 4), out["n_labelled"]
    (0.5, 0.4667, 8.0)
    """
    nan = float("nan")
    out = dict.fromkeys(JUDGE_HUMAN_COLUMNS, nan)
    table = judge_human_table(np.asarray(judge, dtype=np.float64),
                              np.asarray(human, dtype=np.float64), units)
    n = len(table.items)
    out["n_labelled"] = float(n)
    if n < 2 or len(table.domain) < 2:
        return out
    ones = np.ones((1, n))
    kernels: dict[str, Any] = {"alpha": AlphaKernel(table, "interval")}
    if np.isin(table.domain, (0.0, 1.0)).all():
        kernels["kappa"] = CohenKernel(table, None)
    for name, stat in kernels.items():
        out[name] = float(stat(ones)[0])
        if n_resamples and not np.isnan(out[name]):
            rounds = bootstrap_rounds(stat, table.units, n_resamples, seed, len(table.domain) ** 2)
            out[f"{name}_low"], out[f"{name}_high"], _ = percentile_interval(rounds, level)
    return out
