"""The report's HTML tables: cells with numeric sort keys, sortable headers (the page's script),
wide tables that stack an interval under its value.
"""
from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from .common import _e, _fixed, _p


@dataclass(frozen=True)
class _Cell:
    html: str
    sort: float | None = None  # numeric sort key (data-sort); None: sort by the text
    numeric: bool = False
    stack: bool = False  # a value and its interval that may stack in two lines (CSS td.stack)


def _text(value: object) -> _Cell:
    return _Cell(_e(value))


def _num(value: Any, decimals: int) -> _Cell:
    v = math.nan if value is None else float(value)
    return _Cell(_e(_fixed(v, decimals)), v, True)


def _pcell(value: Any) -> _Cell:
    v = math.nan if value is None else float(value)
    return _Cell(_e(_p(v, "") if math.isfinite(v) else "–"), v, True)


def _sort_attr(cell: _Cell) -> str:
    if cell.sort is None:
        return ""
    v = float(cell.sort)
    if math.isnan(v):
        return ' data-sort=""'
    if math.isinf(v):
        return f' data-sort="{"-" if v < 0 else ""}Infinity"'
    return f' data-sort="{v!r}"'


#: A table with this many columns or more is set a little smaller (CSS ``.many table``), so that
#: the comparison table's 13 columns fit a 1,400 px window.
_MANY_COLUMNS = 10


def _td_class(numeric: bool, stack: bool) -> str:
    names = " ".join(n for n, on in (("num", numeric), ("stack", stack)) if on)
    return f' class="{names}"' if names else ""


def _table(tid: str, title: str, caption: str, headers: Sequence[str],
           rows: Sequence[Sequence[_Cell]], foot: Sequence[Sequence[_Cell]] = ()) -> str:
    """A sortable table: one ``<th scope="col">`` with a sort button per column."""
    numeric = [bool(rows) and all(r[j].numeric for r in rows if r[j].html != "–")
               and any(r[j].numeric for r in rows) for j in range(len(headers))]
    described = f' aria-describedby="{tid}-note"' if caption else ""
    many = " many" if len(headers) >= _MANY_COLUMNS else ""
    out = [f'<h3 id="{tid}-title">{_e(title)}</h3>',
           # the scrolling box is a focusable region, so a keyboard can scroll a wide table
           f'<div class="table-wrap{many}" role="region" tabindex="0" '
           f'aria-labelledby="{tid}-title">'
           f'<table class="sortable" id="{tid}" '
           f'aria-labelledby="{tid}-title"{described}>']
    out.append("<thead><tr>")
    for j, h in enumerate(headers):
        cls = ' class="num"' if numeric[j] else ""
        out.append(f'<th scope="col"{cls}><button type="button">{_e(h)}</button></th>')
    out.append("</tr></thead>")
    for part, body in (("tbody", rows), ("tfoot", foot)):
        if not body and part == "tfoot":
            continue
        out.append(f"<{part}>")
        for row in body:
            cells = "".join(
                f"<td{_td_class(numeric[j], c.stack)}{_sort_attr(c)}>{c.html}</td>"
                for j, c in enumerate(row)
            )
            out.append(f"<tr>{cells}</tr>")
        out.append(f"</{part}>")
    out.append("</table></div>")
    if caption:  # below the scrolling box, so it wraps at the page's width on a phone too
        out.append(f'<p class="table-note" id="{tid}-note">{caption}</p>')
    return "\n".join(out)
