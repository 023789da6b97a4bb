"""Generate describe_oracles.json: the per-system mean, its standard error and confidence interval
computed by Inspect AI itself (``inspect_ai.scorer.stderr`` and ``ci``, with and without
``cluster=``) and by statsmodels (OLS of the scores on a constant, ``cov_type="cluster"``), for
``ranger_eval.describe`` (tests/stats/test_describe.py). No ranger_eval import.

Every case stores its data (item ids, cluster ids, values) and:

* ``inspect``: ``stderr()`` / ``stderr(cluster="c")`` and ``ci(level, method="t")`` /
  ``ci(level, method="t", cluster="c")`` for levels 0.95 and 0.9, on ``SampleScore`` objects
  whose ``sample_metadata`` holds the cluster id under ``"c"``; ``mean`` is ``np.mean``;
* ``statsmodels``: ``OLS(y, ones).fit(cov_type="cluster", cov_kwds={"groups": codes}).bse[0]``
  (statsmodels' small-sample factor G/(G − 1) · (N − 1)/(N − K) with K = 1 is CR1's C/(C − 1))
  and, without clusters, ``OLS(y, ones).fit().bse[0]`` (s/√n).

The cases: unbalanced clusters of 1-8 items with continuous scores (strong and weak clustering),
0/1 scores, a negative within-cluster correlation, singleton clusters (the unclustered numbers),
2 clusters (1 df), and values near 2^996 ≈ 7e299 and 2^-996 (the scaling; the peers overflow
there, so they are run on the values times 2^∓996 and their results scaled back by the exact
power of two, ``scale_exp``). describe_oracles.R adds the
ICC of ``ICC::ICCest`` for the same data (describe_oracles_icc.json).

Floats are written with ``repr`` (they read back exactly). The tests compare at rtol 1e-10 (se)
and 1e-9 (intervals: Inspect inverts the t distribution by bisection).

Usage: python tests/oracles/describe_oracles.py   (needs inspect-ai, statsmodels)
"""
from __future__ import annotations

import json
from importlib.metadata import version
from pathlib import Path

import numpy as np
import statsmodels.api as sm
from inspect_ai.scorer import SampleScore, Score, ci, stderr

HERE = Path(__file__).resolve().parent
LEVELS = (0.95, 0.9)


def _clusters(rng: np.random.Generator, n_clusters: int, lo: int, hi: int) -> np.ndarray:
    sizes = rng.integers(lo, hi + 1, size=n_clusters)
    return np.repeat(np.arange(n_clusters), sizes)


def _cases() -> list[dict[str, object]]:
    rng = np.random.default_rng(20261126)
    out: list[dict[str, object]] = []

    def add(name: str, values: np.ndarray, clusters: np.ndarray, scale_exp: int = 0) -> None:
        perm = rng.permutation(values.size)  # rows in no particular order
        out.append({"name": name, "scale_exp": scale_exp,
                    "items": [f"q{i:03d}" for i in perm],
                    "clusters": [f"c{int(c)}" for c in clusters[perm]],
                    "values": [float(v) for v in values[perm]]})

    cl = _clusters(rng, 25, 1, 8)
    effect = rng.normal(0, 1.0, 25)
    add("strong-icc", effect[cl] + rng.normal(0, 0.6, cl.size), cl)
    cl = _clusters(rng, 40, 1, 6)
    add("weak-icc", rng.normal(0, 0.2, 40)[cl] + rng.normal(0, 1.0, cl.size), cl)
    cl = _clusters(rng, 30, 2, 10)
    p = 1 / (1 + np.exp(-rng.normal(0, 1.5, 30)))
    add("binary", (rng.random(cl.size) < p[cl]).astype(float), cl)
    cl = np.repeat(np.arange(20), 2)
    base = rng.normal(0, 1, 20)
    add("negative-icc", np.column_stack([base, -base]).ravel() + rng.normal(0, 0.1, 40), cl)
    add("singletons", rng.normal(0.5, 1, 30), np.arange(30))
    cl = np.repeat(np.arange(2), [7, 5])
    add("two-clusters", rng.normal(0, 1, 12) + cl * 0.8, cl)
    cl = _clusters(rng, 12, 1, 5)
    base = rng.normal(0, 1, 12)[cl] + rng.normal(0, 1, cl.size) + 5
    add("huge", np.ldexp(base, 996), cl, 996)
    add("tiny", np.ldexp(base, -996), cl, -996)
    return out


def _scores(case: dict[str, object], y: np.ndarray) -> list[SampleScore]:
    items, clusters = case["items"], case["clusters"]
    assert isinstance(items, list) and isinstance(clusters, list)
    return [SampleScore(score=Score(value=float(v)), sample_id=i, sample_metadata={"c": c})
            for i, c, v in zip(items, clusters, y, strict=True)]


def main() -> None:
    cases = _cases()
    for case in cases:
        e = int(case["scale_exp"])  # type: ignore[call-overload]
        y = np.ldexp(np.asarray(case["values"], dtype=np.float64), -e)  # the peers' scale
        scores = _scores(case, y)

        def back(x: float, e: int = e) -> float:
            return float(np.ldexp(x, e))
        codes = np.unique(np.asarray(case["clusters"]), return_inverse=True)[1]
        ones = np.ones((y.size, 1))
        entry: dict[str, object] = {"mean": back(float(np.mean(y)))}
        for clustered in (False, True):
            key = "clustered" if clustered else "iid"
            cluster = "c" if clustered else None
            fit = (sm.OLS(y, ones).fit(cov_type="cluster", cov_kwds={"groups": codes})
                   if clustered else sm.OLS(y, ones).fit())
            intervals = {str(level): ci(level=level, method="t", cluster=cluster)(scores)
                         for level in LEVELS}
            entry[key] = {
                "se": back(float(stderr(cluster=cluster)(scores))),
                "ci": {lv: {k: back(float(v)) for k, v in iv.items()}  # type: ignore[union-attr]
                       for lv, iv in intervals.items()},
                "statsmodels_se": back(float(fit.bse[0])),
            }
        case["expected"] = entry
    payload = {
        "generator": "tests/oracles/describe_oracles.py",
        "versions": {"inspect_ai": version("inspect-ai"), "statsmodels": version("statsmodels"),
                     "numpy": version("numpy")},
        "levels": list(LEVELS),
        "cases": cases,
    }
    (HERE / "describe_oracles.json").write_text(json.dumps(payload, indent=1) + "\n")


if __name__ == "__main__":
    main()
