"""Shared look of Ranger's figures: fonts, colours, number formatting and saving.

Nothing here touches ``matplotlib.rcParams`` globally: styles are applied through
``matplotlib.rc_context`` (at creation and at save time) and explicit artist properties.
"""
from __future__ import annotations

import contextlib
import math
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
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
from ._text import hinted_width, hinted_wrap, wrap_signature

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
#: ``$x_1$ & 50%`` is drawn as typed, never as mathtext or TeX (a name is data,
#: not markup).
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


def add_signature(fig: Figure, signature: object, size: float = FONT_SIZE - 2.5) -> None:
    """Print the reproducibility signature small and grey below everything else in ``fig``.

    The text sits just under the figure's bottom edge and :func:`save_figure` saves such figures
    with a tight bounding box, so the footer never overlaps the plot and never changes its layout.
    A signature wider than the figure breaks after its ``|`` into lines as wide as the figure
    (else the tight box would widen a narrow figure to the signature's length and leave the
    rest of the canvas empty); joining the lines gives the signature back.
    """
    if not signature:
        return

    text, prop = str(signature), font(size)
    room = 0.98 * float(fig.get_figwidth())
    if hinted_width(text, prop) > room:
        text = "\n".join(wrap_signature(text, room, prop, hinted_wrap))
    fig.text(0.01, -0.01, text, fontproperties=prop, color="#555555",
             ha="left", va="top", gid="ranger-signature", parse_math=False, usetex=False)
    fig._ranger_tight = True  # type: ignore[attr-defined]


def save_rc(svg_fonttype: str = "none") -> dict[RcKeyType, Any]:
    """rcParams used while saving: TrueType (Type 42) fonts in PDF/PS, editable or outlined SVG text,
    reproducible SVG ids, and literal text (no mathtext, no TeX) for any tick label created while
    saving (a name is data, not markup)."""
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


@dataclass(frozen=True)
class PlotStyle:
    """The fixed font of a figure laid out from its text (forest, multi-forest and funnel plots):
    body text at ``fontsize`` points in ``fontfamily``, headers bold, ticks and footers 0.5 pt
    smaller, titles 1.5 pt larger and bold. The figure grows with its text; the font never
    shrinks to fit.

    The styles of the single plots add their sizes: :class:`ranger_eval.plots.ForestStyle`,
    :class:`ranger_eval.plots.MultiForestStyle`, :class:`ranger_eval.plots.FunnelStyle`.
    """

    fontsize: float = FONT_SIZE
    fontfamily: str = FONT_FAMILY

    def __post_init__(self) -> None:
        if not self.fontsize >= 4:
            raise PlotError(f"fontsize must be at least 4 pt, got {self.fontsize!r}")

    @property
    def body(self) -> FontProperties:
        """Row labels and numbers."""
        return FontProperties(family=self.fontfamily, size=self.fontsize)

    @property
    def bold(self) -> FontProperties:
        """Column headers and summary rows."""
        return FontProperties(family=self.fontfamily, size=self.fontsize, weight="bold")

    @property
    def small(self) -> FontProperties:
        """Tick labels, legends and footers (0.5 pt smaller)."""
        return FontProperties(family=self.fontfamily, size=self.fontsize - 0.5)

    @property
    def title(self) -> FontProperties:
        """The title (1.5 pt larger, bold)."""
        return FontProperties(family=self.fontfamily, size=self.fontsize + 1.5, weight="bold")


def put_text(fig: Figure, x: float, y: float, text: str, prop: FontProperties, ha: str = "left",
             color: str = INK) -> None:
    """``text`` at (x, y) inches from the figure's bottom left, vertically centred, drawn literally
    (no mathtext, no TeX); nothing for an empty string."""
    if text:
        fig.text(x, y, text, transform=fig.dpi_scale_trans, fontproperties=prop, ha=ha,
                 va="center", color=color, parse_math=False, usetex=False)


#: metafor's τ² estimators by their full names, as the figures' footers print them.
TAU2_METHOD_NAMES = {
    "DL": "DerSimonian–Laird",
    "HE": "Hedges",
    "HS": "Hunter–Schmidt",
    "SJ": "Sidik–Jonkman",
    "ML": "ML",
    "REML": "REML",
    "EB": "empirical Bayes",
    "PM": "Paule–Mandel",
}


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
def _lean_font_subsets() -> Iterator[bool]:
    """While saving a PDF/PS, embed font subsets without the OpenType layout tables (GSUB, GPOS,
    GDEF, kern …), and make each subset once per font and process.

    * Layout tables: matplotlib has already placed every glyph (kerning included) and a PDF draws
      glyph ids, so the tables are never read by a viewer; decompiling them was half the time of
      writing a PDF (fontTools ``subset``), and the files get smaller.
    * Reuse (:func:`_reused_glyph_subsets`): subsetting parses the whole font (DejaVu Sans has
      6,000 glyphs), 40 ms a time, two or three times per figure. Each subset holds the glyphs
      asked for plus printable ASCII and the symbols the figures print (:data:`_COMMON_TEXT`),
      so most requests are the same subset, made once per process.

    Text stays TrueType (Type 42), embedded, with its ToUnicode map, so it is still searchable
    and copyable."""
    try:
        from fontTools import subset
    except ImportError:  # pragma: no cover (matplotlib requires fontTools)
        yield False
        return
    original = subset.Options.__init__

    def lean(self: Any, *args: Any, **kwargs: Any) -> None:
        original(self, *args, **kwargs)
        self.drop_tables = [*self.drop_tables, *_LAYOUT_TABLES]
        self.layout_features = []

    subset.Options.__init__ = lean
    try:
        with _reused_glyph_subsets() as reused:
            yield reused
    finally:
        subset.Options.__init__ = original


_LAYOUT_TABLES = ("GSUB", "GPOS", "GDEF", "BASE", "JSTF", "MATH", "kern")

#: Characters whose glyphs every cached font subset holds (see :func:`_reused_glyph_subsets`).
_COMMON_TEXT = "".join(map(chr, range(0x20, 0x7F))) + "−×·–—…±≤≥→²⁰¹²³⁴⁵⁶⁷⁸⁹⁻ατŠíá"

#: (font file, face, size, mtime) → the glyph ids of :data:`_COMMON_TEXT` in that font.
_COMMON_IDS: dict[tuple[str, int, int, int], frozenset[int]] = {}
#: Subsets kept per process (each some 10–60 KB); the oldest is dropped first.
_MAX_SUBSETS = 64
#: ((font file, face, size, mtime), glyph ids) → (subset font file bytes, old → new glyph id).
_SUBSETS: dict[tuple[tuple[str, int, int, int], frozenset[int]], tuple[bytes, dict[int, int]]] = {}


def _common_glyph_ids(key: tuple[str, int, int, int]) -> frozenset[int]:
    ids = _COMMON_IDS.get(key)
    if ids is None:
        from matplotlib.ft2font import FT2Font

        charmap = FT2Font(key[0], face_index=key[1]).get_charmap()
        ids = frozenset(int(charmap[ord(c)]) for c in _COMMON_TEXT if ord(c) in charmap)
        _COMMON_IDS[key] = ids
    return ids


def _glyph_subset(original: Callable[..., Any], fontfile: Any, glyphs: Iterable[int]) -> Any:
    """The subset of ``fontfile`` with ``glyphs`` and those of :data:`_COMMON_TEXT`, made with
    matplotlib's ``original`` ``get_glyphs_subset`` the first time this process needs it and
    reused after that, as matplotlib's ``SubsetResults`` context manager: the font read from the
    cached bytes and the map from original to subset glyph ids. What is embedded depends only on
    the glyphs asked for (never on which figures a process drew before), so the files stay
    reproducible whichever worker writes them."""
    import io
    import os

    from fontTools.ttLib import TTFont
    from matplotlib.backends import _backend_pdf_ps as pdf_ps

    st = os.stat(fontfile)
    key = (str(fontfile), int(getattr(fontfile, "face_index", 0)), st.st_size, st.st_mtime_ns)
    ids = _common_glyph_ids(key) | {int(g) for g in glyphs}
    held = _SUBSETS.get((key, ids))
    if held is None:
        with original(fontfile, set(ids)) as made:
            data = pdf_ps.font_as_file(made.font).getvalue()
            mapping = {int(k): int(v) for k, v in made.glyph_index_map.items()}
        while len(_SUBSETS) >= _MAX_SUBSETS:  # a long session with many unusual characters
            del _SUBSETS[next(iter(_SUBSETS))]
        held = _SUBSETS[(key, ids)] = (data, mapping)
    # as fontTools' subsetter loads a font: no new timestamp or bounds when it is written again
    font = TTFont(io.BytesIO(held[0]), recalcBBoxes=False, recalcTimestamp=False)
    return pdf_ps.SubsetResults(font, dict(held[1]))._as_cm()


@contextlib.contextmanager
def _reused_glyph_subsets() -> Iterator[bool]:
    """Replace matplotlib's ``get_glyphs_subset`` (PDF/PS font embedding) by
    :func:`_glyph_subset`, which embeds the glyphs asked for plus those of :data:`_COMMON_TEXT`
    and makes each such subset once per process (its ``glyph_index_map`` maps each original
    glyph id to the subset's). The embedded font holds a few more glyphs than the text uses;
    everything the text uses is the same glyph. Left as is where matplotlib's internals differ
    from the ones this was written for (a ``get_glyphs_subset`` of glyph ids that returns
    ``SubsetResults``, matplotlib 3.11)."""
    from matplotlib.backends import _backend_pdf_ps as pdf_ps

    original = getattr(pdf_ps, "get_glyphs_subset", None)
    results = getattr(pdf_ps, "SubsetResults", None)
    if original is None or results is None or not hasattr(results, "_as_cm"):
        yield False  # pragma: no cover (other matplotlib versions)
        return

    def get_glyphs_subset(fontfile: Any, glyphs: Iterable[int]) -> Any:
        return _glyph_subset(original, fontfile, glyphs)

    pdf_ps.get_glyphs_subset = get_glyphs_subset
    try:
        yield True
    finally:
        pdf_ps.get_glyphs_subset = original


def warm_fonts(pdf: bool = True) -> None:
    """Open the figures' fonts (regular and bold :data:`FONT_FAMILY`) and, with ``pdf``, make
    their cached PDF subsets of :data:`_COMMON_TEXT`, so that processes forked afterwards to draw
    figures start with them instead of each making them (about 0.1 s per process)."""
    from matplotlib.font_manager import findfont, get_font

    for bold in (False, True):
        path = findfont(font(bold=bold))
        get_font(path)
        if not pdf:
            continue
        from matplotlib.backends import _backend_pdf_ps as pdf_ps

        with _lean_font_subsets() as reused:
            if reused and str(path).lower().endswith(".ttf"):
                with pdf_ps.get_glyphs_subset(path, set()):
                    pass


#: zlib level of the PNG files: 3 writes a 300-dpi figure in half the time of PIL's default 6,
#: for files about 5% larger.
PNG_COMPRESS_LEVEL = 3


def _opaque_png_canvas(fig: Figure) -> Any:
    """An Agg canvas for ``fig`` whose PNG is RGB when the figure's background is opaque (the
    figures are saved on white), so that every pixel is: a quarter less to compress than
    matplotlib's RGBA, the same picture; on a transparent background it writes RGBA as
    matplotlib does. Text metadata and the dpi are written
    as ``matplotlib.image.imsave`` writes them."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    class OpaquePNGCanvas(FigureCanvasAgg):
        def print_png(self, filename_or_obj: Any, *, metadata: dict[str, str] | None = None,
                      pil_kwargs: dict[str, Any] | None = None, **_: Any) -> None:
            # **_: dpi, facecolor, … which print_figure has applied already (matplotlib drops
            # them only for its own print methods)
            from PIL import Image
            from PIL.PngImagePlugin import PngInfo

            FigureCanvasAgg.draw(self)
            rgba = self.buffer_rgba()
            height, width = np.asarray(rgba).shape[:2]
            image = Image.frombuffer("RGBA", (width, height), rgba, "raw", "RGBA", 0, 1)
            patch = self.figure.patch  # an opaque background makes every pixel opaque
            if patch.get_visible() and mpl.colors.to_rgba(patch.get_facecolor())[3] >= 1.0:
                image = image.convert("RGB")
            info = PngInfo()
            for key, value in {"Software": f"Matplotlib version{mpl.__version__}, "
                               "https://matplotlib.org/", **(metadata or {})}.items():
                if value is not None:
                    info.add_text(key, value)
            kwargs = {"compress_level": PNG_COMPRESS_LEVEL, "dpi": (self.figure.dpi,) * 2,
                      **(pil_kwargs or {})}
            image.save(filename_or_obj, format="png", pnginfo=info, **kwargs)

    return OpaquePNGCanvas(fig)


@contextlib.contextmanager
def _png_canvas(fig: Figure) -> Iterator[None]:
    """Save PNGs of ``fig`` through :func:`_opaque_png_canvas`; the figure's canvas is restored."""
    previous = fig.canvas
    _opaque_png_canvas(fig)  # the canvas attaches itself to the figure
    try:
        yield
    finally:
        fig.set_canvas(previous)


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
    *,
    formats: Sequence[str] | None = None,
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

    Parameters
    ----------
    fig : matplotlib.figure.Figure
        Any figure (those of :mod:`ranger_eval.plots` or your own).
    path_or_stem : str or PathLike
        A stem (every format in ``formats``, default PDF, SVG and PNG) or a file name with a suffix.
    formats : sequence of str, optional
        Suffixes to write, e.g. ``["png", "svg"]``.
    dpi : float, default 300
        Resolution of raster formats.
    svg_fonttype : {"none", "path"}, default "none"
        Text in SVG files as text or as outlines.

    Returns
    -------
    list of Path
        The files written, in ``formats`` order; each is written atomically.

    Raises
    ------
    PlotError
        An unknown format or ``svg_fonttype``.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import tempfile
    >>> from matplotlib.figure import Figure
    >>> from ranger_eval import save_figure
    >>> fig = Figure(figsize=(2, 1.5))
    >>> _ = fig.add_subplot().plot([0, 1], [1, 0])
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     paths = save_figure(fig, folder + "/line", formats=["png", "svg"])
    ...     [p.name for p in paths]
    ['line.png', 'line.svg']
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
        # the footer's signature whole (it may be wrapped over lines in the drawing) in the
        # file's own metadata: a figure names the result it draws even when cut from its page
        signature = next((t.get_text().replace("\n", "") for t in fig.texts
                          if t.get_gid() == "ranger-signature"), None)
        described = {"Description": signature} if signature else {}
        for fmt in formats:
            fmt = fmt.lower().lstrip(".")
            out = stem.parent / f"{stem.name}.{fmt}"
            if fmt == "pdf":
                metadata: dict[str, object] | None = {
                    "Creator": creator, "CreationDate": None,
                    **({"Subject": signature} if signature else {})}
            elif fmt == "svg":
                metadata = {"Creator": creator, "Date": None, **described}
            elif fmt == "png":
                metadata = {"Software": creator, **described}
            else:
                metadata = None
            if fmt in ("pdf", "ps", "eps"):
                how: contextlib.AbstractContextManager[Any] = _lean_font_subsets()
            elif fmt == "png":
                how = _png_canvas(fig)
            else:
                how = contextlib.nullcontext()
            with atomic_path(out) as tmp, how:
                fig.savefig(tmp, format=fmt, dpi=dpi, metadata=metadata, facecolor="white",
                            bbox_inches=bbox, pad_inches=0 if bbox is not None else "layout")
            written.append(out)
    return written
