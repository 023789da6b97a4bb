"""rg.plan for equivalence and non-inferiority of paired binary scores:
Wellek's asymptotic McNemar tests against a margin on p10 − p01, their exact power equal to
R EQUIVNONINF (mcnempow; mcnasc_ni's exact size) through tests/oracles/power_mcnemar_margin.R,
their large-sample power close to it for large n, and ranger-eval plan reaching them."""
from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

import ranger_eval as rg
from ranger_eval.stats import StatsInputError
from ranger_eval.stats.power import _wellek_exact_power

ORACLE = json.loads((Path(__file__).resolve().parents[1] / "oracles"
                     / "power_mcnemar_margin.json").read_text())
EQUIV = [c for c in ORACLE["equivalence"] if not c["error"]]


def _design(p10: float, p01: float, p11: float = 0.4) -> dict[str, float]:
    """plan's (p_control, effect, correlation) of the cell probabilities (p11 both right)."""
    p_t, p_c = p11 + p10, p11 + p01
    phi = (p11 - p_t * p_c) / math.sqrt(p_t * (1 - p_t) * p_c * (1 - p_c))
    return {"p_control": p_c, "effect": p_t - p_c, "correlation": phi}


@pytest.mark.parametrize("case", EQUIV, ids=lambda c: "a={alpha},n={n},m={margin},p10={p10},"
                         "p01={p01}".format(**c))
def test_exact_equivalence_power_is_equivnoninf_mcnempow(case: dict) -> None:
    got = _wellek_exact_power(case["n"], case["p10"], case["p01"], case["alpha"],
                              case["margin"], "equivalence")
    assert got == pytest.approx(case["power"], rel=1e-9, abs=1e-13)


@pytest.mark.parametrize("case", EQUIV[::5], ids=lambda c: "a={alpha},n={n},m={margin},"
                         "p10={p10},p01={p01}".format(**c))
def test_plan_mcnemar_exact_with_a_margin_is_that_power(case: dict) -> None:
    plan = rg.plan("mcnemar-exact", n=case["n"], level=1 - case["alpha"], margin=case["margin"],
                   **_design(case["p10"], case["p01"]))
    assert plan.hypothesis == "equivalence" and plan.solved_for == "power"
    assert plan.power == pytest.approx(case["power"], rel=1e-9, abs=1e-13)


@pytest.mark.parametrize("case", ORACLE["noninferiority"],
                         ids=lambda c: "a={alpha},n={n},m={margin}".format(**c))
def test_exact_noninferiority_size_is_equivnoninf_mcnasc_ni(case: dict) -> None:
    """mcnasc_ni's SIZE_unc: the largest exact rejection probability at nominal α on the
    boundary δ = −Δ over its grid of p_d = p10 + p01 (built by the same additions)."""
    sizes = []
    eta, sw, m = case["margin"] + case["sw"], case["sw"], case["margin"]
    while eta <= 1 - sw:
        sizes.append(_wellek_exact_power(case["n"], (eta - m) / 2, (eta + m) / 2,
                                         case["alpha"], m, "non-inferiority"))
        eta += sw
    assert max(sizes) == pytest.approx(case["size_unc"], rel=1e-9)


def test_oracle_counts() -> None:
    assert ORACLE["source"].startswith("R ") and "EQUIVNONINF 1.0.2" in ORACLE["source"]
    assert len(EQUIV) >= 50 and len(ORACLE["noninferiority"]) == 8


@pytest.mark.slow
def test_large_sample_power_approaches_the_exact_power() -> None:
    for hyp, alternative, p10, p01 in (("equivalence", "two-sided", 0.12, 0.10),
                                       ("non-inferiority", "greater", 0.10, 0.12)):
        kwargs = dict(n=1500, level=0.95, margin=0.05, alternative=alternative,
                      **_design(p10, p01))
        exact = rg.plan("mcnemar-exact", **kwargs)
        approx = rg.plan("mcnemar", **kwargs)
        assert exact.hypothesis == approx.hypothesis == hyp
        assert abs(exact.power - approx.power) < 0.01, (hyp, exact.power, approx.power)


def test_solving_n_and_the_other_direction() -> None:
    design = _design(0.11, 0.10)
    plan = rg.plan("mcnemar", power=0.8, margin=0.06, alternative="greater", **design)
    assert plan.hypothesis == "non-inferiority" and plan.solved_for == "n"
    assert plan.power_at_n >= 0.8 > rg.plan("mcnemar", n=plan.n - 1, margin=0.06,
                                            alternative="greater", **design).power
    # closed form: n = ((z_{1-α} + z_power) σ / (δ + Δ))², σ² = p_d − δ²
    delta, var = 0.01, 0.21 - 0.01 ** 2
    from scipy.stats import norm
    want = ((norm.isf(0.05) + norm.ppf(0.8)) * math.sqrt(var) / (delta + 0.06)) ** 2
    assert plan.n_exact == pytest.approx(want, rel=1e-9)
    exact = rg.plan("mcnemar-exact", power=0.8, margin=0.06, alternative="greater", **design)
    assert exact.power_at_n >= 0.8 and exact.n == exact.n_exact
    assert rg.plan("mcnemar-exact", n=exact.n - 1, margin=0.06, alternative="greater",
                   **design).power < 0.8
    # lower is better: H0 δ ≥ Δ is the mirror image (p10 and p01 swapped)
    mirror = rg.plan("mcnemar", n=400, margin=0.06, alternative="less", **_design(0.10, 0.11))
    same = rg.plan("mcnemar", n=400, margin=0.06, alternative="greater", **design)
    assert mirror.power == pytest.approx(same.power, rel=1e-12)


def test_clusters_and_bad_targets() -> None:
    design = _design(0.11, 0.10)
    flat = rg.plan("mcnemar", n=600, margin=0.06, **design)
    clustered = rg.plan("mcnemar", n=1200, margin=0.06, icc=0.2, cluster_size=6, **design)
    assert clustered.design_effect == pytest.approx(2.0)
    assert clustered.power == pytest.approx(flat.power, rel=1e-12)  # n / DE items
    with pytest.raises(StatsInputError, match="outside the equivalence margin"):
        rg.plan("mcnemar", n=600, margin=0.005, **design)
    with pytest.raises(StatsInputError, match="up to n = 5000"):
        rg.plan("mcnemar-exact", n=6000, margin=0.06, **design)


def test_cli_plan_reaches_it(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from ranger_eval.cli import app

    design = _design(0.11, 0.10)
    out = tmp_path / "out"
    result = CliRunner().invoke(app, [
        "plan", "--test", "mcnemar", "--power", "0.8", "--margin", "0.06", "--alternative",
        "greater", "--p-control", repr(design["p_control"]), "--effect", repr(design["effect"]),
        "--correlation", repr(design["correlation"]), "-o", str(out)])
    assert result.exit_code == 0, result.output
    want = rg.plan("mcnemar", power=0.8, margin=0.06, alternative="greater", **design)
    payload = json.loads((out / "plan.json").read_text())
    assert payload["result"]["n"] == want.n and payload["result"]["hypothesis"] == \
        "non-inferiority"
    assert payload["signature"] == str(want.signature)
