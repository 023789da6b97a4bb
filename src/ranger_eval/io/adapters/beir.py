"""BEIR-style result dicts → a run.

``EvaluateRetrieval.retrieve`` returns ``{query_id: {doc_id: score}}``; dumped with
``json.dump`` it is a *run* (ranked documents per query), not per-query scores. It is read as a
run table ``query_id, doc_id, score`` (ids exact text, scores float64) for
:func:`ranger_eval.ir.evaluate`, which computes the per-query measures against the qrels:

    run = read_beir_run("results.json")
    per_query = ranger_eval.ir.evaluate(qrels, run, ["nDCG@10"])
    scores = ranger_eval.ir.to_scores(per_query, dataset="scifact", system="bm25")

The file is streamed query by query. BEIR's *aggregate* metrics file
(``{"ndcg": {"NDCG@10": ...}, ...}``, from ``util.save_results``) holds no per-query values and is
rejected with a message saying so.
"""
from __future__ import annotations

import math
import re
from pathlib import Path

import numpy as np
import pandas as pd

from ...errors import InputError
from ..files import check_input_file
from ._common import AdapterResult, Builder
from ._json import JsonStream

__all__ = ["FORMAT", "is_metrics_file", "read", "read_beir_run"]

FORMAT = "beir"
EXPECTED = "a BEIR result dict {query_id: {doc_id: score}} in JSON"
_METRIC_KEY = re.compile(r"^(NDCG|MAP|Recall|P|MRR|R_cap|Hole|Accuracy|MRR|Precision)@\d+$", re.I)


def is_metrics_file(outer: str, inner: dict[str, object]) -> bool:
    """True for BEIR's aggregate metrics (``"ndcg": {"NDCG@10": 0.5}``), not a run."""
    return bool(inner) and all(_METRIC_KEY.match(k) for k in inner) and outer.lower() in (
        "ndcg", "map", "recall", "precision", "mrr", "r_cap", "hole", "accuracy", "top_k_accuracy")


def read_beir_run(path: str | Path) -> pd.DataFrame:
    """The run ``query_id, doc_id, score`` of a BEIR result dict (see the module doc)."""
    path = check_input_file(path, what="BEIR result dict")
    qids: list[str] = []
    dids: list[str] = []
    scores: list[float] = []
    n_queries = 0
    with JsonStream(path, expected=EXPECTED) as js:
        if js.peek() != "{":
            raise js.error("not a JSON object")
        for qid in js.object():
            js.peek()
            line = js.line()
            docs = js.value()
            if not isinstance(docs, dict):
                raise InputError(f"{path}:{line}: query {qid!r} maps to {type(docs).__name__}, "
                                 f"not {{doc_id: score}}; expected {EXPECTED}")
            if n_queries == 0 and is_metrics_file(qid, docs):
                raise InputError(
                    f"{path}: this is BEIR's aggregate metrics file ({qid!r}: "
                    f"{', '.join(list(docs)[:3])} ...), which has no per-query values; give the "
                    f"retrieval results dict (or a TREC run) and qrels instead"
                )
            n_queries += 1
            for did, score in docs.items():
                if isinstance(score, bool) or not isinstance(score, (int, float)) or \
                        not math.isfinite(score):
                    raise InputError(f"{path}:{line}: query {qid!r}, document {did!r}: score "
                                     f"{score!r} is not a finite number; expected {EXPECTED}")
                qids.append(qid)
                dids.append(did)
                scores.append(float(score))
        js.end()
    if not qids:
        raise InputError(f"{path}: no retrieved documents; expected {EXPECTED}")
    return pd.DataFrame({"query_id": pd.array(qids, dtype=str), "doc_id": pd.array(dids, dtype=str),
                         "score": np.asarray(scores, dtype=np.float64)})


def read(path: str | Path) -> AdapterResult:
    """A result with ``run`` set and no ``scores`` (a run needs qrels and measures)."""
    path = Path(path)
    run = read_beir_run(path)
    return Builder(FORMAT, path).result(run=run)
