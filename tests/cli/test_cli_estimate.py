"""``ranger-eval estimate``: the command's numbers equal ``rg.estimate_from_subset`` on the same
files, it prints how many items the estimate is worth, and bad options are named."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
from typer.testing import CliRunner

import ranger_eval as rg
from ranger_eval.cli import app


def _files(folder: Path) -> tuple[pd.DataFrame, pd.DataFrame]:
    rng = np.random.default_rng(8)
    b, theta = rng.normal(0, 2, 120), rng.normal(size=21)
    x = (rng.random((21, 120)) < 1 / (1 + np.exp(-(theta[:, None] - b)))).astype(int)
    items = [f"q{i}" for i in range(120)]
    history = pd.DataFrame(x[:20], index=[f"m{i}" for i in range(20)], columns=items)
    history.rename_axis("system").reset_index().melt(id_vars="system", var_name="item").to_csv(
        folder / "history.csv", index=False)
    pick = rng.choice(120, 30, replace=False)
    responses = pd.DataFrame({"item": [items[i] for i in pick], "value": x[20, pick]})
    responses.to_csv(folder / "responses.csv", index=False)
    return history, responses


def test_estimate_command_equals_the_function(tmp_path: Path) -> None:
    history, responses = _files(tmp_path)
    result = CliRunner().invoke(app, ["estimate", "--history", str(tmp_path / "history.csv"),
                                      "--responses", str(tmp_path / "responses.csv"),
                                      "--level", "0.9", "--n-folds", "3", "--figures", "none",
                                      "--out",
                                      str(tmp_path / "out")])
    assert result.exit_code == 0, result.output
    assert "as precise as the plain mean of" in result.output
    written = json.loads((tmp_path / "out" / "estimate.json").read_text())["result"]
    expected = rg.estimate_from_subset(history, responses, level=0.9, n_folds=3)
    assert written["estimate"] == expected.estimate and written["low"] == expected.low
    assert written["effective_n"] == expected.effective_n
    manifest = json.loads((tmp_path / "out" / "manifest.json").read_text())
    assert "kind:subset" in json.dumps(manifest)


def test_estimate_command_names_a_bad_option(tmp_path: Path) -> None:
    _files(tmp_path)
    result = CliRunner().invoke(app, ["estimate", "--history", str(tmp_path / "history.csv"),
                                      "--responses", str(tmp_path / "responses.csv"),
                                      "--predictor", "3pl", "--out", str(tmp_path / "out")])
    assert result.exit_code == 2
    assert "predictor" in result.output and "3pl" in result.output


def test_estimate_command_takes_the_design(tmp_path: Path) -> None:
    history, responses = _files(tmp_path)
    result = CliRunner().invoke(app, ["estimate", "--history", str(tmp_path / "history.csv"),
                                      "--responses", str(tmp_path / "responses.csv"),
                                      "--design", "stratified", "--strata", "3",
                                      "--figures", "none", "--out", str(tmp_path / "out")])
    assert result.exit_code == 0, result.output
    written = json.loads((tmp_path / "out" / "estimate.json").read_text())["result"]
    design = rg.SubsetChoice.of_items(history, responses["item"], method="stratified",
                                      n_strata=3)
    expected = rg.estimate_from_subset(history, responses, design=design)
    assert written["design"] == "stratified" and written["n_strata"] == 3
    assert written["estimate"] == expected.estimate and written["se"] == expected.se
    bad = CliRunner().invoke(app, ["estimate", "--history", str(tmp_path / "history.csv"),
                                   "--responses", str(tmp_path / "responses.csv"),
                                   "--design", "bogus", "--out", str(tmp_path / "bad")])
    assert bad.exit_code == 2 and "--design" in bad.output and "bogus" in bad.output
