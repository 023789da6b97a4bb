"""plots.subset: the figure of a whole-benchmark estimate from a subset."""
from __future__ import annotations

import numpy as np
import pytest

import ranger_eval as rg
from ranger_eval.errors import PlotError
from ranger_eval.plots.subset import subset_plot


def _estimate() -> tuple[rg.SubsetEstimate, dict, float]:
    rng = np.random.default_rng(1)
    ability, difficulty = rng.normal(size=31), rng.normal(0, 2, size=300)
    p = 1 / (1 + np.exp(-(ability[:, None] - difficulty)))
    table = (rng.random(p.shape) < p).astype(int)
    subset = rg.choose_subset(table[:30], 80, seed=2)
    responses = {i: int(table[30, i]) for i in subset.items}
    return rg.estimate_from_subset(table[:30], responses), responses, float(table[30].mean())


def test_subset_figure_draws_both_intervals_the_truth_and_the_calibration() -> None:
    est, responses, truth = _estimate()
    fig = subset_plot(est, responses, full_mean=truth)
    left, right = fig.axes
    segments = [tuple(line.get_xdata()) for line in left.lines if len(line.get_xdata()) == 2]
    assert (est.low, est.high) in segments and (est.subset_low, est.subset_high) in segments
    assert any(tuple(line.get_xdata()) == (truth, truth) for line in left.lines)
    assert f"worth {est.effective_n:,.0f} random items" in left.get_title()
    # 80 items: 8 groups of 10 (at least 10 items a group): x mean prediction, y share right
    pred = est.predictions.reindex(list(responses)).to_numpy()
    obs = np.array(list(responses.values()), dtype=float)
    order = np.argsort(pred, kind="stable")
    xs, ys = right.containers[0].lines[0].get_data()
    assert len(xs) == 8
    assert np.allclose(xs, [pred[g].mean() for g in np.array_split(order, 8)])
    assert np.allclose(ys, [obs[g].mean() for g in np.array_split(order, 8)])
    assert any(t.get_gid() == "ranger-signature" for t in fig.texts)


def test_subset_figure_without_responses_has_one_panel() -> None:
    est, _, _ = _estimate()
    assert len(subset_plot(est).axes) == 1


def test_subset_plot_refuses_other_objects_and_unknown_items() -> None:
    est, _, _ = _estimate()
    with pytest.raises(PlotError, match="SubsetEstimate"):
        subset_plot(object())
    with pytest.raises(PlotError, match="no prediction"):
        subset_plot(est, {"nope": 1})
