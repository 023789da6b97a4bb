"""variance_components (ranger_eval.llm.variance) against R lme4 (tests/oracles/crossed_lme4.R,
1e-5), its D-study projection, the prompt column of Scores, and its refusals."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ranger_eval as rg
from ranger_eval.errors import ScoresError, SettingsError, StatsInputError
from ranger_eval.settings import VarianceSettings
from tests.helpers.settings_contract import check_result_settings

ORACLE = json.loads((Path(__file__).resolve().parents[1] / "oracles" / "crossed_lme4.json")
                    .read_text())["variance_components"]
TOL = 1e-5


def _table(name: str, system: str = "A") -> pd.DataFrame:
    return pd.DataFrame(ORACLE[name]["data"]).assign(dataset="qa", system=system)


@pytest.mark.parametrize("name", list(ORACLE))
def test_components_equal_lme4(name: str) -> None:
    fits = ORACLE[name]["fits"]
    for key, interaction in (("with_interaction", "always"), ("without_interaction", "never")):
        if key not in fits:
            continue
        ref = fits[key]
        row = rg.variance_components(_table(name), interaction=interaction).to_frame().iloc[0]
        assert row["var_item"] == pytest.approx(ref["item"], rel=TOL, abs=TOL)
        assert row["var_prompt"] == pytest.approx(ref["prompt"], rel=TOL, abs=TOL)
        assert row["var_residual"] == pytest.approx(ref["residual"], rel=TOL, abs=TOL)
        assert row["mean"] == pytest.approx(ref["mu"], rel=TOL, abs=TOL)
        assert row["se"] == pytest.approx(ref["mu_se"], rel=TOL, abs=TOL)
        if interaction == "always":
            assert row["var_item_prompt"] == pytest.approx(ref["interaction"], rel=TOL, abs=TOL)
        else:
            assert np.isnan(row["var_item_prompt"])


def test_auto_fits_the_interaction_only_with_replicates() -> None:
    with_rep = rg.variance_components(_table("replicates_balanced")).to_frame().iloc[0]
    assert np.isfinite(with_rep["var_item_prompt"])
    no_rep = rg.variance_components(_table("missing_cells_no_replicates")).to_frame().iloc[0]
    assert np.isnan(no_rep["var_item_prompt"]) and np.isnan(no_rep["share_item_prompt"])
    shares = no_rep[["share_item", "share_prompt", "share_residual"]].sum()
    assert shares == pytest.approx(1.0)


def test_one_row_per_system_dataset_metric_and_settings() -> None:
    table = pd.concat([_table("replicates_balanced", "A"), _table("replicates_balanced", "B")
                       .assign(value=lambda f: f["value"] * 2)])
    vc = rg.variance_components(table)
    frame = vc.to_frame()
    assert frame["system"].tolist() == ["A", "B"]
    assert frame["var_item"].iloc[1] == pytest.approx(4 * frame["var_item"].iloc[0], rel=1e-6)
    check_result_settings(vc, VarianceSettings, factors=("item", "prompt"))
    assert "kind:variance" in vc.to_dict()["signature"]
    assert "factors:item,prompt" in vc.summary()


def test_project_is_the_d_study_formula() -> None:
    vc = rg.variance_components(_table("replicates_balanced"))
    r = vc.rows[0]
    got = vc.project(n_items=100, n_prompts=7, n_samples=2)["se"].iloc[0]
    want = np.sqrt(r.item / 100 + r.prompt / 7 + r.item_prompt / 700 + r.residual / 1400)
    assert got == pytest.approx(want, rel=1e-12)
    now = vc.project()
    assert now["se"].iloc[0] == pytest.approx(now["se_now"].iloc[0])
    # more prompts shrink the prompt term only
    more = vc.project(n_prompts=1000)["se"].iloc[0]
    assert more < now["se"].iloc[0]
    with pytest.raises(StatsInputError, match="n_items"):
        vc.project(n_items=0)


def test_project_without_replicates_credits_no_samples() -> None:
    vc = rg.variance_components(_table("missing_cells_no_replicates"))
    a = vc.project(n_samples=1)["se"].iloc[0]
    b = vc.project(n_samples=50)["se"].iloc[0]
    assert a == b


def test_items_only_with_samples() -> None:
    table = _table("replicates_balanced").drop(columns="prompt")
    table["sample"] = table.groupby("item").cumcount()
    row = rg.variance_components(table, factors=("item",)).to_frame().iloc[0]
    assert np.isnan(row["var_prompt"]) and row["n_prompts"] == 0
    assert row["var_item"] > 0


def test_prompt_column_in_scores() -> None:
    table = _table("replicates_unbalanced")
    scores = rg.Scores(table)
    assert scores.has_prompts and scores.has_samples
    assert len(scores) == table["item"].nunique()  # per-item means over prompts and samples
    means = table.groupby("item")["value"].mean()
    got = scores.table.set_index("item")["value"]
    assert np.allclose(got.loc[means.index], means.to_numpy())
    assert rg.resolve_design(scores).has_prompts
    with pytest.raises(ScoresError, match="share a key"):
        rg.Scores(pd.concat([table, table.iloc[:1]]))


def test_refusals() -> None:
    one = _table("replicates_balanced").assign(prompt="p1")
    one = one.assign(sample=one.groupby(["item"]).cumcount())
    with pytest.raises(ScoresError, match="one prompt"):
        rg.variance_components(one)
    nested = _table("missing_cells_no_replicates")
    nested = nested.assign(prompt=nested["item"] + "-" + nested["prompt"])
    with pytest.raises(ScoresError, match="not crossed"):
        rg.variance_components(nested)
    with pytest.raises(ScoresError, match="not estimable"):
        rg.variance_components(_table("missing_cells_no_replicates"), interaction="always")
    with pytest.raises(SettingsError, match="unknown factor"):
        rg.variance_components(_table("replicates_balanced"), factors=("item", "sample"))


def test_describe_reports_the_components_with_prompts() -> None:
    table = _table("replicates_unbalanced")
    row = rg.describe(table).iloc[0]
    ref = ORACLE["replicates_unbalanced"]["fits"]["with_interaction"]
    assert row["n_prompts"] == 8
    assert row["var_prompt"] == pytest.approx(ref["prompt"], rel=TOL, abs=TOL)
    assert row["var_item_prompt"] == pytest.approx(ref["interaction"], rel=TOL, abs=TOL)
    assert row["se_crossed"] == pytest.approx(ref["mu_se"], rel=TOL, abs=TOL)
    flat = _table("replicates_balanced").drop(columns="prompt").assign(sample=lambda f: f.groupby("item").cumcount())
    assert "var_prompt" not in rg.describe(flat).columns


@settings(max_examples=20, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_components_invariant_to_row_order_and_relabelling(seed: int) -> None:
    """Permuting the rows and renaming items and prompts changes no component."""
    table = _table("replicates_balanced")
    rng = np.random.default_rng(seed)
    base = rg.variance_components(table).to_frame().iloc[0]
    other = table.iloc[rng.permutation(len(table))].assign(
        item=lambda f: "i" + f["item"].str[::-1], prompt=lambda f: "x" + f["prompt"])
    got = rg.variance_components(other).to_frame().iloc[0]
    for col in ("var_item", "var_prompt", "var_item_prompt", "var_residual", "mean", "se"):
        assert got[col] == pytest.approx(base[col], rel=1e-6, abs=1e-9), col
