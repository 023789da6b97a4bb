"""Variances beyond the measures' formulas: cluster-robust variances of clustered items, and
the datasets whose variance is zero.

Clustered items (a ``cluster`` column)
--------------------------------------
Items in clusters (several questions about one passage) are not independent, so the variance of
an effect must come from the clusters (Cameron & Miller 2015). For every dataset
whose C clusters do not each hold a single item (:func:`cluster_robust_variances`):

* ``"MD"``: vi = the CR1 cluster-robust variance of mean(d),
  V_CR1 = C/(C − 1) · sum_k (S_k − m_k · mean(d))² / n², S_k the sum of d over cluster k of m_k
  items — exactly ``sandwich::vcovCL(lm(d ~ 1), type = "HC1")`` (and the clustered paired test
  of ``compare``); with one item per cluster it is sd(d)²/n, the unclustered vi.
* ``"SMD"``, ``"SMCC"``, ``"SMCR"``: the measure's variance times the estimated design effect
  deff = V_CR1 / (sd(d)²/n) (Kish 1965). Derivation for SMD (Borenstein eq. 4.28): its first
  term 2(1 − r)/n = (sd(d)²/n)/S_within² is the variance of mean(d) over S_within², which
  becomes V_CR1/S_within² = deff · 2(1 − r)/n exactly; the second term d'²/(2n) · 2(1 − r), the
  variance contributed by the estimated standardiser, is inflated by the same deff, the usual
  first-order approximation for a variance estimated from clustered data (Hedges 2007, J. Educ.
  Behav. Stat. 32:341, where both terms grow with the design effect). SMCC and SMCR
  (change-score / raw-score standardisation) have the same two-term form and take the same
  factor. A strongly clustered dataset therefore gets a larger vi and less weight in the
  meta-analysis.
* ``"ZCOR"`` has no cluster-robust variance here: an :class:`EffectSizeError` names the dataset.
* A dataset whose items all lie in one cluster has no cluster-robust variance (C − 1 = 0): an
  :class:`EffectSizeError` names it. Seeds and set-level metrics (the bootstrap) with clusters
  of several items are refused the same way, never treated as independent items.

Set-level metrics (paired bootstrap)
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from ..errors import EffectSizeError

if TYPE_CHECKING:
    from ..scores import PairedTable
    from .results import EffectSizes


def zero_variance_reasons(eff: EffectSizes) -> dict[str, str]:
    """Dataset → why its sampling variance is 0, for every dataset of ``eff`` with ``vi == 0``:
    identical systems (yi = 0: the two systems score every item alike) or, for MD and set-level
    metrics, the same non-zero difference on every item. A meta-analysis weights by 1/vi, so it
    cannot use them (:func:`effect_sizes` with ``degenerate="drop"`` leaves them out).

    Parameters
    ----------
    eff : EffectSizes
        Per-dataset effects.

    Returns
    -------
    dict of str to str
        Dataset name → reason, for the datasets with ``vi == 0`` only, in ``eff`` order.

    Examples
    --------
    >>> import numpy as np
    >>> from ranger_eval.effects import EffectSizes, zero_variance_reasons
    >>> eff = EffectSizes(names=("d1", "d2", "d3"), yi=np.array([0.0, 0.1, 0.05]),
    ...                   vi=np.array([0.0, 0.0, 0.001]), n=np.array([4, 4, 4]), measure="MD",
    ...                   mean_treatment=np.array([0.5, 0.6, 0.55]),
    ...                   mean_control=np.array([0.5, 0.5, 0.5]))
    >>> for name, why in zero_variance_reasons(eff).items():
    ...     print(name, "-", why)
    d1 - identical systems: zero variance
    d2 - treatment − control is 0.1 on every item: zero variance
    """
    return _zero_reasons(eff.names, eff.yi, eff.vi)


def _zero_reasons(names: Sequence[str], yi: np.ndarray, vi: np.ndarray) -> dict[str, str]:
    return {names[i]: "identical systems: zero variance" if yi[i] == 0.0 else
            f"treatment − control is {float(yi[i]):.6g} on every item: zero variance"
            for i in np.flatnonzero(vi == 0.0).tolist()}



def cluster_robust_variances(table: PairedTable, measure: str, vi: np.ndarray) -> np.ndarray:
    """``vi`` of every dataset of ``table`` made cluster-robust (see the module docstring).

    MD takes V_CR1 = C/(C − 1) · sum_k (S_k − m_k · mean(d))² / n²; SMD, SMCC and SMCR take
    their variance times deff = V_CR1 / (sd(d)²/n). Datasets whose clusters each hold one item
    keep ``vi`` unchanged (bit for bit); one cluster, or ZCOR with clusters, raises
    :class:`EffectSizeError` naming the dataset.

    Parameters
    ----------
    table : PairedTable
        The two systems' paired values on every dataset (:meth:`Scores.pair_all`), with the
        items' ``clusters`` (none: ``vi`` is returned unchanged).
    measure : str
        The effect measure: ``"MD"``, ``"SMD"``, ``"SMCC"``, ``"SMCR"`` or ``"ZCOR"``.
    vi : ndarray
        The measure's plain sampling variance of each dataset, in ``table.datasets`` order.

    Returns
    -------
    ndarray
        A new float64 array: the cluster-robust variance of each clustered dataset, ``vi`` for
        the others.

    Raises
    ------
    EffectSizeError
        A clustered dataset with a single cluster, or measure ZCOR with clusters.

    References
    ----------
    Cameron & Miller (2015), "A practitioner's guide to cluster-robust inference", Journal of
    Human Resources 50(2):317–372. Kish (1965), *Survey Sampling* (the design effect).

    Examples
    --------
    Three passages of two questions each; the differences agree within a passage, so the
    cluster-robust variance of the mean difference exceeds the plain one:

    >>> import numpy as np
    >>> import pandas as pd
    >>> import ranger_eval as rg
    >>> from ranger_eval.effects import cluster_robust_variances
    >>> scores = rg.Scores(pd.DataFrame({
    ...     "dataset": "d", "metric": "acc", "system": ["A"] * 6 + ["B"] * 6,
    ...     "item": list(range(6)) * 2, "cluster": ["p1", "p1", "p2", "p2", "p3", "p3"] * 2,
    ...     "value": [0.2, 0.4, 0.5, 0.3, 0.6, 0.9, 0.3, 0.55, 0.5, 0.35, 0.9, 1.15]}))
    >>> table = scores.pair_all("B", "A")
    >>> d = table.treatment - table.control
    >>> vi = np.array([d.var(ddof=1) / d.size])
    >>> round(float(vi[0]), 6), round(float(cluster_robust_variances(table, "MD", vi)[0]), 6)
    (0.002236, 0.005278)
    """
    codes = table.clusters
    out = np.array(vi, dtype=np.float64)
    if codes is None or not len(table.datasets):
        return out
    n = np.diff(table.offsets)
    k = n.size
    starts = table.offsets[:-1]
    nf = n.astype(np.float64)
    d = table.treatment - table.control
    ds_of_row = np.repeat(np.arange(k), n)
    mean_d = np.add.reduceat(d, starts) / nf
    dev = d - mean_d[ds_of_row]
    naive = np.add.reduceat(dev * dev, starts) / (nf - 1.0) / nf  # sd(d)² / n
    uniq, inv = np.unique(codes, return_inverse=True)
    s = np.bincount(inv, weights=dev, minlength=uniq.size)
    ds_of_cluster = np.empty(uniq.size, dtype=np.intp)
    ds_of_cluster[inv] = ds_of_row
    n_cl = np.bincount(ds_of_cluster, minlength=k)
    meat = np.bincount(ds_of_cluster, weights=s * s, minlength=k)
    clustered = n_cl < n
    for i in np.flatnonzero(clustered & (n_cl < 2)).tolist():
        raise EffectSizeError(
            f"dataset {table.datasets[i]!r}: all {int(n[i])} items are in one cluster; a "
            "cluster-robust variance needs at least 2 clusters (the items are one dependent "
            "unit)")
    if measure == "ZCOR" and clustered.any():
        i = int(np.flatnonzero(clustered)[0])
        raise EffectSizeError(
            f"dataset {table.datasets[i]!r}: measure ZCOR has no cluster-robust variance "
            f"({int(n_cl[i])} clusters of {int(n[i])} items); use measure 'MD' or 'SMD', whose "
            "variances come from the clusters")
    with np.errstate(divide="ignore", invalid="ignore"):
        v_cr = n_cl / (n_cl - 1.0) * meat / (nf * nf)
        if measure == "MD":
            new = v_cr
        else:
            new = out * np.where(naive > 0.0, v_cr / naive, 1.0)
    return np.where(clustered & np.isfinite(out), new, out)

