"""The settings of ``ranger-eval arena`` (Bradley–Terry): :class:`ArenaSettings`."""
from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from numbers import Real
from typing import Any, ClassVar

from ..errors import SettingsError
from ._base import (
    MAX_RESAMPLES,
    Check,
    _Bad,
    _bool,
    _choice,
    _level,
    _name,
    _names,
    _setting,
    _Settings,
    _whole,
)

#: How ties enter the Bradley–Terry likelihood (:func:`~ranger_eval.bradley_terry`): half a
#: win each (FastChat / LMArena) or Davidson's (1970) tie parameter.
TIE_MODELS: tuple[str, ...] = ("half", "davidson")


def _finite(*, positive: bool = False) -> Check:
    """A finite real number (``positive``: > 0), as a float."""
    def check(value: Any) -> float:
        if isinstance(value, bool) or not isinstance(value, Real) or not (
                math.isfinite(float(value)) and (not positive or float(value) > 0)):
            raise _Bad(f"must be a {'positive, ' if positive else ''}finite number; "
                       f"got {value!r}")
        return float(value)
    return check


def _anchor(value: Any) -> str | tuple[str, float] | None:
    """None, a model name (rated ``init_rating``), ``(MODEL, RATING)`` or ``{MODEL: RATING}``
    (→ the tuple); whether the model is in the battles is checked by ``bradley_terry``."""
    if value is None:
        return None
    if isinstance(value, str) and value:
        return value
    if isinstance(value, Mapping) and len(value) == 1:
        ((name, rating),) = value.items()
    elif isinstance(value, (tuple, list)) and len(value) == 2:
        name, rating = value
    else:
        raise _Bad(f"give (MODEL, RATING), {{MODEL: RATING}} or a model name (rated "
                   f"init_rating); got {value!r}")
    if isinstance(rating, bool) or not isinstance(rating, Real) or not math.isfinite(
            float(rating)):
        raise _Bad(f"the rating of {str(name)!r} must be a finite number; got {rating!r}")
    return str(name), float(rating)


@dataclass(frozen=True)
class ArenaSettings(_Settings):
    """The settings of :func:`~ranger_eval.bradley_terry` and ``ranger-eval arena``: how ties
    enter the likelihood, the Elo scale of the ratings (``scale``, ``base``, ``init_rating``,
    ``anchor``), the bootstrap of the intervals (``n_resamples`` rounds, 0 for none; ``level``;
    ``seed``) and, when the arena is given per-item scores instead of battles, which metric's
    items are battles and its direction (:func:`~ranger_eval.verdicts.bradley_terry.battle_counts`).

    What is a setting: every choice of the analyst that does not describe the data (the battles
    themselves, the ``--cluster`` field that groups the items of a scores file, the files read
    and written are inputs and outputs). The signature keys are those of
    :attr:`Ratings.signature <ranger_eval.verdicts.Ratings.signature>` (``tie_model``, ``elo`` =
    scale, base, init_rating, ``anchor``, ``level``, ``n_resamples``, ``seed``). Command line and
    Python only: the experiment YAML has no arena section (an arena reads a battles table or a
    scores file, not an experiment).

    Parameters
    ----------
    ties : str, default 'half'
        half (a tie is half a win each, as FastChat) or davidson.
    scale : float, default 400.0
        Elo scale, > 0.
    base : float, default 10.0
        Elo base, > 0 and not 1.
    init_rating : float, default 1000.0
        Mean rating (without --anchor).
    anchor : str | tuple[str, float], optional
        Fix one model's rating: MODEL=RATING (Python: (MODEL, RATING)).
    level : float, default 0.95
        Confidence level of the rating and rank intervals.
    n_resamples : int, default 1000
        Bootstrap rounds of the intervals, 0 (none) to 10^8.
    seed : int, default 0
        Seed of the bootstrap, ≥ 0.
    metric : str, optional
        Per-item scores given: the metric whose items are battles.
    higher_is_better : bool, default True
        Per-item scores given: whether higher scores win.
    covariates : tuple[str, ...], optional
        Battle-level covariates (style control): difference columns or <feat>_a/<feat>_b pairs.

    Raises
    ------
    SettingsError
        A refused value or combination, naming the key and the value.

    Examples
    --------
    >>> from ranger_eval.settings import ArenaSettings
    >>> settings = ArenaSettings(ties="davidson", anchor={"gpt": 1200})
    >>> settings.ties, settings.anchor
    ('davidson', ('gpt', 1200.0))
    >>> ArenaSettings(base=1)
    Traceback (most recent call last):
    ...
    ranger_eval.errors.SettingsError: base: 1 gives no scale (every base^x is 1); use e.g. base=10
    """

    command: ClassVar[str] = "arena"
    section: ClassVar[str] = "arena"

    ties: str = _setting(
        "half", "half (a tie is half a win each, as FastChat) or davidson.",
        _choice(TIE_MODELS, "tie model"), yaml=None, signature="tie_model")
    scale: float = _setting(400.0, "Elo scale, > 0.", _finite(positive=True), yaml=None,
                            signature="elo")
    base: float = _setting(10.0, "Elo base, > 0 and not 1.", _finite(positive=True), yaml=None,
                           signature="elo")
    init_rating: float = _setting(1000.0, "Mean rating (without --anchor).", _finite(),
                                  yaml=None, signature="elo")
    anchor: str | tuple[str, float] | None = _setting(
        None, "Fix one model's rating: MODEL=RATING (Python: (MODEL, RATING)).", _anchor,
        yaml=None, signature="anchor", metavar="MODEL=RATING")
    level: float = _setting(0.95, "Confidence level of the rating and rank intervals.", _level,
                            yaml=None, signature="level")
    n_resamples: int = _setting(
        1000, "Bootstrap rounds of the intervals, 0 (none) to 10^8.", _whole(0, MAX_RESAMPLES),
        yaml=None, signature="n_resamples")
    seed: int = _setting(0, "Seed of the bootstrap, ≥ 0.", _whole(0), yaml=None,
                         signature="seed")
    metric: str | None = _setting(
        None, "Per-item scores given: the metric whose items are battles.", _name, yaml=None)
    higher_is_better: bool = _setting(
        True, "Per-item scores given: whether higher scores win.", _bool, yaml=None,
        metavar="true|false")
    covariates: tuple[str, ...] | None = _setting(
        None, "Style control: a battle-level covariate, a difference column COL (model_a "
        "minus model_b) or a pair COL_a/COL_b (e.g. response lengths); repeat it or give a "
        "comma list. The ratings then hold its effect at zero and are shown beside the "
        "ratings without it.", _names, cli="covariate", yaml=None, signature="covariates",
        metavar="COL")

    def _check_combinations(self) -> None:
        if self.base == 1:
            raise SettingsError("base: 1 gives no scale (every base^x is 1); use e.g. base=10")
        if self.covariates and self.ties != "half":
            raise SettingsError("covariates: style control fits ties as half wins (a logistic "
                                "model, as LMArena); use ties='half' with covariates")
