"""The settings of ``ranger-eval agree``: :class:`AgreementSettings` (judge and annotator
agreement, :func:`~ranger_eval.agreement`) and :class:`AltTestSettings` (the alternative
annotator test, :func:`~ranger_eval.alt_test`)."""
from __future__ import annotations

from dataclasses import dataclass
from numbers import Real
from typing import Any, ClassVar

from ..errors import SettingsError
from ._base import MAX_RESAMPLES, _Bad, _choice, _level, _setting, _Settings, _whole

#: The agreement coefficients: Krippendorff's α (any number of raters, missing ratings
#: allowed), Cohen's κ (exactly two raters), Fleiss' κ (the same number of ratings per item).
AGREEMENT_METHODS: tuple[str, ...] = ("krippendorff", "cohen", "fleiss")
#: Krippendorff's levels of measurement (the distance δ² between two values).
AGREEMENT_SCALES: tuple[str, ...] = ("nominal", "ordinal", "interval", "ratio")
#: Cohen's κ weights of a disagreement between categories i and j (their ranks): none (0/1),
#: linear |i − j| or quadratic (i − j)², as ``sklearn.metrics.cohen_kappa_score``.
KAPPA_WEIGHTS: tuple[str, ...] = ("linear", "quadratic")
#: How the alt-test scores an annotation against the other annotators' of the item:
#: ``accuracy`` (the share equal to it) or ``neg_rmse`` (minus the root mean squared difference).
ALT_TEST_METRICS: tuple[str, ...] = ("accuracy", "neg_rmse")


def _epsilon(value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, Real) or not 0 <= float(value) < 1:
        raise _Bad(f"must be a number in [0, 1) (Calderon et al. suggest 0.2 for expert, 0.15 "
                   f"for skilled and 0.1 for crowd annotators); got {value!r}")
    return float(value)


def _fdr(value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, Real) or not 0 < float(value) < 1:
        raise _Bad(f"must be a number in (0, 1), e.g. 0.05; got {value!r}")
    return float(value)


@dataclass(frozen=True)
class AgreementSettings(_Settings):
    """The settings of ``ranger-eval agree`` and of :func:`~ranger_eval.agreement` (its keyword
    defaults are these fields'): the coefficient, the level of measurement, Cohen's weights and
    the percentile bootstrap over items (or clusters). Command line and Python only (no
    experiment-YAML section).

    Parameters
    ----------
    method : {'krippendorff', 'cohen', 'fleiss'}, default 'krippendorff'
        Krippendorff's α, Cohen's κ (two raters) or Fleiss' κ.
    scale : {'nominal', 'ordinal', 'interval', 'ratio'}, default 'nominal'
        Krippendorff's level of measurement (α only).
    weights : {'linear', 'quadratic'}, optional
        Cohen's κ weights (κ only; default: unweighted).
    level : float, default 0.95
        Level of the percentile bootstrap interval.
    n_resamples : int, default 1000
        Bootstrap resamples of the items (or clusters), 0 (no interval) to 10^8.
    seed : int, default 0
        Seed of the bootstrap, ≥ 0.

    Raises
    ------
    SettingsError
        A refused value or combination, naming the key and the value.

    Examples
    --------
    >>> from ranger_eval.settings import AgreementSettings
    >>> AgreementSettings(method="cohen", weights="quadratic").weights
    'quadratic'
    >>> AgreementSettings(method="fleiss", weights="linear")
    Traceback (most recent call last):
    ...
    ranger_eval.errors.SettingsError: weights: 'linear' weighs Cohen's kappa; method='fleiss' ...
    """

    command: ClassVar[str] = "agree"
    section: ClassVar[str] = "agree"

    method: str = _setting(
        "krippendorff", "krippendorff (alpha: any raters, missing ratings allowed), cohen "
        "(kappa: two raters) or fleiss (kappa: the same number of ratings per item).",
        _choice(AGREEMENT_METHODS, "agreement coefficient"), cli="coefficient", yaml=None,
        signature="coef")
    scale: str = _setting(
        "nominal", "Krippendorff's level of measurement: nominal, ordinal, interval or ratio.",
        _choice(AGREEMENT_SCALES, "level of measurement"), yaml=None, signature="scale")
    weights: str | None = _setting(
        None, "Cohen's kappa weights: linear or quadratic (default: unweighted).",
        _choice(KAPPA_WEIGHTS, "kappa weights", optional=True), yaml=None,
        signature="kappa_weights")
    level: float = _setting(
        0.95, "Level of the percentile bootstrap interval.", _level, yaml=None,
        signature="level")
    n_resamples: int = _setting(
        1000, "Bootstrap resamples of the items (or clusters), 0 (no interval) to 10^8.",
        _whole(0, MAX_RESAMPLES), yaml=None, signature="n_resamples")
    seed: int = _setting(0, "Seed of the bootstrap, ≥ 0.", _whole(0, 2**63 - 1), yaml=None,
                         signature="seed")

    def _check_combinations(self) -> None:
        if self.weights is not None and self.method != "cohen":
            raise SettingsError(f"weights: {self.weights!r} weighs Cohen's kappa; "
                                f"method={self.method!r} has no weights (use scale= for "
                                "Krippendorff's alpha)")
        if self.scale != "nominal" and self.method != "krippendorff":
            raise SettingsError(f"scale: {self.scale!r} is Krippendorff's level of measurement; "
                                f"method={self.method!r} treats the values as categories "
                                "(weights='linear' or 'quadratic' orders Cohen's)")


@dataclass(frozen=True)
class AltTestSettings(_Settings):
    """The settings of :func:`~ranger_eval.alt_test` and of ``ranger-eval agree --judge``
    (Calderon, Reichart & Dror 2025): ε, the scoring of an annotation against the other
    annotators', the false discovery rate of the Benjamini–Yekutieli procedure and the
    authors' minimums. Command line and Python only.

    Parameters
    ----------
    epsilon : float, default 0.2
        ε, the cost-benefit allowance of the judge, in [0, 1).
    metric : {'accuracy', 'neg_rmse'}, default 'accuracy'
        How an annotation is scored against the other annotators of the item.
    fdr : float, default 0.05
        q of the Benjamini–Yekutieli procedure over the annotators' tests.
    min_raters : int, default 2
        Fewest human annotations an item needs to take part, ≥ 2.
    min_items : int, default 30
        Fewest items an annotator needs to be tested (fewer: left out, with a warning), ≥ 2.

    Raises
    ------
    SettingsError
        A refused value, naming the key and the value.

    Examples
    --------
    >>> from ranger_eval.settings import AltTestSettings
    >>> AltTestSettings(epsilon=0.1).fdr
    0.05
    """

    command: ClassVar[str] = "agree"
    section: ClassVar[str] = "agree"

    epsilon: float = _setting(
        0.2, "ε, the judge's cost-benefit allowance in [0, 1): 0.2 expert, 0.15 skilled, 0.1 "
        "crowd annotators (Calderon et al. 2025).", _epsilon, yaml=None, signature="epsilon")
    metric: str = _setting(
        "accuracy", "How an annotation is scored against the item's other annotators: "
        "accuracy or neg_rmse.", _choice(ALT_TEST_METRICS, "alt-test metric"), yaml=None,
        signature="alt_metric")
    fdr: float = _setting(
        0.05, "q of the Benjamini-Yekutieli procedure over the annotators' tests.", _fdr,
        yaml=None, signature="fdr")
    min_raters: int = _setting(
        2, "Fewest human annotations an item needs to take part, ≥ 2.", _whole(2), yaml=None,
        signature="min_raters")
    min_items: int = _setting(
        30, "Fewest items an annotator needs to be tested (fewer: left out, with a warning).",
        _whole(2), yaml=None, signature="min_items")
