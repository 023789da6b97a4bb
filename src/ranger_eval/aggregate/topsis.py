"""TOPSIS closeness coefficients and a Kendall τ to compare rankings (Ackerman et al. 2025, §7.4).

Hwang, C. L. & Yoon, K. (1981). Multiple Attribute Decision Making, pp. 128–134 (TOPSIS).

For a matrix ``x_ij`` of m alternatives (rows) × n criteria (columns) with weights ``w_j``:

1. normalise each column: ``"vector"``: ``r_ij = x_ij / sqrt(Σ_i x_ij²)``; ``"minmax"``:
   ``r_ij = (x_ij − min_i x_ij) / (max_i x_ij − min_i x_ij)``;
2. weight: ``v_ij = w_j r_ij``;
3. ideal ``v⁺_j`` = best of column j (max for a benefit criterion, min for a cost criterion) and
   anti-ideal ``v⁻_j`` = worst;
4. distances ``D⁺_i = ||v_i − v⁺||₂``, ``D⁻_i = ||v_i − v⁻||₂``;
5. closeness ``C_i = D⁻_i / (D⁺_i + D⁻_i)`` ∈ [0, 1]; larger is better.

pymcdm (``pymcdm.methods.TOPSIS``, used by the IBM paper) instead flips a cost column inside the
normalisation (``1 − r`` for vector, ``(max − x)/(max − min)`` for minmax) and then takes column
max/min as ideal/anti-ideal: the distances, hence ``C_i``, are the same. A column that is constant
(or all zero under vector normalisation) separates no alternatives and contributes nothing
(pymcdm: ones for a constant minmax column; NaN for an all-zero vector column). Weights need not
sum to 1: ``C_i`` is invariant to scaling all weights.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from .._frames import as_frame, float_values
from .._lazymodule import lazy_module
from ..errors import AggregateError, check_choice

stats = lazy_module("scipy.stats")  # imported on first use: it is slow to import

__all__ = ["NORMALIZATIONS", "KendallTau", "kendall_tau", "topsis"]

NORMALIZATIONS: tuple[str, ...] = ("vector", "minmax")


def _per_criterion(
    name: str, value: object, criteria: Sequence[str], *, kind: str
) -> np.ndarray:
    """A dict keyed by criterion or a sequence in column order → an array in column order."""
    n = len(criteria)
    if kind == "bool" and isinstance(value, (bool, np.bool_)):
        return np.full(n, bool(value))
    if isinstance(value, Mapping):
        keys = {str(k): v for k, v in value.items()}
        missing = [c for c in criteria if c not in keys]
        extra = [k for k in keys if k not in criteria]
        if missing or extra:
            parts = []
            if missing:
                parts.append(f"missing criteria {', '.join(map(repr, missing))}")
            if extra:
                parts.append(f"unknown criteria {', '.join(map(repr, extra))}")
            raise AggregateError(
                f"{name} must have one entry per criterion (column) {list(criteria)}: "
                + "; ".join(parts)
            )
        items = [keys[c] for c in criteria]
    elif isinstance(value, (str, bytes)) or not isinstance(
        value, (Sequence, np.ndarray, pd.Series)
    ):
        accepted = "a dict keyed by criterion, a sequence in column order"
        if kind == "bool":
            accepted += " or a single True/False"
        raise AggregateError(f"{name} must be {accepted}; got {value!r}")
    else:
        items = list(value)
        if len(items) != n:
            raise AggregateError(
                f"{name} must have one value per criterion ({n}: {list(criteria)}); "
                f"got {len(items)}"
            )
    if kind == "bool":
        for c, v in zip(criteria, items, strict=True):
            if not isinstance(v, (bool, np.bool_)):
                raise AggregateError(f"{name}[{c!r}] must be True or False; got {v!r}")
        return np.array(items, dtype=bool)
    out = np.empty(n)
    for j, (c, v) in enumerate(zip(criteria, items, strict=True)):
        try:
            out[j] = float(v)
        except (TypeError, ValueError):
            raise AggregateError(f"{name}[{c!r}] must be a number; got {v!r}") from None
        if not (np.isfinite(out[j]) and out[j] >= 0):
            raise AggregateError(f"{name}[{c!r}] must be finite and non-negative; got {v!r}")
    return out


def topsis(
    matrix: pd.DataFrame,
    *,
    weights: Mapping[str, float] | Sequence[float],
    higher_is_better: Mapping[str, bool] | Sequence[bool] | bool,
    normalization: str = "vector",
) -> pd.Series:
    """TOPSIS closeness coefficient of each alternative (Hwang & Yoon 1981).

    Parameters
    ----------
    matrix
        Alternatives (e.g. systems) in rows, criteria (e.g. metrics) in columns, finite numbers:
        any table and number dtype the Python API reads (docs/api-inputs.md: pandas, Arrow,
        polars, structured arrays, dicts of columns; nullable, categorical or text numbers,
        booleans as 0/1).
    weights
        Non-negative weight of each criterion (dict keyed by column name, or a sequence in column
        order), not all zero; only their ratios matter.
    higher_is_better
        Per criterion (dict or sequence), or one bool for all: ``True`` for a benefit criterion,
        ``False`` for a cost criterion.
    normalization
        ``"vector"`` (Hwang & Yoon's, the default) or ``"minmax"`` (pymcdm's default).

    Returns a ``pd.Series`` named ``"topsis"`` indexed like ``matrix`` (input order) with values in
    [0, 1], larger is better. The formula is in the module docstring. All alternatives equal on
    every weighted criterion leaves the closeness undefined (0/0): an error.

    Returns
    -------
    pandas.Series
        Closeness in [0, 1] per alternative (larger is better), named ``"topsis"``.

    Raises
    ------
    AggregateError
        Non-finite values, bad weights or directions, or an undefined closeness.

    References
    ----------
    Hwang, C.-L. & Yoon, K. (1981), *Multiple Attribute Decision Making: Methods and
    Applications*, Springer.

    Examples
    --------
    >>> import pandas as pd
    >>> import ranger_eval as rg
    >>> m = pd.DataFrame({"acc": [.8, .7, .6], "latency": [120, 80, 60]}, index=["A", "B", "C"])
    >>> rg.topsis(m, weights={"acc": 2, "latency": 1},
    ...           higher_is_better={"acc": True, "latency": False}).round(4).to_dict()
    {'A': 0.4604, 'B': 0.5938, 'C': 0.5396}
    """
    matrix = as_frame(matrix, what="topsis (alternatives in rows, criteria in columns)",
                      error=AggregateError)
    normalization = check_choice("normalization", normalization, NORMALIZATIONS,
                                 error=AggregateError)
    m, n = matrix.shape
    if m < 1 or n < 1:
        raise AggregateError(
            f"matrix needs at least one alternative and one criterion; shape {matrix.shape}"
        )
    criteria = [str(c) for c in matrix.columns]
    if len(set(criteria)) != n:
        dup = sorted({c for c in criteria if criteria.count(c) > 1})
        raise AggregateError(f"duplicate criterion (column) name(s): {', '.join(map(repr, dup))}")
    dtypes = list(matrix.dtypes)
    plain = {dt: isinstance(dt, np.dtype) and dt.kind in "fiu" for dt in set(dtypes)}
    slow = [j for j, dt in enumerate(dtypes) if not plain[dt]]  # one check per distinct dtype
    if slow:
        x = np.empty((m, n))
        fast = [j for j, dt in enumerate(dtypes) if plain[dt]]
        x[:, fast] = matrix.iloc[:, fast].to_numpy(dtype=float)
    else:
        x = matrix.to_numpy(dtype=float)  # one block: no per-column indexing (300k criteria)
    if not slow and any(dt.kind in "iu" for dt in plain):  # ints beyond 2**53: float_values
        big = np.abs(x) >= 2.0**53
        slow = sorted(set(np.nonzero(big)[1].tolist()))
    for j in slow:  # the values rules of _frames.float_values (exact float64), per column
        c = criteria[j]
        values, cells = float_values(matrix.iloc[:, j])
        if cells is not None and cells.problem != "missing value":  # missing: named below
            raise AggregateError(
                f"criterion {c!r} is not numeric: {cells.problem} {cells.shown} for alternative "
                f"{matrix.index[cells.first]!r} (dtype {matrix.dtypes.iloc[j]}); TOPSIS needs "
                "numbers"
            )
        x[:, j] = values
    bad = ~np.isfinite(x)
    if bad.any():
        i, j = (int(v[0]) for v in np.nonzero(bad))
        raise AggregateError(
            f"missing or non-finite value {x[i, j]!r} for alternative {matrix.index[i]!r}, "
            f"criterion {criteria[j]!r}"
        )
    w = _per_criterion("weights", weights, criteria, kind="float")
    if not np.any(w > 0):
        raise AggregateError("weights are all zero: at least one criterion needs a positive weight")
    benefit = _per_criterion("higher_is_better", higher_is_better, criteria, kind="bool")
    return pd.Series(_closeness(x, w, benefit, normalization), index=matrix.index.copy(),
                     name="topsis")


def _closeness(x: np.ndarray, w: np.ndarray, benefit: np.ndarray,
               normalization: str = "vector") -> np.ndarray:
    """Steps 1–5 of the module docstring on a checked matrix ``x`` (alternatives × criteria,
    finite), weights ``w`` (finite, ≥ 0, not all 0) and directions ``benefit``; the closeness of
    each alternative. Ideal = anti-ideal for every alternative is an error."""
    if normalization == "vector":
        norm = np.sqrt(np.sum(x * x, axis=0))
        r = np.divide(x, norm, out=np.zeros_like(x), where=norm > 0)
    else:
        lo, hi = x.min(axis=0), x.max(axis=0)
        span = hi - lo
        r = np.divide(x - lo, span, out=np.zeros_like(x), where=span > 0)
    v = r * w
    best = np.where(benefit, v.max(axis=0), v.min(axis=0))
    worst = np.where(benefit, v.min(axis=0), v.max(axis=0))
    d_plus = np.sqrt(np.sum((v - best) ** 2, axis=1))
    d_minus = np.sqrt(np.sum((v - worst) ** 2, axis=1))
    total = d_plus + d_minus
    if np.any(total == 0):
        raise AggregateError(
            "TOPSIS closeness is undefined: all alternatives are equal on every weighted "
            "criterion (ideal = anti-ideal)"
        )
    return np.asarray(d_minus / total)


@dataclass(frozen=True)
class KendallTau:
    """Kendall's τ-b between two rankings (``scipy.stats.kendalltau``) over ``n`` shared items."""

    statistic: float
    pvalue: float
    n: int


def _as_scores(order: object, name: str) -> pd.Series:
    if isinstance(order, pd.Series):
        s = order.copy()
        s.index = [str(i) for i in s.index]
        vals = pd.to_numeric(s, errors="coerce")
        if vals.isna().any() or not np.all(np.isfinite(vals.to_numpy(dtype=float))):
            bad = s[vals.isna() | ~np.isfinite(vals.fillna(0).to_numpy(dtype=float))]
            raise AggregateError(
                f"{name} has a missing or non-numeric score {bad.iloc[0]!r} for {bad.index[0]!r}"
            )
        return vals.astype(float)
    if isinstance(order, (str, bytes)) or not isinstance(order, (Sequence, np.ndarray, pd.Index)):
        raise AggregateError(
            f"{name} must be a pd.Series of scores (higher = better) or a sequence of item names, "
            f"best first; got {type(order).__name__}"
        )
    names = [str(o) for o in order]
    return pd.Series(-np.arange(len(names), dtype=float), index=names)


def kendall_tau(order_a: object, order_b: object) -> KendallTau:
    """Kendall's τ-b between two rankings of the same items (e.g. TOPSIS vs another order).

    Each argument is either a ``pd.Series`` of scores indexed by item, read as *higher is
    better* (e.g. the output of :func:`topsis`; pass ``-rank_test.average_ranks`` for average
    ranks), or a sequence of item names, best first (e.g. ``rank_test.average_ranks.index``).
    Items are matched by name; both must rank the same items. τ and its p-value are
    ``scipy.stats.kendalltau`` (τ-b, ties allowed).

    Parameters
    ----------
    order_a, order_b : Series or sequence of str
        Scores indexed by item (higher is better) or item names best first; the same items.

    Returns
    -------
    KendallTau
        ``statistic`` τ-b in [-1, 1], its two-sided ``pvalue``, and ``n`` the number of items.

    Raises
    ------
    AggregateError
        An item listed twice, different items, fewer than 2 items, or an order that ties
        every item.

    References
    ----------
    Kendall (1938), "A new measure of rank correlation", Biometrika 30(1/2):81–93.

    Examples
    --------
    >>> from ranger_eval.aggregate.topsis import kendall_tau
    >>> k = kendall_tau(["a", "b", "c", "d"], ["a", "c", "b", "d"])
    >>> round(k.statistic, 4), round(k.pvalue, 4), k.n
    (0.6667, 0.3333, 4)
    """
    a = _as_scores(order_a, "order_a")
    b = _as_scores(order_b, "order_b")
    for label, s in (("order_a", a), ("order_b", b)):
        if s.index.duplicated().any():
            dup = s.index[s.index.duplicated()].unique()
            raise AggregateError(f"{label} lists item(s) twice: {', '.join(map(repr, dup))}")
    if set(a.index) != set(b.index):
        only_a = [i for i in a.index if i not in set(b.index)]
        only_b = [i for i in b.index if i not in set(a.index)]
        raise AggregateError(
            "order_a and order_b must rank the same items; only in order_a: "
            f"{only_a[:5]}, only in order_b: {only_b[:5]}"
        )
    if len(a) < 2:
        raise AggregateError(f"Kendall's τ needs at least 2 items; got {len(a)}")
    b = b.reindex(a.index)
    for label, s in (("order_a", a), ("order_b", b)):
        if s.nunique() < 2:
            raise AggregateError(f"{label} ties every item: Kendall's τ is undefined")
    res = stats.kendalltau(a.to_numpy(), b.to_numpy())
    return KendallTau(statistic=float(res.statistic), pvalue=float(res.pvalue), n=len(a))
