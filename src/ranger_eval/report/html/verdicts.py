"""The sections of ``ranger-eval aso`` (``aso.json``), ``bayes`` (``bayes.json``) and ``arena``
(``arena.json``), and the Bradley–Terry reading ``rank`` shares with ``arena``.
"""
from __future__ import annotations

import math
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ...errors import ReportError
from ...formatting import format_level
from .common import _Analysis, _e, _fixed, _float, _get, _path, _plural, _read_json_object
from .tables import _Cell, _num, _table, _text


def _result_json(a: _Analysis, name: str) -> dict[str, Any]:
    path = _path(a, name)
    assert path is not None
    result = _get(_read_json_object(path), "result", path, dict)
    if not _get(result, "groups", path, list, "result."):
        raise ReportError(f"{path}: result.groups is empty")
    a.data[name.removesuffix(".json")] = result
    from ..verdicts import figure_names

    a.data["slugs"] = figure_names(result, a.kind)  # figure headings (not in the JSON)
    return result


def _aso(a: _Analysis) -> None:
    """``ranger-eval aso``: every verdict in words and each ε_min matrix (from aso.json)."""
    from ...verdicts.aso import format_epsilon
    from ..verdicts import aso_group_lines

    result = _result_json(a, "aso.json")
    path = a.files["aso.json"]
    level = _float(result, "level", path, "result.")
    threshold = _float(result, "threshold", path, "result.")
    correction = str(result.get("correction", ""))
    several = len(result["groups"]) > 1
    for i, g in enumerate(result["groups"]):
        where = f"result.groups[{i}]."
        names = [str(n) for n in _get(g, "systems", path, list, where)]
        eps = _get(g, "epsilon_min", path, list, where)
        n_scores = _get(g, "n_scores", path, dict, where)
        how, verdicts = aso_group_lines(g, base_level=level, correction=correction,
                                        threshold=threshold)
        head = f"{g.get('dataset')} · {g.get('metric')}: " if several else ""
        a.sentences.append(f"{head}ε_min of each system over each other, {how}; a system "
                           f"almost stochastically dominates another when ε_min < τ = "
                           f"{threshold:g}.")
        a.bullets += [f"{head}{v}" for v in verdicts]
        rows = [[_text(f"{n} ({n_scores.get(n, '?')} runs)"),
                 *(_text("–") if i2 == j else _Cell(_e(format_epsilon(eps[i2][j], threshold, 3)),
                                                    float(eps[i2][j]), True)
                   for j in range(len(names)))]
                for i2, n in enumerate(names)]
        a.tables.append(_table(
            f"t{a.index}-aso-{i}", f"ε_min: {g.get('dataset')} · {g.get('metric')}",
            _e(f"ε_min of the row over the column; {how}."), ["system", *names], rows))
    skipped = result.get("skipped") or []
    if skipped:
        a.sentences.append(f"Left out (fewer than two systems): {'; '.join(map(str, skipped))}.")


def _bayes(a: _Analysis) -> None:
    """``ranger-eval bayes``: every verdict in words and the posterior probabilities."""
    from ..verdicts import BAYES_TITLES, bayes_group_lines, bayes_headers

    result = _result_json(a, "bayes.json")
    path = a.files["bayes.json"]
    rope = _float(result, "rope", path, "result.")
    level = _float(result, "level", path, "result.")
    test = str(result.get("test", "correlated-t"))
    if test not in BAYES_TITLES:
        raise ReportError(f"{path}: unknown test {test!r}")
    what = ("of the cross-validation folds (Corani & Benavoli 2015)" if test == "correlated-t"
            else f"across datasets ({_fixed(float(result.get('n_draws', result.get('n_samples')) or 0), 0)} posterior "
                 f"draws, seed {result.get('seed')}, prior {result.get('prior')})")
    a.sentences.append(f"{BAYES_TITLES[test]} {what}, "
                       + (f"ROPE ±{rope:g}" if rope > 0 else "no ROPE")
                       + f"; a verdict needs a posterior probability of at least {level:g}.")
    several = len(result["groups"]) > 1
    rows = []
    for i, g in enumerate(result["groups"]):
        head = f"{g.get('dataset')} · {g.get('metric')}: " if several else ""
        a.bullets += [f"{head}{v}" for v in bayes_group_lines(g)]
        for p in _get(g, "pairs", path, list, f"result.groups[{i}]."):
            probs = [_num(p.get("p_left"), 3), _num(p.get("p_rope"), 3), _num(p.get("p_right"), 3)]
            if test == "correlated-t":
                runs = max(int(p.get("runs") or 1), 1)
                cells = [_num(p.get("mean"), 4), _num(p.get("scale"), 4), _num(p.get("df"), 0),
                         *probs, _text(f"{int(p.get('n', 0)) // runs} × {runs}")]
            else:
                mc = p.get("mc_se") or [math.nan]
                cells = [_num(p.get("n"), 0), *probs, _num(max(mc), 5)]
            rows.append([_text(g.get("dataset")), _text(g.get("metric")), _text(p.get("a")),
                         _text(p.get("b")), *cells])
    a.tables.append(_table(f"t{a.index}-bayes", "Posterior probabilities",
                           _e("The posterior probabilities that A is better, that the "
                              "difference is within the ROPE, that B is better."),
                           ["dataset", "metric", "A", "B", *bayes_headers(test)], rows))


def _arena(a: _Analysis) -> None:
    """``ranger-eval arena``: the leaderboard with its intervals and the verdicts in words
    (from arena.json)."""
    path = _path(a, "arena.json")
    assert path is not None
    result = _get(_read_json_object(path), "result", path, dict)
    a.data["arena"] = result
    _bradley_terry_reading(a, result, path, "result.", "Leaderboard")


def _bradley_terry_reading(a: _Analysis, result: Mapping[str, Any], path: Path, where: str,
                           title: str) -> None:
    """Sentences and the leaderboard table of a Bradley–Terry result (``Ratings.to_dict`` as
    JSON: arena.json's result, ranking.json's bradley_terry); every number read, none
    computed."""
    from ..arena import leaderboard_sentences

    board = _get(result, "leaderboard", path, list, where)
    if not board or not all(isinstance(r, dict) for r in board):
        raise ReportError(f"{path}: {where}leaderboard is empty or not a list of rows")
    level = _float(result, "level", path, where)
    n_boot = int(_float(result, "n_resamples" if "n_resamples" in result else "n_bootstrap",
                        path, where))  # n_bootstrap: the key of files written by 0.x releases
    source = str(result.get("source", "table"))
    made = {"scores(items)": " made from per-item scores (every item a battle between every "
                             "pair of systems, won by the better score, equal scores a tie)",
            "scores(datasets)": " made from a dataset-level table (every dataset a battle "
                                "between every pair of systems)"}.get(source, "")
    ties = ("ties count half a win for each model" if result.get("ties") == "half"
            else "ties by Davidson's model")
    a.sentences.append(
        f"Bradley–Terry maximum-likelihood ratings of {_plural(len(board), 'model')} from "
        f"{int(_float(result, 'n_battles', path, where)):,} battles{made}; {ties}; "
        + (f"{format_level(level)} percentile intervals from {n_boot:,} bootstrap rounds"
           + ({"items": " over items (every battle of an item drawn together)",
               "datasets": " over datasets (every battle of a dataset drawn together)"}
              .get(str(result.get("resample")), ""))
           + f" (seed {result.get('seed')})." if n_boot else "no bootstrap (no intervals).")
        + f" Ratings and their intervals are {_reference(result)}; the rank intervals and win "
        "probabilities do not depend on that choice.")
    failed = result.get("n_resamples_failed", result.get("n_bootstrap_failed"))
    if isinstance(failed, int) and failed:
        a.sentences.append(f"{failed} bootstrap rounds had no finite ratings and were left "
                           "out.")
    a.sentences += leaderboard_sentences(board, level)
    styled = "rating_uncontrolled" in board[0]
    rows = []
    for r in board:
        lo, hi = r.get("ci_low"), r.get("ci_high")
        ci = (f"[{_fixed(float(lo), 1)}, {_fixed(float(hi), 1)}]"
              if isinstance(lo, (int, float)) and isinstance(hi, (int, float)) else "–")
        rl, rh = r.get("rank_low"), r.get("rank_high")
        ranks = ("–" if not isinstance(rl, (int, float)) or not isinstance(rh, (int, float))
                 else f"{int(rl)}" if rl == rh else f"{int(rl)}–{int(rh)}")
        row = [_text(r.get("model")), _num(r.get("rating"), 1), _Cell(_e(ci), lo, True),
               _num(r.get("se"), 1), _Cell(_e(ranks), rl, True)]
        if styled:   # the same battles without style control, side by side
            row += [_num(r.get("rating_uncontrolled"), 1),
                    _interval_cell(r.get("ci_low_uncontrolled"), r.get("ci_high_uncontrolled")),
                    _rank_cell(r.get("rank_low_uncontrolled"), r.get("rank_high_uncontrolled"))]
        rows.append([*row, _num(r.get("n_battles"), 0)])
    reference = _reference(result)
    caption = (f"Ratings on the Elo scale (scale {_float(result, 'scale', path, where):g}, "
               f"base {_float(result, 'base', path, where):g}), best first; ratings, se and CI "
               f"{reference}; CI: {format_level(level)} bootstrap percentile interval; se: "
               f"sandwich standard error; rank: {format_level(level)} rank interval, "
               "simultaneous, from the models' ranks in every bootstrap round (Mandel & "
               "Betensky's percentile bootstrap), which like the win probabilities does not "
               "depend on the anchor or the mean rating.")
    anchor = result.get("anchor")
    ci_head = (f"CI (vs {anchor[0]})" if isinstance(anchor, list) and anchor
               else "CI (vs mean)")
    heads = ["model", "rating", ci_head, "se", "rank"]
    if styled:
        caption += " " + style_caption_text(result)
        heads += ["rating (no style control)", "CI (no style control)",
                  "rank (no style control)"]
    a.tables.append(_table(f"t{a.index}-bradley-terry", title, _e(caption),
                           [*heads, "battles"], rows))
    coefs = result.get("coefficients")
    if styled and isinstance(coefs, list) and coefs:
        _coefficient_table(a, coefs, level)


def _interval_cell(lo: Any, hi: Any) -> _Cell:
    """``[lo, hi]`` to one decimal (``–`` when either is missing), sorted by ``lo``."""
    ok = isinstance(lo, (int, float)) and isinstance(hi, (int, float)) and \
        math.isfinite(lo) and math.isfinite(hi)
    text = f"[{_fixed(float(lo), 1)}, {_fixed(float(hi), 1)}]" if ok else "–"
    return _Cell(_e(text), lo if ok else None, True)


def _rank_cell(lo: Any, hi: Any) -> _Cell:
    """A rank interval ``3`` or ``2–5`` (``–`` when missing), sorted by its low end."""
    if not isinstance(lo, (int, float)) or not isinstance(hi, (int, float)) or \
            not (math.isfinite(lo) and math.isfinite(hi)):
        return _Cell(_e("–"), None, True)
    return _Cell(_e(f"{int(lo)}" if lo == hi else f"{int(lo)}–{int(hi)}"), lo, True)


def style_caption_text(result: Mapping[str, Any]) -> str:
    """What style control did (from the JSON's ``covariates``), one paragraph."""
    names = ", ".join(str(c) for c in result.get("covariates") or [])
    return (f"Style control: the ratings hold the effects of {names} at zero (the average "
            "style difference), each covariate model_a's response minus model_b's, "
            "standardised over the battles (as LMArena), fitted jointly with the ratings by "
            "maximum likelihood; 'no style control': the same battles rated without "
            "covariates.")


def _coefficient_table(a: _Analysis, coefs: list[Any], level: float) -> None:
    """The style covariates' coefficients (``Ratings.coefficients`` as JSON rows)."""
    rows = []
    for c in coefs:
        if not isinstance(c, dict):
            continue
        rows.append([_text(c.get("covariate")), _text(c.get("kind")),
                     _num(c.get("estimate"), 4), _num(c.get("elo"), 1), _num(c.get("se"), 4),
                     _interval4(c.get("ci_low"), c.get("ci_high")), _num(c.get("pvalue"), 4)])
    caption = ("Coefficient of each style covariate: the change in the log-odds of winning per "
               "standard deviation of its difference (Elo: the same in rating points); se: "
               f"sandwich; CI: {format_level(level)} bootstrap percentile interval; p: Wald.")
    a.tables.append(_table(f"t{a.index}-style-coefficients", "Style coefficients",
                           _e(caption), ["covariate", "given as", "log-odds per sd",
                                         "Elo per sd", "se", "CI", "p"], rows))


def _interval4(lo: Any, hi: Any) -> _Cell:
    ok = isinstance(lo, (int, float)) and isinstance(hi, (int, float)) and \
        math.isfinite(lo) and math.isfinite(hi)
    text = f"[{_fixed(float(lo), 4)}, {_fixed(float(hi), 4)}]" if ok else "–"
    return _Cell(_e(text), lo if ok else None, True)


def _reference(result: Mapping[str, Any]) -> str:
    """What a Bradley–Terry result's ratings and intervals are relative to: the JSON's
    ``reference_text`` (results written before it existed: from ``anchor``/``init_rating``)."""
    text = result.get("reference_text")
    if isinstance(text, str) and text:
        return text
    anchor = result.get("anchor")
    if isinstance(anchor, list) and len(anchor) == 2:
        return f"relative to the anchor {anchor[0]} (fixed at {float(anchor[1]):g})"
    init = result.get("init_rating")
    rated = f" (rated {float(init):g})" if isinstance(init, (int, float)) else ""
    return f"relative to the mean of all models{rated}"
