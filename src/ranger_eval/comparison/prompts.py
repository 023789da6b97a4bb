"""The prompt-aware path of :func:`~ranger_eval.comparison.compare` (prompts crossed with items).

With a ``prompt`` column in the scores (:attr:`ranger_eval.design.Design.has_prompts`), the
paired t test (``test="paired-t"``, or what ``test="auto"`` chooses for paired data) of every
pair of a dataset × metric becomes the test of the intercept of

    d_ip = mu + a_i + b_p + e_ip,

d_ip the paired difference of the two systems' means (over samples and seeds) on item i under
prompt p, with crossed random item and prompt effects, fitted by REML and tested with
Satterthwaite degrees of freedom (:func:`ranger_eval.stats.crossed.crossed_mean_test`; equal to
``lmerTest::lmer(d ~ 1 + (1|item) + (1|prompt))``). A paired t test of the per-item means
ignores that every item shares the same prompts: its standard error leaves out the prompt
variance and under-covers (benchmarks/crossed_coverage.py, benchmarks/README.md). The row's
``diff`` is the REML estimate mu (the mean difference when every item has every prompt), its
``ci_method`` :data:`CROSSED`, and its ``se`` and ``df`` columns the model's.

Cells (item × prompt) scored by one system of a pair only are an error naming them, or with
``missing="intersect"`` dropped with a warning that counts them. A dataset × metric with one
prompt, or whose prompts are not crossed with its items, is an error (the prompt variance is not
estimable).

Every other analysis ``compare`` can run would test per-item means (averaged over prompts) and
so leave the prompt variance out of its standard error; with a prompt column each is therefore
refused with an error naming the keyword and the ``prompt`` column (:func:`refuse_prompts`):
an explicit rank or resampling test (``wilcoxon``, ``sign``, ``permutation``, ``bootstrap``,
``mcnemar`` …; a two-way crossed resampling scheme has no exact pivot — the item and prompt
bootstraps of McCullagh (2000), "Resampling and exchangeable arrays", Bernoulli 6:285–301,
are conservative, not exact), unpaired pairs (``paired=False``, or items one system lacks under
every prompt), the Westfall–Young correction (its sign-flip null flips per-item means),
set-level metrics (``metric_fn``), judge scores with human scores (the PPI test) and clustered
items (a ``cluster`` column: a model with clusters, items and prompts is not fitted). What to
use instead: ``test="auto"``/``"paired-t"`` (the crossed model), or average the prompts away
yourself if the prompts are the fixed population of interest.
Non-inferiority and equivalence (``hypothesis=``) take the crossed model's estimate, standard
error and Satterthwaite df into the two one-sided t tests
(:func:`~ranger_eval.stats.equivalence.t_margin_tests`; :func:`crossed_margin_outcome`).
"""
from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..errors import CompareError, Hint, ScoresError
from ..pairing import Group
from ..scores import Scores
from ..stats import StatsInputError
from ..stats import equivalence as eq
from ..stats.crossed import CrossedTest, check_crossed, crossed_mean_test
from .choices import WESTFALL_YOUNG
from .dispatch import _Outcome, _PairData
from .hypothesis import margins

__all__ = ["CROSSED", "CROSSED_MEAN_INTERVAL", "CrossedOutcome", "crossed_means", "PromptCells", "crossed_margin_outcome",
           "crossed_outcome", "refuse_prompts", "refuse_prompt_pair"]

#: The ``ci_method`` of a row tested by the crossed random-effects model.
CROSSED = "crossed REML t (Satterthwaite)"

#: The leaderboard's interval of a system's mean with prompts (:func:`crossed_means`).
CROSSED_MEAN_INTERVAL = ("crossed random-effects t of the item × prompt means: REML, "
                         "Satterthwaite df; se counts the prompt variance every item shares")


@dataclass(frozen=True)
class CrossedOutcome:
    """A pair's crossed-model outcome: the table's fields and the ``se``/``df`` columns."""

    outcome: _Outcome
    estimate: float
    se: float
    df: float


class PromptCells:
    """Each system's mean per (item, prompt) cell of every dataset × metric (over samples and
    seeds), read once from the scores' rows as given."""

    def __init__(self, scores: Scores) -> None:
        raw = scores.raw_frame
        keys = ["dataset", "metric", "system", "item", "prompt"]
        cells = raw.groupby(keys, sort=False, observed=True)["value"].mean()
        self._by: dict[tuple[str, str], pd.DataFrame] = {}
        for key, sub in cells.groupby(level=[0, 1], sort=False):
            dataset, metric = tuple(key)  # type: ignore[arg-type]
            wide = sub.droplevel([0, 1]).unstack("system")
            self._by[(str(dataset), str(metric))] = wide

    def pair(self, group: Group, d: _PairData, missing: str) -> pd.DataFrame:
        """``item, prompt, d`` of the pair's common cells (class docstring)."""
        wide = self._by[(str(group.dataset), str(group.metric))]
        items = group.items if d.items is None else group.items[d.items]
        sub = wide.loc[wide.index.get_level_values("item").isin(items), [d.a, d.b]]
        a, b = sub[d.a].to_numpy(), sub[d.b].to_numpy()
        has_a, has_b = ~np.isnan(a), ~np.isnan(b)
        one = has_a ^ has_b
        if one.any():
            idx = sub.index[one]
            shown = ", ".join(f"{i}/{p}" for i, p in list(idx)[:5])
            more = f" and {int(one.sum()) - 5} more" if one.sum() > 5 else ""
            where = (f"dataset {group.dataset!r} (metric {group.metric!r}), systems {d.a!r} vs "
                     f"{d.b!r}")
            if missing == "error":
                raise ScoresError(
                    f"{where}: {int(one.sum())} item × prompt cell(s) are scored by one system "
                    f"only ({shown}{more}); the paired difference per item × prompt needs "
                    f"both ({Hint('missing', 'intersect').text} to use the common cells)",
                    hints=[Hint("missing", "intersect")])
            warnings.warn(f"{where}: dropped {int(one.sum())} item × prompt cell(s) not scored "
                          f"by both ({shown}{more})", stacklevel=5)
        both = has_a & has_b
        idx = sub.index[both]
        return pd.DataFrame({"item": idx.get_level_values("item"),
                             "prompt": idx.get_level_values("prompt"),
                             "d": a[both] - b[both]})


#: What to use instead of an analysis refused with prompts (module docstring).
_USE = (Hint("test", "paired-t", form="set"), Hint("test", "auto", form="set"))


def _refusal(what: str, hint: Hint) -> CompareError:
    """The error of an analysis that would ignore the prompt column (module docstring)."""
    return CompareError(
        f"{hint.text}: {what} would test per-item means averaged over the 'prompt' column and "
        "leave the prompt variance out of its standard error (too small); with prompts use "
        f"{_USE[0].text} or {_USE[1].text} (the crossed random-effects t of the paired "
        "difference per item × prompt), or average the prompts away yourself if they are the "
        "fixed population of interest", hints=[hint, *_USE])


def refuse_prompts(*, test: str, paired: bool | None, correction: str, set_metrics: bool,
                   judged: bool, clustered: bool) -> None:
    """Raise :class:`CompareError` for a setting that cannot honour a ``prompt`` column (module
    docstring); called only when the scores have one."""
    if set_metrics:
        raise _refusal("a set-level metric of the items", Hint("metric_fn", form="set"))
    if correction == WESTFALL_YOUNG:
        raise _refusal("the Westfall–Young correction (sign flips of per-item means)",
                       Hint("correction", WESTFALL_YOUNG, form="set"))
    if test not in ("auto", "paired-t"):
        raise _refusal(f"test {test!r}", Hint("test", test, form="set"))
    if paired is False:
        raise _refusal("an unpaired test", Hint("paired", False, form="set"))
    if judged:
        raise CompareError(
            "judge scores with a 'human_value' column and a 'prompt' column: the "
            "prediction-powered test has no crossed-prompt version; compare the judge scores "
            "without the human scores, or one prompt at a time")
    if clustered:
        raise CompareError(
            "a 'cluster' column and a 'prompt' column: a model with clustered items crossed with "
            "prompts is not fitted (the cluster-robust tests would average the prompts away and "
            "the crossed model would treat the clustered items as independent); drop one of the "
            "two columns only if its units are independent", hints=[Hint("cluster", form="set")])


def refuse_prompt_pair(group: Group, d: _PairData) -> None:
    """An unpaired pair of a dataset × metric with prompts (module docstring)."""
    if not d.paired:
        raise CompareError(
            f"dataset {group.dataset!r} (metric {group.metric!r}), systems {d.a!r} vs {d.b!r}: "
            "the systems share no items, so there is no paired difference per item × prompt "
            "for the crossed model; an unpaired test would average the 'prompt' column away")


def crossed_outcome(cells: pd.DataFrame, group: Group, d: _PairData, *, alternative: str,
                    level: float) -> CrossedOutcome:
    """The crossed random-effects test of one pair's cell differences (module docstring)."""
    res = _crossed_fit(cells, group, d, alternative=alternative, level=level)
    out = _Outcome(res.statistic, res.pvalue, res.ci_low, res.ci_high, CROSSED)
    return CrossedOutcome(out, res.estimate, res.se, res.df)


def crossed_margin_outcome(cells: pd.DataFrame, group: Group, d: _PairData, *, hypothesis: str,
                           margin: float, higher_is_better: bool, level: float
                           ) -> CrossedOutcome:
    """The two one-sided t tests of a non-inferiority or equivalence ``hypothesis`` from the
    crossed model's REML estimate μ̂, its standard error and Satterthwaite df:
    ``t_low = (μ̂ − low)/se``, ``t_upp = (μ̂ − upp)/se`` on ``df`` degrees of freedom
    (:func:`~ranger_eval.stats.equivalence.t_margin_tests`, Schuirmann 1987), the margins of
    :func:`~ranger_eval.comparison.hypothesis.margins`."""
    res = _crossed_fit(cells, group, d, alternative="two-sided", level=level)
    low, upp = margins(hypothesis, margin, higher_is_better)
    m = eq.t_margin_tests([res.estimate], [res.se], [res.df], low=low, upp=upp, level=level)
    out = _Outcome(float(m.statistic[0]), float(m.pvalue[0]), float(m.ci_low[0]),
                   float(m.ci_high[0]), CROSSED)
    return CrossedOutcome(out, res.estimate, res.se, res.df)


def _crossed_fit(cells: pd.DataFrame, group: Group, d: _PairData, *, alternative: str,
                 level: float) -> CrossedTest:
    """The crossed model of one pair's cell differences, its errors naming the pair."""
    where = f"dataset {group.dataset!r} (metric {group.metric!r}), systems {d.a!r} vs {d.b!r}"
    item = cells["item"].to_numpy(dtype=object)
    prompt = cells["prompt"].to_numpy(dtype=object)
    try:
        check_crossed(where, item, prompt)
    except ScoresError as exc:
        raise CompareError(str(exc)) from None
    try:
        res = crossed_mean_test(cells["d"].to_numpy(dtype=np.float64), item, prompt,
                                level=level, alternative=alternative)
    except StatsInputError as exc:
        raise CompareError(f"{where}: {exc}") from None
    if not np.isfinite(res.se) or res.se == 0:
        raise CompareError(f"{where}: the paired differences per item × prompt are constant "
                           "(no variance to test against)")
    return res


def crossed_means(described: pd.DataFrame, scores: Scores, level: float) -> pd.DataFrame:
    """``described`` (describe's rows of the leaderboard) with each system's ``se``, ``ci_low``,
    ``ci_high`` those of the crossed model of its item × prompt means, ``y_ip = mu + a_i + b_p +
    e_ip`` (:func:`~ranger_eval.stats.crossed.crossed_mean_test`, Satterthwaite df), and
    ``interval`` ``"crossed"``: the s/√n of per-item means leaves out the prompt variance.
    A group whose prompts are not crossed with its items keeps NaN (no interval)."""
    raw = scores.raw_frame
    cells = raw.groupby(["dataset", "metric", "system", "item", "prompt"], sort=False,
                        observed=True)["value"].mean().reset_index()
    found: dict[tuple[str, str, str], tuple[float, float, float]] = {}
    for key, sub in cells.groupby(["dataset", "metric", "system"], sort=False, observed=True):
        item = sub["item"].to_numpy(dtype=object)
        prompt = sub["prompt"].to_numpy(dtype=object)
        k = (str(key[0]), str(key[1]), str(key[2]))
        try:
            check_crossed("leaderboard", item, prompt)
            r = crossed_mean_test(sub["value"].to_numpy(dtype=np.float64), item, prompt,
                                  level=level)
        except (ScoresError, StatsInputError):
            found[k] = (np.nan, np.nan, np.nan)
            continue
        found[k] = (r.se, r.ci_low, r.ci_high)
    keys = zip(described["dataset"].astype(str), described["metric"].astype(str),
               described["system"].astype(str), strict=True)
    values = np.array([found.get(k, (np.nan,) * 3) for k in keys],
                      dtype=np.float64).reshape(len(described), 3)
    return described.assign(se=values[:, 0], ci_low=values[:, 1], ci_high=values[:, 2],
                            interval="crossed")
