"""The section of ``ranger-eval estimate`` (``estimate.json``): the whole-benchmark estimate
with its interval beside the plain subset mean with its Wilson interval, in words (how many
random items the estimate is worth) and as a table, read from the JSON file."""
from __future__ import annotations

from typing import Any

from ...formatting import format_level
from .common import _Analysis, _e, _float, _get, _path, _read_json_object
from .tables import _num, _table, _text

__all__: list[str] = []


def _estimate(a: _Analysis) -> None:
    """``ranger-eval estimate``: the estimate, the subset mean, the worth sentence."""
    path = _path(a, "estimate.json")
    assert path is not None
    result: dict[str, Any] = _get(_read_json_object(path), "result", path, dict)
    a.data["estimate"] = result
    est, low, high = (_float(result, k, path, "result.") for k in ("estimate", "low", "high"))
    mean, m_low, m_high = (_float(result, k, path, "result.")
                           for k in ("subset_mean", "subset_low", "subset_high"))
    level = format_level(_float(result, "level", path, "result."))
    n, big_n = result.get("n"), result.get("n_population")
    design = str(result.get("design", "random"))
    predictor = str(result.get("predictor", ""))
    a.sentences.append(
        f"Mean over all {big_n} items of the benchmark, estimated from {n} items ({design} "
        f"design, {predictor} predictor, {result.get('n_folds')}-fold cross-fitting): "
        f"{est:.4f}, {level} interval [{low:.4f}, {high:.4f}]; the plain mean of the same "
        f"items is {mean:.4f}, {level} Wilson interval [{m_low:.4f}, {m_high:.4f}].")
    a.sentences.append(str(_get(result, "worth", path, str, "result.")))
    if result.get("design_based") is False:
        a.bullets.append("The items were not a random sample: this interval has no "
                         "design-based guarantee.")
    else:
        a.bullets.append("The interval holds whatever the predictor's quality (a design-based "
                         "difference estimator): a poor predictor widens it, it never biases "
                         "it, as long as the items were drawn at random before the results "
                         "were seen and none was dropped.")
    worth = result.get("effective_n") if result.get("design_based") is not False else None
    a.tables.append(_table(
        f"t{a.index}-estimate", "Whole-benchmark estimate",
        _e("The cross-fitted difference estimate and the plain subset mean of the same items, "
           "each with its interval, standard error and worth in random items."),
        ["estimator", "estimate", f"{level} interval", "se", "items run",
         "worth (random items)"],
        [[_text(f"cross-fitted difference ({predictor})"), _num(est, 4),
          _text(f"[{low:.4f}, {high:.4f}]"), _num(result.get("se"), 4), _num(n, 0),
          _num(worth, 0) if worth is not None else _text("—")],
         [_text("plain subset mean (Wilson)"), _num(mean, 4),
          _text(f"[{m_low:.4f}, {m_high:.4f}]"), _num(result.get("subset_se"), 4),
          _num(n, 0), _num(n, 0)]]))
