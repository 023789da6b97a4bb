"""rg.win_rate: HELM's mean win rate (oracle: tests/oracles/win_rate_oracle.py) and its bootstrap."""
from __future__ import annotations

import json
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ranger_eval as rg
from ranger_eval.aggregate import winrate
from ranger_eval.aggregate.winrate import dataset_win_rates
from ranger_eval.errors import AggregateError

ORACLE = json.loads((Path(__file__).parents[1] / "oracles" / "win_rate_oracle.json").read_text())


def _wide(cells: list[list[float | None]]) -> pd.DataFrame:
    x = np.array([[np.nan if v is None else v for v in row] for row in cells], dtype=float)
    return pd.DataFrame(x, index=[f"d{i}" for i in range(x.shape[0])],
                        columns=[f"s{j}" for j in range(x.shape[1])])


@pytest.mark.parametrize("fx", ORACLE["fixtures"], ids=lambda f: f["name"])
def test_equals_helm(fx: dict) -> None:
    table = _wide(fx["table"])
    if all(v is None for v in fx["helm"]):  # HELM: all None; Ranger: an error saying why
        with pytest.raises(AggregateError, match="no dataset has scores of two systems"):
            rg.win_rate(table, higher_is_better=fx["higher_is_better"], n_resamples=0)
        return
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # skipped datasets are announced
        res = rg.win_rate(table, higher_is_better=fx["higher_is_better"], n_resamples=0)
    got = res.win_rate.reindex(table.columns).to_numpy()
    want = np.array([np.nan if v is None else v for v in fx["helm"]], dtype=float)
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
    ok = ~np.isnan(want)
    np.testing.assert_allclose(got[ok], want[ok], rtol=1e-12, atol=0)
    assert res.n_missing == int(table.isna().to_numpy().sum())


def test_missing_cells_warn_and_are_counted() -> None:
    t = pd.DataFrame({"A": [0.9, 0.8, np.nan], "B": [0.7, 0.8, np.nan], "C": [0.1, np.nan, 0.3]},
                     index=["x", "y", "z"])
    with pytest.warns(UserWarning, match=r"1 dataset\(s\) with fewer than two scores skipped.*'z'"):
        res = rg.win_rate(t, n_resamples=0)
    assert res.skipped == ("z",)
    assert res.n_missing == 3
    # x: A beats B, C; B beats C; y: A and B tie, C missing
    assert res.win_rate.to_dict() == pytest.approx({"A": (1.0 + 0.5) / 2, "B": (0.5 + 0.5) / 2,
                                                    "C": 0.0})
    assert res.n_datasets.to_dict() == {"A": 2, "B": 2, "C": 1}
    frame = res.to_frame()
    assert list(frame.columns) == ["system", "win_rate", "ci_low", "ci_high", "n_datasets"]
    assert list(frame["system"]) == ["A", "B", "C"] and frame["ci_low"].isna().all()


def test_system_with_no_comparable_score_is_named() -> None:
    t = pd.DataFrame({"A": [0.9, 0.8, np.nan], "B": [0.7, 0.6, np.nan], "C": [np.nan, np.nan, 0.3]},
                     index=["x", "y", "z"])
    with pytest.warns(UserWarning, match=r"no win rate.*'C'"), \
            pytest.warns(UserWarning, match=r"skipped \(as HELM\): 'z'"):
        res = rg.win_rate(t, n_resamples=10)
    assert np.isnan(res.win_rate["C"]) and list(res.win_rate.index)[-1] == "C"
    assert res.n_invalid_replicates["C"] == 10


def test_dataset_bootstrap_equals_a_plain_loop() -> None:
    """Same draws: the multinomial counts over the distinct win-rate vectors, spelled out as a
    list of datasets drawn, give the mean win rates of those datasets (np.nanmean)."""
    rng = np.random.default_rng(3)
    t = pd.DataFrame(np.round(rng.normal(size=(9, 4)), 1), columns=list("ABCD"))
    t.iloc[2, 1] = np.nan
    res = rg.win_rate(t, n_resamples=200, seed=7, level=0.9)
    per = dataset_win_rates(t.to_numpy())
    vec, mass, large = winrate._outcome_mixture(per, None, 200, True)
    assert large.size == 0 and mass.sum() == 9
    counts = np.random.default_rng(7).multinomial(np.full(200, 9), mass / mass.sum())
    # each distinct vector is the win-rate row of some dataset: draw that dataset counts times
    where = [int(np.flatnonzero([np.array_equal(r, v, equal_nan=True) for r in per])[0])
             for v in vec]
    reps = np.array([np.nanmean(per[np.repeat(where, c)], axis=0) for c in counts])
    lo, hi = np.quantile(reps, [0.05, 0.95], axis=0)
    np.testing.assert_allclose(res.ci_low.reindex(list("ABCD")), lo, rtol=1e-12)
    np.testing.assert_allclose(res.ci_high.reindex(list("ABCD")), hi, rtol=1e-12)
    assert res.resample == "datasets"
    fields = res.signature.fields
    assert fields["kind"] == "win_rate" and fields["resample"] == "datasets"
    assert fields["seed"] == "7" and fields["n_resamples"] == "200" and fields["level"] == "0.9"


def _direct_bootstrap(per: np.ndarray, items: list[np.ndarray] | None, b: int,
                      seed: int) -> np.ndarray:
    """The bootstrap as defined (and as win_rate drew it before the mixture): N datasets drawn
    one by one, each drawn copy with its own item resample."""
    rng = np.random.default_rng(seed)
    n, k = per.shape
    reps = np.full((b, k), np.nan)
    for r in range(b):
        rows = []
        for d in rng.integers(0, n, size=n):
            if items is None:
                rows.append(per[d])
                continue
            x = items[d][rng.integers(0, items[d].shape[0], size=items[d].shape[0])]
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", RuntimeWarning)
                rows.append(dataset_win_rates(np.nanmean(x, axis=0)))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            reps[r] = np.nanmean(np.array(rows), axis=0)
    return reps


def _item_table(rng: np.random.Generator, sizes: list[int], k: int,
                holes: float = 0.1) -> tuple[pd.DataFrame, list[np.ndarray]]:
    rows, mats = [], []
    for d, m in enumerate(sizes):
        # multiples of 1/8: sums in any order are exact, so ties do not depend on the order
        x = np.round((rng.random((m, k)) + np.linspace(0, 0.3, k)) * 8) / 8
        x[rng.random((m, k)) < holes] = np.nan
        mats.append(x)
        for i in range(m):
            for j in range(k):
                if np.isfinite(x[i, j]):
                    rows.append((f"d{d}", f"s{j}", f"q{i}", x[i, j]))
    return pd.DataFrame(rows, columns=["dataset", "system", "item", "value"]), mats


def _ks(a: np.ndarray, b: np.ndarray) -> float:
    a, b = np.sort(a[np.isfinite(a)]), np.sort(b[np.isfinite(b)])
    grid = np.union1d(a, b)
    return float(np.max(np.abs(np.searchsorted(a, grid, side="right") / a.size
                               - np.searchsorted(b, grid, side="right") / b.size)))


def test_mixture_is_the_two_stage_bootstrap_exactly() -> None:
    """F̄ (module docstring) equals the distribution of one drawn copy under the direct
    two-stage bootstrap, enumerated: every dataset (1/N), every ordered item draw (1/m^m)."""
    import itertools

    rng = np.random.default_rng(11)
    df, mats = _item_table(rng, [2, 3, 3, 1, 4], 3, holes=0.2)
    df = df[df["dataset"] != "d1"].reset_index(drop=True)  # keep a dataset-free gap
    mats = [m for i, m in enumerate(mats) if i != 1]
    vals, datasets, systems, items = winrate._cells(df["dataset"], df["system"], df["item"],
                                                    df["value"].to_numpy())
    per = dataset_win_rates(vals)
    vec, mass, large = winrate._outcome_mixture(per, items, 1000, True)
    assert large.size == 0
    want: dict[tuple, float] = {}
    for d in range(len(datasets)):
        x = items.x[items.start[d]:items.start[d + 1]]
        m = x.shape[0]
        for draw in itertools.product(range(m), repeat=m):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", RuntimeWarning)
                w = dataset_win_rates(np.nanmean(x[list(draw)], axis=0))
            key = tuple(np.where(np.isfinite(w), w, -1.0).round(12))
            want[key] = want.get(key, 0.0) + 1.0 / (len(datasets) * m ** m)
    got = {tuple(np.where(np.isfinite(v), v, -1.0).round(12)): w / len(datasets)
           for v, w in zip(vec, mass, strict=True)}
    assert got.keys() == want.keys()
    for key, p in want.items():
        assert got[key] == pytest.approx(p, rel=1e-12, abs=0)


@pytest.mark.slow
@pytest.mark.parametrize("case", ["datasets", "items", "large", "marginal"])
def test_bootstrap_has_the_direct_distribution(case: str, monkeypatch) -> None:
    """Same distribution as the direct bootstrap (datasets, then items, one by one): two-sample
    Kolmogorov–Smirnov distance of every system's 2,000 + 2,000 replicates below its 0.1 %
    critical value 1.95·sqrt(2/2000) = 0.062 (both seeds fixed: a deterministic test); the
    datasets with 8 items (C(15, 8) = 6,435 > 2,000 count vectors) take the one-by-one path,
    'marginal' forces the per-system multinomials."""
    rng = np.random.default_rng({"datasets": 1, "items": 2, "large": 3, "marginal": 4}[case])
    b = 2000
    sizes = {"datasets": [3] * 12, "items": [2, 3, 4, 5, 2, 3, 1, 6], "large": [2, 8, 3, 8, 9],
             "marginal": [3] * 40}[case]
    k = 5 if case == "marginal" else 4
    df, mats = _item_table(rng, sizes, k, holes=0.0 if case == "marginal" else 0.1)
    if case == "marginal":
        monkeypatch.setattr(winrate, "_JOINT_BUDGET", 0)
    if case == "datasets":
        df = df.groupby(["dataset", "system"], sort=False)["value"].mean().reset_index()
    vals, _, _, items = winrate._cells(df["dataset"], df["system"], df.get("item"),
                                       df["value"].to_numpy())
    per = dataset_win_rates(vals)
    vec, _, large = winrate._outcome_mixture(per, items, b, True)
    if case == "large":
        assert large.size == 3
    if case == "marginal":
        assert vec.shape[0] > sum(np.unique(np.nan_to_num(vec[:, j], nan=-1)).size
                                  for j in range(k))
    new = winrate._bootstrap(per, items, b, 5, True)
    old = _direct_bootstrap(per, None if items is None else mats, b, 6)
    for j in range(k):
        assert _ks(new[:, j], old[:, j]) < 1.95 * np.sqrt(2 / b), j
    assert np.array_equal(np.isnan(new).sum(axis=0) > 0, np.isnan(old).sum(axis=0) > 0)


def test_replicates_do_not_depend_on_the_order_of_the_datasets() -> None:
    rng = np.random.default_rng(9)
    df, _ = _item_table(rng, [2, 3, 2, 4, 3], 3, holes=0.0)
    res = rg.win_rate(df, n_resamples=300, seed=4)
    # datasets in another order, and the items within them (systems keep their order)
    blocks = [g.iloc[::-1] for _, g in df.groupby("dataset", sort=False)][::-1]
    shuffled = pd.concat(blocks).sort_values("system", kind="stable").reset_index(drop=True)
    again = rg.win_rate(shuffled, n_resamples=300, seed=4)
    for name in ("win_rate", "ci_low", "ci_high"):
        pd.testing.assert_series_equal(getattr(res, name).sort_index(),
                                       getattr(again, name).sort_index(), rtol=1e-13)


def _item_scores(rng: np.random.Generator, n_items: int, constant: bool) -> rg.scores.Scores:
    rows = []
    for d in ("d1", "d2", "d3", "d4"):
        base = rng.random(3)
        for j, s in enumerate("ABC"):
            for i in range(n_items):
                v = base[j] if constant else float(rng.random() < 0.3 + 0.2 * j)
                rows.append((d, s, f"q{i}", v))
    return rg.scores.Scores(pd.DataFrame(rows, columns=["dataset", "system", "item", "value"]))


def test_item_bootstrap() -> None:
    rng = np.random.default_rng(5)
    scores = _item_scores(rng, 40, constant=False)
    res = rg.win_rate(scores, n_resamples=300, seed=1)
    table = scores.frame.groupby(["dataset", "system"])["value"].mean().unstack()
    plain = rg.win_rate(table, n_resamples=300, seed=1)
    # the point estimate is the win rate of the per-dataset means
    np.testing.assert_allclose(res.win_rate.reindex(list("ABC")),
                               plain.win_rate.reindex(list("ABC")), rtol=1e-15)
    assert res.resample == "datasets+items" and res.signature.fields["resample"] == "datasets+items"
    assert (res.ci_low <= res.win_rate).all() and (res.win_rate <= res.ci_high).all()
    again = rg.win_rate(scores, n_resamples=300, seed=1)
    pd.testing.assert_series_equal(res.ci_low, again.ci_low)
    # item noise widens the interval of at least one system against datasets alone
    width = (res.ci_high - res.ci_low).reindex(list("ABC"))
    assert (width >= (plain.ci_high - plain.ci_low).reindex(list("ABC")) - 1e-12).any()


def test_item_bootstrap_without_item_noise_is_the_dataset_bootstrap() -> None:
    scores = _item_scores(np.random.default_rng(8), 5, constant=True)
    res = rg.win_rate(scores, n_resamples=200, seed=2)
    table = scores.frame.groupby(["dataset", "system"])["value"].mean().unstack()
    plain = rg.win_rate(table, n_resamples=200, seed=2)
    for name in ("win_rate", "ci_low", "ci_high"):
        np.testing.assert_allclose(getattr(res, name).reindex(list("ABC")),
                                   getattr(plain, name).reindex(list("ABC")), rtol=1e-13)


def test_tidy_with_seeds_and_metric() -> None:
    df = pd.DataFrame({
        "dataset": ["x"] * 4 + ["y"] * 4,
        "system": ["A", "A", "B", "B"] * 2,
        "metric": ["acc"] * 8,
        "value": [1.0, 0.0, 0.2, 0.2, 0.1, 0.3, 0.9, 0.9],
    })
    res = rg.win_rate(df, metric="acc", n_resamples=0)
    assert res.win_rate.to_dict() == {"A": 0.5, "B": 0.5}  # A wins x (0.5 > 0.2), B wins y
    with pytest.raises(AggregateError, match="unknown metric 'f1'"):
        rg.win_rate(df, metric="f1")


@pytest.mark.parametrize("kwargs, match", [
    ({"higher_is_better": "yes"}, "higher_is_better must be True or False; got 'yes'"),
    ({"level": 95}, r"level: must be strictly between 0 and 1 \(e.g. 0.95\); got 95"),
    ({"n_resamples": -1}, r"n_resamples: must be a whole number from 0 to 10,000,000 \(10\^7\); "
                          "got -1"),
    ({"seed": 1.5}, "seed: must be a whole number ≥ 0; got 1.5"),
])
def test_bad_arguments(kwargs: dict, match: str) -> None:
    with pytest.raises(AggregateError, match=match):
        rg.win_rate(pd.DataFrame({"A": [1.0, 2.0], "B": [2.0, 1.0]}), **kwargs)


def test_bad_tables() -> None:
    with pytest.raises(AggregateError, match="no dataset has scores of two systems"):
        rg.win_rate(pd.DataFrame({"A": [1.0, np.nan], "B": [np.nan, 2.0]}))
    with pytest.raises(AggregateError, match="at least 1 dataset and 2 systems"):
        rg.win_rate(pd.DataFrame({"A": [1.0, 2.0]}))
    with pytest.raises(AggregateError, match="system 'B' has an infinite score \\(inf\\) on dataset '1'"):
        rg.win_rate(pd.DataFrame({"A": [1.0, 2.0], "B": [0.0, np.inf]}))
    with pytest.raises(AggregateError, match="non-numeric score"):
        rg.win_rate(pd.DataFrame({"A": [1.0, 2.0], "B": ["x", "y"]}))


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 6), st.integers(2, 6), st.integers(0, 2**31 - 1), st.booleans())
def test_invariants(n: int, k: int, seed: int, hib: bool) -> None:
    """Complete table: win rates in [0, 1], they sum to k/2 on every dataset, the direction
    flips them to 1 − w, and ranking is invariant to a monotone transform."""
    x = np.round(np.random.default_rng(seed).normal(size=(n, k)), 1)
    t = pd.DataFrame(x, columns=[f"s{j}" for j in range(k)])
    per = dataset_win_rates(x, higher_is_better=hib)
    assert ((per >= 0) & (per <= 1)).all()
    np.testing.assert_allclose(per.sum(axis=1), k / 2)
    np.testing.assert_allclose(dataset_win_rates(x, higher_is_better=not hib), 1 - per, atol=1e-15)
    a = rg.win_rate(t, higher_is_better=hib, n_resamples=0).win_rate
    b = rg.win_rate(np.exp(t), higher_is_better=hib, n_resamples=0).win_rate
    pd.testing.assert_series_equal(a, b)


def test_report_states_the_result_in_words() -> None:
    t = pd.DataFrame({"A": [0.9, 0.8, np.nan, 0.5], "B": [0.7, 0.8, 0.3, 0.6],
                      "C": [0.1, 0.2, 0.3, np.nan]}, index=list("wxyz"))
    res = rg.win_rate(t, n_resamples=200)
    md = rg.report.to_markdown(res)
    lo, hi = res.ci_low["B"], res.ci_high["B"]
    assert (f"B beats 69 % of the other systems on average over 4 datasets (95 % interval "
            f"{lo * 100:.0f}–{hi * 100:.0f} %): the highest mean win rate, 0.688.") in md
    assert "2 (dataset, system) cell(s) missing" in md and str(res.signature) in md
    assert "| B | 0.688 |" in md
    assert rg.report.to_csv(res).splitlines()[0] == "system,win_rate,ci_low,ci_high,n_datasets"
    assert "\\caption{B beats 69" in rg.report.to_latex(res)
    tie = rg.win_rate(pd.DataFrame({"A": [1.0, 0.0], "B": [0.0, 1.0]}), n_resamples=0)
    assert ("A and B each beat 50 % of the other systems on average over 2 datasets: the "
            "highest mean win rate, 0.500.") in rg.report.to_markdown(tie)


def test_percent_digits_keep_the_bounds_apart() -> None:
    from ranger_eval.report.ranking import percent_digits, win_rate_sentence

    assert percent_digits(0.83, 0.71, 0.92) == 0
    assert percent_digits(0.7136, 0.6834, 0.6852) == 1
    assert percent_digits(0.6843, 0.6834, 0.6852) == 2
    assert percent_digits(0.5, 0.49, 0.52) == 1
    assert percent_digits(0.50001, 0.50002, 0.50004) == 3
    assert win_rate_sentence("A", 0.7136, 0.6834, 0.6852, 0.9, 1000) == (
        "A beats 71.4 % of the other systems on average over 1000 datasets "
        "(90 % interval 68.3–68.5 %)")


def test_item_bootstrap_beside_the_estimate_is_named() -> None:
    """Two items per dataset, B ahead on one of them by more than A on the other: every dataset
    is B's, but a resample of its items is B's in only 3 of 4 draws; with 400 datasets the
    interval of B's win rate (1.0) lies below it, and the warning, the result and the report
    say so."""
    rows = [(f"d{d}", s, f"q{i}", v) for d in range(400)
            for s, vals in (("A", (0.5, 0.2)), ("B", (0.9, 0.1))) for i, v in enumerate(vals)]
    df = pd.DataFrame(rows, columns=["dataset", "system", "item", "value"])
    with pytest.warns(UserWarning, match="lies outside its bootstrap interval"):
        res = rg.win_rate(df, n_resamples=200, seed=1)
    assert res.win_rate["B"] == 1.0 and res.ci_high["B"] < 0.8
    assert res.outside == ("B", "A")
    assert "The win rate of B, A lies outside its interval" in rg.report.to_markdown(res)
    d = res.to_dict()
    assert [s["system"] for s in d["systems"]] == ["B", "A"] and d["outside"] == ["B", "A"]
    assert d["resample"] == "datasets+items" and d["signature"] == str(res.signature)
    json.dumps(d, allow_nan=False)
    plain = rg.win_rate(df.groupby(["dataset", "system"])["value"].mean().unstack(),
                        n_resamples=200, seed=1)
    assert plain.outside == () and plain.ci_low["B"] == 1.0


@settings(max_examples=40, deadline=None)
@given(st.lists(st.integers(1, 4), min_size=1, max_size=6), st.integers(2, 4),
       st.integers(0, 2**31 - 1), st.booleans())
def test_mixture_invariants(sizes: list[int], k: int, seed: int, hib: bool) -> None:
    """The mixture F̄ of any per-item table: every enumerated dataset brings mass 1 (so the
    masses sum to N), every vector is a win-rate vector (its present entries sum to m/2 over the
    m systems present, or it is all missing), the vectors are distinct and sorted, and the
    replicates are mean win rates in [0, 1]."""
    rng = np.random.default_rng(seed)
    df, _ = _item_table(rng, sizes, k, holes=0.2)
    if df.empty:
        return
    vals, datasets, _, items = winrate._cells(df["dataset"], df["system"], df["item"],
                                              df["value"].to_numpy())
    per = dataset_win_rates(vals, higher_is_better=hib)
    vec, mass, large = winrate._outcome_mixture(per, items, 1000, hib)
    assert large.size == 0 and mass.sum() == pytest.approx(len(datasets), rel=1e-12)
    present = np.isfinite(vec)
    m = present.sum(axis=1)
    np.testing.assert_allclose(np.where(present, vec, 0.0).sum(axis=1),
                               np.where(m >= 2, m / 2, 0.0), atol=1e-12)
    keys = [tuple(np.nan_to_num(v, nan=9.0)) for v in vec]
    assert keys == sorted(set(keys))
    reps = winrate._bootstrap(per, items, 50, seed, hib)
    ok = np.isfinite(reps)
    assert ((reps[ok] >= -1e-15) & (reps[ok] <= 1 + 1e-15)).all()
