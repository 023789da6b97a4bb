"""``ranger-eval rank`` writes a Bradley–Terry leaderboard of the rank's metric:
every item a battle between every pair of systems (every dataset, for a dataset-level table),
equal to ``bradley_terry(battle_counts(...))``; ``--bradley-terry false`` leaves it out; when no
finite ratings exist, a warning and the report say why and the other outputs are written."""
from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

import ranger_eval as rg
from ranger_eval.cli import app
from ranger_eval.pipeline import run_rank
from ranger_eval.report.html import render_html_report
from ranger_eval.verdicts.bradley_terry import battle_counts, table_battle_counts

BT_FILES = {"bradley_terry.md", "bradley_terry.csv", "bradley_terry.tex"}
# whole rank runs (1–3 s each): CI's deep pass; the default tier sees the leaderboard through
# the demo (tests/cli/test_cli.py, tests/report/test_html.py) and the API tests of battle_counts
pytestmark = pytest.mark.slow


def _scores(tmp_path: Path, systems: str = "ABCD", datasets: int = 3, items: int = 30,
            metric: str = "accuracy") -> Path:
    rng = np.random.default_rng(11)
    rows = [(f"d{d}", s, f"q{i}", metric, float(rng.random() < 0.45 + 0.08 * k))
            for d in range(datasets) for k, s in enumerate(systems) for i in range(items)]
    path = tmp_path / "scores.csv"
    pd.DataFrame(rows, columns=["dataset", "system", "item", "metric", "value"]).to_csv(
        path, index=False)
    return path


def test_rank_writes_the_leaderboard_of_the_api(tmp_path: Path) -> None:
    src = _scores(tmp_path)
    run = run_rank(src, tmp_path / "out", figures="none", seed=3, level=0.9)
    expected = rg.bradley_terry(battle_counts(rg.read_scores(src)), level=0.9, seed=3)
    assert run.parts["bradley_terry"] is not None
    pd.testing.assert_series_equal(run.parts["bradley_terry"].ratings, expected.ratings, rtol=1e-12)
    out = tmp_path / "out"
    pd.testing.assert_frame_equal(pd.read_csv(out / "bradley_terry.csv"), expected.to_frame(),
                                  check_dtype=False, rtol=1e-12)
    assert expected.n_battles == 3 * 30 * 6   # items × pairs of 4 systems
    payload = json.loads((out / "ranking.json").read_text())
    assert payload["bradley_terry"]["signature"] == str(expected.signature)
    sig = str(expected.signature)
    assert "battles:scores(items)" in sig and "n_resamples:1000" in sig and "seed:3" in sig
    assert "level:0.9" in sig
    md = (out / "bradley_terry.md").read_text()
    best = expected.to_frame().model.iloc[0]
    assert expected.rank_sentence(best) in md and "90 % rank interval" in md
    manifest = {f["file"]: f["signature"] for f in
                json.loads((out / "manifest.json").read_text())["files"]}
    assert all(manifest[name] == sig for name in BT_FILES)
    assert "Bradley–Terry maximum-likelihood ratings of 4 models" in render_html_report(out)


def test_rank_without_bradley_terry_and_lower_is_better(tmp_path: Path) -> None:
    src = _scores(tmp_path, metric="error_rate")
    result = CliRunner().invoke(app, ["rank", str(src), "--bradley-terry", "false",
                                      "--figures", "none", "-o", str(tmp_path / "off")])
    assert result.exit_code == 0, result.output
    assert not BT_FILES & {p.name for p in (tmp_path / "off").iterdir()}
    assert "bradley_terry" not in json.loads((tmp_path / "off" / "ranking.json").read_text())
    # lower is better: the battles are won by the lower score
    run = run_rank(src, tmp_path / "low", figures="none", higher_is_better=False)
    expected = rg.bradley_terry(battle_counts(rg.read_scores(src), higher_is_better=False))
    pd.testing.assert_series_equal(run.parts["bradley_terry"].ratings, expected.ratings, rtol=1e-12)


def test_rank_of_a_dataset_level_table(tmp_path: Path) -> None:
    table = pd.DataFrame({"dataset": [f"d{i}" for i in range(8)],
                          "A": [0.71, 0.62, 0.80, 0.55, 0.90, 0.67, 0.73, 0.60],
                          "B": [0.70, 0.65, 0.78, 0.58, 0.88, 0.70, 0.73, 0.61],
                          "C": [0.60, 0.66, 0.70, 0.50, 0.91, 0.60, 0.70, 0.52]})
    src = tmp_path / "wide.csv"
    table.to_csv(src, index=False)
    run = run_rank(src, tmp_path / "out", figures="none")
    expected = rg.bradley_terry(table_battle_counts(table.set_index("dataset")))
    assert "battles:scores(datasets)|resample:datasets" in str(run.parts["bradley_terry"].signature)
    assert "bootstrap rounds over datasets" in (tmp_path / "out" / "bradley_terry.md").read_text()
    assert run.parts["bradley_terry"].n_battles == 8 * 3
    pd.testing.assert_series_equal(run.parts["bradley_terry"].ratings, expected.ratings, rtol=1e-12)


def test_rank_says_why_there_is_no_leaderboard(tmp_path: Path) -> None:
    """B beats A on every item: B's maximum-likelihood rating is infinite."""
    rng = np.random.default_rng(0)
    rows = [(f"d{d}", s, f"q{i}", lo + 0.4 * rng.random()) for d in range(3) for i in range(10)
            for s, lo in (("A", 0.0), ("B", 0.5))]
    src = tmp_path / "s.csv"
    pd.DataFrame(rows, columns=["dataset", "system", "item", "value"]).to_csv(src, index=False)
    run = run_rank(src, tmp_path / "out", figures="none")
    assert run.parts["bradley_terry"] is None
    assert any(re.search("no Bradley–Terry leaderboard.*'B'.* never lost", w)
               for w in run.warnings), run.warnings
    out = tmp_path / "out"
    assert not BT_FILES & {p.name for p in out.iterdir()}
    skipped = json.loads((out / "ranking.json").read_text())["bradley_terry"]["skipped"]
    assert "never lost" in skipped
    assert "No Bradley–Terry leaderboard: " in render_html_report(out)
