"""Generate crossdataset_oracle.json: Søgaard's (2013) cross-dataset estimators, independently.

Oracle for tests/aggregate/test_crossdataset.py. Nothing here imports ranger_eval. The paper gives
no worked numbers, so the expected values come from plain Python, scipy and statsmodels:

* ``error_reduction``: per-item scores are stored as rows; per dataset the two systems' values are
  paired in plain dicts by item id (ids sorted as Python strings), and each bootstrap reduction is
  ``(e_c − e_t)/e_c`` with the errors summed by ``math.fsum`` in a Python loop; the variance is
  ``statistics.variance`` (ddof = 1). Only the random numbers are shared with the implementation:
  the documented protocol ``numpy.random.default_rng([seed, 0, zlib.crc32(name)])`` and one
  ``integers(0, n, size=(n_resamples, n))`` matrix.
* ``cross_dataset_estimates``: macro by ``statistics.fmean``, micro by ``math.fsum``; fixed effect
  and DerSimonian–Laird random effects (estimate, CI, τ²) by
  ``statsmodels.stats.meta_analysis.combine_effects`` (whose moment estimate of τ² is not truncated:
  a negative τ² is set to 0 here, i.e. the fixed-effect result, as metafor does); the Gumbel
  estimate from ``scipy.stats.gumbel_r.fit`` on the weighted effects ``y/v``:
  ``(α + γβ)/mean(1/v)``, se ``πβ/(√6·mean(1/v))``; Anderson–Darling statistics and 5% critical
  values from ``scipy.stats.anderson`` (its ``critical_values[2]``; deprecated in scipy 1.17,
  removed in 1.19 — the fixture keeps the numbers).
* ``predictive_check`` (on given effects): the documented draw protocol
  ``numpy.random.default_rng([seed, 1])``, one ``permuted(tile(arange(D), (repeats, 1)), axis=1)``
  per k; then per draw in Python loops: macro, micro, fixed effect, DerSimonian–Laird by
  ``combine_effects`` and the Gumbel estimate by ``gumbel_r.fit``; the observed mean of the held-out
  effects by ``statistics.fmean``; per k and estimator the mean and ``statistics.stdev`` of the
  absolute errors and ``scipy.stats.wilcoxon(abs_errors, abs_errors_of_macro)``.

Floats are written with ``repr`` (JSON), so they read back exactly. The test compares at rtol 1e-9
(the Gumbel scale at 1e-8: scipy solves its ML equation to an absolute 1e-14).

Usage: python tests/oracles/crossdataset_oracle.py
"""
from __future__ import annotations

import json
import math
import statistics
import warnings
import zlib
from importlib.metadata import version
from pathlib import Path

import numpy as np
from scipy import stats
from statsmodels.stats.meta_analysis import combine_effects

HERE = Path(__file__).resolve().parent
GAMMA = 0.57721566490153286  # Euler–Mascheroni


# ----------------------------------------------------------------------------- error reduction
def er_rows(rng: np.random.Generator) -> list[dict]:
    """Four datasets: 0/1 correctness (shuffled string ids) and per-resample accuracies."""
    rows: list[dict] = []
    spec = [("sst-like", 60, "binary"), ("tiny", 16, "binary"), ("q/a: mixed", 140, "binary"),
            ("ucr-resamples", 30, "accuracy")]
    for name, n, kind in spec:
        ids = [f"ex{i}" for i in range(n)] if kind == "binary" else [str(i) for i in range(n)]
        order = rng.permutation(n)
        for system, p in (("base", 0.65), ("new", 0.75)):
            for j in order:
                if kind == "binary":
                    value = float(rng.random() < p)
                else:
                    value = float(np.clip(rng.normal(p + 0.1, 0.05), 0.0, 0.999))
                rows.append({"dataset": name, "system": system, "item": ids[j], "value": value})
    return rows


def er_oracle(rows: list[dict], treatment: str, control: str, n_resamples: int,
              seed: int) -> dict[str, list]:
    datasets: list[str] = []
    values: dict[str, dict[str, dict[str, float]]] = {}
    for r in rows:
        if r["dataset"] not in values:
            datasets.append(r["dataset"])
            values[r["dataset"]] = {}
        values[r["dataset"]].setdefault(r["system"], {})[r["item"]] = r["value"]
    out: dict[str, list] = {"names": [], "yi": [], "vi": [], "n": [], "e_control": [],
                            "e_treatment": []}
    for name in datasets:
        t_map, c_map = values[name][treatment], values[name][control]
        items = sorted(t_map)
        assert items == sorted(c_map)
        t = [t_map[i] for i in items]
        c = [c_map[i] for i in items]
        n = len(items)
        e_c = math.fsum(1.0 - x for x in c) / n
        e_t = math.fsum(1.0 - x for x in t) / n
        rng = np.random.default_rng([seed, 0, zlib.crc32(name.encode("utf-8"))])
        idx = rng.integers(0, n, size=(n_resamples, n))
        boot = []
        for row in idx.tolist():
            bc = math.fsum(1.0 - c[i] for i in row) / n
            bt = math.fsum(1.0 - t[i] for i in row) / n
            boot.append((bc - bt) / bc)
        out["names"].append(name)
        out["yi"].append((e_c - e_t) / e_c)
        out["vi"].append(statistics.variance(boot))
        out["n"].append(n)
        out["e_control"].append(e_c)
        out["e_treatment"].append(e_t)
    return out


# ----------------------------------------------------------------------------- estimators
def anderson(x: list[float], dist: str) -> list[float] | None:
    if len(x) < 3:
        return None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = stats.anderson(np.asarray(x), dist=dist)
    return [float(res.statistic), float(res.critical_values[2])]


def gumbel_estimate(y: list[float], w: list[float]) -> tuple[float, float, float, float]:
    x = np.array([wi * yi for wi, yi in zip(w, y, strict=True)])
    loc, scale = stats.gumbel_r.fit(x)
    wbar = statistics.fmean(w)
    return (loc + GAMMA * scale) / wbar, math.pi / math.sqrt(6.0) * scale / wbar, loc, scale


def estimates_oracle(y: list[float], v: list[float], n: list[float], level: float) -> dict:
    z = float(stats.norm.ppf(0.5 + level / 2))
    k = len(y)
    macro = statistics.fmean(y)
    se_macro = math.sqrt(math.fsum(v)) / k
    micro = math.fsum(a * b for a, b in zip(n, y, strict=True)) / math.fsum(n)
    se_micro = math.sqrt(math.fsum(a * a * b for a, b in zip(n, v, strict=True))) / math.fsum(n)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = combine_effects(np.array(y), np.array(v), method_re="dl")
        frame = res.summary_frame(alpha=1 - level, use_t=False)
    fe, re_ = frame.loc["fixed effect"], frame.loc["random effect"]
    tau2 = float(res.tau2)
    if tau2 < 0.0:  # statsmodels does not truncate the DL moment estimate; metafor does (τ² = 0)
        tau2, re_ = 0.0, fe
    w = [1.0 / vi for vi in v]
    g, g_se, loc, scale = gumbel_estimate(y, w)
    inputs = {
        "y": list(y),
        "n·y": [a * b for a, b in zip(n, y, strict=True)],
        "y/v": [b / a for a, b in zip(v, y, strict=True)],
        "y/(v+τ²)": [b / (a + tau2) for a, b in zip(v, y, strict=True)],
    }
    return {
        "estimate": {"macro": macro, "micro": micro, "fixed": float(fe["eff"]),
                     "random": float(re_["eff"]), "gumbel": g},
        "ci_low": {"macro": macro - z * se_macro, "micro": micro - z * se_micro,
                   "fixed": float(fe["ci_low"]), "random": float(re_["ci_low"]),
                   "gumbel": g - z * g_se},
        "ci_high": {"macro": macro + z * se_macro, "micro": micro + z * se_micro,
                    "fixed": float(fe["ci_upp"]), "random": float(re_["ci_upp"]),
                    "gumbel": g + z * g_se},
        "tau2": tau2,
        "gumbel_loc": float(loc),
        "gumbel_scale": float(scale),
        "anderson": {key: {"norm": anderson(vals, "norm"), "gumbel_r": anderson(vals, "gumbel_r")}
                     for key, vals in inputs.items()},
    }


def estimate_case(rng: np.random.Generator, k: int, skew: bool) -> dict:
    if skew:
        y = [float(x) for x in rng.gumbel(0.1, 0.15, k)]
    else:
        y = [float(x) for x in rng.normal(-0.05, 0.1, k)]
    v = [float(x) for x in rng.uniform(0.0005, 0.02, k)]
    n = [int(x) for x in rng.integers(50, 5000, k)]
    return {"yi": y, "vi": v, "n": n, "level": 0.95,
            "expected": estimates_oracle(y, v, [float(x) for x in n], 0.95)}


# ----------------------------------------------------------------------------- predictive check
def predictive_oracle(y: list[float], v: list[float], n: list[float], ks: list[int], n_test: int,
                      repeats: int, seed: int) -> dict:
    d = len(y)
    rng = np.random.default_rng([seed, 1])
    base = np.tile(np.arange(d), (repeats, 1))
    out: dict = {"draws": {}, "rows": []}
    for k in ks:
        perm = rng.permuted(base, axis=1)[:, : k + n_test]
        out["draws"][str(k)] = perm.tolist()
        abs_err: dict[str, list[float]] = {e: [] for e in ("macro", "micro", "fixed", "random",
                                                              "gumbel")}
        err: dict[str, list[float]] = {e: [] for e in abs_err}
        for row in perm.tolist():
            train, test = row[:k], row[k:]
            ty = [y[i] for i in train]
            tv = [v[i] for i in train]
            tn = [n[i] for i in train]
            observed = statistics.fmean(y[i] for i in test)
            w = [1.0 / x for x in tv]
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                res = combine_effects(np.array(ty), np.array(tv), method_re="dl")
            random = float(res.mean_effect_re) if res.tau2 > 0 else float(res.mean_effect_fe)
            est = {
                "macro": statistics.fmean(ty),
                "micro": math.fsum(a * b for a, b in zip(tn, ty, strict=True)) / math.fsum(tn),
                "fixed": math.fsum(a * b for a, b in zip(w, ty, strict=True)) / math.fsum(w),
                "random": random,  # DL with τ² truncated at 0, as metafor
                "gumbel": gumbel_estimate(ty, w)[0],
            }
            for e, value in est.items():
                err[e].append(value - observed)
                abs_err[e].append(abs(value - observed))
        for e in abs_err:
            row_out = {"k": k, "estimator": e, "mae": statistics.fmean(abs_err[e]),
                       "sd": statistics.stdev(abs_err[e]), "mean_error": statistics.fmean(err[e]),
                       "abs_errors": abs_err[e]}
            if e != "macro":
                res_w = stats.wilcoxon(abs_err[e], abs_err["macro"])
                row_out["wilcoxon_statistic"] = float(res_w.statistic)
                row_out["pvalue"] = float(res_w.pvalue)
                row_out["wins"] = statistics.fmean(
                    float(a < b) for a, b in zip(abs_err[e], abs_err["macro"], strict=True))
            out["rows"].append(row_out)
    return out


def main() -> None:
    rng = np.random.default_rng(20130613)
    rows = er_rows(rng)
    er_cases = [
        {"n_resamples": 50, "seed": 0},
        {"n_resamples": 200, "seed": 7},
    ]
    for case in er_cases:
        case["expected"] = er_oracle(rows, "new", "base", case["n_resamples"], case["seed"])

    est_cases = [estimate_case(rng, 3, False), estimate_case(rng, 8, True),
                 estimate_case(rng, 25, False)]

    d = 30
    y = [float(x) for x in rng.gumbel(0.08, 0.12, d)]
    v = [float(x) for x in rng.uniform(0.0005, 0.03, d)]
    n = [int(x) for x in rng.integers(100, 3000, d)]
    pc = {"yi": y, "vi": v, "n": n, "k": [3, 8, 15], "n_test": 4, "repeats": 12, "seed": 5}
    pc["expected"] = predictive_oracle(y, v, [float(x) for x in n], pc["k"], pc["n_test"],
                                       pc["repeats"], pc["seed"])

    fixture = {
        "generator": "tests/oracles/crossdataset_oracle.py",
        "versions": {"numpy": version("numpy"), "scipy": version("scipy"),
                     "statsmodels": version("statsmodels")},
        "error_reduction": {"rows": rows, "treatment": "new", "control": "base",
                            "cases": er_cases},
        "estimates": est_cases,
        "predictive": pc,
    }
    path = HERE / "crossdataset_oracle.json"
    path.write_text(json.dumps(fixture, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
