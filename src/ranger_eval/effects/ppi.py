"""Effect sizes of judge scores with human scores (a ``human_value`` column): prediction-powered
(PPI++) mean differences of human scores, per dataset."""
from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from ..errors import EffectSizeError, Hint
from ..stats.judged import align_pair, has_human_scores, item_cluster_codes, judged_items
from .measures import canonical_measure
from .results import EffectSizes

if TYPE_CHECKING:
    from ..scores import Scores
    from ..settings import MetaSettings


def _judged(scores: Scores) -> bool:
    return has_human_scores(scores)


def _ppi_effects(scores: Scores, chosen: Sequence[str], *, treatment: str, control: str,
                 measure: str | None, metric: str | None, level: float,
                 settings: MetaSettings | None = None) -> EffectSizes:
    """Effect sizes of judge scores with human scores (a ``human_value`` column with at least
    one human score): per dataset, yi is the prediction-powered (PPI++) estimate of the mean
    paired difference of **human** scores, treatment − control, and vi its variance se²
    (Angelopoulos et al., Science 2023; Angelopoulos, Duchi & Zrnic 2023), exactly
    :func:`ranger_eval.ppi_mean_difference`::

        yi = λ · mean(D, unlabelled) + mean(H − λ · D, labelled)
        vi = λ² · σ̂²(D, unlabelled) / N + σ̂²(H − λ · D, labelled) / n

    with H = human(t) − human(c) on the n items where both have a human score, D = judge(t) −
    judge(c), N the other items, λ = Ĉov(H, D) / ((1 + n/N) · V̂ar(D)) clipped to [0, 1]. The
    means are the two systems' PPI means at that λ (their difference is yi). With a ``cluster``
    column vi is the cluster-robust (CR1) variance of the same estimate, from per-cluster sums
    of the labelled and unlabelled influence terms (:mod:`ranger_eval.stats.ppi`; as
    ``compare`` and ``ppi_mean_difference``), so a clustered dataset gets less weight. Only the
    raw difference (measure "MD", the default here) has this variance; standardised measures
    and set-level metrics are errors naming the dataset. The signature records ``ppi:ppi++``.
    """
    if measure is not None and canonical_measure(measure) != "MD":
        hint = Hint("measure", "MD")
        raise EffectSizeError(
            f"measure {measure!r}: the scores have human scores (column 'human_value'), so the "
            f"effect of each dataset is the prediction-powered mean difference of human scores, "
            f"which has a variance for the raw difference only; {hint.text} (or drop the "
            f"'human_value' column to standardise the judge's scores)", hints=[hint])
    table = scores.table
    yi, vi, n, mean_t, mean_c, metrics = [], [], [], [], [], []
    for name in chosen:
        here = [str(m) for m in pd.unique(table.loc[table["dataset"] == name, "metric"])]
        if metric is None and len(here) > 1:
            raise EffectSizeError(f"dataset {name!r} has {len(here)} metrics "
                                  f"({', '.join(here)}); pass metric=")
        m = metric if metric is not None else here[0]
        where = f"dataset {name!r} (metric {m!r})"
        t = judged_items(scores, dataset=name, metric=m, system=treatment,
                         error=EffectSizeError)
        c = judged_items(scores, dataset=name, metric=m, system=control, error=EffectSizeError)
        pair = align_pair(t, c, treatment=treatment, control=control, where=where,
                          error=EffectSizeError)
        res = pair.difference(what=f"the difference {treatment!r} − {control!r} on {where}",
                              method="ppi++", level=level, error=EffectSizeError,
                              clusters=item_cluster_codes(scores, name, t.items))
        mt, mc = pair.means_at(res.lam)
        yi.append(res.estimate)
        vi.append(res.se ** 2)
        n.append(pair.value_t.size)
        mean_t.append(mt)
        mean_c.append(mc)
        metrics.append(m)
    return EffectSizes(
        names=tuple(chosen), yi=np.asarray(yi), vi=np.asarray(vi), n=np.asarray(n, dtype=np.int64),
        measure="MD", mean_treatment=np.asarray(mean_t), mean_control=np.asarray(mean_c),
        treatment=treatment, control=control,
        metric=metric if metric is not None else (metrics[0] if len(set(metrics)) == 1 else None),
        level=level, metrics=tuple(metrics), samples=scores.samples_label, ppi="ppi++",
        cluster=scores.cluster_name if scores.has_cluster else None, settings=settings,
    )
