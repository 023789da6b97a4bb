"""Write the simulated benchmark of docs/guide/stop-early-or-subset.md (the subset half):
``subset/history.csv`` (40 past systems × 600 items, 0/1, a wide table: a system column, then
one column per item), ``subset/responses.csv`` (a new, strong system's results on 100 random
items) and ``subset/truth.txt`` (its mean over all 600 items, to set beside the estimate).

A 3PL population (discrimination lognormal(log 1.5, 0.5), difficulty N(0, 1.5), a 0.25 guessing
floor on half the items), as in benchmarks/subset_eval.py.

    python docs/guide/data/make_subset.py
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

HERE = Path(__file__).resolve().parent / "subset"


def main() -> None:
    rng = np.random.default_rng(31)
    n_items, n_systems = 600, 41
    a = np.exp(rng.normal(np.log(1.5), 0.5, n_items))
    b = rng.normal(0, 1.5, n_items)
    c = np.where(rng.random(n_items) < 0.5, 0.25, 0.0)
    theta = np.sort(rng.normal(size=n_systems))
    p = c + (1 - c) / (1 + np.exp(-a * (theta[:, None] - b)))
    x = (rng.random(p.shape) < p).astype(int)
    items = [f"q{i:03d}" for i in range(n_items)]
    history = pd.DataFrame(x[:-1], columns=items)
    history.insert(0, "system", [f"model-{i:02d}" for i in range(n_systems - 1)])
    new = x[-1]  # the strongest system: beyond the history's range
    pick = np.sort(rng.choice(n_items, 100, replace=False))
    HERE.mkdir(exist_ok=True)
    history.to_csv(HERE / "history.csv", index=False)
    pd.DataFrame({"item": [items[i] for i in pick], "value": new[pick]}).to_csv(
        HERE / "responses.csv", index=False)
    (HERE / "truth.txt").write_text(f"{new.mean():.4f}\n")


if __name__ == "__main__":
    main()
