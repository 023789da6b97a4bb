"""Multi-system forest plot: several treatments against one control on a shared x axis
(:func:`multi_forest_plot`).

The parts, in the order they run:

* :mod:`.options` — :class:`MultiForestColumns` (labels, values column) and
  :class:`MultiForestStyle` (font, plot width, colours and markers);
* :mod:`.systems` — the results checked to share one axis, each system's values on the display
  scale, the dataset rows;
* :mod:`.layout` — the values column, legend, footer and rows, in inches;
* :mod:`.draw` — the matplotlib figure;
* :mod:`.plot` — :func:`multi_forest_plot`, which runs the above.

The effect axis is shared with :func:`ranger_eval.plots.forest_plot` (:mod:`ranger_eval.plots._axis`).
"""
from .options import SYSTEM_COLORS, SYSTEM_MARKERS, MultiForestColumns, MultiForestStyle
from .plot import multi_forest_plot

__all__ = ["multi_forest_plot", "MultiForestColumns", "MultiForestStyle", "SYSTEM_COLORS",
           "SYSTEM_MARKERS"]
