"""Tables of results: Markdown, LaTeX, HTML and CSV renderings.

:func:`to_markdown`, :func:`to_latex`, :func:`to_html` and :func:`to_csv` render any result that
has a table form — a :class:`~ranger_eval.comparison.Comparison` (one row per dataset × metric ×
pair: means, difference with its interval, test, raw and adjusted p-value, effect size,
significance), a :class:`~ranger_eval.comparison.Leaderboard` (systems × dataset/metric means with
ranx-style letters of the systems each one significantly beats; best mean in bold) and a
:class:`~ranger_eval.meta.MetaResult`.

Every table carries the result's reproducibility signature: the last line of Markdown, a
footnote in LaTeX and the caption in HTML. CSV is plain (the header on line 1, so that
``pandas.read_csv`` and ``csv.DictReader`` read it unchanged): its signature is the result's
``.signature``, and the commands list it for each file in ``manifest.json``. LaTeX output
escapes ``\\ & % $ # _ { } ~ ^`` and needs ``\\usepackage{booktabs,graphicx}``; each table has a
caption and a ``\\label``, is scaled down to the line width when wider, and its signature footnote
wraps.
"""
from __future__ import annotations

import html
import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ..atomic import write_text
from ..comparison import Comparison, Leaderboard, metric_directions
from ..csvtext import csv_text
from ..errors import ReportError
from ..formatting import format_level, format_pvalue
from ..pairing import factorize
from .registry import to_csv, to_html, to_json, to_latex, to_markdown

__all__ = [
    "comparison_csv",
    "comparison_html",
    "comparison_json",
    "json_records",
    "comparison_latex",
    "comparison_markdown",
    "LATEX_PACKAGES",
    "latex_escape",
    "latex_signature",
    "latex_table",
    "leaderboard_csv",
    "leaderboard_dict",
    "leaderboard_json",
    "leaderboard_html",
    "leaderboard_latex",
    "leaderboard_markdown",
    "plain_csv",
    "to_csv",
    "to_html",
    "to_latex",
    "to_json",
    "to_markdown",
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


# --------------------------------------------------------------------------- comparison table
def _level_label(level: float) -> str:
    return format_level(level)


def test_label(test: object, n_clusters: object = None) -> str:
    """A row's test as the tables show it: the test's name, followed by the number of clusters
    when the pair was tested with its cluster-robust version (``n_clusters`` finite:
    :mod:`ranger_eval.comparison.clustered`), e.g. ``paired-t (30 clusters)``."""
    try:
        n = float(n_clusters)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return str(test)
    return f"{test} ({int(n)} clusters)" if math.isfinite(n) else str(test)


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
        mean_a, mean_b, diff, ci_low, ci_high, pvalue, pvalue_adj, effect = (
            float(v)  # type: ignore[arg-type]  # pandas-stubs types row fields as a Scalar union incl. None
            for v in (
                r.mean_a, r.mean_b, r.diff, r.ci_low, r.ci_high, r.pvalue, r.pvalue_adjusted,
                r.effect_size,
            )
        )
        ci = f"[{_num(ci_low, dec, style)}, {_num(ci_high, dec, style)}]"
        eff = (
            f"{_num(effect, 2, style)} {effect_size_label(str(r.effect_size_name))} "
            f"({r.effect_label})"
        )
        cells = [
            str(r.dataset),
            str(r.metric),
            str(r.system_a),
            str(r.system_b),
            _num(mean_a, dec, style),
            _num(mean_b, dec, style),
            _num(diff, dec, style),
            ci,
            test_label(r.test, getattr(r, "n_clusters", None)),
            _pvalue(pvalue, style),
            _pvalue(pvalue_adj, style),
            eff,
            "yes" if bool(r.significant) else "no",
        ]
        rows.append(cells)
    return header, rows


def _md_escape(text: str) -> str:
    return text.replace("|", "\\|")


def _parts(
    comp: Comparison | pd.DataFrame, signature: str | None, level: float | None
) -> tuple[pd.DataFrame, str, float]:
    if isinstance(comp, Comparison):
        # an equivalence row's interval is two-sided at 1 - 2α (each side one-sided at level)
        level = (round(2 * comp.level - 1, 12) if comp.hypothesis == "equivalence"
                 else comp.level)
        return comp.table, str(comp.signature), level
    if signature is None:
        raise ReportError("a comparison table needs its signature (pass the Comparison itself)")
    return comp, signature, 0.95 if level is None else level


def hypothesis_sentence(comp: Comparison) -> str | None:
    """The verdict of a non-inferiority or equivalence comparison in words (None for the
    default superiority): the margin, how many pairs it shows, which, and how to read a row."""
    hyp, margin = comp.hypothesis, comp.margin
    if hyp == "superiority" or margin is None:
        return None
    table = comp.table
    word = "equivalent" if hyp == "equivalence" else "non-inferior"
    shown = table[table["significant"].astype(bool)]
    claim = (f"|mean A − mean B| < {margin:g}" if hyp == "equivalence" else
             f"system A is worse than system B by less than {margin:g} (in the metric's "
             "direction)")
    names = [f"{r.system_a} {'≈' if hyp == 'equivalence' else '≥'} {r.system_b} "
             f"({r.dataset}, {r.metric})" for r in shown.head(5).itertuples(index=False)]
    listed = (": " + "; ".join(names) + (" …" if len(shown) > 5 else "")) if names else ""
    one_sided = format_level(comp.level)  # each finite side is a one-sided bound at level
    return (f"Hypothesis: {hyp} within a margin of {margin:g} ({claim}); "
            f"{len(shown)} of {len(table)} pairs shown {word} after {comp.correction} at "
            f"α = {round(1 - comp.level, 12):g}{listed}. Each row's p-value is that of the "
            f"{hyp} test (two one-sided tests: the larger p-value)"
            if hyp == "equivalence" else
            f"Hypothesis: {hyp} within a margin of {margin:g} ({claim}); "
            f"{len(shown)} of {len(table)} pairs shown {word} after {comp.correction} at "
            f"α = {round(1 - comp.level, 12):g}{listed}. Each row's p-value is that of the "
            f"one-sided {hyp} test") + (
        f", and its interval the {one_sided} one-sided bound(s) the test inverts: a pair is "
        f"shown {word} exactly when that interval lies within the margin.")


def why_both_hold(markdown: str, sentences: Sequence[str]) -> str:
    """``markdown`` with each sentence that explains two seemingly disagreeing verdicts
    (:mod:`ranger_eval.aggregate.agreement`) as a "**Why both hold.**" paragraph, before the
    signature line that ends the file; unchanged without sentences.

    Parameters
    ----------
    markdown : str
        A Markdown report ending with its signature line (`` `ranger-eval:...` ``).
    sentences : sequence of str
        The explanations, one paragraph each.

    Returns
    -------
    str
        The report with the paragraphs inserted before the signature (appended when there is
        no signature line).

    Examples
    --------
    >>> from ranger_eval.report.tables import why_both_hold
    >>> text = "| a | b |\\n\\n`ranger-eval:0.1|kind:compare`\\n"
    >>> print(why_both_hold(text, ["The difference is small but certain."]))
    | a | b |
    <BLANKLINE>
    **Why both hold.** The difference is small but certain.
    <BLANKLINE>
    `ranger-eval:0.1|kind:compare`
    <BLANKLINE>
    >>> why_both_hold(text, []) == text
    True
    """
    if not sentences:
        return markdown
    why = "\n\n".join(f"**Why both hold.** {s}" for s in sentences)
    body, sep, sig = markdown.rstrip("\n").rpartition("\n\n`ranger-eval:")
    return f"{body}\n\n{why}{sep}{sig}\n" if sep else f"{markdown.rstrip()}\n\n{why}\n"


def equivalence_sentences(comp: Comparison) -> list[str]:
    """Why an equivalence comparison's pairs can be different and equivalent at once (or
    neither): :func:`ranger_eval.aggregate.agreement.equivalence_disagreements` of its rows;
    empty for other hypotheses."""
    if comp.hypothesis != "equivalence":
        return []
    from ..aggregate.agreement import equivalence_disagreements  # only then: aggregate is heavy

    return equivalence_disagreements(comp.table, margin=comp.margin, level=comp.level)


def mde_sentence(table: pd.DataFrame, level: float) -> str | None:
    """What the non-significant pairs could have detected, in words, from the table's ``mde``
    column (the minimum detectable effect at the pair's n and 80 % power,
    :mod:`ranger_eval.comparison.mde`); None when no pair has one."""
    if "mde" not in table or not len(table):
        return None
    mde = table["mde"].to_numpy(dtype=float)
    ok = np.isfinite(mde)
    if not ok.any():
        return None
    alpha = f"α = {round(1 - level, 12):g}"
    rows = table[ok]
    if len(rows) == 1:
        r = next(rows.itertuples(index=False))
        return (f"Not significant is not no difference: {r.system_a} vs {r.system_b} "
                f"({r.dataset}, {r.metric}) could have detected only a true difference of "
                f"{float(r.mde):.3g} or more with 80 % power at {alpha} (column mde).")
    lo, mid, hi = np.min(mde[ok]), np.median(mde[ok]), np.max(mde[ok])
    return (f"Not significant is not no difference: the {len(rows)} non-significant pairs could "
            f"have detected only true differences of {lo:.3g} to {hi:.3g} (median {mid:.3g}) or "
            f"more with 80 % power at {alpha}, in the metric's units (column mde).")


def comparison_markdown(
    comp: Comparison | pd.DataFrame, signature: str | None = None, *, level: float | None = None
) -> str:
    """GitHub-flavoured Markdown table of the comparison rows, then (for a non-inferiority or
    equivalence comparison) the verdict in words, then the signature line.

    Parameters
    ----------
    comp : Comparison or pandas.DataFrame
        The result of :func:`ranger_eval.compare`, or its ``table`` (then ``signature`` is
        required).
    signature : str, optional
        The signature line, for a bare table (a Comparison carries its own).
    level : float, optional
        The confidence level of the interval column's header, for a bare table (default 0.95;
        a Comparison's own level otherwise, 2·level − 1 for equivalence).

    Returns
    -------
    str
        The Markdown text: header, one row per pair, the verdict (if any), the signature.

    Raises
    ------
    ReportError
        A bare table without ``signature``.

    Examples
    --------
    >>> import ranger_eval as rg
    >>> from ranger_eval.report.tables import comparison_markdown
    >>> scores = rg.Scores.from_arrays({"qa": {"a": [0.8, 0.6, 0.9, 0.7, 0.75, 0.85],
    ...                                        "b": [0.7, 0.6, 0.8, 0.5, 0.7, 0.8]}})
    >>> comparison = rg.compare(scores, test="paired-t")
    >>> print(comparison_markdown(comparison))  # doctest: +NORMALIZE_WHITESPACE
    | dataset | metric | system A | system B | mean A | mean B | diff (A−B) | 95% CI | test | p | p adj. | effect size | significant |
    |---|---|---|---|---:|---:|---:|:---:|---|---:|---:|---:|:---:|
    | qa | score | a | b | 0.7667 | 0.6833 | 0.0833 | [0.0116, 0.1550] | paired-t | 0.031 | 0.031 | 1.22 Cohen's d_z (very large) | yes |
    <BLANKLINE>
    `ranger-eval:...|kind:compare|test:paired-t|alt:two-sided|pairs:all|corr:holm-sidak|family:dataset-metric|level:0.95|n_resamples:10000|seed:0`
    <BLANKLINE>
    """
    table, signature, level = _parts(comp, signature, level)
    header, rows = _comparison_cells(table, "markdown", level)
    align = ["---"] * 4 + ["---:"] * 3 + [":---:", "---", "---:", "---:", "---:", ":---:"]
    lines = [
        "| " + " | ".join(header) + " |",
        "|" + "|".join(align) + "|",
    ]
    for cells in rows:
        lines.append("| " + " | ".join(_md_escape(c) for c in cells) + " |")
    verdict = hypothesis_sentence(comp) if isinstance(comp, Comparison) else None
    lines += ["", verdict] if verdict else []
    for why in equivalence_sentences(comp) if isinstance(comp, Comparison) else []:
        lines += ["", f"**Why both hold.** {why}"]
    detectable = mde_sentence(table, level)
    lines += ["", detectable] if detectable else []
    lines += ["", f"`{signature}`", ""]
    return "\n".join(lines)


def _comparison_caption(comp: Comparison | pd.DataFrame, table: pd.DataFrame, level: float) -> str:
    """One sentence (LaTeX): what was compared, how many pairs are significant, the correction."""
    n_sig = int(table["significant"].sum()) if len(table) else 0
    n_sys = len(set(table["system_a"]) | set(table["system_b"])) if len(table) else 0
    n_data = table["dataset"].nunique() if len(table) else 0
    adj = (f"p-values adjusted by {latex_escape(comp.correction)} within each "
           f"{latex_escape(comp.family.replace('-', ' × '))}; " if isinstance(comp, Comparison) else "")
    return (f"Pairwise comparisons of {n_sys} systems on {n_data} dataset(s): {len(table)} pairs, "
            f"{n_sig} significant; {adj}{latex_escape(_level_label(level))} confidence interval "
            "of the difference A$-$B.")


def comparison_latex(
    comp: Comparison | pd.DataFrame, signature: str | None = None, *, level: float | None = None,
    label: str = "tab:ranger-comparison",
) -> str:
    """A booktabs table of the comparison rows (caption, ``label``; scaled to the line width when
    wider), the signature as a footnote line that wraps.

    Parameters
    ----------
    comp : Comparison or pandas.DataFrame
        The result of :func:`ranger_eval.compare`, or its ``table`` (then ``signature`` is
        required).
    signature : str, optional
        The signature line, for a bare table (a Comparison carries its own).
    level : float, optional
        The confidence level of the interval column's header, for a bare table (default 0.95;
        a Comparison's own level otherwise, 2·level − 1 for equivalence).
    label : str, default "tab:ranger-comparison"
        The table's ``\\label``.

    Returns
    -------
    str
        A ``table`` environment (needs ``booktabs`` and ``graphicx``: :data:`LATEX_PACKAGES`).

    Raises
    ------
    ReportError
        A bare table without ``signature``.

    Examples
    --------
    >>> import ranger_eval as rg
    >>> from ranger_eval.report.tables import comparison_latex
    >>> scores = rg.Scores.from_arrays({"qa": {"a": [0.8, 0.6, 0.9, 0.7, 0.75, 0.85],
    ...                                        "b": [0.7, 0.6, 0.8, 0.5, 0.7, 0.8]}})
    >>> comparison = rg.compare(scores, test="paired-t")
    >>> text = comparison_latex(comparison, label="tab:qa")
    >>> print(text.splitlines()[4])
    \\label{tab:qa}
    >>> print(next(line for line in text.splitlines() if line.startswith("qa &")))
    qa & score & a & b & 0.7667 & 0.6833 & 0.0833 & [0.0116, 0.1550] & paired-t & 0.031 & 0.031 & 1.22 Cohen's d\\_z (very large) & yes \\\\
    """
    table, signature, level = _parts(comp, signature, level)
    header, rows = _comparison_cells(table, "latex", level)
    plain_cols = {0, 1, 2, 3, 8}  # free text: escape; the others are already LaTeX
    spec = "llll" + "rrr" + "c" + "l" + "rrr" + "c"
    body = []
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
        body.append(out)
    return latex_table(
        [h if i == 6 else latex_escape(h) for i, h in enumerate(header)], body, spec,
        caption=_comparison_caption(comp, table, level) + (
            " " + latex_escape(verdict).replace("≈", r"$\approx$").replace("≥", r"$\geq$")
            .replace("<", "$<$").replace("|", "$|$")
            if (verdict := hypothesis_sentence(comp)
                                            if isinstance(comp, Comparison) else None) else ""),
        label=label, signature=signature,
    )


def comparison_html(
    comp: Comparison | pd.DataFrame, signature: str | None = None, *, level: float | None = None
) -> str:
    """An HTML ``<table>`` of the comparison rows; significant rows have class ``significant``.

    Parameters
    ----------
    comp : Comparison or pandas.DataFrame
        The result of :func:`ranger_eval.compare`, or its ``table`` (then ``signature`` is
        required).
    signature : str, optional
        The signature line, for a bare table (a Comparison carries its own).
    level : float, optional
        The confidence level of the interval column's header, for a bare table (default 0.95;
        a Comparison's own level otherwise, 2·level − 1 for equivalence).

    Returns
    -------
    str
        A ``<table class="ranger-comparison">`` with the signature as its caption, then the
        verdict and detectable-effect sentences when there are any.

    Raises
    ------
    ReportError
        A bare table without ``signature``.

    Examples
    --------
    >>> import ranger_eval as rg
    >>> from ranger_eval.report.tables import comparison_html
    >>> scores = rg.Scores.from_arrays({"qa": {"a": [0.8, 0.6, 0.9, 0.7, 0.75, 0.85],
    ...                                        "b": [0.7, 0.6, 0.8, 0.5, 0.7, 0.8]}})
    >>> comparison = rg.compare(scores, test="paired-t")
    >>> html = comparison_html(comparison)
    >>> html.splitlines()[0], html.count('<tr class="significant">')
    ('<table class="ranger-comparison">', 1)
    """
    table, signature, level = _parts(comp, signature, level)
    header, rows = _comparison_cells(table, "html", level)
    verdict = hypothesis_sentence(comp) if isinstance(comp, Comparison) else None
    detectable = " ".join(v for v in (verdict, mde_sentence(table, level)) if v) or None
    plain_cols = {0, 1, 2, 3, 8, 12}
    lines = [
        '<table class="ranger-comparison">',
        "<caption>" + (f"{html.escape(detectable)} " if detectable else "")
        + f"<code>{html.escape(signature)}</code></caption>",
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


def plain_csv(frame: pd.DataFrame, path: str | Path | None = None) -> str:
    """``frame`` as plain CSV (header on line 1, no index, ``\\n`` line ends, full precision),
    written atomically to ``path`` when given; returns the text, that of
    ``frame.to_csv(index=False, lineterminator="\\n")`` written faster (:func:`csv_text`)."""
    text = csv_text(frame)
    if path is not None:
        write_text(path, text)
    return text


def _comparison_rows(comp: Comparison) -> pd.DataFrame:
    """The comparison rows; when the scores say that lower is better for some dataset × metric
    (the adapters' metadata: perplexity, TER, Brier score …), a last column
    ``higher_is_better`` says so for every row."""
    frame = comp.table
    directions = metric_directions(comp.scores)
    if directions and not all(directions.values()):
        keys = zip(frame["dataset"].astype(str), frame["metric"].astype(str), strict=True)
        frame = frame.assign(higher_is_better=[directions.get(k, True) for k in keys])
    return frame


def comparison_csv(comp: Comparison, path: str | Path | None = None) -> str:
    """Plain CSV of the comparison rows at full precision (header on line 1).

    When the scores say that lower is better for some dataset × metric (the adapters' metadata:
    perplexity, TER, Brier score …), a last column ``higher_is_better`` says so for every row,
    so that a reader of the file (and the HTML report) knows which mean is the better one.

    Parameters
    ----------
    comp : Comparison
        The result of :func:`ranger_eval.compare`.
    path : str or Path, optional
        Also write the text there, atomically.

    Returns
    -------
    str
        The CSV text (``\\n`` line ends, floats with all their digits).

    Examples
    --------
    >>> import ranger_eval as rg
    >>> from ranger_eval.report.tables import comparison_csv
    >>> scores = rg.Scores.from_arrays({"qa": {"a": [0.8, 0.6, 0.9, 0.7, 0.75, 0.85],
    ...                                        "b": [0.7, 0.6, 0.8, 0.5, 0.7, 0.8]}})
    >>> comparison = rg.compare(scores, test="paired-t")
    >>> header, row = comparison_csv(comparison).splitlines()
    >>> header.split(",")[:10]
    ['dataset', 'metric', 'system_a', 'system_b', 'mean_a', 'mean_b', 'diff', 'ci_low', 'ci_high', 'test']
    >>> row.split(",")[:7]
    ['qa', 'score', 'a', 'b', '0.7666666666666666', '0.6833333333333332', '0.08333333333333337']
    """
    return plain_csv(_comparison_rows(comp), path)


def _json_value(value: Any) -> Any:
    """A cell as JSON: numpy scalars as Python numbers (floats keep all 17 digits), NaN as
    ``null``, ±∞ as the strings ``"inf"`` / ``"-inf"`` (JSON has no infinity)."""
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return None if math.isnan(value) else ("inf" if value > 0 else "-inf")
    return value


def _json_column(column: pd.Series) -> list[Any]:
    """One column as JSON-ready Python values (:func:`_json_value`), converted in one step where
    the dtype says no value needs replacing: integers, booleans, all-string columns and finite
    floats (a float column's non-finite cells are replaced one by one)."""
    values = column.to_numpy()
    kind = values.dtype.kind
    if kind in "iub":
        return list(values.tolist())
    if kind == "f":
        out = list(values.tolist())
        for i in np.flatnonzero(~np.isfinite(values)).tolist():
            out[i] = _json_value(out[i])
        return out
    if kind == "O" and pd.api.types.infer_dtype(values, skipna=False) == "string":
        return list(values.tolist())
    if kind == "O" and pd.api.types.infer_dtype(values, skipna=True) == "string":
        # strings with missing cells (NaN/None → null): each distinct value converted once
        codes, uniques = pd.factorize(values, use_na_sentinel=True)
        lookup = np.array([*uniques.tolist(), None], dtype=object)  # code −1: missing
        return list(lookup[codes].tolist())
    return [_json_value(v) for v in column.tolist()]


def json_records(frame: pd.DataFrame) -> list[dict[str, Any]]:
    """The rows of ``frame`` as JSON-ready dicts at full precision (:func:`_json_value`)."""
    columns = [str(c) for c in frame.columns]
    values = [_json_column(frame[c]) for c in frame.columns]
    return [dict(zip(columns, row, strict=True)) for row in zip(*values, strict=True)]


def _columns_json(frame: pd.DataFrame) -> str:
    """``frame`` as a JSON object of columns, ``{"column": [value, …], …}``, one column a line
    (``pandas.DataFrame(obj)`` gives the table back), encoded by orjson.

    Columns rather than one object per row, and orjson rather than the standard library's
    indenting encoder (pure Python): a million rows × 23 columns take seconds instead of minutes
    and gigabytes (``benchmarks/groups_scale_bench.py``, compare at a million datasets). orjson
    writes each float with the shortest text that reads back to the same double, so the values
    are at full precision."""
    return b"".join(_columns_json_parts(frame)).decode("utf-8")


def _columns_json_parts(frame: pd.DataFrame) -> list[bytes]:
    """The UTF-8 text of :func:`_columns_json` in parts, for one ``join`` of the whole file
    (a million comparisons make 370 MB of JSON: every intermediate copy of it counts)."""
    import orjson

    if len(frame.columns) == 0:
        return [b"{}"]
    parts = [b"{\n  "]
    for j, c in enumerate(frame.columns):
        parts += [b",\n  "] if j else []
        parts += [orjson.dumps(str(c)), b": ", _column_json(frame[c])]
    parts.append(b"\n }")
    return parts


def _column_json(column: pd.Series) -> bytes:
    """One column as a JSON array (orjson): integer, boolean and float64 columns without ±∞
    straight from the numpy array (NaN is ``null``: the same bytes as orjson writes for their
    Python values, without a Python object per cell), all-string columns from their values
    converted once, the rest from :func:`_json_column`."""
    import orjson

    if isinstance(column.dtype, pd.StringDtype) and len(column) and not column.hasnans:
        codes, uniques = factorize(column)
        if len(uniques) * 4 <= len(codes):
            # few distinct strings (system, metric, test names …): each encoded once and
            # repeated, the same bytes as encoding the list (orjson puts no space between
            # items), without a Python string per row
            encoded = np.array([orjson.dumps(u) for u in uniques.tolist()], dtype=object)
            return b"[" + b",".join(encoded[codes].tolist()) + b"]"
    values = column.to_numpy()
    if (values.dtype.kind in "iub" or values.dtype == np.float64
            and not np.isinf(values).any()):
        return orjson.dumps(np.ascontiguousarray(values), option=orjson.OPT_SERIALIZE_NUMPY)
    if values.dtype.kind == "O" and pd.api.types.infer_dtype(values, skipna=False) == "string":
        return orjson.dumps(values.tolist())
    return orjson.dumps(_json_column(column))


def comparison_json_parts(comp: Comparison) -> list[bytes]:
    """:func:`comparison_json` as UTF-8 parts, to be written one after the other
    (:meth:`ranger_eval.output.OutputFolder.parts`; never joined into one more copy). The whole
    comparison as one JSON object at full precision: the settings, the tests used,
    ``comparisons`` (the rows of :func:`comparison_csv`), ``means`` (one row per dataset ×
    metric × system, with the leaderboard's design and interval: ``se``, ``n``,
    ``n_clusters``, ``ci_low``, ``ci_high``, ``interval``;
    :meth:`~ranger_eval.comparison.Comparison.described_means`) and the ``signature``. The two tables are objects of columns
    (``pandas.DataFrame(result["comparisons"])`` gives the table); NaN is ``null`` and ±∞ is
    ``"inf"``/``"-inf"``; floats are written with the shortest text that reads back to the same
    double.

    Parameters
    ----------
    comp : Comparison
        The result of :func:`ranger_eval.compare`.

    Returns
    -------
    list of bytes
        UTF-8 parts whose concatenation is :func:`comparison_json`'s text.

    Examples
    --------
    >>> import ranger_eval as rg
    >>> from ranger_eval.report.tables import comparison_json_parts
    >>> scores = rg.Scores.from_arrays({"qa": {"a": [0.8, 0.6, 0.9, 0.7, 0.75, 0.85],
    ...                                        "b": [0.7, 0.6, 0.8, 0.5, 0.7, 0.8]}})
    >>> comparison = rg.compare(scores, test="paired-t")
    >>> from ranger_eval.report.tables import comparison_json
    >>> parts = comparison_json_parts(comparison)
    >>> b"".join(parts).decode("utf-8") == comparison_json(comparison)
    True
    """
    import json

    head = {
        "kind": "compare",
        "systems": list(comp.systems),
        "test": comp.test, "tests_used": list(comp.tests_used), "pairs": comp.pairs,
        "baseline": comp.baseline, "alternative": comp.alternative,
        "correction": comp.correction, "family": comp.family, "level": comp.level,
        "n_resamples": comp.n_resamples, "seed": comp.seed, "seeds": comp.seeds,
        "set_metrics": list(comp.set_metrics),
    }
    if comp.hypothesis != "superiority":  # only then: older files keep their keys
        head.update(hypothesis=comp.hypothesis, margin=comp.margin)
        if why := equivalence_sentences(comp):  # different and equivalent at once, or neither
            head.update(disagreements=why)
    lines = [f" {json.dumps(k)}: {json.dumps(v, ensure_ascii=False, allow_nan=False)}"
             for k, v in head.items()]
    signature = f' "signature": {json.dumps(str(comp.signature), ensure_ascii=False)}'
    # the file's UTF-8 bytes in parts, written one after the other (not a str per column and
    # per table concatenated again: five copies of 370 MB at a million comparisons)
    items = [[line.encode("utf-8")] for line in lines]
    items += [[f' "{name}": '.encode(), *_columns_json_parts(frame)]
              for name, frame in (("comparisons", _comparison_rows(comp)),
                                  ("means", comp.described_means()))]
    items.append([signature.encode("utf-8")])
    parts = [b"{\n"]
    for i, item in enumerate(items):
        parts += [b",\n", *item] if i else item
    parts.append(b"\n}\n")
    return parts


def comparison_json(comp: Comparison) -> str:
    """The whole comparison as one JSON object at full precision (the text of
    :func:`comparison_json_parts`, whose docstring says what it holds).

    Parameters
    ----------
    comp : Comparison
        The result of :func:`ranger_eval.compare`.

    Returns
    -------
    str
        The JSON text (``comparison.json`` of ``ranger-eval compare``).

    Examples
    --------
    >>> import json
    >>> import ranger_eval as rg
    >>> from ranger_eval.report.tables import comparison_json
    >>> scores = rg.Scores.from_arrays({"qa": {"a": [0.8, 0.6, 0.9, 0.7, 0.75, 0.85],
    ...                                        "b": [0.7, 0.6, 0.8, 0.5, 0.7, 0.8]}})
    >>> comparison = rg.compare(scores, test="paired-t")
    >>> result = json.loads(comparison_json(comparison))
    >>> result["kind"], result["tests_used"], result["comparisons"]["diff"]
    ('compare', ['paired-t'], [0.08333333333333337])
    >>> list(result["means"])[:4]
    ['dataset', 'metric', 'system', 'mean']
    """
    return b"".join(comparison_json_parts(comp)).decode("utf-8")


# --------------------------------------------------------------------------- leaderboard
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
    if board.has_counts:
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
# The renderings of a MetaResult are registered by report/meta.py, which imports this module
# (one way: this module never imports it).
to_markdown.register(Comparison)(comparison_markdown)
to_latex.register(Comparison)(comparison_latex)
to_html.register(Comparison)(comparison_html)
to_csv.register(Comparison)(comparison_csv)
to_json.register(Comparison)(comparison_json)
to_markdown.register(Leaderboard)(leaderboard_markdown)
to_latex.register(Leaderboard)(leaderboard_latex)
to_html.register(Leaderboard)(leaderboard_html)
to_csv.register(Leaderboard)(leaderboard_csv)
to_json.register(Leaderboard)(leaderboard_json)


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
