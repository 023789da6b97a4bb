"""Rank intervals: simultaneous bootstrap confidence intervals of each system's rank
(:func:`rank_intervals` → :class:`RankIntervals`).
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from ..design import Design, resolve_design
from ..errors import CompareError, ScoresError, StatsInputError
from ..formatting import preview as _preview
from ..pairing import align_groups
from ..scores import Scores
from ..settings import RankIntervalSettings, resolve_settings
from ..signature import Signature, make_signature
from ..stats._scale import exponent as _exponent
from ..stats.clustered import cluster_bootstrap_means
from ..stats.describe import describe_means
from ..stats.many import average_ranks
from .results import Comparison, _select_group

#: the defaults of rank_intervals' keywords: those of its settings object (one place)
_DEFAULT = RankIntervalSettings()

# --------------------------------------------------------------------------- rank intervals
@dataclass(frozen=True)
class RankIntervals:
    """Joint bootstrap of the systems' mean scores on one dataset × metric, and their ranks.

    ``systems`` are ordered by mean, best first. ``boot_means`` and ``boot_ranks`` have one row
    per bootstrap resample and one column per system (rank 1 = highest mean, ties averaged).
    ``rank_low``/``rank_high`` are simultaneous ``level`` confidence intervals for the ranks of
    all systems at once (see :func:`rank_intervals`); ``critical_value`` is the max-T quantile.
    ``paired`` is True for the joint bootstrap of common items (``values``: systems × items) and
    False for systems with disjoint items, bootstrapped independently (``values``: a 1-D object
    array holding each system's own values). ``resample`` is the resampling unit of the
    scores' design (:func:`ranger_eval.design.resolve_design`): ``item``, or
    ``cluster(NAME)`` when whole clusters are drawn; ``n_units`` the units drawn from (the
    clusters or items of the dataset; for independent bootstraps, the smallest system's).
    """

    dataset: str
    metric: str
    systems: tuple[str, ...]
    means: np.ndarray
    boot_means: np.ndarray
    boot_ranks: np.ndarray
    rank_low: np.ndarray
    rank_high: np.ndarray
    critical_value: float
    level: float
    n_resamples: int
    seed: int | None
    values: np.ndarray = field(default_factory=lambda: np.empty((0, 0)))
    method: str = "max-T simultaneous pairwise bootstrap intervals (Mogstad et al. 2024)"
    paired: bool = True
    resample: str = "item"
    n_units: int = 0
    #: each system's (in ``systems`` order) mean with its ``level`` confidence interval as
    #: :func:`ranger_eval.describe` and the leaderboards give it (design-aware: cluster-robust
    #: with clusters; Wilson / Korn–Graubard for 0/1 scores, inside a known range); NaN where
    #: describe has none; ``mean_interval``: each interval's method (``t``, ``wilson``,
    #: ``korn-graubard``)
    mean_ci_low: np.ndarray | None = None
    mean_ci_high: np.ndarray | None = None
    mean_interval: tuple[str, ...] = ()
    #: the settings object of the call that made these intervals (:func:`rank_intervals`)
    settings: RankIntervalSettings | None = field(default=None, compare=False, repr=False)

    @property
    def clustered(self) -> bool:
        """True when the bootstrap drew whole clusters."""
        return self.resample.startswith("cluster(")

    @property
    def caption(self) -> str:
        """What the bootstrap resampled, in plain words: ``resampling clusters (passage),
        n_clusters = 40`` or ``resampling items, n = 200``."""
        if self.clustered:
            name = self.resample[len("cluster("):-1]
            return f"resampling clusters ({name}), n_clusters = {self.n_units}"
        return f"resampling items, n = {self.n_units}"

    @property
    def signature(self) -> Signature:
        """Reproducibility signature: level, resamples, seed, resampling unit, version."""
        return make_signature(
            "compare",
            {"test": "rank-intervals[max-T bootstrap]", "level": self.level,
             "n_resamples": self.n_resamples, "seed": self.seed, "resample": self.resample},
        )

    def to_frame(self) -> pd.DataFrame:
        """One row per system: mean, bootstrap SE, rank, rank interval."""
        return pd.DataFrame(
            {
                "dataset": self.dataset,
                "metric": self.metric,
                "system": list(self.systems),
                "mean": self.means,
                "se": self.boot_means.std(axis=0, ddof=1),
                "rank": average_ranks(-self.means),
                "rank_low": self.rank_low,
                "rank_high": self.rank_high,
            }
        )


def rank_intervals(
    scores: Scores | pd.DataFrame | Comparison,
    *,
    dataset: str | None = None,
    metric: str | None = None,
    systems: Sequence[str] | None = None,
    level: float = _DEFAULT.level,
    n_resamples: int = _DEFAULT.n_resamples,
    seed: int | None = _DEFAULT.seed,
    settings: RankIntervalSettings | None = None,
) -> RankIntervals:
    """Simultaneous confidence intervals for the ranks of all systems (paired joint bootstrap).

    Items are resampled jointly for all systems (one index matrix,
    :class:`ranger_eval.stats.resampling.BootstrapIndices`), so the bootstrap keeps the
    correlation between systems. Ranks: the Mogstad, Romano, Shaikh & Wilhelm (2024, "Inference
    for ranks ...", Review of Economic Studies) construction. For every pair (j, l) the
    difference of means theta_jl gets the simultaneous interval theta_jl ± c·se_jl, where se_jl is
    the bootstrap SD of theta*_jl and c the ``level`` quantile of the bootstrap max-T statistic
    max_(j<l) |theta*_jl - theta_jl| / se_jl (pairs with se = 0 are exact and left out of the
    max). Then rank_low_j = 1 + #{l: interval of theta_lj > 0} and rank_high_j = k - #{l:
    interval of theta_jl > 0}; all k intervals hold jointly with probability about ``level``.
    Every system must score the same items (seeds averaged) -- or, for independent samples,
    each system its own items: then each system's items are resampled independently (system j
    in the selection order uses the index stream of seed + j) and ``paired`` is False. Item sets
    that overlap only partly are a :class:`ScoresError` naming some shared ids.

    The resampling unit is the scores' design (:func:`ranger_eval.design.resolve_design`): with
    a ``cluster`` column whole clusters are drawn (jointly for all systems; the mean of a
    resample is sum_k w_k S_k / sum_k w_k m_k, :func:`ranger_eval.stats.clustered.
    cluster_bootstrap_means`), so the SDs of ``boot_means`` estimate the cluster-robust SEs and
    the rank intervals are as wide as the clustered tests; a dataset with fewer than 2
    clusters is a :class:`CompareError`. Without clusters items are drawn, as
    :class:`~ranger_eval.stats.resampling.BootstrapIndices` (unchanged numbers). Samples
    (generations per item) are averaged within their item before, so they stay in it.

    ``level``, ``n_resamples`` and ``seed`` are a :class:`~ranger_eval.settings.
    RankIntervalSettings` (2,000 resamples by default, not compare's 10,000); ``settings=``
    passes one instead of the keywords (a keyword other than its default next to it is a
    :class:`~ranger_eval.errors.SettingsError` naming the clash), and the result carries the
    settings object of the call (``.settings``).

    Parameters
    ----------
    scores : Scores, pandas.DataFrame or Comparison
        Long-format scores (or a :class:`Comparison`, whose scores are used).
    dataset, metric : str, optional
        The dataset and metric to rank on (needed when the scores have several).
    systems : sequence of str, optional
        The systems to rank, in this order (default: all).
    level : float, default 0.95
        Joint coverage of the k rank intervals.
    n_resamples : int, default 2000
        Bootstrap resamples.
    seed : int or None, default 0
        Seed of the bootstrap index stream.
    settings : RankIntervalSettings, optional
        ``level``, ``n_resamples`` and ``seed`` as one object.

    Returns
    -------
    RankIntervals
        ``systems``, ``means``, ``rank_low``/``rank_high`` (1 = best), ``critical_value`` c,
        ``mean_ci_low``/``mean_ci_high``, the bootstrap draws and ``settings``.

    Raises
    ------
    ScoresError
        Item sets that overlap only partly.
    CompareError
        Fewer than 2 clusters in a clustered dataset, or a bad setting.

    References
    ----------
    Mogstad, M., Romano, J. P., Shaikh, A. M. & Wilhelm, D. (2024), "Inference for Ranks with
    Applications to Mobility across Neighbourhoods and Academic Achievement across Countries",
    Review of Economic Studies 91(1):476–518.

    Examples
    --------
    >>> import pandas as pd
    >>> import ranger_eval as rg
    >>> df = pd.DataFrame({"dataset": "d", "metric": "acc", "item": list(range(8)) * 3,
    ...                    "system": ["A"] * 8 + ["B"] * 8 + ["C"] * 8,
    ...                    "value": [.8, .6, .9, .5, .7, .7, .6, .8, .7, .6, .8, .5, .6, .7, .5, .7,
    ...                              .5, .4, .6, .3, .5, .6, .4, .5]})
    >>> r = rg.rank_intervals(df, n_resamples=500)
    >>> r.systems, r.rank_low.tolist(), r.rank_high.tolist()
    (('A', 'B', 'C'), [1, 2, 3], [1, 2, 3])
    >>> round(r.critical_value, 3)
    2.25
    """
    comp: Comparison | None = None
    if isinstance(scores, Comparison):
        comp = scores
        scores = comp.scores
    if isinstance(scores, pd.DataFrame):
        scores = Scores(scores)
    # one check, the settings': SettingsError (a CompareError) naming the key and value
    settings = resolve_settings(RankIntervalSettings, {
        "level": level, "n_resamples": n_resamples, "seed": seed}, settings,
        where="rank_intervals")
    level, n_resamples, seed = settings.level, settings.n_resamples, settings.seed
    if scores.has_prompts:  # the item bootstrap would average the prompts away
        raise CompareError(
            "rank_intervals: the scores have a 'prompt' column; the bootstrap of items would "
            "average the prompts away and leave the prompt variance out of the rank intervals "
            "(too narrow); rank the systems by compare() (the crossed random-effects tests), or "
            "average the prompts away yourself if they are the fixed population of interest")
    means_tab = pd.DataFrame(
        {"dataset": scores.frame["dataset"], "metric": scores.frame["metric"]}
    ).drop_duplicates()
    dataset, metric = _select_group(means_tab, dataset, metric)
    if comp is not None and systems is None:  # the systems compared on this dataset × metric
        m = comp.means
        here = set(m.loc[(m["dataset"] == dataset) & (m["metric"] == metric), "system"])
        systems = [s for s in comp.systems if s in here]
    sub = scores.filter(datasets=[dataset], metrics=[metric])
    design = resolve_design(sub)
    group = next(g for g in align_groups(sub, list(systems) if systems is not None else None))
    names = list(group.names)
    k = len(names)
    paired = group.complete
    if paired:
        values = np.array(group.matrix, dtype=np.float64)
        n = values.shape[1]
        if n < 2:
            raise CompareError(
                f"rank intervals on dataset {dataset!r} (metric {metric!r}) need at least 2 "
                f"items; the systems score {n}"
            )
        codes = _units(design, dataset, metric, group.items)
        n_units = n if codes is None else int(codes.max()) + 1
        boot = cluster_bootstrap_means(values, codes, n_resamples=n_resamples, seed=seed)
        means = values.mean(axis=1)
    else:
        shared = group.present.sum(axis=0) > 1
        if shared.any():  # partial overlap: neither one joint nor independent bootstraps
            counts = group.present.sum(axis=1)
            detail = ", ".join(f"{s!r}: {int(c)}" for s, c in zip(names, counts, strict=True))
            raise ScoresError(
                f"items of the systems differ on dataset {dataset!r} (metric {metric!r}): rank "
                "intervals need every system to score the same items (paired joint bootstrap) "
                f"or each system its own items (independent bootstraps); {int(shared.sum())} "
                "item(s) (e.g. "
                f"{_preview(group.items[shared], 5)}) are shared by some systems but not all "
                f"(items per system: {detail}); select the common items first"
            )
        rows = [group.row(s) for s in names]
        short = [s for s, r in zip(names, rows, strict=True) if r.size < 2]
        if short:
            raise CompareError(
                f"rank intervals on dataset {dataset!r} (metric {metric!r}): system(s) "
                f"{', '.join(map(repr, short))} have fewer than 2 items to bootstrap"
            )
        values = np.empty(k, dtype=object)
        values[:] = [np.array(r, dtype=np.float64) for r in rows]
        boot = np.empty((int(n_resamples), k))
        n_units = 0
        for j, r in enumerate(rows):  # independent samples: one index stream per system
            seed_j = None if seed is None else int(seed) + j
            codes = _units(design, dataset, metric, group.items[group.present[group.index(
                names[j])]])
            units_j = r.size if codes is None else int(codes.max()) + 1
            n_units = units_j if j == 0 else min(n_units, units_j)
            boot[:, j] = cluster_bootstrap_means(r[None, :], codes, n_resamples=n_resamples,
                                                 seed=seed_j)[:, 0]
        means = np.array([float(r.mean()) for r in rows])
    order = np.argsort(-means, kind="stable")
    values, boot, means = values[order], boot[:, order], means[order]
    names = [names[i] for i in order]
    ranks = average_ranks(-boot)
    jj, ll = np.triu_indices(k, 1)
    theta = means[jj] - means[ll]
    theta_b = boot[:, jj] - boot[:, ll]
    # on theta · 2^-e (exact; crit is scale free): SDs of scores near 1e-300 or 1e300 neither
    # underflow to 0 nor overflow (which made every pair significant, or the bounds NaN)
    e = _exponent(theta_b) if theta_b.size else 0
    theta_s, theta_bs = np.ldexp(theta, -e), np.ldexp(theta_b, -e)
    se_s = theta_bs.std(axis=0, ddof=1) if boot.shape[0] > 1 else np.zeros(theta.size)
    se = np.ldexp(se_s, e)
    ok = se_s > 0
    if ok.any():
        t_max = np.max(np.abs(theta_bs[:, ok] - theta_s[ok]) / se_s[ok], axis=1)
        crit = float(np.quantile(t_max, level))
    else:
        crit = 0.0
    lo = theta - crit * se
    hi = theta + crit * se
    better = np.zeros((k, k), dtype=bool)  # better[j, l]: j significantly above l
    better[jj, ll] = lo > 0
    better[ll, jj] = hi < 0
    rank_low = 1 + better.sum(axis=0)
    rank_high = k - better.sum(axis=1)
    mean_lo, mean_hi, mean_how = _mean_intervals(sub, names, level)
    return RankIntervals(
        dataset=dataset,
        metric=metric,
        systems=tuple(names),
        means=means,
        boot_means=boot,
        boot_ranks=ranks,
        rank_low=rank_low.astype(int),
        rank_high=rank_high.astype(int),
        critical_value=crit,
        level=float(level),
        n_resamples=int(n_resamples),
        seed=seed,
        values=values,
        paired=paired,
        resample=design.label,
        n_units=int(n_units),
        method=RankIntervals.method if paired else (
            "max-T simultaneous pairwise bootstrap intervals (Mogstad et al. 2024), "
            "independent bootstrap per system"),
        mean_ci_low=mean_lo, mean_ci_high=mean_hi, mean_interval=mean_how,
        settings=settings,
    )


def _mean_intervals(sub: Scores, names: list[str], level: float
                    ) -> tuple[np.ndarray | None, np.ndarray | None, tuple[str, ...]]:
    """The systems' mean intervals as the leaderboard gives them (:func:`ranger_eval.describe`
    of the dataset × metric ``sub``, in the order of ``names``), for the figure's first panel;
    the fields' defaults where describe has no interval (a group too small for one)."""
    try:
        table = describe_means(sub, level=level, systems=names).set_index("system")
    except StatsInputError:
        return None, None, ()
    table = table.reindex(names)
    return (table["ci_low"].to_numpy(dtype=np.float64),
            table["ci_high"].to_numpy(dtype=np.float64),
            tuple(str(m) for m in table["interval"].fillna("t")))


def _units(design: Design, dataset: str, metric: str, items: np.ndarray) -> np.ndarray | None:
    """The resampling unit of each of ``items`` (cluster codes), or None to draw items; fewer
    than 2 clusters is a :class:`CompareError` naming the dataset."""
    if not design.clustered:
        return None
    codes = design.units(dataset, items)
    c = int(codes.max()) + 1 if codes.size else 0
    if c < 2:
        raise CompareError(
            f"rank intervals on dataset {dataset!r} (metric {metric!r}) resample whole clusters "
            f"({design.cluster_name}); the items lie in {c} cluster, a bootstrap needs at "
            "least 2 (one cluster is one dependent unit: nothing varies between resamples)")
    return codes
