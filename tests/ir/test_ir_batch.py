"""evaluate_many: one call for many runs gives exactly what evaluate gives per run,
with warnings in run order and the first bad run's error; ``ranger-eval trec`` uses it."""
from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from ranger_eval import ir
from ranger_eval.ir import evaluation, readers

MEASURES = ["nDCG@10", "AP", "RR", "P@5", "NumRet"]


def _runs(tmp_path: Path, n: int) -> tuple[Path, dict[str, Path | pd.DataFrame]]:
    rng = np.random.default_rng(7)
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("".join(f"q{q} 0 d{d} {rng.integers(0, 3)}\n"
                             for q in range(30) for d in rng.choice(200, 15, replace=False)))
    runs: dict[str, Path | pd.DataFrame] = {}
    for i in range(n):
        lines = []
        for q in range(30 + i % 3):  # some runs have topics without qrels
            if (q + i) % 11 == 0:
                continue  # and some miss qrels topics
            docs = rng.choice(200, 50, replace=False)
            scores = np.round(rng.normal(size=50), 1)  # many ties
            lines += [f"q{q} Q0 d{d} 0 {s} sys{i}\n" for d, s in zip(docs, scores, strict=True)]
        p = tmp_path / f"run{i}.txt"
        p.write_text("".join(lines))
        runs[f"sys{i}"] = p
    runs["frame"] = readers.read_run(tmp_path / "run0.txt")
    return qrels, runs


@pytest.mark.parametrize("missing", ["zero", "drop"])
def test_batch_equals_a_loop_of_evaluate(tmp_path: Path, missing: str) -> None:
    qrels, runs = _runs(tmp_path, 6)
    with warnings.catch_warnings(record=True) as batch_w:
        warnings.simplefilter("always")
        many = ir.evaluate_many(qrels, runs, MEASURES, missing=missing, progress=False)
    with warnings.catch_warnings(record=True) as loop_w:
        warnings.simplefilter("always")
        loop = [ir.evaluate(qrels, r, MEASURES, missing=missing) for r in runs.values()]
    expected = pd.concat([df.assign(system=name) for name, df in zip(runs, loop, strict=True)],
                         ignore_index=True)[["system", "query_id", "measure", "value"]]
    pd.testing.assert_frame_equal(pd.DataFrame(many), expected)
    assert [str(w.message) for w in batch_w] == [str(w.message) for w in loop_w]
    assert len(batch_w) >= 4  # ignored and (with "drop") dropped topics, in run order
    assert all(w.filename == __file__ for w in batch_w)  # attributed to the caller
    assert many.signature == loop[0].signature


def test_batch_accepts_prepared_qrels_and_loaded_runs(tmp_path: Path) -> None:
    qrels, runs = _runs(tmp_path, 2)
    q = evaluation.prepare_qrels(qrels)
    tables = {k: readers.load_run(v) for k, v in runs.items()}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        a = ir.evaluate_many(q, tables, "AP", progress=False)
        b = ir.evaluate_many(qrels, runs, "AP", progress=False)
    pd.testing.assert_frame_equal(pd.DataFrame(a), pd.DataFrame(b))


def test_first_bad_run_in_order_raises(tmp_path: Path) -> None:
    qrels, runs = _runs(tmp_path, 3)
    bad1 = tmp_path / "bad1.txt"
    bad1.write_text("q1 Q0 d1 1 x r\n")
    bad2 = tmp_path / "bad2.txt"
    bad2.write_text("q1 Q0 d1 1\n")
    order = {"a": runs["sys0"], "bad1": bad1, "b": runs["sys1"], "bad2": bad2}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(ir.TrecFormatError, match=rf"{bad1}:1: score is not a number"):
            ir.evaluate_many(qrels, order, "AP", progress=False)


def test_workers_are_bounded() -> None:
    assert evaluation._batch_workers(1) == 1
    assert 1 <= evaluation._batch_workers(100) <= 4


def test_cli_several_runs_match_single_run_calls(tmp_path: Path) -> None:
    """``ranger-eval trec`` with several runs (one batch call) prints, per run, exactly what it
    prints for that run alone; the same run given twice is printed twice."""
    from typer.testing import CliRunner

    from ranger_eval.cli import app

    qrels, runs = _runs(tmp_path, 3)
    paths = [str(runs[k]) for k in ("sys0", "sys1", "sys2")] + [str(runs["sys1"])]
    cli = CliRunner()
    res = cli.invoke(app, ["trec", str(qrels), *paths, "-q", "-c", "-m", "AP", "-m", "nDCG@10"])
    assert res.exit_code == 0, res.output
    lines = res.stdout.splitlines()
    # runs are named by their run tag; sys1, given twice, shares its tag, so both copies are
    # named by the file as given (the CLI warns)
    names = dict(zip(paths[:3], ("sys0", paths[1], "sys2"), strict=True))
    assert {ln.split("\t", 1)[0] for ln in lines} == set(names.values())
    for path in paths[:3]:
        alone = cli.invoke(app, ["trec", str(qrels), path, "-q", "-c", "-m", "AP", "-m",
                                 "nDCG@10"])
        mine = [ln.split("\t", 1)[1] for ln in lines if ln.split("\t", 1)[0] == names[path]]
        expected = alone.stdout.splitlines()
        assert mine == expected * (2 if path == paths[3] else 1)
