"""What a multi-system forest plot shows: the results checked to share one axis (one effect
measure, one level), each system's values on the display scale (:class:`SystemValues`), and the
dataset rows (:func:`dataset_rows`). Study intervals are ``yi ± z_(1−α/2)·√vi`` (as
:func:`ranger_eval.plots.forest_plot`); summary intervals come from each ``MetaResult``
unchanged."""
from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from ...effects import z_critical
from ...errors import PlotError, check_level
from .._axis import display_values

__all__ = ["ORDERS", "SystemValues", "check_results", "dataset_rows", "system_values"]

ORDERS = ("given", "name", "effect")


@dataclass(frozen=True)
class SystemValues:
    """One system's values on the display scale (arrays in its result's order), its look, and
    where its datasets are (``pos``: dataset name → index)."""

    name: str
    res: Any
    color: str
    marker: str
    fixed: bool  # a fixed- or common-effect model
    pos: dict[str, int]
    with_pi: bool  # its prediction interval is drawn
    yi: np.ndarray
    lo: np.ndarray
    hi: np.ndarray
    est: float
    c_lo: float
    c_hi: float
    p_lo: float
    p_hi: float

    def model(self) -> str:
        """The model in a few words: "RE, REML", "fixed effect", "common effect"."""
        method = str(self.res.method).upper()
        if self.fixed:
            return "common effect" if method in ("EE", "CE") else "fixed effect"
        return f"RE, {method}"


def check_results(results: Any) -> list[tuple[str, Any]]:
    """(system name, MetaResult) pairs of a non-empty mapping whose results share a level and an
    effect measure."""
    if not isinstance(results, Mapping) or len(results) == 0:
        raise PlotError("multi_forest_plot needs a non-empty mapping system name -> MetaResult")
    items = [(str(name), res) for name, res in results.items()]
    for name, res in items:
        if hasattr(res, "coef_names"):
            raise PlotError(f"results[{name!r}] is a meta-regression; pass MetaResult objects")
        for attr in ("names", "yi", "vi", "estimate", "ci_low", "ci_high", "level", "method"):
            if not hasattr(res, attr):
                raise PlotError(f"results[{name!r}] is not a MetaResult (no {attr!r})")
        yi, vi = np.asarray(res.yi, dtype=float), np.asarray(res.vi, dtype=float)
        if yi.shape != (len(res.names),) or vi.shape != yi.shape:
            raise PlotError(f"results[{name!r}]: yi/vi do not match its {len(res.names)} names")
        if not (np.all(np.isfinite(yi)) and np.all(np.isfinite(vi)) and np.all(vi >= 0)):
            raise PlotError(f"results[{name!r}]: non-finite effect or invalid variance")
        check_level(res.level, error=PlotError)
    levels = {float(r.level) for _, r in items}
    if len(levels) > 1:
        raise PlotError(f"the results use different confidence levels {sorted(levels)}; refit them "
                        "at one level to share the axis")
    measures = {(r.measure or "").upper() for _, r in items}
    if len(measures) > 1:
        raise PlotError(f"the results use different effect measures {sorted(measures)}; one axis "
                        "needs one measure")
    return items


def system_values(items: list[tuple[str, Any]], looks: tuple[list[str], list[str]],
                  back_transform: bool | None, show_prediction: bool
                  ) -> tuple[list[SystemValues], bool]:
    """Each system's :class:`SystemValues` (``looks`` = colours, markers), and whether the values
    are shown back-transformed (Fisher's z as r)."""
    crit = z_critical(float(items[0][1].level))
    systems = []
    transformed = False
    for (name, res), col, mk in zip(items, *looks, strict=False):
        yi = np.asarray(res.yi, dtype=float)
        se = np.sqrt(np.asarray(res.vi, dtype=float))
        shown, tr = display_values(res, back_transform, yi - crit * se, yi + crit * se)
        transformed = transformed or tr
        fixed = str(res.method).upper() in ("FE", "EE", "CE")
        with_pi = (show_prediction and not fixed and math.isfinite(shown["p_lo"])
                   and math.isfinite(shown["p_hi"]))
        systems.append(SystemValues(
            name=name, res=res, color=col, marker=mk, fixed=fixed,
            pos={str(n): i for i, n in enumerate(res.names)}, with_pi=bool(with_pi), **shown,
        ))
    return systems, transformed


def dataset_rows(systems: list[SystemValues], order: Any,
                 labels: Mapping[str, str] | None) -> tuple[list[str], list[str]]:
    """The datasets top to bottom (``order``: "given" = first appearance over the systems,
    "name", "effect" = mean effect over the systems, or a sequence of every dataset) and their
    row labels."""
    datasets: list[str] = []
    for s in systems:
        for n in s.pos:
            if n not in datasets:
                datasets.append(n)
    if isinstance(order, str):
        if order == "name":
            datasets.sort(key=lambda n: (n.casefold(), n))
        elif order == "effect":
            def mean_effect(n: str) -> float:
                vals = [s.yi[s.pos[n]] for s in systems if n in s.pos]
                return float(np.mean(vals))
            datasets.sort(key=lambda n: (mean_effect(n), n))
        elif order != "given":
            raise PlotError(f"order must be one of {ORDERS} or a sequence of dataset names, got "
                            f"{order!r}")
    else:
        seq = [str(x) for x in order]
        if sorted(seq) != sorted(datasets):
            raise PlotError(
                f"order: must list every dataset exactly once; missing "
                f"{sorted(set(datasets) - set(seq))}, unknown or repeated "
                f"{sorted(set(seq) - set(datasets)) or [x for x in seq if seq.count(x) > 1]}"
            )
        datasets = seq
    labels = dict(labels or {})
    unknown = sorted(set(map(str, labels)) - set(datasets))
    if unknown:
        raise PlotError(f"labels: unknown dataset(s) {unknown}; datasets are {datasets}")
    return datasets, [str(labels.get(n, n)) for n in datasets]
