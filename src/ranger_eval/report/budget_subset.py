"""Renderings of an estimate of a whole benchmark from a subset
(:class:`~ranger_eval.budget.SubsetEstimate`) and of a chosen subset
(:class:`~ranger_eval.budget.SubsetChoice`) for the report registry: Markdown, CSV, LaTeX,
JSON."""
from __future__ import annotations

import json
from typing import Any

import pandas as pd

from ..budget.subset import SubsetChoice, SubsetEstimate
from .formats import jsonable, latex_escape, latex_table, plain_csv
from .registry import to_csv, to_json, to_latex, to_markdown

__all__ = ["subset_estimate_lines"]


def _json(result: Any) -> str:
    return json.dumps({"result": jsonable(result.to_dict()), "signature": str(result.signature)},
                      indent=2, allow_nan=False, ensure_ascii=False) + "\n"


def subset_estimate_lines(result: SubsetEstimate) -> list[str]:
    """The estimate beside the plain subset mean (Markdown rows) and the sentence of its
    worth."""
    pct = f"{100 * result.level:g}%"
    rows = [f"| estimator | estimate | {pct} interval | se | items run | worth (random items) |",
            "|---|---:|---:|---:|---:|---:|"]
    worth = f"{result.effective_n:,.0f}" if result.design_based else "—"
    rows.append(f"| cross-fitted difference ({result.predictor}) | {result.estimate:.4f} | "
                f"[{result.low:.4f}, {result.high:.4f}] | {result.se:.4f} | {result.n} | "
                f"{worth} |")
    rows.append(f"| plain subset mean (Wilson) | {result.subset_mean:.4f} | "
                f"[{result.subset_low:.4f}, {result.subset_high:.4f}] | "
                f"{result.subset_se:.4f} | {result.n} | {result.n} |")
    return [f"Mean over all {result.n_population:,} items of the benchmark, estimated from "
            f"{result.n} items ({result.design} design, {result.n_folds}-fold cross-fitting).",
            "", *rows, "", result.worth()]


def _estimate_markdown(result: SubsetEstimate) -> str:
    lines = ["# Whole-benchmark estimate from a subset", "", *subset_estimate_lines(result), "",
             f"The predictor alone (ability fitted on all {result.n} answers) predicts "
             f"{result.predicted_mean:.4f}; it has no interval of its own.", "",
             f"`{result.signature}`"]
    return "\n".join(lines) + "\n"


def _estimate_csv(result: SubsetEstimate) -> str:
    return plain_csv(pd.DataFrame(result.to_frame()))


def _estimate_latex(result: SubsetEstimate) -> str:
    pct = f"{100 * result.level:g}\\%"
    rows = [[latex_escape(f"cross-fitted difference ({result.predictor})"),
             f"{result.estimate:.4f}", f"[{result.low:.4f}, {result.high:.4f}]",
             f"{result.se:.4f}", f"{result.effective_n:,.0f}" if result.design_based else "--"],
            ["plain subset mean (Wilson)", f"{result.subset_mean:.4f}",
             f"[{result.subset_low:.4f}, {result.subset_high:.4f}]", f"{result.subset_se:.4f}",
             str(result.n)]]
    return latex_table(["Estimator", "Estimate", f"{pct} CI", "SE", "Worth (items)"], rows,
                       "lrrrr", caption=latex_escape(result.worth()), label="tab:subset",
                       signature=str(result.signature))


def _choice_markdown(result: SubsetChoice) -> str:
    lines = ["# Subset of items", "", result.summary(), "", "| item | stratum | stratum size |",
             "|---|---:|---:|"]
    lines += [f"| {r.item} | {r.stratum} | {r.stratum_size} |"
              for r in result.to_frame().itertuples(index=False)]
    return "\n".join(lines) + "\n"


def _choice_csv(result: SubsetChoice) -> str:
    return plain_csv(result.to_frame())


def _choice_latex(result: SubsetChoice) -> str:
    rows = [[latex_escape(str(r.item)), str(r.stratum), str(r.stratum_size)]
            for r in result.to_frame().itertuples(index=False)]
    return latex_table(["Item", "Stratum", "Stratum size"], rows, "lrr",
                       caption=latex_escape(result.summary().splitlines()[0]),
                       label="tab:subset-choice", signature=str(result.signature))


to_markdown.register(SubsetEstimate)(_estimate_markdown)
to_csv.register(SubsetEstimate)(_estimate_csv)
to_latex.register(SubsetEstimate)(_estimate_latex)
to_json.register(SubsetEstimate)(_json)
to_markdown.register(SubsetChoice)(_choice_markdown)
to_csv.register(SubsetChoice)(_choice_csv)
to_latex.register(SubsetChoice)(_choice_latex)
to_json.register(SubsetChoice)(_json)
