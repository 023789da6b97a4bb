"""The pairwise-comparison section (``ranger-eval compare``): the tests from ``comparison.json``,
the leaderboard from ``leaderboard.json`` (:func:`ranger_eval.report.tables.leaderboard_dict`;
never the Markdown read back).
"""
from __future__ import annotations

import math
import re
from pathlib import Path
from typing import Any

import pandas as pd

from ...errors import ReportError
from ...formatting import format_level
from ...formatting import slug as _slug
from ...signature import signature_level
from ..tables import df_text, has_se_df, jsonable, mde_sentence, test_label
from .common import (
    TABLE_MAX_ROWS,
    _alpha,
    _Analysis,
    _bools,
    _correction,
    _decimals,
    _e,
    _fixed,
    _get,
    _margin,
    _path,
    _plural,
    _read_json_object,
    _records,
)
from .tables import _Cell, _num, _pcell, _table, _text

_COMPARISON_COLUMNS = ("dataset", "metric", "system_a", "system_b", "mean_a", "mean_b", "diff",
                       "pvalue_adjusted", "significant")


def _read_comparisons(path: Path) -> pd.DataFrame:
    """The ``comparisons`` table of comparison.json (an object of columns; ±∞ written as the
    strings ``"inf"``/``"-inf"``, NaN as null)."""
    table = _get(_read_json_object(path), "comparisons", path, dict)
    try:
        comp = pd.DataFrame(table)
    except ValueError as exc:
        raise ReportError(f"{path}: \"comparisons\" is not a table of columns: {exc}") from None
    missing = [c for c in _COMPARISON_COLUMNS if c not in comp.columns]
    if missing:
        raise ReportError(f"{path}: \"comparisons\" lacks column(s) {', '.join(missing)}")
    for name in comp.columns:
        col = comp[name]
        if col.dtype == object and col.map(lambda v: v is None or v in ("inf", "-inf")
                                           or (isinstance(v, (int, float))
                                               and not isinstance(v, bool))).all() \
                and col.map(lambda v: isinstance(v, (int, float))).any():
            comp[name] = pd.to_numeric(col.replace({"inf": math.inf, "-inf": -math.inf}))
    return comp


def _compare(a: _Analysis) -> None:
    path = _path(a, "comparison.json")
    assert path is not None
    comp = _read_comparisons(path)
    # a report of a large run stays a few MB: the table and the embedded JSON hold the first
    # TABLE_MAX_ROWS tests (about 1.3 kB each), the sentences count them all
    shown_tests = comp.iloc[:TABLE_MAX_ROWS]
    a.data["comparison"] = _records(shown_tests)
    if len(comp) > TABLE_MAX_ROWS:
        a.data["comparison_rows"] = len(comp)
    fields = a.sig_fields()
    corr = _correction(fields.get("corr", ""))
    level = signature_level(fields)  # level:, or alpha: of an older folder
    alpha = 0.05 if level is None else round(1.0 - level, 12)
    sig = _bools(comp["significant"])
    # which mean is better: the higher one, unless the CSV's higher_is_better column says lower
    higher = (_bools(comp["higher_is_better"]) if "higher_is_better" in comp.columns
              else [True] * len(comp))
    better = ("a significantly higher mean" if all(higher) else
              "a significantly better mean (lower where lower is better: "
              + ", ".join(dict.fromkeys(str(m) for m, h in zip(comp["metric"], higher, strict=True)
                                        if not h)) + ")")
    groups = list(dict.fromkeys(zip(comp["dataset"].astype(str), comp["metric"].astype(str),
                                    strict=True)))
    systems = list(dict.fromkeys([*comp["system_a"].astype(str), *comp["system_b"].astype(str)]))
    test = fields.get("test", "")
    m = re.fullmatch(r"auto\[(.*)\]", test)
    test_text = f"tests chosen by the data: {m.group(1)}" if m else (f"test: {test}" if test else "")
    a.sentences.append(
        f"{_plural(len(systems), 'system')} compared pairwise on "
        f"{_plural(len(groups), 'dataset × metric', 'datasets × metrics')} "
        f"({_plural(len(comp), 'test')}; {test_text}): {sum(sig)} significant after {corr} "
        f"(α = {_alpha(alpha)}). “Beats” below means {better}."
        if test_text else
        f"{_plural(len(systems), 'system')} compared pairwise on "
        f"{_plural(len(groups), 'dataset × metric', 'datasets × metrics')} "
        f"({_plural(len(comp), 'test')}): {sum(sig)} significant after {corr} "
        f"(α = {_alpha(alpha)}). “Beats” below means {better}."
    )
    if "mde" in comp.columns:  # what the non-significant pairs could have detected

        detectable = mde_sentence(comp.assign(mde=pd.to_numeric(comp["mde"], errors="coerce")),
                                  1.0 - alpha)
        if detectable:
            a.sentences.append(detectable)
    hyp = fields.get("hyp")  # non-inferiority / equivalence: "significant" = shown, no "beats"
    if hyp:
        word = "equivalent" if hyp == "equivalence" else "non-inferior"
        a.sentences.append(
            f"Hypothesis: {hyp} within a margin of {fields.get('margin', '?')} (in the metric's "
            f"units): “significant” below means shown {word}; each interval is the one its test "
            "inverts, so a pair is shown exactly when it lies within the margin.")
        if hyp == "equivalence" and level is not None:  # different and equivalent at once
            from ...aggregate.agreement import equivalence_disagreements

            a.sentences += equivalence_disagreements(
                comp.assign(significant=sig), margin=_margin(fields.get("margin")),
                level=level)
        shown_pairs: dict[tuple[str, str], list[int]] = {}
        for a_, b_, s in zip(comp["system_a"].astype(str), comp["system_b"].astype(str), sig,
                             strict=True):
            shown_pairs.setdefault((a_, b_), [0, 0])[0 if s else 1] += 1
        for (x, y), (yes, no) in list(shown_pairs.items())[:20]:
            a.bullets.append(f"{x} {'and' if hyp == 'equivalence' else 'vs'} {y}: shown {word} "
                             f"on {yes} of {_plural(yes + no, 'dataset × metric', 'datasets × metrics')} "
                             f"(after {corr}).")
    # one sentence per pair of systems
    pairs: dict[tuple[str, str], list[int]] = {}
    for a_, b_, d, s, h in zip(comp["system_a"].astype(str), comp["system_b"].astype(str),
                               comp["diff"].astype(float), sig, higher, strict=True):
        counts = pairs.setdefault((a_, b_), [0, 0, 0])
        d = d if h else -d  # > 0: system a has the better mean
        counts[0 if s and d > 0 else 1 if s and d < 0 else 2] += 1
    after = "without multiplicity correction" if corr.startswith("no ") else f"after {corr}"
    limit = 20
    for (x, y), (x_wins, y_wins, ties) in ([] if hyp else list(pairs.items())[:limit]):
        n = x_wins + y_wins + ties
        if y_wins > x_wins:
            x, y, x_wins, y_wins = y, x, y_wins, x_wins
        if x_wins == 0:
            a.bullets.append(f"{x} and {y}: no significant difference on "
                             f"{'the' if n == 1 else 'any of the'} "
                             f"{_plural(n, 'dataset × metric', 'datasets × metrics')} ({after}).")
            continue
        text = f"{x} beats {y} on {x_wins} of {_plural(n, 'dataset × metric', 'datasets × metrics')}"
        if y_wins:
            text += f", {y} beats {x} on {y_wins}"
        text += f" (significant {after})"
        if ties:
            text += f"; no significant difference on {ties}"
        a.bullets.append(text + ".")
    if len(pairs) > limit:
        a.bullets.append(f"… and {len(pairs) - limit} more pairs: see the table.")

    # tables: the leaderboard first, then every test
    lp = _path(a, "leaderboard.json", required=False)
    if lp is not None:
        board = _leaderboard(lp)
        a.data["leaderboard"] = board["json"]
        a.tables.append(_table(f"t{a.index}-leaderboard", "Leaderboard", _e(board["note"]),
                               board["headers"], board["rows"]))
    dec = max(4, _decimals([*comp["mean_a"], *comp["mean_b"], *comp["diff"]], 4, 8))
    level = None
    if "level" in fields:
        try:
            level = float(fields["level"])
        except ValueError:
            level = None
    level = level if level is not None else round(1 - alpha, 12)
    # the deciding columns (p adj., significant) before the details (effect size, test, raw p)
    has_ci = {"ci_low", "ci_high"} <= set(comp.columns)
    headers = ["dataset", "metric", "system A", "system B", "mean A", "mean B", "diff (A−B)"]
    headers += [f"{format_level(level)} CI"] if has_ci else []
    with_se = has_se_df(comp)  # the tests' standard errors and df (crossed prompts: the model's)
    headers += ["p adj.", "significant"]
    headers += ["effect size"] if "effect_size" in comp else []
    headers += ["test"] if "test" in comp else []
    headers += ["p"] if "pvalue" in comp else []
    rows = []
    for (_, r), s in zip(shown_tests.iterrows(), sig, strict=False):
        row = [_text(r["dataset"]), _text(r["metric"]), _text(r["system_a"]),
               _text(r["system_b"]), _num(r["mean_a"], dec), _num(r["mean_b"], dec),
               _num(r["diff"], dec)]
        if has_ci:
            # the two bounds may stack (after the comma) when the table is tight
            ci = _e(f"[{_fixed(r['ci_low'], dec)}, {_fixed(r['ci_high'], dec)}]")
            if with_se:  # the test's se and df below its interval (ten systems fit 1,400 px)
                ci += f'<span class="note">{_e(_se_df_note(r, dec))}</span>'
            row.append(_Cell(ci, float(r["ci_low"]), True, stack=True))
        row += [_pcell(r["pvalue_adjusted"]), _Cell("<strong>yes</strong>" if s else "no")]
        if "effect_size" in comp:
            note = ", ".join(str(r[c]).replace("_", " ") for c in
                             ("effect_size_name", "effect_label") if c in r and pd.notna(r[c]))
            shown = _e(_fixed(r["effect_size"], 2))
            shown += f'<span class="note">{_e(note)}</span>' if note else ""
            row.append(_Cell(shown, float(r["effect_size"]), True))
        if "test" in comp:
            row.append(_text(test_label(r["test"], r.get("n_clusters"))))
        if "pvalue" in comp:
            row.append(_pcell(r["pvalue"]))
        rows.append(row)
    caption = (f"Every test: diff = mean A − mean B with its {format_level(level)} confidence "
               "interval (unadjusted)" + (" with the test's standard error se and degrees of "
                                          "freedom df below it (where the test has them)" if with_se else "")
               + f"; p adj. after {_e(corr)}; significant at α = {_alpha(alpha)}.")
    if len(comp) > TABLE_MAX_ROWS:
        caption += (f" Showing the first {TABLE_MAX_ROWS:,} of {len(comp):,} tests (here and "
                    "in the embedded JSON); every test is in comparison.csv and "
                    "comparison.json.")
    a.tables.append(_table(f"t{a.index}-comparison", "All pairwise tests", caption,
                           headers, rows))
    a.data["slugs"] = {_slug(d) + "-" + _slug(m_): f"{d} · {m_}" for d, m_ in groups}




def _leaderboard(path: Path) -> dict[str, Any]:
    """leaderboard.json (:func:`ranger_eval.report.tables.leaderboard_dict`) as table cells
    (bold best, superscript letters, the interval under the mean where the column is narrow)
    and the JSON the page embeds."""
    board = _read_json_object(path)
    headers = ["letter", "system", *map(str, _get(board, "headers", path, list))]
    extras = [str(h) for h in board.get("extras") or []]
    caption = str(board.get("caption") or "")
    note = " ".join(t for t in (caption, str(board.get("note") or "")) if t)
    rows, js = [], []
    for r in _get(board, "rows", path, list):
        cells = _get(r, "cells", path, list, "rows[].")
        row = [_text(r.get("letter", "")), _text(r.get("system", ""))]
        values: list[dict[str, Any]] = []
        for c in cells:
            v = math.nan if c.get("mean") is None else float(c["mean"])
            num, beats = str(c.get("text", "–")), str(c.get("beats") or "")
            shown = f"<strong>{_e(num)}</strong>" if c.get("best") else _e(num)
            if beats:
                shown += f"<sup>{_e(beats)}</sup>"
            shown = f'<span class="mean">{shown}</span>'
            entry: dict[str, Any] = {"mean": jsonable(v), "best": bool(c.get("best")),
                                     "beats": beats}
            if c.get("ci"):  # the mean's confidence interval, "lo, hi"
                shown += f' <span class="ci">[{_e(c["ci"])}]</span>'
                entry["ci"] = str(c["ci"])
            row.append(_Cell(shown, v, True, stack=True))
            for h in extras:  # the mean's se, n or clusters column
                key = _BOARD_EXTRAS[h]
                x = c.get(key)
                text = str(c.get("se_text", "–")) if key == "se" else (
                    "–" if x is None else str(x))
                entry[key] = jsonable(math.nan if x is None else x) if key == "se" else x
                row.append(_Cell(_e(text), math.nan if x is None else float(x), True))
            values.append(entry)
        rows.append(row)
        js.append({"letter": str(r.get("letter", "")), "system": str(r.get("system", "")),
                   "cells": values})
    return {"headers": headers, "rows": rows, "note": note,
            "json": {"columns": [h for h in headers[2:] if h not in _BOARD_EXTRAS],
                     "rows": js, "note": note}}


#: the leaderboard's columns after each mean (report.tables) and their JSON keys
def _se_df_note(r: pd.Series, dec: int) -> str:
    """``se 0.0123, df 29`` of a comparison row (the parts the test has; empty: none)."""
    se, df = float(r["se"]), float(r["df"])
    parts = ([] if math.isnan(se) else [f"se {_fixed(se, dec)}"]) + (
        [] if math.isnan(df) else [f"df {df_text(df)}"])
    return ", ".join(parts)


_BOARD_EXTRAS = {"se": "se", "n": "n", "clusters": "n_clusters"}
