"""The meta-analysis section (``ranger-eval meta``, ``demo``): read from ``summary.json`` and
``effects.csv``.
"""
from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from ...errors import ReportError
from ...formatting import format_level, format_percent
from .common import (
    _alpha,
    _Analysis,
    _decimals,
    _e,
    _fixed,
    _float,
    _get,
    _p,
    _path,
    _plural,
    _read_csv,
    _read_json_object,
    _records,
)
from .tables import _Cell, _num, _table, _text


def _labels(summary: Mapping[str, Any]) -> tuple[str, str]:
    """(treatment, control) as the run labelled them: summary.json's labels, else its ids."""
    control = str(summary.get("control_label") or summary.get("control") or "control")
    treatment = str(summary.get("treatment_label") or summary.get("treatment") or "treatment")
    return treatment, control


def _meta(a: _Analysis) -> None:
    path = _path(a, "summary.json")
    assert path is not None
    summary = _read_json_object(path)
    res = _get(summary, "result", path, dict)
    w = "result."
    est, lo, hi = (_float(res, k, path, w) for k in ("estimate", "ci_low", "ci_high"))
    pvalue = _float(res, "pvalue", path, w)
    pi_lo, pi_hi = _float(res, "pi_low", path, w), _float(res, "pi_high", path, w)
    level = _float(res, "level", path, w)
    method = str(_get(res, "method", path, str, w))
    test = str(res.get("test", "z"))
    measure = str(res.get("measure") or summary.get("measure") or "effect")
    names = [str(n) for n in _get(res, "names", path, list, w)]
    yi = [math.nan if v is None else float(v) for v in _get(res, "yi", path, list, w)]
    weights = [math.nan if v is None else float(v) for v in res.get("weights") or []]
    if len(yi) != len(names):
        raise ReportError(f"{path}: result.yi and result.names differ in length")
    I2, tau2 = _float(res, "I2", path, w), _float(res, "tau2", path, w)
    treatment, control = _labels(summary)
    alpha = round(1.0 - level, 12)
    pct = format_level(level)

    effects = None
    ep = _path(a, "effects.csv", required=False)
    if ep is not None:
        effects = _read_csv(ep, ["dataset", "yi"])
    a.data["summary"] = summary
    a.data["effects"] = None if effects is None else _records(effects)

    # the reading
    model = "fixed effect" if method in ("FE", "EE") else f"random effects {method}"
    model += {"knha": ", Knapp–Hartung", "t": ", t test"}.get(test, "")
    dec = _decimals([est, lo, hi])
    sig = pvalue < alpha
    k = len(yi)
    s = (f"{treatment} vs {control}: the summary effect ({measure}, {model}) is "
         f"{_fixed(est, dec)} [{_fixed(lo, dec)}, {_fixed(hi, dec)}], {_p(pvalue)}: "
         f"{'significant' if sig else 'not significant'} at α = {_alpha(alpha)}")
    lower = est < 0 if math.isfinite(est) else sum(v < 0 for v in yi) > k / 2
    same = [i for i, v in enumerate(yi) if (v < 0 if lower else v > 0)]
    s += (f"; {treatment} scores {'lower' if lower else 'higher'} than {control} on "
          f"{len(same)} of {_plural(k, 'dataset')}")
    if effects is not None and {"ci_low", "ci_high"} <= set(effects.columns):
        by_name = {str(d): (float(cl), float(ch)) for d, cl, ch in
                   zip(effects["dataset"], effects["ci_low"], effects["ci_high"], strict=True)}
        n_sig = sum(1 for i in same if names[i] in by_name
                    and (by_name[names[i]][1] < 0 if lower else by_name[names[i]][0] > 0))
        s += f" ({n_sig} of them with a {pct} CI that excludes 0)"
    if k > 1 and math.isfinite(I2):
        s += f"; heterogeneity I² = {format_percent(I2 / 100, 1)}"
    a.sentences.append(s + ".")
    if k == 1:
        a.sentences.append("Only one dataset: the summary is that dataset's effect.")
    elif isinstance(res.get("caution"), str):  # k = 2 (MetaResult.few_datasets_caution)
        a.sentences.append(res["caution"])
    elif method not in ("FE", "EE") and math.isfinite(pi_lo) and math.isfinite(pi_hi):
        pdec = _decimals([pi_lo, pi_hi])
        spans = pi_lo < 0 < pi_hi
        a.sentences.append(
            f"The {pct} prediction interval for the effect on a new dataset is "
            f"[{_fixed(pi_lo, pdec)}, {_fixed(pi_hi, pdec)}] (τ² = {tau2:.2g}): "
            + ("it includes 0, so a new dataset may show an effect of either sign."
               if spans else "it excludes 0, so a new dataset is expected to show the same sign.")
        )
    mde = res.get("mde")  # summary.json keeps it under "result", with the other numbers
    if isinstance(mde, (int, float)) and math.isfinite(mde):  # a non-significant summary
        a.sentences.append(
            f"Not significant is not no effect: the summary would have detected only a true "
            f"effect of {mde:.4g} or more ({measure}, either direction) with 80 % power at "
            f"α = {_alpha(alpha)}.")
    if res.get("verdict") and res.get("margin") is not None:  # meta --margin
        direction = " (lower is better)" if res.get("higher_is_better") is False else ""
        a.sentences.append(
            f"Against a margin of ±{res['margin']}{direction}: {res['verdict']} (the {pct} "
            f"confidence interval of the summary); {res.get('verdict_new_dataset')} (the "
            "prediction interval).")
        # where its test of no effect and the margin seem to disagree, why both hold (written by
        # the pipeline: ranger_eval.aggregate.agreement.margin_disagreements)
        a.sentences += [s for s in summary.get("disagreements") or [] if isinstance(s, str)]
    skipped = summary.get("skipped") or {}
    if isinstance(skipped, dict) and skipped:
        a.sentences.append("Not analysed: " + "; ".join(
            f"{k_} ({v})" for k_, v in skipped.items()) + ".")

    # the table: one row per dataset; the summary (and prediction interval) in the footer
    if effects is not None:
        fr = effects
        ydec = max(4, _decimals(fr["yi"].tolist(), 4, 8))
        known = {"task_id", "dataset", "yi", "vi", "se", "ci_low", "ci_high", "n",
                 "mean_control", "mean_treatment", "weight"}
        has_means = {"mean_control", "mean_treatment"} <= set(fr.columns)
        has_ci = {"ci_low", "ci_high"} <= set(fr.columns)
        columns = ["dataset"] + (["n"] if "n" in fr else [])
        columns += ["mean_control", "mean_treatment"] if has_means else []
        columns += [c for c in fr.columns if c not in known]
        columns += ["yi"] + (["ci"] if has_ci else []) + (["weight"] if "weight" in fr else [])
        titles = {"mean_control": f"mean {control}", "mean_treatment": f"mean {treatment}",
                  "yi": f"effect ({measure})", "ci": f"{pct} CI"}

        def ci(low: float, high: float) -> _Cell:
            return _Cell(_e(f"[{_fixed(low, ydec)}, {_fixed(high, ydec)}]"), float(low), True)

        rows = []
        for _, r in fr.iterrows():
            cells: dict[str, _Cell] = {"dataset": _text(r["dataset"]), "yi": _num(r["yi"], ydec)}
            for c in columns:
                if c in ("dataset", "yi"):
                    continue
                if c == "ci":
                    cells[c] = ci(r["ci_low"], r["ci_high"])
                elif c == "weight":
                    cells[c] = _Cell(_e(format_percent(float(r[c]), 2)), float(r[c]), True)
                elif c == "n":
                    cells[c] = _num(r[c], 0)
                elif isinstance(r[c], (int, float)):
                    cells[c] = _num(r[c], 4)
                else:
                    cells[c] = _text(r[c])
            rows.append([cells[c] for c in columns])
        foot_cells = {"dataset": _Cell(f"<strong>summary</strong> ({_e(model)})"),
                      "yi": _Cell(f"<strong>{_e(_fixed(est, ydec))}</strong>", est, True),
                      "ci": ci(lo, hi), "weight": _Cell("100%", 1.0, True)}
        foot = [[foot_cells.get(c, _Cell("")) for c in columns]]
        if method not in ("FE", "EE") and has_ci and k > 1:
            pi_cells = {"dataset": _Cell("prediction interval"), "ci": ci(pi_lo, pi_hi)}
            foot.append([pi_cells.get(c, _Cell("")) for c in columns])
        caption = (f"Effect of {_e(treatment)} over {_e(control)} on each dataset "
                   f"({_e(measure)}, {pct} confidence intervals) and model weights. "
                   f"Heterogeneity: τ² = {_e(f'{tau2:.4g}')}, I² = {_e(f'{I2:.1f}')}%, "
                   f"Q({_e(res.get('Q_df', ''))}) = {_e(_fixed(_float(res, 'Q', path, w), 2))}, "
                   f"{_e(_p(_float(res, 'Q_pvalue', path, w), 'p(Q) = '))}.")
        a.tables.append(_table(f"t{a.index}-effects", "Effects per dataset", caption,
                               [titles.get(c, c) for c in columns], rows, foot))
    elif weights:
        rows = [[_text(n), _num(v, 4), _Cell(_e(format_percent(wt, 2)), wt, True)]
                for n, v, wt in zip(names, yi, weights, strict=False)]
        a.tables.append(_table(f"t{a.index}-effects", "Effects per dataset", "",
                               ["dataset", f"effect ({measure})", "weight"], rows))
