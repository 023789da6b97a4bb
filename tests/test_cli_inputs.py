"""Issue 19 point 8: one input model and one wording across commands (help, errors, names)."""
from __future__ import annotations

import pytest
from typer.testing import CliRunner

from ranger_eval.cli import app

runner = CliRunner()


@pytest.mark.parametrize("command", [[], ["compare"], ["meta"], ["rank"], ["trec"], ["demo"]])
def test_help_shows_no_metavar_for_flags(command: list[str]) -> None:
    result = runner.invoke(app, [*command, "--help"], env={"COLUMNS": "140"})
    assert result.exit_code == 0, result.output
    assert "<bool>" not in result.output
    assert "--help" in result.output
    if command == ["compare"]:  # options that take a value keep theirs
        assert "<float>" in result.output and "--html" in result.output
