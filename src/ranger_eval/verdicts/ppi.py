"""Prediction-powered inference on :class:`Scores` whose ``value`` comes from an automatic judge.

The ``human_value`` column holds a human score where one exists (NaN elsewhere). For one system
on one dataset × metric, the items with a human score are the *labelled* set (judge score =
``value``, human score = ``human_value``), the others the *unlabelled* set, and
:func:`ppi_mean` is the prediction-powered estimate of the system's mean **human** score with
its normal confidence interval (Angelopoulos et al., Science 2023; PPI++, Angelopoulos, Duchi &
Zrnic 2023): the estimator, its variance and the weight λ of each ``method`` are in
:mod:`ranger_eval.stats.ppi`; the numbers equal ``ppi_py.ppi_mean_ci`` to 1e-10.

:func:`ppi_mean_difference` is the paired version for two systems judged on the same items:
the estimand is the mean human difference θ = E[Y_t − Y_c], the mean of the per-item
difference H = Y_t − Y_c, and the judge's per-item difference D = Ŷ_t − Ŷ_c predicts it on every
item. PPI for a mean applied to (H, D)::

    θ̂ = λ · mean(D over unlabelled items) + mean(H − λ · D over labelled items)
    se² = λ² · σ̂²(D_unlabelled) / N + σ̂²(H − λ · D) / n

is unbiased for every λ (the judge's errors cancel in expectation), and its variance is that of
the per-item differences, so the correlation between the two systems on the same items (and
the judge's shared bias on an item) is accounted for, exactly as a paired t-test works on
differences; two separate ``ppi_mean`` intervals would ignore it. PPI++ tunes λ on the
differences, i.e. for the variance of the quantity tested, not of each mean. It is
``ppi_py.ppi_mean_ci(Y=H, Yhat=D_labelled, Yhat_unlabeled=D_unlabelled)`` (checked to 1e-10).
An item is labelled for the pair when **both** systems have a human score there; an item where
only one has is used as unlabelled (its judge difference counts, its one human score cannot) and
counted in ``n_partial`` and a warning.

With a ``seed`` column, values (and human values) are averaged per item over the seeds first,
as everywhere else; an item's human value must then exist for all its seeds or for none.

With a ``cluster`` column (items in clusters: several questions about one passage) both use the
cluster-robust variance of :mod:`ranger_eval.stats.ppi`, from the per-cluster sums of the
labelled and unlabelled influence terms, as ``compare`` does: ``cluster_se="CR2"`` (default)
the bias-reduced CR2 variance with Bell–McCaffrey (Satterthwaite) df (= R clubSandwich on the
stacked regression), ``cluster_se="CR1"`` the CR1 sandwich with t on C − 1 df (= R sandwich
``vcovCL``); the result records ``n_clusters``, ``df``, ``cluster`` and ``cluster_se`` (the
signature ``cluster:FIELD|cse:CR2``), and fewer clusters than measured to hold α (CR2: 50,
CR1: 100) give a warning with the measured over-rejection. Clusters of one item each change
nothing (ppi_py's numbers); without a cluster column ``cluster_se`` has no effect (a warning
says so when it is set).
"""
from __future__ import annotations

import warnings
from dataclasses import replace

import numpy as np
import pandas as pd

from ..design import refuse_prompts
from ..errors import Hint, VerdictError
from ..formatting import preview
from ..scores import Scores, as_scores
from ..settings import PPISettings, resolve_settings
from ..stats.clustered import VCOVS
from ..stats.judged import align_pair, checked_ppi, item_cluster_codes, judged_items
from ..stats.ppi import PPI_METHODS, PPIResult, few_clusters, few_clusters_message

__all__ = ["ppi_mean", "ppi_mean_difference"]


def _dataset(scores: Scores, dataset: str | None) -> str:
    if dataset is not None:
        if dataset not in scores.datasets:
            raise VerdictError(f"unknown dataset {dataset!r}; known: {preview(scores.datasets)}")
        return dataset
    if len(scores.datasets) == 1:
        return scores.datasets[0]
    hint = Hint("dataset")
    raise VerdictError(
        f"the scores hold {len(scores.datasets)} datasets ({preview(scores.datasets)}): a mean "
        f"is estimated on one dataset; {hint.text}", hints=[hint])


def _metric(scores: Scores, in_dataset: np.ndarray | None, dataset: str,
            metric: str | None) -> str:
    if len(scores.metrics) == 1:
        here: list[str] = list(scores.metrics)
    else:
        column = scores.table["metric"]
        here = [str(m) for m in pd.unique(column if in_dataset is None else column[in_dataset])]
    if metric is not None:
        if metric not in here:
            raise VerdictError(f"metric {metric!r} has no scores on dataset {dataset!r}; "
                               f"metrics there: {preview(here)}")
        return metric
    if len(here) == 1:
        return here[0]
    hint = Hint("metric")
    raise VerdictError(f"dataset {dataset!r} has {len(here)} metrics ({preview(here)}); {hint.text}",
                       hints=[hint])


def _resolve(scores: Scores, dataset: str | None, metric: str | None) -> tuple[str, str]:
    dataset = _dataset(scores, dataset)
    in_dataset = (None if len(scores.datasets) == 1
                  else (scores.table["dataset"] == dataset).to_numpy(dtype=bool))
    return dataset, _metric(scores, in_dataset, dataset, metric)


#: the defaults of ppi_mean's and ppi_mean_difference's keywords: their settings object's
_DEFAULT = PPISettings()


def _settings(method: str, level: float, cluster_se: str, settings: PPISettings | None,
              where: str) -> tuple[str, float, str]:
    """The call's ``method``, ``level`` and ``cluster_se``: those of ``settings`` when given
    (a keyword other than its default next to it is a SettingsError naming the clash)."""
    if settings is None:
        return method, level, cluster_se
    settings = resolve_settings(PPISettings, {"method": method, "level": level,
                                              "cluster_se": cluster_se}, settings, where=where)
    return settings.method, settings.level, settings.cluster_se


def _record(result: PPIResult, settings: PPISettings | None, cluster_se: str,
            where: str) -> PPIResult:
    """``result`` carrying the call's settings (built from its checked values when the call
    passed keywords)."""
    if settings is None:
        settings = resolve_settings(PPISettings, {
            "method": result.method, "level": result.level,
            "cluster_se": cluster_se}, None, where=where)
    return replace(result, settings=settings)


def _method(method: object) -> str:
    if method not in PPI_METHODS:
        raise VerdictError(f"method must be one of {', '.join(PPI_METHODS)}; got {method!r}")
    return str(method)


def _cluster_se(cluster_se: object, scores: Scores, what: str) -> str:
    """``cluster_se`` checked (CR2 or CR1, any case, as compare's setting); set to CR1 on scores
    without a cluster column it has no effect, and a warning says so."""
    key = cluster_se.upper() if isinstance(cluster_se, str) else cluster_se
    if key not in VCOVS:
        raise VerdictError(f"cluster_se must be one of {', '.join(VCOVS)} (the cluster-robust "
                           f"variance); got {cluster_se!r}")
    if key != "CR2" and not scores.has_cluster:
        warnings.warn(f"{what}: cluster_se={cluster_se!r} has no effect: the scores have no "
                      f"cluster column, so the items are treated as independent",
                      UserWarning, stacklevel=3)
    return str(key)


#: why the prediction-powered estimates cannot honour a ``prompt`` column
_PROMPT_WHY = ("the prediction-powered estimate reads one judge and one human score per item "
               "(means over the prompts) and treats the items as independent")


def ppi_mean(
    scores: Scores | object,
    *,
    system: str,
    dataset: str | None = None,
    metric: str | None = None,
    method: str = _DEFAULT.method,
    level: float = _DEFAULT.level,
    cluster_se: str = _DEFAULT.cluster_se,
    settings: PPISettings | None = None,
) -> PPIResult:
    """The prediction-powered estimate and confidence interval of ``system``'s mean human score.

    ``value`` is the judge's score of every item, ``human_value`` the human score of the
    labelled items (NaN elsewhere). With the n labelled and N unlabelled items of the system on
    ``dataset`` × ``metric`` (each may be left out when the scores hold only one)::

        θ̂_λ = λ · mean(judge, unlabelled) + mean(human − λ · judge, labelled)
        se² = λ² · σ̂²(judge, unlabelled) / N + σ̂²(human − λ · judge, labelled) / n

    (σ̂² with divisors N and n) and the interval θ̂ ± z_{(1+level)/2} · se. ``method``:
    ``"ppi++"`` (default; λ̂ = Ĉov(human, judge) / ((1 + n/N) · V̂ar(judge)), clipped to [0, 1],
    Angelopoulos, Duchi & Zrnic 2023), ``"ppi"`` (λ = 1, Angelopoulos et al., Science 2023) or
    ``"classical"`` (λ = 0: the human scores alone). Equal to ``ppi_py.ppi_mean_ci`` /
    ``ppi_mean_pointestimate`` / ``classical_mean_ci`` to 1e-10. With a ``cluster`` column the
    variance is cluster-robust (module docstring): ``cluster_se="CR2"`` (default; Bell–McCaffrey
    df) or ``"CR1"`` (t on C − 1 df), as ``compare``'s ``cluster_se``.

    Parameters
    ----------
    scores : Scores or pandas.DataFrame
        Judge scores in ``value``, human scores in ``human_value`` (NaN where unlabelled).
    system : str
        The system whose mean is estimated.
    dataset, metric : str, optional
        Needed when the scores hold several.
    method : {"ppi++", "ppi", "classical"}, default "ppi++"
        λ̂ tuned, λ = 1, or λ = 0.
    level : float, default 0.95
        Level of the interval.
    cluster_se : {"CR2", "CR1"}, default "CR2"
        The cluster-robust variance, with a ``cluster`` column.
    settings : PPISettings, optional
        A :class:`~ranger_eval.settings.PPISettings` instead of ``method``, ``level`` and
        ``cluster_se`` (a keyword other than its default next to it is a ``SettingsError``);
        the result carries the call's settings (``.settings``).

    Returns
    -------
    PPIResult
        A frozen :class:`~ranger_eval.stats.ppi.PPIResult` (``estimate``, ``se``, ``ci_low``,
        ``ci_high``, ``lam``, ``n_labelled``, ``n_unlabelled``, ``method``, ``signature`` …).

    Raises
    ------
    VerdictError
        Naming the dataset, metric and system when there is no ``human_value`` column, fewer
        than 2 human scores, or (PPI methods) fewer than 2 items without one.

    References
    ----------
    Angelopoulos, A. N., Bates, S., Fannjiang, C., Jordan, M. I. & Zrnic, T. (2023),
    "Prediction-powered inference", Science 382:669–674. Angelopoulos, A. N., Duchi, J. C. &
    Zrnic, T. (2023), "PPI++: Efficient prediction-powered inference", arXiv:2311.01453.

    Examples
    --------
    >>> import pandas as pd
    >>> import ranger_eval as rg
    >>> nan = float("nan")
    >>> df = pd.DataFrame({
    ...     "dataset": "d", "metric": "acc", "item": list(range(10)) * 2,
    ...     "system": ["A"] * 10 + ["B"] * 10,
    ...     "value": [.9, .7, .8, .6, .75, .85, .65, .7, .8, .9,
    ...               .6, .5, .7, .4, .55, .65, .45, .5, .6, .7],
    ...     "human_value": [1, 1, 1, 0, 1] + [nan] * 5 + [1, 0, 1, 0, 0] + [nan] * 5})
    >>> r = rg.ppi_mean(df, system="A")
    >>> round(r.estimate, 4), round(r.ci_low, 4), round(r.ci_high, 4), r.lam
    (0.83, 0.5281, 1.1319, 1.0)
    >>> d = rg.ppi_mean_difference(df, treatment="A", control="B")
    >>> round(d.estimate, 4), round(d.pvalue, 4), d.n_labelled, d.n_unlabelled
    (0.4, 0.0679, 5, 5)
    """
    given = settings
    method, level, cluster_se = _settings(method, level, cluster_se, settings, "ppi_mean")
    scores = as_scores(scores, what="ppi_mean", error=VerdictError)
    refuse_prompts(scores, where="ppi_mean", error=VerdictError, why=_PROMPT_WHY)
    method = _method(method)
    cluster_se = _cluster_se(cluster_se, scores, "ppi_mean")
    dataset, metric = _resolve(scores, dataset, metric)
    rows = judged_items(scores, dataset=dataset, metric=metric, system=str(system),
                        error=VerdictError)
    labelled = ~np.isnan(rows.human)
    what = f"system {system!r} on dataset {dataset!r}, metric {metric!r}"
    codes = item_cluster_codes(scores, dataset, rows.items)
    result = checked_ppi(rows.human[labelled], rows.value[labelled], rows.value[~labelled],
                         what=what, method=method, level=level, error=VerdictError,
                         clusters=None if codes is None else (codes[labelled],
                                                              codes[~labelled]),
                         vcov=cluster_se)
    return _record(_finish(replace(result, dataset=dataset, metric=metric,
                                   systems=(str(system),)), scores, codes, what),
                   given, cluster_se, "ppi_mean")


def _finish(result: PPIResult, scores: Scores, codes: np.ndarray | None,
            what: str) -> PPIResult:
    """``result`` with the scores' cluster field recorded (and the few-clusters warning)."""
    if codes is None:
        return result
    vcov = result.cluster_se or "CR2"
    if result.n_clusters < few_clusters(vcov):
        warnings.warn(few_clusters_message(what, result.n_clusters, vcov), UserWarning,
                      stacklevel=3)
    return replace(result, cluster=scores.cluster_name)


def ppi_mean_difference(
    scores: Scores | object,
    *,
    treatment: str,
    control: str,
    dataset: str | None = None,
    metric: str | None = None,
    method: str = _DEFAULT.method,
    level: float = _DEFAULT.level,
    cluster_se: str = _DEFAULT.cluster_se,
    settings: PPISettings | None = None,
) -> PPIResult:
    """The prediction-powered estimate and interval of the mean paired difference
    ``treatment − control`` of human scores, for two systems judged on the same items.

    Per item, H = human(treatment) − human(control) and D = judge(treatment) − judge(control);
    the labelled items are those where both systems have a human score. Then (module
    docstring: why this is the right estimator)::

        θ̂_λ = λ · mean(D, unlabelled) + mean(H − λ · D, labelled)
        se² = λ² · σ̂²(D, unlabelled) / N + σ̂²(H − λ · D, labelled) / n

    with λ as in :func:`ppi_mean` computed on (H, D); ``pvalue`` is the two-sided z test of no
    difference. Equal to ``ppi_py.ppi_mean_ci`` with the differences as Y / Yhat (1e-10).
    The two systems must have scored the same items (an item of one only is an error naming
    it); items where only one system has a human score count as unlabelled, in ``n_partial`` and
    a warning. ``cluster_se``: the cluster-robust variance with a ``cluster`` column, as
    :func:`ppi_mean`.

    Parameters
    ----------
    scores : Scores or pandas.DataFrame
        Judge scores in ``value``, human scores in ``human_value`` (NaN where unlabelled).
    treatment, control : str
        The two systems, judged on the same items.
    dataset, metric : str, optional
        Needed when the scores hold several.
    method : {"ppi++", "ppi", "classical"}, default "ppi++"
        As :func:`ppi_mean`.
    level : float, default 0.95
        Level of the interval.
    cluster_se : {"CR2", "CR1"}, default "CR2"
        The cluster-robust variance, with a ``cluster`` column.
    settings : PPISettings, optional
        A :class:`~ranger_eval.settings.PPISettings` instead of ``method``, ``level`` and
        ``cluster_se`` (a keyword other than its default next to it is a ``SettingsError``);
        the result carries the call's settings (``.settings``).

    Returns
    -------
    PPIResult
        ``estimate`` (treatment − control), ``se``, ``ci_low``/``ci_high``, ``pvalue``, ``lam``,
        ``n_labelled``, ``n_unlabelled``, ``n_partial``.

    Raises
    ------
    VerdictError
        No ``human_value`` column, items scored by one system only, too few labelled items.

    References
    ----------
    Angelopoulos, A. N., Bates, S., Fannjiang, C., Jordan, M. I. & Zrnic, T. (2023),
    "Prediction-powered inference", Science 382:669–674. Angelopoulos, Duchi & Zrnic (2023),
    "PPI++: Efficient prediction-powered inference", arXiv:2311.01453.

    Examples
    --------
    Two systems on eight items, five of them judged by humans for both systems:

    >>> import pandas as pd
    >>> import ranger_eval as rg
    >>> nan = float("nan")
    >>> df = pd.DataFrame({
    ...     "dataset": "d", "metric": "acc", "item": list(range(8)) * 2,
    ...     "system": ["A"] * 8 + ["B"] * 8,
    ...     "value": [.9, .8, .7, .85, .6, .75, .8, .7, .7, .6, .65, .6, .5, .55, .7, .6],
    ...     "human_value": [1, 1, 0, 1, 1] + [nan] * 3 + [0, 1, 0, 0, 1] + [nan] * 3})
    >>> d = rg.ppi_mean_difference(df, treatment="A", control="B")
    >>> round(d.estimate, 4), round(d.ci_low, 4), round(d.ci_high, 4), round(d.pvalue, 4)
    (0.3733, -0.0158, 0.7625, 0.0601)
    >>> d.n_labelled, d.n_unlabelled, d.n_partial
    (5, 3, 0)
    """
    given = settings
    method, level, cluster_se = _settings(method, level, cluster_se, settings, "ppi_mean_difference")
    scores = as_scores(scores, what="ppi_mean_difference", error=VerdictError)
    refuse_prompts(scores, where="ppi_mean_difference", error=VerdictError, why=_PROMPT_WHY)
    method = _method(method)
    cluster_se = _cluster_se(cluster_se, scores, "ppi_mean_difference")
    if treatment == control:
        raise VerdictError(f"treatment and control are the same system {treatment!r}")
    dataset, metric = _resolve(scores, dataset, metric)
    where = f"dataset {dataset!r}, metric {metric!r}"
    t = judged_items(scores, dataset=dataset, metric=metric, system=str(treatment),
                     error=VerdictError)
    c = judged_items(scores, dataset=dataset, metric=metric, system=str(control),
                     error=VerdictError)
    pair = align_pair(t, c, treatment=str(treatment), control=str(control), where=where,
                      error=VerdictError)  # in the treatment's item order
    n_partial = pair.n_partial
    if n_partial:
        warnings.warn(
            f"ppi_mean_difference({treatment!r} − {control!r}, {where}): {n_partial} item(s) "
            f"have a human score for only one of the two systems; they count as unlabelled "
            f"(their judge difference is used, their one human score is not)",
            UserWarning, stacklevel=2)
    what = f"the difference {treatment!r} − {control!r} on {where}"
    codes = item_cluster_codes(scores, dataset, t.items)
    result = pair.difference(what=what, method=method, level=level, error=VerdictError,
                             clusters=codes, vcov=cluster_se)
    return _record(_finish(replace(result, dataset=dataset, metric=metric,
                                   systems=(str(treatment), str(control)),
                                   n_partial=n_partial), scores, codes, what),
                   given, cluster_se, "ppi_mean_difference")
