"""The ``mde`` column of a comparison: what a non-significant test could have detected.

For every row whose (adjusted) test is not significant, ``mde`` is the minimum detectable
effect at the row's n and 80 % power (so a reader can tell "no effect" from "too few items"):
λ·se, where se is the standard error implied
by the row's confidence interval (its half-width over the t quantile on the row's degrees of
freedom: n − 1 for a paired test, n_a + n_b − 2 for an unpaired one; for a clustered row the
df of its cluster-robust t interval, the ``ci_df`` column (Bell–McCaffrey's for CR2, C − 1 for
CR1 with C clusters; C − 1 for the cluster bootstrap's own interval); the
normal quantile for the z tests ``proportions-z`` and ``ppi++``; for a one-sided test the
distance from the difference to the finite bound) and λ the noncentrality at which that t (or z)
test at α = 1 − level reaches 80 % power (:func:`ranger_eval.stats.power.detectable_noncentrality`,
the exact noncentral t; Bloom 1995). It is in the metric's units and positive. Significant rows,
rows without a finite interval and tests of non-inferiority or equivalence (where "detecting a
difference" is not the question) get NaN.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from ..stats.power import detectable_noncentrality

__all__ = ["MDE_POWER", "NORMAL_TESTS", "with_mde"]

#: The power at which ``mde`` is stated.
MDE_POWER = 0.8
#: Tests whose interval is a normal (z) interval (McNemar rows: Tango's score interval).
NORMAL_TESTS = ("proportions-z", "ppi++", "mcnemar")


def with_mde(table: pd.DataFrame, *, level: float, alternative: str,
             hypothesis: str = "superiority") -> pd.DataFrame:
    """``table`` with its ``mde`` column filled (module docstring); the table is changed in
    place and returned.

    Parameters
    ----------
    table : DataFrame
        Comparison rows with ``test``, ``paired``, ``n_a``, ``n_b``, ``diff``, ``ci_low``,
        ``ci_high``, ``significant`` and, for clustered rows, ``n_clusters`` / ``ci_df``.
    level : float
        The comparison's confidence level (α = 1 − level).
    alternative : {"two-sided", "greater", "less"}
        The tests' alternative.
    hypothesis : str, default "superiority"
        Any other hypothesis (non-inferiority, equivalence) gives NaN everywhere.

    Returns
    -------
    DataFrame
        ``table`` itself with the ``mde`` column (NaN for significant rows and rows without a
        finite interval).

    References
    ----------
    Bloom (1995), "Minimum detectable effects: a simple way to report the statistical power of
    experimental designs", Evaluation Review 19(5):547–556.

    Examples
    --------
    >>> import pandas as pd
    >>> from ranger_eval.comparison.mde import with_mde
    >>> rows = pd.DataFrame({"test": "paired t-test", "paired": True, "n_a": 20, "n_b": 20,
    ...                      "diff": [0.02, 0.10], "ci_low": [-0.03, 0.05],
    ...                      "ci_high": [0.07, 0.15], "significant": [False, True]})
    >>> with_mde(rows, level=0.95, alternative="two-sided")["mde"].round(4).tolist()
    [0.0706, nan]
    """
    mde = np.full(len(table), np.nan)
    if len(table) and hypothesis == "superiority":
        alpha = 1.0 - level
        n_a = table["n_a"].to_numpy(dtype=np.float64)
        n_b = table["n_b"].to_numpy(dtype=np.float64)
        paired = table["paired"].to_numpy(dtype=bool)
        df = np.where(paired, n_a - 1.0, n_a + n_b - 2.0)
        df = np.where(table["test"].isin(NORMAL_TESTS).to_numpy(dtype=bool), np.inf, df)
        if "n_clusters" in table:  # clustered rows: t intervals (a clustered two-proportion
            # test is the CR1 regression t on C − 1 df, not a z test; comparison.clustered)
            clusters = table["n_clusters"].to_numpy(dtype=np.float64)
            df = np.where(np.isfinite(clusters), clusters - 1.0, df)
        if "ci_df" in table:  # the df the clustered row's t interval used (CR2: Bell–McCaffrey)
            ci_df = table["ci_df"].to_numpy(dtype=np.float64)
            df = np.where(np.isfinite(ci_df), ci_df, df)
        low = table["ci_low"].to_numpy(dtype=np.float64)
        high = table["ci_high"].to_numpy(dtype=np.float64)
        diff = table["diff"].to_numpy(dtype=np.float64)
        sides = 2 if alternative == "two-sided" else 1
        if alternative == "two-sided":
            half = (high - low) / 2.0
        elif alternative == "greater":
            half = diff - low
        else:
            half = high - diff
        todo = (~table["significant"].to_numpy(dtype=bool) & np.isfinite(half) & (half > 0)
                & (df > 0))
        if todo.any():
            uniq, inverse = np.unique(df[todo], return_inverse=True)
            from scipy import stats as sps

            crit = np.asarray(sps.t.isf(alpha / sides, uniq), dtype=np.float64)
            lam = np.array([detectable_noncentrality(None if np.isinf(v) else float(v),
                                                     level=level, power=MDE_POWER,
                                                     alternative=alternative) for v in uniq])
            mde[todo] = half[todo] / crit[inverse] * lam[inverse]
    table["mde"] = mde
    return table
