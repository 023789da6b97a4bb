"""Subgroup analysis: one model per subgroup and two tests of subgroup differences.

Subgroups (:func:`subgroup_analysis`, Borenstein et al. 2009, ch. 19): one model per subgroup,
the fixed-effect Q between the subgroup summaries (separate τ² per subgroup), and the mixed-effects
meta-regression on the subgroup dummies (common τ²) with its QM.
"""
from __future__ import annotations

import math
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

import numpy as np

from ..errors import MetaInputError
from ..formatting import format_level
from ..settings import MetaSettings
from ..signature import Signature, make_signature
from ._distributions import _chi2_sf
from .analysis import _meta_regression, _meta_settings, meta_analysis
from .design import _align, _effects_column, _is_missing, _levels
from .inputs import _validate
from .results import (
    MetaRegressionResult,
    MetaResult,
    _jsonable,
    _p_txt,
    _pval_cell,
    _qm_line,
    _ResultText,
    _sig_fields,
    _table,
)
from .tau2 import _q_gen

if TYPE_CHECKING:  # pragma: no cover - typing only
    import pandas as pd

    from ..effects import EffectSizes


# --------------------------------------------------------------------------------------------
# subgroup analysis (Borenstein et al. 2009, ch. 19)
# --------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class SubgroupResult(_ResultText):
    """Subgroup analysis: one model per subgroup and two tests of subgroup differences.

    ``fits`` maps each subgroup (in ``groups`` order) to its own :class:`MetaResult` (same method,
    test and level; each subgroup with its own τ²).

    ``Q_between`` (``Q_between_df = G - 1``, χ²) is the test of Borenstein et al. (2009, ch. 19,
    "separate estimates of τ²"): the fixed-effect Q of the G subgroup summaries with their
    standard errors, ``Σ_g (μ_g - μ̄)²/se_g²`` with ``μ̄ = Σ μ_g/se_g² / Σ 1/se_g²`` (metafor:
    ``rma(estimate, sei = se, method = "FE")$QE`` on the subgroup fits). ``Q_within`` (df k - G) is
    the sum of the subgroups' fixed-effect Q statistics.

    ``regression`` is the mixed-effects meta-regression on the subgroup dummies with one common
    τ² (metafor ``rma(yi, vi, mods = ~ factor(group), method, test)``); its omnibus ``QM``
    (``QM_df = G - 1``; χ² for ``test="z"``, else F(G-1, k-G)) is the other test of differences
    ("pooled estimate of τ²"). It is None when k ≤ G (no residual degrees of freedom).
    """

    groups: tuple[str, ...]
    fits: Mapping[str, MetaResult]
    membership: tuple[str, ...]
    Q_between: float
    Q_between_df: int
    Q_between_pvalue: float
    Q_within: float
    Q_within_df: int
    Q_within_pvalue: float
    regression: MetaRegressionResult | None
    k: int
    method: str
    test: str
    level: float
    names: tuple[str, ...]
    variable: str
    measure: str | None = None
    effects: EffectSizes | None = None
    #: the settings object of the call that made this result (:func:`subgroup_analysis`)
    settings: MetaSettings | None = field(default=None, compare=False, repr=False)

    @property
    def QM(self) -> float | None:
        """Test of subgroup differences with a common τ² (the meta-regression's QM)."""
        return None if self.regression is None else self.regression.QM

    @property
    def QM_pvalue(self) -> float | None:
        return None if self.regression is None else self.regression.QM_pvalue

    @property
    def signature(self) -> Signature:
        return make_signature("meta", _sig_fields({
            "measure": self.measure, "method": self.method, "test": self.test,
            "level": self.level, "k": self.k, "mods": f"subgroups({self.variable})",
        }))

    def to_frame(self) -> pd.DataFrame:
        """One row per subgroup: group, k, estimate, se, ci_low, ci_high, pvalue, tau2, I2, Q,
        Q_df, Q_pvalue, pi_low, pi_high."""
        import pandas as pd

        rows = []
        for g in self.groups:
            r = self.fits[g]
            rows.append({"group": g, "k": r.k, "estimate": r.estimate, "se": r.se,
                         "ci_low": r.ci_low, "ci_high": r.ci_high, "pvalue": r.pvalue,
                         "tau2": r.tau2, "I2": r.I2, "Q": r.Q, "Q_df": r.Q_df,
                         "Q_pvalue": r.Q_pvalue, "pi_low": r.pi_low, "pi_high": r.pi_high})
        return pd.DataFrame(rows)

    def to_dict(self) -> dict[str, Any]:
        """JSON-serialisable dict: the tests, each subgroup's fit and the regression."""
        d: dict[str, Any] = {
            "groups": list(self.groups), "variable": self.variable,
            "membership": list(self.membership), "Q_between": self.Q_between,
            "Q_between_df": self.Q_between_df, "Q_between_pvalue": self.Q_between_pvalue,
            "Q_within": self.Q_within, "Q_within_df": self.Q_within_df,
            "Q_within_pvalue": self.Q_within_pvalue, "QM": self.QM, "QM_pvalue": self.QM_pvalue,
            "k": self.k, "method": self.method, "test": self.test, "level": self.level,
            "names": list(self.names), "measure": self.measure,
            "signature": str(self.signature),
        }
        out = {key: _jsonable(val) for key, val in d.items()}
        out["fits"] = {g: self.fits[g].to_dict() for g in self.groups}
        out["regression"] = None if self.regression is None else self.regression.to_dict()
        return out

    def summary(self, digits: int = 4) -> str:
        """Per-subgroup table and the tests of subgroup differences."""
        def f(x: float) -> str:
            return f"{x:.{digits}f}"

        pct_s = format_level(self.level)
        model = ("Fixed-effects" if self.method == "FE" else "Equal-effects"
                 if self.method == "EE" else f"Random-effects (tau^2 estimator: {self.method})")
        lines = [f"Subgroup analysis by {self.variable} (k = {self.k}; {model} per subgroup)"]
        if self.measure:
            lines.append(f"Measure: {self.measure}")
        lines.append("")
        header = ["group", "k", "estimate", "se", "ci.lb", "ci.ub", "pval", "tau^2", "I^2"]
        rows = []
        for g in self.groups:
            r = self.fits[g]
            rows.append([g, str(r.k), f(r.estimate), f(r.se), f(r.ci_low), f(r.ci_high),
                         _pval_cell(r.pvalue), f(r.tau2),
                         f"{r.I2:.2f}%"])
        lines += _table(rows, header)
        lines += ["", f"({pct_s} CIs; test: {self.test})", "",
                  "Test of subgroup differences (separate tau^2 per subgroup):",
                  f"Q_between(df = {self.Q_between_df}) = {f(self.Q_between)}, "
                  f"p-val {_p_txt(self.Q_between_pvalue)}"]
        reg = self.regression
        if reg is not None:
            lines.append("Test of subgroup differences (meta-regression, common tau^2):")
            lines.append(_qm_line(reg, f))
        lines += [f"Q_within(df = {self.Q_within_df}) = {f(self.Q_within)}, "
                  f"p-val {_p_txt(self.Q_within_pvalue)}", "", str(self.signature)]
        return "\n".join(lines)



#: the defaults of subgroup_analysis' keywords: those of its settings object (one place)
_DEFAULT = MetaSettings()


def subgroup_analysis(
    yi: Any,
    vi: Any = None,
    groups: Any = None,
    *,
    method: str = _DEFAULT.method,
    test: str = _DEFAULT.test,
    level: float = _DEFAULT.level,
    names: Sequence[Any] | None = None,
    settings: MetaSettings | None = None,
) -> SubgroupResult:
    """Meta-analysis per subgroup plus tests of subgroup differences (see :class:`SubgroupResult`).

    ``yi``/``vi``/``names``/``method``/``test``/``level`` as :func:`meta_analysis`. ``groups`` is
    one label per study (a sequence in study order, or a pandas Series indexed by study name), or
    with an ``EffectSizes`` the name of one of its ``extra`` columns. Subgroups are ordered like
    the levels of a categorical moderator (a pandas Categorical's order, else sorted); the first
    is the reference level of the regression. A subgroup of one study is fitted as metafor does
    (τ² = 0, z test).

    Parameters
    ----------
    yi, vi, names
        As :func:`meta_analysis` (``yi`` may be an ``EffectSizes``).
    groups : sequence, pandas.Series or str
        One subgroup label per study, or with an ``EffectSizes`` the name of an ``extra`` column.
    method : str, default "REML"
        Estimator of tau², as :func:`meta_analysis`.
    test : {"z", "t", "knha"}, default "z"
        As :func:`meta_analysis`.
    level : float, default 0.95
        Confidence level in (0, 1).
    settings : MetaSettings, optional
        A :class:`~ranger_eval.settings.MetaSettings` instead of ``method``, ``test`` and
        ``level`` (its other fields are the effects' and are ignored here; a keyword other than
        its default next to it is a ``MetaInputError`` naming the clash).

    Returns
    -------
    SubgroupResult
        ``fits`` (subgroup → its :class:`MetaResult`), ``Q_between`` with ``Q_between_pvalue``
        (separate tau² per subgroup), ``regression`` (the meta-regression with common tau²),
        ``Q_within`` and the call's ``settings``.

    Raises
    ------
    MetaInputError
        Bad effects, variances or group labels.

    References
    ----------
    Borenstein, M., Hedges, L. V., Higgins, J. P. T. & Rothstein, H. R. (2009), *Introduction to
    Meta-Analysis*, Wiley, ch. 19 (subgroup analyses). metafor's ``rma.uni`` with ``subset`` and
    ``mods = ~ factor(group)``.

    Examples
    --------
    >>> import ranger_eval as rg
    >>> s = rg.subgroup_analysis([0.10, 0.30, 0.25, 0.05, 0.40, 0.20],
    ...                          [0.01, 0.02, 0.015, 0.01, 0.03, 0.02],
    ...                          ["a", "a", "b", "b", "b", "a"])
    >>> s.groups, [round(s.fits[g].estimate, 4) for g in s.groups]
    (('a', 'b'), [0.175, 0.1996])
    >>> round(s.Q_between, 4), round(s.Q_between_pvalue, 4)
    (0.0405, 0.8404)
    """
    if settings is not None:  # the object's values, once the keywords are seen not to clash
        settings = _meta_settings(method, test, level, None, settings, where="subgroup_analysis")
        method, test, level = settings.method, settings.test, settings.level
    y, v, method_c, test_c, level_f, names_t, measure, effects = _validate(
        yi, vi, method, test, level, names
    )
    if settings is None:
        settings = _meta_settings(method, test_c, level_f, None, None, where="subgroup_analysis")
    variable, labels, membership = _subgroup_labels(groups, effects, names_t)
    method_label = "EE" if method.upper() == "EE" else method_c

    fits: dict[str, MetaResult] = {}
    member = np.array(membership, dtype=object)
    small = [g for g in labels if int(np.sum(member == g)) == 1]
    with warnings.catch_warnings():
        if test_c != "z":
            warnings.filterwarnings("ignore", message="k = 1: using test='z'")
        for g in labels:
            idx = np.flatnonzero(member == g)
            fits[g] = meta_analysis(y[idx], v[idx], method=method_label, test=test_c,
                                    level=level_f, names=[names_t[i] for i in idx])
    if small and test_c != "z":
        warnings.warn(f"subgroup(s) {small} have one study: fitted with test='z' (as metafor)",
                      UserWarning, stacklevel=2)
    if measure is not None or effects is not None:
        fits = {g: _with_source(r, measure) for g, r in fits.items()}

    est = np.array([fits[g].estimate for g in labels])
    se = np.array([fits[g].se for g in labels])
    G = len(labels)
    if np.all(se > 0.0):
        q_b = _q_gen(0.0, est, se * se)
    else:  # knha with identical effects in a subgroup: se = 0 (as metafor); infinite weight
        q_b = 0.0 if np.all(est == est[0]) else math.inf
    q_w = float(sum(_q_gen(0.0, y[member == g], v[member == g]) for g in labels))
    k = y.size

    regression = None
    if k > G:
        X = np.column_stack([np.ones(k)] + [(member == g).astype(float) for g in labels[1:]])
        coef_names = ("intrcpt", *(f"{variable}{g}" for g in labels[1:]))
        regression = _meta_regression(y.copy(), v.copy(), method=method_c, test=test_c,
                                      level=level_f, names=names_t, measure=measure,
                                      effects=effects, method_label=method_label,
                                      design=(X, coef_names, (variable,)))
    y.setflags(write=False)
    v.setflags(write=False)
    return SubgroupResult(
        groups=tuple(labels), fits=MappingProxyType(fits), membership=membership, Q_between=float(q_b),
        Q_between_df=G - 1, Q_between_pvalue=_chi2_sf(q_b, G - 1), Q_within=q_w,
        Q_within_df=k - G, Q_within_pvalue=_chi2_sf(q_w, k - G) if k > G else 1.0,
        regression=regression, k=k, method=method_label, test=test_c, level=level_f,
        names=names_t, variable=variable, measure=measure, effects=effects, settings=settings,
    )


def _subgroup_labels(groups: Any, effects: Any, names: tuple[str, ...]
                     ) -> tuple[str, list[str], tuple[str, ...]]:
    """``(variable, labels, membership)``: the grouping variable's name, the subgroup labels in
    order (a pandas Categorical's order, else sorted) and each study's label, from ``groups``
    (one label per study, or with an ``EffectSizes`` the name of an extra column)."""
    if groups is None:
        raise MetaInputError("groups is required: one subgroup label per study, or (with an "
                             "EffectSizes) the name of one of its extra columns")
    import pandas as pd

    if isinstance(groups, str):
        variable = groups
        if effects is None:
            raise MetaInputError(f"groups={groups!r} names a column, which needs an EffectSizes "
                                 "input; with arrays pass one label per study")
        values = _effects_column(effects, groups, names, f"groups {groups!r}")
        extra = getattr(effects, "extra", None)
        dtype = extra[groups].dtype if extra is not None and groups in extra.columns else None
    else:
        variable = str(getattr(groups, "name", None) or "group")
        values = _align(groups, "groups", names)
        dtype = getattr(groups, "dtype", None)
    for i, x in enumerate(values):
        if _is_missing(x):
            raise MetaInputError(f"groups: no subgroup for study {names[i]!r} (position {i})")
    cat = dtype if isinstance(dtype, pd.CategoricalDtype) else None
    levels = _levels(values, cat)
    labels = [str(lv) for lv in levels]
    if len(set(labels)) != len(labels):
        raise MetaInputError(f"groups: distinct labels print the same: {labels}")
    if len(levels) < 2:
        raise MetaInputError(f"groups: all {len(names)} studies are in one subgroup ({labels[0]!r})")
    membership = tuple(labels[levels.index(x)] for x in values)
    return variable, labels, membership


def _with_source(res: MetaResult, measure: str | None) -> MetaResult:
    import dataclasses

    return dataclasses.replace(res, measure=measure)
