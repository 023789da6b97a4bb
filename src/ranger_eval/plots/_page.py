"""One page per figure: the page size, the smallest font, and the note a capped figure prints.

Every figure of a command fits one page in each dimension (US Letter, 8.5 × 11 in, which also
fits A4's width less 0.1 in) with text no smaller than :data:`MIN_FONT` points, from 2 to 50
systems and from 1 to 200 datasets. A figure that would not fit is drawn more compactly, in
another form (a sorted matrix instead of a graph), or shows the first rows only; it then says
so in its footer, and the command says it in its notes (as ``meta`` does for a forest plot of
more than 200 datasets).
"""
from __future__ import annotations

__all__ = ["MIN_FONT", "PAGE_H", "PAGE_W", "fits_page", "COMPACT_ROW"]

#: Page width and height in inches (US Letter; A4 is 8.27 × 11.69).
PAGE_W = 8.5
PAGE_H = 11.0
#: Smallest font size (points) of any label that carries information.
MIN_FONT = 7.0
#: Height (inches) of a table row holding one line of :data:`MIN_FONT` text with room around it
#: (1.3 × the font size).
COMPACT_ROW = 1.3 * MIN_FONT / 72.0


def fits_page(width: float, height: float) -> bool:
    """True when a figure of ``width`` × ``height`` inches fits one page."""
    return width <= PAGE_W + 1e-9 and height <= PAGE_H + 1e-9
