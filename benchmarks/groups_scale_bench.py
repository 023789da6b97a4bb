"""Scale in the number of groups: G datasets × 2 systems × n items through ``ranger-eval compare``,
``ranger-eval rank`` and ``ranger-eval meta``.

    python benchmarks/groups_scale_bench.py [--groups 10000,100000,1000000] [--items 2]
                                            [--commands compare,rank] [--figures none]
                                            [--api] [--profile G] [--seed 0]
                                            [--binary] [--format parquet|csv]

The tidy table (columns dataset, system, item, value; 4·G rows for 2 items) is written once per G
to a temporary Parquet file (not timed). Each command then runs in its own subprocess,
``ranger-eval <command> table.parquet --out DIR --figures none``, timed with a wall clock; its
peak RSS is the subprocess's own (``resource.getrusage(RUSAGE_CHILDREN)`` read before and after:
the largest child so far, so commands run from the smallest G up). ``--api`` also times
``rg.compare(rg.Scores(df))`` in a worker process. Time per group (µs) is printed so linearity
is visible: it should stay roughly constant as G grows. ``--profile G`` writes a cProfile of
the API compare at that G to ``compare_G.prof`` in the temporary folder and prints the top
entries; it also profiles the whole ``ranger-eval compare`` / ``rank`` run of each of
``--commands`` (``pipeline.run_compare`` / ``run_rank`` on the table, ``--figures none``:
reading, the analysis, outputs) to ``compare_cli_G.prof`` / ``rank_cli_G.prof``. ``--binary``
makes the scores 0/1 (compare's auto choice is then McNemar with Tango's interval) and
``--format csv`` writes the table as CSV (the scale target: 1,000,000 tiny binary datasets read from CSV).

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


def make_table(groups: int, items: int = 2, seed: int = 0, binary: bool = False):  # noqa: ANN201
    """Tidy scores: ``groups`` datasets ("d0", ...) × systems A, B × ``items`` items ("q0", ...),
    values A ~ N(0.5, 0.1) per item, B = A + N(0.02, 0.05); ``binary``: 0/1 scores instead
    (A ~ Bernoulli(0.6), B = A except 20 % of items redrawn ~ Bernoulli(0.65)), which
    ``compare``'s auto choice tests by McNemar."""
    import pandas as pd

    rng = np.random.default_rng(seed)
    total = groups * items
    if binary:
        a = (rng.random(total) < 0.6).astype(np.float64)
        b = np.where(rng.random(total) < 0.2, (rng.random(total) < 0.65).astype(np.float64), a)
    else:
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


def api_worker(groups: int, items: int, seed: int, out: str, profile: bool,
               binary: bool = False) -> None:
    """Time ``Scores`` and ``compare`` in this process (optionally under cProfile)."""
    import ranger_eval as rg

    df = make_table(groups, items, seed, binary)
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


def _write(df, path: Path | str, fmt: str) -> None:  # noqa: ANN001
    """The table as Parquet or CSV (``--format``)."""
    if fmt == "csv":
        df.to_csv(path, index=False)
    else:
        df.to_parquet(path)


def cli_profile_worker(command: str, groups: int, items: int, seed: int, out: str,
                       binary: bool, fmt: str) -> None:
    """cProfile of ``ranger-eval rank`` or ``compare`` as the CLI runs it
    (``pipeline.run_rank`` / ``run_compare``), in this process, on the table of ``groups``
    datasets: reading, the analysis, the outputs; prints the top entries."""
    import cProfile
    import pstats

    from ranger_eval import pipeline

    run = pipeline.run_rank if command == "rank" else pipeline.run_compare
    table = f"{out}.{fmt}"
    _write(make_table(groups, items, seed, binary), table, fmt)
    prof = cProfile.Profile()
    t0 = time.perf_counter()
    prof.runcall(run, table, out + "_out", figures="none")
    wall = time.perf_counter() - t0
    prof.dump_stats(out + ".prof")
    Path(table).unlink()
    print(f"{command} under cProfile: {wall:.1f} s")
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
    ap.add_argument("--binary", action="store_true",
                    help="0/1 scores (compare's auto choice: McNemar) instead of continuous")
    ap.add_argument("--format", choices=("parquet", "csv"), default="parquet",
                    help="file format of the table the commands read (default parquet)")
    ap.add_argument("--cli-prof", default=None, help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.worker is not None:
        if a.cli_prof:
            cli_profile_worker(a.cli_prof, a.worker, a.items, a.seed, a.out, a.binary,
                               a.format)
        else:
            api_worker(a.worker, a.items, a.seed, a.out, a.prof, a.binary)
        return
    import ranger_eval

    print(f"ranger_eval {ranger_eval.__version__}, numpy {np.__version__}, python "
          f"{sys.version.split()[0]}, {os.cpu_count()} cores; {a.items} items per dataset"
          f"{', 0/1 scores' if a.binary else ''}, {a.format}")
    flags = ["--items", str(a.items), "--seed", str(a.seed), "--format", a.format,
             *(["--binary"] if a.binary else [])]
    tmp = Path(tempfile.mkdtemp(prefix="groups_scale_"))
    exe = [sys.executable, "-m", "ranger_eval.cli"]
    sizes = sorted(int(float(x)) for x in a.groups.split(","))
    if a.profile:
        out = str(tmp / f"compare_{a.profile}")
        subprocess.run([sys.executable, __file__, "--worker", str(a.profile), "--out", out,
                        *flags, "--prof"], check=True)
        print(f"profile: {out}.prof")
        for cmd in ("compare", "rank"):
            if cmd in a.commands.split(","):
                out = str(tmp / f"{cmd}_cli_{a.profile}")
                subprocess.run([sys.executable, __file__, "--worker", str(a.profile), "--out",
                                out, *flags, "--cli-prof", cmd], check=True)
                print(f"profile: {out}.prof")
    for g in sizes:
        table = tmp / f"g{g}.{a.format}"
        _write(make_table(g, a.items, a.seed, a.binary), table, a.format)
        print(f"\nG={g:,} ({4 * g * a.items // 2:,} rows, {table.stat().st_size / 1e6:.0f} MB "
              f"{a.format})")
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
            subprocess.run([sys.executable, __file__, "--worker", str(g), "--out", out, *flags],
                           check=True)
            r = json.loads(Path(out).read_text())
            print(f"  API Scores {r['scores_s']:.2f} s, compare {r['compare_s']:.2f} s "
                  f"({r['compare_s'] / g * 1e6:.1f} µs/group), peak {r['peak_mb']:.0f} MB")
        table.unlink()


if __name__ == "__main__":
    main()
