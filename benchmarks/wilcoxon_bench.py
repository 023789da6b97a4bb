"""All-pairs Wilcoxon benchmark: ``ranger_eval.compare(test="wilcoxon")`` against a scipy loop.

Workload (issue 29): 12 systems × 10 datasets × 2,000 items, all pairs (66 per dataset, 660
tests). Ours computes, for every pair, the signed-rank statistic and p-value *and* R's
Hodges–Lehmann estimate and confidence interval (``wilcox.test(conf.int=TRUE)``: at n = 2,000
the normal-approximation roots found by ``uniroot``); the peer is a plain loop of
``scipy.stats.wilcoxon`` on pre-aligned arrays, which computes no interval.

Both run in this process on the same data, taking turns (``--repeat R`` interleaved rounds,
ours then scipy), so a busy machine slows them alike; the script prints each round's seconds
and ratio and the median ratio scipy/ours (the goal of issue 29: >= 5), the load average, and
max |Δp| between ours and scipy (0 expected: the same p-values). ``--ties`` rounds the scores
to a grid (ties and zero differences: the tied branch of the statistic). To time another
ranger_eval version, run the script with ``PYTHONPATH=/path/to/its/src``. Usage::

    python benchmarks/wilcoxon_bench.py               # 660 tests, 5 rounds
    python benchmarks/wilcoxon_bench.py --repeat 9
    python benchmarks/wilcoxon_bench.py --quick       # 200 items (smoke run)
"""
from __future__ import annotations

import argparse
import os
import statistics
import time

import numpy as np

K, DATASETS = 12, 10


def _values(n: int, ties: bool) -> np.ndarray:
    """(datasets, systems, items) per-item scores with small system effects."""
    rng = np.random.default_rng(2029)
    base = rng.normal(0.5, 0.2, (DATASETS, 1, n))
    shift = np.linspace(0.0, 0.02, K)[None, :, None]
    v = base + shift + rng.normal(0.0, 0.1, (DATASETS, K, n))
    return np.round(v * 20) / 20 if ties else v


def _frame(v: np.ndarray):  # tidy table for Ranger
    import pandas as pd

    d, k, n = v.shape
    idx = np.indices(v.shape).reshape(3, -1)
    return pd.DataFrame({
        "dataset": np.array([f"d{i}" for i in range(d)])[idx[0]],
        "system": np.array([f"s{i:02d}" for i in range(k)])[idx[1]],
        "item": np.array([f"q{i}" for i in range(n)])[idx[2]],
        "value": v.reshape(-1),
    })


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--items", type=int, default=2000)
    ap.add_argument("--repeat", type=int, default=5, help="interleaved rounds (median reported)")
    ap.add_argument("--quick", action="store_true", help="200 items, 3 rounds")
    ap.add_argument("--ties", action="store_true", help="scores on a 0.05 grid (ties, zeros)")
    a = ap.parse_args()
    n, repeat = (200, 3) if a.quick else (a.items, a.repeat)

    import scipy.stats

    import ranger_eval as rg
    import ranger_eval.stats.many  # noqa: F401  (compare's lazy imports, before timing)

    v = _values(n, a.ties)
    scores = rg.Scores(_frame(v))
    pairs = [(i, j) for i in range(K) for j in range(i + 1, K)]
    rg.compare(scores, test="wilcoxon", correction="none")  # warm-up (imports, caches)
    rows = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        comp = rg.compare(scores, test="wilcoxon", correction="none")
        ours = time.perf_counter() - t0
        t0 = time.perf_counter()
        p_ref = [scipy.stats.wilcoxon(v[d, i], v[d, j]).pvalue
                 for d in range(DATASETS) for i, j in pairs]
        peer = time.perf_counter() - t0
        rows.append((ours, peer))
        print(f"round: ours {ours:.3f} s, peer loop {peer:.3f} s, ratio {peer / ours:.2f}x",
              flush=True)
    table = comp.to_frame()
    ours_p = dict(zip(zip(table["dataset"], table["system_a"], table["system_b"], strict=True),
                      table["pvalue"], strict=True))
    ref = dict(zip([(f"d{d}", f"s{i:02d}", f"s{j:02d}") for d in range(DATASETS)
                    for i, j in pairs], p_ref, strict=True))
    dp = max(abs(ours_p[k] - ref[k]) for k in ref)
    hl = table["ci_low"].notna().sum()
    ratio = statistics.median(p / o for o, p in rows)
    print(f"\n{len(table)} tests ({K} systems x {DATASETS} datasets x {n} items"
          f"{', ties' if a.ties else ''}); {hl} Hodges-Lehmann intervals")
    print(f"median ours {statistics.median(o for o, _ in rows):.3f} s, scipy loop "
          f"{statistics.median(p for _, p in rows):.3f} s, median ratio {ratio:.2f}x "
          f"(goal >= 5x); max |dp| vs scipy {dp:.2e}; load {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
