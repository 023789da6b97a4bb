"""Speed of the clustered Wilcoxon signed-rank test (Rosner, Glynn & Lee 2006) of every pair of
every group with array operations against the pair-by-pair path it replaced (one
``stats.clustered_signed_rank`` call per pair, the numbers are the same bit for bit:
tests/comparison/test_vectorised_paths.py).

Workloads (default sizes; ``--quick`` is what ``benchmarks/run.py`` runs):

* compare: ``rg.compare(scores, test="wilcoxon")`` on S systems × D datasets × N items in
  clusters of 1–3 items (unequal sizes: the weighted statistic), scores on a 0.05 grid (ties
  and zero differences), all pairs; the peer is the same call with
  ``ClusteredT.vectorise_signed_rank = False`` (pair by pair);
* kernel: ``stats.clustered_rank.clustered_signed_rank_rows`` on R rows × N items against a
  loop of ``stats.clustered_signed_rank`` over the rows.

Ours and the peer run alternately ``--repeat`` times in this process after one warm-up each
(the machine is shared: medians of interleaved runs). The last line printed is the JSON row
list ``benchmarks/run.py`` reads. Usage::

    python benchmarks/clustered_rank_bench.py [--quick] [--repeat 5]
"""
from __future__ import annotations

import argparse
import json
import statistics
import time
import warnings

import numpy as np
import pandas as pd


def frame(systems: int, datasets: int, n: int, seed: int = 29) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    rows = []
    for d in range(datasets):
        sizes = rng.integers(1, 4, size=n)
        cluster = np.repeat(np.arange(sizes.size), sizes)[:n]
        base = rng.normal(0.5, 0.15, n)
        for s in range(systems):
            v = np.round((base + rng.normal(0.01 * s, 0.1, n)) / 0.05) * 0.05
            rows.append(pd.DataFrame({"dataset": f"ds{d}", "system": f"sys{s}",
                                      "item": [f"q{i}" for i in range(n)],
                                      "cluster": [f"c{c}" for c in cluster], "value": v}))
    return pd.concat(rows, ignore_index=True)


def timed(fn) -> float:  # type: ignore[no-untyped-def]
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


def interleaved(ours, peer, repeat: int) -> tuple[float, float]:  # type: ignore[no-untyped-def]
    ours()
    peer()  # warm-up
    a, b = [], []
    for _ in range(repeat):
        a.append(timed(ours))
        b.append(timed(peer))
    return statistics.median(a), statistics.median(b)


def main() -> None:
    import ranger_eval as rg
    from ranger_eval.comparison.clustered import ClusteredT
    from ranger_eval.stats.clustered import clustered_signed_rank
    from ranger_eval.stats.clustered_rank import (
        clustered_signed_rank_rows,
        scaled_difference_rows,
    )

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="run.py's size")
    ap.add_argument("--items", type=int, default=0, help="items per dataset of the compare row")
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    s, ds, n = (12, 5, 300) if args.quick else (12, 10, 2000)
    if args.items:
        n = args.items
    rows_k, n_k = (500, 200) if args.quick else (2000, 1000)

    scores = rg.Scores(frame(s, ds, n))

    def run(vectorise: bool):  # type: ignore[no-untyped-def]
        def go() -> pd.DataFrame:
            ClusteredT.vectorise_signed_rank = vectorise
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    return rg.compare(scores, test="wilcoxon").table
            finally:
                ClusteredT.vectorise_signed_rank = True
        return go

    fast, slow = run(True)(), run(False)()
    pd.testing.assert_frame_equal(fast, slow, check_exact=True)
    ours_c, peer_c = interleaved(run(True), run(False), args.repeat)
    tests = len(fast)
    print(f"compare test='wilcoxon', {s} systems x {ds} datasets x {n} items "
          f"({tests} tests): ours {ours_c:.3f} s, pair by pair {peer_c:.3f} s, "
          f"x{peer_c / ours_c:.1f}")

    rng = np.random.default_rng(7)
    x = np.round(rng.normal(0.5, 0.2, (rows_k, n_k)) / 0.05) * 0.05
    y = np.round(rng.normal(0.5, 0.2, (rows_k, n_k)) / 0.05) * 0.05
    sizes = rng.integers(1, 4, size=n_k)
    codes = np.repeat(np.arange(sizes.size), sizes)[:n_k]

    def ours_k() -> np.ndarray:
        return clustered_signed_rank_rows(scaled_difference_rows(x, y), codes).pvalue

    def peer_k() -> np.ndarray:
        return np.array([clustered_signed_rank(x[r], y[r], clusters=codes).pvalue
                         for r in range(rows_k)])

    assert ours_k().tolist() == peer_k().tolist()
    ours_r, peer_r = interleaved(ours_k, peer_k, args.repeat)
    print(f"kernel, {rows_k} rows x {n_k} items: ours {ours_r:.3f} s, loop of "
          f"clustered_signed_rank {peer_r:.3f} s, x{peer_r / ours_r:.1f}")
    peer = "pair by pair (ranger_eval clustered_signed_rank)"
    print(json.dumps({"rows": [
        {"workload": f"clustered Wilcoxon (RGL) compare, {s} x {ds} x {n} ({tests} tests)",
         "ours_s": ours_c, "peer": peer, "peer_s": peer_c},
        {"workload": f"clustered Wilcoxon (RGL) kernel, {rows_k} rows x {n_k} items",
         "ours_s": ours_r, "peer": peer, "peer_s": peer_r},
    ]}))


if __name__ == "__main__":
    main()
