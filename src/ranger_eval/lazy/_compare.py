"""``compare`` and ``effect_sizes`` on :class:`~ranger_eval.lazy.LazyScores`.

Classical tests (``test`` in ``"auto"``, ``"paired-t"``, ``"welch"``, ``"mcnemar"``,
``"proportions-z"``) and their effect sizes are computed from the per-pair sufficient statistics
of :meth:`LazyScores.sufficient_statistics`, with the formulas of the in-memory path
(:mod:`ranger_eval.comparison`, :mod:`ranger_eval.stats`):

* paired t (``scipy.stats.ttest_1samp`` on d): t = d̄ / sqrt(s_d²/n), df = n − 1,
  s_d² = M2_d/(n − 1); interval d̄ + t_{df}(p)·se (``scipy.special.stdtrit``);
* Welch: t = (x̄ − ȳ)/sqrt(s_x²/n_x + s_y²/n_y), Welch–Satterthwaite df;
* McNemar (exact): b = (Σ|d| + Σd)/2, c = (Σ|d| − Σd)/2 for 0/1 scores, b ~ Bin(b + c, 1/2);
  interval: Tango's score interval from b, c and n (:func:`ranger_eval.stats.tango_interval`);
* two-proportion z: ``statsmodels`` on the counts Σx, Σy and n_x, n_y (Wald interval);
* Cohen's d_z = d̄/s_d, Cohen's d with the pooled SD, Cohen's h from the two proportions.

With a ``cluster`` column (the design's resampling unit, :mod:`ranger_eval.design`) every
dataset × metric whose systems all scored the same items is tested as the in-memory engine tests
it (:mod:`ranger_eval.comparison.clustered`), from the per-cluster sums and sizes of
:meth:`LazyScores.cluster_statistics` (a pair's cluster sums of d are the difference of the two
systems' cluster sums, S_k = sum_a,k − sum_b,k, m_k the cluster's items):

* paired t: CR2 with Bell–McCaffrey df (``cluster_se="CR2"``, the default: for an intercept-only
  model the adjustment of cluster k is (1 − m_k/n)^(-1/2) and the df
  (tr G)²/||G||_F² has the closed form of :func:`ranger_eval.stats.clustered.bell_mccaffrey_df`
  in the m_k alone) or CR1 on C − 1 df — :func:`ranger_eval.stats.clustered.clustered_ttest_from_sums`;
* McNemar: the clustered χ² of :func:`ranger_eval.stats.clustered.mcnemar_method` (Durkalski
  below 50 clusters of unequal sizes, Yang–Sun–Hardin's modified Obuchowski otherwise), which
  needs only S_k = b_k − c_k and m_k; its interval the paired CR t, as in memory;
* Welch and two-proportion z: the CR1 regression on a system indicator, from the residual sums
  (sum_a,k − m_k ā)/n − (sum_b,k − m_k b̄)/n of each cluster, t on C − 1 df;

with the ``n_clusters`` and ``ci_df`` columns and the ``cluster:``/``cse:`` signature fields of
the in-memory table. A dataset × metric whose clusters each hold one item is tested as without
clusters (as in memory); one whose systems scored different items, or whose items lie in one
cluster, is loaded and compared in memory (the exact in-memory rows, or its error).

Everything else (rank, sign, permutation and bootstrap tests, set-level ``metric_fn``, ``by``,
seed columns, ``missing="intersect"`` on a partial overlap) streams: one dataset × metric (one
dataset for ``metric_fn``) is loaded at a time and compared in memory with
:func:`ranger_eval.compare`, and the p-values are adjusted over the families afterwards.
So does a dataset × metric of extreme scores (:func:`_extreme`: a pair's largest |d| or a
system's largest |value| outside [2^-100, 2^100], where sums of squares underflow or overflow):
the in-memory tests rescale them exactly (:mod:`ranger_eval.stats._scale`), so the lazy result
is the in-memory one for every magnitude.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from .. import stats
from ..comparison import (
    COLUMNS,
    TESTS,
    Comparison,
    adjust_by_family,
    compare,
)
from ..comparison.clustered import CR1, CR2
from ..comparison.compare import _unused_cluster_se
from ..comparison.dispatch import items_differ_error
from ..comparison.mde import with_mde
from ..effects import (
    DEGENERATE_POLICIES,
    MEASURES,
    MIN_N,
    R_TOL,
    SHIFT_TOL,
    EffectSizes,
    effect_sizes,
    hedges_j,
    metafor_cmi,
)
from ..errors import (
    CompareError,
    EffectSizeError,
    Hint,
    ScoresError,
    StatsInputError,
    check_choice,
    check_level,
)
from ..formatting import preview as _preview
from ..pairing import system_pairs
from ..setmetrics import get_metric
from ..settings import CompareSettings
from ..stats import clustered as cl
from ..stats import effect_label
from ..stats._scale import SAFE_HI, SAFE_LO
from ..stats.equivalence import tango_interval
from ..stats.tests import degenerate_t, one_sided_ci
from ._protocol import LazyTable

if TYPE_CHECKING:
    from ..effects import EffectSizes

__all__ = ["CLASSICAL", "compare_lazy", "effect_sizes_lazy"]

#: Tests computed from sufficient statistics; all others stream per group.
CLASSICAL: tuple[str, ...] = ("auto", "paired-t", "welch", "mcnemar", "proportions-z")
_PAIRED_ONLY = frozenset({"paired-t", "wilcoxon", "sign", "mcnemar", "bootstrap"})
_UNPAIRED_ONLY = frozenset({"welch", "mannwhitney", "proportions-z"})
_BINARY_ONLY = frozenset({"mcnemar", "proportions-z"})


# --------------------------------------------------------------------------- formulas
def _extreme(s: dict[str, Any]) -> bool:
    """Whether the statistics ``s`` of a pair come from extreme scores: the largest |d| or a
    system's largest |value| is non-zero and outside the safe range [SAFE_LO, SAFE_HI] of
    :mod:`ranger_eval.stats._scale` (the rule the in-memory tests rescale by), or a sum is not
    finite (it overflowed)."""
    if int(s.get("scale", 0)) != 0:  # statistics of rescaled scores (LazyScores docstring)
        return True
    for lo, hi in (("min_d", "max_d"), ("min_a", "max_a"), ("min_b", "max_b")):
        top = max(abs(float(s[lo])), abs(float(s[hi])))
        if top != 0.0 and not SAFE_LO <= top <= SAFE_HI:  # NaN (n = 0) is not extreme
            if not math.isnan(top):
                return True
    sums = ("sum_d", "m2_d", "sum_a", "sum_b", "m2_a", "m2_b")
    return not all(math.isfinite(float(s[f])) for f in sums if f in s)


def _t_test(est: float, se: float, df: float, alternative: str, level: float
            ) -> tuple[float, float, float, float]:
    """Statistic, p-value and interval of a t test with estimate ``est`` and standard error ``se``
    (as ``scipy.stats`` ``TtestResult`` computes them)."""
    from scipy.special import stdtr, stdtrit

    t = est / se
    if alternative == "less":
        p = float(stdtr(df, t))
        lo, hi = -math.inf, est + float(stdtrit(df, level)) * se
    elif alternative == "greater":
        p = float(stdtr(df, -t))
        lo, hi = est + float(stdtrit(df, 1.0 - level)) * se, math.inf
    else:
        p = float(2.0 * stdtr(df, -abs(t)))
        tail = (1.0 - level) / 2.0
        lo = est + float(stdtrit(df, tail)) * se
        hi = est + float(stdtrit(df, 1.0 - tail)) * se
    return float(t), p, lo, hi


def _paired_t(s: dict[str, Any], alternative: str, level: float
              ) -> tuple[float, float, float, float]:
    n = int(s["n"])
    if n < 2:
        raise CompareError(f"paired test needs at least 2 pairs; got {n}")
    if s["min_d"] == s["max_d"]:
        est = float(s["min_d"])
        stat, p = degenerate_t(est, alternative)
        return (stat, p, *one_sided_ci(est, est, alternative))
    mean = s["sum_d"] / n
    return _t_test(mean, math.sqrt(s["m2_d"] / (n - 1) / n), n - 1, alternative, level)


def _welch(s: dict[str, Any], alternative: str, level: float
           ) -> tuple[float, float, float, float]:
    na, nb = int(s["n_a"]), int(s["n_b"])
    for name, k in (("x", na), ("y", nb)):
        if k < 2:
            raise CompareError(f"{name} needs at least 2 items; got {k}")
    if s["min_a"] == s["max_a"] and s["min_b"] == s["max_b"]:
        est = float(s["min_a"] - s["min_b"])
        stat, p = degenerate_t(est, alternative)
        return (stat, p, *one_sided_ci(est, est, alternative))
    va = s["m2_a"] / (na - 1) / na
    vb = s["m2_b"] / (nb - 1) / nb
    df = (va + vb) ** 2 / (va * va / (na - 1) + vb * vb / (nb - 1))
    est = s["sum_a"] / na - s["sum_b"] / nb
    return _t_test(est, math.sqrt(va + vb), df, alternative, level)


def _tango(s: dict[str, Any], alternative: str, level: float) -> tuple[float, float]:
    """Tango's score interval of the McNemar rows (as the in-memory engine)."""
    b = int(round((s["sum_abs_d"] + s["sum_d"]) / 2.0))
    c = int(round((s["sum_abs_d"] - s["sum_d"]) / 2.0))
    lo, hi = tango_interval(b, c, int(s["n"]), level=level, alternative=alternative)
    return float(lo[0]), float(hi[0])


def _mcnemar(s: dict[str, Any], alternative: str) -> tuple[float, float]:
    from scipy import stats as sps

    b = int(round((s["sum_abs_d"] + s["sum_d"]) / 2.0))
    c = int(round((s["sum_abs_d"] - s["sum_d"]) / 2.0))
    m = b + c
    if m == 0:
        return 0.0, 1.0
    binom = sps.binom(m, 0.5)
    if alternative == "two-sided":
        k = min(b, c)
        return float(k), float(min(2.0 * binom.cdf(k), 1.0))
    if alternative == "greater":
        return float(b), float(min(binom.sf(b - 1), 1.0))
    return float(b), float(min(binom.cdf(b), 1.0))


def _proportions(s: dict[str, Any], alternative: str, level: float
                 ) -> tuple[float, float, float, float]:
    from statsmodels.stats.proportion import confint_proportions_2indep


    r = stats.proportions_ztest([s["sum_a"], s["sum_b"]], [s["n_a"], s["n_b"]],
                                alternative=alternative)
    alpha = 1.0 - level
    lo, hi = confint_proportions_2indep(
        s["sum_a"], s["n_a"], s["sum_b"], s["n_b"], method="wald", compare="diff",
        alpha=alpha if alternative == "two-sided" else 2.0 * alpha,
    )
    lo, hi = one_sided_ci(float(lo), float(hi), alternative)
    return float(r.statistic), float(r.pvalue), lo, hi


def _ratio(num: float, den: float) -> float:
    if den > 0.0:
        return num / den
    return 0.0 if num == 0.0 else math.copysign(math.inf, num)


def _effect(s: dict[str, Any], paired: bool, binary: bool) -> tuple[float, str]:
    if binary:
        return float(stats.cohens_h(s["sum_a"] / s["n_a"], s["sum_b"] / s["n_b"])), "cohens_h"
    if paired:
        if int(s["n"]) < 2:
            raise CompareError(f"paired test needs at least 2 pairs; got {int(s['n'])}")
        if s["min_d"] == s["max_d"]:
            return _ratio(float(s["min_d"]), 0.0), "cohens_dz"
        n = int(s["n"])
        return _ratio(s["sum_d"] / n, math.sqrt(s["m2_d"] / (n - 1))), "cohens_dz"
    na, nb = int(s["n_a"]), int(s["n_b"])
    sx = 0.0 if s["min_a"] == s["max_a"] else s["m2_a"] / (na - 1)
    sy = 0.0 if s["min_b"] == s["max_b"] else s["m2_b"] / (nb - 1)
    sp = math.sqrt(((na - 1) * sx + (nb - 1) * sy) / (na + nb - 2))
    return _ratio(s["sum_a"] / na - s["sum_b"] / nb, sp), "cohens_d"


@dataclass(frozen=True)
class _GroupClusters:
    """The cluster sums of every system of one complete dataset × metric (systems × C, clusters
    sorted by id) and the cluster sizes m_k (C), from :meth:`LazyScores.cluster_statistics`."""

    systems: tuple[str, ...]
    sizes: np.ndarray
    sums: np.ndarray

    @property
    def n_clusters(self) -> int:
        return int(self.sizes.size)

    def row(self, system: str) -> np.ndarray:
        return np.asarray(self.sums[self.systems.index(system)])


def _group_clusters(frame: pd.DataFrame, names: list[str]) -> _GroupClusters | None:
    """The :class:`_GroupClusters` of one dataset × metric's rows of ``cluster_statistics``, or
    None when the systems' cluster sizes differ (then the group is compared in memory)."""
    sub = frame[frame["system"].isin(names)]
    clusters = np.sort(pd.unique(sub["cluster"].astype(str)))
    sums = np.zeros((len(names), clusters.size))
    sizes = np.zeros((len(names), clusters.size))
    pos = {s: i for i, s in enumerate(names)}
    si = sub["system"].map(pos).to_numpy(dtype=np.int64)
    ci = np.searchsorted(clusters, sub["cluster"].astype(str).to_numpy())
    sums[si, ci] = sub["sum"].to_numpy(np.float64)
    sizes[si, ci] = sub["n"].to_numpy(np.float64)
    if not (sizes == sizes[0]).all():
        return None
    return _GroupClusters(tuple(names), sizes[0], sums)


def _clustered_test(gc: _GroupClusters, s: dict[str, Any], a: str, b: str, chosen: str,
                    paired: bool, alternative: str, level: float, cluster_se: str
                    ) -> tuple[float, float, float, float, str, float]:
    """(statistic, p, ci_low, ci_high, ci_method, ci_df) of pair (a, b) of a clustered group, as
    :func:`ranger_eval.comparison.clustered.clustered_outcomes` computes them (module
    docstring)."""
    sizes = gc.sizes
    if paired:
        sums = (gc.row(a) - gc.row(b))[None, :]
        t = cl.clustered_ttest_from_sums(sums, sizes, alternative=alternative, level=level,
                                         vcov=cluster_se)
        assert t.ci_low is not None and t.ci_high is not None and t.df is not None
        stat, p = float(t.statistic[0]), float(t.pvalue[0])
        if chosen == "mcnemar":
            r = cl.clustered_mcnemar_from_sums(sums, sizes, alternative=alternative,
                                               method=cl.mcnemar_method(sizes))
            stat, p = float(r.statistic[0]), float(r.pvalue[0])
        return (stat, p, float(t.ci_low[0]), float(t.ci_high[0]),
                CR2 if cluster_se == "CR2" else CR1, float(t.df[0]))
    # unpaired: the CR1 regression on a system indicator (stats.clustered_unpaired_ttest)
    na, nb = float(s["n_a"]), float(s["n_b"])
    mean_a, mean_b = s["sum_a"] / na, s["sum_b"] / nb
    psi = (gc.row(a) - sizes * mean_a) / na - (gc.row(b) - sizes * mean_b) / nb
    g, big_n = float(gc.n_clusters), na + nb
    se = math.sqrt(g / (g - 1.0) * (big_n - 1.0) / (big_n - 2.0) * float(psi @ psi))
    t_, p_, lo, hi = cl._t_result(np.array([mean_a - mean_b]), np.array([se]),
                                  np.array([g - 1.0]), alternative, level)
    return float(t_[0]), float(p_[0]), float(lo[0]), float(hi[0]), CR1, g - 1.0


def _oriented(stats: dict[tuple[str, str, str, str], dict[str, Any]], d: str, m: str, a: str,
              b: str) -> dict[str, Any]:
    """The statistics of pair (a, b), flipping a stored (b, a) row."""
    if (d, m, a, b) in stats:
        return stats[(d, m, a, b)]
    s = dict(stats[(d, m, b, a)])
    out = dict(s)
    for f in ("n", "sum", "m2", "min", "max", "nonbinary"):
        out[f"{f}_a"], out[f"{f}_b"] = s[f"{f}_b"], s[f"{f}_a"]
    out["sum_d"] = -s["sum_d"]
    out["min_d"], out["max_d"] = -s["max_d"], -s["min_d"]
    if "sum_pa" in s:
        out["sum_pa"], out["sum_pb"] = s["sum_pb"], s["sum_pa"]
        out["m2_pa"], out["m2_pb"] = s["m2_pb"], s["m2_pa"]
    return out


# --------------------------------------------------------------------------- compare
def _check_args(lazy: LazyTable, kwargs: dict[str, Any]) -> dict[str, Any]:
    """compare's keywords as :class:`~ranger_eval.settings.CompareSettings` (defaults and every
    check that needs no data, once), then the names checked against the scanned scores."""
    kw = CompareSettings.from_keywords(kwargs, where="compare").as_dict()
    if kw["hypothesis"] != "superiority":
        raise CompareError(
            f"hypothesis={kw['hypothesis']!r}: the lazy (DuckDB/Dask) backend has no "
            "non-inferiority or equivalence tests yet; load the scores into memory "
            "(ranger_eval.Scores) to run them")
    if kw["baseline"] is not None:
        known = kw["systems"] if kw["systems"] is not None else lazy.systems
        if kw["baseline"] not in known:
            raise CompareError(
                f"unknown baseline {kw['baseline']!r}; systems: {', '.join(map(repr, known))}")
    if kw["systems"] is not None:
        unknown = [s for s in kw["systems"] if s not in lazy.systems]
        if unknown:
            raise CompareError(f"systems: unknown system(s) {', '.join(map(repr, unknown))}; "
                               f"known: {', '.join(map(repr, lazy.systems))}")
        kw["systems"] = list(kw["systems"])
    for name, known in (("datasets", lazy.datasets), ("metrics", lazy.metrics)):
        if kw[name] is not None:
            unknown = [x for x in kw[name] if x not in known]
            if unknown:
                raise CompareError(f"unknown {name[:-1]}(s) {', '.join(map(repr, unknown))}; "
                                   f"known: {', '.join(map(repr, known))}")
            kw[name] = list(kw[name])
    return kw


def _groups(lazy: LazyTable, kw: dict[str, Any]) -> list[tuple[str, str, list[str]]]:
    out = []
    for d, m, here in lazy.groups():
        if kw["datasets"] is not None and d not in kw["datasets"]:
            continue
        if kw["metrics"] is not None and m not in kw["metrics"]:
            continue
        where = f"dataset {d!r} (metric {m!r})"
        if kw["systems"] is not None:
            absent = [s for s in kw["systems"] if s not in here]
            if absent:
                raise CompareError(f"{where}: no scores for system(s) "
                                   f"{', '.join(map(repr, absent))}; systems there: "
                                   f"{', '.join(map(repr, here))}")
            names = list(kw["systems"])
        else:
            names = list(here)
        if len(names) < 2:
            raise CompareError(f"{where}: need at least two systems to compare, found only "
                               f"{', '.join(map(repr, names))}")
        out.append((d, m, names))
    if not out:
        raise CompareError("no dataset × metric left to compare after the selection")
    return out


def _first_nonbinary(lazy: LazyTable, d: str, m: str, system: str) -> float:
    """The value other than 0 and 1 of ``system`` on ``d`` × ``m`` with the smallest item id."""
    return lazy._first_nonbinary(d, m, system)


def _mismatch(lazy: LazyTable, d: str, m: str, a: str, b: str, test: str, paired: Any) -> None:
    """ScoresError listing the items only one of the two systems scored."""
    parts = []
    for x, y in ((a, b), (b, a)):
        ids = lazy._only_in(d, m, x, y)
        if ids:
            parts.append(f"{len(ids)} only in {x!r}: {_preview(ids)}")
    raise items_differ_error(a, b, d, m, test, paired, "; ".join(parts))


def _stream_group(lazy: LazyTable, d: str, m: str | None, kw: dict[str, Any]
                  ) -> tuple[pd.DataFrame, pd.DataFrame, tuple[str, ...]]:
    """One group loaded and compared in memory, unadjusted."""
    scores = lazy.load(datasets=[d], metrics=None if m is None else [m])
    sub = dict(kw)
    sub.update(correction="none", datasets=None,
               metrics=kw["metrics"] if m is None else None)
    comp = compare(scores, **sub)
    return comp.table, comp.means, comp.tests_used


def compare_lazy(lazy: LazyTable, **kwargs: Any) -> Comparison:
    """:func:`ranger_eval.compare` on lazily scanned scores (module docstring); same arguments,
    same :class:`~ranger_eval.comparison.Comparison` (its ``scores`` is the ``LazyScores``).

    Parameters
    ----------
    lazy : LazyScores
        Scores scanned from Parquet/CSV files (:func:`ranger_eval.open_scores`), either engine
        (any :class:`~ranger_eval.lazy._protocol.LazyTable`).
    **kwargs
        The keywords of :func:`ranger_eval.compare` (``test``, ``level``, ``settings`` …).

    Returns
    -------
    Comparison
        The same rows as :func:`ranger_eval.compare` on the loaded scores.

    Raises
    ------
    CompareError
        As :func:`ranger_eval.compare`; an unknown keyword is named.

    Examples
    --------
    >>> import tempfile
    >>> import pandas as pd
    >>> from ranger_eval import open_scores
    >>> folder = tempfile.TemporaryDirectory()
    >>> pd.DataFrame({"dataset": "qa", "system": ["a"] * 4 + ["b"] * 4, "item": list("wxyz") * 2,
    ...               "value": [0.9, 0.7, 0.8, 0.6, 0.7, 0.6, 0.8, 0.4]}
    ...              ).to_parquet(folder.name + "/scores.parquet")
    >>> lazy = open_scores(folder.name + "/scores.parquet")
    >>> from ranger_eval.lazy._compare import compare_lazy
    >>> comparison = compare_lazy(lazy, test="paired-t")
    >>> comparison.table[["system_a", "system_b", "diff", "pvalue"]].round(4).values.tolist()
    [['a', 'b', 0.125, 0.0796]]
    >>> folder.cleanup()
    """
    kw = _check_args(lazy, kwargs)

    clustered = lazy.has_cluster
    if not clustered and kw["cluster_se"] != CompareSettings().cluster_se:
        _unused_cluster_se(kw["cluster_se"])  # said once, not by every streamed group
        kw["cluster_se"] = CompareSettings().cluster_se
    extra_cols = ["n_clusters", "ci_df"] if clustered else []
    test, alternative, level = kw["test"], kw["alternative"], float(kw["level"])
    stream_all = (test not in CLASSICAL or kw["by"] is not None or kw["metric_fn"] is not None
                  or lazy.has_seeds)
    tables: list[pd.DataFrame] = []
    mean_frames: list[pd.DataFrame] = []
    used: set[str] = set()
    if stream_all:
        if kw["metric_fn"] is not None:
            units: list[tuple[str, str | None]] = [
                (d, None) for d in lazy.datasets
                if kw["datasets"] is None or d in kw["datasets"]]
        else:
            units = [(d, m) for d, m, _ in _groups(lazy, kw)]
        for d, m in units:
            t, mn, tu = _stream_group(lazy, d, m, kw)
            tables.append(t)
            mean_frames.append(mn)
            used.update(tu)
    else:
        groups = _groups(lazy, kw)
        order = kw["pairs"]
        pairs_arg = None
        if order == "baseline":
            pairs_arg = [(s, kw["baseline"]) for s in (kw["systems"] or lazy.systems)
                         if s != kw["baseline"]]
        frame = lazy.sufficient_statistics(
            systems=kw["systems"], pairs=pairs_arg, datasets=[g[0] for g in groups],
            metrics=list(dict.fromkeys(g[1] for g in groups)), moments=False)
        records: list[dict[str, Any]] = frame.to_dict("records")  # type: ignore[assignment]
        stats = {(r["dataset"], r["metric"], r["system_a"], r["system_b"]): r for r in records}
        # clustered scores: the cluster sums of the groups whose systems scored the same items
        cluster_of: dict[tuple[str, str], _GroupClusters | None] = {}
        if clustered:
            complete = [(d, m, names) for d, m, names in groups
                        if _complete(stats, d, m, names)]
            if complete:
                cframe = lazy.cluster_statistics(
                    systems=kw["systems"], datasets=list(dict.fromkeys(g[0] for g in complete)),
                    metrics=list(dict.fromkeys(g[1] for g in complete)))
                by_group = {(str(k[0]), str(k[1])): f
                            for k, f in cframe.groupby(["dataset", "metric"], sort=False)}
                for d, m, names in complete:
                    if (d, m) in by_group:
                        cluster_of[(d, m)] = _group_clusters(by_group[(d, m)], names)
        for d, m, names in groups:
            where = f"dataset {d!r} (metric {m!r})"
            own: dict[str, dict[str, Any]] = {}
            for (d_, m_, a, b), s in stats.items():
                if (d_, m_) == (d, m):
                    own.setdefault(a, {f: s[f"{f}_a"] for f in ("n", "sum", "m2", "min", "max",
                                                               "nonbinary")})
                    own.setdefault(b, {f: s[f"{f}_b"] for f in ("n", "sum", "m2", "min", "max",
                                                               "nonbinary")})
            means = {s: own[s]["sum"] / own[s]["n"] for s in names if s in own}
            # extreme scores: this group in memory, where the tests rescale them exactly
            partial = any(_extreme(s) for k, s in stats.items() if k[:2] == (d, m))
            gcl: _GroupClusters | None = None
            if clustered and not partial:
                gcl = cluster_of.get((d, m))
                n_items = int(own[names[0]]["n"]) if names[0] in own else 0
                if gcl is None or gcl.n_clusters < 2:
                    # items that differ between systems, or one cluster: in memory (its rows
                    # or its error, exactly)
                    partial = True
                elif gcl.n_clusters == n_items:
                    gcl = None  # one item per cluster: tested as without clusters (as in memory)
            pair_list = [] if partial else system_pairs(names, means, d, m, order, kw["baseline"])
            rows: list[dict[str, Any]] = []
            for a, b in pair_list:
                s = _oriented(stats, d, m, a, b)
                same = s["n"] == s["n_a"] == s["n_b"]
                if test in _UNPAIRED_ONLY:
                    if kw["paired"]:
                        raise CompareError(f"test {test!r} is for independent samples; it cannot "
                                           "use paired=True")
                    use_paired = False
                elif test in _PAIRED_ONLY or kw["paired"]:
                    use_paired = True
                elif kw["paired"] is False:
                    use_paired = False
                else:
                    use_paired = same or s["n"] > 0
                if use_paired and not same:
                    if kw["missing"] == "error":
                        _mismatch(lazy, d, m, a, b, test, kw["paired"])
                    if s["n"] == 0:
                        raise ScoresError(f"no common items between {a!r} and {b!r} on dataset "
                                          f"{d!r} (metric {m!r}); a paired test is impossible")
                    partial = True
                    break
                binary = s["nonbinary_a"] == 0 and s["nonbinary_b"] == 0
                if test == "auto":
                    chosen = ("mcnemar" if use_paired else "proportions-z") if binary else (
                        "paired-t" if use_paired else "welch")
                else:
                    chosen = test
                    if test in _BINARY_ONLY and not binary:
                        bad = a if s["nonbinary_a"] else b
                        raise CompareError(
                            f"test {test!r} needs binary (0/1) scores, but system {bad!r} has "
                            f"value {_first_nonbinary(lazy, d, m, bad)!r} on dataset {d!r} "
                            f"(metric {m!r})")
                ci_df, n_cl = math.nan, math.nan
                try:
                    if gcl is not None:
                        stat, p, lo, hi, how, ci_df = _clustered_test(
                            gcl, s, a, b, chosen, use_paired, alternative, level,
                            kw["cluster_se"])
                        n_cl = float(gcl.n_clusters)
                    elif chosen == "paired-t":
                        stat, p, lo, hi = _paired_t(s, alternative, level)
                        how = "paired t"
                    elif chosen == "welch":
                        stat, p, lo, hi = _welch(s, alternative, level)
                        how = "Welch t"
                    elif chosen == "mcnemar":
                        if int(s["n"]) < 1:
                            raise CompareError("McNemar's test needs at least 1 pair; got 0")
                        stat, p = _mcnemar(s, alternative)
                        lo, hi = _tango(s, alternative, level)
                        how = "Tango score"
                    else:
                        stat, p, lo, hi = _proportions(s, alternative, level)
                        how = "Wald"
                    es, es_name = _effect(s, use_paired, binary)
                except (CompareError, StatsInputError) as exc:
                    raise CompareError(f"{where}, {a!r} vs {b!r}: {exc}") from None
                mean_a = (s["sum_a"] / s["n_a"])
                mean_b = (s["sum_b"] / s["n_b"])
                rows.append({
                    "dataset": d, "metric": m, "system_a": a, "system_b": b,
                    "mean_a": mean_a, "mean_b": mean_b, "diff": mean_a - mean_b,
                    "ci_low": float(lo), "ci_high": float(hi), "test": chosen,
                    "statistic": float(stat), "pvalue": float(p), "pvalue_adjusted": math.nan,
                    "effect_size": es, "effect_size_name": es_name,
                    "effect_label": str(effect_label(es)), "significant": False,
                    "paired": use_paired, "n_a": int(s["n"] if use_paired else s["n_a"]),
                    "n_b": int(s["n"] if use_paired else s["n_b"]), "ci_method": how,
                    "seed_sd_a": math.nan, "seed_sd_b": math.nan,
                    **({"n_clusters": n_cl, "ci_df": ci_df} if clustered else {}),
                })
            if partial:  # missing="intersect" on a partial overlap: this group in memory
                t, mn, tu = _stream_group(lazy, d, m, kw)
                tables.append(t)
                mean_frames.append(mn)
                used.update(tu)
                continue
            tables.append(pd.DataFrame(rows, columns=[*COLUMNS, *extra_cols]))
            used.update(r["test"] for r in rows)
            mean_frames.append(pd.DataFrame({
                "dataset": d, "metric": m, "system": names,
                "mean": [means[s] for s in names], "n": [int(own[s]["n"]) for s in names],
                "seed_sd": math.nan, "n_seeds": 1}))
    table = (pd.concat(tables, ignore_index=True) if tables
             else pd.DataFrame(columns=[*COLUMNS, *extra_cols]))
    table = with_mde(adjust_by_family(table, kw["correction"], kw["family"], level),
                     level=level, alternative=kw["alternative"])
    means_df = pd.concat(mean_frames, ignore_index=True)
    present = set(means_df["system"])
    order_sys = tuple(kw["systems"]) if kw["systems"] is not None else tuple(
        s for s in lazy.systems if s in present)

    set_metrics: tuple[str, ...] = ()
    if kw["metric_fn"] is not None:
        specs = kw["metric_fn"] if isinstance(kw["metric_fn"], (list, tuple)) else [kw["metric_fn"]]
        set_metrics = tuple(get_metric(x, error=CompareError).name for x in specs)
    return Comparison(
        table=table, means=means_df, systems=order_sys, scores=lazy,  # type: ignore[arg-type]
        test=test, pairs=kw["pairs"] if isinstance(kw["pairs"], str) else "custom",
        baseline=kw["baseline"], alternative=alternative, correction=kw["correction"],
        family=kw["family"], level=level, n_resamples=int(kw["n_resamples"]), seed=kw["seed"],
        tests_used=tuple(t for t in TESTS if t in used), set_metrics=set_metrics,
        seeds=kw["seeds"], cluster_se=kw["cluster_se"],
    )


def _complete(stats: dict[tuple[str, str, str, str], dict[str, Any]], d: str, m: str,
              names: list[str]) -> bool:
    """Whether every system of group (d, m) scored the same items: equal counts for every
    system and every computed pair (the pairs connect all the systems)."""
    ns: set[int] = set()
    seen: set[str] = set()
    for (d_, m_, a, b), s in stats.items():
        if (d_, m_) == (d, m):
            ns.update((int(s["n"]), int(s["n_a"]), int(s["n_b"])))
            seen.update((a, b))
    return len(ns) == 1 and seen >= set(names)


# --------------------------------------------------------------------------- effect sizes
def effect_sizes_lazy(
    lazy: LazyTable, *, treatment: str, control: str, measure: str | None = None,
    metric: str | None = None, datasets: Any = None, missing: str = "error",
    level: float = 0.95, **kwargs: Any,
) -> EffectSizes:
    """:func:`ranger_eval.effect_sizes` from the sufficient statistics (effects.py formulas:
    MD yi = d̄, vi = s_d²/n; SMD, SMCC, SMCR from d̄, s_d, r = C_ab/sqrt(M2_a M2_b) and the
    control's SD; ZCOR atanh r). Seeds, ``metric_fn``, items that differ between the two
    systems, or a degenerate dataset (no defined effect; with ``degenerate="drop"`` also zero
    variance) load the two systems' rows and use the in-memory function, which names every
    degenerate dataset at once or leaves them out (its ``degenerate`` policy).

    Parameters
    ----------
    lazy : LazyScores
        Scores scanned from files (:func:`ranger_eval.open_scores`), either engine (any
        :class:`~ranger_eval.lazy._protocol.LazyTable`).
    treatment, control : str
        The two systems; effects are treatment − control.
    measure, metric, datasets, missing, level, **kwargs
        As for :func:`ranger_eval.effect_sizes`.

    Returns
    -------
    EffectSizes
        One effect ``yi`` and sampling variance ``vi`` per dataset.

    Raises
    ------
    EffectSizeError
        As :func:`ranger_eval.effect_sizes`.

    References
    ----------
    Viechtbauer, W. (2010), "Conducting meta-analyses in R with the metafor package", Journal
    of Statistical Software 36(3) (the ``escalc`` measures).

    Examples
    --------
    >>> import tempfile
    >>> import pandas as pd
    >>> from ranger_eval import open_scores
    >>> folder = tempfile.TemporaryDirectory()
    >>> pd.DataFrame({"dataset": "qa", "system": ["a"] * 4 + ["b"] * 4, "item": list("wxyz") * 2,
    ...               "value": [0.9, 0.7, 0.8, 0.6, 0.7, 0.6, 0.8, 0.4]}
    ...              ).to_parquet(folder.name + "/scores.parquet")
    >>> lazy = open_scores(folder.name + "/scores.parquet")
    >>> from ranger_eval.lazy._compare import effect_sizes_lazy
    >>> effects = effect_sizes_lazy(lazy, treatment="a", control="b")
    >>> effects.measure, effects.names, effects.yi.round(4).tolist(), effects.vi.round(4).tolist()
    ('SMD', ('qa',), [0.5512], [0.0574])
    >>> folder.cleanup()
    """
    measure = "SMD" if measure is None else measure
    level = check_level(level, error=EffectSizeError)
    drop = check_choice("degenerate", kwargs.get("degenerate", "error"), DEGENERATE_POLICIES,
                        error=EffectSizeError) == "drop"
    if kwargs.get("metric_fn") is None and measure not in MEASURES:
        raise EffectSizeError(f"unknown measure {measure!r}; valid measures: {', '.join(MEASURES)}")
    treatment, control = str(treatment), str(control)
    if treatment == control:
        raise EffectSizeError(f"treatment and control are the same system {treatment!r}")
    known = lazy.datasets
    chosen = known if datasets is None else tuple(
        [datasets] if isinstance(datasets, str) else [str(x) for x in datasets])
    unknown = [x for x in chosen if x not in known]
    if unknown:
        raise EffectSizeError(f"unknown dataset(s) {unknown}; known: {list(known)}")
    if len(set(chosen)) != len(chosen) or not chosen:
        raise EffectSizeError(f"datasets must list each dataset once: {list(chosen)}")

    def in_memory() -> EffectSizes:
        sc = lazy.load(datasets=list(chosen), systems=[treatment, control])
        return effect_sizes(sc, treatment=treatment, control=control, measure=measure,
                            metric=metric, datasets=list(chosen), missing=missing, level=level,
                            **kwargs)

    if lazy.has_seeds or kwargs.get("metric_fn") is not None:
        return in_memory()
    metric_of: dict[str, str] = {}
    for d, m, here in lazy.groups():
        if d in chosen and (metric is None or m == metric):
            if d in metric_of:
                hint = Hint("metric")
                raise ScoresError(
                    f"dataset {d!r} has several metrics ({metric_of[d]!r}, {m!r}, …); "
                    f"{hint.text}", hints=[hint])
            metric_of[d] = m
            for name in (treatment, control):
                if name not in here:
                    raise ScoresError(f"no scores for system {name!r} on dataset {d!r} "
                                      f"(metric {m!r})")
    missing_metric = [d for d in chosen if d not in metric_of]
    if missing_metric:
        raise ScoresError(f"no rows of metric {metric!r} on dataset(s) {missing_metric}")
    frame = lazy.sufficient_statistics(systems=[treatment, control], pairs=[(treatment, control)],
                                       datasets=list(chosen), moments=True)
    records: list[dict[str, Any]] = frame.to_dict("records")  # type: ignore[assignment]
    rows = {(r["dataset"], r["metric"]): r for r in records}
    by_group: dict[tuple[str, str], pd.DataFrame] = {}
    if lazy.has_cluster:  # cluster sums of the two systems (cluster-robust variances)
        cframe = lazy.cluster_statistics(systems=[treatment, control], datasets=list(chosen),
                                         metrics=list(dict.fromkeys(metric_of.values())))
        by_group = {(str(k[0]), str(k[1])): f
                    for k, f in cframe.groupby(["dataset", "metric"], sort=False)}
    yi, vi, ns, mt, mc = [], [], [], [], []
    for d in chosen:
        s = rows[(d, metric_of[d])]
        n = int(s["n"])
        if not n == s["n_a"] == s["n_b"] or _extreme(s):
            return in_memory()  # items differ or extreme scores: the in-memory path
        if n < MIN_N[measure]:
            return in_memory()  # too few items: every such dataset named (or dropped) at once
        mean_t, mean_c = s["sum_a"] / n, s["sum_b"] / n
        mean_d = s["sum_d"] / n
        var_d = s["m2_d"] / (n - 1)
        try:
            y, v = _item_effect(s, n, measure, mean_t, mean_c, mean_d, var_d,
                                f"dataset {d!r} ({measure})", R_TOL, SHIFT_TOL, hedges_j,
                                metafor_cmi)
        except EffectSizeError:
            return in_memory()  # a degenerate dataset: all of them named (or dropped) at once
        if v == 0.0 and drop:
            return in_memory()  # zero variance, left out with the in-memory warning
        if lazy.has_cluster:
            gc = (_group_clusters(by_group[(d, metric_of[d])], [treatment, control])
                  if (d, metric_of[d]) in by_group else None)
            if gc is None:
                return in_memory()
            if gc.n_clusters < n:  # clustered: effects.cluster_robust_variances
                if gc.n_clusters < 2 or measure == "ZCOR":
                    return in_memory()  # its error names the dataset
                v = _cluster_robust_vi(gc, treatment, control, n, mean_d, var_d, measure, v)
        yi.append(y)
        vi.append(v)
        ns.append(n)
        mt.append(mean_t)
        mc.append(mean_c)
    metrics = tuple(metric_of[d] for d in chosen)
    return EffectSizes(
        names=chosen, yi=np.array(yi), vi=np.array(vi), n=np.array(ns, dtype=np.int64),
        measure=measure, mean_treatment=np.array(mt), mean_control=np.array(mc),
        treatment=treatment, control=control,
        metric=metric if metric is not None else (metrics[0] if len(set(metrics)) == 1 else None),
        level=level, metrics=metrics,
    )


def _cluster_robust_vi(gc: _GroupClusters, treatment: str, control: str, n: int,
                       mean_d: float, var_d: float, measure: str, vi: float) -> float:
    """``vi`` made cluster-robust as :func:`ranger_eval.effects.cluster_robust_variances`:
    V_CR1 = C/(C − 1) · Σ_k (S_k − m_k d̄)² / n² (S_k = sum_t,k − sum_c,k) for MD, else
    vi · V_CR1 / (s_d²/n), the design effect (1 when s_d = 0)."""
    if not math.isfinite(vi):
        return vi
    c = float(gc.n_clusters)
    dev = gc.row(treatment) - gc.row(control) - gc.sizes * mean_d
    v_cr = c / (c - 1.0) * float(dev @ dev) / (float(n) * float(n))
    if measure == "MD":
        return v_cr
    naive = var_d / n
    return vi * (v_cr / naive) if naive > 0.0 else vi


def _item_effect(s: dict[str, Any], n: int, measure: str, mean_t: float, mean_c: float,
                 mean_d: float, var_d: float, where: str, r_tol: float, shift_tol: float,
                 hedges_j: Any, metafor_cmi: Any) -> tuple[float, float]:
    """``effects.effect_size`` on the statistics of one dataset (same cases, same errors)."""
    if measure == "MD":
        return mean_d, var_d / n
    identical = s["min_d"] == 0.0 and s["max_d"] == 0.0
    if identical and measure != "ZCOR":
        return 0.0, (1.0 / n if measure == "SMCC" else 0.0)
    for role, lo, hi in (("treatment", s["min_a"], s["max_a"]), ("control", s["min_b"], s["max_b"])):
        if lo == hi:
            raise EffectSizeError(
                f"{where}: the {role} scores are constant (all {float(lo)!r}), so the correlation "
                "between the systems is undefined"
                + (" (identical systems: r = 1, Fisher's z is infinite)" if identical else ""))
    sd_c = math.sqrt(s["m2_pb"] / (n - 1))
    r = float(np.clip(s["m2_ab"] / math.sqrt(s["m2_pa"] * s["m2_pb"]), -1.0, 1.0))
    s_diff = math.sqrt(var_d)
    scale = max(abs(s["min_a"]), abs(s["max_a"]), abs(s["min_b"]), abs(s["max_b"]))
    if measure in ("SMD", "SMCC") and s_diff <= shift_tol * scale:
        raise EffectSizeError(
            f"{where}: treatment − control is the same on every item ({mean_d!r}), so the "
            "differences have zero standard deviation and the standardised effect is undefined "
            "(use measure='MD')")
    if measure == "SMD":
        if 1.0 - r <= r_tol:
            raise EffectSizeError(f"{where}: treatment and control are perfectly correlated "
                                  f"(r = {r!r}), so S_within = S_diff / sqrt(2(1 − r)) is undefined")
        s_within = s_diff / math.sqrt(2.0 * (1.0 - r))
        dd = mean_d / s_within
        v_d = (1.0 / n + dd * dd / (2.0 * n)) * 2.0 * (1.0 - r)
        j = hedges_j(n - 1)
        return j * dd, j * j * v_d
    if measure == "SMCC":
        y = metafor_cmi(n - 1) * mean_d / s_diff
        return y, 1.0 / n + y * y / (2.0 * n)
    if measure == "SMCR":
        y = metafor_cmi(n - 1) * (mean_t - mean_c) / sd_c
        return y, 2.0 * (1.0 - r) / n + y * y / (2.0 * n)
    if 1.0 - abs(r) <= r_tol:
        raise EffectSizeError(f"{where}: treatment and control are perfectly correlated "
                              f"(r = {r!r}), so Fisher's z = atanh(r) is infinite")
    return float(np.arctanh(r)), 1.0 / (n - 3)
