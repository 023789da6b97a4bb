"""The cluster-robust path of :func:`~ranger_eval.comparison.compare` (items in clusters are
not independent).

With a ``cluster`` column in the scores, every pair of a dataset × metric is tested with the
cluster-robust version of its test (:mod:`ranger_eval.stats.clustered`), without being asked:

==================  =====================================================================
test                clustered version (``ci_method`` of the row)
==================  =====================================================================
paired-t            CR2 t of the mean difference with Bell–McCaffrey df ("cluster-robust t
                    (CR2)"; see below); ``cluster_se="CR1"``: CR1 t on C − 1 df ("cluster-robust
                    t (CR1)")
welch               CR1 t of the difference in means: regression on a system indicator,
                    ``vcovCL(type = "HC1")``, G − 1 df ("cluster-robust t (CR1)")
proportions-z       the same regression on the 0/1 scores ("cluster-robust t (CR1)")
mcnemar             the clustered McNemar χ² Yang, Sun & Hardin (2010) recommend: Durkalski et
                    al.'s (2003) when cluster sizes vary and there are fewer than 50 clusters,
                    else YSH's modified Obuchowski test (R clust.bin.pair methods "durkalski",
                    "yang"; :func:`~ranger_eval.stats.clustered.mcnemar_method`; interval: the
                    paired CR2 t)
wilcoxon            Rosner, Glynn & Lee's (2006) clustered signed-rank test (R clusrank,
                    method "rgl"; interval: the paired CR2 t); the pairs of every group with
                    the same number of items in one array call (:mod:`ranger_eval.stats.
                    clustered_rank`, each row its pair's one-pair call bit for bit)
permutation         signs of whole clusters flipped (paired; interval: the paired CR2 t)
bootstrap           whole clusters resampled (ratio of cluster sums; BCa, "cluster bootstrap
                    BCa"); with fewer than 100 clusters a warning says that it over-rejects
                    (measured: 7.6–8.5 % at 20 clusters, 6.0–6.4 % at 50, for α = 5 %)
sign, mannwhitney   refused with an error that names the clustered alternative
                    (:data:`~ranger_eval.stats.clustered.NOT_CLUSTERED`)
==================  =====================================================================

With fewer than 6 clusters (:data:`FEW_CLUSTERS_INTERVAL`) a clustered paired comparison warns
that its interval and test do not hold their level: the 95 % CR2 t interval of a paired 0/1
difference covered 88.8 % with 3 clusters and 91.2 % with 5 (n = 15 items), 96.3 % with 6
(benchmarks/interval_coverage.py, 10,000 replicates, ICC 0.1; :data:`FEW_CLUSTERS_COVERAGE`).

The paired t test uses the bias-reduced CR2 variance with the Bell & McCaffrey (2002)
Satterthwaite degrees of freedom (R clubSandwich; :func:`~ranger_eval.stats.clustered.
clustered_ttest_from_sums`) rather than CR1 with t on C − 1 df: with 20 clusters of unequal
sizes CR1 rejected a true null in 5.6–6.7 % of simulated data sets at α = 0.05, CR2 in
4.9–5.9 % (10,000 replicates per scenario; benchmarks/cluster_validity.py, benchmarks/README.md); the two agree as the number of clusters grows, and
both equal the paired t test when every cluster has one item. ``compare(...,
cluster_se="CR1")`` (``--cluster-se CR1``; the signature's ``cse:CR1``) uses CR1 with t on
C − 1 df instead, exactly statsmodels ``OLS(d, 1).fit(cov_type="cluster")`` and R
``sandwich::vcovCL(lm(d ~ 1), type = "HC1")`` (also as
``stats.clustered_paired_ttest(..., vcov="CR1")``), for the paired t and for the intervals the
other paired tests borrow; the unpaired tests are the CR1 regression either way.

Paired 0/1 scores: Obuchowski's (1998) clustered McNemar statistic, the first published one,
rejected a true null in only 3.7–4.2 % of the simulated data sets with 20 unequal clusters
(α = 0.05). Yang, Sun & Hardin (2010, Biometrical Journal 52:638) found it the most
conservative of the tests and recommend Durkalski et al.'s (2003) statistic for unequal cluster
sizes and fewer than 50 clusters, their modified Obuchowski statistic otherwise; with that rule
the rejection rate was 4.6–5.1 % at 20 clusters, 5.3–5.4 % at 50 and 5.1–5.3 % at 200 (binary
scenarios of benchmarks/cluster_validity.py, ICC 0.1–0.9, 10,000 replicates each), so auto and
``test="mcnemar"`` take it. Obuchowski's statistic stays available as
``stats.clustered_mcnemar(..., method="obuchowski")``.

``test="auto"`` chooses as without clusters (McNemar / two-proportion / paired t / Welch) and
then takes the clustered version. A dataset × metric whose clusters each hold one item is not
clustered at all: it is tested exactly as without a cluster column (for paired t, bootstrap and
permutation the clustered tests reduce to the same numbers anyway). The table gains an
``n_clusters`` column (clusters of each pair's items; NaN for unclustered groups), a ``ci_df``
column (the degrees of freedom of each clustered row's t interval: Bell–McCaffrey's for CR2,
C − 1 for CR1; NaN for the cluster bootstrap's own interval; the ``mde`` column uses them) and the
signature ``cluster:<field>`` (:attr:`~ranger_eval.scores.Scores.cluster_name`: the user's name of
the field, e.g. ``cluster:passage``). Clusters are the (dataset, cluster id) pairs of the scores
(:class:`~ranger_eval.scores.Scores`), so they never cross datasets.
"""
from __future__ import annotations

import math
import warnings
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from ..errors import CompareError, Hint
from ..pairing import Group, scores_table
from ..scores.columns import CLUSTER
from ..stats import clustered as cl
from ..stats import many
from ..stats.clustered import NOT_CLUSTERED, cluster_codes, cluster_sums, clustered_signed_rank
from ..stats.clustered_rank import (
    clustered_signed_rank_rows,
    nonzero_cluster_counts,
    scaled_difference_rows,
)
from ..stats.results import ManyTestResult
from .dispatch import _context, _Outcome, _PairData
from .engine import _buckets, _GroupWork, _pair_rows

if TYPE_CHECKING:
    from ..stats.results import ManyTestResult

CR1 = "cluster-robust t (CR1)"
#: below this many clusters the cluster bootstrap warns that it over-rejects (measured)
FEW_CLUSTERS = 100
CR2 = "cluster-robust t (CR2)"
#: below this many clusters a clustered paired interval warns that it undercovers (measured:
#: :data:`FEW_CLUSTERS_COVERAGE`)
FEW_CLUSTERS_INTERVAL = 6
#: the coverage of the 95 % CR2 t interval of a paired 0/1 difference measured with few clusters
#: (benchmarks/interval_coverage.py, 10,000 replicates, ICC 0.1)
FEW_CLUSTERS_COVERAGE = ("88.8 % with 3 clusters and 91.2 % with 5 (n = 15 items), "
                         "96.3 % with 6")


def few_clusters_warning(group: Group, n_clusters: int) -> None:
    """Warn that the cluster-robust intervals of ``group`` rest on fewer than
    :data:`FEW_CLUSTERS_INTERVAL` clusters, with the coverage measured there."""
    warnings.warn(
        f"dataset {group.dataset!r} (metric {group.metric!r}): the cluster-robust interval and "
        f"test of a paired difference rest on {n_clusters} clusters; with fewer than "
        f"{FEW_CLUSTERS_INTERVAL} clusters the cluster-robust interval does not hold its level "
        f"(measured coverage of the 95 % CR2 t interval of a paired 0/1 difference: "
        f"{FEW_CLUSTERS_COVERAGE}; "
        "benchmarks/interval_coverage.py); read it as indicative, or collect more clusters",
        UserWarning, stacklevel=5)


@dataclass(frozen=True)
class GroupClusters:
    """Cluster codes (0 … C − 1, numbered by first appearance in item order) of a group's
    items, aligned with :attr:`Group.items`."""

    codes: np.ndarray
    n_clusters: int


def group_clusters(scores: object, group: Group) -> GroupClusters | None:
    """The clusters of ``group``'s items, or None when the scores have no cluster column or
    every cluster of the group holds one item (then the group is not clustered)."""
    if not getattr(scores, "has_cluster", False):
        return None

    mapping = scores.item_clusters(str(group.dataset))  # type: ignore[attr-defined]
    ids = mapping.reindex(np.asarray(group.items, dtype=object)).to_numpy(dtype=object)
    codes, c = cluster_codes(ids, ids.size, name=f"clusters of dataset {group.dataset!r}")
    if c == ids.size:
        return None
    return GroupClusters(codes, c)


def groups_clusters(scores: object, groups: list[Group]) -> list[GroupClusters | None]:
    """:func:`group_clusters` of every group at once: one lookup of every group's (dataset,
    item) in the scores' table and one first-appearance numbering of (group, cluster id) over
    all groups (so 100,000 datasets are not 100,000 pandas reindex calls). The codes equal
    :func:`group_clusters`'s for each group (numbered by first appearance in item order within
    the group); a group with an item or cluster id the lookup cannot place (a missing or empty
    id) takes :func:`group_clusters` itself, which names it."""
    if not getattr(scores, "has_cluster", False) or not groups:
        return [None] * len(groups)
    table = scores_table(scores)  # type: ignore[arg-type]
    first = table[["dataset", "item", CLUSTER]].drop_duplicates(["dataset", "item"])
    sizes = np.array([g.items.size for g in groups], dtype=np.int64)
    items = np.concatenate([np.asarray(g.items, dtype=object) for g in groups])
    ds = np.repeat(np.array([str(g.dataset) for g in groups], dtype=object), sizes)
    tds = first["dataset"].astype(str).to_numpy(dtype=object)
    d_codes, d_uniq = pd.factorize(np.concatenate([tds, ds]))
    i_codes, i_uniq = pd.factorize(np.concatenate([first["item"].to_numpy(dtype=object),
                                                   items]))
    key = d_codes.astype(np.int64) * max(len(i_uniq), 1) + i_codes
    t_key, g_key = key[:len(first)], key[len(first):]
    at = pd.Index(t_key).get_indexer(g_key)
    c_codes, c_uniq = pd.factorize(first[CLUSTER].to_numpy(dtype=object))
    labels = np.asarray(c_uniq, dtype=object)
    bad_label = np.array([isinstance(v, str) and v == "" for v in labels.tolist()], dtype=bool)
    cl_code = np.where(at >= 0, c_codes[np.maximum(at, 0)], -1)
    bad = (at < 0) | (cl_code < 0) | (bad_label[np.maximum(cl_code, 0)] if labels.size
                                      else True)
    gid = np.repeat(np.arange(len(groups), dtype=np.int64), sizes)
    joint, _ = pd.factorize(gid * max(len(labels), 1) + np.maximum(cl_code, 0))
    starts = np.r_[0, np.cumsum(sizes)]
    out: list[GroupClusters | None] = []
    for g, group in enumerate(groups):
        lo, hi = int(starts[g]), int(starts[g + 1])
        if lo == hi or bad[lo:hi].any():
            out.append(group_clusters(scores, group))
            continue
        codes = joint[lo:hi]
        codes = (codes - codes[0]).astype(np.intp)  # first appearance within the group
        c = int(codes.max()) + 1
        out.append(None if c == hi - lo else GroupClusters(codes, c))
    return out


def _refuse(test: str, group: Group, d: _PairData) -> CompareError:
    if test == "permutation":
        why, alt, what = ("whole clusters cannot be permuted between two systems scored on "
                          "different items", "welch",
                          "the cluster-robust CR1 t of the difference in means")
    else:
        why, alt, what = NOT_CLUSTERED[test]
    hint = Hint("test", alt)
    return CompareError(
        f"dataset {group.dataset!r} (metric {group.metric!r}), systems {d.a!r} vs {d.b!r}: the "
        f"scores have a cluster column and test {test!r} has no cluster-robust version: {why}; "
        f"{hint.text} ({what}); a test that treats clustered items as independent would claim "
        "too much", hints=[hint])


def _pair_sums(group: Group, gc: GroupClusters, d: _PairData,
               totals: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """(cluster sums of d = x − y, cluster sizes) over the pair's common items; ``totals``
    (systems × C cluster sums of a complete group) gives them as a difference of two rows."""
    if totals is not None and d.items is None:
        sizes = np.bincount(gc.codes, minlength=gc.n_clusters)
        return totals[group.index(d.a)] - totals[group.index(d.b)], sizes
    codes = gc.codes if d.items is None else gc.codes[d.items]
    if d.items is not None and d.items.size != gc.codes.size:
        codes, c = cluster_codes(codes, codes.size)
    else:
        c = gc.n_clusters
    if c < 2:
        raise CompareError(
            f"dataset {group.dataset!r} (metric {group.metric!r}), systems {d.a!r} vs {d.b!r}: "
            f"all {codes.size} common items are in one cluster; a cluster-robust test needs at "
            "least 2 clusters (the items are one dependent unit)")
    return cluster_sums(d.x - d.y, codes, c), np.bincount(codes, minlength=c)


class ClusteredT:
    """The clustered paired t tests of every clustered dataset × metric, queued by cluster
    structure and run as one :func:`~ranger_eval.stats.clustered.clustered_ttest_from_sums`
    call per distinct vector of cluster sizes (many tiny datasets share a handful), instead of
    one call per group: every row's statistic, p-value, interval and df are those of its own
    group's call bit for bit (row-wise reductions and elementwise t functions; the df depends
    on the sizes alone)."""

    #: the clustered signed-rank rows of every group run together (False: pair by pair, the
    #: reference path the bit-for-bit test compares against)
    vectorise_signed_rank = True
    #: ... when a pair has at most this many items: the rows' sort of the signed ranks loses to
    #: the pair-by-pair path above it (benchmarks/clustered_rank_bench.py --items N, 330 tests
    #: of 12 systems × 5 datasets: 1.9× at 300 and 600 items, 1.1× at 1,000, 0.9× at 2,000)
    signed_rank_rows_max_items = 1024

    def __init__(self, alternative: str, level: float, cluster_se: str) -> None:
        self.alternative, self.level, self.cluster_se = alternative, level, cluster_se
        # clustered signed-rank rows by number of items: (differences, codes, pending, pairs)
        self.signed_rank: dict[int, list[tuple[np.ndarray, np.ndarray, _PendingClustered,
                                               list[int]]]] = {}
        self.jobs: dict[bytes, list[tuple[np.ndarray, np.ndarray, _PendingClustered,
                                          list[int]]]] = {}
        # clustered McNemar rows by cluster sizes: (sizes, method, sums, pending, pairs)
        self.mcnemar: dict[bytes, list[tuple[np.ndarray, str, np.ndarray, _PendingClustered,
                                             list[int]]]] = {}

    def add_mcnemar(self, sizes: np.ndarray, method: str, sums: np.ndarray,
                    pending: _PendingClustered, idx: list[int]) -> None:
        """Queue the clustered McNemar tests of the pairs ``idx`` of ``pending`` (rows of
        ``sums``, at least 2 clusters); :meth:`run` tests every group's of these sizes in one
        :func:`~ranger_eval.stats.clustered.clustered_mcnemar_from_sums` call (row-wise sums
        and elementwise χ²/normal tails, so each row is its group's call bit for bit; the
        method depends on the sizes alone)."""
        self.mcnemar.setdefault(sizes.tobytes(), []).append((sizes, method, sums, pending, idx))

    def add_signed_rank(self, d: np.ndarray, codes: np.ndarray, pending: _PendingClustered,
                        idx: list[int]) -> None:
        """Queue the clustered signed-rank tests of the pairs ``idx`` of ``pending``: rows of
        ``d`` (their scaled differences, :func:`~ranger_eval.stats.clustered_rank.
        scaled_difference_rows`) with the cluster codes ``codes`` (one row per pair), each
        with at least 2 clusters holding a non-zero difference or none (checked by the
        caller, whose error names the pair); :meth:`run` tests every group's pairs with the
        same number of items in one :func:`~ranger_eval.stats.clustered_rank.
        clustered_signed_rank_rows` call (each row its pair's one-pair call bit for bit)."""
        self.signed_rank.setdefault(d.shape[1], []).append((d, codes, pending, idx))

    def add(self, sizes: np.ndarray, sums: np.ndarray, pending: _PendingClustered,
            idx: list[int]) -> None:
        """Queue the pairs ``idx`` of ``pending`` (rows of ``sums``) with these sizes."""
        self.jobs.setdefault(sizes.tobytes(), []).append((sizes, sums, pending, idx))

    def run(self) -> None:
        """One t call per cluster-size vector; each group's rows go back to its pending."""
        for jobs in self.jobs.values():
            sums = jobs[0][1] if len(jobs) == 1 else np.concatenate([j[1] for j in jobs])
            t = cl.clustered_ttest_from_sums(sums, jobs[0][0], alternative=self.alternative,
                                             level=self.level, vcov=self.cluster_se)
            assert t.ci_low is not None and t.ci_high is not None and t.df is not None
            at = 0
            for _, part, pending, idx in jobs:
                rows = slice(at, at + part.shape[0])
                pending.t.append((idx, t.statistic[rows], t.pvalue[rows], t.ci_low[rows],
                                  t.ci_high[rows], t.df[rows]))
                at += part.shape[0]
        self.jobs = {}
        for mjobs in self.mcnemar.values():
            sums = mjobs[0][2] if len(mjobs) == 1 else np.concatenate([j[2] for j in mjobs])
            res = cl.clustered_mcnemar_from_sums(sums, mjobs[0][0], alternative=self.alternative,
                                                 method=mjobs[0][1])
            at = 0
            for _, _, part, pending, idx in mjobs:
                rows = slice(at, at + part.shape[0])
                pending.extra.append((idx, res.statistic[rows], res.pvalue[rows]))
                at += part.shape[0]
        self.mcnemar = {}
        for sjobs in self.signed_rank.values():
            one = len(sjobs) == 1
            d = sjobs[0][0] if one else np.concatenate([j[0] for j in sjobs])
            codes = sjobs[0][1] if one else np.concatenate([j[1] for j in sjobs])
            sr = clustered_signed_rank_rows(d, codes, alternative=self.alternative)
            at = 0
            for part, _, pending, idx in sjobs:
                rows = slice(at, at + part.shape[0])
                pending.extra.append((idx, sr.statistic[rows], sr.pvalue[rows]))
                at += part.shape[0]
        self.signed_rank = {}


@dataclass
class _PendingClustered:
    """A clustered group's outcomes before its paired t rows come back from
    :class:`ClusteredT` (:meth:`result` assembles them)."""

    n: int
    label: str
    out: dict[int, _Outcome]
    n_cl: dict[int, int]
    dfs: dict[int, float]
    # (rows, statistic, pvalue) of the paired tests other than the t: McNemar, signed rank,
    # cluster permutation (their interval is the t's); bootstrap rows are in ``out``
    extra: list[tuple[list[int], np.ndarray, np.ndarray]]
    t: list[tuple[list[int], np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]]

    def result(self) -> tuple[list[_Outcome], list[int], list[float]]:
        """Outcome, number of clusters and df of the t interval of every pair, in order."""
        out, dfs = dict(self.out), dict(self.dfs)
        boot = {i for i, o in self.out.items() if o.ci_method == "cluster bootstrap BCa"}
        for idx, stat, p, lo, hi, df in self.t:
            for j, i in enumerate(idx):
                if i in boot:
                    continue
                out[i] = _Outcome(float(stat[j]), float(p[j]), float(lo[j]), float(hi[j]),
                                  self.label)
                dfs[i] = float(df[j])
        for idx, stat, p in self.extra:
            for j, i in enumerate(idx):
                out[i] = _Outcome(float(stat[j]), float(p[j]), out[i].ci_low, out[i].ci_high,
                                  self.label)
        order = range(self.n)
        return [out[i] for i in order], [self.n_cl[i] for i in order], [dfs[i] for i in order]


def clustered_outcomes(
    group: Group, gc: GroupClusters, data: list[_PairData], chosen: list[str], *,
    alternative: str, level: float, n_resamples: int, seed: int | None,
    cluster_se: str = "CR2",
) -> tuple[list[_Outcome], list[int], list[float]]:
    """Outcome, number of clusters and degrees of freedom of the t interval (NaN for the
    cluster bootstrap's own interval) of every pair of one clustered dataset × metric (module
    docstring). Pairs of one test and one cluster structure are tested together: the paired
    CR2 (or ``cluster_se="CR1"``) t, McNemar, bootstrap and permutation kernels take a pairs × C
    matrix of cluster sums (one shared resampling matrix over the C clusters)."""
    queue = ClusteredT(alternative, level, cluster_se)
    pending = clustered_start(group, gc, data, chosen, queue, n_resamples=n_resamples,
                              seed=seed)
    queue.run()
    return pending.result()


def clustered_start(
    group: Group, gc: GroupClusters, data: list[_PairData], chosen: list[str],
    queue: ClusteredT, *, n_resamples: int, seed: int | None,
) -> _PendingClustered:
    """:func:`clustered_outcomes` of one group up to its paired t tests, which are queued on
    ``queue`` (every group's run together by :meth:`ClusteredT.run`): the refusals, the
    unpaired CR1 tests, the McNemar, signed-rank, permutation and bootstrap kernels and the
    warnings, in the order and with the errors of the one-group path."""
    alternative, level, cluster_se = queue.alternative, queue.level, queue.cluster_se
    out: dict[int, _Outcome] = {}
    n_cl: dict[int, int] = {}
    dfs: dict[int, float] = {}
    paired_sums: dict[int, tuple[np.ndarray, np.ndarray]] = {}
    totals = None  # a complete group: the systems' cluster sums, once (pairs are row differences)
    if group.complete and gc.n_clusters >= 2 and any(d.paired for d in data):
        totals = cluster_sums(group.matrix, gc.codes, gc.n_clusters)
    for i, (d, test) in enumerate(zip(data, chosen, strict=True)):
        if test in cl.NOT_CLUSTERED or (test == "permutation" and not d.paired):
            raise _refuse(test, group, d)
        if d.paired:
            paired_sums[i] = _pair_sums(group, gc, d, totals)
            n_cl[i] = int(paired_sums[i][1].size)
        else:
            pa = group.present[group.index(d.a)] if not group.complete else None
            pb = group.present[group.index(d.b)] if not group.complete else None
            cx = gc.codes if pa is None else gc.codes[pa]
            cy = gc.codes if pb is None else gc.codes[pb]
            with _context(group, [d]):
                r = cl.clustered_unpaired_ttest(d.x, d.y, clusters_x=cx, clusters_y=cy,
                                                alternative=alternative, level=level)
            assert r.ci_low is not None and r.ci_high is not None and r.n_clusters is not None
            out[i] = _Outcome(r.statistic, r.pvalue, r.ci_low, r.ci_high, CR1)
            n_cl[i] = r.n_clusters
            dfs[i] = float(r.df) if r.df is not None else math.nan
    label = CR2 if cluster_se == "CR2" else CR1
    pending = _PendingClustered(len(data), label, out, n_cl, dfs, [], [])
    # paired pairs: bucket by (cluster sizes) so each bucket is one pairs x C matrix
    buckets: dict[bytes, list[int]] = {}
    for i, (_, sizes) in paired_sums.items():
        buckets.setdefault(sizes.tobytes(), []).append(i)
    for idx in buckets.values():
        sizes = paired_sums[idx[0]][1].astype(np.float64)
        sums = np.stack([paired_sums[i][0] for i in idx])
        with _context(group, [data[i] for i in idx]):
            queue.add(sizes, sums, pending, idx)  # the t test: with every group's (run)
            tests = {chosen[i] for i in idx}
            for name in sorted(tests - {"paired-t"}, key=list(chosen).index):
                rows = [j for j, i in enumerate(idx) if chosen[i] == name]
                part = sums[rows]
                if name == "mcnemar" and sizes.size >= 2:  # with every group's (run)
                    queue.add_mcnemar(sizes, cl.mcnemar_method(sizes), part, pending,
                                      [idx[j] for j in rows])
                    continue
                if name == "mcnemar":  # fewer than 2 clusters: the kernel's own refusal
                    res = cl.clustered_mcnemar_from_sums(
                        part, sizes, alternative=alternative, method=cl.mcnemar_method(sizes))
                elif (name == "wilcoxon" and queue.vectorise_signed_rank
                      and data[idx[rows[0]]].x.size <= queue.signed_rank_rows_max_items):
                    # Rosner-Glynn-Lee, with every group's (run); a pair whose non-zero
                    # differences lie in one cluster: the one-pair function's refusal
                    pairs = [data[idx[j]] for j in rows]
                    dr = scaled_difference_rows(np.stack([p.x for p in pairs]),
                                                np.stack([p.y for p in pairs]))
                    cr = np.stack([gc.codes if p.items is None else gc.codes[p.items]
                                   for p in pairs])
                    nzc = nonzero_cluster_counts(dr, cr)
                    if (nzc == 1).any():
                        _signed_ranks([pairs[j] for j in np.flatnonzero(nzc == 1)], gc,
                                      alternative)
                    queue.add_signed_rank(dr, cr, pending, [idx[j] for j in rows])
                    continue
                elif name == "wilcoxon":  # Rosner-Glynn-Lee, pair by pair (ranks per pair)
                    res = _signed_ranks([data[idx[j]] for j in rows], gc, alternative)
                elif name == "permutation":
                    res = cl.cluster_permutation_test_many(
                        part, sizes, alternative=alternative, n_resamples=n_resamples,
                        seed=seed)
                else:  # bootstrap
                    if sizes.size < FEW_CLUSTERS:
                        warnings.warn(
                            f"dataset {group.dataset!r} (metric {group.metric!r}): the cluster "
                            f"bootstrap with {sizes.size} clusters rejects a true null too often "
                            "(measured at alpha = 0.05: 7.6-8.5 % with 20 clusters, 6.0-6.4 % "
                            "with 50; benchmarks/cluster_validity.py); test='permutation' "
                            "(signs of whole clusters) or 'paired-t' (CR2) keep their level",
                            UserWarning, stacklevel=4)
                    res = cl.cluster_bootstrap_many(
                        part, sizes, alternative=alternative, n_resamples=n_resamples,
                        seed=seed, level=level)
                    assert res.ci_low is not None and res.ci_high is not None
                    for k, j in enumerate(rows):
                        out[idx[j]] = _Outcome(
                            float(res.statistic[k]), float(res.pvalue[k]),
                            float(res.ci_low[k]), float(res.ci_high[k]),
                            "cluster bootstrap BCa")
                        dfs[idx[j]] = math.nan
                    continue
                pending.extra.append(([idx[j] for j in rows], res.statistic, res.pvalue))
    few = [n_cl[i] for i in paired_sums if n_cl[i] < FEW_CLUSTERS_INTERVAL]
    if few:
        few_clusters_warning(group, min(few))
    return pending


def unclustered_count(n: int) -> list[float]:
    """The ``n_clusters`` column of ``n`` rows of an unclustered dataset × metric (NaN)."""
    return [math.nan] * n


def prepare_clustered(
    work: _GroupWork, gc: GroupClusters, queue: ClusteredT, *, westfall_young: bool,
    n_resamples: int, seed: int | None,
) -> _PendingClustered:
    """:func:`clustered_start` of a group's pairs (their paired t tests queued on ``queue``;
    :meth:`_PendingClustered.result` after :meth:`ClusteredT.run` gives what
    :func:`clustered_outcomes` returns) and their effect sizes (into ``work.effects``, as the
    unclustered engine computes them); Westfall–Young's joint item-level sign-flip null does
    not hold for clustered items and is refused."""
    group = work.group
    if westfall_young:
        hint = Hint("correction", "holm")
        raise CompareError(
            f"correction='westfall-young' flips the signs of single items, but dataset "
            f"{group.dataset!r} has clusters of several items; {hint.text} (or another "
            "correction) with the cluster permutation test", hints=[hint])
    pending = clustered_start(group, gc, work.data, work.chosen, queue,
                              n_resamples=n_resamples, seed=seed)
    work._effects(_paired_dz(group, work.data))
    return pending


def _signed_ranks(pairs: list[_PairData], gc: GroupClusters, alternative: str
                  ) -> ManyTestResult:
    """Rosner, Glynn & Lee's clustered signed-rank test of each pair (statistic Z)."""
    res = [clustered_signed_rank(d.x, d.y, clusters=gc.codes if d.items is None
                                 else gc.codes[d.items], alternative=alternative) for d in pairs]
    return ManyTestResult(
        test="clustered Wilcoxon signed-rank test", statistic=np.array([r.statistic for r in res]),
        pvalue=np.array([r.pvalue for r in res]), alternative=alternative,
        n=res[0].n if res else 0, method="RGL")


def _paired_dz(group: Group, data: list[_PairData]) -> dict[int, float]:
    """d_z of every paired pair of at least 2 items, from the paired moments of each bucket of
    equally shaped pairs (as the unclustered engine computes them: the same numbers)."""
    dz: dict[int, float] = {}
    idx = [i for i, d in enumerate(data) if d.paired and d.x.size >= 2]
    for sub in _buckets(data, idx).values():
        values, ia, ib = _pair_rows(group, data, sub)
        with _context(group, [data[i] for i in sub]):
            es = many.paired_moments(values, ia, ib).cohens_dz()
        for j, i in enumerate(sub):
            dz[i] = float(es[j])
    return dz
