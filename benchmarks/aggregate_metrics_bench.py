"""Speed of ranger_eval.aggregate.metrics.aggregate_metrics (IBM §6.1) against plain pandas.

    python benchmarks/aggregate_metrics_bench.py [--metrics 3] [--systems 20] [--items 100000]
                                                 [--repeats 3] [--seed 0] [--shuffle]

Workload: one dataset, --metrics metrics (nDCG@10, AP, latency, ...; latency is lower-is-better)
× --systems systems × --items items, one row each: 3 × 20 × 100,000 = 6,000,000 rows by default,
held in a ``Scores`` (string ids, as the readers produce them), in blocks of one (system, metric)
each listing the items in the same order, as readers produce them. --shuffle permutes the rows,
so items are matched by hashing their ids instead of comparing blocks.

Timed, best of --repeats calls after one warm-up call, in this process (wall-clock seconds, and
the CPU seconds of that call, which a busy machine disturbs less):

  ranger_eval   aggregate_metrics(scores)  → a validated Scores (includes building it)
  naive pandas  groupby(["dataset", "metric"]).transform("mean"/"std"), z-score, sign and
                weight columns, then groupby(["dataset", "system", "item"]).sum() — the
                obvious pandas implementation, returning a plain Series

The two results are checked to agree (max |difference| is printed). The target is well under a
second for the default workload.
"""
from __future__ import annotations

import argparse
import time

import numpy as np
import pandas as pd

from ranger_eval.aggregate.metrics import aggregate_metrics, metric_direction
from ranger_eval.scores import Scores

METRICS = ("nDCG@10", "AP", "latency", "RR", "P@10", "cost")


def make_scores(n_metrics: int, n_systems: int, n_items: int, seed: int) -> Scores:
    rng = np.random.default_rng(seed)
    items = pd.Series([f"q{i}" for i in range(n_items)], dtype=object)
    parts = []
    for metric in METRICS[:n_metrics]:
        for s in range(n_systems):
            parts.append(pd.DataFrame({
                "dataset": "collection", "system": f"system-{s:02d}", "metric": metric,
                "item": items, "value": rng.random(n_items),
            }))
    return Scores(pd.concat(parts, ignore_index=True))


def naive(scores: Scores) -> pd.Series:
    f = scores.frame
    grouped = f.groupby(["dataset", "metric"], sort=False)["value"]
    z = (f["value"] - grouped.transform("mean")) / grouped.transform("std")
    sign = f["metric"].map({m: 1.0 if metric_direction(m) else -1.0 for m in scores.metrics})
    n_metrics = f.groupby("dataset", sort=False)["metric"].transform("nunique")
    f = f.assign(z=z * sign / n_metrics)
    return f.groupby(["dataset", "system", "item"], sort=False)["z"].sum()


def best_of(fn, repeats: int) -> tuple[float, float, object]:
    out = fn()  # warm-up
    times = []
    for _ in range(repeats):
        t, c = time.perf_counter(), time.process_time()
        out = fn()
        times.append((time.perf_counter() - t, time.process_time() - c))
    wall, cpu = min(times)
    return wall, cpu, out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--metrics", type=int, default=3)
    ap.add_argument("--systems", type=int, default=20)
    ap.add_argument("--items", type=int, default=100_000)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--shuffle", action="store_true", help="permute the rows")
    args = ap.parse_args()
    if not 1 <= args.metrics <= len(METRICS):
        ap.error(f"--metrics must be between 1 and {len(METRICS)}")
    t = time.perf_counter()
    scores = make_scores(args.metrics, args.systems, args.items, args.seed)
    if args.shuffle:
        order = np.random.default_rng(args.seed).permutation(len(scores))
        scores = Scores(scores.frame.iloc[order].reset_index(drop=True))
    print(f"workload: {args.metrics} metrics × {args.systems} systems × {args.items:,} items = "
          f"{len(scores):,} rows{', shuffled' if args.shuffle else ''} "
          f"(built in {time.perf_counter() - t:.2f} s)")
    t_ours, c_ours, ours = best_of(lambda: aggregate_metrics(scores), args.repeats)
    t_naive, c_naive, ref = best_of(lambda: naive(scores), args.repeats)
    got = ours.frame.set_index(["dataset", "system", "item"])["value"]
    diff = float(np.max(np.abs(got.reindex(ref.index).to_numpy() - ref.to_numpy())))
    print(f"{'tool':<14}{'best s':>9}{'cpu s':>8}{'rows/s':>14}")
    for name, secs, cpu in (("ranger_eval", t_ours, c_ours), ("naive pandas", t_naive, c_naive)):
        print(f"{name:<14}{secs:>9.3f}{cpu:>8.3f}{len(scores) / secs:>14,.0f}")
    print(f"naive pandas / ranger_eval = {t_naive / t_ours:.1f}x; "
          f"max |difference| = {diff:.2e}; output rows: {len(ours):,}")


if __name__ == "__main__":
    main()
