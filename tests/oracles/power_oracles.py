"""Oracle for ranger_eval.plan from statsmodels: writes power_oracles_statsmodels.json.

    python tests/oracles/power_oracles.py

statsmodels ``TTestPower`` (paired t on the differences), ``TTestIndPower`` (two groups of equal
size), ``NormalIndPower`` with ``proportion_effectsize`` (two proportions, Cohen's h), each for
power, n and effect. ``solve_power`` stops at brentq's default tolerance (its effects are off by
up to 3e-6 relative), so n and effect are solved here by ``brentq(xtol=1e-14)`` on the class's own
``power`` (``solve_power``'s answer is kept beside it as ``"solve_power"``); and ``normal_power_het`` (one-sided z power with
the unpooled SE at the planned proportions) for the non-inferiority and, as the sum of its two
one-sided powers minus 1, the equivalence power of two proportions. Each case holds the keyword
arguments of ``ranger_eval.plan``, the field compared and the oracle's value (R's oracles:
power_oracles.R).
"""
from __future__ import annotations

import json
import math
from pathlib import Path

import statsmodels
from scipy.optimize import brentq
from statsmodels.stats.power import NormalIndPower, TTestIndPower, TTestPower, normal_power_het
from statsmodels.stats.proportion import proportion_effectsize

OUT = Path(__file__).with_name("power_oracles_statsmodels.json")
SM_ALT = {"two-sided": "two-sided", "greater": "larger", "less": "smaller"}


def main() -> None:
    cases: list[dict[str, object]] = []
    skipped: list[dict[str, object]] = []

    def add(source: str, args: dict[str, object], field: str, value: float,
            solve_power: float | None = None) -> None:
        if not math.isfinite(value):  # scipy's nct far tail at non-integer df (power ≈ 1)
            skipped.append({"source": source, "args": args, "field": field})
            return
        case = {"source": source, "args": args, "field": field, "value": float(value)}
        if solve_power is not None:
            case["solve_power"] = float(solve_power)
        cases.append(case)

    def root(f, lo: float, hi: float) -> float:  # type: ignore[no-untyped-def]
        return float(brentq(f, lo, hi, xtol=1e-14, rtol=1e-15, maxiter=1000))

    for test, engine in (("paired-t", TTestPower()), ("welch", TTestIndPower())):
        name = type(engine).__name__
        for alt, sm_alt in SM_ALT.items():
            for d in (0.15, 0.45, 0.9):
                ds = -d if alt == "less" else d
                for n in (6, 25, 333.3):
                    add(name, {"test": test, "effect": ds, "n": n, "alternative": alt}, "power",
                        engine.power(ds, n, 0.05, alternative=sm_alt))
                for power in (0.5, 0.8, 0.95):
                    approx = engine.solve_power(ds, None, 0.05, power, alternative=sm_alt)
                    n_root = root(lambda n, ds=ds, power=power, sm_alt=sm_alt, engine=engine: engine.power(
                        ds, n, 0.05, alternative=sm_alt) - power, 0.9 * approx, 1.1 * approx)
                    add(name, {"test": test, "effect": ds, "power": power, "alternative": alt},
                        "n_exact", n_root, approx)
            for n in (15, 90):
                sign = -1.0 if alt == "less" else 1.0
                approx = engine.solve_power(None, n, 0.05, 0.8, alternative=sm_alt)
                d_root = sign * root(lambda d, n=n, sign=sign, sm_alt=sm_alt, engine=engine: engine.power(
                    sign * d, n, 0.05, alternative=sm_alt) - 0.8, 0.9 * abs(approx),
                    1.1 * abs(approx))
                add(name, {"test": test, "n": n, "power": 0.8, "alternative": alt}, "effect",
                    d_root, approx)
        add(name, {"test": test, "effect": 0.3, "n": 50, "alpha": 0.1}, "power",
            engine.power(0.3, 50, 0.1))
    prop = NormalIndPower()
    for alt, sm_alt in SM_ALT.items():
        for pc, diff in ((0.5, 0.1), (0.8, 0.05), (0.2, 0.15)):
            pt = pc - diff if alt == "less" else pc + diff
            h = proportion_effectsize(pt, pc)
            for n in (40, 250):
                add("NormalIndPower", {"test": "proportions-z", "p_control": pc,
                                       "p_treatment": pt, "n": n, "alternative": alt}, "power",
                    prop.power(h, n, 0.05, alternative=sm_alt))
            n_root = root(lambda n, h=h, sm_alt=sm_alt: prop.power(
                h, n, 0.05, alternative=sm_alt) - 0.9, 1.0, 1e8)
            add("NormalIndPower", {"test": "proportions-z", "p_control": pc, "p_treatment": pt,
                                   "power": 0.9, "alternative": alt}, "n_exact", n_root,
                prop.solve_power(h, None, 0.05, 0.9, alternative=sm_alt))
    for pc, diff, margin in ((0.7, 0.0, 0.05), (0.6, -0.02, 0.1), (0.85, 0.01, 0.04)):
        pt = pc + diff
        std = math.sqrt(pt * (1 - pt) + pc * (1 - pc))
        for n in (100, 800):
            lower = normal_power_het(diff + margin, n, 0.05, std_null=std, std_alternative=std,
                                     alternative="larger")
            upper = normal_power_het(margin - diff, n, 0.05, std_null=std, std_alternative=std,
                                     alternative="larger")
            args = {"test": "proportions-z", "p_control": pc, "p_treatment": pt, "n": n,
                    "margin": margin}
            add("normal_power_het", {**args, "alternative": "greater"}, "power", lower)
            add("normal_power_het", {**args, "alternative": "less"}, "power", upper)
            add("normal_power_het", args, "power", max(0.0, lower + upper - 1.0))
    OUT.write_text(json.dumps({"generator": "tests/oracles/power_oracles.py",
                               "versions": {"statsmodels": statsmodels.__version__},
                               "cases": cases, "skipped_nan": skipped}, indent=1) + "\n")
    print(f"{OUT}: {len(cases)} cases, {len(skipped)} skipped (the oracle returned NaN)")


if __name__ == "__main__":
    main()
