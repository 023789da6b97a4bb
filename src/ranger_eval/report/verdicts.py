"""Almost Stochastic Order (:class:`~ranger_eval.verdicts.aso.ASOAnalysis`, ``ranger-eval aso``)
and Bayesian correlated t-tests (:class:`~ranger_eval.verdicts.bayes.BayesAnalysis`,
``ranger-eval bayes``) as Markdown, LaTeX, plain CSV and JSON: the numbers of the results and
their verdicts in words, never recomputed.

The sentences (:func:`aso_group_lines`, :func:`bayes_group_lines`) are shared with the HTML report
(:mod:`ranger_eval.report.html`), which writes them from the JSON these functions write.
"""
from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from typing import Any

import pandas as pd

from ..formatting import format_probability
from ..verdicts.aso import ASOAnalysis, format_epsilon
from ..verdicts.bayes import BayesAnalysis
from .registry import to_csv, to_json, to_latex, to_markdown
from .tables import jsonable, latex_escape, latex_table, plain_csv

__all__ = ["BAYES_TITLES", "aso_caption", "aso_group_lines", "bayes_caption", "bayes_group_lines",
           "bayes_headers", "figure_names", "figure_suffix"]


def _pct(level: float) -> str:
    return f"{level * 100:.4g} %"


def figure_suffix(parts: Sequence[str], i: int) -> str:
    """The file-name-safe suffix of a figure of one group (``adult_score_logreg_svm``), which the
    HTML report maps back to its name (``figure_names``); ``i`` when nothing is left."""
    return re.sub(r"[^A-Za-z0-9._]+", "_", "-".join(parts)).strip("_") or str(i)


def figure_names(result: Mapping[str, Any], kind: str) -> dict[str, str]:
    """Figure suffix → readable name (``adult · score: logreg vs svm``) of the figures of an
    ``aso`` or ``bayes`` result's JSON, for the HTML report's headings."""
    out = {}
    keys: list[tuple[str, ...]]
    if kind == "aso":
        keys = [(str(g["dataset"]), str(g["metric"])) for g in result["groups"]]
        names = [f"{k[0]} · {k[1]}" for k in keys]
    else:
        keys = [(str(g["dataset"]), str(g["metric"]), str(p["a"]), str(p["b"]))
                for g in result["groups"] for p in g["pairs"]]
        names = [f"{k[0]} · {k[1]}: {k[2]} vs {k[3]}" for k in keys]
    for i, (key, name) in enumerate(zip(keys, names, strict=True)):
        out[figure_suffix(key, i)] = name
    return out


def _result_json(result: Any) -> str:
    """``{"result": result.to_dict(), "signature": …}`` as JSON (numpy scalars as numbers,
    non-finite floats as null, as the HTML report embeds its data)."""
    return json.dumps({"result": jsonable(result.to_dict()), "signature": str(result.signature)},
                      indent=2, allow_nan=False, ensure_ascii=False) + "\n"


def _prob(p: float) -> str:
    """A posterior probability with three decimals, never rounded to a false 0 or 1."""
    return format_probability(p, 3).removeprefix("= ")


def _md(text: object) -> str:
    return str(text).replace("|", "\\|")


# ------------------------------------------------------------------------------------ ASO
def aso_group_lines(group: Mapping[str, Any], *, base_level: float, correction: str,
                    threshold: float) -> tuple[str, list[str]]:
    """(the level sentence, the verdicts) of one group of an ASO result's JSON
    (``ASOAnalysis.to_dict()["groups"][i]``)."""
    k = len(group["systems"])
    pairs = k * (k - 1) // 2
    level = float(group["level"])
    if correction == "bonferroni" and pairs > 1:
        how = (f"each bound at the {_pct(level)} level: {_pct(base_level)} with Bonferroni's "
               f"correction for the {pairs} pairs of {k} systems")
    elif correction == "deepsig" and pairs > 1:
        how = (f"each bound at the {_pct(level)} level: deepsig's multi_aso rule {_pct(base_level)}"
               f" + {_pct(1 - base_level)}/{pairs} for the {pairs} pair{'s' if pairs > 1 else ''}"
               f" of {k} systems (not Bonferroni's {_pct(1 - (1 - base_level) / pairs)})")
    else:
        how = f"each bound at the {_pct(level)} level" + (
            " (no multiplicity correction)" if pairs > 1 else "")
    return how, [str(v) for v in group["verdicts"]]


def aso_caption(result: Any) -> str:
    """How the ε_min were made, in one paragraph."""
    direction = "" if result.higher_is_better else \
        " Lower scores are better: the scores were negated first."
    skipped = (f" Left out (fewer than two systems): {'; '.join(result.skipped)}."
               if result.skipped else "")
    return (
        "Almost Stochastic Order (del Barrio, Cuesta-Albertos & Matrán 2018; Dror, Shlomov & "
        "Reichart 2019) of the score distributions over runs (seeds), as deepsig's multi_aso: "
        "ε_min is the upper confidence bound of the violation ratio ε_W2 of the row system over "
        "the column system (the share of the squared Wasserstein-2 distance between their "
        "quantile functions where the column is above the row), from "
        f"{result.n_resamples} bootstrap resamples (seed {result.seed}); the row almost "
        f"stochastically dominates the column when ε_min < τ = {result.threshold:g}. "
        f"Confidence level {_pct(result.level)}"
        + {"bonferroni": ", Bonferroni-corrected for the pairs of each dataset × metric (not "
                          "across datasets or metrics)",
           "deepsig": ", raised for the pairs of each dataset × metric by deepsig's multi_aso "
                      "rule level + (1 − level)/K (not Bonferroni's 1 − (1 − level)/K)",
           }.get(result.correction, ", no multiplicity correction")
        + f"; the diagonal is 1, as deepsig's.{direction}{skipped}")


def _aso_markdown(result: Any) -> str:
    """Per dataset × metric: the verdicts in words, the ε_min matrix; the caption and the
    signature."""
    data = result.to_dict()
    lines = ["# Almost Stochastic Order", ""]
    for g in data["groups"]:
        how, verdicts = aso_group_lines(g, base_level=result.level,
                                        correction=result.correction,
                                        threshold=result.threshold)
        names = g["systems"]
        lines += [f"## {_md(g['dataset'])} · {_md(g['metric'])}", ""]
        lines += [f"- {_md(v)}" for v in verdicts]
        lines += ["", f"ε_min of the row over the column, {how}.", "",
                  "| ε_min | " + " | ".join(_md(n) for n in names) + " |",
                  "|---|" + "---:|" * len(names)]
        for i, name in enumerate(names):
            cells = ["–" if i == j else format_epsilon(v, result.threshold, 3)
                     for j, v in enumerate(g["epsilon_min"][i])]
            lines.append(f"| {_md(name)} ({g['n_scores'][name]} runs) | " + " | ".join(cells)
                         + " |")
        lines.append("")
    lines += [aso_caption(result), "", f"`{result.signature}`", ""]
    return "\n".join(lines)


def _aso_csv(result: Any) -> str:
    """One row per ordered pair of every dataset × metric (``ASOAnalysis.to_frame``)."""
    return plain_csv(pd.DataFrame(result.to_frame()))


def _aso_latex(result: Any) -> str:
    """Every ε_min matrix as one booktabs table (rows: dataset · metric · system)."""
    data = result.to_dict()
    names = list(dict.fromkeys(n for g in data["groups"] for n in g["systems"]))
    rows = []
    for g in data["groups"]:
        pos = {n: i for i, n in enumerate(g["systems"])}
        for i, name in enumerate(g["systems"]):
            cells = []
            for other in names:
                j = pos.get(other)
                cells.append("" if j is None else "--" if i == j
                             else format_epsilon(g["epsilon_min"][i][j], result.threshold, 3))
            rows.append([latex_escape(g["dataset"]), latex_escape(g["metric"]),
                         latex_escape(name), *cells])
    return latex_table(["Dataset", "Metric", "System", *(latex_escape(n) for n in names)],
                       rows, "lll" + "r" * len(names), caption=latex_escape(aso_caption(result)),
                       label="tab:aso", signature=str(result.signature))


def _aso_json(result: Any) -> str:
    """The full result (``ASOAnalysis.to_dict``) as JSON."""
    return _result_json(result)


# ------------------------------------------------------------------------------------ Bayes
def bayes_group_lines(group: Mapping[str, Any]) -> list[str]:
    """The verdicts of one dataset × metric of a Bayesian result's JSON."""
    return [str(p["verdict"]) for p in group["pairs"]]


#: The title of each Bayesian test in the reports.
BAYES_TITLES = {"correlated-t": "Bayesian correlated t-test",
                "signed-rank": "Bayesian signed-rank test", "sign": "Bayesian sign test"}


def bayes_caption(result: Any) -> str:
    """How the posteriors were made, in one paragraph."""
    rope = (f"ROPE ±{result.rope:g} (differences within it are practically equivalent)"
            if result.rope > 0 else "no ROPE (rope = 0: only the two directions)")
    direction = "higher" if result.higher_is_better else "lower"
    verdict = (f"{direction} scores are better. A verdict needs a posterior probability of at "
               f"least {result.level:g}; otherwise it is inconclusive. No multiplicity "
               "correction (posterior probabilities are not p-values).")
    if result.test != "correlated-t":
        how = ("Bayesian signed-rank test (Benavoli et al. 2014; baycomp's SignedRankTest): a "
               f"Dirichlet process with prior strength {result.prior:g} on the pseudo-"
               "observation 0 over the per-dataset differences" if result.test == "signed-rank"
               else "Bayesian sign test (baycomp's SignTest): θ ~ Dirichlet(datasets below, "
               f"within and above the ROPE, + {result.prior:g} on the ROPE)")
        return (f"{how}, of every pair of systems across datasets (one score per dataset; a "
                "pair on the datasets where both have one); each probability is the share of "
                f"{result.n_draws:,} posterior draws (seed {result.seed}) in which that outcome "
                "is the most probable, with its Monte-Carlo standard error √(p(1 − p)/draws) "
                f"(MC s.e.); {rope}; {verdict}")
    runs = ("runs = the seeds (each seed one repetition)" if result.from_seeds
            else f"{result.runs or 1} run{'s' if (result.runs or 1) > 1 else ''}")
    return (
        "Bayesian correlated t-test (Corani & Benavoli 2015; baycomp's two_on_single) of every "
        "pair of systems on the folds of (repeated) cross-validation: the items are the folds, "
        f"matched by id, repeated over {runs}; the posterior of the mean difference is a "
        "Student t with n − 1 degrees of freedom, location the mean difference and scale "
        "√(s² (1/n + 1/(k − 1))) (Nadeau–Bengio correction for the overlap of the training "
        f"sets, k folds per run); {rope}; {verdict}")


def _pair_cells(p: Mapping[str, Any], test: str) -> list[str]:
    """The cells of one pair after A and B (the t-test's posterior, or the datasets and the
    Monte-Carlo error), then the three probabilities."""
    probs = [_prob(p["p_left"]), _prob(p["p_rope"]), _prob(p["p_right"])]
    if test == "correlated-t":
        return [f"{p['mean']:.4g}", f"{p['scale']:.3g}", f"{p['df']:g}", *probs,
                f"{p['n'] // p['runs']} × {p['runs']}"]
    return [str(p["n"]), *probs, f"{max(p['mc_se']):.2g}"]


def bayes_headers(test: str) -> list[str]:
    """The column names after A and B of the Markdown, LaTeX and HTML tables of a test."""
    probs = ["P(A better)", "P(rope)", "P(B better)"]
    if test == "correlated-t":
        return ["mean B − A", "scale", "df", *probs, "folds × runs"]
    return ["datasets", *probs, "MC s.e."]


def _bayes_markdown(result: Any) -> str:
    """Per dataset × metric (across datasets: per metric): the verdicts, the table of posterior
    probabilities; the caption and the signature."""
    data = result.to_dict()
    lines = [f"# {BAYES_TITLES[result.test]}", ""]
    heads = bayes_headers(result.test)
    for g in data["groups"]:
        lines += [f"## {_md(g['dataset'])} · {_md(g['metric'])}", ""]
        lines += [f"- {_md(v)}" for v in bayes_group_lines(g)]
        lines += ["", "| A | B | " + " | ".join(heads) + " |", "|---|---|" + "---:|" * len(heads)]
        lines += ["| " + " | ".join([_md(p["a"]), _md(p["b"]), *_pair_cells(p, result.test)])
                  + " |" for p in g["pairs"]]
        lines.append("")
    lines += [bayes_caption(result), "", f"`{result.signature}`", ""]
    return "\n".join(lines)


def _bayes_csv(result: Any) -> str:
    """One row per pair of every dataset × metric (``BayesAnalysis.to_frame``)."""
    return plain_csv(pd.DataFrame(result.to_frame()))


def _bayes_latex(result: Any) -> str:
    """The posterior probabilities of every pair as one booktabs table."""
    data = result.to_dict()
    heads = [latex_escape(h).replace("B − A", "B $-$ A") for h in bayes_headers(result.test)]
    rows = [[latex_escape(g["dataset"]), latex_escape(g["metric"]), latex_escape(p["a"]),
             latex_escape(p["b"]), *(latex_escape(c) for c in _pair_cells(p, result.test))]
            for g in data["groups"] for p in g["pairs"]]
    return latex_table(["Dataset", "Metric", "A", "B", *heads], rows, "llll" + "r" * len(heads),
                       caption=latex_escape(bayes_caption(result)), label="tab:bayes",
                       signature=str(result.signature))


def _bayes_json(result: Any) -> str:
    """The full result (``BayesAnalysis.to_dict``) as JSON."""
    return _result_json(result)



to_markdown.register(ASOAnalysis)(_aso_markdown)
to_latex.register(ASOAnalysis)(_aso_latex)
to_csv.register(ASOAnalysis)(_aso_csv)
to_json.register(ASOAnalysis)(_aso_json)
to_markdown.register(BayesAnalysis)(_bayes_markdown)
to_latex.register(BayesAnalysis)(_bayes_latex)
to_csv.register(BayesAnalysis)(_bayes_csv)
to_json.register(BayesAnalysis)(_bayes_json)
