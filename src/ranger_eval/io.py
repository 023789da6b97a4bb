"""Reading per-item scores and experiment configurations.

Formats:
- one value per line (the Ranger format): line ``i`` (1-based) is item ``i``;
- tables (CSV, TSV, JSONL, Parquet) with an item-id column and a value column, or a whole tidy
  table with ``dataset, system, item, value[, metric, seed]`` columns;
- an experiment YAML naming tasks, systems, files, control and treatment and the analysis options.
  Paths in the YAML are relative to the YAML file.

Every error names the file, the line (or YAML key) and the offending text.
"""
from __future__ import annotations

import math
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import numpy as np
import pandas as pd
import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from .scores import Scores, ScoresError

TABLE_SUFFIXES = {".csv": ",", ".tsv": "\t"}


class InputError(ValueError):
    """Unreadable or invalid input file; the message names the file, line and text."""


# ---------------------------------------------------------------------------- score files
def read_values(path: str | Path) -> np.ndarray:
    """Read a one-value-per-line file (the Ranger format) as float64; line ``i`` is item ``i``.

    Blank lines at the end are ignored; a blank line before the last value, a non-numeric line
    or a NaN/infinite value is an error naming the file and line.
    """
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8-sig")
    except FileNotFoundError:
        raise InputError(f"{path}: file not found") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"{path}: cannot read ({exc})") from None
    lines = text.splitlines()
    while lines and not lines[-1].strip():
        lines.pop()
    if not lines:
        raise InputError(f"{path}: empty file (expected one numeric value per line)")
    values = np.empty(len(lines), dtype=np.float64)
    for i, line in enumerate(lines):
        token = line.strip()
        if not token:
            raise InputError(f"{path}:{i + 1}: blank line (every line is one item's value)")
        try:
            v = float(token)
        except ValueError:
            raise InputError(f"{path}:{i + 1}: not a number: {line!r}") from None
        if not math.isfinite(v):
            raise InputError(f"{path}:{i + 1}: non-finite value {line.strip()!r}")
        values[i] = v
    return values


def _read_frame(path: Path) -> pd.DataFrame:
    suffix = "".join(path.suffixes[-2:]) if path.suffix == ".gz" else path.suffix
    suffix = suffix.lower().removesuffix(".gz")
    if not path.exists():
        raise InputError(f"{path}: file not found")
    try:
        if suffix in TABLE_SUFFIXES:
            return pd.read_csv(path, sep=TABLE_SUFFIXES[suffix], dtype={"item": str})
        if suffix in (".jsonl", ".ndjson"):
            return pd.read_json(path, lines=True, dtype={"item": str})
        if suffix == ".parquet":
            return pd.read_parquet(path)
    except (ValueError, OSError) as exc:
        raise InputError(f"{path}: cannot parse as {suffix[1:]} table ({exc})") from None
    raise InputError(
        f"{path}: unknown file type {suffix!r} (use .txt, .csv, .tsv, .jsonl or .parquet)"
    )


def _check_frame_values(frame: pd.DataFrame, path: Path, value_column: str) -> None:
    """Name the first bad value with its line (header is line 1 for CSV/TSV, 0-based row+1 otherwise)."""
    header = 2 if path.suffix.lower() in TABLE_SUFFIXES else 1
    col = frame[value_column]
    numeric = pd.to_numeric(col, errors="coerce")
    bad = numeric.isna().to_numpy() | ~np.isfinite(numeric.to_numpy(dtype=np.float64))
    if bad.any():
        r = int(np.flatnonzero(bad)[0])
        raise InputError(
            f"{path}:{r + header}: bad {value_column!r} value {col.iloc[r]!r} (must be a finite number)"
        )


def read_item_scores(
    path: str | Path, *, item_column: str = "item", value_column: str = "value"
) -> pd.Series:
    """Per-item values of one system on one dataset, indexed by item id (as strings).

    ``.txt`` files are one value per line (ids ``"1", "2", …``); tables need ``item_column`` and
    ``value_column``. Duplicate item ids are an error.
    """
    path = Path(path)
    if path.suffix.lower() in (".txt", ".dat", ".scores", ""):
        vals = read_values(path)
        return pd.Series(vals, index=pd.Index(np.arange(1, vals.size + 1).astype(str), name="item"))
    frame = _read_frame(path)
    for col in (item_column, value_column):
        if col not in frame.columns:
            raise InputError(
                f"{path}: no column {col!r}; columns are {', '.join(map(str, frame.columns))}"
            )
    if frame.empty:
        raise InputError(f"{path}: empty table")
    _check_frame_values(frame, path, value_column)
    items = frame[item_column].astype(str)
    dup = items.duplicated(keep=False)
    if dup.any():
        header = 2 if path.suffix.lower() in TABLE_SUFFIXES else 1
        rows = np.flatnonzero(dup.to_numpy())[:10] + header
        raise InputError(
            f"{path}: duplicate item id {items[dup].iloc[0]!r} (lines {', '.join(map(str, rows))})"
        )
    return pd.Series(
        pd.to_numeric(frame[value_column]).to_numpy(dtype=np.float64),
        index=pd.Index(items.to_numpy(), name="item"),
    )


def read_scores(path: str | Path) -> Scores:
    """Read a whole tidy table (CSV/TSV/JSONL/Parquet) with dataset, system, item, value columns."""
    path = Path(path)
    frame = _read_frame(path)
    try:
        return Scores(frame, source=str(path))
    except ScoresError as exc:
        raise InputError(str(exc)) from None


# ---------------------------------------------------------------------------- experiment YAML
class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class TaskConfig(_Model):
    """One dataset / task / collection. ``qrels`` makes it an IR collection."""

    id: str
    name: str | None = None
    qrels: str | None = None

    @property
    def label(self) -> str:
        return self.name or self.id


class SystemConfig(_Model):
    """A system with one file per task id (score files, or TREC runs for IR tasks)."""

    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)

    name: str | None = None
    files: dict[str, str] = Field(default_factory=dict, alias="runs")
    item_column: str = "item"
    value_column: str = "value"


class IRConfig(_Model):
    """Options for IR tasks: per-query ``measure`` from TREC runs and extra plot ``columns``."""

    measure: str = "nDCG@10"
    columns: list[str] = Field(default_factory=lambda: ["Judged@10"])
    missing: Literal["zero", "drop", "error"] = "zero"
    score_precision: Literal["float64", "float32"] = "float64"


class ExperimentConfig(_Model):
    """An experiment: systems scored on tasks, and the analysis options.

    Either ``tasks`` + ``systems`` (one file per system and task) or ``scores`` (one tidy table).
    ``control`` and ``treatment`` are needed by the meta-analysis (``ranger-eval meta``); the
    multi-system comparison uses every system.
    """

    title: str | None = None
    metric: str | None = None
    control: str | None = None
    treatment: str | None = None
    measure: Literal["MD", "SMD", "SMCC", "SMCR", "ZCOR"] = "SMD"
    method: Literal["FE", "EE", "DL", "HE", "HS", "SJ", "ML", "REML", "EB", "PM"] = "REML"
    test: Literal["z", "t", "knha"] = "z"
    level: float = 0.95
    missing: Literal["error", "intersect"] = "error"
    order: Literal["given", "effect", "weight", "name"] = "given"
    tasks: list[TaskConfig] = Field(default_factory=list)
    systems: dict[str, SystemConfig] = Field(default_factory=dict)
    scores: str | None = None
    ir: IRConfig | None = None

    @model_validator(mode="before")
    @classmethod
    def _qrels_mapping(cls, raw: Any) -> Any:
        """Accept the original Ranger layout: a top-level ``qrels: {collection: path}`` mapping.

        Each collection becomes (or completes) a task; collections that only some systems have
        runs for are kept as tasks and reported as skipped later, never dropped here.
        """
        if not isinstance(raw, dict) or "qrels" not in raw:
            return raw
        raw = dict(raw)
        qrels = raw.pop("qrels")
        if not isinstance(qrels, dict):
            raise ValueError("qrels: expected a mapping of collection id to qrels file")
        tasks = raw.get("tasks")
        if tasks is None:
            ids = list(qrels)
            for sys_cfg in (raw.get("systems") or {}).values():
                files = (sys_cfg or {}).get("files") or (sys_cfg or {}).get("runs") or {}
                ids += [k for k in files if k not in ids]
            tasks = ids
        tasks = cls._tasks(tasks)
        out = []
        for t in tasks:
            t = dict(t) if isinstance(t, dict) else {"id": t}
            if t.get("id") in qrels and "qrels" not in t:
                t["qrels"] = qrels[t["id"]]
            out.append(t)
        raw["tasks"] = out
        return raw

    @field_validator("level")
    @classmethod
    def _level(cls, v: float) -> float:
        if not 0 < v < 1:
            raise ValueError("must be between 0 and 1 (e.g. 0.95)")
        return v

    @field_validator("tasks", mode="before")
    @classmethod
    def _tasks(cls, v: Any) -> Any:
        # allow a plain list of ids or a mapping id -> display name
        if isinstance(v, dict):
            return [{"id": k, "name": n} if isinstance(n, str) or n is None else {"id": k, **n}
                    for k, n in v.items()]
        if isinstance(v, list):
            return [{"id": t} if isinstance(t, str) else t for t in v]
        return v

    @model_validator(mode="after")
    def _consistent(self) -> ExperimentConfig:
        if self.scores is None:
            if not self.tasks:
                raise ValueError("tasks: empty task list (name at least one task, or give `scores`)")
            ids = [t.id for t in self.tasks]
            dups = sorted({i for i in ids if ids.count(i) > 1})
            if dups:
                raise ValueError(f"tasks: duplicate task id(s) {', '.join(dups)}")
            for role in ("control", "treatment"):
                sys_id = getattr(self, role)
                if sys_id is not None and sys_id not in self.systems:
                    raise ValueError(
                        f"{role}: system {sys_id!r} is not defined under `systems` "
                        f"(defined: {', '.join(self.systems) or 'none'})"
                    )
            for sys_id, sys_cfg in self.systems.items():
                unknown = sorted(set(sys_cfg.files) - set(ids))
                if unknown:
                    raise ValueError(
                        f"systems.{sys_id}.files: unknown task id(s) {', '.join(unknown)} "
                        f"(tasks: {', '.join(ids)})"
                    )
        if self.control is not None and self.control == self.treatment:
            raise ValueError("treatment: must differ from control")
        return self


class ConfigError(ValueError):
    """An experiment YAML that cannot be used; the message names the file and key."""


def _format_validation(path: Path, exc: ValidationError) -> str:
    msgs = []
    for err in exc.errors()[:5]:
        loc = ".".join(str(p) for p in err["loc"]) or "(top level)"
        msg = err["msg"].removeprefix("Value error, ")
        if err["type"] == "extra_forbidden":
            msg = "unknown key"
        elif err["type"] == "missing":
            msg = "required key is missing"
        msgs.append(f"{loc}: {msg}")
    more = f" (+{len(exc.errors()) - 5} more)" if len(exc.errors()) > 5 else ""
    return f"{path}: " + "; ".join(msgs) + more


class Experiment:
    """A loaded experiment: its validated config and the folder its relative paths start from."""

    def __init__(self, config: ExperimentConfig, base: Path, source: Path | None = None) -> None:
        self.config = config
        self.base = base
        self.source = source

    def path(self, relative: str) -> Path:
        p = Path(relative).expanduser()
        return p if p.is_absolute() else (self.base / p).resolve()

    @property
    def task_labels(self) -> dict[str, str]:
        return {t.id: t.label for t in self.config.tasks}

    def system_label(self, system_id: str) -> str:
        sys_cfg = self.config.systems.get(system_id)
        return (sys_cfg.name if sys_cfg and sys_cfg.name else system_id)

    @property
    def is_ir(self) -> bool:
        return any(t.qrels for t in self.config.tasks)


def load_experiment(path: str | Path, **overrides: Any) -> Experiment:
    """Load and validate an experiment YAML; ``overrides`` (e.g. method="DL") replace its keys.

    Relative paths inside the file are resolved against the YAML file's folder.
    """
    path = Path(path)
    try:
        raw = yaml.safe_load(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ConfigError(f"{path}: file not found") from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f":{mark.line + 1}" if mark is not None else ""
        raise ConfigError(f"{path}{where}: invalid YAML ({getattr(exc, 'problem', exc)})") from None
    if not isinstance(raw, dict):
        raise ConfigError(f"{path}: expected a mapping of keys at the top level")
    raw = {**raw, **{k: v for k, v in overrides.items() if v is not None}}
    try:
        config = ExperimentConfig.model_validate(raw)
    except ValidationError as exc:
        raise ConfigError(_format_validation(path, exc)) from None
    return Experiment(config, path.resolve().parent, path)


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
    if cfg.scores is not None:
        scores = read_scores(exp.path(cfg.scores))
        if cfg.tasks:
            scores = scores.filter(datasets=[t.id for t in cfg.tasks])
        if systems is not None:
            scores = scores.filter(systems=systems)
        return CollectedScores(scores, {})
    systems = list(cfg.systems) if systems is None else list(systems)
    ir_cfg = cfg.ir or IRConfig()
    measures = measures or [ir_cfg.measure]
    frames: list[pd.DataFrame] = []
    skipped: dict[str, str] = {}
    missing: list[tuple[str, str]] = []
    for task in cfg.tasks:
        if exp.is_ir and task.qrels is None:
            skipped[task.id] = "no qrels"
            continue
        have = [s for s in systems if task.id in cfg.systems[s].files]
        lacking = [s for s in systems if s not in have]
        if len(have) < min(2, len(systems)):
            skipped[task.id] = f"no file for {', '.join(lacking)}"
            continue
        missing += [(s, task.id) for s in lacking]
        if task.qrels is not None:
            from . import ir

            runs = {s: exp.path(cfg.systems[s].files[task.id]) for s in have}
            evaluation = ir.evaluate_many(
                exp.path(task.qrels), runs, measures, missing=ir_cfg.missing,
                score_precision=ir_cfg.score_precision, progress=False,
            )
            frames.append(ir.to_scores(evaluation, task.id).frame)
            continue
        for sys_id in have:
            sys_cfg = cfg.systems[sys_id]
            series = read_item_scores(
                exp.path(sys_cfg.files[task.id]),
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
    scores = Scores(pd.concat(frames, ignore_index=True), source=str(exp.source))
    return CollectedScores(scores, skipped, tuple(missing))


def experiment_scores(exp: Experiment) -> Scores:
    """Per-item scores of every system of the experiment on every task it has a file for."""
    return collect_scores(exp).scores
