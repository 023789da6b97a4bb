"""The lazy backends refuse a ``sample`` column (K generations per item): only Scores averages
the samples per item; the lazy engines would see duplicate keys or test samples
as items."""
from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from ranger_eval.errors import ScoresError
from ranger_eval.lazy import open_scores


def test_duckdb_engine_refuses_a_sample_column(tmp_path: Path) -> None:
    df = pd.DataFrame({"dataset": "d", "system": ["A", "A", "B", "B"], "item": "q1",
                       "sample": ["0", "1", "0", "1"], "value": [0.0, 1.0, 1.0, 1.0]})
    path = tmp_path / "scores.parquet"
    df.to_parquet(path)
    with pytest.raises(ScoresError, match=r"scores\.parquet: column 'sample' .* averaged per "
                                          r"item by Scores in memory only"):
        open_scores(path)
