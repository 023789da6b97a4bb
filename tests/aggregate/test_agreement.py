"""Where two procedures of one output folder answer differently — the ranking's
pairwise tests (harmonic-mean p) and the rank test (Nemenyi, the CD diagram), the same tests and
the Bayesian ROPE decisions, a test of no difference and an equivalence / margin verdict — the
reading says what each asks and why both hold, and says nothing when they agree."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

import ranger_eval as rg
from ranger_eval.aggregate.agreement import (
    bayesian_disagreements,
    equivalence_disagreements,
    margin_disagreements,
    rank_disagreements,
)
from ranger_eval.cli import app
from ranger_eval.report import to_markdown


def _rt(sig: dict[tuple[str, str], bool]) -> dict:
    return {"average_ranks": {"A": 1.0, "B": 2.0, "C": 3.0}, "n_datasets": 4,
            "posthoc": "nemenyi", "critical_difference": 1.66,
            "pairwise": [{"a": a, "b": b, "significant": s} for (a, b), s in sig.items()]}


def _rk(sig: dict[tuple[str, str], bool]) -> dict:
    return {"pairwise": [{"a": b, "b": a, "significant": s, "test": "hmp"}  # order-free
                         for (a, b), s in sig.items()]}


def test_agreement_says_nothing() -> None:
    same = {("A", "B"): True, ("A", "C"): True, ("B", "C"): False}
    assert rank_disagreements(_rk(same), _rt(same)) == []
    assert rank_disagreements({"pairwise": []}, _rt(same)) == []


def test_both_directions_are_explained() -> None:
    pair = {("A", "B"): True, ("A", "C"): True, ("B", "C"): False}
    rank = {("A", "B"): False, ("A", "C"): True, ("B", "C"): True}
    first, second = rank_disagreements(_rk(pair), _rt(rank))
    assert first.startswith("The harmonic-mean p asks whether two systems differ on at least "
                            "one dataset × metric; the Nemenyi test asks whether their average "
                            "ranks over the 4 datasets differ by more than the critical "
                            "difference (CD = 1.66).")
    assert "Both hold for A vs B, significant by the first and not by the second" in first
    assert "Both hold for B vs C, separated by the rank test" in second


@pytest.mark.slow  # the whole demo (8 s)
def test_the_demo_explains_hmp_against_its_cd_diagram(tmp_path: Path) -> None:
    out = tmp_path / "demo"
    result = CliRunner().invoke(app, ["demo", "--out", str(out), "--html"])
    assert result.exit_code == 0, result.output
    payload = json.loads((out / "ranking" / "ranking.json").read_text())
    (sentence,) = payload["disagreements"]
    assert "coder-13b vs coder-7b" in sentence and "CD = 3.05" in sentence
    md = (out / "ranking" / "ranking.md").read_text()
    assert f"**Why both hold.** {sentence}" in md
    assert md.rstrip().splitlines()[-1].startswith("`ranger-eval:")  # the signature stays last
    html = (out / "report.html").read_text()
    assert html.count("Both hold for coder-13b vs coder-34b") >= 2  # the reading and the JSON


# --------------------------------------------------------------------- Bayesian vs frequentist
def _bayes(decisions: dict[tuple[str, str], str], mode: str = "absolute") -> dict:
    return {"approach": "bayesian", "n_datasets": 6, "level": 0.95, "rope": 0.01,
            "rope_mode": mode, "average_ranks": {"A": 1.0, "B": 2.0, "C": 3.0},
            "pairwise": [{"a": a, "b": b, "rope": 0.01, "decision": d, "p_rope": 0.97,
                          "p_a_better": 0.98 if d == "better" else 0.01,
                          "p_b_better": 0.98 if d == "worse" else 0.01}
                         for (a, b), d in decisions.items()]}


def test_bayesian_agreement_says_nothing() -> None:
    """Significant and decided a difference, or not significant and practically equivalent or
    undecided: the two approaches agree."""
    ranking = _rk({("A", "B"): True, ("B", "C"): False, ("A", "C"): False})
    bayes = _bayes({("A", "B"): "better", ("B", "C"): "equivalent", ("A", "C"): "inconclusive"})
    assert bayesian_disagreements(ranking, bayes) == []


def test_significant_but_practically_equivalent() -> None:
    ranking = _rk({("A", "B"): True, ("B", "C"): True, ("A", "C"): False})
    bayes = _bayes({("A", "B"): "equivalent", ("B", "C"): "inconclusive", ("A", "C"): "worse"})
    equivalent, undecided, decided = bayesian_disagreements(ranking, bayes)
    assert equivalent.startswith(
        "The harmonic-mean p asks whether two systems differ at all (a difference other than "
        "zero on at least one dataset × metric); the Bayesian signed-rank test asks whether, "
        "over the 6 datasets, their difference is larger than the region of practical "
        "equivalence (ROPE ±0.01 in the metric's units), the smallest difference that matters")
    assert ("Both hold for A vs B, significant by the first and practically equivalent by the "
            "second (P = 0.97)") in equivalent
    assert "Both hold for B vs C, significant by the first and undecided by the second" in undecided
    # "worse": a is behind b; the sentence names who is ahead
    assert "Both hold for A vs C, decided by the second (C ahead of A (P = 0.98))" in decided
    assert "effect-size" not in equivalent
    scaled = bayesian_disagreements(ranking, _bayes({("A", "B"): "equivalent"}, "effsize"))
    assert "ROPE ±0.01: 0.01 × the pair's pooled spread over the datasets" in scaled[0]


@pytest.mark.slow  # a rank run (3 s)
def test_rank_bayesian_writes_why_both_hold(tmp_path: Path) -> None:
    """B is 0.004 above A on every item of 6 datasets (3,000 items each): the harmonic-mean p
    finds it, and the ROPE of ±0.01 calls it practically equivalent."""
    rng = np.random.default_rng(3)
    rows = []
    for d in range(6):
        base = rng.normal(0.5, 0.1, 3000)
        for s, shift in (("A", 0.0), ("B", 0.004), ("C", 0.15)):
            rows.append(pd.DataFrame({"dataset": f"d{d}", "system": s, "item": range(3000),
                                      "value": base + shift + rng.normal(0, 0.01, 3000)}))
    path = tmp_path / "scores.csv"
    pd.concat(rows).to_csv(path, index=False)
    out = tmp_path / "out"
    result = CliRunner().invoke(app, ["rank", str(path), "--approach", "bayesian", "--rope",
                                      "0.01", "--rope-mode", "absolute", "--out", str(out),
                                      "--figures", "none", "--html"])
    assert result.exit_code == 0, result.output
    (sentence,) = json.loads((out / "ranking.json").read_text())["disagreements"]
    assert "Both hold for B vs A, significant by the first and practically equivalent" in sentence
    assert f"**Why both hold.** {sentence}" in (out / "ranking.md").read_text()
    assert "practically equivalent by the second" in (out / "report.html").read_text()
    # an effect-size ROPE (autorank's default, 0.1 × the pooled SD of the dataset means, here
    # ±0.0001) decides B better than A: both approaches agree and nothing is said
    out2 = tmp_path / "out2"
    result = CliRunner().invoke(app, ["rank", str(path), "--approach", "bayesian", "--out",
                                      str(out2), "--figures", "none"])
    assert result.exit_code == 0, result.output
    assert "disagreements" not in json.loads((out2 / "ranking.json").read_text())
    assert "Why both hold" not in (out2 / "ranking.md").read_text()


# --------------------------------------------------------------- superiority vs equivalence
def test_meta_significant_and_equivalent() -> None:
    res = rg.meta_analysis([0.01, 0.02, 0.012, 0.015], [1e-5] * 4, margin=0.05)
    (sentence,) = margin_disagreements(res)
    assert sentence.startswith("The p-value asks whether the summary effect is zero; the margin "
                               "asks whether it is smaller than ±0.05, the difference that "
                               "matters (equivalent across datasets by the 95% CI [0.009988, "
                               "0.01851]).")
    assert "the summary effect 0.01425 is not zero (p = 5.649e-11) and lies within ±0.05" in sentence
    assert f"**Why both hold.** {sentence}" in to_markdown(res)
    # a significant loss inside the margin is equivalent too, and said the same way
    (loss,) = margin_disagreements(rg.meta_analysis([-0.01, -0.02, -0.012, -0.015], [1e-5] * 4,
                                                    margin=0.05))
    assert "-0.01425 is not zero" in loss


def test_meta_neither_significant_nor_equivalent() -> None:
    res = rg.meta_analysis([0.05, -0.04, 0.06, -0.03], [4e-3] * 4, margin=0.05)
    (sentence,) = margin_disagreements(res)
    assert "(inconclusive by the 95% CI [-0.05198, 0.07198])" in sentence
    assert "not significant (p = 0.7518), yet not equivalent either" in sentence
    assert "not significant is not equivalent" in sentence


@pytest.mark.parametrize("yi, vi", [
    ([0.3, 0.2, 0.25], [1e-3] * 3),             # a significant gain: non-inferior
    ([0.001, -0.002, 0.0], [1e-5] * 3),         # not significant, equivalent
    ([0.03, -0.01, 0.06], [4e-4] * 3),          # not significant, non-inferior
])
def test_meta_agreement_says_nothing(yi: list[float], vi: list[float]) -> None:
    res = rg.meta_analysis(yi, vi, margin=0.05)
    assert margin_disagreements(res) == []
    assert "Why both hold" not in to_markdown(res)
    assert margin_disagreements(rg.meta_analysis(yi, vi)) == []  # no margin: nothing to say


@pytest.mark.slow  # a meta run with its report (0.3 s)
def test_meta_pipeline_writes_why_both_hold(tmp_path: Path) -> None:
    """``meta --margin`` on per-item scores: new is 0.05 above old on three datasets (a clear
    difference) and within the margin of 0.2 (MD)."""
    from ranger_eval.pipeline import run_meta

    rng = np.random.default_rng(5)
    rows = []
    for d in ("a", "b", "c"):
        base = rng.normal(10, 1, 80)
        for s, shift in (("old", 0.0), ("new", 0.05)):
            rows.append(pd.DataFrame({"dataset": d, "system": s, "item": range(80),
                                      "value": base + shift + rng.normal(0, 0.02, 80)}))
    path = tmp_path / "scores.csv"
    pd.concat(rows).to_csv(path, index=False)
    run_meta(path, tmp_path / "out", None, "none", control="old", treatment="new",
             measure="MD", margin=0.2, html=True)
    (sentence,) = json.loads((tmp_path / "out" / "summary.json").read_text())["disagreements"]
    assert "is not zero" in sentence and "lies within ±0.2" in sentence
    md = (tmp_path / "out" / "summary.md").read_text()
    assert f"**Why both hold.** {sentence}" in md
    assert md.rstrip().splitlines()[-1].startswith("`ranger-eval:")
    assert "a real difference too small to matter" in (tmp_path / "out" / "report.html").read_text()


def _eq_rows(rows: list[tuple[str, str, float, float, float, bool]]) -> pd.DataFrame:
    return pd.DataFrame([{"dataset": "d", "metric": "acc", "system_a": a, "system_b": b,
                          "diff": diff, "ci_low": lo, "ci_high": hi, "significant": sig}
                         for a, b, diff, lo, hi, sig in rows])


def test_equivalence_rows_both_and_neither() -> None:
    table = _eq_rows([("A", "B", -0.01, -0.011, -0.009, True),    # equivalent and different
                      ("A", "C", 0.0, -0.02, 0.07, False),        # neither
                      ("B", "C", 0.2, 0.19, 0.21, False),         # different, not equivalent
                      ("A", "D", 0.001, -0.01, 0.01, True)])      # equivalent, not different
    both, neither = equivalence_disagreements(table, margin=0.05, level=0.95)
    assert both.startswith("A test of no difference asks whether the difference is zero; the "
                           "equivalence test asks whether it is smaller than ±0.05, the "
                           "difference that matters (each row's 90% interval, which both read).")
    assert "Both hold for A vs B (d, acc; diff -0.01): shown equivalent, and the interval " \
           "excludes 0, so the difference is also significant (one-sided at α = 0.05)" in both
    assert "Both hold for A vs C (d, acc; diff 0): not shown equivalent, and the interval " \
           "contains 0" in neither
    assert "B vs C" not in both + neither and "A vs D" not in both + neither
    # as read back from comparison.csv (text), and for other hypotheses nothing
    text = table.assign(significant=table["significant"].map({True: "True", False: "False"}))
    assert equivalence_disagreements(text, margin=0.05, level=0.95) == [both, neither]
    assert equivalence_disagreements(table, margin=0.05, level=0.95,
                                     hypothesis="non-inferiority") == []


def test_equivalence_agreement_says_nothing() -> None:
    table = _eq_rows([("B", "C", 0.2, 0.19, 0.21, False), ("A", "D", 0.001, -0.01, 0.01, True)])
    assert equivalence_disagreements(table, margin=0.05, level=0.95) == []


@pytest.mark.slow  # two compare runs (0.5 s)
def test_compare_equivalence_writes_why_both_hold(tmp_path: Path) -> None:
    """B is 0.01 above A on 400 items with a small spread: equivalent within ±0.05 and,
    by the same interval, different from A."""
    rng = np.random.default_rng(1)
    base = rng.normal(0.5, 0.1, 400)
    frame = pd.concat(pd.DataFrame({"dataset": "d1", "system": s, "item": range(400),
                                    "value": base + shift + rng.normal(0, 0.02, 400)})
                      for s, shift in (("A", 0.0), ("B", 0.01), ("C", 0.2)))
    path = tmp_path / "eq.csv"
    frame.to_csv(path, index=False)
    out = tmp_path / "out"
    result = CliRunner().invoke(app, ["compare", str(path), "--hypothesis", "equivalence",
                                      "--margin", "0.05", "--out", str(out), "--figures",
                                      "none", "--html"])
    assert result.exit_code == 0, result.output
    (sentence,) = json.loads((out / "comparison.json").read_text())["disagreements"]
    assert "Both hold for A vs B (d1, score;" in sentence and "also significant" in sentence
    assert f"**Why both hold.** {sentence}" in (out / "comparison.md").read_text()
    assert "Both hold for A vs B (d1, score;" in (out / "report.html").read_text()
    # superiority: no margin, nothing to explain
    plain = tmp_path / "plain"
    result = CliRunner().invoke(app, ["compare", str(path), "--out", str(plain), "--figures",
                                      "none"])
    assert result.exit_code == 0, result.output
    assert "disagreements" not in json.loads((plain / "comparison.json").read_text())
    assert "Why both hold" not in (plain / "comparison.md").read_text()


@pytest.mark.slow  # six interpreter start-ups
def test_pair_sentences_do_not_depend_on_string_hashing():
    """A pair is a frozenset; without average ranks (or with tied ranks) its two names were said in
    the set's iteration order, which changes with PYTHONHASHSEED from run to run."""
    import subprocess
    import sys

    code = ("from ranger_eval.aggregate.agreement import rank_disagreements as r\n"
            "x = {'pairwise': [{'a': 'alpha', 'b': 'beta', 'test': 'paired t-test', "
            "'significant': True}]}\n"
            "y = {'posthoc': 'nemenyi', 'n_datasets': 5, 'pairwise': [{'a': 'alpha', "
            "'b': 'beta', 'significant': False}]}\n"
            "print(r(x, y)[0])")
    said = {subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                           env={**__import__("os").environ, "PYTHONHASHSEED": str(seed)},
                           check=True).stdout for seed in range(6)}
    assert len(said) == 1 and "alpha vs beta" in said.pop()
