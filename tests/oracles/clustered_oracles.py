"""Oracle for ranger_eval.stats.clustered from the Python peers: statsmodels' cluster-robust OLS
(``cov_type="cluster"``, the CR1 factor G/(G-1)·(N-1)/(N-K)) for paired and unpaired differences,
and Inspect AI's ``stderr(cluster=...)`` / ``ci(cluster=...)`` for the mean of one system.

Run from the repository root: ``python tests/oracles/clustered_oracles.py`` (needs statsmodels
and inspect-ai, the ``[oracle]`` extra); writes tests/oracles/clustered_oracles_py.json.
"""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np

OUT = Path(__file__).with_name("clustered_oracles_py.json")


def _clusters(rng: np.random.Generator, c: int, lo: int, hi: int) -> np.ndarray:
    sizes = rng.integers(lo, hi + 1, c)
    cl = np.repeat(np.arange(c), sizes)
    return cl[rng.permutation(cl.size)]


def paired_case(rng: np.random.Generator, c: int, lo: int, hi: int) -> dict:
    import statsmodels.api as sm

    cl = _clusters(rng, c, lo, hi)
    d = np.round(0.2 + rng.normal(0, 0.7, c)[cl] + rng.normal(size=cl.size), 6)
    fit = sm.OLS(d, np.ones(d.size)).fit(cov_type="cluster", cov_kwds={"groups": cl},
                                         use_t=True)
    ci = fit.conf_int(alpha=0.05)[0]
    return {"kind": "paired", "d": d.tolist(), "cluster": [f"q{v}" for v in cl],
            "r": {"estimate": float(fit.params[0]), "se": float(fit.bse[0]),
                  "statistic": float(fit.tvalues[0]), "p_two": float(fit.pvalues[0]),
                  "df": float(fit.df_resid_inference), "ci_low": float(ci[0]),
                  "ci_high": float(ci[1])}}


def unpaired_case(rng: np.random.Generator) -> dict:
    import statsmodels.api as sm

    cx, cy = rng.integers(0, 12, 30), rng.integers(0, 12, 22)
    u = rng.normal(size=12)
    x = np.round(0.4 + u[cx] + rng.normal(size=30), 6)
    y = np.round(u[cy] + rng.normal(size=22), 6)
    v = np.r_[x, y]
    design = np.column_stack([np.ones(v.size), np.r_[np.ones(30), np.zeros(22)]])
    fit = sm.OLS(v, design).fit(cov_type="cluster", cov_kwds={"groups": np.r_[cx, cy]},
                                use_t=True)
    ci = fit.conf_int(alpha=0.05)[1]
    return {"kind": "unpaired", "x": x.tolist(), "y": y.tolist(),
            "cluster_x": [f"g{v}" for v in cx], "cluster_y": [f"g{v}" for v in cy],
            "r": {"estimate": float(fit.params[1]), "se": float(fit.bse[1]),
                  "statistic": float(fit.tvalues[1]), "p_two": float(fit.pvalues[1]),
                  "df": float(fit.df_resid_inference), "ci_low": float(ci[0]),
                  "ci_high": float(ci[1])}}


def inspect_case(rng: np.random.Generator, c: int, binary: bool) -> dict:
    from inspect_ai.scorer import SampleScore, Score, ci, stderr

    cl = _clusters(rng, c, 1, 9)
    if binary:
        x = (rng.random(cl.size) < 1 / (1 + np.exp(-rng.normal(0.5, 1.2, c)[cl]))).astype(float)
    else:
        x = np.round(rng.normal(0.6, 0.5, c)[cl] + rng.normal(0, 0.3, cl.size), 6)
    scores = [SampleScore(score=Score(value=float(v)), sample_id=i,
                          sample_metadata={"passage": f"p{k}"})
              for i, (v, k) in enumerate(zip(x, cl, strict=True))]
    interval = ci(level=0.95, cluster="passage")(scores)
    return {"kind": "inspect", "x": x.tolist(), "cluster": [f"p{k}" for k in cl],
            "r": {"se": float(stderr(cluster="passage")(scores)),
                  "ci_low": float(interval["lower"]), "ci_high": float(interval["upper"])}}


def main() -> None:
    import inspect_ai
    import statsmodels

    rng = np.random.default_rng(20261126)
    cases = [paired_case(rng, 9, 1, 7), paired_case(rng, 50, 2, 12), unpaired_case(rng),
             unpaired_case(rng), inspect_case(rng, 20, True), inspect_case(rng, 35, False),
             inspect_case(rng, 3, False)]
    OUT.write_text(json.dumps({
        "generator": "tests/oracles/clustered_oracles.py",
        "versions": {"statsmodels": statsmodels.__version__,
                     "inspect_ai": inspect_ai.__version__, "numpy": np.__version__},
        "cases": cases}, indent=1) + "\n")


if __name__ == "__main__":
    main()
