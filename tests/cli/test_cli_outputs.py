"""One default output folder pattern (``ranger-<command>``) and one HTML rule
(``--html`` writes report.html, on every command that writes an analysis folder)."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
import typer
from typer.testing import CliRunner

from ranger_eval.cli import app
from ranger_eval.cli._options import OUT_PATTERN, default_out

#: Commands that write an output folder, and whether they take --html (plan writes a sample
#: size, plan.md and plan.json: no report page; see docs/cli.md).
FOLDER_COMMANDS = {"demo": True, "meta": True, "compare": True, "rank": True, "arena": True,
                   "aso": True, "bayes": True, "plan": False, "agree": True,
                   "monitor": True, "estimate": True}


def _commands() -> dict[str, Any]:
    group = typer.main.get_command(app)
    return dict(group.commands)  # type: ignore[attr-defined]


def test_every_folder_command_defaults_to_ranger_command() -> None:
    commands = _commands()
    have_out = {name for name, cmd in commands.items()
                if any(p.name == "out" for p in cmd.params)}
    assert have_out == set(FOLDER_COMMANDS)
    for name in FOLDER_COMMANDS:
        (out,) = [p for p in commands[name].params if p.name == "out"]
        assert out.opts == ["--out", "-o"]
        assert Path(out.default) == default_out(name) == Path(f"ranger-{name}")
        assert "ranger-<command>" in (out.help or "")
    assert OUT_PATTERN == "ranger-{command}"


def test_html_is_one_option_with_one_meaning() -> None:
    commands = _commands()
    for name, takes in FOLDER_COMMANDS.items():
        html = [p for p in commands[name].params if p.name == "html"]
        assert bool(html) == takes, name
        if html:
            assert html[0].opts == ["--html"] and html[0].default is False
            assert html[0].help == "Also write one self-contained report.html."


@pytest.mark.slow  # three arena runs, one with the HTML page: about 2 s
def test_arena_writes_report_html_only_with_html_and_in_its_default_folder(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    battles = pd.DataFrame({"model_a": ["x", "y", "y", "z", "x", "z", "x"],
                            "model_b": ["y", "x", "z", "y", "z", "x", "y"],
                            "winner": ["model_a"] * 6 + ["tie"]})
    battles.to_csv("battles.csv", index=False)
    runner = CliRunner()
    result = runner.invoke(app, ["arena", "battles.csv", "--n-resamples", "0",
                                 "--figures", "none"])
    assert result.exit_code == 0, result.output
    out = tmp_path / "ranger-arena"
    assert (out / "arena.csv").is_file()
    assert not (out / "report.html").exists() and not (out / "arena.html").exists()
    result = runner.invoke(app, ["arena", "battles.csv", "--n-resamples", "0",
                                 "--figures", "none", "--html"])
    assert result.exit_code == 0, result.output
    page = (out / "report.html").read_text()
    assert "Arena leaderboard" in page and not (out / "arena.html").exists()
    assert "report.html" in result.output
    # the page is not in the manifest (as for every command); a run without --html removes it
    assert "report.html" not in {f["file"] for f in
                                 json.loads((out / "manifest.json").read_text())["files"]}
    result = runner.invoke(app, ["arena", "battles.csv", "--n-resamples", "0",
                                 "--figures", "none"])
    assert result.exit_code == 0, result.output
    assert not (out / "report.html").exists()
