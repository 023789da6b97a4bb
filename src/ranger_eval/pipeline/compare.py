"""``ranger-eval compare``: pairwise tests of many systems (:func:`ranger_eval.compare`) with the
settings resolved once (options over the YAML over :class:`~ranger_eval.settings.CompareSettings`),
its tables and figures (:func:`write_compare_outputs`), and the command's run (:func:`run_compare`).

The figures' modules (:mod:`ranger_eval.plots`, with matplotlib: 0.36 s) are imported when a
figure is drawn, not with ``--figures none``; every other import is at the top.
"""
from __future__ import annotations

import dataclasses
import warnings
from collections.abc import Sequence
from functools import partial
from html import escape as _html_escape
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from .. import report
from ..comparison import Comparison, compare, rank_intervals
from ..errors import ConfigError
from ..formatting import slug
from ..io import Experiment, load_experiment
from ..llm import variance_components
from ..output import FIGURE_FORMATS, OutputFolder
from ..pairing import factorize
from ..report.tables import hypothesis_sentence
from ..settings import CompareSettings, settings_fields
from ._common import (
    YAML_SUFFIXES,
    _experiment_inputs,
    _experiment_scores,
    _shown,
    _system_from_override,
    check_format,
    collecting_warnings,
    display_names,
    finish_outputs,
    load_scores_input,
    parse_bounds,
    settings_options,
    with_display_names,
    with_option_bounds,
)
from ._run import CommandRun

__all__ = ["COMPARE_OUTPUTS", "REPORT_MAX_GROUPS", "capped_comparison", "compare_figure",
           "compare_options", "compare_settings", "compare_summary", "per_dataset_figures_note",
           "run_compare", "write_compare_outputs"]


#: Files written by ``ranger-eval compare`` whatever the input; the per-dataset × metric figures
#: are ``graph``, ``pvalues`` and ``boxplots`` (each .pdf, .svg and .png) for a single dataset ×
#: metric and ``graph-DATASET-METRIC.png`` etc. when there are several.
COMPARE_OUTPUTS: tuple[str, ...] = (
    "comparison.csv",
    "comparison.json",
    "comparison.md",
    "comparison.tex",
    "comparison.html",
    "leaderboard.csv",
    "leaderboard.json",
    "leaderboard.md",
    "leaderboard.tex",
    "heatmap.pdf",
    "heatmap.svg",
    "heatmap.png",
    "manifest.json",
)


def compare_settings(exp: Experiment | None, options: dict[str, Any]) -> CompareSettings:
    """Command-line options (not None) over the YAML's ``compare:`` section and top-level
    ``level``/``missing`` (:meth:`Experiment.settings`), over the :class:`CompareSettings`
    defaults.

    Parameters
    ----------
    exp : Experiment or None
        The experiment read (its ``compare:`` section and top-level keys); None: a scores table.
    options : dict of str to object
        The command-line options by field name; None values are not given.

    Returns
    -------
    CompareSettings
        The settings the comparison runs with.

    Raises
    ------
    SettingsError
        A value or a combination the settings refuse.

    Examples
    --------
    >>> from ranger_eval.pipeline import compare_settings
    >>> s = compare_settings(None, {"level": 0.9, "correction": None})
    >>> s.level, s.correction
    (0.9, 'holm-sidak')
    """
    base = CompareSettings() if exp is None else exp.settings(CompareSettings)
    unknown = set(options) - set(settings_fields(CompareSettings))
    if unknown:
        raise ConfigError(f"unknown comparison option(s): {', '.join(sorted(unknown))}")
    return CompareSettings.from_options(compare_options(options), base)


def compare_options(options: dict[str, Any]) -> dict[str, Any]:
    """The command-line options of ``ranger-eval compare`` checked by :class:`CompareSettings`'
    field checks (:func:`settings_options`: ``option --OPTION: …``; the correction in its
    canonical name, ``BH`` → ``fdr_bh``, as the signature records it). Combinations (a
    baseline, Westfall–Young's conditions) are checked when the settings are built.

    Parameters
    ----------
    options : dict of str to object
        The command's options by Python name; None values are not given.

    Returns
    -------
    dict of str to object
        A copy of ``options``, each settings value checked and canonical.

    Raises
    ------
    ConfigError
        A bad value, ``option --OPTION: …``.

    Examples
    --------
    >>> from ranger_eval.pipeline import compare_options
    >>> compare_options({"correction": "BH", "seed": None})
    {'correction': 'fdr_bh', 'seed': None}
    """
    return settings_options(CompareSettings, options)



def compare_figure(kind: str, comp: Comparison, dataset: Any = None, metric: Any = None) -> Any:
    """One figure of ``ranger-eval compare``: ``graph``, ``pvalues`` or ``boxplots`` of a
    dataset × metric, or the ``heatmap`` of all; queued as a ``functools.partial``, so that
    matplotlib is imported only when a figure is drawn (not with ``--figures none``).

    Parameters
    ----------
    kind : str
        ``graph``, ``pvalues``, ``boxplots`` or ``heatmap``.
    comp : Comparison
        The comparison drawn.
    dataset, metric : object, default None
        The group drawn (not for ``heatmap``).

    Returns
    -------
    matplotlib.figure.Figure
        The figure drawn.

    Raises
    ------
    ValueError
        An unknown ``kind``.

    Examples
    --------
    >>> import pandas as pd
    >>> import ranger_eval as rg
    >>> from ranger_eval.pipeline import compare_figure
    >>> comp = rg.compare(pd.DataFrame({"dataset": "qa", "system": ["a"] * 4 + ["b"] * 4,
    ...                                 "item": [1, 2, 3, 4] * 2,
    ...                                 "value": [0.5, 0.25, 0.75, 0.5, 0.75, 0.5, 1.0, 0.5]}))
    >>> fig = compare_figure("heatmap", comp)
    >>> type(fig).__name__
    'Figure'
    >>> import matplotlib.pyplot as plt
    >>> plt.close(fig)
    """
    # matplotlib (0.36 s) only when a figure is drawn
    if kind == "graph":
        from ..plots.graph import comparison_graph

        return comparison_graph(comp, dataset=dataset, metric=metric)
    if kind == "pvalues":
        from ..plots.pvalues import pvalue_plot

        return pvalue_plot(comp, dataset=dataset, metric=metric)
    if kind == "boxplots":
        from ..plots.boxplots import comparison_boxplots

        return comparison_boxplots(rank_intervals(
            comp, dataset=str(dataset), metric=str(metric), level=comp.level,
            n_resamples=min(comp.n_resamples, 2000), seed=comp.seed))
    if kind == "heatmap":
        from ..plots.heatmap import comparison_heatmap

        return comparison_heatmap(comp)
    raise ValueError(f"compare_figure: unknown figure {kind!r}")


#: Above this many dataset × metric groups, the human-readable tables of ``compare``
#: (comparison.md/.tex/.html, leaderboard.md/.tex) show the first ones only and no figure is
#: drawn, with a warning and a note in each file, as ``meta`` caps its forest plot
#: (:data:`FOREST_MAX_ROWS`); comparison.csv (data, not a report) stays complete.
REPORT_MAX_GROUPS = 200


def capped_comparison(comp: Comparison, *, warn: bool = True
                      ) -> tuple[Comparison, list[tuple[Any, Any]], str | None]:
    """(the comparison the human reports show, every dataset × metric group in order, the note
    saying what was left out or ``None``): above :data:`REPORT_MAX_GROUPS` groups, the first
    ones (rows of the table and means of those groups, numbers unchanged: p-values stay
    adjusted over every test), with a warning (``warn``).

    Parameters
    ----------
    comp : Comparison
        The full comparison.
    warn : bool, default True
        Warn when groups are left out of the reports.

    Returns
    -------
    tuple of (Comparison, list of tuple, str or None)
        The comparison shown, every (dataset, metric) group, and the note on what was left out.

    Examples
    --------
    >>> import pandas as pd
    >>> import ranger_eval as rg
    >>> from ranger_eval.pipeline import capped_comparison
    >>> comp = rg.compare(pd.DataFrame({"dataset": "qa", "system": ["a"] * 4 + ["b"] * 4,
    ...                                 "item": [1, 2, 3, 4] * 2,
    ...                                 "value": [0.5, 0.25, 0.75, 0.5, 0.75, 0.5, 1.0, 0.5]}))
    >>> shown, groups, note = capped_comparison(comp)
    >>> shown is comp, groups, note
    (True, [('qa', 'score')], None)
    """
    means = comp.means
    # groups as integer codes (dataset code × number of metrics + metric code): first
    # appearances in order without building a MultiIndex of a million tuples
    # (pairing.factorize: pd.factorize's codes and uniques, by Arrow from runs of one value)
    datasets, dataset_names = factorize(means["dataset"])
    metrics, metric_names = factorize(means["metric"])
    code = datasets * len(metric_names) + metrics
    _, first = np.unique(code, return_index=True)
    first.sort()
    # lists first: iterating an Arrow-backed Index yields its values one by one (2 s at 300k)
    groups = list(zip(dataset_names[datasets[first]].tolist(),
                      metric_names[metrics[first]].tolist(), strict=True))
    if len(groups) <= REPORT_MAX_GROUPS:
        return comp, groups, None
    keep = code[first[:REPORT_MAX_GROUPS]]
    # the table's rows of the kept groups, coded only among the rows of the kept datasets
    # (coding every row by get_indexer took 0.6 s at 300,000 datasets)
    # (indexes of the kept datasets and metrics only: an Index of every dataset name is a
    # million strings hashed again)
    table = comp.table
    kept_ds, kept_met = np.unique(keep // len(metric_names)), np.unique(keep % len(metric_names))
    ds_index = pd.Index(dataset_names[kept_ds].tolist())
    met_index = pd.Index(metric_names[kept_met].tolist())
    candidates = np.flatnonzero(table["dataset"].isin(ds_index).to_numpy(dtype=bool))
    sub = table.iloc[candidates]
    ds_at = ds_index.get_indexer(sub["dataset"])  # all found: the candidates' datasets
    met_at = met_index.get_indexer(sub["metric"])
    sub_code = np.where(met_at >= 0, kept_ds[ds_at] * len(metric_names) + kept_met[met_at], -1)
    rows = np.zeros(len(table), dtype=bool)
    rows[candidates[np.isin(sub_code, keep)]] = True
    note = (f"Showing the first {REPORT_MAX_GROUPS} of {len(groups):,} dataset × metric groups "
            f"({int(rows.sum()):,} of {len(comp.table):,} comparisons; p-values adjusted over "
            "all of them); the complete table is comparison.csv. No figures are drawn above "
            f"{REPORT_MAX_GROUPS} groups.")
    if warn:
        warnings.warn(f"reports capped: {len(groups):,} dataset × metric groups (more than "
                      f"{REPORT_MAX_GROUPS} cannot be read); comparison.md/.tex/.html and the "
                      f"leaderboard show the first {REPORT_MAX_GROUPS}, no figures are drawn; "
                      "comparison.csv is complete", stacklevel=3)
    shown = comp.restricted(comp.table[rows].reset_index(drop=True),
                            means[np.isin(code, keep)].reset_index(drop=True))
    return shown, groups, note


def _flush_written(out: OutputFolder, start: int) -> list[Path]:
    out.flush()
    return out.written[start:]


def per_dataset_figures_note(n_groups: int, asked: bool) -> str | None:
    """What ``compare`` leaves out by default: with several dataset × metric groups the graph,
    p-value plot and boxplots of each group are drawn only with ``--per-dataset-figures``
    (``per_dataset_figures=True``); the heatmap shows every group. ``None`` when nothing is
    left out (a single group's figures are the overall figures).

    Parameters
    ----------
    n_groups : int
        The number of dataset × metric groups.
    asked : bool
        Whether ``--per-dataset-figures`` was given.

    Returns
    -------
    str or None
        The sentence for comparison.md, or None.

    Examples
    --------
    >>> from ranger_eval.pipeline import per_dataset_figures_note
    >>> per_dataset_figures_note(1, False) is None, per_dataset_figures_note(3, True) is None
    (True, True)
    >>> per_dataset_figures_note(3, False)
    '...--per-dataset-figures...'
    """
    if asked or n_groups <= 1:
        return None
    return (f"the graph, p-value plot and boxplots of each of the {n_groups:,} dataset × "
            "metric groups are not drawn by default (pass --per-dataset-figures, or "
            "per_dataset_figures=True); the heatmap shows every group.")


def _figures_note(comp: Comparison, n_groups: int, per_dataset_figures: bool) -> str | None:
    """What the figures of ``compare`` leave out or draw differently to fit one page (the
    per-dataset figures not asked for, the heatmap's plan), for comparison.md, or ``None``."""
    from ..plots.heatmap import heatmap_plan  # matplotlib: only when figures are drawn

    notes = [per_dataset_figures_note(n_groups, per_dataset_figures), heatmap_plan(comp).note]
    text = " ".join(n for n in notes if n)
    return f"Figures: {text}" if text else None


def write_compare_outputs(comp: Comparison, out: OutputFolder, *,
                          per_dataset_figures: bool = False) -> list[Path]:
    """Tables (CSV, Markdown, LaTeX, HTML), the leaderboard and the figures of a comparison:
    one ``heatmap`` of every group and, for a single dataset × metric or when
    ``per_dataset_figures``, ``graph``, ``pvalues`` and ``boxplots`` once per dataset × metric
    (suffixed with both when there are several, each figure under one name only). What the
    figures leave out or draw differently is said in comparison.md (:func:`_figures_note`).

    Parameters
    ----------
    comp : Comparison
        The comparison to write.
    out : OutputFolder
        Where to write (its ``figures`` formats decide which figures are drawn).
    per_dataset_figures : bool, default False
        Draw each group's figures even when there are several groups.

    Returns
    -------
    list of Path
        The files written (figures once drawn by :meth:`OutputFolder.flush`).

    Examples
    --------
    >>> import tempfile
    >>> import pandas as pd
    >>> import ranger_eval as rg
    >>> from ranger_eval.output import OutputFolder
    >>> from ranger_eval.pipeline import write_compare_outputs
    >>> comp = rg.compare(pd.DataFrame({"dataset": "qa", "system": ["a"] * 4 + ["b"] * 4,
    ...                                 "item": [1, 2, 3, 4] * 2,
    ...                                 "value": [0.5, 0.25, 0.75, 0.5, 0.75, 0.5, 1.0, 0.5]}))
    >>> with tempfile.TemporaryDirectory() as name:
    ...     with OutputFolder(name, figures="none") as out:
    ...         written = write_compare_outputs(comp, out)
    >>> sorted(p.name for p in written)[:3]
    ['comparison.csv', 'comparison.html', 'comparison.json']
    """
    start = len(out.written)
    out.text("comparison.csv", report.to_csv(comp))
    out.parts("comparison.json", report.comparison_json_parts(comp))
    shown, groups, note = capped_comparison(comp)
    figures_note = (None if note is not None or out.figure_formats == ()
                    else _figures_note(comp, len(groups), per_dataset_figures))
    if figures_note is not None:
        note = figures_note
    out.text("comparison.md", report.to_markdown(shown) + ("" if note is None else
                                                          f"\n{note}\n"))
    out.text("comparison.tex", ("" if note is None else f"% {note}\n")
             + report.to_latex(shown))
    html_table = report.to_html(shown)
    if note is not None:
        html_note = f"<p>{_html_escape(note)}</p>\n"
        html_table = (html_table.replace("</body>", html_note + "</body>", 1)
                      if "</body>" in html_table else html_table + html_note)
    out.text("comparison.html", html_table)
    board = shown.leaderboard()
    out.text("leaderboard.csv", report.to_csv(board))
    out.text("leaderboard.json", report.to_json(board, note))  # what the HTML report reads
    out.text("leaderboard.md", report.to_markdown(board) + ("" if note is None else
                                                            f"\n{note}\n"))
    out.text("leaderboard.tex", ("" if note is None else f"% {note}\n")
             + report.to_latex(board))
    if comp.scores.has_prompts:  # the design's variance components, next to the comparison
        components = variance_components(comp.scores)
        out.text("variance_components.csv", report.to_csv(components))
        out.text("variance_components.md", report.to_markdown(components))

    if note is not None and figures_note is None:
        return _flush_written(out, start)
    several = len(groups) > 1
    used: set[str] = set()
    for dataset, metric in groups if per_dataset_figures or not several else ():
        suffix = f"-{slug(str(dataset))}-{slug(str(metric))}" if several else ""
        n = 2
        while suffix in used:  # names that differ only in sanitised characters stay apart
            suffix = f"-{slug(str(dataset))}-{slug(str(metric))}-{n}"
            n += 1
        used.add(suffix)
        # relative drawing times (rank_llm, 6 systems: graph 0.26 s, p-values 0.37 s, boxplots
        # with their bootstrap 0.52 s, heatmap of 2 groups 0.64 s), so that the longest are
        # handed to the figure workers first
        # with prompts no boxplots: their item bootstrap (rank_intervals) would average the
        # prompts away, so it refuses them
        stems = (("graph", 1.0), ("pvalues", 1.4)) + (
            () if comp.scores.has_prompts else (("boxplots", 2.0),))
        for stem, cost in stems:
            out.figure(partial(compare_figure, stem, comp, dataset, metric), f"{stem}{suffix}",
                       FIGURE_FORMATS, dpi=300, cost=cost)
    out.figure(partial(compare_figure, "heatmap", comp), "heatmap", FIGURE_FORMATS, dpi=300,
               cost=1.5 + 0.5 * len(groups))
    out.flush()
    return out.written[start:]


def run_compare(input: str | Path, out: str | Path, command: str | None = None,
                figures: Sequence[str] | str | None = None, html: bool = False,
                format: str | None = None, system_from: str | None = None,
                per_dataset_figures: bool = False, cluster: str | None = None,
                bounds: Sequence[str] | None = None, **options: Any) -> CommandRun:
    """``ranger-eval compare``: read the input, compare with the resolved settings, write.
    ``system_from`` names the systems of evaluation logs (``--system-from``); ``cluster`` the
    field of each item's cluster (``--cluster``); ``bounds`` the ``--bounds METRIC=LO,HI``
    values (:func:`parse_bounds`);
    ``per_dataset_figures`` draws each dataset × metric's graph, p-value plot and boxplots
    (``--per-dataset-figures``; by default only the heatmap when there are several). The run's
    ``result`` is the :class:`~ranger_eval.Comparison`, its ``settings`` the
    :class:`~ranger_eval.settings.CompareSettings` resolved (display names applied).

    Parameters
    ----------
    input : str or Path
        An experiment YAML, a scores table, a tool's output or a folder of them.
    out : str or Path
        The output folder.
    command : str or None, default None
        The command line, recorded in the manifest.
    figures : sequence of str, str or None, default None
        Figure formats (``pdf``, ``svg``, ``png``) or ``"none"``; None: each figure's own.
    html : bool, default False
        Also write ``report.html``.
    format : str or None, default None
        The input's format (``--format``); None: detected.
    system_from : str or None, default None
        Where the systems of logs are named.
    per_dataset_figures : bool, default False
        Draw each dataset × metric's figures.
    cluster : str or None, default None
        The field of each item's cluster.
    bounds : sequence of str or None, default None
        ``METRIC=LO,HI`` ranges.
    **options
        :class:`~ranger_eval.settings.CompareSettings` fields (``level=0.9``,
        ``n_resamples=…``, ``metrics=[…]``); None values are not given.

    Returns
    -------
    CommandRun
        ``result``: the :class:`~ranger_eval.Comparison`; ``written``: the files;
        ``warnings``: the warnings raised; ``settings``: the settings used.

    Raises
    ------
    RangerError
        A bad input or option (named).

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> from ranger_eval.pipeline import run_compare
    >>> folder = tempfile.TemporaryDirectory()
    >>> table = Path(folder.name, "scores.csv")
    >>> _ = table.write_text("dataset,system,item,value\\n" + "".join(
    ...     f"qa,{s},{i},{(3 * i + 5 * k) % 7 / 7:.3f}\\n" for k, s in enumerate("ab")
    ...     for i in range(8)))
    >>> run = run_compare(table, Path(folder.name, "out"), figures="none", level=0.9)
    >>> run.command, run.settings.level, [p.name for p in run.written][-1]
    ('compare', 0.9, 'manifest.json')
    >>> folder.cleanup()
    """
    caught: list[str] = []
    format = check_format(format)
    ranges = parse_bounds(bounds)
    trees: list[Any] = []
    with collecting_warnings(caught, trees):
        exp = (load_experiment(input, **_system_from_override(system_from),
                               **({} if cluster is None else {"cluster": cluster}))
               if Path(input).suffix.lower() in YAML_SUFFIXES else None)
        settings = compare_settings(exp, options)
        metrics = list(settings.metrics) if settings.metrics is not None else None
        inputs = _experiment_inputs(exp) if exp is not None else [Path(input)]
        folder = OutputFolder(out, inputs, figures)
        folder.claim(COMPARE_OUTPUTS)
        if exp is not None:
            scores = with_display_names(_experiment_scores(exp, metrics), exp)
            shown_systems, _ = display_names(exp)
            settings = dataclasses.replace(
                settings, baseline=_shown(settings.baseline, shown_systems),
                systems=_shown(settings.systems, shown_systems))
        else:
            scores, _ = load_scores_input(input, metrics, format, system_from, cluster)
        scores = with_option_bounds(scores, ranges)
        # the metrics were chosen while reading (IR measures are evaluated by those names)
        comp = compare(scores, settings=dataclasses.replace(settings, metrics=None))
        write_compare_outputs(comp, folder, per_dataset_figures=per_dataset_figures)
    caught += finish_outputs(folder, str(comp.signature), command, html, caught, trees)
    return CommandRun(comp, tuple(folder.written), tuple(caught), settings, "compare")


def compare_summary(comp: Comparison) -> str:
    """What ``ranger-eval compare`` prints: the leaderboard (capped as comparison.md is, with
    its note; the warning is the run's), the number of comparisons and of significant ones,
    and the verdict of a non-inferiority or equivalence hypothesis when there is one.

    Parameters
    ----------
    comp : Comparison
        The comparison of the run.

    Returns
    -------
    str
        The text printed.

    Examples
    --------
    >>> import pandas as pd
    >>> import ranger_eval as rg
    >>> from ranger_eval.pipeline import compare_summary
    >>> comp = rg.compare(pd.DataFrame({"dataset": "qa", "system": ["a"] * 4 + ["b"] * 4,
    ...                                 "item": [1, 2, 3, 4] * 2,
    ...                                 "value": [0.5, 0.25, 0.75, 0.5, 0.75, 0.5, 1.0, 0.5]}))
    >>> print(compare_summary(comp).splitlines()[-1])
    1 comparisons, 0 significant
    """
    n_sig = int(comp.table["significant"].sum())
    shown, _, note = capped_comparison(comp, warn=False)  # the warning is in the run's
    lines = [report.to_markdown(shown.leaderboard()) + ("" if note is None else f"\n{note}"),
             f"{len(comp.table)} comparisons, {n_sig} significant"]
    verdict = hypothesis_sentence(comp)
    if verdict:
        lines.append(verdict)
    return "\n".join(lines)

