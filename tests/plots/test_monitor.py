"""plots.monitor: the figure of a monitored sequence."""
from __future__ import annotations

import numpy as np
import pytest

import ranger_eval as rg
from ranger_eval.errors import PlotError
from ranger_eval.plots.monitor import monitor_plot


def test_monitor_figure_marks_the_decision() -> None:
    rng = np.random.default_rng(0)
    s = rg.Scores.from_arrays({"qa": {"A": (rng.random(400) < 0.5).astype(float),
                                      "B": (rng.random(400) < 0.8).astype(float)}})
    res = rg.monitor(s, control="A", treatment="B", margin=0.02)
    fig = res.plot()
    ax = fig.axes[0]
    assert res.decision in ax.get_title()
    assert any(list(line.get_xdata()) == [res.n_used, res.n_used] for line in ax.lines)
    assert any(t.get_gid() == "ranger-signature" for t in fig.texts)


def test_monitor_plot_refuses_other_objects() -> None:
    with pytest.raises(PlotError, match="MonitorResult"):
        monitor_plot(object())
