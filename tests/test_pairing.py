"""ranger_eval.pairing: the items × systems alignment and the pair lists that compare and lazy share.

Properties (Hypothesis): ``factorize`` is ``pd.factorize`` (codes and uniques, sorted or not) on
Arrow-backed and object string columns; ``align_groups`` puts every score at its (system, item)
cell whatever the row order and block layout; ``system_pairs`` gives k(k-1)/2 pairs for "all",
k-1 pairs against the baseline, and k-1 successive pairs in order of non-increasing mean.
"""
from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ranger_eval as rg
from ranger_eval.errors import CompareError
from ranger_eval.pairing import align_groups, block_layout, factorize, scores_table, system_pairs

_ids = st.text(alphabet=st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=4)


@settings(max_examples=30, deadline=None)
@given(values=st.lists(_ids, min_size=1, max_size=40), runs=st.integers(1, 3),
       sort=st.booleans())
def test_factorize_is_pandas_factorize(values: list[str], runs: int, sort: bool) -> None:
    """Runs of repeated values (how tidy tables store dataset/system) and free order alike."""
    column = [v for v in values for _ in range(runs)]
    for series in (pd.Series(column, dtype="string[pyarrow]"), pd.Series(column, dtype=object)):
        codes, uniques = factorize(series, sort=sort)
        ref_codes, ref_uniques = pd.factorize(series, sort=sort)
        np.testing.assert_array_equal(codes, ref_codes)
        assert list(uniques) == list(ref_uniques)
        assert codes.dtype == np.int64


@settings(max_examples=20, deadline=None)
@given(n_items=st.integers(1, 6), n_systems=st.integers(2, 4), seed=st.integers(0, 10_000),
       shuffle=st.booleans(), drop=st.integers(0, 3))
def test_align_groups_places_every_score(n_items: int, n_systems: int, seed: int,
                                         shuffle: bool, drop: int) -> None:
    rng = np.random.default_rng(seed)
    rows = [{"dataset": "d", "system": f"s{j}", "item": f"q{i}", "value": float(rng.normal())}
            for j in range(n_systems) for i in range(n_items)]
    df = pd.DataFrame(rows)
    if drop and len(df) > drop + n_systems:  # a system misses some items: not complete
        df = df.drop(index=rng.choice(len(df), drop, replace=False)).reset_index(drop=True)
    if shuffle:
        df = df.sample(frac=1.0, random_state=seed).reset_index(drop=True)
    scores = rg.Scores(df)
    if df.groupby("system").size().min() == 0 or df["system"].nunique() < 2:
        return
    for layout in (True, None):  # block layout when found / row by row
        (group,) = align_groups(scores, None, layout=layout)
        assert list(group.items) == sorted(set(df["item"]))
        for r in df.itertuples(index=False):
            i, j = group.index(r.system), list(group.items).index(r.item)
            assert group.present[i, j] and group.matrix[i, j] == r.value
        assert group.present.sum() == len(df)
        assert group.complete == bool(group.present.all())
    assert block_layout(scores_table(scores)) is None  # < MIN_BLOCK_ROWS rows per block


@settings(max_examples=60, deadline=None)
@given(means=st.lists(st.floats(-5, 5), min_size=2, max_size=7))
def test_system_pairs_counts_and_order(means: list[float]) -> None:
    names = [f"s{i}" for i in range(len(means))]
    by_name = dict(zip(names, means, strict=True))
    k = len(names)
    assert system_pairs(names, by_name, "d", "m", "all", None) == list(
        itertools.combinations(names, 2))
    base = names[-1]
    against = system_pairs(names, by_name, "d", "m", "baseline", base)
    assert against == [(s, base) for s in names[:-1]]
    succ = system_pairs(names, by_name, "d", "m", "successive", None)
    assert len(succ) == k - 1
    assert all(by_name[a] >= by_name[b] for a, b in succ)
    assert [a for a, _ in succ] + [succ[-1][1]] == sorted(
        names, key=lambda s: (-by_name[s], names.index(s)))  # ties keep the given order


def test_system_pairs_errors_name_the_system() -> None:
    means = {"A": 0.1, "B": 0.2}
    with pytest.raises(CompareError, match="unknown system 'C' on dataset 'd'"):
        system_pairs(["A", "B"], means, "d", "m", [("A", "C")], None)
    with pytest.raises(CompareError, match="cannot compare 'A' with itself"):
        system_pairs(["A", "B"], means, "d", "m", [("A", "A")], None)
    with pytest.raises(CompareError, match="baseline 'Z' has no scores on dataset 'd'"):
        system_pairs(["A", "B"], means, "d", "m", "baseline", "Z")
