"""Slow: coverage of the paired-bootstrap 95% intervals on simulated data with a known mean."""
from __future__ import annotations

import numpy as np
import pytest

from ranger_eval.stats import BootstrapIndices, paired_bootstrap_many


@pytest.mark.slow
def test_paired_bootstrap_95_coverage_percentile_and_bca() -> None:
    """1000 datasets, n = 200 items scored A ~ Beta(2, 3), B ~ Beta(2, 4): true mean difference
    1/15. Expected coverage of the percentile interval ~94.8% (Monte-Carlo SE 0.7 points)."""
    rng = np.random.default_rng(7)
    datasets, n, resamples = 1000, 200, 1000
    truth = 2 / 5 - 2 / 6
    hits = {"percentile": 0, "bca": 0}
    for k in range(datasets):
        d = (rng.beta(2, 3, n) - rng.beta(2, 4, n))[None, :]
        idx = BootstrapIndices(n, resamples, seed=k)  # own resampling matrix per dataset
        for method in hits:
            res = paired_bootstrap_many(d, ci_method=method, indices=idx)
            hits[method] += bool(res.ci_low[0] <= truth <= res.ci_high[0])
    for method, h in hits.items():
        assert 0.93 <= h / datasets <= 0.97, (method, h / datasets)
