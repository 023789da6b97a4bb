"""Readers: TREC and Ranger run formats, qrels, whitespace, comments, gzip, CRLF, BOM."""
from __future__ import annotations

import gzip
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest

from ranger_eval import ir
from ranger_eval.ir import readers

RUN6 = "1 Q0 d1 1 3.5 sys\n1 Q0 d2 2 2.25 sys\n2 Q0 d1 1 -1e-3 sys\n"
EXPECTED_RUN = pd.DataFrame({"query_id": ["1", "1", "2"], "doc_id": ["d1", "d2", "d1"],
                             "score": [3.5, 2.25, -1e-3]})


def write(tmp_path: Path, text: str | bytes, name: str = "f.txt") -> Path:
    p = tmp_path / name
    p.write_bytes(text.encode() if isinstance(text, str) else text)
    return p


def same_run(df: pd.DataFrame, expected: pd.DataFrame = EXPECTED_RUN) -> None:
    assert list(df.columns) == ["query_id", "doc_id", "score"]
    assert df["query_id"].astype(str).tolist() == expected["query_id"].tolist()
    assert df["doc_id"].astype(str).tolist() == expected["doc_id"].tolist()
    np.testing.assert_array_equal(df["score"].to_numpy(), expected["score"].to_numpy())


@pytest.mark.parametrize("text", [
    RUN6,  # single spaces (fast path)
    RUN6.replace(" ", "\t"),  # single tabs (fast path)
    "1\tQ0\td1\t1\t  3.5\tsys\n1 Q0  d2 2 2.25\tsys\n  2 Q0 d1 1 -1e-3 sys  \n",  # mixed
    RUN6.replace("sys\n", "sys more junk here\n"),  # extra trailing fields, as trec_eval
    RUN6.replace("\n", "\r\n"),  # CRLF
    "\ufeff" + RUN6,  # UTF-8 BOM
    "# a comment\n" + RUN6 + "\n\n   \n",  # comment and blank lines
    "1 Q0 d1 1 3.5 sys\n# x y z w v u\n1 Q0 d2 2 2.25 sys\n2 Q0 d1 1 -1e-3 sys\n",  # 6-token comment
    "1 Q0 d1 1 3.5 sys\n   # indented comment\n1 Q0 d2 2 2.25 sys\n2 Q0 d1 1 -1e-3 sys",  # no EOL
])
def test_trec_run_variants(tmp_path: Path, text: str) -> None:
    same_run(ir.read_run(write(tmp_path, text)))


def test_ranger_four_field_run(tmp_path: Path) -> None:
    text = "1\td1\t1\t3.5\n1\td2\t2\t2.25\n2\td1\t1\t-1e-3\n"
    same_run(ir.read_run(write(tmp_path, text)))
    same_run(ir.read_run(write(tmp_path, text.replace("\t", "  "))))


def test_gzip_run_and_qrels(tmp_path: Path) -> None:
    p = tmp_path / "run.txt.gz"
    p.write_bytes(gzip.compress(RUN6.encode()))
    same_run(ir.read_run(p))
    q = tmp_path / "qrels.gz"
    q.write_bytes(gzip.compress(b"1 0 d1 2\n1 0 d2 -1\n"))
    assert ir.read_qrels(q)["relevance"].tolist() == [2, -1]


def test_docids_containing_hash(tmp_path: Path) -> None:
    text = "q1 Q0 doc#1 1 2.0 r\nq1 Q0 doc#2 2 1.0 r\n#q1 Q0 doc#3 3 0.5 r\n"
    df = ir.read_run(write(tmp_path, text))
    assert df["doc_id"].tolist() == ["doc#1", "doc#2"]


def test_qrels_labels_including_negative(tmp_path: Path) -> None:
    df = ir.read_qrels(write(tmp_path, "1 0 a 0\n1 0 b -1\n1 0 c 4\n2 Q0 a 1\n"))
    assert list(df.columns) == ["query_id", "doc_id", "relevance"]
    assert df["relevance"].tolist() == [0, -1, 4, 1]
    assert df["relevance"].dtype == np.int64


def test_fast_and_general_paths_agree(tmp_path: Path) -> None:
    rng = np.random.default_rng(3)
    lines = [f"q{q} Q0 D{d} {r} {s:.6f} tag" for q in range(20)
             for r, (d, s) in enumerate(zip(rng.permutation(500)[:50], rng.normal(size=50),
                                               strict=True), 1)]
    regular = "\n".join(lines) + "\n"
    irregular = "\n".join(x.replace(" ", "  ", 1) if i % 2 else x
                          for i, x in enumerate(lines)) + "\n"
    assert readers.fast._fast_delimiter(regular.encode()) == " "
    assert readers.fast._fast_delimiter(irregular.encode()) == " "  # the CSV reader then rejects it
    assert readers.fast._fast_parse(irregular.encode(), "run", pa.float64()) is None
    a = ir.read_run(write(tmp_path, regular, "a.txt"))
    b = ir.read_run(write(tmp_path, irregular, "b.txt"))
    pd.testing.assert_frame_equal(a, b)


def test_general_path_line_numbers(tmp_path: Path) -> None:
    t = readers.load_run(write(tmp_path, "# c\n\n1 Q0 a 1 1 r\n  \n1 Q0 b 2 0.5 r\n"))
    assert [t.number(i) for i in range(len(t))] == [3, 5]


def test_dataframe_inputs_accepted(tmp_path: Path) -> None:
    run = pd.DataFrame({"qid": [1, 1], "docid": ["a", "b"], "score": [2.0, 1.0]})
    qrels = pd.DataFrame({"query_id": ["1", "1"], "doc_id": ["a", "b"], "relevance": [0, 1]})
    df = ir.evaluate(qrels, run, ["RR", "P@1"])
    assert df["value"].tolist() == [0.5, 0.0]
    assert df["query_id"].tolist() == ["1", "1"]


def test_hash_strings_equal_iff_equal_strings() -> None:
    vals = ["", "a", "ab", "abcdefgh", "abcdefghi", "abcdefgh\x00", "x" * 17, "x" * 16 + "y",
            "é#ü", "a"]
    arr = pa.array(vals)
    h = readers.hash_strings(arr)
    for i, a in enumerate(vals):
        for j, b in enumerate(vals):
            assert (h[i] == h[j]) == (a == b), (a, b)
    # slices and chunked arrays hash the same strings identically
    chunked = pa.chunked_array([arr.slice(0, 4), arr.slice(4)])
    np.testing.assert_array_equal(readers.hash_strings(chunked), h)
    np.testing.assert_array_equal(readers.hash_strings(arr.slice(3)), h[3:])


def test_general_path_in_small_chunks(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    text = "# c\n1 Q0 d1 1 3.5 sys\n\n1  Q0 d2 2 2.25 sys\n# x\n\n2 Q0 d1 1 -1e-3 sys\n"
    p = write(tmp_path, text)
    whole = readers.load_run(p)
    monkeypatch.setattr(readers.general, "_LINES_PER_CHUNK", 2)
    chunked = readers.load_run(p)
    same_run(ir.read_run(p))
    assert [chunked.number(i) for i in range(3)] == [whole.number(i) for i in range(3)] == [2, 4, 7]
    bad = write(tmp_path, text + "\n\n3 Q0 d9\n", "bad.txt")
    with pytest.raises(ir.TrecFormatError, match=rf"{bad}:10: expected at least 6 fields"):
        ir.read_run(bad)


def _crlf_corpus() -> tuple[str, str]:
    rng = np.random.default_rng(11)
    run = [f"q{q} Q0 D{d} {r} {s:.6f} tag" for q in range(15)
           for r, (d, s) in enumerate(zip(rng.permutation(300)[:40], rng.normal(size=40),
                                             strict=True), 1)]
    qrels = [f"q{q} 0 D{d} {int(rng.integers(-1, 4))}" for q in range(0, 15, 2)
             for d in rng.permutation(300)[:60]]
    return "\n".join(run) + "\n", "\n".join(qrels) + "\n"


@pytest.mark.parametrize("variant", ["regular", "general", "gzip"])
def test_crlf_gives_exactly_the_lf_results(tmp_path: Path, variant: str) -> None:
    """CRLF line ends (fast path, general path, gzip) read and evaluate exactly as LF."""
    run, qrels = _crlf_corpus()
    if variant == "general":  # a comment and a doubled separator force the general path
        run = "# header\n" + run.replace(" Q0 ", "  Q0 ", 3)
        qrels = "# header\n\n" + qrels
    results = []
    for eol in ("\n", "\r\n"):
        r, q = run.replace("\n", eol).encode(), qrels.replace("\n", eol).encode()
        if variant == "gzip":
            r, q = gzip.compress(r), gzip.compress(q)
        rp = write(tmp_path, r, f"run{len(eol)}.txt")
        qp = write(tmp_path, q, f"qrels{len(eol)}.txt")
        if variant == "regular":
            assert readers.fast._fast_parse_file(rp, "run", pa.float64()) is not None
        with pytest.warns(ir.IgnoredTopicsWarning, match="7 run topic"):
            ev = ir.evaluate(qp, rp, ["AP", "nDCG@10", "P@5", "NumRel"], missing="zero")
        results.append((ir.read_run(rp), ir.read_qrels(qp), ev))
        lines = readers.load_run(rp)
        if lines.line is not None:  # general path: line numbers count LF and CRLF alike
            assert lines.number(0) == 2
    for a, b in zip(results[0], results[1], strict=True):
        pd.testing.assert_frame_equal(a, b)
