"""ranger_eval.aso / multi_aso against deepsig (tests/oracles/aso_oracle.py, 52 pairs of 5–30
scores at 200 rounds, and aso_oracle_large.py, 52 pairs of 50–200 scores at deepsig's default
1000 rounds plus deepsig against itself with two seeds; deepsig only in the generators): equal
for deepsig's own bootstrap draws, within Monte-Carlo error with ours; invariants and bad
input."""
from __future__ import annotations

import json
import math
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ranger_eval as rg
from ranger_eval import settings as S
from ranger_eval.errors import RenamedKeywordError, SettingsError, VerdictError
from ranger_eval.verdicts.aso import MIN_SCORES, _aso_core, aso_groups, violation_ratio
from ranger_eval.verdicts.aso import deepsig_draws as deepsig_indices

ORACLE = json.loads((Path(__file__).resolve().parents[1] / "oracles" / "aso_oracle.json")
                    .read_text())
FIX = ORACLE["fixtures"]
B = ORACLE["n_bootstrap"]


def test_oracle_has_enough_fixtures() -> None:
    assert len(FIX) >= 50 and B >= 200


@pytest.mark.parametrize("i", range(len(FIX)))
def test_equal_to_deepsig_for_its_own_bootstrap_draws(i: int) -> None:
    f = FIX[i]
    a, b = np.array(f["a"]), np.array(f["b"])
    ia, ib = deepsig_indices(len(a), len(b), B, f["seed"])
    ratio, _, eps, _ = _aso_core(a, b, f["confidence_level"], ia, ib)
    assert ratio == pytest.approx(f["deepsig_violation_ratio"], rel=1e-12, abs=1e-15)
    assert violation_ratio(a, b) == pytest.approx(f["deepsig_violation_ratio"], rel=1e-12,
                                                  abs=1e-15)
    assert eps == pytest.approx(f["deepsig_epsilon_min"], rel=1e-10, abs=1e-12)


def _gap_sd(res: rg.ASOResult, a: object, b: object, rounds_other: int,
            rounds_ours: int = 1000) -> float:
    """Monte-Carlo sd of ε_min(ours) − ε_min(other) for two independent bootstraps of
    ``rounds_ours`` and ``rounds_other`` rounds: ε_min − ε = z σ̂ / c, and the relative sd of a
    bootstrap sd is ≈ √((κ − 1)/(4B)) with κ the kurtosis of the bootstrap ratios (here from our
    own resamples), so sd(gap) ≈ (z σ̂ / c) √((κ − 1)/4 · (1/B_ours + 1/B_other)). Clipping to
    [0, 1] only shrinks a gap."""
    from scipy.stats import norm

    from ranger_eval.verdicts.aso import _boot_ratios, _draw
    xa, xb = np.sort(np.asarray(a, float)), np.sort(np.asarray(b, float))
    ia, ib = _draw(len(xa), len(xb), rounds_ours, res.seed)
    boot = _boot_ratios(xa, xb, ia, ib)[0]
    dev = boot - boot.mean()
    kurt = float(np.mean(dev ** 4) / np.mean(dev ** 2) ** 2) if np.any(dev) else 3.0
    c = math.sqrt(res.n_a * res.n_b / (res.n_a + res.n_b))
    margin = res.sigma_hat * norm.ppf(res.level) / c
    return margin * math.sqrt((kurt - 1) / 4 * (1 / rounds_ours + 1 / rounds_other))


def _mc_tolerance(res: rg.ASOResult, a: object, b: object, rounds_ours: int = 1000) -> float:
    """Five Monte-Carlo sds of the gap to deepsig's B rounds (:func:`_gap_sd`), at least 0.01."""
    return max(0.01, 5 * _gap_sd(res, a, b, B, rounds_ours))


def test_within_monte_carlo_error_of_deepsig_with_our_draws() -> None:
    gaps, over = [], []
    for i, f in enumerate(FIX):
        res = rg.aso(f["a"], f["b"], level=f["confidence_level"], seed=0)
        assert res.violation_ratio == pytest.approx(f["deepsig_violation_ratio"], rel=1e-12,
                                                    abs=1e-15)
        gap = abs(res.epsilon_min - f["deepsig_epsilon_min"])
        gaps.append(gap)
        tol = _mc_tolerance(res, f["a"], f["b"])
        if gap > tol:
            over.append((i, gap, tol))
    assert over == []
    # most fixtures agree to 0.01 even with deepsig's 200 rounds (the rest: small n, wide margin)
    assert np.mean(np.array(gaps) <= 0.01) >= 0.5 and np.median(gaps) <= 0.01


LARGE = json.loads((Path(__file__).resolve().parents[1] / "oracles" / "aso_oracle_large.json")
                   .read_text())
LARGE_FIX, SPREAD, B_LARGE = LARGE["fixtures"], LARGE["self_spread"], LARGE["n_bootstrap"]


def test_large_oracle_is_at_deepsigs_default_rounds() -> None:
    assert len(LARGE_FIX) >= 50 and B_LARGE == 1000
    assert min(min(len(f["a"]), len(f["b"])) for f in LARGE_FIX) >= 50
    assert {f["size"] for f in SPREAD} == {"small", "large"}


def _own_draws_case(i: int) -> object:
    # every fourth fixture in the default tier (replaying deepsig's 1000 legacy seedings costs
    # ~0.1 s a fixture), the rest and deepsig's second seeds with the slow tier
    return pytest.param(i, marks=() if i % 4 == 0 else pytest.mark.slow)


@pytest.mark.parametrize("i", [_own_draws_case(i) for i in range(len(LARGE_FIX))])
def test_large_equal_to_deepsig_for_its_own_draws(i: int) -> None:
    f = LARGE_FIX[i]
    a, b = np.array(f["a"]), np.array(f["b"])
    ia, ib = deepsig_indices(len(a), len(b), B_LARGE, f["seed"])
    eps = _aso_core(a, b, f["confidence_level"], ia, ib)[2]
    assert eps == pytest.approx(f["deepsig_epsilon_min"], rel=1e-10, abs=1e-12)


@pytest.mark.slow
@pytest.mark.parametrize("j", range(len(SPREAD)))
def test_self_spread_is_deepsig_with_both_seeds(j: int) -> None:
    f = SPREAD[j]
    a, b = np.array(f["a"]), np.array(f["b"])
    for seed, key in [(f["seed"], "deepsig_epsilon_min"),
                      (f["second_seed"], "deepsig_epsilon_min_second_seed")]:
        ia, ib = deepsig_indices(len(a), len(b), B_LARGE, seed)
        assert _aso_core(a, b, f["confidence_level"], ia, ib)[2] == pytest.approx(
            f[key], rel=1e-10, abs=1e-12)


def test_deepsig_disagrees_with_itself_by_monte_carlo_error() -> None:
    """deepsig against deepsig (two seeds, disjoint draws, 1000 rounds each) differs by more
    than 0.01 on some fixtures, small and large alike: the Monte-Carlo error of σ̂ that bounds
    any agreement between two bootstraps. Every gap is within four of the sds :func:`_gap_sd`
    predicts."""
    gaps = []
    for f in SPREAD:
        gap = abs(f["deepsig_epsilon_min"] - f["deepsig_epsilon_min_second_seed"])
        res = rg.aso(f["a"], f["b"], level=f["confidence_level"])
        assert gap <= max(1e-12, 4 * _gap_sd(res, f["a"], f["b"], B_LARGE)), f
        gaps.append(gap)
    assert max(gaps) > 0.01  # the reason the contract is stated with Monte-Carlo error


def _default_gap(f: dict[str, object]) -> tuple[float, float]:
    """(ε_min of rg.aso at its defaults − deepsig's at 1000 rounds, Monte-Carlo sd of that gap)."""
    res = rg.aso(f["a"], f["b"], level=f["confidence_level"])
    assert res.n_resamples == 1000 and res.seed == 0
    return res.epsilon_min - float(f["deepsig_epsilon_min"]), _gap_sd(res, f["a"], f["b"],
                                                                     B_LARGE)


@pytest.mark.parametrize("i", range(len(LARGE_FIX)))
def test_defaults_agree_with_deepsig_at_its_default_rounds(i: int) -> None:
    """rg.aso at its defaults (1000 rounds, seed 0) against deepsig.aso (1000 rounds, its own
    seed) on a pair of 50–200 scores: within 0.01, or within four Monte-Carlo sds of the gap of
    two independent bootstraps where that is wider (deepsig's own two seeds differ as much:
    test above)."""
    gap, sd = _default_gap(LARGE_FIX[i])
    assert abs(gap) <= max(0.01, 4 * sd), (gap, sd)


@pytest.mark.slow
def test_defaults_have_no_systematic_difference_from_deepsig() -> None:
    """Over all the large fixtures: most gaps within 0.01; the mean signed gap within three
    standard errors of 0; the standardised gaps' mean square at most 2 (a wrong σ̂ or ratio
    would inflate it; its expectation is ≤ 1 as clipping only shrinks gaps)."""
    g, s = np.array([_default_gap(f) for f in LARGE_FIX]).T
    assert np.mean(np.abs(g) <= 0.01) >= 0.85
    assert abs(g.mean()) <= 3 * math.sqrt(np.sum(s ** 2)) / len(g)
    live = s > 0
    assert np.mean((g[live] / s[live]) ** 2) <= 2.0


def test_deepsig_itself_when_installed() -> None:
    deepsig = pytest.importorskip("deepsig", reason="deepsig is the oracle here (the 'oracle' extra)")
    f = FIX[0]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        eps = deepsig.aso(np.array(f["a"]), np.array(f["b"]), confidence_level=f["confidence_level"],
                          num_bootstrap_iterations=50, seed=5, num_jobs=1, show_progress=False)
    ia, ib = deepsig_indices(len(f["a"]), len(f["b"]), 50, 5)
    assert _aso_core(np.array(f["a"]), np.array(f["b"]), f["confidence_level"], ia, ib)[2] \
        == pytest.approx(eps, rel=1e-10, abs=1e-12)


@pytest.mark.parametrize("j", range(len(ORACLE["multi"])))
def test_multi_aso_within_monte_carlo_error_of_deepsig(j: int) -> None:
    case = ORACLE["multi"][j]
    mat = rg.multi_aso(case["scores"], level=case["confidence_level"], correction="deepsig",
                       seed=0)
    names = list(case["scores"])
    assert list(mat.index) == names == list(mat.columns)
    expect = np.array(case["deepsig_matrix"])
    k = len(names)
    level = 0.95 + 0.05 / (k * (k - 1) / 2)
    assert mat.attrs["level"] == pytest.approx(level)
    for r in range(k):
        for c in range(r + 1, k):
            res = rg.aso(case["scores"][names[r]], case["scores"][names[c]],
                         level=level, seed=0)
            assert mat.iloc[r, c] == pytest.approx(res.epsilon_min, abs=1e-12)
            tol = _mc_tolerance(res, case["scores"][names[r]], case["scores"][names[c]])
            assert abs(mat.iloc[r, c] - expect[r, c]) <= tol
            assert abs(mat.iloc[c, r] - expect[c, r]) <= tol
    assert np.all(np.diag(mat.to_numpy()) == np.diag(expect))


@pytest.mark.parametrize(("correction", "level"), [("deepsig", 0.95 + 0.05 / 3),
                                                  ("bonferroni", 1 - 0.05 / 3)])
def test_multi_aso_cells_are_aso_at_the_corrected_level(correction: str, level: float) -> None:
    rng = np.random.default_rng(3)
    scores = {s: rng.normal(mu, 1, 12) for s, mu in [("x", 0.0), ("y", 0.4), ("z", 0.8)]}
    mat = rg.multi_aso(scores, n_resamples=300, seed=4, correction=correction)
    assert mat.attrs["level"] == pytest.approx(level)
    names = list(scores)
    for i, r in enumerate(names):
        for c in names[i + 1:]:
            upper = rg.aso(scores[r], scores[c], level=level, n_resamples=300, seed=4)
            assert mat.loc[r, c] == pytest.approx(upper.epsilon_min, abs=1e-12)
            # the reverse direction: deepsig's symmetry, 1 − ε with the same σ̂
            reverse = np.clip(1 - upper.violation_ratio + _margin(upper, level), 0, 1)
            assert mat.loc[c, r] == pytest.approx(reverse, abs=1e-12)
    assert np.all(np.diag(mat.to_numpy()) == 1.0)
    plain = rg.multi_aso(scores, n_resamples=300, seed=4, correction="none")
    assert plain.loc["x", "y"] == pytest.approx(
        rg.aso(scores["x"], scores["y"], n_resamples=300, seed=4).epsilon_min, abs=1e-12)
    assert f"corr:{correction}" in mat.attrs["signature"]
    assert "corr:none" in plain.attrs["signature"]
    assert mat.attrs["settings"] == S.ASOSettings(n_resamples=300, seed=4, correction=correction)


def _margin(res: rg.ASOResult, level: float) -> float:
    """ε_min − ε before clipping: −σ̂ Φ⁻¹(1 − level) / √(nm/(n+m))."""
    from scipy.stats import norm
    c = math.sqrt(res.n_a * res.n_b / (res.n_a + res.n_b))
    return float(-res.sigma_hat * norm.ppf(1 - level) / c)


def test_multi_aso_on_scores_with_a_seed_column() -> None:
    rng = np.random.default_rng(9)
    rows = [{"dataset": "d", "system": s, "seed": seed, "item": f"q{i}",
             "value": float(rng.normal(mu, 1))}
            for s, mu in [("base", 0.0), ("new", 0.5)] for seed in range(6) for i in range(4)]
    df = pd.DataFrame(rows)
    mat = rg.multi_aso(rg.Scores(df), n_resamples=200, seed=1)
    runs = df.groupby(["system", "seed"])["value"].mean()
    direct = rg.multi_aso({"base": runs["base"].to_numpy(), "new": runs["new"].to_numpy()},
                          n_resamples=200, seed=1)
    pd.testing.assert_frame_equal(mat, direct)
    flipped = rg.multi_aso(rg.Scores(df), n_resamples=200, seed=1, higher_is_better=False)
    neg = rg.multi_aso({"base": -runs["base"].to_numpy(), "new": -runs["new"].to_numpy()},
                       n_resamples=200, seed=1)
    pd.testing.assert_frame_equal(flipped, neg)
    with pytest.raises(VerdictError, match="seed column"):
        rg.multi_aso(rg.Scores(df.drop(columns="seed").drop_duplicates(
            ["system", "item"])))


def test_verdict_in_words_and_signature() -> None:
    res = rg.aso([0.9, 0.91, 0.92, 0.93, 0.94, 0.95], [0.5, 0.52, 0.51, 0.53, 0.55],
                 names=("new", "base"))
    assert res.epsilon_min < 0.2
    assert res.verdict() == f"new almost stochastically dominates base (ε_min = " \
                            f"{res.epsilon_min:.2f} < 0.2)"
    back = rg.aso([0.5, 0.52, 0.51, 0.53, 0.55], [0.9, 0.91, 0.92, 0.93, 0.94, 0.95])
    assert back.epsilon_min > 0.99 and not back.dominates()
    assert back.verdict(threshold=0.5).startswith("A does not almost stochastically dominate B")
    fields = res.signature.fields
    assert fields["kind"] == "aso" and fields["n_resamples"] == "1000" and fields["seed"] == "0"
    assert res.to_dict()["signature"] == str(res.signature)
    with pytest.raises(VerdictError, match="threshold"):
        res.verdict(threshold=0)


@pytest.mark.parametrize(("a", "match"), [
    ([0.7], "1 score; at least 5"),
    ([0.1, 0.2, 0.3, 0.4], r"4 scores; at least 5 .*35 here"),
    ([], "empty"),
    ([0.1, 0.2, float("nan"), 0.4, 0.5], r"1 of 5 scores are not finite \(first at position 2"),
    ([[0.1, 0.2], [0.3, 0.4]], "1-D"),
])
def test_bad_distributions_are_clear_errors(a: list[object], match: str) -> None:
    with pytest.raises(VerdictError, match=match):
        rg.aso(a, [0.5, 0.6, 0.7, 0.8, 0.9])
    assert MIN_SCORES == 5


@pytest.mark.parametrize("kw", [{"level": 1.0}, {"level": 0.3},
                                {"n_resamples": 1}, {"n_resamples": 10.5}, {"seed": -1}])
def test_bad_settings_are_clear_errors(kw: dict[str, object]) -> None:
    with pytest.raises(VerdictError, match=next(iter(kw))):
        rg.aso([1, 2, 3, 4, 5], [1, 2, 3, 4, 6], **kw)  # type: ignore[arg-type]


def test_identical_distributions_warn_and_give_half() -> None:
    with pytest.warns(RuntimeWarning, match="same quantile function"):
        res = rg.aso([1, 2, 3, 4, 5], [5, 4, 3, 2, 1], n_resamples=50)
    assert res.violation_ratio == 0.5


@settings(max_examples=25, deadline=None)
@given(st.lists(st.integers(-1000, 1000), min_size=5, max_size=15),
       st.lists(st.integers(-1000, 1000), min_size=5, max_size=15),
       st.integers(-10, 10), st.integers(1, 10))
def test_invariants(a: list[int], b: list[int], shift: int, scale: int) -> None:
    """ε_min ∈ [0, 1]; the ratio is invariant to a common increasing affine map and to the order
    of the scores; seeded results are reproducible."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        res = rg.aso(a, b, n_resamples=40, seed=2)
        moved = rg.aso([shift + scale * x for x in a[::-1]], [shift + scale * x for x in b],
                       n_resamples=40, seed=2)
        again = rg.aso(a, b, n_resamples=40, seed=2)
    assert 0.0 <= res.epsilon_min <= 1.0 and 0.0 <= res.violation_ratio <= 1.0
    assert moved.violation_ratio == pytest.approx(res.violation_ratio, abs=1e-6)
    assert again == res


def test_multi_aso_of_two_systems_has_no_correction_and_no_nan() -> None:
    # deepsig 1.2.8's multi_aso raises the level to 0.95 + 0.05/1 = 1 for two systems: bounds of
    # 1, or NaN when the distributions do not overlap (σ̂ = 0); its aso(num_comparisons=1) and
    # rg.multi_aso leave the level as it is
    a, b = [0.90, 0.91, 0.92, 0.93, 0.94], [0.1, 0.2, 0.3, 0.4, 0.5]
    mat = rg.multi_aso({"A": a, "B": b}, n_resamples=100, seed=0)
    assert mat.attrs["level"] == 0.95
    one = rg.aso(a, b, n_resamples=100, seed=0)
    assert mat.loc["A", "B"] == one.epsilon_min == 0.0
    assert mat.loc["B", "A"] == 1.0
    assert not mat.isna().any().any()


def test_aso_records_its_settings_and_takes_a_settings_object() -> None:
    a, b = [0.5, 0.6, 0.7, 0.8, 0.9, 1.0], [0.4, 0.5, 0.55, 0.6, 0.7, 0.75]
    res = rg.aso(a, b, level=0.9, n_resamples=60, seed=3)
    assert res.settings == S.ASOSettings(level=0.9, n_resamples=60, seed=3)
    same = rg.aso(a, b, settings=res.settings)
    assert same == res and same.settings is res.settings
    assert rg.aso(treatment=a, control=b, n_resamples=60) == rg.aso(a, b, n_resamples=60)
    with pytest.raises(SettingsError, match=r"aso: level=0\.8 given together with settings="):
        rg.aso(a, b, level=0.8, settings=res.settings)


@pytest.mark.parametrize(("old", "new"), [({"confidence_level": 0.9}, "level"),
                                          ({"n_bootstrap": 100}, "n_resamples"),
                                          ({"a": [1.0] * 5}, "treatment")])
def test_aso_renamed_keywords_name_their_replacement(old: dict[str, object], new: str) -> None:
    data = ([1.0, 2, 3, 4, 5], [2.0, 3, 4, 5, 6])[: 2 - ("a" in old)]
    with pytest.raises(RenamedKeywordError, match=f"it is called '{new}' now"):
        rg.aso(*data, **old)  # type: ignore[arg-type]
    with pytest.raises(RenamedKeywordError, match="'use_bonferroni': it is called 'correction'"):
        rg.multi_aso({"a": [1.0, 2, 3, 4, 5], "b": [2.0, 3, 4, 5, 6]}, use_bonferroni=True)


def test_json_keys_are_the_glossary_words() -> None:
    """``ASOResult.to_dict`` and ``ASOAnalysis.to_dict`` (aso.json) say ``level``,
    ``n_resamples`` and ``n_resamples_degenerate``, as the other results do."""
    one = rg.aso([0.1, 0.2, 0.3, 0.4, 0.5], [0.3, 0.4, 0.5, 0.6, 0.7], n_resamples=50, seed=1)
    d = one.to_dict()
    assert (d["level"], d["n_resamples"], d["n_resamples_degenerate"]) == \
        (one.level, 50, one.n_degenerate)
    assert not {"confidence_level", "n_bootstrap", "n_bootstrap_degenerate"} & set(d)
    runs = pd.DataFrame({"dataset": "d", "metric": "m", "system": ["a"] * 5 + ["b"] * 5,
                         "seed": list(range(5)) * 2,
                         "value": [0.1, 0.2, 0.3, 0.4, 0.5, 0.3, 0.4, 0.5, 0.6, 0.7]})
    whole = aso_groups(runs, n_resamples=50, seed=1).to_dict()
    assert whole["n_resamples"] == 50 and "n_bootstrap" not in whole
