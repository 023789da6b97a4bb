"""Confidence sequences: ours against confseq's ``betting.betting_cs`` on the same data.

Run: ``python benchmarks/confseq_bench.py [--n 1000000] [--peer-n 20000] [--repeat 3]``.
Times ``rg.confidence_sequence`` (betting, confseq's grid of 1,000 candidate means) on ``--n``
0/1 observations, then ours and confseq's betting_cs (its defaults) interleaved on ``--peer-n``
observations (confseq evaluates every candidate mean on every observation: 1,001 × n work, so
the peer runs at a size it handles), prints the medians, the ratio and the largest difference
of the two sequences. confseq 0.0.11 needs NumPy's removed ``np.float_``; the script restores it.
"""
from __future__ import annotations

import argparse
import json
import statistics
import time

import numpy as np

import ranger_eval as rg


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=1_000_000)
    ap.add_argument("--peer-n", type=int, default=20_000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--quick", action="store_true", help="--n 200000 --peer-n 5000 --repeat 2")
    args = ap.parse_args()
    if args.quick:
        args.n, args.peer_n, args.repeat = 200_000, 5_000, 2
    rng = np.random.default_rng(0)
    x = (rng.random(args.n) < 0.62).astype(float)
    rg.confidence_sequence(x[:1000])  # warm-up (imports)
    times = []
    for _ in range(args.repeat):
        t = time.perf_counter()
        rg.confidence_sequence(x)
        times.append(time.perf_counter() - t)
    big = statistics.median(times)
    print(f"rg.confidence_sequence (betting) on {args.n:,} observations: {big:.3f} s")
    rows = [{"workload": f"confidence sequence (betting), {args.n:,} observations",
             "ours_s": big, "peer": "confseq betting_cs", "peer_s": None,
             "note": "peer not run at this size (1,001 x n grid); target < 1 s"}]
    try:
        np.float_ = np.float64  # type: ignore[attr-defined]
        from confseq.betting import betting_cs
    except ImportError:
        print("confseq: not installed")
        rows.append({"workload": f"confidence sequence (betting), {args.peer_n:,} observations",
                     "ours_s": None, "peer": "confseq betting_cs", "peer_s": None,
                     "note": "peer not installed"})
        print(json.dumps({"rows": rows}))
        return
    y = x[: args.peer_n]
    ours, theirs = [], []
    for _ in range(args.repeat):
        t = time.perf_counter()
        cs = rg.confidence_sequence(y)
        ours.append(time.perf_counter() - t)
        t = time.perf_counter()
        lo, hi = betting_cs(y)
        theirs.append(time.perf_counter() - t)
    diff = max(np.abs(cs.lower - lo).max(), np.abs(cs.upper - hi).max())
    a, b = statistics.median(ours), statistics.median(theirs)
    print(f"on {args.peer_n:,} observations: ranger_eval {a:.4f} s, confseq betting_cs "
          f"{b:.3f} s; ratio {b / a:.0f}× (confseq / ranger_eval); largest difference {diff:.1e}")
    rows.append({"workload": f"confidence sequence (betting), {args.peer_n:,} observations",
                 "ours_s": a, "peer": "confseq 0.0.11 betting_cs", "peer_s": b,
                 "note": f"largest difference {diff:.1e}"})
    print(json.dumps({"rows": rows}))


if __name__ == "__main__":
    main()
