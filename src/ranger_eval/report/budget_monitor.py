"""Renderings of anytime-valid confidence sequences and monitoring
(:class:`~ranger_eval.budget.ConfidenceSequence`, :class:`~ranger_eval.budget.MonitorResult`)
for the report registry: Markdown, LaTeX, CSV, JSON and HTML.

The Markdown and HTML forms give the decision in words, the interval at the decision and the
sequence at a few checkpoints (t = 10, 20, 50, 100, … and the last unit); the CSV is the whole
sequence, one row per observation (:meth:`to_frame`); the JSON is :meth:`to_dict` with the
checkpoints. Nothing is recomputed: every number is a field of the result.
"""
from __future__ import annotations

import json
import math
from html import escape
from typing import Any

import numpy as np
import pandas as pd

from ..budget.monitor import ConfidenceSequence, MonitorResult
from .formats import jsonable, latex_escape, latex_table, plain_csv
from .registry import to_csv, to_html, to_json, to_latex, to_markdown

__all__ = ["checkpoints", "monitor_lines"]

_STEPS = (1, 2, 5)


def checkpoints(n: int) -> list[int]:
    """The times shown in the tables: 10, 20, 50, 100, 200, 500, … below ``n``, and ``n``."""
    out: list[int] = []
    scale = 10
    while scale < n:
        out += [scale * s for s in _STEPS if scale * s < n]
        scale *= 10
    return [*out, n] if n else []


def _num(x: float) -> str:
    return "—" if x is None or not math.isfinite(x) else f"{x:+.4g}"


def _checkpoint_frame(cs: ConfidenceSequence, n_used: int | None = None) -> pd.DataFrame:
    times = checkpoints(cs.n)
    if n_used and n_used not in times:
        times = sorted({*times, n_used})
    idx = np.asarray(times, dtype=np.int64) - 1
    return pd.DataFrame({"t": times, "mean": cs.mean[idx], "lower": cs.lower[idx],
                         "upper": cs.upper[idx]})


def _points(frame: pd.DataFrame) -> list[tuple[int, float, float, float]]:
    """(t, mean, lower, upper) of each checkpoint."""
    return list(zip(frame["t"].astype(int).tolist(), frame["mean"].astype(float).tolist(),
                    frame["lower"].astype(float).tolist(), frame["upper"].astype(float).tolist(),
                    strict=True))


def _checkpoint_rows(frame: pd.DataFrame, mark: int | None = None) -> list[str]:
    return [f"| {t:,}{' (decision)' if mark == t else ''} | {_num(m)} | "
            f"[{_num(lo)}, {_num(hi)}] |" for t, m, lo, hi in _points(frame)]


def _json(result: Any, frame: pd.DataFrame) -> str:
    return json.dumps({"result": jsonable(result.to_dict()),
                       "checkpoints": jsonable(frame.to_dict(orient="records")),
                       "signature": str(result.signature)},
                      indent=2, allow_nan=False, ensure_ascii=False) + "\n"


# -- ConfidenceSequence --------------------------------------------------------------------

def _cs_markdown(result: ConfidenceSequence) -> str:
    pct = f"{100 * result.level:g}%"
    lines = ["# Confidence sequence", "", result.summary() + ".", "",
             f"Method {result.method}, bounds [{result.bounds[0]:g}, {result.bounds[1]:g}]"
             + (f", sampled without replacement from N = {result.n_population:,}"
                if result.n_population else "") + "; the intervals hold at every t at once.",
             ""]
    if result.n:
        lines += [f"| t | mean | {pct} confidence sequence |", "|---:|---:|---:|",
                  *_checkpoint_rows(_checkpoint_frame(result)), ""]
    return "\n".join([*lines, f"`{result.signature}`"]) + "\n"


def _cs_latex(result: ConfidenceSequence) -> str:
    frame = _checkpoint_frame(result)
    rows = [[f"{t:,}", f"{m:.4g}", f"[{lo:.4g}, {hi:.4g}]"] for t, m, lo, hi in _points(frame)]
    return latex_table(["$t$", "Mean", f"{100 * result.level:g}\\% CS"], rows, "rrr",
                       caption=latex_escape(result.summary()), label="tab:confseq",
                       signature=str(result.signature))


def _cs_csv(result: ConfidenceSequence) -> str:
    return plain_csv(result.to_frame())


def _cs_json(result: ConfidenceSequence) -> str:
    return _json(result, _checkpoint_frame(result))


def _cs_html(result: ConfidenceSequence) -> str:
    return _html_table("ranger-confseq", result.summary(), _checkpoint_frame(result),
                       result.level, None)


# -- MonitorResult -------------------------------------------------------------------------

def monitor_lines(result: MonitorResult) -> list[str]:
    """The decision in words and the table of the sequence at the checkpoints (Markdown)."""
    pct = f"{100 * result.level:g}%"
    lines = [result.summary() + ".", "",
             "| decision | units used | units seen | mean difference | "
             f"{pct} confidence sequence | margin |", "|---|---:|---:|---:|---:|---:|",
             f"| {result.decision} | {result.n_used:,} | {result.n_available:,} | "
             f"{_num(result.estimate)} | [{_num(result.lower)}, {_num(result.upper)}] | "
             f"{result.margin:g} |", ""]
    if result.n_available:
        lines += [f"| {result.unit}s seen | mean difference | {pct} confidence sequence |",
                  "|---:|---:|---:|",
                  *_checkpoint_rows(_checkpoint_frame(result.sequence, result.n_used),
                                    result.n_used if result.stopped else None), ""]
    return lines


def _monitor_markdown(result: MonitorResult) -> str:
    how = (f"Anytime-valid: the {result.sequence.method} confidence sequence of the mean "
           f"difference {result.treatment} − {result.control} covers it at every {result.unit} "
           f"at once with probability ≥ {result.level:g}, so the decision holds however often "
           f"the run was looked at. Units in the {result.order} order"
           + (f"; a {result.unit} is the mean difference of its items" if result.unit != "item"
              else "") + ".")
    lines = [f"# Monitor: {result.treatment} vs {result.control} "
             f"({result.dataset} × {result.metric})", "", *monitor_lines(result), how, "",
             f"`{result.signature}`"]
    return "\n".join(lines) + "\n"


def _monitor_latex(result: MonitorResult) -> str:
    row = [latex_escape(result.decision), f"{result.n_used:,}", f"{result.n_available:,}",
           f"{result.estimate:+.4g}" if result.n_used else "--",
           f"[{result.lower:+.4g}, {result.upper:+.4g}]" if result.n_used else "--"]
    return latex_table(["Decision", "Used", "Seen", "Mean diff.",
                        f"{100 * result.level:g}\\% CS"], [row], "lrrrr",
                       caption=latex_escape(result.summary()), label="tab:monitor",
                       signature=str(result.signature))


def _monitor_csv(result: MonitorResult) -> str:
    return plain_csv(result.to_frame())


def _monitor_json(result: MonitorResult) -> str:
    frame = (_checkpoint_frame(result.sequence, result.n_used) if result.n_available
             else pd.DataFrame(columns=["t", "mean", "lower", "upper"]))
    return _json(result, frame)


def _html_table(css: str, caption: str, frame: pd.DataFrame, level: float,
                mark: int | None) -> str:
    rows = "".join(
        f"<tr><td>{t:,}{' (decision)' if mark == t else ''}</td>"
        f"<td>{escape(_num(m))}</td>"
        f"<td>[{escape(_num(lo))}, {escape(_num(hi))}]</td></tr>"
        for t, m, lo, hi in _points(frame))
    return (f'<table class="{css}">\n<caption>{escape(caption)}</caption>\n'
            f"<thead><tr><th>t</th><th>mean</th><th>{100 * level:g}% confidence sequence</th>"
            f"</tr></thead>\n<tbody>{rows}</tbody>\n</table>\n")


def _monitor_html(result: MonitorResult) -> str:
    frame = (_checkpoint_frame(result.sequence, result.n_used) if result.n_available
             else pd.DataFrame(columns=["t", "mean", "lower", "upper"]))
    return _html_table("ranger-monitor", result.summary(), frame, result.level,
                       result.n_used if result.stopped else None)


to_markdown.register(ConfidenceSequence)(_cs_markdown)
to_latex.register(ConfidenceSequence)(_cs_latex)
to_csv.register(ConfidenceSequence)(_cs_csv)
to_json.register(ConfidenceSequence)(_cs_json)
to_html.register(ConfidenceSequence)(_cs_html)
to_markdown.register(MonitorResult)(_monitor_markdown)
to_latex.register(MonitorResult)(_monitor_latex)
to_csv.register(MonitorResult)(_monitor_csv)
to_json.register(MonitorResult)(_monitor_json)
to_html.register(MonitorResult)(_monitor_html)
