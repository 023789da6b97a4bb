"""Oracle for rg.aso at deepsig's default 1000 rounds: 52 larger score pairs and deepsig's own spread.

Run: ``nice python tests/oracles/aso_oracle_large.py [--rounds 1000] [--workers 2]`` (needs
``pip install deepsig``; only this generator imports it, the tests read the JSON). Writes
``aso_oracle_large.json`` beside this file with

* ``fixtures``: 52 score pairs of 50..200 scores each (the shapes, shifts and levels of
  ``aso_oracle.py``), each with deepsig's ε_min at --rounds bootstrap iterations (one job; round b
  draws with NumPy's legacy generator seeded with seed + b);
* ``self_spread``: deepsig against itself — ε_min for two seeds 100,000 apart (disjoint draws) at
  --rounds iterations, on the first 8 small fixtures of ``aso_oracle.py`` (5..30 scores) and the
  first 10 large fixtures. The gap between the two is deepsig's own Monte-Carlo error, the yardstick
  for how close any other implementation with other draws can be.

A round costs deepsig ~10-16 ms (it evaluates its quantile functions point by point in Python), so
the file takes ~80,000 rounds, ~20 CPU minutes on a busy 2-core machine.
"""
from __future__ import annotations

import argparse
import json
import warnings
from importlib.metadata import version
from multiprocessing import Pool
from pathlib import Path

import numpy as np
from aso_oracle import _fixtures
from deepsig.aso import aso

warnings.filterwarnings("ignore")

SECOND_SEED_OFFSET = 100_000


def _eps(args: tuple[dict[str, object], int, int]) -> float:
    warnings.filterwarnings("ignore")
    f, seed, rounds = args
    return float(aso(np.array(f["a"]), np.array(f["b"]), confidence_level=f["confidence_level"],
                     num_bootstrap_iterations=rounds, seed=seed, num_jobs=1,
                     show_progress=False))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=1000)
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    large = _fixtures(seed=20261127, count=52, low=50, high=200)
    spread = [dict(f, size="small") for f in _fixtures()[:8]] + \
        [dict(f, size="large") for f in large[:10]]
    jobs = [(f, int(f["seed"]), args.rounds) for f in large]
    jobs += [(f, int(f["seed"]), args.rounds) for f in spread[:8]]
    jobs += [(f, int(f["seed"]) + SECOND_SEED_OFFSET, args.rounds) for f in spread]
    with Pool(args.workers) as pool:
        eps = pool.map(_eps, jobs, chunksize=1)
    for f, e in zip(large, eps[:52], strict=True):
        f["deepsig_epsilon_min"] = e
    first = eps[52:60] + eps[:10]  # small fixtures' first seed, then the large ones' (reused)
    for f, e1, e2 in zip(spread, first, eps[60:], strict=True):
        f["deepsig_epsilon_min"] = e1
        f["deepsig_epsilon_min_second_seed"] = e2
        f["second_seed"] = int(f["seed"]) + SECOND_SEED_OFFSET
    out = {"deepsig_version": version("deepsig"), "numpy_version": np.__version__,
           "n_bootstrap": args.rounds, "fixtures": large, "self_spread": spread}
    path = Path(__file__).with_name("aso_oracle_large.json")
    path.write_text(json.dumps(out, indent=1) + "\n")
    gaps = [abs(f["deepsig_epsilon_min"] - f["deepsig_epsilon_min_second_seed"]) for f in spread]
    print(f"wrote {path}: {len(large)} pairs, {len(spread)} self-spread pairs "
          f"(deepsig {version('deepsig')}, {args.rounds} rounds); self gap max {max(gaps):.4f}")


if __name__ == "__main__":
    main()
