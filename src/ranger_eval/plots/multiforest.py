"""Multi-system forest plot: several treatments against one control on a shared x axis.

One row per dataset holds one marker and confidence interval per system, dodged vertically in a
fixed system order (colour *and* marker shape tell the systems apart, so the figure survives
greyscale printing and colour-vision deficiencies: Okabe & Ito's palette); a legend names the
systems; at the bottom each system's summary effect is a diamond spanning its confidence interval
(optionally with its prediction interval). Optional decimal-aligned ``effect [CI]`` columns repeat
the numbers. The footer states each system's model and heterogeneity and the reproducibility
signatures.

Study intervals are ``yi ± z_(1−α/2)·√vi`` (as :func:`ranger_eval.plots.forest_plot`); summary
intervals come from each ``MetaResult`` unchanged. Layout is computed in inches from measured
text extents at a fixed font size; nothing overlaps. The figure is a plain
:class:`matplotlib.figure.Figure` and rcParams are only used inside ``rc_context``.
"""
from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import matplotlib as mpl
import numpy as np
from matplotlib.figure import Figure
from matplotlib.font_manager import FontProperties
from matplotlib.lines import Line2D
from matplotlib.patches import Polygon, Rectangle
from matplotlib.ticker import FixedLocator, NullLocator

from ..effects import z_critical
from ..errors import PlotError, check_level
from ..formatting import format_level
from ._axis import arrow_marker as _arrow_marker
from ._axis import auto_xlim as _auto_xlim
from ._axis import axis_ticks as _ticks
from ._axis import display_values as _display_values
from ._axis import effect_decimals
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
    format_number,
    format_pvalue,
    format_stat,
    tick_decimals,
)
from ._text import hinted_width as _text_width
from ._text import hinted_wrap as _wrap
from ._text import line_height as _line_height

__all__ = ["multi_forest_plot", "SYSTEM_COLORS", "SYSTEM_MARKERS"]


#: Okabe–Ito colours (without yellow, too pale on white), one per system.
SYSTEM_COLORS = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000")
#: Marker shapes, one per system (so greyscale prints stay readable).
SYSTEM_MARKERS = ("o", "s", "^", "D", "v", "P", "X")
ORDERS = ("given", "name", "effect")

_METHOD_NAMES = {
    "DL": "DerSimonian–Laird", "HE": "Hedges", "HS": "Hunter–Schmidt", "SJ": "Sidik–Jonkman",
    "ML": "ML", "REML": "REML", "EB": "empirical Bayes", "PM": "Paule–Mandel",
}
_MARGIN = 0.12
_COL_GAP = 0.22
_PLOT_GAP = 0.16
_EST_GAP = 0.08
_SUBCOL_GAP = 0.05
_TICK_LEN_PT = 3.0
_TICK_PAD_PT = 2.5
_LABEL_PAD_PT = 4.0
_MARKER_PT = 5.0
#: marker sizes that look equally large (a triangle of the circle's size looks smaller)
_MARKER_SCALE = {"o": 1.0, "s": 0.9, "^": 1.15, "v": 1.15, "D": 0.85, "P": 1.05, "X": 1.05}


def _check_results(results: Any) -> list[tuple[str, Any]]:
    if not isinstance(results, Mapping) or len(results) == 0:
        raise PlotError("multi_forest_plot needs a non-empty mapping system name -> MetaResult")
    items = [(str(name), res) for name, res in results.items()]
    for name, res in items:
        if hasattr(res, "coef_names"):
            raise PlotError(f"results[{name!r}] is a meta-regression; pass MetaResult objects")
        for attr in ("names", "yi", "vi", "estimate", "ci_low", "ci_high", "level", "method"):
            if not hasattr(res, attr):
                raise PlotError(f"results[{name!r}] is not a MetaResult (no {attr!r})")
        yi, vi = np.asarray(res.yi, dtype=float), np.asarray(res.vi, dtype=float)
        if yi.shape != (len(res.names),) or vi.shape != yi.shape:
            raise PlotError(f"results[{name!r}]: yi/vi do not match its {len(res.names)} names")
        if not (np.all(np.isfinite(yi)) and np.all(np.isfinite(vi)) and np.all(vi >= 0)):
            raise PlotError(f"results[{name!r}]: non-finite effect or invalid variance")
        check_level(res.level, error=PlotError)
    levels = {float(r.level) for _, r in items}
    if len(levels) > 1:
        raise PlotError(f"the results use different confidence levels {sorted(levels)}; refit them "
                        "at one level to share the axis")
    measures = {(r.measure or "").upper() for _, r in items}
    if len(measures) > 1:
        raise PlotError(f"the results use different effect measures {sorted(measures)}; one axis "
                        "needs one measure")
    return items


def multi_forest_plot(
    results: Mapping[str, Any],
    *,
    order: str | Sequence[str] = "given",
    labels: Mapping[str, str] | None = None,
    show_values: bool = False,
    show_prediction: bool = False,
    title: str | None = None,
    xlabel: str | None = None,
    xlim: tuple[float, float] | None = None,
    precision: int | None = None,
    plot_width: float = 3.2,
    colors: Sequence[str] | None = None,
    markers: Sequence[str] | None = None,
    control_label: str | None = None,
    lower_is_better: bool = False,
    label_header: str = "Dataset",
    back_transform: bool | None = None,
    fontsize: float = FONT_SIZE,
    fontfamily: str = FONT_FAMILY,
) -> Figure:
    """Forest plot of several systems, each against the same control, one row per dataset.

    Parameters
    ----------
    results : mapping system name → :class:`ranger_eval.meta.MetaResult` (same effect measure and
        level), in legend and dodging order (first system on top in each row). Datasets missing
        for a system are left empty in its sub-row.
    order : dataset rows "given" (first appearance over the results), "name", "effect" (mean
        effect over the systems, ascending), or a sequence listing every dataset.
    labels : dataset name → row label.
    show_values : add a decimal-aligned ``effect [CI]`` column (one line per system and row, and
        the summaries in bold).
    show_prediction : draw each system's prediction interval (random-effects models) as a line
        through its summary diamond.
    xlabel : default "Favours <control> ← <measure> → Favours <system>" when the control is known
        (``control_label`` or the results' ``effects.control``), else the measure.
    xlim : fixed x range; whiskers beyond it end in arrows. Default as ``forest_plot``.
    precision : decimals of the values column (default chosen from the data).
    plot_width : width of the plotting area in inches.
    colors, markers : one per system (default Okabe–Ito colours and 7 marker shapes; more than 7
        systems need both).
    back_transform : ZCOR effects are shown as correlations r = tanh(z) (default) unless False.

    Returns a :class:`matplotlib.figure.Figure` (not registered with pyplot).
    """
    items = _check_results(results)
    S = len(items)
    if not fontsize >= 4:
        raise PlotError(f"fontsize must be at least 4 pt, got {fontsize!r}")
    if not plot_width >= 1.2:
        raise PlotError(f"plot_width must be at least 1.2 inches, got {plot_width!r}")
    if colors is None:
        if S > len(SYSTEM_COLORS):
            raise PlotError(f"{S} systems: pass colors= and markers= (the defaults have "
                            f"{len(SYSTEM_COLORS)})")
        colors = SYSTEM_COLORS[:S]
    if markers is None:
        if S > len(SYSTEM_MARKERS):
            raise PlotError(f"{S} systems: pass markers= (the defaults have {len(SYSTEM_MARKERS)})")
        markers = SYSTEM_MARKERS[:S]
    colors, markers = list(colors), list(markers)
    if len(colors) < S or len(markers) < S:
        raise PlotError(f"colors and markers need one entry per system ({S})")
    level = float(items[0][1].level)
    crit = z_critical(level)

    # ---- values per system on the display scale -------------------------------------------------
    systems = []
    transformed = False
    for (name, res), col, mk in zip(items, colors, markers, strict=False):
        yi = np.asarray(res.yi, dtype=float)
        se = np.sqrt(np.asarray(res.vi, dtype=float))
        shown, tr = _display_values(res, back_transform, yi - crit * se, yi + crit * se)
        transformed = transformed or tr
        fixed = str(res.method).upper() in ("FE", "EE", "CE")
        with_pi = (show_prediction and not fixed and math.isfinite(shown["p_lo"])
                   and math.isfinite(shown["p_hi"]))
        systems.append({
            "name": name, "res": res, "color": col, "marker": mk, "fixed": fixed,
            "pos": {str(n): i for i, n in enumerate(res.names)}, "with_pi": with_pi, **shown,
        })

    # ---- rows ----------------------------------------------------------------------------------
    datasets: list[str] = []
    for s in systems:
        for n in s["pos"]:
            if n not in datasets:
                datasets.append(n)
    if isinstance(order, str):
        if order == "name":
            datasets.sort(key=lambda n: (n.casefold(), n))
        elif order == "effect":
            def mean_effect(n: str) -> float:
                vals = [s["yi"][s["pos"][n]] for s in systems if n in s["pos"]]
                return float(np.mean(vals))
            datasets.sort(key=lambda n: (mean_effect(n), n))
        elif order != "given":
            raise PlotError(f"order must be one of {ORDERS} or a sequence of dataset names, got "
                            f"{order!r}")
    else:
        seq = [str(x) for x in order]
        if sorted(seq) != sorted(datasets):
            raise PlotError(
                f"order: must list every dataset exactly once; missing "
                f"{sorted(set(datasets) - set(seq))}, unknown or repeated "
                f"{sorted(set(seq) - set(datasets)) or [x for x in seq if seq.count(x) > 1]}"
            )
        datasets = seq
    labels = dict(labels or {})
    unknown = sorted(set(map(str, labels)) - set(datasets))
    if unknown:
        raise PlotError(f"labels: unknown dataset(s) {unknown}; datasets are {datasets}")
    row_labels = [str(labels.get(n, n)) for n in datasets]
    K = len(datasets)

    # ---- text ----------------------------------------------------------------------------------
    f_body = FontProperties(family=fontfamily, size=fontsize)
    f_bold = FontProperties(family=fontfamily, size=fontsize, weight="bold")
    f_small = FontProperties(family=fontfamily, size=fontsize - 0.5)
    f_sig = FontProperties(family=fontfamily, size=max(4.0, fontsize - 1.5))
    f_title = FontProperties(family=fontfamily, size=fontsize + 1.5, weight="bold")
    measure = items[0][1].measure
    measure_label = "r" if transformed else (measure or "Effect")

    all_vals = np.concatenate(
        [np.concatenate([s["yi"], s["lo"], s["hi"], [s["est"], s["c_lo"], s["c_hi"]]])
         for s in systems])
    dec = effect_decimals(all_vals, precision)

    def num(v: float) -> str:
        return format_number(v, dec, min_sig=2 if dec is None else 1)

    def model_of(s: dict[str, Any]) -> str:
        method = str(s["res"].method).upper()
        if s["fixed"]:
            return "common effect" if method in ("EE", "CE") else "fixed effect"
        return f"RE, {method}"

    sum_labels = [f"{s['name']} ({model_of(s)})" for s in systems]
    label_w = max([_text_width(t, f_body) for t in row_labels]
                  + [_text_width(t, f_bold) for t in sum_labels]
                  + [_text_width(label_header, f_bold)])

    # values column: est | [lo, | hi]
    val_cells: list[list[tuple[str, str, str] | None]] = []
    if show_values:
        for n in datasets:
            cells: list[tuple[str, str, str] | None] = []
            for s in systems:
                if n in s["pos"]:
                    i = s["pos"][n]
                    cells.append((num(s["yi"][i]), f"[{num(s['lo'][i])},", f"{num(s['hi'][i])}]"))
                else:
                    cells.append(None)
            val_cells.append(cells)
        sum_cells = [(num(s["est"]), f"[{num(s['c_lo'])},", f"{num(s['c_hi'])}]") for s in systems]
        flat = [c for row in val_cells for c in row if c is not None]
        w_est = max([_text_width(c[0], f_body) for c in flat]
                    + [_text_width(c[0], f_bold) for c in sum_cells])
        w_lo = max([_text_width(c[1], f_body) for c in flat]
                   + [_text_width(c[1], f_bold) for c in sum_cells])
        w_hi = max([_text_width(c[2], f_body) for c in flat]
                   + [_text_width(c[2], f_bold) for c in sum_cells])
        val_header = f"{measure_label} [{format_level(level)} CI]"
        val_w = w_est + _EST_GAP + w_lo + _SUBCOL_GAP + w_hi
        val_pad = max(0.0, _text_width(val_header, f_bold) - val_w)
        val_w += val_pad
    else:
        val_w = 0.0

    # ---- x range and label ------------------------------------------------------------------------
    if xlim is not None:
        lo, hi = (float(v) for v in xlim)
        if not (math.isfinite(lo) and math.isfinite(hi) and lo < hi):
            raise PlotError(f"xlim must be two finite numbers with low < high, got {xlim!r}")
    else:
        core = np.concatenate([np.concatenate(
            [s["yi"], [s["est"], s["c_lo"], s["c_hi"], 0.0],
             [s["p_lo"], s["p_hi"]] if s["with_pi"] else []]) for s in systems])
        wide = np.concatenate([np.concatenate([s["lo"], s["hi"]]) for s in systems])
        lo, hi = _auto_xlim(core, wide)
    exponent = math.floor(math.log10(max(abs(lo), abs(hi))))
    if -3 <= exponent <= 4:
        exponent = 0
    scale_note = (f" (×10{str(exponent).translate(_SUPERSCRIPT)})".replace("-", MINUS)
                  if exponent else "")
    if control_label is None:
        controls = {getattr(getattr(s["res"], "effects", None), "control", None) for s in systems}
        control_label = controls.pop() if len(controls) == 1 else None
    if xlabel is None:
        axis = f"{measure_label}{scale_note}"
        if control_label:
            left_s, right_s = (("system", control_label) if lower_is_better
                               else (control_label, "system"))
            xlabel = f"Favours {left_s} ← {axis} → Favours {right_s}"
        else:
            xlabel = axis
    else:
        xlabel = f"{xlabel}{scale_note}"

    # ---- horizontal layout ----------------------------------------------------------------------
    plot_w = float(plot_width)
    x_plot0 = _MARGIN + label_w + _PLOT_GAP
    half_room = min(x_plot0, _PLOT_GAP + (val_w + _COL_GAP if show_values else 0.0) + _MARGIN)
    xlabel_w = _text_width(xlabel, f_body)
    if xlabel_w / 2 > half_room + plot_w / 2 - 0.02:
        plot_w = 2 * (xlabel_w / 2 - half_room + 0.02)
    x_plot1 = x_plot0 + plot_w
    x_val0 = x_plot1 + _PLOT_GAP
    fig_w = x_val0 + (val_w if show_values else 0.0) + _MARGIN
    if not show_values:
        fig_w = x_plot1 + max(_PLOT_GAP, 0.3) + _MARGIN

    # legend: sample marker + system name, wrapped over the figure width
    sample_w = 0.30
    entries = [(s, sample_w + 0.06 + _text_width(s["name"], f_body)) for s in systems]
    avail = fig_w - 2 * _MARGIN
    widest_entry = max(w for _, w in entries)
    if widest_entry > avail:  # widen the plot rather than the margins
        plot_w += widest_entry - avail
        fig_w += widest_entry - avail
        avail = widest_entry
    legend_rows: list[list[tuple[dict[str, Any], float]]] = [[]]
    used = 0.0
    for e, w in entries:
        need = w if not legend_rows[-1] else w + 0.25
        if legend_rows[-1] and used + need > avail:
            legend_rows.append([])
            used, need = 0.0, w
        legend_rows[-1].append((e, w))
        used += need

    # footer
    footer_parts: list[list[str]] = []
    for s in systems:
        res = s["res"]
        k = len(res.names)
        parts = [f"{s['name']}:"]
        if s["fixed"]:
            parts.append(f"{model_of(s)} model, k = {k}")
        else:
            method = str(res.method).upper()
            parts.append(f"random effects ({_METHOD_NAMES.get(method, method)}), k = {k}")
            parts.append(f"τ² = {format_stat(float(res.tau2))}")
        if k > 1:
            parts.append(f"I² = {float(res.I2):.1f}%")
        name = "z" if res.test == "z" else f"t({k - 1})"
        parts.append(f"{name} = {format_number(float(res.statistic), 2, min_sig=1)}")
        parts.append(format_pvalue(float(res.pvalue)))
        footer_parts.append(parts)
    if transformed:
        footer_parts.append(["Effects analysed as Fisher's z and shown back-transformed to r."])
    footer_parts.append([f"Study intervals: {format_level(level)} normal CIs; diamonds: "
                         f"{format_level(level)} CIs of the summary effects"
                         + ("; lines through them: prediction intervals" if any(
                             s["with_pi"] for s in systems) else "") + "."])

    def build_footer(width: float) -> list[str]:
        lines: list[str] = []
        for parts in footer_parts:
            if len(parts) == 1:
                lines.extend(_wrap(parts[0].split(" "), " ", width, f_small))
            else:
                lines.extend(_wrap([parts[0] + " " + parts[1], *parts[2:]], ", ", width, f_small))
        return lines

    natural = build_footer(math.inf)
    title_w = _text_width(title, f_title) if title else 0.0
    need = max(max(_text_width(line, f_small) for line in natural[:-1] or natural), title_w)
    if need > avail:
        grow = need - avail  # widen the plot rather than wrap: one system per footer line
        plot_w += grow
        fig_w += grow
        avail += grow
    x_plot1 = x_plot0 + plot_w
    x_val0 = x_plot1 + _PLOT_GAP
    footer = build_footer(avail)
    sigs: list[str] = []
    for s in systems:
        sig = str(getattr(s["res"], "signature", "") or "")
        if sig and sig not in sigs:
            sigs.append(sig)
    sig_lines: list[str] = []
    for sig in sigs:
        fields = sig.split("|")
        sig_lines += _wrap([f + "|" for f in fields[:-1]] + fields[-1:], "", avail, f_sig)
    title_lines = _wrap(title.split(" "), " ", avail, f_title) if title else []

    # ---- vertical layout (inches from the top) ----------------------------------------------------
    line_h = _line_height(fontsize)
    sub_h = (1.25 if show_values else 0.95) * fontsize / 72  # one system within a row
    row_gap = 0.45 * fontsize / 72
    row_h = S * sub_h + row_gap
    sum_h = 1.45 * fontsize / 72
    title_h = len(title_lines) * _line_height(fontsize + 1.5) + 0.08 if title_lines else 0.0
    legend_h = len(legend_rows) * line_h * 1.2 + 0.08
    header_h = line_h + 0.08
    tick_h = (_TICK_LEN_PT + _TICK_PAD_PT) / 72 + _line_height(fontsize - 0.5)
    xlabel_h = _LABEL_PAD_PT / 72 + _line_height(fontsize)
    foot_lh = _line_height(fontsize - 0.5) * 1.1
    sig_lh = _line_height(f_sig.get_size_in_points()) * 1.1
    footer_h = 0.10 + len(footer) * foot_lh + (0.04 + len(sig_lines) * sig_lh if sig_lines else 0)
    body_h = 0.06 + K * row_h + 0.5 * sum_h + S * sum_h + 0.4 * sum_h
    fig_h = 2 * _MARGIN + title_h + legend_h + header_h + body_h + tick_h + xlabel_h + footer_h
    fig_h = math.ceil(fig_h * 300 - 1e-6) / 300

    top = fig_h - _MARGIN
    y_legend_top = top - title_h
    y_header_rule = y_legend_top - legend_h - header_h
    y_row_top = y_header_rule - 0.06
    row_centres = y_row_top - row_h * (np.arange(K) + 0.5)
    offsets = ((S - 1) / 2 - np.arange(S)) * sub_h  # first system on top
    y_sep = y_row_top - K * row_h - 0.25 * sum_h
    y_sums = y_row_top - K * row_h - 0.5 * sum_h - sum_h * (np.arange(S) + 0.5)
    y_axes_bottom = y_sums[-1] - 0.9 * sum_h
    y_footer_top = y_axes_bottom - tick_h - xlabel_h - 0.10

    ticks, lo, hi = _ticks(lo, hi, plot_w, fixed=xlim is not None)

    with mpl.rc_context(FIGURE_RC):
        fig = Figure(figsize=(fig_w, fig_h), dpi=100, facecolor="white")
        T = fig.dpi_scale_trans

        def put(x: float, y: float, s: str, prop: FontProperties, ha: str = "left",
                **kw: Any) -> None:
            if s:
                fig.text(x, y, s, transform=T, fontproperties=prop, ha=ha, va="center",
                         color=kw.pop("color", INK), parse_math=False, usetex=False, **kw)

        for i, line in enumerate(title_lines):
            put(_MARGIN, top - (i + 0.5) * _line_height(fontsize + 1.5), line, f_title)

        # legend
        for r, entries_row in enumerate(legend_rows):
            yy = y_legend_top - (r + 0.5) * line_h * 1.2
            x = _MARGIN
            for s, w in entries_row:
                fig.add_artist(Line2D([x, x + sample_w], [yy, yy], transform=T, color=s["color"],
                                      lw=1.1))
                fig.add_artist(Line2D([x + sample_w / 2], [yy], transform=T, ls="none",
                                      marker=s["marker"],
                                      markersize=_MARKER_PT * _MARKER_SCALE.get(s["marker"], 1.0),
                                      markerfacecolor=s["color"], markeredgecolor="white",
                                      markeredgewidth=0.5))
                put(x + sample_w + 0.06, yy, s["name"], f_body)
                x += w + 0.25

        # header and rules
        y_head = y_header_rule + 0.04 + line_h / 2
        put(_MARGIN, y_head, label_header, f_bold)
        x_end = fig_w - _MARGIN if show_values else x_plot1
        if show_values:
            put(x_val0 + val_w, y_head, val_header, f_bold, ha="right")
        fig.add_artist(Line2D([_MARGIN, x_end], [y_header_rule, y_header_rule], transform=T,
                              color=RULE, lw=0.8))
        fig.add_artist(Line2D([_MARGIN, x_end], [y_sep, y_sep], transform=T, color=LIGHT_RULE,
                              lw=0.6))
        for r in range(1, K, 2):  # zebra stripes group each dataset's systems
            fig.add_artist(Rectangle((_MARGIN, y_row_top - (r + 1) * row_h), x_end - _MARGIN,
                                     row_h, transform=T, facecolor=STRIPE, edgecolor="none",
                                     zorder=-1))

        # row labels and values
        if show_values:
            x_est = x_val0 + val_pad + w_est
            x_lo = x_est + _EST_GAP + w_lo
            x_hi = x_lo + _SUBCOL_GAP + w_hi
        for r, lab in enumerate(row_labels):
            put(_MARGIN, float(row_centres[r]), lab, f_body)
            if show_values:
                for j in range(S):
                    cell = val_cells[r][j]
                    yy = float(row_centres[r] + offsets[j])
                    if cell is None:
                        put(x_est, yy, "–", f_body, ha="right")
                        continue
                    put(x_est, yy, cell[0], f_body, ha="right")
                    put(x_lo, yy, cell[1], f_body, ha="right")
                    put(x_hi, yy, cell[2], f_body, ha="right")
        for j in range(S):
            yy = float(y_sums[j])
            put(_MARGIN, yy, sum_labels[j], f_bold)
            if show_values:
                put(x_est, yy, sum_cells[j][0], f_bold, ha="right")
                put(x_lo, yy, sum_cells[j][1], f_bold, ha="right")
                put(x_hi, yy, sum_cells[j][2], f_bold, ha="right")

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
        ax.xaxis.set_major_locator(FixedLocator(ticks))  # type: ignore[arg-type]
        ax.xaxis.set_minor_locator(NullLocator())
        scaled = ticks / 10.0**exponent
        td = tick_decimals(scaled)
        ax.set_xticks(ticks, [format_number(t, td, min_sig=1) for t in scaled],
                      fontproperties=f_small, parse_math=False)
        ax.tick_params(axis="x", direction="out", length=_TICK_LEN_PT, width=0.8,
                       pad=_TICK_PAD_PT, colors=INK)
        ax.set_xlabel(xlabel, fontproperties=f_body, labelpad=_LABEL_PAD_PT, color=INK,
                      parse_math=False)
        if lo <= 0.0 <= hi:
            ax.axvline(0.0, color=NULL_LINE, lw=0.9, ls=(0, (1, 1.6)), zorder=1)

        def whisker(y0: float, a: float, b: float, color: str, lw: float) -> None:
            aa, bb = max(a, lo), min(b, hi)
            if bb >= aa:
                ax.plot([aa, bb], [y0, y0], color=color, lw=lw, solid_capstyle="butt", zorder=2)
            for clipped, direction in ((a < lo, "left"), (b > hi, "right")):
                if clipped:
                    ax.plot([lo if direction == "left" else hi], [y0], ls="none",
                            marker=_arrow_marker(direction), markersize=5.5, color=color,
                            clip_on=False, zorder=3)

        for j, s in enumerate(systems):
            xs, ys = [], []
            for r, n in enumerate(datasets):
                if n not in s["pos"]:
                    continue
                i = s["pos"][n]
                yy = float(row_centres[r] + offsets[j])
                whisker(yy, float(s["lo"][i]), float(s["hi"][i]), s["color"], 1.0)
                if lo <= s["yi"][i] <= hi:
                    xs.append(float(s["yi"][i]))
                    ys.append(yy)
            ax.plot(xs, ys, ls="none", marker=s["marker"],
                    markersize=_MARKER_PT * _MARKER_SCALE.get(s["marker"], 1.0),
                    markerfacecolor=s["color"], markeredgecolor="white", markeredgewidth=0.5,
                    zorder=4, gid=f"system-{j}-markers")
            yy = float(y_sums[j])
            dh = 0.62 * sum_h
            if s["with_pi"]:
                whisker(yy, s["p_lo"], s["p_hi"], s["color"], 1.0)
            c_lo, c_hi, est = s["c_lo"], s["c_hi"], s["est"]
            ax.add_patch(Polygon([(c_lo, yy), (est, yy + dh / 2), (c_hi, yy), (est, yy - dh / 2)],
                                 closed=True, facecolor=s["color"], edgecolor=s["color"],
                                 lw=0.6, zorder=4, gid=f"system-{j}-diamond"))
            for clipped, direction in ((c_lo < lo, "left"), (c_hi > hi, "right")):
                if clipped:
                    ax.plot([lo if direction == "left" else hi], [yy], ls="none",
                            marker=_arrow_marker(direction), markersize=6, color=s["color"],
                            clip_on=False)

        for i, line in enumerate(footer):
            put(_MARGIN, y_footer_top - (i + 0.5) * foot_lh, line, f_small)
        y_sig = y_footer_top - len(footer) * foot_lh - 0.04
        for i, line in enumerate(sig_lines):
            put(_MARGIN, y_sig - (i + 0.5) * sig_lh, line, f_sig, color="#4d4d4d")
    return fig
