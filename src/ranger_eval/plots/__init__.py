"""Publication-ready figures (matplotlib ``Figure`` objects; no pyplot state, no global rcParams)."""
from ._style import save_figure
from .forest import forest_plot

__all__ = ["forest_plot", "save_figure"]
