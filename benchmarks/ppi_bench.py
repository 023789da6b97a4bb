"""Prediction-powered mean speed: ranger_eval.ppi_mean vs ppi_py.ppi_mean_ci (target: 1M items < 1 s).

    python benchmarks/ppi_bench.py [--n 1000000] [--labelled 0.05] [--repeat 5]
    python benchmarks/ppi_bench.py --compare [--systems 20] [--datasets 5] [--items 2000]

Workload: one system on one dataset with --n judge-scored items, a fraction --labelled of them
with a human score (the rest NaN in ``human_value``). Timed, each the best of --repeat runs:

  1. ``rg.ppi_mean(scores, system="A")`` on a built ``Scores`` (finding the system's rows, splitting
     labelled and unlabelled items, PPI++ λ, estimate and interval): the issue's target;
  2. ``ranger_eval.stats.ppi.prediction_powered_mean(y, yhat, yhat_unlabelled)``: the kernel alone;
  3. ``ppi_py.ppi_mean_ci(Y, Yhat, Yhat_unlabeled, alpha=0.05)`` plus
     ``ppi_mean_pointestimate`` on the same arrays (the peer computes the estimate and the
     interval in separate calls; ``ppi_mean(...)`` returns both).

Building the ``Scores`` table is timed separately (it is done once per analysis). The script
checks that the numbers agree (1e-10) and prints the versions and the ratios.

``--compare`` times ``rg.compare`` on judge scores with a ``human_value`` column instead:
--systems systems on --datasets datasets of --items items each (a fraction --labelled of the
items human-scored for every system), all pairs by the prediction-powered z test
(``comparison/ppi.py``; 20 systems × 5 datasets = 950 pairs), next to ``rg.compare`` on the same
scores without the ``human_value`` column (the vectorised paired t of the judge's scores), and
checks three pairs against ``rg.ppi_mean_difference`` (1e-10). Times depend on
the machine; benchmarks/README.md records the conditions of the quoted run.
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
    return float(best)


def compare_bench(systems: int, datasets: int, items: int, labelled: float,
                  repeat: int) -> None:
    """``rg.compare`` with and without the human scores (module docstring, ``--compare``)."""
    import ranger_eval as rg

    rng = np.random.default_rng(2026)
    frames = []
    names = [f"S{j:02d}" for j in range(systems)]
    for d in range(datasets):
        truth = rng.normal(size=items)
        has_human = rng.random(items) < labelled
        ids = pd.Series(np.arange(items)).astype(str).radd("q")
        for j, name in enumerate(names):
            human = truth + 0.02 * j + rng.normal(scale=0.5, size=items)
            judge = human + rng.normal(scale=0.3, size=items) + 0.1
            frames.append(pd.DataFrame({"dataset": f"d{d}", "system": name, "item": ids,
                                        "value": judge,
                                        "human_value": np.where(has_human, human, np.nan)}))
    frame = pd.concat(frames, ignore_index=True)
    judged = rg.Scores(frame)
    plain = rg.Scores(frame.drop(columns=["human_value"]))
    comp = rg.compare(judged)
    table = comp.table
    last, top = f"S{systems - 1:02d}", datasets - 1
    for a, b, d in (("S00", "S01", "d0"), ("S00", last, f"d{top // 2}"),
                    ("S01", last, f"d{top}")):
        row = table[(table.system_a == a) & (table.system_b == b) & (table.dataset == d)].iloc[0]
        ref = rg.ppi_mean_difference(judged, treatment=a, control=b, dataset=d)
        for got, want in ((row["diff"], ref.estimate), (row["ci_low"], ref.ci_low),
                          (row["pvalue"], ref.pvalue)):
            assert np.isclose(got, want, rtol=1e-10, atol=0.0), (a, b, d, got, want)
    ppi = _best(lambda: rg.compare(judged), repeat)
    base = _best(lambda: rg.compare(plain), repeat)
    print(f"ranger-eval {rg.__version__}, numpy {version('numpy')}, pandas {version('pandas')}")
    print(f"{systems} systems × {datasets} datasets × {items:,} items "
          f"({len(table):,} pairs, {labelled:.0%} of items human-scored); best of {repeat}")
    print(f"  {'rg.compare, human_value (PPI++ z of every pair)':<55} {ppi * 1e3:8.1f} ms")
    print(f"  {'rg.compare, no human_value (paired t of the judge)':<55} {base * 1e3:8.1f} ms")
    print("  three pairs equal rg.ppi_mean_difference at 1e-10")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=1_000_000)
    parser.add_argument("--labelled", type=float, default=0.05)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--compare", action="store_true",
                        help="time rg.compare on judge scores with human scores instead")
    parser.add_argument("--systems", type=int, default=20)
    parser.add_argument("--datasets", type=int, default=5)
    parser.add_argument("--items", type=int, default=2000)
    args = parser.parse_args()
    if args.compare:
        compare_bench(args.systems, args.datasets, args.items, args.labelled, args.repeat)
        return

    import ranger_eval as rg
    from ranger_eval.stats.ppi import prediction_powered_mean

    rng = np.random.default_rng(2026)
    truth = (rng.random(args.n) < 0.7).astype(float)
    judge = np.where(rng.random(args.n) < 0.1, 1.0 - truth, truth)
    human = np.where(rng.random(args.n) < args.labelled, truth, np.nan)
    frame = pd.DataFrame({"dataset": "d", "system": "A",
                          "item": pd.Series(np.arange(args.n)).astype(str),
                          "value": judge, "human_value": human})
    t = time.perf_counter()
    scores = rg.Scores(frame)
    build = time.perf_counter() - t
    lab = ~np.isnan(human)
    y, yhat, yu = truth[lab], judge[lab], judge[~lab]

    ours = rg.ppi_mean(scores, system="A")
    kernel = prediction_powered_mean(y, yhat, yu)
    try:
        from ppi_py import ppi_mean_ci, ppi_mean_pointestimate
    except ImportError:
        ppi_mean_ci = ppi_mean_pointestimate = None
    rows = [
        ("rg.ppi_mean(scores) [Scores → estimate + CI]",
         _best(lambda: rg.ppi_mean(scores, system="A"), args.repeat)),
        ("stats.ppi.prediction_powered_mean (arrays)",
         _best(lambda: prediction_powered_mean(y, yhat, yu), args.repeat)),
    ]
    if ppi_mean_ci is not None:
        lo, hi = ppi_mean_ci(y, yhat, yu, alpha=0.05)
        est = ppi_mean_pointestimate(y, yhat, yu)
        for a, b in ((ours.ci_low, lo), (ours.ci_high, hi), (ours.estimate, est),
                     (kernel.estimate, est)):
            assert np.isclose(a, float(np.ravel(b)[0]), rtol=1e-10), (a, b)
        rows.append(("ppi_py ppi_mean_ci + ppi_mean_pointestimate (arrays)",
                     _best(lambda: (ppi_mean_ci(y, yhat, yu, alpha=0.05),
                                    ppi_mean_pointestimate(y, yhat, yu)), args.repeat)))
    print(f"ranger-eval {rg.__version__}, numpy {version('numpy')}, pandas {version('pandas')}, "
          + (f"ppi-python {version('ppi-python')}" if ppi_mean_ci is not None
             else "ppi-python not installed (peer skipped)"))
    print(f"{args.n:,} items, {int(lab.sum()):,} with a human score; Scores built in "
          f"{build:.2f} s (once per analysis); best of {args.repeat}")
    peer = rows[2][1] if len(rows) > 2 else None
    for name, seconds in rows:
        ratio = f"  ({seconds / peer:.2f}× ppi_py)" if peer else ""
        print(f"  {name:<55} {seconds * 1e3:8.1f} ms{ratio}")
    print(f"estimate {ours.estimate:.6f} [{ours.ci_low:.6f}, {ours.ci_high:.6f}], λ = {ours.lam:.4f}"
          " (equal to ppi_py at 1e-10)" if peer else "")


if __name__ == "__main__":
    main()
