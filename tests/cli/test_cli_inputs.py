"""One input model and one wording across commands (help, errors, names)."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

import ranger_eval as rg
from ranger_eval.cli import app
from ranger_eval.cli._common import cli_words
from ranger_eval.errors import Hint, ScoresError

runner = CliRunner()


@pytest.mark.parametrize("command", [[], ["compare"], ["meta"], ["rank"], ["trec"], ["demo"]])
def test_help_shows_no_metavar_for_flags(command: list[str]) -> None:
    result = runner.invoke(app, [*command, "--help"], env={"COLUMNS": "140"})
    assert result.exit_code == 0, result.output
    assert "<bool>" not in result.output
    assert "--help" in result.output
    if command == ["compare"]:  # options that take a value keep theirs
        assert "<float>" in result.output and "--html" in result.output


# ------------------------------------------------------------------ errors in the CLI's words
def _gap_table(path: Path) -> Path:
    """Two systems on three datasets; B lacks one item of d1 (the pairing error)."""
    rng = np.random.default_rng(0)
    rows = [(d, s, "acc", f"q{i}", float(rng.random()))
            for d in ("d1", "d2", "d3") for s in ("A", "B") for i in range(12)
            if not (s == "B" and d == "d1" and i == 11)]
    pd.DataFrame(rows, columns=["dataset", "system", "metric", "item", "value"]).to_csv(
        path, index=False)
    return path


def test_hint_in_python_words_for_the_api() -> None:
    hint = Hint("missing", "intersect")
    assert hint.text == "pass missing='intersect'"
    assert Hint("metric").text == "pass metric="
    err = ScoresError(f"x ({hint.text})", hints=[hint])
    assert err.hints == (hint,) and str(err) == "x (pass missing='intersect')"


@pytest.mark.parametrize(("hint", "options", "words"), [
    (Hint("missing", "intersect"), ["--missing"], "pass --missing intersect"),
    (Hint("metrics"), ["--metric"], "pass --metric"),
    (Hint("degenerate", "drop"), ["--drop-degenerate"], "pass --drop-degenerate"),
    (Hint("allow_no_overlap", True), ["--allow-no-overlap"], "pass --allow-no-overlap"),
    (Hint("seeds", "allow-unbalanced"), ["--seeds"], "pass --seeds allow-unbalanced"),
    (Hint("missing", "intersect"), [], "set `missing: intersect` in the experiment YAML"),
    (Hint("higher_is_better", {"m": True}), ["--lower-is-better"],
     "set `aggregate.higher_is_better: {m: true}` in the experiment YAML"),
    (Hint("sizes"), ["--metric"], None),
])
def test_cli_words(hint: Hint, options: list[str], words: str | None) -> None:
    assert cli_words(hint, options) == words


def test_meta_error_names_no_python_keyword(tmp_path: Path) -> None:
    table = _gap_table(tmp_path / "gap.csv")
    result = runner.invoke(app, ["meta", str(table), "--control", "A", "--treatment", "B",
                                 "-o", str(tmp_path / "o")])
    assert result.exit_code == 2
    err = result.stderr
    assert "only in 'A': 'q11'" in err
    assert "missing='intersect'" not in err and "missing: intersect" in err


# ------------------------------------------------------------------ one input model
def _trec_inputs(folder: Path) -> tuple[Path, list[Path]]:
    """Qrels of 8 topics and three 6-field runs tagged bm25, dense, splade (files runA..C)."""
    rng = np.random.default_rng(1)
    qrels = folder / "qrels.txt"
    qrels.write_text("".join(f"{q} 0 D{d} {int(rng.integers(0, 3))}\n"
                             for q in range(1, 9) for d in range(12)))
    runs = []
    for name, tag in (("runA.txt", "bm25"), ("runB.txt", "dense"), ("runC.txt", "splade")):
        lines = []
        for q in range(1, 9):
            sc = rng.random(12)
            lines += [f"{q} Q0 D{d} {r + 1} {sc[d]:.4f} {tag}\n"
                      for r, d in enumerate(np.argsort(-sc))]
        (folder / name).write_text("".join(lines))
        runs.append(folder / name)
    return qrels, runs


@pytest.fixture(scope="module")
def trec_tables(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """``ranger-eval trec -q`` written as csv, tsv and json (with its 'all' rows)."""
    folder = tmp_path_factory.mktemp("trec")
    qrels, runs = _trec_inputs(folder)
    out = {}
    for fmt in ("csv", "tsv", "json"):
        result = runner.invoke(app, ["trec", str(qrels), *map(str, runs), "-q", "--format", fmt,
                                     "-m", "AP", "-m", "nDCG@10"])
        assert result.exit_code == 0, result.output
        out[fmt] = folder / f"perquery.{fmt}"
        out[fmt].write_text(result.stdout)
    return out


@pytest.mark.parametrize("fmt", ["csv", "tsv", "json"])
def test_compare_reads_every_trec_table_without_its_all_rows(
        trec_tables: dict[str, Path], tmp_path: Path, fmt: str) -> None:
    result = runner.invoke(app, ["compare", str(trec_tables[fmt]), "-o", str(tmp_path / "c"),
                                 "--figures", "none"])
    assert result.exit_code == 0, result.output
    # 3 runs × 2 measures: 6 'all' rows left out, and said so
    assert "left out 6 'all' row(s)" in result.stderr and "48 per-query row(s)" in result.stderr
    table = pd.read_csv(tmp_path / "c" / "comparison.csv", comment="#")
    assert len(table) == 2 * 3  # 3 pairs on each of 2 measures


def test_rank_and_compare_decide_alike(trec_tables: dict[str, Path], tmp_path: Path) -> None:
    """rank reads the trec -q table as per-item scores (as compare does), not as a wide table
    of datasets × systems: one collection is one dataset, which rank refuses by name."""
    result = runner.invoke(app, ["rank", str(trec_tables["csv"]), "-o", str(tmp_path / "r"),
                                 "--figures", "none"])
    assert result.exit_code == 2
    assert "rank needs at least two datasets" in result.stderr
    assert "not a number" not in result.stderr


def test_is_item_table() -> None:
    from ranger_eval.io.tables import is_item_table

    assert is_item_table(["run", "measure", "query_id", "value"])
    assert is_item_table(["item", "value", "system", "dataset", "metric"])
    assert not is_item_table(["dataset", "system", "value"])  # dataset level
    assert not is_item_table(["dataset", "bm25", "dense"])  # wide


def test_only_all_rows_is_an_error(tmp_path: Path) -> None:
    path = tmp_path / "summary.csv"
    path.write_text("run,measure,query_id,value\nbm25,AP,all,0.3\ndense,AP,all,0.4\n")
    result = runner.invoke(app, ["compare", str(path), "-o", str(tmp_path / "c")])
    assert result.exit_code == 2
    assert "only 'all' rows" in result.stderr and "trec -q" in result.stderr


# ------------------------------------------------------------------ names from the data
def test_runs_are_named_by_their_run_tag(tmp_path: Path) -> None:
    qrels, runs = _trec_inputs(tmp_path)
    result = runner.invoke(app, ["trec", str(qrels), *map(str, runs), "-m", "AP"])
    assert result.exit_code == 0, result.output
    assert [line.split("\t")[0] for line in result.stdout.splitlines()] == [
        "bm25", "dense", "splade"]
    assert "named by the file name" not in result.stderr


def test_file_name_when_the_tag_is_shared_or_absent(tmp_path: Path) -> None:
    qrels, runs = _trec_inputs(tmp_path)
    twin = tmp_path / "twin.txt"
    twin.write_text(runs[0].read_text())  # the same tag, bm25, as runA.txt
    four = tmp_path / "four.txt"  # Ranger's 4-field format: no tag
    four.write_text("".join(" ".join(line.split()[i] for i in (0, 2, 3, 4)) + "\n"
                            for line in runs[1].read_text().splitlines()))
    result = runner.invoke(app, ["trec", str(qrels), str(runs[0]), str(twin), str(four),
                                 str(runs[2]), "-m", "AP"])
    assert result.exit_code == 0, result.output
    names = [line.split("\t")[0] for line in result.stdout.splitlines()]
    assert names == ["runA.txt", "twin.txt", "four.txt", "splade"]
    assert "runA.txt (bm25), twin.txt (bm25): named by the file name" in result.stderr
    assert "four.txt: named by the file name: no single run tag" in result.stderr


def test_measures_come_back_as_written(tmp_path: Path) -> None:
    qrels, runs = _trec_inputs(tmp_path)
    result = runner.invoke(app, ["trec", str(qrels), str(runs[0]), "-m", "map", "-m",
                                 "ndcg_cut.10", "-m", "recip_rank", "-m", "P@5"])
    assert result.exit_code == 0, result.output
    assert [line.split("\t")[0].strip() for line in result.stdout.splitlines()] == [
        "map", "ndcg_cut_10", "recip_rank", "P@5"]


@pytest.mark.parametrize("measure", ["map", "ndcg@10"])
def test_ir_experiment_keeps_the_measure_name(tmp_path: Path, measure: str) -> None:
    """`ir: measure: map` in an experiment: the tables say map (and meta finds it: it used to
    stop with "unknown metric 'map'; known: 'AP'"); `ndcg@10` stays `ndcg@10`."""
    qrels, runs = _trec_inputs(tmp_path)
    (tmp_path / "exp.yaml").write_text(
        f"ir: {{measure: {measure}}}\ncontrol: bm25\ntreatment: dense\n"
        "tasks:\n  - {id: t1, qrels: qrels.txt}\n  - {id: t2, qrels: qrels.txt}\n"
        "systems:\n  bm25: {runs: {t1: runA.txt, t2: runA.txt}}\n"
        "  dense: {runs: {t1: runB.txt, t2: runC.txt}}\n")
    result = runner.invoke(app, ["compare", str(tmp_path / "exp.yaml"), "-o",
                                 str(tmp_path / "c"), "--figures", "none"])
    assert result.exit_code == 0, result.output
    table = pd.read_csv(tmp_path / "c" / "comparison.csv", comment="#")
    assert set(table["metric"]) == {measure}
    result = runner.invoke(app, ["meta", str(tmp_path / "exp.yaml"), "-o",
                                 str(tmp_path / "m"), "--figures", "none"])
    assert result.exit_code == 0, result.output


def test_written_names() -> None:
    from ranger_eval.ir.measures import written_names

    assert written_names(["map", "ndcg_cut.10", "ndcg@10", "P.5", "P", "recip_rank"]) == {
        "AP": "map", "nDCG@10": "ndcg_cut_10", "P@5": "P_5", "RR": "recip_rank"}
    assert written_names(["ndcg@10", "map", "P", "ndcg_cut.5"], verbatim=True) == {
        "nDCG@10": "ndcg@10", "AP": "map", "nDCG@5": "ndcg_cut.5"}


def test_compare_error_names_cli_options_not_keywords(tmp_path: Path) -> None:
    table = _gap_table(tmp_path / "gap.csv")
    result = runner.invoke(app, ["compare", str(table), "-o", str(tmp_path / "o"),
                                 "--figures", "none"])
    assert result.exit_code == 2
    err = result.stderr
    assert "only in 'A': 'q11'" in err
    assert "paired=False" not in err and "missing='intersect'" not in err
    assert "--test welch (or mannwhitney) to treat them as independent samples" in err


def test_api_error_keeps_python_keywords() -> None:
    import ranger_eval as rg

    df = pd.DataFrame({"dataset": "d", "system": ["A"] * 3 + ["B"] * 2, "metric": "m",
                       "item": ["a", "b", "c", "a", "b"], "value": [1.0, 2, 3, 1, 2]})
    with pytest.raises(ScoresError) as info:
        rg.compare(rg.Scores(df))
    assert "pass missing='intersect'" in str(info.value)
    assert [h.keyword for h in info.value.hints] == ["missing", "paired"]


def test_rank_error_names_the_control_option(tmp_path: Path) -> None:
    table = pd.DataFrame({"dataset": ["d1", "d2", "d3", "d4"], "A": [1.0, 2, 3, 4],
                          "B": [2.0, 3, 1, 5], "C": [0.5, 1, 2, 3]})
    table.to_csv(tmp_path / "wide.csv", index=False)
    result = runner.invoke(app, ["rank", str(tmp_path / "wide.csv"), "--posthoc", "holm",
                                 "-o", str(tmp_path / "r"), "--figures", "none"])
    assert result.exit_code == 2
    assert "pass --control, one of 'A', 'B', 'C'" in result.stderr
    assert "control=" not in result.stderr


@pytest.mark.parametrize("text", ["dataset,system,value\nd1,A,0.5\nd1,B,0.6\n",
                                  "dataset,A,B\nd1,0.5,0.6\nd2,0.4,0.7\n"])
def test_dataset_level_table_to_compare_points_to_rank(tmp_path: Path, text: str) -> None:
    path = tmp_path / "t.csv"
    path.write_text(text)
    result = runner.invoke(app, ["compare", str(path), "-o", str(tmp_path / "c")])
    assert result.exit_code == 2
    assert "t.csv: no 'item' column" in result.stderr
    assert "is an input of `ranger-eval rank`" in result.stderr


def test_compare_missing_option_and_yaml_key(tmp_path: Path) -> None:
    """`--missing intersect` (and the experiment's top-level `missing:`) reach compare, whose
    error names that option."""
    table = _gap_table(tmp_path / "gap.csv")
    result = runner.invoke(app, ["compare", str(table), "-o", str(tmp_path / "a"),
                                 "--figures", "none"])
    assert result.exit_code == 2 and "pass --missing intersect" in result.stderr
    result = runner.invoke(app, ["compare", str(table), "-o", str(tmp_path / "b"),
                                 "--figures", "none", "--missing", "intersect"])
    assert result.exit_code == 0, result.output
    assert "dropped 1 item(s) not scored for both 'A' and 'B'" in result.stderr
    (tmp_path / "exp.yaml").write_text("scores: gap.csv\nmissing: intersect\n")
    result = runner.invoke(app, ["compare", str(tmp_path / "exp.yaml"), "-o",
                                 str(tmp_path / "c"), "--figures", "none"])
    assert result.exit_code == 0, result.output
    result = runner.invoke(app, ["compare", str(table), "-o", str(tmp_path / "d"),
                                 "--missing", "both"])
    assert result.exit_code == 2
    assert "option --missing: unknown missing policy 'both'" in result.stderr


def test_a_keyword_the_command_cannot_set_is_said_to_be_the_apis(tmp_path: Path) -> None:
    qrels, runs = _trec_inputs(tmp_path)
    (tmp_path / "other.txt").write_text("q9 Q0 a 1 1.0 r\nq8 Q0 b 1 1.0 r\n")
    (tmp_path / "exp.yaml").write_text(
        "ir: {measure: map}\ntasks: [{id: t1, qrels: qrels.txt}]\n"
        "systems:\n  bm25: {runs: {t1: runA.txt}}\n  other: {runs: {t1: other.txt}}\n")
    result = runner.invoke(app, ["compare", str(tmp_path / "exp.yaml"), "-o",
                                 str(tmp_path / "o"), "--figures", "none"])
    assert result.exit_code == 2
    assert "(in the Python API, pass allow_no_overlap=True to evaluate anyway)" in result.stderr


def test_lazy_and_in_memory_say_items_differ_alike(tmp_path: Path) -> None:
    """One message (comparison.dispatch.items_differ_error) for both engines, with its hints."""
    import ranger_eval as rg

    df = pd.DataFrame({"dataset": "d", "system": ["A"] * 3 + ["B"] * 2, "metric": "m",
                       "item": ["a", "b", "c", "a", "b"], "value": [1.0, 2, 3, 1, 2]})
    df.to_parquet(tmp_path / "s.parquet", index=False)
    with pytest.raises(ScoresError) as mem:
        rg.compare(rg.Scores(df), test="paired-t")
    with pytest.raises(ScoresError) as lazy:
        rg.compare(rg.lazy.open_scores(tmp_path / "s.parquet"), test="paired-t")
    assert str(mem.value) == str(lazy.value)
    assert [h.keyword for h in lazy.value.hints] == ["missing"]


def test_a_txt_table_says_how_to_write_trec_output(tmp_path: Path) -> None:
    qrels, runs = _trec_inputs(tmp_path)
    result = runner.invoke(app, ["trec", str(qrels), *map(str, runs[:2]), "-q", "-m", "AP"])
    (tmp_path / "both.txt").write_text(result.stdout)
    result = runner.invoke(app, ["compare", str(tmp_path / "both.txt"), "-o",
                                 str(tmp_path / "c")])
    assert result.exit_code == 2
    assert "unknown file type '.txt' for a table of scores" in result.stderr
    assert "write it with --format csv" in result.stderr


# ------------------------------------------------------------------ both languages
def test_hint_set_form_in_python_and_cli_words() -> None:
    hint = Hint("cluster", "passage", form="set")
    assert hint.text == "cluster='passage'"
    assert cli_words(hint, ["--cluster"]) == "--cluster passage"
    assert cli_words(Hint("metrics", form="set"), ["--metric"]) == "--metric"
    with pytest.raises(ValueError, match="form must be"):
        Hint("x", form="say")


def test_warning_hints_speak_each_callers_language(tmp_path: Path) -> None:
    """The Inspect adapter's note that a clustered stderr was not checked: from Python it names
    ``cluster='passage'``, from the command line ``--cluster passage`` (one RangerWarning with
    its hints; the CLI renders them)."""
    import warnings

    from ranger_eval.errors import RangerWarning
    from ranger_eval.io import read_scores

    logs = Path(__file__).parents[1] / "oracles" / "inspect_clusters" / "json"
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        read_scores(logs / "weak.json")
    notes = [w.message for w in caught if isinstance(w.message, RangerWarning)]
    assert notes and "read the log with cluster='passage' to check it" in str(notes[0])
    assert notes[0].hints == (Hint("cluster", "passage", form="set"),)
    result = runner.invoke(app, ["compare", str(logs), "--system-from", "task_args.strong",
                                 "--figures", "none", "-o", str(tmp_path / "o")])
    assert result.exit_code == 0, result.output
    assert "read the log with --cluster passage to check it" in result.stderr
    assert "cluster=" not in result.stderr.replace("stderr(cluster=passage)", "")


def test_margin_without_hypothesis_in_both_languages(tmp_path: Path) -> None:
    with pytest.raises(rg.RangerError, match=r"only used with hypothesis='non-inferiority' or "
                                             r"hypothesis='equivalence' \(got "
                                             r"hypothesis='superiority'\)"):
        rg.compare(pd.read_csv(_gap_table(tmp_path / "g.csv")), margin=0.1,
                   missing="intersect")
    result = runner.invoke(app, ["compare", str(_gap_table(tmp_path / "t.csv")), "--margin",
                                 "0.1", "-o", str(tmp_path / "o")])
    assert result.exit_code == 2
    assert ("only used with --hypothesis non-inferiority or --hypothesis equivalence (got "
            "--hypothesis superiority)") in result.stderr
    assert "hypothesis=" not in result.stderr
