"""A random-effects meta-analysis of k = 2 datasets says that τ² and the prediction
interval are not estimable in any useful sense — in the warning, the summary, the Markdown and
LaTeX tables, the HTML reading and the forest plot's footer — and keeps metafor's numbers."""
from __future__ import annotations

import json
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

import ranger_eval as rg
from ranger_eval.cli import app
from ranger_eval.plots.forest.plot import forest_plot
from ranger_eval.report.meta import meta_latex, meta_markdown

CAUTION = "k = 2 datasets: τ² and the prediction interval are not estimable in any useful sense"


def test_k2_warns_and_says_what_the_numbers_mean() -> None:
    with pytest.warns(UserWarning, match=CAUTION):
        res = rg.meta_analysis([0.10, 0.15], [0.01, 0.02], method="REML")
    # τ² truncated at 0 (Q < df), as metafor: the prediction interval is the confidence interval
    assert res.tau2 == 0.0 and (res.pi_low, res.pi_high) == (res.ci_low, res.ci_high)
    caution = res.few_datasets_caution
    assert caution is not None and "equals the confidence interval" in caution
    assert "Q on 1 df" in caution and "not as a prediction" in caution
    assert caution in res.summary() and res.to_dict()["caution"] == caution
    assert f"**Caution.** {caution}" in meta_markdown(res)
    assert "not estimable in any useful sense" in meta_latex(res)


def test_k2_with_heterogeneity_says_no_equality() -> None:
    with pytest.warns(UserWarning, match=CAUTION):
        res = rg.meta_analysis([0.0, 1.0], [0.01, 0.01], method="DL")
    assert res.tau2 > 0 and res.pi_high > res.ci_high
    assert "equals the confidence interval" not in (res.few_datasets_caution or "")


def test_k1_warns_that_the_prediction_interval_is_the_confidence_interval() -> None:
    with pytest.warns(UserWarning, match="k = 1 dataset: τ² and the prediction interval are not"):
        res = rg.meta_analysis([0.1], [0.01], method="REML")
    assert (res.pi_low, res.pi_high) == (res.ci_low, res.ci_high)   # metafor's numbers, kept
    caution = res.few_datasets_caution
    assert caution is not None and "no degree of freedom" in caution
    assert caution in res.summary() and res.to_dict()["caution"] == caution
    texts = " ".join(t.get_text() for t in forest_plot(res).texts)
    assert "Caution, k = 1" in texts


@pytest.mark.parametrize(("yi", "method"), [([0.1], "FE"), ([0.1, 0.3], "FE"),
                                             ([0.1, 0.3, 0.2], "REML")])
def test_no_caution_otherwise(yi: list[float], method: str) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        res = rg.meta_analysis(yi, [0.01] * len(yi), method=method)
    assert res.few_datasets_caution is None and "caution" not in res.to_dict()


def test_k2_forest_footer_and_html_reading(tmp_path: Path) -> None:
    with pytest.warns(UserWarning, match=CAUTION):
        res = rg.meta_analysis([0.10, 0.30], [0.01, 0.02], method="REML")
    fig = forest_plot(res)
    texts = " ".join(t.get_text() for t in fig.texts)
    assert "Caution, k = 2: τ² (from 1 df) and the prediction interval" in texts
    rng = np.random.default_rng(1)
    rows = [(d, s, f"q{i}", float(rng.normal(m, 0.2))) for d in ("d1", "d2")
            for s, m in (("A", 0.5), ("B", 0.55)) for i in range(30)]
    table = tmp_path / "k2.csv"
    pd.DataFrame(rows, columns=["dataset", "system", "item", "value"]).to_csv(table, index=False)
    out = tmp_path / "o"
    result = CliRunner().invoke(app, ["meta", str(table), "--control", "A", "--treatment", "B",
                                      "--figures", "none", "--html", "-o", str(out)])
    assert result.exit_code == 0, result.output
    assert CAUTION in result.stderr
    assert CAUTION in json.loads((out / "summary.json").read_text())["result"]["caution"]
    html = (out / "report.html").read_text()
    reading = html[html.index('<div class="reading">'):]
    assert CAUTION in reading[:reading.index("</div>")]
    assert "so a new dataset may show an effect of either sign" not in html

