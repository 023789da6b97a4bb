"""rank_test on tables with missing cells: the Skillings–Mack test against R
Skillings.Mack::Ski.Mack and PMCMRplus::skillingsMackTest, Conover's all-pairs test against
PMCMRplus::frdAllPairsConoverTest (oracle: tests/oracles/skillings_mack_oracle.R), the
tie-corrected covariance and the pairwise contrasts against a brute-force enumeration of the
within-dataset permutations, and the Wilcoxon post-hoc on the datasets both systems share
against scipy + statsmodels."""
from __future__ import annotations

import itertools
import json
import math
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats
from statsmodels.stats.multitest import multipletests

import ranger_eval as rg
from ranger_eval.aggregate.skillings_mack import contrast_z, skillings_mack
from ranger_eval.errors import AggregateError
from ranger_eval.scores import Scores

ORACLE = json.loads((Path(__file__).parents[1] / "oracles" / "skillings_mack_oracle.json")
                    .read_text())
CASES = ORACLE["cases"]
COMPLETE = sorted(n for n, c in CASES.items() if c["n_missing"] == 0)
HOLED = sorted(n for n, c in CASES.items() if c["n_missing"] > 0)


def _params(names: list[str]) -> list[object]:
    """The cases; two-system tables in the slow tier (rank_test then also runs Demšar's Wilcoxon
    test, whose exact p-value with tied differences takes scipy seconds)."""
    return [pytest.param(n, marks=pytest.mark.slow) if "_k2_" in n else n for n in names]


def _table(rows: list[list[float | None]]) -> pd.DataFrame:
    x = np.array([[np.nan if v is None else v for v in r] for r in rows], dtype=float)
    return pd.DataFrame(x, index=[f"d{i}" for i in range(x.shape[0])],
                        columns=[f"s{j}" for j in range(x.shape[1])])


def _rel(a: float, b: float) -> float:
    return abs(a - b) / max(abs(b), 1e-300)


def test_oracle_has_many_cases() -> None:
    assert ORACLE["versions"]["Skillings.Mack"] == "1.10"
    assert len(HOLED) >= 40 and len(COMPLETE) >= 20
    assert any("ties" in n for n in HOLED)


@pytest.mark.parametrize("name", _params(sorted(CASES)))
def test_statistic_and_p_equal_ski_mack(name: str) -> None:
    """tie_correction=False is Ski.Mack's statistic and asymptotic p to 1e-10 (complete tables:
    the same statistic, Demšar's untied Friedman)."""
    case = CASES[name]
    res = rg.rank_test(_table(case["table"]), higher_is_better=False, tie_correction=False,
                       posthoc="holm", control="s0")  # (no studentized-range quantile: faster)
    assert _rel(res.statistic, case["statistic"]) < 1e-10
    assert _rel(res.statistic, case["pmcmrplus_statistic"]) < 1e-10
    assert _rel(res.pvalue, case["pvalue"]) < 1e-10
    assert res.statistic_df == case["df"]
    assert res.n_missing == case["n_missing"]
    assert res.test == ("skillings-mack" if case["n_missing"] else "friedman")
    # the direction does not change the statistic (the adjusted sums change sign)
    flipped = skillings_mack(-_table(case["table"]).to_numpy(), tie_correction=False)
    assert _rel(flipped.statistic, case["statistic"]) < 1e-10


@pytest.mark.parametrize("name", HOLED[:12])
def test_adjusted_sums_equal_ski_mack(name: str) -> None:
    case = CASES[name]
    t = _table(case["table"])
    sm = skillings_mack(t.to_numpy(), tie_correction=False)
    np.testing.assert_allclose(sm.adjusted_sums, case["adjusted_sums"], rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("name", _params(COMPLETE))
def test_tie_corrected_kernel_is_friedman_test(name: str) -> None:
    """On a complete table the tie-corrected Skillings–Mack statistic is R friedman.test's."""
    case = CASES[name]
    sm = skillings_mack(_table(case["table"]).to_numpy(), tie_correction=True)
    assert _rel(sm.statistic, case["friedman"]) < 1e-10
    assert _rel(sm.pvalue, case["friedman_pvalue"]) < 1e-10
    default = rg.rank_test(_table(case["table"]), higher_is_better=False, posthoc="holm",
                           control="s0")
    assert _rel(default.statistic, case["friedman"]) < 1e-10


@pytest.mark.parametrize("name", _params(COMPLETE))
def test_conover_equals_pmcmrplus(name: str) -> None:
    """posthoc='conover' is PMCMRplus::frdAllPairsConoverTest: t, its t p-value and the
    default single-step (studentized range) p-value."""
    case = CASES[name]
    assert case["conover_p_adjust_default"] == "single-step"
    res = rg.rank_test(_table(case["table"]), higher_is_better=False, posthoc="conover")
    pw = {(a, b): (s, p, q) for a, b, s, p, q in zip(
        res.pairwise["a"], res.pairwise["b"], res.pairwise["statistic"], res.pairwise["pvalue"],
        res.pairwise["pvalue_adjusted"], strict=True)}
    assert len(pw) == len(case["conover"])
    for ref in case["conover"]:
        key = (ref["a"], ref["b"])
        sign = 1.0
        if key not in pw:
            key, sign = (ref["b"], ref["a"]), -1.0
        stat, p, padj = pw[key]
        if ref["t"] is None:  # R: ±Inf (every dataset orders the systems alike)
            assert math.isinf(stat) and p == 0.0 and padj == 0.0
            continue
        assert abs(sign * stat - ref["t"]) <= 1e-10 * max(1.0, abs(ref["t"]))
        assert _rel(p, ref["pvalue_t"]) < 1e-10
        # single-step: the studentized range at √2|t| (scipy's to 1e-10 absolute); R's ptukey
        # (Gauss–Legendre quadrature) is itself only good to a few 1e-9 at k = 8-10
        k = res.n_systems
        ref_sf = stats.studentized_range.sf(math.sqrt(2.0) * abs(ref["t"]), k, np.inf)
        assert abs(padj - ref_sf) <= 1e-10
        assert abs(padj - ref["pvalue_single_step"]) <= 1e-8
    assert res.signature.fields["posthoc"] == "conover"
    if res.critical_difference is not None:  # single-step: significant iff |ΔR| ≥ CD
        diff = (res.average_ranks[res.pairwise["a"]].to_numpy()
                - res.average_ranks[res.pairwise["b"]].to_numpy())
        clear = np.abs(np.abs(diff) - res.critical_difference) > 1e-9
        np.testing.assert_array_equal(
            (np.abs(diff) >= res.critical_difference)[clear],
            res.pairwise["significant"].to_numpy()[clear])


def _permutation_moments(oriented: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Mean and covariance of the adjusted sums A over every within-dataset permutation of the
    present mid-ranks (brute force: the exact null distribution)."""
    n, k = oriented.shape
    per_row = []
    for row in oriented:
        present = np.flatnonzero(~np.isnan(row))
        r = stats.rankdata(row[present])
        m = present.size
        w = math.sqrt(12.0 / (m + 1.0))
        options = []
        for perm in itertools.permutations(r):
            v = np.zeros(k)
            v[present] = w * (np.asarray(perm) - (m + 1.0) / 2.0)
            options.append(v)
        per_row.append(np.asarray(options))
    mean = sum(o.mean(axis=0) for o in per_row)
    cov = sum(np.cov(o.T, bias=True) for o in per_row)  # rows are independent
    return mean, cov


HOLE_TABLE = np.array([
    [0.1, 0.5, 0.5, 0.9],
    [0.3, np.nan, 0.2, 0.2],
    [0.7, 0.7, 0.7, np.nan],
    [np.nan, 0.4, 0.1, 0.6],
    [0.2, 0.8, np.nan, 0.8],
    [0.6, 0.6, 0.3, 0.1],
])


def test_tie_corrected_covariance_is_the_permutation_covariance() -> None:
    """tie_correction=True: Σ is the exact permutation covariance of the adjusted sums (checked by
    enumerating every within-dataset permutation of the mid-ranks); T = Aᵀ Σ⁻ A."""
    mean, cov = _permutation_moments(HOLE_TABLE)
    np.testing.assert_allclose(mean, 0.0, atol=1e-12)
    sm = skillings_mack(HOLE_TABLE, tie_correction=True)
    np.testing.assert_allclose(sm.covariance, cov, rtol=1e-12, atol=1e-12)
    a = sm.adjusted_sums
    assert sm.statistic == pytest.approx(float(a @ np.linalg.pinv(cov) @ a), rel=1e-10)
    assert sm.df == 3
    untied = skillings_mack(HOLE_TABLE, tie_correction=False)
    assert untied.statistic < sm.statistic  # ties shrink the variance


def test_contrasts_are_standardised_by_their_untied_permutation_variance() -> None:
    """The post-hoc z with holes: (A_a − A_b) over the permutation SD of A_a − A_b of the
    untied ranks (enumerated on a tie-free table with the same holes)."""
    untied = HOLE_TABLE + np.arange(HOLE_TABLE.size).reshape(HOLE_TABLE.shape) * 1e-3
    _, cov = _permutation_moments(untied)
    sm = skillings_mack(untied, tie_correction=False)
    ia, ib = np.triu_indices(4, 1)
    var = cov[ia, ia] + cov[ib, ib] - 2 * cov[ia, ib]
    z = (sm.adjusted_sums[ia] - sm.adjusted_sums[ib]) / np.sqrt(var)
    np.testing.assert_allclose(contrast_z(sm, ia, ib), z, rtol=1e-12)


def test_contrasts_on_a_complete_table_are_demsar_z() -> None:
    rng = np.random.default_rng(3)
    x = np.round(rng.normal(size=(9, 5)), 1)  # with ties
    res = rg.rank_test(pd.DataFrame(x, columns=list("ABCDE")), higher_is_better=False,
                       posthoc="holm", control="C")
    sm = skillings_mack(x, tie_correction=True)
    cols = list("ABCDE")
    z = contrast_z(sm, np.array([cols.index(a) for a in res.pairwise["a"]]),
                   np.array([cols.index(b) for b in res.pairwise["b"]]))
    np.testing.assert_allclose(z, res.pairwise["statistic"], rtol=1e-12, atol=1e-14)


def test_holes_report_fields_signature_and_no_cd() -> None:
    t = pd.DataFrame(HOLE_TABLE, columns=list("ABCD"), index=[f"d{i}" for i in range(6)])
    res = rg.rank_test(t)
    assert (res.test, res.n_missing, res.n_cells, res.dropped_datasets) == (
        "skillings-mack", 4, 24, ())
    assert res.critical_difference is None
    assert math.isnan(res.iman_davenport) and math.isnan(res.iman_davenport_pvalue)
    assert res.signature.fields["test"] == "skillings-mack"
    assert res.signature.fields["cells_missing"] == "4/24"
    d = res.to_dict()
    assert json.loads(json.dumps(d, allow_nan=False)) == d
    assert (d["test"], d["n_missing"], d["statistic_df"]) == ("skillings-mack", 4, 3.0)
    assert d["iman_davenport"] is None
    # significant pairs ⇔ adjusted p ≤ α; average ranks on the 1..k scale
    np.testing.assert_array_equal(res.pairwise["significant"],
                                  res.pairwise["pvalue_adjusted"] <= res.alpha)
    assert res.average_ranks.between(1, 4).all()
    assert res.average_ranks.mean() == pytest.approx(2.5)
    assert np.isnan(res.ranks.to_numpy()).sum() == 4


def test_average_ranks_rescale_each_dataset_to_one_to_k() -> None:
    t = pd.DataFrame({"A": [3.0, 2.0, np.nan], "B": [2.0, np.nan, 1.0],
                      "C": [1.0, 1.0, 3.0]}, index=["x", "y", "z"])
    res = rg.rank_test(t)
    # x: A1 B2 C3; y: A1 C2 → A1 C3; z: C1 B2 → C1 B3
    assert res.average_ranks.to_dict() == pytest.approx({"A": 1.0, "B": 2.5, "C": 7 / 3})


def test_dataset_with_one_result_is_dropped_with_a_warning() -> None:
    t = pd.DataFrame(HOLE_TABLE, columns=list("ABCD"), index=[f"d{i}" for i in range(6)])
    t.loc["lonely"] = [0.5, np.nan, np.nan, np.nan]
    t.loc["empty"] = [np.nan] * 4
    with pytest.warns(UserWarning, match=r"2 dataset\(s\) with fewer than two results dropped"
                                         r".*'lonely', 'empty'"):
        res = rg.rank_test(t)
    ref = rg.rank_test(t.iloc[:6])
    assert res.dropped_datasets == ("lonely", "empty")
    assert res.statistic == ref.statistic and res.n_datasets == 6
    assert res.signature.fields["cells_missing"] == "4/24,dropped=2"


def test_complete_after_dropping_is_friedman() -> None:
    rng = np.random.default_rng(0)
    x = rng.normal(size=(8, 3))
    t = pd.DataFrame(x, columns=list("ABC"))
    ref = rg.rank_test(t)
    t.loc["only_a"] = [1.0, np.nan, np.nan]
    with pytest.warns(UserWarning, match="'only_a'"):
        res = rg.rank_test(t)
    assert res.test == "friedman" and res.statistic == ref.statistic
    assert res.critical_difference == ref.critical_difference
    assert res.dropped_datasets == ("only_a",)


def test_wilcoxon_posthoc_uses_the_shared_datasets() -> None:
    """posthoc='wilcoxon' with holes: scipy's zsplit Wilcoxon test of each pair on the datasets
    where both have a result, Holm over all pairs (statsmodels)."""
    rng = np.random.default_rng(7)
    x = rng.normal(size=(12, 4))
    x[[0, 3, 5], [1, 2, 1]] = np.nan
    x[8, 0] = np.nan
    t = pd.DataFrame(x, columns=list("ABCD"))
    res = rg.rank_test(t, posthoc="wilcoxon")
    ps = []
    for a, b in zip(res.pairwise["a"], res.pairwise["b"], strict=True):
        both = t[[a, b]].dropna()
        ps.append(stats.wilcoxon(both[a] - both[b], zero_method="zsplit").pvalue)
    np.testing.assert_allclose(res.pairwise["pvalue"], ps, rtol=1e-12)
    np.testing.assert_allclose(res.pairwise["pvalue_adjusted"],
                               multipletests(ps, method="holm")[1], rtol=1e-12)


def test_scores_without_a_dataset_for_a_system() -> None:
    rows = []
    rng = np.random.default_rng(1)
    for d in range(5):
        for s in "ABC":
            if (d, s) == (2, "B"):
                continue
            for i in range(3):
                rows.append({"dataset": f"d{d}", "system": s, "metric": "acc",
                             "item": f"i{i}", "value": float(rng.random())})
    res = rg.rank_test(Scores(pd.DataFrame(rows)))
    assert res.test == "skillings-mack" and res.n_missing == 1


@pytest.mark.parametrize(
    ("table", "kwargs", "match"),
    [
        (pd.DataFrame({"A": [np.nan, np.nan], "B": [np.nan, np.nan]}), {},
         "every cell of the datasets × systems table is missing"),
        (pd.DataFrame({"A": [0.1, 0.2, 0.3], "B": [0.2, 0.1, 0.4], "C": [np.nan] * 3}), {},
         r"system\(s\) 'C' have no result on any dataset"),
        (pd.DataFrame({"A": [0.1, 0.2, np.nan, np.nan], "B": [0.2, 0.1, np.nan, np.nan],
                       "C": [np.nan, np.nan, 0.3, 0.1], "D": [np.nan, np.nan, 0.1, 0.2]}), {},
         r"2 groups that never share a dataset \('A', 'B'; 'C', 'D'\)"),
        (pd.DataFrame(HOLE_TABLE, columns=list("ABCD")), {"posthoc": "conover"},
         r"Conover's post-hoc test needs complete blocks; 4 of 24 cells are missing"),
        (pd.DataFrame({"A": [0.1, 0.2], "B": [0.2, "x"]}), {},
         r"system 'B' has non-numeric"),
        (pd.DataFrame({"A": [0.1, 0.2, 0.3], "B": [0.2, None, "x"], "C": [0.1, 0.2, 0.3]}), {},
         r"system 'B' has a non-numeric score 'x' on dataset '2'"),
    ],
)
def test_bad_tables_with_holes(table: pd.DataFrame, kwargs: dict, match: str) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        with pytest.raises(AggregateError, match=match):
            rg.rank_test(table, **kwargs)


@pytest.mark.hypothesis
@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(3, 9), k=st.integers(3, 6),
       holes=st.integers(0, 6), ties=st.booleans())
def test_properties(seed: int, n: int, k: int, holes: int, ties: bool) -> None:
    """Invariant under reordering datasets and systems and under a monotone transform of the
    scores; never negative; on complete tables equal to the Friedman statistic."""
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n, k))
    if ties:
        x = np.round(x)
    for _ in range(holes):
        i, j = rng.integers(n), rng.integers(k)
        y = x.copy()
        y[i, j] = np.nan
        if (~np.isnan(y[i])).sum() >= 2 and (~np.isnan(y)).any(axis=0).all():
            x = y
    t = pd.DataFrame(x, columns=[f"s{j}" for j in range(k)])
    try:
        res = rg.rank_test(t)
    except AggregateError as err:  # holes that split the systems into groups
        assert "never share a dataset" in str(err)
        return
    assert res.statistic >= 0 and 0 <= res.pvalue <= 1
    perm = t.sample(frac=1.0, random_state=seed % 1000)[list(reversed(t.columns))]
    res2 = rg.rank_test(np.exp(perm))
    assert res2.statistic == pytest.approx(res.statistic, rel=1e-9, abs=1e-12)
    pd.testing.assert_series_equal(res2.average_ranks.sort_index(),
                                   res.average_ranks.sort_index(), rtol=1e-12)
    sm = skillings_mack(-x, tie_correction=True)
    assert sm.statistic == pytest.approx(res.statistic, rel=1e-9, abs=1e-12)


@pytest.mark.slow
def test_level_under_the_null_with_holes() -> None:
    """Simulated null (seeded): 20 datasets × 5 systems with 20 % of the cells missing. The
    Skillings–Mack test rejects about 5 % of the tables at α = 0.05 and the Nemenyi-form
    post-hoc (studentized range of the Skillings–Mack contrasts) keeps the family-wise error
    near or below 5 % (3,000 tables: 4.7 % and 4.3 %; here 1,000)."""
    rng = np.random.default_rng(1)
    ia, ib = np.triu_indices(5, 1)
    rejected = family = tables = 0
    while tables < 1000:
        x = rng.normal(size=(20, 5))
        x[rng.random(x.shape) < 0.2] = np.nan
        x = x[(~np.isnan(x)).sum(axis=1) >= 2]
        if np.isnan(x).all(axis=0).any():
            continue
        tables += 1
        sm = skillings_mack(x, tie_correction=True)
        rejected += sm.pvalue <= 0.05
        z = contrast_z(sm, ia, ib)
        family += bool((stats.studentized_range.sf(np.abs(z) * math.sqrt(2), 5, np.inf)
                        <= 0.05).any())
    assert 0.03 <= rejected / tables <= 0.07
    assert family / tables <= 0.07
