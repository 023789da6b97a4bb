"""``ranger-eval plan``: from parameters and from a pilot file; plan.json, plan.md, manifest."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

import ranger_eval as rg
from ranger_eval.cli import app


def _invoke(args: list[str]) -> object:
    result = CliRunner().invoke(app, ["plan", *args])
    assert result.exit_code == 0, result.output
    return result


def test_plan_from_parameters(tmp_path: Path) -> None:
    out = tmp_path / "out"
    result = _invoke(["--test", "paired-t", "--effect", "0.02", "--sd", "0.1", "--power", "0.8",
                      "--icc", "0.3", "--cluster-size", "5", "-o", str(out)])
    expected = rg.plan("paired-t", effect=0.02, sd=0.1, power=0.8, icc=0.3, cluster_size=5)
    payload = json.loads((out / "plan.json").read_text())
    assert payload["result"]["n"] == expected.n
    assert payload["result"]["n_exact"] == pytest.approx(expected.n_exact, rel=1e-12)
    assert payload["signature"] == str(expected.signature)
    manifest = json.loads((out / "manifest.json").read_text())
    assert {f["file"] for f in manifest["files"]} == {"plan.json", "plan.md"}
    assert all(f["signature"] == payload["signature"] for f in manifest["files"])
    md = (out / "plan.md").read_text()
    assert expected.summary() in md and f"`{expected.signature}`" in md
    assert expected.summary() in result.output  # type: ignore[attr-defined]


def test_plan_whole_n_and_binary(tmp_path: Path) -> None:
    out = tmp_path / "o"
    _invoke(["--test", "mcnemar-exact", "--p-control", "0.6", "--p-treatment", "0.7",
             "--correlation", "0.3", "--n", "80", "-o", str(out)])
    payload = json.loads((out / "plan.json").read_text())
    expected = rg.plan("mcnemar-exact", p_control=0.6, p_treatment=0.7, correlation=0.3, n=80)
    assert payload["result"]["power"] == pytest.approx(expected.power, rel=1e-12)


def test_plan_from_pilot(tmp_path: Path) -> None:
    rng = np.random.default_rng(4)
    n = 80
    a = rng.normal(0.6, 0.2, n)
    frame = pd.DataFrame({"dataset": "qa", "system": ["A"] * n + ["B"] * n,
                          "item": [f"q{i}" for i in range(n)] * 2,
                          "value": np.r_[a, a + rng.normal(0.02, 0.1, n)]})
    pilot = tmp_path / "pilot.csv"
    frame.to_csv(pilot, index=False)
    out = tmp_path / "p"
    _invoke(["--pilot", str(pilot), "--treatment", "B", "--control", "A", "--effect", "0.02",
             "--n", "100", "--n-resamples", "300", "--seed", "7", "-o", str(out)])
    payload = json.loads((out / "plan.json").read_text())
    expected = rg.plan_from_pilot(frame, treatment="B", control="A", effect=0.02, n=100,
                                  n_resamples=300, seed=7)
    assert payload["result"]["power"] == expected.power
    assert payload["result"]["type_m"] == pytest.approx(expected.type_m)
    assert "Card et al. 2020" in (out / "plan.md").read_text()


def test_pilot_options_without_pilot_are_an_error(tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["plan", "--test", "paired-t", "--effect", "0.3",
                                      "--power", "0.8", "--control", "A", "-o",
                                      str(tmp_path / "x")])
    assert result.exit_code == 2
    assert "--control" in result.output and "only with --pilot" in result.output


def test_plan_with_clusters_speaks_options(tmp_path: Path) -> None:
    """Whole clusters, and the error that says so names --n and --cluster-size
    (the Python API's keywords are in tests/stats/test_power.py)."""
    out = tmp_path / "o"
    result = _invoke(["--test", "paired-t", "--effect", "0.02", "--sd", "0.1", "--power", "0.8",
                      "--icc", "0.3", "--cluster-size", "5", "-o", str(out)])
    n = json.loads((out / "plan.json").read_text())["result"]
    assert n["n"] == 5 * n["n_clusters"]
    assert f"{n['n']} items in {n['n_clusters']} clusters of 5" in result.output  # type: ignore[attr-defined]
    bad = CliRunner().invoke(app, ["plan", "--test", "paired-t", "--effect", "0.02", "--sd",
                                   "0.1", "--icc", "0.3", "--cluster-size", "5", "--n", "1998",
                                   "-o", str(out)])
    assert bad.exit_code == 2
    assert ("--n 1998 items are not whole clusters of 5: a plan assumes equal clusters, n = "
            "clusters × cluster size; pass --n 2000 (400 clusters) or --n 1995 (399)"
            in bad.stderr)
    assert "n=" not in bad.stderr


def test_plan_from_a_clustered_pilot_log_reads_its_clusters(tmp_path: Path) -> None:
    """--cluster names the cluster field of a pilot (as on compare): the simulations draw the
    pilot's passages whole (two Inspect runs' 7 passages), the plan answers in whole clusters
    and says so, and equals rg.plan_from_pilot on the same scores; --cluster without --pilot
    names both options."""
    logs = Path(__file__).resolve().parents[1] / "oracles" / "inspect_clusters" / "json"
    out = tmp_path / "out"
    scores = rg.read_scores(logs / "strong.json", cluster="passage", system="strong")
    weak = rg.read_scores(logs / "weak.json", cluster="passage", system="weak")
    both = rg.Scores(pd.concat([scores.frame, weak.frame], ignore_index=True))
    expected = rg.plan_from_pilot(both, treatment="strong", control="weak", effect=0.1, power=0.8)
    assert expected.n_clusters is not None and expected.n % 1 == 0
    table = tmp_path / "pilot.csv"
    both.frame.to_csv(table, index=False)
    res = _invoke(["--pilot", str(table), "--treatment", "strong", "--control", "weak",
                   "--cluster", "cluster", "--effect", "0.1", "--power", "0.8", "-o", str(out)])
    payload = json.loads((out / "plan.json").read_text())["result"]
    assert payload["n"] == expected.n and payload["n_clusters"] == expected.n_clusters
    assert f"in {expected.n_clusters} whole clusters" in res.stdout
    bad = CliRunner().invoke(app, ["plan", "--test", "paired-t", "--effect", "0.1", "--sd", "1",
                                   "--power", "0.8", "--cluster", "passage", "-o", str(out)])
    assert bad.exit_code != 0 and "--cluster" in bad.output and "--pilot" in bad.output
