"""Measure language: ir_measures syntax, trec_eval names, canonical names."""
from __future__ import annotations

import dataclasses

import pytest

from ranger_eval import ir
from ranger_eval.ir import Measure


@pytest.mark.parametrize("spec,expected", [
    ("nDCG@10", Measure("nDCG", 10)),
    ("nDCG", Measure("nDCG")),
    ("AP", Measure("AP")),
    ("AP@100", Measure("AP", 100)),
    ("RR", Measure("RR")),
    ("RR@10", Measure("RR", 10)),
    ("P@10", Measure("P", 10)),
    ("R@100", Measure("R", 100)),
    ("Rprec", Measure("Rprec")),
    ("Success@5", Measure("Success", 5)),
    ("Judged@10", Measure("Judged", 10)),
    ("NumRet", Measure("NumRet")),
    ("NumRel", Measure("NumRel")),
    ("NumRelRet", Measure("NumRelRet")),
    ("P(rel=2)@10", Measure("P", 10, 2)),
    ("P@10(rel=2)", Measure("P", 10, 2)),
    ("AP(rel=2)", Measure("AP", None, 2)),
    ("RR(rel=2)", Measure("RR", None, 2)),
    ("NumRel(rel=3)", Measure("NumRel", None, 3)),
    ("ndcg@10", Measure("nDCG", 10)),  # case-insensitive family names
    ("MAP", Measure("AP")),  # ir_measures aliases
    ("MRR@10", Measure("RR", 10)),
    # trec_eval names
    ("ndcg_cut.10", Measure("nDCG", 10)),
    ("ndcg_cut_10", Measure("nDCG", 10)),
    ("ndcg", Measure("nDCG")),
    ("map", Measure("AP")),
    ("map_cut.100", Measure("AP", 100)),
    ("recip_rank", Measure("RR")),
    ("P.10", Measure("P", 10)),
    ("P_5", Measure("P", 5)),
    ("recall.100", Measure("R", 100)),
    ("success.5", Measure("Success", 5)),
    ("num_ret", Measure("NumRet")),
    ("num_rel", Measure("NumRel")),
    ("num_rel_ret", Measure("NumRelRet")),
])
def test_parse_measure(spec: str, expected: Measure) -> None:
    assert ir.parse_measure(spec) == expected


@pytest.mark.parametrize("measure,name", [
    (Measure("nDCG", 10), "nDCG@10"), (Measure("P", 10, 2), "P(rel=2)@10"),
    (Measure("AP", None, 2), "AP(rel=2)"), (Measure("Rprec"), "Rprec"),
    (Measure("NumRelRet", None, 2), "NumRelRet(rel=2)"),
])
def test_canonical_names_round_trip(measure: Measure, name: str) -> None:
    assert str(measure) == name
    assert ir.parse_measure(name) == measure


def test_canonical_names_match_ir_measures() -> None:
    ir_measures = pytest.importorskip("ir_measures", reason="ir_measures is the oracle here (the 'test' extra)")
    for spec in ["nDCG@10", "AP", "AP@100", "RR@10", "P(rel=2)@10", "R@100", "Rprec",
                 "Success@5", "Judged@10", "NumRet", "NumRel", "AP(rel=2)"]:
        assert str(ir.parse_measure(spec)) == str(ir_measures.parse_measure(spec))


def test_trec_eval_lists_and_defaults_expand() -> None:
    assert [str(m) for m in ir.parse_measures("P.5,10")] == ["P@5", "P@10"]
    assert [str(m) for m in ir.parse_measures("ndcg_cut.10,20")] == ["nDCG@10", "nDCG@20"]
    assert [m.cutoff for m in ir.parse_measures("success")] == [1, 5, 10]
    assert [m.cutoff for m in ir.parse_measures("P")] == [5, 10, 15, 20, 30, 100, 200, 500, 1000]
    with pytest.raises(ir.MeasureError, match="names 2 measures"):
        ir.parse_measure("P.5,10")


def test_parse_measures_dedupes_and_keeps_order() -> None:
    ms = ir.parse_measures(["ndcg_cut.10", "AP", "nDCG@10", Measure("AP"), "map"])
    assert [str(m) for m in ms] == ["nDCG@10", "AP"]


def test_measures_are_frozen_and_hashable() -> None:
    m = ir.parse_measure("P(rel=2)@5")
    with pytest.raises(dataclasses.FrozenInstanceError):
        m.cutoff = 10  # type: ignore[misc]
    assert len({m, Measure("P", 5, 2)}) == 1
    assert Measure("NumRel").is_count and not Measure("AP").is_count
