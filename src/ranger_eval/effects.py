"""Effect sizes of a treatment over a control, and their sampling variances.

OWNED BY: effects helper (interface fixed below; computation to be filled in).
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

MEASURES = ("MD", "SMD", "SMCC", "SMCR", "ZCOR")


@dataclass(frozen=True)
class EffectSize:
    """Effect of one dataset: ``yi`` with sampling variance ``vi`` from ``n`` paired items."""

    yi: float
    vi: float
    n: int
    measure: str
    mean_treatment: float
    mean_control: float
    level: float = 0.95

    @property
    def se(self) -> float:
        return float(np.sqrt(self.vi))

    @property
    def ci_low(self) -> float: ...

    @property
    def ci_high(self) -> float: ...


@dataclass(frozen=True)
class EffectSizes:
    """Per-dataset effect sizes, in display order.

    Arrays are aligned with ``names``. ``extra`` holds optional per-dataset text/number columns for
    plots and tables (e.g. "nDCG@10 0.494 → 0.679", "J@10 ..."), indexed by name.
    ``dropped`` counts items dropped per dataset by a ``missing="intersect"`` policy.
    """

    names: tuple[str, ...]
    yi: np.ndarray
    vi: np.ndarray
    n: np.ndarray
    measure: str
    mean_treatment: np.ndarray
    mean_control: np.ndarray
    treatment: str | None = None
    control: str | None = None
    metric: str | None = None
    level: float = 0.95
    extra: pd.DataFrame | None = None
    dropped: dict[str, int] = field(default_factory=dict)
