"""The settings of :func:`~ranger_eval.estimate_from_subset` / ``ranger-eval estimate`` and of
:func:`~ranger_eval.choose_subset`: :class:`SubsetSettings`, :class:`ChooseSubsetSettings`."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from ._base import _Bad, _choice, _level, _setting, _Settings, _whole

#: The predictors of the whole benchmark from a subset: a Rasch or 2PL model fitted on the
#: history (:func:`~ranger_eval.irt`), the new system's ability cross-fitted on the subset.
SUBSET_PREDICTORS: tuple[str, ...] = ("rasch", "2pl")
#: How :func:`~ranger_eval.choose_subset` picks items: a simple random sample, a stratified
#: random sample (strata of item difficulty in the history, proportional allocation), or
#: anchor items (k-means on the history's item columns; not random: no design-based interval).
SUBSET_METHODS: tuple[str, ...] = ("random", "stratified", "anchor")


def _predictor(value: Any) -> Any:
    """A predictor name, or (Python only) a callable ``(history, responses) -> P``."""
    if callable(value):
        return value
    try:
        return _choice(SUBSET_PREDICTORS, "predictor", ignore_case=True)(value)
    except _Bad as exc:
        raise _Bad(f"{exc} (or, in Python, a function (history, responses) -> predictions "
                   f"for every item)") from None


@dataclass(frozen=True)
class SubsetSettings(_Settings):
    """The settings of :func:`~ranger_eval.estimate_from_subset` and ``ranger-eval estimate``
    (the function's keyword defaults are these fields'): the confidence level, the predictor of
    every item's result, the number of cross-fitting folds of the subset and the seed that
    assigns the subset's items to folds. Command line and Python.

    Parameters
    ----------
    level : float, default 0.95
        Confidence level of the interval, in (0, 1).
    predictor : str or callable, default 'rasch'
        rasch or 2pl (an item response model fitted on the history), or in Python a function
        ``(history, responses) -> predictions`` (a Series over every item).
    n_folds : int, default 5
        Cross-fitting folds of the subset (2 to 50): the ability used to predict a fold's items
        is fitted on the other folds.
    seed : int, default 0
        Seed of the assignment of the subset's items to folds, ≥ 0.

    Raises
    ------
    SettingsError
        A refused value, naming the key and the value.

    Examples
    --------
    >>> from ranger_eval.settings import SubsetSettings
    >>> SubsetSettings(n_folds=10).n_folds
    10
    """

    command: ClassVar[str] = "estimate"
    section: ClassVar[str] = "estimate"

    level: float = _setting(0.95, "Confidence level of the interval, in (0, 1).", _level,
                            yaml=None, signature="level")
    predictor: Any = _setting(
        "rasch", "Predictor of every item's result: rasch or 2pl (an item response model "
        "fitted on the history; the new system's ability cross-fitted on the subset).",
        _predictor, yaml=None, signature="predictor")
    n_folds: int = _setting(5, "Cross-fitting folds of the subset (2 to 50).", _whole(2, 50),
                            yaml=None, signature="folds")
    seed: int = _setting(0, "Seed of the assignment of the subset's items to folds, ≥ 0.",
                         _whole(0), yaml=None, signature="seed")


@dataclass(frozen=True)
class ChooseSubsetSettings(_Settings):
    """The settings of :func:`~ranger_eval.choose_subset` (its keyword defaults are these
    fields'): the design of the subset, the number of strata of a stratified sample and the
    seed. Python only.

    Parameters
    ----------
    method : {'random', 'stratified', 'anchor'}, default 'random'
        random (simple random sample without replacement), stratified (strata of equal size
        by the items' mean in the history, proportional allocation, a simple random sample in
        each) or anchor (the items nearest k-means centres of the history's item columns: not
        random, so no design-based interval).
    n_strata : int, default 5
        Strata of method='stratified' (1 to 100).
    seed : int, default 0
        Seed of the draw (and of k-means for anchor), ≥ 0.

    Raises
    ------
    SettingsError
        A refused value, naming the key and the value.

    Examples
    --------
    >>> from ranger_eval.settings import ChooseSubsetSettings
    >>> ChooseSubsetSettings(method="stratified").n_strata
    5
    """

    command: ClassVar[str] = "choose_subset"
    section: ClassVar[str] = "choose_subset"

    method: str = _setting("random", "Design of the subset: random, stratified or anchor.",
                           _choice(SUBSET_METHODS, "subset design", ignore_case=True),
                           yaml=None, cli=False, signature="design")
    n_strata: int = _setting(5, "Strata of method='stratified' (1 to 100).", _whole(1, 100),
                             yaml=None, cli=False, signature="strata")
    seed: int = _setting(0, "Seed of the draw (and of k-means for anchor), ≥ 0.", _whole(0),
                         yaml=None, cli=False, signature="seed")
