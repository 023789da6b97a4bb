"""Adapter dispatch: content sniffing of every real example, files that must *not* be taken
for an adapter format (so read_scores can fall back to tidy tables), format names and options,
and the streaming JSON reader the adapters share."""
from __future__ import annotations

import json
import os
import shutil
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from ranger_eval.errors import InputError, RangerError
from ranger_eval.io.adapters import (
    FORMATS,
    detect,
    load_adapter,
    normalize_format,
    read_adapter,
    sniff,
)
from ranger_eval.io.adapters._json import JsonStream, iter_jsonl

LM_DATE = "2026-01-21T03-44-18.458309"
REAL = {
    f"lm_eval/samples_math_perturbed_full_{LM_DATE}.jsonl": "lm-eval",
    f"lm_eval/results_{LM_DATE}.json": "lm-eval",
    "lm_eval": "lm-eval",
    "inspect_arc_easy/data_arc_qwen.json": "inspect",
    "inspect_arc_easy/data_arc_sonnet.json": "inspect",
    "helm_mmlu_philosophy_gpt2": "helm",
    "helm_mmlu_philosophy_gpt2/per_instance_stats.json": "helm",
    "tsml_results_file/1NN-DTW_Chinatown_testResample0.csv": "tsml",
}


def test_formats():
    assert FORMATS == ("lm-eval", "inspect", "helm", "pyterrier", "trec-eval-q", "beir", "tsml")


@pytest.mark.parametrize(("rel", "fmt"), sorted(REAL.items()))
def test_every_real_example_is_recognised(corpus, rel, fmt, tmp_path):
    path = corpus / "eval_logs" / rel
    assert sniff(path) == fmt
    # by content, not by name: a renamed copy is recognised too (folders keep their files)
    if path.is_file() and fmt != "lm-eval":  # lm-eval pairs files by their names
        copy = tmp_path / "renamed.dat"
        shutil.copy(path, copy)
        assert sniff(copy) == fmt
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = load_adapter(path)
    assert res.format == fmt and res.scores is not None and len(res.scores) > 0


def test_trec_eval_golden_outputs_are_recognised(corpus):
    for name in ("out.test.aq", "out.test.aqc", "out.test.aqcM", "out.test.aql",
                 "out.test.meas_params"):
        assert sniff(corpus / "trec_eval" / name) == "trec-eval-q"


def test_other_files_are_not_taken_for_adapters(corpus, tmp_path):
    """Inputs Ranger reads otherwise: detect() says None so read_scores keeps its own path."""
    others = [
        corpus / "trec_eval" / "results.test",          # a TREC run (6 columns)
        corpus / "trec_eval" / "qrels.test",            # qrels (4 columns)
        corpus / "ranger" / "glue" / "bert-base-cased" / "rte.txt",  # one value per line
        corpus / "eval_logs" / "LICENSE.tsml_eval.BSD-3.txt",
    ]
    tidy = pd.DataFrame({"dataset": ["d"] * 3, "system": ["s"] * 3, "item": ["1", "2", "3"],
                         "value": [0.5, 1.0, 0.0]})
    for suffix in (".csv", ".tsv", ".jsonl", ".parquet"):
        p = tmp_path / f"tidy{suffix}"
        if suffix == ".csv":
            tidy.to_csv(p, index=False)
        elif suffix == ".tsv":
            tidy.to_csv(p, sep="\t", index=False)
        elif suffix == ".jsonl":
            tidy.to_json(p, orient="records", lines=True)
        else:
            tidy.to_parquet(p)
        others.append(p)
    (tmp_path / "scores.json").write_text(json.dumps({"a": [1, 2, 3]}))
    others.append(tmp_path / "scores.json")
    (tmp_path / "empty.txt").write_text("")
    others.append(tmp_path / "empty.txt")
    for p in others:
        assert detect(p) is None, p
        with pytest.raises(InputError, match=r"not a recognised evaluation output .* pass "
                                             r"format="):
            sniff(p)
    assert detect(corpus / "ranger" / "glue") is None  # a folder of score files


def test_unknown_format(corpus):
    path = corpus / "eval_logs" / "inspect_arc_easy" / "data_arc_qwen.json"
    with pytest.raises(InputError, match=r"data_arc_qwen\.json: unknown format 'inspekt'; use "
                                         r"one of lm-eval, inspect, .* \(did you mean 'inspect'"):
        read_adapter(path, format="inspekt")
    assert isinstance(InputError("x"), RangerError)


@pytest.mark.parametrize(("name", "canonical"), [
    ("lm_eval", "lm-eval"), ("LM-EVAL", "lm-eval"), ("inspect_ai", "inspect"),
    ("trec_eval", "trec-eval-q"), ("tsml-eval", "tsml"), ("helm", "helm")])
def test_format_aliases(name, canonical):
    assert normalize_format(name) == canonical


def test_unknown_option(corpus):
    path = corpus / "eval_logs" / "helm_mmlu_philosophy_gpt2"
    with pytest.raises(InputError, match=r"option\(s\) dataset not used by format 'helm' \(its "
                                         r"options: split, metrics\)"):
        read_adapter(path, dataset="mmlu")


def test_wrong_format_forced(corpus):
    path = corpus / "eval_logs" / "inspect_arc_easy" / "data_arc_qwen.json"
    with pytest.raises(InputError, match=r"data_arc_qwen\.json:1: .*expected a PyTerrier"):
        read_adapter(path, format="pyterrier")
    with pytest.raises(InputError, match=r"expected trec_eval -q output"):
        read_adapter(path, format="trec-eval-q")


def test_special_files_are_refused(tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    with pytest.raises(InputError, match=r"pipe: is a FIFO"):
        sniff(fifo)
    with pytest.raises(InputError, match=r"nothing\.json: file not found"):
        sniff(tmp_path / "nothing.json")


# ----------------------------------------------------------------------------- streaming JSON
def _walk(path: Path, chunk: int):
    """Rebuild a JSON document through JsonStream's streaming calls."""
    with JsonStream(path, expected="test", chunk=chunk) as js:
        def build():
            c = js.peek()
            if c == "{":
                return {k: build() for k in js.object()}
            if c == "[":
                return [build() for _ in js.array()]
            return js.value()
        out = build()
        js.end()
    return out


@pytest.mark.parametrize("chunk", [1, 3, 17, 4096])
def test_json_stream_is_exact_at_any_chunk_size(corpus, chunk):
    for rel in ("inspect_arc_easy/data_arc_qwen.json",
                "helm_mmlu_philosophy_gpt2/per_instance_stats.json"):
        path = corpus / "eval_logs" / rel
        assert _walk(path, chunk) == json.loads(path.read_text())


@pytest.mark.parametrize("chunk", [1, 2, 5])
def test_json_stream_numbers_across_chunks(tmp_path, chunk):
    path = tmp_path / "n.json"
    doc = {"a": [12345678901234567890, -0.000123, 1e300, 3.141592653589793, True, None, "é\\\""],
           "b": {}, "c": []}
    path.write_text(json.dumps(doc, ensure_ascii=False))
    assert _walk(path, chunk) == doc


def test_json_stream_errors_name_the_line(tmp_path):
    path = tmp_path / "x.json"
    path.write_text('[\n {"a": 1},\n {"a": 2} {"a": 3}\n]\n')
    with pytest.raises(InputError, match=r"x\.json:3: expected ',' or '\]', found '\{'"):
        _walk(path, 4)
    path.write_text('[\n {"a": 1},\n {"a": tru}\n]\n')
    with pytest.raises(InputError, match=r"x\.json:3: invalid JSON \(Expecting value\)"):
        _walk(path, 4)
    path.write_text('[1, 2]\n[3]')
    with pytest.raises(InputError, match=r"x\.json:2: unexpected text after the JSON value"):
        _walk(path, 4)


def test_jsonl_names_the_bad_line(tmp_path):
    path = tmp_path / "x.jsonl"
    path.write_text('{"a": 1}\n\n{"a": 2}\n{"a": \n')
    with pytest.raises(InputError, match=r"x\.jsonl:4: not a JSON line \(Expecting value\): "
                                         r"'\{\"a\":' \(expected test"):
        list(iter_jsonl(path, expected="test"))
    assert [n for n, _ in iter_jsonl(path.with_name("y.jsonl") if False else _ok(tmp_path),
                                     expected="t")] == [1, 3]


def _ok(tmp_path: Path) -> Path:
    p = tmp_path / "ok.jsonl"
    p.write_text('{"a": 1}\n   \n{"a": 2}\n')
    return p


def test_identifiers_stay_exact_strings(tmp_path):
    """Leading zeros, 'NA', 'nan' and numbers-as-text survive as ids."""
    path = tmp_path / "perquery.csv"
    pd.DataFrame({"name": ["NA", "NA", "NA"], "qid": ["007", "NA", "1e3"],
                  "measure": ["AP"] * 3, "value": [0.5, 0.25, 1.0]}).to_csv(path, index=False)
    s = read_adapter(path, format="pyterrier")
    assert s.systems == ("NA",)
    assert s.frame["item"].tolist() == ["007", "NA", "1e3"]
    assert np.array_equal(s.frame["value"].to_numpy(), [0.5, 0.25, 1.0])
