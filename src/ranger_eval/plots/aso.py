"""The ε_min matrix of an Almost Stochastic Order analysis (one dataset × metric of
:class:`~ranger_eval.verdicts.aso.ASOAnalysis`) as a heatmap: it draws the result, never computes.

Cell [row, column] holds ε_min of the row system over the column system; a cell below the
threshold τ (the row almost stochastically dominates the column) is blue, darker the smaller
ε_min; the others are light grey; the diagonal is blank. The value is written in every cell that
is large enough to read it. The footer states τ, the confidence level of the bounds and their
correction; the signature is that of the analysis.
"""
from __future__ import annotations

from typing import Any

import matplotlib as mpl
import numpy as np
from matplotlib.colors import to_rgba
from matplotlib.figure import Figure
from matplotlib.patches import Patch

from ..errors import PlotError
from ..verdicts.aso import format_epsilon
from ._page import PAGE_H, PAGE_W
from ._style import FIGURE_RC, INK, add_signature, font, text_width_in
from ._text import wrap_parts

__all__ = ["aso_heatmap"]

_DOMINATES = "#2f56e0"
_NONE = "#e6e6e6"
_DIAGONAL = "#ffffff"


def _size(n: int) -> float:
    """Font size for n systems: 9 pt up to 12, down to 6 pt at 50."""
    return float(np.clip(9 - 3 * (n - 12) / 38, 6, 9))


def aso_heatmap(result: Any, group: int = 0) -> Figure:
    """The ε_min matrix of ``result.groups[group]`` (module docstring)."""
    if not hasattr(result, "groups") or not hasattr(result, "threshold"):
        raise PlotError(f"result: expected an ASOAnalysis (ranger_eval.verdicts.aso.aso_groups), "
                        f"got {type(result).__name__}")
    g = result.groups[group]
    names = list(g.systems)
    eps = g.matrix.to_numpy(dtype=float)
    n = len(names)
    tau = float(result.threshold)
    size = _size(n)
    labels = [f"{s} ({g.n_scores[s]})" for s in names]
    label_w = max(text_width_in(s, size) for s in labels) + 0.25
    header_h = max(text_width_in(s, size) for s in names) + 0.2
    cell = max(0.12, min(0.6, (PAGE_W - label_w - 0.4) / n, 6.0 / n))
    width = min(PAGE_W, max(label_w + n * cell + 0.4, 5.0))
    how = {"bonferroni": "with Bonferroni's correction", "deepsig": "with deepsig's rule"}
    level = (f"{g.level * 100:.4g} % bounds"
             + (f" ({result.level * 100:g} % {how[result.correction]} for "
                f"{n * (n - 1) // 2} pairs)" if result.correction in how and n > 2 else ""))
    foot = (f"Cell: ε_min of the row over the column (rows: system and its number of runs); "
            f"blue: the row almost stochastically dominates the column (ε_min < τ = {tau:g}); "
            f"{level}; {result.n_resamples} bootstrap resamples, seed {result.seed}.")
    foot_lines = wrap_parts(foot.split(" "), " ", width - 0.5,
                            lambda t: text_width_in(t, size - 1))
    foot_h = 0.3 + (size - 1) / 72 * 1.3 * len(foot_lines)  # signature line, then the footer
    legend_h = 2 * (size - 1) / 72 * 1.9
    bottom = foot_h + 0.12 + legend_h + 0.2
    top = 0.4
    height = min(PAGE_H, top + header_h + n * cell + bottom)
    with mpl.rc_context(FIGURE_RC):
        fig = Figure(figsize=(width, height), facecolor="white")
        ax = fig.add_axes((label_w / width, bottom / height, n * cell / width,
                           n * cell / height))
        colours = np.ones((n, n, 4))
        for i in range(n):
            for j in range(n):
                if i == j:
                    colours[i, j] = to_rgba(_DIAGONAL)
                elif eps[i, j] < tau:
                    strength = 0.35 + 0.65 * (1 - eps[i, j] / tau)
                    colours[i, j] = to_rgba(_DOMINATES, strength)
                else:
                    colours[i, j] = to_rgba(_NONE)
        ax.imshow(colours, aspect="auto", interpolation="nearest")
        ax.set_xticks(range(n))
        ax.set_yticks(range(n))
        ax.set_xticklabels(names, rotation=90, fontproperties=font(size))
        ax.set_yticklabels(labels, fontproperties=font(size))
        ax.xaxis.tick_top()
        ax.tick_params(length=0, pad=2)
        ax.set_xticks(np.arange(n + 1) - 0.5, minor=True)
        ax.set_yticks(np.arange(n + 1) - 0.5, minor=True)
        ax.grid(which="minor", color="white", lw=1.0)
        ax.tick_params(which="minor", length=0)
        for s in ax.spines.values():
            s.set_visible(False)
        if cell * 72 >= 3.0 * size:  # room for "0.12"
            for i in range(n):
                for j in range(n):
                    if i != j:
                        dark = eps[i, j] < tau and eps[i, j] < 0.6 * tau
                        ax.text(j, i, format_epsilon(eps[i, j], tau), ha="center", va="center",
                                fontproperties=font(size * 0.9),
                                color="white" if dark else INK)
        fig.text(0.1 / width, 1 - 0.1 / height, f"ε_min · {g.dataset} · {g.metric}",
                 fontproperties=font(size + 1.5, bold=True), va="top", ha="left")
        handles = [Patch(facecolor=_DOMINATES, label=f"row dominates column (ε_min < {tau:g})"),
                   Patch(facecolor=_NONE, label="no almost stochastic order of row over column")]
        fig.legend(handles=handles, loc="lower left", ncol=1, frameon=False,
                   bbox_to_anchor=(0.1 / width, (foot_h + 0.08) / height),
                   prop=font(size - 1))
        fig.text(0.1 / width, 0.3 / height, "\n".join(foot_lines), fontproperties=font(size - 1),
                 color="#444444", va="bottom", ha="left", linespacing=1.3)
        add_signature(fig, result.signature)
    return fig
