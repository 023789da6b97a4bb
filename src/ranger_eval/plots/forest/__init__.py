"""Publication-ready forest plot of a meta-analysis (``MetaResult``): :func:`forest_plot`.

The parts, in the order they run:

* :mod:`.options` — :class:`ForestColumns` (which text columns) and :class:`ForestStyle` (font,
  size, stripes), the options that are not the data;
* :mod:`.columns` — what is shown (:class:`~.columns.ForestValues`, on the display scale), the
  text columns and the footer's statements;
* :mod:`.layout` — where everything goes, in inches from measured text (:class:`ForestLayoutError`
  when a requested size cannot hold it);
* :mod:`.draw` — the matplotlib figure;
* :mod:`.plot` — :func:`forest_plot`, which checks the result and runs the above.

The effect axis (range, ticks, whiskers, diamonds) is shared with the multi-system forest plot
(:mod:`ranger_eval.plots._axis`), and text measurement with every figure laid out from its text
(:mod:`ranger_eval.plots._text`).
"""
from .._axis import effect_decimals
from .._style import save_figure
from .layout import MIN_MARKER_PT, ForestLayoutError, marker_areas
from .options import ForestColumns, ForestStyle
from .plot import forest_plot

__all__ = ["forest_plot", "ForestColumns", "ForestStyle", "save_figure", "effect_decimals",
           "marker_areas", "MIN_MARKER_PT", "ForestLayoutError"]
