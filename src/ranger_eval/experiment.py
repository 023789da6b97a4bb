"""An experiment end to end: config → per-item scores → effect sizes → meta-analysis → files.

This is what ``ranger-eval meta CONFIG.yaml`` runs. Each step is a public function of its own
module; this module only wires them together and writes the outputs.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from .effects import EffectSizes, effect_sizes
from .io import ConfigError, Experiment, IRConfig, collect_scores
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
    for role in ("control", "treatment"):
        if getattr(cfg, role) is None:
            raise ConfigError(f"{exp.source}: {role}: required for the meta-analysis")
    control, treatment = cfg.control, cfg.treatment
    ir_cfg = cfg.ir or IRConfig()
    extra_measures = [c for c in ir_cfg.columns if c != ir_cfg.measure] if exp.is_ir else []
    collected = collect_scores(
        exp, [control, treatment], [ir_cfg.measure, *extra_measures] if exp.is_ir else None
    )
    scores = collected.scores
    datasets = [t.id for t in cfg.tasks if t.id not in collected.skipped] or None
    eff = effect_sizes(
        scores,
        treatment=treatment,
        control=control,
        measure=cfg.measure,
        metric=ir_cfg.measure if exp.is_ir else cfg.metric,
        datasets=datasets,
        missing=cfg.missing,
        level=cfg.level,
    )
    if extra_measures:
        eff = eff.with_extra(_means_columns(scores, extra_measures, control, treatment, list(eff.names)))
    eff = eff.rename(exp.task_labels)
    res = meta_analysis(eff, method=cfg.method, test=cfg.test, level=cfg.level)
    return ExperimentResult(
        scores=scores, effects=eff, result=res, title=cfg.title, skipped=collected.skipped
    )


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
        left_columns=_control_treatment_columns(res.effects) or None,
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
