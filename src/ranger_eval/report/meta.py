"""The summary of a meta-analysis: Markdown (``summary.md`` of ``ranger-eval meta``) and a LaTeX
table (``summary.tex``) with the same rows, caption and signature."""
from __future__ import annotations

import json
import math
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ..formatting import format_level, format_percent, format_pvalue
from ..meta import MetaResult
from .registry import to_csv, to_json, to_latex, to_markdown
from .tables import latex_escape, latex_table, plain_csv

__all__ = ["meta_latex", "meta_markdown", "meta_mde_sentence"]


#: Above this many datasets the Markdown/LaTeX summaries list only the summary row (a table of
#: thousands of rows cannot be read); ``effects.csv`` always has every dataset.
TABLE_MAX_ROWS = 500

def meta_markdown(
    result: MetaResult,
    *,
    n: Mapping[str, int] | None = None,
    title: str | None = None,
    control: str = "control",
    treatment: str = "treatment",
    skipped: Mapping[str, str] | None = None,
    max_rows: int = TABLE_MAX_ROWS,
) -> str:
    """Per-dataset effects, the summary line and the model's numbers, then the signature.

    ``n`` maps dataset names to their number of items (the ``n`` column); ``skipped`` lists the
    datasets that could not be analysed, with the reason (reported, never silently left out).
    With more than ``max_rows`` datasets only the summary row is listed, with a note pointing to
    ``effects.csv`` (which always has every dataset).

    Parameters
    ----------
    result : MetaResult
        The result of :func:`ranger_eval.meta_analysis` (one estimate per dataset).
    n : mapping of {str: int}, optional
        Items per dataset, for the ``n`` column (left empty for a dataset not in it).
    title : str, optional
        A ``#`` heading above the text.
    control, treatment : str, default "control", "treatment"
        The two systems' names, for the first sentence.
    skipped : mapping of {str: str}, optional
        Datasets that could not be analysed → why; listed under "Not analysed".
    max_rows : int, default :data:`TABLE_MAX_ROWS` (500)
        Above this many datasets only the summary row is listed.

    Returns
    -------
    str
        The Markdown text: the model sentence, the table of effects with the summary row, the
        test and heterogeneity line, the skipped datasets, the signature line.

    Examples
    --------
    >>> import ranger_eval as rg
    >>> from ranger_eval.report.meta import meta_markdown
    >>> result = rg.meta_analysis([0.10, 0.30, 0.25], [0.01, 0.02, 0.015], names=["qa", "mt", "sum"])
    >>> text = meta_markdown(result, n={"qa": 100}, control="bm25", treatment="dense",
    ...                      skipped={"nli": "one system only"})
    >>> print("\\n".join(text.splitlines()[2:8]))
    | task | n | effect | 95% CI | weight |
    |---|---:|---:|---|---:|
    | qa | 100 | 0.100000 | [-0.095996, 0.295996] | 46.15% |
    | mt |  | 0.300000 | [0.022819, 0.577181] | 23.08% |
    | sum |  | 0.250000 | [0.009954, 0.490046] | 30.77% |
    | **summary** | | **0.192308** | [0.059154, 0.325461] | 100% |
    >>> print(text.splitlines()[-3])
    Not analysed: nli (one system only).
    """
    r = result
    pct = format_level(r.level)
    n = n or {}
    lines = []
    if title:
        lines += [f"# {title}", ""]
    lines += [
        f"Effect measure **{r.measure}** of *{treatment}* over *{control}*; model: "
        f"{'fixed effect' if r.method in ('FE', 'EE') else f'random effects ({r.method})'}, "
        f"test {r.test}, {pct} intervals.",
        "",
        f"| task | n | effect | {pct} CI | weight |",
        "|---|---:|---:|---|---:|",
    ]
    for name, row in _study_rows(r, max_rows):
        lines.append(
            f"| {name} | {n.get(name, '')} | {row.yi:.6f} | [{row.ci_low:.6f}, "
            f"{row.ci_high:.6f}] | {format_percent(float(row.weight), 2)} |"
        )
    lines += [
        f"| **summary** | | **{r.estimate:.6f}** | [{r.ci_low:.6f}, {r.ci_high:.6f}] | 100% |",
        "",
        f"{format_pvalue(r.pvalue, 4, prefix='p = ')}; prediction interval "
        f"[{r.pi_low:.6f}, {r.pi_high:.6f}]; "
        f"τ² = {r.tau2:.4g}, I² = {r.I2:.1f}%, H² = {r.H2:.3g}, Q({r.Q_df}) = {r.Q:.4g}, "
        f"{format_pvalue(r.Q_pvalue, 4, prefix='p(Q) = ')}.",
    ]
    if r.few_datasets_caution is not None:
        lines += ["", f"**Caution.** {r.few_datasets_caution}"]
    detectable = meta_mde_sentence(r)
    if detectable:
        lines += ["", detectable]
    if r.verdict is not None:
        lines += ["", r.verdict.sentence()]
        from ..aggregate.agreement import margin_disagreements  # only with a margin

        lines += [line for why in margin_disagreements(r) for line in ("", f"**Why both hold.** {why}")]
    if len(r.names) > max_rows:
        lines += ["", _too_many(len(r.names), max_rows)]
    if skipped:
        lines += ["", "Not analysed: " + "; ".join(f"{k} ({v})" for k, v in skipped.items()) + "."]
    lines += ["", f"`{r.signature}`"]
    return "\n".join(lines) + "\n"


def meta_mde_sentence(r: MetaResult) -> str | None:
    """What a non-significant summary could have detected (:attr:`MetaResult.mde`), in words;
    None when the summary is significant."""
    mde = r.mde
    if not math.isfinite(mde):
        return None
    return (f"Not significant is not no effect: with its standard error ({r.se:.4g}) the summary "
            f"would have detected only a true effect of {mde:.4g} or more ({r.measure}, either "
            f"direction) with 80 % power at α = {round(1 - r.level, 12):g}.")


def _study_rows(r: MetaResult, max_rows: int) -> list[tuple[str, Any]]:
    """(name, row of ``r.to_frame()``) of every study, none above ``max_rows`` studies (the
    summary rows of the frame are left out; a set lookup keeps it linear in the studies)."""
    if len(r.names) > max_rows:
        return []
    studies = set(r.names)
    return [(str(row.name), row) for row in r.to_frame().itertuples(index=False)
            if str(row.name) in studies]


def _too_many(k: int, max_rows: int) -> str:
    return (f"{k:,} datasets: more than {max_rows:,} rows, so only the summary is listed here; "
            f"every dataset's effect is in effects.csv.")


def _model_text(r: MetaResult) -> str:
    return "fixed effect" if r.method in ("FE", "EE") else f"random effects ({r.method})"


def meta_latex(
    result: MetaResult,
    *,
    n: Mapping[str, int] | None = None,
    title: str | None = None,
    control: str = "control",
    treatment: str = "treatment",
    skipped: Mapping[str, str] | None = None,
    label: str = "tab:ranger-meta",
    max_rows: int = TABLE_MAX_ROWS,
) -> str:
    """The rows of :func:`meta_markdown` as a booktabs table: task, n, effect, CI, weight and the
    summary row; the caption gives the model, the p-value, the prediction interval and the
    heterogeneity (τ², I², H², Q); ``label``; the signature as a footnote line that wraps."""
    r = result
    pct = format_level(r.level)
    n = n or {}
    rows = []
    for name, row in _study_rows(r, max_rows):
        rows.append([latex_escape(name), str(n.get(name, "")), _signed(float(row.yi)),
                     f"[{_signed(float(row.ci_low))}, {_signed(float(row.ci_high))}]",
                     latex_escape(format_percent(float(row.weight), 2))])
    rows.append(["\\textbf{summary}", "", f"\\textbf{{{_signed(r.estimate)}}}",
                 f"[{_signed(r.ci_low)}, {_signed(r.ci_high)}]", "100\\%"])
    caption = (
        (f"{title}. " if title else "")
        + f"Effect measure {r.measure} of {treatment} over {control}; {_model_text(r)}, test "
        f"{r.test}, {pct} intervals. {format_pvalue(r.pvalue, 4, prefix='p = ')}; prediction "
        f"interval [{r.pi_low:.4f}, {r.pi_high:.4f}]; τ² = {r.tau2:.4g}, I² = {r.I2:.1f}%, "
        f"H² = {r.H2:.3g}, Q({r.Q_df}) = {r.Q:.4g}, {format_pvalue(r.Q_pvalue, 4, prefix='p(Q) = ')}."
    )
    if r.few_datasets_caution is not None:
        caption += " " + r.few_datasets_caution
    if len(r.names) > max_rows:
        caption += " " + _too_many(len(r.names), max_rows)
    if skipped:
        caption += " Not analysed: " + "; ".join(f"{k} ({v})" for k, v in skipped.items()) + "."
    header = ["task", "n", "effect", f"{latex_escape(pct)} CI", "weight"]
    return latex_table(header, rows, "lrrlr", caption=latex_escape(caption), label=label,
                       signature=str(r.signature))


def _signed(value: float, decimals: int = 4) -> str:
    """Fixed-point with a typeset minus sign."""
    text = f"{value:.{decimals}f}"
    if float(text) == 0.0:
        text = text.lstrip("-")
    return text.replace("-", "$-$", 1)


def _meta_csv(result: MetaResult, path: str | Path | None = None) -> str:
    """The per-dataset effects and weights (``MetaResult.to_frame``) as plain CSV."""
    return plain_csv(result.to_frame(), path)


def _meta_json(result: MetaResult, *, header: Mapping[str, Any] | None = None) -> str:
    """``summary.json`` of ``ranger-eval meta``: the run's ``header`` fields (title, the two
    systems and their labels, measure, skipped datasets) first, then ``result``
    (``MetaResult.to_dict``), the sentences where the test of no effect and the margin's
    verdict seem to disagree (``disagreements``, only when there are some) and the
    ``signature``."""
    # imported here: ranger_eval.aggregate (the agreement sentences) is not needed to render
    # a comparison, which imports this module with the report package
    from ..aggregate.agreement import margin_disagreements

    why = margin_disagreements(result)
    payload = {**(header or {}), "result": result.to_dict(),
               **({"disagreements": why} if why else {}), "signature": str(result.signature)}
    return json.dumps(payload, indent=2, allow_nan=False) + "\n"


to_markdown.register(MetaResult)(meta_markdown)
to_latex.register(MetaResult)(meta_latex)
to_csv.register(MetaResult)(_meta_csv)
to_json.register(MetaResult)(_meta_json)
