"""The win rate's and Bradley–Terry's bootstraps resample the design's unit.

With a ``cluster`` column (:func:`ranger_eval.design.resolve_design`), ``rg.win_rate`` draws
whole clusters within each drawn dataset and ``rg.bradley_terry`` on ``battle_counts`` draws the
battles of whole clusters together (its sandwich se sums the scores within a cluster). On data
whose system differences share a strong cluster effect (ICC of the differences ≈ 0.9), the
spread of their bootstrap equals a direct whole-cluster bootstrap (within Monte-Carlo error)
and is clearly wider than the item bootstrap's; without a cluster column nothing changes.
"""
from __future__ import annotations

import math
import warnings

import numpy as np
import pandas as pd
import pytest

import ranger_eval as rg
from ranger_eval.aggregate.winrate import dataset_win_rates
from ranger_eval.scores import CLUSTER_NAME


def _clustered(n_datasets: int = 8, n_clusters: int = 6, per: int = 8, seed: int = 5,
               systems: tuple[tuple[str, float], ...] = (("A", 0.25), ("B", 0.0),
                                                          ("C", -0.1)),
               centred: bool = False) -> pd.DataFrame:
    """Every system has its own effect per passage (sd 1) over item noise (sd 0.3): the
    differences between systems are shared within a passage (ICC ≈ 0.92). ``centred``: the
    effects sum to 0 in every dataset (each dataset's means are the shifts up to item noise,
    so the datasets agree and the spread of a win rate comes from the within-dataset stage)."""
    rng = np.random.default_rng(seed)
    rows = []
    for d in range(n_datasets):
        for s, shift in systems:
            effect = rng.normal(0.0, 1.0, n_clusters)
            if centred:
                effect -= effect.mean()
            for k in range(n_clusters):
                for i in range(per):
                    rows.append((f"d{d}", s, f"q{k}-{i}", f"p{k}",
                                 shift + effect[k] + 0.3 * rng.normal()))
    frame = pd.DataFrame(rows, columns=["dataset", "system", "item", "cluster", "value"])
    frame.attrs[CLUSTER_NAME] = "passage"
    return frame


# --------------------------------------------------------------------------- win rate
def _direct_win_rates(frame: pd.DataFrame, systems: list[str], b: int, seed: int,
                      clusters: bool) -> np.ndarray:
    """A direct two-stage bootstrap (datasets, then whole clusters or items of each drawn
    copy), vectorised: ``b × systems`` mean win rates."""
    rng = np.random.default_rng(seed)
    unit = "cluster" if clusters else "item"
    datasets = sorted(frame["dataset"].unique())
    sums, counts = [], []
    for d in datasets:
        g = frame[frame["dataset"] == d]
        sums.append(g.pivot_table(index=unit, columns="system", values="value",
                                  aggfunc="sum")[systems].to_numpy())
        counts.append(g.pivot_table(index=unit, columns="system", values="value",
                                    aggfunc="count")[systems].to_numpy())
    s, c = np.stack(sums), np.stack(counts)          # datasets × units × systems
    n_d, n_u = s.shape[0], s.shape[1]
    pick = rng.integers(0, n_d, size=(b, n_d))       # datasets drawn
    w = rng.multinomial(n_u, np.full(n_u, 1.0 / n_u), size=(b, n_d)).astype(float)
    means = np.einsum("rdu,rduk->rdk", w, s[pick]) / np.einsum("rdu,rduk->rdk", w, c[pick])
    return dataset_win_rates(means).mean(axis=1)


@pytest.mark.slow
def test_win_rate_bootstrap_draws_whole_clusters() -> None:
    frame = _clustered(systems=(("A", 0.3), ("B", 0.0), ("C", -0.3)), centred=True)
    clustered = rg.win_rate(rg.Scores(frame), n_resamples=4000, seed=1)
    items = rg.win_rate(rg.Scores(frame.drop(columns="cluster")), n_resamples=4000, seed=1)
    assert clustered.resample == "datasets+cluster(passage)"
    assert "resample:datasets+cluster(passage)" in str(clustered.signature)
    assert items.resample == "datasets+items"
    # the same point estimates: the design changes the intervals, not the win rates
    pd.testing.assert_series_equal(clustered.win_rate, items.win_rate)
    systems = list(clustered.win_rate.index)
    sd = clustered.bootstrap.std(axis=0, ddof=1)
    direct_c = _direct_win_rates(frame, systems, 4000, 2, clusters=True).std(axis=0, ddof=1)
    direct_i = _direct_win_rates(frame, systems, 4000, 2, clusters=False).std(axis=0, ddof=1)
    # Monte-Carlo error of an SD from 4000 draws: ~1.1 % each; 6 % is > 3 of them combined
    np.testing.assert_allclose(sd, direct_c, rtol=0.06)
    np.testing.assert_allclose(items.bootstrap.std(axis=0, ddof=1), direct_i, rtol=0.06)
    assert (direct_c > 1.2 * direct_i).all(), (direct_c, direct_i)
    assert (sd > 1.15 * items.bootstrap.std(axis=0, ddof=1)).all()


def test_win_rate_clusters_from_a_tidy_table_and_the_exact_enumeration() -> None:
    """A tidy DataFrame with a cluster column is the same as Scores; with few clusters per
    dataset the mixture is enumerated exactly (here: 3 clusters), drawn one by one otherwise;
    both give the direct bootstrap's spread."""
    frame = _clustered(n_datasets=10, n_clusters=3, per=5, seed=9)
    tidy = rg.win_rate(frame, n_resamples=3000, seed=4)
    scores = rg.win_rate(rg.Scores(frame), n_resamples=3000, seed=4)
    assert tidy.resample == scores.resample == "datasets+cluster(passage)"
    np.testing.assert_array_equal(tidy.bootstrap, scores.bootstrap)
    direct = _direct_win_rates(frame, list(tidy.win_rate.index), 6000, 3, clusters=True)
    np.testing.assert_allclose(tidy.bootstrap.std(axis=0, ddof=1), direct.std(axis=0, ddof=1),
                               rtol=0.07)
    np.testing.assert_allclose(tidy.bootstrap.mean(axis=0), direct.mean(axis=0), atol=0.01)


def test_win_rate_with_one_item_per_cluster_is_the_item_bootstrap() -> None:
    """Clusters of one item: the same draws as the item bootstrap (same seed, same numbers)."""
    frame = _clustered(n_datasets=5, n_clusters=4, per=1, seed=2)
    singles = frame.assign(cluster=frame["item"])
    a = rg.win_rate(rg.Scores(singles), n_resamples=500, seed=7)
    b = rg.win_rate(rg.Scores(frame.drop(columns="cluster")), n_resamples=500, seed=7)
    np.testing.assert_allclose(a.bootstrap, b.bootstrap, rtol=1e-12)
    assert a.resample == "datasets+cluster(passage)" and b.resample == "datasets+items"


def test_win_rate_refuses_an_item_in_two_clusters() -> None:
    frame = _clustered(n_datasets=2, n_clusters=2, per=2)
    frame.loc[(frame["system"] == "B") & (frame["item"] == "q0-0"), "cluster"] = "p1"
    with pytest.raises(rg.RangerError, match=r"q0-0.*two clusters|cluster"):
        rg.win_rate(frame, n_resamples=10)


# --------------------------------------------------------------------------- Bradley–Terry
def _bt_rows(frame: pd.DataFrame) -> pd.DataFrame:
    from ranger_eval.verdicts.bradley_terry import battles_from_scores

    rows = battles_from_scores(frame.drop(columns="cluster"))
    clusters = frame.drop_duplicates(["dataset", "item"]).set_index(["dataset", "item"])
    rows["cluster"] = clusters.loc[list(zip(rows.dataset, rows.item, strict=True)),
                                   "cluster"].to_numpy()
    return rows


def _bt_fixture() -> pd.DataFrame:
    return _clustered(n_datasets=3, n_clusters=10, per=6, seed=11,
                      systems=(("A", 0.3), ("B", 0.1), ("C", 0.0), ("D", -0.2)))


def _glm_cluster_se(rows: pd.DataFrame, free: list[str], key: pd.Series
                    ) -> tuple[np.ndarray, np.ndarray]:
    """statsmodels' binomial GLM (y = 1, ½, 0 from model_a's side, x = e_a − e_b without the
    anchor's column), cov_type='cluster' by ``key``, no small-sample factor: (params, bse)."""
    import statsmodels.api as sm

    x = np.zeros((len(rows), len(free)))
    for k, m in enumerate(free):
        x[:, k] = (rows.model_a == m).to_numpy(float) - (rows.model_b == m).to_numpy(float)
    y = rows.winner.map({"model_a": 1.0, "model_b": 0.0, "tie": 0.5}).to_numpy()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")   # non-integer binomial y (the half-ties)
        fit = sm.GLM(y, x, family=sm.families.Binomial()).fit(
            cov_type="cluster", cov_kwds={"groups": pd.factorize(key)[0],
                                          "use_correction": False})
    return np.asarray(fit.params), np.asarray(fit.bse)


def test_bradley_terry_cluster_sandwich_equals_statsmodels() -> None:
    """The cluster analogue of the item-clustered check: the se of battles from clustered
    scores sums the scores within a (dataset, cluster) — statsmodels' binomial GLM with
    cov_type='cluster' by (dataset, cluster), no small-sample factor, to 1e-8 — and is wider
    than the item-clustered se (which the same scores without the cluster column give)."""
    from ranger_eval.verdicts.bradley_terry import battle_counts

    frame = _bt_fixture()
    rows = _bt_rows(frame)
    counts = battle_counts(rg.Scores(frame))
    assert counts.unit == "cluster(passage)"
    assert int(counts.cluster_count.sum()) == 30        # 3 datasets × 10 passages
    res = rg.bradley_terry(counts, anchor=("D", 1000), n_resamples=0)
    assert res.resample == "cluster(passage)"
    assert "battles:scores(items)|resample:cluster(passage)" in str(res.signature)
    free = ["A", "B", "C"]
    factor = 400 / math.log(10)
    params, se_c = _glm_cluster_se(rows, free, rows.dataset + "\x00" + rows.cluster)
    _, se_i = _glm_cluster_se(rows, free, rows.dataset + "\x00" + rows.item)
    np.testing.assert_allclose(res.ratings[free].to_numpy(), 1000 + factor * params, rtol=1e-9)
    np.testing.assert_allclose(res.se[free].to_numpy(), factor * se_c, rtol=1e-8)
    plain = rg.bradley_terry(battle_counts(rg.Scores(frame.drop(columns="cluster"))),
                             anchor=("D", 1000), n_resamples=0)
    assert plain.resample == "items"
    np.testing.assert_allclose(plain.se[free].to_numpy(), factor * se_i, rtol=1e-8)
    assert (se_c > 1.5 * se_i).all()
    # the caption says the unit
    from ranger_eval.report.arena import arena_caption

    assert "clusters (passage)" in arena_caption(res)
    assert "clusters" not in arena_caption(plain)


@pytest.mark.slow
def test_bradley_terry_cluster_bootstrap_spread_is_the_cluster_se() -> None:
    """Whole clusters drawn: the bootstrap SD is close to the cluster sandwich se and wider
    than the item bootstrap's."""
    from ranger_eval.verdicts.bradley_terry import battle_counts

    frame = _bt_fixture()
    res = rg.bradley_terry(battle_counts(rg.Scores(frame)), anchor=("D", 1000),
                           n_resamples=1500, seed=1)
    plain = rg.bradley_terry(battle_counts(rg.Scores(frame.drop(columns="cluster"))),
                             anchor=("D", 1000), n_resamples=1500, seed=1)
    boot_c = res.bootstrap.std(axis=0, ddof=1)[:3]
    boot_i = plain.bootstrap.std(axis=0, ddof=1)[:3]
    np.testing.assert_allclose(boot_c, res.se[["A", "B", "C"]].to_numpy(), rtol=0.25)
    assert (boot_c > 1.5 * boot_i).all(), (boot_c, boot_i)


@pytest.mark.slow
def test_bradley_terry_cluster_bootstrap_equals_a_direct_cluster_bootstrap() -> None:
    """The merged cluster patterns give the same bootstrap as refitting on the battles of
    clusters drawn one by one (spread within Monte-Carlo error)."""
    from ranger_eval.verdicts.bradley_terry import battle_counts

    frame = _clustered(n_datasets=2, n_clusters=8, per=5, seed=3)
    rows = _bt_rows(frame)
    res = rg.bradley_terry(battle_counts(rg.Scores(frame)), n_resamples=1200, seed=2)
    keys = (rows.dataset + "\x00" + rows.cluster).to_numpy()
    units = np.unique(keys)
    groups = {u: rows[keys == u][["model_a", "model_b", "winner"]] for u in units}
    rng = np.random.default_rng(8)
    direct = []
    for _ in range(400):
        drawn = pd.concat([groups[u] for u in rng.choice(units, units.size)], ignore_index=True)
        try:
            direct.append(rg.bradley_terry(drawn, n_resamples=0).ratings.to_numpy())
        except rg.RangerError:   # a round without a finite fit, left out as bradley_terry does
            continue
    sd_direct = np.std(direct, axis=0, ddof=1)
    assert len(direct) > 350
    # ratings on the Elo scale in both; SDs of 1200 and ~400 draws: MC error ~4 %
    np.testing.assert_allclose(res.bootstrap.std(axis=0, ddof=1), sd_direct, rtol=0.15)


# --------------------------------------------------------------------------- error reduction
def test_error_reduction_bootstrap_draws_whole_clusters() -> None:
    """Søgaard's error reduction with a cluster column: the paired bootstrap draws whole
    clusters (same for both systems); its variance equals a direct cluster bootstrap's within
    Monte-Carlo error, exceeds the item bootstrap's under a shared cluster effect, and the
    signature says resample:cluster(passage). Without clusters: resample:item, same yi."""
    rng = np.random.default_rng(4)
    rows = []
    for k in range(12):                       # 12 passages of 20 questions, 0/1 scores
        p_c = float(np.clip(rng.normal(0.6, 0.25), 0.05, 0.95))
        p_t = float(np.clip(p_c + rng.normal(0.1, 0.25), 0.05, 0.95))
        for i in range(20):
            rows += [("d", "C", f"q{k}-{i}", f"p{k}", float(rng.random() < p_c)),
                     ("d", "T", f"q{k}-{i}", f"p{k}", float(rng.random() < p_t))]
    frame = pd.DataFrame(rows, columns=["dataset", "system", "item", "cluster", "value"])
    frame.attrs[CLUSTER_NAME] = "passage"
    er_c = rg.error_reduction(rg.Scores(frame), treatment="T", control="C", n_resamples=4000)
    er_i = rg.error_reduction(rg.Scores(frame.drop(columns="cluster")), treatment="T",
                              control="C", n_resamples=4000)
    assert er_c.resample == "cluster(passage)" and er_i.resample == "item"
    assert "cluster:passage" in str(er_c.signature)
    assert "resample:cluster(passage)" in str(er_c.signature)
    assert "resample:item" in str(er_i.signature)
    np.testing.assert_allclose(er_c.yi, er_i.yi, rtol=1e-12)
    # a direct bootstrap of whole passages
    err = frame.assign(e=1.0 - frame["value"]).pivot_table(
        index="cluster", columns="system", values="e", aggfunc="sum")
    size = frame[frame.system == "C"].groupby("cluster").size().reindex(err.index).to_numpy()
    assert (size == 20).all()
    draw = np.random.default_rng(9).integers(0, 12, size=(4000, 12))
    ec = err["C"].to_numpy()[draw].sum(axis=1) / size[draw].sum(axis=1)
    et = err["T"].to_numpy()[draw].sum(axis=1) / size[draw].sum(axis=1)
    direct = np.var((ec - et) / ec, ddof=1)
    # variance from 4000 draws: MC error ~2.5 % each
    np.testing.assert_allclose(er_c.vi[0], direct, rtol=0.12)
    assert er_c.vi[0] > 1.5 * er_i.vi[0], (er_c.vi, er_i.vi)
