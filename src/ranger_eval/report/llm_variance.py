"""Report renderings of :class:`~ranger_eval.llm.variance.VarianceComponents` (variance
components across items, prompts and samples): Markdown, LaTeX, plain CSV and JSON, registered
in the report registry (:mod:`ranger_eval.report.registry`).
"""
from __future__ import annotations

import json
import math

import pandas as pd

from ..llm.variance import COMPONENTS, VarianceComponents
from ..stats.describe import PROMPTS_NOTE
from .registry import to_csv, to_json, to_latex, to_markdown
from .tables import jsonable, latex_escape, latex_table, plain_csv

__all__: list[str] = []

#: The components' names in the reports.
TITLES = {"item": "item", "prompt": "prompt", "item_prompt": "item × prompt",
          "residual": "residual (sample)"}


def _md(text: object) -> str:
    return str(text).replace("|", "\\|")


def _cell(value: float, share: float) -> str:
    if not math.isfinite(value):
        return "–"
    return f"{value:.4g} ({100 * share:.1f} %)"


def _caption(result: VarianceComponents) -> str:
    return ("REML variance components (share of the total) of each system's scores: "
            "value = mu + item + prompt [+ item × prompt] + residual; "
            "– where a component is not in the model (no prompts, or no replicate samples "
            "for the item × prompt component, which is then inside the residual).")


def _markdown(result: VarianceComponents) -> str:
    """One table: per system × dataset × metric, the mean, its se, each component and share."""
    frame = result.to_frame()
    head = ["Dataset", "Metric", "System", "Items", "Prompts", "Mean (se)",
            *(TITLES[c] for c in COMPONENTS)]
    lines = ["# Variance components", "",
             "| " + " | ".join(head) + " |", "|---|---|---|" + "---:|" * (len(head) - 3)]
    for _, r in frame.iterrows():
        cells = [_md(r["dataset"]), _md(r["metric"]), _md(r["system"]), str(r["n_items"]),
                 str(r["n_prompts"]), f"{r['mean']:.4g} ({r['se']:.3g})",
                 *(_cell(r[f"var_{c}"], r[f"share_{c}"]) for c in COMPONENTS)]
        lines.append("| " + " | ".join(cells) + " |")
    lines += ["", _caption(result), "", PROMPTS_NOTE, "", f"`{result.signature}`", ""]
    return "\n".join(lines)


def _latex(result: VarianceComponents) -> str:
    frame = result.to_frame()
    rows = []
    for _, r in frame.iterrows():
        rows.append([latex_escape(r["dataset"]), latex_escape(r["metric"]),
                     latex_escape(r["system"]), f"{r['mean']:.4g}", f"{r['se']:.3g}",
                     *(latex_escape(_cell(r[f"var_{c}"], r[f"share_{c}"]))
                       for c in COMPONENTS)])
    return latex_table(["Dataset", "Metric", "System", "Mean", "SE",
                        *(latex_escape(TITLES[c]) for c in COMPONENTS)], rows,
                       "lll" + "r" * (2 + len(COMPONENTS)),
                       caption=latex_escape(_caption(result)), label="tab:variance",
                       signature=str(result.signature))


def _csv(result: VarianceComponents) -> str:
    return plain_csv(pd.DataFrame(result.to_frame()))


def _json(result: VarianceComponents) -> str:
    return json.dumps({"result": jsonable(result.to_dict()), "signature": str(result.signature)},
                      indent=2, allow_nan=False, ensure_ascii=False) + "\n"


def _register() -> None:
    to_markdown.register(VarianceComponents)(_markdown)
    to_latex.register(VarianceComponents)(_latex)
    to_csv.register(VarianceComponents)(_csv)
    to_json.register(VarianceComponents)(_json)


_register()


