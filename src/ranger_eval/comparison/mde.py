"""The ``mde`` column of a comparison: what a non-significant test could have detected.

For every row whose (adjusted) test is not significant, ``mde`` is the minimum detectable
effect at the row's n and 80 % power (so a reader can tell "no effect" from "too few items"):
λ·se, where se is the standard error implied
by the row's confidence interval (its half-width over the t quantile on the row's degrees of
freedom: n − 1 for a paired test, n_a + n_b − 2 for an unpaired one; for a clustered row the
df of its cluster-robust t interval, the ``ci_df`` column (Bell–McCaffrey's for CR2, C − 1 for
CR1 with C clusters; C − 1 for the cluster bootstrap's own interval); the
normal quantile for the z tests ``proportions-z``, ``ppi++`` and ``ppi sign``; for a one-sided test the
distance from the difference to the finite bound) and λ the noncentrality at which that t (or z)
test at α = 1 − level reaches 80 % power (:func:`ranger_eval.stats.power.detectable_noncentrality`,
the exact noncentral t; Bloom 1995). It is in the metric's units and positive. Significant rows,
rows without a finite interval and tests of non-inferiority or equivalence (where "detecting a
difference" is not the question) get NaN.

The same pass fills the ``se`` and ``df`` columns of every row whose interval is a t or z
interval (superiority): ``se`` is the interval's half-width over its quantile and ``df`` its
degrees of freedom — n − 1 for the paired t interval (also borrowed by the sign and permutation
tests), the ``ci_df`` of a cluster-robust t interval, Welch–Satterthwaite's for the Welch test
(recovered from its t statistic: se = diff / t, df solving t_{df} quantile = half-width / se),
NaN for z intervals (``proportions-z``'s Wald, ``ppi++``). Rows whose interval is not a t or z
interval (Hodges–Lehmann, bootstrap BCa or percentile, Tango's score interval, a Welch interval
borrowed by the Mann–Whitney test) get NaN for both. A row that already carries finite ``se``
and ``df`` (the crossed random-effects rows of a design with prompts:
:mod:`ranger_eval.comparison.prompts`) keeps them, and its ``df`` is the one its ``mde`` uses.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from ..stats.power import detectable_noncentrality

__all__ = ["MDE_POWER", "NORMAL_TESTS", "T_INTERVALS", "Z_INTERVALS", "with_mde"]

#: The power at which ``mde`` is stated.
MDE_POWER = 0.8
#: Tests whose interval is a normal (z) interval (McNemar rows: Tango's score interval).
NORMAL_TESTS = ("proportions-z", "ppi++", "ppi sign", "mcnemar")
#: ``ci_method`` of t intervals whose se and df the table reports (the ``se``/``df`` columns)
T_INTERVALS = ("paired t", "cluster-robust t (CR1)", "cluster-robust t (CR2)",
               "prediction-powered t (CR2)", "prediction-powered t (CR1)")
#: ``ci_method`` of z intervals (se reported, df NaN)
Z_INTERVALS = ("Wald", "prediction-powered z")


def _welch_df(half: float, se: float, q: float) -> float:
    """The df at which the t quantile ``q``-th upper point equals ``half / se``."""
    from scipy import optimize
    from scipy import stats as sps

    target = half / se
    if not (np.isfinite(target) and target > sps.norm.isf(q)):
        return float("nan")
    f = lambda lg: float(sps.t.isf(q, np.exp(lg))) - target  # noqa: E731
    if f(np.log(1e9)) > 0:
        return float("inf")
    return float(np.exp(optimize.brentq(f, np.log(1e-3), np.log(1e9), xtol=1e-14,
                                        rtol=1e-13)))


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
    >>> rows["ci_method"] = "paired t"
    >>> with_mde(rows, level=0.95, alternative="two-sided")[["se", "df"]].round(4).values.tolist()
    [[0.0239, 19.0], [0.0239, 19.0]]
    """
    mde = np.full(len(table), np.nan)
    n_rows = len(table)
    given_se = (table["se"].to_numpy(dtype=np.float64) if "se" in table
                else np.full(n_rows, np.nan))
    given_df = (table["df"].to_numpy(dtype=np.float64) if "df" in table
                else np.full(n_rows, np.nan))
    se_out = given_se.copy()
    df_out = given_df.copy()
    if n_rows and hypothesis == "superiority":
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
        own = np.isfinite(given_df) & np.isfinite(given_se)
        df = np.where(own, given_df, df)
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
        _fill_se_df(table, half, df, alpha / sides, own, se_out, df_out)
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
    table["se"] = se_out
    table["df"] = df_out
    return table


def _fill_se_df(table: pd.DataFrame, half: np.ndarray, df: np.ndarray, q: float,
                own: np.ndarray, se_out: np.ndarray, df_out: np.ndarray) -> None:
    """The ``se`` and ``df`` of every row with a t or z interval (module docstring), into
    ``se_out``/``df_out`` (rows that carry their own are left as they are)."""
    from scipy import stats as sps

    if "ci_method" not in table or "test" not in table:
        return
    method = table["ci_method"].astype(object).to_numpy()
    tests = table["test"].astype(object).to_numpy()
    ok = np.isfinite(half) & (half > 0) & ~own
    t_rows = ok & np.isin(method, T_INTERVALS) & np.isfinite(df) & (df > 0)
    z_rows = ok & np.isin(method, Z_INTERVALS)
    if t_rows.any():
        se_out[t_rows] = half[t_rows] / sps.t.isf(q, df[t_rows])
        df_out[t_rows] = df[t_rows]
    if z_rows.any():
        se_out[z_rows] = half[z_rows] / sps.norm.isf(q)
        df_out[z_rows] = np.nan
    welch = ok & (method == "Welch t") & (tests == "welch")
    if welch.any():
        diff = table["diff"].to_numpy(dtype=np.float64)
        stat = table["statistic"].to_numpy(dtype=np.float64)
        for i in np.flatnonzero(welch):
            if stat[i] != 0 and np.isfinite(stat[i]):
                se = abs(diff[i] / stat[i])
                se_out[i] = se
                df_out[i] = _welch_df(half[i], se, q)
