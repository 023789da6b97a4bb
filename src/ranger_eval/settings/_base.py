"""The machinery of every settings object: :class:`Setting` (a field's metadata), the value
checks, the shared base class and the views the consumers read (:func:`settings_fields`,
:func:`signature_fields`, :func:`check_value`, :func:`check_whole`, :func:`resolve_settings`,
:func:`cli_options`)."""
from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from numbers import Integral, Real
from typing import Any, ClassVar, Literal, TypeVar

from ..errors import (
    CORRECTIONS,
    ConfigError,
    SettingsError,
    check_correction,
    check_level,
    suggest,
)

#: Largest ``n_resamples`` accepted (permutation and bootstrap tests, bootstrap effect sizes):
#: 10^8. At 10^8 resamples the Monte Carlo standard error of a p-value near 0.05 is already
#: sqrt(0.05·0.95/10^8) ≈ 2e-5; a larger value is almost surely a typo whose run would not end
#: in any useful time, so it is refused (naming the key and the value) before any work.
MAX_RESAMPLES = 100_000_000

# The values each choice takes (the analysis modules import them from here).
COMPARE_TESTS: tuple[str, ...] = ("auto", "paired-t", "welch", "wilcoxon", "sign", "mannwhitney",
                                  "mcnemar", "proportions-z", "permutation", "bootstrap")
PAIR_ORDERS: tuple[str, ...] = ("all", "baseline", "successive")
FAMILIES: tuple[str, ...] = ("dataset-metric", "dataset", "all")
MISSING: tuple[str, ...] = ("error", "intersect")
SEED_POLICIES: tuple[str, ...] = ("balanced", "allow-unbalanced")
RANK_ORDERS: tuple[str, ...] = ("successive", "all", "first-vs-rest")
POSTHOCS: tuple[str, ...] = ("nemenyi", "bonferroni-dunn", "holm", "wilcoxon", "conover")
#: How rank_test decides between systems: Demšar's frequentist rank tests, or autorank's
#: Bayesian signed-rank test of every pair with a ROPE (Benavoli et al. 2017), which can also
#: say two systems are practically equivalent.
APPROACHES: tuple[str, ...] = ("frequentist", "bayesian")
#: How the Bayesian rank test's ROPE is set (autorank's ``rope_mode``).
ROPE_MODES: tuple[str, ...] = ("effsize", "absolute")
META_METHODS: tuple[str, ...] = ("FE", "EE", "DL", "HE", "HS", "SJ", "ML", "REML", "EB", "PM")
META_TESTS: tuple[str, ...] = ("z", "t", "knha")
MEASURES: tuple[str, ...] = ("MD", "SMD", "SMCC", "SMCR", "ZCOR")
META_ORDERS: tuple[str, ...] = ("given", "effect", "weight", "name")
DEGENERATE: tuple[str, ...] = ("error", "drop")
#: What a comparison sets out to show: a difference (superiority, the classical
#: two-sided or one-sided test), no loss beyond a margin (non-inferiority) or no difference
#: beyond a margin either way (equivalence, two one-sided tests).
HYPOTHESES: tuple[str, ...] = ("superiority", "non-inferiority", "equivalence")
#: The tests that have a non-inferiority / equivalence version (``comparison.hypothesis``).
MARGIN_TESTS: tuple[str, ...] = ("auto", "paired-t", "welch", "proportions-z", "mcnemar")
#: The cluster-robust variances of compare's clustered paired t
#: (:mod:`ranger_eval.comparison.clustered`): CR2 with Bell–McCaffrey df (default) or CR1 with t
#: on C − 1 df (statsmodels, sandwich HC1, Inspect).
CLUSTER_SES: tuple[str, ...] = ("CR2", "CR1")
_RESAMPLING = ("permutation", "bootstrap")
_WESTFALL_YOUNG = "westfall-young"
assert _WESTFALL_YOUNG in CORRECTIONS


class _Bad(Exception):
    """A value refused by a check; ``__post_init__`` turns it into a SettingsError naming the key."""


Check = Callable[[Any], Any]
_S = TypeVar("_S", bound="_Settings")


@dataclass(frozen=True)
class Setting:
    """What a settings field is, for every consumer.

    ``help``: one line for ``--help`` and ``docs/configuration.md`` (the default is shown after
    it); ``cli``: whether the command has an option ``--NAME`` (``_`` → ``-``)
    for it, or the option's name when it differs (``metric`` for ``metrics``); ``yaml``: where the experiment YAML takes it: ``"section"`` (the command's section),
    ``"top"`` (the top level, shared by every command), ``"both"``, or ``None`` (Python only);
    ``signature``: the key under which the result's signature records it (``None``: not
    recorded; compare records the level as ``alpha`` = 1 − level); ``check``: returns the canonical value or raises ``_Bad(reason)``;
    ``flag``: when not None, the command-line option is a flag (no value) that sets the field
    to ``flag`` (``--drop-degenerate`` → ``degenerate="drop"``); ``metavar``: the value's
    placeholder in ``--help`` (``true|false``).

    Parameters
    ----------
    help : str
        The one-line help.
    check : callable
        Value → canonical value, raising ``_Bad(reason)`` for a refused value.
    cli : bool or str, default True
        Whether the command has an option for the field, or the option's name.
    yaml : {"section", "top", "both"} or None, default "section"
        Where the experiment YAML takes the field.
    signature : str, optional
        The signature key recording the field.
    flag : object, optional
        The value a flag option sets.
    metavar : str, optional
        The value's placeholder in ``--help``.

    Examples
    --------
    >>> from ranger_eval.settings import CompareSettings, settings_fields
    >>> default, meta = settings_fields(CompareSettings)["n_resamples"]
    >>> default, meta.cli, meta.yaml, meta.signature
    (10000, True, 'section', 'n_resamples')
    """

    help: str
    check: Check
    cli: bool | str = True
    yaml: Literal["section", "top", "both"] | None = "section"
    signature: str | None = None
    flag: Any = None
    metavar: str | None = None


def _setting(default: Any, help: str, check: Check, **meta: Any) -> Any:
    return field(default=default, metadata={"ranger": Setting(help, check, **meta)})


# --------------------------------------------------------------------------- value checks
def _choice(choices: tuple[str, ...], noun: str, *, ignore_case: bool = False,
            optional: bool = False) -> Check:
    def check(value: Any) -> Any:
        if value is None and optional:
            return None
        if isinstance(value, str):
            if value in choices:
                return value
            folded = {c.lower(): c for c in choices}
            if ignore_case and value.lower() in folded:
                return folded[value.lower()]
        raise _Bad(f"unknown {noun} {value!r}; use one of {', '.join(choices)}"
                   + suggest(value, choices))
    return check


def _whole(low: int, high: int | None = None, *, optional: bool = False) -> Check:
    def check(value: Any) -> Any:
        if value is None and optional:
            return None
        if (isinstance(value, bool) or not isinstance(value, Integral) or int(value) < low
                or (high is not None and int(value) > high)):
            if high is None:
                what = f"a whole number ≥ {low}"
            else:
                power = len(str(high)) - 1
                what = f"a whole number from {low} to {high:,}" + (
                    f" (10^{power})" if high == 10**power else "")
            raise _Bad(f"must be {what}; got {value!r}")
        return int(value)
    return check


def _level(value: Any) -> float:
    """errors.check_level: the one level check of every function (``level: must be …``)."""
    try:
        return check_level(value, error=ConfigError)
    except ConfigError as exc:
        raise _Bad(str(exc).removeprefix("level: ")) from None


def _correction(value: Any) -> str:
    try:
        return check_correction(value, error=ConfigError)
    except ConfigError as exc:
        raise _Bad(str(exc).removeprefix("correction ")) from None


def _name(value: Any) -> str | None:
    if value is None or isinstance(value, str) and value:
        return value
    raise _Bad(f"must be a name (text); got {value!r}")


def _names(value: Any) -> tuple[str, ...] | None:
    """None, one name, or a sequence of names (→ tuple of str); no name twice."""
    if value is None:
        return None
    if isinstance(value, str):
        return (value,)
    if isinstance(value, (bytes, Mapping)) or not hasattr(value, "__iter__"):
        raise _Bad(f"must be a name or a list of names; got {value!r}")
    names = tuple(str(v) for v in value)
    dup = sorted({n for n in names if names.count(n) > 1})
    if dup:
        raise _Bad(f"duplicate name(s) {', '.join(map(repr, dup))}")
    return names


def _pairs(value: Any) -> str | tuple[tuple[str, str], ...]:
    """A pairs order, or explicit ``(a, b)`` pairs (checked against the systems by compare)."""
    if isinstance(value, str):
        return _choice(PAIR_ORDERS, "pairs order")(value)
    try:
        pairs = tuple((a, b) for a, b in value)
    except (TypeError, ValueError):
        raise _Bad(f"must be one of {', '.join(PAIR_ORDERS)} or a list of (a, b) system "
                   f"pairs; got {value!r}") from None
    return pairs


def _margin(value: Any) -> float | None:
    """None, or a finite number > 0 (in the metric's units)."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, Real):
        raise _Bad(f"must be a positive number (the largest difference that does not matter); "
                   f"got {value!r}")
    margin = float(value)
    if not (0.0 < margin < float("inf")):
        raise _Bad(f"must be a positive, finite number (the largest difference that does not "
                   f"matter); got {value!r}")
    return margin


def _paired(value: Any) -> bool | None:
    if value is None or isinstance(value, bool):
        return value
    raise _Bad(f"must be True, False or None; got {value!r}")


def _metric_fn(value: Any) -> Any:
    """A set-level metric: a name, a callable, or a list of them (resolved by compare)."""
    if isinstance(value, list):
        return tuple(value)
    return value


def _one_metric_fn(value: Any) -> Any:
    """One set-level metric: a name, or (from Python) a callable or ``SetMetric``, which
    :func:`~ranger_eval.effect_sizes` resolves and checks."""
    return _name(value) if value is None or isinstance(value, str) else value


def _weights(value: Any) -> dict[str, float] | None:
    if value is None:
        return None
    if not isinstance(value, Mapping):
        raise _Bad(f"must be a mapping of name to weight; got {value!r}")
    out = {}
    for k, w in value.items():
        if isinstance(w, bool) or not isinstance(w, Real):
            raise _Bad(f"{k}: weight must be a number; got {w!r}")
        out[str(k)] = float(w)
    return out


def _direction(value: Any) -> dict[str, bool] | bool | None:
    if value is None or isinstance(value, bool):
        return value
    if isinstance(value, Mapping) and all(isinstance(v, bool) for v in value.values()):
        return {str(k): v for k, v in value.items()}
    raise _Bad(f"must be true, false or a mapping of metric to true/false; got {value!r}")


def _bool(value: Any) -> bool:
    if isinstance(value, bool):
        return value
    raise _Bad(f"must be true or false; got {value!r}")


def _rope_check(units: str) -> Callable[[Any], float]:
    """A finite number ≥ 0: the half-width of a region of practical equivalence (``units``
    says in what units, for the message)."""
    def check(value: Any) -> float:
        if isinstance(value, bool) or not isinstance(value, Real) or not 0 <= float(
                value) < float("inf"):
            raise _Bad(f"must be a finite number ≥ 0 (the half-width of the region of practical "
                       f"equivalence, {units}); got {value!r}")
        return float(value)
    return check


def _prior_check(meaning: str, *, optional: bool = False) -> Callable[[Any], float | None]:
    """A finite number > 0 (or None when ``optional``): a Dirichlet prior strength."""
    def check(value: Any) -> float | None:
        if value is None and optional:
            return None
        if isinstance(value, bool) or not isinstance(value, Real) or not 0 < float(
                value) < float("inf"):
            raise _Bad(f"must be a finite number > 0 ({meaning}); got {value!r}")
        return float(value)
    return check


#: The Bayesian rank test's ROPE and prior (RankSettings).
_rank_rope = _rope_check("times each pair's pooled SD or MAD with rope_mode effsize, in the "
                         "metric's units with absolute")
_prior_strength = _prior_check("the Dirichlet prior strength of the pseudo-observation 0")


def _columns(value: Any) -> str | tuple[str, ...] | None:
    """None, one column name, or a sequence of names (→ tuple)."""
    if value is None or isinstance(value, str):
        return value
    return _names(value)


# --------------------------------------------------------------------------- settings classes
class _Settings:
    """Shared behaviour: validate every field once, canonical values, keyword views."""

    #: the command whose settings these are (``ranger-eval COMMAND``) and its YAML section
    command: ClassVar[str]
    section: ClassVar[str]

    def __post_init__(self) -> None:
        for f in dataclasses.fields(self):  # type: ignore[arg-type]
            value = getattr(self, f.name)
            try:
                checked = f.metadata["ranger"].check(value)
            except _Bad as exc:
                raise SettingsError(f"{f.name}: {exc}") from None
            object.__setattr__(self, f.name, checked)
        self._check_combinations()

    def _check_combinations(self) -> None:
        """Checks across fields (none by default)."""

    @classmethod
    def from_options(cls: type[_S], options: Mapping[str, Any], base: _S | None = None) -> _S:
        """``base`` (default: the defaults) with the ``options`` that are not None; an unknown
        option is a :class:`SettingsError` naming it and the known ones."""
        known = {f.name for f in dataclasses.fields(cls)}  # type: ignore[arg-type]
        unknown = sorted(set(options) - known)
        if unknown:
            raise SettingsError(f"{unknown[0]}: unknown {cls.command} setting (known: "
                                f"{', '.join(sorted(known))})" + suggest(unknown[0], sorted(known)))
        given = {k: v for k, v in options.items() if v is not None}
        return (dataclasses.replace(base, **given)  # type: ignore[type-var]
                if base is not None else cls(**given))

    @classmethod
    def from_keywords(cls: type[_S], keywords: Mapping[str, Any], *, where: str) -> _S:
        """The settings of a Python call's ``keywords`` (None is a value here, e.g.
        ``seed=None``); a keyword that is no field is a :class:`SettingsError` naming it and
        ``where`` (the function)."""
        known = [f.name for f in dataclasses.fields(cls)]  # type: ignore[arg-type]
        unknown = sorted(set(keywords) - set(known))
        if unknown:
            raise SettingsError(f"{where}: unknown argument(s) {', '.join(unknown)} (known: "
                                f"{', '.join(known)})" + suggest(unknown[0], known))
        return cls(**keywords)

    def as_dict(self) -> dict[str, Any]:
        """The fields as keywords (``compare(scores, **settings.as_dict())``)."""
        return {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}  # type: ignore[arg-type]


# --------------------------------------------------------------------------- views
def settings_fields(cls: type[_Settings]) -> dict[str, tuple[Any, Setting]]:
    """``{name: (default, Setting)}`` of a settings class, in field order.

    Parameters
    ----------
    cls : type
        A settings class (:class:`CompareSettings`, :class:`PlanSettings`, …).

    Returns
    -------
    dict of {str: (object, Setting)}
        Each field's default and its :class:`Setting` metadata.

    Examples
    --------
    >>> from ranger_eval.settings import WinRateSettings, settings_fields
    >>> fields = settings_fields(WinRateSettings)
    >>> list(fields), fields["level"][0], fields["level"][1].signature
    (['higher_is_better', 'level', 'n_resamples', 'seed'], 0.95, 'level')
    """
    return {f.name: (f.default, f.metadata["ranger"])
            for f in dataclasses.fields(cls)}  # type: ignore[arg-type]


def signature_fields(cls: type[_Settings], result: object,
                     formatted: Mapping[str, Any]) -> dict[str, Any]:
    """``{key: value}`` of the settings a result's signature records: one entry per
    ``Setting.signature`` key of ``cls``, in field order (a key that two fields share, such as
    compare's ``pairs`` for ``pairs`` and ``baseline``, once). The value is ``formatted[key]``
    when the result spells it its own way (compare's ``level`` to 6 digits,
    ``pairs`` = ``baseline(NAME)``), else the result's attribute of the field's name; so a new
    field marked for the signature shows up in it without a second list, and one the result does
    not hold is an ``AttributeError`` (``tests/test_settings.py`` checks every field).

    Parameters
    ----------
    cls : type
        The settings class of the result.
    result : object
        The result, holding an attribute per recorded field.
    formatted : mapping of {str: object}
        Keys whose value the result spells its own way (used instead of the attribute).

    Returns
    -------
    dict of {str: object}
        Signature key → value, in field order.

    Examples
    --------
    >>> from types import SimpleNamespace
    >>> from ranger_eval.settings import WinRateSettings, signature_fields
    >>> result = SimpleNamespace(level=0.9, n_resamples=100, seed=3)
    >>> signature_fields(WinRateSettings, result, {"level": "0.900"})
    {'level': '0.900', 'n_resamples': 100, 'seed': 3}
    """
    out: dict[str, Any] = {}
    for name, (_, meta) in settings_fields(cls).items():
        key = meta.signature
        if key is not None and key not in out:
            out[key] = formatted[key] if key in formatted else getattr(result, name)
    return out


def check_value(cls: type[_Settings], name: str, value: Any) -> Any:
    """``value`` checked (and made canonical) as field ``name`` of ``cls`` is, alone: a
    :class:`SettingsError` ``NAME: reason`` (e.g. one command-line option or YAML key).

    Parameters
    ----------
    cls : type
        The settings class.
    name : str
        One of its fields.
    value : object
        The value to check.

    Returns
    -------
    object
        The canonical value (``"dl"`` → ``"DL"``, sequences → tuples, …).

    Raises
    ------
    SettingsError
        A refused value, ``NAME: reason; got VALUE``.

    Examples
    --------
    >>> from ranger_eval.settings import MetaSettings, check_value
    >>> check_value(MetaSettings, "method", "dl")
    'DL'
    >>> check_value(MetaSettings, "method", "xx")
    Traceback (most recent call last):
    ...
    ranger_eval.errors.SettingsError: method: unknown τ² estimator 'xx'; use one of FE, EE, DL, ...
    """
    try:
        return settings_fields(cls)[name][1].check(value)
    except _Bad as exc:
        raise SettingsError(f"{name}: {exc}") from None


def check_whole(name: str, value: Any, low: int, high: int | None = None) -> int:
    """``value`` as an int in ``[low, high]``, else :class:`SettingsError` ``NAME: must be a
    whole number …; got VALUE`` (the rule of ``n_resamples`` and ``seed``).

    Parameters
    ----------
    name : str
        The key named in the error.
    value : object
        An integral number (a bool or a float is refused).
    low : int
        The smallest value allowed.
    high : int, optional
        The largest value allowed (default: no bound).

    Returns
    -------
    int

    Raises
    ------
    SettingsError
        Not a whole number in range.

    Examples
    --------
    >>> from ranger_eval.settings import check_whole
    >>> check_whole("n_resamples", 5, 1, 10)
    5
    >>> check_whole("n_resamples", 20, 1, 10)
    Traceback (most recent call last):
    ...
    ranger_eval.errors.SettingsError: n_resamples: must be a whole number from 1 to 10 (10^1); got 20
    """
    try:
        return int(_whole(low, high)(value))
    except _Bad as exc:
        raise SettingsError(f"{name}: {exc}") from None


def _same(value: Any, default: Any) -> bool:
    """Whether a keyword's value is its default (``is`` for None and callables, == else)."""
    if value is default:
        return True
    if default is None or value is None or callable(value):
        return False
    try:
        return bool(value == default)
    except (TypeError, ValueError):  # e.g. an array
        return False


def resolve_settings(cls: type[_S], keywords: Mapping[str, Any], settings: _S | None, *,
                     where: str) -> _S:
    """The one settings object of an analysis call: the single entry of every analysis function.

    ``keywords`` are the call's keyword arguments that are fields of ``cls`` (their defaults are
    ``cls``' own, written ``level: float = _DEFAULT.level``); ``settings`` the object passed as
    ``settings=``. Without it the keywords are checked once (``cls(**keywords)``: a
    :class:`SettingsError` naming the key and value). With it, a keyword whose value differs
    from its default is a :class:`SettingsError` naming the clash (one source per value: change
    the object with ``dataclasses.replace(settings, level=0.9)``); a keyword at its default
    cannot be told from an absent one and is no clash. ``where`` is the function's name.

    Parameters
    ----------
    cls : type
        The analysis' settings class.
    keywords : mapping of {str: object}
        The call's keywords that are fields of ``cls``.
    settings : settings object or None
        The call's ``settings=``.
    where : str
        The function's name, for the messages.

    Returns
    -------
    settings object
        ``settings`` itself, or a new ``cls(**keywords)``.

    Raises
    ------
    SettingsError
        A refused keyword value, ``settings`` of another class, or a keyword that differs from
        its default given together with ``settings``.

    Examples
    --------
    >>> from ranger_eval.settings import WinRateSettings, resolve_settings
    >>> resolve_settings(WinRateSettings, {"level": 0.9}, None, where="win_rate")
    WinRateSettings(higher_is_better=True, level=0.9, n_resamples=1000, seed=0)
    >>> resolve_settings(WinRateSettings, {"level": 0.9}, WinRateSettings(seed=1), where="win_rate")
    Traceback (most recent call last):
    ...
    ranger_eval.errors.SettingsError: win_rate: level=0.9 given together with settings=; pass one or the other ...
    """
    if settings is None:
        return cls.from_keywords(keywords, where=where)
    if not isinstance(settings, cls):
        raise SettingsError(f"settings: must be a {cls.__name__}; got {type(settings).__name__}")
    default = cls()
    clash = [k for k, v in keywords.items() if not _same(v, getattr(default, k))]
    if clash:
        given = ", ".join(f"{k}={keywords[k]!r}" for k in clash)
        raise SettingsError(
            f"{where}: {given} given together with settings=; pass one or the other "
            f"(dataclasses.replace(settings, {clash[0]}=...) changes the settings object)")
    return settings


def cli_options(cls: type[_Settings]) -> dict[str, str]:
    """``{field: option name}`` of the fields the command line sets (``n_resamples`` →
    ``n-resamples``; ``metrics`` → ``metric``).

    Parameters
    ----------
    cls : type
        A settings class.

    Returns
    -------
    dict of {str: str}
        Field name → option name without the ``--``, in field order.

    Examples
    --------
    >>> from ranger_eval.settings import MetaSettings, cli_options
    >>> options = cli_options(MetaSettings)
    >>> options["metric_fn"], options["degenerate"], "n_resamples" in options
    ('metric-fn', 'drop-degenerate', False)
    """
    return {name: (meta.cli if isinstance(meta.cli, str) else name.replace("_", "-"))
            for name, (_, meta) in settings_fields(cls).items() if meta.cli}
