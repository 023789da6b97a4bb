"""Scale in the number of groups: G datasets × 2 systems × n items through ``ranger-eval compare``,
``ranger-eval rank`` and ``ranger-eval meta`` (issue 18, class 3).

    python benchmarks/groups_scale_bench.py [--groups 10000,100000,1000000] [--items 2]
                                            [--commands compare,rank] [--figures none]
                                            [--api] [--profile G] [--seed 0]

The tidy table (columns dataset, system, item, value; 4·G rows for 2 items) is written once per G
to a temporary Parquet file (not timed). Each command then runs in its own subprocess,
``ranger-eval <command> table.parquet --out DIR --figures none``, timed with a wall clock; its
peak RSS is the subprocess's own (``resource.getrusage(RUSAGE_CHILDREN)`` read before and after:
the largest child so far, so commands run from the smallest G up). ``--api`` also times
``rg.compare(rg.Scores(df))`` in a worker process. Time per group (µs) is printed so linearity
is visible: it should stay roughly constant as G grows. ``--profile G`` writes a cProfile of
the API compare at that G to ``compare_G.prof`` in the temporary folder and prints the top
entries; with ``rank`` among ``--commands`` it also profiles the whole ``ranger-eval rank`` run
(``pipeline.run_rank`` on the Parquet table, ``--figures none``: reading, ranking, outputs) to
``rank_G.prof``.

With 2 items per dataset every test has n = 2: the paired t statistic is defined (1 degree of
freedom) unless the two differences are equal, when compare reports it as degenerate (p = 1 or
the constant-difference rule of the test), never NaN by accident.
``meta`` (``--control A --treatment B``) needs at least 3 items per dataset: with 2, every SMD
is undefined and ``meta`` stops with an error listing them (correct, not a scale problem).
The machine's load makes timings noisy: run it twice.
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np


def make_table(groups: int, items: int = 2, seed: int = 0):  # noqa: ANN201
    """Tidy scores: ``groups`` datasets ("d0", ...) × systems A, B × ``items`` items ("q0", ...),
    values A ~ N(0.5, 0.1) per item, B = A + N(0.02, 0.05)."""
    import pandas as pd

    rng = np.random.default_rng(seed)
    total = groups * items
    a = rng.normal(0.5, 0.1, size=total)
    b = a + rng.normal(0.02, 0.05, size=total)
    ds = np.repeat(np.arange(groups), items)
    it = np.tile(np.arange(items), groups)
    dlab = pd.array([f"d{i}" for i in range(groups)], dtype="str")
    ilab = pd.array([f"q{i}" for i in range(items)], dtype="str")
    return pd.DataFrame({
        "dataset": dlab.take(np.concatenate([ds, ds])),
        "system": pd.array(["A", "B"], dtype="str").take(np.repeat([0, 1], total)),
        "item": ilab.take(np.concatenate([it, it])),
        "value": np.concatenate([a, b]),
    })


def _children_peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024.0


def api_worker(groups: int, items: int, seed: int, out: str, profile: bool) -> None:
    """Time ``Scores`` and ``compare`` in this process (optionally under cProfile)."""
    import ranger_eval as rg

    df = make_table(groups, items, seed)
    t0 = time.perf_counter()
    scores = rg.Scores(df)
    t_scores = time.perf_counter() - t0
    del df
    if profile:
        import cProfile
        import pstats

        prof = cProfile.Profile()
        t0 = time.perf_counter()
        prof.runcall(rg.compare, scores)
        t_compare = time.perf_counter() - t0
        prof.dump_stats(out + ".prof")
        pstats.Stats(out + ".prof").sort_stats("cumulative").print_stats(30)
    else:
        t0 = time.perf_counter()
        rg.compare(scores)
        t_compare = time.perf_counter() - t0
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0
    Path(out).write_text(json.dumps({"scores_s": t_scores, "compare_s": t_compare,
                                     "peak_mb": peak}))


def rank_profile_worker(groups: int, items: int, seed: int, out: str) -> None:
    """cProfile of ``ranger-eval rank`` as the CLI runs it (``pipeline.run_rank``), in this
    process, on the Parquet table of ``groups`` datasets; prints the top entries."""
    import cProfile
    import pstats

    from ranger_eval.pipeline import run_rank

    table = out + ".parquet"
    make_table(groups, items, seed).to_parquet(table)
    prof = cProfile.Profile()
    t0 = time.perf_counter()
    prof.runcall(run_rank, table, out + "_out", figures="none")
    wall = time.perf_counter() - t0
    prof.dump_stats(out + ".prof")
    Path(table).unlink()
    print(f"rank under cProfile: {wall:.1f} s")
    pstats.Stats(out + ".prof").sort_stats("cumulative").print_stats(40)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--groups", default="10000,100000,1000000")
    ap.add_argument("--items", type=int, default=2)
    ap.add_argument("--commands", default="compare,rank",
                    help="compare, rank, meta (meta needs --items 3 or more: with 2 items the "
                         "SMD of every dataset is undefined, and meta says so)")
    ap.add_argument("--figures", default="none", help="--figures of the commands (default none)")
    ap.add_argument("--api", action="store_true", help="also time rg.compare in a worker")
    ap.add_argument("--profile", type=int, default=0, help="cProfile the API compare at this G")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--worker", type=int, default=None, help=argparse.SUPPRESS)
    ap.add_argument("--out", default=None, help=argparse.SUPPRESS)
    ap.add_argument("--prof", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--rank-prof", action="store_true", help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.worker is not None:
        if a.rank_prof:
            rank_profile_worker(a.worker, a.items, a.seed, a.out)
        else:
            api_worker(a.worker, a.items, a.seed, a.out, a.prof)
        return
    import ranger_eval

    print(f"ranger_eval {ranger_eval.__version__}, numpy {np.__version__}, python "
          f"{sys.version.split()[0]}, {os.cpu_count()} cores; {a.items} items per dataset")
    tmp = Path(tempfile.mkdtemp(prefix="groups_scale_"))
    exe = [sys.executable, "-m", "ranger_eval.cli"]
    sizes = sorted(int(float(x)) for x in a.groups.split(","))
    if a.profile:
        out = str(tmp / f"compare_{a.profile}")
        subprocess.run([sys.executable, __file__, "--worker", str(a.profile), "--out", out,
                        "--items", str(a.items), "--seed", str(a.seed), "--prof"], check=True)
        print(f"profile: {out}.prof")
        if "rank" in a.commands.split(","):
            out = str(tmp / f"rank_{a.profile}")
            subprocess.run([sys.executable, __file__, "--worker", str(a.profile), "--out", out,
                            "--items", str(a.items), "--seed", str(a.seed), "--rank-prof"],
                           check=True)
            print(f"profile: {out}.prof")
    for g in sizes:
        table = tmp / f"g{g}.parquet"
        make_table(g, a.items, a.seed).to_parquet(table)
        print(f"\nG={g:,} ({4 * g * a.items // 2:,} rows, {table.stat().st_size / 1e6:.0f} MB "
              "Parquet)")
        for cmd in a.commands.split(","):
            before = _children_peak_mb()
            t0 = time.perf_counter()
            extra = ["--control", "A", "--treatment", "B"] if cmd == "meta" else []
            p = subprocess.run([*exe, cmd, str(table), "--out", str(tmp / f"{cmd}{g}"),
                                "--figures", a.figures, *extra], capture_output=True, text=True)
            wall = time.perf_counter() - t0
            peak = _children_peak_mb()
            mem = f"peak {peak:.0f} MB" if peak > before else f"peak <= {before:.0f} MB"
            status = "ok" if p.returncode == 0 else f"exit {p.returncode}: " \
                f"{(p.stderr.strip().splitlines() or [''])[-1][:200]}"
            print(f"  {cmd:8s} {wall:7.2f} s  {wall / g * 1e6:6.1f} µs/group  {mem}  {status}")
        if a.api:
            out = str(tmp / f"api{g}.json")
            subprocess.run([sys.executable, __file__, "--worker", str(g), "--out", out,
                            "--items", str(a.items), "--seed", str(a.seed)], check=True)
            r = json.loads(Path(out).read_text())
            print(f"  API Scores {r['scores_s']:.2f} s, compare {r['compare_s']:.2f} s "
                  f"({r['compare_s'] / g * 1e6:.1f} µs/group), peak {r['peak_mb']:.0f} MB")
        table.unlink()


if __name__ == "__main__":
    main()
