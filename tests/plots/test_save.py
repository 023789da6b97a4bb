"""Every figure as PDF (TrueType fonts, embedded), SVG (text kept as text, or outlined
on request) and 300-dpi PNG, for plain figures and for figures with a signature footer (saved with
a tight bounding box)."""
from __future__ import annotations

import re
import shutil
import subprocess
import time
import xml.etree.ElementTree as ET

import numpy as np
import pandas as pd
import pytest
from PIL import Image

from ranger_eval.comparison import compare
from ranger_eval.meta import meta_analysis
from ranger_eval.plots import comparison_heatmap, forest_plot, save_figure


def _forest():
    return forest_plot(meta_analysis([0.1, -0.2, 0.3], [0.01, 0.02, 0.015], method="DL",
                                     names=["MNLI", "RTE_$x$", "WNLI"]))


def _heatmap():
    rng = np.random.default_rng(0)
    rows = []
    for s, shift in (("bert", 0.0), ("roberta_$L$", 0.1)):
        v = 0.5 + shift + rng.normal(0, 0.1, 30)
        rows += [("MNLI", s, "accuracy", f"q{i}", float(x)) for i, x in enumerate(v)]
    df = pd.DataFrame(rows, columns=["dataset", "system", "metric", "item", "value"])
    return comparison_heatmap(compare(df))  # has a signature footer: tight bounding box


def _pdf_fonts(data: bytes) -> tuple[list[str], int]:
    """Font subtypes declared in a PDF and the number of embedded TrueType font programs."""
    subtypes = re.findall(rb"/Subtype\s*/(Type0|Type1|Type3|TrueType|CIDFontType0|CIDFontType2|MMType1)",
                          data)
    return [s.decode() for s in subtypes], len(re.findall(rb"/FontFile2\b", data))


@pytest.mark.parametrize("build", [_forest, _heatmap], ids=["forest", "heatmap"])
def test_pdf_svg_png_for_publication(build, tmp_path):
    fig = build()
    pdf, svg, png = save_figure(fig, tmp_path / "fig")
    assert [p.suffix for p in (pdf, svg, png)] == [".pdf", ".svg", ".png"]

    # PDF: only TrueType (Type 42 → CIDFontType2 under Type0), every one embedded; no Type 3
    data = pdf.read_bytes()
    subtypes, embedded = _pdf_fonts(data)
    assert subtypes and set(subtypes) <= {"Type0", "CIDFontType2", "TrueType"}, subtypes
    assert embedded == subtypes.count("CIDFontType2") + subtypes.count("TrueType") >= 1
    if shutil.which("pdffonts"):  # poppler's view of the same file, when installed
        out = subprocess.run(["pdffonts", str(pdf)], capture_output=True, text=True, check=True).stdout
        fonts = out.splitlines()[2:]
        assert fonts and all("TrueType" in line for line in fonts), out
        assert all(line.split()[-5] == "yes" for line in fonts), out  # the "emb" column

    # SVG: text stays text (svg.fonttype = none) with the font named, so it is editable
    root = ET.parse(svg).getroot()
    text = [("".join(el.itertext())) for el in root.iter() if el.tag.endswith("text")]
    assert any("$" in t for t in text) and len(text) > 5
    assert "DejaVu Sans" in svg.read_text(encoding="utf-8")
    outlined = save_figure(fig, tmp_path / "outlined.svg", svg_fonttype="path")[0]
    assert "<text" not in outlined.read_text(encoding="utf-8")

    # PNG: 300 dpi, stated in the file, and the pixel size follows
    with Image.open(png) as im:
        dpi = im.info["dpi"]
        assert dpi[0] == pytest.approx(300, abs=0.01) and dpi[1] == pytest.approx(300, abs=0.01)
        if not getattr(fig, "_ranger_tight", False):
            assert im.size == (round(fig.get_figwidth() * 300), round(fig.get_figheight() * 300))
        else:  # the tight box holds the signature footer below the figure
            assert im.size[0] >= 0.9 * fig.get_figwidth() * 300
            assert im.size[1] > fig.get_figheight() * 300


def test_pdf_font_subsets_leave_out_layout_tables_only_while_saving(tmp_path):
    """The embedded subsets drop the OpenType layout tables (matplotlib has placed the glyphs),
    the text stays extractable, and fontTools' defaults are restored after the save."""
    from fontTools import subset

    before = list(subset.Options().drop_tables)
    (pdf,) = save_figure(_forest(), tmp_path / "forest.pdf")
    assert list(subset.Options().drop_tables) == before  # nothing leaks out of save_figure
    assert b"/FontFile2" in pdf.read_bytes()  # TrueType programs embedded
    if shutil.which("pdftotext") is None:
        pytest.skip("pdftotext (poppler-utils) not installed: text extraction not checked")
    text = subprocess.run(["pdftotext", str(pdf), "-"], capture_output=True, text=True,
                          check=True).stdout
    assert "RTE_$x$" in text and "Random effects (DL)" in text and "−0.200" in text


def test_pdf_font_subsets_are_made_once_per_process_and_depend_only_on_the_text(tmp_path,
                                                                                monkeypatch):
    """A font subset is made once per glyph set and process (it holds the glyphs
    asked for plus printable ASCII and the figures' symbols), so a second figure with the same
    characters does not subset the font again; the file does not depend on what was drawn
    before in the process, and renders the same text."""
    from matplotlib.backends import _backend_pdf_ps as pdf_ps

    from ranger_eval.plots import _style

    calls = []
    original = pdf_ps.get_glyphs_subset

    def counted(fontfile, glyphs):
        calls.append(len(set(glyphs)))
        return original(fontfile, glyphs)

    monkeypatch.setattr(pdf_ps, "get_glyphs_subset", counted)
    monkeypatch.setattr(_style, "_SUBSETS", {})
    first = save_figure(_forest(), tmp_path / "a.pdf")[0].read_bytes()
    made = len(calls)
    assert made >= 1 and all(n >= len(_style._COMMON_TEXT) - 20 for n in calls)
    again = save_figure(_forest(), tmp_path / "b.pdf")[0].read_bytes()
    assert len(calls) == made  # every subset came from the cache
    assert again == first  # same bytes from the cache as when the subset was made
    save_figure(_heatmap(), tmp_path / "c.pdf")  # another figure in between …
    time.sleep(1.1)  # … and a new second on the clock (font timestamps) …
    assert save_figure(_forest(), tmp_path / "d.pdf")[0].read_bytes() == first  # … change nothing
    assert pdf_ps.get_glyphs_subset is counted  # matplotlib's function is put back after saving
    if shutil.which("pdftotext"):
        text = subprocess.run(["pdftotext", str(tmp_path / "d.pdf"), "-"], capture_output=True,
                              text=True, check=True).stdout
        assert "RTE_$x$" in text and "−0.200" in text


def test_png_is_rgb_on_an_opaque_background_and_rgba_on_a_transparent_one(tmp_path):
    """The 300-dpi PNG of a figure on white is written as RGB (every pixel is opaque: less to
    compress), with the same pixels as matplotlib's RGBA file; a transparent figure stays RGBA."""
    import io

    from ranger_eval.plots import _style

    fig = _forest()
    png = save_figure(fig, tmp_path / "forest.png")[0]
    with Image.open(png) as im:
        assert im.mode == "RGB" and im.info["Software"].startswith("ranger-eval")
        ours = np.asarray(im.convert("RGBA"))
    buf = io.BytesIO()  # matplotlib's own writer, same box and dpi
    bbox = _style._tight_bbox_inches(fig, pad=0.08, dpi=300) if getattr(fig, "_ranger_tight",
                                                                         False) else None
    with __import__("matplotlib").rc_context(_style.save_rc("none")):
        fig.savefig(buf, format="png", dpi=300, facecolor="white", bbox_inches=bbox,
                    pad_inches=0 if bbox is not None else "layout")
    with Image.open(io.BytesIO(buf.getvalue())) as im:
        assert im.mode == "RGBA"
        np.testing.assert_array_equal(ours, np.asarray(im))
    with _style._png_canvas(fig):
        clear = io.BytesIO()
        fig.savefig(clear, format="png", dpi=50, transparent=True)
    with Image.open(io.BytesIO(clear.getvalue())) as im:
        assert im.mode == "RGBA" and np.asarray(im)[..., 3].min() < 255


def test_cached_font_subsets_are_bounded(tmp_path, monkeypatch):
    """A long session drawing text with many different characters keeps at most _MAX_SUBSETS
    font subsets; the PDFs written meanwhile are the same as with an unbounded cache."""
    from ranger_eval.plots import _style

    monkeypatch.setattr(_style, "_SUBSETS", {})
    unbounded = save_figure(_heatmap(), tmp_path / "a.pdf")[0].read_bytes()
    monkeypatch.setattr(_style, "_SUBSETS", {})
    monkeypatch.setattr(_style, "_MAX_SUBSETS", 1)
    assert save_figure(_heatmap(), tmp_path / "b.pdf")[0].read_bytes() == unbounded
    save_figure(_forest(), tmp_path / "c.pdf")
    assert len(_style._SUBSETS) == 1
