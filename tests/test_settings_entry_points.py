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
    (rg.aso, S.ASOSettings),
    (rg.multi_aso, S.ASOSettings),
    (rg.verdicts.aso_groups, S.ASOSettings),
    (rg.bayesian_correlated_ttest, S.BayesSettings),
    (rg.bayesian_signed_rank, S.BayesSettings),
    (rg.bayesian_sign_test, S.BayesSettings),
    (rg.verdicts.correlated_ttests, S.BayesSettings),
    (rg.verdicts.dataset_tests, S.BayesSettings),
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


def _runs(seed_shift: float = 0.0) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(1)
    return {"a": rng.normal(0.5, 0.1, 6), "b": rng.normal(0.6 + seed_shift, 0.1, 6),
            "c": rng.normal(0.7, 0.1, 6)}


def test_aso_results_carry_their_settings():
    runs = _runs()
    check_result_settings(rg.aso(runs["a"], runs["b"], level=0.9, n_resamples=30),
                          S.ASOSettings, level=0.9, n_resamples=30)
    s = S.ASOSettings(n_resamples=30, correction="deepsig")
    assert rg.aso(runs["a"], runs["b"], settings=s).settings is s
    assert rg.multi_aso(runs, settings=s).attrs["settings"] is s
    frame = pd.DataFrame([("d", "m", name, i, float(v)) for name, xs in runs.items()
                          for i, v in enumerate(xs)],
                         columns=["dataset", "metric", "system", "seed", "value"])
    check_result_settings(rg.verdicts.aso_groups(frame, settings=s), S.ASOSettings,
                          correction="deepsig", n_resamples=30)


def test_bayes_results_carry_their_settings():
    runs = _runs()
    check_result_settings(rg.bayesian_correlated_ttest(runs["a"], runs["b"], rope=0.01),
                          S.BayesSettings, test="correlated-t", rope=0.01)
    check_result_settings(rg.bayesian_signed_rank(runs["a"], runs["b"], n_draws=100),
                          S.BayesSettings, test="signed-rank", n_draws=100)
    s = S.BayesSettings(test="sign", n_draws=100, prior_place="right")
    assert rg.bayesian_sign_test(runs["a"], runs["b"], settings=s).settings is s
    table = pd.DataFrame(runs)
    assert rg.verdicts.dataset_tests(table, settings=s).settings is s
    folds = pd.DataFrame([("d", "m", name, str(i), float(v)) for name, xs in runs.items()
                          for i, v in enumerate(xs)],
                         columns=["dataset", "metric", "system", "item", "value"])
    check_result_settings(rg.verdicts.correlated_ttests(rg.Scores(folds), rope=0.02),
                          S.BayesSettings, rope=0.02)
