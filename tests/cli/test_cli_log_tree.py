"""Folder trees of logs from the command line: ``compare``, ``rank`` and ``meta`` read a folder tree of logs
(Inspect's ``logs/<model>/``), name what they skipped on stderr and list what they read and
skipped in ``manifest.json``'s ``inputs``."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ranger_eval.cli import app

TREE = Path(__file__).resolve().parents[1] / "oracles" / "inspect_tree" / "logs"
runner = CliRunner()


def _inputs(out: Path) -> dict:
    (tree,) = json.loads((out / "manifest.json").read_text())["inputs"]
    return tree


@pytest.mark.parametrize("command", [
    pytest.param(["compare"], marks=pytest.mark.slow),  # 0.4 s; compare is also tested below
    pytest.param(["rank"], marks=pytest.mark.slow),  # 0.7 s: its Bradley–Terry bootstrap
    ["meta", "--control", "mockllm/beta", "--treatment", "mockllm/alpha"],
])
def test_commands_read_an_inspect_log_tree_and_list_it_in_the_manifest(
        tmp_path: Path, command: list[str]) -> None:
    out = tmp_path / "out"
    result = runner.invoke(app, [command[0], str(TREE), *command[1:], "--out", str(out),
                                 "--figures", "none"])
    assert result.exit_code == 0, result.output
    # stderr: the skip, counted and named with its reason
    assert ("logs: read 4 input(s) (system(s) mockllm/alpha, mockllm/beta); skipped 1: "
            "beta-runs/2026-01-05T11-00-00_yesno_beta.eval (an unfinished run") in result.output
    tree = _inputs(out)
    assert tree["folder"] == str(TREE)
    assert (tree["n_read"], tree["n_skipped"]) == (4, 1)
    assert {r["file"].split("/")[0] for r in tree["read"]} == {"alpha-runs", "beta-runs"}
    assert {s for r in tree["read"] for s in r["systems"]} == {"mockllm/alpha", "mockllm/beta"}
    assert tree["skipped"][0]["reason"].startswith("an unfinished run")


def test_compare_uses_the_good_logs_of_a_tree_and_names_the_bad_ones(tmp_path: Path) -> None:
    logs = tmp_path / "logs"
    shutil.copytree(TREE, logs)
    good = logs / "alpha-runs" / "2026-01-05T10-05-00_parity_alpha.eval"
    (logs / "alpha-runs" / "cut.eval").write_bytes(good.read_bytes()[:1500])
    out = tmp_path / "out"
    result = runner.invoke(app, ["compare", str(logs), "--out", str(out), "--figures", "none"])
    assert result.exit_code == 0, result.output
    assert "skipped 2: alpha-runs/cut.eval (not a readable .eval archive" in result.output
    board = (out / "comparison.csv").read_text()
    assert "mockllm/alpha" in board and "parity" in board and "yesno" in board
    assert {s["file"] for s in _inputs(out)["skipped"]} == {
        "alpha-runs/cut.eval", "beta-runs/2026-01-05T11-00-00_yesno_beta.eval"}


def test_an_error_after_skips_names_the_skipped_logs(tmp_path: Path) -> None:
    logs = tmp_path / "logs"
    shutil.copytree(TREE / "alpha-runs", logs / "alpha")
    (logs / "beta").mkdir()
    beta = TREE / "beta-runs" / "2026-01-05T11-35-00_parity_beta.eval"
    (logs / "beta" / "parity.eval").write_bytes(beta.read_bytes()[:1500])
    result = runner.invoke(app, ["compare", str(logs), "--out", str(tmp_path / "out"),
                                 "--figures", "none"])
    assert result.exit_code == 2
    assert "need at least two systems" in result.output
    assert "(while reading the logs, " in result.output
    assert "skipped 1: beta/parity.eval (not a readable .eval archive" in result.output


def test_a_tree_without_logs_is_an_error_naming_the_folder(tmp_path: Path) -> None:
    (tmp_path / "logs" / "alpha").mkdir(parents=True)
    result = runner.invoke(app, ["compare", str(tmp_path / "logs"), "--out",
                                 str(tmp_path / "out")])
    assert result.exit_code == 2
    assert f"{tmp_path / 'logs'}: no evaluation log or score table in this folder" in \
        " ".join(result.output.split())
