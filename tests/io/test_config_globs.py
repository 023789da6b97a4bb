"""Wildcards in the input paths of an experiment YAML: expanded relative to the YAML,
sorted, an error naming the key and the pattern when nothing matches, duplicates rejected."""
from __future__ import annotations

from pathlib import Path

import pytest

from ranger_eval.errors import ConfigError
from ranger_eval.io import load_experiment, read_scores


def _tables(folder: Path, systems: list[str]) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for s in systems:
        (folder / f"{s}.jsonl").write_text(
            "".join(f'{{"dataset": "d", "system": "{s}", "item": "0{i}", "value": {i}}}\n'
                    for i in range(3)))


def test_scores_pattern_expands_relative_to_the_yaml_sorted(tmp_path: Path) -> None:
    _tables(tmp_path / "runs", ["c", "a", "b"])
    (tmp_path / "runs" / "notes.txt").write_text("not matched\n")
    cfg = tmp_path / "exp.yaml"
    cfg.write_text("scores: runs/*.jsonl\n")
    exp = load_experiment(cfg)
    assert [p.name for p in exp.scores_paths] == ["a.jsonl", "b.jsonl", "c.jsonl"]
    assert all(p.is_absolute() and p.parent == (tmp_path / "runs").resolve()
               for p in exp.scores_paths)
    scores = read_scores(exp.scores_paths)
    assert sorted(scores.systems) == ["a", "b", "c"]
    assert sorted(scores.frame["item"].unique()) == ["00", "01", "02"]


def test_scores_single_match_and_literal_paths_stay_one_path(tmp_path: Path) -> None:
    _tables(tmp_path / "runs", ["a"])
    cfg = tmp_path / "exp.yaml"
    cfg.write_text("scores: runs/a*.jsonl\n")
    exp = load_experiment(cfg)
    assert isinstance(exp.config.scores, str)
    assert exp.path(exp.config.scores) == (tmp_path / "runs" / "a.jsonl").resolve()
    odd = tmp_path / "runs" / "x[1].jsonl"  # a real file whose name looks like a pattern
    odd.write_text('{"dataset": "d", "system": "x", "item": "1", "value": 1}\n')
    cfg.write_text("scores: runs/x[1].jsonl\n")
    assert load_experiment(cfg).scores_paths == [odd.resolve()]


def test_scores_list_of_patterns_and_recursive_pattern(tmp_path: Path) -> None:
    _tables(tmp_path / "runs" / "bm25", ["a"])
    _tables(tmp_path / "runs" / "dense", ["b", "c"])
    cfg = tmp_path / "exp.yaml"
    cfg.write_text("scores: ['runs/dense/*.jsonl', runs/bm25/a.jsonl]\n")
    names = [p.name for p in load_experiment(cfg).scores_paths]
    assert names == ["b.jsonl", "c.jsonl", "a.jsonl"]  # sorted within a pattern, in list order
    cfg.write_text("scores: 'runs/**/*.jsonl'\n")
    names = [p.relative_to(tmp_path.resolve() / "runs").as_posix()
             for p in load_experiment(cfg).scores_paths]
    assert names == ["bm25/a.jsonl", "dense/b.jsonl", "dense/c.jsonl"]


def test_pattern_without_match_names_the_key_and_pattern(tmp_path: Path) -> None:
    cfg = tmp_path / "exp.yaml"
    cfg.write_text("scores: runs/*.jsonl\n")
    with pytest.raises(ConfigError, match=rf"{cfg}: scores: pattern 'runs/\*\.jsonl' matches no "
                                          r"file"):
        load_experiment(cfg)
    _tables(tmp_path / "runs", ["a"])
    cfg.write_text("scores: [runs/*.jsonl, 'other/*.csv']\n")
    with pytest.raises(ConfigError, match=r"scores\[1\]: pattern 'other/\*\.csv' matches no file"):
        load_experiment(cfg)


def test_duplicate_files_are_rejected(tmp_path: Path) -> None:
    _tables(tmp_path / "runs", ["a", "b"])
    cfg = tmp_path / "exp.yaml"
    cfg.write_text("scores: [runs/*.jsonl, runs/a.jsonl]\n")
    with pytest.raises(ConfigError, match=r"scores\[1\]: runs/a\.jsonl is given twice \(also by "
                                          r"'runs/\*\.jsonl'\)"):
        load_experiment(cfg)
    with pytest.raises(Exception, match="given twice"):
        read_scores([tmp_path / "runs" / "a.jsonl", tmp_path / "runs" / ".." / "runs" / "a.jsonl"])


def test_single_file_keys_take_a_pattern_matching_one_file(tmp_path: Path) -> None:
    for s in ("a", "b"):
        (tmp_path / f"{s}_t1_2024.txt").write_text("1\n0\n1\n")
    cfg = tmp_path / "exp.yaml"
    cfg.write_text("tasks: [t1]\nsystems:\n  a: {files: {t1: 'a_t1_*.txt'}}\n"
                   "  b: {files: {t1: 'b_t1_*.txt'}}\n")
    exp = load_experiment(cfg)
    assert exp.path(exp.config.systems["a"].files["t1"]) == (tmp_path / "a_t1_2024.txt").resolve()
    cfg.write_text("tasks: [t1]\nsystems:\n  a: {files: {t1: '*_t1_*.txt'}}\n")
    with pytest.raises(ConfigError, match=r"systems\.a\.files\.t1: pattern '\*_t1_\*\.txt' "
                                          r"matches 2 files .*names one file"):
        load_experiment(cfg)
    cfg.write_text("tasks: [{id: c, qrels: 'q*.txt'}]\nsystems: {}\n")
    with pytest.raises(ConfigError, match=r"tasks\[0\]\.qrels: pattern 'q\*\.txt' matches no file"):
        load_experiment(cfg)
    cfg.write_text("qrels: {c: 'q*.txt'}\n")
    with pytest.raises(ConfigError, match=r"qrels\.c: pattern 'q\*\.txt' matches no file"):
        load_experiment(cfg)
