"""Comparison and leaderboard tables: letters, escaping, signature line, formats."""
from __future__ import annotations

import io

import numpy as np
import pandas as pd
import pytest

from ranger_eval.comparison import (
    CompareError,
    Leaderboard,
    build_leaderboard,
    compare,
    system_letters,
)
from ranger_eval.report import to_csv, to_html, to_latex, to_markdown
from ranger_eval.report.tables import latex_escape, latex_signature

NAMES = ("base_1", "R&D %2", "top#3")


def _scores(n: int = 60, seed: int = 0) -> pd.DataFrame:
    """base_1 < R&D %2 << top#3 on d_1; on d_2 all three are indistinguishable."""
    rng = np.random.default_rng(seed)
    rows = []
    for d, shifts in (("d_1", (0.0, 0.05, 0.4)), ("d_2", (0.0, 0.0, 0.001))):
        base = rng.normal(0.5, 0.2, n)
        for s, shift in zip(NAMES, shifts, strict=True):
            v = base + shift + rng.normal(0, 0.05 if d == "d_1" else 0.3, n)
            rows += [(d, s, "nDCG@10", f"q{i}", float(x)) for i, x in enumerate(v)]
    return pd.DataFrame(rows, columns=["dataset", "system", "metric", "item", "value"])


@pytest.fixture(scope="module")
def comp():
    return compare(_scores(), n_resamples=100)


def test_system_letters():
    assert system_letters(3) == ("a", "b", "c")
    letters = system_letters(30)
    assert letters[25] == "z" and letters[26] == "aa" and len(set(letters)) == 30


def test_latex_escape():
    assert latex_escape("a_b & c% #1 $x$ {y} ~^\\") == (
        r"a\_b \& c\% \#1 \$x\$ \{y\} \textasciitilde{}\textasciicircum{}\textbackslash{}"
    )


def test_leaderboard_letters_follow_significance(comp):
    board = comp.leaderboard()
    assert isinstance(board, Leaderboard)
    assert board.systems == NAMES and board.letters == ("a", "b", "c")
    assert board.columns == (("d_1", "nDCG@10"), ("d_2", "nDCG@10"))
    t = comp.table
    for j, (d, m) in enumerate(board.columns):
        for i, s in enumerate(board.systems):
            expected = set()
            for r in t[(t["dataset"] == d) & (t["metric"] == m)].itertuples():
                if r.significant and s in (r.system_a, r.system_b):
                    other = r.system_b if s == r.system_a else r.system_a
                    mine = r.mean_a if s == r.system_a else r.mean_b
                    theirs = r.mean_b if s == r.system_a else r.mean_a
                    if mine > theirs:
                        expected.add(board.letters[NAMES.index(other)])
            assert set(board.beats[i][j]) == expected
    # the designed data: on d_1 top#3 beats both others and R&D beats base; d_2 has no winner
    assert board.beats[2][0] == "ab" and board.beats[1][0] == "a" and board.beats[0][0] == ""
    assert all(board.beats[i][1] == "" for i in range(3))


def test_leaderboard_frame_and_selection(comp):
    frame = comp.leaderboard().to_frame()
    assert frame.loc["top#3", ("d_1", "nDCG@10", "beats")] == "ab"
    mean = comp.means.set_index(["dataset", "system"]).loc[("d_2", "R&D %2"), "mean"]
    assert frame.loc["R&D %2", ("d_2", "nDCG@10", "mean")] == pytest.approx(mean)
    only = comp.leaderboard(dataset="d_2")
    assert only.columns == (("d_2", "nDCG@10"),)
    assert comp.leaderboard(metric="nDCG@10").columns == comp.leaderboard().columns
    with pytest.raises(CompareError, match="unknown dataset 'nope'"):
        comp.leaderboard(dataset="nope")
    with pytest.raises(CompareError, match="unknown metric"):
        comp.leaderboard(metric="AP")


def test_leaderboard_markdown(comp):
    md = to_markdown(comp.leaderboard())
    lines = md.splitlines()
    assert lines[0] == "| | system | d_1 | se | n | d_2 | se | n |"
    top = next(line for line in lines if "top#3" in line)
    assert "<sup>ab</sup>" in top and "**" in top  # best mean in bold
    assert comp.signature in md


def test_every_leaderboard_format_has_n_and_se_equal_to_describe(comp):
    """n, n_clusters and se per system × dataset × metric in CSV, Markdown,
    LaTeX, HTML (and the HTML report's JSON, tests/report/test_html.py), se = describe's."""
    import io

    import pandas as pd

    import ranger_eval as rg
    from ranger_eval.report import to_csv, to_html

    board = comp.leaderboard()
    want = rg.describe(comp.scores)
    csv = pd.read_csv(io.StringIO(to_csv(board)))
    md, tex, html = to_markdown(board), to_latex(board), to_html(board)
    for r in want.itertuples(index=False):
        i, j = board.systems.index(r.system), board.columns.index((r.dataset, r.metric))
        assert board.se[i, j] == r.se and board.n[i, j] == r.n
        assert board.n_clusters[i, j] == r.n_clusters
        row = csv[csv["system"] == r.system].iloc[0]
        assert row[f"{r.dataset} se"] == pytest.approx(r.se, rel=1e-15)
        assert row[f"{r.dataset} n"] == r.n and row[f"{r.dataset} n_clusters"] == r.n_clusters
        assert (row[f"{r.dataset} ci_low"], row[f"{r.dataset} ci_high"]) == pytest.approx(
            (r.ci_low, r.ci_high), rel=1e-15)
        assert row[f"{r.dataset} interval"] == r.interval
    shown = f"{want['se'].iloc[0]:.4f}"
    assert shown in md and shown in tex and f"<td>{shown}</td>" in html
    assert "<th>se</th><th>n</th>" in html and "standard error" in md


def test_leaderboard_latex_escapes_and_signature(comp):
    tex = to_latex(comp.leaderboard())
    assert r"R\&D \%2" in tex and r"top\#3" in tex and r"d\_1" in tex
    assert "$^{ab}$" in tex and r"\textbf{" in tex
    assert r"\toprule" in tex and r"\bottomrule" in tex
    assert latex_signature(comp.signature) in tex
    body = tex.split(r"\midrule")[1].split(r"\bottomrule")[0]
    assert "R&D" not in body and "_" not in body.replace(r"\_", "")


def test_leaderboard_html_and_csv(comp):
    page = to_html(comp.leaderboard())
    assert "R&amp;D %2" in page and "<sup>ab</sup>" in page and "<strong>" in page
    csv = to_csv(comp.leaderboard())
    assert csv.startswith("letter,system,")  # plain CSV: the header on line 1
    back = pd.read_csv(io.StringIO(csv), keep_default_na=False)
    assert list(back["system"]) == list(NAMES)
    assert back.loc[2, "d_1 beats"] == "ab"


def test_leaderboard_with_baseline_pairs_only_gives_baseline_letters():
    comp = compare(_scores(), pairs="baseline", baseline="base_1")
    board = comp.leaderboard()
    assert board.beats[0][0] == ""  # the baseline is never compared with the others' pairs
    assert board.beats[2][0] == "a" and board.beats[1][0] == "a"


def test_comparison_markdown(comp):
    md = to_markdown(comp)
    lines = md.splitlines()
    assert lines[0].startswith("| dataset | metric | system A | system B | mean A")
    assert len([line for line in lines if line.startswith("| d_")]) == len(comp.table)
    assert f"`{comp.signature}`" in md
    assert "yes" in md and "no" in md


def test_comparison_latex(comp):
    tex = to_latex(comp)
    rows = [line for line in tex.splitlines() if line.startswith(r"d\_")]
    assert len(rows) == len(comp.table)
    assert all(line.count(" & ") == 14 for line in rows)  # with the paired t's se and df
    assert "& se & df & test &" in tex
    assert r"R\&D \%2" in tex and r"top\#3" in tex
    assert "95\\% CI" in tex
    assert latex_signature(comp.signature) in tex


def test_comparison_html(comp):
    page = to_html(comp)
    assert page.count("<tr") == len(comp.table) + 1
    assert page.count('class="significant"') == int(comp.table["significant"].sum())
    assert "R&amp;D %2" in page and "<code>ranger-eval:" in page
    # non-significant pairs: the caption says what they could have detected (column mde)
    if (~comp.table["significant"]).any():
        assert "<caption>Not significant is not no difference:" in page


def test_tiny_pvalues_are_scientific(comp):
    tex = to_latex(comp)
    md = to_markdown(comp)
    assert r"\times10^{" in tex
    assert "e-" in md


def test_build_leaderboard_rejects_empty():
    empty = pd.DataFrame(columns=["dataset", "metric", "system", "mean"])
    with pytest.raises(ValueError, match="no means"):
        build_leaderboard(pd.DataFrame(), empty, ["a"], signature="s")


def test_removed_render_methods_are_attribute_errors(comp):
    """The deprecated Comparison.to_markdown() & co. are gone (0.1.0 has no users to protect):
    the report layer renders results (ranger_eval.report.to_markdown(comp) …)."""
    for method in ("to_markdown", "to_latex", "to_html"):
        with pytest.raises(AttributeError, match=method):
            getattr(comp, method)
    for method in ("to_markdown", "to_latex", "to_html", "to_csv"):
        with pytest.raises(AttributeError, match=method):
            getattr(comp.leaderboard(), method)
    assert to_markdown(comp).startswith("|") and "\\begin{table}" in to_latex(comp.leaderboard())


def test_csv_is_plain_and_reads_back(comp, tmp_path):
    import csv

    text = to_csv(comp)
    assert text.splitlines()[0] == ",".join(comp.table.columns)  # the header on line 1
    assert str(comp.signature) not in text  # the signature is in the folder's manifest.json
    back = pd.read_csv(io.StringIO(text))
    assert list(back.columns) == list(comp.table.columns) and len(back) == len(comp.table)
    rows = list(csv.DictReader(io.StringIO(text)))
    assert len(rows) == len(comp.table) and list(rows[0]) == list(comp.table.columns)
    path = tmp_path / "c.csv"
    assert to_csv(comp, path) == text and path.read_text() == text


def test_effect_sizes_read_as_names(comp):
    md = to_markdown(comp)
    assert "Cohen's d_z" in md and "cohens" not in md
    assert r"Cohen's d\_z" in to_latex(comp)


def test_ranking_renderings_are_imported_on_first_use_only():
    """Rendering a comparison does not import ranger_eval.aggregate (the ranking
    renderings register themselves when the first Ranking or RankTest is rendered), and that
    first rendering works in a fresh interpreter, through every public name."""
    import subprocess
    import sys

    code = """
import sys
import pandas as pd
import ranger_eval.report as report
assert "ranger_eval.aggregate" not in sys.modules, "report imported aggregate"
from ranger_eval.aggregate import rank_test
assert "ranger_eval.report.ranking" not in sys.modules
table = pd.DataFrame({"A": [0.1, 0.2, 0.3, 0.4], "B": [0.2, 0.25, 0.35, 0.5],
                      "C": [0.05, 0.1, 0.2, 0.3]}, index=["d1", "d2", "d3", "d4"])
res = rank_test(table)
md = report.to_markdown(res)
assert md == report.rank_test_markdown(res), "dispatch and the named function differ"
assert "| " in md and str(res.signature) in md
assert report.to_latex(res).startswith("\\\\begin{table}") or "tabular" in report.to_latex(res)
try:
    report.to_markdown(object())
except Exception as exc:
    assert type(exc).__name__ == "ReportError" and "no Markdown rendering for object" in str(exc)
else:
    raise AssertionError("no error")
print("ok")
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0 and out.stdout.strip() == "ok", out.stderr


def test_comparison_json_tables_are_columns_that_read_back_exactly(comp):
    """comparison.json holds each table as an object of columns (orjson: a million rows in
    seconds, not minutes): ``pandas.DataFrame`` of it is the table, every float to the last bit,
    with NaN as null and ±inf spelled out."""
    import json
    import math

    import ranger_eval.report.tables as tables

    frame = comp.table.copy()
    frame.loc[frame.index[0], "ci_high"] = math.inf
    frame.loc[frame.index[-1], "pvalue"] = math.nan
    got = json.loads(tables._columns_json(frame))
    assert list(got) == list(frame.columns)
    assert got["ci_high"][0] == "inf" and got["pvalue"][-1] is None
    for column in ("mean_a", "diff", "pvalue", "pvalue_adjusted", "ci_low"):
        for value, want in zip(got[column], frame[column].tolist(), strict=True):
            assert (value is None and math.isnan(want)) or value == want
    assert got["system_a"] == frame["system_a"].tolist()
    assert got["significant"] == frame["significant"].tolist()
    whole = json.loads(tables.comparison_json(comp))
    back = pd.DataFrame(whole["comparisons"])
    assert list(back.columns) == list(tables._comparison_rows(comp).columns)
    assert back["pvalue"].tolist() == comp.table["pvalue"].tolist()
    assert whole["signature"] == str(comp.signature) and whole["level"] == comp.level
    assert json.loads(tables._columns_json(frame.iloc[:, :0])) == {}


@pytest.mark.parametrize("values", [
    np.array([0.1, -0.0, np.nan, 5e-324, 1e-300, 1.7976931348623157e308, 1e16, 1e-5, 2.0]),
    np.array([np.nan, np.nan]),
    np.array([1.5, np.inf, -np.inf, np.nan]),
    np.array([0.1, 1 / 3], dtype=np.float32),
    np.array([-2**63, 0, 2**63 - 1], dtype=np.int64),
    np.array([0, 2**64 - 1], dtype=np.uint64),
    np.array([True, False]),
    pd.array(["a", 'q"uote', "ünï\n", ""], dtype="str"),
    pd.array(["a", None], dtype="str"),
    pd.array(["sys A", 'q"', "ünï/中\n", "b\\s", "\x1f"] * 5, dtype="str"),  # few distinct
    pd.array(["only"] * 9, dtype="str"),
    pd.array([], dtype="str"),
    np.array(["a", 1, None, 2.5], dtype=object),
    np.array([], dtype=np.float64),
], ids=["float", "all-nan", "inf", "float32", "int64", "uint64", "bool", "str", "str-missing",
        "str-repeated", "str-one", "str-empty", "mixed-object", "empty"])
def test_column_json_is_the_json_of_the_column_values(values):
    """comparison.json's numeric columns go to orjson as numpy arrays (no Python float per
    cell): the bytes are those of the column's JSON-ready Python values."""
    import orjson

    import ranger_eval.report.tables as tables

    column = pd.Series(values)
    assert tables._column_json(column) == orjson.dumps(tables._json_column(column))


def test_se_and_df_columns_only_where_a_test_has_them():
    """A table whose tests have no se (Wilcoxon) keeps the short header; the paired t's se and
    df appear after the interval, NaN cells shown as a dash."""
    import ranger_eval as rg
    from ranger_eval.report.tables import comparison_markdown, df_text, has_se_df
    scores = rg.Scores.from_arrays({"qa": {"a": [0.8, 0.6, 0.9, 0.7, 0.75, 0.85],
                                           "b": [0.7, 0.6, 0.8, 0.5, 0.7, 0.8]}})
    wil = rg.compare(scores, test="wilcoxon", n_resamples=100)
    assert not has_se_df(wil.table) and "| se |" not in comparison_markdown(wil)
    t = rg.compare(scores, test="paired-t")
    row = comparison_markdown(t).splitlines()[2].split(" | ")
    assert row[8:10] == [f"{t.table['se'][0]:.4f}", "5"]
    mixed = t.table.assign(se=[float("nan")], df=[float("nan")])
    mixed = pd.concat([t.table, mixed], ignore_index=True)
    assert comparison_markdown(mixed, "sig").splitlines()[3].split(" | ")[8:10] == ["–", "–"]
    assert (df_text(12.0), df_text(36.94), df_text(float("nan"))) == ("12", "36.9", "–")
