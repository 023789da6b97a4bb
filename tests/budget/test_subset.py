"""estimate_from_subset and choose_subset: R survey's design-based estimator (oracle), exact
design-unbiasedness for a predictor that uses the answers, input shapes, designs, errors."""
from __future__ import annotations

import itertools
import json
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, Phase, given
from hypothesis import settings as hyp_settings
from hypothesis import strategies as st

import ranger_eval as rg
from ranger_eval.budget import subset as subset_module
from ranger_eval.budget.subset import SubsetChoice
from ranger_eval.errors import RangerWarning, SettingsError, VerdictError
from ranger_eval.settings import SubsetSettings

ORACLES = Path(__file__).resolve().parents[1] / "oracles"
SURVEY = json.loads((ORACLES / "subset_survey.json").read_text())


def _table(m: int = 40, n_items: int = 300, seed: int = 0, spread: float = 2.0):
    rng = np.random.default_rng(seed)
    theta, b = rng.normal(size=m + 1), rng.normal(0, spread, n_items)
    x = (rng.random((m + 1, n_items)) < 1 / (1 + np.exp(-(theta[:, None] - b)))).astype(int)
    items = [f"q{i}" for i in range(n_items)]
    return (pd.DataFrame(x[:m], index=[f"s{i}" for i in range(m)], columns=items),
            pd.Series(x[m], index=items))


@pytest.mark.parametrize("case", range(len(SURVEY)))
def test_fixed_predictor_equals_r_survey(case):
    """With a predictor that ignores the answers the estimate is the difference estimator: R
    survey's stratified mean of y − f (+ mean f), its SE, its t interval on degf, and the plain
    mean's SE, all to 1e-8."""
    c = SURVEY[case]
    items = [f"i{i}" for i in range(c["N"])]
    y = np.asarray(c["y"], dtype=float)
    f = pd.Series(c["f"], index=items)
    history = pd.DataFrame([y, 1 - y], columns=items)  # only its items are read
    sample = list(c["sample"])
    responses = pd.Series(y[sample], index=[items[i] for i in sample])
    strata = pd.Series(c["strata"], index=items)
    design = None
    if strata.nunique() > 1:
        design = SubsetChoice(items=tuple(responses.index), method="stratified",
                              n=len(sample), n_population=c["N"], strata=strata)

    def fixed(_history, _answers):
        return f

    est = rg.estimate_from_subset(history, responses, design=design, predictor=fixed)
    assert est.n_folds == 5
    for ours, theirs in [(est.estimate, c["estimate"]), (est.se, c["se"]),
                         (est.low, c["low"]), (est.high, c["high"]),
                         (est.subset_se, c["subset_se"])]:
        assert ours == pytest.approx(theirs, rel=1e-8)
    assert est.predictor == "fixed"


def test_design_unbiased_for_a_predictor_that_uses_the_answers(monkeypatch):
    """Over every simple random sample of 3 of 5 items and every split of it into the folds (the
    split the seed's hash of the item ids draws, here forced to each order in turn), the mean of
    the estimates is the population mean exactly, for a predictor fitted on the training folds'
    answers (a biased one, on purpose)."""
    y = np.array([1.0, 0.0, 1.0, 0.0, 0.3])
    items = [f"i{i}" for i in range(5)]
    weight = pd.Series([0.2, 0.9, 0.5, 0.1, 0.4], index=items)

    def learned(_history, answers):
        return 0.8 * weight * answers.mean() + 0.05

    history = pd.DataFrame([y, y], columns=items)
    estimates = []
    for p in itertools.permutations(range(5), 3):
        def dealt(sampled, strata, k, seed, order=p):
            rank = {items[i]: r for r, i in enumerate(order)}
            return np.array([rank[i] % k for i in sampled])
        monkeypatch.setattr(subset_module, "_fold_ids", dealt)
        answers = pd.Series(y[list(p)], index=[items[i] for i in p]).sort_index()
        estimates.append(rg.estimate_from_subset(history, answers, predictor=learned,
                                                 n_folds=2).estimate)
    assert np.mean(estimates) == pytest.approx(y.mean(), abs=1e-12)


def test_the_seeded_split_is_uniform_over_the_folds():
    """The folds come from a seeded hash of the ids: over seeds every item lands in every fold
    equally often (a random split), and for one seed the split does not depend on the order."""
    items = pd.Index([f"q{i}" for i in range(6)])
    strata = np.zeros(6, dtype=np.int64)
    counts = np.zeros((6, 3))
    for seed in range(3000):
        fold = subset_module._fold_ids(items, strata, 3, seed)
        counts[np.arange(6), fold] += 1
        assert sorted(np.bincount(fold, minlength=3)) == [2, 2, 2]
    assert np.abs(counts / 3000 - 1 / 3).max() < 0.04
    shuffled = items[[3, 0, 5, 1, 4, 2]]
    a = dict(zip(items, subset_module._fold_ids(items, strata, 3, 7), strict=True))
    b = dict(zip(shuffled, subset_module._fold_ids(shuffled, strata, 3, 7), strict=True))
    assert a == b


def test_wide_and_long_inputs_give_the_same_result():
    history, new = _table()
    subset = rg.choose_subset(history, 60, seed=3)
    answers = new[list(subset.items)]
    wide = rg.estimate_from_subset(history, answers)
    long_history = history.stack().rename("value").rename_axis(["system", "item"]).reset_index()
    long_answers = pd.DataFrame({"system": "new", "item": answers.index, "value": answers.values})
    long = rg.estimate_from_subset(long_history, long_answers)
    one_row = rg.estimate_from_subset(history.to_numpy(), answers.rename(
        index=lambda i: int(i[1:])).to_dict())
    assert long.to_dict() == wide.to_dict()
    numbered = rg.estimate_from_subset(history.set_axis(range(history.shape[1]), axis=1),
                                       answers.rename(index=lambda i: int(i[1:])))
    assert one_row.to_dict() == numbered.to_dict()
    with pytest.warns(RangerWarning, match="not estimable"):
        model = rg.irt(history)
    fitted = rg.estimate_from_subset(model, answers)
    assert fitted.estimate == pytest.approx(wide.estimate, rel=1e-12)
    assert fitted.se == pytest.approx(wide.se, rel=1e-12)


def test_result_fields_and_the_interval_stays_in_range():
    history, new = _table(seed=1)
    subset = rg.choose_subset(history, 50, seed=0)
    est = rg.estimate_from_subset(history, new[list(subset.items)], level=0.9)
    assert est.n == 50 and est.n_population == 300 and est.level == 0.9
    assert 0 <= est.low <= est.estimate <= est.high <= 1
    assert est.effective_n == pytest.approx(50 * est.subset_se**2 / est.se**2)
    assert f"{est.effective_n:,.0f} random items" in est.summary()
    assert est.predictions.index.equals(history.columns)
    assert "kind:subset" in str(est.signature) and "N:300" in str(est.signature)
    frame = est.to_frame()
    assert list(frame.estimator) == ["cross-fitted difference", "subset mean"]
    json.dumps(est.to_dict(), allow_nan=False)
    # every answer right: the interval is cut at what the mean can be given the answers
    full = rg.estimate_from_subset(history, pd.Series(1, index=list(subset.items)))
    assert full.high <= 1.0 and full.low >= 50 / 300


def test_stratified_and_anchor_designs():
    history, new = _table(seed=2)
    strat = rg.choose_subset(history, 60, method="stratified", n_strata=4, seed=1)
    counts = strat.to_frame().groupby("stratum").size()
    assert counts.sum() == 60 and (counts == 15).all()
    est = rg.estimate_from_subset(history, new[list(strat.items)], design=strat)
    assert est.design == "stratified" and est.n_strata == 4 and est.design_based
    anchor = rg.choose_subset(history, 30, method="anchor", seed=0)
    assert not anchor.design_based and len(set(anchor.items)) == 30
    assert "no design-based guarantee" in anchor.summary()
    with pytest.warns(RangerWarning, match="not a random sample"):
        est = rg.estimate_from_subset(history, new[list(anchor.items)], design=anchor)
    assert not est.design_based and "not drawn at random" in est.worth()
    rand = rg.choose_subset(history, 30, seed=5)
    assert rand == rg.choose_subset(history, 30, seed=5) and rand.design_based


def test_choose_subset_refuses_bad_sizes():
    history, _ = _table(m=5, n_items=20)
    with pytest.raises(VerdictError, match="from 2 to the benchmark's 20"):
        rg.choose_subset(history, 21)
    with pytest.raises(VerdictError, match="2 items per stratum"):
        rg.choose_subset(history, 6, method="stratified", n_strata=5)
    with pytest.raises(SettingsError, match="method"):
        rg.choose_subset(history, 6, method="best")


def test_bad_responses_are_named():
    history, new = _table(m=10, n_items=40)
    with pytest.raises(VerdictError, match="absent from the history.*'x1'"):
        rg.estimate_from_subset(history, {"q1": 1, "q2": 0, "x1": 1, "q4": 1})
    with pytest.raises(VerdictError, match="item 'q3' has value 2 "):
        rg.estimate_from_subset(history, {f"q{i}": (2 if i == 3 else 1) for i in range(12)})
    with pytest.raises(VerdictError, match="missing result"):
        rg.estimate_from_subset(history, {f"q{i}": (np.nan if i == 3 else 1) for i in range(12)})
    with pytest.raises(VerdictError, match="at least 2 per fold"):
        rg.estimate_from_subset(history, {"q1": 1})
    two = pd.DataFrame({"system": ["a", "b"], "item": ["q1", "q2"], "value": [1, 0]})
    with pytest.raises(VerdictError, match="2 systems"):
        rg.estimate_from_subset(history, two)
    design = rg.choose_subset(history, 12, seed=0)
    with pytest.raises(VerdictError, match="the design's 12 items exactly"):
        rg.estimate_from_subset(history, new[list(design.items)[:10]], design=design)
    with pytest.warns(RangerWarning, match="not estimable"):
        model = rg.irt(history)
    with pytest.raises(VerdictError, match="fitted 'rasch' model"):
        rg.estimate_from_subset(model, new[:12], predictor="2pl")


def test_settings_object_and_clash():
    history, new = _table(m=10, n_items=60)
    answers = new[:20]
    a = rg.estimate_from_subset(history, answers, settings=SubsetSettings(n_folds=4, seed=2))
    b = rg.estimate_from_subset(history, answers, n_folds=4, seed=2)
    assert a.to_dict() == b.to_dict() and a.settings == b.settings
    with pytest.raises(SettingsError, match="given together with settings="):
        rg.estimate_from_subset(history, answers, level=0.9, settings=SubsetSettings())


@pytest.mark.slow
def test_coverage_in_a_small_simulation():
    """Held-out systems (the strongest included), 100 random items: the 95% interval covers
    the full-benchmark mean at least 92% of 300 repetitions (binomial SE 1.3 points)."""
    rng = np.random.default_rng(7)
    n_items = 800
    a, b = np.exp(rng.normal(0, 0.3, n_items)), rng.normal(0, 1.5, n_items)
    theta = np.sort(rng.normal(size=60))
    x = (rng.random((60, n_items)) < 1 / (1 + np.exp(-a * (theta[:, None] - b)))).astype(int)
    held = [59, 58, 30, 10, 3]
    covered = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RangerWarning)
        fit = rg.irt(np.delete(x, held, 0))
        for r in range(60):
            for s in held:
                idx = rng.choice(n_items, 100, replace=False)
                est = rg.estimate_from_subset(fit, {int(i): x[s, i] for i in idx}, seed=r)
                covered.append(est.low <= x[s].mean() <= est.high)
    assert np.mean(covered) >= 0.92


def test_the_array_predictor_equals_irt_result_predict():
    """The cross-fitted predictions of the Rasch predictor are IRTResult.predict's own: with a
    fixed fold assignment, each item's fold-averaged prediction equals the mean of predict on
    the other folds' answers."""
    history, new = _table(m=25, n_items=120, seed=4)
    with pytest.warns(RangerWarning):
        fit = rg.irt(history)
    answers = new.iloc[::4]
    est = rg.estimate_from_subset(fit, answers, n_folds=3, seed=9)
    fold = subset_module._fold_ids(answers.index, np.zeros(answers.size, dtype=np.int64), 3, 9)
    expected = sum(fit.predict(answers[fold != j]).probability.reindex(est.predictions.index)
                   for j in range(3)) / 3
    np.testing.assert_allclose(est.predictions.to_numpy(), expected.to_numpy(), rtol=1e-12)
    assert est.predicted_mean == pytest.approx(fit.predict(answers).expected_mean(), rel=1e-12)


def test_relabelling_systems_changes_nothing_and_item_names_draw_the_folds():
    """System names are labels: renaming them gives the same numbers. The folds are a seeded
    hash of the item ids, so renaming the items draws another (equally random) split: the
    numbers stay within the cross-fitting's noise, and with one fold-free predictor equal."""
    history, new = _table(m=15, n_items=80, seed=6)
    answers = new.iloc[::3]
    a = rg.estimate_from_subset(history, answers, seed=4)
    b = rg.estimate_from_subset(history.rename(index=lambda s: s.upper() + "x"), answers, seed=4)
    for field in ("estimate", "low", "high", "se", "subset_se", "effective_n"):
        assert getattr(b, field) == pytest.approx(getattr(a, field), rel=1e-10)
    renamed = {c: f"z{len(history.columns) - k}" for k, c in enumerate(history.columns)}
    c = rg.estimate_from_subset(history.rename(columns=renamed), answers.rename(index=renamed),
                                seed=4)
    assert c.subset_se == pytest.approx(a.subset_se, rel=1e-12)
    assert abs(c.estimate - a.estimate) < a.se


@hyp_settings(max_examples=20, deadline=None,
              phases=(Phase.explicit, Phase.reuse, Phase.generate),
              suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**16), fold_seed=st.integers(0, 50),
       stratified=st.booleans())
def test_row_order_and_system_names_change_nothing(seed, fold_seed, stratified):
    """Nothing depends on the order of the rows: shuffling the history's systems and items,
    the responses' items, the long history's rows, and renaming the systems, give the same
    estimate, interval and predictions (to rounding of sums in another order)."""
    history, new = _table(m=12, n_items=60, seed=seed % 7)
    rng = np.random.default_rng(seed)
    design = rg.choose_subset(history, 20, method="stratified" if stratified else "random",
                              n_strata=2, seed=seed)
    answers = new[list(design.items)]
    base = rg.estimate_from_subset(history, answers, design=design, seed=fold_seed)
    rows, cols = rng.permutation(history.shape[0]), rng.permutation(history.shape[1])
    names = {s: f"sys-{rng.integers(10**6)}-{k}" for k, s in enumerate(history.index)}
    moved = history.iloc[rows, cols].rename(index=names)
    long = moved.stack().rename("value").rename_axis(["system", "item"]).reset_index()
    long = long.sample(frac=1.0, random_state=seed % 1000)
    for hist in (moved, long):
        other = rg.estimate_from_subset(hist, answers.sample(frac=1.0, random_state=seed % 999),
                                        design=design, seed=fold_seed)
        for field in ("estimate", "low", "high", "se", "subset_mean", "subset_se",
                      "effective_n", "predicted_mean"):
            assert getattr(other, field) == pytest.approx(getattr(base, field), rel=1e-9,
                                                          abs=1e-12)
        assert other.n_folds == base.n_folds
        np.testing.assert_allclose(other.predictions.reindex(base.predictions.index),
                                   base.predictions, rtol=1e-9, atol=1e-12)


def test_design_of_items_run_restates_choose_subsets_strata() -> None:
    history = (np.random.default_rng(4).random((15, 60)) < np.linspace(0.1, 0.9, 60)).astype(int)
    drawn = rg.choose_subset(history, 20, method="stratified", n_strata=4, seed=9)
    restated = rg.SubsetChoice.of_items(history, drawn.items, method="stratified", n_strata=4)
    assert restated.items == drawn.items and restated.n_population == 60
    assert restated.strata is not None and drawn.strata is not None
    assert restated.strata.equals(drawn.strata)
    anchor = rg.SubsetChoice.of_items(history, [1, 2, 3], method="anchor")
    assert anchor.strata is None and not anchor.design_based and anchor.n == 3
