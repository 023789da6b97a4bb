"""The settings of :func:`~ranger_eval.confidence_sequence` and of :func:`~ranger_eval.monitor`
/ ``ranger-eval monitor``: :class:`ConfidenceSequenceSettings`, :class:`MonitorSettings`."""
from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from numbers import Real
from typing import Any, ClassVar

from ._base import _Bad, _choice, _level, _name, _setting, _Settings, _whole

#: The confidence sequences: the predictable plug-in betting CS (Waudby-Smith & Ramdas 2023),
#: and the conjugate-mixture Hoeffding and empirical-Bernstein CSs (Howard et al. 2021).
#: ``mixture``: the betting CS with an equal-weight mixture of constant bets (Waudby-Smith &
#: Ramdas 2023 §5, "diversified Kelly"), :func:`~ranger_eval.monitor`'s default.
CS_METHODS: tuple[str, ...] = ("betting", "mixture", "hoeffding", "empirical_bernstein")
#: The order of the paired differences: the log's own (first appearance of each item), or a
#: random permutation drawn from ``seed``.
MONITOR_ORDERS: tuple[str, ...] = ("log", "random")


def _range(value: Any, *, optional: bool) -> tuple[float, float] | None:
    """A finite (lo, hi) with lo < hi."""
    if value is None and optional:
        return None
    if isinstance(value, (str, bytes)) or not isinstance(value, Sequence) or len(value) != 2:
        raise _Bad(f"must be two finite numbers (lo, hi) with lo < hi; got {value!r}")
    lo, hi = value
    if (isinstance(lo, bool) or isinstance(hi, bool) or not isinstance(lo, Real)
            or not isinstance(hi, Real) or not (math.isfinite(lo) and math.isfinite(hi))
            or not lo < hi):
        raise _Bad(f"must be two finite numbers (lo, hi) with lo < hi; got {value!r}")
    return (float(lo), float(hi))


def _bounds(value: Any) -> tuple[float, float]:
    out = _range(value, optional=False)
    assert out is not None
    return out


def _optional_bounds(value: Any) -> tuple[float, float] | None:
    return _range(value, optional=True)


def _nonnegative(value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, Real) or not 0 <= float(value) < math.inf:
        raise _Bad(f"must be a finite number ≥ 0 (in the metric's units); got {value!r}")
    return float(value)


def _interval(value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, Real) or not 0 < float(value) < math.inf:
        raise _Bad(f"must be a number of seconds > 0; got {value!r}")
    return float(value)


_METHOD_HELP = ("betting (Waudby-Smith & Ramdas 2023, confseq's betting_cs), mixture (the "
                "betting CS with a mixture of ten constant bets, their diversified Kelly), "
                "hoeffding or empirical_bernstein (Howard et al. 2021's conjugate mixtures).")
_T_OPT_HELP = ("Observations at which hoeffding / empirical_bernstein are tightest (v_opt = "
               "t_opt/4 for empirical_bernstein); betting ignores it.")


@dataclass(frozen=True)
class ConfidenceSequenceSettings(_Settings):
    """The settings of :func:`~ranger_eval.confidence_sequence` (its keyword defaults are these
    fields'): the level of the sequence, the range of the observations, the method, the
    population size when items are drawn without replacement from a finite benchmark, and the
    tuning time of the two conjugate-mixture sequences. Python only.

    Parameters
    ----------
    level : float, default 0.95
        Confidence level of the sequence (coverage at every time at once), in (0, 1).
    bounds : (float, float), default (0.0, 1.0)
        The range every observation lies in; the sequence is computed on (x - lo)/(hi - lo).
    method : str, default 'betting'
        betting (Waudby-Smith & Ramdas 2023, confseq's betting_cs), mixture (the betting CS
        with a mixture of ten constant bets, their diversified Kelly), hoeffding or
        empirical_bernstein (Howard et al. 2021's conjugate mixtures).
    n_population : int, optional
        Population size N when sampling without replacement (betting and mixture).
    t_opt : int, default 500
        Observations at which hoeffding / empirical_bernstein are tightest (v_opt = t_opt/4
        for empirical_bernstein); betting ignores it.

    Raises
    ------
    SettingsError
        A refused value, naming the key and the value.

    Examples
    --------
    >>> from ranger_eval.settings import ConfidenceSequenceSettings
    >>> ConfidenceSequenceSettings(bounds=(0, 100)).bounds
    (0.0, 100.0)
    """

    command: ClassVar[str] = "confidence_sequence"
    section: ClassVar[str] = "confidence_sequence"

    level: float = _setting(0.95, "Confidence level of the sequence (coverage at every time at "
                            "once), in (0, 1).", _level, yaml=None, signature="level")
    bounds: tuple[float, float] = _setting(
        (0.0, 1.0), "The range every observation lies in; the sequence is computed on (x - lo)/"
        "(hi - lo).", _bounds, yaml=None, cli=False, signature="bounds")
    method: str = _setting("betting", _METHOD_HELP, _choice(CS_METHODS, "confidence sequence"),
                           yaml=None, signature="method")
    n_population: int | None = _setting(
        None, "Population size N when sampling without replacement (betting and mixture).",
        _whole(1, optional=True), yaml=None, cli=False, signature="N")
    t_opt: int = _setting(500, _T_OPT_HELP, _whole(1), yaml=None, signature="t_opt")


@dataclass(frozen=True)
class MonitorSettings(_Settings):
    """The settings of :func:`~ranger_eval.monitor` and ``ranger-eval monitor`` (the function's
    keyword defaults are these fields'): an anytime-valid confidence sequence on the mean paired
    difference treatment − control, in the items' order, with a decision after each item.
    ``margin`` > 0 also allows "equivalent within margin"; ``bounds`` is the metric's range
    when the scores do not declare one (0/1 scores need none). Command line and Python.

    Parameters
    ----------
    dataset : str, optional
        The dataset to monitor (default: the only one).
    metric : str, optional
        The metric to monitor (default: the only one).
    level : float, default 0.95
        Confidence level of the sequence (coverage at every time at once), in (0, 1).
    margin : float, default 0.0
        Differences within ±margin do not matter, ≥ 0 (metric units); > 0 allows "equivalent
        within margin".
    method : str, default 'mixture'
        betting (Waudby-Smith & Ramdas 2023, confseq's betting_cs), mixture (the betting CS
        with a mixture of ten constant bets, their diversified Kelly), hoeffding or
        empirical_bernstein (Howard et al. 2021's conjugate mixtures).
    bounds : (float, float), optional
        The metric's range (lo, hi) when the scores do not declare one; differences lie in [lo
        - hi, hi - lo].
    order : str, default 'log'
        Order of the items: log (as the log records them, first appearance) or random (a
        permutation drawn from seed).
    seed : int, default 0
        Seed of order=random, ≥ 0.
    t_opt : int, default 500
        Observations at which hoeffding / empirical_bernstein are tightest (v_opt = t_opt/4
        for empirical_bernstein); betting ignores it.
    interval : float, default 10.0
        Seconds between two reads of the logs with --follow.
    max_rounds : int, default 360
        Reads of the logs with --follow before it gives up without a decision (360 × 10 s:
        one hour), ≥ 1.

    Raises
    ------
    SettingsError
        A refused value, naming the key and the value.

    Examples
    --------
    >>> from ranger_eval.settings import MonitorSettings
    >>> MonitorSettings(margin=0.02).margin
    0.02
    """

    command: ClassVar[str] = "monitor"
    section: ClassVar[str] = "monitor"

    dataset: str | None = _setting(None, "The dataset to monitor (default: the only one).",
                                   _name, yaml=None)
    metric: str | None = _setting(None, "The metric to monitor (default: the only one).",
                                  _name, yaml=None)
    level: float = _setting(0.95, "Confidence level of the sequence (coverage at every time at "
                            "once), in (0, 1).", _level, yaml=None, signature="level")
    margin: float = _setting(
        0.0, "Differences within ±margin do not matter, ≥ 0 (metric units); > 0 allows "
        "\"equivalent within margin\".", _nonnegative, yaml=None, signature="margin")
    method: str = _setting("mixture", _METHOD_HELP, _choice(CS_METHODS, "confidence sequence"),
                           yaml=None, cli="sequence", signature="method")
    bounds: tuple[float, float] | None = _setting(
        None, "The metric's range (lo, hi) when the scores do not declare one; differences lie "
        "in [lo - hi, hi - lo].", _optional_bounds, yaml=None, cli=False, signature="bounds")
    order: str = _setting("log", "Order of the items: log (as the log records them, first "
                          "appearance) or random (a permutation drawn from seed).",
                          _choice(MONITOR_ORDERS, "order"), yaml=None, signature="order")
    seed: int = _setting(0, "Seed of order=random, ≥ 0.", _whole(0), yaml=None,
                         signature="seed")
    t_opt: int = _setting(500, _T_OPT_HELP, _whole(1), yaml=None, signature="t_opt")
    interval: float = _setting(10.0, "Seconds between two reads of the logs with --follow.",
                               _interval, yaml=None)
    max_rounds: int = _setting(360, "Reads of the logs with --follow before it gives up "
                               "without a decision (360 × 10 s: one hour), ≥ 1.", _whole(1),
                               yaml=None)
