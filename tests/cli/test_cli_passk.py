"""``--metric pass@K`` / ``pass^K`` on the commands that read per-item scores with samples."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pandas.testing as pdt
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
