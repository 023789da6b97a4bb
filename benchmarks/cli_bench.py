"""Wall-clock and CPU seconds of the ``ranger-eval`` command line, each run in its own subprocess.

    python benchmarks/cli_bench.py [--repeat 3] [--workers 1,2]

Times, best of ``--repeat``:

* ``ranger-eval --help`` (import cost of the command line; goal < 1 s);
* ``ranger-eval compare examples/rank_llm/experiment.yaml`` with all figures, once per figure
  worker count in ``--workers`` (``RANGER_EVAL_FIGURE_WORKERS``; 1 = draw in the main process),
  with each format of ``--single`` alone (``--figures pdf`` …), and with ``--figures none``
  (goal < 1 s);
* ``ranger-eval demo`` (the meta-analysis and the ranking examples, all figures).

The rank_llm example reads ``../shared/corpus/rank_llm`` (not in this repository); without it the
compare lines are skipped. CPU seconds are user + system of the child process and its workers;
on a loaded machine they are the steadier number. There is no peer CLI doing the same work, so
the ratio printed is against this script's own baseline (one figure worker).
"""
from __future__ import annotations

import argparse
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "rank_llm" / "experiment.yaml"
CORPUS = ROOT.parent / "shared" / "corpus" / "rank_llm"


def _exe() -> list[str]:
    found = shutil.which("ranger-eval")
    return [found] if found else [sys.executable, "-m", "ranger_eval.cli"]


def timed(args: list[str], env: dict[str, str] | None = None, repeat: int = 3) -> tuple[float, float]:
    """(best wall seconds, CPU seconds of that run) of ``ranger-eval ARGS`` in a subprocess."""
    best = (float("inf"), float("inf"))
    for _ in range(repeat):
        with tempfile.TemporaryDirectory() as tmp:
            full = [a.replace("{tmp}", tmp) for a in args]
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            start = time.perf_counter()
            subprocess.run(_exe() + full, check=True, stdout=subprocess.DEVNULL,
                           env={**os.environ, "RANGER_EVAL_PROGRESS": "0", **(env or {})})
            wall = time.perf_counter() - start
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        if wall < best[0]:
            best = (wall, cpu)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--workers", default="1,2", help="figure worker counts to time")
    parser.add_argument("--single", default="pdf,png,svg",
                        help="figure formats to time one at a time (default worker count)")
    opts = parser.parse_args()
    rows: list[tuple[str, float, float]] = []

    def add(name: str, args: list[str], env: dict[str, str] | None = None) -> None:
        wall, cpu = timed(args, env, opts.repeat)
        rows.append((name, wall, cpu))
        print(f"{name:<52} {wall:7.2f} s wall {cpu:7.2f} s CPU", flush=True)

    from ranger_eval import __version__

    print(f"ranger-eval {__version__}, Python {sys.version.split()[0]}, "
          f"{len(os.sched_getaffinity(0))} CPUs, best of {opts.repeat}")
    add("ranger-eval --help", ["--help"])
    if CORPUS.is_dir():
        compare = ["compare", str(EXAMPLE), "--out", "{tmp}/out"]
        for w in [int(x) for x in opts.workers.split(",")]:
            add(f"compare rank_llm, all figures, {w} figure worker(s)", compare,
                {"RANGER_EVAL_FIGURE_WORKERS": str(w)})
        for fmt in [f for f in opts.single.split(",") if f]:
            add(f"compare rank_llm, --figures {fmt} only", [*compare, "--figures", fmt])
        add("compare rank_llm, --figures none", [*compare, "--figures", "none"])
    else:
        print(f"compare rank_llm: skipped ({CORPUS} not found)")
    add("demo, all figures", ["demo", "--out", "{tmp}/demo"])
    base = {name: wall for name, wall, _ in rows}
    one = base.get("compare rank_llm, all figures, 1 figure worker(s)")
    if one:
        for name, wall, _ in rows:
            if name.startswith("compare rank_llm, all figures") and wall != one:
                print(f"speed-up of '{name}' over 1 worker: {one / wall:.2f}x")


if __name__ == "__main__":
    main()
