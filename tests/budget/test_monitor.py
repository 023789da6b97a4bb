"""rg.confidence_sequence and rg.monitor: rescaling, decisions, order, clusters, bad input."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import ranger_eval as rg
from ranger_eval.budget.monitor import decide
from ranger_eval.errors import ScoresError, SettingsError, StatsInputError
from ranger_eval.stats import confseq as C


def _scores(a: np.ndarray, b: np.ndarray, **extra: object) -> rg.Scores:
    n = a.size
    df = pd.DataFrame({"dataset": "qa", "system": ["A"] * n + ["B"] * n,
                       "item": [f"q{i}" for i in range(n)] * 2,
                       "value": np.concatenate([a, b]), **extra})
    return rg.Scores(df)


def test_bounds_rescale_the_unit_sequence() -> None:
    x = np.random.default_rng(1).random(300)
    unit = rg.confidence_sequence(x)
    scaled = rg.confidence_sequence(10 + 90 * x, bounds=(10, 100))
    np.testing.assert_allclose(scaled.lower, 10 + 90 * unit.lower)
    np.testing.assert_allclose(scaled.upper, 10 + 90 * unit.upper)
    assert scaled.to_frame().shape == (300, 4) and scaled.settings.bounds == (10.0, 100.0)


@pytest.mark.parametrize("method", ["hoeffding", "empirical_bernstein"])
def test_methods_call_their_kernels(method: str) -> None:
    x = np.random.default_rng(2).random(200)
    cs = rg.confidence_sequence(x, method=method, level=0.9)
    fn = C.hoeffding_cs if method == "hoeffding" else C.empirical_bernstein_cs
    lo, hi = fn(x, alpha=0.1, **({"t_opt": 500} if method == "hoeffding" else {"v_opt": 125}))
    np.testing.assert_allclose(cs.lower, lo)
    np.testing.assert_allclose(cs.upper, hi)


def test_bad_observations_and_population() -> None:
    with pytest.raises(StatsInputError, match="observation 3 is 1.5, outside bounds"):
        rg.confidence_sequence([0.1, 0.2, 1.5])
    with pytest.raises(StatsInputError, match="n_population: 5 is smaller than the stream"):
        rg.confidence_sequence(np.zeros(8), n_population=5)
    with pytest.raises(SettingsError, match="method"):
        rg.confidence_sequence([0.5], method="bets")


def test_decide_rules() -> None:
    lo = np.array([-0.5, -0.1, 0.01])
    hi = np.array([0.5, 0.2, 0.3])
    assert decide(lo, hi, 0.0) == ("treatment better", 3)
    assert decide(-hi, -lo, 0.0) == ("control better", 3)
    assert decide(np.array([-0.5, -0.04]), np.array([0.5, 0.03]), 0.05) == (
        "equivalent within margin", 2)
    assert decide(np.array([-0.5]), np.array([0.5]), 0.0) == ("continue", 1)


def test_monitor_decides_and_stops_at_the_first_crossing() -> None:
    rng = np.random.default_rng(0)
    res = rg.monitor(_scores((rng.random(800) < 0.5).astype(float),
                             (rng.random(800) < 0.75).astype(float)), control="A", treatment="B")
    assert res.decision == "treatment better"
    assert res.sequence.lower[res.n_used - 1] > 0 >= res.sequence.lower[: res.n_used - 1].max()
    flipped = rg.monitor(_scores((rng.random(800) < 0.5).astype(float),
                                 (rng.random(800) < 0.75).astype(float)),
                         control="B", treatment="A")
    assert flipped.decision == "control better"
    assert "the run may stop" in res.summary() and res.to_dict()["decision"] == res.decision


def test_monitor_continue_on_identical_systems() -> None:
    a = (np.random.default_rng(4).random(300) < 0.5).astype(float)
    res = rg.monitor(_scores(a, a.copy()), control="A", treatment="B")
    assert res.decision == "continue" and res.n_used == 300 and not res.stopped


def test_equivalence_with_a_margin() -> None:
    a = (np.random.default_rng(6).random(3000) < 0.5).astype(float)
    res = rg.monitor(_scores(a, a.copy()), control="A", treatment="B", margin=0.1)
    assert res.decision == "equivalent within margin" and res.n_used < 3000


def test_log_order_is_the_order_items_become_pairs() -> None:
    """An item enters when both systems have it: the later of its two first rows."""
    df = pd.DataFrame({"dataset": "qa", "system": ["A", "A", "B", "A", "B", "B"],
                       "item": ["q3", "q1", "q1", "q2", "q2", "q3"],
                       "value": [1, 0, 1, 0, 1, 0.0]})
    res = rg.monitor(rg.Scores(df), control="A", treatment="B")
    assert res.units == ("q1", "q2", "q3")
    np.testing.assert_allclose(res.differences, [1, 1, -1])
    rand = rg.monitor(rg.Scores(df), control="A", treatment="B", order="random", seed=1)
    assert sorted(rand.units) == ["q1", "q2", "q3"]


def test_clusters_are_the_unit() -> None:
    rng = np.random.default_rng(8)
    n = 400
    clusters = np.repeat([f"p{i}" for i in range(n // 4)], 4)
    a = (rng.random(n) < 0.5).astype(float)
    b = (rng.random(n) < 0.7).astype(float)
    res = rg.monitor(_scores(a, b, cluster=np.concatenate([clusters, clusters])),
                     control="A", treatment="B")
    assert res.unit == "cluster" and res.n_available == n // 4
    np.testing.assert_allclose(res.differences[0], (b[:4] - a[:4]).mean())


def test_unbounded_metric_needs_bounds() -> None:
    rng = np.random.default_rng(9)
    s = _scores(rng.random(50) * 5, rng.random(50) * 5)
    with pytest.raises(ScoresError, match="no known range"):
        rg.monitor(s, control="A", treatment="B")
    res = rg.monitor(s, control="A", treatment="B", bounds=(0, 5))
    assert res.sequence.bounds == (-5.0, 5.0)


def test_mismatched_items_are_an_error() -> None:
    df = pd.DataFrame({"dataset": "qa", "system": ["A", "A", "B", "B"],
                       "item": ["q1", "q2", "q1", "q9"], "value": [1, 0, 1, 0.0]})
    with pytest.raises(ScoresError, match="do not match"):
        rg.monitor(rg.Scores(df), control="A", treatment="B")


def test_clusters_enter_in_order_of_completion() -> None:
    """p2's items are all paired before p1's last item: p2 enters first."""
    df = pd.DataFrame({"dataset": "qa",
                       "system": ["A", "B", "A", "B", "A", "B", "A", "B"],
                       "item": ["q1", "q1", "q3", "q3", "q4", "q4", "q2", "q2"],
                       "cluster": ["p1", "p1", "p2", "p2", "p2", "p2", "p1", "p1"],
                       "value": [0, 1, 1, 1, 0, 0, 0, 0.0]})
    res = rg.monitor(rg.Scores(df), control="A", treatment="B")
    assert res.unit == "cluster" and res.units == ("p2", "p1")
    np.testing.assert_allclose(res.differences, [0.0, 0.5])


def test_default_sequence_is_the_mixture_and_betting_stays_available() -> None:
    rng = np.random.default_rng(11)
    s = _scores((rng.random(300) < 0.5).astype(float), (rng.random(300) < 0.6).astype(float))
    res = rg.monitor(s, control="A", treatment="B")
    assert res.sequence.method == "mixture"
    d = (res.differences + 1) / 2
    lo, hi = C.mixture_cs(d, alpha=0.05)
    np.testing.assert_allclose(res.sequence.lower, 2 * lo - 1)
    np.testing.assert_allclose(res.sequence.upper, 2 * hi - 1)
    assert rg.monitor(s, control="A", treatment="B", method="betting").sequence.method == "betting"
    assert rg.confidence_sequence([0.0, 1.0]).method == "betting"
