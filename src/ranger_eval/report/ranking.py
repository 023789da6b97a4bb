"""Tables of rankings: a :class:`~ranger_eval.aggregate.ranking.Ranking` (IBM post-op ranking)
and a :class:`~ranger_eval.aggregate.ranktests.RankTest` (Demšar's multi-dataset rank test), and
a :class:`~ranger_eval.aggregate.winrate.WinRate` (HELM's mean win rate, the leader in words).

Registered with :func:`ranger_eval.report.to_markdown`, ``to_latex`` and ``to_csv``; JSON is
``result.to_dict()`` (full precision). Every table carries the result's signature.
"""
from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from ..aggregate.bayesrank import BayesianRankTest
from ..aggregate.ranking import Ranking
from ..aggregate.ranktests import RankTest
from ..aggregate.winrate import WinRate
from ..formatting import format_pvalue
from .registry import to_csv, to_json, to_latex, to_markdown
from .tables import _md_escape, jsonable, latex_escape, latex_table, plain_csv

__all__ = ["RankParts", "rank_parts", "rank_test_markdown", "ranking_markdown",
           "rank_test_latex", "ranking_latex"]


def _md_table(frame: pd.DataFrame, align: list[str]) -> list[str]:
    lines = ["| " + " | ".join(map(str, frame.columns)) + " |", "|" + "|".join(align) + "|"]
    for row in frame.itertuples(index=False):
        lines.append("| " + " | ".join(_md_escape(str(v)) for v in row) + " |")
    return lines


def _latex_table(frame: pd.DataFrame, spec: str, caption: str, signature: str,
                 label: str) -> str:
    return latex_table([latex_escape(c) for c in frame.columns],
                       [[latex_escape(v) for v in row] for row in frame.itertuples(index=False)],
                       spec, caption=latex_escape(caption), label=label, signature=signature)


# --------------------------------------------------------------------------- RankTest
def _rank_test_rows(res: RankTest, naive: pd.Series | None = None) -> pd.DataFrame:
    f = res.to_frame()
    groups = {s: ",".join(str(i + 1) for i, c in enumerate(res.cliques) if s in c)
              for s in f["system"]}
    out = pd.DataFrame({
        "rank": f["rank"], "system": f["system"],
        "average rank": [f"{v:.3f}" for v in f["average_rank"]],
        "groups": [groups[s] or "–" for s in f["system"]],
    })
    if naive is not None:
        n = naive.reindex(list(f["system"])).astype(float)
        out["naive mean"] = [f"{v:.4f}" for v in n]
        out["naive rank"] = [f"{v:.0f}" for v in
                             n.rank(ascending=not res.higher_is_better, method="min")]
    return out


def _rank_test_caption(res: RankTest) -> str:
    cd = (f"; CD = {res.critical_difference:.3f} ({res.posthoc}, α = {res.alpha:g})"
          if res.critical_difference is not None else f"; post-hoc {res.posthoc}")
    if getattr(res, "test", "friedman") == "skillings-mack":
        return skillings_mack_sentence(res) + cd + (
            ". Groups: systems sharing a number are not significantly different.")
    return (f"Average ranks of {res.n_systems} systems over {res.n_datasets} datasets (1 = best). "
            f"Friedman χ²_F {'(tie-corrected)' if res.tie_correction else '(Demšar, no tie correction)'}"
            f" = {res.statistic:.3f}, {format_pvalue(res.pvalue, 3, prefix='p = ')}; "
            f"Iman–Davenport F_F = {res.iman_davenport:.3f}, "
            f"{format_pvalue(res.iman_davenport_pvalue, 3, prefix='p = ')}{cd}. "
            "Groups: systems sharing a number are not significantly different.")


def skillings_mack_sentence(res: RankTest) -> str:
    """The rank test with missing cells in words: "Skillings–Mack test, 3 of 60 cells missing
    (…): T = …, p = …", with the dropped datasets and how average ranks and pairs are read."""
    dropped = res.dropped_datasets
    drop = (f"; {len(dropped)} dataset{'s' if len(dropped) != 1 else ''} with fewer than two "
            f"results dropped ({', '.join(dropped[:3])}{', …' if len(dropped) > 3 else ''})"
            if dropped else "")
    tie = "tie-corrected" if res.tie_correction else "untied, as R Ski.Mack"
    pairs = ("pairs by Wilcoxon tests on the datasets both systems share"
             if res.posthoc == "wilcoxon" else "pairs by the Skillings–Mack contrasts")
    return (f"Skillings–Mack test, {res.n_missing} of {res.n_cells} cells missing{drop}: "
            f"T = {res.statistic:.3f} ({tie}, χ² with {res.statistic_df:g} df), "
            f"{format_pvalue(res.pvalue, 3, prefix='p = ')}. Average ranks of {res.n_systems} "
            f"systems over the {res.n_datasets} datasets where each has a result (ranks rescaled "
            f"to 1..k; 1 = best); {pairs}, no single critical difference")


def rank_test_markdown(res: RankTest, naive: pd.Series | None = None) -> str:
    """Markdown: one row per system (position, average rank, groups; with ``naive`` also the
    plain mean over datasets and the rank it gives), the test line, the signature.

    Parameters
    ----------
    res : RankTest
        The result of :func:`ranger_eval.rank_test`.
    naive : pandas.Series, optional
        Each system's plain mean over the datasets (e.g. ``table.mean()``), shown beside the
        average rank with the rank it would give.

    Returns
    -------
    str
        The table, the caption with the test's numbers, the signature line.

    Examples
    --------
    >>> import pandas as pd
    >>> import ranger_eval as rg
    >>> from ranger_eval.report.ranking import rank_test_markdown
    >>> table = pd.DataFrame({"A": [.81, .72, .65, .90, .77, .70],
    ...                       "B": [.79, .70, .66, .85, .74, .69],
    ...                       "C": [.70, .65, .60, .80, .70, .61]}, index=list("pqrstu"))
    >>> result = rg.rank_test(table)
    >>> print("\\n".join(rank_test_markdown(result, table.mean()).splitlines()[:5]))
    | rank | system | average rank | groups | naive mean | naive rank |
    |---:|---|---:|---|---:|---:|
    | 1 | A | 1.167 | 1 | 0.7583 | 1 |
    | 2 | B | 1.833 | 1,2 | 0.7383 | 2 |
    | 3 | C | 3.000 | 2 | 0.6767 | 3 |
    """
    rows = _rank_test_rows(res, naive)
    lines = _md_table(rows, ["---:", "---", "---:", "---"] + ["---:"] * (rows.shape[1] - 4))
    caption = _rank_test_caption(res)
    if naive is not None:
        caption += " Naive: the mean value over datasets, as a leaderboard would average it."
    lines += ["", caption, "", f"`{res.signature}`", ""]
    return "\n".join(lines)


def rank_test_latex(res: RankTest, naive: pd.Series | None = None, *,
                    label: str = "tab:ranger-ranktest") -> str:
    """Booktabs table of :func:`rank_test_markdown`'s rows, caption, ``label``, signature.

    Parameters
    ----------
    res : RankTest
        The result of :func:`ranger_eval.rank_test`.
    naive : pandas.Series, optional
        Each system's plain mean over the datasets (e.g. ``table.mean()``), shown beside the
        average rank with the rank it would give.
    label : str, default "tab:ranger-ranktest"
        The table's ``\\label``.

    Returns
    -------
    str
        A ``table`` environment (needs ``booktabs`` and ``graphicx``).

    Examples
    --------
    >>> import pandas as pd
    >>> import ranger_eval as rg
    >>> from ranger_eval.report.ranking import rank_test_latex
    >>> table = pd.DataFrame({"A": [.81, .72, .65, .90, .77, .70],
    ...                       "B": [.79, .70, .66, .85, .74, .69],
    ...                       "C": [.70, .65, .60, .80, .70, .61]}, index=list("pqrstu"))
    >>> result = rg.rank_test(table)
    >>> lines = rank_test_latex(result, label="tab:ranks").splitlines()
    >>> print(lines[4])
    \\label{tab:ranks}
    >>> print(lines[11])
    2 & B & 1.833 & 1,2 \\\\
    """
    rows = _rank_test_rows(res, naive)
    return _latex_table(rows, "rlrl" + "r" * (rows.shape[1] - 4), _rank_test_caption(res),
                        str(res.signature), label)


def _rank_test_csv(res: RankTest, path: str | Path | None = None) -> str:
    return plain_csv(res.to_frame(), path)


# --------------------------------------------------------------------------- BayesianRankTest
def _bayes_rank_rows(res: BayesianRankTest, naive: pd.Series | None = None) -> pd.DataFrame:
    f = res.to_frame()
    spread = "sd" if res.central_kind == "mean" else "mad"
    groups = {s: ",".join(str(i + 1) for i, c in enumerate(res.cliques) if s in c)
              for s in f["system"]}
    first = res.systems[0]
    out = pd.DataFrame({
        "rank": f["rank"], "system": f["system"],
        res.central_kind: [f"{v:.4f}" for v in f[res.central_kind]],
        spread.upper(): [f"{v:.4f}" for v in f[spread]],
        "average rank": [f"{v:.3f}" for v in f["average_rank"]],
        f"vs {first}": ["–" if s == first else res.decisions.loc[first, s]
                        for s in f["system"]],
        "groups": [groups[s] or "–" for s in f["system"]],
    })
    if naive is not None:
        out["naive mean"] = [f"{v:.4f}" for v in naive.reindex(list(f["system"])).astype(float)]
    return out


def _bayes_rank_caption(res: BayesianRankTest) -> str:
    kinds = {"equivalent": "practically equivalent", "undecided": "no decided difference"}
    groups = "; ".join(f"group {i + 1}: {kinds[k]}" for i, k in enumerate(res.clique_kinds))
    return (f"Bayesian signed-rank test of every pair of {res.n_systems} systems over "
            f"{res.n_datasets} datasets (Benavoli et al. 2017; autorank's decisions), "
            f"{res.describe_rope()}, Dirichlet prior {res.prior:g}, {res.n_draws:,} posterior "
            f"draws (seed {res.seed}). A pair is decided when a posterior probability reaches "
            f"{res.level:g}: better, practically equivalent, or worse; otherwise inconclusive. "
            f"Systems ordered by their {res.central_kind} ("
            + ("all" if res.all_normal else "not all")
            + f" normal by Shapiro–Wilk at α/k = {res.alpha / res.n_systems:.3g}). "
            "Groups join systems, in average-rank order, with no decided difference"
            + (f" ({groups})." if groups else "; there are none."))


def _bayes_rank_markdown(res: BayesianRankTest, naive: pd.Series | None = None) -> str:
    """Markdown: one row per system (central tendency, spread, average rank, the decision of
    the first system against it, groups), what was done, every pair's verdict in words, the
    signature."""
    rows = _bayes_rank_rows(res, naive)
    lines = _md_table(rows, ["---:", "---", "---:", "---:", "---:", "---", "---"]
                      + ["---:"] * (rows.shape[1] - 7))
    caption = _bayes_rank_caption(res)
    if naive is not None:
        caption += " Naive: the mean value over datasets, as a leaderboard would average it."
    lines += ["", caption, "", "Verdicts:", ""]
    lines += [f"- {_md_escape(v)}" for v in res.verdicts()]
    lines += ["", f"`{res.signature}`", ""]
    return "\n".join(lines)


def _bayes_rank_latex(res: BayesianRankTest, naive: pd.Series | None = None, *,
                     label: str = "tab:ranger-ranktest") -> str:
    """Booktabs table of the systems' rows; the caption says the method and the first system's
    verdict against every other; ``label``; signature."""
    rows = _bayes_rank_rows(res, naive)
    first = res.systems[0]
    said = " ".join(f"{res.verdict(first, s)}." for s in res.systems[1:])
    return _latex_table(rows, "rlrrrll" + "r" * (rows.shape[1] - 7),
                        f"{_bayes_rank_caption(res)} {said}", str(res.signature), label)


def _bayes_rank_csv(res: BayesianRankTest, path: str | Path | None = None) -> str:
    return plain_csv(res.to_frame(), path)


# --------------------------------------------------------------------------- Ranking
def _ranking_rows(r: Ranking) -> pd.DataFrame:
    f = r.to_frame()
    return pd.DataFrame({
        "rank": f["rank"], "system": f["system"],
        r.mean_kind: [f"{v:.4f}" for v in f["aggregate_mean"]],
        "groups": f["groups"].replace("", "–"),
        "naive mean": [f"{v:.4f}" for v in f["naive_mean"]],
        "naive rank": [f"{v:.0f}" for v in f["naive_rank"]],
        "TOPSIS": [f"{v:.3f}" if v == v else "–" for v in f["topsis"]],
    })


def _ranking_caption(r: Ranking) -> str:
    n_sig = int(r.pairwise["significant"].sum())
    return (f"Systems ranked over {len(r.datasets)} dataset(s) × {len(r.metrics)} metric(s) by "
            f"{r.mean_kind}; {r.comparisons} comparisons, {n_sig} of {len(r.pairwise)} significant "
            f"({r.correction}, α = {r.alpha:g}). Groups: systems sharing a number are not "
            "significantly different. Naive: mean of the per-dataset metric means. TOPSIS: "
            "closeness over the dataset × metric means"
            + (f"; Kendall's τ with the ranking = {r.topsis_tau:.3f}." if r.topsis_tau == r.topsis_tau
               else "."))


def ranking_markdown(r: Ranking) -> str:
    """Markdown: one row per system (rank, score, groups, naive mean and rank, TOPSIS), the
    caption, the table of pairwise tests, the signature.

    Parameters
    ----------
    r : Ranking
        The result of :func:`ranger_eval.rank_systems`.

    Returns
    -------
    str
        The Markdown text.

    Examples
    --------
    >>> import pandas as pd
    >>> import ranger_eval as rg
    >>> from ranger_eval.report.ranking import ranking_markdown
    >>> values = [.8, .6, .9, .5, .7, .7, .6, .8, .7, .6, .8, .5, .6, .7, .5, .7,
    ...           .5, .4, .6, .3, .5, .6, .4, .5]
    >>> df = pd.DataFrame({"dataset": ["d1"] * 24 + ["d2"] * 24, "metric": "acc",
    ...                    "item": list(range(8)) * 6,
    ...                    "system": (["A"] * 8 + ["B"] * 8 + ["C"] * 8) * 2, "value": values * 2})
    >>> ranking = rg.rank_systems(df, test="paired-t")
    >>> print("\\n".join(ranking_markdown(ranking).splitlines()[:5]))
    | rank | system | standardized mean | groups | naive mean | naive rank | TOPSIS |
    |---:|---|---:|---|---:|---:|---:|
    | 1 | A | 1.3707 | 1 | 0.7000 | 1 | 1.000 |
    | 2 | B | 0.4768 | 2 | 0.6375 | 2 | 0.722 |
    | 3 | C | -1.8474 | 3 | 0.4750 | 3 | 0.000 |
    """
    lines = _md_table(_ranking_rows(r), ["---:", "---", "---:", "---", "---:", "---:", "---:"])
    pw = r.pairwise.assign(
        pvalue_adjusted=[format_pvalue(p, 3) for p in r.pairwise["pvalue_adjusted"]],
        diff=[f"{d:.4f}" for d in r.pairwise["diff"]],
        effect_size=[f"{e:.3f}" for e in r.pairwise["effect_size"]],
    )[["a", "b", "diff", "effect_size", "pvalue_adjusted", "significant", "test"]]
    lines += ["", _ranking_caption(r), "", *_md_table(pw, ["---"] * 7),
              "", f"`{r.signature}`", ""]
    return "\n".join(lines)


def ranking_latex(r: Ranking, *, label: str = "tab:ranger-ranking") -> str:
    """Booktabs table of the ranking rows, caption, ``label``, signature footnote.

    Parameters
    ----------
    r : Ranking
        The result of :func:`ranger_eval.rank_systems`.
    label : str, default "tab:ranger-ranking"
        The table's ``\\label``.

    Returns
    -------
    str
        A ``table`` environment (needs ``booktabs`` and ``graphicx``).

    Examples
    --------
    >>> import pandas as pd
    >>> import ranger_eval as rg
    >>> from ranger_eval.report.ranking import ranking_latex
    >>> values = [.8, .6, .9, .5, .7, .7, .6, .8, .7, .6, .8, .5, .6, .7, .5, .7,
    ...           .5, .4, .6, .3, .5, .6, .4, .5]
    >>> df = pd.DataFrame({"dataset": ["d1"] * 24 + ["d2"] * 24, "metric": "acc",
    ...                    "item": list(range(8)) * 6,
    ...                    "system": (["A"] * 8 + ["B"] * 8 + ["C"] * 8) * 2, "value": values * 2})
    >>> ranking = rg.rank_systems(df, test="paired-t")
    >>> lines = ranking_latex(ranking).splitlines()
    >>> print(lines[4])
    \\label{tab:ranger-ranking}
    >>> print(lines[10])
    1 & A & 1.3707 & 1 & 0.7000 & 1 & 1.000 \\\\
    """
    return _latex_table(_ranking_rows(r), "rlrlrrr", _ranking_caption(r), str(r.signature),
                        label)


def _ranking_csv(r: Ranking, path: str | Path | None = None) -> str:
    return plain_csv(r.to_frame(), path)


# --------------------------------------------------------------------------- WinRate
def _num(v: float, digits: int = 3) -> str:
    return "–" if v != v else f"{v:.{digits}f}"


def _win_rate_rows(w: WinRate) -> pd.DataFrame:
    f = w.to_frame()
    pct = f"{w.level * 100:g} % interval"
    return pd.DataFrame({
        "system": f["system"],
        "win rate": [_num(v) for v in f["win_rate"]],
        pct: [f"{_num(lo)}–{_num(hi)}" if lo == lo else "–"
              for lo, hi in zip(f["ci_low"], f["ci_high"], strict=True)],
        "datasets": f["n_datasets"],
    })


def percent_digits(*values: float) -> int:
    """Decimals (0–3) for shares (0–1) written in %: two significant digits of their spread
    (``⌈−log10(spread in %)⌉ + 1``), more while distinct shares would print alike."""
    finite = sorted({float(v) for v in values if v == v})
    spread = (finite[-1] - finite[0]) * 100 if finite else 0.0
    digits = min(3, max(0, math.ceil(-math.log10(spread)) + 1)) if spread > 0 else 0
    while digits < 3 and len({round(v * 100, digits) for v in finite}) < len(finite):
        digits += 1
    return digits


def win_rate_sentence(system: str, win: float, low: float, high: float, level: float,
                      n_datasets: int, *, share: bool = False) -> str:
    """HELM's mean win rate in words: "A beats 83 % of the other systems on average over 12
    datasets (95 % interval 71–92 %)" (``share``: "A and B each beat …")."""
    d = percent_digits(win, low, high)
    text = (f"{system} {'each beat' if share else 'beats'} {win * 100:.{d}f} % of the other "
            f"systems on average over {n_datasets} dataset{'s' if n_datasets != 1 else ''}")
    if low == low and high == high:
        text += f" ({level * 100:g} % interval {low * 100:.{d}f}–{high * 100:.{d}f} %)"
    return text


def _win_rate_units(resample: str) -> str:
    """The unit of a win rate's second bootstrap stage in words: ``items`` or ``clusters
    (passage)`` (``datasets+cluster(passage)``, the design's unit)."""
    unit = resample.partition("+")[2]
    return f"clusters ({unit[len('cluster('):-1]})" if unit.startswith("cluster(") else unit


def _win_rate_resample_words(resample: str) -> str:
    """What a win rate's bootstrap draws, in words (its ``resample`` field)."""
    if not resample.startswith("datasets+"):
        return "datasets"
    units = _win_rate_units(resample)
    whole = "whole " if units.startswith("clusters") else ""
    return f"datasets, and the {whole}{units} within each drawn dataset"


def _win_rate_caption(w: WinRate) -> str:
    """The result in words: the leader with its interval, what a win rate is, the bootstrap,
    what is missing."""
    best = float(w.win_rate.iloc[0])
    tops = [str(s) for s, v in w.win_rate.items() if v == best]
    n = len(w.per_dataset)
    who = tops[0] if len(tops) == 1 else f"{', '.join(tops[:-1])} and {tops[-1]}"
    text = (win_rate_sentence(who, best, float(w.ci_low.iloc[0]), float(w.ci_high.iloc[0]),
                              w.level, int(w.n_datasets.iloc[0]), share=len(tops) > 1)
            + f": the highest mean win rate, {_num(best)}. Mean win rate over {n} dataset(s) "
            "(HELM): on each dataset the share of the other systems a system beats, a tie "
            "counting half, averaged over the datasets where it has a score.")
    if w.n_resamples:
        what = _win_rate_resample_words(w.resample)
        text += (f" Percentile bootstrap over {what} ({w.n_resamples} resamples, seed "
                 f"{w.seed}).")
    if w.outside and w.resample.startswith("datasets+"):
        units = _win_rate_units(w.resample)
        text += (f" The win rate of {', '.join(w.outside)} lies outside its interval: "
                 f"resampling the {units} moves each dataset's win toward a tie (few {units} per "
                 f"dataset), so the interval is the win rate expected when the {units} are drawn "
                 "again.")
    if w.n_missing:
        text += f" {w.n_missing} (dataset, system) cell(s) missing, left out as HELM does."
    if w.skipped:
        text += (f" Skipped (fewer than two scores): {', '.join(w.skipped[:10])}"
                 f"{' …' if len(w.skipped) > 10 else ''}.")
    return text


def _win_rate_markdown(w: WinRate) -> str:
    """Markdown: one row per system (win rate, interval, datasets counted), the result in
    words, the signature."""
    lines = _md_table(_win_rate_rows(w), ["---", "---:", "---:", "---:"])
    lines += ["", _win_rate_caption(w), "", f"`{w.signature}`", ""]
    return "\n".join(lines)


def _win_rate_latex(w: WinRate, *, label: str = "tab:ranger-winrate") -> str:
    """Booktabs table of :func:`_win_rate_markdown`'s rows, caption, ``label``, signature."""
    return _latex_table(_win_rate_rows(w), "lrrr", _win_rate_caption(w), str(w.signature),
                        label)


def _win_rate_csv(w: WinRate, path: str | Path | None = None) -> str:
    return plain_csv(w.to_frame(), path)


def _result_json(result: Any) -> str:
    """``{"result": result.to_dict(), "signature": …}`` (NaN as null)."""
    return json.dumps({"result": jsonable(result.to_dict()), "signature": str(result.signature)},
                      indent=2, allow_nan=False) + "\n"


def _ranking_json(r: Ranking) -> str:
    """The ranking alone (``Ranking.to_dict``) as JSON; ``ranking.json`` of ``ranger-eval
    rank`` is :func:`_rank_json` of its rank test with this ranking."""
    return _result_json(r)


def _win_rate_json(w: WinRate) -> str:
    """The win rates (``WinRate.to_dict``) as JSON."""
    return _result_json(w)


@dataclass(frozen=True)
class RankParts:
    """What ``ranking.json`` and ``ranking.md`` share, computed once per run (``Ranking.to_dict``
    alone takes ~0.7 s at a million datasets): the rank test's and the ranking's ``to_dict`` and
    the sentences where their verdicts on a pair seem to disagree."""

    test_dict: dict[str, Any]
    ranking_dict: dict[str, Any] | None
    disagreements: list[str]


def rank_parts(rank_test: RankTest | BayesianRankTest, ranking: Ranking | None) -> RankParts:
    """The :class:`RankParts` of a rank test and its ranking: the disagreements compare the
    ranking's pairwise tests with Nemenyi/CD, or with the Bayesian ROPE decisions (none without
    a ranking).

    Parameters
    ----------
    rank_test : RankTest or BayesianRankTest
        Demšar's rank test (or autorank's Bayesian one) over the datasets.
    ranking : Ranking or None
        The ranking from per-item scores, when there is one.

    Returns
    -------
    RankParts
        The two ``to_dict`` views and the disagreement sentences.

    Examples
    --------
    >>> import pandas as pd
    >>> import ranger_eval as rg
    >>> from ranger_eval.report.ranking import rank_parts
    >>> t = rg.rank_test(pd.DataFrame({"a": [0.9, 0.8, 0.7], "b": [0.5, 0.6, 0.4]}))
    >>> parts = rank_parts(t, None)
    >>> parts.ranking_dict, parts.disagreements, parts.test_dict["posthoc"]
    (None, [], 'nemenyi')
    """
    # imported here: the agreement sentences import ranger_eval.aggregate's package
    from ..aggregate.agreement import bayesian_disagreements, rank_disagreements

    test_dict = rank_test.to_dict()
    ranking_dict = ranking.to_dict() if ranking is not None else None
    disagreements = ([] if ranking_dict is None else
                     bayesian_disagreements(ranking_dict, test_dict)
                     if test_dict.get("approach") == "bayesian"
                     else rank_disagreements(ranking_dict, test_dict))
    return RankParts(test_dict, ranking_dict, disagreements)


def _rank_json(rank_test: RankTest | BayesianRankTest, *, ranking: Ranking | None = None,
               naive: pd.Series | None = None, bradley_terry: Any | None = None,
               win_rates: WinRate | None = None, parts: RankParts | None = None) -> str:
    """``ranking.json`` of ``ranger-eval rank``: ``rank_test`` and ``ranking`` (their
    ``to_dict``), the ``naive_means``, the Bradley–Terry leaderboard (a ``Ratings``, or the
    text of why there is none: ``{"skipped": why}``; left out when None), the ``win_rate``, the
    sentences where the two verdicts on a pair seem to disagree (``disagreements``:
    :func:`rank_parts`; ``parts`` when the caller has them already) and the signature (the
    ranking's, else the rank test's)."""
    from .arena import arena_dict

    if parts is None:
        parts = rank_parts(rank_test, ranking)
    test_dict, ranking_dict, disagreements = (parts.test_dict, parts.ranking_dict,
                                              parts.disagreements)
    main = ranking if ranking is not None else rank_test
    board: dict[str, Any] = {}
    if isinstance(bradley_terry, str):
        board = {"bradley_terry": {"skipped": bradley_terry}}
    elif bradley_terry is not None:
        board = {"bradley_terry": arena_dict(bradley_terry)}
    payload = {"rank_test": test_dict,
               "ranking": ranking_dict,
               "naive_means": None if naive is None else {str(k): float(v)
                                                          for k, v in naive.items()},
               **board,
               **({"win_rate": win_rates.to_dict()} if win_rates is not None else {}),
               **({"disagreements": disagreements} if disagreements else {}),
               "signature": str(main.signature)}
    return json.dumps(payload, indent=2, allow_nan=False) + "\n"


to_json.register(RankTest)(_rank_json)
to_json.register(BayesianRankTest)(_rank_json)
to_json.register(Ranking)(_ranking_json)
to_json.register(WinRate)(_win_rate_json)
to_markdown.register(WinRate)(_win_rate_markdown)
to_latex.register(WinRate)(_win_rate_latex)
to_csv.register(WinRate)(_win_rate_csv)
to_markdown.register(BayesianRankTest)(_bayes_rank_markdown)
to_latex.register(BayesianRankTest)(_bayes_rank_latex)
to_csv.register(BayesianRankTest)(_bayes_rank_csv)
to_markdown.register(RankTest)(rank_test_markdown)
to_latex.register(RankTest)(rank_test_latex)
to_csv.register(RankTest)(_rank_test_csv)
to_markdown.register(Ranking)(ranking_markdown)
to_latex.register(Ranking)(ranking_latex)
to_csv.register(Ranking)(_ranking_csv)
