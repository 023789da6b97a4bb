"""Agreement between raters (judges, annotators): :func:`agreement` → :class:`AgreementResult`.

Question answered: how far do raters (people, an LLM judge) agree on the same items beyond what
chance would give, and how sure is that number? (Not to be confused with
:mod:`ranger_eval.aggregate.agreement`, the sentences about procedures that disagree.)

The input is a long table, one row per rating: ``item, rater, value`` (a missing rating is an
absent row or a NaN value). A Scores-like table without a ``rater`` column is read with its
``system`` column as the rater (the result's ``columns`` says which columns were used).

The coefficients (Krippendorff's α on four levels of measurement, Cohen's κ unweighted or
weighted, Fleiss' κ) and the vectorised bootstrap are the kernels of
:mod:`ranger_eval.stats.agreement` (formulas there); this module reads the long table, asks
the design resolver (:func:`~ranger_eval.resolve_design`) for the resampling unit (whole
clusters with a ``cluster`` column, else items) and returns the result object.
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
from ..stats.agreement import (
    AlphaKernel,
    CohenKernel,
    FleissKernel,
    RatingsTable,
    bootstrap_rounds,
    percentile_interval,
)

__all__ = ["AgreementResult", "RatingsTable", "agreement", "ratings_table"]

#: The defaults of every keyword that is a setting (:class:`~ranger_eval.settings.AgreementSettings`).
_DEFAULT = AgreementSettings()


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
        stat = AlphaKernel(ratings, settings.scale)
        if stat.n_pairable == 0:
            raise StatsInputError("agreement: no item has two ratings or more; Krippendorff's "
                                  "alpha compares the ratings of the same item")
    elif settings.method == "cohen":
        stat = CohenKernel(ratings, settings.weights)
    else:
        stat = FleissKernel(ratings)
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
        boot = bootstrap_rounds(stat, ratings.units, settings.n_resamples, settings.seed, width)
        low, high, n_undefined = percentile_interval(boot, settings.level)
        if n_undefined:
            warnings.warn(f"agreement: {n_undefined} of {boot.size} bootstrap resamples had "
                          f"every rating equal ({_coefficient_name(settings.method)} undefined) "
                          "and were left out of the interval", RangerWarning, stacklevel=2)
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
