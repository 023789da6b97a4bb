"""The heatmap and the p-value plot at 2, 10, 50 and 100 systems use their canvas and stay
readable (at 50 systems the heatmap used to draw a 1-inch strip of 62 pairs without numbers
on a 7-inch canvas, and the p-value plot 1,225 segments over 50 rows).

The comparisons are built from a real one (``compare`` of two systems) with a synthetic table of
k systems whose means are spread so that near neighbours do not differ and distant ones do:
layout and selection rules see the sizes of a real run without its minutes of testing."""
from __future__ import annotations

import dataclasses
import itertools

import numpy as np
import pandas as pd
import pytest

import ranger_eval as rg
from ranger_eval.plots._page import MIN_FONT, PAGE_H, PAGE_W
from ranger_eval.plots.heatmap import (
    BLOCK_GAP,
    CELL_MAX,
    MIN_WIDTH,
    comparison_heatmap,
    heatmap_plan,
)
from ranger_eval.plots.pvalues import PWPP_MAX_PAIRS, pvalue_plot
from tests.helpers.layout import assert_texts_clean, strings

DATASETS = ("squad-v2", "boolq", "natural-questions")


def _comparison(k: int, datasets: tuple[str, ...] = DATASETS, short: bool = False
                ) -> rg.Comparison:
    """k systems with long names and means 0.4 … 0.7; the p-value of a pair falls with the gap
    between its means (and differs a little per dataset)."""
    rng = np.random.default_rng(k)
    df = pd.DataFrame({"dataset": "d", "system": np.repeat(["s0", "s1"], 10), "metric": "F1",
                       "item": [f"q{i}" for i in range(10)] * 2,
                       "value": np.r_[rng.normal(0.5, 0.1, 10), rng.normal(0.6, 0.1, 10)]})
    base = rg.compare(rg.Scores(df), test="paired-t")
    names = [f"s{i:02d}" if short else f"system-{i:03d}-{'instruct' if i % 3 else 'base'}"
             for i in range(k)]
    mean = np.linspace(0.4, 0.7, k)
    rows, means = [], []
    for j, d in enumerate(datasets):
        for a, b in itertools.combinations(range(k), 2):
            diff = mean[a] - mean[b] + 0.01 * j
            p = float(min(1.0, np.exp(-60 * abs(diff)) * (1 + j)))
            rows.append({"dataset": d, "metric": "F1", "system_a": names[a],
                         "system_b": names[b], "diff": diff, "effect_size": diff / 0.1,
                         "pvalue": p, "pvalue_adjusted": p, "significant": p <= 0.05})
        means += [{"dataset": d, "metric": "F1", "system": n, "mean": m}
                  for n, m in zip(names, mean, strict=True)]
    table = pd.DataFrame(rows).reindex(columns=[*base.table.columns])
    for c in base.table.columns:
        if c not in rows[0]:
            table[c] = base.table[c].iloc[0]
    return dataclasses.replace(base, table=table,
                               means=pd.DataFrame(means).reindex(columns=base.means.columns)
                               .fillna({"n": 10}))


def _cells_width(plan: object) -> float:
    lay = plan.layout  # type: ignore[attr-defined]
    n_c = len(plan.cols)  # type: ignore[attr-defined]
    return lay.blocks * (lay.label_w + n_c * lay.cell_w) + (lay.blocks - 1) * BLOCK_GAP


@pytest.mark.parametrize(("k", "cells", "all_pairs"),
                         [(2, "two-line", True), (10, "one-line", True),
                          (50, "one-line", False), (100, "one-line", False)])
def test_heatmap_uses_its_canvas(k: int, cells: str, all_pairs: bool) -> None:
    comp = _comparison(k)
    plan = heatmap_plan(comp)
    lay = plan.layout
    assert lay is not None and lay.cells == cells and plan.annotate  # numbers at every size
    n_pairs = k * (k - 1) // 2
    assert plan.n_pairs == n_pairs and (len(plan.pairs) == n_pairs) == all_pairs
    assert lay.width <= PAGE_W + 1e-9 and lay.height <= PAGE_H + 1e-9
    # the cells and their labels span the canvas (less its 0.3-in margin), unless every cell
    # is already CELL_MAX wide
    assert _cells_width(plan) >= lay.width - 0.3 - 1e-9 or lay.cell_w == CELL_MAX
    assert lay.width >= MIN_WIDTH
    if not all_pairs:  # the page is filled: its width, and rows to its foot
        assert lay.width == pytest.approx(PAGE_W)
        assert lay.height > PAGE_H - lay.cell_h
        assert lay.size == MIN_FONT and plan.compact
        assert (f"showing the {len(plan.pairs)} of {n_pairs:,} pairs significant on the most "
                "columns" in plan.note and "Every cell is in comparison.csv." in plan.note)
    assert not lay.rotate  # three short headers stay horizontal in cells this wide


def test_heatmap_keeps_the_pairs_significant_on_most_columns_then_smallest_p() -> None:
    comp = _comparison(50)
    plan = heatmap_plan(comp)
    g = comp.table.groupby(["system_a", "system_b"], sort=False)
    key = pd.DataFrame({"sig": g["significant"].sum(), "worst": g["pvalue_adjusted"].max()})
    kept = key.loc[list(plan.pairs)]
    dropped = key.drop(index=list(plan.pairs))
    worst_kept = min(zip(-kept["sig"], kept["worst"], strict=True), key=lambda t: (-t[0], -t[1]))
    assert all((-s, w) >= worst_kept for s, w in zip(dropped["sig"], dropped["worst"],
                                                     strict=True))
    # shown in the table's order (rows grouped by their first system), not in p order
    order = {ab: i for i, ab in enumerate(zip(comp.table["system_a"], comp.table["system_b"],
                                              strict=True))}
    assert [order[ab] for ab in plan.pairs] == sorted(order[ab] for ab in plan.pairs)


def test_heatmap_wraps_rows_into_blocks_before_dropping_pairs() -> None:
    comp = _comparison(20, DATASETS[:2], short=True)  # 190 pairs × 2 columns: too tall for
    # one block
    plan = heatmap_plan(comp)
    lay = plan.layout
    assert lay is not None and lay.blocks >= 2 and len(plan.pairs) == 190
    assert lay.rows * lay.blocks >= 190 > lay.rows * (lay.blocks - 1)
    fig = comparison_heatmap(comp)
    assert len(fig.axes) == lay.blocks
    labels = [t.get_text() for ax in fig.axes for t in ax.get_yticklabels()]
    assert len(labels) == 190 == len(set(labels))


@pytest.mark.slow  # 0.9 s: draws and checks 250 texts for overlaps
def test_heatmap_of_50_systems_draws_readable_numbers() -> None:
    comp = _comparison(50)
    plan = heatmap_plan(comp)
    fig = comparison_heatmap(comp)
    w, h = fig.get_size_inches()
    assert (w, h) == pytest.approx((plan.layout.width, plan.layout.height))
    ax = fig.axes[0]
    cell_texts = [t.get_text() for t in ax.texts]
    assert len(cell_texts) == 3 * len(plan.pairs)
    assert all(t.startswith(("\u2212", "+", "0")) for t in cell_texts)  # a difference each
    assert min(t.get_fontsize() for t in ax.texts) >= MIN_FONT
    assert_texts_clean(fig)


def test_pvalue_plot_switches_to_dots_beyond_pwpp_max_pairs() -> None:
    small = pvalue_plot(_comparison(10), dataset="boolq")  # 45 pairs: emmeans' segments
    assert PWPP_MAX_PAIRS == 45
    assert sum(str(ln.get_gid()).startswith("pair:") for ln in small.axes[0].lines) == 45
    assert not [c for c in small.axes[0].collections if c.get_gid() == "dots-higher"]
    comp = _comparison(11)  # 55 pairs: two dots each, no segments
    fig = pvalue_plot(comp, dataset="boolq")
    ax = fig.axes[0]
    assert not [ln for ln in ax.lines if str(ln.get_gid()).startswith("pair:")]
    dots = {c.get_gid(): c.get_offsets() for c in ax.collections
            if str(c.get_gid()).startswith("dots-")}
    assert len(dots["dots-higher"]) == len(dots["dots-lower"]) == 55
    # the higher system's dot lies on a row above the lower one's (best at the top)
    assert np.all(dots["dots-higher"][:, 1] > dots["dots-lower"][:, 1])
    t = comp.table[comp.table["dataset"] == "boolq"]
    counts = [a.get_text() for a in ax.texts if a.get_gid() == "row-count"]
    top = t["system_a"].iloc[0]  # system-000, the lowest mean: bottom row
    expected = int(((t["system_a"] == top) | (t["system_b"] == top))[t["significant"]].sum())
    assert counts[-1] == f"{expected}/10"
    assert any(f"{int(t['significant'].sum())} of 55 pairs with p ≤ α" in s
               for s in strings(fig))


@pytest.mark.slow  # 0.4 s
def test_pvalue_plot_of_50_systems_fits_a_page_readably() -> None:
    fig = pvalue_plot(_comparison(50), dataset="boolq")
    w, h = fig.get_size_inches()
    assert w <= PAGE_W + 1e-9 and h <= PAGE_H + 1e-9
    assert_texts_clean(fig)
