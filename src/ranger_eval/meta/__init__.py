"""Meta-analysis models, heterogeneity, moderators, subgroups, prediction intervals, leave-one-out
and Egger's regression test (metafor-exact).

The intercept-only random-effects model ``y_i = mu + u_i + e_i`` with ``u_i ~ N(0, tau2)`` and
``e_i ~ N(0, v_i)`` is fitted exactly as ``metafor::rma.uni`` (Viechtbauer 2010, J. Stat. Softw. 36(3);
estimators reviewed in Viechtbauer 2005, J. Educ. Behav. Stat. 30(3), and Veroniki et al. 2016).
Every number reproduces metafor 3.8 to ~1e-10; see ``tests/oracles/metafor_meta.R`` and
``tests/oracles/metafor_modreg.R``.

Notation: ``w_i = 1/v_i`` (fixed-effect weights), ``W = sum w_i``, ``ybar`` the unweighted mean,
``mu(t)`` the weighted mean with weights ``1/(v_i + t)`` and ``Q(t) = sum (y_i - mu(t))^2/(v_i + t)``
(the generalised Q statistic, Q = Q(0)), ``trP = W - sum w_i^2 / W`` (computed without
cancellation, see ``tau2._traces``).

The parts, each importable alone, one way only (no module imports one above it):

* :mod:`._distributions` normal, t, χ² and F quantiles and tails on ``scipy.special``;
* :mod:`.tau2` the τ² estimators of the intercept-only model and the Fisher-scoring loop;
* :mod:`.fit` the intercept-only fit, its Q-profile intervals, extreme inputs;
* :mod:`.regression` the meta-regression fit (QR-based weighted least squares, QM, QE, R²);
* :mod:`.design` moderators → the design matrix (R's ``model.matrix``);
* :mod:`.inputs` validation of effects, variances, method, test, level and study names;
* :mod:`.results` :class:`MetaResult`, :class:`MetaRegressionResult`, :class:`TransformedSummary`;
* :mod:`.analysis` :func:`meta_analysis`;
* :mod:`.subgroups` :func:`subgroup_analysis` and :class:`SubgroupResult`;
* :mod:`.bias` small-study effects: :func:`regtest` (Egger's test) and :class:`RegTestResult`.

The formulas, their sources and the degenerate cases are in the docstring of each module.
"""
from ..errors import ConvergenceError, MetaInputError
from .analysis import meta_analysis
from .bias import REGTEST_MODELS as REGTEST_MODELS
from .bias import REGTEST_PREDICTORS as REGTEST_PREDICTORS
from .bias import RegTestResult, regtest
from .fit import VI_MIN as VI_MIN
from .fit import Y_SPREAD_MAX as Y_SPREAD_MAX
from .inputs import METHODS as METHODS
from .inputs import TESTS as TESTS
from .inputs import VI_RATIO_MAX as VI_RATIO_MAX
from .results import MetaRegressionResult, MetaResult, TransformedSummary
from .subgroups import SubgroupResult, subgroup_analysis
from .tau2 import MAXITER as MAXITER
from .tau2 import THRESHOLD as THRESHOLD

__all__ = [
    "ConvergenceError",
    "MetaInputError",
    "MetaRegressionResult",
    "MetaResult",
    "RegTestResult",
    "SubgroupResult",
    "TransformedSummary",
    "meta_analysis",
    "regtest",
    "subgroup_analysis",
]
