"""What every table of the report shares: LaTeX escaping, the LaTeX table environment and its
signature footnote, plain CSV, JSON-ready values and the number formats (fixed-point numbers,
p-values, effect-size names). :mod:`ranger_eval.report.tables` re-exports the public names.
"""
from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ..atomic import write_text
from ..csvtext import csv_text
from ..formatting import format_pvalue

__all__ = ["LATEX_PACKAGES", "jsonable", "latex_escape", "latex_signature", "latex_table", "plain_csv"]

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


#: Characters of captions and names that pdfLaTeX cannot typeset from UTF-8 text as they are.
_LATEX_UNICODE = {
    "α": r"$\alpha$", "β": r"$\beta$", "χ": r"$\chi$", "τ": r"$\tau$", "μ": r"$\mu$",
    "σ": r"$\sigma$", "ρ": r"$\rho$", "Δ": r"$\Delta$", "²": r"$^2$", "×": r"$\times$",
    "−": r"$-$", "–": "--", "—": "---", "→": r"$\rightarrow$", "≥": r"$\geq$", "≤": r"$\leq$",
    "±": r"$\pm$", "…": r"\ldots{}",
}


def latex_escape(text: object) -> str:
    """Escape LaTeX's special characters (``\\ & % $ # _ { } ~ ^``) in ``text``, and write the
    Greek letters and symbols Ranger's captions use (α, χ², τ, ×, −, –, →, ≥ …) so that
    pdfLaTeX typesets them.

    Parameters
    ----------
    text : object
        Anything; its ``str`` is escaped.

    Returns
    -------
    str
        The text, safe inside a LaTeX table cell or caption.

    Examples
    --------
    >>> from ranger_eval.report.tables import latex_escape
    >>> print(latex_escape("50% of R&D_1 ≥ α"))
    50\\% of R\\&D\\_1 $\\geq$ $\\alpha$
    """
    return "".join(_LATEX_SPECIAL.get(ch) or _LATEX_UNICODE.get(ch, ch) for ch in str(text))


#: The packages every LaTeX table needs, written as its first line.
LATEX_PACKAGES = "% requires \\usepackage{booktabs,graphicx}"


def latex_signature(signature: str) -> str:
    """The signature as a footnote line that wraps: a ragged-right ``\\parbox`` of the table's
    width in small typewriter type, breakable after every ``|`` (a signature has no spaces)."""
    parts = [latex_escape(p) for p in str(signature).split("|")]
    return ("\\par\\smallskip\\parbox{\\linewidth}{\\raggedright\\footnotesize\\texttt{"
            + "|\\allowbreak{}".join(parts) + "}}")


def latex_table(
    header: Sequence[str], rows: Sequence[Sequence[str]], spec: str, *, caption: str,
    label: str, signature: str,
) -> str:
    """A booktabs table float that fits its column (or page, inside ``table*``).

    ``header`` and ``rows`` are LaTeX already (escape free text with :func:`latex_escape`). The
    ``tabular`` is scaled down with ``\\resizebox`` only when it is wider than ``\\linewidth``
    (never enlarged); the caption is above the table with ``\\label{label}``; the signature is a
    footnote line that wraps (:func:`latex_signature`).
    """
    lines = [
        LATEX_PACKAGES,
        "\\begin{table}[t]",
        "\\centering",
        f"\\caption{{{caption}}}",
        f"\\label{{{label}}}",
        "\\resizebox{\\ifdim\\width>\\linewidth\\linewidth\\else\\width\\fi}{!}{%",
        f"\\begin{{tabular}}{{{spec}}}",
        "\\toprule",
        " & ".join(header) + " \\\\",
        "\\midrule",
    ]
    lines += [" & ".join(cells) + " \\\\" for cells in rows]
    lines += [
        "\\bottomrule",
        "\\end{tabular}}",
        latex_signature(signature),
        "\\end{table}",
        "",
    ]
    return "\n".join(lines)


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
    """Two significant digits, scientific below 1e-4 (:func:`ranger_eval.formatting.format_pvalue`)."""
    return format_pvalue(p, 2, "text" if style == "markdown" else style)


#: How effect-size names read in tables.
EFFECT_SIZE_LABELS = {"cohens_dz": "Cohen's d_z", "cohens_d": "Cohen's d", "cohens_h": "Cohen's h",
                      "dz_boot": "bootstrap d_z", "mixed": "mixed"}


def effect_size_label(name: str) -> str:
    """``cohens_dz`` → ``Cohen's d_z`` (unknown names with underscores shown as spaces)."""
    return EFFECT_SIZE_LABELS.get(name, name.replace("_", " "))


def _decimals(values: Sequence[float]) -> int:
    """4 decimals, or more when the smallest non-zero magnitude would print with < 2 digits."""
    arr = np.abs(np.asarray([v for v in values if np.isfinite(v)], dtype=float))
    arr = arr[arr > 0]
    if arr.size == 0:
        return 4
    need = 1 - math.floor(math.log10(float(arr.min())))
    return int(min(max(4, need), 8))

def _md_escape(text: str) -> str:
    return text.replace("|", "\\|")

def plain_csv(frame: pd.DataFrame, path: str | Path | None = None) -> str:
    """``frame`` as plain CSV (header on line 1, no index, ``\\n`` line ends, full precision),
    written atomically to ``path`` when given; returns the text, that of
    ``frame.to_csv(index=False, lineterminator="\\n")`` written faster (:func:`csv_text`)."""
    text = csv_text(frame)
    if path is not None:
        write_text(path, text)
    return text

def jsonable(value: Any) -> Any:
    """JSON-ready: numpy scalars to Python, non-finite floats to ``None``."""
    if isinstance(value, Mapping):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [jsonable(v) for v in value]
    if hasattr(value, "item") and not isinstance(value, (str, bytes)):
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value
