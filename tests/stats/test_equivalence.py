"""Non-inferiority and equivalence kernels (ranger_eval.stats.equivalence) against statsmodels
(tests/oracles/equivalence_oracles.py) and R ratesci / PropCIs (equivalence_oracles.R)."""
from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ranger_eval.stats import StatsInputError
from ranger_eval.stats import equivalence as eq

ORACLES = Path(__file__).parents[1] / "oracles"
PY = json.loads((ORACLES / "equivalence_oracles.json").read_text())
R = json.loads((ORACLES / "equivalence_oracles_R.json").read_text())


def _v(x: float | str | None) -> float:
    return float(x) if x is not None else math.nan


def _close(got: float, want: float | str, rtol: float = 1e-10, atol: float = 0.0) -> None:
    want = _v(want)
    if math.isinf(want):
        assert got == want
    else:
        assert got == pytest.approx(want, rel=rtol, abs=atol)


@pytest.mark.parametrize("kind", ["paired_t", "welch"])
def test_t_margin_tests_equal_statsmodels_ttost(kind: str) -> None:
    for case in PY[kind]:
        x, y = np.array(case["x"]), np.array(case["y"])
        moments = eq.paired_t_margins(x, y) if kind == "paired_t" else eq.welch_margins(x, y)
        r = eq.t_margin_tests(*moments, low=_v(case["low"]), upp=_v(case["upp"]),
                              level=case["level"])
        _close(float(r.pvalue[0]), case["pvalue"])
        _close(float(r.p_low[0]), case["p_low"])
        _close(float(r.p_upp[0]), case["p_upp"])
        _close(float(r.stat_low[0]), case["t_low"])
        _close(float(r.stat_upp[0]), case["t_upp"])
        _close(float(r.df[0]), case["df"])
        for side, want in (("ci_low", case["ci_low"]), ("ci_high", case["ci_high"])):
            margin = case["low"] if side == "ci_low" else case["upp"]
            got = float(getattr(r, side)[0])
            if math.isinf(_v(margin)):
                assert math.isinf(got)  # non-inferiority: one-sided interval
            else:
                _close(got, want)


def test_proportions_margin_tests_equal_statsmodels_score_tost() -> None:
    for case in PY["proportions"]:
        r = eq.proportions_margin_tests(case["count1"], case["nobs1"], case["count2"],
                                        case["nobs2"], low=_v(case["low"]), upp=_v(case["upp"]),
                                        level=case["level"])
        _close(float(r.pvalue[0]), case["pvalue"])
        _close(float(r.statistic[0]), case["statistic"])
        _close(float(r.p_low[0]), case["p_low"])
        _close(float(r.p_upp[0]), case["p_upp"])
        _close(float(r.stat_low[0]), case["z_low"])
        _close(float(r.stat_upp[0]), case["z_upp"])
        # statsmodels finds the score interval with brentq (xtol 2e-12): 1e-9 absolute
        for side in ("ci_low", "ci_high"):
            if case[side] is not None:
                _close(float(getattr(r, side)[0]), case[side], rtol=0, atol=1e-9)


def test_paired_proportions_margin_tests_equal_tango_in_ratesci_and_propcis() -> None:
    assert len(R["tango"]) >= 16
    for case in R["tango"]:
        b, c, n, theta0, level = case["b"], case["c"], case["n"], case["theta0"], case["level"]
        z = eq.tango_statistic(np.array([b], float), np.array([c], float), np.array([n], float),
                               np.array([theta0]))
        _close(float(z[0]), case["score"])
        r = eq.paired_proportions_margin_tests(b, c, n, low=theta0, upp=math.inf, level=level)
        _close(float(r.p_low[0]), case["p_low"])
        _close(float(r.p_low[0]), case["pval_right"], rtol=1e-9)  # R: 1 - pnorm(score)
        r = eq.paired_proportions_margin_tests(b, c, n, low=-math.inf, upp=theta0, level=level)
        _close(float(r.p_upp[0]), case["pval_left"], rtol=1e-9)
        # Tango's interval (PropCIs bisects to 1e-7; ratesci's closed form prints 6 decimals)
        r = eq.paired_proportions_margin_tests(b, c, n, low=-0.999999, upp=0.999999, level=level)
        _close(float(r.ci_low[0]), case["ci_low_propcis"], rtol=0, atol=1e-6)
        _close(float(r.ci_high[0]), case["ci_high_propcis"], rtol=0, atol=1e-6)
        _close(float(r.ci_low[0]), case["ci_low_closed"], rtol=0, atol=1e-6)
        _close(float(r.ci_high[0]), case["ci_high_closed"], rtol=0, atol=1e-6)


def test_tango_at_zero_is_mcnemar_z() -> None:
    """At θ = 0 Tango's statistic is McNemar's (b − c)/sqrt(b + c)."""
    b, c = np.array([7.0, 30.0]), np.array([1.0, 41.0])
    z = eq.tango_statistic(b, c, np.array([21.0, 500.0]), np.zeros(2))
    np.testing.assert_allclose(z, (b - c) / np.sqrt(b + c), rtol=1e-12)


def test_zero_standard_error_is_certainty() -> None:
    r = eq.t_margin_tests([0.0, 0.5, 0.5], [0.0, 0.0, 0.0], [9, 9, 9], low=-0.5, upp=0.5)
    assert r.pvalue.tolist() == [0.0, 1.0, 1.0]  # inside: shown; on the margin: not shown


def test_bad_margins_and_levels_are_refused() -> None:
    with pytest.raises(StatsInputError, match="low < upp"):
        eq.t_margin_tests([0.0], [1.0], [3], low=0.5, upp=-0.5)
    with pytest.raises(StatsInputError, match=r"\(-1, 1\)"):
        eq.proportions_margin_tests(3, 10, 4, 10, low=-1.0, upp=1.0)
    with pytest.raises(StatsInputError, match="level"):
        eq.paired_proportions_margin_tests(3, 1, 10, low=-0.1, upp=0.1, level=1.0)


@settings(max_examples=60, deadline=None)
@given(n=st.integers(5, 60), b=st.integers(0, 20), c=st.integers(0, 20),
       margin=st.floats(0.01, 0.6), level=st.sampled_from([0.9, 0.95, 0.99]))
def test_score_tests_reject_exactly_when_the_interval_lies_inside(n: int, b: int, c: int,
                                                                   margin: float,
                                                                   level: float) -> None:
    """Duality: equivalence is shown at α = 1 − level iff the interval the test inverts lies
    within ±margin (Tango paired; Miettinen–Nurminen unpaired with the same counts)."""
    if b + c > n:
        return
    alpha = 1 - level
    for r in (eq.paired_proportions_margin_tests(b, c, n, low=-margin, upp=margin, level=level),
              eq.proportions_margin_tests(b, n, c, n, low=-margin, upp=margin, level=level)):
        p, lo, hi = float(r.pvalue[0]), float(r.ci_low[0]), float(r.ci_high[0])
        if abs(p - alpha) > 1e-9:  # away from the boundary itself
            assert (p < alpha) == (-margin < lo and hi < margin)
        assert lo <= float(r.estimate[0]) <= hi


@settings(max_examples=60, deadline=None)
@given(est=st.floats(-5, 5), se=st.floats(1e-3, 3), df=st.floats(1, 500),
       margin=st.floats(0.01, 5), level=st.sampled_from([0.8, 0.9, 0.95]))
def test_t_tost_is_the_larger_one_sided_p_and_dual_to_its_interval(
        est: float, se: float, df: float, margin: float, level: float) -> None:
    r = eq.t_margin_tests([est], [se], [df], low=-margin, upp=margin, level=level)
    assert r.pvalue[0] == max(r.p_low[0], r.p_upp[0])
    ni = eq.t_margin_tests([est], [se], [df], low=-margin, upp=math.inf, level=level)
    assert ni.pvalue[0] == r.p_low[0] and ni.ci_high[0] == math.inf
    p, lo, hi = float(r.pvalue[0]), float(r.ci_low[0]), float(r.ci_high[0])
    if abs(p - (1 - level)) > 1e-9:
        assert (p < 1 - level) == (-margin < lo and hi < margin)


TANGO = json.loads((ORACLES / "tango_interval_R.json").read_text())


def test_tango_interval_equals_ratesci_closed_form_and_propcis() -> None:
    """The interval of compare's McNemar rows: ratesci's closed form printed to
    15 decimals, PropCIs' bisection (stops near 1e-7) as a second check; one vectorised call."""
    cases = TANGO["tango"]
    assert len(cases) >= 16
    for level in {c["level"] for c in cases}:
        sel = [c for c in cases if c["level"] == level]
        b, c, n = (np.array([k[f] for k in sel], float) for f in ("b", "c", "n"))
        lo, hi = eq.tango_interval(b, c, n, level=level)
        np.testing.assert_allclose(lo, [k["ci_low"] for k in sel], rtol=1e-9, atol=1e-12)
        np.testing.assert_allclose(hi, [k["ci_high"] for k in sel], rtol=1e-9, atol=1e-12)
        np.testing.assert_allclose(lo, [k["ci_low_propcis"] for k in sel], atol=1e-6)
        np.testing.assert_allclose(hi, [k["ci_high_propcis"] for k in sel], atol=1e-6)
        lo1, inf = eq.tango_interval(b, c, n, level=level, alternative="greater")
        np.testing.assert_allclose(lo1, [k["one_sided_low"] for k in sel], rtol=1e-9,
                                   atol=1e-12)
        assert np.isposinf(inf).all()
        ninf, hi1 = eq.tango_interval(b, c, n, level=level, alternative="less")
        np.testing.assert_allclose(hi1, [k["one_sided_high"] for k in sel], rtol=1e-9,
                                   atol=1e-12)
        assert np.isneginf(ninf).all()
        assert ((lo >= -1) & (hi <= 1) & (lo <= (b - c) / n) & ((b - c) / n <= hi)).all()


def test_tango_interval_refuses_bad_counts() -> None:
    with pytest.raises(StatsInputError, match="b \\+ c ≤ n"):
        eq.tango_interval(5, 3, 7)
    with pytest.raises(StatsInputError, match="alternative"):
        eq.tango_interval(1, 0, 7, alternative="bigger")
