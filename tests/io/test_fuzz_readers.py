"""Property-based tests (hypothesis) of every reader in ranger_eval.io.

* random bytes: never an exception other than a RangerError naming the file;
* random line endings (LF / CRLF), a UTF-8 byte-order mark and gzip give the identical result;
  UTF-16 and CR-only files are rejected with a message naming the file and the problem;
* random identifiers ("01", "1", "NA", "null", "None", "", blanks, unicode, commas and quotes,
  properly quoted) round-trip exactly through CSV, TSV, JSON Lines and Parquet.
"""
from __future__ import annotations

import csv
import gzip
import io
import json
import re
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ranger_eval.errors import InputError, RangerError
from ranger_eval.io import load_experiment, read_item_scores, read_scores, read_values
from ranger_eval.io.adapters import load_adapter
from ranger_eval.io.tables import read_table

FUZZ = settings(max_examples=12, deadline=None,
                suppress_health_check=[HealthCheck.function_scoped_fixture,
                                       HealthCheck.too_slow])

#: every reader, with a file name it is given
READERS: dict[str, tuple[str, Callable[[Path], Any]]] = {
    "values": ("s.txt", read_values),
    "item-scores": ("s.csv", read_item_scores),
    "csv": ("t.csv", read_table),
    "tsv": ("t.tsv", read_table),
    "jsonl": ("t.jsonl", read_table),
    "parquet": ("t.parquet", read_table),
    "scores-auto": ("t.csv", read_scores),
    "scores-auto-json": ("t.json", read_scores),
    "yaml": ("exp.yaml", load_experiment),
    "lm-eval": ("results.json", lambda p: load_adapter(p, "lm-eval")),
    "inspect": ("log.json", lambda p: load_adapter(p, "inspect")),
    "inspect-eval": ("log.eval", lambda p: load_adapter(p, "inspect")),
    "helm": ("per_instance_stats.json", lambda p: load_adapter(p, "helm")),
    "pyterrier": ("p.csv", lambda p: load_adapter(p, "pyterrier")),
    "trec-eval-q": ("q.txt", lambda p: load_adapter(p, "trec-eval-q")),
    "beir": ("run.json", lambda p: load_adapter(p, "beir")),
    "tsml": ("r.csv", lambda p: load_adapter(p, "tsml")),
}

#: prefixes that steer random bytes into each format's parser rather than its first check
PREFIXES = [b"", b"\xef\xbb\xbf", b"\x1f\x8b", b"PK\x03\x04", b"{", b"[", b'{"results": {',
            b"dataset,system,item,value\n", b"name,qid,measure,value\n", b"map\t1\t",
            b"d,e,test,0,MILLISECONDS\np\n0.5,1,2,3,4,5,x,7,8\n", b"\xff\xfe", b"PAR1"]


def _call(read: Callable[[Path], Any], path: Path) -> Any:
    """Read ``path``; a RangerError must name the file; anything else fails the test."""
    try:
        return read(path)
    except RangerError as exc:
        msg = str(exc)
        assert str(path) in msg or path.name in msg or str(path.parent) in msg, msg
        assert len(msg.splitlines()) < 10, msg
        return exc


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("name", sorted(READERS))
@FUZZ
@given(prefix=st.sampled_from(PREFIXES), data=st.binary(max_size=300),
       text=st.text(max_size=200))
def test_random_bytes_give_a_result_or_an_error_naming_the_file(
        name: str, prefix: bytes, data: bytes, text: str) -> None:
    fname, read = READERS[name]
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / fname
        for content in (prefix + data, prefix + text.encode("utf-8", "surrogatepass"),
                        gzip.compress(prefix + data)):
            path.write_bytes(content)
            _call(read, path)


# ------------------------------------------------------------------- equivalent encodings
def _variants(text: str) -> dict[str, bytes]:
    lf = text.encode("utf-8")
    crlf = text.replace("\n", "\r\n").encode("utf-8")
    return {"lf": lf, "crlf": crlf, "bom": b"\xef\xbb\xbf" + lf, "bom-crlf": b"\xef\xbb\xbf" + crlf,
            "gzip": gzip.compress(lf), "gzip-bom-crlf": gzip.compress(b"\xef\xbb\xbf" + crlf)}


def _same(a: Any, b: Any) -> None:
    if isinstance(a, np.ndarray):
        np.testing.assert_array_equal(a, b)
    elif isinstance(a, (pd.DataFrame, pd.Series)):
        pd.testing.assert_frame_equal(a, b) if isinstance(a, pd.DataFrame) else \
            pd.testing.assert_series_equal(a, b)
    elif hasattr(a, "scores") and hasattr(a, "reported"):  # AdapterResult
        _same(a.scores.frame if a.scores is not None else None,
              b.scores.frame if b.scores is not None else None)
        _same(a.reported, b.reported)
    elif hasattr(a, "frame"):  # Scores
        pd.testing.assert_frame_equal(a.frame, b.frame)
    elif hasattr(a, "config"):  # Experiment
        assert a.config == b.config
    else:
        assert a == b


IDS = st.one_of(
    st.sampled_from(["01", "1", "1.0", "NA", "null", "None", "nan", "", " ", " a ", "\t",
                     "é", "日本", "a,b", 'say "hi"', "'q'", "#x", "-0", "1e3", "TRUE"]),
    st.text(alphabet=st.characters(blacklist_categories=["Cs"], blacklist_characters="\r\x00"),
            max_size=8),
)
VALUES = st.floats(min_value=-1e6, max_value=1e6, allow_nan=False, allow_infinity=False)


def _csv_text(rows: list[list[Any]], sep: str) -> str:
    buf = io.StringIO()
    writer = csv.writer(buf, delimiter=sep, lineterminator="\n", quoting=csv.QUOTE_MINIMAL)
    writer.writerows(rows)
    return buf.getvalue()


@st.composite
def tidy(draw: st.DrawFn, blank: bool = True) -> tuple[list[str], list[float]]:
    """Ids and values of one system; ``blank=False``: no empty or whitespace-only id (those are
    an error of every score reader)."""
    ids = draw(st.lists(IDS if blank else IDS.filter(str.strip), min_size=1, max_size=6,
                        unique=True))
    values = draw(st.lists(VALUES, min_size=len(ids), max_size=len(ids)))
    return ids, values


def _files(ids: list[str], values: list[float]) -> dict[str, tuple[str, str]]:
    """Reader name -> (file name, text) holding the same per-item scores."""
    rows = [["dataset", "system", "item", "value"]]
    rows += [["d", s, i, repr(v)] for s in ("a", "b") for i, v in zip(ids, values, strict=True)]
    jsonl = "".join(json.dumps({"dataset": "d", "system": s, "item": i, "value": v},
                               ensure_ascii=False) + "\n"
                    for s in ("a", "b") for i, v in zip(ids, values, strict=True))
    plain = [i for i in ids if i.strip() and not any(c.isspace() for c in i)]
    trec = "".join(f"map\t{i}\t{v!r}\n" for i, v in zip(ids, values, strict=True) if i in plain)
    trec += "runid\tall\tsys\nmap\tall\t0.5\n"
    pyt = _csv_text([["name", "qid", "measure", "value"]] +
                    [["sys", i, "AP", repr(v)] for i, v in zip(ids, values, strict=True) if i],
                    ",")  # PyTerrier ids are never empty (an empty qid is an error)
    return {
        "csv": ("t.csv", _csv_text(rows, ",")),
        "tsv": ("t.tsv", _csv_text(rows, "\t")),
        "jsonl": ("t.jsonl", jsonl),
        "values": ("s.txt", "".join(f"{v!r}\n" for v in values) + "\n"),
        "item-scores": ("s.csv", _csv_text([["item", "value"]] +
                                           [[i, repr(v)] for i, v in zip(ids, values, strict=True)],
                                           ",")),
        "pyterrier": ("p.csv", pyt if any(ids) else ""),
        "trec-eval-q": ("q.txt", trec if plain else ""),
        "tsml": ("r.csv", "d,e,test,0,MILLISECONDS\nparams\n0.5,1,2,3,4,5,x,7,8\n" +
                 "".join(f"{int(abs(v)) % 3},{int(abs(v) * 7) % 3}\n" for v in values)),
        "yaml": ("exp.yaml", yaml.safe_dump({"title": ids[0]}, allow_unicode=True) +
                 "tasks: [t]\nsystems:\n  a: {files: {t: a.txt}}\n"),
        "beir": ("run.json", json.dumps({"q" + str(n): {i: v for i, v in zip(ids, values,
                                                                              strict=True)}
                                         for n in range(2)}, indent=1, ensure_ascii=False)),
    }


EQUIVALENT = ["csv", "tsv", "jsonl", "values", "item-scores", "pyterrier", "trec-eval-q", "tsml",
              "yaml", "beir"]


@pytest.mark.filterwarnings("ignore::UserWarning")
@settings(FUZZ, max_examples=5)
@given(data=tidy(blank=False))
def test_reencoded_files_give_the_identical_result(data: tuple[list[str], list[float]]) -> None:
    ids, values = data
    files = _files(ids, values)
    with tempfile.TemporaryDirectory() as folder:
        for name in EQUIVALENT:
            fname, text = files[name]
            if not text:
                continue
            read = READERS[name][1] if name != "beir" else (lambda p: load_adapter(p, "beir").run)
            results = {}
            for variant, content in _variants(text).items():
                path = Path(folder) / variant / fname
                path.parent.mkdir(exist_ok=True)
                path.write_bytes(content)
                results[variant] = read(path)
            for variant, res in results.items():
                if name in ("yaml",):
                    assert res.config == results["lf"].config, variant
                else:
                    _same(results["lf"], res)
            for bad, what in ((b"\xff\xfe" + text.encode("utf-16-le"), "UTF-16 little-endian"),
                              (b"\xfe\xff" + text.encode("utf-16-be"), "UTF-16 big-endian"),
                              (text.encode("utf-16-le"), "NUL byte|not UTF-8")):
                path = Path(folder) / "bad" / fname
                path.parent.mkdir(exist_ok=True)
                path.write_bytes(bad)
                with pytest.raises(RangerError, match=what) as info:
                    read(path)
                assert str(path) in str(info.value)
            if "\n" in text.rstrip("\n") and name not in ("beir",):
                path = Path(folder) / "cr" / fname
                path.parent.mkdir(exist_ok=True)
                path.write_bytes(text.replace("\n", "\r").encode("utf-8"))
                with pytest.raises(RangerError, match="CR-only line endings"):
                    read(path)


# ------------------------------------------------------------------- exact identifiers
@FUZZ
@given(data=tidy())
def test_identifiers_round_trip_exactly(data: tuple[list[str], list[float]]) -> None:
    """Every non-blank id is read exactly as written; a blank one ("", " ", "\t") is an error
    naming the file, the line and the column (never legitimate: tables.py)."""
    ids, values = data
    files = _files(ids, values)
    blank = any(not i.strip() for i in ids)
    with tempfile.TemporaryDirectory() as folder:
        expected = sorted(ids)
        for name in ("csv", "tsv", "jsonl"):
            fname, text = files[name]
            path = Path(folder) / fname
            path.write_text(text, encoding="utf-8", newline="")
            frame = read_table(path)
            assert sorted(frame.loc[frame["system"] == "a", "item"]) == expected, name
            if blank:
                with pytest.raises(InputError, match=rf"{re.escape(str(path))}:\d+: "
                                   r"(empty|blank .*) 'item'"):
                    read_scores(path)
                continue
            scores = read_scores(path)
            assert sorted(scores.frame.loc[scores.frame["system"] == "a", "item"]) == expected
            got = scores.frame.set_index(["system", "item"])["value"]
            for i, v in zip(ids, values, strict=True):
                assert got["b", i] == v
        path = Path(folder) / "t.parquet"
        pd.DataFrame({"dataset": "d", "system": "a", "item": ids, "value": values}).to_parquet(path)
        assert sorted(read_table(path)["item"]) == expected
        fname, text = files["item-scores"]
        path = Path(folder) / fname
        path.write_text(text, encoding="utf-8", newline="")
        if blank:
            with pytest.raises(InputError, match=rf"{re.escape(str(path))}:\d+: "
                               r"(empty|blank .*) 'item'"):
                read_item_scores(path)
            return
        series = read_item_scores(path)
        assert list(series.index) == ids
        assert series.to_numpy().tolist() == values
        fname, text = files["pyterrier"]
        path = Path(folder) / fname
        if text:
            path.write_text(text, encoding="utf-8", newline="")
            res = load_adapter(path, "pyterrier")
            assert res.scores is not None
            assert list(res.scores.frame["item"]) == [i for i in ids if i]


def test_item_column_named_in_the_config_keeps_leading_zeros(tmp_path: Path) -> None:
    """``item_column`` other than ``item`` is read as exact strings too."""
    p = tmp_path / "s.csv"
    p.write_text("example_id,f1\n01,0.5\n1,0.25\nNA,1\n")
    series = read_item_scores(p, item_column="example_id", value_column="f1")
    assert list(series.index) == ["01", "1", "NA"]
