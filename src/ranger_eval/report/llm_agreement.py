"""Renderings of judge and annotator agreement (:class:`~ranger_eval.llm.AgreementResult`,
:class:`~ranger_eval.llm.AltTestResult`) for the report registry: Markdown, CSV, LaTeX, JSON."""
from __future__ import annotations

import json
import math
from typing import Any

import pandas as pd

from ..llm.agreement import AgreementResult
from ..llm.alt_test import AltTestResult
from .registry import to_csv, to_json, to_latex, to_markdown
from .tables import jsonable, latex_escape, latex_table, plain_csv

__all__ = ["agreement_lines", "alt_test_lines"]


def _num(x: float, digits: int = 3) -> str:
    return "—" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{x:.{digits}f}"


def _json(result: Any) -> str:
    return json.dumps({"result": jsonable(result.to_dict()), "signature": str(result.signature)},
                      indent=2, allow_nan=False, ensure_ascii=False) + "\n"


def agreement_lines(result: AgreementResult) -> list[str]:
    """The agreement table (Markdown rows) and its sentence."""
    pct = f"{100 * result.level:g}%"
    return [result.summary(), "",
            f"| coefficient | estimate | {pct} interval | raters | items | ratings | resamples |",
            "|---|---:|---:|---:|---:|---:|---:|",
            f"| {result.name} | {_num(result.estimate)} | [{_num(result.low)}, "
            f"{_num(result.high)}] | {result.n_raters} | {result.n_items} | "
            f"{result.n_ratings} | {result.n_resamples} |"]


def _agreement_markdown(result: AgreementResult) -> str:
    lines = ["# Agreement", "", *agreement_lines(result), "",
             f"Columns read: {', '.join(f'{k} = {v}' for k, v in result.columns.items())}. "
             f"Raters: {', '.join(result.raters)}.", "", f"`{result.signature}`"]
    return "\n".join(lines) + "\n"


def _agreement_csv(result: AgreementResult) -> str:
    return plain_csv(pd.DataFrame(result.to_frame()))


def _agreement_latex(result: AgreementResult) -> str:
    row = [latex_escape(result.name), _num(result.estimate),
           f"[{_num(result.low)}, {_num(result.high)}]", str(result.n_raters),
           str(result.n_items)]
    return latex_table(["Coefficient", "Estimate", f"{100 * result.level:g}\\% CI", "Raters",
                        "Items"], [row], "lrrrr", caption=latex_escape(result.summary()),
                       label="tab:agreement", signature=str(result.signature))


def alt_test_lines(result: AltTestResult) -> list[str]:
    """The alt-test's verdict and its per-annotator table (Markdown rows)."""
    lines = [result.summary(), "",
             "| annotator | items | judge as good or better | p (mean advantage < ε) | "
             "judge wins (BY) |", "|---|---:|---:|---:|---|"]
    for row in result.to_frame().itertuples(index=False):
        lines.append(f"| {row.annotator} | {row.n_items} | {row.judge_wins:.2f} | "
                     f"{row.p_value:.3g} | {'yes' if row.judge_wins_test else 'no'} |")
    if result.skipped:
        lines += ["", f"Not tested (fewer than {result.min_items} items): "
                      f"{', '.join(result.skipped)}."]
    return lines


def _alt_markdown(result: AltTestResult) -> str:
    return "\n".join(["# Alternative annotator test", "", *alt_test_lines(result), "",
                      f"`{result.signature}`"]) + "\n"


def _alt_csv(result: AltTestResult) -> str:
    return plain_csv(pd.DataFrame(result.to_frame()))


def _alt_latex(result: AltTestResult) -> str:
    rows = [[latex_escape(str(r.annotator)), str(r.n_items), f"{r.judge_wins:.2f}",
             f"{r.p_value:.3g}", "yes" if r.judge_wins_test else "no"]
            for r in result.to_frame().itertuples(index=False)]
    return latex_table(["Annotator", "Items", "Judge $\\geq$ human", "$p$", "Judge wins"], rows,
                       "lrrrl", caption=latex_escape(result.summary()), label="tab:alt-test",
                       signature=str(result.signature))


to_markdown.register(AgreementResult)(_agreement_markdown)
to_csv.register(AgreementResult)(_agreement_csv)
to_latex.register(AgreementResult)(_agreement_latex)
to_json.register(AgreementResult)(_json)
to_markdown.register(AltTestResult)(_alt_markdown)
to_csv.register(AltTestResult)(_alt_csv)
to_latex.register(AltTestResult)(_alt_latex)
to_json.register(AltTestResult)(_json)
