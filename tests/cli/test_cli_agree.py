"""``ranger-eval agree``: the command's tables equal ``rg.agreement`` / ``rg.alt_test`` on the same
file, its options come from the settings, and bad options are named."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
from typer.testing import CliRunner

import ranger_eval as rg
from ranger_eval.cli import app


def _ratings(path: Path, n: int = 60) -> pd.DataFrame:
    rng = np.random.default_rng(4)
    truth = rng.integers(1, 6, n)
    rows = [(f"q{i}", r, int(np.clip(t + rng.integers(-1, 2), 1, 5)))
            for i, t in enumerate(truth) for r in ("h1", "h2", "h3", "llm")]
    table = pd.DataFrame(rows, columns=["item", "rater", "value"])
    table.to_csv(path, index=False)
    return table


def test_agree_command_equals_the_functions(tmp_path: Path) -> None:
    table = _ratings(tmp_path / "r.csv")
    result = CliRunner().invoke(app, ["agree", str(tmp_path / "r.csv"), "--scale", "ordinal",
                                      "--n-resamples", "200", "--judge", "llm", "--metric",
                                      "neg_rmse", "--epsilon", "0.1", "--out",
                                      str(tmp_path / "out")])
    assert result.exit_code == 0, result.output
    written = json.loads((tmp_path / "out" / "agreement.json").read_text())["result"]
    expected = rg.agreement(table, scale="ordinal", n_resamples=200)
    assert written["estimate"] == expected.estimate and written["ci_low"] == expected.low
    alt = json.loads((tmp_path / "out" / "alt_test.json").read_text())["result"]
    assert alt["winning_rate"] == rg.alt_test(table, judge="llm", metric="neg_rmse",
                                              epsilon=0.1).winning_rate
    manifest = json.loads((tmp_path / "out" / "manifest.json").read_text())
    assert "kind:agreement" in json.dumps(manifest)
    assert pd.read_csv(tmp_path / "out" / "agreement.csv")["n_raters"].iloc[0] == 4


def test_agree_refuses_a_bad_option(tmp_path: Path) -> None:
    _ratings(tmp_path / "r.csv", 10)
    result = CliRunner().invoke(app, ["agree", str(tmp_path / "r.csv"), "--coefficient", "fleis",
                                      "--out", str(tmp_path / "out")])
    assert result.exit_code == 2 and "option --coefficient:" in result.output
    assert "fleiss" in result.output and "method" not in result.output
