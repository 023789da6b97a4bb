"""Benchmark of the held-out predictive check (Søgaard 2013) on synthetic data.

100 synthetic datasets (0/1 correctness of a control and a treatment, 200–2,000 items each,
heterogeneous true error reductions); ``predictive_check`` with k = 5, 10, 20, 30, 40, 50,
n_test = 5 and 200 random splits per k (``n_resamples``): error reductions with 50 paired bootstrap resamples, then all
five estimators (random effects by DerSimonian–Laird, vectorised) on 1,200 draws. Prints the time
end to end, of the effects and of the draws + estimators alone, and, for comparison, with the
random-effects estimator fitted by ``meta_analysis`` per draw (``method="REML"``, no closed form).
Timings are single runs after a warm-up (expect some noise on a shared machine).

Usage: python benchmarks/predictive_bench.py [--n-resamples 200] [--datasets 100]
"""
from __future__ import annotations

import argparse
import time

import numpy as np
import pandas as pd

from ranger_eval.aggregate.crossdataset import error_reduction, predictive_check
from ranger_eval.scores import Scores


def synthetic_scores(n_datasets: int, seed: int = 0) -> Scores:
    """Per-item 0/1 correctness of "control" and "treatment" on ``n_datasets`` datasets."""
    rng = np.random.default_rng(seed)
    frames = []
    for j in range(n_datasets):
        n = int(rng.integers(200, 2001))
        e_c = float(rng.uniform(0.1, 0.4))
        reduction = float(np.clip(rng.gumbel(0.05, 0.08), -0.5, 0.9))
        ctrl = (rng.random(n) >= e_c).astype(float)
        # the treatment fixes a share of the control's errors and adds a few of its own
        fixes = (ctrl == 0) & (rng.random(n) < max(reduction, 0.0) + 0.05)
        breaks = (ctrl == 1) & (rng.random(n) < e_c * (max(-reduction, 0.0) + 0.05))
        treat = np.where(fixes, 1.0, np.where(breaks, 0.0, ctrl))
        items = np.arange(n).astype(str)
        for system, values in (("control", ctrl), ("treatment", treat)):
            frames.append(pd.DataFrame({"dataset": f"d{j:03d}", "system": system,
                                        "item": items, "value": values}))
    return Scores(pd.concat(frames, ignore_index=True))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", type=int, default=100)
    parser.add_argument("--n-resamples", type=int, default=200,
                        help="random held-out splits per k")
    args = parser.parse_args()
    ks = tuple(k for k in (5, 10, 20, 30, 40, 50) if k + 5 <= args.datasets)

    scores = synthetic_scores(args.datasets)
    # warm-up (imports, scipy's first calls) on a small problem, not timed
    predictive_check(synthetic_scores(8, seed=1), treatment="treatment", control="control",
                     k=(2,), n_test=2, n_resamples=2)

    t0 = time.perf_counter()
    full = predictive_check(scores, treatment="treatment", control="control", k=ks, n_test=5,
                            n_resamples=args.n_resamples, seed=0)
    t1 = time.perf_counter()
    er = error_reduction(scores, treatment="treatment", control="control", n_resamples=50)
    t2 = time.perf_counter()
    res = predictive_check(er, k=ks, n_test=5, n_resamples=args.n_resamples, seed=0)
    t3 = time.perf_counter()
    reml = predictive_check(er, k=ks, n_test=5, n_resamples=args.n_resamples, seed=0, method="REML")
    t4 = time.perf_counter()

    draws = len(ks) * args.n_resamples
    print(f"{args.datasets} datasets ({len(scores):,} score rows), k = {ks}, n_test = 5, "
          f"{args.n_resamples} splits ({draws} draws × 5 estimators)")
    print(f"  predictive_check from Scores (effects, draws, estimators)  {t1 - t0:7.3f} s")
    print(f"  separately: error_reduction alone (50 paired bootstraps)    {t2 - t1:7.3f} s")
    print(f"  separately: predictive_check on the effects (DL vectorised) {t3 - t2:7.3f} s")
    print(f"  predictive_check on the effects, REML per draw ({draws} fits) {t4 - t3:7.3f} s")
    assert full.errors.equals(res.errors)
    print(res)
    print("REML random effects, mean absolute error by k:",
          reml.to_frame().query("estimator == 'random'")[["k", "mae"]].to_dict("list"))


if __name__ == "__main__":
    main()
