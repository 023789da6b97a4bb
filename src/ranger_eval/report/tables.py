"""Tables of a multi-system comparison: Markdown, LaTeX, HTML and CSV.

Two tables are produced from a :class:`ranger_eval.compare.Comparison`:

* the **comparison table** (one row per dataset × metric × pair: means, difference with its
  interval, test, raw and adjusted p-value, effect size, significance);
* the **leaderboard** (systems × dataset/metric means) with ranx-style superscripts: letters
  a, b, c, … are assigned to the systems in table order and each cell carries the letters of the
  systems it significantly beats (significant pair and a higher mean). The best mean of each
  column is bold.

Every table ends with the comparison's reproducibility signature (test, correction, alpha,
resamples, seed, ranger-eval version). LaTeX output escapes ``\\ & % $ # _ { } ~ ^`` and needs
``\\usepackage{booktabs}``. The functions work on plain DataFrames so that this module does not
depend on :mod:`ranger_eval.compare`.
"""
from __future__ import annotations

import html
import math
import string
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

__all__ = [
    "Leaderboard",
    "build_leaderboard",
    "comparison_csv",
    "comparison_html",
    "comparison_latex",
    "comparison_markdown",
    "latex_escape",
    "system_letters",
]

_LATEX_SPECIAL = {
    "\\": r"\textbackslash{}",
    "&": r"\&",
    "%": r"\%",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "{": r"\{",
    "}": r"\}",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
}


def latex_escape(text: object) -> str:
    """Escape LaTeX's special characters (``\\ & % $ # _ { } ~ ^``) in ``text``."""
    return "".join(_LATEX_SPECIAL.get(ch, ch) for ch in str(text))


def system_letters(n: int) -> tuple[str, ...]:
    """Letters for ``n`` systems in table order: a … z, then aa, ab, … (ranx's convention)."""
    letters = string.ascii_lowercase
    out = []
    for i in range(n):
        if i < 26:
            out.append(letters[i])
        else:
            j = i - 26
            out.append(letters[j // 26 % 26] + letters[j % 26])
    return tuple(out)


# --------------------------------------------------------------------------- number formats
def _num(value: float, decimals: int, style: str) -> str:
    """Fixed-point number; infinities and NaN spelled out; minus sign per output style."""
    v = float(value)
    if math.isnan(v):
        text = "NA"
    elif math.isinf(v):
        text = {"latex": r"$\infty$", "html": "&infin;"}.get(style, "inf")
        if v < 0:
            text = "-" + text
    else:
        text = f"{v:.{decimals}f}"
        if float(text) == 0.0:
            text = text.lstrip("-")
    if style == "latex":
        return text.replace("-", "$-$", 1) if text.startswith("-") else text
    if style == "html":
        return text.replace("-", "&minus;", 1) if text.startswith("-") else text
    return text


def _pvalue(p: float, style: str) -> str:
    """0.42, 0.034, 0.0012, 3.2e-06 (two significant digits below 0.1, scientific below 1e-4)."""
    p = float(p)
    if math.isnan(p):
        return "NA"
    if p == 0.0:
        return "0"
    if p >= 0.1:
        return f"{p:.2f}"
    if p >= 1e-4:
        decimals = 1 - math.floor(math.log10(p))
        text = f"{p:.{decimals}f}"
        return text
    mantissa, exp = f"{p:.1e}".split("e")
    e = int(exp)
    if style == "latex":
        return f"${mantissa}\\times 10^{{{e}}}$"
    if style == "html":
        return f"{mantissa}&times;10<sup>&minus;{abs(e)}</sup>"
    return f"{mantissa}e{e:03d}" if e < 0 else f"{mantissa}e+{e:02d}"


def _decimals(values: Sequence[float]) -> int:
    """4 decimals, or more when the smallest non-zero magnitude would print with < 2 digits."""
    arr = np.abs(np.asarray([v for v in values if np.isfinite(v)], dtype=float))
    arr = arr[arr > 0]
    if arr.size == 0:
        return 4
    need = 1 - math.floor(math.log10(float(arr.min())))
    return int(min(max(4, need), 8))


# --------------------------------------------------------------------------- comparison table
def _level_label(level: float) -> str:
    return f"{level * 100:g}%"


def _comparison_cells(table: pd.DataFrame, style: str, level: float) -> tuple[list[str], list[list[str]]]:
    dec = _decimals(
        np.concatenate(
            [table[c].to_numpy(dtype=float) for c in ("mean_a", "mean_b", "diff")]
        ).tolist()
        if len(table)
        else []
    )
    header = [
        "dataset",
        "metric",
        "system A",
        "system B",
        "mean A",
        "mean B",
        "diff (A−B)" if style != "latex" else "diff (A$-$B)",
        f"{_level_label(level)} CI",
        "test",
        "p",
        "p adj.",
        "effect size",
        "significant",
    ]
    rows = []
    for r in table.itertuples(index=False):
        ci = f"[{_num(r.ci_low, dec, style)}, {_num(r.ci_high, dec, style)}]"
        eff = (
            f"{_num(r.effect_size, 2, style)} {r.effect_size_name.replace('_', ' ')} "
            f"({r.effect_label})"
        )
        cells = [
            str(r.dataset),
            str(r.metric),
            str(r.system_a),
            str(r.system_b),
            _num(r.mean_a, dec, style),
            _num(r.mean_b, dec, style),
            _num(r.diff, dec, style),
            ci,
            str(r.test),
            _pvalue(r.pvalue, style),
            _pvalue(r.pvalue_adjusted, style),
            eff,
            "yes" if bool(r.significant) else "no",
        ]
        rows.append(cells)
    return header, rows


def _md_escape(text: str) -> str:
    return text.replace("|", "\\|")


def comparison_markdown(table: pd.DataFrame, signature: str, *, level: float = 0.95) -> str:
    """GitHub-flavoured Markdown table of the comparison rows, then the signature line."""
    header, rows = _comparison_cells(table, "markdown", level)
    align = ["---"] * 4 + ["---:"] * 3 + [":---:", "---", "---:", "---:", "---:", ":---:"]
    lines = [
        "| " + " | ".join(header) + " |",
        "|" + "|".join(align) + "|",
    ]
    for cells in rows:
        lines.append("| " + " | ".join(_md_escape(c) for c in cells) + " |")
    lines += ["", f"`{signature}`", ""]
    return "\n".join(lines)


def comparison_latex(table: pd.DataFrame, signature: str, *, level: float = 0.95) -> str:
    """A booktabs ``tabular`` of the comparison rows with the signature as a footnote line."""
    header, rows = _comparison_cells(table, "latex", level)
    plain_cols = {0, 1, 2, 3, 8}  # free text: escape; the others are already LaTeX
    spec = "llll" + "rrr" + "c" + "l" + "rrr" + "c"
    lines = [
        "% requires \\usepackage{booktabs}",
        "\\begin{table}[t]",
        "\\centering",
        "\\small",
        f"\\begin{{tabular}}{{{spec}}}",
        "\\toprule",
        " & ".join(h if i == 6 else latex_escape(h) for i, h in enumerate(header)) + " \\\\",
        "\\midrule",
    ]
    for cells in rows:
        out = []
        for i, c in enumerate(cells):
            if i in plain_cols:
                out.append(latex_escape(c))
            elif i == 11:  # effect: number (LaTeX) + escaped name/label
                num, _, rest = c.partition(" ")
                out.append(f"{num} {latex_escape(rest)}")
            else:
                out.append(c)
        lines.append(" & ".join(out) + " \\\\")
    lines += [
        "\\bottomrule",
        "\\end{tabular}",
        "",
        f"\\par\\smallskip{{\\footnotesize\\texttt{{{latex_escape(signature)}}}}}",
        "\\end{table}",
        "",
    ]
    return "\n".join(lines)


def comparison_html(table: pd.DataFrame, signature: str, *, level: float = 0.95) -> str:
    """An HTML ``<table>`` of the comparison rows; significant rows have class ``significant``."""
    header, rows = _comparison_cells(table, "html", level)
    plain_cols = {0, 1, 2, 3, 8, 12}
    lines = [
        '<table class="ranger-comparison">',
        f"<caption><code>{html.escape(signature)}</code></caption>",
        "<thead><tr>" + "".join(f"<th>{html.escape(h)}</th>" for h in header) + "</tr></thead>",
        "<tbody>",
    ]
    for cells, sig in zip(rows, table["significant"].to_numpy(dtype=bool), strict=True):
        tds = []
        for i, c in enumerate(cells):
            text = html.escape(c) if i in plain_cols else c
            if i == 11:
                num, _, rest = c.partition(" ")
                text = f"{num} {html.escape(rest)}"
            tds.append(f"<td>{text}</td>")
        cls = ' class="significant"' if sig else ""
        lines.append(f"<tr{cls}>" + "".join(tds) + "</tr>")
    lines += ["</tbody>", "</table>", ""]
    return "\n".join(lines)


def comparison_csv(table: pd.DataFrame, path: str | Path | None = None) -> str:
    """CSV of the comparison rows at full precision (no signature: keep it machine-readable)."""
    text = table.to_csv(index=False, lineterminator="\n")
    if path is not None:
        Path(path).write_text(text, encoding="utf-8")
    return text


# --------------------------------------------------------------------------- leaderboard
@dataclass(frozen=True)
class Leaderboard:
    """Systems × (dataset, metric) means with the letters of the systems each one beats.

    ``means[i, j]`` is system ``i``'s mean on column ``j`` (NaN when it was not compared there);
    ``beats[i][j]`` the letters (in table order) of the systems that system ``i`` significantly
    beats on column ``j``.
    """

    systems: tuple[str, ...]
    letters: tuple[str, ...]
    columns: tuple[tuple[str, str], ...]
    means: np.ndarray
    beats: tuple[tuple[str, ...], ...]
    signature: str

    # ------------------------------------------------------------------ helpers
    def _headers(self) -> list[str]:
        datasets = {d for d, _ in self.columns}
        metrics = {m for _, m in self.columns}
        if len(metrics) == 1:
            return [d for d, _ in self.columns]
        if len(datasets) == 1:
            return [m for _, m in self.columns]
        return [f"{d} {m}" for d, m in self.columns]

    def _caption(self) -> str:
        metrics = sorted({m for _, m in self.columns})
        datasets = sorted({d for d, _ in self.columns})
        what = f"Mean {metrics[0]}" if len(metrics) == 1 else "Means"
        if len(datasets) == 1 and len(metrics) > 1:
            what += f" on {datasets[0]}"
        return (
            f"{what}. Superscripts: letters of the systems that the row's system significantly "
            "beats (significant pair, higher mean); best mean in bold."
        )

    def _best(self) -> np.ndarray:
        best = np.zeros(self.means.shape, dtype=bool)
        for j in range(self.means.shape[1]):
            col = self.means[:, j]
            if np.isfinite(col).any():
                best[:, j] = col == np.nanmax(col)
        return best

    def _decimals(self) -> int:
        return _decimals(self.means[np.isfinite(self.means)].tolist())

    # ------------------------------------------------------------------ outputs
    def to_frame(self) -> pd.DataFrame:
        """Index ``system``; columns ``letter`` then ``(dataset, metric, mean|beats)``."""
        data: dict[object, object] = {("letter", "", ""): list(self.letters)}
        for j, (d, m) in enumerate(self.columns):
            data[(d, m, "mean")] = self.means[:, j]
            data[(d, m, "beats")] = [self.beats[i][j] for i in range(len(self.systems))]
        frame = pd.DataFrame(data, index=pd.Index(self.systems, name="system"))
        frame.columns = pd.MultiIndex.from_tuples(frame.columns, names=["dataset", "metric", ""])
        return frame

    def to_markdown(self) -> str:
        dec = self._decimals()
        best = self._best()
        lines = [
            "| | system | " + " | ".join(_md_escape(h) for h in self._headers()) + " |",
            "|---|---|" + "|".join("---:" for _ in self.columns) + "|",
        ]
        for i, s in enumerate(self.systems):
            cells = []
            for j in range(len(self.columns)):
                v = self.means[i, j]
                text = _num(v, dec, "markdown") if np.isfinite(v) else "–"
                if best[i, j]:
                    text = f"**{text}**"
                if self.beats[i][j]:
                    text += f"<sup>{self.beats[i][j]}</sup>"
                cells.append(text)
            lines.append(f"| {self.letters[i]} | {_md_escape(s)} | " + " | ".join(cells) + " |")
        lines += ["", self._caption(), "", f"`{self.signature}`", ""]
        return "\n".join(lines)

    def to_latex(self) -> str:
        dec = self._decimals()
        best = self._best()
        lines = [
            "% requires \\usepackage{booktabs}",
            "\\begin{table}[t]",
            "\\centering",
            f"\\caption{{{latex_escape(self._caption())}}}",
            "\\begin{tabular}{ll" + "r" * len(self.columns) + "}",
            "\\toprule",
            " & System & " + " & ".join(latex_escape(h) for h in self._headers()) + " \\\\",
            "\\midrule",
        ]
        for i, s in enumerate(self.systems):
            cells = []
            for j in range(len(self.columns)):
                v = self.means[i, j]
                text = _num(v, dec, "latex") if np.isfinite(v) else "--"
                if best[i, j]:
                    text = f"\\textbf{{{text}}}"
                if self.beats[i][j]:
                    text += f"$^{{{self.beats[i][j]}}}$"
                cells.append(text)
            lines.append(
                f"{self.letters[i]} & {latex_escape(s)} & " + " & ".join(cells) + " \\\\"
            )
        lines += [
            "\\bottomrule",
            "\\end{tabular}",
            "",
            f"\\par\\smallskip{{\\footnotesize\\texttt{{{latex_escape(self.signature)}}}}}",
            "\\end{table}",
            "",
        ]
        return "\n".join(lines)

    def to_html(self) -> str:
        dec = self._decimals()
        best = self._best()
        lines = [
            '<table class="ranger-leaderboard">',
            f"<caption>{html.escape(self._caption())}<br><code>{html.escape(self.signature)}"
            "</code></caption>",
            "<thead><tr><th></th><th>system</th>"
            + "".join(f"<th>{html.escape(h)}</th>" for h in self._headers())
            + "</tr></thead>",
            "<tbody>",
        ]
        for i, s in enumerate(self.systems):
            tds = []
            for j in range(len(self.columns)):
                v = self.means[i, j]
                text = _num(v, dec, "html") if np.isfinite(v) else "&ndash;"
                if best[i, j]:
                    text = f"<strong>{text}</strong>"
                if self.beats[i][j]:
                    text += f"<sup>{html.escape(self.beats[i][j])}</sup>"
                tds.append(f"<td>{text}</td>")
            lines.append(
                f"<tr><td>{self.letters[i]}</td><td>{html.escape(s)}</td>" + "".join(tds) + "</tr>"
            )
        lines += ["</tbody>", "</table>", ""]
        return "\n".join(lines)

    def to_csv(self, path: str | Path | None = None) -> str:
        """One row per system: ``letter, system`` and per column ``<col> mean``, ``<col> beats``."""
        flat = pd.DataFrame({"letter": list(self.letters), "system": list(self.systems)})
        for j, h in enumerate(self._headers()):
            flat[f"{h} mean"] = self.means[:, j]
            flat[f"{h} beats"] = [self.beats[i][j] for i in range(len(self.systems))]
        text = flat.to_csv(index=False, lineterminator="\n")
        if path is not None:
            Path(path).write_text(text, encoding="utf-8")
        return text

    def __str__(self) -> str:
        return self.to_markdown()


def build_leaderboard(
    table: pd.DataFrame, means: pd.DataFrame, systems: Sequence[str], *, signature: str
) -> Leaderboard:
    """Assemble a :class:`Leaderboard` from comparison rows and per-system means.

    ``table`` needs ``dataset, metric, system_a, system_b, diff, significant``; ``means`` needs
    ``dataset, metric, system, mean``. Only compared pairs can give letters (with
    ``pairs="baseline"`` only the baseline's pairs do).
    """
    if means.empty:
        raise ValueError("leaderboard: no means to show (empty selection)")
    present = set(means["system"])
    order = tuple(s for s in systems if s in present)
    letters = system_letters(len(order))
    letter_of = dict(zip(order, letters, strict=True))
    columns = tuple(
        dict.fromkeys(zip(means["dataset"].astype(str), means["metric"].astype(str), strict=True))
    )
    col_of = {c: j for j, c in enumerate(columns)}
    row_of = {s: i for i, s in enumerate(order)}
    grid = np.full((len(order), len(columns)), np.nan)
    for r in means.itertuples(index=False):
        grid[row_of[r.system], col_of[(str(r.dataset), str(r.metric))]] = r.mean
    won: list[list[set[str]]] = [[set() for _ in columns] for _ in order]
    for r in table.itertuples(index=False):
        if not bool(r.significant) or r.diff == 0:
            continue
        winner, loser = (r.system_a, r.system_b) if r.diff > 0 else (r.system_b, r.system_a)
        won[row_of[winner]][col_of[(str(r.dataset), str(r.metric))]].add(letter_of[loser])
    beats = tuple(
        tuple("".join(sorted(cell, key=letters.index)) for cell in row) for row in won
    )
    return Leaderboard(
        systems=order, letters=letters, columns=columns, means=grid, beats=beats,
        signature=signature,
    )
