"""Speed of ``ranger_eval.estimate_from_subset`` at 200 systems × 10,000 items (target: under
2 s), 100 random items of a new system, against R ``survey`` (``svydesign`` + ``svymean`` of
the residuals, the design-based step alone) in the same run, interleaved (``--repeat`` rounds,
median ratio).

Two timings of ours: from the history table (the Rasch fit of the history included — it is
:func:`ranger_eval.irt`'s cost, done once per benchmark) and from a fitted
:class:`~ranger_eval.IRTResult` (the fit reused for every new system: the estimate itself). The
last line is the JSON row list of ``benchmarks/run.py``.

    python benchmarks/subset_bench.py [--systems 200] [--items 10000] [--n 100] [--repeat 3]
"""
from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np

import ranger_eval as rg
from ranger_eval.errors import RangerWarning


def simulate(n: int, k: int, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    theta, b = rng.normal(size=n + 1), rng.normal(0, 1.5, k)
    return (rng.random((n + 1, k)) < 1 / (1 + np.exp(-(theta[:, None] - b)))).astype(np.int8)


def survey_seconds(e: np.ndarray, big_n: int) -> tuple[float | None, str]:
    """svydesign + svymean of the residuals: R's own time (system.time), and survey's version."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "e.csv"
        np.savetxt(path, e, delimiter=",", header="e", comments="")
        code = (f'suppressMessages(library(survey)); d <- read.csv("{path}"); d$N <- {big_n};'
                f' t <- system.time(for (i in 1:20) svymean(~e, svydesign(ids=~1, fpc=~N, '
                f'data=d)))[["elapsed"]] / 20; cat(t, as.character(packageVersion("survey")))')
        try:
            out = subprocess.run(["Rscript", "-e", code], capture_output=True, text=True,
                                 timeout=300, check=True)
        except (OSError, subprocess.SubprocessError):
            return None, ""
        seconds, version = out.stdout.split()
        return float(seconds), version


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--systems", type=int, default=200)
    ap.add_argument("--items", type=int, default=10_000)
    ap.add_argument("--n", type=int, default=100)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--quick", action="store_true", help="50 systems × 2,000 items")
    args = ap.parse_args()
    if args.quick:
        args.systems, args.items = 50, 2000
    x = simulate(args.systems, args.items)
    history, new = x[:-1], x[-1]
    rng = np.random.default_rng(1)
    idx = rng.choice(args.items, args.n, replace=False)
    answers = dict(zip(idx.tolist(), new[idx].tolist(), strict=True))
    with warnings.catch_warnings():  # warm-up on a small table: imports, caches (as the peer's R session)
        warnings.simplefilter("ignore", RangerWarning)
        small = simulate(20, 200)
        rg.estimate_from_subset(small[:-1], {i: float(small[-1][i]) for i in range(0, 200, 4)})
    table_s, fitted_s, peer_s = [], [], []
    version = ""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RangerWarning)
        for _ in range(args.repeat):
            t = time.perf_counter()
            est = rg.estimate_from_subset(history, answers)
            table_s.append(time.perf_counter() - t)
            fit = rg.irt(history)
            t = time.perf_counter()
            rg.estimate_from_subset(fit, answers)
            fitted_s.append(time.perf_counter() - t)
            residuals = new[idx] - est.predictions.to_numpy()[idx]
            seconds, version = survey_seconds(residuals, args.items)
            if seconds is not None:
                peer_s.append(seconds)
    ours_table, ours_fitted = statistics.median(table_s), statistics.median(fitted_s)
    peer = statistics.median(peer_s) if peer_s else None
    size = f"{args.systems} systems × {args.items:,} items, n = {args.n}"
    print(f"estimate_from_subset ({size}): from the table {ours_table:.3f} s (Rasch fit "
          f"included), from a fitted IRTResult {ours_fitted:.4f} s; R survey svymean "
          f"(estimation step only) {peer if peer is not None else float('nan'):.4f} s")
    peer_name = f"R survey {version} (svymean of residuals)" if version else "R survey"
    rows = [{"workload": f"estimate_from_subset, {size} (fit included)", "ours_s": ours_table,
             "peer": peer_name, "peer_s": peer, "note": "ours includes the Rasch fit of the "
             "history; the peer only the design-based mean of given residuals"},
            {"workload": f"estimate_from_subset, {size} (fitted IRTResult)",
             "ours_s": ours_fitted, "peer": peer_name, "peer_s": peer,
             "note": "five cross-fitted abilities + the difference estimator"}]
    print(json.dumps({"rows": rows}))


if __name__ == "__main__":
    main()
