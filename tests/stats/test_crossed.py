"""Crossed-random-effects REML (ranger_eval.stats.crossed) against R lme4 / lmerTest
(tests/oracles/crossed_lme4.R and its JSON), compared at 1e-5 (lme4's own convergence is ~1e-6),
and its invariances (row order, relabelling, shift of the values)."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from ranger_eval.stats import StatsInputError
from ranger_eval.stats.crossed import crossed_mean_test, crossed_reml

ORACLES = Path(__file__).resolve().parents[1] / "oracles"
ORACLE = json.loads((ORACLES / "crossed_lme4.json").read_text())
TOL = 1e-5
VC = [(name, key) for name, blk in ORACLE["variance_components"].items() for key in blk["fits"]]


def _frame(rows: dict) -> pd.DataFrame:
    return pd.DataFrame(rows)


@pytest.mark.parametrize(("name", "key"), VC, ids=[f"{n}-{k}" for n, k in VC])
def test_components_match_lme4(name: str, key: str) -> None:
    blk = ORACLE["variance_components"][name]
    d = _frame(blk["data"])
    ref = blk["fits"][key]
    fit = crossed_reml(d["value"].to_numpy(), d["item"].to_numpy(), d["prompt"].to_numpy(),
                       interaction=key == "with_interaction")
    ours = {"item": fit.item_var, "prompt": fit.prompt_var, "residual": fit.residual_var,
            "mu": fit.mu, "mu_se": np.sqrt(fit.mu_var), "reml_crit": fit.reml_crit}
    if key == "with_interaction":
        ours["interaction"] = fit.interaction_var
    else:
        assert np.isnan(fit.interaction_var)
    for k, v in ours.items():
        assert v == pytest.approx(ref[k], rel=TOL, abs=TOL), (k, v, ref[k])


@pytest.mark.parametrize("name", list(ORACLE["tests"]))
def test_intercept_test_matches_lmertest(name: str) -> None:
    blk = ORACLE["tests"][name]
    d = _frame(blk["data"])
    ref = blk["result"]
    res = crossed_mean_test(d["value"].to_numpy(), d["item"].to_numpy(), d["prompt"].to_numpy())
    for k in ("estimate", "se", "df", "statistic", "pvalue", "ci_low", "ci_high"):
        assert getattr(res, k) == pytest.approx(ref[k], rel=TOL, abs=TOL), k


def test_invariant_to_row_order_relabelling_and_shift() -> None:
    d = _frame(ORACLE["tests"]["diff_missing"]["data"])
    base = crossed_mean_test(d["value"].to_numpy(), d["item"].to_numpy(), d["prompt"].to_numpy())
    perm = np.random.default_rng(3).permutation(len(d))
    e = d.iloc[perm]
    other = crossed_mean_test(e["value"].to_numpy() + 5.0, ("x" + e["item"]).to_numpy(),
                              ("t" + e["prompt"]).to_numpy())
    assert other.estimate == pytest.approx(base.estimate + 5.0, rel=1e-9)
    assert other.se == pytest.approx(base.se, rel=1e-7)
    assert other.df == pytest.approx(base.df, rel=1e-6)


def test_one_sided_alternatives_give_one_sided_bounds() -> None:
    d = _frame(ORACLE["tests"]["diff_balanced"]["data"])
    args = (d["value"].to_numpy(), d["item"].to_numpy(), d["prompt"].to_numpy())
    two = crossed_mean_test(*args)
    greater = crossed_mean_test(*args, alternative="greater")
    less = crossed_mean_test(*args, alternative="less")
    assert greater.ci_high == np.inf and less.ci_low == -np.inf
    assert greater.pvalue + less.pvalue == pytest.approx(1.0)
    assert min(greater.pvalue, less.pvalue) == pytest.approx(two.pvalue / 2)


def test_zero_prompt_variance_stays_at_the_bound() -> None:
    rng = np.random.default_rng(0)
    item = np.repeat(np.arange(30), 4)
    prompt = np.tile(np.arange(4), 30)
    y = rng.normal(size=30)[item] + rng.normal(size=120)
    y = y - pd.Series(y).groupby(prompt).transform("mean").to_numpy()  # no prompt signal
    fit = crossed_reml(y, item, prompt)
    assert fit.prompt_var == 0.0
    assert fit.item_var > 0 and fit.residual_var > 0
    res = crossed_mean_test(y + 0.2, item, prompt)
    assert np.isfinite(res.df) and res.df > 1


def test_bad_inputs() -> None:
    with pytest.raises(StatsInputError, match="at least 2"):
        crossed_reml(np.array([1.0]), np.array(["a"]), np.array(["p"]))
    with pytest.raises(StatsInputError, match="replicate rows"):
        crossed_reml(np.arange(4.0), np.array(list("aabb")), np.array(list("pqpq")),
                     interaction=True)
    with pytest.raises(StatsInputError, match="alternative"):
        crossed_mean_test(np.arange(4.0), np.array(list("aabb")), np.array(list("pqpq")),
                          alternative="up")
