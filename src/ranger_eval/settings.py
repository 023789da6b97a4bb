"""One frozen, validated settings object per analysis: the single home of every default.

:class:`CompareSettings` (``compare``, ``ranger-eval compare``, the YAML ``compare:`` section),
:class:`RankSettings` (``ranger-eval rank``, the ``aggregate:`` section) and
:class:`MetaSettings` (``ranger-eval meta``, the ``meta:`` section or the top-level keys of the
original Ranger layout) check every field once, in ``__post_init__``, and raise one error class,
:class:`~ranger_eval.errors.SettingsError`, whose message names the key and the value
(``n_resamples: must be a whole number from 1 to 100,000,000 (10^8); got 0``). Values come
back canonical (``correction="BH"`` → ``"fdr_bh"``, ``method="reml"`` → ``"REML"``, sequences
→ tuples), so two equal settings mean the same analysis.

Each field carries a :class:`Setting` in its metadata: its help text, its command-line flag,
where the YAML takes it, the key it has in the result's signature, and the check of its value.
The command-line options and their help (``cli``), the YAML schema (``io.config``), the
pipeline's defaults and the lazy backend all read these fields, so a default is written once
(``tests/test_settings.py`` walks every field and every consumer).
"""
from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from numbers import Integral, Real
from typing import Any, ClassVar, Literal, TypeVar

from .errors import (
    ALTERNATIVES,
    CORRECTIONS,
    ConfigError,
    Hint,
    SettingsError,
    check_correction,
    check_level,
    suggest,
)

__all__ = [
    "ALTERNATIVES",
    "APPROACHES",
    "ASO_CORRECTIONS",
    "ArenaSettings",
    "BAYES_TESTS",
    "CLUSTER_SES",
    "COMPARE_TESTS",
    "DEGENERATE",
    "FAMILIES",
    "HYPOTHESES",
    "MARGIN_TESTS",
    "MAX_RESAMPLES",
    "MAX_WIN_RATE_RESAMPLES",
    "MEASURES",
    "META_METHODS",
    "META_ORDERS",
    "META_TESTS",
    "MISSING",
    "PAIR_ORDERS",
    "PILOT_TESTS",
    "PLAN_TESTS",
    "PlanSettings",
    "POSTHOCS",
    "PRIOR_PLACES",
    "RANK_ORDERS",
    "ROPE_MODES",
    "SEED_POLICIES",
    "TIE_MODELS",
    "CompareSettings",
    "ErrorReductionSettings",
    "MetaSettings",
    "RankIntervalSettings",
    "RankSettings",
    "WinRateSettings",
    "ASOSettings",
    "BayesSettings",
    "Setting",
    "check_value",
    "check_whole",
    "cli_options",
    "resolve_settings",
    "settings_fields",
    "signature_fields",
]

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


@dataclass(frozen=True)
class CompareSettings(_Settings):
    """The settings of :func:`ranger_eval.compare` (every keyword after the scores) and of
    ``ranger-eval compare``; defaults as documented in ``docs/configuration.md``.

    Checked here, once: each value (choices, ``level`` in (0, 1), ``n_resamples`` from 1 to
    :data:`MAX_RESAMPLES`, ``seed`` ≥ 0 or None, no system named twice) and the combinations
    that need no data: ``pairs="baseline"`` with a ``baseline`` and a ``baseline`` only with it;
    Westfall–Young's conditions (``test="permutation"``, ``family="dataset-metric"``, no
    ``metric_fn``; Westfall & Young 1993, Algorithm 2.8); a set-level ``metric_fn`` only with a
    resampling test on paired items. Whether the systems, baseline, datasets and metrics exist is
    checked by :func:`~ranger_eval.compare` against the scores.

    Parameters
    ----------
    systems : Sequence[str], optional
        Systems to compare, comma-separated, in table order (default: all).
    test : str, default 'auto'
        auto, paired-t, welch, wilcoxon, sign, mannwhitney, mcnemar, proportions-z, permutation,
        bootstrap.
    alternative : str, default 'two-sided'
        two-sided, greater or less (system A vs B).
    pairs : str | Sequence[tuple[str, str]], default 'all'
        Pairs to test: all, baseline or successive.
    baseline : str, optional
        Baseline system (with --pairs baseline).
    correction : str, default 'holm-sidak'
        Multiplicity correction (statsmodels multipletests name, or none).
    family : str, default 'dataset-metric'
        Adjust within: dataset-metric, dataset or all.
    level : float, default 0.95
        Confidence level; alpha = 1 - level.
    n_resamples : int, default 10000
        Resamples of the permutation/bootstrap tests, 1 to 10^8.
    seed : int, default 0
        Seed of the resampling tests and plots, ≥ 0.
    paired : bool, optional
        Pair by item id (None: when the items match).
    missing : str, default 'error'
        Items one system lacks: error (listing them) or intersect (the common items, counted in
        a warning).
    datasets : Sequence[str], optional
        Datasets to compare (default: all).
    metrics : Sequence[str], optional
        Metric(s), comma-separated (IR: measures such as nDCG@10,AP).
    by : Sequence[str] | str, optional
        Item metadata column(s), comma-separated: compare per level.
    metric_fn : Any, optional
        Set-level metric(s), comma-separated (mcc, f1, macro_f1, pearson …):
        permutation/bootstrap test on the metric itself.
    seeds : str, default 'balanced'
        Seeds policy: balanced or allow-unbalanced.
    hypothesis : str, default 'superiority'
        superiority (a difference), non-inferiority (no loss beyond --margin) or equivalence (no
        difference beyond ±margin; two one-sided tests).
    margin : float, optional
        Margin of non-inferiority/equivalence, > 0, in the metric's units.
    cluster_se : str, default 'CR2'
        Cluster-robust variance of the clustered paired t and of the prediction-powered t (with
        a cluster column): CR2 with Bell-McCaffrey df, or CR1 with t on C - 1 df (statsmodels,
        sandwich HC1); unpaired differences use the CR1 regression either way.

    Raises
    ------
    SettingsError
        A refused value or combination, naming the key and the value.

    Examples
    --------
    >>> from ranger_eval.settings import CompareSettings
    >>> settings = CompareSettings(correction="BH", n_resamples=2000)
    >>> settings.correction, settings.n_resamples
    ('fdr_bh', 2000)
    >>> CompareSettings(n_resamples=0)
    Traceback (most recent call last):
    ...
    ranger_eval.errors.SettingsError: n_resamples: must be a whole number from 1 to ...
    """

    command: ClassVar[str] = "compare"
    section: ClassVar[str] = "compare"

    systems: Sequence[str] | None = _setting(
        None, "Systems to compare, comma-separated, in table order (default: all).", _names)
    test: str = _setting(
        "auto", ", ".join(COMPARE_TESTS) + ".", _choice(COMPARE_TESTS, "test"),
        signature="test")
    alternative: str = _setting(
        "two-sided", "two-sided, greater or less (system A vs B).",
        _choice(ALTERNATIVES, "alternative"), signature="alt")
    pairs: str | Sequence[tuple[str, str]] = _setting(
        "all", "Pairs to test: all, baseline or successive.", _pairs, signature="pairs")
    baseline: str | None = _setting(
        None, "Baseline system (with --pairs baseline).", _name, signature="pairs")
    correction: str = _setting(
        "holm-sidak", "Multiplicity correction (statsmodels multipletests name, or none).",
        _correction, signature="corr")
    family: str = _setting(
        "dataset-metric", "Adjust within: dataset-metric, dataset or all.",
        _choice(FAMILIES, "family"), signature="family")
    level: float = _setting(
        0.95, "Confidence level; alpha = 1 - level.", _level, yaml="top", signature="level")
    n_resamples: int = _setting(
        10_000, "Resamples of the permutation/bootstrap tests, 1 to 10^8.",
        _whole(1, MAX_RESAMPLES), signature="n_resamples")
    seed: int | None = _setting(
        0, "Seed of the resampling tests and plots, ≥ 0.", _whole(0, optional=True),
        signature="seed")
    paired: bool | None = _setting(
        None, "Pair by item id (None: when the items match).", _paired, cli=False, yaml=None)
    missing: str = _setting(
        "error", "Items one system lacks: error (listing them) or intersect (the common items, "
        "counted in a warning).", _choice(MISSING, "missing policy"), yaml="top")
    datasets: Sequence[str] | None = _setting(
        None, "Datasets to compare (default: all).", _names, cli=False, yaml=None)
    metrics: Sequence[str] | None = _setting(
        None, "Metric(s), comma-separated (IR: measures such as nDCG@10,AP).", _names,
        cli="metric")
    by: Sequence[str] | str | None = _setting(
        None, "Item metadata column(s), comma-separated: compare per level.", _columns)
    metric_fn: Any = _setting(
        None, "Set-level metric(s), comma-separated (mcc, f1, macro_f1, pearson …): "
        "permutation/bootstrap test on the metric itself.", _metric_fn,
        signature="method_detail")
    seeds: str = _setting(
        "balanced", "Seeds policy: balanced or allow-unbalanced.",
        _choice(SEED_POLICIES, "seeds policy"))
    hypothesis: str = _setting(
        "superiority", "superiority (a difference), non-inferiority (no loss beyond --margin) "
        "or equivalence (no difference beyond ±margin; two one-sided tests).",
        _choice(HYPOTHESES, "hypothesis"), signature="hyp")
    margin: float | None = _setting(
        None, "Margin of non-inferiority/equivalence, > 0, in the metric's units.", _margin,
        signature="margin")
    cluster_se: str = _setting(
        "CR2", "Cluster-robust variance of the clustered paired t and of the prediction-powered "
        "t (with a cluster column): CR2 with Bell-McCaffrey df, or CR1 with t on C - 1 df "
        "(statsmodels, sandwich HC1); unpaired differences use the CR1 regression either way.",
        _choice(CLUSTER_SES, "cluster-robust variance", ignore_case=True), signature="cse",
        metavar="CR2|CR1")

    def _check_combinations(self) -> None:
        self._check_hypothesis()
        if self.systems is not None and len(self.systems) < 2:
            raise SettingsError(f"systems: need at least two systems to compare, got "
                                f"{list(self.systems)!r}")
        if self.pairs == "baseline" and self.baseline is None:
            raise SettingsError("pairs: 'baseline' compares every system with one baseline "
                                "system and needs baseline=<system name> (pass --baseline "
                                "SYSTEM on the command line, compare.baseline in the YAML)")
        if self.baseline is not None and self.pairs != "baseline":
            raise SettingsError(f"baseline: {self.baseline!r} is only used with "
                                f"pairs='baseline' (got pairs={self.pairs!r})")
        set_metric = self.metric_fn is not None and self.metric_fn != ()
        if set_metric and self.test not in ("auto", *_RESAMPLING):
            raise SettingsError(f"test: {self.test!r} compares means of per-item values; a "
                                "set-level metric_fn needs test='permutation' or 'bootstrap'")
        if set_metric and self.paired is False:
            raise SettingsError("paired: a set-level metric_fn is tested on paired items; "
                                "paired=False is not possible")
        if self.correction == _WESTFALL_YOUNG:
            if set_metric:
                raise SettingsError("correction: 'westfall-young' needs the joint sign-flip "
                                    "null of per-item permutation tests; it is not available "
                                    "with metric_fn")
            if self.test != "permutation":
                raise SettingsError(
                    "correction: 'westfall-young' adjusts paired permutation tests with their "
                    "joint sign-flip null distribution; it needs test='permutation' (got "
                    f"test={self.test!r})")
            if self.family != "dataset-metric":
                raise SettingsError(
                    "correction: 'westfall-young' adjusts within one dataset × metric (one "
                    "shared sign-flip matrix); it needs family='dataset-metric' (got "
                    f"family={self.family!r})")

    def _check_hypothesis(self) -> None:
        """``margin`` exactly with a hypothesis that needs one; no one-sided ``alternative``
        (non-inferiority is one-sided by itself, in the metric's direction; equivalence is two
        one-sided tests); only tests with a margin version; no set-level ``metric_fn``."""
        if self.hypothesis == "superiority":
            if self.margin is not None:
                said = [Hint("hypothesis", h, form="set")
                        for h in ("non-inferiority", "equivalence", "superiority")]
                raise SettingsError(
                    f"margin: {self.margin!r} is only used with {said[0].text} or "
                    f"{said[1].text} (got {said[2].text}); pass the hypothesis too, or "
                    "leave the margin out", hints=said)
            return
        if self.margin is None:
            hint = Hint("margin")
            raise SettingsError(
                f"margin: hypothesis={self.hypothesis!r} needs a margin, the largest difference "
                f"that does not matter, in the metric's units ({hint.text} with a positive number)",
                hints=[hint])
        if self.alternative != "two-sided":
            raise SettingsError(
                f"alternative: {self.alternative!r} cannot be combined with "
                f"hypothesis={self.hypothesis!r}: "
                + ("equivalence is two one-sided tests against -margin and +margin"
                   if self.hypothesis == "equivalence" else
                   "non-inferiority is one-sided by itself, in the metric's direction "
                   "(higher_is_better)")
                + "; leave alternative at 'two-sided'")
        if self.test not in MARGIN_TESTS:
            raise SettingsError(
                f"test: {self.test!r} has no {self.hypothesis} version in ranger-eval; use "
                f"one of {', '.join(MARGIN_TESTS)} (two one-sided t tests, the "
                "Miettinen-Nurminen score test of two proportions, Tango's score test of "
                "paired proportions)")
        if self.metric_fn is not None and self.metric_fn != ():
            raise SettingsError(
                f"metric_fn: a set-level metric has no {self.hypothesis} test in ranger-eval "
                "(only per-item scores); leave hypothesis at 'superiority'")


@dataclass(frozen=True)
class RankSettings(_Settings):
    """The settings of ``ranger-eval rank``: the IBM post-op ranking
    (:func:`~ranger_eval.aggregate.rank_systems`) and Demšar's rank test
    (:func:`~ranger_eval.aggregate.rank_test`); YAML section ``aggregate:``. The ``signature``
    keys are those of the ranking's signature (:attr:`Ranking.signature
    <ranger_eval.aggregate.Ranking.signature>`, in field order: order, test, corr, alpha,
    n_resamples, seed, weights); ``posthoc`` is the rank test's.

    Parameters
    ----------
    comparisons : str, default 'successive'
        successive, all or first-vs-rest (per-item scores).
    test : str, default 'auto'
        Pairwise test (as compare).
    correction : str, default 'holm-sidak'
        Multiplicity correction of the pairwise tests.
    level : float, default 0.95
        Confidence level; the tests are significant at alpha = 1 - level.
    n_resamples : int, default 10000
        Resamples of the permutation/bootstrap tests, 1 to 10^8.
    seed : int, default 0
        Seed of resampling tests, ≥ 0.
    weights : Mapping[str, float], optional
        Metric weights of the aggregate metric.
    higher_is_better : Mapping[str, bool] | bool, optional
        Whether higher values are better, for every metric (the YAML also takes a mapping of
        metric to true/false; default: known metric names decide, else true).
    dataset_weights : Mapping[str, float], optional
        Weights of the datasets in the aggregation (default: equal).
    posthoc : str, default 'nemenyi'
        nemenyi, bonferroni-dunn, holm, wilcoxon or conover.
    control : str, optional
        Control system (bonferroni-dunn, holm).
    tie_correction : bool, default True
        Divide Friedman's statistic by its tie correction, as R friedman.test,
        scipy.stats.friedmanchisquare and autorank do; false: Demšar's untied formula (the rank
        test's signature records it).
    approach : str, default 'frequentist'
        frequentist (Friedman and a post-hoc test) or bayesian (autorank: the Bayesian signed-
        rank test of every pair with a ROPE; decisions at probability level).
    rope : float, default 0.1
        Bayesian approach: half-width of the region of practical equivalence, ≥ 0 (times each
        pair's pooled SD or MAD with rope_mode effsize; in the metric's units with absolute).
    rope_mode : str, default 'effsize'
        Bayesian approach: effsize (rope × pooled SD, or × pooled MAD·1.4826 when a system is
        not normal; autorank) or absolute.
    bradley_terry : bool, default True
        Also write a Bradley–Terry leaderboard (bradley_terry.md/.csv/.tex, ratings figure):
        every item a battle between every pair of systems on the rank's metric (the aggregate
        with several metrics; every dataset with a dataset-level table), equal scores a tie;
        1,000 bootstrap rounds at the seed.
    prior : float, default 0.5
        Bayesian approach: Dirichlet prior strength of the pseudo-observation 0, > 0.
    n_draws : int, default 50000
        Bayesian approach: posterior draws per pair, 1 to 10^8.

    Raises
    ------
    SettingsError
        A refused value or combination, naming the key and the value.

    Examples
    --------
    >>> from ranger_eval.settings import RankSettings
    >>> settings = RankSettings(posthoc="holm", control="a")
    >>> settings.posthoc, settings.alpha
    ('holm', 0.05)
    >>> RankSettings(level=1.5)
    Traceback (most recent call last):
    ...
    ranger_eval.errors.SettingsError: level: must be strictly between 0 and 1 (e.g. 0.95); got 1.5
    """

    command: ClassVar[str] = "rank"
    section: ClassVar[str] = "aggregate"

    comparisons: str = _setting(
        "successive", "successive, all or first-vs-rest (per-item scores).",
        _choice(RANK_ORDERS, "comparisons"), signature="order")
    test: str = _setting(
        "auto", "Pairwise test (as compare).", _choice(COMPARE_TESTS, "test"), signature="test")
    correction: str = _setting(
        "holm-sidak", "Multiplicity correction of the pairwise tests.", _correction,
        signature="corr")
    level: float = _setting(
        0.95, "Confidence level; the tests are significant at alpha = 1 - level.", _level,
        yaml="both", signature="level")
    n_resamples: int = _setting(
        10_000, "Resamples of the permutation/bootstrap tests, 1 to 10^8.",
        _whole(1, MAX_RESAMPLES), cli=False, signature="n_resamples")
    seed: int | None = _setting(0, "Seed of resampling tests, ≥ 0.", _whole(0, optional=True),
                                signature="seed")
    weights: Mapping[str, float] | None = _setting(
        None, "Metric weights of the aggregate metric.", _weights, cli=False,
        signature="weights")
    higher_is_better: Mapping[str, bool] | bool | None = _setting(
        None, "Whether higher values are better, for every metric (the YAML also takes a "
        "mapping of metric to true/false; default: known metric names decide, else true).",
        _direction, metavar="true|false")
    dataset_weights: Mapping[str, float] | None = _setting(
        None, "Weights of the datasets in the aggregation (default: equal).", _weights,
        cli=False)
    posthoc: str = _setting(
        "nemenyi", "nemenyi, bonferroni-dunn, holm, wilcoxon or conover.",
        _choice(POSTHOCS, "post-hoc test"), signature="posthoc")
    control: str | None = _setting(
        None, "Control system (bonferroni-dunn, holm).", _name)
    tie_correction: bool = _setting(
        True, "Divide Friedman's statistic by its tie correction, as R friedman.test, "
        "scipy.stats.friedmanchisquare and autorank do; false: Demšar's untied formula "
        "(the rank test's signature records it).", _bool, metavar="true|false")
    approach: str = _setting(
        "frequentist", "frequentist (Friedman and a post-hoc test) or bayesian (autorank: the "
        "Bayesian signed-rank test of every pair with a ROPE; decisions at probability level).",
        _choice(APPROACHES, "approach"))
    rope: float = _setting(
        0.1, "Bayesian approach: half-width of the region of practical equivalence, ≥ 0 (times "
        "each pair's pooled SD or MAD with rope_mode effsize; in the metric's units with "
        "absolute).", _rank_rope)
    rope_mode: str = _setting(
        "effsize", "Bayesian approach: effsize (rope × pooled SD, or × pooled MAD·1.4826 when a "
        "system is not normal; autorank) or absolute.", _choice(ROPE_MODES, "rope mode"))
    bradley_terry: bool = _setting(
        True, "Also write a Bradley–Terry leaderboard (bradley_terry.md/.csv/.tex, ratings "
        "figure): every item a battle between every pair of systems on the rank's metric (the "
        "aggregate with several metrics; every dataset with a dataset-level table), equal "
        "scores a tie; 1,000 bootstrap rounds at the seed.", _bool, metavar="true|false")
    prior: float = _setting(
        0.5, "Bayesian approach: Dirichlet prior strength of the pseudo-observation 0, > 0.",
        _prior_strength)
    n_draws: int = _setting(
        50_000, "Bayesian approach: posterior draws per pair, 1 to 10^8.",
        _whole(1, MAX_RESAMPLES))

    def _check_combinations(self) -> None:
        """The Bayesian approach has no post-hoc test, control or Friedman tie correction and
        needs a seed and a level above 0.5 (a decision's probability must exceed the other two
        outcomes together); the frequentist approach has no ROPE, prior or posterior draws. A
        value at its default is no clash."""
        defaults = RankSettings.__dataclass_fields__
        if self.approach == "bayesian":
            for name in ("posthoc", "control", "tie_correction"):
                if getattr(self, name) != defaults[name].default:
                    raise SettingsError(
                        f"{name}: {getattr(self, name)!r} belongs to the frequentist rank test; "
                        "approach='bayesian' decides every pair by the Bayesian signed-rank "
                        f"test (leave {name} out, or use approach='frequentist')")
            if self.seed is None:
                raise SettingsError("seed: approach='bayesian' draws its posterior samples "
                                    "with a seed (a whole number ≥ 0); got None")
            if not self.level > 0.5:
                raise SettingsError(
                    f"level: approach='bayesian' decides when a posterior probability reaches "
                    f"level, which must be above 0.5 (e.g. 0.95); got {self.level!r}")
            return
        for name in ("rope", "rope_mode", "prior", "n_draws"):
            if getattr(self, name) != defaults[name].default:
                hint = Hint("approach", "bayesian")
                raise SettingsError(
                    f"{name}: {getattr(self, name)!r} is only used by the Bayesian rank test; "
                    f"{hint.text}, or leave {name} out", hints=[hint])

    @property
    def alpha(self) -> float:
        """The significance level 1 − ``level``, derived (never a second setting)."""
        return round(1.0 - self.level, 12)


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


#: Largest ``n_resamples`` of :func:`~ranger_eval.aggregate.win_rate` (its replicates are held
#: in memory, replicates × systems floats).
MAX_WIN_RATE_RESAMPLES = 10_000_000


@dataclass(frozen=True)
class WinRateSettings(_Settings):
    """The settings of :func:`~ranger_eval.aggregate.win_rate` (HELM's mean win rates and their
    bootstrap interval). Python only: ``ranger-eval rank`` runs the win rates at its own
    ``level``, ``seed`` and direction with these defaults for the rest (1,000 replicates).

    Not :class:`RankSettings`: the win rate's bootstrap has 1,000 replicates by default where
    the rank command's resampling tests have 10,000 (``RankSettings.n_resamples``), and 0 is
    allowed (no interval); one class per default keeps every number as it was.

    Parameters
    ----------
    higher_is_better : bool, default True
        Whether the larger score wins.
    level : float, default 0.95
        Level of the percentile-bootstrap interval.
    n_resamples : int, default 1000
        Bootstrap replicates of the interval, 0 (no interval) to 10^7.
    seed : int, default 0
        Seed of numpy's default_rng, ≥ 0 (None: fresh entropy).

    Raises
    ------
    SettingsError
        A refused value or combination, naming the key and the value.

    Examples
    --------
    >>> from ranger_eval.settings import WinRateSettings
    >>> settings = WinRateSettings(n_resamples=0)
    >>> settings.n_resamples, settings.level
    (0, 0.95)
    >>> WinRateSettings(seed=-1)
    Traceback (most recent call last):
    ...
    ranger_eval.errors.SettingsError: seed: must be a whole number ≥ 0; got -1
    """

    command: ClassVar[str] = "win_rate"
    section: ClassVar[str] = "win_rate"

    higher_is_better: bool = _setting(
        True, "Whether the larger score wins.", _bool, cli=False, yaml=None)
    level: float = _setting(
        0.95, "Level of the percentile-bootstrap interval.", _level, cli=False, yaml=None,
        signature="level")
    n_resamples: int = _setting(
        1000, "Bootstrap replicates of the interval, 0 (no interval) to 10^7.",
        _whole(0, MAX_WIN_RATE_RESAMPLES), cli=False, yaml=None, signature="n_resamples")
    seed: int | None = _setting(
        0, "Seed of numpy's default_rng, ≥ 0 (None: fresh entropy).", _whole(0, optional=True),
        cli=False, yaml=None, signature="seed")


@dataclass(frozen=True)
class RankIntervalSettings(_Settings):
    """The settings of :func:`~ranger_eval.comparison.rank_intervals` (simultaneous intervals
    of the ranks by the paired joint bootstrap). Python only; ``ranger-eval compare``'s box
    plots run it at the comparison's level and seed with ``min(n_resamples, 2000)`` resamples.

    Not :class:`CompareSettings`: the joint bootstrap of the ranks has 2,000 resamples by
    default where compare's tests have 10,000; a class of its own keeps that default (and every
    number) as it was.

    Parameters
    ----------
    level : float, default 0.95
        Joint confidence level of the k rank intervals.
    n_resamples : int, default 2000
        Resamples of the joint bootstrap, 1 to 10^8.
    seed : int, default 0
        Seed of the bootstrap, ≥ 0 (None: fresh entropy).

    Raises
    ------
    SettingsError
        A refused value or combination, naming the key and the value.

    Examples
    --------
    >>> from ranger_eval.settings import RankIntervalSettings
    >>> settings = RankIntervalSettings(level=0.9)
    >>> settings.level, settings.n_resamples
    (0.9, 2000)
    >>> RankIntervalSettings(n_resamples=0)
    Traceback (most recent call last):
    ...
    ranger_eval.errors.SettingsError: n_resamples: must be a whole number from 1 to ...
    """

    command: ClassVar[str] = "rank_intervals"
    section: ClassVar[str] = "rank_intervals"

    level: float = _setting(
        0.95, "Joint confidence level of the k rank intervals.", _level, cli=False, yaml=None,
        signature="level")
    n_resamples: int = _setting(
        2000, "Resamples of the joint bootstrap, 1 to 10^8.", _whole(1, MAX_RESAMPLES),
        cli=False, yaml=None, signature="n_resamples")
    seed: int | None = _setting(
        0, "Seed of the bootstrap, ≥ 0 (None: fresh entropy).", _whole(0, optional=True),
        cli=False, yaml=None, signature="seed")


@dataclass(frozen=True)
class ErrorReductionSettings(_Settings):
    """The settings of :func:`~ranger_eval.aggregate.error_reduction` (Søgaard's error
    reduction per dataset and its paired-bootstrap variance). Python only.

    Not :class:`MetaSettings`: the error reduction's variance has 50 bootstrap resamples by
    default (Søgaard's protocol) where meta's set-level effects have 1,000.

    Parameters
    ----------
    n_resamples : int, default 50
        Paired bootstrap resamples of each dataset's variance, 2 to 10^8.
    seed : int, default 0
        Seed of the bootstrap, ≥ 0.
    missing : str, default 'error'
        Items one system lacks: error (listing them) or intersect (the common items).

    Raises
    ------
    SettingsError
        A refused value or combination, naming the key and the value.

    Examples
    --------
    >>> from ranger_eval.settings import ErrorReductionSettings
    >>> settings = ErrorReductionSettings(n_resamples=100)
    >>> settings.n_resamples, settings.missing
    (100, 'error')
    >>> ErrorReductionSettings(n_resamples=1)
    Traceback (most recent call last):
    ...
    ranger_eval.errors.SettingsError: n_resamples: must be a whole number from 2 to ...
    """

    command: ClassVar[str] = "error_reduction"
    section: ClassVar[str] = "error_reduction"

    n_resamples: int = _setting(
        50, "Paired bootstrap resamples of each dataset's variance, 2 to 10^8.",
        _whole(2, MAX_RESAMPLES), cli=False, yaml=None, signature="n_resamples")
    seed: int = _setting(0, "Seed of the bootstrap, ≥ 0.", _whole(0), cli=False, yaml=None,
                         signature="seed")
    missing: str = _setting(
        "error", "Items one system lacks: error (listing them) or intersect (the common items).",
        _choice(MISSING, "missing policy"), cli=False, yaml=None)


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

    def _check_combinations(self) -> None:
        if self.base == 1:
            raise SettingsError("base: 1 gives no scale (every base^x is 1); use e.g. base=10")


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
