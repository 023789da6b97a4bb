"""compare(test="wilcoxon") tests all pairs of a dataset × metric with one
:func:`~ranger_eval.stats.many.wilcoxon_many` call (comparison/engine.py ``_wilcoxon``): every
row equals :func:`ranger_eval.stats.wilcoxon` of the pair, bit for bit, on hostile groups."""
from __future__ import annotations

import math
import warnings

import numpy as np
import pandas as pd
import pytest

from ranger_eval import compare, stats


def _table(rng: np.random.Generator) -> tuple[pd.DataFrame, dict]:
    """Datasets of 2, 3, 14, 55, 60 and 80 items; ties, zeros, identical systems, a system missing
    items (an incomplete group: unequal pair sizes), scores beyond 2^1000."""
    rows, values = [], {}
    for ds, n in (("two", 2), ("three", 3), ("fourteen", 14), ("eighty", 80),
                  ("ties", 60), ("huge", 55)):
        base = rng.normal(0.5, 0.2, n)
        sys_values = {
            "A": base + rng.normal(0.05, 0.1, n),
            "B": base.copy(),  # identical to C: every difference zero
            "C": base.copy(),
            "D": np.round((base + rng.normal(0, 0.1, n)) * 4) / 4,
            "E": np.where(np.arange(n) % 2 == 0, base, base + 0.25),
        }
        if ds == "ties":
            sys_values = {k: np.round(v * 5) / 5 for k, v in sys_values.items()}
        if ds == "huge":
            sys_values["A"] = sys_values["A"] * 1e305
        for s, v in sys_values.items():
            keep = range(n) if not (s == "E" and ds in ("eighty", "ties")) else range(0, n, 2)
            for i in keep:
                rows.append({"dataset": ds, "system": s, "item": f"q{i}", "value": float(v[i])})
                values[(ds, s, f"q{i}")] = float(v[i])
    return pd.DataFrame(rows), values


def _same(a: float, b: float) -> bool:
    return a == b or (math.isnan(a) and math.isnan(b))


@pytest.mark.parametrize("alternative", ["two-sided", "greater", "less"])
def test_vectorised_wilcoxon_equals_pair_by_pair(alternative: str) -> None:
    df, values = _table(np.random.default_rng(29))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        comp = compare(df, test="wilcoxon", alternative=alternative, correction="none",
                       missing="intersect")
    checked = 0
    for r in comp.table.itertuples():
        items = sorted({it for (ds, s, it) in values if ds == r.dataset and s == r.system_a}
                       & {it for (ds, s, it) in values if ds == r.dataset and s == r.system_b})
        x = np.array([values[(r.dataset, r.system_a, it)] for it in items])
        y = np.array([values[(r.dataset, r.system_b, it)] for it in items])
        if x.size < 2:
            continue  # too few items for a signed-rank test: reported as before, no interval
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            one = stats.wilcoxon(x, y, alternative=alternative)
        got = (r.statistic, r.pvalue, r.ci_low, r.ci_high)
        want = (one.statistic, one.pvalue, one.ci_low, one.ci_high)
        assert all(_same(float(a), float(b)) for a, b in zip(got, want, strict=True)), (
            r.dataset, r.system_a, r.system_b, got, want)
        checked += 1
    assert checked >= 50
