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
estimable). Other tests (Wilcoxon, sign, permutation, bootstrap …) are run on the per-item means
as without prompts; clustered items (a ``cluster`` column) keep their cluster-robust tests; a
Westfall–Young correction keeps its permutation tests.
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
from ..stats.crossed import check_crossed, crossed_mean_test
from .dispatch import _Outcome, _PairData

__all__ = ["CROSSED", "CrossedOutcome", "PromptCells", "crossed_outcome"]

#: The ``ci_method`` of a row tested by the crossed random-effects model.
CROSSED = "crossed REML t (Satterthwaite)"


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


def crossed_outcome(cells: pd.DataFrame, group: Group, d: _PairData, *, alternative: str,
                    level: float) -> CrossedOutcome:
    """The crossed random-effects test of one pair's cell differences (module docstring)."""
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
    out = _Outcome(res.statistic, res.pvalue, res.ci_low, res.ci_high, CROSSED)
    return CrossedOutcome(out, res.estimate, res.se, res.df)
