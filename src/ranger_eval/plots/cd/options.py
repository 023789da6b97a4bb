"""The keywords of :func:`ranger_eval.plots.cd_diagram` that are not the data, in one frozen
object checked when made (a wrong option is reported before anything is drawn)."""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from numbers import Real

from ...errors import PlotError

__all__ = ["CDOptions"]


@dataclass(frozen=True)
class CDOptions:
    """How a CD diagram is drawn.

    Attributes
    ----------
    title : bold title above the diagram (none by default).
    width : figure width in inches; default: enough for the labels and about 0.3 in per rank
        (3 to 7 in of axis), at most one page (8.5 in) while the labels allow it.
    reverse : put rank 1 (best) at the right end of the axis.
    labels : display names ``{system: label}`` (drawn literally).
    decimals : decimals of the average ranks and of the CD.
    footer : print what the bars mean, the Friedman test and the signature.
    """

    title: str | None = None
    width: float | None = None
    reverse: bool = False
    labels: Mapping[str, str] = field(default_factory=dict)
    decimals: int = 2
    footer: bool = True

    def __post_init__(self) -> None:
        if self.width is not None and not (isinstance(self.width, Real) and self.width > 0):
            raise PlotError(f"width must be a positive number of inches; got {self.width!r}")
        if (not isinstance(self.decimals, int) or isinstance(self.decimals, bool)
                or not 0 <= self.decimals <= 6):
            raise PlotError(f"decimals must be an integer from 0 to 6; got {self.decimals!r}")
