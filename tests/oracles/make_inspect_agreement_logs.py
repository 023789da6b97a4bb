"""Write the Inspect AI logs of tests/oracles/inspect_agreement/ (the adapter
recomputes Inspect's own ``results`` from the samples it read).

Real logs written by inspect_ai itself (a test dependency; offline, nothing downloaded) on the
``mockllm/model`` model. The solver answers from a seeded random stream without a model
call (Inspect's ``generate()`` would count tokens with tiktoken, which downloads its
encoding). One task ``qa`` (30 samples) with the scorers Inspect ships for it and their
default metrics -- ``match()``, ``includes()`` (accuracy, stderr), ``exact()``, ``f1()``
(mean, stderr) -- plus a numeric scorer ``length`` with ``mean, stderr, std, var``:

* ``full.eval`` / ``full.json``: every sample;
* ``epochs.eval``: 3 epochs reduced by mean (Inspect's default reducer);
* ``limit.eval``: ``limit=10`` (Inspect scores 10 samples and says so in ``results``);
* ``cut.json``: ``full.json`` with all samples but the first removed afterwards (a file cut by
  hand or by a crashed copy: ``results`` still reports the 30 samples Inspect scored).

    python tests/oracles/make_inspect_agreement_logs.py

Rewrites the folder; the inspect_ai version is in every log (``eval.packages``).
"""
from __future__ import annotations

import json
import random
import shutil
from pathlib import Path

from inspect_ai import Task, eval, task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.model import ModelOutput
from inspect_ai.scorer import (
    Score,
    Target,
    exact,
    f1,
    includes,
    match,
    mean,
    scorer,
    std,
    stderr,
    var,
)
from inspect_ai.solver import TaskState, solver

OUT = Path(__file__).with_name("inspect_agreement")
N_SAMPLES = 30
ANSWERS = ["yes", "no", "the answer is yes", "maybe no", "42"]


@scorer(metrics=[mean(), stderr(), std(), var()])
def length():
    async def score(state: TaskState, target: Target) -> Score:
        return Score(value=len(state.output.completion.split()),
                     answer=state.output.completion)

    return score


@solver
def canned(seed: int):
    rng = random.Random(seed)

    async def solve(state, generate):  # no model call: the answer is drawn
        state.output = ModelOutput.from_content(model="mockllm/model",
                                                content=rng.choice(ANSWERS))
        return state

    return solve


@task
def qa() -> Task:
    rng = random.Random(3)
    samples = [Sample(input=f"question {i}?", target=rng.choice(["yes", "no", "42"]),
                      id=f"q{i:02d}") for i in range(N_SAMPLES)]
    return Task(dataset=MemoryDataset(samples), solver=[canned(7)],
                scorer=[match(), includes(), exact(), f1(), length()], name="qa")


def run(name: str, fmt: str, **kwargs) -> Path:
    before = set(OUT.glob(f"*.{fmt}"))
    eval(qa(), model="mockllm/model", log_dir=str(OUT), log_format=fmt,
         display="none", **kwargs)
    (written,) = set(OUT.glob(f"*.{fmt}")) - before
    return written.rename(OUT / f"{name}.{fmt}")  # stable names for the tests


def main() -> None:
    if OUT.exists():
        shutil.rmtree(OUT)
    OUT.mkdir()
    run("full", "eval")
    full = run("full", "json")
    run("epochs", "eval", epochs=3)
    run("limit", "eval", limit=10)
    log = json.loads(full.read_text())
    log["samples"] = log["samples"][:1]
    (OUT / "cut.json").write_text(json.dumps(log, indent=2))
    for path in sorted(OUT.iterdir()):
        print(path.name, path.stat().st_size)


if __name__ == "__main__":
    main()
