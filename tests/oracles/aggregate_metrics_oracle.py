"""Generate aggregate_metrics_oracle.json: IBM §6.1 and §6.3 aggregates by an independent route.

Oracle for tests/aggregate/test_aggregate_metrics.py. The paper (Ackerman et al. 2025) gives no
worked numbers for §6.1 or §6.3, so the expected values come from scipy and plain Python:

* §6.1 (``aggregate_metrics``): for every (dataset, metric) the pooled observations of all
  systems (and seeds) are standardised with ``scipy.stats.zscore(..., ddof=1)``, signed so that
  higher is better, and summed per (system, item[, seed]) with the weights normalised over the
  metrics of the dataset, in a Python dict. No pandas, no ranger_eval.
* §6.3 (``standardized_means``): raw samples are drawn per (dataset, system); the summaries
  (mean, sd with ddof=1, n) are what the test passes in, while the expected value uses the raw
  samples: the pooled SD from the within-system sums of squares of the raw values (not from the
  sds), the centre from ``numpy.mean`` of all pooled values, and the paper's scale
  ``S·sqrt(Σ_b 1/n_b)``.

Inputs and outputs are stored in the JSON (floats written with ``repr``, so they read back
exactly). The test compares at rtol 1e-12.

Usage: python tests/oracles/aggregate_metrics_oracle.py
"""
from __future__ import annotations

import json
import math
from collections import defaultdict
from importlib.metadata import version
from pathlib import Path

import numpy as np
from scipy.stats import zscore

HERE = Path(__file__).resolve().parent


def rows_case_multi(rng: np.random.Generator) -> list[dict]:
    """Two datasets with different metrics (one lower-is-better each) and different items."""
    rows = []
    spec = {
        "webq": (["nDCG@10", "AP", "latency_ms"], [f"q{i}" for i in range(1, 9)]),
        "qa": (["accuracy", "loss"], [f"ex-{i}" for i in range(1, 6)]),
    }
    for dataset, (metrics, items) in spec.items():
        for s, system in enumerate(["bm25", "dense", "hybrid"]):
            for metric in metrics:
                for item in items:
                    if metric == "latency_ms":
                        v = float(rng.gamma(2.0, 20.0 + 10 * s))
                    elif metric == "loss":
                        v = float(rng.exponential(0.5 + 0.2 * s))
                    elif metric == "accuracy":
                        v = float(rng.integers(0, 2))
                    else:
                        v = float(np.clip(rng.normal(0.4 + 0.1 * s, 0.2), 0, 1))
                    rows.append({"dataset": dataset, "system": system, "metric": metric,
                                 "item": item, "value": v})
    return rows


def rows_case_seeds(rng: np.random.Generator) -> list[dict]:
    rows = []
    for system in ["A", "B"]:
        for seed in ["1", "2", "3"]:
            for metric in ["f1", "rmse"]:
                for item in ["a", "b", "c", "d"]:
                    rows.append({"dataset": "d", "system": system, "metric": metric, "item": item,
                                 "seed": seed, "value": float(rng.normal(1.0, 0.3))})
    return rows


def aggregate(rows: list[dict], weights: dict, higher: dict) -> list[dict]:
    has_seed = "seed" in rows[0]
    by_dm: dict[tuple, list[int]] = defaultdict(list)
    for k, r in enumerate(rows):
        by_dm[(r["dataset"], r["metric"])].append(k)
    z = [0.0] * len(rows)
    for (_, metric), idx in by_dm.items():
        zs = zscore(np.array([rows[k]["value"] for k in idx]), ddof=1)
        for k, v in zip(idx, zs, strict=True):
            z[k] = float(v) * (1.0 if higher[metric] else -1.0)
    metrics_of: dict[str, set] = defaultdict(set)
    for r in rows:
        metrics_of[r["dataset"]].add(r["metric"])
    out: dict[tuple, float] = defaultdict(float)
    for k, r in enumerate(rows):
        total = sum(weights[m] for m in metrics_of[r["dataset"]])
        key = (r["dataset"], r["system"], r["item"]) + ((r["seed"],) if has_seed else ())
        out[key] += weights[r["metric"]] / total * z[k]
    names = ["dataset", "system", "item"] + (["seed"] if has_seed else [])
    return [dict(zip(names, key, strict=True), value=v) for key, v in out.items()]


def case_unpaired(rng: np.random.Generator) -> dict:
    """§6.3 from raw samples: 3 datasets × 2 metrics, 4 systems, unequal sizes."""
    systems = ["s1", "s2", "s3", "s4"]
    summary, expected = [], defaultdict(float)
    lists = [(d, m) for d in ("D1", "D2", "D3") for m in ("bleu", "wer")]
    weights = {lst: float(w) for lst, w in zip(lists, [1, 2, 1, 1, 3, 2], strict=True)}
    wsum = sum(weights.values())
    for dataset, metric in lists:
        samples = {}
        for b, system in enumerate(systems):
            n = int(rng.integers(5, 40))
            samples[system] = rng.normal(10.0 + b, 2.0 + 0.5 * b, n)
        pooled_values = np.concatenate(list(samples.values()))
        within = sum(float(np.sum((x - x.mean()) ** 2)) for x in samples.values())
        s_pooled = math.sqrt(within / (pooled_values.size - len(systems)))
        scale = s_pooled * math.sqrt(sum(1.0 / x.size for x in samples.values()))
        centre = float(np.mean(pooled_values))
        sign = 1.0 if metric == "bleu" else -1.0
        for system, x in samples.items():
            summary.append({"dataset": dataset, "metric": metric, "system": system,
                            "mean": float(x.mean()), "sd": float(x.std(ddof=1)), "n": int(x.size),
                            "weight": weights[(dataset, metric)]})
            w = weights[(dataset, metric)] / wsum
            expected[system] += w * sign * (x.mean() - centre) / scale
    return {"summary": summary, "expected": {s: float(v) for s, v in expected.items()}}


def main() -> None:
    rng = np.random.default_rng(20250601)
    multi = rows_case_multi(rng)
    w_multi = {"nDCG@10": 2.0, "AP": 1.0, "latency_ms": 1.0, "accuracy": 1.0, "loss": 3.0}
    h_multi = {"nDCG@10": True, "AP": True, "latency_ms": False, "accuracy": True, "loss": False}
    seeds = rows_case_seeds(rng)
    h_seeds = {"f1": True, "rmse": False}
    out = {
        "generator": "tests/oracles/aggregate_metrics_oracle.py",
        "versions": {"numpy": version("numpy"), "scipy": version("scipy")},
        "rtol": 1e-12,
        "multi": {"rows": multi, "weights": w_multi, "higher_is_better": h_multi,
                  "expected": aggregate(multi, w_multi, h_multi)},
        "equal_weights": {"expected": aggregate(multi, {m: 1.0 for m in w_multi}, h_multi)},
        "seeds": {"rows": seeds, "higher_is_better": h_seeds,
                  "expected": aggregate(seeds, {"f1": 1.0, "rmse": 1.0}, h_seeds)},
        "unpaired": case_unpaired(rng),
    }
    path = HERE / "aggregate_metrics_oracle.json"
    path.write_text(json.dumps(out, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
