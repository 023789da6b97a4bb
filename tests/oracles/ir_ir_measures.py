"""Generate ir_ir_measures.json: ir_measures per-query Judged@10 and nDCG@10 on the Ranger retrieval runs.

Oracle for tests/ir/test_ir_rank_llm.py (Judged@10 uses ir_measures' own "judged" provider;
nDCG@10 its pytrec_eval provider). The 4-field Ranger runs (``qid docid rank score``) and the qrels
are read with plain Python, not with Ranger. Values are rounded to 12 significant digits.
Also records pytrec_eval's answer on a float32 tie probe (scores equal only in float32).

Usage: pip install ir-measures pytrec-eval-terrier; python tests/oracles/ir_ir_measures.py [CORPUS]
"""
from __future__ import annotations

import json
import os
import sys
from importlib.metadata import version
from pathlib import Path

import ir_measures
import pytrec_eval
from ir_measures import Qrel, ScoredDoc

HERE = Path(__file__).resolve().parent
SYSTEMS = ("tasb_dim768_hf", "colberter_dim1_stopwords")
COLLECTIONS = ("antique", "dbpedia-entity", "nfcorpus", "trec-covid", "trec_podcast", "tripclick")


def corpus_dir() -> Path:
    if len(sys.argv) > 1:
        return Path(sys.argv[1])
    env = os.environ.get("RANGER_CORPUS")
    return Path(env) if env else HERE.parents[2] / "shared" / "corpus"


def read_run4(path: Path) -> list[ScoredDoc]:
    out = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            parts = line.split()
            if parts:
                out.append(ScoredDoc(parts[0], parts[1], float(parts[3])))
    return out


def read_qrels(path: Path) -> list[Qrel]:
    out = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            parts = line.split()
            if parts:
                out.append(Qrel(parts[0], parts[2], int(parts[3])))
    return out


def float32_probe() -> dict[str, float]:
    """pytrec_eval's RR when two scores differ in float64 but not in float32."""
    qrels = {"q": {"a": 1, "b": 0}}
    ev = pytrec_eval.RelevanceEvaluator(qrels, {"recip_rank"})
    return {"a_high": ev.evaluate({"q": {"a": 1.00000002, "b": 1.00000001}})["q"]["recip_rank"],
            "b_high": ev.evaluate({"q": {"a": 1.00000001, "b": 1.00000002}})["q"]["recip_rank"]}


def main() -> None:
    root = corpus_dir() / "ranger" / "retrieval"
    measures = [ir_measures.parse_measure("Judged@10"), ir_measures.parse_measure("nDCG@10")]
    out: dict[str, dict[str, dict[str, float]]] = {}
    for collection in COLLECTIONS:
        qrels = read_qrels(root / "qrels" / f"{collection}.txt")
        for system in SYSTEMS:
            run = read_run4(root / "runs" / system / f"{collection}.txt")
            res: dict[str, dict[str, float]] = {str(m): {} for m in measures}
            for metric in ir_measures.iter_calc(measures, qrels, run):
                res[str(metric.measure)][metric.query_id] = float(f"{metric.value:.12g}")
            out[f"{system}/{collection}"] = {m: dict(sorted(v.items())) for m, v in res.items()}
    meta = {"generator": "tests/oracles/ir_ir_measures.py", "ir_measures": version("ir-measures"),
            "pytrec_eval_terrier": version("pytrec-eval-terrier")}
    target = HERE / "ir_ir_measures.json"
    target.write_text(json.dumps({"meta": meta, "float32_probe": float32_probe(), "runs": out},
                                 separators=(",", ":")) + "\n")
    print(f"wrote {target} ({target.stat().st_size} bytes, {len(out)} runs)")


if __name__ == "__main__":
    main()
