"""Issue 19 point 8: one input model and one wording across commands (help, errors, names)."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from ranger_eval.cli import app
from ranger_eval.cli._common import cli_words
from ranger_eval.errors import Hint, ScoresError

runner = CliRunner()


@pytest.mark.parametrize("command", [[], ["compare"], ["meta"], ["rank"], ["trec"], ["demo"]])
def test_help_shows_no_metavar_for_flags(command: list[str]) -> None:
    result = runner.invoke(app, [*command, "--help"], env={"COLUMNS": "140"})
    assert result.exit_code == 0, result.output
    assert "<bool>" not in result.output
    assert "--help" in result.output
    if command == ["compare"]:  # options that take a value keep theirs
        assert "<float>" in result.output and "--html" in result.output


# ------------------------------------------------------------------ errors in the CLI's words
def _gap_table(path: Path) -> Path:
    """Two systems on three datasets; B lacks one item of d1 (the pairing error)."""
    rng = np.random.default_rng(0)
    rows = [(d, s, "acc", f"q{i}", float(rng.random()))
            for d in ("d1", "d2", "d3") for s in ("A", "B") for i in range(12)
            if not (s == "B" and d == "d1" and i == 11)]
    pd.DataFrame(rows, columns=["dataset", "system", "metric", "item", "value"]).to_csv(
        path, index=False)
    return path


def test_hint_in_python_words_for_the_api() -> None:
    hint = Hint("missing", "intersect")
    assert hint.text == "pass missing='intersect'"
    assert Hint("metric").text == "pass metric="
    err = ScoresError(f"x ({hint.text})", hints=[hint])
    assert err.hints == (hint,) and str(err) == "x (pass missing='intersect')"


@pytest.mark.parametrize(("hint", "options", "words"), [
    (Hint("missing", "intersect"), ["--missing"], "pass --missing intersect"),
    (Hint("metrics"), ["--metric"], "pass --metric"),
    (Hint("degenerate", "drop"), ["--drop-degenerate"], "pass --drop-degenerate"),
    (Hint("allow_no_overlap", True), ["--allow-no-overlap"], "pass --allow-no-overlap"),
    (Hint("seeds", "allow-unbalanced"), ["--seeds"], "pass --seeds allow-unbalanced"),
    (Hint("missing", "intersect"), [], "set `missing: intersect` in the experiment YAML"),
    (Hint("higher_is_better", {"m": True}), ["--lower-is-better"],
     "set `aggregate.higher_is_better: {m: true}` in the experiment YAML"),
    (Hint("sizes"), ["--metric"], None),
])
def test_cli_words(hint: Hint, options: list[str], words: str | None) -> None:
    assert cli_words(hint, options) == words


def test_meta_error_names_no_python_keyword(tmp_path: Path) -> None:
    table = _gap_table(tmp_path / "gap.csv")
    result = runner.invoke(app, ["meta", str(table), "--control", "A", "--treatment", "B",
                                 "-o", str(tmp_path / "o")])
    assert result.exit_code == 2
    err = result.stderr
    assert "only in 'A': 'q11'" in err
    assert "missing='intersect'" not in err and "missing: intersect" in err
