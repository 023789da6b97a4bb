"""Several logs of one model: naming systems per log (``system=``,
``system_from``), folders of logs, and the extensions every reader knows.

The logs in tests/oracles/inspect_systems/ were written by Inspect AI itself on
``mockllm/model`` (tests/oracles/make_inspect_logs_systems.py): one task run with ``cot=False``
at temperature 0 and ``cot=True`` at 0.7, each as ``.eval`` and ``.json``.
"""
from __future__ import annotations

import json
import shutil
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ranger_eval.errors import InputError
from ranger_eval.io.adapters import (
    SYSTEM_SOURCES,
    check_system_from,
    concat_inputs,
    folder_inputs,
    input_format,
    load_adapter,
    read_adapter,
    read_adapters,
)
from ranger_eval.io.adapters.inspectai import value_to_float
from ranger_eval.io.tables import read_scores

LOGS = Path(__file__).resolve().parents[1] / "oracles" / "inspect_systems"
MODEL = "mockllm/model"


def _logs(fmt: str) -> tuple[Path, Path]:
    """(plain, cot) logs of one container."""
    return LOGS / fmt / f"plain.{fmt}", LOGS / fmt / f"cot.{fmt}"


def _header(path: Path) -> dict:
    """The log's ``eval`` header, read with inspect_ai itself when installed, else as JSON."""
    try:
        from inspect_ai.log import read_eval_log
    except ImportError:
        if path.suffix == ".eval":
            pytest.skip("inspect_ai is not installed (needed to read .eval headers here)")
        return json.loads(path.read_text())["eval"]
    return read_eval_log(str(path), header_only=True).eval.model_dump()


# ---------------------------------------------------------------- the fixtures, as Inspect reads them
@pytest.mark.parametrize("fmt", ["eval", "json"])
def test_fixture_values_equal_inspects_own_reading(fmt):
    """Oracle: every per-sample value as inspect_ai's reader and value_to_float give it, and
    Inspect's reported accuracy, equal ours (1e-12)."""
    inspect_log = pytest.importorskip("inspect_ai.log", exc_type=ImportError)
    for path in _logs(fmt):
        log = inspect_log.read_eval_log(str(path))
        expected = {str(s.id): float(value_to_float(s.scores["includes"].value))
                    for s in log.samples}
        res = load_adapter(path)
        got = res.scores.frame.set_index("item")["value"].to_dict()
        assert got == expected
        agree = res.agreement()
        assert len(agree) == 1 and abs(agree["difference"].iloc[0]) < 1e-12
        reported = log.results.scores[0].metrics["accuracy"].value
        assert abs(np.mean(list(expected.values())) - reported) < 1e-12


# ---------------------------------------------------------------- the default names collide
@pytest.mark.parametrize("fmt", ["eval", "json"])
def test_two_logs_of_one_model_name_both_files_and_the_option(fmt):
    plain, cot = _logs(fmt)
    with pytest.raises(InputError) as info:
        read_scores(LOGS / fmt)
    text = str(info.value)
    assert str(cot) in text and str(plain) in text
    assert f"system '{MODEL}'" in text
    assert "task_args.cot (true / false)" in text
    assert "generate_config.temperature (0.7 / 0.0)" in text
    assert "--system-from task_args.cot" in text and "system_from" in text
    with pytest.raises(InputError, match=r"plain\.\w+ and .*cot\.\w+ both hold"):
        read_adapters([plain, cot])


def test_eval_and_json_of_one_model_collide_and_are_told_apart():
    with pytest.raises(InputError, match="both hold"):
        read_scores([LOGS / "eval", LOGS / "json"])
    s = read_scores([LOGS / "eval", LOGS / "json"], system_from=["file", "run_id"])
    assert len(s.systems) == 4 and all(name.split()[0] in ("plain", "cot") for name in s.systems)


# ---------------------------------------------------------------- system_from sources
@pytest.mark.parametrize("fmt", ["eval", "json"])
def test_system_from_every_inspect_source(fmt):
    plain, cot = _logs(fmt)
    h_plain, h_cot = _header(plain), _header(cot)
    cases = {
        "task_args.cot": {"cot=false", "cot=true"},
        "run_id": {h_plain["run_id"], h_cot["run_id"]},
        "eval.run_id": {h_plain["run_id"], h_cot["run_id"]},
        "file": {"plain", "cot"},
        "generate_config.temperature": {"temperature=0.0", "temperature=0.7"},
        "model,task_args.cot": {f"{MODEL} cot=false", f"{MODEL} cot=true"},
        ("model", "generate_config.temperature"): {f"{MODEL} temperature=0.0",
                                                   f"{MODEL} temperature=0.7"},
    }
    for spec, names in cases.items():
        s = read_scores(LOGS / fmt, system_from=list(spec) if isinstance(spec, tuple) else spec)
        assert set(s.systems) == names, spec
    s = read_scores(LOGS / fmt, system_from="task_args.cot")
    by_log = read_adapter(plain).frame.set_index("item")["value"]
    ours = s.frame[s.frame["system"] == "cot=false"].set_index("item")["value"]
    pd.testing.assert_series_equal(ours.sort_index(), by_log.sort_index())
    # the default and "model" are the model name; task names the dataset's task
    assert read_adapter(plain, system_from="model").systems == (MODEL,)
    assert read_adapter(plain, system_from="task").systems == ("yesno",)


def test_system_from_errors_name_the_source_the_file_and_what_it_has():
    plain, _ = _logs("eval")
    with pytest.raises(InputError, match=r"unknown source 'task_arg\.cot'.*did you mean "
                                         r"'task_args'"):
        read_adapter(plain, system_from="task_arg.cot")
    with pytest.raises(InputError, match=r"task_args needs a key"):
        check_system_from("task_args")
    with pytest.raises(InputError, match=r"plain\.eval: system_from 'task_args\.nope': the "
                                         r"log's task_args has no key 'nope' \(its keys: cot\)"):
        read_adapter(plain, system_from="task_args.nope")
    with pytest.raises(InputError, match=r"model_args has no key 'x' \(it is empty\)"):
        read_adapter(plain, system_from="model_args.x")
    assert "task_args.<key>" in SYSTEM_SOURCES and check_system_from(None) == ()


def test_explicit_system_names_one_input_and_refuses_several(tmp_path):
    plain, cot = _logs("eval")
    s = read_scores([plain, cot], system=None, system_from="file")
    assert set(s.systems) == {"plain", "cot"}
    assert read_adapter(plain, system="baseline").systems == ("baseline",)
    res = load_adapter(plain, system="baseline")
    assert set(res.reported["system"]) == {"baseline"}
    assert set(res.agreement()["system"]) == {"baseline"}
    table = tmp_path / "two.csv"
    table.write_text("dataset,system,item,value\nd,a,1,0.5\nd,b,1,0.25\n")
    with pytest.raises(InputError, match=r"two\.csv: holds 2 systems \(a, b\); one name "
                                         r"\('x'\) cannot"):
        read_scores(table, system="x")
    with pytest.raises(InputError, match=r"two\.csv: system_from run_id: a table has no log "
                                         r"fields"):
        read_scores(table, system_from="run_id")
    one = tmp_path / "bm25.csv"
    one.write_text("dataset,system,item,value\nd,a,1,0.5\nd,a,2,0.25\n")
    assert read_scores(one, system_from="file").systems == ("bm25",)


def test_other_formats_name_systems_after_their_own_fields(corpus, tmp_path):
    lm = corpus / "eval_logs" / "lm_eval"
    s = read_scores(lm, system_from="model_args.trust_remote_code")
    assert s.systems == ("trust_remote_code=True",)
    s = read_scores(lm, system_from="config.random_seed")
    assert s.systems == ("random_seed=0",)
    helm = corpus / "eval_logs" / "helm_mmlu_philosophy_gpt2"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        s = read_scores(helm, system_from="model,generate_config.temperature")
    assert s.systems == ("openai/gpt2 temperature=0.0",)
    with pytest.raises(InputError, match=r"a helm log has no 'run_id' \(it gives "):
        read_scores(helm, system_from="run_id")
    trec = tmp_path / "bm25.txt"
    shutil.copy(corpus / "trec_eval" / "out.test.aq", trec)  # trec_eval -q output
    assert read_scores(trec, format="trec-eval-q", system_from="file").systems == ("bm25",)
    with pytest.raises(InputError, match=r"trec-eval-q input carries no such fields"):
        read_scores(trec, format="trec-eval-q", system_from="run_id")


# ---------------------------------------------------------------- folders of logs
def test_a_folder_reads_every_log_and_table_and_names_what_it_skips(tmp_path):
    folder = tmp_path / "logs"
    folder.mkdir()
    for p in _logs("eval"):
        shutil.copy(p, folder / p.name)
    (folder / "notes.txt").write_text("run on Tuesday\n")
    (folder / ".DS_Store").write_bytes(b"\0\1")
    (folder / "old").mkdir()  # sub-folders are searched
    (folder / "old" / "readme.md").write_text("old runs\n")
    (folder / "logs.json").write_text('{"a.eval": {"status": "success"}}')
    (folder / "extra.csv").write_text("dataset,system,item,value\nother,bm25,1,0.5\n")
    inputs, skipped = folder_inputs(folder, (".csv",))
    assert [p.name for p in inputs] == ["cot.eval", "extra.csv", "plain.eval"]
    assert {p.relative_to(folder).as_posix(): why for p, why in skipped} == {
        ".DS_Store": "hidden",
        "logs.json": "not an evaluation log an adapter reads, nor a table",
        "notes.txt": "not an evaluation log an adapter reads, nor a table",
        "old/readme.md": "not an evaluation log an adapter reads, nor a table",
    }
    with pytest.warns(UserWarning, match=r"logs: read 3 input\(s\) \(system\(s\) cot, extra, "
                                         r"plain\); skipped 4: \.DS_Store \(hidden\); "
                                         r"logs\.json .*notes\.txt .*old/readme\.md \(not"):
        s = read_scores(folder, system_from="file")
    assert set(s.systems) == {"cot", "plain", "extra"} and set(s.datasets) == {"yesno", "other"}


def test_an_empty_folder_and_a_folder_of_nothing_readable_are_errors(tmp_path):
    with pytest.raises(InputError, match=r"no evaluation log or score table in this folder "
                                         r"\(it is empty\)"):
        read_scores(tmp_path)
    (tmp_path / "readme.md").write_text("hello\n")
    with pytest.raises(InputError, match=r"skipped 1: readme\.md \(not an evaluation log"):
        read_scores(tmp_path)


def test_tool_folders_are_still_read_whole(corpus):
    helm = corpus / "eval_logs" / "helm_mmlu_philosophy_gpt2"
    assert input_format(helm) == "helm"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert read_scores(helm).systems == ("openai/gpt2",)
    assert input_format(corpus / "eval_logs" / "lm_eval") == "lm-eval"


def test_a_damaged_eval_file_gets_the_inspect_readers_error(tmp_path):
    """``.eval`` is known by its extension: a cut archive is not an "unknown file type"."""
    plain, _ = _logs("eval")
    cut = tmp_path / "cut.eval"
    cut.write_bytes(plain.read_bytes()[:4000])
    assert input_format(cut) == "inspect"
    with pytest.raises(InputError, match=r"cut\.eval: not a readable \.eval archive"):
        read_scores(cut)
    folder = tmp_path / "f"
    folder.mkdir()
    shutil.copy(cut, folder / "cut.eval")
    # in a folder, an unreadable log is skipped with the reader's reason; with
    # nothing else to read, that is the error
    with pytest.raises(InputError, match=r"none of the 1 log\(s\) or table\(s\) in this folder "
                                         r"could be read; skipped 1: cut\.eval \(not a readable "
                                         r"\.eval archive"):
        read_scores(folder)


# ---------------------------------------------------------------- property
@settings(max_examples=25, deadline=None)
@given(names=st.lists(st.sampled_from(["a", "b", "c", "d"]), min_size=2, max_size=4))
def test_logs_combine_exactly_when_their_system_names_differ(tmp_path_factory, names):
    """n copies of one log named ``names``: they combine iff the names are distinct, and each
    system then holds the log's values unchanged; otherwise the error names two of the copies."""
    plain, _ = _logs("json")
    folder = tmp_path_factory.mktemp("copies")
    paths = []
    for i, _name in enumerate(names):
        paths.append(folder / f"log{i}.json")
        shutil.copy(plain, paths[-1])
    frames = [read_adapter(p, system=n).frame for p, n in zip(paths, names, strict=True)]
    if len(set(names)) == len(names):
        s = concat_inputs(frames, paths)
        base = read_adapter(plain).frame.set_index("item")["value"].sort_index()
        for n in names:
            got = s.frame[s.frame["system"] == n].set_index("item")["value"].sort_index()
            pd.testing.assert_series_equal(got, base)
    else:
        first = next(n for n in names if names.count(n) > 1)
        i, j = [k for k, n in enumerate(names) if n == first][:2]
        with pytest.raises(InputError, match=rf"log{i}\.json and .*log{j}\.json both hold .*"
                                             rf"system '{first}'"):
            concat_inputs(frames, paths)


# ---------------------------------------------------------------- lm-eval: runs of one model
LMEVAL = Path(__file__).resolve().parents[1] / "oracles" / "lmeval_logs"


def _two_runs_of_one_model(tmp_path: Path) -> Path:
    """An lm-eval output folder with two runs (results files) of one model: a real run of
    lm-eval 0.4's dummy model and a copy of it under another date."""
    src = next(LMEVAL.glob("dummy-a/*/results_*.json"))
    date = src.stem.removeprefix("results_")
    out = tmp_path / "out" / "dummy-a"
    out.mkdir(parents=True)
    for f in src.parent.iterdir():
        shutil.copy(f, out / f.name)
        shutil.copy(f, out / f.name.replace(date, "2030-01-01T00-00-00.000000"))
    return tmp_path / "out"


def test_lmeval_runs_are_named_by_date_file_or_config():
    if not LMEVAL.is_dir():
        pytest.skip("no lm-eval fixtures")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        base = read_scores(LMEVAL)
        assert set(read_scores(LMEVAL, system_from="file").systems) == {"dummy-a", "dummy-b"}
        dates = {p.stem.removeprefix("results_") for p in LMEVAL.glob("*/*/results_*.json")}
        assert set(read_scores(LMEVAL, system_from="run_id").systems) == dates
        seeds = read_scores(LMEVAL, system_from="config.random_seed")
        named = read_scores(LMEVAL, system_from="model_args.pretrained")
    assert set(named.systems) == {"pretrained=dummy-a", "pretrained=dummy-b"}
    # the values are the same whatever the names
    for frame in (seeds.frame, named.frame):
        assert np.array_equal(np.sort(frame["value"].to_numpy()),
                              np.sort(base.frame["value"].to_numpy()))


def test_two_lmeval_runs_of_one_model_name_both_results_files(tmp_path):
    if not LMEVAL.is_dir():
        pytest.skip("no lm-eval fixtures")
    out = _two_runs_of_one_model(tmp_path)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(InputError) as info:
            read_scores(out)
        text = str(info.value)
        assert "results_2030-01-01T00-00-00.000000.json both hold" in text
        assert "system 'dummy-a'" in text and "--system-from run_id" in text
        s = read_scores(out, system_from="run_id")
    assert len(s.systems) == 2 and "2030-01-01T00-00-00.000000" in s.systems
    a, b = (s.frame[s.frame["system"] == n].sort_values(["dataset", "metric", "item"])
            for n in s.systems)
    assert np.array_equal(a["value"].to_numpy(), b["value"].to_numpy())


def test_a_json_file_no_adapter_knows_says_logs_are_recognised_by_content(tmp_path):
    """A ``.json`` that is no tool's output (here Inspect's ``logs.json`` listing) under a
    system's task: the error says which logs are recognised, and how."""
    from ranger_eval.io.tables import read_item_scores

    listing = tmp_path / "logs.json"
    listing.write_text('{"a.eval": {"status": "success"}}')
    with pytest.raises(InputError, match=r"logs\.json: unknown file type '\.json' .*evaluation "
                                         r"logs .* are recognised by their content, and this "
                                         r"file is none"):
        read_item_scores(listing)
    with pytest.raises(InputError, match=r"logs\.json: unknown file type"):
        read_scores(listing)
