"""Write real lm-evaluation-harness logs (``--log_samples``) for the adapter agreement tests.

Run once, by hand, in a separate virtual environment holding lm-eval (not a test dependency)::

    python -m venv /tmp/lmeval-venv
    /tmp/lmeval-venv/bin/pip install --no-deps lm_eval==0.4.13
    /tmp/lmeval-venv/bin/pip install datasets evaluate jinja2 more_itertools pytablewriter \
        rouge-score sacrebleu scikit-learn sqlitedict dill word2number numpy tqdm
    /tmp/lmeval-venv/bin/python tests/oracles/make_lmeval_logs.py

No torch or transformers is needed: lm-eval's ``dummy`` model returns ``-random.random()`` as
every log-likelihood, and lm-eval seeds ``random`` from ``--seed``, so two seeds give two
"systems" (named by ``--model_args pretrained=<name>``, which ``dummy`` ignores but the results
file records as ``model_name``). ``dummy`` answers ``"lol"`` to every generation request, which
would make bleu, chrf and ter the same for every system; the launcher makes it answer a word of
``WORDS`` drawn by a generator of its own, seeded by ``--seed`` and the prompt (the global
``random`` stream of the log-likelihoods is untouched). The tasks are local YAML
files over JSONL data written here (``dataset_path: json``), so nothing is downloaded:

* ``ranger_yesno`` (multiple_choice, yes/no): acc, acc_norm, f1, mcc, brier_score
* ``ranger_gen`` (generate_until; every target is ``lol`` or another word): exact_match, bleu,
  chrf, ter
* ``ranger_lambada`` (loglikelihood): acc, perplexity
* ``ranger_rolling`` (loglikelihood_rolling): word_perplexity, byte_perplexity, bits_per_byte

The logs land in ``tests/oracles/lmeval_logs/<system>/<model>/results_<date>.json`` and
``samples_<task>_<date>.jsonl``; ``lmeval_logs/VERSION`` records the lm-eval version. The
tests compare what Ranger computes from the samples with lm-eval's own numbers in the results
files (``tests/io/test_adapters_agreement.py``).
"""
from __future__ import annotations

import json
import random
import shutil
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
OUT = HERE / "lmeval_logs"
SYSTEMS = {"dummy-a": 1, "dummy-b": 2}  # system name -> --seed
WORDS = ["lol", "cat", "the sun", "a red door", "lol lol"]


# lm-eval bootstraps the stderr of every corpus-level metric 100,000 times (tens of minutes
# per metric on 2 cores) and its command line has no option to change that: the launcher runs
# the same command line with simple_evaluate(bootstrap_iters=0) (stderr "N/A"; the tests check
# the aggregates, not their stderr). Everything else is lm-eval's own CLI.
LAUNCH = """
import functools, random, sys
import lm_eval, lm_eval.evaluator
from lm_eval.models.dummy import DummyLM
patched = functools.partial(lm_eval.evaluator.simple_evaluate, bootstrap_iters=0)
lm_eval.simple_evaluate = lm_eval.evaluator.simple_evaluate = patched
SEED = sys.argv[sys.argv.index("--seed") + 1]
def generate_until(self, requests, disable_tqdm=False):
    return [random.Random(f"{SEED}:{r.arguments[0]}").choice(WORDS_LIST) for r in requests]
DummyLM.generate_until = generate_until
from lm_eval.__main__ import cli_evaluate
sys.argv = ["lm_eval", *sys.argv[1:]]
cli_evaluate()
""".replace("WORDS_LIST", repr(WORDS))


def _data(work: Path) -> None:
    rng = random.Random(18)
    with open(work / "yesno.jsonl", "w", encoding="utf-8") as fh:
        for i in range(80):
            fh.write(json.dumps({"question": f"Is {i} an even number of steps from home?",
                                 "label": rng.randint(0, 1)}) + "\n")
    with open(work / "gen.jsonl", "w", encoding="utf-8") as fh:
        for i in range(40):
            fh.write(json.dumps({"prompt": f"Say something about item {i}:",
                                 "answer": rng.choice(WORDS)}) + "\n")
    with open(work / "lambada.jsonl", "w", encoding="utf-8") as fh:
        for i in range(30):
            fh.write(json.dumps({"text": f"The number after {i} is", "next": f" {i + 1}"}) + "\n")
    with open(work / "rolling.jsonl", "w", encoding="utf-8") as fh:
        for _ in range(30):
            n = rng.randint(3, 12)
            fh.write(json.dumps({"page": " ".join(rng.choice(WORDS) for _ in range(n))}) + "\n")


TASKS = {
    "ranger_yesno": """
task: ranger_yesno
dataset_path: json
dataset_kwargs:
  data_files:
    test: {work}/yesno.jsonl
test_split: test
output_type: multiple_choice
doc_to_text: "Question: {{{{question}}}}\\nAnswer:"
doc_to_target: label
doc_to_choice: ["no", "yes"]
metric_list:
  - metric: acc
  - metric: acc_norm
  - metric: f1
  - metric: mcc
  - metric: brier_score
""",
    "ranger_gen": """
task: ranger_gen
dataset_path: json
dataset_kwargs:
  data_files:
    test: {work}/gen.jsonl
test_split: test
output_type: generate_until
doc_to_text: "{{{{prompt}}}}"
doc_to_target: answer
generation_kwargs:
  until: ["\\n"]
metric_list:
  - metric: exact_match
  - metric: bleu
  - metric: chrf
  - metric: ter
""",
    "ranger_lambada": """
task: ranger_lambada
dataset_path: json
dataset_kwargs:
  data_files:
    test: {work}/lambada.jsonl
test_split: test
output_type: loglikelihood
doc_to_text: "{{{{text}}}}"
doc_to_target: "{{{{next}}}}"
metric_list:
  - metric: acc
  - metric: perplexity
""",
    "ranger_rolling": """
task: ranger_rolling
dataset_path: json
dataset_kwargs:
  data_files:
    test: {work}/rolling.jsonl
test_split: test
output_type: loglikelihood_rolling
doc_to_text: ""
doc_to_target: "{{{{page}}}}"
metric_list:
  - metric: word_perplexity
  - metric: byte_perplexity
  - metric: bits_per_byte
""",
}


def main() -> None:
    from importlib.metadata import version

    import lm_eval  # noqa: F401  (fail early outside the lm-eval venv)

    work = OUT / "_tasks"
    if OUT.exists():
        shutil.rmtree(OUT)
    work.mkdir(parents=True)
    _data(work)
    for name, text in TASKS.items():
        (work / f"{name}.yaml").write_text(text.format(work=work).lstrip(), encoding="utf-8")
    for system, seed in SYSTEMS.items():
        subprocess.run(
            [sys.executable, "-c", LAUNCH, "--model", "dummy", "--model_args",
             f"pretrained={system}", "--tasks", ",".join(TASKS), "--include_path", str(work),
             "--log_samples", "--output_path", str(OUT / system), "--seed", str(seed)],
            check=True,
        )
    # lm-eval records the task YAMLs' and data files' absolute paths in each results file;
    # written relative to the repository root, so the fixtures name no machine's folders
    root = str(HERE.parent.parent) + "/"
    for results in OUT.rglob("results_*.json"):
        text = results.read_text(encoding="utf-8")
        results.write_text(text.replace(root, ""), encoding="utf-8")
    (OUT / "VERSION").write_text(f"lm_eval {version('lm_eval')}\n", encoding="utf-8")
    # the data and task YAMLs are not needed by the tests (the samples hold each doc)
    shutil.rmtree(work)


if __name__ == "__main__":
    main()
