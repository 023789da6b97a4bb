"""Resource limits of every reader in ranger_eval.io: inputs that are not regular files, a gzip
bomb and over-long lines are rejected at once, naming the file, in bounded memory.

"At once" is checked with a generous pytest-timeout (the readers stop within a second here; the
timeout only catches a hang), never with a timing assertion. Memory is measured with
tracemalloc against a generous bound: reading the whole input would need gigabytes.
"""
from __future__ import annotations

import gzip
import os
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from ranger_eval.errors import ConfigError, InputError, RangerError
from ranger_eval.io import load_experiment, read_item_scores, read_scores, read_values
from ranger_eval.io.adapters import load_adapter
from ranger_eval.io.files import Limits, current_limits, limits, open_text
from ranger_eval.io.tables import read_table

MEMORY_BOUND = 64 * 2**20  # bytes; the bombs below are 10 GB, the long line 20 MB

#: reader name -> (file name to use, function reading it)
READERS: dict[str, tuple[str, Callable[[Path], Any]]] = {
    "values": ("s.txt", read_values),
    "item-scores-csv": ("s.csv", read_item_scores),
    "table-csv": ("t.csv", read_table),
    "table-tsv": ("t.tsv", read_table),
    "table-jsonl": ("t.jsonl", read_table),
    "scores-auto": ("t.csv", read_scores),
    "pyterrier": ("p.csv", lambda p: load_adapter(p, "pyterrier")),
    "trec-eval-q": ("q.txt", lambda p: load_adapter(p, "trec-eval-q")),
    "tsml": ("r.csv", lambda p: load_adapter(p, "tsml")),
    "lm-eval-json": ("results.json", lambda p: load_adapter(p, "lm-eval")),
    "inspect-json": ("log.json", lambda p: load_adapter(p, "inspect")),
    "helm-json": ("per_instance_stats.json", lambda p: load_adapter(p, "helm")),
    "beir-json": ("run.json", lambda p: load_adapter(p, "beir")),
    "yaml": ("exp.yaml", load_experiment),
}


def _rejected(read: Callable[[Path], Any], path: Path, *words: str) -> str:
    """Read ``path``: a RangerError naming the file, in bounded memory; its message."""
    tracemalloc.start()
    try:
        with pytest.raises(RangerError) as info:
            read(path)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    msg = str(info.value)
    assert str(path) in msg or path.name in msg, msg
    for w in words:
        assert w in msg, msg
    assert len(msg.splitlines()) < 10
    assert peak < MEMORY_BOUND, f"peak {peak} bytes"
    return msg


@pytest.fixture(scope="module")
def zeros_bomb(tmp_path_factory: pytest.TempPathFactory) -> bytes:
    """10 GiB of zero bytes, gzip-compressed: one 16 MiB member repeated 640 times (a valid
    multi-member gzip file of ~10 MB, built in milliseconds)."""
    member = gzip.compress(b"\0" * (16 * 2**20), compresslevel=9)
    return member * 640


@pytest.fixture(scope="module")
def newline_bomb() -> bytes:
    """~10 GB of "0\\n" lines (valid text, so only the size/ratio limits stop it)."""
    member = gzip.compress(b"0\n" * (8 * 2**20), compresslevel=9)
    return member * 640


@pytest.mark.timeout(20)
@pytest.mark.parametrize("name", sorted(READERS))
def test_fifo_is_rejected_without_hanging(tmp_path: Path, name: str) -> None:
    fname, read = READERS[name]
    fifo = tmp_path / fname
    os.mkfifo(fifo)
    _rejected(read, fifo, "FIFO")


@pytest.mark.timeout(20)
@pytest.mark.parametrize("name", sorted(READERS))
def test_directory_and_device_are_rejected(tmp_path: Path, name: str) -> None:
    fname, read = READERS[name]
    if name not in ("helm-json", "lm-eval-json"):  # those read run folders by design
        folder = tmp_path / fname
        folder.mkdir()
        _rejected(read, folder, "folder")
    link = tmp_path / ("zero-" + fname)
    link.symlink_to("/dev/zero")
    _rejected(read, link, "device")


@pytest.mark.timeout(20)
@pytest.mark.parametrize("name", sorted(READERS))
def test_gzip_bomb_without_newlines_is_rejected(tmp_path: Path, zeros_bomb: bytes,
                                                name: str) -> None:
    fname, read = READERS[name]
    p = tmp_path / fname
    p.write_bytes(zeros_bomb)
    _rejected(read, p)


@pytest.mark.timeout(20)
@pytest.mark.parametrize("name", [pytest.param("values", marks=pytest.mark.slow), "table-csv",
                                  "table-jsonl", "trec-eval-q", "inspect-json", "yaml"])
def test_gzip_bomb_of_valid_lines_is_rejected_by_its_ratio(tmp_path: Path, newline_bomb: bytes,
                                                           name: str) -> None:
    fname, read = READERS[name]
    p = tmp_path / fname
    p.write_bytes(newline_bomb)
    _rejected(read, p)


def test_decompressed_size_limit_is_configurable(tmp_path: Path) -> None:
    p = tmp_path / "s.txt.gz"
    p.write_bytes(gzip.compress(b"".join(b"%d\n" % i for i in range(200_000))))
    assert read_values(p).size == 200_000
    with limits(max_decompressed_bytes=100_000):
        _rejected(read_values, p, "decompresses to more than 100000 bytes")
    with limits(max_ratio=1.5, ratio_after_bytes=1000):
        _rejected(read_values, p, "decompression bomb", "RANGER_EVAL_MAX_RATIO")
    assert read_values(p).size == 200_000


@pytest.mark.timeout(20)
@pytest.mark.parametrize("name", ["values", "item-scores-csv", "table-csv", "table-tsv",
                                  "pyterrier", "trec-eval-q", "tsml", "yaml"])
def test_20_mb_line_is_rejected_naming_the_line(tmp_path: Path, name: str) -> None:
    fname, read = READERS[name]
    p = tmp_path / fname
    first = {"values": b"1", "pyterrier": b"name,qid,measure,value", "trec-eval-q": b"map\t1\t1",
             "tsml": b"d,e,test,0,MILLISECONDS", "yaml": b"title: x"}.get(name, b"item,value")
    with p.open("wb") as fh:
        fh.write(first + b"\n")
        for _ in range(20):
            fh.write(b"x" * 2**20)
        fh.write(b"\n")
    msg = _rejected(read, p, ":2: line longer than", "RANGER_EVAL_MAX_LINE_LENGTH")
    assert msg.startswith(str(p))


@pytest.mark.timeout(20)
@pytest.mark.parametrize("name", ["table-jsonl", "inspect-json", "beir-json", "helm-json"])
def test_json_record_over_the_limit_is_rejected(tmp_path: Path, name: str) -> None:
    fname, read = READERS[name]
    p = tmp_path / fname
    big = "x" * (3 * 2**20)
    if name == "table-jsonl":
        p.write_text('{"item": "1", "value": 1}\n{"item": "' + big + '"}\n')
    elif name == "helm-json":
        (tmp_path / "run_spec.json").write_text('{"name": "mmlu", "adapter_spec": {"model": "m"}}')
        p.write_text('[{"instance_id": "' + big + '", "stats": []}]')
    else:
        p.write_text('{"a": {"b": "' + big + '"}}')
    with limits(max_record_length=2**20):
        _rejected(read, p, "longer than 1048576 characters")


@pytest.mark.parametrize("name", ["table-jsonl", "beir-json", "inspect-json", "helm-json",
                                  "lm-eval-json", "yaml"])
@pytest.mark.parametrize("depth", [150, 50_000])
def test_deep_nesting_is_an_error_not_a_recursion_error(tmp_path: Path, name: str,
                                                        depth: int) -> None:
    fname, read = READERS[name]
    p = tmp_path / fname
    deep = "[" * depth + "]" * depth
    if name == "table-jsonl":
        p.write_text('{"item": "1", "value": 1, "x": ' + deep + "}\n")
    elif name == "yaml":
        p.write_text("title: " + deep + "\n")
    elif name == "helm-json":
        p.write_text("[" + deep + "]")
    else:
        p.write_text('{"eval": ' + deep + "}")
    msg = _rejected(read, p)
    assert "nested" in msg or "deep" in msg or "JSON" in msg, msg


def test_yaml_alias_bomb_is_rejected(tmp_path: Path) -> None:
    lines = ["a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
    lines += [f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 10) + "]" for i in range(1, 8)]
    p = tmp_path / "lol.yaml"
    p.write_text("\n".join(lines) + "\n")
    with pytest.raises(ConfigError, match=rf"{p}: the YAML expands to more than"):
        load_experiment(p)


@pytest.mark.parametrize("magic,name", [(b"BZh91AY&SY", "bzip2"), (b"\xfd7zXZ\x00\x00", "xz"),
                                        (b"\x28\xb5\x2f\xfd\x00", "zstd"),
                                        (b"PK\x03\x04\x14\x00", "zip")])
def test_other_compressions_are_rejected_by_magic_bytes(tmp_path: Path, magic: bytes,
                                                        name: str) -> None:
    for fname, read in (("s.txt", read_values), ("t.csv", read_table), ("e.yaml",
                                                                        load_experiment)):
        p = tmp_path / fname
        p.write_bytes(magic + b"\0" * 64)
        _rejected(read, p, name, "decompress it first")


def test_limits_come_from_the_environment_and_are_validated(monkeypatch: pytest.MonkeyPatch,
                                                            tmp_path: Path) -> None:
    monkeypatch.setenv("RANGER_EVAL_MAX_LINE_LENGTH", "5")
    assert current_limits().max_line_length == 5
    p = tmp_path / "s.txt"
    p.write_text("1\n123456\n")
    with pytest.raises(InputError, match=rf"{p}:2: line longer than 5 characters"):
        read_values(p)
    with limits(max_line_length=100):
        assert read_values(p).tolist() == [1.0, 123456.0]
    monkeypatch.setenv("RANGER_EVAL_MAX_LINE_LENGTH", "lots")
    with pytest.raises(InputError, match="RANGER_EVAL_MAX_LINE_LENGTH='lots'"):
        current_limits()
    with pytest.raises(InputError, match="max_ratio=0"):
        Limits(max_ratio=0)
    monkeypatch.delenv("RANGER_EVAL_MAX_LINE_LENGTH")
    with pytest.raises(InputError, match="unknown limit"), limits(max_lines=3):
        pass


def test_text_reader_line_numbers_across_blocks(tmp_path: Path) -> None:
    """Errors found in a later block still name the right line."""
    p = tmp_path / "s.txt"
    p.write_bytes(b"1\r\n" * 100_000 + b"caf\xe9\n")
    with pytest.raises(InputError, match=rf"{p}:100001: not UTF-8"):
        read_values(p)
    p.write_bytes(b"1\n" * 100_000 + b"2\r3\n")
    with pytest.raises(InputError, match=rf"{p}:100001: CR-only line endings"):
        read_values(p)
    p.write_bytes(b"1\n" * 70_000 + b"\x002\n")
    with pytest.raises(InputError, match=rf"{p}:70001: NUL byte"):
        read_values(p)
    with open_text(p, json=True) as fh:  # read lazily: the NUL byte lies in a later block
        assert fh.readline() == "1\n"


@pytest.mark.parametrize("lines", [2, 300_000])  # one block, and a last line in a later block
def test_text_reader_keeps_a_last_line_without_a_line_end(tmp_path: Path, lines: int) -> None:
    """readline/iteration return the last line when the file does not end with a line end,
    also when the final (empty) read moves the buffer (it used to return '' there: a JSONL
    record or a CSV row silently dropped)."""
    p = tmp_path / "t.jsonl"
    p.write_bytes(b"1\n" * (lines - 1) + b"last")
    with open_text(p) as fh:
        got = list(fh)
    assert len(got) == lines
    assert got[-1] == "last" and got[0] == "1\n"
    p.write_bytes(b'{"dataset": "d", "system": "A", "item": "1", "value": 0.5}\n'
                  b'{"dataset": "d", "system": "A", "item": "2", "value": 0.7}')
    assert read_table(p)["value"].tolist() == [0.5, 0.7]


def test_tsv_rows_wider_than_the_header_are_an_error_naming_the_line(tmp_path: Path) -> None:
    """pandas only warns ("loss of data with index_col=False") when rows have more fields than
    the header: Ranger names the file, the line and the row instead of dropping fields."""
    p = tmp_path / "s.tsv"
    p.write_text("dataset,system,item,value\n\t")  # a comma header in a .tsv: one column
    with pytest.raises(InputError, match=rf"{p}:2: 2 fields where the header has 1 \(row '\\t'"):
        read_table(p)
    p.write_text("# ranger-eval: x\ndataset\tsystem\titem\tvalue\nd\tA\t1\t0.5\n")
    assert read_table(p)["value"].tolist() == [0.5]
