"""Small-study effects: Egger's regression test for funnel-plot asymmetry.

Small-study effects (:func:`regtest`; Egger et al. 1997, Sterne & Egger 2005): metafor's
``regtest``, by default the standard error added as a moderator to the fitted model.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ..errors import MetaInputError, suggest
from ..formatting import format_level
from ..signature import Signature, make_signature
from .analysis import _meta_regression
from .regression import _wald, _wls
from .results import MetaRegressionResult, MetaResult, _jsonable, _p_txt, _ResultText

# --------------------------------------------------------------------------------------------
# small-study effects: Egger's regression test (metafor ``regtest``)
# --------------------------------------------------------------------------------------------
REGTEST_MODELS = ("rma", "lm")
REGTEST_PREDICTORS = ("sei", "vi", "ni", "ninv", "sqrtni", "sqrtninv")
_PREDICTOR_TEXT = {
    "sei": "standard error", "vi": "sampling variance", "ni": "sample size",
    "ninv": "inverse of the sample size", "sqrtni": "square root sample size",
    "sqrtninv": "inverse of the square root sample size",
}


@dataclass(frozen=True)
class RegTestResult(_ResultText):
    """Regression test for funnel-plot asymmetry (Egger et al. 1997; Sterne & Egger 2005), as
    metafor's ``regtest``.

    ``model="rma"`` (default) adds the ``predictor`` (default the standard error ``sei``) as a
    moderator to the fitted model (same method, test and level) and tests its coefficient:
    ``statistic`` is z (``df`` None) or t with ``df = k - p - 1``; ``slope`` is the predictor's
    coefficient (the "bias" of Egger's test). ``model="lm"`` is Egger's
    original weighted regression ``lm(yi ~ X + sei, weights = 1/vi)`` (t with k - p - 1 df).
    ``limit_estimate`` [``limit_ci_low``, ``limit_ci_high``] is the intercept, the estimate as
    the predictor → 0 ("limit estimate"), for the predictors sei, vi, ninv and sqrtninv of a model
    without moderators (None otherwise, as metafor). ``fit`` is the fitted meta-regression
    (``model="rma"``).
    """

    model: str
    predictor: str
    statistic: float
    df: int | None
    pvalue: float
    slope: float
    limit_estimate: float | None
    limit_ci_low: float | None
    limit_ci_high: float | None
    fit: MetaRegressionResult | None
    k: int
    method: str
    test: str
    level: float
    measure: str | None = None

    @property
    def signature(self) -> Signature:
        return make_signature("meta", {
            "measure": self.measure, "method": self.method,
            "test": self.test if self.model == "rma" else "t", "level": self.level, "k": self.k,
            "method_detail": f"regtest({self.model},{self.predictor})",
        })

    def to_dict(self) -> dict[str, Any]:
        d = {
            "model": self.model, "predictor": self.predictor, "statistic": self.statistic,
            "df": self.df, "pvalue": self.pvalue, "slope": self.slope,
            "limit_estimate": self.limit_estimate,
            "limit_ci_low": self.limit_ci_low, "limit_ci_high": self.limit_ci_high, "k": self.k,
            "method": self.method, "test": self.test, "level": self.level,
            "measure": self.measure, "signature": str(self.signature),
        }
        return {key: _jsonable(val) for key, val in d.items()}

    def summary(self) -> str:
        """Text in the layout of metafor's ``print.regtest``."""
        if self.model == "lm":
            model = "weighted regression with multiplicative dispersion"
        elif self.method in ("FE", "EE"):
            model = "fixed-effects meta-regression model"
        else:
            model = "mixed-effects meta-regression model"
        if self.df is None:
            stat = f"z = {self.statistic:.4f}"
        else:
            stat = f"t = {self.statistic:.4f}, df = {self.df}"
        lines = ["Regression Test for Funnel Plot Asymmetry", "",
                 f"Model:     {model}", f"Predictor: {_PREDICTOR_TEXT[self.predictor]}", "",
                 f"Test for Funnel Plot Asymmetry: {stat}, p {_p_txt(self.pvalue)}"]
        if self.limit_estimate is not None:
            pct = format_level(self.level)
            lines.append(f"Limit Estimate (as {self.predictor} -> 0):   b = "
                         f"{self.limit_estimate:.4f} ({pct} CI: {self.limit_ci_low:.4f}, "
                         f"{self.limit_ci_high:.4f})")
        lines += ["", str(self.signature)]
        return "\n".join(lines)



def regtest(
    result: MetaResult | MetaRegressionResult,
    *,
    model: str = "rma",
    predictor: str = "sei",
    ni: Any = None,
) -> RegTestResult:
    """Egger's regression test for funnel-plot asymmetry of a fitted model (metafor ``regtest``;
    see :class:`RegTestResult`). ``ni`` gives sample sizes for the predictors ni, ninv, sqrtni,
    sqrtninv (default: ``result.effects.n``).

    Parameters
    ----------
    result : MetaResult or MetaRegressionResult
        The fitted model (its method, test and level are reused).
    model : {"rma", "lm"}, default "rma"
        Add the predictor as a moderator to the fitted model ("rma"), or Egger's original weighted
        regression ``lm(yi ~ X + sei, weights = 1/vi)`` ("lm").
    predictor : {"sei", "vi", "ni", "ninv", "sqrtni", "sqrtninv"}, default "sei"
        The predictor of the asymmetry: standard error, variance, or a function of sample size.
    ni : array_like, optional
        Sample sizes for the ``ni``-based predictors (default ``result.effects.n``).

    Returns
    -------
    RegTestResult
        ``statistic`` (z, or t with ``df``), ``pvalue``, ``slope`` (the "bias") and the limit
        estimate as the predictor → 0 with its interval.

    Raises
    ------
    MetaInputError
        An unknown model or predictor, or sample sizes that are missing for an ``ni`` predictor.

    References
    ----------
    Egger, M., Davey Smith, G., Schneider, M. & Minder, C. (1997), "Bias in meta-analysis detected
    by a simple, graphical test", BMJ 315:629–634. Sterne, J. A. C. & Egger, M. (2005), "Regression
    methods to detect publication and other bias in meta-analysis", in *Publication Bias in
    Meta-Analysis*, Wiley. metafor's ``regtest``.

    Examples
    --------
    >>> import ranger_eval as rg
    >>> m = rg.meta_analysis([0.10, 0.30, 0.25, 0.05, 0.40], [0.01, 0.02, 0.015, 0.01, 0.03])
    >>> r = rg.regtest(m)
    >>> round(r.statistic, 4), round(r.pvalue, 5), r.df
    (2.1332, 0.03291, None)
    >>> round(r.limit_estimate, 4)
    -0.3947
    """
    if not isinstance(result, (MetaResult, MetaRegressionResult)):
        raise MetaInputError(
            f"regtest needs a fitted MetaResult or MetaRegressionResult, got {type(result).__name__}"
        )
    if not isinstance(model, str) or model not in REGTEST_MODELS:
        raise MetaInputError(f"unknown regtest model {model!r}; valid: {', '.join(REGTEST_MODELS)}"
                             + suggest(str(model), REGTEST_MODELS))
    if not isinstance(predictor, str) or predictor not in REGTEST_PREDICTORS:
        raise MetaInputError(
            f"unknown regtest predictor {predictor!r}; valid: {', '.join(REGTEST_PREDICTORS)}"
            + suggest(str(predictor), REGTEST_PREDICTORS)
        )
    y = np.asarray(result.yi, dtype=float)
    v = np.asarray(result.vi, dtype=float)
    k = y.size
    if isinstance(result, MetaRegressionResult):
        X0, names0 = np.asarray(result.X), result.coef_names
    else:
        X0, names0 = np.ones((k, 1)), ("intrcpt",)
    p = X0.shape[1]
    if k < p + 2:
        raise MetaInputError(
            f"regtest needs at least {p + 2} studies for a model with {p} coefficient(s) plus the "
            f"predictor; there are {k}"
        )
    col, cname = _predictor_column(predictor, v, ni, result.effects)
    X = np.column_stack([X0, col])
    unit = X / np.linalg.norm(X, axis=0)
    if np.linalg.matrix_rank(unit, tol=1e-9) < X.shape[1]:
        raise MetaInputError(
            f"regtest: the design is no longer of full rank after adding the predictor "
            f"{predictor!r} (e.g. all sampling variances are equal); the test is undefined"
        )
    method = "FE" if result.method == "EE" else result.method
    limit = predictor in ("sei", "vi", "ninv", "sqrtninv") and p == 1
    fit: MetaRegressionResult | None = None
    if model == "rma":
        fit = _meta_regression(
            y.copy(), v.copy(), method=method, test=result.test, level=result.level,
            names=result.names, measure=result.measure, effects=result.effects,
            method_label=result.method,
            design=(X, (*names0, cname), (*getattr(result, "moderators", ()), cname)),
        )
        stat, pval, slope = float(fit.statistic[p]), float(fit.pvalue[p]), float(fit.estimate[p])
        df = fit.df
        est, lo, hi = (float(fit.estimate[0]), float(fit.ci_low[0]), float(fit.ci_high[0]))
    else:  # Egger's weighted least squares with a free dispersion: t with k - p - 1 df
        f = _wls(X, y, 1.0 / v)
        df = k - p - 1
        sigma2 = f.rss / df
        se = np.sqrt(np.diag(f.vb()) * sigma2)
        stat_a, pval_a, lo_a, hi_a = _wald(f.beta, se, "t", df, result.level)
        stat, pval, slope = float(stat_a[p]), float(pval_a[p]), float(f.beta[p])
        est, lo, hi = float(f.beta[0]), float(lo_a[0]), float(hi_a[0])
    return RegTestResult(
        model=model, predictor=predictor, statistic=stat, df=df, pvalue=pval, slope=slope,
        limit_estimate=est if limit else None, limit_ci_low=lo if limit else None,
        limit_ci_high=hi if limit else None, fit=fit, k=k, method=result.method,
        test=result.test, level=result.level, measure=result.measure,
    )


def _predictor_column(predictor: str, v: np.ndarray, ni: Any, effects: Any
                      ) -> tuple[np.ndarray, str]:
    """The column regtest adds to the model and its coefficient name (metafor's): ``sqrt(vi)``,
    ``vi``, or from the sample sizes (``ni``, else ``effects.n``) ``n``, ``1/n``, ``sqrt(n)``,
    ``1/sqrt(n)``."""
    if predictor == "sei":
        return np.sqrt(v), "sei"
    if predictor == "vi":
        return v.copy(), "vi"
    if ni is None:
        ni = getattr(effects, "n", None) if effects is not None else None
        if ni is None:
            raise MetaInputError(
                f"predictor {predictor!r} needs sample sizes: pass ni=, or fit the model on an "
                "EffectSizes with n"
            )
    n = np.asarray(ni, dtype=float).reshape(-1)
    if n.size != v.size or not np.all(np.isfinite(n)) or np.any(n <= 0):
        raise MetaInputError(
            f"predictor {predictor!r}: sample sizes must be {v.size} finite numbers > 0, got {n!r}"
        )
    return {"ni": (n, "ni"), "ninv": (1.0 / n, "ninv"), "sqrtni": (np.sqrt(n), "ni"),
            "sqrtninv": (1.0 / np.sqrt(n), "ni")}[predictor]
