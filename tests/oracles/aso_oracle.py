"""Oracle for rg.aso / rg.multi_aso: deepsig's own aso and multi_aso on 52 score pairs.

Run: ``python tests/oracles/aso_oracle.py [--rounds 200] [--workers 2]`` (needs
``pip install deepsig``; only this generator imports it, the tests read the JSON). Writes
``aso_oracle.json`` beside this file with, per fixture, the two score lists, deepsig's seed and
ε_min (--rounds bootstrap iterations, one job: round b uses NumPy's legacy generator seeded with
seed + b) and its violation ratio; and deepsig's multi_aso matrix (Bonferroni) for a few groups of
systems. deepsig evaluates its quantile function one point at a time in Python (~50 ms per
bootstrap round on a busy 2-core machine), so 52 fixtures at 1000 rounds take ~40 CPU minutes;
the committed JSON used --rounds 200 (the tests scale their Monte-Carlo tolerance by it).
"""
from __future__ import annotations

import argparse
import json
import warnings
from importlib.metadata import version
from multiprocessing import Pool
from pathlib import Path

import numpy as np
from deepsig.aso import aso, compute_violation_ratio, multi_aso

warnings.filterwarnings("ignore")


def _fixtures(seed: int = 20261126, count: int = 52, low: int = 5,
              high: int = 30) -> list[dict[str, object]]:
    """``count`` score pairs of ``low``..``high`` scores each (five shapes, varied shifts/levels)."""
    rng = np.random.default_rng(seed)
    out: list[dict[str, object]] = []
    shapes = ["normal", "uniform", "lognormal", "rounded", "bimodal"]
    for i in range(count):
        n, m = int(rng.integers(low, high + 1)), int(rng.integers(low, high + 1))
        shift = float(rng.choice([-0.5, -0.1, 0.0, 0.05, 0.2, 0.5, 1.0, 2.0]))
        shape = shapes[i % len(shapes)]
        if shape == "normal":
            a, b = rng.normal(shift, 1.0, n), rng.normal(0.0, 1.0, m)
        elif shape == "uniform":
            a, b = rng.uniform(shift, 1 + shift, n), rng.uniform(0, 1, m)
        elif shape == "lognormal":
            a, b = rng.lognormal(shift, 0.5, n), rng.lognormal(0.0, 0.8, m)
        elif shape == "rounded":  # accuracies with ties, as over seeds
            a = np.round(0.80 + 0.02 * shift + rng.normal(0, 0.01, n), 2)
            b = np.round(0.80 + rng.normal(0, 0.01, m), 2)
        else:
            a = np.where(rng.random(n) < 0.5, rng.normal(shift, 0.3, n), rng.normal(1, 0.3, n))
            b = rng.normal(0.5, 0.5, m)
        level = float(rng.choice([0.95, 0.95, 0.99, 0.9]))
        seed = int(rng.integers(0, 10_000))
        out.append({"a": a.tolist(), "b": b.tolist(), "confidence_level": level, "seed": seed})
    return out


def _pair(args: tuple[dict[str, object], int]) -> dict[str, object]:
    warnings.filterwarnings("ignore")
    f, rounds = args
    a, b = np.array(f["a"]), np.array(f["b"])
    out = dict(f)
    out["deepsig_epsilon_min"] = float(aso(a, b, confidence_level=f["confidence_level"],
                                           num_bootstrap_iterations=rounds, seed=f["seed"],
                                           num_jobs=1, show_progress=False))
    out["deepsig_violation_ratio"] = float(compute_violation_ratio(a, b, dt=0.005))
    return out


def _multi(args: tuple[dict[str, list[float]], int, int]) -> dict[str, object]:
    warnings.filterwarnings("ignore")
    scores, seed, rounds = args
    mat = multi_aso({s: np.array(v) for s, v in scores.items()}, confidence_level=0.95,
                    use_bonferroni=True, num_bootstrap_iterations=rounds, seed=seed,
                    num_jobs=1, return_df=True, show_progress=False)
    return {"scores": scores, "seed": seed, "confidence_level": 0.95,
            "deepsig_matrix": mat.to_numpy().tolist()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=1000)
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    rng = np.random.default_rng(7)
    groups = [({f"sys{j}": rng.normal(0.1 * j, 1.0, n).tolist() for j in range(k)}, seed,
               args.rounds) for k, n, seed in [(3, 10, 11), (3, 8, 12)]]
    with Pool(args.workers) as pool:
        multi = pool.map(_multi, groups)
        fixtures = pool.map(_pair, [(f, args.rounds) for f in _fixtures()], chunksize=1)
    out = {"deepsig_version": version("deepsig"), "numpy_version": np.__version__,
           "n_bootstrap": args.rounds, "dt": 0.005, "fixtures": fixtures, "multi": multi}
    path = Path(__file__).with_name("aso_oracle.json")
    path.write_text(json.dumps(out, indent=1) + "\n")
    print(f"wrote {path}: {len(fixtures)} pairs, {len(multi)} multi_aso matrices "
          f"(deepsig {version('deepsig')}, {args.rounds} rounds)")


if __name__ == "__main__":
    main()
