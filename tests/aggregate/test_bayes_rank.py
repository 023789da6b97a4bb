"""rank_test(approach="bayesian"): autorank's Bayesian decisions, posterior
probabilities, central tendencies and spreads on its own examples (tests/oracles/
autorank_bayes_oracle.py, the same draws: exact), the settings it refuses, the diagram's groups
and the verdicts in words."""
from __future__ import annotations

import json
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ranger_eval as rg
from ranger_eval.aggregate import BayesianRankTest, RankTest, rank_test
from ranger_eval.errors import AggregateError, SettingsError

ORACLE = json.loads((Path(__file__).parents[1] / "oracles" / "autorank_bayes_oracle.json")
                    .read_text())
CASES = {c["name"]: c for c in ORACLE["cases"]}
#: autorank's word for row vs column → ours (its "smaller": the column has smaller values)
WORDS = {"smaller": "better", "larger": "worse", "equal": "equivalent",
         "inconclusive": "inconclusive", "": ""}


def _run(case: dict) -> BayesianRankTest:
    s = case["settings"]
    res = rank_test(pd.DataFrame(case["values"], columns=case["columns"]), approach="bayesian",
                    rope=s.get("rope", 0.1), rope_mode=s.get("rope_mode", "effsize"),
                    level=1 - s.get("alpha", 0.05), n_draws=ORACLE["nsamples"],
                    seed=ORACLE["seed"], higher_is_better=s.get("order") != "ascending")
    assert isinstance(res, BayesianRankTest)
    return res


@pytest.mark.parametrize("name", ["equivalent", "equivalent-effsize",
                                  pytest.param("rope-zero", marks=pytest.mark.slow)])
def test_rank_test_equals_autorank(name):
    case = CASES[name]
    res = _run(case)
    order = case["order"]
    assert list(res.systems) == order and res.all_normal == case["all_normal"]
    for i, a in enumerate(order):
        for j, b in enumerate(order):
            assert res.decisions.loc[a, b] == WORDS[case["decisions"][i][j]], (a, b)
            if j > i:
                pl, pe, pr = case["posterior"][i][j]
                got = (res.p_better.loc[a, b], res.p_rope.loc[a, b], res.p_better.loc[b, a])
                assert got == pytest.approx((pl, pe, pr), abs=1e-12)
    np.testing.assert_allclose(res.central.to_numpy(), case["central"], rtol=1e-12)
    np.testing.assert_allclose(res.spread.to_numpy(), case["spread"], rtol=1e-12)
    assert res.central_kind == ("mean" if case["all_normal"] else "median")
    # the pairwise table is the matrices, pair by pair
    for r in res.pairwise.itertuples(index=False):
        assert r.decision == res.decisions.loc[r.a, r.b]
        assert r.p_a_better == res.p_better.loc[r.a, r.b]


@pytest.mark.slow
@pytest.mark.parametrize("name", ["readme", "readme-normal", "readme-ascending",
                                  "readme-alpha10", "readme-absolute"])
def test_rank_test_equals_autorank_on_the_readme_examples(name):
    case = CASES[name]
    res = _run(case)
    ascending = case["settings"].get("order") == "ascending"
    for i, a in enumerate(case["order"]):
        for j, b in enumerate(case["order"]):
            word = WORDS[case["decisions"][i][j]]
            if ascending:   # autorank's "smaller" is then the better one
                word = {"better": "worse", "worse": "better"}.get(word, word)
            assert res.decisions.loc[a, b] == word


def test_verdicts_in_words_and_groups():
    res = _run(CASES["equivalent"])       # c ≫ b ≈ a, ROPE ±0.05 absolute
    assert res.verdict("b", "a") == "b is practically equivalent to a (P(rope) = 1.00, ROPE ±0.05)"
    assert res.verdict("c", "a").startswith("c is better than a (P = 1.00, ROPE ±0.05")
    assert res.verdict("a", "c").startswith("c is better than a")      # the same pair, reversed
    assert res.verdicts() == list(res.pairwise["verdict"])
    assert res.cliques == [("b", "a")] and res.clique_kinds == ("equivalent",)
    assert res.describe_rope() == "ROPE ±0.05 (absolute, in the metric's units)"
    close = pd.DataFrame({"x": [0.50, 0.61, 0.42, 0.55, 0.70, 0.38],
                          "y": [0.52, 0.58, 0.45, 0.51, 0.73, 0.35]})
    near = rank_test(close, approach="bayesian", rope=0.01, rope_mode="absolute",
                     n_draws=2000)
    text = near.verdict(*near.systems)
    assert text.startswith(f"{near.systems[0]} vs {near.systems[1]}: inconclusive at 0.95 (P(")
    assert "P(rope) " in text and text.endswith("ROPE ±0.01)")
    assert near.cliques == [tuple(near.average_ranks.index)]
    assert near.clique_kinds == ("undecided",)
    with pytest.raises(AggregateError, match="unknown system 'zz'"):
        near.verdict("x", "zz")


def test_signature_frame_and_json_record_the_settings():
    res = _run(CASES["equivalent-effsize"])
    f = res.signature.fields
    assert (f["kind"], f["test"], f["approach"], f["rope"], f["rope_mode"], f["prior"],
            f["n_draws"], f["seed"], f["level"]) == (
        "rank", "bayesian-signed-rank", "bayesian", "1", "sd", "0.5", "5000", "0", "0.95")
    d = res.to_dict()
    json.dumps(d, allow_nan=False)
    assert d["approach"] == "bayesian" and d["rope_scale"] == "sd" and len(d["pairwise"]) == 3
    frame = res.to_frame()
    assert list(frame.columns) == ["system", "rank", "mean", "sd", "average_rank", "p_rope",
                                   "p_first_better", "decision"]
    assert list(frame["system"]) == list(res.systems) and frame["decision"].iloc[0] == ""
    assert res.average_ranks.iloc[0] == pytest.approx(1.0)   # c wins every dataset


def test_frequentist_stays_the_default():
    wide = pd.DataFrame(CASES["equivalent"]["values"], columns=CASES["equivalent"]["columns"])
    assert isinstance(rank_test(wide), RankTest)
    assert isinstance(rank_test(wide, approach="frequentist"), RankTest)
    assert rg.rank_test is rank_test and rg.BayesianRankTest is BayesianRankTest


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"approach": "bayes"}, "approach: unknown approach 'bayes'"),
    ({"rope": 0.05}, "rope: 0.05 is only used by the Bayesian rank test; pass "
                     "approach='bayesian'"),
    ({"approach": "bayesian", "posthoc": "holm", "control": "a"},
     "posthoc: 'holm' belongs to the frequentist rank test"),
    ({"approach": "bayesian", "tie_correction": False}, "tie_correction: False belongs"),
    ({"approach": "bayesian", "rope": -0.01}, "rope: must be a finite number ≥ 0"),
    ({"approach": "bayesian", "prior": 0}, "prior: must be a finite number > 0"),
    ({"approach": "bayesian", "n_draws": 0}, "n_draws: must be a whole number from 1"),
    ({"approach": "bayesian", "level": 0.5}, "level: approach='bayesian' decides when"),
    ({"approach": "bayesian", "seed": None}, "seed: approach='bayesian' draws"),
    ({"approach": "bayesian", "rope_mode": "relative"}, "rope_mode: unknown rope mode"),
])
def test_settings_refused(kwargs, message):
    wide = pd.DataFrame(CASES["equivalent"]["values"], columns=CASES["equivalent"]["columns"])
    with pytest.raises(SettingsError) as info:
        rank_test(wide, **kwargs)
    assert message in str(info.value)


def test_data_refused():
    rng = np.random.default_rng(0)
    four = pd.DataFrame(rng.normal(size=(4, 3)), columns=list("abc"),
                        index=[f"d{i}" for i in range(4)])
    with pytest.raises(AggregateError, match=r"at least 5 datasets .*got 4: 'd0', 'd1'"):
        rank_test(four, approach="bayesian")
    big = pd.DataFrame(rng.normal(size=(2000, 2)), columns=["a", "b"])
    with pytest.raises(AggregateError, match=r"n_draws=50,000 posterior draws .*pass "
                                             r"n_draws=33,537 or fewer"):
        rank_test(big, approach="bayesian")


def test_identical_systems_without_a_rope_are_inconclusive():
    rng = np.random.default_rng(3)
    x = rng.normal(0.5, 0.1, 8)
    wide = pd.DataFrame({"a": x, "b": x, "c": x + 0.3})
    with pytest.warns(UserWarning, match="'a' and 'b' have identical scores on all 8 datasets"):
        res = rank_test(wide, approach="bayesian", rope=0, n_draws=2000)
    assert res.decisions.loc["a", "b"] == "inconclusive"
    assert (res.p_better.loc["a", "b"], res.p_better.loc["b", "a"]) == (0.5, 0.5)
    assert res.decisions.loc["c", "a"] == "better"
    # with a ROPE they are practically equivalent
    eq = rank_test(wide, approach="bayesian", rope=0.01, rope_mode="absolute", n_draws=2000)
    assert eq.decisions.loc["a", "b"] == "equivalent"


def test_lower_is_better_mirrors_the_decisions():
    case = CASES["equivalent"]
    wide = pd.DataFrame(case["values"], columns=case["columns"])
    up = rank_test(wide, approach="bayesian", rope=0.05, rope_mode="absolute", n_draws=1000)
    down = rank_test(-wide, approach="bayesian", rope=0.05, rope_mode="absolute",
                     n_draws=1000, higher_is_better=False)
    assert up.systems == down.systems
    pd.testing.assert_frame_equal(up.decisions, down.decisions)
    pd.testing.assert_frame_equal(up.p_better, down.p_better)


# --------------------------------------------------------------------------- diagram and report
def _accuracy() -> BayesianRankTest:
    """Five classifiers on 30 datasets (the guide's data): two pairs practically equivalent at a
    ROPE of 0.2 SD, two pairs undecided."""
    table = pd.read_csv(Path(__file__).parents[2] / "docs" / "guide" / "data" / "verdicts" /
                        "accuracy.csv", index_col=0)
    res = rank_test(table, approach="bayesian", rope=0.2, n_draws=2000)
    assert isinstance(res, BayesianRankTest)
    return res


def test_diagram_draws_the_decisions_without_overlap():
    from matplotlib.lines import Line2D

    from tests.helpers.layout import assert_texts_clean, strings

    res = _accuracy()
    assert ("boosting", "forest") in res.cliques and ("svm", "logreg") in res.cliques
    fig = res.plot()
    bars = [ln for ln in fig.findobj(Line2D) if ln.get_gid() == "clique"]
    assert len(bars) == len(res.cliques)
    black = {ln.get_color() for ln, kind in zip(bars, res.clique_kinds, strict=True)
             if kind == "equivalent"}
    grey = {ln.get_color() for ln, kind in zip(bars, res.clique_kinds, strict=True)
            if kind == "undecided"}
    assert black and grey and not black & grey
    text = " ".join(strings(fig))
    assert "Black bars join practically equivalent systems" in text
    assert "ROPE ±0.2 × the pooled SD of each pair" in text and "Friedman" not in text
    assert "approach:bayesian" in text   # the signature in the footer
    assert_texts_clean(fig, 5)


def test_markdown_latex_csv_state_every_verdict():
    from ranger_eval import report

    res = _accuracy()
    md = report.to_markdown(res)
    for sentence in res.verdicts():
        assert f"- {sentence}" in md
    assert "boosting is practically equivalent to forest (P(rope) " in md
    assert "| 1 | boosting |" in md and "vs boosting" in md
    assert str(res.signature) in md
    tex = report.to_latex(res)
    assert "boosting is practically equivalent to forest" in tex and "approach:bayesian" in tex
    csv = report.to_csv(res)
    assert csv.splitlines()[0] == ("system,rank,mean,sd,average_rank,p_rope,p_first_better,"
                                   "decision")


@pytest.mark.slow
def test_rank_command_writes_the_bayesian_decisions(tmp_path):
    """``ranger-eval rank --approach bayesian --rope 0.01 --rope-mode absolute``: ranking.md
    states every verdict, ranking.json holds the result, the signature records the settings,
    and the HTML report reads it in words."""
    from typer.testing import CliRunner

    from ranger_eval.cli import app

    table = Path(__file__).parents[2] / "docs" / "guide" / "data" / "verdicts" / "accuracy.csv"
    out = tmp_path / "out"
    result = CliRunner().invoke(app, [
        "rank", str(table), "--approach", "bayesian", "--rope", "0.01", "--rope-mode",
        "absolute", "--n-draws", "2000", "--seed", "3", "--figures", "none",
        "--html", "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert "boosting is practically equivalent to forest (P(rope) " in result.output
    payload = json.loads((out / "ranking.json").read_text())
    rt = payload["rank_test"]
    assert rt["approach"] == "bayesian" and rt["rope"] == 0.01 and rt["seed"] == 3
    assert rt["n_draws"] == 2000 and len(rt["pairwise"]) == 10
    sig = rg.parse_signature(rt["signature"])
    assert (sig["approach"], sig["rope"], sig["rope_mode"], sig["prior"], sig["n_draws"],
            sig["seed"]) == ("bayesian", "0.01", "absolute", "0.5", "2000", "3")
    md = (out / "ranking.md").read_text()
    assert all(p["verdict"] in md for p in rt["pairwise"])
    html = (out / "report.html").read_text()
    assert "svm is practically equivalent to logreg (P(rope) " in html
    assert "Bayesian rank test: every pair" in html and "Friedman" not in html


def test_probabilities_are_never_rounded_to_a_false_zero_or_one():
    from ranger_eval.formatting import format_probability

    assert [format_probability(p) for p in (0.0, 0.004, 0.93, 0.995, 1.0)] == [
        "= 0.00", "< 0.01", "= 0.93", "> 0.99", "= 1.00"]
    assert format_probability(0.0004, 3) == "< 0.001" and format_probability(float("nan")) == "= n/a"


@pytest.mark.hypothesis
@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(5, 12), k=st.integers(2, 5),
       rope=st.sampled_from([0.0, 0.05, 0.3]), mode=st.sampled_from(["effsize", "absolute"]),
       ties=st.booleans())
def test_decision_properties(seed, n, k, rope, mode, ties):
    """Each pair's three probabilities sum to 1 and its two decisions mirror each other; a
    decision reaches the level; no bar joins two decided systems; an equivalent bar holds only
    practically equivalent pairs; the direction (negated scores, lower is better) changes
    nothing. (Reordering the datasets pairs the same Dirichlet draws with other differences:
    the same posterior, other Monte-Carlo estimates.)"""
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n, k)) * 0.1 + np.linspace(0, 0.1, k)
    if ties:
        x = np.round(x, 1)
    t = pd.DataFrame(x, columns=[f"s{j}" for j in range(k)])
    kw = {"approach": "bayesian", "rope": rope, "rope_mode": mode, "n_draws": 500}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)   # identical systems without a ROPE
        res = rank_test(t, **kw)
        flipped = rank_test(-t, higher_is_better=False, **kw)
    mirror = {"better": "worse", "worse": "better", "equivalent": "equivalent",
              "inconclusive": "inconclusive"}
    for r in res.pairwise.itertuples(index=False):
        assert r.p_a_better + r.p_rope + r.p_b_better == pytest.approx(1.0, abs=1e-12)
        assert res.decisions.loc[r.b, r.a] == mirror[r.decision]
        p = {"better": r.p_a_better, "worse": r.p_b_better, "equivalent": r.p_rope}
        if r.decision in p:
            assert p[r.decision] >= res.level
    decided = res.decisions.isin(["better", "worse"])
    for clique, kind in zip(res.cliques, res.clique_kinds, strict=True):
        members = list(clique)
        assert not decided.loc[members, members].to_numpy().any()
        if kind == "equivalent":
            sub = res.decisions.loc[members, members].to_numpy()
            assert all(sub[i, j] == "equivalent" for i in range(len(members))
                       for j in range(len(members)) if i != j)
    assert flipped.systems == res.systems
    pd.testing.assert_frame_equal(flipped.decisions, res.decisions)
