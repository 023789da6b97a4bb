"""Report renderings of :class:`~ranger_eval.budget.irt.IRTResult` (item response theory: item
difficulties, discriminations, fit; system abilities): Markdown, LaTeX, HTML, plain CSV and JSON,
registered in the report registry (:mod:`ranger_eval.report.registry`).

Every item is a row, ordered by difficulty (easiest first); items left out of the fit (every
system right or wrong: not estimable) are listed under the table, extreme systems (WLE ability)
are marked. The CSV is the item table (:meth:`IRTResult.to_frame`), the JSON the whole result
(:meth:`IRTResult.to_dict`).
"""
from __future__ import annotations

import html
import json
import math

import pandas as pd

from ..budget.irt import IRTResult
from .formats import jsonable, latex_escape, latex_table, plain_csv
from .registry import to_csv, to_html, to_json, to_latex, to_markdown

__all__: list[str] = []


def _md(text: object) -> str:
    return str(text).replace("|", "\\|")


def _num(value: float, digits: int = 3) -> str:
    return "–" if not math.isfinite(value) else f"{value:.{digits}f}"


def _title(result: IRTResult) -> str:
    return "Rasch (conditional ML)" if result.model == "rasch" else "2PL (marginal ML)"


def _caption(result: IRTResult) -> str:
    s = result.settings
    parts = [f"{_title(result)}: {len(result.ability)} systems × {len(result.difficulty)} items; "
             "P(correct) = σ(a (θ − b)); difficulty b ± se"
             + (", discrimination a ± se" if result.model == "2pl" else " (sum zero, a = 1)")
             + f"; infit/outfit mean squares and their t, an item outside [{s.fit_low}, "
             f"{s.fit_high}] is a misfit."]
    if result.excluded_items:
        parts.append(f"Not estimable, left out ({len(result.excluded_items)}): "
                     + ", ".join(f"{k} ({v})" for k, v in result.excluded_items.items()) + ".")
    if result.extreme.any():
        parts.append(f"{int(result.extreme.sum())} system(s) with every item right or wrong: "
                     "WLE ability (*).")
    return " ".join(parts)


def _item_rows(result: IRTResult) -> list[list[str]]:
    frame = result.to_frame().sort_values("difficulty", kind="stable")
    twopl = result.model == "2pl"
    rows = []
    for item, r in frame.iterrows():
        row = [str(item), f"{_num(r['difficulty'])} ± {_num(r['difficulty_se'])}"]
        if twopl:
            row.append(f"{_num(r['discrimination'])} ± {_num(r['discrimination_se'])}")
        row += [_num(r["infit"]), _num(r["infit_t"], 2), _num(r["outfit"]),
                _num(r["outfit_t"], 2), "misfit" if r["misfit"] else ""]
        rows.append(row)
    return rows


def _item_header(result: IRTResult) -> list[str]:
    return ["Item", "Difficulty", *(["Discrimination"] if result.model == "2pl" else []),
            "Infit", "Infit t", "Outfit", "Outfit t", "Fit"]


def _system_rows(result: IRTResult) -> list[list[str]]:
    frame = result.abilities().sort_values("ability", ascending=False, kind="stable")
    return [[str(name) + (" *" if r["extreme"] else ""),
             f"{_num(r['ability'])} ± {_num(r['ability_se'])}", _num(r["infit"]),
             _num(r["outfit"])] for name, r in frame.iterrows()]


def _markdown(result: IRTResult) -> str:
    """Items (by difficulty) and systems (by ability), the caption and the signature."""
    head = _item_header(result)
    lines = [f"# Item response theory: {_title(result)}", "",
             "| " + " | ".join(head) + " |", "|---|" + "---:|" * (len(head) - 2) + "---|"]
    lines += ["| " + " | ".join(_md(c) for c in row) + " |" for row in _item_rows(result)]
    lines += ["", "| System | Ability | Infit | Outfit |", "|---|---:|---:|---:|"]
    lines += ["| " + " | ".join(_md(c) for c in row) + " |" for row in _system_rows(result)]
    lines += ["", _caption(result), "", f"`{result.signature}`", ""]
    return "\n".join(lines)


def _latex(result: IRTResult) -> str:
    head = [latex_escape(h) for h in _item_header(result)]
    rows = [[latex_escape(c).replace(" ± ", r" $\pm$ ") for c in row]
            for row in _item_rows(result)]
    return latex_table(head, rows, "l" + "r" * (len(head) - 2) + "l",
                       caption=latex_escape(_caption(result)), label="tab:irt",
                       signature=str(result.signature))


def _html(result: IRTResult) -> str:
    head = _item_header(result)
    lines = ['<table class="ranger-irt">',
             f"<caption>{html.escape(_caption(result))}<br><code>"
             f"{html.escape(str(result.signature))}</code></caption>",
             "<thead><tr>" + "".join(f"<th>{html.escape(h)}</th>" for h in head)
             + "</tr></thead>", "<tbody>"]
    for row in _item_rows(result):
        cls = ' class="misfit"' if row[-1] else ""
        lines.append(f"<tr{cls}>" + "".join(f"<td>{html.escape(c)}</td>" for c in row)
                     + "</tr>")
    lines += ["</tbody>", "</table>", ""]
    return "\n".join(lines)


def _csv(result: IRTResult) -> str:
    frame = result.to_frame().reset_index()
    frame["item"] = frame["item"].astype(str)
    return plain_csv(pd.DataFrame(frame))


def _json(result: IRTResult) -> str:
    return json.dumps({"result": jsonable(result.to_dict()), "signature": str(result.signature)},
                      indent=2, allow_nan=False, ensure_ascii=False) + "\n"


def _register() -> None:
    to_markdown.register(IRTResult)(_markdown)
    to_latex.register(IRTResult)(_latex)
    to_html.register(IRTResult)(_html)
    to_csv.register(IRTResult)(_csv)
    to_json.register(IRTResult)(_json)


_register()
