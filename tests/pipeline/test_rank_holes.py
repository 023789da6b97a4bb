"""`ranger-eval rank` on results with holes: a wide table with empty cells and
per-item scores where a system lacks a dataset reach rank_test (Skillings–Mack); the Markdown,
HTML and CD figure say which test ran and how many cells were missing."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import ranger_eval as rg
from ranger_eval.pipeline import run_rank
from ranger_eval.plots.cd.check import checked
from ranger_eval.plots.cd.layout import cd_layout
from ranger_eval.plots.cd.options import CDOptions
from ranger_eval.report.ranking import rank_test_markdown

WIDE = """dataset,A,B,C,D
d1,0.81,0.79,0.83,0.80
d2,0.70,,0.74,0.69
d3,0.91,0.90,0.93,
d4,0.66,0.61,0.69,0.64
d5,0.55,0.50,,0.52
d6,0.77,0.75,0.80,0.74
d7,0.88,,,
"""


@pytest.mark.slow  # a whole rank run (~0.8 s); bad input 733 runs the command in the default tier
def test_wide_table_with_empty_cells(tmp_path: Path) -> None:
    (tmp_path / "t.csv").write_text(WIDE)
    run = run_rank(tmp_path / "t.csv", tmp_path / "out", figures="none", html=True)
    rt = run.parts["rank_test"]
    assert (rt.test, rt.n_missing, rt.n_cells, rt.dropped_datasets) == (
        "skillings-mack", 3, 24, ("d7",))
    assert any("'d7'" in w and "fewer than two results dropped" in w for w in run.warnings)
    wide = pd.read_csv(tmp_path / "t.csv", index_col=0).drop(index="d7")
    assert rt.statistic == pytest.approx(rg.rank_test(wide).statistic, rel=1e-12)
    md = (tmp_path / "out" / "ranking.md").read_text()
    assert "Skillings–Mack test, 3 of 24 cells missing; 1 dataset with fewer than two " \
           "results dropped (d7): T = " in md
    assert "Iman–Davenport" not in md
    doc = json.loads((tmp_path / "out" / "ranking.json").read_text())
    part = doc.get("rank_test", doc)
    assert part["test"] == "skillings-mack" and part["n_missing"] == 3
    assert "test:skillings-mack|cells_missing:3/24,dropped=1" in str(rt.signature)
    html = (tmp_path / "out" / "report.html").read_text()
    assert "Skillings–Mack test (tie-corrected) (3 of 24 cells missing; 1 dataset with fewer " \
           "than two results dropped; no single critical difference)" in html


@pytest.mark.slow  # a whole rank run with the Bradley–Terry leaderboard (~0.8 s)
def test_per_item_scores_without_a_dataset(tmp_path: Path) -> None:
    rng = np.random.default_rng(0)
    rows = [{"dataset": f"d{d}", "system": s, "metric": "acc", "item": f"q{i}",
             "value": float(rng.random())}
            for d in range(5) for s in "ABC" if (d, s) != (2, "B") for i in range(4)]
    pd.DataFrame(rows).to_csv(tmp_path / "items.csv", index=False)
    run = run_rank(tmp_path / "items.csv", tmp_path / "out", figures="none")
    assert run.parts["ranking"] is None  # the post-op ranking needs every system everywhere
    assert any("1 dataset × system cell(s) have no scores" in w for w in run.warnings)
    assert run.parts["rank_test"].test == "skillings-mack" and run.parts["rank_test"].n_missing == 1


@pytest.mark.slow  # the figure layout measures text with matplotlib (~1 s cold)
def test_markdown_and_figure_footer_say_the_test() -> None:
    t = pd.read_csv(pd.io.common.StringIO(WIDE), index_col=0).drop(index="d7")
    res = rg.rank_test(t, posthoc="holm", control="A")
    md = rank_test_markdown(res)
    assert "Skillings–Mack test, 3 of 24 cells missing: T = " in md
    assert "pairs by the Skillings–Mack contrasts, no single critical difference" in md
    layout = cd_layout(checked(res, CDOptions()), CDOptions())
    text = " ".join(line for line, _ in layout.foot)
    assert "3 of 24 cells missing" in text and "Skillings–Mack T(3)" in text
    bd = rg.rank_test(t, posthoc="bonferroni-dunn", control="A")
    text = " ".join(line for line, _ in cd_layout(checked(bd, CDOptions()), CDOptions()).foot)
    assert "differ by less than the CD" not in text and "no single CD" in text
    complete = rg.rank_test(t.dropna(), posthoc="conover")
    text = " ".join(line for line, _ in cd_layout(checked(complete, CDOptions()),
                                                  CDOptions()).foot)
    assert "Conover's all-pairs test" in text and "Friedman χ²(3)" in text
