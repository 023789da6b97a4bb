"""Exact power-of-two rescaling of extreme scores, so that every test is scale invariant.

t, z, rank and resampling statistics and their p-values do not change when every score is
multiplied by the same constant c > 0; locations (means, differences, interval bounds,
Hodges–Lehmann estimates) are multiplied by c. In float64 they do change at the extremes: squares
of values below about 1e-154 underflow (scores × 1e-300 gave paired-t p = 0), squares above
about 1e154 overflow (p = 1 or NaN), and Welch's df uses fourth powers (it moved at 1e-150).

So, as :func:`ranger_eval.meta.fit._standardise` does for the meta-analysis, a test whose scores
lie outside the safe range ``SAFE_LO <= max|v| <= SAFE_HI`` runs on ``v · 2^-e`` with ``e`` the
binary exponent of ``max|v|`` (``numpy.frexp``), so the largest scaled magnitude is in
[0.5, 1). Multiplying by a power of two is exact (each scaled value has the same significand;
only values more than 2^1022 times smaller than the largest lose bits, as subnormals, a relative
change below 2^-1000 of the data's scale). Inside the safe range nothing is changed (``e = 0``),
so ordinary inputs keep scipy's numbers bit for bit. Why this range: a non-zero deviation from
a mean is at least one unit in the last place of max|v| (max|v| · 2^-53), so with
max|v| in [2^-100, 2^100] every deviation's fourth power (Welch's df) and every sum of squares
of up to 2^60 items stay normal floats.

Back-scaled locations that do not fit in float64 (``|value| · 2^e > 1.8e308``) raise
:class:`~ranger_eval.errors.StatsInputError` naming the quantity and its value
(:func:`unscale`), never ``inf`` by accident.
"""
from __future__ import annotations

import math

import numpy as np

from ..errors import StatsInputError

__all__ = ["SAFE_HI", "SAFE_LO", "exponent", "mean", "row_exponents", "scaled",
           "scaled_difference", "scaled_rows", "std", "unscale", "unscale_array"]

#: Largest magnitudes handled without rescaling: max|v| in [SAFE_LO, SAFE_HI] (see module doc).
SAFE_LO = math.ldexp(1.0, -100)
SAFE_HI = math.ldexp(1.0, 100)


def exponent(*arrays: np.ndarray) -> int:
    """``e`` such that ``max|v| · 2^-e`` is in [0.5, 1) over all ``arrays`` (finite floats), or 0
    when that maximum is 0 or already in the safe range [SAFE_LO, SAFE_HI]."""
    top = max((float(np.max(np.abs(a))) for a in arrays if a.size), default=0.0)
    if top == 0.0 or SAFE_LO <= top <= SAFE_HI:
        return 0
    return int(np.frexp(top)[1])


def row_exponents(*matrices: np.ndarray) -> np.ndarray:
    """Per row (matrices with the same number of rows), :func:`exponent` of the row's values
    in all ``matrices``."""
    top = np.max(np.stack([np.abs(m).max(axis=1) for m in matrices]), axis=0)
    safe = (top == 0.0) | ((top >= SAFE_LO) & (top <= SAFE_HI))
    return np.where(safe, 0, np.frexp(top)[1]).astype(np.int64)


def scaled_rows(e: np.ndarray, *matrices: np.ndarray) -> tuple[np.ndarray, ...]:
    """Each row ``r`` of ``matrices`` times ``2^-e[r]`` (the matrices themselves if all e = 0)."""
    if not e.any():
        return matrices
    return tuple(np.ldexp(m, -e[:, None]) for m in matrices)


def mean(v: np.ndarray) -> float:
    """mean(v) without overflow: ``v.mean()`` unless max|v| > 2^1000 (a sum could overflow),
    then the mean of v · 2^-e scaled back (always representable: |mean| <= max|v|)."""
    top = float(np.max(np.abs(v))) if v.size else 0.0
    if top <= math.ldexp(1.0, 1000):
        return float(v.mean())
    e = int(np.frexp(top)[1])
    return math.ldexp(float(np.ldexp(v, -e).mean()), e)


def std(v: np.ndarray, ddof: int = 1) -> float:
    """``v.std(ddof=ddof)`` computed on ``v · 2^-e`` (:func:`exponent`) and scaled back, so the
    squares neither underflow (values near 1e-300) nor overflow (near 1e300)."""
    e = exponent(v)
    if e == 0:
        return float(v.std(ddof=ddof))
    return unscale(float(np.ldexp(v, -e).std(ddof=ddof)), e, "standard deviation")


def scaled(e: int, *arrays: np.ndarray) -> tuple[np.ndarray, ...]:
    """``arrays`` times ``2^-e`` (exact; the arrays themselves when ``e = 0``)."""
    if e == 0:
        return arrays
    return tuple(np.ldexp(a, -e) for a in arrays)


def scaled_difference(x: np.ndarray, y: np.ndarray | None) -> tuple[np.ndarray, int]:
    """``(d', e)`` with ``x − y = d' · 2^e`` exactly (``y`` None: ``d = x``) and ``d'`` in the
    safe range. ``x − y`` is formed on ``x`` and ``y`` scaled by the exponent of their largest
    magnitude when it would overflow (1e308 − (−1e308)), so a difference beyond float64 is still
    tested (and only its back-scaled mean is refused, by :func:`unscale`)."""
    big = exponent(x) if y is None else exponent(x, y)
    if y is not None and big > 1000:  # |x| or |y| above 2^1000: x - y may overflow
        xs, ys = scaled(big, x, y)
        d = xs - ys
        e = exponent(d)
        return (scaled(e, d)[0] if e else d), e + big
    d = x if y is None else x - y
    e = exponent(d)
    return (scaled(e, d)[0] if e else d), e


def unscale(value: float, e: int, what: str) -> float:
    """``value · 2^e``, the location ``what`` back on the scores' scale; raises
    :class:`StatsInputError` naming ``what`` when it does not fit in float64 (±inf stays as is:
    a one-sided bound)."""
    if e == 0 or not math.isfinite(value):
        return value
    try:
        out = math.ldexp(value, e)
    except OverflowError:
        out = math.inf
    if math.isinf(out):
        raise StatsInputError(
            f"{what} is {value!r} × 2^{e} ≈ {_magnitude(value, e)}, beyond the float64 range "
            "(±1.8e308): rescale the scores (e.g. divide them by a power of ten)"
        )
    return out


def unscale_array(values: np.ndarray, e: np.ndarray | int, what: str) -> np.ndarray:
    """Element-wise :func:`unscale` (``e`` per element or one for all); the error names the
    first position that does not fit (in its text and as its ``row`` attribute)."""
    if np.all(np.asarray(e) == 0):
        return values
    with np.errstate(over="ignore"):
        out = np.ldexp(values, e)
    bad = np.isinf(out) & np.isfinite(values)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        ei = int(np.broadcast_to(np.asarray(e), values.shape)[i])
        try:
            unscale(float(values[i]), ei, f"{what} (row {i})")
        except StatsInputError as exc:
            exc.row = i  # type: ignore[attr-defined]  # callers may name the row's pair
            raise
    return out


def _magnitude(value: float, e: int) -> str:
    """Decimal magnitude of ``value · 2^e`` as text, for values beyond float64."""
    if value == 0.0:
        return "0"
    lg = math.log10(abs(value)) + e * math.log10(2.0)
    exp10 = math.floor(lg)
    return f"{'-' if value < 0 else ''}{10 ** (lg - exp10):.3f}e+{exp10}"
