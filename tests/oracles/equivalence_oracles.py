"""Oracle of the non-inferiority and equivalence tests (ranger_eval.stats.equivalence and
compare(hypothesis=..., margin=...)) from statsmodels:

- ``statsmodels.stats.weightstats.ttost_paired(x, y, low, upp)`` and
  ``ttost_ind(x, y, low, upp, usevar="unequal")``: the larger p-value and both one-sided tests;
  the interval from ``DescrStatsW(x - y).tconfint_mean`` and
  ``CompareMeans(...).tconfint_diff(usevar="unequal")`` at alpha = 2 (1 - level);
- ``statsmodels.stats.proportion.tost_proportions_2indep(..., method="score",
  correction=True)`` (Miettinen–Nurminen) and ``confint_proportions_2indep(method="score",
  correction=True)``.

Non-inferiority cases pass an infinite margin to statsmodels (``upp=inf`` or ``low=-inf``).
Run from the repository root: ``python tests/oracles/equivalence_oracles.py``; writes
``tests/oracles/equivalence_oracles.json``.
"""
from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import statsmodels
from statsmodels.stats.proportion import confint_proportions_2indep, tost_proportions_2indep
from statsmodels.stats.weightstats import CompareMeans, DescrStatsW, ttost_ind, ttost_paired

OUT = Path(__file__).with_name("equivalence_oracles.json")


def _f(v: float) -> float | str:
    v = float(v)
    return v if math.isfinite(v) else ("inf" if v > 0 else "-inf")


def main() -> None:
    rng = np.random.default_rng(20261126)
    paired, welch, props = [], [], []
    for n, shift, sd, low, upp, level in [
        (5, 0.0, 1.0, -1.0, 1.0, 0.95), (30, 0.05, 0.3, -0.2, 0.2, 0.95),
        (30, 0.05, 0.3, -0.2, math.inf, 0.95), (30, -0.05, 0.3, -math.inf, 0.1, 0.9),
        (200, 0.01, 0.05, -0.02, 0.02, 0.95), (200, 0.3, 1.0, -0.25, 0.25, 0.99),
        (12, 10.0, 3.0, -1.5, 2.5, 0.95), (60, 0.0, 1e-3, -1e-4, 1e-4, 0.95),
    ]:
        x = rng.normal(0.5, 1.0, n)
        y = x - shift + rng.normal(0.0, sd, n)
        p, (t1, p1, df1), (t2, p2, _) = ttost_paired(x, y, low, upp)
        lo, hi = DescrStatsW(x - y).tconfint_mean(alpha=2 * (1 - level))
        paired.append({"x": x.tolist(), "y": y.tolist(), "low": _f(low), "upp": _f(upp),
                       "level": level, "pvalue": float(p), "t_low": _f(t1), "p_low": float(p1),
                       "t_upp": _f(t2), "p_upp": float(p2), "df": float(df1),
                       "ci_low": float(lo), "ci_high": float(hi)})
    for nx, ny, shift, sdy, low, upp, level in [
        (20, 25, 0.1, 1.0, -0.5, 0.5, 0.95), (40, 15, -0.2, 2.0, -1.0, 1.0, 0.95),
        (40, 15, -0.2, 2.0, -1.0, math.inf, 0.95), (8, 9, 0.0, 0.5, -math.inf, 0.4, 0.9),
        (300, 280, 0.02, 1.0, -0.1, 0.1, 0.95), (10, 30, 3.0, 5.0, -2.0, 4.0, 0.99),
    ]:
        x = rng.normal(1.0, 1.0, nx)
        y = rng.normal(1.0 - shift, sdy, ny)
        p, (t1, p1, df1), (t2, p2, _) = ttost_ind(x, y, low, upp, usevar="unequal")
        lo, hi = CompareMeans(DescrStatsW(x), DescrStatsW(y)).tconfint_diff(
            alpha=2 * (1 - level), usevar="unequal")
        welch.append({"x": x.tolist(), "y": y.tolist(), "low": _f(low), "upp": _f(upp),
                      "level": level, "pvalue": float(p), "t_low": _f(t1), "p_low": float(p1),
                      "t_upp": _f(t2), "p_upp": float(p2), "df": float(df1),
                      "ci_low": float(lo), "ci_high": float(hi)})
    for c1, n1, c2, n2, low, upp, level in [
        (40, 50, 35, 48, -0.1, 0.15, 0.95), (40, 50, 35, 48, -0.1, math.inf, 0.95),
        (812, 1000, 825, 1000, -0.02, 0.02, 0.95), (812, 1000, 825, 1000, -0.03, math.inf, 0.95),
        (0, 30, 2, 30, -0.1, 0.1, 0.95), (30, 30, 29, 30, -0.05, 0.05, 0.9),
        (7, 20, 12, 25, -math.inf, 0.2, 0.95), (150, 400, 90, 250, -0.05, 0.05, 0.99),
    ]:
        r = tost_proportions_2indep(c1, n1, c2, n2, low, upp, method="score", correction=True)
        try:  # statsmodels' root bracket fails when a proportion is 0 or 1: no interval then
            lo, hi = confint_proportions_2indep(c1, n1, c2, n2, method="score", correction=True,
                                                alpha=2 * (1 - level))
        except ValueError:
            lo = hi = math.nan
        finite_low, finite_upp = math.isfinite(low), math.isfinite(upp)
        props.append({
            "count1": c1, "nobs1": n1, "count2": c2, "nobs2": n2, "low": _f(low), "upp": _f(upp),
            "level": level,
            # one infinite margin (non-inferiority): the finite side's one-sided test
            "pvalue": float(r.pvalue if finite_low and finite_upp else
                            (r.results_larger if finite_low else r.results_smaller).pvalue),
            "statistic": float(r.statistic if finite_low and finite_upp else
                               (r.results_larger if finite_low else r.results_smaller).statistic),
            "p_low": float(r.results_larger.pvalue) if finite_low else 0.0,
            "z_low": float(r.results_larger.statistic) if finite_low else "inf",
            "p_upp": float(r.results_smaller.pvalue) if finite_upp else 0.0,
            "z_upp": float(r.results_smaller.statistic) if finite_upp else "-inf",
            "ci_low": (float(lo) if finite_low else "-inf") if math.isfinite(lo) else None,
            "ci_high": (float(hi) if finite_upp else "inf") if math.isfinite(hi) else None})
    OUT.write_text(json.dumps({"statsmodels": statsmodels.__version__, "paired_t": paired,
                               "welch": welch, "proportions": props}, indent=1) + "\n")


if __name__ == "__main__":
    main()
