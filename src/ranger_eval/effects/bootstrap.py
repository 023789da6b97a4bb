"""Effect sizes of set-level metrics, with their paired bootstrap variance.

Metrics that are not means of per-item scores (F1, MCC, correlations, corpus BLEU, any callable;
:mod:`ranger_eval.setmetrics`) have no variance formula. With ``metric_fn=`` the effect is the
raw difference ``yi = metric(treatment) − metric(control)`` on all n items (measure "MD" of the
metric) and ``vi`` its paired bootstrap variance: items are drawn with replacement, jointly for
both systems (:class:`~ranger_eval.stats.resampling.BootstrapIndices`, ``n_resamples``, ``seed``),
the difference is recomputed on every resample and vi = var(differences, ddof = 1) (Efron &
Tibshirani 1993, ch. 6; Koehn 2004 for corpus metrics). Same data and seed → identical vi.

Seeds (several training runs per system)
----------------------------------------

Several runs (seeds) are combined as in :mod:`ranger_eval.effects.seeds`: the bootstrap draws
items jointly for every seed.
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from ..errors import EffectSizeError, Hint
from ..setmetrics import (
    SetMetric,
    bootstrap_values,
    cluster_bootstrap_values,
    encode,
    get_metric,
    undefined_resamples,
)
from ..settings import MetaSettings, resolve_settings
from ..stats.clustered import cluster_codes
from ..stats.resampling import StatsInputError
from .measures import _check_level
from .results import BootstrapEffectSize
from .seeds import _Combined, _seed_policy, _var

if TYPE_CHECKING:
    from ..scores import SystemRuns

#: MetaSettings' defaults: the keyword defaults of :func:`effect_size_bootstrap` (one place)
_DEFAULT = MetaSettings()


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
    metric_fn: object = _DEFAULT.metric_fn,
    labels: object | None = None,
    n_resamples: int = _DEFAULT.n_resamples,
    seed: int | None = _DEFAULT.seed,
    level: float = _DEFAULT.level,
    seeds: str = _DEFAULT.seeds,
    dataset: str | None = None,
    clusters: object | None = None,
    cluster_name: str = "cluster",
    settings: MetaSettings | None = None,
) -> BootstrapEffectSize:
    """Effect of ``treatment`` over ``control`` on a set-level metric, paired bootstrap variance.

    ``metric_fn`` is a name of :data:`ranger_eval.setmetrics.NAMES` (``"mcc"``, ``"macro_f1"``,
    …), a :class:`~ranger_eval.setmetrics.SetMetric` or a callable ``fn(labels, predictions)`` /
    ``fn(values)``. ``treatment`` and ``control`` are the systems' predictions (or values)
    aligned by position with ``labels``; 2-D input is seeds × items, the seeds combined as in the
    :mod:`ranger_eval.effects.seeds` (rows paired in order; different numbers of rows need
    ``seeds="allow-unbalanced"``). yi = metric(treatment) − metric(control), vi = the variance of
    the differences over ``n_resamples`` paired bootstrap resamples (seeded; ddof = 1) plus the
    between-seed part. ``clusters`` (one cluster id per item, aligned with the items; None:
    independent items) makes whole clusters the resampling unit (every item of a drawn cluster,
    for both systems and every seed; :func:`ranger_eval.setmetrics.cluster_bootstrap_values`),
    as :func:`effect_sizes` does for scores with a cluster column; ``cluster_name`` names the
    field in the signature (``resample:cluster(passage)``). Raises :class:`EffectSizeError`.

    ``settings`` (a :class:`~ranger_eval.settings.MetaSettings`) gives ``metric_fn``,
    ``n_resamples``, ``seed``, ``level`` and ``seeds`` at once (its other fields are not read
    here; ``treatment`` and ``control`` are the data, not the settings' system names); the
    keywords' defaults are its defaults and a keyword that differs from its default beside it
    is a :class:`~ranger_eval.errors.SettingsError`. ``metric_fn`` is required: the keyword or
    ``settings.metric_fn``. The result records the settings object (``.settings``).

    Parameters
    ----------
    treatment, control : array_like
        The systems' predictions (or values), 1-D or seeds × items.
    metric_fn : str, SetMetric or callable
        The set-level metric (required, here or in ``settings``).
    labels : array_like, optional
        Gold labels aligned with the items.
    n_resamples : int, default 1000
        Paired bootstrap resamples.
    seed : int or None, default 0
        Seed of the bootstrap.
    level : float, default 0.95
        Level of the effect's interval.
    seeds : {"balanced", "allow-unbalanced"}, default "balanced"
        Whether the two systems may have different numbers of seed rows.
    dataset : str, optional
        Names the data in error messages.
    clusters : array_like, optional
        One cluster id per item (whole clusters are resampled).
    cluster_name : str, default "cluster"
        The cluster field's name in the signature.
    settings : MetaSettings, optional
        ``metric_fn``, ``n_resamples``, ``seed``, ``level`` and ``seeds`` as one object.

    Returns
    -------
    BootstrapEffectSize
        ``yi`` = metric(treatment) − metric(control), ``vi`` (bootstrap variance plus the
        between-seed part), ``n_resamples`` and ``settings``.

    Raises
    ------
    EffectSizeError
        Misaligned input, no ``metric_fn``, or an undefined metric.

    References
    ----------
    Efron, B. & Tibshirani, R. J. (1993), *An Introduction to the Bootstrap*, Chapman & Hall
    (the bootstrap variance of a statistic).

    Examples
    --------
    >>> import ranger_eval as rg
    >>> from ranger_eval.settings import MetaSettings
    >>> labels = [0, 1, 1, 0, 1, 0, 1, 1]
    >>> e = rg.effect_size_bootstrap([0, 1, 1, 0, 1, 0, 1, 0], [0, 1, 0, 0, 1, 1, 1, 0],
    ...                              labels=labels,
    ...                              settings=MetaSettings(metric_fn="accuracy", n_resamples=200))
    >>> round(e.yi, 3), e.n_resamples, e.settings.metric_fn
    (0.25, 200, 'accuracy')
    """
    settings = resolve_settings(MetaSettings, {
        "metric_fn": metric_fn, "n_resamples": n_resamples, "seed": seed, "level": level,
        "seeds": seeds}, settings, where="effect_size_bootstrap")
    metric_fn, n_resamples, seed = settings.metric_fn, settings.n_resamples, settings.seed
    level, seeds = settings.level, settings.seeds
    if metric_fn is None:
        raise EffectSizeError("effect_size_bootstrap: metric_fn is required (a set-level "
                              "metric's name, a SetMetric or a callable; the keyword or "
                              "settings.metric_fn)")
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
        n_units=res.n if codes is None else int(codes.max()) + 1, settings=settings,
    )



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

