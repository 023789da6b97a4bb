"""Generate ppi_rank_evalstats.json: prediction-powered rank tests computed by the peers
(no ranger_eval).

Oracle for tests/comparison/test_ppi_rank.py. Every case stores its data (two systems A and B
on the same items, judge scores ``value`` and human scores ``human_value``, ``null`` where there
is none) and, for the paired differences (A − B):

* ``wilcoxon_lam1``: evalstats 0.3.3 ``evalstats.tests.wilcoxon(a, b, a_lab, b_lab,
  power_tune=False)`` — its prediction-powered Wilcoxon signed-rank estimate (θ = P_mid(Walsh
  average > 0) − ½, λ = 1, Hájek-projection variance, t on n_lab − 1 df), interval at
  α = 0.05 and p-value;
* ``wilcoxon_tuned``: the same with evalstats' default ``power_tune=True`` (its λ shrunk towards
  a bootstrap-estimated target, a bootstrap variance of λ and a sign-flip null variance: not
  reproduced by ranger-eval; the test checks that its estimate is the same formula at its λ);
* ``sign``: ppi_py 0.2.3 (PyPI ``ppi-python``) PPI++ mean of s = sign(human A − human B) with
  ŝ = sign(judge A − judge B) as the prediction: ``ppi_mean_pointestimate``, ``ppi_mean_ci``
  (α = 0.05) and ``ppi_mean_pval`` at the λ those functions use (as tests/oracles/ppi_oracle.py).

evalstats 0.3.3 also ships a prediction-powered Mann–Whitney test (unpaired samples); compare's
prediction-powered tests are for systems scored on the same items, so it has no counterpart.

Floats are written with ``repr``. The tests compare at 1e-10.

Usage: pip install evalstats==0.3.3 ppi-python==0.2.3; python tests/oracles/ppi_rank_evalstats.py
"""
from __future__ import annotations

import contextlib
import io
import json
import warnings
from importlib.metadata import version
from pathlib import Path

import evalstats
import numpy as np
from ppi_py import ppi_mean_ci, ppi_mean_pointestimate, ppi_mean_pval
from ppi_py.ppi import _calc_lam_glm

OUT = Path(__file__).with_suffix(".json")


def ppipy_lambda(y: np.ndarray, yhat: np.ndarray, yu: np.ndarray) -> float:
    """λ as ppi_mean_ci computes it when lam=None (ppi_py 0.2.3)."""
    theta = ppi_mean_pointestimate(y, yhat, yu, lam=1)
    return float(_calc_lam_glm(y[:, None] - theta, yhat[:, None] - theta, yu[:, None] - theta,
                               np.eye(1), coord=None, clip=True, optim_mode="overall"))


def make_case(rng: np.random.Generator, name: str, n: int, n_lab: int, kind: str,
              shift: float) -> dict[str, object]:
    """Judge = human + a system-dependent bias + noise; human labels on n_lab random items."""
    if kind == "likert":
        ha = rng.integers(1, 6, n).astype(float)
        hb = np.clip(ha + rng.integers(-1, 2, n) - (rng.random(n) < shift), 1, 5)
        ja = np.clip(ha + rng.integers(-1, 2, n), 1, 5)
        jb = np.clip(hb + 1 * (rng.random(n) < 0.3) + rng.integers(-1, 2, n), 1, 5)
    elif kind == "binary":
        ha = (rng.random(n) < 0.6).astype(float)
        hb = (rng.random(n) < 0.6 - shift).astype(float)
        ja = np.where(rng.random(n) < 0.85, ha, 1 - ha)
        jb = np.where(rng.random(n) < 0.8, hb, 1.0)
    else:
        base = rng.normal(size=n)
        ha = base + shift + rng.normal(scale=0.5, size=n)
        hb = base + rng.normal(scale=0.5, size=n)
        ja = ha + rng.normal(scale=0.4, size=n)
        jb = hb + 0.3 + rng.normal(scale=0.4, size=n)
    lab = np.zeros(n, dtype=bool)
    lab[rng.choice(n, n_lab, replace=False)] = True
    la, lb = np.where(lab, ha, np.nan), np.where(lab, hb, np.nan)
    with warnings.catch_warnings(), contextlib.redirect_stdout(io.StringIO()):
        warnings.simplefilter("ignore")
        res = {}
        for key, tune in (("wilcoxon_lam1", False), ("wilcoxon_tuned", True)):
            r = evalstats.tests.wilcoxon(ja, jb, la, lb, print_result=False, power_tune=tune,
                                         alpha=0.05)
            res[key] = {"estimate": r.corrected_estimate, "ci_low": r.corrected_ci[0],
                        "ci_high": r.corrected_ci[1], "pvalue": r.corrected_p_value,
                        "lam": 1.0 if r.lam is None else r.lam}
    s, sh = np.sign(ha - hb)[lab], np.sign(ja - jb)[lab]
    su = np.sign(ja - jb)[~lab]
    lam = ppipy_lambda(s, sh, su)
    lo, hi = ppi_mean_ci(s, sh, su, alpha=0.05, lam=lam)
    res["sign"] = {"estimate": float(ppi_mean_pointestimate(s, sh, su, lam=lam)[0]),
                   "ci_low": float(lo[0]), "ci_high": float(hi[0]),
                   "pvalue": float(ppi_mean_pval(s, sh, su, null=0, lam=lam)[0]), "lam": lam}

    def col(x: np.ndarray) -> list[float | None]:
        return [None if np.isnan(v) else float(v) for v in x]

    return {"name": name, "kind": kind, "n": n, "n_labelled": n_lab,
            "value_a": col(ja), "value_b": col(jb), "human_a": col(la), "human_b": col(lb),
            "expected": res}


def main() -> None:
    rng = np.random.default_rng(20261207)
    cases = [make_case(rng, f"{kind}-{n}-{n_lab}-{shift}", n, n_lab, kind, shift)
             for kind, n, n_lab, shift in (
                 ("continuous", 200, 40, 0.0), ("continuous", 500, 60, 0.3),
                 ("continuous", 120, 15, 0.2), ("likert", 300, 30, 0.0),
                 ("likert", 400, 80, 0.4), ("binary", 250, 50, 0.1),
                 ("binary", 600, 100, 0.0))]
    OUT.write_text(json.dumps({
        "peers": {"evalstats": version("evalstats"), "ppi-python": version("ppi-python")},
        "level": 0.95, "cases": cases}, indent=1) + "\n")


if __name__ == "__main__":
    main()
