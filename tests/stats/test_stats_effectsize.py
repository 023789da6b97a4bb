"""Effect sizes against metafor (R) and statsmodels; Sawilowsky labels."""
from __future__ import annotations

import json
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from statsmodels.stats.proportion import proportion_effectsize

from ranger_eval.stats import (
    EFFECT_THRESHOLDS,
    StatsInputError,
    cohens_d,
    cohens_dz,
    cohens_h,
    effect_label,
    hedges_g,
    hedges_gz,
    hedges_j,
    significant_by_effect,
)


@pytest.fixture(scope="module")
def r_oracle(oracles) -> dict:
    return json.loads((oracles / "stats_r_oracles.json").read_text())


def test_paired_dz_and_gz_equal_metafor(r_oracle) -> None:
    cases = r_oracle["paired"]
    assert len(cases) >= 20
    for case in cases:
        x, y = np.array(case["x"]), np.array(case["y"])
        assert cohens_dz(x, y) == pytest.approx(case["d_z"], rel=1e-9)
        assert cohens_dz(x - y) == pytest.approx(case["d_z"], rel=1e-9)
        if x.size >= 3:
            j = 1 - 3 / (4 * (x.size - 1) - 1)
            assert hedges_gz(x, y) == pytest.approx(j * case["d_z"], rel=1e-9)


def test_unpaired_d_and_g_equal_metafor(r_oracle) -> None:
    cases = r_oracle["unpaired"]
    assert len(cases) >= 20
    for case in cases:
        x, y = np.array(case["x"]), np.array(case["y"])
        assert cohens_d(x, y) == pytest.approx(case["d"], rel=1e-9)
        df = x.size + y.size - 2
        assert hedges_g(x, y) == pytest.approx((1 - 3 / (4 * df - 1)) * case["d"], rel=1e-9)


def test_hedges_j_matches_borenstein_example() -> None:
    # Borenstein et al. (2009), Introduction to Meta-Analysis, sec. 4.3 worked example:
    # n1 = n2 = 50, df = 98, J = 1 - 3/(4*98 - 1) = 0.9923
    assert hedges_j(98) == pytest.approx(0.9923, abs=5e-5)
    with pytest.raises(StatsInputError, match="df >= 2"):
        hedges_j(1)


@pytest.mark.parametrize("seed", range(20))
def test_cohens_h_equals_statsmodels(seed: int) -> None:
    rng = np.random.default_rng(seed)
    p1, p2 = (float(v) for v in rng.random(2))
    assert cohens_h(p1, p2) == pytest.approx(proportion_effectsize(p1, p2), rel=1e-12, abs=1e-15)
    assert cohens_h(1.0, 0.0) == pytest.approx(math.pi)


@pytest.mark.parametrize(("value", "label"), [
    (0.0, "negligible"), (0.0099, "negligible"), (0.01, "very small"), (-0.19, "very small"),
    (0.2, "small"), (0.49, "small"), (-0.5, "medium"), (0.8, "large"), (1.19, "large"),
    (1.2, "very large"), (-1.99, "very large"), (2.0, "huge"), (math.inf, "huge"),
])
def test_sawilowsky_labels(value: float, label: str) -> None:
    assert effect_label(value) == label


def test_significant_by_effect() -> None:
    assert significant_by_effect(0.25) is True
    assert significant_by_effect(-0.25, "medium") is False
    assert significant_by_effect(-0.5, "medium") is True
    got = significant_by_effect(np.array([0.1, -0.9, 0.3]), 0.3)
    assert got.tolist() == [False, True, True]
    assert set(EFFECT_THRESHOLDS) >= {"small", "medium", "large", "huge"}
    with pytest.raises(StatsInputError, match="valid: 'very small'"):
        significant_by_effect(0.3, "big")


def test_degenerate_effects_are_defined() -> None:
    x = np.ones(5)
    assert cohens_dz(x, x) == 0.0
    assert cohens_dz(x + 1, x) == math.inf
    assert cohens_d(x, x) == 0.0
    assert cohens_d(x, x + 2) == -math.inf
    assert hedges_g(np.zeros(3), np.zeros(3)) == 0.0


@settings(max_examples=50, deadline=None)
@given(st.lists(st.tuples(st.floats(-10, 10), st.floats(-10, 10)), min_size=3, max_size=30))
def test_paired_effect_antisymmetric_and_shrunk(pairs: list[tuple[float, float]]) -> None:
    x = np.array([p[0] for p in pairs])
    y = np.array([p[1] for p in pairs])
    dz = cohens_dz(x, y)
    assert not math.isnan(dz)
    assert cohens_dz(y, x) == -dz
    gz = hedges_gz(x, y)
    assert abs(gz) <= abs(dz)
