"""Fuzzing the TREC run and qrels readers with hypothesis.

* Random bytes (and valid files with random byte edits): the reader returns a table or raises a
  RangerError whose message names the file; never another exception.
* Random valid content written with random identifiers (any Unicode but control characters),
  random separators (runs of spaces and tabs, leading and trailing blanks), blank and comment
  lines, random line ends (LF, CRLF, no final newline), UTF-8 with or without BOM, plain or gzip:
  the reader returns exactly the generated rows — the same result for every equivalent encoding,
  on the fast and the general path. UTF-16 encodings and CR-only line ends are errors naming the
  file (and, for CR, the line).
(ranger_eval.ir has no trec_eval -q reader: that adapter lives in ranger_eval.io.)
"""
from __future__ import annotations

import gzip
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from ranger_eval import ir
from ranger_eval.errors import RangerError

SETTINGS = settings(max_examples=30, deadline=None,
                    suppress_health_check=[HealthCheck.function_scoped_fixture,
                                           HealthCheck.too_slow])

# identifiers: no control characters (C0/C1, which include the ASCII whitespace that separates
# fields) and no surrogates; a leading '#' would make the line a comment
IDS = st.text(st.characters(blacklist_categories=("Cc", "Cs")), min_size=1, max_size=12).filter(
    lambda s: not s.startswith("#") and not any(c.isspace() and ord(c) < 128 for c in s))
SCORES = st.floats(allow_nan=False, allow_infinity=False, width=64)
LABELS = st.integers(-5, 2**31 - 1)


@st.composite
def tables(draw: st.DrawFn, kind: str) -> list[tuple[str, str, float | int]]:
    """Rows (qid, docid, score or label), each (qid, docid) pair once."""
    qids = draw(st.lists(IDS, min_size=1, max_size=4, unique=True))
    rows: list[tuple[str, str, float | int]] = []
    for q in qids:
        docs = draw(st.lists(IDS, min_size=1, max_size=6, unique=True))
        vals = draw(st.lists(SCORES if kind == "run" else LABELS, min_size=len(docs),
                             max_size=len(docs)))
        rows += [(q, d, v) for d, v in zip(docs, vals, strict=True)]
    return rows


SEP = st.sampled_from([" ", "\t", "  ", " \t", "\t\t "])


@st.composite
def renderings(draw: st.DrawFn, rows: list[tuple[str, str, float | int]], kind: str) -> str:
    """One textual rendering of ``rows``: random separators, blank and comment lines, line ends."""
    four = kind == "run" and draw(st.booleans())  # Ranger's 4-field run layout
    sep = draw(st.sampled_from([" ", "\t", "mixed"]))
    out = []
    for i, (q, d, v) in enumerate(rows):
        if kind == "qrels":
            fields = [q, "0", d, str(v)]
        elif four:
            fields = [q, d, str(i + 1), repr(float(v))]
        else:
            fields = [q, "Q0", d, str(i + 1), repr(float(v)), "tag", *(["x"] * draw(
                st.integers(0, 1)))]
        if sep == "mixed":
            line = fields[0] + "".join(draw(SEP) + f for f in fields[1:])
            line = draw(st.sampled_from(["", " ", "\t"])) + line + draw(
                st.sampled_from(["", " ", "\t"]))
        else:
            line = sep.join(fields)
        if draw(st.integers(0, 9)) == 0:
            out.append(draw(st.sampled_from(["", "   ", "# a comment", "#"])))
        out.append(line)
    ends = [draw(st.sampled_from(["\n", "\r\n"])) for _ in out]
    text = "".join(line + end for line, end in zip(out, ends, strict=True))
    if draw(st.booleans()):
        text = text.rstrip("\r\n")  # no final line end
    return text


def _expected(rows: list[tuple[str, str, float | int]], kind: str) -> pd.DataFrame:
    value = "score" if kind == "run" else "relevance"
    return pd.DataFrame({"query_id": [r[0] for r in rows], "doc_id": [r[1] for r in rows],
                         value: np.array([r[2] for r in rows],
                                         dtype=np.float64 if kind == "run" else np.int64)})


def _read(kind: str, path: Path) -> pd.DataFrame:
    return ir.read_run(path) if kind == "run" else ir.read_qrels(path)


def _as_plain(df: pd.DataFrame) -> pd.DataFrame:
    return pd.DataFrame({c: (df[c].astype(object) if df[c].dtype != np.float64 and
                             df[c].dtype != np.int64 else df[c]) for c in df.columns})


@pytest.mark.parametrize("kind", ["run", "qrels"])
@SETTINGS
@given(data=st.data())
def test_equivalent_encodings_read_identically(tmp_path: Path, kind: str,
                                               data: st.DataObject) -> None:
    rows = data.draw(tables(kind))
    text = data.draw(renderings(rows, kind))
    raw = text.encode("utf-8")
    if data.draw(st.booleans()):
        raw = b"\xef\xbb\xbf" + raw
    if data.draw(st.booleans()):
        raw = gzip.compress(raw)
    p = tmp_path / f"{kind}.txt"
    p.write_bytes(raw)
    got = _read(kind, p)
    pd.testing.assert_frame_equal(_as_plain(got), _as_plain(_expected(rows, kind)))


@pytest.mark.parametrize("kind", ["run", "qrels"])
@SETTINGS
@given(data=st.data())
def test_utf16_and_cr_only_files_are_errors_naming_the_file(tmp_path: Path, kind: str,
                                                            data: st.DataObject) -> None:
    rows = data.draw(tables(kind))
    text = data.draw(renderings(rows, kind))
    p = tmp_path / f"{kind}.txt"
    variant = data.draw(st.sampled_from(["utf-16", "utf-16-le", "utf-16-be", "cr"]))
    if variant == "cr":
        cr_text = text.replace("\r\n", "\n").replace("\n", "\r")
        assume("\r" in cr_text.rstrip("\r") or cr_text.endswith("\r"))
        p.write_bytes(cr_text.encode())
        with pytest.raises(ir.TrecFormatError, match=rf"^{p}:\d+: CR-only line endings"):
            _read(kind, p)
        return
    p.write_bytes(text.encode(variant))
    with pytest.raises(ir.TrecFormatError) as exc:
        _read(kind, p)
    assert str(p) in str(exc.value)
    assert "UTF-16" in str(exc.value) or "NUL byte" in str(exc.value)


VALID = {"run": b"1 Q0 a 1 2.5 r\n1 Q0 b 2 1.0 r\n2 Q0 a 1 0.5 r\n",
         "qrels": b"1 0 a 1\n1 0 b 0\n2 0 a 2\n"}


@st.composite
def mutated(draw: st.DrawFn, kind: str) -> bytes:
    """Random bytes, or a valid file with random bytes inserted, replaced or deleted."""
    if draw(st.booleans()):
        return draw(st.binary(max_size=300))
    data = bytearray(VALID[kind])
    for _ in range(draw(st.integers(1, 6))):
        at = draw(st.integers(0, len(data)))
        op = draw(st.sampled_from(["insert", "replace", "delete"]))
        b = draw(st.sampled_from([b"\x00", b"\r", b"\n", b"\t", b" ", b"#", b"\xff", b"\xc3",
                                  b"\xef\xbb\xbf", b"\xff\xfe", b"\x1f\x8b", b"-", b"nan",
                                  b"1e999", b"\x0b", b"\x0c", b"x"]))
        if op == "insert":
            data[at:at] = b
        elif op == "replace":
            data[at: at + len(b)] = b
        else:
            del data[at: at + len(b)]
    return bytes(data)


@pytest.mark.parametrize("kind", ["run", "qrels"])
@settings(max_examples=50, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_random_bytes_never_escape_as_other_exceptions(tmp_path: Path, kind: str,
                                                       data: st.DataObject) -> None:
    raw = data.draw(mutated(kind))
    if data.draw(st.integers(0, 4)) == 0:
        raw = gzip.compress(raw)
    p = tmp_path / f"{kind}.bin"
    p.write_bytes(raw)
    try:
        df = _read(kind, p)
    except RangerError as exc:
        assert str(p) in str(exc)
        assert len(str(exc).splitlines()) < 10
        return
    assert len(df) > 0
    assert list(df.columns)[:2] == ["query_id", "doc_id"]
    # what was read is a fixed point: written back canonically, it reads the same
    canon = tmp_path / f"{kind}.canon"
    if kind == "run":
        canon.write_text("".join(f"{q} Q0 {d} 1 {float(s)!r} t\n" for q, d, s in
                                 df.itertuples(index=False)), encoding="utf-8")
    else:
        canon.write_text("".join(f"{q} 0 {d} {int(v)}\n" for q, d, v in
                                 df.itertuples(index=False)), encoding="utf-8")
    pd.testing.assert_frame_equal(_as_plain(_read(kind, canon)), _as_plain(df))
