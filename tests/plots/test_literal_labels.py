"""Every text of every figure is drawn literally (no mathtext, no TeX).

Each plot function is fed system, dataset and metric names (and titles) full of mathtext and TeX
syntax; the figure must draw without error, and the name must appear verbatim as text in the SVG
(``svg.fonttype = "none"`` keeps text as ``<text>``) — also when the caller's rcParams ask for
mathtext — and in the PNG-rendered text artists.
"""
from __future__ import annotations

import dataclasses
import xml.etree.ElementTree as ET
from collections.abc import Callable
from pathlib import Path

import matplotlib as mpl
import numpy as np
import pandas as pd
import pytest
from matplotlib.figure import Figure
from matplotlib.text import Text

from ranger_eval.aggregate.crossdataset import predictive_check
from ranger_eval.aggregate.ranking import condition_and_compare
from ranger_eval.aggregate.ranktests import rank_test
from ranger_eval.comparison import compare, rank_intervals
from ranger_eval.effects import EffectSizes
from ranger_eval.meta import meta_analysis
from ranger_eval.plots import (
    cd_diagram,
    comparison_boxplots,
    comparison_graph,
    comparison_heatmap,
    condition_boxplots,
    forest_plot,
    funnel_plot,
    multi_forest_plot,
    pvalue_plot,
    save_figure,
)
from ranger_eval.plots.predictive import predictive_plot

#: mathtext ($…$, _, ^, \alpha), a TeX special (&) and a percent sign
NAME = r"$x_1^2$ \alpha & 50%_best"
DATASET = r"data_$set$"
METRIC = r"nDCG@10_$\mu$"
TITLE = r"Title $\sqrt{x}$ ^_^"


def _scores(systems: tuple[str, ...] = (NAME, "b_2", "c"), n: int = 40) -> pd.DataFrame:
    rng = np.random.default_rng(5)
    rows = []
    base = rng.normal(0.5, 0.2, n)
    for j, s in enumerate(systems):
        v = base + 0.15 * j + rng.normal(0, 0.1, n)
        rows += [(DATASET, s, METRIC, f"q{i}", float(x)) for i, x in enumerate(v)]
    return pd.DataFrame(rows, columns=["dataset", "system", "metric", "item", "value"])


def _meta(names: tuple[str, ...] = (NAME, "SST_2", "$RTE$")):
    k = len(names)
    es = EffectSizes(names=names, yi=np.linspace(0.1, 0.4, k), vi=np.linspace(0.01, 0.03, k),
                     n=np.full(k, 50), measure="SMD", mean_treatment=np.full(k, 0.6),
                     mean_control=np.full(k, 0.5), treatment=NAME, control="base_$1$", level=0.95)
    return meta_analysis(es, method="REML")


def _forest() -> Figure:
    return forest_plot(_meta(), title=TITLE)


def _multiforest() -> Figure:
    return multi_forest_plot({NAME: _meta(), "other_$2$": _meta()}, title=TITLE)


def _funnel() -> Figure:
    return funnel_plot(_meta(tuple(f"{NAME} {i}" for i in range(6))), title=TITLE)


def _cd() -> Figure:
    rng = np.random.default_rng(0)
    table = pd.DataFrame(rng.normal(size=(10, 3)) + [0, 0.5, 1], columns=[NAME, "b_2", "$c$"])
    return cd_diagram(rank_test(table), title=TITLE)


@pytest.fixture(scope="module")
def comp():
    return compare(_scores(), n_resamples=100)


def _graph(comp) -> Figure:
    return comparison_graph(comp, dataset=DATASET, metric=METRIC, title=TITLE)


def _heatmap(comp) -> Figure:
    return comparison_heatmap(comp, title=TITLE)


def _pvalues(comp) -> Figure:
    return pvalue_plot(comp, dataset=DATASET, metric=METRIC, title=TITLE)


def _boxplots(comp) -> Figure:
    return comparison_boxplots(rank_intervals(comp, dataset=DATASET, metric=METRIC, n_resamples=100), title=TITLE)


def _condition() -> Figure:
    df = _scores(systems=("A", "B", "C", "D"))
    params = pd.DataFrame({"system": list("ABCD"), "size": [NAME, NAME, "13b", "13b"],
                           "temp": ["$0.2$", "0.8_x", "$0.2$", "0.8_x"]})
    cc = condition_and_compare(df, params, condition=["size"], compare=["temp"], color=["temp"],
                               higher_is_better=True)
    return condition_boxplots(cc, title=TITLE)


def _predictive() -> Figure:
    rng = np.random.default_rng(1)
    k = 12
    eff = EffectSizes(names=tuple(f"$d_{i}$" for i in range(k)), yi=rng.normal(0.2, 0.1, k),
                      vi=rng.uniform(0.001, 0.01, k), n=np.full(k, 50), measure="MD",
                      mean_treatment=np.zeros(k), mean_control=np.zeros(k))
    res = dataclasses.replace(predictive_check(eff, k=(3, 6), n_test=4, n_resamples=3),
                              treatment=NAME, control="base_$1$")
    return predictive_plot(res, title=TITLE)


BUILDERS: dict[str, tuple[Callable[..., Figure], bool, tuple[str, ...]]] = {
    # name: (builder, needs the comparison, names that must appear verbatim)
    "forest": (_forest, False, (NAME, "SST_2", "$RTE$", TITLE)),
    "multiforest": (_multiforest, False, (NAME, "other_$2$", "SST_2", TITLE)),
    "funnel": (_funnel, False, (TITLE,)),
    "cd": (_cd, False, (NAME, "$c$", TITLE)),
    "graph": (_graph, True, (NAME, TITLE)),
    "heatmap": (_heatmap, True, (NAME, DATASET, TITLE)),
    "pvalues": (_pvalues, True, (NAME, TITLE)),
    "boxplots": (_boxplots, True, (NAME, METRIC, TITLE)),
    "condition": (_condition, False, (NAME, "$0.2$", "0.8_x", TITLE)),
    "predictive": (_predictive, False, (NAME, TITLE)),
}


def _svg_text(path: Path) -> str:
    """All character data of the SVG's ``<text>`` elements, one line per element."""
    root = ET.parse(path).getroot()
    out = []
    for el in root.iter():
        if el.tag.endswith("}text") or el.tag == "text":
            out.append("".join(el.itertext()))
    return "\n".join(out)


@pytest.mark.parametrize("kind", list(BUILDERS))
def test_every_label_is_drawn_literally(kind, comp, tmp_path):
    build, needs_comp, expected = BUILDERS[kind]
    # the caller's rcParams ask for mathtext: the figures must not follow them
    with mpl.rc_context({"text.parse_math": True, "text.usetex": False}):
        fig = build(comp) if needs_comp else build()
        fig.canvas.draw()  # mathtext would raise here on "^_^" or "\alpha &"
        (svg,) = save_figure(fig, tmp_path / kind, formats=("svg",))
    text = _svg_text(svg)
    for s in expected:
        assert any(s in line for line in text.splitlines()), f"{s!r} not drawn verbatim in {kind}"
    # no text artist is left in mathtext or TeX mode (lazily created tick labels included)
    for t in fig.findobj(Text):
        if "$" in t.get_text():
            assert not t.get_usetex()
            assert not t._preprocess_math(t.get_text())[1], (kind, t.get_text())
