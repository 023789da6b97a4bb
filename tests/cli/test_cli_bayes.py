"""``ranger-eval bayes``: the Bayesian correlated t-test of every pair on cross-validation folds,
equal to baycomp's ``two_on_single`` (tests/oracles/baycomp_oracle.json, 1e-12), folds matched by
id and runs by seed, the verdicts in words ("A is practically equivalent to B (P(rope) = …,
ROPE ±…)"), the posterior figures, the manifest, the HTML report and the refusals."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

import ranger_eval as rg
from ranger_eval.cli import app
from ranger_eval.errors import SettingsError, VerdictError
from ranger_eval.verdicts.bayes import correlated_ttests, dataset_tests

ORACLE = json.loads((Path(__file__).resolve().parents[1] / "oracles" / "baycomp_oracle.json")
                    .read_text())


def _folds(x: list[float], y: list[float], runs: int, *, seeds: bool) -> pd.DataFrame:
    """x and y as folds (items) of ``runs`` repetitions; with ``seeds`` the repetition is the
    seed column, else the items are numbered through (run r, fold f → item r·k + f)."""
    k = len(x) // runs
    rows = []
    for name, values in (("x", x), ("y", y)):
        for i, v in enumerate(values):
            r, f = divmod(i, k)
            if seeds:
                rows.append(("cv", name, f"f{f:03d}", str(r), v))
            else:
                rows.append(("cv", name, f"i{i:04d}", None, v))
    frame = pd.DataFrame(rows, columns=["dataset", "system", "item", "seed", "value"])
    return frame if seeds else frame.drop(columns="seed")


@pytest.mark.parametrize("j", range(len(ORACLE["correlated"])))
@pytest.mark.parametrize("seeds", [False, True])
def test_correlated_ttests_equal_baycomp(j: int, seeds: bool) -> None:
    """Every committed baycomp fixture through ``correlated_ttests`` (what the command runs):
    folds by id, runs by seed or by ``runs=``."""
    case = ORACLE["correlated"][j]
    scores = rg.Scores(_folds(case["x"], case["y"], case["runs"], seeds=seeds))
    res = correlated_ttests(scores, rope=case["rope"],
                            runs=None if seeds else case["runs"]).groups[0].results[0]
    np.testing.assert_allclose(res.probabilities, case["probs"], rtol=1e-12, atol=1e-14)
    assert res.runs == case["runs"] and res.mean == pytest.approx(case["mean"], rel=1e-12)


def _slow_but(keep: set[object], values: list[object]) -> list[object]:
    """``values`` as pytest params, all but ``keep`` in the slow tier (a command run each)."""
    return [v if v in keep else pytest.param(v, marks=pytest.mark.slow) for v in values]


@pytest.mark.parametrize("j", _slow_but({2}, list(range(len(ORACLE["correlated"])))))
@pytest.mark.parametrize("seeds", [False, True])
def test_bayes_command_equals_baycomp(tmp_path: Path, j: int, seeds: bool) -> None:
    case = ORACLE["correlated"][j]
    src = tmp_path / "folds.csv"
    _folds(case["x"], case["y"], case["runs"], seeds=seeds).to_csv(src, index=False)
    out = tmp_path / "out"
    args = ["bayes", str(src), "--rope", str(case["rope"]), "--figures", "none", "-o", str(out)]
    if not seeds:
        args += ["--runs", str(case["runs"])]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    pair = json.loads((out / "bayes.json").read_text())["result"]["groups"][0]["pairs"][0]
    assert (pair["a"], pair["b"], pair["runs"]) == ("x", "y", case["runs"])
    np.testing.assert_allclose([pair["p_left"], pair["p_rope"], pair["p_right"]], case["probs"],
                               rtol=1e-12, atol=1e-14)
    assert pair["mean"] == pytest.approx(case["mean"], rel=1e-12)
    assert pair["df"] == case["df"]
    sig = rg.parse_signature(json.loads((out / "manifest.json").read_text())["signature"])
    assert sig["kind"] == "bayes" and sig["test"] == "correlated-t"
    assert sig["runs"] == ("seeds" if seeds else str(case["runs"]))
    assert float(sig["rope"]) == case["rope"] and sig["level"] == "0.95"


def test_verdict_sentences_and_tables(tmp_path: Path) -> None:
    rng = np.random.default_rng(3)
    rows = [("iris", "accuracy", s, f"fold{f}", mu + rng.normal(0, 0.004))
            for s, mu in (("logreg", 0.80), ("svm", 0.802), ("forest", 0.84)) for f in range(10)]
    src = tmp_path / "cv.csv"
    pd.DataFrame(rows, columns=["dataset", "metric", "system", "item", "value"]).to_csv(
        src, index=False)
    out = tmp_path / "out"
    result = CliRunner().invoke(app, ["bayes", str(src), "--rope", "0.01", "--figures", "none",
                                      "-o", str(out)])
    assert result.exit_code == 0, result.output
    md = (out / "bayes.md").read_text()
    table = rg.read_scores(src)
    api = correlated_ttests(table, rope=0.01)
    first = api.groups[0].results[0]
    direct = rg.bayesian_correlated_ttest(
        table.values("iris", "logreg").to_numpy(), table.values("iris", "svm").to_numpy(),
        rope=0.01, names=("logreg", "svm"))
    assert first.probabilities == pytest.approx(direct.probabilities, rel=1e-15)
    sentence = f"logreg is practically equivalent to svm (P(rope) = {first.p_rope:.2f}, ROPE ±0.01)"
    assert first.p_rope >= 0.95 and sentence in md and sentence in result.output
    assert "forest is better than logreg by more than the ROPE (P(forest better) > 0.99, " \
           "ROPE ±0.01)" in md
    assert "| logreg | forest |" in md and "> 0.999" in md   # never a false 1.000
    frame = pd.read_csv(out / "bayes.csv")
    assert list(frame.a) == ["logreg", "logreg", "svm"] and len(frame) == 3
    assert (out / "bayes.tex").read_text().count("\\midrule") == 1


def test_runs_and_folds_are_checked() -> None:
    df = _folds(list(np.linspace(0, 1, 12)), list(np.linspace(0.1, 1.3, 12)), 3, seeds=True)
    scores = rg.Scores(df)
    assert correlated_ttests(scores).groups[0].results[0].runs == 3
    with pytest.raises(VerdictError, match=r"runs=2: the scores have a seed column"):
        correlated_ttests(scores, runs=2)
    holes = rg.Scores(df.drop(index=[0]))
    with pytest.raises(VerdictError, match=r"system 'x' has no score for fold 'f000' in run "
                       r"\(seed\) '0'"):
        correlated_ttests(holes)
    other_seed = df.copy()
    other_seed.loc[other_seed.system == "y", "seed"] = other_seed.loc[
        other_seed.system == "y", "seed"].replace({"2": "7"})
    with pytest.raises(VerdictError, match=r"the runs \(seeds\) differ"):
        correlated_ttests(rg.Scores(other_seed))
    flat = rg.Scores(_folds(list(np.linspace(0, 1, 12)), list(np.linspace(0.1, 1.3, 12)), 3,
                            seeds=False))
    with pytest.raises(VerdictError, match=r"dataset 'cv', metric 'score', systems 'x' and 'y':"
                       r".*12 scores cannot come from 5 runs"):
        correlated_ttests(flat, runs=5)
    with pytest.raises(SettingsError, match=r"rope: must be a finite number ≥ 0"):
        correlated_ttests(flat, rope=-0.1)
    with pytest.raises(SettingsError, match=r"level: must be a probability in \(0.5, 1\)"):
        correlated_ttests(flat, level=0.4)


def test_one_system_and_unknown_names() -> None:
    df = _folds([0.1, 0.2, 0.3], [0.2, 0.3, 0.5], 1, seeds=False)
    with pytest.raises(VerdictError, match=r"dataset 'cv', metric 'score': 1 system \(x\)"):
        correlated_ttests(rg.Scores(df), systems=["x"])
    with pytest.raises(VerdictError, match=r"system 'z' is not in the scores"):
        correlated_ttests(rg.Scores(df), systems=["x", "z"])


@pytest.mark.slow
def test_posterior_figures_and_html_report(tmp_path: Path) -> None:
    case = ORACLE["correlated"][1]
    src = tmp_path / "folds.csv"
    _folds(case["x"], case["y"], 1, seeds=False).to_csv(src, index=False)
    out = tmp_path / "out"
    result = CliRunner().invoke(app, ["bayes", str(src), "--rope", "0.01", "--figures", "png",
                                      "--html", "-o", str(out)])
    assert result.exit_code == 0, result.output
    assert (out / "posterior.png").is_file()
    page = (out / "report.html").read_text()
    assert "Bayesian comparison" in page and "data:image/png;base64," in page
    assert "x vs y: inconclusive at 0.95" in page and "ROPE ±0.01" in page
    assert "Posterior probabilities" in page


@pytest.mark.parametrize("case", ORACLE["multiple"][1:2] + [
    pytest.param(c, marks=pytest.mark.slow) for c in ORACLE["multiple"][2:4]],
    ids=lambda c: f"seed{c['seed']}")
@pytest.mark.parametrize("test", ["signed-rank", "sign"])
def test_across_datasets_equals_baycomp(tmp_path: Path, case: dict, test: str) -> None:
    """A wide table (datasets × systems): baycomp's SignedRankTest / SignTest probabilities for
    the same seed (the same RandomState Dirichlet draws), exactly."""
    src = tmp_path / "table.csv"
    pd.DataFrame({"dataset": [f"d{i}" for i in range(len(case["x"]))], "x": case["x"],
                  "y": case["y"]}).to_csv(src, index=False)
    out = tmp_path / "out"
    n_draws = 5000   # the API equals baycomp at its 50,000 draws (tests/verdicts/test_bayes.py)
    result = CliRunner().invoke(app, [
        "bayes", str(src), "--test", test, "--rope", str(case["rope"]), "--prior",
        str(case["prior"]), "--n-draws", str(n_draws), "--seed", str(case["seed"]),
        "--figures", "none", "-o", str(out)])
    assert result.exit_code == 0, result.output
    pair = json.loads((out / "bayes.json").read_text())["result"]["groups"][0]["pairs"][0]
    fn = rg.bayesian_signed_rank if test == "signed-rank" else rg.bayesian_sign_test
    api = fn(case["x"], case["y"], rope=case["rope"], prior=case["prior"], n_draws=n_draws,
             seed=case["seed"])
    np.testing.assert_allclose([pair["p_left"], pair["p_rope"], pair["p_right"]],
                               api.probabilities, rtol=0, atol=0)
    sig = rg.parse_signature(json.loads((out / "manifest.json").read_text())["signature"])
    assert (sig["test"], sig["n_draws"], sig["seed"]) == (test, str(n_draws),
                                                            str(case["seed"]))
    assert "runs" not in sig and float(sig["prior"]) == case["prior"]


def test_across_datasets_baycomp_draws_exactly() -> None:
    case = ORACLE["multiple"][1]
    table = pd.DataFrame({"x": case["x"], "y": case["y"]})
    res = dataset_tests(table, test="signed-rank", rope=case["rope"], prior=case["prior"],
                        n_draws=case["n_samples"], seed=case["seed"])
    np.testing.assert_allclose(res.groups[0].results[0].probabilities, case["signed_rank"],
                               rtol=1e-12, atol=1e-15)


def test_across_datasets_from_tidy_and_per_item_tables_with_holes(tmp_path: Path) -> None:
    tidy = tmp_path / "tidy.csv"
    rows = [(f"d{i}", s, v) for i in range(6) for s, v in (("a", 0.5 + 0.01 * i),
                                                           ("b", 0.52 + 0.01 * i))]
    rows.append(("d6", "a", 0.9))   # b has no result on d6: left out, named in a warning
    pd.DataFrame(rows, columns=["dataset", "system", "value"]).to_csv(tidy, index=False)
    out = tmp_path / "out"
    result = CliRunner().invoke(app, ["bayes", str(tidy), "--test", "sign", "--rope", "0.001",
                                      "--n-draws", "2000", "--figures", "none", "-o",
                                      str(out)])
    assert result.exit_code == 0, result.output
    assert "left out 1: d6" in result.output
    md = (out / "bayes.md").read_text()
    assert md.startswith("# Bayesian sign test") and "| a | b | 6 |" in md
    assert "b is better than a by more than the ROPE" in md
    items = pd.DataFrame([("d1", s, str(i), v) for s, v in (("a", 0.1), ("b", 0.2))
                          for i in range(3)], columns=["dataset", "system", "item", "value"])
    with pytest.raises(VerdictError, match=r"systems 'a' and 'b': 1 dataset\(s\) with results "
                       r"of both; at least 2"):
        dataset_tests(rg.Scores(items), test="signed-rank")
    with pytest.raises(SettingsError, match=r"runs: 3 belongs to the correlated t-test"):
        rg.BayesSettings(test="sign", runs=3)
    with pytest.raises(SettingsError, match=r"prior: the correlated t-test has no prior"):
        rg.BayesSettings(prior=1.0)


def test_run_bayes_is_the_pipeline_and_returns_the_command_run(tmp_path: Path) -> None:
    from ranger_eval.pipeline import CommandRun
    from ranger_eval.pipeline.bayes import run_bayes

    src = tmp_path / "table.csv"
    pd.DataFrame({"dataset": [f"d{i}" for i in range(5)], "a": [0.1, 0.2, 0.3, 0.4, 0.5],
                  "b": [0.2, 0.3, 0.3, 0.5, 0.7]}).to_csv(src, index=False)
    run = run_bayes(src, tmp_path / "out", figures="none", test="sign", prior_place="left",
                    n_draws=300)
    assert isinstance(run, CommandRun) and run.command == "bayes"
    assert run.settings == rg.BayesSettings(test="sign", prior_place="left", n_draws=300)
    assert run.result.settings is run.settings
    sig = rg.parse_signature(json.loads((tmp_path / "out" / "manifest.json").read_text())
                             ["signature"])
    assert sig["prior"] == "1@left" and sig["n_draws"] == "300"


def test_bayes_json_uses_n_draws_and_the_report_reads_files_of_earlier_releases(
        tmp_path: Path) -> None:
    """bayes.json says ``n_draws`` (the glossary's word); the HTML report of a folder whose
    bayes.json an earlier release wrote (``n_samples``) reads the same count from it."""
    src = tmp_path / "table.csv"
    pd.DataFrame({"dataset": [f"d{i}" for i in range(5)], "a": [0.1, 0.2, 0.3, 0.4, 0.5],
                  "b": [0.2, 0.25, 0.31, 0.5, 0.55]}).to_csv(src, index=False)
    out = tmp_path / "out"
    result = CliRunner().invoke(app, ["bayes", str(src), "--test", "sign", "--n-draws", "1234",
                                      "--figures", "none", "--html", "-o", str(out)])
    assert result.exit_code == 0, result.output
    saved = json.loads((out / "bayes.json").read_text())
    assert saved["result"]["n_draws"] == 1234 and "n_samples" not in saved["result"]
    page = (out / "report.html").read_text()
    assert "(1234 posterior draws" in page
    saved["result"]["n_samples"] = saved["result"].pop("n_draws")
    (out / "bayes.json").write_text(json.dumps(saved, indent=2))
    again = CliRunner().invoke(app, ["report", str(out)])
    assert again.exit_code == 0, again.output
    assert "(1234 posterior draws" in (out / "report.html").read_text()
