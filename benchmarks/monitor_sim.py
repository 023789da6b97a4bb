"""Validity and efficiency of rg.monitor, measured on simulated paired 0/1 evaluations.

Run: ``python benchmarks/monitor_sim.py [--streams 10000] [--quick]`` (``--quick``: 2,000
streams). Each stream is a sequence of items on which two systems are right or wrong; the paired
difference d ∈ {−1, 0, 1} has P(d = 1) = p₊, P(d = −1) = p₋ (discordant share 0.3).

*Validity* (null: p₊ = p₋ = 0.15): the share of streams on which the monitor (its default
``mixture`` sequence and the plug-in ``betting`` one, level 0.95, margin 0) ever declares a winner by horizon h, for h = 100 … 2,000, beside the naive
rule "a paired t-test at α = 0.05 after every 50 items, stop at the first p < 0.05".

*Efficiency* (alternative: p₊ − p₋ = δ): a fixed-n paired t-test at n items has power P
(measured on the same streams). The monitor, truncated at the n* where it reaches the same power
P (the P-quantile of its stopping time), has power P too; its mean number of items is
E[min(τ, n*)]. The table gives n*, E[min(τ, n*)] and their ratios to n.

Vectorised across streams: the monitor's decision at t only needs the two capital processes at
the grid points next to zero (K⁺ at the first grid point above 0, K⁻ at the last below: the CS's
lower end exceeds 0 exactly when K⁺ there exceeds 2/α, since K⁺ decreases in the candidate mean;
:mod:`ranger_eval.stats.confseq`), so all streams are computed at once; the script checks this
against ``rg.monitor`` on the first streams.
"""
from __future__ import annotations

import argparse
import math
import time

import numpy as np
import pandas as pd
from scipy import stats

import ranger_eval as rg
from ranger_eval.stats.confseq import BREAKS, MIXTURE_BETS

LEVEL = 0.95


def _bets(y: np.ndarray, alpha: float) -> np.ndarray:
    """confseq's predictable plug-in bets, row by row (streams × time)."""
    n = y.shape[1]
    t = np.arange(1, n + 1, dtype=np.float64)
    mu = np.minimum((0.5 + np.cumsum(y, axis=1)) / (t + 1), 1.0)
    sig = (0.25 + np.cumsum((y - mu) ** 2, axis=1)) / (t + 1)
    prev = np.concatenate([np.full((y.shape[0], 1), 0.25), sig[:, :-1]], axis=1)
    return np.sqrt(2 * math.log(1 / alpha) / (t * np.log1p(t) * prev))


def stopping_times(d: np.ndarray) -> np.ndarray:
    """The first t at which rg.monitor decides (0 where it never does), for every stream."""
    y = (d + 1) / 2
    alpha = 1 - LEVEL
    lam = _bets(y, alpha / 2)
    thr = math.log(2 / alpha)
    step = 1 / BREAKS
    up = 0.5 + step  # lower_t > 0.5 ⟺ first grid point in the CS ≥ 0.5 + 2 steps
    lo_m = 0.5 - step
    k_plus = np.cumsum(np.log1p(np.minimum(lam, 0.5 / up) * (y - up)), axis=1)
    k_minus = np.cumsum(np.log1p(-np.minimum(lam, 0.5 / (1 - lo_m)) * (y - lo_m)), axis=1)
    hit = (k_plus > thr) | (k_minus > thr)
    first = np.argmax(hit, axis=1) + 1
    return np.where(hit.any(axis=1), first, 0)


def stopping_times_mixture(d: np.ndarray) -> np.ndarray:
    """As :func:`stopping_times` for ``method="mixture"`` (rg.monitor's default): the capital is
    the equal-weight mixture of the constant bets; y ∈ {0, ½, 1}, so each bettor's log capital
    is the counts of each value times its log factor."""
    y = (d + 1) / 2
    thr = math.log(2 / (1 - LEVEL))
    step = 1 / BREAKS
    up, lo_m = 0.5 + step, 0.5 - step
    counts = [np.cumsum(y == v, axis=1, dtype=np.float64) for v in (0.0, 0.5, 1.0)]
    k_plus = k_minus = None
    for lam in MIXTURE_BETS:
        lp, lm = min(lam, 0.5 / up), min(lam, 0.5 / (1 - lo_m))
        a = sum(c * math.log1p(lp * (v - up)) for c, v in zip(counts, (0.0, 0.5, 1.0), strict=True))
        b = sum(c * math.log1p(-lm * (v - lo_m)) for c, v in zip(counts, (0.0, 0.5, 1.0), strict=True))
        k_plus = a if k_plus is None else np.logaddexp(k_plus, a)
        k_minus = b if k_minus is None else np.logaddexp(k_minus, b)
    log_k = math.log(len(MIXTURE_BETS))
    hit = (k_plus - log_k > thr) | (k_minus - log_k > thr)
    first = np.argmax(hit, axis=1) + 1
    return np.where(hit.any(axis=1), first, 0)


def draw(rng: np.random.Generator, streams: int, n: int, delta: float) -> np.ndarray:
    p_plus, p_minus = 0.15 + delta / 2, 0.15 - delta / 2
    u = rng.random((streams, n))
    return np.where(u < p_plus, 1.0, np.where(u < p_plus + p_minus, -1.0, 0.0))


def t_pvalues(d: np.ndarray, at: np.ndarray) -> np.ndarray:
    """Two-sided paired t-test p-values after each n in ``at`` (streams × len(at))."""
    s1 = np.cumsum(d, axis=1)[:, at - 1]
    s2 = np.cumsum(d * d, axis=1)[:, at - 1]
    mean = s1 / at
    var = (s2 - at * mean**2) / (at - 1)
    with np.errstate(divide="ignore", invalid="ignore"):
        tstat = mean / np.sqrt(var / at)
    p = 2 * stats.t.sf(np.abs(tstat), at - 1)
    return np.where(np.isfinite(p), p, 1.0)


def check_against_monitor(d: np.ndarray, tau: np.ndarray, count: int = 5,
                          method: str = "betting") -> None:
    for i in range(count):
        n = d.shape[1]
        df = pd.DataFrame({"dataset": "sim", "system": ["A"] * n + ["B"] * n,
                           "item": [f"i{j}" for j in range(n)] * 2,
                           "value": np.concatenate([np.zeros(n), np.zeros(n)])})
        a = np.where(d[i] < 0, 1.0, 0.0)
        b = np.where(d[i] > 0, 1.0, 0.0)
        df["value"] = np.concatenate([a, b])
        res = rg.monitor(rg.Scores(df), control="A", treatment="B", method=method)
        expect = res.n_used if res.stopped else 0
        assert expect == tau[i], (i, expect, tau[i])


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--streams", type=int, default=10_000)
    ap.add_argument("--horizon", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args()
    if args.quick:
        args.streams = 2000
    rng = np.random.default_rng(args.seed)
    t0 = time.perf_counter()
    horizons = np.array([100, 250, 500, 1000, args.horizon])
    peeks = np.arange(50, args.horizon + 1, 50)
    wrong, naive = np.zeros(horizons.size), np.zeros(horizons.size)
    wrong_mix = np.zeros(horizons.size)
    done = 0
    chunk = 1000
    while done < args.streams:
        m = min(chunk, args.streams - done)
        d = draw(rng, m, args.horizon, 0.0)
        tau = stopping_times(d)
        tau_mix = stopping_times_mixture(d)
        if done == 0:
            check_against_monitor(d, tau)
            check_against_monitor(d, tau_mix, method="mixture")
        wrong += ((tau > 0)[:, None] & (tau[:, None] <= horizons)).sum(axis=0)
        wrong_mix += ((tau_mix > 0)[:, None] & (tau_mix[:, None] <= horizons)).sum(axis=0)
        p = t_pvalues(d, peeks)
        sig = p < 0.05
        first = np.where(sig.any(axis=1), peeks[np.argmax(sig, axis=1)], 10**9)
        naive += (first[:, None] <= horizons).sum(axis=0)
        done += m
    print(f"Validity under the null ({args.streams:,} streams, level {LEVEL}): "
          f"P(ever deciding by h)")
    print("| horizon h | monitor, mixture (default) | monitor, betting | naive t-test every 50 "
          "items |")
    print("|---:|---:|---:|---:|")
    for h, wm, w, nv in zip(horizons, wrong_mix / args.streams, wrong / args.streams,
                            naive / args.streams, strict=True):
        print(f"| {h:,} | {wm:.4f} | {w:.4f} | {nv:.4f} |")
    print()
    print(f"Efficiency ({args.streams:,} streams per effect; fixed-n paired t-test at α = 0.05)")
    print("| δ = p₊ − p₋ | fixed n | its power | rule | monitor n* at that power | n*/n | "
          "mean items E[min(τ, n*)] | ratio to n |")
    print("|---:|---:|---:|---|---:|---:|---:|---:|")
    for delta, n in ((0.10, 300), (0.06, 800), (0.04, 1500), (0.02, 6000)):
        horizon = 4 * n if delta < 0.03 else 6 * n
        taus: dict[str, list[np.ndarray]] = {"mixture": [], "betting": []}
        pw = []
        done = 0
        while done < args.streams:
            m = min(chunk if n < 5000 else chunk // 4, args.streams - done)
            d = draw(rng, m, horizon, delta)
            taus["mixture"].append(stopping_times_mixture(d))
            taus["betting"].append(stopping_times(d))
            pw.append(t_pvalues(d, np.array([n]))[:, 0] < 0.05)
            done += m
        power = float(np.concatenate(pw).mean())
        for rule, parts in taus.items():
            tau = np.concatenate(parts)
            stop = np.where(tau > 0, tau, np.iinfo(np.int64).max)
            n_star = int(np.quantile(stop, power, method="inverted_cdf"))
            if n_star > horizon:
                print(f"| {delta:.2f} | {n:,} | {power:.3f} | {rule} | > {horizon:,} | – | – "
                      f"| – |")
                continue
            mean_items = float(np.minimum(stop, n_star).mean())
            print(f"| {delta:.2f} | {n:,} | {power:.3f} | {rule} | {n_star:,} | "
                  f"{n_star / n:.2f} | {mean_items:.0f} | {mean_items / n:.2f} |", flush=True)
    print(f"\n({time.perf_counter() - t0:.0f} s)")


if __name__ == "__main__":
    main()
