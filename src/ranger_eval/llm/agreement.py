"""Agreement between raters (judges, annotators): :func:`agreement` → :class:`AgreementResult`.

Question answered: how far do raters (people, an LLM judge) agree on the same items beyond what
chance would give, and how sure is that number? (Not to be confused with
:mod:`ranger_eval.aggregate.agreement`, the sentences about procedures that disagree.)

The input is a long table, one row per rating: ``item, rater, value`` (a missing rating is an
absent row or a NaN value). A Scores-like table without a ``rater`` column is read with its
``system`` column as the rater (the result's ``columns`` says which columns were used).

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

import warnings
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from ..design import resolve_design
from ..errors import RangerWarning, StatsInputError
from ..scores import Scores
from ..settings import AgreementSettings, resolve_settings, signature_fields
from ..signature import Signature, make_signature

__all__ = ["AgreementResult", "RatingsTable", "agreement", "ratings_table"]

#: The defaults of every keyword that is a setting (:class:`~ranger_eval.settings.AgreementSettings`).
_DEFAULT = AgreementSettings()
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


def _frame(table: Any) -> pd.DataFrame:
    if isinstance(table, Scores):
        return table.frame
    if isinstance(table, pd.DataFrame):
        return table
    raise StatsInputError(f"agreement: table must be a pandas DataFrame (item, rater, value) or "
                          f"Scores; got {type(table).__name__}")


def ratings_table(table: Any) -> RatingsTable:
    """The items × raters matrix of a long ratings table (``item, rater, value``; a Scores-like
    table's ``system`` column is the rater), with the resampling unit of every item.

    Parameters
    ----------
    table : pandas.DataFrame or Scores
        One row per rating; a NaN value is a missing rating. A ``cluster`` column makes whole
        clusters the resampling unit. A ``dataset`` or ``metric`` column must hold one value.

    Returns
    -------
    RatingsTable

    Raises
    ------
    StatsInputError
        A missing column, a rater who rated the same item twice, a rater who rated nothing,
        fewer than two raters, or more than one dataset or metric.

    Examples
    --------
    >>> import pandas as pd
    >>> from ranger_eval.llm.agreement import ratings_table
    >>> t = ratings_table(pd.DataFrame({"item": [1, 1, 2, 2], "rater": ["a", "b", "a", "b"],
    ...                                 "value": [1, 1, 0, 1]}))
    >>> t.values.tolist(), t.raters
    ([[1, 1], [0, 1]], ('a', 'b'))
    """
    frame = _frame(table)
    columns: dict[str, str] = {}
    rater = "rater" if "rater" in frame.columns else "system" if "system" in frame.columns else None
    missing = [c for c, present in (("item", "item" in frame.columns), ("rater", rater),
                                    ("value", "value" in frame.columns)) if not present]
    if missing:
        raise StatsInputError(f"agreement: the table has no {', '.join(missing)} column (a long "
                              f"table item, rater, value, one row per rating; or scores whose "
                              f"system column is the rater); columns: {', '.join(map(str, frame.columns))}")
    assert rater is not None
    columns.update(item="item", rater=rater, value="value")
    for col in ("dataset", "metric"):
        if col in frame.columns and frame[col].nunique(dropna=False) > 1:
            names = ", ".join([str(v) for v in pd.unique(frame[col])][:5])
            raise StatsInputError(f"agreement: the {col} column holds several values ({names}); "
                                  f"agreement is computed on one {col}: select its rows first")
    dup = frame.duplicated(["item", rater])
    if dup.any():
        row = frame[dup].iloc[0]
        raise StatsInputError(f"agreement: rater {row[rater]!r} rated item {row['item']!r} more "
                              "than once (one row per item and rater)")
    item_codes, items = pd.factorize(frame["item"], sort=True)
    rater_codes, raters = pd.factorize(frame[rater], sort=False)
    value = frame["value"]
    present = value.notna().to_numpy()
    nothing = [r for k, r in enumerate(raters) if not present[rater_codes == k].any()]
    if nothing:
        raise StatsInputError(f"agreement: rater(s) {', '.join(map(repr, nothing))} rated "
                              "nothing (every value missing): drop their rows or give their "
                              "ratings")
    if len(raters) < 2:
        who = repr(raters[0]) if len(raters) else "none"
        raise StatsInputError(f"agreement: one rater only ({who}); agreement needs two raters "
                              "or more")
    kept = value[present]
    if pd.api.types.is_numeric_dtype(kept) or pd.api.types.is_bool_dtype(kept):
        numbers = kept.to_numpy(dtype=float)
        if not np.isfinite(numbers).all():
            raise StatsInputError("agreement: a value is infinite; ratings are finite numbers "
                                  "or labels")
        domain, codes = np.unique(numbers, return_inverse=True)
    else:
        domain, codes = np.unique(kept.astype(str).to_numpy(), return_inverse=True)
    matrix = np.full((len(items), len(raters)), -1, dtype=np.int64)
    matrix[item_codes[present], rater_codes[present]] = codes
    units, label = _units(frame, item_codes, len(items), columns)
    return RatingsTable(matrix, domain, tuple(items), tuple(raters), units, label, columns)


def _units(frame: pd.DataFrame, item_codes: np.ndarray, n_items: int,
           columns: dict[str, str]) -> tuple[np.ndarray, str]:
    """The resampling unit of every item, from the design resolver."""
    if "cluster" not in frame.columns:
        return np.arange(n_items), "item"
    per_item = frame.assign(_item=item_codes).groupby("_item")["cluster"].nunique()
    if (per_item > 1).any():
        first_row = int(np.argmax(item_codes == per_item.idxmax()))
        raise StatsInputError(f"agreement: item {frame['item'].iloc[first_row]!r} lies in two "
                              "clusters (a cluster column gives each item one cluster)")
    scores = pd.DataFrame({"dataset": "ratings", "system": "ratings",
                           "item": item_codes.astype(str),
                           "cluster": frame["cluster"].to_numpy()}).drop_duplicates("item")
    scores["value"] = 0.0
    design = resolve_design(scores)
    units = np.empty(n_items, dtype=np.int64)
    units[scores["item"].to_numpy().astype(np.int64)] = pd.factorize(
        design.units("ratings", scores["item"].to_numpy()))[0]
    columns["cluster"] = "cluster"
    return units, design.label


@dataclass(frozen=True)
class AgreementResult:
    """An agreement coefficient with its percentile bootstrap interval over items (or clusters)
    (module docstring for every formula).

    ``estimate`` is α or κ on the whole table; ``low``/``high`` the interval at ``level`` from
    ``n_resamples`` rounds (NaN with ``n_resamples=0``), ``n_undefined`` of which had no
    expected disagreement and were left out; ``n_items`` the items with a rating (``n_pairable``
    of them rated at least twice), ``n_raters`` and ``n_ratings`` the raters and ratings,
    ``resample`` the resampling unit, ``columns`` the columns read by role, ``settings`` the
    :class:`~ranger_eval.settings.AgreementSettings` of the call.
    """

    estimate: float
    low: float
    high: float
    method: str
    scale: str | None
    weights: str | None
    level: float
    n_resamples: int
    seed: int
    n_items: int
    n_pairable: int
    n_raters: int
    n_ratings: int
    n_undefined: int
    resample: str
    raters: tuple[str, ...]
    columns: dict[str, str]
    settings: AgreementSettings | None = field(default=None, compare=False, repr=False)

    @property
    def name(self) -> str:
        """The coefficient in words: "Krippendorff's α (ordinal)", "Cohen's κ (quadratic)"."""
        if self.method == "krippendorff":
            return f"Krippendorff's α ({self.scale})"
        if self.method == "cohen":
            return "Cohen's κ" + (f" ({self.weights} weights)" if self.weights else "")
        return "Fleiss' κ"

    @property
    def signature(self) -> Signature:
        fields = signature_fields(AgreementSettings, self, {
            "scale": self.scale, "kappa_weights": self.weights})
        fields.update(n_items=self.n_items, n_raters=self.n_raters, resample=self.resample)
        return make_signature("agreement", fields)

    def summary(self) -> str:
        """One sentence: the coefficient, its interval and what was rated."""
        pct = f"{100 * self.level:g}%"
        interval = (f", {pct} bootstrap interval [{self.low:.3f}, {self.high:.3f}] over "
                    f"{self.n_resamples} resamples of {self._unit_words()}"
                    if self.n_resamples else "")
        return (f"{self.name} = {self.estimate:.3f}{interval}; {self.n_raters} raters, "
                f"{self.n_items} items, {self.n_ratings} ratings.")

    def _unit_words(self) -> str:
        return "items" if self.resample == "item" else f"clusters ({self.resample})"

    def to_frame(self) -> pd.DataFrame:
        """One row: coefficient, estimate, interval and counts."""
        return pd.DataFrame([{
            "coefficient": self.method, "scale": self.scale, "weights": self.weights,
            "estimate": self.estimate, "ci_low": self.low, "ci_high": self.high,
            "level": self.level, "n_items": self.n_items, "n_pairable": self.n_pairable,
            "n_raters": self.n_raters, "n_ratings": self.n_ratings,
            "n_resamples": self.n_resamples, "n_undefined": self.n_undefined,
            "resample": self.resample}])

    def to_dict(self) -> dict[str, Any]:
        """JSON-friendly: every field and the signature."""
        row = self.to_frame().iloc[0].to_dict()
        row.update(seed=self.seed, raters=[str(r) for r in self.raters],
                   columns=dict(self.columns), summary=self.summary(),
                   signature=str(self.signature))
        return {str(k): (None if isinstance(v, float) and np.isnan(v) else v)
                for k, v in row.items()}


# --------------------------------------------------------------------------- statistics
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


class _Alpha:
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


class _Cohen:
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


class _Fleiss:
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


def _bootstrap(stat: Any, units: np.ndarray, n_resamples: int, seed: int,
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


def agreement(table: Any, *, method: str = _DEFAULT.method, scale: str = _DEFAULT.scale,
              weights: str | None = _DEFAULT.weights, level: float = _DEFAULT.level,
              n_resamples: int = _DEFAULT.n_resamples, seed: int = _DEFAULT.seed,
              settings: AgreementSettings | None = None) -> AgreementResult:
    """Agreement between raters, with a percentile bootstrap interval over items (or clusters).

    Krippendorff's α = 1 − (n − 1) Σ o_ck δ²_ck / Σ n_c n_k δ²_ck (any number of raters, missing
    ratings allowed; nominal, ordinal, interval or ratio distances), Cohen's
    κ = 1 − Σ w O / Σ w E (two raters; unweighted, linear or quadratic weights) or Fleiss'
    κ = (P̄ − P̄_e)/(1 − P̄_e) (the same number of ratings per item). The module docstring gives
    every formula and the vectorised bootstrap.

    Parameters
    ----------
    table : pandas.DataFrame or Scores
        One row per rating: ``item, rater, value`` (NaN: a missing rating); a Scores-like
        table's ``system`` column is the rater. A ``cluster`` column resamples whole clusters.
    method : {'krippendorff', 'cohen', 'fleiss'}, default 'krippendorff'
        The coefficient.
    scale : {'nominal', 'ordinal', 'interval', 'ratio'}, default 'nominal'
        Krippendorff's level of measurement.
    weights : {'linear', 'quadratic'}, optional
        Cohen's κ weights (default: unweighted).
    level : float, default 0.95
        Level of the percentile interval.
    n_resamples : int, default 1000
        Bootstrap rounds (0: no interval).
    seed : int, default 0
        Seed of the bootstrap.
    settings : AgreementSettings, optional
        All of the above at once (then give none of them).

    Returns
    -------
    AgreementResult
        ``estimate``, ``low``, ``high``, counts, ``settings`` and ``signature``.

    Raises
    ------
    StatsInputError
        A missing column, one rater, a rater who rated nothing, all ratings equal (α or κ is
        undefined), Cohen with other than two raters or a missing rating, Fleiss with unequal
        numbers of ratings per item.
    SettingsError
        A refused setting.

    References
    ----------
    Krippendorff, K. (2019), *Content Analysis*, 4th ed., ch. 12; Cohen, J. (1960), Educ.
    Psychol. Meas. 20:37; Cohen, J. (1968), Psychol. Bull. 70:213; Fleiss, J. L. (1971),
    Psychol. Bull. 76:378; Hayes, A. F. & Krippendorff, K. (2007), Commun. Methods Meas. 1:77.

    Examples
    --------
    >>> import pandas as pd
    >>> import ranger_eval as rg
    >>> table = pd.DataFrame({"item": [1, 1, 2, 2, 3, 3, 4, 4],
    ...                       "rater": ["ann", "judge"] * 4,
    ...                       "value": [1, 1, 0, 0, 1, 0, 1, 1]})
    >>> result = rg.agreement(table, method="cohen", n_resamples=200)
    >>> round(result.estimate, 4)
    0.5
    >>> result.n_raters, result.n_items
    (2, 4)
    """
    settings = resolve_settings(AgreementSettings, {
        "method": method, "scale": scale, "weights": weights, "level": level,
        "n_resamples": n_resamples, "seed": seed}, settings, where="agreement")
    ratings = ratings_table(table)
    stat: Any
    if settings.method == "krippendorff":
        stat = _Alpha(ratings, settings.scale)
        if stat.n_pairable == 0:
            raise StatsInputError("agreement: no item has two ratings or more; Krippendorff's "
                                  "alpha compares the ratings of the same item")
    elif settings.method == "cohen":
        stat = _Cohen(ratings, settings.weights)
    else:
        stat = _Fleiss(ratings)
    estimate = float(stat(np.ones((1, len(ratings.items))))[0])
    if np.isnan(estimate):
        raise StatsInputError(
            f"agreement: every rating is the same value ({_one_value(ratings)!r}): there is no "
            f"disagreement to expect by chance, so {_coefficient_name(settings.method)} is "
            "undefined (0/0); nothing can be said about agreement from these ratings")
    low = high = float("nan")
    n_undefined = 0
    if settings.n_resamples:
        width = len(ratings.domain) ** 2
        boot = _bootstrap(stat, ratings.units, settings.n_resamples, settings.seed, width)
        defined = boot[~np.isnan(boot)]
        n_undefined = int(boot.size - defined.size)
        if n_undefined:
            warnings.warn(f"agreement: {n_undefined} of {boot.size} bootstrap resamples had "
                          f"every rating equal ({_coefficient_name(settings.method)} undefined) "
                          "and were left out of the interval", RangerWarning, stacklevel=2)
        if defined.size:
            tail = (1 - settings.level) / 2
            low, high = (float(q) for q in np.quantile(defined, [tail, 1 - tail]))
    return AgreementResult(
        estimate=estimate, low=low, high=high, method=settings.method,
        scale=settings.scale if settings.method == "krippendorff" else None,
        weights=settings.weights, level=settings.level, n_resamples=settings.n_resamples,
        seed=settings.seed, n_items=int((ratings.values >= 0).any(axis=1).sum()),
        n_pairable=stat.n_pairable, n_raters=len(ratings.raters),
        n_ratings=int((ratings.values >= 0).sum()), n_undefined=n_undefined,
        resample=ratings.unit_label, raters=tuple(str(r) for r in ratings.raters),
        columns=dict(ratings.columns), settings=settings)


def _coefficient_name(method: str) -> str:
    return {"krippendorff": "Krippendorff's alpha", "cohen": "Cohen's kappa",
            "fleiss": "Fleiss' kappa"}[method]


def _one_value(ratings: RatingsTable) -> Any:
    used = np.unique(ratings.values[ratings.values >= 0])
    value = ratings.domain[used[0]].item() if used.size else None
    return int(value) if isinstance(value, float) and value.is_integer() else value
