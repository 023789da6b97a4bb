"""A planned comparison in Markdown (``plan.md`` of ``ranger-eval plan``): the answer in words,
a table of every input and result, the signature."""
from __future__ import annotations

import math

from ..stats.pilot import PilotPlan
from ..stats.power import Plan

__all__ = ["plan_markdown"]


def _value(value: object) -> str:
    if value is None:
        return "–"
    if isinstance(value, float):
        return f"{value:.6g}" if math.isfinite(value) else str(value)
    return str(value)


def plan_markdown(result: Plan | PilotPlan) -> str:
    """The plan's summary sentence, its fields as a two-column table, and the signature."""
    solved = result.solved_for
    lines = ["# Plan", "", result.summary(), ""]
    if isinstance(result, PilotPlan):
        lines += [f"Simulated from the pilot ({result.n_pilot} items of {result.dataset}, "
                  f"{result.metric}; Card et al. 2020); the normal closed form at the pilot's SD "
                  f"gives power {result.power_normal:.3f} (Gelman & Carlin 2014).", ""]
    lines += ["| quantity | value |", "|---|---:|"]
    for key, value in result.to_dict().items():
        if key == "signature":
            continue
        name = f"**{key}** (solved)" if key == solved or (key == "n_exact" and solved == "n") \
            else key
        lines.append(f"| {name} | {_value(value)} |")
    lines += ["", f"`{result.signature}`", ""]
    return "\n".join(lines)
