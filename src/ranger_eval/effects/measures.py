"""Effect-size measures of one dataset: the formulas of MD, SMD, SMCC, SMCR and ZCOR.

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

The other parts of :mod:`ranger_eval.effects`: :mod:`~ranger_eval.effects.results` (the result
classes), :mod:`~ranger_eval.effects.sizes` (:func:`effect_sizes`, many datasets),
:mod:`~ranger_eval.effects.variances` (cluster-robust and zero variances),
:mod:`~ranger_eval.effects.seeds` (several runs per system), :mod:`~ranger_eval.effects.bootstrap`
(set-level metrics) and :mod:`~ranger_eval.effects.ppi` (judge scores with human scores).
"""
from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd
from scipy.special import gammaln, ndtri

from .. import settings as _settings
from ..errors import EffectSizeError, Hint, check_level, suggest

if TYPE_CHECKING:
    from ..scores import PairedTable

MEASURES = _settings.MEASURES
MIN_N = {"MD": 2, "SMD": 3, "SMCC": 3, "SMCR": 3, "ZCOR": 4}
GENERIC = "GEN"  # metafor's name for an outcome supplied as plain yi/vi
#: The measure of a constant shift (its SD is 0, its mean difference is not): ``--measure MD``.
_MD = Hint("measure", "MD", form="set")
#: |r| within this of 1 is r = ±1 up to rounding (also read by :mod:`ranger_eval.lazy`).
R_TOL = 1e-12
#: sd(t − c) below this times max |score| is rounding noise: a constant shift (also lazy's).
SHIFT_TOL = 1e-12


def _check_level(level: float) -> float:
    return check_level(level, error=EffectSizeError)


def z_critical(level: float) -> float:
    """Two-sided normal quantile z_{(1+level)/2} = Φ⁻¹(1 − (1 − level)/2), from the survival
    function: exactly ``scipy.stats.norm.isf((1 - level)/2)`` (which is ``-ndtri``), without
    importing scipy.stats (half a second).

    Parameters
    ----------
    level : float
        Confidence level in (0, 1).

    Returns
    -------
    float
        The quantile z with P(|Z| ≤ z) = level for a standard normal Z.

    Examples
    --------
    >>> from ranger_eval.effects.measures import z_critical
    >>> round(z_critical(0.95), 6), round(z_critical(0.90), 6)
    (1.959964, 1.644854)
    """
    return float(-ndtri((1.0 - level) / 2.0))


def hedges_j(df: float) -> float:
    """Hedges' small-sample correction J = 1 − 3/(4·df − 1) (Borenstein et al. 2009, eq. 4.22).

    Parameters
    ----------
    df : float
        Degrees of freedom of the standardiser (n − 1 for n paired items).

    Returns
    -------
    float
        The factor J that turns Cohen's d into Hedges' g = J · d.

    References
    ----------
    Borenstein, Hedges, Higgins & Rothstein (2009), *Introduction to Meta-Analysis*, Wiley,
    ch. 4. Hedges (1981), "Distribution theory for Glass's estimator of effect size and related
    estimators", Journal of Educational Statistics 6(2):107–128.

    Examples
    --------
    >>> from ranger_eval.effects.measures import hedges_j
    >>> round(hedges_j(9), 6)
    0.914286
    """
    return 1.0 - 3.0 / (4.0 * df - 1.0)


def metafor_cmi(m: float) -> float:
    """metafor's exact bias correction c(m) = Γ(m/2) / (sqrt(m/2) Γ((m − 1)/2)), m > 1
    (``metafor:::.cmicalc``; Hedges 1981), used by escalc's SMCC and SMCR.

    Parameters
    ----------
    m : float
        Degrees of freedom, greater than 1.

    Returns
    -------
    float
        c(m), computed on the log scale (``gammaln``) so that large m does not overflow;
        :func:`hedges_j` is its approximation.

    Raises
    ------
    EffectSizeError
        ``m <= 1``.

    References
    ----------
    Hedges (1981), "Distribution theory for Glass's estimator of effect size and related
    estimators", Journal of Educational Statistics 6(2):107–128. Viechtbauer (2010),
    "Conducting meta-analyses in R with the metafor package", Journal of Statistical
    Software 36(3).

    Examples
    --------
    >>> from ranger_eval.effects.measures import metafor_cmi
    >>> round(metafor_cmi(10), 6)
    0.922746
    """
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
    valid names, with a suggestion for a near miss.

    Parameters
    ----------
    measure : str
        A measure name in any case (``"md"``, ``"SMD"``, ``" zcor "``).
    dataset : str, optional
        Named in the error message when given.

    Returns
    -------
    str
        One of ``MEASURES``: ``"MD"``, ``"SMD"``, ``"SMCC"``, ``"SMCR"``, ``"ZCOR"``.

    Raises
    ------
    EffectSizeError
        An unknown name, or not a string.

    Examples
    --------
    >>> from ranger_eval.effects.measures import canonical_measure
    >>> canonical_measure("smd")
    'SMD'
    >>> canonical_measure("smdd", "d1")
    Traceback (most recent call last):
    ...
    ranger_eval.errors.EffectSizeError: unknown measure 'smdd' for dataset 'd1'; ... 'SMD'?)
    """
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

    Parameters
    ----------
    treatment, control : array_like or pandas.Series
        Per-item scores of the two systems (Series are paired by their index).
    measure : {"MD", "SMD", "SMCC", "SMCR", "ZCOR"}, default "SMD"
        The effect measure (module docstring).
    level : float, default 0.95
        Level of the effect's confidence interval.
    dataset : str, optional
        Names the data in error messages.

    Returns
    -------
    EffectSize
        ``yi`` (effect), ``vi`` (sampling variance), ``n``, ``measure``, the two means.

    Raises
    ------
    EffectSizeError
        Too few items, different lengths or ids, non-finite scores, an undefined effect.

    References
    ----------
    Borenstein, M., Hedges, L. V., Higgins, J. P. T. & Rothstein, H. R. (2009), *Introduction to
    Meta-Analysis*, Wiley, eqs. 4.27–4.28 (paired SMD: S_within = sd(d) / sqrt(2(1 − r)),
    yi = J·mean(d)/S_within). metafor's ``escalc`` (MC, SMCC, SMCR, ZCOR).

    Examples
    --------
    >>> import ranger_eval as rg
    >>> t, c = [0.3, 0.5, 0.45, 0.95, 0.6], [0.1, 0.4, 0.35, 0.8, 0.5]
    >>> e = rg.effect_size(t, c)
    >>> e.measure, round(e.yi, 4), round(e.vi, 5), e.n
    ('SMD', 0.4065, 0.00442, 5)
    >>> md = rg.effect_size(t, c, measure="MD")
    >>> round(md.yi, 4), round(md.vi, 6)
    (0.13, 0.0004)
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

    Parameters
    ----------
    table : PairedTable
        Treatment and control values of every dataset (:meth:`Scores.pair_all`).
    measure : str
        One of ``MEASURES`` (any case).
    level : float, default 0.95
        Confidence level passed to :func:`effect_size` for the degenerate datasets.
    problems : dict, optional
        Collects dataset → reason for every degenerate dataset instead of raising.

    Returns
    -------
    tuple of four ndarray
        ``yi``, ``vi``, ``mean_treatment`` and ``mean_control``, one entry per dataset of
        ``table``, in its order.

    Raises
    ------
    EffectSizeError
        An unknown measure or bad level, or (without ``problems``) the first degenerate dataset
        without a defined answer.

    References
    ----------
    Borenstein, Hedges, Higgins & Rothstein (2009), *Introduction to Meta-Analysis*, Wiley,
    ch. 4 (the paired-design formulas).

    Examples
    --------
    >>> import pandas as pd
    >>> import ranger_eval as rg
    >>> from ranger_eval.effects.measures import table_effects
    >>> control = [0.1, 0.4, 0.35, 0.8, 0.5, 0.2, 0.3, 0.4, 0.5, 0.6]
    >>> treatment = [0.3, 0.5, 0.45, 0.95, 0.6, 0.25, 0.3, 0.5, 0.55, 0.7]
    >>> scores = rg.Scores(pd.DataFrame({
    ...     "dataset": (["d1"] * 5 + ["d2"] * 5) * 2, "metric": "acc",
    ...     "system": ["A"] * 10 + ["B"] * 10, "item": list(range(5)) * 4,
    ...     "value": control + treatment}))
    >>> yi, vi, mean_t, mean_c = table_effects(scores.pair_all("B", "A"), "MD")
    >>> yi.round(4).tolist(), vi.round(6).tolist()
    ([0.13, 0.06], [0.0004, 0.00035])
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

