"""Issue 27 §4: where the ranking's pairwise tests (harmonic-mean p) and the rank test (Nemenyi,
the CD diagram) answer differently, the reading says what each asks and why both hold — and
says nothing when they agree."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ranger_eval.aggregate.agreement import rank_disagreements
from ranger_eval.cli import app


def _rt(sig: dict[tuple[str, str], bool]) -> dict:
    return {"average_ranks": {"A": 1.0, "B": 2.0, "C": 3.0}, "n_datasets": 4,
            "posthoc": "nemenyi", "critical_difference": 1.66,
            "pairwise": [{"a": a, "b": b, "significant": s} for (a, b), s in sig.items()]}


def _rk(sig: dict[tuple[str, str], bool]) -> dict:
    return {"pairwise": [{"a": b, "b": a, "significant": s, "test": "hmp"}  # order-free
                         for (a, b), s in sig.items()]}


def test_agreement_says_nothing() -> None:
    same = {("A", "B"): True, ("A", "C"): True, ("B", "C"): False}
    assert rank_disagreements(_rk(same), _rt(same)) == []
    assert rank_disagreements({"pairwise": []}, _rt(same)) == []


def test_both_directions_are_explained() -> None:
    pair = {("A", "B"): True, ("A", "C"): True, ("B", "C"): False}
    rank = {("A", "B"): False, ("A", "C"): True, ("B", "C"): True}
    first, second = rank_disagreements(_rk(pair), _rt(rank))
    assert first.startswith("The harmonic-mean p asks whether two systems differ on at least "
                            "one dataset × metric; the Nemenyi test asks whether their average "
                            "ranks over the 4 datasets differ by more than the critical "
                            "difference (CD = 1.66).")
    assert "Both hold for A vs B, significant by the first and not by the second" in first
    assert "Both hold for B vs C, separated by the rank test" in second


@pytest.mark.slow  # the whole demo (8 s)
def test_the_demo_explains_hmp_against_its_cd_diagram(tmp_path: Path) -> None:
    out = tmp_path / "demo"
    result = CliRunner().invoke(app, ["demo", "--out", str(out), "--html"])
    assert result.exit_code == 0, result.output
    payload = json.loads((out / "ranking" / "ranking.json").read_text())
    (sentence,) = payload["disagreements"]
    assert "coder-13b vs coder-7b" in sentence and "CD = 3.05" in sentence
    md = (out / "ranking" / "ranking.md").read_text()
    assert f"**Why both hold.** {sentence}" in md
    assert md.rstrip().splitlines()[-1].startswith("`ranger-eval:")  # the signature stays last
    html = (out / "report.html").read_text()
    assert html.count("Both hold for coder-13b vs coder-34b") >= 2  # the reading and the JSON
