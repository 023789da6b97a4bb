"""Effect sizes of a treatment over a control, and their sampling variances.

One module per question a reader brings:

* :mod:`~ranger_eval.effects.measures`: the formulas of the measures (MD, SMD, SMCC, SMCR,
  ZCOR) and their degenerate cases; :func:`effect_size` for one dataset, :func:`table_effects`
  for many at once.
* :mod:`~ranger_eval.effects.results`: :class:`EffectSizes` (every dataset) and
  :class:`BootstrapEffectSize` (:class:`EffectSize`, one dataset, is in ``measures``).
* :mod:`~ranger_eval.effects.sizes`: :func:`effect_sizes`, every dataset of a table of scores,
  and the ``degenerate`` policy.
* :mod:`~ranger_eval.effects.variances`: cluster-robust variances of clustered items; datasets of
  zero variance.
* :mod:`~ranger_eval.effects.seeds`: several runs (seeds) per system combined.
* :mod:`~ranger_eval.effects.bootstrap`: set-level metrics (F1, MCC, corpus BLEU, …) with a
  paired bootstrap variance: :func:`effect_size_bootstrap`.
* :mod:`~ranger_eval.effects.ppi`: judge scores with human scores (prediction-powered).
"""
from __future__ import annotations

from ..errors import EffectSizeError
from .bootstrap import effect_size_bootstrap
from .measures import (
    GENERIC,
    MEASURES,
    MIN_N,
    R_TOL,
    SHIFT_TOL,
    EffectSize,
    canonical_measure,
    effect_size,
    hedges_j,
    metafor_cmi,
    table_effects,
    z_critical,
)
from .results import BootstrapEffectSize, EffectSizes
from .seeds import SEED_POLICIES
from .sizes import DEGENERATE_POLICIES, degenerate_text, effect_sizes
from .variances import cluster_robust_variances, zero_variance_reasons

__all__ = [
    "DEGENERATE_POLICIES",
    "GENERIC",
    "MEASURES",
    "MIN_N",
    "R_TOL",
    "SEED_POLICIES",
    "SHIFT_TOL",
    "BootstrapEffectSize",
    "EffectSize",
    "EffectSizeError",
    "EffectSizes",
    "canonical_measure",
    "cluster_robust_variances",
    "degenerate_text",
    "effect_size",
    "effect_size_bootstrap",
    "effect_sizes",
    "hedges_j",
    "metafor_cmi",
    "table_effects",
    "z_critical",
    "zero_variance_reasons",
]
