"""Null calibration of compare's prediction-powered rank tests under a biased judge.

    python benchmarks/ppi_rank_null.py [--reps 2000] [--seed 0] [--quick]

Two systems A and B with the SAME human-score distribution on every item (H = human(A) −
human(B) symmetric about 0, so both rank nulls hold: P(H > 0) = P(H < 0) and the Walsh
averages are symmetric), judged by an automatic judge that is biased:

* ``system bias``: judge = human + noise, and the judge adds 0.3 to B's scores;
* ``item-correlated``: judge(A) = human(A) + 0.4·|z_item| + noise — an over-rating of A that
  varies from item to item (e.g. with the answer's length) — and judge(B) = human(B) + noise;
* ``likert``: human scores 1–5, the judge rounds human + noise + 0.5 for A (clipped to 1–5):
  heavy ties and zeros;
* ``binary``: 0/1 human scores, the judge flips A's 0s to 1 with probability 0.25 and B's with
  probability 0.05;
* ``clustered``: ``system bias`` on 100 clusters of 10 items sharing a cluster effect in human
  and judge differences (the tests' cluster-robust versions: whole clusters).

Every setting has n items (1,000; 500 with ``--quick``) of which a few (30 or 100) have human
scores. For each replicate the script runs the rank tests compare runs on such scores — the
kernel of :mod:`ranger_eval.stats.ppi_rank` that ``compare(test="wilcoxon" | "sign")`` calls,
all replicates as the rows of one matrix (tests/comparison/test_ppi_rank.py checks that compare
equals the kernel) — and the naive rank tests of the judge's scores (scipy's Wilcoxon
signed-rank test and the exact sign test of all n judge differences, as ``compare`` would run
them without the ``human_value`` column); and, for comparison, the prediction-powered Wilcoxon
test with the plug-in power-tuned λ̂ (``ppi wilcoxon λ̂``; compare uses λ = 1). It prints the rejection rate at α = 0.05 with its
Clopper–Pearson 95 % interval. The last line is a JSON object with the rates.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np
from scipy import stats

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from ranger_eval.stats.ppi_rank import ppi_sign_rows, ppi_walsh_rows  # noqa: E402

ALPHA = 0.05


def simulate(kind: str, reps: int, n: int, rng: np.random.Generator
             ) -> tuple[np.ndarray, ...]:
    """reps × n human and judge scores of A and B under the null (module docstring), and the
    items' cluster codes (None: independent items)."""
    shape = (reps, n)
    clusters = None
    if kind == "likert":
        base = rng.integers(1, 6, shape)
        ha = np.clip(base + rng.integers(-1, 2, shape), 1, 5).astype(float)
        hb = np.clip(base + rng.integers(-1, 2, shape), 1, 5).astype(float)
        ja = np.clip(np.round(ha + rng.normal(0, 0.7, shape) + 0.5), 1, 5)
        jb = np.clip(np.round(hb + rng.normal(0, 0.7, shape)), 1, 5)
    elif kind == "binary":
        p = rng.uniform(0.2, 0.9, shape)
        ha = (rng.random(shape) < p).astype(float)
        hb = (rng.random(shape) < p).astype(float)
        ja = np.where((ha == 0) & (rng.random(shape) < 0.25), 1.0, ha)
        jb = np.where((hb == 0) & (rng.random(shape) < 0.05), 1.0, hb)
    else:
        base = rng.normal(size=shape)
        ea, eb = rng.normal(0, 0.6, shape), rng.normal(0, 0.6, shape)
        if kind == "clustered":
            clusters = np.arange(n) // 10
            shared = rng.normal(0, 0.6, (reps, n // 10))[:, clusters]
            ea = ea + shared  # a cluster effect in A's human scores (H symmetric still)
        ha, hb = base + ea, base + eb
        noise_a, noise_b = rng.normal(0, 0.5, shape), rng.normal(0, 0.5, shape)
        if kind == "clustered":
            noise_a = noise_a + rng.normal(0, 0.4, (reps, n // 10))[:, clusters]
        if kind == "item-correlated":
            ja = ha + 0.4 * np.abs(rng.normal(size=shape)) + noise_a
            jb = hb + noise_b
        else:
            ja, jb = ha + noise_a, hb + 0.3 + noise_b
    return ha, hb, ja, jb, clusters


def naive_sign_p(d: np.ndarray) -> np.ndarray:
    """Exact two-sided sign test of every row (zeros dropped)."""
    k = (d > 0).sum(axis=1)
    m = (d != 0).sum(axis=1)
    low = stats.binom.cdf(k, m, 0.5)
    high = stats.binom.sf(k - 1, m, 0.5)
    return np.minimum(1.0, 2.0 * np.minimum(low, high))


def rate(p: np.ndarray) -> tuple[float, float, float]:
    """Rejection rate at ALPHA with its Clopper–Pearson 95 % interval."""
    k, reps = int((p < ALPHA).sum()), p.size
    ci = stats.binomtest(k, reps).proportion_ci(0.95, method="exact")
    return k / reps, float(ci.low), float(ci.high)


def run(kind: str, n: int, n_lab: int, reps: int, seed: int) -> dict[str, object]:
    rng = np.random.default_rng([seed, n, n_lab, sum(map(ord, kind))])
    ha, hb, ja, jb, clusters = simulate(kind, reps, n, rng)
    lab = np.zeros(n, dtype=bool)
    lab[rng.choice(n, n_lab, replace=False)] = True  # the items with human scores (random)
    h, d = (ha - hb)[:, lab], ja - jb
    dl, du = d[:, lab], d[:, ~lab]
    cl = None if clusters is None else clusters[lab]
    cu = None if clusters is None else clusters[~lab]
    out: dict[str, object] = {"setting": kind, "n": n, "n_labelled": n_lab, "reps": reps}
    wil = ppi_walsh_rows(h, dl, du, power_tune=False, clusters=cl, clusters_unlabelled=cu)
    tuned = ppi_walsh_rows(h, dl, du, clusters=cl, clusters_unlabelled=cu)
    sgn = ppi_sign_rows(h, dl, du, clusters=cl, clusters_unlabelled=cu, vcov="CR2")
    with np.errstate(invalid="ignore", divide="ignore"):
        out["ppi wilcoxon"] = rate(wil.test("two-sided", 1 - ALPHA)[1])
        out["ppi sign"] = rate(sgn.test("two-sided", 1 - ALPHA)[1])
        out["ppi wilcoxon λ̂"] = rate(tuned.test("two-sided", 1 - ALPHA)[1])
    out["naive wilcoxon"] = rate(np.nan_to_num(stats.wilcoxon(d, axis=1).pvalue, nan=1.0))
    out["naive sign"] = rate(naive_sign_p(d))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--reps", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--quick", action="store_true", help="500 items, 500 replicates")
    args = ap.parse_args()
    n = 500 if args.quick else 1000
    reps = 500 if args.quick else args.reps
    start = time.perf_counter()
    results = []
    cols = ("ppi wilcoxon", "ppi sign", "naive wilcoxon", "naive sign", "ppi wilcoxon λ̂")
    print(f"rejection rate at α = {ALPHA} under H0 (Clopper–Pearson 95 % interval), "
          f"{reps} replicates, {n} items")
    print(f"{'setting':16s} {'labels':>6s}  " + "  ".join(f"{c:>22s}" for c in cols))
    for kind in ("system bias", "item-correlated", "likert", "binary", "clustered"):
        for n_lab in (30, 100):
            r = run(kind, n, n_lab, reps, args.seed)
            results.append(r)
            cells = []
            for c in cols:
                v, lo, hi = r[c]  # type: ignore[misc]
                cells.append(f"{100 * v:5.1f} % [{100 * lo:4.1f}, {100 * hi:5.1f}]")
            print(f"{kind:16s} {n_lab:6d}  " + "  ".join(f"{c:>22s}" for c in cells),
                  flush=True)
    print(f"({time.perf_counter() - start:.1f} s)")
    print(json.dumps({"rates": results}))


if __name__ == "__main__":
    main()
