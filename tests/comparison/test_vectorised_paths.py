"""Every vectorised path of ``compare`` gives the group-by-group numbers bit for bit:
the all-groups array path (``_uniform_paired_t``: paired t, McNemar with Tango's interval,
Cohen's d_z and h) and the grouped engine chosen for few large groups (``prefer_grouped``), on
hostile shapes — ties, zeros, all-equal pairs, identical systems, n = 1–3, NaN scores, unequal
group sizes, mixed 0/1 and continuous systems — through ``rg.compare``; and the row kernels
they use (McNemar from counts, Tango's interval per distinct counts, Cohen's h of means) equal
the one-pair functions."""
from __future__ import annotations

import sys
import warnings

import numpy as np
import pandas as pd
import pytest

import ranger_eval as rg
from ranger_eval import stats
from ranger_eval.comparison.dispatch import cohens_h_of_means, tango_rows
from ranger_eval.comparison.fastpath import _uniform_paired_t, prefer_grouped
from ranger_eval.pairing import block_layout, scores_table
from ranger_eval.stats.many import mcnemar_counts_many, mcnemar_many, wald_interval_many

COMPARE = sys.modules["ranger_eval.comparison.compare"]


def _hostile(seed: int, sizes: tuple[int, ...] = (2, 3, 2, 5, 3), k: int = 3) -> pd.DataFrame:
    """Datasets of unequal sizes (n = 2, 3, 5 ...), each of one kind: 0/1 scores (some all
    zero, some all one, some identical systems), continuous scores with ties and zeros, or 0/1
    systems beside a continuous one (binary and non-binary pairs in one group)."""
    rng = np.random.default_rng(seed)
    rows = []
    for d, n in enumerate(sizes * 6):
        kind = d % 6
        base = (rng.random(n) < 0.5).astype(float)
        for s in range(k):
            if kind == 0:  # 0/1, independent
                v = (rng.random(n) < 0.5).astype(float)
            elif kind == 1:  # 0/1, identical systems: every pair all-equal
                v = base
            elif kind == 2:  # all zero but the last system (b = c = 0 for some pairs)
                v = np.zeros(n) if s < k - 1 else np.ones(n)
            elif kind == 3:  # continuous with ties and zeros
                v = rng.choice([0.0, 0.0, 0.25, 0.5], size=n)
            elif kind == 4:  # a constant difference (degenerate t) and identical systems
                v = base + (0.5 if s == 0 else 0.0) + (0.25 if s == 2 else 0.0)
            else:  # 0/1 systems and a continuous one
                v = base if s == 0 else (rng.random(n) < 0.5).astype(float) if s == 1 \
                    else rng.normal(0.5, 0.2, n).round(2)
            rows += [(f"d{d}", f"S{s}", f"q{i}", float(v[i])) for i in range(n)]
    return pd.DataFrame(rows, columns=["dataset", "system", "item", "value"])


def _both(df: pd.DataFrame, monkeypatch: pytest.MonkeyPatch, **kwargs: object
          ) -> tuple[rg.Comparison, rg.Comparison]:
    """compare through the array path (asserted taken) and group by group."""
    fast = rg.compare(df, **kwargs)
    monkeypatch.setattr(COMPARE, "_uniform_paired_t", lambda *a, **k: None)
    slow = rg.compare(df, **kwargs)
    monkeypatch.undo()
    return fast, slow


def _assert_same(fast: rg.Comparison, slow: rg.Comparison) -> None:
    pd.testing.assert_frame_equal(fast.table, slow.table, check_exact=True)
    pd.testing.assert_frame_equal(fast.means, slow.means, check_exact=True)
    assert fast.tests_used == slow.tests_used


@pytest.mark.parametrize("kwargs", [
    {}, {"alternative": "greater"}, {"alternative": "less", "level": 0.9},
    {"test": "paired-t"}, {"pairs": "baseline", "baseline": "S2", "correction": "holm"},
    {"pairs": "successive"}, {"systems": ["S2", "S0", "S1"], "family": "all"},
])
def test_array_path_equals_group_by_group_on_hostile_shapes(
        kwargs: dict, monkeypatch: pytest.MonkeyPatch) -> None:
    df = _hostile(1)
    test = str(kwargs.get("test", "auto"))
    alternative = str(kwargs.get("alternative", "two-sided"))
    level = float(kwargs.get("level", 0.95))  # type: ignore[arg-type]
    taken = _uniform_paired_t(rg.Scores(df), None, "all", None, alternative, level, test)
    assert taken is not None  # the array path covers this table
    fast, slow = _both(df, monkeypatch, **kwargs)
    _assert_same(fast, slow)
    tests = set(fast.table["test"])
    assert tests == ({"paired-t"} if test == "paired-t" else {"paired-t", "mcnemar"})
    assert set(fast.table["effect_size_name"]) == {"cohens_dz", "cohens_h"}
    mc = fast.table[fast.table["test"] == "mcnemar"]
    assert (mc["ci_method"] == "Tango score").all()
    assert ((mc["ci_low"] >= -1.0) | np.isneginf(mc["ci_low"])).all()
    assert ((mc["ci_high"] <= 1.0) | np.isposinf(mc["ci_high"])).all()


def test_all_binary_groups_are_mcnemar_and_equal_group_by_group(
        monkeypatch: pytest.MonkeyPatch) -> None:
    rng = np.random.default_rng(2)
    rows = [(f"d{d}", s, f"q{i}", float(rng.random() < 0.6)) for d in range(150)
            for s in ("A", "B") for i in range(2 + d % 3)]
    df = pd.DataFrame(rows, columns=["dataset", "system", "item", "value"])
    for alternative in ("two-sided", "greater"):
        for test in ("auto", "mcnemar"):
            fast, slow = _both(df, monkeypatch, test=test, alternative=alternative)
            _assert_same(fast, slow)
            assert fast.tests_used == ("mcnemar",)
            assert len(fast.table) == 150
    assert _uniform_paired_t(rg.Scores(_hostile(2)), None, "all", None, "two-sided", 0.95,
                             "mcnemar") is None  # non-binary pairs: the group path's error


def _outcome(df: pd.DataFrame, monkeypatch: pytest.MonkeyPatch, grouped: bool, **kwargs: object
             ) -> tuple[pd.DataFrame | str, list[str]]:
    """compare's table or error message, and its warnings, on one path."""
    if grouped:
        monkeypatch.setattr(COMPARE, "_uniform_paired_t", lambda *a, **k: None)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            out: pd.DataFrame | str = rg.compare(df, **kwargs).table
        except rg.RangerError as exc:
            out = str(exc)
    monkeypatch.undo()
    return out, sorted(str(w.message) for w in caught)


@pytest.mark.parametrize("case", ["n=1 binary", "n=1 continuous", "NaN", "missing item"])
def test_shapes_the_array_path_leaves_to_the_group_path_agree(
        case: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """n = 1 (McNemar is defined, the paired t is refused), a NaN score and a missing item: the
    array path declines, and compare's answer (table, error, warnings) is the group path's."""
    df = _hostile(3, sizes=(1, 3))
    kwargs: dict[str, object] = {}
    if case == "n=1 binary":
        df = df[df.dataset.isin(["d0", "d1", "d2", "d6", "d7", "d8"])]
    elif case == "n=1 continuous":
        df = df[df.dataset.isin(["d4"])]
    elif case == "NaN":
        df = _hostile(4)
        df.loc[5, "value"] = np.nan
        kwargs = {"missing": "intersect"}
    else:
        df = _hostile(4).drop(index=[7])
        kwargs = {"missing": "intersect"}
    fast = _outcome(df, monkeypatch, False, **kwargs)
    slow = _outcome(df, monkeypatch, True, **kwargs)
    if isinstance(fast[0], pd.DataFrame):
        assert isinstance(slow[0], pd.DataFrame)
        pd.testing.assert_frame_equal(fast[0], slow[0], check_exact=True)
    else:
        assert fast[0] == slow[0]
    assert fast[1] == slow[1]
    if case == "n=1 binary":
        assert isinstance(fast[0], pd.DataFrame) and set(fast[0]["test"]) == {"mcnemar"}
    if case == "n=1 continuous":
        assert isinstance(fast[0], str) and "at least 2" in fast[0]


def test_few_large_groups_take_the_grouped_engine_with_the_same_numbers(
        monkeypatch: pytest.MonkeyPatch) -> None:
    rng = np.random.default_rng(5)
    n, k = 700, 3
    rows = [(f"d{d}", f"S{s}", f"q{i:04d}", v) for d in range(2) for s in range(k)
            for i, v in enumerate(rng.normal(0.5 + 0.01 * s, 0.2, n).round(3))]
    df = pd.DataFrame(rows, columns=["dataset", "system", "item", "value"])
    table = scores_table(rg.Scores(df))
    assert prefer_grouped(block_layout(table), len(table))
    chosen = rg.compare(df)  # grouped engine
    monkeypatch.setattr(COMPARE, "prefer_grouped", lambda *a: False)
    forced = rg.compare(df)  # the array path
    _assert_same(chosen, forced)
    small = _hostile(6)
    table = scores_table(rg.Scores(small))
    assert not prefer_grouped(block_layout(table), len(table))


@pytest.mark.parametrize("alternative", ["two-sided", "greater", "less"])
def test_mcnemar_from_counts_equals_the_matrix_kernel_row_by_row(alternative: str) -> None:
    rng = np.random.default_rng(7)
    x = (rng.random((60, 5)) < 0.5).astype(float)
    y = np.where(rng.random((60, 5)) < 0.3, 1.0 - x, x)
    y[:5] = x[:5]  # b = c = 0
    whole = mcnemar_many(x, y, alternative=alternative)
    b = np.count_nonzero((x == 1) & (y == 0), axis=1)
    c = np.count_nonzero((x == 0) & (y == 1), axis=1)
    counts = mcnemar_counts_many(b, c, 5, alternative=alternative)
    for j in range(60):
        one = stats.mcnemar(x[j], y[j], alternative=alternative, exact=True)
        assert whole.pvalue[j] == counts.pvalue[j] == one.pvalue
        assert whole.statistic[j] == counts.statistic[j] == one.statistic


@pytest.mark.parametrize("alternative", ["two-sided", "greater", "less"])
def test_tango_per_distinct_counts_equals_one_call_per_row(alternative: str) -> None:
    rng = np.random.default_rng(8)
    n = rng.integers(1, 6, 20)
    b = rng.integers(0, n + 1)
    c = rng.integers(0, n - b + 1)
    lo, hi = tango_rows(b, c, n, level=0.9, alternative=alternative)
    for j in range(20):
        lo1, hi1 = stats.tango_interval(int(b[j]), int(c[j]), int(n[j]), level=0.9,
                                        alternative=alternative)
        assert (lo[j], hi[j]) == (lo1[0], hi1[0])


def test_cohens_h_of_means_equals_the_scalar_function() -> None:
    rng = np.random.default_rng(9)
    pa, pb = rng.integers(0, 8, 50) / 7, rng.integers(0, 5, 50) / 4
    h = cohens_h_of_means(pa, pb)
    assert [float(v) for v in h] == [stats.cohens_h(a, b) for a, b in zip(pa, pb, strict=True)]


@pytest.mark.parametrize("alternative", ["two-sided", "less"])
def test_two_proportion_rows_of_all_groups_equal_each_pair_alone(alternative: str) -> None:
    """Disjoint items (unpaired 0/1 pairs → the two-proportion z test with the Wald interval):
    the rows of every group, tested in one call, equal the one-pair test of each pair."""
    rng = np.random.default_rng(10)
    rows = []
    for d in range(12):
        for s, sys_name in enumerate(("A", "B", "C")):
            n = 1 + (d + s) % 4  # unequal sizes, n = 1 included
            v = (rng.random(n) < 0.5).astype(float) if d % 3 else np.full(n, float(s % 2))
            rows += [(f"d{d}", sys_name, f"{sys_name}{i}", float(v[i])) for i in range(n)]
    df = pd.DataFrame(rows, columns=["dataset", "system", "item", "value"])
    comp = rg.compare(df, alternative=alternative, correction="none")
    assert set(comp.table["test"]) == {"proportions-z"}
    for row in comp.table.itertuples():
        sub = df[df.dataset == row.dataset]
        x = sub[sub.system == row.system_a]["value"].to_numpy()
        y = sub[sub.system == row.system_b]["value"].to_numpy()
        one = stats.proportions_ztest([x.sum(), y.sum()], [x.size, y.size],
                                      alternative=alternative)
        lo, hi = wald_interval_many([x.sum()], [x.size], [y.sum()], [y.size],
                                    alternative=alternative, level=0.95)
        assert (row.statistic, row.pvalue) == (one.statistic, one.pvalue)
        assert (row.ci_low, row.ci_high) == (lo[0], hi[0])


def _clustered(seed: int) -> pd.DataFrame:
    """Hostile clustered scores: datasets of unequal sizes with two metrics, cluster ids that
    are numbers in one dataset and strings elsewhere, a dataset whose clusters hold one item
    each (not clustered), one item missing for one system, 0/1 and continuous metrics."""
    rng = np.random.default_rng(seed)
    rows = []
    for d in range(9):
        n = 3 + d % 4
        for metric in ("acc", "f1"):
            for s in ("A", "B", "C"):
                for i in range(n):
                    if d == 4 and s == "C" and i == 0:
                        continue  # an item one system lacks
                    cl: object = i if d == 6 else f"p{i // (1 if d == 3 else 2)}"
                    v = float(rng.random() < 0.5) if metric == "acc" else round(
                        float(rng.normal(0.5, 0.2)), 2)
                    rows.append((f"d{d}", metric, s, f"q{(i * 7) % n}", cl, v))
    return pd.DataFrame(rows, columns=["dataset", "metric", "system", "item", "cluster",
                                       "value"])


def test_clusters_of_all_groups_at_once_equal_each_group_alone() -> None:
    from ranger_eval.comparison.clustered import group_clusters, groups_clusters
    from ranger_eval.pairing import align_groups

    scores = rg.Scores(_clustered(7))
    groups = align_groups(scores, None)
    together = groups_clusters(scores, groups)
    assert len(together) == len(groups)
    seen_none = seen_clustered = False
    for group, gc in zip(groups, together, strict=True):
        alone = group_clusters(scores, group)
        if alone is None:
            assert gc is None
            seen_none = True
            continue
        assert gc is not None and gc.n_clusters == alone.n_clusters
        assert gc.codes.dtype == alone.codes.dtype
        np.testing.assert_array_equal(gc.codes, alone.codes)
        seen_clustered = True
    assert seen_none and seen_clustered


@pytest.mark.parametrize("kwargs", [{}, {"cluster_se": "CR1", "alternative": "less"},
                                    {"test": "paired-t", "alternative": "greater"}])
def test_clustered_compare_equals_its_group_by_group_path(
        kwargs: dict, monkeypatch: pytest.MonkeyPatch) -> None:
    from ranger_eval.comparison import clustered as cl_mod

    df = _clustered(8)
    kwargs = {"missing": "intersect", **kwargs}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fast = rg.compare(df, **kwargs)
        monkeypatch.setattr(COMPARE, "groups_clusters", lambda scores, groups: [
            cl_mod.group_clusters(scores, g) for g in groups])
        slow = rg.compare(df, **kwargs)
    monkeypatch.undo()
    _assert_same(fast, slow)
    assert fast.table["n_clusters"].notna().any() and fast.table["n_clusters"].isna().any()


@pytest.mark.parametrize("kwargs", [
    {}, {"cluster_se": "CR1", "alternative": "greater"}, {"test": "mcnemar", "metric": "acc"},
    {"metric": "acc", "alternative": "less"}, {"metric": "acc", "alternative": "greater"},
    {"test": "permutation", "n_resamples": 200, "seed": 1},
    {"test": "bootstrap", "n_resamples": 200, "seed": 2, "level": 0.9},
])
def test_clustered_t_of_all_groups_equals_each_dataset_alone(kwargs: dict) -> None:
    """The clustered paired t tests and the clustered (asymptotic χ²) McNemar tests of every
    group run as one call per vector of cluster sizes (ClusteredT): each row equals compare on
    its dataset alone, bit for bit, beside the permutation and bootstrap rows that borrow (or
    replace) the t interval."""
    df = _clustered(9)
    kwargs = {"missing": "intersect", **kwargs}
    metric = kwargs.pop("metric", None)
    if metric is not None:
        df = df[df.metric == metric]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        together = rg.compare(df, **kwargs).table
        keep = [c for c in together.columns if c not in ("pvalue_adjusted", "significant")]
        together = together[keep].reset_index(drop=True)
        alone = pd.concat([rg.compare(df[df.dataset == d], **kwargs).table[keep]
                           for d in df.dataset.unique()], ignore_index=True)
    pd.testing.assert_frame_equal(together, alone, check_exact=True)
    assert together["n_clusters"].notna().sum() >= 6
    if metric is not None and kwargs.get("test", "auto") in ("auto", "mcnemar"):
        assert set(together["test"]) == {"mcnemar"}


def _pair_by_pair_sign(self, shared, sub, intervals, alternative, level):  # type: ignore[no-untyped-def]
    """The sign tests of one shape pair by pair (the path before the all-groups queue)."""
    from ranger_eval.comparison.dispatch import _classical, _context

    for i in sub:
        with _context(self.group, [self.data[i]]):
            self.out[i] = _classical("sign", self.data[i], alternative, level, intervals.get(i))


def _sign_hostile(seed: int) -> pd.DataFrame:
    """_hostile plus datasets the sign test must rescale: a score beyond 2^1000, a difference
    beyond 2^100 beside a tiny one (flushed to zero by the rescaling), subnormal scores."""
    df = _hostile(seed)
    rows = []
    for d, vals in enumerate([
        [[1e305, 1e-300, 0.0], [-1e305, 0.0, 1e-300], [1e305, 0.0, 0.0]],
        [[2.0 ** 200, 1e-300, 0.5], [0.0, 0.0, 0.5], [1.0, 1e-300, 0.25]],
        [[5e-324, 0.0, 1e-310], [0.0, 5e-324, 1e-310], [5e-324, 5e-324, 0.0]],
    ]):
        for s, v in enumerate(vals):
            rows += [(f"x{d}", f"S{s}", f"q{i}", float(v[i])) for i in range(3)]
    return pd.concat([df, pd.DataFrame(rows, columns=df.columns)], ignore_index=True)


@pytest.mark.parametrize("kwargs", [
    {}, {"alternative": "greater"}, {"alternative": "less", "level": 0.9},
    {"pairs": "baseline", "baseline": "S2", "correction": "holm"},
])
def test_sign_tests_of_all_groups_equal_pair_by_pair(
        kwargs: dict, monkeypatch: pytest.MonkeyPatch) -> None:
    """test='sign': the counts of each shape as row operations and one binomtest per distinct
    (positive, nonzero) count pair of all groups give the pair-by-pair numbers bit for bit, on
    ties, zeros, all-equal pairs, n = 2-5, unequal sizes, huge, tiny and subnormal scores."""
    from ranger_eval.comparison import engine

    df = _sign_hostile(11)
    fast = rg.compare(df, test="sign", **kwargs)
    monkeypatch.setattr(engine._GroupWork, "_sign", _pair_by_pair_sign)
    slow = rg.compare(df, test="sign", **kwargs)
    monkeypatch.undo()
    _assert_same(fast, slow)
    assert set(fast.table["test"]) == {"sign"}
    assert len(fast.table) == 33 * (2 if "baseline" in kwargs else 3)
    assert (fast.table["pvalue"] == 1.0).any() and (fast.table["pvalue"] < 1.0).any()


@pytest.mark.parametrize("case", ["n=1", "NaN"])
def test_sign_shapes_left_to_the_pair_path_agree(
        case: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """n = 1 (refused) and a NaN score: the same table or error on both paths."""
    from ranger_eval.comparison import engine

    df = _hostile(12, sizes=(1, 3)) if case == "n=1" else _hostile(13)
    kwargs: dict[str, object] = {"test": "sign"}
    if case == "NaN":
        df.loc[5, "value"] = np.nan
        kwargs["missing"] = "intersect"
    fast = _outcome(df, monkeypatch, False, **kwargs)
    monkeypatch.setattr(engine._GroupWork, "_sign", _pair_by_pair_sign)
    slow = _outcome(df, monkeypatch, False, **kwargs)
    if isinstance(fast[0], pd.DataFrame):
        assert isinstance(slow[0], pd.DataFrame)
        pd.testing.assert_frame_equal(fast[0], slow[0], check_exact=True)
    else:
        assert fast[0] == slow[0]
    assert fast[1] == slow[1]


@pytest.mark.parametrize("kwargs", [
    {}, {"alternative": "greater"}, {"alternative": "less", "level": 0.9},
    {"pairs": "baseline", "baseline": "S1", "correction": "holm"},
])
@pytest.mark.parametrize("paired", [False, True])
def test_welch_tests_of_all_groups_equal_each_group_alone(
        kwargs: dict, paired: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    """test='welch': one welch_ttest_many call per shape over every group's pairs gives each
    group's own call bit for bit, on ties, zeros, constant systems, n = 2-5, unequal system
    sizes (disjoint items), and huge, tiny and subnormal scores (those stay with their group)."""
    from ranger_eval.comparison import engine

    df = _sign_hostile(14)
    if not paired:  # disjoint items; the last system of three datasets of 5 loses one
        df["item"] = df["system"] + df["item"]
        df = df[~((df.system == "S2") & (df.item == "S2q0") & df.dataset.isin(["d3", "d8", "d13"]))]
    fast = rg.compare(df, test="welch", **kwargs)
    monkeypatch.setattr(engine._GroupWork, "_queue_welch", lambda self, shared, sub: sub)
    slow = rg.compare(df, test="welch", **kwargs)
    monkeypatch.undo()
    _assert_same(fast, slow)
    assert set(fast.table["test"]) == {"welch"}
    assert np.isfinite(fast.table["pvalue"]).all() and (fast.table["pvalue"] < 1.0).any()


def _mwu_hostile(seed: int) -> pd.DataFrame:
    """_sign_hostile plus datasets of 9-12 items per system (scipy's normal approximation with
    tie correction: the array path) with ties, all-equal systems and NaN-free extremes."""
    df = _sign_hostile(seed)
    rng = np.random.default_rng(seed)
    rows = []
    for d, n in enumerate((9, 12, 10, 11, 9, 12)):
        for s in range(3):
            v = (rng.normal(0.5, 0.2, n).round(1) if d % 3 else
                 np.full(n, 0.5) if d == 0 else rng.normal(s * 0.1, 1, n))
            rows += [(f"m{d}", f"S{s}", f"q{i}", float(v[i])) for i in range(n)]
    return pd.concat([df, pd.DataFrame(rows, columns=df.columns)], ignore_index=True)


@pytest.mark.parametrize("kwargs", [
    {}, {"alternative": "greater"}, {"alternative": "less", "level": 0.9},
    {"pairs": "baseline", "baseline": "S1", "correction": "holm"},
])
@pytest.mark.parametrize("paired", [False, True])
def test_mannwhitney_of_all_groups_equal_pair_by_pair(
        kwargs: dict, paired: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    """test='mannwhitney': one mannwhitney_many call per shape over every group's pairs gives
    the pair-by-pair numbers bit for bit: ties, all-equal pairs, n = 2-12, unequal system
    sizes (disjoint items), huge, tiny and subnormal scores, paired and unpaired intervals."""
    from ranger_eval.comparison import engine

    df = _mwu_hostile(15)
    if not paired:
        df["item"] = df["system"] + df["item"]
        df = df[~((df.system == "S2") & (df.item == "S2q0") & df.dataset.isin(["d3", "m1"]))]
    fast = rg.compare(df, test="mannwhitney", **kwargs)
    monkeypatch.setattr(engine._GroupWork, "_queue_mannwhitney",
                        lambda self, shared, sub, intervals: sub)
    slow = rg.compare(df, test="mannwhitney", **kwargs)
    monkeypatch.undo()
    _assert_same(fast, slow)
    assert (fast.table["pvalue"] == 1.0).any() and (fast.table["pvalue"] < 0.5).any()


@pytest.mark.parametrize("alternative", ["two-sided", "greater", "less"])
def test_mannwhitney_many_equals_mannwhitney_row_by_row(alternative: str) -> None:
    """Hostile shapes: n = 1-3 (scipy's exact branch), 8/9 (the switch), unequal sizes, ties,
    0/1 scores, all values equal, one value apart."""
    from ranger_eval.stats.many_rank import mannwhitney_many

    rng = np.random.default_rng(3)
    for nx, ny in [(1, 2), (2, 1), (3, 3), (8, 9), (9, 9), (9, 30), (40, 12)]:
        for kind in range(4):
            x, y = rng.normal(size=(5, nx)), rng.normal(0.3, 1, (5, ny))
            if kind == 1:
                x, y = x.round(), y.round()
            elif kind == 2:
                x[:], y[:] = 1.0, 1.0
                x[0, 0] = 2.0
            elif kind == 3:
                x, y = (x > 0).astype(float), (y > 0.3).astype(float)
            r = mannwhitney_many(x, y, alternative=alternative)
            for i in range(5):
                one = stats.mannwhitney(x[i], y[i], alternative=alternative)
                assert (r.statistic[i], r.pvalue[i], r.estimate[i]) == (
                    one.statistic, one.pvalue, one.estimate), (nx, ny, kind, i)


def _clustered_ranks(seed: int) -> pd.DataFrame:
    """Hostile clustered scores for the signed-rank test: unequal dataset sizes (7–21 items),
    clusters of 1–3 items (equal sizes in some datasets, unequal in others), tied and zero
    differences, identical systems (every difference zero), a constant shift (every signed rank
    equal), items one system lacks (pairs on fewer items than their group; a NaN score is
    refused by Scores, and by both signed-rank functions: see the rows test below)."""
    rng = np.random.default_rng(seed)
    rows = []
    for d in range(12):
        n = 7 + (d * 5) % 15
        sizes = [2] * (n // 2) + [1] * (n % 2) if d % 3 == 0 else \
            list(rng.integers(1, 4, size=n))
        cl = np.repeat(np.arange(len(sizes)), sizes)[:n]
        base = rng.choice([0.0, 0.25, 0.5, 0.75, 1.0], size=n)
        for s in ("A", "B", "C", "D"):
            if s == "A":
                v = base
            elif s == "B":  # ties and zeros against A
                v = np.where(rng.random(n) < 0.4, base, rng.choice([0.0, 0.5, 1.0], size=n))
            elif s == "C":  # A shifted: every signed rank of A vs C equal
                v = base + 0.125
            else:  # identical to A in even datasets (all differences zero), else continuous
                v = base.copy() if d % 2 == 0 else rng.normal(0.5, 0.3, n).round(1)
            for i in range(n):
                if (d == 5 and s == "B" and i == 2) or (d == 7 and s == "D" and i == 0):
                    continue  # an item one system lacks
                rows.append((f"d{d}", s, f"q{i}", f"c{cl[i]}", float(v[i])))
    return pd.DataFrame(rows, columns=["dataset", "system", "item", "cluster", "value"])


@pytest.mark.parametrize("kwargs", [{}, {"alternative": "greater"},
                                    {"alternative": "less", "cluster_se": "CR1"}])
def test_clustered_signed_rank_of_all_groups_equals_pair_by_pair(
        kwargs: dict, monkeypatch: pytest.MonkeyPatch) -> None:
    """The clustered Wilcoxon (Rosner–Glynn–Lee) rows of every group run as one rows call per
    number of items: the table equals the pair-by-pair path bit for bit on hostile shapes."""
    from ranger_eval.comparison import clustered as cl_mod
    from ranger_eval.comparison.clustered import ClusteredT

    def one_pair(*args: object, **kw: object) -> None:
        raise AssertionError("the vectorised path called the one-pair function")

    df = _clustered_ranks(5)
    kwargs = {"test": "wilcoxon", "missing": "intersect", **kwargs}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        monkeypatch.setattr(cl_mod, "clustered_signed_rank", one_pair)
        fast = rg.compare(df, **kwargs)
        monkeypatch.undo()
        monkeypatch.setattr(ClusteredT, "vectorise_signed_rank", False)
        slow = rg.compare(df, **kwargs)
    monkeypatch.undo()
    _assert_same(fast, slow)
    t = fast.table
    assert (t["statistic"] == 0.0).any() and (t["pvalue"] == 1.0).any()  # all-zero pairs
    assert t["n_clusters"].notna().all() and len(t) == 12 * 6


def test_clustered_signed_rank_one_cluster_left_is_the_same_error(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A pair whose non-zero differences all lie in one cluster: both paths raise the one-pair
    function's error naming the pair."""
    from ranger_eval.comparison.clustered import ClusteredT

    df = _clustered_ranks(4)
    one = (df.dataset == "d1") & (df.system == "B")
    a = df[(df.dataset == "d1") & (df.system == "A")]["value"].to_numpy()
    df.loc[one, "value"] = a + np.where(df.loc[one, "cluster"] == "c0", 0.5, 0.0)
    messages = []
    for vectorise in (True, False):
        monkeypatch.setattr(ClusteredT, "vectorise_signed_rank", vectorise)
        with warnings.catch_warnings(), pytest.raises(rg.RangerError) as err:
            warnings.simplefilter("ignore")
            rg.compare(df, test="wilcoxon", missing="intersect")
        messages.append(str(err.value))
    assert messages[0] == messages[1] and "at least 2 clusters" in messages[0]


def test_clustered_signed_rank_rows_equal_the_one_pair_function() -> None:
    """stats.clustered_rank: each row of random hostile matrices (ties, zeros, 0/1, a constant
    difference, extreme magnitudes that are rescaled, 1–n clusters, n = 2–30) equals
    clustered_signed_rank of that row bit for bit, or raises its error."""
    from ranger_eval.stats.clustered import clustered_signed_rank
    from ranger_eval.stats.clustered_rank import (
        clustered_signed_rank_rows,
        scaled_difference_rows,
    )

    rng = np.random.default_rng(5)
    compared = refused = 0
    for trial in range(100):
        n, r = int(rng.integers(2, 31)), int(rng.integers(1, 5))
        kind = trial % 5
        if kind == 0:
            x, y = rng.choice([0.0, 0.25, 0.5], (r, n)), rng.choice([0.0, 0.25, 0.5], (r, n))
        elif kind == 1:
            x = rng.normal(size=(r, n))
            y = x + rng.choice([0.0, 0.0, 1e-3, -1e-3, 0.5], (r, n))
        elif kind == 2:
            x, y = (rng.random((r, n)) < 0.5) * 1.0, (rng.random((r, n)) < 0.5) * 1.0
        elif kind == 3:
            x, y = rng.normal(size=(r, n)) * 1e200, rng.normal(size=(r, n)) * 1e-300
        else:
            x, y = np.ones((r, n)), np.ones((r, n))
            y[:, :2] = 0.0
        codes = rng.integers(0, int(rng.integers(1, n + 1)), (r, n))
        alt = ("two-sided", "greater", "less")[trial % 3]
        ref, why = [], None
        for k in range(r):
            try:
                ref.append(clustered_signed_rank(x[k], y[k], clusters=codes[k],
                                                 alternative=alt))
            except stats.StatsInputError as exc:
                why = why or str(exc)
        if why is not None:
            with pytest.raises(stats.StatsInputError) as err:
                clustered_signed_rank_rows(scaled_difference_rows(x, y), codes, alternative=alt)
            assert str(err.value) == why
            refused += 1
            continue
        got = clustered_signed_rank_rows(scaled_difference_rows(x, y), codes, alternative=alt)
        assert got.statistic.tolist() == [v.statistic for v in ref]
        assert got.pvalue.tolist() == [v.pvalue for v in ref]
        assert got.n_clusters.tolist() == [v.n_clusters for v in ref]
        compared += r
    assert compared > 80 and refused > 5
    nan = np.array([[0.1, np.nan, 0.3]])
    with pytest.raises(stats.StatsInputError, match="NaN"):
        clustered_signed_rank(nan[0], np.zeros(3), clusters=[0, 0, 1])
    with pytest.raises(stats.StatsInputError, match="NaN"):
        clustered_signed_rank_rows(nan, np.array([0, 0, 1]))
    with pytest.raises(stats.StatsInputError, match="at least 2 pairs"):
        clustered_signed_rank_rows(np.array([[0.5]]), np.array([0]))  # n = 1, as one pair
