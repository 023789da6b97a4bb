"""The design of a Scores table (ranger_eval.design) and the cluster bootstrap of means."""
from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd
import pytest

import ranger_eval as rg
from ranger_eval.design import RESAMPLE_FIELD, Design, resolve_design
from ranger_eval.errors import ScoresError
from ranger_eval.scores import CLUSTER_NAME, Scores
from ranger_eval.signature import FIELDS, describe_fields, make_signature
from ranger_eval.stats.clustered import cluster_bootstrap_means
from ranger_eval.stats.resampling import BootstrapIndices, StatsInputError


def _table(*, clusters: bool = True, samples: bool = False, seeds: bool = False) -> pd.DataFrame:
    """Two datasets × systems A, B × 6 items; q0-q2 in cluster p, q3-q5 in r (the same ids in
    both datasets: nested, so four clusters in all)."""
    rng = np.random.default_rng(1)
    rows = []
    for d in ("d1", "d2"):
        for s in ("A", "B"):
            for i in range(6):
                for k in range(2 if samples else 1):
                    for z in range(2 if seeds else 1):
                        rows.append({"dataset": d, "system": s, "item": f"q{i}",
                                     "cluster": "p" if i < 3 else "r", "sample": str(k),
                                     "seed": str(z), "value": float(rng.normal())})
    df = pd.DataFrame(rows)
    if not clusters:
        df = df.drop(columns="cluster")
    if not samples:
        df = df.drop(columns="sample")
    if not seeds:
        df = df.drop(columns="seed")
    return df


def test_cluster_column_makes_the_cluster_the_unit() -> None:
    d = resolve_design(Scores(_table()))
    assert (d.unit, d.cluster_name, d.clustered) == ("cluster", "cluster", True)
    assert d.label == "cluster(cluster)"
    assert d.signature_fields == {"resample": "cluster(cluster)"}
    assert d.caption(4) == "resampling clusters (cluster), n_clusters = 4"
    assert d.caption() == "resampling clusters (cluster)"
    assert not d.has_samples and not d.has_seeds


def test_without_clusters_the_item_is_the_unit() -> None:
    d = resolve_design(_table(clusters=False))  # a DataFrame is read as Scores
    assert (d.unit, d.cluster_name, d.clustered) == ("item", None, False)
    assert d.label == "item" and d.signature_fields == {RESAMPLE_FIELD: "item"}
    assert d.caption(12) == "resampling items, n = 12"
    items = np.array(["q3", "q0", "q5"], dtype=object)
    assert d.units("d1", items).tolist() == [0, 1, 2]
    assert d.n_units("d1", items) == 3


def test_the_users_cluster_field_name_is_kept(tmp_path) -> None:
    path = tmp_path / "s.csv"
    _table().rename(columns={"cluster": "passage"}).to_csv(path, index=False)
    scores = rg.read_scores(path, cluster="passage")
    d = resolve_design(scores)
    assert d.cluster_name == "passage" and d.label == "cluster(passage)"
    assert d.caption(4) == "resampling clusters (passage), n_clusters = 4"
    frame = _table()
    frame.attrs[CLUSTER_NAME] = "doc"
    assert resolve_design(Scores(frame)).label == "cluster(doc)"


def test_units_are_cluster_codes_nested_within_datasets() -> None:
    scores = Scores(_table())
    d = resolve_design(scores)
    items = np.array(["q5", "q0", "q1", "q4"], dtype=object)
    assert d.units("d1", items).tolist() == [1, 0, 0, 1]  # sorted cluster ids: p=0, r=1
    assert d.n_units("d2", items) == 2
    rows = d.row_units()
    table = scores.table
    assert rows.shape == (len(table),)
    # one unit per (dataset, cluster): the same id "p" in d1 and d2 is two units
    key = table["dataset"].astype(str) + "/" + table["cluster"].astype(str)
    assert len(np.unique(rows)) == key.nunique() == 4
    for code in np.unique(rows):
        assert key[rows == code].nunique() == 1
    with pytest.raises(ScoresError, match="unknown item"):
        d.units("d1", ["nope"])


def test_row_units_without_clusters_are_dataset_items() -> None:
    scores = Scores(_table(clusters=False))
    rows = resolve_design(scores).row_units()
    key = scores.table["dataset"].astype(str) + "/" + scores.table["item"].astype(str)
    assert len(np.unique(rows)) == key.nunique() == 12
    for code in np.unique(rows):
        assert key[rows == code].nunique() == 1


def test_samples_and_seeds_are_recorded() -> None:
    d = resolve_design(Scores(_table(samples=True, seeds=True)))
    assert d.has_samples and d.samples_label == "2" and d.has_seeds and d.clustered


def test_design_is_frozen_and_needs_its_scores_for_codes() -> None:
    d = resolve_design(Scores(_table()))
    with pytest.raises(dataclasses.FrozenInstanceError):
        d.unit = "item"  # type: ignore[misc]
    bare = Design(unit="cluster", cluster_name="passage", has_samples=False, has_seeds=False)
    assert bare.label == "cluster(passage)"
    with pytest.raises(ScoresError, match="resolve_design"):
        bare.units("d1", ["q0"])
    assert rg.resolve_design is resolve_design


def test_resample_field_is_documented() -> None:
    assert "cluster(NAME)" in FIELDS["resample"]
    assert "cluster(NAME)" in describe_fields()
    sig = make_signature("compare", resolve_design(Scores(_table())).signature_fields)
    assert sig.fields["resample"] == "cluster(cluster)"


# --------------------------------------------------------------------------- the kernel
def test_cluster_bootstrap_means_without_codes_is_the_item_bootstrap_bit_for_bit() -> None:
    v = np.random.default_rng(3).normal(size=(3, 40))
    got = cluster_bootstrap_means(v, None, n_resamples=300, seed=5)
    want = BootstrapIndices(40, 300, 5).means(v)
    assert np.array_equal(got, want)


def test_cluster_bootstrap_means_draw_whole_clusters() -> None:
    # 4 clusters of 3 items, each cluster constant: every resample mean is a mean of cluster
    # means weighted by draws, the ratio estimator sum w S / sum w m
    codes = np.repeat(np.arange(4), 3)
    cmeans = np.array([0.0, 1.0, 10.0, 100.0])
    v = cmeans[codes][None, :]
    got = cluster_bootstrap_means(v, codes, n_resamples=50, seed=2)
    w = BootstrapIndices(4, 50, 2).counts(0, 50)
    np.testing.assert_allclose(got[:, 0], (w @ (3 * cmeans)) / (w @ np.full(4, 3.0)),
                               rtol=1e-14)
    # unequal cluster sizes: the ratio, not the mean of cluster means
    codes2 = np.array([0, 0, 0, 0, 1, 2])
    v2 = np.array([[1.0, 1.0, 1.0, 1.0, 0.0, 0.0]])
    got2 = cluster_bootstrap_means(v2, codes2, n_resamples=40, seed=0)
    w2 = BootstrapIndices(3, 40, 0).counts(0, 40)
    np.testing.assert_allclose(got2[:, 0], (w2[:, 0] * 4) / (w2 @ np.array([4.0, 1.0, 1.0])),
                               rtol=1e-14)


def test_cluster_bootstrap_means_with_one_item_per_cluster_matches_items() -> None:
    v = np.random.default_rng(4).normal(size=(2, 25))
    got = cluster_bootstrap_means(v, np.arange(25), n_resamples=200, seed=1)
    np.testing.assert_allclose(got, BootstrapIndices(25, 200, 1).means(v), rtol=1e-13)


def test_cluster_bootstrap_means_refuses_one_cluster_and_bad_codes() -> None:
    v = np.ones((1, 5))
    with pytest.raises(StatsInputError, match="at least 2 clusters"):
        cluster_bootstrap_means(v, np.zeros(5, dtype=int))
    with pytest.raises(StatsInputError, match="one integer cluster code per item"):
        cluster_bootstrap_means(v, np.zeros(4, dtype=int))


# --------------------------------------------------------------------------- rank intervals
def _clustered_scores(c: int = 30, m: int = 6, *, name: str = "passage", seed: int = 7,
                      systems: tuple[str, ...] = ("A", "B", "C")) -> pd.DataFrame:
    """Equal clusters with a strong shared cluster effect (ICC ≈ 0.8): c clusters of m items."""
    rng = np.random.default_rng(seed)
    effect = rng.normal(0.0, 1.0, c)
    rows = []
    for j, s in enumerate(systems):
        for k in range(c):
            for i in range(m):
                rows.append(("qa", s, f"q{k}-{i}", f"p{k}",
                             0.1 * j + effect[k] + 0.5 * rng.normal()))
    return pd.DataFrame(rows, columns=["dataset", "system", "item", name, "value"])


def _hand_cluster_bootstrap_se(frame: pd.DataFrame, system: str, b: int, seed: int) -> float:
    """An independent cluster bootstrap: draw C cluster ids with replacement, pool their items."""
    sub = frame[frame["system"] == system]
    sums = sub.groupby("passage")["value"].sum().to_numpy()
    sizes = sub.groupby("passage")["value"].size().to_numpy()
    rng = np.random.default_rng(seed)
    draws = rng.integers(0, sums.size, size=(b, sums.size))
    return float((sums[draws].sum(axis=1) / sizes[draws].sum(axis=1)).std(ddof=1))


def test_rank_intervals_resample_clusters_with_the_cluster_robust_spread(tmp_path) -> None:
    frame = _clustered_scores()
    path = tmp_path / "s.csv"
    frame.to_csv(path, index=False)
    scores = rg.read_scores(path, cluster="passage")
    b = 2000
    ri = rg.rank_intervals(scores, n_resamples=b, seed=0)
    assert ri.resample == "cluster(passage)" and ri.n_units == 30 and ri.clustered
    assert ri.caption == "resampling clusters (passage), n_clusters = 30"
    assert ri.signature.fields["resample"] == "cluster(passage)"
    got = ri.to_frame().set_index("system")["se"]
    # the CR1 SE of describe (= Inspect's stderr(cluster=)) without its C/(C-1) factor is the
    # exact SD of this (linear, equal-size) cluster bootstrap; the SD of B draws has relative
    # Monte-Carlo error 1/sqrt(2(B-1)) = 1.6 %: 4 of them
    desc = rg.describe(scores).set_index("system")
    cr0 = desc["se"] * np.sqrt(29 / 30)
    mc = 1 / np.sqrt(2 * (b - 1))
    np.testing.assert_allclose(got[cr0.index], cr0, rtol=4 * mc)
    # an independent hand-written cluster bootstrap with another seed: the difference of two
    # independent SD estimates has relative sd sqrt(2)·mc
    for s in ("A", "B", "C"):
        hand = _hand_cluster_bootstrap_se(frame, s, b, seed=123)
        assert abs(got[s] / hand - 1) < 4 * np.sqrt(2) * mc, (s, got[s], hand)
    # the item bootstrap of the same values (no cluster column) is far narrower (ICC ≈ 0.8,
    # design effect ≈ 1 + 5·0.8 = 5): it is what rank_intervals drew before the design
    plain = rg.rank_intervals(frame.drop(columns="passage"), n_resamples=b, seed=0)
    assert plain.resample == "item" and plain.caption == "resampling items, n = 180"
    item_se = plain.to_frame().set_index("system")["se"]
    assert (item_se[got.index] < 0.6 * got).all()
    assert (desc["design_effect"] > 3).all()


def test_rank_intervals_without_clusters_are_the_item_bootstrap_bit_for_bit() -> None:
    frame = _clustered_scores(c=10, m=3).drop(columns="passage")
    ri = rg.rank_intervals(frame, n_resamples=300, seed=4)
    values = frame.pivot(index="system", columns="item", values="value")
    want = BootstrapIndices(30, 300, 4).means(values.to_numpy())
    order = [list(values.index).index(s) for s in ri.systems]
    assert np.array_equal(ri.boot_means, want[:, order])
    assert ri.signature.fields["resample"] == "item"


def test_rank_intervals_of_independent_samples_resample_each_systems_clusters() -> None:
    frame = _clustered_scores(c=12, m=4, systems=("A", "B"))
    frame.loc[frame["system"] == "B", "item"] += "-b"  # disjoint items, same passages
    frame = frame.rename(columns={"passage": "cluster"})
    ri = rg.rank_intervals(Scores(frame), n_resamples=200, seed=3)
    assert not ri.paired and ri.resample == "cluster(cluster)" and ri.n_units == 12
    for j, s in enumerate(ri.systems):
        sub = frame[frame["system"] == s].sort_values("item")
        codes = pd.factorize(sub["cluster"], sort=True)[0]
        want = cluster_bootstrap_means(sub["value"].to_numpy()[None, :], codes,
                                       n_resamples=200, seed=3 + ["A", "B"].index(s))
        np.testing.assert_allclose(ri.boot_means[:, j], want[:, 0], rtol=1e-14)


def test_rank_intervals_in_one_cluster_are_refused() -> None:
    frame = _clustered_scores(c=3, m=4).rename(columns={"passage": "cluster"})
    frame["cluster"] = "only"
    with pytest.raises(rg.RangerError, match=r"items lie in 1 cluster"):
        rg.rank_intervals(Scores(frame), n_resamples=50)


def test_boxplots_footnote_names_the_resampling_unit() -> None:
    from ranger_eval.plots.boxplots import comparison_boxplots

    frame = _clustered_scores(c=8, m=3).rename(columns={"passage": "cluster"})
    fig = comparison_boxplots(rg.rank_intervals(Scores(frame), n_resamples=100))
    text = " ".join(t.get_text().replace("\n", " ") for t in fig.texts)
    assert "resampling clusters (cluster), n_clusters = 8" in text
    assert "resample:cluster(cluster)" in text


# --------------------------------------------------------------------------- set-level effects
def _labelled(c: int = 12, m: int = 4) -> pd.DataFrame:
    """Two datasets, systems A and B with predictions of 0/1 labels, items in c clusters of m;
    whole clusters are easy or hard for both systems (strong clustering)."""
    rng = np.random.default_rng(11)
    rows = []
    for d in ("d1", "d2"):
        hard = rng.random(c) < 0.4
        for k in range(c):
            for i in range(m):
                label = int(rng.integers(0, 2))
                for s, skill in (("A", 0.9), ("B", 0.75)):
                    ok = rng.random() < (skill - 0.4 * hard[k])
                    rows.append((d, s, f"q{k}-{i}", f"p{k}", label, label if ok else 1 - label,
                                 float(ok)))
    return pd.DataFrame(rows, columns=["dataset", "system", "item", "cluster", "label",
                                       "prediction", "value"])


def test_effect_sizes_with_a_set_metric_resample_the_designs_clusters() -> None:
    from ranger_eval.setmetrics import cluster_bootstrap_values, encode, get_metric

    frame = _labelled()
    eff = rg.effect_sizes(Scores(frame), treatment="A", control="B", metric_fn="mcc",
                          n_resamples=300, seed=2)
    assert eff.signature.fields["resample"] == "cluster(cluster)"
    meta = rg.meta_analysis(eff, method="FE")
    assert meta.signature.fields["resample"] == "cluster(cluster)"
    # vi of d1 is the variance of the cluster bootstrap of the MCC difference, drawn with the
    # design's units (cluster codes in sorted id order)
    sub = frame[frame["dataset"] == "d1"].sort_values("item")
    a, b = sub[sub["system"] == "A"], sub[sub["system"] == "B"]
    enc = encode(get_metric("mcc", error=rg.RangerError), a["label"].to_numpy(),
                 [a["prediction"].to_numpy(), b["prediction"].to_numpy()], runs=["A", "B"],
                 where="d1", error=rg.RangerError)
    codes = pd.factorize(a["cluster"], sort=True)[0]
    boot, _ = cluster_bootstrap_values(enc, codes, 300, 2)
    np.testing.assert_allclose(eff.vi[0], np.var(boot[:, 0] - boot[:, 1], ddof=1), rtol=1e-12)
    # the same call on the same table without clusters draws items (and says so)
    plain = rg.effect_sizes(Scores(frame.drop(columns="cluster")), treatment="A", control="B",
                            metric_fn="mcc", n_resamples=300, seed=2)
    assert plain.signature.fields["resample"] == "item"
    np.testing.assert_array_equal(plain.yi, eff.yi)


def test_effect_size_bootstrap_takes_clusters() -> None:
    frame = _labelled()
    sub = frame[frame["dataset"] == "d1"].sort_values("item")
    a, b = sub[sub["system"] == "A"], sub[sub["system"] == "B"]
    args = (a["prediction"].to_numpy(), b["prediction"].to_numpy())
    kw = {"labels": a["label"].to_numpy(), "metric_fn": "accuracy", "n_resamples": 400}
    clustered = rg.effect_size_bootstrap(*args, **kw, clusters=a["cluster"].to_numpy(),
                                         cluster_name="passage")
    items = rg.effect_size_bootstrap(*args, **kw)
    assert clustered.resample == "cluster(passage)" and clustered.n_units == 12
    assert clustered.signature.fields["resample"] == "cluster(passage)"
    assert items.resample == "item" and items.n_units == 48
    assert clustered.yi == items.yi
    # with one cluster per item in item order the cluster bootstrap is the item bootstrap
    single = rg.effect_size_bootstrap(*args, **kw, clusters=[f"{i:03d}" for i in range(48)])
    np.testing.assert_allclose(single.boot, items.boot, rtol=1e-14)
    with pytest.raises(rg.RangerError, match="one cluster"):
        rg.effect_size_bootstrap(*args, **kw, clusters=["x"] * 48)
    with pytest.raises(rg.RangerError, match="cluster id of item 3 is missing"):
        rg.effect_size_bootstrap(*args, **kw, clusters=["a", "b", "c", None] + ["a"] * 44)


def test_rank_intervals_carry_the_leaderboards_mean_intervals_into_the_figure() -> None:
    """The rank-interval figure's first panel (0/1 scores) draws each system's interval as the
    leaderboard gives it (rg.describe: Korn–Graubard with clusters, Wilson without), not an
    interval of independent items computed by the plot; its footnote names the method."""
    from ranger_eval.plots.boxplots import comparison_boxplots

    rng = np.random.default_rng(3)
    rows = [("qa", s, f"q{c}-{j}", float(rng.random() < p + 0.3 * (c % 2 - 0.5)), f"p{c}")
            for s, p in (("A", 0.7), ("B", 0.5)) for c in range(12) for j in range(5)]
    frame = pd.DataFrame(rows, columns=["dataset", "system", "item", "value", "cluster"])
    for clustered, method in ((True, "korn-graubard"), (False, "wilson")):
        scores = rg.Scores(frame if clustered else frame.drop(columns="cluster"))
        ri = rg.rank_intervals(scores, n_resamples=200)
        d = rg.describe(scores).set_index("system").loc[list(ri.systems)]
        assert ri.mean_interval == (method, method)
        np.testing.assert_allclose(ri.mean_ci_low, d["ci_low"], rtol=1e-12)
        np.testing.assert_allclose(ri.mean_ci_high, d["ci_high"], rtol=1e-12)
        fig = comparison_boxplots(ri)
        texts = " ".join(t.get_text() for t in fig.texts)
        assert ("Korn–Graubard intervals" if clustered else "Wilson intervals") in texts
        drawn = [ln for ax in fig.axes for ln in ax.get_lines()
                 if ln.get_gid() == "proportion-interval"]
        assert [tuple(ln.get_xdata()) for ln in drawn] == \
            [(lo, hi) for lo, hi in zip(ri.mean_ci_low, ri.mean_ci_high, strict=True)]
        import matplotlib.pyplot as plt
        plt.close(fig)
