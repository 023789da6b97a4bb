"""``meta_analysis``: validate the inputs, fit the model (with moderators: the meta-regression)
and return its frozen result.

The intercept-only random-effects model ``y_i = mu + u_i + e_i`` with ``u_i ~ N(0, tau2)`` and
``e_i ~ N(0, v_i)`` is fitted exactly as ``metafor::rma.uni`` (Viechtbauer 2010, J. Stat. Softw. 36(3);
estimators reviewed in Viechtbauer 2005, J. Educ. Behav. Stat. 30(3), and Veroniki et al. 2016).
Every number below reproduces metafor 3.8 to ~1e-10; see ``tests/oracles/metafor_meta.R`` and
``tests/oracles/metafor_modreg.R``.
"""
from __future__ import annotations

import math
import warnings
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, overload

import numpy as np

from ..errors import MetaInputError, SettingsError
from ..settings import MetaSettings, check_value, resolve_settings
from .design import _design
from .fit import _fit, _qprofile_ci, _standardise, _unscale
from .inputs import _validate
from .regression import _fit_mods, _qe
from .results import MetaRegressionResult, MetaResult

if TYPE_CHECKING:  # pragma: no cover - typing only
    import pandas as pd


def _meta_regression(
    y: np.ndarray, v: np.ndarray, *, method: str, test: str, level: float,
    names: tuple[str, ...], measure: str | None, effects: Any, method_label: str,
    moderators: Any = None, design: tuple[np.ndarray, tuple[str, ...], tuple[str, ...]] | None = None,
) -> MetaRegressionResult:
    """The meta-regression of validated ``y``/``v`` on ``moderators`` (or on a ready ``design``:
    ``(X, coefficient names, moderator names)``), labelled ``method_label`` (EE stays EE)."""
    X, coef_names, mod_names = _design(moderators, names, effects) if design is None else design
    k, p = X.shape
    fit = _fit_mods(y, v, X, method, test, level)
    tau2_ci, i2_ci = _qprofile_ci(y, v, fit.tau2, fit.vt, level,
                                  qfun=lambda t: _qe(t, y, v, X), p=p)
    arrays: dict[str, Any] = {
        "estimate": fit.beta, "se": fit.se, "statistic": fit.stat, "pvalue": fit.pval,
        "ci_low": fit.ci_low, "ci_high": fit.ci_high, "vcov": fit.vb, "yi": y, "vi": v, "X": X,
        "weights": fit.weights, "fitted": fit.fitted,
    }
    for arr in arrays.values():
        arr.setflags(write=False)
    return MetaRegressionResult(
        coef_names=coef_names, tau2=fit.tau2, tau=math.sqrt(fit.tau2), I2=fit.I2, H2=fit.H2,
        R2=fit.R2, tau2_0=fit.tau2_0, tau2_ci=tau2_ci, I2_ci=i2_ci, QE=fit.QE, QE_df=k - p,
        QE_pvalue=fit.QE_pvalue, QM=fit.QM, QM_df=p - 1, QM_ddf=None if test == "z" else k - p,
        QM_pvalue=fit.QM_pvalue, k=k, p=p, method=method_label, test=test, level=level,
        names=names, moderators=mod_names, measure=measure, effects=effects, vt=fit.vt,
        **arrays,
    )


#: the defaults of meta_analysis' keywords: those of its settings object (one place)
_DEFAULT = MetaSettings()


@overload
def meta_analysis(
    yi: Any, vi: Any = ..., *, method: str = ..., test: str = ..., level: float = ...,
    names: Sequence[Any] | None = ..., moderators: None = ..., margin: float | None = ...,
    higher_is_better: bool = ..., settings: MetaSettings | None = ...,
) -> MetaResult: ...


@overload
def meta_analysis(
    yi: Any, vi: Any = ..., *, method: str = ..., test: str = ..., level: float = ...,
    names: Sequence[Any] | None = ...,
    moderators: pd.DataFrame | pd.Series | Mapping[str, Any] | str | Sequence[str],
    margin: None = ..., higher_is_better: bool = ..., settings: MetaSettings | None = ...,
) -> MetaRegressionResult: ...


def meta_analysis(
    yi: Any,
    vi: Any = None,
    *,
    method: str = _DEFAULT.method,
    test: str = _DEFAULT.test,
    level: float = _DEFAULT.level,
    names: Sequence[Any] | None = None,
    moderators: Any = None,
    margin: float | None = _DEFAULT.margin,
    higher_is_better: bool = True,
    settings: MetaSettings | None = None,
) -> MetaResult | MetaRegressionResult:
    """Fit a fixed- or random-effects meta-analysis exactly as ``metafor::rma.uni``.

    y_i = mu + u_i + e_i with u_i ~ N(0, tau²) and e_i ~ N(0, v_i); mu is the inverse-variance
    weighted mean with weights 1 / (v_i + tau²) (tau² = 0 for ``method="FE"``). Formulas: see the
    module docstring.

    Parameters
    ----------
    yi : array_like or EffectSizes
        Effect sizes, or an ``EffectSizes`` (its ``names``, ``measure`` are used and it is stored
        in ``effects``; ``vi`` must then be None).
    vi : array_like, optional
        Sampling variances (finite, > 0); required unless ``yi`` is an ``EffectSizes``.
    method : {"FE", "EE", "DL", "HE", "HS", "SJ", "ML", "REML", "EB", "PM"}, default "REML"
        Estimator of tau² ("FE", alias "EE": a fixed/equal-effects model).
    test : {"z", "t", "knha"}, default "z"
        z, t with k-1 df, or Knapp–Hartung / HKSJ.
    level : float, default 0.95
        Confidence level in (0, 1) for the CI, PI and the τ²/I² CIs.
    names : sequence, optional
        Study labels (default "1".."k", or the EffectSizes' names); repeated labels are
        numbered like metafor's ``slab`` ("a", "a" → "a.1", "a.2").
    moderators : DataFrame, mapping, str or sequence of str, optional
        Fit a meta-regression instead (``rma(yi, vi, mods = ~ ...)``) and return a
        :class:`MetaRegressionResult`. A pandas DataFrame (one row per study: in study order with
        the default index, else matched to the study names by its index), a mapping column name →
        one value per study, or with an ``EffectSizes`` input a column name or list of names of its
        ``extra`` table (or ``n``, ``mean_control``, ``mean_treatment``). Numeric columns enter as
        they are; strings, booleans and pandas Categoricals are categorical: treatment-coded
        dummies with the first level (a Categorical's first category, else the first in sorted
        order; ``False`` for booleans) as reference, named ``column + level`` as R's
        ``model.matrix`` (``allocrandom``; ``xTRUE``). Every estimator works with moderators
        (metafor's ``rma.uni`` allows them all); k must exceed the number of coefficients p, and
        missing values, constant or redundant columns are errors (metafor drops such studies or
        columns with a warning).
    margin : float, optional
        A margin of equivalence / non-inferiority (> 0, in the effect measure's units): the
        result's :attr:`~MetaResult.verdict` says whether the confidence interval, and separately
        the prediction interval, lies within ±margin (:mod:`ranger_eval.meta.verdict`); not
        with ``moderators``.
    higher_is_better : bool, default True
        False (the effect of a lower-is-better metric) makes non-inferiority an upper bound below
        +margin.
    settings : MetaSettings, optional
        A :class:`~ranger_eval.settings.MetaSettings` instead of ``method``, ``test``,
        ``level`` and ``margin`` (the settings of ``ranger-eval meta``; its other fields, which
        choose and compute the effects (``control``, ``treatment``, ``measure``, ``metric_fn``,
        ``n_resamples``, ``seed``, ``seeds``, ``degenerate``) or order the rows (``order``), are
        not the model's and are ignored here). The result carries the settings object of the call
        (``.settings``).

    Returns
    -------
    MetaResult or MetaRegressionResult
        ``estimate``, ``se``, ``ci_low``/``ci_high``, ``statistic``, ``pvalue``, ``tau2``, ``I2``,
        ``H2``, ``Q`` with ``Q_pvalue``, ``pi_low``/``pi_high`` (prediction interval), ``weights``,
        ``settings``; with ``moderators`` the coefficients of the meta-regression.

    Raises
    ------
    MetaInputError
        Bad effects or variances, a bad setting, a keyword other than its default next to
        ``settings`` (naming the clash), or ``margin`` with ``moderators``.

    References
    ----------
    Viechtbauer, W. (2010), "Conducting meta-analyses in R with the metafor package", Journal of
    Statistical Software 36(3). Viechtbauer, W. (2005), "Bias and efficiency of meta-analytic
    variance estimators in the random-effects model", Journal of Educational and Behavioral
    Statistics 30(3). Borenstein, M., Hedges, L. V., Higgins, J. P. T. & Rothstein, H. R. (2009),
    *Introduction to Meta-Analysis*, Wiley, ch. 11–16, 19–20. metafor's ``rma.uni``,
    ``predict.rma``, ``confint.rma.uni``.

    Examples
    --------
    >>> import ranger_eval as rg
    >>> m = rg.meta_analysis([0.10, 0.30, 0.25, 0.05, 0.40], [0.01, 0.02, 0.015, 0.01, 0.03])
    >>> round(m.estimate, 4), round(m.ci_low, 4), round(m.ci_high, 4), round(m.pvalue, 5)
    (0.1791, 0.0618, 0.2963, 0.00276)
    >>> round(m.tau2, 4), round(m.pi_low, 4), round(m.pi_high, 4), m.k
    (0.0032, 0.0176, 0.3406, 5)
    >>> round(rg.meta_analysis([0.10, 0.30], [0.01, 0.02], method="FE").estimate, 4)
    0.1667
    """
    if settings is not None:  # the object's values, once the keywords are seen not to clash
        settings = _meta_settings(method, test, level, margin, settings)
        method, test, level, margin = (settings.method, settings.test, settings.level,
                                       settings.margin)
    y, v, method_c, test_c, level_f, names_t, measure, effects = _validate(
        yi, vi, method, test, level, names
    )
    if not isinstance(higher_is_better, (bool, np.bool_)):
        raise MetaInputError(f"higher_is_better: must be True or False; got {higher_is_better!r}")
    if margin is not None:
        try:
            margin = check_value(MetaSettings, "margin", margin)
        except SettingsError as exc:
            raise MetaInputError(str(exc)) from None
        if moderators is not None:
            raise MetaInputError("margin: a meta-regression has no single summary effect to "
                                 "judge against a margin; leave margin out with moderators")
    if moderators is not None:
        method_label = "EE" if method.upper() == "EE" else method_c
        res = _meta_regression(y, v, method=method_c, test=test_c, level=level_f, names=names_t,
                               measure=measure, effects=effects, method_label=method_label,
                               moderators=moderators)
        object.__setattr__(res, "settings", settings or _meta_settings(
            method, test_c, level_f, margin, None))
        return res
    if y.size == 1 and test_c != "z":
        warnings.warn(f"k = 1: using test='z' instead of {test_c!r} (as metafor)", UserWarning,
                      stacklevel=2)
    y2, v2, c, a = _standardise(y, v, names_t)
    fit = _fit(y2, v2, method_c, test_c, level_f)
    tau2_ci, i2_ci = _qprofile_ci(y2, v2, fit.tau2, fit.vt, level_f)
    if c != 0.0 or a != 1.0:
        fit = _unscale(fit, c, a, level_f)
        tau2_ci = (tau2_ci[0] * a * a, tau2_ci[1] * a * a)
    y.setflags(write=False)
    v.setflags(write=False)
    weights = fit.weights
    weights.setflags(write=False)
    result = MetaResult(
        estimate=fit.estimate, se=fit.se, ci_low=fit.ci_low, ci_high=fit.ci_high,
        statistic=fit.statistic, pvalue=fit.pvalue, tau2=fit.tau2, tau=math.sqrt(fit.tau2),
        I2=fit.I2, H2=fit.H2, Q=fit.Q, Q_df=fit.Q_df, Q_pvalue=fit.Q_pvalue, pi_low=fit.pi_low,
        pi_high=fit.pi_high, weights=weights, tau2_ci=tau2_ci, I2_ci=i2_ci, k=int(y.size),
        method="EE" if method.upper() == "EE" else method_c, test=fit.test, level=level_f,
        names=names_t, yi=y, vi=v, measure=measure, effects=effects, vt=fit.vt,
        margin=margin, higher_is_better=bool(higher_is_better),
        settings=settings or _meta_settings(method, test_c, level_f, margin, None),
    )
    if result.few_datasets_caution is not None:
        warnings.warn(result.few_datasets_caution, UserWarning, stacklevel=2)
    return result


def _meta_settings(method: str, test: str, level: float, margin: float | None,
                   settings: MetaSettings | None, *, where: str = "meta_analysis") -> MetaSettings:
    """The one settings object of a :func:`meta_analysis` call (``resolve_settings``; the
    keywords are checked, with meta's own messages, by ``_validate``); an error is a
    :class:`~ranger_eval.errors.MetaInputError` naming the key, as meta's others are."""
    try:
        return resolve_settings(MetaSettings, {"method": method, "test": test, "level": level,
                                               "margin": margin}, settings,
                                where=where)
    except SettingsError as exc:
        raise MetaInputError(str(exc)) from None
