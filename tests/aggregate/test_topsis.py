"""topsis against pymcdm 1.4 (TOPSIS with vector and min-max normalisation), and kendall_tau.

Fixture: tests/oracles/aggregate_oracles.json (``topsis``, ``kendall``). Observed agreement with
pymcdm is ~1e-16; the tests allow 1e-12 relative.
"""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from ranger_eval.aggregate import kendall_tau, rank_test, topsis
from ranger_eval.errors import AggregateError

ORACLE = json.loads(
    (Path(__file__).resolve().parents[1] / "oracles" / "aggregate_oracles.json").read_text()
)


@pytest.mark.parametrize("normalization", ["vector", "minmax"])
@pytest.mark.parametrize("idx", range(len(ORACLE["topsis"])))
def test_matches_pymcdm(idx: int, normalization: str) -> None:
    case = ORACLE["topsis"][idx]
    x = np.array(case["matrix"])
    crit = [f"c{j}" for j in range(x.shape[1])]
    df = pd.DataFrame(x, columns=crit, index=[f"sys{i}" for i in range(x.shape[0])])
    hib = [t == 1 for t in case["types"]]
    # as sequences in column order
    got = topsis(df, weights=case["weights"], higher_is_better=hib, normalization=normalization)
    np.testing.assert_allclose(got.to_numpy(), case[normalization], rtol=1e-12, atol=0)
    assert list(got.index) == list(df.index) and got.name == "topsis"
    # as dicts keyed by criterion, in another order, with weights not summing to 1
    w = {c: 3.0 * v for c, v in reversed(list(zip(crit, case["weights"], strict=True)))}
    h = dict(reversed(list(zip(crit, hib, strict=True))))
    got2 = topsis(df, weights=w, higher_is_better=h, normalization=normalization)
    np.testing.assert_allclose(got2.to_numpy(), case[normalization], rtol=1e-12, atol=0)


def test_single_bool_for_all_criteria() -> None:
    df = pd.DataFrame({"a": [1.0, 2.0, 3.0], "b": [3.0, 1.0, 2.0]})
    one = topsis(df, weights=[1, 1], higher_is_better=True)
    two = topsis(df, weights=[1, 1], higher_is_better=[True, True])
    pd.testing.assert_series_equal(one, two)


def test_dominating_alternative_is_one() -> None:
    df = pd.DataFrame({"acc": [0.9, 0.5, 0.7], "latency": [10.0, 30.0, 20.0]},
                      index=["best", "worst", "mid"])
    for norm in ("vector", "minmax"):
        c = topsis(df, weights={"acc": 0.5, "latency": 0.5},
                   higher_is_better={"acc": True, "latency": False}, normalization=norm)
        assert c["best"] == pytest.approx(1.0) and c["worst"] == pytest.approx(0.0)
        assert 0 < c["mid"] < 1


def test_constant_criterion_contributes_nothing() -> None:
    df = pd.DataFrame({"a": [1.0, 2.0, 4.0], "const": [5.0, 5.0, 5.0]})
    base = topsis(df[["a"]], weights=[1], higher_is_better=True, normalization="minmax")
    with_const = topsis(df, weights=[1, 1], higher_is_better=[True, True],
                        normalization="minmax")
    pd.testing.assert_series_equal(base, with_const)
    zero = df.assign(const=0.0)
    v = topsis(zero, weights=[1, 1], higher_is_better=[True, True], normalization="vector")
    pd.testing.assert_series_equal(
        v, topsis(df[["a"]], weights=[1], higher_is_better=True, normalization="vector"))


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"weights": [1, 1, 1]}, r"one value per criterion \(2"),
        ({"weights": {"a": 1}}, "missing criteria 'b'"),
        ({"weights": {"a": 1, "b": 1, "z": 1}}, "unknown criteria 'z'"),
        ({"weights": [1, -1]}, r"weights\['b'\] must be finite and non-negative"),
        ({"weights": [0, 0]}, "all zero"),
        ({"weights": [1, "x"]}, r"weights\['b'\] must be a number"),
        ({"weights": "equal"}, "dict keyed by criterion"),
        ({"higher_is_better": [True, 1]}, r"higher_is_better\['b'\] must be True or False"),
        ({"higher_is_better": "yes"}, "or a single True/False"),
        ({"normalization": "l2"}, "normalization must be one of 'vector', 'minmax'"),
    ],
)
def test_bad_arguments(kwargs: dict, match: str) -> None:
    df = pd.DataFrame({"a": [1.0, 2.0], "b": [2.0, 1.0]})
    args = {"weights": [1, 1], "higher_is_better": [True, True], **kwargs}
    with pytest.raises(AggregateError, match=match):
        topsis(df, **args)


def test_bad_matrix() -> None:
    with pytest.raises(AggregateError, match="topsis .*expects a pandas DataFrame"):
        topsis([[1, 2]], weights=[1, 1], higher_is_better=True)
    with pytest.raises(AggregateError, match="alternative 1, criterion 'b'"):
        topsis(pd.DataFrame({"a": [1.0, 2.0], "b": [1.0, np.nan]}), weights=[1, 1],
               higher_is_better=True)
    with pytest.raises(AggregateError, match="criterion 'b' is not numeric"):
        topsis(pd.DataFrame({"a": [1.0, 2.0], "b": ["x", "y"]}), weights=[1, 1],
               higher_is_better=True)
    with pytest.raises(AggregateError, match="all alternatives are equal"):
        topsis(pd.DataFrame({"a": [1.0, 1.0], "b": [2.0, 2.0]}), weights=[1, 1],
               higher_is_better=True)


# ----------------------------------------------------------------------------- properties
_matrices = st.tuples(st.integers(2, 8), st.integers(1, 5)).flatmap(
    lambda mn: arrays(np.float64, mn, elements=st.floats(0.01, 100.0, allow_nan=False))
)


@settings(max_examples=60, deadline=None)
@given(x=_matrices, data=st.data())
def test_scale_invariance_and_bounds(x: np.ndarray, data) -> None:
    m, n = x.shape
    df = pd.DataFrame(x, columns=[f"c{j}" for j in range(n)])
    assume(not np.all(np.ptp(x, axis=0) == 0))
    w = data.draw(st.lists(st.floats(0.05, 1.0), min_size=n, max_size=n))
    hib = data.draw(st.lists(st.booleans(), min_size=n, max_size=n))
    j = data.draw(st.integers(0, n - 1))
    factor = data.draw(st.floats(0.01, 100.0))
    for norm in ("vector", "minmax"):
        c = topsis(df, weights=w, higher_is_better=hib, normalization=norm)
        assert ((c >= 0) & (c <= 1)).all()
        scaled = df.copy()
        scaled.iloc[:, j] *= factor
        c2 = topsis(scaled, weights=w, higher_is_better=hib, normalization=norm)
        np.testing.assert_allclose(c2.to_numpy(), c.to_numpy(), rtol=1e-9, atol=1e-12)
        # scaling all weights changes nothing either
        c3 = topsis(df, weights=[3 * v for v in w], higher_is_better=hib, normalization=norm)
        np.testing.assert_allclose(c3.to_numpy(), c.to_numpy(), rtol=1e-9, atol=1e-12)


# ----------------------------------------------------------------------------- Kendall τ
def test_kendall_matches_scipy() -> None:
    k = ORACLE["kendall"]
    items = [f"i{j}" for j in range(len(k["a"]))]
    res = kendall_tau(pd.Series(k["a"], index=items), pd.Series(k["b"], index=items))
    assert res.statistic == pytest.approx(k["statistic"], rel=1e-12)
    assert res.pvalue == pytest.approx(k["pvalue"], rel=1e-12)
    assert res.n == len(items)
    # items matched by name, not position
    shuffled = pd.Series(k["b"], index=items).iloc[::-1]
    assert kendall_tau(pd.Series(k["a"], index=items), shuffled).statistic == res.statistic


def test_kendall_orders_and_rank_test() -> None:
    df = pd.DataFrame({"acc": [0.9, 0.5, 0.7, 0.6], "f1": [0.8, 0.4, 0.75, 0.5]},
                      index=["A", "B", "C", "D"])
    c = topsis(df, weights=[1, 1], higher_is_better=True)
    assert kendall_tau(c, ["A", "C", "D", "B"]).statistic == pytest.approx(1.0)
    assert kendall_tau(c, ["B", "D", "C", "A"]).statistic == pytest.approx(-1.0)
    rt = rank_test(df.T)  # datasets = metrics here, systems = A..D
    assert kendall_tau(c, rt.average_ranks.index).statistic == pytest.approx(1.0)
    assert kendall_tau(c, -rt.average_ranks).statistic == pytest.approx(1.0)


@pytest.mark.parametrize(
    ("a", "b", "match"),
    [
        (["A", "B"], ["A", "C"], "same items"),
        (["A", "A"], ["A", "B"], "twice"),
        (["A"], ["A"], "at least 2"),
        ("AB", ["A", "B"], "sequence of item names"),
        (pd.Series([1.0, 1.0], index=["A", "B"]), ["A", "B"], "ties every item"),
        (pd.Series([1.0, np.nan], index=["A", "B"]), ["A", "B"], "missing or non-numeric"),
    ],
)
def test_kendall_bad_input(a: object, b: object, match: str) -> None:
    with pytest.raises(AggregateError, match=match):
        kendall_tau(a, b)
