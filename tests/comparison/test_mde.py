"""The minimum detectable effect of non-significant comparisons (compare's ``mde`` column) and
meta-analyses (``MetaResult.mde``)."""
from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats as sps

import ranger_eval as rg
from ranger_eval.report import to_markdown
from ranger_eval.report.meta import meta_markdown


def _scores(n: int = 60, shifts: tuple[float, ...] = (0.0, 0.01, 0.2), seed: int = 0,
            binary: bool = False) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    frames = []
    for ds in ("d1", "d2"):
        base = rng.normal(0.5, 0.2, n)
        for name, shift in zip("ABC", shifts, strict=False):
            value = base + shift + rng.normal(0, 0.1, n)
            if binary:
                value = (rng.random(n) < 0.6 + shift).astype(float)
            frames.append(pd.DataFrame({"dataset": ds, "system": name, "item":
                                        [f"i{i}" for i in range(n)], "value": value}))
    return pd.concat(frames, ignore_index=True)


def test_mde_on_non_significant_rows_only() -> None:
    table = rg.compare(_scores()).table
    assert "mde" in table.columns
    assert table.loc[table["significant"], "mde"].isna().all()
    rest = table.loc[~table["significant"], "mde"]
    assert len(rest) and (rest > 0).all()


@pytest.mark.parametrize("test", ["paired-t", "welch"])
def test_mde_is_the_planned_effect_at_the_pair_n_and_se(test: str) -> None:
    table = rg.compare(_scores(), test=test).table
    row = table.loc[~table["significant"]].iloc[0]
    n = int(row["n_a"])
    df = n - 1 if test == "paired-t" else 2 * n - 2
    se = (row["ci_high"] - row["ci_low"]) / 2 / sps.t.isf(0.025, df)
    # the same test planned at this n, with the SD that gives this standard error
    sd = se * math.sqrt(n) if test == "paired-t" else se * math.sqrt(n / 2)
    expected = rg.plan(test, n=n, power=0.8, sd=sd).effect
    assert row["mde"] == pytest.approx(expected, rel=1e-9)


def test_one_sided_mde_uses_the_finite_bound() -> None:
    table = rg.compare(_scores(), test="paired-t", alternative="greater").table
    row = table.loc[~table["significant"]].iloc[0]
    n = int(row["n_a"])
    se = (row["diff"] - row["ci_low"]) / sps.t.isf(0.05, n - 1)
    expected = rg.plan("paired-t", n=n, power=0.8, sd=se * math.sqrt(n),
                       alternative="greater").effect
    assert row["mde"] == pytest.approx(expected, rel=1e-9)


def test_mde_with_the_fast_path_and_the_general_path_agree() -> None:
    fast = rg.compare(_scores()).table          # many-group paired-t path
    general = rg.compare(_scores(), test="paired-t", correction="holm").table
    assert np.allclose(fast["mde"].to_numpy(), general["mde"].to_numpy(), equal_nan=True,
                       rtol=1e-12)


def test_mde_sentence_in_markdown() -> None:
    comp = rg.compare(_scores())
    text = to_markdown(comp)
    assert "Not significant is not no difference" in text and "(column mde)" in text
    all_significant = rg.compare(_scores(shifts=(0.0, 0.3, 0.6)))
    assert all_significant.table["significant"].all()
    assert "Not significant is not no difference" not in to_markdown(all_significant)


def test_mde_round_trips_through_csv(tmp_path) -> None:
    comp = rg.compare(_scores())
    path = tmp_path / "c.csv"
    comp.to_csv(path)
    back = pd.read_csv(path)
    np.testing.assert_allclose(back["mde"], comp.table["mde"], rtol=1e-15, equal_nan=True)


@pytest.mark.parametrize("test", ["z", "knha"])
def test_meta_mde(test: str) -> None:
    yi = np.array([0.05, -0.02, 0.03, 0.01, -0.04])
    vi = np.array([0.002, 0.003, 0.0025, 0.002, 0.004])
    res = rg.meta_analysis(yi, vi, test=test)
    assert res.pvalue > 0.05
    lam = res.mde / res.se
    if test == "z":
        z = sps.norm.isf(0.025)
        achieved = sps.norm.sf(z - lam) + sps.norm.cdf(-z - lam)
    else:
        crit = sps.t.isf(0.025, res.k - 1)
        achieved = sps.nct.sf(crit, res.k - 1, lam) + sps.nct.cdf(-crit, res.k - 1, lam)
    assert achieved == pytest.approx(0.8, rel=1e-9)
    assert res.to_dict()["mde"] == pytest.approx(res.mde)
    assert "Not significant is not no effect" in meta_markdown(res)


def test_meta_mde_nan_when_significant() -> None:
    res = rg.meta_analysis(np.array([0.5, 0.6, 0.55]), np.array([0.001, 0.001, 0.002]))
    assert res.pvalue < 0.05 and math.isnan(res.mde)
    assert res.to_dict()["mde"] is None
    assert "Not significant is not no effect" not in meta_markdown(res)


def test_no_mde_for_non_inferiority_or_equivalence() -> None:
    # "not shown non-inferior / equivalent" is not a missed difference: mde stays NaN
    for hypothesis, margin in (("non-inferiority", 0.05), ("equivalence", 0.001)):
        table = rg.compare(_scores(shifts=(0.0, 0.01)), test="paired-t", hypothesis=hypothesis,
                           margin=margin).table
        assert table["mde"].isna().all()
    assert not rg.compare(_scores(shifts=(0.0, 0.01)), test="paired-t",
                          hypothesis="equivalence", margin=0.001).table["significant"].any()


def test_meta_html_report_states_the_mde(tmp_path) -> None:
    # summary.json keeps mde under "result"; the HTML reading looked for it at the top level
    from typer.testing import CliRunner

    from ranger_eval.cli import app

    rng = np.random.default_rng(3)
    rows = []
    for d in range(3):
        for i in range(40):
            base = rng.normal()
            rows += [{"dataset": f"d{d}", "system": "A", "item": f"i{i}", "value": base},
                     {"dataset": f"d{d}", "system": "B", "item": f"i{i}",
                      "value": base + rng.normal(0, 1)}]
    table = tmp_path / "scores.csv"
    pd.DataFrame(rows).to_csv(table, index=False)
    out = tmp_path / "out"
    result = CliRunner().invoke(app, ["meta", str(table), "--control", "A", "--treatment", "B",
                                      "--measure", "MD", "--figures", "none", "--html",
                                      "--out", str(out)])
    assert result.exit_code == 0, result.output
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    assert summary["result"]["pvalue"] > 0.05 and summary["result"]["mde"] > 0
    assert "Not significant is not no effect" in (out / "report.html").read_text(encoding="utf-8")
