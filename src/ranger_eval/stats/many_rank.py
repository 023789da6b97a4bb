"""Rank tests of many independent-sample pairs at once: :func:`mannwhitney_many`.

Kept apart from :mod:`ranger_eval.stats.many` (its size); the same contract: every row's
numbers are those of the one-pair function (:func:`ranger_eval.stats.mannwhitney`) bit for bit.
"""
from __future__ import annotations

import numpy as np

from ._validation import check_alternative
from .many import _matrix, _row_context, _rows_equal
from .results import ManyTestResult
from .tests import mannwhitney

__all__ = ["mannwhitney_many"]


def mannwhitney_many(x: object, y: object, *, alternative: str = "two-sided"
                     ) -> ManyTestResult:
    """:func:`~ranger_eval.stats.mannwhitney` (``use_continuity=True``, ``method="auto"``) of
    every row pair (``x[r]``, ``y[r]``), bit for bit.

    scipy's "auto" takes the normal approximation with tie correction whenever both samples
    have more than 8 values; such rows (not all values equal) are ranked as a matrix (one sort
    of the rows' pooled values) and z and p follow ``scipy.stats.mannwhitneyu``'s
    operations in its order (:func:`_asymptotic`), so each row equals its own call. Rows of
    smaller samples (scipy's exact distribution or its tie rule) and rows whose values are all
    equal (U = n_x n_y / 2, p = 1) run the one-pair function.

    Parameters
    ----------
    x, y : array_like
        One row per pair: the first system's values (pairs x n_x) and the second's (pairs x n_y),
        finite; n_x + n_y >= 3.
    alternative : {"two-sided", "greater", "less"}, default "two-sided"
        "greater" means ``x`` tends to score higher.

    Returns
    -------
    ManyTestResult
        ``statistic`` U of ``x``, ``pvalue``, ``estimate`` U / (n_x n_y) per row.

    References
    ----------
    Mann, H. B. & Whitney, D. R. (1947), Annals of Mathematical Statistics 18:50–60;
    ``scipy.stats.mannwhitneyu``.

    Examples
    --------
    >>> import numpy as np
    >>> from ranger_eval.stats.many_rank import mannwhitney_many
    >>> rng = np.random.default_rng(0)
    >>> r = mannwhitney_many(rng.normal(0.3, 1, (2, 20)), rng.normal(0, 1, (2, 25)))
    >>> [round(float(p), 4) for p in r.pvalue]
    [0.6726, 0.7063]
    """
    check_alternative(alternative)
    xa, ya = _matrix(x, "x", 1), _matrix(y, "y", 1)
    if xa.shape[0] != ya.shape[0]:
        raise ValueError(f"x and y need one row per pair each; got {xa.shape[0]} and "
                         f"{ya.shape[0]} rows")
    m, nx = xa.shape
    ny = ya.shape[1]
    stat, p = np.empty(m), np.empty(m)
    equal = _rows_equal(np.concatenate([xa, ya], axis=1))
    vec = ~equal if (nx > 8 and ny > 8) else np.zeros(m, dtype=bool)
    for r in np.flatnonzero(~vec):
        with _row_context(int(r)):
            one = mannwhitney(xa[r], ya[r], alternative=alternative)
        stat[r], p[r] = one.statistic, one.pvalue
    rows = np.flatnonzero(vec)
    if rows.size:
        stat[rows], p[rows] = _asymptotic(xa[rows], ya[rows], alternative)
    return ManyTestResult(
        test="Mann-Whitney U test", statistic=stat, pvalue=p, alternative=alternative, n=nx,
        n_y=ny, method="auto", estimate=stat / float(nx * ny),
        estimate_name="probability of superiority",
    )


def _asymptotic(x: np.ndarray, y: np.ndarray, alternative: str) -> tuple[np.ndarray, np.ndarray]:
    """(U of x, p) of every row by ``scipy.stats.mannwhitneyu(method="asymptotic",
    use_continuity=True)``'s formulas (scipy 1.15–1.17, ``_mannwhitneyu.py``): R1 the sum of
    the pooled average ranks of x, U1 = R1 - n1(n1+1)/2, U = U1 (greater), n1 n2 - U1 (less)
    or their maximum (two-sided, p doubled); z = (U - n1 n2/2 - 1/2) / s with
    s = sqrt(n1 n2/12 ((n+1) - sum(t^3 - t)/(n(n-1)))), p = ndtr(-z) clipped to [0, 1].
    Average ranks are multiples of 1/2 and tie counts integers, all far below 2^53, so R1 and
    the tie term are exact whatever the summation order: the same floats as scipy's."""
    from scipy.special import ndtr

    n1, n2 = x.shape[1], y.shape[1]
    n = n1 + n2
    xy = np.concatenate([x, y], axis=1)
    order = np.argsort(xy, axis=1)
    sv = np.take_along_axis(xy, order, axis=1)
    m = xy.shape[0]
    starts = np.ones((m, n), dtype=bool)
    starts[:, 1:] = sv[:, 1:] != sv[:, :-1]
    ends = np.ones((m, n), dtype=bool)
    ends[:, :-1] = starts[:, 1:]
    pos = np.broadcast_to(np.arange(n), (m, n))
    first = np.maximum.accumulate(np.where(starts, pos, 0), axis=1)
    last = np.minimum.accumulate(np.where(ends, pos, n - 1)[:, ::-1], axis=1)[:, ::-1]
    avg = (first + last) / 2.0 + 1.0  # average rank at each sorted position
    r1 = np.where(order < n1, avg, 0.0).sum(axis=1)
    size = (last - first + 1).astype(np.float64)  # tie-group size at each position
    tie_term = np.where(ends, size**3 - size, 0.0).sum(axis=1)
    u1 = r1 - n1 * (n1 + 1) / 2
    u2 = n1 * n2 - u1
    if alternative == "greater":
        u, f = u1, 1
    elif alternative == "less":
        u, f = u2, 1
    else:
        u, f = np.maximum(u1, u2), 2
    mu = n1 * n2 / 2
    s = np.sqrt(n1 * n2 / 12 * ((n + 1) - tie_term / (n * (n - 1))))
    numerator = u - mu
    numerator -= 0.5
    with np.errstate(divide="ignore", invalid="ignore"):
        z = numerator / s
    p = ndtr(-z)
    p *= f
    return u1, np.clip(p, 0.0, 1.0)
