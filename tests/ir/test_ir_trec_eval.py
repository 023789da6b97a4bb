"""trec_eval 10's own test suite: our per-query and ``all`` values against its golden outputs.

Golden files (corpus/trec_eval/out.*) print 4 decimals, so values are compared at 5e-5 absolute;
counts exactly. Every trec_eval measure we support is compared; the others are skipped by name.
"""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from ranger_eval import ir
from ranger_eval.ir import MeasureError

TOL = 5e-5 + 1e-12
# trec_eval measure names that map to Ranger measures (checked, so nothing is skipped silently)
SUPPORTED = re.compile(r"^(map|ndcg|recip_rank|Rprec|num_ret|num_rel|num_rel_ret|"
                       r"(P|recall|ndcg_cut|map_cut|success)_\d+)$")


def golden(path: Path) -> dict[tuple[str, str], str]:
    """{(trec_eval measure, query id or 'all'): printed value} from a trec_eval output file."""
    out: dict[tuple[str, str], str] = {}
    for line in path.read_text().splitlines():
        name, qid, value = (x.strip() for x in line.split("\t"))
        out[(name, qid)] = value
    return out


def ours(name: str):
    try:
        return ir.parse_measure(name)
    except MeasureError:
        return None


def compare(gold: dict[tuple[str, str], str], qrels: Path, run: Path, *, per_query: bool,
            **options) -> int:
    names = sorted({n for n, _ in gold if ours(n) is not None})
    assert names, "no supported measures in golden file"
    assert all(SUPPORTED.match(n) for n in names), names
    measures = {n: ours(n) for n in names}
    df = ir.evaluate(qrels, run, list(measures.values()), **options)
    summary = dict(zip(ir.summarize(df)["measure"], ir.summarize(df)["value"], strict=True))
    values = {(m, q): v for q, m, v in df[["query_id", "measure", "value"]].itertuples(index=False)}
    checked = 0
    for (name, qid), text in gold.items():
        m = measures.get(name)
        if m is None:
            continue
        got = summary[str(m)] if qid == "all" else values[(str(m), qid)]
        if m.is_count:
            assert got == float(text), (name, qid, got, text)
        else:
            assert abs(got - float(text)) <= TOL, (name, qid, got, text)
        checked += 1
    if per_query:
        golden_qids = {q for _, q in gold if q != "all"}
        assert set(df["query_id"]) == golden_qids
    num_q = gold.get(("num_q", "all"))
    if num_q is not None:
        assert df["query_id"].nunique() == int(num_q)
    return checked


@pytest.fixture(scope="module")
def te(corpus: Path) -> Path:
    return corpus / "trec_eval"


def test_default_per_query_aq(te: Path) -> None:
    """trec_eval -m all_trec -q qrels.test results.test"""
    n = compare(golden(te / "out.test.aq"), te / "qrels.test", te / "results.test",
                per_query=True, missing="drop")
    assert n >= 4 * 40


def test_default_summary_out_test_and_a(te: Path) -> None:
    for f in ("out.test", "out.test.a"):
        assert compare(golden(te / f), te / "qrels.test", te / "results.test", per_query=False,
                       missing="drop") >= 10


def test_complete_aqc(te: Path) -> None:
    """trec_eval -c on results.trunc (lines of 6-9 fields, topic 302 missing): -c = missing='zero'."""
    gold = golden(te / "out.test.aqc")
    assert ("map", "302") in gold
    assert compare(gold, te / "qrels.test", te / "results.trunc", per_query=True,
                   missing="zero") >= 4 * 40


def test_complete_max_docs_aqcM(te: Path) -> None:
    """trec_eval -c -M100: only the top 100 documents of each topic are evaluated."""
    assert compare(golden(te / "out.test.aqcM"), te / "qrels.test", te / "results.trunc",
                   per_query=True, missing="zero", max_docs=100) >= 4 * 40


def test_relevance_level_aql(te: Path) -> None:
    """trec_eval -l2 on graded qrels with -1 labels: binary measures use label >= 2, nDCG keeps
    graded gains."""
    assert compare(golden(te / "out.test.aql"), te / "qrels.rel_level", te / "results.test",
                   per_query=True, missing="drop", relevance_level=2) >= 4 * 40


def test_measure_parameters(te: Path) -> None:
    """trec_eval -m P.5,7,3 -m recall.20,2000 -m ndcg_cut.10,20,23.4 -m success.2,5,20 (the
    supported part of out.test.meas_params)."""
    gold = golden(te / "out.test.meas_params")
    n = compare(gold, te / "qrels.test", te / "results.test", per_query=True, missing="drop")
    assert n == 4 * 11  # P_3,5,7 recall_20,2000 ndcg_cut_10,20,23 success_2,5,20 x (3 q + all)


def test_comment_run(te: Path) -> None:
    """A real 2024 MS MARCO RAG run: docids containing '#', judged on 31 of its 301 topics."""
    with pytest.warns(ir.IgnoredTopicsWarning, match="270 run topic"):
        n = compare(golden(te / "out.comment.test"), te / "qrels.comment.test",
                    te / "results.comment.test", per_query=False, missing="drop")
    assert n >= 15


def test_qrels_with_comment_lines(te: Path) -> None:
    """qrels.test.with-comments ('#' lines, a docid containing '#') gives out.test's values."""
    compare(golden(te / "out.test"), te / "qrels.test.with-comments", te / "results.test",
            per_query=False, missing="drop")


@pytest.mark.parametrize("level", [0, 2, 3])
def test_complete_with_relevance_level(te: Path, oracles: Path, level: int) -> None:
    """trec_eval 10 -c -q -lN on qrels.rel_level / results.trunc (tests/oracles/trec_eval_golden.sh):
    every per-query row matches, and every ``all`` row but one. trec_eval's num_rel ``all`` under
    -c (m_num_rel.c, te_calc_avg_num_rel) counts the qrels documents with label > 0 over all
    qrels topics whatever -l says (559 here), while its per-topic num_rel counts labels >= -l;
    ir.summarize sums the per-topic values (``ranger-eval trec -c`` prints trec_eval's number)."""
    gold = golden(oracles / "trec_eval" / f"out.rel_level.trunc.aqcl{level}")
    trec_all = gold.pop(("num_rel", "all"))
    assert trec_all == "559"
    n = compare(gold, te / "qrels.rel_level", te / "results.trunc", per_query=True,
                missing="zero", relevance_level=level)
    assert n >= 4 * 40
    per_topic = sum(int(v) for (m, q), v in gold.items() if m == "num_rel")
    df = ir.evaluate(te / "qrels.rel_level", te / "results.trunc", "NumRel", missing="zero",
                     relevance_level=level)
    assert ir.summarize(df)["value"].item() == per_topic
