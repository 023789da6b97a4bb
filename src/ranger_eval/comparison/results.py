"""The result of :func:`~ranger_eval.comparison.compare`: :class:`Comparison`.
"""
from __future__ import annotations

import functools
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np
import pandas as pd

from .._version import __version__
from ..atomic import write_text
from ..csvtext import csv_text
from ..errors import CompareError, StatsInputError
from ..scores import Scores, passk_fields
from ..settings import CompareSettings, signature_fields
from ..signature import Signature, make_signature
from ..stats.describe import describe_means
from .leaderboard import Leaderboard, build_leaderboard, metric_directions
from .ppi import (
    PPI_MEAN_INTERVAL,
    PPI_RANK_NAMES,
    PPI_TEST,
    PPI_WALSH_CLUSTERED_INTERVAL,
    PPI_WALSH_INTERVAL,
    ppi_intervals,
)
from .prompts import CROSSED_MEAN_INTERVAL, crossed_means

#: the settings defaults (a result made without them records these)
_DEFAULT = CompareSettings()


# --------------------------------------------------------------------------- results
@dataclass(frozen=True)
class Comparison:
    """Pairwise comparisons of systems on every dataset × metric.

    ``table`` holds one row per dataset × metric × pair (columns :data:`COLUMNS`); ``means``
    one row per dataset × metric × system (``mean``, ``n``, ``seed_sd``, ``n_seeds``). The
    settings that produced them are kept for the reproducibility :attr:`signature`.
    ``scores`` are the per-item scores that were compared (after the ``systems`` selection).
    """

    table: pd.DataFrame
    means: pd.DataFrame
    systems: tuple[str, ...]
    scores: Scores
    # one place: the defaults are CompareSettings' (settings/compare.py)
    test: str = _DEFAULT.test
    pairs: str = "all"
    baseline: str | None = _DEFAULT.baseline
    alternative: str = _DEFAULT.alternative
    correction: str = _DEFAULT.correction
    family: str = _DEFAULT.family
    level: float = _DEFAULT.level
    n_resamples: int = _DEFAULT.n_resamples
    seed: int | None = _DEFAULT.seed
    version: str = __version__
    tests_used: tuple[str, ...] = field(default=())
    set_metrics: tuple[str, ...] = field(default=())
    seeds: str = _DEFAULT.seeds
    hypothesis: str = _DEFAULT.hypothesis
    margin: float | None = _DEFAULT.margin
    cluster_se: str = _DEFAULT.cluster_se
    #: the settings object of the :func:`~ranger_eval.compare` call that made this result
    #: (None for a result assembled by hand or restricted from another)
    settings: CompareSettings | None = field(default=None, compare=False, repr=False)

    @property
    def alpha(self) -> float:
        """The significance level, derived: alpha = 1 - level."""
        return 1.0 - self.level

    @property
    def datasets(self) -> tuple[str, ...]:
        """The datasets compared, in table order."""
        return tuple(pd.unique(self.table["dataset"]))

    @property
    def metrics(self) -> tuple[str, ...]:
        """The metrics compared, in table order."""
        return tuple(pd.unique(self.table["metric"]))

    def to_frame(self) -> pd.DataFrame:
        """One row per dataset × metric × pair (a copy)."""
        return self.table.copy()

    @property
    def signature(self) -> Signature:
        """Reproducibility signature: tests, alternative, pairs, correction, family, level,
        resamples, seed and the ranger-eval version (see :mod:`ranger_eval.signature`)."""
        test = self.test
        if test == "auto":
            test = f"auto[{','.join(self.tests_used)}]" if self.tests_used else "auto"
        # the keys are CompareSettings' (Setting.signature; one place), spelt here where the
        # result says more than the setting; ``ci`` is the result's, not a setting
        fields = signature_fields(CompareSettings, self, {
            "test": test,
            "pairs": self.pairs + (f"({self.baseline})" if self.baseline else ""),
            "level": _fmt_level(self.level),  # the setting (α = 1 − level is derived)
            "method_detail": (
                f"metric[{','.join(self.set_metrics)}]" if self.set_metrics else None
            ),
            # recorded only when not the default superiority (older signatures unchanged)
            "hyp": None if self.hypothesis == "superiority" else self.hypothesis,
            # the clustered paired t's (and prediction-powered t's, comparison.ppi) variance,
            # recorded only for clustered scores
            "cse": self.cluster_se if getattr(self.scores, "has_cluster", False) else None,
        })
        method_detail = fields.pop("method_detail")
        cse = fields.pop("cse")  # written after the cluster field it qualifies
        return make_signature("compare", {**fields, "ci": self.borrowed_intervals() or None,
                                          "mean_ci": self.mean_intervals or None,
                                          "method_detail": method_detail,
                                          # per-item pass@K / pass^K (ranger_eval.llm)
                                          "passk": passk_fields(self.scores)[0],
                                          "samples": self.scores.samples_label
                                          or passk_fields(self.scores)[1],
                                          # prompts crossed with items (comparison.prompts)
                                          "prompts": self._prompts_label(),
                                          # judge scores corrected by human scores
                                          # (comparison.ppi)
                                          "ppi": self._ppi_label(),
                                          # cluster-robust tests (comparison.clustered)
                                          # (the user's field name: cluster:passage)
                                          "cluster": getattr(self.scores, "cluster_name",
                                                             None),
                                          "cse": cse})

    @property
    def _judged(self) -> bool:
        """Whether the rows are prediction-powered (judge scores with human scores:
        :mod:`ranger_eval.comparison.ppi`), by the PPI++ z test or a rank test."""
        return any(t in self.tests_used for t in (PPI_TEST, *PPI_RANK_NAMES.values()))

    def _ppi_label(self) -> str | None:
        """The signature's ``ppi`` field: ``ppi++`` (the z test of the mean difference),
        ``ppi-wilcoxon`` (the Walsh-average signed-rank test, λ = 1) / ``ppi++-sign`` (the sign
        test, power-tuned λ), None without human scores."""
        if PPI_TEST in self.tests_used:
            return PPI_TEST
        for test, name in PPI_RANK_NAMES.items():
            if name in self.tests_used:
                return "ppi-wilcoxon" if test == "wilcoxon" else f"ppi++-{test}"
        return None

    def _prompts_label(self) -> str | None:
        """``crossed(P)`` (P prompts) when rows were tested by the crossed random-effects
        model (:mod:`ranger_eval.comparison.prompts`), None otherwise."""
        if not getattr(self.scores, "has_prompts", False) or "ci_method" not in self.table:
            return None
        if not (self.table["ci_method"] == "crossed REML t (Satterthwaite)").any():
            return None
        n = int(self.scores.raw_frame["prompt"].nunique())
        return f"crossed({n})"

    @functools.cached_property
    def mean_intervals(self) -> str:
        """The intervals of the systems' means (leaderboards) that are not mean ± t·se, as the
        signature's ``mean_ci`` writes them: ``wilson`` (0/1 scores), ``korn-graubard``
        (clustered 0/1 scores, or a metric with a known range), joined by commas in the order
        :func:`ranger_eval.describe` meets them; empty when every mean has the t interval, for
        the prediction-powered means of judge scores (their own interval, ``ppi:``) and when
        a group has too few items for an interval. Computed once per result."""
        if self.means.empty or self._judged:
            return ""
        try:
            described = self._described_all
        except CompareError:
            return ""
        used = described.attrs.get("intervals", ()) if described is not None else ()
        return ",".join(str(m) for m in used if m != "t")

    @functools.cached_property
    def _score_groups(self) -> pd.MultiIndex:
        """The (dataset, metric) pairs the scores hold, as strings (array work, once; the lazy
        engines' list of groups, without reading a row)."""
        listed = getattr(self.scores, "groups", None)
        if not isinstance(self.scores, Scores) and callable(listed):
            pairs = [(str(d), str(m)) for d, m, *_ in listed()]
            return pd.MultiIndex.from_tuples(pairs) if pairs else pd.MultiIndex.from_arrays(
                [[], []])
        dc, du = self.scores.codes("dataset")  # the Scores' cached integer codes
        mc, mu = self.scores.codes("metric")
        pair = np.unique(dc.astype(np.int64) * max(len(mu), 1) + mc)
        return pd.MultiIndex.from_arrays([du[pair // max(len(mu), 1)].astype(str),
                                          mu[pair % max(len(mu), 1)].astype(str)])

    @functools.cached_property
    def _set_level_metrics(self) -> frozenset[str]:
        """The metrics compared as set-level metrics, whose per-item rows hold no score of the
        metric itself: those rows' ``set_metric`` column names the function (lm-eval's corpus
        BLEU, perplexities, F1, MCC …), or the metric is a ``metric_fn``'s name."""
        names = {str(m) for m in self.set_metrics}
        frame = getattr(self.scores, "frame", None)
        if isinstance(frame, pd.DataFrame) and "set_metric" in frame.columns:
            marked = frame["set_metric"].notna().to_numpy(dtype=bool)
            if marked.any():
                names |= {str(m) for m in pd.unique(frame["metric"].to_numpy()[marked])}
        return frozenset(names)

    @functools.cached_property
    def _described_all(self) -> pd.DataFrame | None:
        """:meth:`_described` of every mean, once per result."""
        return self._described(self.means)

    def described_means(self) -> pd.DataFrame:
        """``means`` with each mean's design and interval, as the leaderboards show them:
        ``se`` (:func:`ranger_eval.describe`'s: s/√n, or cluster-robust with clusters),
        ``n_clusters`` (describe's: n without clusters, each item its own), ``ci_low``/``ci_high`` at ``level`` and
        ``interval`` (``t``, ``wilson``, ``korn-graubard``; ``ppi++`` for the prediction-powered
        means of judge scores, whose se is not describe's and is NaN). comparison.json's
        ``means``."""
        means = self.means
        cols = ["se", "n_clusters", "ci_low", "ci_high", "interval"]
        if means.empty:
            return means.assign(**{c: pd.Series(dtype=float) for c in cols})
        keys = ["dataset", "metric", "system"]
        described = self._described_all
        if described is None:  # only set-level metrics: no item-level standard error anywhere
            return means.assign(se=np.nan, n_clusters=np.nan, ci_low=np.nan, ci_high=np.nan,
                                interval=None)
        extra = described[keys + cols].copy()
        if self._judged:
            ppi = ppi_intervals(self.scores, means, self.level, self.cluster_se)
            extra = extra.drop(columns=["ci_low", "ci_high"]).merge(ppi, on=keys, how="left")
            extra = extra.assign(se=np.nan, interval="ppi++")[keys + cols]
        # each mean's row of describe's table, matched on integer codes (a MultiIndex of the
        # key columns as they are: no Python string per row, no merge of a million rows)
        at = pd.MultiIndex.from_arrays([extra[k] for k in keys]).get_indexer(
            pd.MultiIndex.from_arrays([means[k] for k in keys]))
        found = at >= 0
        out = means.copy()
        for c in cols:
            col = extra[c].to_numpy()
            if col.dtype.kind == "f":
                values = np.full(len(means), np.nan)
            else:
                values = np.full(len(means), None, dtype=object)
            values[found] = col[at[found]]
            out[c] = values
        return out

    def restricted(self, table: pd.DataFrame, means: pd.DataFrame) -> Comparison:
        """This result shown on some of its groups (``table`` and ``means`` are subsets of its
        own rows: the capped human reports), numbers unchanged; the view's per-mean standard
        errors are this result's describe table filtered to its groups (describe runs once per
        result, not once per view)."""
        view = replace(self, table=table, means=means)
        try:
            described = self._described_all
        except CompareError:  # the view raises the same error when asked
            return view
        if described is not None and not means.empty:
            shown = means["dataset"].unique()
            near = np.flatnonzero(described["dataset"].isin(shown).to_numpy(dtype=bool))
            cand = described.iloc[near]
            pairs = pd.MultiIndex.from_arrays([means["dataset"], means["metric"]]).unique()
            hit = pd.MultiIndex.from_arrays([cand["dataset"], cand["metric"]]).isin(pairs)
            sub = cand[hit].reset_index(drop=True)
            sub.attrs = dict(described.attrs)
            view.__dict__["_described_all"] = sub   # the cached_property's own slot
        return view

    def borrowed_intervals(self) -> str:
        """The confidence intervals that are not their test's own, as ``test=interval`` pairs
        joined by commas (empty when every row's interval is its test's own).

        Paired t, Welch t, Wilcoxon (Hodges–Lehmann), the proportions z-test (Wald) and the
        bootstrap define their own interval, McNemar rows carry Tango's score interval (the
        score test whose value at θ = 0 is McNemar's); the sign, Mann–Whitney and permutation
        tests do not, and their rows carry the t interval of the mean difference, named in the
        ``ci_method`` column. The signature's ``ci`` field repeats it, so that a reader of a
        figure or a JSON learns which interval stands next to which p-value.
        """
        if self.table.empty or "ci_method" not in self.table:
            return ""
        if self.hypothesis != "superiority":  # each row's interval is the one its test inverts
            return ""
        pairs = self.table[["test", "ci_method"]].drop_duplicates()
        borrowed = sorted(
            f"{t}={m}" for t, m in zip(pairs["test"], pairs["ci_method"], strict=True)
            if not _own_interval(str(t), str(m))
        )
        return ",".join(borrowed)

    def group(self, dataset: str | None = None, metric: str | None = None) -> tuple[str, str]:
        """The one dataset × metric selected by ``dataset``/``metric`` (either may be omitted
        when it is unambiguous); an error lists the choices."""
        return _select_group(self.means, dataset, metric)

    def __repr__(self) -> str:
        n_sig = int(self.table["significant"].sum())
        return (
            f"Comparison({len(self.table)} comparisons of {len(self.systems)} systems on "
            f"{len(self.datasets)} dataset(s) × {len(self.metrics)} metric(s), {n_sig} significant; "
            f"{self.signature})"
        )

    def leaderboard(self, metric: str | None = None, dataset: str | None = None) -> Leaderboard:
        """Systems × (dataset, metric) means with ranx-style significance letters.

        Letters a, b, c, … are given to the systems in table order; a cell carries the letters of
        the systems it significantly beats (significant pair, better mean: lower where the scores'
        ``higher_is_better`` column says lower is better, as the adapters record it for
        perplexity, TER, Brier score …). Render it with
        :func:`ranger_eval.report.to_markdown` / ``to_latex`` / ``to_html`` / ``to_csv``.
        A non-inferiority or equivalence comparison shows that no system is worse, not that one
        beats another: its leaderboard has the means and no letters.
        """
        table, means = self.table, self.means
        if self.hypothesis != "superiority":
            table = table.assign(significant=False)
        if metric is not None:
            if metric not in self.metrics:
                raise CompareError(f"unknown metric {metric!r}; compared: {', '.join(self.metrics)}")
            table, means = table[table["metric"] == metric], means[means["metric"] == metric]
        if dataset is not None:
            if dataset not in self.datasets:
                raise CompareError(
                    f"unknown dataset {dataset!r}; compared: {', '.join(self.datasets)}"
                )
            table, means = table[table["dataset"] == dataset], means[means["dataset"] == dataset]
        judged = self._judged  # judge scores: prediction-powered means
        described = (self._described_all if metric is None and dataset is None
                     else self._described(means))
        intervals = (ppi_intervals(self.scores, means, self.level, self.cluster_se)
                     if judged and not means.empty else described)
        if judged and described is not None:  # the PPI++ means' standard error is not describe's
            described = described.assign(se=np.nan)
        crossed = self.scores.has_prompts and described is not None
        if crossed:  # prompts: each mean's se and interval from the crossed model
            assert described is not None
            described = crossed_means(described, self.scores, self.level)
            intervals = described
        return build_leaderboard(table, means, self.systems, signature=self.signature,
                                 higher_is_better=metric_directions(self.scores),
                                 intervals=intervals, level=self.level,
                                 clustered=self.scores.has_cluster,
                                 interval_method=(PPI_MEAN_INTERVAL if judged else
                                                  CROSSED_MEAN_INTERVAL if crossed else None),
                                 described=described,
                                 set_level=sorted(self._set_level_metrics))

    def _described(self, means: pd.DataFrame) -> pd.DataFrame | None:
        """:func:`ranger_eval.describe` of the compared systems (on the dataset × metric groups
        of ``means`` only; for lazy scores from the engine's sufficient statistics,
        :mod:`ranger_eval.lazy._describe`): each mean's n, clusters, (cluster-robust) standard error and its
        confidence interval at ``level``, inside the metric's range when it has one. None for
        no means; a group with fewer than two items or clusters is describe's error (named),
        never a leaderboard without its standard errors."""
        if means.empty:
            return None
        wanted = pd.MultiIndex.from_frame(means[["dataset", "metric"]].astype(str)).unique()
        # a set-level metric (metric_fn: MCC, F1 of the whole set …; corpus BLEU, perplexity,
        # F1 that lm-eval aggregates over the whole set) has no per-item scores of its own —
        # its rows' values, if any, are placeholders (an adapter's per-item stand-in) — so no
        # item-level standard error: its cells stay without one (NaN)
        present = self._score_groups
        keep = wanted[wanted.isin(present)]
        set_level = self._set_level_metrics
        if set_level:
            keep = keep[~keep.get_level_values(1).isin(list(set_level))]
        if keep.empty:
            return None
        groups = None if len(keep) == len(present) else list(keep)  # None: every group
        # the compared systems: in-memory scores hold only those, lazy ones the whole table
        systems = (None if set(self.systems) >= set(self.scores.systems)
                   else list(self.systems))
        try:
            return describe_means(self.scores, level=self.level, groups=groups, systems=systems)
        except StatsInputError as exc:
            raise CompareError(f"leaderboard: no standard error for every mean: {exc}") from exc

    def to_csv(self, path: str | Path | None = None) -> str:
        """CSV of :meth:`to_frame` at full precision; written (atomically) to ``path`` if given."""
        text = csv_text(self.table)  # = table.to_csv(index=False, lineterminator="\n")
        if path is not None:
            write_text(path, text)
        return text


def _fmt_level(level: float) -> str:
    """level as the signature writes it (6 significant digits: 0.95, not 0.9500000000000001)."""
    return f"{level:.6g}"


def _select_group(
    means: pd.DataFrame, dataset: str | None, metric: str | None
) -> tuple[str, str]:
    """The one dataset × metric a figure shows; an error lists the choices when ambiguous."""
    combos = list(dict.fromkeys(zip(means["dataset"], means["metric"], strict=True)))
    chosen = [
        (d, m) for d, m in combos if (dataset is None or d == dataset) and (metric is None or m == metric)
    ]
    listing = ", ".join(f"{d}/{m}" for d, m in combos)
    if not chosen:
        raise CompareError(
            f"no comparison for dataset={dataset!r}, metric={metric!r}; available: {listing}"
        )
    if len(chosen) > 1:
        raise CompareError(
            f"several dataset/metric combinations match ({', '.join(f'{d}/{m}' for d, m in chosen)});"
            " pass dataset= and metric="
        )
    return str(chosen[0][0]), str(chosen[0][1])


#: The interval each test defines itself (``ci_method`` of its rows); other tests borrow one.
OWN_INTERVALS: dict[str, tuple[str, ...]] = {
    "paired-t": ("paired t", "cluster-robust t (CR2)", "cluster-robust t (CR1)",
                 "crossed REML t (Satterthwaite)"),
    "welch": ("Welch t", "cluster-robust t (CR1)"),
    "wilcoxon": ("Hodges-Lehmann",),
    "proportions-z": ("Wald", "Miettinen-Nurminen score", "cluster-robust t (CR1)"),
    "mcnemar": ("Tango score",),
    "bootstrap": ("bootstrap BCa", "bootstrap percentile", "cluster bootstrap BCa"),
    "ppi++": ("prediction-powered z", "prediction-powered t (CR2)", "prediction-powered t (CR1)"),
    "ppi sign": ("prediction-powered z", "prediction-powered t (CR2)",
                 "prediction-powered t (CR1)"),
    "ppi wilcoxon": (PPI_WALSH_INTERVAL, PPI_WALSH_CLUSTERED_INTERVAL),
}


def _own_interval(test: str, ci_method: str) -> bool:
    """Whether ``ci_method`` is the interval that ``test`` itself defines."""
    return ci_method in OWN_INTERVALS.get(test, ())

