"""MonitorStopping: Inspect AI's EarlyStopping hook with rg.monitor as its rule."""
from __future__ import annotations

import asyncio
import random
from pathlib import Path
from typing import Any

import pytest

import ranger_eval as rg
from ranger_eval.budget.inspect_stop import MonitorStopping
from ranger_eval.errors import ScoresError


class _Score:  # the SampleScore Inspect passes: .score.value
    def __init__(self, value: Any) -> None:
        self.score = type("Score", (), {"value": value})()


async def _drive(stop: MonitorStopping, outcomes: list[str], epochs: int = 1) -> int | None:
    await stop.start_task(None, [], epochs)
    for i, value in enumerate(outcomes):
        for epoch in range(1, epochs + 1):
            if await stop.schedule_sample(f"q{i}", epoch) is not None:
                return i
            await stop.complete_sample(f"q{i}", epoch, {"match": _Score(value)})
    return None


@pytest.mark.slow  # one rg.monitor per completed sample (about 30 ms each): about 1-3 s
def test_stops_at_the_monitor_decision() -> None:
    rng = random.Random(1)
    control = {f"q{i}": float(rng.random() < 0.4) for i in range(300)}
    outcomes = ["C" if rng.random() < 0.9 else "I" for _ in range(300)]
    stop = MonitorStopping(control, scorer="match")
    first_stopped = asyncio.run(_drive(stop, outcomes))
    assert stop.result is not None and stop.result.decision == "treatment better"
    assert first_stopped == stop.result.n_used
    # the same decision as rg.monitor on the two runs' first n_used items
    n = stop.result.n_used
    scores = rg.Scores.from_arrays({"qa": {
        "A": [control[f"q{i}"] for i in range(n)],
        "B": [1.0 if v == "C" else 0.0 for v in outcomes[:n]]}})
    direct = rg.monitor(scores, control="A", treatment="B")
    assert (direct.decision, direct.n_used) == (stop.result.decision, n)
    meta = asyncio.run(stop.complete_task())
    assert meta["decision"] == "treatment better" and meta["n_used"] == n


def test_epochs_are_averaged_and_every_thins_the_checks() -> None:
    control = {f"q{i}": 0.0 for i in range(40)}
    stop = MonitorStopping(control, scorer="match", every=5)
    asyncio.run(_drive(stop, ["C"] * 40, epochs=2))
    assert stop.result is not None and stop.result.n_available % 5 == 0


def test_control_from_scores_and_errors() -> None:
    scores = rg.Scores.from_arrays({"qa": {"A": [1.0, 0.0], "B": [0.0, 1.0]}})
    with pytest.raises(ScoresError, match="control_name="):
        MonitorStopping(scores)
    stop = MonitorStopping(scores, control_name="A")
    assert stop.control.to_dict() == {"1": 1.0, "2": 0.0} or len(stop.control) == 2
    stop = MonitorStopping({"q0": 1.0})
    with pytest.raises(ScoresError, match="scorer="):
        asyncio.run(stop.complete_sample("q0", 1, {"a": _Score(1), "b": _Score(0)}))
    with pytest.raises(ScoresError, match="no score for it"):
        asyncio.run(stop.complete_sample("zz", 1, {"a": _Score(1)}))
    with pytest.raises(ScoresError, match="not a number"):
        asyncio.run(stop.complete_sample("q0", 1, {"a": _Score([1, 2])}))
    with pytest.raises(ScoresError, match="every"):
        MonitorStopping({"q0": 1.0}, every=0)


@pytest.mark.slow  # a real Inspect eval of 200 samples on the mock model: about 3 s
def test_real_inspect_eval_on_the_mock_model_stops_early(tmp_path: Path) -> None:
    inspect_ai = pytest.importorskip("inspect_ai")
    from inspect_ai.dataset import MemoryDataset, Sample
    from inspect_ai.model import ModelOutput
    from inspect_ai.scorer import match
    from inspect_ai.solver import solver

    @solver
    def canned(p: float):  # no model call: right with probability p
        rng = random.Random(5)

        async def solve(state, generate):
            ok = rng.random() < p
            state.output = ModelOutput.from_content(
                model="mockllm/model", content=state.target.text if ok else "wrong")
            return state

        return solve

    samples = [Sample(input=f"q {i}?", target="yes", id=f"q{i:03d}") for i in range(200)]
    control = {f"q{i:03d}": float(random.Random(i).random() < 0.3) for i in range(200)}
    stop = MonitorStopping(control, scorer="match")
    task = inspect_ai.Task(dataset=MemoryDataset(samples), solver=[canned(0.9)],
                           scorer=match(), early_stopping=stop)
    (log,) = inspect_ai.eval(task, model="mockllm/model", max_samples=1, display="none",
                             log_dir=str(tmp_path))
    assert log.status == "success"
    summary = log.results.early_stopping
    assert summary.manager == "ranger_eval.monitor"
    assert summary.metadata["decision"] == "treatment better"
    n_used = summary.metadata["n_used"]
    assert len(log.samples) == n_used < 200
    assert len(summary.early_stops) == 200 - n_used
    assert {s.reason for s in summary.early_stops} == {"treatment better"}
    # the log Inspect wrote, read back, gives the same decision
    treated = rg.read_scores(Path(log.location))
    frame = treated.raw_frame
    import pandas as pd

    both = pd.concat([frame.assign(system="B"),
                      frame.assign(system="A", value=frame["item"].map(control))])
    again = rg.monitor(rg.Scores(both[["dataset", "system", "item", "value"]]),
                       control="A", treatment="B")
    assert again.n_used == n_used and again.decision == "treatment better"
