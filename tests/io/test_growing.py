"""Logs still being written (ranger_eval.io.growing): only complete records, in the log's order."""
from __future__ import annotations

import json
import shutil
import zipfile
from pathlib import Path

import pytest

from ranger_eval.errors import InputError
from ranger_eval.io.adapters.inspectai import _member
from ranger_eval.io.growing import complete_text, eval_member_order, read_growing

ORACLES = Path(__file__).resolve().parents[1] / "oracles"


def test_partial_csv_line_is_ignored_with_a_warning_never_misread(tmp_path: Path) -> None:
    path = tmp_path / "log.csv"
    path.write_text("dataset,system,item,value\nqa,A,q1,1\nqa,B,q1,0.25\nqa,A,q2,0.")
    with pytest.warns(UserWarning, match=r"log.csv: line 4 is incomplete \(10 bytes"):
        scores = read_growing(path)
    frame = scores.raw_frame
    assert list(frame["item"]) == ["q1", "q1"]
    assert list(frame["value"]) == [1.0, 0.25]
    path.write_text(path.read_text() + "75\n")  # the line is completed
    frame = read_growing(path).raw_frame
    assert frame.loc[frame["item"] == "q2", "value"].tolist() == [0.75]


def test_complete_text_of_a_finished_file_has_nothing_left(tmp_path: Path) -> None:
    path = tmp_path / "log.csv"
    path.write_bytes(b"a,b\n1,2\n")
    assert complete_text(path) == (b"a,b\n1,2\n", 0)


def test_malformed_complete_line_names_the_file_not_a_temporary_copy(tmp_path: Path) -> None:
    path = tmp_path / "log.csv"
    path.write_text("dataset,system,item,value\nqa,A,q1,abc\n")
    with pytest.raises(InputError) as err:
        read_growing(path)
    assert str(path) in str(err.value) and "ranger-growing-" not in str(err.value)


def _lmeval_line(doc: int, acc: float) -> str:
    return json.dumps({"doc_id": doc, "doc": {"q": doc}, "target": "x", "filter": "none",
                       "metrics": ["acc"], "acc": acc, "resps": [], "filtered_resps": []})


def test_lmeval_samples_without_results_file_read_line_by_line(tmp_path: Path) -> None:
    for model, accs in (("base", [0, 1, 0]), ("tuned", [1, 1, 1])):
        folder = tmp_path / model
        folder.mkdir()
        text = "\n".join(_lmeval_line(i, a) for i, a in enumerate(accs)) + "\n"
        text += _lmeval_line(3, 1)[:25]  # the harness is writing line 4
        (folder / "samples_arc_2024-01-01T00-00-00.jsonl").write_text(text)
    with pytest.warns(UserWarning, match="line 4 is incomplete"):
        scores = read_growing(sorted(tmp_path.glob("*/samples_*.jsonl")))
    assert scores.systems == ("base", "tuned")
    assert scores.datasets == ("arc",) and scores.metrics == ("acc",)
    frame = scores.raw_frame
    assert frame.loc[frame["system"] == "tuned", "value"].tolist() == [1.0, 1.0, 1.0]


def test_inspect_eval_samples_in_archive_order(tmp_path: Path) -> None:
    source = ORACLES / "inspect_systems" / "eval" / "cot.eval"
    order = eval_member_order(source)
    assert len(order) == 12
    # rewrite the archive with the members in reverse sample order (as a run completing them
    # in that order would): the scores follow the archive, not the names
    path = tmp_path / "cot.eval"
    with zipfile.ZipFile(source) as zin, zipfile.ZipFile(path, "w",
                                                         zipfile.ZIP_DEFLATED) as zout:
        names = zin.namelist()
        samples = [n for n in names if n.startswith("samples/")]
        for name in [n for n in names if n not in samples] + samples[::-1]:
            zout.writestr(name, _member(zin, source, name))  # Inspect's members are zstd
    items = list(dict.fromkeys(read_growing(path).raw_frame["item"]))
    assert items == eval_member_order(path) == order[::-1]


def test_unreadable_archive_is_an_input_error(tmp_path: Path) -> None:
    path = tmp_path / "half.eval"
    shutil.copy(ORACLES / "inspect_systems" / "eval" / "cot.eval", path)
    path.write_bytes(path.read_bytes()[:200])
    with pytest.raises(InputError):
        read_growing(path)
