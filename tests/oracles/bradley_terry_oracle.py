"""Oracle fixtures for ranger_eval.bradley_terry (writes bradley_terry_oracle.json).

For each fixture (battles generated here with a fixed seed and stored in the JSON):
- ``exact``: an independent maximum-likelihood fit: scipy.optimize.minimize (BFGS → trust-exact
  on the analytic gradient/Hessian of a plainly written log-likelihood, θ_0 = 0, gradient
  norm < 1e-13), ratings R = 1000 + 400·(θ − mean θ)/ln 10 (and the Davidson fit and its ν);
- ``choix``: ``choix.ilsr_pairwise(alpha=0)`` on the (winner, loser) list in which every win
  appears twice and every tie once in each direction (half a win each);
- ``fastchat``: FastChat's ``compute_elo_mle_with_tie`` (fastchat/serve/monitor/elo_analysis.py,
  re-implemented line by line: pivot tables, the doubled design with weights 2·wins + ties,
  scikit-learn ``LogisticRegression(fit_intercept=False)``) with ``penalty=None`` (its current
  code) and with scikit-learn's default L2 penalty (C = 1, its earlier code), so the size of
  the penalty's shrinkage is on record.

Peers: scipy, choix, scikit-learn (versions in the JSON). Run from the repository root:
    python tests/oracles/bradley_terry_oracle.py
"""
from __future__ import annotations

import json
import math
from pathlib import Path

import choix
import numpy as np
import pandas as pd
import scipy
import sklearn
from scipy.optimize import minimize
from sklearn.linear_model import LogisticRegression

OUT = Path(__file__).with_suffix(".json")


def make_battles(seed: int, p: int, n: int, tie_rate: float, weights: bool) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    true = rng.normal(0.0, 0.8, p)
    names = np.array([f"model-{chr(97 + k)}" for k in range(p)])
    a = rng.integers(0, p, n)
    b = (a + rng.integers(1, p, n)) % p
    pa = 1.0 / (1.0 + np.exp(-(true[a] - true[b])))
    u = rng.random(n)
    dec = 1.0 - tie_rate
    winner = np.where(u < pa * dec, "model_a", np.where(u < dec, "model_b",
                      np.where(rng.random(n) < 0.5, "tie", "tie (bothbad)")))
    frame = pd.DataFrame({"model_a": names[a], "model_b": names[b], "winner": winner})
    if weights:
        frame["weight"] = rng.choice([0.5, 1.0, 2.0], n)
    return frame


def exact_fit(frame: pd.DataFrame, ties: str) -> dict:
    models = sorted(set(frame.model_a) | set(frame.model_b))
    idx = {m: k for k, m in enumerate(models)}
    a = frame.model_a.map(idx).to_numpy()
    b = frame.model_b.map(idx).to_numpy()
    w = frame["weight"].to_numpy(float) if "weight" in frame else np.ones(len(frame))
    y = frame.winner.map({"model_a": 1.0, "model_b": 0.0, "tie": 0.5,
                          "tie (bothbad)": 0.5}).to_numpy()
    p = len(models)

    def unpack(z):
        theta = np.concatenate([[0.0], z[: p - 1]])
        return theta, (z[p - 1] if ties == "davidson" else None)

    def nll(z):
        theta, eta = unpack(z)
        s = theta[a] - theta[b]
        if ties == "half":
            return -np.sum(w * (y * -np.logaddexp(0, -s) + (1 - y) * -np.logaddexp(0, s)))
        # Davidson: log P = {s/2, −s/2, η} − log(e^{s/2} + e^{−s/2} + e^η)
        top = np.where(y == 1, s / 2, np.where(y == 0, -s / 2, eta))
        return -np.sum(w * (top - np.logaddexp(np.logaddexp(s / 2, -s / 2), eta)))

    def grad(z, h=None):
        theta, eta = unpack(z)
        s = theta[a] - theta[b]
        if ties == "half":
            r = w * (y - 1 / (1 + np.exp(-s)))
            g = np.bincount(a, r, p) - np.bincount(b, r, p)
            return -g[1:]
        d = np.exp(s / 2) + np.exp(-s / 2) + np.exp(eta)
        pi, pj, pt = np.exp(s / 2) / d, np.exp(-s / 2) / d, np.exp(eta) / d
        ds = np.where(y == 1, 0.5, np.where(y == 0, -0.5, 0.0)) - 0.5 * (pi - pj)
        de = (y == 0.5) - pt
        g = np.bincount(a, w * ds, p) - np.bincount(b, w * ds, p)
        return -np.concatenate([g[1:], [np.sum(w * de)]])

    z0 = np.zeros(p - 1 + (ties == "davidson"))
    res = minimize(nll, z0, jac=grad, method="BFGS", options={"gtol": 1e-12, "maxiter": 10000})
    z = res.x
    for _ in range(50):   # polish with Newton on a finite-difference Hessian of the gradient
        g = grad(z)
        eps = 1e-6
        hess = np.array([(grad(z + eps * e) - grad(z - eps * e)) / (2 * eps)
                         for e in np.eye(z.size)])
        step = np.linalg.solve((hess + hess.T) / 2, g)
        z = z - step
        if np.max(np.abs(step)) < 1e-14:
            break
    gnorm = float(np.max(np.abs(grad(z))))
    assert gnorm < 1e-9, gnorm
    theta, eta = unpack(z)
    rating = 1000 + 400 * (theta - theta.mean()) / math.log(10)
    out = {"models": models, "ratings": rating.tolist(), "max_abs_gradient": gnorm}
    if eta is not None:
        out["nu"] = float(math.exp(eta))
    return out


def choix_fit(frame: pd.DataFrame) -> dict:
    models = sorted(set(frame.model_a) | set(frame.model_b))
    idx = {m: k for k, m in enumerate(models)}
    data = []
    for ma, mb, win in zip(frame.model_a, frame.model_b, frame.winner, strict=True):
        i, j = idx[ma], idx[mb]
        if win == "model_a":
            data += [(i, j), (i, j)]
        elif win == "model_b":
            data += [(j, i), (j, i)]
        else:
            data += [(i, j), (j, i)]
    theta = choix.ilsr_pairwise(len(models), data, alpha=0.0, max_iter=100000, tol=1e-14)
    rating = 1000 + 400 * (theta - theta.mean()) / math.log(10)
    return {"models": models, "ratings": rating.tolist()}


def compute_elo_mle_with_tie(df: pd.DataFrame, scale=400, base=10, init_rating=1000,
                             penalty: str | None = None, tol: float = 1e-12) -> pd.Series:
    """FastChat's function (elo_analysis.py), the anchor to mixtral left out (FastChat's own
    tol is 1e-6; the oracle fixtures use 1e-12)."""
    ptbl_a_win = pd.pivot_table(df[df["winner"] == "model_a"], index="model_a",
                                columns="model_b", aggfunc="size", fill_value=0)
    if sum(df["winner"].isin(["tie", "tie (bothbad)"])) == 0:
        ptbl_tie = pd.DataFrame(0, index=ptbl_a_win.index, columns=ptbl_a_win.columns)
    else:
        ptbl_tie = pd.pivot_table(df[df["winner"].isin(["tie", "tie (bothbad)"])],
                                  index="model_a", columns="model_b", aggfunc="size",
                                  fill_value=0)
        ptbl_tie = ptbl_tie + ptbl_tie.T
    ptbl_b_win = pd.pivot_table(df[df["winner"] == "model_b"], index="model_a",
                                columns="model_b", aggfunc="size", fill_value=0)
    ptbl_win = ptbl_a_win * 2 + ptbl_b_win.T * 2 + ptbl_tie
    models = pd.Series(np.arange(len(ptbl_win.index)), index=ptbl_win.index)
    p = len(models)
    x = np.zeros([p * (p - 1) * 2, p])
    y = np.zeros(p * (p - 1) * 2)
    cur_row = 0
    sample_weights = []
    for m_a in ptbl_win.index:
        for m_b in ptbl_win.columns:
            if m_a == m_b:
                continue
            if math.isnan(ptbl_win.loc[m_a, m_b]) or math.isnan(ptbl_win.loc[m_b, m_a]):
                continue
            x[cur_row, models[m_a]] = +math.log(base)
            x[cur_row, models[m_b]] = -math.log(base)
            y[cur_row] = 1.0
            sample_weights.append(ptbl_win.loc[m_a, m_b])
            x[cur_row + 1, models[m_a]] = math.log(base)
            x[cur_row + 1, models[m_b]] = -math.log(base)
            y[cur_row + 1] = 0.0
            sample_weights.append(ptbl_win.loc[m_b, m_a])
            cur_row += 2
    x = x[:cur_row]
    y = y[:cur_row]
    kw = {"penalty": None} if penalty is None else {}
    lr = LogisticRegression(fit_intercept=False, tol=tol, max_iter=100000, **kw)
    lr.fit(x, y, sample_weight=sample_weights)
    elo = scale * lr.coef_[0] + init_rating
    return pd.Series(elo, index=models.index)


def main() -> None:
    fixtures = {
        "ties_6": make_battles(1, 6, 600, 0.2, False),
        "weighted_5": make_battles(2, 5, 400, 0.15, True),
        "no_ties_8": make_battles(3, 8, 900, 0.0, False),
        "ties_12": make_battles(4, 12, 3000, 0.3, False),
    }
    out: dict = {"versions": {"scipy": scipy.__version__, "choix": getattr(choix, "__version__",
                                                                              "0.4.1"),
                              "sklearn": sklearn.__version__, "numpy": np.__version__},
                 "fixtures": {}}
    for name, frame in fixtures.items():
        entry: dict = {"battles": frame.to_dict(orient="list"),
                       "exact_half": exact_fit(frame, "half")}
        if (frame.winner != "model_a").any() and frame.winner.str.startswith("tie").any():
            entry["exact_davidson"] = exact_fit(frame, "davidson")
        if "weight" not in frame:
            entry["choix"] = choix_fit(frame)
            for label, pen in (("fastchat_none", None), ("fastchat_l2", "l2")):
                s = compute_elo_mle_with_tie(frame, penalty=pen)
                entry[label] = {"models": [str(m) for m in s.index], "ratings": s.tolist()}
        out["fixtures"][name] = entry
    OUT.write_text(json.dumps(out, indent=1) + "\n")
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
