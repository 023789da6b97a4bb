"""The settings of :func:`~ranger_eval.describe`: :class:`DescribeSettings`."""
from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from ._base import _choice, _level, _setting, _Settings

#: The intervals of a mean (:mod:`ranger_eval.stats.bounded`): ``auto`` keeps a bounded metric's
#: interval inside its range (Wilson, Korn–Graubard), ``t`` is the plain t interval.
DESCRIBE_INTERVALS: tuple[str, ...] = ("auto", "t")


@dataclass(frozen=True)
class DescribeSettings(_Settings):
    """The settings of :func:`~ranger_eval.describe` (each system's mean with its standard error
    and interval). Python only: the commands describe at their own ``level`` (``--level``) and
    take the metrics' ranges from ``--bounds``/``bounds:``, which are facts about the data, not
    settings of the analysis (so ``bounds`` stays a keyword of :func:`describe`).

    Parameters
    ----------
    level : float, default 0.95
        Level of the intervals.
    interval : {'auto', 't'}, default 'auto'
        ``auto``: inside a bounded metric's range (Wilson / Korn–Graubard); ``t``: the t interval.

    Raises
    ------
    SettingsError
        A refused value, naming the key and the value.

    Examples
    --------
    >>> from ranger_eval.settings import DescribeSettings
    >>> DescribeSettings(level=0.9)
    DescribeSettings(level=0.9, interval='auto')
    """

    command: ClassVar[str] = "describe"
    section: ClassVar[str] = "describe"

    level: float = _setting(
        0.95, "Level of the intervals.", _level, cli=False, yaml=None, signature="level")
    interval: str = _setting(
        "auto", "auto (inside a bounded metric's range: Wilson / Korn-Graubard) or t.",
        _choice(DESCRIBE_INTERVALS, "interval"), cli=False, yaml=None)
