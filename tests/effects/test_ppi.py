"""effect_sizes (and so the meta-analysis) of judge scores with a human_value column: yi and vi
are the prediction-powered paired difference and its variance (effects/ppi.py, _ppi_effects), checked
against ppi_py through tests/oracles/ppi_oracle.json."""
from __future__ import annotations

import json
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import ranger_eval as rg
from ranger_eval.errors import EffectSizeError

ORACLE = json.loads((Path(__file__).resolve().parent.parent / "oracles" / "ppi_oracle.json").read_text())


def _frame(case: dict, dataset: str = "d") -> pd.DataFrame:
    return pd.concat([pd.DataFrame({
        "dataset": dataset, "system": name, "item": case["items"], "value": data["value"],
        "human_value": [np.nan if v is None else v for v in data["human_value"]],
    }) for name, data in case["systems"].items()], ignore_index=True)


def test_effects_are_ppi_differences_and_meta_records_it() -> None:
    cases = [c for c in ORACLE["cases"] if "treatment" in c]
    df = pd.concat([_frame(c, f"d{i}") for i, c in enumerate(cases)], ignore_index=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        eff = rg.effect_sizes(df, treatment="T", control="C")
    z = stats.norm.isf(0.025)
    for i, case in enumerate(cases):
        want = case["expected"]["ppi++@0.95"]
        assert eff.yi[i] == pytest.approx(want["estimate"], rel=1e-10)
        se = (want["ci_high"] - want["ci_low"]) / (2 * z)
        assert eff.vi[i] == pytest.approx(se**2, rel=1e-9)
        assert eff.mean_treatment[i] - eff.mean_control[i] == pytest.approx(eff.yi[i], rel=1e-12)
    assert eff.measure == "MD" and eff.signature.endswith("|ppi:ppi++")
    res = rg.meta_analysis(eff, method="FE")
    w = 1 / eff.vi
    assert res.estimate == pytest.approx(float(np.sum(w * eff.yi) / np.sum(w)), rel=1e-12)
    assert "|ppi:ppi++" in res.signature


def test_standardised_measures_are_refused_and_clusters_are_cluster_robust() -> None:
    case = next(c for c in ORACLE["cases"] if "treatment" in c)
    df = _frame(case)
    with pytest.raises(EffectSizeError, match="pass measure='MD'"):
        rg.effect_sizes(df, treatment="T", control="C", measure="SMD")
    clustered = df.assign(cluster=df["item"].str[:2])
    eff = rg.effect_sizes(clustered, treatment="T", control="C")
    with pytest.warns(UserWarning, match="clusters rejects a true null"):
        # effect sizes take the CR1 variance, as their clustered MD does (effects/variances.py)
        ref = rg.ppi_mean_difference(clustered, treatment="T", control="C", cluster_se="CR1")
    assert ref.n_clusters > 1 and ref.df == ref.n_clusters - 1
    assert (eff.yi[0], eff.vi[0]) == pytest.approx((ref.estimate, ref.se ** 2), rel=1e-12)
    assert eff.vi[0] != pytest.approx(rg.effect_sizes(df, treatment="T", control="C").vi[0])
    assert "|cluster:cluster" in eff.signature
    plain = rg.effect_sizes(df.assign(human_value=np.nan), treatment="T", control="C")
    assert plain.measure == "SMD" and "ppi" not in plain.signature
