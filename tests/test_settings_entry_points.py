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
from ranger_eval.errors import SettingsError, StatsInputError
from ranger_eval.verdicts.bradley_terry import table_battle_counts
from tests.helpers.settings_contract import check_entry_point, check_result_settings

ENTRY_POINTS = [
    (rg.compare, S.CompareSettings),
    (rg.bradley_terry, S.ArenaSettings),
    (rg.battle_counts, S.ArenaSettings),
    (table_battle_counts, S.ArenaSettings),
    (rg.plan, S.PlanSettings),
    (rg.plan_from_pilot, S.PlanSettings),
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


def test_ratings_carry_their_settings():
    battles = pd.DataFrame({"model_a": ["a", "b", "c", "a", "b"],
                            "model_b": ["b", "c", "a", "c", "a"],
                            "winner": ["model_a", "model_a", "model_a", "tie", "model_a"]})
    check_result_settings(rg.bradley_terry(battles, n_resamples=0, level=0.9), S.ArenaSettings,
                          level=0.9, n_resamples=0)
    s = S.ArenaSettings(n_resamples=0, scale=1.0)
    by_object = rg.bradley_terry(battles, settings=s)
    assert by_object.settings is s and by_object.scale == 1.0
    assert by_object.ratings.equals(rg.bradley_terry(battles, n_resamples=0, scale=1).ratings)
    with pytest.raises(SettingsError, match=r"bradley_terry: seed=3 given together with settings="):
        rg.bradley_terry(battles, settings=s, seed=3)


def test_plans_carry_their_settings():
    check_result_settings(rg.plan("welch", effect=0.5, power=0.8, level=0.9), S.PlanSettings,
                          level=0.9, test="welch")
    s = S.PlanSettings(test="paired-t", level=0.99)
    p = rg.plan(settings=s, effect=0.5, power=0.8)
    assert p.settings is s and p.level == 0.99 and p.alpha == 0.01
    assert p.n == rg.plan("paired-t", effect=0.5, power=0.8, level=0.99).n
    with pytest.raises(StatsInputError, match="n_resamples=500: only a plan simulated from a "
                                              "pilot"):
        rg.plan(settings=S.PlanSettings(test="welch", n_resamples=500), effect=0.5, power=0.8)
    rng = np.random.default_rng(1)
    frame = pd.DataFrame({"dataset": "d", "system": np.repeat(["A", "B"], 20),
                          "item": [f"i{k}" for k in range(20)] * 2, "value": rng.random(40)})
    q = rg.plan_from_pilot(frame, treatment="B", control="A", effect=0.2, n=20,
                           settings=S.PlanSettings(n_resamples=100, seed=2))
    check_result_settings(q, S.PlanSettings, n_resamples=100, seed=2)
    assert q.n_resamples == 100 and q.test == "paired-t"
    with pytest.raises(StatsInputError, match="superiority tests only"):
        rg.plan_from_pilot(frame, treatment="B", control="A", effect=0.2, n=20,
                           settings=S.PlanSettings(margin=0.1))
