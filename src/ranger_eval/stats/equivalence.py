"""Non-inferiority and equivalence tests: a difference θ tested against margins, vectorised.

Every kernel tests the difference θ of two systems (first minus second) against an interval
``(low, upp)`` of differences that do not matter, one row per pair of systems, as two one-sided
tests (Schuirmann 1987, "A comparison of the two one-sided tests procedure and the power
approach for assessing the equivalence of average bioavailability", J. Pharmacokinet.
Biopharm. 15:657-680):

- ``p_low``: H0 θ ≤ low against θ > low (the upper tail of the statistic at ``low``);
- ``p_upp``: H0 θ ≥ upp against θ < upp (the lower tail of the statistic at ``upp``);
- ``pvalue = max(p_low, p_upp)`` (equivalence is shown when both are rejected) and
  ``statistic`` the statistic of the larger one (as statsmodels' ``tost_proportions_2indep``).

Non-inferiority is the case of one infinite margin: ``(-margin, inf)`` when higher is better
(``p_upp`` is then 0, so ``pvalue = p_low``), ``(-inf, margin)`` when lower is better. The
interval ``(ci_low, ci_high)`` is the one the test inverts: at confidence ``level`` on each
finite side, i.e. the two-sided ``1 - 2α`` interval of an equivalence test (α = 1 − level) and
the one-sided ``1 - α`` bound of a non-inferiority test (the other side infinite); the test
rejects at α exactly when that interval lies inside the margins.

Kernels (each returns a :class:`MarginTests`):

- :func:`t_margin_tests`: t statistics ``(estimate - bound) / se`` on ``df`` degrees of freedom;
  with the paired moments (mean and SD of the differences, df = n − 1) it is statsmodels'
  ``ttost_paired``, with Welch's standard error and Welch–Satterthwaite df its
  ``ttost_ind(usevar="unequal")`` (:func:`paired_t_margins`, :func:`welch_margins`).
- :func:`proportions_margin_tests`: two independent proportions, the score test of Miettinen &
  Nurminen (1985, Stat. Med. 4:213-226, with the variance factor N/(N − 1)) at the margins,
  the restricted maximum-likelihood proportions in closed form (Farrington & Manning 1990,
  Stat. Med. 9:1447-1454, eq. A.1); statsmodels'
  ``tost_proportions_2indep(method="score", correction=True)``.
- :func:`paired_proportions_margin_tests`: paired 0/1 scores, the score test of Tango (1998,
  "Equivalence test and confidence interval for the difference in proportions for the
  paired-sample design", Stat. Med. 17:891-908, eq. 3):
  ``Z(θ) = (b − c − nθ) / sqrt(n (2 q̂ + θ(1 − θ)))`` with ``b`` the pairs where only the first
  system scores 1, ``c`` those where only the second does, and ``q̂`` the restricted MLE of the
  probability of ``c``: ``(sqrt(B² − 4AC) − B) / (2A)``, ``A = 2n``,
  ``B = −b − c + (2n − b + c)θ``, ``C = −cθ(1 − θ)``; R ``ratesci::pairbinci(contrast="RD",
  method="Score", skew=FALSE, bcf=FALSE)`` and, for the interval, ``PropCIs::scoreci.mp``.
  At θ = 0 it is McNemar's asymptotic z. :func:`tango_interval` is its score interval on its
  own (two-sided at ``level``, or one-sided for ``alternative="greater"``/``"less"``), the
  interval of :func:`~ranger_eval.compare`'s McNemar rows (so that their intervals stay in
  range): it stays in [−1, 1]
  and, unlike the paired t interval, does not collapse to a point when no pair is discordant.

The score intervals are found by bisection on the monotone statistic (80 halvings of [−1, 1]:
below the float64 spacing). p-values use survival functions (``scipy.special.stdtr`` with a
negated argument, ``ndtr``), never ``1 − cdf``.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import special

from ._validation import StatsInputError

__all__ = [
    "MarginTests",
    "paired_proportions_margin_tests",
    "paired_t_margins",
    "proportions_margin_tests",
    "t_margin_tests",
    "tango_interval",
    "tango_statistic",
    "welch_margins",
]

_BISECTIONS = 80


@dataclass(frozen=True)
class MarginTests:
    """Two one-sided tests of the difference θ against ``(low, upp)``, one row per pair.

    ``estimate`` (θ̂), ``stat_low`` / ``p_low`` (H0 θ ≤ low), ``stat_upp`` / ``p_upp``
    (H0 θ ≥ upp), ``pvalue`` = max(p_low, p_upp), ``statistic`` the one of the larger p-value,
    ``ci_low`` / ``ci_high`` the interval the test inverts (infinite on the side without a
    margin), ``df`` the degrees of freedom (``inf`` for the score tests)."""

    estimate: np.ndarray
    stat_low: np.ndarray
    p_low: np.ndarray
    stat_upp: np.ndarray
    p_upp: np.ndarray
    ci_low: np.ndarray
    ci_high: np.ndarray
    df: np.ndarray

    @property
    def pvalue(self) -> np.ndarray:
        """max(p_low, p_upp): the p-value of equivalence (of non-inferiority when one margin is
        infinite)."""
        return np.maximum(self.p_low, self.p_upp)

    @property
    def statistic(self) -> np.ndarray:
        """The statistic of the larger one-sided p-value (the one that decides)."""
        return np.where(self.p_low >= self.p_upp, self.stat_low, self.stat_upp)


def _bounds(low: object, upp: object, size: int) -> tuple[np.ndarray, np.ndarray]:
    lo = np.broadcast_to(np.asarray(low, dtype=float), (size,)).copy()
    hi = np.broadcast_to(np.asarray(upp, dtype=float), (size,)).copy()
    if np.isnan(lo).any() or np.isnan(hi).any() or not (lo < hi).all():
        bad = int(np.flatnonzero(~(lo < hi))[0])
        raise StatsInputError(f"margins: need low < upp, got low={lo[bad]!r}, upp={hi[bad]!r} "
                              f"(row {bad})")
    return lo, hi


def _check_level(level: float) -> float:
    level = float(level)
    if not 0.0 < level < 1.0:
        raise StatsInputError(f"level: must be in (0, 1); got {level!r}")
    return level


def _ratio(num: np.ndarray, se: np.ndarray) -> np.ndarray:
    """num / se, with se = 0 read as certainty: ±inf by the sign of num (0 stays 0)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(se > 0, num / np.where(se > 0, se, 1.0), np.sign(num) * np.inf)


def t_margin_tests(estimate: object, se: object, df: object, *, low: object, upp: object,
                   level: float = 0.95) -> MarginTests:
    """Two one-sided t tests of θ against ``(low, upp)`` (module docstring), one row per entry
    of the arrays ``estimate`` (θ̂), ``se`` (its standard error) and ``df``.

    ``t_low = (θ̂ − low)/se``, ``p_low = P(T_df ≥ t_low)``; ``t_upp = (θ̂ − upp)/se``,
    ``p_upp = P(T_df ≤ t_upp)``; interval ``θ̂ ∓ t_{df, level} · se`` on each finite side. A zero
    standard error (all differences equal) is certainty: θ̂ strictly inside a margin rejects
    it (p = 0), θ̂ on or beyond it does not (p = 1).

    Parameters
    ----------
    estimate, se, df : array_like
        Per row: θ̂, its standard error (≥ 0) and degrees of freedom (> 0).
    low, upp : float or array_like
        The margins (``-inf``/``inf`` for a one-sided, non-inferiority test).
    level : float, default 0.95
        Confidence on each finite side (the test is at α = 1 − level).

    Returns
    -------
    MarginTests
        ``estimate``, ``stat_low``/``p_low``, ``stat_upp``/``p_upp``, ``pvalue``, ``statistic``,
        ``ci_low``/``ci_high``, ``df``.

    Raises
    ------
    StatsInputError
        A negative or NaN ``se``, ``df`` ≤ 0, bad margins or level.

    References
    ----------
    Schuirmann, D. J. (1987), "A comparison of the two one-sided tests procedure and the power
    approach for assessing the equivalence of average bioavailability", J. Pharmacokinetics
    and Biopharmaceutics 15:657–680.

    Examples
    --------
    Is a mean paired difference of 0.075 (se 0.025, 7 df) within ±0.05? No: the upper test
    does not reject.

    >>> from ranger_eval.stats.equivalence import t_margin_tests
    >>> r = t_margin_tests(0.075, 0.025, 7.0, low=-0.05, upp=0.05)
    >>> r.p_low.round(4).tolist(), r.p_upp.round(4).tolist(), r.pvalue.round(4).tolist()
    ([0.0008], [0.8247], [0.8247])
    >>> r.ci_low.round(4).tolist(), r.ci_high.round(4).tolist()
    ([0.0276], [0.1224])
    """
    level = _check_level(level)
    est = np.atleast_1d(np.asarray(estimate, dtype=float))
    s = np.broadcast_to(np.asarray(se, dtype=float), est.shape)
    d = np.broadcast_to(np.asarray(df, dtype=float), est.shape)
    lo, hi = _bounds(low, upp, est.size)
    if (s < 0).any() or np.isnan(s).any() or not (d > 0).all():
        raise StatsInputError("t_margin_tests: se must be ≥ 0 and df > 0")
    with np.errstate(invalid="ignore"):
        t_low = np.where(np.isinf(lo), np.inf, _ratio(est - lo, s))
        t_upp = np.where(np.isinf(hi), -np.inf, _ratio(est - hi, s))
        # on the margin with se = 0: not rejected
        t_low = np.where((s == 0) & (est <= lo), -np.inf, t_low)
        t_upp = np.where((s == 0) & (est >= hi), np.inf, t_upp)
    p_low = special.stdtr(d, -t_low)
    p_upp = special.stdtr(d, t_upp)
    q = special.stdtrit(d, level)
    with np.errstate(invalid="ignore"):
        ci_low = np.where(np.isinf(lo), -np.inf, est - q * s)
        ci_high = np.where(np.isinf(hi), np.inf, est + q * s)
    return MarginTests(est, t_low, p_low, t_upp, p_upp, ci_low, ci_high, np.asarray(d, float))


Moments = tuple[np.ndarray, np.ndarray, np.ndarray]


def paired_t_margins(x: np.ndarray, y: np.ndarray) -> Moments:
    """(θ̂, se, df) of the paired mean difference, mean(x − y), sd(x − y)/sqrt(n) and n − 1, of
    every row of ``x`` and ``y`` (1-D: one pair of systems; 2-D: pairs × n items).

    Parameters
    ----------
    x, y : numpy.ndarray
        Paired scores, n items or pairs × n items.

    Returns
    -------
    tuple of numpy.ndarray
        ``(estimate, se, df)`` per row, the input of :func:`t_margin_tests`.

    Raises
    ------
    StatsInputError
        Fewer than 2 pairs.

    Examples
    --------
    >>> from ranger_eval.stats.equivalence import paired_t_margins
    >>> import numpy as np
    >>> x = np.array([.8, .6, .9, .5, .7, .7, .6, .8])
    >>> y = np.array([.7, .6, .8, .5, .6, .7, .5, .6])
    >>> [a.round(4).tolist() for a in paired_t_margins(x, y)]
    [[0.075], [0.025], [7.0]]
    """
    d = np.atleast_2d(np.asarray(x, dtype=float) - np.asarray(y, dtype=float))
    n = d.shape[1]
    if n < 2:
        raise StatsInputError(f"paired t: need at least 2 pairs, got {n}")
    return (d.mean(axis=1), d.std(axis=1, ddof=1) / np.sqrt(n),
            np.full(d.shape[0], n - 1.0))


def welch_margins(x: np.ndarray, y: np.ndarray) -> Moments:
    """(θ̂, se, df) of Welch's unpaired difference, mean(x) − mean(y), sqrt(v_x/n_x + v_y/n_y)
    and the Welch–Satterthwaite degrees of freedom, of every row of ``x`` (rows × n_x) and
    ``y`` (rows × n_y); a zero standard error takes n_x + n_y − 2 df (its p-values do not
    depend on them).

    Parameters
    ----------
    x, y : numpy.ndarray
        The two samples, n_x and n_y values or rows × n_x and rows × n_y.

    Returns
    -------
    tuple of numpy.ndarray
        ``(estimate, se, df)`` per row, the input of :func:`t_margin_tests`.

    Raises
    ------
    StatsInputError
        Fewer than 2 values in a sample.

    References
    ----------
    Welch, B. L. (1947), "The generalization of 'Student's' problem when several different
    population variances are involved", Biometrika 34(1–2):28–35.

    Examples
    --------
    >>> from ranger_eval.stats.equivalence import welch_margins
    >>> import numpy as np
    >>> x = np.array([.8, .6, .9, .5, .7, .7, .6, .8])
    >>> y = np.array([.7, .6, .8, .5, .6, .7, .5, .6])
    >>> [a.round(4).tolist() for a in welch_margins(x, y)]
    [[0.075], [0.059], [13.2921]]
    """
    xa, ya = np.atleast_2d(np.asarray(x, dtype=float)), np.atleast_2d(np.asarray(y, dtype=float))
    nx, ny = xa.shape[1], ya.shape[1]
    if nx < 2 or ny < 2:
        raise StatsInputError(f"Welch t: need at least 2 values per system, got {nx} and {ny}")
    vx, vy = xa.var(axis=1, ddof=1) / nx, ya.var(axis=1, ddof=1) / ny
    se2 = vx + vy
    with np.errstate(divide="ignore", invalid="ignore"):
        df = np.where(se2 > 0, se2 ** 2 / (vx ** 2 / (nx - 1) + vy ** 2 / (ny - 1)),
                      nx + ny - 2.0)
    return xa.mean(axis=1) - ya.mean(axis=1), np.sqrt(se2), df


# --------------------------------------------------------------------------- score tests
def _check_counts(*arrays: np.ndarray) -> None:
    for a in arrays:
        if (a < 0).any() or not np.isfinite(a).all():
            raise StatsInputError("counts must be finite and ≥ 0")


def _check_binary_bounds(lo: np.ndarray, hi: np.ndarray) -> None:
    finite = np.concatenate([lo[np.isfinite(lo)], hi[np.isfinite(hi)]])
    if ((finite <= -1.0) | (finite >= 1.0)).any():
        bad = float(finite[(finite <= -1.0) | (finite >= 1.0)][0])
        raise StatsInputError(f"a margin of a difference of proportions must lie in (-1, 1); "
                              f"got {bad!r}: every difference of proportions lies within it")


def _mn_statistic(c1: np.ndarray, n1: np.ndarray, c0: np.ndarray, n0: np.ndarray,
                  theta: np.ndarray) -> np.ndarray:
    """Miettinen–Nurminen z of H0 p1 − p0 = θ (statsmodels' ``score_test_proportions_2indep``
    with ``correction=True``; index 0 is the second system, as in Miettinen & Nurminen)."""
    n = n1 + n0
    c = c1 + c0
    with np.errstate(divide="ignore", invalid="ignore"):
        t3 = n
        t2 = (n1 + 2 * n0) * theta - n - c
        t1 = (c0 * theta - n - 2 * c0) * theta + c
        t0 = c0 * theta * (1 - theta)
        q = (t2 / (3 * t3)) ** 3 - t1 * t2 / (6 * t3 ** 2) + t0 / (2 * t3)
        p = np.sign(q) * np.sqrt(np.maximum((t2 / (3 * t3)) ** 2 - t1 / (3 * t3), 0.0))
        a = (np.pi + np.arccos(np.clip(q / p ** 3, -1.0, 1.0))) / 3
        prop0 = 2 * p * np.cos(a) - t2 / (3 * t3)
        pooled = c / n
        prop0 = np.where(theta == 0, pooled, prop0)
        prop1 = prop0 + theta
        var = (prop1 * (1 - prop1) / n1 + prop0 * (1 - prop0) / n0) * n / (n - 1)
        num = c1 / n1 - c0 / n0 - theta
        return _ratio(num, np.sqrt(np.maximum(var, 0.0)))


def tango_statistic(b: np.ndarray, c: np.ndarray, n: np.ndarray,
                    theta: np.ndarray) -> np.ndarray:
    """Tango's (1998, eq. 3) score statistic of H0 p_first − p_second = θ for paired 0/1 scores
    (module docstring); 0 where its numerator is 0 (as ``ratesci``).

    Parameters
    ----------
    b, c : numpy.ndarray
        Pairs where only the first (``b``) or only the second (``c``) system scores 1.
    n : numpy.ndarray
        Pairs in all.
    theta : numpy.ndarray
        The difference under H0.

    Returns
    -------
    numpy.ndarray
        Z(θ) per row.

    References
    ----------
    Tango, T. (1998), "Equivalence test and confidence interval for the difference in
    proportions for the paired-sample design", Statistics in Medicine 17:891–908.

    Examples
    --------
    At θ = 0 it is McNemar's z, (b − c)/√(b + c):

    >>> import numpy as np
    >>> from ranger_eval.stats.equivalence import tango_statistic
    >>> tango_statistic(np.array([5.0]), np.array([2.0]), np.array([40.0]),
    ...                 np.array([0.0])).round(4).tolist()
    [1.1339]
    """
    with np.errstate(divide="ignore", invalid="ignore"):
        A = 2 * n
        B = -b - c + (2 * n - b + c) * theta
        C = -c * theta * (1 - theta)
        root = np.sqrt(np.maximum(B * B - 4 * A * C, 0.0))
        num_q = root - B
        q21 = np.where(num_q == 0, 0.0, num_q / (2 * A))
        num = b - c - n * theta
        var = n * (2 * q21 + theta * (1 - theta))
        return np.where(num == 0, 0.0, _ratio(num, np.sqrt(np.maximum(var, 0.0))))


def _invert(stat: object, est: np.ndarray, target: float, upper: bool) -> np.ndarray:
    """The bound θ of {θ: Z(θ) > −target} (upper) or {θ: Z(θ) < target} (lower) for a
    statistic Z decreasing in θ on (−1, 1), by bisection from the estimate."""
    f = stat  # callable θ-array -> Z-array
    if upper:
        lo, hi = est.copy(), np.ones_like(est)
    else:
        lo, hi = -np.ones_like(est), est.copy()
    for _ in range(_BISECTIONS):
        mid = 0.5 * (lo + hi)
        z = f(mid)  # type: ignore[operator]
        inside = z > -target if upper else z < target
        if upper:
            lo, hi = np.where(inside, mid, lo), np.where(inside, hi, mid)
        else:
            lo, hi = np.where(inside, lo, mid), np.where(inside, mid, hi)
    return lo if upper else hi


def _score_tests(stat: object, est: np.ndarray, lo: np.ndarray, hi: np.ndarray,
                 level: float) -> MarginTests:
    f = stat
    z_low = np.where(np.isinf(lo), np.inf, f(np.where(np.isinf(lo), 0.0, lo)))  # type: ignore[operator]
    z_upp = np.where(np.isinf(hi), -np.inf, f(np.where(np.isinf(hi), 0.0, hi)))  # type: ignore[operator]
    q = float(special.ndtri(level))
    ci_low = np.where(np.isinf(lo), -np.inf, _invert(stat, est, q, upper=False))
    ci_high = np.where(np.isinf(hi), np.inf, _invert(stat, est, q, upper=True))
    return MarginTests(est, z_low, special.ndtr(-z_low), z_upp, special.ndtr(z_upp), ci_low,
                       ci_high, np.full(est.shape, np.inf))


def proportions_margin_tests(count1: object, nobs1: object, count2: object, nobs2: object, *,
                             low: object, upp: object, level: float = 0.95) -> MarginTests:
    """Two one-sided Miettinen–Nurminen score tests of p1 − p2 against ``(low, upp)`` for two
    independent proportions ``count1/nobs1`` and ``count2/nobs2`` (module docstring), with the
    score interval (the θ where the statistic equals ±z_level).

    Parameters
    ----------
    count1, nobs1, count2, nobs2 : array_like
        Successes and trials of the two systems, per row.
    low, upp : float or array_like
        The margins (``-inf``/``inf`` for a one-sided, non-inferiority test).
    level : float, default 0.95
        Confidence on each finite side (the test is at α = 1 − level).

    Returns
    -------
    MarginTests
        As :func:`t_margin_tests`, with z statistics (``df`` = inf).

    Raises
    ------
    StatsInputError
        Counts outside ``0 ≤ count ≤ nobs``, margins outside (−1, 1).

    References
    ----------
    Miettinen, O. & Nurminen, M. (1985), "Comparative analysis of two rates", Statistics in
    Medicine 4:213–226. Farrington, C. P. & Manning, G. (1990), "Test statistics and sample
    size formulae for comparative binomial trials with null hypothesis of non-zero risk
    difference or non-unity relative risk", Statistics in Medicine 9:1447–1454.

    Examples
    --------
    >>> from ranger_eval.stats.equivalence import proportions_margin_tests
    >>> r = proportions_margin_tests(30, 40, 28, 40, low=-0.1, upp=0.1)
    >>> r.estimate.round(4).tolist(), r.pvalue.round(4).tolist()
    ([0.05], [0.3098])
    >>> r.ci_low.round(4).tolist(), r.ci_high.round(4).tolist()
    ([-0.117], [0.2167])
    """
    level = _check_level(level)
    c1 = np.atleast_1d(np.asarray(count1, dtype=float))
    n1, c2, n2 = (np.broadcast_to(np.asarray(v, dtype=float), c1.shape)
                  for v in (nobs1, count2, nobs2))
    _check_counts(c1, n1, c2, n2)
    if (c1 > n1).any() or (c2 > n2).any() or (n1 < 1).any() or (n2 < 1).any():
        raise StatsInputError("proportions: need 0 ≤ count ≤ nobs and nobs ≥ 1")
    lo, hi = _bounds(low, upp, c1.size)
    _check_binary_bounds(lo, hi)
    est = c1 / n1 - c2 / n2

    def stat(theta: np.ndarray) -> np.ndarray:
        return _mn_statistic(c1, n1, c2, n2, theta)

    return _score_tests(stat, est, lo, hi, level)


def paired_proportions_margin_tests(b: object, c: object, n: object, *, low: object,
                                    upp: object, level: float = 0.95) -> MarginTests:
    """Two one-sided Tango score tests of p_first − p_second against ``(low, upp)`` for paired
    0/1 scores: ``b`` pairs where only the first system scores 1, ``c`` where only the second
    does, ``n`` pairs in all (module docstring), with Tango's score interval.

    Parameters
    ----------
    b, c : array_like
        Pairs where only the first (``b``) or only the second (``c``) system scores 1.
    n : array_like
        Pairs in all.
    low, upp : float or array_like
        The margins (``-inf``/``inf`` for a one-sided, non-inferiority test).
    level : float, default 0.95
        Confidence on each finite side (the test is at α = 1 − level).

    Returns
    -------
    MarginTests
        As :func:`t_margin_tests`, with z statistics (``df`` = inf).

    Raises
    ------
    StatsInputError
        ``b + c > n``, negative counts, margins outside (−1, 1).

    References
    ----------
    Tango, T. (1998), "Equivalence test and confidence interval for the difference in
    proportions for the paired-sample design", Statistics in Medicine 17:891–908.

    Examples
    --------
    >>> from ranger_eval.stats.equivalence import paired_proportions_margin_tests
    >>> r = paired_proportions_margin_tests(5, 2, 40, low=-0.1, upp=0.1)
    >>> r.estimate.round(4).tolist(), r.p_low.round(4).tolist(), r.p_upp.round(4).tolist()
    ([0.075], [0.0098], [0.3533])
    """
    level = _check_level(level)
    bb = np.atleast_1d(np.asarray(b, dtype=float))
    cc, nn = (np.broadcast_to(np.asarray(v, dtype=float), bb.shape) for v in (c, n))
    _check_counts(bb, cc, nn)
    if (bb + cc > nn).any() or (nn < 1).any():
        raise StatsInputError("paired proportions: need b + c ≤ n and n ≥ 1")
    lo, hi = _bounds(low, upp, bb.size)
    _check_binary_bounds(lo, hi)
    est = (bb - cc) / nn

    def stat(theta: np.ndarray) -> np.ndarray:
        return tango_statistic(bb, cc, nn, theta)

    return _score_tests(stat, est, lo, hi, level)


def tango_interval(b: object, c: object, n: object, *, level: float = 0.95,
                   alternative: str = "two-sided") -> tuple[np.ndarray, np.ndarray]:
    """Tango's (1998) score interval of p_first − p_second for paired 0/1 scores, one row per
    entry: ``b`` pairs where only the first system scores 1, ``c`` where only the second does,
    ``n`` pairs in all (module docstring).

    Two-sided: {θ : |Z(θ)| < z_{(1+level)/2}}; ``alternative="greater"``: the lower bound at
    z_level and an upper bound of +inf (``"less"``: −inf and the upper bound), as the t
    intervals of a one-sided test. Equals R ``ratesci::pairbinci(contrast="RD",
    method="Score_closed", skew=FALSE, bcf=FALSE, cc=FALSE)`` (the closed form, Yang, Sun &
    Hardin 2013) and ``PropCIs::scoreci.mp`` (tests/oracles/tango_interval.R). Always inside
    [−1, 1]; with b = c = 0 a proper interval around 0 (the paired t gives the point 0).

    Parameters
    ----------
    b, c : array_like
        Pairs where only the first (``b``) or only the second (``c``) system scores 1.
    n : array_like
        Pairs in all.
    level : float, default 0.95
        Confidence level.
    alternative : {"two-sided", "greater", "less"}, default "two-sided"
        A one-sided interval for a one-sided test.

    Returns
    -------
    tuple of numpy.ndarray
        ``(low, high)`` per row.

    Raises
    ------
    StatsInputError
        ``b + c > n``, negative counts, a bad ``level`` or ``alternative``.

    References
    ----------
    Tango, T. (1998), "Equivalence test and confidence interval for the difference in
    proportions for the paired-sample design", Statistics in Medicine 17:891–908.

    Examples
    --------
    >>> from ranger_eval.stats.equivalence import tango_interval
    >>> [a.round(4).tolist() for a in tango_interval(5, 2, 40)]
    [[-0.0657], [0.2234]]
    """
    level = _check_level(level)
    if alternative not in ("two-sided", "greater", "less"):
        raise StatsInputError(f"alternative: must be 'two-sided', 'greater' or 'less'; got "
                              f"{alternative!r}")
    bb = np.atleast_1d(np.asarray(b, dtype=float))
    cc, nn = (np.broadcast_to(np.asarray(v, dtype=float), bb.shape) for v in (c, n))
    _check_counts(bb, cc, nn)
    if (bb + cc > nn).any() or (nn < 1).any():
        raise StatsInputError("paired proportions: need b + c ≤ n and n ≥ 1")
    est = (bb - cc) / nn
    q = float(special.ndtri(level if alternative != "two-sided" else (1.0 + level) / 2.0))

    def stat(theta: np.ndarray) -> np.ndarray:
        return tango_statistic(bb, cc, nn, theta)

    low = (np.full(est.shape, -np.inf) if alternative == "less"
           else _invert(stat, est, q, upper=False))
    high = (np.full(est.shape, np.inf) if alternative == "greater"
            else _invert(stat, est, q, upper=True))
    return low, high
