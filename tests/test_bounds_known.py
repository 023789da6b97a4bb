"""Known ranges without a declaration: IR measures, lm-eval accuracies and
Inspect C/I scores are declared in [0, 1] by their readers, ``--bounds METRIC=LO,HI`` by the
user; the intervals of their means then stay in range."""
from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import ranger_eval as rg
from ranger_eval.errors import ConfigError
from ranger_eval.io import read_scores
from ranger_eval.io.adapters._common import IR_UNIT_MEASURE
from ranger_eval.ir import measure_bounds
from ranger_eval.pipeline import parse_bounds, run_compare

ORACLES = Path(__file__).resolve().parent / "oracles"


@pytest.mark.parametrize("name", [
    "nDCG@10", "AP", "AP@100", "RR", "RR@10", "P@10", "R@100", "Rprec", "Success@5",
    "Judged@10", "P(rel=2)@10", "AP(rel=2)", "ndcg_cut_10", "ndcg_cut.10", "ndcg", "map",
    "map_cut_10", "recip_rank", "P_10", "P.10", "recall_100", "success_5"])
def test_reader_ranges_agree_with_the_measure_parser(name: str) -> None:
    """io cannot import ir (layers): its name pattern must range exactly the measures ir
    ranges."""
    assert measure_bounds([name]) == {name: (0.0, 1.0)}
    assert IR_UNIT_MEASURE.match(name)


@pytest.mark.parametrize("name", ["num_ret", "num_rel", "num_rel_ret", "NumRet", "utility",
                                  "runid", "acc", "perplexity", "bleu"])
def test_counts_and_other_names_are_not_ranged(name: str) -> None:
    assert measure_bounds([name]) == {}
    assert not IR_UNIT_MEASURE.match(name)


def test_ir_to_scores_declares_its_measures() -> None:
    ev = pd.DataFrame({"query_id": ["1", "2", "1", "2"], "measure": ["nDCG@10"] * 2 + ["NumRet"] * 2,
                       "value": [0.5, 1.0, 10.0, 12.0]})
    scores = rg.ir.to_scores(ev, dataset="d", system="s")
    assert scores.bounds == {"nDCG@10": (0.0, 1.0)}


def test_trec_eval_q_output_is_ranged_and_its_interval_stays_inside(tmp_path: Path) -> None:
    lines = [f"ndcg_cut_10\t{q}\t{v}" for q, v in zip(range(1, 9), [1, 1, 1, 0.9, 1, 1, 1, 0.95],
                                                       strict=True)]
    lines += [f"num_ret\t{q}\t1000" for q in range(1, 9)]
    (tmp_path / "run.txt").write_text("\n".join(lines) + "\n")
    scores = read_scores(tmp_path / "run.txt", format="trec-eval-q")
    assert scores.bounds == {"ndcg_cut_10": (0.0, 1.0)}
    d = rg.describe(scores).set_index("metric")
    assert d.loc["ndcg_cut_10", "interval"] == "korn-graubard"
    assert d.loc["ndcg_cut_10", "ci_high"] <= 1.0
    assert d.loc["num_ret", "interval"] == "t"


def test_lmeval_accuracies_are_ranged() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        scores = read_scores(ORACLES / "lmeval_logs" / "dummy-a" / "dummy-a")
    ranged = scores.bounds
    assert ranged and all(b == (0.0, 1.0) for b in ranged.values())
    assert all(m.split(",")[0] in ("acc", "acc_norm", "exact_match", "f1", "mc1", "mc2")
               for m in ranged)


def test_inspect_ci_scores_are_ranged_and_numeric_scorers_not() -> None:
    logs = ORACLES / "inspect_clusters" / "json"
    scores = read_scores(logs, cluster="passage", system_from="task_args.strong")
    assert set(scores.bounds.values()) <= {(0.0, 1.0)} and scores.bounds
    assert scores.cluster_name == "passage"  # concatenated logs keep the cluster field


def test_parse_bounds_option() -> None:
    assert parse_bounds(["f1=0,1", "score=-1,1"]) == {"f1": [0.0, 1.0], "score": [-1.0, 1.0]}
    assert parse_bounds(None) is None
    for bad in ("f1", "f1=0", "=0,1", "f1=a,1"):
        with pytest.raises(ConfigError, match="option --bounds: expected METRIC=LO,HI"):
            parse_bounds([bad])


def test_bounds_option_reaches_the_leaderboard_and_signature(tmp_path: Path) -> None:
    rng = np.random.default_rng(2)
    rows = [("d", "f1", s, str(i), float(rng.beta(9, 1))) for s in "AB" for i in range(8)]
    pd.DataFrame(rows, columns=["dataset", "metric", "system", "item", "value"]).to_csv(
        tmp_path / "s.csv", index=False)
    run = run_compare(tmp_path / "s.csv", tmp_path / "out", figures="none",
                      bounds=["f1=0,1"])
    assert run.result.signature.fields["mean_ci"] == "korn-graubard"
    board = run.result.leaderboard()
    assert board.ci_high is not None and (board.ci_high <= 1.0).all()
    with pytest.raises(ConfigError, match="option --bounds: metric 'f1' is declared in "
                                          r"\[0, 0.5\]"):
        run_compare(tmp_path / "s.csv", tmp_path / "out2", figures="none", bounds=["f1=0,0.5"])
