"""Per-system description of scores as an evaluation is really run: the mean of every system on
every dataset × metric with its standard error and confidence interval, clustered when the
items come in clusters, the intra-cluster correlation and design effect, and the split of the
mean's variance into its between-item and within-item (repeated samples) parts.

:func:`describe` is the public function (``rg.describe``); :func:`describe_arrays` is its
vectorised kernel over many groups at once (one pass of ``np.bincount``, no per-group loop).

Notation for one group (dataset × metric × system): items i = 1 … n with value y_i (the mean of
the item's K samples, and of its seeds), ȳ = Σ y_i / n; clusters k = 1 … C with m_k items,
cluster sum of deviations S_k = Σ_{i∈k} (y_i − ȳ) and cluster mean ȳ_k. Without a ``cluster``
column every item is its own cluster (C = n, m_k = 1), so every formula below reduces to the
unclustered one and a cluster column in which every cluster has one item gives exactly the same
numbers.

``se``
    the cluster-robust (CR1) standard error of the mean (Liang & Zeger 1986; Cameron & Miller
    2015, eq. 11 with the small-sample factor C/(C − 1); Miller 2024, "Adding Error Bars to
    Evals", Appendix A)::

        se² = C/(C − 1) · Σ_k S_k² / n²

    exactly Inspect AI's ``stderr(cluster=...)``. With C = n singletons it is s/√n, s the
    sample SD (ddof = 1): the iid standard error.
``ci_low``, ``ci_high``
    ȳ ± t_{(1+level)/2, C−1} · se: Student t on C − 1 degrees of freedom (n − 1 without
    clusters), as Inspect's ``ci(method="t", cluster=...)`` and the usual cluster-robust
    inference with few clusters (Cameron & Miller 2015, sec. VI.C: G − 1 df, Stata's default).
``interval``
    which interval ``ci_low``/``ci_high`` are (:mod:`ranger_eval.stats.bounded`): ``"t"`` (the
    one above), or, for a metric with a known range, one that never leaves it: ``"wilson"``
    (0/1 scores without clusters; statsmodels' ``proportion_confint(method="wilson")``) and
    ``"korn-graubard"`` (0/1 scores with clusters, and any other bounded metric; R's
    ``survey::svyciprop(method="beta")``). A metric's range is known when it is declared
    (``bounds=``, :meth:`Scores.with_bounds`, YAML ``bounds:``) or when every one of its
    scores on the dataset is 0 or 1 (a proportion: [0, 1]). ``se`` stays the plain (or
    cluster-robust) standard error either way, the number the evaluation tool's log reports.
``icc``
    the one-way ANOVA estimator of the intra-cluster correlation for unbalanced clusters
    (Fisher; Donner 1986, Int. Stat. Rev. 54:67, eq. 2.1; R ``ICC::ICCest``)::

        MSa = Σ_k m_k (ȳ_k − ȳ)² / (C − 1),   MSw = Σ_k Σ_{i∈k} (y_i − ȳ_k)² / (n − C),
        k0  = (n − Σ_k m_k² / n) / (C − 1),   icc = (MSa − MSw) / (MSa + (k0 − 1) · MSw)

    It may be negative (less alike within clusters than between). NaN when it is not defined:
    no cluster has two items (n = C, no within-cluster variance), or all values are equal.
``design_effect``
    1 + (m̄_w − 1) · icc with m̄_w = Σ_k m_k² / n, the size-weighted mean cluster size: under
    the exchangeable model the variance of ȳ is σ²/n² · Σ_k m_k (1 + (m_k − 1) ρ) = σ²/n ·
    (1 + (m̄_w − 1) ρ) exactly, for any cluster sizes (Kerry & Bland 2001, Stat. Med. 20:377,
    write it 1 + ((cv² + 1) m̄ − 1) ρ); for equal sizes m̄_w = m. It is 1 when every cluster
    has one item, NaN when the icc is NaN otherwise.
``k_samples``, ``within_sd``
    K, the generations averaged into each item (1 without a ``sample`` column; the largest K_i
    when items have different numbers, the signature's ``samples:`` field gives the range), and
    the pooled within-item SD √(mean_i s_i²), s_i² the variance (ddof = 1) of item i's K_i
    samples, over the items with K_i ≥ 2 (NaN for K = 1). An item with one sample among items
    with more takes the pooled s² in ``var_within`` (one sample says nothing of its own noise).
``var_within``, ``var_between``
    Miller (2024, §4)'s decomposition of the variance of the mean: the within-item part,
    the sampling noise of the K generations, Σ_i s_i² / (K_i · R_i) / n² (K_i the item's own
    samples, R_i its seeds, 1 without seeds; with seeds Σ_r s_r² / K_r / R_i² per item; =
    within_sd² / (n K) when every K_i = K), which more samples per item shrink; and the rest,
    ``var_between = se² − var_within`` (truncated at 0), the spread of the items' (and, with
    clusters, the clusters') true scores, which only more questions (clusters) shrink. Both NaN
    for K = 1 (nothing separates them).
``ppi_mean``, ``ppi_se``, ``ppi_low``, ``ppi_high``, ``n_labelled``, ``alpha`` … ``kappa_high``
    only with human scores (a ``human_value`` column, :data:`JUDGE_COLUMNS`): the
    prediction-powered (PPI++) mean of the human scores with its interval (as
    :func:`ranger_eval.ppi_mean`) and, on the ``n_labelled`` items with both scores, the
    judge–human agreement: Krippendorff's interval α and, for 0/1 scores, Cohen's κ, each with a
    percentile bootstrap interval over items or whole clusters
    (:func:`ranger_eval.stats.agreement.judge_human_agreement`).
"""
from __future__ import annotations

import warnings
from collections.abc import Iterable

import numpy as np
import pandas as pd
from scipy import stats as _sps

from ..errors import ScoresError, check_level
from ..scores import CLUSTER, Scores, as_scores
from ..settings import AgreementSettings, DescribeSettings, resolve_settings
from ._validation import StatsInputError
from .agreement import JUDGE_HUMAN_COLUMNS, judge_human_agreement
from .bounded import INTERVAL_METHODS, bounded_intervals
from .crossed import check_crossed, crossed_reml
from .judged import checked_ppi, has_human_scores, item_cluster_codes, judged_items

__all__ = ["COLUMNS", "auto_intervals", "describe", "describe_arrays", "describe_sums",
           "describe_table", "known_bounds", "too_few_units"]

#: the columns of :func:`describe`'s table, in order (``interval`` added last, so the earlier
#: columns keep their positions)
COLUMNS = ("dataset", "metric", "system", "n", "n_clusters", "mean", "se", "ci_low", "ci_high",
           "icc", "design_effect", "k_samples", "within_sd", "var_between", "var_within",
           "interval")


def describe_sums(n: np.ndarray, n_clusters: np.ndarray, *, total: np.ndarray,
                  sum_s2: np.ndarray, between: np.ndarray, sum_m2: np.ndarray,
                  level: float = 0.95) -> dict[str, np.ndarray]:
    """The standard error, t half-width, icc and design effect of many groups from their
    sufficient statistics (module docstring formulas), on any common scale of the values:

    ``n`` items and ``n_clusters`` C; ``total`` = Σ_i (y_i − ȳ)²; ``sum_s2`` = Σ_k S_k²;
    ``between`` = Σ_k S_k² / m_k; ``sum_m2`` = Σ_k m_k² (S_k the cluster sums of deviations,
    m_k the cluster sizes; without clusters S_k = y_k − ȳ, m_k = 1: ``sum_s2`` = ``between`` =
    ``total``, ``sum_m2`` = n). :func:`describe_arrays` forms them from the per-item values,
    the lazy engines (:mod:`ranger_eval.lazy`) from per-system and per-cluster counts and sums;
    both then share these formulas.

    Parameters
    ----------
    n, n_clusters : numpy.ndarray
        Per group, its items and clusters C.
    total, sum_s2, between, sum_m2 : numpy.ndarray
        Per group, the sums defined above.
    level : float, default 0.95
        Level of the t interval.

    Returns
    -------
    dict of str to numpy.ndarray
        ``se``, ``half`` (t_{(1+level)/2, C−1} · se), ``icc`` (NaN without clusters),
        ``design_effect`` and ``df`` (C − 1).

    References
    ----------
    Cameron, A. C. & Miller, D. L. (2015), "A practitioner's guide to cluster-robust
    inference", Journal of Human Resources 50(2):317–372 (the CR1-style clustered standard
    error); Kish, L. (1965), *Survey Sampling*, Wiley (the design effect 1 + (m − 1)·icc).

    Examples
    --------
    Four unclustered values 0.2, 0.4, 0.6, 0.8 (deviations from their mean 0.5):

    >>> import numpy as np
    >>> from ranger_eval.stats.describe import describe_sums
    >>> t = np.array([0.2])  # Σ (y − ȳ)² = 0.09 + 0.01 + 0.01 + 0.09
    >>> out = describe_sums(np.array([4.0]), np.array([4.0]), total=t, sum_s2=t, between=t,
    ...                     sum_m2=np.array([4.0]))
    >>> round(float(out["se"][0]), 4), round(float(out["half"][0]), 4), out["df"].tolist()
    (0.1291, 0.4109, [3.0])
    """
    n = np.asarray(n, dtype=np.float64)
    c = np.asarray(n_clusters, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        se = np.sqrt(c / (c - 1.0) * sum_s2) / n
        # one-way ANOVA: between = Σ m_k (ȳ_k − ȳ)² = Σ S_k² / m_k, within = Σ dev² − between
        within = np.maximum(total - between, 0.0)
        msa = between / (c - 1.0)
        msw = within / (n - c)
        k0 = (n - sum_m2 / n) / (c - 1.0)
        icc = (msa - msw) / (msa + (k0 - 1.0) * msw)
        icc = np.where((n > c) & np.isfinite(icc), icc, np.nan)
        m_w = sum_m2 / n
        deff = np.where(m_w == 1.0, 1.0, 1.0 + (m_w - 1.0) * icc)
    df = c - 1.0
    q = _sps.t.ppf(0.5 + level / 2.0, df)
    return {"se": se, "half": q * se, "icc": icc, "design_effect": deff, "df": df}


def too_few_units(group: tuple[object, object, object], count: int, n_few: int,
                  clustered: bool) -> StatsInputError:
    """The error of a dataset × metric × system ``group`` with fewer than 2 clusters (or
    items): no standard error; ``n_few`` groups are so (the in-memory and lazy describe).

    Parameters
    ----------
    group : tuple
        The group's (dataset, metric, system).
    count : int
        Its clusters (or items).
    n_few : int
        How many groups have fewer than 2.
    clustered : bool
        Whether the unit is the cluster.

    Returns
    -------
    StatsInputError
        The error to raise.

    Examples
    --------
    >>> from ranger_eval.stats.describe import too_few_units
    >>> print(too_few_units(("d", "acc", "A"), 1, 1, clustered=False))
    describe: dataset 'd', metric 'acc', system 'A' has 1 item; a standard error needs at least 2 items
    """
    d, m, s = group
    unit = "cluster" if clustered else "item"
    return StatsInputError(
        f"describe: dataset {d!r}, metric {m!r}, system {s!r} has {count} {unit}; a standard "
        f"error needs at least 2 {unit}s"
        + (f" ({n_few} dataset × metric × system groups have fewer than 2)" if n_few > 1 else "")
        + ("; a single cluster carries no information about the between-cluster variance"
           if clustered else ""))


def describe_arrays(
    values: np.ndarray, group: np.ndarray, cluster: np.ndarray | None, *,
    n_groups: int, level: float = 0.95, within_var: np.ndarray | None = None,
    k_samples: np.ndarray | None = None, within_weight: np.ndarray | None = None,
) -> dict[str, np.ndarray]:
    """The statistics of :func:`describe` for many groups at once (module docstring formulas).

    ``values``: one value per item (float64); ``group``: its group code 0 … ``n_groups`` − 1;
    ``cluster``: int64 codes of the item's cluster, distinct across groups (None: every item
    its own cluster); ``within_var``: per item, the variance of its K samples (NaN for K = 1);
    ``k_samples``: per item K; ``within_weight``: per item 1/R (R seeds averaged; default 1).
    Each group must hold at least two clusters (the caller reports which ones do not).
    Values are scaled by a power of two per group, so neither squares nor sums overflow near
    ±1.8e308 nor underflow near 1e-308.

    Parameters
    ----------
    values : numpy.ndarray
        One value per item.
    group : numpy.ndarray
        Each item's group code.
    cluster : numpy.ndarray or None
        Each item's cluster code (distinct across groups), or None.
    n_groups : int
        Number of groups.
    level : float, default 0.95
        Level of the t interval.
    within_var, k_samples, within_weight : numpy.ndarray, optional
        Per item: the variance of its K samples, K, and 1/R.

    Returns
    -------
    dict of str to numpy.ndarray
        Per group: ``n``, ``n_clusters``, ``mean``, ``se``, ``ci_low``, ``ci_high``, ``icc``,
        ``design_effect``, ``k_samples``, ``within_sd``, ``var_between``, ``var_within``, ``df``.

    Examples
    --------
    >>> import numpy as np
    >>> from ranger_eval.stats.describe import describe_arrays
    >>> y = np.array([0.2, 0.4, 0.6, 0.8, 1.0, 0.3, 0.5])
    >>> out = describe_arrays(y, np.array([0, 0, 0, 0, 1, 1, 1]), None, n_groups=2)
    >>> out["n"].tolist(), out["mean"].round(4).tolist(), out["se"].round(4).tolist()
    ([4, 3], [0.5, 0.6], [0.1291, 0.2082])
    >>> out["ci_low"].round(4).tolist(), out["ci_high"].round(4).tolist()
    ([0.0891, -0.2957], [0.9109, 1.4957])
    """
    values = np.asarray(values, dtype=np.float64)
    group = np.asarray(group, dtype=np.int64)
    n = np.bincount(group, minlength=n_groups).astype(np.float64)
    top = np.zeros(n_groups)
    np.maximum.at(top, group, np.abs(values))
    exp = np.where(top > 0, np.frexp(np.where(top > 0, top, 1.0))[1], 0).astype(np.int64)
    y = np.ldexp(values, -exp[group])  # |y| < 1 in every group
    mean_s = np.bincount(group, weights=y, minlength=n_groups) / n
    dev = y - mean_s[group]
    dev2 = dev * dev
    total = np.bincount(group, weights=dev2, minlength=n_groups)
    if cluster is None:
        # every item its own cluster (m = 1, S_k = dev): the cluster sums below are then the
        # item sums, added in the same order, so the same floats, without five row-length
        # arrays (ccode, cl_group, m, s_k and its square) at 1,000,000 datasets
        c: np.ndarray = n
        sum_s2: np.ndarray = total
        between: np.ndarray = total
        sum_m2: np.ndarray = n
    else:
        ccode: np.ndarray = pd.factorize(np.asarray(cluster, dtype=np.int64))[0].astype(
            np.int64)
        n_cl = int(ccode.max()) + 1 if ccode.size else 0
        cl_group = np.zeros(n_cl, dtype=np.int64)
        cl_group[ccode] = group
        m = np.bincount(ccode, minlength=n_cl).astype(np.float64)
        s_k = np.bincount(ccode, weights=dev, minlength=n_cl)
        c = np.bincount(cl_group, minlength=n_groups).astype(np.float64)
        sum_s2 = np.bincount(cl_group, weights=s_k * s_k, minlength=n_groups)
        with np.errstate(divide="ignore", invalid="ignore"):
            between = np.bincount(cl_group, weights=s_k * s_k / m, minlength=n_groups)
        sum_m2 = np.bincount(cl_group, weights=m * m, minlength=n_groups)
    del dev, dev2
    core = describe_sums(n, c, total=total, sum_s2=sum_s2, between=between, sum_m2=sum_m2,
                         level=level)
    se_s, half, icc, deff, df = (core["se"], core["half"], core["icc"], core["design_effect"],
                                 core["df"])
    # back to the data's scale by the group's power of two, applied to each number (2^exp
    # itself is beyond float64 when the values reach 2^1023); an interval bound beyond ±1.8e308
    # is ±inf, as float64 can only say
    with np.errstate(over="ignore"):
        mean = np.ldexp(mean_s, exp)
        se = np.ldexp(se_s, exp)
        ci_low = np.ldexp(mean_s - half, exp)
        ci_high = np.ldexp(mean_s + half, exp)
    k = np.ones(n_groups, dtype=np.int64)
    within_sd = np.full(n_groups, np.nan)
    var_within = np.full(n_groups, np.nan)
    var_between = np.full(n_groups, np.nan)
    if k_samples is not None and within_var is not None:
        k_item = np.asarray(k_samples, dtype=np.int64)
        np.maximum.at(k, group, k_item)
        wv = np.ldexp(np.asarray(within_var, dtype=np.float64), -2 * exp[group])
        has = (k[group] > 1) & np.isfinite(wv)
        weight = (np.ones(values.size) if within_weight is None
                  else np.asarray(within_weight, dtype=np.float64))
        n_has = np.bincount(group[has], minlength=n_groups).astype(np.float64)
        with np.errstate(invalid="ignore", divide="ignore"):
            mean_wv = np.bincount(group[has], weights=wv[has], minlength=n_groups) / n_has
        # an item with one sample (K_i = 1 among items with more) has no variance of its own:
        # it takes its group's pooled s² (mean_wv), so its sampling noise is not counted as 0
        lone = (k[group] > 1) & ~np.isfinite(wv)
        wv = np.where(lone, mean_wv[group], wv)
        use = has | lone
        part = np.bincount(group[use], weights=wv[use] * weight[use] / k_item[use],
                           minlength=n_groups) / (n * n)
        multi = k > 1
        e2 = 2 * exp[multi]
        with np.errstate(over="ignore"):
            within_sd[multi] = np.ldexp(np.sqrt(mean_wv[multi]), exp[multi])
        with np.errstate(over="ignore"):  # a variance of values near 1e300 is beyond float64
            var_within[multi] = np.ldexp(part[multi], e2)
            var_between[multi] = np.ldexp(np.maximum(se_s[multi] ** 2 - part[multi], 0.0), e2)
    return {
        "n": n.astype(np.int64), "n_clusters": c.astype(np.int64), "mean": mean, "se": se,
        "ci_low": ci_low, "ci_high": ci_high, "icc": icc, "design_effect": deff,
        "k_samples": k, "within_sd": within_sd, "var_between": var_between,
        "var_within": var_within, "df": df,
    }


#: the defaults of describe's keywords: those of its settings object (one place)
_DEFAULT = DescribeSettings()


def _describe(scores: Scores | object, *, level: float, groups: Iterable[tuple[str, str]] | None,
              bounds: object, interval: str, systems: Iterable[str] | None,
              settings: DescribeSettings | None, judge: bool) -> pd.DataFrame:
    """:func:`describe` (``judge``: with the judge–human columns) or :func:`describe_means`."""
    if settings is not None:  # the object's values, once the keywords are seen not to clash
        settings = resolve_settings(DescribeSettings, {"level": level, "interval": interval},
                                    settings, where="describe")
        level, interval = settings.level, settings.interval
    level = check_level(level, error=StatsInputError)
    if interval not in INTERVAL_METHODS:
        raise StatsInputError(f"describe: interval must be one of {', '.join(INTERVAL_METHODS)}; "
                              f"got {interval!r}")
    hook = getattr(scores, "__ranger_describe__", None)
    if callable(hook):
        table: pd.DataFrame = hook(level=level, groups=groups, bounds=bounds,
                                   interval=interval, systems=systems)
        return table
    scores = as_scores(scores, what="describe", error=StatsInputError)
    if systems is not None:
        scores = scores.filter(systems=[str(s) for s in systems])
    if bounds is not None:
        scores = scores.with_bounds(bounds)
    declared = scores.bounds
    df = scores.table
    # per row K and the within-item variance: only a table with a ``sample`` column has any
    # (otherwise K = 1 and no within variance on every row, describe_arrays' defaults: two
    # row-length columns fewer held at 1,000,000 datasets)
    stats = scores.sample_stats() if scores.has_samples else None
    rows: np.ndarray | None = None  # the table's rows described (None: all of them)
    if groups is not None:
        wanted = pd.MultiIndex.from_tuples([(str(d), str(m)) for d, m in groups])
        keep = (df["dataset"].isin(wanted.get_level_values(0))
                & df["metric"].isin(wanted.get_level_values(1))).to_numpy(dtype=bool)
        rows = np.flatnonzero(keep)  # then the exact pairs, on those rows only
        pairs = pd.MultiIndex.from_arrays([df["dataset"].iloc[rows], df["metric"].iloc[rows]])
        rows = rows[pairs.isin(wanted)]
        df = df.iloc[rows].reset_index(drop=True)
        if stats is not None:
            stats = stats.iloc[rows].reset_index(drop=True)
        if df.empty:
            raise StatsInputError(f"describe: no scores in the groups {list(wanted)[:5]}")
    if "set_metric" in df.columns and df["set_metric"].notna().any():
        # lm-eval's set-level metrics (corpus BLEU, F1, MCC, perplexities): their per-item rows
        # hold the inputs of a whole-set function, not scores whose mean is the metric
        marked = df["set_metric"].notna().to_numpy(dtype=bool)
        left_out = sorted({str(m) for m in pd.unique(df["metric"].to_numpy()[marked])})
        keep_rows = np.flatnonzero(~df["metric"].isin(left_out).to_numpy(dtype=bool))
        rows = keep_rows if rows is None else rows[keep_rows]
        df = df.iloc[keep_rows].reset_index(drop=True)
        if stats is not None:
            stats = stats.iloc[keep_rows].reset_index(drop=True)
        warnings.warn(f"describe: {', '.join(left_out)} left out: set-level metrics, computed "
                      "over the whole set (their per-item rows are not scores to average); "
                      "compare tests them by resampling the items", UserWarning, stacklevel=2)
        if df.empty:
            raise StatsInputError(f"describe: only set-level metrics ({', '.join(left_out)}): "
                                  "no per-item scores to describe")
    values = df["value"].to_numpy(dtype=np.float64)
    within_var = None if stats is None else stats["within_var"].to_numpy(dtype=np.float64)
    k_samples = None if stats is None else stats["k_samples"].to_numpy(dtype=np.int64)
    clustered = scores.has_cluster
    cluster_col = df[CLUSTER] if clustered else None
    frame: pd.DataFrame | None = None  # the rows averaged over seeds (with seeds only)
    if scores.has_seeds:  # the item's value is the mean of its seeds (as compare's)
        keys = ["dataset", "metric", "system", "item"]
        frame = pd.DataFrame({k: df[k] for k in keys})
        frame["value"] = values
        frame["within_var"] = (np.full(values.size, np.nan) if within_var is None
                               else within_var)
        frame["k_samples"] = np.ones(values.size, dtype=np.int64) if k_samples is None \
            else k_samples
        if clustered:
            frame[CLUSTER] = cluster_col
        # the item's sampling variance is Σ_r s_r² / K_r / R² over its R seeds (each seed's
        # own K_r): kept as mean_r(s_r² / K_r), turned into a weight on mean_r(s_r²) / K_max
        # below where the seeds' K differ (else the weight is 1/R exactly, as before)
        frame["var_over_k"] = frame["within_var"] / frame["k_samples"]
        agg: dict[str, tuple[str, str]] = {
            "value": ("value", "mean"), "within_var": ("within_var", "mean"),
            "var_over_k": ("var_over_k", "mean"), "k_min": ("k_samples", "min"),
            "k_samples": ("k_samples", "max"), "n_seeds": ("value", "size")}
        if clustered:
            agg[CLUSTER] = (CLUSTER, "first")
        frame = frame.groupby(keys, sort=False, observed=True).agg(**agg).reset_index()
        weight = 1.0 / frame["n_seeds"].to_numpy(dtype=np.float64)
        values = frame["value"].to_numpy(dtype=np.float64)
        within_var = frame["within_var"].to_numpy(dtype=np.float64)
        k_samples = frame["k_samples"].to_numpy(dtype=np.int64)
        mixed = (frame["k_min"].to_numpy(dtype=np.int64) != k_samples) & (within_var > 0)
        if mixed.any():
            ratio = (frame["var_over_k"].to_numpy(dtype=np.float64)[mixed] * k_samples[mixed]
                     / within_var[mixed])
            weight[mixed] = weight[mixed] * ratio
        cluster_col = frame[CLUSTER] if clustered else None
    else:
        weight = None
    order = []
    names_of: dict[str, list[str]] = {}
    if weight is None:
        # the frame's rows are the table's (or ``rows`` of them): the Scores' cached integer
        # codes, mapped through the few distinct names (no hashing of every row's strings)
        for c, names in (("dataset", scores.datasets), ("metric", scores.metrics),
                         ("system", scores.systems)):
            codes, uniques = scores.codes(c)
            if rows is not None:
                codes = codes[rows]
            seen = np.zeros(len(uniques), dtype=bool)
            seen[codes] = True
            present = set(uniques[seen].tolist())
            listed = [n for n in names if n in present]
            names_of[c] = listed
            order.append(pd.Index(listed).get_indexer(uniques).astype(np.int64)[codes])
    else:
        assert frame is not None  # the seeds' averaged rows
        for c, names in (("dataset", scores.datasets), ("metric", scores.metrics),
                         ("system", scores.systems)):
            present = set(pd.unique(frame[c]).tolist())
            names_of[c] = [n for n in names if n in present]
        for col, listed in names_of.items():
            order.append(pd.Index(listed).get_indexer(frame[col]).astype(np.int64))
    datasets, metrics, systems = names_of["dataset"], names_of["metric"], names_of["system"]
    n_m, n_s = len(metrics), len(systems)
    flat = order.pop(0)  # (dataset · n_m + metric) · n_s + system, in place
    flat *= n_m
    flat += order.pop(0)
    flat *= n_s
    flat += order.pop(0)
    uniq, group = _unique_inverse(flat, len(datasets) * n_m * n_s)
    del flat
    cluster = None
    if cluster_col is not None:
        # clusters are nested in datasets, and a group is one dataset × metric × system: the
        # cluster of a row is (group, cluster id), as integer codes (no MultiIndex of tuples)
        ccodes, cuniq = pd.factorize(cluster_col)
        cluster = group.astype(np.int64) * max(len(cuniq), 1) + ccodes
    counts = (np.bincount(group) if cluster is None else
              np.bincount(group[np.unique(cluster, return_index=True)[1]]))
    few = np.flatnonzero(counts < 2)
    if few.size:
        code = int(uniq[few[0]])
        d, rest = divmod(code, n_m * n_s)
        mi, si = divmod(rest, n_s)
        raise too_few_units((datasets[d], metrics[mi], systems[si]), int(counts[few[0]]),
                            few.size, clustered)
    out = describe_arrays(
        values, group, cluster, n_groups=uniq.size, level=level, within_var=within_var,
        k_samples=k_samples, within_weight=weight)
    d_of, rest_of = np.divmod(uniq, n_m * n_s)
    m_of, s_of = np.divmod(rest_of, n_s)
    out["interval"] = np.full(uniq.size, "t", dtype=object)
    if interval == "auto":
        lo, hi = _group_bounds(scores, declared, datasets, metrics, d_of, m_of)
        off = ~((values == lo[group]) | (values == hi[group]))
        binary = np.bincount(group, weights=off.astype(np.float64), minlength=uniq.size) == 0
        auto_intervals(out, lower=lo, upper=hi, binary=binary, clustered=clustered, level=level)
    table = describe_table(
        np.asarray(datasets, dtype=object)[d_of], np.asarray(metrics, dtype=object)[m_of],
        np.asarray(systems, dtype=object)[s_of], out, level=level, clustered=clustered)
    if scores.has_prompts:
        table = _with_prompt_components(table, scores)
    if judge and has_human_scores(scores):
        table = _with_judge_agreement(table, scores, level)
    if scores.has_prompts:  # last: a concatenation may drop a frame's attrs
        table.attrs["note"] = PROMPTS_NOTE
    return table


def describe_means(scores: Scores | object, *, level: float = _DEFAULT.level,
                   groups: Iterable[tuple[str, str]] | None = None, bounds: object = None,
                   interval: str = _DEFAULT.interval, systems: Iterable[str] | None = None,
                   settings: DescribeSettings | None = None) -> pd.DataFrame:
    """:func:`describe` without the judge–human columns (:data:`JUDGE_COLUMNS`): every mean
    with its standard error and interval, the prompt components with a ``prompt`` column. The
    leaderboards read only these, so they do not pay for the agreement bootstraps (1,000 rounds
    per row: 1.2 s instead of 0.02 s for 100 rows of 2,000 items). Parameters, returns and
    errors are :func:`describe`'s.

    Examples
    --------
    >>> import pandas as pd
    >>> from ranger_eval.stats.describe import describe_means
    >>> table = pd.DataFrame({"dataset": "qa", "system": ["A"] * 4 + ["B"] * 4,
    ...                       "item": ["q1", "q2", "q3", "q4"] * 2,
    ...                       "value": [1, 0, 1, 1, 0, 0, 1, 0]})
    >>> describe_means(table)["mean"].tolist()
    [0.75, 0.25]
    """
    return _describe(scores, level=level, groups=groups, bounds=bounds, interval=interval,
                     systems=systems, settings=settings, judge=False)


def describe(scores: Scores | object, *, level: float = _DEFAULT.level,
             groups: Iterable[tuple[str, str]] | None = None, bounds: object = None,
             interval: str = _DEFAULT.interval, systems: Iterable[str] | None = None,
             settings: DescribeSettings | None = None) -> pd.DataFrame:
    """The mean of every dataset × metric × system with its standard error and interval.

    One row per dataset × metric × system (datasets, metrics and systems in order of first
    appearance) with columns :data:`COLUMNS`: ``n`` items, ``n_clusters``, ``mean``, its ``se`` and
    ``level`` confidence interval, ``icc``, ``design_effect``, ``k_samples``, ``within_sd`` and the
    two parts of the mean's variance (``var_between``, ``var_within``). The formulas are in the
    module docstring: CR1 standard error and t on C − 1 df when the scores have a ``cluster``
    column (exactly Inspect AI's ``stderr(cluster=…)`` and ``ci(cluster=…)``), the iid ones
    (ddof = 1, n − 1 df) otherwise; repeated samples are averaged per item first, seeds next. The
    table's ``attrs`` hold ``level`` and ``clustered``.

    ``interval="auto"`` keeps the interval of a metric with a known range inside it: Wilson for
    0/1 scores without clusters, Korn–Graubard with clusters and for other bounded metrics
    (column ``interval``). Other score backends: if ``scores`` has a callable
    ``__ranger_describe__`` (the lazy engines' :class:`~ranger_eval.lazy.LazyScores`),
    ``describe`` returns its table, computed from the backend's sufficient statistics.

    Parameters
    ----------
    scores : Scores or table-like
        Per-item scores (a pandas, Arrow or polars table is validated into ``Scores``).
    level : float, default 0.95
        Confidence level of the intervals.
    groups : iterable of (dataset, metric), optional
        Limit the table to these groups, selected before anything is computed.
    bounds : mapping or pair, optional
        Declared ranges, as :meth:`~ranger_eval.Scores.with_bounds` (``{metric: (lo, hi)}`` or
        one pair); a score outside its range is an error naming the metric, bound and value.
    interval : {"auto", "t"}, default "auto"
        "t" gives mean ± t · se for every group (Inspect's ``ci(method="t")``).
    systems : iterable of str, optional
        Limit the table to these systems (and the 0/1 detection to their scores).
    settings : DescribeSettings, optional
        A :class:`~ranger_eval.settings.DescribeSettings` instead of ``level`` and ``interval``
        (a keyword other than its default next to it is a ``SettingsError`` naming the clash).
        The table records its ``level`` in ``attrs`` (a table, not a result object, so no
        ``.settings``).

    Returns
    -------
    pandas.DataFrame
        The columns :data:`COLUMNS`.

    Raises
    ------
    StatsInputError
        A group with fewer than two clusters (or items), which has no standard error (the
        message names it and counts the others); a bad ``level`` or ``interval``.

    References
    ----------
    Miller, E. (2024), "Adding error bars to evals: a statistical approach to language model
    evaluations", arXiv:2411.00640, §2–§4; Cameron, A. C. & Miller, D. L. (2015), Journal of Human
    Resources 50:317–372 (CR1); Wilson (1927), JASA 22:209; Korn, E. L. & Graubard, B. I. (1998),
    Survey Methodology 24:193.

    Examples
    --------
    >>> import pandas as pd
    >>> import ranger_eval as rg
    >>> table = pd.DataFrame({"dataset": "qa", "system": ["A"] * 4 + ["B"] * 4,
    ...                       "item": ["q1", "q2", "q3", "q4"] * 2, "metric": "accuracy",
    ...                       "value": [1, 0, 1, 1, 0, 0, 1, 0]})
    >>> summary = rg.describe(table)
    >>> summary[["system", "n", "mean", "ci_low", "ci_high", "interval"]].round(4)
      system  n  mean  ci_low  ci_high interval
    0      A  4  0.75  0.3006   0.9544   wilson
    1      B  4  0.25  0.0456   0.6994   wilson
    """
    return _describe(scores, level=level, groups=groups, bounds=bounds, interval=interval,
                     systems=systems, settings=settings, judge=True)


#: Why ``se_crossed`` differs from ``se`` (describe's ``attrs["note"]`` with a prompt column;
#: the variance-components report says it too).
PROMPTS_NOTE = ("se_crossed is the crossed model's standard error of the mean; it is usually "
                "larger than the per-item s/√n (se) because every item is scored under the same "
                "prompts, so the prompt (template) variance does not average out over items: "
                "Var(mean) ≈ var_item/I + var_prompt/P + var_residual/(I·P).")


#: describe's columns with human scores (a ``human_value`` column): the prediction-powered
#: (PPI++) mean of the human scores with its interval, then the judge–human agreement
#: (:data:`~ranger_eval.stats.agreement.JUDGE_HUMAN_COLUMNS`: α, κ, their intervals)
JUDGE_COLUMNS = ("ppi_mean", "ppi_se", "ppi_low", "ppi_high") + tuple(
    JUDGE_HUMAN_COLUMNS)
#: the bootstrap of describe's judge–human agreement: AgreementSettings' n_resamples and seed
_JUDGE_AGREEMENT = AgreementSettings(scale="interval")


def _with_judge_agreement(table: pd.DataFrame, scores: Scores, level: float) -> pd.DataFrame:
    """``table`` with :data:`JUDGE_COLUMNS` for scores with a ``human_value`` column: per row
    (dataset × metric × system), the PPI++ mean of the human scores (``ppi_mean``, ``ppi_se``
    and its interval at ``level``: :func:`~ranger_eval.stats.ppi.prediction_powered_mean`, as
    :func:`ranger_eval.ppi_mean`, cluster-robust CR2 with a ``cluster`` column) and, on the
    ``n_labelled`` items with both a judge and a human score, the judge–human agreement:
    Krippendorff's interval α (``alpha``) and, for 0/1 scores, Cohen's κ (``kappa``), each
    with a percentile bootstrap interval at ``level`` over items, or whole clusters
    (:func:`~ranger_eval.stats.agreement.judge_human_agreement`; 1,000 rounds, seed 0, the
    defaults of :class:`~ranger_eval.settings.AgreementSettings`). NaN where not defined
    (too few human-scored or judge-only items, every score equal)."""
    rows = []
    for d, m, s in table[["dataset", "metric", "system"]].itertuples(index=False):
        d, m, s = str(d), str(m), str(s)
        judged = judged_items(scores, dataset=d, metric=m, system=s, error=StatsInputError)
        codes = item_cluster_codes(scores, d, judged.items)
        labelled = ~np.isnan(judged.human)
        row = dict.fromkeys(JUDGE_COLUMNS, np.nan)
        try:
            ppi = checked_ppi(judged.human[labelled], judged.value[labelled],
                              judged.value[~labelled], what=f"system {s!r} on {d!r}, {m!r}",
                              method="ppi++", level=level, error=StatsInputError,
                              clusters=None if codes is None
                              else (codes[labelled], codes[~labelled]), vcov="CR2")
            row.update(ppi_mean=ppi.estimate, ppi_se=ppi.se, ppi_low=ppi.ci_low,
                       ppi_high=ppi.ci_high)
        except StatsInputError:
            pass
        row.update(judge_human_agreement(judged.value, judged.human, codes, level=level,
                                         n_resamples=_JUDGE_AGREEMENT.n_resamples,
                                         seed=_JUDGE_AGREEMENT.seed))
        rows.append(row)
    extra = pd.DataFrame(rows, columns=list(JUDGE_COLUMNS), index=table.index)
    extra["n_labelled"] = extra["n_labelled"].astype(np.int64)
    return pd.concat([table, extra], axis=1)


#: describe's columns of the variance components with a ``prompt`` column
PROMPT_COLUMNS = ("n_prompts", "se_crossed", "var_item", "var_prompt", "var_item_prompt",
                  "var_residual")


def _with_prompt_components(table: pd.DataFrame, scores: Scores) -> pd.DataFrame:
    """``table`` with :data:`PROMPT_COLUMNS`: ``se_crossed``, the standard error of the mean
    under the crossed model (it counts the prompt variance every item shares, which ``se``
    leaves out), and the REML variance components of each row's system
    on its rows per prompt and sample (:func:`ranger_eval.stats.crossed.crossed_reml`, as
    :func:`ranger_eval.variance_components`; item × prompt where replicate samples make it
    estimable, else NaN and inside the residual); NaN where not estimable (one prompt, prompts
    not crossed with items)."""
    raw = scores.raw_frame
    found: dict[tuple[str, ...], tuple[float, ...]] = {}
    for key, sub in raw.groupby(["dataset", "metric", "system"], sort=False, observed=True):
        item = sub["item"].to_numpy(dtype=object)
        prompt = sub["prompt"].to_numpy(dtype=object)
        n_p = int(pd.unique(prompt).size)
        cells = int(pd.MultiIndex.from_arrays([item, prompt]).nunique())
        try:
            check_crossed("describe", item, prompt)
            fit = crossed_reml(sub["value"].to_numpy(dtype=np.float64), item, prompt,
                               interaction=cells < len(sub))
        except (ScoresError, StatsInputError):
            found[tuple(map(str, key))] = (n_p, np.nan, np.nan, np.nan, np.nan, np.nan)
            continue
        found[tuple(map(str, key))] = (n_p, float(np.sqrt(fit.mu_var)), fit.item_var,
                                       fit.prompt_var, fit.interaction_var, fit.residual_var)
    keys = zip(table["dataset"].astype(str), table["metric"].astype(str),
               table["system"].astype(str), strict=True)
    values = np.array([found.get(k, (np.nan,) * len(PROMPT_COLUMNS)) for k in keys],
                      dtype=np.float64).reshape(len(table), len(PROMPT_COLUMNS))
    for j, col in enumerate(PROMPT_COLUMNS):
        table[col] = values[:, j]
    return table


def _unique_inverse(codes: np.ndarray, size: int) -> tuple[np.ndarray, np.ndarray]:
    """``numpy.unique(codes, return_inverse=True)`` of non-negative integer ``codes`` below
    ``size``: the sorted distinct codes and each code's index among them. When ``size`` is at
    most a few times the number of codes, by a count per possible code (no sort, no sorted
    copy: the same two arrays in linear time and less memory at millions of rows); otherwise
    by ``numpy.unique``.

    Examples
    --------
    >>> import numpy as np
    >>> u, inv = _unique_inverse(np.array([5, 2, 5, 0]), 8)
    >>> u.tolist(), inv.tolist()
    ([0, 2, 5], [2, 1, 2, 0])
    """
    if size > 4 * codes.size + 1024:
        uniq, inverse = np.unique(codes, return_inverse=True)
        return uniq, inverse.reshape(-1).astype(np.int64, copy=False)
    seen = np.zeros(size, dtype=bool)
    seen[codes] = True
    rank = np.cumsum(seen, dtype=np.int64)
    rank -= 1
    return np.flatnonzero(seen), rank[codes]


def auto_intervals(out: dict[str, np.ndarray], *, lower: np.ndarray, upper: np.ndarray,
                   binary: np.ndarray, clustered: bool, level: float) -> None:
    """Replace, in ``out`` (:func:`describe_arrays`' columns), the t interval of every group
    with a known range (``lower``/``upper`` finite) by the one that stays inside it
    (:func:`~ranger_eval.stats.bounded.bounded_intervals`; ``binary``: the group's per-item
    values are all at a bound) and set ``out["interval"]`` to the method of each group.

    Parameters
    ----------
    out : dict of str to numpy.ndarray
        :func:`describe_arrays`' columns; changed in place.
    lower, upper : numpy.ndarray
        Per group, the known range (NaN: none).
    binary : numpy.ndarray of bool
        Per group, whether every value is at a bound.
    clustered : bool
        Whether the standard errors are clustered.
    level : float
        Level of the intervals.

    Returns
    -------
    None

    Examples
    --------
    Group 0 has the range [0, 1], group 1 none (its t interval stays):

    >>> import numpy as np
    >>> from ranger_eval.stats.describe import auto_intervals, describe_arrays
    >>> y = np.array([0.2, 0.4, 0.6, 0.8, 1.0, 0.3, 0.5])
    >>> out = describe_arrays(y, np.array([0, 0, 0, 0, 1, 1, 1]), None, n_groups=2)
    >>> auto_intervals(out, lower=np.array([0.0, np.nan]), upper=np.array([1.0, np.nan]),
    ...                binary=np.array([False, False]), clustered=False, level=0.95)
    >>> out["interval"].tolist(), out["ci_low"].round(4).tolist()
    (['korn-graubard', 't'], [0.2388, -0.2957])
    """
    b_lo, b_hi, method = bounded_intervals(
        out["mean"], out["se"], out["n"], out["n_clusters"], lower=lower, upper=upper,
        binary=binary, clustered=clustered, level=level)
    known = method != "t"
    out["ci_low"] = np.where(known, b_lo, out["ci_low"])
    out["ci_high"] = np.where(known, b_hi, out["ci_high"])
    out["interval"] = method


def describe_table(datasets: np.ndarray, metrics: np.ndarray, systems: np.ndarray,
                   out: dict[str, np.ndarray], *, level: float, clustered: bool) -> pd.DataFrame:
    """:func:`describe`'s table (columns :data:`COLUMNS`, ``attrs`` ``level``, ``clustered``
    and ``intervals``) from each group's names and the statistics ``out``.

    Parameters
    ----------
    datasets, metrics, systems : numpy.ndarray
        Each group's names.
    out : dict of str to numpy.ndarray
        :func:`describe_arrays`' columns with ``interval`` (:func:`auto_intervals`).
    level : float
        Level of the intervals.
    clustered : bool
        Whether the standard errors are clustered.

    Returns
    -------
    pandas.DataFrame
        One row per group.

    Examples
    --------
    >>> import numpy as np
    >>> from ranger_eval.stats.describe import auto_intervals, describe_arrays, describe_table
    >>> out = describe_arrays(np.array([0.2, 0.4, 0.6, 0.8]), np.zeros(4, dtype=int), None,
    ...                       n_groups=1)
    >>> auto_intervals(out, lower=np.array([np.nan]), upper=np.array([np.nan]),
    ...                binary=np.array([False]), clustered=False, level=0.95)
    >>> t = describe_table(np.array(["d"]), np.array(["acc"]), np.array(["A"]), out,
    ...                    level=0.95, clustered=False)
    >>> t[["system", "n", "mean", "ci_low", "interval"]].round(4)
      system  n  mean  ci_low interval
    0      A  4   0.5  0.0891        t
    >>> t.attrs["intervals"]
    ('t',)
    """
    table = pd.DataFrame({"dataset": datasets, "metric": metrics, "system": systems,
                          **{c: out[c] for c in COLUMNS[3:]}})
    table.attrs.update({"level": level, "clustered": clustered,
                        "intervals": tuple(dict.fromkeys(np.asarray(out["interval"]).tolist()))})
    return table


def known_bounds(declared: dict[str, tuple[float, float]], metric_of: np.ndarray,
                 zero_one: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per group, its known range: the declared one of its metric (``metric_of``: the group's
    metric name), else [0, 1] where ``zero_one`` (every score of the group's dataset × metric
    is 0 or 1), else NaN.

    Parameters
    ----------
    declared : dict of str to (float, float)
        Declared ranges per metric.
    metric_of : numpy.ndarray
        Each group's metric name.
    zero_one : numpy.ndarray of bool
        Each group's dataset × metric has only 0/1 scores.

    Returns
    -------
    tuple of numpy.ndarray
        ``(lower, upper)`` per group.

    Examples
    --------
    >>> import numpy as np
    >>> from ranger_eval.stats.describe import known_bounds
    >>> lo, hi = known_bounds({"f1": (0.0, 100.0)}, np.array(["f1", "acc", "bleu"]),
    ...                       np.array([False, True, False]))
    >>> lo.tolist(), hi.tolist()
    ([0.0, 0.0, nan], [100.0, 1.0, nan])
    """
    lo = np.full(len(metric_of), np.nan)
    hi = np.full(len(metric_of), np.nan)
    names = np.asarray(metric_of, dtype=object)
    for metric, (a, b) in declared.items():
        at = names == metric
        lo[at], hi[at] = a, b
    use = np.isnan(lo) & np.asarray(zero_one, dtype=bool)
    lo[use], hi[use] = 0.0, 1.0
    return lo, hi


def _group_bounds(scores: Scores, declared: dict[str, tuple[float, float]],
                  datasets: list[str], metrics: list[str], d_of: np.ndarray,
                  m_of: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per group (``d_of``, ``m_of`` index ``datasets``, ``metrics``): the metric's declared
    range, else [0, 1] when every score of the dataset × metric (all systems, every sample and
    seed as given) is 0 or 1, else NaN (no known range)."""
    names = np.asarray(metrics, dtype=object)[m_of]
    rest = ~np.isin(names, list(declared))
    zero_one = np.zeros(d_of.size, dtype=bool)
    if rest.any():
        raw = scores.raw_frame if scores.has_samples else scores.table
        v = raw["value"].to_numpy(dtype=np.float64)
        # each row's (dataset, metric) as a code over the groups' own lists (array work: a
        # million datasets take no Python loop)
        n_m = max(len(metrics), 1)
        if scores.has_samples:
            d_code = pd.Index(datasets).get_indexer(raw["dataset"])
            m_code = pd.Index(metrics).get_indexer(raw["metric"])
        else:  # the table's cached codes through the few distinct names
            dc, du = scores.codes("dataset")
            mc, mu = scores.codes("metric")
            d_code = pd.Index(datasets).get_indexer(du)[dc]
            m_code = pd.Index(metrics).get_indexer(mu)[mc]
        inside = (d_code >= 0) & (m_code >= 0)
        pair = d_code[inside].astype(np.int64) * n_m + m_code[inside]
        size = len(datasets) * n_m
        off = np.bincount(pair, weights=((v[inside] != 0.0) & (v[inside] != 1.0))
                          .astype(np.float64), minlength=size)
        seen = np.bincount(pair, minlength=size) > 0
        group_pair = d_of.astype(np.int64) * n_m + m_of
        zero_one = rest & seen[group_pair] & (off[group_pair] == 0)
    return known_bounds(declared, names, zero_one)
