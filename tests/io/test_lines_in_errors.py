"""Every error about a value read from a file names the file and the line as an
editor numbers it (Parquet: the row), including the checks made after parsing."""
from __future__ import annotations

import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ranger_eval.errors import InputError
from ranger_eval.io import read_scores
from ranger_eval.io.tables import check_ids, read_table, row_location
from ranger_eval.pipeline import read_rank_input


@pytest.mark.parametrize("sep, suffix, signature", [(",", "csv", False), ("\t", "tsv", True)])
def test_unclosed_quote_names_the_line_it_opens(tmp_path, sep, suffix, signature):
    rows = ["dataset,system,item,value", "d,a,1,0.5", 'd,a,"2,0.5', "d,b,1,0.5", "d,b,2,0.5"]
    text = ("# ranger-eval:x\n" if signature else "") + "\n".join(
        r.replace(",", sep) for r in rows) + "\n"
    path = tmp_path / f"s.{suffix}"
    path.write_text(text)
    with pytest.raises(InputError, match=rf"s\.{suffix}:{3 + signature}: a quote .* never closed"):
        read_scores(path)


def test_row_location_per_format(tmp_path):
    csv = tmp_path / "t.csv"
    csv.write_text("# ranger-eval:x\ndataset,system,value\nd,a,1\nd,b,2\n")
    jsonl = tmp_path / "t.jsonl"
    jsonl.write_text('{"dataset": "d", "system": "a", "value": 1}\n\n'
                     '{"dataset": "d", "system": "b", "value": 2}\n')
    parquet = tmp_path / "t.parquet"
    pd.read_csv(csv, comment="#").to_parquet(parquet)
    assert row_location(read_table(csv), csv, 1) == f"{csv}:4"
    assert row_location(read_table(jsonl), jsonl, 1) == f"{jsonl}:3"
    assert row_location(read_table(parquet), parquet, 1) == f"{parquet}, row 2"


def test_check_ids_counts_every_blank(tmp_path):
    path = tmp_path / "t.csv"
    path.write_text("dataset,system,value\nd,a,1\n,b,2\n ,c,3\nd,,4\n")
    frame = read_table(path)
    with pytest.raises(InputError, match=r"t\.csv:3: empty 'dataset' \(.*; 2 such rows\)"):
        check_ids(frame, path, ("dataset", "system"))
    with pytest.raises(InputError, match=r"t\.csv:5: empty 'system'"):
        check_ids(frame, path, ("system",))


def test_rank_tables_name_file_and_line(tmp_path):
    wide = tmp_path / "wide.csv"
    wide.write_text("# ranger-eval:x\ndataset,bm25,dense\nnq,0.3,0.4\nfiqa,0.2,n/a\n")
    with pytest.raises(InputError, match=r"wide\.csv:4: system 'dense' on dataset 'fiqa': not a "
                       r"number \('n/a'\)"):
        read_rank_input(wide)
    wide.write_text("task,bm25,dense\nnq,0.3,0.4\n,0.2,0.1\n")
    with pytest.raises(InputError, match=r"wide\.csv:3: missing 'task'"):
        read_rank_input(wide)
    tidy = tmp_path / "tidy.csv"
    tidy.write_text("dataset,system,value\nnq,bm25,0.3\nnq,\t,0.4\n")
    with pytest.raises(InputError, match=r"tidy\.csv:3: blank \('\\t'\) 'system'"):
        read_rank_input(tidy)


@pytest.mark.parametrize("body, where", [
    ("scores: s.csv\nmeta:\n  control: A\n  treatment: B\n  seeds: some\n", "e.yaml:5: meta.seeds"),
    ("scores: s.csv\nlevel: 1.5\nmeta: {control: A, treatment: B}\n", "e.yaml:2: level"),
    ("scores: s.csv\nmeta:\n  method: XYZ\n  control: A\n  treatment: B\n", "e.yaml:3: method"),
    ("tasks: [t]\nsystems:\n  x:\n    files: {t: a.txt}\n    item_colum: id\n",
     "e.yaml:5: systems.x.item_colum"),
])
def test_yaml_value_errors_name_line_and_key(tmp_path, body, where):
    from ranger_eval.errors import ConfigError
    from ranger_eval.io import load_experiment

    (tmp_path / "e.yaml").write_text(body)
    with pytest.raises(ConfigError) as info:
        load_experiment(tmp_path / "e.yaml")
    assert f"{tmp_path / where}:" in str(info.value)
    assert "meta_" not in str(info.value)


@settings(max_examples=25, deadline=None)
@given(st.lists(st.one_of(st.none(), st.text(alphabet=" \t\n\x1c\u3000\xa0ab", max_size=3)),
                min_size=1, max_size=12), st.sampled_from([object, "str"]))
def test_check_ids_finds_exactly_the_missing_empty_and_whitespace_ids(ids, dtype):
    """The one-pass test of text ids agrees with the definition: a missing id, an empty one or
    one of whitespace only (str.isspace, so \\x1c and U+3000 too) is blank; the error names the
    first such row (1-based, Parquet) and counts them all; the same for Python strings (CSV,
    JSON) and Arrow strings (Parquet)."""
    from pathlib import Path

    frame = pd.DataFrame({"dataset": pd.Series(ids, dtype=dtype)})
    frame.attrs["row_numbers"] = True
    blank = [r for r, v in enumerate(ids) if v is None or v == "" or v.isspace()]
    if not blank:
        check_ids(frame, Path("t.parquet"), ("dataset",))
        return
    count = f"; {len(blank)} such rows" if len(blank) > 1 else ""
    with pytest.raises(InputError, match=rf"t\.parquet, row {blank[0] + 1}: .*'dataset' "
                       rf"\(every row needs a non-blank dataset id{count}\)"):
        check_ids(frame, Path("t.parquet"), ("dataset",))


def test_parquet_ids_stay_arrow_strings_and_blank_ones_are_named(tmp_path):
    """Parquet's Arrow string ids are read as they are (no Python object per id: a million
    datasets read in seconds) and a whitespace-only one is still an error naming its row."""
    from ranger_eval.io import read_scores

    path = tmp_path / "t.parquet"
    frame = pd.DataFrame({"dataset": ["d", "d", "d", "d"], "system": ["a", "b", "a", "b"],
                          "item": ["q1", "q1", "q2", "\u3000"], "value": [0.1, 0.2, 0.3, 0.4]})
    frame.iloc[:3].to_parquet(path)
    assert isinstance(read_table(path)["item"].dtype, pd.StringDtype)
    assert read_scores(path).table["item"].tolist() == ["q1", "q1", "q2"]
    frame.to_parquet(path)
    with pytest.raises(InputError, match=r"t\.parquet, row 4: blank \('\\u3000'\) 'item'"):
        read_scores(path)
