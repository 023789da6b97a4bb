"""The registry's renderings of ConfidenceSequence and MonitorResult."""
from __future__ import annotations

import io
import json

import numpy as np
import pandas as pd

import ranger_eval as rg
from ranger_eval import report
from ranger_eval.report.budget_monitor import checkpoints


def _result() -> rg.MonitorResult:
    rng = np.random.default_rng(0)
    scores = rg.Scores.from_arrays({"qa": {"A": (rng.random(300) < 0.55).astype(float),
                                           "B": (rng.random(300) < 0.75).astype(float)}})
    return rg.monitor(scores, control="A", treatment="B")


def test_checkpoints() -> None:
    assert checkpoints(0) == [] and checkpoints(7) == [7]
    assert checkpoints(600) == [10, 20, 50, 100, 200, 500, 600]


def test_monitor_every_format_carries_the_result() -> None:
    res = _result()
    md = report.to_markdown(res)
    assert res.decision in md and f"| {res.n_used} (decision) |" in md
    assert str(res.signature) in md
    data = json.loads(report.to_json(res))
    assert data["result"]["n_used"] == res.n_used and data["signature"] == str(res.signature)
    frame = pd.read_csv(io.StringIO(report.to_csv(res)))
    assert len(frame) == res.n_available
    np.testing.assert_allclose(frame["lower"], res.sequence.lower)
    assert frame["decided"].sum() == res.n_available - res.n_used + 1
    assert "tab:monitor" in report.to_latex(res)
    assert 'class="ranger-monitor"' in report.to_html(res)


def test_confidence_sequence_formats() -> None:
    cs = rg.confidence_sequence([1, 0, 1, 1] * 100)
    assert "| 400 |" in report.to_markdown(cs)
    assert json.loads(report.to_json(cs))["result"]["n"] == 400
    assert len(pd.read_csv(io.StringIO(report.to_csv(cs)))) == 400
    assert "tab:confseq" in report.to_latex(cs)
    assert "<table" in report.to_html(cs)
