"""The figures of a folder, embedded: SVG inline (ids and ``<style>`` rules prefixed per figure so
two figures never clash), PNG-only figures as ``data:`` URIs; their captions and order.
"""
from __future__ import annotations

import base64
import hashlib
import html
import re
import struct
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from ...errors import ReportError
from .common import _IMAGE_TYPES, FIGURE_MAX_GROUPS, _Analysis, _e, _path

_FIGURE_ORDER = ("forest", "cd", "heatmap", "graph", "pvalues", "boxplots",
                 "bradley_terry_ratings", "arena_ratings", "arena_coefficients",
                 "arena_win_probability")


_CAPTIONS = {
    "forest": "Forest plot: the effect on each dataset with its confidence interval (square "
              "area ∝ weight), the summary effect (diamond) and the prediction interval.",
    "cd": "Critical-difference diagram: average ranks (1 = best); systems joined by a thick "
          "bar are not significantly different.",
    "heatmap": "Significance heatmap: one row per pair A vs B, one column per dataset × metric; "
               "blue: A significantly higher, red: B significantly higher, grey: not "
               "significant. Cells show A − B and the adjusted p-value.",
    "graph": "Connected graph: each system at the height of its mean; an edge joins two systems "
             "whose difference is not significant after correction (thicker: larger adjusted p).",
    "pvalues": "Pairwise p-value plot: the adjusted p-value of every pair on each system's row "
               "(systems sorted by mean, best at the top); the dashed line marks α.",
    "boxplots": "Per-item values, bootstrap means and bootstrap ranks with simultaneous rank "
                "intervals (systems sorted by mean, best at the top).",
    "bradley_terry_ratings": "Bradley–Terry ratings with their bootstrap percentile intervals "
                             "(relative to the mean of all systems), best first; the rank "
                             "interval of each system at the right, from the bootstrap rounds' "
                             "ranks.",
    "arena_ratings": "Ratings with their bootstrap percentile intervals (relative to the mean of "
                     "all models, or to the anchor: the axis says which), best first; the rank "
                     "interval of each model at the right, from the bootstrap rounds' ranks "
                     "(independent of the anchor). With style control each model shows its "
                     "rating with style control (filled dot) above its rating without (open "
                     "square), and both rank intervals.",
    "arena_coefficients": "Style control: each covariate's effect on the rating, in Elo points "
                          "per standard deviation of its difference (model_a's response minus "
                          "model_b's), with its bootstrap percentile interval; 0: no effect.",
    "arena_win_probability": "Fitted probability that the row model beats the column model "
                             "(blue above ½, red below), models ordered by rating.",
    "subset": "Left: the whole-benchmark estimate with its interval beside the plain mean of "
              "the same items with its Wilson interval (dashed: the full-benchmark mean when "
              "known). Right: the predictor on the items run, sorted by prediction into groups: "
              "mean prediction against the share right, with Wilson intervals; calibrated "
              "predictions lie on the diagonal.",
    "aso": "ε_min of the row system over the column system; blue: the row almost "
           "stochastically dominates the column (ε_min below the threshold τ).",
    "posterior": "Posterior of the mean difference (Student t, Nadeau–Bengio correction) with "
                 "the region of practical equivalence shaded.",
    "simplex": "baycomp's simplex: each posterior draw (θ of A better, of the ROPE, of B better) "
               "as a point of the triangle; a region holds the draws in which its outcome is "
               "the most probable.",
}


_RANK_GRAPH = ("Ranking graph: the systems split into groups that are pairwise not "
               "significantly different, each system at the height of its mean.")


@dataclass(frozen=True)
class _Fig:
    stem: str
    base: str
    suffix: str
    path: Path


_BAYES_CD = ("Decision diagram of the Bayesian rank test: average ranks (1 = best); black bars "
             "join practically equivalent systems, grey bars systems with no decided "
             "difference; systems not joined differ.")


def _is_bayes(a: _Analysis) -> bool:
    """Whether the rank folder's rank test is Bayesian (``rank --approach bayesian``)."""
    payload = a.data.get("ranking")
    rt = payload.get("rank_test") if isinstance(payload, dict) else None
    return isinstance(rt, dict) and rt.get("approach") == "bayesian"


def _figures(a: _Analysis) -> list[str]:
    """Inline figures: SVG when the stem has one, else PNG (or another image) as a data URI;
    PDFs are left out, and a figure identical to an earlier one (by SHA-256) is shown once."""
    by_stem: dict[str, Path] = {}
    for name, p in a.files.items():
        stem, dot, ext = name.rpartition(".")
        ext = "." + ext.lower()
        if not dot or (ext != ".svg" and ext not in _IMAGE_TYPES):
            continue
        if stem not in by_stem or ext == ".svg":
            by_stem[stem] = p
    slugs: Mapping[str, str] = a.data.get("slugs", {})
    seen: set[str] = set()
    figs: list[_Fig] = []
    for stem, p in by_stem.items():
        checked = _path(a, p.name)
        assert checked is not None
        digest = hashlib.sha256(checked.read_bytes()).hexdigest()
        if digest in seen:
            continue
        seen.add(digest)
        base, _, suffix = stem.partition("-")
        figs.append(_Fig(stem, base, suffix, p))
    suffixes = list(dict.fromkeys(f.suffix for f in figs))
    figs.sort(key=lambda f: (suffixes.index(f.suffix) if f.suffix else -1,
                             _FIGURE_ORDER.index(f.base) if f.base in _FIGURE_ORDER else 99))
    named = [x for x in suffixes if x]
    left_out = len(named) - FIGURE_MAX_GROUPS
    if left_out > 0:  # a few MB: the first groups' figures, the others stay in the folder
        keep = set(named[:FIGURE_MAX_GROUPS])
        figs = [f for f in figs if not f.suffix or f.suffix in keep]
    out: list[str] = []
    current = None
    for i, f in enumerate(figs):
        if f.suffix and f.suffix != current:
            current = f.suffix
            out.append(f"<h3>{_e(slugs.get(f.suffix, f.suffix))}</h3>")
        caption = _RANK_GRAPH if (a.kind == "rank" and f.base == "graph") \
            else _BAYES_CD if (a.kind == "rank" and f.base == "cd" and _is_bayes(a)) \
            else _CAPTIONS.get(f.base, f.stem)
        scope = f"fig{a.index}-{i}"
        if f.path.suffix.lower() == ".svg":
            body = _inline_svg(f.path, scope, caption)
        else:
            body = _data_image(f.path, caption)
        out.append(f'<figure id="{scope}-figure">{body}<figcaption>{_e(caption)}'
                   "</figcaption></figure>")
    if left_out > 0:
        out.append(f'<p class="note">Showing the figures of the first {FIGURE_MAX_GROUPS} of '
                   f"{len(named)} dataset × metric groups; the other {left_out} are in the "
                   "folder (graph-, pvalues- and boxplots-DATASET-METRIC files).</p>")
    return out


_LENGTH = re.compile(r"^\s*([0-9.]+)\s*(px|pt|in|cm|mm)?\s*$")


_PX = {"px": 1.0, "pt": 4 / 3, "in": 96.0, "cm": 96 / 2.54, "mm": 96 / 25.4}


def _attr(tag: str, name: str) -> str | None:
    m = re.search(rf'\s{re.escape(name)}\s*=\s*"([^"]*)"', tag)
    return m.group(1) if m else None


def _scope_css(css: str, scope: str) -> str:
    """Prefix every selector of ``css`` with ``#scope`` so the rules stay inside the figure."""
    css = re.sub(r"/\*.*?\*/", "", css, flags=re.S)
    if re.search(r"@import|url\(\s*['\"]?(?!#)", css, flags=re.I):
        raise ReportError("an SVG <style> refers to an external resource")
    rules = []
    for m in re.finditer(r"([^{}@]+)\{([^{}]*)\}", css):
        selectors = [s.strip() for s in m.group(1).split(",") if s.strip()]
        scoped = ", ".join(f"#{scope}" if s in ("svg", ":root") else f"#{scope} {s}"
                           for s in selectors)
        rules.append(f"{scoped} {{{m.group(2).strip()}}}")
    return "\n".join(rules)


def _inline_svg(path: Path, scope: str, label: str) -> str:
    """The ``<svg>`` element of ``path``, ready to sit in an HTML page next to other figures.

    The XML prolog, DOCTYPE, comments, ``<metadata>`` and scripts go; every ``id`` gets the
    ``scope`` prefix (and so do the ``#id`` references); ``<style>`` rules are scoped to the
    figure; the size becomes responsive (``max-width`` = the figure's own width).
    """
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ReportError(f"{path}: cannot read: {exc}") from None
    start, end = text.find("<svg"), text.rfind("</svg>")
    if start < 0 or end < start:
        raise ReportError(f"{path}: not an SVG file (no <svg>…</svg> element)")
    svg = text[start:end + len("</svg>")]
    svg = re.sub(r"<!--.*?-->", "", svg, flags=re.S)
    svg = re.sub(r"<metadata\b.*?</metadata>|<script\b.*?</script>", "", svg,
                 flags=re.S | re.I)
    ids = set(re.findall(r'\sid="([^"]+)"', svg))
    seen: dict[str, int] = {}

    def new_id(m: re.Match[str]) -> str:
        # an id that the file repeats (matplotlib gids used as labels) is numbered: ids stay
        # unique in the page; #references go to the first, as a browser resolves them
        n = seen[m.group(2)] = seen.get(m.group(2), 0) + 1
        return f'{m.group(1)}{scope}-{m.group(2)}{"" if n == 1 else f"-{n}"}{m.group(3)}'

    svg = re.sub(r'(\sid=")([^"]+)(")', new_id, svg)

    def ref(m: re.Match[str]) -> str:
        target = m.group(2)
        if target.startswith("#") and target[1:] in ids:
            return f'{m.group(1)}"#{scope}-{target[1:]}"'
        if target.startswith(("#", "data:")):
            return m.group(0)
        raise ReportError(f"{path}: refers to an external resource {target!r}")

    svg = re.sub(r'(\s(?:xlink:)?href=)"([^"]*)"', ref, svg)
    svg = re.sub(r"url\(\s*#([^)\s]+)\s*\)",
                 lambda m: f"url(#{scope}-{m.group(1)})" if m.group(1) in ids else m.group(0),
                 svg)
    if re.search(r"url\(\s*['\"]?(?!#)", svg):
        raise ReportError(f"{path}: refers to an external resource (url(…))")
    try:
        svg = re.sub(r"(<style\b[^>]*>)(.*?)(</style>)",
                     lambda m: m.group(1) + html.escape(_scope_css(html.unescape(m.group(2)),
                                                                   scope), quote=False)
                     + m.group(3), svg, flags=re.S)
    except ReportError as exc:
        raise ReportError(f"{path}: {exc}") from None
    open_tag = re.match(r"<svg\b[^>]*>", svg)
    assert open_tag is not None
    tag = open_tag.group(0)
    width, height, box = _attr(tag, "width"), _attr(tag, "height"), _attr(tag, "viewBox")
    style = "max-width:100%;height:auto"
    size = ""
    wm, hm = _LENGTH.match(width or ""), _LENGTH.match(height or "")
    if wm and hm:
        w_px = float(wm.group(1)) * _PX[wm.group(2) or "px"]
        h_px = float(hm.group(1)) * _PX[hm.group(2) or "px"]
        size = f' width="{w_px:.0f}" height="{h_px:.0f}"'
        style += f";aspect-ratio:{w_px:.2f}/{h_px:.2f}"
        if box is None:
            box = f"0 0 {float(wm.group(1)):g} {float(hm.group(1)):g}"
    else:
        style = "width:100%;height:auto"
    attrs = re.sub(r'\s(?:width|height|viewBox|id|class|role|style|xmlns(?::\w+)?)="[^"]*"',
                   "", tag[4:-1].rstrip("/"))
    new = (f'<svg id="{scope}" class="figure-svg" role="img" aria-label="{_e(label)}"'
           f'{" viewBox=" + chr(34) + box + chr(34) if box else ""}{size} style="{style}"'
           f"{attrs}>")
    return new + svg[len(tag):]


def _png_size(data: bytes) -> tuple[int, int, float] | None:
    """(width, height, dots per inch) of a PNG; dpi 96 when it does not say."""
    if data[:8] != b"\x89PNG\r\n\x1a\n" or data[12:16] != b"IHDR":
        return None
    w, h = struct.unpack(">II", data[16:24])
    dpi = 96.0
    i = data.find(b"pHYs", 0, 4096)
    if i > 0:
        x, _, unit = struct.unpack(">IIB", data[i + 4:i + 13])
        if unit == 1 and x > 0:
            dpi = x * 0.0254
    return w, h, dpi


def _data_image(path: Path, alt: str) -> str:
    data = path.read_bytes()
    mime = _IMAGE_TYPES[path.suffix.lower()]
    size = _png_size(data) if mime == "image/png" else None
    if mime == "image/png" and size is None:
        raise ReportError(f"{path}: not a PNG image")
    dims = ""
    if size is not None:
        w, h, dpi = size
        css_w, css_h = w * 96 / dpi, h * 96 / dpi
        dims = f' width="{css_w:.0f}" height="{css_h:.0f}"'
    b64 = base64.b64encode(data).decode("ascii")
    return f'<img src="data:{mime};base64,{b64}" alt="{_e(alt)}"{dims}>'
