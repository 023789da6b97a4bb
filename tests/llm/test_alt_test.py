"""ranger_eval.llm.alt_test against the authors' code (tests/oracles/alt_test_oracle.py)."""
from __future__ import annotations

import json
import os
import subprocess
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from statsmodels.stats.multitest import multipletests

import ranger_eval as rg
from ranger_eval.errors import StatsInputError
from ranger_eval.llm.alt_test import by_rejections


@pytest.fixture(scope="module")
def oracle(oracles):
    return json.loads((oracles / "alt_test_oracle.json").read_text())


def _quiet(table, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return rg.alt_test(table, **kw)


def test_synthetic_cases_equal_the_authors_code(oracle):
    assert len(oracle["synthetic"]) >= 10
    for case in oracle["synthetic"]:
        table = pd.DataFrame(case["table"], columns=["item", "rater", "value"])
        result = _quiet(table, judge="llm", epsilon=case["epsilon"], metric=case["metric"])
        assert result.winning_rate == case["winning_rate"], case["name"]
        assert result.advantage_probability == pytest.approx(case["advantage_probability"],
                                                             abs=1e-12)
        np.testing.assert_allclose(result.p_values, case["p_values"], rtol=1e-12, atol=0)


def _repo() -> Path | None:
    """The authors' repository (github.com/nitaytech/AltTest; a checkout or a bare git dir),
    named by ``ALTTEST_REPO``: their example data carries no licence, so it is never copied
    here and the test runs only where a copy has been fetched."""
    path = os.environ.get("ALTTEST_REPO")
    return Path(path) if path and Path(path).exists() else None


def _read(repo: Path, name: str) -> dict:
    if (repo / name).is_file():
        return json.loads((repo / name).read_text())
    return json.loads(subprocess.run(["git", "--git-dir", str(repo), "show", f"HEAD:{name}"],
                                     check=True, capture_output=True, text=True).stdout)


@pytest.mark.slow
def test_the_papers_example_equals_the_authors_code(oracle):
    repo = _repo()
    if repo is None:
        pytest.skip("the AltTest repository is not here (set ALTTEST_REPO)")
    by_dataset: dict[str, list] = {}
    for row in oracle["paper"]:
        by_dataset.setdefault(row["dataset"], []).append(row)
    for dataset, rows in by_dataset.items():
        humans = _read(repo, f"data/{dataset}/human_annotations.json")
        llms = _read(repo, f"data/{dataset}/llm_annotations.json")
        base = [(i, h, v) for h, anns in humans.items() for i, v in anns.items()]
        for row in rows:
            table = pd.DataFrame(base + [(i, "__judge__", v) for i, v in
                                         llms[row["llm"]].items()],
                                 columns=["item", "rater", "value"])
            result = _quiet(table, judge="__judge__", epsilon=row["epsilon"],
                            metric=row["metric"])
            assert result.winning_rate == row["winning_rate"], (dataset, row["llm"])
            assert result.advantage_probability == pytest.approx(
                row["advantage_probability"], abs=1e-12), (dataset, row["llm"])


def test_benjamini_yekutieli_equals_statsmodels():
    rng = np.random.default_rng(0)
    for m in (1, 3, 8, 20):
        p = rng.random(m) ** 3
        for q in (0.05, 0.2):
            assert by_rejections(p, q).tolist() == multipletests(p, q, "fdr_by")[0].tolist()


def _table(n=60, noise_llm=0.2, seed=0, humans=("h1", "h2", "h3")):
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, 3, n)
    rows = [(i, h, t if rng.random() < 0.8 else (t + 1) % 3) for i, t in enumerate(truth)
            for h in humans]
    rows += [(i, "llm", t if rng.random() > noise_llm else (t + 2) % 3)
             for i, t in enumerate(truth)]
    return pd.DataFrame(rows, columns=["item", "rater", "value"])


def test_a_perfect_judge_passes_and_a_random_one_fails():
    good = rg.alt_test(_table(200, noise_llm=0.0), judge="llm")
    assert good.passed and good.winning_rate == 1.0
    bad = rg.alt_test(_table(200, noise_llm=0.9), judge="llm")
    assert not bad.passed and bad.winning_rate == 0.0
    assert "fails" in bad.summary() and bad.signature.fields["judge"] == "llm"
    assert list(good.to_frame().columns) == ["annotator", "n_items", "judge_wins", "p_value",
                                             "judge_wins_test"]


def test_errors_and_skipped_annotators():
    with pytest.raises(StatsInputError, match="not a rater"):
        rg.alt_test(_table(), judge="gpt")
    with pytest.raises(StatsInputError, match="one human annotator only"):
        rg.alt_test(_table(humans=("h1",)), judge="llm")
    with pytest.warns(rg.errors.RangerWarning, match="h1"):
        table = _table(60)
        table = table[~((table.rater == "h1") & (table["item"] >= 20))]
        result = rg.alt_test(table, judge="llm")
    assert result.skipped == ("h1",) and result.annotators == ("h2", "h3")
    with pytest.raises(StatsInputError, match="min_items"):
        rg.alt_test(_table(20), judge="llm")
