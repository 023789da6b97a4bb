"""``compare`` writes overall figures by default and per-dataset figures only when asked, says
what it left out, and its ``--html`` report of a large run stays a few MB (it used to
write 497 files and 56 MB for 54 datasets)."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from ranger_eval.pipeline import run_compare


def _table(path: Path, k: int, d: int, n: int = 8) -> Path:
    rng = np.random.default_rng(0)
    rows = []
    for di in range(d):
        base = rng.normal(0.5, 0.1, n)
        for s in range(k):
            rows.append(pd.DataFrame({
                "dataset": f"dataset-{di:03d}", "system": f"system-{s:02d}", "metric": "acc",
                "item": [f"q{i}" for i in range(n)],
                "value": base + 0.3 * s / k + rng.normal(0, 0.1, n)}))
    pd.concat(rows).to_csv(path, index=False)
    return path


def _figures(folder: Path) -> set[str]:
    return {p.name for p in folder.iterdir() if p.suffix == ".svg"}


def test_per_dataset_figures_only_when_asked(tmp_path: Path) -> None:
    table = _table(tmp_path / "scores.csv", 3, 3)
    run_compare(table, tmp_path / "default", figures="svg", n_resamples=50)
    assert _figures(tmp_path / "default") == {"heatmap.svg"}
    md = (tmp_path / "default" / "comparison.md").read_text()
    assert "each of the 3 dataset × metric groups are not drawn by default" in md
    assert "--per-dataset-figures" in md
    # asked for: tests/comparison/test_compare_rank_llm.py (--per-dataset-figures) and
    # tests/pipeline/test_pipeline.py (per_dataset_figures=True; one dataset's figures by default)


@pytest.mark.slow
def test_html_report_of_17_systems_on_54_datasets_stays_small(tmp_path: Path) -> None:
    table = _table(tmp_path / "scores.csv", 17, 54, n=10)
    out = tmp_path / "out"
    run_compare(table, out, figures="svg", html=True, n_resamples=50)
    files = sorted(p.name for p in out.iterdir())
    assert len(files) <= 12, files
    size = (out / "report.html").stat().st_size
    assert size < 3_000_000, size  # 1.6 MB measured (10 MB before the table was capped)
    html = (out / "report.html").read_text()
    assert "Showing the first 1,000 of 7,344 tests" in html
    md = (out / "comparison.md").read_text()
    assert "Every cell is in comparison.csv" in md  # the heatmap's plan, said in the notes


@pytest.mark.slow  # draws 7 figures: ~7 s
def test_html_report_inlines_the_figures_of_the_first_12_groups(tmp_path: Path) -> None:
    """--per-dataset-figures on many datasets: the report inlines the figures of the first
    FIGURE_MAX_GROUPS groups and names where the others are (made here by copying one group's
    figure under 14 more names, each made distinct, rather than drawing 45 figures)."""
    import hashlib
    import json

    from ranger_eval.report.html import FIGURE_MAX_GROUPS, render_html_report

    table = _table(tmp_path / "scores.csv", 2, 2)
    out = tmp_path / "out"
    run_compare(table, out, figures="svg", n_resamples=50, per_dataset_figures=True)
    manifest = json.loads((out / "manifest.json").read_text())
    entry = next(f for f in manifest["files"] if f["file"] == "graph-dataset-000-acc.svg")
    svg = (out / entry["file"]).read_text()
    for i in range(2, 16):
        name = f"graph-dataset-{i:03d}-acc.svg"
        text = svg.replace("</svg>", f"<!-- {i} --></svg>")
        (out / name).write_text(text)
        manifest["files"].append({**entry, "file": name,
                                  "sha256": hashlib.sha256(text.encode()).hexdigest()})
    (out / "manifest.json").write_text(json.dumps(manifest))
    page = render_html_report(out)
    assert page.count("<h3>dataset-") == FIGURE_MAX_GROUPS  # one heading per group shown
    assert f"Showing the figures of the first {FIGURE_MAX_GROUPS} of 16 dataset × metric " \
        "groups; the other 4 are in the folder" in page
