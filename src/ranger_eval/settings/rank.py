"""The settings of the rankings: :class:`RankSettings` (``ranger-eval rank``), :class:`WinRateSettings`,
:class:`RankIntervalSettings`, :class:`ErrorReductionSettings` and Søgaard's cross-dataset
analyses, :class:`CrossDatasetSettings` and :class:`PredictiveCheckSettings`."""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from numbers import Integral
from typing import Any, ClassVar

from ..errors import Hint, SettingsError
from ._base import (
    APPROACHES,
    COMPARE_TESTS,
    MAX_RESAMPLES,
    MEASURES,
    META_METHODS,
    MISSING,
    POSTHOCS,
    RANK_ORDERS,
    ROPE_MODES,
    _Bad,
    _bool,
    _choice,
    _correction,
    _direction,
    _level,
    _name,
    _prior_strength,
    _rank_rope,
    _setting,
    _Settings,
    _weights,
    _whole,
)


@dataclass(frozen=True)
class RankSettings(_Settings):
    """The settings of ``ranger-eval rank``: the IBM post-op ranking
    (:func:`~ranger_eval.aggregate.rank_systems`) and Demšar's rank test
    (:func:`~ranger_eval.aggregate.rank_test`); YAML section ``aggregate:``. The ``signature``
    keys are those of the ranking's signature (:attr:`Ranking.signature
    <ranger_eval.aggregate.Ranking.signature>`, in field order: order, test, corr, alpha,
    n_resamples, seed, weights); ``posthoc`` is the rank test's.

    Parameters
    ----------
    comparisons : str, default 'successive'
        successive, all or first-vs-rest (per-item scores).
    test : str, default 'auto'
        Pairwise test (as compare).
    correction : str, default 'holm-sidak'
        Multiplicity correction of the pairwise tests.
    level : float, default 0.95
        Confidence level; the tests are significant at alpha = 1 - level.
    n_resamples : int, default 10000
        Resamples of the permutation/bootstrap tests, 1 to 10^8.
    seed : int, default 0
        Seed of resampling tests, ≥ 0.
    weights : Mapping[str, float], optional
        Metric weights of the aggregate metric.
    higher_is_better : Mapping[str, bool] | bool, optional
        Whether higher values are better, for every metric (the YAML also takes a mapping of
        metric to true/false; default: known metric names decide, else true).
    dataset_weights : Mapping[str, float], optional
        Weights of the datasets in the aggregation (default: equal).
    posthoc : str, default 'nemenyi'
        nemenyi, bonferroni-dunn, holm, wilcoxon or conover.
    control : str, optional
        Control system (bonferroni-dunn, holm).
    tie_correction : bool, default True
        Divide Friedman's statistic by its tie correction, as R friedman.test,
        scipy.stats.friedmanchisquare and autorank do; false: Demšar's untied formula (the rank
        test's signature records it).
    approach : str, default 'frequentist'
        frequentist (Friedman and a post-hoc test) or bayesian (autorank: the Bayesian signed-
        rank test of every pair with a ROPE; decisions at probability level).
    rope : float, default 0.1
        Bayesian approach: half-width of the region of practical equivalence, ≥ 0 (times each
        pair's pooled SD or MAD with rope_mode effsize; in the metric's units with absolute).
    rope_mode : str, default 'effsize'
        Bayesian approach: effsize (rope × pooled SD, or × pooled MAD·1.4826 when a system is
        not normal; autorank) or absolute.
    bradley_terry : bool, default True
        Also write a Bradley–Terry leaderboard (bradley_terry.md/.csv/.tex, ratings figure):
        every item a battle between every pair of systems on the rank's metric (the aggregate
        with several metrics; every dataset with a dataset-level table), equal scores a tie;
        1,000 bootstrap rounds at the seed.
    prior : float, default 0.5
        Bayesian approach: Dirichlet prior strength of the pseudo-observation 0, > 0.
    n_draws : int, default 50000
        Bayesian approach: posterior draws per pair, 1 to 10^8.

    Raises
    ------
    SettingsError
        A refused value or combination, naming the key and the value.

    Examples
    --------
    >>> from ranger_eval.settings import RankSettings
    >>> settings = RankSettings(posthoc="holm", control="a")
    >>> settings.posthoc, settings.alpha
    ('holm', 0.05)
    >>> RankSettings(level=1.5)
    Traceback (most recent call last):
    ...
    ranger_eval.errors.SettingsError: level: must be strictly between 0 and 1 (e.g. 0.95); got 1.5
    """

    command: ClassVar[str] = "rank"
    section: ClassVar[str] = "aggregate"

    comparisons: str = _setting(
        "successive", "successive, all or first-vs-rest (per-item scores).",
        _choice(RANK_ORDERS, "comparisons"), signature="order")
    test: str = _setting(
        "auto", "Pairwise test (as compare).", _choice(COMPARE_TESTS, "test"), signature="test")
    correction: str = _setting(
        "holm-sidak", "Multiplicity correction of the pairwise tests.", _correction,
        signature="corr")
    level: float = _setting(
        0.95, "Confidence level; the tests are significant at alpha = 1 - level.", _level,
        yaml="both", signature="level")
    n_resamples: int = _setting(
        10_000, "Resamples of the permutation/bootstrap tests, 1 to 10^8.",
        _whole(1, MAX_RESAMPLES), cli=False, signature="n_resamples")
    seed: int | None = _setting(0, "Seed of resampling tests, ≥ 0.", _whole(0, optional=True),
                                signature="seed")
    weights: Mapping[str, float] | None = _setting(
        None, "Metric weights of the aggregate metric.", _weights, cli=False,
        signature="weights")
    higher_is_better: Mapping[str, bool] | bool | None = _setting(
        None, "Whether higher values are better, for every metric (the YAML also takes a "
        "mapping of metric to true/false; default: known metric names decide, else true).",
        _direction, metavar="true|false")
    dataset_weights: Mapping[str, float] | None = _setting(
        None, "Weights of the datasets in the aggregation (default: equal).", _weights,
        cli=False)
    posthoc: str = _setting(
        "nemenyi", "nemenyi, bonferroni-dunn, holm, wilcoxon or conover.",
        _choice(POSTHOCS, "post-hoc test"), signature="posthoc")
    control: str | None = _setting(
        None, "Control system (bonferroni-dunn, holm).", _name)
    tie_correction: bool = _setting(
        True, "Divide Friedman's statistic by its tie correction, as R friedman.test, "
        "scipy.stats.friedmanchisquare and autorank do; false: Demšar's untied formula "
        "(the rank test's signature records it).", _bool, metavar="true|false")
    approach: str = _setting(
        "frequentist", "frequentist (Friedman and a post-hoc test) or bayesian (autorank: the "
        "Bayesian signed-rank test of every pair with a ROPE; decisions at probability level).",
        _choice(APPROACHES, "approach"))
    rope: float = _setting(
        0.1, "Bayesian approach: half-width of the region of practical equivalence, ≥ 0 (times "
        "each pair's pooled SD or MAD with rope_mode effsize; in the metric's units with "
        "absolute).", _rank_rope)
    rope_mode: str = _setting(
        "effsize", "Bayesian approach: effsize (rope × pooled SD, or × pooled MAD·1.4826 when a "
        "system is not normal; autorank) or absolute.", _choice(ROPE_MODES, "rope mode"))
    bradley_terry: bool = _setting(
        True, "Also write a Bradley–Terry leaderboard (bradley_terry.md/.csv/.tex, ratings "
        "figure): every item a battle between every pair of systems on the rank's metric (the "
        "aggregate with several metrics; every dataset with a dataset-level table), equal "
        "scores a tie; 1,000 bootstrap rounds at the seed.", _bool, metavar="true|false")
    prior: float = _setting(
        0.5, "Bayesian approach: Dirichlet prior strength of the pseudo-observation 0, > 0.",
        _prior_strength)
    n_draws: int = _setting(
        50_000, "Bayesian approach: posterior draws per pair, 1 to 10^8.",
        _whole(1, MAX_RESAMPLES))

    def _check_combinations(self) -> None:
        """The Bayesian approach has no post-hoc test, control or Friedman tie correction and
        needs a seed and a level above 0.5 (a decision's probability must exceed the other two
        outcomes together); the frequentist approach has no ROPE, prior or posterior draws. A
        value at its default is no clash."""
        defaults = RankSettings.__dataclass_fields__
        if self.approach == "bayesian":
            for name in ("posthoc", "control", "tie_correction"):
                if getattr(self, name) != defaults[name].default:
                    raise SettingsError(
                        f"{name}: {getattr(self, name)!r} belongs to the frequentist rank test; "
                        "approach='bayesian' decides every pair by the Bayesian signed-rank "
                        f"test (leave {name} out, or use approach='frequentist')")
            if self.seed is None:
                raise SettingsError("seed: approach='bayesian' draws its posterior samples "
                                    "with a seed (a whole number ≥ 0); got None")
            if not self.level > 0.5:
                raise SettingsError(
                    f"level: approach='bayesian' decides when a posterior probability reaches "
                    f"level, which must be above 0.5 (e.g. 0.95); got {self.level!r}")
            return
        for name in ("rope", "rope_mode", "prior", "n_draws"):
            if getattr(self, name) != defaults[name].default:
                hint = Hint("approach", "bayesian")
                raise SettingsError(
                    f"{name}: {getattr(self, name)!r} is only used by the Bayesian rank test; "
                    f"{hint.text}, or leave {name} out", hints=[hint])

    @property
    def alpha(self) -> float:
        """The significance level 1 − ``level``, derived (never a second setting)."""
        return round(1.0 - self.level, 12)


#: Largest ``n_resamples`` of :func:`~ranger_eval.aggregate.win_rate` (its replicates are held
#: in memory, replicates × systems floats).
MAX_WIN_RATE_RESAMPLES = 10_000_000


@dataclass(frozen=True)
class WinRateSettings(_Settings):
    """The settings of :func:`~ranger_eval.aggregate.win_rate` (HELM's mean win rates and their
    bootstrap interval). Python only: ``ranger-eval rank`` runs the win rates at its own
    ``level``, ``seed`` and direction with these defaults for the rest (1,000 replicates).

    Not :class:`RankSettings`: the win rate's bootstrap has 1,000 replicates by default where
    the rank command's resampling tests have 10,000 (``RankSettings.n_resamples``), and 0 is
    allowed (no interval); one class per default keeps every number as it was.

    Parameters
    ----------
    higher_is_better : bool, default True
        Whether the larger score wins.
    level : float, default 0.95
        Level of the percentile-bootstrap interval.
    n_resamples : int, default 1000
        Bootstrap replicates of the interval, 0 (no interval) to 10^7.
    seed : int, default 0
        Seed of numpy's default_rng, ≥ 0 (None: fresh entropy).

    Raises
    ------
    SettingsError
        A refused value or combination, naming the key and the value.

    Examples
    --------
    >>> from ranger_eval.settings import WinRateSettings
    >>> settings = WinRateSettings(n_resamples=0)
    >>> settings.n_resamples, settings.level
    (0, 0.95)
    >>> WinRateSettings(seed=-1)
    Traceback (most recent call last):
    ...
    ranger_eval.errors.SettingsError: seed: must be a whole number ≥ 0; got -1
    """

    command: ClassVar[str] = "win_rate"
    section: ClassVar[str] = "win_rate"

    higher_is_better: bool = _setting(
        True, "Whether the larger score wins.", _bool, cli=False, yaml=None)
    level: float = _setting(
        0.95, "Level of the percentile-bootstrap interval.", _level, cli=False, yaml=None,
        signature="level")
    n_resamples: int = _setting(
        1000, "Bootstrap replicates of the interval, 0 (no interval) to 10^7.",
        _whole(0, MAX_WIN_RATE_RESAMPLES), cli=False, yaml=None, signature="n_resamples")
    seed: int | None = _setting(
        0, "Seed of numpy's default_rng, ≥ 0 (None: fresh entropy).", _whole(0, optional=True),
        cli=False, yaml=None, signature="seed")


@dataclass(frozen=True)
class RankIntervalSettings(_Settings):
    """The settings of :func:`~ranger_eval.comparison.rank_intervals` (simultaneous intervals
    of the ranks by the paired joint bootstrap). Python only; ``ranger-eval compare``'s box
    plots run it at the comparison's level and seed with ``min(n_resamples, 2000)`` resamples.

    Not :class:`CompareSettings`: the joint bootstrap of the ranks has 2,000 resamples by
    default where compare's tests have 10,000; a class of its own keeps that default (and every
    number) as it was.

    Parameters
    ----------
    level : float, default 0.95
        Joint confidence level of the k rank intervals.
    n_resamples : int, default 2000
        Resamples of the joint bootstrap, 1 to 10^8.
    seed : int, default 0
        Seed of the bootstrap, ≥ 0 (None: fresh entropy).

    Raises
    ------
    SettingsError
        A refused value or combination, naming the key and the value.

    Examples
    --------
    >>> from ranger_eval.settings import RankIntervalSettings
    >>> settings = RankIntervalSettings(level=0.9)
    >>> settings.level, settings.n_resamples
    (0.9, 2000)
    >>> RankIntervalSettings(n_resamples=0)
    Traceback (most recent call last):
    ...
    ranger_eval.errors.SettingsError: n_resamples: must be a whole number from 1 to ...
    """

    command: ClassVar[str] = "rank_intervals"
    section: ClassVar[str] = "rank_intervals"

    level: float = _setting(
        0.95, "Joint confidence level of the k rank intervals.", _level, cli=False, yaml=None,
        signature="level")
    n_resamples: int = _setting(
        2000, "Resamples of the joint bootstrap, 1 to 10^8.", _whole(1, MAX_RESAMPLES),
        cli=False, yaml=None, signature="n_resamples")
    seed: int | None = _setting(
        0, "Seed of the bootstrap, ≥ 0 (None: fresh entropy).", _whole(0, optional=True),
        cli=False, yaml=None, signature="seed")


@dataclass(frozen=True)
class ErrorReductionSettings(_Settings):
    """The settings of :func:`~ranger_eval.aggregate.error_reduction` (Søgaard's error
    reduction per dataset and its paired-bootstrap variance). Python only.

    Not :class:`MetaSettings`: the error reduction's variance has 50 bootstrap resamples by
    default (Søgaard's protocol) where meta's set-level effects have 1,000.

    Parameters
    ----------
    n_resamples : int, default 50
        Paired bootstrap resamples of each dataset's variance, 2 to 10^8.
    seed : int, default 0
        Seed of the bootstrap, ≥ 0.
    missing : str, default 'error'
        Items one system lacks: error (listing them) or intersect (the common items).

    Raises
    ------
    SettingsError
        A refused value or combination, naming the key and the value.

    Examples
    --------
    >>> from ranger_eval.settings import ErrorReductionSettings
    >>> settings = ErrorReductionSettings(n_resamples=100)
    >>> settings.n_resamples, settings.missing
    (100, 'error')
    >>> ErrorReductionSettings(n_resamples=1)
    Traceback (most recent call last):
    ...
    ranger_eval.errors.SettingsError: n_resamples: must be a whole number from 2 to ...
    """

    command: ClassVar[str] = "error_reduction"
    section: ClassVar[str] = "error_reduction"

    n_resamples: int = _setting(
        50, "Paired bootstrap resamples of each dataset's variance, 2 to 10^8.",
        _whole(2, MAX_RESAMPLES), cli=False, yaml=None, signature="n_resamples")
    seed: int = _setting(0, "Seed of the bootstrap, ≥ 0.", _whole(0), cli=False, yaml=None,
                         signature="seed")
    missing: str = _setting(
        "error", "Items one system lacks: error (listing them) or intersect (the common items).",
        _choice(MISSING, "missing policy"), cli=False, yaml=None)


#: The per-dataset effects of :func:`~ranger_eval.aggregate.predictive_check` computed from
#: scores: Søgaard's error reduction or an ``effect_sizes`` measure.
CROSS_DATASET_EFFECTS: tuple[str, ...] = ("error_reduction", *MEASURES)
#: The weights of Søgaard's Gumbel estimator: ``1/v`` (fixed effect) or ``1/(v + τ²)``.
GUMBEL_WEIGHTS: tuple[str, ...] = ("FE", "RE")


def _ks(value: Any) -> tuple[int, ...]:
    """One number of estimation datasets or several (→ tuple), each ≥ 1, none twice."""
    if isinstance(value, Integral) and not isinstance(value, bool):
        values: tuple[Any, ...] = (value,)
    elif isinstance(value, (str, bytes, Mapping)) or not hasattr(value, "__iter__"):
        raise _Bad(f"must be a whole number ≥ 1 or a list of them; got {value!r}")
    else:
        values = tuple(value)
    if not values:
        raise _Bad("must list at least one number of estimation datasets; got none")
    out = tuple(int(_whole(1)(v)) for v in values)
    if len(set(out)) != len(out):
        raise _Bad(f"lists a value twice: {list(out)}")
    return out


@dataclass(frozen=True)
class CrossDatasetSettings(_Settings):
    """The settings of :func:`~ranger_eval.aggregate.cross_dataset_estimates` (Søgaard's five
    cross-dataset estimates: macro, micro, fixed, random, Gumbel). Python only. The
    ``signature`` keys are those of the result's signature (method, level, weights =
    ``gumbel:FE``).

    Not :class:`MetaSettings`: the random-effects τ² estimator defaults to DerSimonian–Laird
    (Søgaard's §2.2, eq. 1) where meta's is REML; a class of its own keeps every number.

    Parameters
    ----------
    method : str, default 'DL'
        τ² estimator of the random-effects estimate (any of meta_analysis').
    level : float, default 0.95
        Level of the intervals.
    gumbel_weights : str, default 'FE'
        Weights of the Gumbel estimator: FE (1/v) or RE (1/(v + τ²)).

    Raises
    ------
    SettingsError
        A refused value or combination, naming the key and the value.

    Examples
    --------
    >>> from ranger_eval.settings import CrossDatasetSettings
    >>> settings = CrossDatasetSettings(method="reml")
    >>> settings.method, settings.level, settings.gumbel_weights
    ('REML', 0.95, 'FE')
    >>> CrossDatasetSettings(gumbel_weights="x")
    Traceback (most recent call last):
    ...
    ranger_eval.errors.SettingsError: gumbel_weights: unknown Gumbel weights 'x'; use one of FE, RE
    """

    command: ClassVar[str] = "cross_dataset_estimates"
    section: ClassVar[str] = "cross_dataset_estimates"

    method: str = _setting(
        "DL", "τ² estimator of the random-effects estimate (any of meta_analysis').",
        _choice(META_METHODS, "τ² estimator", ignore_case=True), cli=False, yaml=None,
        signature="method")
    level: float = _setting(
        0.95, "Level of the intervals.", _level, cli=False, yaml=None, signature="level")
    gumbel_weights: str = _setting(
        "FE", "Weights of the Gumbel estimator: FE (1/v) or RE (1/(v + τ²)).",
        _choice(GUMBEL_WEIGHTS, "Gumbel weights"), cli=False, yaml=None, signature="weights")


@dataclass(frozen=True)
class PredictiveCheckSettings(_Settings):
    """The settings of :func:`~ranger_eval.aggregate.predictive_check` (Søgaard's held-out
    evaluation of the cross-dataset estimators, §3). Python only. The ``signature`` keys are
    those of the result's signature (k, method_detail = ``holdout:n_test=N``, n_resamples,
    seed, measure, method, weights).

    ``n_resamples`` counts the repeated random splits per k (Søgaard's 20), the glossary's
    word for every resampling count. The error reduction's bootstrap computed from scores has
    :class:`ErrorReductionSettings`' default (50); another count is
    ``error_reduction(..., n_resamples=B)`` passed as the data.

    Parameters
    ----------
    k : tuple of int, default (5, 10, 20)
        Numbers of estimation datasets (one or several, each ≥ 1).
    n_test : int, default 5
        Held-out datasets per split, ≥ 1.
    n_resamples : int, default 20
        Random splits per k (Søgaard's 20), 2 to 10^8.
    seed : int, default 0
        Seed of the splits and of the error-reduction bootstrap, ≥ 0.
    effect : str, default 'error_reduction'
        Per-dataset effect computed from scores: error_reduction, MD, SMD, SMCC, SMCR or ZCOR.
    method : str, default 'DL'
        τ² estimator of the random-effects estimate (any of meta_analysis').
    gumbel_weights : str, default 'FE'
        Weights of the Gumbel estimator: FE (1/v) or RE (1/(v + τ²)).

    Raises
    ------
    SettingsError
        A refused value or combination, naming the key and the value.

    Examples
    --------
    >>> from ranger_eval.settings import PredictiveCheckSettings
    >>> settings = PredictiveCheckSettings(k=3, n_resamples=50)
    >>> settings.k, settings.n_resamples, settings.n_test
    ((3,), 50, 5)
    >>> PredictiveCheckSettings(n_resamples=1)
    Traceback (most recent call last):
    ...
    ranger_eval.errors.SettingsError: n_resamples: must be a whole number from 2 to ...
    """

    command: ClassVar[str] = "predictive_check"
    section: ClassVar[str] = "predictive_check"

    k: tuple[int, ...] = _setting(
        (5, 10, 20), "Numbers of estimation datasets (one or several, each ≥ 1).", _ks,
        cli=False, yaml=None, signature="k")
    n_test: int = _setting(
        5, "Held-out datasets per split, ≥ 1.", _whole(1), cli=False, yaml=None,
        signature="method_detail")
    n_resamples: int = _setting(
        20, "Random splits per k (Søgaard's 20), 2 to 10^8.", _whole(2, MAX_RESAMPLES),
        cli=False, yaml=None, signature="n_resamples")
    seed: int = _setting(
        0, "Seed of the splits and of the error-reduction bootstrap, ≥ 0.", _whole(0),
        cli=False, yaml=None, signature="seed")
    effect: str = _setting(
        "error_reduction", "Per-dataset effect computed from scores: "
        + ", ".join(CROSS_DATASET_EFFECTS[:-1]) + " or " + CROSS_DATASET_EFFECTS[-1] + ".",
        _choice(CROSS_DATASET_EFFECTS, "effect"), cli=False, yaml=None, signature="measure")
    method: str = _setting(
        "DL", "τ² estimator of the random-effects estimate (any of meta_analysis').",
        _choice(META_METHODS, "τ² estimator", ignore_case=True), cli=False, yaml=None,
        signature="method")
    gumbel_weights: str = _setting(
        "FE", "Weights of the Gumbel estimator: FE (1/v) or RE (1/(v + τ²)).",
        _choice(GUMBEL_WEIGHTS, "Gumbel weights"), cli=False, yaml=None, signature="weights")
