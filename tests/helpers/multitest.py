"""statsmodels' ``multipletests`` as an oracle, without its per-call ``gc.collect()``.

statsmodels runs a full garbage collection after every Holm adjustment (``multitest.py``:
``del pvals_corrected_raw; gc.collect()``): 0.2–0.8 s in a test process holding many objects,
which made 24 Holm oracle checks take 18 s. The collection does not touch the numbers.
"""
from __future__ import annotations

import gc
from typing import Any
from unittest import mock

import numpy as np
from statsmodels.stats.multitest import multipletests as _multipletests


def multipletests(pvals: Any, **kwargs: Any) -> tuple[Any, np.ndarray, float, float]:
    """``statsmodels.stats.multitest.multipletests`` with ``gc.collect`` a no-op for the call."""
    with mock.patch.object(gc, "collect", lambda *args: 0):
        return _multipletests(pvals, **kwargs)
