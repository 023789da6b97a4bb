"""A valid estimate of a system's mean over a whole benchmark from a random subset of its items:
:func:`estimate_from_subset` (:class:`SubsetEstimate`) and :func:`choose_subset`
(:class:`SubsetChoice`).

**The estimator** (the difference / model-assisted estimator of survey sampling, Särndal,
Swensson & Wretman 1992, §6.3; cross-fitted as in Zrnic & Candès 2024, "Cross-prediction-powered
inference", PNAS 121). The benchmark is a finite population U of N items with results y_i of
the new system; its mean μ = Σ_U y_i / N is the target. The system ran a sample S of n items
drawn without replacement (simple random, or stratified random in strata U_h of N_h items with
n_h drawn in each). A predictor f gives every item a prediction f_i (default: the item response
model fitted on the history, :func:`~ranger_eval.irt`, with the new system's ability fitted on
its answers). The sample is split at random into K folds (within strata; the split is a
seeded hash of the item ids, so nothing depends on the order of the rows); the predictions
f^(k) used for fold k are computed from the answers outside fold k only, so they are fixed
given S_−k, and S_k is then a simple random sample of the items not in S_−k (in every
stratum). Hence the fold estimate

    μ̂_k = (1/N) Σ_h [ Σ_{S_−k,h} y_i + M_kh (mean_{U_h∖S_−k,h} f^(k) + mean_{S_k,h}(y − f^(k))) ],

M_kh = |U_h ∖ S_−k,h|, is unbiased for μ whatever f is (the difference estimator of the items
outside S_−k), and so is μ̂ = mean_k μ̂_k: the estimate is design-unbiased for ANY predictor;
a good predictor only makes it more precise. With one predictor for all folds μ̂ reduces to
mean_U f + mean_S (y − f). Its variance is the difference estimator's,

    V̂ = Σ_h W_h² (1 − n_h/N_h) s²_{e,h} / n_h,   W_h = N_h/N,

s²_{e,h} the sample variance (ddof = 1) of the cross-fitted residuals e_i = y_i − f^(k(i))_i in
stratum h (one stratum: (1 − n/N) s²_e / n, the finite-population correction of sampling
without replacement). The interval is μ̂ ± t_{n−H, (1+level)/2} √V̂ (H strata; the t
quantile on the design's degrees of freedom, as R ``survey``'s ``confint(..., df =
degf(design))``), intersected with the values μ can take given the answers seen, [Σ_S y / N,
(Σ_S y + N − n) / N] ⊆ [0, 1] (a valid interval stays valid when cut to the parameter space).

**Validity conditions.** The items run are a probability sample whose design the estimator
knows: a simple random sample, or a stratified random sample with known strata sizes N_h
(:func:`choose_subset` with ``method="random"`` or ``"stratified"``), chosen before the new
system's results are seen, and every chosen item's result is observed (no item dropped because
it failed). The interval then holds by the central limit theorem for sampling without
replacement (Hájek 1960) for any predictor; the cross-fitting adds variance between folds that
is negligible when the ability fit is stable (Zrnic & Candès 2024, §3), checked in the
committed simulation (``benchmarks/subset_eval.py``). Anchor items chosen from the history
(``method="anchor"``, as tinyBenchmarks' anchor points, Polo et al. 2024) are NOT a random
sample: the estimate is then a model prediction without a design-based guarantee; the result
says so (``design_based=False``) and a warning is issued.

**Effective number of items.** ``effective_n = n · V̂_plain / V̂``, where V̂_plain is the
variance of the plain subset mean under the same design (Σ_h W_h² (1 − n_h/N_h) s²_{y,h}/n_h):
the number of random items whose plain mean would be as precise as this estimate (Kish's
effective sample size, 1965, §8.2; the finite-population correction is the same on both
sides and cancels for a simple random sample).
"""
from __future__ import annotations

import hashlib
import math
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
from scipy import special, stats
from scipy.cluster.vq import kmeans2

from ..design import refuse_prompts
from ..errors import RangerWarning, VerdictError
from ..formatting import preview
from ..scores import Scores
from ..settings import (
    ChooseSubsetSettings,
    SubsetSettings,
    resolve_settings,
    signature_fields,
)
from ..signature import Signature, make_signature
from ..stats.bounded import wilson
from ._responses import ability_one, wide_table
from .irt import IRTResult, irt

__all__ = ["SubsetChoice", "SubsetEstimate", "choose_subset", "estimate_from_subset"]

_DEFAULT = SubsetSettings()
_CHOOSE = ChooseSubsetSettings()
Predictor = Callable[[pd.DataFrame, pd.Series], Any]


# --------------------------------------------------------------------------- results
@dataclass(frozen=True)
class SubsetChoice:
    """A subset of a benchmark's items chosen by a stated design (:func:`choose_subset`).

    ``items`` (in draw order), ``method`` (random, stratified, anchor), ``n``,
    ``n_population`` (N, the benchmark's items), ``strata`` (the stratum of every item of the
    benchmark for a stratified design, else None) and ``design_based``: whether an interval
    computed from this subset has a design-based guarantee (random and stratified: yes;
    anchor: no)."""

    items: tuple[Any, ...]
    method: str
    n: int
    n_population: int
    strata: pd.Series | None
    settings: ChooseSubsetSettings = field(default_factory=ChooseSubsetSettings)

    @classmethod
    def of_items(cls, history: Any, items: Any, *, method: str = _CHOOSE.method,
                 n_strata: int = _CHOOSE.n_strata) -> SubsetChoice:
        """The design of ``items`` already run, restated from the history: ``method`` as
        :func:`choose_subset` names it; for ``"stratified"`` the strata are recomputed from
        ``history`` exactly as :func:`choose_subset` draws them (``n_strata`` strata of equal
        size by the items' mean in the history; they do not depend on the seed), so the
        estimate uses every stratum's size N_h. The caller vouches that the items were drawn
        by that design (the command line's ``--design``)."""
        settings = ChooseSubsetSettings(method=method, n_strata=n_strata)
        wide = wide_table(history, where="estimate_from_subset")
        chosen = tuple(pd.unique(pd.Index(list(items))))
        strata = None
        if settings.method == "stratified":
            strata = pd.Series(_strata_labels(wide, settings.n_strata), index=wide.columns,
                               name="stratum")
        return cls(items=chosen, method=settings.method, n=len(chosen),
                   n_population=wide.shape[1], strata=strata, settings=settings)

    @property
    def design_based(self) -> bool:
        """Whether the items are a probability sample (random or stratified)."""
        return self.method != "anchor"

    @property
    def signature(self) -> Signature:
        return make_signature("subset_choice", signature_fields(ChooseSubsetSettings, self, {
            "strata": self.settings.n_strata if self.method == "stratified" else None}))

    @property
    def seed(self) -> int:
        return self.settings.seed

    def to_frame(self) -> pd.DataFrame:
        """One row per chosen item: its stratum and the stratum's size (N_h)."""
        if self.strata is None:
            return pd.DataFrame({"item": list(self.items), "stratum": 0,
                                 "stratum_size": self.n_population})
        sizes = self.strata.value_counts()
        stratum = self.strata.loc[list(self.items)].to_numpy()
        return pd.DataFrame({"item": list(self.items), "stratum": stratum,
                             "stratum_size": sizes.loc[stratum].to_numpy()})

    def to_dict(self) -> dict[str, Any]:
        """JSON-friendly: the items, design, sizes, settings and signature."""
        return {"method": self.method, "n": self.n, "n_population": self.n_population,
                "design_based": self.design_based, "items": [str(i) for i in self.items],
                "settings": self.settings.as_dict(), "signature": str(self.signature)}

    def summary(self) -> str:
        """One or two lines: the design and whether it supports a valid interval."""
        what = {"random": "a simple random sample",
                "stratified": f"a stratified random sample ({self.settings.n_strata} strata by "
                              f"the items' mean in the history, proportional allocation)",
                "anchor": "anchor items (k-means centres of the history's item columns)"}
        lines = [f"{self.n} of {self.n_population} items: {what[self.method]}"]
        if not self.design_based:
            lines.append("not a random sample: an estimate from these items has no "
                         "design-based guarantee")
        return "\n".join(lines + [str(self.signature)])


@dataclass(frozen=True)
class SubsetEstimate:
    """The estimate of a system's mean over a whole benchmark from a subset of its items
    (:func:`estimate_from_subset`).

    ``estimate`` with its interval [``low``, ``high``] at ``level`` and standard error ``se``;
    ``n`` items run out of ``n_population`` (N); beside it the plain subset mean
    ``subset_mean`` with its Wilson interval [``subset_low``, ``subset_high``] and its
    standard error ``subset_se`` (same design); ``effective_n`` = n · subset_se² / se², the
    number of random items whose plain mean is as precise; ``predicted_mean``: the predictor's
    own mean over every item (ability fitted on all n answers: a prediction without a
    guarantee, as tinyBenchmarks'); ``design`` (random, stratified, anchor) and
    ``design_based`` (False for anchor items: no design-based guarantee); ``n_folds`` used;
    ``predictions``: the fold-averaged prediction of every item."""

    estimate: float
    low: float
    high: float
    se: float
    n: int
    n_population: int
    subset_mean: float
    subset_low: float
    subset_high: float
    subset_se: float
    effective_n: float
    predicted_mean: float
    design: str
    design_based: bool
    n_folds: int
    n_strata: int
    predictor: str
    predictions: pd.Series
    settings: SubsetSettings = field(default_factory=SubsetSettings)

    @property
    def level(self) -> float:
        return self.settings.level

    @property
    def seed(self) -> int:
        return self.settings.seed

    @property
    def signature(self) -> Signature:
        return make_signature("subset", signature_fields(SubsetSettings, self, {
            "level": f"{self.level:g}", "predictor": self.predictor, "folds": self.n_folds})
            | {"design": self.design, "n": self.n, "N": self.n_population})

    def worth(self) -> str:
        """The sentence saying how many random items the estimate is worth."""
        if not self.design_based:
            return ("The items were not drawn at random (anchor items): the interval is a "
                    "model-based guess without a design-based guarantee, and no number of "
                    "random items can be stated.")
        return (f"The estimate from {self.n} items is as precise as the plain mean of "
                f"{self.effective_n:,.0f} random items (effective number of items = n × "
                f"variance of the plain mean / variance of the estimate).")

    def to_frame(self) -> pd.DataFrame:
        """Two rows: this estimate and the plain subset mean, with interval and SE."""
        return pd.DataFrame({
            "estimator": ["cross-fitted difference", "subset mean"],
            "estimate": [self.estimate, self.subset_mean],
            "low": [self.low, self.subset_low], "high": [self.high, self.subset_high],
            "se": [self.se, self.subset_se], "n": [self.n, self.n],
            "n_population": [self.n_population, self.n_population],
            "effective_n": [self.effective_n, float(self.n)]})

    def to_dict(self) -> dict[str, Any]:
        """JSON-friendly: every number, the sentence, settings and signature."""
        out = {k: getattr(self, k) for k in (
            "estimate", "low", "high", "se", "n", "n_population", "subset_mean", "subset_low",
            "subset_high", "subset_se", "effective_n", "predicted_mean", "design",
            "design_based", "n_folds", "n_strata", "predictor", "level")}
        out["worth"] = self.worth()
        out["settings"] = {k: (v if isinstance(v, (str, int, float)) else self.predictor)
                           for k, v in self.settings.as_dict().items()}
        out["signature"] = str(self.signature)
        return out

    def summary(self) -> str:
        """A few lines: the estimate and interval, the subset mean beside, what it is worth."""
        pct = f"{100 * self.level:g}%"
        lines = [f"whole-benchmark mean from {self.n} of {self.n_population} items "
                 f"({self.design} design, {self.predictor} predictor, {self.n_folds}-fold "
                 f"cross-fitting): {self.estimate:.4f}, {pct} interval [{self.low:.4f}, "
                 f"{self.high:.4f}], se {self.se:.4f}",
                 f"plain subset mean: {self.subset_mean:.4f}, {pct} Wilson interval "
                 f"[{self.subset_low:.4f}, {self.subset_high:.4f}], se {self.subset_se:.4f}",
                 self.worth(), str(self.signature)]
        return "\n".join(lines)


# --------------------------------------------------------------------------- input
def _history(history: Any) -> pd.DataFrame:
    wide = wide_table(history, where="estimate_from_subset")
    if wide.shape[0] < 2 or wide.shape[1] < 2:
        raise VerdictError(f"estimate_from_subset: history must hold at least 2 systems × 2 "
                           f"items; got {wide.shape[0]} × {wide.shape[1]}")
    return wide


def _responses(responses: Any) -> pd.Series:
    """The new system's results as a Series item → value."""
    if isinstance(responses, Scores):
        refuse_prompts(responses, where="estimate_from_subset", error=VerdictError,
                       why="the model reads one 0/1 response per system × item (a mean over the "
                           "prompts is not one)", instead="select the rows of one prompt")
        responses = responses.table
    if isinstance(responses, pd.DataFrame):
        if {"item", "value"} <= set(responses):
            if "system" in responses and responses["system"].nunique() > 1:
                raise VerdictError(
                    f"estimate_from_subset: responses hold {responses['system'].nunique()} "
                    f"systems ({preview([str(s) for s in pd.unique(responses['system'])])}); "
                    f"give one new system's results at a time")
            dup = responses["item"].duplicated()
            if dup.any():
                raise VerdictError(f"estimate_from_subset: responses give item "
                                   f"{responses['item'][dup].iloc[0]!r} more than once")
            series = pd.Series(responses["value"].to_numpy(dtype=float),
                               index=responses["item"].to_numpy())
        elif len(responses) == 1:
            series = responses.iloc[0].astype(float)
        else:
            raise VerdictError(f"estimate_from_subset: responses must be one system's results "
                               f"(a long table item, value or a one-row wide table); got "
                               f"{len(responses)} rows without an item column")
    else:
        series = pd.Series(responses, dtype=float)
    if series.index.has_duplicates:
        raise VerdictError(f"estimate_from_subset: responses give item "
                           f"{series.index[series.index.duplicated()][0]!r} more than once")
    values = series.to_numpy()
    bad = ~np.isfinite(values) | (values < 0) | (values > 1)
    if bad.any():
        i = int(np.argmax(bad))
        what = "a missing result" if np.isnan(values[i]) else f"value {float(values[i]):g}"
        raise VerdictError(f"estimate_from_subset: responses must lie in [0, 1] (0/1 for an "
                           f"item response model); item {series.index[i]!r} has {what} "
                           f"({int(bad.sum())} such item(s)); an item the system did not "
                           f"answer is wrong (0), never dropped")
    return series


def _predictor_name(predictor: Any) -> str:
    return predictor if isinstance(predictor, str) else getattr(
        predictor, "__name__", type(predictor).__name__)


def _fold_ids(items: pd.Index, strata: np.ndarray, k: int, seed: int) -> np.ndarray:
    """Fold of every sampled item, from the item ids alone: the items of each stratum sorted by
    a seeded hash of their id (BLAKE2b of ``seed`` and ``str(id)``; the id itself breaks a tie)
    and dealt round the k folds. A random split (the hash is a pseudo-random function of the
    id, independent of the results) that does not depend on the order of the rows: shuffling
    the responses or the history gives the same folds."""
    keys = [hashlib.blake2b(f"{seed}\x00{item}".encode(), digest_size=8).hexdigest()
            for item in items]
    order = sorted(range(len(keys)), key=lambda i: (keys[i], str(items[i])))
    fold = np.empty(strata.size, dtype=np.int64)
    ranked = np.asarray(order, dtype=np.int64)
    for h in np.unique(strata):
        where = ranked[strata[ranked] == h]
        fold[where] = np.arange(where.size) % k
    return fold


# --------------------------------------------------------------------------- estimate
def estimate_from_subset(history: Any, responses: Any, *, design: SubsetChoice | None = None,
                         level: float = _DEFAULT.level, predictor: Any = _DEFAULT.predictor,
                         n_folds: int = _DEFAULT.n_folds, seed: int = _DEFAULT.seed,
                         settings: SubsetSettings | None = None) -> SubsetEstimate:
    """Estimate a system's mean over a whole benchmark from its results on a random subset,
    with an interval valid whatever the predictor's quality (narrower when it is good).

    The cross-fitted difference estimator and its variance are in the module docstring
    (:mod:`ranger_eval.budget.subset`): μ̂ = mean_k μ̂_k, V̂ = Σ_h W_h² (1 − n_h/N_h)
    s²_{e,h}/n_h, the interval μ̂ ± t √V̂ cut to the values the mean can take.

    Parameters
    ----------
    history : DataFrame, array, long table or IRTResult
        Past systems × items results on the whole benchmark (N items): a wide table (one row
        per system, one column per item), a long table ``system, item, value``, or an
        :class:`~ranger_eval.IRTResult` fitted on it (fit once, reuse for many systems).
    responses : Series, mapping, DataFrame
        The new system's results on the subset: item → value, a long table ``item, value``
        (optionally with one ``system``), or a one-row wide table. Items must be items of the
        history; values in [0, 1] (0/1 for an item response model).
    design : SubsetChoice, optional
        How the subset was chosen (:func:`choose_subset`); default: a simple random sample.
        A stratified design gives the stratified estimator; anchor items give a warning and
        ``design_based=False``.
    level : float, default 0.95
        Confidence level.
    predictor : {'rasch', '2pl'} or callable, default 'rasch'
        The item response model fitted on the history, or a function ``(history, responses)
        -> predictions`` (history the wide table, responses a Series; predictions a Series
        over every item or an array in the history's column order).
    n_folds : int, default 5
        Cross-fitting folds (fewer when a stratum has fewer sampled items).
    seed : int, default 0
        Seed of the folds (the folds are a seeded hash of the item ids: the order of the rows
        of ``history`` and ``responses`` does not matter).
    settings : SubsetSettings, optional
        All of the above at once (a keyword that differs from its default as well is an error).

    Returns
    -------
    SubsetEstimate

    Raises
    ------
    VerdictError
        Items absent from the history, responses outside [0, 1] or missing, several systems,
        fewer than 2 items per fold, a design that does not match the responses.

    Warns
    -----
    RangerWarning
        Anchor items: no design-based guarantee.

    References
    ----------
    Särndal, C.-E., Swensson, B. & Wretman, J. (1992), *Model Assisted Survey Sampling*,
    Springer, §6.3 and §7.6 (the difference estimator, its variance under SRS and stratified
    sampling). Zrnic, T. & Candès, E. J. (2024), "Cross-prediction-powered inference", PNAS
    121(15). Polo, F. M. et al. (2024), "tinyBenchmarks: evaluating LLMs with fewer examples",
    ICML. Kish, L. (1965), *Survey Sampling*, Wiley (effective sample size).

    Examples
    --------
    >>> import numpy as np, ranger_eval as rg
    >>> rng = np.random.default_rng(1)
    >>> ability, difficulty = rng.normal(size=31), rng.normal(0, 2, size=400)
    >>> p = 1 / (1 + np.exp(-(ability[:, None] - difficulty)))
    >>> table = (rng.random(p.shape) < p).astype(int)
    >>> history, new = table[:30], table[30]
    >>> subset = rg.choose_subset(history, 60, seed=2)
    >>> est = rg.estimate_from_subset(history, {i: new[i] for i in subset.items})
    >>> round(est.estimate, 3), round(float(new.mean()), 3), bool(est.low < new.mean() < est.high)
    (0.8, 0.81, True)
    >>> round(est.se, 4), round(est.subset_se, 4), round(est.effective_n)
    (0.0445, 0.0508, 78)
    """
    settings = resolve_settings(SubsetSettings, {
        "level": level, "predictor": predictor, "n_folds": n_folds, "seed": seed}, settings,
        where="estimate_from_subset")
    model: IRTResult | None = history if isinstance(history, IRTResult) else None
    wide = None if model is not None else _history(history)
    if model is not None:
        items = pd.Index(list(model.difficulty.index) + list(model.excluded_items))
        if not isinstance(settings.predictor, str):
            raise VerdictError("estimate_from_subset: a predictor function needs the history "
                               "table, not a fitted IRTResult")
        if settings.predictor != model.model:
            raise VerdictError(f"estimate_from_subset: predictor={settings.predictor!r} but "
                               f"the history is a fitted {model.model!r} model")
    else:
        assert wide is not None
        items = pd.Index(wide.columns)
    if items.has_duplicates:
        raise VerdictError(f"estimate_from_subset: the history has item "
                           f"{items[items.duplicated()][0]!r} twice")
    y = _responses(responses)
    absent = [i for i in y.index if i not in items]
    if absent:
        raise VerdictError(
            f"estimate_from_subset: {len(absent)} item(s) of the responses are absent from the "
            f"history ({preview([str(a) for a in absent])}; the history has {len(items)} "
            f"items): the whole benchmark is the history's items")
    big_n, n = len(items), int(y.size)
    # ---- the design: strata of the benchmark's items
    method = "random" if design is None else design.method
    if design is not None:
        if design.n_population != big_n:
            raise VerdictError(f"estimate_from_subset: the design was chosen from "
                               f"{design.n_population} items, the history has {big_n}")
        chosen = set(design.items)
        if set(y.index) != chosen:
            missing = [str(i) for i in design.items if i not in set(y.index)]
            extra = [str(i) for i in y.index if i not in chosen]
            raise VerdictError(
                f"estimate_from_subset: the responses must be the design's {design.n} items "
                f"exactly; missing {preview(missing)}, not in the design {preview(extra)} (an "
                f"item the system failed is a 0, never dropped)")
        if not design.design_based:
            warnings.warn("estimate_from_subset: anchor items are not a random sample; the "
                          "interval is computed as if they were and has no design-based "
                          "guarantee (design_based=False)", RangerWarning, stacklevel=2)
    if design is not None and design.strata is not None:
        stratum_all = design.strata.reindex(items).to_numpy()
    else:
        stratum_all = np.zeros(big_n, dtype=np.int64)
    pos = items.get_indexer(y.index)
    yv = y.to_numpy(dtype=float)
    strata = stratum_all[pos]
    labels, n_h = np.unique(strata, return_counts=True)
    big_nh = np.array([int((stratum_all == h).sum()) for h in labels])
    if n_h.min() < 2:
        raise VerdictError(f"estimate_from_subset: {n} item(s) answered; the estimate needs at "
                           f"least 2 per fold and per stratum (a stratum has {n_h.min()})")
    k = int(min(settings.n_folds, n_h.min()))
    if n < 2 * k and k > 2:
        k = max(2, n // 2)
    fold = _fold_ids(pd.Index(y.index), strata, k, settings.seed)
    predict = _make_predictor(settings.predictor, model, wide, items, y, pos)
    in_sample = np.zeros(big_n, dtype=bool)
    in_sample[pos] = True
    fold_all = np.full(big_n, -1)
    fold_all[pos] = fold
    resid = np.empty(n)
    estimates = np.empty(k)
    pred_sum = np.zeros(big_n)
    for j in range(k):
        train = fold != j
        f = predict(np.flatnonzero(train))
        pred_sum += f
        resid[~train] = yv[~train] - f[pos[~train]]
        total = 0.0
        for h in labels:
            in_h = stratum_all == h
            seen = in_h & in_sample & (fold_all != j)          # S_−k,h
            rest = in_h & ~seen                                # U_h ∖ S_−k,h
            test = (strata == h) & ~train                      # S_k,h
            total += yv[(strata == h) & train].sum() + rest.sum() * (
                f[rest].mean() + resid[test].mean())
        estimates[j] = total / big_n
    estimate = float(estimates.mean())
    # ---- variances (difference estimator and plain mean, same design)
    w_h = big_nh / big_n
    fpc = 1 - n_h / big_nh
    s2e = np.array([resid[strata == h].var(ddof=1) for h in labels])
    s2y = np.array([yv[strata == h].var(ddof=1) for h in labels])
    var = float((w_h**2 * fpc * s2e / n_h).sum())
    var_plain = float((w_h**2 * fpc * s2y / n_h).sum())
    se, se_plain = math.sqrt(var), math.sqrt(var_plain)
    t = float(stats.t.isf((1 - settings.level) / 2, n - labels.size))
    floor = yv.sum() / big_n
    ceiling = (yv.sum() + big_n - n) / big_n
    low, high = max(estimate - t * se, floor), min(estimate + t * se, ceiling)
    if var > 0:
        effective = n * var_plain / var
    else:
        effective = float(big_n if var_plain > 0 else n)
    plain = float(yv.mean()) if labels.size == 1 else float((w_h * np.array(
        [yv[strata == h].mean() for h in labels])).sum())
    w_low, w_high = wilson(np.array([plain * n]), np.array([float(n)]), settings.level)
    full = predict(np.arange(n))
    return SubsetEstimate(
        estimate=estimate, low=float(low), high=float(high), se=se, n=n,
        n_population=big_n, subset_mean=plain, subset_low=float(w_low[0]),
        subset_high=float(w_high[0]), subset_se=se_plain, effective_n=float(effective),
        predicted_mean=float(full.mean()), design=method,
        design_based=design is None or design.design_based, n_folds=k,
        n_strata=int(labels.size), predictor=_predictor_name(settings.predictor),
        predictions=pd.Series(pred_sum / k, index=items), settings=settings)


def _make_predictor(predictor: Any, model: IRTResult | None, wide: pd.DataFrame | None,
                    items: pd.Index, y: pd.Series,
                    pos: np.ndarray) -> Callable[[np.ndarray], np.ndarray]:
    """sample indices → predictions of every item in ``items`` order, from those answers."""
    yv = y.to_numpy(dtype=float)
    if isinstance(predictor, str):
        not_binary = ~np.isin(yv, (0.0, 1.0))
        if not_binary.any():
            i = int(np.argmax(not_binary))
            raise VerdictError(
                f"estimate_from_subset: responses must be 0/1 for an item response model "
                f"predictor (predictor={predictor!r}); item {y.index[i]!r} has value "
                f"{yv[i]:g} ({int(not_binary.sum())} such item(s)); binarise first, or pass a "
                f"predictor function")
        if model is None:
            assert wide is not None
            with warnings.catch_warnings():  # the excluded items are counted in the result
                warnings.simplefilter("ignore", RangerWarning)
                model = irt(wide, model=predictor)
        # IRTResult.predict on arrays: the same ability (ML, WLE when extreme) and P_i
        a, b = model.discrimination.to_numpy(), model.difficulty.to_numpy()
        to_fit = model.difficulty.index.get_indexer(items)
        excluded = np.array([1.0 if model.excluded_items.get(i) == "all-correct" else 0.0
                             for i in items])
        sample_fit = to_fit[pos]

        def by_irt(sel: np.ndarray) -> np.ndarray:
            fit_pos = sample_fit[sel]
            keep = fit_pos >= 0
            if not keep.any():
                raise VerdictError("estimate_from_subset: a fold's training answers are all on "
                                   "items every past system got right or wrong (not estimable)"
                                   "; use fewer folds or more items")
            theta = ability_one(yv[sel][keep], a[fit_pos[keep]], b[fit_pos[keep]])[0]
            p = special.expit(a * (theta - b))
            return np.where(to_fit >= 0, p[np.maximum(to_fit, 0)], excluded)
        return by_irt

    def by_function(sel: np.ndarray) -> np.ndarray:
        out = predictor(wide, y.iloc[sel].copy())
        if isinstance(out, pd.Series):
            arr = out.reindex(items).to_numpy(dtype=float)
        else:
            arr = np.asarray(out, dtype=float).ravel()
        if arr.size != items.size or not np.isfinite(arr).all():
            raise VerdictError(f"estimate_from_subset: the predictor must return a finite "
                               f"prediction for each of the {items.size} items; got "
                               f"{arr.size} values ({int((~np.isfinite(arr)).sum())} not "
                               f"finite)")
        return arr
    return by_function


# --------------------------------------------------------------------------- choose
def choose_subset(history: Any, n: int, *, method: str = _CHOOSE.method,
                  n_strata: int = _CHOOSE.n_strata, seed: int = _CHOOSE.seed,
                  settings: ChooseSubsetSettings | None = None) -> SubsetChoice:
    """Choose ``n`` of a benchmark's items to run a new system on, by a stated design.

    Validity rule: ``method="random"`` (a simple random sample without replacement) and
    ``method="stratified"`` (strata of equal size by the items' mean in the history,
    n_h ∝ N_h by largest remainders with at least 2 per stratum, a simple random sample in
    each) are probability samples: :func:`estimate_from_subset` with the returned design gives
    an interval valid for any predictor. ``method="anchor"`` (the items nearest the centres of
    k-means with n clusters on the history's item columns, Polo et al. 2024's anchor points)
    chooses items from the history, not at random: the estimate from them is a model
    prediction without a design-based guarantee (the design says ``design_based=False`` and the
    estimate warns).

    Parameters
    ----------
    history : DataFrame, array or long table
        Past systems × items results on the whole benchmark.
    n : int
        Items to choose, 2 ≤ n ≤ N.
    method : {'random', 'stratified', 'anchor'}, default 'random'
        The design.
    n_strata : int, default 5
        Strata of the stratified design.
    seed : int, default 0
        Seed of the draw (and of k-means).
    settings : ChooseSubsetSettings, optional
        All of the above at once.

    Returns
    -------
    SubsetChoice

    Raises
    ------
    VerdictError
        n outside [2, N], or fewer than 2 items per stratum.

    Examples
    --------
    >>> import numpy as np, ranger_eval as rg
    >>> history = (np.random.default_rng(0).random((20, 50)) < 0.6).astype(int)
    >>> choice = rg.choose_subset(history, 10, method="stratified", n_strata=2)
    >>> choice.n, choice.design_based, sorted(choice.to_frame().stratum.value_counts())
    (10, True, [5, 5])
    """
    settings = resolve_settings(ChooseSubsetSettings, {
        "method": method, "n_strata": n_strata, "seed": seed}, settings, where="choose_subset")
    wide = wide_table(history, where="choose_subset")
    items = pd.Index(wide.columns)
    big_n = items.size
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or not 2 <= n <= big_n:
        raise VerdictError(f"choose_subset: n must be a whole number of items from 2 to the "
                           f"benchmark's {big_n}; got {n!r}")
    n = int(n)
    rng = np.random.default_rng(settings.seed)
    strata: pd.Series | None = None
    if settings.method == "random":
        chosen = rng.choice(big_n, n, replace=False)
    elif settings.method == "stratified":
        h_count = settings.n_strata
        if n < 2 * h_count or big_n < 2 * h_count:
            raise VerdictError(f"choose_subset: a stratified sample needs at least 2 items per "
                               f"stratum: n={n} is below 2 × n_strata={h_count}")
        label = _strata_labels(wide, h_count)
        sizes = np.bincount(label, minlength=h_count)
        alloc = _allocate(n, sizes)
        chosen = np.concatenate([rng.choice(np.flatnonzero(label == h), alloc[h],
                                            replace=False) for h in range(h_count)])
        strata = pd.Series(label, index=items, name="stratum")
    else:
        x = np.nan_to_num(wide.to_numpy(dtype=float), nan=0.5).T
        with warnings.catch_warnings():  # an empty cluster is refilled below
            warnings.simplefilter("ignore")
            centres, _ = kmeans2(x, n, minit="++", seed=rng)
        dist = ((x[:, None, :] - centres[None, :, :]) ** 2).sum(-1) if big_n * n <= 4_000_000 \
            else None
        taken: list[int] = []
        used = np.zeros(big_n, dtype=bool)
        for c in range(n):
            d = dist[:, c] if dist is not None else ((x - centres[c]) ** 2).sum(1)
            d = np.where(used, np.inf, d)
            pick = int(np.argmin(d))
            used[pick] = True
            taken.append(pick)
        chosen = np.array(taken)
    return SubsetChoice(items=tuple(items[chosen]), method=settings.method, n=n,
                        n_population=big_n, strata=strata, settings=settings)


def _strata_labels(wide: pd.DataFrame, n_strata: int) -> np.ndarray:
    """The stratum of every item: ``n_strata`` strata of (near-)equal size by the item's mean
    in the history (stable order, so ties keep the column order)."""
    mean = np.nan_to_num(wide.to_numpy(dtype=float).mean(0), nan=0.5)
    order = np.argsort(mean, kind="stable")
    label = np.empty(wide.shape[1], dtype=np.int64)
    for h, part in enumerate(np.array_split(order, n_strata)):
        label[part] = h
    return label


def _allocate(n: int, sizes: np.ndarray) -> np.ndarray:
    """n_h ∝ N_h by largest remainders, at least 2 and at most N_h per stratum."""
    quota = n * sizes / sizes.sum()
    alloc = np.maximum(np.floor(quota).astype(np.int64), 2)
    alloc = np.minimum(alloc, sizes)
    while alloc.sum() > n:
        h = int(np.argmax(np.where(alloc > 2, alloc - quota, -np.inf)))
        alloc[h] -= 1
    while alloc.sum() < n:
        h = int(np.argmax(np.where(alloc < sizes, quota - alloc, -np.inf)))
        alloc[h] += 1
    return alloc
