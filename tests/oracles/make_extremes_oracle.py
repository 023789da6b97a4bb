"""High-precision oracle for the significance tests at numeric extremes.

Writes ``extremes_oracle.json``: for a few fixed paired datasets (x, y), each multiplied in float64
by c in {1e-300, 1e-150, 1, 1e150, 1e300} and scaled to the float64 limit (largest |value|
about 1.5e308, where the squares of the differences overflow), the exact float64 inputs (as
``float.hex``) and, computed from them with mpmath at 60 significant digits:

* paired t test: mean(d), t = mean(d)/(sd(d)/sqrt(n)), df = n - 1, two-sided p =
  I_{df/(df + t²)}(df/2, 1/2) (regularised incomplete beta), the 95 % interval
  mean ± q·sd/sqrt(n) with q the 0.975 quantile of Student's t (root of the same beta function);
* Welch's t test: mean(x) - mean(y), t, Welch–Satterthwaite df, p, the 95 % interval;
* Cohen's d_z = mean(d)/sd(d) and Cohen's d (pooled SD);
* ``overflow``: the cases whose exact mean difference is beyond float64 (the tests must raise).

Every number is exact to far below the 1e-9 relative tolerance of the tests (mpmath's betainc and
findroot at 60 digits; only the final rounding to float64 is lost). Run:
``python tests/oracles/make_extremes_oracle.py`` (needs mpmath, the ``oracle`` extra).
"""
from __future__ import annotations

import json
import math
from pathlib import Path

import mpmath as mp
import numpy as np

mp.mp.dps = 60
OUT = Path(__file__).with_name("extremes_oracle.json")
SCALES = (1e-300, 1e-150, 1.0, 1e150, 1e300)
LEVEL = mp.mpf("0.95")

#: Fixed paired datasets (x, y): the unscaled paired-t p-values are about 0.05, 0.4 and 0.008.
DATASETS: dict[str, tuple[list[float], list[float]]] = {
    "near-0.05": (
        [0.61, 0.55, 0.72, 0.48, 0.66, 0.59, 0.70, 0.52, 0.63, 0.58],
        [0.57, 0.56, 0.65, 0.49, 0.60, 0.61, 0.62, 0.50, 0.64, 0.52],
    ),
    "near-0.4": (
        [0.31, 0.45, 0.28, 0.52, 0.40, 0.37, 0.49, 0.33],
        [0.35, 0.41, 0.30, 0.47, 0.36, 0.39, 0.44, 0.31],
    ),
    "near-0.008": (
        [12.5, 14.1, 13.8, 15.2, 12.9, 14.7, 13.3, 15.9, 14.4, 13.1, 14.9, 15.5],
        [11.9, 13.2, 13.9, 14.1, 12.0, 13.8, 13.5, 14.6, 13.2, 12.8, 14.1, 14.9],
    ),
}


def _t_sf2(t: mp.mpf, df: mp.mpf) -> mp.mpf:
    """Two-sided p-value 2 P(T_df >= |t|) = I_{df/(df+t²)}(df/2, 1/2)."""
    return mp.betainc(df / 2, mp.mpf("0.5"), 0, df / (df + t * t), regularized=True)


def _t_quantile(prob: mp.mpf, df: mp.mpf) -> mp.mpf:
    """q with P(T_df <= q) = prob (> 0.5), from the two-sided tail 2(1 - prob)."""
    tail = 2 * (1 - prob)
    return mp.findroot(lambda q: _t_sf2(q, df) - tail, mp.mpf(2))


def _moments(v: list[mp.mpf]) -> tuple[mp.mpf, mp.mpf]:
    n = len(v)
    m = mp.fsum(v) / n
    return m, mp.fsum((a - m) ** 2 for a in v) / (n - 1)


def _num(v: mp.mpf) -> float | str:
    """float64 of v, or a decimal string when it is beyond float64."""
    f = float(v)
    return f if math.isfinite(f) else mp.nstr(v, 20)


def _case(name: str, scale: str, x: np.ndarray, y: np.ndarray) -> dict[str, object]:
    xs = [mp.mpf(float(a)) for a in x]  # the exact float64 inputs
    ys = [mp.mpf(float(a)) for a in y]
    n = len(xs)
    d = [a - b for a, b in zip(xs, ys, strict=True)]
    md, vd = _moments(d)
    sd = mp.sqrt(vd)
    se = sd / mp.sqrt(n)
    t = md / se
    df = mp.mpf(n - 1)
    q = _t_quantile((1 + LEVEL) / 2, df)
    mx, vx = _moments(xs)
    my, vy = _moments(ys)
    sx2n, sy2n = vx / n, vy / n
    se_w = mp.sqrt(sx2n + sy2n)
    t_w = (mx - my) / se_w
    df_w = (sx2n + sy2n) ** 2 / (sx2n ** 2 / (n - 1) + sy2n ** 2 / (n - 1))
    q_w = _t_quantile((1 + LEVEL) / 2, df_w)
    sp = mp.sqrt(((n - 1) * vx + (n - 1) * vy) / (2 * n - 2))
    fmax = mp.mpf(np.finfo(np.float64).max)
    locations = (md, md - q * se, md + q * se, mx - my, mx - my - q_w * se_w, mx, my)
    return {
        "dataset": name, "scale": scale,
        "x": [float(a).hex() for a in x], "y": [float(a).hex() for a in y],
        "overflow": any(abs(v) > fmax for v in locations),
        "paired_t": {"estimate": _num(md), "statistic": float(t), "pvalue": float(_t_sf2(t, df)),
                     "ci_low": _num(md - q * se), "ci_high": _num(md + q * se), "df": n - 1},
        "welch": {"estimate": _num(mx - my), "statistic": float(t_w),
                  "pvalue": float(_t_sf2(t_w, df_w)), "df": float(df_w),
                  "ci_low": _num(mx - my - q_w * se_w), "ci_high": _num(mx - my + q_w * se_w)},
        "cohens_dz": float(md / sd),
        "cohens_d": float((mx - my) / sp),
    }


def main() -> None:
    cases = []
    for name, (x0, y0) in DATASETS.items():
        x, y = np.array(x0), np.array(y0)
        for c in SCALES:
            cases.append(_case(name, f"{c:g}", x * c, y * c))
        # at the float64 limit: largest |value| 1.5e308, squares of the differences overflow
        top = max(np.abs(x).max(), np.abs(y).max())
        cases.append(_case(name, "max", x / top * 1.5e308, y / top * 1.5e308))
        # the mean difference itself is beyond float64 (the tests must refuse it)
        cases.append(_case(name, "beyond", x / top * 1.5e308, -y / top * 1.5e308))
    OUT.write_text(json.dumps({
        "generator": "tests/oracles/make_extremes_oracle.py",
        "mpmath": mp.__version__, "dps": mp.mp.dps, "level": float(LEVEL), "cases": cases,
    }, indent=1) + "\n")
    print(f"wrote {len(cases)} cases to {OUT}")


if __name__ == "__main__":
    main()
