"""All-pairs comparison benchmark: ``ranger_eval.compare`` against plain scipy loops and peers.

Workload: 20 systems × 5 datasets × 3 metrics × 10,000 items, all pairs
(190 per dataset × metric, 2,850 tests).

* paired t-tests: ``rg.compare(scores, test="paired-t")`` vs a plain loop over
  ``scipy.stats.ttest_rel`` on pre-aligned arrays, autorank (one ``autorank`` call per dataset ×
  metric, its own test choice) and ranx (``compute_statistical_significance(stat_test="student")``
  per dataset × metric);
* paired permutation tests, 10,000 resamples: ``rg.compare(test="permutation")`` vs
  ``scipy.stats.permutation_test`` and ranx's Fisher randomisation test, both timed on a few
  pairs with fewer resamples and extrapolated linearly (pairs × resamples).

Each measurement runs in its own subprocess (same data from the same seed; imports done before
the clock starts, for every tool); ``--repeat R`` keeps the best of R runs of the t-test
timings (ours and the scipy loop alike: the machine is shared). The script prints seconds,
ratios to ours, the goals (≥ 5× faster than the scipy loop; permutation ≤ 10 s),
the load average, and max |Δp| between ours and scipy. Usage::

    python benchmarks/compare_bench.py              # full workload
    python benchmarks/compare_bench.py --repeat 3   # best of 3 for the t-test timings
    python benchmarks/compare_bench.py --quick      # 1,000 items (smoke run)
    python benchmarks/compare_bench.py --interleave 7   # paired t only: median of 7
                                                        # interleaved ratios (one process)
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time

import numpy as np

K, DATASETS, METRICS = 20, 5, 3


def _values(n: int) -> np.ndarray:
    """(datasets, metrics, systems, items) per-item scores with small system effects."""
    rng = np.random.default_rng(2024)
    base = rng.normal(0.5, 0.2, (DATASETS, METRICS, 1, n))
    shift = np.linspace(0.0, 0.02, K)[None, None, :, None]
    return base + shift + rng.normal(0.0, 0.1, (DATASETS, METRICS, K, n))


def _frame(v: np.ndarray):  # tidy table for Ranger
    import pandas as pd

    d, m, k, n = v.shape
    idx = np.indices(v.shape).reshape(4, -1)
    return pd.DataFrame({
        "dataset": np.array([f"d{i}" for i in range(d)])[idx[0]],
        "metric": np.array([f"m{i}" for i in range(m)])[idx[1]],
        "system": np.array([f"s{i:02d}" for i in range(k)])[idx[2]],
        "item": np.array([f"q{i}" for i in range(n)])[idx[3]],
        "value": v.reshape(-1),
    })


def _ours(n: int, test: str, resamples: int, repeat: int = 1) -> dict:
    import scipy.stats  # noqa: F401  (imported before timing, as in the scipy loop)
    import statsmodels.stats.multitest  # noqa: F401

    import ranger_eval as rg
    import ranger_eval.stats.many  # noqa: F401  (compare's lazy imports, before timing)
    import ranger_eval.stats.resampling  # noqa: F401

    compare = rg.compare
    scores = rg.Scores(_frame(_values(n)))
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        comp = compare(scores, test=test, n_resamples=resamples, correction="none")
        best = min(best, time.perf_counter() - t0)
    return {"seconds": best, "p": comp.to_frame()["pvalue"].tolist(), "tests": len(comp.table)}


def _pairs():
    return [(a, b) for a in range(K) for b in range(a + 1, K)]


def _scipy_t(n: int, repeat: int = 1) -> dict:
    from scipy import stats

    v = _values(n)
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        p = [float(stats.ttest_rel(v[d, m, a], v[d, m, b]).pvalue)
             for d in range(DATASETS) for m in range(METRICS) for a, b in _pairs()]
        best = min(best, time.perf_counter() - t0)
    return {"seconds": best, "p": p, "tests": len(p)}


def _interleaved_t(n: int, rounds: int) -> dict:
    """Ours and the scipy ``ttest_rel`` loop timed alternately in this one process, ``rounds``
    times (after one untimed warm-up of ours): the median of the per-round ratios scipy/ours is
    what the shared machine's load changes least."""
    import statistics

    import scipy.stats  # noqa: F401

    import ranger_eval as rg
    import ranger_eval.stats.many  # noqa: F401

    scores = rg.Scores(_frame(_values(n)))
    rg.compare(scores, test="paired-t", correction="none")
    ours, loop, ratios = [], [], []
    for _ in range(rounds):
        t0 = time.perf_counter()
        comp = rg.compare(scores, test="paired-t", correction="none")
        ours.append(time.perf_counter() - t0)
        sc = _scipy_t(n)
        loop.append(sc["seconds"])
        ratios.append(loop[-1] / ours[-1])
    dp = float(np.max(np.abs(comp.table["pvalue"].to_numpy() - np.array(sc["p"]))))
    return {"ours": ours, "scipy": loop, "ratios": ratios,
            "median_ratio": statistics.median(ratios), "max_dp": dp, "tests": len(comp.table)}


def _scipy_perm(n: int, resamples: int, sample_pairs: int, sample_resamples: int) -> dict:
    from scipy import stats

    v = _values(n)
    pairs = _pairs()[:sample_pairs]
    t0 = time.perf_counter()
    for a, b in pairs:
        stats.permutation_test(
            (v[0, 0, a], v[0, 0, b]), lambda x, y, axis: np.mean(x - y, axis=axis),
            permutation_type="samples", n_resamples=sample_resamples, vectorized=True,
            random_state=0,
        )
    sec = time.perf_counter() - t0
    total = DATASETS * METRICS * len(_pairs())
    return {"seconds": sec * total / len(pairs) * resamples / sample_resamples,
            "measured": sec, "extrapolated": True}


def _autorank(n: int) -> dict:
    import pandas as pd
    from autorank import autorank

    v = _values(n)
    t0 = time.perf_counter()
    for d in range(DATASETS):
        for m in range(METRICS):
            autorank(pd.DataFrame(v[d, m].T, columns=[f"s{i:02d}" for i in range(K)]),
                     alpha=0.05, verbose=False)
    return {"seconds": time.perf_counter() - t0}


def _ranx(n: int, stat_test: str, resamples: int, sample_groups: int) -> dict:
    from ranx.statistical_tests import compute_statistical_significance

    v = _values(n)
    names = [f"s{i:02d}" for i in range(K)]
    groups = [(d, m) for d in range(DATASETS) for m in range(METRICS)][:sample_groups]
    t0 = time.perf_counter()
    for d, m in groups:
        scores = {s: {"metric": v[d, m, i]} for i, s in enumerate(names)}
        compute_statistical_significance(names, scores, stat_test=stat_test,
                                         n_permutations=resamples)
    sec = time.perf_counter() - t0
    return {"seconds": sec * DATASETS * METRICS / len(groups), "measured": sec,
            "extrapolated": len(groups) < DATASETS * METRICS}


def _child(args: argparse.Namespace) -> None:
    kind, n = args.child, args.items
    if kind == "ours-t":
        out = _ours(n, "paired-t", 10_000, args.repeat)
    elif kind == "interleaved-t":
        out = _interleaved_t(n, args.repeat)
    elif kind == "ours-perm":
        out = _ours(n, "permutation", args.resamples)
    elif kind == "scipy-t":
        out = _scipy_t(n, args.repeat)
    elif kind == "scipy-perm":
        out = _scipy_perm(n, args.resamples, 2, 200)
    elif kind == "autorank":
        out = _autorank(n)
    elif kind == "ranx-t":
        out = _ranx(n, "student", 1000, DATASETS * METRICS)
    else:  # ranx-fisher: one dataset × metric with 100 permutations, extrapolated
        out = _ranx(n, "fisher", 100, 1)
        out["seconds"] *= args.resamples / 100
    print(json.dumps(out))


def _run(kind: str, n: int, resamples: int, repeat: int = 1) -> dict | None:
    cmd = [sys.executable, __file__, "--child", kind, "--items", str(n),
           "--resamples", str(resamples), "--repeat", str(repeat)]
    res = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if res.returncode != 0:
        last = (res.stderr.strip().splitlines() or ["?"])[-1]
        print(f"  {kind}: skipped ({last})")
        return None
    return dict(json.loads(res.stdout.strip().splitlines()[-1]))


def _versions() -> str:
    import importlib.metadata as md

    out = []
    for pkg in ("ranger-eval", "numpy", "scipy", "autorank", "ranx"):
        try:
            out.append(f"{pkg} {md.version(pkg)}")
        except md.PackageNotFoundError:
            out.append(f"{pkg} (not installed)")
    return ", ".join(out)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--items", type=int, default=10_000)
    ap.add_argument("--resamples", type=int, default=10_000)
    ap.add_argument("--repeat", type=int, default=1,
                    help="best of R runs for the t-test timings (ours and scipy)")
    ap.add_argument("--quick", action="store_true", help="1,000 items")
    ap.add_argument("--interleave", type=int, default=0, metavar="R",
                    help="only the paired t row: ours and the scipy loop alternately R times in "
                         "one process; prints each ratio and their median")
    ap.add_argument("--child", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.quick:
        args.items = 1_000
    if args.child:
        _child(args)
        return
    n = args.items
    print(f"workload: {K} systems x {DATASETS} datasets x {METRICS} metrics x {n} items "
          f"({DATASETS * METRICS * K * (K - 1) // 2} pairwise tests); {_versions()}")
    print("load average (1, 5, 15 min): {:.2f} {:.2f} {:.2f} on {} cores".format(
        *os.getloadavg(), os.cpu_count()))
    if args.interleave:
        r = _run("interleaved-t", n, args.resamples, args.interleave)
        if r is not None:
            print(f"paired t-tests, ours and the scipy ttest_rel loop interleaved {args.interleave}x:")
            print("  ours  (s): " + " ".join(f"{v:.3f}" for v in r["ours"]))
            print("  scipy (s): " + " ".join(f"{v:.3f}" for v in r["scipy"]))
            print("  ratios   : " + " ".join(f"{v:.2f}" for v in r["ratios"]))
            print(f"  median ratio scipy/ours {r['median_ratio']:.2f}x (goal >= 5x: "
                  f"{'met' if r['median_ratio'] >= 5 else 'NOT met'}); max |p_ours - p_scipy| = "
                  f"{r['max_dp']:.3g} over {r['tests']} tests")
        print("load average (1, 5, 15 min): {:.2f} {:.2f} {:.2f}".format(*os.getloadavg()))
        return
    print("paired t-tests" + (f" (best of {args.repeat})" if args.repeat > 1 else ""))
    ours = _run("ours-t", n, args.resamples, args.repeat)
    scipy_t = _run("scipy-t", n, args.resamples, args.repeat)
    rows = [("ranger compare", ours), ("scipy ttest_rel loop", scipy_t),
            ("autorank", _run("autorank", n, args.resamples)),
            ("ranx student", _run("ranx-t", n, args.resamples))]
    for name, r in rows:
        if r is not None and ours is not None:
            print(f"  {name:28s} {r['seconds']:9.2f} s   x{r['seconds'] / ours['seconds']:.1f} ours")
    if ours and scipy_t:
        dp = np.max(np.abs(np.array(ours["p"]) - np.array(scipy_t["p"])))
        print(f"  max |p_ours - p_scipy| = {dp:.3g} over {ours['tests']} tests")
        speedup = scipy_t["seconds"] / ours["seconds"]
        print(f"  goal: >= 5x faster than the scipy loop; now {speedup:.1f}x "
              f"({'met' if speedup >= 5 else 'NOT met'})")
    print(f"paired permutation tests, {args.resamples} resamples")
    ours_p = _run("ours-perm", n, args.resamples)
    rows = [("ranger compare", ours_p),
            ("scipy permutation_test (extrap.)", _run("scipy-perm", n, args.resamples)),
            ("ranx fisher (extrap.)", _run("ranx-fisher", n, args.resamples))]
    for name, r in rows:
        if r is not None and ours_p is not None:
            print(f"  {name:32s} {r['seconds']:10.1f} s   x{r['seconds'] / ours_p['seconds']:.0f} ours")
    if ours_p is not None:
        goal = 10.0 * args.resamples / 10_000 * n / 10_000
        print(f"  goal: <= {goal:.3g} s; now {ours_p['seconds']:.2f} s "
              f"({'met' if ours_p['seconds'] <= goal else 'NOT met'})")
    print("load average (1, 5, 15 min): {:.2f} {:.2f} {:.2f}".format(*os.getloadavg()))


if __name__ == "__main__":
    main()
