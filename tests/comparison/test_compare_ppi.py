"""compare on judge scores with a human_value column: every pair by the PPI++ z test
(ranger_eval.comparison.ppi), checked against ppi_py through tests/oracles/ppi_oracle.json."""
from __future__ import annotations

import json
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

import ranger_eval as rg
from ranger_eval.errors import CompareError, VerdictError
from ranger_eval.stats.judged import JudgedPair
from ranger_eval.stats.ppi import PPIResult, prediction_powered_mean

ORACLE = json.loads((Path(__file__).resolve().parents[1] / "oracles" / "ppi_oracle.json").read_text())
DIFF_CASES = [c for c in ORACLE["cases"] if "treatment" in c]


def case_frame(case: dict) -> pd.DataFrame:
    return pd.concat([pd.DataFrame({
        "dataset": "d", "system": name, "item": case["items"], "value": data["value"],
        "human_value": [np.nan if v is None else v for v in data["human_value"]],
    }) for name, data in case["systems"].items()], ignore_index=True)


@pytest.mark.parametrize("case", DIFF_CASES, ids=[c["name"] for c in DIFF_CASES])
def test_each_pair_is_the_ppi_difference_of_ppi_py(case: dict) -> None:
    want = case["expected"]["ppi++@0.95"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        comp = rg.compare(case_frame(case), pairs=[("T", "C")])
    row = comp.table.iloc[0]
    for column, key in (("diff", "estimate"), ("ci_low", "ci_low"), ("ci_high", "ci_high"),
                        ("pvalue", "pvalue")):
        assert row[column] == pytest.approx(want[key], rel=1e-10), column
    assert row["mean_a"] - row["mean_b"] == pytest.approx(row["diff"], rel=1e-12, abs=1e-15)
    assert (row["test"], row["ci_method"], row["effect_size_name"]) == (
        "ppi++", "prediction-powered z", "dz_ppi")
    assert comp.tests_used == ("ppi++",)
    assert "|test:auto[ppi++]|" in comp.signature and comp.signature.endswith("|ppi:ppi++")
    for alternative, bound, key in (("greater", "ci_low", "ci_larger_low"),
                                    ("less", "ci_high", "ci_smaller_high")):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            one = rg.compare(case_frame(case), pairs=[("T", "C")],
                             alternative=alternative).table.iloc[0]
        side = "larger" if alternative == "greater" else "smaller"
        assert one["pvalue"] == pytest.approx(want[f"pvalue_{side}"], rel=1e-10)
        assert one[bound] == pytest.approx(want[key], rel=1e-10)


@pytest.mark.parametrize("case", DIFF_CASES, ids=[c["name"] for c in DIFF_CASES])
def test_margins_are_two_one_sided_ppi_z_tests(case: dict) -> None:
    """compare(hypothesis=..., margin=m): ppi_py's one-sided p-values against ∓m at the same λ."""
    want = case["expected"]["ppi++@0.95"]
    m = ORACLE["margin"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        rows = {h: rg.compare(case_frame(case), pairs=[("T", "C")], hypothesis=h,
                              margin=m).table.iloc[0]
                for h in ("non-inferiority", "equivalence")}
    assert rows["non-inferiority"]["pvalue"] == pytest.approx(want["pvalue_noninf"], rel=1e-10)
    assert rows["equivalence"]["pvalue"] == pytest.approx(want["pvalue_equiv"], rel=1e-10)
    assert rows["non-inferiority"]["ci_high"] == np.inf
    assert rows["non-inferiority"]["ci_low"] == pytest.approx(want["ci_larger_low"], rel=1e-10)
    assert (rows["equivalence"]["ci_low"], rows["equivalence"]["ci_high"]) == pytest.approx(
        (want["ci_larger_low"], want["ci_smaller_high"]), rel=1e-10)
    assert {r["test"] for r in rows.values()} == {"ppi++"}


def _judged(n: int = 120, labelled: int = 30, seed: int = 1) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    truth = rng.normal(size=n)
    frames = []
    for name, shift in (("A", 0.0), ("B", 0.4), ("C", 0.1)):
        human = truth + shift + rng.normal(0, 0.5, n)
        frames.append(pd.DataFrame({
            "dataset": "d", "system": name, "item": [f"q{i}" for i in range(n)],
            "value": human + rng.normal(0.2, 0.4, n),
            "human_value": np.where(np.arange(n) < labelled, human, np.nan)}))
    return pd.concat(frames, ignore_index=True)


def test_means_alternatives_and_multiplicity() -> None:
    df = _judged()
    comp = rg.compare(df)
    for _, r in comp.means.iterrows():
        own = rg.ppi_mean(df, system=r["system"])
        assert r["mean"] == pytest.approx(own.estimate, rel=1e-12)
    two = comp.table.set_index(["system_a", "system_b"])
    for _, r in comp.table.iterrows():
        ref = rg.ppi_mean_difference(df, treatment=r["system_a"], control=r["system_b"])
        assert (r["diff"], r["statistic"]) == pytest.approx((ref.estimate, ref.statistic),
                                                            rel=1e-12)
    assert comp.table["pvalue_adjusted"].ge(comp.table["pvalue"]).all()
    greater = rg.compare(df, alternative="greater").table.set_index(["system_a", "system_b"])
    for key, r in greater.iterrows():
        z = two.loc[key, "statistic"]
        assert r["pvalue"] == pytest.approx(float(stats.norm.sf(z)), rel=1e-12)
        assert r["ci_high"] == np.inf
        assert r["ci_low"] == pytest.approx(
            two.loc[key, "diff"] - stats.norm.isf(0.05) * two.loc[key, "diff"] / z, rel=1e-10)


def test_a_human_value_column_without_human_scores_changes_nothing() -> None:
    df = _judged()
    plain = rg.compare(df.drop(columns="human_value"))
    empty = rg.compare(df.assign(human_value=np.nan))
    pd.testing.assert_frame_equal(plain.table, empty.table)
    assert "ppi" not in empty.signature


@pytest.mark.parametrize(("kwargs", "match"), [
    ({"test": "mannwhitney"}, "test='mannwhitney' would test the judge"),
    ({"correction": "westfall-young", "test": "permutation"}, "test='permutation'"),
    ({"paired": False}, "unpaired"),
])
def test_what_would_test_the_judge_instead_is_an_error(kwargs: dict, match: str) -> None:
    with pytest.raises(CompareError, match=match):
        rg.compare(_judged(), **kwargs)


ORACLE_CL = json.loads((Path(__file__).resolve().parents[1] / "oracles"
                        / "ppi_clustered_oracle.json").read_text())["cases"]


def _one_system_as_difference(case: dict) -> pd.DataFrame:
    """An oracle case of one mean as the pair A − B: B scores 0 (judge and human) everywhere,
    so A − B is the case's data, with its clusters."""
    y, yhat, yu = case["y"], case["yhat"], case["yhat_unlabelled"]
    n, big_n = len(y), len(yu)
    clusters = [f"c{c}" for c in case["clusters"] + case["clusters_unlabelled"]]
    items = [f"q{i:04d}" for i in range(n + big_n)]
    a = pd.DataFrame({"dataset": "d", "system": "A", "item": items, "cluster": clusters,
                      "value": yhat + yu, "human_value": y + [np.nan] * big_n})
    b = a.assign(system="B", value=0.0, human_value=[0.0] * n + [np.nan] * big_n)
    return pd.concat([a, b], ignore_index=True)


def _oracle_variant(case: dict, cluster_se: str) -> dict:
    """The oracle's numbers for ``cluster_se``: clubSandwich CR2 + Satterthwaite, or sandwich
    vcovCL CR1 on C − 1 df (n_clusters from the CR1 entry, which both share)."""
    cr1 = case["expected"]["ppi++"]
    return {**cr1, **cr1["CR2"]} if cluster_se == "CR2" else cr1


@pytest.mark.parametrize("cluster_se", ["CR2", "CR1"])
@pytest.mark.parametrize("case", ORACLE_CL, ids=[c["name"] for c in ORACLE_CL])
def test_clustered_rows_are_the_cluster_robust_ppi_of_r(case: dict, cluster_se: str) -> None:
    """compare with a cluster column and human scores: every row is the cluster-robust
    prediction-powered t — by default CR2 with Bell–McCaffrey df (R clubSandwich vcovCR +
    coef_test Satterthwaite), with cluster_se="CR1" the CR1 t on C − 1 df (R sandwich::vcovCL)
    — of the stacked regression (1e-10); ci_df, the mde and the signature's cse: follow."""
    want = _oracle_variant(case, cluster_se)
    kw = {} if cluster_se == "CR2" else {"cluster_se": "cr1"}
    with pytest.warns(UserWarning, match="cluster-robust prediction-powered test with"):
        comp = rg.compare(_one_system_as_difference(case), **kw)
    row = comp.table.iloc[0]
    assert (row["diff"], row["ci_low"], row["ci_high"], row["pvalue"]) == pytest.approx(
        (want["estimate"], want["ci_low"], want["ci_high"], want["p_two"]), rel=1e-10)
    assert row["n_clusters"] == want["n_clusters"]
    assert row["ci_df"] == pytest.approx(want["df"], rel=1e-10)
    assert (row["test"], row["ci_method"]) == ("ppi++", f"prediction-powered t ({cluster_se})")
    assert "|ppi:ppi++|" in comp.signature
    assert comp.signature.endswith(f"|cluster:cluster|cse:{cluster_se}")
    if not row["significant"]:  # mde: the row's se on its own df (comparison.mde)
        from ranger_eval.stats.power import detectable_noncentrality

        lam = detectable_noncentrality(float(want["df"]), level=0.95, power=0.8,
                                       alternative="two-sided")
        assert row["mde"] == pytest.approx(want["se"] * lam, rel=1e-9)
    with pytest.warns(UserWarning):
        equiv = rg.compare(_one_system_as_difference(case), hypothesis="equivalence",
                           margin=0.5, **kw).table.iloc[0]
    from scipy import stats as sps

    se, df = want["se"], want["df"]
    p_equiv = max(sps.t.sf((want["estimate"] + 0.5) / se, df),
                  sps.t.cdf((want["estimate"] - 0.5) / se, df))
    assert equiv["pvalue"] == pytest.approx(p_equiv, rel=1e-9)


def test_one_item_per_cluster_is_the_unclustered_ppi() -> None:
    df = _judged()
    plain = rg.compare(df)
    single = rg.compare(df.assign(cluster=df["item"]))
    pd.testing.assert_frame_equal(plain.table, single.table.drop(columns=["n_clusters",
                                                                        "ci_df"]))
    assert single.table["n_clusters"].isna().all()


def test_clustered_leaderboard_and_means() -> None:
    df = _judged(n=120, labelled=40)
    df["cluster"] = "c" + (df["item"].str[1:].astype(int) // 4).astype(str)
    with pytest.warns(UserWarning, match="30 clusters"):
        comp = rg.compare(df)
    board = comp.leaderboard()
    plain = rg.compare(df.drop(columns="cluster"))
    assert comp.means["mean"].tolist() == pytest.approx(plain.means["mean"].tolist(), rel=1e-12)
    wider = [board.interval(i, 0)[1] - board.interval(i, 0)[0] for i in range(3)]
    narrow_board = plain.leaderboard()
    narrower = [narrow_board.interval(i, 0)[1] - narrow_board.interval(i, 0)[0]
                for i in range(3)]
    assert all(w != n for w, n in zip(wider, narrower, strict=True))
    assert (comp.table["n_clusters"] == 30).all()


def test_every_item_human_scored_names_the_pair() -> None:
    df = _judged(n=20, labelled=19)
    with pytest.raises(CompareError, match=r"'A' vs 'B' on dataset 'd'.*1 judge-only item"):
        rg.compare(df)


def test_swapping_the_systems_negates_the_difference() -> None:
    df = _judged(n=30, labelled=9, seed=4)
    ab = rg.compare(df, pairs=[("A", "B")]).table.iloc[0]
    ba = rg.compare(df, pairs=[("B", "A")]).table.iloc[0]
    assert ba["diff"] == pytest.approx(-ab["diff"], rel=1e-12, abs=1e-15)
    assert ba["pvalue"] == pytest.approx(ab["pvalue"], rel=1e-12)
    assert (ba["ci_low"], ba["ci_high"]) == pytest.approx((-ab["ci_high"], -ab["ci_low"]),
                                                          rel=1e-12, abs=1e-15)


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_ppi_difference_is_antisymmetric(seed: int) -> None:
    """PPI++ is symmetric in the pair: λ depends on Cov(H, D) and Var(D), unchanged when H and
    D change sign, so (c, t) gives −estimate with the same standard error and λ."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(4, 40))
    v_t, v_c, h_t, h_c = rng.normal(size=(4, n)) * rng.uniform(0.01, 100)
    mask = rng.random(n) < 0.5
    mask[:2], mask[2:4] = True, False
    h_t, h_c = np.where(mask, h_t, np.nan), np.where(mask, h_c, np.nan)
    tc = JudgedPair(v_t, v_c, h_t, h_c).difference(what="t", method="ppi++", level=0.95,
                                                   error=CompareError)
    ct = JudgedPair(v_c, v_t, h_c, h_t).difference(what="c", method="ppi++", level=0.95,
                                                   error=CompareError)
    assert ct.estimate == pytest.approx(-tc.estimate, rel=1e-9, abs=1e-12 * (1 + tc.se))
    assert (ct.se, ct.lam) == pytest.approx((tc.se, tc.lam), rel=1e-9, abs=1e-12)
    mean_t, mean_c = JudgedPair(v_t, v_c, h_t, h_c).means_at(tc.lam)
    assert mean_t - mean_c == pytest.approx(tc.estimate, rel=1e-9, abs=1e-9 * (1 + tc.se))


def test_leaderboard_brackets_are_the_ppi_intervals_of_the_means() -> None:
    df = _judged()
    board = rg.compare(df).leaderboard()
    assert board.interval_method is not None and "prediction-powered" in board.interval_method
    for i, system in enumerate(board.systems):
        own = rg.ppi_mean(df, system=system)
        assert board.means[i, 0] == pytest.approx(own.estimate, rel=1e-12)
        assert board.interval(i, 0) == pytest.approx((own.ci_low, own.ci_high), rel=1e-12)
    assert "prediction-powered (PPI++)" in rg.report.to_markdown(board)


def _ragged(seed: int = 3) -> pd.DataFrame:
    """Two datasets, four systems, two seeds; each system has human scores on its own items
    (so the pairs' labelled sets differ) and system 'D' misses items on dataset 'e'."""
    rng = np.random.default_rng(seed)
    frames = []
    for dataset, n in (("d", 24), ("e", 22)):
        truth = rng.normal(size=n)
        for k, name in enumerate("ABCD"):
            human = truth + 0.1 * k + rng.normal(0, 0.5, n)
            labelled = rng.random(n) < 0.6
            keep = np.arange(n) >= (5 if (name == "D" and dataset == "e") else 0)
            for run in ("s1", "s2"):
                frames.append(pd.DataFrame({
                    "dataset": dataset, "system": name, "seed": run,
                    "item": [f"q{i}" for i in range(n)],
                    "value": human + rng.normal(0.2, 0.4, n),
                    "human_value": np.where(labelled, human + rng.normal(0, 0.1, n), np.nan),
                })[keep])
    return pd.concat(frames, ignore_index=True)


def _reference(avg: pd.DataFrame, a: str, b: str) -> PPIResult:
    """ppi_py's estimator (stats.ppi.prediction_powered_mean) of the pair on its common items,
    from a pandas merge of the seed-averaged scores (``avg``: indexed by system, item):
    labelled where both have a human score."""
    both = avg.loc[a].merge(avg.loc[b], left_index=True, right_index=True, suffixes=("_a", "_b"))
    d = (both["value_a"] - both["value_b"]).to_numpy()
    h = (both["human_value_a"] - both["human_value_b"]).to_numpy()
    lab = ~np.isnan(h)
    return prediction_powered_mean(h[lab], d[lab], d[~lab])


def test_pairs_with_their_own_labelled_items_seeds_and_missing_items() -> None:
    """The engine's masked path (labelled sets that differ between pairs, items missing for one
    system with missing='intersect', seeds averaged) gives each pair ppi_py's estimator on the
    pair's own items, and each system its own ppi_mean."""
    df = _ragged()
    scores = rg.Scores(df)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # the intersect warning
        comp = rg.compare(scores, missing="intersect")
    assert len(comp.table) == 12 and set(comp.table["test"]) == {"ppi++"}
    averaged = {d: g.groupby(["system", "item"])[["value", "human_value"]].mean()
                for d, g in df.groupby("dataset")}
    for r in comp.table.itertuples(index=False):
        ref = _reference(averaged[r.dataset], r.system_a, r.system_b)
        assert (r.diff, r.ci_low, r.ci_high, r.pvalue, r.statistic) == pytest.approx(
            (ref.estimate, ref.ci_low, ref.ci_high, ref.pvalue, ref.statistic), rel=1e-10)
        assert r.mean_a - r.mean_b == pytest.approx(r.diff, rel=1e-10, abs=1e-14)
    for r in comp.means.itertuples(index=False):
        own = rg.ppi_mean(scores, system=r.system, dataset=r.dataset)
        assert r.mean == pytest.approx(own.estimate, rel=1e-12)


def test_many_pairs_in_batches_equal_one_batch(monkeypatch: pytest.MonkeyPatch) -> None:
    """Splitting a group's pairs into batches (bounded memory) does not change a number."""
    from ranger_eval.comparison import ppi as cppi

    scores = rg.Scores(_ragged(seed=5))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        whole = rg.compare(scores, missing="intersect").table
        monkeypatch.setattr(cppi, "BATCH_FLOATS", 1)
        batched = rg.compare(scores, missing="intersect").table
    pd.testing.assert_frame_equal(whole, batched)


def test_half_labelled_seed_names_the_item() -> None:
    df = _ragged()
    row = df.index[(df.system == "B") & (df.seed == "s2") & df.human_value.notna()][0]
    df.loc[row, "human_value"] = np.nan
    with pytest.raises(CompareError, match=r"system 'B'.*item 'q\d+' has a human_value for 1 "
                                           r"of its 2 seeds"):
        rg.compare(df, missing="intersect")


@pytest.mark.parametrize("cluster_se", ["CR2", "CR1"])
@pytest.mark.parametrize("case", ORACLE_CL[:3], ids=[c["name"] for c in ORACLE_CL[:3]])
def test_ppi_mean_and_difference_with_clusters_are_the_cluster_robust_ppi(
        case: dict, cluster_se: str) -> None:
    """rg.ppi_mean / rg.ppi_mean_difference on clustered scores: R clubSandwich's CR2 +
    Satterthwaite numbers by default, R sandwich's CR1 on C − 1 df with cluster_se="CR1"
    (1e-10), n_clusters, df, cluster:FIELD|cse:… in the signature, the few-clusters warning."""
    want = _oracle_variant(case, cluster_se)
    scores = rg.Scores(_one_system_as_difference(case))
    kw = {} if cluster_se == "CR2" else {"cluster_se": cluster_se}
    with pytest.warns(UserWarning, match="clusters rejects a true null"):
        mean = rg.ppi_mean(scores, system="A", **kw)
    with pytest.warns(UserWarning, match="clusters rejects a true null"):
        diff = rg.ppi_mean_difference(scores, treatment="A", control="B", **kw)
    for res in (mean, diff):
        assert (res.estimate, res.se, res.ci_low, res.ci_high, res.pvalue, res.df
                ) == pytest.approx((want["estimate"], want["se"], want["ci_low"],
                                    want["ci_high"], want["p_two"], want["df"]), rel=1e-10)
        assert (res.n_clusters, res.cluster, res.cluster_se) == (want["n_clusters"], "cluster",
                                                                 cluster_se)
        assert str(res.signature).endswith(f"|cluster:cluster|cse:{cluster_se}")


def test_cluster_se_of_ppi_mean_is_checked_and_unused_without_clusters() -> None:
    df = _judged()
    with pytest.raises(VerdictError, match="cluster_se must be one of CR1, CR2.*'HC3'"):
        rg.ppi_mean(df, system="B", cluster_se="HC3")
    with pytest.warns(UserWarning, match="cluster_se='CR1' has no effect"):
        res = rg.ppi_mean(df, system="B", cluster_se="CR1")
    assert res == rg.ppi_mean(df, system="B") and res.cluster_se is None


def test_ppi_mean_with_one_item_per_cluster_is_ppi_py() -> None:
    df = _judged()
    plain = rg.ppi_mean(df, system="B")
    single = rg.ppi_mean(df.assign(cluster=df["item"]), system="B")
    assert single == plain and single.df == np.inf and single.cluster is None
