"""Vectorised two-system tests: one call tests many pairs (the rows of equally shaped matrices).

Each function gives, row by row, exactly the numbers of its one-pair counterpart in
:mod:`ranger_eval.stats.tests` (bit for bit: the same scipy calls with ``axis=1`` on C-contiguous
rows, whose reductions use the same pairwise summation as a 1-D array), including the
degenerate-data conventions documented there. They exist for :func:`ranger_eval.compare`, which
aligns a dataset × metric once into an items × systems matrix and then tests all its pairs with
column operations and one vectorised distribution call:

* :func:`paired_ttest_many` -- t = mean(d)/(sd(d)/sqrt(n)), df = n - 1, ``scipy.stats.ttest_1samp``;
* :func:`welch_ttest_many` -- Welch's t with Welch–Satterthwaite df, ``scipy.stats.ttest_ind``;
* :func:`mcnemar_many` -- McNemar's exact test from the discordant counts b and c
  (b ~ Binomial(b + c, 1/2) under H0; two-sided p = min(1, 2 P(B <= min(b, c))));
* :func:`proportions_ztest_many` -- pooled two-proportion z test, the formula of statsmodels'
  ``proportions_ztest``: z = (p1 - p2)/sqrt(p(1 - p)(1/n1 + 1/n2)), p = (c1 + c2)/(n1 + n2);
* :func:`wald_interval_many` -- Wald interval of p1 - p2 (statsmodels
  ``confint_proportions_2indep(method="wald")``);
* :func:`cohens_dz_many`, :func:`cohens_d_many` -- the effect sizes of
  :mod:`ranger_eval.stats.effectsize`;
* :func:`wilcoxon_many` -- the Wilcoxon signed-rank test with R's Hodges–Lehmann estimate and
  interval (:func:`ranger_eval.stats.wilcoxon`): rows in the normal-approximation branch as one
  ``scipy.stats.wilcoxon(axis=1)`` call and one lockstep root search of R's ``uniroot``
  (:func:`~ranger_eval.stats._hodges_lehmann.r_asymptotic_interval_rows`), the others
  (exact branch, permutation p-values, degenerate rows, extreme scales) one by one;
* :func:`average_ranks` -- row-wise average ranks (ties get the mean of their positions),
  ``scipy.stats.rankdata(values, axis=1, method="average")`` without importing scipy.stats;
* :func:`paired_moments` -- the numbers both paired statistics need (mean(d), the centred sum
  of squares sum((d - mean)^2), constant rows), from one cache-sized pass over the differences of
  system rows; :meth:`PairedMoments.ttest` and :meth:`PairedMoments.cohens_dz` turn them into the
  paired t test (one ``scipy.special.stdtr``/``stdtrit`` call for every row, whatever the
  number of items) and d_z. :func:`paired_ttest_many` and :func:`cohens_dz_many` are built on
  them.

Inputs are float64 matrices with one row per pair (validated: finite, two-dimensional).
Rows of extreme scores are tested on the scores times a power of two, exactly as the one-pair
functions do (:mod:`ranger_eval.stats._scale`): statistics and p-values do not depend on the
scores' unit, locations are scaled back, and one beyond float64 raises
:class:`~ranger_eval.errors.StatsInputError` naming the row.
"""
from __future__ import annotations

import contextlib
import warnings
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from ._hodges_lehmann import (
    R_EXACT_BELOW_N,
    r_asymptotic_interval_rows,
    signrank_parts_rows,
    walsh_interval_rows,
)
from ._scale import (
    SAFE_HI,
    SAFE_LO,
    row_exponents,
    scaled_difference,
    scaled_rows,
    unscale_array,
)
from ._validation import StatsInputError, check_alternative, check_choice, check_level
from .resampling import _index  # row indices, checked the same way
from .results import ManyTestResult
from .tests import HODGES_LEHMANN, wilcoxon

__all__ = [
    "PairedMoments",
    "paired_moments",
    "paired_ttest_many",
    "welch_ttest_many",
    "mcnemar_counts_many",
    "mcnemar_many",
    "proportions_ztest_many",
    "wald_interval_many",
    "cohens_dz_many",
    "cohens_d_many",
    "average_ranks",
    "ranks_from_codes",
    "wilcoxon_many",
]


def _matrix(a: object, name: str, min_n: int) -> np.ndarray:
    try:
        m = np.ascontiguousarray(np.asarray(a, dtype=np.float64))
    except (TypeError, ValueError) as exc:
        raise StatsInputError(f"{name} must be a numeric matrix (pairs x items): {exc}") from None
    if m.ndim != 2:
        raise StatsInputError(f"{name} must be two-dimensional (pairs x items); got {m.shape}")
    if not np.isfinite(m).all():
        r, c = np.argwhere(~np.isfinite(m))[0]
        raise StatsInputError(f"{name} contains a non-finite value at pair {r}, item {c}")
    if m.shape[1] < min_n:
        raise StatsInputError(f"{name} needs at least {min_n} items per pair; got {m.shape[1]}")
    return m


@contextlib.contextmanager
def _row_context(row: int) -> Iterator[None]:
    """A :class:`StatsInputError` raised for one row names it (``exc.row``, `` (row r)``)."""
    try:
        yield
    except StatsInputError as exc:
        if getattr(exc, "row", None) is None:
            new = StatsInputError(f"{exc} (row {row})")
            new.row = row  # type: ignore[attr-defined]
            raise new from None
        raise


def _rows_equal(m: np.ndarray) -> np.ndarray:
    """Per row: every element equals the row's first (exact comparison, as ``all_equal``)."""
    if m.shape[1] == 0:
        return np.ones(m.shape[0], dtype=bool)
    return np.asarray((m == m[:, :1]).all(axis=1))


def _degenerate_t(effect: np.ndarray, alternative: str) -> tuple[np.ndarray, np.ndarray]:
    """Vectorised ``tests.degenerate_t``: 0 and p = 1 at no effect, else +-inf and p in {0, 1}."""
    stat = np.where(effect == 0.0, 0.0, np.copysign(np.inf, effect))
    if alternative == "two-sided":
        p = np.where(effect == 0.0, 1.0, 0.0)
    else:
        toward = (effect > 0) == (alternative == "greater")
        p = np.where(effect == 0.0, 1.0, np.where(toward, 0.0, 1.0))
    return stat, p


def _one_sided(lo: np.ndarray, hi: np.ndarray, alternative: str) -> tuple[np.ndarray, np.ndarray]:
    if alternative == "greater":
        hi = np.full_like(hi, np.inf)
    elif alternative == "less":
        lo = np.full_like(lo, -np.inf)
    return lo, hi


_EPS = float(np.finfo(np.float64).eps)
#: scipy's warning when ``ttest_1samp`` centres nearly identical values (``stats._demean``).
_CANCELLATION = (
    "Precision loss occurred in moment calculation due to catastrophic cancellation. This occurs "
    "when the data are nearly identical. Results may be unreliable."
)
#: Bytes of differences processed at a time by :func:`paired_moments` (kept in cache).
CHUNK_BYTES = 1 << 18


@dataclass(frozen=True)
class PairedMoments:
    """What the paired t test and d_z need of each row d of differences (one system pair).

    ``n`` items; ``mean`` = sum(d)/n (numpy's pairwise row sum); ``ss`` = sum((d - mean)^2), the
    pairwise sum of the squared centred values; ``constant``: every d_i equal; ``first`` = d_0;
    ``cancellation``: scipy's precision-loss condition max|d - mean| < 10 eps |mean|. These are
    exactly the intermediate numbers of ``scipy.stats.ttest_1samp(axis=1)`` (var = ss/n ·
    n/(n - 1)) and of ``numpy.std(ddof=1)`` (sd = sqrt(ss/(n - 1))), so :meth:`ttest` and
    :meth:`cohens_dz` equal them bit for bit.

    ``exp``: rows of extreme differences hold the moments of d' = d · 2^-exp
    (:func:`~ranger_eval.stats._scale.scaled_difference`, as the one-pair tests); ``exp`` is 0
    for every other row. t, p and d_z are scale free; :meth:`location` and the intervals of
    :meth:`ttest` are scaled back.
    """

    n: np.ndarray
    mean: np.ndarray
    ss: np.ndarray
    constant: np.ndarray
    first: np.ndarray
    cancellation: np.ndarray
    exp: np.ndarray

    def __len__(self) -> int:
        return int(self.mean.shape[0])

    @classmethod
    def concat(cls, parts: list[PairedMoments]) -> PairedMoments:
        """The rows of several :class:`PairedMoments` (any numbers of items), in order."""
        names = ("n", "mean", "ss", "constant", "first", "cancellation", "exp")
        if not parts:
            empty = np.empty(0)
            return cls(np.empty(0, np.int64), empty, empty, np.empty(0, bool), empty,
                       np.empty(0, bool), np.empty(0, np.int64))
        cols = {k: np.concatenate([getattr(p, k) for p in parts]) for k in names}
        return cls(**cols)

    def location(self, *, overflow: str = "raise") -> np.ndarray:
        """mean(d) on the scores' scale (constant rows: d_0); a mean beyond float64 raises
        :class:`StatsInputError` (``overflow="inf"``: becomes ±inf, for callers that name the
        pair themselves)."""
        est = np.where(self.constant, self.first, self.mean)
        return self._unscale(est, "mean difference", overflow)

    def _unscale(self, values: np.ndarray, what: str, overflow: str) -> np.ndarray:
        if overflow == "raise":
            return unscale_array(values, self.exp, what)
        with np.errstate(over="ignore"):
            return np.ldexp(values, self.exp)

    def warn_cancellation(self, rows: np.ndarray | None = None) -> None:
        """scipy's precision-loss ``RuntimeWarning`` if any of ``rows`` (default: all) that is
        not constant would make ``ttest_1samp`` emit it."""
        flag = self.cancellation & ~self.constant
        if (flag if rows is None else flag[rows]).any():
            warnings.warn(_CANCELLATION, RuntimeWarning, stacklevel=3)

    def ttest(
        self, alternative: str = "two-sided", level: float = 0.95, *, warn: bool = True,
        overflow: str = "raise",
    ) -> ManyTestResult:
        """Paired t test of mean(d) = 0 for every row, as ``scipy.stats.ttest_1samp`` computes it:
        t = mean/sqrt(var/n), var = ss/n · n/(n - 1); p from ``scipy.special.stdtr`` and the
        interval from ``stdtrit`` with df = n - 1 (one call each for all rows). Constant rows get
        the limits of :func:`~ranger_eval.stats.tests.paired_ttest` (statistic 0 or +-inf,
        interval = the point). Emits scipy's precision-loss ``RuntimeWarning`` when scipy would
        (``warn=False``: never; see :meth:`warn_cancellation`). ``n`` of the result is the first row's (``df`` holds n - 1 per row).
        Estimates and bounds of rescaled rows are scaled back; one beyond float64 raises
        :class:`StatsInputError` naming the row (``overflow="inf"``: it becomes ±inf)."""
        check_alternative(alternative)
        level = check_level(level)
        from scipy import special

        nf = self.n.astype(np.float64)
        var = self.ss / nf
        var *= nf / (nf - 1.0)
        denom = np.sqrt(var / nf)
        with np.errstate(divide="ignore", invalid="ignore"):
            t = np.divide(self.mean, denom)
        df = nf - 1.0
        if alternative == "two-sided":
            p = 2 * special.stdtr(df, -np.abs(t))
        elif alternative == "greater":
            p = special.stdtr(df, -t)
        else:
            p = special.stdtr(df, t)
        conf = np.asarray(level, dtype=np.float64)
        inf = np.full(t.shape, np.inf)
        if alternative == "less":
            low, high = -inf, special.stdtrit(df, conf)
        elif alternative == "greater":
            low, high = special.stdtrit(df, 1 - conf), inf
        else:
            tail = (1 - conf) / 2
            ci = special.stdtrit(df, np.stack((tail, 1 - tail)).reshape(2, 1))
            low, high = ci[0], ci[1]
        with np.errstate(invalid="ignore"):
            lo = low * denom + self.mean
            hi = high * denom + self.mean
        const = self.constant
        est = np.where(const, self.first, self.mean)
        stat = np.asarray(t, dtype=np.float64).copy()
        p = np.asarray(p, dtype=np.float64).copy()
        if const.any():
            stat[const], p[const] = _degenerate_t(est[const], alternative)
            lo[const], hi[const] = _one_sided(est[const], est[const], alternative)
        if warn:
            self.warn_cancellation()
        if self.exp.any():
            est = self._unscale(est, "mean difference", overflow)
            lo = self._unscale(lo, "lower confidence bound", overflow)
            hi = self._unscale(hi, "upper confidence bound", overflow)
        return ManyTestResult(
            test="paired t-test", statistic=stat, pvalue=p, alternative=alternative,
            n=int(self.n[0]) if len(self) else 0, estimate=est, ci_low=lo, ci_high=hi,
            level=level, df=df, estimate_name="mean difference",
        )

    def cohens_dz(self) -> np.ndarray:
        """Cohen's d_z = mean(d)/sd(d), sd = sqrt(ss/(n - 1)) as ``numpy.std(ddof=1)``
        (constant rows: 0 or +-inf, as :func:`~ranger_eval.stats.effectsize.cohens_dz`)."""
        sd = np.sqrt(self.ss / (self.n - 1).astype(np.float64))
        sd[self.constant] = 0.0
        return _ratio(np.where(self.constant, self.first, self.mean), sd)


def paired_moments(
    values: object, ia: object | None = None, ib: object | None = None
) -> PairedMoments:
    """:class:`PairedMoments` of the rows d_j = values[ia_j] - values[ib_j] (``ib`` None:
    d_j = values[ia_j]; ``ia`` None: every row of ``values``).

    ``values`` is a systems x items matrix (at least 2 items): the differences of all pairs are
    formed a few rows at a time (about :data:`CHUNK_BYTES`), so each row is read from cache by
    the four passes (difference, sum, centring and square, sum) and no pairs x items matrix is
    ever stored.

    Parameters
    ----------
    values : array_like
        systems × items (at least 2 items).
    ia, ib : array_like of int, optional
        Row indices of the first and second system of each pair.

    Returns
    -------
    PairedMoments
        Per pair: ``n``, ``mean``, ``ss``, ``constant``, ``first``, ``cancellation``, ``exp``.

    Examples
    --------
    >>> from ranger_eval.stats.many import paired_moments
    >>> import numpy as np
    >>> v = np.array([[.8, .6, .9, .5, .7, .7, .6, .8], [.7, .6, .8, .5, .6, .7, .5, .6],
    ...               [.5, .4, .6, .3, .5, .6, .4, .5]])
    >>> m = paired_moments(v, [0, 0, 1], [1, 2, 2])
    >>> m.mean.round(4).tolist(), m.ss.round(4).tolist()
    ([0.075, 0.225, 0.15], [0.035, 0.035, 0.02])
    """
    v = _matrix(values, "values", 2)
    rows_v, n = v.shape
    ia_ = np.arange(rows_v, dtype=np.intp) if ia is None else _index(ia, rows_v, "ia")
    ib_ = None if ib is None else _index(ib, rows_v, "ib")
    if ib_ is not None and ib_.size != ia_.size:
        raise StatsInputError(f"ia and ib need the same length; got {ia_.size} and {ib_.size}")
    m = ia_.size
    mean, ss, first = np.empty(m), np.empty(m), np.empty(m)
    # chunks of pairs (a, b), (a, b + 1), ... (all pairs, baseline pairs) need no gathers
    same_a = np.r_[False, ia_[1:] == ia_[:-1]]
    next_b = np.r_[False, ib_[1:] == ib_[:-1] + 1] if ib_ is not None else same_a
    step = max(1, min(m, CHUNK_BYTES // (8 * n)))

    def run(lo: int, hi: int) -> None:  # rows lo..hi-1 (threads were measured: slower)
        buf = np.empty((step, n))
        other = np.empty((step, n)) if ib_ is not None else buf
        for a in range(lo, hi, step):
            b = min(a + step, hi)
            d = buf[: b - a]
            if ib_ is None:
                np.take(v, ia_[a:b], axis=0, out=d)
            elif same_a[a + 1:b].all() and next_b[a + 1:b].all():
                np.subtract(v[ia_[a]], v[ib_[a]:ib_[a] + b - a], out=d)
            else:
                o = other[: b - a]
                np.take(v, ia_[a:b], axis=0, out=d)
                np.take(v, ib_[a:b], axis=0, out=o)
                np.subtract(d, o, out=d)
            first[a:b] = d[:, 0]
            mu = np.add.reduce(d, axis=1)
            mu /= n
            mean[a:b] = mu
            np.subtract(d, mu[:, None], out=d)
            np.multiply(d, d, out=d)
            ss[a:b] = np.add.reduce(d, axis=1)

    with np.errstate(over="ignore", invalid="ignore"):  # overflowing rows are redone below
        run(0, m)
    exp = np.zeros(m, dtype=np.int64)
    # rows whose largest |d| may lie outside [SAFE_LO, SAFE_HI] (then |mean| > SAFE_HI/2,
    # ss > SAFE_HI²/4, ss < n·(2·SAFE_LO)², or an overflow) are redone as the one-pair tests do
    with np.errstate(over="ignore", invalid="ignore"):
        extreme = ~(np.isfinite(ss) & (np.abs(mean) <= SAFE_HI / 2) & (ss <= SAFE_HI ** 2 / 4)
                    & (ss >= n * (2 * SAFE_LO) ** 2))
    cand = np.flatnonzero(extreme)
    for j in cand[_rescaled(v, ia_, ib_, cand)] if cand.size else cand:
        d, e = scaled_difference(v[ia_[j]], None if ib_ is None else v[ib_[j]])
        exp[j] = e
        first[j] = d[0]
        mean[j] = np.add.reduce(d) / n
        ss[j] = np.add.reduce((d - mean[j]) ** 2)
    # Rare rows are settled on their own differences: a constant row has |d_i - mean| <=
    # (n + 2) u |d_0| (u = eps/2), and scipy's cancellation needs max|d - mean| < 10 eps |mean|;
    # ss bounds both from below (with a margin), so other rows cannot qualify.
    with np.errstate(over="ignore"):
        maybe_const = ss <= n * ((n + 2) * _EPS * np.abs(first)) ** 2 * 1.01
        maybe_cancel = ss <= n * (10 * _EPS * np.abs(mean)) ** 2 * 1.01
    constant = np.zeros(m, dtype=bool)
    cancellation = np.zeros(m, dtype=bool)
    for j in np.flatnonzero(maybe_const | maybe_cancel):
        if exp[j]:
            d, _ = scaled_difference(v[ia_[j]], None if ib_ is None else v[ib_[j]])
        else:
            d = v[ia_[j]] - v[ib_[j]] if ib_ is not None else v[ia_[j]]
        constant[j] = bool(np.all(d == d[0]))
        with np.errstate(divide="ignore", invalid="ignore"):
            cancellation[j] = bool(np.max(np.abs(d - mean[j])) / np.abs(mean[j]) < _EPS * 10)
    return PairedMoments(np.full(m, n, dtype=np.int64), mean, ss, constant, first, cancellation,
                         exp)


def _rescaled(v: np.ndarray, ia: np.ndarray, ib: np.ndarray | None, rows: np.ndarray
              ) -> np.ndarray:
    """Which of ``rows`` (d = v[ia] - v[ib], or v[ia]) :func:`~ranger_eval.stats._scale.
    scaled_difference` rescales (e != 0): max|x|, max|y| >= 2^1000, or max|d| non-zero and
    outside [SAFE_LO, SAFE_HI]; vectorised over cache-sized chunks of rows."""
    out = np.empty(rows.size, dtype=bool)
    step = max(1, CHUNK_BYTES // (8 * v.shape[1]))
    for a in range(0, rows.size, step):
        r = rows[a:a + step]
        x = v[ia[r]]
        if ib is None:
            top, big = np.abs(x).max(axis=1), np.zeros(r.size, dtype=bool)
        else:
            y = v[ib[r]]
            with np.errstate(over="ignore"):
                top = np.abs(x - y).max(axis=1)
            big = np.maximum(np.abs(x).max(axis=1), np.abs(y).max(axis=1)) >= 2.0 ** 1000
        out[a:a + step] = big | ((top != 0.0) & ((top < SAFE_LO) | (top > SAFE_HI)))
    return out


def paired_ttest_many(
    diffs: object, *, alternative: str = "two-sided", level: float = 0.95
) -> ManyTestResult:
    """:func:`~ranger_eval.stats.tests.paired_ttest` of every row of ``diffs`` (pairs x n).

    t = mean(d)/(sd(d)/sqrt(n)) computed as ``scipy.stats.ttest_1samp(axis=1)`` does
    (:class:`PairedMoments`, bit for bit); rows of equal differences get the documented limit
    (statistic 0 or +-inf, interval = the point).

    Parameters
    ----------
    diffs : array_like
        Paired differences, pairs × n.
    alternative : {"two-sided", "greater", "less"}, default "two-sided"
        "greater" means the first system scores higher.
    level : float, default 0.95
        Confidence level of the intervals.

    Returns
    -------
    ManyTestResult
        Per row: ``statistic``, ``pvalue``, ``estimate``, ``ci_low``/``ci_high``, ``df``.

    References
    ----------
    Student (1908), "The probable error of a mean", Biometrika 6(1):1–25.

    Examples
    --------
    >>> from ranger_eval.stats.many import paired_ttest_many
    >>> import numpy as np
    >>> v = np.array([[.8, .6, .9, .5, .7, .7, .6, .8], [.7, .6, .8, .5, .6, .7, .5, .6],
    ...               [.5, .4, .6, .3, .5, .6, .4, .5]])
    >>> r = paired_ttest_many(v[[0, 0, 1]] - v[[1, 2, 2]])
    >>> r.statistic.round(4).tolist(), r.pvalue.round(4).tolist()
    ([3.0, 9.0, 7.9373], [0.0199, 0.0, 0.0001])
    """
    check_alternative(alternative)
    level = check_level(level)
    return paired_moments(_matrix(diffs, "diffs", 2)).ttest(alternative, level)


def welch_ttest_many(
    x: object, y: object, *, alternative: str = "two-sided", level: float = 0.95
) -> ManyTestResult:
    """:func:`~ranger_eval.stats.tests.welch_ttest` of every row pair of ``x`` (pairs x n_x)
    and ``y`` (pairs x n_y), one ``scipy.stats.ttest_ind(equal_var=False, axis=1)`` call.

    Two constant rows: statistic 0 or +-inf, interval = the point, df NaN (undefined).

    Parameters
    ----------
    x, y : array_like
        pairs × n_x and pairs × n_y.
    alternative : {"two-sided", "greater", "less"}, default "two-sided"
        "greater" means the first system scores higher.
    level : float, default 0.95
        Confidence level of the intervals.

    Returns
    -------
    ManyTestResult
        Per row: ``statistic``, ``pvalue``, ``estimate``, ``ci_low``/``ci_high``, ``df``.

    References
    ----------
    Welch, B. L. (1947), "The generalization of 'Student's' problem when several different
    population variances are involved", Biometrika 34(1–2):28–35.

    Examples
    --------
    >>> from ranger_eval.stats.many import welch_ttest_many
    >>> import numpy as np
    >>> v = np.array([[.8, .6, .9, .5, .7, .7, .6, .8], [.7, .6, .8, .5, .6, .7, .5, .6],
    ...               [.5, .4, .6, .3, .5, .6, .4, .5]])
    >>> r = welch_ttest_many(v[:1], v[1:2])
    >>> r.statistic.round(4).tolist(), r.pvalue.round(4).tolist(), r.df.round(4).tolist()
    ([1.271], [0.2255], [13.2921])
    """
    check_alternative(alternative)
    level = check_level(level)
    xa = _matrix(x, "x", 2)
    ya = _matrix(y, "y", 2)
    if xa.shape[0] != ya.shape[0]:
        raise StatsInputError(f"x and y need the same number of rows; got {xa.shape[0]}, {ya.shape[0]}")
    m = xa.shape[0]
    e = row_exponents(xa, ya)
    xa, ya = scaled_rows(e, xa, ya)  # rows of extreme scores · 2^-e (exact), as welch_ttest
    est = xa.mean(axis=1) - ya.mean(axis=1)
    const = _rows_equal(xa) & _rows_equal(ya)
    stat, p, lo, hi, df = (np.empty(m) for _ in range(5))
    if const.any():
        est[const] = xa[const, 0] - ya[const, 0]
        stat[const], p[const] = _degenerate_t(est[const], alternative)
        lo[const], hi[const] = _one_sided(est[const], est[const], alternative)
        df[const] = np.nan
    ok = ~const
    if ok.any():
        from scipy import stats as sps

        res = sps.ttest_ind(xa[ok], ya[ok], axis=1, equal_var=False, alternative=alternative)
        ci = res.confidence_interval(confidence_level=level)
        stat[ok], p[ok], df[ok] = res.statistic, res.pvalue, res.df
        lo[ok], hi[ok] = ci.low, ci.high
    if e.any():
        est = unscale_array(est, e, "difference in means")
        lo = unscale_array(lo, e, "lower confidence bound")
        hi = unscale_array(hi, e, "upper confidence bound")
    return ManyTestResult(
        test="Welch t-test", statistic=stat, pvalue=p, alternative=alternative, n=xa.shape[1],
        n_y=ya.shape[1], estimate=est, ci_low=lo, ci_high=hi, level=level, df=df,
        estimate_name="difference in means",
    )


def mcnemar_many(x: object, y: object, *, alternative: str = "two-sided") -> ManyTestResult:
    """McNemar's exact test (:func:`~ranger_eval.stats.tests.mcnemar` with ``exact=True``) of
    every row pair of the binary matrices ``x`` and ``y`` (pairs x n).

    b = #(x=1, y=0), c = #(x=0, y=1), m = b + c; two-sided statistic min(b, c) and
    p = min(1, 2 F(min(b, c); m, 1/2)); "greater": statistic b, p = P(B >= b); "less":
    p = P(B <= b); m = 0: statistic 0, p = 1. One vectorised ``scipy.stats.binom`` call.

    Parameters
    ----------
    x, y : array_like of {0, 1}
        pairs × n binary matrices.
    alternative : {"two-sided", "greater", "less"}, default "two-sided"
        "greater" means the first system scores higher.

    Returns
    -------
    ManyTestResult
        Per row: ``statistic``, ``pvalue``.

    References
    ----------
    McNemar, Q. (1947), "Note on the sampling error of the difference between correlated
    proportions or percentages", Psychometrika 12(2):153–157.

    Examples
    --------
    b = 4 items right only for x, c = 0 only for y: p = 2 · (1/2)^4.

    >>> import numpy as np
    >>> from ranger_eval.stats.many import mcnemar_many
    >>> x = np.array([[1, 1, 0, 1, 1, 0, 1, 1, 1, 0]])
    >>> y = np.array([[0, 1, 0, 0, 1, 0, 0, 1, 0, 0]])
    >>> r = mcnemar_many(x, y)
    >>> r.statistic.tolist(), r.pvalue.tolist()
    ([0.0], [0.125])
    """
    check_alternative(alternative)
    xa = _matrix(x, "x", 1)
    ya = _matrix(y, "y", 1)
    if xa.shape != ya.shape:
        raise StatsInputError(f"paired test needs equal shapes: x is {xa.shape}, y is {ya.shape}")
    for name, a in (("x", xa), ("y", ya)):
        bad = (a != 0.0) & (a != 1.0)
        if bad.any():
            r, c = np.argwhere(bad)[0]
            raise StatsInputError(
                f"{name} must be binary (0/1) for McNemar's test; pair {r}, item {c} is "
                f"{float(a[r, c])!r}"
            )
    xb, yb = xa.astype(bool), ya.astype(bool)
    return mcnemar_counts_many((xb & ~yb).sum(axis=1), (~xb & yb).sum(axis=1), xa.shape[1],
                               alternative=alternative)


def mcnemar_counts_many(b: np.ndarray, c: np.ndarray, n: int | np.ndarray, *,
                        alternative: str = "two-sided") -> ManyTestResult:
    """McNemar's exact test of :func:`mcnemar_many` from the discordant counts of each row:
    ``b`` = #(x=1, y=0), ``c`` = #(x=0, y=1) (integer arrays) of ``n`` items (one number, or
    one per row). Every row is computed alone (one elementwise ``scipy.stats.binom`` call), so
    a row's result does not depend on the others: the all-groups path of
    :func:`~ranger_eval.comparison.compare` calls it on every group's pairs at once.

    Examples
    --------
    >>> import numpy as np
    >>> from ranger_eval.stats.many import mcnemar_counts_many
    >>> r = mcnemar_counts_many(np.array([4, 1]), np.array([0, 1]), 10)
    >>> r.statistic.tolist(), r.pvalue.tolist()
    ([0.0, 1.0], [0.125, 1.0])
    """
    check_alternative(alternative)
    m = b + c
    from scipy import stats as sps

    with np.errstate(invalid="ignore", divide="ignore"):
        if alternative == "two-sided":
            k = np.minimum(b, c)
            stat = k.astype(np.float64)
            p = 2.0 * sps.binom.cdf(k, m, 0.5)
        elif alternative == "greater":
            stat = b.astype(np.float64)
            p = sps.binom.sf(b - 1, m, 0.5)
        else:
            stat = b.astype(np.float64)
            p = sps.binom.cdf(b, m, 0.5)
    p = np.minimum(np.asarray(p, dtype=np.float64), 1.0)
    none = m == 0
    stat = np.where(none, 0.0, stat)
    p = np.where(none, 1.0, p)
    n_first = int(np.max(n)) if np.ndim(n) else int(n)
    return ManyTestResult(
        test="McNemar test", statistic=stat, pvalue=p, alternative=alternative, n=n_first,
        method="exact", estimate=(b - c) / n, estimate_name="difference in proportions",
    )


def _counts(count_a: object, n_a: object, count_b: object, n_b: object) -> tuple[np.ndarray, ...]:
    arrs = [np.atleast_1d(np.asarray(v, dtype=np.float64)) for v in (count_a, n_a, count_b, n_b)]
    shape = arrs[0].shape
    if any(a.shape != shape for a in arrs) or len(shape) != 1:
        raise StatsInputError("count_a, n_a, count_b and n_b must be 1-D arrays of one length")
    c1, n1, c2, n2 = arrs
    if not all(np.isfinite(a).all() for a in arrs):
        raise StatsInputError("counts and sample sizes must be finite")
    if (n1 < 1).any() or (n2 < 1).any() or (c1 < 0).any() or (c2 < 0).any() or (
            c1 > n1).any() or (c2 > n2).any():
        raise StatsInputError("need 0 <= count <= nobs and nobs >= 1 for every pair")
    return c1, n1, c2, n2


def proportions_ztest_many(
    count_a: object, n_a: object, count_b: object, n_b: object, *, alternative: str = "two-sided"
) -> ManyTestResult:
    """Two-sample pooled z test of p_a = p_b for every pair (vectorised
    :func:`~ranger_eval.stats.tests.proportions_ztest`; statsmodels' arithmetic, so the same
    bits). Zero pooled variance: statistic 0 and p = 1 when p_a = p_b, else +-inf.

    Parameters
    ----------
    count_a, n_a, count_b, n_b : array_like
        Successes and trials of the two systems, per pair.
    alternative : {"two-sided", "greater", "less"}, default "two-sided"
        "greater" means the first system scores higher.

    Returns
    -------
    ManyTestResult
        Per pair: ``statistic`` z, ``pvalue``.

    Examples
    --------
    >>> from ranger_eval.stats.many import proportions_ztest_many
    >>> r = proportions_ztest_many([30, 45], [40, 60], [20, 30], [40, 60])
    >>> r.statistic.round(4).tolist(), r.pvalue.round(4).tolist()
    ([2.3094, 2.8284], [0.0209, 0.0047])
    """
    check_alternative(alternative)
    c1, n1, c2, n2 = _counts(count_a, n_a, count_b, n_b)
    from scipy import stats as sps

    est = c1 / n1 - c2 / n2
    diff = (c1 * 1.0 / n1 - c2 * 1.0 / n2) - 0
    pooled = (c1 + c2) * 1.0 / (n1 + n2)
    var = pooled * (1 - pooled) * (1.0 / n1 + 1.0 / n2)
    degenerate = (c1 + c2) / (n1 + n2) * (1.0 - (c1 + c2) / (n1 + n2)) == 0.0
    with np.errstate(invalid="ignore", divide="ignore"):
        z = diff / np.sqrt(var)
    if alternative == "two-sided":
        p = sps.norm.sf(np.abs(z)) * 2
    elif alternative == "greater":
        p = sps.norm.sf(z)
    else:
        p = sps.norm.cdf(z)
    d_stat, d_p = _degenerate_t(est, alternative)
    stat = np.where(degenerate, d_stat, z)
    p = np.where(degenerate, d_p, p)
    return ManyTestResult(
        test="proportions z-test", statistic=np.asarray(stat, dtype=np.float64),
        pvalue=np.asarray(p, dtype=np.float64), alternative=alternative, n=int(n1[0]) if n1.size else 0,
        n_y=int(n2[0]) if n2.size else None, method="asymptotic", estimate=est,
        estimate_name="difference in proportions",
    )


def wald_interval_many(
    count_a: object, n_a: object, count_b: object, n_b: object, *,
    alternative: str = "two-sided", level: float = 0.95,
) -> tuple[np.ndarray, np.ndarray]:
    """Wald interval of p_a - p_b: diff -+ z sqrt(p_a(1 - p_a)/n_a + p_b(1 - p_b)/n_b), z the
    normal quantile at alpha/2 (one-sided: alpha, the other bound infinite); statsmodels
    ``confint_proportions_2indep(method="wald", compare="diff")`` arithmetic.

    Parameters
    ----------
    count_a, n_a, count_b, n_b : array_like
        Successes and trials of the two systems, per pair.
    alternative : {"two-sided", "greater", "less"}, default "two-sided"
        "greater" means the first system scores higher.
    level : float, default 0.95
        Confidence level of the intervals.

    Returns
    -------
    tuple of numpy.ndarray
        ``(low, high)`` per pair.

    Examples
    --------
    >>> from ranger_eval.stats.many import wald_interval_many
    >>> [a.round(4).tolist() for a in wald_interval_many([30], [40], [20], [40])]
    [[0.045], [0.455]]
    """
    check_alternative(alternative)
    level = check_level(level)
    c1, n1, c2, n2 = _counts(count_a, n_a, count_b, n_b)
    from scipy import stats as sps

    alpha = 1.0 - level
    two_sided_alpha = alpha if alternative == "two-sided" else 2.0 * alpha
    p1 = c1 / n1
    p2 = c2 / n2
    var = p1 * (1 - p1) / n1 + p2 * (1 - p2) / n2
    z = sps.norm.isf(two_sided_alpha / 2)
    d_wald = z * np.sqrt(var)
    lo, hi = (p1 - p2) - d_wald, (p1 - p2) + d_wald
    return _one_sided(lo, hi, alternative)


def _ratio(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(den > 0.0, num / np.where(den > 0.0, den, 1.0),
                        np.where(num == 0.0, 0.0, np.copysign(np.inf, num)))


def cohens_dz_many(diffs: object) -> np.ndarray:
    """Cohen's d_z = mean(d)/sd(d) (ddof = 1) of every row (as
    :func:`~ranger_eval.stats.effectsize.cohens_dz`; equal differences: 0 or +-inf).

    Parameters
    ----------
    diffs : array_like
        Paired differences, pairs × n.

    Returns
    -------
    numpy.ndarray
        One d_z per row.

    References
    ----------
    Cohen, J. (1988), *Statistical Power Analysis for the Behavioral Sciences*, 2nd ed.,
    Lawrence Erlbaum.

    Examples
    --------
    >>> from ranger_eval.stats.many import cohens_dz_many
    >>> import numpy as np
    >>> v = np.array([[.8, .6, .9, .5, .7, .7, .6, .8], [.7, .6, .8, .5, .6, .7, .5, .6],
    ...               [.5, .4, .6, .3, .5, .6, .4, .5]])
    >>> cohens_dz_many(v[[0, 0, 1]] - v[[1, 2, 2]]).round(4).tolist()
    [1.0607, 3.182, 2.8062]
    """
    return paired_moments(_matrix(diffs, "diffs", 2)).cohens_dz()


def cohens_d_many(x: object, y: object) -> np.ndarray:
    """Unpaired Cohen's d with the pooled SD for every row pair (as
    :func:`~ranger_eval.stats.effectsize.cohens_d`).

    Parameters
    ----------
    x, y : array_like
        pairs × n_x and pairs × n_y.

    Returns
    -------
    numpy.ndarray
        One d per row pair.

    References
    ----------
    Cohen, J. (1988), *Statistical Power Analysis for the Behavioral Sciences*, 2nd ed.,
    Lawrence Erlbaum.

    Examples
    --------
    >>> from ranger_eval.stats.many import cohens_d_many
    >>> import numpy as np
    >>> v = np.array([[.8, .6, .9, .5, .7, .7, .6, .8], [.7, .6, .8, .5, .6, .7, .5, .6],
    ...               [.5, .4, .6, .3, .5, .6, .4, .5]])
    >>> cohens_d_many(v[:1], v[1:2]).round(4).tolist()
    [0.6355]
    """
    xa = _matrix(x, "x", 2)
    ya = _matrix(y, "y", 2)
    e = row_exponents(xa, ya)
    xa, ya = scaled_rows(e, xa, ya)  # exact power-of-two rescaling: the same ratio
    nx, ny = xa.shape[1], ya.shape[1]
    sx = np.where(_rows_equal(xa), 0.0, xa.var(axis=1, ddof=1))
    sy = np.where(_rows_equal(ya), 0.0, ya.var(axis=1, ddof=1))
    sp = np.sqrt(((nx - 1) * sx + (ny - 1) * sy) / (nx + ny - 2))
    return _ratio(xa.mean(axis=1) - ya.mean(axis=1), sp)


def ranks_from_codes(codes: np.ndarray, k: int) -> np.ndarray:
    """Average ranks (1-based, ties averaged) of every row of ``codes``, the values' tie-group
    codes (0 … k − 1 in increasing value), without sorting: group g of W_g entries after C_g
    smaller ones has rank C_g + (W_g + 1)/2 (``scipy.stats.rankdata(method="average")``).

    Parameters
    ----------
    codes : numpy.ndarray of int
        rows × n tie-group codes, 0 … k − 1 in increasing value.
    k : int
        The number of tie groups.

    Returns
    -------
    numpy.ndarray
        rows × n average ranks.

    Examples
    --------
    >>> import numpy as np
    >>> from ranger_eval.stats.many import ranks_from_codes
    >>> ranks_from_codes(np.array([[0, 2, 1, 1], [1, 0, 0, 0]]), 3).tolist()
    [[1.0, 4.0, 2.5, 2.5], [4.0, 2.0, 2.0, 2.0]]
    """
    b = codes.shape[0]
    off = (np.arange(b, dtype=np.int64) * k)[:, None]
    flat = (codes + off).ravel()
    w = np.bincount(flat, minlength=b * k).reshape(b, k).astype(np.float64)
    rank = np.cumsum(w, axis=1)
    rank -= w
    rank += (w + 1.0) / 2.0
    return rank.ravel()[flat].reshape(codes.shape)


def average_ranks(values: object) -> np.ndarray:
    """Average ranks (1-based; tied values share the mean of their positions) along the last
    axis of a vector or of every row of a matrix: exactly
    ``scipy.stats.rankdata(values, axis=-1, method="average")`` (a row with a NaN is all NaN, as
    there). One stable sort per row; a run of equal sorted values from position i to j (0-based)
    gets rank (i + j)/2 + 1. Ranking bootstrap means this way does not import scipy.stats (half a
    second).

    Parameters
    ----------
    values : array_like
        A vector or a matrix (ranked row by row).

    Returns
    -------
    numpy.ndarray
        The ranks, the shape of ``values``.

    Examples
    --------
    >>> import numpy as np
    >>> from ranger_eval.stats.many import average_ranks
    >>> average_ranks([0.3, 0.1, 0.3, 0.2]).tolist()
    [3.5, 1.0, 3.5, 2.0]
    >>> average_ranks(np.array([[1.0, 2.0, 2.0], [3.0, 1.0, 2.0]])).tolist()
    [[1.0, 2.5, 2.5], [3.0, 1.0, 2.0]]
    """
    a = np.asarray(values, dtype=np.float64)
    if a.ndim not in (1, 2):
        raise StatsInputError(f"average_ranks: values must be a vector or a matrix; got {a.shape}")
    rows = a.reshape(1, -1) if a.ndim == 1 else a
    b, k = rows.shape
    if rows.size == 0:
        return np.empty(a.shape)
    order = np.argsort(rows, axis=1, kind="stable")
    ordered = np.take_along_axis(rows, order, axis=1)
    pos = np.broadcast_to(np.arange(k), (b, k))
    starts = np.ones((b, k), dtype=bool)
    starts[:, 1:] = ordered[:, 1:] != ordered[:, :-1]
    ends = np.ones((b, k), dtype=bool)
    ends[:, :-1] = starts[:, 1:]
    first = np.maximum.accumulate(np.where(starts, pos, 0), axis=1)
    last = np.minimum.accumulate(np.where(ends, pos, k - 1)[:, ::-1], axis=1)[:, ::-1]
    out = np.empty((b, k))
    np.put_along_axis(out, order, (first + last) / 2.0 + 1.0, axis=1)
    out[np.isnan(rows).any(axis=1)] = np.nan
    return out.reshape(a.shape)


def wilcoxon_many(diffs: object, *, alternative: str = "two-sided", level: float = 0.95,
                  hodges_lehmann: str = "r") -> ManyTestResult:
    """:func:`~ranger_eval.stats.wilcoxon` (``zero_method="wilcox"``, ``method="auto"``, no
    continuity correction: what :func:`ranger_eval.compare` runs) of every row of ``diffs``, bit
    for bit.

    Rows whose p-value and interval both come from the normal approximation (R's switch: ties,
    zeros or n >= 50; with ties or zeros only when n > 13, below which scipy permutes) are
    vectorised: statistic and p-value are ``scipy.stats.wilcoxon(method="asymptotic")``'s
    operations in its order on R+ and the tie term of every row
    (:func:`~ranger_eval.stats._hodges_lehmann.signrank_parts_rows`: sums of half-integers, exact
    whatever the order, so the same floats as scipy row by row), the estimate and interval from
    :func:`~ranger_eval.stats._hodges_lehmann.r_asymptotic_interval_rows` on the rows' non-zero
    differences (+inf padding after them). The other rows (R's exact branch, scipy's permutation
    p-values, rows that are all zero or constant, rows of extreme scale) run
    :func:`~ranger_eval.stats.wilcoxon` one by one. A row whose level is not achievable warns
    as the one-row function does; ``level`` of the result is the requested one.

    Parameters
    ----------
    diffs : array_like
        One row of paired differences x - y per pair (finite, at least 2 columns).
    alternative : {"two-sided", "greater", "less"}, default "two-sided"
        "greater" means the first system of the pair scores higher.
    level : float, default 0.95
        Confidence level of the Hodges–Lehmann interval.
    hodges_lehmann : {"r", "walsh"}, default "r"
        As in :func:`~ranger_eval.stats.wilcoxon`: "walsh" takes exact Walsh-average order
        statistics (:func:`~ranger_eval.stats._hodges_lehmann.walsh_interval_rows`, all rows
        at once) instead of R's ``uniroot`` roots; p-values are the same either way.

    Returns
    -------
    ManyTestResult
        ``statistic``, ``pvalue``, ``estimate``, ``ci_low``, ``ci_high`` per row.

    Raises
    ------
    StatsInputError
        A non-finite value, fewer than 2 columns, or a row whose estimate or bound does not fit
        in float64 once scaled back (naming the row).

    References
    ----------
    Hollander, Wolfe & Chicken (2014), *Nonparametric Statistical Methods*, sec. 3.1–3.3;
    R Core Team, ``stats::wilcox.test``.

    Examples
    --------
    >>> import numpy as np
    >>> from ranger_eval.stats.many import wilcoxon_many
    >>> d = np.random.default_rng(0).normal(0.05, 0.2, (3, 60))
    >>> r = wilcoxon_many(d)
    >>> [round(float(p), 4) for p in r.pvalue]
    [0.0102, 0.0178, 0.089]
    >>> [round(float(v), 4) for v in r.ci_low]  # Hodges-Lehmann lower bounds
    [0.0163, 0.0116, -0.0079]
    """
    from scipy.special import ndtr

    check_alternative(alternative)
    check_choice("hodges_lehmann", hodges_lehmann, HODGES_LEHMANN)
    level = check_level(level)
    d = _matrix(diffs, "diffs", 2)
    m, n = d.shape
    stat, p = np.empty(m), np.empty(m)
    est, lo, hi = np.empty(m), np.empty(m), np.empty(m)
    e = row_exponents(d)
    # ranks of |d| per row, zeros dropped: V = R+, the non-zero count and the tie term
    v, count, tie_term = signrank_parts_rows(d, np.zeros(m))
    nzero = n - count.astype(np.int64)
    tied = (nzero > 0) | (tie_term > 0)
    nz_min = np.where(d != 0, d, np.inf).min(axis=1)
    nz_max = np.where(d != 0, d, -np.inf).max(axis=1)
    degenerate = (nzero == n) | (nz_min == nz_max)
    vec = (e == 0) & ~degenerate & (np.where(tied, n > 13, n >= R_EXACT_BELOW_N))
    for r in np.flatnonzero(~vec):
        with _row_context(int(r)):
            one = wilcoxon(d[r], alternative=alternative, level=level,
                           hodges_lehmann=hodges_lehmann)
        stat[r], p[r] = one.statistic, one.pvalue
        est[r], lo[r], hi[r] = one.estimate, one.ci_low, one.ci_high
    rows = np.flatnonzero(vec)
    if rows.size:
        # scipy.stats.wilcoxon(method="asymptotic", correction=False), its operations in order
        r_plus, cnt, tc = v[rows], count[rows], tie_term[rows]
        r_minus = cnt * (cnt + 1) / 2 - r_plus  # average ranks sum to cnt(cnt+1)/2: exact
        mn = cnt * (cnt + 1.) * 0.25
        se = cnt * (cnt + 1.) * (2. * cnt + 1.)
        se = np.sqrt((se - tc / 2) / 24)
        z = (r_plus - mn) / se
        if alternative == "less":
            p[rows] = ndtr(z)
        elif alternative == "greater":
            p[rows] = ndtr(-z)
        else:
            p[rows] = 2 * ndtr(-np.abs(z))
        stat[rows] = np.minimum(r_plus, r_minus) if alternative == "two-sided" else r_plus
        # each row's non-zero differences, +inf padding after them (left out by the kernel)
        x = np.sort(np.where(d[rows] != 0, d[rows], np.inf), axis=1)
        if hodges_lehmann == "walsh":
            es, lo_s, hi_s = walsh_interval_rows(x, level, alternative, False)
            achieved = np.full(rows.size, level)
        else:
            es, lo_s, hi_s, achieved = r_asymptotic_interval_rows(x, level, alternative, False)
        est[rows], lo[rows], hi[rows] = es, lo_s, hi_s
        for j in np.flatnonzero(achieved != level):
            warnings.warn(
                f"Wilcoxon interval: confidence level {level:g} is not achievable with "
                f"{int(count[rows[j]])} non-zero difference(s); the interval is at level "
                f"{achieved[j]:g} (as R's wilcox.test)", UserWarning, stacklevel=2,
            )
    return ManyTestResult(
        test="Wilcoxon signed-rank test", statistic=stat, pvalue=p, alternative=alternative,
        n=n, method="auto", estimate=est, ci_low=lo, ci_high=hi, level=level,
        estimate_name="Hodges-Lehmann pseudo-median",
    )
