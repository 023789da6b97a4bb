"""``--metric pass@K`` end to end: compare's, rank's and meta's signatures (manifest and
printed) name the estimator (``passk:pass@K``) and the samples per item (``samples:``)."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

import ranger_eval as rg
from ranger_eval.cli import app
from ranger_eval.scores import passk_fields

runner = CliRunner()


def _samples(path: Path) -> pd.DataFrame:
    """Three datasets × systems a, b × 12 items; 5 samples per item, 4 on every third."""
    rng = np.random.default_rng(11)
    rows = [{"dataset": f"d{d}", "system": s, "item": f"q{i}", "sample": e,
             "value": float(rng.random() < p + 0.03 * i)}
            for d in range(3) for s, p in (("a", 0.25), ("b", 0.45)) for i in range(12)
            for e in range(4 if i % 3 == 0 else 5)]
    frame = pd.DataFrame(rows)
    frame.to_csv(path, index=False)
    return frame


def _signature(out: Path) -> dict[str, str]:
    return rg.parse_signature(json.loads((out / "manifest.json").read_text())["signature"])


def test_python_results_carry_estimator_and_samples(tmp_path: Path) -> None:
    pk = rg.pass_at_k(_samples(tmp_path / "s.csv"), 3)
    assert passk_fields(pk) == ("pass@3", "4-5")
    fields = rg.parse_signature(str(rg.compare(pk).signature))
    assert fields["passk"] == "pass@3" and fields["samples"] == "4-5"
    hat = rg.pass_hat_k(_samples(tmp_path / "s.csv"), 2)
    assert passk_fields(hat) == ("pass^2", "4-5")
    effects = rg.effect_sizes(pk, treatment="b", control="a")
    assert rg.parse_signature(str(rg.meta_analysis(effects).signature))["passk"] == "pass@3"
    plain = rg.Scores(_samples(tmp_path / "s.csv"))  # samples averaged, no estimator
    assert passk_fields(plain) == (None, None) and plain.samples_label == "4-5"


@pytest.mark.slow  # the commands end to end (~1 s)
@pytest.mark.parametrize("command", ["compare", "meta"])
def test_cli_signature_names_pass_at_k_and_samples(tmp_path: Path, command: str) -> None:
    _samples(tmp_path / "s.csv")
    extra = ["--treatment", "b", "--control", "a"] if command == "meta" else []
    res = runner.invoke(app, [command, str(tmp_path / "s.csv"), "--metric", "pass@3",
                              *extra, "--out", str(tmp_path / "out"), "--figures", "none"])
    assert res.exit_code == 0, res.output
    fields = _signature(tmp_path / "out")
    assert fields["kind"] == command
    assert fields["passk"] == "pass@3" and fields["samples"] == "4-5"
    assert "passk:pass@3|samples:4-5" in res.output


@pytest.mark.slow  # rank's bootstraps (~1 s)
def test_rank_signature_names_pass_at_k_and_samples(tmp_path: Path) -> None:
    _samples(tmp_path / "s.csv")
    res = runner.invoke(app, ["rank", str(tmp_path / "s.csv"), "--metric", "pass^2",
                              "--out", str(tmp_path / "out"), "--figures", "none"])
    assert res.exit_code == 0, res.output
    fields = _signature(tmp_path / "out")
    assert fields["kind"] == "rank" and fields["passk"] == "pass^2"
    assert fields["samples"] == "4-5"
    assert "passk:pass^2|samples:4-5" in res.output
