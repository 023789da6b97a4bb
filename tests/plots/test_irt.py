"""plots.irt: item characteristic curves and item information of an IRT fit."""
from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from matplotlib.backends.backend_agg import FigureCanvasAgg

import ranger_eval as rg
from ranger_eval.errors import PlotError
from ranger_eval.plots.irt import choose_items, irt_plot


@pytest.fixture(scope="module")
def fit() -> rg.IRTResult:
    rng = np.random.default_rng(3)
    n, k = 60, 120
    th = rng.normal(size=n)
    b = 1.3 * rng.normal(size=k)
    x = (rng.random((n, k)) < 1 / (1 + np.exp(-(th[:, None] - b)))).astype(int)
    x[:, 5] = rng.random(n) < 0.5                                   # noise: a misfit
    x[:, 17] = rng.random(n) < 1 / (1 + np.exp(2 * th))             # reversed: a misfit
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return rg.irt(pd.DataFrame(x, columns=[f"q{j}" for j in range(k)]))


def test_subset_holds_the_worst_misfits_and_spans_the_difficulties(fit: rg.IRTResult) -> None:
    shown = choose_items(fit, 8)
    bad = np.maximum(abs(fit.infit - 1), abs(fit.outfit - 1))[fit.misfit]
    assert len(shown) == 8 and set(bad.nlargest(4).index) <= set(shown) and "q17" in shown
    b = fit.difficulty
    assert b.idxmin() in shown and b.idxmax() in shown
    assert list(b[shown]) == sorted(b[shown])


def test_figure_has_one_curve_per_item_a_legend_and_the_signature(fit: rg.IRTResult) -> None:
    fig = fit.plot(max_items=6)
    icc, info = fig.axes[0], fig.axes[1]
    assert len(icc.lines) == 6 and len(info.lines) == 6
    labels = [t.get_text() for t in fig.legends[0].get_texts()]
    assert any("(misfit)" in t for t in labels) and labels[-1].startswith("test information")
    assert any(t.get_gid() == "ranger-signature" for t in fig.texts)
    # the legend sits below the panels' axis labels: no overlap with either axes
    renderer = FigureCanvasAgg(fig).get_renderer()
    legend = fig.legends[0].get_window_extent(renderer)
    for ax in (icc, info):
        assert legend.y1 <= ax.get_tightbbox(renderer).y0 + 1


def test_chosen_items_and_refusals(fit: rg.IRTResult) -> None:
    fig = irt_plot(fit, items=["q1", "q2"])
    assert len(fig.axes[0].lines) == 2
    with pytest.raises(PlotError, match="not fitted"):
        irt_plot(fit, items=["nope"])
    with pytest.raises(PlotError, match="IRTResult"):
        irt_plot(object())
