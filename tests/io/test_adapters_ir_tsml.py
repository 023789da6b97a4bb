"""trec_eval -q, PyTerrier, BEIR and tsml adapters: real files where they exist (trec_eval's own
golden outputs, a tsml-eval results file), agreement with the tools' numbers, bad input."""
from __future__ import annotations

import collections
import json
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import ranger_eval as rg
from ranger_eval.errors import InputError
from ranger_eval.io.adapters import load_adapter, read_adapter, read_beir_run, sniff

TSML = "tsml_results_file/1NN-DTW_Chinatown_testResample0.csv"


@pytest.fixture()
def trec(corpus) -> Path:
    return corpus / "trec_eval"


# ----------------------------------------------------------------------------- trec_eval -q
def test_trec_eval_q_golden_output(trec):
    """trec_eval's own -q output: per-query rows become scores, 'all' rows the aggregates."""
    with pytest.warns(UserWarning, match=r"3 per-query 'relstring' line\(s\) skipped"):
        res = load_adapter(trec / "out.test.aq")
    s = res.scores
    assert res.format == "trec-eval-q"
    assert s.systems == ("STANDARD",)  # the runid line
    assert s.datasets == ("out.test",)
    assert set(s.frame["item"]) == {"301", "302", "303"}
    assert {"map", "P_10", "ndcg_cut_10", "recip_rank", "num_ret"} <= set(s.metrics)
    assert s.values("out.test", "STANDARD", "map").to_dict() == {
        "301": 0.0324, "302": 0.4175, "303": 0.0858}
    # the 'all' line is the mean of the per-query lines (both printed with 4 decimals)
    agree = res.agreement()
    assert len(agree) == 91 and "gm_map" not in set(agree["metric"])
    assert np.abs(agree["difference"]).max() <= 1e-4
    rep = res.reported.set_index("metric")
    assert rep.loc["num_q", "value"] == 3 and not rep.loc["num_q", "comparable"]


def test_trec_eval_q_equals_rangers_own_evaluation(trec):
    """The same run evaluated by Ranger's IR engine gives trec_eval's per-query values."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        s = read_adapter(trec / "out.test.aq", dataset="test")
    ours = rg.ir.evaluate(trec / "qrels.test", trec / "results.test", ["AP", "P@10", "RR"])
    for measure, te in (("AP", "map"), ("P@10", "P_10"), ("RR", "recip_rank")):
        mine = ours[ours["measure"] == measure].set_index("query_id")["value"]
        theirs = s.values("test", "STANDARD", te)
        assert list(theirs.index) == list(mine.index)
        assert np.abs(theirs.to_numpy() - mine.to_numpy()).max() <= 5e-5


def test_trec_eval_q_concatenated_runs(tmp_path):
    a = "map\t1\t0.5\nmap\t2\t0.25\nrunid\tall\trunA\nmap\tall\t0.375\n"
    b = "map\t1\t0.75\nmap\t2\t0.0\nrunid\tall\trunB\nmap\tall\t0.375\n"
    path = tmp_path / "both.txt"
    path.write_text(a + b)
    assert sniff(path) == "trec-eval-q"
    s = read_adapter(path, dataset="robust04")
    assert s.systems == ("runA", "runB") and s.datasets == ("robust04",)
    assert s.pair("robust04", "runB", "runA").treatment.tolist() == [0.75, 0.0]


def test_trec_eval_without_q(trec):
    with pytest.raises(InputError, match=r"out\.test: no per-query lines .* run trec_eval with -q"):
        load_adapter(trec / "out.test")


def test_trec_eval_q_bad_line(tmp_path):
    path = tmp_path / "te.txt"
    path.write_text("map\t1\t0.5\nmap\t2\nmap\tall\t0.5\n")
    with pytest.raises(InputError, match=r"te\.txt:2: 'map\\t2' has 2 fields; expected trec_eval"):
        load_adapter(path, format="trec-eval-q")
    path.write_text("map\t1\t0.5\nmap\t2\tabc\n")
    with pytest.raises(InputError, match=r"te\.txt:2: value 'abc' of 'map' is not a number"):
        load_adapter(path, format="trec_eval")  # alias
    path.write_text("map\t1\t0.5\nmap\t1\t0.7\n")
    with pytest.raises(InputError, match=r"te\.txt:2: measure 'map' of query '1' repeats line 1"):
        load_adapter(path, format="trec-eval-q")


# ----------------------------------------------------------------------------- PyTerrier
def _perquery(tmp_path: Path, index: bool) -> tuple[Path, pd.DataFrame]:
    df = pd.DataFrame({
        "name": ["BM25"] * 4 + ["BM25 >> monoT5"] * 4,
        "qid": ["001", "002", "001", "002"] * 2,
        "measure": ["nDCG@10", "nDCG@10", "AP(rel=2)", "AP(rel=2)"] * 2,
        "value": [0.5, 0.25, 0.125, 0.0, 0.75, 0.5, 0.25, 0.125],
    })
    backfill = pd.DataFrame({"name": ["BM25"], "qid": ["003"], "measure": ["nDCG@10"],
                             "value": [float("nan")]})  # a topic without qrels
    path = tmp_path / "trec-dl-2019.csv"
    pd.concat([df, backfill]).to_csv(path, index=index)
    return path, df


@pytest.mark.parametrize("index", [False, True])
def test_pyterrier_perquery(tmp_path, index):
    path, df = _perquery(tmp_path, index)
    assert sniff(path) == "pyterrier"
    with pytest.warns(UserWarning, match=r"1 row\(s\) with no value .* dropped"):
        res = load_adapter(path)
    s = res.scores
    assert s.datasets == ("trec-dl-2019",) and s.systems == ("BM25", "BM25 >> monoT5")
    assert set(s.metrics) == {"nDCG@10", "AP(rel=2)"}
    got = s.frame[["system", "item", "metric", "value"]]
    want = df.rename(columns={"name": "system", "qid": "item", "measure": "metric"})
    assert got.reset_index(drop=True).equals(want[["system", "item", "metric", "value"]])
    assert list(s.values("trec-dl-2019", "BM25", "nDCG@10").index) == ["001", "002"]


def test_pyterrier_dataset_name_and_bad_value(tmp_path):
    path, _ = _perquery(tmp_path, False)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        s = read_adapter(path, dataset="msmarco-passage/trec-dl-2019")
    assert s.datasets == ("msmarco-passage/trec-dl-2019",)
    path.write_text("name,qid,measure,value\nBM25,1,AP,0.5\nBM25,2,AP,high\n")
    with pytest.raises(InputError, match=r"trec-dl-2019\.csv:3: value 'high' is not a number"):
        load_adapter(path)


# ----------------------------------------------------------------------------- BEIR
def _beir_from_trec(trec: Path, dest: Path) -> Path:
    results: dict = collections.defaultdict(dict)
    for line in (trec / "results.test").read_text().splitlines():
        qid, _, doc, _, score, _ = line.split()
        results[qid][doc] = float(score)
    dest.write_text(json.dumps(results))
    return dest


def test_beir_results_are_a_run(trec, tmp_path):
    path = _beir_from_trec(trec, tmp_path / "bm25.json")
    assert sniff(path) == "beir"
    run = read_beir_run(path)
    assert list(run.columns) == ["query_id", "doc_id", "score"] and len(run) == 1500
    res = load_adapter(path)
    assert res.scores is None and res.run.equals(run)
    # evaluated by ranger_eval.ir exactly like the TREC run it came from
    measures = ["nDCG@10", "AP", "P@5"]
    a = rg.ir.evaluate(trec / "qrels.test", run, measures)
    b = rg.ir.evaluate(trec / "qrels.test", trec / "results.test", measures)
    assert np.array_equal(a["value"].to_numpy(), b["value"].to_numpy())
    with pytest.raises(InputError, match=r"a BEIR result dict is a run .* ranger_eval\.ir\."
                                         r"evaluate"):
        read_adapter(path)


def test_beir_metrics_file_is_rejected(tmp_path):
    path = tmp_path / "metrics.json"
    path.write_text(json.dumps({"ndcg": {"NDCG@1": 0.3, "NDCG@10": 0.4},
                                "map": {"MAP@10": 0.2}}))
    with pytest.raises(InputError, match=r"BEIR's aggregate metrics file .* no per-query"):
        load_adapter(path)


def test_beir_bad_score(tmp_path):
    path = tmp_path / "run.json"
    path.write_text('{\n "q1": {"d1": 1.5, "d2": 0.5},\n "q2": {"d1": "high"}\n}\n')
    with pytest.raises(InputError, match=r"run\.json:3: query 'q2', document 'd1': score 'high'"):
        load_adapter(path, format="beir")
    path.write_text('{\n "q1": {"d1": 1.5, "d2": 0.5},\n "q2": {"d1": 0.')
    with pytest.raises(InputError, match=r"run\.json:3: unexpected end of file"):
        load_adapter(path, format="beir")


# ----------------------------------------------------------------------------- tsml
def test_tsml_real_results_file(corpus):
    path = corpus / "eval_logs" / TSML
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        res = load_adapter(path)
    df = res.scores.frame
    assert res.format == "tsml"
    assert res.scores.datasets == ("Chinatown",) and res.scores.systems == ("1NN-DTW",)
    assert res.scores.metrics == ("accuracy",)
    assert len(df) == 343 and df["item"].tolist() == [str(i) for i in range(1, 344)]
    assert set(df["seed"]) == {"0"} and set(df["split"]) == {"TEST"}
    assert df["higher_is_better"].all()
    lines = path.read_text().splitlines()[3:]
    assert df["label"].tolist() == [x.split(",")[0] for x in lines]
    assert df["prediction"].tolist() == [x.split(",")[1] for x in lines]
    # tsml's own accuracy (line 3) equals the mean of our per-case correctness
    header_accuracy = float(path.read_text().splitlines()[2].split(",")[0])
    assert header_accuracy == 0.9737609329446064
    agree = res.agreement()
    assert abs(agree["ours"].iloc[0] - header_accuracy) < 1e-12
    assert agree["n_items"].iloc[0] == 343


def test_tsml_regression(tmp_path):
    path = tmp_path / "testResample3.csv"
    y = [1.5, 2.0, -0.5, 4.0]
    yhat = [1.0, 2.5, 0.5, 4.0]
    mse = float(np.mean((np.array(y) - np.array(yhat)) ** 2))
    path.write_text(f"Covid3Month,DrCIF,TEST,3,MILLISECONDS,\n{{}}\n{mse},10,2,-1,-1,,-1,-1\n"
                    + "".join(f"{a},{b}\n" for a, b in zip(y, yhat, strict=True)))
    assert sniff(path) == "tsml"
    res = load_adapter(path)
    assert res.scores.metrics == ("squared_error",)
    assert not res.scores.frame["higher_is_better"].any()
    assert abs(res.agreement()["difference"].iloc[0]) < 1e-12


def test_tsml_bad_input(corpus, tmp_path):
    lines = (corpus / "eval_logs" / TSML).read_text().splitlines(keepends=True)
    path = tmp_path / "r.csv"
    path.write_text("".join(lines[:10] + ["0,x,,1.0,0.0\n"] + lines[11:]))
    with pytest.raises(InputError, match=r"r\.csv:11: predicted class 'x' is not a number"):
        load_adapter(path)
    path.write_text("".join(lines[:2] + ["0.5,1,2,3,4,5,6\n"] + lines[3:]))
    with pytest.raises(InputError, match=r"r\.csv:3: .*a clustering results file"):
        load_adapter(path, format="tsml")
