"""Which interval for a paired difference of 0/1 scores (the McNemar rows of ``rg.compare``)?
Exact coverage of four published 95 % intervals over a grid of LLM-evaluation designs,
at n = 15, 30, 60, 100 paired items.

Each design is a pair of accuracies (p_control, p_treatment) and the φ correlation of the two
systems' per-item outcomes (both systems find the same items hard):
p_control, p_treatment ∈ {0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95} with
p_treatment ≥ p_control (every interval here is symmetric in the two systems, so the mirror
designs add nothing) and φ ∈ {0.2, 0.4, 0.6, 0.8}; a design whose four cell probabilities are
not all in [0, 1] (φ above its maximum for those margins) is left out. The cell probabilities are
p11 = p_t p_c + φ √(p_t(1 − p_t) p_c(1 − p_c)), p10 = p_t − p11 (only the treatment right),
p01 = p_c − p11, p00 = 1 − p11 − p10 − p01.

Coverage is computed exactly, not by simulation: the sum of the multinomial probabilities of
every table (a, b, c, d) with a + b + c + d = n whose interval holds the true difference
p_t − p_c (the limit of a simulation with infinitely many replicates; no Monte-Carlo error).

Candidates (b: pairs where only the treatment scores 1, c: only the control; a both, d neither;
z = Φ⁻¹(0.975)):

* ``Tango score`` — Tango (1998, Stat. Med. 17:891), the inversion of the score test that is
  McNemar's at θ = 0: :func:`ranger_eval.stats.tango_interval` (R ``ratesci::pairbinci(method =
  "Score_closed", skew = FALSE, bcf = FALSE)``, ``PropCIs::scoreci.mp``).
* ``Newcombe 10`` — Newcombe (1998, Stat. Med. 17:2635, method 10): the Wilson intervals
  (l₁, u₁), (l₂, u₂) of the two marginal accuracies p̂₁ = (a + b)/n, p̂₂ = (a + c)/n combined
  with the corrected φ̂ (φ̂ = max(ad − bc − n/2, 0)/√(margins) when ad > bc, 0 if a margin is 0):
  [d̂ − √((p̂₁ − l₁)² − 2φ̂(p̂₁ − l₁)(u₂ − p̂₂) + (u₂ − p̂₂)²),
  d̂ + √((u₁ − p̂₁)² − 2φ̂(u₁ − p̂₁)(p̂₂ − l₂) + (p̂₂ − l₂)²)];
  R ``ratesci::pairbinci(method = "MOVER_newc", moverbase = "wilson")``.
* ``Bonett–Price`` — Bonett & Price (2012, J. Educ. Behav. Stat. 37:479), adjusted Wald:
  p̃_b = (b + 1)/(n + 2), p̃_c = (c + 1)/(n + 2), θ̃ = p̃_b − p̃_c,
  θ̃ ± z √((p̃_b + p̃_c − θ̃²)/(n + 2)), clipped to [−1, 1]; R ``ratesci::pairbinci(method = "BP")``.
* ``Agresti–Min`` — Agresti & Min (2005, Stat. Med. 24:729), Wald after adding ½ to each of the
  four cells: θ̃ = (b − c)/(n + 2), θ̃ ± z √((b + c + 1) − (b − c)²/(n + 2)) / (n + 2), clipped;
  R ``PropCIs::diffpropci.mp``.

Beside them, for reference, the Wald z (b − c)/n ± z √((b + c)/n − ((b − c)/n)²)/√n and the
paired t (the McNemar rows' former interval).

Printed: per n and method the average coverage over the designs, the lowest (worst case), the
share of designs below 93.5 % and above 96.5 %, and the mean width at the representative design
of the interval_coverage benchmark (p_t = 0.8, p_c = 0.7, φ ≈ 0.45 is close to its cells
0.65/0.15/0.05/0.15). Usage: ``python benchmarks/paired_binary_intervals.py`` (about 20 s);
``--scas FILE`` adds ratesci's default skewness-corrected score interval (Laud 2017) from the
CSV that ``benchmarks/paired_binary_scas.R FILE`` writes.
"""
from __future__ import annotations

import argparse
import itertools
import time

import numpy as np
from scipy import special, stats

from ranger_eval.stats import tango_interval

NS = (15, 30, 60, 100)
PS = (0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95)
PHIS = (0.2, 0.4, 0.6, 0.8)
LEVEL = 0.95
Z = float(stats.norm.isf((1 - LEVEL) / 2))


def tables(n: int) -> np.ndarray:
    """Every 2 × 2 table (a, b, c, d) of n pairs, one row each."""
    a, b, c = np.meshgrid(np.arange(n + 1), np.arange(n + 1), np.arange(n + 1), indexing="ij")
    keep = a + b + c <= n
    a, b, c = a[keep], b[keep], c[keep]
    return np.stack([a, b, c, n - a - b - c], axis=1).astype(float)


def wilson(x: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    p = x / n
    denom = 1 + Z * Z / n
    centre = (p + Z * Z / (2 * n)) / denom
    half = Z / denom * np.sqrt(p * (1 - p) / n + Z * Z / (4 * n * n))
    return centre - half, centre + half


def tango(t: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    lo, hi = tango_interval(t[:, 1], t[:, 2], np.full(len(t), n), level=LEVEL)
    return np.asarray(lo), np.asarray(hi)


def newcombe10(t: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    a, b, c, d = t.T
    x1, x2 = a + b, a + c
    p1, p2 = x1 / n, x2 / n
    l1, u1 = wilson(x1, n)
    l2, u2 = wilson(x2, n)
    margins = np.sqrt(x1 * (n - x1) * x2 * (n - x2))
    cross = a * d - b * c
    with np.errstate(divide="ignore", invalid="ignore"):
        phi = np.where(cross > 0, np.maximum(cross - n / 2, 0), cross) / margins
    phi = np.where(margins > 0, phi, 0.0)
    est = p1 - p2
    lo = est - np.sqrt((p1 - l1) ** 2 - 2 * phi * (p1 - l1) * (u2 - p2) + (u2 - p2) ** 2)
    hi = est + np.sqrt((u1 - p1) ** 2 - 2 * phi * (u1 - p1) * (p2 - l2) + (p2 - l2) ** 2)
    return lo, hi


def bonett_price(t: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    pb, pc = (t[:, 1] + 1) / (n + 2), (t[:, 2] + 1) / (n + 2)
    est = pb - pc
    half = Z * np.sqrt((pb + pc - est * est) / (n + 2))
    return np.maximum(est - half, -1), np.minimum(est + half, 1)


def agresti_min(t: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    b, c = t[:, 1], t[:, 2]
    est = (b - c) / (n + 2)
    half = Z * np.sqrt((b + c + 1) - (b - c) ** 2 / (n + 2)) / (n + 2)
    return np.maximum(est - half, -1), np.minimum(est + half, 1)


def wald(t: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    b, c = t[:, 1] / n, t[:, 2] / n
    est = b - c
    half = Z * np.sqrt(np.maximum(b + c - est * est, 0) / n)
    return est - half, est + half


def paired_t(t: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    b, c = t[:, 1], t[:, 2]
    est = (b - c) / n
    var = np.maximum((b + c - n * est * est) / (n - 1), 0)  # s² of the ±1/0 differences
    half = stats.t.ppf(0.5 + LEVEL / 2, n - 1) * np.sqrt(var / n)
    return est - half, est + half


METHODS = {"Tango score": tango, "Newcombe 10": newcombe10, "Bonett–Price": bonett_price,
           "Agresti–Min": agresti_min, "Wald z": wald, "paired t": paired_t}


def designs() -> list[tuple[float, float, float, np.ndarray]]:
    out = []
    for pc, pt, phi in itertools.product(PS, PS, PHIS):
        if pt < pc:
            continue
        p11 = pt * pc + phi * np.sqrt(pt * (1 - pt) * pc * (1 - pc))
        cells = np.array([p11, pt - p11, pc - p11, 1 - pt - pc + p11])
        if (cells < 0).any() or (cells > 1).any():
            continue
        out.append((pc, pt, phi, cells))
    return out


def log_pmf(t: np.ndarray, n: int, cells: np.ndarray) -> np.ndarray:
    with np.errstate(divide="ignore"):
        logp = np.log(cells)
    terms = np.where(t > 0, t * logp, 0.0)
    return special.gammaln(n + 1) - special.gammaln(t + 1).sum(1) + terms.sum(1)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--scas", help="CSV of benchmarks/paired_binary_scas.R (n, b, c, lower, "
                    "upper)")
    args = ap.parse_args()
    methods = dict(METHODS)
    if args.scas:
        import pandas as pd

        table = pd.read_csv(args.scas).set_index(["n", "b", "c"])

        def scas(t: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
            key = pd.MultiIndex.from_arrays([np.full(len(t), n), t[:, 1].astype(int),
                                             t[:, 2].astype(int)])
            rows = table.reindex(key)
            # ratesci prints 8 decimals: widen by that rounding
            return rows["lower"].to_numpy() - 1e-8, rows["upper"].to_numpy() + 1e-8

        methods["SCAS (ratesci default)"] = scas
    start = time.perf_counter()
    grid = designs()
    print(f"{len(grid)} designs (p_control ≤ p_treatment in {PS}, φ in {PHIS}, feasible only)\n")
    print("| n | interval | average | worst case (design) | < 93.5 % | > 96.5 % | width at "
          "(0.7, 0.8, φ 0.4) |")
    print("|---:|---|---:|---:|---:|---:|---:|")
    for n in NS:
        t = tables(n)
        limits = {name: fn(t, n) for name, fn in methods.items()}
        for name, (lo, hi) in limits.items():
            cover, width = [], np.nan
            for pc, pt, phi, cells in grid:
                w = np.exp(log_pmf(t, n, cells))
                truth = pt - pc
                cover.append(float(w[(lo <= truth + 1e-12) & (truth - 1e-12 <= hi)].sum()))
                if (pc, pt, phi) == (0.7, 0.8, 0.4):
                    width = float((w * (hi - lo)).sum())
            cv = np.array(cover)
            k = int(cv.argmin())
            worst = f"{100 * cv[k]:.1f} ({grid[k][0]:g}, {grid[k][1]:g}, φ {grid[k][2]:g})"
            print(f"| {n} | {name} | {100 * cv.mean():.2f} | {worst} | "
                  f"{100 * np.mean(cv < 0.935):.0f} % | {100 * np.mean(cv > 0.965):.0f} % | "
                  f"{width:.3f} |")
    print(f"\nexact coverage (multinomial enumeration); {time.perf_counter() - start:.1f} s")


if __name__ == "__main__":
    main()
