"""Oracle cases of the set-level metrics (labels, treatment and control predictions) as tidy
score tables, shared by the comparison and effect-size tests."""
from __future__ import annotations

import pandas as pd


def tidy_case(case: dict, dataset: str = "d", systems: tuple[str, str] = ("T", "C")) -> pd.DataFrame:
    """A case as a Scores table; zero-padded ids keep the oracle's item order after sorting."""
    n = len(case["labels"])
    frames = []
    for system, preds in zip(systems, (case["treatment"], case["control"]), strict=True):
        frames.append(pd.DataFrame({
            "dataset": dataset, "system": system, "item": [f"i{i:03d}" for i in range(n)],
            "label": case["labels"], "prediction": preds,
            "value": [float(a == b) for a, b in zip(case["labels"], preds, strict=True)],
        }))
    return pd.concat(frames, ignore_index=True)
