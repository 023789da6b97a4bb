"""Publication-ready figures (matplotlib ``Figure`` objects; no pyplot state, no global rcParams)."""
from ._style import PlotStyle, save_figure
from .boxplots import comparison_boxplots
from .cd import cd_diagram
from .condition import condition_boxplots
from .forest import ForestColumns, ForestStyle, forest_plot
from .funnel import FunnelStyle, funnel_plot
from .graph import comparison_graph, nonsignificance_graph
from .heatmap import comparison_heatmap
from .multiforest import MultiForestColumns, MultiForestStyle, multi_forest_plot
from .pvalues import pval_transform, pvalue_plot

__all__ = [
    "ForestColumns",
    "ForestStyle",
    "FunnelStyle",
    "MultiForestColumns",
    "MultiForestStyle",
    "PlotStyle",
    "cd_diagram",
    "comparison_boxplots",
    "condition_boxplots",
    "comparison_graph",
    "comparison_heatmap",
    "forest_plot",
    "funnel_plot",
    "multi_forest_plot",
    "nonsignificance_graph",
    "pval_transform",
    "pvalue_plot",
    "save_figure",
]
