"""Variance components speed: rg.variance_components vs R lme4::lmer on items × prompts × samples.

    python benchmarks/varcomp_bench.py [--items 1000] [--prompts 20] [--samples 5] [--repeat 3]

Workload: one system, --items items × --prompts prompts × --samples samples (100,000 rows at the
defaults), value = item + prompt + item:prompt + noise; both fit
``value ~ 1 + (1|item) + (1|prompt) + (1|item:prompt)`` by REML. Ours is timed in this process
(the whole ``rg.variance_components`` call on a DataFrame: validation, grouping, fit); lme4's
``lmer`` fit is timed inside R (``system.time`` around the call only, the data already read) by an
``Rscript`` run from this script, interleaved with ours; the medians and their ratio are
printed, with the largest difference between the two sets of components. The last line is the
JSON row of benchmarks/run.py. Times depend on the machine; benchmarks/README.md records a run.
"""
from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

R_CODE = r"""
suppressPackageStartupMessages(library(lme4))
args <- commandArgs(trailingOnly = TRUE)
d <- read.csv(args[1], colClasses = c("character", "character", "numeric"))
t <- system.time(m <- lmer(value ~ 1 + (1 | item) + (1 | prompt) + (1 | item:prompt), data = d,
                           REML = TRUE))[["elapsed"]]
vc <- as.data.frame(VarCorr(m))
cat(sprintf("%.6f %.12g %.12g %.12g %.12g %s\n", t, vc$vcov[vc$grp == "item"],
            vc$vcov[vc$grp == "prompt"], vc$vcov[vc$grp == "item:prompt"],
            vc$vcov[vc$grp == "Residual"], as.character(packageVersion("lme4"))))
"""


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--items", type=int, default=1000)
    ap.add_argument("--prompts", type=int, default=20)
    ap.add_argument("--samples", type=int, default=5)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()

    import ranger_eval as rg

    rng = np.random.default_rng(0)
    n_i, n_p, n_s = args.items, args.prompts, args.samples
    item = np.repeat(np.arange(n_i), n_p * n_s)
    prompt = np.tile(np.repeat(np.arange(n_p), n_s), n_i)
    cell = item * n_p + prompt
    value = (rng.normal(size=n_i)[item] + 0.5 * rng.normal(size=n_p)[prompt]
             + 0.3 * rng.normal(size=n_i * n_p)[cell] + rng.normal(size=item.size))
    frame = pd.DataFrame({"dataset": "qa", "system": "A", "item": [f"q{i}" for i in item],
                          "prompt": [f"p{p}" for p in prompt],
                          "sample": np.tile(np.arange(n_s), n_i * n_p), "value": value})
    rows = len(frame)
    ours, lme4, comps, version = [], [], None, None
    rscript = shutil.which("Rscript")
    with tempfile.TemporaryDirectory() as tmp:
        csv = Path(tmp) / "d.csv"
        frame[["item", "prompt", "value"]].to_csv(csv, index=False)
        script = Path(tmp) / "fit.R"
        script.write_text(R_CODE)
        for _ in range(args.repeat):
            t = time.perf_counter()
            vc = rg.variance_components(frame)
            ours.append(time.perf_counter() - t)
            r = vc.rows[0]
            comps = np.array([r.item, r.prompt, r.item_prompt, r.residual])
            if rscript is not None:
                out = subprocess.run([rscript, str(script), str(csv)], capture_output=True,
                                     text=True, check=False)
                if out.returncode == 0 and out.stdout.strip():
                    parts = out.stdout.split()
                    lme4.append(float(parts[0]))
                    theirs = np.array([float(v) for v in parts[1:5]])
                    version = parts[5]
    o = float(np.median(ours))
    print(f"variance_components, {n_i} items x {n_p} prompts x {n_s} samples ({rows:,} rows)")
    print(f"  ranger_eval  {o:.3f} s  (median of {len(ours)})")
    row = {"workload": f"variance_components, {n_i} items x {n_p} prompts x {n_s} samples",
           "ours_s": o, "peer": "lme4 (R) not installed", "peer_s": None}
    if lme4:
        p = float(np.median(lme4))
        diff = float(np.max(np.abs(comps - theirs) / np.maximum(np.abs(theirs), 1e-12)))
        print(f"  lme4 {version} lmer  {p:.3f} s  (median of {len(lme4)}; fit only, in R)")
        print(f"  ratio lme4 / ours: {p / o:.1f}x; largest relative difference of the "
              f"components: {diff:.1e}")
        row = {**row, "peer": f"lme4 {version} lmer (fit only, R)", "peer_s": p,
               "note": f"components agree to {diff:.0e}"}
    print(json.dumps({"rows": [row]}))


if __name__ == "__main__":
    main()
