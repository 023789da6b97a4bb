"""`ranger-eval rank` on the published time-series classification bake-off (40 classifiers ×
112 UCR datasets, ../shared/corpus/tsc_bakeoff) and on per-item scores (tidy table and YAML)."""
from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from scipy.stats import friedmanchisquare, rankdata
from typer.testing import CliRunner

from ranger_eval.cli import app
from ranger_eval.pipeline import RANK_OUTPUTS, run_rank

# End-to-end tier, an end-to-end case study of rank: CI runs it (`pytest -m "slow or hypothesis"`);
# the default `pytest` leaves it out to stay under two minutes on two cores.
pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def bakeoff(corpus):
    path = corpus / "tsc_bakeoff" / "accuracy_mean.csv"
    if not path.exists():
        pytest.skip(f"{path} not found")
    return path


def test_bakeoff_ranking_cd_and_naive_average(bakeoff, tmp_path):
    out = tmp_path / "rank"
    result = CliRunner().invoke(app, ["rank", str(bakeoff), "--out", str(out)])
    assert result.exit_code == 0, result.output
    for name in ("ranking.md", "ranking.csv", "ranking.json", "ranking.tex", "cd.pdf", "cd.png",
                 "cd.svg", "manifest.json"):
        assert (out / name).exists(), name
    wide = pd.read_csv(bakeoff, index_col=0)
    assert wide.shape == (112, 40)
    payload = json.loads((out / "ranking.json").read_text())
    ranks = payload["rank_test"]["average_ranks"]
    # independent check: scipy's rankdata per dataset (higher accuracy = rank 1), averaged
    expected = rankdata(-wide.to_numpy(), axis=1).mean(axis=0)
    np.testing.assert_allclose([ranks[s] for s in wide.columns], expected, rtol=1e-12)
    assert list(ranks)[:3] == ["HC2", "MR-Hydra", "MR"]
    assert payload["rank_test"]["critical_difference"] == pytest.approx(6.0730, abs=5e-4)
    # the tie-corrected statistic equals scipy's Friedman test
    tc = run_rank(bakeoff, tmp_path / "tc", figures="none").parts["rank_test"]
    chi2 = friedmanchisquare(*wide.to_numpy().T).statistic
    assert tc.n_datasets == 112 and tc.statistic <= chi2 + 1e-9
    # HC2 is first, but not significantly better than the next five (one CD-clique)
    first = payload["rank_test"]["cliques"][0]
    assert first[:6] == ["HC2", "MR-Hydra", "MR", "RIST", "TS-CHIEF", "RDST"]
    # the naive leaderboard (mean accuracy) puts HC1 4th; by average rank it is 8th
    naive = payload["naive_means"]
    assert sorted(naive, key=naive.get, reverse=True)[3] == "HC1"
    assert list(ranks).index("HC1") == 7
    md = (out / "ranking.md").read_text()
    assert "| 8 | HC1 | 14.504 |" in md and "naive rank" in md
    assert payload["signature"] in md


def _tidy(tmp_path, seed=0):
    rng = np.random.default_rng(seed)
    rows = []
    for d in ("d1", "d2", "d3"):
        base = rng.normal(0.5, 0.2, 120)
        for k, s in enumerate(("base", "mid", "top")):
            for m in ("accuracy", "f1"):
                v = base + 0.05 * k + rng.normal(0, 0.05, 120)
                rows += [(d, s, m, f"{d}-{i}", float(x)) for i, x in enumerate(v)]
    path = tmp_path / "scores.csv"
    pd.DataFrame(rows, columns=["dataset", "system", "metric", "item", "value"]).to_csv(
        path, index=False)
    return path


def test_rank_per_item_scores_writes_ranking_graph_and_cd(tmp_path):
    path = _tidy(tmp_path)
    run = run_rank(path, tmp_path / "out", comparisons="all")
    assert run.parts["ranking"] is not None and run.parts["ranking"].order == ("top", "mid", "base")
    assert run.parts["rank_test"].n_datasets == 3
    names = {p.name for p in run.written}
    assert {"graph.png", "graph.pdf", "cd.png", "ranktest.md", "ranking.json"} <= names
    assert names <= set(RANK_OUTPUTS)
    md = (tmp_path / "out" / "ranking.md").read_text()
    assert str(run.parts["ranking"].signature) in md and "standardized mean" in md


def test_rank_reads_the_aggregate_section_and_accepts_meta_keys_unused(tmp_path):
    path = _tidy(tmp_path)
    cfg = tmp_path / "exp.yaml"
    cfg.write_text(f"scores: {path.name}\naggregate:\n  comparisons: first-vs-rest\n"
                   "  weights: {accuracy: 2, f1: 1}\n  posthoc: holm\n  control: top\n")
    run = run_rank(cfg, tmp_path / "o1", figures="none")  # the settings are checked
    assert run.parts["ranking"].comparisons == "first-vs-rest" and run.parts["rank_test"].posthoc == "holm"
    assert set(run.parts["ranking"].pairwise["a"]) == {"top"}
    # the meta-analysis settings at the top level (original Ranger layout): accepted, unused
    cfg.write_text(f"scores: {path.name}\ncontrol: top\ntreatment: base\ntest: knha\n")
    result = CliRunner().invoke(app, ["rank", str(cfg), "--out", str(tmp_path / "o2"),
                                      "--figures", "none"])
    assert result.exit_code == 0, result.output
    assert json.loads((tmp_path / "o2" / "ranking.json").read_text())["rank_test"]["posthoc"] \
        == "nemenyi"  # rank's own default, not the top-level control's bonferroni-dunn/holm
    cfg.write_text(f"scores: {path.name}\naggregate:\n  posthoc: tukey\n")
    result = CliRunner().invoke(app, ["rank", str(cfg), "--out", str(tmp_path / "o3")])
    assert result.exit_code == 2 and "aggregate.posthoc" in result.output


def test_rank_bad_tables_are_clear_errors(tmp_path):
    bad = tmp_path / "bad.csv"
    bad.write_text("dataset,a,b\nd1,0.5,x\nd2,0.4,0.3\n")
    result = CliRunner().invoke(app, ["rank", str(bad), "--out", str(tmp_path / "o")])
    assert result.exit_code == 2
    assert "bad.csv:2: system 'b' on dataset 'd1': not a number" in result.output
    narrow = tmp_path / "narrow.csv"
    narrow.write_text("dataset,a\nd1,0.5\n")
    result = CliRunner().invoke(app, ["rank", str(narrow), "--out", str(tmp_path / "o")])
    assert result.exit_code == 2 and "at least two system columns" in result.output


def test_wide_parquet_with_index_and_rank_test_plot(tmp_path):
    rng = np.random.default_rng(4)
    wide = pd.DataFrame(rng.uniform(0.5, 0.9, (12, 4)) + np.array([0.0, 0.02, 0.05, 0.1]),
                        columns=["a", "b", "c", "d"],
                        index=pd.Index([f"ds{i}" for i in range(12)], name="dataset"))
    path = tmp_path / "wide.parquet"
    wide.to_parquet(path)  # the dataset names are the index
    run = run_rank(path, tmp_path / "out", posthoc="bonferroni-dunn", control="d")
    assert run.parts["rank_test"].n_datasets == 12 and set(run.parts["rank_test"].average_ranks.index) == set("abcd")
    fig = run.parts["rank_test"].plot(title="four systems")
    texts = [t.get_text() for t in fig.findobj(match=lambda a: hasattr(a, "get_text"))]
    assert "four systems" in texts


def test_compare_cli_by_item_column(tmp_path):
    rng = np.random.default_rng(2)
    rows = [("d", s, f"i{i}", float(v), "hard" if i % 2 else "easy")
            for s, shift in (("a", 0.0), ("b", 0.1)) for i, v in
            enumerate(rng.normal(0.5 + shift, 0.1, 40))]
    path = tmp_path / "s.csv"
    pd.DataFrame(rows, columns=["dataset", "system", "item", "value", "difficulty"]).to_csv(
        path, index=False)
    out = tmp_path / "o"
    result = CliRunner().invoke(app, ["compare", str(path), "--by", "difficulty", "--out", str(out),
                                      "--figures", "none"])
    assert result.exit_code == 0, result.output
    table = pd.read_csv(out / "comparison.csv")
    assert sorted(table["difficulty"]) == ["easy", "hard"]
    assert set(table["dataset"]) == {"d [difficulty=easy]", "d [difficulty=hard]"}
