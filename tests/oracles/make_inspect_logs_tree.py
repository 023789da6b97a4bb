"""Write the Inspect AI log tree of tests/oracles/inspect_tree/ (a folder tree of
logs as Inspect users keep it, one folder per model under ``logs/``).

Real logs written by inspect_ai itself (``pip install inspect-ai``; offline, nothing is
downloaded) on two mock models, ``mockllm/alpha`` and ``mockllm/beta``, each on two tasks
(``yesno`` and ``parity``, 12 samples each), in folders whose names are *not* the models'
(``alpha-runs/``, ``beta-runs/``: the systems must come from the logs' own ``eval.model``)::

    logs/alpha-runs/2026-01-05T10-00-00_yesno_alpha.eval     success
    logs/alpha-runs/2026-01-05T10-05-00_parity_alpha.eval    success
    logs/beta-runs/2026-01-05T11-00-00_yesno_beta.eval       status "error": sample q07 raised
    logs/beta-runs/2026-01-05T11-30-00_yesno_beta.json       success: the retried run (JSON)
    logs/beta-runs/2026-01-05T11-35-00_parity_beta.eval      success

The beta ``yesno`` pair is a retried run: the first run stopped on an error (Inspect writes the
log with status ``error`` and the samples it finished), the second completed it. The canned
solver answers from a seeded random stream (right with probability 0.7 for alpha, 0.5 for beta).

    python tests/oracles/make_inspect_logs_tree.py

Rewrites the folder; the inspect_ai version is in every log (``eval.packages``). The names are
Inspect's own pattern ``<time>_<task>_<id>.<ext>`` with fixed times and ids, so that the tests
can name them. tests/io/test_logtree.py and tests/cli/test_cli_log_tree.py read the tree;
docs/guide/data/inspect-tree/logs is a copy of it (copy it again after running this script).
"""
from __future__ import annotations

import random
import shutil
from pathlib import Path

from inspect_ai import Task, eval, task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.model import ModelOutput
from inspect_ai.scorer import includes
from inspect_ai.solver import solver

OUT = Path(__file__).with_name("inspect_tree") / "logs"
N_SAMPLES = 12
#: (folder, file stem, model, task, log format, fail on sample q07)
RUNS = (
    ("alpha-runs", "2026-01-05T10-00-00_yesno_alpha", "mockllm/alpha", "yesno", "eval", False),
    ("alpha-runs", "2026-01-05T10-05-00_parity_alpha", "mockllm/alpha", "parity", "eval", False),
    ("beta-runs", "2026-01-05T11-00-00_yesno_beta", "mockllm/beta", "yesno", "eval", True),
    ("beta-runs", "2026-01-05T11-30-00_yesno_beta", "mockllm/beta", "yesno", "json", False),
    ("beta-runs", "2026-01-05T11-35-00_parity_beta", "mockllm/beta", "parity", "eval", False),
)


@solver
def canned(model: str, name: str, fail: bool):
    rng = random.Random(f"{model}/{name}")

    async def solve(state, generate):  # no model call: the answer is drawn
        if fail and state.sample_id == "q07":
            raise RuntimeError("connection reset by peer")  # the run stops: status "error"
        p_right = 0.7 if model.endswith("alpha") else 0.5
        text = state.target.text if rng.random() < p_right else "maybe"
        state.output = ModelOutput.from_content(model=model, content=text)
        return state

    return solve


def make_task(name: str, model: str, fail: bool) -> Task:
    if name == "yesno":
        samples = [Sample(input=f"question {i}?", target="yes" if i % 2 else "no",
                          id=f"q{i:02d}") for i in range(N_SAMPLES)]
    else:
        samples = [Sample(input=f"is {i} even?", target="even" if i % 2 == 0 else "odd",
                          id=f"q{i:02d}") for i in range(N_SAMPLES)]
    return Task(dataset=MemoryDataset(samples), solver=[canned(model, name, fail)],
                scorer=includes(), name=name)


@task
def yesno(model: str = "mockllm/model", fail: bool = False) -> Task:
    return make_task("yesno", model, fail)


@task
def parity(model: str = "mockllm/model", fail: bool = False) -> Task:
    return make_task("parity", model, fail)


def main() -> None:
    if OUT.exists():
        shutil.rmtree(OUT)
    tasks = {"yesno": yesno, "parity": parity}
    for folder, stem, model, name, fmt, fail in RUNS:
        where = OUT / folder
        before = set(where.glob(f"*.{fmt}"))
        eval(tasks[name](model=model, fail=fail), model=model, log_dir=str(where),
             log_format=fmt, display="none")
        (written,) = set(where.glob(f"*.{fmt}")) - before
        written.rename(where / f"{stem}.{fmt}")
    for path in sorted(OUT.rglob("*")):
        if path.is_file():
            print(path.relative_to(OUT), path.stat().st_size)


if __name__ == "__main__":
    main()
