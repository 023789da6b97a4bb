"""``ranger-eval monitor`` on a 100,000-item log: the time of one update (read the log, monitor).

Run: ``python benchmarks/monitor_bench.py [--items 100000] [--repeat 3] [--quick]``.
Writes a growing CSV log of two systems (0/1 scores, ``--items`` items each, the last line cut
as a log being written leaves it) and times (1) one update of ``ranger-eval monitor --follow``
as the pipeline does it (:func:`ranger_eval.pipeline.monitor.monitor_logs` with the state it
keeps between reads: the :class:`~ranger_eval.io.growing.GrowingReader` parses only the
``--append`` items written since the last read, and the sequence is extended by the new units
only), (2) a one-shot run on the whole log (read, then :func:`ranger_eval.monitor`: the
default ``mixture`` sequence of every unit), the read and the monitor apart. The target is
under 1 s per update. The peer row is confseq's ``betting_cs`` on the same differences (the sequence
alone; confseq has no log reader), run on ``--peer-items`` of them (its 1,001 × n grid).
"""
from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np

import ranger_eval as rg
from ranger_eval.io.growing import GrowingReader, read_growing
from ranger_eval.pipeline.monitor import monitor_logs
from ranger_eval.settings import MonitorSettings


def _lines(start: int, stop: int, seed: int) -> str:
    rng = np.random.default_rng(seed + start)
    a = (rng.random(stop - start) < 0.70).astype(int)
    b = (rng.random(stop - start) < 0.70).astype(int)
    return "".join(f"qa,{s},q{start + i},{v}\n" for i in range(stop - start)
                   for s, v in (("A", a[i]), ("B", b[i])))


def write_log(path: Path, n: int, seed: int = 0) -> None:
    path.write_text("dataset,system,item,value\n" + _lines(0, n, seed) + "qa,A,q")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--items", type=int, default=100_000)
    ap.add_argument("--peer-items", type=int, default=5_000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--append", type=int, default=1_000, help="items written between updates")
    ap.add_argument("--quick", action="store_true", help="--repeat 2 --peer-items 2000")
    args = ap.parse_args()
    if args.quick:
        args.repeat, args.peer_items = 2, 2_000
    settings = MonitorSettings()
    rows = []
    with tempfile.TemporaryDirectory() as tmp, warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the cut last line, reported on every read
        log = Path(tmp, "log.csv")
        write_log(log, args.items)
        updates, reads, monitors = [], [], []
        n = args.items
        for _ in range(args.repeat):
            write_log(log, args.items)
            n = args.items
            reader = GrowingReader(log)
            res = monitor_logs(log, control="A", treatment="B", settings=settings,
                               reader=reader)  # the first read: every line, every unit
            for _ in range(2):  # two --follow updates, each after --append new items
                with log.open("r+") as fh:  # complete the cut line, append, cut again
                    fh.seek(0, 2)
                    fh.seek(fh.tell() - len("qa,A,q"))
                    fh.write(_lines(n, n + args.append, 1) + "qa,A,q")
                n += args.append
                t = time.perf_counter()
                res = monitor_logs(log, control="A", treatment="B", settings=settings,
                                   reader=reader, previous=res, arrival=res.units)
                updates.append(time.perf_counter() - t)
            t = time.perf_counter()
            scores = read_growing(log)
            reads.append(time.perf_counter() - t)
            t = time.perf_counter()
            rg.monitor(scores, control="A", treatment="B")
            monitors.append(time.perf_counter() - t)
        update = statistics.median(updates)
        print(f"--follow update of a {n:,}-item log ({args.append:,} new items): {update:.3f} s "
              f"(target < 1 s); one-shot: read {statistics.median(reads):.3f} s, rg.monitor "
              f"{statistics.median(monitors):.3f} s; decision {res.decision}, n_used "
              f"{res.n_used}")
        w = f"monitor --follow update, {args.items:,}-item growing CSV (+{args.append:,} items)"
        y = (res.differences + 1) / 2
    try:
        np.float_ = np.float64  # type: ignore[attr-defined]  # confseq 0.0.11 needs it
        import confseq
        from confseq.betting import betting_cs
    except ImportError:
        rows.append({"workload": w, "ours_s": update, "peer": "confseq betting_cs",
                     "peer_s": None, "note": "peer not installed"})
        print(json.dumps({"rows": rows}))
        return
    rows.append({"workload": w, "ours_s": update, "peer": "(none: no peer reads logs)",
                 "peer_s": None, "note": "target < 1 s per update"})
    part = y[: args.peer_items]
    ours, theirs = [], []
    for _ in range(args.repeat):
        t = time.perf_counter()
        rg.confidence_sequence(part * 2 - 1, bounds=(-1, 1))
        ours.append(time.perf_counter() - t)
        t = time.perf_counter()
        betting_cs(part)
        theirs.append(time.perf_counter() - t)
    a, b = statistics.median(ours), statistics.median(theirs)
    version = getattr(confseq, "__version__", "0.0.11")
    print(f"sequence of {args.peer_items:,} paired differences: ranger_eval {a:.4f} s, confseq "
          f"betting_cs {b:.3f} s, x{b / a:.0f} ours")
    rows.append({"workload": f"monitor's sequence, {args.peer_items:,} paired differences",
                 "ours_s": a, "peer": f"confseq {version} betting_cs", "peer_s": b})
    print(json.dumps({"rows": rows}))


if __name__ == "__main__":
    main()
