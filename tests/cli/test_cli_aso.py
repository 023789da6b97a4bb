"""``ranger-eval aso``: run tables and per-item scores with seeds, one ε_min matrix per dataset ×
metric equal to ``rg.multi_aso`` (itself equal to deepsig on deepsig's draws,
tests/verdicts/test_aso.py), within Monte-Carlo error of deepsig's committed matrices
(tests/oracles/aso_oracle.json), the verdicts in words, the manifest, the HTML report and the
refusals (no seed column, too few runs)."""
from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

import ranger_eval as rg
from ranger_eval.cli import app
from ranger_eval.errors import SettingsError, VerdictError
from ranger_eval.io.runs import read_runs, runs_from_scores
from ranger_eval.verdicts.aso import aso_groups, format_epsilon, pair_verdict

ORACLE = json.loads((Path(__file__).resolve().parents[1] / "oracles" / "aso_oracle.json")
                    .read_text())


def _run_table(scores: dict[str, list[float]], dataset: str = "d") -> pd.DataFrame:
    return pd.DataFrame([(dataset, name, str(i), v) for name, vals in scores.items()
                         for i, v in enumerate(vals)],
                        columns=["dataset", "system", "seed", "value"])


def _invoke(*args: str) -> object:
    return CliRunner().invoke(app, ["aso", *args])


@pytest.mark.parametrize("j", range(len(ORACLE["multi"])))
def test_aso_command_equals_multi_aso_and_deepsig(tmp_path: Path, j: int) -> None:
    case = ORACLE["multi"][j]
    src = tmp_path / "runs.csv"
    _run_table(case["scores"]).to_csv(src, index=False)
    out = tmp_path / "out"
    result = _invoke(str(src), "--level", str(case["confidence_level"]),
                     "--n-resamples", "100", "--figures", "none", "-o", str(out))
    assert result.exit_code == 0, result.output
    payload = json.loads((out / "aso.json").read_text())
    group = payload["result"]["groups"][0]
    names = list(case["scores"])
    assert group["systems"] == names
    k = len(names)
    bonferroni = 1 - (1 - case["confidence_level"]) / (k * (k - 1) / 2)
    api = rg.multi_aso(case["scores"], level=case["confidence_level"], correction="bonferroni",
                       n_resamples=100, seed=0)
    assert api.attrs["level"] == pytest.approx(bonferroni, rel=1e-15)
    got = np.array(group["epsilon_min"])
    np.testing.assert_allclose(got, api.to_numpy(), rtol=1e-12, atol=0)
    assert group["level"] == pytest.approx(bonferroni, rel=1e-15)
    # --correction deepsig: deepsig's multi_aso rule, rg.multi_aso(correction="deepsig") (which
    # is within Monte-Carlo error of deepsig's committed matrix, tests/verdicts/test_aso.py)
    again = _invoke(str(src), "--level", str(case["confidence_level"]),
                    "--n-resamples", "100", "--correction", "deepsig", "--figures", "none",
                    "-o", str(tmp_path / "ds"))
    assert again.exit_code == 0, again.output
    deepsig_rule = json.loads((tmp_path / "ds" / "aso.json").read_text())["result"]["groups"][0]
    same = rg.multi_aso(case["scores"], level=case["confidence_level"], correction="deepsig",
                        n_resamples=100, seed=0)
    np.testing.assert_allclose(np.array(deepsig_rule["epsilon_min"]), same.to_numpy(),
                               rtol=1e-12, atol=0)
    assert "deepsig's multi_aso rule" in (tmp_path / "ds" / "aso.md").read_text()
    frame = pd.read_csv(out / "aso.csv")
    assert len(frame) == len(names) * (len(names) - 1)
    assert list(frame.columns) == ["dataset", "metric", "system", "over", "epsilon_min",
                                   "dominates", "n_system", "n_over", "level"]
    row = frame[(frame.system == names[0]) & (frame.over == names[1])].iloc[0]
    assert row.epsilon_min == pytest.approx(api.iloc[0, 1], rel=1e-12)
    manifest = json.loads((out / "manifest.json").read_text())
    sig = rg.parse_signature(manifest["signature"])
    assert sig["kind"] == "aso" and sig["n_resamples"] == "100" and sig["seed"] == "0"
    assert sig["threshold"] == "0.2" and sig["corr"] == "bonferroni"
    assert float(sig["level"]) == case["confidence_level"]


def test_verdicts_in_words_and_the_bonferroni_statement(tmp_path: Path) -> None:
    rng = np.random.default_rng(5)
    scores = {"A": 0.80 + 0.01 * rng.standard_normal(8), "B": 0.70 + 0.01 * rng.standard_normal(8),
              "C": 0.70 + 0.01 * rng.standard_normal(8)}
    src = tmp_path / "runs.csv"
    _run_table({k: list(v) for k, v in scores.items()}).to_csv(src, index=False)
    out = tmp_path / "out"
    result = _invoke(str(src), "--n-resamples", "60", "--figures", "none", "-o", str(out))
    assert result.exit_code == 0, result.output
    md = (out / "aso.md").read_text()
    api = aso_groups(read_runs(src), n_resamples=60)
    eps = api.groups[0].matrix
    ab = format_epsilon(float(eps.loc["A", "B"]), 0.2)
    assert f"A almost stochastically dominates B (ε_min = {ab} < 0.2)" in md
    assert "no almost stochastic order between B and C (ε_min = " in md
    assert "each bound at the 98.33 % level: 95 % with Bonferroni's correction for the 3 pairs "\
        "of 3 systems" in md
    assert f"A almost stochastically dominates B (ε_min = {ab} < 0.2)" in result.output
    assert (out / "aso.tex").read_text().count("\\begin{tabular}") == 1
    plain = _invoke(str(src), "--n-resamples", "60", "--correction", "none", "--figures",
                    "none", "-o", str(tmp_path / "plain"))
    assert plain.exit_code == 0, plain.output
    group = json.loads((tmp_path / "plain" / "aso.json").read_text())["result"]["groups"][0]
    assert group["level"] == 0.95


def test_format_epsilon_never_crosses_the_threshold() -> None:
    assert format_epsilon(0.1996, 0.2) == "0.1996"
    assert format_epsilon(0.2, 0.2) == "0.20"
    assert format_epsilon(0.12, 0.2) == "0.12"
    assert format_epsilon(0.2004, 0.2) == "0.20"   # 0.20 is not < 0.2: the right side
    assert pair_verdict("A", "B", 0.48, 0.52) == \
        "no almost stochastic order between A and B (ε_min = 0.48 and 0.52)"
    assert pair_verdict("A", "B", 0.9, 0.12) == \
        "B almost stochastically dominates A (ε_min = 0.12 < 0.2)"


def test_per_item_scores_with_seeds_are_run_means(tmp_path: Path) -> None:
    rng = np.random.default_rng(2)
    rows = [("d", "acc", s, f"q{i}", str(seed), float(rng.random() < p))
            for s, p in (("A", 0.7), ("B", 0.6)) for seed in range(6) for i in range(20)]
    df = pd.DataFrame(rows, columns=["dataset", "metric", "system", "item", "seed", "value"])
    src = tmp_path / "items.csv"
    df.to_csv(src, index=False)
    out = tmp_path / "out"
    result = _invoke(str(src), "--n-resamples", "50", "--figures", "none", "-o", str(out))
    assert result.exit_code == 0, result.output
    group = json.loads((out / "aso.json").read_text())["result"]["groups"][0]
    api = rg.multi_aso(rg.Scores(df), n_resamples=50, correction="none")  # K = 1 pair
    np.testing.assert_allclose(np.array(group["epsilon_min"]), api.to_numpy(), rtol=1e-12)
    runs = runs_from_scores(rg.Scores(df))
    assert runs.shape == (12, 5)
    assert runs.value.iloc[0] == pytest.approx(df[(df.system == "A") & (df.seed == "0")]
                                                .value.mean())


def test_runs_with_missing_items_are_refused() -> None:
    df = pd.DataFrame({"dataset": "d", "system": ["A"] * 3 + ["B"] * 2, "item": ["1", "2", "3",
                       "1", "2"], "seed": "0", "value": 1.0})
    with pytest.raises(rg.RangerError, match=r"system 'B', seed '0' has 2 items, others up to 3"):
        runs_from_scores(rg.Scores(df))


def test_groups_and_filters_and_lower_is_better(tmp_path: Path) -> None:
    rng = np.random.default_rng(9)
    frames = []
    for ds, systems in (("d1", "ABC"), ("d2", "AB"), ("d3", "A")):
        for s in systems:
            frames.append(pd.DataFrame({"dataset": ds, "metric": "loss", "system": s,
                                        "seed": [str(i) for i in range(6)],
                                        "value": rng.normal(1.0 + 0.1 * "ABC".index(s), 0.01,
                                                            6)}))
    runs = pd.concat(frames, ignore_index=True)
    with pytest.warns(UserWarning, match=r"left out 1 dataset × metric.*dataset 'd3'.*only 1 "
                      r"system \(A\)"):
        res = aso_groups(runs, n_resamples=50, higher_is_better=False)
    assert [g.dataset for g in res.groups] == ["d1", "d2"]
    # lower loss is better: A (loss 1.0) dominates C (loss 1.2)
    assert res.groups[0].matrix.loc["A", "C"] < 0.2
    assert res.skipped == ("dataset 'd3', metric 'loss': only 1 system (A)",)
    only = aso_groups(runs, n_resamples=50, datasets=["d1"], systems=["C", "A"])
    assert only.groups[0].systems == ("C", "A")
    with pytest.raises(VerdictError, match=r"dataset 'nope' is not in the run scores"):
        aso_groups(runs, datasets=["nope"])
    src = tmp_path / "runs.csv"
    runs.to_csv(src, index=False)
    out = tmp_path / "out"
    result = _invoke(str(src), "--n-resamples", "50", "--higher-is-better", "false",
                     "--figures", "none", "-o", str(out))
    assert result.exit_code == 0, result.output
    assert "dataset 'd3'" in result.output   # the warning names the group left out
    md = (out / "aso.md").read_text()
    assert "## d1 · loss" in md and "## d2 · loss" in md
    assert "Lower scores are better" in md


@pytest.mark.parametrize(("options", "message"), [
    ({"threshold": 0.6}, "threshold: must be a number in (0, 0.5]"),
    ({"level": 0.4}, "level: must be a number in [0.5, 1)"),
    ({"n_resamples": 1}, "n_resamples: must be a whole number from 2"),
    ({"correction": "holm"}, "correction: unknown ASO correction 'holm'"),
])
def test_settings_are_checked(options: dict[str, object], message: str) -> None:
    with pytest.raises(SettingsError) as info:
        rg.ASOSettings(**options)
    assert message in str(info.value)


def test_too_few_runs_name_the_group_and_system() -> None:
    runs = _run_table({"A": [0.1, 0.2, 0.3, 0.4, 0.5], "B": [0.1, 0.2, 0.3, 0.4]})
    runs["metric"] = "acc"
    with pytest.raises(VerdictError, match=r"dataset 'd', metric 'acc', system 'B': 4 run "
                       r"scores \(seeds\); at least 5"):
        aso_groups(runs)


def test_no_seed_column_names_compare(tmp_path: Path) -> None:
    src = tmp_path / "items.csv"
    pd.DataFrame({"dataset": "d", "system": ["A", "B"], "item": "1", "value": [1.0, 0.0]}) \
        .to_csv(src, index=False)
    result = _invoke(str(src), "-o", str(tmp_path / "out"))
    assert result.exit_code == 2
    assert "without a 'seed' column" in result.output and "ranger-eval compare" in result.output


@pytest.mark.slow
def test_heatmap_and_html_report(tmp_path: Path) -> None:
    rng = np.random.default_rng(1)
    scores = {name: list(mu + 0.02 * rng.standard_normal(7))
              for name, mu in (("alpha", 0.8), ("beta", 0.78), ("gamma", 0.7))}
    src = tmp_path / "runs.csv"
    _run_table(scores).to_csv(src, index=False)
    out = tmp_path / "out"
    result = _invoke(str(src), "--n-resamples", "100", "--figures", "svg,png", "--html",
                     "-o", str(out))
    assert result.exit_code == 0, result.output
    assert (out / "aso.svg").is_file() and (out / "aso.png").is_file()
    page = (out / "report.html").read_text()
    assert "Almost Stochastic Order" in page and "<svg" in page
    assert "almost stochastically dominates gamma (ε_min = " in page
    assert "ε_min: d · score" in page
    manifest = json.loads((out / "manifest.json").read_text())
    assert {"aso.md", "aso.csv", "aso.tex", "aso.json", "aso.svg"} <= \
        {f["file"] for f in manifest["files"]}
    again = CliRunner().invoke(app, ["report", str(out)])
    assert again.exit_code == 0, again.output
    assert not math.isnan(float(json.loads((out / "aso.json").read_text())["result"]["groups"]
                                [0]["epsilon_min"][0][1]))


def test_tables_never_round_across_tau() -> None:
    from ranger_eval.report import to_markdown
    from ranger_eval.verdicts.aso import ASOAnalysis, ASOGroup

    matrix = pd.DataFrame([[1.0, 0.1996], [0.9, 1.0]], index=["A", "B"], columns=["A", "B"])
    res = ASOAnalysis((ASOGroup("d", "m", matrix, {"A": 5, "B": 5}, 0.95),), 0.95, 100, 0,
                      0.2, "bonferroni", True)
    md = to_markdown(res)
    assert "| A (5 runs) | – | 0.1996 |" in md and "(ε_min = 0.1996 < 0.2)" in md


def test_run_aso_is_the_pipeline_and_returns_the_command_run(tmp_path: Path) -> None:
    from ranger_eval.pipeline import CommandRun
    from ranger_eval.pipeline.aso import run_aso

    src = tmp_path / "runs.csv"
    _run_table({"A": [0.5, 0.6, 0.7, 0.8, 0.9], "B": [0.4, 0.5, 0.5, 0.6, 0.7]}).to_csv(
        src, index=False)
    base = rg.ASOSettings(correction="none")
    run = run_aso(src, tmp_path / "out", figures="none", settings=base, n_resamples=40)
    assert isinstance(run, CommandRun) and run.command == "aso"
    assert run.settings == rg.ASOSettings(correction="none", n_resamples=40)
    assert run.result.settings is run.settings
    assert {p.name for p in run.written} >= {"aso.md", "aso.json", "manifest.json"}
