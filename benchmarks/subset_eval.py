"""Whole-benchmark estimates from 100 random items: coverage, error and width of
``ranger_eval.estimate_from_subset`` beside the plain subset mean (Wilson interval) and the
item-response prediction alone (tinyBenchmarks-style point estimate, no interval).

No per-item correctness matrix of many real models could be obtained offline (tinyBenchmarks'
and metabench's leaderboard matrices are downloaded from Hugging Face at run time, not shipped in
their repositories), so the benchmark is a simulation calibrated to published summaries of the
Open LLM Leaderboard (Polo et al. 2024; Kipnis et al. 2024, metabench): a 3PL population of N
items (discrimination a ~ lognormal(log 1.5, 0.5), difficulty b ~ N(0, 1.5), a guessing floor
c = 0.25 on half the items as on 4-choice MMLU items) and of systems with ability θ ~ N(0, 1).
The history holds the systems outside the held-out set; the held-out set is the strongest fifth
of all systems plus as many drawn from the rest, so half of it lies beyond the history's range
(the case where benchmark predictors fail, "How Benchmark Prediction from Fewer Data Misses the
Mark", 2025). The predictor is a Rasch model (misspecified: the data are 3PL). Each repetition
draws a new subset of ``--n`` items (simple random, or stratified in 5 strata) for every
held-out system. The last line is a JSON summary.

    python benchmarks/subset_eval.py [--items 4000] [--systems 150] [--n 100] [--reps 500]
                                     [--strat-reps 100]
"""
from __future__ import annotations

import argparse
import json
import time
import warnings

import numpy as np

import ranger_eval as rg
from ranger_eval.errors import RangerWarning


def population(n_items: int, n_systems: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    a = np.exp(rng.normal(np.log(1.5), 0.5, n_items))
    b = rng.normal(0, 1.5, n_items)
    c = np.where(rng.random(n_items) < 0.5, 0.25, 0.0)
    theta = rng.normal(size=n_systems)
    p = c + (1 - c) / (1 + np.exp(-a * (theta[:, None] - b)))
    return (rng.random(p.shape) < p).astype(np.int8), theta


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--items", type=int, default=4000)
    ap.add_argument("--systems", type=int, default=150)
    ap.add_argument("--n", type=int, default=100)
    ap.add_argument("--reps", type=int, default=500)
    ap.add_argument("--strat-reps", type=int, default=100,
                    help="repetitions of the stratified design")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--quick", action="store_true", help="50 repetitions")
    args = ap.parse_args()
    reps = 50 if args.quick else args.reps
    strat_reps = min(reps, args.strat_reps)
    x, theta = population(args.items, args.systems, args.seed)
    rng = np.random.default_rng(args.seed + 1)
    order = np.argsort(theta)
    top = order[-(args.systems // 5):]
    others = rng.choice(order[:-(args.systems // 5)], top.size, replace=False)
    held = np.concatenate([top, others])
    history = np.delete(x, held, 0)
    items = np.arange(args.items)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RangerWarning)
        start = time.perf_counter()
        fit = rg.irt(history)
        fit_s = time.perf_counter() - start
        strat_design = [rg.choose_subset(history, args.n, method="stratified", seed=r)
                        for r in range(strat_reps)]
    truth = x[held].mean(1)
    rows = []
    for design in ("random", "stratified"):
        cover, err, err_plain, err_pred, width, width_w, eff, strong = ([] for _ in range(8))
        start = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RangerWarning)
            for r in range(strat_reps if design == "stratified" else reps):
                choice = strat_design[r] if design == "stratified" else None
                for j, s in enumerate(held):
                    idx = (np.array(choice.items) if choice is not None
                           else rng.choice(items, args.n, replace=False))
                    est = rg.estimate_from_subset(fit, dict(zip(idx.tolist(),
                                                                x[s, idx].tolist(), strict=True)),
                                                  design=choice, seed=r)
                    cover.append(est.low <= truth[j] <= est.high)
                    err.append(abs(est.estimate - truth[j]))
                    err_plain.append(abs(est.subset_mean - truth[j]))
                    err_pred.append(abs(est.predicted_mean - truth[j]))
                    width.append(est.high - est.low)
                    width_w.append(est.subset_high - est.subset_low)
                    eff.append(est.effective_n)
                    strong.append(j < top.size)
        strong_a = np.array(strong)
        cov_a, err_a = np.array(cover), np.array(err)
        row = {
            "design": design, "reps": strat_reps if design == "stratified" else reps, "intervals": int(cov_a.size),
            "coverage": float(cov_a.mean()),
            "coverage_strongest_fifth": float(cov_a[strong_a].mean()),
            "mae": float(err_a.mean()), "mae_plain": float(np.mean(err_plain)),
            "mae_prediction_only": float(np.mean(err_pred)),
            "mae_strongest_fifth": float(err_a[strong_a].mean()),
            "mae_plain_strongest_fifth": float(np.array(err_plain)[strong_a].mean()),
            "mae_prediction_only_strongest_fifth": float(np.array(err_pred)[strong_a].mean()),
            "width": float(np.mean(width)), "width_wilson": float(np.mean(width_w)),
            "median_effective_n": float(np.median(eff)),
            "seconds_per_estimate": (time.perf_counter() - start) / cov_a.size}
        rows.append(row)
        print(f"{design:>10}: coverage {row['coverage']:.3f} (strongest fifth "
              f"{row['coverage_strongest_fifth']:.3f}); MAE ours {100 * row['mae']:.2f} pts, "
              f"plain mean {100 * row['mae_plain']:.2f}, prediction only "
              f"{100 * row['mae_prediction_only']:.2f}; strongest fifth: ours "
              f"{100 * row['mae_strongest_fifth']:.2f}, plain "
              f"{100 * row['mae_plain_strongest_fifth']:.2f}, prediction only "
              f"{100 * row['mae_prediction_only_strongest_fifth']:.2f}; width "
              f"{100 * row['width']:.2f} vs Wilson {100 * row['width_wilson']:.2f} pts; "
              f"worth {row['median_effective_n']:.0f} random items (median)", flush=True)
    print(json.dumps({"items": args.items, "systems": args.systems, "held_out": int(held.size),
                      "n": args.n, "rasch_fit_s": fit_s, "rows": rows}))


if __name__ == "__main__":
    main()
