"""Rasch by conditional ML: ``ranger_eval.irt`` against R ``eRm::RM`` (same data, same run).

eRm's CML needs the item-by-item derivatives of the elementary symmetric functions (O(k²)
memory per iteration): it is timed at a size it handles (``--peer-items``), where ours is timed
on the same matrix, interleaved (``--repeat`` rounds, median ratio). Ours alone is then timed at
the target size (200 systems × 10,000 items, under 10 s), the 2PL too. The 2PL is timed against girth's
``twopl_mml`` when it is installed. The last line is the JSON row list of ``benchmarks/run.py``.

    python benchmarks/irt_bench.py [--systems 200] [--items 10000] [--peer-items 60] [--repeat 3]
"""
from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

import numpy as np

from ranger_eval.budget import irt


def simulate(n: int, k: int, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    theta = rng.normal(size=n)
    b = rng.normal(size=k)
    return (rng.random((n, k)) < 1 / (1 + np.exp(-(theta[:, None] - b)))).astype(np.int8)


def erm_seconds(x: np.ndarray) -> float | None:
    """eRm::RM's own time (system.time inside R, so R's start-up is not counted)."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "x.csv"
        np.savetxt(path, x, fmt="%d", delimiter=",")
        code = (f'suppressMessages(library(eRm)); X <- as.matrix(read.csv("{path}", header=FALSE));'
                f' cat(system.time(RM(X))[["elapsed"]])')
        try:
            out = subprocess.run(["Rscript", "-e", code], capture_output=True, text=True,
                                 timeout=600, check=True)
        except (OSError, subprocess.SubprocessError):
            return None
        return float(out.stdout.strip().split()[-1])


def ours_seconds(x: np.ndarray, model: str = "rasch") -> float:
    t = time.perf_counter()
    irt(x, model=model)
    return time.perf_counter() - t


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--systems", type=int, default=200)
    ap.add_argument("--items", type=int, default=10_000)
    ap.add_argument("--peer-items", type=int, default=60)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    rows = []
    small = simulate(args.systems, args.peer_items)
    small = small[:, (small.sum(0) > 0) & (small.sum(0) < args.systems)]
    ours, peer = [], []
    for _ in range(args.repeat):
        ours.append(ours_seconds(small))
        p = erm_seconds(small)
        if p is not None:
            peer.append(p)
    o = statistics.median(ours)
    w = f"Rasch CML, {args.systems} systems x {small.shape[1]} items"
    if peer:
        e = statistics.median(peer)
        print(f"  {w}: ranger_eval {o:.3f} s   eRm::RM {e:.3f} s   x{e / o:.1f} ours")
        rows.append({"workload": w, "ours_s": o, "peer": "eRm::RM", "peer_s": e})
    else:
        print(f"  {w}: ranger_eval {o:.3f} s   eRm not installed")
        rows.append({"workload": w, "ours_s": o, "peer": "eRm::RM", "peer_s": None,
                     "note": "peer not installed"})
    big = simulate(args.systems, args.items, seed=1)
    t = ours_seconds(big)
    w = f"Rasch CML, {args.systems} systems x {args.items} items"
    print(f"  {w}: ranger_eval {t:.2f} s (target < 10 s)")
    rows.append({"workload": w, "ours_s": t, "peer": "eRm::RM", "peer_s": None,
                 "note": "eRm's O(k^2)-per-item derivatives: not run at this size"})
    t2 = ours_seconds(big, "2pl")
    w = f"2PL marginal ML, {args.systems} systems x {args.items} items"
    print(f"  {w}: ranger_eval {t2:.2f} s")
    rows.append({"workload": w, "ours_s": t2, "peer": "girth twopl_mml", "peer_s": None,
                 "note": "peer timed at 1000 x 50 below"})
    try:
        from girth import twopl_mml
    except ImportError:
        twopl_mml = None
    if twopl_mml is not None:
        mid = simulate(1000, 50, seed=2)
        ours2, peer2 = [], []
        for _ in range(args.repeat):
            ours2.append(ours_seconds(mid, "2pl"))
            s = time.perf_counter()
            twopl_mml(mid.T.astype(int))
            peer2.append(time.perf_counter() - s)
        o2, g2 = statistics.median(ours2), statistics.median(peer2)
        w = "2PL marginal ML, 1000 systems x 50 items"
        print(f"  {w}: ranger_eval {o2:.3f} s   girth {g2:.3f} s   x{g2 / o2:.1f} ours")
        rows.append({"workload": w, "ours_s": o2, "peer": "girth twopl_mml", "peer_s": g2})
    print(json.dumps({"rows": rows}))


if __name__ == "__main__":
    main()
