"""Coverage of ranger_eval's default confidence intervals at small n, by
simulation: 95 % intervals, n = 15, 30, 60, 100 items, 10,000 replicates per cell (Monte-Carlo
standard error of a coverage near 95 % is 0.22 %), each default next to the t / Wald interval.

One mean (``rg.describe`` and the compare leaderboard, which shows describe's interval):

* ``0/1`` — Bernoulli(p) items, p = 0.5, 0.8, 0.95: default Wilson, beside mean ± t · s/√n;
  and p drawn per replicate from U(0.3, 0.95): the coverage averaged over p, the standard way
  to judge an interval of a discrete proportion, whose coverage at one p oscillates with n
  (Brown, Cai & DasGupta 2001, Stat. Sci. 16:101);
* ``bounded`` — continuous scores declared in [0, 1]: Beta(4, 1) (mean 0.8) and
  Beta(0.5, 4.5) (mean 0.1, skewed to 0): default Korn–Graubard on the declared range, beside t;
* ``clustered 0/1`` — two layouts: clusters of 3 items (C = 5, 10, 20, 34 clusters; at n = 100
  the last cluster holds one item) and clusters of 5 (C = 3, 6, 12, 20), cluster success rates
  from Beta with mean 0.8 and ICC 0.1: default Korn–Graubard, beside the CR1 t on C − 1 df.

Paired differences: the interval ``rg.compare`` reports by default, from the real code path
(one ``rg.compare`` call on all replicates of a cell at once, one dataset per replicate, two
systems A and B on the same items, ``test="auto"``), beside the t / Wald intervals:

* ``paired 0/1`` — joint outcomes (both right, only A, only B, both wrong) with probabilities
  (0.65, 0.15, 0.05, 0.15), difference 0.1: ``auto`` picks McNemar's exact test, whose rows
  carry Tango's score interval (formerly the paired t interval, shown beside it
  with the Wald z); and the same with a design (p_control, p_treatment, φ) drawn per replicate
  from the 92-design grid of ``benchmarks/paired_binary_intervals.py`` (the average over it);
* ``paired bounded, logit-normal`` (the representative case) — an item difficulty
  u ~ N(0, 1) shared by both systems, A = expit(u + 0.4 + e_A), B = expit(u + e_B),
  e ~ N(0, 0.5²): scores in (0, 1), a mildly skewed difference; ``auto`` picks the paired t;
* ``paired bounded, A − A·U`` (a strongly skewed difference) — A ~ Beta(4, 1), B = A · U,
  U ~ Beta(9, 1): d = A(1 − U) ≥ 0 with skewness ~1.9; paired t;
* ``paired clustered 0/1`` — the paired 0/1 outcomes with a cluster effect (the two layouts
  above: clusters of 3 or of 5 items; cluster-level probabilities of "only A" / "only B" from
  Beta with means 0.15 / 0.05 and ICC 0.1): ``auto`` picks the clustered McNemar test (Yang,
  Sun & Hardin 2010) whose rows carry the CR2 t interval with Bell–McCaffrey df (C − 1 with
  equal cluster sizes); beside it the CR1 t on C − 1 df (which equals CR2 here: with equal
  cluster sizes the CR2 factor 1/(1 − 1/C) is CR1's C/(C − 1)) and the Wald z that ignores the
  clusters.

The mean intervals are ranger_eval's own kernels (``ranger_eval.stats.bounded``), vectorised
over the replicates; the paired defaults are ``rg.compare``'s output; the t / Wald intervals
beside them are written out here. Usage:
``python benchmarks/interval_coverage.py [--replicates 10000] [--seed 27]`` (a markdown table on
stdout; about 3–4 minutes on one core, most of it in ``rg.compare``).
"""
from __future__ import annotations

import argparse
import time
import warnings
from collections.abc import Callable

import numpy as np
import pandas as pd
from scipy import special, stats

import ranger_eval as rg
from ranger_eval.stats.bounded import korn_graubard, wilson

LEVEL = 0.95
NS = (15, 30, 60, 100)
#: the two cluster layouts of the clustered scenarios: n = 15 items in 5 clusters of 3 or in
#: 3 clusters of 5 (at n = 100 clusters of 3 leave one cluster of a single item)
CLUSTER_SIZES = (3, 5)
#: the design grid of the paired 0/1 "average" row (benchmarks/paired_binary_intervals.py)
PS = (0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95)
PHIS = (0.2, 0.4, 0.6, 0.8)


def cluster_ids(n: int, size: int) -> np.ndarray:
    """Consecutive clusters of ``size`` items (the last one smaller when size ∤ n)."""
    return np.arange(n) // size


def t_interval(y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """mean ± t_{n−1} s/√n per row of y (replicates × n)."""
    n = y.shape[1]
    m, se = y.mean(1), y.std(1, ddof=1) / np.sqrt(n)
    q = stats.t.ppf(0.5 + LEVEL / 2, n - 1)
    return m - q * se, m + q * se


def z_interval(y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    n = y.shape[1]
    m, se = y.mean(1), y.std(1, ddof=1) / np.sqrt(n)
    q = stats.norm.isf((1 - LEVEL) / 2)
    return m - q * se, m + q * se


def cr1(y: np.ndarray, size: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Mean, CR1 se and the number of clusters C for rows of y in consecutive clusters of
    ``size`` items."""
    r, n = y.shape
    starts = np.unique(cluster_ids(n, size), return_index=True)[1]
    c = starts.size
    m = y.mean(1)
    s = np.add.reduceat(y - m[:, None], starts, axis=1)
    se = np.sqrt(c / (c - 1) * (s * s).sum(1)) / n
    return m, se, np.full(r, c)


def cr1_t(y: np.ndarray, size: int) -> tuple[np.ndarray, np.ndarray]:
    m, se, c = cr1(y, size)
    q = stats.t.ppf(0.5 + LEVEL / 2, c - 1)
    return m - q * se, m + q * se


def wilson_of(y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    n = y.shape[1]
    return wilson(y.sum(1), np.full(y.shape[0], n), LEVEL)


def kg_iid(y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    n = y.shape[1]
    se = y.std(1, ddof=1) / np.sqrt(n)
    full = np.full(y.shape[0], n)
    return korn_graubard(y.mean(1), se, full, full, LEVEL)


def kg_clustered(y: np.ndarray, size: int) -> tuple[np.ndarray, np.ndarray]:
    m, se, c = cr1(y, size)
    return korn_graubard(m, se, np.full(y.shape[0], y.shape[1]), c, LEVEL)


def compare_intervals(pairs: np.ndarray, size: int | None) -> tuple[np.ndarray, np.ndarray]:
    """``rg.compare``'s default interval of mean_A − mean_B, one dataset per replicate
    (``pairs``: 2 × replicates × n; with a cluster ``size``, consecutive clusters of that
    many items)."""
    _, r, n = pairs.shape
    ds = np.repeat(np.char.add("r", np.char.zfill(np.arange(r).astype(str), 6)), n)
    item = np.tile(np.arange(n).astype(str), r)
    frames = []
    for k, system in enumerate("AB"):
        f = pd.DataFrame({"dataset": ds, "system": system, "item": item,
                          "value": pairs[k].ravel()})
        if size is not None:
            f["cluster"] = np.tile(cluster_ids(n, size).astype(str), r)
        frames.append(f)
    with warnings.catch_warnings():  # e.g. "few clusters": the point of the simulation
        warnings.simplefilter("ignore")
        table = rg.compare(rg.Scores(pd.concat(frames, ignore_index=True))).table
    table = table.sort_values("dataset", kind="stable")
    if len(table) != r:  # one row per replicate, or the coverage would be misaligned
        raise RuntimeError(f"compare returned {len(table)} rows for {r} replicates")
    DEFAULTS.setdefault(str(n), set()).update(f"{t}: {m}" for t, m in
                                              set(zip(table["test"], table["ci_method"], strict=True)))
    return table["ci_low"].to_numpy(), table["ci_high"].to_numpy()


#: the (test: ci_method) pairs compare reported, per n (printed under the table)
DEFAULTS: dict[str, set[str]] = {}


def compare_default(pairs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    return compare_intervals(pairs, None)


def compare_clustered(pairs: np.ndarray, size: int) -> tuple[np.ndarray, np.ndarray]:
    return compare_intervals(pairs, size)


def paired_t(pairs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    return t_interval(pairs[0] - pairs[1])


def paired_z(pairs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    return z_interval(pairs[0] - pairs[1])


def paired_cr1(pairs: np.ndarray, size: int) -> tuple[np.ndarray, np.ndarray]:
    return cr1_t(pairs[0] - pairs[1], size)


def logit_truth() -> float:
    """E[expit(u + 0.4 + e_A) − expit(u + e_B)], u ~ N(0, 1), e ~ N(0, 0.25): by quadrature
    (the sum u + e is N(0, 1.25))."""
    x, w = np.polynomial.hermite_e.hermegauss(80)
    s = np.sqrt(1.25)
    return float((w * (special.expit(s * x + 0.4) - special.expit(s * x))).sum()
                 / np.sqrt(2 * np.pi))


def beta_params(mean: float, icc: float) -> tuple[float, float]:
    total = 1 / icc - 1
    return mean * total, (1 - mean) * total


#: a scenario: output, data, draw(g, replicates, n) -> (data, true value per replicate or one
#: float), and the intervals (name, function of the data)
Scenario = tuple[str, str,
                 Callable[[np.random.Generator, int, int], tuple[np.ndarray, object]],
                 list[tuple[str, Callable[[np.ndarray], tuple[np.ndarray, np.ndarray]]]]]


def paired_cells(g: np.random.Generator, cells: np.ndarray, n: int) -> np.ndarray:
    """Paired 0/1 outcomes (A, B) of n items per replicate from the per-replicate joint
    probabilities ``cells`` (replicates × 4: both right, only A, only B, both wrong)."""
    u = g.random((cells.shape[0], n))
    cut = np.cumsum(cells, axis=1)
    only_a = (u >= cut[:, [0]]) & (u < cut[:, [1]])
    only_b = (u >= cut[:, [1]]) & (u < cut[:, [2]])
    both = u < cut[:, [0]]
    return np.stack([both | only_a, both | only_b]).astype(float)


def design_grid() -> np.ndarray:
    """The (p11, p10, p01, p00) of every feasible (p_control ≤ p_treatment, φ) of the grid
    (A is the treatment)."""
    rows = []
    for pc in PS:
        for pt in PS:
            for phi in PHIS:
                if pt < pc:
                    continue
                p11 = pt * pc + phi * np.sqrt(pt * (1 - pt) * pc * (1 - pc))
                cells = [p11, pt - p11, pc - p11, 1 - pt - pc + p11]
                if min(cells) >= 0:
                    rows.append(cells)
    return np.array(rows)


def scenarios() -> list[Scenario]:
    out: list[Scenario] = []
    for p in (0.5, 0.8, 0.95):
        out.append(("describe / leaderboard", f"0/1, p = {p}",
                    lambda g, r, n, p=p: ((g.random((r, n)) < p).astype(float), p),
                    [("Wilson (default)", wilson_of), ("t", t_interval)]))

    def binary_grid(g: np.random.Generator, r: int, n: int) -> tuple[np.ndarray, np.ndarray]:
        p = g.uniform(0.3, 0.95, r)
        return (g.random((r, n)) < p[:, None]).astype(float), p

    out.append(("describe / leaderboard", "0/1, p ~ U(0.3, 0.95) per replicate (average over p)",
                binary_grid, [("Wilson (default)", wilson_of), ("t", t_interval)]))
    for a, b in ((4.0, 1.0), (0.5, 4.5)):
        out.append(("describe / leaderboard", f"bounded, Beta({a:g}, {b:g}) in [0, 1]",
                    lambda g, r, n, a=a, b=b: (g.beta(a, b, (r, n)), a / (a + b)),
                    [("Korn–Graubard (default)", kg_iid), ("t", t_interval)]))
    a, b = beta_params(0.8, 0.1)
    for size in CLUSTER_SIZES:
        def clustered(g: np.random.Generator, r: int, n: int,
                      size: int = size) -> tuple[np.ndarray, float]:
            ids = cluster_ids(n, size)
            pc = g.beta(a, b, (r, ids[-1] + 1))[:, ids]
            return (g.random((r, n)) < pc).astype(float), 0.8

        out.append(("describe / leaderboard",
                    f"clustered 0/1 ({size} per cluster, ICC 0.1), p = 0.8", clustered,
                    [("Korn–Graubard (default)", lambda y, size=size: kg_clustered(y, size)),
                     ("CR1 t, C − 1 df", lambda y, size=size: cr1_t(y, size))]))
    probs = np.array([0.65, 0.15, 0.05, 0.15])

    def paired01(g: np.random.Generator, r: int, n: int) -> tuple[np.ndarray, float]:
        return paired_cells(g, np.tile(probs, (r, 1)), n), 0.1

    paired_methods = [("Tango score (default)", compare_default),
                      ("paired t (default before)", paired_t), ("Wald z", paired_z)]
    out.append(("compare (paired difference)", "paired 0/1, difference 0.1", paired01,
                paired_methods))
    grid = design_grid()

    def paired01_grid(g: np.random.Generator, r: int, n: int) -> tuple[np.ndarray, np.ndarray]:
        cells = grid[g.integers(0, len(grid), r)]
        return paired_cells(g, cells, n), cells[:, 1] - cells[:, 2]

    out.append(("compare (paired difference)",
                f"paired 0/1, a design of the grid per replicate (average over {len(grid)} "
                "designs: accuracies 0.3–0.95, φ 0.2–0.8)", paired01_grid, paired_methods))

    def paired_logit(g: np.random.Generator, r: int, n: int) -> tuple[np.ndarray, float]:
        u = g.standard_normal((r, n))
        e = 0.5 * g.standard_normal((2, r, n))
        return np.stack([special.expit(u + 0.4 + e[0]), special.expit(u + e[1])]), TRUTH_LOGIT

    out.append(("compare (paired difference)", "paired bounded, logit-normal (representative)",
                paired_logit, [("paired t (default)", compare_default), ("Wald z", paired_z)]))

    def paired_bounded(g: np.random.Generator, r: int, n: int) -> tuple[np.ndarray, float]:
        x = g.beta(4, 1, (r, n))
        return np.stack([x, x * g.beta(9, 1, (r, n))]), 0.8 * 0.1

    out.append(("compare (paired difference)", "paired bounded, A − A·U (skewness 1.9)",
                paired_bounded, [("paired t (default)", compare_default), ("Wald z", paired_z)]))
    a1, b1 = beta_params(0.15, 0.1)
    a2, b2 = beta_params(0.05, 0.1)
    for size in CLUSTER_SIZES:
        def paired_clustered(g: np.random.Generator, r: int, n: int,
                             size: int = size) -> tuple[np.ndarray, float]:
            ids = cluster_ids(n, size)
            c = ids[-1] + 1
            pa = g.beta(a1, b1, (r, c))[:, ids]
            pb = g.beta(a2, b2, (r, c))[:, ids]
            u = g.random((r, n))
            both = g.random((r, n)) < 0.8  # concordant pairs: both right with probability 0.8
            only_a, only_b = u < pa, (u >= pa) & (u < pa + pb)
            conc = ~(only_a | only_b)
            return np.stack([only_a | conc & both, only_b | conc & both]).astype(float), 0.1

        out.append(("compare (paired difference)",
                    f"paired clustered 0/1 ({size} per cluster), difference 0.1",
                    paired_clustered,
                    [("CR2 t, Bell–McCaffrey df (default)",
                      lambda y, size=size: compare_clustered(y, size)),
                     ("CR1 t, C − 1 df", lambda y, size=size: paired_cr1(y, size)),
                     ("Wald z (clusters ignored)", paired_z)]))
    return out


TRUTH_LOGIT = logit_truth()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--replicates", type=int, default=10_000)
    ap.add_argument("--seed", type=int, default=27)
    args = ap.parse_args()
    g = np.random.default_rng(args.seed)
    r = args.replicates
    start = time.perf_counter()
    print("| output | data | interval | " + " | ".join(f"n = {n}" for n in NS) + " |")
    print("|---|---|---|" + "---:|" * len(NS))
    for output, data, draw, methods in scenarios():
        cells: dict[str, list[str]] = {name: [] for name, _ in methods}
        for n in NS:
            y, truth = draw(g, r, n)
            for name, fn in methods:
                lo, hi = fn(y)
                cover = float(np.mean((lo <= truth) & (truth <= hi)))
                mark = "" if abs(cover - LEVEL) <= 0.015 else " ✗"
                cells[name].append(f"{100 * cover:.1f}{mark}")
        for name, _ in methods:
            print(f"| {output} | {data} | {name} | " + " | ".join(cells[name]) + " |")
    for n in NS:
        print(f"\ncompare at n = {n}: " + "; ".join(sorted(DEFAULTS.get(str(n), ()))), end="")
    print()
    mc = 100 * np.sqrt(LEVEL * (1 - LEVEL) / r)
    print(f"\n{r:,} replicates per cell (Monte-Carlo se {mc:.2f} %); ✗: outside 95 ± 1.5 %; "
          f"{time.perf_counter() - start:.1f} s")


if __name__ == "__main__":
    main()
