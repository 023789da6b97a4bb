"""Case study: all pairs of six retrieval systems on TREC DL 2019/2020 (rank_llm runs, nDCG@10),
through `ranger-eval compare` on an experiment YAML written into tmp_path."""
from __future__ import annotations

import pandas as pd
import pytest
from typer.testing import CliRunner

from ranger_eval.cli import app
from ranger_eval.pipeline import COMPARE_OUTPUTS as OUTPUTS

# the module's compare run (PDF, PNG and SVG per dataset) is built in one test process only
# End-to-end tier, an end-to-end run of compare and rank on 21 TREC runs: CI runs it (`pytest -m "slow or hypothesis"`);
# the default `pytest` leaves it out to stay under two minutes on two cores.
pytestmark = [pytest.mark.xdist_group("rank_llm"), pytest.mark.slow]

SYSTEMS = (
    "BM25",
    "BM25_RM3",
    "D_BERT_KD_TASB",
    "OPEN_AI_ADA2",
    "REP_LLAMA",
    "SPLADE_P_P_ENSEMBLE_DISTIL",
)
# Published nDCG@10 (trec_eval -c, Pyserini), corpus README; 4 decimals.
PUBLISHED = {
    ("dl19", "BM25"): 0.5058,
    ("dl20", "BM25"): 0.4796,
    ("dl19", "SPLADE_P_P_ENSEMBLE_DISTIL"): 0.7308,
    ("dl20", "SPLADE_P_P_ENSEMBLE_DISTIL"): 0.7197,
    ("dl19", "D_BERT_KD_TASB"): 0.7210,
    ("dl19", "OPEN_AI_ADA2"): 0.7035,
    ("dl19", "REP_LLAMA"): 0.7384,
}


@pytest.fixture(scope="module")
def run(corpus, tmp_path_factory):
    root = corpus / "rank_llm"
    tmp = tmp_path_factory.mktemp("rank_llm")
    lines = ["title: rank_llm TREC DL", "tasks: [dl19, dl20]", "qrels:"]
    lines += [f"  {c}: {root / 'qrels' / f'{c}.txt'}" for c in ("dl19", "dl20")]
    lines += ["ir:", "  measure: nDCG@10", "systems:"]
    for s in SYSTEMS:
        lines.append(f"  {s}:")
        lines.append("    runs: {" + ", ".join(
            f"{c}: {root / 'runs' / s / f'{c}.txt'}" for c in ("dl19", "dl20")) + "}")
    cfg = tmp / "rank_llm.yaml"
    cfg.write_text("\n".join(lines) + "\n")
    out = tmp / "out"
    result = CliRunner().invoke(
        app, ["compare", str(cfg), "--out", str(out), "--n-resamples", "200",
              "--per-dataset-figures"]
    )
    assert result.exit_code == 0, result.output
    return out, result.output


def test_outputs_exist(run):
    out, stdout = run
    for name in OUTPUTS:
        assert (out / name).stat().st_size > 0, name
    for ds in ("dl19", "dl20"):  # each figure once, under its dataset × metric name
        for name in (f"graph-{ds}-nDCG@10.png", f"graph-{ds}-nDCG@10.pdf",
                     f"pvalues-{ds}-nDCG@10.png", f"boxplots-{ds}-nDCG@10.png"):
            assert (out / name).stat().st_size > 0, name
    assert not (out / "graph.png").exists()  # no duplicate copy under a second name
    assert "30 comparisons" in stdout


def test_all_pairs_paired_t_and_published_means(run):
    out, _ = run
    frame = pd.read_csv(out / "comparison.csv")
    assert len(frame) == 2 * 15
    assert set(frame["test"]) == {"paired-t"} and frame["paired"].all()
    assert set(frame.loc[frame["dataset"] == "dl19", "n_a"]) == {43}
    assert set(frame.loc[frame["dataset"] == "dl20", "n_a"]) == {54}
    means = {}
    for r in frame.itertuples():
        means[(r.dataset, r.system_a)] = r.mean_a
        means[(r.dataset, r.system_b)] = r.mean_b
    for key, value in PUBLISHED.items():
        assert means[key] == pytest.approx(value, abs=5e-5), key


def test_sanity_of_significance(run):
    out, _ = run
    frame = pd.read_csv(out / "comparison.csv").set_index(["dataset", "system_a", "system_b"])
    for d in ("dl19", "dl20"):
        splade = frame.loc[(d, "BM25", "SPLADE_P_P_ENSEMBLE_DISTIL")]
        assert splade["significant"] and splade["diff"] < -0.2
        assert splade["pvalue_adjusted"] < 1e-4
        rm3 = frame.loc[(d, "BM25", "BM25_RM3")]
        assert not rm3["significant"]  # RM3 expansion: no significant nDCG@10 change
        dense = frame.loc[(d, "D_BERT_KD_TASB", "OPEN_AI_ADA2")]
        assert not dense["significant"]  # two dense retrievers of similar quality
    board = (out / "leaderboard.md").read_text()
    splade_row = next(line for line in board.splitlines() if "SPLADE" in line)
    assert "<sup>ab</sup>" in splade_row  # beats BM25 (a) and BM25_RM3 (b) on both collections


def test_system_without_a_run_is_left_out_of_that_collection(corpus, tmp_path):
    from ranger_eval.comparison import compare, rank_intervals
    from ranger_eval.pipeline import load_scores_input

    root = corpus / "rank_llm"
    run = {s: {c: root / "runs" / s / f"{c}.txt" for c in ("dl19", "covid")}
           for s in ("BM25", "SPLADE_P_P_ENSEMBLE_DISTIL")}
    cfg = tmp_path / "partial.yaml"
    cfg.write_text(
        "tasks: [dl19, covid]\nqrels:\n"
        f"  dl19: {root / 'qrels' / 'dl19.txt'}\n  covid: {root / 'qrels' / 'covid.txt'}\n"
        "systems:\n"
        + "".join(f"  {s}: {{runs: {{dl19: {r['dl19']}, covid: {r['covid']}}}}}\n"
                  for s, r in run.items())
        + f"  ADA2: {{runs: {{dl19: {root / 'runs' / 'OPEN_AI_ADA2' / 'dl19.txt'}}}}}\n"
    )
    with pytest.warns(UserWarning, match="no file for ADA2 on covid"):
        scores, _ = load_scores_input(cfg)
    comp = compare(scores)
    frame = comp.to_frame()
    assert len(frame[frame["dataset"] == "dl19"]) == 3
    covid = frame[frame["dataset"] == "covid"]
    assert len(covid) == 1 and covid.iloc[0]["significant"]
    assert covid.iloc[0]["mean_a"] == pytest.approx(0.5947, abs=5e-5)  # published BM25 covid
    ri = rank_intervals(comp, dataset="covid", n_resamples=100)
    assert ri.systems == ("SPLADE_P_P_ENSEMBLE_DISTIL", "BM25")
