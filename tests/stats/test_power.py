"""ranger_eval.plan against R (pwr, MESS, exact2x2, PowerTOST, retrodesign) and statsmodels."""
from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ranger_eval as rg
from ranger_eval.stats import StatsInputError
from ranger_eval.stats.power import minimum_detectable_effect, retrodesign

ORACLES = Path(__file__).resolve().parents[1] / "oracles"
R = json.loads((ORACLES / "power_oracles_r.json").read_text())
SM = json.loads((ORACLES / "power_oracles_statsmodels.json").read_text())


def _id(case: dict) -> str:
    args = ",".join(f"{k}={v}" for k, v in case["args"].items())
    return f"{case['source']}:{case['field']}:{args}"


@pytest.mark.parametrize("case", R["cases"] + SM["cases"], ids=_id)
def test_plan_matches_oracle(case: dict) -> None:
    args = dict(case["args"])
    if "alpha" in args:  # the oracles' significance level (R sig.level, statsmodels alpha)
        args["level"] = 1 - args.pop("alpha")
    result = rg.plan(**args)
    got = getattr(result, case["field"])
    # PowerTOST's Owen's Q integrates to rel.tol 1e-8 of a difference of O(1) terms: a power of
    # 2e-9 (two of its cases) is good to ~1e-13 absolute only
    assert got == pytest.approx(case["value"], rel=1e-6, abs=1e-12)


def test_oracle_counts() -> None:
    sources = {c["source"] for c in R["cases"] + SM["cases"]}
    assert {"pwr.t.test", "pwr.2p.test", "MESS::power_mcnemar_test", "exact2x2::powerPaired2x2",
            "PowerTOST::power.TOST", "PowerTOST::power.noninf", "PowerTOST::sampleN.TOST",
            "TTestPower", "TTestIndPower", "NormalIndPower", "normal_power_het"} <= sources
    assert len(R["cases"]) + len(SM["cases"]) > 350


@pytest.mark.parametrize("case", R["retrodesign"], ids=lambda c: f"A={c['effect']},s={c['se']}")
def test_retrodesign_closed_form(case: dict) -> None:
    power, type_s, type_m = retrodesign(case["effect"], case["se"])
    assert power == pytest.approx(case["power"], rel=1e-10)
    assert type_s == pytest.approx(case["type_s"], rel=1e-10)
    assert type_m == pytest.approx(case["type_m"], rel=1e-10)


def test_plan_fields_and_signature() -> None:
    p = rg.plan("paired-t", effect=0.02, sd=0.1, power=0.8, icc=0.2, cluster_size=5)
    assert p.solved_for == "n" and p.n == 5 * math.ceil(math.ceil(p.n_exact) / 5)
    assert p.design_effect == pytest.approx(1.8)
    assert p.n_clusters * 5 == p.n
    assert p.power_at_n >= 0.8
    assert p.standardized_effect == pytest.approx(0.2)
    fields = p.signature.fields
    assert fields["kind"] == "plan" and fields["test"] == "paired-t" and fields["solve"] == "n"
    assert fields["icc"] == "0.2" and fields["cluster_size"] == "5"
    assert "hyp" not in fields
    assert rg.plan("welch", effect=0.0, sd=1.0, margin=0.3, power=0.8).signature.fields["hyp"] \
        == "equivalence"
    assert json.dumps(p.to_dict())
    assert "items" in p.summary()


def test_cluster_size_one_is_unclustered() -> None:
    a = rg.plan("paired-t", effect=0.3, n=50, icc=0.7, cluster_size=1)
    b = rg.plan("paired-t", effect=0.3, n=50)
    assert a.power == b.power


def test_repeated_samples_help_less_than_items() -> None:
    base = {"effect": 0.05, "sd": 0.1, "within_sd": 0.3, "power": 0.8}
    more_samples = rg.plan("paired-t", k_samples=8, **base).n_exact
    one_sample = rg.plan("paired-t", k_samples=1, **base).n_exact
    assert more_samples < one_sample
    # K → ∞ approaches the between-item variance alone
    limit = rg.plan("paired-t", effect=0.05, sd=0.1, power=0.8).n_exact
    assert rg.plan("paired-t", k_samples=10_000, **base).n_exact == pytest.approx(limit, rel=3e-3)


@settings(max_examples=40, deadline=None)
@given(d=st.floats(0.1, 1.5), power=st.floats(0.2, 0.99),
       test=st.sampled_from(["paired-t", "welch"]),
       alt=st.sampled_from(["two-sided", "greater"]))
def test_solve_n_then_power_round_trip(d: float, power: float, test: str, alt: str) -> None:
    n = rg.plan(test, effect=d, power=power, alternative=alt).n_exact
    if n > 2.0 + 1e-6:
        assert rg.plan(test, effect=d, n=n, alternative=alt).power == pytest.approx(power,
                                                                                   rel=1e-8)
        back = rg.plan(test, n=n, power=power, alternative=alt).effect
        assert back == pytest.approx(d, rel=1e-7)


@settings(max_examples=40, deadline=None)
@given(n=st.integers(5, 400), d=st.floats(0.05, 1.0), icc=st.floats(0.0, 0.9))
def test_power_grows_with_n_and_falls_with_icc(n: int, d: float, icc: float) -> None:
    p1 = rg.plan("paired-t", effect=d, n=n * 4, icc=icc, cluster_size=4).power
    p2 = rg.plan("paired-t", effect=d, n=n * 4 + 4, icc=icc, cluster_size=4).power
    p0 = rg.plan("paired-t", effect=d, n=n * 4, icc=0.0, cluster_size=4).power
    assert p2 >= p1 - 1e-12
    assert p0 >= p1 - 1e-12


def test_mde_inverts_t_power() -> None:
    se, df = 0.04, 49
    mde = minimum_detectable_effect(se, df)
    # the paired t with n = 50 items and sd = se·√50 has that effect at power 0.8
    assert rg.plan("paired-t", effect=mde, n=50, sd=se * math.sqrt(50)).power == \
        pytest.approx(0.8, rel=1e-9)
    # normal version: Bloom's (z_{1-α/2} + z_{0.8})·se, up to the far tail (Φ(-z - nc) ≈ 1e-6)
    assert minimum_detectable_effect(se) == pytest.approx((1.959963984540054 + 0.8416212335729143)
                                                          * se, rel=1e-5)
    assert math.isnan(minimum_detectable_effect(0.0, 10))


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"effect": 0.3}, "n= and power= are missing"),
    ({"effect": 0.3, "n": 20, "power": 0.8}, "all three were given"),
    ({"effect": 0.3, "power": 1.0}, "power must be < 1"),
    ({"effect": 0.3, "power": 0.01}, "not above the test's false-positive rate"),
    ({"effect": 0.0, "power": 0.8}, "cannot be detected"),
    ({"effect": -0.2, "power": 0.8, "alternative": "greater"}, "points the other way"),
    ({"effect": 0.0, "power": 0.8, "sd": 1.0, "margin": -0.1}, "margin: must be a positive"),
    ({"effect": 0.0, "power": 0.8, "sd": 1.0, "margin": 0.0}, "margin: must be a positive"),
    ({"effect": 0.3, "power": 0.8, "sd": 1.0, "margin": 0.2}, "outside the equivalence margin"),
    ({"effect": 0.3, "power": 0.8, "margin": 0.5}, "give sd= too"),
    ({"effect": 0.3, "power": 0.8, "k_samples": 5}, "needs within_sd="),
    ({"effect": 0.3, "power": 0.8, "within_sd": 0.2}, "within_sd needs sd="),
    ({"effect": 0.3, "power": 0.8, "level": 1.0}, r"level: must be a number in \[0.5, 1\)"),
    ({"effect": 0.3, "power": 0.8, "icc": 1.5}, "icc must be"),
    ({"effect": 0.3, "n": 10, "cluster_size": 10},
     r"n=10 items cannot fill 2 whole cluster\(s\) of cluster_size=10: .* pass n=20 or more"),
    ({"effect": 0.3, "n": 20, "p_control": 0.5}, "binary tests"),
    ({"n": 4, "power": 0.999999, "sd": 1.0, "margin": 0.01}, "even when the true difference is 0"),
])
def test_impossible_or_wrong_targets(kwargs: dict, message: str) -> None:
    with pytest.raises(StatsInputError, match=message):
        rg.plan("paired-t", **kwargs)


@pytest.mark.parametrize(("test", "kwargs", "message"), [
    ("mcnemar", {"p_control": 0.6, "effect": 0.1, "power": 0.8}, "needs correlation="),
    ("mcnemar", {"p_control": 0.6, "effect": 0.1, "power": 0.8, "correlation": 0.99},
     "is impossible for proportions"),
    ("proportions-z", {"p_control": 0.6, "effect": 0.5, "power": 0.8}, "not a proportion"),
    ("proportions-z", {"effect": 0.1, "power": 0.8}, "needs p_control="),
    ("proportions-z", {"p_control": 0.95, "n": 20, "power": 0.999}, "any possible difference"),
    ("mcnemar-exact", {"p_control": 0.6, "effect": 0.1, "power": 0.8, "correlation": 0.2,
                       "icc": 0.3, "cluster_size": 4}, "no clustered version"),
    ("t-test", {"effect": 0.1, "power": 0.8}, "unknown test"),
    ("proportions-z", {"p_control": 0.5, "effect": 0.1, "power": 0.8, "k_samples": 3},
     "not binary"),
])
def test_binary_errors(test: str, kwargs: dict, message: str) -> None:
    with pytest.raises(StatsInputError, match=message):
        rg.plan(test, **kwargs)


def test_equivalence_effect_is_largest_true_difference() -> None:
    p = rg.plan("paired-t", sd=0.2, margin=0.05, n=300, power=0.8)
    assert 0 < p.effect < 0.05
    assert rg.plan("paired-t", sd=0.2, margin=0.05, n=300, effect=p.effect).power == \
        pytest.approx(0.8, rel=1e-8)


def test_non_inferiority_effect_can_be_a_small_loss() -> None:
    p = rg.plan("welch", sd=0.2, margin=0.05, n=2000, power=0.8, alternative="greater")
    assert -0.05 < p.effect < 0


def test_far_tail_where_scipy_nct_returns_nan() -> None:
    # statsmodels' TTestPower gives NaN here (scipy's nct.cdf far tail at non-integer df, the
    # two cases power_oracles.py skips); the power is 1 - 1.9e-47
    assert rg.plan("paired-t", effect=0.9, n=333.3).power == 1.0
    assert rg.plan("welch", effect=0.9, n=333.3).power == pytest.approx(1.0, abs=1e-15)


@pytest.mark.slow
def test_clustered_power_is_the_t_test_on_cluster_means_monte_carlo() -> None:
    # equal clusters: items = θ + cluster effect (variance ICC) + noise (1 - ICC); the t test on
    # the C cluster means rejects with the planned power (20,000 replicates, SE ≈ 0.0035)
    import numpy as np
    from scipy import stats as sps

    rng = np.random.default_rng(5)
    clusters, size, icc, theta, reps = 30, 8, 0.4, 0.25, 20_000
    between = rng.normal(0, math.sqrt(icc), (reps, clusters, 1))
    noise = rng.normal(0, math.sqrt(1 - icc), (reps, clusters, size))
    means = (theta + between + noise).mean(axis=2)
    rejected = (sps.ttest_1samp(means, 0, axis=1).pvalue <= 0.05).mean()
    planned = rg.plan("paired-t", effect=theta, n=clusters * size, icc=icc,
                      cluster_size=size).power
    assert abs(rejected - planned) < 4 * math.sqrt(planned * (1 - planned) / reps)


@pytest.mark.parametrize(("test", "kwargs"), [
    ("paired-t", {"effect": 0.02, "sd": 0.1, "icc": 0.3}),
    ("welch", {"effect": 0.3, "sd": 1.0, "icc": 0.1}),
    ("proportions-z", {"effect": 0.1, "p_control": 0.5, "icc": 0.05}),
    ("mcnemar", {"effect": 0.05, "p_control": 0.7, "correlation": 0.3, "icc": 0.1}),
    ("mcnemar-exact", {"effect": 0.1, "p_control": 0.7, "correlation": 0.3}),
])
@pytest.mark.parametrize("size", [5, 7])
def test_a_clustered_plan_answers_in_whole_clusters(test: str, kwargs: dict, size: int) -> None:
    """n = n_clusters × cluster_size (not "1998 items in 400 clusters of 5"), the
    solved n rounded up to whole clusters and its power computed at that n."""
    p = rg.plan(test, power=0.8, cluster_size=size, **kwargs)
    assert p.n == p.n_clusters * size and p.n >= p.n_exact
    assert p.n - size < max(p.n_exact, size) or test == "mcnemar-exact"
    assert p.power_at_n >= 0.8
    assert p.power_at_n == pytest.approx(rg.plan(test, n=p.n, cluster_size=size,
                                                 **kwargs).power, rel=1e-12)
    assert f"{p.n} items" in p.summary() and f"in {p.n_clusters} clusters of {size}" in p.summary()


def test_unclustered_n_is_not_rounded_beyond_the_next_item() -> None:
    p = rg.plan("paired-t", effect=0.3, power=0.8)
    assert p.n == math.ceil(p.n_exact) and p.n_clusters == p.n


def test_a_given_n_must_be_whole_clusters() -> None:
    with pytest.raises(StatsInputError, match=r"n=1998 items are not whole clusters of 5: .* "
                                              r"pass n=2000 \(400 clusters\) or n=1995 \(399\)"):
        rg.plan("paired-t", effect=0.02, sd=0.1, icc=0.3, cluster_size=5, n=1998)
    with pytest.raises(StatsInputError, match=r"n=3 items cannot fill 1 whole cluster\(s\) of "
                                              r"cluster_size=5: .* pass n=5 or more"):
        rg.plan("proportions-z", effect=0.1, p_control=0.5, icc=0.3, cluster_size=5, n=3)
    assert rg.plan("paired-t", effect=0.02, sd=0.1, icc=0.3, cluster_size=5, n=2000).n == 2000


def test_plan_takes_its_test_positionally_beside_a_settings_object():
    """plan("paired-t", settings=PlanSettings(level=0.9)) is one analysis: the positional test
    fills the settings' empty test; a different test in both places is a clash."""
    from ranger_eval.errors import SettingsError
    from ranger_eval.settings import PlanSettings

    s = PlanSettings(level=0.9)
    by_object = rg.plan("paired-t", effect=0.3, power=0.8, settings=s)
    by_keywords = rg.plan("paired-t", effect=0.3, power=0.8, level=0.9)
    assert (by_object.n, by_object.power_at_n) == (by_keywords.n, by_keywords.power_at_n)
    assert by_object.settings == PlanSettings(test="paired-t", level=0.9)
    same = PlanSettings(test="paired-t", level=0.9)
    assert rg.plan("paired-t", effect=0.3, power=0.8, settings=same).settings is same
    with pytest.raises(SettingsError, match="plan: test='welch' given together with settings="):
        rg.plan("welch", effect=0.3, power=0.8, settings=same)
