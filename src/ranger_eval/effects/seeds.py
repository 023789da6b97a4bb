"""Several training runs (seeds) per system: the per-item effect of one dataset, runs combined.

seeds of the two systems are paired in natural order (by label when both used the same seeds)
and combined as items × seeds in a crossed design (Bouthillier et al. 2021, "Accounting for
variance in machine learning benchmarks", MLSys; the variance of a grand mean in a two-way
random-effects layout, e.g. Searle, Casella & McCulloch 1992, ch. 4):

    yi = (1/S) Σ_s yi_s                      (the mean of the per-seed effects)
    vi = vi_items + vi_seeds,  vi_seeds = var_s(yi_s) / S   (ddof = 1; 0 when S = 1)

``vi_seeds`` is the seed-to-seed spread of the per-seed effects: it grows with the run-to-run
variability that a single seed, or averaging seeds per item, hides. ``vi_items`` is the
item-sampling variance of the averaged effect; the seeds share the items, so it is not the
per-seed variance divided by S:

* MD: var_i(d̄_i) / n with d̄_i the seed-averaged difference of item i (exact; with the seed term
  this is (MS_items + MS_seeds) / (nS) of the two-way ANOVA, conservative by MS_resid / (nS));
* set-level metrics: the bootstrap variance of the seed-averaged difference, items resampled
  jointly for every seed;
* SMD, SMCC, SMCR, ZCOR: the mean of the per-seed variances, an upper bound (the per-seed
  estimates share the items, so their correlation is at most 1).

With S = 1 everything reduces to the single-run formulas. Unbalanced seeds (systems with
different numbers of seeds, or a seed that did not score every item) are an error unless
``seeds="allow-unbalanced"``; then, for MD and set-level metrics only, the runs are not paired:
yi = mean over items of (treatment's seed-averaged value − control's) (MD), or the difference of
the seed-averaged metrics, and vi_seeds = var_s(m_t,s)/S_t + var_s(m_c,s)/S_c from each
system's per-seed means (or metrics) m. Whenever the scores have a seed column,
``EffectSizes.extra`` (and so ``to_frame()``) holds ``n_seeds_treatment``, ``n_seeds_control``,
``vi_items`` and ``vi_seeds`` per dataset, and ``EffectSizes.seed_rule`` is "paired" or
"unpaired" once some system has more than one seed.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from .. import settings as _settings
from ..errors import EffectSizeError, check_choice
from .measures import EffectSize, effect_size

if TYPE_CHECKING:
    from ..scores import SystemRuns

#: Seed policies of :func:`effect_sizes` (see the module docstring).
SEED_POLICIES = _settings.SEED_POLICIES


def _seed_policy(seeds: object) -> str:
    return check_choice("seeds", seeds, SEED_POLICIES, error=EffectSizeError)


@dataclass(frozen=True)
class _Combined:
    """One dataset's effect after combining runs (seeds)."""

    yi: float
    vi: float
    n: int
    mean_treatment: float
    mean_control: float
    vi_items: float
    vi_seeds: float
    n_seeds_treatment: int = 1
    n_seeds_control: int = 1
    boot: np.ndarray | None = None
    seed: int | None = None


def _var(x: np.ndarray) -> float:
    """var(ddof = 1), 0 for a single value."""
    return float(np.var(x, ddof=1)) if x.size > 1 else 0.0



def _item_effect(
    t: SystemRuns, c: SystemRuns, measure: str, level: float, name: str, problem: str | None
) -> _Combined:
    """Effect on the per-item values of one dataset, runs combined (module docstring)."""
    st, sc = t.n_seeds, c.n_seeds
    if problem is None and st == 1:
        e = effect_size(t.values[0], c.values[0], measure=measure, level=level, dataset=name)
        return _Combined(e.yi, e.vi, e.n, e.mean_treatment, e.mean_control, e.vi, 0.0)
    if problem is None:  # balanced: seeds paired in natural order
        per: list[EffectSize] = []
        for s in range(st):
            try:
                per.append(effect_size(t.values[s], c.values[s], measure=measure, level=level,
                                       dataset=name))
            except EffectSizeError as exc:
                raise EffectSizeError(
                    f"{exc} (treatment seed {t.seeds[s]!r}, control seed {c.seeds[s]!r})"
                ) from None
        yis = np.array([e.yi for e in per])
        if measure == "MD":
            d_bar = (t.values - c.values).mean(axis=0)
            vi_items = _var(d_bar) / d_bar.size
        else:
            vi_items = float(np.mean([e.vi for e in per]))
        vi_seeds = _var(yis) / st
        return _Combined(
            float(yis.mean()), vi_items + vi_seeds, t.n, float(t.values.mean()),
            float(c.values.mean()), vi_items, vi_seeds, st, sc,
        )
    if measure != "MD":
        raise EffectSizeError(
            f"dataset {name!r}: unbalanced seeds ({problem}) can be combined only for measure "
            f"'MD' or a metric_fn, not {measure!r}"
        )
    t_bar = _nanmean_rows(t.values.T)
    c_bar = _nanmean_rows(c.values.T)
    e = effect_size(t_bar, c_bar, measure="MD", level=level, dataset=name)
    mt, mc = _nanmean_rows(t.values), _nanmean_rows(c.values)  # per-seed means
    vi_seeds = _var(mt) / mt.size + _var(mc) / mc.size
    return _Combined(
        e.yi, e.vi + vi_seeds, e.n, e.mean_treatment, e.mean_control, e.vi, vi_seeds, st, sc,
    )


def _nanmean_rows(m: np.ndarray) -> np.ndarray:
    """Mean of every row over its non-NaN entries; rows without any are left out."""
    ok = ~np.isnan(m)
    keep = ok.any(axis=1)
    return np.where(ok, m, 0.0)[keep].sum(axis=1) / ok[keep].sum(axis=1)

