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
"""
from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd
from scipy.special import gammaln
from scipy.stats import norm

from .errors import EffectSizeError, check_level

if TYPE_CHECKING:
    from .scores import Scores

MEASURES = ("MD", "SMD", "SMCC", "SMCR", "ZCOR")
MIN_N = {"MD": 2, "SMD": 3, "SMCC": 3, "SMCR": 3, "ZCOR": 4}
GENERIC = "GEN"  # metafor's name for an outcome supplied as plain yi/vi
_CORE_COLUMNS = (
    "dataset", "yi", "vi", "se", "ci_low", "ci_high", "n", "mean_control", "mean_treatment",
)
_R_TOL = 1e-12  # |r| within this of 1 is r = ±1 up to rounding
_SHIFT_TOL = 1e-12  # sd(t − c) below this times max |score| is rounding noise: a constant shift


def _check_level(level: float) -> float:
    return check_level(level, error=EffectSizeError)


def _z_crit(level: float) -> float:
    """Two-sided normal quantile z_{(1+level)/2}, from the survival function."""
    return float(norm.isf((1.0 - level) / 2.0))


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
        return float(self.yi - _z_crit(self.level) * self.se)

    @property
    def ci_high(self) -> float:
        return float(self.yi + _z_crit(self.level) * self.se)

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


def effect_size(
    treatment: Sequence[float] | np.ndarray,
    control: Sequence[float] | np.ndarray,
    measure: str = "SMD",
    level: float = 0.95,
    *,
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
    if measure not in MEASURES:
        raise EffectSizeError(
            f"unknown measure {measure!r}"
            + (f" for dataset {dataset!r}" if dataset is not None else "")
            + f"; valid measures: {', '.join(MEASURES)}"
        )
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

    mean_t, mean_c = float(t.mean()), float(c.mean())

    def result(yi: float, vi: float) -> EffectSize:
        return EffectSize(float(yi), float(vi), n, measure, mean_t, mean_c, level, dataset)

    diff = t - c
    if measure == "MD":
        return result(diff.mean(), diff.var(ddof=1) / n)

    identical = bool(np.array_equal(t, c))
    if identical and measure != "ZCOR":
        return result(0.0, 1.0 / n if measure == "SMCC" else 0.0)

    for role, x in (("treatment", t), ("control", c)):
        if np.ptp(x) == 0:
            raise EffectSizeError(
                f"{where}: the {role} scores are constant (all {float(x[0])!r}), so the correlation "
                "between the systems is undefined"
                + (" (identical systems: r = 1, Fisher's z is infinite)" if identical else "")
            )
    tc, cc = t - mean_t, c - mean_c
    sd_c = float(np.sqrt(cc @ cc / (n - 1)))
    r = float(np.clip((tc @ cc) / np.sqrt((tc @ tc) * (cc @ cc)), -1.0, 1.0))
    s_diff = float(diff.std(ddof=1))
    scale = max(float(np.abs(t).max()), float(np.abs(c).max()))
    shift = s_diff <= _SHIFT_TOL * scale

    if measure in ("SMD", "SMCC") and shift:
        raise EffectSizeError(
            f"{where}: treatment − control is the same on every item ({float(diff.mean())!r}), so "
            "the differences have zero standard deviation and the standardised effect is undefined "
            "(use measure='MD')"
        )
    if measure == "SMD":
        if 1.0 - r <= _R_TOL:
            raise EffectSizeError(
                f"{where}: treatment and control are perfectly correlated (r = {r!r}), so "
                "S_within = S_diff / sqrt(2(1 − r)) is undefined"
            )
        s_within = s_diff / np.sqrt(2.0 * (1.0 - r))
        d = float(diff.mean()) / s_within
        v_d = (1.0 / n + d * d / (2.0 * n)) * 2.0 * (1.0 - r)
        j = hedges_j(n - 1)
        return result(j * d, j * j * v_d)
    if measure == "SMCC":
        yi = metafor_cmi(n - 1) * float(diff.mean()) / s_diff
        return result(yi, 1.0 / n + yi * yi / (2.0 * n))
    if measure == "SMCR":
        yi = metafor_cmi(n - 1) * (mean_t - mean_c) / sd_c
        return result(yi, 2.0 * (1.0 - r) / n + yi * yi / (2.0 * n))
    # ZCOR
    if 1.0 - abs(r) <= _R_TOL:
        raise EffectSizeError(
            f"{where}: treatment and control are perfectly correlated (r = {r!r}), so Fisher's "
            "z = atanh(r) is infinite"
        )
    return result(np.arctanh(r), 1.0 / (n - 3))


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
        unknown = [x for x in self.dropped if x not in names]
        if unknown:
            raise EffectSizeError(f"dropped counts for unknown dataset(s): {unknown}")
        set_(self, "dropped", {str(x): int(v) for x, v in self.dropped.items()})
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
    def k(self) -> int:
        return len(self.names)

    @property
    def se(self) -> np.ndarray:
        return np.sqrt(self.vi)

    @property
    def ci_low(self) -> np.ndarray:
        """yi − z_{(1+level)/2} · se (normal interval per dataset)."""
        return self.yi - _z_crit(self.level) * self.se

    @property
    def ci_high(self) -> np.ndarray:
        """yi + z_{(1+level)/2} · se."""
        return self.yi + _z_crit(self.level) * self.se

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

        ``extra`` and ``dropped`` follow the new names; the new names must stay unique.
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
        return dataclasses.replace(self, names=names, extra=extra, dropped=dropped)


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
    unknown = [x for x in frame.index if x not in names]
    if unknown:
        raise EffectSizeError(f"extra columns: unknown dataset(s) {unknown[:10]}; known: {list(names)}")
    clash = [col for col in frame.columns if col in _CORE_COLUMNS]
    if clash:
        raise EffectSizeError(f"extra columns may not reuse the core column name(s) {clash}")
    frame.columns = [str(col) for col in frame.columns]
    frame = frame.reindex(list(names))
    frame.index.name = "dataset"
    return frame


def effect_sizes(
    scores: Scores | pd.DataFrame,
    treatment: str,
    control: str,
    measure: str = "SMD",
    metric: str | None = None,
    datasets: Sequence[str] | None = None,
    missing: str = "error",
    level: float = 0.95,
) -> EffectSizes:
    """Effect of ``treatment`` over ``control`` on every dataset of ``scores`` (items paired by id
    with ``Scores.pair``; ``missing`` is its policy). ``datasets`` selects and orders datasets
    (default: order of first appearance); ``metric=None`` uses each dataset's only metric."""
    from .scores import Scores

    if measure not in MEASURES:
        raise EffectSizeError(f"unknown measure {measure!r}; valid measures: {', '.join(MEASURES)}")
    level = _check_level(level)
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
        unknown = [x for x in chosen if x not in known]
        if unknown:
            raise EffectSizeError(f"unknown dataset(s) {unknown}; known: {list(known)}")
        if len(set(chosen)) != len(chosen):
            raise EffectSizeError(f"datasets lists a dataset twice: {list(chosen)}")
        if not chosen:
            raise EffectSizeError("datasets is empty")
    results: list[EffectSize] = []
    metrics: list[str] = []
    dropped: dict[str, int] = {}
    for name in chosen:
        pair = scores.pair(name, treatment, control, metric=metric, missing=missing)
        results.append(effect_size(pair.treatment, pair.control, measure, level, dataset=name))
        metrics.append(pair.metric)
        if pair.n_dropped:
            dropped[name] = int(pair.n_dropped)
    common = metric if metric is not None else (metrics[0] if len(set(metrics)) == 1 else None)
    return EffectSizes(
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
        dropped=dropped,
        metrics=tuple(metrics),
    )
