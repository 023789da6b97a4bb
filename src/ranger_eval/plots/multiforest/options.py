"""The options of :func:`ranger_eval.plots.multi_forest_plot` that are not the data: its text
columns (:class:`MultiForestColumns`) and its look (:class:`MultiForestStyle`). Both are frozen
and checked when made."""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from matplotlib.font_manager import FontProperties

from ...errors import PlotError
from .._axis import check_precision
from .._style import PlotStyle

__all__ = ["SYSTEM_COLORS", "SYSTEM_MARKERS", "MultiForestColumns", "MultiForestStyle"]

#: Okabe–Ito colours (without yellow, too pale on white), one per system.
SYSTEM_COLORS = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000")
#: Marker shapes, one per system (so greyscale prints stay readable).
SYSTEM_MARKERS = ("o", "s", "^", "D", "v", "P", "X")


@dataclass(frozen=True)
class MultiForestColumns:
    """The text columns of a multi-system forest plot.

    Attributes
    ----------
    labels : dataset name → row label.
    label_header : header of the label column.
    values : add a decimal-aligned ``effect [CI]`` column (one line per system and row, and the
        summaries in bold).
    precision : decimals of the values column (default chosen from the data).
    """

    labels: Mapping[str, str] | None = None
    label_header: str = "Dataset"
    values: bool = False
    precision: int | None = None

    def __post_init__(self) -> None:
        check_precision(self.precision)


@dataclass(frozen=True)
class MultiForestStyle(PlotStyle):
    """How a multi-system forest plot looks: the fixed font (:class:`ranger_eval.plots.PlotStyle`),
    the width of the plotting area and each system's colour and marker.

    Attributes
    ----------
    plot_width : width of the plotting area in inches (at least 1.2; widened for a long x label,
        legend entry or footer line).
    colors, markers : one per system, in the order of the results (default Okabe–Ito colours and
        7 marker shapes; more than 7 systems need both).
    """

    plot_width: float = 3.2
    colors: Sequence[str] | None = None
    markers: Sequence[str] | None = None

    def __post_init__(self) -> None:
        super().__post_init__()
        if not self.plot_width >= 1.2:
            raise PlotError(f"plot_width must be at least 1.2 inches, got {self.plot_width!r}")

    @property
    def signature(self) -> FontProperties:
        """The signature lines under the footer (1.5 pt smaller than the body, at least 4 pt)."""
        return FontProperties(family=self.fontfamily, size=max(4.0, self.fontsize - 1.5))

    def system_looks(self, n_systems: int) -> tuple[list[str], list[str]]:
        """The colours and markers of ``n_systems`` systems (defaults where not given)."""
        S = n_systems
        colors, markers = self.colors, self.markers
        if colors is None:
            if S > len(SYSTEM_COLORS):
                raise PlotError(f"{S} systems: give MultiForestStyle(colors=..., markers=...) (the "
                                f"defaults have {len(SYSTEM_COLORS)})")
            colors = SYSTEM_COLORS[:S]
        if markers is None:
            if S > len(SYSTEM_MARKERS):
                raise PlotError(f"{S} systems: give MultiForestStyle(markers=...) (the defaults have "
                                f"{len(SYSTEM_MARKERS)})")
            markers = SYSTEM_MARKERS[:S]
        colors, markers = list(colors), list(markers)
        if len(colors) < S or len(markers) < S:
            raise PlotError(f"colors and markers need one entry per system ({S})")
        return colors, markers
