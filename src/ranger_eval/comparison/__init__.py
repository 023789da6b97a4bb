"""Multi-system comparison: pairwise tests per dataset × metric, multiplicity, effect sizes.

``compare(scores, ...)`` runs one two-system test per dataset × metric × pair of systems, adjusts
the p-values for multiplicity within a *family* of tests and returns a :class:`Comparison`.

Test selection (``test="auto"``) follows the decision table of the IBM multi-metric framework
(Ackerman et al. 2025, "Statistical multi-metric evaluation and visualization of LLM system
predictive performance"):

============================  =====================  ==========================
data                          paired (same item ids)  unpaired
============================  =====================  ==========================
numeric                       paired t-test           Welch's t-test
binary (every value 0 or 1)   McNemar's exact test    two-proportion z-test
============================  =====================  ==========================

The chosen test is recorded on every row. Explicit tests: ``"paired-t"``, ``"welch"``,
``"wilcoxon"``, ``"sign"``, ``"mannwhitney"``, ``"mcnemar"``, ``"proportions-z"``,
``"permutation"`` (paired sign-flip when paired, otherwise a two-sample permutation test) and
``"bootstrap"`` (paired bootstrap of the mean difference, BCa interval, shift-method p-value;
paired data only).

Conventions
-----------
* Orientation: ``diff = mean_a - mean_b``; ``alternative="greater"`` means system A scores higher.
  ``pairs="all"`` takes the systems in their given order (A before B); ``"successive"`` orders
  them by mean, highest first, and compares each with the next (so ``diff >= 0``);
  ``"baseline"`` compares every other system (A) with the baseline (B), so ``diff > 0`` means the
  system beats the baseline.
* Pairing is by item id. ``paired=None`` pairs two systems when they score the same item ids and
  treats them as independent samples when their items are disjoint; a partial overlap is an error
  listing the ids (``missing="intersect"`` keeps the common items, with a warning).
* Seeds: with a ``seed`` column the per-item value of a system is the mean over its seeds *before*
  testing (items, not seeds, are the unit of replication). ``seed_sd_a``/``seed_sd_b`` report the
  standard deviation (ddof=1) over seeds of the per-seed mean score: the run-to-run variability the
  test does not see. They are NaN without a seed column or with a single seed. Unbalanced seeds
  (systems of a dataset × metric with different numbers of seeds, or a seed that did not score
  every item of its system) are an error naming the systems and their seed counts, unless
  ``seeds="allow-unbalanced"``.
* Set-level metrics (``metric_fn="mcc"``, ``"macro_f1"``, ``"pearson"``, a callable …;
  :mod:`ranger_eval.setmetrics`): the test is on the metric itself, computed from the items'
  ``label`` and ``prediction`` columns; ``diff`` = metric(A) − metric(B) (means over seeds) and
  the ``metric`` column names the set metric. ``test="permutation"`` (also chosen by ``"auto"``)
  is the paired approximate-randomisation test: each resample swaps the two systems'
  predictions on the items whose :class:`~ranger_eval.stats.resampling.SignFlips` bit is set (all
  2^n swaps when 2^n <= n_resamples, p = #{|T*| >= |T|}/2^n; else p = (1 + #)/(1 + B); Noreen
  1989, Riezler & Maxwell 2005). ``test="bootstrap"`` is the paired bootstrap with the shift
  method, p = (1 + #{|T* − T| >= |T|})/(1 + B) (Efron & Tibshirani 1993, sec. 16.4; Koehn 2004),
  on :class:`~ranger_eval.stats.resampling.BootstrapIndices`. Both report the bootstrap
  percentile interval of the difference and the effect size d_z(boot) = diff / (sqrt(n)·SE*),
  SE* the bootstrap standard error (for a mean this is Cohen's d_z = mean(d)/sd(d)). With seeds
  the statistic is the mean over seed pairs (natural order) of the per-seed differences, and a
  permutation swaps an item in every seed at once; every seed must score every item.
* Hypotheses (``hypothesis=``, :mod:`ranger_eval.comparison.hypothesis`): ``"superiority"``
  (the default: the tests above) or, with a ``margin`` in the metric's units,
  ``"non-inferiority"`` (system A worse than B by less than the margin, in the metric's
  direction; one-sided) and ``"equivalence"`` (two one-sided tests; ``pvalue`` is the larger
  one-sided p-value). ``test="auto"`` chooses as above and takes each test's margin version:
  two one-sided paired t / Welch t tests, the Miettinen–Nurminen score test of two proportions,
  Tango's score test of paired 0/1 scores (where superiority uses McNemar); with clusters, the
  two one-sided cluster-robust t tests. The rank, permutation and bootstrap tests have no margin
  version here and are refused. ``significant`` means the hypothesis is shown; the interval is
  the one the test inverts (each finite side at ``level``).
* Confidence intervals are at ``level``, unadjusted for multiplicity, and column ``ci_method``
  names each one. The test's own interval where the test defines one: the t intervals of the
  mean difference for the t-tests, the BCa interval for the bootstrap, and for the Wilcoxon
  signed-rank test the Hodges–Lehmann interval of the pseudo-median of the differences
  (``"Hodges-Lehmann"``; R's ``wilcox.test(conf.int=TRUE)``, :func:`ranger_eval.stats.wilcoxon`,
  at the level R achieves when ``level`` is not achievable with few items, with a warning).
  McNemar rows carry Tango's (1998) score interval of p_a − p_b for paired 0/1 scores
  (``"Tango score"``; :func:`ranger_eval.stats.tango_interval`, R ``ratesci::pairbinci``; the
  score test it inverts is McNemar's at θ = 0; the p-value stays McNemar's exact one): it
  stays in [−1, 1], does not collapse to a point when no pair is discordant, and held its
  coverage at n = 15 where the paired t interval these rows carried before did not
  (benchmarks/interval_coverage.py). The sign, Mann–Whitney and permutation tests define no
  interval of the mean difference: theirs is the paired t interval (paired data) or the Welch
  interval (unpaired), so named; the two-proportion z-test has the Wald interval of p_a - p_b
  (``statsmodels.stats.proportion.confint_proportions_2indep``).
* Effect sizes: Cohen's h = 2 asin(sqrt(p_a)) - 2 asin(sqrt(p_b)) for binary data; for numeric
  data Cohen's d_z = mean(d)/sd(d) when paired (as the IBM framework, t/sqrt(n)) and Cohen's d
  with the pooled SD when unpaired (:mod:`ranger_eval.stats.effectsize`). Labels follow
  Sawilowsky (2009): negligible < 0.01 ≤ very small < 0.2 ≤ small < 0.5 ≤ medium < 0.8 ≤ large
  < 1.2 ≤ very large < 2 ≤ huge.
* Multiplicity: ``correction`` is any method of ``statsmodels.stats.multitest.multipletests``
  (default ``"holm-sidak"``) or ``"none"``, applied within each family: ``"dataset-metric"``
  (the pairs of one dataset and metric), ``"dataset"`` or ``"all"``. A row is ``significant``
  when its adjusted p-value is at most alpha = 1 - level. ``"westfall-young"`` is Westfall &
  Young's (1993, Algorithm 2.8) step-down max-T adjustment from the joint sign-flip null of a
  dataset × metric (paired permutation tests, ``family="dataset-metric"`` only).
* Engine: each dataset × metric is aligned once into an items × systems matrix (item ids
  factorised to sorted integer codes; a table in blocks of one dataset, metric and system is
  encoded from its block heads and one copy of each item list, by Arrow); all pairs of one test
  and one shape are tested together with row operations and vectorised scipy calls
  (:mod:`ranger_eval.stats.many`), giving the same numbers, bit for bit, as the one-pair
  functions of :mod:`ranger_eval.stats`. Paired moments (mean and centred sum of squares of the
  differences, :func:`~ranger_eval.stats.many.paired_moments`) serve the paired t test, the
  paired t intervals and d_z; one ``stdtr``/``stdtrit`` call covers every dataset × metric.
* Resampling tests draw one sign-flip (or index) matrix, defined by the number of items, the
  number of resamples and the seed, so every pair with the same items sees the same resamples.
  Paired permutation tests of all dataset × metric groups with the same number of items share
  it: one product per batch of sign vectors with the systems' scores
  (:meth:`~ranger_eval.stats.resampling.SignFlips.count_pairs`, the same counts as the pairwise
  float64 product, proven by a rounding-error bound with exact recomputation inside it).

Modules
-------
:mod:`.compare` (``compare``: settings → groups → tests → table), :mod:`.choices` (the menus and
the table's columns), :mod:`.dispatch` (one pair: its data, the test chosen, one-pair tests with
their intervals and effect sizes), :mod:`.engine` (all pairs of a dataset × metric at once, and
the work shared by every group), :mod:`.fastpath` (paired t on a complete table in one pass),
:mod:`.setmetric` (``metric_fn=``), :mod:`.multiplicity` (adjustment within families),
:mod:`.results` (:class:`Comparison`), :mod:`.leaderboard` (:class:`Leaderboard`),
:mod:`.intervals` (:func:`rank_intervals`). The items × systems alignment and the pair lists are
:mod:`ranger_eval.pairing`, shared with :mod:`ranger_eval.lazy`.
"""
from __future__ import annotations

from ..errors import CompareError
from .choices import ALTERNATIVES as ALTERNATIVES
from .choices import BINARY_ONLY as BINARY_ONLY
from .choices import COLUMNS, TESTS
from .choices import FAMILIES as FAMILIES
from .choices import MISSING as MISSING
from .choices import PAIR_ORDERS as PAIR_ORDERS
from .choices import PAIRED_ONLY as PAIRED_ONLY
from .choices import RESAMPLING as RESAMPLING
from .choices import SEED_POLICIES as SEED_POLICIES
from .choices import UNPAIRED_ONLY as UNPAIRED_ONLY
from .choices import WESTFALL_YOUNG as WESTFALL_YOUNG
from .compare import compare
from .intervals import RankIntervals, rank_intervals
from .leaderboard import Leaderboard, build_leaderboard, metric_directions, system_letters
from .multiplicity import adjust_by_family as adjust_by_family
from .results import Comparison
from .setmetric import declared_set_metrics as declared_set_metrics

__all__ = [
    "COLUMNS",
    "CompareError",
    "Comparison",
    "Leaderboard",
    "RankIntervals",
    "TESTS",
    "build_leaderboard",
    "metric_directions",
    "compare",
    "rank_intervals",
    "system_letters",
]
