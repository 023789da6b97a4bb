"""Every analysis entry point reads its keyword defaults from its settings object and records it.

One row per entry point: the function, its settings class. The helpers that add an analysis
add its row here (``tests/helpers/settings_contract.py`` states the contract).
"""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import ranger_eval as rg
from ranger_eval import settings as S
from tests.helpers.settings_contract import check_entry_point, check_result_settings

ENTRY_POINTS = [
    (rg.compare, S.CompareSettings),
]


@pytest.mark.parametrize(("func", "cls"), ENTRY_POINTS, ids=lambda v: getattr(v, "__name__", ""))
def test_keyword_defaults_are_the_settings_defaults(func, cls):
    check_entry_point(func, cls)


def test_compare_result_carries_its_settings():
    rng = np.random.default_rng(0)
    df = pd.DataFrame({"dataset": "d", "metric": "m", "system": np.repeat(["a", "b"], 12),
                       "item": np.tile(np.arange(12), 2), "value": rng.random(24)})
    check_result_settings(rg.compare(df, level=0.9), S.CompareSettings, level=0.9)
    s = S.CompareSettings(test="wilcoxon")
    assert rg.compare(df, settings=s).settings is s
