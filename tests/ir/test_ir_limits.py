"""TREC reader limits: over-long lines and ids, decompression bombs, other compressions
and non-regular files are errors naming the file (and the line), found with bounded work."""
from __future__ import annotations

import bz2
import gzip
import lzma
import os
import sys
from pathlib import Path

import numpy as np
import pytest

from ranger_eval import ir
from ranger_eval.ir import TrecFormatError, readers

QRELS = "1 0 a 1\n1 0 b 0\n2 0 a 2\n"
RUN = "1 Q0 a 1 2.0 r\n1 Q0 b 2 1.0 r\n2 Q0 a 1 3.0 r\n"


def write(tmp_path: Path, data: str | bytes, name: str = "f.txt") -> Path:
    p = tmp_path / name
    p.write_bytes(data.encode() if isinstance(data, str) else data)
    return p


@pytest.mark.parametrize("compress", [False, True])
def test_a_10_mb_document_id_is_rejected_naming_the_line(tmp_path: Path, compress: bool) -> None:
    """The issue's case (82 s before): a single 10 MB docid on line 2."""
    text = "1 Q0 a 1 2.0 r\n1 Q0 " + "x" * 10_000_000 + " 2 1.0 r\n2 Q0 a 1 3.0 r\n"
    data = gzip.compress(text.encode(), 1) if compress else text.encode()
    p = write(tmp_path, data, "run.txt.gz" if compress else "run.txt")
    with pytest.raises(TrecFormatError, match=rf"{p}:2: line longer than 1,048,576 bytes "
                                              r"\(it starts '1 Q0 xxx"):
        ir.read_run(p)


@pytest.mark.parametrize("irregular", [False, True])
def test_line_cap_boundary_on_both_paths(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                         irregular: bool) -> None:
    """A line of exactly MAX_LINE_BYTES bytes (newline excluded) is read; one more byte is an
    error, on the fast path and on the general one (a comment line makes the file irregular),
    in the first segment and in a later one."""
    monkeypatch.setattr(readers.text, "MAX_LINE_BYTES", 4096)
    monkeypatch.setattr(readers.text, "_SEGMENT", 1 << 14)
    head = "# comment\n" if irregular else ""
    filler = "".join(f"1 Q0 d{i} {i} {-i}.5 r\n" for i in range(3000))  # several segments
    prefix = "2 Q0 "
    suffix = " 1 1.0 r\n"
    ok_id = "y" * (4096 + 1 - len(prefix) - len(suffix))
    p = write(tmp_path, head + filler + prefix + ok_id + suffix)
    df = ir.read_run(p)
    assert df["doc_id"].iloc[-1] == ok_id and len(df) == 3001
    line = 3000 + (2 if irregular else 1)
    p = write(tmp_path, head + filler + prefix + ok_id + "z" + suffix)
    with pytest.raises(TrecFormatError, match=rf"{p}:{line}: line longer than 4,096 bytes"):
        ir.read_run(p)


def test_a_long_id_in_a_dataframe_is_hashed_in_linear_time() -> None:
    """DataFrames have no line cap: a 10 MB docid is read and evaluated (the pair hash used to
    absorb it 8 bytes per numpy call)."""
    import pandas as pd

    long = "x" * 10_000_000
    run = pd.DataFrame({"query_id": ["1", "1"], "doc_id": ["a", long], "score": [2.0, 1.0]})
    qrels = pd.DataFrame({"query_id": ["1", "1"], "doc_id": ["a", long], "relevance": [0, 1]})
    df = ir.evaluate(qrels, run, "RR")
    assert df["value"].tolist() == [0.5]


def test_hash_is_a_function_of_the_string_only() -> None:
    """Equal strings hash equally whatever their array (offsets, chunks, large or not); the
    hash distinguishes permuted middle words of long strings."""
    import pyarrow as pa

    rng = np.random.default_rng(3)
    strs = ["x" * n for n in range(60)] + [
        "".join(rng.choice(list("ab"), n)) for n in rng.integers(0, 400, 500)]
    strs += ["a" * 8 + "b" * 8 + "c" * 8 + "z" * 8, "a" * 8 + "c" * 8 + "b" * 8 + "z" * 8]
    h = readers.hash_strings(pa.array(strs))
    assert np.array_equal(h, readers.hash_strings(pa.array(strs, pa.large_string())))
    assert np.array_equal(h, readers.hash_strings(
        pa.chunked_array([pa.array(strs[:7]), pa.array(strs[7:])])))
    assert np.array_equal(h[5:], readers.hash_strings(pa.array(strs).slice(5)))
    assert len(set(h.tolist())) == len(set(strs))


def test_hash_does_not_depend_on_the_piece_size(monkeypatch: pytest.MonkeyPatch) -> None:
    """hash_strings works in pieces of _PIECE strings (one set of temporaries, reused): a
    string's hash is the same wherever the piece edges fall, for short, 8-16-byte, long (middle
    words) and empty strings, in chunked arrays whose chunk edges fall inside pieces."""
    import pyarrow as pa

    from ranger_eval.ir.readers import hashing

    rng = np.random.default_rng(5)
    strs = ["".join(rng.choice(list("abc"), n)) for n in rng.integers(0, 70, 600)]
    arr = pa.chunked_array([pa.array(strs[:201]), pa.array(strs[201:])])
    default = readers.hash_strings(arr)
    alone = np.concatenate([readers.hash_strings(pa.array([s])) for s in strs[:50]])
    assert np.array_equal(default[:50], alone)
    for piece in (2, 7, 64, 1 << 16):
        monkeypatch.setattr(hashing, "_PIECE", piece)
        assert np.array_equal(readers.hash_strings(arr), default), piece


def _bomb(lines: bytes, copies: int) -> bytes:
    """A multi-member gzip file: one small member repeated (valid gzip, huge expansion)."""
    return gzip.compress(lines, 9) * copies


def test_gzip_bomb_is_rejected_with_the_default_cap(tmp_path: Path) -> None:
    """A 0.2 MB file of valid lines expanding ~400x: rejected once it passes 16 MiB + 100x."""
    member = b"1 Q0 doc 1 1.0 run\n" * (1 << 16)  # 1.2 MiB, ~3 KB compressed
    p = write(tmp_path, _bomb(member, 60), "bomb.txt.gz")
    with pytest.raises(TrecFormatError, match=rf"{p}: the gzip data expand to more than .* "
                                              r"decompression bomb.*gunzip -k"):
        ir.read_run(p)


@pytest.mark.parametrize("member", [b"\n" * 100_000, b"1 0 a 1\n\n" * 10_000,
                                    b"\0" * 100_000])
def test_gzip_bombs_on_every_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                  member: bytes) -> None:
    """Blank lines (general path), irregular qrels and NUL bytes (one endless line) are all
    stopped: by the size cap or the line cap, never by running out of memory."""
    monkeypatch.setattr(readers.text, "MAX_GZIP_BASE", 1 << 20)
    monkeypatch.setattr(readers.text, "MAX_LINE_BYTES", 1 << 16)
    p = write(tmp_path, _bomb(member, 200), "bomb.gz")
    with pytest.raises(TrecFormatError, match=rf"{p}(:1)?: (the gzip data expand|NUL byte)"):
        ir.read_qrels(p)


def test_genuine_gzip_files_are_read(tmp_path: Path) -> None:
    p = write(tmp_path, gzip.compress(RUN.encode()), "run.gz")
    q = write(tmp_path, gzip.compress(("\ufeff" + QRELS).encode()), "qrels.gz")
    df = ir.evaluate(q, p, "RR")
    assert df["value"].tolist() == [1.0, 1.0]


@pytest.mark.parametrize(("compress", "name"), [(bz2.compress, "bzip2"), (lzma.compress, "xz")])
def test_other_compressions_are_named(tmp_path: Path, compress, name: str) -> None:
    p = write(tmp_path, compress(RUN.encode()), "run.cmp")
    with pytest.raises(TrecFormatError, match=rf"{p}: {name}-compressed data.*decompress it"):
        ir.read_run(p)


def test_a_qid_that_looks_like_bzip2_is_data(tmp_path: Path) -> None:
    p = write(tmp_path, "BZh9 0 a 1\n", "q.txt")
    assert ir.read_qrels(p)["query_id"].tolist() == ["BZh9"]


def test_cr_only_file_longer_than_the_line_cap(tmp_path: Path) -> None:
    """CR-only line ends make one endless line to a newline scanner: still the CR-only error."""
    p = write(tmp_path, "1 Q0 a 1 2.0 r\r" * 100_000)
    with pytest.raises(TrecFormatError, match=rf"{p}:1: CR-only line endings"):
        ir.read_run(p)


def test_utf16_file_with_a_long_line_names_the_encoding(tmp_path: Path) -> None:
    p = write(tmp_path, ("1 Q0 " + "x" * 700_000 + " 1 2.0 r\n").encode("utf-16"))
    with pytest.raises(TrecFormatError, match=rf"{p}: the file is UTF-16 little-endian"):
        ir.read_run(p)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this platform")
def test_fifo_is_refused_without_opening_it(tmp_path: Path) -> None:
    fifo = tmp_path / "run.fifo"
    os.mkfifo(fifo)
    with pytest.raises(TrecFormatError, match=rf"{fifo}: not a regular file"):
        ir.read_run(fifo)


@pytest.mark.skipif(not Path("/dev/zero").exists(), reason="no /dev/zero")
def test_character_device_is_refused() -> None:
    with pytest.raises(TrecFormatError, match="/dev/zero: not a regular file"):
        ir.read_qrels("/dev/zero")


def test_stdin_dash_is_refused_with_a_hint() -> None:
    with pytest.raises(TrecFormatError, match="-: reading a run from standard input is not "
                                              "supported"):
        ir.read_run("-")


def test_symlink_to_a_regular_file_is_read(tmp_path: Path) -> None:
    p = write(tmp_path, RUN)
    link = tmp_path / "link.txt"
    link.symlink_to(p)
    assert len(ir.read_run(link)) == 3


def test_cli_reports_limits_in_one_line(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from ranger_eval.cli import app

    q = write(tmp_path, QRELS, "qrels.txt")
    r = write(tmp_path, "1 Q0 " + "x" * 2_000_000 + " 1 2.0 r\n", "run.txt")
    res = CliRunner().invoke(app, ["trec", str(q), str(r), "-m", "AP"])
    assert res.exit_code == 2
    err = res.stderr.strip().splitlines()
    assert len(err) == 1 and f"{r}:1: line longer than" in err[0]
    assert "Traceback" not in res.output
    assert sys.getsizeof(res.stderr) < 10_000  # the id is not echoed
