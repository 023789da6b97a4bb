"""ranger_eval.bradley_terry against an exact ML fit (scipy), choix, FastChat's
compute_elo_mle_with_tie and R (BradleyTerry2::BTm, sandwich); invariants and bad input."""
from __future__ import annotations

import json
import math
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ranger_eval as rg
from ranger_eval.errors import VerdictError

ORACLES = Path(__file__).resolve().parents[1] / "oracles"
PY = json.loads((ORACLES / "bradley_terry_oracle.json").read_text())["fixtures"]
R = json.loads((ORACLES / "bradley_terry_oracle_R.json").read_text())["fixtures"]
ELO = 400 / math.log(10)


def battles(name: str) -> pd.DataFrame:
    return pd.DataFrame(PY[name]["battles"])


@pytest.mark.parametrize("name", sorted(PY))
def test_ratings_equal_the_exact_ml_fit_and_choix(name):
    res = rg.bradley_terry(battles(name), n_resamples=0)
    exact = PY[name]["exact_half"]
    assert list(res.ratings.index) == exact["models"]
    np.testing.assert_allclose(res.ratings.to_numpy(), exact["ratings"], rtol=0, atol=1e-6)
    if "choix" in PY[name]:
        np.testing.assert_allclose(res.ratings.to_numpy(), PY[name]["choix"]["ratings"],
                                   rtol=0, atol=1e-6)
    assert res.ratings.mean() == pytest.approx(1000, abs=1e-9)


@pytest.mark.parametrize("name", [n for n in sorted(PY) if "fastchat_none" in PY[n]])
def test_fastchat_without_penalty_agrees_and_its_l2_penalty_shrinks(name):
    res = rg.bradley_terry(battles(name), n_resamples=0)
    none = pd.Series(PY[name]["fastchat_none"]["ratings"], PY[name]["fastchat_none"]["models"])
    l2 = pd.Series(PY[name]["fastchat_l2"]["ratings"], PY[name]["fastchat_l2"]["models"])
    # scikit-learn's lbfgs stops at its own gradient tolerance: agreement to 1e-4 Elo
    np.testing.assert_allclose(res.ratings[none.index], none, rtol=0, atol=1e-4)
    # the default L2 penalty (C = 1) pulls every rating towards the mean
    spread_ml = np.ptp(res.ratings.to_numpy())
    assert np.ptp(l2.to_numpy()) < spread_ml
    assert np.max(np.abs(res.ratings[l2.index] - l2)) > 0.01


@pytest.mark.parametrize("name", [n for n in sorted(PY) if "exact_davidson" in PY[n]])
def test_davidson_equals_the_exact_fit(name):
    res = rg.bradley_terry(battles(name), ties="davidson", n_resamples=0)
    exact = PY[name]["exact_davidson"]
    np.testing.assert_allclose(res.ratings.to_numpy(), exact["ratings"], rtol=0, atol=1e-6)
    assert res.tie_parameter == pytest.approx(exact["nu"], rel=1e-8)


@pytest.mark.parametrize("name", sorted(R))
def test_standard_errors_equal_r(name):
    ref = R[name]
    res = rg.bradley_terry(battles(name), anchor=(ref["reference"], 0.0), n_resamples=0)
    others = ref["models"][1:]
    np.testing.assert_allclose(res.ratings[others] / ELO, ref["glm_coef"], rtol=1e-8)
    np.testing.assert_allclose(res.se_model[others] / ELO, ref["glm_se_model"], rtol=1e-6)
    np.testing.assert_allclose(res.se[others] / ELO, ref["glm_se_sandwich"], rtol=1e-6)
    assert res.se[ref["reference"]] == 0.0
    if "btm_se" in ref:
        np.testing.assert_allclose(res.ratings[others] / ELO, ref["btm_coef"], rtol=1e-8)
        np.testing.assert_allclose(res.se_model[others] / ELO, ref["btm_se"], rtol=1e-6)


def test_bootstrap_intervals_ranks_and_reproducibility():
    frame = battles("ties_12")
    res = rg.bradley_terry(frame, n_resamples=200, seed=3)
    again = rg.bradley_terry(frame, n_resamples=200, seed=3)
    pd.testing.assert_series_equal(res.ci_low, again.ci_low)
    assert np.all(res.ci_low < res.ratings) and np.all(res.ratings < res.ci_high)
    boot_sd = res.bootstrap.std(axis=0, ddof=1)
    # the bootstrap spread agrees with the sandwich standard error (same large-sample quantity)
    np.testing.assert_allclose(boot_sd, res.se.to_numpy(), rtol=0.25)
    # rank intervals from each round's ranks: brute force over k (rounds left out per side)
    ranks = np.array([[1 + int(np.sum(row > v)) for v in row] for row in res.bootstrap])
    level_rounds = 0.95 * len(ranks)
    chosen = None
    for k in range(int(0.025 * len(ranks)), -1, -1):
        lo_k = np.sort(ranks, axis=0)[k]
        hi_k = np.sort(ranks, axis=0)[len(ranks) - 1 - k]
        if np.all((ranks >= lo_k) & (ranks <= hi_k), axis=1).sum() >= level_rounds:
            chosen = (lo_k, hi_k)
            break
    assert chosen is not None
    np.testing.assert_array_equal(res.rank_low.to_numpy(), chosen[0])
    np.testing.assert_array_equal(res.rank_high.to_numpy(), chosen[1])
    assert "Mandel & Betensky" in res.rank_method and res.relative_to == "mean"
    assert res.n_resamples_failed == 0
    assert res.bootstrap.shape == (200, 12)
    best = res.to_frame().iloc[0]
    assert best.rank_low == 1
    text = res.rank_sentence(best.model)
    assert text.startswith("rank 1") and text.endswith(" of 12 (95 % rank interval)")
    assert res.signature.fields["kind"] == "arena"
    assert res.signature.fields["n_resamples"] == "200"


@pytest.mark.slow
def test_bootstrap_is_the_row_resampling_of_fastchat():
    """Multinomial counts of the distinct rows = resampling battles with replacement: the
    distribution of a rating over rounds matches a direct row bootstrap."""
    frame = battles("ties_6")
    res = rg.bradley_terry(frame, n_resamples=300, seed=0)
    rng = np.random.default_rng(5)
    direct = []
    for _ in range(150):
        take = frame.iloc[rng.integers(0, len(frame), len(frame))]
        direct.append(rg.bradley_terry(take, n_resamples=0).ratings.to_numpy())
    np.testing.assert_allclose(np.std(direct, axis=0, ddof=1), res.bootstrap.std(axis=0, ddof=1),
                               rtol=0.3)


def test_anchor_win_probability_and_weights():
    frame = battles("ties_6")
    free = rg.bradley_terry(frame, n_resamples=0)
    pinned = rg.bradley_terry(frame, n_resamples=0, anchor={"model-c": 1114})
    assert pinned.ratings["model-c"] == 1114
    np.testing.assert_allclose(np.diff(pinned.ratings.to_numpy()),
                               np.diff(free.ratings.to_numpy()), atol=1e-9)
    wp = free.win_probability
    a, b = "model-a", "model-b"
    expected = 1 / (1 + 10 ** ((free.ratings[b] - free.ratings[a]) / 400))
    assert wp.loc[a, b] == pytest.approx(expected, rel=1e-12)
    assert wp.loc[a, b] + wp.loc[b, a] == pytest.approx(1.0, rel=1e-12)
    # weight 2 on every battle is the same fit as every battle twice
    doubled = rg.bradley_terry(pd.concat([frame, frame]), n_resamples=0)
    weighted = rg.bradley_terry(frame.assign(weight=2.0), n_resamples=0)
    np.testing.assert_allclose(weighted.ratings, doubled.ratings, atol=1e-9)
    np.testing.assert_allclose(weighted.ratings, free.ratings, atol=1e-9)


def test_scale_base_and_init_rating():
    frame = battles("no_ties_8")
    ref = rg.bradley_terry(frame, n_resamples=0)
    other = rg.bradley_terry(frame, n_resamples=0, scale=1, base=math.e, init_rating=0)
    np.testing.assert_allclose((ref.ratings - 1000) / ELO, other.ratings, atol=1e-12)


def test_to_frame_and_dict():
    res = rg.bradley_terry(battles("ties_6"), n_resamples=20)
    frame = res.to_frame()
    assert list(frame.columns) == ["model", "rating", "ci_low", "ci_high", "se", "rank_low",
                                   "rank_high", "n_battles", "relative_to"]
    assert set(frame.relative_to) == {"mean"}
    assert frame.rating.is_monotonic_decreasing
    assert frame.n_battles.sum() == 2 * res.n_battles
    out = json.loads(json.dumps(res.to_dict()))
    assert out["signature"] == str(res.signature)
    assert len(out["leaderboard"]) == 6
    assert out["relative_to"] == "mean"
    assert out["reference_text"] == "relative to the mean of all models (rated 1000)"


# ------------------------------------------------------------------------------- bad input

def _frame(rows):
    return pd.DataFrame(rows, columns=["model_a", "model_b", "winner"])


def test_disconnected_graph_names_the_groups():
    rows = [("a", "b", "model_a"), ("b", "a", "model_a"), ("c", "d", "tie"), ("d", "c", "model_a")]
    with pytest.raises(VerdictError, match=r"disconnected: 2 groups.*\{'a', 'b'\}; \{'c', 'd'\}"):
        rg.bradley_terry(_frame(rows), n_resamples=0)


def test_self_battle_unknown_label_and_bad_weight():
    with pytest.raises(VerdictError, match=r"model 'a' battles itself at row 1"):
        rg.bradley_terry(_frame([("a", "b", "tie"), ("a", "a", "tie")]))
    with pytest.raises(VerdictError, match=r"unknown winner 'A' at row 0.*'model_a'"):
        rg.bradley_terry(_frame([("a", "b", "A"), ("a", "b", "tie")]))
    frame = _frame([("a", "b", "tie"), ("b", "a", "model_a")]).assign(weight=[1.0, -2.0])
    with pytest.raises(VerdictError, match=r"weight -2.0 at row 1"):
        rg.bradley_terry(frame)
    with pytest.raises(VerdictError, match=r"no 'winner' column"):
        rg.bradley_terry(pd.DataFrame({"model_a": ["a"], "model_b": ["b"]}))


def test_a_model_that_never_lost_has_no_finite_rating():
    rows = [("a", "b", "model_a"), ("b", "a", "model_b"), ("b", "c", "tie")]
    with pytest.raises(VerdictError, match=r"never lost.*a"):
        rg.bradley_terry(_frame(rows), n_resamples=0)


def test_bad_settings():
    frame = battles("ties_6")
    with pytest.raises(VerdictError, match="ties: unknown tie model 'thurstone'"):
        rg.bradley_terry(frame, ties="thurstone")
    with pytest.raises(VerdictError, match="anchor model 'zzz'"):
        rg.bradley_terry(frame, anchor=("zzz", 1000))
    with pytest.raises(VerdictError, match="davidson.*at least one tie.*pass ties=.half."):
        rg.bradley_terry(battles("no_ties_8"), ties="davidson")
    with pytest.raises(VerdictError, match="level"):
        rg.bradley_terry(frame, level=95)


def test_rare_battles_make_some_bootstrap_rounds_fail_and_they_are_counted():
    rows = [("a", "b", "model_a")] * 30 + [("a", "b", "model_b")] * 30 + \
           [("b", "c", "model_a")] * 30 + [("b", "c", "model_b")] + [("a", "c", "model_a")] * 5
    with pytest.warns(UserWarning, match=r"bootstrap rounds left out"):
        res = rg.bradley_terry(_frame(rows), n_resamples=200, seed=1)
    assert 0 < res.n_resamples_failed < 200
    assert res.bootstrap.shape[0] == 200 - res.n_resamples_failed


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 10_000), st.integers(3, 6))
def test_relabelling_and_order_do_not_change_ratings(seed, p):
    rng = np.random.default_rng(seed)
    names = [f"m{k}" for k in range(p)]
    a = np.concatenate([np.arange(p), rng.integers(0, p, 60)])
    b = np.concatenate([(np.arange(p) + 1) % p, rng.integers(0, p, 60)])
    keep = a != b
    a, b = a[keep], b[keep]
    winner = rng.choice(["model_a", "model_b", "tie"], a.size)
    winner[:p] = "tie"    # a cycle of ties: the MLE always exists
    frame = pd.DataFrame({"model_a": np.array(names)[a], "model_b": np.array(names)[b],
                          "winner": winner})
    res = rg.bradley_terry(frame, n_resamples=0)
    swapped = frame.rename(columns={"model_a": "model_b", "model_b": "model_a"}).assign(
        winner=frame.winner.map({"model_a": "model_b", "model_b": "model_a", "tie": "tie"}))
    res2 = rg.bradley_terry(swapped.sample(frac=1.0, random_state=seed), n_resamples=0)
    np.testing.assert_allclose(res.ratings, res2.ratings, atol=1e-8)
    assert res.ratings.mean() == pytest.approx(1000, abs=1e-8)
    wp = res.win_probability.to_numpy()
    np.testing.assert_allclose(wp + wp.T, np.where(np.eye(p, dtype=bool), np.nan, 1.0),
                               atol=1e-12)


# ------------------------------------------------------------------ per-item scores → battles

def test_battles_from_scores_closed_form_for_two_systems():
    from ranger_eval.verdicts.bradley_terry import battles_from_scores

    a = [1.0] * 30 + [0.0] * 10 + [0.5] * 20          # A wins 30, loses 10, ties 20
    b = [0.0] * 30 + [1.0] * 10 + [0.5] * 20
    items = [f"q{i}" for i in range(60)]
    frame = pd.DataFrame({"dataset": "d", "system": ["A"] * 60 + ["B"] * 60,
                          "item": items * 2, "value": a + b})
    battles = battles_from_scores(frame)
    assert len(battles) == 60
    assert battles.winner.value_counts().to_dict() == {"model_a": 30, "tie": 20, "model_b": 10}
    res = rg.bradley_terry(battles, n_resamples=0)
    diff = res.ratings["A"] - res.ratings["B"]
    assert diff == pytest.approx(400 * math.log10((30 + 10) / (10 + 10)), rel=1e-10)
    flipped = rg.bradley_terry(battles_from_scores(frame, higher_is_better=False),
                               n_resamples=0)
    assert flipped.ratings["B"] - flipped.ratings["A"] == pytest.approx(diff, rel=1e-10)


def test_battles_from_scores_counts_missing_and_needs_one_metric():
    from ranger_eval.verdicts.bradley_terry import battles_from_scores

    frame = pd.DataFrame({"dataset": "d", "system": ["A", "A", "B", "C", "C"],
                          "item": ["1", "2", "1", "1", "2"], "value": [1.0, 0.0, 0.0, 1.0, 1.0]})
    # item 2: A and C have scores, B none: A–B and B–C are no battle there
    with pytest.warns(UserWarning, match="2 system pair × item combinations"):
        battles = battles_from_scores(frame)
    assert len(battles) == 4   # A–B on 1, A–C on 1 and 2, B–C on 1
    two = pd.concat([frame.assign(metric="acc"), frame.assign(metric="f1")])
    with pytest.raises(VerdictError, match="2 metrics.*pass metric="):
        battles_from_scores(two)
    without_b = two[two.system != "B"]
    assert len(battles_from_scores(without_b, metric="acc")) == 2


def test_davidson_bootstrap_and_sandwich_agree():
    res = rg.bradley_terry(battles("ties_12"), ties="davidson", n_resamples=200, seed=2)
    assert res.n_resamples_failed == 0
    assert np.all(res.ci_low < res.ratings) and np.all(res.ratings < res.ci_high)
    np.testing.assert_allclose(res.bootstrap.std(axis=0, ddof=1), res.se.to_numpy(), rtol=0.25)
    wp = res.win_probability.to_numpy()
    # Davidson: P(i wins) + P(j wins) < 1 (the rest is the tie probability)
    off = ~np.eye(12, dtype=bool)
    assert np.all((wp + wp.T)[off] < 1)


def test_judge_preferences_alpacaeval_and_mt_bench():
    alpaca = pd.DataFrame({"instruction": ["q1", "q2", "q3", "q4"],
                           "generator_1": ["gpt4", "gpt4", "llama", "gpt4"],
                           "generator_2": ["llama", "llama", "gpt4", "llama"],
                           "preference": [1, 1.5, 2, 2.0]})
    battles = pd.DataFrame({"model_a": ["gpt4", "gpt4", "llama", "gpt4"],
                            "model_b": ["llama", "llama", "gpt4", "llama"],
                            "winner": ["model_a", "tie", "model_b", "model_b"]})
    expected = rg.bradley_terry(battles, n_resamples=0).ratings
    pd.testing.assert_series_equal(rg.bradley_terry(alpaca, n_resamples=0).ratings, expected)
    with pytest.raises(VerdictError, match=r"preference 1.73 at row 1.*probability"):
        rg.bradley_terry(alpaca.assign(preference=[1, 1.73, 2, 2]))
    with pytest.raises(VerdictError, match=r"preference: missing value"):
        rg.bradley_terry(alpaca.assign(preference=[1, None, 2, 2]))
    mt = pd.DataFrame({"question_id": [1, 2, 3, 4], "model_1": ["gpt4"] * 4,
                       "model_2": ["llama"] * 4,
                       "g1_winner": ["model_1", "model_1", "model_2", "tie"],
                       "g2_winner": ["model_1", "model_2", "model_2", "tie"]})
    # both orders agree: a win; they disagree or say tie: a tie (FastChat's show_result)
    mt_battles = pd.DataFrame({"model_a": ["gpt4"] * 4, "model_b": ["llama"] * 4,
                               "winner": ["model_a", "tie", "model_b", "tie"]})
    pd.testing.assert_series_equal(rg.bradley_terry(mt, n_resamples=0).ratings,
                                   rg.bradley_terry(mt_battles, n_resamples=0).ratings)
    with pytest.raises(VerdictError, match=r"g2_winner 'error' at row 2"):
        rg.bradley_terry(mt.assign(g2_winner=["model_1", "model_2", "error", "tie"]))


def _naive_battles(frame: pd.DataFrame, higher_is_better: bool = True) -> pd.DataFrame:
    """Reference: one battle per item and pair of systems, by plain Python loops."""
    means = frame.groupby(["dataset", "item", "system"], sort=False)["value"].mean()
    rows = []
    systems = list(dict.fromkeys(frame.system))
    for dataset in dict.fromkeys(frame.dataset):
        for ia, a in enumerate(systems):
            for b in systems[ia + 1:]:
                for item in sorted(set(frame.item[frame.dataset == dataset])):
                    if (dataset, item, a) in means and (dataset, item, b) in means:
                        d = means[dataset, item, a] - means[dataset, item, b]
                        d = d if higher_is_better else -d
                        rows.append((a, b, "model_a" if d > 0 else "model_b" if d < 0
                                     else "tie", dataset, item))
    return pd.DataFrame(rows, columns=["model_a", "model_b", "winner", "dataset", "item"])


def _holey_scores(seed: int = 3) -> pd.DataFrame:
    """4 systems × 3 datasets × 25 items, 2 seeds, values on a coarse grid (ties), a few holes."""
    rng = np.random.default_rng(seed)
    parts = []
    for d in range(3):
        for k, s in enumerate(["w", "x", "y", "z"]):
            for seed_ in range(2):
                v = np.round(rng.normal(0.5 + 0.05 * k, 0.2, 25), 1)
                parts.append(pd.DataFrame({"dataset": f"d{d}", "system": s, "seed": seed_,
                                           "item": [f"i{j:02d}" for j in range(25)], "value": v}))
    frame = pd.concat(parts, ignore_index=True)
    holes = (frame.system == "z") & (frame.dataset == "d1") & frame.item.isin(["i03", "i07"])
    return frame[~holes].reset_index(drop=True)


@pytest.mark.parametrize("higher", [True, False])
def test_battles_from_scores_equal_a_plain_loop(higher):
    from ranger_eval.verdicts.bradley_terry import battles_from_scores

    frame = _holey_scores()
    with pytest.warns(UserWarning, match="6 system pair × item combinations"):
        got = battles_from_scores(frame, higher_is_better=higher)
    expected = _naive_battles(frame, higher)
    pd.testing.assert_frame_equal(got.drop(columns="metric"), expected, check_dtype=False)


def test_battle_counts_give_the_fit_of_the_rows_and_resample_items():
    from ranger_eval.verdicts.bradley_terry import battle_counts, battles_from_scores

    frame = _holey_scores(5)
    with pytest.warns(UserWarning):
        rows = battles_from_scores(frame)
        counts = battle_counts(frame)
    assert counts.count is not None and counts.count.size <= 3 * 6
    assert int(counts.count.sum()) == len(rows)
    # each item's battles together: 75 items, patterns of its 6 pairs' outcomes
    assert int(counts.cluster_count.sum()) == 75
    by_rows = rg.bradley_terry(rows, n_resamples=200, seed=4)
    by_counts = rg.bradley_terry(counts, n_resamples=200, seed=4)
    for name in ("ratings", "se_model"):
        pd.testing.assert_series_equal(getattr(by_counts, name), getattr(by_rows, name),
                                       rtol=1e-12)
    assert by_counts.n_battles == by_rows.n_battles == len(rows)
    # the rows are resampled as independent battles, the counts by items: the signature says so
    assert by_rows.resample == "battles" and by_counts.resample == "items"
    assert "battles:scores(items)|resample:items" in by_counts.signature
    assert "battles:scores(items)|resample:battles" in by_rows.signature
    # (a selection of the rows keeps pandas' attrs: still battles from scores)
    assert rows[["model_a", "model_b", "winner"]].attrs == rows.attrs
    plain = rg.bradley_terry(pd.DataFrame(rows[["model_a", "model_b", "winner"]].to_dict("list")),
                             n_resamples=0)
    assert "battles:table" in plain.signature and plain.source == "table"
    assert by_counts.to_dict()["source"] == "scores(items)"
    assert by_counts.to_dict()["resample"] == "items"


def test_item_clustered_sandwich_equals_statsmodels_and_the_item_bootstrap():
    """The se of battles from scores sums the scores within an item (cluster-robust sandwich):
    equal to statsmodels' GLM (binomial, y = 1, ½, 0 from model_a's side, x = e_a − e_b
    without the anchor's column) with cov_type='cluster' by item and no small-sample factor;
    and the item bootstrap's SD is close to it."""
    import statsmodels.api as sm

    from ranger_eval.verdicts.bradley_terry import battle_counts, battles_from_scores

    frame = _holey_scores(8)
    with pytest.warns(UserWarning):
        rows = battles_from_scores(frame)
        counts = battle_counts(frame)
    res = rg.bradley_terry(counts, anchor=("w", 1000), n_resamples=1000, seed=1)
    models = sorted(set(rows.model_a) | set(rows.model_b))
    free = [m for m in models if m != "w"]
    x = np.zeros((len(rows), len(free)))
    for k, m in enumerate(free):
        x[:, k] = (rows.model_a == m).to_numpy(float) - (rows.model_b == m).to_numpy(float)
    y = rows.winner.map({"model_a": 1.0, "model_b": 0.0, "tie": 0.5}).to_numpy()
    groups = pd.factorize(rows.dataset + "\x00" + rows.item)[0]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")   # non-integer binomial y (the half-ties)
        fit = sm.GLM(y, x, family=sm.families.Binomial()).fit(
            cov_type="cluster", cov_kwds={"groups": groups, "use_correction": False})
    factor = 400 / math.log(10)
    np.testing.assert_allclose(res.ratings[free].to_numpy(), 1000 + factor * fit.params,
                               rtol=1e-9)
    np.testing.assert_allclose(res.se[free].to_numpy(), factor * fit.bse, rtol=1e-8)
    assert res.se["w"] == 0
    np.testing.assert_allclose(res.bootstrap.std(axis=0, ddof=1)[1:], res.se[free].to_numpy(),
                               rtol=0.2)


def test_table_battle_counts_makes_every_dataset_a_battle():
    from ranger_eval.verdicts.bradley_terry import table_battle_counts

    table = pd.DataFrame({"A": [0.9, 0.8, 0.7, 0.5], "B": [0.8, 0.8, 0.9, np.nan],
                          "C": [0.1, 0.2, 0.3, 0.4]}, index=["d1", "d2", "d3", "d4"])
    with pytest.warns(UserWarning, match="2 system pair × item"):
        counts = table_battle_counts(table)
    got = {(counts.models[a], counts.models[b], int(o)): int(c) for a, b, o, c in
           zip(counts.a, counts.b, counts.outcome, counts.count, strict=True)}
    # A–B: A wins d1, ties d2, loses d3 (d4: no B); A–C: A wins all 4; B–C: B wins 3
    assert got == {("A", "B", 0): 1, ("A", "B", 2): 1, ("A", "B", 1): 1, ("A", "C", 0): 4,
                   ("B", "C", 0): 3}
    assert counts.source == "scores(datasets)"
    low = table_battle_counts(table.fillna(0.0), higher_is_better=False)
    assert {(low.models[a], low.models[b], int(o)) for a, b, o in
            zip(low.a, low.b, low.outcome, strict=True)} >= {("A", "C", 1)}
    with pytest.raises(VerdictError, match="one system"):
        table_battle_counts(table[["A"]])


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 10_000), st.integers(2, 5), st.integers(1, 3))
def test_battle_counts_are_the_rows_counted(seed, n_systems, n_datasets):
    """battle_counts = the rows of battles_from_scores counted per (model_a, model_b, winner);
    its item patterns hold every battle once; negated scores with higher_is_better=False give
    the same counts."""
    import warnings as _w

    from ranger_eval.verdicts.bradley_terry import battle_counts, battles_from_scores

    rng = np.random.default_rng(seed)
    rows = [(f"d{d}", f"s{k}", f"i{i}", float(rng.integers(0, 4)))
            for d in range(n_datasets) for k in range(n_systems) for i in range(8)
            if rng.random() > 0.15]
    frame = pd.DataFrame(rows, columns=["dataset", "system", "item", "value"])
    with _w.catch_warnings():
        _w.simplefilter("ignore")
        try:
            table = battles_from_scores(frame)
        except VerdictError:
            return   # no item with two systems (or one system): both refuse
        counts = battle_counts(frame)
        flipped = battle_counts(frame.assign(value=-frame.value), higher_is_better=False)
    labels = np.array(["model_a", "model_b", "tie"])
    got = {(counts.models[a], counts.models[b], labels[o]): int(c) for a, b, o, c in
           zip(counts.a, counts.b, counts.outcome, counts.count, strict=True)}
    # the table's rows, with model_a the first of the two names (as battle_counts orders them)
    swap = table.model_a > table.model_b
    first = np.where(swap, table.model_b, table.model_a)
    second = np.where(swap, table.model_a, table.model_b)
    winner = np.where(swap & (table.winner != "tie"),
                      np.where(table.winner == "model_a", "model_b", "model_a"), table.winner)
    expected = pd.Series(list(zip(first, second, winner, strict=True))).value_counts().to_dict()
    assert got == {k: int(v) for k, v in expected.items()}
    n_items = table.groupby(["dataset", "item"]).ngroups
    assert int(counts.cluster_count.sum()) == n_items
    np.testing.assert_array_equal(np.asarray(counts.cluster_count @ counts.cluster_rows).ravel(),
                                  counts.count)
    for name in ("a", "b", "outcome", "count", "cluster_count"):
        np.testing.assert_array_equal(getattr(flipped, name), getattr(counts, name))


def test_battle_counts_same_for_shared_and_unique_item_ids():
    """Item ids shared by the datasets (q0, q1, …: cells indexed directly) and unique per
    dataset (d3/q0: cells hashed) give the same counts and the same leaderboard."""
    from ranger_eval.verdicts.bradley_terry import battle_counts

    rng = np.random.default_rng(2)
    rows = [(f"d{d}", s, f"q{i}", float(rng.integers(0, 3)))
            for d in range(20) for s in ("A", "B", "C") for i in range(3)]
    shared = pd.DataFrame(rows, columns=["dataset", "system", "item", "value"])
    unique = shared.assign(item=shared.dataset + "/" + shared.item)
    a, b = battle_counts(shared), battle_counts(unique)
    for name in ("models", "a", "b", "outcome", "count", "cluster_count"):
        np.testing.assert_array_equal(getattr(a, name), getattr(b, name))
    pd.testing.assert_frame_equal(rg.bradley_terry(a, n_resamples=50).to_frame(),
                                  rg.bradley_terry(b, n_resamples=50).to_frame())
