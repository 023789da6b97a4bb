"""Paired permutation test speed: ranger_eval vs scipy.stats.permutation_test vs deepsig.

    python benchmarks/sig_bench.py [--n 10000] [--resamples 10000] [--systems 20]
                                   [--deepsig-resamples 200]

Workloads (each tool runs in its own subprocess, so its peak RSS is its own):
  1. one pair, n items, B resamples, two-sided sign-flip test of the mean difference:
     ours (ranger_eval.stats.paired_permutation_test), scipy
     (permutation_test(..., permutation_type="samples", batch=1000, vectorized=True)), and
     deepsig.permutation_test (one-sided, pure-Python loop). deepsig is timed at
     --deepsig-resamples and extrapolated linearly to B (reported as such); if it cannot be
     imported the script says so and skips it.
  2. all pairs of --systems systems (190 for 20) on the same n items and B resamples, ours only,
     one shared sign matrix (paired_permutation_test_many).
Seconds exclude interpreter start-up, imports and data generation; peak RSS is the
subprocess's ru_maxrss (includes the interpreter and numpy/scipy).
"""
from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time

import numpy as np


def _data(n: int, systems: int = 2) -> np.ndarray:
    rng = np.random.default_rng(2024)
    quality = rng.uniform(0.40, 0.41, systems)  # close systems: p-values spread over (0, 1)
    difficulty = rng.beta(2, 2, n)
    return np.clip(quality[:, None] + difficulty[None, :] - 0.5 + rng.normal(0, 0.2, (systems, n)), 0, 1)


def _peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0  # Linux: KiB


def worker(tool: str, n: int, resamples: int, systems: int, deepsig_resamples: int) -> dict:
    if tool == "ours":
        from ranger_eval.stats import paired_permutation_test

        x, y = _data(n)
        best, p = np.inf, None
        for _ in range(3):
            t = time.perf_counter()
            p = paired_permutation_test(x, y, n_resamples=resamples, seed=0).pvalue
            best = min(best, time.perf_counter() - t)
        p_greater = paired_permutation_test(x, y, alternative="greater", n_resamples=resamples).pvalue
        return {"seconds": best, "pvalue": p, "pvalue_greater": p_greater, "resamples": resamples}
    if tool == "scipy":
        from scipy.stats import permutation_test

        x, y = _data(n)
        t = time.perf_counter()
        res = permutation_test(
            (x, y), lambda a, b, axis: np.mean(a - b, axis=axis), permutation_type="samples",
            n_resamples=resamples, batch=1000, vectorized=True, random_state=0,
        )
        return {"seconds": time.perf_counter() - t, "pvalue": float(res.pvalue),
                "resamples": resamples}
    if tool == "deepsig":
        try:
            from deepsig import permutation_test
        except Exception as exc:  # noqa: BLE001 - report any import failure and skip
            return {"skipped": f"deepsig not importable: {type(exc).__name__}: {exc}"}
        x, y = _data(n)
        t = time.perf_counter()
        p = permutation_test(x, y, num_samples=deepsig_resamples, seed=0)
        sec = time.perf_counter() - t
        return {"seconds_measured": sec, "resamples": deepsig_resamples, "pvalue_greater": float(p),
                "seconds": sec * resamples / deepsig_resamples, "extrapolated": True}
    if tool == "ours_many":
        from ranger_eval.stats import paired_permutation_test_many

        scores = _data(n, systems)
        t = time.perf_counter()
        i, j = np.triu_indices(systems, 1)
        diffs = scores[i] - scores[j]
        res = paired_permutation_test_many(diffs, n_resamples=resamples, seed=0)
        sec = time.perf_counter() - t
        return {"seconds": sec, "pairs": int(i.size), "min_p": float(res.pvalue.min()),
                "max_p": float(res.pvalue.max()), "resamples": resamples}
    raise ValueError(f"unknown tool {tool!r}")


def run(tool: str, args: argparse.Namespace) -> dict:
    cmd = [sys.executable, __file__, "--worker", tool, "--n", str(args.n), "--resamples",
           str(args.resamples), "--systems", str(args.systems), "--deepsig-resamples",
           str(args.deepsig_resamples)]
    out = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if out.returncode != 0:
        return {"skipped": f"worker failed: {out.stderr.strip().splitlines()[-1:]}"}
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--n", type=int, default=10_000)
    ap.add_argument("--resamples", type=int, default=10_000)
    ap.add_argument("--systems", type=int, default=20)
    ap.add_argument("--deepsig-resamples", type=int, default=200)
    ap.add_argument("--worker", default=None, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.worker:
        res = worker(args.worker, args.n, args.resamples, args.systems, args.deepsig_resamples)
        res["peak_rss_mb"] = _peak_mb()
        print(json.dumps(res))
        return

    print(f"paired permutation test, n = {args.n:,} items, B = {args.resamples:,} resamples")
    results = {tool: run(tool, args) for tool in ("ours", "scipy", "deepsig", "ours_many")}
    ours = results["ours"]
    print(f"{'tool':<34}{'seconds':>10}{'ratio':>10}{'peak RSS MB':>14}  p-value")
    print(f"{'ranger_eval (best of 3)':<34}{ours['seconds']:>10.3f}{1.0:>10.1f}"
          f"{ours['peak_rss_mb']:>14.0f}  {ours['pvalue']:.4f} (greater: {ours['pvalue_greater']:.4f})")
    sc = results["scipy"]
    if "skipped" in sc:
        print(f"{'scipy':<34}  skipped: {sc['skipped']}")
    else:
        print(f"{'scipy permutation_test':<34}{sc['seconds']:>10.3f}"
              f"{sc['seconds'] / ours['seconds']:>10.1f}{sc['peak_rss_mb']:>14.0f}  {sc['pvalue']:.4f}")
    ds = results["deepsig"]
    if "skipped" in ds:
        print(f"{'deepsig':<34}  skipped: {ds['skipped']}")
    else:
        print(f"{'deepsig permutation_test (extrap.)':<34}{ds['seconds']:>10.1f}"
              f"{ds['seconds'] / ours['seconds']:>10.0f}{ds['peak_rss_mb']:>14.0f}"
              f"  greater: {ds['pvalue_greater']:.4f} (at {ds['resamples']} resamples)")
        print(f"  deepsig measured {ds['seconds_measured']:.2f} s at {ds['resamples']} resamples; "
              f"extrapolated linearly x{args.resamples / ds['resamples']:.0f} to {args.resamples:,}")
    many = results["ours_many"]
    print(f"\nall pairs of {args.systems} systems ({many['pairs']} pairs) x {args.n:,} items x "
          f"{args.resamples:,} resamples, one shared sign matrix:")
    print(f"  ranger_eval: {many['seconds']:.2f} s, peak RSS {many['peak_rss_mb']:.0f} MB, "
          f"p in [{many['min_p']:.4g}, {many['max_p']:.4g}]")
    ok = []
    if "skipped" not in sc:
        ok.append(f"scipy ratio {sc['seconds'] / ours['seconds']:.1f} (target >= 10)")
    if "skipped" not in ds:
        ok.append(f"deepsig ratio {ds['seconds'] / ours['seconds']:.0f} (target >= 200)")
    ok.append(f"190-pair time {many['seconds']:.1f} s (target < 60)")
    ok.append(f"peak RSS {max(ours['peak_rss_mb'], many['peak_rss_mb']):.0f} MB (target < 1024)")
    print("targets: " + "; ".join(ok))


if __name__ == "__main__":
    main()
