"""ir.evaluate / evaluate_many / summarize / to_scores: policies, options and output shape.

Numeric correctness is established against trec_eval and pytrec_eval in test_ir_trec_eval.py,
test_ir_rank_llm.py and test_ir_properties.py; here the corpus' trec_eval goldens anchor the
policies (missing topics, -M, -l) and the API contract is checked.
"""
from __future__ import annotations

import warnings
from pathlib import Path

import pandas as pd
import pytest

from ranger_eval import ir


@pytest.fixture(scope="module")
def te(corpus: Path) -> Path:
    return corpus / "trec_eval"


def test_output_shape_and_names(te: Path) -> None:
    df = ir.evaluate(te / "qrels.test", te / "results.test", ["ndcg_cut.10", "map", "P(rel=1)@5"])
    assert list(df.columns) == ["query_id", "measure", "value"]
    assert df["measure"].unique().tolist() == ["nDCG@10", "AP", "P(rel=1)@5"]
    assert df["query_id"].unique().tolist() == ["301", "302", "303"]
    assert len(df) == 9
    assert df["value"].dtype == "float64"


def test_missing_policies_follow_trec_eval_c(te: Path) -> None:
    """results.trunc lacks topic 302: 'zero' = trec_eval -c (out.test.aqc: map all 0.1016),
    'drop' = plain trec_eval (averaging over 2 topics), 'error' raises."""
    zero = ir.evaluate(te / "qrels.test", te / "results.trunc", ["AP", "NumRel", "NumRet"])
    z = zero.set_index(["query_id", "measure"])["value"]
    assert z[("302", "AP")] == 0.0 and z[("302", "NumRet")] == 0.0
    assert z[("302", "NumRel")] == 77.0  # an empty ranking still has its relevant documents
    assert zero.attrs["missing_topics"] == 1
    assert ir.summarize(zero).set_index("measure").loc["AP", "value"] == pytest.approx(0.1016, abs=5e-5)
    with pytest.warns(ir.IgnoredTopicsWarning, match="1 qrels topic.*'302'"):
        drop = ir.evaluate(te / "qrels.test", te / "results.trunc", "AP", missing="drop")
    assert drop["query_id"].tolist() == ["301", "303"]
    assert drop["value"].mean() == pytest.approx(zero[zero.measure == "AP"]["value"].sum() / 2)
    with pytest.raises(ir.MissingTopicsError):
        ir.evaluate(te / "qrels.test", te / "results.trunc", "AP", missing="error")


def test_run_topics_without_qrels_are_counted(te: Path, tmp_path: Path) -> None:
    run = tmp_path / "run.txt"
    run.write_text((te / "results.test").read_text() + "999 Q0 x 1 1.0 r\n998 Q0 x 1 1.0 r\n")
    with pytest.warns(ir.IgnoredTopicsWarning, match="2 run topic.*without qrels"):
        df = ir.evaluate(te / "qrels.test", run, "AP")
    assert df.attrs["ignored_topics"] == 2
    assert set(df["query_id"]) == {"301", "302", "303"}


def test_summarize_sums_counts_and_averages_the_rest(te: Path) -> None:
    df = ir.evaluate(te / "qrels.test", te / "results.test", ["NumRet", "AP"])
    s = ir.summarize(df).set_index("measure")
    assert s.loc["NumRet", "value"] == 1500 and s.loc["NumRet", "num_q"] == 3
    assert s.loc["AP", "value"] == pytest.approx(0.1785, abs=5e-5)


def test_rel_threshold_per_measure_equals_global_level(te: Path) -> None:
    """P(rel=2)@5 with the default level equals P@5 with relevance_level=2 (trec_eval -l2,
    out.test.aql: P_5 all 0.2667); nDCG gains are unchanged by either."""
    a = ir.evaluate(te / "qrels.rel_level", te / "results.test", ["P(rel=2)@5", "AP(rel=2)", "nDCG"])
    b = ir.evaluate(te / "qrels.rel_level", te / "results.test", ["P@5", "AP", "nDCG"],
                    relevance_level=2)
    assert a["value"].tolist() == b["value"].tolist()
    assert a[a.measure == "P(rel=2)@5"]["value"].mean() == pytest.approx(0.2667, abs=5e-5)


def test_evaluate_many_and_progress(te: Path) -> None:
    runs = {"full": te / "results.test", "trunc": te / "results.trunc"}
    for progress in (False, True, None):
        df = ir.evaluate_many(te / "qrels.test", runs, ["AP", "nDCG@10"], progress=progress)
        assert list(df.columns) == ["system", "query_id", "measure", "value"]
        assert df["system"].unique().tolist() == ["full", "trunc"]
    single = ir.evaluate(te / "qrels.test", te / "results.trunc", ["AP", "nDCG@10"])
    got = df[df.system == "trunc"].drop(columns="system").reset_index(drop=True)
    pd.testing.assert_frame_equal(got, pd.DataFrame(single), check_like=False)
    # both carry the same reproducibility signature (measures, relevance, judged, missing, …)
    assert isinstance(single, ir.IREvaluation) and single.signature == df.signature
    fields = single.signature.fields
    assert fields["kind"] == "ir" and fields["measures"] == "AP,nDCG@10"
    assert (fields["rel"], fields["judged"], fields["missing"], fields["ties"]) == (
        "1", "nonrel", "zero", "docid-desc")
    s = ir.summarize(df)
    assert list(s.columns) == ["system", "measure", "value", "num_q"]
    with pytest.raises(ValueError, match="non-empty mapping"):
        ir.evaluate_many(te / "qrels.test", {}, "AP")


def test_to_scores(te: Path) -> None:
    scores_mod = pytest.importorskip("ranger_eval.scores")
    df = ir.evaluate_many(te / "qrels.test", {"A": te / "results.test", "B": te / "results.trunc"},
                          ["AP", "nDCG@10"], progress=False)
    sc = ir.to_scores(df, dataset="trec-test")
    assert isinstance(sc, scores_mod.Scores)
    single = ir.evaluate(te / "qrels.test", te / "results.test", "AP")
    with pytest.raises(ValueError, match="system="):
        ir.to_scores(single, dataset="d")
    assert isinstance(ir.to_scores(single, dataset="d", system="A"), scores_mod.Scores)


def test_max_docs_equals_truncated_run(te: Path, tmp_path: Path) -> None:
    """-M N is the same as evaluating the top N lines of each (sorted) topic."""
    run = ir.read_run(te / "results.test")
    top = (run.sort_values(["query_id", "score", "doc_id"], ascending=[True, False, False])
           .groupby("query_id").head(50))
    ms = ["AP", "nDCG", "Rprec", "NumRet", "NumRelRet"]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        a = ir.evaluate(te / "qrels.test", te / "results.test", ms, max_docs=50)
    b = ir.evaluate(te / "qrels.test", top, ms)
    assert a["value"].tolist() == b["value"].tolist()


def test_ties_broken_by_docid_descending_in_byte_order() -> None:
    """trec_eval's comp_sim_docno: equal scores rank docids by strcmp descending (bytes):
    'é' (0xC3..) > 'b' > 'a' > 'Z'; with only 'a' relevant, RR = 1/3."""
    docs = ["b", "a", "Z", "é"]
    qrels = pd.DataFrame({"query_id": "q", "doc_id": docs, "relevance": [0, 1, 0, 0]})
    run = pd.DataFrame({"query_id": "q", "doc_id": docs, "score": 1.0})
    assert ir.evaluate(qrels, run, "RR")["value"].item() == pytest.approx(1 / 3)
    pytrec_eval = pytest.importorskip("pytrec_eval", reason="pytrec_eval (trec_eval) is the oracle here (the 'test' extra)")
    ev = pytrec_eval.RelevanceEvaluator({"q": {"b": 0, "a": 1, "Z": 0, "é": 0}}, {"recip_rank"})
    assert ev.evaluate({"q": dict.fromkeys(docs, 1.0)})["q"]["recip_rank"] == pytest.approx(1 / 3)


def test_unreachable_relevance_level_is_warned_not_silent() -> None:
    """-l above every qrels label makes binary measures 0 everywhere: warned, graded ones not."""
    qrels = pd.DataFrame({"query_id": ["1", "1", "2"], "doc_id": ["a", "b", "c"],
                          "relevance": [2, 0, 1]})
    run = pd.DataFrame({"query_id": ["1", "1", "2"], "doc_id": ["a", "b", "c"],
                        "score": [2.0, 1.0, 1.0]})
    with pytest.warns(ir.IgnoredTopicsWarning, match=r"AP, P@1 \(highest label 2\)"):
        out = ir.evaluate(qrels, run, ["AP", "P@1", "nDCG"], relevance_level=3)
    assert (out.loc[out.measure != "nDCG", "value"] == 0).all()
    assert (out.loc[out.measure == "nDCG", "value"] > 0).all()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ir.evaluate(qrels, run, ["AP", "AP(rel=2)"], relevance_level=1)
