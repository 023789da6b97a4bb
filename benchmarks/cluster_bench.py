"""Speed of the clustered paths of ``compare`` against the unclustered ones, and of the
one-mean cluster-robust standard error against Inspect AI's ``stderr(cluster=...)``.

Workload (the items of ``compare_bench.py``): 20 systems ×
5 datasets × 3 metrics, all pairs (190 per dataset × metric, 2,850 tests), N items per dataset
in clusters of 10 (N/10 clusters; default N = 10,000):

* paired t: ``rg.compare(scores, test="paired-t")`` with and without the ``cluster`` column
  (goal: clustered within 2× of unclustered);
* bootstrap: ``rg.compare(scores, test="bootstrap", n_resamples=B)`` with and without clusters
  (goal: cluster bootstrap within 2× of the item bootstrap);
* one mean: ``ranger_eval.stats.clustered_mean_test`` vs Inspect's ``stderr(cluster=...)`` on
  one system's N scores (the same number to 1e-12 is checked).

Each timing is the best of ``--repeat`` runs in this process after one warm-up run (imports and
first-call costs excluded). Usage::

    python benchmarks/cluster_bench.py [--items 10000] [--resamples 1000] [--repeat 3]
"""
from __future__ import annotations

import argparse
import os
import time

import numpy as np
import pandas as pd

K, DATASETS, METRICS, CLUSTER_SIZE = 20, 5, 3, 10


def frame(n: int) -> pd.DataFrame:
    rng = np.random.default_rng(2026)
    cluster = np.arange(n) // CLUSTER_SIZE
    u = rng.normal(0.0, 0.1, (DATASETS, METRICS, 1, n // CLUSTER_SIZE + 1))[..., cluster]
    v = 0.5 + u + np.linspace(0, 0.02, K)[None, None, :, None] + rng.normal(
        0.0, 0.1, (DATASETS, METRICS, K, n))
    d, m, k, i = np.indices(v.shape).reshape(4, -1)
    return pd.DataFrame({
        "dataset": np.char.add("ds", d.astype(str)), "metric": np.char.add("m", m.astype(str)),
        "system": np.char.add("sys", k.astype(str)), "item": np.char.add("q", i.astype(str)),
        "value": v.reshape(-1), "cluster": np.char.add("c", cluster[i].astype(str)),
    })


def best(fn, repeat: int) -> float:
    fn()  # warm-up
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def main() -> None:
    import ranger_eval as rg
    from ranger_eval.stats import clustered_mean_test

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--items", type=int, default=10_000)
    ap.add_argument("--resamples", type=int, default=1000)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    df = frame(args.items)
    clustered = rg.Scores(df)
    plain = rg.Scores(df.drop(columns="cluster"))
    print(f"{K} systems x {DATASETS} datasets x {METRICS} metrics x {args.items} items "
          f"({args.items // CLUSTER_SIZE} clusters of {CLUSTER_SIZE}); 2,850 tests; "
          f"load average {os.getloadavg()[0]:.2f}")
    rows = []
    for test, extra in (("paired-t", {}), ("bootstrap", {"n_resamples": args.resamples})):
        t_plain = best(lambda test=test, extra=extra: rg.compare(plain, test=test, **extra),
                       args.repeat)
        t_cl = best(lambda test=test, extra=extra: rg.compare(clustered, test=test, **extra),
                    args.repeat)
        rows.append((test, t_plain, t_cl))
        print(f"{test:<10} unclustered {t_plain:7.2f} s   clustered {t_cl:7.2f} s   "
              f"ratio {t_cl / t_plain:5.2f} (goal <= 2)", flush=True)
    from inspect_ai import __version__ as inspect_version
    from inspect_ai.scorer import SampleScore, Score, stderr

    one = df[(df.dataset == "ds0") & (df.metric == "m0") & (df.system == "sys0")]
    scores = [SampleScore(score=Score(value=float(v)), sample_id=i,
                          sample_metadata={"c": c})
              for i, (v, c) in enumerate(zip(one["value"], one["cluster"], strict=True))]
    metric = stderr(cluster="c")
    values, ids = one["value"].to_numpy(), one["cluster"].to_numpy(dtype=object)
    t_inspect = best(lambda: metric(scores), args.repeat)
    t_ours = best(lambda: clustered_mean_test(values, clusters=ids), args.repeat)
    se_i, se_o = metric(scores), clustered_mean_test(values, clusters=ids).se
    print(f"one mean   Inspect {inspect_version} stderr(cluster) {t_inspect * 1e3:7.2f} ms   "
          f"ranger_eval {t_ours * 1e3:7.2f} ms   |rel diff| {abs(se_o - se_i) / se_i:.1e}")


if __name__ == "__main__":
    main()
