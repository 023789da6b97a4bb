"""Validity of the clustered tests under the null: the simulation of
benchmarks/cluster_validity.py (binary and continuous differences, ICC 0.1 / 0.5 / 0.9, cluster
sizes 2-20 (and binary data in clusters of one size), 20 / 50 / 200 clusters, 10,000 null
replicates each) must reject at α = 0.05 in [4 %, 6 %] of the replicates for the clustered tests
of compare's default paths (paired t: CR2 with Bell-McCaffrey df; unpaired: CR1 regression;
paired 0/1: the clustered McNemar test Yang, Sun & Hardin recommend; the clustered signed-rank
test; and the cluster sign-flip test where cluster sizes vary), while the naive test that treats
items as independent rejects far more often. Slow (about 25 minutes in all on 2 busy cores,
one test per kind of data): run by .ci/run. Measured numbers, including the tests that miss the
range (Obuchowski's clustered McNemar test is conservative with 20 clusters: 3.7-4.2 %; the
cluster bootstrap over-rejects below 100 clusters and warns; the sign-flip test is
conservative where cluster sums take few values), are in benchmarks/README.md."""
from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[2] / "benchmarks" / "cluster_validity.py"


def _module():
    spec = importlib.util.spec_from_file_location("cluster_validity", BENCH)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("cluster_validity", mod)  # dataclasses look their module up
    spec.loader.exec_module(mod)
    return mod


@pytest.mark.slow
@pytest.mark.timeout(1800)  # 3-10 minutes per kind on 2 busy cores
@pytest.mark.parametrize("kind", ["continuous", "binary", "unpaired", "binary-equal"])
def test_clustered_tests_hold_their_level_under_the_null(kind: str) -> None:
    mod = _module()
    assert kind in mod.KINDS
    outside = []
    for sc in mod.scenarios(kinds=(kind,)):
        rates = mod.rejection_rates(sc, 10_000, 999)
        for name in ("CR2-BM t (paired)", "CR1 t (unpaired)", "clustered signed-rank",
                     "clustered McNemar (compare: YSH)"):
            if name in rates and not 0.04 <= rates[name] <= 0.06:
                outside.append((sc, name, rates[name]))
        # exact, so never anti-conservative; with equal small clusters of 0/1 scores the cluster
        # sums take few values and it is conservative (3.7 % at 50 clusters of 3)
        lo = 0.035 if sc.kind == "binary-equal" else 0.04
        if "cluster permutation" in rates and not lo <= rates["cluster permutation"] <= 0.06:
            outside.append((sc, "cluster permutation", rates["cluster permutation"]))
        if "clustered McNemar (Obuchowski)" in rates:  # conservative with 20 clusters
            lo = 0.035 if sc.n_clusters == 20 else 0.04
            if not lo <= rates["clustered McNemar (Obuchowski)"] <= 0.06:
                outside.append((sc, "Obuchowski", rates["clustered McNemar (Obuchowski)"]))
        naive = rates.get("naive paired t", rates.get("naive Welch t"))
        if sc.kind in ("continuous", "binary"):  # items of a cluster share their difference
            assert naive is not None and naive > 0.15, (sc, naive)
    assert outside == []


def test_simulation_runs_small() -> None:
    """A few hundred replicates of one scenario: the simulation code runs and every rate is a
    proportion (the full check is the slow test above)."""
    mod = _module()
    rates = mod.rejection_rates(mod.Scenario("binary", 0.5, 20), 100, 49, chunk=100)
    assert set(rates) >= {"CR2-BM t (paired)", "clustered McNemar (compare: YSH)",
                          "clustered McNemar (Obuchowski)", "naive McNemar (exact)"}
    assert all(0.0 <= r <= 1.0 for r in rates.values())
    assert rates["naive paired t"] > rates["CR2-BM t (paired)"]
