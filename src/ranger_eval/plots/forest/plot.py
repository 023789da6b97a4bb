"""The entry of the forest plot: :func:`forest_plot` checks the result, then builds the text
columns (:mod:`.columns`), lays them out around the plot (:mod:`.layout`) and draws
(:mod:`.draw`)."""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from matplotlib.figure import Figure

from ...errors import PlotError, check_level, renamed_keywords
from .._axis import effect_axis
from .columns import build_table, footer_parts, forest_values
from .draw import draw
from .layout import layout
from .options import ForestColumns, ForestStyle

__all__ = ["forest_plot"]

#: Former keywords of forest_plot (before the one vocabulary) and what replaces them.
_RENAMED = {
    "lower_is_better": "higher_is_better",
    "labels": "columns=ForestColumns(labels=...)",
    "label_header": "columns=ForestColumns(label_header=...)",
    "left_columns": "columns=ForestColumns(left=...)",
    "right_columns": "columns=ForestColumns(right=...)",
    "show_means": "columns=ForestColumns(means=...)",
    "show_weights": "columns=ForestColumns(weights=...)",
    "precision": "columns=ForestColumns(precision=...)",
    "figsize": "style=ForestStyle(figsize=...)",
    "stripes": "style=ForestStyle(stripes=...)",
    "fontsize": "style=ForestStyle(fontsize=...)",
    "fontfamily": "style=ForestStyle(fontfamily=...)",
}


@renamed_keywords(**_RENAMED)
def forest_plot(
    result: Any,
    *,
    order: str | Sequence[str] = "given",
    columns: ForestColumns | None = None,
    show_prediction: bool = True,
    higher_is_better: bool = True,
    control_label: str | None = None,
    treatment_label: str | None = None,
    back_transform: bool | None = None,
    title: str | None = None,
    xlabel: str | None = None,
    xlim: tuple[float, float] | None = None,
    style: ForestStyle | None = None,
) -> Figure:
    """Forest plot of a fitted meta-analysis ``result`` (a :class:`ranger_eval.meta.MetaResult`).

    Layout follows metafor's ``forest.rma`` (Viechtbauer 2010) and Cochrane's forest plots: one
    row per dataset with its effect (square, area proportional to the model weight) and
    confidence interval ``yi ± z_(1−α/2)·√vi`` (whisker, an arrow where the x range clips it);
    the summary effect as a diamond spanning its confidence interval; the prediction interval
    (``predict.rma``; Riley, Higgins & Deeks 2011, BMJ 342:d549) as a capped line beneath it; a
    dotted null line at 0; text columns; a footer with the model, heterogeneity (τ², I², Q), the
    test of the summary effect and the signature.

    Parameters
    ----------
    order : "given" (result order), "effect" (ascending effect, top to bottom), "weight"
        (descending weight), "name", or a sequence listing every dataset name.
    columns : the text columns (:class:`ForestColumns`: row labels and their header, extra
        columns, the means and weights columns, the decimals of ``effect [CI]``).
    show_prediction : the prediction-interval row (random-effects models only).
    higher_is_better : direction of the scores; False swaps the "Favours" sides (positive effects
        then favour the control).
    control_label, treatment_label : the systems' names in the x label and the means header
        (default: from ``result.effects``).
    back_transform : for ``measure == "ZCOR"``: show correlations r = tanh(z) (None/True, through
        the result's ``transformed()`` view; True forces ``tanh`` if the result has none) or
        Fisher's z (False). Pooling always stays on the z scale.
    title : drawn above the table.
    xlabel : default "Favours <control> ← <measure> → Favours <treatment>" when the systems are
        known, else the measure.
    xlim : fixed x range; whiskers beyond it end in arrows. Default: all point estimates, the
        summary CI and PI and 0, plus study CIs unless they are extreme outliers.
    style : the look (:class:`ForestStyle`: font, figure size, stripes).

    Returns
    -------
    matplotlib.figure.Figure
        The forest plot, not registered with pyplot; save it with
        :func:`ranger_eval.plots.save_figure`.

    Raises
    ------
    PlotError
        ``result`` is not a fitted meta-analysis, has a non-finite effect or variance, or an
        option is invalid (an unknown ``order``, a bad ``xlim``).

    References
    ----------
    Viechtbauer, W. (2010). Conducting meta-analyses in R with the metafor package. Journal of
    Statistical Software 36(3). Riley, R. D., Higgins, J. P. T. & Deeks, J. J. (2011).
    Interpretation of random effects meta-analyses. BMJ 342:d549.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import ranger_eval as rg
    >>> result = rg.meta_analysis(yi=[0.12, 0.30, -0.05, 0.22, 0.18],
    ...                           vi=[0.01, 0.02, 0.015, 0.03, 0.012])
    >>> fig = rg.forest_plot(result, title="Five datasets")
    >>> len(fig.axes), bool(fig.get_figwidth() > 0)
    (1, True)
    >>> import matplotlib.pyplot as plt
    >>> plt.close(fig)
    """
    _check_result(result)
    columns = ForestColumns() if columns is None else columns
    style = ForestStyle() if style is None else style
    if not isinstance(columns, ForestColumns):
        raise PlotError(f"columns must be a ForestColumns, got {type(columns).__name__}")
    if not isinstance(style, ForestStyle):
        raise PlotError(f"style must be a ForestStyle, got {type(style).__name__}")
    effects = getattr(result, "effects", None)
    control = control_label or (getattr(effects, "control", None) if effects is not None else None)
    treatment = treatment_label or (getattr(effects, "treatment", None) if effects is not None else None)

    values = forest_values(result, order, show_prediction, back_transform)
    table = build_table(values, columns, effects, (control, treatment))
    est, c_lo, c_hi = values.summary
    core = np.concatenate([values.yi, [est, c_lo, c_hi, 0.0],
                           list(values.prediction) if values.with_pi else []])
    axis = effect_axis(core, np.concatenate([values.lo, values.hi]), xlim, xlabel,
                       values.measure_label, (control, treatment), higher_is_better)
    lay = layout(table, values, axis, footer_parts(result, values), title,
                 getattr(result, "signature", None), style)
    return draw(lay, values, axis, style)


def _check_result(result: Any) -> None:
    """A fitted meta-analysis with one finite effect, a valid variance and a weight per dataset."""
    missing = [a for a in ("names", "yi", "vi", "estimate", "weights") if not hasattr(result, a)]
    if missing:
        raise PlotError(f"forest_plot needs a fitted meta-analysis (rg.meta_analysis(...), a "
                        f"MetaResult); got a {type(result).__name__} without "
                        f"{', '.join(missing)}")
    names = tuple(str(n) for n in result.names)
    yi = np.asarray(result.yi, dtype=float).ravel()
    vi = np.asarray(result.vi, dtype=float).ravel()
    weights = np.asarray(result.weights, dtype=float).ravel()
    k = len(names)
    if k == 0:
        raise PlotError("forest_plot: the result has no datasets")
    for arr, what in ((yi, "yi"), (vi, "vi"), (weights, "weights")):
        if arr.shape != (k,):
            raise PlotError(f"forest_plot: result.{what} has {arr.size} values for {k} datasets")
    bad = [n for n, y, v in zip(names, yi, vi, strict=True) if not (np.isfinite(y) and np.isfinite(v) and v >= 0)]
    if bad:
        raise PlotError(f"forest_plot: non-finite effect or invalid variance for dataset(s) {bad}")
    check_level(result.level, error=PlotError)
