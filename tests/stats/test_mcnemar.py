"""McNemar's test (``stats.mcnemar``) for paired binary outcomes: against statsmodels (exact and
asymptotic, with and without continuity correction), the binomial test (one-sided exact, mid-p),
R's mcnemar.test (tests/oracles/stats_r_tests.R, including b = c) and the published example of
Fagerland, Lydersen & Laake (2013)."""
from __future__ import annotations

import json
import math

import numpy as np
import pytest
import scipy.stats as sps
from statsmodels.stats.contingency_tables import mcnemar as sm_mcnemar

from ranger_eval.stats import mcnemar

CASES = range(24)
TOL = dict(rtol=1e-10, atol=1e-12)


@pytest.fixture(scope="module")
def r_oracle(oracles) -> dict:
    return json.loads((oracles / "stats_r_tests.json").read_text())


def _binary_pairs(seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(2000 + seed)
    n = int(rng.integers(5, 400))
    x = rng.random(n) < rng.uniform(0.3, 0.9)
    y = np.where(rng.random(n) < rng.uniform(0.5, 0.95), x, rng.random(n) < 0.5)
    return x.astype(int), y.astype(int)


def _table(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    return np.array([[np.sum((x == 1) & (y == 1)), np.sum((x == 1) & (y == 0))],
                     [np.sum((x == 0) & (y == 1)), np.sum((x == 0) & (y == 0))]])


@pytest.mark.parametrize("seed", CASES)
def test_mcnemar_equals_statsmodels(seed: int) -> None:
    x, y = _binary_pairs(seed)
    table = _table(x, y)
    for exact, correction in ((True, True), (False, True), (False, False)):
        ours = mcnemar(x, y, exact=exact, continuity_correction=correction)
        if not exact and correction and table[0, 1] == table[1, 0]:
            # b = c: R's mcnemar.test applies no correction (statistic 0, p = 1); statsmodels
            # still subtracts 1 (test_mcnemar_asymptotic_equals_r_mcnemar_test checks R's values)
            assert (ours.statistic, ours.pvalue) == (0.0, 1.0)
            continue
        ref = sm_mcnemar(table, exact=exact, correction=correction)
        np.testing.assert_allclose([ours.statistic, ours.pvalue], [ref.statistic, ref.pvalue], **TOL)


@pytest.mark.parametrize("seed", CASES)
@pytest.mark.parametrize("alternative", ["greater", "less"])
def test_mcnemar_one_sided_exact_equals_binomial_test(seed: int, alternative: str) -> None:
    x, y = _binary_pairs(seed)
    b, c = int(np.sum((x == 1) & (y == 0))), int(np.sum((x == 0) & (y == 1)))
    ours = mcnemar(x, y, alternative=alternative)
    ref = sps.binomtest(b, b + c, 0.5, alternative=alternative).pvalue if b + c else 1.0
    assert ours.pvalue == pytest.approx(ref, rel=1e-10)
    assert ours.estimate == pytest.approx((b - c) / x.size)


def test_mcnemar_published_fagerland_example() -> None:
    """Fagerland, Lydersen & Laake (2013), BMC Med Res Methodol 13:91, Table 3 (Bentur et al.
    data, n12 = 1, n21 = 7): exact conditional 0.070, mid-p 0.039, asymptotic 0.034."""
    x = np.array([1] * 59 + [1] * 1 + [0] * 7 + [0] * 21)
    y = np.array([1] * 59 + [0] * 1 + [1] * 7 + [0] * 21)
    assert mcnemar(x, y).pvalue == pytest.approx(0.070, abs=5e-4)
    assert mcnemar(x, y, mid_p=True).pvalue == pytest.approx(0.039, abs=5e-4)
    assert mcnemar(x, y, exact=False, continuity_correction=False).pvalue == pytest.approx(0.034, abs=5e-4)


def test_mcnemar_mid_p_one_sided_and_asymptotic_one_sided() -> None:
    x, y = _binary_pairs(5)
    b, c = int(np.sum((x == 1) & (y == 0))), int(np.sum((x == 0) & (y == 1)))
    binom = sps.binom(b + c, 0.5)
    assert mcnemar(x, y, alternative="greater", mid_p=True).pvalue == pytest.approx(
        binom.sf(b) + 0.5 * binom.pmf(b), rel=1e-12)
    z = (b - c - 1) / math.sqrt(b + c)
    assert mcnemar(x, y, alternative="greater", exact=False).pvalue == pytest.approx(
        sps.norm.sf(z), rel=1e-12)
    # one-sided p-values of opposite directions add up to 1 + P(B = b) (exact)
    total = mcnemar(x, y, alternative="greater").pvalue + mcnemar(x, y, alternative="less").pvalue
    assert total == pytest.approx(1 + binom.pmf(b), rel=1e-12)


def _pairs(a: int, b: int, c: int, d: int) -> tuple[np.ndarray, np.ndarray]:
    x = np.array([1] * a + [1] * b + [0] * c + [0] * d)
    y = np.array([1] * a + [0] * b + [1] * c + [0] * d)
    return x, y


def test_mcnemar_asymptotic_equals_r_mcnemar_test(r_oracle: dict) -> None:
    cases = r_oracle["mcnemar"]
    assert {(k["b"] - k["c"]) for k in cases} >= {0, 1, -1}
    for k in cases:
        x, y = _pairs(k["a"], k["b"], k["c"], k["d"])
        ours = mcnemar(x, y, exact=False, continuity_correction=k["correct"])
        if k["statistic"] is None:  # b = c = 0: R gives NaN; ours is the defined "no evidence"
            assert (ours.statistic, ours.pvalue) == (0.0, 1.0)
            continue
        assert ours.statistic == pytest.approx(k["statistic"], rel=1e-12, abs=1e-15), k
        assert ours.pvalue == pytest.approx(k["p_value"], rel=1e-12), k


def test_mcnemar_b_equals_c_has_no_correction_and_p_one() -> None:
    x, y = _pairs(10, 10, 10, 20)  # statsmodels: (|0| - 1)^2 / 20 = 0.05, p = 0.823
    res = mcnemar(x, y, exact=False, continuity_correction=True)
    assert (res.statistic, res.pvalue) == (0.0, 1.0)
