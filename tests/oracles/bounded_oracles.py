"""Generate bounded_oracles.json: the data of the range-respecting interval cases of
``ranger_eval.describe`` (tests/stats/test_bounded.py) and, for the 0/1 cases without clusters,
statsmodels' Wilson interval ``proportion_confint(x, n, alpha, method="wilson")``. No
ranger_eval import. bounded_oracles.R adds R survey's Korn–Graubard interval
(``svyciprop(method="beta")`` on ``svydesign(ids = ~cluster)``) for the clustered and the
bounded continuous cases (bounded_oracles_R.json).

Cases (``kind``): ``wilson`` — 0/1 scores without clusters (n = 5 … 100, p̂ from 0 to 1);
``kg`` — 0/1 scores in balanced and unbalanced clusters, p̂ near 0 and near 1, all 0, all 1,
a small set (6 items in 3 clusters); continuous scores in [0, 1] with and without clusters, and
continuous scores declared in [0, 10] (``lo``, ``hi``: survey runs on (y − lo)/(hi − lo) and
the interval is mapped back). Floats are written with ``repr``.

Usage: python tests/oracles/bounded_oracles.py   (needs statsmodels), then
       Rscript tests/oracles/bounded_oracles.R
"""
from __future__ import annotations

import json
from importlib.metadata import version
from pathlib import Path

import numpy as np
from statsmodels.stats.proportion import proportion_confint

HERE = Path(__file__).resolve().parent
LEVELS = (0.95, 0.9)


def _cases() -> list[dict[str, object]]:
    rng = np.random.default_rng(20270127)
    out: list[dict[str, object]] = []

    def add(name: str, kind: str, values: np.ndarray, clusters: np.ndarray | None,
            lo: float = 0.0, hi: float = 1.0) -> None:
        case: dict[str, object] = {
            "name": name, "kind": kind, "lo": lo, "hi": hi,
            "values": [float(v) for v in values],
            "clusters": None if clusters is None else [f"c{int(c)}" for c in clusters]}
        if kind == "wilson":
            x, n = int(values.sum()), int(values.size)
            case["wilson"] = {str(lv): [float(b) for b in proportion_confint(
                x, n, alpha=1 - lv, method="wilson")] for lv in LEVELS}
        out.append(case)

    for n, p in ((5, 1.0), (5, 0.0), (8, 0.875), (15, 0.1), (15, 0.5), (30, 0.97),
                 (60, 0.3), (100, 0.02)):
        add(f"wilson-n{n}-p{p}", "wilson", (rng.random(n) < p).astype(float), None)
    add("wilson-n15-one-success", "wilson", np.r_[1.0, np.zeros(14)], None)
    bal = np.repeat(np.arange(20), 5)
    q = 1 / (1 + np.exp(-(0.8 + rng.normal(0, 1.2, 20))))
    add("kg-balanced", "kg", (rng.random(bal.size) < q[bal]).astype(float), bal)
    sizes = rng.integers(1, 9, size=25)
    unb = np.repeat(np.arange(25), sizes)
    q = 1 / (1 + np.exp(-rng.normal(0, 1.5, 25)))
    add("kg-unbalanced", "kg", (rng.random(unb.size) < q[unb]).astype(float), unb)
    cl = np.repeat(np.arange(15), 4)
    near0 = np.zeros(cl.size)
    near0[[3, 17, 18]] = 1.0
    add("kg-near-0", "kg", near0, cl)
    add("kg-near-1", "kg", 1.0 - near0, cl)
    add("kg-all-0", "kg", np.zeros(cl.size), cl)
    add("kg-all-1", "kg", np.ones(cl.size), cl)
    add("kg-small", "kg", np.array([1.0, 1.0, 0.0, 1.0, 1.0, 1.0]), np.array([0, 0, 1, 1, 2, 2]))
    cl = np.repeat(np.arange(12), 3)
    add("kg-continuous-clustered", "kg", rng.beta(5, 1.2, cl.size), cl)
    add("kg-continuous-iid", "kg", rng.beta(0.6, 3, 20), None)
    add("kg-continuous-0-10", "kg", 10 * rng.beta(4, 1.5, cl.size), cl, 0.0, 10.0)
    return out


def main() -> None:
    payload = {"generator": "tests/oracles/bounded_oracles.py",
               "versions": {"statsmodels": version("statsmodels"), "numpy": np.__version__},
               "levels": list(LEVELS), "cases": _cases()}
    (HERE / "bounded_oracles.json").write_text(json.dumps(payload, indent=1) + "\n")


if __name__ == "__main__":
    main()
