"""Validity of the cluster-robust tests under the null, measured by simulation.

    python benchmarks/cluster_validity.py [--replicates 10000] [--resamples 999] [--quick]
                                          [--kinds binary,binary-equal]

Clustered data with no true difference between two systems, as an LLM evaluation meets it:
C clusters (20, 50, 200) of m_k questions each, m_k drawn once per scenario uniformly from
2..20 (so every replicate of a scenario has the same unequal cluster sizes), intra-cluster
correlation ICC 0.1 / 0.5 / 0.9:

* continuous: the per-item difference d_i = u_k + e_i, u_k ~ N(0, ICC), e_i ~ N(0, 1 − ICC);
  unpaired: two systems on different items of the same clusters, each value u_k + e_i;
* binary: system A answers item i of cluster k correctly with probability p_k, system B with
  q_k, p_k and q_k independent Beta draws with mean 0.6 and ICC ρ (a + b = 1/ρ − 1), so the
  per-item correctness of each system has intra-cluster correlation ρ and E p = E q;
  binary-equal: the same with every cluster of one size m, drawn once per scenario from 2..20
  (where Yang, Sun & Hardin's rule takes their modified Obuchowski test at any C).

* ppi: judge scores with human scores for some items, the prediction-powered
  (PPI++) test of a zero mean human score difference: per item a human difference
  h_i = u_k + e_i (as continuous), a judge that tracks it, f_i = 0.8 h_i + b_k + ε_i + 0.3 with
  a bias b_k ~ N(0, 0.25) shared within the cluster and ε_i ~ N(0, 0.25), and a human score on
  a random 30 % of the items (drawn once per scenario); the cluster-robust PPI test with CR2 and
  Bell–McCaffrey df (``compare``'s and ``ppi_mean``'s default), with CR1 on C − 1 df, and the
  PPI test that treats items as independent (:func:`ranger_eval.stats.ppi.
  prediction_powered_rows`, every replicate a row).

Paired 0/1 data get two clustered McNemar rows: Obuchowski's statistic, and the one
``compare`` uses (Yang, Sun & Hardin 2010's recommendation,
:func:`ranger_eval.stats.clustered.mcnemar_method`: Durkalski's below 50 clusters of unequal
sizes, else the modified Obuchowski test).

For every replicate the clustered tests of ``compare``'s default paths run through the kernels
``compare`` uses (:mod:`ranger_eval.stats.clustered`; all replicates of a scenario in one
vectorised call, the resampling tests sharing one resample matrix over the C clusters, as the
pairs of one dataset do in ``compare``), next to the naive test that treats items as
independent. The rejection rate at α = 0.05 should lie in [4 %, 6 %] for the clustered tests
(its Monte-Carlo standard error at 10,000 replicates is 0.22 percentage points).
"""
from __future__ import annotations

import argparse
import time
from dataclasses import dataclass

import numpy as np

from ranger_eval.stats import clustered as cl
from ranger_eval.stats import many
from ranger_eval.stats.ppi import prediction_powered_rows
from ranger_eval.stats.resampling import BootstrapIndices, SignFlips

ALPHA = 0.05
ICCS = (0.1, 0.5, 0.9)
N_CLUSTERS = (20, 50, 200)


@dataclass(frozen=True)
class Scenario:
    kind: str  # "continuous", "binary", "binary-equal", "unpaired" or "ppi"
    icc: float
    n_clusters: int


KINDS = ("continuous", "binary", "unpaired", "binary-equal", "ppi")


def _sizes(rng: np.random.Generator, c: int, equal: bool = False) -> np.ndarray:
    if equal:
        return np.full(c, rng.integers(2, 21))
    return rng.integers(2, 21, c)


def _continuous(rng: np.random.Generator, reps: int, sizes: np.ndarray, icc: float
                ) -> np.ndarray:
    codes = np.repeat(np.arange(sizes.size), sizes)
    u = rng.normal(0.0, np.sqrt(icc), (reps, sizes.size))
    return u[:, codes] + rng.normal(0.0, np.sqrt(1.0 - icc), (reps, codes.size))


def _binary(rng: np.random.Generator, reps: int, sizes: np.ndarray, icc: float
            ) -> tuple[np.ndarray, np.ndarray]:
    codes = np.repeat(np.arange(sizes.size), sizes)
    ab = 1.0 / icc - 1.0
    p = rng.beta(0.6 * ab, 0.4 * ab, (reps, sizes.size))
    q = rng.beta(0.6 * ab, 0.4 * ab, (reps, sizes.size))
    x = (rng.random((reps, codes.size)) < p[:, codes]).astype(np.float64)
    y = (rng.random((reps, codes.size)) < q[:, codes]).astype(np.float64)
    return x, y


def rejection_rates(sc: Scenario, replicates: int, resamples: int, seed: int = 20261126,
                    chunk: int = 2000) -> dict[str, float]:
    """Rejection rate at α = 0.05 of every clustered test of the scenario and its naive
    counterpart, over ``replicates`` null data sets (processed ``chunk`` at a time)."""
    rng = np.random.default_rng([seed, int(sc.icc * 10), sc.n_clusters, len(sc.kind)])
    sizes = _sizes(rng, sc.n_clusters, equal=sc.kind == "binary-equal")
    codes = np.repeat(np.arange(sizes.size), sizes)
    c = sizes.size
    hits: dict[str, int] = {}
    flips = SignFlips(c, resamples, 0)
    boot = BootstrapIndices(c, resamples, 0)
    lab_ppi = np.zeros(codes.size, dtype=bool)
    if sc.kind == "ppi":  # the human-scored items, drawn once (no draw for the other kinds)
        lab_ppi = rng.random(codes.size) < 0.3
        lab_ppi[:2], lab_ppi[-2:] = True, False

    def add(name: str, p: np.ndarray) -> None:
        hits[name] = hits.get(name, 0) + int((p <= ALPHA).sum())

    done = 0
    while done < replicates:
        reps = min(chunk, replicates - done)
        done += reps
        if sc.kind == "unpaired":
            half = sizes // 2  # system A on the first half of each cluster, B on the rest
            first = np.concatenate([np.arange(o, o + h) for o, h in
                                    zip(np.r_[0, np.cumsum(sizes)[:-1]], half, strict=True)])
            in_a = np.zeros(codes.size, dtype=bool)
            in_a[first] = True
            v = _continuous(rng, reps, sizes, sc.icc)
            xa, ya = v[:, in_a], v[:, ~in_a]
            p_cr = np.array([cl.clustered_unpaired_ttest(
                xa[r], ya[r], clusters_x=codes[in_a], clusters_y=codes[~in_a]).pvalue
                for r in range(reps)])
            add("CR1 t (unpaired)", p_cr)
            add("naive Welch t", many.welch_ttest_many(xa, ya).pvalue)
            continue
        if sc.kind == "ppi":
            for name, rate in _ppi_rejections(rng, reps, sizes, sc.icc, lab_ppi).items():
                add(name, rate)
            continue
        if sc.kind == "continuous":
            d = _continuous(rng, reps, sizes, sc.icc)
        else:
            x, y = _binary(rng, reps, sizes, sc.icc)
            d = x - y
        sums = cl.cluster_sums(d, codes, c)
        add("CR1 t (paired)", cl.clustered_ttest_from_sums(sums, sizes).pvalue)
        add("CR2-BM t (paired)", cl.clustered_ttest_from_sums(sums, sizes, vcov="CR2").pvalue)
        add("naive paired t", many.paired_ttest_many(d).pvalue)
        add("cluster permutation", cl.cluster_permutation_test_many(sums, sizes,
                                                                    flips=flips).pvalue)
        add("cluster bootstrap", cl.cluster_bootstrap_many(sums, sizes, indices=boot,
                                                           ci_method="percentile").pvalue)
        add("clustered signed-rank", np.array([
            cl.clustered_signed_rank(row, clusters=codes).pvalue for row in d]))
        if sc.kind.startswith("binary"):
            add("clustered McNemar (Obuchowski)",
                cl.clustered_mcnemar_from_sums(sums, sizes).pvalue)
            add("clustered McNemar (compare: YSH)", cl.clustered_mcnemar_from_sums(
                sums, sizes, method=cl.mcnemar_method(sizes)).pvalue)
            add("naive McNemar (exact)", many.mcnemar_many(x, y).pvalue)
    return {k: v / replicates for k, v in hits.items()}


def _ppi_rejections(rng: np.random.Generator, reps: int, sizes: np.ndarray, icc: float,
                    lab: np.ndarray) -> dict[str, np.ndarray]:
    """p-values of the PPI++ test of ``reps`` null replicates (module docstring, ppi kind):
    cluster-robust CR2 with Bell–McCaffrey df, CR1 on C − 1 df, and independent items."""
    codes = np.repeat(np.arange(sizes.size), sizes)
    h = _continuous(rng, reps, sizes, icc)
    f = (0.8 * h + 0.5 * rng.normal(size=(reps, sizes.size))[:, codes]
         + 0.5 * rng.normal(size=(reps, codes.size)) + 0.3)
    out = {}
    for name, vcov, cl_l, cl_u in (("PPI CR2-BM t", "CR2", codes[lab], codes[~lab]),
                                   ("PPI CR1 t", "CR1", codes[lab], codes[~lab]),
                                   ("naive PPI z", "CR1", None, None)):
        res = prediction_powered_rows(h[:, lab], f[:, lab], f[:, ~lab], clusters=cl_l,
                                      clusters_unlabelled=cl_u, vcov=vcov)
        out[name] = res.test("two-sided", 1.0 - ALPHA)[1]
    return out


def scenarios(quick: bool = False, kinds: tuple[str, ...] = KINDS) -> list[Scenario]:
    if quick:
        return [Scenario(k, 0.5, 20) for k in kinds]
    return [Scenario(k, icc, c) for k in kinds for icc in ICCS for c in N_CLUSTERS]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--replicates", type=int, default=10_000)
    ap.add_argument("--resamples", type=int, default=999)
    ap.add_argument("--quick", action="store_true", help="ICC 0.5, 20 clusters only")
    ap.add_argument("--kinds", default=",".join(KINDS),
                    help=f"comma-separated data kinds (default: {','.join(KINDS)})")
    args = ap.parse_args()
    kinds = tuple(k.strip() for k in args.kinds.split(",") if k.strip())
    unknown = [k for k in kinds if k not in KINDS]
    if unknown:
        ap.error(f"unknown kind(s) {', '.join(unknown)}; use {', '.join(KINDS)}")
    print(f"rejection rate at alpha = 0.05 over {args.replicates} null replicates "
          f"(resampling tests: {args.resamples} resamples); target [4%, 6%] for clustered tests")
    print(f"{'data':<12} {'ICC':>4} {'C':>4}  {'test':<33} {'rate':>7}")
    start = time.perf_counter()
    for sc in scenarios(args.quick, kinds):
        rates = rejection_rates(sc, args.replicates, args.resamples)
        for name, rate in rates.items():
            flag = "" if name.startswith("naive") or 0.04 <= rate <= 0.06 else "  outside"
            print(f"{sc.kind:<12} {sc.icc:>4} {sc.n_clusters:>4}  {name:<33} {rate:>7.2%}{flag}",
                  flush=True)
    print(f"{time.perf_counter() - start:.0f} s")


if __name__ == "__main__":
    main()
