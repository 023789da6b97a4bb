"""Result objects of the statistical tests (scipy-style frozen records with named fields)."""
from __future__ import annotations

from dataclasses import asdict, dataclass, fields
from typing import Any

import numpy as np

from ..errors import StatsInputError
from ..signature import Signature, make_signature


def _signature(parts: dict[str, Any]) -> Signature:
    return make_signature("test", parts)


@dataclass(frozen=True)
class TestResult:
    """Outcome of one hypothesis test.

    ``statistic`` and ``pvalue`` are always set (never NaN by accident); ``estimate`` with
    ``ci_low``/``ci_high`` at confidence ``level``, ``df``, resampling details are ``None``
    where the test does not define them. One-sided intervals have an infinite bound.
    ``n`` is the number of pairs (paired tests) or of items in the first sample;
    ``n_y`` the size of the second sample for unpaired tests. Cluster-robust tests
    (:mod:`ranger_eval.stats.clustered`) also set ``se`` (the estimate's standard error) and
    ``n_clusters``.
    """

    __test__ = False  # not a pytest test class

    test: str
    statistic: float
    pvalue: float
    alternative: str
    n: int
    estimate: float | None = None
    ci_low: float | None = None
    ci_high: float | None = None
    level: float | None = None
    df: float | None = None
    n_y: int | None = None
    method: str | None = None
    n_resamples: int | None = None
    seed: int | None = None
    estimate_name: str | None = None
    se: float | None = None
    n_clusters: int | None = None

    def confidence_interval(self) -> tuple[float, float]:
        """``(ci_low, ci_high)``; raises if this test does not define an interval."""
        if self.ci_low is None or self.ci_high is None:
            raise StatsInputError(f"{self.test} does not define a confidence interval")
        return (self.ci_low, self.ci_high)

    def to_dict(self) -> dict[str, Any]:
        """Plain dictionary of all fields (JSON-friendly; infinite bounds stay ``inf``)."""
        return asdict(self)

    @property
    def signature(self) -> Signature:
        """Reproducibility signature, sacrebleu-style: test, alternative, method, level,
        resamples, seed, version."""
        return _signature(
            {
                "test": self.test,
                "alt": self.alternative,
                "method_detail": self.method,
                "level": self.level,
                "n_resamples": self.n_resamples,
                "seed": self.seed,
            }
        )

    def __repr__(self) -> str:
        parts = [f"{f.name}={getattr(self, f.name)!r}" for f in fields(self)
                 if getattr(self, f.name) is not None]
        return f"TestResult({', '.join(parts)})"


@dataclass(frozen=True)
class ManyTestResult:
    """Outcome of one resampling test applied to many system pairs with one shared resample matrix.

    Arrays are aligned with the rows of the input difference matrix; ``result[i]`` gives the
    :class:`TestResult` of pair ``i``. The vectorised classical tests
    (:mod:`ranger_eval.stats.many`) return it too, with ``n_resamples``/``seed`` ``None``.
    ``pvalue_adjusted`` holds multiplicity-adjusted p-values when the test computed them from
    the joint null (Westfall–Young max-T, :meth:`~ranger_eval.stats.resampling.SignFlips.test`).
    """

    test: str
    statistic: np.ndarray
    pvalue: np.ndarray
    alternative: str
    n: int
    method: str | None = None
    n_resamples: int | None = None
    seed: int | None = None
    estimate: np.ndarray | None = None
    ci_low: np.ndarray | None = None
    ci_high: np.ndarray | None = None
    level: float | None = None
    estimate_name: str | None = None
    df: np.ndarray | None = None
    n_y: int | None = None
    pvalue_adjusted: np.ndarray | None = None
    se: np.ndarray | None = None
    n_clusters: int | None = None

    def __len__(self) -> int:
        return int(self.statistic.shape[0])

    def __getitem__(self, i: int) -> TestResult:
        def pick(a: np.ndarray | None) -> float | None:
            return None if a is None else float(a[i])

        return TestResult(
            test=self.test,
            statistic=float(self.statistic[i]),
            pvalue=float(self.pvalue[i]),
            alternative=self.alternative,
            n=self.n,
            estimate=pick(self.estimate),
            ci_low=pick(self.ci_low),
            ci_high=pick(self.ci_high),
            level=self.level,
            df=pick(self.df),
            n_y=self.n_y,
            method=self.method,
            n_resamples=self.n_resamples,
            seed=self.seed,
            estimate_name=self.estimate_name,
            se=pick(self.se),
            n_clusters=self.n_clusters,
        )

    @property
    def signature(self) -> Signature:
        """Reproducibility signature shared by all pairs."""
        return self[0].signature if len(self) else _signature({"test": self.test})

