"""The ranking section (``ranger-eval rank``): ``ranking.json`` (the rank test, the ranking, win
rates, the Bradley–Terry leaderboard, the disagreements) and the tables of ``ranking.csv`` and
``ranktest.csv``.
"""
from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from ...errors import ReportError
from ...formatting import format_level
from .common import (
    _POSTHOC,
    _alpha,
    _Analysis,
    _correction,
    _e,
    _fixed,
    _float,
    _get,
    _names,
    _p,
    _path,
    _plural,
    _read_csv,
    _read_json_object,
)
from .tables import _Cell, _num, _pcell, _table, _text
from .verdicts import _bradley_terry_reading


def _rank(a: _Analysis) -> None:
    path = _path(a, "ranking.json")
    assert path is not None
    payload = _read_json_object(path)
    rt = _get(payload, "rank_test", path, dict)
    ranking = payload.get("ranking")
    if ranking is not None and not isinstance(ranking, dict):
        raise ReportError(f"{path}: \"ranking\" must be an object or null")
    a.data["ranking"] = payload
    w = "rank_test."
    avg = _get(rt, "average_ranks", path, dict, w)
    if not avg:
        raise ReportError(f"{path}: rank_test.average_ranks is empty")
    avg = {str(k): float(v) for k, v in avg.items()}
    alpha = round(1.0 - _float(rt, "level", path, w), 12)
    posthoc = _POSTHOC.get(str(rt.get("posthoc")), str(rt.get("posthoc")))
    cd = rt.get("critical_difference")
    pairwise = rt.get("pairwise") or []
    cliques = [list(map(str, c)) for c in rt.get("cliques") or []]
    n_data = int(_float(rt, "n_datasets", path, w))

    if ranking is not None:
        _ranking_sentences(a, ranking, path)
    bradley_terry = payload.get("bradley_terry")
    # Demšar's rank test
    best = min(avg.values())
    top = [s for s, v in avg.items() if v == best]
    order = sorted(avg, key=lambda s: avg[s])
    bayes = rt.get("approach") == "bayesian"  # rank_test(approach="bayesian"): its verdicts
    if bayes:
        _bayes_rank_sentences(a, rt)
    elif len(avg) == 2 and rt.get("wilcoxon"):
        wx, sg = rt["wilcoxon"], rt.get("sign_test") or {}
        x, y = order
        text = (f"{x} ranks ahead of {y} on average over {_plural(n_data, 'dataset')} "
                f"(average ranks {avg[x]:.2f} and {avg[y]:.2f}); Wilcoxon signed-rank "
                f"{_p(float(wx.get('pvalue') or math.nan))}")
        if sg:
            text += (f", sign test {sg.get('a')} {sg.get('wins')} wins, {sg.get('losses')} "
                     f"losses, {sg.get('ties')} ties, {_p(float(sg.get('pvalue') or math.nan))}")
        a.sentences.append(text + f" (α = {_alpha(alpha)}).")
    else:
        same: set[str] = set()
        tested = False
        for pw in pairwise:
            if not isinstance(pw, dict):
                continue
            x, y = str(pw.get("a")), str(pw.get("b"))
            if top[0] in (x, y):
                tested = True
                if not pw.get("significant"):
                    same.add(y if x == top[0] else x)
        if not tested:
            same = {s for c in cliques if top[0] in c for s in c}
        same -= set(top)
        how = posthoc + (f", CD = {float(cd):.2f}" if isinstance(cd, (int, float)) else "")
        lead = "By average rank over the datasets (Demšar), " if ranking is not None else ""
        lead += (f"{top[0]} ranks first" if len(top) == 1
                 else f"{_names(top)} share the first place")
        lead += f" (average rank {best:.2f})"
        others = [s for s in order if s not in top]
        if same:
            lead += (f" but {'is' if len(top) == 1 else 'are'} not significantly different "
                     f"from {_names([s for s in order if s in same])} ({how}).")
        elif others and (tested or cliques):
            lead += (f" and {'is' if len(top) == 1 else 'are'} significantly better than "
                     f"{'the other system' if len(others) == 1 else f'all {len(others)} others'}"
                     f" ({how}).")
        else:
            lead += "."
        a.sentences.append(lead)
    stat, p = rt.get("statistic"), rt.get("pvalue")
    if isinstance(stat, (int, float)) and isinstance(p, (int, float)) and len(avg) > 2:
        text = (f"Friedman test over {_plural(n_data, 'dataset')} and {len(avg)} systems: "
                f"χ²_F{_ties(rt)} = {float(stat):.2f}, {_p(float(p))}")
        if rt.get("test") == "skillings-mack":  # Friedman with missing cells (Skillings & Mack 1981)
            text = (f"{_skillings_mack(rt)} over {_plural(n_data, 'dataset')} and {len(avg)} "
                    f"systems: T = {float(stat):.2f}, {_p(float(p))}")
        decide = float(p)
        f_, fp, df = rt.get("iman_davenport"), rt.get("iman_davenport_pvalue"), \
            rt.get("iman_davenport_df")
        if isinstance(fp, (int, float)):
            dfs = f"({df[0]:g}, {df[1]:g})" if isinstance(df, list) and len(df) == 2 else ""
            ftext = _fixed(float(f_), 2) if isinstance(f_, (int, float)) else "∞"
            text += f"; Iman–Davenport F_F{dfs} = {ftext}, {_p(float(fp))}"
            decide = float(fp)
        text += (": the average ranks differ significantly" if decide < alpha
                 else ": no significant difference between the average ranks")
        a.sentences.append(text + f" (α = {_alpha(alpha)}).")
    # where the ranking's pairwise tests and the rank test differ, why both hold (written by
    # the pipeline from both results: ranger_eval.aggregate.agreement)
    a.sentences += [str(s) for s in payload.get("disagreements") or [] if isinstance(s, str)]
    naive = payload.get("naive_means")
    if ranking is None and isinstance(naive, dict) and naive:
        hib = rt.get("higher_is_better", True) is not False
        pick = (max if hib else min)(naive, key=lambda s: float(naive[s]))
        a.sentences.append(
            f"The plain mean over datasets would rank {pick} first"
            + (" too." if pick == order[0] else
               " instead (the mean of values on different datasets has no statistical "
               "meaning; the average rank does not depend on their scales).")
        )

    # tables
    if ranking is not None:
        rp = _path(a, "ranking.csv", required=False)
        if rp is not None:
            a.tables.append(_ranking_table(a, rp, str(ranking.get("mean_kind", "mean"))))
        pw = ranking.get("pairwise") or []
        if pw:
            rows = [[_text(r.get("a")), _text(r.get("b")), _num(r.get("diff"), 4),
                     _num(r.get("effect_size"), 3), _pcell(r.get("pvalue_adjusted")),
                     _Cell("<strong>yes</strong>" if r.get("significant") else "no"),
                     _text(r.get("test", ""))] for r in pw if isinstance(r, dict)]
            r_alpha = round(1.0 - float(ranking.get("level", 1.0 - alpha)), 12)
            caption = (f"Pairwise comparisons of the ranking ({_e(ranking.get('comparisons'))}"
                       f"; {_e(_correction(str(ranking.get('correction', ''))))}, "
                       f"α = {_alpha(r_alpha)}).")
            a.tables.append(_table(f"t{a.index}-ranking-pairs", "Ranking: pairwise comparisons",
                                   caption, ["system A", "system B", "diff", "effect size",
                                             "p adj.", "significant", "test"], rows))
    if bayes:
        a.tables.extend(_bayes_rank_tables(a, rt, avg))
    else:
        a.tables.append(_rank_test_table(a, avg, order, cliques, rt, naive if ranking is None
                                         else None, posthoc, cd))
    if pairwise and not bayes:
        rows = [[_text(r.get("a")), _text(r.get("b")), _num(r.get("statistic"), 3),
                 _pcell(r.get("pvalue")), _pcell(r.get("pvalue_adjusted")),
                 _Cell("<strong>yes</strong>" if r.get("significant") else "no")]
                for r in pairwise if isinstance(r, dict)]
        a.tables.append(_table(f"t{a.index}-ranktest-pairs", "Rank test: pairwise post-hoc tests",
                               f"{_e(posthoc)} post-hoc tests of the average ranks "
                               f"(α = {_alpha(alpha)}).",
                               ["system A", "system B", "statistic", "p", "p adj.",
                                "significant"], rows))
    if isinstance(bradley_terry, dict) and "skipped" in bradley_terry:
        a.sentences.append(f"No Bradley–Terry leaderboard: {bradley_terry['skipped']}")
    elif isinstance(bradley_terry, dict):
        _bradley_terry_reading(a, bradley_terry, path, "ranking.json: bradley_terry.",
                               "Bradley–Terry leaderboard")
    win = payload.get("win_rate")
    if isinstance(win, dict):
        _win_rate_reading(a, win, path)


def _win_rate_reading(a: _Analysis, result: Mapping[str, Any], path: Path) -> None:
    """HELM's mean win rates in words and as a table (``WinRate.to_dict`` as ranking.json's
    ``win_rate``): the leader as "A beats 83 % of the other systems on average over 12 datasets
    (95 % interval 71–92 %)", the bootstrap, the systems whose win rate lies outside its
    interval; every number read, none computed."""
    from ..ranking import win_rate_sentence

    where = "ranking.json: win_rate."
    rows = _get(result, "systems", path, list, where)
    if not rows or not all(isinstance(r, dict) for r in rows):
        raise ReportError(f"{path}: {where}systems is empty or not a list of rows")
    level = _float(result, "level", path, where)

    def share(r: Mapping[str, Any], key: str) -> float:
        v = r.get(key)
        return float(v) if isinstance(v, (int, float)) else math.nan

    best = share(rows[0], "win_rate")
    tops = [str(r.get("system")) for r in rows if share(r, "win_rate") == best]
    a.sentences.append(
        "By HELM's mean win rate (on each dataset the share of the other systems beaten, a tie "
        "counting half), " + win_rate_sentence(_names(tops), best, share(rows[0], "ci_low"),
                                             share(rows[0], "ci_high"), level,
                                             int(rows[0].get("n_datasets") or 0),
                                             share=len(tops) > 1) + ".")
    n_boot = int(_float(result, "n_resamples" if "n_resamples" in result else "n_bootstrap",
                        path, where))  # n_bootstrap: the key of files written by 0.x releases
    if n_boot:
        resample = str(result.get("resample") or "datasets")
        unit = resample.partition("+")[2]
        units = f"whole clusters ({unit[len('cluster('):-1]})" if unit.startswith("cluster(") \
            else unit
        what = f"datasets and the {units} within them" if unit else "datasets"
        a.sentences.append(f"Win-rate intervals: percentile bootstrap over {what} "
                           f"({n_boot:,} resamples, seed {result.get('seed')}).")
    outside = [str(s) for s in result.get("outside") or []]
    if outside and str(result.get("resample") or "").startswith("datasets+"):
        drawn = str(result.get("resample")).partition("+")[2]
        drawn = "clusters" if drawn.startswith("cluster(") else drawn
        a.sentences.append(
            f"The win rate of {_names(outside)} lies outside its interval: resampling the "
            f"{drawn} moves each dataset's win toward a tie (few {drawn} per dataset), so the "
            f"interval is the win rate expected when the {drawn} are drawn again.")
    table = []
    for r in rows:
        lo, hi = share(r, "ci_low"), share(r, "ci_high")
        ci = f"{_fixed(lo, 3)}–{_fixed(hi, 3)}" if lo == lo and hi == hi else "–"
        table.append([_text(r.get("system")), _num(r.get("win_rate"), 3),
                      _Cell(_e(ci), r.get("ci_low"), True), _num(r.get("n_datasets"), 0)])
    skipped = int(result.get("n_skipped") or 0)
    caption = (f"Mean win rate (HELM), best first, with its {format_level(level)} percentile "
               "bootstrap interval and the datasets where the system has a score"
               + (f"; {skipped} dataset(s) with fewer than two scores skipped" if skipped
                  else "") + ".")
    a.tables.append(_table(f"t{a.index}-win-rate", "Mean win rates (HELM)", _e(caption),
                           ["system", "win rate", "interval", "datasets"], table))


def _bayes_rank_sentences(a: _Analysis, rt: Mapping[str, Any]) -> None:
    """The Bayesian rank test in words: what was done, then every pair's verdict (the
    sentences the result wrote into ranking.json)."""
    n_data = int(rt.get("n_datasets") or 0)
    rope = float(rt.get("rope") or 0.0)
    scale = {"sd": " × the pooled SD of each pair", "mad": " × the pooled MAD·1.4826 of each "
             "pair"}.get(str(rt.get("rope_scale")), " in the metric's units")
    a.sentences.append(
        f"Bayesian signed-rank test of every pair over {_plural(n_data, 'dataset')} "
        f"(autorank's decisions at probability {float(rt.get('level') or 0.95):g}; ROPE "
        f"±{rope:g}{scale}; {int(rt.get('n_draws', rt.get('n_samples')) or 0):,} posterior draws, seed "
        f"{rt.get('seed')}):")
    for pw in rt.get("pairwise") or []:
        if isinstance(pw, dict) and pw.get("verdict"):
            a.sentences.append(str(pw["verdict"]) + ".")


def _bayes_rank_tables(a: _Analysis, rt: Mapping[str, Any],
                       avg: Mapping[str, float]) -> list[str]:
    """The systems (central tendency, spread, average rank) and the pairs (posterior
    probabilities, ROPE, decision) of a Bayesian rank test."""
    kind = str(rt.get("central_kind", "mean"))
    central, spread = rt.get("central") or {}, rt.get("spread") or {}
    rows = [[_num(i + 1, 0), _text(s), _num(central.get(s), 4), _num(spread.get(s), 4),
             _num(avg.get(s), 3)] for i, s in enumerate(rt.get("systems") or [])]
    systems = _table(f"t{a.index}-ranktest", "Bayesian rank test (autorank)",
                     _e(f"Systems ordered by their {kind}; average ranks over "
                        f"{int(rt.get('n_datasets') or 0)} datasets (1 = best)."),
                     ["position", "system", kind, "SD" if kind == "mean" else "MAD",
                      "average rank"], rows)
    pairs = [[_text(r.get("a")), _text(r.get("b")), _num(r.get("rope"), 4),
              _num(r.get("p_a_better"), 3), _num(r.get("p_rope"), 3),
              _num(r.get("p_b_better"), 3), _text(r.get("decision"))]
             for r in rt.get("pairwise") or [] if isinstance(r, dict)]
    table = _table(f"t{a.index}-ranktest-pairs", "Bayesian rank test: every pair",
                   _e("Posterior probabilities of the Bayesian signed-rank test: A better by "
                      "more than the ROPE, practically equivalent, B better; the decision of A "
                      "against B."),
                   ["system A", "system B", "ROPE ±", "P(A better)", "P(rope)", "P(B better)",
                    "decision"], pairs)
    return [systems, table]


def _ranking_sentences(a: _Analysis, ranking: Mapping[str, Any], path: Path) -> None:
    order = [str(s) for s in _get(ranking, "order", path, list, "ranking.")]
    if not order:
        raise ReportError(f"{path}: ranking.order is empty")
    means = ranking.get("means") or {}
    kind = str(ranking.get("mean_kind", "mean"))
    top = order[0]
    pw = [r for r in ranking.get("pairwise") or [] if isinstance(r, dict)]
    n_sig = sum(1 for r in pw if r.get("significant"))
    datasets, metrics = ranking.get("datasets") or [], ranking.get("metrics") or []
    corr = _correction(str(ranking.get("correction", "")))
    alpha = round(1.0 - float(ranking.get("level", 0.95)), 12)
    value = f" ({_fixed(float(means[top]), 3)})" if top in means else ""
    text = (f"{top} ranks first by {kind}{value} over "
            f"{_plural(len(datasets), 'dataset')} × {_plural(len(metrics), 'metric')}; "
            f"{n_sig} of {_plural(len(pw), 'pairwise comparison')} "
            f"(comparisons: {ranking.get('comparisons', '')}; {corr}, α = {_alpha(float(alpha))}) "
            f"{'is' if n_sig == 1 and len(pw) == 1 else 'are'} significant.")
    a.sentences.append(text)
    ahead = [str(r["b"] if r.get("a") == top else r["a"]) for r in pw
             if top in (r.get("a"), r.get("b")) and r.get("significant")]
    level_with = [str(r["b"] if r.get("a") == top else r["a"]) for r in pw
                  if top in (r.get("a"), r.get("b")) and not r.get("significant")]
    rank_of = {s: i for i, s in enumerate(order)}
    parts = []
    if ahead:
        parts.append(f"significantly ahead of {_names(sorted(ahead, key=lambda s: rank_of.get(s, len(order))))}")
    if level_with:
        parts.append(f"not significantly different from "
                     f"{_names(sorted(level_with, key=lambda s: rank_of.get(s, len(order))))}")
    if parts:
        a.sentences.append(f"{top} is " + "; ".join(parts) + ".")
    rp = a.files.get("ranking.csv")
    if rp is not None and rp.is_file():
        frame = _read_csv(rp)
        if {"system", "naive_rank"} <= set(frame.columns):
            first = [str(s) for s, r in zip(frame["system"], frame["naive_rank"], strict=True)
                     if r == 1]
            if first and first[0] != top:
                a.sentences.append(
                    f"Averaging the raw metric means (the naive mean) would rank {first[0]} first "
                    "instead: a number that mixes the scales of different metrics and datasets.")
            elif first:
                a.sentences.append("The naive mean of the raw metric means agrees on the first "
                                   "place.")
    tau = ranking.get("topsis_kendall_tau")
    if isinstance(tau, (int, float)) and math.isfinite(tau):
        a.sentences.append(f"TOPSIS over the dataset × metric means agrees with the ranking with "
                           f"Kendall's τ = {_fixed(float(tau), 2)}.")


def _ranking_table(a: _Analysis, path: Path, kind: str) -> str:
    frame = _read_csv(path, ["rank", "system"])
    names = {"rank": "rank", "system": "system", "aggregate_mean": kind, "groups": "groups",
             "naive_mean": "naive mean", "naive_rank": "naive rank", "topsis": "TOPSIS"}
    cols = [c for c in frame.columns if c in names] + [c for c in frame.columns
                                                       if c not in names]
    rows = []
    for _, r in frame.iterrows():
        row = []
        for c in cols:
            v = r[c]
            if c in ("rank", "naive_rank"):
                row.append(_num(v, 0))
            elif c == "groups":
                row.append(_text("–" if pd.isna(v) or v == "" else v))
            elif isinstance(v, (int, float)) and not isinstance(v, bool):
                row.append(_num(v, 3 if c == "topsis" else 4))
            else:
                row.append(_text(v))
        rows.append(row)
    caption = ("Systems ranked by their aggregate over datasets and metrics. Groups: systems "
               "sharing a number are not significantly different. Naive: mean of the per-dataset "
               "metric means (for comparison only). TOPSIS: closeness over the dataset × metric "
               "means.")
    return _table(f"t{a.index}-ranking", "Ranking", caption,
                  [names.get(c, c) for c in cols], rows)


def _skillings_mack(rt: Mapping[str, Any]) -> str:
    """"Skillings–Mack test (3 of 60 cells missing, …)" from the rank JSON (missing cells)."""
    dropped = rt.get("dropped_datasets") or []
    extra = (f"; {_plural(len(dropped), 'dataset')} with fewer than two results dropped"
             if dropped else "")
    return (f"Skillings–Mack test{_ties(rt)} ({rt.get('n_missing')} of {rt.get('n_cells')} "
            f"cells missing{extra}; no single critical difference)")


def _ties(rt: Mapping[str, Any]) -> str:
    """Which Friedman statistic the rank test reports (its JSON's ``tie_correction``)."""
    flag = rt.get("tie_correction")
    if flag is None:
        return ""
    return " (tie-corrected)" if flag else " (Demšar, no tie correction)"


def _rank_test_table(a: _Analysis, avg: Mapping[str, float], order: Sequence[str],
                     cliques: Sequence[Sequence[str]], rt: Mapping[str, Any],
                     naive: Mapping[str, Any] | None, posthoc: str, cd: Any) -> str:
    positions: dict[str, float] = {}
    for name in ("ranktest.csv", "ranking.csv"):
        p = a.files.get(name)
        if p is not None and p.is_file():
            frame = _read_csv(p)
            if {"system", "rank", "average_rank"} <= set(frame.columns):
                positions = {str(s): float(r) for s, r in
                             zip(frame["system"], frame["rank"], strict=True)}
                break
    headers = ["rank", "system", "average rank", "groups"]
    headers += ["naive mean"] if naive else []
    rows = []
    for i, s in enumerate(order):
        groups = ",".join(str(j + 1) for j, c in enumerate(cliques) if s in c) or "–"
        row = [_num(positions.get(s, i + 1), 0), _text(s), _num(avg[s], 3), _text(groups)]
        if naive:
            row.append(_num(naive.get(s), 4))
        rows.append(row)
    stat, p = rt.get("statistic"), rt.get("pvalue")
    caption = (f"Average ranks over {int(rt.get('n_datasets', 0))} datasets (1 = best)")
    if isinstance(stat, (int, float)) and isinstance(p, (int, float)):
        caption += (f"; {_skillings_mack(rt)}: T = {float(stat):.3f}, {_p(float(p))}"
                    if rt.get("test") == "skillings-mack" else
                    f"; Friedman χ²_F{_ties(rt)} = {float(stat):.3f}, {_p(float(p))}")
    if isinstance(cd, (int, float)):
        caption += f"; CD = {float(cd):.3f} ({posthoc})"
    caption += ". Groups: systems sharing a number are not significantly different."
    return _table(f"t{a.index}-ranktest", "Rank test (Friedman, Demšar)", _e(caption),
                  headers, rows)
