"""The entry of the multi-system forest plot: :func:`multi_forest_plot` checks the results, then
takes each system's values (:mod:`.systems`), lays out the figure (:mod:`.layout`) and draws it
(:mod:`.draw`)."""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from matplotlib.figure import Figure

from ...errors import PlotError, renamed_keywords
from .._axis import effect_axis
from .draw import draw
from .layout import footer_parts, layout, values_column
from .options import MultiForestColumns, MultiForestStyle
from .systems import check_results, dataset_rows, system_values

__all__ = ["multi_forest_plot"]

#: Former keywords of multi_forest_plot (before the one vocabulary) and what replaces them.
_RENAMED = {
    "lower_is_better": "higher_is_better",
    "labels": "columns=MultiForestColumns(labels=...)",
    "label_header": "columns=MultiForestColumns(label_header=...)",
    "show_values": "columns=MultiForestColumns(values=...)",
    "precision": "columns=MultiForestColumns(precision=...)",
    "plot_width": "style=MultiForestStyle(plot_width=...)",
    "colors": "style=MultiForestStyle(colors=...)",
    "markers": "style=MultiForestStyle(markers=...)",
    "fontsize": "style=MultiForestStyle(fontsize=...)",
    "fontfamily": "style=MultiForestStyle(fontfamily=...)",
}


@renamed_keywords(**_RENAMED)
def multi_forest_plot(
    results: Mapping[str, Any],
    *,
    order: str | Sequence[str] = "given",
    columns: MultiForestColumns | None = None,
    show_prediction: bool = False,
    higher_is_better: bool = True,
    control_label: str | None = None,
    back_transform: bool | None = None,
    title: str | None = None,
    xlabel: str | None = None,
    xlim: tuple[float, float] | None = None,
    style: MultiForestStyle | None = None,
) -> Figure:
    """Forest plot of several systems, each against the same control, one row per dataset.

    One row per dataset holds one marker and confidence interval per system, dodged vertically in
    a fixed system order (colour *and* marker shape tell the systems apart, so the figure survives
    greyscale printing and colour-vision deficiencies: Okabe & Ito's palette); a legend names the
    systems; at the bottom each system's summary effect is a diamond spanning its confidence
    interval (optionally with its prediction interval). The footer states each system's model and
    heterogeneity and the reproducibility signatures.

    Parameters
    ----------
    results : mapping system name → :class:`ranger_eval.meta.MetaResult` (same effect measure and
        level), in legend and dodging order (first system on top in each row). Datasets missing
        for a system are left empty in its sub-row.
    order : dataset rows "given" (first appearance over the results), "name", "effect" (mean
        effect over the systems, ascending), or a sequence listing every dataset.
    columns : the text columns (:class:`MultiForestColumns`: row labels and their header, the
        ``effect [CI]`` column and its decimals).
    show_prediction : draw each system's prediction interval (random-effects models) as a line
        through its summary diamond.
    higher_is_better : direction of the scores; False swaps the "Favours" sides.
    control_label : the control's name in the x label (default: the results' ``effects.control``
        when they agree).
    back_transform : ZCOR effects are shown as correlations r = tanh(z) (default) unless False.
    title : drawn above the legend.
    xlabel : default "Favours <control> ← <measure> → Favours <system>" when the control is known,
        else the measure.
    xlim : fixed x range; whiskers beyond it end in arrows. Default as ``forest_plot``.
    style : the look (:class:`MultiForestStyle`: font, plot width, colours and markers).

    Returns
    -------
    matplotlib.figure.Figure
        The multi-forest plot, not registered with pyplot; save it with
        :func:`ranger_eval.plots.save_figure`.

    Raises
    ------
    PlotError
        An empty mapping, a value that is not a fitted meta-analysis, or results of different
        measures or levels.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import ranger_eval as rg
    >>> result = rg.meta_analysis(yi=[0.12, 0.30, -0.05, 0.22, 0.18],
    ...                           vi=[0.01, 0.02, 0.015, 0.03, 0.012])
    >>> other = rg.meta_analysis(yi=[0.10, 0.20, 0.00], vi=[0.01, 0.02, 0.02])
    >>> fig = rg.multi_forest_plot({"large": result, "small": other})
    >>> len(fig.axes)
    1
    >>> import matplotlib.pyplot as plt
    >>> plt.close(fig)
    """
    items = check_results(results)
    columns = MultiForestColumns() if columns is None else columns
    style = MultiForestStyle() if style is None else style
    if not isinstance(columns, MultiForestColumns):
        raise PlotError(f"columns must be a MultiForestColumns, got {type(columns).__name__}")
    if not isinstance(style, MultiForestStyle):
        raise PlotError(f"style must be a MultiForestStyle, got {type(style).__name__}")
    systems, transformed = system_values(items, style.system_looks(len(items)), back_transform,
                                         show_prediction)
    datasets, row_labels = dataset_rows(systems, order, columns.labels)
    measure = items[0][1].measure
    measure_label = "r" if transformed else (measure or "Effect")
    values = (values_column(systems, datasets, columns, measure_label, style) if columns.values
              else None)

    core = np.concatenate([np.concatenate(
        [s.yi, [s.est, s.c_lo, s.c_hi, 0.0], [s.p_lo, s.p_hi] if s.with_pi else []])
        for s in systems])
    wide = np.concatenate([np.concatenate([s.lo, s.hi]) for s in systems])
    if control_label is None:
        controls = {getattr(getattr(s.res, "effects", None), "control", None) for s in systems}
        control_label = controls.pop() if len(controls) == 1 else None
    axis = effect_axis(core, wide, xlim, xlabel, measure_label, (control_label, "system"),
                       higher_is_better)
    lay = layout(systems, row_labels, values, axis, footer_parts(systems, transformed), title,
                 columns, style)
    return draw(lay, systems, (datasets, row_labels), axis, columns.label_header, style)
