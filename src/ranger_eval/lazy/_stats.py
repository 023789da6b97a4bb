"""Classical tests, effect sizes and their merge rules from per-pair sufficient statistics.

Every function here reproduces, from a handful of sums, the number the in-memory path computes
from the per-item vectors (:mod:`ranger_eval.stats`, :mod:`ranger_eval.effects`), up to
floating-point summation order.

Sufficient statistics of one sample x_1..x_n: n, S = Σx, the centred second moment
M2 = Σ(x − x̄)², min and max; of two aligned samples additionally the co-moment
C = Σ(a − ā)(b − b̄). They merge exactly across chunks that partition the items (Chan, Golub &
LeVeque 1979, "Updating formulae and a pairwise algorithm for computing sample variances")::

    n = n1 + n2,  S = S1 + S2,  δ = S2/n2 − S1/n1
    M2 = M2_1 + M2_2 + δ² n1 n2 / n
    C  = C_1 + C_2 + δ_a δ_b n1 n2 / n
    min = min(min1, min2),  max = max(max1, max2),  counts add.

The raw power sums (n, Σx, Σx², Σab) merge by plain addition and give the same numbers
(M2 = Σx² − S²/n); the centred form avoids the cancellation of that subtraction.

Extreme magnitudes. Sums of squares of scores beyond about 1e154 overflow float64 and those of
scores below about 1e-154 underflow to 0. So each row also carries ``scale``, an integer e: the
row's statistics are those of the scores times 2^-e, i.e. the values are

    Σx, min, max, Σ|d| (locations) = column · 2^e,   M2, C (second moments) = column · 4^e.

e is 0 (the plain float64 statistics, bit for bit) when the largest |score| of the pair's two
systems in the group lies in the safe range [2^-100, 2^100] of :mod:`ranger_eval.stats._scale`,
the rule the in-memory tests rescale by; otherwise it is the binary exponent of that largest
|score| (``numpy.frexp``), so the scaled scores lie below 1 in magnitude. Multiplying by a power
of two is exact, so a scaled row holds the statistics of the exact scores, which the plain
float64 sums could not (``inf``, or 0 for a non-zero variance). :func:`merge_statistics` brings
its parts to a common scale (the largest of the parts' ``scale``).
"""
from __future__ import annotations

import math

import numpy as np
import pandas as pd

__all__ = ["LOCATION_COLUMNS", "MOMENT_COLUMNS", "PAIR_COLUMNS", "SYSTEM_FIELDS",
           "merge_statistics"]

#: Per-system fields, suffixed ``_a``/``_b`` in the pair table.
SYSTEM_FIELDS: tuple[str, ...] = ("n", "sum", "m2", "min", "max", "nonbinary")

#: Columns of :meth:`LazyScores.sufficient_statistics`, in order. ``n``…``m2_ab`` are over the
#: items both systems scored (d = a − b); the ``_a``/``_b`` columns over each system's own items.
PAIR_COLUMNS: tuple[str, ...] = (
    "dataset", "metric", "system_a", "system_b",
    "n", "sum_d", "m2_d", "min_d", "max_d", "sum_abs_d", "sum_pa", "sum_pb", "m2_pa", "m2_pb",
    "m2_ab",
    *(f"{f}_a" for f in SYSTEM_FIELDS), *(f"{f}_b" for f in SYSTEM_FIELDS), "scale",
)
#: Columns in units of the scores (true value = column · 2^scale) and second moments
#: (column · 4^scale); n and the counts do not scale.
LOCATION_COLUMNS: tuple[str, ...] = ("sum_d", "min_d", "max_d", "sum_abs_d", "sum_pa", "sum_pb",
                                     "sum_a", "min_a", "max_a", "sum_b", "min_b", "max_b")
MOMENT_COLUMNS: tuple[str, ...] = ("m2_d", "m2_pa", "m2_pb", "m2_ab", "m2_a", "m2_b")

KEY = ["dataset", "metric", "system_a", "system_b"]


def _merge_moment(n1: np.ndarray, s1: np.ndarray, m1: np.ndarray,
                  n2: np.ndarray, s2: np.ndarray, m2: np.ndarray) -> np.ndarray:
    n = n1 + n2
    with np.errstate(invalid="ignore", divide="ignore"):
        delta = np.where((n1 > 0) & (n2 > 0), s2 / np.maximum(n2, 1) - s1 / np.maximum(n1, 1), 0.0)
        return np.asarray(m1 + m2 + delta * delta * n1 * n2 / np.maximum(n, 1))


def _merge_two(x: pd.DataFrame, y: pd.DataFrame) -> pd.DataFrame:
    out = x.copy()
    n1, n2 = x["n"].to_numpy(float), y["n"].to_numpy(float)
    out["m2_d"] = _merge_moment(n1, x["sum_d"].to_numpy(float), x["m2_d"].to_numpy(float),
                                n2, y["sum_d"].to_numpy(float), y["m2_d"].to_numpy(float))
    for side in ("a", "b"):
        out[f"m2_p{side}"] = _merge_moment(n1, x[f"sum_p{side}"].to_numpy(float),
                                           x[f"m2_p{side}"].to_numpy(float), n2,
                                           y[f"sum_p{side}"].to_numpy(float),
                                           y[f"m2_p{side}"].to_numpy(float))
        ns1, ns2 = x[f"n_{side}"].to_numpy(float), y[f"n_{side}"].to_numpy(float)
        out[f"m2_{side}"] = _merge_moment(ns1, x[f"sum_{side}"].to_numpy(float),
                                          x[f"m2_{side}"].to_numpy(float), ns2,
                                          y[f"sum_{side}"].to_numpy(float),
                                          y[f"m2_{side}"].to_numpy(float))
        out[f"min_{side}"] = np.fmin(x[f"min_{side}"], y[f"min_{side}"])
        out[f"max_{side}"] = np.fmax(x[f"max_{side}"], y[f"max_{side}"])
        for f in ("n", "sum", "nonbinary"):
            out[f"{f}_{side}"] = x[f"{f}_{side}"] + y[f"{f}_{side}"]
    n = n1 + n2
    with np.errstate(invalid="ignore", divide="ignore"):
        both = (n1 > 0) & (n2 > 0)
        da = np.where(both, y["sum_pa"] / np.maximum(n2, 1) - x["sum_pa"] / np.maximum(n1, 1), 0.0)
        db = np.where(both, y["sum_pb"] / np.maximum(n2, 1) - x["sum_pb"] / np.maximum(n1, 1), 0.0)
    out["m2_ab"] = x["m2_ab"] + y["m2_ab"] + da * db * n1 * n2 / np.maximum(n, 1)
    out["min_d"] = np.fmin(x["min_d"], y["min_d"])
    out["max_d"] = np.fmax(x["max_d"], y["max_d"])
    for f in ("n", "sum_d", "sum_abs_d", "sum_pa", "sum_pb"):
        out[f] = x[f] + y[f]
    return out


def merge_statistics(parts: list[pd.DataFrame]) -> pd.DataFrame:
    """Merge sufficient-statistic tables computed on chunks that partition the items.

    Each part has the columns :data:`PAIR_COLUMNS` (e.g. ``LazyScores.sufficient_statistics()``
    of one file, or of one worker of a distributed engine); every item must lie in one chunk
    only, with all its systems. Formulas in the module docstring; a pair missing from a part
    counts as n = 0 there. Parts of different ``scale`` are first brought to the largest scale
    of the parts holding the row (exact powers of two: location columns times 2^(e_i − e),
    second moments times 4^(e_i − e)); the result carries that scale.

    Parameters
    ----------
    parts : list of pandas.DataFrame
        Sufficient-statistic tables (columns :data:`PAIR_COLUMNS`) of disjoint item chunks.

    Returns
    -------
    pandas.DataFrame
        One row per dataset × metric × pair: the statistics of all the items.

    Raises
    ------
    ValueError
        No parts.

    References
    ----------
    Chan, T. F., Golub, G. H. and LeVeque, R. J. (1979), "Updating formulae and a pairwise
    algorithm for computing sample variances", Stanford report STAN-CS-79-773 (merging second
    moments).

    Examples
    --------
    >>> import tempfile
    >>> import pandas as pd
    >>> from ranger_eval import open_scores
    >>> from ranger_eval.lazy._stats import merge_statistics
    >>> folder = tempfile.TemporaryDirectory()
    >>> table = pd.DataFrame({"dataset": "qa", "system": ["a"] * 4 + ["b"] * 4,
    ...                       "item": list("wxyz") * 2,
    ...                       "value": [0.9, 0.7, 0.8, 0.6, 0.7, 0.6, 0.8, 0.4]})
    >>> table.to_parquet(folder.name + "/all.parquet")
    >>> table[table["item"] < "y"].to_parquet(folder.name + "/part1.parquet")
    >>> table[table["item"] >= "y"].to_parquet(folder.name + "/part2.parquet")
    >>> parts = [open_scores(folder.name + f"/{name}.parquet").sufficient_statistics()
    ...          for name in ("part1", "part2")]
    >>> merged = merge_statistics(parts)
    >>> whole = open_scores(folder.name + "/all.parquet").sufficient_statistics()
    >>> columns = ["n", "sum_d", "m2_d"]
    >>> merged[columns].round(12).values.tolist() == whole[columns].round(12).values.tolist()
    True
    >>> [int(n) for n in merged["n"]], round(float(merged["sum_d"].iloc[0]), 4)
    ([4], 0.5)
    >>> folder.cleanup()
    """
    if not parts:
        raise ValueError("merge_statistics needs at least one table")
    keys = pd.concat([p[KEY] for p in parts], ignore_index=True).drop_duplicates()
    zero = {c: 0.0 for c in PAIR_COLUMNS if c not in KEY}
    for c in ("min_d", "max_d", "min_a", "max_a", "min_b", "max_b"):
        zero[c] = math.nan
    fulls = [keys.merge(p.assign(_here=True), on=KEY, how="left") for p in parts]
    scales = np.stack([np.where(f["_here"].notna().to_numpy(), f["scale"].to_numpy(float),
                                -np.inf) for f in fulls])
    common = scales.max(axis=0)
    acc: pd.DataFrame | None = None
    for f, e in zip(fulls, scales, strict=True):
        full = f.drop(columns="_here").fillna(zero)
        shift = np.where(np.isfinite(e), e - common, 0.0).astype(np.int64)
        if shift.any():
            for c in LOCATION_COLUMNS:
                full[c] = np.ldexp(full[c].to_numpy(float), shift)
            for c in MOMENT_COLUMNS:
                full[c] = np.ldexp(full[c].to_numpy(float), 2 * shift)
        acc = full if acc is None else _merge_two(acc, full)
    assert acc is not None
    acc["scale"] = common
    for c in ("n", "n_a", "n_b", "nonbinary_a", "nonbinary_b", "scale"):
        acc[c] = acc[c].astype(np.int64)
    return acc[list(PAIR_COLUMNS)].reset_index(drop=True)
