"""Effect sizes of a treatment over a control, and their sampling variances.

Every measure takes two aligned 1-D arrays (``treatment[i]`` and ``control[i]`` score the same item)
and returns an effect ``yi`` with sampling variance ``vi`` (Borenstein et al. 2009; metafor
``escalc``). With n items, d = t − c, sd() with ddof = 1 and r = cor(t, c):

``"MD"``    mean of the paired differences; metafor ``escalc(measure="MC")`` with m1i = mean(t),
            m2i = mean(c), sd1i = sd(t), sd2i = sd(c), ri = r:
            yi = mean(d), vi = sd(d)² / n.
``"SMD"``   paired standardised mean difference of the Ranger paper, Borenstein et al. (2009)
            eqs. 4.27–4.28: S_within = sd(d) / sqrt(2(1 − r)), d' = mean(d) / S_within,
            V_d' = (1/n + d'²/(2n)) · 2(1 − r); Hedges' J = 1 − 3/(4·df − 1), df = n − 1;
            yi = J·d', vi = J²·V_d'.
``"SMCC"``  metafor ``escalc(measure="SMCC")`` (change-score standardisation), same arguments as MC:
            yi = c(n − 1) · mean(d) / sd(d), vi = 1/n + yi²/(2n) (vtype "LS"), with metafor's
            exact bias correction c(m) = Γ(m/2) / (sqrt(m/2) Γ((m − 1)/2)).
``"SMCR"``  metafor ``escalc(measure="SMCR")`` (raw-score standardisation by the CONTROL's SD):
            m1i = mean(t), m2i = mean(c), sd1i = sd(c) (escalc only reads sd1i for SMCR), so
            yi = c(n − 1) · (mean(t) − mean(c)) / sd(c), vi = 2(1 − r)/n + yi²/(2n) (vtype "LS").
``"ZCOR"``  Fisher's z of r: metafor ``escalc(measure="ZCOR", ri=r, ni=n)``: yi = atanh(r),
            vi = 1/(n − 3). ``EffectSize.r`` transforms back with tanh.

Degenerate input (DESIGN.md) has an explicit answer, never an accidental NaN:

* n below the measure's minimum (MD 2; SMD, SMCC, SMCR 3, where J and c(n − 1) are positive; ZCOR 4),
  different lengths, non-1-D or non-finite input: :class:`EffectSizeError`.
* Identical systems (t == c item by item): a defined "no effect": yi = 0 for MD, SMD, SMCC, SMCR,
  and vi is the measure's own variance formula at d = 0, r = 1: 0 for MD, SMD and SMCR, 1/n for
  SMCC. ZCOR raises (r = 1, z infinite). This holds even if both systems are constant.
* MD is otherwise always defined; a constant difference gives vi = 0.
* One system constant (zero variance; r undefined): SMD, SMCC, SMCR and ZCOR raise.
* Differences constant but non-zero (t = c + k; sd(d) ≤ 1e-12 · max |score|, i.e. rounding noise):
  SMD and SMCC raise (S_within and d/sd(d) undefined); SMCR stays defined (r = 1).
* r = 1 within rounding (1 − r ≤ 1e-12): SMD raises; |r| = 1 within rounding: ZCOR raises.

Many datasets
-------------
:func:`effect_sizes` pairs every dataset in one columnar pass (:meth:`Scores.pair_all`) and
evaluates the formulas for all datasets at once with segment sums (:func:`table_effects`), so the
cost is linear in the number of rows (1,000,000 datasets × 2 systems × 20–50 items, 70M rows:
~20 s, after ~23 s for ``Scores``; benchmarks/meta_scale_bench.py) and
every dataset gets bit for bit the numbers :func:`effect_size` gives it alone (sums are sequential
per segment in both). Scores beyond 1e±150 are rescaled by an exact power of two before squaring
(the standardised measures are scale-free; MD is scaled back and raises
:class:`EffectSizeError` if its effect or variance overflows float64). Tables with a ``seed``
column and set-level metrics still go dataset by dataset.

A dataset whose effect is undefined (the degenerate cases above: too few items, a constant
system, a constant non-zero difference, r = ±1) is never reported alone: ``degenerate="error"``
(default) raises one :class:`EffectSizeError` listing every such dataset with its reason (and
the datasets of zero variance); ``degenerate="drop"`` leaves them out, and also the datasets
whose variance is 0 (identical systems, a constant difference: a meta-analysis cannot weight
them by 1/vi), with one warning naming each and its reason, and records them in
``EffectSizes.skipped`` (dataset → reason).

Clustered items (a ``cluster`` column)
--------------------------------------
Items in clusters (several questions about one passage) are not independent, so the variance of
an effect must come from the clusters (issue 20 §1; Cameron & Miller 2015). For every dataset
whose C clusters do not each hold a single item (:func:`cluster_robust_variances`):

* ``"MD"``: vi = the CR1 cluster-robust variance of mean(d),
  V_CR1 = C/(C − 1) · sum_k (S_k − m_k · mean(d))² / n², S_k the sum of d over cluster k of m_k
  items — exactly ``sandwich::vcovCL(lm(d ~ 1), type = "HC1")`` (and the clustered paired test
  of ``compare``); with one item per cluster it is sd(d)²/n, the unclustered vi.
* ``"SMD"``, ``"SMCC"``, ``"SMCR"``: the measure's variance times the estimated design effect
  deff = V_CR1 / (sd(d)²/n) (Kish 1965). Derivation for SMD (Borenstein eq. 4.28): its first
  term 2(1 − r)/n = (sd(d)²/n)/S_within² is the variance of mean(d) over S_within², which
  becomes V_CR1/S_within² = deff · 2(1 − r)/n exactly; the second term d'²/(2n) · 2(1 − r), the
  variance contributed by the estimated standardiser, is inflated by the same deff, the usual
  first-order approximation for a variance estimated from clustered data (Hedges 2007, J. Educ.
  Behav. Stat. 32:341, where both terms grow with the design effect). SMCC and SMCR
  (change-score / raw-score standardisation) have the same two-term form and take the same
  factor. A strongly clustered dataset therefore gets a larger vi and less weight in the
  meta-analysis.
* ``"ZCOR"`` has no cluster-robust variance here: an :class:`EffectSizeError` names the dataset.
* A dataset whose items all lie in one cluster has no cluster-robust variance (C − 1 = 0): an
  :class:`EffectSizeError` names it. Seeds and set-level metrics (the bootstrap) with clusters
  of several items are refused the same way, never treated as independent items.

Set-level metrics (paired bootstrap)
------------------------------------
Metrics that are not means of per-item scores (F1, MCC, correlations, corpus BLEU, any callable;
:mod:`ranger_eval.setmetrics`) have no variance formula. With ``metric_fn=`` the effect is the
raw difference ``yi = metric(treatment) − metric(control)`` on all n items (measure "MD" of the
metric) and ``vi`` its paired bootstrap variance: items are drawn with replacement, jointly for
both systems (:class:`~ranger_eval.stats.resampling.BootstrapIndices`, ``n_resamples``, ``seed``),
the difference is recomputed on every resample and vi = var(differences, ddof = 1) (Efron &
Tibshirani 1993, ch. 6; Koehn 2004 for corpus metrics). Same data and seed → identical vi.

Seeds (several training runs per system)
----------------------------------------
With a ``seed`` column each dataset has S runs per system, all scored on the same n items. The
seeds of the two systems are paired in natural order (by label when both used the same seeds)
and combined as items × seeds in a crossed design (Bouthillier et al. 2021, "Accounting for
variance in machine learning benchmarks", MLSys; the variance of a grand mean in a two-way
random-effects layout, e.g. Searle, Casella & McCulloch 1992, ch. 4):

    yi = (1/S) Σ_s yi_s                      (the mean of the per-seed effects)
    vi = vi_items + vi_seeds,  vi_seeds = var_s(yi_s) / S   (ddof = 1; 0 when S = 1)

``vi_seeds`` is the seed-to-seed spread of the per-seed effects: it grows with the run-to-run
variability that a single seed, or averaging seeds per item, hides. ``vi_items`` is the
item-sampling variance of the averaged effect; the seeds share the items, so it is not the
per-seed variance divided by S:

* MD: var_i(d̄_i) / n with d̄_i the seed-averaged difference of item i (exact; with the seed term
  this is (MS_items + MS_seeds) / (nS) of the two-way ANOVA, conservative by MS_resid / (nS));
* set-level metrics: the bootstrap variance of the seed-averaged difference, items resampled
  jointly for every seed;
* SMD, SMCC, SMCR, ZCOR: the mean of the per-seed variances, an upper bound (the per-seed
  estimates share the items, so their correlation is at most 1).

With S = 1 everything reduces to the single-run formulas. Unbalanced seeds (systems with
different numbers of seeds, or a seed that did not score every item) are an error unless
``seeds="allow-unbalanced"``; then, for MD and set-level metrics only, the runs are not paired:
yi = mean over items of (treatment's seed-averaged value − control's) (MD), or the difference of
the seed-averaged metrics, and vi_seeds = var_s(m_t,s)/S_t + var_s(m_c,s)/S_c from each
system's per-seed means (or metrics) m. Whenever the scores have a seed column,
``EffectSizes.extra`` (and so ``to_frame()``) holds ``n_seeds_treatment``, ``n_seeds_control``,
``vi_items`` and ``vi_seeds`` per dataset, and ``EffectSizes.seed_rule`` is "paired" or
"unpaired" once some system has more than one seed.
"""
from __future__ import annotations

import dataclasses
import math
import warnings
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd
from scipy.special import gammaln, ndtri

from . import settings as _settings
from .design import resolve_design
from .errors import EffectSizeError, Hint, RangerWarning, check_choice, check_level, suggest
from .signature import Signature, make_signature

if TYPE_CHECKING:
    from .scores import PairedTable, Scores, SystemRuns
    from .setmetrics import SetMetric

MEASURES = _settings.MEASURES
MIN_N = {"MD": 2, "SMD": 3, "SMCC": 3, "SMCR": 3, "ZCOR": 4}
GENERIC = "GEN"  # metafor's name for an outcome supplied as plain yi/vi
_CORE_COLUMNS = (
    "dataset", "yi", "vi", "se", "ci_low", "ci_high", "n", "mean_control", "mean_treatment",
)
#: The measure of a constant shift (its SD is 0, its mean difference is not): ``--measure MD``.
_MD = Hint("measure", "MD", form="set")
#: Seed policies of :func:`effect_sizes` (see the module docstring, "Seeds").
SEED_POLICIES = _settings.SEED_POLICIES
#: What :func:`effect_sizes` does with degenerate datasets (module docstring, "Many datasets").
DEGENERATE_POLICIES = _settings.DEGENERATE
#: |r| within this of 1 is r = ±1 up to rounding (also read by :mod:`ranger_eval.lazy`).
R_TOL = 1e-12
#: sd(t − c) below this times max |score| is rounding noise: a constant shift (also lazy's).
SHIFT_TOL = 1e-12


def _check_level(level: float) -> float:
    return check_level(level, error=EffectSizeError)


def z_critical(level: float) -> float:
    """Two-sided normal quantile z_{(1+level)/2} = Φ⁻¹(1 − (1 − level)/2), from the survival
    function: exactly ``scipy.stats.norm.isf((1 - level)/2)`` (which is ``-ndtri``), without
    importing scipy.stats (half a second)."""
    return float(-ndtri((1.0 - level) / 2.0))


def hedges_j(df: float) -> float:
    """Hedges' small-sample correction J = 1 − 3/(4·df − 1) (Borenstein et al. 2009, eq. 4.22)."""
    return 1.0 - 3.0 / (4.0 * df - 1.0)


def metafor_cmi(m: float) -> float:
    """metafor's exact bias correction c(m) = Γ(m/2) / (sqrt(m/2) Γ((m − 1)/2)), m > 1
    (``metafor:::.cmicalc``; Hedges 1981), used by escalc's SMCC and SMCR."""
    if m <= 1:
        raise EffectSizeError(f"the bias correction c(m) needs m > 1 degrees of freedom, got {m}")
    return float(np.exp(gammaln(m / 2.0) - np.log(np.sqrt(m / 2.0)) - gammaln((m - 1.0) / 2.0)))


@dataclass(frozen=True)
class EffectSize:
    """Effect of one dataset: ``yi`` with sampling variance ``vi`` from ``n`` paired items.

    ``ci_low``/``ci_high`` are the normal (Wald) interval yi ± z_{(1+level)/2} · se. For ZCOR,
    ``r``, ``r_ci_low`` and ``r_ci_high`` transform back to the correlation scale with tanh.
    """

    yi: float
    vi: float
    n: int
    measure: str
    mean_treatment: float
    mean_control: float
    level: float = 0.95
    dataset: str | None = None

    def __post_init__(self) -> None:
        _check_level(self.level)

    @property
    def se(self) -> float:
        return float(np.sqrt(self.vi))

    @property
    def ci_low(self) -> float:
        return float(self.yi - z_critical(self.level) * self.se)

    @property
    def ci_high(self) -> float:
        return float(self.yi + z_critical(self.level) * self.se)

    def _zcor_only(self, what: str) -> None:
        if self.measure != "ZCOR":
            raise EffectSizeError(f"{what} is defined only for measure 'ZCOR', not {self.measure!r}")

    @property
    def r(self) -> float:
        """ZCOR only: the correlation tanh(yi)."""
        self._zcor_only("r")
        return float(np.tanh(self.yi))

    @property
    def r_ci_low(self) -> float:
        """ZCOR only: tanh(ci_low)."""
        self._zcor_only("r_ci_low")
        return float(np.tanh(self.ci_low))

    @property
    def r_ci_high(self) -> float:
        """ZCOR only: tanh(ci_high)."""
        self._zcor_only("r_ci_high")
        return float(np.tanh(self.ci_high))


@dataclass(frozen=True)
class BootstrapEffectSize(EffectSize):
    """Effect of one dataset on a set-level metric, with its paired bootstrap variance.

    ``yi`` = metric(treatment) − metric(control) (measure "MD"); ``mean_treatment`` and
    ``mean_control`` hold the two metric values (means over seeds). ``vi`` = ``vi_items`` (the
    bootstrap variance, ddof = 1) + ``vi_seeds`` (between-seed part, 0 for one seed). ``boot`` are
    the ``n_resamples`` resampled differences; ``seed`` the seed used.
    """

    metric: str = ""
    n_resamples: int = 0
    seed: int | None = None
    n_seeds_treatment: int = 1
    n_seeds_control: int = 1
    vi_items: float = 0.0
    vi_seeds: float = 0.0
    boot: np.ndarray = field(default_factory=lambda: np.empty(0), repr=False, compare=False)
    #: the resampling unit (:mod:`ranger_eval.design`): ``item`` or ``cluster(NAME)``
    resample: str = "item"
    #: the units drawn from: the items, or the clusters
    n_units: int = 0

    def percentile_interval(self) -> tuple[float, float]:
        """The bootstrap percentile interval of the difference at ``level`` (item part only)."""
        alpha = (1.0 - self.level) / 2.0
        lo, hi = np.quantile(self.boot, [alpha, 1.0 - alpha])
        return float(lo), float(hi)

    @property
    def signature(self) -> Signature:
        """Reproducibility signature: measure, metric, level, resamples, seed, resampling
        unit."""
        seeds = max(self.n_seeds_treatment, self.n_seeds_control)
        return make_signature("effects", {
            "measure": self.measure,
            "method_detail": _detail(self.metric, seeds > 1, None),
            "level": self.level, "n_resamples": self.n_resamples, "seed": self.seed,
            "resample": self.resample,
        })


def _detail(metric: str | None, seeds: bool, rule: str | None) -> str | None:
    parts = []
    if metric is not None:
        parts.append(f"paired-bootstrap[{metric}]")
    if seeds or rule:
        parts.append(f"seeds[{rule or 'paired'}]")
    return ",".join(parts) or None


def _where(dataset: str | None, measure: str) -> str:
    return f"dataset {dataset!r}, measure {measure}" if dataset is not None else f"measure {measure}"


def _as_vector(x: object, role: str, where: str) -> np.ndarray:
    try:
        arr = np.asarray(x, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise EffectSizeError(f"{where}: {role} scores are not numeric ({exc})") from None
    if arr.ndim != 1:
        raise EffectSizeError(f"{where}: {role} scores must be 1-D, got shape {arr.shape}")
    bad = np.flatnonzero(~np.isfinite(arr))
    if bad.size:
        i = int(bad[0])
        raise EffectSizeError(
            f"{where}: {role} score at position {i} is {float(arr[i])!r}; scores must be finite"
            + (f" ({bad.size} non-finite values)" if bad.size > 1 else "")
        )
    return arr


def _is_default_index(index: pd.Index) -> bool:
    return (isinstance(index, pd.RangeIndex) and index.start == 0 and index.step == 1)


def _show_ids(ids: Sequence[object], limit: int = 10) -> str:
    shown = ", ".join(repr(x) for x in ids[:limit])
    return shown + (f", ... ({len(ids)} in all)" if len(ids) > limit else "")


def _align_series(treatment: object, control: object, where: str) -> tuple[object, object]:
    """Pair two pandas Series by their index (item ids) instead of by position.

    Applies when both are Series and not both carry the default RangeIndex(0..n-1): equal id
    sets → ``control`` reordered to ``treatment``'s index; otherwise :class:`EffectSizeError`
    listing up to 10 ids missing on each side. Anything else is returned unchanged (positional).
    """
    if not (isinstance(treatment, pd.Series) and isinstance(control, pd.Series)):
        return treatment, control
    ti, ci = treatment.index, control.index
    if _is_default_index(ti) and _is_default_index(ci):
        return treatment, control
    for role, idx in (("treatment", ti), ("control", ci)):
        if not idx.is_unique:
            dups = list(dict.fromkeys(idx[idx.duplicated()].tolist()))
            raise EffectSizeError(
                f"{where}: {role} has duplicate item ids in its index: {_show_ids(dups)}; "
                "Series are paired by item id"
            )
    if ti.equals(ci):
        return treatment, control
    only_t = ti.difference(ci, sort=False)
    only_c = ci.difference(ti, sort=False)
    if len(only_t) or len(only_c):
        raise EffectSizeError(
            f"{where}: treatment and control are pandas Series with different item ids (their "
            f"index): {len(only_t)} id(s) of treatment missing from control"
            + (f": {_show_ids(only_t.tolist())}" if len(only_t) else "")
            + f"; {len(only_c)} id(s) of control missing from treatment"
            + (f": {_show_ids(only_c.tolist())}" if len(only_c) else "")
            + "; select the common items first, or pass arrays to pair by position"
        )
    return treatment, control.reindex(ti)



def canonical_measure(measure: object, dataset: object = None) -> str:
    """The measure's name as in ``MEASURES`` (``"smd"`` → ``"SMD"``: names are case-insensitive,
    as on the command line and in YAML); anything else is an :class:`EffectSizeError` listing the
    valid names, with a suggestion for a near miss."""
    if isinstance(measure, str):
        for name in MEASURES:
            if name.lower() == measure.strip().lower():
                return name
    raise EffectSizeError(
        f"unknown measure {measure!r}"
        + (f" for dataset {dataset!r}" if dataset is not None else "")
        + f"; valid measures: {', '.join(MEASURES)}"
        + (suggest(measure, list(MEASURES)) if isinstance(measure, str) else "")
    )

def effect_size(
    treatment: Sequence[float] | np.ndarray,
    control: Sequence[float] | np.ndarray,
    *,
    measure: str = "SMD",
    level: float = 0.95,
    dataset: str | None = None,
) -> EffectSize:
    """Effect of ``treatment`` over ``control`` from paired per-item scores aligned by item id.

    Arrays and lists are paired by position. Two pandas Series are paired by their index (the
    item ids): ``control`` is reordered to ``treatment``'s index when both hold the same ids, and
    different id sets are an :class:`EffectSizeError` listing up to 10 ids missing on each side
    (duplicate ids too). Only two Series that both keep the default ``RangeIndex(0..n-1)``, or a
    Series with an array, stay positional.
    ``measure`` is one of ``MEASURES`` (formulas and degenerate cases in the module docstring);
    ``dataset`` only names the data in error messages. Raises :class:`EffectSizeError`.
    """
    measure = canonical_measure(measure, dataset)
    level = _check_level(level)
    where = _where(dataset, measure)
    treatment, control = _align_series(treatment, control, where)  # type: ignore[assignment]
    t = _as_vector(treatment, "treatment", where)
    c = _as_vector(control, "control", where)
    if t.size != c.size:
        raise EffectSizeError(
            f"{where}: treatment has {t.size} scores but control has {c.size}; "
            "pass arrays paired by item id"
        )
    n = int(t.size)
    if n < MIN_N[measure]:
        raise EffectSizeError(f"{where}: needs at least {MIN_N[measure]} paired items, got {n}")

    mom = _moments(t, c, np.array([0, n], dtype=np.int64), measure)
    mean_t, mean_c = float(mom.mean_t[0]), float(mom.mean_c[0])

    def result(yi: float, vi: float) -> EffectSize:
        if not (math.isfinite(yi) and math.isfinite(vi)):
            raise EffectSizeError(
                f"{where}: the effect ({yi!r}) or its variance ({vi!r}) overflows float64 "
                f"(largest |score| {float(mom.scale[0] / mom.factor[0])!r}); rescale the scores "
                "(MD needs |treatment − control| and its variance below ~1e154)"
            )
        return EffectSize(float(yi), float(vi), n, measure, mean_t, mean_c, level, dataset)

    if measure == "MD":
        yi_a, vi_a = _formulas(mom, measure)
        return result(float(yi_a[0]), float(vi_a[0]))

    identical = bool(mom.identical[0])
    if identical and measure != "ZCOR":
        return result(0.0, 1.0 / n if measure == "SMCC" else 0.0)

    for role, x, const in (("treatment", t, mom.const_t[0]), ("control", c, mom.const_c[0])):
        if const:
            raise EffectSizeError(
                f"{where}: the {role} scores are constant (all {float(x[0])!r}), so the correlation "
                "between the systems is undefined"
                + (" (identical systems: r = 1, Fisher's z is infinite)" if identical else "")
            )
    r = float(mom.r[0])
    if measure in ("SMD", "SMCC") and mom.shift[0]:
        raise EffectSizeError(
            f"{where}: treatment − control is the same on every item ({float(np.mean(t - c))!r}), "
            "so the differences have zero standard deviation and the standardised effect is "
            f"undefined (use {_MD.text})", hints=[_MD]
        )
    if measure == "SMD" and 1.0 - r <= R_TOL:
        raise EffectSizeError(
            f"{where}: treatment and control are perfectly correlated (r = {r!r}), so "
            "S_within = S_diff / sqrt(2(1 − r)) is undefined"
        )
    if measure == "ZCOR" and 1.0 - abs(r) <= R_TOL:
        raise EffectSizeError(
            f"{where}: treatment and control are perfectly correlated (r = {r!r}), so Fisher's "
            "z = atanh(r) is infinite"
        )
    yi_a, vi_a = _formulas(mom, measure)
    return result(float(yi_a[0]), float(vi_a[0]))


@dataclass(frozen=True)
class _Moments:
    """Per-segment moments of paired scores (arrays over segments), on scores multiplied by
    ``factor`` (an exact power of two, 1 unless the largest |score| is beyond 1e±150, where
    squares would overflow or underflow): n, means of t, c and d = t − c (unscaled), var(d)
    (scaled), r, sd(c) (scaled), ``scale`` = max |score| (scaled), and the degenerate flags."""

    n: np.ndarray
    factor: np.ndarray
    mean_t: np.ndarray
    mean_c: np.ndarray
    mean_d: np.ndarray
    var_d: np.ndarray
    r: np.ndarray
    sd_c: np.ndarray
    scale: np.ndarray
    identical: np.ndarray
    const_t: np.ndarray
    const_c: np.ndarray
    shift: np.ndarray


#: beyond these magnitudes squares of scores overflow/underflow: the scores are rescaled first
_BIG, _TINY = 1e150, 1e-150


def _moments(t: np.ndarray, c: np.ndarray, offsets: np.ndarray, measure: str) -> _Moments:
    """Moments of every segment ``offsets[i]:offsets[i + 1]`` (non-empty) in one vectorised pass.

    Segment sums are sequential (``np.add.reduceat``), so one dataset gives bit-identical
    numbers alone or among many. Two-pass: means first, then centred sums of squares/products.
    """
    starts = offsets[:-1]
    n = np.diff(offsets)
    nf = n.astype(np.float64)
    absmax = np.maximum(np.maximum.reduceat(np.abs(t), starts), np.maximum.reduceat(np.abs(c), starts))
    factor = np.ones(n.size)
    odd = (absmax > _BIG) | ((absmax < _TINY) & (absmax > 0.0))
    if odd.any():
        factor[odd] = np.ldexp(1.0, -np.frexp(absmax[odd])[1])  # exact powers of two
        f_rows = np.repeat(factor, n)
        t, c = t * f_rows, c * f_rows
    mean_ts = np.add.reduceat(t, starts) / nf
    mean_cs = np.add.reduceat(c, starts) / nf
    d = t - c
    mean_ds = np.add.reduceat(d, starts) / nf
    dd = d - np.repeat(mean_ds, n)
    with np.errstate(divide="ignore", invalid="ignore"):
        var_d = np.add.reduceat(dd * dd, starts) / (nf - 1.0)
    scale = absmax * factor
    if measure == "MD":
        empty = np.zeros(n.size, dtype=bool)
        nan = np.full(n.size, np.nan)
        return _Moments(n, factor, mean_ts / factor, mean_cs / factor, mean_ds / factor, var_d,
                        nan, nan, scale, empty, empty, empty, empty)
    tc = t - np.repeat(mean_ts, n)
    cc = c - np.repeat(mean_cs, n)
    stt = np.add.reduceat(tc * tc, starts)
    scc = np.add.reduceat(cc * cc, starts)
    stc = np.add.reduceat(tc * cc, starts)
    with np.errstate(divide="ignore", invalid="ignore"):
        r = np.clip(stc / np.sqrt(stt * scc), -1.0, 1.0)
        sd_c = np.sqrt(scc / (nf - 1.0))
    identical = np.maximum.reduceat(np.abs(d), starts) == 0.0
    const_t = np.maximum.reduceat(t, starts) == np.minimum.reduceat(t, starts)
    const_c = np.maximum.reduceat(c, starts) == np.minimum.reduceat(c, starts)
    shift = np.sqrt(var_d) <= SHIFT_TOL * scale
    return _Moments(n, factor, mean_ts / factor, mean_cs / factor, mean_ds / factor, var_d, r,
                    sd_c, scale, identical, const_t, const_c, shift)


def _formulas(m: _Moments, measure: str) -> tuple[np.ndarray, np.ndarray]:
    """``(yi, vi)`` of the module docstring's formulas from the moments (non-degenerate
    segments; degenerate ones may come out non-finite and are handled by the caller)."""
    nf = m.n.astype(np.float64)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        if measure == "MD":
            # scale back: mean_d is unscaled, var_d carries factor²
            return m.mean_d.copy(), (m.var_d / nf) / m.factor / m.factor
        s_diff = np.sqrt(m.var_d)
        mean_d = m.mean_d * m.factor
        if measure == "SMD":
            s_within = s_diff / np.sqrt(2.0 * (1.0 - m.r))
            d = mean_d / s_within
            v_d = (1.0 / nf + d * d / (2.0 * nf)) * 2.0 * (1.0 - m.r)
            j = 1.0 - 3.0 / (4.0 * (nf - 1.0) - 1.0)  # hedges_j(n - 1)
            return j * d, j * j * v_d
        if measure in ("SMCC", "SMCR"):
            mm = np.maximum(nf - 1.0, 2.0)  # c(m) needs m > 1; smaller n never gets here
            cm = np.exp(gammaln(mm / 2.0) - np.log(np.sqrt(mm / 2.0)) - gammaln((mm - 1.0) / 2.0))
            if measure == "SMCC":
                yi = cm * mean_d / s_diff
                return yi, 1.0 / nf + yi * yi / (2.0 * nf)
            yi = cm * (m.mean_t - m.mean_c) * m.factor / m.sd_c
            return yi, 2.0 * (1.0 - m.r) / nf + yi * yi / (2.0 * nf)
        return np.arctanh(m.r), 1.0 / (nf - 3.0)  # ZCOR


def table_effects(
    table: PairedTable, measure: str, level: float = 0.95, *,
    problems: dict[str, str] | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``(yi, vi, mean_treatment, mean_control)`` of every dataset of a :class:`PairedTable`.

    The formulas of :func:`effect_size` (module docstring), evaluated for all datasets at once
    with segment sums (:func:`_moments`), so the cost is linear in the number of items whatever
    the number of datasets, and every dataset gets exactly the numbers :func:`effect_size` gives
    it alone. Datasets that hit a degenerate case (too few items, identical or constant systems,
    a constant shift, r = ±1, overflow) are passed to :func:`effect_size`, which gives their
    defined answer or raises its :class:`EffectSizeError` naming the dataset (the first such
    dataset in order); with a ``problems`` dict, every such error is recorded there instead
    (dataset → reason) and the dataset's yi and vi are NaN.
    """
    measure = canonical_measure(measure)
    level = _check_level(level)
    t, c = table.treatment, table.control
    mom = _moments(t, c, table.offsets, measure)
    yi, vi = _formulas(mom, measure)
    degenerate = (mom.n < MIN_N[measure]) | ~(np.isfinite(yi) & np.isfinite(vi))
    if measure != "MD":
        degenerate |= mom.identical | mom.const_t | mom.const_c | ~np.isfinite(mom.r)
        if measure in ("SMD", "SMCC"):
            degenerate |= mom.shift
        if measure == "SMD":
            degenerate |= (1.0 - mom.r) <= R_TOL
        if measure == "ZCOR":
            degenerate |= (1.0 - np.abs(mom.r)) <= R_TOL
    yi, vi = np.array(yi, dtype=np.float64), np.array(vi, dtype=np.float64)
    for i in np.flatnonzero(degenerate).tolist():
        seg = slice(int(table.offsets[i]), int(table.offsets[i + 1]))
        name = table.datasets[i]
        try:
            e = effect_size(t[seg], c[seg], measure=measure, level=level, dataset=name)
        except EffectSizeError as exc:
            if problems is None:
                raise
            problems[name] = _reason(exc, name, measure)
            yi[i] = vi[i] = np.nan
            continue
        yi[i], vi[i] = e.yi, e.vi
    return yi, vi, mom.mean_t, mom.mean_c


def _reason(exc: EffectSizeError, name: str, measure: str) -> str:
    """The message of ``exc`` without its ``dataset 'x', measure M: `` prefix."""
    return str(exc).removeprefix(f"{_where(name, measure)}: ")


def zero_variance_reasons(eff: EffectSizes) -> dict[str, str]:
    """Dataset → why its sampling variance is 0, for every dataset of ``eff`` with ``vi == 0``:
    identical systems (yi = 0: the two systems score every item alike) or, for MD and set-level
    metrics, the same non-zero difference on every item. A meta-analysis weights by 1/vi, so it
    cannot use them (:func:`effect_sizes` with ``degenerate="drop"`` leaves them out)."""
    return _zero_reasons(eff.names, eff.yi, eff.vi)


def _zero_reasons(names: Sequence[str], yi: np.ndarray, vi: np.ndarray) -> dict[str, str]:
    return {names[i]: "identical systems: zero variance" if yi[i] == 0.0 else
            f"treatment − control is {float(yi[i]):.6g} on every item: zero variance"
            for i in np.flatnonzero(vi == 0.0).tolist()}


def degenerate_text(problems: dict[str, str], limit: int = 20) -> str:
    """``'a' (reason); 'b' (reason)`` for at most ``limit`` datasets, then ``… (N in all)``: how
    every error and warning about degenerate datasets lists them."""
    shown = "; ".join(f"{name!r} ({why})" for name, why in list(problems.items())[:limit])
    return shown + (f"; … ({len(problems)} in all)" if len(problems) > limit else "")


def _check_resampling(n_resamples: object, seed: object) -> tuple[int, int | None]:
    if (isinstance(n_resamples, bool) or not isinstance(n_resamples, (int, np.integer))
            or n_resamples < 2):
        raise EffectSizeError(
            f"n_resamples must be an integer >= 2 (the bootstrap variance needs two resamples), "
            f"got {n_resamples!r}"
        )
    if seed is not None and (
        isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0
    ):
        raise EffectSizeError(f"seed must be a non-negative integer or None, got {seed!r}")
    return int(n_resamples), None if seed is None else int(seed)


def _seed_policy(seeds: object) -> str:
    return check_choice("seeds", seeds, SEED_POLICIES, error=EffectSizeError)


@dataclass(frozen=True)
class _Combined:
    """One dataset's effect after combining runs (seeds)."""

    yi: float
    vi: float
    n: int
    mean_treatment: float
    mean_control: float
    vi_items: float
    vi_seeds: float
    n_seeds_treatment: int = 1
    n_seeds_control: int = 1
    boot: np.ndarray | None = None
    seed: int | None = None


def _var(x: np.ndarray) -> float:
    """var(ddof = 1), 0 for a single value."""
    return float(np.var(x, ddof=1)) if x.size > 1 else 0.0


def _bootstrap_metric(
    metric: SetMetric,
    labels: object | None,
    treatment: Sequence[object],
    control: Sequence[object],
    *,
    paired: bool,
    n_resamples: int,
    seed: int | None,
    where: str,
    run_names: tuple[Sequence[str], Sequence[str]] | None = None,
    clusters: np.ndarray | None = None,
) -> _Combined:
    """yi, vi of metric(treatment) − metric(control) from runs (seeds) on the same items;
    ``clusters`` (int codes 0 … C − 1 per item, the design's units) draws whole clusters."""
    from .setmetrics import bootstrap_values, cluster_bootstrap_values, encode, undefined_resamples

    st, sc = len(treatment), len(control)
    names = list(run_names[0]) + list(run_names[1]) if run_names else (
        [f"treatment run {i}" if st > 1 else "treatment" for i in range(st)]
        + [f"control run {i}" if sc > 1 else "control" for i in range(sc)]
    )
    enc = encode(metric, labels, [*treatment, *control], runs=names, where=where,
                 error=EffectSizeError)
    if enc.n < 2:
        raise EffectSizeError(f"{where}: the bootstrap needs at least 2 items, got {enc.n}")
    values = enc.values()
    bad = np.flatnonzero(~np.isfinite(values))
    if bad.size:
        raise EffectSizeError(
            f"{where}: metric {metric.name!r} is undefined ({values[bad[0]]!r}) for "
            f"{names[bad[0]]} (e.g. a correlation of constant values)"
        )
    if clusters is None:
        boot, used = bootstrap_values(enc, n_resamples, seed)
    else:
        if int(clusters.max()) + 1 < 2:
            raise EffectSizeError(f"{where}: all {enc.n} items are in one cluster; the cluster "
                                  "bootstrap needs at least 2 clusters (the items are one "
                                  "dependent unit)")
        boot, used = cluster_bootstrap_values(enc, clusters, n_resamples, seed)
    undefined = undefined_resamples(boot, names)
    if undefined is not None:
        count, run = undefined
        raise EffectSizeError(
            f"{where}: metric {metric.name!r} is undefined on {count} of "
            f"{n_resamples} bootstrap resamples (first for {run}; e.g. a correlation of a "
            "resample with constant values); too few or too uniform items for this metric"
        )
    mt, mc = values[:st], values[st:]
    diff = boot[:, :st].mean(axis=1) - boot[:, st:].mean(axis=1)
    vi_items = _var(diff)
    if paired:
        vi_seeds = _var(mt - mc) / st
    else:
        vi_seeds = _var(mt) / st + _var(mc) / sc
    return _Combined(
        yi=float(mt.mean() - mc.mean()), vi=vi_items + vi_seeds, n=enc.n,
        mean_treatment=float(mt.mean()), mean_control=float(mc.mean()), vi_items=vi_items,
        vi_seeds=vi_seeds, n_seeds_treatment=st, n_seeds_control=sc, boot=diff, seed=used,
    )


def _runs_of(x: object, role: str, where: str) -> list[np.ndarray]:
    """Rows of a 2-D input (seeds × items) or the single run of a 1-D one."""
    arr = np.asarray(x.to_numpy() if isinstance(x, (pd.Series, pd.DataFrame)) else x)
    if arr.ndim == 1:
        return [arr]
    if arr.ndim == 2 and arr.shape[0] >= 1:
        return [arr[i] for i in range(arr.shape[0])]
    raise EffectSizeError(
        f"{where}: {role} must be 1-D (items) or 2-D (seeds × items), got shape {arr.shape}"
    )


def effect_size_bootstrap(
    treatment: object,
    control: object,
    *,
    metric_fn: object,
    labels: object | None = None,
    n_resamples: int = 1000,
    seed: int | None = 0,
    level: float = 0.95,
    seeds: str = "balanced",
    dataset: str | None = None,
    clusters: object | None = None,
    cluster_name: str = "cluster",
) -> BootstrapEffectSize:
    """Effect of ``treatment`` over ``control`` on a set-level metric, paired bootstrap variance.

    ``metric_fn`` is a name of :data:`ranger_eval.setmetrics.NAMES` (``"mcc"``, ``"macro_f1"``,
    …), a :class:`~ranger_eval.setmetrics.SetMetric` or a callable ``fn(labels, predictions)`` /
    ``fn(values)``. ``treatment`` and ``control`` are the systems' predictions (or values)
    aligned by position with ``labels``; 2-D input is seeds × items, the seeds combined as in the
    module docstring ("Seeds"; rows paired in order; different numbers of rows need
    ``seeds="allow-unbalanced"``). yi = metric(treatment) − metric(control), vi = the variance of
    the differences over ``n_resamples`` paired bootstrap resamples (seeded; ddof = 1) plus the
    between-seed part. ``clusters`` (one cluster id per item, aligned with the items; None:
    independent items) makes whole clusters the resampling unit (every item of a drawn cluster,
    for both systems and every seed; :func:`ranger_eval.setmetrics.cluster_bootstrap_values`),
    as :func:`effect_sizes` does for scores with a cluster column; ``cluster_name`` names the
    field in the signature (``resample:cluster(passage)``). Raises :class:`EffectSizeError`.
    """
    from .setmetrics import get_metric

    level = _check_level(level)
    n_resamples, seed = _check_resampling(n_resamples, seed)
    policy = _seed_policy(seeds)
    metric = get_metric(metric_fn, error=EffectSizeError)
    where = f"dataset {dataset!r}, metric {metric.name}" if dataset is not None else (
        f"metric {metric.name}")
    t_runs = _runs_of(treatment, "treatment", where)
    c_runs = _runs_of(control, "control", where)
    if len(t_runs) != len(c_runs) and policy == "balanced":
        hint = Hint("seeds", "allow-unbalanced")
        raise EffectSizeError(
            f"{where}: unbalanced seeds: treatment has {len(t_runs)} runs and control "
            f"{len(c_runs)}; {hint.text} to combine them unpaired", hints=[hint]
        )
    codes = None
    if clusters is not None:
        from .stats.clustered import cluster_codes
        from .stats.resampling import StatsInputError

        try:  # one id per item, none missing
            cluster_codes(clusters, t_runs[0].size, name="clusters")
        except StatsInputError as exc:
            raise EffectSizeError(f"{where}: {exc}") from None
        # numbered in sorted cluster-id order, as the design's units
        codes = pd.factorize(np.asarray(clusters, dtype=object).reshape(-1),
                             sort=True)[0].astype(np.int64)
    res = _bootstrap_metric(
        metric, labels, t_runs, c_runs, paired=len(t_runs) == len(c_runs),
        n_resamples=n_resamples, seed=seed, where=where, clusters=codes,
    )
    assert res.boot is not None
    return BootstrapEffectSize(
        yi=res.yi, vi=res.vi, n=res.n, measure="MD", mean_treatment=res.mean_treatment,
        mean_control=res.mean_control, level=level, dataset=dataset, metric=metric.name,
        n_resamples=n_resamples, seed=res.seed, n_seeds_treatment=res.n_seeds_treatment,
        n_seeds_control=res.n_seeds_control, vi_items=res.vi_items, vi_seeds=res.vi_seeds,
        boot=res.boot,
        resample="item" if codes is None else f"cluster({cluster_name})",
        n_units=res.n if codes is None else int(codes.max()) + 1,
    )


def _float_array(x: object, k: int, what: str) -> np.ndarray:
    arr = np.array(x, dtype=np.float64)  # a copy, made read-only below
    if arr.ndim != 1 or arr.size != k:
        raise EffectSizeError(f"{what} must be a 1-D array of length {k} (one per name), got shape {arr.shape}")
    arr.setflags(write=False)
    return arr


@dataclass(frozen=True)
class EffectSizes:
    """Per-dataset effect sizes, in display order.

    Arrays are aligned with ``names``. ``extra`` holds optional per-dataset text/number columns for
    plots and tables (e.g. "nDCG@10 0.494 → 0.679", "J@10 ..."), indexed by name.
    ``dropped`` counts items dropped per dataset by a ``missing="intersect"`` policy (only datasets
    that lost items appear). ``n`` is an integer array, or float with NaN where the sample size is
    unknown (``from_arrays`` without ``n``); likewise NaN means for unknown means. ``metrics`` is
    the metric of each dataset (``metric`` is set when they all agree).
    Arrays are read-only copies. Raises :class:`EffectSizeError` for unequal lengths, duplicate
    names, non-finite ``yi`` or negative/non-finite ``vi``.
    ``n_resamples``/``seed`` are set when ``vi`` comes from the paired bootstrap of a set-level
    metric (``metric`` is then that metric); ``seed_rule`` ("paired" or "unpaired") when seeds
    were combined (module docstring, "Seeds"). :attr:`signature` records them. ``skipped`` maps
    each dataset left out by ``effect_sizes(..., degenerate="drop")`` to the reason.
    """

    names: tuple[str, ...]
    yi: np.ndarray
    vi: np.ndarray
    n: np.ndarray
    measure: str
    mean_treatment: np.ndarray
    mean_control: np.ndarray
    treatment: str | None = None
    control: str | None = None
    metric: str | None = None
    level: float = 0.95
    extra: pd.DataFrame | None = None
    dropped: dict[str, int] = field(default_factory=dict)
    metrics: tuple[str, ...] | None = None
    n_resamples: int | None = None
    seed: int | None = None
    seed_rule: str | None = None
    skipped: dict[str, str] = field(default_factory=dict)
    #: ``Scores.samples_label``: K samples per item averaged before the effect (None: no samples)
    samples: str | None = None
    #: the cluster field's name (``Scores.cluster_name``, e.g. "passage") when the scores have a
    #: cluster column: vi is cluster-robust (module docstring)
    cluster: str | None = None
    #: "ppi++" when yi and vi are prediction-powered (judge scores with human scores)
    ppi: str | None = None

    def __post_init__(self) -> None:
        names = tuple(str(x) for x in self.names)
        k = len(names)
        if k == 0:
            raise EffectSizeError("EffectSizes needs at least one dataset")
        dups = sorted(x for x, count in Counter(names).items() if count > 1)
        if dups:
            raise EffectSizeError(f"duplicate dataset names: {', '.join(map(repr, dups))}")
        set_ = object.__setattr__
        set_(self, "names", names)
        yi = _float_array(self.yi, k, "yi")
        vi = _float_array(self.vi, k, "vi")
        bad = np.flatnonzero(~np.isfinite(yi))
        if bad.size:
            raise EffectSizeError(f"yi of {names[bad[0]]!r} is {float(yi[bad[0]])!r}; yi must be finite")
        bad = np.flatnonzero(~np.isfinite(vi) | (vi < 0))
        if bad.size:
            raise EffectSizeError(
                f"vi of {names[bad[0]]!r} is {float(vi[bad[0]])!r}; vi must be finite and >= 0"
            )
        set_(self, "yi", yi)
        set_(self, "vi", vi)
        n = np.array(self.n)
        if n.ndim != 1 or n.size != k:
            raise EffectSizeError(f"n must be a 1-D array of length {k} (one per name), got shape {n.shape}")
        if n.dtype.kind not in "iu":
            n = n.astype(np.float64)
            whole = np.isnan(n) | ((n == np.round(n)) & np.isfinite(n))
            if whole.all() and not np.isnan(n).any():
                n = n.astype(np.int64)
            elif not whole.all():
                raise EffectSizeError(f"n must hold whole numbers (or NaN when unknown), got {n}")
        n.setflags(write=False)
        set_(self, "n", n)
        set_(self, "mean_treatment", _float_array(self.mean_treatment, k, "mean_treatment"))
        set_(self, "mean_control", _float_array(self.mean_control, k, "mean_control"))
        set_(self, "level", _check_level(self.level))
        name_set = set(names)
        unknown = [x for x in self.dropped if x not in name_set]
        if unknown:
            raise EffectSizeError(f"dropped counts for unknown dataset(s): {unknown}")
        set_(self, "dropped", {str(x): int(v) for x, v in self.dropped.items()})
        clash = [x for x in self.skipped if x in name_set]
        if clash:
            raise EffectSizeError(f"skipped dataset(s) also among the names: {clash}")
        set_(self, "skipped", {str(x): str(v) for x, v in self.skipped.items()})
        if self.metrics is not None:
            metrics = tuple(str(m) for m in self.metrics)
            if len(metrics) != k:
                raise EffectSizeError(f"metrics must name one metric per dataset ({k}), got {len(metrics)}")
            set_(self, "metrics", metrics)
        if self.extra is not None:
            set_(self, "extra", _checked_extra(self.extra, names))

    # ------------------------------------------------------------ construction
    @classmethod
    def from_arrays(
        cls,
        names: Sequence[str] | None,
        yi: Sequence[float] | np.ndarray,
        vi: Sequence[float] | np.ndarray,
        n: Sequence[float] | np.ndarray | None = None,
        measure: str = GENERIC,
        *,
        mean_treatment: Sequence[float] | np.ndarray | None = None,
        mean_control: Sequence[float] | np.ndarray | None = None,
        level: float = 0.95,
    ) -> EffectSizes:
        """Effect sizes given directly as ``yi``/``vi`` (metafor's generic outcome, measure "GEN").

        ``names=None`` numbers the datasets "1".."k"; unknown ``n`` and means are NaN.
        """
        k = int(np.size(yi))
        names = tuple(str(i) for i in range(1, k + 1)) if names is None else tuple(names)
        unknown = np.full(len(names), np.nan)
        return cls(
            names=names,
            yi=np.asarray(yi, dtype=np.float64),
            vi=np.asarray(vi, dtype=np.float64),
            n=unknown if n is None else np.asarray(n),
            measure=measure,
            mean_treatment=unknown if mean_treatment is None else np.asarray(mean_treatment),
            mean_control=unknown if mean_control is None else np.asarray(mean_control),
            level=level,
        )

    # ------------------------------------------------------------------ views
    def __len__(self) -> int:
        return len(self.names)

    @property
    def signature(self) -> Signature:
        """Reproducibility signature: measure, bootstrap metric and seed rule, level, resamples,
        seed (see :mod:`ranger_eval.signature`)."""
        metric = self.metric if self.n_resamples is not None else None
        return make_signature("effects", {
            "measure": self.measure,
            "method_detail": _detail(metric, False, self.seed_rule),
            "level": self.level, "n_resamples": self.n_resamples, "seed": self.seed,
            "samples": self.samples, "cluster": self.cluster, "ppi": self.ppi,
            # the unit of the set-level metric's bootstrap (ranger_eval.design)
            "resample": None if self.n_resamples is None else (
                f"cluster({self.cluster})" if self.cluster else "item"),
        })

    @property
    def k(self) -> int:
        return len(self.names)

    @property
    def se(self) -> np.ndarray:
        return np.sqrt(self.vi)

    @property
    def ci_low(self) -> np.ndarray:
        """yi − z_{(1+level)/2} · se (normal interval per dataset)."""
        return self.yi - z_critical(self.level) * self.se

    @property
    def ci_high(self) -> np.ndarray:
        """yi + z_{(1+level)/2} · se."""
        return self.yi + z_critical(self.level) * self.se

    def to_frame(self) -> pd.DataFrame:
        """One row per dataset: dataset, yi, vi, se, ci_low, ci_high, n, mean_control,
        mean_treatment, then the ``extra`` columns."""
        frame = pd.DataFrame(
            {
                "dataset": list(self.names),
                "yi": self.yi,
                "vi": self.vi,
                "se": self.se,
                "ci_low": self.ci_low,
                "ci_high": self.ci_high,
                "n": self.n,
                "mean_control": self.mean_control,
                "mean_treatment": self.mean_treatment,
            }
        )
        if self.extra is not None and len(self.extra.columns):
            extra = self.extra.reindex(list(self.names)).reset_index(drop=True)
            frame = pd.concat([frame, extra], axis=1)
        return frame

    def with_extra(self, frame: pd.DataFrame | pd.Series) -> EffectSizes:
        """A copy with extra per-dataset columns (``frame`` indexed by dataset name, or with a
        ``dataset`` column). Columns already in ``extra`` are replaced; datasets absent from
        ``frame`` get NaN; a name not among ``names`` is an error."""
        new = _checked_extra(frame, self.names)
        if self.extra is not None:
            kept = self.extra.drop(columns=[col for col in new.columns if col in self.extra.columns])
            new = pd.concat([kept, new], axis=1)
        return dataclasses.replace(self, extra=new)

    def rename(self, mapping: dict[str, str]) -> EffectSizes:
        """A copy with datasets renamed (e.g. ids → display names); unmapped names are kept.

        ``extra``, ``dropped`` and ``skipped`` follow the new names; the new names must stay
        unique.
        """
        names = tuple(str(mapping.get(n, n)) for n in self.names)
        if len(set(names)) != len(names):
            raise EffectSizeError(f"renaming makes dataset names collide: {list(names)}")
        lookup = dict(zip(self.names, names, strict=True))
        extra = None
        if self.extra is not None:
            extra = self.extra.rename(index=lookup)
            extra.index.name = "dataset"
        dropped = {lookup[k]: v for k, v in self.dropped.items()}
        skipped = {str(mapping.get(k, k)): v for k, v in self.skipped.items()}
        return dataclasses.replace(self, names=names, extra=extra, dropped=dropped,
                                   skipped=skipped)


def _checked_extra(extra: pd.DataFrame | pd.Series, names: tuple[str, ...]) -> pd.DataFrame:
    if isinstance(extra, pd.Series):
        extra = extra.to_frame()
    if not isinstance(extra, pd.DataFrame):
        raise EffectSizeError(f"extra columns must be a pandas DataFrame, got {type(extra).__name__}")
    frame = extra.copy()
    if "dataset" in frame.columns:
        frame = frame.set_index("dataset")
    frame.index = frame.index.map(str)
    if frame.index.has_duplicates:
        dups = sorted(set(frame.index[frame.index.duplicated()]))
        raise EffectSizeError(f"extra columns: duplicate dataset(s) {dups}")
    name_set = set(names)
    unknown = [x for x in frame.index if x not in name_set]
    if unknown:
        raise EffectSizeError(f"extra columns: unknown dataset(s) {unknown[:10]}; known: {list(names)}")
    clash = [col for col in frame.columns if col in _CORE_COLUMNS]
    if clash:
        raise EffectSizeError(f"extra columns may not reuse the core column name(s) {clash}")
    frame.columns = [str(col) for col in frame.columns]
    frame = frame.reindex(list(names))
    frame.index.name = "dataset"
    return frame


def _declared_metric_fn(scores: Scores, metric: str | None) -> str | None:
    """The set-level metric that the rows of ``metric`` declare in a ``set_metric`` column
    (adapters write it for corpus-level metrics such as lm-eval's ``f1``: its value is the F1
    of all items, not the mean of ``value``); None when they declare none."""
    df = scores.frame
    if "set_metric" not in df.columns:
        return None
    rows = df if metric is None or "metric" not in df.columns else df[df["metric"] == metric]
    declared = sorted({str(x) for x in rows["set_metric"].dropna()})
    if not declared:
        return None
    if len(declared) > 1 or rows["set_metric"].isna().any():
        hints = [Hint("metric"), Hint("metric_fn")]
        raise EffectSizeError(
            f"metric {metric!r}: rows declare different set-level metrics "
            f"({', '.join(declared)}, or none) in column 'set_metric'; {hints[0].text}... to "
            f"pick one metric, or {hints[1].text}... explicitly", hints=hints
        )
    return declared[0]


def cluster_robust_variances(table: PairedTable, measure: str, vi: np.ndarray) -> np.ndarray:
    """``vi`` of every dataset of ``table`` made cluster-robust (module docstring, "Clustered
    items"): MD takes V_CR1 = C/(C − 1) · sum_k (S_k − m_k · mean(d))² / n², SMD, SMCC and SMCR
    their variance times deff = V_CR1 / (sd(d)²/n). Datasets whose clusters each hold one item
    keep ``vi`` unchanged (bit for bit); one cluster, or ZCOR with clusters, raises
    :class:`EffectSizeError` naming the dataset."""
    codes = table.clusters
    out = np.array(vi, dtype=np.float64)
    if codes is None or not len(table.datasets):
        return out
    n = np.diff(table.offsets)
    k = n.size
    starts = table.offsets[:-1]
    nf = n.astype(np.float64)
    d = table.treatment - table.control
    ds_of_row = np.repeat(np.arange(k), n)
    mean_d = np.add.reduceat(d, starts) / nf
    dev = d - mean_d[ds_of_row]
    naive = np.add.reduceat(dev * dev, starts) / (nf - 1.0) / nf  # sd(d)² / n
    uniq, inv = np.unique(codes, return_inverse=True)
    s = np.bincount(inv, weights=dev, minlength=uniq.size)
    ds_of_cluster = np.empty(uniq.size, dtype=np.intp)
    ds_of_cluster[inv] = ds_of_row
    n_cl = np.bincount(ds_of_cluster, minlength=k)
    meat = np.bincount(ds_of_cluster, weights=s * s, minlength=k)
    clustered = n_cl < n
    for i in np.flatnonzero(clustered & (n_cl < 2)).tolist():
        raise EffectSizeError(
            f"dataset {table.datasets[i]!r}: all {int(n[i])} items are in one cluster; a "
            "cluster-robust variance needs at least 2 clusters (the items are one dependent "
            "unit)")
    if measure == "ZCOR" and clustered.any():
        i = int(np.flatnonzero(clustered)[0])
        raise EffectSizeError(
            f"dataset {table.datasets[i]!r}: measure ZCOR has no cluster-robust variance "
            f"({int(n_cl[i])} clusters of {int(n[i])} items); use measure 'MD' or 'SMD', whose "
            "variances come from the clusters")
    with np.errstate(divide="ignore", invalid="ignore"):
        v_cr = n_cl / (n_cl - 1.0) * meat / (nf * nf)
        if measure == "MD":
            new = v_cr
        else:
            new = out * np.where(naive > 0.0, v_cr / naive, 1.0)
    return np.where(clustered & np.isfinite(out), new, out)


def _refuse_clustered(scores: Scores, chosen: Sequence[str], what: str) -> None:
    """EffectSizeError for the first dataset of ``chosen`` with a cluster of several items: the
    paths with seeds or a set-level metric have no cluster-robust variance."""
    for name in chosen:
        ids = scores.item_clusters(str(name))
        if ids.nunique() < ids.size:
            raise EffectSizeError(
                f"dataset {name!r}: its items come in clusters ({ids.nunique()} clusters of "
                f"{ids.size} items) and the effect with {what} has no cluster-robust variance; "
                "compare per-item scores without seeds or a set-level metric (measure 'MD' or "
                "'SMD' are cluster-robust)")


def effect_sizes(
    scores: Scores | pd.DataFrame,
    *,
    treatment: str,
    control: str,
    measure: str | None = None,
    metric: str | None = None,
    datasets: Sequence[str] | None = None,
    missing: str = "error",
    level: float = 0.95,
    metric_fn: object | None = None,
    n_resamples: int = 1000,
    seed: int | None = 0,
    seeds: str = "balanced",
    degenerate: str = "error",
) -> EffectSizes:
    """Effect of ``treatment`` over ``control`` on every dataset of ``scores`` (items paired by id
    with ``Scores.pair_runs``; ``missing`` is its policy). ``datasets`` selects and orders datasets
    (default: order of first appearance); ``metric=None`` uses each dataset's only metric (the
    rows of ``scores`` to read).

    ``measure`` (default "SMD") is one of :data:`MEASURES`, computed from the per-item ``value``.
    ``metric_fn`` instead computes a set-level metric (a name such as ``"mcc"``, ``"macro_f1"``,
    ``"pearson"``, or a callable; :mod:`ranger_eval.setmetrics`) from the ``label`` and
    ``prediction`` columns (or, for ``fn(values)``, the values): yi is its difference (measure
    "MD", the default then) and vi its paired bootstrap variance over ``n_resamples`` resamples
    drawn with ``seed`` (module docstring). With a ``seed`` column the runs are combined as in the
    module docstring ("Seeds"); ``seeds="allow-unbalanced"`` accepts systems with different seeds.
    ``degenerate`` (:data:`DEGENERATE_POLICIES`): ``"error"`` raises one error listing every
    dataset whose effect is undefined, ``"drop"`` leaves those and the zero-variance datasets out
    with a warning and records them in ``EffectSizes.skipped`` (module docstring, "Many
    datasets").
    """
    from .scores import Scores, seed_imbalance

    requested = measure  # None: "SMD", or "MD" for judge scores with human scores
    if metric_fn is None:  # an adapter's corpus-level metric (lm-eval f1 …) is set-level
        if not isinstance(scores, Scores):
            scores = Scores(scores)
        metric_fn = _declared_metric_fn(scores, metric)
    bootstrap_metric: SetMetric | None = None
    if metric_fn is not None:
        from .setmetrics import get_metric

        bootstrap_metric = get_metric(metric_fn, error=EffectSizeError)
        if measure is not None and str(measure).upper() != "MD":
            raise EffectSizeError(
                f"measure {measure!r} is not available with metric_fn={bootstrap_metric.name!r}: "
                "a set-level metric gives the raw difference of the metric (measure 'MD')"
            )
        measure = "MD"
        n_resamples, seed = _check_resampling(n_resamples, seed)
    measure = canonical_measure("SMD" if measure is None else measure)
    level = _check_level(level)
    policy = _seed_policy(seeds)
    degenerate = check_choice("degenerate", degenerate, DEGENERATE_POLICIES, error=EffectSizeError)
    problems: dict[str, str] = {}
    if not isinstance(scores, Scores):
        scores = Scores(scores)
    if str(treatment) == str(control):
        raise EffectSizeError(f"treatment and control are the same system {treatment!r}")
    known = scores.datasets
    if datasets is None:
        chosen = known
    else:
        if isinstance(datasets, str):
            datasets = [datasets]
        chosen = tuple(str(x) for x in datasets)
        known_set = set(known)
        unknown = [x for x in chosen if x not in known_set]
        if unknown:
            raise EffectSizeError(f"unknown dataset(s) {unknown}; known: {list(known)}")
        if len(set(chosen)) != len(chosen):
            raise EffectSizeError(f"datasets lists a dataset twice: {list(chosen)}")
        if not chosen:
            raise EffectSizeError("datasets is empty")
    if bootstrap_metric is None and _judged(scores):  # judge scores corrected by human scores
        return _ppi_effects(scores, chosen, treatment=str(treatment), control=str(control),
                            measure=requested, metric=metric, level=level)
    if bootstrap_metric is None and not scores.has_seeds:
        # one columnar pass over all datasets (linear in the number of rows)
        table = scores.pair_all(treatment, control, metric=metric, datasets=chosen,
                                missing=missing, stacklevel=3)
        yi, vi, mt, mc = table_effects(table, measure, level, problems=problems)
        if table.clusters is not None:
            vi = cluster_robust_variances(table, measure, vi)
        metrics_t = table.metrics
        return _with_policy(
            degenerate, problems,
            names=chosen, yi=yi, vi=vi, n=table.n.astype(np.int64), measure=measure,
            mean_treatment=mt, mean_control=mc, treatment=str(treatment), control=str(control),
            metric=metric if metric is not None else (
                metrics_t[0] if len(set(metrics_t)) == 1 else None),
            level=level,
            dropped={chosen[i]: int(table.n_dropped[i])
                     for i in np.flatnonzero(table.n_dropped).tolist()},
            metrics=metrics_t, samples=scores.samples_label,
            cluster=scores.cluster_name,
        )
    design = resolve_design(scores)
    if design.clustered and bootstrap_metric is None:
        _refuse_clustered(scores, chosen, "a seed column")
    results: list[_Combined] = []
    metrics: list[str] = []
    dropped: dict[str, int] = {}
    rules: set[str] = set()
    needs_labels = bootstrap_metric is not None and bootstrap_metric.needs_labels
    for name in chosen:
        pair = scores.pair_runs(name, treatment, control, metric=metric, missing=missing,
                                predictions=needs_labels)
        t, c = pair.treatment, pair.control
        problem = seed_imbalance([t, c])
        where = f"dataset {name!r} (metric {pair.metric!r})"
        if problem is not None and policy == "balanced":
            hint = Hint("seeds", "allow-unbalanced")
            raise EffectSizeError(
                f"{where}: unbalanced seeds of {t.system!r} and {c.system!r}: {problem}; "
                f"{hint.text} to combine each system's seeds unpaired "
                "(measure 'MD' or a metric_fn)", hints=[hint]
            )
        if bootstrap_metric is not None:
            units = design.units(name, pair.items) if design.clustered else None
            results.append(_metric_effect(bootstrap_metric, t, c, problem, n_resamples, seed,
                                          name, scores.has_seeds, units))
            metrics.append(bootstrap_metric.name)
        else:
            try:
                results.append(_item_effect(t, c, measure, level, name, problem))
            except EffectSizeError as exc:
                if problem is not None:  # unbalanced seeds with a measure that cannot take them
                    raise
                problems[name] = _reason(exc, name, measure)
                results.append(_Combined(np.nan, np.nan, t.n, np.nan, np.nan, np.nan, np.nan,
                                         t.n_seeds, c.n_seeds))
            metrics.append(pair.metric)
        if scores.has_seeds and max(t.n_seeds, c.n_seeds) > 1:
            rules.add("paired" if problem is None else "unpaired")
        if pair.n_dropped:
            dropped[name] = int(pair.n_dropped)
    common = (
        bootstrap_metric.name if bootstrap_metric is not None
        else metric if metric is not None
        else (metrics[0] if len(set(metrics)) == 1 else None)
    )
    extra = None
    if scores.has_seeds:
        extra = pd.DataFrame(
            {
                "n_seeds_treatment": [r.n_seeds_treatment for r in results],
                "n_seeds_control": [r.n_seeds_control for r in results],
                "vi_items": [r.vi_items for r in results],
                "vi_seeds": [r.vi_seeds for r in results],
            },
            index=pd.Index(chosen, name="dataset"),
        )
    return _with_policy(
        degenerate, problems,
        names=chosen,
        yi=np.array([e.yi for e in results]),
        vi=np.array([e.vi for e in results]),
        n=np.array([e.n for e in results], dtype=np.int64),
        measure=measure,
        mean_treatment=np.array([e.mean_treatment for e in results]),
        mean_control=np.array([e.mean_control for e in results]),
        treatment=str(treatment),
        control=str(control),
        metric=common,
        level=level,
        extra=extra,
        dropped=dropped,
        samples=scores.samples_label,
        metrics=tuple(metrics),
        n_resamples=n_resamples if bootstrap_metric is not None else None,
        seed=results[0].seed if bootstrap_metric is not None else None,
        seed_rule="+".join(sorted(rules)) or None,
        cluster=design.cluster_name,
    )


def _with_policy(policy: str, problems: dict[str, str], **fields: Any) -> EffectSizes:
    """The :class:`EffectSizes` of ``fields`` under the ``degenerate`` policy: ``problems`` maps
    the datasets whose effect is undefined (yi and vi NaN in ``fields``) to the reason.

    "error": any such dataset → one :class:`EffectSizeError` listing every one (and the datasets of
    zero variance, which the meta-analysis will refuse next). "drop": those datasets and the
    zero-variance ones are left out, named with their reasons in a warning and in ``skipped``.
    """
    names: tuple[str, ...] = fields["names"]
    measure = fields["measure"]
    vi = np.asarray(fields["vi"], dtype=np.float64)
    yi = np.asarray(fields["yi"], dtype=np.float64)
    zero = _zero_reasons(names, yi, vi)
    k = len(names)
    if policy == "error":
        if problems:
            also = (f"; also of zero variance (a meta-analysis cannot weight them by 1/vi): "
                    f"{degenerate_text(zero)}" if zero else "")
            hint = Hint("degenerate", "drop")
            raise EffectSizeError(
                f"{len(problems)} of {k} dataset(s) have no defined {measure} effect: "
                f"{degenerate_text(problems)}{also}; {hint.text} to leave them out "
                "with a warning", hints=[hint])
        return EffectSizes(**fields)
    skipped = {x: problems.get(x) or zero[x] for x in names if x in problems or x in zero}
    if not skipped:
        return EffectSizes(**fields)
    keep = np.array([name not in skipped for name in names])
    if not keep.any():
        raise EffectSizeError(
            f"all {k} dataset(s) are degenerate for measure {measure}, none is left: "
            f"{degenerate_text(skipped)}")
    said = Hint("degenerate", "drop", form="set")
    warnings.warn(RangerWarning(
        f"left out {len(skipped)} of {k} dataset(s) with a degenerate {measure} effect "
        f"({said.text}): {degenerate_text(skipped)}", hints=[said]), stacklevel=3)
    kept = tuple(n for n, ok in zip(names, keep, strict=True) if ok)
    for key in ("yi", "vi", "n", "mean_treatment", "mean_control"):
        fields[key] = np.asarray(fields[key])[keep]
    if fields.get("metrics") is not None:
        fields["metrics"] = tuple(m for m, ok in zip(fields["metrics"], keep, strict=True) if ok)
    if fields.get("extra") is not None:
        fields["extra"] = fields["extra"].loc[list(kept)]
    fields["dropped"] = {x: v for x, v in fields.get("dropped", {}).items() if x not in skipped}
    return EffectSizes(**{**fields, "names": kept, "skipped": skipped})


def _item_effect(
    t: SystemRuns, c: SystemRuns, measure: str, level: float, name: str, problem: str | None
) -> _Combined:
    """Effect on the per-item values of one dataset, runs combined (module docstring)."""
    st, sc = t.n_seeds, c.n_seeds
    if problem is None and st == 1:
        e = effect_size(t.values[0], c.values[0], measure=measure, level=level, dataset=name)
        return _Combined(e.yi, e.vi, e.n, e.mean_treatment, e.mean_control, e.vi, 0.0)
    if problem is None:  # balanced: seeds paired in natural order
        per: list[EffectSize] = []
        for s in range(st):
            try:
                per.append(effect_size(t.values[s], c.values[s], measure=measure, level=level,
                                       dataset=name))
            except EffectSizeError as exc:
                raise EffectSizeError(
                    f"{exc} (treatment seed {t.seeds[s]!r}, control seed {c.seeds[s]!r})"
                ) from None
        yis = np.array([e.yi for e in per])
        if measure == "MD":
            d_bar = (t.values - c.values).mean(axis=0)
            vi_items = _var(d_bar) / d_bar.size
        else:
            vi_items = float(np.mean([e.vi for e in per]))
        vi_seeds = _var(yis) / st
        return _Combined(
            float(yis.mean()), vi_items + vi_seeds, t.n, float(t.values.mean()),
            float(c.values.mean()), vi_items, vi_seeds, st, sc,
        )
    if measure != "MD":
        raise EffectSizeError(
            f"dataset {name!r}: unbalanced seeds ({problem}) can be combined only for measure "
            f"'MD' or a metric_fn, not {measure!r}"
        )
    t_bar = _nanmean_rows(t.values.T)
    c_bar = _nanmean_rows(c.values.T)
    e = effect_size(t_bar, c_bar, measure="MD", level=level, dataset=name)
    mt, mc = _nanmean_rows(t.values), _nanmean_rows(c.values)  # per-seed means
    vi_seeds = _var(mt) / mt.size + _var(mc) / mc.size
    return _Combined(
        e.yi, e.vi + vi_seeds, e.n, e.mean_treatment, e.mean_control, e.vi, vi_seeds, st, sc,
    )


def _nanmean_rows(m: np.ndarray) -> np.ndarray:
    """Mean of every row over its non-NaN entries; rows without any are left out."""
    ok = ~np.isnan(m)
    keep = ok.any(axis=1)
    return np.where(ok, m, 0.0)[keep].sum(axis=1) / ok[keep].sum(axis=1)


def _metric_effect(
    metric: SetMetric,
    t: SystemRuns,
    c: SystemRuns,
    problem: str | None,
    n_resamples: int,
    seed: int | None,
    name: str,
    has_seeds: bool,
    units: np.ndarray | None = None,
) -> _Combined:
    """Effect on a set-level metric of one dataset (bootstrap, drawing ``units``: the design's
    cluster codes of the items, or None for items), runs combined."""
    where = f"dataset {name!r}, metric {metric.name!r}"
    for r in (t, c):
        gaps = r.missing_by_seed()
        if gaps:
            s, ids = next(iter(gaps.items()))
            raise EffectSizeError(
                f"{where}: system {r.system!r}, seed {s!r} did not score {len(ids)} of the "
                f"common items ({', '.join(map(repr, ids[:10]))}); a set-level metric needs "
                "every seed to score every item"
            )

    def runs(r: SystemRuns) -> list[np.ndarray]:
        if metric.needs_labels:
            assert r.predictions is not None
            return [r.predictions[s] for s in range(r.n_seeds)]
        return [r.values[s] for s in range(r.n_seeds)]

    def names(r: SystemRuns) -> list[str]:
        return [f"system {r.system!r}" + (f", seed {s!r}" if has_seeds else "") for s in r.seeds]

    return _bootstrap_metric(
        metric, t.labels, runs(t), runs(c), paired=problem is None, n_resamples=n_resamples,
        seed=seed, where=where, run_names=(names(t), names(c)), clusters=units,
    )


def _judged(scores: Scores) -> bool:
    from .stats.judged import has_human_scores

    return has_human_scores(scores)


def _ppi_effects(scores: Scores, chosen: Sequence[str], *, treatment: str, control: str,
                 measure: str | None, metric: str | None, level: float) -> EffectSizes:
    """Effect sizes of judge scores with human scores (a ``human_value`` column with at least
    one human score): per dataset, yi is the prediction-powered (PPI++) estimate of the mean
    paired difference of **human** scores, treatment − control, and vi its variance se²
    (Angelopoulos et al., Science 2023; Angelopoulos, Duchi & Zrnic 2023), exactly
    :func:`ranger_eval.ppi_mean_difference`::

        yi = λ · mean(D, unlabelled) + mean(H − λ · D, labelled)
        vi = λ² · σ̂²(D, unlabelled) / N + σ̂²(H − λ · D, labelled) / n

    with H = human(t) − human(c) on the n items where both have a human score, D = judge(t) −
    judge(c), N the other items, λ = Ĉov(H, D) / ((1 + n/N) · V̂ar(D)) clipped to [0, 1]. The
    means are the two systems' PPI means at that λ (their difference is yi). With a ``cluster``
    column vi is the cluster-robust (CR1) variance of the same estimate, from per-cluster sums
    of the labelled and unlabelled influence terms (:mod:`ranger_eval.stats.ppi`; as
    ``compare`` and ``ppi_mean_difference``), so a clustered dataset gets less weight. Only the
    raw difference (measure "MD", the default here) has this variance; standardised measures
    and set-level metrics are errors naming the dataset. The signature records ``ppi:ppi++``.
    """
    from .stats.judged import align_pair, item_cluster_codes, judged_items

    if measure is not None and canonical_measure(measure) != "MD":
        hint = Hint("measure", "MD")
        raise EffectSizeError(
            f"measure {measure!r}: the scores have human scores (column 'human_value'), so the "
            f"effect of each dataset is the prediction-powered mean difference of human scores, "
            f"which has a variance for the raw difference only; {hint.text} (or drop the "
            f"'human_value' column to standardise the judge's scores)", hints=[hint])
    table = scores.table
    yi, vi, n, mean_t, mean_c, metrics = [], [], [], [], [], []
    for name in chosen:
        here = [str(m) for m in pd.unique(table.loc[table["dataset"] == name, "metric"])]
        if metric is None and len(here) > 1:
            raise EffectSizeError(f"dataset {name!r} has {len(here)} metrics "
                                  f"({', '.join(here)}); pass metric=")
        m = metric if metric is not None else here[0]
        where = f"dataset {name!r} (metric {m!r})"
        t = judged_items(scores, dataset=name, metric=m, system=treatment,
                         error=EffectSizeError)
        c = judged_items(scores, dataset=name, metric=m, system=control, error=EffectSizeError)
        pair = align_pair(t, c, treatment=treatment, control=control, where=where,
                          error=EffectSizeError)
        res = pair.difference(what=f"the difference {treatment!r} − {control!r} on {where}",
                              method="ppi++", level=level, error=EffectSizeError,
                              clusters=item_cluster_codes(scores, name, t.items))
        mt, mc = pair.means_at(res.lam)
        yi.append(res.estimate)
        vi.append(res.se ** 2)
        n.append(pair.value_t.size)
        mean_t.append(mt)
        mean_c.append(mc)
        metrics.append(m)
    return EffectSizes(
        names=tuple(chosen), yi=np.asarray(yi), vi=np.asarray(vi), n=np.asarray(n, dtype=np.int64),
        measure="MD", mean_treatment=np.asarray(mean_t), mean_control=np.asarray(mean_c),
        treatment=treatment, control=control,
        metric=metric if metric is not None else (metrics[0] if len(set(metrics)) == 1 else None),
        level=level, metrics=tuple(metrics), samples=scores.samples_label, ppi="ppi++",
        cluster=scores.cluster_name if scores.has_cluster else None,
    )
