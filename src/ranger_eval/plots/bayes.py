"""Figures of a Bayesian comparison (:class:`~ranger_eval.verdicts.bayes.BayesResult`): they draw
the result, never compute a statistic.

- :func:`posterior_plot`: the correlated t-test's Student posterior of the mean difference
  (location ``mean``, scale ``scale``, ``df`` degrees of freedom) with the ROPE shaded and the
  three probabilities written in their regions; for the Dirichlet-process tests, the histogram of
  the posterior draws of θ_right − θ_left.
- :func:`simplex_plot`: baycomp's triangle for the signed-rank and sign tests: each posterior draw
  (θ_left, θ_rope, θ_right) as a point of the simplex (hexagonal bins), the three regions where
  one θ is the largest separated by lines from the centre, the probabilities at the vertices.
"""
from __future__ import annotations

import math
from typing import Any

import matplotlib as mpl
import numpy as np
from matplotlib.figure import Figure
from scipy import stats

from ..errors import PlotError
from ._style import FIGURE_RC, INK, add_signature, font

__all__ = ["posterior_plot", "simplex_plot"]

_ROPE = "#ffd9a0"
_CURVE = "#2f56e0"


def _check(result: Any) -> None:
    if not hasattr(result, "probabilities") or not hasattr(result, "rope"):
        raise PlotError(f"result: expected the result of ranger_eval.bayesian_correlated_ttest, "
                        f"bayesian_signed_rank or bayesian_sign_test, got {type(result).__name__}")


def _prob(p: float) -> str:
    """``= 0.101``: three decimals, never rounded to a false 0 or 1 (``< 0.001``, ``> 0.999``)."""
    if 0 < p < 0.0005:
        return "< 0.001"
    if 0.9995 <= p < 1:
        return "> 0.999"
    return f"= {p:.3f}"


def posterior_plot(result: Any, *, title: str | None = None) -> Figure:
    """The posterior of the difference with the ROPE shaded (module docstring); ``title``
    (e.g. the dataset and metric) is written above the probabilities."""
    _check(result)
    a, b = result.names
    with mpl.rc_context(FIGURE_RC):
        fig = Figure(figsize=(5.5, 3.2 if title is None else 3.5))
        ax = fig.add_axes((0.08, 0.22, 0.88, 0.66) if title is None
                          else (0.08, 0.2, 0.88, 0.6))
        rope = float(result.rope)
        if result.scale is not None:
            what = f"{b} − {a}" if result.higher_is_better else f"{a} − {b}"
            if result.scale > 0:
                lo = min(stats.t.ppf(0.001, result.df, result.mean, result.scale), -1.1 * rope)
                hi = max(stats.t.ppf(0.999, result.df, result.mean, result.scale), 1.1 * rope)
                xs = np.linspace(lo, hi, 400)
                ys = stats.t.pdf(xs, result.df, result.mean, result.scale)
                ax.plot(xs, ys, color=_CURVE, lw=1.6)
                ax.fill_between(xs, ys, 0, where=np.abs(xs) <= rope, color=_ROPE, lw=0)
            else:  # a point mass
                ax.axvline(result.mean, color=_CURVE, lw=1.6)
            xlabel = f"mean difference {what} (Student posterior, {result.df:g} df)"
        else:
            if result.samples is None:
                raise PlotError("result: holds no posterior draws to draw")
            draws = np.asarray(result.samples)[:, 2] - np.asarray(result.samples)[:, 0]
            ax.hist(draws, bins=60, range=(-1, 1), color=_CURVE, alpha=0.8)
            xlabel = f"θ({b} better) − θ({a} better), {len(draws):,} posterior draws"
        if rope > 0 and result.scale is not None:
            ax.axvline(-rope, color="#e08a00", lw=1)
            ax.axvline(rope, color="#e08a00", lw=1)
        ax.set_xlabel(xlabel, fontproperties=font(8))
        ax.set_yticks([])
        for label in ax.get_xticklabels():
            label.set_fontproperties(font(8))
        for side in ("top", "right", "left"):
            ax.spines[side].set_visible(False)
        parts = [f"P({a} better) {_prob(result.p_left)}"]
        if rope > 0:
            parts.append(f"P(rope ±{rope:g}) {_prob(result.p_rope)}")
        parts.append(f"P({b} better) {_prob(result.p_right)}")
        fig.text(0.5, 0.95 if title is None else 0.875, "    ".join(parts), ha="center",
                 va="top", fontproperties=font(8.5), color=INK)
        if title is not None:
            fig.text(0.5, 0.97, title, ha="center", va="top", fontproperties=font(9.5, bold=True),
                     color=INK)
        add_signature(fig, result.signature)
    return fig


def _project(points: np.ndarray) -> np.ndarray:
    """baycomp's projection of (p_left, p_right, p_rope) rows onto the triangle with vertices
    left (0, 0), right (1, 0) and rope (½, √3/2)."""
    p1, p2, p3 = points.T / math.sqrt(3)
    x = (p2 - p1) * math.cos(math.pi / 6) + 0.5
    y = p3 - (p1 + p2) * math.sin(math.pi / 6) + 1 / (2 * math.sqrt(3))
    return np.vstack((x, y)).T


def simplex_plot(result: Any) -> Figure:
    """baycomp's simplex (triangle) of the posterior draws (module docstring)."""
    _check(result)
    if result.samples is None:
        raise PlotError(f"result: the simplex shows the posterior draws of a signed-rank or sign "
                        f"test; the {result.test} test has none (use posterior_plot)")
    a, b = result.names
    with mpl.rc_context(FIGURE_RC):
        fig = Figure(figsize=(4.6, 4.4))
        ax = fig.add_axes((0.05, 0.08, 0.9, 0.84))
        ax.set_aspect("equal", "box")
        ax.plot([0, 0.5, 1.0, 0], [0, math.sqrt(3) / 2, 0, 0], color="#e08a00", lw=1)
        cx, cy = _project(np.array([[1 / 3, 1 / 3, 1 / 3]]))[0]
        for x, y in _project(np.array([[.5, .5, 0], [.5, 0, .5], [0, .5, .5]])):
            ax.plot([cx, x], [cy, y], color="#e08a00", lw=0.8)
        pts = _project(np.asarray(result.samples)[:, [0, 2, 1]])
        ax.hexbin(pts[:, 0], pts[:, 1], mincnt=1, cmap="Blues_r", gridsize=60, linewidths=0)
        prop = font(8.5)
        ax.text(0, -0.04, f"P({a} better)\n{_prob(result.p_left)}", ha="center", va="top",
                fontproperties=prop)
        ax.text(1, -0.04, f"P({b} better)\n{_prob(result.p_right)}", ha="center", va="top",
                fontproperties=prop)
        ax.text(0.5, math.sqrt(3) / 2 + 0.02, f"P(rope ±{result.rope:g}) {_prob(result.p_rope)}",
                ha="center", va="bottom", fontproperties=prop)
        ax.set_xlim(-0.2, 1.2)
        ax.set_ylim(-0.2, 1.05)
        ax.axis("off")
        add_signature(fig, result.signature)
    return fig
