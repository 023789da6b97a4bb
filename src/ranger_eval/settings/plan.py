"""The settings of ``ranger-eval plan``: :class:`PlanSettings`."""
from __future__ import annotations

from dataclasses import dataclass
from numbers import Real
from typing import Any, ClassVar

from ..errors import ALTERNATIVES
from ._base import (
    MAX_RESAMPLES,
    _Bad,
    _choice,
    _margin,
    _setting,
    _Settings,
    _whole,
)

#: Tests :func:`~ranger_eval.plan` knows (formulas in :mod:`ranger_eval.stats.power`).
PLAN_TESTS: tuple[str, ...] = ("paired-t", "welch", "proportions-z", "mcnemar", "mcnemar-exact")
#: Tests :func:`~ranger_eval.plan_from_pilot` simulates (``auto`` is ``paired-t``).
PILOT_TESTS: tuple[str, ...] = ("auto", "paired-t", "wilcoxon", "sign")


def _plan_level(value: Any) -> float:
    """The confidence level of a planned test, in [0.5, 1): the test is at α = 1 − level,
    at most 0.5."""
    if isinstance(value, bool) or not isinstance(value, Real) or not 0.5 <= float(value) < 1:
        raise _Bad(f"must be a number in [0.5, 1), e.g. 0.95 (the planned test is at "
                   f"alpha = 1 - level); got {value!r}")
    return float(value)


@dataclass(frozen=True)
class PlanSettings(_Settings):
    """The settings of :func:`~ranger_eval.plan`, :func:`~ranger_eval.plan_from_pilot` and
    ``ranger-eval plan``: the planned test and its ``alternative``, its confidence ``level``
    (the test is at α = 1 − level, to 12 decimals: ``level=0.95`` plans at α = 0.05 exactly),
    the ``margin`` that makes it an equivalence or non-inferiority test (:func:`plan` only), and
    the pilot simulation's ``n_resamples`` (simulated experiments) and ``seed``.

    What is a setting: the choices of the analysis to be run. Not settings, so plain keywords:
    the one quantity solved for (``effect``, ``n``, ``power``: exactly one is left out, so none
    has a default), the values that describe the data expected (``sd``, ``p_control``,
    ``p_treatment``, ``correlation``, ``icc``, ``cluster_size``, ``k_samples``, ``within_sd``)
    and what a pilot file is read for (``treatment``, ``control``, ``dataset``, ``metric``).
    ``test`` has no default for :func:`plan` (None there is an error naming the tests); for
    :func:`plan_from_pilot` None is ``auto`` (the paired t). The signature keys are those of
    :attr:`Plan.signature <ranger_eval.stats.power.Plan.signature>` and
    :attr:`PilotPlan.signature <ranger_eval.stats.pilot.PilotPlan.signature>` (``margin``: with a
    margin; ``n_resamples`` and ``seed``: a pilot's). Command line and Python only: the
    experiment YAML has no plan section (a plan is made before the experiment it plans).

    Parameters
    ----------
    test : str, optional
        Planned test: paired-t, welch, proportions-z, mcnemar, mcnemar-exact; with --pilot:
        auto, paired-t, wilcoxon, sign (auto: paired-t, the default with --pilot).
    alternative : str, default 'two-sided'
        two-sided, greater or less.
    level : float, default 0.95
        Confidence level of the planned test, in [0.5, 1): it is at alpha = 1 - level.
    margin : float, optional
        Equivalence (two-sided) or non-inferiority (one-sided) margin, > 0, in the metric's
        units (not with --pilot).
    n_resamples : int, default 2000
        Pilot: simulated experiments, 100 to 10^8.
    seed : int, default 0
        Pilot: seed of the simulations, ≥ 0.

    Raises
    ------
    SettingsError
        A refused value or combination, naming the key and the value.

    Examples
    --------
    >>> from ranger_eval.settings import PlanSettings
    >>> settings = PlanSettings(test="mcnemar", level=0.9)
    >>> settings.test, settings.alpha
    ('mcnemar', 0.1)
    >>> PlanSettings(level=0.3)
    Traceback (most recent call last):
    ...
    ranger_eval.errors.SettingsError: level: must be a number in [0.5, 1), e.g. 0.95 (the ...
    """

    command: ClassVar[str] = "plan"
    section: ClassVar[str] = "plan"

    test: str | None = _setting(
        None, "Planned test: " + ", ".join(PLAN_TESTS) + "; with --pilot: "
        + ", ".join(PILOT_TESTS) + " (auto: paired-t, the default with --pilot).",
        _choice(tuple(dict.fromkeys(PLAN_TESTS + PILOT_TESTS)), "test", optional=True),
        yaml=None, signature="test")
    alternative: str = _setting(
        "two-sided", "two-sided, greater or less.", _choice(ALTERNATIVES, "alternative"),
        yaml=None, signature="alt")
    level: float = _setting(
        0.95, "Confidence level of the planned test, in [0.5, 1): it is at alpha = 1 - level.",
        _plan_level, yaml=None, signature="level")
    margin: float | None = _setting(
        None, "Equivalence (two-sided) or non-inferiority (one-sided) margin, > 0, in the "
        "metric's units (not with --pilot).", _margin, yaml=None, signature="margin")
    n_resamples: int = _setting(
        2000, "Pilot: simulated experiments, 100 to 10^8.", _whole(100, MAX_RESAMPLES),
        yaml=None, signature="n_resamples")
    seed: int = _setting(0, "Pilot: seed of the simulations, ≥ 0.", _whole(0), yaml=None,
                         signature="seed")

    @property
    def alpha(self) -> float:
        """The significance level of the planned test, 1 − ``level`` to 12 decimals (derived,
        never a second setting)."""
        return round(1.0 - self.level, 12)
