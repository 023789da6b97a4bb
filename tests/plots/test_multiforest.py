"""Tests of the multi-system forest plot: content, dodging, layout (no overlaps), rcParams."""
from __future__ import annotations

import matplotlib as mpl
import numpy as np
import pytest
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.patches import Polygon

from ranger_eval.effects import EffectSizes
from ranger_eval.errors import PlotError, RenamedKeywordError
from ranger_eval.meta import MetaResult, meta_analysis
from ranger_eval.plots import save_figure
from ranger_eval.plots.multiforest import (
    SYSTEM_COLORS,
    SYSTEM_MARKERS,
    MultiForestColumns,
    MultiForestStyle,
    multi_forest_plot,
)
from tests.helpers.layout import assert_texts_clean, strings, texts

BEIR = ["TREC-COVID", "NFCorpus", "FiQA-2018", "ArguAna", "Touché-2020", "SciFact", "SCIDOCS",
        "Quora"]
SYSTEMS = ["ColBERTv2", "SPLADE++", "Contriever-msmarco"]
Z975 = 1.959963984540054


def results(n_systems: int = 3, k: int = 8, seed: int = 3, drop_last: bool = True,
            measure: str = "SMD", method: str = "REML", level: float = 0.95
            ) -> dict[str, MetaResult]:
    rng = np.random.default_rng(seed)
    names = (BEIR * (k // len(BEIR) + 1))[:k]
    names = [f"{n} {i // len(BEIR) + 1}" if k > len(BEIR) else n for i, n in enumerate(names)]
    out = {}
    for j in range(n_systems):
        nm = names[:-2] if (drop_last and j == 2 and k > 3) else names
        kk = len(nm)
        es = EffectSizes(names=tuple(nm), yi=rng.normal(0.1 + 0.08 * j, 0.15, kk),
                         vi=rng.uniform(0.001, 0.02, kk), n=np.full(kk, 50), measure=measure,
                         mean_treatment=np.zeros(kk), mean_control=np.zeros(kk),
                         treatment=f"S{j}", control="BM25", level=level)
        name = SYSTEMS[j] if j < len(SYSTEMS) else f"System {j + 1}"
        out[name] = meta_analysis(es, method=method, level=level)
    return out


def assert_layout_clean(fig: Figure) -> None:
    """No two non-empty texts overlap, every text lies inside the figure, and no text crosses the
    plotting area."""
    renderer, boxes = assert_texts_clean(fig, 5)
    ax = fig.axes[0]
    ab = ax.get_window_extent(renderer)
    lowest_tick = min(t.get_window_extent(renderer).y0 for t in ax.get_xticklabels()
                      if t.get_text())
    for t in fig.texts:  # row labels, values, legend, footer: never over the plotting area
        b = t.get_window_extent(renderer)
        inside_x = min(b.x1, ab.x1) - max(b.x0, ab.x0) > 0.5
        inside_y = min(b.y1, ab.y1) - max(b.y0, ab.y0) > 0.5
        assert not (inside_x and inside_y), f"{t.get_text()!r} overlaps the plot"
        if b.y1 < ab.y0:  # below the axes: under its tick labels
            assert b.y1 <= lowest_tick + 0.5, t.get_text()


def test_content_legend_rows_summaries_and_footer():
    res = results()
    fig = multi_forest_plot(res, title="Retrievers against BM25 (nDCG@10)")
    got = strings(fig)
    for name in SYSTEMS:
        assert name in got  # legend
        assert f"{name} (RE, REML)" in got  # summary rows
    for name in BEIR:
        assert name in got
    assert "Favours BM25 ← SMD → Favours system" in got
    assert "Retrievers against BM25 (nDCG@10)" in got
    footer = " ".join(got)
    assert "ColBERTv2: random effects (REML), k = 8, τ² = " in footer
    assert "Contriever-msmarco: random effects (REML), k = 6" in footer
    assert "Study intervals: 95% normal CIs; diamonds: 95% CIs of the summary effects." in got
    sigs = [s for s in got if s.startswith("ranger-eval:")]
    assert sigs and all("kind:meta" in s for s in sigs)
    assert_layout_clean(fig)


def test_markers_dodged_in_system_order_with_own_colour_and_shape():
    res = results()
    fig = multi_forest_plot(res)
    ax = fig.axes[0]
    lines = {ln.get_gid(): ln for ln in ax.lines if ln.get_gid()}
    ys = {}
    for j, r in enumerate(res.values()):
        ln = lines[f"system-{j}-markers"]
        np.testing.assert_allclose(np.asarray(ln.get_xdata()), r.yi)
        assert ln.get_marker() == SYSTEM_MARKERS[j]
        assert mpl.colors.to_hex(ln.get_markerfacecolor()) == SYSTEM_COLORS[j].lower()
        ys[j] = np.asarray(ln.get_ydata())
    # first system on top within each row, equal spacing, and the rows do not interleave
    d01 = ys[0][:6] - ys[1][:6]
    d12 = ys[1][:6] - ys[2]
    assert np.all(d01 > 0) and np.allclose(d01, d12) and np.allclose(d01, d01[0])
    assert np.all(np.diff(ys[0]) < -2.5 * d01[0])
    # markers of neighbouring systems do not touch (5 pt markers, spacing in inches)
    assert d01[0] * 72 > 5.0 + 2.0
    # diamonds span each system's CI
    for j, r in enumerate(res.values()):
        poly = next(p for p in ax.patches if isinstance(p, Polygon)
                    and p.get_gid() == f"system-{j}-diamond")
        xy = poly.get_xy()
        assert xy[:, 0].min() == pytest.approx(r.ci_low) and xy[:, 0].max() == pytest.approx(r.ci_high)


def test_values_column_decimal_aligned_with_missing_cells():
    res = results()
    fig = multi_forest_plot(res, columns=MultiForestColumns(values=True), show_prediction=True)
    got = strings(fig)
    assert "SMD [95% CI]" in got
    r = res["ColBERTv2"]
    assert f"{r.yi[0]:.4f}".replace("-", "−") in got
    assert "–" in got  # Contriever has no SCIDOCS / Quora
    # estimates are right-aligned on one x (decimal alignment with fixed decimals)
    canvas = FigureCanvasAgg(fig)
    canvas.draw()
    est = [t for t in fig.texts if t.get_text().replace("−", "-").replace(".", "", 1)
           .lstrip("-").isdigit()]
    assert len(est) >= 8 * 3 - 2
    assert len({round(t.get_position()[0], 9) for t in est}) == 1
    assert {t.get_horizontalalignment() for t in est} == {"right"}
    bold = {t.get_text() for t in fig.texts if t.get_fontweight() in ("bold", 700)}
    assert f"{res['SPLADE++'].estimate:.4f}".replace("-", "−") in bold
    assert "lines through them: prediction intervals" in " ".join(got)
    assert_layout_clean(fig)


@pytest.mark.parametrize(("n_systems", "k", "values"),
                         [(1, 1, False), (1, 5, True), (2, 3, False), (3, 8, True),
                          # the large sizes take seconds each: in the slow run
                          *(pytest.param(*size, marks=pytest.mark.slow)
                            for size in ((5, 12, False), (7, 30, True), (4, 40, False)))])
def test_no_overlap_across_sizes(n_systems, k, values):
    res = results(n_systems, k, seed=k, drop_last=False)
    fig = multi_forest_plot(res, columns=MultiForestColumns(values=values))
    assert_layout_clean(fig)


def test_orders_labels_xlim_arrows_and_fixed_models():
    res = results(2, 6, drop_last=False)
    fig = multi_forest_plot(res, order="name",
                            columns=MultiForestColumns(labels={"SciFact": "SciFact (claims)"}))
    rows = [t.get_text() for t in fig.texts if t.get_text() in BEIR or t.get_text() == "SciFact (claims)"]
    assert rows == sorted(rows, key=str.casefold) or rows[0] == "ArguAna"
    fig = multi_forest_plot(res, order="effect", xlim=(-0.05, 0.05))
    assert fig.axes[0].get_xlim() == (-0.05, 0.05)
    arrows = [ln for ln in fig.axes[0].lines if ln.get_marker() not in SYSTEM_MARKERS
              and np.size(ln.get_xdata()) == 1]
    assert arrows  # clipped whiskers end in arrowheads at the axis edge
    assert_layout_clean(fig)
    fe = {k: meta_analysis(r.yi, r.vi, method="FE", names=r.names) for k, r in res.items()}
    fig = multi_forest_plot(fe, order=list(reversed(BEIR[:6])), control_label="BM25",
                            higher_is_better=False)
    got = strings(fig)
    assert "ColBERTv2 (fixed effect)" in got and "Favours system ← Effect → Favours BM25" in got
    assert_layout_clean(fig)


def test_zcor_back_transformed():
    res = results(2, 5, drop_last=False, measure="ZCOR")
    fig = multi_forest_plot(res, columns=MultiForestColumns(values=True))
    got = strings(fig)
    assert "r [95% CI]" in got and any("back-transformed to r" in s for s in got)
    r = res["ColBERTv2"]
    assert f"{np.tanh(r.estimate):.3f}".replace("-", "−") in got  # 3 decimals: 2 s.f. of 0.012
    ln = next(ln for ln in fig.axes[0].lines if ln.get_gid() == "system-0-markers")
    np.testing.assert_allclose(np.asarray(ln.get_xdata()), np.tanh(r.yi))


def test_rcparams_untouched_and_saving(tmp_path):
    import matplotlib.pyplot as plt

    before = dict(mpl.rcParams)
    n = len(plt.get_fignums())
    with mpl.rc_context({"font.size": 20, "font.family": "serif"}):
        fig = multi_forest_plot(results(), columns=MultiForestColumns(values=True))
    assert dict(mpl.rcParams) == before and len(plt.get_fignums()) == n
    assert {t.get_fontsize() for t in texts(fig)} <= {7.5, 8.5, 9.0, 10.5}
    assert_layout_clean(fig)
    paths = save_figure(fig, tmp_path / "multi")
    assert [p.name for p in paths] == ["multi.pdf", "multi.svg", "multi.png"]
    assert "ColBERTv2" in paths[1].read_text(encoding="utf-8")


def test_bad_input():
    res = results()
    with pytest.raises(PlotError, match="non-empty mapping"):
        multi_forest_plot({})
    with pytest.raises(PlotError, match="non-empty mapping"):
        multi_forest_plot([res["ColBERTv2"]])  # type: ignore[arg-type]
    with pytest.raises(PlotError, match="different confidence levels"):
        multi_forest_plot({"a": res["ColBERTv2"], "b": results(level=0.9)["ColBERTv2"]})
    with pytest.raises(PlotError, match="different effect measures"):
        multi_forest_plot({"a": res["ColBERTv2"], "b": results(measure="MD")["ColBERTv2"]})
    r = res["ColBERTv2"]
    reg = meta_analysis(r.yi, r.vi, moderators={"x": np.arange(r.k)})
    with pytest.raises(PlotError, match="meta-regression"):
        multi_forest_plot({"a": reg})
    with pytest.raises(PlotError, match="not a MetaResult"):
        multi_forest_plot({"a": object()})
    with pytest.raises(PlotError, match="order must be one of"):
        multi_forest_plot(res, order="weight")
    with pytest.raises(PlotError, match="every dataset exactly once"):
        multi_forest_plot(res, order=BEIR[:3])
    with pytest.raises(PlotError, match="unknown dataset"):
        multi_forest_plot(res, columns=MultiForestColumns(labels={"MS MARCO": "x"}))
    with pytest.raises(PlotError, match=r"8 systems: give MultiForestStyle\(colors="):
        multi_forest_plot(results(8, 4, drop_last=False))
    with pytest.raises(PlotError, match="one entry per system"):
        multi_forest_plot(res, style=MultiForestStyle(colors=["red"], markers=["o"]))
    with pytest.raises(PlotError, match="xlim"):
        multi_forest_plot(res, xlim=(1, 1))
    eight = multi_forest_plot(results(8, 4, drop_last=False),
                              style=MultiForestStyle(colors=["C0"] * 8, markers=list("ov^<>sdp")))
    assert_layout_clean(eight)


def test_old_keywords_name_their_replacement():
    """higher_is_better as everywhere else, and the options in two small objects; an
    old keyword is an error naming its replacement."""
    res = results()
    with pytest.raises(RenamedKeywordError, match="higher_is_better"):
        multi_forest_plot(res, lower_is_better=True)  # type: ignore[call-arg]
    with pytest.raises(RenamedKeywordError, match=r"MultiForestColumns\(values="):
        multi_forest_plot(res, show_values=True)  # type: ignore[call-arg]
    with pytest.raises(RenamedKeywordError, match=r"MultiForestStyle\(plot_width="):
        multi_forest_plot(res, plot_width=3.0)  # type: ignore[call-arg]
    with pytest.raises(PlotError, match="plot_width must be at least 1.2"):
        MultiForestStyle(plot_width=1.0)
    with pytest.raises(PlotError, match="fontsize must be at least 4 pt"):
        MultiForestStyle(fontsize=2)
    with pytest.raises(PlotError, match="style must be a MultiForestStyle"):
        multi_forest_plot(res, style={"plot_width": 3.0})  # type: ignore[arg-type]
