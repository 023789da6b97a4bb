"""Effect sizes of every dataset of a table of scores: :func:`effect_sizes`.

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
"""
from __future__ import annotations

import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from ..design import resolve_design
from ..errors import EffectSizeError, Hint, RangerWarning, SettingsError, check_choice
from ..scores import Scores, passk_fields, seed_imbalance
from ..setmetrics import SetMetric, get_metric
from ..settings import DEGENERATE, MetaSettings, resolve_settings
from .bootstrap import _check_resampling, _metric_effect
from .measures import _check_level, _reason, canonical_measure, table_effects
from .ppi import _judged, _ppi_effects
from .results import EffectSizes
from .seeds import _Combined, _item_effect, _seed_policy
from .variances import _zero_reasons, cluster_robust_variances

#: What :func:`effect_sizes` does with degenerate datasets (module docstring).
DEGENERATE_POLICIES = DEGENERATE
#: MetaSettings' defaults: the keyword defaults of :func:`effect_sizes` (one place)
_DEFAULT = MetaSettings()


def degenerate_text(problems: dict[str, str], limit: int = 20) -> str:
    """``'a' (reason); 'b' (reason)`` for at most ``limit`` datasets, then ``… (N in all)``: how
    every error and warning about degenerate datasets lists them.

    Parameters
    ----------
    problems : dict of str to str
        Dataset name → why it is degenerate, in the order to list them.
    limit : int, default 20
        The most datasets named; the rest are counted.

    Returns
    -------
    str
        The list as one line of text.

    Examples
    --------
    >>> from ranger_eval.effects.sizes import degenerate_text
    >>> degenerate_text({"d1": "identical systems", "d2": "one item"})
    "'d1' (identical systems); 'd2' (one item)"
    >>> degenerate_text({"d1": "identical systems", "d2": "one item"}, limit=1)
    "'d1' (identical systems); … (2 in all)"
    """
    shown = "; ".join(f"{name!r} ({why})" for name, why in list(problems.items())[:limit])
    return shown + (f"; … ({len(problems)} in all)" if len(problems) > limit else "")



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
    treatment: str | None = _DEFAULT.treatment,
    control: str | None = _DEFAULT.control,
    measure: str | None = None,
    metric: str | None = None,
    datasets: Sequence[str] | None = None,
    missing: str = "error",
    level: float = _DEFAULT.level,
    metric_fn: object | None = _DEFAULT.metric_fn,
    n_resamples: int = _DEFAULT.n_resamples,
    seed: int | None = _DEFAULT.seed,
    seeds: str = _DEFAULT.seeds,
    degenerate: str = _DEFAULT.degenerate,
    settings: MetaSettings | None = None,
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
    drawn with ``seed`` (module docstring of :mod:`~ranger_eval.effects.bootstrap`). With a
    ``seed`` column the runs are combined as in :mod:`ranger_eval.effects.seeds`;
    ``seeds="allow-unbalanced"`` accepts systems with different seeds.
    ``degenerate`` (:data:`DEGENERATE_POLICIES`): ``"error"`` raises one error listing every
    dataset whose effect is undefined, ``"drop"`` leaves those and the zero-variance datasets out
    with a warning and records them in ``EffectSizes.skipped`` (module docstring).

    Settings: ``settings`` (a :class:`~ranger_eval.settings.MetaSettings`, the settings of
    ``ranger-eval meta``) gives ``measure``, ``level``, ``metric_fn``, ``n_resamples``, ``seed``,
    ``seeds`` and ``degenerate`` at once, and ``treatment``/``control`` when the keywords are
    absent; the keywords' defaults are its defaults, a keyword that differs from its default
    beside ``settings`` is a :class:`~ranger_eval.errors.SettingsError` (as is a ``treatment`` or
    ``control`` keyword that differs from the one in ``settings``). Its other fields (``method``,
    ``test``, ``order``, ``margin``) are the meta-analysis' and are not read here. The result
    records the settings object in ``EffectSizes.settings``. One default differs on purpose:
    the ``measure`` keyword defaults to None, "the data's measure": SMD for per-item scores, MD
    (the raw difference) for a set-level ``metric_fn`` (given, or declared by the scores'
    ``set_metric`` column) and for judge scores with human scores, the only measure those have;
    ``MetaSettings().measure`` is "SMD", and in a settings object that default is read the same
    way (as ``ranger-eval meta`` reads an absent ``--measure``), so ``settings=MetaSettings()``
    and no keyword give the same numbers. An explicit ``measure="SMD"`` keyword with a
    ``metric_fn`` is an error.

    Parameters
    ----------
    scores : Scores or pandas.DataFrame
        Per-item scores of (at least) the two systems.
    treatment, control : str, optional
        The two systems (required, here or in ``settings``).
    measure : {"MD", "SMD", "SMCC", "SMCR", "ZCOR"}, optional
        The effect measure (None: the data's measure, see above).
    metric : str, optional
        The metric to read (None: each dataset's only metric).
    datasets : sequence of str, optional
        Datasets to use, in this order.
    missing : {"error", "intersect"}, default "error"
        Policy for items one system lacks.
    level : float, default 0.95
        Level of the per-dataset intervals.
    metric_fn : str or callable, optional
        A set-level metric (see above).
    n_resamples : int, default 1000
        Bootstrap resamples of a set-level metric's variance.
    seed : int or None, default 0
        Seed of that bootstrap.
    seeds : {"balanced", "allow-unbalanced"}, default "balanced"
        Whether systems may have different seeds.
    degenerate : {"error", "drop"}, default "error"
        What to do with datasets whose effect is undefined.
    settings : MetaSettings, optional
        The settings of ``ranger-eval meta`` (see above).

    Returns
    -------
    EffectSizes
        Per-dataset ``yi``, ``vi``, ``names``, ``n``, the means, ``measure``, ``skipped`` and
        ``settings``; the input of :func:`~ranger_eval.meta_analysis`.

    Raises
    ------
    EffectSizeError
        Undefined effects (with ``degenerate="error"``), unknown systems or metrics.
    SettingsError
        A bad setting or a keyword that clashes with ``settings``.

    Examples
    --------
    >>> import pandas as pd
    >>> import ranger_eval as rg
    >>> from ranger_eval.settings import MetaSettings
    >>> df = pd.DataFrame({"dataset": "d", "metric": "acc", "item": list(range(4)) * 2,
    ...                    "system": ["A"] * 4 + ["B"] * 4,
    ...                    "value": [0.1, 0.4, 0.35, 0.8, 0.3, 0.5, 0.45, 0.95]})
    >>> eff = rg.effect_sizes(df, settings=MetaSettings(control="A", treatment="B", measure="MD"))
    >>> round(float(eff.yi[0]), 3), eff.measure, eff.settings.measure
    (0.137, 'MD', 'MD')
    """
    keywords: dict[str, Any] = {
        "level": level, "metric_fn": metric_fn, "n_resamples": n_resamples, "seed": seed,
        "seeds": seeds, "degenerate": degenerate,
    }
    if measure is not None:  # None is no MetaSettings value: "the data's measure" (docstring)
        keywords["measure"] = measure
    treatment, control = _systems(treatment, control, settings)
    if settings is None:
        keywords.update(treatment=str(treatment), control=str(control))
    settings = resolve_settings(MetaSettings, keywords, settings, where="effect_sizes")
    level, metric_fn = settings.level, settings.metric_fn
    n_resamples, seed = settings.n_resamples, settings.seed
    seeds, degenerate = settings.seeds, settings.degenerate
    # None: "SMD", or "MD" for a set-level metric and for judge scores with human scores
    requested = (measure if measure is not None
                 else None if settings.measure == _DEFAULT.measure else settings.measure)
    measure = requested
    if metric_fn is None:  # an adapter's corpus-level metric (lm-eval f1 …) is set-level
        if not isinstance(scores, Scores):
            scores = Scores(scores)
        metric_fn = _declared_metric_fn(scores, metric)
    bootstrap_metric: SetMetric | None = None
    if metric_fn is not None:
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
    if scores.has_prompts:  # each dataset's effect and its variance would ignore the prompts
        raise EffectSizeError(
            "the scores have a 'prompt' column: each dataset's effect size and its sampling "
            "variance would be computed from per-item means averaged over the prompts, leaving "
            "the prompt variance every item shares out of the variance (too small, so the "
            "meta-analysis too sure); compare each dataset with compare() (the crossed "
            "random-effects test of item × prompt differences), or average the prompts away "
            "yourself if they are the fixed population of interest")
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
                            measure=requested, metric=metric, level=level, settings=settings)
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
            metrics=metrics_t, samples=scores.samples_label or passk_fields(scores)[1],
            passk=passk_fields(scores)[0],
            cluster=scores.cluster_name, settings=settings,
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
        samples=scores.samples_label or passk_fields(scores)[1],
        passk=passk_fields(scores)[0],
        metrics=tuple(metrics),
        n_resamples=n_resamples if bootstrap_metric is not None else None,
        seed=results[0].seed if bootstrap_metric is not None else None,
        seed_rule="+".join(sorted(rules)) or None,
        cluster=design.cluster_name,
        settings=settings,
    )


def _systems(treatment: str | None, control: str | None,
             settings: MetaSettings | None) -> tuple[str, str]:
    """The two systems of an :func:`effect_sizes` call: the keywords, else the settings' (one
    source each: a keyword that differs from the settings' system is a SettingsError)."""
    chosen = []
    for role, given in (("treatment", treatment), ("control", control)):
        held = None if settings is None else getattr(settings, role)
        if given is not None and held is not None and str(given) != held:
            raise SettingsError(
                f"effect_sizes: {role}={given!r} given together with settings= whose {role} is "
                f"{held!r}; pass one or the other")
        value = given if given is not None else held
        if value is None:
            raise EffectSizeError(f"effect_sizes: {role} is required (the keyword, or the "
                                  f"{role} of settings=)")
        chosen.append(value)
    return chosen[0], chosen[1]


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

