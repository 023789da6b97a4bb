"""Multiplicity adjustment of comparison p-values within families of tests.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from ..stats import adjust_pvalues
from ..stats.multiplicity import _ALIASES, _CLOSED_FORM

# --------------------------------------------------------------------------- compare

def _adjust_families(out: np.ndarray, pvalues: np.ndarray, families: np.ndarray,
                     correction: str) -> bool:
    """``out[rows of f] = adjust_pvalues(pvalues[rows of f], correction)`` for every family f,
    with array operations: the families of one size m form one families × m matrix, adjusted
    row by row with the operations of :func:`ranger_eval.stats.multiplicity._closed_form`
    (Bonferroni, Šidák, Holm, Holm–Šídák, Simes–Hochberg, BH, BY, ``none``), so the values are
    those of the one-family call bit for bit. ``False`` (nothing written) for another method or
    an invalid p-value (the one-family call raises its error)."""
    key = _ALIASES.get(str(correction).lower(), str(correction).lower())
    if key != "none" and key not in _CLOSED_FORM:
        return False
    if not (np.isfinite(pvalues) & (pvalues >= 0.0) & (pvalues <= 1.0)).all():
        return False
    if key == "none":
        out[:] = pvalues
        return True
    rows = np.argsort(families, kind="stable")
    size = np.bincount(families)
    size_of_row = size[families[rows]]
    for m in np.unique(size[size > 0]).tolist():
        idx = rows[size_of_row == m].reshape(-1, m)  # one family per row, in row order
        p = pvalues[idx]
        with np.errstate(divide="ignore"):
            if key == "bonferroni":
                adj = p * m
            elif key == "sidak":
                adj = -np.expm1(m * np.log1p(-p))
            else:
                order = np.argsort(p, axis=1)
                q = np.take_along_axis(p, order, axis=1)
                if key == "holm":
                    a = np.maximum.accumulate(q * np.arange(m, 0, -1), axis=1)
                elif key == "holm-sidak":
                    a = np.maximum.accumulate(-np.expm1(np.arange(m, 0, -1) * np.log1p(-q)),
                                              axis=1)
                elif key == "simes-hochberg":
                    a = np.minimum.accumulate(((m - np.arange(m)) * q)[:, ::-1], axis=1)[:, ::-1]
                else:  # fdr_bh, fdr_by
                    factor = np.arange(1, m + 1) / float(m)
                    if key == "fdr_by":
                        factor = factor / np.sum(1.0 / np.arange(1, m + 1))
                    a = np.minimum.accumulate((q / factor)[:, ::-1], axis=1)[:, ::-1]
                adj = np.empty_like(a)
                np.put_along_axis(adj, order, np.minimum(a, 1.0), axis=1)
        out[idx] = np.minimum(adj, 1.0)
    return True


def adjust_by_family(table: pd.DataFrame, correction: str, family: str, level: float, *,
                     adjusted: np.ndarray | None = None) -> pd.DataFrame:
    """Fill ``pvalue_adjusted``, ``significant`` (adjusted p ≤ 1 − level) and ``paired`` (bool) of
    a comparison table, adjusting within each family of tests: every dataset × metric, every
    dataset, or all rows. ``adjusted`` gives the values when they come from the joint resampling
    null (Westfall–Young) instead of the p-values."""
    if adjusted is None:
        if family == "dataset-metric":
            key = table["dataset"].astype(str) + "\x1f" + table["metric"].astype(str)
        elif family == "dataset":
            key = table["dataset"].astype(str)
        else:
            key = pd.Series("all", index=table.index)
        adjusted = np.empty(len(table))
        pvalues = table["pvalue"].to_numpy()
        families = pd.factorize(key)[0]
        if not _adjust_families(adjusted, pvalues, families, correction):
            for idx in key.groupby(key, sort=False).indices.values():
                adjusted[idx] = np.asarray(adjust_pvalues(pvalues[idx], correction=correction,
                                                          level=level))
    table["pvalue_adjusted"] = adjusted
    table["significant"] = table["pvalue_adjusted"] <= 1.0 - level
    table["paired"] = table["paired"].astype(bool)
    return table
