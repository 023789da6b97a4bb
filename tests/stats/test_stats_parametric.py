"""Classical tests against scipy, statsmodels, R (wilcox.test) and published values."""
from __future__ import annotations

import json
import math

import numpy as np
import pytest
import scipy.stats as sps
from statsmodels.stats.contingency_tables import mcnemar as sm_mcnemar
from statsmodels.stats.descriptivestats import sign_test as sm_sign_test
from statsmodels.stats.proportion import proportions_ztest as sm_ztest

from ranger_eval.stats import (
    ALTERNATIVES,
    mannwhitney,
    mcnemar,
    paired_ttest,
    proportions_ztest,
    sign_test,
    welch_ttest,
    wilcoxon,
)

CASES = range(24)
TOL = dict(rtol=1e-10, atol=1e-12)
SM_ALT = {"two-sided": "two-sided", "greater": "larger", "less": "smaller"}


def _paired(seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    n = int(rng.integers(3, 80))
    x = rng.normal(rng.uniform(0, 1), rng.uniform(0.05, 1), n)
    y = 0.5 * x + rng.normal(rng.uniform(0, 0.6), rng.uniform(0.05, 1), n)
    return x, y


def _unpaired(seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(1000 + seed)
    nx, ny = (int(v) for v in rng.integers(2, 70, 2))
    return rng.normal(rng.uniform(-1, 1), rng.uniform(0.1, 2), nx), rng.normal(
        rng.uniform(-1, 1), rng.uniform(0.1, 2), ny
    )


@pytest.mark.parametrize("seed", CASES)
@pytest.mark.parametrize("alternative", ALTERNATIVES)
def test_paired_ttest_equals_scipy(seed: int, alternative: str) -> None:
    x, y = _paired(seed)
    ours = paired_ttest(x, y, alternative=alternative, level=0.9)
    ref = sps.ttest_rel(x, y, alternative=alternative)
    ci = ref.confidence_interval(confidence_level=0.9)
    np.testing.assert_allclose(
        [ours.statistic, ours.pvalue, ours.df, ours.ci_low, ours.ci_high],
        [ref.statistic, ref.pvalue, ref.df, ci.low, ci.high], **TOL,
    )
    assert ours.estimate == pytest.approx(np.mean(x - y), rel=1e-12)
    assert ours.n == x.size


@pytest.mark.parametrize("seed", CASES)
@pytest.mark.parametrize("alternative", ALTERNATIVES)
def test_welch_ttest_equals_scipy(seed: int, alternative: str) -> None:
    x, y = _unpaired(seed)
    ours = welch_ttest(x, y, alternative=alternative)
    ref = sps.ttest_ind(x, y, equal_var=False, alternative=alternative)
    ci = ref.confidence_interval()
    np.testing.assert_allclose(
        [ours.statistic, ours.pvalue, ours.df, ours.ci_low, ours.ci_high],
        [ref.statistic, ref.pvalue, ref.df, ci.low, ci.high], **TOL,
    )
    assert (ours.n, ours.n_y) == (x.size, y.size)


@pytest.mark.parametrize("seed", CASES)
@pytest.mark.parametrize("alternative", ALTERNATIVES)
def test_wilcoxon_equals_scipy(seed: int, alternative: str) -> None:
    x, y = _paired(seed)
    if seed % 2:  # discrete scores: ties and zero differences (n > 50: scipy's exact
        # permutation fallback for small tied samples takes seconds)
        x, y = _paired(seed + 100)
        while x.size <= 50:
            x, y = np.concatenate([x, x + 0.3]), np.concatenate([y, y])
        x, y = np.round(x * 4) / 4, np.round(y * 4) / 4
        if not np.any(x != y):
            y = y + 0.25
    zero_method, cc = ("wilcox", "pratt", "zsplit")[seed % 3], bool(seed % 4 == 1)
    ours = wilcoxon(x, y, alternative=alternative, zero_method=zero_method,
                    continuity_correction=cc)
    # our "auto" switches to the normal approximation at n = 50 like R (scipy's at n = 51)
    ref = sps.wilcoxon(x, y, alternative=alternative, zero_method=zero_method, correction=cc,
                       method="asymptotic" if x.size >= 50 else "auto")
    np.testing.assert_allclose([ours.statistic, ours.pvalue], [ref.statistic, ref.pvalue], **TOL)


def test_wilcoxon_methods_equal_scipy() -> None:
    x, y = _paired(3)
    for method in ("exact", "approx", "auto"):
        for alt in ALTERNATIVES:
            ours = wilcoxon(x[:20], y[:20], alternative=alt, method=method)
            ref = sps.wilcoxon(x[:20], y[:20], alternative=alt, method=method)
            np.testing.assert_allclose([ours.statistic, ours.pvalue], [ref.statistic, ref.pvalue], **TOL)


def _r_oracle(oracles) -> dict:
    return json.loads((oracles / "stats_r_oracles.json").read_text())


def test_hodges_lehmann_and_interval_equal_r_wilcox_test(oracles) -> None:
    cases = _r_oracle(oracles)["wilcox"]
    assert len(cases) >= 20
    alt = {"two.sided": "two-sided", "greater": "greater", "less": "less"}
    for case in cases:
        res = wilcoxon(case["d"], alternative=alt[case["alternative"]], level=case["level"])
        assert res.estimate == pytest.approx(case["estimate"], rel=1e-9, abs=1e-12)
        lo = -math.inf if case["ci_low"] is None else case["ci_low"]
        hi = math.inf if case["ci_high"] is None else case["ci_high"]
        assert res.ci_low == pytest.approx(lo, rel=1e-9, abs=1e-12)
        assert res.ci_high == pytest.approx(hi, rel=1e-9, abs=1e-12)


def test_hodges_lehmann_equals_brute_force_walsh_median() -> None:
    """Large n takes the selection path (no materialisation); compare with the full matrix.
    (wilcoxon() itself uses R's normal-approximation roots for n >= 50, within R's tol.root.)"""
    from ranger_eval.stats._hodges_lehmann import hodges_lehmann, walsh_select

    rng = np.random.default_rng(7)
    for n, data in [(1500, rng.normal(size=1500)), (900, rng.integers(-3, 4, 900) / 2.0)]:
        d = np.sort(data)
        w = np.sort((d[:, None] + d[None, :])[np.triu_indices(n)] / 2.0)
        assert hodges_lehmann(d, max_enum=1000) == np.median(w)
        assert hodges_lehmann(d) == np.median(w)
        if n == 1500:
            assert wilcoxon(d).estimate == pytest.approx(np.median(w), abs=2e-4)
        for k in rng.integers(1, w.size + 1, 6):
            assert walsh_select(d, int(k), max_enum=1000) == w[k - 1]


@pytest.mark.parametrize("seed", CASES)
@pytest.mark.parametrize("alternative", ALTERNATIVES)
def test_mannwhitney_equals_scipy(seed: int, alternative: str) -> None:
    x, y = _unpaired(seed)
    if seed % 2:
        x, y = np.round(x), np.round(y)
    method = ("auto", "asymptotic", "exact")[seed % 3] if seed % 2 == 0 else "asymptotic"
    ours = mannwhitney(x, y, alternative=alternative, method=method, use_continuity=seed % 5 != 0)
    ref = sps.mannwhitneyu(
        x, y, alternative=alternative, method=method, use_continuity=seed % 5 != 0
    )
    np.testing.assert_allclose([ours.statistic, ours.pvalue], [ref.statistic, ref.pvalue], **TOL)
    assert ours.estimate == pytest.approx(ref.statistic / (x.size * y.size))


@pytest.mark.parametrize("seed", CASES)
@pytest.mark.parametrize("alternative", ALTERNATIVES)
def test_sign_test_equals_binomial_and_statsmodels(seed: int, alternative: str) -> None:
    x, y = _paired(seed)
    x, y = np.round(x, 1), np.round(y, 1)
    d = x - y
    ours = sign_test(x, y, alternative=alternative)
    n_pos, n_neg = int((d > 0).sum()), int((d < 0).sum())
    ref = sps.binomtest(n_pos, n_pos + n_neg, 0.5, alternative=alternative).pvalue
    assert ours.pvalue == pytest.approx(ref, rel=1e-10)
    assert ours.statistic == n_pos
    if alternative == "two-sided":
        assert ours.pvalue == pytest.approx(sm_sign_test(d, 0)[1], rel=1e-10)


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
            # still subtracts 1 (tests/stats/test_stats_r_branches.py checks R's values)
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


@pytest.mark.parametrize("seed", CASES)
@pytest.mark.parametrize("alternative", ALTERNATIVES)
def test_proportions_ztest_equals_statsmodels(seed: int, alternative: str) -> None:
    rng = np.random.default_rng(3000 + seed)
    nobs = rng.integers(10, 500, 2)
    count = np.array([rng.integers(1, nobs[0]), rng.integers(1, nobs[1])])
    value = float(rng.uniform(-0.1, 0.1)) if seed % 3 == 0 else None
    ours = proportions_ztest(count, nobs, value=value, alternative=alternative)
    ref = sm_ztest(count, nobs, value, alternative=SM_ALT[alternative])
    np.testing.assert_allclose([ours.statistic, ours.pvalue], ref, **TOL)
    p0 = float(rng.uniform(0.1, 0.9))
    ours1 = proportions_ztest(count[0], nobs[0], value=p0, alternative=alternative)
    ref1 = sm_ztest(count[0], nobs[0], p0, alternative=SM_ALT[alternative])
    np.testing.assert_allclose([ours1.statistic, ours1.pvalue], ref1, **TOL)
    ours2 = proportions_ztest(count, nobs, alternative=alternative, prop_var=0.4)
    ref2 = sm_ztest(count, nobs, alternative=SM_ALT[alternative], prop_var=0.4)
    np.testing.assert_allclose([ours2.statistic, ours2.pvalue], ref2, **TOL)


def test_result_object_is_frozen_and_reports() -> None:
    x, y = _paired(1)
    res = paired_ttest(x, y)
    with pytest.raises(AttributeError):
        res.pvalue = 0.5  # type: ignore[misc]
    assert res.confidence_interval() == (res.ci_low, res.ci_high)
    assert res.to_dict()["test"] == "paired t-test"
    assert "test:paired t-test" in res.signature and "ranger-eval:" in res.signature
    with pytest.raises(ValueError, match="does not define"):
        sign_test(x, y).confidence_interval()


def test_continuity_correction_is_its_own_word() -> None:
    """``correction`` is the multiplicity procedure everywhere (issue 19); the continuity
    correction of McNemar's and Wilcoxon's tests is ``continuity_correction``."""
    from ranger_eval.errors import RenamedKeywordError

    x, y = [1, 1, 0, 1, 0, 1], [0, 1, 0, 0, 0, 1]
    with pytest.raises(RenamedKeywordError, match="'correction': it is called 'continuity_correction'"):
        mcnemar(x, y, exact=False, correction=False)  # type: ignore[call-arg]
    with pytest.raises(RenamedKeywordError, match="wilcoxon.*'continuity_correction'"):
        wilcoxon([0.1, 0.3, -0.2, 0.5], correction=True)  # type: ignore[call-arg]
