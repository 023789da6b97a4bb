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
* ``llm-eval/``: an LLM evaluation as it is really run (:func:`write_llm_eval`, parameters in
  its docstring): a pilot and the full run of a ``large`` model and its compressed ``small``
  version on reading-comprehension questions that come in passages (``passage`` column) with
  four sampled answers per question (``sample``), and judge-scored summaries with human scores
  for some of them (``human_value``).
* ``verdicts/``: inputs of the verdicts beyond p-values (:func:`write_verdicts`, parameters in
  its docstring): cross-validated accuracies of five classifiers on 30 datasets
  (``accuracy.csv``) and the same table with holes (``accuracy-holes.csv``), test accuracies of
  four fine-tuned models over ten random seeds (``seeds.csv``), and 3,000 pairwise battles among
  six chat models in LMArena's schema (``battles.jsonl``).

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


def _passages(rng: np.random.Generator, task: str, n_passages: int, size: int, k: int,
              skills: dict[str, float]) -> list[str]:
    """Rows ``dataset,system,item,passage,sample,value`` of ``n_passages`` passages of ``size``
    questions; a sample is right with probability logistic(skill + u + v + w) (u, v, w below)."""
    u = rng.normal(0, 1.0, n_passages)  # passage difficulty, shared by the models
    v = rng.normal(0, 0.8, (n_passages, size))  # question difficulty
    lines = []
    for system, skill in skills.items():
        w = rng.normal(0, 0.7, n_passages)  # how well the passage suits this model
        p = 1 / (1 + np.exp(-(skill + u[:, None] + v + w[:, None])))
        right = rng.random((n_passages, size, k)) < p[:, :, None]
        lines += [f"{task},{system},p{c:03d}-q{j},p{c:03d},{s + 1},{int(right[c, j, s])}"
                  for c in range(n_passages) for j in range(size) for s in range(k)]
    return lines


PILOT_SEED = 2028


def write_llm_eval(folder: Path) -> None:
    """An LLM evaluation, simulated with stated parameters (not real results).

    A ``large`` model and its compressed ``small`` version answer reading-comprehension
    questions, five questions per passage, K = 4 sampled answers per question (temperature
    > 0), each scored right (1) or wrong (0). A sample of model s on question j of passage c is
    right with probability logistic(a_s + u_c + v_cj + w_sc): passage difficulty u_c ~ N(0, 1)
    (shared by both models: the questions of a passage are alike), question difficulty
    v_cj ~ N(0, 0.8²), and w_sc ~ N(0, 0.7²), how well passage c suits model s (so the paired
    differences are clustered too). a_large = 0.9 and a_small = 0.85 on every task: the small
    model is truly 0.8 points worse (expected accuracy 0.657 against 0.649).

    * ``pilot.csv``: one task (``news``), 12 passages × 5 questions × 4 samples, and
      ``pilot.yaml`` reading it with its ``passage`` column as the clusters. Its seed
      (``PILOT_SEED``) was chosen among 2020-2034 as one whose pilot difference is close to the
      true one (a representative pilot, so that the guide's plan is the one a user would make);
    * ``run.csv``: three tasks (``news``, ``science``, ``fiction``), 130 passages × 5
      questions × 4 samples each (the size the plan asks for). Passage ids restart in every
      task (``p000`` of ``news`` and of ``science`` are two passages: clusters are nested
      within datasets);
    * ``summaries.csv``: 300 summaries per model (one per document: no clusters) scored 1-5 by
      an LLM judge, which is 0.3 points too generous with ``small``; a human scored 60 of
      them (``human_value``, empty elsewhere). The human score is round(3 + b + d + e) clipped to
      1..5, with b = 0.3 for ``large`` and 0.2 for ``small``, d ~ N(0, 1) the document's
      difficulty (shared by the models) and e ~ N(0, 0.5²); the judge's is
      round(human + 0.3·[small] + N(0, 0.7²)), clipped.
    """
    folder.mkdir(parents=True, exist_ok=True)
    skills = {"large": 0.9, "small": 0.85}
    head = "dataset,system,item,passage,sample,value"
    pilot = _passages(np.random.default_rng(PILOT_SEED), "news", 12, 5, 4, skills)
    (folder / "pilot.csv").write_text("\n".join([head, *pilot]) + "\n")
    (folder / "pilot.yaml").write_text("scores: pilot.csv\ncluster: passage\n")
    rng = np.random.default_rng(2021)
    run = [line for task in ("news", "science", "fiction")
           for line in _passages(rng, task, 130, 5, 4, skills)]
    (folder / "run.csv").write_text("\n".join([head, *run]) + "\n")
    n, n_human = 300, 60
    base = rng.normal(0, 1, n)
    lines = ["dataset,system,item,value,human_value"]
    for system, b, lenient in (("large", 0.3, 0.0), ("small", 0.2, 0.3)):
        human = np.clip(np.round(3 + b + base + rng.normal(0, 0.5, n)), 1, 5).astype(int)
        judge = np.clip(np.round(human + lenient + rng.normal(0, 0.7, n)), 1, 5).astype(int)
        lines += [f"summaries,{system},doc{i:03d},{judge[i]},{human[i] if i < n_human else ''}"
                  for i in range(n)]
    (folder / "summaries.csv").write_text("\n".join(lines) + "\n")


def write_verdicts(folder: Path) -> None:
    """Simulated inputs of the guide page on verdicts beyond p-values.

    * ``accuracy.csv``: mean 10-fold accuracy of ``logreg``, ``svm``, ``forest``, ``boosting``
      and ``knn`` on 30 datasets: a dataset difficulty U(0.6, 0.9) plus a classifier offset
      (0, +0.002, +0.02, +0.022, −0.03) plus N(0, 0.01) noise, rounded to 3 decimals (ties
      happen, as with real cross-validation accuracies);
    * ``accuracy-holes.csv``: the same table with six results missing (a classifier that timed
      out on a dataset), written as empty cells;
    * ``seeds.csv``: test accuracy of ``bert``, ``roberta``, ``deberta`` and ``distilbert`` on one
      task over ten seeds each (columns dataset, system, seed, value): N(μ, σ) with
      μ = 0.84, 0.86, 0.87, 0.83 and σ = 0.010, 0.006, 0.012, 0.008;
    * ``battles.jsonl``: 3,000 battles (``model_a``, ``model_b``, ``winner``) among six models
      whose true Bradley–Terry ratings are 1000, 1040, 1060, 1100, 1110 and 1180 on the Elo scale
      (400, base 10); 15 % of the battles are ties, 5 % of those "tie (bothbad)".
    """
    rng = np.random.default_rng(21)
    folder.mkdir(parents=True, exist_ok=True)
    systems = ["logreg", "svm", "forest", "boosting", "knn"]
    offsets = np.array([0.0, 0.002, 0.02, 0.022, -0.03])
    datasets = [f"data{i:02d}" for i in range(1, 31)]
    difficulty = rng.uniform(0.6, 0.9, len(datasets))
    acc = np.round(difficulty[:, None] + offsets + rng.normal(0, 0.01, (len(datasets), 5)), 3)
    head = "dataset," + ",".join(systems)
    rows = [",".join([d, *(f"{v:.3f}" for v in acc[i])]) for i, d in enumerate(datasets)]
    (folder / "accuracy.csv").write_text("\n".join([head, *rows]) + "\n")
    holes = {(2, 4), (7, 1), (11, 4), (15, 2), (22, 4), (26, 0)}
    rows = [",".join([d, *("" if (i, j) in holes else f"{v:.3f}" for j, v in enumerate(acc[i]))])
            for i, d in enumerate(datasets)]
    (folder / "accuracy-holes.csv").write_text("\n".join([head, *rows]) + "\n")
    lines = ["dataset,system,seed,value"]
    for name, mu, sd in (("bert", 0.84, 0.010), ("roberta", 0.86, 0.006),
                         ("deberta", 0.87, 0.012), ("distilbert", 0.83, 0.008)):
        lines += [f"sst2,{name},{s},{v:.4f}" for s, v in enumerate(rng.normal(mu, sd, 10))]
    (folder / "seeds.csv").write_text("\n".join(lines) + "\n")
    models = ["alpaca-7b", "vicuna-13b", "koala-13b", "llama-2-70b", "mixtral-8x7b", "gpt-4"]
    rating = np.array([1000.0, 1040.0, 1060.0, 1100.0, 1110.0, 1180.0])
    out = []
    for _ in range(3000):
        a, b = rng.choice(len(models), 2, replace=False)
        u = rng.random()
        if u < 0.15:
            winner = "tie (bothbad)" if rng.random() < 0.05 else "tie"
        else:
            p_a = 1.0 / (1.0 + 10 ** ((rating[b] - rating[a]) / 400))
            winner = "model_a" if rng.random() < p_a else "model_b"
        out.append(json.dumps({"model_a": models[a], "model_b": models[b], "winner": winner}))
    (folder / "battles.jsonl").write_text("\n".join(out) + "\n")


def write_folds(folder: Path) -> None:
    """``folds.csv``: accuracy of ``logreg``, ``svm`` and ``forest`` on each fold of 10-fold
    cross-validation repeated 3 times (the ``seed`` column is the repetition) on two datasets,
    ``adult`` and ``spam`` (columns dataset, system, item, seed, value). Per fold: a fold
    difficulty N(0, 0.01) shared by the classifiers (they are trained and tested on the same
    folds) plus a classifier offset plus N(0, 0.004) noise; offsets (0, +0.002, +0.02) on
    ``adult`` and (0, +0.012, +0.013) on ``spam`` around a base accuracy 0.85 and 0.93."""
    rng = np.random.default_rng(33)
    folder.mkdir(parents=True, exist_ok=True)
    lines = ["dataset,system,item,seed,value"]
    for dataset, base, offsets in (("adult", 0.85, (0.0, 0.002, 0.02)),
                                   ("spam", 0.93, (0.0, 0.012, 0.013))):
        difficulty = rng.normal(0, 0.01, (3, 10))
        for system, offset in zip(("logreg", "svm", "forest"), offsets, strict=True):
            acc = base + offset + difficulty + rng.normal(0, 0.004, (3, 10))
            lines += [f"{dataset},{system},fold{f},{r},{acc[r, f]:.4f}"
                      for r in range(3) for f in range(10)]
    (folder / "folds.csv").write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    write_trec(HERE / "trec")
    write_wide(HERE / "wide.csv")
    write_lm_eval(HERE / "lm-eval")
    write_judged(HERE / "judged.csv")
    write_llm_eval(HERE / "llm-eval")
    write_verdicts(HERE / "verdicts")
    write_folds(HERE / "verdicts")
