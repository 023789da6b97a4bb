""":func:`cd_diagram`: options → checked data → layout → figure."""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from matplotlib.figure import Figure

from .check import checked
from .draw import draw
from .layout import cd_layout
from .options import CDOptions

__all__ = ["cd_diagram"]


def cd_diagram(
    rank_test: Any,
    *,
    title: str | None = None,
    width: float | None = None,
    reverse: bool = False,
    labels: Mapping[str, str] | None = None,
    decimals: int = 2,
    footer: bool = True,
) -> Figure:
    """The critical-difference diagram of a :class:`~ranger_eval.aggregate.ranktests.RankTest`.

    Parameters
    ----------
    rank_test
        Result of :func:`ranger_eval.aggregate.rank_test` (its ``average_ranks``,
        ``critical_difference``, ``cliques``, ``posthoc``, ``alpha``, ``n_datasets``,
        ``n_systems``, ``control`` and ``signature`` are drawn; nothing is recomputed). A
        :class:`~ranger_eval.aggregate.bayesrank.BayesianRankTest` (``approach="bayesian"``)
        is drawn the same way on its average ranks, with its ``clique_kinds``: black bars join
        practically equivalent systems, grey bars systems with no decided difference.
    title
        Bold title above the diagram (none by default).
    width
        Figure width in inches; default: enough for the labels and about 0.3 in per rank
        (3 to 7 in of axis), within one page (8.5 in) while the labels leave the axis room for
        its ticks. Too narrow for the labels is a :class:`~ranger_eval.errors.PlotError`
        saying the least width that fits.
    reverse
        Put rank 1 (best) at the right end of the axis.
    labels
        Display names ``{system: label}`` (drawn literally); systems not listed keep their name.
    decimals
        Decimals of the average ranks and of the CD (2).
    footer
        Print what the bars mean, the Friedman test and the signature under the diagram.

    Returns
    -------
    matplotlib.figure.Figure
        The diagram (not registered with pyplot); save it with :func:`ranger_eval.save_figure`.

    Raises
    ------
    PlotError
        Not a rank test result, or a ``width`` too narrow for the labels.

    References
    ----------
    Demšar, J. (2006). Statistical comparisons of classifiers over multiple data sets. Journal of
    Machine Learning Research 7:1–30.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import pandas as pd
    >>> import ranger_eval as rg
    >>> table = pd.DataFrame({"A": [0.71, 0.65, 0.80, 0.62, 0.77, 0.69],
    ...                       "B": [0.74, 0.69, 0.83, 0.66, 0.80, 0.70],
    ...                       "C": [0.70, 0.61, 0.79, 0.60, 0.75, 0.64]})
    >>> fig = rg.cd_diagram(rg.rank_test(table), title="Three systems")
    >>> len(fig.axes)
    1
    >>> import matplotlib.pyplot as plt
    >>> plt.close(fig)
    """
    options = CDOptions(title=title, width=width, reverse=reverse, labels=dict(labels or {}),
                        decimals=decimals, footer=footer)
    data = checked(rank_test, options)
    return draw(data, cd_layout(data, options), decimals)
