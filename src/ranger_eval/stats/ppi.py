"""Prediction-powered inference (PPI) for a mean: the array kernel.

An automatic judge scores every item (``yhat``); humans score a subset, the *labelled* items
(``y``, with the judge's scores ``yhat`` of the same items); the judge alone scores the
*unlabelled* items (``yhat_unlabelled``). With n labelled and N unlabelled items, the
prediction-powered estimate of the mean human score θ = E[Y] is (Angelopoulos, Bates, Fannjiang,
Jordan & Zrnic, "Prediction-powered inference", Science 382, 2023, §2; with the power-tuning
weight λ of Angelopoulos, Duchi & Zrnic, "PPI++: Efficient prediction-powered inference",
arXiv:2311.01453, 2023, §2 and Example 6.1)::

    θ̂_λ = λ · mean(yhat_unlabelled) + mean(y − λ · yhat)          (imputed mean + rectifier)

unbiased for any fixed λ, since E[λ·f] − E[λ·f] cancels. Its variance is estimated by::

    se² = λ² · σ̂²(yhat_unlabelled) / N + σ̂²(y − λ · yhat) / n

(σ̂² with divisor n or N, as ``ppi_py``), and the interval is the normal one,
θ̂ ± z_{1−α/2} · se with α = 1 − level. The methods differ in λ:

* ``"ppi++"``: the variance-minimising weight, estimated from the data and clipped to [0, 1]::

      λ̂ = Ĉov(y, yhat) / ((1 + n/N) · V̂ar(yhat ∪ yhat_unlabelled))

  with Ĉov the covariance of the labelled pairs (divisor n) and V̂ar the sample variance
  (divisor n + N − 1) of all n + N judge scores; this is ``ppi_py``'s ``_calc_lam_glm`` for a
  mean (identity Hessian, ``clip=True``). A judge uncorrelated with the humans gets λ̂ = 0 (the
  classical estimate); a judge with no spread at all has an undefined λ̂ and gets λ = 0 here
  (``ppi_py`` returns NaN), which changes nothing: with a constant judge every λ gives the
  same estimate and variance;
* ``"ppi"``: λ = 1, the original estimator of Angelopoulos et al. (2023);
* ``"classical"``: λ = 0, the mean of the human scores alone with se = σ̂(y)/√n (``ppi_py``'s
  ``classical_mean_ci``); the unlabelled items are not used.

The p-value is the two-sided z test of θ = 0, z = θ̂/se (``ppi_py.ppi_mean_pval`` with the same
λ): with paired differences as the scores it tests "no difference".

Scores whose largest magnitude lies outside [2^-100, 2^100] are rescaled by an exact power of two
first (:mod:`ranger_eval.stats._scale`): λ, z and p are scale-free, the estimate, se and bounds
are multiplied back, so 1e-200 or 1e200 scores give the same answer as their rescaled copy.

Numbers equal ``ppi_py.ppi_mean_pointestimate`` / ``ppi_mean_ci`` / ``classical_mean_ci`` to
1e-10 (tests/oracles/ppi_oracle.py). Every input must be finite; the labelled set needs n ≥ 2
items (one item has no spread to estimate) and the PPI methods N ≥ 2 unlabelled items.

**Many estimates at once** (:func:`prediction_powered_rows`, the kernel of ``compare``'s
all-pairs engine and of :func:`prediction_powered_mean`): row r of two R × m matrices holds the
human scores ``y`` and the judge's scores ``yhat`` of m items; boolean masks say which items are
labelled and which unlabelled in that row (other items are not used), so every pair of systems
of a dataset × metric, each with its own labelled set, is one matrix operation.

**Clustered items** (``clusters=``: questions about one passage are not independent). θ̂_λ − θ
is, to first order, a sum of
per-item influence terms: ψ_i = (r_i − r̄)/n for a labelled item (r = y − λ·yhat, r̄ its mean)
and φ_j = λ·(f_j − f̄)/N for an unlabelled one (f = yhat, f̄ the unlabelled mean); the
independent-items variance above is Σψ_i² + Σφ_j². When items come in clusters (several
questions about one passage), the terms of one cluster are dependent, whether the items are
labelled or not, so the variance is the cluster-robust (CR1) sandwich of the cluster sums
u_c = Σ_{i∈c} ψ_i + Σ_{j∈c} φ_j (Liang & Zeger 1986; Cameron & Miller 2015, J. Hum. Resour.
50:317, eq. 11 with the G/(G − 1) factor)::

    se² = C/(C − 1) · Σ_c u_c²,   t = θ̂/se on C − 1 degrees of freedom

with C the clusters holding at least one item of the row, as the clustered mean and paired
difference of ``compare`` use. For a fixed λ this is exactly R
``sandwich::vcovCL(type = "HC0", cadjust = TRUE)`` of the stacked regression of
(y − λ·yhat on the labelled items, yhat on the unlabelled ones) on two indicators, combined as
(1, λ) (tests/oracles/ppi_clustered_oracle.R). λ is PPI++'s weight above: the estimator is
unbiased for every λ, so the weight tuned for independent items costs at most efficiency, never
validity. With one item per cluster the sum is Σψ_i² + Σφ_j², the independent variance times
C/(C − 1) (``compare`` treats such clusters as no clusters at all, giving ppi_py's numbers).

**CR2** (``vcov="CR2"``, the default of ``compare`` and ``ppi_mean``: ``cluster_se``). CR1 on
C − 1 df over-rejects with few clusters (measured below), as for the clustered paired t, so the
bias-reduced linearisation of Bell & McCaffrey (2002, Survey Methodology 28:169) with the
Satterthwaite df of Pustejovsky & Tipton (2018, J. Bus. Econ. Stat. 36:672) is used. For a fixed λ
the stacked regression's design is two indicators (labelled, unlabelled), so its hat matrix is
block diagonal: J/n on the labelled items, J/N on the unlabelled ones, and the block of cluster c
is I − H_cc = diag(I − J/n, I − J/N) over its n_c labelled and N_c unlabelled items. The vector
of ones is an eigenvector of I − J/n with eigenvalue 1 − n_c/n, so A_c = (I − H_cc)^(-1/2)
multiplies each block's cluster sum of residuals by (1 − n_c/n)^(-1/2) (resp. (1 − N_c/N)^(-1/2))
and, with a = (1, λ),::

    u_c = Σ_{i∈c} (r_i − r̄) / (n √(1 − n_c/n)) + λ Σ_{j∈c} (f_j − f̄) / (N √(1 − N_c/N)),
    se² = Σ_c u_c²,   t = θ̂/se on the Bell–McCaffrey df

(no C/(C − 1) factor). The df is (tr G)²/||G||_F² with G_cd = p_c'p_d,
p_c = (I − H) A_c X_c (X'X)^(-1) a: G = Σ_blocks diag(a_b)(diag(m_b) − m_b m_b'/n_b)diag(a_b)
with a_c = 1/(n √(1 − n_c/n)) for the labelled block and λ/(N √(1 − N_c/N)) for the unlabelled one
(:func:`~ranger_eval.stats.clustered.bell_mccaffrey_df_rows`, O(C) per row). A cluster holding
every labelled (or unlabelled) item has the Moore–Penrose root 0 there, as clubSandwich. This is
R ``clubSandwich::vcovCR(type = "CR2")`` with ``coef_test(test = "Satterthwaite")`` of the stacked
regression at the same λ (tests/oracles/ppi_clustered_oracle.R, 1e-10). One item per cluster
gives the HC2 variance Σψ²·n/(n − 1) + Σφ²·N/(N − 1) with Satterthwaite's df.

Measured validity (benchmarks/cluster_validity.py ``--kinds ppi``: 10,000 null replicates per
scenario, ICC 0.1 / 0.5 / 0.9, 20 / 50 / 200 clusters of 2–20 items, a judge with a bias shared
within clusters, 30 % of the items human-scored; rejection rate at α = 0.05): CR2 5.2–6.1 % with
20 clusters, 5.1–5.2 % with 50, 4.9–5.2 % with 200; CR1 6.0–7.7 %, 5.5–5.7 %, 5.0–5.2 %; the test
that treats items as independent 11–47 %. With λ = 1 (``method="ppi"``) CR2 holds 4.9–5.2 % at
20 clusters: the remaining excess of PPI++ comes from λ being tuned on the same items. Below
:data:`FEW_CLUSTERS` clusters the callers warn (:func:`few_clusters_message`).
"""
from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np
from scipy import special

from ..errors import StatsInputError
from ..settings import PPI_METHODS as _PPI_METHODS
from ..settings import PPISettings
from ..signature import Signature, make_signature
from . import _scale
from ._validation import check_choice, check_level
from .clustered import VCOVS, bell_mccaffrey_df_rows

__all__ = ["FEW_CLUSTERS", "PPI_METHODS", "PPIResult", "PPIRows", "few_clusters",
           "few_clusters_message",
           "ppi_lambda", "prediction_powered_mean", "prediction_powered_rows"]

#: the estimators: power-tuned λ (default), λ = 1, λ = 0 (human scores only)
PPI_METHODS = _PPI_METHODS  # one place: the settings' choices (PPISettings.method)


@dataclass(frozen=True)
class PPIResult:
    """A prediction-powered estimate of a mean (or of a mean paired difference) and its interval.

    ``estimate`` is θ̂_λ, ``se`` its standard error, ``ci_low``/``ci_high`` the normal interval
    at ``level``, ``lam`` the weight λ used, ``n_labelled`` / ``n_unlabelled`` the items with and
    without a human score, ``statistic`` = estimate / se and ``pvalue`` its two-sided normal
    p-value (H0: the mean is 0). ``dataset``, ``metric`` and ``systems`` say what was estimated
    (one system: its mean; two: the mean of treatment − control); ``n_partial`` counts the items
    of a difference where only one of the two systems had a human score (used as unlabelled).
    With clustered items (``cluster`` names the scores' cluster field) ``se`` is the
    cluster-robust one of the module docstring named by ``cluster_se`` (CR2: t on the
    Bell–McCaffrey ``df``; CR1: t on ``df`` = C − 1), ``n_clusters`` the clusters (without
    clusters: 0, ∞ df (the normal test) and no ``cluster_se``).
    """

    estimate: float
    se: float
    ci_low: float
    ci_high: float
    lam: float
    n_labelled: int
    n_unlabelled: int
    method: str
    level: float
    statistic: float
    pvalue: float
    dataset: str | None = None
    metric: str | None = None
    systems: tuple[str, ...] = ()
    n_partial: int = 0
    n_clusters: int = 0
    df: float = math.inf
    cluster: str | None = None
    cluster_se: str | None = None
    #: the settings object of the call that made this result (:func:`~ranger_eval.ppi_mean`,
    #: :func:`~ranger_eval.ppi_mean_difference`; None from the kernels)
    settings: PPISettings | None = field(default=None, compare=False, repr=False)

    def confidence_interval(self) -> tuple[float, float]:
        """``(ci_low, ci_high)``."""
        return (self.ci_low, self.ci_high)

    def to_dict(self) -> dict[str, Any]:
        """Plain dictionary of all fields and the signature (JSON-friendly)."""
        out = asdict(self)
        del out["settings"]  # the fields above record it (method, level, cluster_se)
        out["systems"] = list(self.systems)
        out["signature"] = str(self.signature)
        return out

    @property
    def signature(self) -> Signature:
        """``kind:ppi|ppi:METHOD|level:L`` (``|cluster:FIELD|cse:CR2`` with clustered items)."""
        return make_signature("ppi", {"ppi": self.method, "level": self.level,
                                      "cluster": self.cluster, "cse": self.cluster_se})


def _as_vector(name: str, values: Sequence[float] | np.ndarray) -> np.ndarray:
    arr = np.asarray(values, dtype=np.float64)
    if arr.ndim != 1:
        raise StatsInputError(f"{name} must be one-dimensional; got shape {arr.shape}")
    bad = np.flatnonzero(~np.isfinite(arr))
    if bad.size:
        raise StatsInputError(
            f"{name} holds a non-finite value {arr[bad[0]]!r} at position {int(bad[0])}"
            + (f" ({bad.size} such values)" if bad.size > 1 else ""))
    return arr


def ppi_lambda(y: np.ndarray, yhat: np.ndarray, yhat_unlabelled: np.ndarray) -> float:
    """The PPI++ weight λ̂ = Ĉov(y, yhat) / ((1 + n/N) · V̂ar(all judge scores)), clipped to
    [0, 1] (Angelopoulos, Duchi & Zrnic 2023, Example 6.1; ``ppi_py.ppi._calc_lam_glm``);
    0 when the judge scores have no spread (the estimate does not depend on λ then).

    Parameters
    ----------
    y : ndarray
        Human scores of the n labelled items.
    yhat : ndarray
        The judge's scores of the same items, aligned with ``y``.
    yhat_unlabelled : ndarray
        The judge's scores of the N unlabelled items.

    Returns
    -------
    float
        λ̂ in [0, 1].

    References
    ----------
    Angelopoulos, Bates, Fannjiang, Jordan & Zrnic (2023), "Prediction-powered inference",
    Science 382(6671):669–674. Angelopoulos, Duchi & Zrnic (2023), "PPI++: Efficient
    prediction-powered inference", arXiv:2311.01453.

    Examples
    --------
    >>> import numpy as np
    >>> from ranger_eval.stats.ppi import ppi_lambda
    >>> y = np.array([1.0, 0, 1, 1, 0, 1, 0, 1])
    >>> yhat = np.array([1.0, 0, 1, 0, 0, 1, 1, 1])
    >>> unlabelled = np.array([1.0, 1, 0, 1, 0, 1, 1, 0, 1, 1, 0, 1])
    >>> round(ppi_lambda(y, yhat, unlabelled), 6)
    0.274038
    """
    n, big_n = y.size, yhat_unlabelled.size
    cov = float(np.dot(y - y.mean(), yhat - yhat.mean())) / n
    total = n + big_n
    mean_all = (float(yhat.sum()) + float(yhat_unlabelled.sum())) / total
    ss = (float(np.dot(yhat - mean_all, yhat - mean_all))
          + float(np.dot(yhat_unlabelled - mean_all, yhat_unlabelled - mean_all)))
    var_all = ss / (total - 1)
    if not var_all > 0.0:
        return 0.0
    lam = cov / ((1.0 + n / big_n) * var_all)
    return float(min(max(lam, 0.0), 1.0))


def prediction_powered_mean(
    y: Sequence[float] | np.ndarray,
    yhat: Sequence[float] | np.ndarray,
    yhat_unlabelled: Sequence[float] | np.ndarray,
    *,
    method: str = "ppi++",
    level: float = 0.95,
    clusters: np.ndarray | None = None,
    clusters_unlabelled: np.ndarray | None = None,
    vcov: str = "CR1",
) -> PPIResult:
    """Prediction-powered estimate and normal confidence interval of the mean of ``y``.

    ``y``: human scores of the labelled items; ``yhat``: the judge's scores of the same items
    (aligned); ``yhat_unlabelled``: the judge's scores of the other items. The estimator, its
    variance and λ for each ``method`` (``"ppi++"``, ``"ppi"``, ``"classical"``) are in the
    module docstring. ``clusters`` / ``clusters_unlabelled``: cluster codes (0 … C − 1) of the
    labelled and unlabelled items, for the cluster-robust variance ``vcov`` ("CR1": t on C − 1
    df; "CR2": Bell–McCaffrey df). Raises
    :class:`StatsInputError` naming the argument for non-finite values, misaligned arrays, fewer
    than 2 labelled items, (PPI methods) fewer than 2 unlabelled, or fewer than 2 clusters.

    Parameters
    ----------
    y : array_like
        Human scores of the labelled items.
    yhat : array_like
        The judge's scores of the same items, aligned with ``y``.
    yhat_unlabelled : array_like
        The judge's scores of the items without a human score.
    method : {"ppi++", "ppi", "classical"}, default "ppi++"
        λ̂ (PPI++), λ = 1 (PPI) or λ = 0 (the human scores alone).
    level : float, default 0.95
        Confidence level of the interval.
    clusters, clusters_unlabelled : ndarray of int, optional
        Cluster codes of the labelled and unlabelled items (both or neither).
    vcov : {"CR1", "CR2"}, default "CR1"
        The cluster-robust variance with clusters.

    Returns
    -------
    PPIResult
        ``estimate``, ``se``, ``ci_low``/``ci_high``, ``lam``, the z (or t) ``statistic`` and
        two-sided ``pvalue`` of mean = 0, ``n_labelled``, ``n_unlabelled``, ``df``.

    Raises
    ------
    StatsInputError
        As above, or a bad ``method`` or ``level``.

    References
    ----------
    Angelopoulos, Bates, Fannjiang, Jordan & Zrnic (2023), "Prediction-powered inference",
    Science 382(6671):669–674. Angelopoulos, Duchi & Zrnic (2023), "PPI++: Efficient
    prediction-powered inference", arXiv:2311.01453.

    Examples
    --------
    >>> from ranger_eval.stats.ppi import prediction_powered_mean
    >>> r = prediction_powered_mean([1, 0, 1, 1, 0, 1, 0, 1], [1, 0, 1, 0, 0, 1, 1, 1],
    ...                             [1, 1, 0, 1, 0, 1, 1, 0, 1, 1, 0, 1])
    >>> round(r.estimate, 4), round(r.se, 4), round(r.lam, 4)
    (0.6364, 0.1594, 0.274)
    >>> round(r.ci_low, 4), round(r.ci_high, 4)
    (0.3241, 0.9488)
    """
    method = check_choice("method", method, PPI_METHODS)
    level = check_level(level)
    y_ = _as_vector("y (human scores)", y)
    yhat_ = _as_vector("yhat (judge scores of the labelled items)", yhat)
    yu = _as_vector("yhat_unlabelled (judge scores of the unlabelled items)", yhat_unlabelled)
    if y_.size != yhat_.size:
        raise StatsInputError(
            f"y and yhat must be aligned (one judge score per human score); got {y_.size} human "
            f"and {yhat_.size} judge scores")
    n, big_n = y_.size, yu.size
    if n < 2:
        raise StatsInputError(
            f"prediction-powered inference needs at least 2 items with a human score; got {n}")
    if method != "classical" and big_n < 2:
        raise StatsInputError(
            f"method {method!r} needs at least 2 items without a human score (the judge-only "
            f"items); got {big_n}. With every item human-scored, pass method='classical'")
    rows = prediction_powered_rows(y_[None, :], yhat_[None, :], yu[None, :], method=method,
                                   clusters=clusters, clusters_unlabelled=clusters_unlabelled,
                                   vcov=vcov)
    statistic, pvalue, ci_low, ci_high = (float(v[0]) for v in rows.test("two-sided", level))
    return PPIResult(
        estimate=float(rows.estimate[0]), se=float(rows.se[0]), ci_low=ci_low, ci_high=ci_high,
        lam=float(rows.lam[0]), n_labelled=n, n_unlabelled=big_n, method=method,
        level=level, statistic=statistic, pvalue=pvalue,
        n_clusters=int(rows.n_clusters[0]), df=float(rows.df[0]),
        cluster_se=None if clusters is None else vcov,
    )


#: below this many clusters the cluster-robust PPI test warns that it over-rejects (measured),
#: by variance (``vcov``/``cluster_se``)
FEW_CLUSTERS = {"CR2": 50, "CR1": 100}
#: the measured null rejection rates at alpha = 0.05 that the warning quotes
MEASURED = {"CR2": "5.2-6.1 % with 20 clusters, 5.1-5.2 % with 50, 4.9-5.2 % with 200",
            "CR1": "6.0-7.7 % with 20 clusters, 5.5-5.7 % with 50, 5.0-5.2 % with 200"}


def few_clusters(vcov: str = "CR2") -> int:
    """Below this many clusters the cluster-robust prediction-powered test with ``vcov``
    warns (:data:`FEW_CLUSTERS`).

    Parameters
    ----------
    vcov : {"CR2", "CR1"}, default "CR2"
        The cluster-robust variance.

    Returns
    -------
    int
        The fewest clusters at which the measured size of the test was acceptable.

    Examples
    --------
    >>> from ranger_eval.stats.ppi import few_clusters
    >>> few_clusters("CR2"), few_clusters("CR1")
    (50, 100)
    """
    return FEW_CLUSTERS[vcov]


def few_clusters_message(where: str, n_clusters: int, vcov: str = "CR2") -> str:
    """The warning of a cluster-robust prediction-powered test with fewer than
    :func:`few_clusters` clusters, with its measured over-rejection.

    Parameters
    ----------
    where : str
        What the warning is about (e.g. ``"dataset 'd'"``), its first words.
    n_clusters : int
        The number of clusters.
    vcov : {"CR2", "CR1"}, default "CR2"
        The cluster-robust variance used.

    Returns
    -------
    str
        The warning text.

    Examples
    --------
    >>> from ranger_eval.stats.ppi import few_clusters_message
    >>> few_clusters_message("dataset 'd'", 6)
    "dataset 'd': the cluster-robust prediction-powered test with 6 clusters rejects a true null somewhat too often (CR2 with Bell-McCaffrey df, ...); read p-values near alpha with care"
    """
    how = "CR2 with Bell-McCaffrey df" if vcov == "CR2" else "CR1 on C - 1 df"
    return (f"{where}: the cluster-robust prediction-powered test with {n_clusters} "
            f"clusters rejects a true null somewhat too often ({how}, measured at "
            f"alpha = 0.05: {MEASURED[vcov]}; benchmarks/cluster_validity.py --kinds ppi); "
            f"read p-values near alpha with care")


@dataclass(frozen=True)
class PPIRows:
    """Prediction-powered estimates of many rows (:func:`prediction_powered_rows`): per row the
    estimate θ̂_λ, its standard error, the weight λ, the numbers of labelled and unlabelled
    items, the clusters with an item of the row (0 without clusters) and the degrees of freedom
    of the test (∞: the normal test of independent items; C − 1 with clusters)."""

    estimate: np.ndarray
    se: np.ndarray
    lam: np.ndarray
    n_labelled: np.ndarray
    n_unlabelled: np.ndarray
    n_clusters: np.ndarray
    df: np.ndarray

    def test(self, alternative: str, level: float
             ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """(statistic, p-value, ci_low, ci_high) of H0: θ = 0 per row: z = θ̂/se with normal
        p-values and θ̂ ± z_q·se (infinite df), Student t on ``df`` otherwise; one-sided
        alternatives have one infinite bound. se = 0 is certainty (statistic 0 or ±∞)."""
        est, se = self.estimate, self.se
        normal = np.isinf(self.df)
        df = np.where(normal, 1.0, self.df)
        with np.errstate(divide="ignore", invalid="ignore"):
            stat = np.where(se > 0.0, est / np.where(se > 0.0, se, 1.0),
                            np.where(est == 0.0, 0.0, np.copysign(np.inf, est)))
        if alternative == "two-sided":
            tail = (1.0 - level) / 2.0
            p = np.where(normal, 2.0 * special.ndtr(-np.abs(stat)),
                         2.0 * special.stdtr(df, -np.abs(stat)))
        else:
            tail = 1.0 - level
            s = -stat if alternative == "greater" else stat
            p = np.where(normal, special.ndtr(s), special.stdtr(df, s))
        q = np.where(normal, -special.ndtri(tail), -special.stdtrit(df, tail))
        low, high = est - q * se, est + q * se
        if alternative == "greater":
            high = np.full_like(high, np.inf)
        elif alternative == "less":
            low = np.full_like(low, -np.inf)
        return stat, p, low, high


def _masked(x: np.ndarray, mask: np.ndarray | None) -> np.ndarray:
    """``x`` with the entries outside ``mask`` set to 0 (``x`` itself without a mask)."""
    return x if mask is None else np.where(mask, x, 0.0)


def _count(mask: np.ndarray | None, shape: tuple[int, ...]) -> np.ndarray:
    """Entries of each row that are used (all of them without a mask)."""
    return np.full(shape[0], shape[1], dtype=np.int64) if mask is None else mask.sum(axis=1)


def _cluster_totals(values: np.ndarray, codes: np.ndarray, c: int) -> np.ndarray:
    """Rows × C sums of ``values`` (rows × items) per cluster code (0 for a cluster without an
    item here): a stable sort by code and ``numpy.add.reduceat`` over the present codes."""
    out = np.zeros((values.shape[0], c))
    if codes.size:
        order = np.argsort(codes, kind="stable")
        sc = codes[order]
        starts = np.flatnonzero(np.r_[True, sc[1:] != sc[:-1]])
        out[:, sc[starts]] = np.add.reduceat(values[:, order], starts, axis=1)
    return out


def _cr2_weights(sizes: np.ndarray, n: np.ndarray) -> np.ndarray:
    """(1 − m_c/n)^(-1/2) per row and cluster: the CR2 adjustment of a block's cluster sum of
    residuals; 0 where the cluster holds every item of the block (its residual sum is 0 and the
    Moore–Penrose inverse root of I − H_cc is 0 there, as clubSandwich's)."""
    nn = np.maximum(n, 1.0)[:, None]
    rest = 1.0 - sizes / nn
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(rest > 1e-12, 1.0 / np.sqrt(np.where(rest > 0.0, rest, 1.0)), 0.0)


def prediction_powered_rows(
    y: np.ndarray,
    yhat: np.ndarray,
    yhat_unlabelled: np.ndarray,
    *,
    labelled: np.ndarray | None = None,
    unlabelled: np.ndarray | None = None,
    method: str = "ppi++",
    clusters: np.ndarray | None = None,
    clusters_unlabelled: np.ndarray | None = None,
    vcov: str = "CR1",
) -> PPIRows:
    """Prediction-powered estimates of the mean human score for every row of matrices.

    ``y`` / ``yhat``: R × n human and judge scores of the labelled items; ``yhat_unlabelled``:
    R × N judge scores of the unlabelled items. ``labelled`` / ``unlabelled``: optional boolean
    masks of the same shapes saying which entries of each row are used (default: all; entries
    outside a mask are never read, so they may be NaN), so that rows with different labelled
    sets (the pairs of systems of a dataset × metric) are one matrix operation. Row r is
    :func:`prediction_powered_mean` of its used entries (module docstring: estimator, variance,
    λ), with the same exact power-of-two rescaling per row at the extremes. ``clusters`` /
    ``clusters_unlabelled``: integer codes 0 … C − 1 (one numbering) of the clusters of the n
    labelled and N unlabelled columns, for the cluster-robust variance of ``vcov`` (module
    docstring): "CR1" on C_r − 1 df, "CR2" on the Bell–McCaffrey df of the row (its own
    cluster sizes within its masks). Raises :class:`StatsInputError` naming the first row with fewer than 2
    labelled items, (PPI methods) fewer than 2 unlabelled items, or (clusters) fewer than 2
    clusters.
    """
    method = check_choice("method", method, PPI_METHODS)
    vcov = check_choice("vcov", vcov, VCOVS)
    lab = None if labelled is None else np.asarray(labelled, dtype=bool)
    unl = None if unlabelled is None else np.asarray(unlabelled, dtype=bool)
    n = _count(lab, y.shape)
    big_n = _count(unl, yhat_unlabelled.shape)
    for bad, need in ((n < 2, "2 labelled items (human-scored)"),
                      ((big_n < 2) if method != "classical" else np.zeros(n.shape, bool),
                       "2 unlabelled items (judge only)")):
        if bad.any():
            r = int(np.flatnonzero(bad)[0])
            raise StatsInputError(f"prediction-powered inference needs at least {need}; row {r} "
                                  f"has {int(n[r])} labelled and {int(big_n[r])} unlabelled")
    yl, fl, fu = _masked(y, lab), _masked(yhat, lab), _masked(yhat_unlabelled, unl)
    e = _scale.row_exponents(*(m for m in (yl, fl, fu) if m.shape[1]))
    yl, fl, fu = _scale.scaled_rows(e, yl, fl, fu)
    nf, big_nf = n.astype(np.float64), big_n.astype(np.float64)
    big_safe = np.maximum(big_nf, 1.0)
    if method == "classical":
        lam = np.zeros(n.shape)
    elif method == "ppi":
        lam = np.ones(n.shape)
    else:  # ppi_py's _calc_lam_glm for a mean (ppi_lambda), clipped to [0, 1]
        dy = _masked(yl - (yl.sum(axis=1) / nf)[:, None], lab)
        dfl = _masked(fl - (fl.sum(axis=1) / nf)[:, None], lab)
        cov = np.einsum("ij,ij->i", dy, dfl) / nf
        total = nf + big_nf
        mean_all = ((fl.sum(axis=1) + fu.sum(axis=1)) / total)[:, None]
        da, du = _masked(fl - mean_all, lab), _masked(fu - mean_all, unl)
        var_all = (np.einsum("ij,ij->i", da, da) + np.einsum("ij,ij->i", du, du)) / (total - 1.0)
        with np.errstate(divide="ignore", invalid="ignore"):
            raw = cov / ((1.0 + nf / big_safe) * var_all)
        lam = np.where(var_all > 0.0, np.clip(raw, 0.0, 1.0), 0.0)
    rect = yl - lam[:, None] * fl
    rect_mean = _masked(rect, lab).sum(axis=1) / nf
    dr = _masked(rect - rect_mean[:, None], lab)
    imputed = lam[:, None] * fu
    imputed_mean = imputed.sum(axis=1) / big_safe
    di = _masked(imputed - imputed_mean[:, None], unl)
    estimate = imputed_mean + rect_mean
    if clusters is None:
        var = (np.einsum("ij,ij->i", di, di) / big_safe / big_safe
               + np.einsum("ij,ij->i", dr, dr) / nf / nf)
        n_clusters = np.zeros(n.shape, dtype=np.int64)
        df = np.full(n.shape, np.inf)
    else:
        codes_l = np.asarray(clusters, dtype=np.intp)
        codes_u = (np.zeros(0, dtype=np.intp) if clusters_unlabelled is None
                   else np.asarray(clusters_unlabelled, dtype=np.intp))
        if codes_l.size != y.shape[1] or codes_u.size != yhat_unlabelled.shape[1]:
            raise StatsInputError(
                f"clusters: one code per labelled column ({y.shape[1]}) and per unlabelled "
                f"column ({yhat_unlabelled.shape[1]}); got {codes_l.size} and {codes_u.size}")
        c = int(max(codes_l.max(initial=-1), codes_u.max(initial=-1))) + 1
        sum_l = _cluster_totals(dr, codes_l, c)
        sum_u = _cluster_totals(di, codes_u, c)
        size_l = _cluster_totals(np.ones(y.shape) if lab is None else lab.astype(float),
                                 codes_l, c)
        size_u = _cluster_totals(np.ones(yhat_unlabelled.shape) if unl is None
                                 else unl.astype(float), codes_u, c)
        n_clusters = ((size_l + size_u) > 0).sum(axis=1)
        if (n_clusters < 2).any():
            r = int(np.flatnonzero(n_clusters < 2)[0])
            err = StatsInputError(
                f"row {r}: all {int(n[r] + big_n[r])} items are in one cluster; the "
                "cluster-robust prediction-powered variance needs at least 2 clusters")
            err.row = r  # type: ignore[attr-defined]  # callers name the row's pair
            raise err
        cf = n_clusters.astype(np.float64)
        if vcov == "CR1":
            sums = sum_l / nf[:, None] + sum_u / big_safe[:, None]
            var = cf / (cf - 1.0) * np.einsum("ij,ij->i", sums, sums)
            df = cf - 1.0
        else:  # CR2: each block's cluster sum times (1 − m_c/n)^(-1/2) (module docstring)
            a_l = _cr2_weights(size_l, nf) / nf[:, None]
            a_u = _cr2_weights(size_u, big_nf) / big_safe[:, None]
            sums = a_l * sum_l + a_u * sum_u
            var = np.einsum("ij,ij->i", sums, sums)
            df = bell_mccaffrey_df_rows(((a_l, size_l, nf),
                                         (lam[:, None] * a_u, size_u, big_nf)))
    se = np.sqrt(var)
    estimate = _scale.unscale_array(estimate, e, "estimate")
    se = _scale.unscale_array(se, e, "standard error")
    return PPIRows(estimate=estimate, se=se, lam=lam, n_labelled=n, n_unlabelled=big_n,
                   n_clusters=n_clusters, df=df)
