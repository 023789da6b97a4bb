"""``ranger-eval rank`` with a ``prompt`` column: the ranking's tests are compare's crossed
random-effects tests (signature ``prompts:crossed(P)``); the win rates and the Bradley–Terry
leaderboard come from the per-dataset means (datasets resampled), a warning says why; several
metrics (an aggregate per item) are refused naming the prompt column."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import ranger_eval as rg
from ranger_eval.comparison.prompts import CROSSED
from ranger_eval.pipeline import run_rank

pytestmark = pytest.mark.slow  # whole rank runs (~1–2 s)


def _prompts(path: Path, metrics: tuple[str, ...] = ("acc",)) -> pd.DataFrame:
    rng = np.random.default_rng(9)
    rows = [{"dataset": f"d{d}", "system": s, "metric": m, "item": f"q{i}", "prompt": f"p{p}",
             "value": round(mu + 0.05 * p + rng.normal(0, 0.25), 4)}
            for d in range(4) for s, mu in (("A", 0.6), ("B", 0.5), ("C", 0.45))
            for m in metrics for i in range(15) for p in range(3)]
    frame = pd.DataFrame(rows)
    frame.to_csv(path, index=False)
    return frame


def test_rank_with_prompts_honours_them(tmp_path: Path) -> None:
    frame = _prompts(tmp_path / "s.csv")
    run = run_rank(tmp_path / "s.csv", tmp_path / "out", figures="none", seed=1,
                   comparisons="all")
    assert any("'prompt' column" in w and "per-dataset means" in w for w in run.warnings)
    ranking = run.parts["ranking"]
    assert "prompts:crossed(3)" in str(ranking.signature)
    per_dataset = rg.compare(rg.Scores(frame), systems=list(ranking.order)).to_frame()
    assert (per_dataset["ci_method"] == CROSSED).all()
    wr = run.parts["win_rate"]
    assert wr.resample == "datasets"  # the per-dataset means, not the item bootstrap
    table = rg.Scores(frame).table.groupby(["dataset", "system"])["value"].mean().unstack()
    expected = rg.win_rate(table, seed=1)
    pd.testing.assert_series_equal(wr.win_rate, expected.win_rate)


def test_rank_with_prompts_and_several_metrics_is_refused(tmp_path: Path) -> None:
    _prompts(tmp_path / "s.csv", metrics=("acc", "f1"))
    with pytest.raises(rg.RangerError, match="'prompt' column"):
        run_rank(tmp_path / "s.csv", tmp_path / "out", figures="none", seed=1,
                 higher_is_better=True)
