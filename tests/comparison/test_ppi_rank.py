"""Prediction-powered rank tests: compare(test="wilcoxon" | "sign") on judge scores with human
scores (ranger_eval.comparison.ppi, kernel ranger_eval.stats.ppi_rank), checked against evalstats
0.3.3 and ppi_py through tests/oracles/ppi_rank_evalstats.json."""
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
from ranger_eval.errors import CompareError
from ranger_eval.report.tables import comparison_markdown
from ranger_eval.stats.ppi_rank import (
    PPIRankRows,
    ppi_sign_rows,
    ppi_walsh_rows,
    walsh_components,
    walsh_theta,
)

ORACLE = json.loads((Path(__file__).resolve().parents[1] / "oracles"
                     / "ppi_rank_evalstats.json").read_text())
CASES = ORACLE["cases"]
IDS = [c["name"] for c in CASES]


def arrays(case: dict) -> tuple[np.ndarray, ...]:
    """(H, D_lab, D_unl): human and judge differences A − B of the labelled items, judge
    differences of the others."""
    def f(key: str) -> np.ndarray:
        return np.array([np.nan if v is None else v for v in case[key]], dtype=float)

    ja, jb, ha, hb = f("value_a"), f("value_b"), f("human_a"), f("human_b")
    lab = ~np.isnan(ha)
    return (ha - hb)[lab], (ja - jb)[lab], (ja - jb)[~lab]


def case_frame(case: dict) -> pd.DataFrame:
    n = case["n"]
    return pd.concat([pd.DataFrame({
        "dataset": "d", "system": s, "item": [f"i{i:04d}" for i in range(n)],
        "value": case[f"value_{s.lower()}"],
        "human_value": [np.nan if v is None else v for v in case[f"human_{s.lower()}"]],
    }) for s in ("A", "B")], ignore_index=True)


def compare_quiet(frame: pd.DataFrame, **kw: object) -> rg.Comparison:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        return rg.compare(frame, **kw)


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_walsh_kernel_is_evalstats_wilcoxon_without_power_tuning(case: dict) -> None:
    """λ = 1: evalstats.tests.wilcoxon(power_tune=False) — estimate, interval, p to 1e-10."""
    want = case["expected"]["wilcoxon_lam1"]
    rows = ppi_walsh_rows(*(a[None, :] for a in arrays(case)), power_tune=False)
    _, p, lo, hi = rows.test("two-sided", 0.95)
    assert rows.estimate[0] == pytest.approx(want["estimate"], rel=1e-10, abs=1e-14)
    assert p[0] == pytest.approx(want["pvalue"], rel=1e-10)
    assert lo[0] == pytest.approx(want["ci_low"], rel=1e-10)
    assert hi[0] == pytest.approx(want["ci_high"], rel=1e-10)
    assert rows.df[0] == case["n_labelled"] - 1


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_evalstats_power_tuned_estimate_is_the_same_formula_at_its_lambda(case: dict) -> None:
    """evalstats' power_tune=True differs only in how it picks λ (and its variance): at its λ
    the estimate is T(H) + λ·(T(D_unl) − T(D_lab)) with our T."""
    want = case["expected"]["wilcoxon_tuned"]
    h, d_lab, d_unl = arrays(case)
    t_h, t_l, t_u = (float(walsh_theta(x)[0]) for x in (h, d_lab, d_unl))
    assert t_h + want["lam"] * (t_u - t_l) == pytest.approx(want["estimate"], rel=1e-10,
                                                             abs=1e-14)


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_compare_sign_rows_are_ppi_py_on_signs(case: dict) -> None:
    want = case["expected"]["sign"]
    comp = compare_quiet(case_frame(case), test="sign")
    row = comp.table.iloc[0]
    assert row["diff"] == pytest.approx(want["estimate"], rel=1e-10, abs=1e-14)
    assert row["pvalue"] == pytest.approx(want["pvalue"], rel=1e-10)
    assert row["ci_low"] == pytest.approx(max(want["ci_low"], -1.0), rel=1e-10)
    assert row["ci_high"] == pytest.approx(min(want["ci_high"], 1.0), rel=1e-10)
    assert (row["test"], row["ci_method"]) == ("ppi sign", "prediction-powered z")
    assert comp.signature.endswith("|ppi:ppi++-sign") and "|test:sign|" in comp.signature


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_compare_wilcoxon_rows_are_evalstats(case: dict) -> None:
    """compare(test="wilcoxon") = evalstats.tests.wilcoxon(power_tune=False) to 1e-10."""
    want = case["expected"]["wilcoxon_lam1"]
    comp = compare_quiet(case_frame(case), test="wilcoxon")
    row = comp.table.iloc[0]
    for column, key in (("diff", "estimate"), ("pvalue", "pvalue"), ("ci_low", "ci_low"),
                        ("ci_high", "ci_high")):
        assert row[column] == pytest.approx(want[key], rel=1e-10, abs=1e-14), column
    assert row["df"] == case["n_labelled"] - 1
    assert row["statistic"] == pytest.approx(row["diff"] / row["se"], rel=1e-12)
    assert -0.5 <= row["ci_low"] <= row["diff"] <= row["ci_high"] <= 0.5
    assert (row["test"], row["ci_method"]) == ("ppi wilcoxon", "prediction-powered Walsh t")
    assert comp.tests_used == ("ppi wilcoxon",)
    assert comp.signature.endswith("|ppi:ppi-wilcoxon")
    assert "Prediction-powered rank tests" in comparison_markdown(comp)


def test_power_tuned_walsh_lambda_is_the_variance_minimising_weight() -> None:
    case = CASES[1]
    h, dl, du = (a[None, :] for a in arrays(case))
    tuned = ppi_walsh_rows(h, dl, du)
    fixed = ppi_walsh_rows(h, dl, du, power_tune=False)
    assert 0.0 <= tuned.lam[0] <= 1.0 and fixed.lam[0] == 1.0
    assert tuned.se[0] <= fixed.se[0] * (1 + 1e-12)


def test_walsh_statistic_is_the_signed_rank_sum_without_ties() -> None:
    """No ties or zeros: T(d) = W⁺/(m(m+1)/2) − ½ with W⁺ Wilcoxon's signed-rank sum."""
    rng = np.random.default_rng(3)
    d = rng.normal(size=(4, 25))
    for row, got in zip(d, walsh_theta(d), strict=True):
        ranks = np.argsort(np.argsort(np.abs(row))) + 1
        w_plus = ranks[row > 0].sum()
        assert got == pytest.approx(w_plus / (25 * 26 / 2) - 0.5, rel=1e-12)
    # Hájek components: the mean over j of the kernel, by brute force
    x = np.round(rng.normal(size=12))
    brute = ((x[:, None] + x[None, :] > 0) + 0.5 * (x[:, None] + x[None, :] == 0)).mean(axis=1)
    np.testing.assert_allclose(walsh_components(x)[0], brute, rtol=0, atol=1e-15)


def test_clustered_walsh_sums_influence_terms_per_cluster() -> None:
    rng = np.random.default_rng(5)
    n, big_n = 30, 90
    h, dl, du = rng.normal(size=(1, n)), rng.normal(size=(1, n)), rng.normal(size=(1, big_n))
    dl = h + 0.3 * dl
    cl, cu = rng.integers(0, 12, n), rng.integers(0, 12, big_n)
    r = ppi_walsh_rows(h, dl, du, clusters=cl, clusters_unlabelled=cu)
    lam = r.lam[0]
    hy, hd, hu = (walsh_components(x)[0] for x in (h, dl, du))
    infl = np.r_[2 / n * ((hy - hy.mean()) - lam * (hd - hd.mean())),
                 lam * 2 / big_n * (hu - hu.mean())]
    codes = np.r_[cl, cu]
    totals = np.array([infl[codes == c].sum() for c in np.unique(codes)])
    c = np.unique(codes).size
    assert r.se[0] == pytest.approx(np.sqrt(c / (c - 1) * (totals ** 2).sum()), rel=1e-12)
    assert (r.df[0], r.n_clusters[0]) == (c - 1, c)
    same = ppi_walsh_rows(h, dl, du)
    assert r.estimate[0] == same.estimate[0]


def judged_frame(seed: int, n: int = 120, n_lab: int = 30, clusters: bool = False,
                 systems: int = 3) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    lab = np.zeros(n, dtype=bool)
    lab[rng.choice(n, n_lab, replace=False)] = True
    base = rng.normal(size=n)
    parts = []
    for k in range(systems):
        human = base + 0.2 * k + rng.normal(scale=0.6, size=n)
        judge = human + 0.4 * (k % 2) + rng.normal(scale=0.5, size=n)
        parts.append(pd.DataFrame({
            "dataset": "d", "system": f"S{k}", "item": [f"i{i:03d}" for i in range(n)],
            "value": judge, "human_value": np.where(lab, human, np.nan)}))
        if clusters:
            parts[-1]["cluster"] = [f"c{i // 4}" for i in range(n)]
    return pd.concat(parts, ignore_index=True)


@pytest.mark.parametrize("test", ["wilcoxon", "sign"])
@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 10_000), shuffle=st.integers(0, 10_000))
def test_rows_do_not_depend_on_item_order(test: str, seed: int, shuffle: int) -> None:
    frame = judged_frame(seed, n=60, n_lab=20)
    items = frame["item"].unique()
    rank = dict(zip(items, np.random.default_rng(shuffle).permutation(items.size), strict=True))
    shuffled = (frame.assign(order=frame["item"].map(rank)).sort_values(["system", "order"])
                .drop(columns="order").reset_index(drop=True))  # systems in the same order
    a = compare_quiet(frame, test=test).table
    b = compare_quiet(shuffled, test=test).table
    for column in ("diff", "statistic", "pvalue", "ci_low", "ci_high", "se"):
        np.testing.assert_allclose(a[column], b[column], rtol=1e-10, atol=1e-14)


def test_all_pairs_at_once_equal_pair_by_pair() -> None:
    frame = judged_frame(11, systems=4)
    for test in ("wilcoxon", "sign"):
        every = compare_quiet(frame, test=test).table
        for _, row in every.iterrows():
            one = compare_quiet(frame, test=test,
                                pairs=[(row["system_a"], row["system_b"])]).table.iloc[0]
            assert one["diff"] == pytest.approx(row["diff"], rel=1e-12, abs=1e-15)
            assert one["pvalue"] == pytest.approx(row["pvalue"], rel=1e-12)


def test_pairs_with_their_own_items_are_computed_one_by_one() -> None:
    """A system without a human score on one item: that pair's labelled set differs; the
    masked path equals the kernel on that pair's items."""
    frame = judged_frame(2, systems=3)
    idx = frame.index[(frame["system"] == "S2") & frame["human_value"].notna()][0]
    frame.loc[idx, "human_value"] = np.nan
    comp = compare_quiet(frame, test="wilcoxon")
    row = comp.table.set_index(["system_a", "system_b"]).loc[("S0", "S2")]
    wide_v = frame.pivot(index="item", columns="system", values="value")
    wide_h = frame.pivot(index="item", columns="system", values="human_value")
    lab = wide_h["S0"].notna() & wide_h["S2"].notna()
    h = (wide_h["S0"] - wide_h["S2"])[lab].to_numpy()
    d = (wide_v["S0"] - wide_v["S2"]).to_numpy()
    want = ppi_walsh_rows(h[None], d[lab.to_numpy()][None], d[~lab.to_numpy()][None],
                          power_tune=False)
    assert row["diff"] == pytest.approx(want.estimate[0], rel=1e-12)
    assert row["se"] == pytest.approx(want.se[0], rel=1e-12)


def test_clusters_are_honoured() -> None:
    frame = judged_frame(4, clusters=True)
    wil = compare_quiet(frame, test="wilcoxon").table
    assert (wil["ci_method"] == "prediction-powered Walsh t (CR1)").all()
    assert (wil["n_clusters"] == 30).all() and (wil["df"] == 29).all()
    sign = compare_quiet(frame, test="sign", cluster_se="CR1").table
    assert (sign["ci_method"] == "prediction-powered t (CR1)").all()
    plain = compare_quiet(frame.drop(columns="cluster"), test="wilcoxon").table
    np.testing.assert_allclose(wil["diff"], plain["diff"], rtol=1e-12)


def test_without_human_scores_the_rank_tests_are_unchanged() -> None:
    frame = judged_frame(7)
    empty = frame.assign(human_value=np.nan)
    for test in ("wilcoxon", "sign"):
        got = rg.compare(empty, test=test).table
        want = rg.compare(frame.drop(columns="human_value"), test=test).table
        pd.testing.assert_frame_equal(got, want)
        assert set(got["test"]) == {test}


@pytest.mark.parametrize(("kw", "match"), [
    ({"test": "mannwhitney"}, "prediction-powered rank tests"),
    ({"test": "paired-t"}, "test='paired-t' would test the judge"),
    ({"test": "sign", "hypothesis": "equivalence", "margin": 0.1}, "no equivalence version"),
    ({"test": "wilcoxon", "correction": "westfall-young"}, "westfall-young"),
    ({"test": "welch"}, "prediction-powered rank tests"),
])
def test_unsupported_combinations_are_errors(kw: dict, match: str) -> None:
    with pytest.raises(CompareError, match=match):
        compare_quiet(judged_frame(1), **kw)


def test_kernel_errors_and_interval_range() -> None:
    with pytest.raises(rg.RangerError, match="at least 2"):
        ppi_walsh_rows(np.ones((1, 1)), np.ones((1, 1)), np.ones((1, 5)))
    with pytest.raises(rg.RangerError, match="NaN"):
        ppi_walsh_rows(np.array([[1.0, np.nan]]), np.ones((1, 2)), np.ones((1, 5)))
    with pytest.raises(rg.RangerError, match="cluster"):
        ppi_walsh_rows(np.array([[1.0, -2.0]]), np.ones((1, 2)), np.ones((1, 3)),
                       clusters=np.zeros(2, dtype=int), clusters_unlabelled=np.zeros(3, dtype=int))
    rows = PPIRankRows(np.array([0.45]), np.array([0.2]), np.ones(1), np.ones(1), np.ones(1),
                       np.zeros(1), np.array([np.inf]), (-0.5, 0.5))
    _, _, lo, hi = rows.test("two-sided", 0.95)
    assert -0.5 <= lo[0] and hi[0] == 0.5
    sign = ppi_sign_rows(np.array([[1.0, -1.0, 2.0]]), np.array([[1.0, 0.0, 3.0]]),
                         np.array([[1.0, 2.0, -1.0, 0.5]]))
    assert -1.0 <= sign.estimate[0] <= 1.0


def test_few_labels_warn_where_the_null_simulation_over_rejects() -> None:
    """40 labels: the sign test (and Wilcoxon on 0/1 human scores) warn with the measured rate;
    Wilcoxon on graded scores, which held its level at 30 labels, does not."""
    rng = np.random.default_rng(0)
    rows = []
    for system, shift in (("A", 0.0), ("B", 0.1)):
        human = rng.normal(0, 1, 300) + shift
        judge = human + rng.normal(0, 0.5, 300) + 0.2
        rows += [("d", system, f"q{i}", judge[i], human[i] if i < 40 else np.nan)
                 for i in range(300)]
    frame = pd.DataFrame(rows, columns=["dataset", "system", "item", "value", "human_value"])
    with pytest.warns(UserWarning, match=r"40 human-labelled items .* 6\.2–8\.2 % at 30"):
        rg.compare(rg.Scores(frame), test="sign")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        rg.compare(rg.Scores(frame), test="wilcoxon")
    binary = frame.assign(human_value=(frame.human_value > 0).where(frame.human_value.notna())
                          .astype(float), value=(frame.value > 0).astype(float))
    with pytest.warns(UserWarning, match=r"0/1 human scores"):
        rg.compare(rg.Scores(binary), test="wilcoxon")
