""":func:`compare` on judge scores with human scores: prediction-powered tests.

When the scores carry a ``human_value`` column with at least one human score, ``value`` is
taken to be an automatic judge's score and every pair's test is the prediction-powered (PPI++)
z test of the mean paired difference of **human** scores (Angelopoulos et al., Science 2023;
Angelopoulos, Duchi & Zrnic 2023), the same estimator as
:func:`ranger_eval.ppi_mean_difference` (derivation: :mod:`ranger_eval.verdicts.ppi`). For the
pair (a, b), with H = human(a) − human(b) on the n items where both have a human score and
D = judge(a) − judge(b) on all items (N without both human scores)::

    diff = θ̂ = λ · mean(D, unlabelled) + mean(H − λ · D, labelled)
    se² = λ² · σ̂²(D, unlabelled) / N + σ̂²(H − λ · D, labelled) / n      (divisors N, n)
    λ = Ĉov(H, D) / ((1 + n/N) · V̂ar(D, all items)), clipped to [0, 1]

``statistic`` is z = θ̂ / se with the normal p-value of ``alternative``; the interval is
θ̂ ± z_{(1+level)/2} · se (one-sided: one infinite bound). ``mean_a`` and ``mean_b`` are the
two systems' prediction-powered means at the pair's λ on the same split of items, so that
``diff = mean_a − mean_b``; the ``means`` table holds each system's own PPI++ mean (its own λ,
its own labelled items). ``effect_size`` is d_z = θ̂ / sd(H) (sd with ddof = 1 over the
labelled items; ``dz_ppi``). The rows' ``test`` is ``ppi++``, their ``ci_method``
``prediction-powered z``, and the signature records ``ppi:ppi++``.

With ``hypothesis="non-inferiority"`` or ``"equivalence"`` and a ``margin`` the same estimate and
standard error give two one-sided z tests against the margins
(:func:`~ranger_eval.stats.equivalence.t_margin_tests` on infinite df: equivalence
p = max(P(Z ≥ (θ̂ + m)/se), P(Z ≤ (θ̂ − m)/se)) with the 1 − 2α interval; non-inferiority the one
side of the metric's direction), i.e. ``ppi_py.ppi_mean_pval`` with ``null=∓m`` and a one-sided
alternative.

**Clustered items** (a ``cluster`` column too): the same estimate, with the cluster-robust
variance of :mod:`ranger_eval.stats.ppi` — the per-item influence terms of the labelled part,
(r_i − r̄)/n with r = H − λ·D, and of the unlabelled part, λ·(D_j − D̄)/N, summed per cluster
(Angelopoulos et al. 2023 for the influence terms) — as chosen by ``cluster_se`` (the setting of
the clustered paired t):

* ``"CR2"`` (default): each part's cluster sum times (1 − m_c/n)^(-1/2) (its own block of the
  stacked regression's hat matrix; Bell & McCaffrey 2002), se² = Σ_c u_c², t on the
  Bell–McCaffrey (Satterthwaite) df of the pair's cluster sizes and λ (Pustejovsky & Tipton
  2018) — R ``clubSandwich::vcovCR(type = "CR2")`` + ``coef_test(test = "Satterthwaite")``;
* ``"CR1"``: se² = C/(C − 1) · Σ_c u_c² (Liang & Zeger 1986; Cameron & Miller 2015), t on C − 1
  df — R ``sandwich::vcovCL(type = "HC0", cadjust = TRUE)``;

both of the stacked regression at the pair's λ (tests/oracles/ppi_clustered_oracle.R; C: the
clusters of the pair's items). Such rows have ``ci_method`` ``prediction-powered t (CR2)`` (or
``(CR1)``), an ``n_clusters`` and the df in ``ci_df`` (which the ``mde`` uses), the margin tests
use the same t, the signature records ``cse:``, and fewer clusters than measured to hold α (CR2:
50, CR1: 100) give a warning with the measured over-rejection (10,000 null replicates at α = 5 %:
CR2 5.2–6.1 % at 20 clusters, 4.9–5.2 % at 50 and 200; CR1 6.0–7.7 %, 5.5–5.7 %, 5.0–5.2 %; the
naive PPI test 11–47 %; benchmarks/cluster_validity.py ``--kinds ppi``). A dataset whose clusters
each hold one item is not clustered: ppi_py's numbers exactly. The leaderboard's per-system
intervals are the clustered ones too.

All pairs of a dataset × metric are estimated at once, inside ``compare``'s all-pairs engine:
the group's systems × items matrices of judge scores (:class:`~ranger_eval.pairing.Group`) and of
human scores (:func:`human_matrices`, seeds averaged as for the judge) give every pair's D and H
as differences of two rows; when every system has its human scores on the same items the
labelled and unlabelled columns are selected once, otherwise each pair's items are boolean
masks, so λ, θ̂ and se of all pairs are a few matrix operations
(:func:`~ranger_eval.stats.ppi.prediction_powered_rows`; ``benchmarks/ppi_bench.py --compare``:
20 systems × 5 datasets × 2,000 items, 950 pairs, in 0.16 s instead of 3.3 s pair by pair).

**Rank tests** (``test="wilcoxon"`` or ``test="sign"``; CLI ``--test``): every pair's row is
the prediction-powered version of that rank test of the **human** differences
(:mod:`ranger_eval.stats.ppi_rank`, where both are defined with their sources), on the same
labelled / unlabelled split of the pair's items:

* ``ppi wilcoxon``: θ = P(W > 0) + ½·P(W = 0) − ½ for a Walsh average W of two human
  differences (the signed-rank statistic's parameter), θ̂ = T(H) + λ·(T(D_unl) − T(D_lab)) with
  T the Walsh-average U-statistic and its Hájek-projection variance, t on n − 1 df, λ = 1:
  evalstats 0.3.3's ``wilcoxon(power_tune=False)`` to 1e-10 (the plug-in power-tuned λ
  over-rejects with few human scores — 6.3 % at 30 labels in benchmarks/ppi_rank_null.py, λ = 1
  4.1–5.3 % — and evalstats' own power tuning is seeded-bootstrap shrinkage: see the kernel);
  ``ci_method`` ``prediction-powered Walsh t``; clustered items: CR1 over whole clusters on
  C − 1 df (``prediction-powered Walsh t (CR1)``).
* ``ppi sign``: θ = P(H > 0) − P(H < 0) = E[sign H], the PPI++ mean of sign(H) with sign(D) as
  the prediction — the z test above on signs (ppi_py's ``ppi_mean_*`` on signs to 1e-10), with
  its clustered CR2 / CR1 t. With few human scores it rejects a true null too often (7–8 % at
  α = 5 % with 30 labelled items, 5–6 % with 100: benchmarks/ppi_rank_null.py); prefer
  ``wilcoxon`` below 100 labelled items.

``diff`` is θ̂ and the interval is on θ's scale (clipped to [−½, ½], resp. [−1, 1]); the row's
``statistic`` is θ̂/se, ``se`` and ``df`` are the test's own; ``mean_a``/``mean_b`` are each
system's own PPI++ mean and ``effect_size`` the PPI++ d_z, as for the z test. The signature
records ``ppi:ppi-wilcoxon`` (λ = 1) or ``ppi:ppi++-sign``. Margin hypotheses are refused with a
rank test (a margin in score units has no meaning for θ). All pairs of the usual design are
rows of one matrix computation; pairs with their own items (missing scores or human scores)
are computed one by one.

Tests other than ``auto``, ``wilcoxon`` and ``sign``, unpaired pairs, ``correction="westfall-young"`` and set-level metrics
are errors: each would silently test the judge instead of the humans. A ``human_value`` column
without a single human score changes nothing (there is nothing to correct the judge with).
"""
from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pandas as pd

from ..errors import CompareError, Hint, StatsInputError
from ..pairing import Group, align_groups, factorize, scores_table
from ..scores import HUMAN_VALUE, Scores
from ..stats import effect_label
from ..stats.equivalence import t_margin_tests
from ..stats.judged import check_ppi_counts, has_human_scores
from ..stats.ppi import PPIRows, few_clusters, few_clusters_message, prediction_powered_rows
from ..stats.ppi_rank import SIGN_RANGE, WALSH_RANGE, PPIRankRows, ppi_sign_rows, ppi_walsh_rows
from .clustered import group_clusters
from .dispatch import _PairData

__all__ = ["PPI_CLUSTERED_INTERVALS", "PPI_INTERVAL", "PPI_MEAN_INTERVAL", "PPI_RANK_NAMES", "PPI_RANK_TESTS",
           "PPI_TEST", "PPI_WALSH_CLUSTERED_INTERVAL", "PPI_WALSH_INTERVAL", "has_human_scores",
           "human_matrices", "ppi_group", "ppi_rank_sentence", "ppi_intervals", "refuse_ppi"]

#: the ``test`` of a prediction-powered row, and its interval's ``ci_method``
PPI_TEST = "ppi++"
PPI_INTERVAL = "prediction-powered z"
#: the interval of a prediction-powered row of clustered items, by ``cluster_se``: CR2 t on
#: Bell–McCaffrey df (the default) or CR1 t on C − 1 df
PPI_CLUSTERED_INTERVALS = {"CR2": "prediction-powered t (CR2)",
                           "CR1": "prediction-powered t (CR1)"}
#: ``compare``'s tests with a prediction-powered rank version (:mod:`ranger_eval.stats.ppi_rank`),
#: and the ``test`` and ``ci_method`` of their rows (clustered: the cluster-robust t)
PPI_RANK_TESTS = ("wilcoxon", "sign")
PPI_RANK_NAMES = {"wilcoxon": "ppi wilcoxon", "sign": "ppi sign"}
#: the Wilcoxon rows' interval (t on n − 1 df; clustered: CR1 t on C − 1 df); the sign rows
#: have the PPI++ z (clustered: t) intervals of the mean test
PPI_WALSH_INTERVAL = "prediction-powered Walsh t"
PPI_WALSH_CLUSTERED_INTERVAL = "prediction-powered Walsh t (CR1)"
#: pairs × items floats per batch of the all-pairs kernel (bounded memory for long groups)
BATCH_FLOATS = 1 << 21


def refuse_ppi(scores: Scores, *, test: str, correction: str, set_metrics: bool,
               hypothesis: str = "superiority") -> None:
    """CompareError when ``compare`` on judge scores with human scores would test the judge's
    scores instead of the humans' (module docstring)."""
    why = None
    hints: list[Hint] = []
    if test not in ("auto", *PPI_RANK_TESTS):
        hints = [Hint("test", test, form="set"), Hint("test", "auto", form="set"),
                 Hint("test", "wilcoxon", form="set"), Hint("test", "sign", form="set")]
        why = (f"{hints[0].text} would test the judge's scores; with human scores compare runs "
               f"the prediction-powered z test ({hints[1].text}) or the prediction-powered rank "
               f"tests ({hints[2].text} or {hints[3].text})")
    elif test in PPI_RANK_TESTS and hypothesis != "superiority":
        why = (f"hypothesis={hypothesis!r} needs a margin on the scale of the scores, and the "
               f"prediction-powered {test} test's parameter is a probability, not a difference "
               f"of scores (use test='auto' for the margin tests)")
    elif correction == "westfall-young":
        why = "correction='westfall-young' resamples the judge's scores"
    elif set_metrics:
        why = "a set-level metric (metric_fn) is not a mean of per-item human scores"
    if why is not None:
        raise CompareError(
            f"the scores have human scores (column {HUMAN_VALUE!r}), so compare corrects the "
            f"judge's scores by prediction-powered inference, but {why}; to test the judge's "
            f"scores as they are, drop the {HUMAN_VALUE!r} column", hints=hints)


def human_matrices(scores: Scores, groups: list[Group]) -> list[np.ndarray]:
    """Per group, the systems × items matrix of human scores aligned with ``group.matrix``
    (NaN: no human score or no row). With seeds, an item's human scores are averaged over its
    seeds, which must all have one or none (CompareError naming the system and item)."""
    table = scores_table(scores)
    human = table[HUMAN_VALUE].to_numpy(dtype=np.float64)
    ds_codes, ds_names = factorize(table["dataset"])
    met_codes, met_names = factorize(table["metric"])
    sys_codes, sys_names = factorize(table["system"])
    n_met = len(met_names)
    key = ds_codes * n_met + met_codes
    order = np.argsort(key, kind="stable")
    bounds = np.searchsorted(key[order], np.arange(len(ds_names) * n_met + 1))
    ds_at = {str(d): i for i, d in enumerate(ds_names)}
    met_at = {str(m): i for i, m in enumerate(met_names)}
    sys_at = {str(s): i for i, s in enumerate(sys_names)}
    seeds = "seed" in table.columns
    out = []
    for g in groups:
        kk = ds_at[str(g.dataset)] * n_met + met_at[str(g.metric)]
        rows = order[bounds[kk]:bounds[kk + 1]]
        to_row = np.full(len(sys_names), -1, dtype=np.intp)
        for i, s in enumerate(g.names):
            to_row[sys_at[s]] = i
        srow = to_row[sys_codes[rows]]
        rows, srow = rows[srow >= 0], srow[srow >= 0]
        col = pd.Index(g.items).get_indexer(table["item"].take(rows))
        k, m = g.matrix.shape
        h = human[rows]
        if not seeds:
            mat = np.full((k, m), np.nan)
            mat[srow, col] = h
            out.append(mat)
            continue
        flat = srow * m + col
        has = ~np.isnan(h)
        size = np.bincount(flat, minlength=k * m)
        count = np.bincount(flat, weights=has, minlength=k * m)
        total = np.bincount(flat, weights=np.where(has, h, 0.0), minlength=k * m)
        bad = np.flatnonzero((count > 0) & (count < size))
        if bad.size:
            i, j = divmod(int(bad[0]), m)
            raise CompareError(
                f"system {g.names[i]!r} (dataset {g.dataset!r}, metric {g.metric!r}): item "
                f"{g.items[j]!r} has a {HUMAN_VALUE} for {int(count[bad[0]])} of its "
                f"{int(size[bad[0]])} seeds; give it for all or none ({bad.size} such item(s))")
        with np.errstate(invalid="ignore", divide="ignore"):
            out.append(np.where(count > 0, total / count, np.nan).reshape(k, m))
    return out


def _system_rows(group: Group, human: np.ndarray, clusters: np.ndarray | None = None,
                 cluster_se: str = "CR2") -> PPIRows:
    """Each system's own PPI++ mean (its own λ and labelled items) on ``group``, after the
    checks of :func:`~ranger_eval.stats.judged.checked_ppi` naming the system; ``clusters``
    (codes of ``group.items``): its cluster-robust standard error (``cluster_se``: CR2 with
    Bell–McCaffrey df or CR1 on C − 1 df)."""
    present = group.present
    lab = present & ~np.isnan(human)
    unl = present & np.isnan(human)
    for j, s in enumerate(group.names):
        check_ppi_counts(int(lab[j].sum()), int(unl[j].sum()), method="ppi++",
                         what=f"system {s!r} on dataset {group.dataset!r}, metric "
                              f"{group.metric!r}", error=CompareError)
    return prediction_powered_rows(human, group.matrix, group.matrix, labelled=lab,
                                   unlabelled=unl, clusters=clusters,
                                   clusters_unlabelled=clusters, vcov=cluster_se)


def ppi_group(group: Group, human: np.ndarray, data: list[_PairData], *, alternative: str,
              level: float, hypothesis: str, margin: float | None, higher_is_better: bool,
              clusters: np.ndarray | None = None, cluster_se: str = "CR2", test: str = "auto",
              ) -> tuple[list[dict[str, Any]], list[float], list[float], list[float]]:
    """``compare``'s rows of every pair of one dataset × metric by the PPI++ z test (module
    docstring), all pairs at once, each system's own PPI++ mean (in ``group.names`` order),
    and per pair the number of clusters and the df of its interval (NaN without clusters).
    ``clusters``: cluster codes of ``group.items`` (the cluster-robust PPI t; ``cluster_se``:
    CR2 with Bell–McCaffrey df, or CR1 on C − 1 df). ``test`` "wilcoxon" or "sign": the
    prediction-powered rank test of every pair instead (:func:`_rank_batch`); the rows carry
    ``se`` and ``df`` of their interval."""
    where = f"dataset {group.dataset!r}, metric {group.metric!r}"
    for d in data:
        if not d.paired:
            raise CompareError(
                f"{d.a!r} vs {d.b!r} on {where} is unpaired, and the prediction-powered test of "
                f"compare is for systems judged on the same items; pass paired=True (with "
                f"missing='intersect' if some items are missing) or drop the {HUMAN_VALUE!r} "
                f"column")
    ia = np.array([group.index(d.a) for d in data], dtype=np.intp)
    ib = np.array([group.index(d.b) for d in data], dtype=np.intp)
    m = group.matrix.shape[1]
    step = max(1, BATCH_FLOATS // max(m, 1))
    parts = []
    for lo in range(0, ia.size, step):
        parts.append(_pairs_batch(group, human, data, ia[lo:lo + step], ib[lo:lo + step], lo,
                                  clusters, cluster_se))
    est, se, lam, df, mean_a, mean_b, dz, n_cl = (np.concatenate([p[i] for p in parts])
                                                  if parts else np.zeros(0) for i in range(8))
    rank = test in PPI_RANK_TESTS
    if rank:
        ranked = [_rank_batch(group, human, data, ia[lo:lo + step], ib[lo:lo + step], lo,
                              clusters, cluster_se, test) for lo in range(0, ia.size, step)]
        est, se, df, n_cl = (np.concatenate([r[i] for r in ranked]) if ranked else np.zeros(0)
                             for i in range(4))
        bounds = WALSH_RANGE if test == "wilcoxon" else SIGN_RANGE
        z = np.zeros(est.size)
        statistic, pvalue, ci_low, ci_high = PPIRankRows(
            est, se, z, z, z, n_cl, df, bounds).test(alternative, level)
    elif hypothesis == "superiority":
        rows = PPIRows(est, se, lam, np.zeros(0), np.zeros(0), np.zeros(0), df)
        statistic, pvalue, ci_low, ci_high = rows.test(alternative, level)
    else:
        if margin is None:
            raise CompareError(f"hypothesis={hypothesis!r} needs a margin")

        if hypothesis == "equivalence":
            low, upp = -margin, margin
        else:
            low, upp = (-margin, np.inf) if higher_is_better else (-np.inf, margin)
        r = t_margin_tests(est, se, df, low=low, upp=upp, level=level)
        statistic, pvalue, ci_low, ci_high = r.statistic, r.pvalue, r.ci_low, r.ci_high
    if rank and test == "wilcoxon":
        ci_method = PPI_WALSH_INTERVAL if clusters is None else PPI_WALSH_CLUSTERED_INTERVAL
    else:
        ci_method = PPI_INTERVAL if clusters is None else PPI_CLUSTERED_INTERVALS[cluster_se]
    sd = group.seed_sd
    out = []
    for j, d in enumerate(data):
        es = float(dz[j])
        row = {
            "dataset": group.dataset, "metric": group.metric, "system_a": d.a, "system_b": d.b,
            "mean_a": float(mean_a[j]), "mean_b": float(mean_b[j]), "diff": float(est[j]),
            "ci_low": float(ci_low[j]), "ci_high": float(ci_high[j]),
            "test": PPI_RANK_NAMES[test] if rank else PPI_TEST,
            "statistic": float(statistic[j]), "pvalue": float(pvalue[j]),
            "pvalue_adjusted": np.nan, "effect_size": es, "effect_size_name": "dz_ppi",
            "effect_label": str(effect_label(es)), "significant": False, "paired": True,
            "n_a": int(d.x.size), "n_b": int(d.y.size), "ci_method": ci_method,
            "seed_sd_a": sd[d.a], "seed_sd_b": sd[d.b],
        }
        if rank:  # the se and df of the rank test's own interval (the table's se/df)
            row["se"], row["df"] = float(se[j]), float(df[j])
        out.append(row)
    own = _system_rows(group, human)
    cse = "CR1" if test == "wilcoxon" else cluster_se  # the Walsh t is CR1's
    if clusters is not None and n_cl.size and n_cl.min() < few_clusters(cse):
        warnings.warn(few_clusters_message(where, int(n_cl.min()), cse), UserWarning,
                      stacklevel=4)
    if clusters is None:
        return out, [float(v) for v in own.estimate], [np.nan] * len(out), [np.nan] * len(out)
    return (out, [float(v) for v in own.estimate], [float(v) for v in n_cl],
            [float(v) for v in df])


def _pairs_batch(group: Group, human: np.ndarray, data: list[_PairData], ia: np.ndarray,
                 ib: np.ndarray, first: int, clusters: np.ndarray | None = None,
                 cluster_se: str = "CR2") -> tuple[np.ndarray, ...]:
    """(θ̂, se, λ, df, mean_a, mean_b, d_z, C) of the pairs (ia, ib) of ``group``: the differences
    of two rows of the judge and human matrices, each pair's labelled items (both systems have
    a human score) and unlabelled items (the other common items). When every system scores
    every item and has its human scores on the same items (the usual design), those columns
    are selected once for all pairs (no masks); otherwise each pair's items are masks."""
    where = f"dataset {group.dataset!r}, metric {group.metric!r}"
    v = group.matrix
    has = ~np.isnan(human)
    uniform = group.complete and bool((has == has[0]).all())
    lab_m: np.ndarray | None = None
    unl_m: np.ndarray | None = None
    if uniform:
        lc, uc = np.flatnonzero(has[0]), np.flatnonzero(~has[0])
        counts = [(lc.size, uc.size)] * ia.size
    else:
        lc = uc = np.arange(v.shape[1])
        common = group.present[ia] & group.present[ib]
        lab_m = common & has[ia] & has[ib]
        unl_m = common & ~lab_m
        counts = list(zip(lab_m.sum(axis=1).tolist(), unl_m.sum(axis=1).tolist(), strict=True))
    for j, (n_j, big_j) in enumerate(counts):
        d = data[first + j]
        if big_j < 2:
            raise CompareError(
                f"{d.a!r} vs {d.b!r} on {where}: {n_j} of {n_j + big_j} items have human "
                f"scores for both systems, leaving {big_j} judge-only item(s); "
                f"prediction-powered inference needs at least 2. With human scores everywhere, "
                f"test them directly: put them in 'value' and drop the {HUMAN_VALUE!r} column")
        check_ppi_counts(n_j, big_j, what=f"the difference {d.a!r} − {d.b!r} on {where}",
                         method="ppi++", error=CompareError)
    vl, vu, hl = v[:, lc], v[:, uc], human[:, lc]
    with np.errstate(over="ignore", invalid="ignore"):
        judge_l, judge_u, humans = vl[ia] - vl[ib], vu[ia] - vu[ib], hl[ia] - hl[ib]
    for part, mask in ((judge_l, lab_m), (judge_u, unl_m), (humans, lab_m)):
        bad = ~np.isfinite(part) if mask is None else mask & ~np.isfinite(part)
        if bad.any():
            j, c = (int(x) for x in np.argwhere(bad)[0])
            d = data[first + j]
            item = group.items[(lc if part is not judge_u else uc)[c]]
            raise CompareError(
                f"{d.a!r} vs {d.b!r} on {where}: the difference of the two systems' scores on "
                f"item {item!r} is beyond the float64 range (±1.8e308); rescale the scores")
    try:
        res = prediction_powered_rows(
            humans, judge_l, judge_u, labelled=lab_m, unlabelled=unl_m,
            clusters=None if clusters is None else clusters[lc],
            clusters_unlabelled=None if clusters is None else clusters[uc], vcov=cluster_se)
    except StatsInputError as err:  # one cluster, or a difference beyond float64
        d = data[first + int(getattr(err, "row", 0) or 0)]
        row = str(err).split(":", 1)
        why = row[1].strip() if row[0].startswith("row ") else str(err)
        raise CompareError(f"{d.a!r} vs {d.b!r} on {where}: {why}") from None
    n = res.n_labelled.astype(np.float64)
    big_n = res.n_unlabelled.astype(np.float64)
    means = []
    for rows in (ia, ib):  # each system at the pair's λ on the pair's split of items
        if uniform:  # the systems' sums once, then the pairs' rows
            sum_u, sum_vl, sum_hl = vu.sum(axis=1)[rows], vl.sum(axis=1)[rows], hl.sum(axis=1)[rows]
        else:
            assert lab_m is not None and unl_m is not None
            sum_u = np.where(unl_m, vu[rows], 0.0).sum(axis=1)
            sum_vl = np.where(lab_m, vl[rows], 0.0).sum(axis=1)
            sum_hl = np.where(lab_m, hl[rows], 0.0).sum(axis=1)
        means.append(res.lam * (sum_u / big_n) + (sum_hl - res.lam * sum_vl) / n)
    h_lab = humans if lab_m is None else np.where(lab_m, humans, 0.0)
    dev = h_lab - (h_lab.sum(axis=1) / n)[:, None]
    if lab_m is not None:
        dev = np.where(lab_m, dev, 0.0)
    sd_h = np.sqrt(np.einsum("ij,ij->i", dev, dev) / (n - 1.0))
    est = res.estimate
    with np.errstate(divide="ignore", invalid="ignore"):
        dz = np.where(sd_h > 0.0, est / sd_h, np.where(est == 0.0, 0.0, np.copysign(np.inf, est)))
    return est, res.se, res.lam, res.df, means[0], means[1], dz, res.n_clusters


def _rank_batch(group: Group, human: np.ndarray, data: list[_PairData], ia: np.ndarray,
                ib: np.ndarray, first: int, clusters: np.ndarray | None, cluster_se: str,
                test: str) -> tuple[np.ndarray, ...]:
    """(θ̂, se, df, C) of the prediction-powered rank test ``test`` (``wilcoxon``: Walsh
    averages, ``sign``: signs; :mod:`ranger_eval.stats.ppi_rank`) of the pairs (ia, ib): the
    same labelled / unlabelled split of each pair's items as :func:`_pairs_batch` (which has
    checked the counts and finiteness). Usual design: every pair is a row of one matrix
    operation; pairs with their own items (missing scores or human scores) one by one."""
    where = f"dataset {group.dataset!r}, metric {group.metric!r}"
    v = group.matrix
    has = ~np.isnan(human)
    uniform = group.complete and bool((has == has[0]).all())
    _few_labels_warning(where, test, human, has, ia, ib)
    try:
        if uniform:
            lc, uc = np.flatnonzero(has[0]), np.flatnonzero(~has[0])
            cl = None if clusters is None else clusters[lc]
            cu = None if clusters is None else clusters[uc]
            hl, vl, vu = human[:, lc], v[:, lc], v[:, uc]
            args = (hl[ia] - hl[ib], vl[ia] - vl[ib], vu[ia] - vu[ib])
            res = (ppi_walsh_rows(*args, power_tune=False, clusters=cl, clusters_unlabelled=cu)
                   if test == "wilcoxon" else
                   ppi_sign_rows(*args, clusters=cl, clusters_unlabelled=cu, vcov=cluster_se))
            return res.estimate, res.se, res.df, res.n_clusters.astype(np.float64)
        common = group.present[ia] & group.present[ib]
        lab_m = common & has[ia] & has[ib]
        unl_m = common & ~lab_m
        if test == "sign":
            res = ppi_sign_rows(human[ia] - human[ib], v[ia] - v[ib], v[ia] - v[ib],
                                labelled=lab_m, unlabelled=unl_m, clusters=clusters,
                                clusters_unlabelled=clusters, vcov=cluster_se)
            return res.estimate, res.se, res.df, res.n_clusters.astype(np.float64)
        out = np.zeros((4, ia.size))
        for j in range(ia.size):
            lc, uc = np.flatnonzero(lab_m[j]), np.flatnonzero(unl_m[j])
            a, b = ia[j], ib[j]
            r = ppi_walsh_rows(human[a, lc] - human[b, lc], v[a, lc] - v[b, lc],
                               v[a, uc] - v[b, uc], power_tune=False,
                               clusters=None if clusters is None else clusters[lc],
                               clusters_unlabelled=None if clusters is None else clusters[uc])
            out[:, j] = r.estimate[0], r.se[0], r.df[0], r.n_clusters[0]
        return out[0], out[1], out[2], out[3]
    except StatsInputError as err:  # one cluster
        d = data[first + int(getattr(err, "row", 0) or 0)]
        row = str(err).split(":", 1)
        why = row[1].strip() if row[0].startswith("row ") else str(err)
        raise CompareError(f"{d.a!r} vs {d.b!r} on {where}: {why}") from None


#: below this many human-labelled items a prediction-powered rank test is warned about
FEW_LABELS = 100


def _few_labels_warning(where: str, test: str, human: np.ndarray, has: np.ndarray,
                        ia: np.ndarray, ib: np.ndarray) -> None:
    """Warn when a pair has fewer than :data:`FEW_LABELS` items with both human scores and the
    test is one the null simulation found too liberal there (benchmarks/ppi_rank_null.py,
    2,000 replicates per cell, α = 5 %, biased judges): ``ppi sign`` (6.2–8.2 % at 30 labels,
    5.0–6.2 % at 100) and ``ppi wilcoxon`` on 0/1 human scores (7.5 % at 30, 5.0 % at 100);
    ``ppi wilcoxon`` on graded scores held 4.1–5.5 % at 30 labels."""
    n_lab = int((has[ia] & has[ib]).sum(axis=1).min()) if ia.size else FEW_LABELS
    if n_lab >= FEW_LABELS:
        return
    binary = bool(np.isin(human[has], (0.0, 1.0)).all())
    if test == "sign":
        rate = "6.2–8.2 % at 30 labels, 5.0–6.2 % at 100"
    elif binary:
        rate = "7.5 % at 30 labels with 0/1 human scores, 5.0 % at 100"
    else:
        return
    warnings.warn(f"{where}: the prediction-powered {test} test has {n_lab} human-labelled "
                  f"items for a pair; with fewer than {FEW_LABELS} it rejects a true null too "
                  f"often (measured at α = 5 % under biased judges: {rate}; "
                  "benchmarks/ppi_rank_null.py): label more items, or read its p-values as "
                  "optimistic", UserWarning, stacklevel=2)


def ppi_rank_sentence(table: pd.DataFrame) -> str | None:
    """What a comparison's prediction-powered rank rows estimate, in words (the comparison
    report prints it under the table); None when it has none."""
    if "test" not in table or not len(table):
        return None
    used = set(table["test"].astype(str))
    parts = []
    if PPI_RANK_NAMES["wilcoxon"] in used:
        parts.append("`ppi wilcoxon` rows estimate θ = P(W > 0) + ½·P(W = 0) − ½ for W the "
                     "average of two items' human differences A−B (0: no difference; range "
                     "−½ … ½), from the judge's Walsh-average signed-rank statistic on every "
                     "item corrected by the items with human scores (prediction-powered, t on "
                     "n − 1 labelled items' df)")
    if PPI_RANK_NAMES["sign"] in used:
        parts.append("`ppi sign` rows estimate θ = P(human A > B) − P(human A < B) (range "
                     "−1 … 1), the judge's signs on every item corrected by the items with "
                     "human scores (prediction-powered z)")
    if not parts:
        return None
    return ("**Prediction-powered rank tests.** " + "; ".join(parts)
            + ". Their diff and interval are θ̂ and its interval, not a difference of means.")


#: how the leaderboard's per-system intervals of prediction-powered means are computed
PPI_MEAN_INTERVAL = ("prediction-powered (PPI++) interval of the mean human score (normal; "
                     "cluster-robust t for clustered items: CR2 with Bell–McCaffrey df, or CR1 "
                     "on C − 1 df as cse says)")


def ppi_intervals(scores: Scores, means: pd.DataFrame, level: float,
                  cluster_se: str = "CR2") -> pd.DataFrame:
    """Each system's PPI++ mean of ``means`` (``dataset, metric, system``) with its normal
    interval at ``level`` (:func:`ranger_eval.ppi_mean`; with clusters the cluster-robust t
    interval of ``cluster_se``): the leaderboard's brackets around the means that ``compare``
    reports for judge scores with human scores."""
    groups = align_groups(scores, None)
    found: dict[tuple[str, str, str], tuple[float, float]] = {}
    wanted = {(str(d), str(m)) for d, m in means[["dataset", "metric"]].itertuples(index=False)}
    keep = [g for g in groups if (str(g.dataset), str(g.metric)) in wanted]
    for g, human in zip(keep, human_matrices(scores, keep), strict=True):
        gc = group_clusters(scores, g)
        _, _, lo, hi = _system_rows(g, human, None if gc is None else gc.codes,
                                    cluster_se).test("two-sided", level)
        for j, s in enumerate(g.names):
            found[(str(g.dataset), str(g.metric), s)] = (float(lo[j]), float(hi[j]))
    rows = []
    for d, m, s in means[["dataset", "metric", "system"]].itertuples(index=False):
        lo_s, hi_s = found[(str(d), str(m), str(s))]
        rows.append({"dataset": d, "metric": m, "system": s, "ci_low": lo_s, "ci_high": hi_s})
    return pd.DataFrame(rows, columns=["dataset", "metric", "system", "ci_low", "ci_high"])
