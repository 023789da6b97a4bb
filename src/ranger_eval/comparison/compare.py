""":func:`compare`: every pairwise test of systems per dataset × metric (the conventions are in
:mod:`ranger_eval.comparison`).
"""
from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from .._frames import as_frame
from ..errors import CompareError, Hint, ScoresError
from ..pairing import align_groups, block_layout, factorize, group_pairs, scores_table
from ..scores import KEY_COLUMNS, Scores
from ..settings import CompareSettings, resolve_settings
from ..stats import effect_label
from .choices import COLUMNS, RESAMPLING, TESTS, WESTFALL_YOUNG
from .clustered import ClusteredT, groups_clusters, prepare_clustered
from .dispatch import _choose_test, _context, _pair_data, _pair_means
from .engine import _GroupWork, _Shared
from .fastpath import _uniform_paired_t, prefer_grouped
from .hypothesis import margin_outcomes
from .leaderboard import metric_directions
from .mde import with_mde
from .multiplicity import adjust_by_family
from .ppi import PPI_TEST, has_human_scores, human_matrices, ppi_group, refuse_ppi
from .prompts import (
    PromptCells,
    crossed_margin_outcome,
    crossed_outcome,
    refuse_prompt_pair,
    refuse_prompts,
)
from .results import Comparison
from .setmetric import _metric_rows, _set_metrics, declared_set_metrics

#: the defaults of :func:`compare`'s keywords: those of its settings object
_DEFAULT = CompareSettings()


def compare(
    scores: Scores | pd.DataFrame,
    *,
    systems: Sequence[str] | None = _DEFAULT.systems,
    test: str = _DEFAULT.test,
    alternative: str = _DEFAULT.alternative,
    pairs: str | Sequence[tuple[str, str]] = _DEFAULT.pairs,
    baseline: str | None = _DEFAULT.baseline,
    correction: str = _DEFAULT.correction,
    family: str = _DEFAULT.family,
    level: float = _DEFAULT.level,
    n_resamples: int = _DEFAULT.n_resamples,
    seed: int | None = _DEFAULT.seed,
    paired: bool | None = _DEFAULT.paired,
    missing: str = _DEFAULT.missing,
    datasets: Sequence[str] | None = _DEFAULT.datasets,
    metrics: Sequence[str] | None = _DEFAULT.metrics,
    by: Sequence[str] | str | None = _DEFAULT.by,
    metric_fn: object | None = _DEFAULT.metric_fn,
    seeds: str = _DEFAULT.seeds,
    hypothesis: str = _DEFAULT.hypothesis,
    margin: float | None = _DEFAULT.margin,
    cluster_se: str = _DEFAULT.cluster_se,
    settings: CompareSettings | None = None,
) -> Comparison:
    """Compare systems pairwise on every dataset × metric (see the module docstring).

    Every argument after ``scores`` is keyword-only (``compare(scores, test="wilcoxon")``).
    ``systems`` selects and orders the systems (default: all, in order of first appearance);
    ``pairs`` is ``"all"`` (k(k-1)/2 pairs), ``"baseline"`` (k-1 pairs against ``baseline``),
    ``"successive"`` (k-1 pairs, neighbours by mean) or an explicit list of ``(a, b)`` tuples.
    ``datasets`` and ``metrics`` restrict the comparison. ``by`` names item metadata columns of
    the scores (e.g. ``"difficulty"``): the comparison is run separately per level (IBM §10.1);
    each level becomes its own dataset, labelled ``"dataset [difficulty=hard]"``, with the level
    values also in columns named after ``by``, and p-values are adjusted within each level's
    families. ``metric_fn`` tests a set-level metric (a name of
    :data:`ranger_eval.setmetrics.NAMES`, a callable, or a list of them) computed from the
    ``label``/``prediction`` columns with ``test="permutation"`` or ``"bootstrap"`` (module
    docstring); ``metrics`` then selects the rows that carry them when a dataset has several.
    ``seeds`` is ``"balanced"`` (unbalanced seeds are an error) or ``"allow-unbalanced"``.
    ``correction="westfall-young"`` is Westfall & Young's (1993, Algorithm 2.8) *step-down*
    max-T adjustment computed from the joint sign-flip null of the pairs of each dataset ×
    metric (one shared sign matrix; :class:`~ranger_eval.stats.resampling.SignFlips`), which
    keeps the dependence between pairs and so is more powerful than Holm; it needs
    ``test="permutation"`` on paired data and ``family="dataset-metric"``.
    ``hypothesis`` is ``"superiority"`` (a difference: the tests above), ``"non-inferiority"``
    (system_a is no worse than system_b by more than ``margin``, in the metric's units and
    direction; with ``pairs="baseline"`` each system against the baseline) or ``"equivalence"``
    (|mean_a − mean_b| < ``margin``, two one-sided tests; ``pvalue`` is the larger one-sided
    p-value): paired t, Welch t, the Miettinen–Nurminen score test of two proportions and
    Tango's score test of paired 0/1 scores (:mod:`ranger_eval.comparison.hypothesis`; the
    interval is the one each test inverts, each side at ``level``).
    ``cluster_se`` (with a ``cluster`` column) is the variance of the clustered paired t:
    ``"CR2"`` with Bell–McCaffrey df (default) or ``"CR1"`` with t on C − 1 df, as statsmodels
    ``OLS(d, 1).fit(cov_type="cluster")`` and R ``sandwich::vcovCL(type = "HC1")``
    (:mod:`ranger_eval.comparison.clustered`).
    The keywords are one :class:`~ranger_eval.settings.CompareSettings` (its defaults are
    these, and it checks every value once: a :class:`~ranger_eval.errors.SettingsError`, also a
    :class:`CompareError`, naming the keyword and value). ``settings=`` runs a settings object
    instead of the keywords: ``compare(scores, settings=CompareSettings(test="wilcoxon"))``.
    A keyword given with a value other than its default next to ``settings`` is a
    :class:`~ranger_eval.errors.SettingsError` naming the clash (one source per value: change
    the object with ``dataclasses.replace(settings, level=0.9)``); a keyword at its default
    cannot be told from an absent one and is not a clash.
    Raises :class:`CompareError` (or :class:`ScoresError` for unpaired items) naming the
    dataset, metric and systems.

    Alternative score backends (e.g. larger-than-memory scores): if ``scores`` has a callable
    attribute ``__ranger_compare__``, ``compare`` returns
    ``scores.__ranger_compare__(systems=..., pairs=..., ..., seeds=...)`` -- called with every
    argument of ``compare`` except ``scores`` as keywords -- before anything else; the backend
    must return a :class:`Comparison`.

    Parameters
    ----------
    scores : Scores or pandas.DataFrame
        Long-format scores: ``dataset``, ``metric``, ``item``, ``system``, ``value`` (plus optional
        ``seed``, ``sample``, ``cluster``, metadata columns), or a backend with
        ``__ranger_compare__``.
    systems : sequence of str, optional
        The systems to compare, in this order (default: all, in order of first appearance).
    test : str, default "auto"
        The test: "auto" (chosen from the data), "paired-t", "welch", "wilcoxon", "sign",
        "mannwhitney", "mcnemar", "proportions-z", "permutation" or "bootstrap".
    alternative : {"two-sided", "greater", "less"}, default "two-sided"
        "greater" means ``system_a`` scores higher.
    pairs : {"all", "baseline", "successive"} or sequence of (str, str), default "all"
        Which pairs are tested (see above).
    baseline : str, optional
        The baseline system of ``pairs="baseline"``.
    correction : str, default "holm-sidak"
        Multiplicity correction of the p-values within each family ("none", "bonferroni",
        "holm", "holm-sidak", "fdr_bh", "westfall-young", ...).
    family : {"dataset-metric", "dataset", "all"}, default "dataset-metric"
        The family within which p-values are adjusted.
    level : float, default 0.95
        Confidence level of the intervals; a pair is significant when its adjusted p-value is
        below 1 − level.
    n_resamples : int, default 10000
        Resamples of the permutation and bootstrap tests.
    seed : int or None, default 0
        Seed of the resampling (None: fresh entropy, not reproducible).
    paired : bool, optional
        Force paired (True) or unpaired (False) tests; None infers it from the item ids.
    missing : {"error", "intersect"}, default "error"
        Items one system lacks: an error listing them, or the common items (counted in a warning).
    datasets, metrics : sequence of str, optional
        Restrict the comparison to these datasets / metrics.
    by : str or sequence of str, optional
        Item metadata columns to compare within (one comparison per level).
    metric_fn : str, callable or list, optional
        Set-level metric(s) computed from ``label``/``prediction``.
    seeds : {"balanced", "allow-unbalanced"}, default "balanced"
        Whether unequal numbers of seeds per system are an error.
    hypothesis : {"superiority", "non-inferiority", "equivalence"}, default "superiority"
        The null hypothesis tested.
    margin : float, optional
        The non-inferiority / equivalence margin, in the metric's units.
    cluster_se : {"CR2", "CR1"}, default "CR2"
        Variance of the clustered paired t.
    settings : CompareSettings, optional
        All of the above as one checked object (instead of the keywords).

    Returns
    -------
    Comparison
        ``table`` (one row per dataset × metric × pair: means, ``diff``, ``ci_low``/``ci_high``,
        ``statistic``, ``pvalue``, ``pvalue_adjusted``, ``effect_size``, ``significant``, ...),
        ``settings`` and ``signature``.

    Raises
    ------
    CompareError
        A bad setting (:class:`~ranger_eval.errors.SettingsError`) or a comparison that cannot be
        run, naming the dataset, metric and systems.
    ScoresError
        Malformed scores or unpaired items.

    References
    ----------
    Westfall, P. H. & Young, S. S. (1993), *Resampling-Based Multiple Testing*, Wiley
    (Algorithm 2.8, the step-down max-T adjustment).
    Statistical Significance in Natural Language Processing", ACL (choice of test).

    Examples
    --------
    >>> import pandas as pd
    >>> import ranger_eval as rg
    >>> df = pd.DataFrame({"dataset": "d", "metric": "acc", "item": list(range(8)) * 3,
    ...                    "system": ["A"] * 8 + ["B"] * 8 + ["C"] * 8,
    ...                    "value": [.8, .6, .9, .5, .7, .7, .6, .8, .7, .6, .8, .5, .6, .7, .5, .7,
    ...                              .5, .4, .6, .3, .5, .6, .4, .5]})
    >>> c = rg.compare(df, test="paired-t")
    >>> c.table[["system_a", "system_b", "diff", "pvalue_adjusted"]].round(4)
      system_a system_b    diff  pvalue_adjusted
    0        A        B  0.0625           0.0112
    1        A        C  0.2250           0.0001
    2        B        C  0.1625           0.0001
    >>> c.settings.correction, bool(c.table["significant"].all())
    ('holm-sidak', True)
    """
    keywords = dict(
        systems=systems, pairs=pairs, baseline=baseline, test=test, alternative=alternative,
        correction=correction, family=family, level=level, n_resamples=n_resamples, seed=seed,
        paired=paired, missing=missing, datasets=datasets, metrics=metrics, by=by,
        metric_fn=metric_fn, seeds=seeds, hypothesis=hypothesis, margin=margin,
        cluster_se=cluster_se)
    settings = resolve_settings(CompareSettings, keywords, settings, where="compare")
    result = _compare_settled(scores, settings)
    if isinstance(result, Comparison):  # a fresh result: its one settings record
        object.__setattr__(result, "settings", settings)
    return result


def _compare_settled(scores: Scores | pd.DataFrame, settings: CompareSettings) -> Comparison:
    """:func:`compare`'s work, from its one checked settings object."""
    hook = getattr(scores, "__ranger_compare__", None)
    if callable(hook):
        return hook(**settings.as_dict())
    # the checked, canonical values (correction="BH" → "fdr_bh", sequences → tuples)
    systems, pairs, baseline = settings.systems, settings.pairs, settings.baseline
    test, alternative, correction = settings.test, settings.alternative, settings.correction
    family, level, n_resamples, seed = (settings.family, settings.level, settings.n_resamples,
                                        settings.seed)
    paired, missing, datasets, metrics = (settings.paired, settings.missing, settings.datasets,
                                          settings.metrics)
    by, metric_fn, seeds = settings.by, settings.metric_fn, settings.seeds
    hypothesis, margin = settings.hypothesis, settings.margin
    cluster_se = settings.cluster_se

    if not isinstance(scores, Scores):  # a table-like input: _frames' rules, compare's errors
        scores = Scores(as_frame(scores, what="compare", error=CompareError,
                                 index_columns=KEY_COLUMNS))
    if cluster_se != _DEFAULT.cluster_se and not scores.has_cluster:
        _unused_cluster_se(cluster_se)
        cluster_se = _DEFAULT.cluster_se  # said once here, not again by each part below
    declared = declared_set_metrics(scores) if metric_fn is None else {}
    if declared:
        return _compare_declared(
            scores, declared, systems=systems, pairs=pairs, baseline=baseline, test=test,
            alternative=alternative, correction=correction, family=family, level=level,
            n_resamples=n_resamples, seed=seed, paired=paired, missing=missing,
            datasets=datasets, metrics=metrics, by=by, seeds=seeds, hypothesis=hypothesis,
            margin=margin, cluster_se=cluster_se,
        )
    if by is not None:
        return _compare_by(
            scores, by, systems=systems, pairs=pairs, baseline=baseline, test=test,
            alternative=alternative, correction=correction, family=family, level=level,
            n_resamples=n_resamples, seed=seed, paired=paired, missing=missing,
            datasets=datasets, metrics=metrics, metric_fn=metric_fn, seeds=seeds,
            hypothesis=hypothesis, margin=margin, cluster_se=cluster_se,
        )
    set_metrics = _set_metrics(metric_fn)
    correction_key = correction
    westfall_young = correction_key == WESTFALL_YOUNG
    if scores.has_prompts:  # every analysis honours the crossed prompts, or is refused
        refuse_prompts(test=test, paired=paired, correction=correction_key,
                       set_metrics=bool(set_metrics), judged=has_human_scores(scores),
                       clustered=False)
    if baseline is not None:
        known = systems if systems is not None else scores.systems
        if baseline not in known:
            raise CompareError(
                f"unknown baseline {baseline!r}; systems: {', '.join(map(repr, known))}"
            )
    if systems is not None:
        systems = list(systems)
        try:
            scores = scores.filter(systems=systems)
        except ScoresError as exc:
            raise CompareError(f"systems: {exc}") from None
    if datasets is not None or metrics is not None:
        try:
            scores = scores.filter(datasets=datasets, metrics=metrics)
        except ScoresError as exc:
            raise CompareError(str(exc)) from None
    layout = None if set_metrics else block_layout(scores_table(scores))
    if systems is not None:
        order = tuple(systems)
    elif layout is not None:  # = scores.systems (first appearance), from the block heads
        order = tuple(layout[7][2])
    else:
        order = tuple(str(s) for s in factorize(scores_table(scores)["system"])[1])
    if len(order) < 2:
        raise CompareError(
            f"need at least two systems to compare, found only {', '.join(map(repr, order))}"
        )

    rows: list[dict[str, Any]] = []
    mean_rows: list[dict[str, Any]] = []
    if set_metrics:
        chosen_test = "permutation" if test == "auto" else test
        rows, mean_rows = _metric_rows(
            scores, set_metrics, systems, pairs, baseline, chosen_test, alternative, level,
            int(n_resamples), seed, missing, seeds,
        )
    uniform = None
    judged = has_human_scores(scores)  # judge scores with human scores: comparison.ppi
    if (not set_metrics and not westfall_young and test in ("auto", "paired-t", "mcnemar")
            and not judged
            and paired is not False and not scores.has_cluster and hypothesis == "superiority"
            and not scores.has_prompts
            and (not isinstance(pairs, str) or pairs in ("all", "baseline", "successive"))
            and not prefer_grouped(layout, len(scores_table(scores)))):
        uniform = _uniform_paired_t(scores, systems, pairs, baseline, alternative, level,
                                    test)
    if uniform is not None:  # many small groups: array operations across groups
        table = with_mde(adjust_by_family(uniform[0], correction, family, level),
                         level=level, alternative=alternative)
        return Comparison(
            table=table, means=uniform[1], systems=tuple(order), scores=scores, test=test,
            pairs=pairs if isinstance(pairs, str) else "custom", baseline=baseline,
            alternative=alternative,
            correction=correction_key, family=family, level=float(level),
            n_resamples=int(n_resamples), seed=seed, tests_used=uniform[2],
            set_metrics=(), seeds=seeds, hypothesis=hypothesis, margin=margin,
        )
    groups = [] if set_metrics else align_groups(scores, systems, seeds, layout=layout)
    directions = _margin_directions(scores, hypothesis)
    wy_adjusted: list[float] = []
    shared = _Shared(alternative, level, int(n_resamples), seed)
    works: list[_GroupWork] = []
    if set_metrics and scores.has_cluster:
        raise CompareError(
            "metric_fn: a set-level metric of clustered items would need a cluster bootstrap "
            "of the whole item vector, which ranger-eval does not have; compare per-item scores "
            "(the cluster-robust tests) or drop the cluster column only if items are independent")
    clustered: dict[int, Any] = {}  # id(work) -> its clustered tests (_PendingClustered)
    cluster_t = ClusteredT(alternative, level, cluster_se)
    n_clusters: list[float] = [math.nan] * len(rows)
    ci_df: list[float] = [math.nan] * len(rows)
    # id(work) -> PPI rows, n_clusters, df of the intervals (comparison.ppi)
    judged_rows: dict[int, tuple[list[dict[str, Any]], list[float], list[float]]] = {}
    if judged:  # every pair by the prediction-powered (PPI++) z test of human scores
        refuse_ppi(scores, test=test, correction=correction_key, set_metrics=bool(set_metrics))
        humans = human_matrices(scores, groups)
    # clusters of every group's items, in one pass (None: not clustered)
    all_clusters = groups_clusters(scores, groups)
    # prompts crossed with items: the paired t becomes the crossed random-effects test
    # (comparison.prompts) where the group is not clustered
    prompt_cells = PromptCells(scores) if scores.has_prompts else None
    se_df: list[tuple[float, float]] = [(math.nan, math.nan)] * len(rows)
    for gi, group in enumerate(groups):
        for j, s in enumerate(group.names):
            mean_rows.append(
                {
                    "dataset": group.dataset,
                    "metric": group.metric,
                    "system": s,
                    "mean": group.means[j],
                    "n": int(group.present[j].sum()),
                    "seed_sd": group.seed_sd[s],
                    "n_seeds": group.n_seeds[s],
                }
            )
        pair_list = group_pairs(group, pairs, baseline)
        data = [_pair_data(group, a, b, test, paired, missing) for a, b in pair_list]
        if judged:
            work = _GroupWork(group, data, [PPI_TEST] * len(data))
            gc = all_clusters[gi]
            part, own, judged_counts, judged_dfs = ppi_group(
                group, humans[gi], data, alternative=alternative, level=level,
                hypothesis=hypothesis, margin=margin,
                higher_is_better=directions.get((str(group.dataset), str(group.metric)), True),
                clusters=None if gc is None else gc.codes, cluster_se=cluster_se)
            judged_rows[id(work)] = (part, judged_counts, judged_dfs)
            for j, mean in enumerate(own):  # each system's own PPI++ mean
                mean_rows[len(mean_rows) - len(own) + j]["mean"] = mean
            works.append(work)
            continue
        chosen = [_choose_test(test, d, group) for d in data]
        work = _GroupWork(group, data, chosen)
        gc = all_clusters[gi]
        if prompt_cells is not None:
            for d in data:
                refuse_prompt_pair(group, d)
            if gc is not None:
                refuse_prompts(test=test, paired=paired, correction=correction_key,
                               set_metrics=False, judged=False, clustered=True)
        if gc is None:
            work.prepare(shared, westfall_young)
        else:
            clustered[id(work)] = prepare_clustered(
                work, gc, cluster_t, westfall_young=westfall_young,
                n_resamples=int(n_resamples), seed=seed)
        works.append(work)
    shared.run()  # one t-distribution call, one sign-flip product per number of items
    cluster_t.run()  # one clustered t call per vector of cluster sizes
    for gi, work in enumerate(works):
        group, data, chosen = work.group, work.data, work.chosen
        if id(work) in judged_rows:
            part, judged_counts, judged_dfs = judged_rows[id(work)]
            rows.extend(part)
            n_clusters.extend(judged_counts)
            ci_df.extend(judged_dfs)
            continue
        if id(work) in clustered:
            outcomes, counts, dfs = clustered[id(work)].result()
            n_clusters.extend(counts)
            ci_df.extend(dfs)
        else:
            outcomes = work.finish(shared)
            n_clusters.extend([math.nan] * len(data))
            ci_df.extend([math.nan] * len(data))
        crossed: dict[int, Any] = {}
        if prompt_cells is not None:  # every pair paired and unclustered (refuse_prompts)
            outcomes = list(outcomes)
            higher = directions.get((str(group.dataset), str(group.metric)), True)
            for i, d in enumerate(data):
                cells = prompt_cells.pair(group, d, missing)
                if hypothesis == "superiority":
                    crossed[i] = crossed_outcome(cells, group, d, alternative=alternative,
                                                 level=level)
                else:
                    assert margin is not None  # CompareSettings: a margin with the hypothesis
                    crossed[i] = crossed_margin_outcome(
                        cells, group, d, hypothesis=hypothesis, margin=margin,
                        higher_is_better=higher, level=level)
                outcomes[i] = crossed[i].outcome
                chosen[i] = "paired-t"
        if hypothesis != "superiority" and not crossed:
            assert margin is not None  # CompareSettings: a margin with every such hypothesis
            gc = all_clusters[gi]
            with _context(group, data):
                outcomes = margin_outcomes(
                    group, data, chosen, hypothesis=hypothesis, margin=margin, level=level,
                    higher_is_better=directions.get((str(group.dataset), str(group.metric)),
                                                    True),
                    clusters=None if gc is None else gc.codes, cluster_se=cluster_se)
        if work.adjusted is not None:
            wy_adjusted.extend(float(v) for v in work.adjusted)
        effects = [work.effects[i] for i in range(len(data))]
        for i, (d, c, o, (es, es_name)) in enumerate(zip(data, chosen, outcomes, effects,
                                                          strict=True)):
            mean_a, mean_b = _pair_means(group, d)
            co = crossed.get(i)
            se_df.append((math.nan, math.nan) if co is None else (co.se, co.df))
            rows.append(
                {
                    "dataset": group.dataset,
                    "metric": group.metric,
                    "system_a": d.a,
                    "system_b": d.b,
                    "mean_a": mean_a,
                    "mean_b": mean_b,
                    "diff": mean_a - mean_b if co is None else co.estimate,
                    "ci_low": float(o.ci_low),
                    "ci_high": float(o.ci_high),
                    "test": c,
                    "statistic": float(o.statistic),
                    "pvalue": float(o.pvalue),
                    "pvalue_adjusted": math.nan,
                    "effect_size": es,
                    "effect_size_name": es_name,
                    "effect_label": str(effect_label(es)),
                    "significant": False,
                    "paired": d.paired,
                    "n_a": int(d.x.size),
                    "n_b": int(d.y.size),
                    "ci_method": o.ci_method,
                    "seed_sd_a": group.seed_sd[d.a],
                    "seed_sd_b": group.seed_sd[d.b],
                }
            )
    table = pd.DataFrame(rows, columns=list(COLUMNS))
    if len(se_df) == len(table):  # the crossed rows' own se and df (with_mde fills the rest)
        table["se"] = np.array([v[0] for v in se_df], dtype=np.float64)
        table["df"] = np.array([v[1] for v in se_df], dtype=np.float64)
    if scores.has_cluster:  # clusters of each pair's items (NaN: not clustered)
        table["n_clusters"] = np.asarray(n_clusters, dtype=np.float64)
        # df of each clustered row's t interval (Bell–McCaffrey for CR2; NaN: not clustered,
        # or the cluster bootstrap's own interval); with_mde takes them
        table["ci_df"] = np.asarray(ci_df, dtype=np.float64)
    table = adjust_by_family(table, correction, family, level,
                             adjusted=np.asarray(wy_adjusted) if westfall_young else None)
    table = with_mde(table, level=level, alternative=alternative, hypothesis=hypothesis)
    means = pd.DataFrame(
        mean_rows, columns=["dataset", "metric", "system", "mean", "n", "seed_sd", "n_seeds"]
    )
    used = set(table["test"])
    tests_used = tuple(t for t in (*TESTS, PPI_TEST) if t in used)
    return Comparison(
        table=table,
        means=means,
        systems=tuple(order),
        scores=scores,
        test=test,
        pairs=pairs if isinstance(pairs, str) else "custom",
        baseline=baseline,
        alternative=alternative,
        correction=correction_key,  # the canonical name ("BH" is recorded as "fdr_bh")
        family=family,
        level=float(level),
        n_resamples=int(n_resamples),
        seed=seed,
        tests_used=tests_used,
        set_metrics=tuple(m.name for m in set_metrics),
        seeds=seeds,
        hypothesis=hypothesis,
        margin=margin,
        cluster_se=cluster_se,
    )


def _unused_cluster_se(cluster_se: str) -> None:
    """Warn that ``cluster_se`` was set for scores without a cluster column: the items are
    tested as independent, which a user who forgot ``--cluster FIELD`` should learn."""
    import warnings

    warnings.warn(
        f"cluster_se={cluster_se!r} has no effect: the scores have no cluster column, so every "
        "item is tested as independent (give the cluster field: --cluster FIELD, config "
        "'cluster:', or a 'cluster' column)", UserWarning, stacklevel=3)


def _margin_directions(scores: Scores, hypothesis: str) -> dict[tuple[str, str], bool]:
    """``(dataset, metric) -> higher_is_better`` for a non-inferiority or equivalence test
    (the scores' ``higher_is_better`` column; empty for superiority)."""
    if hypothesis == "superiority":
        return {}
    return metric_directions(scores)


def _compare_declared(scores: Scores, declared: dict[str, str], *, metrics: Sequence[str] | None,
                      test: str, correction: str, family: str, level: float,
                      **kwargs: Any) -> Comparison:
    """:func:`compare` of scores whose corpus-level metrics (:func:`declared_set_metrics`) go
    through the set-level path with their own metric (``metric_fn``), the others through the
    per-item tests; the rows are adjusted together by family, as one comparison."""
    wanted = [str(m) for m in (metrics if metrics is not None else scores.metrics)]
    unknown = [m for m in wanted if m not in scores.metrics]
    if unknown:
        try:
            scores.filter(metrics=wanted)
        except ScoresError as exc:
            raise CompareError(str(exc)) from None
    parts: list[Comparison] = []
    per_item = [m for m in wanted if m not in declared]
    plain = scores.filter(metrics=per_item) if per_item else None
    if plain is not None:
        plain = Scores(plain.frame.drop(columns=["set_metric"]))
        parts.append(compare(plain, metrics=None, test=test, correction=correction,
                             family=family, level=level, **kwargs))
    for m in (m for m in wanted if m in declared):
        if test not in ("auto", *RESAMPLING):
            hints = [Hint("test", "permutation", form="set"),
                     Hint("test", "bootstrap", form="set"), Hint("metrics", form="set")]
            raise CompareError(
                f"metric {m!r} is corpus-level (set-level metric {declared[m]!r} of all items, "
                f"as the tool that wrote the log computes it); test {test!r} compares means of "
                f"per-item values: use {hints[0].text} or {hints[1].text}, or leave {m!r} out "
                f"with {hints[2].text}", hints=hints
            )
        comp = compare(scores.filter(metrics=[m]), test=test, correction=correction,
                       family=family, level=level, metric_fn=declared[m], **kwargs)
        parts.append(dataclasses.replace(
            comp, table=comp.table.assign(metric=m), means=comp.means.assign(metric=m)))
    first = parts[0]
    table = pd.concat([p.table for p in parts], ignore_index=True)
    table = adjust_by_family(table.assign(pvalue_adjusted=math.nan), first.correction, family,
                             level)
    table = with_mde(table, level=level, alternative=first.alternative,
                     hypothesis=first.hypothesis)
    used = {t for p in parts for t in p.tests_used}
    return dataclasses.replace(
        first, table=table, means=pd.concat([p.means for p in parts], ignore_index=True),
        scores=scores, test=test, tests_used=tuple(t for t in TESTS if t in used),
        set_metrics=tuple(dict.fromkeys(x for p in parts for x in p.set_metrics)),
    )


def _compare_by(scores: Scores, by: Sequence[str] | str, **kwargs: Any) -> Comparison:
    """:func:`compare` per level of the item metadata columns ``by`` (IBM §10.1)."""
    cols = [by] if isinstance(by, str) else list(by)
    frame = scores.frame
    reserved = {"dataset", "system", "metric", "item", "value", "seed"}
    bad = [c for c in cols if c not in frame.columns or c in reserved]
    if bad:
        meta = [c for c in frame.columns if c not in reserved]
        raise CompareError(
            f"by: {bad[0]!r} is not an item metadata column of the scores; "
            f"metadata columns: {', '.join(meta) or 'none'}"
        )
    parts: list[Comparison] = []
    levels: list[dict[str, str]] = []
    for level, sub in frame.groupby(cols, sort=False):
        values = [str(v) for v in (level if isinstance(level, tuple) else (level,))]
        tag = ", ".join(f"{c}={v}" for c, v in zip(cols, values, strict=True))
        sub = sub.assign(dataset=sub["dataset"].astype(str) + f" [{tag}]")
        parts.append(compare(Scores(sub.reset_index(drop=True)), **kwargs))
        levels.append(dict(zip(cols, values, strict=True)))
    tables, means = [], []
    for part, lv in zip(parts, levels, strict=True):
        tables.append(part.table.assign(**lv))
        means.append(part.means.assign(**lv))
    first = parts[0]
    tests_used = tuple(t for t in TESTS if any(t in p.tests_used for p in parts))
    systems = tuple(dict.fromkeys(s for p in parts for s in p.systems))
    return dataclasses.replace(
        first, table=pd.concat(tables, ignore_index=True), means=pd.concat(means, ignore_index=True),
        systems=systems, scores=Scores.concat([p.scores for p in parts]), tests_used=tests_used,
    )
