"""Søgaard's (2013) error reduction: the per-dataset effect of the cross-dataset estimators.

Søgaard (2013), *Estimating effect size across datasets*, NAACL-HLT, §2–3. :func:`error_reduction`
is the effect ``T_i``, the relative reduction of the control's error on dataset i: with per-item
errors ``1 − score`` (scores in [0, 1], e.g. 0/1 correctness or per-resample accuracies),
``e = mean(1 − score)`` and

.. math:: T_i = (e_{control} − e_{treatment}) / e_{control}

(positive when the treatment makes fewer errors; T ≤ 1, unbounded below). Its within-dataset
variance ``v_i`` is the sample variance (ddof = 1) of ``T`` over ``n_resamples`` paired bootstrap
resamples of the items (both systems resampled with the same item indices); Søgaard took "50
paired bootstrap samples of the system outputs" (§3). The estimators that summarise these effects
across datasets, and the held-out predictive check, are in :mod:`ranger_eval.aggregate.crossdataset`.

Randomness is seeded and reproducible: the bootstrap of dataset ``name`` uses
``numpy.random.default_rng([seed, 0, zlib.crc32(name.encode("utf-8"))])`` (so a dataset's variance
does not depend on which other datasets are analysed, nor on their order), with one
``integers(0, n, size=(n_resamples, n))`` index matrix over the items in ``Scores.pair`` order
(sorted item ids), drawn in row batches of bounded size (the same numbers as one call).
"""
from __future__ import annotations

import zlib
from collections.abc import Sequence
from dataclasses import dataclass, field
from numbers import Integral
from typing import Any

import numpy as np
import pandas as pd

from ..design import refuse_prompts, resolve_design
from ..errors import AggregateError
from ..scores import Scores, as_scores
from ..settings import ErrorReductionSettings, resolve_settings
from ..signature import Signature, make_signature

__all__ = ["ErrorReduction", "error_reduction"]

MEASURE = "error_reduction"
#: the defaults of error_reduction's keywords: those of its settings object (one place)
_DEFAULT_ER = ErrorReductionSettings()
_MAX_CELLS = 4_000_000  # entries of one bootstrap index batch (32 MB of int64)


# =============================================================================== validation
def _check_int(name: str, value: object, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, Integral) or int(value) < minimum:
        raise AggregateError(f"{name} must be an integer ≥ {minimum}; got {value!r}")
    return int(value)


def _check_seed(seed: object) -> int:
    if isinstance(seed, bool) or not isinstance(seed, Integral) or int(seed) < 0:
        raise AggregateError(f"seed must be a non-negative integer; got {seed!r}")
    return int(seed)


def _dataset_rng(seed: int, name: str) -> np.random.Generator:
    return np.random.default_rng([seed, 0, zlib.crc32(name.encode("utf-8"))])


def _readonly(a: Any, dtype: Any = np.float64) -> np.ndarray:
    out = np.array(a, dtype=dtype)
    out.setflags(write=False)
    return out


# =============================================================================== error reduction
@dataclass(frozen=True, eq=False)
class ErrorReduction:
    """Per-dataset error reductions ``yi`` of ``treatment`` over ``control`` and their
    paired-bootstrap variances ``vi`` (Søgaard 2013; see the module docstring). Arrays align with
    ``names``.

    ``e_control``/``e_treatment`` are the mean per-item errors ``mean(1 − score)``; ``n`` the
    number of paired items. Works wherever an ``EffectSizes`` does (``meta_analysis(er)``,
    :func:`cross_dataset_estimates`).
    """

    names: tuple[str, ...]
    yi: np.ndarray
    vi: np.ndarray
    n: np.ndarray
    e_control: np.ndarray
    e_treatment: np.ndarray
    n_resamples: int
    seed: int
    treatment: str
    control: str
    metric: str | None = None
    metrics: tuple[str, ...] | None = None
    measure: str = MEASURE
    #: the bootstrap's unit (:mod:`ranger_eval.design`): ``item``, or ``cluster(NAME)`` (whole
    #: clusters drawn, the same for both systems)
    resample: str = "item"
    #: the clusters of the cluster column (its name) when the unit is the cluster, else None
    cluster: str | None = None
    signature: Signature = field(init=False, repr=False)
    #: the settings object of the call that made this result (:func:`error_reduction`)
    settings: ErrorReductionSettings | None = field(default=None, compare=False, repr=False)

    def __post_init__(self) -> None:
        set_ = object.__setattr__
        set_(self, "names", tuple(str(x) for x in self.names))
        for name in ("yi", "vi", "e_control", "e_treatment"):
            set_(self, name, _readonly(getattr(self, name)))
        set_(self, "n", _readonly(self.n, np.int64))
        set_(self, "signature", make_signature("effects", {
            "measure": self.measure, "method_detail": "paired-bootstrap",
            "n_resamples": self.n_resamples, "seed": self.seed, "cluster": self.cluster,
            "resample": self.resample,
        }))

    @property
    def se(self) -> np.ndarray:
        return np.sqrt(self.vi)

    def __len__(self) -> int:
        return len(self.names)

    def to_frame(self) -> pd.DataFrame:
        """One row per dataset: dataset, yi, vi, se, n, e_control, e_treatment."""
        return pd.DataFrame({
            "dataset": list(self.names), "yi": self.yi, "vi": self.vi, "se": self.se,
            "n": self.n, "e_control": self.e_control, "e_treatment": self.e_treatment,
        })

    def __str__(self) -> str:
        unit = "" if self.cluster is None else f" of whole clusters ({self.cluster})"
        head = (f"Error reduction of {self.treatment!r} over {self.control!r} "
                f"({self.n_resamples} paired bootstrap resamples{unit}, seed {self.seed})")
        return f"{head}\n{self.to_frame().to_string(index=False)}\n{self.signature}"


def _check_unit_interval(x: np.ndarray, items: np.ndarray, dataset: str, system: str) -> None:
    bad = np.flatnonzero((x < 0.0) | (x > 1.0))
    if bad.size:
        i = int(bad[0])
        raise AggregateError(
            f"error reduction needs scores in [0, 1] (accuracy-like; error = 1 − score): dataset "
            f"{dataset!r}, system {system!r}, item {items[i]!r} has value {float(x[i])!r}"
            + (f" ({bad.size} values outside [0, 1])" if bad.size > 1 else "")
        )


def _bootstrap_reductions(
    err_t: np.ndarray, err_c: np.ndarray, n_resamples: int, rng: np.random.Generator,
    codes: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Bootstrap ``(e_control, e_treatment)`` means: one index matrix, drawn in row batches.
    With ``codes`` (each item's cluster, 0 … C − 1; the design's unit) the index matrix draws
    C clusters and a resample's mean is ``Σ S_k / Σ m_k`` over the clusters drawn (S_k the
    cluster's error sum, m_k its items)."""
    if codes is not None:
        c = int(codes.max()) + 1
        s_t = np.bincount(codes, weights=err_t, minlength=c)
        s_c = np.bincount(codes, weights=err_c, minlength=c)
        m = np.bincount(codes, minlength=c).astype(np.float64)
        err_t, err_c = s_t, s_c  # cluster sums, drawn like items below, then over Σ m_k
    n = err_t.size
    batch = max(1, _MAX_CELLS // n)
    ec = np.empty(n_resamples)
    et = np.empty(n_resamples)
    for start in range(0, n_resamples, batch):
        stop = min(start + batch, n_resamples)
        idx = rng.integers(0, n, size=(stop - start, n))
        if codes is None:
            ec[start:stop] = err_c[idx].mean(axis=1)
            et[start:stop] = err_t[idx].mean(axis=1)
        else:
            size = m[idx].sum(axis=1)
            ec[start:stop] = err_c[idx].sum(axis=1) / size
            et[start:stop] = err_t[idx].sum(axis=1) / size
    return ec, et


def error_reduction(
    scores: Scores | pd.DataFrame,
    *,
    treatment: str,
    control: str,
    metric: str | None = None,
    n_resamples: int = _DEFAULT_ER.n_resamples,
    seed: int = _DEFAULT_ER.seed,
    datasets: Sequence[str] | None = None,
    missing: str = _DEFAULT_ER.missing,
    settings: ErrorReductionSettings | None = None,
) -> ErrorReduction:
    """Søgaard's error reduction of ``treatment`` over ``control`` on every dataset, with its
    paired-bootstrap variance.

    For each dataset the two systems' items are aligned by id (``Scores.pair``; ``missing`` is its
    policy), the per-item errors are ``1 − score`` (scores must lie in [0, 1]), and

    ``yi = (e_c − e_t) / e_c`` with ``e = mean(1 − score)``;
    ``vi = var_{ddof=1}(T*_1, …, T*_B)``, ``T*_b`` the same reduction on the b-th paired bootstrap
    resample (items drawn with replacement, the same indices for both systems), ``B = n_resamples``.
    With a ``cluster`` column the resampling unit is the cluster (:mod:`ranger_eval.design`):
    whole clusters are drawn (the same for both systems) and each resample's ``e`` is the ratio
    ``Σ S_k / Σ m_k`` over the clusters drawn; the signature says ``resample:cluster(NAME)``.

    ``datasets`` selects and orders datasets (default: order of first appearance). Raises
    :class:`AggregateError` naming the dataset when the control makes no error (``e_c = 0``: the
    reduction is undefined) on the data or on some bootstrap resample, for scores outside [0, 1],
    or for fewer than 2 items.

    Parameters
    ----------
    scores : Scores or pandas.DataFrame
        Scores in [0, 1] of both systems on every dataset.
    treatment, control : str
        The two systems; the reduction is of the control's error by the treatment.
    metric : str, optional
        Needed when the scores hold several metrics.
    n_resamples : int, default 50
        Paired bootstrap resamples per dataset (Søgaard's 50).
    seed : int, default 0
        Seed of the bootstrap (per dataset, see the module docstring).
    datasets : sequence of str, optional
        Selects and orders datasets (default: all, in order of first appearance).
    missing : {"error", "intersect"}, default "error"
        Items one system lacks: an error listing them, or the common items only.
    settings : ErrorReductionSettings, optional
        Instead of ``n_resamples``, ``seed`` and ``missing`` (a keyword other than its default
        next to it is a :class:`~ranger_eval.errors.SettingsError` naming the clash).

    Returns
    -------
    ErrorReduction
        ``yi``, ``vi``, ``n``, ``e_control``, ``e_treatment`` aligned with ``names``; usable
        wherever an ``EffectSizes`` is; ``.settings`` the settings object of the call.

    Raises
    ------
    AggregateError
        Unknown system or dataset, scores outside [0, 1], fewer than 2 items, a control with no
        error on the data or on a resample.

    References
    ----------
    Søgaard, A. (2013), "Estimating effect size across datasets", Proceedings of NAACL-HLT 2013. §2–3.

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
    >>> er.to_frame()[["dataset", "yi", "vi", "n"]].round(4)
      dataset      yi      vi   n
    0      d0  0.1751  0.0005  20
    1      d1  0.1368  0.0007  20
    2      d2  0.1187  0.0003  20
    3      d3  0.1278  0.0005  20
    """
    # one check, the settings': SettingsError (an AggregateError) naming the key and value
    settings = resolve_settings(ErrorReductionSettings, {
        "n_resamples": n_resamples, "seed": seed, "missing": missing}, settings,
        where="error_reduction")
    n_resamples, seed, missing = settings.n_resamples, settings.seed, settings.missing
    scores = as_scores(scores, what="error_reduction", error=AggregateError)
    refuse_prompts(scores, where="error_reduction", error=AggregateError,
                   why="its bootstrap draws per-item means of the two systems")
    treatment, control = str(treatment), str(control)
    if treatment == control:
        raise AggregateError(f"treatment and control are the same system {treatment!r}")
    for system in (treatment, control):
        if system not in scores.systems:
            raise AggregateError(f"unknown system {system!r}; known: {list(scores.systems)}")
    if datasets is None:
        chosen = scores.datasets
    else:
        chosen = (str(datasets),) if isinstance(datasets, str) else tuple(str(d) for d in datasets)
        unknown = [d for d in chosen if d not in scores.datasets]
        if unknown:
            raise AggregateError(f"unknown dataset(s) {unknown}; known: {list(scores.datasets)}")
        if not chosen or len(set(chosen)) != len(chosen):
            raise AggregateError(f"datasets must list each dataset once; got {list(chosen)}")
    # one small Scores per dataset: Scores.pair scans the whole table, so pairing 100 datasets
    # in one big table costs ~3x more than splitting it once
    design = resolve_design(scores)
    frame = scores.filter(systems=[treatment, control], datasets=chosen).frame
    parts = dict(tuple(frame.groupby("dataset", sort=False)))
    yi, vi, n, e_c, e_t, metrics = [], [], [], [], [], []
    for name in chosen:
        if name not in parts:
            raise AggregateError(f"dataset {name!r} has no scores of {treatment!r} or {control!r}")
        pair = Scores(parts[name]).pair(name, treatment, control, metric=metric, missing=missing)
        if pair.n < 2:
            raise AggregateError(f"dataset {name!r} has {pair.n} paired item(s); the bootstrap "
                                 "variance of the error reduction needs at least 2")
        _check_unit_interval(pair.treatment, pair.items, name, treatment)
        _check_unit_interval(pair.control, pair.items, name, control)
        err_t = 1.0 - pair.treatment
        err_c = 1.0 - pair.control
        ec, et = float(err_c.mean()), float(err_t.mean())
        if ec == 0.0:
            raise AggregateError(
                f"dataset {name!r}: the control {control!r} makes no error (all {pair.n} items "
                "score 1), so the error reduction (e_c − e_t)/e_c is undefined; leave the dataset "
                "out or use an effect such as 'MD'"
            )
        codes = design.units(name, pair.items) if design.clustered else None
        if codes is not None and int(codes.max()) < 1:
            raise AggregateError(
                f"dataset {name!r}: all {pair.n} paired items are in one cluster "
                f"({design.cluster_name}); the cluster bootstrap of the error reduction needs at "
                "least 2 clusters")
        boot_c, boot_t = _bootstrap_reductions(err_t, err_c, n_resamples,
                                               _dataset_rng(seed, name), codes)
        zero = int(np.count_nonzero(boot_c == 0.0))
        if zero:
            raise AggregateError(
                f"dataset {name!r}: the control {control!r} makes no error in {zero} of "
                f"{n_resamples} bootstrap resamples (it errs on few items: e_c = {ec:.4g}), so the "
                "bootstrap variance of the error reduction is undefined; leave the dataset out or "
                "use an effect such as 'MD'"
            )
        yi.append((ec - et) / ec)
        vi.append(float(np.var((boot_c - boot_t) / boot_c, ddof=1)))
        n.append(pair.n)
        e_c.append(ec)
        e_t.append(et)
        metrics.append(pair.metric)
    common = metric if metric is not None else (metrics[0] if len(set(metrics)) == 1 else None)
    return ErrorReduction(
        names=chosen, yi=np.array(yi), vi=np.array(vi), n=np.array(n), e_control=np.array(e_c),
        e_treatment=np.array(e_t), n_resamples=n_resamples, seed=seed, treatment=treatment,
        control=control, metric=common, metrics=tuple(metrics), resample=design.label,
        cluster=design.cluster_name, settings=settings,
    )
