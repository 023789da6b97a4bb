"""What every command's pipeline shares: option values checked and blamed on their option,
warnings collected into the run, an experiment's per-item scores read once, display names,
and the last steps of every output folder (manifest, ``report.html``).

Each command has a module of its own (:mod:`.compare`, :mod:`.rank`, :mod:`.meta`, :mod:`.trec`,
:mod:`.report`, :mod:`.demo` …) built from these parts; this module imports none of them.
"""
from __future__ import annotations

import json
import warnings
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import pandas as pd

from .. import ir
from ..errors import (
    ConfigError,
    InputError,
    RangerError,
    Said,
    SettingsError,
    in_callers_words,
    suggest,
)
from ..formatting import preview
from ..io import (
    Experiment,
    IRConfig,
    adapters,
    load_experiment,
    read_item_scores,
    read_scores,
)
from ..io.logtree import recording_log_trees
from ..ir.measures import written_names
from ..llm import pass_at_k, pass_hat_k
from ..output import OutputFolder
from ..progress import progress_bar
from ..report.html import REPORT_FILE, write_html_report
from ..scores import Scores
from ..settings import check_value, check_whole, cli_options, settings_fields

__all__ = [
    "YAML_SUFFIXES",
    "CollectedScores",
    "check_format",
    "collect_scores",
    "collecting_warnings",
    "display_names",
    "finish_outputs",
    "load_scores_input",
    "only_metrics",
    "option_error",
    "parse_bounds",
    "settings_options",
    "with_display_names",
    "with_option_bounds",
    "write_report",
]

T = TypeVar("T")
#: The suffixes of an experiment YAML (any other input is a scores table or a tool's output).
YAML_SUFFIXES = (".yaml", ".yml")


# --------------------------------------------------------------------------- option values
def option_error(option: str, message: str) -> ConfigError:
    """``option --OPTION: message``: a bad command-line value, blamed on the option (never on the
    input file). ``option`` is the Python name (``n_resamples`` → ``--n-resamples``).

    Parameters
    ----------
    option : str
        The option's Python name (``n_resamples``); underscores become dashes.
    message : str
        What is wrong with the value and what is accepted.

    Returns
    -------
    ConfigError
        The error to raise (not raised here).

    Examples
    --------
    >>> from ranger_eval.pipeline import option_error
    >>> str(option_error("n_resamples", "must be a whole number >= 1; got 0"))
    'option --n-resamples: must be a whole number >= 1; got 0'
    """
    return ConfigError(f"option --{option.replace('_', '-')}: {message}")


def parse_bounds(values: Sequence[str] | None) -> dict[str, list[float]] | None:
    """``--bounds METRIC=LO,HI`` (each value once per metric) as the YAML ``bounds:`` mapping
    ``{metric: [lo, hi]}``; None when not given. A value that is not ``METRIC=LO,HI`` with two
    numbers is ``option --bounds: …``.

    Parameters
    ----------
    values : sequence of str or None
        The ``--bounds`` values as given, each ``METRIC=LO,HI``.

    Returns
    -------
    dict of str to list of float, or None
        ``{metric: [lo, hi]}``; None when no value is given.

    Raises
    ------
    ConfigError
        A value that is not ``METRIC=LO,HI`` with two numbers.

    Examples
    --------
    >>> from ranger_eval.pipeline import parse_bounds
    >>> parse_bounds(["f1=0,1", "bleu=0,100"])
    {'f1': [0.0, 1.0], 'bleu': [0.0, 100.0]}
    >>> parse_bounds(None) is None
    True
    """
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
    ``option --bounds: …``.

    Parameters
    ----------
    scores : Scores
        The scores read.
    bounds : dict of str to list of float, or None
        ``{metric: [lo, hi]}`` as :func:`parse_bounds` returns it; None or empty: ``scores``
        unchanged.

    Returns
    -------
    Scores
        ``scores`` with those ranges declared.

    Raises
    ------
    ConfigError
        ``option --bounds: …``: an unknown metric, lo ≥ hi, or a value outside its range.

    Examples
    --------
    >>> import pandas as pd
    >>> from ranger_eval import Scores
    >>> from ranger_eval.pipeline import with_option_bounds
    >>> scores = Scores(pd.DataFrame({"dataset": "qa", "system": ["a", "a", "b", "b"],
    ...                               "metric": "f1", "item": [1, 2, 1, 2],
    ...                               "value": [0.5, 0.75, 0.25, 1.0]}))
    >>> with_option_bounds(scores, {"f1": [0.0, 1.0]}).bounds
    {'f1': (0.0, 1.0)}
    """
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
    folded to the canonical name, e.g. ``lm_eval`` → ``lm-eval``).

    Parameters
    ----------
    value : str or None
        The format as given (``--format``, the YAML's ``format``).
    option : str, default "format"
        The option blamed for an unknown format.

    Returns
    -------
    str or None
        ``value`` itself for None, ``auto`` and ``table``; else the adapter's canonical name.

    Raises
    ------
    ConfigError
        An unknown format (``option --format: …``, naming the formats there are).

    Examples
    --------
    >>> from ranger_eval.pipeline import check_format
    >>> check_format("lm_eval"), check_format("auto"), check_format(None)
    ('lm-eval', 'auto', None)
    """
    if value is None or value in ("auto", "table"):
        return value
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
    accepted. Other keys are returned unchanged.

    Parameters
    ----------
    cls : type
        A settings class (:class:`~ranger_eval.settings.CompareSettings`, …).
    options : dict of str to object
        The command's options by Python name; None values are not given.
    prefix : str, default ""
        The prefix of the keys that name the class' fields (``meta_`` for ``meta``).

    Returns
    -------
    dict of str to object
        A copy of ``options``, its settings values checked and canonical.

    Raises
    ------
    ConfigError
        A value the field's check refuses, blamed on its option.

    Examples
    --------
    >>> from ranger_eval.settings import CompareSettings
    >>> from ranger_eval.pipeline import settings_options
    >>> settings_options(CompareSettings, {"correction": "BH", "level": None, "out": "results"})
    {'correction': 'fdr_bh', 'level': None, 'out': 'results'}
    """
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



# --------------------------------------------------------------------------- warnings
@contextmanager
def collecting_warnings(sink: list[str], trees: list[Any] | None = None) -> Iterator[None]:
    """Record every warning raised inside the block as one line of text in ``sink`` (a
    :class:`~ranger_eval.errors.Said`: with the warning's hints, which the command line says as
    its options), and (``trees``) every folder tree of logs read inside it
    (:class:`~ranger_eval.io.logtree.LogTree`, for ``manifest.json``'s ``inputs``).

    Parameters
    ----------
    sink : list of str
        Where each warning's text is appended (after the block).
    trees : list or None, default None
        Where the folder trees of logs read are appended; None: not recorded.

    Returns
    -------
    contextmanager
        A context manager (yielding None); a :class:`~ranger_eval.errors.RangerError` raised
        inside it propagates, naming the files the log trees skipped.

    Examples
    --------
    >>> import warnings
    >>> from ranger_eval.pipeline import collecting_warnings
    >>> said: list[str] = []
    >>> with collecting_warnings(said):
    ...     warnings.warn("2 items have no score")
    >>> [str(s) for s in said]
    ['2 items have no score']
    """
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
    for sys_id in have:
        sys_cfg = cfg.systems[sys_id]
        path = exp.path(sys_cfg.files[task.id])
        if adapters.input_format(path) is not None:  # an evaluation log (.eval, lm-eval, HELM ...)
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
    frames = [read_scores(p, format=format, system=system, system_from=system_from,
                          cluster=cluster).raw_frame
              for p, system in inputs]
    return adapters.concat_inputs(frames, [p for p, _ in inputs],
                         source=f"{len(inputs)} inputs ({inputs[0][0]}, ...)")


def collect_scores(
    exp: Experiment, systems: list[str] | None = None, measures: list[str] | None = None
) -> CollectedScores:
    """Per-item scores of ``systems`` (default: all) on every task of the experiment.

    Score files are read with :func:`read_item_scores` (metric = the config's ``metric`` or
    ``"score"``). IR tasks (with ``qrels``) are evaluated from the systems' TREC runs with
    :func:`ranger_eval.ir.evaluate_many` on ``measures`` (default: the ``ir.measure``); the metric
    is the measure name. A config with a tidy ``scores`` table is read as it is.

    Parameters
    ----------
    exp : Experiment
        A loaded experiment (:func:`ranger_eval.load_experiment`).
    systems : list of str or None, default None
        The systems to read; None: every system of the experiment.
    measures : list of str or None, default None
        The IR measures to evaluate runs on; None: the experiment's ``ir.measure``.

    Returns
    -------
    CollectedScores
        The ``scores``, the ``skipped`` tasks (task → reason) and the ``missing``
        ``(system, task)`` files; both are also warned about.

    Raises
    ------
    ConfigError
        No task has files for the systems, or a log does not hold the task or metric named.

    Examples
    --------
    >>> import tempfile
    >>> from ranger_eval import load_experiment
    >>> from ranger_eval.demo import write_demo
    >>> from ranger_eval.pipeline import collect_scores
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     got = collect_scores(load_experiment(write_demo(folder)))
    >>> got.scores.systems, len(got.scores.datasets), got.skipped
    (('baseline', 'compressed'), 6, {})
    """
    cfg = exp.config
    logs = {k: exp.log_paths(k) for k, c in cfg.systems.items() if c.logs}
    if cfg.scores is not None or logs:
        inputs = ([(p, k) for k, paths in logs.items() for p in paths] if logs
                  else exp.score_inputs)
        scores = _read_inputs(inputs, cfg.format, cfg.system_from, cfg.cluster)
        # metric: pass@K (meta's --metric) is computed from the samples, not selected
        metric = None if cfg.metric is None or _passk_spec(cfg.metric) else cfg.metric
        if metric is not None and metric not in scores.metrics:
            adapters.check_corpus_metrics([p for p, _ in inputs], [metric], cfg.format)
        left_out: dict[str, str] = {}
        if metric is not None and metric in scores.metrics:
            scores, left_out = only_metrics(scores, [metric], stacklevel=3)
        if systems is not None:
            scores = scores.filter(systems=systems)
        if cfg.bounds:
            scores = scores.with_bounds(cfg.bounds)
        if cfg.metric is not None and metric is None:
            scores = scores_of_metrics(scores, [cfg.metric], inputs[0][0], cfg.format)
        return CollectedScores(scores, left_out)
    systems = list(cfg.systems) if systems is None else list(systems)
    ir_cfg = cfg.ir or IRConfig()
    measures = measures or [ir_cfg.measure]
    frames: list[pd.DataFrame] = []
    skipped: dict[str, str] = {}
    missing: list[tuple[str, str]] = []
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
    their values lie inside: the intervals of their means stay in range (a bootstrap or t
    interval of a mean nDCG near 1 would otherwise reach past 1)."""
    if not is_ir:
        return scores
    f = scores.frame
    bounds = {m: b for m, b in ir.measure_bounds(scores.metrics).items()
              if f.loc[f["metric"] == m, "value"].between(*b).all()}
    return scores.with_bounds(bounds) if bounds else scores

def only_metrics(scores: Scores, metrics: Sequence[str], *, stacklevel: int = 2
                 ) -> tuple[Scores, dict[str, str]]:
    """The rows of ``metrics`` only (``--metric``, the YAML's ``metric``), saying what that
    leaves out: one warning names every dataset without some of them and the metrics it has;
    the datasets without any of them are returned as left out (dataset → reason, e.g.
    ``{"wic": "no metric 'acc' (its metrics: mcc)"}``) for ``skipped``. A metric that no
    dataset has is an error listing the metrics there are (:meth:`Scores.filter`).

    Parameters
    ----------
    scores : Scores
        The scores read.
    metrics : sequence of str
        The metrics to keep.
    stacklevel : int, default 2
        The ``stacklevel`` of the warning (whose line it names).

    Returns
    -------
    tuple of (Scores, dict of str to str)
        The rows of ``metrics``, and the datasets left out entirely with the reason.

    Raises
    ------
    InputError
        A metric that no dataset has.

    Examples
    --------
    >>> import warnings
    >>> import pandas as pd
    >>> from ranger_eval import Scores
    >>> from ranger_eval.pipeline import only_metrics
    >>> scores = Scores(pd.DataFrame({"dataset": ["qa"] * 4 + ["wic"] * 4,
    ...                               "system": ["a", "a", "b", "b"] * 2,
    ...                               "metric": ["acc"] * 4 + ["mcc"] * 4,
    ...                               "item": [1, 2] * 4, "value": [1, 0, 0, 1] * 2}))
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     kept, left_out = only_metrics(scores, ["acc"])
    >>> kept.datasets, left_out
    (('qa',), {'wic': "no metric 'acc' (its metrics: mcc)"})
    """
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

    Parameters
    ----------
    exp : Experiment or None
        A loaded experiment; None (a scores table): no display names.

    Returns
    -------
    tuple of (dict of str to str, dict of str to str)
        The systems' and the tasks' display names, by id.

    Raises
    ------
    ConfigError
        Two systems (or two tasks) with the same display name.

    Examples
    --------
    >>> from ranger_eval.pipeline import display_names
    >>> display_names(None)
    ({}, {})
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
    every table, figure and report of ``compare`` and ``rank`` shows them (as ``meta`` does).

    Parameters
    ----------
    scores : Scores
        The scores of the experiment (systems and datasets by id).
    exp : Experiment or None
        The experiment; None: ``scores`` unchanged.

    Returns
    -------
    Scores
        ``scores`` with display names in place of ids.

    Raises
    ------
    ConfigError
        A display name that is also another system's (or dataset's) id in the scores.

    Examples
    --------
    >>> import pandas as pd
    >>> from ranger_eval import Scores
    >>> from ranger_eval.pipeline import with_display_names
    >>> scores = Scores(pd.DataFrame({"dataset": "qa", "system": ["a", "b"], "item": 1,
    ...                               "value": [0.5, 0.75]}))
    >>> with_display_names(scores, None) is scores
    True
    """
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
    their own manifest); returns the path and the warnings (e.g. a file changed since the run).

    Parameters
    ----------
    folder : str or Path
        The output folder of an earlier run (with its ``manifest.json``).
    command : str or None, default None
        The command line shown in the report; None: the one the manifest records.

    Returns
    -------
    tuple of (Path, tuple of str)
        The path of ``report.html`` and the warnings raised while writing it.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> from ranger_eval.pipeline import run_compare, write_report
    >>> folder = tempfile.TemporaryDirectory()
    >>> table = Path(folder.name, "scores.csv")
    >>> _ = table.write_text("dataset,system,item,value\\n" + "".join(
    ...     f"qa,{s},{i},{(3 * i + 5 * k) % 7 / 7:.3f}\\n" for k, s in enumerate("ab")
    ...     for i in range(8)))
    >>> _ = run_compare(table, Path(folder.name, "out"), figures="none")
    >>> path, said = write_report(Path(folder.name, "out"))
    >>> path.name, said
    ('report.html', ())
    >>> folder.cleanup()
    """
    caught: list[str] = []
    with collecting_warnings(caught):
        path = write_html_report(folder, command=command)
    return path, tuple(caught)


def _drop_stale_report(folder: Path) -> None:
    """A run without ``--html`` removes the report.html an earlier run wrote there (it would
    describe the old results); only a file Ranger wrote (its marker inside) is removed."""
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
    one-file report; returns warnings of the report.

    Parameters
    ----------
    folder : OutputFolder
        The folder the run wrote into.
    signature : str
        The signature of the run's result, recorded in the manifest.
    command : str or None
        The command line, recorded in the manifest.
    html : bool
        Write ``report.html`` too; False removes one an earlier run left there.
    warnings : sequence of str, default ()
        The run's warnings, recorded in the manifest.
    trees : sequence, default ()
        The folder trees of logs read (recorded under ``inputs``).

    Returns
    -------
    list of str
        The warnings raised while writing the report (empty without ``html``).

    Examples
    --------
    >>> import tempfile
    >>> from ranger_eval.output import OutputFolder
    >>> from ranger_eval.pipeline import finish_outputs
    >>> with tempfile.TemporaryDirectory() as name:
    ...     out = OutputFolder(name)
    ...     _ = out.text("notes.md", "# Notes\\n")
    ...     said = finish_outputs(out, "ranger-eval:0.1.0|kind:notes", "notes", html=False)
    ...     files = sorted(p.name for p in out.written)
    >>> said, files
    ([], ['manifest.json', 'notes.md'])
    """
    folder.finish(signature, command, warnings, inputs=[t.to_dict() for t in trees])
    if not html:
        _drop_stale_report(folder.path)
        return []
    path, warnings = write_report(folder.path, command)
    folder.written.append(path)
    return list(warnings)


# --------------------------------------------------------------------------- inputs of a command
def _experiment_inputs(exp: Experiment) -> list[Path]:
    cfg = exp.config
    paths = [p for p in [exp.source] if p is not None]
    paths += exp.scores_paths
    paths += [exp.path(t.qrels) for t in cfg.tasks if t.qrels]
    for sys_cfg in cfg.systems.values():
        paths += [exp.path(f) for f in [*sys_cfg.files.values(), *sys_cfg.logs]]
    return paths



def _some(names: Iterable[Any], limit: int = 10) -> str:
    """``a, b, c`` (at most ``limit`` names, then ``… (N in all)``)."""
    return preview(names, limit, quote=False, tail=", … ({total} in all)")



def split_passk_metrics(metrics: Sequence[str] | None
                        ) -> tuple[list[str] | None, tuple[str, int] | None]:
    """``--metric`` values split into the metrics to read and one pass@k / pass^k request
    (``pass@3``, ``pass^3``): ``(["includes"], ("pass@", 3))``; ``(metrics, None)`` without
    one. Two requests are ``option --metric: …``.

    Examples
    --------
    >>> from ranger_eval.pipeline._common import split_passk_metrics
    >>> split_passk_metrics(["includes", "pass@3"]), split_passk_metrics(["acc"])
    ((['includes'], ('pass@', 3)), (['acc'], None))
    """
    if not metrics:
        return (None if metrics is None else list(metrics)), None
    asked = [m for m in metrics if _passk_spec(m) is not None]
    if len(asked) > 1:
        raise option_error("metric", f"one pass@K or pass^K at a time (given: "
                           f"{', '.join(asked)})")
    rest = [m for m in metrics if m not in asked]
    return (rest or None), (_passk_spec(asked[0]) if asked else None)


def analysed_metric(metric: str | None, scores: Scores) -> str | None:
    """The metric an analysis of one metric reads after ``--metric``: ``metric`` itself, or
    for ``pass@K`` / ``pass^K`` the label of the per-item rows it made (``pass@3``,
    ``exact_match pass@3``) when there is one, None when several (the analysis then says which
    there are).

    Parameters
    ----------
    metric : str or None
        ``--metric`` (the YAML's ``metric:``).
    scores : Scores
        The scores after :func:`scores_of_metrics`.

    Returns
    -------
    str or None
        The metric to analyse.

    Examples
    --------
    >>> import ranger_eval as rg
    >>> from ranger_eval.pipeline._common import analysed_metric
    >>> s = rg.Scores.from_arrays({"qa": {"a": [1.0, 0.0], "b": [0.0, 1.0]}})
    >>> analysed_metric("acc", s), analysed_metric("pass@3", s)
    ('acc', 'score')
    """
    if metric is None or _passk_spec(metric) is None:
        return metric
    return scores.metrics[0] if len(scores.metrics) == 1 else None


def _passk_spec(metric: str) -> tuple[str, int] | None:
    for kind in ("pass@", "pass^"):
        if metric.startswith(kind) and metric[len(kind):].isdigit():
            return kind, int(metric[len(kind):])
    return None


def apply_passk_metric(scores: Scores, spec: tuple[str, int] | None) -> Scores:
    """``--metric pass@K`` / ``pass^K`` (:func:`split_passk_metrics`) applied to the scores read:
    :func:`~ranger_eval.pass_at_k` / :func:`~ranger_eval.pass_hat_k` over their samples; the
    scores as they are without a request. Input without samples is ``option --metric: …``."""
    if spec is None:
        return scores
    kind, k = spec
    if not scores.has_samples:
        raise option_error(
            "metric", f"{kind}{k} needs several samples per item (Inspect epochs, lm-eval "
            f"repeats, a 'sample' column); the input has one value per item")
    try:
        return (pass_at_k if kind == "pass@" else pass_hat_k)(scores, k)
    except RangerError as exc:
        raise option_error("metric", f"{kind}{k}: {exc}") from None


def passk_log_check(scores: Scores, path: str | Path, spec: tuple[str, int],
                    format: str | None = None) -> None:
    """``--metric pass@K`` on an lm-eval log: refused, saying why (naming the file). lm-eval
    writes one score per document and filter: with ``repeats: N`` in a task's config each
    document's ``resps`` holds the N generations, the task's filter (``take_first``,
    ``majority_vote`` …) reduces them to ``filtered_resps``, and the metric (``exact_match`` …)
    is computed once on that, so the samples file has no per-repeat score to count; re-scoring
    the responses would need the task's own ``process_results``, which the log does not hold.
    Input with samples, or of another format, passes (:func:`apply_passk_metric` decides).

    Parameters
    ----------
    scores : Scores
        The scores read from ``path``.
    path : str or Path
        The input.
    spec : (str, int)
        ``("pass@", K)`` or ``("pass^", K)``.
    format : str or None, default None
        ``--format``; None: detected from the file.

    Raises
    ------
    ConfigError
        ``option --metric: …`` for an lm-eval log.
    """
    if scores.has_samples or (format or adapters.input_format(path)) != "lm-eval":
        return
    kind, k = spec
    repeats = _lmeval_repeats(Path(path))
    ran = (f"; its tasks ran with {', '.join(f'{t} repeats: {n}' for t, n in repeats.items())}"
           if repeats else "")
    raise option_error(
        "metric", f"{kind}{k} on the lm-eval log {path}: lm-eval stores one score per document "
        f"(with `repeats: N` in a task config each document's `resps` holds the N generations, "
        f"the task's filter reduces them to `filtered_resps`, and the metric is computed once on "
        f"that), so the per-repeat scores pass@K counts are not in the file{ran}; score each "
        f"repeat into a table with a 'sample' column (dataset, system, item, sample, value), or "
        f"use Inspect logs with epochs")


def _lmeval_repeats(path: Path) -> dict[str, int]:
    """``{task: repeats}`` from the ``configs`` of the lm-eval results file(s) at ``path`` (a
    results file, a samples file's run folder or a folder tree); empty when none is readable."""
    folder = path if path.is_dir() else path.parent
    found: dict[str, int] = {}
    for results in sorted(folder.rglob("results_*.json"))[:20]:
        try:
            configs = json.loads(results.read_text(encoding="utf-8")).get("configs", {})
        except (OSError, ValueError, AttributeError):
            continue
        if isinstance(configs, dict):
            for task, cfg in configs.items():
                if isinstance(cfg, dict) and isinstance(cfg.get("repeats"), int):
                    found[str(task)] = int(cfg["repeats"])
    return found


def _experiment_scores(exp: Experiment, metrics: list[str] | None) -> Scores:
    metrics, passk = split_passk_metrics(metrics)
    return apply_passk_metric(_read_experiment_scores(exp, metrics), passk)


def _read_experiment_scores(exp: Experiment, metrics: list[str] | None) -> Scores:
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
    item's cluster (``--cluster``, over the YAML's ``cluster``).

    Parameters
    ----------
    path : str or Path
        An experiment YAML, a scores table, a tool's output or a folder of them.
    metrics : list of str or None, default None
        Keep only these metrics (``--metric``); an IR experiment evaluates its runs on them.
    format : str or None, default None
        The input's format (``--format``); None: detected.
    system_from : str or None, default None
        Where the systems of logs are named (``--system-from``).
    cluster : str or None, default None
        The field of each item's cluster (``--cluster``).

    Returns
    -------
    tuple of (Scores, Experiment or None)
        The scores, and the experiment when ``path`` is a YAML.

    Raises
    ------
    RangerError
        An unreadable input, an unknown metric or ``--system-from`` source.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> from ranger_eval.pipeline import load_scores_input
    >>> with tempfile.TemporaryDirectory() as name:
    ...     table = Path(name, "scores.csv")
    ...     _ = table.write_text("dataset,system,item,value\\nqa,a,1,0.5\\nqa,a,2,0.75\\n"
    ...                          "qa,b,1,0.25\\nqa,b,2,1.0\\n")
    ...     scores, exp = load_scores_input(table)
    >>> scores.systems, exp
    (('a', 'b'), None)
    """
    path = Path(path)
    if path.suffix.lower() in YAML_SUFFIXES:
        exp = load_experiment(path, **_system_from_override(system_from),
                              **({} if cluster is None else {"cluster": cluster}))
        return _experiment_scores(exp, metrics), exp
    scores = read_scores(path, format=format, system_from=_checked_system_from(system_from),
                         cluster=cluster)
    return scores_of_metrics(scores, metrics, path, format), None


def scores_of_metrics(scores: Scores, metrics: Sequence[str] | None, path: str | Path,
                      format: str | None = None) -> Scores:
    """The scores read from ``path`` restricted to ``--metric`` (the metrics named; an unknown
    one named with the metrics the file has) and, for a ``pass@K`` / ``pass^K`` among them,
    turned into per-item pass@K / pass^K (:func:`apply_passk_metric`): the one function
    compare, rank, meta and plan apply to a file's scores.

    Parameters
    ----------
    scores : Scores
        The scores read.
    metrics : sequence of str or None
        ``--metric``'s values (None or empty: every metric, no pass@K).
    path : str or Path
        The input, named by errors.
    format : str or None, default None
        The input's format (``--format``).

    Returns
    -------
    Scores
        The selected metrics, or their pass@K / pass^K per item.

    Raises
    ------
    RangerError
        An unknown metric, or ``option --metric: …`` for a pass@K the input cannot give.

    Examples
    --------
    >>> import pandas as pd
    >>> import ranger_eval as rg
    >>> from ranger_eval.pipeline._common import scores_of_metrics
    >>> s = rg.Scores(pd.DataFrame({"dataset": "d", "system": "a", "item": ["1", "1", "2", "2"],
    ...                             "sample": [1, 2, 1, 2], "value": [1, 0, 0, 0]}))
    >>> scores_of_metrics(s, ["pass@2"], "log.json").frame["value"].tolist()
    [1.0, 0.0]
    """
    named, passk = split_passk_metrics(None if metrics is None else list(metrics))
    if named:
        if any(m not in scores.metrics for m in named):
            adapters.check_corpus_metrics([Path(path)], named, format)
        scores, _ = only_metrics(scores, named)
    if passk is not None:
        passk_log_check(scores, path, passk, format)
    return apply_passk_metric(scores, passk)


def _checked_system_from(value: str | None) -> str | None:
    """``--system-from`` checked (an unknown source is ``option --system-from: …``)."""
    if value is not None:
        try:
            adapters.check_system_from(value)
        except InputError as exc:
            raise option_error("system-from", str(exc).removeprefix("system_from: ")) from None
    return value


def _system_from_override(value: str | None) -> dict[str, Any]:
    """``--system-from`` as a YAML override (``system_from``), or nothing."""
    return {} if value is None else {"system_from": _checked_system_from(value)}
