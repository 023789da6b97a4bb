"""The settings of ``ranger-eval meta``: :class:`MetaSettings`."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from ..errors import SettingsError
from ._base import (
    DEGENERATE,
    MAX_RESAMPLES,
    MEASURES,
    META_METHODS,
    META_ORDERS,
    META_TESTS,
    SEED_POLICIES,
    _choice,
    _level,
    _margin,
    _name,
    _one_metric_fn,
    _setting,
    _Settings,
    _whole,
)


@dataclass(frozen=True)
class MetaSettings(_Settings):
    """The settings of ``ranger-eval meta``: effect sizes of ``treatment`` over ``control``
    (:func:`~ranger_eval.effects.effect_sizes`) and their meta-analysis
    (:func:`~ranger_eval.meta.meta_analysis`, metafor's ``method`` and ``test``); YAML: the
    ``meta:`` section or, for the original Ranger layout, the top level. Names of estimators,
    tests and measures are case-insensitive (``reml`` → ``REML``).

    Parameters
    ----------
    control : str, optional
        Control system (overrides the file).
    treatment : str, optional
        Treatment system (overrides the file).
    measure : str, default 'SMD'
        Effect measure: MD, SMD, SMCC, SMCR, ZCOR.
    method : str, default 'REML'
        τ² estimator: FE, DL, HE, HS, SJ, ML, REML, EB, PM.
    test : str, default 'z'
        Test for the summary: z, t or knha.
    level : float, default 0.95
        Confidence level.
    order : str, default 'given'
        Row order: given, effect, weight, name.
    metric_fn : Any, optional
        Set-level metric from label/prediction columns (mcc, f1, macro_f1, pearson, spearman,
        …): effect and variance by paired bootstrap.
    n_resamples : int, default 1000
        Bootstrap resamples of a set-level metric's effect, 1 to 10^8.
    seed : int, default 0
        Seed of the bootstrap, ≥ 0 (None: fresh randomness, Python only).
    seeds : str, default 'balanced'
        Seeds policy: balanced or allow-unbalanced.
    degenerate : str, default 'error'
        Datasets whose effect is undefined or has zero variance: error (one error listing them)
        or drop (left out with a warning).
    margin : float, optional
        Margin of equivalence/non-inferiority, > 0, in the effect measure's units: the summary
        says whether the CI (and the prediction interval) lies within ±margin.

    Raises
    ------
    SettingsError
        A refused value or combination, naming the key and the value.

    Examples
    --------
    >>> from ranger_eval.settings import MetaSettings
    >>> settings = MetaSettings(method="reml", treatment="b", control="a")
    >>> settings.method, settings.measure
    ('REML', 'SMD')
    >>> MetaSettings(measure="XYZ")
    Traceback (most recent call last):
    ...
    ranger_eval.errors.SettingsError: measure: unknown effect measure 'XYZ'; use one of MD, ...
    """

    command: ClassVar[str] = "meta"
    section: ClassVar[str] = "meta"

    control: str | None = _setting(
        None, "Control system (overrides the file).", _name, yaml="both")
    treatment: str | None = _setting(
        None, "Treatment system (overrides the file).", _name, yaml="both")
    measure: str = _setting(
        "SMD", "Effect measure: " + ", ".join(MEASURES) + ".",
        _choice(MEASURES, "effect measure", ignore_case=True), yaml="both", signature="measure")
    method: str = _setting(
        "REML", "τ² estimator: " + ", ".join(m for m in META_METHODS if m != "EE") + ".",
        _choice(META_METHODS, "τ² estimator", ignore_case=True), yaml="both",
        signature="method")
    test: str = _setting(
        "z", "Test for the summary: z, t or knha.",
        _choice(META_TESTS, "test", ignore_case=True), yaml="both", signature="test")
    level: float = _setting(0.95, "Confidence level.", _level, yaml="top", signature="level")
    order: str = _setting(
        "given", "Row order: given, effect, weight, name.",
        _choice(META_ORDERS, "row order", ignore_case=True), yaml="both")
    metric_fn: Any = _setting(
        None, "Set-level metric from label/prediction columns (mcc, f1, macro_f1, pearson, "
        "spearman, …): effect and variance by paired bootstrap.", _one_metric_fn)
    n_resamples: int = _setting(
        1000, "Bootstrap resamples of a set-level metric's effect, 1 to 10^8.",
        _whole(1, MAX_RESAMPLES), cli=False)
    seed: int | None = _setting(
        0, "Seed of the bootstrap, ≥ 0 (None: fresh randomness, Python only).",
        _whole(0, optional=True), cli=False)
    seeds: str = _setting(
        "balanced", "Seeds policy: balanced or allow-unbalanced.",
        _choice(SEED_POLICIES, "seeds policy", ignore_case=True))
    degenerate: str = _setting(
        "error", "Datasets whose effect is undefined or has zero variance: error (one error "
        "listing them) or drop (left out with a warning).", _choice(DEGENERATE, "degenerate policy"),
        cli="drop-degenerate", flag="drop")
    margin: float | None = _setting(
        None, "Margin of equivalence/non-inferiority, > 0, in the effect measure's units: the "
        "summary says whether the CI (and the prediction interval) lies within ±margin.",
        _margin, yaml="both", signature="margin")

    def _check_combinations(self) -> None:
        if self.control is not None and self.control == self.treatment:
            raise SettingsError(f"treatment: must differ from control (both {self.control!r})")
