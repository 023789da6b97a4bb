"""Write the Inspect AI logs of tests/oracles/inspect_systems/ (several logs
of one model).

Real logs written by inspect_ai itself (``pip install inspect-ai``; offline, nothing is
downloaded) on the ``mockllm/model`` model: one task ``yesno`` with a task argument ``cot``,
run twice with the same model (``cot=False`` at temperature 0, ``cot=True`` at temperature
0.7), each written as ``.eval`` and as ``.json`` (``eval/plain.eval``, ``eval/cot.eval``,
``json/plain.json``, ``json/cot.json``). The canned solver answers from a seeded
random stream, so the two runs differ on some samples.

    python tests/oracles/make_inspect_logs_systems.py

Rewrites the folder; the inspect_ai version is in every log (``eval.packages``).
"""
from __future__ import annotations

import random
import shutil
from pathlib import Path

from inspect_ai import Task, eval, task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.model import GenerateConfig, ModelOutput
from inspect_ai.scorer import includes
from inspect_ai.solver import solver

OUT = Path(__file__).with_name("inspect_systems")
N_SAMPLES = 12


@solver
def canned(cot: bool):
    rng = random.Random(11 if cot else 5)

    async def solve(state, generate):  # no model call: the answer is drawn
        p_right = 0.75 if cot else 0.5
        text = state.target.text if rng.random() < p_right else "maybe"
        state.output = ModelOutput.from_content(model="mockllm/model", content=text)
        return state

    return solve


@task
def yesno(cot: bool = False) -> Task:
    samples = [Sample(input=f"question {i}?", target="yes" if i % 2 else "no", id=f"q{i:02d}")
               for i in range(N_SAMPLES)]
    return Task(dataset=MemoryDataset(samples), solver=[canned(cot)], scorer=includes(),
                name="yesno")


def main() -> None:
    if OUT.exists():
        shutil.rmtree(OUT)
    for fmt in ("eval", "json"):
        for cot, temperature in ((False, 0.0), (True, 0.7)):
            folder = OUT / fmt
            before = set(folder.glob(f"*.{fmt}"))
            eval(yesno(cot=cot), model="mockllm/model", log_dir=str(folder), log_format=fmt,
                 display="none", task_args={"cot": cot},
                 **GenerateConfig(temperature=temperature).model_dump(exclude_none=True))
            (written,) = set(folder.glob(f"*.{fmt}")) - before
            # stable names for the tests (Inspect's own is <time>_<task>_<id>.<ext>)
            written.rename(folder / f"{'cot' if cot else 'plain'}.{fmt}")
    for path in sorted(OUT.rglob("*")):
        if path.is_file():
            print(path.relative_to(OUT), path.stat().st_size)


if __name__ == "__main__":
    main()
