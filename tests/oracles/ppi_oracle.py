"""Generate ppi_oracle.json: prediction-powered means and paired differences computed by
``ppi_py`` (PyPI ``ppi-python``; no ranger_eval).

Oracle for tests/verdicts/test_ppi.py. Every case stores its data (one dataset, one metric,
systems with per-item judge scores ``value`` and human scores ``human_value``, ``null`` where
there is none) and, for each method and level:

* ``ppi++``: ``ppi_py.ppi_mean_pointestimate(Y, Yhat, Yhat_unlabeled)`` and
  ``ppi_py.ppi_mean_ci(Y, Yhat, Yhat_unlabeled, alpha=1 - level)`` (λ estimated and clipped to
  [0, 1] inside ppi_py); ``lam`` is the weight those functions use,
  ``ppi_py.ppi._calc_lam_glm(Y - θ, Yhat - θ, Yhat_unlabeled - θ, eye(1), clip=True)`` at the
  λ = 1 estimate θ, exactly as ``ppi_mean_ci`` computes it;
* ``ppi``: the same with ``lam=1``;
* ``classical``: ``ppi_py.classical_mean_ci(Y, alpha=1 - level)`` and ``Y.mean()``;
* ``pvalue``: ``ppi_py.ppi_mean_pval(Y, Yhat, Yhat_unlabeled, null=0, lam=λ)`` with the λ above
  (1 for ``ppi``, 0 for ``classical``);
* ``ppi++`` only, one-sided (``compare(alternative=...)``): ``pvalue_larger`` / ``pvalue_smaller``
  from ``ppi_mean_pval(..., alternative="larger"/"smaller", lam=λ)`` and ``ci_larger_low`` /
  ``ci_smaller_high``, the finite bounds of ``ppi_mean_ci(..., alternative=..., lam=λ)`` (λ passed
  explicitly: ppi_py 0.2.3's ``lam=None`` path does not pass ``alternative`` on);
* ``ppi++`` only, against a margin m = ``MARGIN`` (``compare(hypothesis=..., margin=m)``):
  ``pvalue_noninf`` = ``ppi_mean_pval(null=-m, alternative="larger", lam=λ)`` (H0 θ ≤ −m) and
  ``pvalue_equiv`` = the larger of that and ``ppi_mean_pval(null=m, alternative="smaller",
  lam=λ)`` (two one-sided tests).

Y are the human scores of the labelled items, Yhat the judge's scores of the same items,
Yhat_unlabeled the judge's scores of the other items. For a **difference** case
(``treatment``/``control`` set) Y = human(t) − human(c) and Yhat = judge(t) − judge(c) on the
items where both systems have a human score, Yhat_unlabeled = judge(t) − judge(c) elsewhere: the
PPI estimator of a mean applied to the per-item paired differences (why that is the right
estimator: src/ranger_eval/verdicts/ppi.py).

Floats are written with ``repr`` (they read back exactly). The tests compare at rtol 1e-10.

Usage: python tests/oracles/ppi_oracle.py   (needs ppi-python)
"""
from __future__ import annotations

import json
from importlib.metadata import version
from pathlib import Path

import numpy as np
from ppi_py import classical_mean_ci, ppi_mean_ci, ppi_mean_pointestimate, ppi_mean_pval
from ppi_py.ppi import _calc_lam_glm

HERE = Path(__file__).resolve().parent
LEVELS = (0.95, 0.9)
MARGIN = 0.1


def ppipy_lambda(y: np.ndarray, yhat: np.ndarray, yu: np.ndarray) -> float:
    """λ as ppi_mean_ci computes it when lam=None (ppi_py 0.2.3, ppi.py)."""
    theta = ppi_mean_pointestimate(y, yhat, yu, lam=1)
    lam = _calc_lam_glm(y[:, None] - theta, yhat[:, None] - theta, yu[:, None] - theta,
                        np.eye(1), coord=None, clip=True, optim_mode="overall")
    return float(lam)


def expected(y: np.ndarray, yhat: np.ndarray, yu: np.ndarray) -> dict[str, dict[str, object]]:
    out: dict[str, dict[str, object]] = {}
    for level in LEVELS:
        alpha = 1 - level
        lam = ppipy_lambda(y, yhat, yu)
        lo, hi = ppi_mean_ci(y, yhat, yu, alpha=alpha)
        out[f"ppi++@{level}"] = {
            "estimate": float(np.ravel(ppi_mean_pointestimate(y, yhat, yu))[0]),
            "ci_low": float(np.ravel(lo)[0]), "ci_high": float(np.ravel(hi)[0]), "lam": lam,
            "pvalue": float(np.ravel(ppi_mean_pval(y, yhat, yu, null=0, lam=lam))[0]),
            "pvalue_larger": float(np.ravel(ppi_mean_pval(y, yhat, yu, null=0, lam=lam,
                                                          alternative="larger"))[0]),
            "pvalue_smaller": float(np.ravel(ppi_mean_pval(y, yhat, yu, null=0, lam=lam,
                                                           alternative="smaller"))[0]),
            "ci_larger_low": float(np.ravel(ppi_mean_ci(y, yhat, yu, alpha=alpha, lam=lam,
                                                        alternative="larger")[0])[0]),
            "ci_smaller_high": float(np.ravel(ppi_mean_ci(y, yhat, yu, alpha=alpha, lam=lam,
                                                          alternative="smaller")[1])[0]),
        }
        above = float(np.ravel(ppi_mean_pval(y, yhat, yu, null=-MARGIN, lam=lam,
                                             alternative="larger"))[0])
        below = float(np.ravel(ppi_mean_pval(y, yhat, yu, null=MARGIN, lam=lam,
                                             alternative="smaller"))[0])
        out[f"ppi++@{level}"].update(pvalue_noninf=above, pvalue_equiv=max(above, below))
        lo, hi = ppi_mean_ci(y, yhat, yu, alpha=alpha, lam=1)
        out[f"ppi@{level}"] = {
            "estimate": float(np.ravel(ppi_mean_pointestimate(y, yhat, yu, lam=1))[0]),
            "ci_low": float(np.ravel(lo)[0]), "ci_high": float(np.ravel(hi)[0]), "lam": 1.0,
            "pvalue": float(np.ravel(ppi_mean_pval(y, yhat, yu, null=0, lam=1))[0]),
        }
        lo, hi = classical_mean_ci(y, alpha=alpha)
        out[f"classical@{level}"] = {
            "estimate": float(y.mean()), "ci_low": float(np.ravel(lo)[0]),
            "ci_high": float(np.ravel(hi)[0]), "lam": 0.0,
            "pvalue": float(np.ravel(ppi_mean_pval(y, yhat, yu, null=0, lam=0))[0]),
        }
    return out


def split(value: np.ndarray, human: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    lab = ~np.isnan(human)
    return human[lab], value[lab], value[~lab]


def as_list(x: np.ndarray) -> list[float | None]:
    return [None if np.isnan(v) else float(v) for v in x]


def system(rng: np.random.Generator, n: int, frac: float, *, shift: float, slope: float,
           noise: float, binary: bool = False, truth: np.ndarray | None = None,
           labelled: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """(judge values, human values with NaN where unlabelled)."""
    if truth is None:
        truth = (rng.random(n) < 0.6).astype(float) if binary else rng.normal(shift, 1.0, n)
    if binary:
        flip = rng.random(n) < noise
        judge = np.where(flip, 1.0 - truth, truth)
    else:
        judge = slope * truth + rng.normal(0.2, noise, n)
    if labelled is None:
        labelled = rng.random(n) < frac
    return judge, np.where(labelled, truth, np.nan)


def main() -> None:
    rng = np.random.default_rng(20261126)
    cases = []

    def add_mean(name: str, judge: np.ndarray, human: np.ndarray) -> None:
        y, yhat, yu = split(judge, human)
        cases.append({"name": name, "items": [f"i{j:04d}" for j in range(judge.size)],
                      "systems": {"A": {"value": as_list(judge), "human_value": as_list(human)}},
                      "system": "A", "expected": expected(y, yhat, yu)})

    add_mean("continuous, good judge", *system(rng, 400, 0.1, shift=0.5, slope=1.0, noise=0.3))
    add_mean("binary accuracy, judge wrong 15%",
             *system(rng, 300, 0.15, shift=0, slope=1, noise=0.15, binary=True))
    add_mean("judge shrinks the scores (lambda clipped to 1)",
             *system(rng, 200, 0.3, shift=0.0, slope=0.2, noise=0.05))
    add_mean("judge anti-correlated (lambda clipped to 0)",
             *system(rng, 200, 0.3, shift=0.0, slope=-0.8, noise=0.3))
    add_mean("useless judge (noise only)", *system(rng, 150, 0.2, shift=1.0, slope=0.0, noise=1.0))
    add_mean("mostly labelled (n > N)", *system(rng, 60, 0.85, shift=2.0, slope=1.1, noise=0.4))
    tiny_judge = np.array([0.3, 0.9, 0.1, 0.5])
    add_mean("tiny: n = 2, N = 2", tiny_judge, np.array([0.0, 1.0, np.nan, np.nan]))
    add_mean("large values (1e6 offset)",
             *system(rng, 100, 0.4, shift=1e6, slope=1.0, noise=0.5))

    def add_diff(name: str, n: int, frac: float, partial: float, binary: bool) -> None:
        both = rng.random(n) < frac
        extra_t = (~both) & (rng.random(n) < partial)
        extra_c = (~both) & (~extra_t) & (rng.random(n) < partial)
        jt, ht = system(rng, n, 0, shift=0.3, slope=1.0, noise=0.2, binary=binary,
                        labelled=both | extra_t)
        base = rng.normal(0.0, 1.0, n) if not binary else (rng.random(n) < 0.5).astype(float)
        jc, hc = system(rng, n, 0, shift=0.0, slope=1.0, noise=0.2, binary=binary,
                        truth=base, labelled=both | extra_c)
        lab = both
        h = (np.where(lab, ht, np.nan) - np.where(lab, hc, np.nan))
        d = jt - jc
        cases.append({
            "name": name, "items": [f"q{j}" for j in range(n)],
            "systems": {"T": {"value": as_list(jt), "human_value": as_list(ht)},
                        "C": {"value": as_list(jc), "human_value": as_list(hc)}},
            "treatment": "T", "control": "C", "n_partial": int((extra_t | extra_c).sum()),
            "expected": expected(h[lab], d[lab], d[~lab]),
        })

    add_diff("difference, continuous, same items labelled", 300, 0.15, 0.0, False)
    add_diff("difference, binary, some items labelled for one system only", 250, 0.2, 0.3, True)

    out = {"generator": "tests/oracles/ppi_oracle.py", "ppi_python": version("ppi-python"),
           "numpy": version("numpy"), "levels": list(LEVELS), "margin": MARGIN, "cases": cases}
    path = HERE / "ppi_oracle.json"
    path.write_text(json.dumps(out, indent=1) + "\n")
    print(f"wrote {path} ({len(cases)} cases)")


if __name__ == "__main__":
    main()
