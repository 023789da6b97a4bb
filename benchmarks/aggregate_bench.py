"""Benchmark: ranger_eval.aggregate.rank_test against autorank and scikit-posthocs.

One input, 100 systems × 1,000 datasets (seeded normal scores with a per-system shift), timed in
the same process:

* ours: ``rank_test(df)`` — average ranks, Friedman χ²_F and p, Iman–Davenport, the Nemenyi CD,
  all 4,950 pairwise z and studentized-range p-values, and the CD-diagram cliques;
* scikit-posthocs: ``posthoc_nemenyi_friedman(df)`` — the 100 × 100 Nemenyi p-value matrix only
  (plus scipy's ``friedmanchisquare`` for the omnibus test, timed with it);
* autorank: ``autorank(df, force_mode="nonparametric")`` — Friedman, mean ranks and the CD (plus
  its descriptive statistics and effect sizes, which it always computes).

The numbers are also cross-checked (mean ranks vs autorank, Nemenyi p-values vs scikit-posthocs).
Each tool runs ``--repeat`` times (default 3) and the best time is reported.

Usage: pip install -e '.[oracle]'; python benchmarks/aggregate_bench.py [--systems 100]
[--datasets 1000] [--repeat 3] [--no-autorank]
"""
from __future__ import annotations

import argparse
import contextlib
import io
import time
import warnings
from collections.abc import Callable
from importlib.metadata import version

import numpy as np
import pandas as pd


def best_time(fn: Callable[[], object], repeat: int) -> tuple[float, object]:
    best, out = float("inf"), None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t0)
    return best, out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--systems", type=int, default=100)
    ap.add_argument("--datasets", type=int, default=1000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--no-autorank", action="store_true")
    args = ap.parse_args()

    from scipy import stats

    from ranger_eval import __version__
    from ranger_eval.aggregate import rank_test

    rng = np.random.default_rng(0)
    k, n = args.systems, args.datasets
    shift = np.linspace(0.0, 0.5, k)
    df = pd.DataFrame(rng.normal(shift, 1.0, (n, k)),
                      columns=[f"sys{j:03d}" for j in range(k)],
                      index=[f"ds{i:04d}" for i in range(n)])
    print(f"input: {k} systems x {n} datasets; ranger-eval {__version__}, scipy "
          f"{version('scipy')}, numpy {version('numpy')}")

    rank_test(df)  # warm-up (imports)
    t_ours, ours = best_time(lambda: rank_test(df), args.repeat)
    print(f"ranger_eval rank_test (Friedman + Nemenyi, all pairs, cliques): {t_ours:8.3f} s")

    rows: list[tuple[str, float]] = []
    try:
        import scikit_posthocs as sp

        def peer_sp():
            stats.friedmanchisquare(*df.to_numpy().T)
            return sp.posthoc_nemenyi_friedman(df)

        t_sp, sp_p = best_time(peer_sp, args.repeat)
        rows.append((f"scikit-posthocs {version('scikit-posthocs')} posthoc_nemenyi_friedman "
                     "+ scipy friedmanchisquare", t_sp))
        names = list(df.columns)
        pos = {s: i for i, s in enumerate(names)}
        pw = ours.pairwise
        want = sp_p.to_numpy()[pw["a"].map(pos).to_numpy(), pw["b"].map(pos).to_numpy()]
        diff = np.abs(pw["pvalue_adjusted"].to_numpy() - want)
        print(f"  check: max |Δ Nemenyi p| vs scikit-posthocs = {diff.max():.2e} "
              f"over {len(pw)} pairs")
    except ImportError:
        print("scikit-posthocs not installed (pip install scikit-posthocs)")

    if not args.no_autorank:
        try:
            from autorank import autorank

            def peer_ar():
                # autorank prints its result table when force_mode is set; keep it quiet
                with warnings.catch_warnings(), contextlib.redirect_stdout(io.StringIO()):
                    warnings.simplefilter("ignore")
                    return autorank(df, alpha=0.05, verbose=False, force_mode="nonparametric")

            t_ar, ar = best_time(peer_ar, args.repeat)
            rows.append((f"autorank {version('autorank')} (force_mode='nonparametric')", t_ar))
            mr = ar.rankdf["meanrank"]
            dr = np.abs(ours.average_ranks.reindex(mr.index).to_numpy() - mr.to_numpy()).max()
            print(f"  check: max |Δ mean rank| vs autorank = {dr:.2e}; CD ours "
                  f"{ours.critical_difference:.6f}, autorank {ar.cd:.6f}")
        except ImportError:
            print("autorank not installed (pip install autorank)")

    print()
    print(f"{'tool':<80} {'time (s)':>9} {'peer/ours':>10}")
    print(f"{'ranger_eval.aggregate.rank_test':<80} {t_ours:9.3f} {1.0:10.1f}")
    for name, t in rows:
        print(f"{name:<80} {t:9.3f} {t / t_ours:10.1f}")


if __name__ == "__main__":
    main()
