"""Almost Stochastic Order speed: rg.multi_aso vs deepsig.multi_aso on 5 × 1,000-score distributions.

    python benchmarks/aso_bench.py [--systems 5] [--n 1000] [--bootstrap 1000] [--deepsig-rounds 2,6]

Workload: --systems score distributions of --n scores each (normal, means 0, 0.05, …), all
k(k − 1)/2 pairs with --bootstrap resamples and Bonferroni, as deepsig's ``multi_aso``.
ranger_eval runs the full workload (best of 3). deepsig (one job, no progress bar) sorts the
scores inside ``np.vectorize`` once per quantile evaluated, so 1,000 rounds of 10 pairs take
about half an hour: it runs at the two round counts of --deepsig-rounds and its time at
--bootstrap rounds is extrapolated linearly (time = fixed + rounds × per-round; the rounds are
independent and identical in cost). The script also checks that both give the same ε_min for the
same bootstrap draws (deepsig's legacy seeding replayed into ranger_eval's kernel) and prints
the versions. Times depend on the machine; benchmarks/README.md records the quoted run.
"""
from __future__ import annotations

import argparse
import time
import warnings
from importlib.metadata import version

import numpy as np


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--systems", type=int, default=5)
    parser.add_argument("--n", type=int, default=1000)
    parser.add_argument("--bootstrap", type=int, default=1000)
    parser.add_argument("--deepsig-rounds", default="2,6")
    args = parser.parse_args()

    import ranger_eval as rg
    from ranger_eval.verdicts.aso import _aso_core, deepsig_draws

    rng = np.random.default_rng(0)
    scores = {f"s{i}": rng.normal(0.05 * i, 1.0, args.n) for i in range(args.systems)}
    ours = np.inf
    for _ in range(3):
        t = time.perf_counter()
        mat = rg.multi_aso(scores, n_resamples=args.bootstrap, seed=0, correction="deepsig")
        ours = min(ours, time.perf_counter() - t)
    print(f"ranger_eval {rg.__version__}: multi_aso {args.systems} × {args.n} scores, "
          f"{args.bootstrap} resamples: {ours:.3f} s")
    print(mat.round(3).to_string())
    try:
        from deepsig import aso as ds_aso
        from deepsig import multi_aso as ds_multi
    except ImportError:
        print("deepsig: not installed")
        return
    warnings.filterwarnings("ignore")
    r0, r1 = (int(x) for x in args.deepsig_rounds.split(","))
    times = []
    for rounds in (r0, r1):
        t = time.perf_counter()
        ds_multi(scores, num_bootstrap_iterations=rounds, seed=0, num_jobs=1,
                 show_progress=False)
        times.append(time.perf_counter() - t)
    per_round = (times[1] - times[0]) / (r1 - r0)
    fixed = times[0] - r0 * per_round
    full = fixed + args.bootstrap * per_round
    print(f"deepsig {version('deepsig')}: multi_aso at {r0} / {r1} rounds {times[0]:.2f} s / "
          f"{times[1]:.2f} s → {per_round:.3f} s per round; extrapolated to {args.bootstrap} "
          f"rounds: {full:.0f} s ({full / ours:.0f}× ranger_eval's time)")
    a, b = scores["s1"], scores["s0"]
    eps = ds_aso(a, b, num_bootstrap_iterations=r0, seed=3, num_jobs=1, show_progress=False)
    ia, ib = deepsig_draws(len(a), len(b), r0, 3)
    mine = _aso_core(a, b, 0.95, ia, ib)[2]
    print(f"same draws ({r0} rounds): deepsig ε_min {eps:.15f}, ranger_eval {mine:.15f}, "
          f"|diff| {abs(eps - mine):.1e}")


if __name__ == "__main__":
    main()
