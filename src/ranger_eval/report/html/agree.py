"""The section of ``ranger-eval agree`` (``agreement.json``, and ``alt_test.json`` with
``--judge``): the coefficient with its bootstrap interval and, with a judge, the alternative
annotator test's verdict and its per-annotator table, read from the JSON files."""
from __future__ import annotations

from typing import Any

from ...formatting import format_level
from .common import _Analysis, _e, _float, _get, _path, _read_json_object
from .tables import _num, _table, _text

__all__: list[str] = []

_NAMES = {"krippendorff": "Krippendorff's α", "cohen": "Cohen's κ", "fleiss": "Fleiss' κ"}


def _agreement(a: _Analysis) -> None:
    """``ranger-eval agree``: the coefficient in words and as a table; the alt-test's verdict
    and annotators with ``alt_test.json``."""
    path = _path(a, "agreement.json")
    assert path is not None
    result: dict[str, Any] = _get(_read_json_object(path), "result", path, dict)
    a.data["agreement"] = result
    estimate = _float(result, "estimate", path, "result.")
    coefficient = str(_get(result, "coefficient", path, str, "result."))
    name = _NAMES.get(coefficient, coefficient)
    detail = result.get("scale") or result.get("weights")
    shown = f"{name} ({detail})" if detail else name
    level = _float(result, "level", path, "result.")
    low, high = result.get("ci_low"), result.get("ci_high")
    unit = str(result.get("resample", "item"))
    units = "items" if unit == "item" else f"clusters ({unit})"
    interval = (f", {format_level(level)} bootstrap interval [{low:.3f}, {high:.3f}] over "
                f"{result.get('n_resamples')} resamples of the {units}"
                if low is not None and high is not None else "")
    a.sentences.append(f"{shown} = {estimate:.3f}{interval}: {result.get('n_raters')} raters, "
                       f"{result.get('n_items')} items, {result.get('n_ratings')} ratings.")
    a.bullets.append(_reading(estimate, low, high))
    a.tables.append(_table(
        f"t{a.index}-agreement", "Agreement",
        _e(f"{shown} with its percentile bootstrap interval."),
        ["coefficient", "estimate", f"{format_level(level)} interval", "raters", "items",
         "ratings", "resamples"],
        [[_text(shown), _num(estimate, 3),
          _text(f"[{_fmt(low)}, {_fmt(high)}]"), _num(result.get("n_raters"), 0),
          _num(result.get("n_items"), 0), _num(result.get("n_ratings"), 0),
          _num(result.get("n_resamples"), 0)]]))
    alt = _path(a, "alt_test.json", required=False)
    if alt is not None:
        _alt_test(a, alt)


def _fmt(x: Any) -> str:
    return "—" if x is None else f"{float(x):.3f}"


def _reading(estimate: float, low: Any, high: Any) -> str:
    """Krippendorff's rule of thumb (2019, §12.2.4: α ≥ 0.8 reliable, 0.667 ≤ α < 0.8 for
    tentative conclusions only), applied to the interval when there is one."""
    lo = estimate if low is None else float(low)
    if lo >= 0.8:
        return ("Reliable by Krippendorff's rule of thumb: even the interval's lower end is at "
                "least 0.8.")
    if lo >= 0.667:
        return ("Good enough for tentative conclusions only (Krippendorff: 0.667 ≤ α < 0.8 at "
                "the interval's lower end).")
    return ("Below Krippendorff's 0.667 for tentative conclusions at the interval's lower end: "
            "the raters do not agree well enough to trust one of them in place of the others.")


def _alt_test(a: _Analysis, path: Any) -> None:
    result: dict[str, Any] = _get(_read_json_object(path), "result", path, dict)
    a.data["alt_test"] = result
    a.sentences.append(str(result.get("summary", "")))
    rows = []
    for r in _get(result, "annotators", path, list, "result."):
        rows.append([_text(r.get("annotator")), _num(r.get("n_items"), 0),
                     _num(r.get("judge_wins"), 2), _num(r.get("p_value"), 3),
                     _text("yes" if r.get("judge_wins_test") else "no")])
    skipped = result.get("skipped") or []
    if skipped:
        a.sentences.append(f"Not tested (fewer than {result.get('min_items')} items): "
                           f"{', '.join(map(str, skipped))}.")
    a.tables.append(_table(
        f"t{a.index}-alt-test", "Alternative annotator test",
        _e(f"Per annotator: the items compared, the share where the judge "
           f"{result.get('judge')!r} aligns with the other annotators at least as well, the "
           f"p-value of its one-sided test (ε = {result.get('epsilon')}) and whether the "
           f"judge wins it after the Benjamini–Yekutieli correction (q = {result.get('fdr')})."),
        ["annotator", "items", "judge as good or better", "p", "judge wins (BY)"], rows))
