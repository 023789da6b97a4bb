"""Cross-dataset effect estimation (Søgaard 2013): error reduction, five estimators side by side,
and the held-out predictive check.

Søgaard (2013), *Estimating effect size across datasets*, NAACL-HLT, asks which summary of the
per-dataset effects of a treatment over a control best predicts the effect on **new** datasets.

* :func:`error_reduction` — the effect ``T_i`` of §2–3, the relative reduction of the control's
  error on each dataset, with its paired-bootstrap variance (in
  :mod:`ranger_eval.aggregate.errorreduction`, re-exported here).

* :func:`cross_dataset_estimates` — five estimates of the effect across datasets, with the
  Anderson–Darling normality check Søgaard used (§2.3):

  - ``macro``: the plain mean of ``y_i``;
  - ``micro``: the mean weighted by the dataset sizes ``n_i``;
  - ``fixed``: the fixed-effect (inverse-variance) estimate, §2.1, via
    :func:`ranger_eval.meta_analysis` (``method="FE"``);
  - ``random``: the random-effects estimate, §2.2 (DerSimonian–Laird τ², eq. 1, by default; any
    τ² estimator of :func:`ranger_eval.meta_analysis`);
  - ``gumbel``: Søgaard's Gumbel estimator, §2.3 (see :func:`cross_dataset_estimates`).

* :func:`predictive_check` — Søgaard's evaluation (§3, Figures 2–3): draw k datasets to estimate
  from and ``n_test`` other datasets, compare each estimate with the observed mean effect on the
  held-out datasets, repeat, and compare the absolute errors with the macro-average's by Wilcoxon
  signed-rank tests.

Randomness is seeded and reproducible: the bootstrap of dataset ``name`` uses
``numpy.random.default_rng([seed, 0, zlib.crc32(name.encode("utf-8"))])`` (so a dataset's variance
does not depend on which other datasets are analysed, nor on their order), with one
``integers(0, n, size=(n_resamples, n))`` index matrix over the items in ``Scores.pair`` order
(sorted item ids), drawn in row batches of bounded size (the same numbers as one call). The
held-out draws use ``numpy.random.default_rng([seed, 1])``: for each k in the order given, one
``permuted(tile(arange(D), (n_resamples, 1)), axis=1)`` call, whose first k columns are the estimation
datasets and next ``n_test`` columns the held-out ones (indices into the effects' datasets).
"""
from __future__ import annotations

import functools
import inspect
import math
import warnings
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from .._lazymodule import lazy_module
from ..effects import effect_sizes
from ..errors import AggregateError, Hint, renamed_keywords
from ..formatting import format_level, format_pvalue
from ..meta import MetaResult, meta_analysis
from ..scores import as_scores
from ..settings import (
    CROSS_DATASET_EFFECTS,
    CrossDatasetSettings,
    PredictiveCheckSettings,
    resolve_settings,
)
from ..signature import Signature, make_signature
from .errorreduction import (
    MEASURE,
    ErrorReduction,
    _readonly,
    error_reduction,
)

stats = lazy_module("scipy.stats")  # imported on first use: it is slow to import

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.figure import Figure

__all__ = [
    "ESTIMATORS",
    "ESTIMATOR_LABELS",
    "anderson_darling",
    "CrossDatasetEstimates",
    "ErrorReduction",
    "PredictiveCheck",
    "cross_dataset_estimates",
    "error_reduction",
    "gumbel_fit",
    "predictive_check",
]

#: The dataset sizes of the micro-average (no option of the command line: the Python API's).
_SIZES = Hint("sizes")
#: Estimators, in the order of every table (Søgaard's Figures 2–3 columns, plus micro).
ESTIMATORS: tuple[str, ...] = ("macro", "micro", "fixed", "random", "gumbel")
#: Names drawn in figures and printed tables.
ESTIMATOR_LABELS: dict[str, str] = {
    "macro": "macro-average",
    "micro": "micro-average",
    "fixed": "fixed effect",
    "random": "random effects",
    "gumbel": "Gumbel (Søgaard)",
}
#: The per-dataset effects predictive_check computes from scores (the settings' choices).
EFFECTS: tuple[str, ...] = CROSS_DATASET_EFFECTS
assert EFFECTS[0] == MEASURE
#: the defaults of the keywords: those of the settings objects (one place)
_DEFAULT_CD = CrossDatasetSettings()
_DEFAULT_PC = PredictiveCheckSettings()
EULER_GAMMA = float(np.euler_gamma)  # Søgaard writes 0.57721
_MIN_AD = 3  # fewest values on which the Anderson–Darling test is computed
_AD_NORM_5 = 0.752  # Stephens (1974) / D'Agostino & Stephens (1986), as scipy.stats.anderson
_AD_GUMBEL_5 = 0.757
_EPS = float(np.finfo(float).eps)


# =============================================================================== validation
def _draw_rng(seed: int) -> np.random.Generator:
    return np.random.default_rng([seed, 1])


# =============================================================================== Gumbel fit
def _gumbel_mle(x: np.ndarray, max_iter: int = 200) -> tuple[np.ndarray, np.ndarray]:
    """Row-wise maximum-likelihood ``(loc, scale)`` of ``scipy.stats.gumbel_r`` (vectorised).

    For a sample x the ML scale β solves ``β = mean(x) − Σ x e^{−x/β} / Σ e^{−x/β}`` (Evans,
    Hastings & Peacock 2000, p. 101; the equation ``gumbel_r.fit`` solves) and then
    ``loc = −β log(mean(e^{−x/β}))``. Each row is shifted by its minimum and divided by its range
    (the fit is location–scale equivariant), so the scale equation in ``b`` reads
    ``f(b) = b − mean(z) + Σ z e^{−z/b} / Σ e^{−z/b} = 0`` with ``z ∈ [0, 1]``. ``f`` is strictly
    increasing (``f' = 1 + Var_w(z)/b² > 0``) with ``f(0+) = −mean(z) < 0 ≤ f(mean(z))``, so the
    root is unique and bracketed; it is found by Newton steps safeguarded by bisection to machine
    precision. Rows whose values are all equal have the degenerate fit ``(value, 0)``.
    """
    x = np.atleast_2d(np.asarray(x, dtype=np.float64))
    lo_x = x.min(axis=1)
    span = x.max(axis=1) - lo_x
    flat = ~(span > 0.0)
    s = np.where(flat, 1.0, span)
    z = (x - lo_x[:, None]) / s[:, None]
    zbar = z.mean(axis=1)
    lo = np.zeros_like(zbar)
    hi = np.where(flat, 1.0, zbar)
    b = np.clip(math.sqrt(6.0) / math.pi * z.std(axis=1), 0.05 * hi, hi)  # moments start
    b = np.where(flat, 1.0, b)
    for _ in range(max_iter):
        e = np.exp(-z / b[:, None])
        se = e.sum(axis=1)
        m1 = (z * e).sum(axis=1) / se
        m2 = (z * z * e).sum(axis=1) / se
        f = b - zbar + m1
        fp = 1.0 + np.maximum(m2 - m1 * m1, 0.0) / (b * b)
        neg = f < 0.0
        lo = np.where(neg, b, lo)
        hi = np.where(neg, hi, b)
        new = b - f / fp
        outside = (new <= lo) | (new > hi)
        new = np.where(outside, 0.5 * (lo + hi), new)
        done = flat | (np.abs(new - b) <= 2.0 * _EPS * b) | (hi - lo <= 2.0 * _EPS * hi)
        b = np.where(flat, 1.0, new)
        if done.all():
            break
    # loc in the shifted/scaled units: −b·log(mean e^{−z/b}); mean ≥ 1/k since min z = 0
    loc_z = -b * np.log(np.exp(-z / b[:, None]).mean(axis=1))
    loc = np.where(flat, lo_x, lo_x + s * loc_z)
    scale = np.where(flat, 0.0, s * b)
    return loc, scale


def gumbel_fit(x: Any) -> tuple[float, float]:
    """Maximum-likelihood ``(loc, scale)`` of a right-skewed Gumbel (``scipy.stats.gumbel_r``)
    fitted to the sample ``x`` — the same estimates as ``scipy.stats.gumbel_r.fit(x)``, solved to
    machine precision (see :func:`_gumbel_mle`). All-equal values give ``(value, 0.0)``; one value
    is valid.

    Parameters
    ----------
    x : array_like of float
        The sample (flattened); at least one finite value.

    Returns
    -------
    tuple of float
        ``(loc, scale)``, the fitted α and β.

    Raises
    ------
    AggregateError
        An empty sample or a non-finite value.

    References
    ----------
    Evans, M., Hastings, N. & Peacock, B. (2000), *Statistical Distributions*, 3rd ed., Wiley
    (the maximum-likelihood equations of the Gumbel distribution).

    Examples
    --------
    >>> from ranger_eval.aggregate.crossdataset import gumbel_fit
    >>> loc, scale = gumbel_fit([0.1, 0.4, 0.2, 0.9, 0.3])
    >>> round(loc, 6), round(scale, 6)
    (0.258445, 0.187258)
    >>> gumbel_fit([2.0, 2.0])
    (2.0, 0.0)
    """
    arr = np.asarray(x, dtype=np.float64).reshape(-1)
    if arr.size == 0 or not np.isfinite(arr).all():
        raise AggregateError(f"gumbel_fit needs finite values; got {arr!r}")
    loc, scale = _gumbel_mle(arr[None, :])
    return float(loc[0]), float(scale[0])


# =============================================================================== normality checks
@functools.cache
def _anderson_has_method() -> bool:
    return "method" in inspect.signature(stats.anderson).parameters


def _ad_critical_5(dist: str, n: int) -> float:
    """5% critical value of the Anderson–Darling statistic with estimated parameters (Stephens
    1974, 1977; D'Agostino & Stephens 1986): the tables and small-sample factors of
    ``scipy.stats.anderson`` (whose ``critical_values`` scipy ≥ 1.17 deprecates)."""
    if dist == "norm":
        return round(_AD_NORM_5 / (1.0 + 0.75 / n + 2.25 / n / n), 3)
    return round(_AD_GUMBEL_5 / (1.0 + 0.2 / math.sqrt(n)), 3)


def anderson_darling(x: Any, dist: str = "norm") -> tuple[float, float]:
    """``(A², 5% critical value)`` of the Anderson–Darling test of ``x`` against ``dist`` ("norm"
    or "gumbel_r", parameters estimated): the statistic of ``scipy.stats.anderson``. ``(nan, nan)``
    with fewer than 3 values or no spread (the test is undefined there).

    Parameters
    ----------
    x : array_like of float
        The sample (flattened).
    dist : {"norm", "gumbel_r"}, default "norm"
        The distribution tested against.

    Returns
    -------
    tuple of float
        ``(A², critical value at 5%)``; the distribution is rejected at 5% when A² exceeds it.

    References
    ----------
    Stephens, M. A. (1974), "EDF statistics for goodness of fit and some comparisons", JASA
    69:730–737. D'Agostino, R. B. & Stephens, M. A. (1986), *Goodness-of-Fit Techniques*, Dekker.

    Examples
    --------
    >>> from ranger_eval.aggregate.crossdataset import anderson_darling
    >>> a2, crit = anderson_darling([0.1, 0.4, 0.2, 0.9, 0.3])
    >>> round(a2, 4), crit
    (0.4015, 0.606)
    >>> anderson_darling([1.0, 2.0])
    (nan, nan)
    """
    arr = np.asarray(x, dtype=np.float64).reshape(-1)
    span = float(np.ptp(arr)) if arr.size else 0.0
    if arr.size < _MIN_AD or not span > 0.0:
        return math.nan, math.nan
    # A² is invariant to location and scale (both parameters are estimated); standardising first
    # keeps scipy's fits away from overflow and underflow (effects of 1e-300 or 1e300)
    arr = (arr - arr.min()) / span
    try:
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            if _anderson_has_method():
                res = stats.anderson(arr, dist=dist, method="interpolate")
            else:  # pragma: no cover - scipy < 1.17
                warnings.simplefilter("ignore")
                res = stats.anderson(arr, dist=dist)
        stat = float(res.statistic)
    except (ValueError, ArithmeticError, RuntimeError):  # pragma: no cover - defensive
        return math.nan, math.nan
    if not math.isfinite(stat):  # pragma: no cover - defensive
        return math.nan, math.nan
    return stat, _ad_critical_5(dist, arr.size)


def _not_rejected(stat: float, crit: float) -> Any:
    return pd.NA if math.isnan(stat) else bool(stat < crit)


# =============================================================================== estimators
@dataclass(frozen=True)
class _Input:
    names: tuple[str, ...]
    y: np.ndarray
    v: np.ndarray
    n: np.ndarray | None  # None: sizes unknown
    measure: str | None


def _as_input(effects: Any, sizes: Any = None, *, need_sizes: bool = True) -> _Input:
    missing = [a for a in ("yi", "vi", "names") if not hasattr(effects, a)]
    if missing:
        raise AggregateError(
            "effects must be an ErrorReduction or EffectSizes (anything with yi, vi, n, names); "
            f"{type(effects).__name__} has no {', '.join(missing)}"
        )
    names = tuple(str(x) for x in effects.names)
    k = len(names)
    if k == 0:
        raise AggregateError("effects holds no dataset")
    if len(set(names)) != k:
        raise AggregateError(f"dataset names repeat: {list(names)}")
    y = np.asarray(effects.yi, dtype=np.float64).reshape(-1)
    v = np.asarray(effects.vi, dtype=np.float64).reshape(-1)
    if y.size != k or v.size != k:
        raise AggregateError(f"effects has {k} names but {y.size} yi and {v.size} vi")
    for arr, label in ((y, "yi"), (v, "vi")):
        bad = np.flatnonzero(~np.isfinite(arr))
        if bad.size:
            raise AggregateError(f"{label} of dataset {names[bad[0]]!r} is {float(arr[bad[0]])!r}; "
                                 f"{label} must be finite")
    bad = np.flatnonzero(v <= 0.0)
    if bad.size:
        raise AggregateError(
            f"vi of dataset {names[bad[0]]!r} is {float(v[bad[0]])!r}: the fixed-effect, "
            "random-effects and Gumbel estimators weight by 1/vi and need vi > 0"
            + (f" ({bad.size} datasets)" if bad.size > 1 else "")
        )
    n_arr: np.ndarray | None
    if sizes is not None:
        if isinstance(sizes, Mapping):
            absent = [x for x in names if x not in sizes]
            if absent:
                raise AggregateError(f"sizes has no entry for dataset(s) {absent}")
            raw = [sizes[x] for x in names]
        else:
            raw = list(sizes)
        n_arr = np.asarray(raw, dtype=np.float64).reshape(-1)
        if n_arr.size != k:
            raise AggregateError(f"sizes has {n_arr.size} entries but there are {k} datasets")
    else:
        n_raw = getattr(effects, "n", None)
        n_arr = None if n_raw is None else np.asarray(n_raw, dtype=np.float64).reshape(-1)
        if n_arr is not None and n_arr.size != k:
            raise AggregateError(f"effects has {k} names but {n_arr.size} sizes n")
    if n_arr is not None:
        bad = np.flatnonzero(~(np.isfinite(n_arr) & (n_arr > 0)))
        if bad.size:
            if not need_sizes and np.isnan(n_arr).all():
                n_arr = None
            else:
                raise AggregateError(
                    f"the size of dataset {names[bad[0]]!r} is {float(n_arr[bad[0]])!r}; "
                    f"the micro-average weights by dataset size and needs sizes > 0 "
                    f"({_SIZES.text})", hints=[_SIZES]
                )
    if n_arr is None and need_sizes:
        raise AggregateError(f"the micro-average needs dataset sizes: effects has no n; "
                             f"{_SIZES.text}", hints=[_SIZES])
    return _Input(names, y, v, n_arr, getattr(effects, "measure", None))


@dataclass(frozen=True, eq=False)
class CrossDatasetEstimates:
    """The five cross-dataset estimates of one set of per-dataset effects, side by side.

    ``table`` (also ``to_frame()``): one row per estimator (:data:`ESTIMATORS`) with ``estimate``,
    ``se``, ``ci_low``, ``ci_high``, ``detail`` (how it was computed) and the Anderson–Darling test
    of normality of the estimator's input (``ad_input``: the effects ``y`` or the weighted effects
    ``n·y``, ``y/v``, ``y/(v+τ²)`` the estimator averages; ``ad_statistic``, ``ad_critical_5``,
    ``normal`` = not rejected at 5%, NA with fewer than 3 datasets). ``goodness_of_fit``: the same
    test against the normal and the Gumbel distribution for each input (Søgaard §2.3).
    ``fixed``/``random`` are the :class:`~ranger_eval.meta.MetaResult` fits; ``gumbel_loc``,
    ``gumbel_scale`` the fitted α, β and ``gumbel_mean_weight`` the mean weight w̄.
    """

    table: pd.DataFrame
    goodness_of_fit: pd.DataFrame
    names: tuple[str, ...]
    yi: np.ndarray
    vi: np.ndarray
    sizes: np.ndarray
    measure: str | None
    method: str
    level: float
    gumbel_weights: str
    fixed: MetaResult
    random: MetaResult
    gumbel_loc: float
    gumbel_scale: float
    gumbel_mean_weight: float
    signature: Signature
    #: the settings object of the call that made this result (:func:`cross_dataset_estimates`)
    settings: CrossDatasetSettings | None = field(default=None, compare=False, repr=False)

    @property
    def k(self) -> int:
        return len(self.names)

    @property
    def estimates(self) -> pd.Series:
        """``estimate`` by estimator."""
        return self.table.set_index("estimator")["estimate"].copy()

    def to_frame(self) -> pd.DataFrame:
        return self.table.copy()

    def summary(self, digits: int = 4) -> str:
        lvl = format_level(self.level)
        lines = [f"Cross-dataset estimates ({self.measure or 'effect'}, k = {self.k}, {lvl} CI)"]
        for r in self.table.to_dict("records"):
            stat = float(r["ad_statistic"])
            normal = "normal" if r["normal"] is True else "not normal"
            ad = "" if math.isnan(stat) else (
                f"  AD({r['ad_input']}) = {stat:.3f} vs {float(r['ad_critical_5']):.3f}: {normal}")
            lines.append(f"  {ESTIMATOR_LABELS[str(r['estimator'])]:<18} "
                         f"{float(r['estimate']): .{digits}f} [{float(r['ci_low']): .{digits}f}, "
                         f"{float(r['ci_high']): .{digits}f}]{ad}")
        lines.append(str(self.signature))
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.summary()


def _gumbel_estimate(
    y: np.ndarray, w: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Row-wise Gumbel estimate: (estimate, sd on the effect scale, α, β, w̄)."""
    loc, scale = _gumbel_mle(w * y)
    wbar = w.mean(axis=1)
    est = (loc + EULER_GAMMA * scale) / wbar
    sd = math.pi / math.sqrt(6.0) * scale / wbar
    return est, sd, loc, scale, wbar


def cross_dataset_estimates(
    effects: Any,
    *,
    sizes: Any = None,
    method: str = _DEFAULT_CD.method,
    level: float = _DEFAULT_CD.level,
    gumbel_weights: str = _DEFAULT_CD.gumbel_weights,
    settings: CrossDatasetSettings | None = None,
) -> CrossDatasetEstimates:
    """Macro-average, micro-average, fixed effect, random effects and Søgaard's Gumbel estimate.

    ``effects``: an :class:`ErrorReduction` or ``EffectSizes`` (anything with ``yi``, ``vi`` > 0,
    ``n`` and ``names``); ``sizes`` overrides the dataset sizes ``n_i`` of the micro-average (a
    sequence aligned with ``names`` or a mapping name → size). With ``y_i`` the effects, ``v_i``
    their variances, ``z`` the normal quantile of ``level``:

    * ``macro`` = mean(y); ``se = sqrt(Σ v_i)/k`` (the datasets taken as fixed, like the FE model);
    * ``micro`` = Σ n_i y_i / Σ n_i; ``se = sqrt(Σ n_i² v_i)/Σ n_i``;
    * ``fixed`` = Σ w_i y_i / Σ w_i, ``w_i = 1/v_i``, ``se = 1/sqrt(Σ w_i)`` (Søgaard §2.1;
      ``meta_analysis(method="FE")``);
    * ``random`` = ``meta_analysis(method=method)`` (Søgaard §2.2 uses DerSimonian–Laird, eq. 1);
    * ``gumbel`` — Søgaard §2.3: "We fit a Gumbel distribution to our weighted error reductions
      (w_i T_i) and compute the combined effect T̂ = (α + 0.57721β) / ((1/M) Σ w_i) … and the
      variance of the combined effect v = π²/6 β²". Implemented as: (α, β) = the
      maximum-likelihood fit of ``scipy.stats.gumbel_r`` (right-skewed; density
      ``exp(−(z + e^{−z}))/β``, z = (x − α)/β — the paper's printed density drops a minus sign) to
      the k weighted effects ``x_i = w_i y_i`` with ``w_i = 1/v_i`` (the paper's §2.1 weights; with
      ``gumbel_weights="RE"``, ``1/(v_i + τ²)`` of the random-effects fit), equal to
      ``gumbel_r.fit(x)`` (see :func:`gumbel_fit`). The estimate is the mean of the fitted
      distribution divided by the mean weight: ``T̂ = (α + γβ)/w̄``, γ = 0.5772156649
      (Euler–Mascheroni), w̄ = mean(w_i) — i.e. the fixed-effect estimate ``mean(w y)/mean(w)``
      with the sample mean of the weighted effects replaced by the fitted Gumbel's mean. The
      interval is the paper's: its variance ``v = π²β²/6`` (the variance of the fitted
      distribution of the weighted effects) is brought to the effect scale by the same division
      by w̄, ``se = πβ/(√6·w̄)``, and the interval is ``T̂ ± z·se`` as for the fixed-effect model
      in §2.1 (Søgaard: "T̂ ± 1.96√v"). Note that v describes the spread of single weighted
      effects, not the sampling error of their mean, so this interval is wide — closer to a
      prediction interval than to the FE CI. All weighted effects equal give β = 0 and T̂ = the
      fixed-effect estimate; k = 1 gives y_1.

    Normality (Søgaard §2.3 used Anderson–Darling tests): ``scipy.stats.anderson`` on each
    estimator's input (see :class:`CrossDatasetEstimates`), with its 5% critical value.

    Parameters
    ----------
    effects : ErrorReduction or EffectSizes
        Anything with ``yi``, ``vi`` > 0, ``n`` and ``names``.
    sizes : sequence of int or mapping, optional
        The dataset sizes ``n_i`` of the micro-average (aligned with ``names``, or a mapping
        name → size); default the effects' ``n``.
    method : str, default "DL"
        The τ² estimator of the random-effects fit (any of :func:`ranger_eval.meta_analysis`).
    level : float, default 0.95
        Level of the intervals.
    gumbel_weights : {"FE", "RE"}, default "FE"
        The weights of the Gumbel estimator: ``1/v_i`` or ``1/(v_i + τ²)``.
    settings : CrossDatasetSettings, optional
        Instead of ``method``, ``level`` and ``gumbel_weights`` (a keyword other than its
        default next to it is a :class:`~ranger_eval.errors.SettingsError` naming the clash).

    Returns
    -------
    CrossDatasetEstimates
        ``table``: one row per estimator with ``estimate``, ``se``, ``ci_low``, ``ci_high``,
        ``detail`` and the Anderson–Darling check of its input; ``goodness_of_fit``; the
        ``fixed``/``random`` meta-analysis fits; ``gumbel_loc``, ``gumbel_scale``;
        ``.settings`` the settings object of the call.

    Raises
    ------
    AggregateError
        Non-finite effects, ``vi ≤ 0`` or missing sizes (naming the dataset); a bad ``method``,
        ``level`` or ``gumbel_weights`` (a :class:`~ranger_eval.errors.SettingsError`).

    References
    ----------
    Søgaard, A. (2013), "Estimating effect size across datasets", Proceedings of NAACL-HLT 2013. §2. DerSimonian, R. & Laird, N. (1986), "Meta-analysis in clinical
    trials", Controlled Clinical Trials 7:177–188.

    Examples
    --------
    >>> import numpy as np
    >>> import pandas as pd
    >>> import ranger_eval as rg
    >>> rng = np.random.default_rng(0)
    >>> old = rng.uniform(0.3, 0.9, size=(4, 20))
    >>> new = np.minimum(old + rng.uniform(0.0, 0.1, size=(4, 20)), 1.0)
    >>> df = pd.DataFrame({
    ...     "dataset": np.repeat([f"d{i}" for i in range(4)], 40), "metric": "acc",
    ...     "item": np.tile(np.arange(20), 2 * 4),
    ...     "system": np.tile(np.repeat(["new", "old"], 20), 4),
    ...     "value": np.stack([new, old], axis=1).ravel()})
    >>> er = rg.error_reduction(df, treatment="new", control="old", n_resamples=200, seed=1)
    >>> e = rg.cross_dataset_estimates(er)
    >>> e.table[["estimator", "estimate", "se"]].round(4)
      estimator  estimate      se
    0     macro    0.1396  0.0111
    1     micro    0.1396  0.0111
    2     fixed    0.1375  0.0107
    3    random    0.1384  0.0131
    4    gumbel    0.1382  0.0434
    """
    # one check, the settings': SettingsError (an AggregateError) naming the key and value
    settings = resolve_settings(CrossDatasetSettings, {
        "method": method, "level": level, "gumbel_weights": gumbel_weights}, settings,
        where="cross_dataset_estimates")
    method_c, level_f, gw = settings.method, settings.level, settings.gumbel_weights
    data = _as_input(effects, sizes)
    y, v, names = data.y, data.v, data.names
    assert data.n is not None
    n = data.n
    k = y.size
    z = float(stats.norm.ppf(0.5 + level_f / 2.0))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # k = 1: meta_analysis notes the fallback to z
        fe = meta_analysis(y, v, method="FE", level=level_f, names=names)
        re = meta_analysis(y, v, method=method_c, level=level_f, names=names)
    w_fe = 1.0 / v
    w_re = 1.0 / (v + re.tau2)
    w_g = w_fe if gw == "FE" else w_re
    g_est, g_sd, g_loc, g_scale, g_wbar = (
        float(a[0]) for a in _gumbel_estimate(y[None], w_g[None])
    )

    inputs = {"y": y, "n·y": n * y, "y/v": y * w_fe, "y/(v+τ²)": y * w_re}
    gw_input = "y/v" if gw == "FE" else "y/(v+τ²)"
    macro, micro = float(y.mean()), float(np.dot(n, y) / n.sum())
    se_macro = math.sqrt(float(v.sum())) / k
    se_micro = math.sqrt(float(np.dot(n * n, v))) / float(n.sum())
    rows = [
        ("macro", macro, se_macro, macro - z * se_macro, macro + z * se_macro,
         "mean of the effects; se = sqrt(Σv)/k", "y"),
        ("micro", micro, se_micro, micro - z * se_micro, micro + z * se_micro,
         "Σ n·y / Σ n; se = sqrt(Σ n²v)/Σ n", "n·y"),
        ("fixed", fe.estimate, fe.se, fe.ci_low, fe.ci_high,
         "inverse-variance weights 1/v (meta_analysis FE)", "y/v"),
        ("random", re.estimate, re.se, re.ci_low, re.ci_high,
         f"{method_c}, τ² = {re.tau2:.4g}, I² = {re.I2:.1f}% (meta_analysis)", "y/(v+τ²)"),
        ("gumbel", g_est, g_sd, g_est - z * g_sd, g_est + z * g_sd,
         f"gumbel_r ML fit to w·y, w = {'1/v' if gw == 'FE' else '1/(v+τ²)'}: "
         f"α = {g_loc:.6g}, β = {g_scale:.6g}; (α + γβ)/w̄, se = πβ/(√6 w̄)", gw_input),
    ]
    ad = {key: anderson_darling(vals, "norm") for key, vals in inputs.items()}
    table = pd.DataFrame(
        [
            {
                "estimator": est, "estimate": float(e), "se": float(s), "ci_low": float(lo),
                "ci_high": float(hi), "detail": detail, "ad_input": inp,
                "ad_statistic": ad[inp][0], "ad_critical_5": ad[inp][1],
                "normal": _not_rejected(*ad[inp]),
            }
            for est, e, s, lo, hi, detail, inp in rows
        ]
    )
    table["normal"] = table["normal"].astype("boolean")
    gof_rows = []
    for key, vals in inputs.items():
        for dist in ("norm", "gumbel_r"):
            stat, crit = ad[key] if dist == "norm" else anderson_darling(vals, dist)
            gof_rows.append({"input": key, "distribution": dist, "statistic": stat,
                             "critical_5": crit, "rejected": pd.NA if math.isnan(stat)
                             else bool(stat >= crit)})
    gof = pd.DataFrame(gof_rows)
    gof["rejected"] = gof["rejected"].astype("boolean")
    sig = make_signature("aggregate", {
        "measure": data.measure, "method": method_c, "level": level_f, "k": k,
        "weights": f"gumbel:{gw}",
    })
    return CrossDatasetEstimates(
        table=table, goodness_of_fit=gof, names=names, yi=_readonly(y), vi=_readonly(v),
        sizes=_readonly(n), measure=data.measure, method=method_c, level=level_f,
        gumbel_weights=gw, fixed=fe, random=re, gumbel_loc=g_loc, gumbel_scale=g_scale,
        gumbel_mean_weight=g_wbar, signature=sig, settings=settings,
    )


# =============================================================================== predictive check
def _dl_rows(y: np.ndarray, v: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Row-wise DerSimonian–Laird ``(estimate, τ²)``, the formulas of
    ``meta_analysis(method="DL")``: τ² = max(0, (Q − (k−1))/trP), Q = Σ w (y − ŷ_FE)²,
    trP = Σ w − Σ w²/Σ w (computed as Σ w_i Σ_{j≠i} w_j / Σ w, without cancellation),
    estimate = Σ w̃ y / Σ w̃ with w̃ = 1/(v + τ²)."""
    k = y.shape[1]
    if k == 1:
        return y[:, 0].copy(), np.zeros(y.shape[0])
    w = 1.0 / v
    sw = w.sum(axis=1)
    mu = (w * y).sum(axis=1) / sw
    q = (w * (y - mu[:, None]) ** 2).sum(axis=1)
    q[(y == y[:, :1]).all(axis=1)] = 0.0
    pre = np.concatenate((np.zeros((w.shape[0], 1)), np.cumsum(w[:, :-1], axis=1)), axis=1)
    rev = np.cumsum(w[:, ::-1][:, :-1], axis=1)[:, ::-1]
    suf = np.concatenate((rev, np.zeros((w.shape[0], 1))), axis=1)
    trp = (w * (pre + suf)).sum(axis=1) / sw
    tau2 = np.maximum(0.0, (q - (k - 1)) / trp)
    wt = 1.0 / (v + tau2[:, None])
    return (wt * y).sum(axis=1) / wt.sum(axis=1), tau2


def _estimates_rows(
    y: np.ndarray, v: np.ndarray, n: np.ndarray, method: str, gumbel_weights: str
) -> dict[str, np.ndarray]:
    """Every estimator on each row of the (splits × k) matrices."""
    w = 1.0 / v
    out = {
        "macro": y.mean(axis=1),
        "micro": (n * y).sum(axis=1) / n.sum(axis=1),
        "fixed": (w * y).sum(axis=1) / w.sum(axis=1),
    }
    if method == "DL":
        out["random"], tau2 = _dl_rows(y, v)
    elif method == "FE":
        out["random"], tau2 = out["fixed"].copy(), np.zeros(y.shape[0])
    else:
        fits = []
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for yr, vr in zip(y, v, strict=True):
                fits.append(meta_analysis(yr, vr, method=method))
        out["random"] = np.array([f.estimate for f in fits])
        tau2 = np.array([f.tau2 for f in fits])
    wg = w if gumbel_weights == "FE" else 1.0 / (v + tau2[:, None])
    out["gumbel"] = _gumbel_estimate(y, wg)[0]
    return out


def _paired_differences(a: np.ndarray, b: np.ndarray, scale: np.ndarray) -> np.ndarray:
    """``a − b`` with differences within rounding of zero set to 0: estimators that agree up to
    rounding (micro = macro with equal sizes) must tie, not win. Rounding is judged against
    ``scale``, the magnitude of the estimates and the observed effect the errors come from
    (256 ulp of it, ~6e-14 relative)."""
    d = a - b
    return np.where(np.abs(d) <= 256.0 * _EPS * scale, 0.0, d)


def _wilcoxon(d: np.ndarray) -> tuple[float, float]:
    """Two-sided Wilcoxon signed-rank test of paired differences ``d`` (``scipy.stats.wilcoxon``,
    zero differences dropped, its default). When every difference is zero the errors are
    identical: ``(nan, 1.0)``."""
    if not np.any(d):
        return math.nan, 1.0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # few non-zero differences: scipy's normal-approx note
        res = stats.wilcoxon(d)
    return float(res.statistic), float(res.pvalue)


@dataclass(frozen=True, eq=False)
class PredictiveCheck:
    """Søgaard's held-out evaluation of the cross-dataset estimators (§3, Figures 2–3).

    ``errors``: one row per (k, repeat, estimator) with ``estimate`` (from the k estimation
    datasets), ``observed`` (mean effect of the ``n_test`` held-out datasets), ``error`` =
    estimate − observed and ``abs_error``; ``repeat`` numbers the split (0 to n_resamples − 1).
    ``to_frame()``: per k and estimator the number of splits ``n_resamples``, the mean absolute
    error ``mae``, its ``sd`` (ddof = 1) and ``se`` = sd/√n_resamples, the mean signed error, the
    share of splits in which the estimator beats the macro-average (``wins``), and the two-sided
    Wilcoxon signed-rank test of its absolute errors against the macro-average's
    (``wilcoxon_statistic``, ``pvalue``; NaN for the macro-average itself). ``summary()``: the
    paper's layout. ``draws[k]``: the (n_resamples × (k + n_test)) dataset indices (estimation
    columns first). ``effects``: the per-dataset effects all draws use (an error reduction's
    bootstrap count is ``effects.n_resamples``). ``n_resamples``: the random splits per k.
    """

    errors: pd.DataFrame
    table: pd.DataFrame
    effects: Any
    names: tuple[str, ...]
    k: tuple[int, ...]
    n_test: int
    n_resamples: int
    seed: int
    effect: str
    method: str
    gumbel_weights: str
    draws: Mapping[int, np.ndarray]
    treatment: str | None
    control: str | None
    signature: Signature
    #: the settings object of the call that made this result (:func:`predictive_check`)
    settings: PredictiveCheckSettings | None = field(default=None, compare=False, repr=False)

    def to_frame(self) -> pd.DataFrame:
        return self.table.copy()

    def summary(self) -> pd.DataFrame:
        """Søgaard's Figure 2–3 layout: rows (k, "mae" | "sd" | "pvalue"), one column per estimator;
        p-values are Wilcoxon signed-rank tests against the macro-average."""
        t = self.table
        parts = []
        for stat in ("mae", "sd", "pvalue"):
            wide = t.pivot(index="k", columns="estimator", values=stat)
            wide["statistic"] = stat
            parts.append(wide.reset_index())
        out = pd.concat(parts, ignore_index=True)
        order = {"mae": 0, "sd": 1, "pvalue": 2}
        out["_o"] = out["statistic"].map(order)
        ks = {k: i for i, k in enumerate(self.k)}
        out["_k"] = out["k"].map(ks)
        out = out.sort_values(["_k", "_o"]).drop(columns=["_o", "_k"])
        out = out.set_index(["k", "statistic"])[list(ESTIMATORS)]
        out.columns.name = None
        return out

    def best(self) -> pd.Series:
        """The estimator with the lowest mean absolute error, by k."""
        t = self.table
        idx = t.groupby("k", sort=False)["mae"].idxmin()
        return t.loc[idx].set_index("k")["estimator"]

    def __str__(self) -> str:
        who = "" if self.treatment is None else f" of {self.treatment!r} over {self.control!r}"
        lines = [
            f"Predictive check ({self.effect}{who}): {self.n_resamples} draws per k of k datasets, "
            f"each evaluated on {self.n_test} other datasets (of {len(self.names)})",
            f"{'k':>4}  " + "  ".join(f"{ESTIMATOR_LABELS[e]:>18}" for e in ESTIMATORS),
        ]
        t = self.table.set_index(["k", "estimator"])
        for k in self.k:
            cells = []
            for e in ESTIMATORS:
                r = t.loc[(k, e)]
                p = ("" if math.isnan(r["pvalue"])
                     else f" ({format_pvalue(r['pvalue'], 2, prefix='p=')})")
                cells.append(f"{r['mae']:.4f}{p}".rjust(18))
            lines.append(f"{k:>4}  " + "  ".join(cells))
        lines.append("mean absolute error; p: Wilcoxon signed-rank test vs the macro-average")
        lines.append(str(self.signature))
        return "\n".join(lines)

    def plot(self, **kwargs: Any) -> Figure:
        """Mean absolute error against k (:func:`ranger_eval.plots.predictive.predictive_plot`)."""
        from ..plots.predictive import predictive_plot

        return predictive_plot(self, **kwargs)


def _check_ks(out: tuple[int, ...], n_test: int, d: int) -> tuple[int, ...]:
    """The k values (already checked by the settings) against the number of datasets ``d``."""
    too_big = [x for x in out if x + n_test > d]
    if too_big:
        raise AggregateError(
            f"k = {too_big[0]} estimation datasets plus n_test = {n_test} held-out datasets need "
            f"{too_big[0] + n_test} datasets, but there are only {d}"
        )
    return out


@renamed_keywords(repeats="n_resamples")
def predictive_check(
    scores: Any,
    *,
    treatment: str | None = None,
    control: str | None = None,
    k: int | Iterable[int] = _DEFAULT_PC.k,
    n_test: int = _DEFAULT_PC.n_test,
    n_resamples: int = _DEFAULT_PC.n_resamples,
    seed: int = _DEFAULT_PC.seed,
    effect: str = _DEFAULT_PC.effect,
    method: str = _DEFAULT_PC.method,
    metric: str | None = None,
    gumbel_weights: str = _DEFAULT_PC.gumbel_weights,
    settings: PredictiveCheckSettings | None = None,
) -> PredictiveCheck:
    """Søgaard's held-out predictive check of the five estimators (§3, Figures 2–3).

    "In each experiment we randomly select k datasets and estimate the true effect size using
    macro-average, a fixed effects model, a random effects model, and [the Gumbel model] … We
    evaluate our estimates against the observed average effect across 5 new randomly extracted
    datasets. For each k we repeat the experiment 20 times and report average error."

    The per-dataset effects are computed once from ``scores`` (``effect="error_reduction"``:
    :func:`error_reduction` with its default of 50 bootstrap resamples, Søgaard's, and ``seed``;
    or an ``effect_sizes`` measure such as "MD" or "SMD") — or ``scores`` may already be an
    ErrorReduction/EffectSizes: for another bootstrap count, pass
    ``rg.error_reduction(scores, ..., n_resamples=B)`` as the data. For each k, ``n_resamples``
    times (the random splits; Søgaard's 20): k estimation datasets and ``n_test`` other held-out
    datasets are drawn without replacement (see the module docstring for the seeded protocol);
    every estimator of
    :func:`cross_dataset_estimates` (``method`` for the random-effects τ², ``gumbel_weights``) is
    computed on the k datasets, vectorised over the splits (DerSimonian–Laird in closed form,
    equal to ``meta_analysis(method="DL")``; other τ² estimators call ``meta_analysis`` per draw);
    and its error is ``estimate − mean(y of the held-out datasets)``. Reported per k and estimator:
    mean absolute error, its SD, and the Wilcoxon signed-rank test (``scipy.stats.wilcoxon``,
    two-sided) of the absolute errors against the macro-average's over the splits.

    Parameters
    ----------
    scores : Scores, pandas.DataFrame, ErrorReduction or EffectSizes
        Scores of both systems on every dataset, or per-dataset effects already computed.
    treatment, control : str, optional
        The two systems (needed with scores).
    k : int or iterable of int, default (5, 10, 20)
        Numbers of estimation datasets; each ``k + n_test`` must not exceed the datasets.
    n_test : int, default 5
        Held-out datasets per draw.
    n_resamples : int, default 20
        Random splits per k (at least 2; Søgaard's 20). ``repeats=``, its former name, is an
        error naming it; the error reduction's bootstrap count, which this keyword used to set,
        is :func:`error_reduction`'s ``n_resamples`` (pass its result as the data).
    seed : int, default 0
        Seed of the draws and of the error-reduction bootstrap.
    effect : str, default "error_reduction"
        The per-dataset effect computed from scores: ``"error_reduction"`` or an
        ``effect_sizes`` measure ("MD", "SMD", "SMCC", "SMCR", "ZCOR").
    method : str, default "DL"
        The τ² estimator of the random-effects estimate.
    metric : str, optional
        Needed when the scores hold several metrics.
    gumbel_weights : {"FE", "RE"}, default "FE"
        As :func:`cross_dataset_estimates`.
    settings : PredictiveCheckSettings, optional
        Instead of ``k``, ``n_test``, ``n_resamples``, ``seed``, ``effect``, ``method`` and
        ``gumbel_weights`` (a keyword other than its default next to it is a
        :class:`~ranger_eval.errors.SettingsError` naming the clash).

    Returns
    -------
    PredictiveCheck
        ``errors`` per (k, repeat, estimator); ``to_frame()`` per k and estimator (``mae``,
        ``sd``, ``se``, ``mean_error``, ``wins``, ``wilcoxon_statistic``, ``pvalue``);
        ``summary()``; ``draws``; ``effects``; ``.settings`` the settings object of the call.
        The signature's ``n_resamples:`` is the splits; its ``method_detail`` says
        ``holdout:n_test=N`` and, for effects with a bootstrap variance, their count
        (``;effects:n_resamples=50``).

    Raises
    ------
    AggregateError
        Scores without ``treatment``/``control``, a k too large for the datasets; bad counts,
        seed or choices (a :class:`~ranger_eval.errors.SettingsError`).
    RenamedKeywordError
        ``repeats=`` (now ``n_resamples``).

    References
    ----------
    Søgaard, A. (2013), "Estimating effect size across datasets", Proceedings of NAACL-HLT 2013. §3, Figures 2–3. Wilcoxon, F. (1945), "Individual comparisons by
    ranking methods", Biometrics Bulletin 1(6):80–83.

    Examples
    --------
    >>> import numpy as np
    >>> import pandas as pd
    >>> import ranger_eval as rg
    >>> rng = np.random.default_rng(0)
    >>> old = rng.uniform(0.3, 0.9, size=(8, 20))
    >>> new = np.minimum(old + rng.uniform(0.0, 0.1, size=(8, 20)), 1.0)
    >>> df = pd.DataFrame({
    ...     "dataset": np.repeat([f"d{i}" for i in range(8)], 40), "metric": "acc",
    ...     "item": np.tile(np.arange(20), 2 * 8),
    ...     "system": np.tile(np.repeat(["new", "old"], 20), 8),
    ...     "value": np.stack([new, old], axis=1).ravel()})
    >>> er = rg.error_reduction(df, treatment="new", control="old", n_resamples=100)
    >>> pc = rg.predictive_check(er, k=3, n_test=3, n_resamples=8)
    >>> pc.to_frame()[["k", "estimator", "mae", "pvalue"]].round(4)
       k estimator     mae  pvalue
    0  3     macro  0.0144     NaN
    1  3     micro  0.0144  1.0000
    2  3     fixed  0.0180  0.0391
    3  3    random  0.0163  0.1484
    4  3    gumbel  0.0186  0.0078
    >>> pc.draws[3].shape
    (8, 6)
    """
    # one check, the settings': SettingsError (an AggregateError) naming the key and value
    settings = resolve_settings(PredictiveCheckSettings, {
        "k": k, "n_test": n_test, "n_resamples": n_resamples, "seed": seed, "effect": effect,
        "method": method, "gumbel_weights": gumbel_weights}, settings, where="predictive_check")
    effect, method_c, gw = settings.effect, settings.method, settings.gumbel_weights
    n_test, splits, seed = settings.n_test, settings.n_resamples, settings.seed
    if hasattr(scores, "yi") and hasattr(scores, "vi"):
        effects = scores
        effect = str(getattr(scores, "measure", None) or effect)
        treatment = getattr(scores, "treatment", treatment)
        control = getattr(scores, "control", control)
    else:
        if treatment is None or control is None:
            raise AggregateError("predictive_check on scores needs treatment= and control=")
        scores = as_scores(scores, what="predictive_check", error=AggregateError)
        if effect == MEASURE:  # ErrorReductionSettings' bootstrap count (Søgaard's 50)
            effects = error_reduction(scores, treatment=treatment, control=control, metric=metric,
                                      seed=seed)
        else:
            effects = effect_sizes(scores, treatment=treatment, control=control, measure=effect,
                                   metric=metric)
    data = _as_input(effects)
    assert data.n is not None
    d = data.y.size
    ks = _check_ks(settings.k, n_test, d)
    # the effects' own bootstrap count (error reduction, bootstrap effect sizes), if any
    n_boot = getattr(effects, "n_resamples", None)
    rng = _draw_rng(seed)
    base = np.tile(np.arange(d), (splits, 1))
    frames = []
    draws: dict[int, np.ndarray] = {}
    for kk in ks:
        perm = rng.permuted(base, axis=1)[:, : kk + n_test]
        perm.setflags(write=False)
        draws[kk] = perm
        train, test = perm[:, :kk], perm[:, kk:]
        est = _estimates_rows(data.y[train], data.v[train], data.n[train], method_c, gw)
        observed = data.y[test].mean(axis=1)
        for name in ESTIMATORS:
            err = est[name] - observed
            frames.append(pd.DataFrame({
                "k": kk, "repeat": np.arange(splits), "estimator": name, "estimate": est[name],
                "observed": observed, "error": err, "abs_error": np.abs(err),
            }))
    errors = pd.concat(frames, ignore_index=True)
    table = _summarise(errors, ks, splits)
    detail = f"holdout:n_test={n_test}" + (
        "" if n_boot is None else f";effects:n_resamples={n_boot}")
    sig = make_signature("aggregate", {
        "measure": effect, "method": method_c, "k": ks, "n_resamples": splits, "seed": seed,
        "weights": f"gumbel:{gw}", "method_detail": detail,
    })
    return PredictiveCheck(
        errors=errors, table=table, effects=effects, names=data.names, k=ks, n_test=n_test,
        n_resamples=splits, seed=seed, effect=effect, method=method_c, gumbel_weights=gw,
        draws=draws, treatment=None if treatment is None else str(treatment),
        control=None if control is None else str(control), signature=sig, settings=settings,
    )


def _summarise(errors: pd.DataFrame, ks: tuple[int, ...], splits: int) -> pd.DataFrame:
    rows = []
    for kk in ks:
        sub = errors[errors["k"] == kk]
        by = {e: sub[sub["estimator"] == e] for e in ESTIMATORS}
        macro = by["macro"]["abs_error"].to_numpy()
        macro_size = np.maximum(np.abs(by["macro"]["estimate"].to_numpy()),
                                np.abs(by["macro"]["observed"].to_numpy()))
        for e in ESTIMATORS:
            a = by[e]["abs_error"].to_numpy()
            sd = float(np.std(a, ddof=1))
            if e == "macro":
                stat, p, wins = math.nan, math.nan, math.nan
            else:
                scale = np.maximum(macro_size, np.abs(by[e]["estimate"].to_numpy()))
                d = _paired_differences(a, macro, scale)
                stat, p = _wilcoxon(d)
                wins = float(np.mean(d < 0.0))
            rows.append({
                "k": kk, "estimator": e, "n_resamples": splits, "mae": float(a.mean()),
                "sd": sd, "se": sd / math.sqrt(splits), "mean_error": float(by[e]["error"].mean()),
                "wins": wins, "wilcoxon_statistic": stat, "pvalue": p,
            })
    return pd.DataFrame(rows)
