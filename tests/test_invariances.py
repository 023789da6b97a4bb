"""Invariances across commands, as property tests: re-ordering the rows of a
scores table or renaming its systems changes no result (they map one to one, modulo the
renaming), and shifting every score of an unbounded metric by a constant changes no p-value,
rank or interval width (means and interval bounds move by the constant). Bradley–Terry's
rank intervals, rating differences and win probabilities do not depend on ``anchor`` or
``init_rating``.

Covered: ``compare`` (paired t and the sign-flip permutation test), ``rank_test`` (Friedman /
Nemenyi), ``rank_systems``, ``win_rate``, ``describe``, ``effect_sizes`` (MD) →
``meta_analysis``, ``bradley_terry`` from scores (``battle_counts``) and from battles.

Values are multiples of 1/64 and shifts whole numbers, so every shifted score and every paired
difference is exact in floating point; results are still compared at a relative 1e-9 (sums
over items in another order may differ in the last bits; no result here needs more).

Renaming: a renaming that keeps the names' order leaves everything equal, bootstrap intervals
included. A renaming that permutes the order leaves every closed-form result equal (tests,
p-values, ratings, standard errors); resampling draws are laid out in the order of the
(sorted) names, so bootstrap intervals are then another Monte-Carlo draw of the same
distribution, not the same numbers — checked only for the order-keeping renaming.
"""
from __future__ import annotations

import warnings
from collections.abc import Callable

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

import ranger_eval as rg
from ranger_eval.verdicts.bradley_terry import battle_counts

RTOL, ATOL = 1e-9, 1e-12
#: each example runs an analysis five or more times: no shrinking (a failure is reported as
#: generated; shrinking one took minutes)
PHASES = (Phase.explicit, Phase.reuse, Phase.generate)
PROPERTY = settings(max_examples=24, deadline=None, phases=PHASES,
                    suppress_health_check=[HealthCheck.too_slow])


# ------------------------------------------------------------------------------ the data

def scores_table(k: int, n: int, n_datasets: int, seed: int) -> pd.DataFrame:
    """k systems × n items × datasets of one unbounded metric, values on a 1/64 grid."""
    rng = np.random.default_rng(seed)
    rows = []
    for d in range(n_datasets):
        for s in range(k):
            shift = rng.normal(0.25 * s, 0.3)
            for i in range(n):
                value = np.round((shift + rng.normal(0, 1)) * 64) / 64
                rows.append((f"d{d}", f"s{s}", f"q{i:02d}", "score", value))
    return pd.DataFrame(rows, columns=["dataset", "system", "item", "metric", "value"])


def shuffled(df: pd.DataFrame, seed: int) -> pd.DataFrame:
    return df.sample(frac=1.0, random_state=seed).reset_index(drop=True)


def renamed(df: pd.DataFrame, mapping: dict[str, str]) -> pd.DataFrame:
    return df.assign(system=df["system"].map(mapping))


def order_keeping(names: list[str]) -> dict[str, str]:
    """New names sorting as the old ones did."""
    return {s: f"model-{s}-x" for s in names}


def order_reversing(names: list[str]) -> dict[str, str]:
    """New names sorting in the reverse order of the old ones (s0 → zz…, the last → aa…)."""
    ordered = sorted(names)
    return {s: f"{chr(ord('z') - k)}-{s}" for k, s in enumerate(ordered)}


def close(a: object, b: object) -> None:
    np.testing.assert_allclose(np.asarray(a, dtype=float), np.asarray(b, dtype=float),
                               rtol=RTOL, atol=ATOL)


def quiet(fn: Callable[[], object]) -> object:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn()


dims = st.tuples(st.integers(2, 4), st.integers(6, 12), st.integers(2, 4),
                 st.integers(0, 2**20))


# ------------------------------------------------------------------------------- compare

def compare_view(comp: rg.Comparison, back: dict[str, str] | None = None) -> pd.DataFrame:
    """The pairs keyed by original names, each pair oriented a < b (signs flipped with it)."""
    f = comp.to_frame().copy()
    if back:
        f["system_a"] = f["system_a"].map(back)
        f["system_b"] = f["system_b"].map(back)
    swap = f["system_a"] > f["system_b"]
    a, b = f["system_a"].copy(), f["system_b"].copy()
    f.loc[swap, "system_a"], f.loc[swap, "system_b"] = b[swap], a[swap]
    ma, mb = f["mean_a"].copy(), f["mean_b"].copy()
    f.loc[swap, "mean_a"], f.loc[swap, "mean_b"] = mb[swap], ma[swap]
    lo, hi = f["ci_low"].copy(), f["ci_high"].copy()
    f.loc[swap, "ci_low"], f.loc[swap, "ci_high"] = -hi[swap], -lo[swap]
    for col in ("diff", "statistic", "effect_size"):
        f.loc[swap, col] = -f.loc[swap, col]
    keep = ["dataset", "metric", "system_a", "system_b", "mean_a", "mean_b", "diff", "ci_low",
            "ci_high", "test", "statistic", "pvalue", "pvalue_adjusted", "effect_size",
            "significant", "mde"]
    return f[keep].sort_values(["dataset", "metric", "system_a", "system_b"]).reset_index(
        drop=True)


def same_pairs(x: pd.DataFrame, y: pd.DataFrame, shift: float = 0.0) -> None:
    for col in ("dataset", "metric", "system_a", "system_b", "test", "significant"):
        assert x[col].tolist() == y[col].tolist(), col
    for col in ("diff", "statistic", "pvalue", "pvalue_adjusted", "effect_size", "mde"):
        close(x[col], y[col])
    close(x["ci_high"] - x["ci_low"], y["ci_high"] - y["ci_low"])
    close(x["ci_low"], y["ci_low"])
    close(x["mean_a"] + shift, y["mean_a"])
    close(x["mean_b"] + shift, y["mean_b"])


@PROPERTY
@given(dims=dims, perm=st.integers(0, 2**16), shift=st.integers(-1000, 1000),
       test=st.sampled_from(["auto", "permutation"]))
def test_compare_rows_names_and_shift(dims: tuple[int, int, int, int], perm: int, shift: int,
                                      test: str) -> None:
    k, n, n_datasets, seed = dims
    df = scores_table(k, n, n_datasets, seed)
    names = sorted(df.system.unique())

    def run(frame: pd.DataFrame) -> rg.Comparison:
        return rg.compare(frame, test=test, n_resamples=199, seed=3)

    base = compare_view(run(df))
    same_pairs(base, compare_view(run(shuffled(df, perm))))
    for mapping in (order_keeping(names), order_reversing(names)):
        back = {v: s for s, v in mapping.items()}
        same_pairs(base, compare_view(run(renamed(df, mapping)), back))
    same_pairs(base, compare_view(run(df.assign(value=df.value + shift))), float(shift))


# ----------------------------------------------------------------- rank_test, rank_systems

@PROPERTY
@given(dims=dims, perm=st.integers(0, 2**16), shift=st.integers(-1000, 1000))
def test_rank_test_rows_names_and_shift(dims: tuple[int, int, int, int], perm: int,
                                        shift: int) -> None:
    k, n, n_datasets, seed = dims
    df = scores_table(max(k, 3), n, max(n_datasets, 3), seed)
    names = sorted(df.system.unique())

    def view(res: object, back: dict[str, str] | None = None) -> tuple[object, ...]:
        f = res.to_frame().copy()
        pw = res.pairwise.copy()
        if back:
            f["system"] = f["system"].map(back)
            pw["a"], pw["b"] = pw["a"].map(back), pw["b"].map(back)
        f = f.sort_values("system").reset_index(drop=True)
        swap = pw["a"] > pw["b"]
        a, b = pw["a"].copy(), pw["b"].copy()
        pw.loc[swap, "a"], pw.loc[swap, "b"] = b[swap], a[swap]
        pw.loc[swap, "statistic"] = -pw.loc[swap, "statistic"]
        pw = pw.sort_values(["a", "b"]).reset_index(drop=True)
        return f, float(res.statistic), float(res.pvalue), pw

    def same(x: tuple[object, ...], y: tuple[object, ...]) -> None:
        fx, fy, px, py = x[0], y[0], x[3], y[3]
        assert isinstance(fx, pd.DataFrame) and isinstance(fy, pd.DataFrame)
        assert isinstance(px, pd.DataFrame) and isinstance(py, pd.DataFrame)
        assert fx["system"].tolist() == fy["system"].tolist()
        close(fx["average_rank"], fy["average_rank"])
        close(fx["rank"], fy["rank"])
        close(x[1], y[1])
        close(x[2], y[2])
        for col in ("a", "b", "significant"):
            assert px[col].tolist() == py[col].tolist(), col
        for col in ("statistic", "pvalue", "pvalue_adjusted"):
            close(px[col], py[col])

    base = view(rg.rank_test(df))
    same(base, view(rg.rank_test(shuffled(df, perm))))
    for mapping in (order_keeping(names), order_reversing(names)):
        same(base, view(rg.rank_test(renamed(df, mapping)), {v: s for s, v in mapping.items()}))
    same(base, view(rg.rank_test(df.assign(value=df.value + shift))))


@PROPERTY
@given(dims=dims, perm=st.integers(0, 2**16), shift=st.integers(-1000, 1000))
def test_rank_systems_rows_names_and_shift(dims: tuple[int, int, int, int], perm: int,
                                           shift: int) -> None:
    k, n, n_datasets, seed = dims
    df = scores_table(k, n, n_datasets, seed)
    names = sorted(df.system.unique())

    def view(frame: pd.DataFrame, back: dict[str, str] | None = None) -> pd.DataFrame:
        f = quiet(lambda: rg.rank_systems(frame, n_resamples=199)).to_frame()
        if back:
            f["system"] = f["system"].map(back)
        return f.sort_values("system").reset_index(drop=True)

    def same(x: pd.DataFrame, y: pd.DataFrame, shift: float = 0.0) -> None:
        assert x["system"].tolist() == y["system"].tolist()
        assert x["rank"].tolist() == y["rank"].tolist()
        assert x["groups"].tolist() == y["groups"].tolist()
        close(x["aggregate_mean"], y["aggregate_mean"])   # standardised: shift free
        close(x["naive_mean"] + shift, y["naive_mean"])
        close(x["naive_rank"], y["naive_rank"])
        # TOPSIS is min–max normalised (location and scale free): equal under every change
        close(x["topsis"], y["topsis"])

    base = view(df)
    same(base, view(shuffled(df, perm)))
    for mapping in (order_keeping(names), order_reversing(names)):
        same(base, view(renamed(df, mapping), {v: s for s, v in mapping.items()}))
    same(base, view(df.assign(value=df.value + shift)), float(shift))


# -------------------------------------------------------------------------------- win_rate

@PROPERTY
@given(dims=dims, perm=st.integers(0, 2**16), shift=st.integers(-1000, 1000))
def test_win_rate_rows_names_and_shift(dims: tuple[int, int, int, int], perm: int,
                                       shift: int) -> None:
    k, n, n_datasets, seed = dims
    df = scores_table(k, n, n_datasets, seed)
    names = sorted(df.system.unique())

    def view(frame: pd.DataFrame, back: dict[str, str] | None = None) -> pd.DataFrame:
        f = rg.win_rate(frame, n_resamples=200, seed=1).to_frame()
        if back:
            f["system"] = f["system"].map(back)
        return f.sort_values("system").reset_index(drop=True)

    def same(x: pd.DataFrame, y: pd.DataFrame, intervals: bool = True) -> None:
        assert x["system"].tolist() == y["system"].tolist()
        close(x["win_rate"], y["win_rate"])
        assert x["n_datasets"].tolist() == y["n_datasets"].tolist()
        if intervals:
            close(x["ci_low"], y["ci_low"])
            close(x["ci_high"], y["ci_high"])

    base = view(df)
    same(base, view(shuffled(df, perm)))
    keep = order_keeping(names)
    same(base, view(renamed(df, keep), {v: s for s, v in keep.items()}))
    rev = order_reversing(names)
    same(base, view(renamed(df, rev), {v: s for s, v in rev.items()}), intervals=False)
    same(base, view(df.assign(value=df.value + shift)))


# -------------------------------------------------------------------------------- describe

@PROPERTY
@given(dims=dims, perm=st.integers(0, 2**16), shift=st.integers(-1000, 1000))
def test_describe_rows_names_and_shift(dims: tuple[int, int, int, int], perm: int,
                                       shift: int) -> None:
    k, n, n_datasets, seed = dims
    df = scores_table(k, n, n_datasets, seed)
    names = sorted(df.system.unique())

    def view(frame: pd.DataFrame, back: dict[str, str] | None = None) -> pd.DataFrame:
        f = rg.describe(frame)
        if back:
            f = f.assign(system=f["system"].map(back))
        return f.sort_values(["dataset", "metric", "system"]).reset_index(drop=True)

    def same(x: pd.DataFrame, y: pd.DataFrame, shift: float = 0.0) -> None:
        for col in ("dataset", "metric", "system", "n"):
            assert x[col].tolist() == y[col].tolist(), col
        close(x["mean"] + shift, y["mean"])
        close(x["se"], y["se"])
        close(x["ci_high"] - x["ci_low"], y["ci_high"] - y["ci_low"])
        close(x["ci_low"] + shift, y["ci_low"])

    base = view(df)
    same(base, view(shuffled(df, perm)))
    for mapping in (order_keeping(names), order_reversing(names)):
        same(base, view(renamed(df, mapping), {v: s for s, v in mapping.items()}))
    same(base, view(df.assign(value=df.value + shift)), float(shift))


# ------------------------------------------------------------------ effect_sizes → meta

@PROPERTY
@given(dims=dims, perm=st.integers(0, 2**16), shift=st.integers(-1000, 1000),
       method=st.sampled_from(["REML", "DL", "FE"]))
def test_meta_of_mean_differences_rows_names_and_shift(
        dims: tuple[int, int, int, int], perm: int, shift: int, method: str) -> None:
    k, n, n_datasets, seed = dims
    df = scores_table(2, n, n_datasets, seed)

    def view(frame: pd.DataFrame, treatment: str = "s1", control: str = "s0"
             ) -> dict[str, object]:
        eff = rg.effect_sizes(frame, treatment=treatment, control=control, measure="MD")
        res = quiet(lambda: rg.meta_analysis(eff, method=method))
        out = res.to_dict()
        return {key: out[key] for key in ("estimate", "se", "ci_low", "ci_high", "pvalue",
                                          "tau2", "I2", "Q", "Q_pvalue", "pi_low", "pi_high",
                                          "yi", "vi", "weights", "names")}

    def same(x: dict[str, object], y: dict[str, object]) -> None:
        for key, value in x.items():
            if key not in ("yi", "vi", "weights", "names"):
                close(value, y[key])
        # per dataset, by name (the datasets keep the order the rows give them: the forest
        # plot's order is the user's)
        for key in ("yi", "vi", "weights"):
            close(pd.Series(x[key], index=x["names"]).sort_index(),
                  pd.Series(y[key], index=y["names"]).sort_index())

    base = view(df)
    same(base, view(shuffled(df, perm)))
    for mapping in (order_keeping(["s0", "s1"]), order_reversing(["s0", "s1"])):
        same(base, view(renamed(df, mapping), mapping["s1"], mapping["s0"]))
    same(base, view(df.assign(value=df.value + shift)))


# ------------------------------------------------------------------------- Bradley–Terry

def bt_view(res: rg.Ratings, back: dict[str, str] | None = None) -> pd.DataFrame:
    """Ratings as distances from the mean, se, rank interval, win probabilities (by the
    original names, sorted)."""
    f = res.to_frame()
    if back:
        f["model"] = f["model"].map(back)
    f = f.sort_values("model").set_index("model")
    wp = res.win_probability
    if back:
        wp = wp.rename(index=back, columns=back)
    wp = wp.loc[f.index, f.index]
    return f.assign(centred=f.rating - f.rating.mean(),
                    width=f.ci_high - f.ci_low).join(
        pd.DataFrame(wp.to_numpy(), index=f.index,
                     columns=[f"wp_{c}" for c in range(len(f))]))


def same_bt(x: pd.DataFrame, y: pd.DataFrame, intervals: bool = True,
            tol: float = 1e-7) -> None:
    """Equal to ``tol`` Elo (the fit stops at a step below 1e-12 in θ, the bootstrap rounds at
    1e-9: two fits of the same battles from another starting point agree to about that)."""
    assert x.index.tolist() == y.index.tolist()
    np.testing.assert_allclose(x.centred, y.centred, atol=tol)
    wp = [c for c in x.columns if c.startswith("wp_")]
    np.testing.assert_allclose(x[wp].to_numpy(), y[wp].to_numpy(), atol=1e-10)
    if intervals:
        assert x.rank_low.tolist() == y.rank_low.tolist()
        assert x.rank_high.tolist() == y.rank_high.tolist()


@settings(max_examples=20, deadline=None, phases=PHASES,
          suppress_health_check=[HealthCheck.too_slow])
@given(dims=dims, perm=st.integers(0, 2**16), shift=st.integers(-1000, 1000),
       init=st.floats(-5000, 5000, allow_nan=False), anchor_rating=st.integers(-3000, 3000))
def test_bradley_terry_from_scores(dims: tuple[int, int, int, int], perm: int, shift: int,
                                   init: float, anchor_rating: int) -> None:
    k, n, n_datasets, seed = dims
    df = scores_table(max(k, 3), n, n_datasets, seed)
    names = sorted(df.system.unique())

    def fit(frame: pd.DataFrame, **kw: object) -> rg.Ratings | None:
        try:
            return quiet(lambda: rg.bradley_terry(battle_counts(frame), n_resamples=60,
                                                  seed=2, **kw))
        except rg.RangerError:   # a system that won (or lost) every battle: no finite ratings
            return None

    first = fit(df)
    if first is None:
        for frame in (shuffled(df, perm), df.assign(value=df.value + shift)):
            assert fit(frame) is None
        return
    base = bt_view(first)
    same_bt(base, bt_view(fit(shuffled(df, perm))))
    same_bt(base, bt_view(fit(df.assign(value=df.value + shift))))
    np.testing.assert_allclose(base.se, bt_view(fit(df.assign(value=df.value + shift))).se,
                               rtol=1e-6)
    keep = order_keeping(names)
    same_bt(base, bt_view(fit(renamed(df, keep)), {v: s for s, v in keep.items()}))
    rev = order_reversing(names)
    same_bt(base, bt_view(fit(renamed(df, rev)), {v: s for s, v in rev.items()}),
            intervals=False)
    # the location: init_rating and every model as the anchor
    moved = fit(df, init_rating=init)
    assert moved is not None
    same_bt(base, bt_view(moved), tol=1e-7 + 1e-12 * abs(init))
    close(bt_view(moved).width, base.width)
    for model in names:
        pinned = fit(df, anchor=(model, anchor_rating))
        assert pinned is not None and pinned.relative_to == "anchor"
        assert pinned.ratings[model] == anchor_rating and pinned.se[model] == 0
        same_bt(base, bt_view(pinned))


def battles_table(k: int, n: int, seed: int) -> pd.DataFrame:
    """n battles among k models (every pair met; wins, losses and ties both ways)."""
    rng = np.random.default_rng(seed)
    names = [f"m{j}" for j in range(k)]
    strength = rng.normal(0, 0.8, k)
    rows = []
    for a in range(k):   # a loss, a win and a tie for every pair: finite ratings always
        for b in range(a + 1, k):
            rows += [(names[a], names[b], "model_a"), (names[a], names[b], "model_b"),
                     (names[b], names[a], "tie")]
    for _ in range(n):
        a, b = rng.choice(k, 2, replace=False)
        p = 1 / (1 + np.exp(strength[b] - strength[a]))
        u = rng.random()
        rows.append((names[a], names[b], "tie" if u < 0.1 else
                     "model_a" if u < 0.1 + 0.9 * p else "model_b"))
    return pd.DataFrame(rows, columns=["model_a", "model_b", "winner"])


@settings(max_examples=20, deadline=None, phases=PHASES,
          suppress_health_check=[HealthCheck.too_slow])
@given(k=st.integers(2, 6), n=st.integers(20, 200), seed=st.integers(0, 2**20),
       perm=st.integers(0, 2**16), init=st.floats(-1e5, 1e5, allow_nan=False),
       anchor_rating=st.floats(-1e5, 1e5, allow_nan=False),
       ties=st.sampled_from(["half", "davidson"]))
def test_bradley_terry_from_battles(k: int, n: int, seed: int, perm: int, init: float,
                                    anchor_rating: float, ties: str) -> None:
    battles = battles_table(k, n, seed)
    names = sorted(set(battles.model_a) | set(battles.model_b))

    def fit(frame: pd.DataFrame, **kw: object) -> rg.Ratings:
        return quiet(lambda: rg.bradley_terry(frame, ties=ties, n_resamples=60, seed=4,
                                              **kw))

    free = fit(battles)
    base = bt_view(free)
    tol = 1e-7 + 1e-12 * max(abs(init), abs(anchor_rating))
    same_bt(base, bt_view(fit(shuffled(battles, perm))))
    keep = order_keeping(names)
    back = {v: s for s, v in keep.items()}
    same_bt(base, bt_view(fit(battles.assign(model_a=battles.model_a.map(keep),
                                             model_b=battles.model_b.map(keep))), back))
    moved = fit(battles, init_rating=init)
    same_bt(base, bt_view(moved), tol=tol)
    close(bt_view(moved).se, base.se)
    np.testing.assert_allclose(bt_view(moved).width, base.width, atol=tol)
    for model in names:
        pinned = fit(battles, anchor=(model, anchor_rating))
        assert pinned.relative_to == "anchor" and pinned.ratings[model] == anchor_rating
        assert pinned.ci_low[model] == pinned.ci_high[model] == anchor_rating
        same_bt(base, bt_view(pinned), tol=tol)
        assert f"anchor {model}" in pinned.reference_text
    assert free.relative_to == "mean" and "mean of all models" in free.reference_text


def test_the_anchor_does_not_move_the_rank_intervals() -> None:
    """The issue's case: `arena --anchor delta=1000` made bravo and charlie "rank 2–3" where,
    without it, they were "rank 2" and "rank 3"; now the rank intervals, the win probabilities
    and the ratings' distances are those of the unanchored fit, whichever model is anchored."""
    battles = battles_table(5, 600, 11).replace(
        {f"m{j}": name for j, name in enumerate(["alpha", "bravo", "charlie", "delta", "echo"])})
    free = rg.bradley_terry(battles, n_resamples=200)
    for model in ("alpha", "delta", "echo"):
        pinned = rg.bradley_terry(battles, n_resamples=200, anchor=(model, 1000))
        pd.testing.assert_series_equal(pinned.rank_low, free.rank_low)
        pd.testing.assert_series_equal(pinned.rank_high, free.rank_high)
        pd.testing.assert_frame_equal(pinned.win_probability, free.win_probability)
        np.testing.assert_allclose(np.diff(pinned.ratings.to_numpy()),
                                   np.diff(free.ratings.to_numpy()), atol=1e-9)
        assert pinned.to_frame().relative_to.eq(f"anchor:{model}").all()
    assert free.to_frame().relative_to.eq("mean").all()


@pytest.mark.parametrize("level", [0.5, 0.8, 0.95])
def test_rank_intervals_hold_jointly_in_the_bootstrap(level: float) -> None:
    """The simultaneous rank intervals hold every model's rank in at least ``level`` of the
    rounds (their defining property), and contain each round-wise marginal interval."""
    battles = battles_table(6, 400, 5)
    res = rg.bradley_terry(battles, n_resamples=300, level=level, seed=9)
    boot = res.bootstrap
    ranks = 1 + (boot[:, None, :] > boot[:, :, None]).sum(axis=2)
    inside = (ranks >= res.rank_low.to_numpy()) & (ranks <= res.rank_high.to_numpy())
    assert inside.all(axis=1).mean() >= level
    half = (1 - level) / 2
    marginal_lo = np.quantile(ranks, half, axis=0, method="inverted_cdf")
    assert np.all(res.rank_low.to_numpy() <= marginal_lo)


def test_win_rate_of_a_wide_table_ignores_the_columns_order() -> None:
    """A dataset-level table (rows = datasets, columns = systems): its columns' order, like
    its rows', changes neither the win rates nor their bootstrap intervals."""
    rng = np.random.default_rng(4)
    wide = pd.DataFrame(np.round(rng.normal(0, 1, (7, 4)) * 64) / 64,
                        index=[f"d{j}" for j in range(7)], columns=["a", "b", "c", "d"])
    base = rg.win_rate(wide, n_resamples=300, seed=2).to_frame().set_index("system")
    for frame in (wide[["d", "b", "a", "c"]], wide.iloc[::-1], wide + 1000):
        other = rg.win_rate(frame, n_resamples=300, seed=2).to_frame().set_index("system")
        pd.testing.assert_frame_equal(other.loc[base.index], base)
