"""Result objects of a meta-analysis (:class:`MetaResult`) and a meta-regression
(:class:`MetaRegressionResult`): frozen, with views (table, dict/JSON, metafor-style text,
leave-one-out, the back-transformed summary of ZCOR) and the signature."""
from __future__ import annotations

import json
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from ..errors import MetaInputError
from ..formatting import format_level, format_pvalue
from ..settings import MetaSettings, signature_fields
from ..signature import FIELDS, Signature, make_signature, parse_signature
from ._distributions import _crit
from .fit import _fit_any
from .verdict import MarginVerdict, margin_verdict

if TYPE_CHECKING:  # pragma: no cover - typing only (keeps `import ranger_eval.meta` light)
    import pandas as pd

    from ..effects import EffectSizes


# --------------------------------------------------------------------------------------------
# results
# --------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class TransformedSummary:
    """Summary and per-study values on the display scale (``r = tanh(z)`` for ZCOR)."""

    transform: str
    estimate: float
    ci_low: float
    ci_high: float
    pi_low: float
    pi_high: float
    yi: np.ndarray
    yi_ci_low: np.ndarray
    yi_ci_high: np.ndarray


def _jsonable(x: Any) -> Any:
    """Plain Python values; non-finite floats become None (JSON has no NaN/inf)."""
    if isinstance(x, np.ndarray):
        return [_jsonable(e) for e in x.tolist()]
    if isinstance(x, (list, tuple)):
        return [_jsonable(e) for e in x]
    if isinstance(x, (bool, np.bool_)):
        return bool(x)
    if isinstance(x, (int, np.integer)):
        return int(x)
    if isinstance(x, (float, np.floating)):
        f = float(x)
        return f if math.isfinite(f) else None
    return x


class _ResultText:
    """What every result class of this module prints the same way: ``to_json()``, its
    ``to_dict()`` as a JSON string (``kwargs`` go to :func:`json.dumps`), and ``str()``, its
    ``summary()``."""

    def to_dict(self) -> dict[str, Any]:
        raise NotImplementedError

    def summary(self) -> str:
        raise NotImplementedError

    def to_json(self, **kwargs: Any) -> str:
        """:meth:`to_dict` as a JSON string (``kwargs`` go to :func:`json.dumps`)."""
        return json.dumps(self.to_dict(), allow_nan=False, **kwargs)

    def __str__(self) -> str:
        return self.summary()


@dataclass(frozen=True)
class MetaResult(_ResultText):
    """A fitted meta-analysis model (one object, many views, like metafor's ``rma``).

    ``estimate``/``se``/``ci_*``/``statistic``/``pvalue`` are ``coef``/``se``/``ci.lb``/``ci.ub``/
    ``zval``/``pval`` of ``rma.uni``; ``pi_*`` from ``predict.rma``; ``tau2_ci``/``I2_ci`` from
    ``confint`` (Q-profile); ``weights`` = ``weights.rma.uni``/100. See the module docstring.
    ``test`` is the test actually used (``"z"`` when k = 1).
    """

    estimate: float
    se: float
    ci_low: float
    ci_high: float
    statistic: float
    pvalue: float
    tau2: float
    tau: float
    I2: float
    H2: float
    Q: float
    Q_df: int
    Q_pvalue: float
    pi_low: float
    pi_high: float
    weights: np.ndarray
    tau2_ci: tuple[float, float]
    I2_ci: tuple[float, float]
    k: int
    method: str
    test: str
    level: float
    names: tuple[str, ...]
    yi: np.ndarray
    vi: np.ndarray
    measure: str | None = None
    effects: EffectSizes | None = None
    vt: float = field(default=0.0)
    #: margin of equivalence / non-inferiority in the measure's units (``meta_analysis(margin=)``)
    margin: float | None = None
    #: direction of the effect for the margin's non-inferiority verdict (False: lower is better)
    higher_is_better: bool = True
    #: the settings object of the call that made this result (:func:`~ranger_eval.meta.
    #: meta_analysis`: its ``method``, ``test``, ``level`` and ``margin``)
    settings: MetaSettings | None = field(default=None, compare=False, repr=False)

    # ----------------------------------------------------------------------------- views
    @property
    def signature(self) -> Signature:
        """Reproducibility signature: effect measure, τ² estimator, test, level, k, version, and
        how the effects were computed when that is not the plain formula (a set-level metric's
        bootstrap: its resamples and seed)."""
        # measure, method, test, level: MetaSettings' signature keys (Setting.signature)
        fields: dict[str, object] = {**signature_fields(MetaSettings, self, {}), "k": self.k}
        eff_sig = getattr(self.effects, "signature", None)
        if eff_sig:
            ef = parse_signature(str(eff_sig))
            for key in ("method_detail", "n_resamples", "seed", "resample", "passk", "samples",
                        "cluster", "ppi"):
                if key in ef:
                    fields[key] = ef[key]
        return make_signature("meta", fields)

    @property
    def mde(self) -> float:
        """Minimum detectable summary effect of a non-significant meta-analysis (no effect, or
        too few datasets?):
        the true summary effect its test (z, or t on k − 1 df for ``t``/``knha``) at
        α = 1 − level would detect with 80 % power given its standard error, λ·se
        (:func:`ranger_eval.stats.power.minimum_detectable_effect`); NaN when the summary is
        significant (or its se is not positive)."""
        if not self.pvalue > 1.0 - self.level:
            return math.nan
        from ..stats.power import minimum_detectable_effect  # lazy: docs/architecture.md, Imports

        return minimum_detectable_effect(float(self.se), None if self.df is None
                                         else float(self.df), level=self.level)

    @property
    def verdict(self) -> MarginVerdict | None:
        """The equivalence / non-inferiority verdict of the summary against ``±margin``
        (:mod:`ranger_eval.meta.verdict`), or None without a margin."""
        if self.margin is None:
            return None
        return margin_verdict((self.ci_low, self.ci_high), (self.pi_low, self.pi_high),
                              self.margin, higher_is_better=self.higher_is_better)

    @property
    def is_fixed(self) -> bool:
        """True for the fixed/equal-effects model."""
        return self.method in ("FE", "EE")

    @property
    def few_datasets_caution(self) -> str | None:
        """Why τ² and the prediction interval of a random-effects model of k < 3 datasets mean
        little, or None (k ≥ 3, or a fixed-effect model, which has no τ²).

        With one study τ² has no degree of freedom at all (metafor sets it to 0) and the
        prediction interval is the confidence interval by construction. With two, τ² is
        estimated from one degree of freedom (Q on k − 1 = 1 df): it is often truncated to 0,
        and then the prediction interval μ̂ ± z·√(τ̂² + SE²) equals the confidence interval;
        otherwise its confidence interval spans orders of magnitude. metafor prints both (the
        numbers are kept exact); the warning, summary, reports and forest plot say what they
        mean (Borenstein et al. 2009, ch. 16: τ² needs "a reasonable number of studies";
        IntHout et al. 2016, BMJ Open 6:e010247: prediction intervals from k ≥ 3)."""
        if self.k >= 3 or self.is_fixed:
            return None
        if self.k == 1:
            return ("k = 1 dataset: τ² and the prediction interval are not estimable in any "
                    "useful sense. With one dataset τ² has no degree of freedom (metafor sets it "
                    "to 0), so the prediction interval printed is the confidence interval and does "
                    "not say where the effect on a new dataset will lie. The summary is this "
                    "dataset's own effect; 3 or more datasets are needed to estimate the spread "
                    "between datasets.")
        pct = format_level(self.level)
        lo, hi = self.tau2_ci
        spread = (", and at 0 the prediction interval equals the confidence interval"
                  if self.tau2 == 0 else "")
        return (f"k = 2 datasets: τ² and the prediction interval are not estimable in any useful "
                f"sense. τ² = {self.tau2:.4g} is estimated from one degree of freedom (Q on 1 df; "
                f"{pct} CI [{lo:.4g}, {hi:.4g}]){spread}; metafor prints both, but the prediction "
                "interval does not say where the effect on a new dataset will lie. Read the "
                "summary as the weighted average of these two datasets, not as a prediction; "
                "3 or more datasets are needed to estimate the spread between datasets.")

    @property
    def df(self) -> int | None:
        """Degrees of freedom of the t reference distribution (None for the z test)."""
        return None if self.test == "z" else self.k - 1

    def transformed(self) -> TransformedSummary:
        """Back-transformed summary for display: ``tanh`` for ZCOR (pooling stays on the z scale,
        as ``predict(res, transf=transf.ztor)``); the identity for every other measure."""
        z = self.level_crit_z()
        se = np.sqrt(self.vi)
        lo, hi = self.yi - z * se, self.yi + z * se
        f, name = (np.tanh, "tanh") if self.measure == "ZCOR" else (np.positive, "identity")
        return TransformedSummary(
            transform=name,
            estimate=float(f(self.estimate)), ci_low=float(f(self.ci_low)),
            ci_high=float(f(self.ci_high)), pi_low=float(f(self.pi_low)),
            pi_high=float(f(self.pi_high)), yi=np.asarray(f(self.yi), dtype=float),
            yi_ci_low=np.asarray(f(lo), dtype=float), yi_ci_high=np.asarray(f(hi), dtype=float),
        )

    def level_crit_z(self) -> float:
        """Normal quantile ``z_{1-α/2}`` used for the per-study intervals (as metafor's forest)."""
        return _crit(self.level, "z", 0)

    def leave_one_out(self) -> pd.DataFrame:
        """Refit without each study in turn (metafor ``leave1out``): one row per omitted study.

        Columns: name, estimate, se, statistic, ci_low, ci_high, pvalue, Q, Q_pvalue, tau2, I2, H2.
        Same method, test and level; with k = 2 each refit has k = 1 and uses the z test (metafor).
        """
        import pandas as pd

        if self.k < 2:
            raise MetaInputError("leave_one_out needs at least 2 studies (k = 1)")
        method = "FE" if self.method == "EE" else self.method
        rows = []
        idx = np.arange(self.k)
        for i in range(self.k):
            keep = idx != i
            f = _fit_any(self.yi[keep], self.vi[keep], method, self.test, self.level)
            rows.append((self.names[i], f.estimate, f.se, f.statistic, f.ci_low, f.ci_high,
                         f.pvalue, f.Q, f.Q_pvalue, f.tau2, f.I2, f.H2))
        cols = ["name", "estimate", "se", "statistic", "ci_low", "ci_high", "pvalue", "Q",
                "Q_pvalue", "tau2", "I2", "H2"]
        return pd.DataFrame(rows, columns=cols)

    def to_frame(self) -> pd.DataFrame:
        """Per-study table plus a summary row.

        Columns: name, kind ("study"/"summary"), yi, vi, se, ci_low, ci_high (per-study normal CI
        ``yi ± z_{1-α/2}·sqrt(vi)`` at ``level``; the model CI in the summary row), weight (relative;
        1 in the summary row). For ZCOR also r, r_ci_low, r_ci_high (``tanh`` back-transform).
        """
        import pandas as pd

        z = self.level_crit_z()
        se = np.sqrt(self.vi)
        label = "FE Model" if self.is_fixed else f"RE Model ({self.method})"
        df = pd.DataFrame({
            "name": list(self.names) + [label],
            "kind": ["study"] * self.k + ["summary"],
            "yi": np.append(self.yi, self.estimate),
            "vi": np.append(self.vi, self.se**2),
            "se": np.append(se, self.se),
            "ci_low": np.append(self.yi - z * se, self.ci_low),
            "ci_high": np.append(self.yi + z * se, self.ci_high),
            "weight": np.append(self.weights, 1.0),
        })
        if self.measure == "ZCOR":
            df["r"] = np.tanh(df["yi"].to_numpy())
            df["r_ci_low"] = np.tanh(df["ci_low"].to_numpy())
            df["r_ci_high"] = np.tanh(df["ci_high"].to_numpy())
        return df

    def to_dict(self) -> dict[str, Any]:
        """JSON-serialisable dict of all fields (plain floats/lists; non-finite values → None)."""
        d: dict[str, Any] = {
            "estimate": self.estimate, "se": self.se, "ci_low": self.ci_low,
            "ci_high": self.ci_high, "statistic": self.statistic, "pvalue": self.pvalue,
            "tau2": self.tau2, "tau": self.tau, "I2": self.I2, "H2": self.H2, "Q": self.Q,
            "Q_df": self.Q_df, "Q_pvalue": self.Q_pvalue, "pi_low": self.pi_low,
            "pi_high": self.pi_high, "weights": self.weights, "tau2_ci": list(self.tau2_ci),
            "I2_ci": list(self.I2_ci), "k": self.k, "method": self.method, "test": self.test,
            "level": self.level, "names": list(self.names), "yi": self.yi, "vi": self.vi,
            "measure": self.measure, "signature": str(self.signature), "mde": self.mde,
        }
        caution = self.few_datasets_caution
        if caution is not None:
            d["caution"] = caution
        verdict = self.verdict
        if verdict is not None:
            d.update(margin=verdict.margin, verdict=verdict.summary,
                     verdict_new_dataset=verdict.new_dataset,
                     higher_is_better=verdict.higher_is_better)
        if self.measure == "ZCOR":
            t = self.transformed()
            d["transformed"] = {
                "transform": t.transform, "estimate": _jsonable(t.estimate),
                "ci_low": _jsonable(t.ci_low), "ci_high": _jsonable(t.ci_high),
                "pi_low": _jsonable(t.pi_low), "pi_high": _jsonable(t.pi_high),
            }
        return {key: _jsonable(val) for key, val in d.items()}

    def summary(self, digits: int = 4) -> str:
        """Readable text in the layout of metafor's ``print.rma.uni``."""
        def f(x: float) -> str:
            return f"{x:.{digits}f}"

        pct_s = format_level(self.level)
        if self.is_fixed:
            model = "Equal-Effects Model" if self.method == "EE" else "Fixed-Effects Model"
            title = f"{model} (k = {self.k})"
        else:
            title = f"Random-Effects Model (k = {self.k}; tau^2 estimator: {self.method})"
        lines = _heading(title, self.measure)
        if not self.is_fixed:
            lines.append(
                f"tau^2 (estimated amount of total heterogeneity): {f(self.tau2)} "
                f"({pct_s} CI [{f(self.tau2_ci[0])}, {f(self.tau2_ci[1])}])"
            )
            lines.append(f"tau (square root of estimated tau^2 value):      {f(self.tau)}")
        lines.append(
            f"I^2 (total heterogeneity / total variability):   {self.I2:.2f}% "
            f"({pct_s} CI [{self.I2_ci[0]:.2f}%, {self.I2_ci[1]:.2f}%])"
        )
        lines.append(f"H^2 (total variability / sampling variability):  {self.H2:.2f}")
        lines += ["", "Test for Heterogeneity:",
                  f"Q(df = {self.Q_df}) = {f(self.Q)}, p-val {_p_txt(self.Q_pvalue)}", ""]
        lines.append("Model Results:")
        lines.append("")
        hdr = _coef_header(self.test)
        vals = _coef_cells(f, self.estimate, self.se, self.statistic, self.df, self.pvalue,
                           (self.ci_low, self.ci_high))
        widths = [max(len(h), len(v)) for h, v in zip(hdr, vals, strict=True)]
        lines.append("  ".join(h.rjust(w) for h, w in zip(hdr, widths, strict=True)))
        lines.append("  ".join(v.rjust(w) for v, w in zip(vals, widths, strict=True)))
        lines.append("")
        lines.append(_test_line(self.test, self.k - 1))
        lines.append(f"{pct_s} prediction interval: [{f(self.pi_low)}, {f(self.pi_high)}]")
        if self.few_datasets_caution is not None:
            lines.append(self.few_datasets_caution)
        if self.verdict is not None:
            lines.append(self.verdict.sentence())
        if self.measure == "ZCOR":
            t = self.transformed()
            lines += ["", "Back-transformed to the correlation scale (r = tanh(z)):",
                      f"  r = {f(t.estimate)}, {pct_s} CI [{f(t.ci_low)}, {f(t.ci_high)}], "
                      f"{pct_s} PI [{f(t.pi_low)}, {f(t.pi_high)}]"]
        lines += ["", str(self.signature)]
        return "\n".join(lines)



def _sig_fields(fields: dict[str, object]) -> dict[str, object]:
    """Signature fields, leaving out keys not (yet) documented in ``signature.FIELDS``."""
    return {key: val for key, val in fields.items() if key in FIELDS}


def _p_txt(x: float) -> str:
    """``= 0.01242``, ``= 3.2e-07``, ``< 1e-300``: the one p-value rule
    (:func:`ranger_eval.formatting.format_pvalue`, four significant digits)."""
    return format_pvalue(x, 4, prefix="= ")


def _pval_cell(p: float) -> str:
    """A p-value in a printed table: :func:`ranger_eval.formatting.format_pvalue` with four
    significant digits, as everywhere else (metafor's ``<.0001`` hid the size of small ones)."""
    return format_pvalue(p, 4)


def _heading(title: str, measure: str | None) -> list[str]:
    """The first lines of a printed model: its title, the effect measure (if any), a blank line."""
    return [title, *([f"Measure: {measure}"] if measure else []), ""]


def _coef_header(test: str) -> list[str]:
    """Columns of metafor's coefficient table: estimate, se, zval or tval (then df), pval, CI."""
    stat = ["zval"] if test == "z" else ["tval", "df"]
    return ["estimate", "se", *stat, "pval", "ci.lb", "ci.ub"]


def _coef_cells(f: Callable[[float], str], estimate: float, se: float, statistic: float,
                df: int | None, pvalue: float, ci: tuple[float, float]) -> list[str]:
    """One row of :func:`_coef_header` (``df`` None for the z test); ``f`` formats a number."""
    return [f(estimate), f(se), f(statistic), *([] if df is None else [str(df)]),
            _pval_cell(pvalue), f(ci[0]), f(ci[1])]


def _test_line(test: str, df: int) -> str:
    """``Test: z``, ``Test: t(df = …)`` or ``Test: Knapp-Hartung t(df = …)``."""
    return "Test: " + {"z": "z", "t": f"t(df = {df})", "knha": f"Knapp-Hartung t(df = {df})"}[test]


def _qm_line(reg: MetaRegressionResult, f: Callable[[float], str]) -> str:
    """The omnibus test of the moderators: ``QM(df = …) = …`` (χ²) or ``F(df1 = …, df2 = …) = …``."""
    if reg.QM_ddf is None:
        return f"QM(df = {reg.QM_df}) = {f(reg.QM)}, p-val {_p_txt(reg.QM_pvalue)}"
    return (f"F(df1 = {reg.QM_df}, df2 = {reg.QM_ddf}) = {f(reg.QM)}, "
            f"p-val {_p_txt(reg.QM_pvalue)}")


def _table(rows: list[list[str]], header: list[str]) -> list[str]:
    """Right-aligned text table (first column left-aligned), as R prints a matrix."""
    widths = [max(len(r[j]) for r in [header, *rows]) for j in range(len(header))]
    out = []
    for r in [header, *rows]:
        cells = [r[0].ljust(widths[0])] + [c.rjust(w) for c, w in zip(r[1:], widths[1:], strict=True)]
        out.append("  ".join(cells))
    return out


@dataclass(frozen=True)
class MetaRegressionResult(_ResultText):
    """A fitted meta-regression (mixed-effects model; fixed-effects with moderators for FE), like
    ``metafor::rma(yi, vi, mods = ~ ..., method, test)``.

    Per coefficient (arrays in the order of ``coef_names``: ``"intrcpt"``, then the moderator
    columns as R's ``model.matrix`` names them): ``estimate``, ``se``, ``statistic`` (z, or t with
    ``k - p`` df for ``test="t"``/``"knha"``), ``pvalue``, ``ci_low``, ``ci_high``; ``vcov`` is their
    covariance matrix (metafor ``vcov``). ``tau2`` is the residual heterogeneity, ``I2``/``H2``
    the residual I²/H² (``vt = (k-p)/tr P`` at τ² = 0), ``R2`` the % of heterogeneity accounted
    for: ``max(0, 100 (τ²₀ - τ²)/τ²₀)`` with ``tau2_0`` the τ² of the intercept-only model by the
    same method (0 when τ²₀ = 0); for FE models metafor's adjusted R² of the weighted regression,
    ``max(0, 100 (1 - (1 - R²_w)(k-1)/(k-p)))``. ``QE`` (df ``k - p``) tests residual heterogeneity;
    ``QM`` is the omnibus test of all coefficients but the intercept: χ² with ``QM_df`` df for
    ``test="z"``, else ``F(QM_df, QM_ddf)`` (metafor divides the Wald statistic by ``QM_df``).
    ``tau2_ci``/``I2_ci`` are Q-profile intervals from ``QE(τ²)`` (``confint``). ``weights`` are
    ``w̃_i/Σw̃``, ``fitted`` is ``Xβ``.
    """

    coef_names: tuple[str, ...]
    estimate: np.ndarray
    se: np.ndarray
    statistic: np.ndarray
    pvalue: np.ndarray
    ci_low: np.ndarray
    ci_high: np.ndarray
    vcov: np.ndarray
    tau2: float
    tau: float
    I2: float
    H2: float
    R2: float
    tau2_0: float | None
    tau2_ci: tuple[float, float]
    I2_ci: tuple[float, float]
    QE: float
    QE_df: int
    QE_pvalue: float
    QM: float
    QM_df: int
    QM_ddf: int | None
    QM_pvalue: float
    k: int
    p: int
    method: str
    test: str
    level: float
    names: tuple[str, ...]
    yi: np.ndarray
    vi: np.ndarray
    X: np.ndarray
    moderators: tuple[str, ...]
    weights: np.ndarray
    fitted: np.ndarray
    measure: str | None = None
    effects: EffectSizes | None = None
    vt: float = field(default=0.0)
    #: the settings object of the call that made this result (:func:`~ranger_eval.meta.
    #: meta_analysis` with moderators)
    settings: MetaSettings | None = field(default=None, compare=False, repr=False)

    @property
    def signature(self) -> Signature:
        """Reproducibility signature: measure, τ² estimator, test, level, k and the moderators."""
        return make_signature("meta", _sig_fields({
            "measure": self.measure, "method": self.method, "test": self.test,
            "level": self.level, "k": self.k, "mods": list(self.moderators),
        }))

    @property
    def is_fixed(self) -> bool:
        return self.method in ("FE", "EE")

    @property
    def df(self) -> int | None:
        """Degrees of freedom of the t tests (``k - p``; None for the z test)."""
        return None if self.test == "z" else self.k - self.p

    @property
    def residuals(self) -> np.ndarray:
        """``yi - Xβ``."""
        return np.asarray(self.yi - self.fitted)

    def coef(self) -> dict[str, float]:
        """``{coefficient name: estimate}`` (metafor ``coef``)."""
        return {n: float(b) for n, b in zip(self.coef_names, self.estimate, strict=True)}

    def to_frame(self) -> pd.DataFrame:
        """The coefficient table (metafor ``coef(summary(res))``), indexed by coefficient name:
        estimate, se, statistic, pvalue, ci_low, ci_high."""
        import pandas as pd

        frame = pd.DataFrame({
            "estimate": self.estimate, "se": self.se, "statistic": self.statistic,
            "pvalue": self.pvalue, "ci_low": self.ci_low, "ci_high": self.ci_high,
        }, index=pd.Index(list(self.coef_names), name="coefficient"))
        return frame

    def to_dict(self) -> dict[str, Any]:
        """JSON-serialisable dict of all fields (plain floats/lists; non-finite values → None)."""
        d: dict[str, Any] = {
            "coef_names": list(self.coef_names), "estimate": self.estimate, "se": self.se,
            "statistic": self.statistic, "pvalue": self.pvalue, "ci_low": self.ci_low,
            "ci_high": self.ci_high, "vcov": self.vcov, "tau2": self.tau2, "tau": self.tau,
            "I2": self.I2, "H2": self.H2, "R2": self.R2, "tau2_0": self.tau2_0,
            "tau2_ci": list(self.tau2_ci), "I2_ci": list(self.I2_ci), "QE": self.QE,
            "QE_df": self.QE_df, "QE_pvalue": self.QE_pvalue, "QM": self.QM, "QM_df": self.QM_df,
            "QM_ddf": self.QM_ddf, "QM_pvalue": self.QM_pvalue, "k": self.k, "p": self.p,
            "method": self.method, "test": self.test, "level": self.level,
            "names": list(self.names), "moderators": list(self.moderators), "yi": self.yi,
            "vi": self.vi, "X": self.X, "weights": self.weights, "fitted": self.fitted,
            "measure": self.measure, "signature": str(self.signature),
        }
        return {key: _jsonable(val) for key, val in d.items()}

    def summary(self, digits: int = 4) -> str:
        """Readable text in the layout of metafor's ``print.rma.uni`` for models with moderators."""
        def f(x: float) -> str:
            return f"{x:.{digits}f}"

        pct_s = format_level(self.level)
        if self.is_fixed:
            model = "Equal-Effects" if self.method == "EE" else "Fixed-Effects"
            title = f"{model} with Moderators Model (k = {self.k})"
        else:
            title = f"Mixed-Effects Model (k = {self.k}; tau^2 estimator: {self.method})"
        lines = _heading(title, self.measure)
        rows = []
        if not self.is_fixed:
            rows.append(("tau^2 (estimated amount of residual heterogeneity):",
                         f"{f(self.tau2)} ({pct_s} CI [{f(self.tau2_ci[0])}, "
                         f"{f(self.tau2_ci[1])}])"))
            rows.append(("tau (square root of estimated tau^2 value):", f(self.tau)))
        rows.append(("I^2 (residual heterogeneity / unaccounted variability):",
                     f"{self.I2:.2f}%"))
        rows.append(("H^2 (unaccounted variability / sampling variability):", f"{self.H2:.2f}"))
        rows.append(("R^2 (amount of heterogeneity accounted for):", f"{self.R2:.2f}%"))
        width = max(len(a) for a, _ in rows)
        lines += [f"{a.ljust(width)} {b}" for a, b in rows]
        lines += ["", "Test for Residual Heterogeneity:",
                  f"QE(df = {self.QE_df}) = {f(self.QE)}, p-val {_p_txt(self.QE_pvalue)}", ""]
        coefs = "2" if self.p == 2 else f"2:{self.p}"
        lines.append(f"Test of Moderators (coefficient{'s' if self.p > 2 else ''} {coefs}):")
        lines.append(_qm_line(self, f))
        lines += ["", "Model Results:", ""]
        rows_t = [[name, *_coef_cells(f, self.estimate[j], self.se[j], self.statistic[j],
                                      self.df, self.pvalue[j], (self.ci_low[j], self.ci_high[j]))]
                  for j, name in enumerate(self.coef_names)]
        lines += _table(rows_t, ["", *_coef_header(self.test)])
        lines.append("")
        lines.append(_test_line(self.test, self.k - self.p))
        lines += ["", str(self.signature)]
        return "\n".join(lines)
