"""compare on many small dataset × metric groups: the array path across
groups (``_uniform_paired_t``) gives exactly the numbers of comparing each group alone, the
vectorised family adjustment equals one call per family, and the human reports of
``ranger-eval compare`` are capped above ``REPORT_MAX_GROUPS`` groups while comparison.csv stays
complete."""
from __future__ import annotations

import sys
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import ranger_eval as rg
from ranger_eval.comparison.fastpath import _uniform_paired_t
from ranger_eval.comparison.multiplicity import _adjust_families
from ranger_eval.pipeline import REPORT_MAX_GROUPS, run_compare
from ranger_eval.stats import adjust_pvalues


def _table(groups: int, items: int = 2, systems: int = 2, seed: int = 0) -> pd.DataFrame:
    """groups datasets × ``systems`` systems × ``items`` items, rows shuffled."""
    rng = np.random.default_rng(seed)
    rows = []
    base = rng.normal(0.5, 0.1, size=(groups, items))
    for s in range(systems):
        v = base + rng.normal(0.02 * s, 0.05, size=(groups, items))
        for g in range(groups):
            for i in range(items):
                rows.append((f"d{g}", f"S{s}", f"q{i}", float(v[g, i])))
    df = pd.DataFrame(rows, columns=["dataset", "system", "item", "value"])
    return df.sample(frac=1.0, random_state=seed).reset_index(drop=True)


def test_many_groups_equal_each_group_alone() -> None:
    df = _table(20_000, seed=1)
    # a few degenerate groups: equal differences (constant, n = 2) and identical systems
    exact = {("S0", "q0"): 0.5, ("S0", "q1"): 0.75, ("S1", "q0"): 0.75, ("S1", "q1"): 1.0}
    for (system, item), value in exact.items():  # d5: differences exactly -0.25, -0.25
        df.loc[(df.dataset == "d5") & (df.system == system) & (df.item == item), "value"] = value
    s0 = df[(df.dataset == "d6") & (df.system == "S0")].set_index("item")["value"]
    rows = (df.dataset == "d6") & (df.system == "S1")  # d6: S1 = S0
    df.loc[rows, "value"] = df.loc[rows, "item"].map(s0).to_numpy()
    order = ["S0", "S1"]  # systems in the order of the whole table, not of each group's rows
    comp = rg.compare(df, correction="none", systems=order)
    assert len(comp.table) == 20_000
    assert comp.table["pvalue"].notna().all()
    rng = np.random.default_rng(2)
    sample = ["d5", "d6", *(f"d{g}" for g in rng.choice(20_000, 40, replace=False))]
    for name in sample:
        alone = rg.compare(df[df.dataset == name], correction="none", systems=order)
        got = comp.table[comp.table.dataset == name].reset_index(drop=True)
        pd.testing.assert_frame_equal(got, alone.table, check_exact=True)
    d5 = comp.table[comp.table.dataset == "d5"].iloc[0]
    assert d5["pvalue"] == 0.0 and d5["diff"] == pytest.approx(-0.25)
    assert comp.table[comp.table.dataset == "d6"].iloc[0]["pvalue"] == 1.0


@pytest.mark.parametrize("kwargs", [
    {}, {"pairs": "baseline", "baseline": "S1"}, {"alternative": "greater", "correction": "BH"},
    {"family": "all", "correction": "holm"}, {"systems": ["S2", "S0", "S1"]},
    {"pairs": "successive", "alternative": "greater"},
    {"pairs": [("S2", "S0"), ("S1", "S2")], "alternative": "less"},
])
def test_array_path_equals_group_by_group(kwargs: dict, monkeypatch: pytest.MonkeyPatch) -> None:
    df = _table(300, items=4, systems=3, seed=3)
    df = pd.concat([df, df.assign(metric="other", value=df.value * 2)], ignore_index=True)
    df["metric"] = df["metric"].fillna("m")
    fast = rg.compare(df, **kwargs)
    monkeypatch.setattr(sys.modules["ranger_eval.comparison.compare"], "_uniform_paired_t", lambda *a, **k: None)
    slow = rg.compare(df, **kwargs)
    pd.testing.assert_frame_equal(fast.table, slow.table, check_exact=True)
    pd.testing.assert_frame_equal(fast.means, slow.means, check_exact=True)
    assert fast.tests_used == slow.tests_used == ("paired-t",)


def test_array_path_declines_what_it_does_not_cover() -> None:
    ragged = _table(50, items=3, seed=5)
    ragged = ragged[~((ragged.dataset == "d3") & (ragged.system == "S1") & (ragged.item == "q0"))]
    assert _uniform_paired_t(rg.Scores(ragged), None, "all", None, "two-sided", 0.95) is None
    huge = _table(20, seed=6).assign(value=lambda d: d.value * 1e305)
    assert _uniform_paired_t(rg.Scores(huge), None, "all", None, "two-sided", 0.95) is None


@pytest.mark.parametrize("method", ["none", "bonferroni", "sidak", "holm", "holm-sidak",
                                    "simes-hochberg", "fdr_bh", "fdr_by"])
def test_family_adjustment_equals_one_call_per_family(method: str) -> None:
    rng = np.random.default_rng(7)
    families = rng.integers(0, 500, 4000)
    p = rng.choice(np.r_[rng.random(30), 0.0, 1.0], 4000)  # ties, 0 and 1
    out = np.empty(p.size)
    assert _adjust_families(out, p, families, method)
    for f in np.unique(families):
        rows = np.flatnonzero(families == f)
        np.testing.assert_array_equal(out[rows], adjust_pvalues(p[rows], correction=method))


def test_family_adjustment_declines_other_methods_and_bad_pvalues() -> None:
    out = np.empty(3)
    assert not _adjust_families(out, np.array([0.1, 0.2, 0.3]), np.zeros(3, int), "fdr_tsbh")
    assert not _adjust_families(out, np.array([0.1, np.nan, 0.3]), np.zeros(3, int), "holm")


def test_compare_reports_capped(tmp_path: Path) -> None:
    groups = REPORT_MAX_GROUPS + 50
    path = tmp_path / "scores.csv"
    _table(groups, items=3, seed=8).to_csv(path, index=False)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        run = run_compare(path, tmp_path / "out", figures="png")
    assert any("reports capped" in w and f"{groups:,}" in w for w in run.warnings)
    out = tmp_path / "out"
    assert len(pd.read_csv(out / "comparison.csv", comment="#")) == groups  # data: complete
    note = f"Showing the first {REPORT_MAX_GROUPS} of {groups:,} dataset × metric groups"
    md = (out / "comparison.md").read_text()
    assert note in md
    shown = [line.split("|")[1].strip() for line in md.splitlines() if line.startswith("| d") and "dataset" not in line]
    assert len(shown) == REPORT_MAX_GROUPS  # one comparison per group
    full = pd.read_csv(out / "comparison.csv", comment="#")
    assert shown == list(full["dataset"][:REPORT_MAX_GROUPS])  # the first groups, in order
    for name in ("comparison.tex", "comparison.html", "leaderboard.md", "leaderboard.tex"):
        assert note in (out / name).read_text(), name
    assert not list(out.glob("*.png"))  # no figures above the cap


def test_compare_reports_not_capped_at_the_cap(tmp_path: Path) -> None:
    path = tmp_path / "scores.csv"
    _table(3, items=3, seed=9).to_csv(path, index=False)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        run = run_compare(path, tmp_path / "out", figures="none")
    assert not any("reports capped" in w for w in run.warnings)
    assert "Showing the first" not in (tmp_path / "out" / "comparison.md").read_text()


def test_capped_comparison_keeps_the_first_groups_in_order_with_every_row() -> None:
    """The reports' cap (integer group codes, no MultiIndex of a million tuples) keeps exactly
    the first REPORT_MAX_GROUPS dataset × metric groups in order of first appearance, with all
    of their rows and means, for datasets and metrics given in any order."""
    from ranger_eval.pipeline import capped_comparison

    rng = np.random.default_rng(5)
    datasets = [f"d{i}" for i in rng.permutation(REPORT_MAX_GROUPS + 37)]
    rows = [(d, m, s, f"q{i}", float(rng.random())) for d in datasets for m in ("m2", "m1")
            for s in ("A", "B") for i in range(2)]
    comp = rg.compare(pd.DataFrame(rows, columns=["dataset", "metric", "system", "item",
                                                  "value"]), test="paired-t")
    with pytest.warns(UserWarning, match="reports capped"):
        shown, groups, note = capped_comparison(comp)
    seen = list(dict.fromkeys(zip(comp.means["dataset"], comp.means["metric"], strict=True)))
    assert groups == seen and len(groups) == 2 * len(datasets)
    kept = set(seen[:REPORT_MAX_GROUPS])
    want = comp.table[[k in kept for k in zip(comp.table["dataset"], comp.table["metric"],
                                              strict=True)]]
    pd.testing.assert_frame_equal(shown.table, want.reset_index(drop=True))
    assert set(zip(shown.means["dataset"], shown.means["metric"], strict=True)) == kept
    assert note is not None and f"{len(groups):,}" in note


def test_capped_comparison_leaves_out_a_kept_datasets_metric_that_no_kept_group_has() -> None:
    """A kept dataset's rows of a metric outside every kept group (the cap falls inside the
    dataset, before its second metric) are left out, and so are all rows after the cap."""
    from ranger_eval.pipeline import capped_comparison

    rng = np.random.default_rng(6)
    datasets = [f"d{i}" for i in range(REPORT_MAX_GROUPS + 5)]
    rows = [(d, m, s, f"q{i}", float(rng.random())) for d in datasets
            for m in (("one", "other") if d == f"d{REPORT_MAX_GROUPS - 1}" else ("one",))
            for s in ("A", "B") for i in range(2)]
    comp = rg.compare(pd.DataFrame(rows, columns=["dataset", "metric", "system", "item",
                                                  "value"]), test="paired-t")
    with pytest.warns(UserWarning, match="reports capped"):
        shown, groups, _ = capped_comparison(comp)
    assert len(groups) == len(datasets) + 1 and ("d199", "other") == groups[REPORT_MAX_GROUPS]
    assert list(zip(shown.table["dataset"], shown.table["metric"], strict=True)) == \
        [(d, "one") for d in datasets[:REPORT_MAX_GROUPS]]


def test_capped_view_has_the_standard_errors_describe_gives_its_groups() -> None:
    """The capped reports' leaderboard reads the full result's describe table, filtered to its
    groups (describe runs once per run): its se, n, n_clusters and intervals equal describe
    asked on those groups alone, and comparison.json's means (described_means) equal describe
    row for row, for means in any order."""
    from ranger_eval.pipeline import capped_comparison

    rng = np.random.default_rng(7)
    datasets = [f"d{i}" for i in rng.permutation(REPORT_MAX_GROUPS + 11)]
    rows = [(d, s, f"q{i}", float(rng.random() < 0.6)) for d in datasets for s in ("A", "B")
            for i in range(6)]
    comp = rg.compare(pd.DataFrame(rows, columns=["dataset", "system", "item", "value"]),
                      test="paired-t")
    with pytest.warns(UserWarning, match="reports capped"):
        shown, _, _ = capped_comparison(comp)
    fresh = comp._described(shown.means)  # describe on the shown groups alone
    view = shown._described_all
    assert view is not None and fresh is not None
    keys = ["dataset", "metric", "system"]
    pd.testing.assert_frame_equal(view.sort_values(keys).reset_index(drop=True),
                                  fresh.sort_values(keys).reset_index(drop=True))
    board = shown.leaderboard()
    assert board.se is not None and np.isfinite(board.se).all()
    full = rg.describe(comp.scores).set_index(keys)
    dm = comp.described_means().set_index(keys)
    for col in ("se", "n_clusters", "ci_low", "ci_high", "interval"):
        assert dm[col].tolist() == full.loc[dm.index, col].tolist()
