"""``ranger-eval arena``: leaderboard files (Markdown, CSV, LaTeX, JSON), figures, manifest,
the readers (CSV, JSONL, Parquet) and the anchor option."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

import ranger_eval as rg
from ranger_eval.cli import app
from ranger_eval.output import footer_signature
from ranger_eval.plots.arena import ratings_plot, win_probability_heatmap

FIXTURE = Path(__file__).resolve().parents[1] / "oracles" / "bradley_terry_oracle.json"


@pytest.fixture(scope="module")
def battles() -> pd.DataFrame:
    return pd.DataFrame(json.loads(FIXTURE.read_text())["fixtures"]["ties_6"]["battles"])


@pytest.mark.parametrize("suffix", [
    pytest.param("csv", marks=pytest.mark.slow),   # the one that writes the figures (~5 s)
    "jsonl", "parquet"])
def test_arena_outputs_equal_the_api(tmp_path: Path, battles: pd.DataFrame, suffix: str) -> None:
    src = tmp_path / f"battles.{suffix}"
    if suffix == "csv":
        battles.to_csv(src, index=False)
    elif suffix == "jsonl":
        battles.to_json(src, orient="records", lines=True)
    else:
        battles.to_parquet(src)
    out = tmp_path / "out"
    figures = "png" if suffix == "csv" else "none"   # drawing is tested once
    result = CliRunner().invoke(app, ["arena", str(src), "--anchor", "model-b=1100",
                                      "--n-resamples", "50", "--figures", figures, "--html",
                                      "-o", str(out)])
    assert result.exit_code == 0, result.output
    expected = rg.bradley_terry(battles, anchor=("model-b", 1100), n_resamples=50)
    board = pd.read_csv(out / "arena.csv")
    pd.testing.assert_frame_equal(board, expected.to_frame(), check_dtype=False, rtol=1e-12)
    payload = json.loads((out / "arena.json").read_text())
    assert payload["signature"] == str(expected.signature)
    assert payload["result"]["anchor"] == ["model-b", 1100.0]
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["signature"] == str(expected.signature)
    figs = {"arena_ratings.png", "arena_win_probability.png"} if suffix == "csv" else set()
    assert {f["file"] for f in manifest["files"]} == {
        "arena.md", "arena.csv", "arena.tex", "arena.json", *figs}
    # with --html, report.html beside them (not in the manifest) embeds the figures
    page = (out / "report.html").read_text()
    assert page.count('<img src="data:image/png;base64,') == len(figs)
    md = (out / "arena.md").read_text()
    best = expected.to_frame().model.iloc[0]
    assert expected.rank_sentence(best) in md and f"`{expected.signature}`" in md
    assert "\\begin{tabular}{lrrrrr}" in (out / "arena.tex").read_text()
    assert expected.rank_sentence(best) in result.output


def test_arena_bad_anchor_and_bad_file(tmp_path: Path, battles: pd.DataFrame) -> None:
    src = tmp_path / "b.csv"
    battles.to_csv(src, index=False)
    result = CliRunner().invoke(app, ["arena", str(src), "--anchor", "model-b", "-o",
                                      str(tmp_path / "o")])
    assert result.exit_code == 2 and "MODEL=RATING" in result.output
    bad = tmp_path / "bad.csv"
    bad.write_text("model_a,model_b,winner\na,b,model_a\nb,a,tie\na,a,tie\n")
    result = CliRunner().invoke(app, ["arena", str(bad), "-o", str(tmp_path / "o2")])
    assert result.exit_code == 2
    assert "bad.csv" in result.output and "battles itself at line 4" in result.output


@pytest.mark.parametrize("n_models", [2, 12, 50])
def test_figures_fit_a_page(n_models: int) -> None:
    rng = np.random.default_rng(n_models)
    a = np.concatenate([np.arange(n_models), rng.integers(0, n_models, 20 * n_models)])
    b = np.concatenate([(np.arange(n_models) + 1) % n_models,
                        rng.integers(0, n_models, 20 * n_models)])
    keep = a != b
    names = np.array([f"model-{k}" for k in range(n_models)])
    winner = rng.choice(["model_a", "model_b"], keep.sum())
    winner[:n_models] = "tie"
    res = rg.bradley_terry(pd.DataFrame({"model_a": names[a[keep]], "model_b": names[b[keep]],
                                         "winner": winner}), n_resamples=20)
    for fig in (ratings_plot(res), win_probability_heatmap(res)):
        w, h = fig.get_size_inches()
        assert w <= 8.5 and h <= 11
        # the footer (wrapped after its "|" when the figure is narrower than it)
        assert footer_signature(fig) == str(res.signature)


def test_arena_from_per_item_scores(tmp_path: Path) -> None:
    """A tidy scores table instead of battles: every item a battle between every pair."""
    from ranger_eval.verdicts.bradley_terry import battle_counts

    rng = np.random.default_rng(0)
    frame = pd.DataFrame([("d", s, f"q{i}", float(rng.random() < mu))
                          for s, mu in (("A", 0.5), ("B", 0.6), ("C", 0.7)) for i in range(40)],
                         columns=["dataset", "system", "item", "value"])
    src = tmp_path / "scores.csv"
    frame.to_csv(src, index=False)
    out = tmp_path / "o"
    result = CliRunner().invoke(app, ["arena", str(src), "--higher-is-better", "false",
                                      "--n-resamples", "30", "--figures", "none", "-o", str(out)])
    assert not (out / "report.html").exists()  # no --html, no page (as every command)
    assert result.exit_code == 0, result.output
    expected = rg.bradley_terry(battle_counts(frame, higher_is_better=False), n_resamples=30)
    pd.testing.assert_frame_equal(pd.read_csv(out / "arena.csv"), expected.to_frame(),
                                  check_dtype=False, rtol=1e-12)
    assert expected.n_battles == 3 * 40
    # the signature says the battles were made from scores, not read from a battles file
    assert json.loads((out / "arena.json").read_text())["signature"] == str(expected.signature)
    assert "battles:scores(items)" in str(expected.signature)
    # `ranger-eval report` writes the page of an arena folder: the verdicts in words, the
    # leaderboard, the signature
    result = CliRunner().invoke(app, ["report", str(out)])
    assert result.exit_code == 0, result.output
    page = (out / "report.html").read_text()
    for model in expected.models:
        assert f"{model}: {expected.rank_sentence(model)}" in page
    assert "made from per-item scores" in page and 'id="t0-bradley-terry"' in page
    assert str(expected.signature) in page and "<h2" in page and "Arena leaderboard" in page
    assert page.count("rank interval)") >= 3
