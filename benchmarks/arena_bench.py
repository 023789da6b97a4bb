"""Benchmark: ranger_eval.bradley_terry against FastChat's bootstrap of compute_elo_mle_with_tie.

One input: ``--battles`` (default 1,000,000) seeded battles among ``--models`` (default 100)
models with true strengths N(0, 1) and 20 % ties, in LMArena's schema. Timed in one process:

* ours: ``bradley_terry(battles, n_resamples=--rounds)`` (default 1,000 rounds): the fit, the
  sandwich SEs and the bootstrap (multinomial counts of the ~15k distinct rows, refitted by a
  batched warm-started Newton);
* FastChat's approach (fastchat/serve/monitor/elo_analysis.py, ``get_bootstrap_result``): each
  round resamples the battle rows (``df.sample(frac=1.0, replace=True)``) and calls
  ``compute_elo_mle_with_tie`` (pivot tables, the doubled design, scikit-learn
  ``LogisticRegression(fit_intercept=False, penalty=None, tol=1e-6)``); FastChat (``fschat``) is
  not installable here, so its function is the line-by-line copy in
  ``tests/oracles/bradley_terry_oracle.py`` (tol as FastChat: 1e-6). ``--fastchat-rounds``
  (default 5) rounds are timed and the per-round time is multiplied out to ``--rounds``.

The point estimates are cross-checked (largest |Δ| in Elo between ours and FastChat's fit on
the full data, which is the difference its solver tolerance makes).

Usage: python benchmarks/arena_bench.py [--battles 1000000] [--models 100] [--rounds 1000]
[--fastchat-rounds 5]
"""
from __future__ import annotations

import argparse
import sys
import time
import warnings
from importlib.metadata import version
from pathlib import Path

import numpy as np
import pandas as pd

import ranger_eval as rg

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "oracles"))


def battles(n: int, p: int, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    true = rng.normal(0.0, 1.0, p)
    names = np.array([f"model-{k:03d}" for k in range(p)], dtype=object)
    a = rng.integers(0, p, n)
    b = (a + rng.integers(1, p, n)) % p
    pa = 1.0 / (1.0 + np.exp(-(true[a] - true[b])))
    u = rng.random(n)
    winner = np.where(u < pa * 0.8, "model_a", np.where(u < 0.8, "model_b", "tie"))
    return pd.DataFrame({"model_a": names[a], "model_b": names[b],
                         "winner": winner.astype(object)})


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--battles", type=int, default=1_000_000)
    ap.add_argument("--models", type=int, default=100)
    ap.add_argument("--rounds", type=int, default=1000)
    ap.add_argument("--fastchat-rounds", type=int, default=5)
    args = ap.parse_args()
    frame = battles(args.battles, args.models)
    t0 = time.perf_counter()
    res = rg.bradley_terry(frame, n_resamples=args.rounds, seed=0)
    ours = time.perf_counter() - t0
    print(f"ranger-eval {rg.__version__}: {args.battles:,} battles, {args.models} models, "
          f"{res.n_distinct:,} distinct rows, {args.rounds} bootstrap rounds: {ours:.1f} s "
          f"({res.n_resamples_failed} rounds left out)")

    from bradley_terry_oracle import compute_elo_mle_with_tie

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t0 = time.perf_counter()
        full = compute_elo_mle_with_tie(frame, tol=1e-6)
        fit_time = time.perf_counter() - t0
        rng = np.random.default_rng(1)
        t0 = time.perf_counter()
        for _ in range(args.fastchat_rounds):
            sample = frame.sample(frac=1.0, replace=True, random_state=rng.integers(2**31))
            compute_elo_mle_with_tie(sample, tol=1e-6)
        per_round = (time.perf_counter() - t0) / args.fastchat_rounds
    diff = float(np.max(np.abs(res.ratings[full.index].to_numpy() - full.to_numpy())))
    print(f"FastChat compute_elo_mle_with_tie (scikit-learn {version('scikit-learn')}): one fit "
          f"{fit_time:.1f} s; bootstrap {per_round:.1f} s per round × {args.rounds} = "
          f"{per_round * args.rounds:.0f} s (from {args.fastchat_rounds} rounds)")
    print(f"largest |rating difference| ours vs FastChat's fit: {diff:.2e} Elo "
          "(scikit-learn's tol=1e-6)")


if __name__ == "__main__":
    main()
