"""`ranger-eval compare`: outputs from a tidy table and from an experiment YAML; one-line errors."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from ranger_eval.cli import app
from ranger_eval.pipeline import COMPARE_OUTPUTS as OUTPUTS

runner = CliRunner()


def _table(n: int = 30, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    rows = []
    for d in ("d1", "d2"):
        base = rng.normal(0.5, 0.2, n)
        for s, shift in (("A", 0.0), ("B", 0.02), ("C", 0.3)):
            v = base + shift + rng.normal(0, 0.05, n)
            rows += [(d, s, "acc", f"i{i}", float(x)) for i, x in enumerate(v)]
    return pd.DataFrame(rows, columns=["dataset", "system", "metric", "item", "value"])


def _err(result) -> str:
    return result.stderr if hasattr(result, "stderr") else result.output


def test_compare_tidy_table_writes_all_outputs(tmp_path):
    path = tmp_path / "scores.tsv"
    _table().to_csv(path, sep="\t", index=False)
    out = tmp_path / "out"
    result = runner.invoke(
        app, ["compare", str(path), "--out", str(out), "--n-resamples", "50", "--seed", "3",
              "--correction", "holm", "--per-dataset-figures"]
    )
    assert result.exit_code == 0, _err(result)
    for name in OUTPUTS:
        assert (out / name).stat().st_size > 0, name
    for stem in ("graph", "pvalues", "boxplots"):  # one figure per dataset x metric as well
        assert (out / f"{stem}-d1-acc.png").exists() and (out / f"{stem}-d2-acc.png").exists()
    frame = pd.read_csv(out / "comparison.csv")
    assert len(frame) == 6 and set(frame["test"]) == {"paired-t"}
    md = (out / "comparison.md").read_text()
    assert "corr:holm|" in md and "n_resamples:50" in md and "seed:3" in md
    assert "<sup>ab</sup>" in (out / "leaderboard.md").read_text()
    assert "\\toprule" in (out / "leaderboard.tex").read_text()
    assert "6 comparisons" in result.output


def test_compare_experiment_yaml_with_all_systems(tmp_path):
    rng = np.random.default_rng(4)
    systems = {"base": 0.0, "mid": 0.05, "best": 0.4}
    for task, n in (("t1", 25), ("t2", 30)):
        latent = rng.normal(0.5, 0.2, n)
        for s, shift in systems.items():
            v = latent + shift + rng.normal(0, 0.05, n)
            (tmp_path / f"{s}-{task}.txt").write_text("\n".join(f"{x:.6f}" for x in v) + "\n")
    (tmp_path / "exp.yaml").write_text(
        "title: three systems\nmetric: F1\ntasks: [t1, t2]\nsystems:\n"
        + "".join(
            f"  {s}:\n    files: {{t1: {s}-t1.txt, t2: {s}-t2.txt}}\n" for s in systems
        )
    )
    out = tmp_path / "out"
    result = runner.invoke(
        app, ["compare", str(tmp_path / "exp.yaml"), "--out", str(out), "--pairs", "baseline",
              "--baseline", "base", "--test", "wilcoxon", "--figures", "none"]
    )
    assert result.exit_code == 0, _err(result)
    frame = pd.read_csv(out / "comparison.csv")
    assert len(frame) == 4
    assert set(frame["system_b"]) == {"base"} and set(frame["metric"]) == {"F1"}
    assert set(frame["test"]) == {"wilcoxon"}
    assert frame.loc[frame["system_a"] == "best", "significant"].all()


@pytest.mark.parametrize(
    ("args", "pattern"),
    [
        (["{csv}", "--test", "ttest"], "unknown test 'ttest'"),
        (["{csv}", "--correction", "holmes"], "unknown correction 'holmes'"),
        (["{csv}", "--pairs", "baseline"], "pass --baseline SYSTEM"),
        (["{csv}", "--pairs", "baseline", "--baseline", "Z"], "unknown baseline 'Z'"),
        (["{csv}", "--test", "mcnemar"], "needs binary (0/1) scores"),
        (["{csv}", "--family", "metric"], "unknown family 'metric'"),
        (["{csv}", "--metric", "F1"], "unknown metric"),
        (["{csv}", "--level", "1.2"], "option --level: must be strictly between 0 and 1"),
        (["{one}"], "need at least two systems"),
        (["{gap}", "--test", "paired-t"], "only in 'A': 'i3'"),
        (["{nan}"], "value 'oops'"),
        (["missing.csv"], "missing.csv: file not found"),
        (["{single_yaml}"], "compare needs at least two systems"),
        (["{txt}"], "unknown file type"),
    ],
)
def test_bad_input_is_one_line_exit_2(tmp_path, args, pattern):
    table = _table(n=10)
    paths = {
        "csv": tmp_path / "s.csv",
        "one": tmp_path / "one.csv",
        "gap": tmp_path / "gap.csv",
        "nan": tmp_path / "nan.csv",
        "single_yaml": tmp_path / "single.yaml",
        "txt": tmp_path / "scores.xlsx",
    }
    table.to_csv(paths["csv"], index=False)
    table[table["system"] == "A"].to_csv(paths["one"], index=False)
    table[~((table["system"] == "B") & (table["item"] == "i3"))].to_csv(paths["gap"], index=False)
    nan = table.copy()
    nan["value"] = nan["value"].astype(object)
    nan.loc[4, "value"] = "oops"
    nan.to_csv(paths["nan"], index=False)
    (tmp_path / "a.txt").write_text("1\n0\n")
    paths["single_yaml"].write_text("tasks: [t]\nsystems:\n  a: {files: {t: a.txt}}\n")
    paths["txt"].write_text("x")
    args = [a.format(**{k: str(v) for k, v in paths.items()}) for a in args]
    result = runner.invoke(app, ["compare", *args, "--out", str(tmp_path / "o")])
    assert result.exit_code == 2, result.output
    err = _err(result)
    assert pattern in err
    assert err.startswith("ranger-eval: error: ") and err.count("\n") == 1
    assert "Traceback" not in result.output
