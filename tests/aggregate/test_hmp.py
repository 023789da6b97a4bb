"""harmonic_mean_p against R harmonicmeanp 3.0.1 and an independent mpmath Landau evaluation.

Fixtures: tests/oracles/aggregate_oracles.json (``harmonicmeanp`` from aggregate_oracles.R,
``hmp_mpmath`` from aggregate_oracles.py). Observed agreement is ~1e-14 relative; the tests
allow 1e-11.
"""
from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ranger_eval.aggregate import LANDAU_OFFSET, HarmonicMeanP, harmonic_mean_p
from ranger_eval.errors import AggregateError, RangerError
from ranger_eval.signature import parse_signature

ORACLE = Path(__file__).resolve().parents[1] / "oracles" / "aggregate_oracles.json"
RTOL = 1e-11


@pytest.fixture(scope="module")
def oracle() -> dict:
    return json.loads(ORACLE.read_text())


def _case_id(case: dict) -> str:
    return case["name"]


def _r_cases() -> list[dict]:
    return json.loads(ORACLE.read_text())["harmonicmeanp"]["cases"]


@pytest.mark.parametrize("case", _r_cases(), ids=_case_id)
def test_matches_r_p_hmp(case: dict) -> None:
    res = harmonic_mean_p(case["p"], weights=case["w"], L=case["L"])
    assert res.pvalue == pytest.approx(case["p_hmp"], rel=RTOL, abs=0)
    assert res.hmp == pytest.approx(case["hmp_stat"], rel=RTOL, abs=0)
    assert res.weight_sum == pytest.approx(case["w_sum"], rel=1e-15)
    assert res.pvalue_adjusted == pytest.approx(case["p_hmp"] / case["w_sum"], rel=RTOL)
    assert res.L == case["L"]
    assert res.n == len(case["p"])


def test_r_oracle_versions(oracle: dict) -> None:
    assert oracle["harmonicmeanp"]["harmonicmeanp"] == "3.0.1"
    assert len(oracle["harmonicmeanp"]["cases"]) >= 20


def test_equal_weights_match_pharmonicmeanp(oracle: dict) -> None:
    """For equal weights over all L tests, p.hmp equals R's pharmonicmeanp(HMP, L)."""
    for case in oracle["harmonicmeanp"]["cases"]:
        if case["w"] is None and len(case["p"]) == case["L"]:
            res = harmonic_mean_p(case["p"])
            assert res.pvalue == pytest.approx(case["pharmonicmeanp"], rel=RTOL), case["name"]


@pytest.mark.parametrize("idx", range(12))
def test_matches_mpmath_landau(oracle: dict, idx: int) -> None:
    case = oracle["hmp_mpmath"][idx]
    res = harmonic_mean_p(case["p"], weights=case["w"], L=case["L"])
    assert res.pvalue == pytest.approx(case["pvalue"], rel=RTOL, abs=0)
    assert res.pvalue_adjusted == pytest.approx(case["pvalue_adjusted"], rel=RTOL, abs=0)
    assert res.hmp == pytest.approx(case["hmp"], rel=1e-13)


def test_landau_offset_constant() -> None:
    # R: O.874 = 1 + digamma(1) - log(2/pi); the docstring quotes 0.874367040387922.
    assert LANDAU_OFFSET == pytest.approx(0.874367040387922, abs=1e-15)


def test_result_fields_and_signature() -> None:
    res = harmonic_mean_p([0.01, 0.2, 0.5])
    assert isinstance(res, HarmonicMeanP)
    np.testing.assert_allclose(res.weights, [1 / 3] * 3)
    assert not res.weights.flags.writeable
    fields = parse_signature(res.signature)
    assert fields["kind"] == "aggregate"
    assert fields["test"] == "hmp"
    assert fields["weights"] == "equal"
    assert parse_signature(harmonic_mean_p([0.1, 0.2], weights=[0.5, 0.5]).signature)[
        "weights"] == "custom"
    d = res.to_dict()
    assert json.loads(json.dumps(d)) == d
    assert d["L"] == 3 and d["n"] == 3


def test_zero_pvalue_gives_zero() -> None:
    """R's FMStable fails on p = 0 (Inf in a foreign call); the limit is 0."""
    res = harmonic_mean_p([0.0, 0.5])
    assert res.pvalue == 0.0
    assert res.pvalue_adjusted == 0.0
    assert res.hmp == 0.0


def test_zero_weight_ignores_its_pvalue() -> None:
    a = harmonic_mean_p([0.0, 0.2, 0.6], weights=[0.0, 0.5, 0.5])
    b = harmonic_mean_p([0.9, 0.2, 0.6], weights=[0.0, 0.5, 0.5])
    assert a.pvalue == b.pvalue


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"pvalues": []}, "empty"),
        ({"pvalues": [0.1, float("nan")]}, r"\[0, 1\].*nan.*position 1"),
        ({"pvalues": [0.1, 1.5]}, r"\[0, 1\].*1\.5"),
        ({"pvalues": [-0.1]}, r"\[0, 1\]"),
        ({"pvalues": [[0.1, 0.2]]}, "one-dimensional"),
        ({"pvalues": [0.1, 0.2], "L": 1}, "at least the number of p-values"),
        ({"pvalues": [0.1, 0.2], "L": 2.5}, "positive integer"),
        ({"pvalues": [0.1, 0.2], "L": True}, "positive integer"),
        ({"pvalues": [0.1, 0.2], "weights": [0.5]}, "one value per p-value"),
        ({"pvalues": [0.1, 0.2], "weights": [0.5, -0.1]}, "non-negative.*-0.1"),
        ({"pvalues": [0.1, 0.2], "weights": [0.7, 0.7]}, "at most 1.*1.4"),
        ({"pvalues": [0.1, 0.2], "weights": [0.0, 0.0]}, "all zero"),
        ({"pvalues": [0.1, 0.2], "weights": "equal"}, "numbers"),
    ],
)
def test_bad_input(kwargs: dict, match: str) -> None:
    with pytest.raises(AggregateError, match=match) as err:
        harmonic_mean_p(**kwargs)
    assert isinstance(err.value, RangerError) and isinstance(err.value, ValueError)


# ----------------------------------------------------------------------------- properties
_p = st.floats(min_value=1e-12, max_value=1.0, allow_nan=False)


@settings(max_examples=60, deadline=None)
@given(p=_p, L=st.integers(min_value=1, max_value=500))
def test_identical_pvalues(p: float, L: int) -> None:
    """L identical p-values: the harmonic mean is p itself, and the combined p-value is that of
    one p-value carrying all the weight among L tests (both have Σ w_i/p_i = 1/p)."""
    res = harmonic_mean_p([p] * L)
    assert res.hmp == pytest.approx(p, rel=1e-12)
    one = harmonic_mean_p([p], weights=[1.0], L=L)
    assert res.pvalue == pytest.approx(one.pvalue, rel=1e-12)
    assert res.pvalue_adjusted == pytest.approx(res.pvalue, rel=1e-12)  # weights sum to 1
    assert 0.0 <= res.pvalue <= 1.0


@settings(max_examples=60, deadline=None)
@given(ps=st.lists(_p, min_size=1, max_size=30), extra=st.integers(0, 100), data=st.data())
def test_bounds_order_and_monotonicity(ps: list[float], extra: int, data) -> None:
    L = len(ps) + extra
    res = harmonic_mean_p(ps, L=L)
    assert 0.0 <= res.pvalue <= res.weight_sum + 1e-15
    assert 0.0 <= res.pvalue_adjusted <= 1.0
    assert res.pvalue == pytest.approx(res.weight_sum * res.pvalue_adjusted, rel=1e-14)
    # permutation invariance
    perm = data.draw(st.permutations(ps))
    assert harmonic_mean_p(perm, L=L).pvalue == pytest.approx(res.pvalue, rel=1e-12)
    # making one p-value smaller never increases the combined p-value
    i = data.draw(st.integers(0, len(ps) - 1))
    smaller = list(ps)
    smaller[i] = ps[i] / 2
    assert harmonic_mean_p(smaller, L=L).pvalue <= res.pvalue * (1 + 1e-12)
    # the weighted harmonic mean lies between the smallest and the largest p-value
    assert min(ps) * (1 - 1e-12) <= res.hmp <= max(ps) * (1 + 1e-12)
    assert math.isfinite(res.hmp)
