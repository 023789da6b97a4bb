"""pipeline.estimate.run_estimate: the files it writes, long and wide history alike."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from ranger_eval.errors import VerdictError
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
    run = run_estimate(long, new, tmp_path / "a", n_folds=4)
    names = {p.name for p in run.written}
    assert set(ESTIMATE_OUTPUTS) | {"manifest.json"} <= names
    assert isinstance(run.settings, SubsetSettings) and run.settings.n_folds == 4
    assert run.command == "estimate" and run.result.n == 40 and run.result.n_population == 150
    other = run_estimate(wide, new, tmp_path / "b", n_folds=4)
    assert other.result.to_dict() == run.result.to_dict()
    text = (tmp_path / "a" / "estimate.md").read_text()
    assert "as precise as the plain mean of" in text and "random items" in text


def test_run_estimate_names_the_files_of_a_bad_subset(tmp_path: Path) -> None:
    long, _, _ = _files(tmp_path)
    (tmp_path / "bad.csv").write_text("item,value\nq1,1\nq2,0\nzz,1\nq3,1\n")
    with pytest.raises(VerdictError, match=r"--responses bad.csv.*absent from the history.*zz"):
        run_estimate(long, tmp_path / "bad.csv", tmp_path / "c")
