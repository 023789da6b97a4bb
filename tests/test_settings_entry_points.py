"""Every analysis entry point reads its keyword defaults from its settings object and records it.

One row per entry point: the function, its settings class. The helpers that add an analysis
add its row here (``tests/helpers/settings_contract.py`` states the contract).
"""
from __future__ import annotations

import dataclasses
import inspect

import numpy as np
import pandas as pd
import pytest

import ranger_eval as rg
from ranger_eval import settings as S
from ranger_eval.errors import SettingsError
from tests.helpers.settings_contract import check_entry_point, check_result_settings

ENTRY_POINTS = [
    (rg.compare, S.CompareSettings),
    (rg.effect_sizes, S.MetaSettings),
    (rg.effect_size_bootstrap, S.MetaSettings),
]

#: defaults that differ from the settings' on purpose (each explained in the function's docstring
#: and tested below): effect_sizes' measure None is "the data's measure" (SMD, or MD for a
#: set-level metric and judge scores with human scores); effect_size_bootstrap's treatment and
#: control are the data (arrays), not the settings' system names
DIFFERENT_DEFAULTS = {
    rg.effect_sizes: {"measure": None},
    rg.effect_size_bootstrap: {"treatment": inspect.Parameter.empty,
                               "control": inspect.Parameter.empty},
}


@pytest.mark.parametrize(("func", "cls"), ENTRY_POINTS, ids=lambda v: getattr(v, "__name__", ""))
def test_keyword_defaults_are_the_settings_defaults(func, cls):
    check_entry_point(func, cls, DIFFERENT_DEFAULTS.get(func))


def test_compare_result_carries_its_settings():
    rng = np.random.default_rng(0)
    df = pd.DataFrame({"dataset": "d", "metric": "m", "system": np.repeat(["a", "b"], 12),
                       "item": np.tile(np.arange(12), 2), "value": rng.random(24)})
    check_result_settings(rg.compare(df, level=0.9), S.CompareSettings, level=0.9)
    s = S.CompareSettings(test="wilcoxon")
    assert rg.compare(df, settings=s).settings is s


# --------------------------------------------------------------------------- effect sizes
def _paired_scores(seed: int = 0, k: int = 3) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    n = 12
    return pd.DataFrame({
        "dataset": np.repeat([f"d{i}" for i in range(k)], 2 * n), "metric": "m",
        "system": np.tile(np.repeat(["a", "b"], n), k), "item": np.tile(np.arange(n), 2 * k),
        "value": rng.random(2 * n * k)})


def test_effect_sizes_result_carries_its_settings():
    df = _paired_scores()
    eff = rg.effect_sizes(df, treatment="b", control="a", level=0.9, measure="MD")
    check_result_settings(eff, S.MetaSettings, level=0.9, measure="MD", treatment="b",
                          control="a")
    s = S.MetaSettings(treatment="b", control="a", measure="SMCC", level=0.8)
    by_settings = rg.effect_sizes(df, settings=s)
    assert by_settings.settings is s
    by_keywords = rg.effect_sizes(df, treatment="b", control="a", measure="SMCC", level=0.8)
    np.testing.assert_array_equal(by_settings.yi, by_keywords.yi)
    np.testing.assert_array_equal(by_settings.vi, by_keywords.vi)
    assert by_settings.signature == by_keywords.signature
    # the systems may come from the keywords beside settings (they are the data's)
    assert rg.effect_sizes(df, treatment="b", control="a",
                           settings=S.MetaSettings(level=0.8)).level == 0.8


def test_effect_sizes_settings_clash_and_missing_systems():
    df = _paired_scores()
    with pytest.raises(SettingsError, match=r"effect_sizes: level=0.9 given together with "
                                               r"settings="):
        rg.effect_sizes(df, treatment="b", control="a", level=0.9, settings=S.MetaSettings())
    with pytest.raises(SettingsError, match=r"effect_sizes: treatment='a' given together "
                                               r"with settings= whose treatment is 'b'"):
        rg.effect_sizes(df, treatment="a", settings=S.MetaSettings(treatment="b", control="a"))
    with pytest.raises(rg.EffectSizeError, match="effect_sizes: control is required"):
        rg.effect_sizes(df, treatment="b")


def test_effect_sizes_measure_default_is_the_datas_measure():
    """measure=None (the keyword default) and MetaSettings' "SMD" give the same numbers: SMD for
    per-item scores, MD for a set-level metric, where an explicit measure="SMD" is an error."""
    df = _paired_scores()
    smd = rg.effect_sizes(df, treatment="b", control="a")
    assert smd.measure == "SMD" == S.MetaSettings().measure
    same = rg.effect_sizes(df, settings=S.MetaSettings(treatment="b", control="a"))
    np.testing.assert_array_equal(same.yi, smd.yi)
    labels = df.assign(label=(df["item"] % 2).astype(str),
                       prediction=np.where(df["value"] > 0.5, "1", "0"))
    md = rg.effect_sizes(labels, treatment="b", control="a", metric_fn="accuracy", n_resamples=50)
    assert md.measure == "MD"
    s = S.MetaSettings(treatment="b", control="a", metric_fn="accuracy", n_resamples=50)
    by_settings = rg.effect_sizes(labels, settings=s)
    assert by_settings.measure == "MD" and by_settings.settings is s
    np.testing.assert_array_equal(by_settings.yi, md.yi)
    np.testing.assert_array_equal(by_settings.vi, md.vi)
    with pytest.raises(rg.EffectSizeError, match="measure 'SMD' is not available with metric_fn"):
        rg.effect_sizes(labels, treatment="b", control="a", metric_fn="accuracy", measure="SMD")


def test_effect_size_bootstrap_takes_settings():
    rng = np.random.default_rng(1)
    labels = rng.integers(0, 2, 40)
    t = np.where(rng.random(40) < 0.8, labels, 1 - labels)
    c = np.where(rng.random(40) < 0.6, labels, 1 - labels)
    s = S.MetaSettings(metric_fn="accuracy", n_resamples=120, seed=3, level=0.9)
    by_settings = rg.effect_size_bootstrap(t, c, labels=labels, settings=s)
    by_keywords = rg.effect_size_bootstrap(t, c, labels=labels, metric_fn="accuracy",
                                           n_resamples=120, seed=3, level=0.9)
    assert by_settings.settings is s
    check_result_settings(by_keywords, S.MetaSettings, metric_fn="accuracy", n_resamples=120)
    assert (by_settings.yi, by_settings.vi) == (by_keywords.yi, by_keywords.vi)
    assert by_settings.signature == by_keywords.signature
    with pytest.raises(SettingsError, match="effect_size_bootstrap: seed=4 given together"):
        rg.effect_size_bootstrap(t, c, labels=labels, seed=4, settings=s)
    with pytest.raises(rg.EffectSizeError, match="metric_fn is required"):
        rg.effect_size_bootstrap(t, c, labels=labels)
    replaced = dataclasses.replace(s, seed=None)
    assert rg.effect_size_bootstrap(t, c, labels=labels, settings=replaced).settings.seed is None
