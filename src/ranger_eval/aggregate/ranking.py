"""Which system is best overall: the post-op ordered ranking of the IBM framework (§7.1, §10).

:func:`rank_systems` follows ``post_op_ordered_ranking`` of Ackerman et al. (2025), §7.1:

1. **Aggregate.** Within each dataset, several metrics become one standardised aggregate metric
   (§6.1, :func:`~ranger_eval.aggregate.metrics.aggregate_metrics`; a single metric is only
   oriented so that higher is better). With one dataset the systems are paired and their means
   ``V̇_b`` are the aggregate means. With several datasets (different items: unpaired across
   datasets) the means are the standardised means of §6.3
   (:func:`~ranger_eval.aggregate.metrics.standardized_means`) and the pairwise results are
   aggregated across datasets by §6.2 (:func:`~ranger_eval.aggregate.comparisons.aggregate_comparisons`).
2. **Order** the systems by ``V̇_b``, highest first.
3. **Test** the chosen comparisons: ``"successive"`` (each system against the next),
   ``"first-vs-rest"`` (the first against every other) or ``"all"`` (every pair). As the paper
   says, all pairs are tested two-sided; the other orders one-sided (``greater``: the higher-ranked
   system is better), since the order is known.
4. **Cliques**: maximal groups of systems with no significant difference among them (networkx
   ``find_cliques`` on the graph of non-significant pairs), drawn by :meth:`Ranking.plot`.

:func:`condition_and_compare` is §10.2: systems described by hyper-parameters are partitioned by
the ``condition`` values, their scores pooled by the ``compare`` values, and ranked with
first-vs-rest in each partition.
"""
from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from .._frames import as_frame
from ..comparison import Comparison, compare
from ..design import refuse_prompts
from ..errors import (
    AggregateError,
    renamed_keywords,
)
from ..scores import Scores, as_scores
from ..settings import RANK_ORDERS, RankSettings, resolve_settings, signature_fields
from ..signature import Signature, make_signature
from .comparisons import aggregate_comparisons
from .metrics import aggregate_metrics, metric_direction, standardized_means
from .topsis import _closeness, kendall_tau

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.figure import Figure

__all__ = ["ORDERS", "ConditionComparison", "Ranking", "condition_and_compare", "rank_systems"]

ORDERS: tuple[str, ...] = RANK_ORDERS
#: the defaults of rank_systems' keywords (and condition_and_compare's): those of its settings
#: object (one place)
_DEFAULT = RankSettings()


@dataclass(frozen=True)
class Ranking:
    """The ordered ranking of systems with the tests between them.

    ``order``: systems, best first; ``means``: the aggregate mean ``V̇_b`` of each (Series in
    ``order``); ``comparison``: the pairwise results (a :class:`Comparison`; aggregated across
    datasets when there are several); ``cliques``: maximal groups without a significant
    difference, best group first; ``aggregated_metrics`` / ``datasets``: what was combined;
    ``level``: the confidence level (the tests are significant at ``alpha = 1 − level``).
    """

    order: tuple[str, ...]
    means: pd.Series
    comparison: Comparison
    cliques: tuple[tuple[str, ...], ...]
    comparisons: str
    level: float
    correction: str
    datasets: tuple[str, ...]
    metrics: tuple[str, ...]
    mean_kind: str
    naive_means: pd.Series = field(default_factory=lambda: pd.Series(dtype=float))
    weights: str = "equal"
    #: TOPSIS closeness of each system over the (dataset, metric) means (IBM §7.4), and
    #: Kendall's τ-b between the TOPSIS order and ``order``.
    topsis: pd.Series = field(default_factory=lambda: pd.Series(dtype=float))
    topsis_tau: float = float("nan")
    #: the settings object of the call that made this ranking (:func:`rank_systems`)
    settings: RankSettings | None = field(default=None, compare=False, repr=False)

    @property
    def alpha(self) -> float:
        """The significance level of the tests, ``1 − level``."""
        return 1.0 - self.level

    @property
    def pairwise(self) -> pd.DataFrame:
        """One row per tested pair: a, b, diff, p, adjusted p, effect size, significant."""
        t = self.comparison.table
        return pd.DataFrame({
            "a": t["system_a"].astype(str), "b": t["system_b"].astype(str),
            "diff": t["diff"], "pvalue": t["pvalue"], "pvalue_adjusted": t["pvalue_adjusted"],
            "effect_size": t["effect_size"], "effect_size_name": t["effect_size_name"],
            "significant": t["significant"].astype(bool), "test": t["test"],
        }).reset_index(drop=True)

    @property
    def signature(self) -> Signature:
        base = self.comparison.signature.fields
        # the keys are RankSettings' (Setting.signature; one place); test, n_resamples and seed
        # as the comparison recorded them; posthoc is the rank test's (None: left out here)
        fields = signature_fields(RankSettings, self, {
            "order": self.comparisons, "test": base.get("test"), "level": f"{self.level:.6g}",
            "n_resamples": base.get("n_resamples"), "seed": base.get("seed"), "posthoc": None,
        })
        head = dict(list(fields.items())[:2])  # order, test; then the comparison's alternative
        # the design the tests honoured (their cluster field and variance), as compare says it
        # and the per-item values' estimator, samples and prompts (pass@K, the crossed model)
        design = {"passk": base.get("passk"), "samples": base.get("samples"),
                  "prompts": base.get("prompts") or self._prompts(), "cluster": base.get("cluster"),
                  "cse": base.get("cse")}
        return make_signature("rank", {**head, "alt": base.get("alt"), **fields, **design})

    def _prompts(self) -> str | None:
        """``crossed(P)`` with a prompt column: every per-dataset test was the crossed model
        (``compare`` refuses the others), which an aggregate's signature does not repeat."""
        scores = getattr(self.comparison, "scores", None)
        if scores is None or not getattr(scores, "has_prompts", False):
            return None
        return f"crossed({int(scores.raw_frame['prompt'].nunique())})"

    def to_frame(self) -> pd.DataFrame:
        """One row per system: position, aggregate mean, naive mean-of-means, clique numbers."""
        groups = {s: ",".join(str(i + 1) for i, c in enumerate(self.cliques) if s in c)
                  for s in self.order}
        naive = self.naive_means.reindex(list(self.order))
        naive_rank = naive.rank(ascending=False, method="min")
        return pd.DataFrame({
            "rank": np.arange(1, len(self.order) + 1),
            "system": list(self.order),
            "aggregate_mean": self.means.to_numpy(dtype=float),
            "groups": [groups[s] for s in self.order],
            "naive_mean": naive.to_numpy(dtype=float),
            "naive_rank": naive_rank.to_numpy(dtype=float),
            "topsis": self.topsis.reindex(list(self.order)).to_numpy(dtype=float),
        })

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict at full precision: order, means, pairwise tests, cliques, signature."""
        pw = self.pairwise
        return {
            "order": list(self.order),
            "means": {str(k): float(v) for k, v in self.means.items()},
            "mean_kind": self.mean_kind,
            "naive_means": {str(k): float(v) for k, v in self.naive_means.items()},
            "comparisons": self.comparisons, "level": self.level, "correction": self.correction,
            "datasets": list(self.datasets), "metrics": list(self.metrics),
            "pairwise": [
                {"a": str(r.a), "b": str(r.b), "diff": float(r.diff),  # type: ignore[arg-type]
                 "pvalue": float(r.pvalue), "pvalue_adjusted": float(r.pvalue_adjusted),  # type: ignore[arg-type]
                 "effect_size": float(r.effect_size),  # type: ignore[arg-type]
                 "effect_size_name": str(r.effect_size_name),
                 "significant": bool(r.significant), "test": str(r.test)}
                for r in pw.itertuples(index=False)
            ],
            "cliques": [list(c) for c in self.cliques],
            "topsis": {str(k): float(v) for k, v in self.topsis.items()},
            "topsis_kendall_tau": None if np.isnan(self.topsis_tau) else self.topsis_tau,
            "signature": str(self.signature),
        }

    def plot(self, **kwargs: Any) -> Figure:
        """The connected graph of the ranking, split into its cliques (IBM §5.1, §7.1 step 4)."""
        from ..plots.graph import comparison_graph

        kwargs.setdefault("cliques", True)
        kwargs.setdefault("signature", self.signature)  # the footer names what is drawn
        kwargs.setdefault("title", (
            f"Ranking over {len(self.datasets)} dataset(s) × {len(self.metrics)} metric(s)"
            f" ({self.comparisons} comparisons)"))
        return comparison_graph(self.comparison, **kwargs)


def _single_metric_scores(scores: Scores, higher_is_better: Mapping[str, bool] | bool | None
                          ) -> Scores:
    """One metric everywhere: orient it so that higher is better (negate a lower-is-better one)."""
    metric = scores.metrics[0]
    if isinstance(higher_is_better, bool):
        higher = higher_is_better
    elif isinstance(higher_is_better, Mapping) and metric in higher_is_better:
        higher = bool(higher_is_better[metric])
    else:
        known = metric_direction(metric)
        higher = True if known is None else known
    if higher:
        return scores
    frame = scores.frame.copy()
    frame["value"] = -frame["value"]
    return Scores(frame)


def _cell_means(scores: Scores) -> pd.Series:
    """Each system's mean per dataset and metric (index dataset, metric, system), raw: no
    standardisation, no direction; the input of :func:`_naive_means` and :func:`_topsis`."""
    return scores.table.groupby(["dataset", "metric", "system"], sort=False)["value"].mean()


def _naive_means(per: pd.Series) -> pd.Series:
    """What a leaderboard would print: the mean over datasets of each system's mean per dataset
    and metric ``per`` (:func:`_cell_means`; no standardisation, no direction). Grouped by the
    system level's codes, not its labels (which pandas would spell out per row: 2M at a million
    datasets); the same sums in the same order as ``per.groupby(level="system").mean()``."""
    index = per.index
    assert isinstance(index, pd.MultiIndex)  # (dataset, metric, system)
    level = index.names.index("system")
    means = pd.Series(per.to_numpy()).groupby(index.codes[level], sort=False).mean()
    systems = index.levels[level][means.index.to_numpy()]
    return pd.Series(means.to_numpy(), index=pd.Index(systems, name="system"), name=per.name)


@renamed_keywords(alpha="level")
def rank_systems(
    scores: Scores | pd.DataFrame,
    *,
    comparisons: str = _DEFAULT.comparisons,
    level: float = _DEFAULT.level,
    correction: str = _DEFAULT.correction,
    weights: Mapping[str, float] | None = _DEFAULT.weights,
    higher_is_better: Mapping[str, bool] | bool | None = _DEFAULT.higher_is_better,
    dataset_weights: Mapping[str, float] | None = _DEFAULT.dataset_weights,
    test: str = _DEFAULT.test,
    n_resamples: int = _DEFAULT.n_resamples,
    seed: int | None = _DEFAULT.seed,
    by: Sequence[str] | str | None = None,
    settings: RankSettings | None = None,
) -> Ranking | dict[tuple[str, ...], Ranking]:
    """Rank systems over all datasets and metrics and test the differences (IBM §7.1).

    ``weights``: metric weights of the §6.1 aggregate; ``dataset_weights``: weights of the
    datasets in the §6.2/§6.3 aggregation (default equal); ``higher_is_better``: metric
    directions (dict or one bool), else known metric names decide. ``test``, ``n_resamples``,
    ``seed``, ``correction`` and ``level`` (the tests are significant at ``alpha = 1 − level``)
    are passed to :func:`~ranger_eval.comparison.compare`.
    ``by``: item metadata column(s); the ranking is run per level and a dict
    ``{level values: Ranking}`` is returned (IBM §10.1).

    ``settings``: a :class:`~ranger_eval.settings.RankSettings` instead of the keywords (its
    rank-test fields, such as ``posthoc`` or ``approach``, are ignored here); a keyword other
    than its default next to it is a :class:`~ranger_eval.errors.SettingsError` naming the
    clash. Every :class:`Ranking` returned carries the settings object of the call
    (``.settings``).

    Parameters
    ----------
    scores : Scores or pandas.DataFrame
        Per-item long-format scores on one or more datasets and metrics.
    comparisons : {"successive", "all", "first-vs-rest"}, default "successive"
        Which pairs of the ranking are tested (neighbours, all pairs, or the first against
        every other).
    level : float, default 0.95
        The tests are significant at alpha = 1 − level.
    correction : str, default "holm-sidak"
        Multiplicity correction, as :func:`~ranger_eval.comparison.compare`.
    weights : mapping of str to float, optional
        Metric weights of the standardised aggregate (IBM §6.1); 0 leaves a metric out.
    higher_is_better : mapping of str to bool or bool, optional
        Metric directions; default: known metric names decide.
    dataset_weights : mapping of str to float, optional
        Dataset weights of the aggregation (IBM §6.2/§6.3; default equal).
    test, n_resamples, seed
        Passed to :func:`~ranger_eval.comparison.compare`.
    by : str or sequence of str, optional
        Item metadata column(s): one ranking per level (IBM §10.1).
    settings : RankSettings, optional
        The keywords above as one object.

    Returns
    -------
    Ranking or dict of tuple to Ranking
        ``order`` (best first), standardised ``means``, the ``comparison`` of the tested pairs,
        ``cliques`` of systems not told apart, ``topsis`` closeness and ``settings``; with ``by`` a
        dict ``{level values: Ranking}``.

    Raises
    ------
    AggregateError
        Bad scores, weights or directions.
    SettingsError
        A bad setting or a keyword that clashes with ``settings``.

    References
    ----------
    Ackerman, S., Farchi, E., Raz, O. & Toledo, A. (2025), "Statistical multi-metric evaluation
    and visualization of LLM system predictive performance", IBM Research (§5–§7, §10).

    Examples
    --------
    >>> import pandas as pd
    >>> import ranger_eval as rg
    >>> values = [.8, .6, .9, .5, .7, .7, .6, .8, .7, .6, .8, .5, .6, .7, .5, .7,
    ...           .5, .4, .6, .3, .5, .6, .4, .5]
    >>> df = pd.DataFrame({"dataset": ["d1"] * 24 + ["d2"] * 24, "metric": "acc",
    ...                    "item": list(range(8)) * 6, "system": (["A"] * 8 + ["B"] * 8 + ["C"] * 8) * 2,
    ...                    "value": values * 2})
    >>> r = rg.rank_systems(df, test="paired-t")
    >>> r.order, r.cliques
    (('A', 'B', 'C'), (('A',), ('B',), ('C',)))
    >>> r.naive_means.round(4).to_dict()
    {'A': 0.7, 'B': 0.6375, 'C': 0.475}
    """
    # one check, the settings': SettingsError (an AggregateError) naming the key and value
    settings = resolve_settings(RankSettings, {
        "comparisons": comparisons, "level": level, "correction": correction,
        "weights": weights, "higher_is_better": higher_is_better,
        "dataset_weights": dataset_weights, "test": test, "n_resamples": n_resamples,
        "seed": seed}, settings, where="rank_systems")
    (comparisons, level, correction, weights, higher_is_better, dataset_weights, test,
     n_resamples, seed) = (settings.comparisons, settings.level, settings.correction,
                           settings.weights, settings.higher_is_better,
                           settings.dataset_weights, settings.test, settings.n_resamples,
                           settings.seed)
    scores = as_scores(scores, what="rank_systems", error=AggregateError)
    if by is not None:
        return {values: dataclasses.replace(
                    _rank(sub, comparisons, level, correction, weights, higher_is_better,
                          dataset_weights, test, n_resamples, seed), settings=settings)
                for values, sub in split_by(scores, by).items()}
    return dataclasses.replace(
        _rank(scores, comparisons, level, correction, weights, higher_is_better,
              dataset_weights, test, n_resamples, seed), settings=settings)


def split_by(scores: Scores, by: Sequence[str] | str) -> dict[tuple[str, ...], Scores]:
    """The scores of each level (combination of values) of the item metadata columns ``by``."""
    cols = [by] if isinstance(by, str) else list(by)
    frame = scores.frame
    missing = [c for c in cols if c not in frame.columns]
    if missing:
        raise AggregateError(
            f"by: no column {', '.join(map(repr, missing))} in the scores; metadata columns: "
            f"{', '.join(c for c in frame.columns if c not in ('dataset', 'system', 'metric', 'item', 'value', 'seed')) or 'none'}"
        )
    out: dict[tuple[str, ...], Scores] = {}
    for level, sub in frame.groupby(cols, sort=False):
        key = tuple(str(v) for v in (level if isinstance(level, tuple) else (level,)))
        out[key] = Scores(sub.reset_index(drop=True))
    return out


def _rank(scores: Scores, comparisons: str, level: float, correction: str,
          weights: Mapping[str, float] | None, higher_is_better: Mapping[str, bool] | bool | None,
          dataset_weights: Mapping[str, float] | None, test: str, n_resamples: int,
          seed: int | None) -> Ranking:
    if len(scores.systems) < 2:
        raise AggregateError(f"rank_systems needs at least two systems; got {list(scores.systems)}")
    metrics = scores.metrics
    if len(metrics) > 1:
        agg = aggregate_metrics(scores, weights=weights, higher_is_better=higher_is_better)
    else:
        agg = _single_metric_scores(scores, higher_is_better)
    datasets = agg.datasets
    f = agg.table  # read only
    if "seed" in f.columns:  # items, not seeds, are the unit: average seeds per item first
        f = f.groupby(["dataset", "system", "metric", "item"], sort=False)["value"].mean(
        ).reset_index()
    if len(datasets) == 1:
        means = f.groupby("system", sort=False)["value"].mean()
        kind = "aggregate mean" if len(metrics) > 1 else "mean"
    else:
        g = f.groupby(["dataset", "system"], sort=False)["value"]
        summary = pd.DataFrame({"mean": g.mean(), "sd": g.std(ddof=1), "n": g.size()}).reset_index()
        if dataset_weights is not None:
            unknown = sorted(set(dataset_weights) - set(datasets))
            if unknown:
                raise AggregateError(f"dataset_weights: unknown dataset(s) {unknown}")
            weight_of = {d: float(dataset_weights.get(d, 0.0)) for d in datasets}
            summary["weight"] = summary["dataset"].map(weight_of)  # one lookup, not a call a row
        means = standardized_means(summary, higher_is_better=True)
        kind = "standardized mean" + (" (weighted)" if dataset_weights is not None else "")
    means = means.astype(float).sort_values(ascending=False, kind="stable")
    order = [str(s) for s in means.index]
    if comparisons == "all":
        pairs = list(itertools.combinations(order, 2))
        alternative = "two-sided"
    elif comparisons == "successive":
        pairs = list(itertools.pairwise(order))
        alternative = "greater"
    else:
        pairs = [(order[0], s) for s in order[1:]]
        alternative = "greater"
    comp = compare(agg, systems=order, pairs=pairs, alternative=alternative,
                   correction=correction, level=level, test=test, n_resamples=n_resamples,
                   seed=seed)
    if len(datasets) > 1:
        comp = aggregate_comparisons(comp, weights=dict(dataset_weights) if dataset_weights else None)
        # the graph's node values are the ranking's means V̇_b (§6.3), not averages of averages
        m = comp.means.set_index("system")
        m["mean"] = means.reindex(m.index).to_numpy(dtype=float)
        comp = dataclasses.replace(comp, means=m.reset_index()[list(comp.means.columns)])
    cliques = _cliques(order, comp.table)
    per = _cell_means(scores)
    closeness, tau = _topsis(per, higher_is_better, weights, dataset_weights, order)
    return Ranking(
        order=tuple(order), means=pd.Series(means.to_numpy(dtype=float), index=order, name=kind),
        comparison=comp, cliques=cliques, comparisons=comparisons, level=level,
        correction=correction, datasets=tuple(datasets), metrics=tuple(metrics), mean_kind=kind,
        naive_means=_naive_means(per),
        weights="custom" if (weights or dataset_weights) else "equal",
        topsis=closeness, topsis_tau=tau,
    )


def _topsis(per: pd.Series, higher_is_better: Mapping[str, bool] | bool | None,
            weights: Mapping[str, float] | None, dataset_weights: Mapping[str, float] | None,
            order: list[str]) -> tuple[pd.Series, float]:
    """TOPSIS over the systems' per-(dataset, metric) means, weighted by metric × dataset weights,
    (``per``, :func:`_cell_means`), min–max normalised (pymcdm's default, as in the IBM paper's
    §7.4, and location free), and Kendall's τ between its order and ``order``."""
    means = per.unstack("system")
    matrix = means.T.reindex(order)  # systems × (dataset, metric) criteria
    # criterion weights w_metric · w_dataset and directions, per level of the criteria's
    # MultiIndex and then taken by its codes (a million criteria: no per-criterion Python)
    criteria = means.index
    assert isinstance(criteria, pd.MultiIndex)  # (dataset, metric)
    datasets, metrics = criteria.levels
    d_codes, m_codes = criteria.codes
    w_m = np.array([1.0 if weights is None else float(weights.get(m, 0.0)) for m in metrics])
    w_d = np.ones(len(datasets)) if dataset_weights is None else \
        np.array([float(dataset_weights.get(d, 0.0)) for d in datasets])
    crit_w = w_m[m_codes] * w_d[d_codes]
    direction = []
    for m in metrics:
        if isinstance(higher_is_better, bool):
            direction.append(higher_is_better)
        elif isinstance(higher_is_better, Mapping) and m in higher_is_better:
            direction.append(bool(higher_is_better[m]))
        else:
            known = metric_direction(m)
            direction.append(True if known is None else known)
    crit_dir = np.array(direction, dtype=bool)[m_codes]
    x = matrix.to_numpy(dtype=float)
    # TOPSIS needs finite values and finite non-negative weights, not all zero
    if not (np.isfinite(x).all() and np.isfinite(crit_w).all() and (crit_w >= 0).all()
            and (crit_w > 0).any()):
        return pd.Series(dtype=float), float("nan")
    try:
        # min–max normalisation (pymcdm's default, which the IBM paper used, §7.4): free of
        # each criterion's location and scale, so shifting a metric's scores moves no rank;
        # Hwang & Yoon's vector normalisation x/‖x‖ presumes a ratio scale and is not
        closeness = pd.Series(_closeness(x, crit_w, crit_dir, "minmax"),
                              index=matrix.index.copy(),
                              name="topsis")
    except AggregateError:  # e.g. identical systems: TOPSIS is undefined
        return pd.Series(dtype=float), float("nan")
    try:
        tau = float(kendall_tau(closeness, order).statistic)
    except AggregateError:  # every system equally close (e.g. two systems splitting criteria)
        tau = float("nan")
    return closeness, tau


def _cliques(order: list[str], table: pd.DataFrame) -> tuple[tuple[str, ...], ...]:
    """Maximal cliques of the graph whose edges are the tested, non-significant pairs."""
    import networkx as nx

    g = nx.Graph()
    g.add_nodes_from(order)
    for a, b, sig in zip(table["system_a"], table["system_b"], table["significant"], strict=True):
        if not bool(sig):
            g.add_edge(str(a), str(b))
    pos = {s: i for i, s in enumerate(order)}
    groups = [tuple(sorted(c, key=pos.__getitem__)) for c in nx.find_cliques(g)]
    # ties (same first system, same size) by their members: find_cliques' order follows string
    # hashes, which change from one process to the next
    groups.sort(key=lambda c: (pos[c[0]], -len(c), [pos[s] for s in c]))
    return tuple(groups)


# --------------------------------------------------------------------------- §10.2
@dataclass(frozen=True)
class ConditionComparison:
    """Condition-and-compare (IBM §10.2): per partition of the ``condition`` values, the scores
    pooled by ``compare`` values and their first-vs-rest :class:`Ranking`.

    ``partitions`` maps the condition values (a tuple; ``()`` without conditions) to the pooled
    :class:`Scores` (a "system" is a combination of compare values, e.g. ``"temperature=0.7"``)
    and ``rankings`` to its ranking; ``colors`` maps each pooled system to its ``color`` group.
    """

    condition: tuple[str, ...]
    compare: tuple[str, ...]
    color: tuple[str, ...]
    partitions: dict[tuple[str, ...], Scores]
    rankings: dict[tuple[str, ...], Ranking]
    colors: dict[str, str]
    members: dict[tuple[str, ...], dict[str, tuple[str, ...]]]
    #: the settings object of the call that made this result (:func:`condition_and_compare`)
    settings: RankSettings | None = field(default=None, compare=False, repr=False)

    def plot(self, partition: tuple[str, ...] | None = None, **kwargs: Any) -> Figure:
        """Boxplots of the pooled scores of one partition, coloured by the ``color`` values."""
        from ..plots.condition import condition_boxplots

        return condition_boxplots(self, partition=partition, **kwargs)


def _label(cols: Sequence[str], values: Sequence[object]) -> str:
    return ", ".join(f"{c}={v}" for c, v in zip(cols, values, strict=True)) or "all"


@renamed_keywords(alpha="level")
def condition_and_compare(
    scores: Scores | pd.DataFrame,
    params: pd.DataFrame,
    *,
    condition: Sequence[str] = (),
    compare: Sequence[str],
    color: Sequence[str] = (),
    level: float = _DEFAULT.level,
    correction: str = _DEFAULT.correction,
    test: str = _DEFAULT.test,
    higher_is_better: Mapping[str, bool] | bool | None = _DEFAULT.higher_is_better,
    weights: Mapping[str, float] | None = _DEFAULT.weights,
    seed: int | None = _DEFAULT.seed,
    settings: RankSettings | None = None,
) -> ConditionComparison:
    """Partition systems by hyper-parameter values and compare pooled groups (IBM §10.2).

    ``params``: one row per system (index = system name, or a ``system`` column), one column per
    hyper-parameter θ. Systems with the same ``condition`` values form a partition; inside it,
    the per-item scores of systems with the same ``compare`` values are pooled (item ids become
    ``item@system``, so pooled groups are unpaired) and ranked first-vs-rest. ``color`` must be a
    subset of ``compare``.

    Parameters
    ----------
    scores : Scores or pandas.DataFrame
        Per-item scores of every system named in ``params``.
    params : pandas.DataFrame
        One row per system (index = system name, or a ``system`` column), one column per
        hyper-parameter.
    condition : sequence of str, default ()
        Hyper-parameters whose values partition the systems (none: one partition).
    compare : sequence of str
        Hyper-parameters whose values form the pooled groups compared inside a partition.
    color : sequence of str, default ()
        A subset of ``compare`` whose values colour the boxplots of :meth:`ConditionComparison.plot`.
    level : float, default 0.95
        Confidence level of the rankings (see :func:`rank_systems`).
    correction : str, default "holm-sidak"
        Multiplicity correction of the pairwise tests.
    test : str, default "auto"
        Pairwise test, as :func:`~ranger_eval.compare` (pooled groups are unpaired).
    higher_is_better : bool or mapping, optional
        Direction of every metric (default: higher is better).
    weights : mapping, optional
        Metric weights of the aggregate metric.
    seed : int, default 0
        Seed of the resampling tests.
    settings : RankSettings, optional
        A :class:`~ranger_eval.settings.RankSettings` instead of the keywords above (a keyword
        other than its default next to it is a ``SettingsError``); every ranking runs with it,
        its ``comparisons`` set to ``"first-vs-rest"`` (the §10.2 design).

    Returns
    -------
    ConditionComparison
        ``partitions`` (condition values → pooled :class:`Scores`), ``rankings`` (→ first-vs-rest
        :class:`Ranking`), ``members`` (pooled group → its systems), ``colors`` and the call's
        ``settings``.

    Raises
    ------
    AggregateError
        An unknown hyper-parameter, ``color`` not within ``compare``, ``condition`` and
        ``compare`` sharing a name, a system without a ``params`` row, a partition with fewer
        than two compare values.

    References
    ----------
    Ackerman, S., Farchi, E., Raz, O. & Toledo, A. (2025), "Statistical multi-metric evaluation
    and visualization of LLM system predictive performance", §10.2 (condition-and-compare).

    Examples
    --------
    Four systems, two models at two temperatures: is temperature 0 better within each model?

    >>> import pandas as pd
    >>> import ranger_eval as rg
    >>> vals = {"m1-t0": [.8, .6, .9, .5, .7, .7], "m1-t1": [.6, .5, .7, .4, .6, .5],
    ...         "m2-t0": [.7, .7, .8, .6, .8, .6], "m2-t1": [.5, .6, .6, .4, .5, .6]}
    >>> df = pd.DataFrame([{"dataset": "d", "metric": "acc", "item": i, "system": s, "value": v}
    ...                    for s, vs in vals.items() for i, v in enumerate(vs)])
    >>> params = pd.DataFrame({"model": ["m1", "m1", "m2", "m2"],
    ...                        "temperature": [0.0, 1.0, 0.0, 1.0]}, index=list(vals))
    >>> cc = rg.condition_and_compare(df, params, condition=["model"], compare=["temperature"],
    ...                               test="welch")
    >>> for part, ranking in cc.rankings.items():
    ...     print(part, ranking.cliques)
    ('m1',) (('temperature=0.0',), ('temperature=1.0',))
    ('m2',) (('temperature=0.0',), ('temperature=1.0',))
    >>> pooled = rg.condition_and_compare(df, params, compare=["temperature"], test="welch")
    >>> pooled.members[()]
    {'temperature=0.0': ('m1-t0', 'm2-t0'), 'temperature=1.0': ('m1-t1', 'm2-t1')}
    """
    settings = resolve_settings(RankSettings, {
        "level": level, "correction": correction, "test": test,
        "higher_is_better": higher_is_better, "weights": weights, "seed": seed,
    }, settings, where="condition_and_compare")
    ranked = dataclasses.replace(settings, comparisons="first-vs-rest")
    scores = as_scores(scores, what="condition_and_compare", error=AggregateError)
    refuse_prompts(scores, where="condition_and_compare", error=AggregateError,
                   why="the systems of a setting are pooled as unpaired per-item means")
    params = as_frame(params, what="condition_and_compare: params (system → hyper-parameters)",
                      error=AggregateError, index_columns=("system",))
    p = params.set_index("system") if "system" in params.columns else params
    p.index = p.index.astype(str)
    condition, compare_cols, color = list(condition), list(compare), list(color)
    if not compare_cols:
        raise AggregateError("compare: name at least one hyper-parameter to compare")
    for name, cols in (("condition", condition), ("compare", compare_cols), ("color", color)):
        bad = [c for c in cols if c not in p.columns]
        if bad:
            raise AggregateError(f"{name}: no hyper-parameter {bad[0]!r}; params has {', '.join(map(str, p.columns))}")
    if not set(color) <= set(compare_cols):
        raise AggregateError(f"color {color} must be a subset of compare {compare_cols}")
    if set(condition) & set(compare_cols):
        raise AggregateError(f"condition and compare share {sorted(set(condition) & set(compare_cols))}")
    missing = [s for s in scores.systems if s not in p.index]
    if missing:
        raise AggregateError(f"params: no row for system(s) {', '.join(missing[:10])}")
    frame = scores.frame
    partitions: dict[tuple[str, ...], Scores] = {}
    rankings: dict[tuple[str, ...], Ranking] = {}
    members: dict[tuple[str, ...], dict[str, tuple[str, ...]]] = {}
    colors: dict[str, str] = {}
    systems = list(scores.systems)
    cond_keys = ([tuple(str(v) for v in p.loc[s, condition]) for s in systems] if condition
                 else [() for _ in systems])
    for key in dict.fromkeys(cond_keys):
        in_part = [s for s, k in zip(systems, cond_keys, strict=True) if k == key]
        groups: dict[str, list[str]] = {}
        for s in in_part:
            label = _label(compare_cols, [p.loc[s, c] for c in compare_cols])
            groups.setdefault(label, []).append(s)
            colors[label] = _label(color, [p.loc[s, c] for c in color]) if color else label
        if len(groups) < 2:
            raise AggregateError(
                f"partition {_label(condition, key)}: needs at least two distinct compare values; "
                f"got {list(groups)}"
            )
        sub = frame[frame["system"].isin(in_part)].copy()
        label_of = {s: lab for lab, ss in groups.items() for s in ss}
        sub["item"] = sub["item"].astype(str) + "@" + sub["system"].astype(str)
        sub["system"] = sub["system"].map(label_of)
        pooled = Scores(sub.reset_index(drop=True))
        partitions[key] = pooled
        members[key] = {lab: tuple(ss) for lab, ss in groups.items()}
        ranking = rank_systems(pooled, settings=ranked)
        assert isinstance(ranking, Ranking)
        rankings[key] = ranking
    return ConditionComparison(
        condition=tuple(condition), compare=tuple(compare_cols), color=tuple(color),
        partitions=partitions, rankings=rankings, colors=colors, members=members,
        settings=settings,
    )
