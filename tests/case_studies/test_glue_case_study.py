"""GLUE case study of the Ranger paper: DistilBERT (treatment) vs BERT (control), paired SMD.

Reproduces the published table in ../shared/corpus/README.md. The original code used population
standard deviations (ddof=0); Ranger uses ddof=1. The conversion, for a task with n items,
correlation r between the systems and Hedges' J = 1 − 3/(4(n−1) − 1):

    S_diff(ddof=0) = S_diff(ddof=1) · sqrt((n−1)/n)
  ⇒ d₀ = d · sqrt(n/(n−1))          (so g₀ = J·d₀ = g · sqrt(n/(n−1)))
    v₀ = J² · (1/n + d₀²/(2n)) · 2(1−r)
       = v  + J² · (1−r) · d² / (n(n−1))     since d₀² − d² = d²/(n−1).
"""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from scipy.stats import norm
from typer.testing import CliRunner

import ranger_eval as rg
from ranger_eval.io import load_experiment
from ranger_eval.pipeline import collect_scores

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "glue" / "experiment.yaml"
TASKS = ["mnli", "mrpc", "qnli", "qqp", "rte", "sst2", "wnli"]
N = {"mnli": 9815, "mrpc": 408, "qnli": 5463, "qqp": 40430, "rte": 277, "sst2": 872, "wnli": 71}
# ../shared/corpus/README.md, GLUE table: effect, ci_low, ci_upp, weight
PUBLISHED = {
    "mnli": (-0.067849, -0.085384, -0.050313, 0.260058),
    "mrpc": (-0.052792, -0.134490, 0.028905, 0.066049),
    "qnli": (-0.070396, -0.096386, -0.044407, 0.222320),
    "qqp": (-0.037032, -0.045924, -0.028139, 0.290691),
    "rte": (-0.154184, -0.295581, -0.012787, 0.025795),
    "sst2": (-0.048062, -0.100064, 0.003941, 0.123501),
    "wnli": (0.224380, 0.008046, 0.440713, 0.011585),
}
PUBLISHED_SUMMARY = (-0.054860, -0.078603, -0.031118, 5.933e-06)


def _scores(corpus: Path) -> rg.Scores:
    glue = corpus / "ranger" / "glue"
    return rg.Scores.from_arrays(
        {
            t: {
                "bert": rg.read_values(glue / "bert-base-cased" / f"{t}.txt"),
                "distilbert": rg.read_values(glue / "distilbert-base-cased" / f"{t}.txt"),
            }
            for t in TASKS
        },
        metric="accuracy",
    )


def _to_ddof0(eff: rg.EffectSizes, scores: rg.Scores) -> tuple[np.ndarray, np.ndarray]:
    """The original Ranger's (ddof=0) g and v from ours (ddof=1): see the module docstring."""
    g0, v0 = [], []
    for name, g, v, n in zip(eff.names, eff.yi, eff.vi, eff.n, strict=True):
        p = scores.pair(name, "distilbert", "bert")
        r = np.corrcoef(p.treatment, p.control)[0, 1]
        j = 1 - 3 / (4 * (n - 1) - 1)
        d = g / j
        g0.append(g * np.sqrt(n / (n - 1)))
        v0.append(v + j**2 * (1 - r) * d**2 / (n * (n - 1)))
    return np.array(g0), np.array(v0)


def test_glue_reproduces_published_smd_table(corpus):
    scores = _scores(corpus)
    eff = rg.effect_sizes(scores, treatment="distilbert", control="bert", measure="SMD")
    assert list(eff.names) == TASKS
    assert [int(n) for n in eff.n] == [N[t] for t in TASKS]
    g0, v0 = _to_ddof0(eff, scores)
    z = norm.isf(0.025)
    for i, t in enumerate(TASKS):
        effect, lo, hi, _ = PUBLISHED[t]
        assert g0[i] == pytest.approx(effect, abs=1e-5), t
        assert g0[i] - z * np.sqrt(v0[i]) == pytest.approx(lo, abs=1e-5), t
        assert g0[i] + z * np.sqrt(v0[i]) == pytest.approx(hi, abs=1e-5), t
    # the original's DL model on its own (ddof=0) inputs: weights and summary
    res0 = rg.meta_analysis(g0, v0, method="DL", names=TASKS)
    np.testing.assert_allclose(res0.weights, [PUBLISHED[t][3] for t in TASKS], atol=1e-5)
    est, lo, hi, p = PUBLISHED_SUMMARY
    assert res0.estimate == pytest.approx(est, abs=1e-5)
    assert res0.ci_low == pytest.approx(lo, abs=1e-5)
    assert res0.ci_high == pytest.approx(hi, abs=1e-5)
    assert res0.pvalue == pytest.approx(p, rel=1e-3)


def test_glue_ddof1_summary_within_1e3_of_published(corpus):
    eff = rg.effect_sizes(_scores(corpus), treatment="distilbert", control="bert", measure="SMD")
    res = rg.meta_analysis(eff, method="DL")
    est, lo, hi, _ = PUBLISHED_SUMMARY
    assert abs(res.estimate - est) < 1e-3
    assert abs(res.ci_low - lo) < 1e-3 and abs(res.ci_high - hi) < 1e-3
    np.testing.assert_allclose(res.weights, [PUBLISHED[t][3] for t in TASKS], atol=1e-3)
    assert res.pvalue < 1e-4 and res.Q > res.Q_df  # heterogeneous, as in the paper


def test_glue_experiment_yaml_matches_api(corpus):
    if not EXAMPLE.exists():
        pytest.skip("examples/glue/experiment.yaml missing")
    exp = load_experiment(EXAMPLE)
    try:
        scores = collect_scores(exp).scores
    except rg.io.InputError as exc:
        pytest.skip(f"example paths assume shared/ beside the repository: {exc}")
    eff = rg.effect_sizes(scores, treatment="distilbert", control="bert", measure="SMD")
    api = rg.effect_sizes(_scores(corpus), treatment="distilbert", control="bert", measure="SMD")
    np.testing.assert_allclose(eff.yi, api.yi, rtol=1e-12)
    np.testing.assert_allclose(eff.vi, api.vi, rtol=1e-12)


def test_glue_through_cli(corpus, tmp_path):
    """`ranger-eval meta` on a YAML pointing at the corpus writes every output file."""
    glue = corpus / "ranger" / "glue"
    lines = [
        "title: DistilBERT vs BERT on GLUE",
        "metric: accuracy",
        "control: bert",
        "treatment: distilbert",
        "measure: SMD",
        "method: REML",
        "tasks:",
        *[f"  - {{id: {t}, name: {t.upper()}}}" for t in TASKS],
        "systems:",
    ]
    for sys_id, folder in (("bert", "bert-base-cased"), ("distilbert", "distilbert-base-cased")):
        lines += [f"  {sys_id}:", "    files:"]
        lines += [f"      {t}: {glue / folder / (t + '.txt')}" for t in TASKS]
    cfg = tmp_path / "glue.yaml"
    cfg.write_text("\n".join(lines) + "\n")
    out = tmp_path / "out"
    from ranger_eval.cli import app

    result = CliRunner().invoke(app, ["meta", str(cfg), "--out", str(out), "--method", "DL"])
    assert result.exit_code == 0, result.output
    for name in ("forest.pdf", "forest.svg", "forest.png", "effects.csv", "summary.json", "summary.md"):
        assert (out / name).stat().st_size > 0, name
    summary = json.loads((out / "summary.json").read_text())
    assert summary["result"]["method"] == "DL"
    assert abs(summary["result"]["estimate"] - PUBLISHED_SUMMARY[0]) < 1e-3
    md = (out / "summary.md").read_text()
    assert "| MNLI | 9815 |" in md and "**summary**" in md and "95% CI" in md
