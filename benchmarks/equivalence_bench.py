"""Equivalence (TOST) speed: compare(hypothesis="equivalence") vs statsmodels' ttost_paired per pair.

    python benchmarks/equivalence_bench.py [--systems 20] [--datasets 15] [--items 500] [--repeat 3]

Workload: --systems systems scored on the same --items items of each of --datasets datasets
(numeric scores), all pairs per dataset (20 systems × 15 datasets = 2,850 pairs). Timed, each the
best of --repeat runs:

  1. ``rg.compare(scores)`` (superiority, the vectorised all-pairs engine): the reference;
  2. ``rg.compare(scores, hypothesis="equivalence", margin=0.1)``: the same table with two
     one-sided t tests per pair (``ranger_eval.stats.equivalence``), pairs of one dataset as
     one matrix;
  3. ``statsmodels.stats.weightstats.ttost_paired(x, y, -0.1, 0.1)`` called once per pair on the
     same aligned arrays (the peer has no all-pairs form).

The script checks that the p-values agree (1e-10 relative) and prints the versions and ratios.
Times depend on the machine; quote them with its load.
"""
from __future__ import annotations

import argparse
import time
from importlib.metadata import version

import numpy as np
import pandas as pd


def _best(fn, repeat: int) -> float:  # type: ignore[no-untyped-def]
    best = np.inf
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t)
    return best


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--systems", type=int, default=20)
    ap.add_argument("--datasets", type=int, default=15)
    ap.add_argument("--items", type=int, default=500)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()

    from statsmodels.stats.weightstats import ttost_paired

    import ranger_eval as rg

    rng = np.random.default_rng(0)
    frames, arrays = [], {}
    for d in range(args.datasets):
        base = rng.normal(size=args.items)
        for s in range(args.systems):
            v = base + rng.normal(0.005 * s, 0.5, args.items)
            arrays[(f"d{d}", f"s{s}")] = v
            frames.append(pd.DataFrame({"dataset": f"d{d}", "system": f"s{s}",
                                        "item": np.arange(args.items).astype(str), "value": v}))
    scores = rg.Scores(pd.concat(frames, ignore_index=True))
    rg.compare(scores.filter(datasets=["d0"]))  # imports and first-call work, untimed

    sup = _best(lambda: rg.compare(scores), args.repeat)
    eqv = _best(lambda: rg.compare(scores, hypothesis="equivalence", margin=0.1), args.repeat)
    table = rg.compare(scores, hypothesis="equivalence", margin=0.1).table
    pairs = list(zip(table["dataset"], table["system_a"], table["system_b"], strict=True))

    def peer() -> list[float]:
        return [float(ttost_paired(arrays[(d, a)], arrays[(d, b)], -0.1, 0.1)[0])
                for d, a, b in pairs]

    peer_t = _best(peer, args.repeat)
    np.testing.assert_allclose(table["pvalue"].to_numpy(), peer(), rtol=1e-10)
    print(f"{len(table):,} pairs ({args.systems} systems × {args.datasets} datasets × "
          f"{args.items} items); ranger-eval {rg.__version__}, statsmodels "
          f"{version('statsmodels')}; p-values agree to 1e-10")
    print(f"  compare (superiority)            {sup:8.3f} s")
    print(f"  compare (equivalence, TOST)      {eqv:8.3f} s   {eqv / sup:5.2f}× superiority")
    print(f"  statsmodels ttost_paired / pair  {peer_t:8.3f} s   {peer_t / eqv:5.1f}× ours")


if __name__ == "__main__":
    main()
