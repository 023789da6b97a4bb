"""The alternative annotator test (Calderon, Reichart & Dror, ACL 2025): can an LLM judge
replace the human annotators? :func:`alt_test` → :class:`AltTestResult`.

As published and as the authors' code (``nitaytech/AltTest``, ``alt_test_example.ipynb``):

1. Items kept: those the judge rated and at least ``min_raters`` humans annotated.
2. Leave one annotator out. For annotator h and each kept item i h annotated, with R_i the
   other humans' annotations of i, score h's annotation and the judge's against R_i
   (``accuracy``: the share of R_i equal to it; ``neg_rmse``: −√(mean of squared
   differences)). The judge's indicator is W^f_i = [score(judge) ≥ score(h)], the human's
   W^h_i = [score(h) ≥ score(judge)]; d_i = W^h_i − W^f_i.
3. A one-sided one-sample t-test of H₀: mean(d) ≥ ε against H₁: mean(d) < ε
   (``scipy.stats.ttest_1samp(d, ε, alternative="less")``): ε is the judge's cost-benefit
   allowance (0.2 for experts, 0.15 skilled, 0.1 crowd workers). Annotators with fewer than
   ``min_items`` items are not tested (a warning names them).
4. The Benjamini–Yekutieli procedure at q = ``fdr`` over the annotators' p-values; the winning
   rate ω is the share of tested annotators whose null was rejected. The judge passes when
   ω ≥ 0.5.
5. The advantage probability ρ = the mean over annotators of mean(W^f): how often the judge is
   as good as or better than a human (for comparing judges).

Equal to the authors' ``alt_test`` on their example data (``tests/oracles/alt_test_oracle.py``).
"""
from __future__ import annotations

import warnings
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
from scipy.stats import ttest_1samp

from ..errors import RangerWarning, StatsInputError
from ..settings import AltTestSettings, resolve_settings, signature_fields
from ..signature import Signature, make_signature
from .agreement import ratings_table

__all__ = ["AltTestResult", "alt_test", "by_rejections"]

_DEFAULT = AltTestSettings()


def by_rejections(p_values: np.ndarray, fdr: float) -> np.ndarray:
    """Which nulls the Benjamini–Yekutieli step-up procedure rejects at q = ``fdr``: the
    largest k with p₍ₖ₎ ≤ k q / (m H_m), H_m = Σ_{j ≤ m} 1/j, and every p₍ⱼ₎ with j ≤ k
    (Benjamini & Yekutieli 2001, Thm 1.3).

    Parameters
    ----------
    p_values : array_like
        The p-values.
    fdr : float
        q, the false discovery rate.

    Returns
    -------
    numpy.ndarray of bool
        True where the null is rejected.

    Examples
    --------
    >>> from ranger_eval.llm.alt_test import by_rejections
    >>> by_rejections([0.001, 0.02, 0.3], 0.05).tolist()
    [True, False, False]
    """
    p = np.asarray(p_values, dtype=float)
    m = p.size
    out = np.zeros(m, dtype=bool)
    if m == 0:
        return out
    order = np.argsort(p, kind="stable")
    thresholds = np.arange(1, m + 1) / m * (fdr / np.sum(1.0 / np.arange(1, m + 1)))
    below = np.flatnonzero(p[order] <= thresholds)
    if below.size:
        out[order[: below[-1] + 1]] = True
    return out


@dataclass(frozen=True)
class AltTestResult:
    """The alternative annotator test of ``judge`` against the human annotators (module
    docstring). ``winning_rate`` ω (pass: ω ≥ 0.5), ``advantage_probability`` ρ;
    per tested annotator (``annotators``, in the table's order) ``p_values``, ``rejected``
    (Benjamini–Yekutieli), ``judge_wins`` (mean W^f) and ``n_items``; ``skipped`` the
    annotators with too few items; ``settings`` the :class:`~ranger_eval.settings.AltTestSettings`.
    """

    judge: str
    winning_rate: float
    advantage_probability: float
    annotators: tuple[str, ...]
    p_values: tuple[float, ...]
    rejected: tuple[bool, ...]
    judge_wins: tuple[float, ...]
    n_items_each: tuple[int, ...]
    skipped: tuple[str, ...]
    n_items: int
    epsilon: float
    metric: str
    fdr: float
    min_raters: int
    min_items: int
    settings: AltTestSettings | None = field(default=None, compare=False, repr=False)

    @property
    def passed(self) -> bool:
        """ω ≥ 0.5: the judge may replace the annotators."""
        return bool(self.winning_rate >= 0.5)

    @property
    def signature(self) -> Signature:
        fields = signature_fields(AltTestSettings, self, {})
        fields.update(judge=self.judge, n_items=self.n_items, n_raters=len(self.annotators))
        return make_signature("alt_test", fields)

    def summary(self) -> str:
        """The verdict in one sentence."""
        verdict = "passes" if self.passed else "fails"
        return (f"The judge {self.judge!r} {verdict} the alternative annotator test: winning "
                f"rate ω = {self.winning_rate:.2f} ({sum(self.rejected)} of "
                f"{len(self.annotators)} annotators, ε = {self.epsilon:g}, Benjamini-Yekutieli "
                f"q = {self.fdr:g}; pass: ω ≥ 0.5), advantage probability ρ = "
                f"{self.advantage_probability:.2f}.")

    def to_frame(self) -> pd.DataFrame:
        """One row per tested annotator."""
        return pd.DataFrame({"annotator": list(self.annotators),
                             "n_items": list(self.n_items_each),
                             "judge_wins": list(self.judge_wins),
                             "p_value": list(self.p_values),
                             "judge_wins_test": list(self.rejected)})

    def to_dict(self) -> dict[str, Any]:
        """JSON-friendly: every field and the signature."""
        return {"judge": self.judge, "winning_rate": self.winning_rate,
                "advantage_probability": self.advantage_probability, "passed": self.passed,
                "epsilon": self.epsilon, "metric": self.metric, "fdr": self.fdr,
                "min_raters": self.min_raters, "min_items": self.min_items,
                "n_items": self.n_items, "skipped": list(self.skipped),
                "annotators": self.to_frame().to_dict(orient="records"),
                "summary": self.summary(), "signature": str(self.signature)}


def _scores(pred: np.ndarray, rest: np.ndarray, metric: str, numeric: bool) -> np.ndarray:
    """Score of each item's ``pred`` against its row of ``rest`` (NaN: no annotation)."""
    seen = ~pd.isna(rest)
    count = seen.sum(axis=1)
    if metric == "accuracy":
        equal = (rest == pred[:, None]) & seen
        return equal.sum(axis=1) / count
    if not numeric:
        raise StatsInputError("alt_test: metric='neg_rmse' needs numeric annotations; use "
                              "metric='accuracy' for labels")
    sq = np.where(seen, (pred[:, None] - np.where(seen, rest, 0.0)) ** 2, 0.0)
    return -np.sqrt(sq.sum(axis=1) / count)


def alt_test(table: Any, *, judge: str, epsilon: float = _DEFAULT.epsilon,
             metric: str = _DEFAULT.metric, fdr: float = _DEFAULT.fdr,
             min_raters: int = _DEFAULT.min_raters, min_items: int = _DEFAULT.min_items,
             settings: AltTestSettings | None = None) -> AltTestResult:
    """The alternative annotator test: may the rater ``judge`` (an LLM) replace the humans?

    Leave one annotator h out; per item, W^f = [s(judge) ≥ s(h)] and W^h = [s(h) ≥ s(judge)]
    with s the score against the other humans; a one-sided t-test of mean(W^h − W^f) < ε per
    annotator; Benjamini–Yekutieli at ``fdr``; winning rate ω = share rejected; pass ω ≥ 0.5
    (module docstring; Calderon, Reichart & Dror 2025).

    Parameters
    ----------
    table : pandas.DataFrame or Scores
        One row per annotation: ``item, rater, value`` (as :func:`~ranger_eval.agreement`);
        the judge is one of the raters.
    judge : str
        The rater tested as the replacement.
    epsilon : float, default 0.2
        ε, the judge's cost-benefit allowance.
    metric : {'accuracy', 'neg_rmse'}, default 'accuracy'
        How an annotation is scored against the item's other annotators.
    fdr : float, default 0.05
        q of the Benjamini–Yekutieli procedure.
    min_raters : int, default 2
        Fewest human annotations an item needs.
    min_items : int, default 30
        Fewest items an annotator needs to be tested.
    settings : AltTestSettings, optional
        All of the settings at once.

    Returns
    -------
    AltTestResult

    Raises
    ------
    StatsInputError
        A judge that is not a rater, fewer than two human annotators, or no annotator with
        ``min_items`` items.

    References
    ----------
    Calderon, N., Reichart, R. & Dror, R. (2025), "The Alternative Annotator Test for
    LLM-as-a-Judge: How to Statistically Justify Replacing Human Annotators with LLMs", ACL
    2025 (arXiv:2501.10970); Benjamini, Y. & Yekutieli, D. (2001), Ann. Statist. 29:1165.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> import ranger_eval as rg
    >>> rng = np.random.default_rng(0)
    >>> truth = rng.integers(0, 3, 60)
    >>> rows = [(i, r, t if rng.random() < 0.8 else (t + 1) % 3)
    ...         for i, t in enumerate(truth) for r in ("h1", "h2", "h3", "llm")]
    >>> table = pd.DataFrame(rows, columns=["item", "rater", "value"])
    >>> result = rg.alt_test(table, judge="llm", epsilon=0.2)
    >>> result.annotators, 0 <= result.winning_rate <= 1
    (('h1', 'h2', 'h3'), True)
    """
    settings = resolve_settings(AltTestSettings, {
        "epsilon": epsilon, "metric": metric, "fdr": fdr, "min_raters": min_raters,
        "min_items": min_items}, settings, where="alt_test")
    ratings = ratings_table(table)
    names = [str(r) for r in ratings.raters]
    if str(judge) not in names:
        raise StatsInputError(f"alt_test: judge={judge!r} is not a rater of the table (raters: "
                              f"{', '.join(names[:10])})")
    j = names.index(str(judge))
    humans = [k for k in range(len(names)) if k != j]
    if len(humans) < 2:
        raise StatsInputError(f"alt_test: one human annotator only ({names[humans[0]]!r}); "
                              "leaving one out needs at least two (Calderon et al. ask for three "
                              "or more)" if humans else "alt_test: no human annotator")
    values = ratings.numbers() if ratings.numeric else np.where(
        ratings.values >= 0, ratings.values, -1).astype(float)
    if not ratings.numeric:
        values[ratings.values < 0] = np.nan
    human = values[:, humans]
    judged = ~np.isnan(values[:, j])
    keep = judged & ((~np.isnan(human)).sum(axis=1) >= settings.min_raters)
    human, pred = human[keep], values[keep, j]
    tested, p_values, wins, sizes, skipped = [], [], [], [], []
    for col, h in enumerate(humans):
        mine = ~np.isnan(human[:, col])
        if mine.sum() < settings.min_items:
            skipped.append(names[h])
            continue
        rest = np.delete(human[mine], col, axis=1)
        s_h = _scores(human[mine, col], rest, settings.metric, ratings.numeric)
        s_f = _scores(pred[mine], rest, settings.metric, ratings.numeric)
        w_f = (s_f >= s_h).astype(float)
        w_h = (s_h >= s_f).astype(float)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            p = float(ttest_1samp(w_h - w_f, settings.epsilon, alternative="less").pvalue)
        tested.append(names[h])
        p_values.append(p)
        wins.append(float(np.mean(w_f)))
        sizes.append(int(mine.sum()))
    if skipped:
        warnings.warn(f"alt_test: annotator(s) {', '.join(skipped)} with fewer than "
                      f"{settings.min_items} items were not tested (min_items)", RangerWarning,
                      stacklevel=2)
    if not tested:
        raise StatsInputError(f"alt_test: no annotator has {settings.min_items} items rated "
                              f"together with the judge and {settings.min_raters - 1} other "
                              "annotator(s); lower min_items or annotate more items")
    rejected = by_rejections(np.array(p_values), settings.fdr)
    return AltTestResult(
        judge=str(judge), winning_rate=float(rejected.sum() / len(tested)),
        advantage_probability=float(np.mean(wins)), annotators=tuple(tested),
        p_values=tuple(p_values), rejected=tuple(bool(r) for r in rejected),
        judge_wins=tuple(wins), n_items_each=tuple(sizes), skipped=tuple(skipped),
        n_items=int(keep.sum()), epsilon=settings.epsilon, metric=settings.metric,
        fdr=settings.fdr, min_raters=settings.min_raters, min_items=settings.min_items,
        settings=settings)
