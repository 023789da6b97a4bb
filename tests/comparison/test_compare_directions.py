"""Which mean is better: the leaderboard, the comparison CSV and the HTML report follow the
scores' ``higher_is_better`` column (the adapters record lm-eval's direction: perplexity, TER,
Brier score … are lower-is-better), so a system with the higher perplexity is never said to win."""
from __future__ import annotations

import io

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

import ranger_eval as rg
from ranger_eval.cli import app
from ranger_eval.comparison import CompareError, metric_directions
from ranger_eval.report import to_csv, to_markdown


def _scores(direction_column: bool = True) -> rg.Scores:
    rng = np.random.default_rng(7)
    rows = []
    for metric, hib, shift in (("acc", True, 0.3), ("perplexity", False, 0.3)):
        base = rng.normal(10.0, 1.0, 60)
        for system, delta in (("low", 0.0), ("high", shift)):
            for i, v in enumerate(base + delta + rng.normal(0, 0.05, 60)):
                row = {"dataset": "d", "metric": metric, "system": system, "item": str(i),
                       "value": float(v)}
                if direction_column:
                    row["higher_is_better"] = hib
                rows.append(row)
    return rg.Scores(pd.DataFrame(rows))


def test_directions_come_from_the_column() -> None:
    assert metric_directions(_scores()) == {("d", "acc"): True, ("d", "perplexity"): False}
    assert metric_directions(_scores(direction_column=False)) == {}


def test_leaderboard_winner_and_best_follow_the_direction() -> None:
    comp = rg.compare(_scores())
    board = comp.leaderboard()
    col = {m: j for j, (_, m) in enumerate(board.columns)}
    row = {s: i for i, s in enumerate(board.systems)}
    letter = dict(zip(board.systems, board.letters, strict=True))
    # "high" has the higher mean on both metrics, significantly
    assert (comp.table["significant"]).all()
    assert board.beats[row["high"]][col["acc"]] == letter["low"]
    assert board.beats[row["low"]][col["acc"]] == ""
    assert board.beats[row["low"]][col["perplexity"]] == letter["high"]
    assert board.beats[row["high"]][col["perplexity"]] == ""
    best = board.best()
    assert best[row["high"], col["acc"]] and not best[row["low"], col["acc"]]
    assert best[row["low"], col["perplexity"]] and not best[row["high"], col["perplexity"]]
    assert "lower for perplexity" in to_markdown(board)


def test_without_the_column_higher_is_better_everywhere() -> None:
    board = rg.compare(_scores(direction_column=False)).leaderboard()
    assert board.higher_is_better == (True, True)
    assert "higher mean" in to_markdown(board)


def test_csv_carries_the_direction_only_when_some_metric_is_lower_is_better() -> None:
    frame = pd.read_csv(io.StringIO(to_csv(rg.compare(_scores()))), comment="#")
    assert dict(zip(frame["metric"], frame["higher_is_better"], strict=True)) == {
        "acc": True, "perplexity": False}
    plain = pd.read_csv(io.StringIO(to_csv(rg.compare(_scores(False)))), comment="#")
    assert "higher_is_better" not in plain.columns


def test_contradicting_directions_are_an_error() -> None:
    df = _scores().frame.copy()
    df.loc[df.index[0], "higher_is_better"] = not bool(df.loc[df.index[0], "higher_is_better"])
    with pytest.raises(CompareError, match="both True and False"):
        rg.compare(rg.Scores(df)).leaderboard()


def test_html_report_says_the_lower_perplexity_wins(tmp_path) -> None:
    path = tmp_path / "scores.csv"
    _scores().frame.to_csv(path, index=False)
    out = tmp_path / "out"
    res = CliRunner().invoke(app, ["compare", str(path), "--out", str(out), "--figures", "none",
                                   "--html"])
    assert res.exit_code == 0, res.output
    html = (out / "report.html").read_text(encoding="utf-8")
    # one win each: high on acc, low on perplexity
    assert "high beats low on 1 of 2 datasets × metrics, low beats high on 1" in html \
        or "low beats high on 1 of 2 datasets × metrics, high beats low on 1" in html
    assert "lower where lower is better: perplexity" in html
