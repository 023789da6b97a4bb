"""The result classes of effect sizes: :class:`EffectSizes` (every dataset, what
:func:`~ranger_eval.effects.effect_sizes` returns and :func:`~ranger_eval.meta_analysis` reads) and
:class:`BootstrapEffectSize` (one dataset on a set-level metric,
:func:`~ranger_eval.effects.effect_size_bootstrap`). The single-dataset :class:`EffectSize` lives
with its formulas in :mod:`ranger_eval.effects.measures`."""
from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from ..errors import EffectSizeError
from ..settings import MetaSettings
from ..signature import Signature, make_signature
from .measures import GENERIC, EffectSize, _check_level, z_critical

_CORE_COLUMNS = (
    "dataset", "yi", "vi", "se", "ci_low", "ci_high", "n", "mean_control", "mean_treatment",
)


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
    #: the settings object of the :func:`~ranger_eval.effect_size_bootstrap` call
    settings: MetaSettings | None = field(default=None, compare=False, repr=False)

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
    were combined (:mod:`ranger_eval.effects.seeds`). :attr:`signature` records them. ``skipped`` maps
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
    #: ``Scores.passk``: "pass@K" / "pass^K" when the per-item values are that estimator's
    passk: str | None = None
    #: the cluster field's name (``Scores.cluster_name``, e.g. "passage") when the scores have a
    #: cluster column: vi is cluster-robust (:mod:`ranger_eval.effects.variances`)
    cluster: str | None = None
    #: "ppi++" when yi and vi are prediction-powered (judge scores with human scores)
    ppi: str | None = None
    #: the settings object of the :func:`~ranger_eval.effect_sizes` call that made these effects
    #: (None when made directly, e.g. :meth:`from_arrays`)
    settings: MetaSettings | None = field(default=None, compare=False, repr=False)

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
            "passk": self.passk, "samples": self.samples, "cluster": self.cluster,
            "ppi": self.ppi,
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

