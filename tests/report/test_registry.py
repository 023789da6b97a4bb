"""The one report registry (report.registry): every result type the commands write renders
through the same four functions ``to_markdown``, ``to_latex``, ``to_csv`` and ``to_json``, and
the JSON is the file the command writes, byte for byte."""
from __future__ import annotations

import io
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

import ranger_eval as rg
from ranger_eval.errors import ReportError
from ranger_eval.report import to_csv, to_json, to_latex, to_markdown


def _scores(seed: int = 0, n: int = 12) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    rows = [(d, s, f"i{i}", rng.normal({"A": 0.5, "B": 0.6, "C": 0.8}[s], 0.1))
            for d in ("d1", "d2", "d3", "d4", "d5", "d6") for s in ("A", "B", "C") for i in range(n)]
    return pd.DataFrame(rows, columns=["dataset", "system", "item", "value"])


def _table() -> pd.DataFrame:
    """Datasets × systems means (the input of the rank tests and the dataset-level verdicts)."""
    return _scores().groupby(["dataset", "system"])["value"].mean().unstack()


def _comparison() -> Any:
    return rg.compare(rg.Scores(_scores()), n_resamples=200, seed=1)


def _aso() -> Any:
    from ranger_eval.verdicts.aso import aso_groups

    df = _scores(n=5).query("dataset == 'd1'").rename(columns={"item": "seed"})
    df["seed"] = df["seed"].str[1:].astype(int)
    df["item"] = "all"
    return aso_groups(rg.Scores(df), seed=1)


def _bayes() -> Any:
    from ranger_eval.verdicts.bayes import dataset_tests

    return dataset_tests(_table(), test="signed-rank", rope=0.01, seed=1)


#: Every result type a command writes, built small: (name, the command, a builder).
RESULTS: dict[str, tuple[str, Callable[[], Any]]] = {
    "Comparison": ("compare", _comparison),
    "Leaderboard": ("compare", lambda: _comparison().leaderboard()),
    "MetaResult": ("meta, demo", lambda: rg.meta_analysis(
        np.array([0.1, 0.3, 0.2]), np.array([0.01, 0.02, 0.015]), names=["a", "b", "c"])),
    "RankTest": ("rank", lambda: rg.rank_test(_table())),
    "BayesianRankTest": ("rank --approach bayesian", lambda: rg.rank_test(
        _table(), approach="bayesian", rope=0.01, rope_mode="absolute")),
    "Ranking": ("rank", lambda: rg.rank_systems(rg.Scores(_scores()), seed=1)),
    "WinRate": ("rank", lambda: rg.win_rate(rg.Scores(_scores()), seed=1)),
    "Ratings": ("arena, rank", lambda: rg.bradley_terry(
        rg.battle_counts(rg.Scores(_scores())), seed=1)),
    "ASOAnalysis": ("aso", _aso),
    "BayesAnalysis": ("bayes", _bayes),
    "Plan": ("plan", lambda: rg.plan("paired-t", effect=0.3, power=0.8)),
    "PilotPlan": ("plan --pilot", lambda: rg.plan_from_pilot(
        _scores().query("dataset == 'd1'"), treatment="B", control="A", effect=0.05, n=20,
        seed=1)),
}


@pytest.fixture(scope="module", params=list(RESULTS))
def result(request: pytest.FixtureRequest) -> Any:
    name = request.param
    try:
        res = RESULTS[name][1]()
    except TypeError as exc:  # a builder's keyword renamed by the settings work
        pytest.fail(f"{name}: {exc}")
    assert type(res).__name__ == name
    return res


def test_every_result_type_renders_in_the_four_forms(result: Any) -> None:
    """Markdown and LaTeX carry the signature; CSV is plain (pandas reads it, header on line
    1); JSON is strict (no NaN) and carries the signature."""
    sig = str(result.signature)
    md, tex = to_markdown(result), to_latex(result)
    assert sig in md and "|---" in md  # a Markdown table and the signature
    assert "\\begin{table}" in tex and "\\caption{" in tex
    assert sig.split("|")[0].replace("_", "\\_") in tex
    frame = pd.read_csv(io.StringIO(to_csv(result)))
    assert len(frame) > 0 and not str(frame.columns[0]).startswith("#")
    data = json.loads(to_json(result), parse_constant=lambda c: pytest.fail(c))
    assert data["signature"] == sig


def test_the_named_renderers_are_the_registered_ones() -> None:
    """The per-type renderings, private to their report module (the commands call only the
    registry), are what the registry dispatches to."""
    from ranger_eval.report import arena, plan, ranking, verdicts
    from ranger_eval.stats.power import Plan
    from ranger_eval.verdicts.aso import ASOAnalysis
    from ranger_eval.verdicts.bayes import BayesAnalysis
    from ranger_eval.verdicts.bradley_terry import Ratings

    assert to_markdown.dispatch(Ratings) is arena._arena_markdown
    assert to_json.dispatch(Ratings) is arena._arena_json
    assert to_latex.dispatch(ASOAnalysis) is verdicts._aso_latex
    assert to_csv.dispatch(BayesAnalysis) is verdicts._bayes_csv
    assert to_json.dispatch(Plan) is plan._plan_json
    assert to_json.dispatch(rg.WinRate) is ranking._win_rate_json


def test_an_unknown_type_is_a_report_error() -> None:
    with pytest.raises(ReportError, match="no JSON rendering for int"):
        to_json(3)


@pytest.mark.slow
def test_the_json_is_the_file_the_command_writes(tmp_path: Path) -> None:
    """plan.json, arena.json and comparison.json written by the commands equal ``to_json`` of
    their result (the pipeline can write every file through the registry)."""
    from ranger_eval.pipeline import run_plan

    run = run_plan(tmp_path / "p", test="paired-t", effect=0.3, power=0.8)
    assert (tmp_path / "p" / "plan.json").read_text() == to_json(run.result)
    comp = _comparison()
    from ranger_eval.report import comparison_json

    assert to_json(comp) == comparison_json(comp)
