"""A planned comparison in Markdown (``plan.md`` of ``ranger-eval plan``): the answer in words,
a table of every input and result, the signature."""
from __future__ import annotations

import json
import math

import pandas as pd

from ..stats.pilot import PilotPlan
from ..stats.power import Plan
from .registry import to_csv, to_json, to_latex, to_markdown
from .tables import latex_escape, latex_table, plain_csv

__all__: list[str] = []  # the renderings are reached through the registry


def _value(value: object) -> str:
    if value is None:
        return "–"
    if isinstance(value, float):
        return f"{value:.6g}" if math.isfinite(value) else str(value)
    return str(value)


def _quantities(result: Plan | PilotPlan) -> list[tuple[str, object]]:
    """Every field of the plan but its signature, in ``to_dict`` order."""
    return [(k, v) for k, v in result.to_dict().items() if k != "signature"]


def _solved(result: Plan | PilotPlan, key: str) -> bool:
    return key == result.solved_for or (key == "n_exact" and result.solved_for == "n")


def _plan_markdown(result: Plan | PilotPlan) -> str:
    """The plan's summary sentence, its fields as a two-column table, and the signature."""
    lines = ["# Plan", "", result.summary(), ""]
    if isinstance(result, PilotPlan):
        lines += [f"Simulated from the pilot ({result.n_pilot} items of {result.dataset}, "
                  f"{result.metric}; Card et al. 2020); the normal closed form at the pilot's SD "
                  f"gives power {result.power_normal:.3f} (Gelman & Carlin 2014).", ""]
    lines += ["| quantity | value |", "|---|---:|"]
    for key, value in _quantities(result):
        name = f"**{key}** (solved)" if _solved(result, key) else key
        lines.append(f"| {name} | {_value(value)} |")
    lines += ["", f"`{result.signature}`", ""]
    return "\n".join(lines)


def _plan_latex(result: Plan | PilotPlan) -> str:
    """The quantities of :func:`_plan_markdown` as a booktabs table (the solved one in bold);
    the summary sentence is the caption, the signature the footnote."""
    rows = [[f"\\textbf{{{latex_escape(k)}}} (solved)" if _solved(result, k) else latex_escape(k),
             latex_escape(_value(v))] for k, v in _quantities(result)]
    return latex_table(["Quantity", "Value"], rows, "lr", caption=latex_escape(result.summary()),
                       label="tab:plan", signature=str(result.signature))


def _plan_csv(result: Plan | PilotPlan) -> str:
    """Every quantity of the plan as plain CSV: ``quantity, value, solved`` (values at full
    precision; empty where not applicable)."""
    frame = pd.DataFrame({"quantity": [k for k, _ in _quantities(result)],
                          "value": [v for _, v in _quantities(result)],
                          "solved": [_solved(result, k) for k, _ in _quantities(result)]})
    return plain_csv(frame)


def _plan_json(result: Plan | PilotPlan) -> str:
    """``plan.json`` of ``ranger-eval plan``: the full result (``to_dict``) and its signature."""
    return json.dumps({"result": result.to_dict(), "signature": str(result.signature)},
                      indent=2, allow_nan=False) + "\n"


for _cls in (Plan, PilotPlan):
    to_markdown.register(_cls)(_plan_markdown)
    to_latex.register(_cls)(_plan_latex)
    to_csv.register(_cls)(_plan_csv)
    to_json.register(_cls)(_plan_json)
