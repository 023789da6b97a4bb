"""Generate aggregate_oracles.json: peer-tool answers for ranger_eval.aggregate.

Oracle for tests/aggregate/. Nothing here imports ranger_eval. What comes from where:

* ``harmonicmeanp`` — R harmonicmeanp 3.0.1 ``p.hmp``/``hmp.stat``/``pharmonicmeanp``, produced
  by ``aggregate_oracles.R`` (run with ``Rscript``; see that file for how R and the package were
  installed). Without R (or with ``--keep-r``) the section already in the JSON is kept.
* ``hmp_mpmath`` — the same p-value from an independent evaluation: the classical Landau survival
  function ``P(X > x) = (1/π) ∫_0^∞ t^{−t} e^{−x t} sin(π t) / t dt`` by mpmath quadrature at 40
  digits. R's ``Landau(μ, σ = π/2)`` (FMStable ``pEstable``, ``pm = 0``) is the classical Landau
  shifted: ``P(Y > y) = P(X > y − μ + log(π/2))``, with ``μ = log L + 1 + ψ(1) − log(2/π)``; the
  p-value is ``w · P(Y > Σ w_i/p_i)``.
* ``srange_mpmath`` — studentized range survival function with df = ∞ by mpmath quadrature of
  ``k ∫ φ(z)[Φ(z)^{k−1} − (Φ(z) − Φ(z − q))^{k−1}] dz`` at 80 digits (and ``erfc(q/2)``, exact
  for k = 2, in the far tail); ``scipy`` holds ``scipy.stats.studentized_range.sf`` at moderate q.
* ``demsar`` and ``tables`` — the printed Table 6 of Demšar (2006) and seeded random tables:
  ``scipy.stats.friedmanchisquare`` (tie-corrected χ² and p), scikit-posthocs
  ``posthoc_nemenyi_friedman`` (studentized-range p-values) and ``posthoc_wilcoxon``
  (``zero_method="zsplit"``, raw and Holm), autorank (``force_mode="nonparametric"``: mean ranks
  and its CD, which uses statsmodels' tabulated ``qsturng``), ``scipy.stats.studentized_range.ppf``
  for the Nemenyi ``q_α``, and — for the control-based post-hocs, which no peer implements — z
  p-values from ``scipy.stats.norm`` with statsmodels ``multipletests`` (Holm, Bonferroni) and the
  Bonferroni–Dunn CD from ``scipy.stats.norm.isf``. Also ``scipy.stats.wilcoxon(zsplit)`` and
  ``scipy.stats.binomtest`` for two-system tests.
* ``topsis`` — pymcdm ``TOPSIS`` with ``vector_normalization`` and ``minmax_normalization``.
* ``kendall`` — ``scipy.stats.kendalltau``.

Usage (from the repository root)::

    pip install -e '.[oracle]'
    R_LIBS=/path/to/rlib python tests/oracles/aggregate_oracles.py [--keep-r]
"""
from __future__ import annotations

import argparse
import itertools
import json
import math
import os
import shutil
import subprocess
import sys
from importlib.metadata import version
from pathlib import Path

import mpmath as mp
import numpy as np
import pandas as pd
import scikit_posthocs as sp
from autorank import autorank
from pymcdm import normalizations
from pymcdm.methods import TOPSIS
from scipy import stats
from statsmodels.stats.multitest import multipletests

HERE = Path(__file__).resolve().parent
OUT = HERE / "aggregate_oracles.json"

# Demšar (2006), Table 6: AUC of C4.5 with m = 0 and cf = 0.25, with m tuned, with cf tuned and with
# both tuned, on 14 UCI data sets, as printed (3 decimals). The same numbers appear in several
# public reimplementations (e.g. Orange's and aeon's tests, the sci2s tutorial).
DEMSAR_SYSTEMS = ["C4.5", "C4.5+m", "C4.5+cf", "C4.5+m+cf"]
DEMSAR_DATASETS = [
    "adult (sample)", "breast cancer", "breast cancer wisconsin", "cmc", "ionosphere", "iris",
    "liver disorders", "lung cancer", "lymphography", "mushroom", "primary tumor", "rheum",
    "voting", "wine",
]
DEMSAR_AUC = [
    [0.763, 0.768, 0.771, 0.798], [0.599, 0.591, 0.590, 0.569], [0.954, 0.971, 0.968, 0.967],
    [0.628, 0.661, 0.654, 0.657], [0.882, 0.888, 0.886, 0.898], [0.936, 0.931, 0.916, 0.931],
    [0.661, 0.668, 0.609, 0.685], [0.583, 0.583, 0.563, 0.625], [0.775, 0.838, 0.866, 0.875],
    [1.000, 1.000, 1.000, 1.000], [0.940, 0.962, 0.965, 0.962], [0.619, 0.666, 0.614, 0.669],
    [0.972, 0.981, 0.975, 0.975], [0.957, 0.978, 0.946, 0.970],
]
ALPHAS = (0.05, 0.10)


def f17(x: float) -> float | None:
    x = float(x)
    return float(f"{x:.17g}") if math.isfinite(x) else None


# ----------------------------------------------------------------------------- HMP
def run_r(r_lib: str | None) -> dict | None:
    rscript = shutil.which("Rscript")
    if rscript is None:
        return None
    env = dict(os.environ)
    if r_lib:
        env["R_LIBS"] = r_lib
    proc = subprocess.run([rscript, str(HERE / "aggregate_oracles.R")], capture_output=True,
                          text=True, env=env, check=False)
    if proc.returncode != 0:
        print("Rscript failed; keeping the committed harmonicmeanp section:\n" + proc.stderr,
              file=sys.stderr)
        return None
    return json.loads(proc.stdout)


def classical_landau_sf(x0: mp.mpf) -> mp.mpf:
    """P(X > x0) for the classical Landau law, by quadrature of its Laplace-type integral."""
    def f(t):
        if t == 0:
            return mp.mpf(1)
        return mp.exp(-t * mp.log(t) - x0 * t) * mp.sin(mp.pi * t) / t
    pts = [mp.mpf(0)]
    if x0 > 1:  # the integrand lives on t ≲ 1/x0
        pts += [mp.mpf(c) / x0 for c in (1, 4, 16, 64)]
    pts += [mp.mpf(c) for c in (0.5, 1, 2, 4, 8, 16, 32)] + [mp.inf]
    pts = sorted(set(pts))
    return mp.quad(f, pts) / mp.pi


def hmp_mpmath(p: list[float], w: list[float] | None, L: int) -> dict:
    with mp.workdps(40):
        pv = [mp.mpf(x) for x in p]
        wv = [mp.mpf(1) / L] * len(p) if w is None else [mp.mpf(x) for x in w]
        s = mp.fsum(wi / pi for wi, pi in zip(wv, pv, strict=True))
        wsum = mp.fsum(wv)
        mu = mp.log(L) + 1 + mp.digamma(1) - mp.log(2 / mp.pi)
        sf = classical_landau_sf(s - mu + mp.log(mp.pi / 2))
        return {"p": p, "w": w, "L": L, "pvalue": f17(wsum * sf), "pvalue_adjusted": f17(sf),
                "hmp": f17(wsum / s)}


def hmp_cases() -> list[dict]:
    rng = np.random.default_rng(20250611)
    out = [
        hmp_mpmath([0.01, 0.2, 0.5], None, 3),
        hmp_mpmath([0.01, 0.2, 0.5], None, 10),
        hmp_mpmath([0.01, 0.2, 0.5], [0.5, 0.2, 0.1], 10),
        hmp_mpmath([0.05] * 7, None, 7),
        hmp_mpmath([1e-12, 0.4], None, 2),
        hmp_mpmath([0.9, 0.95, 1.0], None, 3),
    ]
    # (The quadrature needs x0 = Σ w_i/p_i − μ + log(π/2) above about −3, i.e. not p-values so
    # large relative to L that the survival function is 1 to double precision.)
    for n, L, scale in ((5, 5, 1.0), (20, 20, 1.0), (20, 500, 0.02), (200, 200, 1.0),
                        (3, 100000, 1e-6)):
        p = [float(f"{x:.12g}") for x in scale * rng.uniform(0, 1, n) ** 2]
        out.append(hmp_mpmath(p, None, L))
    w = rng.dirichlet(np.ones(8))
    p = [float(f"{x:.12g}") for x in rng.uniform(0, 0.3, 8)]
    out.append(hmp_mpmath(p, [float(f"{x:.12g}") for x in w / w.sum() * 0.999], 8))
    return out


# ----------------------------------------------------------------------------- studentized range
def srange_sf_mpmath(q: float, k: int) -> float:
    with mp.workdps(80):
        qq = mp.mpf(q)
        def f(z):
            a = mp.ncdf(z)
            return k * mp.npdf(z) * (a ** (k - 1) - (a - mp.ncdf(z - qq)) ** (k - 1))
        pts = sorted({mp.mpf(v) for v in (-12, -6, -3, 0, 1, 2, 3, 4, 6)} | {qq / 2, qq, qq + 4})
        return f17(mp.quad(f, [-mp.inf, *pts, mp.inf]))


def srange_cases() -> dict:
    mp_cases = []
    for k in (2, 3, 4, 10, 30, 100):
        for q in (0.1, 1.0, 2.5, 3.6, 5.0, 7.0, 9.0, 12.0):
            mp_cases.append({"q": q, "k": k, "sf": srange_sf_mpmath(q, k)})
    with mp.workdps(40):
        tail = [{"q": q, "k": 2, "sf": f17(mp.erfc(mp.mpf(q) / 2))} for q in (20.0, 30.0, 40.0)]
    qs = [0.05, 0.5, 1.5, 2.5, 3.3, 4.2, 5.5]
    scipy_cases = [{"q": q, "k": k, "sf": f17(stats.studentized_range.sf(q, k, np.inf))}
                   for k in (2, 3, 5, 8, 15) for q in qs]
    quantiles = [{"alpha": a, "k": k, "q": f17(stats.studentized_range.ppf(1 - a, k, np.inf))}
                 for a in ALPHAS for k in range(2, 11)]
    return {"mpmath": mp_cases + tail, "scipy": scipy_cases, "scipy_ppf": quantiles}


# ----------------------------------------------------------------------------- rank tests
def rank_oracle(values: np.ndarray, systems: list[str], higher_is_better: bool,
                control: str) -> dict:
    n, k = values.shape
    df = pd.DataFrame(values, columns=systems)
    oriented = -values if higher_is_better else values
    fr = stats.friedmanchisquare(*values.T) if k >= 3 else None
    # scikit-posthocs ranks ascending; Nemenyi p-values are symmetric in the direction.
    nem = sp.posthoc_nemenyi_friedman(oriented)
    samples = [values[:, j] for j in range(k)]
    wil_raw = sp.posthoc_wilcoxon(samples, zero_method="zsplit")
    wil_holm = sp.posthoc_wilcoxon(samples, zero_method="zsplit", p_adjust="holm")
    out: dict = {
        "systems": systems,
        "values": [[f17(v) for v in row] for row in values],
        "higher_is_better": higher_is_better,
        "control": control,
        "friedman_scipy": None if fr is None else {"statistic": f17(fr.statistic),
                                                    "pvalue": f17(fr.pvalue)},
        "nemenyi_scikit_posthocs": [[f17(v) for v in row] for row in nem.to_numpy()],
        "wilcoxon_scikit_posthocs": {
            "raw": [[f17(v) for v in row] for row in wil_raw.to_numpy()],
            "holm": [[f17(v) for v in row] for row in wil_holm.to_numpy()],
        },
    }
    if k >= 3:
        ar = {}
        for alpha in ALPHAS:
            res = autorank(df, alpha=alpha, verbose=False,
                           order="descending" if higher_is_better else "ascending",
                           force_mode="nonparametric")
            meanrank = {str(s): f17(v) for s, v in res.rankdf["meanrank"].items()}
            ar[str(alpha)] = {"meanrank": meanrank, "cd": f17(res.cd),
                              "omnibus": res.omnibus, "posthoc": res.posthoc}
        out["autorank"] = ar
    # Control-based post-hocs (no peer): z-tests on average ranks via scipy + statsmodels.
    ranks = stats.rankdata(oriented, axis=1)
    avg = ranks.mean(axis=0)
    se = math.sqrt(k * (k + 1) / (6 * n))
    c = systems.index(control)
    others = [j for j in range(k) if j != c]
    z = np.array([(avg[c] - avg[j]) / se for j in others])
    p = 2 * stats.norm.sf(np.abs(z))
    out["control_tests"] = {
        "others": [systems[j] for j in others],
        "z": [f17(v) for v in z],
        "pvalue": [f17(v) for v in p],
        "holm": [f17(v) for v in multipletests(p, method="holm")[1]],
        "bonferroni": [f17(v) for v in multipletests(p, method="bonferroni")[1]],
        "bonferroni_dunn_cd": {str(a): f17(stats.norm.isf(a / (2 * (k - 1))) * se)
                               for a in ALPHAS},
    }
    if k == 2:
        d = values[:, 0] - values[:, 1]
        if not higher_is_better:
            d = -d
        wins, losses, ties = int((d > 0).sum()), int((d < 0).sum()), int((d == 0).sum())
        used = wins + losses + 2 * (ties // 2)
        out["two_systems"] = {
            "a": systems[0], "b": systems[1],
            "wilcoxon_scipy": f17(stats.wilcoxon(values[:, 0], values[:, 1],
                                                 zero_method="zsplit").pvalue)
            if np.any(d != 0) else 1.0,
            "sign_binomtest": f17(stats.binomtest(wins + ties // 2, used, 0.5).pvalue),
            "wins": wins, "losses": losses, "ties": ties,
        }
    return out


def random_tables() -> list[dict]:
    rng = np.random.default_rng(20250612)
    specs = [(10, 3, 3, True), (14, 5, 2, True), (25, 6, 2, False), (8, 4, 1, True),
             (40, 8, 3, True), (30, 12, 2, False), (12, 2, 2, True), (9, 2, 1, False),
             (60, 5, 4, True), (20, 3, 1, True)]
    out = []
    for n, k, decimals, hib in specs:
        effect = rng.normal(0, 0.5, k)
        values = np.round(rng.normal(effect, 1.0, (n, k)), decimals)  # rounding makes ties
        systems = [f"S{j}" for j in range(k)]
        out.append(rank_oracle(values, systems, hib, control=systems[int(rng.integers(k))]))
    return out


# ----------------------------------------------------------------------------- TOPSIS
def topsis_cases() -> list[dict]:
    rng = np.random.default_rng(20250613)
    out = []
    for m, n in ((5, 3), (15, 3), (8, 6), (30, 4)):
        x = np.round(rng.uniform(0.05, 1.0, (m, n)) * rng.uniform(1, 100, n), 6)
        w = rng.dirichlet(np.ones(n))
        types = np.where(rng.uniform(size=n) < 0.35, -1, 1)
        types[0] = 1
        case = {"matrix": x.tolist(), "weights": w.tolist(), "types": types.tolist()}
        for name, fn in (("vector", normalizations.vector_normalization),
                         ("minmax", normalizations.minmax_normalization)):
            case[name] = [f17(v) for v in TOPSIS(fn)(x, w, types)]
        out.append(case)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--r-lib", default=os.environ.get("R_LIBS"),
                    help="R library holding FMStable and harmonicmeanp (default: $R_LIBS)")
    ap.add_argument("--keep-r", action="store_true",
                    help="do not run R; keep the committed harmonicmeanp section")
    args = ap.parse_args()
    old = json.loads(OUT.read_text()) if OUT.exists() else {}
    r = None if args.keep_r else run_r(args.r_lib)
    if r is None:
        r = old.get("harmonicmeanp")
        if r is None:
            sys.exit("no R harmonicmeanp results: install R and the package (see the .R file)")

    demsar = rank_oracle(np.array(DEMSAR_AUC), DEMSAR_SYSTEMS, True, control="C4.5")
    demsar["datasets"] = DEMSAR_DATASETS
    demsar["paper"] = {
        "source": "Demšar (2006), JMLR 7:1-30, §3.2.4 worked example on Table 6",
        "average_ranks": {"C4.5": 3.143, "C4.5+m": 2.000, "C4.5+cf": 2.893, "C4.5+m+cf": 1.964},
        "friedman_chi2": 9.28, "iman_davenport": 3.69, "iman_davenport_df": [3, 39],
        "nemenyi_q_0.05": 2.569, "nemenyi_cd_0.05": 1.25,
    }
    pairs = list(itertools.combinations(range(4), 2))
    demsar["wilcoxon_scipy_pairs"] = [
        {"a": DEMSAR_SYSTEMS[i], "b": DEMSAR_SYSTEMS[j],
         "statistic": f17(stats.wilcoxon(np.array(DEMSAR_AUC)[:, i], np.array(DEMSAR_AUC)[:, j],
                                         zero_method="zsplit").statistic)}
        for i, j in pairs
    ]

    a = [0.9, 0.1, 0.5, 0.5, 0.3, 0.7]
    b = [0.8, 0.2, 0.6, 0.4, 0.4, 0.9]
    kt = stats.kendalltau(a, b)
    data = {
        "generator": "tests/oracles/aggregate_oracles.py",
        "versions": {pkg: version(pkg) for pkg in ("numpy", "scipy", "pandas", "statsmodels",
                                                   "scikit-posthocs", "autorank", "pymcdm",
                                                   "mpmath")},
        "harmonicmeanp": r,
        "hmp_mpmath": hmp_cases(),
        "srange": srange_cases(),
        "demsar": demsar,
        "tables": random_tables(),
        "topsis": topsis_cases(),
        "kendall": {"a": a, "b": b, "statistic": f17(kt.statistic), "pvalue": f17(kt.pvalue)},
        # Nemenyi q_0.05 and q_0.10 for k = 2..10 as tabulated in aeon
        # (aeon/benchmarking/stats.py, _get_qalpha), i.e. Demšar's Table 5(a) to 3 decimals.
        "nemenyi_q_table": {
            "0.05": [1.960, 2.344, 2.569, 2.728, 2.850, 2.948, 3.031, 3.102, 3.164],
            "0.1": [1.645, 2.052, 2.291, 2.460, 2.589, 2.693, 2.780, 2.855, 2.920],
        },
    }
    OUT.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n")
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
