"""The all-pairs engine of :func:`~ranger_eval.comparison.compare`: the pairs of one dataset ×
metric tested together with row operations and vectorised scipy calls (:class:`_GroupWork`),
and the work shared by every group (:class:`_Shared`: one t-distribution call, one sign-flip
count per number of items).
"""
from __future__ import annotations

import dataclasses
import math
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from .. import stats
from ..errors import CompareError
from ..pairing import Group
from ..progress import progress_bar
from ..stats import SignFlips, StatsInputError, many, many_rank
from ..stats.many import PairedMoments
from .dispatch import (
    _check_outcome,
    _classical,
    _context,
    _effect,
    _Outcome,
    _pair_binary,
    _PairData,
    _t_interval,
    tango_rows,
)

if TYPE_CHECKING:
    from ..stats.results import ManyTestResult


# --------------------------------------------------------------------------- all pairs at once
def _buckets(data: list[_PairData], idx: Iterable[int]) -> dict[tuple[bool, int, int], list[int]]:
    """Pairs of equal shape (paired flag, n_a, n_b), in order: each is one matrix."""
    out: dict[tuple[bool, int, int], list[int]] = {}
    for i in idx:
        d = data[i]
        out.setdefault((d.paired, d.x.size, d.y.size), []).append(i)
    return out


def _stack_diffs(data: list[_PairData], idx: list[int]) -> np.ndarray:
    """The pairs' differences x - y, one row each; a difference beyond float64 (scores near
    ±1.8e308 of opposite signs) raises naming the pair and the two scores (the caller adds the
    dataset and metric)."""
    with np.errstate(over="ignore"):
        d = np.stack([data[i].x - data[i].y for i in idx])
    if not np.isfinite(d).all():
        j, c = (int(v) for v in np.argwhere(~np.isfinite(d))[0])
        p = data[idx[j]]
        err = StatsInputError(
            f"the difference of the scores {float(p.x[c])!r} - {float(p.y[c])!r} (item "
            f"{c + 1} of the pair) is beyond the float64 range (±1.8e308); rescale the scores "
            "(e.g. divide them by a power of ten)"
        )
        err.row = j  # type: ignore[attr-defined]  # _context names the pair
        raise err
    return d


def _pair_rows(
    group: Group, data: list[_PairData], sub: list[int]
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(values, ia, ib) with data[sub[j]].x - .y = values[ia[j]] - values[ib[j]]: the group's
    systems x items matrix when every system scores every item (no copy), else the pairs' own
    aligned rows stacked (x rows, then y rows)."""
    if group.complete:
        ia = np.array([group.index(data[i].a) for i in sub], dtype=np.intp)
        ib = np.array([group.index(data[i].b) for i in sub], dtype=np.intp)
        return group.matrix, ia, ib
    m = len(sub)
    values = np.stack([data[i].x for i in sub] + [data[i].y for i in sub])
    return values, np.arange(m, dtype=np.intp), np.arange(m, 2 * m, dtype=np.intp)


@dataclass
class _Shared:
    """The work of all dataset × metric groups that is done once, after every group is
    prepared: one t-distribution call (``scipy.special.stdtr``/``stdtrit``) for every paired t
    statistic and interval, one Tango score interval call for every McNemar row, and one sign-flip count per number of items for all paired
    permutation tests (:meth:`~ranger_eval.stats.resampling.SignFlips.count_pairs`: the sign
    matrix is defined by n, B and the seed alone, so groups with the same n share it)."""

    alternative: str
    level: float
    n_resamples: int
    seed: int | None
    moments: list[Any] = field(default_factory=list)
    n_moments: int = 0
    perm: dict[int, list[tuple[np.ndarray, np.ndarray, np.ndarray, _GroupWork, list[int]]]] = (
        field(default_factory=dict))
    t: ManyTestResult | None = None
    mean: np.ndarray = field(default_factory=lambda: np.empty(0))
    t_used: list[int] = field(default_factory=list)  # rows whose t test or interval is reported
    # McNemar rows: (b, c, n, work, pairs) of each bucket, for one Tango interval call
    tango: list[tuple[np.ndarray, np.ndarray, int, _GroupWork, list[int]]] = field(
        default_factory=list)
    # two-proportion z rows: (work, pairs, count_a, n_a, count_b, n_b) of each bucket
    proportions: list[tuple[Any, list[int], np.ndarray, np.ndarray, np.ndarray, np.ndarray]] = (
        field(default_factory=list))
    # sign-test rows: (positive, nonzero differences, work, pairs, intervals) of each bucket
    signs: list[tuple[np.ndarray, np.ndarray, _GroupWork, list[int],
                      list[tuple[float, float, str]]]] = field(default_factory=list)

    # Mann-Whitney rows of finite scores: (x, y, work, pairs, intervals), by shape (n_x, n_y)
    mwu: dict[tuple[int, int], list[tuple[np.ndarray, np.ndarray, _GroupWork, list[int],
                                          list[tuple[float, float, str]]]]] = (
        field(default_factory=dict))
    # Welch rows of safe-range scores: (x, y, work, pairs) of each bucket, by shape (n_x, n_y)
    welch: dict[tuple[int, int], list[tuple[np.ndarray, np.ndarray, _GroupWork, list[int]]]] = (
        field(default_factory=dict))

    def run_welch(self) -> None:
        """The Welch t tests of every queued pair, one
        :func:`~ranger_eval.stats.many.welch_ttest_many` call per shape (n_x, n_y) over all
        groups (row operations and one elementwise ``scipy.stats.ttest_ind(axis=1)``: each row
        equals its own group's call bit for bit). Only scores in the safe range are queued,
        which the kernel never rescales, so it raises no error here."""
        for jobs in self.welch.values():
            r = many.welch_ttest_many(np.concatenate([q[0] for q in jobs]),
                                      np.concatenate([q[1] for q in jobs]),
                                      alternative=self.alternative, level=self.level)
            assert r.ci_low is not None and r.ci_high is not None
            at = 0
            for _, _, work, sub in jobs:
                for j, i in enumerate(sub):
                    work.out[i] = _Outcome(float(r.statistic[at + j]), float(r.pvalue[at + j]),
                                           float(r.ci_low[at + j]), float(r.ci_high[at + j]),
                                           "Welch t")
                at += len(sub)

    def run_mannwhitney(self) -> None:
        """The Mann–Whitney U tests of every queued pair, one
        :func:`~ranger_eval.stats.many_rank.mannwhitney_many` call per shape (n_x, n_y) over
        all groups (each row equals :func:`~ranger_eval.stats.mannwhitney` of its pair bit for
        bit); their intervals are the t intervals computed when they were queued."""
        for jobs in self.mwu.values():
            r = many_rank.mannwhitney_many(np.concatenate([q[0] for q in jobs]),
                                           np.concatenate([q[1] for q in jobs]),
                                           alternative=self.alternative)
            at = 0
            for _, _, work, sub, intervals in jobs:
                for j, i in enumerate(sub):
                    lo, hi, how = intervals[j]
                    work.out[i] = _Outcome(float(r.statistic[at + j]), float(r.pvalue[at + j]),
                                           lo, hi, how)
                at += len(sub)

    def run_signs(self) -> None:
        """The exact sign test of every queued pair: ``scipy.stats.binomtest(k, m, 1/2)`` once
        per distinct (positive, nonzero) count pair of all groups (m = 0: p = 1), the numbers
        of :func:`~ranger_eval.stats.sign_test` pair by pair bit for bit (the same call on the
        same integers); many tiny datasets share a handful of distinct counts."""
        if not self.signs:
            return
        from scipy import stats as sps

        k = np.concatenate([q[0] for q in self.signs]).astype(np.int64)
        m = np.concatenate([q[1] for q in self.signs]).astype(np.int64)
        uniq, inverse = np.unique(np.stack([k, m]), axis=1, return_inverse=True)
        pu = np.array([1.0 if int(mm) == 0 else float(
            sps.binomtest(int(kk), int(mm), 0.5, alternative=self.alternative).pvalue)
            for kk, mm in uniq.T])
        p = pu[inverse.reshape(-1)]
        at = 0
        for _, _, work, sub, intervals in self.signs:
            for j, i in enumerate(sub):
                lo, hi, how = intervals[j]
                work.out[i] = _Outcome(float(k[at + j]), float(p[at + j]), lo, hi, how)
            at += len(sub)

    def add_proportions(self, work: _GroupWork, sub: list[int], count_a: np.ndarray, n_a: int,
                        count_b: np.ndarray, n_b: int) -> None:
        """Queue the two-proportion z tests of some unpaired 0/1 pairs of one group (successes
        and sizes of each system); :meth:`run_proportions` tests every group's at once."""
        self.proportions.append((work, sub, count_a, np.full(count_a.size, n_a), count_b,
                                 np.full(count_b.size, n_b)))

    def run_proportions(self) -> None:
        """The pooled two-proportion z test and Wald interval of every queued pair, one
        vectorised call each (:func:`~ranger_eval.stats.many.proportions_ztest_many`,
        :func:`~ranger_eval.stats.many.wald_interval_many`: elementwise, so each row equals
        its own group's call bit for bit)."""
        if not self.proportions:
            return
        ca, na, cb, nb = (np.concatenate([q[j] for q in self.proportions]) for j in (2, 3, 4, 5))
        r = many.proportions_ztest_many(ca, na, cb, nb, alternative=self.alternative)
        lo, hi = many.wald_interval_many(ca, na, cb, nb, alternative=self.alternative,
                                         level=self.level)
        at = 0
        for work, sub, *_ in self.proportions:
            for j, i in enumerate(sub):
                work.out[i] = _Outcome(float(r.statistic[at + j]), float(r.pvalue[at + j]),
                                       float(lo[at + j]), float(hi[at + j]), "Wald")
            at += len(sub)

    def add_moments(self, m: Any) -> int:
        """Queue the :class:`~ranger_eval.stats.many.PairedMoments` of some pairs; returns the
        row of the first one in :attr:`t`."""
        first = self.n_moments
        self.moments.append(m)
        self.n_moments += len(m)
        return first

    def run(self) -> None:
        """The shared work: one t-distribution call over every queued paired-moments row, then
        the sign-flip counts of the queued permutation tests, one matrix per number of items."""
        self.run_proportions()
        self.run_signs()
        self.run_mannwhitney()
        self.run_welch()
        if self.tango:  # Tango's score interval of every McNemar row, one bisection

            lo, hi = tango_rows(
                np.concatenate([b for b, *_ in self.tango]),
                np.concatenate([c for _, c, *_ in self.tango]),
                np.concatenate([np.full(b.size, n) for b, _, n, *_ in self.tango]),
                level=self.level, alternative=self.alternative)
            at = 0
            for _, _, _, work, sub in self.tango:
                for j, i in enumerate(sub):
                    work.out[i] = dataclasses.replace(work.out[i], ci_low=float(lo[at + j]),
                                                      ci_high=float(hi[at + j]))
                at += len(sub)
        if self.moments:
            allm = PairedMoments.concat(self.moments)
            # overflow="inf": a location beyond float64 is reported per pair by _check_outcome
            self.t = allm.ttest(self.alternative, self.level, warn=False, overflow="inf")
            self.mean = allm.location(overflow="inf")
            allm.warn_cancellation(np.asarray(self.t_used, dtype=np.intp))
        for n, jobs in self.perm.items():
            starts = np.cumsum([0] + [v.shape[0] for v, *_ in jobs])
            values = np.concatenate([v for v, *_ in jobs])
            ia = np.concatenate([a + o for (_, a, _, _, _), o in zip(jobs, starts, strict=False)])
            ib = np.concatenate([b + o for (_, _, b, _, _), o in zip(jobs, starts, strict=False)])
            flips = SignFlips(n, self.n_resamples, self.seed)
            with progress_bar(f"permutation tests, {ia.size} pairs", flips.size) as advance:
                count = flips.count_pairs(values, ia, ib, self.alternative, advance=advance)
            p = flips.pvalues(count)
            at = 0
            for _, a, _, work, sub in jobs:
                for j, i in enumerate(sub):
                    work.perm_p[i] = float(p[at + j])
                at += a.size


class _GroupWork:
    """The pairs of one dataset × metric, tested with column operations (see
    :meth:`prepare`); :meth:`finish` reads what :class:`_Shared` computed for all groups."""

    def __init__(self, group: Group, data: list[_PairData], chosen: list[str]) -> None:
        self.group, self.data, self.chosen = group, data, chosen
        self.out: dict[int, _Outcome] = {}
        self.t_row: dict[int, int] = {}  # pair -> row of its paired t in _Shared.t
        self.t_ci: set[int] = set()  # pairs whose interval is that paired t interval
        self.perm_p: dict[int, float] = {}
        self.effects: dict[int, tuple[float, str]] = {}
        self.adjusted: np.ndarray | None = None

    def prepare(self, shared: _Shared, westfall_young: bool) -> None:
        """Every test that is not shared between groups, in the order of the one-pair engine
        (so its errors come first as before); queue the paired t and permutation tests.

        Pairs of one test and one shape form a pairs × items matrix: t, Welch, McNemar and z
        statistics are row operations with one vectorised scipy call for p-values and intervals
        (:mod:`ranger_eval.stats.many`); paired moments (mean, centred sum of squares) are one
        pass over the differences of the system rows and serve the paired t test, the paired
        t interval of the rank, sign and permutation tests and d_z (McNemar rows carry Tango's
        score interval, :func:`~ranger_eval.stats.tango_interval`); permutation and
        bootstrap tests share one sign-flip / bootstrap index matrix (defined by n, B and the
        seed alone, so every pair sees the same resamples). Wilcoxon's signed-rank tests with
        their Hodges–Lehmann intervals are one :func:`~ranger_eval.stats.many.wilcoxon_many` call
        per shape (:meth:`_wilcoxon`); sign tests are counted per shape and tested for all groups
        at once (:meth:`_sign`); Mann–Whitney tests run pair by pair.
        ``westfall_young`` computes the step-down max-T adjusted p-values of the group's paired
        permutation tests here (one joint null per group).
        """
        group, data, chosen = self.group, self.data, self.chosen
        alternative, level = shared.alternative, shared.level
        n_resamples, seed = shared.n_resamples, shared.seed
        paired_idx = [i for i, d in enumerate(data) if d.paired and d.x.size >= 2]
        dz: dict[int, float] = {}
        for sub in _buckets(data, paired_idx).values():
            values, ia, ib = _pair_rows(group, data, sub)
            m = many.paired_moments(values, ia, ib)
            first = shared.add_moments(m)
            es = m.cohens_dz()
            for j, i in enumerate(sub):
                self.t_row[i] = first + j
                dz[i] = float(es[j])
        by_test: dict[str, list[int]] = {}
        for i, c in enumerate(chosen):
            by_test.setdefault(c, []).append(i)
        intervals: dict[int, tuple[float, float, str]] = {}
        need_t = [i for t in ("sign", "mannwhitney", "permutation")
                  for i in by_test.get(t, [])]
        for (paired, na, nb), sub in _buckets(data, need_t).items():
            if min(na, nb) < 2:
                for i in sub:
                    with _context(group, [data[i]]):
                        intervals[i] = _t_interval(data[i], alternative, level)
            elif paired:
                self.t_ci.update(sub)
                shared.t_used.extend(self.t_row[i] for i in sub)
                for i in sub:
                    intervals[i] = (math.nan, math.nan, "paired t")
            else:
                with _context(group, [data[i] for i in sub]):
                    w = many.welch_ttest_many(np.stack([data[i].x for i in sub]),
                                              np.stack([data[i].y for i in sub]),
                                              alternative=alternative, level=level)
                assert w.ci_low is not None and w.ci_high is not None
                for j, i in enumerate(sub):
                    intervals[i] = (float(w.ci_low[j]), float(w.ci_high[j]), "Welch t")
        if westfall_young:
            idx = by_test.get("permutation", [])
            shapes = _buckets(data, idx)
            if len(idx) != len(data) or len(shapes) != 1 or not next(iter(shapes))[0]:
                raise CompareError(
                    f"correction='westfall-young' needs one joint sign-flip null: on dataset "
                    f"{group.dataset!r} (metric {group.metric!r}) every pair must be a paired "
                    "permutation test on the same items (test='permutation' with paired data); "
                    f"tests here: {', '.join(sorted(set(chosen)))}"
                )
            self.adjusted = np.empty(len(data))
        where = f"{group.dataset}/{group.metric}"
        out = self.out
        for test, idx in by_test.items():
            for (paired, na, nb), sub in _buckets(data, idx).items():
                pairs = [data[i] for i in sub]
                small = min(na, nb) < (1 if test == "mcnemar" else 2)
                if test == "wilcoxon" and paired and not small:
                    self._wilcoxon(sub, alternative, level)
                    continue
                if test == "welch" and not small:
                    sub = self._queue_welch(shared, sub)
                    if not sub:
                        continue
                    pairs = [data[i] for i in sub]
                if test == "sign" and paired and not small:
                    self._sign(shared, sub, intervals, alternative, level)
                    continue
                if test == "mannwhitney" and not small:
                    sub = self._queue_mannwhitney(shared, sub, intervals)
                    if not sub:
                        continue
                if test in ("wilcoxon", "sign", "mannwhitney") or small or (
                        test == "permutation" and not paired):
                    for i in sub:
                        d = data[i]
                        with _context(group, [d]):
                            if test == "permutation":
                                r1 = stats.permutation_test(d.x, d.y, alternative=alternative,
                                                            n_resamples=n_resamples, seed=seed)
                                out[i] = _Outcome(r1.statistic, r1.pvalue, *intervals[i][:2],
                                                  intervals[i][2])
                            elif test in ("wilcoxon", "sign", "mannwhitney"):
                                out[i] = _classical(test, d, alternative, level, intervals.get(i))
                            else:
                                out[i] = _classical(test, d, alternative, level)
                    continue
                if test == "paired-t":
                    shared.t_used.extend(self.t_row[i] for i in sub)
                    continue  # from the shared t distribution call (finish)
                if test == "permutation" and self.adjusted is None:
                    values, ia, ib = _pair_rows(group, data, sub)
                    shared.perm.setdefault(na, []).append((values, ia, ib, self, sub))
                    continue
                r: ManyTestResult
                with _context(group, pairs):
                    if test == "welch":
                        r = many.welch_ttest_many(np.stack([d.x for d in pairs]),
                                                  np.stack([d.y for d in pairs]),
                                                  alternative=alternative, level=level)
                        how = "Welch t"
                    elif test == "mcnemar":  # the p-value McNemar's, the interval Tango's
                        xs, ys = np.stack([d.x for d in pairs]), np.stack([d.y for d in pairs])
                        r = many.mcnemar_many(xs, ys, alternative=alternative)
                        # queued: one bisection over every group's pairs (_Shared.run)
                        shared.tango.append((np.count_nonzero((xs == 1) & (ys == 0), axis=1),
                                             np.count_nonzero((xs == 0) & (ys == 1), axis=1),
                                             na, self, sub))
                        nan = np.full(len(sub), np.nan)
                        r = dataclasses.replace(r, ci_low=nan, ci_high=nan)
                        how = "Tango score"
                    elif test == "proportions-z":  # queued: one call for every group
                        shared.add_proportions(self, sub, np.array([d.x.sum() for d in pairs]),
                                               na, np.array([d.y.sum() for d in pairs]), nb)
                        continue
                    elif test == "permutation":  # Westfall–Young: the group's joint null
                        flips = stats.SignFlips(na, n_resamples, seed)
                        with progress_bar(f"permutation {where}", flips.size) as advance:
                            r = flips.test(_stack_diffs(data, sub), alternative,
                                           correction="westfall-young", advance=advance)
                        if r.pvalue_adjusted is not None and self.adjusted is not None:
                            self.adjusted[sub] = r.pvalue_adjusted
                    else:  # bootstrap (paired only)
                        boot = stats.BootstrapIndices(na, n_resamples, seed)
                        with progress_bar(f"bootstrap {where}", boot.n_resamples) as advance:
                            r = stats.paired_bootstrap_many(
                                _stack_diffs(data, sub), alternative=alternative, level=level,
                                indices=boot, advance=advance)
                        how = "bootstrap BCa"
                for j, i in enumerate(sub):
                    if test == "permutation":
                        lo_i, hi_i, how = intervals[i]
                    else:
                        assert r.ci_low is not None and r.ci_high is not None
                        lo_i, hi_i = float(r.ci_low[j]), float(r.ci_high[j])
                    out[i] = _Outcome(float(r.statistic[j]), float(r.pvalue[j]), lo_i, hi_i, how)
        self._effects(dz)

    def _wilcoxon(self, sub: list[int], alternative: str, level: float) -> None:
        """Wilcoxon signed-rank tests with R's Hodges–Lehmann interval of pairs of one shape,
        as one :func:`~ranger_eval.stats.many.wilcoxon_many` call on their differences (the
        numbers of :func:`~ranger_eval.stats.wilcoxon` pair by pair, bit for bit). Pairs with a
        score beyond 2^1000 in magnitude go pair by pair: their difference is formed on scaled
        scores there (:func:`~ranger_eval.stats._scale.scaled_difference`)."""
        group, data, out = self.group, self.data, self.out
        huge = math.ldexp(1.0, 1000)
        big = [i for i in sub if max(float(np.max(np.abs(data[i].x))),
                                     float(np.max(np.abs(data[i].y)))) > huge]
        for i in big:
            with _context(group, [data[i]]):
                out[i] = _classical("wilcoxon", data[i], alternative, level)
        rest = [i for i in sub if i not in set(big)]
        if not rest:
            return
        pairs = [data[i] for i in rest]
        with _context(group, pairs):
            values, ia, ib = _pair_rows(group, data, rest)
            r = many.wilcoxon_many(values[ia] - values[ib], alternative=alternative,
                                   level=level)
        assert r.ci_low is not None and r.ci_high is not None
        for j, i in enumerate(rest):
            out[i] = _Outcome(float(r.statistic[j]), float(r.pvalue[j]), float(r.ci_low[j]),
                              float(r.ci_high[j]), "Hodges-Lehmann")

    def _queue_welch(self, shared: _Shared, sub: list[int]) -> list[int]:
        """Queue the Welch tests of pairs of one shape whose scores are finite and in
        :mod:`~ranger_eval.stats._scale`'s safe range (max |score| 0 or in [2^-100, 2^100]) for
        :meth:`_Shared.run_welch`; returns the others (rescaled, or refused, by their group's
        own call, so its errors come where they came before)."""
        data = self.data
        x, y = np.stack([data[i].x for i in sub]), np.stack([data[i].y for i in sub])
        with np.errstate(invalid="ignore"):
            top = np.maximum(np.abs(x).max(axis=1), np.abs(y).max(axis=1))
            safe = (top == 0.0) | ((top >= math.ldexp(1.0, -100)) & (top <= math.ldexp(1.0, 100)))
        if safe.any():
            rows = np.flatnonzero(safe)
            shared.welch.setdefault((x.shape[1], y.shape[1]), []).append(
                (x[rows], y[rows], self, [sub[j] for j in rows]))
        return [sub[j] for j in np.flatnonzero(~safe)]

    def _queue_mannwhitney(self, shared: _Shared, sub: list[int],
                           intervals: dict[int, tuple[float, float, str]]) -> list[int]:
        """Queue the Mann–Whitney tests of pairs of one shape whose scores are all finite for
        :meth:`_Shared.run_mannwhitney` (all groups at once); returns the others (refused by
        :func:`~ranger_eval.stats.mannwhitney` pair by pair, naming the pair, as before)."""
        data = self.data
        x, y = np.stack([data[i].x for i in sub]), np.stack([data[i].y for i in sub])
        ok = np.isfinite(x).all(axis=1) & np.isfinite(y).all(axis=1)
        if ok.any():
            rows = np.flatnonzero(ok)
            keep = [sub[j] for j in rows]
            shared.mwu.setdefault((x.shape[1], y.shape[1]), []).append(
                (x[rows], y[rows], self, keep, [intervals[i] for i in keep]))
        return [sub[j] for j in np.flatnonzero(~ok)]

    def _sign(self, shared: _Shared, sub: list[int],
              intervals: dict[int, tuple[float, float, str]], alternative: str,
              level: float) -> None:
        """Sign tests of pairs of one shape: the positive and nonzero differences of each pair
        counted as row operations and queued (:meth:`_Shared.run_signs` tests every group's
        at once). Pairs :func:`~ranger_eval.stats.sign_test` would rescale (a score beyond
        2^1000 or a difference beyond 2^100 in magnitude, where scaling may flush a tiny
        difference to zero) or refuse (a non-finite score) go pair by pair, in place."""
        group, data, out = self.group, self.data, self.out
        values, ia, ib = _pair_rows(group, data, sub)
        x, y = values[ia], values[ib]
        with np.errstate(over="ignore", invalid="ignore"):
            d = x - y
            ok = (np.isfinite(d).all(axis=1) & (np.abs(d).max(axis=1) <= math.ldexp(1.0, 100))
                  & (np.maximum(np.abs(x), np.abs(y)).max(axis=1) <= math.ldexp(1.0, 1000)))
        for j in np.flatnonzero(~ok):
            i = sub[j]
            with _context(group, [data[i]]):
                out[i] = _classical("sign", data[i], alternative, level, intervals.get(i))
        rows = np.flatnonzero(ok)
        if rows.size == 0:
            return
        pos = np.count_nonzero(d[rows] > 0, axis=1)
        nonzero = pos + np.count_nonzero(d[rows] < 0, axis=1)
        keep = [sub[j] for j in rows]
        shared.signs.append((pos, nonzero, self, keep, [intervals[i] for i in keep]))

    def _effects(self, dz: dict[int, float]) -> None:
        """Effect size of every pair (see :func:`_effect`): d_z from the paired moments,
        Cohen's d vectorised per shape, Cohen's h from the cached means."""
        group, data = self.group, self.data
        numeric = []
        for i, d in enumerate(data):
            if _pair_binary(group, d):
                with _context(group, [d]):
                    self.effects[i] = _effect(d, group)
            elif i in dz:
                self.effects[i] = (dz[i], "cohens_dz")
            else:
                numeric.append(i)
        for (paired, na, nb), sub in _buckets(data, numeric).items():
            if paired or min(na, nb) < 2:
                for i in sub:
                    with _context(group, [data[i]]):
                        self.effects[i] = _effect(data[i], group)
                continue
            es = many.cohens_d_many(np.stack([data[i].x for i in sub]),
                                    np.stack([data[i].y for i in sub]))
            for j, i in enumerate(sub):
                self.effects[i] = (float(es[j]), "cohens_d")

    def finish(self, shared: _Shared) -> list[_Outcome]:
        """Outcomes of every pair, in order, with the shared t and permutation results."""
        t = shared.t
        out = self.out
        for i, c in enumerate(self.chosen):
            if i in out and i not in self.t_ci:
                continue
            assert t is not None and t.ci_low is not None and t.ci_high is not None
            row = self.t_row[i]
            lo, hi = float(t.ci_low[row]), float(t.ci_high[row])
            if i in out:  # a test whose interval is the paired t interval
                out[i] = dataclasses.replace(out[i], ci_low=lo, ci_high=hi)
            elif c == "paired-t":
                out[i] = _Outcome(float(t.statistic[row]), float(t.pvalue[row]), lo, hi,
                                  "paired t")
            else:  # shared paired permutation test: statistic mean(d)
                out[i] = _Outcome(float(shared.mean[row]), self.perm_p[i], lo, hi, "paired t")
        outcomes = [out[i] for i in range(len(self.data))]
        for d, c, o in zip(self.data, self.chosen, outcomes, strict=True):
            _check_outcome(self.group, d, c, o, shared.alternative)
        return outcomes
