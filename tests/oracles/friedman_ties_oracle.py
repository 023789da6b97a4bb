"""Oracle for the tie-corrected Friedman statistic of ``ranger_eval.rank_test``.

Tables with tied scores within datasets, and for each the Friedman statistic and p-value of
``scipy.stats.friedmanchisquare`` and of R ``friedman.test`` (tests/oracles/friedman_ties_oracle.R,
run here with ``Rscript``), plus Demšar's untied statistic (eq. 3, computed here from scipy's
mid-ranks) for ``tie_correction=False``:

* ``baycomp54``: baycomp's 5 classifiers × 54 datasets (docs/code/accuracies.txt of
  github.com/janezd/baycomp @ 0ce309b, MIT licence in friedman_ties_baycomp54.LICENSE), each cell
  the mean of the 100 cross-validation accuracies, committed as friedman_ties_baycomp54.csv
  (baycomp lists ``credit`` twice; the second is ``credit (2)``). R, scipy and autorank print
  χ² = 20.84 there; Demšar's formula 20.20.
  autorank's Friedman p-value, mean ranks and Nemenyi CD on it are recorded too.
* seeded integer-valued tables (many ties, some datasets fully tied) and a table without ties.

Writes friedman_ties_oracle.json. Run: ``python tests/oracles/friedman_ties_oracle.py``
(needs ``Rscript`` with jsonlite).
"""
from __future__ import annotations

import csv
import importlib.metadata
import json
import subprocess
import tempfile
from pathlib import Path

import numpy as np
import scipy
from scipy import stats

HERE = Path(__file__).parent


def baycomp54() -> list[list[float]]:
    with (HERE / "friedman_ties_baycomp54.csv").open(newline="") as f:
        rows = list(csv.reader(f))
    return [[float(v) for v in row[1:]] for row in rows[1:]]


def demsar_untied(x: np.ndarray) -> float:
    n, k = x.shape
    avg = stats.rankdata(-x, axis=1).mean(axis=0)
    return float(12.0 * n / (k * (k + 1.0)) * np.sum((avg - (k + 1.0) / 2.0) ** 2))


def tables() -> dict[str, list[list[float]]]:
    rng = np.random.default_rng(2026_11_26)
    out = {"baycomp54": baycomp54()}
    for n, k, top in [(10, 3, 3), (20, 4, 4), (15, 6, 3), (40, 5, 10), (8, 8, 2)]:
        x = rng.integers(0, top, size=(n, k)).astype(float)
        x[0] = 1.0  # one dataset where every system ties
        out[f"int_{n}x{k}_top{top}"] = x.tolist()
    out["no_ties_12x4"] = rng.normal(size=(12, 4)).tolist()
    return out


def main() -> None:
    data = tables()
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump(data, f)
    run = subprocess.run(["Rscript", str(HERE / "friedman_ties_oracle.R"), f.name],
                         capture_output=True, text=True, check=True)
    r = json.loads(run.stdout)
    cases = {}
    for name, rows in data.items():
        x = np.array(rows)
        sp = stats.friedmanchisquare(*x.T)
        cases[name] = {
            "table": rows,
            "scipy": {"statistic": float(sp.statistic), "pvalue": float(sp.pvalue)},
            "R": r[name],
            "demsar_untied": demsar_untied(x),
        }
    meta = {"scipy": scipy.__version__, "R": run.stderr.strip().splitlines()[-1]}
    # autorank (pip install autorank) on the baycomp table: its Friedman p-value, mean ranks
    # and Nemenyi CD at alpha = 0.05
    import autorank
    import pandas as pd

    t = pd.read_csv(HERE / "friedman_ties_baycomp54.csv", index_col="dataset")
    ar = autorank.autorank(t, alpha=0.05, verbose=False, force_mode="nonparametric")
    cases["baycomp54"]["autorank"] = {
        "omnibus": ar.omnibus, "pvalue": float(ar.pvalue), "cd": float(ar.cd),
        "meanrank": {str(k): float(v) for k, v in ar.rankdf["meanrank"].items()},
    }
    meta["autorank"] = importlib.metadata.version("autorank")
    (HERE / "friedman_ties_oracle.json").write_text(json.dumps({"versions": meta,
                                                                "cases": cases}) + "\n")
    for name, c in cases.items():
        print(f"{name}: R {c['R']['statistic']:.6f} scipy {c['scipy']['statistic']:.6f} "
              f"untied {c['demsar_untied']:.6f}")


if __name__ == "__main__":
    main()
