"""An experiment end to end: config → per-item scores → effect sizes → meta-analysis → files.

This is what ``ranger-eval meta CONFIG.yaml`` runs. Each step is a public function of its own
module; this module only wires them together and writes the outputs.
"""
from __future__ import annotations

import json
import warnings
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from .effects import EffectSizes, effect_sizes
from .io import ConfigError, Experiment, IRConfig, experiment_scores
from .meta import MetaResult, meta_analysis
from .scores import Scores


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


def _ir_scores(exp: Experiment) -> tuple[Scores, pd.DataFrame, dict[str, str]]:
    """Evaluate the control's and treatment's runs on every collection with qrels.

    Returns the per-query scores of the configured measure, a per-collection table of extra
    columns (means of the measure and of each ``ir.columns`` measure, control → treatment) and
    the collections that were skipped with their reason.
    """
    from . import ir

    cfg = exp.config
    ir_cfg = cfg.ir or IRConfig()
    measures = [ir_cfg.measure, *[c for c in ir_cfg.columns if c != ir_cfg.measure]]
    frames, extra_rows, skipped = [], [], {}
    for task in cfg.tasks:
        missing_runs = [s for s in (cfg.control, cfg.treatment) if task.id not in cfg.systems[s].files]
        if task.qrels is None or missing_runs:
            reason = (
                "no qrels" if task.qrels is None else f"no run for {', '.join(missing_runs)}"
            )
            skipped[task.id] = reason
            continue
        qrels = ir.read_qrels(exp.path(task.qrels))
        row: dict[str, str] = {}
        per_system = {}
        for sys_id in (cfg.control, cfg.treatment):
            run = ir.read_run(exp.path(cfg.systems[sys_id].files[task.id]))
            ev = ir.evaluate(
                qrels, run, measures, missing=ir_cfg.missing, score_precision=ir_cfg.score_precision
            )
            per_system[sys_id] = ev
            main = ev[ev["measure"] == ir_cfg.measure]
            frames.append(
                pd.DataFrame(
                    {
                        "dataset": task.id,
                        "system": sys_id,
                        "metric": ir_cfg.measure,
                        "item": main["query_id"].astype(str).to_numpy(),
                        "value": main["value"].to_numpy(dtype=np.float64),
                    }
                )
            )
        for m in measures:
            c = per_system[cfg.control]
            t = per_system[cfg.treatment]
            mc = c.loc[c["measure"] == m, "value"].mean()
            mt = t.loc[t["measure"] == m, "value"].mean()
            row[m] = f"{mc:.3f} → {mt:.3f}"
        extra_rows.append(pd.Series(row, name=task.id))
    if skipped:
        warnings.warn(
            "skipped collection(s): "
            + "; ".join(f"{k} ({v})" for k, v in skipped.items()),
            stacklevel=3,
        )
    if not frames:
        raise ConfigError(f"{exp.source}: no collection has both qrels and runs for both systems")
    extra = pd.DataFrame(extra_rows)
    extra.index.name = "dataset"
    return Scores(pd.concat(frames, ignore_index=True)), extra, skipped


def run_experiment(exp: Experiment) -> ExperimentResult:
    """Compute effect sizes of ``treatment`` over ``control`` per task and meta-analyse them."""
    cfg = exp.config
    skipped: dict[str, str] = {}
    extra = None
    if exp.is_ir:
        scores, extra, skipped = _ir_scores(exp)
    else:
        scores = experiment_scores(exp)
    datasets = [t.id for t in cfg.tasks if t.id not in skipped] or None
    eff = effect_sizes(
        scores,
        treatment=cfg.treatment,
        control=cfg.control,
        measure=cfg.measure,
        datasets=datasets,
        missing=cfg.missing,
        level=cfg.level,
    )
    if extra is not None:
        eff = eff.with_extra(extra)
    eff = eff.rename(exp.task_labels)
    res = meta_analysis(eff, method=cfg.method, test=cfg.test, level=cfg.level)
    return ExperimentResult(scores=scores, effects=eff, result=res, title=cfg.title, skipped=skipped)


def summary_markdown(res: ExperimentResult, control: str, treatment: str) -> str:
    """A Markdown report: per-task effects and the summary line, with the model's numbers."""
    r = res.result
    pct = f"{r.level * 100:g}%"
    lines = []
    if res.title:
        lines += [f"# {res.title}", ""]
    lines += [
        f"Effect measure **{r.measure}** of *{treatment}* over *{control}*; model: "
        f"{'fixed effect' if r.method in ('FE', 'EE') else f'random effects ({r.method})'}, "
        f"test {r.test}, {pct} intervals.",
        "",
        f"| task | n | effect | {pct} CI | weight |",
        "|---|---:|---:|---|---:|",
    ]
    frame = r.to_frame()
    eff = res.effects
    n_by_name = dict(zip(r.names, np.asarray(eff.n).tolist(), strict=True))
    for row in frame.itertuples(index=False):
        name = str(row.name)
        if name in n_by_name:
            lines.append(
                f"| {name} | {n_by_name[name]} | {row.yi:.6f} | [{row.ci_low:.6f}, {row.ci_high:.6f}] "
                f"| {row.weight * 100:.2f}% |"
            )
    lines += [
        f"| **summary** | | **{r.estimate:.6f}** | [{r.ci_low:.6f}, {r.ci_high:.6f}] | 100% |",
        "",
        f"p = {r.pvalue:.4g}; prediction interval [{r.pi_low:.6f}, {r.pi_high:.6f}]; "
        f"τ² = {r.tau2:.4g}, I² = {r.I2:.1f}%, H² = {r.H2:.3g}, Q({r.Q_df}) = {r.Q:.4g}, "
        f"p(Q) = {r.Q_pvalue:.4g}.",
    ]
    if res.skipped:
        lines += ["", "Not analysed: " + "; ".join(f"{k} ({v})" for k, v in res.skipped.items()) + "."]
    return "\n".join(lines) + "\n"


def write_outputs(exp: Experiment, res: ExperimentResult, out: Path) -> list[Path]:
    """Write forest.{pdf,svg,png}, effects.csv, summary.json and summary.md into ``out``."""
    from .plots.forest import forest_plot, save_figure

    out.mkdir(parents=True, exist_ok=True)
    cfg = exp.config
    control = exp.system_label(cfg.control)
    treatment = exp.system_label(cfg.treatment)
    fig = forest_plot(
        res.result,
        order=cfg.order,
        title=res.title,
        control_label=control,
        treatment_label=treatment,
    )
    written = [Path(p) for p in save_figure(fig, out / "forest")]
    frame = res.effects.to_frame()
    ids = {label: task_id for task_id, label in exp.task_labels.items()}
    frame.insert(0, "task_id", [ids.get(d, d) for d in frame["dataset"]])
    frame["weight"] = res.result.weights
    frame.to_csv(out / "effects.csv", index=False)
    payload = {
        "title": res.title,
        "control": cfg.control,
        "treatment": cfg.treatment,
        "measure": cfg.measure,
        "skipped": res.skipped,
        "result": res.result.to_dict(),
    }
    (out / "summary.json").write_text(json.dumps(payload, indent=2, allow_nan=False) + "\n")
    (out / "summary.md").write_text(summary_markdown(res, control, treatment), encoding="utf-8")
    written += [out / "effects.csv", out / "summary.json", out / "summary.md"]
    return written
