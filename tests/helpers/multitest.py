"""statsmodels' ``multipletests`` as an oracle, without its per-call ``gc.collect()``.

statsmodels runs a full garbage collection after every Holm adjustment (``multitest.py``:
``del pvals_corrected_raw; gc.collect()``): 0.2–0.8 s in a test process holding many objects,
which made 24 Holm oracle checks take 18 s. Importing this module replaces the ``gc`` that
``statsmodels.stats.multitest`` sees by one whose ``collect`` does nothing, for the whole test
process, so that peers calling it (scikit-posthocs' ``p_adjust="holm"``) are fast too. The
collection does not touch the numbers; Ranger's own code does not call statsmodels for Holm.
"""
from __future__ import annotations

import gc
import types

import statsmodels.stats.multitest as _statsmodels_multitest
from statsmodels.stats.multitest import multipletests

_statsmodels_multitest.gc = types.SimpleNamespace(  # type: ignore[attr-defined]
    **{name: getattr(gc, name) for name in dir(gc) if not name.startswith("_")}
    | {"collect": lambda *args: 0},
)

__all__ = ["multipletests"]
