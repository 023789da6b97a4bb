"""The text of a forest plot: what it shows on the display scale (:class:`ForestValues`), its
columns (:class:`Column`, :func:`build_table`: labels, means, extra columns, weights and
``effect [CI]``, each with its study cells, summary and prediction-interval rows) and the
statements of its footer (:func:`footer_parts`: model, heterogeneity, test of the summary effect).

Study confidence intervals are ``yi ± z_(1−α/2)·√vi`` (normal quantile, as metafor's forest plot
and ``escalc`` summaries); the summary CI and PI are taken from the ``MetaResult`` unchanged.
Nothing here measures or draws.
"""
from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from numbers import Integral, Real
from typing import Any

import numpy as np

from ...effects import z_critical
from ...errors import PlotError
from ...formatting import format_level
from ...settings import META_ORDERS
from .._axis import display_values, effect_decimals
from .._style import (
    MINUS,
    TAU2_METHOD_NAMES,
    choose_decimals,
    format_number,
    format_percent,
    format_pvalue,
    format_stat,
)
from .options import ForestColumns

__all__ = ["ORDERS", "Column", "ForestTable", "ForestValues", "build_table", "footer_parts",
           "forest_values"]

ORDERS = META_ORDERS  # the forest's row orders are meta's ``order`` setting


@dataclass(frozen=True)
class ForestValues:
    """What a forest plot shows, on the display scale (r for ZCOR unless ``back_transform=False``),
    arrays in result order; ``rows`` lists the result indices top to bottom."""

    names: tuple[str, ...]
    rows: np.ndarray
    yi: np.ndarray
    lo: np.ndarray
    hi: np.ndarray
    weights: np.ndarray
    summary: tuple[float, float, float]  # estimate, CI low, CI high
    prediction: tuple[float, float]  # the result's PI (NaN or a copy of the CI for some models)
    with_pi: bool  # the prediction-interval row is shown
    transformed: bool
    measure_label: str
    method: str  # upper case
    fixed_model: bool
    level: float

    @property
    def k(self) -> int:
        """Number of datasets (study rows)."""
        return len(self.names)

    def all_numbers(self) -> np.ndarray:
        """Every number of the ``effect [CI]`` column (its decimals are chosen from them)."""
        return np.concatenate([self.yi, self.lo, self.hi, list(self.summary),
                               list(self.prediction) if self.with_pi else []])


def forest_values(result: Any, order: Any, show_prediction: bool,
                  back_transform: bool | None) -> ForestValues:
    """The :class:`ForestValues` of a checked ``result`` with rows in ``order``."""
    names = tuple(str(n) for n in result.names)
    yi = np.asarray(result.yi, dtype=float).ravel()
    vi = np.asarray(result.vi, dtype=float).ravel()
    weights = np.asarray(result.weights, dtype=float).ravel()
    method = str(result.method).upper()
    fixed_model = method in ("FE", "EE", "CE")

    crit = z_critical(float(result.level))
    s_lo = yi - crit * np.sqrt(vi)
    s_hi = yi + crit * np.sqrt(vi)
    with_pi = (bool(show_prediction) and not fixed_model and np.isfinite(float(result.pi_low))
               and np.isfinite(float(result.pi_high)))

    shown, transformed = display_values(result, back_transform, s_lo, s_hi)
    yi_d = shown["yi"]
    return ForestValues(
        names=names, rows=_order(order, names, yi_d, weights), yi=yi_d, lo=shown["lo"],
        hi=shown["hi"], weights=weights, summary=(shown["est"], shown["c_lo"], shown["c_hi"]),
        prediction=(shown["p_lo"], shown["p_hi"]), with_pi=bool(with_pi), transformed=transformed,
        measure_label="r" if transformed else (result.measure or "Effect"), method=method,
        fixed_model=fixed_model, level=float(result.level),
    )


@dataclass(frozen=True)
class Column:
    """One text column: header, one cell per study row (display order), the summary and
    prediction-interval rows, alignment, and the header variants to choose from (widest first).
    ``width`` and ``x`` (left edge), in inches, are set by the layout."""

    header: str
    cells: tuple[str, ...]
    summary: str = ""
    pi: str = ""
    align: str = "left"  # "left" or "right"
    header_options: tuple[str, ...] | None = None  # alternative headers, preferred first
    width: float = 0.0
    x: float = 0.0  # left edge, inches


@dataclass(frozen=True)
class ForestTable:
    """The columns of a forest plot, left to right: ``label``, ``left`` (means and extra
    columns), [the plot], ``right`` (weights), ``effect`` (estimate, "[low,", "high]" under one
    header), ``extra`` (the caller's right columns)."""

    label: Column
    left: tuple[Column, ...]
    right: tuple[Column, ...]
    effect: tuple[Column, Column, Column]
    effect_header: str
    extra: tuple[Column, ...]

    def all(self) -> list[Column]:
        """Every column, left to right."""
        return [self.label, *self.left, *self.right, *self.effect, *self.extra]


def build_table(values: ForestValues, columns: ForestColumns, effects: Any,
                systems: tuple[str | None, str | None]) -> ForestTable:
    """The text columns of ``values`` as ``columns`` asks; ``effects`` (the result's
    ``EffectSizes``, or None) gives the means and extra columns, ``systems`` = (control,
    treatment) the means column's header."""
    idx = values.rows
    names = values.names
    row_names = tuple(names[i] for i in idx)
    row_labels = [_resolve_labels(names, columns.labels)[i] for i in idx]
    dec = effect_decimals(values.all_numbers(), columns.precision)

    def num(v: float) -> str:
        # decimals target two significant digits (capped at 4); a value that would still print as
        # zero switches to scientific notation, never "−0.0000"
        return format_number(v, dec, min_sig=2 if dec is None else 1)

    level_txt = format_level(values.level)
    method = values.method
    model_label = (
        ("Common effect" if method in ("EE", "CE") else "Fixed effect")
        if values.fixed_model
        else f"Random effects ({method})"
    )
    pi_label = f"{level_txt} prediction interval"

    label_col = Column(columns.label_header, tuple(row_labels), summary=model_label, pi=pi_label,
                       align="left")
    left_cols: list[Column] = []
    if columns.means is None or columns.means:
        means = _means_column(effects, row_names, *systems) if effects is not None else None
        if means is not None:
            left_cols.append(Column(means[0][0], tuple(means[1]), align="left",
                                    header_options=tuple(means[0])))
        elif columns.means:
            raise PlotError(
                "ForestColumns(means=True) needs result.effects with finite mean_control and "
                "mean_treatment (fit the model on an EffectSizes)"
            )
    for header, cells in _extra_columns(columns.left, row_names, effects, "left"):
        left_cols.append(Column(header, tuple(cells), align="left" if _is_text(cells) else "right"))

    right_cols: list[Column] = []
    if columns.weights:
        w_cells = tuple(format_percent(values.weights[i]) for i in idx)
        right_cols.append(Column("Weight", w_cells, summary="100%", align="right"))
    est, c_lo, c_hi = values.summary
    p_lo, p_hi = values.prediction
    yi_d, s_lo, s_hi = values.yi, values.lo, values.hi
    eff_est = Column("", tuple(num(yi_d[i]) for i in idx), summary=num(est), align="right")
    eff_lo = Column("", tuple(f"[{num(s_lo[i])}," for i in idx), summary=f"[{num(c_lo)},",
                    pi=f"[{num(p_lo)},", align="right")
    eff_hi = Column("", tuple(f"{num(s_hi[i])}]" for i in idx), summary=f"{num(c_hi)}]",
                    pi=f"{num(p_hi)}]", align="right")
    extra_right = tuple(
        Column(h, tuple(c), align="left" if _is_text(c) else "right")
        for h, c in _extra_columns(columns.right, row_names, effects, "right")
    )
    return ForestTable(label_col, tuple(left_cols), tuple(right_cols), (eff_est, eff_lo, eff_hi),
                       f"{values.measure_label} [{level_txt} CI]", extra_right)


def footer_parts(result: Any, values: ForestValues) -> list[list[str]]:
    """The footer's statements (see :func:`ranger_eval.plots._text.wrap_footer`): the model, the
    heterogeneity (τ², I², Q and its p-value), the test of the summary effect, and the
    back-transformation when there is one."""
    k = values.k
    method = values.method
    fixed_model = values.fixed_model
    Q_df = int(result.Q_df)
    parts: list[list[str]] = []
    if fixed_model:
        model_label = "Common effect" if method in ("EE", "CE") else "Fixed effect"
        model_line = f"{model_label} model (inverse-variance weights), k = {k}"
    else:
        model_line = f"Random-effects model, τ² by {TAU2_METHOD_NAMES.get(method, method)}, k = {k}"
    parts.append([model_line])
    if k > 1:
        het = []
        if not fixed_model:
            het.append(f"τ² = {format_stat(float(result.tau2))}")
        het.append(f"I² = {float(result.I2):.1f}%")
        het.append(f"Q({Q_df}) = {format_stat(float(result.Q), min_decimals=2, max_decimals=2)}")
        het.append(format_pvalue(float(result.Q_pvalue)))
        parts.append(["Heterogeneity:", *het])
    else:
        parts.append(["Heterogeneity: not estimable with one dataset"])
    test = str(result.test).lower()
    ddf = getattr(result, "df", None)
    ddf = int(ddf) if isinstance(ddf, (int, np.integer)) else k - 1
    stat_name = "z" if test == "z" else f"t({ddf})"
    test_prefix = "Knapp–Hartung test" if test == "knha" else "Test"
    stat_val = format_number(float(result.statistic), 2, min_sig=1)
    parts.append(
        [f"{test_prefix} of the summary effect:", f"{stat_name} = {stat_val}", format_pvalue(result.pvalue)]
    )
    if values.transformed:
        parts.append(["Effects analysed as Fisher's z and shown back-transformed to r."])
    if k == 2 and not fixed_model:  # MetaResult.few_datasets_caution, said short
        parts.append(["Caution, k = 2: τ² (from 1 df) and the prediction interval are not "
                      "estimable in any useful sense; read the summary as the average of the two "
                      "datasets, not as a prediction for a new one."])
    elif k == 1 and not fixed_model:
        parts.append(["Caution, k = 1: τ² (no df) and the prediction interval are not estimable; "
                      "the prediction interval is the confidence interval."])
    return parts


# ----------------------------------------------------------------------------- helpers


def _resolve_labels(names: tuple[str, ...], labels: Any) -> list[str]:
    if labels is None:
        return [str(n) for n in names]
    if isinstance(labels, Mapping):
        unknown = sorted(set(map(str, labels)) - set(names))
        if unknown:
            raise PlotError(f"labels: unknown dataset(s) {unknown}; datasets are {list(names)}")
        return [str(labels.get(n, n)) for n in names]
    labels = list(labels)
    if len(labels) != len(names):
        raise PlotError(f"labels: got {len(labels)} labels for {len(names)} datasets {list(names)}")
    return [str(x) for x in labels]


def _order(order: Any, names: tuple[str, ...], yi: np.ndarray, weights: np.ndarray) -> np.ndarray:
    k = len(names)
    if isinstance(order, str):
        if order == "given":
            return np.arange(k)
        if order == "effect":
            return np.array(sorted(range(k), key=lambda i: (yi[i], names[i])))
        if order == "weight":
            return np.array(sorted(range(k), key=lambda i: (-weights[i], names[i])))
        if order == "name":
            return np.array(sorted(range(k), key=lambda i: (names[i].casefold(), names[i])))
        raise PlotError(f"order must be one of {ORDERS} or a sequence of dataset names, got {order!r}")
    seq = [str(x) for x in order]
    if sorted(seq) != sorted(names):
        missing = sorted(set(names) - set(seq))
        extra = sorted(set(seq) - set(names))
        raise PlotError(
            f"order: must list every dataset exactly once; missing {missing}, unknown or repeated {extra}"
        )
    pos = {n: i for i, n in enumerate(names)}
    return np.array([pos[n] for n in seq])


def _format_values(values: Sequence[Any], header: str) -> list[str]:
    """Cells of an extra column: strings as given, numbers with a shared precision (3 s.f.)."""
    out: list[str | None] = [None] * len(values)
    floats: list[tuple[int, float]] = []
    for i, v in enumerate(values):
        if v is None or (isinstance(v, float) and math.isnan(v)):
            out[i] = ""
        elif isinstance(v, str):
            out[i] = v
        elif isinstance(v, (bool, np.bool_)):
            out[i] = str(bool(v))
        elif isinstance(v, (Integral, np.integer)):
            out[i] = str(int(v)).replace("-", MINUS)
        elif isinstance(v, (Real, np.floating)):
            floats.append((i, float(v)))
        else:
            raise PlotError(f"column {header!r}: cannot display value {v!r} of type {type(v).__name__}")
    if floats:
        d = choose_decimals([v for _, v in floats], min_sig=3, min_decimals=0, max_decimals=4)
        for i, v in floats:
            out[i] = format_number(v, d, min_sig=3 if d is None else 1)
    return [s if s is not None else "" for s in out]


def _extra_columns(
    spec: Any, names: tuple[str, ...], effects: Any, side: str
) -> list[tuple[str, list[str]]]:
    """Normalise ``left_columns``/``right_columns`` to ``[(header, cells in result order)]``."""
    if spec is None:
        return []
    extra = getattr(effects, "extra", None) if effects is not None else None

    def from_extra(col: str, header: str) -> list[str]:
        if extra is None:
            raise PlotError(
                f"{side}_columns: {col!r} names a column of result.effects.extra, but the result has no "
                "extra table"
            )
        if col not in extra.columns:
            raise PlotError(
                f"{side}_columns: no column {col!r} in result.effects.extra; columns are {list(extra.columns)}"
            )
        missing = [n for n in names if n not in extra.index]
        if missing:
            raise PlotError(f"{side}_columns: result.effects.extra has no row for dataset(s) {missing}")
        return _format_values([extra.at[n, col] for n in names], header)

    cols: list[tuple[str, list[str]]] = []
    if isinstance(spec, Mapping):
        items = list(spec.items())
    elif isinstance(spec, str):
        items = [(spec, spec)]
    else:
        items = [(str(c), str(c)) for c in spec]
    for header, values in items:
        header = str(header)
        if isinstance(values, str):
            cols.append((header, from_extra(values, header)))
        elif isinstance(values, Mapping):
            missing = [n for n in names if n not in values]
            if missing:
                raise PlotError(f"{side}_columns[{header!r}]: no value for dataset(s) {missing}")
            cols.append((header, _format_values([values[n] for n in names], header)))
        else:
            vals = list(values)
            if len(vals) != len(names):
                raise PlotError(
                    f"{side}_columns[{header!r}]: {len(vals)} values for {len(names)} datasets {list(names)}"
                )
            cols.append((header, _format_values(vals, header)))
    return cols


def _means_column(
    effects: Any, names: tuple[str, ...], control: str | None, treatment: str | None
) -> tuple[list[str], list[str]] | None:
    mt = getattr(effects, "mean_treatment", None)
    mc = getattr(effects, "mean_control", None)
    if mt is None or mc is None:
        return None
    pos = {str(n): i for i, n in enumerate(effects.names)}
    missing = [n for n in names if n not in pos]
    if missing:
        raise PlotError(f"result.effects has no dataset(s) {missing}")
    mt = np.array([float(mt[pos[n]]) for n in names])
    mc = np.array([float(mc[pos[n]]) for n in names])
    if not (np.all(np.isfinite(mt)) and np.all(np.isfinite(mc))):
        return None
    d = choose_decimals(np.concatenate([mt, mc]), min_sig=3, min_decimals=0, max_decimals=4)

    def fmt(v: float) -> str:
        return format_number(v, d, min_sig=3 if d is None else 1)

    cells = [f"{fmt(c)} → {fmt(t)}" for c, t in zip(mc, mt, strict=True)]
    metric = getattr(effects, "metric", None) or "Mean"
    # header candidates, narrowest last: the layout takes the first that is not much wider than
    # the cells (the x label names the systems anyway)
    headers = [f"{metric}\ncontrol → treatment"]
    if control and treatment:
        headers = [f"{metric}\n{control} → {treatment}", f"{metric}\n{control} →\n{treatment}", *headers]
    return headers, cells


def _is_text(cells: list[str]) -> bool:
    """Left-align a column unless every non-empty cell is a number."""
    for s in cells:
        if not s:
            continue
        try:
            float(s.replace(MINUS, "-").rstrip("%"))
        except ValueError:
            return True
    return False
