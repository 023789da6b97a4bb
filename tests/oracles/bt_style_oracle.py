"""Oracle fixtures for style-controlled Bradley–Terry, ``ranger_eval.bradley_terry(covariates=)``
(writes bt_style_oracle.json).

For each fixture (battles generated here with a fixed seed and stored in the JSON) the design is
built here, independently of ranger_eval, as LMArena's style control builds it:
- covariate pairs ``NAME_a``/``NAME_b`` become FastChat's relative difference (a − b)/(a + b + 1)
  (``preprocess_for_style``, ``apply_ratio`` and ``add_one``), difference columns are taken as
  given; every column is then standardised by its mean and population sd (``np.std``);
- model columns: +1 for model_a, −1 for model_b, the first model by name dropped (θ = 0);
- outcome y = 1 (model_a won), 0 (model_b won), ½ (tie: half a win each), weight w.
and fitted by statsmodels ``GLM(y, X, family=Binomial(), freq_weights=w)`` (fractional y: the
same score equations Σ w (y − σ(xβ)) x = 0) with ``tol=1e-14``; ratings
1000 + 400·(θ − mean θ)/ln 10, coefficients β, model-based ``bse`` and (fixtures with unit
weights) the sandwich ``cov_type="HC0"``; for the unweighted fixtures, ``Logit`` (statsmodels
discrete) too, which must agree with the GLM.

Peers: statsmodels, numpy (versions in the JSON). Run from the repository root:
    python tests/oracles/bt_style_oracle.py
"""
from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pandas as pd
import statsmodels
import statsmodels.api as sm

OUT = Path(__file__).with_suffix(".json")


def make_battles(seed: int, p: int, n: int, tie_rate: float, weights: bool,
                 discrete: bool) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    true = rng.normal(0.0, 0.6, p)
    names = np.array([f"model-{chr(97 + k)}" for k in range(p)])
    a = rng.integers(0, p, n)
    b = (a + rng.integers(1, p, n)) % p
    if discrete:
        len_a, len_b = rng.integers(0, 4, n) * 100, rng.integers(0, 4, n) * 100
    else:
        len_a, len_b = rng.integers(5, 900, n), rng.integers(5, 900, n)
    bold_a, bold_b = rng.poisson(1.5, n), rng.poisson(1.5, n)
    hdr = rng.integers(-3, 4, n).astype(float)
    z = 0.8 * (len_a - len_b) / (len_a + len_b + 1) + 0.1 * (bold_a - bold_b) + 0.05 * hdr
    pa = 1 / (1 + np.exp(-(true[a] - true[b] + z)))
    u = rng.random(n)
    tie = rng.random(n) < tie_rate
    winner = np.where(tie, "tie", np.where(u < pa, "model_a", "model_b"))
    frame = pd.DataFrame({"model_a": names[a], "model_b": names[b], "winner": winner,
                          "length_a": len_a, "length_b": len_b, "bold_a": bold_a,
                          "bold_b": bold_b, "headers": hdr})
    if weights:
        frame["weight"] = rng.choice([0.5, 1.0, 2.0], n)
    return frame


def design(frame: pd.DataFrame, covariates: list[str]) -> tuple[np.ndarray, ...]:
    models = sorted(set(frame["model_a"]) | set(frame["model_b"]))
    index = {m: k for k, m in enumerate(models)}
    n, p = len(frame), len(models)
    x = np.zeros((n, p))
    x[np.arange(n), frame["model_a"].map(index).to_numpy()] = 1.0
    x[np.arange(n), frame["model_b"].map(index).to_numpy()] = -1.0
    cols = []
    for name in covariates:
        if name in frame.columns:
            d = frame[name].to_numpy(float)
        else:
            a, b = frame[f"{name}_a"].to_numpy(float), frame[f"{name}_b"].to_numpy(float)
            d = (a - b) / (a + b + 1.0)
        cols.append((d - d.mean()) / d.std())
    y = np.where(frame["winner"] == "model_a", 1.0,
                 np.where(frame["winner"] == "model_b", 0.0, 0.5))
    w = frame["weight"].to_numpy(float) if "weight" in frame else np.ones(n)
    return np.column_stack([x[:, 1:], *cols]), y, w, np.array(models, dtype=object), p


def fit(frame: pd.DataFrame, covariates: list[str]) -> dict:
    X, y, w, models, p = design(frame, covariates)
    glm = sm.GLM(y, X, family=sm.families.Binomial(), freq_weights=w)
    res = glm.fit(tol=1e-14, maxiter=200)
    theta = np.concatenate([[0.0], res.params[:p - 1]])
    factor = 400 / math.log(10)
    ratings = 1000 + factor * (theta - theta.mean())
    out = {"models": list(models), "ratings": ratings.tolist(),
           "coefficients": res.params[p - 1:].tolist(),
           "se_model": res.bse[p - 1:].tolist(), "unweighted": bool(np.all(w == 1))}
    # model-based covariance of the ratings (sum-to-mean contrast)
    cov = np.zeros((p, p))
    cov[1:, 1:] = res.cov_params()[:p - 1, :p - 1]
    c = np.eye(p) - 1.0 / p
    out["rating_se_model"] = (factor * np.sqrt(np.diag(c @ cov @ c.T))).tolist()
    if out["unweighted"]:
        hc0 = glm.fit(tol=1e-14, maxiter=200, cov_type="HC0")
        out["se"] = hc0.bse[p - 1:].tolist()
        cov[1:, 1:] = hc0.cov_params()[:p - 1, :p - 1]
        out["rating_se"] = (factor * np.sqrt(np.diag(c @ cov @ c.T))).tolist()
        logit = sm.Logit(y, X).fit(method="newton", tol=1e-14, maxiter=200, disp=0)
        out["logit_max_abs_diff"] = float(np.max(np.abs(logit.params - res.params)))
    return out


def main() -> None:
    fixtures = []
    specs = [
        ("continuous", 11, 6, 1500, 0.15, False, False, ["length", "bold", "headers"]),
        ("weighted", 12, 5, 1200, 0.2, True, False, ["length", "headers"]),
        ("discrete", 13, 4, 2000, 0.1, False, True, ["length"]),
        ("no-ties", 14, 7, 2500, 0.0, False, False, ["length", "bold"]),
    ]
    for name, seed, p, n, tie_rate, weights, discrete, covariates in specs:
        frame = make_battles(seed, p, n, tie_rate, weights, discrete)
        result = fit(frame, covariates)
        fixtures.append({"name": name, "covariates": covariates,
                         "battles": frame.to_dict(orient="list"), **result})
    OUT.write_text(json.dumps({"peers": {"statsmodels": statsmodels.__version__,
                                         "numpy": np.__version__},
                               "fixtures": fixtures}, indent=None) + "\n")


if __name__ == "__main__":
    main()
