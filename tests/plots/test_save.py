"""Issue 12 §3: every figure as PDF (TrueType fonts, embedded), SVG (text kept as text, or outlined
on request) and 300-dpi PNG, for plain figures and for figures with a signature footer (saved with
a tight bounding box)."""
from __future__ import annotations

import re
import shutil
import subprocess
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
