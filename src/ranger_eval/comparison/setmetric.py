"""Set-level metrics in :func:`~ranger_eval.comparison.compare` (``metric_fn=``): permutation
and bootstrap tests of a metric computed from whole item vectors (:mod:`ranger_eval.setmetrics`).
"""
from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from ..errors import CompareError, Hint, ScoresError
from ..formatting import preview as _preview
from ..pairing import per_seed_sd, select_systems, system_pairs
from ..scores import Scores, check_same_labels, common_items, seed_imbalance
from ..setmetrics import (
    bootstrap_values,
    encode,
    get_metric,
    permutation_statistics,
    tolerance,
    undefined_resamples,
)
from ..stats import effect_label
from ..stats._scale import std as _std

if TYPE_CHECKING:
    from ..scores import SystemRuns
    from ..setmetrics import SetMetric


# --------------------------------------------------------------------------- set-level metrics
def _set_metrics(metric_fn: object | None) -> list[SetMetric]:
    """The set-level metrics of ``metric_fn`` (one spec or a list of them)."""
    if metric_fn is None:
        return []
    specs = list(metric_fn) if isinstance(metric_fn, (list, tuple)) else [metric_fn]
    if not specs:
        raise CompareError("metric_fn is an empty list")
    out = [get_metric(m, error=CompareError) for m in specs]
    names = [m.name for m in out]
    dup = sorted({x for x in names if names.count(x) > 1})
    if dup:
        raise CompareError(f"metric_fn: metric(s) named twice: {', '.join(map(repr, dup))}")
    return out


def _metric_rows(
    scores: Scores,
    set_metrics: list[SetMetric],
    systems: Sequence[str] | None,
    pairs: str | Sequence[tuple[str, str]],
    baseline: str | None,
    test: str,
    alternative: str,
    level: float,
    n_resamples: int,
    seed: int | None,
    missing: str,
    seeds: str,
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Comparison rows and per-system means of set-level metrics (module docstring)."""
    rows: list[dict[str, Any]] = []
    mean_rows: list[dict[str, Any]] = []
    df = scores.frame
    needs_labels = any(m.needs_labels for m in set_metrics)
    for dataset in scores.datasets:
        here = df[df["dataset"] == dataset]
        row_metrics = list(pd.unique(here["metric"]))
        if len(row_metrics) > 1:
            hint = Hint("metrics", [str(row_metrics[0])])
            raise CompareError(
                f"dataset {dataset!r} has several metrics ({', '.join(map(repr, row_metrics))}); "
                f"a set-level metric_fn reads the label/prediction rows of one of them: "
                f"{hint.text}, say", hints=[hint]
            )
        row_metric = str(row_metrics[0])
        names = select_systems(scores, set(here["system"]), systems, f"dataset {dataset!r}")
        try:
            runs = {s: scores.runs(dataset, s, row_metric, predictions=needs_labels) for s in names}
        except ScoresError as exc:
            raise CompareError(str(exc)) from None
        problem = seed_imbalance(list(runs.values()))
        if problem is not None:
            if seeds == "balanced":
                hint = Hint("seeds", "allow-unbalanced")
                raise CompareError(
                    f"dataset {dataset!r}: unbalanced seeds: {problem}; {hint.text} to compare "
                    "the seed-averaged metrics", hints=[hint]
                )
            gaps = next(((r, r.missing_by_seed()) for r in runs.values() if r.missing_by_seed()),
                        None)
            if gaps is not None:
                r, miss = gaps
                s0, ids = next(iter(miss.items()))
                raise CompareError(
                    f"dataset {dataset!r}: system {r.system!r}, seed {s0!r} did not score "
                    f"{len(ids)} of its items ({_preview(ids)}); a set-level metric needs every "
                    "seed to score every item"
                )
            if test == "permutation":
                raise CompareError(
                    f"dataset {dataset!r}: {problem}; the permutation test swaps seed-paired "
                    "predictions and needs the same number of seeds per system (use "
                    "test='bootstrap')"
                )
        for m in set_metrics:
            where = f"dataset {dataset!r}, metric {m.name!r}"

            def run_arrays(r: SystemRuns, m: SetMetric = m) -> list[np.ndarray]:
                if m.needs_labels:
                    assert r.predictions is not None
                    return [r.predictions[i] for i in range(r.n_seeds)]
                return [r.values[i] for i in range(r.n_seeds)]

            def run_names(r: SystemRuns) -> list[str]:
                return [f"system {r.system!r}" + (f", seed {x!r}" if scores.has_seeds else "")
                        for x in r.seeds]

            own: dict[str, np.ndarray] = {}
            for sname in names:
                r = runs[sname]
                enc = encode(m, r.labels, run_arrays(r), runs=run_names(r), where=where,
                             error=CompareError)
                own[sname] = _finite(enc.values(), enc.runs, where, m.name)
                mean_rows.append({
                    "dataset": dataset, "metric": m.name, "system": sname,
                    "mean": float(own[sname].mean()), "n": r.n,
                    "seed_sd": per_seed_sd(np.asarray(own[sname], dtype=float)) if r.n_seeds > 1
                    else math.nan,
                    "n_seeds": r.n_seeds,
                })
            means = {x: float(v.mean()) for x, v in own.items()}
            pair_list = system_pairs(names, means, str(dataset), m.name, pairs, baseline)
            by_items: dict[tuple[str, ...], list[int]] = {}
            for i, (a, b) in enumerate(pair_list):
                common, _ = common_items(runs[a].items, runs[b].items, a, b,
                                         f"dataset {dataset!r} (metric {m.name!r})", missing,
                                         stacklevel=6)
                by_items.setdefault(tuple(common), []).append(i)
            results: dict[int, dict[str, Any]] = {}
            for items, idx in by_items.items():
                involved = list(dict.fromkeys(x for i in idx for x in pair_list[i]))
                sel = {x: runs[x].select(np.asarray(items, dtype=object)) for x in involved}
                if m.needs_labels:  # one set of labels serves every system of this group
                    for x in involved[1:]:
                        try:
                            check_same_labels(sel[involved[0]], sel[x])
                        except ScoresError as exc:
                            raise CompareError(str(exc)) from None
                offsets: dict[str, list[int]] = {}
                arrays: list[np.ndarray] = []
                labels_ = []
                for x in involved:
                    offsets[x] = list(range(len(arrays), len(arrays) + sel[x].n_seeds))
                    arrays += run_arrays(sel[x])
                    labels_ += run_names(sel[x])
                enc = encode(m, sel[involved[0]].labels, arrays, runs=labels_, where=where,
                             error=CompareError)
                if enc.n < 2:
                    raise CompareError(f"{where}: needs at least 2 common items, got {enc.n}")
                full = _finite(enc.values(), enc.runs, where, m.name)
                boot, _used = bootstrap_values(enc, n_resamples, seed)
                _finite_resamples(boot, enc.runs, where, m.name, "bootstrap")
                perm = None
                if test == "permutation":
                    contrasts = [list(zip(offsets[pair_list[i][0]], offsets[pair_list[i][1]],
                                          strict=True)) for i in idx]
                    perm, exact, _ = permutation_statistics(enc, contrasts, n_resamples, seed)
                    _finite_resamples(perm, [f"{pair_list[i][0]!r} vs {pair_list[i][1]!r}"
                                             for i in idx], where, m.name, "permutation")
                for j, i in enumerate(idx):
                    a, b = pair_list[i]
                    oa, ob = offsets[a], offsets[b]
                    diff = float(full[oa].mean() - full[ob].mean())
                    d_star = boot[:, oa].mean(axis=1) - boot[:, ob].mean(axis=1)
                    tol = tolerance(enc.n, float(np.abs(full[oa + ob]).max()))
                    if perm is not None:
                        t_star = perm[:, j]
                        count = _count_extreme(t_star, diff, alternative, tol)
                        pvalue = count / t_star.size if exact else (1.0 + count) / (1.0 + t_star.size)
                    else:
                        count = _count_extreme(d_star - diff, diff, alternative, tol)
                        pvalue = (1.0 + count) / (1.0 + d_star.size)
                    lo, hi = _percentile_interval(d_star, diff, alternative, level)
                    se = _std(d_star) if d_star.size > 1 else 0.0  # no under/overflow
                    es = _dz_boot(diff, se, enc.n)
                    results[i] = {
                        "mean_a": float(full[oa].mean()), "mean_b": float(full[ob].mean()),
                        "diff": diff, "ci_low": lo, "ci_high": hi, "statistic": diff,
                        "pvalue": float(min(pvalue, 1.0)), "effect_size": es, "n": enc.n,
                    }
            seed_sd = {r["system"]: r["seed_sd"] for r in mean_rows
                       if r["dataset"] == dataset and r["metric"] == m.name}
            for i, (a, b) in enumerate(pair_list):
                r_ = results[i]
                rows.append({
                    "dataset": dataset, "metric": m.name, "system_a": a, "system_b": b,
                    "mean_a": r_["mean_a"], "mean_b": r_["mean_b"], "diff": r_["diff"],
                    "ci_low": r_["ci_low"], "ci_high": r_["ci_high"], "test": test,
                    "statistic": r_["statistic"], "pvalue": r_["pvalue"],
                    "pvalue_adjusted": math.nan, "effect_size": r_["effect_size"],
                    "effect_size_name": "dz_boot",
                    "effect_label": str(effect_label(r_["effect_size"])),
                    "significant": False, "paired": True, "n_a": r_["n"], "n_b": r_["n"],
                    "ci_method": "bootstrap percentile",
                    "seed_sd_a": seed_sd[a], "seed_sd_b": seed_sd[b],
                })
    return rows, mean_rows


def _finite(values: np.ndarray, runs: Sequence[str], where: str, name: str) -> np.ndarray:
    """``values`` (one metric value per run) if all are finite, else a CompareError naming the
    first undefined one and its run."""
    bad = np.flatnonzero(~np.isfinite(values))
    if bad.size:
        raise CompareError(
            f"{where}: metric {name!r} is undefined ({values[bad[0]]!r}) for {runs[bad[0]]} "
            "(e.g. a correlation of constant values)"
        )
    return values


def _finite_resamples(
    values: np.ndarray, columns: Sequence[str], where: str, name: str, kind: str
) -> None:
    """CompareError when the metric is undefined on some resamples (counted, first column
    named): a p-value or interval from the defined ones alone would be biased."""
    undefined = undefined_resamples(values, columns)
    if undefined is not None:
        count, col = undefined
        raise CompareError(
            f"{where}: metric {name!r} is undefined on {count} of "
            f"{values.shape[0]} {kind} resamples (first for {col}; e.g. a correlation of "
            "constant values); too few or too uniform items for this metric"
        )


def _count_extreme(null: np.ndarray, observed: float, alternative: str, tol: float) -> int:
    """#{null at least as extreme as observed}; two-sided compares |null| with |observed|."""
    if alternative == "two-sided":
        return int((np.abs(null) >= abs(observed) - tol).sum())
    if alternative == "greater":
        return int((null >= observed - tol).sum())
    return int((null <= observed + tol).sum())


def _percentile_interval(
    d_star: np.ndarray, diff: float, alternative: str, level: float
) -> tuple[float, float]:
    """Bootstrap percentile interval of the difference (one-sided: the other end infinite)."""
    if np.ptp(d_star) == 0:
        lo = hi = diff
    else:
        alpha = (1.0 - level) / 2.0 if alternative == "two-sided" else 1.0 - level
        lo, hi = (float(v) for v in np.quantile(d_star, [alpha, 1.0 - alpha]))
    if alternative == "greater":
        hi = math.inf
    elif alternative == "less":
        lo = -math.inf
    return float(lo), float(hi)


def _dz_boot(diff: float, se: float, n: int) -> float:
    """diff / (sqrt(n)·SE*): Cohen's d_z when the metric is a mean; 0 or ±inf at SE* = 0."""
    den = math.sqrt(n) * se
    if den > 0:
        return diff / den
    return 0.0 if diff == 0 else math.copysign(math.inf, diff)


def declared_set_metrics(scores: Scores) -> dict[str, str]:
    """``{metric: set-level metric}`` for the metrics whose rows name one in a ``set_metric``
    column (an adapter's corpus-level metric, e.g. lm-eval's ``f1`` read as label/prediction
    pairs): their value is the set-level metric of all items, never the mean of ``value``.
    One metric with two different set-level metrics is an error."""
    df = scores.frame
    if "set_metric" not in df.columns:
        return {}
    rows = df.loc[df["set_metric"].notna(), ["metric", "set_metric"]].drop_duplicates()
    out: dict[str, str] = {}
    for m, sm in zip(rows["metric"], rows["set_metric"], strict=True):
        if str(m) in out and out[str(m)] != str(sm):
            raise CompareError(f"metric {m!r} is declared as set-level metric {out[str(m)]!r} "
                               f"in some rows and {sm!r} in others (column 'set_metric')")
        out[str(m)] = str(sm)
    return out
