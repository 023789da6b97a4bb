"""The `ranger-eval` command line: demo, meta, overrides and one-line errors."""
from __future__ import annotations

import json
import subprocess
import sys

import pytest
from typer.testing import CliRunner

from ranger_eval.cli import app
from tests.helpers.outputs import check_folder

runner = CliRunner()
# one test process builds the shared demo run (conftest's demo_cli) for every module using it
# (pytest-xdist's loadgroup, set in pyproject's addopts)
pytestmark = pytest.mark.xdist_group("demo")


@pytest.fixture(scope="module")
def demo_config(demo_run):
    """The demo's generated experiment.yaml (the shared demo run, only read), for the tests that
    only need a valid config to start from."""
    return demo_run / "example" / "experiment.yaml"


def test_demo_writes_all_outputs(demo_cli):
    out = demo_cli.out
    assert demo_cli.exit_code == 0, demo_cli.output
    assert "simulated" in demo_cli.output
    for name in ("forest.pdf", "forest.svg", "forest.png", "effects.csv", "summary.json", "summary.md"):
        assert (out / name).stat().st_size > 0, name
    assert (out / "example" / "experiment.yaml").exists()
    summary = json.loads((out / "summary.json").read_text())
    assert summary["result"]["k"] == 6 and summary["result"]["method"] == "REML"
    assert summary["measure"] == "SMD"
    # plain outputs: every CSV reads with pandas and csv.DictReader; the
    # manifest signs every file, each figure by the result it draws (the ranking's graph by the
    # ranking, kind:rank, not by the comparison inside it; the CD diagram by the rank test)
    effects = ["task_id", "dataset", "yi", "vi", "se", "ci_low", "ci_high", "n", "mean_control",
               "mean_treatment", "weight"]
    sig = summary["signature"]
    check_folder(out, {"effects.csv": effects},
                 {name: sig for name in ("effects.csv", "summary.json", "forest.svg")})
    ranked = json.loads((out / "ranking" / "ranking.json").read_text())
    rsig, tsig = ranked["signature"], ranked["rank_test"]["signature"]
    # the Bradley–Terry leaderboard of the rank's metric, signed by its own signature
    bsig = ranked["bradley_terry"]["signature"]
    assert "kind:arena" in bsig and "battles:scores(items)" in bsig
    # HELM's mean win rates beside the rank test, signed by their own signature
    wsig = ranked["win_rate"]["signature"]
    assert "kind:win_rate" in wsig and "resample:datasets+items" in wsig
    assert wsig in (out / "ranking" / "winrate.md").read_text()
    check_folder(out / "ranking",
                 {"ranking.csv": ["rank", "system", "aggregate_mean", "groups", "naive_mean",
                                  "naive_rank", "topsis"],
                  "ranktest.csv": ["system", "rank", "average_rank"],
                  "bradley_terry.csv": ["model", "rating", "ci_low", "ci_high", "se",
                                        "rank_low", "rank_high", "n_battles", "relative_to"],
                  "winrate.csv": ["system", "win_rate", "ci_low", "ci_high", "n_datasets"]},
                 {"ranking.csv": rsig, "graph.svg": rsig, "graph.png": rsig,
                  "ranktest.csv": tsig, "cd.svg": tsig, "bradley_terry.csv": bsig,
                  "bradley_terry_ratings.svg": bsig, "winrate.csv": wsig})
    assert "kind:rank" in rsig and rsig in (out / "ranking" / "graph.svg").read_text()


def test_meta_overrides_method_test_level(tmp_path, demo_config):
    cfg = demo_config
    out = tmp_path / "o"
    result = runner.invoke(
        app, ["meta", str(cfg), "--out", str(out), "--method", "PM", "--test", "knha",
              "--level", "0.9", "--measure", "MD"]
    )
    assert result.exit_code == 0, result.output
    res = json.loads((out / "summary.json").read_text())["result"]
    assert (res["method"], res["test"], res["level"], res["measure"]) == ("PM", "knha", 0.9, "MD")
    assert "90% CI" in (out / "summary.md").read_text()


@pytest.mark.parametrize(
    ("args", "pattern"),
    [
        (["meta", "does-not-exist.yaml"], "does-not-exist.yaml: file not found"),
        (["meta", "{cfg}", "--method", "XX"], "option --method: unknown τ² estimator 'XX'"),
        (["meta", "{cfg}", "--level", "2"],
         "option --level: must be strictly between 0 and 1 (e.g. 0.95); got 2.0"),
        (["meta", "{bad}"], "colour: unknown key"),
    ],
)
def test_bad_input_is_one_line_exit_2(tmp_path, demo_config, args, pattern):
    cfg = demo_config
    bad = tmp_path / "bad.yaml"
    bad.write_text(cfg.read_text() + "colour: red\n")
    args = [a.format(cfg=cfg, bad=bad) for a in args]
    result = runner.invoke(app, args)
    assert result.exit_code == 2
    err = result.stderr if hasattr(result, "stderr") else result.output
    assert pattern in err
    assert "Traceback" not in result.output
    assert len(err.strip().splitlines()) == 1


def test_zero_variance_task_is_a_clear_error(tmp_path):
    (tmp_path / "a.txt").write_text("1\n1\n1\n1\n")
    (tmp_path / "b.txt").write_text("1\n0\n1\n0\n")
    (tmp_path / "e.yaml").write_text(
        "control: a\ntreatment: b\nmeasure: SMD\ntasks: [t]\n"
        "systems:\n  a: {files: {t: a.txt}}\n  b: {files: {t: b.txt}}\n"
    )
    result = runner.invoke(app, ["meta", str(tmp_path / "e.yaml"), "--out", str(tmp_path / "o")])
    assert result.exit_code == 2
    assert "1 of 1 dataset(s) have no defined SMD effect: 't' (the control scores are constant" \
        in " ".join(result.stderr.split())
    assert "--drop-degenerate" in result.stderr


def test_help_and_version_run_as_console_script():
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "ranger_eval.cli", "--help"],
        capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0 and "meta" in done.stdout and "demo" in done.stdout
    # the help imports no command's pipeline (pandas, numpy, the analyses): every command
    # module of the CLI imports ranger_eval.pipeline (CommandRun) at its top, whose names load
    # from their command's module on first use
    imported = {line.rsplit("|", 1)[-1].strip() for line in done.stderr.splitlines()}
    assert not imported & {"pandas", "numpy", "ranger_eval.pipeline.compare",
                           "ranger_eval.pipeline._common"}, sorted(imported)
    assert runner.invoke(app, ["--version"]).output.startswith("ranger-eval ")


def test_gc_freeze_only_in_a_one_command_process(monkeypatch):
    """The executable freezes the garbage collector's view of the imported modules
    (0.2 s of a one-second command); in-process callers (the library, CliRunner) are left
    alone."""
    import gc

    from ranger_eval.cli import _common

    frozen = []
    monkeypatch.setattr(gc, "freeze", lambda: frozen.append(True))
    monkeypatch.setattr(_common, "ONE_COMMAND_PROCESS", False)
    _common.imports_done()
    assert frozen == []
    monkeypatch.setattr(_common, "ONE_COMMAND_PROCESS", True)
    _common.imports_done()
    assert frozen == [True]
