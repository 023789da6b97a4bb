"""Coverage of compare's crossed random-effects interval with prompts, against the paired t.

    python benchmarks/crossed_coverage.py [--reps 2000] [--items 40] [--prompts 8] [--seed 0]

Each replicate draws the paired difference of two systems per item × prompt,
d_ip = mu + a_i + b_p + e_ip with a_i ~ N(0, 0.5^2), b_p ~ N(0, 0.3^2) (real prompt
variance: a prompt template that favours one system on every item), e_ip ~ N(0, 0.7^2), and a
random 10 % of the cells missing; then counts how often the 95 % interval covers mu for

* the crossed REML interval with Satterthwaite df (compare's test with a prompt column:
  :func:`ranger_eval.stats.crossed.crossed_mean_test`, lmerTest's),
* the pooled paired t: every item × prompt difference as an independent pair (n = cells),
* the paired t of the per-item means (what compare does when the prompt column is dropped).

Both t intervals leave out the prompt variance that every item shares, so they under-cover.
Prints the coverage with its Monte Carlo standard error, and a JSON line.
"""
from __future__ import annotations

import argparse
import json
import time

import numpy as np
from scipy import stats as sps


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=2000)
    ap.add_argument("--items", type=int, default=40)
    ap.add_argument("--prompts", type=int, default=8)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()

    from ranger_eval.stats.crossed import crossed_mean_test

    rng = np.random.default_rng(args.seed)
    n_i, n_p, mu = args.items, args.prompts, 0.1
    item = np.repeat(np.arange(n_i), n_p)
    prompt = np.tile(np.arange(n_p), n_i)
    hits = {"crossed": 0, "pooled": 0, "item_means": 0}
    dfs = []
    t0 = time.perf_counter()
    for _ in range(args.reps):
        keep = rng.random(item.size) >= 0.1
        d = (mu + 0.5 * rng.normal(size=n_i)[item] + 0.3 * rng.normal(size=n_p)[prompt]
             + 0.7 * rng.normal(size=item.size))[keep]
        it, pr = item[keep], prompt[keep]
        res = crossed_mean_test(d, it, pr)
        hits["crossed"] += res.ci_low <= mu <= res.ci_high
        dfs.append(res.df)
        n = d.size
        q = sps.t.ppf(0.975, n - 1)
        se = d.std(ddof=1) / np.sqrt(n)
        hits["pooled"] += abs(d.mean() - mu) <= q * se
        means = np.bincount(it, weights=d) / np.bincount(it)
        q = sps.t.ppf(0.975, n_i - 1)
        se = means.std(ddof=1) / np.sqrt(n_i)
        hits["item_means"] += abs(means.mean() - mu) <= q * se
    reps = args.reps
    out = {k: v / reps for k, v in hits.items()}
    mcse = {k: float(np.sqrt(v * (1 - v) / reps)) for k, v in out.items()}
    print(f"{reps} data sets, {n_i} items x {n_p} prompts (10 % of cells missing), "
          f"sd item 0.5, prompt 0.3, residual 0.7; {time.perf_counter() - t0:.0f} s")
    print(f"  crossed REML + Satterthwaite: {100 * out['crossed']:.1f} % "
          f"(MC se {100 * mcse['crossed']:.1f}; median df {np.median(dfs):.1f})")
    print(f"  pooled paired t (cells):      {100 * out['pooled']:.1f} % "
          f"(MC se {100 * mcse['pooled']:.1f})")
    print(f"  paired t of item means:       {100 * out['item_means']:.1f} % "
          f"(MC se {100 * mcse['item_means']:.1f})")
    print(json.dumps({"coverage": out, "mcse": mcse, "reps": reps, "items": n_i,
                      "prompts": n_p}))


if __name__ == "__main__":
    main()
