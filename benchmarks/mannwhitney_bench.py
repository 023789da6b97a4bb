"""All-pairs Mann–Whitney benchmark: ``ranger_eval.compare(test="mannwhitney")`` against a
``scipy.stats.mannwhitneyu`` loop.

Workload: 12 systems × 10 datasets × 2,000 items per system, every system scoring its own
items (unpaired: 66 independent-sample pairs per dataset, 660 tests). Ours tests every pair of
every dataset with one ``mannwhitneyu(axis=1)`` call per shape
(:func:`ranger_eval.stats.many_rank.mannwhitney_many`) and also reports a Welch t interval
and effect size per pair; the peer is a plain loop of ``scipy.stats.mannwhitneyu`` on
pre-split arrays (p-values only).

Both run in this process on the same data, taking turns (``--repeat R`` interleaved rounds);
the script prints each round's seconds and the median ratio scipy/ours, the load average and
max |Δp| between ours and scipy (0 expected). Usage::

    python benchmarks/mannwhitney_bench.py               # 660 tests, 5 rounds
    python benchmarks/mannwhitney_bench.py --quick       # 200 items, 3 rounds
"""
from __future__ import annotations

import argparse
import os
import statistics
import time

import numpy as np

K, DATASETS = 12, 10


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--items", type=int, default=2000)
    ap.add_argument("--repeat", type=int, default=5, help="interleaved rounds (median reported)")
    ap.add_argument("--quick", action="store_true", help="200 items, 3 rounds")
    a = ap.parse_args()
    n, repeat = (200, 3) if a.quick else (a.items, a.repeat)

    import pandas as pd
    import scipy.stats

    import ranger_eval as rg

    rng = np.random.default_rng(2029)
    v = np.round(rng.normal(0.5, 0.2, (DATASETS, K, n))
                 + np.linspace(0.0, 0.02, K)[None, :, None], 3)  # some ties
    idx = np.indices(v.shape).reshape(3, -1)
    system = np.array([f"s{i:02d}" for i in range(K)])[idx[1]]
    frame = pd.DataFrame({"dataset": np.array([f"d{i}" for i in range(DATASETS)])[idx[0]],
                          "system": system,
                          "item": np.char.add(system.astype(str), idx[2].astype(str)),
                          "value": v.reshape(-1)})
    scores = rg.Scores(frame)
    pairs = [(i, j) for i in range(K) for j in range(i + 1, K)]
    rg.compare(scores, test="mannwhitney", correction="none")  # warm-up
    rows = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        comp = rg.compare(scores, test="mannwhitney", correction="none")
        ours = time.perf_counter() - t0
        t0 = time.perf_counter()
        p_ref = [scipy.stats.mannwhitneyu(v[d, i], v[d, j]).pvalue
                 for d in range(DATASETS) for i, j in pairs]
        peer = time.perf_counter() - t0
        rows.append((ours, peer))
        print(f"round: ours {ours:.3f} s, peer loop {peer:.3f} s, ratio {peer / ours:.2f}x",
              flush=True)
    table = comp.to_frame()
    got = dict(zip(zip(table["dataset"], table["system_a"], table["system_b"], strict=True),
                   table["pvalue"], strict=True))
    keys = [(f"d{d}", f"s{i:02d}", f"s{j:02d}") for d in range(DATASETS) for i, j in pairs]
    dp = max(abs(got[k] - p) for k, p in zip(keys, p_ref, strict=True))
    print(f"\n{len(table)} tests ({K} systems x {DATASETS} datasets x {n} items, unpaired)")
    print(f"median ours {statistics.median(o for o, _ in rows):.3f} s, scipy loop "
          f"{statistics.median(p for _, p in rows):.3f} s, median ratio "
          f"{statistics.median(p / o for o, p in rows):.2f}x; max |dp| vs scipy {dp:.2e}; "
          f"load {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
