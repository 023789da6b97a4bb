"""Tests of the forest plot: content, layout (no overlapping or clipped text), saving, rcParams."""
from __future__ import annotations

import math
import warnings

import matplotlib as mpl
import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from matplotlib.collections import PathCollection
from matplotlib.figure import Figure
from matplotlib.patches import Polygon

from ranger_eval.effects import EffectSizes
from ranger_eval.errors import PlotError, RenamedKeywordError
from ranger_eval.meta import meta_analysis
from ranger_eval.plots import ForestColumns, ForestStyle, forest_plot, save_figure
from ranger_eval.plots._style import (
    choose_decimals,
    format_number,
    format_percent,
    format_pvalue,
    format_scientific,
)
from ranger_eval.plots.forest import MIN_MARKER_PT, ForestLayoutError, effect_decimals, marker_areas
from tests.helpers.layout import assert_texts_clean, strings, texts

# Published Ranger GLUE case study (DistilBERT vs BERT, paired SMD, DerSimonian–Laird):
# effect, 95% CI low, 95% CI high; vi recovered from the CI half-width.
GLUE = {
    "MNLI": (-0.067849, -0.085384, -0.050313),
    "MRPC": (-0.052792, -0.134490, 0.028905),
    "QNLI": (-0.070396, -0.096386, -0.044407),
    "QQP": (-0.037032, -0.045924, -0.028139),
    "RTE": (-0.154184, -0.295581, -0.012787),
    "SST-2": (-0.048062, -0.100064, 0.003941),
    "WNLI": (0.224380, 0.008046, 0.440713),
}
GLUE_N = [9815, 408, 5463, 40430, 277, 872, 71]
# Accuracy of BERT on the GLUE validation sets (illustrative means for the means column).
GLUE_ACC = [0.8435, 0.8578, 0.9127, 0.9105, 0.6534, 0.9232, 0.5634]
Z975 = 1.959963984540054


def glue_effects(level: float = 0.95) -> EffectSizes:
    names = tuple(GLUE)
    yi = np.array([GLUE[n][0] for n in names])
    vi = np.array([((GLUE[n][2] - GLUE[n][1]) / (2 * Z975)) ** 2 for n in names])
    control = np.array(GLUE_ACC)
    return EffectSizes(
        names=names, yi=yi, vi=vi, n=np.array(GLUE_N), measure="SMD",
        mean_treatment=control - np.array([0.0207, 0.0162, 0.0210, 0.0114, 0.0469, 0.0138, -0.0704]),
        mean_control=control, treatment="DistilBERT", control="BERT", metric="Accuracy", level=level,
        extra=pd.DataFrame({"Examples": GLUE_N, "note": ["m", "p", "q", "qq", "r", "s", "w"]}, index=list(names)),
    )


def glue_result(level: float = 0.95, method: str = "DL"):
    return meta_analysis(glue_effects(level), method=method, level=level)


def synthetic(k: int, seed: int = 0, method: str = "REML"):
    rng = np.random.default_rng(seed)
    names = [f"collection-{i + 1}-long-name" if i % 3 == 0 else f"Dataset {i + 1:02d}" for i in range(k)]
    vi = rng.uniform(0.002, 0.05, k)
    yi = rng.normal(0.15, 0.15, k)
    return meta_analysis(yi, vi, method=method, names=names)


def assert_layout_clean(fig: Figure) -> None:
    """No two non-empty texts overlap, and every text lies inside the figure."""
    renderer, boxes = assert_texts_clean(fig, 5)


# --------------------------------------------------------------------------- content


def test_glue_labels_weights_effects_and_header():
    res = glue_result()
    fig = forest_plot(res)
    got = set(strings(fig))
    # study names, left-aligned in the label column
    for name in GLUE:
        assert name in got
    label_x = {t.get_position()[0] for t in texts(fig) if t.get_text() in GLUE}
    assert len(label_x) == 1 and all(t.get_ha() == "left" for t in texts(fig) if t.get_text() in GLUE)
    # published weights (26.0058%, 6.6049%, ...) to one decimal
    for w in ["26.0%", "6.6%", "22.2%", "29.1%", "2.6%", "12.4%", "1.2%", "100%"]:
        assert w in got, w
    # effects and CIs: 4 decimals (smallest bound 0.003941 needs them for 2 significant digits)
    for s in ["−0.0678", "[−0.0854,", "−0.0503]", "0.2244", "[0.0080,", "0.4407]", "[−0.1001,", "0.0039]"]:
        assert s in got, s
    # summary: published −0.054860 [−0.078603, −0.031118]
    for s in ["−0.0549", "[−0.0786,", "−0.0311]"]:
        assert s in got, s
    # headers (bold), model label, prediction interval, null line favours label
    assert "SMD [95% CI]" in got and "Weight" in got and "Dataset" in got
    bold = {t.get_text() for t in texts(fig) if t.get_fontweight() in ("bold", 700)}
    assert {"SMD [95% CI]", "Weight", "Dataset", "Accuracy", "BERT → DistilBERT"} <= bold
    assert "Random effects (DL)" in got
    assert "95% prediction interval" in got
    assert "Favours BERT ← SMD → Favours DistilBERT" in got
    # means column, control → treatment
    assert "0.844 → 0.823" in got and "0.563 → 0.634" in got
    # footer: model, heterogeneity and test of the summary effect (published p = 5.933e−06)
    footer = " ".join(s for s in got if "Heterogeneity" in s or "summary effect" in s or "model" in s)
    assert "DerSimonian–Laird" in footer and "k = 7" in footer
    assert "τ² = " in footer and "I² = " in footer and "Q(6) = " in footer
    assert "z = −4.53" in footer and "p = 5.9×10⁻⁶" in footer
    assert_layout_clean(fig)


def test_header_states_the_real_level():
    fig = forest_plot(glue_result(level=0.90))
    got = strings(fig)
    assert "SMD [90% CI]" in got and "90% prediction interval" in got
    assert not any("95%" in s for s in got)
    # study CIs at 90%: MNLI −0.067849 ± 1.6449·0.0089464
    assert "[−0.0826," in got
    fig = forest_plot(glue_result(level=0.995))
    assert "SMD [99.5% CI]" in strings(fig)


def test_summary_diamond_and_markers_encode_the_model():
    res = glue_result()
    fig = forest_plot(res)
    ax = fig.axes[0]
    diamonds = [p for p in ax.patches if isinstance(p, Polygon) and p.get_gid() == "summary-diamond"]
    assert len(diamonds) == 1
    xs = diamonds[0].get_xy()[:, 0]
    assert min(xs) == pytest.approx(res.ci_low) and max(xs) == pytest.approx(res.ci_high)
    assert -0.054860 == pytest.approx(res.estimate, abs=1e-6)  # published summary
    squares = [c for c in ax.collections if isinstance(c, PathCollection) and c.get_gid() == "study-markers"]
    assert len(squares) == 1
    sizes = squares[0].get_sizes()  # marker areas in pt²
    big = sizes > MIN_MARKER_PT**2 * (1 + 1e-9)  # area ∝ weight above the minimum size
    assert big.sum() >= 4
    assert np.allclose(sizes[big] / res.weights[big], sizes[big][0] / res.weights[big][0], rtol=1e-12)
    assert np.allclose(squares[0].get_offsets()[:, 0], res.yi)
    # dotted null line at 0
    nulls = [ln for ln in ax.lines if np.allclose(ln.get_xdata(), 0) and ln.get_linestyle() != "-"]
    assert len(nulls) == 1


@pytest.mark.parametrize("figsize", [None, (9.0, 4.2)])
def test_low_weight_datasets_stay_visible(figsize):
    """In the fixed-effect GLUE forest RTE (0.28%) and WNLI (0.12%) used to vanish."""
    res = glue_result(method="FE")
    fig = forest_plot(res, style=ForestStyle(figsize=figsize))
    ax = fig.axes[0]
    (squares,) = [c for c in ax.collections if c.get_gid() == "study-markers"]
    sizes = squares.get_sizes()
    names = list(res.names)
    for small in ("RTE", "WNLI", "MRPC"):
        side = np.sqrt(sizes[names.index(small)])
        assert side == pytest.approx(MIN_MARKER_PT), small  # drawn at the minimum, not vanishing
    w = np.asarray(res.weights)
    big = sizes > MIN_MARKER_PT**2 * (1 + 1e-9)
    assert set(np.array(names)[big]) == {"MNLI", "QNLI", "QQP"}
    np.testing.assert_allclose(sizes[big] / w[big], sizes[big][0] / w[big][0], rtol=1e-12)
    # the largest square fills 0.72 of the row height; the footer states the rule with its threshold
    row_pt = sizes.max() ** 0.5 / 0.72
    threshold = (MIN_MARKER_PT / (0.72 * row_pt)) ** 2 * w.max()
    note = [t for t in strings(fig) if t.startswith("Squares:")]
    assert note == [f"Squares: area proportional to the weight; weights below {threshold:.1%} are "
                    "drawn at the minimum size."]
    assert np.all(w[~big] < threshold) and np.all(w[big] >= threshold)
    assert_layout_clean(fig)


def test_marker_areas_rule():
    areas = marker_areas(np.array([0.5, 0.25, 0.001, 0.0]), row_pt=20.0)
    max_side = 0.72 * 20.0
    np.testing.assert_allclose(areas, [max_side**2, max_side**2 / 2, MIN_MARKER_PT**2, MIN_MARKER_PT**2])
    tiny_rows = marker_areas(np.array([1.0, 0.0]), row_pt=6.0)  # minimum capped at half the largest
    np.testing.assert_allclose(np.sqrt(tiny_rows), [4.32, 2.16])
    # no note when nothing is clamped
    equal = meta_analysis([0.1, 0.2, 0.3], [0.01, 0.01, 0.01], method="FE", names=["a", "b", "c"])
    assert not [t for t in strings(forest_plot(equal)) if t.startswith("Squares:")]


def test_order_options():
    res = glue_result()

    def row_order(fig: Figure) -> list[str]:
        rows = [t for t in texts(fig) if t.get_text() in GLUE]
        return [t.get_text() for t in sorted(rows, key=lambda t: -t.get_position()[1])]

    assert row_order(forest_plot(res)) == list(GLUE)
    by_effect = row_order(forest_plot(res, order="effect"))
    assert by_effect == sorted(GLUE, key=lambda n: GLUE[n][0])
    by_weight = row_order(forest_plot(res, order="weight"))
    assert by_weight == [res.names[i] for i in np.argsort(-res.weights)]
    assert row_order(forest_plot(res, order="name")) == sorted(GLUE, key=str.casefold)
    custom = ["WNLI", "RTE", "MNLI", "MRPC", "QNLI", "QQP", "SST-2"]
    assert row_order(forest_plot(res, order=custom)) == custom
    with pytest.raises(ValueError, match="missing"):
        forest_plot(res, order=custom[:-1])
    with pytest.raises(ValueError, match="order must be one of"):
        forest_plot(res, order="size")


def test_extra_columns_from_mapping_and_effects_extra():
    res = glue_result()
    fig = forest_plot(
        res,
        columns=ForestColumns(
            left={"n": "Examples"},
            right={"J@10": [0.91, 0.5, 0.62, 0.8, 0.77, 0.3, 0.69], "Note": {n: n.lower() for n in GLUE}},
            labels={"SST-2": "SST-2 (sentiment)"},
            means=False,
        ),
        title="DistilBERT vs BERT on GLUE",
    )
    got = strings(fig)
    assert {"n", "J@10", "Note", "9815", "40430", "0.910", "0.500", "sst-2", "SST-2 (sentiment)"} <= set(got)
    assert "SST-2" not in got and "Accuracy" not in got
    assert "DistilBERT vs BERT on GLUE" in got
    assert_layout_clean(fig)
    with pytest.raises(ValueError, match="no column 'nope'"):
        forest_plot(res, columns=ForestColumns(left=["nope"]))
    with pytest.raises(ValueError, match="3 values for 7 datasets"):
        forest_plot(res, columns=ForestColumns(right={"x": [1, 2, 3]}))
    with pytest.raises(ValueError, match="no value for dataset"):
        forest_plot(res, columns=ForestColumns(right={"x": {"MNLI": 1}}))


def test_without_effects_and_fixed_effect_model():
    names = list(GLUE)
    eff = glue_effects()
    res = meta_analysis(eff.yi, eff.vi, method="FE", names=names)
    fig = forest_plot(res, columns=ForestColumns(weights=False))
    got = strings(fig)
    assert "Fixed effect" in got and "Effect [95% CI]" in got
    assert not any("prediction interval" in s for s in got)
    assert "Weight" not in got and "100%" not in got
    assert not any("τ²" in s for s in got)  # no τ² in a fixed-effect model
    assert any(s.startswith("Heterogeneity: I² = ") for s in got)
    assert "Effect" in got  # x label without system names is the measure
    with pytest.raises(ValueError, match=r"ForestColumns\(means=True\) needs result.effects"):
        forest_plot(res, columns=ForestColumns(means=True))
    assert_layout_clean(fig)


def test_knapp_hartung_footer_and_higher_is_better_false():
    res = meta_analysis(glue_effects(), method="REML", test="knha")
    fig = forest_plot(res, higher_is_better=False, control_label="base", treatment_label="new")
    got = strings(fig)
    assert any(s.startswith("Knapp–Hartung test of the summary effect: t(6) = ") for s in got)
    assert "Favours new ← SMD → Favours base" in got
    assert "Random effects (REML)" in got


def test_single_dataset():
    res = meta_analysis([0.3], [0.01], names=["only"])
    fig = forest_plot(res)
    got = strings(fig)
    assert "only" in got and "100.0%" in got
    assert "Heterogeneity: not estimable with one dataset" in got
    assert_layout_clean(fig)


def test_zcor_shown_back_transformed():
    z = np.array([0.2, 0.55, 1.1])
    res = meta_analysis(z, 1 / (np.array([50, 80, 30]) - 3), names=["a", "b", "c"])
    res = type(res)(**{**res.__dict__, "measure": "ZCOR"})
    fig = forest_plot(res)
    got = strings(fig)
    assert "r [95% CI]" in got
    t = res.transformed()
    assert format_number(t.estimate, effect_decimals(
        np.concatenate([t.yi, t.yi_ci_low, t.yi_ci_high, [t.ci_low, t.ci_high, t.pi_low, t.pi_high]])
    )) in got
    assert f"{math.tanh(1.1):.3f}" in got  # study c: r = 0.800 (3 decimals for the bound −0.086)
    assert any("back-transformed" in s for s in got)
    plain = strings(forest_plot(res, back_transform=False))
    assert "ZCOR [95% CI]" in plain and "1.100" in plain and "[0.723," in plain


def test_clipped_whiskers_end_in_arrows():
    yi = np.array([0.10, 0.12, 0.08, 0.11, 0.5])
    vi = np.array([0.001, 0.002, 0.001, 0.0015, 1.0])  # last CI spans ±1.96
    res = meta_analysis(yi, vi, names=list("abcde"))
    fig = forest_plot(res)
    ax = fig.axes[0]
    lo, hi = ax.get_xlim()
    assert lo > 0.5 - 1.96 and hi < 0.5 + 1.96  # the outlier whisker is clipped ...
    arrows = [ln for ln in ax.lines if ln.get_marker() not in ("None", None, "")]
    assert len(arrows) == 2  # ... and ends in an arrow on both sides
    assert {round(float(a.get_xdata()[0]), 12) for a in arrows} == {round(lo, 12), round(hi, 12)}
    fixed = forest_plot(res, xlim=(-0.2, 0.4))
    assert fixed.axes[0].get_xlim() == pytest.approx((-0.2, 0.4))
    assert_layout_clean(fixed)


# --------------------------------------------------------------------------- layout


@pytest.mark.parametrize("k", [2, 7, 40])
def test_no_overlap_from_2_to_40_rows(k):
    fig = forest_plot(synthetic(k, seed=k))
    assert_layout_clean(fig)


def test_height_grows_with_rows_and_font_size_is_fixed():
    # (from k = 3: with one or two datasets the footer has a caution of its own, more lines)
    h = {k: forest_plot(synthetic(k)).get_figheight() for k in (3, 10, 40)}
    assert h[3] < h[10] < h[40]
    # linear in the number of rows, up to the snapping of the height to whole 300-dpi pixels
    assert (h[40] - h[10]) / 30 == pytest.approx((h[10] - h[3]) / 7, abs=1 / 300 / 7)
    sizes = {t.get_fontsize() for k in (2, 40) for t in texts(forest_plot(synthetic(k)))}
    assert sizes <= {8.5, 9.0, 10.5}


def test_figsize_respected_or_clear_error():
    res = glue_result()
    fig = forest_plot(res, style=ForestStyle(figsize=(10, 5)))
    assert tuple(fig.get_size_inches()) == pytest.approx((10, 5))
    assert_layout_clean(fig)
    with pytest.raises(ForestLayoutError, match="width of at least"):
        forest_plot(res, style=ForestStyle(figsize=(3, 5)))
    with pytest.raises(ForestLayoutError, match="height of at least"):
        forest_plot(synthetic(40), style=ForestStyle(figsize=(8, 3)))


def test_plot_is_not_registered_with_pyplot_and_rcparams_unchanged(tmp_path):
    import matplotlib.pyplot as plt

    before = dict(mpl.rcParams)
    n_figs = len(plt.get_fignums())
    fig = forest_plot(glue_result(), title="GLUE")
    save_figure(fig, tmp_path / "glue")
    assert len(plt.get_fignums()) == n_figs
    after = dict(mpl.rcParams)
    assert after == before


def test_independent_of_caller_rcparams():
    with mpl.rc_context({"font.size": 20, "xtick.labelsize": 30, "font.family": "serif",
                         "axes.unicode_minus": False}):
        fig = forest_plot(glue_result())
    assert_layout_clean(fig)
    assert {t.get_fontsize() for t in texts(fig)} <= {8.5, 9.0, 10.5}
    assert "−0.2" in strings(fig)


# --------------------------------------------------------------------------- saving


def test_save_pdf_svg_png(tmp_path):
    fig = forest_plot(glue_result())
    paths = save_figure(fig, tmp_path / "sub" / "forest")
    assert [p.name for p in paths] == ["forest.pdf", "forest.svg", "forest.png"]
    pdf = paths[0].read_bytes()
    assert pdf.startswith(b"%PDF") and (b"/FontFile2" in pdf or b"TrueType" in pdf)
    assert b"/Subtype /Type3" not in pdf
    svg = paths[1].read_text(encoding="utf-8")
    assert "<text" in svg and "MNLI" in svg  # editable text (svg.fonttype = none)
    png = paths[2].read_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    from PIL import Image

    with Image.open(paths[2]) as im:
        assert im.size == (round(fig.get_figwidth() * 300), round(fig.get_figheight() * 300))
    # a file name with a suffix selects the format; vector output is reproducible
    one = save_figure(fig, tmp_path / "single.svg")
    assert [p.name for p in one] == ["single.svg"]
    again = save_figure(fig, tmp_path / "again.pdf")
    assert again[0].read_bytes() == paths[0].read_bytes()
    outlined = save_figure(fig, tmp_path / "outlined.svg", svg_fonttype="path")[0].read_text()
    assert "<text" not in outlined
    with pytest.raises(ValueError, match="unsupported figure format"):
        save_figure(fig, tmp_path / "x", formats=("docx",))


# --------------------------------------------------------------------------- numbers


def test_precision_chooser():
    assert choose_decimals([0.001234]) == 4 and format_number(0.001234, 4) == "0.0012"
    assert choose_decimals([0.5, 0.25, -0.75]) == 2
    assert choose_decimals([0.0123, 0.4]) == 3
    assert choose_decimals([0.0996]) == 2 and format_number(0.0996, 2) == "0.10"
    assert choose_decimals([12.5, 3.0]) == 2
    assert choose_decimals([0.0, 0.5]) == 2  # exact zeros do not drive the precision
    assert choose_decimals([1.2e-6, 3.4e-5]) is None  # all tiny: scientific
    assert format_number(1.234e-6, None) == "1.2×10⁻⁶"
    assert format_number(-0.00001, 2) == "−1.0×10⁻⁵"  # never "−0.00"
    assert format_number(-0.0, 2) == "0.00" and format_number(-0.001, 2, min_sig=1) == "−1.0×10⁻³"
    assert format_number(-0.5, 2) == "−0.50"
    assert format_scientific(2.5e-12) == "2.5×10⁻¹²"
    assert effect_decimals([0.0012], precision=3) == 3
    with pytest.raises(ValueError, match="precision"):
        effect_decimals([0.1], precision=-1)


def test_effect_column_never_prints_zero_for_small_effects():
    yi = np.array([0.001234, 0.0021, 0.0009])
    res = meta_analysis(yi, np.array([1e-7, 2e-7, 1.5e-7]), names=["a", "b", "c"])
    fig = forest_plot(res)
    ticks = {t.get_text() for t in fig.axes[0].get_xticklabels()}
    got = [s for s in strings(fig) if s not in ticks]
    assert "0.0012" in got and "0.0021" in got
    assert not any(s.strip("[],") in ("0.00", "−0.00", "0.000", "0.0000") for s in got)
    tiny = meta_analysis(yi * 1e-4, np.array([1e-15, 2e-15, 1.5e-15]), names=["a", "b", "c"])
    got = strings(forest_plot(tiny))
    assert "1.2×10⁻⁷" in got
    assert_layout_clean(forest_plot(tiny))


@settings(max_examples=50, deadline=None)
@given(st.lists(st.floats(-50, 50, allow_nan=False).filter(lambda v: v == 0 or abs(v) > 1e-12),
                min_size=1, max_size=12))
def test_chosen_precision_keeps_two_significant_digits(values):
    d = choose_decimals(values)
    nonzero = [abs(v) for v in values if v != 0]
    for v in values:
        text = format_number(v, d, min_sig=2 if d is None else 1)
        if v != 0:
            assert text.strip("−0.") != "", (v, text)  # no non-zero value prints as zero
    if nonzero and d is not None and d < 4:
        smallest = min(nonzero)
        shown = float(format_number(smallest, d).replace("−", "-"))
        digits = d + math.floor(math.log10(shown)) + 1
        assert digits >= 2, (smallest, d)


def test_p_and_percent_formats():
    assert format_pvalue(0.5) == "p = 0.5"
    assert format_pvalue(0.034) == "p = 0.034"
    assert format_pvalue(0.0012) == "p = 0.0012"
    assert format_pvalue(5.933e-06) == "p = 5.9×10⁻⁶"
    assert format_percent(0.260058) == "26.0%" and format_percent(1e-5) == "<0.1%"


def test_bad_input_is_reported():
    res = glue_result()
    bad = type(res)(**{**res.__dict__, "yi": np.array([0.1, np.nan, 0, 0, 0, 0, 0])})
    with pytest.raises(ValueError, match="MRPC"):
        forest_plot(bad)
    with pytest.raises(ValueError, match="labels"):
        forest_plot(res, columns=ForestColumns(labels=["a"]))
    with pytest.raises(ValueError, match="xlim"):
        forest_plot(res, xlim=(1, 0))


def test_no_runtime_warnings():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        forest_plot(synthetic(5))


def test_zebra_stripes_for_long_tables():
    def stripes(fig: Figure) -> int:
        return sum(1 for a in fig.artists if isinstance(a, mpl.patches.Rectangle))

    assert stripes(forest_plot(synthetic(40))) == 20
    assert stripes(forest_plot(synthetic(7))) == 0
    assert stripes(forest_plot(synthetic(7), style=ForestStyle(stripes=True))) == 3


def test_glue_corpus_end_to_end(corpus):
    """The Ranger GLUE case study from per-example correctness files: published weights appear."""
    from ranger_eval.effects import effect_sizes
    from ranger_eval.scores import Scores

    tasks = {"mnli": "MNLI", "mrpc": "MRPC", "qnli": "QNLI", "qqp": "QQP", "rte": "RTE",
             "sst2": "SST-2", "wnli": "WNLI"}
    root = corpus / "ranger" / "glue"
    data = {
        name: {sys: np.loadtxt(root / sys / f"{task}.txt")
               for sys in ("bert-base-cased", "distilbert-base-cased")}
        for task, name in tasks.items()
    }
    eff = effect_sizes(Scores.from_arrays(data, metric="accuracy"), treatment="distilbert-base-cased",
                       control="bert-base-cased", measure="SMD")
    fig = forest_plot(meta_analysis(eff, method="DL"), title="GLUE")
    got = set(strings(fig))
    # published weights (paper's ddof=0 variances; ours use ddof=1, so allow one unit in the last digit)
    published = [26.0058, 6.6049, 22.2320, 29.0691, 2.5795, 12.3501, 1.1585]
    shown = [t for t in texts(fig) if t.get_text().endswith("%") and t.get_text() != "100%"]
    shown = [float(t.get_text()[:-1]) for t in sorted(shown, key=lambda t: -t.get_position()[1])]
    assert shown == pytest.approx(published, abs=0.1)
    assert "Favours bert-base-cased ← SMD → Favours distilbert-base-cased" in got
    assert_layout_clean(fig)


def test_old_keywords_name_their_replacement():
    """One word for the direction (higher_is_better) and the options in two small
    objects; an old keyword is an error naming what replaced it, not a bare TypeError."""
    res = glue_result()
    with pytest.raises(RenamedKeywordError, match="higher_is_better"):
        forest_plot(res, lower_is_better=True)  # type: ignore[call-arg]
    with pytest.raises(RenamedKeywordError, match=r"ForestColumns\(left="):
        forest_plot(res, left_columns=["Examples"])  # type: ignore[call-arg]
    with pytest.raises(RenamedKeywordError, match=r"ForestStyle\(fontsize="):
        forest_plot(res, fontsize=8)  # type: ignore[call-arg]
    # the direction flag flips the sides as lower_is_better=True did
    got = strings(forest_plot(res, higher_is_better=False))
    assert "Favours DistilBERT ← SMD → Favours BERT" in got
    assert "Favours BERT ← SMD → Favours DistilBERT" in strings(forest_plot(res))


def test_options_are_checked_when_made():
    with pytest.raises(PlotError, match="fontsize must be at least 4 pt"):
        ForestStyle(fontsize=3)
    with pytest.raises(PlotError, match="precision must be a non-negative integer"):
        ForestColumns(precision=-1)
    with pytest.raises(PlotError, match="figsize must be"):
        ForestStyle(figsize=(5.0,))  # type: ignore[arg-type]
    with pytest.raises(PlotError, match="columns must be a ForestColumns"):
        forest_plot(glue_result(), columns={"left": ["Examples"]})  # type: ignore[arg-type]
