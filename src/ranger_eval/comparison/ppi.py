""":func:`compare` on judge scores with human scores: prediction-powered tests (issue 20 §3).

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
standard error give two one-sided z tests against the margins (``_margin_z``: equivalence
p = max(P(Z ≥ (θ̂ + m)/se), P(Z ≤ (θ̂ − m)/se)) with the 1 − 2α interval; non-inferiority the one
side of the metric's direction), i.e. ``ppi_py.ppi_mean_pval`` with ``null=∓m`` and a one-sided
alternative.

The PPI variance assumes independent items, so clustered scores with human scores are an error
(no cluster-robust PPI yet), as are tests other than ``auto``, unpaired pairs,
``correction="westfall-young"`` and set-level metrics: each would silently test the judge
instead of the humans. A ``human_value`` column without a
single human score changes nothing (there is nothing to correct the judge with).
"""
from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd
from scipy import special

from ..errors import CompareError
from ..scores import HUMAN_VALUE, Scores
from ..stats import effect_label
from ..stats.judged import JudgedItems, align_pair, checked_ppi, has_human_scores, judged_items

__all__ = ["PPI_INTERVAL", "PPI_MEAN_INTERVAL", "PPI_TEST", "has_human_scores", "ppi_intervals",
           "ppi_tables"]

#: the ``test`` of a prediction-powered row, and its interval's ``ci_method``
PPI_TEST = "ppi++"
PPI_INTERVAL = "prediction-powered z"


def _refuse(scores: Scores, *, test: str, correction: str, set_metrics: bool) -> None:
    why = None
    if getattr(scores, "has_cluster", False):
        why = ("the scores also have a cluster column, and the prediction-powered variance "
               "assumes independent items (no cluster-robust PPI yet)")
    elif test != "auto":
        why = (f"test={test!r} would test the judge's scores; with human scores compare runs the "
               f"prediction-powered z test (leave test='auto')")
    elif correction == "westfall-young":
        why = "correction='westfall-young' resamples the judge's scores"
    elif set_metrics:
        why = "a set-level metric (metric_fn) is not a mean of per-item human scores"
    if why is not None:
        raise CompareError(
            f"the scores have human scores (column {HUMAN_VALUE!r}), so compare corrects the "
            f"judge's scores by prediction-powered inference, but {why}; to test the judge's "
            f"scores as they are, drop the {HUMAN_VALUE!r} column")


def _sided(estimate: float, se: float, alternative: str, level: float) -> tuple[float, float,
                                                                                float]:
    """(p-value, ci_low, ci_high) of the normal test of θ = 0 and its interval at ``level``."""
    if se > 0.0:
        z = estimate / se
    else:
        z = 0.0 if estimate == 0.0 else math.copysign(math.inf, estimate)
    if alternative == "greater":
        q = float(-special.ndtri(1.0 - level))
        return float(special.ndtr(-z)), estimate - q * se, math.inf
    if alternative == "less":
        q = float(-special.ndtri(1.0 - level))
        return float(special.ndtr(z)), -math.inf, estimate + q * se
    q = float(-special.ndtri((1.0 - level) / 2.0))
    return float(2.0 * special.ndtr(-abs(z))), estimate - q * se, estimate + q * se


def _margin_z(estimate: float, se: float, hypothesis: str, margin: float, higher_is_better: bool,
              level: float) -> tuple[float, float, float, float]:
    """(statistic, p-value, ci_low, ci_high) of the prediction-powered estimate against the
    margins: two one-sided z tests (:func:`ranger_eval.stats.equivalence.t_margin_tests` on
    infinite df). Equivalence: H0 |θ| ≥ m, p the larger of P(Z ≥ (θ̂ + m)/se) and
    P(Z ≤ (θ̂ − m)/se), interval θ̂ ± z_level · se (the 1 − 2α interval); non-inferiority of
    system_a: H0 θ ≤ −m (higher is better) or θ ≥ m (lower is better), the one finite side."""
    from ..stats.equivalence import t_margin_tests

    if hypothesis == "equivalence":
        low, upp = -margin, margin
    else:
        low, upp = (-margin, math.inf) if higher_is_better else (-math.inf, margin)
    r = t_margin_tests([estimate], [se], [math.inf], low=low, upp=upp, level=level)
    return (float(r.statistic[0]), float(r.pvalue[0]), float(r.ci_low[0]),
            float(r.ci_high[0]))


def ppi_tables(table: pd.DataFrame, mean_rows: list[dict[str, Any]], scores: Scores, *,
               test: str, alternative: str, level: float, hypothesis: str, correction: str,
               set_metrics: bool, margin: float | None = None,
               directions: Mapping[tuple[str, str], bool] | None = None,
               ) -> tuple[pd.DataFrame, list[dict[str, Any]]]:
    """``compare``'s table and per-system means with every pair tested by PPI++ (module
    docstring); the other columns (n, seeds, paired) are kept."""
    _refuse(scores, test=test, correction=correction, set_metrics=set_metrics)
    cache: dict[tuple[str, str, str], JudgedItems] = {}

    def items(dataset: str, metric: str, system: str) -> JudgedItems:
        key = (dataset, metric, system)
        if key not in cache:
            cache[key] = judged_items(scores, dataset=dataset, metric=metric, system=system,
                                      error=CompareError)
        return cache[key]

    out = table.copy()
    for i, row in enumerate(table.itertuples(index=False)):
        dataset, metric, a, b = str(row.dataset), str(row.metric), str(row.system_a), str(row.system_b)
        where = f"dataset {dataset!r}, metric {metric!r}"
        if not row.paired:
            raise CompareError(
                f"{a!r} vs {b!r} on {where} is unpaired, and the prediction-powered test of "
                f"compare is for systems judged on the same items; pass paired=True (with "
                f"missing='intersect' if some items are missing) or drop the {HUMAN_VALUE!r} "
                f"column")
        pair = align_pair(items(dataset, metric, a), items(dataset, metric, b), treatment=a,
                          control=b, where=where, error=CompareError)
        lab = pair.labelled
        if int((~lab).sum()) < 2:
            raise CompareError(
                f"{a!r} vs {b!r} on {where}: {int(lab.sum())} of {lab.size} items have human "
                f"scores for both systems, leaving {int((~lab).sum())} judge-only item(s); "
                f"prediction-powered inference needs at least 2. With human scores everywhere, "
                f"test them directly: put them in 'value' and drop the {HUMAN_VALUE!r} column")
        res = pair.difference(what=f"the difference {a!r} − {b!r} on {where}", method="ppi++",
                              level=level, error=CompareError)
        mean_a, mean_b = pair.means_at(res.lam)
        h = pair.human_t[lab] - pair.human_c[lab]
        statistic = res.statistic
        if hypothesis == "superiority":
            pvalue, ci_low, ci_high = _sided(res.estimate, res.se, alternative, level)
        else:
            if margin is None:
                raise CompareError(f"hypothesis={hypothesis!r} needs a margin")
            higher = (directions or {}).get((dataset, metric), True)
            statistic, pvalue, ci_low, ci_high = _margin_z(res.estimate, res.se, hypothesis,
                                                           margin, higher, level)
        sd_h = float(np.std(h, ddof=1))
        if sd_h > 0.0:
            dz = res.estimate / sd_h
        else:
            dz = 0.0 if res.estimate == 0.0 else math.copysign(math.inf, res.estimate)
        updates = {
            "mean_a": mean_a, "mean_b": mean_b, "diff": res.estimate, "ci_low": ci_low,
            "ci_high": ci_high, "test": PPI_TEST, "statistic": statistic,
            "pvalue": pvalue, "effect_size": dz, "effect_size_name": "dz_ppi",
            "effect_label": str(effect_label(dz)), "ci_method": PPI_INTERVAL,
        }
        for column, value in updates.items():
            out.iat[i, out.columns.get_loc(column)] = value
    means = []
    for r in mean_rows:
        own = items(str(r["dataset"]), str(r["metric"]), str(r["system"]))
        lab = ~np.isnan(own.human)
        res = checked_ppi(own.human[lab], own.value[lab], own.value[~lab],
                          what=f"system {r['system']!r} on dataset {r['dataset']!r}, metric "
                               f"{r['metric']!r}",
                          method="ppi++", level=level, error=CompareError)
        means.append({**r, "mean": res.estimate})
    return out, means


#: how the leaderboard's per-system intervals of prediction-powered means are computed
PPI_MEAN_INTERVAL = "prediction-powered (PPI++) normal interval of the mean human score"


def ppi_intervals(scores: Scores, means: pd.DataFrame, level: float) -> pd.DataFrame:
    """Each system's PPI++ mean of ``means`` (``dataset, metric, system``) with its normal
    interval at ``level`` (:func:`ranger_eval.ppi_mean`): the leaderboard's brackets around the
    means that ``compare`` reports for judge scores with human scores."""
    rows = []
    for d, m, s in means[["dataset", "metric", "system"]].itertuples(index=False):
        own = judged_items(scores, dataset=str(d), metric=str(m), system=str(s),
                           error=CompareError)
        lab = ~np.isnan(own.human)
        res = checked_ppi(own.human[lab], own.value[lab], own.value[~lab],
                          what=f"system {s!r} on dataset {d!r}, metric {m!r}", method="ppi++",
                          level=level, error=CompareError)
        rows.append({"dataset": d, "metric": m, "system": s, "ci_low": res.ci_low,
                     "ci_high": res.ci_high})
    return pd.DataFrame(rows, columns=["dataset", "metric", "system", "ci_low", "ci_high"])
