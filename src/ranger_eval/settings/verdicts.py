"""The settings of ``ranger-eval aso`` and ``ranger-eval bayes``: :class:`ASOSettings`,
:class:`BayesSettings`."""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from numbers import Real
from typing import Any, ClassVar

from ..errors import SettingsError
from ._base import (
    CLUSTER_SES,
    MAX_RESAMPLES,
    _Bad,
    _bool,
    _choice,
    _level,
    _names,
    _prior_check,
    _rope_check,
    _setting,
    _Settings,
    _whole,
)

#: The multiplicity corrections of the K = k(k − 1)/2 bounds of an ASO matrix: ``bonferroni``
#: (each at 1 − (1 − level)/K), ``deepsig`` (deepsig's ``multi_aso(use_bonferroni=True)`` rule,
#: level + (1 − level)/K, which is not Bonferroni's and is 1 for K = 1) or ``none``.
ASO_CORRECTIONS: tuple[str, ...] = ("bonferroni", "deepsig", "none")
#: The tests of ``ranger-eval bayes`` (baycomp's two_on_single, SignedRankTest, SignTest).
BAYES_TESTS: tuple[str, ...] = ("correlated-t", "signed-rank", "sign")
#: Where the Bayesian sign test puts its prior strength (baycomp's ``SignTest.LEFT/ROPE/RIGHT``).
PRIOR_PLACES: tuple[str, ...] = ("left", "rope", "right")


def _aso_level(value: Any) -> float:
    """The confidence level of ε_min's one-sided bound: in [0.5, 1) (below 0.5 the "upper
    bound" would lie below the estimate)."""
    if isinstance(value, bool) or not isinstance(value, Real) or not 0.5 <= float(value) < 1:
        raise _Bad(f"must be a number in [0.5, 1), e.g. 0.95; got {value!r}")
    return float(value)


def _aso_threshold(value: Any) -> float:
    """τ in (0, 0.5]: ε_min(A, B) + ε_min(B, A) ≥ 1, so with τ ≤ 0.5 at most one direction
    of a pair can pass; above 0.5 both could."""
    if isinstance(value, bool) or not isinstance(value, Real) or not 0 < float(value) <= 0.5:
        raise _Bad(f"must be a number in (0, 0.5] (Dror et al. 2019 suggest 0.2; above 0.5 "
                   f"both directions of a pair could pass, since ε_min(A, B) + ε_min(B, A) ≥ 1)"
                   f"; got {value!r}")
    return float(value)


#: The ROPE and prior of ``ranger-eval bayes``.
_rope = _rope_check("in the metric's units")
_prior_weight = _prior_check("the Dirichlet prior strength", optional=True)


def _probability_level(value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, Real) or not 0.5 < float(value) < 1:
        raise _Bad(f"must be a probability in (0.5, 1), e.g. 0.95 (a verdict needs one outcome "
                   f"more probable than the other two together); got {value!r}")
    return float(value)


@dataclass(frozen=True)
class _Selection(_Settings):
    """What ``ranger-eval aso`` and ``bayes`` compare: the direction, and which datasets,
    metrics and systems (every one by default)."""

    higher_is_better: bool = _setting(
        True, "Whether higher scores are better.", _bool, yaml=None, metavar="true|false")
    datasets: Sequence[str] | None = _setting(
        None, "Dataset(s), comma-separated (default: all).", _names, cli="dataset", yaml=None)
    metrics: Sequence[str] | None = _setting(
        None, "Metric(s), comma-separated (default: all).", _names, cli="metric", yaml=None)
    systems: Sequence[str] | None = _setting(
        None, "Systems, comma-separated, in this order (default: all).", _names, yaml=None)


@dataclass(frozen=True)
class ASOSettings(_Selection):
    """The settings of ``ranger-eval aso``: one :func:`~ranger_eval.multi_aso` per dataset ×
    metric of score distributions over seeds (Dror et al. 2019; deepsig), and the settings of
    :func:`~ranger_eval.aso`, :func:`~ranger_eval.multi_aso` and
    :func:`~ranger_eval.verdicts.aso.aso_groups` (their keyword defaults are these fields').
    ``level`` is the confidence level of ε_min's one-sided bound (deepsig's
    ``confidence_level``); ``n_resamples`` the bootstrap rounds of the violation ratio;
    ``correction`` the multiplicity rule of a matrix's bounds (deepsig's
    ``use_bonferroni=True`` is ``correction="deepsig"``); ``threshold`` τ decides "A almost
    stochastically dominates B" (ε_min < τ). ``seed=None`` draws fresh entropy (Python only;
    the command needs a seed). Command line and Python only (no experiment-YAML section).

    Parameters
    ----------
    higher_is_better : bool, default True
        Whether higher scores are better.
    datasets : Sequence[str], optional
        Dataset(s), comma-separated (default: all).
    metrics : Sequence[str], optional
        Metric(s), comma-separated (default: all).
    systems : Sequence[str], optional
        Systems, comma-separated, in this order (default: all).
    level : float, default 0.95
        Confidence level of the bound ε_min, in [0.5, 1).
    n_resamples : int, default 1000
        Bootstrap resamples of the violation ratio, 2 to 10^8.
    seed : int, default 0
        Seed of the bootstrap, ≥ 0.
    threshold : float, default 0.2
        τ: A almost stochastically dominates B when ε_min < τ, in (0, 0.5].
    correction : str, default 'bonferroni'
        Correction of the k(k-1)/2 bounds of a dataset × metric: bonferroni (each at 1 - (1 -
        level)/K), deepsig (multi_aso's rule level + (1 - level)/K, to reproduce deepsig) or
        none.

    Raises
    ------
    SettingsError
        A refused value or combination, naming the key and the value.

    Examples
    --------
    >>> from ranger_eval.settings import ASOSettings
    >>> settings = ASOSettings(correction="deepsig")
    >>> settings.correction, settings.threshold
    ('deepsig', 0.2)
    >>> ASOSettings(threshold=0.7)
    Traceback (most recent call last):
    ...
    ranger_eval.errors.SettingsError: threshold: must be a number in (0, 0.5] (Dror et al. ...
    """

    command: ClassVar[str] = "aso"
    section: ClassVar[str] = "aso"

    level: float = _setting(
        0.95, "Confidence level of the bound ε_min, in [0.5, 1).", _aso_level, yaml=None,
        signature="level")
    n_resamples: int = _setting(
        1000, "Bootstrap resamples of the violation ratio, 2 to 10^8.",
        _whole(2, MAX_RESAMPLES), yaml=None, signature="n_resamples")
    seed: int | None = _setting(0, "Seed of the bootstrap, ≥ 0.", _whole(0, optional=True),
                                yaml=None, signature="seed")
    threshold: float = _setting(
        0.2, "τ: A almost stochastically dominates B when ε_min < τ, in (0, 0.5].",
        _aso_threshold, yaml=None, signature="threshold")
    correction: str = _setting(
        "bonferroni", "Correction of the k(k-1)/2 bounds of a dataset × metric: bonferroni "
        "(each at 1 - (1 - level)/K), deepsig (multi_aso's rule level + (1 - level)/K, to "
        "reproduce deepsig) or none.",
        _choice(ASO_CORRECTIONS, "ASO correction"), yaml=None, signature="corr")


@dataclass(frozen=True)
class BayesSettings(_Selection):
    """The settings of ``ranger-eval bayes``: baycomp's Bayesian comparisons of every pair of
    systems: ``test="correlated-t"`` (Corani & Benavoli's correlated t-test,
    :func:`~ranger_eval.bayesian_correlated_ttest`) on every dataset × metric of
    cross-validation scores (an item is a fold; a seed is a repetition of the cross-validation),
    or ``"signed-rank"`` / ``"sign"`` (:func:`~ranger_eval.bayesian_signed_rank`,
    :func:`~ranger_eval.bayesian_sign_test`) across datasets, on one score per dataset (``prior``,
    ``prior_place``, ``n_draws``, ``seed``: the Dirichlet process's). These are also the
    settings of the three test functions and of :func:`~ranger_eval.verdicts.bayes.
    correlated_ttests` and :func:`~ranger_eval.verdicts.bayes.dataset_tests` (their keyword
    defaults are these fields'). ``level`` is the posterior probability a verdict needs.
    Command line and Python only (no experiment-YAML section).

    Parameters
    ----------
    higher_is_better : bool, default True
        Whether higher scores are better.
    datasets : Sequence[str], optional
        Dataset(s), comma-separated (default: all).
    metrics : Sequence[str], optional
        Metric(s), comma-separated (default: all).
    systems : Sequence[str], optional
        Systems, comma-separated, in this order (default: all).
    test : str, default 'correlated-t'
        correlated-t (one dataset's cross-validation folds), signed-rank or sign (across
        datasets, one score per dataset).
    rope : float, default 0.0
        Half-width of the region of practical equivalence, ≥ 0, in the metric's units.
    runs : int, optional
        Repetitions of the cross-validation (default: the seed column's seeds, else 1); the
        items are runs × k folds.
    level : float, default 0.95
        Posterior probability a verdict needs, in (0.5, 1).
    prior : float, optional
        Dirichlet prior strength of signed-rank/sign, > 0 (default: baycomp's, 0.5 and 1).
    prior_place : str, default 'rope'
        Where the sign test puts its prior strength: rope, left or right (baycomp's
        SignTest.ROPE/LEFT/RIGHT).
    n_draws : int, default 50000
        Posterior draws of signed-rank/sign, 1 to 10^8.
    seed : int, default 0
        Seed of the posterior draws of signed-rank/sign, ≥ 0.

    Raises
    ------
    SettingsError
        A refused value or combination, naming the key and the value.

    Examples
    --------
    >>> from ranger_eval.settings import BayesSettings
    >>> settings = BayesSettings(test="sign", rope=0.01)
    >>> settings.test, settings.rope, settings.n_draws
    ('sign', 0.01, 50000)
    >>> BayesSettings(level=0.5)
    Traceback (most recent call last):
    ...
    ranger_eval.errors.SettingsError: level: must be a probability in (0.5, 1), e.g. 0.95 (a ...
    """

    command: ClassVar[str] = "bayes"
    section: ClassVar[str] = "bayes"

    test: str = _setting(
        "correlated-t", "correlated-t (one dataset's cross-validation folds), signed-rank or "
        "sign (across datasets, one score per dataset).", _choice(BAYES_TESTS, "Bayesian test"),
        yaml=None, signature="test")
    rope: float = _setting(
        0.0, "Half-width of the region of practical equivalence, ≥ 0, in the metric's units.",
        _rope, yaml=None, signature="rope")
    runs: int | None = _setting(
        None, "Repetitions of the cross-validation (default: the seed column's seeds, else 1); "
        "the items are runs × k folds.", _whole(1, optional=True), yaml=None,
        signature="runs")
    level: float = _setting(
        0.95, "Posterior probability a verdict needs, in (0.5, 1).", _probability_level,
        yaml=None, signature="level")
    prior: float | None = _setting(
        None, "Dirichlet prior strength of signed-rank/sign, > 0 (default: baycomp's, 0.5 and "
        "1).", _prior_weight, yaml=None, signature="prior")
    prior_place: str = _setting(
        "rope", "Where the sign test puts its prior strength: rope, left or right (baycomp's "
        "SignTest.ROPE/LEFT/RIGHT).", _choice(PRIOR_PLACES, "prior place"), yaml=None)
    n_draws: int = _setting(
        50_000, "Posterior draws of signed-rank/sign, 1 to 10^8.", _whole(1, MAX_RESAMPLES),
        yaml=None, signature="n_draws")
    seed: int = _setting(0, "Seed of the posterior draws of signed-rank/sign, ≥ 0.",
                         _whole(0, 2**32 - 1), yaml=None, signature="seed")

    def _check_combinations(self) -> None:
        if self.test == "correlated-t":
            if self.prior is not None:
                raise SettingsError("prior: the correlated t-test has no prior (it is for "
                                    "test='signed-rank' or 'sign')")
        elif self.runs is not None:
            raise SettingsError(f"runs: {self.runs!r} belongs to the correlated t-test of "
                                f"cross-validation folds; test={self.test!r} compares one "
                                "score per dataset")
        if self.prior_place != "rope" and self.test != "sign":
            raise SettingsError(f"prior_place: {self.prior_place!r} is where the sign test puts "
                                f"its prior; test={self.test!r} has its prior on the "
                                "pseudo-observation 0 (or none)")


#: The prediction-powered estimators (:func:`~ranger_eval.ppi_mean`): λ̂ tuned (PPI++), λ = 1
#: (PPI) or λ = 0 (the classical mean of the human scores alone).
PPI_METHODS: tuple[str, ...] = ("ppi++", "ppi", "classical")


@dataclass(frozen=True)
class PPISettings(_Settings):
    """The settings of :func:`~ranger_eval.ppi_mean` and :func:`~ranger_eval.ppi_mean_difference`
    (prediction-powered inference, Angelopoulos et al. 2023). Python only (no command has
    options for them; ``compare`` runs its own prediction-powered t with
    ``CompareSettings.cluster_se``).

    Not :class:`CompareSettings`: the estimator ``method`` (λ) is no field of ``compare``, whose
    other twenty fields (tests, pairs, corrections, resamples) mean nothing to one estimate.

    Parameters
    ----------
    method : {'ppi++', 'ppi', 'classical'}, default 'ppi++'
        λ̂ tuned, λ = 1, or λ = 0.
    level : float, default 0.95
        Level of the interval.
    cluster_se : {'CR2', 'CR1'}, default 'CR2'
        The cluster-robust variance, with a ``cluster`` column (any case).

    Raises
    ------
    SettingsError
        A refused value, naming the key and the value.

    Examples
    --------
    >>> from ranger_eval.settings import PPISettings
    >>> PPISettings(cluster_se="cr1")
    PPISettings(method='ppi++', level=0.95, cluster_se='CR1')
    """

    command: ClassVar[str] = "ppi_mean"
    section: ClassVar[str] = "ppi"

    method: str = _setting(
        "ppi++", "λ̂ tuned (ppi++), λ = 1 (ppi) or λ = 0 (classical).",
        _choice(PPI_METHODS, "prediction-powered estimator"), cli=False, yaml=None,
        signature="ppi")
    level: float = _setting(
        0.95, "Level of the interval.", _level, cli=False, yaml=None, signature="level")
    cluster_se: str = _setting(
        "CR2", "The cluster-robust variance with a cluster column: CR2 (Bell-McCaffrey df) or "
        "CR1 (t on C - 1 df).", _choice(CLUSTER_SES, "cluster-robust variance", ignore_case=True),
        cli=False, yaml=None, signature="cse")
