"""Meta-analysis models (metafor-exact). OWNED BY: meta helper (interface fixed below)."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .effects import EffectSizes

METHODS = ("FE", "EE", "DL", "HE", "HS", "SJ", "ML", "REML", "EB", "PM")
TESTS = ("z", "t", "knha")


@dataclass(frozen=True)
class MetaResult:
    """A fitted meta-analysis model (one object, many views, like metafor's ``rma``)."""

    estimate: float
    se: float
    ci_low: float
    ci_high: float
    statistic: float
    pvalue: float
    tau2: float
    tau: float
    I2: float
    H2: float
    Q: float
    Q_df: int
    Q_pvalue: float
    pi_low: float
    pi_high: float
    weights: np.ndarray
    tau2_ci: tuple[float, float]
    I2_ci: tuple[float, float]
    k: int
    method: str
    test: str
    level: float
    names: tuple[str, ...]
    yi: np.ndarray
    vi: np.ndarray
    measure: str | None = None
    effects: EffectSizes | None = None
