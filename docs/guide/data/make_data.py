"""Write the small example inputs the user guide's commands read (simulated, not real results).

    python docs/guide/data/make_data.py

* ``trec/``: graded qrels of 30 topics and three TREC runs (``bm25``, ``dense``, ``hybrid``),
  with ``experiment.yaml`` naming them;
* ``wide.csv``: a dataset-level table, 12 datasets × 4 systems (``ranger-eval rank``);
* ``lm-eval/``: lm-evaluation-harness 0.4.9-style output (``results_<date>.json`` and
  ``samples_<task>_<date>.jsonl``) of two models on two tasks, one folder per model;
* ``judged.csv``: an LLM judge's 0/1 verdicts of three models on two tasks (400 questions each),
  with a human verdict (``human_value``) for the first 80 questions of each task; the judge agrees
  with the human 85 % of the time and is more lenient on ``model-c`` (prediction-powered
  inference, ``ranger-eval compare`` / ``meta``).

The files are committed; rerunning the script rewrites them identically (fixed seeds).
"""
from __future__ import annotations

import hashlib
import json
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent


def write_trec(folder: Path, n_topics: int = 30, n_docs: int = 40) -> None:
    rng = np.random.default_rng(11)
    folder.mkdir(parents=True, exist_ok=True)
    qrels, truth = [], {}
    for q in range(1, n_topics + 1):
        labels = rng.choice([0, 0, 0, 1, 1, 2], size=n_docs)
        truth[q] = labels
        qrels += [f"{q} 0 D{q:02d}-{d:03d} {int(label)}" for d, label in enumerate(labels)]
    (folder / "qrels.txt").write_text("\n".join(qrels) + "\n")
    for run, noise in (("bm25", 1.6), ("dense", 0.9), ("hybrid", 0.8)):
        lines = []
        for q, labels in truth.items():
            score = labels + rng.normal(0, noise, labels.size)
            order = np.argsort(-score, kind="stable")[:20]
            lines += [f"{q} Q0 D{q:02d}-{d:03d} {rank} {score[d]:.4f} {run}"
                      for rank, d in enumerate(order, start=1)]
        (folder / f"{run}.txt").write_text("\n".join(lines) + "\n")


def write_wide(path: Path) -> None:
    rng = np.random.default_rng(3)
    datasets = [f"task{i:02d}" for i in range(1, 13)]
    base = rng.uniform(0.4, 0.8, len(datasets))
    lines = ["dataset,model-a,model-b,model-c,model-d"]
    columns = [np.round(base + 0.02 * k + rng.normal(0, 0.02, len(datasets)), 4) for k in range(4)]
    lines += [",".join([d, *(f"{c[i]:g}" for c in columns)]) for i, d in enumerate(datasets)]
    path.write_text("\n".join(lines) + "\n")


def _doc_hash(doc: dict) -> str:  # lm-eval: sha256 of json.dumps(doc, indent=2, ensure_ascii=False)
    return hashlib.sha256(json.dumps(doc, indent=2, ensure_ascii=False).encode()).hexdigest()


def write_lm_eval(folder: Path) -> None:
    date = "2025-06-01T12-00-00.000000"
    for model, skill, seed in (("org/small-7b", 0.55, 1), ("org/small-7b-instruct", 0.68, 2)):
        rng = np.random.default_rng(seed)
        out = folder / model.replace("/", "__")
        out.mkdir(parents=True, exist_ok=True)
        results: dict = {"results": {}, "configs": {}, "higher_is_better": {}, "n-samples": {},
                         "model_name": model,
                         "config": {"model": "hf", "model_args": f"pretrained={model}"}}
        for task, n, hardness in (("arc_like", 80, 0.0), ("boolq_like", 60, -0.1)):
            lines, values = [], []
            for i in range(n):
                doc = {"question": f"{task} question {i}", "answer": i % 4}
                v = float(rng.random() < skill + hardness)
                values.append(v)
                lines.append({"doc_id": i, "doc": doc, "target": str(doc["answer"]),
                              "arguments": {}, "resps": [["x"]], "filtered_resps": ["x"],
                              "filter": "none", "metrics": ["acc"], "doc_hash": _doc_hash(doc),
                              "prompt_hash": "p", "target_hash": "t", "acc": v})
            (out / f"samples_{task}_{date}.jsonl").write_text(
                "".join(json.dumps(x) + "\n" for x in lines))
            results["results"][task] = {
                "alias": task, "acc,none": float(np.mean(values)),
                "acc_stderr,none": float(np.std(values, ddof=1) / np.sqrt(n))}
            results["configs"][task] = {"task": task, "metric_list": [
                {"metric": "acc", "aggregation": "mean", "higher_is_better": True}]}
            results["higher_is_better"][task] = {"acc": True}
            results["n-samples"][task] = {"original": n, "effective": n}
        (out / f"results_{date}.json").write_text(json.dumps(results, indent=2) + "\n")


def write_judged(path: Path, n: int = 400, n_human: int = 80) -> None:
    rng = np.random.default_rng(20)
    lines = ["dataset,system,item,value,human_value"]
    for task, base in (("qa", 0.55), ("summaries", 0.65)):
        difficulty = rng.normal(0, 1, n)
        for model, skill, lenient in (("model-a", 0.0, 0.0), ("model-b", 0.35, 0.0),
                                      ("model-c", 0.1, 0.25)):
            p = 1 / (1 + np.exp(-(np.log(base / (1 - base)) + skill - difficulty)))
            human = (rng.random(n) < p).astype(int)
            judge = np.where(rng.random(n) < 0.85, human, 1 - human)
            judge = np.where((judge == 0) & (rng.random(n) < lenient), 1, judge)
            for i in range(n):
                shown = str(human[i]) if i < n_human else ""
                lines.append(f"{task},{model},{task}-{i:03d},{judge[i]},{shown}")
    path.write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    write_trec(HERE / "trec")
    write_wide(HERE / "wide.csv")
    write_lm_eval(HERE / "lm-eval")
    write_judged(HERE / "judged.csv")
