"""The settings of ``compare`` and ``ranger-eval compare``: :class:`CompareSettings`."""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from ..errors import ALTERNATIVES, Hint, SettingsError
from ._base import (
    _RESAMPLING,
    _WESTFALL_YOUNG,
    CLUSTER_SES,
    COMPARE_TESTS,
    FAMILIES,
    HYPOTHESES,
    MARGIN_TESTS,
    MAX_RESAMPLES,
    MISSING,
    SEED_POLICIES,
    _choice,
    _columns,
    _correction,
    _level,
    _margin,
    _metric_fn,
    _name,
    _names,
    _paired,
    _pairs,
    _setting,
    _Settings,
    _whole,
)


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
