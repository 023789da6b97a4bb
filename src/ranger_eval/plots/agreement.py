"""The figure of the alternative annotator test (:class:`~ranger_eval.llm.AltTestResult`): it
draws the result, never computes a statistic.

:func:`alt_test_plot`: one row per tested human annotator, the share of items on which the judge
aligns with the other annotators at least as well as that annotator does (a bar from 0 to 1),
coloured by the Benjamini–Yekutieli verdict of its one-sided test (the judge's advantage is more
than −ε: blue "judge wins", grey "not shown"), the p-value written at the right; the title gives
the winning rate ω (the share of annotators the judge wins against; the judge passes at
ω ≥ 0.5) and the advantage probability ρ. Rows grow with the number of annotators and stay
within one page up to 50 (fonts shrink from 9 pt towards 7 pt).
"""
from __future__ import annotations

from typing import Any

import matplotlib as mpl
import numpy as np
from matplotlib.figure import Figure
from matplotlib.patches import Patch

from ..errors import PlotError
from ._page import MIN_FONT, PAGE_H, PAGE_W
from ._style import FIGURE_RC, INK, add_signature, font
from ._text import hinted_width

__all__ = ["alt_test_plot"]

_WINS = "#4a7ab5"
_NOT = "#b8b8b8"


def alt_test_plot(result: Any) -> Figure:
    """Per annotator, how often the judge is as good or better, and the test's verdict (module
    docstring)."""
    if not hasattr(result, "winning_rate") or not hasattr(result, "to_frame"):
        raise PlotError(f"alt_test_plot: expected the result of ranger_eval.alt_test, got "
                        f"{type(result).__name__}")
    rows = result.to_frame()
    n = len(rows)
    size = float(np.clip(9 - (9 - MIN_FONT) * (n - 20) / 30, MIN_FONT, 9))
    row_h = max(size / 72 * 1.7, min(0.32, 3.0 / max(n, 1)))
    title_h = 2 * 1.5 * size / 72 + 0.15
    legend_h = 1.6 * size / 72 + 0.1
    bottom_h = 2.6 * size / 72 + 0.25
    height = min(PAGE_H, title_h + legend_h + bottom_h + max(n, 1) * row_h)
    width = min(PAGE_W, 6.5)
    names = [str(a) for a in rows["annotator"]]
    label_w = min(0.4 * width, max([hinted_width(a, font(size)) for a in names] + [0.5]) + 0.2)
    p_w = hinted_width("p = 0.000", font(size)) + 0.15
    with mpl.rc_context(FIGURE_RC):
        fig = Figure(figsize=(width, height))
        left, bottom = label_w / width, bottom_h / height
        ax = fig.add_axes((left, bottom, 1 - left - p_w / width,
                           1 - bottom - (title_h + legend_h) / height))
        y = np.arange(n)[::-1]
        colours = [_WINS if won else _NOT for won in rows["judge_wins_test"]]
        ax.barh(y, rows["judge_wins"], color=colours, height=0.6)
        ax.set_yticks(y)
        ax.set_yticklabels(names, fontproperties=font(size))
        ax.set_xlim(0, 1)
        ax.set_ylim(-0.6, max(n, 1) - 0.4)
        ax.set_xlabel("share of items where the judge aligns with the other annotators at "
                      "least as well as this annotator", fontproperties=font(size))
        for label in ax.get_xticklabels():
            label.set_fontproperties(font(size))
        ax.grid(axis="x", color="#dddddd", lw=0.5)
        ax.set_axisbelow(True)
        for side in ("top", "right"):
            ax.spines[side].set_visible(False)
        for yy, p in zip(y, rows["p_value"], strict=True):
            ax.annotate(f"p = {p:.3f}" if p >= 0.001 else "p < 0.001", (1.02, yy),
                        xycoords=("axes fraction", "data"), va="center",
                        fontproperties=font(size), color="#333333")
        verdict = "passes" if result.passed else "fails"
        fig.suptitle(f"Judge {result.judge!r} {verdict} the alternative annotator test\n"
                     f"winning rate ω = {result.winning_rate:.2f} (pass: ω ≥ 0.5), advantage "
                     f"probability ρ = {result.advantage_probability:.2f}, ε = {result.epsilon:g}",
                     x=0.5, y=1 - 0.08 / height, va="top", fontproperties=font(size, bold=True),
                     color=INK)
        fig.legend(handles=[Patch(color=_WINS, label=f"judge wins (BY q = {result.fdr:g})"),
                            Patch(color=_NOT, label="judge not shown to win")],
                   loc="upper center", ncols=2, frameon=False, prop=font(size),
                   bbox_to_anchor=(0.5, 1 - title_h / height))
        add_signature(fig, result.signature)
    return fig
