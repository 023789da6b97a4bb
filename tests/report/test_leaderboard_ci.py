"""The leaderboard and the reports print each system's confidence interval:
the t interval of the mean, cluster-robust when the scores have clusters (rg.describe)."""
from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import ranger_eval as rg
from ranger_eval.report import (
    leaderboard_csv,
    leaderboard_html,
    leaderboard_markdown,
    to_json,
)


def _scores(clusters: bool) -> pd.DataFrame:
    rng = np.random.default_rng(4)
    rows = [(d, s, f"q{i}", f"c{i // 5}", rng.normal() + 0.4 * (s == "B") + (i // 5) * 0.2)
            for d in ("d1", "d2") for s in ("A", "B", "C") for i in range(30)]
    df = pd.DataFrame(rows, columns=["dataset", "system", "item", "cluster", "value"])
    return df if clusters else df.drop(columns="cluster")


def test_unclustered_intervals_are_the_t_interval_of_each_mean() -> None:
    df = _scores(False)
    board = rg.compare(df, level=0.9).leaderboard()
    assert board.has_intervals and not board.clustered and board.level == 0.9
    for i, system in enumerate(board.systems):
        for j, (d, _) in enumerate(board.columns):
            v = df[(df.dataset == d) & (df.system == system)]["value"].to_numpy()
            lo, hi = stats.t.interval(0.9, v.size - 1, v.mean(), stats.sem(v))
            assert board.interval(i, j) == pytest.approx((lo, hi), rel=1e-10)


def test_clustered_intervals_are_describes_and_are_printed(tmp_path: Path) -> None:
    df = _scores(True)
    comp = rg.compare(df)
    board = comp.leaderboard()
    assert board.clustered
    want = rg.describe(df).set_index(["dataset", "system"])
    for i, system in enumerate(board.systems):
        for j, (d, _) in enumerate(board.columns):
            row = want.loc[(d, system)]
            assert board.interval(i, j) == pytest.approx((row.ci_low, row.ci_high), rel=1e-12)
    md = leaderboard_markdown(board)
    lo, hi = board.interval(0, 0)  # type: ignore[misc]
    assert f"[{lo:.4f}, {hi:.4f}]" in md.replace("−", "-")
    assert "95% confidence interval of the mean (cluster-robust (CR1) standard error" in md
    assert 'class="ci">[' in leaderboard_html(board)
    flat = pd.read_csv(pd.io.common.StringIO(leaderboard_csv(board)))
    assert {"d1 ci_low", "d1 ci_high", "d2 ci_low"} <= set(flat.columns)
    frame = board.to_frame()
    assert ("d1", "score", "ci_low") in frame.columns


def test_html_report_keeps_the_interval_of_each_cell(tmp_path: Path) -> None:
    from ranger_eval.report.html.compare import _leaderboard

    board = rg.compare(_scores(True)).leaderboard()
    path = tmp_path / "leaderboard.json"  # the HTML report reads the JSON, never the Markdown
    path.write_text(to_json(board), encoding="utf-8")
    parsed = _leaderboard(path)
    cells = [c for r in parsed["json"]["rows"] for c in r["cells"]]
    assert all("ci" in c and np.isfinite(c["mean"]) for c in cells)
    lo, hi = board.interval(0, 0)  # type: ignore[misc]
    assert cells[0]["ci"] == f"{lo:.4f}, {hi:.4f}"
    # the cells the page shows are the Markdown's, cell for cell
    md_rows = [ln for ln in leaderboard_markdown(board).splitlines() if ln.startswith("| ")][1:]
    for md_row, row in zip(md_rows, parsed["rows"], strict=True):
        shown = [c.strip() for c in md_row.strip("| ").split(" | ")]
        assert [re.sub(r"<[^>]+>", "", c.html) for c in row] == [
            re.sub(r"\*\*|<sup>|</sup>", "", c) for c in shown]
