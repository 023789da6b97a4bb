"""pipeline.estimate.run_estimate: the files it writes, long and wide history alike."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import ranger_eval as rg
from ranger_eval.errors import SettingsError, VerdictError
from ranger_eval.pipeline.estimate import ESTIMATE_OUTPUTS, run_estimate
from ranger_eval.settings import SubsetSettings


def _files(folder: Path) -> tuple[Path, Path, Path]:
    rng = np.random.default_rng(3)
    b, theta = rng.normal(0, 2, 150), rng.normal(size=26)
    x = (rng.random((26, 150)) < 1 / (1 + np.exp(-(theta[:, None] - b)))).astype(int)
    items = [f"q{i}" for i in range(150)]
    wide = pd.DataFrame(x[:25], columns=items)
    wide.insert(0, "system", [f"m{i}" for i in range(25)])
    wide.to_csv(folder / "wide.csv", index=False)
    wide.melt(id_vars="system", var_name="item").to_csv(folder / "long.csv", index=False)
    pick = rng.choice(150, 40, replace=False)
    pd.DataFrame({"item": [items[i] for i in pick], "value": x[25, pick]}).to_csv(
        folder / "new.csv", index=False)
    return folder / "long.csv", folder / "wide.csv", folder / "new.csv"


def test_run_estimate_writes_every_output_and_wide_equals_long(tmp_path: Path) -> None:
    long, wide, new = _files(tmp_path)
    run = run_estimate(long, new, tmp_path / "a", n_folds=4, figures="none")
    names = {p.name for p in run.written}
    assert set(ESTIMATE_OUTPUTS) | {"manifest.json"} <= names
    assert isinstance(run.settings, SubsetSettings) and run.settings.n_folds == 4
    assert run.command == "estimate" and run.result.n == 40 and run.result.n_population == 150
    other = run_estimate(wide, new, tmp_path / "b", n_folds=4, figures="none")
    assert other.result.to_dict() == run.result.to_dict()
    text = (tmp_path / "a" / "estimate.md").read_text()
    assert "as precise as the plain mean of" in text and "random items" in text


def test_run_estimate_names_the_files_of_a_bad_subset(tmp_path: Path) -> None:
    long, _, _ = _files(tmp_path)
    (tmp_path / "bad.csv").write_text("item,value\nq1,1\nq2,0\nzz,1\nq3,1\n")
    with pytest.raises(VerdictError, match=r"--responses bad.csv.*absent from the history.*zz"):
        run_estimate(long, tmp_path / "bad.csv", tmp_path / "c")


@pytest.mark.slow
def test_run_estimate_writes_the_figure_and_the_report_page(tmp_path: Path) -> None:
    long, _, new = _files(tmp_path)
    run = run_estimate(long, new, tmp_path / "a", figures="png", html=True, full_mean=0.5)
    names = {p.name for p in run.written}
    assert {"subset.png", "report.html"} <= names
    page = (tmp_path / "a" / "report.html").read_text()
    assert "Whole-benchmark estimate from a subset" in page
    assert f"{run.result.estimate:.4f}" in page and "random items" in page


def test_run_estimate_stratified_design_equals_the_function(tmp_path: Path) -> None:
    long, _, _ = _files(tmp_path)
    history = pd.read_csv(long)
    wide = history.pivot(index="system", columns="item", values="value")
    wide = wide[pd.unique(history["item"])]
    choice = rg.choose_subset(wide, 40, method="stratified", n_strata=4, seed=5)
    x = history[history.system == "m3"].set_index("item")["value"]
    pd.DataFrame({"item": list(choice.items), "value": x.loc[list(choice.items)].to_numpy()}
                 ).to_csv(tmp_path / "strat.csv", index=False)
    run = run_estimate(long, tmp_path / "strat.csv", tmp_path / "s", design="stratified",
                       n_strata=4, figures="none")
    want = rg.estimate_from_subset(wide, dict(zip(choice.items, x.loc[list(choice.items)],
                                                  strict=True)), design=choice)
    assert run.result.design == "stratified" and run.result.n_strata == 4
    assert run.result.estimate == pytest.approx(want.estimate, rel=1e-12)
    assert run.result.se == pytest.approx(want.se, rel=1e-12)


def test_run_estimate_anchor_design_says_no_guarantee(tmp_path: Path) -> None:
    long, _, new = _files(tmp_path)
    run = run_estimate(long, new, tmp_path / "n", design="anchor", figures="none")
    assert run.result.design_based is False
    assert any("anchor" in note for note in run.warnings)
    assert "not drawn at random" in (tmp_path / "n" / "estimate.md").read_text()


def test_run_estimate_names_a_bad_design(tmp_path: Path) -> None:
    long, _, new = _files(tmp_path)
    with pytest.raises(SettingsError, match=r"--design.*bogus"):
        run_estimate(long, new, tmp_path / "d", design="bogus")
    with pytest.raises(SettingsError, match=r"--strata"):
        run_estimate(long, new, tmp_path / "d", design="stratified", n_strata=0)
    with pytest.raises(VerdictError, match=r"--full-mean"):
        run_estimate(long, new, tmp_path / "d", full_mean=1.5)
