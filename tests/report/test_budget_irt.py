"""Report renderings of IRTResult (ranger_eval.report.budget_irt) through the registry:
Markdown, LaTeX, HTML, plain CSV and JSON carry every item, the exclusions and the signature."""
from __future__ import annotations

import io
import json
import warnings

import numpy as np
import pandas as pd
import pytest

import ranger_eval as rg
from ranger_eval.report import registry


def _responses() -> pd.DataFrame:
    rng = np.random.default_rng(4)
    th = rng.normal(size=200)
    b = np.linspace(-1.5, 1.5, 9)
    x = (rng.random((200, 9)) < 1 / (1 + np.exp(-(th[:, None] - b)))).astype(int)
    x[:, 0] = 1                                   # every system right: left out
    x[7] = 1                                      # an extreme system
    return pd.DataFrame(x, index=[f"sys|{i}" for i in range(200)],
                        columns=[f"q{j}" for j in range(9)])


@pytest.fixture(scope="module", params=["rasch", "2pl"])
def result(request: pytest.FixtureRequest) -> rg.IRTResult:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return rg.irt(_responses(), model=request.param)


def test_markdown_latex_html(result: rg.IRTResult) -> None:
    md = registry.to_markdown(result)
    assert str(result.signature) in md and "q0 (all-correct)" in md
    assert "sys\\|7 *" in md and md.count("| q") == len(result.difficulty)
    assert ("Discrimination" in md) == (result.model == "2pl")
    tex = registry.to_latex(result)
    assert "tab:irt" in tex and r"$\pm$" in tex
    page = registry.to_html(result)
    assert page.startswith('<table class="ranger-irt">') and page.count("<tr") == 1 + 8


def test_csv_and_json_round_trip(result: rg.IRTResult) -> None:
    frame = pd.read_csv(io.StringIO(registry.to_csv(result)))
    assert list(frame["item"]) == [str(i) for i in result.difficulty.index]
    assert np.allclose(frame["difficulty"], result.difficulty.to_numpy(), rtol=1e-12)
    data = json.loads(registry.to_json(result))
    assert data["signature"] == str(result.signature)
    assert data["result"]["excluded_items"] == {"q0": "all-correct"}
    assert data["result"]["systems"][7]["infit"] is None       # extreme: no fit
