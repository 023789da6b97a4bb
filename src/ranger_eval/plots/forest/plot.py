"""Publication-ready forest plot of a meta-analysis (``MetaResult``).

Layout follows the conventions of metafor's ``forest.rma`` (Viechtbauer 2010) and of Cochrane
forest plots: one row per dataset with its effect (square, area proportional to the model weight)
and confidence interval (whisker, an arrow where the x-limits clip it); the summary effect as a
diamond spanning its confidence interval; the prediction interval (``predict.rma``; Riley,
Higgins & Deeks 2011, BMJ 342:d549) as a capped line beneath it; a dotted null line at 0; text
columns for labels, optional extra data, weights and ``effect [CI]``; and a footer with the model,
heterogeneity (τ², I², Q) and the test of the summary effect.

Study confidence intervals are ``yi ± z_(1−α/2)·√vi`` (normal quantile, as metafor's forest plot
and ``escalc`` summaries); the summary CI and PI are taken from the ``MetaResult`` unchanged.

Every length is laid out in inches from text extents measured with the font actually used, so
nothing overlaps from 1 to 40+ rows; font sizes are fixed and the figure grows with the rows.
The figure is a plain :class:`matplotlib.figure.Figure` (no pyplot state) and rcParams are only
used inside ``rc_context``.
"""
from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from numbers import Integral, Real
from typing import Any

import matplotlib as mpl
import numpy as np
from matplotlib.backends.backend_agg import RendererAgg
from matplotlib.figure import Figure
from matplotlib.font_manager import FontProperties
from matplotlib.lines import Line2D
from matplotlib.markers import MarkerStyle
from matplotlib.patches import Polygon, Rectangle
from matplotlib.path import Path as MplPath
from matplotlib.ticker import FixedLocator, MaxNLocator, NullLocator

from ..effects import z_critical
from ..errors import PlotError, check_level
from ..formatting import format_level
from ._style import (
    _SUPERSCRIPT,
    FIGURE_RC,
    FONT_FAMILY,
    FONT_SIZE,
    INK,
    LIGHT_RULE,
    MINUS,
    NULL_LINE,
    RULE,
    STRIPE,
    SUMMARY,
    choose_decimals,
    format_number,
    format_percent,
    format_pvalue,
    format_stat,
    save_figure,
    tick_decimals,
    wrap_parts,
)

__all__ = ["forest_plot", "save_figure", "effect_decimals", "marker_areas", "MIN_MARKER_PT",
           "ForestLayoutError"]

ORDERS = ("given", "effect", "weight", "name")

_METHOD_NAMES = {
    "DL": "DerSimonian–Laird",
    "HE": "Hedges",
    "HS": "Hunter–Schmidt",
    "SJ": "Sidik–Jonkman",
    "ML": "ML",
    "REML": "REML",
    "EB": "empirical Bayes",
    "PM": "Paule–Mandel",
}

# Layout constants (inches unless noted).
_MARGIN = 0.12
_COL_GAP = 0.22
_PLOT_GAP = 0.16
_SUBCOL_GAP = 0.05  # between "[low," and "high]"
_EST_GAP = 0.08  # between the estimate and "[low,"
_MIN_PLOT_WIDTH = 1.2
_DEFAULT_PLOT_WIDTH = 2.8
_TICK_LEN_PT = 3.0
_TICK_PAD_PT = 2.5
_LABEL_PAD_PT = 4.0
#: Smallest side of a study square in points (capped at half the largest side): a dataset with a
#: tiny weight (RTE, WNLI in the fixed-effect GLUE forest) stays visible. Above it the square's
#: area is proportional to the weight, as in metafor's and RevMan's forest plots; smaller weights
#: are drawn at this size and the footer says so.
MIN_MARKER_PT = 3.5


class ForestLayoutError(PlotError):
    """The requested ``figsize`` cannot hold the plot at the fixed font size."""


# ----------------------------------------------------------------------------- text measurement


@lru_cache(maxsize=1)
def _renderer() -> RendererAgg:
    # 720 dpi: extents precise to 0.1 pt (Agg rounds to whole pixels).
    return RendererAgg(1, 1, 720)


def _text_width(text: str, prop: FontProperties) -> float:
    """Width in inches of ``text`` (widest line) set in ``prop``."""
    lines = [line for line in text.split("\n")]
    width = 0.0
    for line in lines:
        if line:
            w, _, _ = _renderer().get_text_width_height_descent(line, prop, ismath=False)
            width = max(width, w / 720.0)
    return width


def _line_height(size_pt: float) -> float:
    """Line height in inches (matplotlib's default line spacing 1.2 on the font size)."""
    return 1.2 * size_pt / 72.0


# ----------------------------------------------------------------------------- inputs


def effect_decimals(values: Iterable[float], precision: int | None = None) -> int | None:
    """Decimals of the ``effect [CI]`` column: ``precision`` when given, else chosen so the
    smallest non-zero ``|value|`` keeps two significant digits (2 ≤ decimals ≤ 4); ``None`` means
    scientific notation (all values tiny)."""
    if precision is not None:
        if not isinstance(precision, Integral) or precision < 0:
            raise PlotError(f"precision must be a non-negative integer, got {precision!r}")
        return int(precision)
    return choose_decimals(values, min_sig=2, min_decimals=2, max_decimals=4)


def _level_label(level: float) -> str:
    return format_level(level)


def _display_values(
    result: Any, back_transform: bool | None, s_lo: np.ndarray, s_hi: np.ndarray
) -> tuple[dict[str, Any], bool]:
    """Values on the display scale: Fisher's z → r (``tanh``) for ZCOR, taken from the result's own
    ``transformed()`` view when it offers one; otherwise the analysis scale unchanged."""
    vals: dict[str, Any] = {
        "yi": np.asarray(result.yi, dtype=float), "lo": s_lo, "hi": s_hi,
        "est": float(result.estimate), "c_lo": float(result.ci_low), "c_hi": float(result.ci_high),
        "p_lo": float(result.pi_low), "p_hi": float(result.pi_high),
    }
    if back_transform is False or (result.measure or "").upper() != "ZCOR":
        return vals, False
    view = getattr(result, "transformed", None)
    if callable(view):
        t = view()
        if getattr(t, "transform", "tanh") == "identity":
            return vals, False
        vals = {
            "yi": np.asarray(t.yi, dtype=float), "lo": np.asarray(t.yi_ci_low, dtype=float),
            "hi": np.asarray(t.yi_ci_high, dtype=float), "est": float(t.estimate),
            "c_lo": float(t.ci_low), "c_hi": float(t.ci_high), "p_lo": float(t.pi_low),
            "p_hi": float(t.pi_high),
        }
        return vals, True
    if back_transform:
        return {key: (np.tanh(v) if isinstance(v, np.ndarray) else math.tanh(v)) for key, v in vals.items()}, True
    return vals, False


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


# ----------------------------------------------------------------------------- layout records


@dataclass
class _Col:
    header: str
    cells: list[str]  # one per study row (display order)
    summary: str = ""
    pi: str = ""
    align: str = "left"  # "left" or "right"
    header_options: list[str] | None = None  # alternative headers, preferred first
    width: float = 0.0
    x: float = 0.0  # left edge, inches


def _arrow_marker(direction: str) -> MarkerStyle:
    """A filled arrowhead whose tip is the marker position (so it ends exactly at the axis edge)."""
    sign = -1.0 if direction == "left" else 1.0
    verts = [(0.0, 0.0), (-sign * 1.0, 0.42), (-sign * 1.0, -0.42), (0.0, 0.0)]
    codes = [MplPath.MOVETO, MplPath.LINETO, MplPath.LINETO, MplPath.CLOSEPOLY]
    return MarkerStyle(MplPath(verts, codes))


def _auto_xlim(core: np.ndarray, wide: np.ndarray) -> tuple[float, float]:
    """x-range: all point estimates, the summary CI, PI and 0 always; study CIs too, unless they
    reach further than half the core range beyond it *and* clipping them saves more than a quarter
    of the width (those whiskers then end in arrows)."""
    core = core[np.isfinite(core)]
    wide = wide[np.isfinite(wide)]
    c_lo, c_hi = float(core.min()), float(core.max())
    span = c_hi - c_lo
    if span <= 0:
        span = max(float(np.max(np.abs(wide))) if wide.size else 0.0, abs(c_lo), 1.0)
    lo = min(c_lo, float(wide.min()) if wide.size else c_lo)
    hi = max(c_hi, float(wide.max()) if wide.size else c_hi)
    clip_lo, clip_hi = max(lo, c_lo - 0.5 * span), min(hi, c_hi + 0.5 * span)
    if (hi - lo) > 1.3 * (clip_hi - clip_lo):
        lo, hi = clip_lo, clip_hi
    if hi <= lo:  # every value identical (zero-width intervals)
        lo, hi = c_lo - span / 2, c_hi + span / 2
    pad = 0.04 * (hi - lo)
    return lo - pad, hi + pad


def _ticks(lo: float, hi: float, plot_width: float, fixed: bool) -> tuple[np.ndarray, float, float]:
    nbins = max(3, min(8, int(plot_width / 0.55)))
    loc = MaxNLocator(nbins=nbins, steps=[1, 2, 2.5, 5, 10])
    ticks = np.asarray(loc.tick_values(lo, hi), dtype=float)
    if fixed:
        eps = 1e-9 * (hi - lo)
        ticks = ticks[(ticks >= lo - eps) & (ticks <= hi + eps)]
        return ticks, lo, hi
    step = float(ticks[1] - ticks[0])
    ticks = ticks[(ticks > lo - step) & (ticks < hi + step)]
    # snap the axis ends to the outer ticks unless that wastes more than 12% of the range per side
    span = hi - lo
    new_lo = float(ticks[0]) if lo - ticks[0] <= 0.12 * span else lo
    new_hi = float(ticks[-1]) if ticks[-1] - hi <= 0.12 * span else hi
    eps = 1e-9 * span
    ticks = ticks[(ticks >= new_lo - eps) & (ticks <= new_hi + eps)]
    return ticks, new_lo, new_hi


def _wrap(parts: list[str], sep: str, width: float, prop: FontProperties) -> list[str]:
    """Greedy wrap of ``parts`` joined by ``sep`` into lines no wider than ``width`` inches."""
    return wrap_parts(parts, sep, width, lambda text: _text_width(text, prop))


#: Rendered text at 100 dpi runs up to ~4% wider than its outline (hinting): the layout margin
#: of the figures that place text by :func:`_hinted_width` (funnel, multi-forest).
_HINT = 1.05


def _hinted_width(text: str, prop: FontProperties) -> float:
    """:func:`_text_width` with the hinting margin :data:`_HINT`."""
    return _HINT * _text_width(text, prop)


def _hinted_wrap(parts: list[str], sep: str, width: float, prop: FontProperties) -> list[str]:
    """:func:`_wrap` into lines whose hinted width (:func:`_hinted_width`) fits ``width``."""
    return _wrap(parts, sep, width / _HINT, prop)


# ----------------------------------------------------------------------------- main entry


def forest_plot(
    result: Any,
    *,
    order: str | Sequence[str] = "given",
    labels: Sequence[str] | Mapping[str, str] | None = None,
    left_columns: Any = None,
    right_columns: Any = None,
    show_means: bool | None = None,
    show_weights: bool = True,
    show_prediction: bool = True,
    title: str | None = None,
    xlabel: str | None = None,
    xlim: tuple[float, float] | None = None,
    precision: int | None = None,
    figsize: tuple[float, float] | None = None,
    control_label: str | None = None,
    treatment_label: str | None = None,
    lower_is_better: bool = False,
    label_header: str = "Dataset",
    back_transform: bool | None = None,
    stripes: bool | None = None,
    fontsize: float = FONT_SIZE,
    fontfamily: str = FONT_FAMILY,
) -> Figure:
    """Forest plot of a fitted meta-analysis ``result`` (a :class:`ranger_eval.meta.MetaResult`).

    Parameters
    ----------
    order : "given" (result order), "effect" (ascending effect, top to bottom), "weight"
        (descending weight), "name", or a sequence listing every dataset name.
    labels : row labels replacing the dataset names (sequence in result order, or name → label).
    left_columns, right_columns : extra text columns, left of the plot (after the labels) and at
        the far right. A mapping ``header → values`` where values are one per dataset (in result
        order), a mapping ``name → value``, or a string naming a column of ``result.effects.extra``;
        or a sequence of ``result.effects.extra`` column names. Numbers get a shared precision.
    show_means : add a left column "``<metric>`` control → treatment" with the mean scores from
        ``result.effects`` (default: whenever the means are available).
    show_weights, show_prediction : the weight column; the prediction-interval row (random-effects
        models only; metafor ``predict.rma``).
    xlabel : default "Favours <control> ← <measure> → Favours <treatment>" when the systems are
        known (from ``control_label``/``treatment_label`` or ``result.effects``), else the measure.
    lower_is_better : swap the "Favours" sides (positive effects favour the control).
    xlim : fixed x-range; whiskers beyond it end in arrows. Default: all point estimates, the
        summary CI and PI and 0, plus study CIs unless they are extreme outliers.
    precision : decimals of the effect column; default chosen from the data (:func:`effect_decimals`).
    figsize : (width, height) in inches; default grows with the columns and rows. A size too small
        for the fixed font raises :class:`ForestLayoutError`.
    stripes : shade every other study row (default: from 12 rows on).
    fontsize, fontfamily : the fixed body font (headers bold, ticks and footer 0.5 pt smaller).
    back_transform : for ``measure == "ZCOR"``: show correlations r = tanh(z) (None/True, through
        the result's ``transformed()`` view; True forces ``tanh`` if the result has none) or
        Fisher's z (False). Pooling always stays on the z scale.

    Returns a :class:`matplotlib.figure.Figure` (not registered with pyplot); save it with
    :func:`save_figure`.
    """
    # ---- validate and collect ---------------------------------------------------------------
    missing = [a for a in ("names", "yi", "vi", "estimate", "weights") if not hasattr(result, a)]
    if missing:
        raise PlotError(f"forest_plot needs a fitted meta-analysis (rg.meta_analysis(...), a "
                        f"MetaResult); got a {type(result).__name__} without "
                        f"{', '.join(missing)}")
    names = tuple(str(n) for n in result.names)
    yi = np.asarray(result.yi, dtype=float).ravel()
    vi = np.asarray(result.vi, dtype=float).ravel()
    weights = np.asarray(result.weights, dtype=float).ravel()
    k = len(names)
    if k == 0:
        raise PlotError("forest_plot: the result has no datasets")
    for arr, what in ((yi, "yi"), (vi, "vi"), (weights, "weights")):
        if arr.shape != (k,):
            raise PlotError(f"forest_plot: result.{what} has {arr.size} values for {k} datasets")
    bad = [n for n, y, v in zip(names, yi, vi, strict=True) if not (np.isfinite(y) and np.isfinite(v) and v >= 0)]
    if bad:
        raise PlotError(f"forest_plot: non-finite effect or invalid variance for dataset(s) {bad}")
    check_level(result.level, error=PlotError)
    if not fontsize >= 4:
        raise PlotError(f"fontsize must be at least 4 pt, got {fontsize!r}")

    effects = getattr(result, "effects", None)
    control = control_label or (getattr(effects, "control", None) if effects is not None else None)
    treatment = treatment_label or (getattr(effects, "treatment", None) if effects is not None else None)
    method = str(result.method).upper()
    fixed_model = method in ("FE", "EE", "CE")

    crit = z_critical(float(result.level))
    s_lo = yi - crit * np.sqrt(vi)
    s_hi = yi + crit * np.sqrt(vi)
    with_pi = (bool(show_prediction) and not fixed_model and np.isfinite(float(result.pi_low))
               and np.isfinite(float(result.pi_high)))

    shown, transformed = _display_values(result, back_transform, s_lo, s_hi)
    yi_d, s_lo, s_hi = shown["yi"], shown["lo"], shown["hi"]
    est, c_lo, c_hi, p_lo, p_hi = (shown[key] for key in ("est", "c_lo", "c_hi", "p_lo", "p_hi"))
    measure_label = "r" if transformed else (result.measure or "Effect")

    idx = _order(order, names, yi_d, weights)
    row_names = tuple(names[i] for i in idx)
    row_labels = [_resolve_labels(names, labels)[i] for i in idx]

    # ---- text columns -----------------------------------------------------------------------
    dec = effect_decimals(
        np.concatenate([yi_d, s_lo, s_hi, [est, c_lo, c_hi], [p_lo, p_hi] if with_pi else []]),
        precision,
    )

    def num(v: float) -> str:
        # decimals target two significant digits (capped at 4); a value that would still print as
        # zero switches to scientific notation, never "−0.0000"
        return format_number(v, dec, min_sig=2 if dec is None else 1)

    level_txt = _level_label(result.level)
    model_label = (
        ("Common effect" if method in ("EE", "CE") else "Fixed effect")
        if fixed_model
        else f"Random effects ({method})"
    )
    pi_label = f"{level_txt} prediction interval"

    label_col = _Col(label_header, row_labels, summary=model_label, pi=pi_label, align="left")
    left_cols: list[_Col] = []
    if show_means is None or show_means:
        means = _means_column(effects, row_names, control, treatment) if effects is not None else None
        if means is not None:
            left_cols.append(_Col(means[0][0], means[1], align="left", header_options=means[0]))
        elif show_means:
            raise PlotError(
                "show_means=True needs result.effects with finite mean_control and mean_treatment "
                "(fit the model on an EffectSizes)"
            )
    for header, cells in _extra_columns(left_columns, row_names, effects, "left"):
        left_cols.append(_Col(header, cells, align="left" if _is_text(cells) else "right"))

    right_cols: list[_Col] = []
    if show_weights:
        w_cells = [format_percent(weights[i]) for i in idx]
        right_cols.append(_Col("Weight", w_cells, summary="100%", align="right"))
    eff_est = _Col("", [num(yi_d[i]) for i in idx], summary=num(est), align="right")
    eff_lo = _Col("", [f"[{num(s_lo[i])}," for i in idx], summary=f"[{num(c_lo)},",
                  pi=f"[{num(p_lo)},", align="right")
    eff_hi = _Col("", [f"{num(s_hi[i])}]" for i in idx], summary=f"{num(c_hi)}]",
                  pi=f"{num(p_hi)}]", align="right")
    eff_header = f"{measure_label} [{level_txt} CI]"
    extra_right = [
        _Col(h, c, align="left" if _is_text(c) else "right")
        for h, c in _extra_columns(right_columns, row_names, effects, "right")
    ]

    # ---- fonts and measured widths ----------------------------------------------------------
    f_body = FontProperties(family=fontfamily, size=fontsize)
    f_bold = FontProperties(family=fontfamily, size=fontsize, weight="bold")
    f_small = FontProperties(family=fontfamily, size=fontsize - 0.5)
    f_title = FontProperties(family=fontfamily, size=fontsize + 1.5, weight="bold")

    def col_width(c: _Col, rows_only: bool = False) -> float:
        w = max([_text_width(s, f_body) for s in c.cells] + [0.0])
        if not rows_only:
            w = max(w, _text_width(c.summary, f_bold), _text_width(c.pi, f_body))
        return max(w, _text_width(c.header, f_bold))

    for c in [*left_cols, *right_cols, eff_est, eff_lo, eff_hi, *extra_right]:
        if c.header_options:
            limit = max(1.5 * max(_text_width(x, f_body) for x in c.cells), 1.5)
            fitting = [h for h in c.header_options if _text_width(h, f_bold) <= limit]
            c.header = fitting[0] if fitting else c.header_options[-1]
        c.width = col_width(c)
    # the summary and PI labels may run on into the left columns, which are empty on those rows
    label_col.width = col_width(label_col, rows_only=True)
    overflow = max(_text_width(label_col.summary, f_bold), _text_width(label_col.pi, f_body)) - (
        label_col.width + sum(_COL_GAP + c.width for c in left_cols)
    )
    if overflow > 0:
        label_col.width += overflow
    eff_width = eff_est.width + eff_lo.width + eff_hi.width + _EST_GAP + _SUBCOL_GAP
    eff_head_w = _text_width(eff_header, f_bold)
    eff_pad = max(0.0, eff_head_w - eff_width)
    eff_width += eff_pad

    # ---- horizontal layout ------------------------------------------------------------------
    left_w = label_col.width + sum(_COL_GAP + c.width for c in left_cols)
    right_w = sum(c.width + _COL_GAP for c in right_cols) + eff_width + sum(
        _COL_GAP + c.width for c in extra_right
    )
    fixed_w = 2 * _MARGIN + left_w + right_w + 2 * _PLOT_GAP
    if figsize is not None:
        fig_w, fig_h_req = float(figsize[0]), float(figsize[1])
        plot_w = fig_w - fixed_w
        if plot_w < _MIN_PLOT_WIDTH:
            raise ForestLayoutError(
                f"figsize width {fig_w:.2f} in leaves {plot_w:.2f} in for the plot; the text columns need "
                f"{fixed_w:.2f} in, so use a width of at least {fixed_w + _MIN_PLOT_WIDTH:.2f} in"
            )
    else:
        fig_h_req = None
        plot_w = _DEFAULT_PLOT_WIDTH

    # x range; very small or large scales get ticks in units of 10^e, stated in the x label
    if xlim is not None:
        lo, hi = (float(v) for v in xlim)
        if not (np.isfinite(lo) and np.isfinite(hi) and lo < hi):
            raise PlotError(f"xlim must be two finite numbers with low < high, got {xlim!r}")
    else:
        core = np.concatenate([yi_d, [est, c_lo, c_hi, 0.0], [p_lo, p_hi] if with_pi else []])
        lo, hi = _auto_xlim(core, np.concatenate([s_lo, s_hi]))
    exponent = math.floor(math.log10(max(abs(lo), abs(hi))))
    if -3 <= exponent <= 4:
        exponent = 0
    scale_note = f" (×10{str(exponent).translate(_SUPERSCRIPT)})".replace("-", MINUS) if exponent else ""

    # x-axis label
    if xlabel is None:
        axis_measure = f"{measure_label}{scale_note}"
        if control and treatment:
            left_sys, right_sys = (treatment, control) if lower_is_better else (control, treatment)
            xlabel = f"Favours {left_sys} ← {axis_measure} → Favours {right_sys}"
        else:
            xlabel = axis_measure
    else:
        xlabel = f"{xlabel}{scale_note}"
    xlabel_w = _text_width(xlabel, f_body)
    if figsize is None:
        # the x label is centred under the plot: it may overhang into the empty space below the
        # columns, but never beyond the margins
        half_room = min(_MARGIN + left_w + _PLOT_GAP, _MARGIN + right_w + _PLOT_GAP) + plot_w / 2
        if xlabel_w / 2 > half_room - 0.02:
            plot_w += 2 * (xlabel_w / 2 - half_room + 0.02)
    fig_w = fixed_w + plot_w
    x_plot0 = _MARGIN + left_w + _PLOT_GAP
    x_plot1 = x_plot0 + plot_w

    # footer (wrapped to the figure width)
    Q_df = int(result.Q_df)
    footer_parts: list[list[str]] = []
    if fixed_model:
        model_line = f"{model_label} model (inverse-variance weights), k = {k}"
    else:
        model_line = f"Random-effects model, τ² by {_METHOD_NAMES.get(method, method)}, k = {k}"
    footer_parts.append([model_line])
    if k > 1:
        het = []
        if not fixed_model:
            het.append(f"τ² = {format_stat(float(result.tau2))}")
        het.append(f"I² = {float(result.I2):.1f}%")
        het.append(f"Q({Q_df}) = {format_stat(float(result.Q), min_decimals=2, max_decimals=2)}")
        het.append(format_pvalue(float(result.Q_pvalue)))
        footer_parts.append(["Heterogeneity:", *het])
    else:
        footer_parts.append(["Heterogeneity: not estimable with one dataset"])
    test = str(result.test).lower()
    ddf = getattr(result, "df", None)
    ddf = int(ddf) if isinstance(ddf, (int, np.integer)) else k - 1
    stat_name = "z" if test == "z" else f"t({ddf})"
    test_prefix = "Knapp–Hartung test" if test == "knha" else "Test"
    stat_val = format_number(float(result.statistic), 2, min_sig=1)
    footer_parts.append(
        [f"{test_prefix} of the summary effect:", f"{stat_name} = {stat_val}", format_pvalue(result.pvalue)]
    )
    if transformed:
        footer_parts.append(["Effects analysed as Fisher's z and shown back-transformed to r."])
    marker_rows = np.asarray(weights[idx], dtype=float)

    def build_footer(width: float) -> list[str]:
        lines: list[str] = []
        for parts in footer_parts:
            head, rest = parts[0], parts[1:]
            if not rest:
                lines.extend(_wrap(head.split(" "), " ", width, f_small))
                continue
            first = head + " " + rest[0]
            lines.extend(_wrap([first, *rest[1:]], ", ", width, f_small))
        return lines

    avail = fig_w - 2 * _MARGIN
    if figsize is None:
        natural = build_footer(float("inf"))
        widest = max(_text_width(line, f_small) for line in natural)
        title_w = _text_width(title, f_title) if title else 0.0
        need = max(widest, title_w)
        if need > avail:
            # widen the plot rather than wrap: keeps one statistic block per line
            plot_w += need - avail
            fig_w += need - avail
            x_plot1 = x_plot0 + plot_w
            avail = fig_w - 2 * _MARGIN
    footer_stats = build_footer(avail)
    sig_lines: list[str] = []
    signature = getattr(result, "signature", None)
    if signature:  # the reproducibility line, wrapped at its field separators
        fields = str(signature).split("|")
        sig_lines = _wrap([f + "|" for f in fields[:-1]] + fields[-1:], "", avail, f_small)

    def marker_note(row_height: float) -> list[str]:
        """The footer line saying which weights are drawn at the minimum square size (if any)."""
        threshold = _min_size_ratio(row_height * 72) * float(np.max(marker_rows))
        if not np.any(marker_rows < threshold):
            return []
        text = (f"Squares: area proportional to the weight; weights below {format_percent(threshold)} "
                "are drawn at the minimum size.")
        return _wrap(text.split(" "), " ", avail, f_small)

    footer = footer_stats + sig_lines
    title_lines = _wrap(title.split(" "), " ", avail, f_title) if title else []

    # ---- vertical layout (inches from the top) ----------------------------------------------
    line_h = _line_height(fontsize)
    n_header_lines = max(c.header.count("\n") + 1 for c in [label_col, *left_cols, *right_cols, *extra_right])
    header_h = n_header_lines * line_h + 0.10
    title_h = len(title_lines) * _line_height(fontsize + 1.5) + 0.10 if title_lines else 0.0
    tick_h = (_TICK_LEN_PT + _TICK_PAD_PT) / 72 + _line_height(fontsize - 0.5)
    xlabel_h = _LABEL_PAD_PT / 72 + _line_height(fontsize)
    n_units = k + 0.6 + 1 + (1 if with_pi else 0) + 0.3  # rows, gap, summary, PI, bottom pad

    def fixed_height(footer_lines: list[str]) -> float:
        footer_h = (0.10 + len(footer_lines) * _line_height(fontsize - 0.5) * 1.1) if footer_lines else 0.0
        return 2 * _MARGIN + title_h + header_h + 0.06 + tick_h + xlabel_h + footer_h

    min_row_h = 1.3 * fontsize / 72
    if fig_h_req is not None:
        # the note on minimum-size squares depends on the row height, which depends on the footer:
        # a note only makes rows lower, which keeps (or adds) squares at the minimum size
        row_h = (fig_h_req - fixed_height(footer)) / n_units
        for _ in range(2):
            note = marker_note(row_h) if row_h > 0 else []
            if not note:
                break
            footer = footer_stats + note + sig_lines
            row_h = (fig_h_req - fixed_height(footer)) / n_units
    else:
        row_h = 1.75 * fontsize / 72
        footer = footer_stats + marker_note(row_h) + sig_lines
    fixed_h = fixed_height(footer)
    if fig_h_req is not None:
        if row_h < min_row_h:
            raise ForestLayoutError(
                f"figsize height {fig_h_req:.2f} in is too small for {k} datasets at {fontsize:g} pt; "
                f"use a height of at least {fixed_h + n_units * min_row_h:.2f} in"
            )
        fig_h = fig_h_req
    else:
        fig_h = fixed_h + n_units * row_h
        fig_h = math.ceil(fig_h * 300 - 1e-6) / 300  # whole pixels at 300 dpi (and 100, 150)

    top = fig_h - _MARGIN
    y_title = top
    y_header_top = top - title_h
    y_header_rule = y_header_top - header_h
    y_first = y_header_rule - 0.06 - row_h / 2  # centre of the first study row
    y_rows = y_first - row_h * np.arange(k)
    y_sep = y_rows[-1] - row_h * 0.8
    y_sum = y_rows[-1] - row_h * 1.6
    y_pi = y_sum - row_h if with_pi else None
    y_axes_bottom = (y_pi if y_pi is not None else y_sum) - row_h * 0.8
    y_footer_top = y_axes_bottom - tick_h - xlabel_h - 0.10

    # ---- column x positions -----------------------------------------------------------------
    x = _MARGIN
    label_col.x = x
    x += label_col.width
    for c in left_cols:
        x += _COL_GAP
        c.x = x
        x += c.width
    x = x_plot1 + _PLOT_GAP
    for c in right_cols:
        c.x = x
        x += c.width + _COL_GAP
    x += eff_pad
    eff_est.x = x
    x += eff_est.width + _EST_GAP
    eff_lo.x = x
    x += eff_lo.width + _SUBCOL_GAP
    eff_hi.x = x
    x += eff_hi.width
    eff_x1 = x
    for c in extra_right:
        x += _COL_GAP
        c.x = x
        x += c.width

    # ---- ticks ------------------------------------------------------------------------------
    ticks, lo, hi = _ticks(lo, hi, plot_w, fixed=xlim is not None)

    # ---- draw -------------------------------------------------------------------------------
    with mpl.rc_context(FIGURE_RC):
        fig = Figure(figsize=(fig_w, fig_h), dpi=100, facecolor="white")
        T = fig.dpi_scale_trans

        def put(xx: float, yy: float, s: str, prop: FontProperties, ha: str = "left", **kw: Any) -> None:
            if s:
                fig.text(xx, yy, s, transform=T, fontproperties=prop, ha=ha, va="center",
                         color=INK, parse_math=False, usetex=False, **kw)

        def put_col(c: _Col, yy: float, s: str, prop: FontProperties) -> None:
            if c.align == "left":
                put(c.x, yy, s, prop, "left")
            else:
                put(c.x + c.width, yy, s, prop, "right")

        for i, line in enumerate(title_lines):
            put(_MARGIN, y_title - (i + 0.5) * _line_height(fontsize + 1.5), line, f_title)

        # headers: bottom-aligned lines in the header band
        # headers: lines stacked upwards from just above the rule (bottom-aligned)
        def head_y(line_from_bottom: int) -> float:
            return y_header_rule + 0.05 + (line_from_bottom + 0.5) * line_h

        for c in [label_col, *left_cols, *right_cols, *extra_right]:
            lines = c.header.split("\n")
            for j, hl in enumerate(lines):
                put_col(c, head_y(len(lines) - 1 - j), hl, f_bold)
        put(eff_x1, head_y(0), eff_header, f_bold, "right")

        # rules: under the headers (full width) and a light line above the summary
        x_rule0, x_rule1 = _MARGIN, x
        fig.add_artist(Line2D([x_rule0, x_rule1], [y_header_rule, y_header_rule], transform=T,
                              color=RULE, lw=0.8, solid_capstyle="butt"))
        fig.add_artist(Line2D([x_rule0, x_rule1], [y_sep, y_sep], transform=T,
                              color=LIGHT_RULE, lw=0.6, solid_capstyle="butt"))

        # light zebra stripes help follow long tables across the plot (every other row)
        if stripes is None and k >= 12 or stripes:
            for r in range(1, k, 2):
                fig.add_artist(Rectangle((_MARGIN, float(y_rows[r]) - row_h / 2), x - _MARGIN, row_h,
                                         transform=T, facecolor=STRIPE, edgecolor="none", zorder=-1))
        # study rows
        for r in range(k):
            yy = float(y_rows[r])
            put_col(label_col, yy, label_col.cells[r], f_body)
            for c in [*left_cols, *right_cols, eff_est, eff_lo, eff_hi, *extra_right]:
                put_col(c, yy, c.cells[r], f_body)
        # summary and PI rows
        put_col(label_col, y_sum, label_col.summary, f_bold)
        for c in [*right_cols, eff_est, eff_lo, eff_hi]:
            put_col(c, y_sum, c.summary, f_bold)
        if y_pi is not None:  # with_pi
            put_col(label_col, y_pi, label_col.pi, f_body)
            for c in (eff_lo, eff_hi):
                put_col(c, y_pi, c.pi, f_body)

        # plot area: data y is inches from the figure bottom, so rows line up with the text
        ax = fig.add_axes((x_plot0 / fig_w, y_axes_bottom / fig_h, plot_w / fig_w,
                           (y_header_rule - y_axes_bottom) / fig_h))
        ax.set_xlim(lo, hi)
        ax.set_ylim(y_axes_bottom, y_header_rule)
        ax.set_facecolor("none")
        for side in ("left", "right", "top"):
            ax.spines[side].set_visible(False)
        ax.spines["bottom"].set_linewidth(0.8)
        ax.spines["bottom"].set_color(INK)
        ax.yaxis.set_major_locator(NullLocator())
        ax.yaxis.set_minor_locator(NullLocator())
        ax.xaxis.set_major_locator(FixedLocator(ticks))  # type: ignore[arg-type]  # matplotlib-stubs: locs is array-like, not only a Sequence
        ax.xaxis.set_minor_locator(NullLocator())
        scaled = ticks / 10.0**exponent
        td = tick_decimals(scaled)
        ax.set_xticks(ticks, [format_number(t, td, min_sig=1) for t in scaled], fontproperties=f_small,
                      parse_math=False)
        ax.tick_params(axis="x", which="major", direction="out", length=_TICK_LEN_PT, width=0.8,
                       pad=_TICK_PAD_PT, labelsize=fontsize - 0.5, colors=INK, labelfontfamily=fontfamily,
                       top=False, labeltop=False, bottom=True, labelbottom=True)
        ax.set_xlabel(xlabel, fontproperties=f_body, labelpad=_LABEL_PAD_PT, color=INK, parse_math=False)
        if lo < 0 < hi or lo == 0 or hi == 0:
            ax.axvline(0.0, color=NULL_LINE, lw=0.9, ls=(0, (1, 1.6)), zorder=1)

        def whisker(y0: float, a: float, b: float, color: str, lw: float, caps: bool) -> None:
            aa, bb = max(a, lo), min(b, hi)
            if bb >= aa:
                ax.plot([aa, bb], [y0, y0], color=color, lw=lw, solid_capstyle="butt", zorder=2)
            cap_h = 0.32 * row_h
            for end, clipped, direction in ((a, a < lo, "left"), (b, b > hi, "right")):
                if clipped:
                    ax.plot([lo if direction == "left" else hi], [y0], ls="none",
                            marker=_arrow_marker(direction), markersize=7, color=color, clip_on=False,
                            zorder=3)
                elif caps:
                    ax.plot([end, end], [y0 - cap_h / 2, y0 + cap_h / 2], color=color, lw=lw, zorder=2)

        inside = (yi_d[idx] >= lo) & (yi_d[idx] <= hi)
        for r in range(k):
            whisker(float(y_rows[r]), float(s_lo[idx[r]]), float(s_hi[idx[r]]), INK, 1.0, caps=False)
        sizes = marker_areas(marker_rows, row_h * 72)
        ax.scatter(yi_d[idx][inside], y_rows[inside], s=sizes[inside], marker="s", color=INK,
                   linewidths=0, zorder=4, gid="study-markers")

        dh = 0.62 * row_h
        ax.add_patch(Polygon([(c_lo, y_sum), (est, y_sum + dh / 2), (c_hi, y_sum), (est, y_sum - dh / 2)],
                             closed=True, facecolor=SUMMARY, edgecolor=SUMMARY, lw=0.6, zorder=4,
                             gid="summary-diamond"))
        for clipped, direction in ((c_lo < lo, "left"), (c_hi > hi, "right")):
            if clipped:
                ax.plot([lo if direction == "left" else hi], [y_sum], ls="none",
                        marker=_arrow_marker(direction), markersize=7, color=SUMMARY, clip_on=False)
        if y_pi is not None:  # with_pi
            whisker(float(y_pi), p_lo, p_hi, SUMMARY, 1.4, caps=True)

        foot_lh = _line_height(fontsize - 0.5) * 1.1
        for i, line in enumerate(footer):
            put(_MARGIN, y_footer_top - (i + 0.5) * foot_lh, line, f_small)
    return fig


def marker_areas(weights: np.ndarray, row_pt: float) -> np.ndarray:
    """Scatter sizes (areas in pt²) of the study squares in rows ``row_pt`` points high.

    The largest weight gets a side of 0.72 rows; area ∝ weight (side ∝ √w, as metafor's
    ``forest`` and Cochrane's RevMan scale squares by the weight) down to a side of
    ``min(MIN_MARKER_PT, half the largest side)``; smaller weights are drawn at that side.
    """
    w = np.asarray(weights, dtype=float)
    w_max = float(np.max(w)) if w.size and np.max(w) > 0 else 1.0
    max_side = 0.72 * row_pt
    return np.maximum(max_side**2 * (w / w_max), _min_size_ratio(row_pt) * max_side**2)


def _min_size_ratio(row_pt: float) -> float:
    """Area of the minimum square relative to the largest one (rows ``row_pt`` points high)."""
    max_side = 0.72 * row_pt
    return (min(MIN_MARKER_PT, 0.5 * max_side) / max_side) ** 2


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
