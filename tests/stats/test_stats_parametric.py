"""Classical tests against scipy and statsmodels: paired and Welch t-tests, Mann–Whitney, the sign
test, the proportions z-test, the result object. The Wilcoxon signed-rank test is in
test_wilcoxon.py, McNemar's test in test_mcnemar.py."""
from __future__ import annotations

import numpy as np
import pytest
import scipy.stats as sps
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
from tests.helpers.samples import paired_sample as _paired

CASES = range(24)
TOL = dict(rtol=1e-10, atol=1e-12)
SM_ALT = {"two-sided": "two-sided", "greater": "larger", "less": "smaller"}


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
    """``correction`` is the multiplicity procedure everywhere; the continuity
    correction of McNemar's and Wilcoxon's tests is ``continuity_correction``."""
    from ranger_eval.errors import RenamedKeywordError

    x, y = [1, 1, 0, 1, 0, 1], [0, 1, 0, 0, 0, 1]
    with pytest.raises(RenamedKeywordError, match="'correction': it is called 'continuity_correction'"):
        mcnemar(x, y, exact=False, correction=False)  # type: ignore[call-arg]
    with pytest.raises(RenamedKeywordError, match="wilcoxon.*'continuity_correction'"):
        wilcoxon([0.1, 0.3, -0.2, 0.5], correction=True)  # type: ignore[call-arg]
