"""Bayesian comparison with a ROPE against baycomp.

Oracle: tests/oracles/baycomp_oracle.py → baycomp_oracle.json (baycomp 1.0.3).
"""
from __future__ import annotations

import json
import math
import warnings
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ranger_eval as rg
from ranger_eval import settings as S
from ranger_eval.errors import RenamedKeywordError, SettingsError, VerdictError
from ranger_eval.stats.bayes import signed_rank_theta

ORACLE = json.loads((Path(__file__).parents[1] / "oracles" / "baycomp_oracle.json").read_text())


@pytest.mark.parametrize("case", ORACLE["correlated"], ids=lambda c: f"n{len(c['x'])}-r{c['runs']}")
def test_correlated_ttest_equals_baycomp(case):
    res = rg.bayesian_correlated_ttest(case["x"], case["y"], rope=case["rope"], runs=case["runs"])
    np.testing.assert_allclose(res.probabilities, case["probs"], rtol=1e-12, atol=1e-15)
    assert res.mean == pytest.approx(case["mean"], rel=1e-12)
    assert res.scale == pytest.approx(math.sqrt(case["var"]), rel=1e-12)
    assert res.df == case["df"]


@pytest.mark.parametrize("case", ORACLE["multiple"], ids=lambda c: f"seed{c['seed']}")
@pytest.mark.parametrize("test", ["signed_rank", "sign"])
def test_dirichlet_tests_equal_baycomp_for_the_same_draws(case, test):
    """Same seed → the same RandomState Dirichlet draws as baycomp → exactly its probabilities
    and its posterior sample."""
    fn = rg.bayesian_signed_rank if test == "signed_rank" else rg.bayesian_sign_test
    res = fn(case["x"], case["y"], rope=case["rope"], prior=case["prior"],
             n_draws=case["n_samples"], seed=case["seed"])
    np.testing.assert_allclose(res.probabilities, case[test], rtol=1e-12, atol=1e-15)
    assert res.samples is not None
    np.testing.assert_allclose(res.samples[:5], case[test + "_head"], rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("case", ORACLE["multiple"], ids=lambda c: f"seed{c['seed']}")
@pytest.mark.parametrize("test", ["signed_rank", "sign"])
def test_dirichlet_tests_within_monte_carlo_error(case, test):
    """Another seed: each probability within 4.5 combined Monte-Carlo standard errors
    (√(p(1-p)/50,000) + the reference's √(p(1-p)/100,000)) of baycomp's 100,000-draw value."""
    fn = rg.bayesian_signed_rank if test == "signed_rank" else rg.bayesian_sign_test
    res = fn(case["x"], case["y"], rope=case["rope"], prior=case["prior"], seed=12345)
    ref = np.array(case[test + "_mc100k"])
    p = np.clip((np.array(res.probabilities) + ref) / 2, 1e-4, 1)
    se = np.sqrt(p * (1 - p) * (1 / 50_000 + 1 / 100_000))
    assert np.all(np.abs(np.array(res.probabilities) - ref) <= 4.5 * se + 1e-12)
    assert res.mc_se is not None and max(res.mc_se) <= 0.5 / math.sqrt(50_000) + 1e-15


@pytest.mark.parametrize("case", ORACLE["sign_prior_place"], ids=lambda c: c["prior_place"])
def test_sign_test_prior_place(case):
    res = rg.bayesian_sign_test(case["x"], case["y"], rope=case["rope"], prior=case["prior"],
                                prior_place=case["prior_place"], seed=case["seed"])
    np.testing.assert_allclose(res.probabilities, case["probs"], rtol=1e-12)


def test_against_baycomp_directly():
    baycomp = pytest.importorskip("baycomp", reason="baycomp is the oracle here (the 'oracle' extra)")
    rng = np.random.default_rng(5)
    x = rng.normal(0.7, 0.05, 12)
    y = x + rng.normal(0.01, 0.02, 12)
    got = rg.bayesian_signed_rank(x, y, rope=0.01, n_draws=2000, seed=9)
    want = baycomp.SignedRankTest.probs(x, y, 0.01, nsamples=2000, random_state=9)
    np.testing.assert_allclose(got.probabilities, want, rtol=1e-12)
    got = rg.bayesian_correlated_ttest(x, y, rope=0.01, runs=2)
    np.testing.assert_allclose(got.probabilities, baycomp.two_on_single(x, y, 0.01, runs=2),
                               rtol=1e-12)


def test_signed_rank_blocks_agree_with_one_outer_product_per_draw():
    """The vectorised quadratic forms equal baycomp's per-draw np.sum(outer(w, w) * H)."""
    rng = np.random.default_rng(3)
    d = rng.normal(0, 1, 7)
    w = rng.dirichlet(np.ones(8), 50)
    theta = signed_rank_theta(d, w, 0.3)
    z = np.concatenate(([0.0], d))
    s = z[:, None] + z[None, :]
    above = (s > 0.6) + 0.5 * (s == 0.6)
    below = (-s > 0.6) + 0.5 * (-s == 0.6)
    for k in range(50):
        o = np.outer(w[k], w[k])
        assert theta[k, 2] == pytest.approx(np.sum(o * above), rel=1e-12)
        assert theta[k, 0] == pytest.approx(np.sum(o * below), rel=1e-12)


scores = st.lists(st.floats(0, 1, allow_nan=False), min_size=4, max_size=12)


@settings(max_examples=40, deadline=None)
@given(scores, st.floats(-0.2, 0.2), st.floats(0.0, 0.05))
def test_swapping_systems_swaps_left_and_right(xs, shift, rope):
    x = np.array(xs)
    y = x + shift + np.linspace(-0.01, 0.01, x.size)
    r1 = rg.bayesian_correlated_ttest(x, y, rope=rope)
    r2 = rg.bayesian_correlated_ttest(y, x, rope=rope)
    assert r1.p_left == pytest.approx(r2.p_right, abs=1e-12)
    assert r1.p_rope == pytest.approx(r2.p_rope, abs=1e-12)
    assert sum(r1.probabilities) == pytest.approx(1, abs=1e-12)
    r3 = rg.bayesian_correlated_ttest(x, y, rope=rope, higher_is_better=False)
    assert r3.p_left == pytest.approx(r1.p_right, abs=1e-12)
    wider = rg.bayesian_correlated_ttest(x, y, rope=rope + 0.01)
    assert wider.p_rope >= r1.p_rope - 1e-12


@settings(max_examples=15, deadline=None)
@given(scores, st.floats(0.001, 0.05))
def test_dirichlet_probabilities_are_a_distribution(xs, rope):
    x = np.array(xs)
    y = x[::-1].copy()
    if not np.any(y - x):
        y = y + 0.001
    for fn in (rg.bayesian_signed_rank, rg.bayesian_sign_test):
        res = fn(x, y, rope=rope, n_draws=500, seed=1)
        assert sum(res.probabilities) == pytest.approx(1, abs=1e-12)
        assert all(0 <= p <= 1 for p in res.probabilities)


def test_verdict_sentences_and_signature():
    x = [0.80, 0.81, 0.79, 0.80, 0.82, 0.80, 0.81, 0.79, 0.80, 0.81]
    y = [v + 0.001 * (-1) ** i for i, v in enumerate(x)]
    res = rg.bayesian_correlated_ttest(x, y, rope=0.0012, names=("A", "B"))
    assert 0.95 < res.p_rope < 0.995
    assert res.verdict() == f"A is practically equivalent to B (P(rope) = {res.p_rope:.2f}, " \
                            "ROPE ±0.0012)"
    sure = rg.bayesian_correlated_ttest(x, y, rope=0.01, names=("A", "B"))
    assert sure.verdict() == "A is practically equivalent to B (P(rope) > 0.99, ROPE ±0.01)"
    worse = [v - 0.05 + 0.002 * (-1) ** i for i, v in enumerate(x)]
    better = rg.bayesian_correlated_ttest(x, worse, rope=0.01, names=("A", "B"))
    assert better.verdict().startswith("A is better than B by more than the ROPE (P(A better) ")
    mixed = rg.bayesian_signed_rank([0.1, 0.5, 0.3, 0.9], [0.2, 0.4, 0.35, 0.85], rope=0.01,
                                    names=("A", "B"), n_draws=2000)
    assert mixed.verdict().startswith("A vs B: inconclusive at 0.95 (P(A better) ")
    assert "P(rope) " in mixed.verdict()
    assert str(res.signature).endswith("|kind:bayes|test:correlated-t|rope:0.0012|runs:1")
    assert mixed.signature.fields["prior"] == "0.5"
    assert mixed.signature.fields["n_draws"] == "2000"
    assert mixed.signature.fields["seed"] == "0"
    sign = rg.bayesian_sign_test([0.1, 0.5, 0.3], [0.2, 0.4, 0.4], rope=0.01, prior_place="left")
    assert sign.signature.fields["prior"] == "1@left"
    assert json.loads(json.dumps(sign.to_dict()))["test"] == "sign"
    with pytest.raises(VerdictError, match="level"):
        res.verdict(level=1.5)


def test_zero_variance_is_baycomps_point_mass_with_a_warning():
    x = [0.5, 0.6, 0.7, 0.8]
    with pytest.warns(UserWarning, match="point mass"):
        res = rg.bayesian_correlated_ttest(x, [v + 0.02 for v in x], rope=0.01)
    assert res.probabilities == (0.0, 0.0, 1.0)
    with pytest.warns(UserWarning, match="point mass"):
        same = rg.bayesian_correlated_ttest(x, x, rope=0.01)
    assert same.p_rope == 1.0


@pytest.mark.parametrize("call, match", [
    (lambda: rg.bayesian_correlated_ttest([1, 2, 3], [1, 2, 4], rope=-0.1), "rope: must be"),
    (lambda: rg.bayesian_correlated_ttest([1, 2, 3, 4], [1, 2, 4, 3], runs=3), "not a multiple"),
    (lambda: rg.bayesian_correlated_ttest([1, 2, 3, 4], [1, 2, 4, 3], runs=4), "2 folds"),
    (lambda: rg.bayesian_correlated_ttest([1, 2, 3], [1, 2], rope=0.1), "same length"),
    (lambda: rg.bayesian_signed_rank([1, np.nan, 3], [1, 2, 4]), "position 1"),
    (lambda: rg.bayesian_sign_test([1, 2, 3], [1, 2, 3]), "identical"),
    (lambda: rg.bayesian_signed_rank([1, 2, 3], [1, 2, 4], prior=0), "prior"),
    (lambda: rg.bayesian_sign_test([1, 2, 3], [1, 2, 4], prior_place="middle"), "prior_place"),
    (lambda: rg.bayesian_signed_rank([1, 2, 3], [1, 2, 4], n_draws=0), "n_draws"),
])
def test_bad_arguments_raise_verdict_errors(call, match):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(VerdictError, match=match):
            call()


def test_results_carry_their_settings_and_take_a_settings_object():
    x, y = [0.1, 0.5, 0.3, 0.9, 0.4], [0.2, 0.4, 0.35, 0.85, 0.5]
    res = rg.bayesian_sign_test(x, y, rope=0.01, prior_place="left", n_draws=300)
    assert res.settings == S.BayesSettings(test="sign", rope=0.01, prior_place="left",
                                           n_draws=300)
    again = rg.bayesian_sign_test(x, y, settings=res.settings)
    assert again.probabilities == res.probabilities and again.settings is res.settings
    t = rg.bayesian_correlated_ttest(x, y, rope=0.01)
    assert t.settings == S.BayesSettings(rope=0.01) and t.runs == 1
    with pytest.raises(SettingsError, match="settings.test is 'sign'"):
        rg.bayesian_signed_rank(x, y, settings=res.settings)
    with pytest.raises(SettingsError, match="rope=0.02 given together with settings="):
        rg.bayesian_sign_test(x, y, rope=0.02, settings=res.settings)
    # treatment first, as baycomp's x: p_left is P(treatment better)
    assert rg.bayesian_signed_rank(treatment=x, control=y, n_draws=300).probabilities == \
        rg.bayesian_signed_rank(x, y, n_draws=300).probabilities


@pytest.mark.parametrize(("fn", "old", "new"), [
    (rg.bayesian_signed_rank, {"n_samples": 100}, "n_draws"),
    (rg.bayesian_sign_test, {"n_samples": 100}, "n_draws"),
    (rg.bayesian_correlated_ttest, {"x": [1.0, 2.0]}, "treatment"),
])
def test_renamed_keywords_name_their_replacement(fn, old, new):
    data = ([1.0, 2.0, 3.0], [1.5, 2.5, 3.5])[: 2 - ("x" in old)]
    with pytest.raises(RenamedKeywordError, match=f"it is called '{new}' now"):
        fn(*data, **old)
