"""The one orchestration layer: config or arguments → Scores → analyses → output files.

Every ``ranger-eval`` command and :func:`run_experiment` go through here; the CLI only parses
arguments and prints. Each step is a public function of its own layer:

* reading: :mod:`ranger_eval.io` (score files, tables, experiment YAML), :mod:`ranger_eval.ir`
  (TREC runs and qrels → per-query measures);
* analyses: :func:`ranger_eval.effects.effect_sizes` → :func:`ranger_eval.meta.meta_analysis`,
  :func:`ranger_eval.comparison.compare`;
* outputs: :mod:`ranger_eval.report` (tables) and :mod:`ranger_eval.plots` (figures), written by
  :class:`OutputFolder`: atomically, never over an input file, with a ``manifest.json``.

Warnings raised while reading and analysing are collected into the run's ``warnings`` so the
command line prints them once, in one format.
"""
from __future__ import annotations

import dataclasses
import json
import warnings
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import partial
from html import escape as _html_escape
from pathlib import Path
from typing import Any, TypeVar

import numpy as np
import pandas as pd

from ..comparison import Comparison, compare, rank_intervals
from ..effects import EffectSizes, degenerate_text, effect_sizes, zero_variance_reasons
from ..errors import (
    ConfigError,
    EffectSizeError,
    Hint,
    InputError,
    RangerError,
    Said,
    ScoresError,
    SettingsError,
    in_callers_words,
    suggest,
)
from ..io import (
    Experiment,
    IRConfig,
    experiment_from_table,
    load_experiment,
    read_item_scores,
    read_scores,
)
from ..meta import MetaResult, meta_analysis
from ..output import FIGURE_FORMATS, OutputFolder, figure_workers, warm_figure_modules
from ..pairing import factorize
from ..scores import Scores
from ..settings import (
    MAX_RESAMPLES,
    CompareSettings,
    MetaSettings,
    RankSettings,
    check_value,
    check_whole,
    cli_options,
    settings_fields,
)
from ._run import CommandRun

__all__ = [
    "CommandRun",
    "PLAN_OUTPUTS",
    "PlanRun",
    "run_plan",
    "COMPARE_OUTPUTS",
    "MAX_RESAMPLES",
    "check_format",
    "compare_options",
    "meta_options",
    "option_error",
    "rank_options",
    "display_names",
    "with_display_names",
    "RANK_OUTPUTS",
    "RankRun",
    "run_rank",
    "write_report",
    "CollectedScores",
    "CompareRun",
    "ExperimentResult",
    "DemoRun",
    "MetaRun",
    "FIGURE_FORMATS",
    "OutputFolder",
    "figure_workers",
    "warm_figure_modules",
    "collect_scores",
    "load_scores_input",
    "run_compare",
    "run_demo",
    "run_experiment",
    "run_meta",
    "write_compare_outputs",
    "write_meta_outputs",
]

T = TypeVar("T")
YAML_SUFFIXES = (".yaml", ".yml")



# --------------------------------------------------------------------------- option values
def option_error(option: str, message: str) -> ConfigError:
    """``option --OPTION: message``: a bad command-line value, blamed on the option (never on the
    input file). ``option`` is the Python name (``n_resamples`` → ``--n-resamples``)."""
    return ConfigError(f"option --{option.replace('_', '-')}: {message}")


def parse_bounds(values: Sequence[str] | None) -> dict[str, list[float]] | None:
    """``--bounds METRIC=LO,HI`` (each value once per metric) as the YAML ``bounds:`` mapping
    ``{metric: [lo, hi]}``; None when not given. A value that is not ``METRIC=LO,HI`` with two
    numbers is ``option --bounds: …``."""
    if not values:
        return None
    out: dict[str, list[float]] = {}
    for value in values:
        metric, eq, rest = str(value).rpartition("=")
        parts = rest.split(",")
        try:
            if not eq or not metric.strip() or len(parts) != 2:
                raise ValueError
            lo, hi = float(parts[0]), float(parts[1])
        except ValueError:
            raise option_error("bounds", f"expected METRIC=LO,HI (e.g. f1=0,1); got "
                                         f"{value!r}") from None
        out[metric.strip()] = [lo, hi]
    return out


def with_option_bounds(scores: Scores, bounds: dict[str, list[float]] | None) -> Scores:
    """``scores`` with the ranges of ``--bounds`` declared (over those the YAML or a reader
    gave); a range the scores contradict, an unknown metric or lo ≥ hi is
    ``option --bounds: …``."""
    if not bounds:
        return scores
    return _checked("bounds", lambda: scores.with_bounds(bounds))


def _checked(option: str, check: Callable[[], T]) -> T:
    """``check()``; a :class:`RangerError` it raises is re-raised as ``option --OPTION: …``
    (a settings error's own ``OPTION: `` prefix dropped)."""
    try:
        return check()
    except RangerError as exc:
        raise option_error(option, str(exc).removeprefix(f"{option}: ")) from exc


def _whole(option: str, value: object, low: int, high: int | None = None) -> int:
    """``value`` as an int in ``[low, high]``, else ``option --OPTION: …`` naming the range."""
    return _checked(option, lambda: check_whole(option, value, low, high))


def check_format(value: str | None, option: str = "format") -> str | None:
    """An input ``format``: None, ``auto``, ``table`` or an adapter's name (aliases and case
    folded to the canonical name, e.g. ``lm_eval`` → ``lm-eval``)."""
    if value is None or value in ("auto", "table"):
        return value
    from ..io import adapters

    try:
        return adapters.normalize_format(value)
    except RangerError:
        choices = ("auto", *adapters.FORMATS)
        raise option_error(option, f"unknown format {value!r}; use one of {', '.join(choices)}"
                           + suggest(value, choices)) from None


def settings_options(cls: type[Any], options: dict[str, Any], prefix: str = ""
                     ) -> dict[str, Any]:
    """``options`` with each value (not None) of a field of the settings class ``cls`` (key
    ``prefix + field``) checked alone by that field's check and in canonical spelling (names
    are case-insensitive where the analysis says so: ``--method reml`` is ``REML``); a bad
    value is a :class:`ConfigError` ``option --OPTION: …`` naming the value and what is
    accepted. Other keys are returned unchanged."""
    flags = cli_options(cls)
    out = dict(options)
    for key, value in options.items():
        name = key.removeprefix(prefix) if key.startswith(prefix) else None
        if value is not None and name in settings_fields(cls):
            try:
                out[key] = check_value(cls, name, value)
            except SettingsError as exc:
                raise option_error(flags.get(name, name),
                                   str(exc).removeprefix(f"{name}: ")) from exc
    return out


def meta_options(overrides: dict[str, Any]) -> dict[str, Any]:
    """The command-line options of ``ranger-eval meta`` checked by :class:`MetaSettings`' field
    checks (``meta_KEY``: a key of the ``meta:`` section; :func:`settings_options`)."""
    out = settings_options(MetaSettings, overrides)
    out = settings_options(MetaSettings, out, prefix="meta_")
    if out.get("format") is not None:
        out["format"] = check_format(out["format"])
    return out


# --------------------------------------------------------------------------- warnings
@contextmanager
def collecting_warnings(sink: list[str], trees: list[Any] | None = None) -> Iterator[None]:
    """Record every warning raised inside the block as one line of text in ``sink`` (a
    :class:`~ranger_eval.errors.Said`: with the warning's hints, which the command line says as
    its options), and (``trees``) every folder tree of logs read inside it
    (:class:`~ranger_eval.io.logtree.LogTree`, for ``manifest.json``'s ``inputs``)."""
    from ..io.logtree import recording_log_trees

    with warnings.catch_warnings(record=True) as caught, recording_log_trees() as read:
        warnings.simplefilter("always")
        warnings.filterwarnings("ignore", category=DeprecationWarning)
        try:
            yield
        except RangerError as exc:  # its warnings are lost: say what the trees left out
            skips = "; ".join(f"{t.folder}: skipped {len(t.skipped)}: {t.skipped_text()}"
                              for t in read if t.skipped)
            if skips and exc.args:
                exc.args = (f"{exc.args[0]} (while reading the logs, {skips})", *exc.args[1:])
            raise
    for w in caught:  # in the caller's words: the command line's options during a command
        hints = getattr(w.message, "hints", ())
        sink.append(Said(in_callers_words(" ".join(str(w.message).split()), hints), hints))
    if trees is not None:
        trees.extend(read)


# --------------------------------------------------------------------------- scores of an experiment
@dataclass(frozen=True)
class CollectedScores:
    """Per-item scores of an experiment's systems, and what could not be scored.

    ``skipped`` maps a task id to the reason it has no scores at all (an IR task without qrels,
    or fewer than two of the requested systems with a file); ``missing`` lists the
    ``(system, task)`` pairs without a file on tasks that were still scored. Both are also
    warned about: nothing is left out silently.
    """

    scores: Scores
    skipped: dict[str, str]
    missing: tuple[tuple[str, str], ...] = ()


def _collect_task(exp: Experiment, task: Any, systems: list[str], measures: list[str],
                  ir_cfg: IRConfig, frames: list[pd.DataFrame], skipped: dict[str, str],
                  missing: list[tuple[str, str]]) -> None:
    """Per-item scores of one task (appended to ``frames``), or why it has none."""
    cfg = exp.config
    if exp.is_ir and task.qrels is None:
        skipped[task.id] = "no qrels"
        return
    have = [s for s in systems if task.id in cfg.systems[s].files]
    lacking = [s for s in systems if s not in have]
    if len(have) < min(2, len(systems)):
        skipped[task.id] = f"no file for {', '.join(lacking)}"
        return
    missing += [(s, task.id) for s in lacking]
    if task.qrels is not None:
        from .. import ir
        from ..ir.measures import written_names

        runs = {s: exp.path(cfg.systems[s].files[task.id]) for s in have}
        evaluation = ir.evaluate_many(
            exp.path(task.qrels), runs, measures, missing=ir_cfg.missing,
            score_precision=ir_cfg.score_precision, progress=False,
        )
        frame = ir.to_scores(evaluation, task.id).frame
        # the measures as the user wrote them (map, ndcg@10), not ir_measures' AP, nDCG@10
        written = written_names(measures, verbatim=True)
        frames.append(frame.assign(metric=frame["metric"].map(lambda m: written.get(m, m))))
        return
    from ..io.adapters import input_format

    for sys_id in have:
        sys_cfg = cfg.systems[sys_id]
        path = exp.path(sys_cfg.files[task.id])
        if input_format(path) is not None:  # an evaluation log (.eval, lm-eval, HELM ...)
            frames.append(_log_task_frame(exp, path, task.id, sys_id))
            continue
        series = read_item_scores(
            path,
            item_column=sys_cfg.item_column,
            value_column=sys_cfg.value_column,
        )
        frames.append(
            pd.DataFrame(
                {
                    "dataset": task.id,
                    "system": sys_id,
                    "metric": cfg.metric or "score",
                    "item": series.index.to_numpy(),
                    "value": series.to_numpy(),
                }
            )
        )


def _log_task_frame(exp: Experiment, path: Path, task_id: str, sys_id: str) -> pd.DataFrame:
    """The rows of an evaluation log listed as ``systems.<sys_id>.files.<task_id>``: the
    system is ``sys_id``; the dataset is ``task_id`` (the log's own task of that name, or its
    only one); with ``metric:`` only that metric."""
    cfg = exp.config
    where = f"{exp.source}: systems.{sys_id}.files.{task_id}: {path}"
    sys_cfg = cfg.systems[sys_id]
    columns = {k for k in ("item_column", "value_column") if k in sys_cfg.model_fields_set}
    if columns:
        raise ConfigError(f"{exp.source}: systems.{sys_id}.{sorted(columns)[0]}: not used for "
                          f"{path.name}, an evaluation log (its items and values are the "
                          f"log's own); remove the key")
    frame = read_scores(path, format=cfg.format, system=sys_id).raw_frame
    datasets = list(dict.fromkeys(frame["dataset"].astype(str)))
    if task_id in datasets:
        frame = frame[frame["dataset"].astype(str) == task_id]
    elif len(datasets) > 1:
        raise ConfigError(f"{where} holds {len(datasets)} tasks ({_some(datasets)}), none named "
                          f"{task_id!r}: name the task after one of them, or list the log as "
                          f"`systems: {{{sys_id}: {path.name}}}` (every task it holds)")
    if cfg.metric is not None:
        metrics = list(dict.fromkeys(frame["metric"].astype(str)))
        if cfg.metric not in metrics:
            raise ConfigError(f"{where} has no metric {cfg.metric!r} (its metrics: "
                              f"{_some(metrics)})")
        frame = frame[frame["metric"].astype(str) == cfg.metric]
    return frame.assign(dataset=task_id).reset_index(drop=True)


def _read_inputs(inputs: Sequence[tuple[Path, str | None]], format: str | None,
                 system_from: str | list[str] | None, cluster: str | None = None) -> Scores:
    """The ``scores:`` entries (or the logs of ``systems: {name: path}``) as one Scores: each
    (path, system) read with :func:`read_scores` (the system, when named, replaces the logs'
    own; ``cluster`` names the field of each item's cluster); two inputs holding one key are
    an error naming both files."""
    if all(system is None for _, system in inputs):
        return read_scores([p for p, _ in inputs], format=format, system_from=system_from,
                           cluster=cluster)
    from ..io.adapters import concat_inputs

    frames = [read_scores(p, format=format, system=system, system_from=system_from,
                          cluster=cluster).raw_frame
              for p, system in inputs]
    return concat_inputs(frames, [p for p, _ in inputs],
                         source=f"{len(inputs)} inputs ({inputs[0][0]}, ...)")


def collect_scores(
    exp: Experiment, systems: list[str] | None = None, measures: list[str] | None = None
) -> CollectedScores:
    """Per-item scores of ``systems`` (default: all) on every task of the experiment.

    Score files are read with :func:`read_item_scores` (metric = the config's ``metric`` or
    ``"score"``). IR tasks (with ``qrels``) are evaluated from the systems' TREC runs with
    :func:`ranger_eval.ir.evaluate_many` on ``measures`` (default: the ``ir.measure``); the metric
    is the measure name. A config with a tidy ``scores`` table is read as it is.
    """
    cfg = exp.config
    logs = {k: exp.log_paths(k) for k, c in cfg.systems.items() if c.logs}
    if cfg.scores is not None or logs:
        inputs = ([(p, k) for k, paths in logs.items() for p in paths] if logs
                  else exp.score_inputs)
        scores = _read_inputs(inputs, cfg.format, cfg.system_from, cfg.cluster)
        if cfg.metric is not None and cfg.metric not in scores.metrics:
            from ..io.adapters import check_corpus_metrics

            check_corpus_metrics([p for p, _ in inputs], [cfg.metric], cfg.format)
        left_out: dict[str, str] = {}
        if cfg.metric is not None and cfg.metric in scores.metrics:
            scores, left_out = only_metrics(scores, [cfg.metric], stacklevel=3)
        if systems is not None:
            scores = scores.filter(systems=systems)
        if cfg.bounds:
            scores = scores.with_bounds(cfg.bounds)
        return CollectedScores(scores, left_out)
    systems = list(cfg.systems) if systems is None else list(systems)
    ir_cfg = cfg.ir or IRConfig()
    measures = measures or [ir_cfg.measure]
    frames: list[pd.DataFrame] = []
    skipped: dict[str, str] = {}
    missing: list[tuple[str, str]] = []
    from ..progress import progress_bar

    with progress_bar("reading scores", total=len(cfg.tasks)) as advance:
        for task in cfg.tasks:
            _collect_task(exp, task, systems, measures, ir_cfg, frames, skipped, missing)
            advance(description=f"reading scores: {task.id}")
    if skipped:
        kind = "collection" if exp.is_ir else "task"
        warnings.warn(
            f"skipped {kind}(s): " + "; ".join(f"{k} ({v})" for k, v in skipped.items()),
            stacklevel=2,
        )
    if missing:
        warnings.warn(
            "no file for " + "; ".join(f"{s} on {t}" for s, t in missing)
            + " (left out of those tasks)",
            stacklevel=2,
        )
    if not frames:
        raise ConfigError(f"{exp.source}: no scores: no task has files for the systems {systems}")
    if any("sample" in f.columns for f in frames):  # a log of one epoch: K = 1 per item
        frames = [f if "sample" in f.columns else f.assign(sample="1") for f in frames]
    scores = Scores(pd.concat(frames, ignore_index=True), source=str(exp.source))
    scores = _known_bounds(scores, exp.is_ir)
    if cfg.bounds:
        scores = scores.with_bounds(cfg.bounds)
    return CollectedScores(scores, skipped, tuple(missing))


def _known_bounds(scores: Scores, is_ir: bool) -> Scores:
    """``scores`` with the IR measures evaluated from runs (nDCG, AP, P@k, R@k, RR …, every
    measure but the counts) declared in [0, 1] (:func:`ranger_eval.ir.measure_bounds`), where
    their values lie inside: the intervals of their means stay in range (issue 27 §3)."""
    if not is_ir:
        return scores
    from ..ir import measure_bounds

    f = scores.frame
    bounds = {m: b for m, b in measure_bounds(scores.metrics).items()
              if f.loc[f["metric"] == m, "value"].between(*b).all()}
    return scores.with_bounds(bounds) if bounds else scores

def only_metrics(scores: Scores, metrics: Sequence[str], *, stacklevel: int = 2
                 ) -> tuple[Scores, dict[str, str]]:
    """The rows of ``metrics`` only (``--metric``, the YAML's ``metric``), saying what that
    leaves out: one warning names every dataset without some of them and the metrics it has;
    the datasets without any of them are returned as left out (dataset → reason, e.g.
    ``{"wic": "no metric 'acc' (its metrics: mcc)"}``) for ``skipped``. A metric that no
    dataset has is an error listing the metrics there are (:meth:`Scores.filter`)."""
    kept = scores.filter(metrics=metrics)
    pairs = scores.frame[["dataset", "metric"]].drop_duplicates()
    wanted = list(dict.fromkeys(str(m) for m in metrics))
    has = pairs.groupby("dataset", sort=False)["metric"].agg(list)
    lacking = {d: [m for m in wanted if m not in got] for d, got in has.items()}
    lacking = {d: ms for d, ms in lacking.items() if ms}
    if not lacking:
        return kept, {}
    left_out = {str(d): f"no metric {_some(map(repr, ms))} (its metrics: {_some(has[d])})"
                for d, ms in lacking.items() if len(ms) == len(wanted)}
    partly = [f"{d} has no {_some(map(repr, ms))} (its metrics: {_some(has[d])})"
              for d, ms in lacking.items() if len(ms) < len(wanted)]
    parts = ([f"left out {len(left_out)} of {len(has)} dataset(s) without metric "
              f"{_some(map(repr, wanted))}: "
              + "; ".join(f"{d} ({why})" for d, why in list(left_out.items())[:20])
              + (f"; … ({len(left_out)} in all)" if len(left_out) > 20 else "")]
             if left_out else [])
    if partly:
        parts.append("; ".join(partly[:20]) + (f"; … ({len(partly)} in all)"
                                               if len(partly) > 20 else ""))
    warnings.warn(". ".join(parts), stacklevel=stacklevel)
    return kept, left_out


# --------------------------------------------------------------------------- display names
def display_names(exp: Experiment | None) -> tuple[dict[str, str], dict[str, str]]:
    """(system id → display name, task id → display name) of an experiment's ``name`` keys.

    Only ids with a name of their own are listed. Two systems (or two tasks) shown under the same
    name would merge in every table and figure, so that is a :class:`ConfigError`.
    """
    if exp is None:
        return {}, {}
    result = []
    for kind, labels in (("systems", exp.system_labels), ("tasks", exp.task_labels)):
        seen: dict[str, str] = {}
        for ident, label in labels.items():
            if label in seen:
                raise ConfigError(
                    f"{exp.source}: {kind}: {seen[label]!r} and {ident!r} are both shown as "
                    f"{label!r}; give each a distinct `name`"
                )
            seen[label] = ident
        result.append({k: v for k, v in labels.items() if v != k})
    return result[0], result[1]


def with_display_names(scores: Scores, exp: Experiment | None) -> Scores:
    """``scores`` with systems and datasets renamed to the experiment's display names, so that
    every table, figure and report of ``compare`` and ``rank`` shows them (as ``meta`` does)."""
    systems, tasks = display_names(exp)
    systems = {k: v for k, v in systems.items() if k in scores.systems}
    tasks = {k: v for k, v in tasks.items() if k in scores.datasets}
    if not systems and not tasks:
        return scores
    frame = scores.raw_frame  # with its samples, if any (averaged again below)
    for column, mapping in (("system", systems), ("dataset", tasks)):
        if mapping:
            clash = sorted(set(mapping.values()) & (set(frame[column]) - set(mapping)))
            if clash:
                raise ConfigError(
                    f"{exp.source if exp else ''}: display name(s) {', '.join(map(repr, clash))} "
                    f"are also the id of another {column} in the scores; rename one of them"
                )
            frame[column] = frame[column].map(lambda v, m=mapping: m.get(v, v))
    return Scores(frame, source=str(exp.source) if exp else None)


def _shown(value: Any, mapping: dict[str, str]) -> Any:
    """A setting naming systems (or tasks) by id or by display name, as display names."""
    if value is None or not mapping:
        return value
    if isinstance(value, str):
        return mapping.get(value, value)
    if isinstance(value, dict):
        return {mapping.get(k, k): v for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(_shown(v, mapping) for v in value)
    return value


# --------------------------------------------------------------------------- HTML report
def write_report(folder: str | Path, command: str | None = None) -> tuple[Path, tuple[str, ...]]:
    """``folder/report.html`` from the files an earlier run wrote there (and its subfolders with
    their own manifest); returns the path and the warnings (e.g. a file changed since the run)."""
    from ..report.html import write_html_report

    caught: list[str] = []
    with collecting_warnings(caught):
        path = write_html_report(folder, command=command)
    return path, tuple(caught)


def _drop_stale_report(folder: Path) -> None:
    """A run without ``--html`` removes the report.html an earlier run wrote there (it would
    describe the old results); only a file Ranger wrote (its marker inside) is removed."""
    from ..report.html import REPORT_FILE

    old = folder / REPORT_FILE
    try:
        if old.is_file() and b"ranger-results" in old.read_bytes()[:2_000_000]:
            old.unlink()
    except OSError:
        pass


def finish_outputs(folder: OutputFolder, signature: str, command: str | None,
                   html: bool, warnings: Sequence[str] = (),
                   trees: Sequence[Any] = ()) -> list[str]:
    """Manifest (with the run's ``warnings``, as :func:`collecting_warnings` recorded them, and
    the folder trees of logs read, ``trees``, under ``inputs``), then (with ``html``) the
    one-file report; returns warnings of the report."""
    folder.finish(signature, command, warnings, inputs=[t.to_dict() for t in trees])
    if not html:
        _drop_stale_report(folder.path)
        return []
    path, warnings = write_report(folder.path, command)
    folder.written.append(path)
    return list(warnings)


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
    datasets = [t.id for t in cfg.tasks if t.id not in collected.skipped] or None
    set_metric = settings.metric_fn
    if set_metric is None and not exp.is_ir:  # a log's corpus-level metric (lm-eval f1 …)
        from ..comparison import declared_set_metrics

        set_metric = declared_set_metrics(scores).get(str(cfg.metric)) if cfg.metric else None
    with _cli_degenerate_hint():
        eff = effect_sizes(
            scores,
            treatment=treatment,
            control=control,
            measure=("MD" if set_metric and "measure" not in cfg.model_fields_set
                     else settings.measure),
            metric=ir_cfg.measure if exp.is_ir else cfg.metric,
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
    res = meta_analysis(eff, method=settings.method, test=settings.test, level=settings.level,
                        margin=settings.margin,
                        higher_is_better=_effect_direction(
                            scores, ir_cfg.measure if exp.is_ir else cfg.metric)
                        if settings.margin else True)
    return ExperimentResult(
        scores=scores, effects=eff, result=res, title=cfg.title, skipped=skipped
    )


def _effect_direction(scores: Scores, metric: str | None) -> bool:
    """Whether a larger effect is better, for the margin's verdict: False when the scores'
    ``higher_is_better`` column (the adapters' metadata: perplexity, TER …) says lower is better
    for the analysed metric (every metric when None), True when it says nothing; a mix is a
    ConfigError."""
    from ..comparison import metric_directions

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


@dataclass(frozen=True)
class MetaRun:
    """``ranger-eval meta``: the experiment, its result, the files written, the warnings."""

    experiment: Experiment
    result: ExperimentResult
    written: tuple[Path, ...]
    warnings: tuple[str, ...]


#: Above this many datasets ``meta`` draws no forest plot (it could not be read), with a warning.
FOREST_MAX_ROWS = 200


def forest_figure(result: MetaResult, *, left_columns: Any = None, **options: Any) -> Any:
    """The forest plot of ``ranger-eval meta`` (:func:`ranger_eval.plots.forest_plot`) with
    ``left_columns`` (``ForestColumns(left=...)``), imported when drawn (not with
    ``--figures none``)."""
    from ..plots.forest import ForestColumns, forest_plot

    return forest_plot(result, columns=ForestColumns(left=left_columns), **options)


def write_meta_outputs(exp: Experiment, res: ExperimentResult, out: OutputFolder) -> list[Path]:
    """forest.{pdf,svg,png}, effects.csv, summary.json, summary.md and summary.tex, each with the
    signature (effects.csv is plain CSV: its signature is in the folder's manifest.json)."""
    from ..aggregate.agreement import margin_disagreements
    from ..report.meta import meta_latex, meta_markdown

    cfg = exp.config
    control = exp.system_label(cfg.control)
    treatment = exp.system_label(cfg.treatment)
    signature = str(res.result.signature)
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
    payload = {
        "title": res.title,
        "control": cfg.control,
        "treatment": cfg.treatment,
        "control_label": control,
        "treatment_label": treatment,
        "measure": cfg.measure,
        "skipped": res.skipped,
        "result": res.result.to_dict(),
        # the test of no effect against the margin's verdict, where they seem to disagree
        **({"disagreements": why} if (why := margin_disagreements(res.result)) else {}),
        "signature": signature,
    }
    out.text("summary.json", json.dumps(payload, indent=2, allow_nan=False) + "\n")
    details: dict[str, Any] = dict(
        n=dict(zip(res.result.names, np.asarray(res.effects.n).tolist(), strict=True)),
        title=res.title, control=control, treatment=treatment, skipped=res.skipped,
    )
    out.text("summary.md", meta_markdown(res.result, **details))
    out.text("summary.tex", meta_latex(res.result, **details))
    out.flush()
    return out.written[start:]


def _experiment_inputs(exp: Experiment) -> list[Path]:
    cfg = exp.config
    paths = [p for p in [exp.source] if p is not None]
    paths += exp.scores_paths
    paths += [exp.path(t.qrels) for t in cfg.tasks if t.qrels]
    for sys_cfg in cfg.systems.values():
        paths += [exp.path(f) for f in [*sys_cfg.files.values(), *sys_cfg.logs]]
    return paths


def run_meta(config: str | Path, out: str | Path, command: str | None = None,
             figures: Sequence[str] | str | None = None, html: bool = False,
             **overrides: Any) -> MetaRun:
    """``ranger-eval meta``: load the YAML (``overrides`` replace its keys), analyse, write.

    ``config`` may also be a scores table or a tool's output (tidy CSV, ``ranger-eval trec
    --format csv``, lm-eval, Inspect …); ``control`` and ``treatment`` then come from
    ``overrides``."""
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
    return MetaRun(exp, res, tuple(folder.written), tuple(caught))


def _some(names: Iterable[Any], limit: int = 10) -> str:
    """``a, b, c`` (at most ``limit`` names, then ``… (N in all)``)."""
    names = [str(n) for n in names]
    more = f", … ({len(names)} in all)" if len(names) > limit else ""
    return ", ".join(names[:limit]) + more


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


@dataclass(frozen=True)
class DemoRun:
    """``ranger-eval demo``: the meta-analysis (``out``) and the ranking (``out/ranking``)."""

    meta: MetaRun
    rank: RankRun

    @property
    def written(self) -> tuple[Path, ...]:
        return self.meta.written + self.rank.written

    @property
    def warnings(self) -> tuple[str, ...]:
        return self.meta.warnings + self.rank.warnings


def run_demo(out: str | Path, seed: int = 2023, command: str | None = None,
             figures: Sequence[str] | str | None = None, html: bool = False) -> DemoRun:
    """``ranger-eval demo``: two synthetic examples the project generates itself.

    1. the meta-analysis of a compressed vs a baseline model on six tasks (``out/``, data in
       ``out/example``);
    2. the ranking of five systems over four datasets and three metrics, a code-completion-like
       setting (``out/ranking/``, data in ``out/example/multi``), ending in the ranking graph.
    """
    from ..demo import write_demo, write_multi_demo

    seed = _whole("seed", seed, 0)
    yaml_path = write_demo(Path(out) / "example", seed=seed)
    multi = write_multi_demo(Path(out) / "example" / "multi", seed=seed)
    rank = run_rank(multi, Path(out) / "ranking", command, figures)
    meta = run_meta(yaml_path, out, command, figures, html)  # its report includes ranking/
    return DemoRun(meta, rank)


# --------------------------------------------------------------------------- comparison
@dataclass(frozen=True)
class CompareRun:
    """``ranger-eval compare``: the comparison, the settings used, the files, the warnings."""

    comparison: Comparison
    settings: CompareSettings
    written: tuple[Path, ...]
    warnings: tuple[str, ...]


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

def _experiment_scores(exp: Experiment, metrics: list[str] | None) -> Scores:
    cfg = exp.config
    if cfg.scores is None and len(cfg.systems) < 2:
        raise ConfigError(
            f"{exp.source}: systems: compare needs at least two systems "
            f"(defined: {', '.join(cfg.systems) or 'none'})"
        )
    scores = collect_scores(exp, measures=metrics if exp.is_ir else None).scores
    if metrics and not exp.is_ir:
        scores, _ = only_metrics(scores, metrics)
    return scores


def load_scores_input(path: str | Path, metrics: list[str] | None = None,
                      format: str | None = None, system_from: str | None = None,
                      cluster: str | None = None) -> tuple[Scores, Experiment | None]:
    """Scores from an experiment YAML, a tidy scores table, an evaluation tool's output or a
    folder of those (and the experiment, if a YAML); ``system_from`` names the systems of
    logs (``--system-from``, over the YAML's ``system_from``), ``cluster`` the field of each
    item's cluster (``--cluster``, over the YAML's ``cluster``)."""
    path = Path(path)
    if path.suffix.lower() in YAML_SUFFIXES:
        exp = load_experiment(path, **_system_from_override(system_from),
                              **({} if cluster is None else {"cluster": cluster}))
        return _experiment_scores(exp, metrics), exp
    scores = read_scores(path, format=format, system_from=_checked_system_from(system_from),
                         cluster=cluster)
    if metrics:
        if any(m not in scores.metrics for m in metrics):
            from ..io.adapters import check_corpus_metrics

            check_corpus_metrics([path], metrics, format)
        scores, _ = only_metrics(scores, metrics)
    return scores, None


def _checked_system_from(value: str | None) -> str | None:
    """``--system-from`` checked (an unknown source is ``option --system-from: …``)."""
    if value is not None:
        from ..io.adapters import check_system_from

        try:
            check_system_from(value)
        except InputError as exc:
            raise option_error("system-from", str(exc).removeprefix("system_from: ")) from None
    return value


def _system_from_override(value: str | None) -> dict[str, Any]:
    """``--system-from`` as a YAML override (``system_from``), or nothing."""
    return {} if value is None else {"system_from": _checked_system_from(value)}


def compare_settings(exp: Experiment | None, options: dict[str, Any]) -> CompareSettings:
    """Command-line options (not None) over the YAML's ``compare:`` section and top-level
    ``level``/``missing`` (:meth:`Experiment.settings`), over the :class:`CompareSettings`
    defaults."""
    base = CompareSettings() if exp is None else exp.settings(CompareSettings)
    unknown = set(options) - set(settings_fields(CompareSettings))
    if unknown:
        raise ConfigError(f"unknown comparison option(s): {', '.join(sorted(unknown))}")
    return CompareSettings.from_options(compare_options(options), base)


def compare_options(options: dict[str, Any]) -> dict[str, Any]:
    """The command-line options of ``ranger-eval compare`` checked by :class:`CompareSettings`'
    field checks (:func:`settings_options`: ``option --OPTION: …``; the correction in its
    canonical name, ``BH`` → ``fdr_bh``, as the signature records it). Combinations (a
    baseline, Westfall–Young's conditions) are checked when the settings are built."""
    return settings_options(CompareSettings, options)


def _slug(text: str) -> str:
    import re

    return re.sub(r"[^A-Za-z0-9@.+=-]+", "_", text).strip("_") or "x"


def compare_figure(kind: str, comp: Comparison, dataset: Any = None, metric: Any = None) -> Any:
    """One figure of ``ranger-eval compare``: ``graph``, ``pvalues`` or ``boxplots`` of a
    dataset × metric, or the ``heatmap`` of all; queued as a ``functools.partial``, so that
    matplotlib is imported only when a figure is drawn (not with ``--figures none``)."""
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
    adjusted over every test), with a warning (``warn``)."""
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
    left out (a single group's figures are the overall figures)."""
    if asked or n_groups <= 1:
        return None
    return (f"the graph, p-value plot and boxplots of each of the {n_groups:,} dataset × "
            "metric groups are not drawn by default (pass --per-dataset-figures, or "
            "per_dataset_figures=True); the heatmap shows every group.")


def _figures_note(comp: Comparison, n_groups: int, per_dataset_figures: bool) -> str | None:
    """What the figures of ``compare`` leave out or draw differently to fit one page (the
    per-dataset figures not asked for, the heatmap's plan), for comparison.md, or ``None``."""
    from ..plots.heatmap import heatmap_plan

    notes = [per_dataset_figures_note(n_groups, per_dataset_figures), heatmap_plan(comp).note]
    text = " ".join(n for n in notes if n)
    return f"Figures: {text}" if text else None


def write_compare_outputs(comp: Comparison, out: OutputFolder, *,
                          per_dataset_figures: bool = False) -> list[Path]:
    """Tables (CSV, Markdown, LaTeX, HTML), the leaderboard and the figures of a comparison:
    one ``heatmap`` of every group and, for a single dataset × metric or when
    ``per_dataset_figures``, ``graph``, ``pvalues`` and ``boxplots`` once per dataset × metric
    (suffixed with both when there are several, each figure under one name only). What the
    figures leave out or draw differently is said in comparison.md (:func:`_figures_note`)."""
    from .. import report

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

    if note is not None and figures_note is None:
        return _flush_written(out, start)
    several = len(groups) > 1
    used: set[str] = set()
    for dataset, metric in groups if per_dataset_figures or not several else ():
        suffix = f"-{_slug(str(dataset))}-{_slug(str(metric))}" if several else ""
        n = 2
        while suffix in used:  # names that differ only in sanitised characters stay apart
            suffix = f"-{_slug(str(dataset))}-{_slug(str(metric))}-{n}"
            n += 1
        used.add(suffix)
        # relative drawing times (rank_llm, 6 systems: graph 0.26 s, p-values 0.37 s, boxplots
        # with their bootstrap 0.52 s, heatmap of 2 groups 0.64 s), so that the longest are
        # handed to the figure workers first
        for stem, cost in (("graph", 1.0), ("pvalues", 1.4), ("boxplots", 2.0)):
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
                bounds: Sequence[str] | None = None, **options: Any) -> CompareRun:
    """``ranger-eval compare``: read the input, compare with the resolved settings, write.
    ``system_from`` names the systems of evaluation logs (``--system-from``); ``cluster`` the
    field of each item's cluster (``--cluster``); ``bounds`` the ``--bounds METRIC=LO,HI``
    values (:func:`parse_bounds`);
    ``per_dataset_figures`` draws each dataset × metric's graph, p-value plot and boxplots
    (``--per-dataset-figures``; by default only the heatmap when there are several)."""
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
        comp = compare(scores, **dataclasses.replace(settings, metrics=None).as_dict())
        write_compare_outputs(comp, folder, per_dataset_figures=per_dataset_figures)
    caught += finish_outputs(folder, str(comp.signature), command, html, caught, trees)
    return CompareRun(comp, settings, tuple(folder.written), tuple(caught))


# --------------------------------------------------------------------------- ranking
#: Files written by ``ranger-eval rank`` (``graph.*`` only for per-item scores).
RANK_OUTPUTS: tuple[str, ...] = (
    "ranking.md", "ranking.csv", "ranking.json", "ranking.tex", "cd.pdf", "cd.svg", "cd.png",
    "ranktest.md", "ranktest.csv", "ranktest.tex", "graph.pdf", "graph.svg", "graph.png",
    "bradley_terry.md", "bradley_terry.csv", "bradley_terry.tex", "bradley_terry_ratings.pdf",
    "bradley_terry_ratings.svg", "bradley_terry_ratings.png", "winrate.md", "winrate.csv",
    "winrate.tex", "manifest.json",
)

@dataclass(frozen=True)
class RankRun:
    """``ranger-eval rank``: Demšar's rank test over datasets, the IBM post-op ranking (when
    per-item scores are given), the files written and the warnings."""

    rank_test: Any
    ranking: Any | None
    settings: RankSettings
    written: tuple[Path, ...]
    warnings: tuple[str, ...]
    #: the Bradley–Terry leaderboard (:class:`~ranger_eval.verdicts.Ratings`) of the rank's
    #: metric (``RankSettings.bradley_terry``); None when switched off or impossible (why:
    #: a warning)
    bradley_terry: Any | None = None
    #: HELM's mean win rates (:class:`~ranger_eval.aggregate.WinRate`, winrate.md) of the
    #: rank's metric
    win_rates: Any | None = None


def _is_tidy(frame: pd.DataFrame) -> bool:
    return {"dataset", "system", "value"} <= set(frame.columns)


def _parquet_columns(path: Path) -> set[str]:
    """The column names in a Parquet file's schema (no rows read); none when the schema cannot
    be read (reading the whole file then names the problem). The file passes the checks of
    every input first (a regular file within the size limits)."""
    import pyarrow.parquet as pq

    from ..io.files import check_input_file

    check_input_file(path, what="table")
    try:
        return set(pq.read_schema(path).names)
    except (OSError, ValueError):  # pyarrow's ArrowIOError / ArrowInvalid
        return set()


def read_rank_input(path: str | Path, system_from: str | None = None,
                    cluster: str | None = None
                    ) -> tuple[Scores | None, pd.DataFrame | None, Experiment | None]:
    """(per-item Scores, dataset-level table, experiment) from a YAML, a tidy table with an
    ``item`` column, an evaluation tool's output or a folder of logs (their systems named by
    ``system_from``), a tidy dataset-level table (``dataset, system, value``), or a wide table
    (rows = datasets, columns = systems, first column the dataset names). ``cluster`` names
    the field of each item's cluster (``--cluster``: per-item scores only)."""
    path = Path(path)
    with_cluster = {} if cluster is None else {"cluster": cluster}
    if path.suffix.lower() in YAML_SUFFIXES:
        exp = load_experiment(path, **_system_from_override(system_from), **with_cluster)
        metrics = exp.settings(CompareSettings).metrics
        return _experiment_scores(exp, None if metrics is None else list(metrics)), None, exp
    from ..io import adapters
    from ..io.tables import ITEM_TABLE, check_ids, is_item_table, read_table, row_location

    if path.is_dir() or adapters.input_format(path) is not None:  # tool output(s): per item
        return read_scores(path, system_from=_checked_system_from(system_from),
                           cluster=cluster), None, None
    if path.suffix.lower() == ".parquet" and set(ITEM_TABLE) <= _parquet_columns(path):
        # per-item scores, told by the schema: read once
        return read_scores(path, cluster=cluster), None, None
    frame = read_table(path)
    if not isinstance(frame.index, pd.RangeIndex):  # a Parquet file written with its index
        frame = frame.reset_index()
    if is_item_table(frame.columns):  # the tables compare and meta read (trec -q's too)
        return read_scores(path, cluster=cluster), None, None
    if cluster is not None:
        raise ConfigError(
            f"{path}: --cluster {cluster} groups items, but this is a dataset-level table "
            "(no item column): give per-item scores (dataset, system, item, value and the "
            f"{cluster} column), or leave --cluster out")
    if _is_tidy(frame):
        check_ids(frame, path, ("dataset", "system"))
        return None, frame, None
    if frame.shape[1] < 3:
        raise InputError(
            f"{path}: a rank table needs a first column of dataset names and at least two "
            f"system columns; got columns {', '.join(map(str, frame.columns))}"
        )
    check_ids(frame, path, (frame.columns[0],))
    wide = frame.set_index(frame.columns[0])
    wide.index = wide.index.astype(str)
    wide.index.name = "dataset"
    for col in wide.columns:
        numeric = pd.to_numeric(wide[col], errors="coerce")
        bad = numeric.isna() & wide[col].notna()  # an empty cell is a missing result (rank_test)
        if bad.any():
            r = int(np.flatnonzero(bad.to_numpy())[0])
            raise InputError(
                f"{row_location(frame, path, r)}: system {col!r} on dataset "
                f"{wide.index[r]!r}: not a number "
                f"({wide[col].iloc[r]!r})"
            )
        wide[col] = numeric.astype(float)
    return None, wide, None


def rank_settings(exp: Experiment | None, options: dict[str, Any]) -> RankSettings:
    """Command-line options (not None) over the YAML's ``aggregate:`` section and top-level
    ``level`` (:meth:`Experiment.settings`), over the :class:`RankSettings` defaults."""
    base = RankSettings() if exp is None else exp.settings(RankSettings)
    unknown = set(options) - set(settings_fields(RankSettings))
    if unknown:
        raise ConfigError(f"unknown ranking option(s): {', '.join(sorted(unknown))}")
    return RankSettings.from_options(rank_options(options), base)


def rank_options(options: dict[str, Any]) -> dict[str, Any]:
    """The command-line options of ``ranger-eval rank`` checked by :class:`RankSettings`' field
    checks, as :func:`compare_options` checks those of ``compare``."""
    return settings_options(RankSettings, options)


def cd_figure(rank_test: Any, labels: dict[str, str] | None = None) -> Any:
    """The critical-difference diagram of ``ranger-eval rank``
    (:func:`ranger_eval.plots.cd_diagram`), imported when drawn (not with ``--figures none``)."""
    from ..plots.cd import cd_diagram

    return cd_diagram(rank_test, labels=labels)


def write_rank_outputs(rank_test: Any, ranking: Any | None, out: OutputFolder,
                       labels: dict[str, str] | None = None,
                       naive: pd.Series | None = None,
                       bradley_terry: Any | None = None,
                       win_rates: Any | None = None) -> list[Path]:
    """ranking.{md,csv,json,tex}, ranktest.{md,csv,tex}, the CD diagram and the graph; with
    ``bradley_terry`` (a :class:`~ranger_eval.verdicts.Ratings`, or the text of why there is
    none) bradley_terry.{md,csv,tex} and its ratings figure, and its result in ranking.json;
    with ``win_rates`` (a :class:`~ranger_eval.aggregate.WinRate`) winrate.{md,csv,tex} and
    its result in ranking.json (``win_rate``)."""
    from .. import report
    from ..aggregate.agreement import bayesian_disagreements, rank_disagreements

    start = len(out.written)
    main = ranking if ranking is not None else rank_test
    extra = {"naive": naive} if ranking is None and naive is not None else {}
    test_dict = rank_test.to_dict()
    ranking_dict = ranking.to_dict() if ranking is not None else None
    # the two verdicts on each pair (frequentist pairwise tests against Nemenyi/CD or against
    # the Bayesian ROPE decisions), explained where they differ (issue 27 §4)
    disagreements = ([] if ranking_dict is None else
                     bayesian_disagreements(ranking_dict, test_dict)
                     if test_dict.get("approach") == "bayesian"
                     else rank_disagreements(ranking_dict, test_dict))
    out.text("ranking.md", report.why_both_hold(report.to_markdown(main, **extra),
                                                disagreements))
    out.text("ranking.csv", report.to_csv(main))
    out.text("ranking.tex", report.to_latex(main, **extra))
    payload = {"rank_test": test_dict,
               "ranking": ranking_dict,
               "naive_means": None if naive is None else {str(k): float(v)
                                                          for k, v in naive.items()},
               **_bradley_terry_payload(bradley_terry),
               **({"win_rate": win_rates.to_dict()} if win_rates is not None else {}),
               **({"disagreements": disagreements} if disagreements else {}),
               "signature": str(main.signature)}
    out.text("ranking.json", json.dumps(payload, indent=2, allow_nan=False) + "\n")
    if ranking is not None:
        rank_signature = rank_test.signature
        out.text("ranktest.md", report.to_markdown(rank_test), rank_signature)
        out.text("ranktest.csv", report.to_csv(rank_test), rank_signature)
        out.text("ranktest.tex", report.to_latex(rank_test), rank_signature)
        out.figure(ranking.plot, "graph", FIGURE_FORMATS, dpi=300)
    out.figure(partial(cd_figure, rank_test, labels=labels), "cd", ("pdf", "svg", "png"),
               signature=rank_test.signature)
    if bradley_terry is not None and not isinstance(bradley_terry, str):
        _write_bradley_terry(bradley_terry, out)
    if win_rates is not None:
        sig = win_rates.signature
        out.text("winrate.md", report.to_markdown(win_rates), sig)
        out.text("winrate.csv", report.to_csv(win_rates), sig)
        out.text("winrate.tex", report.to_latex(win_rates), sig)
    out.flush()
    return out.written[start:]


def _bradley_terry_payload(bradley_terry: Any | None) -> dict[str, Any]:
    """ranking.json's ``bradley_terry``: the leaderboard (``Ratings``, NaN as null), or
    ``{"skipped": why}``; nothing when it was switched off."""
    if bradley_terry is None:
        return {}
    if isinstance(bradley_terry, str):
        return {"bradley_terry": {"skipped": bradley_terry}}
    from ..report.arena import arena_dict

    return {"bradley_terry": arena_dict(bradley_terry)}


def _write_bradley_terry(ratings: Any, out: OutputFolder) -> None:
    from ..report.arena import arena_csv, arena_latex, arena_markdown

    sig = ratings.signature
    out.text("bradley_terry.md", arena_markdown(ratings, title="Bradley–Terry leaderboard"), sig)
    out.text("bradley_terry.csv", arena_csv(ratings), sig)
    out.text("bradley_terry.tex", arena_latex(ratings), sig)
    out.figure(partial(bradley_terry_figure, ratings), "bradley_terry_ratings",
               ("pdf", "svg", "png"), signature=sig)


def bradley_terry_figure(ratings: Any) -> Any:
    """The ratings-with-intervals figure of ``rank``'s Bradley–Terry leaderboard
    (:func:`ranger_eval.plots.arena.ratings_plot`), imported when drawn (not with
    ``--figures none``)."""
    from ..plots.arena import ratings_plot

    return ratings_plot(ratings)


def rank_bradley_terry(data: Any, higher_is_better: bool, settings: RankSettings) -> Any:
    """The Bradley–Terry leaderboard ``rank`` writes beside its rank test: per-item ``Scores``
    of the rank's metric (every item a battle between every pair of systems) or a
    dataset-level table (every dataset a battle), as battle counts
    (:func:`~ranger_eval.verdicts.bradley_terry.battle_counts`: a few array operations, linear
    in the rows), fitted with ``settings.level`` and 1,000 bootstrap rounds at
    ``settings.seed`` (a fresh seed, recorded in the signature, when it is None). Returns the
    ``Ratings``, or the reason there is none (a warning says it: e.g. a system that won or
    tied every battle has no finite rating)."""
    from ..errors import VerdictError
    from ..verdicts.bradley_terry import battle_counts, bradley_terry, table_battle_counts

    seed = settings.seed if settings.seed is not None else \
        int(np.random.default_rng().integers(2 ** 32))
    try:
        if isinstance(data, pd.DataFrame):
            counts = table_battle_counts(data, higher_is_better=higher_is_better)
        else:
            counts = battle_counts(data, higher_is_better=higher_is_better)
        return bradley_terry(counts, level=settings.level, seed=seed)
    except VerdictError as exc:
        why = str(exc).replace("bradley_terry: ", "").replace("battle_counts: ", "")
        warnings.warn(f"rank: no Bradley–Terry leaderboard: {why}", UserWarning, stacklevel=2)
        return why


def run_rank(input: str | Path, out: str | Path, command: str | None = None,
             figures: Sequence[str] | str | None = None, html: bool = False,
             system_from: str | None = None, bounds: Sequence[str] | None = None,
             cluster: str | None = None,
             **options: Any) -> RankRun:
    """``ranger-eval rank``: rank systems over datasets (and metrics) and write the outputs.

    Per-item scores (a YAML or a tidy table with ``item``): the IBM post-op ranking
    (:func:`~ranger_eval.aggregate.rank_systems`) and Demšar's rank test on the per-dataset means
    of the aggregate metric. A dataset-level table (wide, or tidy without ``item``): the rank
    test only. ``cluster`` (``--cluster``) names the field of each item's cluster: the
    ranking's tests are then cluster-robust and the win rate's and Bradley–Terry's bootstraps
    draw whole clusters (:mod:`ranger_eval.design`).
    """
    from ..aggregate import aggregate_metrics, rank_systems, rank_test, win_rate

    caught: list[str] = []
    ranges = parse_bounds(bounds)  # --bounds METRIC=LO,HI
    trees: list[Any] = []
    with collecting_warnings(caught, trees):
        scores, table, exp = read_rank_input(input, system_from, cluster)
        if scores is not None:
            scores = with_option_bounds(scores, ranges)
        settings = rank_settings(exp, options)
        if scores is not None and exp is not None:
            scores = with_display_names(scores, exp)
            shown_systems, shown_tasks = display_names(exp)
            settings = dataclasses.replace(
                settings, control=_shown(settings.control, shown_systems),
                dataset_weights=_shown(settings.dataset_weights, shown_tasks))
        inputs = _experiment_inputs(exp) if exp is not None else [Path(input)]
        folder = OutputFolder(out, inputs, figures)
        folder.claim(RANK_OUTPUTS)
        ranking = None
        hib = settings.higher_is_better
        if scores is not None:
            if len(scores.datasets) < 2:
                raise ConfigError(
                    f"{input}: rank needs at least two datasets (got {list(scores.datasets)}); "
                    "use `ranger-eval compare` for one dataset"
                )
            agg = aggregate_metrics(scores, weights=settings.weights, higher_is_better=hib) \
                if len(scores.metrics) > 1 else scores
            means = agg.table.groupby(["dataset", "system"], sort=False)["value"].mean()
            table = means.unstack("system")
            n_holes = int(table.isna().to_numpy().sum())
            if n_holes:  # systems without scores on some datasets (issue 21 §4)
                warnings.warn(
                    f"rank: {n_holes} dataset × system cell(s) have no scores; the post-op "
                    "ranking (IBM §6) needs every system on every dataset and is left out: the "
                    "rank test (Skillings–Mack) ranks the per-dataset means", stacklevel=2)
            else:
                ranked = rank_systems(
                    scores, comparisons=settings.comparisons, level=settings.level,
                    correction=settings.correction, weights=settings.weights,
                    higher_is_better=hib, dataset_weights=settings.dataset_weights,
                    test=settings.test, n_resamples=settings.n_resamples, seed=settings.seed,
                )
                assert not isinstance(ranked, dict)  # no `by`: one ranking
                ranking = ranked
            direction = True if len(scores.metrics) > 1 else _direction(scores.metrics[0], hib)
        else:
            assert table is not None
            if _is_tidy(table):
                metric_col = "metric" if "metric" in table.columns else None
                if metric_col and table[metric_col].nunique() > 1:
                    raise ConfigError(
                        f"{input}: several metrics in a dataset-level table; rank one metric at "
                        "a time (filter the table) or give per-item scores to aggregate them"
                    )
                table = table.pivot_table(index="dataset", columns="system", values="value",
                                          aggfunc="first", sort=False)
            direction = hib if isinstance(hib, bool) else True
        rt = rank_test(table, higher_is_better=direction, level=settings.level,
                       posthoc=settings.posthoc, control=settings.control,
                       tie_correction=settings.tie_correction, approach=settings.approach,
                       rope=settings.rope, rope_mode=settings.rope_mode, prior=settings.prior,
                       n_samples=settings.n_samples, seed=settings.seed)
        # Bradley–Terry on the rank's metric: its per-item scores (the aggregate with several
        # metrics), else the dataset-level table
        bt = rank_bradley_terry(agg if scores is not None else table, direction, settings) \
            if settings.bradley_terry else None
        # HELM's mean win rates on the same data: over the per-item scores with the
        # datasets+items bootstrap, else over the table's datasets (a fresh seed, recorded in
        # the signature, when settings.seed is None)
        wr = win_rate(agg if scores is not None else table, higher_is_better=direction,
                      level=settings.level, seed=settings.seed if settings.seed is not None
                      else int(np.random.default_rng().integers(2 ** 32)))
    naive = table.mean(axis=0) if ranking is None else None
    write_rank_outputs(rt, ranking, folder, None, naive,  # systems already carry display names
                       bradley_terry=bt, win_rates=wr)
    caught += finish_outputs(folder, str((ranking or rt).signature), command, html, caught, trees)
    return RankRun(rt, ranking, settings, tuple(folder.written), tuple(caught),
                   None if isinstance(bt, str) else bt, wr)


def _direction(metric: str, hib: Any) -> bool:
    from ..aggregate import metric_direction

    if isinstance(hib, bool):
        return hib
    if isinstance(hib, dict) and metric in hib:
        return bool(hib[metric])
    known = metric_direction(metric)
    return True if known is None else known


# --------------------------------------------------------------------------- plan
#: Files ``ranger-eval plan`` writes (besides manifest.json).
PLAN_OUTPUTS = ("plan.json", "plan.md")


@dataclass(frozen=True)
class PlanRun:
    """``ranger-eval plan``: the plan (from parameters or simulated from a pilot), the files
    written, the warnings."""

    result: Any
    written: tuple[Path, ...]
    warnings: tuple[str, ...]


def run_plan(out: str | Path, command: str | None = None, *, test: str | None = None,
             pilot: str | Path | None = None, metric: str | None = None,
             format: str | None = None, system_from: str | None = None,
             cluster: str | None = None, **options: Any) -> PlanRun:
    """``ranger-eval plan``: :func:`ranger_eval.plan` on the given parameters, or (with
    ``pilot``, a scores file or experiment YAML; ``cluster``, the field of each item's cluster,
    as ``--cluster``) :func:`ranger_eval.plan_from_pilot`; writes
    ``plan.json`` (the full result and its signature), ``plan.md`` and the manifest.
    ``options`` are the keywords of the function called (``None`` values left out)."""
    from ..report.plan import plan_markdown
    from ..stats.pilot import plan_from_pilot
    from ..stats.power import PLAN_TESTS, plan

    caught: list[str] = []
    given = {k: v for k, v in options.items() if v is not None}
    with collecting_warnings(caught):
        if pilot is not None:
            scores, _ = load_scores_input(pilot, [metric] if metric else None, format,
                                          system_from, cluster)
            for role in ("treatment", "control"):
                if role not in given:
                    hint = Hint(role)
                    raise ConfigError(f"a pilot needs the two systems: {hint.text} (systems in "
                                      f"{pilot}: {_some(scores.systems)})", hints=[hint])
            result: Any = plan_from_pilot(scores, test=test or "auto", metric=metric, **given)
            inputs: list[Path] = [Path(pilot)]
        else:
            if test is None:
                hint = Hint("test")
                raise ConfigError(f"name the planned test ({', '.join(PLAN_TESTS)}), or "
                                  f"give a pilot file; {hint.text}", hints=[hint])
            result = plan(test, **given)
            inputs = []
        folder = OutputFolder(out, inputs, None)
        folder.claim(PLAN_OUTPUTS)
        folder.text("plan.json", json.dumps({"result": result.to_dict(),
                                             "signature": str(result.signature)},
                                            indent=2, allow_nan=False) + "\n")
        folder.text("plan.md", plan_markdown(result))
    caught += finish_outputs(folder, str(result.signature), command, False, caught)
    return PlanRun(result, tuple(folder.written), tuple(caught))

