"""effect_sizes / meta_analysis with a cluster column: cluster-robust variances (effects/variances.py),
equal to the CR1 kernel matched to R sandwich::vcovCL
(tests/stats/test_clustered.py), and the unclustered numbers when every cluster has one item."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import ranger_eval as rg
from ranger_eval.errors import EffectSizeError
from ranger_eval.stats import clustered as cl


def _frame(icc_sd: float = 1.0, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    rows = []
    for ds, n_clusters in (("d1", 8), ("d2", 15), ("d3", 6)):
        for k in range(n_clusters):
            u = rng.normal(0, icc_sd)  # a cluster effect on the difference
            for j in range(2 + k % 5):
                base = rng.normal()
                for s, v in (("T", base + 0.3 + u + rng.normal(0, 0.5)),
                             ("C", base + rng.normal(0, 0.5))):
                    rows.append({"dataset": ds, "system": s, "item": f"{k}-{j}",
                                 "value": round(v, 6), "cluster": f"c{k}"})
    return pd.DataFrame(rows)


def _diffs(df: pd.DataFrame, ds: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    sub = df[df.dataset == ds]
    wide = sub.pivot(index="item", columns="system", values="value").sort_index()
    clusters = sub.drop_duplicates("item").set_index("item")["cluster"].sort_index()
    return wide["T"].to_numpy(), wide["C"].to_numpy(), clusters.to_numpy(dtype=object)


def test_md_variance_is_cr1() -> None:
    df = _frame()
    eff = rg.effect_sizes(rg.Scores(df), treatment="T", control="C", measure="MD")
    for i, ds in enumerate(eff.names):
        t, c, clusters = _diffs(df, ds)
        ref = cl.clustered_paired_ttest(t, c, clusters=clusters)
        assert eff.yi[i] == pytest.approx(ref.estimate, rel=1e-12)
        assert eff.vi[i] == pytest.approx(ref.se ** 2, rel=1e-10)
    assert eff.signature.fields["cluster"] == "cluster"


def test_smd_variance_times_design_effect() -> None:
    df = _frame()
    eff = rg.effect_sizes(rg.Scores(df), treatment="T", control="C", measure="SMD")
    plain = rg.effect_sizes(rg.Scores(df.drop(columns="cluster")), treatment="T", control="C",
                            measure="SMD")
    np.testing.assert_array_equal(eff.yi, plain.yi)
    for i, ds in enumerate(eff.names):
        t, c, clusters = _diffs(df, ds)
        d = t - c
        deff = cl.clustered_paired_ttest(d, clusters=clusters).se ** 2 / (d.var(ddof=1) / d.size)
        assert eff.vi[i] == pytest.approx(plain.vi[i] * deff, rel=1e-10)


@pytest.mark.parametrize("measure", ["MD", "SMD", "SMCC", "SMCR", "ZCOR"])
def test_one_item_per_cluster_changes_nothing(measure: str) -> None:
    df = _frame()
    single = rg.effect_sizes(rg.Scores(df.assign(cluster=df["item"])), treatment="T",
                             control="C", measure=measure)
    plain = rg.effect_sizes(rg.Scores(df.drop(columns="cluster")), treatment="T", control="C",
                            measure=measure)
    np.testing.assert_array_equal(single.yi, plain.yi)
    np.testing.assert_array_equal(single.vi, plain.vi)


def test_strongly_clustered_dataset_gets_less_weight() -> None:
    df = _frame(icc_sd=2.0)
    eff = rg.effect_sizes(rg.Scores(df), treatment="T", control="C", measure="MD")
    naive = rg.effect_sizes(rg.Scores(df.drop(columns="cluster")), treatment="T", control="C",
                            measure="MD")
    assert (eff.vi > 1.5 * naive.vi).all()
    res = rg.meta_analysis(eff, method="FE")
    np.testing.assert_allclose(res.weights, (1 / eff.vi) / (1 / eff.vi).sum(), rtol=1e-12)
    assert res.se > rg.meta_analysis(naive, method="FE").se
    assert res.signature.fields.get("cluster") == "cluster"


def test_zcor_and_one_cluster_are_refused() -> None:
    df = _frame()
    with pytest.raises(EffectSizeError, match="ZCOR has no cluster-robust variance"):
        rg.effect_sizes(rg.Scores(df), treatment="T", control="C", measure="ZCOR")
    one = df.assign(cluster=np.where(df.dataset == "d2", "same", df["cluster"]))
    with pytest.raises(EffectSizeError, match="'d2'.*one cluster"):
        rg.effect_sizes(rg.Scores(one), treatment="T", control="C", measure="MD")
