"""Whole-benchmark estimates from 100 random items: coverage, error and width of
``ranger_eval.estimate_from_subset`` beside the plain subset mean (Wilson interval) and the
item-response prediction alone (tinyBenchmarks-style point estimate, no interval).

No per-item correctness matrix of many real models could be obtained offline (tinyBenchmarks'
and metabench's leaderboard matrices are downloaded from Hugging Face at run time, not shipped in
their repositories), so the benchmark is a simulation calibrated to published summaries of MMLU
on the Open LLM Leaderboard:

* the benchmark: N = 14,042 items in 57 subjects, 4 answer choices each (MMLU's test set,
  Hendrycks et al. 2021, the benchmark tinyBenchmarks shrinks to 100 items, Polo et al. 2024);
* the models: accuracies from near chance (25 %) to about 85 %, the range of MMLU scores on the
  Open LLM Leaderboard (v1) that tinyBenchmarks (395 models) and metabench (Kipnis et al. 2024,
  more than 5,000 models) fit; the simulated population's accuracy percentiles are printed so
  the calibration can be checked;
* the published errors the table sits beside: tinyBenchmarks' gp-IRT at 100 items, mean
  absolute error about 2 points (Polo et al. 2024: 1.75 HellaSwag, 1.96 WinoGrande, 2.27 ARC,
  2.42 GSM8K as listed with the paper); metabench's reconstruction of one benchmark's score,
  RMSE 1.24 to 1.5 points (Kipnis et al. 2024, ICLR 2025 / arXiv v2 abstract).

The response model (our assumption where the papers give no number): a 3PL with guessing floor
c = 0.25 on every item (4 choices), discrimination a ~ lognormal(0, 0.5), difficulty b = the
1 + the subject's offset (N(0, 0.8²)) + N(0, 1.2²), ability θ ~ N(0, 1) times 1.4, and a model × subject
random effect u ~ N(0, 0.5²) added to θ on every item of the subject: items of a subject are NOT
independent given the overall ability, as on real benchmarks where a model is strong in some
subjects and weak in others. The predictor is a unidimensional Rasch model, so it is
misspecified three ways (no guessing floor, one discrimination, no subject effect), as real
predictors are. The history holds the systems outside the held-out set; the held-out set is the
strongest fifth of all systems plus as many drawn from the rest, so half of it lies beyond the
history's range (the case where benchmark predictors fail, "How Benchmark Prediction from Fewer
Data Misses the Mark", 2025). Each repetition draws a new subset of ``--n`` items (simple
random, or stratified in 5 strata) for every held-out system and runs
``rg.estimate_from_subset`` itself (about 8 ms a call at this size: 500 repetitions × 60
held-out systems take about four minutes). The last line is a JSON summary.

    python benchmarks/subset_eval.py [--items 14042] [--subjects 57] [--systems 150] [--n 100]
                                     [--reps 500] [--strat-reps 100] [--quick]
"""
from __future__ import annotations

import argparse
import json
import time
import warnings

import numpy as np

import ranger_eval as rg
from ranger_eval.errors import RangerWarning


def population(n_items: int, n_subjects: int, n_systems: int,
               seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Systems × items 0/1 results of the calibrated 3PL with a model × subject effect, and the
    systems' overall abilities (module docstring)."""
    rng = np.random.default_rng(seed)
    weights = np.exp(rng.normal(0, 0.6, n_subjects))
    subject = rng.choice(n_subjects, n_items, p=weights / weights.sum())
    a = np.exp(rng.normal(0, 0.5, n_items))
    b = 1.0 + rng.normal(0, 0.8, n_subjects)[subject] + rng.normal(0, 1.2, n_items)
    theta = 1.4 * rng.normal(size=n_systems)
    u = rng.normal(0, 0.5, (n_systems, n_subjects))
    x = np.empty((n_systems, n_items), dtype=np.int8)
    for s in range(n_systems):  # row by row: 14,042 × 150 floats at once is 17 MB, fine, but
        eta = a * (theta[s] + u[s, subject] - b)  # the row loop keeps the peak small
        p = 0.25 + 0.75 / (1 + np.exp(-eta))
        x[s] = rng.random(n_items) < p
    return x, theta


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--items", type=int, default=14042)
    ap.add_argument("--subjects", type=int, default=57)
    ap.add_argument("--systems", type=int, default=150)
    ap.add_argument("--n", type=int, default=100)
    ap.add_argument("--reps", type=int, default=500)
    ap.add_argument("--strat-reps", type=int, default=100,
                    help="repetitions of the stratified design")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--quick", action="store_true",
                    help="20 repetitions on 4,000 items (a smoke run)")
    args = ap.parse_args()
    reps = 20 if args.quick else args.reps
    n_items = 4000 if args.quick else args.items
    strat_reps = min(reps, args.strat_reps)
    x, theta = population(n_items, args.subjects, args.systems, args.seed)
    acc = x.mean(1)
    print("model accuracies: min {:.3f}, 10/50/90 % {:.3f} / {:.3f} / {:.3f}, max {:.3f} "
          "(target: near 0.25 to about 0.85)".format(acc.min(), *np.quantile(acc, [.1, .5, .9]),
                                                     acc.max()), flush=True)
    rng = np.random.default_rng(args.seed + 1)
    order = np.argsort(theta)
    top = order[-(args.systems // 5):]
    others = rng.choice(order[:-(args.systems // 5)], top.size, replace=False)
    held = np.concatenate([top, others])
    history = np.delete(x, held, 0)
    items = np.arange(n_items)
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
    print(json.dumps({"items": n_items, "subjects": args.subjects, "systems": args.systems,
                      "accuracy_range": [float(acc.min()), float(acc.max())], "held_out": int(held.size),
                      "n": args.n, "rasch_fit_s": fit_s, "rows": rows}))


if __name__ == "__main__":
    main()
