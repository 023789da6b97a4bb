"""Benchmark: style-controlled ``ranger_eval.bradley_terry(covariates=)`` against LMArena's
style-control bootstrap and statsmodels.

One input: ``--battles`` (default 1,000,000) seeded battles among ``--models`` (default 100)
models, 15 % ties, with four style features per side (``length``, ``header``, ``list``,
``bold`` as ``NAME_a``/``NAME_b``; lengths continuous, so almost every battle row is
distinct). Timed in one process, interleaved (ours, then the peers, ``--repeat`` times; medians):

* ours: ``bradley_terry(battles, covariates=[...], n_resamples=--rounds)`` — reading the
  covariates, the fit, the sandwich se, the bootstrap (rounds refitted 32 at a time by
  chord Newton steps over the pair-sorted rows, verdicts/bt_style_bootstrap.py) and the uncontrolled leaderboard with its own bootstrap;
* LMArena's approach (FastChat ``compute_bootstrap_style_control`` / ``arena-rank``
  ``ContextualBradleyTerry``: each round resamples the battle rows and minimises the
  contextual Bradley–Terry loss with scipy L-BFGS-B, ``gtol`` 1e-6). Neither is installable
  here (FastChat's PyPI release predates style control; ``arena-rank`` needs jax), so the
  round is written here from their published loss, without their L2 penalty so that the
  estimates are comparable; ``--peer-rounds`` (default 3) rounds are timed and multiplied out
  to ``--rounds`` (they run one process per round; one core here);
* statsmodels ``GLM(Binomial)`` on the resampled design (dense ±1 model columns), likewise
  extrapolated.

The full-data estimates are cross-checked (largest |Δ| of the ratings in Elo, ours vs the
L-BFGS fit). Usage: python benchmarks/arena_style_bench.py [--battles 1000000] [--models 100]
[--rounds 1000] [--peer-rounds 3] [--repeat 1]
"""
from __future__ import annotations

import argparse
import math
import statistics
import time
from importlib.metadata import version

import numpy as np
import pandas as pd
import statsmodels.api as sm
from scipy.optimize import minimize
from scipy.special import expit

import ranger_eval as rg

FEATURES = ["length", "header", "list", "bold"]


def battles(n: int, p: int, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    strength = rng.normal(0.0, 0.7, p)
    a = rng.integers(0, p, n)
    b = (a + rng.integers(1, p, n)) % p
    cols = {"length_a": rng.integers(10, 1500, n), "length_b": rng.integers(10, 1500, n)}
    for name in FEATURES[1:]:
        cols[f"{name}_a"] = rng.poisson(2.0, n)
        cols[f"{name}_b"] = rng.poisson(2.0, n)
    z = 0.6 * (cols["length_a"] - cols["length_b"]) / (cols["length_a"] + cols["length_b"] + 1)
    pa = expit(strength[a] - strength[b] + z)
    u = rng.random(n)
    tie = rng.random(n) < 0.15
    names = np.array([f"model-{k:03d}" for k in range(p)])
    winner = np.where(tie, "tie", np.where(u < pa, "model_a", "model_b"))
    return pd.DataFrame({"model_a": names[a], "model_b": names[b], "winner": winner, **cols})


def design(frame: pd.DataFrame) -> tuple[np.ndarray, ...]:
    """LMArena's design: model ids, outcomes (1, ½, 0), standardised relative differences."""
    codes, models = pd.factorize(pd.concat([frame["model_a"], frame["model_b"]]), sort=True)
    n = len(frame)
    pairs = np.column_stack([codes[:n], codes[n:]])
    y = np.where(frame["winner"] == "model_a", 1.0,
                 np.where(frame["winner"] == "model_b", 0.0, 0.5))
    feats = []
    for name in FEATURES:
        a, b = frame[f"{name}_a"].to_numpy(float), frame[f"{name}_b"].to_numpy(float)
        d = (a - b) / (a + b + 1.0)
        feats.append((d - d.mean()) / d.std())
    return pairs, y, np.column_stack(feats), len(models)


def lbfgs_fit(pairs: np.ndarray, y: np.ndarray, z: np.ndarray, p: int) -> np.ndarray:
    """Contextual Bradley–Terry by L-BFGS-B on the mean logistic loss (no penalty)."""
    n = y.size

    def loss(params: np.ndarray) -> tuple[float, np.ndarray]:
        s = params[pairs[:, 0]] - params[pairs[:, 1]] + z @ params[p:]
        value = float(np.sum(np.logaddexp(0.0, s) - y * s)) / n
        err = (expit(s) - y) / n
        grad = np.concatenate([np.bincount(pairs[:, 0], err, p) - np.bincount(pairs[:, 1], err, p),
                               z.T @ err])
        return value, grad

    res = minimize(loss, np.zeros(p + z.shape[1]), jac=True, method="L-BFGS-B",
                   options={"maxiter": 1000, "gtol": 1e-6})
    return np.asarray(res.x)


def glm_fit(pairs: np.ndarray, y: np.ndarray, z: np.ndarray, p: int) -> np.ndarray:
    n = y.size
    x = np.zeros((n, p))
    x[np.arange(n), pairs[:, 0]] = 1.0
    x[np.arange(n), pairs[:, 1]] = -1.0
    return np.asarray(sm.GLM(y, np.column_stack([x[:, 1:], z]),
                             family=sm.families.Binomial()).fit().params)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--battles", type=int, default=1_000_000)
    ap.add_argument("--models", type=int, default=100)
    ap.add_argument("--rounds", type=int, default=1000)
    ap.add_argument("--peer-rounds", type=int, default=3)
    ap.add_argument("--repeat", type=int, default=1)
    args = ap.parse_args()
    frame = battles(args.battles, args.models)
    pairs, y, z, p = design(frame)
    rng = np.random.default_rng(1)
    ours_t, lb_t, glm_t = [], [], []
    for _ in range(args.repeat):
        t = time.perf_counter()
        r = rg.bradley_terry(frame, covariates=FEATURES, n_resamples=args.rounds)
        ours_t.append(time.perf_counter() - t)
        t = time.perf_counter()
        for _r in range(args.peer_rounds):
            idx = rng.integers(0, y.size, y.size)
            lbfgs_fit(pairs[idx], y[idx], z[idx], p)
        lb_t.append((time.perf_counter() - t) / args.peer_rounds * args.rounds)
        t = time.perf_counter()
        for _r in range(args.peer_rounds):
            idx = rng.integers(0, y.size, y.size)
            glm_fit(pairs[idx], y[idx], z[idx], p)
        glm_t.append((time.perf_counter() - t) / args.peer_rounds * args.rounds)
    full = lbfgs_fit(pairs, y, z, p)
    theta = full[:p] - full[:p].mean()
    elo = 1000 + 400 / math.log(10) * theta
    diff = float(np.max(np.abs(elo - r.ratings.to_numpy())))
    ours, lb, glm = (statistics.median(v) for v in (ours_t, lb_t, glm_t))
    print(f"style-controlled Bradley-Terry: {args.battles:,} battles, {args.models} models, "
          f"{len(FEATURES)} covariates, {args.rounds} bootstrap rounds")
    print(f"ours (fit + sandwich + bootstrap + uncontrolled board), bootstrap rounds: {ours:.2f} s "
          f"({r.n_resamples_failed} rounds failed)")
    print(f"LMArena-style L-BFGS-B per resampled round (scipy {version('scipy')}) = {lb:.2f} s "
          f"(from {args.peer_rounds} rounds)   x{lb / ours:.2f} ours")
    print(f"statsmodels {version('statsmodels')} GLM per resampled round = {glm:.2f} s "
          f"(from {args.peer_rounds} rounds)   x{glm / ours:.2f} ours")
    print(f"max |rating difference| ours vs L-BFGS (gtol 1e-6) on the full data: {diff:.2e} Elo")


if __name__ == "__main__":
    main()
