"""Readers and the experiment YAML: formats, relative paths, and errors naming file/line/key."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from ranger_eval.io import (
    ConfigError,
    InputError,
    load_experiment,
    read_item_scores,
    read_scores,
    read_values,
)
from ranger_eval.pipeline import collect_scores


def test_read_values_line_is_item(tmp_path):
    f = tmp_path / "s.txt"
    f.write_text("1\n0\n0.5\n\n")
    np.testing.assert_array_equal(read_values(f), [1.0, 0.0, 0.5])
    s = read_item_scores(f)
    assert list(s.index) == ["1", "2", "3"]


def test_read_values_missing_file(tmp_path):
    with pytest.raises(InputError, match=r"nope\.txt: file not found"):
        read_values(tmp_path / "nope.txt")


def test_read_values_non_numeric_names_line(tmp_path):
    f = tmp_path / "s.txt"
    f.write_text("1\n0\nabc\n")
    with pytest.raises(InputError, match=r"s\.txt:3: not a number: 'abc'"):
        read_values(f)


def test_read_values_nan_names_line(tmp_path):
    f = tmp_path / "s.txt"
    f.write_text("1\nnan\n")
    with pytest.raises(InputError, match=r"s\.txt:2: non-finite value 'nan'"):
        read_values(f)


def test_read_values_blank_line_inside(tmp_path):
    f = tmp_path / "s.txt"
    f.write_text("1\n\n2\n")
    with pytest.raises(InputError, match=r"s\.txt:2: blank line"):
        read_values(f)


def test_read_values_empty(tmp_path):
    f = tmp_path / "s.txt"
    f.write_text("\n")
    with pytest.raises(InputError, match="empty file"):
        read_values(f)


@pytest.mark.parametrize("suffix", [".csv", ".tsv", ".jsonl", ".parquet"])
def test_tables_round_trip(tmp_path, suffix):
    df = pd.DataFrame({"item": ["q3", "q1"], "value": [0.25, 0.75]})
    f = tmp_path / f"s{suffix}"
    if suffix == ".csv":
        df.to_csv(f, index=False)
    elif suffix == ".tsv":
        df.to_csv(f, sep="\t", index=False)
    elif suffix == ".jsonl":
        df.to_json(f, orient="records", lines=True)
    else:
        df.to_parquet(f)
    s = read_item_scores(f)
    assert s.to_dict() == {"q3": 0.25, "q1": 0.75}


def test_table_bad_value_names_line(tmp_path):
    f = tmp_path / "s.csv"
    f.write_text("item,value\nq1,0.5\nq2,oops\n")
    with pytest.raises(InputError, match=r"s\.csv:3: bad 'value' value 'oops'"):
        read_item_scores(f)


def test_table_duplicate_item_names_lines(tmp_path):
    f = tmp_path / "s.csv"
    f.write_text("item,value\nq1,0.5\nq1,0.7\n")
    with pytest.raises(InputError, match=r"duplicate item id 'q1' \(lines 2, 3\)"):
        read_item_scores(f)


@pytest.mark.parametrize("text, where, what", [
    ("dataset,system,item,value\nrte,bert,1,1\nrte,distilbert,,0\n", ":3", "empty 'item'"),
    ("dataset,system,item,value\nrte,bert,1,1\nrte,\t,1,0\nrte,x,2,0\n", ":3",
     "blank ('\\t') 'system'"),
    ("dataset,system,metric,item,value\nrte,bert,acc,1,1\nrte,bert, ,2,0\n", ":3",
     "blank (' ') 'metric'"),
    ("dataset,system,item,value,seed\nrte,bert,1,1,0\nrte,bert,1,1,\n", ":3", "empty 'seed'"),
])
def test_blank_id_names_file_line_and_column(tmp_path, text, where, what):
    f = tmp_path / "s.csv"
    f.write_text(text)
    with pytest.raises(InputError) as info:
        read_scores(f)
    assert str(info.value).startswith(f"{f}{where}: {what}")


def test_blank_id_jsonl_and_parquet(tmp_path):
    f = tmp_path / "s.jsonl"
    f.write_text('{"dataset": "d", "system": "a", "item": "1", "value": 1}\n\n'
                 '{"dataset": "d", "system": "a", "item": "", "value": 1}\n'
                 '{"dataset": "d", "system": "a", "value": 1}\n')
    with pytest.raises(InputError, match=r"s\.jsonl:3: empty 'item' \(.*; 2 such rows\)"):
        read_scores(f)
    p = tmp_path / "s.parquet"
    pd.DataFrame({"dataset": ["d", " "], "system": ["a", "a"], "item": ["1", "2"],
                  "value": [1.0, 2.0]}).to_parquet(p)
    with pytest.raises(InputError, match=r"s\.parquet, row 2: blank \(' '\) 'dataset'"):
        read_scores(p)
    with pytest.raises(InputError, match=r"s\.parquet, row 2: blank \(' '\) 'dataset'"):
        read_scores([f.with_name("ok.csv"), p][1:])


def test_blank_item_in_a_system_file(tmp_path):
    f = tmp_path / "s.tsv"
    f.write_text("item\tvalue\nq1\t0.5\n \t0.7\n")
    with pytest.raises(InputError, match=r"s\.tsv:3: blank \(' '\) 'item'"):
        read_item_scores(f)


def test_duplicate_rows_name_their_lines(tmp_path):
    f = tmp_path / "s.csv"
    f.write_text("dataset,system,item,value\nd,a,1,1\nd,b,1,1\nd,a,1,2\n")
    with pytest.raises(InputError, match=r"s\.csv:2: 2 rows share a key \(dataset, system, "
                       r"metric, item\): d/a/score/1 on lines 2, 4"):
        read_scores(f)
    p = tmp_path / "s.parquet"
    pd.read_csv(f).astype(str).to_parquet(p)
    with pytest.raises(InputError, match=r"s\.parquet, row 1: .* on rows 1, 3"):
        read_scores(p)


def test_table_missing_column(tmp_path):
    f = tmp_path / "s.csv"
    f.write_text("id,score\nq1,0.5\n")
    with pytest.raises(InputError, match="no column 'item'"):
        read_item_scores(f)


def test_unknown_file_type(tmp_path):
    f = tmp_path / "s.xlsx"
    f.write_text("x")
    with pytest.raises(InputError, match="unknown file type"):
        read_item_scores(f)


def test_read_scores_tidy_table(tmp_path):
    f = tmp_path / "all.csv"
    f.write_text("dataset,system,item,value\nd,A,1,0.5\nd,B,1,0.7\n")
    assert read_scores(f).systems == ("A", "B")
    g = tmp_path / "bad.csv"
    g.write_text("dataset,system,item,value\nd,A,1,0.5\nd,A,1,0.7\n")
    with pytest.raises(InputError, match=r"bad\.csv"):
        read_scores(g)


def _experiment(tmp_path, body: str):
    (tmp_path / "data").mkdir(exist_ok=True)
    for sys_ in ("a", "b"):
        for task in ("t1", "t2"):
            (tmp_path / "data" / f"{sys_}_{task}.txt").write_text("1\n0\n1\n1\n0\n")
    f = tmp_path / "exp.yaml"
    f.write_text(body)
    return f


GOOD = """
control: a
treatment: b
measure: MD
tasks:
  - {id: t1, name: Task one}
  - t2
systems:
  a: {name: System A, files: {t1: data/a_t1.txt, t2: data/a_t2.txt}}
  b: {files: {t1: data/b_t1.txt, t2: data/b_t2.txt}}
"""


def test_experiment_paths_are_relative_to_yaml(tmp_path, monkeypatch):
    f = _experiment(tmp_path, GOOD)
    monkeypatch.chdir("/")
    exp = load_experiment(f)
    assert exp.task_labels == {"t1": "Task one", "t2": "t2"}
    assert exp.system_label("a") == "System A" and exp.system_label("b") == "b"
    s = collect_scores(exp).scores
    assert s.datasets == ("t1", "t2") and len(s) == 20


def test_experiment_overrides(tmp_path):
    exp = load_experiment(_experiment(tmp_path, GOOD), method="DL", level=0.9)
    assert exp.config.method == "DL" and exp.config.level == 0.9


@pytest.mark.parametrize(
    ("body", "pattern"),
    [
        (GOOD + "colour: red\n", r"colour: unknown key"),
        (GOOD.replace("measure: MD", "measure: XYZ"), r"measure: unknown effect measure 'XYZ'; "
                                                      r"use one of MD, SMD"),
        (GOOD + "method: FOO\n", r"method: unknown τ² estimator 'FOO'; use one of FE"),
        (GOOD + "level: 1.5\n", r"level: must be strictly between 0 and 1 \(e\.g\. 0\.95\); "
                                r"got 1\.5"),
        (GOOD.replace("control: a", "control: c"), r"control: system 'c' is not defined"),
        (GOOD.replace("t2: data/a_t2.txt", "t3: data/a_t2.txt"), r"systems.a.files: unknown task id\(s\) t3"),
        (GOOD.replace("  - t2\n", "  - t1\n"), r"duplicate task id"),
        ("control: a\ntreatment: b\ntasks: []\nsystems: {}\n", r"tasks: empty task list"),
        (GOOD.replace("treatment: b", "treatment: a"), r"treatment: must differ from control"),
        (GOOD.replace("tasks:", "tasks: 3\nx:"), r"tasks: Input should be a valid list"),
        (GOOD.replace("{name: System A, files", "{nmae: System A, files"), r"systems.a.nmae: unknown key"),
    ],
)
def test_bad_yaml_keys_are_named(tmp_path, body, pattern):
    f = _experiment(tmp_path, body)
    with pytest.raises(ConfigError, match=pattern) as info:
        load_experiment(f)
    assert "exp.yaml" in str(info.value)


def test_invalid_yaml_syntax_names_line(tmp_path):
    f = tmp_path / "exp.yaml"
    f.write_text("control: a\ntreatment: [b\n")
    with pytest.raises(ConfigError, match=r"exp\.yaml:\d+: invalid YAML"):
        load_experiment(f)


def test_missing_yaml_and_missing_score_file(tmp_path):
    with pytest.raises(ConfigError, match="file not found"):
        load_experiment(tmp_path / "none.yaml")
    f = _experiment(tmp_path, GOOD)
    (tmp_path / "data" / "b_t2.txt").unlink()
    with pytest.raises(InputError, match=r"b_t2\.txt: file not found"):
        collect_scores(load_experiment(f))


def test_meta_needs_control_and_treatment(tmp_path):
    from ranger_eval.pipeline import run_experiment

    exp = load_experiment(_experiment(tmp_path, GOOD.replace("treatment: b", "")))
    with pytest.raises(ConfigError, match=r"exp\.yaml: treatment: required for the meta-analysis"):
        run_experiment(exp)


def test_missing_file_for_a_task_is_reported(tmp_path):
    body = GOOD.replace("  b: {files: {t1: data/b_t1.txt, t2: data/b_t2.txt}}",
                        "  b: {files: {t1: data/b_t1.txt}}")
    with pytest.warns(UserWarning, match=r"skipped task\(s\): t2 \(no file for b\)"):
        collected = collect_scores(load_experiment(_experiment(tmp_path, body)))
    assert collected.skipped == {"t2": "no file for b"}
    assert collected.scores.datasets == ("t1",)


def test_meta_on_a_tidy_table_with_several_metrics_uses_the_config_metric(tmp_path):
    from ranger_eval.pipeline import run_experiment

    rng = np.random.default_rng(1)
    rows = []
    for dataset in ("d1", "d2"):
        for metric in ("acc", "f1"):
            for system, shift in (("a", 0.0), ("b", 0.1 if metric == "acc" else -0.1)):
                for item in range(30):
                    rows.append((dataset, system, metric, str(item), rng.normal() + shift + item / 30))
    pd.DataFrame(rows, columns=["dataset", "system", "metric", "item", "value"]).to_csv(
        tmp_path / "all.csv", index=False
    )
    (tmp_path / "e.yaml").write_text("control: a\ntreatment: b\nmeasure: MD\nmetric: f1\nscores: all.csv\n")
    res = run_experiment(load_experiment(tmp_path / "e.yaml"))
    assert res.effects.metric == "f1" and res.effects.names == ("d1", "d2")
    assert res.result.k == 2


def test_yaml_duplicate_keys_special_files_and_utf16_are_rejected(tmp_path):
    import os

    dup = tmp_path / "dup.yaml"
    dup.write_text("metric: a\nlevel: 0.9\nmetric: b\n")
    with pytest.raises(ConfigError, match=r"dup\.yaml:3: .*duplicate key 'metric' \(first at line 1"):
        load_experiment(dup)
    nested = tmp_path / "nested.yaml"
    nested.write_text("meta:\n  control: {a: {b: 1}}\n  control: x\n")
    with pytest.raises(ConfigError, match="duplicate key 'control'"):
        load_experiment(nested)
    utf16 = tmp_path / "u16.yaml"
    utf16.write_bytes("metric: a\n".encode("utf-16"))
    with pytest.raises(ConfigError, match=r"u16\.yaml: the file is UTF-16 little-endian encoded.*UTF-8"):
        load_experiment(utf16)
    fifo = tmp_path / "pipe.txt"
    os.mkfifo(fifo)
    with pytest.raises(InputError, match="is a FIFO"):
        read_values(fifo)
    with pytest.raises(ConfigError, match="is a FIFO"):
        load_experiment(fifo)
    # a folder is read as a folder of logs; here nothing in it is one, and each skip is named
    with pytest.raises(InputError, match=r"no evaluation log or score table in this folder; "
                                         r"skipped 4: dup\.yaml .*pipe\.txt \(is a FIFO"):
        read_scores(tmp_path)
    with pytest.raises(InputError, match="is a device"):
        read_values("/dev/zero")


def test_identifiers_are_read_as_the_exact_strings(tmp_path):
    path = tmp_path / "t.csv"
    path.write_text("dataset,system,item,value\nd,a,01,1\nd,a,1,2\nd,a,NA,3\nd,a,null,4\n"
                    "d,b,01,1\nd,b,1,2\nd,b,NA,3\nd,b,null,4\n")
    s = read_scores(path)
    assert sorted(s.frame["item"].unique()) == ["01", "1", "NA", "null"]
    jl = tmp_path / "t.jsonl"
    jl.write_text('{"dataset": "d", "system": "a", "item": "01", "value": 1}\n'
                  '{"dataset": "d", "system": "a", "item": 1, "value": 2}\n')
    assert sorted(read_scores(jl).frame["item"]) == ["01", "1"]
