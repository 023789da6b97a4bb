"""pipeline.agree.run_agree: the files it writes and its parts."""
from __future__ import annotations

from pathlib import Path

import pandas as pd

from ranger_eval.pipeline.agree import AGREE_OUTPUTS, ALT_TEST_OUTPUTS, run_agree
from ranger_eval.settings import AgreementSettings


def test_run_agree_writes_every_output(tmp_path: Path) -> None:
    rows = [(i, r, (i + (r == "c") * (i % 4 == 0)) % 3) for i in range(40) for r in "abc"]
    pd.DataFrame(rows, columns=["item", "rater", "value"]).to_csv(tmp_path / "r.csv", index=False)
    run = run_agree(tmp_path / "r.csv", tmp_path / "out", judge="c", n_resamples=20,
                    method="fleiss", min_items=10)
    names = {p.name for p in run.written}
    assert set(AGREE_OUTPUTS) | set(ALT_TEST_OUTPUTS) | {"manifest.json"} <= names
    assert isinstance(run.settings, AgreementSettings) and run.settings.method == "fleiss"
    assert run.parts["alt_test"].judge == "c" and run.command == "agree"
