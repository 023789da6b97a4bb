"""Aggregating test results across score lists (datasets or metrics): IBM framework §6.2.

For each system pair (a, b) compared on K score lists j (each a dataset × metric of a
:class:`~ranger_eval.comparison.Comparison`):

* **p-value** — Wilson's (2019) harmonic mean p-value of the raw p-values ``p_abj``, adjusted for
  the ``L = |Ω| × K`` tests of the whole family (|Ω| pairs): every test gets the weight
  ``w_j / |Ω|`` (list weights ``w_j`` sum to 1, default ``1/K``), and the pair's combined
  p-value is Wilson's adjusted ``p̊_ab = p.hmp(p_ab·, w_ab·, L) / Σ w_ab·``
  (:func:`~ranger_eval.aggregate.hmp.harmonic_mean_p`, ``pvalue_adjusted``). It controls the
  family-wise error rate over all pairs and lists, so it is compared with alpha directly. The
  unadjusted column ``pvalue`` holds ``p.hmp`` of the pair's p-values on their own (L = K).
* **effect size** — the inverse-variance weighted (Hedges–Olkin fixed-effect) mean of the
  per-list effect sizes (Turner & Bernard 2006), with the sampling variance that matches each
  effect size: paired Cohen's d_z ``v = 1/n + d²/(2n)``; unpaired Cohen's d
  ``v = (n_a+n_b)/(n_a n_b) + d²/(2(n_a+n_b))`` (Hedges & Olkin 1985; Borenstein et al. 2009,
  eq. 4.20 and 4.28 with r unknown); Cohen's h ``v = 1/n_a + 1/n_b`` (the variance of the
  arcsine-transformed proportions).

The result is a :class:`~ranger_eval.comparison.Comparison` (dataset ``"aggregate"``), so the
graph, heatmap and pairwise p-value plots and the report tables draw it as they draw any
comparison. Aggregated p-values are not raw: an aggregate cannot be aggregated again.
"""
from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from ..comparison import COLUMNS, Comparison
from ..errors import AggregateError
from ..scores import Scores
from ..stats import effect_label
from .hmp import harmonic_mean_p

__all__ = ["AggregateComparison", "aggregate_comparisons", "effect_variance"]

AGGREGATE = "aggregate"


def effect_variance(name: str, d: float, n_a: int, n_b: int) -> float:
    """Sampling variance of an effect size of ``compare`` (see the module docstring)."""
    if name == "cohens_dz":
        return 1.0 / n_a + d * d / (2.0 * n_a)
    if name == "cohens_d":
        n = n_a + n_b
        return n / (n_a * n_b) + d * d / (2.0 * n)
    if name == "cohens_h":
        return 1.0 / n_a + 1.0 / n_b
    raise AggregateError(f"no sampling variance for effect size {name!r}")


@dataclass(frozen=True)
class AggregateComparison(Comparison):
    """A :class:`Comparison` whose rows combine several score lists (``lists``) per pair.

    ``table`` has one row per pair with ``dataset = "aggregate"``, ``metric`` naming the
    combined metrics; ``test = "hmp"``; ``pvalue`` the pair's own HMP, ``pvalue_adjusted``
    Wilson's adjusted HMP for the family of L tests; ``effect_size`` the inverse-variance mean.
    ``per_list`` holds the per-list rows that were combined.
    """

    lists: tuple[tuple[str, str], ...] = ()
    list_weights: tuple[float, ...] = ()
    per_list: pd.DataFrame = field(default_factory=pd.DataFrame)
    n_tests: int = 0


def _as_comparisons(comparisons: Comparison | Sequence[Comparison]) -> list[Comparison]:
    items = [comparisons] if isinstance(comparisons, Comparison) else list(comparisons)
    if not items:
        raise AggregateError("aggregate_comparisons: no comparisons given")
    for c in items:
        if not isinstance(c, Comparison):
            raise AggregateError(
                f"aggregate_comparisons expects Comparison results; got {type(c).__name__}"
            )
        if isinstance(c, AggregateComparison):
            raise AggregateError(
                "aggregated p-values are not raw p-values: an aggregate cannot be aggregated again"
            )
    return items


def aggregate_comparisons(
    comparisons: Comparison | Sequence[Comparison],
    *,
    weights: Mapping[str, float] | Mapping[tuple[str, str], float] | Sequence[float] | None = None,
) -> AggregateComparison:
    """Combine per-dataset (or per-metric) pairwise results into one result per system pair.

    ``comparisons``: one :class:`Comparison` with several dataset × metric lists, or several
    comparisons (their lists are pooled). Every pair must be tested on every list (same pairs,
    same orientation). ``weights``: list weights, keyed by dataset name, by ``(dataset, metric)``
    or given in list order; normalised to sum 1 (default equal).
    """
    items = _as_comparisons(comparisons)
    table = pd.concat([c.table for c in items], ignore_index=True)
    lists = list(dict.fromkeys(zip(table["dataset"].astype(str), table["metric"].astype(str),
                                   strict=True)))
    if len(lists) < 2:
        raise AggregateError(
            f"aggregate_comparisons needs at least two dataset × metric lists; got {lists}"
        )
    w = _weights(weights, lists)
    pairs = list(dict.fromkeys(zip(table["system_a"].astype(str), table["system_b"].astype(str),
                                   strict=True)))
    first = items[0]
    level, alpha = first.level, 1.0 - first.level
    per_pair = {p: table[(table["system_a"] == p[0]) & (table["system_b"] == p[1])] for p in pairs}
    for (a, b), rows in per_pair.items():
        have = set(zip(rows["dataset"].astype(str), rows["metric"].astype(str), strict=True))
        missing = [f"{d}/{m}" for d, m in lists if (d, m) not in have]
        if missing:
            raise AggregateError(
                f"pair {a} vs {b} is not tested on {', '.join(missing[:10])}: every pair must be "
                "tested on every list (compare with the same systems and pairs)"
            )
    n_tests = len(pairs) * len(lists)
    list_index = {key: j for j, key in enumerate(lists)}
    rows_out = []
    for (a, b), rows in per_pair.items():
        j = np.array([list_index[(str(d), str(m))] for d, m in
                      zip(rows["dataset"], rows["metric"], strict=True)])
        p = rows["pvalue"].to_numpy(dtype=float)
        wj = w[j]
        own = harmonic_mean_p(p, weights=wj / wj.sum())
        family = harmonic_mean_p(p, weights=wj / len(pairs), L=n_tests)
        names = list(dict.fromkeys(rows["effect_size_name"].astype(str)))
        effects = rows["effect_size"].to_numpy(dtype=float)
        v = np.array([effect_variance(str(nm), float(e), int(na), int(nb)) for nm, e, na, nb in
                      zip(rows["effect_size_name"], effects, rows["n_a"], rows["n_b"],
                          strict=True)])
        iv = 1.0 / v
        effect = float(np.sum(iv * effects) / np.sum(iv))
        mean_a = float(np.sum(wj * rows["mean_a"].to_numpy(dtype=float)) / wj.sum())
        mean_b = float(np.sum(wj * rows["mean_b"].to_numpy(dtype=float)) / wj.sum())
        rows_out.append({
            "dataset": AGGREGATE,
            "metric": "+".join(dict.fromkeys(m for _, m in lists)),
            "system_a": a, "system_b": b, "mean_a": mean_a, "mean_b": mean_b,
            "diff": mean_a - mean_b, "ci_low": math.nan, "ci_high": math.nan, "test": "hmp",
            "statistic": family.hmp, "pvalue": own.pvalue_adjusted,
            "pvalue_adjusted": min(1.0, family.pvalue_adjusted),
            "effect_size": effect,
            "effect_size_name": names[0] if len(names) == 1 else "mixed",
            "effect_label": effect_label(effect),
            "significant": bool(family.pvalue_adjusted <= alpha),
            "paired": bool(rows["paired"].all()),
            "n_a": int(rows["n_a"].sum()), "n_b": int(rows["n_b"].sum()),
            "ci_method": "none", "seed_sd_a": math.nan, "seed_sd_b": math.nan,
        })
    out = pd.DataFrame(rows_out, columns=list(COLUMNS))
    metric_label = str(out["metric"].iloc[0])
    means = _means(items, w, lists, metric_label)
    systems = tuple(dict.fromkeys(s for c in items for s in c.systems))
    scores = Scores.concat([c.scores for c in items]) if len(items) > 1 else first.scores
    return AggregateComparison(
        table=out, means=means, systems=systems, scores=scores, test="hmp",
        pairs=first.pairs, baseline=first.baseline, alternative=first.alternative,
        correction="hmp", family="all", level=level, n_resamples=first.n_resamples,
        seed=first.seed, tests_used=("hmp",), lists=tuple(lists),
        list_weights=tuple(float(x) for x in w), per_list=table, n_tests=n_tests,
    )


def _weights(weights: object, lists: list[tuple[str, str]]) -> np.ndarray:
    if weights is None:
        return np.full(len(lists), 1.0 / len(lists))
    if isinstance(weights, Mapping):
        out = []
        for d, m in lists:
            if (d, m) in weights:
                out.append(weights[(d, m)])
            elif d in weights:
                out.append(weights[d])
            else:
                raise AggregateError(f"weights: no weight for list {d}/{m}")
        arr = np.asarray(out, dtype=float)
    else:
        arr = np.asarray(list(weights), dtype=float)  # type: ignore[call-overload]
        if arr.shape != (len(lists),):
            raise AggregateError(
                f"weights: expected {len(lists)} weights (one per list); got {arr.size}"
            )
    if not np.all(np.isfinite(arr)) or np.any(arr < 0) or arr.sum() <= 0:
        raise AggregateError(f"weights must be non-negative, finite and not all zero; got {arr}")
    return arr / arr.sum()


def _means(items: list[Comparison], w: np.ndarray, lists: list[tuple[str, str]],
           metric: str) -> pd.DataFrame:
    """Per system: the list-weighted mean of its per-list means (the graph's node values)."""
    means = pd.concat([c.means for c in items], ignore_index=True)
    j = {key: k for k, key in enumerate(lists)}
    means = means.assign(_w=[w[j[(str(d), str(m))]] if (str(d), str(m)) in j else 0.0
                             for d, m in zip(means["dataset"], means["metric"], strict=True)])
    rows = []
    for system, g in means.groupby("system", sort=False):
        ww = g["_w"].to_numpy(dtype=float)
        rows.append({
            "dataset": AGGREGATE, "metric": metric, "system": str(system),
            "mean": float(np.sum(ww * g["mean"].to_numpy(dtype=float)) / ww.sum()),
            "n": int(g["n"].sum()), "seed_sd": math.nan, "n_seeds": int(g["n_seeds"].max()),
        })
    return pd.DataFrame(rows)
