"""The options of :func:`ranger_eval.plots.forest_plot` that are not the data: which text columns
it shows (:class:`ForestColumns`) and how it looks (:class:`ForestStyle`). Both are frozen and
checked when made, so a wrong option is reported before anything is drawn."""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from numbers import Real
from typing import Any

from ...errors import PlotError
from .._axis import check_precision
from .._style import PlotStyle

__all__ = ["ForestColumns", "ForestStyle"]

@dataclass(frozen=True)
class ForestColumns:
    """The text columns of a forest plot, left to right: the row labels, ``left`` columns, the
    plot, the weights, ``effect [CI]``, ``right`` columns.

    Attributes
    ----------
    labels : row labels replacing the dataset names (a sequence in result order, or a mapping
        name → label).
    label_header : header of the label column.
    left, right : extra text columns, left of the plot (after the labels) and at the far right:
        a mapping ``header → values`` where values are one per dataset (in result order), a
        mapping ``name → value``, or a string naming a column of ``result.effects.extra``; or a
        sequence of ``result.effects.extra`` column names. Numbers get a shared precision.
    means : a left column "``<metric>`` control → treatment" with the mean scores from
        ``result.effects`` (None: whenever the means are available; True: required).
    weights : the column of model weights.
    precision : decimals of the ``effect [CI]`` column; default chosen from the data
        (:func:`ranger_eval.plots.forest.effect_decimals`).
    """

    labels: Sequence[str] | Mapping[str, str] | None = None
    label_header: str = "Dataset"
    left: Any = None
    right: Any = None
    means: bool | None = None
    weights: bool = True
    precision: int | None = None

    def __post_init__(self) -> None:
        check_precision(self.precision)


@dataclass(frozen=True)
class ForestStyle(PlotStyle):
    """How a forest plot looks: the fixed font (:class:`ranger_eval.plots.PlotStyle`), its size
    and its stripes.

    Attributes
    ----------
    figsize : (width, height) in inches; default (None) grows with the columns and rows. A size
        too small for the fixed font raises :class:`ranger_eval.plots.forest.ForestLayoutError`.
    stripes : shade every other study row (None: from 12 rows on).
    """

    figsize: tuple[float, float] | None = None
    stripes: bool | None = None

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.figsize is not None:
            size = tuple(self.figsize)
            if len(size) != 2 or not all(isinstance(v, Real) for v in size):
                raise PlotError(f"figsize must be (width, height) in inches, got {self.figsize!r}")
