"""Layout checks of figures: no overlapping or clipped text (used by every plot's tests)."""
from __future__ import annotations

import itertools

from matplotlib.backends.backend_agg import FigureCanvasAgg, RendererAgg
from matplotlib.figure import Figure
from matplotlib.text import Text
from matplotlib.transforms import Bbox


def _undrawn_tick_labels(fig: Figure) -> set[int]:
    """Tick labels matplotlib keeps but does not draw (their tick lies outside the view limits)."""
    hidden: set[int] = set()
    for ax in fig.axes:
        for axis in (ax.xaxis, ax.yaxis):
            if not (ax.get_visible() and ax.axison and axis.get_visible()):
                drawn: set[int] = set()
            else:
                drawn = {id(t) for tick in axis._update_ticks() for t in (tick.label1, tick.label2)}
            for tick in axis.majorTicks + axis.minorTicks:
                for t in (tick.label1, tick.label2):
                    if id(t) not in drawn:
                        hidden.add(id(t))
    return hidden


def texts(fig: Figure) -> list[Text]:
    """The visible, non-empty text artists of ``fig`` (tick labels outside the axis limits, which
    matplotlib does not draw, excluded)."""
    found = fig.findobj(Text)  # before the tick update below, which may add (undrawn) ticks
    hidden = _undrawn_tick_labels(fig)
    return [t for t in found if t.get_visible() and t.get_text().strip() and id(t) not in hidden]


def strings(fig: Figure) -> list[str]:
    return [t.get_text() for t in texts(fig)]


def assert_texts_clean(fig: Figure, min_texts: int = 5
                       ) -> tuple[RendererAgg, list[tuple[str, Bbox]]]:
    """Draw ``fig`` and check that no two texts overlap and that every text lies inside the
    figure (half-pixel slack; for a figure saved with a tight box, inside that box); returns the
    renderer and the text boxes for further checks."""
    canvas = FigureCanvasAgg(fig)
    canvas.draw()
    renderer = canvas.get_renderer()
    boxes = [(t.get_text(), t.get_window_extent(renderer)) for t in texts(fig)]
    assert len(boxes) > min_texts
    fb = fig.bbox
    if getattr(fig, "_ranger_tight", False):
        # figures with a signature footer below the axes are saved with a tight bounding box
        # (plots._style.save_figure): the saved page is the union of the figure and that box
        fb = Bbox.union([fb, fig.get_tightbbox(renderer).transformed(fig.dpi_scale_trans)])
    for s, b in boxes:
        assert b.x0 >= fb.x0 - 0.5 and b.x1 <= fb.x1 + 0.5, f"{s!r} clipped horizontally"
        assert b.y0 >= fb.y0 - 0.5 and b.y1 <= fb.y1 + 0.5, f"{s!r} clipped vertically"
    for (s1, b1), (s2, b2) in itertools.combinations(boxes, 2):
        ox = min(b1.x1, b2.x1) - max(b1.x0, b2.x0)
        oy = min(b1.y1, b2.y1) - max(b1.y0, b2.y0)
        assert not (ox > 0.5 and oy > 0.5), f"texts overlap: {s1!r} and {s2!r}"
    return renderer, boxes
