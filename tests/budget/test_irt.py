"""rg.budget.irt: Rasch by CML against eRm, 2PL by MML against girth, inputs and invariances."""
import json
from dataclasses import FrozenInstanceError
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ranger_eval.budget import irt
from ranger_eval.budget._rasch import conditional_probabilities, esf_ratios, log_gamma
from ranger_eval.errors import RangerError, SettingsError
from ranger_eval.settings import IRTSettings

ORACLES = Path(__file__).parents[1] / "oracles"
ERM = json.loads((ORACLES / "irt_erm.json").read_text())
GIRTH = json.loads((ORACLES / "irt_girth.json").read_text())
LTM = json.loads((ORACLES / "irt_ltm.json").read_text())


def _sim(n=80, k=10, seed=0):
    rng = np.random.default_rng(seed)
    th = rng.normal(size=n)
    b = np.linspace(-1.5, 1.5, k)
    return (rng.random((n, k)) < 1 / (1 + np.exp(-(th[:, None] - b)))).astype(int)


def test_esf_ratios_equal_the_summation_algorithm():
    rng = np.random.default_rng(1)
    eps = np.exp(rng.normal(size=9))
    g = np.zeros(10)
    g[0] = 1
    for e in eps:
        g[1:] = g[1:] + e * g[:-1]
    assert np.allclose(np.exp(log_gamma(esf_ratios(eps))), g, rtol=1e-12)


def test_conditional_probabilities_equal_enumeration():
    import itertools
    rng = np.random.default_rng(2)
    eps = np.exp(2 * rng.normal(size=7))
    pi, q = conditional_probabilities(eps, esf_ratios(eps), np.arange(8))
    for r in range(8):
        num, tot = np.zeros(7), 0.0
        for x in itertools.product([0, 1], repeat=7):
            if sum(x) == r:
                w = np.prod(eps ** np.array(x))
                tot += w
                num += w * np.array(x)
        assert np.allclose(pi[r], num / tot, rtol=1e-10, atol=1e-15)
        assert np.allclose(q[r], 1 - num / tot, rtol=1e-10, atol=1e-15)


@pytest.mark.parametrize("case", range(len(ERM)))
def test_rasch_equals_erm(case):
    """eRm::RM's betapar (easiness, sum zero) = −difficulty, its se.beta, loglik, and
    person.parameter's ML abilities, to 1e-4 (eRm stops nlm at its default tolerance)."""
    c = ERM[case]
    fit = irt(np.array(c["responses"]))
    assert np.allclose(-fit.difficulty.to_numpy(), c["beta"], atol=1e-4)
    assert np.allclose(fit.difficulty_se.to_numpy(), c["se_beta"], atol=1e-4)
    assert fit.loglik == pytest.approx(c["loglik"], abs=1e-4)
    mid = np.array(c["mid"])
    assert np.allclose(fit.ability.to_numpy()[mid], c["theta_mid"], atol=1e-4)
    # eRm differentiates numerically for these SEs: 2e-4
    assert np.allclose(fit.ability_se.to_numpy()[mid], c["se_theta_mid"], atol=2e-4)


@pytest.mark.parametrize("case", range(len(GIRTH)))
def test_twopl_equals_girth(case):
    """girth's twopl_mml integrates on its own quadrature: agreement to 6e-3 (girth: 5.3e-3 reached)."""
    c = GIRTH[case]
    fit = irt(np.array(c["responses"]), model="2pl")
    assert np.allclose(fit.discrimination.to_numpy(), c["discrimination"], atol=6e-3)
    assert np.allclose(fit.difficulty.to_numpy(), c["difficulty"], atol=6e-3)
    assert (fit.difficulty_se > 0).all() and (fit.discrimination_se > 0).all()


@pytest.mark.parametrize("case", range(len(LTM)))
def test_twopl_equals_ltm_on_the_same_quadrature(case):
    """R ltm::ltm(X ~ z1, IRT.param = TRUE) on its 21 Gauss–Hermite points, the rule of
    n_quadrature=21: difficulties and discriminations to 1e-4 (6.3e-5 reached: ltm's BFGS stops
    at optim's relative tolerance), and our log-likelihood is never below ltm's (it is ≤ 6e-7
    above: the same maximum, reached more tightly)."""
    c = LTM[case]
    fit = irt(np.array(c["responses"]), model="2pl", n_quadrature=21)
    assert c["convergence"] == 0
    assert np.allclose(fit.difficulty.to_numpy(), c["difficulty"], atol=1e-4, rtol=0)
    assert np.allclose(fit.discrimination.to_numpy(), c["discrimination"], atol=1e-4, rtol=0)
    assert 0 <= fit.loglik - c["loglik"] < 1e-5


def test_wide_and_long_give_the_same_result():
    x = _sim()
    wide = pd.DataFrame(x, index=[f"s{i}" for i in range(len(x))],
                        columns=[f"q{j}" for j in range(x.shape[1])])
    long = wide.rename_axis(index="system", columns="item").stack().rename("value").reset_index()
    long["dataset"] = "d"
    a, b = irt(wide), irt(long)
    pd.testing.assert_series_equal(a.difficulty, b.difficulty)
    pd.testing.assert_series_equal(a.ability, b.ability)


def test_item_order_and_system_order_do_not_matter():
    x = _sim(seed=4)
    rng = np.random.default_rng(5)
    pi, pv = rng.permutation(x.shape[1]), rng.permutation(x.shape[0])
    base = irt(pd.DataFrame(x))
    perm = irt(pd.DataFrame(x).iloc[pv, pi])
    pd.testing.assert_series_equal(base.difficulty, perm.difficulty.sort_index(), atol=1e-10)
    pd.testing.assert_series_equal(base.ability, perm.ability.sort_index(), atol=1e-10)


def test_all_correct_item_is_excluded_with_a_warning_and_extreme_system_gets_wle():
    x = _sim(seed=6)
    x[:, 0] = 1
    x[3] = 1
    with pytest.warns(UserWarning, match="not estimable"):
        fit = irt(x)
    assert fit.excluded_items == {0: "all-correct"}
    assert 0 not in fit.difficulty.index
    assert fit.extreme.iloc[3] and np.isfinite(fit.ability.iloc[3])
    assert fit.ability.iloc[3] > fit.ability[~fit.extreme].max()
    pred = fit.predict({0: 1, 1: 1, 2: 0})
    assert pred.probability[0] == 1.0 and 0 < pred.probability[5] < 1


def test_predict_of_a_fitted_system_on_all_items_is_its_ability():
    x = _sim(seed=7)
    fit = irt(x)
    v = int(np.flatnonzero(~fit.extreme.to_numpy())[0])
    pred = fit.predict(pd.Series(x[v], index=range(x.shape[1])))
    assert pred.ability == pytest.approx(fit.ability.iloc[v], abs=1e-10)
    assert pred.expected_mean() == pytest.approx(fit.probability(pred.ability).mean())


def test_information_and_fit_flags():
    x = _sim(n=200, seed=8)
    x[:, 4] = (np.random.default_rng(9).random(200) < 0.5).astype(int)  # a noise item
    fit = irt(x)
    info = fit.information([0.0, 1.0])
    assert info.shape == (2, x.shape[1])
    p = fit.probability(0.0)[0]
    assert np.allclose(info.iloc[0].to_numpy(), p * (1 - p))
    assert fit.outfit[4] == fit.outfit.max() and fit.infit_t[4] > 2
    assert set(fit.to_frame().columns) >= {"difficulty", "infit", "outfit", "misfit"}
    d = fit.to_dict()
    assert d["signature"].endswith("kind:irt|model:rasch") and len(d["items"]) == x.shape[1]
    assert "Rasch" in fit.summary()
    with pytest.raises(FrozenInstanceError):
        fit.model = "2pl"  # type: ignore[misc]


@pytest.mark.parametrize("bad, match", [
    ([[0, 1], [1, 0.5]], "0/1"),
    ([[0, 1], [1, np.nan]], "missing"),
    ([[0, 1, 1]], "2 systems"),
])
def test_bad_responses(bad, match):
    with pytest.raises(RangerError, match=match):
        irt(np.array(bad, dtype=float))


def test_settings():
    assert irt(_sim(), settings=IRTSettings()).settings == IRTSettings()
    with pytest.raises(SettingsError):
        irt(_sim(), model="3pl")
    with pytest.raises(SettingsError):
        irt(_sim(), model="2pl", settings=IRTSettings())


@pytest.mark.parametrize("case", range(len(ERM)))
def test_item_and_system_fit_equal_erm(case):
    """eRm::itemfit and eRm::personfit (infit/outfit mean squares and their t) over the
    non-extreme systems: 2.5e-4 absolute (1.9e-4 reached; eRm's person.parameter stops its
    abilities at its own tolerance, which moves the t statistics of 25 items in the 4th digit)."""
    c = ERM[case]
    fit = irt(np.array(c["responses"]))
    for ours, theirs in ((fit.infit, "item_infit"), (fit.outfit, "item_outfit"),
                         (fit.infit_t, "item_infit_t"), (fit.outfit_t, "item_outfit_t")):
        assert np.allclose(ours.to_numpy(), c[theirs], atol=2.5e-4, rtol=0), theirs
    mid = np.array(c["mid"])
    assert np.isnan(np.delete(fit.system_infit.to_numpy(), mid)).all()
    for ours, theirs in ((fit.system_infit, "person_infit"),
                         (fit.system_outfit, "person_outfit"),
                         (fit.system_infit_t, "person_infit_t"),
                         (fit.system_outfit_t, "person_outfit_t")):
        assert np.allclose(ours.to_numpy()[mid], c[theirs], atol=2.5e-4, rtol=0), theirs


_PROPERTY_DATA = {"rasch": _sim(n=60, k=8, seed=11), "2pl": _sim(n=300, k=6, seed=12)}


@settings(max_examples=15, deadline=None)
@given(st.integers(0, 2**32 - 1), st.sampled_from(["rasch", "2pl"]))
def test_estimates_invariant_to_reordering_and_relabelling(seed, model):
    """Shuffling systems and items and renaming both (long input in a shuffled row order)
    changes no estimate, SE or fit statistic: each follows its own label."""
    x = _PROPERTY_DATA[model]
    rng = np.random.default_rng(seed)
    wide = pd.DataFrame(x, index=[f"s{i}" for i in range(x.shape[0])],
                        columns=[f"q{j}" for j in range(x.shape[1])])
    base = irt(wide, model=model)
    rename_s = {f"s{i}": f"sys-{v}" for i, v in enumerate(rng.permutation(x.shape[0]))}
    rename_q = {f"q{j}": f"item-{v}" for j, v in enumerate(rng.permutation(x.shape[1]))}
    long = wide.rename_axis(index="system", columns="item").stack().rename("value").reset_index()
    long = long.iloc[rng.permutation(len(long))]
    long = long.assign(system=long["system"].map(rename_s), item=long["item"].map(rename_q))
    other = irt(long, model=model)
    back_q = {v: k for k, v in rename_q.items()}
    back_s = {v: k for k, v in rename_s.items()}
    tol = 1e-9 if model == "rasch" else 1e-6
    for name in ("difficulty", "difficulty_se", "discrimination", "infit", "outfit"):
        got = getattr(other, name).rename(index=back_q).reindex(wide.columns)
        assert np.allclose(got.to_numpy(), getattr(base, name).to_numpy(), atol=tol), name
    for name in ("ability", "ability_se"):
        got = getattr(other, name).rename(index=back_s).reindex(wide.index)
        assert np.allclose(got.to_numpy(), getattr(base, name).to_numpy(), atol=tol), name
