"""Oracle fixtures for ranger_eval.stats.bayes.bayesian_pairwise (writes autorank_bayes_oracle.json).

Peer: ``autorank`` (Herbold 2020) ``autorank(data, approach="bayesian", random_state=seed)``,
which runs baycomp's ``SignedRankTest`` on every pair. Fixtures are autorank's own README example
(six populations, N(mean, 0.3) clipped to [0, 1], ``np.random.seed(42)``; not normal → MAD ROPE
and medians), the same without clipping (normal → SD ROPE and means), an absolute ROPE,
order="ascending", alpha 0.10, two near-identical systems (practically equivalent) and a ROPE of 0
(autorank's two-outcome posterior). Also autorank's rankdf central tendency and spread. Decisions are autorank's words ("smaller" = the column system has smaller
values than the row system), with its posterior (p_left, p_rope, p_right) per pair i < j in its
order. ``nsamples`` 5,000 keeps the fixtures small; the draws are the same RandomState(seed)'s.

Run from the repository root:
    python tests/oracles/autorank_bayes_oracle.py
"""
from __future__ import annotations

import importlib.metadata
import json
from pathlib import Path

import numpy as np
import pandas as pd
from autorank import autorank

OUT = Path(__file__).with_suffix(".json")


def readme_data(clip: bool, seed: int = 42, n: int = 50) -> pd.DataFrame:
    np.random.seed(seed)
    data = pd.DataFrame()
    for i, mean in enumerate([0.2, 0.3, 0.5, 0.8, 0.85, 0.9]):
        x = np.random.normal(mean, 0.3, n)
        data[f"pop_{i}"] = x.clip(0, 1) if clip else x
    return data


def near_twins() -> pd.DataFrame:
    """Two systems within ±0.01 of each other on every dataset and a third 0.2 above: the
    twins are practically equivalent at a ROPE of 0.05."""
    rng = np.random.RandomState(1)
    base = rng.normal(0.5, 0.1, 30)
    return pd.DataFrame({"a": base + rng.normal(0, 0.005, 30),
                         "b": base + rng.normal(0, 0.005, 30),
                         "c": base + 0.2 + rng.normal(0, 0.01, 30)})


def main() -> None:
    cases = []
    for name, data, kw in [
        ("readme", readme_data(True), {}),
        ("readme-normal", readme_data(False), {}),
        ("readme-absolute", readme_data(True, n=30), {"rope": 0.05, "rope_mode": "absolute"}),
        ("readme-ascending", readme_data(True, seed=7, n=20), {"order": "ascending"}),
        ("readme-alpha10", readme_data(False, seed=3, n=15), {"alpha": 0.10, "rope": 0.2}),
        ("equivalent", near_twins(), {"rope": 0.05, "rope_mode": "absolute"}),
        ("equivalent-effsize", near_twins(), {"rope": 1.0}),
        ("rope-zero", readme_data(False, seed=5, n=12), {"rope": 0.0}),
    ]:
        res = autorank(data, approach="bayesian", random_state=0, nsamples=5000, **kw)
        order = [str(c) for c in res.decision_matrix.index]
        k = len(order)
        cases.append({
            "name": name, "columns": [str(c) for c in data.columns],
            "values": data.to_numpy().tolist(), "settings": kw, "order": order,
            "all_normal": bool(res.all_normal),
            "decisions": [[("" if i == j else str(res.decision_matrix.iloc[i, j]))
                           for j in range(k)] for i in range(k)],
            "posterior": [[list(map(float, res.posterior_matrix.iloc[i, j])) if j > i else None
                           for j in range(k)] for i in range(k)],
            # autorank's rankdf: the central tendency and spread (mean/std or median/mad)
            "central": [float(v) for v in res.rankdf["mean" if res.all_normal else "median"]],
            "spread": [float(v) for v in res.rankdf["std" if res.all_normal else "mad"]],
        })
    OUT.write_text(json.dumps({"peers": {"autorank": importlib.metadata.version("autorank"),
                                         "baycomp": importlib.metadata.version("baycomp"),
                                         "numpy": np.__version__},
                               "nsamples": 5000, "seed": 0, "cases": cases}, indent=1) + "\n")


if __name__ == "__main__":
    main()
