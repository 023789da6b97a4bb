"""Generate ir_pytrec_eval.json: pytrec_eval-terrier per-query values for the 21 rank_llm runs.

Oracle for tests/ir/test_ir_rank_llm.py. Runs and qrels are read with plain Python (no Ranger code)
and evaluated by pytrec_eval (trec_eval 9 semantics, float32 scores). Measures: ndcg_cut_10, map,
recip_rank, P_10, recall_100. Values are rounded to 12 significant digits.

Usage: pip install pytrec-eval-terrier; python tests/oracles/ir_pytrec_eval.py [CORPUS_DIR]
(CORPUS_DIR defaults to ../shared/corpus beside the repository, or $RANGER_CORPUS).
"""
from __future__ import annotations

import json
import os
import sys
from collections import defaultdict
from importlib.metadata import version
from pathlib import Path

import pytrec_eval

HERE = Path(__file__).resolve().parent
MEASURES = ("ndcg_cut_10", "map", "recip_rank", "P_10", "recall_100")


def corpus_dir() -> Path:
    if len(sys.argv) > 1:
        return Path(sys.argv[1])
    env = os.environ.get("RANGER_CORPUS")
    return Path(env) if env else HERE.parents[2] / "shared" / "corpus"


def read_run(path: Path) -> dict[str, dict[str, float]]:
    run: dict[str, dict[str, float]] = defaultdict(dict)
    with open(path, encoding="utf-8") as f:
        for line in f:
            parts = line.split()
            if not parts or parts[0].startswith("#"):
                continue
            qid, docid, score = parts[0], parts[2], float(parts[4])
            assert docid not in run[qid], (path, qid, docid)
            run[qid][docid] = score
    return dict(run)


def read_qrels(path: Path) -> dict[str, dict[str, int]]:
    qrels: dict[str, dict[str, int]] = defaultdict(dict)
    with open(path, encoding="utf-8") as f:
        for line in f:
            parts = line.split()
            if not parts:
                continue
            qrels[parts[0]][parts[2]] = int(parts[3])
    return dict(qrels)


def main() -> None:
    root = corpus_dir() / "rank_llm"
    out: dict[str, dict[str, dict[str, float]]] = {}
    for run_path in sorted((root / "runs").glob("*/*.txt")):
        system, collection = run_path.parent.name, run_path.stem
        qrels = read_qrels(root / "qrels" / f"{collection}.txt")
        ev = pytrec_eval.RelevanceEvaluator(qrels, set(MEASURES))
        res = ev.evaluate(read_run(run_path))
        out[f"{system}/{collection}"] = {
            m: {q: float(f"{v[m]:.12g}") for q, v in sorted(res.items())} for m in MEASURES
        }
    meta = {"generator": "tests/oracles/ir_pytrec_eval.py",
            "pytrec_eval_terrier": version("pytrec-eval-terrier"),
            "measures": list(MEASURES)}
    target = HERE / "ir_pytrec_eval.json"
    target.write_text(json.dumps({"meta": meta, "runs": out}, separators=(",", ":")) + "\n")
    print(f"wrote {target} ({target.stat().st_size} bytes, {len(out)} runs)")


if __name__ == "__main__":
    main()
