"""Input checks shared by the statistical tests: clear errors naming the argument and the value."""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from .. import errors
from ..errors import ALTERNATIVES, StatsInputError
from ._scale import scaled_difference

__all__ = ["ALTERNATIVES", "StatsInputError"]


def check_alternative(alternative: str) -> str:
    """Return ``alternative`` if it is one of :data:`ALTERNATIVES`, else raise naming the valid ones."""
    return errors.check_alternative(alternative, error=StatsInputError)


def check_choice(name: str, value: str, choices: Sequence[str]) -> str:
    """Return ``value`` if it is in ``choices``, else raise listing them."""
    return errors.check_choice(name, value, choices, error=StatsInputError)


def check_level(level: float) -> float:
    """Confidence level strictly between 0 and 1."""
    return errors.check_level(level, error=StatsInputError)


def check_n_resamples(n_resamples: int) -> int:
    """A positive integer number of resamples."""
    if isinstance(n_resamples, bool) or not isinstance(n_resamples, (int, np.integer)):
        raise StatsInputError(f"n_resamples must be a positive integer; got {n_resamples!r}")
    if n_resamples < 1:
        raise StatsInputError(f"n_resamples must be at least 1; got {n_resamples}")
    return int(n_resamples)


def check_batch(batch: int | None) -> int | None:
    """None (automatic) or a positive integer number of resamples per batch."""
    if batch is None:
        return None
    if isinstance(batch, bool) or not isinstance(batch, (int, np.integer)) or batch < 1:
        raise StatsInputError(f"batch must be None or a positive integer; got {batch!r}")
    return int(batch)


def check_seed(seed: int | None) -> int:
    """A non-negative integer seed; ``None`` draws fresh OS entropy (returned, so it can be reported)."""
    if seed is None:
        return int(np.random.SeedSequence().entropy)  # type: ignore[arg-type]
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise StatsInputError(f"seed must be None or a non-negative integer; got {seed!r}")
    return int(seed)


def as_vector(values: object, name: str, min_n: int = 1) -> np.ndarray:
    """Float64 1-D copy of ``values``; raises on wrong shape, non-numeric, NaN/inf or fewer than ``min_n``."""
    try:
        arr = np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise StatsInputError(f"{name} must be a sequence of numbers: {exc}") from None
    if arr.ndim == 0:
        arr = arr.reshape(1)
    if arr.ndim != 1:
        raise StatsInputError(f"{name} must be one-dimensional; got shape {arr.shape}")
    bad = ~np.isfinite(arr)
    if bad.any():
        idx = np.flatnonzero(bad)
        raise StatsInputError(
            f"{name} contains {idx.size} non-finite value(s) (NaN or inf), first at index "
            f"{idx[0]}: {float(arr[idx[0]])!r}; remove or impute them explicitly"
        )
    if arr.size < min_n:
        raise StatsInputError(f"{name} needs at least {min_n} items; got {arr.size}")
    return arr


def _paired_vectors(
    x: object, y: object | None, min_n: int, names: tuple[str, str]
) -> tuple[np.ndarray, np.ndarray | None]:
    if y is None:
        return as_vector(x, names[0], min_n), None
    xa = as_vector(x, names[0], 0)
    ya = as_vector(y, names[1], 0)
    if xa.size != ya.size:
        raise StatsInputError(
            f"paired test needs equal lengths: {names[0]} has {xa.size} items, "
            f"{names[1]} has {ya.size}"
        )
    if xa.size < min_n:
        raise StatsInputError(f"paired test needs at least {min_n} pairs; got {xa.size}")
    return xa, ya


def paired_differences(
    x: object, y: object | None, min_n: int = 2, names: tuple[str, str] = ("x", "y")
) -> np.ndarray:
    """``x - y`` for two aligned samples (or ``x`` itself when ``y`` is None), validated."""
    xa, ya = _paired_vectors(x, y, min_n, names)
    return xa if ya is None else xa - ya


def paired_scaled(
    x: object, y: object | None, min_n: int = 2, names: tuple[str, str] = ("x", "y")
) -> tuple[np.ndarray, int]:
    """``(d', e)`` with ``x - y = d' · 2^e`` (:func:`ranger_eval.stats._scale.scaled_difference`:
    ``e = 0`` and ``d' = x - y`` for scores in the safe range), validated as
    :func:`paired_differences`."""
    xa, ya = _paired_vectors(x, y, min_n, names)
    return scaled_difference(xa, ya)


def all_equal(a: np.ndarray) -> bool:
    """True when every element equals the first (exact comparison, so no rounding noise)."""
    return bool(a.size == 0 or np.all(a == a[0]))
