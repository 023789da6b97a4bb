"""compare with a prompt column (ranger_eval.comparison.prompts): the crossed random-effects
test of the paired difference per item × prompt equals lmerTest (tests/oracles/crossed_lme4.R,
1e-5); cells of one system, one prompt and nested prompts are refused; se and df columns."""
from __future__ import annotations

import json
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import ranger_eval as rg
from ranger_eval.comparison.prompts import CROSSED
from ranger_eval.errors import CompareError, ScoresError

TESTS = json.loads((Path(__file__).resolve().parents[1] / "oracles" / "crossed_lme4.json")
                   .read_text())["tests"]
TOL = 1e-5
#: the designs with one sample per cell: lmerTest's d is then compare's cell difference
ONE_SAMPLE = [n for n, blk in TESTS.items() if max(r["sample"] for r in blk["data"]) == 1]


def _pair(name: str, shift: float = 0.0) -> pd.DataFrame:
    d = pd.DataFrame(TESTS[name]["data"]).drop(columns="sample")
    base = np.random.default_rng(7).normal(size=len(d)) + shift
    return pd.concat([d.assign(system="A", value=d["value"] + base),
                      d.assign(system="B", value=base)]).assign(dataset="qa")


@pytest.mark.parametrize("name", ONE_SAMPLE)
def test_crossed_row_equals_lmertest(name: str) -> None:
    ref = TESTS[name]["result"]
    row = rg.compare(_pair(name)).to_frame().iloc[0]
    assert row["ci_method"] == CROSSED and row["test"] == "paired-t"
    for ours, theirs in (("diff", "estimate"), ("se", "se"), ("df", "df"),
                         ("statistic", "statistic"), ("pvalue", "pvalue"),
                         ("ci_low", "ci_low"), ("ci_high", "ci_high")):
        assert row[ours] == pytest.approx(ref[theirs], rel=TOL, abs=TOL), ours


def test_signature_and_design() -> None:
    comp = rg.compare(_pair("diff_missing"))
    assert "prompts:crossed(8)" in comp.signature
    assert rg.resolve_design(comp.scores).has_prompts


def test_cells_of_one_system_are_named_or_dropped() -> None:
    short = _pair("diff_balanced").reset_index(drop=True)
    short = short[~((short["system"] == "B") & (short["item"] == "q001")
                    & (short["prompt"] == "p01"))]
    with pytest.raises(ScoresError, match="q001/p01"):
        rg.compare(short)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        row = rg.compare(short, missing="intersect").to_frame().iloc[0]
    assert any("item × prompt cell" in str(w.message) for w in caught)
    assert row["ci_method"] == CROSSED


def test_one_prompt_and_nested_prompts_are_refused() -> None:
    one = _pair("diff_balanced")
    one = one[one["prompt"] == "p01"]
    with pytest.raises(CompareError, match="one prompt"):
        rg.compare(one)
    nested = _pair("diff_balanced")
    nested = nested.assign(prompt=nested["item"] + nested["prompt"])
    with pytest.raises(CompareError, match="not crossed"):
        rg.compare(nested)


def test_other_tests_use_the_per_item_means() -> None:
    row = rg.compare(_pair("diff_balanced"), test="wilcoxon").to_frame().iloc[0]
    assert row["ci_method"] == "Hodges-Lehmann"
    assert np.isnan(row["se"]) and np.isnan(row["df"])


def test_se_and_df_columns_of_t_tests() -> None:
    rng = np.random.default_rng(0)
    x, y = rng.normal(size=25), rng.normal(size=25) + 0.2
    scores = rg.Scores.from_arrays({"qa": {"a": x, "b": y}})
    paired = rg.compare(scores, test="paired-t").to_frame().iloc[0]
    assert paired["df"] == 24
    assert paired["se"] == pytest.approx(np.std(x - y, ddof=1) / 5)
    welch = rg.compare(scores, test="welch").to_frame().iloc[0]
    from scipy import stats as sps
    ref = sps.ttest_ind(x, y, equal_var=False)
    assert welch["df"] == pytest.approx(ref.df, rel=1e-9)
    assert welch["se"] == pytest.approx((x.mean() - y.mean()) / ref.statistic, rel=1e-9)
    boot = rg.compare(scores, test="bootstrap", n_resamples=200).to_frame().iloc[0]
    assert np.isnan(boot["se"]) and np.isnan(boot["df"])
    assert list(rg.compare(scores).to_frame().columns[7:11]) == ["ci_low", "ci_high", "se", "df"]


def test_lazy_engines_refuse_the_prompt_column(tmp_path: Path) -> None:
    path = tmp_path / "prompts.parquet"
    _pair("diff_balanced").to_parquet(path)
    with pytest.raises(ScoresError, match="'prompt'"):
        rg.lazy.open_scores(path)
