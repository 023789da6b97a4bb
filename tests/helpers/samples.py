"""Seeded samples shared by the tests of the classical statistics (tests/stats/)."""
from __future__ import annotations

import numpy as np


def paired_sample(seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Two correlated normal samples of 3 to 79 paired items, location and scale drawn from
    ``seed``."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(3, 80))
    x = rng.normal(rng.uniform(0, 1), rng.uniform(0.05, 1), n)
    y = 0.5 * x + rng.normal(rng.uniform(0, 0.6), rng.uniform(0.05, 1), n)
    return x, y
