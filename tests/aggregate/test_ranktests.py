"""rank_test (Demšar 2006) against scipy, scikit-posthocs, autorank and the paper's worked example.

Fixture: tests/oracles/aggregate_oracles.json, written by tests/oracles/aggregate_oracles.py.
Tolerances: 1e-9 relative wherever the peer computes to double precision (scipy's Friedman χ²,
mean ranks, Holm/Bonferroni on scipy z p-values, scipy's studentized-range quantile and the
Wilcoxon p-values). Two peers are less precise than that and get their own documented tolerance:

* scikit-posthocs' Nemenyi p-values are ``scipy.stats.studentized_range.sf``, i.e. ``1 − cdf``
  with absolute quadrature tolerance 1e-11; ours integrate the survival function directly (checked
  to 1e-12 relative against an 80-digit mpmath quadrature), so the comparison is absolute, 1e-10.
* autorank's CD uses statsmodels' ``qsturng``, an interpolation of tabulated quantiles; its CD
  matches ours to about 1e-3 relative (mean ranks match to 1e-12).
"""
from __future__ import annotations

import itertools
import json
import math
from pathlib import Path

import networkx as nx
import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

import tests.helpers.multitest  # noqa: F401  (statsmodels Holm, used by scikit-posthocs, without gc.collect)
from ranger_eval.aggregate import RankTest, rank_table, rank_test, two_system_tests
from ranger_eval.aggregate.ranktests import _studentized_range_sf_inf
from ranger_eval.errors import AggregateError
from ranger_eval.scores import Scores
from ranger_eval.signature import parse_signature

ORACLE = json.loads(
    (Path(__file__).resolve().parents[1] / "oracles" / "aggregate_oracles.json").read_text()
)
RTOL = 1e-9
DEMSAR = ORACLE["demsar"]


def demsar_table() -> pd.DataFrame:
    return pd.DataFrame(DEMSAR["values"], index=DEMSAR["datasets"], columns=DEMSAR["systems"])


def oracle_frame(case: dict) -> pd.DataFrame:
    return pd.DataFrame(case["values"], columns=case["systems"])


def pair_lookup(res: RankTest) -> dict[frozenset, pd.Series]:
    return {frozenset((r.a, r.b)): r for _, r in res.pairwise.iterrows()}


# ----------------------------------------------------------------------------- Demšar (2006)
class TestDemsarWorkedExample:
    """Demšar (2006) §3.2.4: four C4.5 variants on the 14 data sets of Table 6.

    The paper prints average ranks 3.143, 2.000, 2.893, 1.964, χ²_F = 9.28, F_F = 3.69 with
    (3, 39) df, and CD = 1.25 for Nemenyi at α = 0.05 (q_0.05 = 2.569).

    The printed table is rounded to three decimals, and the rounding creates one tie the paper's
    ranks do not have: on "voting" C4.5+cf and C4.5+m+cf both print 0.975, so the printed table
    ranks them 2.5 and 2.5, while the paper (ranking the unrounded AUCs) gives them 2 and 3. That
    moves C4.5+cf from 2.893 to 2.929 (−0.5/14) and C4.5+m+cf from 1.964 to 1.929 (+0.5/14 the
    other way), so on the printed table χ²_F = 9.857 and F_F = 3.987, not 9.28 and 3.69 (the CD
    depends only on k and N and is the same). ``test_printed_table_*`` check the printed table
    against scipy/scikit-posthocs/autorank; ``test_paper_*`` check the paper's own statistics to
    its printed precision on the paper's ranks, i.e. the printed table with the voting tie
    broken as in the paper (C4.5+cf ahead of C4.5+m+cf).
    """

    def paper_table(self) -> pd.DataFrame:
        df = demsar_table()
        df.loc["voting", "C4.5+cf"] += 0.0001  # the paper ranks it 2nd, C4.5+m+cf 3rd
        return df

    def test_printed_table_average_ranks_match_autorank(self) -> None:
        res = rank_test(demsar_table())
        for alpha in ("0.05", "0.1"):
            want = DEMSAR["autorank"][alpha]["meanrank"]
            for s, v in want.items():
                assert res.average_ranks[s] == pytest.approx(v, rel=1e-12)
        assert list(res.average_ranks.index) == ["C4.5+m+cf", "C4.5+m", "C4.5+cf", "C4.5"]

    def test_printed_table_friedman_matches_scipy(self) -> None:
        # scipy's friedmanchisquare corrects for ties, as the default; Demšar's formula does not.
        res = rank_test(demsar_table())
        assert res.tie_correction is True
        assert res.statistic == pytest.approx(DEMSAR["friedman_scipy"]["statistic"], rel=RTOL)
        assert res.pvalue == pytest.approx(DEMSAR["friedman_scipy"]["pvalue"], rel=RTOL)
        plain = rank_test(demsar_table(), tie_correction=False)
        assert plain.statistic < res.statistic
        assert plain.statistic == pytest.approx(9.857142857142857, rel=1e-12)  # 69/7

    def test_printed_table_nemenyi_matches_scikit_posthocs(self) -> None:
        res = rank_test(demsar_table())
        want = np.array(DEMSAR["nemenyi_scikit_posthocs"])
        names = DEMSAR["systems"]
        pairs = pair_lookup(res)
        for i, j in itertools.combinations(range(4), 2):
            row = pairs[frozenset((names[i], names[j]))]
            assert row.pvalue_adjusted == pytest.approx(want[i, j], abs=1e-10, rel=1e-6)
        assert res.critical_difference == pytest.approx(
            DEMSAR["autorank"]["0.05"]["cd"], rel=2e-3)

    def test_paper_average_ranks(self) -> None:
        res = rank_test(self.paper_table())
        for s, v in DEMSAR["paper"]["average_ranks"].items():
            assert round(res.average_ranks[s], 3) == v

    def test_paper_friedman_and_iman_davenport(self) -> None:
        res = rank_test(self.paper_table(), tie_correction=False)  # Demšar's eq. 3, untied
        paper = DEMSAR["paper"]
        assert round(res.statistic, 2) == paper["friedman_chi2"]
        assert round(res.iman_davenport, 2) == paper["iman_davenport"]
        assert res.iman_davenport_df == tuple(paper["iman_davenport_df"])
        # Demšar: the critical value of F(3, 39) at α = 0.05 is 2.85, so the null is rejected.
        assert res.iman_davenport_pvalue < 0.05

    def test_paper_nemenyi_cd(self) -> None:
        res = rank_test(self.paper_table(), level=0.95)
        paper = DEMSAR["paper"]
        n, k = 14, 4
        q = res.critical_difference / math.sqrt(k * (k + 1) / (6 * n))
        assert round(q, 3) == paper["nemenyi_q_0.05"]
        assert round(res.critical_difference, 2) == paper["nemenyi_cd_0.05"]

    def test_printed_table_wilcoxon_pairs_match_scipy_and_scikit_posthocs(self) -> None:
        res = rank_test(demsar_table(), posthoc="wilcoxon")
        names = DEMSAR["systems"]
        raw = np.array(DEMSAR["wilcoxon_scikit_posthocs"]["raw"])
        holm = np.array(DEMSAR["wilcoxon_scikit_posthocs"]["holm"])
        pairs = pair_lookup(res)
        for i, j in itertools.combinations(range(4), 2):
            row = pairs[frozenset((names[i], names[j]))]
            assert row.pvalue == pytest.approx(raw[i, j], rel=RTOL)
            assert row.pvalue_adjusted == pytest.approx(holm[i, j], rel=RTOL)
        for want in DEMSAR["wilcoxon_scipy_pairs"]:
            row = pairs[frozenset((want["a"], want["b"]))]
            assert row.statistic == pytest.approx(want["statistic"], rel=1e-12)

    def test_printed_table_control_posthocs(self) -> None:
        ct = DEMSAR["control_tests"]
        for posthoc, key in (("holm", "holm"), ("bonferroni-dunn", "bonferroni")):
            res = rank_test(demsar_table(), posthoc=posthoc, control="C4.5")
            got = res.pairwise.set_index("b")
            assert (res.pairwise["a"] == "C4.5").all()
            for s, z, p, adj in zip(ct["others"], ct["z"], ct["pvalue"], ct[key], strict=True):
                assert got.loc[s, "statistic"] == pytest.approx(z, rel=RTOL)
                assert got.loc[s, "pvalue"] == pytest.approx(p, rel=RTOL)
                assert got.loc[s, "pvalue_adjusted"] == pytest.approx(adj, rel=RTOL)
        bd = rank_test(demsar_table(), posthoc="bonferroni-dunn", control="C4.5")
        assert bd.critical_difference == pytest.approx(ct["bonferroni_dunn_cd"]["0.05"], rel=RTOL)


# ----------------------------------------------------------------------------- random tables
@pytest.mark.parametrize("idx", range(len(ORACLE["tables"])))
class TestAgainstPeers:
    def case(self, idx: int) -> dict:
        return ORACLE["tables"][idx]

    def test_friedman_tie_corrected_matches_scipy(self, idx: int) -> None:
        case = self.case(idx)
        if case["friedman_scipy"] is None:
            pytest.skip("scipy's friedmanchisquare needs k >= 3")
        res = rank_test(oracle_frame(case), higher_is_better=case["higher_is_better"],
                        tie_correction=True)
        assert res.statistic == pytest.approx(case["friedman_scipy"]["statistic"], rel=RTOL)
        assert res.pvalue == pytest.approx(case["friedman_scipy"]["pvalue"], rel=RTOL)

    def test_mean_ranks_and_cd_match_autorank(self, idx: int) -> None:
        case = self.case(idx)
        if "autorank" not in case:
            pytest.skip("autorank's Friedman–Nemenyi path needs k >= 3")
        for alpha, ar in case["autorank"].items():
            assert ar["omnibus"] == "friedman" and ar["posthoc"] == "nemenyi"
            res = rank_test(oracle_frame(case), higher_is_better=case["higher_is_better"],
                            level=1 - float(alpha))
            for s, v in ar["meanrank"].items():
                assert res.average_ranks[s] == pytest.approx(v, rel=1e-12)
            # autorank's q comes from statsmodels' interpolated qsturng table.
            assert res.critical_difference == pytest.approx(ar["cd"], rel=2e-3)

    def test_nemenyi_pvalues_match_scikit_posthocs(self, idx: int) -> None:
        case = self.case(idx)
        res = rank_test(oracle_frame(case), higher_is_better=case["higher_is_better"])
        want = np.array(case["nemenyi_scikit_posthocs"])
        names = case["systems"]
        pairs = pair_lookup(res)
        assert len(pairs) == len(names) * (len(names) - 1) // 2
        for i, j in itertools.combinations(range(len(names)), 2):
            got = pairs[frozenset((names[i], names[j]))].pvalue_adjusted
            assert got == pytest.approx(want[i, j], abs=1e-10, rel=1e-6)

    def test_wilcoxon_posthoc_matches_scikit_posthocs(self, idx: int) -> None:
        case = self.case(idx)
        res = rank_test(oracle_frame(case), higher_is_better=case["higher_is_better"],
                        posthoc="wilcoxon")
        raw = np.array(case["wilcoxon_scikit_posthocs"]["raw"])
        holm = np.array(case["wilcoxon_scikit_posthocs"]["holm"])
        names = case["systems"]
        pairs = pair_lookup(res)
        for i, j in itertools.combinations(range(len(names)), 2):
            row = pairs[frozenset((names[i], names[j]))]
            assert row.pvalue == pytest.approx(raw[i, j], rel=RTOL)
            assert row.pvalue_adjusted == pytest.approx(holm[i, j], rel=RTOL)
            assert row.significant == (holm[i, j] <= 0.05)

    def test_control_posthocs_match_scipy_statsmodels(self, idx: int) -> None:
        case = self.case(idx)
        ct = case["control_tests"]
        for posthoc, key in (("holm", "holm"), ("bonferroni-dunn", "bonferroni")):
            res = rank_test(oracle_frame(case), higher_is_better=case["higher_is_better"],
                            posthoc=posthoc, control=case["control"])
            got = res.pairwise.set_index("b")
            assert list(got.index) == [s for s in res.average_ranks.index if s != case["control"]]
            for s, z, p, adj in zip(ct["others"], ct["z"], ct["pvalue"], ct[key], strict=True):
                assert got.loc[s, "statistic"] == pytest.approx(z, rel=RTOL, abs=1e-14)
                assert got.loc[s, "pvalue"] == pytest.approx(p, rel=RTOL)
                assert got.loc[s, "pvalue_adjusted"] == pytest.approx(adj, rel=RTOL)
            if posthoc == "bonferroni-dunn":
                for alpha, cd in ct["bonferroni_dunn_cd"].items():
                    r = rank_test(oracle_frame(case), higher_is_better=case["higher_is_better"],
                                  posthoc=posthoc, control=case["control"],
                                  level=1 - float(alpha))
                    assert r.critical_difference == pytest.approx(cd, rel=RTOL)

    def test_two_system_tests(self, idx: int) -> None:
        case = self.case(idx)
        res = rank_test(oracle_frame(case), higher_is_better=case["higher_is_better"])
        if "two_systems" not in case:
            assert res.wilcoxon is None and res.sign_test is None
            return
        two = case["two_systems"]
        assert res.wilcoxon is not None and res.sign_test is not None
        assert res.wilcoxon.pvalue == pytest.approx(two["wilcoxon_scipy"], rel=RTOL)
        assert res.sign_test.pvalue == pytest.approx(two["sign_binomtest"], rel=RTOL)
        # RankTest orients the tests from the better-ranked system (a).
        flipped = res.wilcoxon.a != two["a"]
        wins, losses = (two["losses"], two["wins"]) if flipped else (two["wins"], two["losses"])
        assert (res.sign_test.wins, res.sign_test.losses, res.sign_test.ties) == (
            wins, losses, two["ties"])
        # the better-ranked system has at least as many wins (ties count half in the ranks)
        assert res.sign_test.wins >= res.sign_test.losses


# ----------------------------------------------------------------------------- studentized range
def test_studentized_range_sf_matches_mpmath() -> None:
    cases = ORACLE["srange"]["mpmath"]
    for c in cases:
        got = _studentized_range_sf_inf(np.array([c["q"]]), c["k"])[0]
        assert got == pytest.approx(c["sf"], rel=1e-12, abs=0), c


def test_studentized_range_sf_matches_scipy() -> None:
    for c in ORACLE["srange"]["scipy"]:
        got = _studentized_range_sf_inf(np.array([c["q"]]), c["k"])[0]
        assert got == pytest.approx(c["sf"], abs=1e-10), c


def test_nemenyi_q_matches_scipy_and_demsar_table() -> None:
    """CD / SE · √2 is the studentized-range quantile (scipy's studentized_range.ppf), and CD / SE
    is Demšar's q_α (his Table 5(a) already divides by √2), to the table's 3 decimals (as
    tabulated in aeon; aeon prints 2.344 for k = 3 where the paper has 2.343)."""
    by_key = {(c["alpha"], c["k"]): c["q"] for c in ORACLE["srange"]["scipy_ppf"]}
    table = ORACLE["nemenyi_q_table"]
    for (alpha, k), q in by_key.items():
        df = pd.DataFrame(np.arange(3 * k, dtype=float).reshape(3, k))
        res = rank_test(df, level=1 - alpha)
        se = math.sqrt(k * (k + 1) / 18)
        got = res.critical_difference / se * math.sqrt(2)
        assert got == pytest.approx(q, rel=RTOL)
        assert got / math.sqrt(2) == pytest.approx(table[str(alpha)][k - 2], abs=1.5e-3)


# ----------------------------------------------------------------------------- cliques
def _nonsig_graph(res: RankTest) -> nx.Graph:
    g = nx.Graph()
    g.add_nodes_from(res.average_ranks.index)
    sig = {frozenset((r.a, r.b)) for r in res.pairwise.itertuples() if r.significant}
    for a, b in itertools.combinations(res.average_ranks.index, 2):
        if frozenset((a, b)) not in sig:
            g.add_edge(a, b)
    return g


@pytest.mark.parametrize("posthoc", ["nemenyi", "wilcoxon", "holm", "bonferroni-dunn"])
@pytest.mark.parametrize("idx", range(len(ORACLE["tables"])))
def test_cliques_are_maximal_contiguous_cliques(posthoc: str, idx: int) -> None:
    """Each clique is a clique of networkx's non-significance graph, contiguous in rank order,
    and no contiguous run of that graph's cliques extends beyond them (maximality)."""
    case = ORACLE["tables"][idx]
    control = case["control"] if posthoc in ("holm", "bonferroni-dunn") else None
    res = rank_test(oracle_frame(case), higher_is_better=case["higher_is_better"],
                    posthoc=posthoc, control=control)
    order = list(res.average_ranks.index)
    g = _nonsig_graph(res)
    if res.critical_difference is not None:  # CD rule: span < CD, for all pairs
        g = nx.Graph()
        g.add_nodes_from(order)
        ar = res.average_ranks
        g.add_edges_from((a, b) for a, b in itertools.combinations(order, 2)
                         if abs(ar[a] - ar[b]) < res.critical_difference)
    # every contiguous run that is a clique of g, maximal among runs
    runs = []
    for i in range(len(order)):
        for j in range(len(order) - 1, i, -1):
            members = order[i:j + 1]
            if all(g.has_edge(a, b) for a, b in itertools.combinations(members, 2)):
                runs.append(tuple(members))
                break
    maximal = [r for r in runs if not any(set(r) < set(o) for o in runs)]
    assert res.cliques == maximal
    cliques_nx = [set(c) for c in nx.find_cliques(g)]
    for c in res.cliques:
        assert any(set(c) <= m for m in cliques_nx)


def test_cliques_nemenyi_span_rule() -> None:
    res = rank_test(demsar_table())
    ar = res.average_ranks
    assert res.cliques  # Demšar's example: no pair differs at alpha = 0.05
    for c in res.cliques:
        assert ar[c[-1]] - ar[c[0]] < res.critical_difference


def test_no_cliques_when_everything_differs() -> None:
    n, k = 60, 3
    df = pd.DataFrame(np.tile(np.arange(k, dtype=float), (n, 1)), columns=list("abc"))
    res = rank_test(df)
    assert res.cliques == []
    assert res.pairwise["significant"].all()
    assert math.isinf(res.iman_davenport) and res.iman_davenport_pvalue == 0.0
    assert res.statistic == pytest.approx(n * (k - 1))
    assert list(res.average_ranks.index) == ["c", "b", "a"]


# ----------------------------------------------------------------------------- inputs
def _tidy(df: pd.DataFrame, metric: str = "acc") -> pd.DataFrame:
    long = df.rename_axis("dataset").reset_index().melt(
        id_vars="dataset", var_name="system", value_name="value")
    long["metric"] = metric
    return long


def test_scores_and_tidy_inputs_equal_wide() -> None:
    wide = demsar_table()
    ref = rank_test(wide)
    long = _tidy(wide)
    # Scores: several items per dataset and system; means equal the wide values.
    rows = []
    for r in long.itertuples():
        rows.append((r.dataset, r.system, r.metric, "i1", r.value - 0.01))
        rows.append((r.dataset, r.system, r.metric, "i2", r.value + 0.01))
    scores = Scores(pd.DataFrame(rows, columns=["dataset", "system", "metric", "item", "value"]))
    for table in (long, long.drop(columns="metric"), scores):
        res = rank_test(table)
        pd.testing.assert_series_equal(res.average_ranks, ref.average_ranks, rtol=1e-12)
        assert res.statistic == pytest.approx(ref.statistic, rel=1e-12)
    np.testing.assert_allclose(rank_table(scores).to_numpy(), wide.to_numpy(), rtol=1e-12)
    assert list(rank_table(scores).index) == list(wide.index)


def test_seeds_are_averaged_per_item_first() -> None:
    rows = []
    for ds in ("d1", "d2", "d3"):
        for sysname, base in (("A", 0.5), ("B", 0.6)):
            rows.append((ds, sysname, "i1", "0", base))
            rows.append((ds, sysname, "i1", "1", base + 0.2))
            rows.append((ds, sysname, "i2", "0", base))
    df = pd.DataFrame(rows, columns=["dataset", "system", "item", "seed", "value"])
    table = rank_table(Scores(df))
    assert table.loc["d1", "A"] == pytest.approx((0.6 + 0.5) / 2)


def test_different_metric_per_dataset_is_allowed() -> None:
    long = _tidy(demsar_table())
    long.loc[long["dataset"] == "iris", "metric"] = "f1"
    assert rank_test(long).n_datasets == 14


def test_several_metrics_in_a_dataset_is_an_error() -> None:
    long = pd.concat([_tidy(demsar_table(), "acc"), _tidy(demsar_table(), "f1")])
    with pytest.raises(AggregateError, match=r"dataset 'adult \(sample\)' has several metrics"):
        rank_test(long)
    with pytest.raises(AggregateError, match="several metrics"):
        rank_test(Scores(long.assign(item="i")))
    assert rank_test(long, metric="f1").n_datasets == 14
    with pytest.raises(AggregateError, match="unknown metric 'bleu'"):
        rank_test(long, metric="bleu")


def test_lower_is_better_reverses_ranks() -> None:
    df = demsar_table()
    a = rank_test(df)
    b = rank_test(-df, higher_is_better=False)
    pd.testing.assert_series_equal(a.average_ranks, b.average_ranks)
    c = rank_test(df, higher_is_better=False)
    assert c.average_ranks.index[0] == "C4.5"
    assert c.average_ranks["C4.5"] == pytest.approx(5 - a.average_ranks["C4.5"])


@pytest.mark.parametrize(
    ("table", "kwargs", "match"),
    [
        (pd.DataFrame({"A": [0.1, np.nan], "B": [0.2, 0.3]}, index=["d1", "d2"]), {},
         r"at least 2 datasets with two or more results; got 1 after dropping 1 .*'d2'"),
        (pd.DataFrame({"A": [0.1, np.inf], "B": [0.2, 0.3]}, index=["d1", "d2"]), {},
         r"dataset 'd2', system 'A'"),
        (pd.DataFrame({"A": [0.1], "B": [0.2]}, index=["d1"]), {}, "at least 2 datasets"),
        (pd.DataFrame({"A": [0.1, 0.2]}, index=["d1", "d2"]), {}, "at least 2 systems"),
        (pd.DataFrame({"A": [0.1, 0.2], "B": ["x", "y"]}), {}, "system 'B' has non-numeric"),
        ([[0.1, 0.2]], {}, "rank_test .* expects a pandas DataFrame"),
        (pd.DataFrame({"A": [0.1, 0.2], "B": [0.2, 0.3]}), {"posthoc": "nemenyl"},
         "did you mean 'nemenyi'"),
        (pd.DataFrame({"A": [0.1, 0.2], "B": [0.2, 0.3]}), {"posthoc": "holm"},
         "pass control="),
        (pd.DataFrame({"A": [0.1, 0.2], "B": [0.2, 0.3]}), {"posthoc": "holm", "control": "Z"},
         "unknown control 'Z'"),
        (pd.DataFrame({"A": [0.1, 0.2], "B": [0.2, 0.3]}), {"control": "A"},
         "only used by posthoc"),
        (pd.DataFrame({"A": [0.1, 0.2], "B": [0.2, 0.3]}), {"level": 1.5}, "level: must be strictly between"),
        (pd.DataFrame({"A": [0.1, 0.2], "B": [0.2, 0.3]}), {"higher_is_better": "yes"},
         "higher_is_better"),
        (pd.DataFrame({"A": [0.1, 0.2], "B": [0.2, 0.3]}), {"metric": "acc"},
         "only applies to tidy"),
        (pd.DataFrame([[0.1, 0.2], [0.3, 0.4]], columns=["A", "A"]), {},
         r"duplicated column name\(s\) 'A' \(columns 0, 1\)"),
    ],
)
def test_bad_input(table: object, kwargs: dict, match: str) -> None:
    with pytest.raises(AggregateError, match=match):
        rank_test(table, **kwargs)


def test_missing_system_in_tidy_table_is_a_hole() -> None:
    """A system without a score on a dataset of a tidy table is a missing cell:
    the Skillings–Mack test runs on it, as on the wide table with that cell NaN."""
    long = _tidy(demsar_table())
    long = long[~((long["dataset"] == "wine") & (long["system"] == "C4.5+m"))]
    res = rank_test(long)
    wide = demsar_table()
    wide.loc["wine", "C4.5+m"] = np.nan
    ref = rank_test(wide)
    assert (res.test, res.n_missing, res.n_cells) == ("skillings-mack", 1, 56)
    assert res.statistic == pytest.approx(ref.statistic, rel=1e-12)


# ----------------------------------------------------------------------------- results
def test_result_views_and_signature() -> None:
    res = rank_test(demsar_table(), posthoc="holm", control="C4.5", level=0.9)
    assert isinstance(res, RankTest)
    assert (res.n_datasets, res.n_systems, res.level, res.posthoc, res.control) == (
        14, 4, 0.9, "holm", "C4.5")
    assert res.alpha == 1 - 0.9  # derived, never a second knob
    assert res.critical_difference is None
    assert list(res.pairwise.columns) == [
        "a", "b", "statistic", "pvalue", "pvalue_adjusted", "significant"]
    frame = res.to_frame()
    assert list(frame.columns) == ["system", "rank", "average_rank"]
    assert frame["rank"].tolist() == [1, 2, 3, 4]
    assert frame["average_rank"].is_monotonic_increasing
    d = res.to_dict()
    assert json.loads(json.dumps(d, allow_nan=False)) == d
    assert d["average_ranks"]["C4.5"] == res.average_ranks["C4.5"]
    assert len(d["pairwise"]) == 3
    assert d["level"] == 0.9 and "alpha" not in d
    fields = parse_signature(res.signature)
    assert fields["kind"] == "rank"
    assert fields["posthoc"] == "holm"
    assert fields["corr"] == "holm"
    assert fields["pairs"] == "baseline(C4.5)"
    assert fields["level"] == "0.9" and "alpha" not in fields
    assert fields["tie_correction"] == "yes"  # tie-corrected by default, as R, scipy and autorank
    untied = rank_test(demsar_table(), posthoc="holm", control="C4.5", level=0.9,
                       tie_correction=False)
    assert parse_signature(untied.signature)["tie_correction"] == "no"
    assert list(res.ranks.columns) == list(res.average_ranks.index)
    assert list(res.ranks.index) == DEMSAR["datasets"]


def test_to_dict_with_infinite_iman_davenport() -> None:
    df = pd.DataFrame(np.tile([1.0, 2.0, 3.0], (5, 1)), columns=list("abc"))
    d = rank_test(df).to_dict()
    assert d["iman_davenport"] is None
    json.dumps(d, allow_nan=False)


def test_equal_average_ranks_share_position_in_to_frame() -> None:
    df = pd.DataFrame({"A": [1.0, 2.0], "B": [2.0, 1.0], "C": [0.0, 0.0]})
    res = rank_test(df)
    frame = res.to_frame()
    assert frame["rank"].tolist() == [1, 1, 3]
    assert list(frame["system"][:2]) == ["A", "B"]  # input order among equals


def test_all_tied_is_defined() -> None:
    df = pd.DataFrame(np.ones((4, 3)), columns=list("abc"))
    for tc in (False, True):
        res = rank_test(df, tie_correction=tc)
        assert res.statistic == 0.0 and res.pvalue == 1.0
        assert res.iman_davenport == 0.0 and res.iman_davenport_pvalue == 1.0
        assert res.cliques == [("a", "b", "c")]


# ----------------------------------------------------------------------------- two systems
def test_two_system_tests_zero_split_and_sign_ties() -> None:
    # exact binary fractions, so that equal |d| are equal in floating point
    x = [0.875, 0.75, 0.75, 0.5, 0.5, 0.5, 0.25]
    y = [0.75, 0.875, 0.5, 0.5, 0.5, 0.125, 0.625]
    two = two_system_tests(x, y, names=("X", "Y"))
    # d = .125 -.125 .25 0 0 .375 -.375
    # |d| ranks (ties averaged, zeros included): 3.5 3.5 5 1.5 1.5 6.5 6.5
    assert two.wilcoxon.r_plus == pytest.approx(3.5 + 5 + 6.5 + 1.5)
    assert two.wilcoxon.r_minus == pytest.approx(3.5 + 6.5 + 1.5)
    assert two.wilcoxon.statistic == pytest.approx(11.5)
    assert two.wilcoxon.n == 7
    # sign test: 3 wins, 2 losses, 2 ties -> one tie to each side, n = 7
    s = two.sign_test
    assert (s.wins, s.losses, s.ties, s.n) == (3, 2, 2, 7)
    assert s.a == "X" and s.b == "Y"
    # lower is better flips wins and losses
    s_low = two_system_tests(x, y, higher_is_better=False).sign_test
    assert (s_low.wins, s_low.losses) == (2, 3)
    # odd number of ties: one is dropped
    s3 = two_system_tests([1, 2, 3, 4], [1, 0, 3, 3]).sign_test
    assert (s3.wins, s3.losses, s3.ties, s3.n) == (2, 0, 2, 4)
    s1 = two_system_tests([1, 2, 3], [1, 0, 0]).sign_test
    assert (s1.ties, s1.n) == (1, 2)


def test_two_system_tests_all_equal() -> None:
    two = two_system_tests([0.5, 0.6], [0.5, 0.6])
    assert two.wilcoxon.pvalue == 1.0 and two.sign_test.pvalue == 1.0


def test_two_system_tests_series_aligned_by_index() -> None:
    x = pd.Series([0.9, 0.1, 0.5], index=["a", "b", "c"])
    y = pd.Series([0.5, 0.9, 0.2], index=["c", "a", "b"])
    two = two_system_tests(x, y)
    # aligned: d = (.9 - .9, .1 - .2, .5 - .5)
    assert (two.sign_test.wins, two.sign_test.losses, two.sign_test.ties) == (0, 1, 2)
    with pytest.raises(AggregateError, match="same datasets"):
        two_system_tests(x, y.rename({"c": "z"}))
    with pytest.raises(AggregateError, match="equal length"):
        two_system_tests([1, 2], [1, 2, 3])
    with pytest.raises(AggregateError, match="non-finite"):
        two_system_tests([1, np.nan], [1, 2])


def test_k_greater_than_two_has_no_two_system_tests() -> None:
    res = rank_test(demsar_table())
    assert res.wilcoxon is None and res.sign_test is None


# ----------------------------------------------------------------------------- properties
_tables = st.tuples(st.integers(2, 12), st.integers(2, 7)).flatmap(
    lambda nk: arrays(np.float64, nk, elements=st.integers(0, 4).map(float))
)


@settings(max_examples=40, deadline=None)
@given(values=_tables, data=st.data())
def test_rank_invariances(values: np.ndarray, data) -> None:
    n, k = values.shape
    df = pd.DataFrame(values, index=[f"d{i}" for i in range(n)],
                      columns=[f"s{j}" for j in range(k)])
    res = rank_test(df)
    # ranks of every dataset sum to k(k+1)/2, so average ranks do too
    np.testing.assert_allclose(res.ranks.sum(axis=1), k * (k + 1) / 2)
    assert res.average_ranks.sum() == pytest.approx(k * (k + 1) / 2)
    assert res.average_ranks.is_monotonic_increasing
    rows = data.draw(st.permutations(range(n)))
    cols = data.draw(st.permutations(range(k)))
    shuffled = rank_test(df.iloc[list(rows), list(cols)])
    pd.testing.assert_series_equal(
        shuffled.average_ranks.sort_index(), res.average_ranks.sort_index(), rtol=1e-12)
    assert shuffled.statistic == pytest.approx(res.statistic, rel=1e-12, abs=1e-12)
    assert 0.0 <= res.pvalue <= 1.0
    assert res.statistic >= 0.0


def test_vectorised_scale_smoke() -> None:
    rng = np.random.default_rng(0)
    df = pd.DataFrame(rng.normal(size=(300, 40)) + np.linspace(0, 1, 40))
    res = rank_test(df)
    assert len(res.pairwise) == 40 * 39 // 2
    assert res.pairwise["pvalue_adjusted"].between(0, 1).all()
