"""Non-inferiority and equivalence in :func:`~ranger_eval.comparison.compare`:
the margins of each pair in the metric's direction, and the pair's test, interval and p-value
from the kernels of :mod:`ranger_eval.stats.equivalence`.

For a row ``system_a`` vs ``system_b`` with θ = mean_a − mean_b (``diff``) and margin m:

- ``hypothesis="equivalence"``: H0 |θ| ≥ m, two one-sided tests against −m and +m; the row's
  ``pvalue`` is the larger of the two one-sided p-values and ``statistic`` its statistic;
- ``hypothesis="non-inferiority"``: ``system_a`` is tested for being no worse than
  ``system_b`` by more than m (with ``pairs="baseline"`` system_a is every other system and
  system_b the baseline): H0 θ ≤ −m when higher is better, H0 θ ≥ m when lower is better (the
  scores' ``higher_is_better`` column, :func:`~ranger_eval.comparison.leaderboard.metric_directions`;
  default higher).

The tests, chosen per pair as for superiority (``test="auto"``: the same decision table): paired
t and Welch t (two one-sided t tests; statsmodels ``ttost_paired`` and
``ttost_ind(usevar="unequal")``), two independent proportions (Miettinen–Nurminen score test;
statsmodels ``tost_proportions_2indep(method="score")``) and paired 0/1 scores (Tango's score
test, chosen where superiority uses McNemar's; R ``ratesci::pairbinci``). ``ci_low``/``ci_high``
are the interval the test inverts: each finite side at confidence ``level`` (for equivalence the
two-sided 1 − 2α interval, Schuirmann 1987), the other side infinite for non-inferiority;
``ci_method`` names it. ``significant`` then means that the hypothesis is shown (equivalence or
non-inferiority at the adjusted level).

With clusters (a dataset × metric whose clusters each hold one item is not
clustered) every pair takes the two one-sided versions of the cluster-robust t of
:mod:`ranger_eval.comparison.clustered`: paired pairs (numeric or 0/1) the CR2 t of the mean
difference with Bell–McCaffrey degrees of freedom (``cluster_se="CR1"``: the CR1 t on C − 1
df), unpaired pairs the CR1 t of the regression on
a system indicator on G − 1 df (:mod:`ranger_eval.stats.clustered`); the score tests of 0/1
scores have no clustered version, and the CR t of the 0/1 differences is the cluster-robust test
of the difference in proportions. The estimate, standard error and df of those tests go through
:func:`~ranger_eval.stats.equivalence.t_margin_tests`.
"""
from __future__ import annotations

import math

import numpy as np

from ..errors import CompareError, Hint
from ..pairing import Group
from ..stats import clustered as cl
from ..stats import equivalence as eq
from .dispatch import _Outcome, _PairData

#: the interval of each test's margin version, as the ``ci_method`` column names it
_CI_METHOD = {"paired-t": "paired t", "welch": "Welch t",
              "proportions-z": "Miettinen-Nurminen score", "mcnemar": "Tango score"}


def _check_test(group: Group, test: str, hypothesis: str, margin: float) -> None:
    """A test with a margin version, and a margin below 1 for 0/1 scores."""
    if test not in _CI_METHOD:
        hint = Hint("test")
        raise CompareError(
            f"dataset {group.dataset!r} (metric {group.metric!r}): test {test!r} has no "
            f"{hypothesis} version; the tests with one are 'auto', 'paired-t', 'welch', "
            f"'proportions-z' and 'mcnemar' ({hint.text})", hints=[hint])
    if test in ("mcnemar", "proportions-z") and margin >= 1.0:
        raise CompareError(
            f"dataset {group.dataset!r} (metric {group.metric!r}): margin {margin!r} on 0/1 "
            "scores: a difference of proportions lies in [-1, 1], so a margin ≥ 1 holds for "
            "any data; give a margin below 1")


def margins(hypothesis: str, margin: float, higher_is_better: bool) -> tuple[float, float]:
    """``(low, upp)`` of θ = mean_a − mean_b for the hypothesis (module docstring)."""
    if hypothesis == "equivalence":
        return -margin, margin
    if hypothesis == "non-inferiority":
        return (-margin, math.inf) if higher_is_better else (-math.inf, margin)
    raise CompareError(f"hypothesis {hypothesis!r} has no margins")  # pragma: no cover


def _clustered_moments(group: Group, d: _PairData, codes: np.ndarray, cluster_se: str = "CR2"
                       ) -> tuple[float, float, float, str]:
    """(θ̂, se, df, ci_method) of the cluster-robust t of one pair (module docstring); ``codes``
    the clusters of the group's items; ``cluster_se`` the variance of a paired pair (CR2 with
    Bell–McCaffrey df, or CR1 on C − 1 df)."""
    if d.paired:
        items = d.items if d.items is not None else np.arange(group.items.size)
        r = cl.clustered_ttest_many(d.x - d.y, codes[items], level=0.95, vcov=cluster_se)
        assert r.se is not None and r.df is not None and r.estimate is not None
        return (float(r.estimate[0]), float(r.se[0]), float(np.asarray(r.df)[0]),
                f"cluster-robust t ({cluster_se})")
    pa = None if group.complete else group.present[group.index(d.a)]
    pb = None if group.complete else group.present[group.index(d.b)]
    u = cl.clustered_unpaired_ttest(d.x, d.y, clusters_x=codes if pa is None else codes[pa],
                                    clusters_y=codes if pb is None else codes[pb])
    assert u.estimate is not None and u.se is not None and u.df is not None
    return float(u.estimate), float(u.se), float(u.df), "cluster-robust t (CR1)"


def margin_outcomes(group: Group, data: list[_PairData], chosen: list[str], *,
                    hypothesis: str, margin: float, level: float,
                    higher_is_better: bool, clusters: np.ndarray | None = None,
                    cluster_se: str = "CR2") -> list[_Outcome]:
    """The outcome of every pair of ``group`` under ``hypothesis`` with ``margin``: the pairs of
    each test in one call of its kernel; with ``clusters`` (the cluster code of each of the
    group's items) the two one-sided cluster-robust t tests."""
    low, upp = margins(hypothesis, margin, higher_is_better)
    if clusters is not None:
        for c in chosen:
            _check_test(group, c, hypothesis, margin)
        cm = [_clustered_moments(group, d, clusters, cluster_se) for d in data]
        arr = np.array([m[:3] for m in cm], dtype=float).reshape(-1, 3)
        res = eq.t_margin_tests(arr[:, 0], arr[:, 1], arr[:, 2], low=low, upp=upp, level=level)
        return [_Outcome(float(res.statistic[j]), float(res.pvalue[j]), float(res.ci_low[j]),
                         float(res.ci_high[j]), cm[j][3]) for j in range(len(data))]
    out: list[_Outcome | None] = [None] * len(data)
    by_test: dict[str, list[int]] = {}
    for i, c in enumerate(chosen):
        _check_test(group, c, hypothesis, margin)
        by_test.setdefault(c, []).append(i)
    for test, idx in by_test.items():
        if test in ("paired-t", "welch"):
            # pairs of equal sizes: one matrix each (rows = pairs)
            kernel = eq.paired_t_margins if test == "paired-t" else eq.welch_margins
            moments = np.empty((len(idx), 3))
            sizes: dict[tuple[int, int], list[int]] = {}
            for j, i in enumerate(idx):
                sizes.setdefault((data[i].x.size, data[i].y.size), []).append(j)
            for rows in sizes.values():
                est, se, df = kernel(np.stack([data[idx[j]].x for j in rows]),
                                     np.stack([data[idx[j]].y for j in rows]))
                moments[rows] = np.column_stack([est, se, df])
            res = eq.t_margin_tests(moments[:, 0], moments[:, 1], moments[:, 2], low=low,
                                    upp=upp, level=level)
        elif test == "mcnemar":
            only_a = [np.count_nonzero((data[i].x == 1) & (data[i].y == 0)) for i in idx]
            only_b = [np.count_nonzero((data[i].x == 0) & (data[i].y == 1)) for i in idx]
            n = np.array([data[i].x.size for i in idx])
            res = eq.paired_proportions_margin_tests(only_a, only_b, n, low=low, upp=upp,
                                                     level=level)
        else:
            counts = np.array([(data[i].x.sum(), data[i].x.size, data[i].y.sum(), data[i].y.size)
                               for i in idx], dtype=float)
            res = eq.proportions_margin_tests(*counts.T, low=low, upp=upp, level=level)
        stat, pval = res.statistic, res.pvalue
        for j, i in enumerate(idx):
            out[i] = _Outcome(float(stat[j]), float(pval[j]), float(res.ci_low[j]),
                              float(res.ci_high[j]), _CI_METHOD[test])
    return [o for o in out if o is not None]
