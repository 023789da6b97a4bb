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


@pytest.mark.parametrize("kw", [dict(test="wilcoxon"), dict(test="sign"),
                                dict(test="permutation"), dict(test="bootstrap"),
                                dict(test="mcnemar"), dict(test="welch"), dict(paired=False),
                                dict(correction="westfall-young", test="permutation"),
                                dict(metric_fn="accuracy")])
def test_analyses_that_would_ignore_prompts_are_refused(kw: dict[str, object]) -> None:
    key, value = next(iter(kw.items()))
    with pytest.raises(CompareError, match=f"{key}=.*'prompt' column.*test='paired-t'"):
        rg.compare(_pair("diff_balanced"), **kw)  # type: ignore[arg-type]


def test_clustered_items_with_prompts_are_refused() -> None:
    data = _pair("diff_balanced")
    data = data.assign(cluster=data["item"].str[:3])
    with pytest.raises(CompareError, match="'cluster' column and a 'prompt' column"):
        rg.compare(data)


@pytest.mark.parametrize("hypothesis", ["non-inferiority", "equivalence"])
@pytest.mark.parametrize("name", ONE_SAMPLE)
def test_margin_tests_take_the_crossed_estimate(name: str, hypothesis: str) -> None:
    """Two one-sided t tests from lmerTest's estimate, se and Satterthwaite df."""
    from scipy import stats as sps
    ref = TESTS[name]["result"]
    est, se, df = ref["estimate"], ref["se"], ref["df"]
    margin = 0.5
    row = rg.compare(_pair(name), hypothesis=hypothesis, margin=margin).to_frame().iloc[0]
    assert row["ci_method"] == CROSSED
    for ours, theirs in (("diff", est), ("se", se), ("df", df)):
        assert row[ours] == pytest.approx(theirs, rel=TOL, abs=TOL), ours
    p_low = sps.t.sf((est + margin) / se, df)
    q = sps.t.ppf(0.95, df)
    if hypothesis == "non-inferiority":
        assert row["pvalue"] == pytest.approx(p_low, rel=TOL, abs=TOL)
        assert row["ci_low"] == pytest.approx(est - q * se, rel=TOL, abs=TOL)
        assert row["ci_high"] == np.inf
    else:
        p_upp = sps.t.cdf((est - margin) / se, df)
        assert row["pvalue"] == pytest.approx(max(p_low, p_upp), rel=TOL, abs=TOL)
        assert row["ci_high"] == pytest.approx(est + q * se, rel=TOL, abs=TOL)


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


@pytest.mark.slow
def test_other_analyses_refuse_or_honour_prompts(tmp_path: Path) -> None:
    """rank_intervals, effect_sizes (meta) and plan_from_pilot refuse; the leaderboard's se is
    describe's se_crossed; describe says why it differs from se."""
    data = _pair("diff_balanced")
    with pytest.raises(CompareError, match="'prompt' column"):
        rg.rank_intervals(data)
    with pytest.raises(rg.RangerError, match="'prompt' column"):
        rg.effect_sizes(data, treatment="A", control="B")
    with pytest.raises(rg.RangerError, match=r"'prompt' column.*project"):
        rg.plan_from_pilot(data, treatment="A", control="B", effect=0.1, power=0.8)
    described = rg.describe(data)
    assert "prompt (template) variance" in described.attrs["note"]
    board = rg.compare(data).leaderboard().to_frame()
    se = board[[c for c in board.columns if c[-1] == "se"][0]].to_numpy()
    np.testing.assert_allclose(se, described["se_crossed"].to_numpy(), rtol=1e-6)


@pytest.mark.slow
def test_cli_writes_the_variance_components(tmp_path: Path) -> None:
    from ranger_eval.pipeline import run_compare
    path = tmp_path / "scores.csv"
    _pair("diff_balanced").to_csv(path, index=False)
    run = run_compare(path, tmp_path / "out", figures="none")
    out = tmp_path / "out"
    table = pd.read_csv(out / "variance_components.csv")
    ref = rg.variance_components(_pair("diff_balanced")).to_frame()
    np.testing.assert_allclose(table["se"], ref["se"], rtol=1e-9)
    assert "prompt (template) variance" in (out / "variance_components.md").read_text()
    assert "variance_components.md" in {Path(p).name for p in run.written}
