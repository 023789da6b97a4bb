"""Oracle fixtures for ranger_eval.alt_test (writes alt_test_oracle.json).

Peer: the authors' own ``alt_test`` (Calderon, Reichart & Dror 2025; github.com/nitaytech/AltTest,
the code cell of ``alt_test_example.ipynb``, which needs only numpy and scipy). This script
reads that notebook from a checkout or a bare git directory of the repository (first argument,
default ``$ALTTEST_REPO``), executes its functions unchanged, and records:

- ``paper``: the winning rate ω and advantage probability ρ of every LLM on the nine example
  datasets of the notebook, with the notebook's metric and ε per dataset (its printed table).
  The inputs are the repository's ``data/*/human_annotations.json`` and
  ``llm_annotations.json``; they are not copied here (no licence in the repository), so
  ``tests/llm/test_alt_test.py`` compares these cases only when ``$ALTTEST_REPO`` points at the
  repository, and skips them otherwise;
- ``synthetic``: tables generated here with a fixed seed (labels and 1-5 scores; the
  notebook's own simulation design: a gold label, annotators and an LLM that keep it with
  probability 1 − noise), stored in the JSON as long tables, with ω, ρ and the authors' per
  annotator p-values (their ``ttest`` on their indicators), for several ε.

Run from the repository root:
    ALTTEST_REPO=/path/to/AltTest python tests/oracles/alt_test_oracle.py
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np

OUT = Path(__file__).with_suffix(".json")
DATASETS = {  # the notebook's metric and ε per dataset
    "wax": ("accuracy", 0.1), "lgbteen": ("accuracy", 0.2), "mtbench": ("accuracy", 0.2),
    "framing": ("accuracy", 0.15), "cebab_aspects": ("accuracy", 0.1),
    "summeval": ("neg_rmse", 0.2), "10k_prompts": ("neg_rmse", 0.15),
    "cebab_stars": ("neg_rmse", 0.1), "lesion": ("neg_rmse", 0.15),
}


def read(repo: Path, path: str) -> str:
    if (repo / path).is_file():
        return (repo / path).read_text()
    return subprocess.run(["git", "--git-dir", str(repo), "show", f"HEAD:{path}"],
                          check=True, capture_output=True, text=True).stdout


def authors_code(repo: Path) -> dict[str, Any]:
    notebook = json.loads(read(repo, "alt_test_example.ipynb"))
    cells = ["".join(c["source"]) for c in notebook["cells"] if c["cell_type"] == "code"]
    namespace: dict[str, Any] = {}
    exec(cells[0], namespace)  # imports
    exec(next(c for c in cells if "def alt_test(" in c), namespace)
    commit = subprocess.run(["git", "--git-dir", str(repo), "rev-parse", "HEAD"],
                            capture_output=True, text=True).stdout.strip()
    namespace["__commit__"] = commit
    return namespace


def simulated(rng: np.random.Generator, n_items: int, n_humans: int, n_values: int,
              noise_h: float, noise_f: float) -> tuple[dict, dict]:
    priors = rng.dirichlet(np.ones(n_values))
    humans: dict[str, dict[int, int]] = {f"h{k}": {} for k in range(n_humans)}
    llm: dict[int, int] = {}
    for i in range(n_items):
        gold = rng.choice(n_values, p=priors)
        for h in humans:
            if rng.random() < 0.1:  # some annotations missing
                continue
            p = priors * noise_h
            p[gold] += 1 - noise_h
            humans[h][i] = int(rng.choice(n_values, p=p / p.sum()))
        p = priors * noise_f
        p[gold] += 1 - noise_f
        llm[i] = int(rng.choice(n_values, p=p / p.sum()))
    return humans, llm


def per_annotator_p(ns: dict[str, Any], llm: dict, humans: dict, metric: str,
                    epsilon: float) -> list[float]:
    """The authors' p-value of each annotator (their loop, kept to its t-tests)."""
    score = {"accuracy": ns["accuracy"], "neg_rmse": ns["neg_rmse"]}[metric]
    h_set: dict = {}
    for h, anns in humans.items():
        for i in anns:
            h_set.setdefault(i, []).append(h)
    keep = {i for i in h_set if len(h_set[i]) >= 2 and i in llm}
    out = []
    for h in humans:
        items = [i for i in humans[h] if i in keep]
        if len(items) < 30:
            continue
        d = []
        for i in items:
            rest = [humans[g][i] for g in h_set[i] if g != h]
            sh, sf = score(humans[h][i], rest), score(llm[i], rest)
            d.append((1 if sh >= sf else 0) - (1 if sf >= sh else 0))
        out.append(float(ns["ttest"](d, epsilon)))
    return out


def main() -> None:
    repo = Path(sys.argv[1] if len(sys.argv) > 1 else os.environ["ALTTEST_REPO"])
    ns = authors_code(repo)
    paper = []
    for name, (metric, epsilon) in DATASETS.items():
        humans = json.loads(read(repo, f"data/{name}/human_annotations.json"))
        llms = json.loads(read(repo, f"data/{name}/llm_annotations.json"))
        for llm_name, llm in llms.items():
            omega, rho = ns["alt_test"](llm, humans, metric, epsilon=epsilon)
            paper.append({"dataset": name, "llm": llm_name, "metric": metric,
                          "epsilon": epsilon, "winning_rate": omega,
                          "advantage_probability": rho})
    rng = np.random.default_rng(20260330)
    synthetic = []
    for k, (n_items, n_humans, n_values, nh, nf) in enumerate(
            [(80, 3, 4, 0.3, 0.3), (120, 5, 3, 0.2, 0.4), (60, 4, 5, 0.4, 0.2),
             (150, 6, 2, 0.3, 0.25), (100, 3, 5, 0.1, 0.1)]):
        humans, llm = simulated(rng, n_items, n_humans, n_values, nh, nf)
        metric = "accuracy" if k % 2 == 0 else "neg_rmse"
        table = [[i, h, v] for h, anns in humans.items() for i, v in anns.items()]
        table += [[i, "llm", v] for i, v in llm.items()]
        for epsilon in (0.0, 0.1, 0.2):
            omega, rho = ns["alt_test"](llm, humans, metric, epsilon=epsilon)
            synthetic.append({"name": f"sim{k}", "metric": metric, "epsilon": epsilon,
                              "table": table, "winning_rate": omega,
                              "advantage_probability": rho,
                              "p_values": per_annotator_p(ns, llm, humans, metric, epsilon)})
    OUT.write_text(json.dumps({"peer": "nitaytech/AltTest alt_test_example.ipynb",
                               "commit": ns["__commit__"], "paper": paper,
                               "synthetic": synthetic}) + "\n")


if __name__ == "__main__":
    main()
