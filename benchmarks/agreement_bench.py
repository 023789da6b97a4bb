"""Agreement speed: rg.agreement (Krippendorff's α with a 1,000-round bootstrap over items) vs
``krippendorff.alpha`` called once per round on the same resampled tables.

    python benchmarks/agreement_bench.py [--items 10000] [--raters 5] [--resamples 1000]
                                         [--scale interval] [--repeat 3] [--quick]

Workload: --items items × --raters raters of 1-5 ratings around a true value, 10 % missing;
the percentile interval of α from --resamples bootstrap rounds over items. ranger_eval draws
the rounds with ``numpy.random.default_rng(seed).integers`` and computes every round from
per-item sums multiplied by the rounds × items weight matrix; the peer (the ``krippendorff``
package, what a user would loop over) recomputes α on each resampled reliability matrix with the
same draws, so both give the same interval (checked to 1e-9). Repeats are interleaved (ours,
peer, ours, …) and the median of each is reported; ``--quick`` runs 2,000 items, 200 rounds.
The last line is a JSON object with the rows of benchmarks/run.py.
"""
from __future__ import annotations

import argparse
import json
import statistics
import time
from importlib.metadata import version

import numpy as np
import pandas as pd


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=10_000)
    parser.add_argument("--raters", type=int, default=5)
    parser.add_argument("--resamples", type=int, default=1000)
    parser.add_argument("--scale", default="interval")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    if args.quick:
        args.items, args.resamples = 2000, 200

    import ranger_eval as rg

    rng = np.random.default_rng(0)
    truth = rng.integers(1, 6, args.items)
    x = np.clip(truth[:, None] + rng.integers(-1, 2, (args.items, args.raters)), 1, 5)
    x = x.astype(float)
    x[rng.random(x.shape) < 0.1] = np.nan
    table = pd.DataFrame({"item": np.repeat(np.arange(args.items), args.raters),
                          "rater": np.tile([f"r{r}" for r in range(args.raters)], args.items),
                          "value": x.ravel()})
    try:
        import krippendorff
    except ImportError:
        krippendorff = None

    def ours() -> tuple[float, float]:
        r = rg.agreement(table, scale=args.scale, n_resamples=args.resamples, seed=0)
        return r.low, r.high

    def peer() -> tuple[float, float]:
        draws = np.random.default_rng(0).integers(0, args.items, size=(args.resamples, args.items))
        boot = [krippendorff.alpha(reliability_data=x[d].T, level_of_measurement=args.scale)
                for d in draws]
        low, high = np.quantile(boot, [0.025, 0.975])
        return float(low), float(high)

    t_ours, t_peer = [], []
    for _ in range(args.repeat):
        t = time.perf_counter()
        a = ours()
        t_ours.append(time.perf_counter() - t)
        if krippendorff is not None:
            t = time.perf_counter()
            b = peer()
            t_peer.append(time.perf_counter() - t)
            assert np.allclose(a, b, rtol=0, atol=1e-9), (a, b)
    ours_s = statistics.median(t_ours)
    workload = (f"agreement, Krippendorff alpha ({args.scale}), {args.items:,} items x "
                f"{args.raters} raters, {args.resamples:,} bootstrap rounds")
    print(f"ranger_eval {rg.__version__}: {workload}: {ours_s:.3f} s (median of {args.repeat})")
    row = {"workload": workload, "ours_s": ours_s}
    if t_peer:
        peer_s = statistics.median(t_peer)
        print(f"krippendorff {version('krippendorff')} in a bootstrap loop, same draws: "
              f"{peer_s:.3f} s; ratio x{peer_s / ours_s:.1f}; same interval: {a}")
        row.update(peer=f"krippendorff {version('krippendorff')} (loop)", peer_s=peer_s)
    else:
        row.update(peer="krippendorff", note="peer not installed")
    print(json.dumps({"rows": [row]}))


if __name__ == "__main__":
    main()
