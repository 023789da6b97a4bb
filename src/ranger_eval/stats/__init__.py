"""Hypothesis tests, resampling kernels, multiplicity adjustment and effect sizes.

Every test returns a frozen :class:`TestResult` (``statistic``, ``pvalue``, ``estimate``,
``ci_low``/``ci_high``, ``df``, ``n`` ...) and accepts ``alternative`` in
{"two-sided", "greater", "less"}, "greater" meaning the first system scores higher.
"""
from ._validation import ALTERNATIVES, StatsInputError
from .clustered import (
    cluster_bootstrap_many,
    cluster_bootstrap_means,
    cluster_permutation_test_many,
    clustered_mcnemar,
    clustered_mean_test,
    clustered_paired_ttest,
    clustered_signed_rank,
    clustered_ttest_many,
    clustered_unpaired_ttest,
)
from .effectsize import (
    EFFECT_THRESHOLDS,
    cohens_d,
    cohens_dz,
    cohens_h,
    effect_label,
    hedges_g,
    hedges_gz,
    hedges_j,
    significant_by_effect,
)
from .equivalence import (
    MarginTests,
    paired_proportions_margin_tests,
    proportions_margin_tests,
    t_margin_tests,
    tango_interval,
)
from .multiplicity import ADJUST_METHODS, adjust_pvalues
from .resampling import (
    BootstrapIndices,
    SignFlips,
    paired_bootstrap,
    paired_bootstrap_many,
    paired_permutation_test,
    paired_permutation_test_many,
    permutation_test,
)
from .results import ManyTestResult, TestResult
from .tests import (
    mannwhitney,
    mcnemar,
    paired_ttest,
    proportions_ztest,
    sign_test,
    welch_ttest,
    wilcoxon,
)

__all__ = [
    "ALTERNATIVES",
    "ADJUST_METHODS",
    "EFFECT_THRESHOLDS",
    "StatsInputError",
    "TestResult",
    "ManyTestResult",
    "paired_ttest",
    "welch_ttest",
    "wilcoxon",
    "sign_test",
    "mannwhitney",
    "mcnemar",
    "proportions_ztest",
    "clustered_mean_test",
    "clustered_paired_ttest",
    "clustered_unpaired_ttest",
    "clustered_mcnemar",
    "clustered_signed_rank",
    "clustered_ttest_many",
    "cluster_bootstrap_many",
    "cluster_bootstrap_means",
    "cluster_permutation_test_many",
    "SignFlips",
    "BootstrapIndices",
    "paired_permutation_test",
    "paired_permutation_test_many",
    "permutation_test",
    "paired_bootstrap",
    "paired_bootstrap_many",
    "adjust_pvalues",
    "MarginTests",
    "t_margin_tests",
    "tango_interval",
    "proportions_margin_tests",
    "paired_proportions_margin_tests",
    "hedges_j",
    "cohens_dz",
    "hedges_gz",
    "cohens_d",
    "hedges_g",
    "cohens_h",
    "effect_label",
    "significant_by_effect",
]
