"""Every LaTeX table Ranger writes fits its column: caption, label, scaled down when wider than
the line, a signature footnote that wraps — and compiles with pdfLaTeX (when installed)."""
from __future__ import annotations

import re
import shutil
import subprocess

import numpy as np
import pandas as pd
import pytest

from ranger_eval.aggregate import rank_systems, rank_test
from ranger_eval.comparison import compare
from ranger_eval.meta import meta_analysis
from ranger_eval.report import to_latex
from ranger_eval.report.meta import meta_latex
from ranger_eval.report.tables import latex_escape, latex_signature
from ranger_eval.scores import Scores

NAMES = ("base_1", "R&D %2", "top#3", "a-very-long-system-name_with_underscores")


def _scores(n: int = 40, seed: int = 0) -> Scores:
    rng = np.random.default_rng(seed)
    rows = []
    for d, spread in (("d_1", 0.05), ("d_2", 0.1), ("d~3", 0.2)):
        base = rng.normal(0.5, 0.2, n)
        for k, s in enumerate(NAMES):
            v = base + 0.05 * k + rng.normal(0, spread, n)
            rows += [(d, s, "nDCG@10", f"q{i}", float(x)) for i, x in enumerate(v)]
    return Scores(pd.DataFrame(rows, columns=["dataset", "system", "metric", "item", "value"]))


@pytest.fixture(scope="module")
def tables() -> dict[str, str]:
    scores = _scores()
    comp = compare(scores, n_resamples=100)
    ranking = rank_systems(scores, n_resamples=100)
    assert not isinstance(ranking, dict)
    means = scores.frame.groupby(["dataset", "system"], sort=False)["value"].mean()
    rt = rank_test(means.unstack("system"), higher_is_better=True)
    meta = meta_analysis([0.1, 0.25, -0.05], [0.01, 0.02, 0.015], names=["d_1", "d_2", "d~3"])
    return {
        "comparison": to_latex(comp),
        "leaderboard": to_latex(comp.leaderboard()),
        "ranking": to_latex(ranking),
        "ranktest": to_latex(rt, naive=means.groupby("system").mean()),
        "meta": meta_latex(meta, n={"d_1": 40, "d_2": 40, "d~3": 40}, title="Demo & co",
                           control="base_1", treatment="top#3"),
        "meta-plain": to_latex(meta),
    }


def test_every_table_has_caption_label_resize_and_wrapping_signature(tables):
    for kind, tex in tables.items():
        assert tex.startswith("% requires \\usepackage{booktabs,graphicx}"), kind
        assert tex.count("\\caption{") == 1 and re.search(r"\\label\{tab:ranger-[a-z]+\}", tex), kind
        # scaled down only when wider than the line, never enlarged
        assert "\\resizebox{\\ifdim\\width>\\linewidth\\linewidth\\else\\width\\fi}{!}{%" in tex
        assert tex.index("\\caption") < tex.index("\\begin{tabular}"), kind
        footnote = [ln for ln in tex.splitlines() if ln.startswith("\\par\\smallskip\\parbox")]
        assert len(footnote) == 1 and "|\\allowbreak{}" in footnote[0], kind
        assert "ranger-eval:" in footnote[0]
        assert tex.count("\\begin{tabular}") == tex.count("\\end{tabular}") == 1
        assert tex.count("{") == tex.count("}"), kind


def test_signature_footnote_keeps_every_field():
    sig = "ranger-eval:0.1.0|kind:compare|corr:holm_sidak|alpha:0.05"
    note = latex_signature(sig)
    assert note.replace("\\allowbreak{}", "").endswith("{" + latex_escape(sig) + "}}")


def test_captions_typeset_greek_and_symbols(tables):
    for kind, tex in tables.items():
        # nothing pdfLaTeX cannot typeset from UTF-8 text
        assert not re.search(r"[αχτ²×−–→]", tex), (kind, set(re.findall(r"[^\x00-\x7f]", tex)))
    assert "$\\chi$$^2$" in tables["ranktest"] and "$\\alpha$" in tables["ranking"]


def test_meta_table_rows_and_caption(tables):
    tex = tables["meta"]
    rows = [ln for ln in tex.splitlines() if ln.endswith("\\\\") and " & " in ln]
    assert [r.split(" & ")[0] for r in rows] == ["task", "d\\_1", "d\\_2", "d\\textasciitilde{}3",
                                               "\\textbf{summary}"]
    assert "Demo \\& co." in tex and "top\\#3 over base\\_1" in tex and "I$^2$" in tex


DOCUMENT = r"""\documentclass[twocolumn]{article}
\usepackage[T1]{fontenc}
\usepackage{booktabs,graphicx}
\begin{document}
%s
\end{document}
"""


@pytest.mark.skipif(shutil.which("pdflatex") is None,
                    reason="pdflatex not installed (apt-get install texlive-latex-base "
                           "texlive-latex-recommended)")
def test_every_table_compiles_in_a_column_without_overfull_boxes(tables, tmp_path):
    for kind, tex in tables.items():
        doc = tmp_path / f"{kind}.tex"
        doc.write_text(DOCUMENT % tex, encoding="utf-8")
        run = subprocess.run(
            ["pdflatex", "-interaction=nonstopmode", "-halt-on-error", doc.name],
            cwd=tmp_path, capture_output=True, text=True, timeout=60,
        )
        log = (tmp_path / f"{kind}.log").read_text(errors="replace")
        assert run.returncode == 0, (kind, log[-2000:])
        assert (tmp_path / f"{kind}.pdf").stat().st_size > 0
        assert "Overfull \\hbox" not in log, (kind, re.findall(r"Overfull \\hbox.*", log))
