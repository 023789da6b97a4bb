"""Judge-scored items of :class:`Scores` as the arrays of prediction-powered inference.

Shared by :mod:`ranger_eval.verdicts.ppi` (``ppi_mean``, ``ppi_mean_difference``) and
:mod:`ranger_eval.comparison.ppi` (``compare`` on scores with a ``human_value`` column), so that
both read the judge's scores (``value``) and the human scores (``human_value``, NaN where there
is none) of a system the same way: rows found by boolean masks over the stored columns (no
conversion of the id strings to Python objects: a million items in tens of milliseconds), seeds
averaged per item (an item's human score must exist for all its seeds or for none), and two
systems aligned by item id. Errors are raised as the caller's layer class (``error=``) and name
the dataset, metric and systems.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..errors import Hint, RangerError
from ..formatting import preview
from ..scores import HUMAN_VALUE, Scores
from .clustered import cluster_codes
from .ppi import PPIResult, prediction_powered_mean

__all__ = ["JudgedItems", "JudgedPair", "align_pair", "check_ppi_counts", "checked_ppi",
           "has_human_scores", "item_cluster_codes",
           "judged_items", "judged_pair"]


@dataclass(frozen=True)
class JudgedItems:
    """One system's items on one dataset × metric: ids, judge scores, human scores (NaN: none)."""

    items: pd.Series
    value: np.ndarray
    human: np.ndarray


@dataclass(frozen=True)
class JudgedPair:
    """Two systems' judge and human scores aligned by item (treatment ``_t``, control ``_c``)."""

    value_t: np.ndarray
    value_c: np.ndarray
    human_t: np.ndarray
    human_c: np.ndarray

    @property
    def labelled(self) -> np.ndarray:
        """Items where both systems have a human score (the labelled set of the difference)."""
        return ~np.isnan(self.human_t) & ~np.isnan(self.human_c)

    @property
    def n_partial(self) -> int:
        """Items where exactly one of the two systems has a human score."""
        return int((np.isnan(self.human_t) ^ np.isnan(self.human_c)).sum())

    def difference(self, *, what: str, method: str, level: float,
                   error: type[RangerError], clusters: np.ndarray | None = None,
                   vcov: str = "CR1") -> PPIResult:
        """PPI of the mean paired difference: Y = H = human_t − human_c on the labelled items,
        Yhat = D = value_t − value_c there, Yhat_unlabelled = D elsewhere
        (:func:`checked_ppi`; why this is the estimator: :mod:`ranger_eval.verdicts.ppi`);
        ``clusters``: cluster codes of the items (the cluster-robust variance ``vcov``)."""
        lab = self.labelled
        d = self.value_t - self.value_c
        h = self.human_t[lab] - self.human_c[lab]
        return checked_ppi(h, d[lab], d[~lab], what=what, method=method, level=level,
                           error=error, clusters=None if clusters is None
                           else (clusters[lab], clusters[~lab]), vcov=vcov)

    def means_at(self, lam: float) -> tuple[float, float]:
        """Each system's prediction-powered mean at the pair's weight ``lam`` on the pair's split
        of items, λ·mean(judge, unlabelled) + mean(human − λ·judge, labelled): their difference
        is the pair's estimate (the estimator is linear in the scores)."""
        lab = self.labelled
        out = []
        for value, human in ((self.value_t, self.human_t), (self.value_c, self.human_c)):
            out.append(lam * float(value[~lab].mean()) if (~lab).any() else 0.0)
            out[-1] += float((human[lab] - lam * value[lab]).mean())
        return out[0], out[1]


def has_human_scores(scores: Scores) -> bool:
    """Whether ``scores`` has a ``human_value`` column with at least one human score."""
    if not scores.has_human_values:
        return False
    return bool(np.isfinite(scores.table[HUMAN_VALUE].to_numpy(dtype=np.float64)).any())


def judged_items(scores: Scores, *, dataset: str, metric: str, system: str,
                 error: type[RangerError]) -> JudgedItems:
    """``system``'s rows on ``dataset`` × ``metric`` (both known to exist), seeds averaged."""
    table = scores.table
    where = f"dataset {dataset!r}, metric {metric!r}"
    if not scores.has_human_values:
        raise error(
            f"the scores have no {HUMAN_VALUE!r} column ({where}): prediction-powered inference "
            f"needs human scores for some items (NaN where there is none)")
    mask = (table["system"] == system).to_numpy(dtype=bool)
    in_dataset = None
    if len(scores.datasets) > 1:
        in_dataset = (table["dataset"] == dataset).to_numpy(dtype=bool)
        mask = mask & in_dataset
    if len(scores.metrics) > 1:
        mask = mask & (table["metric"] == metric).to_numpy(dtype=bool)
    idx = np.flatnonzero(mask)
    if idx.size == 0:
        systems = table["system"] if in_dataset is None else table["system"][in_dataset]
        raise error(f"system {system!r} has no scores on {where}; systems there: "
                    f"{preview(pd.unique(systems))}")
    items = table["item"].take(idx).reset_index(drop=True)
    value = table["value"].to_numpy(dtype=np.float64)[idx]
    human = table[HUMAN_VALUE].to_numpy(dtype=np.float64)[idx]
    if "seed" not in table.columns:
        return JudgedItems(items, value, human)
    rows = pd.DataFrame({"item": items, "value": value, "human": human})
    grouped = rows.groupby("item", sort=False)
    counts = grouped["human"].count()
    sizes = grouped.size()
    bad = counts.index[(counts > 0) & (counts < sizes)]
    if len(bad):
        raise error(
            f"system {system!r} ({where}): item {bad[0]!r} has a {HUMAN_VALUE} for "
            f"{int(counts[bad[0]])} of its {int(sizes[bad[0]])} seeds; give it for all or "
            f"none ({len(bad)} such item(s))")
    means = grouped[["value", "human"]].mean()
    return JudgedItems(pd.Series(means.index), means["value"].to_numpy(),
                       means["human"].to_numpy())


def item_cluster_codes(scores: Scores, dataset: str, items: pd.Series) -> np.ndarray | None:
    """Cluster codes of ``items`` of ``dataset`` (scores with a ``cluster`` column), or None:
    no cluster column, or one item per cluster (then the numbers are ppi_py's exactly)."""
    if not scores.has_cluster:
        return None

    ids = scores.item_clusters(dataset).reindex(items.to_numpy(dtype=object))
    codes, c = cluster_codes(ids.to_numpy(dtype=object), len(ids),
                             name=f"clusters of dataset {dataset!r}")
    return None if c == len(ids) else codes


def judged_pair(scores: Scores, *, dataset: str, metric: str, treatment: str, control: str,
                error: type[RangerError]) -> JudgedPair:
    """The two systems aligned by item id (:func:`align_pair`)."""
    t = judged_items(scores, dataset=dataset, metric=metric, system=treatment, error=error)
    c = judged_items(scores, dataset=dataset, metric=metric, system=control, error=error)
    return align_pair(t, c, treatment=treatment, control=control,
                      where=f"dataset {dataset!r}, metric {metric!r}", error=error)


def align_pair(t: JudgedItems, c: JudgedItems, *, treatment: str, control: str, where: str,
               error: type[RangerError]) -> JudgedPair:
    """``t`` and ``c`` aligned by item id; an item scored by only one of them is an error
    naming it (a paired difference needs both on every item)."""
    t_items = pd.Index(t.items)
    at = t_items.get_indexer(pd.Index(c.items))
    if (at < 0).any() or len(t_items) != len(c.items):
        only_c = c.items.to_numpy()[at < 0]
        found = np.zeros(len(t_items), dtype=bool)
        found[at[at >= 0]] = True
        only_t = t_items.to_numpy()[~found]
        raise error(
            f"{treatment!r} and {control!r} did not score the same items on {where}: "
            f"{len(only_t)} item(s) only for {treatment!r} ({preview(only_t)}), {len(only_c)} "
            f"only for {control!r} ({preview(only_c)}); a paired difference needs both on "
            f"every item")
    order = np.empty(len(at), dtype=np.int64)
    order[at] = np.arange(len(at))  # the control row of each treatment item
    return JudgedPair(t.value, c.value[order], t.human, c.human[order])


def check_ppi_counts(n: int, n_unlabelled: int, *, what: str, method: str,
                     error: type[RangerError]) -> None:
    """The errors of too few items for ``what`` (system or pair, dataset, metric): no human
    score, one, or (PPI methods) fewer than 2 judge-only items (advising
    ``method='classical'``)."""
    if n == 0:
        raise error(f"no human scores for {what}: every {HUMAN_VALUE} is NaN, so there is "
                    f"nothing to correct the judge with; score at least 2 items by hand")
    if n < 2:
        raise error(f"only 1 item with a human score for {what}: prediction-powered "
                    f"inference needs at least 2 to estimate the judge's error")
    if method != "classical" and n_unlabelled < 2:
        hint = Hint("method", "classical")
        raise error(
            f"{n_unlabelled} item(s) without a human score for {what} (all "
            f"{n + n_unlabelled} items have one, or all but one): method "
            f"{method!r} corrects a judge on the judge-only items and needs at least 2; with "
            f"human scores everywhere, the human mean is the estimate: {hint.text}",
            hints=[hint])


def checked_ppi(y: np.ndarray, yhat: np.ndarray, yhat_unlabelled: np.ndarray, *, what: str,
                method: str, level: float, error: type[RangerError],
                clusters: tuple[np.ndarray, np.ndarray] | None = None,
                vcov: str = "CR1") -> PPIResult:
    """:func:`~ranger_eval.stats.ppi.prediction_powered_mean` after the checks that name
    ``what`` (:func:`check_ppi_counts`); ``clusters``: the cluster codes of the labelled and of
    the unlabelled items (the cluster-robust variance ``vcov``, "CR1" or "CR2")."""
    check_ppi_counts(y.size, yhat_unlabelled.size, what=what, method=method, error=error)
    try:
        return prediction_powered_mean(
            y, yhat, yhat_unlabelled, method=method, level=level,
            clusters=None if clusters is None else clusters[0],
            clusters_unlabelled=None if clusters is None else clusters[1], vcov=vcov)
    except RangerError as err:
        raise error(f"{what}: {err}") from err
