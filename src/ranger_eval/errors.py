"""One error hierarchy for every layer, and the validators that all layers share.

Every error a user can trigger is a :class:`RangerError` (a ``ValueError``, so ``except
ValueError`` keeps working) and its message names the file, key, line or argument and the
offending value. Each layer has its own subclass, so callers can catch one layer's errors:

=====================  ==========================================  =====================
class                  raised by                                   layer
=====================  ==========================================  =====================
InputError             score/table readers (file, line, text)      io
ConfigError            experiment YAML / command options (key)     io, pipeline
SettingsError          an analysis setting (key, value)            settings
ScoresError            ``Scores`` construction, pairing            scores
IRError                IR evaluation options (base of the next 3)  ir
TrecFormatError        TREC run/qrels readers                      ir
MeasureError           measure names (``nDCG@10``)                 ir
MissingTopicsError     ``missing="error"`` in IR evaluation        ir
StatsInputError        statistical tests, corrections              stats
EffectSizeError        effect sizes                                effects
MetaInputError         meta-analysis input                         meta
ConvergenceError       iterative τ² estimators                     meta
CompareError           multi-system comparison                     comparison
AggregateError         aggregation, rankings, rank tests           aggregate
VerdictError           prediction-powered inference (ppi_mean)     verdicts
PlotError              figures (layout, bad result objects)        plots
ReportError            tables and reports                          report
=====================  ==========================================  =====================

The validators (:func:`check_level`, :func:`check_alternative`,
:func:`check_correction`, :func:`check_choice`) take the layer's error class as ``error=`` so that
a bad ``level`` is reported the same way everywhere and caught as that layer's error.

A keyword renamed for the one vocabulary of ``docs/architecture.md`` (e.g. ``alpha`` → ``level``)
is rejected by :func:`renamed_keywords` / :func:`reject_renamed` with a
:class:`RenamedKeywordError` (also a ``TypeError``, as any unknown keyword) naming its replacement.
"""
from __future__ import annotations

import difflib
import functools
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from numbers import Real
from typing import ParamSpec, TypeVar

__all__ = [
    "ANY",
    "ALTERNATIVES",
    "CORRECTIONS",
    "CORRECTION_ALIASES",
    "AggregateError",
    "CompareError",
    "ConfigError",
    "ConvergenceError",
    "EffectSizeError",
    "Hint",
    "in_callers_words",
    "speaking",
    "IRError",
    "RangerWarning",
    "Said",
    "InputError",
    "MeasureError",
    "MetaInputError",
    "MissingInputError",
    "MissingTopicsError",
    "PlotError",
    "RangerError",
    "RenamedKeywordError",
    "ReportError",
    "ScoresError",
    "SettingsError",
    "StatsInputError",
    "TrecFormatError",
    "VerdictError",
    "DuplicateEntryError",
    "check_alternative",
    "check_choice",
    "check_correction",
    "check_level",
    "reject_renamed",
    "renamed_keywords",
    "suggest",
]


class _Any:
    """The value of a :class:`Hint` that names a keyword without a value (``pass metric=``)."""

    def __repr__(self) -> str:
        return "ANY"


#: :attr:`Hint.value` of a hint that names the keyword only
ANY: object = _Any()


@dataclass(frozen=True)
class Hint:
    """A keyword argument that would fix an error, kept as data so that each front end says it in
    its own words: the Python API writes :attr:`text` (``pass missing='intersect'``, ``pass
    metric=``) into the message; the command line replaces that text with its option
    (``pass --missing intersect``, ``pass --metric``; ``ranger_eval.cli._common.cli_words``).

    ``form`` ``"pass"`` says it as an instruction (``pass cluster='passage'``), ``"set"`` as the
    setting alone, for a sentence of its own (``read the log with cluster='passage'``; the command
    line: ``read the log with --cluster passage``). Warnings carry hints too
    (:class:`RangerWarning`).

    Parameters
    ----------
    keyword : str
        The keyword argument.
    value : object, optional
        Its value (default :data:`ANY`: the keyword alone).
    form : {"pass", "set"}, default "pass"
        An instruction, or the setting alone.

    Examples
    --------
    >>> from ranger_eval.errors import Hint
    >>> Hint("missing", "intersect").text, Hint("metric").text
    ("pass missing='intersect'", 'pass metric=')
    >>> Hint("cluster", "passage", form="set").text
    "cluster='passage'"
    """

    keyword: str
    value: object = ANY
    form: str = "pass"

    def __post_init__(self) -> None:
        if self.form not in ("pass", "set"):
            raise ValueError(f"Hint form must be 'pass' or 'set'; got {self.form!r}")

    @property
    def text(self) -> str:
        """How the Python API says it: ``pass KEYWORD=VALUE`` (``pass KEYWORD=`` without one),
        or ``KEYWORD=VALUE`` in the ``"set"`` form."""
        said = f"{self.keyword}=" + ("" if self.value is ANY else repr(self.value))
        return said if self.form == "set" else f"pass {said}"


#: How the running front end says a :class:`Hint` (None: the Python API's own words). Set by the
#: command line for the duration of one command (:func:`speaking`), so that every warning
#: recorded during it — on stderr, in a result, in manifest.json — names its options.
_SPEAKER: ContextVar[Callable[[Hint], str | None] | None] = ContextVar("ranger_speaker",
                                                                       default=None)


@contextmanager
def speaking(words: Callable[[Hint], str | None]) -> Iterator[None]:
    """Within the block, :func:`in_callers_words` says each hint with ``words`` (the command
    line's: ``--cluster passage``); ``words`` returns None for a hint the front end has no
    words for (then the text says the Python words are the Python API's).

    Parameters
    ----------
    words : callable
        :class:`Hint` → the front end's words for it, or None.

    Returns
    -------
    contextlib.AbstractContextManager of None
        A context manager (the generator yields nothing): its block runs with ``words`` as the
        speaker, and the previous speaker is restored after it, even on an exception.

    Examples
    --------
    >>> from ranger_eval.errors import Hint, in_callers_words, speaking
    >>> hint = Hint("missing", "intersect")
    >>> with speaking(lambda h: "pass --missing intersect" if h.keyword == "missing" else None):
    ...     in_callers_words("items differ; pass missing='intersect'", [hint])
    'items differ; pass --missing intersect'
    """
    token = _SPEAKER.set(words)
    try:
        yield
    finally:
        _SPEAKER.reset(token)


def in_callers_words(text: str, hints: Iterable[Hint]) -> str:
    """``text`` with the Python words of each hint (:attr:`Hint.text`) replaced by the running
    front end's (:func:`speaking`); unchanged from the Python API.

    Parameters
    ----------
    text : str
        A message in the Python API's words.
    hints : iterable of Hint
        The hints whose :attr:`Hint.text` the message contains.

    Returns
    -------
    str
        The message as the running front end says it (a hint it has no words for becomes
        ``in the Python API, pass …``).

    Examples
    --------
    >>> from ranger_eval.errors import Hint, in_callers_words, speaking
    >>> text = "several metrics; pass metric="
    >>> in_callers_words(text, [Hint("metric")])
    'several metrics; pass metric='
    >>> with speaking(lambda h: None):
    ...     in_callers_words(text, [Hint("metric")])
    'several metrics; in the Python API, pass metric='
    """
    words_of = _SPEAKER.get()
    if words_of is None:
        return text
    for hint in hints:
        words = words_of(hint)
        text = text.replace(hint.text, f"in the Python API, {hint.text}" if words is None
                            else words)
    return text


class RangerWarning(UserWarning):
    """A warning whose message names keyword arguments (its :class:`Hint` s), so that the
    command line can say them as options, as it does for a :class:`RangerError`'s hints."""

    hints: tuple[Hint, ...] = ()

    def __init__(self, *args: object, hints: Sequence[Hint] = ()) -> None:
        super().__init__(*args)
        if hints:
            self.hints = tuple(hints)


class Said(str):
    """The one-line text of a warning together with its :class:`Hint` s (a ``str``: written to
    manifests and results as the Python API says it; the command line renders the hints).

    Parameters
    ----------
    text : str
        The warning's text in the Python API's words.
    hints : sequence of Hint, optional
        The hints the text contains.

    Examples
    --------
    >>> from ranger_eval.errors import Hint, Said
    >>> said = Said("2 items dropped; pass missing='intersect'", [Hint("missing", "intersect")])
    >>> isinstance(said, str), [h.keyword for h in said.hints]
    (True, ['missing'])
    """

    hints: tuple[Hint, ...]

    def __new__(cls, text: str, hints: Sequence[Hint] = ()) -> Said:
        out = super().__new__(cls, text)
        out.hints = tuple(hints)
        return out


class RangerError(ValueError):
    """Base of every error Ranger raises on bad input; the message says what and where.

    ``hints`` are the :class:`Hint` s whose :attr:`Hint.text` the message contains, so that the
    command line can name its options instead of Python keywords."""

    hints: tuple[Hint, ...] = ()

    def __init__(self, *args: object, hints: Sequence[Hint] = ()) -> None:
        super().__init__(*args)
        if hints:
            self.hints = tuple(hints)


class InputError(RangerError):
    """Unreadable or invalid input file; the message names the file, line and text."""


class MissingInputError(InputError, FileNotFoundError):
    """An input file that does not exist (also a ``FileNotFoundError``, as before it was a
    RangerError); the message names the path."""


class ConfigError(RangerError):
    """Invalid experiment configuration or command option; the message names the key."""


class ScoresError(RangerError):
    """Invalid per-item scores (missing columns, duplicates, mismatched items ...)."""


class IRError(RangerError):
    """Invalid input to the IR engine (evaluation options, runs, qrels, measures)."""


class TrecFormatError(IRError):
    """Malformed TREC run or qrels file; the message names the file, line and text."""


class DuplicateEntryError(TrecFormatError):
    """A document listed twice for one query in a run or qrels file."""


class MeasureError(IRError):
    """Unknown or malformed IR measure name."""


class MissingTopicsError(IRError):
    """Qrels topics absent from a run, with ``missing="error"``."""


class StatsInputError(RangerError):
    """Bad input to a statistical test (wrong length, NaN, too few items, unknown option ...)."""


class EffectSizeError(RangerError):
    """Effect size cannot be computed (degenerate data, bad arguments); names the dataset."""


class MetaInputError(RangerError):
    """Invalid input to the meta-analysis (lengths, non-finite values, variances ≤ 0 ...)."""


class ConvergenceError(RangerError, RuntimeError):
    """An iterative τ² estimator did not converge (also a ``RuntimeError``, as before)."""


class CompareError(RangerError):
    """Invalid arguments or data for the multi-system comparison."""


class AggregateError(RangerError):
    """Invalid input to an aggregation, ranking or multi-dataset rank test."""


class VerdictError(RangerError):
    """Invalid input to a verdict beyond the p-value (prediction-powered inference, …)."""


class PlotError(RangerError):
    """A figure cannot be drawn from the given result (names the argument and value)."""


class ReportError(RangerError):
    """A table or report cannot be written from the given result."""


class SettingsError(ConfigError, CompareError, AggregateError, VerdictError, StatsInputError,
                    EffectSizeError):
    """An invalid analysis setting (a field of a settings object: ``CompareSettings``,
    ``MetaSettings``, ``ArenaSettings``, ``PlanSettings``, …); the message names the key and the
    value. One class wherever the setting comes from (Python keyword, command-line option, YAML
    key); also the error of the analysis it configures, so ``except CompareError`` around
    ``compare`` still catches a bad ``level`` (``VerdictError`` around ``bradley_terry``,
    ``StatsInputError`` around ``plan``, ``EffectSizeError`` around ``effect_sizes``)."""


class RenamedKeywordError(RangerError, TypeError):
    """A keyword argument that was renamed (one word per concept across the API, the glossary of
    docs/architecture.md); the message names the new keyword. Also a ``TypeError``, like any
    other unexpected keyword."""


# --------------------------------------------------------------------------- shared validators
ALTERNATIVES: tuple[str, ...] = ("two-sided", "greater", "less")

#: statsmodels' ``multipletests`` method names, plus "none".
CORRECTIONS: tuple[str, ...] = (
    "bonferroni", "sidak", "holm-sidak", "holm", "simes-hochberg", "hommel",
    "fdr_bh", "fdr_by", "fdr_tsbh", "fdr_tsbky", "none", "westfall-young",
)
CORRECTION_ALIASES: dict[str, str] = {
    "hochberg": "simes-hochberg",
    "bh": "fdr_bh",
    "benjamini-hochberg": "fdr_bh",
    "by": "fdr_by",
    "benjamini-yekutieli": "fdr_by",
}


def suggest(value: object, choices: Sequence[str]) -> str:
    """`` (did you mean 'REML'?)`` when ``value`` is close to one of ``choices``, else ``""``.

    A case-insensitive exact match wins; otherwise :func:`difflib.get_close_matches` with
    cutoff 0.6 on the lower-cased names.

    Parameters
    ----------
    value : object
        The refused value (its ``str``).
    choices : sequence of str
        The valid names.

    Returns
    -------
    str
        The suffix to append to an error message, or ``""``.

    Examples
    --------
    >>> from ranger_eval.errors import suggest
    >>> suggest("reml", ["REML", "DL"]), suggest("zzz", ["REML", "DL"])
    (" (did you mean 'REML'?)", '')
    """
    text = str(value)
    lowered = {c.lower(): c for c in choices}
    if text.lower() in lowered:
        return f" (did you mean {lowered[text.lower()]!r}?)"
    close = difflib.get_close_matches(text.lower(), list(lowered), n=1, cutoff=0.6)
    return f" (did you mean {lowered[close[0]]!r}?)" if close else ""


def check_choice(
    name: str, value: object, choices: Sequence[str], *, error: type[RangerError] = RangerError
) -> str:
    """Return ``value`` if it is one of ``choices``; else raise ``error`` listing them.

    Parameters
    ----------
    name : str
        What the value is, for the message (``"order"``).
    value : object
        The value to check (case-sensitive).
    choices : sequence of str
        The valid values.
    error : type, default RangerError
        The :class:`RangerError` subclass to raise.

    Returns
    -------
    str
        ``value`` unchanged.

    Raises
    ------
    RangerError
        Of class ``error``: not one of ``choices`` (with a :func:`suggest` ion).

    Examples
    --------
    >>> from ranger_eval.errors import ConfigError, check_choice
    >>> check_choice("order", "effect", ["given", "effect"])
    'effect'
    >>> check_choice("order", "efect", ["given", "effect"], error=ConfigError)
    Traceback (most recent call last):
    ...
    ranger_eval.errors.ConfigError: unknown order 'efect': order must be one of 'given', 'effect' (did you mean 'effect'?)
    """
    if not isinstance(value, str) or value not in choices:
        raise error(
            f"unknown {name} {value!r}: {name} must be one of "
            f"{', '.join(repr(c) for c in choices)}" + suggest(value, choices)
        )
    return value


def _fraction(name: str, value: object, example: str, error: type[RangerError]) -> float:
    if isinstance(value, bool) or not isinstance(value, Real):
        raise error(f"{name}: must be a number strictly between 0 and 1 (e.g. {example}); "
                    f"got {value!r}")
    v = float(value)
    if not 0.0 < v < 1.0:  # also rejects NaN
        raise error(f"{name}: must be strictly between 0 and 1 (e.g. {example}); got {value!r}")
    return v


def check_level(level: object, *, error: type[RangerError] = RangerError) -> float:
    """A confidence level strictly between 0 and 1 (e.g. 0.95), as a float.

    Parameters
    ----------
    level : object
        The value to check (a real number, not a bool).
    error : type, default RangerError
        The :class:`RangerError` subclass to raise.

    Returns
    -------
    float

    Raises
    ------
    RangerError
        Of class ``error``: not a number strictly between 0 and 1.

    Examples
    --------
    >>> from ranger_eval.errors import check_level
    >>> check_level(0.9)
    0.9
    >>> check_level(1.5)
    Traceback (most recent call last):
    ...
    ranger_eval.errors.RangerError: level: must be strictly between 0 and 1 (e.g. 0.95); got 1.5
    """
    return _fraction("level", level, "0.95", error)


def check_alternative(alternative: object, *, error: type[RangerError] = RangerError) -> str:
    """One of ``"two-sided"``, ``"greater"``, ``"less"``.

    Parameters
    ----------
    alternative : object
        The value to check.
    error : type, default RangerError
        The :class:`RangerError` subclass to raise.

    Returns
    -------
    str
        ``alternative`` unchanged.

    Raises
    ------
    RangerError
        Of class ``error``: another value (listing the three).

    Examples
    --------
    >>> from ranger_eval.errors import check_alternative
    >>> check_alternative("less")
    'less'
    """
    return check_choice("alternative", alternative, ALTERNATIVES, error=error)


def check_correction(correction: object, *, error: type[RangerError] = RangerError) -> str:
    """A multiplicity correction: a statsmodels ``multipletests`` name, an alias, or ``"none"``.

    Returns the canonical statsmodels name (aliases resolved, lower case).

    Parameters
    ----------
    correction : object
        A name of :data:`CORRECTIONS` or :data:`CORRECTION_ALIASES`, in any case.
    error : type, default RangerError
        The :class:`RangerError` subclass to raise.

    Returns
    -------
    str
        The canonical name (``"BH"`` → ``"fdr_bh"``).

    Raises
    ------
    RangerError
        Of class ``error``: not a string, or an unknown name (listing the valid ones).

    References
    ----------
    Holm, S. (1979), "A simple sequentially rejective multiple test procedure", Scandinavian
    Journal of Statistics 6:65–70; Benjamini, Y. & Hochberg, Y. (1995), "Controlling the false
    discovery rate", JRSS B 57:289–300 (statsmodels ``multipletests`` names the rest).

    Examples
    --------
    >>> from ranger_eval.errors import check_correction
    >>> check_correction("BH"), check_correction("Holm")
    ('fdr_bh', 'holm')
    >>> check_correction("holmes")
    Traceback (most recent call last):
    ...
    ranger_eval.errors.RangerError: unknown correction 'holmes'; valid: ... (did you mean 'holm'?)
    """
    if not isinstance(correction, str):
        raise error(f"correction must be a method name; got {correction!r}")
    key = CORRECTION_ALIASES.get(correction.lower(), correction.lower())
    if key not in CORRECTIONS:
        valid = (*CORRECTIONS, *CORRECTION_ALIASES)
        raise error(
            f"unknown correction {correction!r}; valid: {', '.join(repr(m) for m in valid)}"
            + suggest(correction, valid)
        )
    return key


# --------------------------------------------------------------------------- renamed keywords
_P = ParamSpec("_P")
_R = TypeVar("_R")


def _rename_hint(old: str, new: str, value: object) -> str:
    """What to pass instead, with the value converted where the meaning flips (α → level,
    lower → higher is better)."""
    if old == "alpha" and new == "level":
        hint = " (the confidence level; the significance level alpha is 1 - level)"
        if isinstance(value, Real) and not isinstance(value, bool) and 0.0 < float(value) < 1.0:
            return hint + f": alpha={float(value):g} is level={1.0 - float(value):.12g}"
        return hint
    if old == "lower_is_better" and new == "higher_is_better" and isinstance(value, bool):
        return f": lower_is_better={value} is higher_is_better={not value}"
    return ""


def reject_renamed(kwargs: Mapping[str, object], renames: Mapping[str, str], *, where: str) -> None:
    """Raise :class:`RenamedKeywordError` if ``kwargs`` holds a key of ``renames`` (old → new).

    ``where`` names the function or command in the message, e.g. ``"rank_test"``.

    Parameters
    ----------
    kwargs : mapping of {str: object}
        The keywords of the call.
    renames : mapping of {str: str}
        Old keyword → new keyword.
    where : str
        The function or command.

    Returns
    -------
    None
        Returns quietly when no old keyword is present.

    Raises
    ------
    RenamedKeywordError
        An old keyword, naming the new one (``alpha`` also converted to its ``level``).

    Examples
    --------
    >>> from ranger_eval.errors import reject_renamed
    >>> reject_renamed({"level": 0.95}, {"alpha": "level"}, where="plan")
    >>> reject_renamed({"alpha": 0.05}, {"alpha": "level"}, where="plan")
    Traceback (most recent call last):
    ...
    ranger_eval.errors.RenamedKeywordError: plan() has no keyword 'alpha': it is called 'level' now (...): alpha=0.05 is level=0.95
    """
    for old, new in renames.items():
        if old in kwargs:
            raise RenamedKeywordError(
                f"{where}() has no keyword {old!r}: it is called {new!r} now"
                + _rename_hint(old, new, kwargs[old])
            )


def renamed_keywords(**renames: str) -> Callable[[Callable[_P, _R]], Callable[_P, _R]]:
    """Decorator: calling the function with an old keyword (``old="new"`` pairs) raises
    :class:`RenamedKeywordError` naming the new one, instead of Python's bare "unexpected keyword
    argument". The signature seen by :func:`inspect.signature` is the function's own.

    Parameters
    ----------
    **renames : str
        ``old="new"`` pairs.

    Returns
    -------
    callable
        The decorator.

    Examples
    --------
    >>> from ranger_eval.errors import renamed_keywords
    >>> @renamed_keywords(n_bootstrap="n_resamples")
    ... def count(*, n_resamples=10):
    ...     return n_resamples
    >>> count(n_resamples=3)
    3
    >>> count(n_bootstrap=3)
    Traceback (most recent call last):
    ...
    ranger_eval.errors.RenamedKeywordError: count() has no keyword 'n_bootstrap': it is called 'n_resamples' now
    """

    def decorate(fn: Callable[_P, _R]) -> Callable[_P, _R]:
        old_names = frozenset(renames)

        @functools.wraps(fn)
        def wrapper(*args: _P.args, **kwargs: _P.kwargs) -> _R:
            if kwargs and not old_names.isdisjoint(kwargs):
                reject_renamed(kwargs, renames, where=fn.__name__)
            return fn(*args, **kwargs)

        return wrapper

    return decorate
