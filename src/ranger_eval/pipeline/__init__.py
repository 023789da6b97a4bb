"""The one orchestration layer: config or arguments → settings → Scores → analyses → output files.

One module per command, each with its ``run_<command>`` returning the one run record
:class:`CommandRun`: :mod:`.compare`, :mod:`.rank`, :mod:`.meta` (with :func:`run_experiment`),
:mod:`.trec`, :mod:`.report`, :mod:`.demo`; what they share (option values, warnings collected
into the run, an experiment's scores, display names, the manifest and ``report.html``) is in
:mod:`._common`. The CLI only parses arguments, calls ``run_<command>`` and prints. Each step is
a public function of its own layer:

* reading: :mod:`ranger_eval.io` (score files, tables, experiment YAML), :mod:`ranger_eval.ir`
  (TREC runs and qrels → per-query measures);
* analyses: :func:`ranger_eval.effects.effect_sizes` → :func:`ranger_eval.meta.meta_analysis`,
  :func:`ranger_eval.comparison.compare`, :mod:`ranger_eval.aggregate` …;
* outputs: :mod:`ranger_eval.report` (tables) and :mod:`ranger_eval.plots` (figures), written by
  :class:`OutputFolder`: atomically, never over an input file, with a ``manifest.json``.

Warnings raised while reading and analysing are collected into the run's ``warnings`` so the
command line prints them once, in one format.

The names below are loaded when first used (PEP 562), each from its command's module: importing
``ranger_eval.pipeline`` (for :class:`CommandRun`, as every command module of the CLI does at its
top) costs nothing, and a command imports only what it runs (``trec`` no meta-analysis,
``compare`` no ranking).
"""
from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from ._run import CommandRun

if TYPE_CHECKING:
    from ..output import (
        FIGURE_FORMATS,
        OutputFolder,
        figure_workers,
        warm_figure_modules,
    )
    from ..settings import (
        MAX_RESAMPLES,
    )
    from ._common import (
        YAML_SUFFIXES,
        CollectedScores,
        check_format,
        collect_scores,
        collecting_warnings,
        display_names,
        finish_outputs,
        load_scores_input,
        only_metrics,
        option_error,
        parse_bounds,
        settings_options,
        with_display_names,
        with_option_bounds,
        write_report,
    )
    from .arena import ARENA_OUTPUTS, run_arena
    from .aso import ASO_OUTPUTS, run_aso
    from .bayes import BAYES_OUTPUTS, run_bayes
    from .compare import (
        COMPARE_OUTPUTS,
        REPORT_MAX_GROUPS,
        capped_comparison,
        compare_figure,
        compare_options,
        compare_settings,
        compare_summary,
        per_dataset_figures_note,
        run_compare,
        write_compare_outputs,
    )
    from .demo import (
        demo_summary,
        run_demo,
    )
    from .meta import (
        FOREST_MAX_ROWS,
        META_OUTPUTS,
        ExperimentResult,
        forest_figure,
        meta_options,
        run_experiment,
        run_meta,
        write_meta_outputs,
    )
    from .monitor import MONITOR_OUTPUTS, run_monitor
    from .plan import PLAN_OUTPUTS, run_plan
    from .rank import (
        RANK_OUTPUTS,
        bradley_terry_figure,
        cd_figure,
        rank_bradley_terry,
        rank_options,
        rank_settings,
        rank_summary,
        read_rank_input,
        run_rank,
        write_rank_outputs,
    )
    from .report import (
        run_report,
    )
    from .trec import (
        DEFAULT_MEASURES,
        FORMATS,
        run_trec,
    )

#: Public name → the module (relative to this package) that defines it.
_EXPORTS: dict[str, str] = {
    "YAML_SUFFIXES": "._common",
    "CollectedScores": "._common",
    "check_format": "._common",
    "collect_scores": "._common",
    "collecting_warnings": "._common",
    "display_names": "._common",
    "finish_outputs": "._common",
    "load_scores_input": "._common",
    "only_metrics": "._common",
    "option_error": "._common",
    "parse_bounds": "._common",
    "settings_options": "._common",
    "with_display_names": "._common",
    "with_option_bounds": "._common",
    "write_report": "._common",
    "COMPARE_OUTPUTS": ".compare",
    "REPORT_MAX_GROUPS": ".compare",
    "capped_comparison": ".compare",
    "compare_figure": ".compare",
    "compare_options": ".compare",
    "compare_settings": ".compare",
    "compare_summary": ".compare",
    "per_dataset_figures_note": ".compare",
    "run_compare": ".compare",
    "write_compare_outputs": ".compare",
    "RANK_OUTPUTS": ".rank",
    "bradley_terry_figure": ".rank",
    "cd_figure": ".rank",
    "rank_bradley_terry": ".rank",
    "rank_options": ".rank",
    "rank_settings": ".rank",
    "rank_summary": ".rank",
    "read_rank_input": ".rank",
    "run_rank": ".rank",
    "write_rank_outputs": ".rank",
    "FOREST_MAX_ROWS": ".meta",
    "META_OUTPUTS": ".meta",
    "ExperimentResult": ".meta",
    "forest_figure": ".meta",
    "meta_options": ".meta",
    "run_experiment": ".meta",
    "run_meta": ".meta",
    "write_meta_outputs": ".meta",
    "DEFAULT_MEASURES": ".trec",
    "FORMATS": ".trec",
    "run_trec": ".trec",
    "run_report": ".report",
    "demo_summary": ".demo",
    "run_demo": ".demo",
    "ARENA_OUTPUTS": ".arena",
    "run_arena": ".arena",
    "ASO_OUTPUTS": ".aso",
    "run_aso": ".aso",
    "BAYES_OUTPUTS": ".bayes",
    "run_bayes": ".bayes",
    "MONITOR_OUTPUTS": ".monitor",
    "run_monitor": ".monitor",
    "PLAN_OUTPUTS": ".plan",
    "run_plan": ".plan",
    "FIGURE_FORMATS": "..output",
    "OutputFolder": "..output",
    "figure_workers": "..output",
    "warm_figure_modules": "..output",
    "MAX_RESAMPLES": "..settings",
}

__all__ = [
    "COMPARE_OUTPUTS",
    "CollectedScores",
    "CommandRun",
    "DEFAULT_MEASURES",
    "ExperimentResult",
    "FIGURE_FORMATS",
    "FOREST_MAX_ROWS",
    "FORMATS",
    "MAX_RESAMPLES",
    "META_OUTPUTS",
    "OutputFolder",
    "ARENA_OUTPUTS",
    "ASO_OUTPUTS",
    "BAYES_OUTPUTS",
    "MONITOR_OUTPUTS",
    "PLAN_OUTPUTS",
    "RANK_OUTPUTS",
    "REPORT_MAX_GROUPS",
    "YAML_SUFFIXES",
    "bradley_terry_figure",
    "capped_comparison",
    "cd_figure",
    "check_format",
    "collect_scores",
    "collecting_warnings",
    "compare_figure",
    "compare_options",
    "compare_settings",
    "compare_summary",
    "demo_summary",
    "display_names",
    "figure_workers",
    "finish_outputs",
    "forest_figure",
    "load_scores_input",
    "meta_options",
    "only_metrics",
    "option_error",
    "parse_bounds",
    "per_dataset_figures_note",
    "rank_bradley_terry",
    "rank_options",
    "rank_settings",
    "rank_summary",
    "read_rank_input",
    "run_compare",
    "run_demo",
    "run_experiment",
    "run_meta",
    "run_arena",
    "run_aso",
    "run_bayes",
    "run_monitor",
    "run_plan",
    "run_rank",
    "run_report",
    "run_trec",
    "settings_options",
    "warm_figure_modules",
    "with_display_names",
    "with_option_bounds",
    "write_compare_outputs",
    "write_meta_outputs",
    "write_rank_outputs",
    "write_report",
]


def __getattr__(name: str) -> Any:
    """A public name, imported from its module on first use (:data:`_EXPORTS`)."""
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(module, __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_EXPORTS})
