"""Oracle fixtures for ranger_eval's Bayesian comparisons (writes baycomp_oracle.json).

Peer: ``baycomp`` (Benavoli, Corani, Demšar & Zaffalon's package; version in the JSON).
For each fixture (scores generated here with a fixed seed and stored in the JSON):
- ``correlated``: ``baycomp.two_on_single(x, y, rope, runs=runs)`` and
  ``CorrelatedTTest.compute_statistics`` (mean, variance, df) — closed form;
- ``signed_rank`` / ``sign``: ``SignedRankTest.probs`` / ``SignTest.probs`` with
  ``random_state=seed`` (same Dirichlet draws as ranger_eval with ``seed=seed``: exact), plus the
  same with ``nsamples=100_000`` and another seed (a Monte-Carlo reference for the tolerance
  test), and the first rows of the posterior sample.

Run from the repository root:
    python tests/oracles/baycomp_oracle.py
"""
from __future__ import annotations

import json
from pathlib import Path

import baycomp
import numpy as np
from baycomp.multiple import Posterior, SignedRankTest, SignTest
from baycomp.single import CorrelatedTTest

OUT = Path(__file__).with_suffix(".json")


def pair(rng: np.random.Generator, n: int, shift: float, sd: float) -> tuple[list, list]:
    x = np.round(rng.normal(0.8, 0.05, n), 4)
    y = np.round(x + rng.normal(shift, sd, n), 4)
    return x.tolist(), y.tolist()


def probs3(p: tuple, rope: float) -> list[float]:
    p = [float(v) for v in p]
    return p if rope > 0 else [p[0], 0.0, p[1]]


def main() -> None:
    rng = np.random.default_rng(20261126)
    single = []
    for n, runs, shift, sd, rope in [(10, 1, 0.01, 0.02, 0.0), (10, 1, 0.01, 0.02, 0.01),
                                     (30, 3, 0.002, 0.01, 0.005), (100, 10, -0.004, 0.02, 0.01),
                                     (50, 5, 0.0, 0.005, 0.001), (20, 2, -0.05, 0.03, 0.0),
                                     (60, 6, 0.001, 0.01, 0.02)]:
        x, y = pair(rng, n, shift, sd)
        xa, ya = np.array(x), np.array(y)
        mean, var, df = CorrelatedTTest.compute_statistics(xa, ya, runs)
        single.append({"x": x, "y": y, "rope": rope, "runs": runs,
                       "probs": probs3(baycomp.two_on_single(xa, ya, rope, runs=runs), rope),
                       "mean": float(mean), "var": float(var), "df": float(df)})
    multiple = []
    for n, shift, sd, rope, prior, seed in [(15, 0.01, 0.02, 0.0, 0.5, 0), (15, 0.01, 0.02, 0.01, 0.5, 1),
                                            (40, 0.002, 0.01, 0.005, 1.0, 2),
                                            (8, -0.02, 0.03, 0.01, 0.5, 3),
                                            (25, 0.0, 0.01, 0.0, 2.0, 4),
                                            (30, 0.0, 0.005, 0.01, 0.5, 5)]:
        x, y = pair(rng, n, shift, sd)
        xa, ya = np.array(x), np.array(y)
        case: dict = {"x": x, "y": y, "rope": rope, "prior": prior, "seed": seed,
                      "n_samples": 50_000}
        for key, test, pr in (("signed_rank", SignedRankTest, prior), ("sign", SignTest, prior)):
            # test.probs(...) is Posterior(test.sample(...)).probs(rope > 0): one sampling
            sample = test.sample(xa, ya, rope, prior=pr, nsamples=50_000, random_state=seed)
            case[key] = probs3(Posterior(sample).probs(rope > 0), rope)
            case[key + "_head"] = sample[:5].tolist()
            case[key + "_mc100k"] = probs3(test.probs(xa, ya, rope, prior=pr, nsamples=100_000,
                                                      random_state=seed + 1000), rope)
        multiple.append(case)
    sign_left = []
    x, y = pair(rng, 12, 0.005, 0.01)
    for place, code in (("left", SignTest.LEFT), ("right", SignTest.RIGHT)):
        sign_left.append({"x": x, "y": y, "rope": 0.005, "prior": 1.0, "prior_place": place,
                          "seed": 7, "probs": probs3(SignTest.probs(
                              np.array(x), np.array(y), 0.005, prior=(1.0, code),
                              random_state=7), 0.005)})
    OUT.write_text(json.dumps({
        "peers": {"baycomp": baycomp.__version__ if hasattr(baycomp, "__version__") else
                  __import__("importlib.metadata").metadata.version("baycomp"),
                  "numpy": np.__version__},
        "correlated": single, "multiple": multiple, "sign_prior_place": sign_left},
        indent=1) + "\n")


if __name__ == "__main__":
    main()
