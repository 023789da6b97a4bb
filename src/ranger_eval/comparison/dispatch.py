"""Test dispatch of :func:`~ranger_eval.comparison.compare`: the data of one pair (paired or
not), the test chosen for it, one-pair tests with their confidence intervals and effect sizes,
and the checks of their results.
"""
from __future__ import annotations

import contextlib
import math
import warnings
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from .. import stats
from ..errors import CompareError, Hint, ScoresError
from ..pairing import Group, is_binary
from ..scores import items_only_in
from ..stats import StatsInputError
from ..stats._scale import mean as _mean
from .choices import BINARY_ONLY, PAIRED_ONLY, UNPAIRED_ONLY

if TYPE_CHECKING:
    from ..stats.results import TestResult


@dataclass(frozen=True)
class _PairData:
    """The values of one pair of systems as a test sees them: ``x`` (system ``a``) and ``y``
    (system ``b``), aligned item by item when ``paired``."""

    a: str
    b: str
    paired: bool
    x: np.ndarray  # system a (aligned with y when paired)
    y: np.ndarray
    items: np.ndarray | None = None  # column indices of the common items when paired
    own: bool = True  # x and y are the systems' own items (group.row), not an intersection

    @property
    def n(self) -> tuple[int, int]:
        """(n_a, n_b): the numbers of values of the two systems."""
        return (self.x.size, self.y.size)


def items_differ_error(a: str, b: str, dataset: object, metric: object, test: str,
                       paired: bool | None, listing: str) -> ScoresError:
    """The error of a paired test of two systems that scored different items (``listing`` says
    which, :func:`ranger_eval.scores.items_only_in`), in memory or lazily, with its hints:
    ``missing='intersect'``, and ``paired=False`` where an unpaired test could take them."""
    hints = [Hint("missing", "intersect")]
    if not (test in PAIRED_ONLY or paired):
        hints.append(Hint("paired", False))
    hint = hints[0].text + " to use the common items" + (
        f" or {hints[1].text} to treat them as independent samples" if len(hints) > 1 else "")
    return ScoresError(
        f"items of {a!r} and {b!r} differ on dataset {dataset!r} (metric {metric!r}) but test "
        f"{test!r} pairs them by item id: {listing} ({hint})", hints=hints)


def _pair_data(
    group: Group, a: str, b: str, test: str, paired: bool | None, missing: str
) -> _PairData:
    """The data of the pair ``a`` vs ``b`` for ``test``: paired when the test needs it or
    ``paired`` says so, else (``paired=None``) when both systems score the same items and
    unpaired when their items are disjoint; a partial overlap is a ScoresError listing the ids,
    or (``missing="intersect"``) the common items with a warning counting the dropped ones."""
    ia, ib = group.index(a), group.index(b)
    if group.complete:
        same, overlap = True, group.items.size > 0
        pa = pb = None
    else:
        pa, pb = group.present[ia], group.present[ib]
        same = bool(np.array_equal(pa, pb))
        overlap = bool((pa & pb).any())
    if test in UNPAIRED_ONLY:
        if paired:
            raise CompareError(f"test {test!r} is for independent samples; it cannot use paired=True")
        use_paired = False
    elif test in PAIRED_ONLY or paired:
        use_paired = True
    elif paired is False:
        use_paired = False
    else:  # auto / resampling with paired=None: paired when the systems score the same items
        if same:
            use_paired = True
        elif not overlap:
            use_paired = False
        else:
            use_paired = True  # partial overlap: the pairing below reports the ids
    if not use_paired:
        return _PairData(a, b, False, group.row(a), group.row(b), None)
    if same:
        cols = np.flatnonzero(group.present[ia]) if pa is not None else None
        return _PairData(a, b, True, group.row(a), group.row(b), cols)
    assert pa is not None and pb is not None
    only_a = group.items[pa & ~pb]
    only_b = group.items[pb & ~pa]
    if missing == "error":
        raise items_differ_error(a, b, group.dataset, group.metric, test, paired,
                                 items_only_in(only_a, a, only_b, b))
    if not overlap:
        raise ScoresError(
            f"no common items between {a!r} and {b!r} on dataset {group.dataset!r} "
            f"(metric {group.metric!r}); a paired test is impossible"
        )
    warnings.warn(
        f"dataset {group.dataset!r} (metric {group.metric!r}): dropped "
        f"{len(only_a) + len(only_b)} item(s) not scored for both {a!r} and {b!r}",
        stacklevel=4,
    )
    cols = np.flatnonzero(pa & pb)
    return _PairData(a, b, True, group.matrix[ia, cols], group.matrix[ib, cols], cols, own=False)


def _pair_binary(group: Group, pd_: _PairData) -> bool:
    """Every value of both systems of the pair is 0 or 1 (cached per system for own items)."""
    if pd_.own:
        return group.binary[group.index(pd_.a)] and group.binary[group.index(pd_.b)]
    return is_binary(pd_.x) and is_binary(pd_.y)


def _pair_means(group: Group, pd_: _PairData) -> tuple[float, float]:
    """mean(x), mean(y) of a pair (cached per system for own items)."""
    if pd_.own:
        return group.means[group.index(pd_.a)], group.means[group.index(pd_.b)]
    return _mean(pd_.x), _mean(pd_.y)


def _choose_test(test: str, pd_: _PairData, group: Group) -> str:
    """The test of a pair: for ``"auto"`` the IBM framework's table (Ackerman et al. 2025):
    McNemar / two-proportion z for 0/1 scores, paired t / Welch otherwise (paired / unpaired);
    an explicit binary-only test on non-binary scores is a CompareError naming the value."""
    binary = _pair_binary(group, pd_)
    if test == "auto":
        if binary:
            return "mcnemar" if pd_.paired else "proportions-z"
        return "paired-t" if pd_.paired else "welch"
    if test in BINARY_ONLY and not binary:
        bad_sys, vals = (pd_.a, pd_.x) if not is_binary(pd_.x) else (pd_.b, pd_.y)
        first = vals[(vals != 0.0) & (vals != 1.0)][0]
        raise CompareError(
            f"test {test!r} needs binary (0/1) scores, but system {bad_sys!r} has value "
            f"{first!r} on dataset {group.dataset!r} (metric {group.metric!r})"
            + (" after averaging over seeds" if max(group.n_seeds.values()) > 1 else "")
        )
    return test


# --------------------------------------------------------------------------- one test
@dataclass(frozen=True)
class _Outcome:
    """One pair's test result: statistic, p-value and the interval, named by ``ci_method``."""

    statistic: float
    pvalue: float
    ci_low: float
    ci_high: float
    ci_method: str


def _interval(r: TestResult) -> tuple[float, float]:
    """``(ci_low, ci_high)`` of a test that defines a confidence interval."""
    if r.ci_low is None or r.ci_high is None:
        raise CompareError(f"{r.test} did not return a confidence interval")
    return r.ci_low, r.ci_high


def _t_interval(pd_: _PairData, alternative: str, level: float) -> tuple[float, float, str]:
    """The t interval of the mean difference, for tests that define none of their own: paired
    t (mean(d) ± t_{n-1} s_d/sqrt(n)) for paired data, Welch's otherwise; with its name."""
    if pd_.paired:
        r = stats.paired_ttest(pd_.x, pd_.y, alternative=alternative, level=level)
        lo, hi = _interval(r)
        return float(lo), float(hi), "paired t"
    r = stats.welch_ttest(pd_.x, pd_.y, alternative=alternative, level=level)
    lo, hi = _interval(r)
    return float(lo), float(hi), "Welch t"


def _wald_interval(pd_: _PairData, alternative: str, level: float) -> tuple[float, float, str]:
    """Wald interval of p_a - p_b (statsmodels ``confint_proportions_2indep``, method "wald")."""
    from statsmodels.stats.proportion import confint_proportions_2indep

    alpha = 1.0 - level
    two_sided_alpha = alpha if alternative == "two-sided" else 2.0 * alpha
    lo, hi = confint_proportions_2indep(
        pd_.x.sum(), pd_.x.size, pd_.y.sum(), pd_.y.size, method="wald", compare="diff",
        alpha=two_sided_alpha,
    )
    lo, hi = float(lo), float(hi)
    if alternative == "greater":
        hi = math.inf
    elif alternative == "less":
        lo = -math.inf
    return lo, hi, "Wald"


def _classical(
    test: str, pd_: _PairData, alternative: str, level: float,
    interval: tuple[float, float, str] | None = None,
) -> _Outcome:
    """One pair, one test (``interval``: its t interval when already computed)."""
    x, y = pd_.x, pd_.y
    if test == "paired-t":
        r = stats.paired_ttest(x, y, alternative=alternative, level=level)
        return _Outcome(r.statistic, r.pvalue, *_interval(r), "paired t")
    if test == "welch":
        r = stats.welch_ttest(x, y, alternative=alternative, level=level)
        return _Outcome(r.statistic, r.pvalue, *_interval(r), "Welch t")
    if test == "wilcoxon":  # its own interval: Hodges–Lehmann (R's wilcox.test(conf.int=TRUE))
        r = stats.wilcoxon(x, y, alternative=alternative, level=level)
        return _Outcome(r.statistic, r.pvalue, *_interval(r), "Hodges-Lehmann")
    if test == "sign":
        r = stats.sign_test(x, y, alternative=alternative)
    elif test == "mannwhitney":
        r = stats.mannwhitney(x, y, alternative=alternative)
    elif test == "mcnemar":
        r = stats.mcnemar(x, y, alternative=alternative, exact=True)
    elif test == "proportions-z":
        r = stats.proportions_ztest(
            [x.sum(), y.sum()], [x.size, y.size], alternative=alternative
        )
        lo, hi, how = _wald_interval(pd_, alternative, level)
        return _Outcome(r.statistic, r.pvalue, lo, hi, how)
    else:  # pragma: no cover - guarded by _check_choice
        raise CompareError(f"unknown test {test!r}")
    if test == "mcnemar" and interval is None:  # Tango's score interval: stays in [-1, 1]
        b = np.count_nonzero((x == 1) & (y == 0))
        c = np.count_nonzero((x == 0) & (y == 1))
        lo_t, hi_t = stats.tango_interval(b, c, x.size, level=level, alternative=alternative)
        return _Outcome(r.statistic, r.pvalue, float(lo_t[0]), float(hi_t[0]), "Tango score")
    lo, hi, how = interval if interval is not None else _t_interval(pd_, alternative, level)
    return _Outcome(r.statistic, r.pvalue, lo, hi, how)


def tango_rows(b: np.ndarray, c: np.ndarray, n: np.ndarray, *, level: float,
               alternative: str) -> tuple[np.ndarray, np.ndarray]:
    """Tango's score interval (:func:`~ranger_eval.stats.tango_interval`) of every McNemar row
    (discordant counts ``b``, ``c`` of ``n`` items), computed once per distinct (b, c, n): the
    interval is a fixed number of elementwise bisection steps, so each row's bounds are those
    of its own call bit for bit, and many tiny datasets share a handful of distinct counts
    (1,000,000 datasets of 4 items: at most 35 triples instead of 1,000,000 bisections)."""
    b, c, n = (np.asarray(v, dtype=np.int64) for v in (b, c, n))
    if b.size == 0:
        return np.empty(0), np.empty(0)
    key = np.stack([b, c, n])
    uniq, inverse = np.unique(key, axis=1, return_inverse=True)
    lo, hi = stats.tango_interval(uniq[0], uniq[1], uniq[2], level=level,
                                  alternative=alternative)
    inverse = inverse.reshape(-1)
    return lo[inverse], hi[inverse]


def cohens_h_of_means(mean_a: np.ndarray, mean_b: np.ndarray) -> np.ndarray:
    """Cohen's h = 2 asin(sqrt p_a) - 2 asin(sqrt p_b) of every row, each term by
    :func:`math.asin` / :func:`math.sqrt` once per distinct proportion, exactly as
    :func:`~ranger_eval.stats.cohens_h` computes one pair (numpy's ``arcsin`` may round
    differently from the C library's); proportions in [0, 1] (means of 0/1 scores)."""
    both = np.concatenate([mean_a, mean_b])
    uniq, inverse = np.unique(both, return_inverse=True)
    term = np.array([2.0 * math.asin(math.sqrt(float(p))) for p in uniq.tolist()])
    t = term[inverse.reshape(-1)]
    return t[:mean_a.size] - t[mean_a.size:]


def _effect(pd_: _PairData, group: Group) -> tuple[float, str]:
    """Effect size of a pair and its name: Cohen's h for 0/1 scores, d_z = mean(d)/sd(d) when
    paired, Cohen's d with the pooled SD when unpaired (:mod:`ranger_eval.stats.effectsize`)."""
    if _pair_binary(group, pd_):
        return float(stats.cohens_h(*_pair_means(group, pd_))), "cohens_h"
    if pd_.paired:
        return float(stats.cohens_dz(pd_.x, pd_.y)), "cohens_dz"
    return float(stats.cohens_d(pd_.x, pd_.y)), "cohens_d"


@contextlib.contextmanager
def _context(group: Group, pairs: list[_PairData]) -> Iterator[None]:
    """Re-raise a statistical input error with the dataset, metric and systems it concerns
    (the one pair when the error names its row of a vectorised kernel: ``exc.row``)."""
    try:
        yield
    except StatsInputError as exc:
        row, msg = getattr(exc, "row", None), str(exc)
        if isinstance(row, int) and 0 <= row < len(pairs):
            which = f"systems {pairs[row].a!r} vs {pairs[row].b!r}"
            msg = msg.replace(f" (row {row})", "")
        else:
            which = ", ".join(f"{p.a!r} vs {p.b!r}" for p in pairs[:3])
        raise CompareError(
            f"dataset {group.dataset!r} (metric {group.metric!r}), {which}: {msg}"
        ) from None


def _check_outcome(group: Group, d: _PairData, test: str, o: _Outcome, alternative: str
                   ) -> None:
    """Raise :class:`CompareError` naming the dataset, metric, systems and value when a pair's
    result is not representable: a NaN statistic or p-value, a mean difference or a (finite
    side of the) confidence interval beyond float64. The tests rescale extreme scores exactly
    (:mod:`ranger_eval.stats._scale`), so this is reached only when the answer itself does not
    fit in float64 (e.g. means of -1.7e308 and 1.7e308), never as the multiplicity step's
    anonymous "p-values must lie in [0, 1]"."""
    mean_a, mean_b = _pair_means(group, d)
    with np.errstate(over="ignore", invalid="ignore"):
        diff = mean_a - mean_b
    problems = []
    if not math.isfinite(diff):
        problems.append(f"the mean difference {mean_a!r} - {mean_b!r} is beyond the float64 "
                        "range (±1.8e308)")
    if math.isnan(o.statistic):
        problems.append(f"the {test} statistic is {o.statistic!r}")
    if not 0.0 <= o.pvalue <= 1.0:
        problems.append(f"the {test} p-value is {o.pvalue!r}")
    for bound, value, needed in (("lower", o.ci_low, alternative != "less"),
                                 ("upper", o.ci_high, alternative != "greater")):
        if math.isnan(value) or (needed and math.isinf(value)):
            problems.append(f"the {bound} bound of the {o.ci_method} interval is {value!r} "
                            "(beyond the float64 range)")
    if problems:
        raise CompareError(
            f"dataset {group.dataset!r} (metric {group.metric!r}), systems {d.a!r} vs {d.b!r}: "
            f"{'; '.join(problems)}: the result does not fit in float64; rescale the scores "
            "(e.g. divide them by a power of ten)"
        )
