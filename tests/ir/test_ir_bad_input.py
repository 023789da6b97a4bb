"""Bad input: every error names the file, the line (or row) and the offending text or argument."""
from __future__ import annotations

import contextlib
from pathlib import Path

import pandas as pd
import pytest

from ranger_eval import ir
from ranger_eval.ir import (
    DuplicateEntryError,
    MeasureError,
    MissingTopicsError,
    TrecFormatError,
)

QRELS = "1 0 a 1\n1 0 b 0\n2 0 a 2\n"
RUN = "1 Q0 a 1 2.0 r\n1 Q0 b 2 1.0 r\n2 Q0 a 1 3.0 r\n"


def write(tmp_path: Path, text: str | bytes, name: str = "f.txt") -> Path:
    p = tmp_path / name
    p.write_bytes(text.encode() if isinstance(text, str) else text)
    return p


def test_run_line_with_too_few_fields(tmp_path: Path) -> None:
    p = write(tmp_path, "1 Q0 a 1 2.0 r\n1 Q0 b 2\n")
    with pytest.raises(TrecFormatError, match=rf"{p}:2: expected at least 6 fields.*'1 Q0 b 2'"):
        ir.read_run(p)


def test_run_first_line_with_five_fields(tmp_path: Path) -> None:
    p = write(tmp_path, "# header\n1 Q0 a 1 2.0\n")
    with pytest.raises(TrecFormatError, match=rf"{p}:2: expected 6 or more fields .* or 4 fields"
                                              r".*found 5.*'1 Q0 a 1 2.0'"):
        ir.read_run(p)


def test_four_field_run_with_a_six_field_line(tmp_path: Path) -> None:
    p = write(tmp_path, "1 a 1 2.0\n1 Q0 b 2 1.0 r\n")
    with pytest.raises(TrecFormatError, match=rf"{p}:2: expected 4 fields.*'1 Q0 b 2 1.0 r'"):
        ir.read_run(p)


def test_bad_score(tmp_path: Path) -> None:
    p = write(tmp_path, "1 Q0 a 1 2.0 r\n1 Q0 b 2 1,5 r\n")
    with pytest.raises(TrecFormatError, match=rf"{p}:2: score is not a number: '1,5'"):
        ir.read_run(p)


def test_bad_score_general_path_line_number(tmp_path: Path) -> None:
    p = write(tmp_path, "# c\n\n1\tQ0 a 1 2.0 r\n\n1 Q0 b 2 high r\n")
    with pytest.raises(TrecFormatError, match=rf"{p}:5: score is not a number: 'high'"):
        ir.read_run(p)


def test_nan_score(tmp_path: Path) -> None:
    p = write(tmp_path, "1 Q0 a 1 2.0 r\n1 Q0 b 2 nan r\n")
    with pytest.raises(TrecFormatError, match=rf"{p}:2: score is not a number: 'nan'"):
        ir.read_run(p)


def test_non_integer_label(tmp_path: Path) -> None:
    p = write(tmp_path, "1 0 a 1\n1 0 b 1.5\n")
    with pytest.raises(TrecFormatError, match=rf"{p}:2: relevance label is not an integer: '1.5'"):
        ir.read_qrels(p)


def test_qrels_with_five_fields(tmp_path: Path) -> None:
    p = write(tmp_path, "1 0 a 1\n1 0 b 1 extra\n")
    with pytest.raises(TrecFormatError, match=rf"{p}:2: expected 4 fields.*'1 0 b 1 extra'"):
        ir.read_qrels(p)


def test_empty_run_file(tmp_path: Path) -> None:
    p = write(tmp_path, "")
    with pytest.raises(TrecFormatError, match=rf"{p}: run file is empty"):
        ir.read_run(p)


def test_qrels_with_only_comments(tmp_path: Path) -> None:
    p = write(tmp_path, "# nothing\n\n  # here\n")
    with pytest.raises(TrecFormatError, match=rf"{p}: qrels file is empty"):
        ir.read_qrels(p)


def test_duplicate_docid_in_run(tmp_path: Path) -> None:
    p = write(tmp_path, "1 Q0 a 1 2.0 r\n1 Q0 b 2 1.0 r\n2 Q0 b 1 1.0 r\n1 Q0 a 3 0.5 r\n")
    with pytest.raises(DuplicateEntryError,
                       match=rf"{p}: duplicate document 'a' for query '1' \(lines 1, 4\)"):
        ir.read_run(p)


def test_duplicate_docid_line_numbers_general_path(tmp_path: Path) -> None:
    p = write(tmp_path, "# x\n1  Q0 a 1 2.0 r\n\n1 Q0 b 2 1.0 r\n1 Q0 b 3 0.0 r\n")
    with pytest.raises(DuplicateEntryError, match=r"'b' for query '1' \(lines 4, 5\)"):
        ir.evaluate(write(tmp_path, QRELS, "q.txt"), p, "AP")


def test_duplicate_qrels_entry(tmp_path: Path) -> None:
    p = write(tmp_path, "1 0 a 1\n2 0 a 1\n1 0 b 0\n1 0 a 0\n")
    with pytest.raises(DuplicateEntryError,
                       match=rf"{p}: duplicate qrels entry for query '1', document 'a' "
                             r"\(lines 1, 4\)"):
        ir.read_qrels(p)


def test_invalid_utf8(tmp_path: Path) -> None:
    p = write(tmp_path, b"1 Q0 a 1 2.0 r\n1 Q0 \xff\xfe 2 1.0 r\n")
    with pytest.raises(TrecFormatError, match=rf"{p}:2: not valid UTF-8"):
        ir.read_run(p)


def test_missing_file(tmp_path: Path) -> None:
    p = tmp_path / "nope.txt"
    with pytest.raises(FileNotFoundError, match=rf"run file not found: {p}"):
        ir.read_run(p)
    with pytest.raises(FileNotFoundError, match=rf"qrels file not found: {p}"):
        ir.evaluate(p, write(tmp_path, RUN), "AP")


def test_directory_and_corrupt_gzip(tmp_path: Path) -> None:
    with pytest.raises(TrecFormatError, match="is a directory"):
        ir.read_run(tmp_path)
    p = write(tmp_path, b"\x1f\x8b\x08\x00garbage", "r.gz")
    with pytest.raises(TrecFormatError, match=rf"{p}: corrupt gzip"):
        ir.read_run(p)


@pytest.mark.parametrize("spec,pattern", [
    ("foo@10", r"unknown measure 'foo' in 'foo@10'"),
    ("BLEU", r"unknown measure 'BLEU'"),
    ("nDCG@0", r"bad cutoff in measure 'nDCG@0'"),
    ("P@ten", r"bad cutoff in measure 'P@ten': 'ten'"),
    ("P@-5", r"bad cutoff in measure 'P@-5'"),
    ("ndcg_cut.10,2x", r"bad cutoff in measure 'ndcg_cut.10,2x': '2x'"),
    ("Success", r"Success needs a cutoff"),
    ("nDCG(rel=2)@10", r"nDCG takes no rel= parameter"),
    ("AP(rel=-1)", r"bad rel in measure 'AP\(rel=-1\)'"),
    ("P(judged_only=true)@5", r"unsupported parameter\(s\) judged_only"),
    ("Rprec@10", r"Rprec takes no cutoff"),
    ("", r"empty measure name"),
])
def test_bad_measures(spec: str, pattern: str) -> None:
    with pytest.raises(MeasureError, match=pattern):
        ir.parse_measure(spec)


def test_bad_measure_reaches_evaluate(tmp_path: Path) -> None:
    with pytest.raises(MeasureError, match="unknown measure 'MAPP'"):
        ir.evaluate(write(tmp_path, QRELS, "q"), write(tmp_path, RUN, "r"), ["AP", "MAPP"])


@pytest.mark.parametrize("kwargs,pattern", [
    ({"missing": "ignore"}, r"missing must be one of 'zero', 'drop', 'error'; got 'ignore'"),
    ({"score_precision": "float16"}, r"score_precision must be .*; got 'float16'"),
    ({"max_docs": 0}, r"max_docs must be a positive integer or None; got 0"),
    ({"relevance_level": -1}, r"relevance_level must be a non-negative integer; got -1"),
])
def test_bad_options(tmp_path: Path, kwargs: dict, pattern: str) -> None:
    with pytest.raises(ValueError, match=pattern):
        ir.evaluate(write(tmp_path, QRELS, "q"), write(tmp_path, RUN, "r"), "AP", **kwargs)


def test_missing_error_policy_names_topics(tmp_path: Path) -> None:
    run = write(tmp_path, "1 Q0 a 1 2.0 r\n", "r")
    with pytest.raises(MissingTopicsError, match=rf"{run}: 1 qrels topic\(s\) .*'2'"):
        ir.evaluate(write(tmp_path, QRELS, "q"), run, "AP", missing="error")


def test_dataframe_errors_name_rows() -> None:
    qrels = pd.DataFrame({"query_id": ["1"], "doc_id": ["a"], "relevance": [1]})
    with pytest.raises(TrecFormatError, match=r"needs columns query_id, doc_id, score"):
        ir.evaluate(qrels, pd.DataFrame({"query_id": ["1"], "doc": ["a"], "score": [1.0]}), "AP")
    bad = pd.DataFrame({"query_id": ["1", "1"], "doc_id": ["a", "b"], "score": [1.0, "x"]})
    with pytest.raises(TrecFormatError, match=r"<DataFrame> row 1: score is not a number: 'x'"):
        ir.evaluate(qrels, bad, "AP")
    dup = pd.DataFrame({"query_id": ["1", "1"], "doc_id": ["a", "a"], "score": [1.0, 2.0]})
    with pytest.raises(DuplicateEntryError, match=r"duplicate document 'a' .*\(rows 0, 1\)"):
        ir.evaluate(qrels, dup, "AP")
    frac = pd.DataFrame({"query_id": ["1"], "doc_id": ["a"], "relevance": [0.5]})
    with pytest.raises(TrecFormatError, match=r"row 0: relevance label is not an integer: 0.5"):
        ir.evaluate(frac, dup.iloc[:1], "AP")


@pytest.mark.parametrize("line", ["1 Q0  d2 1 1.5", "1  Q0 d2 1 1.5", "1 Q0 d2 1 1.5 "])
def test_doubled_leading_or_trailing_separator_is_not_misread(tmp_path: Path, line: str) -> None:
    """A doubled separator must not shift fields (docid '' or 'Q0') on the columnar fast path."""
    p = write(tmp_path, "1 Q0 a 1 2.0 r\n" + line + "\n")
    with pytest.raises(TrecFormatError, match=rf"{p}:2: expected at least 6 fields"):
        ir.read_run(p)


def test_invalid_utf8_in_an_ignored_field_is_an_error(tmp_path: Path) -> None:
    p = write(tmp_path, b"1 Q0 a 1 2.0 r\n1 Q0 b 2 1.0 \xff\xfe\n")
    with pytest.raises(TrecFormatError, match=rf"{p}:2: not valid UTF-8 text"):
        ir.read_run(p)


@pytest.mark.parametrize("text,line", [
    ("1 Q0 a 1 2.0 r\r1 Q0 b 2 1.0 r\r2 Q0 a 1 3.0 r\r", 1),  # old Mac OS line ends
    ("1 Q0 a 1 2.0 r\n1 Q0 b 2 1.0 r\n2 Q0 a 1 3.0 r\r", 3),  # a CR at the very end
    ("1 Q0 a 1 2.0 r\r\n1 Q0 b 2 1.0 r\r\r\n", 2),  # CR CR LF
    ("# c\n\n1 Q0 a 1 2.0 r\n1 Q0 b\r2 1.0 r\n", 4),  # a bare CR inside a line
])
@pytest.mark.parametrize("gz", [False, True])
def test_bare_carriage_return_is_rejected_with_its_line(tmp_path: Path, text: str, line: int,
                                                        gz: bool) -> None:
    import gzip
    import re

    data = text.encode()
    p = write(tmp_path, gzip.compress(data) if gz else data, "run.gz" if gz else "run.txt")
    with pytest.raises(TrecFormatError, match=rf"^{re.escape(str(p))}:{line}: CR-only line "
                                              r"endings are not supported.*convert"):
        ir.read_run(p)


def test_cr_only_qrels_rejected(tmp_path: Path) -> None:
    p = write(tmp_path, QRELS.replace("\n", "\r"))
    with pytest.raises(TrecFormatError, match=rf"{p}:1: CR-only line endings are not supported"):
        ir.read_qrels(p)
    with pytest.raises(TrecFormatError, match="CR-only"):
        ir.evaluate(p, write(tmp_path, RUN, "run.txt"), "AP")


@pytest.mark.parametrize("bom,codec,name", [
    (b"\xff\xfe", "utf-16-le", "UTF-16 little-endian"),
    (b"\xfe\xff", "utf-16-be", "UTF-16 big-endian"),
    (b"\xff\xfe\x00\x00", "utf-32-le", "UTF-32 little-endian"),
    (b"\x00\x00\xfe\xff", "utf-32-be", "UTF-32 big-endian"),
])
@pytest.mark.parametrize("kind", ["run", "qrels"])
def test_utf16_and_utf32_files_are_rejected_by_name(tmp_path: Path, bom: bytes, codec: str,
                                                    name: str, kind: str) -> None:
    import gzip

    text = RUN if kind == "run" else QRELS
    read = ir.read_run if kind == "run" else ir.read_qrels
    for gz in (False, True):
        data = bom + text.encode(codec)
        p = write(tmp_path, gzip.compress(data) if gz else data, f"{kind}{int(gz)}.txt")
        with pytest.raises(TrecFormatError, match=rf"{p}: the file is {name} encoded \(byte-order "
                                                  r"mark .*\); .*UTF-8.*iconv"):
            read(p)


def test_nul_bytes_suggest_utf16_without_bom(tmp_path: Path) -> None:
    p = write(tmp_path, RUN.encode("utf-16-le"))
    with pytest.raises(TrecFormatError, match=rf"{p}:1: NUL byte .*UTF-16"):
        ir.read_run(p)


DISJOINT_RUN = "7 Q0 a 1 2.0 r\n8 Q0 b 1 1.0 r\n9 Q0 a 1 1.0 r\n"


@pytest.mark.parametrize("missing", ["zero", "drop", "error"])
def test_run_and_qrels_without_a_common_topic_is_an_error(tmp_path: Path, missing: str) -> None:
    from ranger_eval.ir import NoCommonTopicsError

    q, r = write(tmp_path, QRELS, "qrels.txt"), write(tmp_path, DISJOINT_RUN, "run.txt")
    with pytest.raises(NoCommonTopicsError,
                       match=rf"^{r}: no topic in common with the qrels {q}: run topics '7', "
                             r"'8', '9'; qrels topics '1', '2'; .*allow_no_overlap=True"):
        ir.evaluate(q, r, "AP", missing=missing)
    with pytest.raises(MissingTopicsError, match="no topic in common"):
        ir.evaluate_many(q, {"a": write(tmp_path, RUN, "ok.txt"), "b": r}, "AP", missing=missing)


def test_allow_no_overlap_evaluates_with_a_loud_warning(tmp_path: Path) -> None:
    import warnings

    q, r = write(tmp_path, QRELS, "qrels.txt"), write(tmp_path, DISJOINT_RUN, "run.txt")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        zero = ir.evaluate(q, r, ["AP", "NumRel"], missing="zero", allow_no_overlap=True)
        drop = ir.evaluate(q, r, "AP", missing="drop", allow_no_overlap=True)
        many = ir.evaluate_many(q, {"b": r}, "AP", allow_no_overlap=True)
    assert zero["value"].tolist() == [0.0, 1.0, 0.0, 1.0]
    assert drop.empty
    assert many["value"].tolist() == [0.0, 0.0]
    messages = [str(w.message) for w in caught]
    assert all(issubclass(w.category, ir.IgnoredTopicsWarning) for w in caught)
    loud = [m for m in messages if "NO TOPIC IN COMMON" in m]
    assert len(loud) == 3 and "run topics '7', '8', '9'; qrels topics '1', '2'" in loud[0]
    assert [m for m in messages if "NO TOPIC" not in m] == [
        f"{r}: 2 qrels topic(s) absent from the run dropped: '1', '2'"]


def test_missing_file_is_a_ranger_input_error(tmp_path: Path) -> None:
    """Still a FileNotFoundError for old callers, and an InputError (a RangerError) for new."""
    from ranger_eval.errors import InputError, RangerError

    with pytest.raises(InputError, match="run file not found") as info:
        ir.read_run(tmp_path / "absent.txt")
    assert isinstance(info.value, RangerError) and isinstance(info.value, FileNotFoundError)


def test_duplicate_check_compares_colliding_hashes_exactly() -> None:
    """Rows found by the sort (equal pair hashes) are compared exactly: colliding hashes of
    different (query, document) pairs are no error; a real repeat among them is, with its rows."""
    import numpy as np
    import pyarrow as pa

    from ranger_eval.ir.readers.hashing import _duplicate_pair

    same = np.full(4, 7, dtype=np.uint64)  # every row collides
    docs = pa.array(["a", "b", "a", "c"])
    assert _duplicate_pair(np.array([0, 0, 1, 1]), docs, same) is None
    assert _duplicate_pair(np.array([0, 0, 0, 1]), docs, same) == (0, 2)
    assert _duplicate_pair(np.array([0]), pa.array(["a"]), same[:1]) is None


def test_duplicate_check_sorts_blocks_of_whole_queries_alike_on_any_thread_count() -> None:
    """Runs longer than one sort block are cut between queries and the blocks sorted apart (on
    helper threads, or inline inside one_thread): a repeat is found wherever it lies (first block,
    a block boundary, the last row, a query spanning several blocks), equal hashes of different
    queries in different blocks are no error, and an interleaved run (queries not contiguous)
    is sorted whole, with the same answers."""
    import numpy as np
    import pyarrow as pa

    from ranger_eval.ir.readers import hash_strings, one_thread, pair_hash
    from ranger_eval.ir.readers.hashing import _SORT_BLOCK, _duplicate_pair, _sorted_hashes

    rng = np.random.default_rng(3)
    sizes = rng.integers(1, 2_000, 150)
    sizes[40] = 3 * _SORT_BLOCK  # one query longer than a block
    qcodes = np.repeat(np.arange(len(sizes)), sizes)
    n = len(qcodes)
    assert n > 4 * _SORT_BLOCK
    docs = [f"d{i}" for i in range(n)]  # all distinct: no repeat at first
    qids = pa.array([str(q) for q in range(len(sizes))])
    starts = np.r_[0, np.cumsum(sizes)[:-1]]

    def hashes(d: list[str]) -> np.ndarray:
        return pair_hash(hash_strings(qids)[qcodes], pa.array(d))

    def check(d: list[str], expected: tuple[int, int] | None) -> None:
        pairs = hashes(d)
        for inline in (False, True):
            with one_thread() if inline else contextlib.nullcontext():
                assert _duplicate_pair(qcodes, pa.array(d), pairs) == expected
        perm = np.random.default_rng(0).permutation(n)  # interleaved queries: one sort of all
        found = _duplicate_pair(qcodes[perm], pa.array(d).take(pa.array(perm)), pairs[perm])
        assert (found is None) == (expected is None)
        if found is not None:
            assert sorted(perm[list(found)].tolist()) == sorted(expected)  # original rows

    srt, bounds, found = _sorted_hashes(hashes(docs), qcodes)
    assert len(bounds) >= 3 and not found
    assert set(bounds.tolist()) <= set(starts.tolist())  # blocks end between queries
    for lo, hi in zip(np.r_[0, bounds], np.r_[bounds, n], strict=True):
        assert np.all(srt[lo + 1:hi] >= srt[lo:hi - 1])
    check(docs, None)
    edge = int(bounds[1])  # the first row of a block and the last row of the one before
    q = int(qcodes[edge])
    cases = [(0, 1), (int(starts[40]), int(starts[40]) + 3 * _SORT_BLOCK - 1), (n - 2, n - 1)]
    if qcodes[edge - 1] == q - 1 and sizes[q] > 1:
        cases.append((edge, edge + 1))
    for a, b in cases:
        d = list(docs)
        d[b] = d[a]
        check(d, (a, b))
    # the same document under two queries that fall in different blocks is no repeat
    d = list(docs)
    d[n - 1] = d[0]
    check(d, None)


def test_qrels_error_comes_before_the_run_error_though_both_are_read_at_once(
        tmp_path: Path) -> None:
    """evaluate reads the qrels on a helper thread while it parses the run (inline inside
    one_thread): when both are bad, the qrels' error is raised, as when they were read in turn;
    a bad run alone raises its own error, and good inputs give the same values either way."""
    from ranger_eval.ir.readers import one_thread

    good_q, good_r = write(tmp_path, QRELS, "q.txt"), write(tmp_path, RUN, "r.txt")
    bad_q = write(tmp_path, "1 0 a x\n", "bq.txt")
    bad_r = write(tmp_path, "1 Q0 a 1 2.0 r\n1 Q0 b 2\n", "br.txt")
    for inline in (False, True):
        with one_thread() if inline else contextlib.nullcontext():
            with pytest.raises(TrecFormatError, match=rf"{bad_q}:1: relevance label"):
                ir.evaluate(bad_q, bad_r, "AP")
            with pytest.raises(TrecFormatError, match=rf"{bad_r}:2: expected"):
                ir.evaluate(good_q, bad_r, "AP")
            with pytest.raises(TrecFormatError, match=rf"{bad_q}:1: relevance label"):
                ir.evaluate(bad_q, good_r, "AP")
            values = ir.evaluate(good_q, good_r, ["AP", "nDCG@10"])["value"].tolist()
        assert values == [1.0, 1.0, 1.0, 1.0]


def test_one_thread_is_per_thread_and_nests() -> None:
    import threading

    from ranger_eval.ir.readers import helper_pool, one_thread, single_threaded

    seen = []
    with one_thread():
        assert single_threaded()
        with one_thread():
            assert single_threaded()
        assert single_threaded()  # the inner block restores, not clears
        other = threading.Thread(target=lambda: seen.append(single_threaded()))
        other.start()
        other.join()
        with helper_pool(2) as pool:  # inline: runs at once, errors delivered by result()
            assert pool.submit(lambda: threading.current_thread()).result() is \
                threading.current_thread()
            failed = pool.submit(lambda: 1 / 0)
            with pytest.raises(ZeroDivisionError):
                failed.result()
    assert seen == [False] and not single_threaded()
