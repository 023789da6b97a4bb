"""Write the Inspect AI logs of tests/oracles/inspect_clusters/ (clustered
questions read from a sample-metadata key).

Real logs written by inspect_ai itself (``pip install inspect-ai``; offline, nothing is
downloaded) on the ``mockllm/model`` model: one task ``passages`` of 24 questions about 7
passages of 1-6 questions each (sample metadata ``passage``), scored by ``includes()`` with
Inspect's own metrics ``accuracy()`` and ``stderr(cluster="passage")`` (the clustered standard
error of Miller 2024, Appendix A, with Inspect's C/(C − 1) correction). Two runs of the same
model, told apart by the task argument ``strong``: the canned solver answers right more often
on some passages than on others (so the questions of one passage are correlated). Written as
JSON logs ``json/weak.json`` and ``json/strong.json``.

    python tests/oracles/make_inspect_logs_clusters.py

Rewrites the folder; the inspect_ai version is in every log (``eval.packages``).
tests/io/test_adapter_clusters.py reads them with ``cluster="passage"`` and checks that
``describe`` gives Inspect's own clustered stderr.
"""
from __future__ import annotations

import random
import shutil
from pathlib import Path

from inspect_ai import Task, eval, task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.model import ModelOutput
from inspect_ai.scorer import accuracy, includes, stderr
from inspect_ai.solver import solver

OUT = Path(__file__).with_name("inspect_clusters")
SIZES = (1, 2, 3, 4, 6, 5, 3)  # questions per passage: 24 in all


@solver
def canned(strong: bool):
    rng = random.Random(23 if strong else 7)

    async def solve(state, generate):  # no model call: the answer is drawn
        passage = int(state.metadata["passage"][1:])
        p_right = (0.9 if strong else 0.6) if passage % 2 else (0.5 if strong else 0.3)
        text = state.target.text if rng.random() < p_right else "maybe"
        state.output = ModelOutput.from_content(model="mockllm/model", content=text)
        return state

    return solve


@task
def passages(strong: bool = False) -> Task:
    samples = []
    for p, size in enumerate(SIZES):
        for j in range(size):
            i = len(samples)
            samples.append(Sample(input=f"passage {p}, question {j}?",
                                  target="yes" if i % 2 else "no", id=f"q{i:02d}",
                                  metadata={"passage": f"p{p}"}))
    return Task(dataset=MemoryDataset(samples), solver=[canned(strong)],
                scorer=includes(), metrics=[accuracy(), stderr(cluster="passage")],
                name="passages")


def main() -> None:
    if OUT.exists():
        shutil.rmtree(OUT)
    folder = OUT / "json"
    for strong in (False, True):
        before = set(folder.glob("*.json"))
        eval(passages(strong=strong), model="mockllm/model", log_dir=str(folder),
             log_format="json", display="none", task_args={"strong": strong})
        (written,) = set(folder.glob("*.json")) - before
        written.rename(folder / f"{'strong' if strong else 'weak'}.json")
    for path in sorted(OUT.rglob("*")):
        if path.is_file():
            print(path.relative_to(OUT), path.stat().st_size)


if __name__ == "__main__":
    main()
