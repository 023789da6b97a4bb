"""Folder trees of logs (:mod:`ranger_eval.io.logtree`): read recursively, systems
from the logs' own metadata, retried runs, duplicates refused, skips named and counted.

The Inspect tree is tests/oracles/inspect_tree/logs (make_inspect_logs_tree.py: real logs of
inspect_ai on mock models); the lm-eval tree is tests/oracles/lmeval_logs (lm-eval's
``<output_path>/<model>/results_<date>.json`` + ``samples_<task>_<date>.jsonl``)."""
from __future__ import annotations

import json
import shutil
import warnings
from pathlib import Path

import pytest

from ranger_eval.errors import InputError
from ranger_eval.io import read_scores
from ranger_eval.io.adapters import read_adapter
from ranger_eval.io.logtree import read_log_tree, recording_log_trees

ORACLES = Path(__file__).resolve().parents[1] / "oracles"
TREE = ORACLES / "inspect_tree" / "logs"
LMEVAL = ORACLES / "lmeval_logs"
RETRIED = "beta-runs/2026-01-05T11-00-00_yesno_beta.eval"
FINISHED = "beta-runs/2026-01-05T11-30-00_yesno_beta.json"


def _quiet_tree(path: Path, **options: object):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return read_log_tree(path, **options)


def test_a_tree_is_read_recursively_with_systems_from_the_logs_not_the_folders():
    tree = _quiet_tree(TREE)
    s = tree.scores
    # folders are alpha-runs/ and beta-runs/: the systems are the logs' eval.model
    assert set(s.systems) == {"mockllm/alpha", "mockllm/beta"}
    assert set(s.datasets) == {"yesno", "parity"}
    assert [t.path.relative_to(TREE).as_posix() for t in tree.taken] == [
        "alpha-runs/2026-01-05T10-00-00_yesno_alpha.eval",
        "alpha-runs/2026-01-05T10-05-00_parity_alpha.eval",
        FINISHED,
        "beta-runs/2026-01-05T11-35-00_parity_beta.eval",
    ]
    assert {t.format for t in tree.taken} == {"inspect"}
    # every model × task has its 12 samples, each value as the log's own reader gives it
    assert s.frame.groupby(["system", "dataset"]).size().tolist() == [12, 12, 12, 12]
    alone = read_adapter(TREE / FINISHED).frame.sort_values("item")["value"].tolist()
    mine = s.frame[(s.frame["system"] == "mockllm/beta") & (s.frame["dataset"] == "yesno")]
    assert mine.sort_values("item")["value"].tolist() == alone


def test_an_unfinished_run_is_superseded_by_its_finished_retry_and_says_so():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        tree = read_log_tree(TREE)
    (skip,) = tree.skipped
    assert skip.path == TREE / RETRIED
    assert skip.reason == (
        f"an unfinished run (its log status is not 'success') of mockllm/beta on yesno; "
        f"{FINISHED} holds the finished run (a retried run: the finished log is read)")
    # the unfinished log's own notes ("log status is 'error'") are not passed on: it is not used
    assert not any("log status is 'error'" in str(w.message) for w in caught)
    assert tree.to_dict()["skipped"] == [{"file": RETRIED, "reason": skip.reason}]
    # read_scores warns once, counting the skip and naming it
    with pytest.warns(UserWarning, match=r"logs: read 4 input\(s\) \(system\(s\) mockllm/alpha, "
                                         r"mockllm/beta\); skipped 1: beta-runs/.*_yesno_beta"
                                         r"\.eval \(an unfinished run"):
        read_scores(TREE)


def test_the_same_model_and_task_twice_is_refused_naming_both_files(tmp_path):
    root = tmp_path / "logs"
    shutil.copytree(TREE / "alpha-runs", root / "alpha")
    (root / "alpha-again").mkdir()
    shutil.copy(TREE / "alpha-runs" / "2026-01-05T10-00-00_yesno_alpha.eval",
                root / "alpha-again" / "2026-01-06T09-00-00_yesno_alpha.eval")
    with pytest.raises(InputError, match=r"alpha/2026-01-05T10-00-00_yesno_alpha\.eval and "
                                         r".*alpha-again/2026-01-06T09-00-00_yesno_alpha\.eval "
                                         r"both hold dataset 'yesno', system 'mockllm/alpha'.*"
                                         r"--system-from"):
        read_scores(root)
    # named apart, both are read
    s = read_scores(root, system_from="file")
    assert len(s.systems) == 3


def test_unreadable_logs_and_other_files_are_skipped_with_their_reason(tmp_path):
    root = tmp_path / "logs"
    shutil.copytree(TREE, root)
    good = root / "alpha-runs" / "2026-01-05T10-00-00_yesno_alpha.eval"
    (root / "alpha-runs" / "cut.eval").write_bytes(good.read_bytes()[:2000])
    (root / "beta-runs" / "broken.json").write_text('{"version": 2, "status": "success", '
                                                    '"eval": {"task": "yesno", "model": "x"}, '
                                                    '"samples": [{"id": ')
    (root / "notes").mkdir()
    (root / "notes" / "todo.txt").write_text("rerun beta\n")
    (root / ".cache").mkdir()
    tree = _quiet_tree(root)
    assert len(tree.taken) == 4 and set(tree.scores.systems) == {"mockllm/alpha", "mockllm/beta"}
    reasons = {s.path.relative_to(root).as_posix(): s.reason for s in tree.skipped}
    assert set(reasons) == {".cache", "alpha-runs/cut.eval", "beta-runs/broken.json",
                            "notes/todo.txt", RETRIED}
    assert reasons[".cache"] == "hidden"
    assert reasons["alpha-runs/cut.eval"].startswith("not a readable .eval archive")
    assert "incomplete" in reasons["beta-runs/broken.json"]
    assert reasons["notes/todo.txt"] == "not an evaluation log an adapter reads, nor a table"
    with pytest.warns(UserWarning, match=r"read 4 input\(s\) .*skipped 5: \.cache \(hidden\); "
                                         r"alpha-runs/cut\.eval \(not a readable"):
        read_scores(root)


def test_a_log_that_reads_but_not_with_the_callers_options_is_an_error_not_a_skip():
    # the logs have no sample metadata 'passage': the option is wrong, not the logs
    with pytest.raises(InputError, match=r"no metadata field 'passage'"):
        _quiet_tree(TREE, cluster="passage")


def test_empty_trees_are_errors_naming_the_folder(tmp_path):
    with pytest.raises(InputError, match=rf"{tmp_path}: no evaluation log or score table in "
                                         r"this folder \(it is empty\)"):
        read_scores(tmp_path)
    (tmp_path / "a" / "b").mkdir(parents=True)
    (tmp_path / "a" / "b" / "readme.md").write_text("nothing here\n")
    with pytest.raises(InputError, match=r"no evaluation log or score table in this folder; "
                                         r"skipped 1: a/b/readme\.md \(not an evaluation log"):
        read_scores(tmp_path)


def test_a_log_without_a_model_takes_its_folder_name_with_a_warning(tmp_path):
    log = json.loads((TREE / FINISHED).read_text())
    del log["eval"]["model"]
    (tmp_path / "gamma").mkdir()
    (tmp_path / "gamma" / "run.json").write_text(json.dumps(log))
    shutil.copytree(TREE / "alpha-runs", tmp_path / "alpha")
    with pytest.warns(UserWarning, match=r"run\.json: the log names no model \(eval\.model\): "
                                         r"system 'gamma' from its folder"):
        s = read_scores(tmp_path)
    assert set(s.systems) == {"mockllm/alpha", "gamma"}
    # a single log read on its own still needs its model
    with pytest.raises(InputError, match=r"'eval\.task' or 'eval\.model' missing"):
        read_scores(tmp_path / "gamma" / "run.json")


def test_lmeval_output_tree_results_files_take_their_samples_files():
    tree = _quiet_tree(LMEVAL)
    assert set(tree.scores.systems) == {"dummy-a", "dummy-b"}
    assert [t.format for t in tree.taken] == ["lm-eval", "lm-eval"]
    a = tree.taken[0]
    assert a.path.name.startswith("results_")
    assert sorted(p.name.split("_2026")[0] for p in a.parts) == [
        "samples_ranger_gen", "samples_ranger_lambada", "samples_ranger_rolling",
        "samples_ranger_yesno"]
    assert [(s.path.name, s.reason) for s in tree.skipped] == [
        ("VERSION", "not an evaluation log an adapter reads, nor a table")]
    listed = tree.to_dict()
    assert listed["n_read"] == 2 and listed["read"][0]["parts"][0].startswith("dummy-a/dummy-a/")


def test_lmeval_retried_run_is_refused_naming_both_results_files(tmp_path):
    root = tmp_path / "out"
    shutil.copytree(LMEVAL / "dummy-a", root / "dummy-a")
    run = root / "dummy-a" / "dummy-a"
    stamp_old = next(run.glob("results_*.json")).name[len("results_"):-len(".json")]
    stamp_new = "2026-11-26T08-00-00.000000"
    for p in list(run.iterdir()):
        shutil.copy(p, p.with_name(p.name.replace(stamp_old, stamp_new)))
    with pytest.raises(InputError, match=rf"results_{stamp_old}\.json and .*results_{stamp_new}"
                                         r"\.json both hold dataset"):
        _quiet_tree(root)


def test_recording_collects_the_trees_read_inside_the_block():
    with recording_log_trees() as trees, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        read_scores(TREE)
        read_scores(TREE / FINISHED)  # a single log is no tree
    assert [t.folder for t in trees] == [TREE]


def test_the_guide_tree_is_the_oracle_tree():
    """docs/guide/data/inspect-tree/logs is a copy of the generated tree (make_inspect_logs_tree.py)."""
    guide = Path(__file__).resolve().parents[2] / "docs" / "guide" / "data" / "inspect-tree" / "logs"
    ours = sorted(p.relative_to(TREE) for p in TREE.rglob("*") if p.is_file())
    assert ours == sorted(p.relative_to(guide) for p in guide.rglob("*") if p.is_file())
    for rel in ours:
        assert (TREE / rel).read_bytes() == (guide / rel).read_bytes(), rel
