"""Oracle fixtures for ranger_eval.agreement (writes agreement_oracle.json).

Peers (test-only; versions in the JSON): ``krippendorff.alpha`` (all four levels of
measurement, tables with missing ratings), ``sklearn.metrics.cohen_kappa_score`` (no, linear and
quadratic weights) and ``statsmodels.stats.inter_rater.fleiss_kappa``. Tables are generated
here with a fixed seed (Likert-like ratings around a true value, labels, continuous scores) and
stored in the JSON as long tables (item, rater, value; null = missing).

Run from the repository root:
    pip install krippendorff scikit-learn statsmodels
    python tests/oracles/agreement_oracle.py
"""
from __future__ import annotations

import json
from importlib.metadata import version
from pathlib import Path

import krippendorff
import numpy as np
import sklearn
import statsmodels
from sklearn.metrics import cohen_kappa_score
from statsmodels.stats.inter_rater import fleiss_kappa

OUT = Path(__file__).with_suffix(".json")


def likert(rng: np.random.Generator, n_items: int, n_raters: int, noise: int,
           missing: float) -> np.ndarray:
    truth = rng.integers(1, 6, n_items)
    x = np.clip(truth[:, None] + rng.integers(-noise, noise + 1, (n_items, n_raters)), 1, 5)
    x = x.astype(float)
    x[rng.random(x.shape) < missing] = np.nan
    return x


def continuous(rng: np.random.Generator, n_items: int, n_raters: int,
               missing: float) -> np.ndarray:
    truth = rng.gamma(2.0, 1.5, n_items)
    x = np.round(truth[:, None] + rng.normal(0, 0.8, (n_items, n_raters)).clip(-truth[:, None]), 3)
    x[rng.random(x.shape) < missing] = np.nan
    return x


def long(x: np.ndarray) -> list[list]:
    return [[int(u), f"r{r}", None if np.isnan(x[u, r]) else float(x[u, r])]
            for u in range(x.shape[0]) for r in range(x.shape[1])]


def judge_human(rng: np.random.Generator) -> dict:
    """A Scores table (two datasets, three systems, a 0/1 and a 1-5 metric; human scores on a
    third of the items, the judge lenient on one system) and, per dataset × metric × system,
    krippendorff's interval α and (0/1 metric) sklearn's κ of judge against human on the items
    with both scores: what ``describe`` reports with a ``human_value`` column."""
    rows, expected = [], []
    for dataset in ("qa", "chat"):
        n = 150
        labelled = rng.random(n) < 1 / 3
        for system, skill, lenient in (("A", 0.6, 0.0), ("B", 0.5, 0.0), ("C", 0.55, 0.3)):
            human01 = (rng.random(n) < skill).astype(float)
            judge01 = np.where(rng.random(n) < 0.85, human01, 1 - human01)
            judge01 = np.where((human01 == 0) & (rng.random(n) < lenient), 1.0, judge01)
            human5 = np.clip(np.round(1 + 4 * skill + rng.normal(0, 1.1, n)), 1, 5)
            judge5 = np.clip(human5 + rng.integers(-1, 2, n) + (rng.random(n) < lenient), 1, 5)
            for metric, judge, human in (("correct", judge01, human01),
                                         ("quality", judge5, human5)):
                shown = np.where(labelled, human, np.nan)
                rows += [[dataset, system, f"{dataset}-{i}", metric, float(judge[i]),
                          None if np.isnan(shown[i]) else float(shown[i])] for i in range(n)]
                pair = np.vstack([judge[labelled], human[labelled]])
                case = {"dataset": dataset, "metric": metric, "system": system,
                        "n_labelled": int(labelled.sum()),
                        "alpha": float(krippendorff.alpha(reliability_data=pair,
                                                          level_of_measurement="interval"))}
                if metric == "correct":
                    case["kappa"] = float(cohen_kappa_score(pair[0], pair[1]))
                expected.append(case)
    return {"columns": ["dataset", "system", "item", "metric", "value", "human_value"],
            "rows": rows, "expected": expected}


def main() -> None:
    rng = np.random.default_rng(20260330)
    cases = []
    tables = {
        "likert_5x40_missing": likert(rng, 40, 5, 1, 0.2),
        "likert_3x200": likert(rng, 200, 3, 1, 0.0),
        "likert_8x25_sparse": likert(rng, 25, 8, 2, 0.5),
        "continuous_4x60_missing": continuous(rng, 60, 4, 0.15),
        "binary_6x50_missing": (rng.random((50, 6)) < 0.3).astype(float),
    }
    tables["binary_6x50_missing"][rng.random((50, 6)) < 0.1] = np.nan
    for name, x in tables.items():
        alphas = {scale: float(krippendorff.alpha(reliability_data=x.T, level_of_measurement=scale))
                  for scale in ("nominal", "ordinal", "interval", "ratio")}
        cases.append({"name": name, "method": "krippendorff", "table": long(x), "expected": alphas})
    for name, n, noise in (("cohen_likert_80", 80, 1), ("cohen_likert_30_noisy", 30, 2),
                           ("cohen_labels_120", 120, 0)):
        if noise:
            x = likert(rng, n, 2, noise, 0.0)
        else:
            truth = rng.integers(0, 4, n)
            x = np.column_stack([truth, np.where(rng.random(n) < 0.7, truth,
                                                 rng.integers(0, 4, n))]).astype(float)
        kappas = {str(w): float(cohen_kappa_score(x[:, 0], x[:, 1], weights=w))
                  for w in (None, "linear", "quadratic")}
        cases.append({"name": name, "method": "cohen", "table": long(x), "expected": kappas})
    for name, n, r in (("fleiss_likert_60x5", 60, 5), ("fleiss_likert_100x3", 100, 3),
                       ("fleiss_binary_40x7", 40, 7)):
        x = likert(rng, n, r, 1, 0.0) if "likert" in name else (
            rng.random((n, r)) < rng.random(n)[:, None]).astype(float)
        values = np.unique(x)
        counts = np.stack([(x == v).sum(axis=1) for v in values], axis=1)
        cases.append({"name": name, "method": "fleiss", "table": long(x),
                      "expected": {"None": float(fleiss_kappa(counts, method="fleiss"))}})
    OUT.write_text(json.dumps({
        "judge_human": judge_human(np.random.default_rng(20260331)),
        "peers": {"krippendorff": version("krippendorff"), "scikit-learn": sklearn.__version__,
                  "statsmodels": statsmodels.__version__},
        "cases": cases}) + "\n")


if __name__ == "__main__":
    main()
