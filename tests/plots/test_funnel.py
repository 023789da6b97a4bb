"""Tests of the funnel plot: geometry as metafor's funnel(), Egger line, layout, rcParams, saving."""
from __future__ import annotations

import json
import warnings
from pathlib import Path
from typing import Any

import matplotlib as mpl
import numpy as np
import pytest
from matplotlib.collections import PathCollection
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.patches import Polygon

from ranger_eval.errors import PlotError, RenamedKeywordError
from ranger_eval.meta import MetaResult, meta_analysis, regtest
from ranger_eval.plots import ForestStyle, save_figure
from ranger_eval.plots.funnel import FunnelStyle, funnel_plot
from tests.helpers.layout import assert_texts_clean, strings, texts

ORACLE = json.loads((Path(__file__).parents[1] / "oracles" / "metafor_modreg.json").read_text())
BCG = next(ds for ds in ORACLE["datasets"] if ds["name"] == "bcg_logRR")
MOLLOY = next(ds for ds in ORACLE["datasets"] if ds["name"] == "molloy_zcor")
Z975 = 1.959963984540054


def bcg(method: str = "REML", **kw: Any) -> MetaResult:
    return meta_analysis(BCG["yi"], BCG["vi"], method=method, names=BCG["slab"], **kw)


def assert_layout_clean(fig: Figure) -> None:
    """No two non-empty texts overlap, and every text lies inside the figure."""
    renderer, boxes = assert_texts_clean(fig, 5)
    # the legend and footer stay below the x label and tick labels
    ax = fig.axes[0]
    bottom = min(t.get_window_extent(renderer).y0 for t in ax.get_xticklabels() + [ax.xaxis.label]
                 if t.get_text())
    top = ax.get_window_extent(renderer).y1
    for t in fig.texts:  # title above the axes; legend and footer below its labels
        b = t.get_window_extent(renderer)
        assert b.y1 <= bottom + 0.5 or b.y0 >= top - 0.5, t.get_text()


def test_geometry_matches_metafor_funnel():
    res = bcg()
    fig = funnel_plot(res)
    ax = fig.axes[0]
    sei = np.sqrt(np.array(BCG["vi"]))
    # inverted y axis with SE = 0 at the top, the largest SE at or just above the bottom
    y0, y1 = ax.get_ylim()
    assert y1 == 0.0 and sei.max() <= y0 <= 1.25 * sei.max()
    # the points are (yi, sei)
    pts = next(c for c in ax.collections if isinstance(c, PathCollection)
               and c.get_gid() == "study-points")
    np.testing.assert_allclose(np.asarray(pts.get_offsets()), np.column_stack([BCG["yi"], sei]))
    # the region: apex at the estimate, base at estimate ± 1.96 × bottom SE (metafor, addtau2=F)
    region = next(p for p in ax.patches if isinstance(p, Polygon) and p.get_gid() == "funnel-region")
    xy = region.get_xy()[:3]
    np.testing.assert_allclose(xy[1], [res.estimate, 0.0])
    np.testing.assert_allclose(xy[[0, 2], 0], res.estimate + np.array([-1, 1]) * Z975 * y0)
    np.testing.assert_allclose(xy[[0, 2], 1], [y0, y0])
    # x range: studies and base, 10% padding per side (metafor)
    lo, hi = min(xy[0, 0], min(BCG["yi"])), max(xy[2, 0], max(BCG["yi"]))
    np.testing.assert_allclose(ax.get_xlim(), (lo - 0.1 * (hi - lo), hi + 0.1 * (hi - lo)))
    summary = next(ln for ln in ax.lines if ln.get_gid() == "summary-line")
    np.testing.assert_allclose(np.asarray(summary.get_xdata()), [res.estimate, res.estimate])
    got = strings(fig)
    assert "Standard error" in got and "Effect" in got
    assert "Study (k = 13)" in got
    assert "Summary estimate −0.71 (random effects, REML)" in got
    assert "95% pseudo-confidence region, estimate ± 1.96 × SE" in got
    assert "No effect (0)" in got
    assert str(res.signature) in got
    assert_layout_clean(fig)


def test_egger_line_and_statistic_from_regtest():
    res = bcg()
    rt = regtest(res)
    fig = funnel_plot(res, regtest=rt)
    ax = fig.axes[0]
    line = next(ln for ln in ax.lines if ln.get_gid() == "egger-line")
    x, y = np.asarray(line.get_xdata()), np.asarray(line.get_ydata())
    assert rt.limit_estimate is not None
    assert y[0] == 0.0 and x[0] == pytest.approx(rt.limit_estimate)
    np.testing.assert_allclose(x, rt.limit_estimate + rt.slope * y)
    got = " ".join(strings(fig))
    # metafor regtest(res): z = -0.8033, p = 0.4218, limit estimate b = -0.5104
    assert "Egger's regression test: z = −0.80, p = 0.42; limit estimate −0.51" in got
    assert_layout_clean(fig)
    # t test and an lm fit; a predictor without a line (sample size) still prints its test
    knha = bcg(test="knha")
    fig = funnel_plot(knha, regtest=regtest(knha, model="lm"))
    assert "Egger's test (weighted lm): t(11) = " in " ".join(strings(fig))
    fig = funnel_plot(res, regtest=regtest(res, predictor="ni", ni=BCG["ni"]))
    assert not any(ln.get_gid() == "egger-line" for ln in fig.axes[0].lines)
    assert any("Egger's regression test: z = " in s for s in strings(fig))
    vi_rt = regtest(res, predictor="vi")
    line = next(ln for ln in funnel_plot(res, regtest=vi_rt).axes[0].lines
                if ln.get_gid() == "egger-line")
    y = np.asarray(line.get_ydata())
    assert vi_rt.limit_estimate is not None
    np.testing.assert_allclose(np.asarray(line.get_xdata()),
                               vi_rt.limit_estimate + vi_rt.slope * y**2)


@pytest.mark.parametrize("method", ["FE", "DL", "PM"])
def test_models_labels_and_zcor(method):
    res = meta_analysis(MOLLOY["yi"], MOLLOY["vi"], method=method, names=MOLLOY["slab"])
    res = type(res)(**{**res.__dict__, "measure": "ZCOR"})
    fig = funnel_plot(res, title="Conscientiousness and medication adherence", level=0.90)
    got = strings(fig)
    assert "Fisher's z" in got and "Conscientiousness and medication adherence" in got
    assert "90% pseudo-confidence region, estimate ± 1.64 × SE" in got
    model = {"FE": "fixed effect", "DL": "random effects, DerSimonian–Laird",
             "PM": "random effects, Paule–Mandel"}[method]
    assert any(s.endswith(f"({model})") for s in got)
    assert_layout_clean(fig)


@pytest.mark.parametrize("k", [1, 2, 5, 60])
def test_layout_from_1_to_60_studies(k):
    rng = np.random.default_rng(k)
    vi = rng.uniform(1e-4, 0.3, k)
    res = meta_analysis(rng.normal(0.2, 0.3, k), vi)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fig = funnel_plot(res, regtest=regtest(res) if k >= 3 else None)
    assert_layout_clean(fig)


def test_tiny_scale_and_fixed_xlim():
    res = meta_analysis([1e-4, 2e-4, -1e-4, 3e-4], [1e-9, 4e-9, 2e-9, 9e-9])
    fig = funnel_plot(res)
    assert_layout_clean(fig)
    fig = funnel_plot(bcg(), xlim=(-3, 2))
    assert fig.axes[0].get_xlim() == (-3.0, 2.0)


def test_rcparams_untouched_not_in_pyplot_and_saving(tmp_path):
    import matplotlib.pyplot as plt

    before = dict(mpl.rcParams)
    n = len(plt.get_fignums())
    with mpl.rc_context({"font.size": 20, "font.family": "serif", "axes.unicode_minus": False}):
        fig = funnel_plot(bcg(), regtest=regtest(bcg()))
    assert dict(mpl.rcParams) == before and len(plt.get_fignums()) == n
    assert {t.get_fontsize() for t in texts(fig)} <= {8.5, 9.0, 10.5}
    assert_layout_clean(fig)
    paths = save_figure(fig, tmp_path / "funnel")
    assert [p.name for p in paths] == ["funnel.pdf", "funnel.svg", "funnel.png"]
    assert "Standard error" in paths[1].read_text(encoding="utf-8")
    assert dict(mpl.rcParams) == before


def test_bad_input():
    res = bcg()
    with pytest.raises(PlotError, match="moderators"):
        funnel_plot(meta_analysis(BCG["yi"], BCG["vi"], moderators={"ablat": BCG["columns"]["ablat"]}))
    with pytest.raises(PlotError, match="needs a MetaResult"):
        funnel_plot(object())
    short = meta_analysis(BCG["yi"][:5], BCG["vi"][:5])
    with pytest.raises(PlotError, match="regtest is of 5 studies but the result has 13"):
        funnel_plot(res, regtest=regtest(short))
    with pytest.raises(PlotError, match="RegTestResult"):
        funnel_plot(res, regtest=res)
    with pytest.raises(PlotError, match="level"):
        funnel_plot(res, level=95)
    with pytest.raises(PlotError, match="plot_size"):
        FunnelStyle(plot_size=(1.0, 3.0))
    with pytest.raises(PlotError, match="style must be a FunnelStyle"):
        funnel_plot(res, style=ForestStyle())  # type: ignore[arg-type]
    with pytest.raises(RenamedKeywordError, match=r"FunnelStyle\(plot_size="):
        funnel_plot(res, plot_size=(4.0, 3.0))  # type: ignore[call-arg]
    with pytest.raises(PlotError, match="xlim"):
        funnel_plot(res, xlim=(1.0, -1.0))
    assert all(isinstance(a, Line2D) for a in funnel_plot(res).axes[0].lines)


def test_style_sets_the_plot_size_and_font():
    small = funnel_plot(bcg(), style=FunnelStyle(plot_size=(2.0, 2.0), fontsize=7))
    large = funnel_plot(bcg())
    assert small.get_figwidth() < large.get_figwidth()
    assert small.get_figheight() < large.get_figheight()
    assert {t.get_fontsize() for t in texts(small)} <= {6.5, 7.0, 8.5}
