"""compare(hypothesis="non-inferiority"|"equivalence", margin=...): rows equal to statsmodels'
ttost_paired / ttost_ind / tost_proportions_2indep and to Tango's test in R ratesci (oracles in
tests/oracles/equivalence_oracles*), the margin in the metric's direction, the signature."""
from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import ranger_eval as rg
from ranger_eval.errors import CompareError, SettingsError

ORACLES = Path(__file__).parents[1] / "oracles"
PY = json.loads((ORACLES / "equivalence_oracles.json").read_text())
R = json.loads((ORACLES / "equivalence_oracles_R.json").read_text())


def _frame(x: np.ndarray, y: np.ndarray, *, paired: bool = True, metric: str = "m",
           **extra: object) -> pd.DataFrame:
    items_b = [f"i{i}" for i in range(len(y))] if paired else [f"j{i}" for i in range(len(y))]
    return pd.DataFrame({
        "dataset": "d", "metric": metric, "system": ["A"] * len(x) + ["B"] * len(y),
        "item": [f"i{i}" for i in range(len(x))] + items_b,
        "value": np.concatenate([x, y]), **extra})


def _symmetric(case: dict) -> bool:
    return case["low"] == -case["upp"] if not isinstance(case["upp"], str) else False


def test_equivalence_rows_equal_ttost_paired_and_ttost_ind() -> None:
    for kind, paired in (("paired_t", True), ("welch", False)):
        for case in (c for c in PY[kind] if _symmetric(c) and c["level"] == 0.95):
            x, y = np.array(case["x"]), np.array(case["y"])
            comp = rg.compare(_frame(x, y, paired=paired), hypothesis="equivalence",
                              margin=case["upp"])
            row = comp.table.iloc[0]
            assert row["test"] == ("paired-t" if paired else "welch")
            assert row["pvalue"] == pytest.approx(case["pvalue"], rel=1e-10)
            assert row["ci_low"] == pytest.approx(case["ci_low"], rel=1e-10)
            assert row["ci_high"] == pytest.approx(case["ci_high"], rel=1e-10)
            assert row["significant"] == (row["pvalue_adjusted"] <= 0.05)
            # the statistic of the larger one-sided p-value
            side = "t_low" if case["p_low"] >= case["p_upp"] else "t_upp"
            assert row["statistic"] == pytest.approx(case[side], rel=1e-10)


def test_non_inferiority_rows_equal_one_sided_ttost() -> None:
    case = next(c for c in PY["paired_t"] if c["upp"] == "inf")
    x, y = np.array(case["x"]), np.array(case["y"])
    row = rg.compare(_frame(x, y), hypothesis="non-inferiority", margin=-case["low"]).table.iloc[0]
    assert row["pvalue"] == pytest.approx(case["p_low"], rel=1e-10)
    assert row["ci_low"] == pytest.approx(case["ci_low"], rel=1e-10)
    assert row["ci_high"] == math.inf


def test_binary_rows_use_miettinen_nurminen_and_tango() -> None:
    case = next(c for c in PY["proportions"] if c["upp"] == 0.02)
    x = np.r_[np.ones(case["count1"]), np.zeros(case["nobs1"] - case["count1"])]
    y = np.r_[np.ones(case["count2"]), np.zeros(case["nobs2"] - case["count2"])]
    row = rg.compare(_frame(x, y, paired=False), hypothesis="equivalence",
                     margin=0.02).table.iloc[0]
    assert (row["test"], row["ci_method"]) == ("proportions-z", "Miettinen-Nurminen score")
    assert row["pvalue"] == pytest.approx(case["pvalue"], rel=1e-10)
    assert row["ci_low"] == pytest.approx(case["ci_low"], abs=1e-9)
    tango = next(c for c in R["tango"] if c["b"] == 45)  # 880, 45, 61, 14
    a, b, c, d = (int(tango[k]) for k in "abcd")
    x = np.r_[np.ones(a), np.ones(b), np.zeros(c), np.zeros(d)]
    y = np.r_[np.ones(a), np.zeros(b), np.ones(c), np.zeros(d)]
    comp = rg.compare(_frame(x, y), hypothesis="non-inferiority", margin=abs(tango["theta0"]))
    row = comp.table.iloc[0]
    assert (row["test"], row["ci_method"]) == ("mcnemar", "Tango score")
    want = next(t for t in R["tango"] if t["b"] == 45 and t["theta0"] < 0)
    assert row["pvalue"] == pytest.approx(want["p_low"], rel=1e-10)
    assert row["statistic"] == pytest.approx(want["score"], rel=1e-10)
    assert "ci=" not in str(comp.signature)  # Tango's interval is the test's own


def test_non_inferiority_follows_the_metric_direction_and_the_baseline() -> None:
    rng = np.random.default_rng(3)
    base = rng.normal(100, 10, 50)
    new = base + 0.5 + rng.normal(0, 1, 50)  # 0.5 higher than the baseline
    frame = pd.concat([_frame(new, base).replace({"system": {"A": "new", "B": "old"}})])
    hib = rg.compare(frame, hypothesis="non-inferiority", margin=1.0, pairs="baseline",
                     baseline="old").table.iloc[0]
    assert (hib["system_a"], hib["system_b"]) == ("new", "old")
    assert hib["significant"] and hib["ci_high"] == math.inf  # higher is better: shown
    # lower is better (latency): 0.5 more is a loss, and 1.0 is beyond the margin 0.25
    lower = frame.assign(higher_is_better=False)
    lib = rg.compare(lower, hypothesis="non-inferiority", margin=0.25, pairs="baseline",
                     baseline="old").table.iloc[0]
    assert lib["ci_low"] == -math.inf and not lib["significant"]
    assert lib["pvalue"] > 0.5
    # the two directions are mirror images: lower-is-better with the scores negated
    mirrored = rg.compare(frame.assign(value=-frame["value"], higher_is_better=False),
                          hypothesis="non-inferiority", margin=1.0, pairs="baseline",
                          baseline="old").table.iloc[0]
    assert mirrored["pvalue"] == pytest.approx(hib["pvalue"], rel=1e-12)


def test_signature_records_hypothesis_and_margin_only_when_not_superiority() -> None:
    x = np.linspace(0, 1, 20)
    frame = _frame(x, x[::-1])
    assert "hyp:" not in str(rg.compare(frame).signature)
    sig = rg.compare(frame, hypothesis="equivalence", margin=0.1).signature
    assert sig.fields["hyp"] == "equivalence" and sig.fields["margin"] == "0.1"


@pytest.mark.parametrize("keywords, match", [
    ({"hypothesis": "equivalence", "margin": 0.1, "test": "wilcoxon"}, "no equivalence version"),
    ({"hypothesis": "equivalence", "margin": 0.1, "alternative": "less"}, "two one-sided"),
    ({"hypothesis": "non-inferiority"}, "needs a margin"),
    ({"margin": 0.1}, "only used with"),
    ({"hypothesis": "equivalence", "margin": 0.0}, "positive"),
])
def test_bad_combinations_are_settings_errors(keywords: dict, match: str) -> None:
    x = np.linspace(0, 1, 20)
    with pytest.raises(SettingsError, match=match):
        rg.compare(_frame(x, x), **keywords)


def test_margin_of_one_on_binary_scores_is_refused() -> None:
    x = np.r_[np.ones(10), np.zeros(10)]
    with pytest.raises(CompareError, match="margin 1.5 on 0/1 scores"):
        rg.compare(_frame(x, x[::-1]), hypothesis="equivalence", margin=1.5)


def test_clustered_rows_are_two_one_sided_cluster_robust_t_tests() -> None:
    """With clusters each one-sided test is the cluster-robust t (CR2 paired, CR1 unpaired; the
    kernels of stats.clustered, checked against R clubSandwich / sandwich) of the data shifted
    by the margin; one item per cluster gives the unclustered numbers."""
    from ranger_eval.stats import clustered as cl

    rng = np.random.default_rng(7)
    n, m = 60, 0.3
    cluster = [f"c{i // 6}" for i in range(n)]
    shared = np.repeat(rng.normal(0, 0.5, n // 6), 6)
    x = shared + rng.normal(0, 1, n)
    y = x - 0.1 + np.repeat(rng.normal(0, 0.3, n // 6), 6) + rng.normal(0, 0.2, n)
    comp = rg.compare(_frame(x, y, cluster=cluster * 2), hypothesis="equivalence", margin=m)
    row = comp.table.iloc[0]
    d = x - y
    p_low = cl.clustered_paired_ttest(d + m, clusters=cluster, alternative="greater",
                                      vcov="CR2").pvalue
    p_upp = cl.clustered_paired_ttest(d - m, clusters=cluster, alternative="less",
                                      vcov="CR2").pvalue
    assert row["pvalue"] == pytest.approx(max(p_low, p_upp), rel=1e-10)
    assert row["ci_method"] == "cluster-robust t (CR2)"
    # unpaired (disjoint items): the CR1 regression t on G - 1 df
    unpaired = _frame(x, y, paired=False, cluster=cluster + [c + "y" for c in cluster])
    row = rg.compare(unpaired, hypothesis="non-inferiority", margin=m).table.iloc[0]
    want = cl.clustered_unpaired_ttest(x + m, y, clusters_x=cluster,
                                       clusters_y=[c + "y" for c in cluster],
                                       alternative="greater")
    assert row["pvalue"] == pytest.approx(want.pvalue, rel=1e-10)
    assert row["ci_method"] == "cluster-robust t (CR1)"
    # singleton clusters: exactly the unclustered rows
    single = rg.compare(_frame(x, y, cluster=[f"s{i}" for i in range(n)] * 2),
                        hypothesis="equivalence", margin=m).table.iloc[0]
    plain = rg.compare(_frame(x, y), hypothesis="equivalence", margin=m).table.iloc[0]
    assert single["pvalue"] == plain["pvalue"] and single["ci_low"] == plain["ci_low"]


def test_compare_by_and_settings_object_pass_the_hypothesis_on() -> None:
    x = np.linspace(0, 1, 24)
    frame = _frame(x, x + np.random.default_rng(1).normal(0.01, 0.02, 24),
                   level=["easy", "hard"] * 24)
    by = rg.compare(frame, hypothesis="equivalence", margin=0.1, by="level")
    assert by.hypothesis == "equivalence" and len(by.table) == 2
    assert by.table["significant"].all()
    s = rg.CompareSettings(hypothesis="equivalence", margin=0.1)
    same = rg.compare(frame.drop(columns="level"), settings=s)
    assert same.table["pvalue"].iloc[0] == pytest.approx(
        rg.compare(frame.drop(columns="level"), hypothesis="equivalence",
                   margin=0.1).table["pvalue"].iloc[0], rel=0)
