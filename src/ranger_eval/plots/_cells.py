"""The cells of the comparison tables (heatmap, sorted pair matrix): their colours and how a
table of many cells is drawn as one image."""
from __future__ import annotations

import math
from typing import Any

import numpy as np
from matplotlib.colors import LinearSegmentedColormap, Normalize

__all__ = ["A_BETTER", "B_BETTER", "CAP", "CMAP", "NOT_SIG", "cell_colour", "draw_cells"]

A_BETTER = "#2166ac"
B_BETTER = "#b2182b"
NOT_SIG = "#e6e6e6"
CAP = 1.2
CMAP = LinearSegmentedColormap.from_list(
    "ranger_diverging", [B_BETTER, "#f4a582", "#f7f7f7", "#92c5de", A_BETTER]
)


def cell_colour(diff: float, effect: float, significant: bool) -> Any:
    """A significant difference: blue when positive, red when negative, the strength growing
    with |effect size| from 0.25 (never near-white) to :data:`CAP` (Sawilowsky's "very
    large"); not significant (or no difference): light grey."""
    if not significant or diff == 0:
        return NOT_SIG
    es = effect if np.isfinite(effect) else math.copysign(CAP, effect)
    mag = min(max(abs(es), 0.25), CAP)
    return CMAP(Normalize(-CAP, CAP)(math.copysign(mag, diff)))


def draw_cells(ax: Any, colours: np.ndarray, line_width: float) -> None:
    """Fill the cells of a table axis (x from 0 to n_c, y from n_r down to 0) with the RGBA
    ``colours`` (n_r × n_c × 4) in one image, separated by white lines of ``line_width``
    points: one artist, however many cells (2,500 rectangles take seconds to add)."""
    n_r, n_c = colours.shape[:2]
    ax.imshow(colours, extent=(0, n_c, n_r, 0), interpolation="nearest", aspect="auto",
              zorder=0)
    ax.vlines(np.arange(1, n_c), 0, n_r, colors="white", linewidth=line_width, zorder=1)
    ax.hlines(np.arange(1, n_r), 0, n_c, colors="white", linewidth=line_width, zorder=1)
