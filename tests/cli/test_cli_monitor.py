"""ranger-eval monitor: the decision printed, exit 0 on a decision and 3 on continue."""
from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from ranger_eval.cli import app

HEADER = "dataset,system,item,value\n"


def _log(tmp_path: Path, b_right: int) -> Path:
    path = tmp_path / "log.csv"
    path.write_text(HEADER + "".join(f"qa,A,q{i},{i % 2}\nqa,B,q{i},{int(i % 10 < b_right)}\n"
                                     for i in range(60)))
    return path


def test_exit_0_on_a_decision_with_n_used_and_interval(tmp_path: Path) -> None:
    res = CliRunner().invoke(app, ["monitor", str(_log(tmp_path, 10)), "--control", "A",
                                   "--treatment", "B", "-o", str(tmp_path / "o"),
                                   "--figures", "none"])
    assert res.exit_code == 0, res.output
    assert "treatment better: n_used" in res.output
    assert "95% confidence sequence [" in res.output
    assert (tmp_path / "o" / "monitor.md").exists()


def test_exit_3_on_continue_and_follow_rounds(tmp_path: Path) -> None:
    res = CliRunner().invoke(app, ["monitor", str(_log(tmp_path, 5)), "--control", "A",
                                   "--treatment", "B", "-o", str(tmp_path / "o"),
                                   "--figures", "none", "--follow", "--interval", "0.001",
                                   "--max-rounds", "2"])
    assert res.exit_code == 3, res.output
    assert "read 1: continue" in res.output and "read 2: continue" in res.output
