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
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ..comparison import Comparison, metric_directions
from ..errors import ReportError
from ..formatting import format_level
from ..pairing import factorize
from .formats import (
    LATEX_PACKAGES,
    _decimals,
    _num,
    _pvalue,
    effect_size_label,
    jsonable,
    latex_escape,
    latex_signature,
    latex_table,
    plain_csv,
)
from .formats import (
    _md_escape as _md_escape,
)
from .leaderboard import (
    leaderboard_csv,
    leaderboard_dict,
    leaderboard_html,
    leaderboard_json,
    leaderboard_latex,
    leaderboard_markdown,
)
from .registry import to_csv, to_html, to_json, to_latex, to_markdown

__all__ = [
    "comparison_csv",
    "comparison_html",
    "comparison_json",
    "json_records",
    "jsonable",
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


def has_se_df(table: pd.DataFrame) -> bool:
    """Whether the comparison rows carry a standard error for at least one row: the tables then
    show the ``se`` and ``df`` columns after the interval (NaN cells: the test has none)."""
    return ("se" in table.columns and "df" in table.columns and len(table) > 0
            and bool(np.isfinite(table["se"].to_numpy(dtype=float)).any()))


def df_text(value: object) -> str:
    """Degrees of freedom as a table shows them: whole numbers as such, others (Satterthwaite,
    Welch, Bell–McCaffrey) to one decimal; ``–`` when the test has none."""
    v = float(value)  # type: ignore[arg-type]
    if not math.isfinite(v):
        return "–" if math.isnan(v) else "inf"
    return f"{v:.0f}" if v == round(v) else f"{v:.1f}"


def _comparison_cells(table: pd.DataFrame, style: str, level: float) -> tuple[list[str], list[list[str]]]:
    """Header and cells of the comparison tables (the ``se``/``df`` pair after the interval
    when :func:`has_se_df`)."""
    with_se = has_se_df(table)
    dash = "--" if style == "latex" else "–"
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
        *(["se", "df"] if with_se else []),
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
            *([dash if math.isnan(float(r.se)) else _num(float(r.se), dec, style),  # type: ignore[arg-type]
               dash if math.isnan(float(r.df)) else df_text(r.df)] if with_se else []),  # type: ignore[arg-type]
            test_label(r.test, getattr(r, "n_clusters", None)),
            _pvalue(pvalue, style),
            _pvalue(pvalue_adj, style),
            eff,
            "yes" if bool(r.significant) else "no",
        ]
        rows.append(cells)
    return header, rows


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
    | dataset | metric | system A | system B | mean A | mean B | diff (A−B) | 95% CI | se | df | test | p | p adj. | effect size | significant |
    |---|---|---|---|---:|---:|---:|:---:|---:|---:|---|---:|---:|---:|:---:|
    | qa | score | a | b | 0.7667 | 0.6833 | 0.0833 | [0.0116, 0.1550] | 0.0279 | 5 | paired-t | 0.031 | 0.031 | 1.22 Cohen's d_z (very large) | yes |
    <BLANKLINE>
    `ranger-eval:...|kind:compare|test:paired-t|alt:two-sided|pairs:all|corr:holm-sidak|family:dataset-metric|level:0.95|n_resamples:10000|seed:0`
    <BLANKLINE>
    """
    table, signature, level = _parts(comp, signature, level)
    header, rows = _comparison_cells(table, "markdown", level)
    align = (["---"] * 4 + ["---:"] * 3 + [":---:"] + ["---:"] * (len(header) - 13)
             + ["---", "---:", "---:", "---:", ":---:"])
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
    qa & score & a & b & 0.7667 & 0.6833 & 0.0833 & [0.0116, 0.1550] & 0.0279 & 5 & paired-t & 0.031 & 0.031 & 1.22 Cohen's d\\_z (very large) & yes \\\\
    """
    table, signature, level = _parts(comp, signature, level)
    header, rows = _comparison_cells(table, "latex", level)
    extra = len(header) - 13  # the se and df columns
    plain_cols = {0, 1, 2, 3, 8 + extra}  # free text: escape; the others are already LaTeX
    spec = "llll" + "rrr" + "c" + "r" * extra + "l" + "rrr" + "c"
    body = []
    for cells in rows:
        out = []
        for i, c in enumerate(cells):
            if i in plain_cols:
                out.append(latex_escape(c))
            elif i == 11 + extra:  # effect: number (LaTeX) + escaped name/label
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
    extra = len(header) - 13  # the se and df columns
    plain_cols = {0, 1, 2, 3, 8 + extra, 12 + extra}
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
            if i == 11 + extra:
                num, _, rest = c.partition(" ")
                text = f"{num} {html.escape(rest)}"
            tds.append(f"<td>{text}</td>")
        cls = ' class="significant"' if sig else ""
        lines.append(f"<tr{cls}>" + "".join(tds) + "</tr>")
    lines += ["</tbody>", "</table>", ""]
    return "\n".join(lines)


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
    >>> header.split(",")[:11]
    ['dataset', 'metric', 'system_a', 'system_b', 'mean_a', 'mean_b', 'diff', 'ci_low', 'ci_high', 'se', 'df']
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


# --------------------------------------------------------------------------- registry
# The renderings of a MetaResult are registered by report/meta.py, which imports this module
# (one way: this module never imports it).
to_markdown.register(Comparison)(comparison_markdown)
to_latex.register(Comparison)(comparison_latex)
to_html.register(Comparison)(comparison_html)
to_csv.register(Comparison)(comparison_csv)
to_json.register(Comparison)(comparison_json)
