"""Every length of a CD diagram in inches, from the measured width of each text: the label
sides, the rank axis, the packed rows of clique bars, the footer and the figure size, in a
frozen :class:`CDLayout` (nothing is drawn here)."""
from __future__ import annotations

import math
from dataclasses import dataclass
from numbers import Real

import numpy as np

from ...errors import PlotError
from ...formatting import format_pvalue
from .._page import PAGE_W
from .._style import FONT_SIZE, MINUS, text_width_in
from .._text import wrap_parts
from .check import CDData
from .options import CDOptions

__all__ = ["CDLayout", "cd_layout"]

TICK_SIZE = FONT_SIZE - 0.5
SMALL_SIZE = 7.0
_POSTHOC_NAMES = {
    "nemenyi": "Nemenyi test",
    "bonferroni-dunn": "Bonferroni–Dunn test",
    "holm": "Holm-adjusted z-tests",
    "wilcoxon": "Holm-adjusted Wilcoxon signed-rank tests",
    "conover": "Conover's all-pairs test",
}

# layout (inches)
MARGIN = 0.15
GAP = 0.10  # line end to label
STUB = 0.25  # horizontal part of an elbow beyond the axis ends
ROW = 1.45 * FONT_SIZE / 72.0  # label rows
BAR_ROW = 0.085  # rows of clique bars
TICK = 0.06


def width_in(text: str, size: float = FONT_SIZE, bold: bool = False) -> float:
    """Width of ``text`` in inches (0 for no text)."""
    return text_width_in(text, size, bold) if text else 0.0


def line_in(size: float) -> float:
    """Height of a text line of ``size`` points, in inches."""
    return 1.25 * size / 72.0


def _wrap(parts: list[str], sep: str, width: float, size: float) -> list[str]:
    """Greedy wrap of ``parts`` joined by ``sep`` into lines at most ``width`` inches wide."""
    return wrap_parts(parts, sep, width, lambda text: width_in(text, size))


def number(value: float, decimals: int) -> str:
    """``value`` with ``decimals`` decimals and a true minus sign."""
    return f"{value:.{decimals}f}".replace("-", MINUS)


def _pvalue(p: float) -> str:
    """The Friedman p-value by the one formatter (0 from an underflow: "p < 10⁻³⁰⁰")."""
    return format_pvalue(p, 2, "unicode", prefix="p = ").replace("-", MINUS)


def _pack(spans: list[tuple[float, float]], gap: float) -> list[int]:
    """Row of every interval: the first row where it does not touch an interval already there."""
    ends: list[float] = []
    rows = []
    for lo, hi in spans:
        for r, end in enumerate(ends):
            if lo > end + gap:
                ends[r] = hi
                rows.append(r)
                break
        else:
            ends.append(hi)
            rows.append(len(ends) - 1)
    return rows


@dataclass(frozen=True)
class CDLayout:
    """The diagram in inches from the top left: figure size, the axis (``x0`` … ``x0 +
    axis_w`` at height ``axis_y``), the label text and side of every system (``left``/``right``
    lists of system indices, top row first), the clique bar spans and rows, the
    Bonferroni–Dunn band, the title and footer lines with their heights."""

    fig_w: float
    fig_h: float
    x0: float
    axis_w: float
    k: int
    reverse: bool
    text: dict[int, str]
    left: list[int]
    right: list[int]
    bold: set[int]
    tick_w: float
    spans: list[tuple[float, float]]
    bar_rows: list[int]
    n_bar_rows: int
    band: tuple[float, float] | None
    title_lines: list[str]
    title_y: list[float]
    foot: list[tuple[str, float]]
    foot_y: list[float]
    cd_y: float | None
    axis_y: float
    bars_top: float
    first_row: float

    def x_of(self, rank: float) -> float:
        """Horizontal position (inches) of an average rank on the axis."""
        p = rank if not self.reverse else (self.k + 1) - rank
        return self.x0 + (p - 1) / (self.k - 1) * self.axis_w


def _sides(data: CDData, options: CDOptions) -> tuple[list[int], list[int], dict[int, str]]:
    """The half of the axis nearer rank 1 (or k) hangs to that side: (left systems, leftmost
    first; right systems, rightmost first; the label of each)."""
    k, values, names, labels = data.k, data.values, data.names, data.labels
    pos = np.asarray(values if not options.reverse else (k + 1) - values)  # 1 = left end
    order = np.argsort(pos, kind="stable")
    n_left = math.ceil(k / 2)
    left = [int(i) for i in order[:n_left]]  # leftmost first: top row
    right = [int(i) for i in order[n_left:][::-1]]  # rightmost first: top row
    text = {}
    for i in left:
        text[i] = f"{labels.get(names[i], names[i])}  {number(values[i], options.decimals)}"
    for i in right:
        text[i] = f"{number(values[i], options.decimals)}  {labels.get(names[i], names[i])}"
    return left, right, text


def _footer(data: CDData, options: CDOptions, avail_w: float) -> list[tuple[str, float]]:
    """Lines (text, size) saying what the bars mean, the Friedman test and the signature."""
    foot: list[tuple[str, float]] = []
    if not options.footer:
        return foot
    rank_test, labels, control, posthoc = data.result, data.labels, data.control, data.posthoc
    alpha, k = data.alpha, data.k
    what = _POSTHOC_NAMES.get(posthoc, posthoc or "post-hoc test")
    nb = "\u00a0"  # no-break space: "α = 0.05" and "X ± CD" stay on one line
    alpha_txt = f", α{nb}={nb}{alpha:g}" if isinstance(alpha, Real) else ""
    n_data = getattr(rank_test, "n_datasets", None)
    ctrl = labels.get(control, control) if control in set(data.names) else None
    if posthoc == "bayesian":  # rank_test(approach="bayesian"): its decisions, not a test
        level = getattr(rank_test, "level", None)
        at = f"{nb}≥{nb}{level:g}" if isinstance(level, Real) else ""
        rope = rank_test.describe_rope() if hasattr(rank_test, "describe_rope") else "a ROPE"
        meaning = (f"Bayesian signed-rank test of every pair, {rope}. Black bars join "
                   f"practically equivalent systems (P(rope){at} for every pair), grey bars "
                   f"systems with no decided difference (some pair inconclusive); systems "
                   f"not joined differ (P{at}).")
    elif posthoc == "bonferroni-dunn" and ctrl is not None and data.cd is not None:
        meaning = (f"Bars join systems whose average ranks differ by less than the CD "
                   f"({what}{alpha_txt}); systems outside the red interval {ctrl}{nb}±{nb}CD "
                   f"differ significantly from the control {ctrl}.")
    elif posthoc == "holm" and ctrl is not None:
        meaning = (f"Bars join systems with no significant difference among them ({what} "
                   f"against the control {ctrl}{alpha_txt}; other pairs are not tested).")
    else:
        meaning = f"Bars join systems not significantly different ({what}{alpha_txt})."
    parts = meaning.split(" ")
    stat, p = getattr(rank_test, "statistic", None), getattr(rank_test, "pvalue", None)
    line2 = f"Average ranks over N = {n_data} datasets" if n_data is not None else ""
    holes = getattr(rank_test, "test", None) == "skillings-mack"  # missing cells
    if holes:
        line2 = (f"Average ranks (rescaled to 1..k) over N{nb}={nb}{n_data} datasets, "
                 f"{getattr(rank_test, 'n_missing', '?')} of {getattr(rank_test, 'n_cells', '?')}"
                 " cells missing; " + ("pairs on the datasets both share" if posthoc == "wilcoxon"
                                       else "pairs by Skillings–Mack contrasts")
                 + ", no single CD")
    if isinstance(stat, (int, float)) and isinstance(p, (int, float)):
        ties = getattr(rank_test, "tie_correction", None)
        ties_txt = "" if ties is None else (" tie-corrected" if ties else " untied")
        name = f"Skillings–Mack T({getattr(rank_test, 'statistic_df', k - 1):g})" if holes \
            else f"Friedman χ²({k - 1})"
        line2 += (("; " if line2 else "") + f"{name}{ties_txt} = "
                  f"{number(float(stat), 2)}, {_pvalue(float(p))}")
    for ln in _wrap(parts, " ", avail_w, FONT_SIZE - 0.5):
        foot.append((ln, FONT_SIZE - 0.5))
    if line2:
        for ln in _wrap((line2 + ".").split(" "), " ", avail_w, FONT_SIZE - 0.5):
            foot.append((ln, FONT_SIZE - 0.5))
    sig = getattr(rank_test, "signature", None)
    if sig:
        fields = str(sig).split("|")
        for ln in _wrap([f + "|" for f in fields[:-1]] + fields[-1:], "", avail_w, SMALL_SIZE):
            foot.append((ln, SMALL_SIZE))
    return foot


def _widths(data: CDData, options: CDOptions, side_left: float, side_right: float,
            tick_w: float) -> tuple[float, float]:
    """(figure width, axis width): the given width, or labels plus about 0.3 in per rank (3 to
    7 in of axis) kept within one page (:data:`~ranger_eval.plots._page.PAGE_W`) while the
    axis keeps room for its tick labels."""
    k = data.k
    min_axis = max(1.2, (k - 1) * 0.6 * tick_w + tick_w)
    if options.width is None:
        axis_w = min(7.0, max(3.0, 0.3 * (k - 1)))
        axis_w = max(min(axis_w, PAGE_W - side_left - side_right), min(axis_w, min_axis))
        return side_left + axis_w + side_right, axis_w
    fig_w = float(options.width)
    axis_w = fig_w - side_left - side_right
    if axis_w < min_axis:
        need = side_left + side_right + min_axis
        raise PlotError(
            f"width={options.width!r} in is too narrow for these labels: a width of at least "
            f"{need:.2f} in is needed"
        )
    return fig_w, axis_w


def cd_layout(data: CDData, options: CDOptions) -> CDLayout:
    """Lay out the diagram: labels | stub | axis | stub | labels across; title, CD scale bar,
    tick labels, axis, clique bars, label rows and footer down."""
    k, values, names, cd = data.k, data.values, data.names, data.cd
    left, right, text = _sides(data, options)
    bold = {names.index(data.control)} if data.control in set(names) else set()
    left_w = max(width_in(text[i], bold=i in bold) for i in left)
    right_w = max((width_in(text[i], bold=i in bold) for i in right), default=0.0)
    tick_w = width_in(str(k), TICK_SIZE)
    side_left = MARGIN + left_w + GAP + STUB
    side_right = STUB + GAP + right_w + MARGIN
    fig_w, axis_w = _widths(data, options, side_left, side_right, tick_w)
    x0 = side_left

    def x_of(rank: float) -> float:
        p = rank if not options.reverse else (k + 1) - rank
        return x0 + (p - 1) / (k - 1) * axis_w

    # clique bars (and the Bonferroni–Dunn band), packed into rows
    pad = 0.05
    spans = []
    for clique in data.cliques:
        xs = [x_of(values[names.index(s)]) for s in clique]
        spans.append((min(xs) - pad, max(xs) + pad))
    bar_rows = _pack(spans, 0.06)
    n_bar_rows = max(bar_rows, default=-1) + 1
    band = None
    if data.posthoc == "bonferroni-dunn" and cd is not None and data.control in set(names):
        rc = values[names.index(data.control)]
        lo, hi = max(1.0, rc - cd), min(float(k), rc + cd)
        band = (min(x_of(lo), x_of(hi)), max(x_of(lo), x_of(hi)))
        n_bar_rows += 1

    avail_w = fig_w - 2 * MARGIN
    foot = _footer(data, options, avail_w)
    title = options.title
    title_lines = _wrap(title.split(" "), " ", avail_w, FONT_SIZE + 1.5) if title else []

    # vertical layout (inches from the top)
    y = MARGIN
    title_y = []
    for _ in title_lines:
        title_y.append(y)
        y += line_in(FONT_SIZE + 1.5)
    if title_lines:
        y += 0.08
    cd_y = None
    if cd is not None:
        cd_y = y + line_in(FONT_SIZE)  # baseline of the "CD = " text; bar just under it
        y = cd_y + 0.12
    tick_label_y = y + line_in(TICK_SIZE)
    axis_y = tick_label_y + 0.05 + TICK
    bars_top = axis_y + 0.13
    first_row = bars_top + n_bar_rows * BAR_ROW + (0.06 if n_bar_rows else 0.0) + 0.5 * ROW
    n_rows = max(len(left), len(right))
    last_row = first_row + (n_rows - 1) * ROW
    y = last_row + 0.5 * ROW + 0.12
    foot_y = []
    for _, size in foot:
        foot_y.append(y)
        y += line_in(size)
    fig_h = y + MARGIN - 0.05
    return CDLayout(
        fig_w=fig_w, fig_h=fig_h, x0=x0, axis_w=axis_w, k=k, reverse=options.reverse,
        text=text, left=left, right=right, bold=bold, tick_w=tick_w, spans=spans,
        bar_rows=bar_rows, n_bar_rows=n_bar_rows, band=band, title_lines=title_lines,
        title_y=title_y, foot=foot, foot_y=foot_y, cd_y=cd_y, axis_y=axis_y,
        bars_top=bars_top, first_row=first_row,
    )
