"""Bad input gives clear errors; degenerate input gives documented results, never NaN."""
from __future__ import annotations

import math

import numpy as np
import pytest

from ranger_eval.stats import (
    SignFlips,
    StatsInputError,
    adjust_pvalues,
    cohens_dz,
    mannwhitney,
    mcnemar,
    paired_bootstrap,
    paired_permutation_test,
    paired_permutation_test_many,
    paired_ttest,
    permutation_test,
    proportions_ztest,
    sign_test,
    welch_ttest,
    wilcoxon,
)

PAIRED = [paired_ttest, wilcoxon, sign_test, paired_permutation_test, paired_bootstrap]


@pytest.mark.parametrize("test", PAIRED + [mcnemar])
def test_different_lengths(test) -> None:
    with pytest.raises(StatsInputError, match="equal lengths: x has 4 items, y has 3"):
        test([1, 0, 1, 1], [0, 1, 1])


@pytest.mark.parametrize("test", PAIRED + [welch_ttest, mannwhitney, permutation_test])
def test_nan_named_with_index(test) -> None:
    with pytest.raises(StatsInputError, match=r"x contains 1 non-finite value.*index 2"):
        test([0.1, 0.2, np.nan, 0.4], [0.3, 0.1, 0.2, 0.5])
    with pytest.raises(StatsInputError, match="y contains"):
        test([0.1, 0.2, 0.3, 0.4], [0.3, np.inf, 0.2, 0.5])


@pytest.mark.parametrize("test", PAIRED)
def test_fewer_than_two_pairs(test) -> None:
    with pytest.raises(StatsInputError, match="at least 2 pairs; got 1"):
        test([0.5], [0.2])
    with pytest.raises(StatsInputError, match="at least 2"):
        test([])


def test_fewer_than_two_items_unpaired() -> None:
    with pytest.raises(StatsInputError, match="x needs at least 2 items; got 1"):
        welch_ttest([1.0], [1.0, 2.0, 3.0])
    with pytest.raises(StatsInputError, match="at least 3 values"):
        mannwhitney([1.0], [2.0])
    with pytest.raises(StatsInputError, match="at least 2 items per pair"):
        paired_permutation_test_many(np.ones((3, 1)))


@pytest.mark.parametrize("test", PAIRED)
def test_identical_systems_defined(test) -> None:
    x = np.array([0.3, 0.5, 0.5, 0.9, 0.1])
    res = test(x, x.copy())
    assert res.pvalue == 1.0
    assert res.statistic == 0.0
    assert res.estimate == 0.0
    assert not any(isinstance(v, float) and math.isnan(v) for v in res.to_dict().values())


def test_constant_scores_defined() -> None:
    x, y = np.full(6, 0.7), np.full(6, 0.2)
    t = paired_ttest(x, y)
    assert (t.statistic, t.pvalue) == (math.inf, 0.0)
    assert t.ci_low == t.ci_high == t.estimate == pytest.approx(0.5)
    assert paired_ttest(x, y, alternative="less").pvalue == 1.0
    w = welch_ttest(x, y)
    assert (w.statistic, w.pvalue, w.df) == (math.inf, 0.0, None)
    assert welch_ttest(x, x).pvalue == 1.0
    assert mannwhitney(x, x).pvalue == 1.0 and mannwhitney(x, x).statistic == 18.0
    assert mcnemar(np.ones(5), np.ones(5)).pvalue == 1.0
    z = proportions_ztest([10, 10], [10, 10])
    assert (z.statistic, z.pvalue) == (0.0, 1.0)
    assert permutation_test(x, x).pvalue == 1.0
    assert cohens_dz(x, x) == 0.0


def test_mcnemar_rejects_non_binary() -> None:
    with pytest.raises(StatsInputError, match=r"x must be binary .* index 1 is 0.5"):
        mcnemar([1, 0.5, 0], [1, 1, 0])
    with pytest.raises(StatsInputError, match=r"y must be binary .* index 0 is 2.0"):
        mcnemar([1, 0, 0], [2, 1, 0])
    with pytest.raises(StatsInputError, match="mid_p=True requires exact=True"):
        mcnemar([1, 0], [0, 1], exact=False, mid_p=True)


@pytest.mark.parametrize("test", PAIRED + [mcnemar])
def test_unknown_alternative_lists_valid(test) -> None:
    with pytest.raises(StatsInputError, match="unknown alternative 'larger': alternative must be one of 'two-sided', 'greater', 'less'"):
        test([1, 0, 1], [0, 0, 1], alternative="larger")


def test_unknown_correction_lists_valid() -> None:
    with pytest.raises(StatsInputError, match=r"unknown correction 'holms'.*'hommel'"):
        adjust_pvalues([0.1, 0.2], correction="holms")
    with pytest.raises(StatsInputError, match="level: must be strictly between"):
        adjust_pvalues([0.1], correction="holm", level=1.5)


def test_unknown_options_list_valid() -> None:
    with pytest.raises(StatsInputError, match="zero_method must be one of 'wilcox'"):
        wilcoxon([1, 2, 3], zero_method="none")
    with pytest.raises(StatsInputError, match="ci_method must be one of 'bca', 'percentile'"):
        paired_bootstrap([1.0, 2.0, 3.0], ci_method="basic")
    with pytest.raises(StatsInputError, match="level: must be strictly between 0 and 1"):
        paired_ttest([1.0, 2.0, 3.0], level=95)


@pytest.mark.parametrize("bad", [0, -5, 2.5, True])
def test_n_resamples_must_be_positive_integer(bad) -> None:
    with pytest.raises(StatsInputError, match="n_resamples must be"):
        paired_permutation_test([0.1, 0.2, 0.3], n_resamples=bad)
    with pytest.raises(StatsInputError, match="n_resamples must be"):
        paired_bootstrap([0.1, 0.2, 0.3], n_resamples=bad)
    with pytest.raises(StatsInputError, match="n_resamples must be"):
        permutation_test([0.1, 0.2], [0.3, 0.4], n_resamples=bad)


def test_bad_seed_batch_and_shapes() -> None:
    with pytest.raises(StatsInputError, match="seed must be None or a non-negative integer"):
        paired_permutation_test([0.1, 0.2, 0.3], seed=-1)
    with pytest.raises(StatsInputError, match="batch must be None or a positive integer"):
        paired_permutation_test([0.1, 0.2, 0.3], batch=0)
    with pytest.raises(StatsInputError, match="one-dimensional"):
        paired_ttest(np.ones((2, 3)))
    with pytest.raises(StatsInputError, match="sequence of numbers"):
        paired_ttest(["a", "b"])
    with pytest.raises(StatsInputError, match="SignFlips has n=5"):
        SignFlips(5, 100).count_extreme(np.ones((2, 4)))
    with pytest.raises(StatsInputError, match="pair 1, item 2"):
        paired_permutation_test_many([[0.1, 0.2, 0.3], [0.1, 0.2, np.nan]])


def test_proportions_bad_counts() -> None:
    with pytest.raises(StatsInputError, match="0 <= count <= nobs"):
        proportions_ztest([12, 3], [10, 10])
    with pytest.raises(StatsInputError, match="value .* must be given"):
        proportions_ztest(3, 10)
    with pytest.raises(StatsInputError, match="1 or 2 counts"):
        proportions_ztest([1, 2, 3], [10, 10, 10])
