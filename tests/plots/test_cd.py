"""Tests of the critical-difference diagram: content, layout (no overlapping or clipped text),
literal names, saving and rcParams. Every figure is drawn from a real ``rank_test`` result."""
from __future__ import annotations

import itertools
import warnings

import matplotlib as mpl
import numpy as np
import pandas as pd
import pytest
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.text import Text

from ranger_eval.aggregate.ranktests import rank_test
from ranger_eval.errors import PlotError
from ranger_eval.plots import save_figure
from ranger_eval.plots.cd import cd_diagram
from tests.helpers.layout import assert_texts_clean, strings, texts

# Demšar (2006), Table 6: AUC of C4.5 (m = 0, cf = 0.25), with m tuned, with cf tuned, with both
# tuned, on 14 UCI data sets, as printed (3 decimals). §3.2.4 works the Nemenyi test on it:
# k = 4, N = 14, q_0.05 = 2.569, CD = 2.569·sqrt(4·5/(6·14)) = 1.25.
DEMSAR_SYSTEMS = ["C4.5", "C4.5+m", "C4.5+cf", "C4.5+m+cf"]
DEMSAR_AUC = [
    [0.763, 0.768, 0.771, 0.798], [0.599, 0.591, 0.590, 0.569], [0.954, 0.971, 0.968, 0.967],
    [0.628, 0.661, 0.654, 0.657], [0.882, 0.888, 0.886, 0.898], [0.936, 0.931, 0.916, 0.931],
    [0.661, 0.668, 0.609, 0.685], [0.583, 0.583, 0.563, 0.625], [0.775, 0.838, 0.866, 0.875],
    [1.000, 1.000, 1.000, 1.000], [0.940, 0.962, 0.965, 0.962], [0.619, 0.666, 0.614, 0.669],
    [0.972, 0.981, 0.975, 0.975], [0.957, 0.978, 0.946, 0.970],
]


def demsar(**kwargs):
    return rank_test(pd.DataFrame(DEMSAR_AUC, columns=DEMSAR_SYSTEMS), **kwargs)


def random_table(k: int, n: int, seed: int = 0) -> pd.DataFrame:
    """k systems of increasing skill on n datasets; every third name long, with $ and _."""
    rng = np.random.default_rng(seed)
    values = np.linspace(0.0, 1.5, k) + rng.normal(0.0, 1.0, (n, k))
    names = [f"sys_{i:02d}" if i % 3 else f"$model_{i}$ (run {i}, long name)" for i in range(k)]
    return pd.DataFrame(values, columns=names)


def lines(fig: Figure, gid: str) -> list[Line2D]:
    return [ln for ln in fig.findobj(Line2D) if ln.get_gid() == gid]


def labels(fig: Figure) -> list[Text]:
    return [t for t in texts(fig) if t.get_gid() == "label"]


def assert_layout_clean(fig: Figure) -> None:
    """No two texts overlap, every text lies inside the figure, no text touches a clique bar."""
    renderer, boxes = assert_texts_clean(fig, 5)
    for bar in lines(fig, "clique") + lines(fig, "control-band") + lines(fig, "elbow"):
        bb = bar.get_window_extent(renderer)
        for s, b in boxes:
            ox = min(b.x1, bb.x1) - max(b.x0, bb.x0)
            oy = min(b.y1, bb.y1) - max(b.y0, bb.y0)
            if bar.get_gid() == "elbow":  # an elbow only ends next to its own label
                continue
            assert not (ox > 0.5 and oy > 0.5), f"text {s!r} overlaps a bar"


def axis_scale(fig: Figure, k: int) -> tuple[float, float]:
    """(x of rank 1, inches per rank) from the drawn rank axis."""
    (axis,) = lines(fig, "rank-axis")
    x1, xk = axis.get_xdata()
    return float(x1), (float(xk) - float(x1)) / (k - 1)


# --------------------------------------------------------------------------- content


def test_demsar_example():
    rt = demsar()
    assert rt.critical_difference == pytest.approx(1.25, abs=0.005)
    fig = cd_diagram(rt, title="C4.5 variants")
    got = strings(fig)
    assert "CD = 1.25" in got and "C4.5 variants" in got
    assert {"1", "2", "3", "4"} <= set(got)
    ranks = rt.average_ranks
    best_half = list(ranks.index[:2])
    for name, r in ranks.items():
        label = f"{name}  {r:.2f}" if name in best_half else f"{r:.2f}  {name}"
        assert label in got, label
    # best half on the left of the axis (labels right-aligned), worse half on the right
    x1, unit = axis_scale(fig, 4)
    for t in labels(fig):
        on_left = any(t.get_text().startswith(n + "  ") for n in best_half)
        assert (t.get_position()[0] < x1) == on_left
        assert t.get_ha() == ("right" if on_left else "left")
    # the CD bar is CD rank units long; one clique bar per clique, spanning its members' ranks
    (bar,) = lines(fig, "cd-bar")
    assert np.ptp(bar.get_xdata()) / unit == pytest.approx(rt.critical_difference)
    cliques = lines(fig, "clique")
    assert len(cliques) == len(rt.cliques) >= 1
    for clique, ln in zip(rt.cliques, cliques, strict=True):
        lo, hi = (min(ranks[list(clique)]), max(ranks[list(clique)]))
        xs = ln.get_xdata()
        assert min(xs) < x1 + (lo - 1) * unit < x1 + (hi - 1) * unit < max(xs)
        assert ln.get_linewidth() >= 3
    # footer: what the bars mean, the Friedman test, the signature
    assert "Bars join systems not significantly different (Nemenyi test, α\u00a0=\u00a00.05)." in got
    # the footer says which Friedman statistic (tie-corrected, the default)
    assert any(s.startswith("Average ranks over N = 14 datasets; Friedman χ²(3) tie-corrected = ")
               for s in got)
    assert any("kind:rank" in s and "posthoc:nemenyi" in s for s in got)
    assert min(t.get_fontsize() for t in texts(fig)) >= 7
    assert_layout_clean(fig)


def test_elbows_hang_from_the_average_ranks_without_crossing():
    rt = rank_test(random_table(9, 25, seed=3))
    fig = cd_diagram(rt)
    x1, unit = axis_scale(fig, 9)
    elbows = lines(fig, "elbow")
    assert len(elbows) == 9
    tops = sorted(float(ln.get_xdata()[0]) for ln in elbows)
    assert tops == pytest.approx(sorted(x1 + (rt.average_ranks.to_numpy() - 1) * unit))
    # horizontal parts: on each side, nearer the axis end = higher; so no vertical part of one
    # elbow crosses the horizontal part of another
    for a, b in itertools.permutations(elbows, 2):
        xa, ya = a.get_xdata()[1], a.get_ydata()[1]  # corner of a (y in inches from the top)
        hx0, hx1 = sorted(b.get_xdata()[1:])
        hy = b.get_ydata()[1]
        assert not (hx0 < xa < hx1 and ya > hy), "elbows cross"


def test_reverse_puts_rank_one_at_the_right():
    rt = demsar()
    fig = cd_diagram(rt, reverse=True)
    (axis,) = lines(fig, "rank-axis")
    tick_labels = {t.get_text(): t.get_position()[0] for t in texts(fig) if t.get_text() in "1234"}
    assert tick_labels["1"] > tick_labels["4"]
    best = rt.average_ranks.index[0]
    (lab,) = [t for t in labels(fig) if best in t.get_text()]
    assert lab.get_ha() == "left" and lab.get_text().endswith(f"  {best}")
    assert lab.get_position()[0] > max(axis.get_xdata())
    assert_layout_clean(fig)


@pytest.mark.parametrize("posthoc", ["holm", "wilcoxon"])
def test_no_cd_bar_without_a_critical_difference(posthoc):
    table = random_table(8, 20, seed=5)
    control = table.columns[-1] if posthoc == "holm" else None
    rt = rank_test(table, posthoc=posthoc, control=control)
    assert rt.critical_difference is None
    fig = cd_diagram(rt)
    got = strings(fig)
    assert not any(s.startswith("CD") for s in got) and not lines(fig, "cd-bar")
    assert len(lines(fig, "clique")) == len(rt.cliques)
    word = "Wilcoxon" if posthoc == "wilcoxon" else "against the control"
    assert any(word in s for s in got)
    assert_layout_clean(fig)


def test_bonferroni_dunn_marks_the_control():
    rt = demsar(posthoc="bonferroni-dunn", control="C4.5")
    fig = cd_diagram(rt)
    (band,) = lines(fig, "control-band")
    x1, unit = axis_scale(fig, 4)
    rc, cd = rt.average_ranks["C4.5"], rt.critical_difference
    lo, hi = max(1.0, rc - cd), min(4.0, rc + cd)
    assert sorted(band.get_xdata()) == pytest.approx([x1 + (lo - 1) * unit, x1 + (hi - 1) * unit])
    (ctrl,) = [t for t in labels(fig) if t.get_text().endswith("  C4.5")]
    assert ctrl.get_fontweight() in ("bold", 700)
    assert f"CD = {cd:.2f}" in strings(fig)
    assert_layout_clean(fig)


def test_cd_longer_than_the_axis_ends_in_an_arrow():
    rt = rank_test(random_table(3, 2, seed=1))  # N = 2: CD = 2.34 > k - 1 = 2
    assert rt.critical_difference > 2
    fig = cd_diagram(rt)
    (bar,) = lines(fig, "cd-bar")
    _, unit = axis_scale(fig, 3)
    assert np.ptp(bar.get_xdata()) / unit == pytest.approx(2.0)
    assert any(ln.get_marker() == ">" for ln in fig.findobj(Line2D))
    assert f"CD = {rt.critical_difference:.2f}" in strings(fig)
    assert_layout_clean(fig)


def test_names_are_drawn_literally_and_labels_option():
    table = pd.DataFrame({"a_b": [1.0, 2.0, 3.0], "$x$": [2.0, 1.0, 1.5], "100% $$": [0, 3, 2]})
    rt = rank_test(table)
    fig = cd_diagram(rt, labels={"a_b": "A_B ^2"})
    got = " ".join(strings(fig))
    assert "$x$" in got and "100% $$" in got and "A_B ^2" in got and "a_b" not in got
    assert all(not t.get_parse_math() for t in texts(fig))
    assert_layout_clean(fig)  # rendering must not try mathtext


# --------------------------------------------------------------------------- layout


@pytest.mark.parametrize("k", [2, 5, 12, 40])
def test_no_overlap_from_2_to_40_systems(k):
    fig = cd_diagram(rank_test(random_table(k, 30, seed=k)), title=f"{k} systems")
    assert len(labels(fig)) == k
    ticks = {t.get_text() for t in texts(fig) if t.get_text().isdigit()}
    if k <= 12:  # every rank labelled
        assert ticks == {str(r) for r in range(1, k + 1)}
    else:  # crowded: 1, 5, 10, ..., k
        assert ticks == {"1", *(str(r) for r in range(5, k + 1, 5))}
    assert_layout_clean(fig)


def test_height_grows_with_systems_and_fonts_are_fixed():
    figs = {k: cd_diagram(rank_test(random_table(k, 30, seed=k))) for k in (4, 12, 40)}
    h = {k: f.get_figheight() for k, f in figs.items()}
    assert h[4] < h[12] < h[40]
    sizes = {t.get_fontsize() for f in figs.values() for t in texts(f)}
    assert min(sizes) >= 7 and sizes <= {7.0, 8.5, 9.0}


def test_width_respected_or_clear_error():
    rt = rank_test(random_table(12, 30))
    fig = cd_diagram(rt, width=9.0)
    assert fig.get_figwidth() == pytest.approx(9.0)
    assert_layout_clean(fig)
    with pytest.raises(PlotError, match="width of at least"):
        cd_diagram(rt, width=3.0)


def test_tsc_bakeoff_40_classifiers(corpus):
    table = pd.read_csv(corpus / "tsc_bakeoff" / "accuracy_mean.csv", index_col=0)
    rt = rank_test(table, higher_is_better=True)
    assert (rt.n_datasets, rt.n_systems) == (112, 40)
    fig = cd_diagram(rt, title="UCR bake-off")
    labs = labels(fig)
    assert len(labs) == 40
    top_left = min((t for t in labs if t.get_ha() == "right"), key=lambda t: t.get_position()[1])
    assert top_left.get_text().startswith(f"{rt.average_ranks.index[0]}  ")
    assert f"CD = {rt.critical_difference:.2f}" in strings(fig)
    assert_layout_clean(fig)


# --------------------------------------------------------------------------- output, state


def test_rank_test_plot_method_draws_the_diagram():
    rt = demsar()
    assert strings(rt.plot(title="x")) == strings(cd_diagram(rt, title="x"))


def test_not_registered_with_pyplot_and_rcparams_unchanged(tmp_path):
    import matplotlib.pyplot as plt

    before = dict(mpl.rcParams)
    n_figs = len(plt.get_fignums())
    fig = cd_diagram(demsar(), title="Demšar")
    save_figure(fig, tmp_path / "cd")
    assert len(plt.get_fignums()) == n_figs
    assert dict(mpl.rcParams) == before


def test_independent_of_caller_rcparams():
    with mpl.rc_context({"font.size": 20, "font.family": "serif", "text.parse_math": True,
                         "lines.linewidth": 5}):
        fig = cd_diagram(demsar())
    assert {t.get_fontsize() for t in texts(fig)} <= {7.0, 8.5, 9.0}
    assert_layout_clean(fig)


def test_save_pdf_svg_png(tmp_path):
    fig = cd_diagram(rank_test(random_table(6, 10)))
    paths = save_figure(fig, tmp_path / "cd")
    assert [p.name for p in paths] == ["cd.pdf", "cd.svg", "cd.png"]
    pdf = paths[0].read_bytes()
    assert pdf.startswith(b"%PDF") and (b"/FontFile2" in pdf or b"TrueType" in pdf)
    assert b"/Subtype /Type3" not in pdf
    svg = paths[1].read_text(encoding="utf-8")
    assert "<text" in svg and "$model_0$ (run 0, long name)" in svg
    from PIL import Image

    with Image.open(paths[2]) as im:
        assert im.size == (round(fig.get_figwidth() * 300), round(fig.get_figheight() * 300))


def test_bad_input_is_reported():
    rt = demsar()
    with pytest.raises(PlotError, match="has no 'average_ranks'"):
        cd_diagram(object())
    with pytest.raises(PlotError, match="labels names unknown system"):
        cd_diagram(rt, labels={"nope": "x"})
    with pytest.raises(PlotError, match="decimals"):
        cd_diagram(rt, decimals=-1)
    with pytest.raises(PlotError, match="width must be a positive number"):
        cd_diagram(rt, width=0)
    bad = type(rt)(**{**rt.__dict__, "average_ranks": rt.average_ranks * 10})
    with pytest.raises(PlotError, match="must be between 1 and 4"):
        cd_diagram(bad)
    bad = type(rt)(**{**rt.__dict__, "cliques": [("C4.5", "nope")]})
    with pytest.raises(PlotError, match="unknown system"):
        cd_diagram(bad)
    assert issubclass(PlotError, ValueError)


def test_no_runtime_warnings():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        fig = cd_diagram(rank_test(random_table(7, 12)))
        FigureCanvasAgg(fig).draw()
