"""The leaderboard table: systems × dataset/metric means with ranx-style letters of the systems
each one significantly beats (best mean in bold), as Markdown, LaTeX, HTML, CSV and JSON
(:class:`~ranger_eval.comparison.Leaderboard`; :mod:`ranger_eval.report.tables` re-exports every
name here). Every table carries the leaderboard's signature (module docstring of
:mod:`ranger_eval.report.tables`).
"""
from __future__ import annotations

import html
import math
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ..comparison import Leaderboard
from ..comparison.prompts import CROSSED_MEAN_INTERVAL
from ..formatting import format_level
from .formats import (
    _decimals,
    _md_escape,
    _num,
    jsonable,
    latex_escape,
    latex_table,
    plain_csv,
)
from .registry import to_csv, to_html, to_json, to_latex, to_markdown

__all__ = [
    "leaderboard_csv",
    "leaderboard_dict",
    "leaderboard_html",
    "leaderboard_json",
    "leaderboard_latex",
    "leaderboard_markdown",
]

#: the caption's words for each interval method of :func:`ranger_eval.describe`
_INTERVAL_WORDS = {
    "wilson": "Wilson score interval for the 0/1 scores",
    "korn-graubard": "Korn–Graubard effective-n beta interval (R survey's svyciprop, "
                     "method \"beta\"), inside the metric's range",
}


def _board_ci_note(board: Leaderboard) -> str:
    """The caption's sentences about the bracketed intervals and the se, n, clusters columns
    ("" without them), and why set-level metrics have neither."""
    return _board_ci_counts(board) + _board_set_level_note(board)


def _board_set_level_note(board: Leaderboard) -> str:
    """Why the cells of set-level metrics have no interval and no se ("" without any)."""
    if not board.set_level:
        return ""
    names = ", ".join(board.set_level)
    return (f" {names}: computed over the whole set, not averaged over items, so without a "
            "per-item standard error or interval (–); their comparisons are tested by "
            "resampling the items (comparison.csv).")


def _board_ci_counts(board: Leaderboard) -> str:
    counts = ""
    if board.has_counts and board.interval_method == CROSSED_MEAN_INTERVAL:
        counts = " n: items."  # the se is the crossed model's, said in the brackets' sentence
    elif board.has_counts:
        se = ("cluster-robust (CR1) standard error of the mean, as Inspect's "
              "stderr(cluster=...)" if board.clustered
              else "standard error of the mean (s/√n)")
        counts = (f" se: the {se}; n: items" + ("; clusters: the clusters of those items" if board.clustered
                                                 else "") + ".")
    if not board.has_intervals:
        return counts
    t_how = ("cluster-robust (CR1) standard error, t on C − 1 df, C clusters" if board.clustered
             else "t on n − 1 df")
    names = board.interval_names() or ("t",)
    if board.interval_method is not None:  # e.g. the prediction-powered interval (PPI++)
        how = board.interval_method
    else:
        how = "; ".join(t_how if m == "t" else _INTERVAL_WORDS.get(m, m) for m in names)
    return (f" Brackets: the {format_level(board.level)} confidence interval of the mean "
            f"({how}).{counts}")


def _board_ci(board: Leaderboard, i: int, j: int, dec: int, style: str) -> str:
    """`` [lo, hi]`` after a leaderboard cell ("" where there is no interval)."""
    ci = board.interval(i, j)
    if ci is None:
        return ""
    return f" [{_num(ci[0], dec, style)}, {_num(ci[1], dec, style)}]"


def _board_extra_headers(board: Leaderboard) -> list[str]:
    """The columns after each mean column: ``se``, ``n`` and, with clusters, ``clusters``."""
    if not board.has_counts:
        return []
    return ["se", "n", "clusters"] if board.clustered else ["se", "n"]


def _board_extra_cells(board: Leaderboard, i: int, j: int, style: str,
                       se_decimals: int) -> list[str]:
    """The se, n (and clusters) cells of mean ``(i, j)``; a dash where not known;
    ``se_decimals``: :func:`_se_decimals` of the board (computed once per table)."""
    if not board.has_counts:
        return []
    assert board.se is not None and board.n is not None and board.n_clusters is not None
    dash = {"markdown": "–", "latex": "--", "html": "&ndash;"}[style]
    se = board.se[i, j]
    cells = [_num(se, se_decimals, style) if np.isfinite(se) else dash]
    counts = [board.n[i, j]] + ([board.n_clusters[i, j]] if board.clustered else [])
    cells += [f"{int(c):d}" if np.isfinite(c) else dash for c in counts]
    return cells


def _se_decimals(board: Leaderboard) -> int:
    """Decimals of the se column: two significant digits of the smallest positive se, at least
    the means' decimals."""
    assert board.se is not None
    se = board.se[np.isfinite(board.se) & (board.se > 0)]
    dec = _board_decimals(board)
    if se.size:
        dec = max(dec, int(np.ceil(-np.log10(float(se.min())))) + 1)
    return min(dec, 10)


def _board_headers(board: Leaderboard) -> list[str]:
    """Every column header after ``letter, system``: each mean's, then its extras."""
    extra = _board_extra_headers(board)
    return [x for h in board.headers() for x in (h, *extra)]


def _board_caption(board: Leaderboard) -> str:
    return _board_caption_text(board) + _board_ci_note(board)


def _board_caption_text(board: Leaderboard) -> str:
    metrics = sorted({m for _, m in board.columns})
    datasets = sorted({d for d, _ in board.columns})
    what = f"Mean {metrics[0]}" if len(metrics) == 1 else "Means"
    if len(datasets) == 1 and len(metrics) > 1:
        what += f" on {datasets[0]}"
    lower = [m for j, (_, m) in enumerate(board.columns) if not board.direction(j)]
    if not lower:
        return (
            f"{what}. Superscripts: letters of the systems that the row's system significantly "
            "beats (significant pair, higher mean); best mean in bold."
        )
    names = ", ".join(dict.fromkeys(lower))
    return (
        f"{what}. Superscripts: letters of the systems that the row's system significantly "
        f"beats (significant pair, better mean: lower for {names}, higher otherwise); best mean "
        "in bold."
    )


def _board_decimals(board: Leaderboard) -> int:
    return _decimals(board.means[np.isfinite(board.means)].tolist())


def leaderboard_markdown(board: Leaderboard) -> str:
    """Markdown leaderboard: letter, system, one column per dataset × metric, then the signature.

    Parameters
    ----------
    board : Leaderboard
        :meth:`Comparison.leaderboard <ranger_eval.comparison.Comparison.leaderboard>` of a
        comparison.

    Returns
    -------
    str
        The table (best mean in bold, superscript letters of the systems beaten, intervals in
        brackets), the caption that explains it, the signature line.

    Examples
    --------
    >>> import ranger_eval as rg
    >>> from ranger_eval.report.tables import leaderboard_markdown
    >>> scores = rg.Scores.from_arrays({"qa": {"a": [0.8, 0.6, 0.9, 0.7, 0.75, 0.85],
    ...                                        "b": [0.7, 0.6, 0.8, 0.5, 0.7, 0.8]}})
    >>> comparison = rg.compare(scores, test="paired-t")
    >>> board = comparison.leaderboard()
    >>> print("\\n".join(leaderboard_markdown(board).splitlines()[:4]))
    | | system | qa | se | n |
    |---|---|---:|---:|---:|
    | a | a | **0.7667**<sup>b</sup> [0.6533, 0.8800] | 0.0441 | 6 |
    | b | b | 0.6833 [0.5606, 0.8060] | 0.0477 | 6 |
    """
    dec = _board_decimals(board)
    se_dec = _se_decimals(board) if board.has_counts else dec
    best = board.best()
    headers = _board_headers(board)
    lines = [
        "| | system | " + " | ".join(_md_escape(h) for h in headers) + " |",
        "|---|---|" + "|".join("---:" for _ in headers) + "|",
    ]
    for i, s in enumerate(board.systems):
        cells = []
        for j in range(len(board.columns)):
            v = board.means[i, j]
            text = _num(v, dec, "markdown") if np.isfinite(v) else "–"
            if best[i, j]:
                text = f"**{text}**"
            if board.beats[i][j]:
                text += f"<sup>{board.beats[i][j]}</sup>"
            cells.append(text + _board_ci(board, i, j, dec, "markdown"))
            cells += _board_extra_cells(board, i, j, "markdown", se_dec)
        lines.append(f"| {board.letters[i]} | {_md_escape(s)} | " + " | ".join(cells) + " |")
    lines += ["", _board_caption(board), "", f"`{board.signature}`", ""]
    return "\n".join(lines)


def leaderboard_latex(board: Leaderboard, *, label: str = "tab:ranger-leaderboard") -> str:
    """Booktabs leaderboard with caption and ``label`` (scaled to the line width when wider);
    the signature as a footnote line that wraps.

    Parameters
    ----------
    board : Leaderboard
        :meth:`Comparison.leaderboard <ranger_eval.comparison.Comparison.leaderboard>` of a
        comparison.
    label : str, default "tab:ranger-leaderboard"
        The table's ``\\label``.

    Returns
    -------
    str
        A ``table`` environment (needs ``booktabs`` and ``graphicx``: :data:`LATEX_PACKAGES`).

    Examples
    --------
    >>> import ranger_eval as rg
    >>> from ranger_eval.report.tables import leaderboard_latex
    >>> scores = rg.Scores.from_arrays({"qa": {"a": [0.8, 0.6, 0.9, 0.7, 0.75, 0.85],
    ...                                        "b": [0.7, 0.6, 0.8, 0.5, 0.7, 0.8]}})
    >>> comparison = rg.compare(scores, test="paired-t")
    >>> board = comparison.leaderboard()
    >>> text = leaderboard_latex(board)
    >>> print(next(line for line in text.splitlines() if line.startswith("a & a")))
    a & a & \\textbf{0.7667}$^{b}$ [0.6533, 0.8800] & 0.0441 & 6 \\\\
    """
    dec = _board_decimals(board)
    se_dec = _se_decimals(board) if board.has_counts else dec
    best = board.best()
    rows = []
    for i, s in enumerate(board.systems):
        cells = []
        for j in range(len(board.columns)):
            v = board.means[i, j]
            text = _num(v, dec, "latex") if np.isfinite(v) else "--"
            if best[i, j]:
                text = f"\\textbf{{{text}}}"
            if board.beats[i][j]:
                text += f"$^{{{board.beats[i][j]}}}$"
            cells.append(text + _board_ci(board, i, j, dec, "latex"))
            cells += _board_extra_cells(board, i, j, "latex", se_dec)
        rows.append([board.letters[i], latex_escape(s), *cells])
    headers = _board_headers(board)
    return latex_table(
        ["", "System", *(latex_escape(h) for h in headers)], rows,
        "ll" + "r" * len(headers), caption=latex_escape(_board_caption(board)),
        label=label, signature=board.signature,
    )


def leaderboard_html(board: Leaderboard) -> str:
    """HTML leaderboard; caption with the signature.

    Parameters
    ----------
    board : Leaderboard
        :meth:`Comparison.leaderboard <ranger_eval.comparison.Comparison.leaderboard>` of a
        comparison.

    Returns
    -------
    str
        A ``<table class="ranger-leaderboard">`` whose caption explains the cells and ends with
        the signature.

    Examples
    --------
    >>> import ranger_eval as rg
    >>> from ranger_eval.report.tables import leaderboard_html
    >>> scores = rg.Scores.from_arrays({"qa": {"a": [0.8, 0.6, 0.9, 0.7, 0.75, 0.85],
    ...                                        "b": [0.7, 0.6, 0.8, 0.5, 0.7, 0.8]}})
    >>> comparison = rg.compare(scores, test="paired-t")
    >>> board = comparison.leaderboard()
    >>> html = leaderboard_html(board)
    >>> html.splitlines()[0], "kind:compare" in html
    ('<table class="ranger-leaderboard">', True)
    """
    dec = _board_decimals(board)
    se_dec = _se_decimals(board) if board.has_counts else dec
    best = board.best()
    lines = [
        '<table class="ranger-leaderboard">',
        f"<caption>{html.escape(_board_caption(board))}<br><code>{html.escape(board.signature)}"
        "</code></caption>",
        "<thead><tr><th></th><th>system</th>"
        + "".join(f"<th>{html.escape(h)}</th>" for h in _board_headers(board))
        + "</tr></thead>",
        "<tbody>",
    ]
    for i, s in enumerate(board.systems):
        tds = []
        for j in range(len(board.columns)):
            v = board.means[i, j]
            text = _num(v, dec, "html") if np.isfinite(v) else "&ndash;"
            if best[i, j]:
                text = f"<strong>{text}</strong>"
            if board.beats[i][j]:
                text += f"<sup>{html.escape(board.beats[i][j])}</sup>"
            ci = _board_ci(board, i, j, dec, "html")
            if ci:
                text += f' <span class="ci">{ci.strip()}</span>'
            tds.append(f"<td>{text}</td>")
            tds += [f"<td>{c}</td>" for c in _board_extra_cells(board, i, j, "html", se_dec)]
        lines.append(
            f"<tr><td>{board.letters[i]}</td><td>{html.escape(s)}</td>" + "".join(tds) + "</tr>"
        )
    lines += ["</tbody>", "</table>", ""]
    return "\n".join(lines)


def leaderboard_csv(board: Leaderboard, path: str | Path | None = None) -> str:
    """One row per system: ``letter, system`` and per column ``<col> mean`` (with
    ``<col> se``, ``<col> n``, ``<col> n_clusters`` when known, and ``<col> ci_low``,
    ``<col> ci_high``, ``<col> interval`` when the intervals are known), ``<col> beats``.

    Parameters
    ----------
    board : Leaderboard
        :meth:`Comparison.leaderboard <ranger_eval.comparison.Comparison.leaderboard>` of a
        comparison.
    path : str or Path, optional
        Also write the text there, atomically.

    Returns
    -------
    str
        The CSV text at full precision.

    Examples
    --------
    >>> import ranger_eval as rg
    >>> from ranger_eval.report.tables import leaderboard_csv
    >>> scores = rg.Scores.from_arrays({"qa": {"a": [0.8, 0.6, 0.9, 0.7, 0.75, 0.85],
    ...                                        "b": [0.7, 0.6, 0.8, 0.5, 0.7, 0.8]}})
    >>> comparison = rg.compare(scores, test="paired-t")
    >>> board = comparison.leaderboard()
    >>> header, first, second = leaderboard_csv(board).splitlines()
    >>> header
    'letter,system,qa mean,qa se,qa n,qa n_clusters,qa ci_low,qa ci_high,qa interval,qa beats'
    >>> first.split(",")[:3], first.split(",")[-1]
    (['a', 'a', '0.7666666666666666'], 'b')
    """
    columns: dict[str, Any] = {"letter": list(board.letters), "system": list(board.systems)}
    for j, h in enumerate(board.headers()):  # collected first: one frame, not a column at a time
        columns[f"{h} mean"] = board.means[:, j]
        if board.has_counts:
            assert board.se is not None and board.n is not None and board.n_clusters is not None
            columns[f"{h} se"] = board.se[:, j]
            columns[f"{h} n"] = pd.array(board.n[:, j], dtype="Int64")
            columns[f"{h} n_clusters"] = pd.array(board.n_clusters[:, j], dtype="Int64")
        if board.has_intervals and board.ci_low is not None and board.ci_high is not None:
            columns[f"{h} ci_low"] = board.ci_low[:, j]
            columns[f"{h} ci_high"] = board.ci_high[:, j]
            if board.intervals is not None:
                columns[f"{h} interval"] = board.intervals[:, j]
        columns[f"{h} beats"] = [board.beats[i][j] for i in range(len(board.systems))]
    flat = pd.DataFrame(columns)
    return plain_csv(flat, path)


def leaderboard_dict(board: Leaderboard, note: str | None = None) -> dict[str, Any]:
    """The leaderboard as the Markdown shows it, in JSON form: ``headers`` (every column after
    ``letter, system``), one row per system with one cell per mean (``mean``, its ``text`` as
    the tables print it, ``best``, ``beats`` letters, ``ci`` text and ``ci_low``/``ci_high``
    where there is an interval; ``se`` with its ``se_text``, ``n`` and ``n_clusters`` where
    the design is known), the ``caption`` and the run's ``note`` (what the figures leave out),
    for the HTML report (never the Markdown read back)."""
    dec = _board_decimals(board)
    se_dec = _se_decimals(board) if board.has_counts else dec
    best = board.best()
    rows = []
    for i, s in enumerate(board.systems):
        cells = []
        for j in range(len(board.columns)):
            v = float(board.means[i, j])
            cell: dict[str, Any] = {
                "mean": jsonable(v),
                "text": _num(v, dec, "markdown") if math.isfinite(v) else "–",
                "best": bool(best[i, j]), "beats": str(board.beats[i][j])}
            ci = board.interval(i, j)
            if ci is not None:
                cell.update(ci=f"{_num(ci[0], dec, 'markdown')}, {_num(ci[1], dec, 'markdown')}",
                            ci_low=jsonable(float(ci[0])), ci_high=jsonable(float(ci[1])))
            if board.has_counts:
                se_text, *counts = _board_extra_cells(board, i, j, "markdown", se_dec)
                assert board.se is not None
                cell.update(se=jsonable(float(board.se[i, j])), se_text=se_text)
                keys = ["n", "n_clusters"][:len(counts)]
                cell.update({k: None if c == "–" else int(c)
                             for k, c in zip(keys, counts, strict=True)})
            cells.append(cell)
        rows.append({"letter": board.letters[i], "system": s, "cells": cells})
    return {"kind": "leaderboard", "headers": _board_headers(board),
            "columns": [h for h in board.headers()], "extras": _board_extra_headers(board),
            "level": board.level, "rows": rows, "caption": _board_caption(board), "note": note,
            "signature": str(board.signature)}


def leaderboard_json(board: Leaderboard, note: str | None = None) -> str:
    """:func:`leaderboard_dict` as JSON (``leaderboard.json`` of ``ranger-eval compare``).

    Parameters
    ----------
    board : Leaderboard
        :meth:`Comparison.leaderboard <ranger_eval.comparison.Comparison.leaderboard>` of a
        comparison.
    note : str, optional
        What the run's figures leave out, stored under ``note``.

    Returns
    -------
    str
        Indented JSON, ending with a newline.

    Examples
    --------
    >>> import json
    >>> import ranger_eval as rg
    >>> from ranger_eval.report.tables import leaderboard_json
    >>> scores = rg.Scores.from_arrays({"qa": {"a": [0.8, 0.6, 0.9, 0.7, 0.75, 0.85],
    ...                                        "b": [0.7, 0.6, 0.8, 0.5, 0.7, 0.8]}})
    >>> comparison = rg.compare(scores, test="paired-t")
    >>> board = comparison.leaderboard()
    >>> result = json.loads(leaderboard_json(board))
    >>> result["kind"], result["headers"], [row["system"] for row in result["rows"]]
    ('leaderboard', ['qa', 'se', 'n'], ['a', 'b'])
    >>> cell = result["rows"][0]["cells"][0]
    >>> cell["text"], cell["best"], cell["beats"]
    ('0.7667', True, 'b')
    """
    import json

    return json.dumps(leaderboard_dict(board, note), indent=2, allow_nan=False,
                      ensure_ascii=False) + "\n"


# --------------------------------------------------------------------------- registry
to_markdown.register(Leaderboard)(leaderboard_markdown)
to_latex.register(Leaderboard)(leaderboard_latex)
to_html.register(Leaderboard)(leaderboard_html)
to_csv.register(Leaderboard)(leaderboard_csv)
to_json.register(Leaderboard)(leaderboard_json)
