"""``ranger-eval rank`` writes HELM's mean win rates of the rank's metric beside the rank test:
equal to ``rg.win_rate`` on the same data (per-item scores: the datasets+items
bootstrap; a dataset-level table: the datasets), in winrate.{md,csv,tex} and ranking.json, and the
HTML report states the leader in words with its interval."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import ranger_eval as rg
from ranger_eval.pipeline import run_rank
from ranger_eval.report.html import render_html_report
from ranger_eval.report.ranking import win_rate_sentence

# whole rank runs (1–3 s each): CI's deep pass; the default tier sees the win rates through the
# demo (tests/cli/test_cli.py) and tests/test_outputs_plain.py
pytestmark = pytest.mark.slow


def _scores(tmp_path: Path) -> Path:
    rng = np.random.default_rng(5)
    rows = [(f"d{d}", s, f"q{i}", "accuracy", float(rng.random() < 0.4 + 0.1 * k))
            for d in range(4) for k, s in enumerate("ABC") for i in range(25)]
    path = tmp_path / "scores.csv"
    pd.DataFrame(rows, columns=["dataset", "system", "item", "metric", "value"]).to_csv(
        path, index=False)
    return path


def test_rank_writes_the_win_rates_of_the_api(tmp_path: Path) -> None:
    src = _scores(tmp_path)
    run = run_rank(src, tmp_path / "out", figures="none", seed=3, level=0.9)
    expected = rg.win_rate(rg.read_scores(src), level=0.9, seed=3)
    assert run.parts["win_rate"] is not None and run.parts["win_rate"].resample == "datasets+items"
    for name in ("win_rate", "ci_low", "ci_high"):
        pd.testing.assert_series_equal(getattr(run.parts["win_rate"], name), getattr(expected, name))
    out = tmp_path / "out"
    pd.testing.assert_frame_equal(pd.read_csv(out / "winrate.csv", comment="#"),
                                  expected.to_frame(), check_dtype=False, rtol=1e-12)
    payload = json.loads((out / "ranking.json").read_text())
    assert payload["win_rate"] == json.loads(json.dumps(expected.to_dict()))
    sig = str(expected.signature)
    assert "seed:3" in sig and "level:0.9" in sig and "n_resamples:1000" in sig
    manifest = {f["file"]: f["signature"] for f in
                json.loads((out / "manifest.json").read_text())["files"]}
    assert all(manifest[name] == sig for name in ("winrate.md", "winrate.csv", "winrate.tex"))
    best = expected.to_frame().iloc[0]
    said = win_rate_sentence(best.system, best.win_rate, best.ci_low, best.ci_high, 0.9, 4)
    assert said in (out / "winrate.md").read_text()
    html = render_html_report(out)
    assert "By HELM&#x27;s mean win rate" in html or "By HELM's mean win rate" in html
    assert said.replace("–", "–") in html and "Mean win rates (HELM)" in html


def test_rank_of_a_table_bootstraps_the_datasets(tmp_path: Path) -> None:
    table = pd.DataFrame({"A": [0.9, 0.8, 0.7, 0.6], "B": [0.5, 0.85, 0.6, 0.7],
                          "C": [0.1, 0.2, 0.3, 0.4]}, index=pd.Index(list("wxyz"),
                                                                      name="dataset"))
    path = tmp_path / "table.csv"
    table.to_csv(path)
    run = run_rank(path, tmp_path / "out", figures="none", seed=1)
    expected = rg.win_rate(table, seed=1)
    assert run.parts["win_rate"] is not None and run.parts["win_rate"].resample == "datasets"
    pd.testing.assert_series_equal(run.parts["win_rate"].ci_low, expected.ci_low)
    assert json.loads((tmp_path / "out" / "ranking.json").read_text())["win_rate"][
        "systems"][0]["system"] == "A"


def test_rank_without_a_seed_records_the_one_it_drew(tmp_path: Path) -> None:
    run = run_rank(_scores(tmp_path), tmp_path / "out", figures="none")
    assert run.parts["win_rate"] is not None and isinstance(run.parts["win_rate"].seed, int)
    assert f"seed:{run.parts['win_rate'].seed}" in str(run.parts["win_rate"].signature)
