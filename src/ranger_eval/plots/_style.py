"""Shared look of Ranger's figures: fonts, colours, number formatting and saving.

Nothing here touches ``matplotlib.rcParams`` globally: styles are applied through
``matplotlib.rc_context`` (at creation and at save time) and explicit artist properties.
"""
from __future__ import annotations

import contextlib
import math
from collections.abc import Callable, Iterable, Iterator, Sequence
from os import PathLike
from pathlib import Path
from typing import TYPE_CHECKING, Any

import matplotlib as mpl
import numpy as np
from matplotlib.figure import Figure
from matplotlib.font_manager import FontProperties

from .._version import __version__
from ..atomic import atomic_path
from ..errors import PlotError
from ..formatting import format_percent as _format_percent
from ..formatting import format_pvalue as _format_pvalue

if TYPE_CHECKING:
    from matplotlib.typing import RcKeyType

#: Font family of every text; DejaVu Sans ships with matplotlib and has the glyphs we print
#: (− → τ ² ≥ ×).
FONT_FAMILY = "DejaVu Sans"
#: Body font size in points (labels, numbers); headers use the same size in bold.
FONT_SIZE = 9.0

INK = "#1a1a1a"  # study markers, whiskers, text
SUMMARY = "#1f3a5f"  # summary diamond and prediction interval
NULL_LINE = "#595959"
RULE = "#1a1a1a"  # rule under the column headers
LIGHT_RULE = "#b3b3b3"  # separation line above the summary
STRIPE = "#f2f2f2"  # zebra stripes of long tables

MINUS = "\u2212"
_SUPERSCRIPT = str.maketrans("0123456789-", "⁰¹²³⁴⁵⁶⁷⁸⁹⁻")

#: rcParams used while a figure is built (only inside ``rc_context``). ``text.parse_math`` off and
#: ``text.usetex`` off make every text (titles, ticks, legends, names) literal: a system called
#: ``$x_1$ & 50%`` is drawn as typed, never as mathtext or TeX (issue 11).
FIGURE_RC: dict[RcKeyType, Any] = {
    "font.family": "sans-serif",
    "font.sans-serif": [FONT_FAMILY],
    "font.size": FONT_SIZE,
    "axes.unicode_minus": True,
    "text.usetex": False,
    "text.parse_math": False,
    "lines.solid_capstyle": "butt",
    "figure.facecolor": "white",
    "axes.facecolor": "white",
}


def text_width_in(text: str, size: float = FONT_SIZE, bold: bool = False) -> float:
    """Width of ``text`` in inches (from the glyph outlines; no renderer needed), with a 5%
    margin for hinting at low raster resolutions. Drawn literally (no mathtext)."""
    from matplotlib.textpath import text_to_path

    width = max((text_to_path.get_text_width_height_descent(line, font(size, bold=bold), ismath=False)[0]
                 for line in str(text).split("\n") if line), default=0.0)
    return 1.05 * float(width) / 72.0


def wrap_parts(parts: Sequence[str], sep: str, width: float,
               measure: Callable[[str], float]) -> list[str]:
    """Greedy wrap of ``parts`` joined by ``sep`` into lines whose ``measure`` (width in inches)
    is at most ``width``; a part wider than ``width`` gets a line of its own."""
    lines: list[str] = []
    cur = ""
    for part in parts:
        trial = part if not cur else cur + sep + part
        if cur and measure(trial) > width:
            lines.append(cur + sep.rstrip())
            cur = part
        else:
            cur = trial
    if cur:
        lines.append(cur)
    return lines


def add_signature(fig: Figure, signature: object, size: float = FONT_SIZE - 2.5) -> None:
    """Print the reproducibility signature small and grey below everything else in ``fig``.

    The text sits just under the figure's bottom edge and :func:`save_figure` saves such figures
    with a tight bounding box, so the footer never overlaps the plot and never changes its layout.
    """
    if not signature:
        return
    fig.text(0.01, -0.01, str(signature), fontproperties=font(size), color="#555555",
             ha="left", va="top", gid="ranger-signature", parse_math=False, usetex=False)
    fig._ranger_tight = True  # type: ignore[attr-defined]


def save_rc(svg_fonttype: str = "none") -> dict[RcKeyType, Any]:
    """rcParams used while saving: TrueType (Type 42) fonts in PDF/PS, editable or outlined SVG text,
    reproducible SVG ids, and literal text (no mathtext, no TeX) for any tick label created while
    saving (issue 11)."""
    if svg_fonttype not in ("none", "path"):
        raise PlotError(f"svg_fonttype must be 'none' or 'path', got {svg_fonttype!r}")
    return {
        "pdf.fonttype": 42,
        "ps.fonttype": 42,
        "svg.fonttype": svg_fonttype,
        "svg.hashsalt": "ranger-eval",
        "text.parse_math": False,
        "text.usetex": False,
        "savefig.facecolor": "white",
        "savefig.edgecolor": "white",
    }


def font(size: float = FONT_SIZE, *, bold: bool = False, family: str = FONT_FAMILY) -> FontProperties:
    """Explicit font properties, so the figure does not depend on the caller's rcParams."""
    return FontProperties(family=family, size=size, weight="bold" if bold else "normal")


# ----------------------------------------------------------------------------- numbers


def _finite_nonzero(values: Iterable[float]) -> np.ndarray:
    arr = np.asarray([v for v in values if v is not None], dtype=float).ravel()
    return np.abs(arr[np.isfinite(arr) & (arr != 0)])


def choose_decimals(
    values: Iterable[float], *, min_sig: int = 2, min_decimals: int = 2, max_decimals: int = 4
) -> int | None:
    """Decimals for a column of numbers: enough that the smallest non-zero ``|value|`` keeps
    ``min_sig`` significant digits, at least ``min_decimals``, at most ``max_decimals``.

    Returns ``None`` when even the largest ``|value|`` would keep fewer than ``min_sig``
    significant digits at ``max_decimals`` decimals: the column is then printed in scientific
    notation (see :func:`format_number`).
    """
    mags = _finite_nonzero(values)
    if mags.size == 0:
        return min_decimals
    smallest, largest = float(mags.min()), float(mags.max())
    if largest < 10.0 ** (min_sig - 1 - max_decimals):
        return None
    # digits needed so that `smallest` shows min_sig significant digits (0.001234 -> 4: 0.0012)
    needed = min_sig - 1 - math.floor(math.log10(smallest))
    if round(smallest, needed) >= 10.0 ** (math.floor(math.log10(smallest)) + 1):
        needed -= 1  # 0.0996 rounds to 0.10: one decimal fewer suffices
    return int(min(max(needed, min_decimals), max_decimals))


def format_scientific(value: float, sig: int = 2) -> str:
    """``1.2×10⁻⁵`` with ``sig`` significant digits and a true minus sign."""
    if value == 0 or not math.isfinite(value):
        return format_number(value, 0)
    mantissa, exponent = f"{value:.{sig - 1}e}".split("e")
    exp = int(exponent)
    return f"{mantissa}×10{str(exp).translate(_SUPERSCRIPT)}".replace("-", MINUS)


def format_number(value: float, decimals: int | None, *, min_sig: int = 2) -> str:
    """Fixed-point with ``decimals`` and a true minus sign (U+2212).

    ``decimals=None`` means scientific notation. A non-zero value that would print as zero
    (or with fewer than ``min_sig`` significant digits) at ``decimals`` is printed in scientific
    notation instead, so nothing ever reads ``−0.00``.
    """
    value = float(value)
    if math.isnan(value):
        return "NA"
    if math.isinf(value):
        return ("" if value > 0 else MINUS) + "∞"
    if decimals is None:
        return format_scientific(value, min_sig) if value != 0 else "0"
    text = f"{value:.{decimals}f}"
    shown = abs(float(text))
    if value != 0 and shown < 10.0 ** (min_sig - 1 - decimals) * (1 - 1e-9):
        return format_scientific(value, max(min_sig, 2))
    if shown == 0:
        text = text.lstrip("-")
    return text.replace("-", MINUS)


def format_stat(value: float, *, min_sig: int = 2, min_decimals: int = 2, max_decimals: int = 4) -> str:
    """One statistic (τ², Q, z) with its own precision chosen by :func:`choose_decimals`."""
    if value == 0:
        return "0"
    return format_number(
        value,
        choose_decimals([value], min_sig=min_sig, min_decimals=min_decimals, max_decimals=max_decimals),
        min_sig=min_sig,
    )


def format_pvalue(p: float) -> str:
    """``p = 0.034``, ``p = 0.0012``, ``p = 3.2×10⁻⁶``: :func:`ranger_eval.formatting.format_pvalue`
    with two significant digits in the figures' (unicode) style."""
    return _format_pvalue(p, 2, "unicode", prefix="p = ")


def format_percent(fraction: float) -> str:
    """Weights as percentages with one decimal; ``<0.1%`` for tiny positive weights."""
    return _format_percent(fraction, 1)


def tick_decimals(ticks: Sequence[float] | np.ndarray, max_decimals: int = 6) -> int:
    """Fewest decimals that print every tick exactly (0.25 → 2, 0.1 → 1, 5 → 0)."""
    for d in range(max_decimals + 1):
        if all(abs(round(t, d) - t) <= 1e-9 * max(1.0, abs(t)) for t in ticks):
            return d
    return max_decimals


# ----------------------------------------------------------------------------- saving

_FORMATS = ("pdf", "svg", "png", "eps", "ps", "jpg", "jpeg", "tif", "tiff", "webp")


@contextlib.contextmanager
def _lean_font_subsets() -> Iterator[None]:
    """While saving a PDF/PS, embed font subsets without the OpenType layout tables (GSUB, GPOS,
    GDEF, kern …): matplotlib has already placed every glyph (kerning included) and a PDF draws
    glyph ids, so the tables are never read by a viewer; decompiling them was half the time of
    writing a PDF (fontTools ``subset``), and the files get smaller. Text stays TrueType (Type 42),
    embedded, with its ToUnicode map, so it is still searchable and copyable."""
    try:
        from fontTools import subset
    except ImportError:  # pragma: no cover (matplotlib requires fontTools)
        yield
        return
    original = subset.Options.__init__

    def lean(self: Any, *args: Any, **kwargs: Any) -> None:
        original(self, *args, **kwargs)
        self.drop_tables = [*self.drop_tables, *_LAYOUT_TABLES]
        self.layout_features = []

    subset.Options.__init__ = lean
    try:
        yield
    finally:
        subset.Options.__init__ = original


_LAYOUT_TABLES = ("GSUB", "GPOS", "GDEF", "BASE", "JSTF", "MATH", "kern")


def _tight_bbox_inches(fig: Figure, pad: float, dpi: float) -> Any:
    """The figure's drawn extent in inches plus ``pad`` — what ``bbox_inches="tight"`` computes
    (matplotlib ``Figure.get_tightbbox``) — from one Agg layout pass at the output ``dpi`` (text
    extents depend on the resolution through hinting). As in matplotlib's own ``print_figure``,
    the pass runs with the renderer's drawing disabled (``_draw_disabled``): every artist is laid
    out, nothing is rasterised."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    canvas = fig.canvas if isinstance(fig.canvas, FigureCanvasAgg) else FigureCanvasAgg(fig)
    original_dpi = fig.dpi
    try:
        fig.dpi = dpi
        renderer = canvas.get_renderer()
        with getattr(renderer, "_draw_disabled", contextlib.nullcontext)():
            fig.draw(renderer)  # finalise text positions and tick labels before measuring
        return fig.get_tightbbox(renderer).padded(pad)
    finally:
        fig.dpi = original_dpi


def save_figure(
    fig: Figure,
    path_or_stem: str | PathLike[str],
    formats: Sequence[str] | None = None,
    *,
    dpi: float = 300,
    svg_fonttype: str = "none",
) -> list[Path]:
    """Save ``fig`` for publication; returns the written paths.

    ``path_or_stem`` is either a stem (``out/forest`` → ``out/forest.pdf``, ``.svg``, ``.png``) or a
    file name with a known suffix, which then selects the single format when ``formats`` is None.
    PDF/PS embed TrueType (Type 42) fonts; SVG keeps text as editable ``<text>`` with
    ``svg_fonttype="none"`` or converts it to outlines with ``"path"``; raster formats use ``dpi``.
    Metadata dates are omitted so the vector files are reproducible. rcParams are only changed
    inside ``rc_context``.
    """
    path = Path(path_or_stem)
    suffix = path.suffix.lower().lstrip(".")
    if suffix in _FORMATS:
        stem = path.with_suffix("")
        if formats is None:
            formats = (suffix,)
    else:
        stem = path
        if formats is None:
            formats = ("pdf", "svg", "png")
    if isinstance(formats, str):
        formats = (formats,)
    bad = [f for f in formats if f.lower().lstrip(".") not in _FORMATS]
    if bad:
        raise PlotError(f"unsupported figure format(s) {bad}; choose from {list(_FORMATS)}")
    stem.parent.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    creator = f"ranger-eval {__version__} (matplotlib {mpl.__version__})"
    with mpl.rc_context(save_rc(svg_fonttype)):
        # A figure with a signature footer is cropped to its drawn extent. matplotlib's
        # bbox_inches="tight" finds that extent by drawing the whole figure once more for every
        # format; it is the same box for every format, so find it once and pass it as a Bbox.
        bbox: Any = None
        if getattr(fig, "_ranger_tight", False):
            bbox = _tight_bbox_inches(fig, pad=0.08, dpi=dpi)
        for fmt in formats:
            fmt = fmt.lower().lstrip(".")
            out = stem.parent / f"{stem.name}.{fmt}"
            if fmt == "pdf":
                metadata: dict[str, object] | None = {"Creator": creator, "CreationDate": None}
            elif fmt == "svg":
                metadata = {"Creator": creator, "Date": None}
            elif fmt == "png":
                metadata = {"Software": creator}
            else:
                metadata = None
            lean = _lean_font_subsets() if fmt in ("pdf", "ps", "eps") else contextlib.nullcontext()
            with atomic_path(out) as tmp, lean:
                fig.savefig(tmp, format=fmt, dpi=dpi, metadata=metadata, facecolor="white",
                            bbox_inches=bbox, pad_inches=0 if bbox is not None else "layout")
            written.append(out)
    return written
