"""``--metric pass@K`` / ``pass^K`` on the commands that read per-item scores with samples."""
from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pandas.testing as pdt
import pytest
from typer.testing import CliRunner

import ranger_eval as rg
from ranger_eval.cli import app

runner = CliRunner()


def _samples(path):
    rng = np.random.default_rng(5)
    rows = [{"dataset": "code", "system": s, "item": f"q{i}", "sample": e,
             "value": float(rng.random() < p)}
            for s, p in (("a", 0.3), ("b", 0.6)) for i in range(30) for e in range(4)]
    frame = pd.DataFrame(rows)
    frame.to_csv(path, index=False)
    return frame


def test_compare_metric_pass_at_k_is_the_python_call(tmp_path):
    frame = _samples(tmp_path / "s.csv")
    res = runner.invoke(app, ["compare", str(tmp_path / "s.csv"), "--metric", "pass@2",
                              "--out", str(tmp_path / "out"), "--figures", "none"])
    assert res.exit_code == 0, res.output
    table = pd.read_csv(tmp_path / "out" / "comparison.csv")
    want = rg.compare(rg.pass_at_k(frame, 2)).to_frame()
    assert table["metric"].tolist() == ["pass@2"]
    pdt.assert_series_equal(table["pvalue"], want["pvalue"].reset_index(drop=True),
                            check_names=False, rtol=1e-9)


def test_metric_pass_k_refused_without_samples(tmp_path):
    frame = _samples(tmp_path / "s.csv").drop(columns="sample").drop_duplicates(
        ["system", "item"])
    frame.to_csv(tmp_path / "plain.csv", index=False)
    res = runner.invoke(app, ["compare", str(tmp_path / "plain.csv"), "--metric", "pass^2",
                              "--out", str(tmp_path / "out")])
    assert res.exit_code != 0
    assert "option --metric: pass^2 needs several samples per item" in res.output


def _datasets(path):
    """Three datasets × systems a, b × 12 items, 4 or 5 samples per item (K differs)."""
    rng = np.random.default_rng(8)
    rows = [{"dataset": f"d{d}", "system": s, "item": f"q{i}", "sample": e,
             "value": float(rng.random() < p + 0.03 * i)}
            for d in range(3) for s, p in (("a", 0.2), ("b", 0.45)) for i in range(12)
            for e in range(5 if i % 3 else 4)]
    frame = pd.DataFrame(rows)
    frame.to_csv(path, index=False)
    return frame


@pytest.mark.slow  # rank with its bootstraps twice (~1.7 s)
def test_rank_metric_pass_at_k_ranks_the_per_item_pass_at_k(tmp_path):
    frame = _datasets(tmp_path / "s.csv")
    pk = rg.pass_at_k(frame, 3)
    pk.frame.to_csv(tmp_path / "pk.csv", index=False)
    outs = {}
    for name, argv in (("metric", [str(tmp_path / "s.csv"), "--metric", "pass@3"]),
                       ("table", [str(tmp_path / "pk.csv")])):
        res = runner.invoke(app, ["rank", *argv, "--out", str(tmp_path / name),
                                  "--figures", "none"])
        assert res.exit_code == 0, res.output
        outs[name] = pd.read_csv(tmp_path / name / "ranking.csv")
    pdt.assert_frame_equal(outs["metric"], outs["table"])
    assert outs["metric"]["system"].tolist() == ["b", "a"]


def test_rank_metric_on_a_dataset_level_table_is_refused(tmp_path):
    pd.DataFrame({"dataset": ["d1", "d2", "d3"], "a": [0.1, 0.2, 0.3],
                  "b": [0.2, 0.3, 0.5]}).to_csv(tmp_path / "wide.csv", index=False)
    res = runner.invoke(app, ["rank", str(tmp_path / "wide.csv"), "--metric", "pass@2",
                              "--out", str(tmp_path / "out")])
    assert res.exit_code != 0
    assert "option --metric" in res.output and "dataset-level table" in res.output


def test_meta_metric_pass_hat_k_is_the_python_call(tmp_path):
    frame = _datasets(tmp_path / "s.csv")
    res = runner.invoke(app, ["meta", str(tmp_path / "s.csv"), "--control", "a",
                              "--treatment", "b", "--metric", "pass^2", "--measure", "MD",
                              "--out", str(tmp_path / "out"), "--figures", "none"])
    assert res.exit_code == 0, res.output
    effects = pd.read_csv(tmp_path / "out" / "effects.csv")
    eff = rg.effect_sizes(rg.pass_hat_k(frame, 2), treatment="b", control="a", measure="MD")
    want = rg.meta_analysis(eff)
    np.testing.assert_allclose(effects["yi"].to_numpy(), eff.yi, rtol=1e-12)
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    assert abs(summary["result"]["estimate"] - float(want.estimate)) < 1e-12


def test_metric_pass_at_k_on_an_lm_eval_log_says_why_not(tmp_path, corpus):
    logs = corpus / "eval_logs" / "lm_eval"
    if not logs.is_dir():
        pytest.skip("lm-eval logs not in the corpus")
    for command in (["compare"], ["rank"]):
        res = runner.invoke(app, [*command, str(logs), "--metric", "pass@2",
                                  "--out", str(tmp_path / command[0])])
        assert res.exit_code != 0
        assert f"option --metric: pass@2 on the lm-eval log {logs}" in res.output
        assert "one score per document" in res.output
        assert "math_perturbed_full repeats: 1" in res.output
