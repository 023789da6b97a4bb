"""Text measured in inches, for figures laid out from their text (forest, multi-forest, funnel).

Widths come from one Agg renderer at 720 dpi (extents precise to 0.1 pt), with the font actually
used; heights use matplotlib's line spacing of 1.2 times the font size. Nothing here draws.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import lru_cache

from matplotlib.backends.backend_agg import RendererAgg
from matplotlib.font_manager import FontProperties

__all__ = ["HINT", "hinted_width", "hinted_wrap", "line_height", "text_width", "wrap", "wrap_footer",
           "wrap_parts", "wrap_signature"]


def wrap_parts(parts: Sequence[str], sep: str, width: float,
               measure: Callable[[str], float]) -> list[str]:
    """Greedy wrap of ``parts`` joined by ``sep`` into lines whose ``measure`` (width in inches)
    is at most ``width``; a part wider than ``width`` gets a line of its own."""
    lines: list[str] = []
    cur = ""
    for part in parts:
        trial = part if not cur else cur + sep + part
        if cur and measure(trial) > width:
            lines.append(cur + sep.rstrip())
            cur = part
        else:
            cur = trial
    if cur:
        lines.append(cur)
    return lines


@lru_cache(maxsize=1)
def _renderer() -> RendererAgg:
    # 720 dpi: extents precise to 0.1 pt (Agg rounds to whole pixels).
    return RendererAgg(1, 1, 720)


def text_width(text: str, prop: FontProperties) -> float:
    """Width in inches of ``text`` (widest line) set in ``prop``."""
    lines = [line for line in text.split("\n")]
    width = 0.0
    for line in lines:
        if line:
            w, _, _ = _renderer().get_text_width_height_descent(line, prop, ismath=False)
            width = max(width, w / 720.0)
    return width


def line_height(size_pt: float) -> float:
    """Line height in inches (matplotlib's default line spacing 1.2 on the font size)."""
    return 1.2 * size_pt / 72.0


def wrap(parts: list[str], sep: str, width: float, prop: FontProperties) -> list[str]:
    """Greedy wrap of ``parts`` joined by ``sep`` into lines no wider than ``width`` inches."""
    return wrap_parts(parts, sep, width, lambda text: text_width(text, prop))


#: Rendered text at 100 dpi runs up to ~4% wider than its outline (hinting): the layout margin
#: of the figures that place text by :func:`hinted_width` (funnel, multi-forest).
HINT = 1.05


def hinted_width(text: str, prop: FontProperties) -> float:
    """:func:`text_width` with the hinting margin :data:`HINT`."""
    return HINT * text_width(text, prop)


def hinted_wrap(parts: list[str], sep: str, width: float, prop: FontProperties) -> list[str]:
    """:func:`wrap` into lines whose hinted width (:func:`hinted_width`) fits ``width``."""
    return wrap(parts, sep, width / HINT, prop)


def wrap_footer(parts: Sequence[Sequence[str]], width: float, prop: FontProperties,
                wrap_fn: Callable[[list[str], str, float, FontProperties], list[str]] = wrap
                ) -> list[str]:
    """Footer lines ``width`` inches wide: each entry of ``parts`` is one statement, either a
    sentence (one part, wrapped at its spaces) or a head and its items (``"head item, item, …"``,
    wrapped after a comma, the head kept with the first item)."""
    lines: list[str] = []
    for entry in parts:
        head, rest = entry[0], list(entry[1:])
        if not rest:
            lines.extend(wrap_fn(head.split(" "), " ", width, prop))
            continue
        lines.extend(wrap_fn([head + " " + rest[0], *rest[1:]], ", ", width, prop))
    return lines


def wrap_signature(signature: str, width: float, prop: FontProperties,
                   wrap_fn: Callable[[list[str], str, float, FontProperties], list[str]] = wrap
                   ) -> list[str]:
    """The reproducibility signature in lines ``width`` inches wide, broken after its ``|``."""
    fields = str(signature).split("|")
    return wrap_fn([f + "|" for f in fields[:-1]] + fields[-1:], "", width, prop)
