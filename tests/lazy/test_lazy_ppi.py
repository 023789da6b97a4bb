"""Scores larger than memory (ranger_eval.lazy) with a human_value column are refused: the lazy
tests and effects would silently analyse the judge's scores instead of the prediction-powered
estimate that compare and effect_sizes give in memory (comparison.ppi, effects._ppi_effects)."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import ranger_eval as rg
from ranger_eval.errors import ScoresError

JUDGED = pd.DataFrame({"dataset": "d", "system": ["A", "B", "A", "B"], "item": ["1", "1", "2", "2"],
                       "value": [0.1, 0.2, 0.3, 0.5], "human_value": [1.0, np.nan, 0.0, 1.0]})


def test_parquet_with_human_scores_is_refused(tmp_path: Path) -> None:
    pytest.importorskip("duckdb", reason="ranger_eval.lazy needs duckdb (the 'large' extra; in 'test')")
    path = tmp_path / "judged.parquet"
    JUDGED.to_parquet(path)
    with pytest.raises(ScoresError, match="human_value.*read_scores"):
        rg.open_scores(path)


def test_dask_frame_with_human_scores_is_refused() -> None:
    dd = pytest.importorskip("dask.dataframe", reason="the Dask engine needs the 'dask' extra (in 'test')")
    with pytest.raises(ScoresError, match=r"human_value.*ddf\.compute\(\)"):
        rg.open_scores(dd.from_pandas(JUDGED, npartitions=1))
