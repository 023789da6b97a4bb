"""Report renderings of VarianceComponents (ranger_eval.report.llm_variance) through the
registry: Markdown, LaTeX, plain CSV and JSON carry the components and the signature."""
from __future__ import annotations

import io
import json

import numpy as np
import pandas as pd
import pytest

import ranger_eval as rg
from ranger_eval.report import registry


@pytest.fixture(scope="module")
def result() -> rg.VarianceComponents:
    rng = np.random.default_rng(4)
    item = np.repeat(np.arange(20), 6)
    prompt = np.tile(np.repeat(np.arange(3), 2), 20)
    value = rng.normal(size=20)[item] + 0.5 * rng.normal(size=3)[prompt] + rng.normal(size=120)
    table = pd.DataFrame({"dataset": "qa", "system": "A|B", "item": item, "prompt": prompt,
                          "sample": np.tile([0, 1], 60), "value": value})
    return rg.variance_components(table)


def test_markdown_latex_csv_json(result: rg.VarianceComponents) -> None:
    md = registry.to_markdown(result)
    assert "item × prompt" in md and "A\\|B" in md and str(result.signature) in md
    tex = registry.to_latex(result)
    assert "tab:variance" in tex and "$\\times$" in tex
    frame = pd.read_csv(io.StringIO(registry.to_csv(result)))
    assert frame["var_item"].iloc[0] == pytest.approx(result.rows[0].item, rel=1e-12)
    data = json.loads(registry.to_json(result))
    assert data["signature"] == str(result.signature)
    assert data["result"]["rows"][0]["n_prompts"] == 3
