"""Where everything of a multi-system forest plot goes, in inches (:func:`layout` →
:class:`MultiForestLayout`): the label column, the plotting area, the optional decimal-aligned
``effect [CI]`` column, the legend (wrapped over the figure width), the footer and the rows (one
per dataset, the systems dodged inside it; then one summary row per system). Text is placed by
its hinted width (:func:`ranger_eval.plots._text.hinted_width`), at a fixed font size; the
figure grows to hold it. Nothing here draws."""
from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass

import numpy as np

from ...formatting import format_level
from .._axis import EffectAxis, axis_heights, effect_decimals
from .._style import TAU2_METHOD_NAMES, format_number, format_pvalue, format_stat
from .._text import hinted_width as text_width
from .._text import hinted_wrap, line_height, wrap_footer, wrap_signature
from .options import MultiForestColumns, MultiForestStyle
from .systems import SystemValues

__all__ = ["MARGIN", "SAMPLE_W", "MultiForestLayout", "ValuesColumn", "layout"]

MARGIN = 0.12
_COL_GAP = 0.22
_PLOT_GAP = 0.16
_EST_GAP = 0.08
_SUBCOL_GAP = 0.05
#: Width in inches of a legend entry's sample (a line through the system's marker).
SAMPLE_W = 0.30


@dataclass(frozen=True)
class ValuesColumn:
    """The ``effect [CI]`` column: per dataset row and system the cells (estimate, "[low,",
    "high]"; None where the system lacks the dataset), per system the summary cells, the header,
    and the right edges of its three sub-columns (set by the layout)."""

    cells: tuple[tuple[tuple[str, str, str] | None, ...], ...]
    summaries: tuple[tuple[str, str, str], ...]
    header: str
    widths: tuple[float, float, float]  # estimate, "[low,", "high]"
    pad: float  # widens the column to its header
    width: float


@dataclass(frozen=True)
class MultiForestLayout:
    """Positions in inches (y from the figure bottom) of everything a multi-forest plot draws."""

    size: tuple[float, float]
    plot: tuple[float, float]  # left edge and width of the plotting area
    values_x: float  # left edge of the values column
    value_edges: tuple[float, float, float]  # right edges of its estimate, "[low,", "high]"
    values: ValuesColumn | None
    ticks: np.ndarray
    xlim: tuple[float, float]
    title_lines: tuple[str, ...]
    legend_rows: tuple[tuple[tuple[int, float], ...], ...]  # (system index, entry width) per row
    footer: tuple[str, ...]
    sig_lines: tuple[str, ...]
    line_h: float
    sub_h: float  # height of one system within a dataset row
    row_h: float
    sum_h: float  # height of a summary row
    y_legend_top: float
    y_header_rule: float
    y_row_top: float
    row_centres: np.ndarray
    offsets: np.ndarray  # of each system from its row's centre (first system on top)
    y_sep: float
    y_sums: np.ndarray
    y_axes_bottom: float
    y_footer_top: float
    foot_lh: float
    sig_lh: float


def values_column(systems: list[SystemValues], datasets: list[str], columns: MultiForestColumns,
                  measure_label: str, style: MultiForestStyle) -> ValuesColumn:
    """The ``effect [CI]`` column with decimals from :func:`effect_decimals`."""
    f_body, f_bold = style.body, style.bold
    all_vals = np.concatenate(
        [np.concatenate([s.yi, s.lo, s.hi, [s.est, s.c_lo, s.c_hi]]) for s in systems])
    dec = effect_decimals(all_vals, columns.precision)

    def num(v: float) -> str:
        return format_number(v, dec, min_sig=2 if dec is None else 1)

    val_cells: list[tuple[tuple[str, str, str] | None, ...]] = []
    for n in datasets:
        cells: list[tuple[str, str, str] | None] = []
        for s in systems:
            if n in s.pos:
                i = s.pos[n]
                cells.append((num(s.yi[i]), f"[{num(s.lo[i])},", f"{num(s.hi[i])}]"))
            else:
                cells.append(None)
        val_cells.append(tuple(cells))
    sum_cells = tuple((num(s.est), f"[{num(s.c_lo)},", f"{num(s.c_hi)}]") for s in systems)
    flat = [c for row in val_cells for c in row if c is not None]
    w_est = max([text_width(c[0], f_body) for c in flat]
                + [text_width(c[0], f_bold) for c in sum_cells])
    w_lo = max([text_width(c[1], f_body) for c in flat]
               + [text_width(c[1], f_bold) for c in sum_cells])
    w_hi = max([text_width(c[2], f_body) for c in flat]
               + [text_width(c[2], f_bold) for c in sum_cells])
    val_header = f"{measure_label} [{format_level(float(systems[0].res.level))} CI]"
    val_w = w_est + _EST_GAP + w_lo + _SUBCOL_GAP + w_hi
    val_pad = max(0.0, text_width(val_header, f_bold) - val_w)
    val_w += val_pad
    return ValuesColumn(tuple(val_cells), sum_cells, val_header, (w_est, w_lo, w_hi), val_pad,
                        val_w)


def footer_parts(systems: list[SystemValues], transformed: bool) -> list[list[str]]:
    """The footer's statements: each system's model, τ², I² and test; the back-transformation;
    what the intervals are."""
    level = float(systems[0].res.level)
    parts_all: list[list[str]] = []
    for s in systems:
        res = s.res
        k = len(res.names)
        parts = [f"{s.name}:"]
        if s.fixed:
            parts.append(f"{s.model()} model, k = {k}")
        else:
            method = str(res.method).upper()
            parts.append(f"random effects ({TAU2_METHOD_NAMES.get(method, method)}), k = {k}")
            parts.append(f"τ² = {format_stat(float(res.tau2))}")
        if k > 1:
            parts.append(f"I² = {float(res.I2):.1f}%")
        name = "z" if res.test == "z" else f"t({k - 1})"
        parts.append(f"{name} = {format_number(float(res.statistic), 2, min_sig=1)}")
        parts.append(format_pvalue(float(res.pvalue)))
        parts_all.append(parts)
    if transformed:
        parts_all.append(["Effects analysed as Fisher's z and shown back-transformed to r."])
    parts_all.append([f"Study intervals: {format_level(level)} normal CIs; diamonds: "
                      f"{format_level(level)} CIs of the summary effects"
                      + ("; lines through them: prediction intervals" if any(
                          s.with_pi for s in systems) else "") + "."])
    return parts_all


def layout(systems: list[SystemValues], row_labels: list[str], values: ValuesColumn | None,
           axis: EffectAxis, footer: list[list[str]], title: str | None,
           columns: MultiForestColumns, style: MultiForestStyle) -> MultiForestLayout:
    """Lay out the rows of ``row_labels`` and the summaries of ``systems`` around a plot on
    ``axis``, with the ``values`` column (or None), legend, ``title`` and ``footer``."""
    f_small, f_sig = style.small, style.signature
    sum_labels = [f"{s.name} ({s.model()})" for s in systems]
    label_w = max([text_width(t, style.body) for t in row_labels]
                  + [text_width(t, style.bold) for t in sum_labels]
                  + [text_width(columns.label_header, style.bold)])
    x_plot0 = MARGIN + label_w + _PLOT_GAP
    fig_w, plot_w = _across(x_plot0, values, axis.label, style)
    legend_rows, fig_w, plot_w, avail = _legend_rows(systems, fig_w, plot_w, style)
    # footer: widen the plot rather than wrap (one system per footer line)
    natural = wrap_footer(footer, math.inf, f_small, hinted_wrap)
    title_w = text_width(title, style.title) if title else 0.0
    need = max(max(text_width(line, f_small) for line in natural[:-1] or natural), title_w)
    if need > avail:
        grow = need - avail
        plot_w += grow
        fig_w += grow
        avail += grow
    footer_lines = wrap_footer(footer, avail, f_small, hinted_wrap)
    sigs: list[str] = []
    for s in systems:
        sig = str(getattr(s.res, "signature", "") or "")
        if sig and sig not in sigs:
            sigs.append(sig)
    sig_lines: list[str] = []
    for sig in sigs:
        sig_lines += wrap_signature(sig, avail, f_sig, hinted_wrap)
    title_lines = hinted_wrap(title.split(" "), " ", avail, style.title) if title else []
    x_val0 = x_plot0 + plot_w + _PLOT_GAP
    ticks, lo, hi = axis.ticks(plot_w)
    down = _down((len(systems), len(row_labels)), values is not None,
                 (len(title_lines), len(legend_rows), len(footer_lines), len(sig_lines)), style)
    return MultiForestLayout(
        size=(fig_w, down.fig_h), plot=(x_plot0, plot_w), values_x=x_val0,
        value_edges=_value_edges(values, x_val0), values=values, ticks=ticks, xlim=(lo, hi),
        title_lines=tuple(title_lines), legend_rows=legend_rows, footer=tuple(footer_lines),
        sig_lines=tuple(sig_lines),
        **{f.name: getattr(down, f.name) for f in dataclasses.fields(down) if f.name != "fig_h"},
    )


def _across(x_plot0: float, values: ValuesColumn | None, xlabel: str,
            style: MultiForestStyle) -> tuple[float, float]:
    """The figure's width and the plot's (``style.plot_width``, widened so that the x label,
    centred under the plot, stays inside the figure)."""
    val_w = values.width if values is not None else 0.0
    plot_w = float(style.plot_width)
    half_room = min(x_plot0, _PLOT_GAP + (val_w + _COL_GAP if values is not None else 0.0) + MARGIN)
    xlabel_w = text_width(xlabel, style.body)
    if xlabel_w / 2 > half_room + plot_w / 2 - 0.02:
        plot_w = 2 * (xlabel_w / 2 - half_room + 0.02)
    x_plot1 = x_plot0 + plot_w
    if values is None:
        return x_plot1 + max(_PLOT_GAP, 0.3) + MARGIN, plot_w
    return x_plot1 + _PLOT_GAP + val_w + MARGIN, plot_w


def _legend_rows(systems: list[SystemValues], fig_w: float, plot_w: float,
                 style: MultiForestStyle
                 ) -> tuple[tuple[tuple[tuple[int, float], ...], ...], float, float, float]:
    """The legend's rows of (system index, entry width) wrapped over the figure, the figure's and
    the plot's widths (widened when one entry is wider than the figure), and the width available
    for text."""
    entries = [(j, SAMPLE_W + 0.06 + text_width(s.name, style.body)) for j, s in enumerate(systems)]
    avail = fig_w - 2 * MARGIN
    widest_entry = max(w for _, w in entries)
    if widest_entry > avail:  # widen the plot rather than the margins
        plot_w += widest_entry - avail
        fig_w += widest_entry - avail
        avail = widest_entry
    legend_rows: list[list[tuple[int, float]]] = [[]]
    used = 0.0
    for e, w in entries:
        need = w if not legend_rows[-1] else w + 0.25
        if legend_rows[-1] and used + need > avail:
            legend_rows.append([])
            used, need = 0.0, w
        legend_rows[-1].append((e, w))
        used += need
    return tuple(tuple(row) for row in legend_rows), fig_w, plot_w, avail


@dataclass(frozen=True)
class _Down:
    """The vertical layout of a multi-forest plot (inches; y from the figure bottom)."""

    fig_h: float
    line_h: float
    sub_h: float
    row_h: float
    sum_h: float
    y_legend_top: float
    y_header_rule: float
    y_row_top: float
    row_centres: np.ndarray
    offsets: np.ndarray
    y_sep: float
    y_sums: np.ndarray
    y_axes_bottom: float
    y_footer_top: float
    foot_lh: float
    sig_lh: float


def _down(shape: tuple[int, int], with_values: bool, lines: tuple[int, int, int, int],
          style: MultiForestStyle) -> _Down:
    """Heights and y positions for ``shape`` = (systems, datasets) and the numbers of ``lines``
    = (title, legend rows, footer, signature): a dataset row holds one sub-row per system (taller
    with the values column), then a summary row per system."""
    S, K = shape
    n_title, n_legend, n_footer, n_sig = lines
    fontsize = style.fontsize
    line_h = line_height(fontsize)
    sub_h = (1.25 if with_values else 0.95) * fontsize / 72  # one system within a row
    row_gap = 0.45 * fontsize / 72
    row_h = S * sub_h + row_gap
    sum_h = 1.45 * fontsize / 72
    title_h = n_title * line_height(fontsize + 1.5) + 0.08 if n_title else 0.0
    legend_h = n_legend * line_h * 1.2 + 0.08
    header_h = line_h + 0.08
    tick_h, xlabel_h = axis_heights(fontsize)
    foot_lh = line_height(fontsize - 0.5) * 1.1
    sig_lh = line_height(style.signature.get_size_in_points()) * 1.1
    footer_h = 0.10 + n_footer * foot_lh + (0.04 + n_sig * sig_lh if n_sig else 0)
    body_h = 0.06 + K * row_h + 0.5 * sum_h + S * sum_h + 0.4 * sum_h
    fig_h = 2 * MARGIN + title_h + legend_h + header_h + body_h + tick_h + xlabel_h + footer_h
    fig_h = math.ceil(fig_h * 300 - 1e-6) / 300

    top = fig_h - MARGIN
    y_legend_top = top - title_h
    y_header_rule = y_legend_top - legend_h - header_h
    y_row_top = y_header_rule - 0.06
    y_sums = y_row_top - K * row_h - 0.5 * sum_h - sum_h * (np.arange(S) + 0.5)
    y_axes_bottom = float(y_sums[-1] - 0.9 * sum_h)
    return _Down(
        fig_h=fig_h, line_h=line_h, sub_h=sub_h, row_h=row_h, sum_h=sum_h,
        y_legend_top=y_legend_top, y_header_rule=y_header_rule, y_row_top=y_row_top,
        row_centres=y_row_top - row_h * (np.arange(K) + 0.5),
        offsets=((S - 1) / 2 - np.arange(S)) * sub_h, y_sep=y_row_top - K * row_h - 0.25 * sum_h,
        y_sums=y_sums, y_axes_bottom=y_axes_bottom,
        y_footer_top=y_axes_bottom - tick_h - xlabel_h - 0.10, foot_lh=foot_lh, sig_lh=sig_lh,
    )


def _value_edges(values: ValuesColumn | None, x_val0: float) -> tuple[float, float, float]:
    """Right edges of the values column's estimate, "[low," and "high]" (decimal-aligned)."""
    if values is None:
        return (x_val0, x_val0, x_val0)
    w_est, w_lo, w_hi = values.widths
    x_est = x_val0 + values.pad + w_est
    x_lo = x_est + _EST_GAP + w_lo
    return x_est, x_lo, x_lo + _SUBCOL_GAP + w_hi
