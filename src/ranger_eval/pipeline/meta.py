"""``ranger-eval meta``: an experiment's effect sizes per task and their meta-analysis
(:func:`run_experiment`), the forest plot and tables of the result (:func:`write_meta_outputs`),
and the command's run (:func:`run_meta`).

The forest plot's module (:mod:`ranger_eval.plots.forest`, with matplotlib: 0.36 s) is imported
when the figure is drawn, not with ``--figures none``; every other import is at the top.
"""
from __future__ import annotations

import warnings
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from .. import report
from ..comparison import declared_set_metrics, metric_directions
from ..effects import EffectSizes, degenerate_text, effect_sizes, zero_variance_reasons
from ..errors import ConfigError, EffectSizeError, Hint, RangerError, ScoresError
from ..io import Experiment, IRConfig, experiment_from_table, load_experiment
from ..meta import MetaResult, meta_analysis
from ..output import FIGURE_FORMATS, OutputFolder
from ..scores import Scores
from ..settings import MetaSettings
from ._common import (
    YAML_SUFFIXES,
    _experiment_inputs,
    _some,
    analysed_metric,
    check_format,
    collect_scores,
    collecting_warnings,
    finish_outputs,
    option_error,
    parse_bounds,
    settings_options,
)
from ._run import CommandRun

__all__ = ["FOREST_MAX_ROWS", "META_OUTPUTS", "ExperimentResult", "forest_figure", "meta_options",
           "run_experiment", "run_meta", "write_meta_outputs"]


def meta_options(overrides: dict[str, Any]) -> dict[str, Any]:
    """The command-line options of ``ranger-eval meta`` checked by :class:`MetaSettings`' field
    checks (``meta_KEY``: a key of the ``meta:`` section; :func:`settings_options`).

    Parameters
    ----------
    overrides : dict of str to object
        The command's options by Python name (``meta_method``, …); None values are not given.

    Returns
    -------
    dict of str to object
        A copy of ``overrides``, each settings value checked and canonical.

    Raises
    ------
    ConfigError
        A bad value, ``option --OPTION: …``.

    Examples
    --------
    >>> from ranger_eval.pipeline import meta_options
    >>> meta_options({"meta_method": "reml", "out": "results"})
    {'meta_method': 'REML', 'out': 'results'}
    """
    out = settings_options(MetaSettings, overrides)
    out = settings_options(MetaSettings, out, prefix="meta_")
    if out.get("format") is not None:
        out["format"] = check_format(out["format"])
    return out



# --------------------------------------------------------------------------- meta-analysis
@dataclass(frozen=True)
class ExperimentResult:
    """Scores, per-task effect sizes and the fitted model of one experiment.

    ``skipped`` maps task ids that could not be analysed (e.g. an IR collection without qrels)
    to the reason; they are reported, never silently left out.
    """

    scores: Scores
    effects: EffectSizes
    result: MetaResult
    title: str | None = None
    skipped: dict[str, str] = field(default_factory=dict)


def _means_columns(scores: Scores, measures: list[str], control: str, treatment: str,
                   datasets: list[str]) -> pd.DataFrame:
    """Per-dataset means of extra ``measures``: columns ``"<m> control"``, ``"<m> treatment"``."""
    frame = scores.frame
    means = frame.groupby(["dataset", "system", "metric"], sort=False)["value"].mean()
    columns = {}
    for m in measures:
        for role, system in (("control", control), ("treatment", treatment)):
            columns[f"{m} {role}"] = [means.get((d, system, m), np.nan) for d in datasets]
    return pd.DataFrame(columns, index=pd.Index(datasets, name="dataset"))


def run_experiment(exp: Experiment) -> ExperimentResult:
    """Compute effect sizes of ``treatment`` over ``control`` per task and meta-analyse them.

    IR tasks are evaluated on the ``ir.measure`` (the effect's metric) and the ``ir.columns``
    measures (shown as control → treatment means); tasks that cannot be scored are reported in
    ``skipped``.

    Parameters
    ----------
    exp : Experiment
        A loaded experiment (:func:`ranger_eval.load_experiment`); its
        :class:`~ranger_eval.settings.MetaSettings` (YAML ``meta:`` section or top-level keys)
        name the control, treatment, effect measure and τ² estimator.

    Returns
    -------
    ExperimentResult
        ``scores``, the per-task ``effects`` (:class:`~ranger_eval.effects.EffectSizes`), the
        ``result`` of :func:`ranger_eval.meta_analysis` (carrying the settings), the title and
        the ``skipped`` tasks with their reasons.

    Raises
    ------
    ConfigError
        No control or treatment, or an unknown one.

    Examples
    --------
    >>> import tempfile
    >>> from ranger_eval import load_experiment
    >>> from ranger_eval.demo import write_demo
    >>> from ranger_eval.pipeline import run_experiment
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     res = run_experiment(load_experiment(write_demo(folder)))
    >>> res.result.k, res.effects.measure, round(float(res.result.estimate), 4), res.skipped
    (6, 'SMD', -0.0532, {})
    """
    cfg = exp.config
    settings = exp.settings(MetaSettings)
    control, treatment = settings.control, settings.treatment
    if control is None or treatment is None:
        role = "control" if control is None else "treatment"
        defined = f" (systems: {_some(cfg.systems)})" if cfg.systems else ""
        raise ConfigError(
            f"{exp.source}: {role}: required for the meta-analysis; set `meta: {{control: …, "
            f"treatment: …}}` in the file or pass --control and --treatment{defined}")
    ir_cfg = cfg.ir or IRConfig()
    extra_measures = [c for c in ir_cfg.columns if c != ir_cfg.measure] if exp.is_ir else []
    collected = collect_scores(
        exp, [control, treatment], [ir_cfg.measure, *extra_measures] if exp.is_ir else None
    )
    scores = collected.scores
    # --metric pass@K: the per-item pass@K rows collect_scores made (their own metric label)
    metric = ir_cfg.measure if exp.is_ir else analysed_metric(cfg.metric, scores)
    datasets = [t.id for t in cfg.tasks if t.id not in collected.skipped] or None
    set_metric = settings.metric_fn
    if set_metric is None and not exp.is_ir:  # a log's corpus-level metric (lm-eval f1 …)
        set_metric = declared_set_metrics(scores).get(str(metric)) if metric else None
    with _cli_degenerate_hint():
        eff = effect_sizes(
            scores,
            treatment=treatment,
            control=control,
            measure=("MD" if set_metric and "measure" not in cfg.model_fields_set
                     else settings.measure),
            metric=metric,
            datasets=datasets,
            missing=cfg.missing,
            level=settings.level,
            metric_fn=set_metric,
            n_resamples=settings.n_resamples,
            seed=settings.seed,
            seeds=settings.seeds,
            degenerate=settings.degenerate,
        )
    _refuse_zero_variance(exp, eff)
    skipped = {**collected.skipped, **eff.skipped}
    if extra_measures:
        eff = eff.with_extra(_means_columns(scores, extra_measures, control, treatment, list(eff.names)))
    eff = eff.rename(exp.task_labels)
    res = meta_analysis(eff, settings=settings,  # the command's settings, recorded by the result
                        higher_is_better=_effect_direction(scores, metric)
                        if settings.margin else True)
    return ExperimentResult(
        scores=scores, effects=eff, result=res, title=cfg.title, skipped=skipped
    )


def _effect_direction(scores: Scores, metric: str | None) -> bool:
    """Whether a larger effect is better, for the margin's verdict: False when the scores'
    ``higher_is_better`` column (the adapters' metadata: perplexity, TER …) says lower is better
    for the analysed metric (every metric when None), True when it says nothing; a mix is a
    ConfigError."""
    found = {h for (_, m), h in metric_directions(scores).items()
             if metric is None or m == str(metric)}
    if len(found) > 1:
        raise ConfigError("margin: the scores' higher_is_better column says higher is better "
                          "for some datasets and lower for others; a margin's non-inferiority "
                          "needs one direction")
    return found != {False}


@contextmanager
def _cli_degenerate_hint() -> Iterator[None]:
    """Name the YAML key beside the setting in :func:`effect_sizes`' degenerate error (the hint
    stays: the command line says it as ``--drop-degenerate``, Python as ``degenerate='drop'``)."""
    try:
        yield
    except EffectSizeError as exc:
        hint = _DROP_DEGENERATE
        text = str(exc)
        if hint.text not in text:
            raise
        raise EffectSizeError(text.replace(hint.text, f"{hint.text} {_DROP_DEGENERATE_YAML}"),
                              hints=[hint]) from None


#: The setting that leaves degenerate datasets out, and its YAML key.
_DROP_DEGENERATE = Hint("degenerate", "drop")
_DROP_DEGENERATE_YAML = "(YAML `meta: {degenerate: drop}`)"


def _refuse_zero_variance(exp: Experiment, eff: EffectSizes) -> None:
    """Every dataset of zero sampling variance in one error, with the estimator asked for and the
    option that leaves them out (``meta.degenerate: drop``, ``--drop-degenerate``)."""
    zero = zero_variance_reasons(eff)
    if not zero:
        return
    method = exp.config.method
    raise EffectSizeError(
        f"{len(zero)} of {eff.k} dataset(s) have zero sampling variance, which the {method} "
        f"meta-analysis cannot weight (1/vi): {degenerate_text(zero)}; {_DROP_DEGENERATE.text} "
        f"{_DROP_DEGENERATE_YAML} to leave them out with a warning", hints=[_DROP_DEGENERATE])


def _control_treatment_columns(eff: EffectSizes) -> dict[str, dict[str, str]]:
    """Plot columns "0.494 → 0.679" for every extra ``"<m> control"``/``"<m> treatment"`` pair."""
    extra = eff.extra
    if extra is None:
        return {}
    columns = {}
    for col in extra.columns:
        measure = col.removesuffix(" control")
        if col.endswith(" control") and f"{measure} treatment" in extra.columns:
            pairs = zip(extra[col], extra[f"{measure} treatment"], strict=True)
            columns[measure] = {
                name: f"{c:.3f} → {t:.3f}" for name, (c, t) in zip(extra.index, pairs, strict=True)
            }
    return columns



#: Files written by ``ranger-eval meta`` and ``demo``.
META_OUTPUTS: tuple[str, ...] = (
    "forest.pdf", "forest.svg", "forest.png", "effects.csv", "summary.json", "summary.md",
    "summary.tex", "manifest.json",
)




#: Above this many datasets ``meta`` draws no forest plot (it could not be read), with a warning.
FOREST_MAX_ROWS = 200


def forest_figure(result: MetaResult, *, left_columns: Any = None, **options: Any) -> Any:
    """The forest plot of ``ranger-eval meta`` (:func:`ranger_eval.plots.forest_plot`) with
    ``left_columns`` (``ForestColumns(left=...)``), imported when drawn (not with
    ``--figures none``).

    Parameters
    ----------
    result : MetaResult
        The meta-analysis drawn.
    left_columns : object, default None
        The columns left of the plot.
    **options
        Keywords of :func:`ranger_eval.plots.forest_plot`.

    Returns
    -------
    matplotlib.figure.Figure
        The forest plot.

    Examples
    --------
    >>> import tempfile
    >>> from ranger_eval import load_experiment
    >>> from ranger_eval.demo import write_demo
    >>> from ranger_eval.pipeline import forest_figure, run_experiment
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     res = run_experiment(load_experiment(write_demo(folder)))
    >>> fig = forest_figure(res.result)
    >>> type(fig).__name__
    'Figure'
    >>> import matplotlib.pyplot as plt
    >>> plt.close(fig)
    """
    from ..plots.forest import ForestColumns, forest_plot  # matplotlib: drawn figures only

    return forest_plot(result, columns=ForestColumns(left=left_columns), **options)


def write_meta_outputs(exp: Experiment, res: ExperimentResult, out: OutputFolder) -> list[Path]:
    """forest.{pdf,svg,png}, effects.csv, summary.json, summary.md and summary.tex, each with the
    signature (effects.csv is plain CSV: its signature is in the folder's manifest.json).

    Parameters
    ----------
    exp : Experiment
        The experiment analysed.
    res : ExperimentResult
        Its result (:func:`run_experiment`).
    out : OutputFolder
        Where to write.

    Returns
    -------
    list of Path
        The files written (figures once drawn by :meth:`OutputFolder.flush`).

    Examples
    --------
    >>> import tempfile
    >>> from ranger_eval import load_experiment
    >>> from ranger_eval.demo import write_demo
    >>> from ranger_eval.output import OutputFolder
    >>> from ranger_eval.pipeline import run_experiment, write_meta_outputs
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     exp = load_experiment(write_demo(folder))
    ...     with OutputFolder(folder + "/out", figures="none") as out:
    ...         written = write_meta_outputs(exp, run_experiment(exp), out)
    >>> sorted(p.name for p in written)
    ['effects.csv', 'summary.json', 'summary.md', 'summary.tex']
    """
    cfg = exp.config
    control = exp.system_label(cfg.control)
    treatment = exp.system_label(cfg.treatment)
    start = len(out.written)
    k = len(res.result.names)
    if k > FOREST_MAX_ROWS:
        warnings.warn(f"forest plot skipped: {k:,} datasets (a forest of more than "
                      f"{FOREST_MAX_ROWS} rows cannot be read); the summary and effects.csv are "
                      f"complete", stacklevel=2)
    else:
        forest = partial(forest_figure, res.result, order=cfg.order,
                         left_columns=_control_treatment_columns(res.effects) or None,
                         title=res.title, control_label=control, treatment_label=treatment)
        out.figure(forest, "forest", FIGURE_FORMATS)
    frame = res.effects.to_frame()
    ids = {label: task_id for task_id, label in exp.task_labels.items()}
    frame.insert(0, "task_id", [ids.get(d, d) for d in frame["dataset"]])
    frame["weight"] = res.result.weights
    out.text("effects.csv", frame.to_csv(index=False, lineterminator="\n"))
    header = {"title": res.title, "control": cfg.control, "treatment": cfg.treatment,
              "control_label": control, "treatment_label": treatment, "measure": cfg.measure,
              "skipped": res.skipped}
    out.text("summary.json", report.to_json(res.result, header=header))
    details: dict[str, Any] = dict(
        n=dict(zip(res.result.names, np.asarray(res.effects.n).tolist(), strict=True)),
        title=res.title, control=control, treatment=treatment, skipped=res.skipped,
    )
    out.text("summary.md", report.to_markdown(res.result, **details))
    out.text("summary.tex", report.to_latex(res.result, **details))
    out.flush()
    return out.written[start:]




def run_meta(config: str | Path, out: str | Path, command: str | None = None,
             figures: Sequence[str] | str | None = None, html: bool = False,
             **overrides: Any) -> CommandRun:
    """``ranger-eval meta``: load the YAML (``overrides`` replace its keys), analyse, write.

    ``config`` may also be a scores table or a tool's output (tidy CSV, ``ranger-eval trec
    --format csv``, lm-eval, Inspect …); ``control`` and ``treatment`` then come from
    ``overrides``. The run's ``result`` is the :class:`ExperimentResult`, its ``settings`` the
    experiment's :class:`~ranger_eval.settings.MetaSettings`, ``parts["experiment"]`` the
    :class:`~ranger_eval.io.Experiment` read.

    Parameters
    ----------
    config : str or Path
        An experiment YAML, or a scores table or tool's output.
    out : str or Path
        The output folder.
    command : str or None, default None
        The command line, recorded in the manifest.
    figures : sequence of str, str or None, default None
        Figure formats or ``"none"``.
    html : bool, default False
        Also write ``report.html``.
    **overrides
        Keys of the YAML (``control``, ``treatment``, ``meta_method``, …); None values are not
        given.

    Returns
    -------
    CommandRun
        The run (see above).

    Raises
    ------
    RangerError
        A bad input or option (named).

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> from ranger_eval.demo import write_demo
    >>> from ranger_eval.pipeline import run_meta
    >>> folder = tempfile.TemporaryDirectory()
    >>> run = run_meta(write_demo(folder.name), Path(folder.name, "out"), figures="none")
    >>> run.command, run.result.result.k
    ('meta', 6)
    >>> folder.cleanup()
    """
    caught: list[str] = []
    ranges = parse_bounds(overrides.pop("bounds", None))  # --bounds: the YAML's bounds: key
    overrides = meta_options(overrides)
    if ranges:
        overrides["bounds"] = ranges
    trees: list[Any] = []
    with collecting_warnings(caught, trees):
        if Path(config).suffix.lower() in YAML_SUFFIXES:
            exp = load_experiment(config, **overrides)
        else:
            exp = experiment_from_table(config, **overrides)
            _require_control_treatment(exp)
        folder = OutputFolder(out, _experiment_inputs(exp), figures)
        folder.claim(META_OUTPUTS)
        try:
            res = run_experiment(exp)
        except ScoresError as exc:  # --bounds (over the YAML's key) that the scores contradict
            if ranges and str(exc).startswith("bounds"):
                raise option_error("bounds", str(exc).split(": ", 1)[1]) from exc
            raise
        write_meta_outputs(exp, res, folder)
    caught += finish_outputs(folder, str(res.result.signature), command, html, caught, trees)
    return CommandRun(res, tuple(folder.written), tuple(caught), exp.settings(MetaSettings),
                      "meta", {"experiment": exp})



def _require_control_treatment(exp: Experiment) -> None:
    """A scores table (no YAML) names no systems: ``--control`` and ``--treatment`` are needed;
    the error lists the systems found in the table."""
    cfg = exp.config
    lacking = [f"--{role}" for role in ("control", "treatment") if getattr(cfg, role) is None]
    if not lacking:
        return
    try:
        found = f"; systems in the table: {_some(collect_scores(exp).scores.systems)}"
    except RangerError:
        found = ""
    raise ConfigError(
        f"{exp.source}: no {' or '.join(lacking)} given: a scores table needs --control and "
        f"--treatment, the two systems to compare{found}")

