"""Plain outputs: every CSV that a command writes has its header on line 1 and
reads unchanged with ``pandas.read_csv`` and ``csv.DictReader``; ``manifest.json`` lists every
file of the folder with the signature of the result it holds; every command writes one JSON with
its full result at full precision; no lock file is left behind."""
from __future__ import annotations

import csv
import json
import math

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from ranger_eval.cli import app
from ranger_eval.output import OutputFolder, footer_signature
from ranger_eval.pipeline import run_compare, run_meta, run_rank
from tests.helpers.outputs import check_csv, check_folder


def _scores(n_items: int = 12, seed: int = 1) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    rows = [{"dataset": d, "system": s, "metric": "acc", "item": f"i{i}",
             "value": float(rng.normal(0.5 + 0.1 * k, 0.2))}
            for d in ("d1", "d2", "d3") for k, s in enumerate(("a", "b", "c"))
            for i in range(n_items)]
    return pd.DataFrame(rows)


def test_compare_writes_plain_csv_one_json_and_a_full_manifest(tmp_path):
    table = tmp_path / "scores.csv"
    _scores().to_csv(table, index=False)
    run = run_compare(table, tmp_path / "out", figures="none", n_resamples=100)
    comp = run.result
    sig = str(comp.signature)
    out = tmp_path / "out"
    board = pd.read_csv(out / "leaderboard.csv")  # mean, se, n, clusters, interval
    check_folder(out, {"comparison.csv": list(comp.table.columns),
                       "leaderboard.csv": list(board.columns)},
                 {"comparison.csv": sig, "comparison.json": sig, "comparison.md": sig,
                  "leaderboard.csv": sig})
    assert {"letter", "system"} <= set(board.columns)
    assert all(any(c.endswith(f" {k}") for c in board.columns)
               for k in ("mean", "se", "n", "n_clusters", "ci_low", "ci_high", "interval"))
    # the JSON holds the whole result at full precision: the CSV's numbers, to the last bit
    result = json.loads((out / "comparison.json").read_text(encoding="utf-8"))
    assert result["signature"] == sig and result["level"] == comp.level
    rows, means = pd.DataFrame(result["comparisons"]), pd.DataFrame(result["means"])
    assert len(rows) == len(comp.table) and len(means) == len(comp.means)
    # the means carry the leaderboard's design and interval: describe's numbers
    described = comp.described_means()
    for key in ("se", "n_clusters", "ci_low", "ci_high"):
        assert means[key].tolist() == described[key].tolist(), key
    assert means["interval"].tolist() == described["interval"].tolist()
    for key in ("mean_a", "diff", "pvalue", "pvalue_adjusted", "ci_low", "ci_high"):
        for got, value in zip(result["comparisons"][key], comp.table[key].tolist(), strict=True):
            assert (got is None and math.isnan(value)) or got == value, key
    frame = pd.read_csv(out / "comparison.csv")
    assert frame["pvalue"].tolist() == comp.table["pvalue"].tolist()  # CSV at full precision


def test_manifest_signs_each_figure_with_the_result_it_draws(tmp_path):
    import matplotlib.pyplot as plt

    from ranger_eval.plots._style import add_signature

    def drawn(signature: str | None):
        fig = plt.figure(figsize=(1, 1))
        add_signature(fig, signature)
        return fig

    folder = OutputFolder(tmp_path, workers=1)
    folder.text("table.csv", "a,b\n1,2\n")  # no signature given: the run's
    folder.text("other.csv", "a\n1\n", signature="ranger-eval:0.1.0|kind:test")
    folder.figure(drawn("ranger-eval:0.1.0|kind:rank"), "now", ("svg",))  # its footer
    folder.figure(lambda: drawn("ranger-eval:0.1.0|kind:meta"), "queued", ("svg",),
                  signature="ranger-eval:0.1.0|kind:ignored")  # the footer wins
    folder.figure(lambda: drawn(None), "bare", ("svg",), signature="ranger-eval:0.1.0|kind:x")
    folder.finish("ranger-eval:0.1.0|kind:compare", "test")
    listed = check_folder(tmp_path, {"table.csv": ["a", "b"], "other.csv": ["a"]})
    assert listed == {"table.csv": "ranger-eval:0.1.0|kind:compare",
                      "other.csv": "ranger-eval:0.1.0|kind:test",
                      "now.svg": "ranger-eval:0.1.0|kind:rank",
                      "queued.svg": "ranger-eval:0.1.0|kind:meta",
                      "bare.svg": "ranger-eval:0.1.0|kind:x"}
    assert footer_signature(drawn(None)) is None
    plt.close("all")


def test_json_of_a_comparison_spells_infinite_bounds(tmp_path):
    table = tmp_path / "scores.csv"
    _scores().to_csv(table, index=False)
    run = run_compare(table, tmp_path / "out", figures="none", n_resamples=100,
                      alternative="greater")
    result = json.loads((tmp_path / "out" / "comparison.json").read_text(encoding="utf-8"))
    assert set(result["comparisons"]["ci_high"]) == {"inf"}  # one-sided intervals
    assert np.isinf(run.result.table["ci_high"]).all()
    check_csv(tmp_path / "out" / "comparison.csv", list(run.result.table.columns))


def test_the_ranking_graph_is_signed_by_the_ranking(tmp_path):
    """The demo's graph footer carried the comparison's kind:compare signature next to a
    kind:rank table: a figure is signed by the result it draws."""
    import matplotlib.pyplot as plt

    from ranger_eval.aggregate import rank_systems
    from ranger_eval.scores import Scores

    ranking = rank_systems(Scores(_scores(n_items=8)), n_resamples=100)
    fig = ranking.plot()
    assert footer_signature(fig) == str(ranking.signature)
    assert "kind:rank" in str(ranking.signature)
    plt.close(fig)


def test_meta_and_rank_of_a_table_are_plain(tmp_path):
    table = tmp_path / "scores.csv"
    _scores().to_csv(table, index=False)
    meta = run_meta(table, tmp_path / "meta", figures="none", control="a", treatment="b")
    check_folder(tmp_path / "meta",
                  {"effects.csv": ["task_id", *meta.result.effects.to_frame().columns,
                                   "weight"]},
                  {"summary.json": str(meta.result.result.signature)})
    rank = run_rank(table, tmp_path / "rank", figures="none", n_resamples=100)
    assert rank.parts["ranking"] is not None
    assert rank.parts["win_rate"] is not None
    check_folder(tmp_path / "rank",
                  {"ranking.csv": list(rank.parts["ranking"].to_frame().columns),
                   "ranktest.csv": list(rank.parts["rank_test"].to_frame().columns),
                   "winrate.csv": list(rank.parts["win_rate"].to_frame().columns),
                   "bradley_terry.csv": ["model", "rating", "ci_low", "ci_high", "se",
                                         "rank_low", "rank_high", "n_battles", "relative_to"]},
                  {"ranktest.csv": str(rank.parts["rank_test"].signature),
                   "winrate.csv": str(rank.parts["win_rate"].signature)})
    # a table that rank wrote is read back by rank (dataset-level: wide means)
    wide = pd.read_csv(tmp_path / "rank" / "ranking.csv")
    assert list(wide["system"]) == list(rank.parts["ranking"].order)


def test_trec_csv_and_tsv_are_plain(tmp_path):
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("".join(f"q{q} 0 d{d} {int(d % 3 == 0)}\n" for q in range(3)
                             for d in range(6)))
    run = tmp_path / "run.txt"
    run.write_text("".join(f"q{q} Q0 d{d} {r} {10 - r} tag\n" for q in range(3)
                           for r, d in enumerate((5, 0, 3, 1))))
    for fmt, sep in (("csv", ","), ("tsv", "\t")):
        result = CliRunner().invoke(app, ["trec", "-q", "-m", "AP", "-m", "P@5", "--format",
                                          fmt, str(qrels), str(run)])
        assert result.exit_code == 0, result.output
        path = tmp_path / f"out.{fmt}"
        path.write_text(result.stdout)
        frame = pd.read_csv(path, sep=sep)
        columns = list(frame.columns)
        assert columns[-3:] == ["measure", "query_id", "value"] and len(frame) >= 6
        with path.open(newline="") as fh:
            assert csv.DictReader(fh, delimiter=sep).fieldnames == columns
    result = CliRunner().invoke(app, ["trec", "-m", "AP", "--format", "json", str(qrels),
                                      str(run)])
    assert result.exit_code == 0 and json.loads(result.stdout)[0]["measure"] == "AP"


@pytest.mark.parametrize("command", ["compare", "rank", "meta"])
def test_no_lock_file_after_an_error(tmp_path, command):
    table = tmp_path / "scores.csv"
    _scores().to_csv(table, index=False)
    out = tmp_path / "out"
    out.mkdir()
    (out / "scores.csv").write_bytes(table.read_bytes())  # an input inside the output folder
    args = [command, str(out / "scores.csv"), "--out", str(out), "--figures", "none"]
    if command == "meta":
        args += ["--control", "a", "--treatment", "b"]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output  # written beside its input, not over it
    bad = [command, str(tmp_path / "missing.csv"), "--out", str(out)]
    assert CliRunner().invoke(app, bad).exit_code == 2
    assert not [p.name for p in out.iterdir() if "lock" in p.name or p.name.startswith(".")]
