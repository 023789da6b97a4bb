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
    have more than 8 values; such rows (not all values equal) are one
    ``scipy.stats.mannwhitneyu(method="asymptotic", axis=1)`` call — ranks per row, exact
    half-integer sums, and elementwise z and p, so each row equals its own call. Rows of
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
    import scipy.stats as sps

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
        res = sps.mannwhitneyu(xa[rows], ya[rows], use_continuity=True,
                               alternative=alternative, axis=1, method="asymptotic")
        stat[rows], p[rows] = res.statistic, res.pvalue
    return ManyTestResult(
        test="Mann-Whitney U test", statistic=stat, pvalue=p, alternative=alternative, n=nx,
        n_y=ny, method="auto", estimate=stat / float(nx * ny),
        estimate_name="probability of superiority",
    )
