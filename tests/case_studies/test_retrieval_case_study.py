"""Retrieval case study of the Ranger paper (Figure 3): ColBERTer vs TAS-B, MD of nDCG@10.

Runs `ranger-eval meta` on a YAML in the original layout (top-level qrels mapping, runs per
system) that points at ../shared/corpus/ranger/retrieval. Robust04 has runs but no qrels: it
must be reported as skipped. The published CIs used ddof=0 variances: for MD,
v₀ = v · (n − 1)/n, so CI₀ = yi ± z · sqrt(v (n − 1)/n).
"""
from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from scipy.stats import norm
from typer.testing import CliRunner

from ranger_eval.cli import app

COLLECTIONS = ["trec-covid", "tripclick", "nfcorpus", "dbpedia-entity", "antique", "trec_podcast"]
# ../shared/corpus/README.md: effect, ci_low, ci_upp
PUBLISHED = {
    "trec-covid": (0.184815, 0.103532, 0.266098),
    "tripclick": (0.008639, 0.002441, 0.014837),
    "nfcorpus": (0.007292, -0.001984, 0.016567),
    "dbpedia-entity": (0.031409, 0.019186, 0.043631),
    "antique": (0.122602, 0.101534, 0.143670),
    "trec_podcast": (0.025695, -0.006533, 0.057922),
}
MEAN_NDCG = {"trec-covid": (0.494, 0.679), "tripclick": (0.139, 0.148), "nfcorpus": (0.320, 0.328),
             "dbpedia-entity": (0.385, 0.416), "antique": (0.283, 0.406), "trec_podcast": (0.295, 0.320)}
JUDGED = {"trec-covid": (0.588, 0.876), "tripclick": (0.260, 0.278), "nfcorpus": (0.230, 0.235),
          "dbpedia-entity": (0.512, 0.559), "antique": (0.366, 0.494), "trec_podcast": (0.719, 0.704)}
N_QUERIES = {"trec-covid": 50, "tripclick": 1143, "nfcorpus": 323, "dbpedia-entity": 400,
             "antique": 200, "trec_podcast": 98}


@pytest.fixture(scope="module")
def outputs(corpus, tmp_path_factory):
    root = corpus / "ranger" / "retrieval"
    lines = ["title: ColBERTer vs TAS-B", "control: tasb", "treatment: colberter", "measure: MD",
             "method: DL", "ir: {measure: nDCG@10, columns: [Judged@10]}", "qrels:"]
    lines += [f"  {c}: {root / 'qrels' / (c + '.txt')}" for c in COLLECTIONS]
    lines.append("systems:")
    for sys_id, folder in (("tasb", "tasb_dim768_hf"), ("colberter", "colberter_dim1_stopwords")):
        lines += [f"  {sys_id}:", "    runs:"]
        lines += [f"      {c}: {root / 'runs' / folder / (c + '.txt')}" for c in [*COLLECTIONS, "robust04"]]
    tmp = tmp_path_factory.mktemp("retrieval")
    cfg = tmp / "retrieval.yaml"
    cfg.write_text("\n".join(lines) + "\n")
    out = tmp / "out"
    result = CliRunner().invoke(app, ["meta", str(cfg), "--out", str(out)])
    assert result.exit_code == 0, result.output
    return out, result


def test_points_and_ddof0_cis_match_published(outputs):
    out, _ = outputs
    eff = pd.read_csv(out / "effects.csv").set_index("task_id")
    assert list(eff.index) == COLLECTIONS
    z = norm.isf(0.025)
    for c in COLLECTIONS:
        yi, vi, n = eff.loc[c, "yi"], eff.loc[c, "vi"], eff.loc[c, "n"]
        assert n == N_QUERIES[c]
        effect, lo, hi = PUBLISHED[c]
        assert yi == pytest.approx(effect, abs=5e-5), c
        half = z * np.sqrt(vi * (n - 1) / n)
        assert yi - half == pytest.approx(lo, abs=5e-5), c
        assert yi + half == pytest.approx(hi, abs=5e-5), c


def test_mean_and_judged_columns_match_published(outputs):
    out, _ = outputs
    eff = pd.read_csv(out / "effects.csv").set_index("task_id")
    for c in COLLECTIONS:
        assert abs(eff.loc[c, "mean_control"] - MEAN_NDCG[c][0]) <= 5e-4 + 1e-9, c
        assert abs(eff.loc[c, "mean_treatment"] - MEAN_NDCG[c][1]) <= 5e-4 + 1e-9, c
        assert abs(eff.loc[c, "Judged@10 control"] - JUDGED[c][0]) <= 5e-4 + 1e-9, c
        assert abs(eff.loc[c, "Judged@10 treatment"] - JUDGED[c][1]) <= 5e-4 + 1e-9, c


def test_collection_without_qrels_is_reported(outputs):
    out, result = outputs
    summary = json.loads((out / "summary.json").read_text())
    assert summary["skipped"] == {"robust04": "no qrels"}
    assert "robust04 (no qrels)" in (out / "summary.md").read_text()
    assert "skipped collection(s): robust04 (no qrels)" in result.output
    assert summary["result"]["k"] == 6
    for name in ("forest.pdf", "forest.svg", "forest.png"):
        assert (out / name).stat().st_size > 0
