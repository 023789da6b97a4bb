"""Experiment configuration (YAML): tasks, systems and their files, and each command's settings.

Paths in the YAML are relative to the YAML file. Every key is validated; an unknown key or a bad
value is a :class:`ConfigError` naming the file, the line and the key. The reference of every
key is ``docs/configuration.md``.

Layout: the data keys (``title, metric, tasks, systems, scores, ir, missing, level``) are shared by
every command; each command's settings live in its own section (``meta:``, ``compare:``,
``aggregate:``), made from the fields of its settings object (:mod:`ranger_eval.settings`). The
meta-analysis settings may also be written at the top level, as the original Ranger format does
(``control, treatment, measure, method, test, order``). Each command reads its own settings
(:meth:`Experiment.settings`) and accepts the other commands' settings unused: they are known
keys, so one file serves ``meta``, ``compare`` and ``rank``; unknown keys are errors.
"""
from __future__ import annotations

import glob
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, TypeVar

import yaml
from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    ValidationInfo,
    create_model,
    field_validator,
    model_validator,
)

from ..errors import ConfigError, InputError, SettingsError
from ..settings import (
    COMPARE_TESTS,
    MEASURES,
    META_METHODS,
    META_ORDERS,
    META_TESTS,
    MISSING,
    CompareSettings,
    MetaSettings,
    RankSettings,
    check_value,
    settings_fields,
)
from .adapters import check_system_from
from .adapters._json import _too_deep
from .files import MAX_CONFIG_BYTES, current_limits, open_text

__all__ = [
    "AggregateSection",
    "COMPARE_TESTS",
    "ConfigError",
    "CompareSection",
    "Experiment",
    "ExperimentConfig",
    "IRConfig",
    "META_KEYS",
    "ScoresEntry",
    "SystemConfig",
    "TaskConfig",
    "experiment_from_table",
    "load_experiment",
]

#: The meta-analysis settings, allowed at the top level (original Ranger layout) or under ``meta:``.
META_KEYS: tuple[str, ...] = tuple(
    k for k, (_, m) in settings_fields(MetaSettings).items() if m.yaml == "both")
#: Meta-analysis settings only allowed inside the ``meta:`` section.
META_SECTION_ONLY: tuple[str, ...] = tuple(
    k for k, (_, m) in settings_fields(MetaSettings).items() if m.yaml == "section")

_S = TypeVar("_S", CompareSettings, RankSettings, MetaSettings)


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
    #: evaluation logs (files, folders, patterns) of this system, whatever their tasks:
    #: ``systems: {baseline: logs/a.eval}``; every row they hold is this system's
    logs: list[str] = Field(default_factory=list)
    item_column: str = "item"
    value_column: str = "value"


class ScoresEntry(_Model):
    """One ``scores:`` entry written as a mapping: ``{path: logs/a.eval, system: baseline}``
    (the system names every row of the file(s) the path or pattern names)."""

    path: str
    system: str | None = None


class IRConfig(_Model):
    """Options for IR tasks: per-query ``measure`` from TREC runs and extra plot ``columns``."""

    measure: str = "nDCG@10"
    columns: list[str] = Field(default_factory=lambda: ["Judged@10"])
    missing: Literal["zero", "drop", "error"] = "zero"
    score_precision: Literal["float64", "float32"] = "float64"


class _Section(_Model):
    """A command's YAML section: every key a field of the command's settings object
    (:mod:`ranger_eval.settings`, ``yaml`` "section" or "both"), each value checked by that
    field's check (so the YAML accepts exactly what the Python API and the command line accept);
    None (absent) keeps the default."""

    @field_validator("*", mode="before")
    @classmethod
    def _check(cls, value: Any, info: ValidationInfo) -> Any:
        name = str(info.field_name)
        renamed = _RENAMED_KEYS.get(cls.__name__, {})
        if name in renamed:
            raise ValueError(renamed[name])
        if value is None:
            return None
        try:
            return check_value(_SECTION_SETTINGS[cls.__name__], name, value)
        except SettingsError as exc:
            raise ValueError(str(exc).removeprefix(f"{name}: ")) from None


def _section_model(name: str, settings: type[Any], doc: str,
                   renamed: dict[str, str] | None = None) -> type[_Section]:
    """The pydantic model of a command's YAML section, derived from its settings class."""
    _SECTION_SETTINGS[name] = settings
    _RENAMED_KEYS[name] = dict(renamed or {})
    fields: dict[str, Any] = {
        key: (Any, None) for key, (_, meta) in settings_fields(settings).items()
        if meta.yaml in ("section", "both")}
    fields.update({key: (Any, Field(default=None, exclude=True)) for key in renamed or {}})
    return create_model(name, __base__=_Section, __doc__=doc, **fields)


_SECTION_SETTINGS: dict[str, type[Any]] = {}
_RENAMED_KEYS: dict[str, dict[str, str]] = {}

if TYPE_CHECKING:  # models made at run time from the settings fields
    CompareSection = _Section
    AggregateSection = _Section
else:
    #: ``compare:`` section: the settings of ``ranger-eval compare`` (flags override).
    CompareSection = _section_model(
        "CompareSection", CompareSettings,
        "``compare:`` section: the options of ``ranger-eval compare`` (command-line flags "
        "override).")
    #: ``aggregate:`` section: the settings of ``ranger-eval rank`` (flags override).
    AggregateSection = _section_model(
        "AggregateSection", RankSettings,
        "``aggregate:`` section: the options of ``ranger-eval rank`` (command-line flags "
        "override).",
        renamed={"alpha": "renamed to aggregate.level, the confidence level (level = 1 - "
                          "alpha, e.g. alpha 0.05 is level 0.95)",
                 "n_samples": "renamed to aggregate.n_draws, the Bayesian approach's posterior "
                              "draws per pair (n_samples would say the sample column's word)"})


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
    measure: Literal[MEASURES] = MetaSettings.measure  # type: ignore[valid-type]
    method: Literal[META_METHODS] = MetaSettings.method  # type: ignore[valid-type]
    test: Literal[META_TESTS] = MetaSettings.test  # type: ignore[valid-type]
    level: float = MetaSettings.level
    missing: Literal[MISSING] = CompareSettings.missing  # type: ignore[valid-type]
    order: Literal[META_ORDERS] = MetaSettings.order  # type: ignore[valid-type]
    #: equivalence / non-inferiority margin of the summary effect (``meta.margin``)
    margin: float | None = MetaSettings.margin
    tasks: list[TaskConfig] = Field(default_factory=list)
    systems: dict[str, SystemConfig] = Field(default_factory=dict)
    scores: str | list[str | ScoresEntry] | None = None
    format: str | None = None
    #: name the systems of evaluation logs after these fields instead of the model
    #: (``run_id``, ``task_args.<key>``, ``file`` ...; :data:`adapters.SYSTEM_SOURCES`)
    system_from: str | list[str] | None = None
    #: the field holding each item's cluster: a table's column, an Inspect sample-metadata key
    #: or an lm-eval ``doc`` field (``--cluster``; :func:`ranger_eval.io.read_scores`)
    cluster: str | None = None
    #: the range of some metrics, ``{metric: [lo, hi]}``: their means' intervals stay inside it
    #: (:meth:`ranger_eval.Scores.with_bounds`; a score outside it is an error)
    bounds: dict[str, list[float]] | None = None
    ir: IRConfig | None = None
    compare: CompareSection = Field(default_factory=CompareSection)
    aggregate: AggregateSection = Field(default_factory=AggregateSection)
    #: meta-analysis keys the file wrote at the top level (the original Ranger layout)
    top_level_meta_keys: tuple[str, ...] = ()
    #: ``meta:`` section only: set-level metric, its bootstrap, and the seed policy
    meta_metric_fn: str | None = None
    # one place: settings.MetaSettings checks these (_meta_setting below), no second range here
    meta_n_resamples: int | None = None
    meta_seed: int | None = None
    meta_seeds: str | None = None
    #: ``meta.degenerate``: datasets with an undefined effect or zero variance are an error
    #: (default) or left out with a warning (``effect_sizes(..., degenerate=...)``)
    meta_degenerate: str | None = None

    @model_validator(mode="before")
    @classmethod
    def _meta_section(cls, raw: Any) -> Any:
        """Fold a ``meta:`` section into the meta-analysis settings; remember top-level ones."""
        if not isinstance(raw, dict):
            return raw
        raw = dict(raw)
        internal = [k for k in raw if k == "top_level_meta_keys" or str(k).startswith("meta_")]
        if internal:
            raise ValueError(f"{internal[0]}: unknown key")
        raw["top_level_meta_keys"] = tuple(k for k in META_KEYS if k in raw)
        section = raw.pop("meta", None)
        if section is None:
            return raw
        if not isinstance(section, dict):
            raise ValueError("meta: expected a mapping of meta-analysis settings")
        section = dict(section)
        unknown = [k for k in section if k not in META_KEYS + META_SECTION_ONLY]
        if unknown:
            raise ValueError(
                f"meta.{unknown[0]}: unknown key (the meta section takes "
                f"{', '.join(META_KEYS + META_SECTION_ONLY)})"
            )
        for key in META_SECTION_ONLY:
            if key in section:
                raw[f"meta_{key}"] = section.pop(key)
        for key, value in section.items():
            if key in raw:
                raise ValueError(f"meta.{key}: also given at the top level; keep one")
            if value is not None:
                raw[key] = value
        return raw

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
                if not isinstance(sys_cfg, dict):  # logs (systems: {name: path}): no task ids
                    continue
                files = sys_cfg.get("files") or sys_cfg.get("runs") or {}
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

    @field_validator("system_from")
    @classmethod
    def _system_from(cls, v: str | list[str] | None) -> str | list[str] | None:
        try:
            check_system_from(v)
        except InputError as exc:
            raise ValueError(str(exc).removeprefix("system_from: ")) from None
        return v

    @field_validator("scores", mode="before")
    @classmethod
    def _score_entries(cls, v: Any) -> Any:
        # list entries: a path, or {path, system}; one message per bad entry (not pydantic's
        # three for the union)
        if not isinstance(v, list):
            return v
        out: list[Any] = []
        for i, e in enumerate(v):
            if isinstance(e, dict):
                unknown = [k for k in e if k not in ScoresEntry.model_fields]
                if unknown:
                    raise ValueError(f"entry {i}: unknown key {unknown[0]!r} (an entry is a "
                                     f"path, or a mapping with path and system)")
                if not isinstance(e.get("path"), str) or not isinstance(
                        e.get("system"), (str, type(None))):
                    raise ValueError(f"entry {i}: path (and system) must be text; got {e!r}")
                e = ScoresEntry(**e)
            elif not isinstance(e, str):
                raise ValueError(f"entry {i}: expected a path or {{path, system}}; got {e!r}")
            out.append(e)
        return out

    @field_validator("systems", mode="before")
    @classmethod
    def _log_systems(cls, v: Any) -> Any:
        # ``systems: {baseline: logs/a.eval}`` / ``{baseline: [a.eval, b.eval]}``
        if isinstance(v, dict):
            return {k: {"logs": [c] if isinstance(c, str) else c}
                    if isinstance(c, (str, list)) else c for k, c in v.items()}
        return v

    @field_validator("control", "treatment", "measure", "method", "test", "order", "level",
                     "margin", "meta_metric_fn", "meta_n_resamples", "meta_seed", "meta_seeds",
                     "meta_degenerate", mode="before")
    @classmethod
    def _meta_setting(cls, value: Any, info: ValidationInfo) -> Any:
        """The meta-analysis settings (and the shared ``level``) checked by
        :class:`MetaSettings`' field checks, in canonical spelling (``reml`` → ``REML``);
        ``meta_KEY`` is the ``meta:`` section's ``KEY`` (None: not given)."""
        field = str(info.field_name)
        name = field.removeprefix("meta_")
        if value is None and field.startswith("meta_"):
            return None
        try:
            return check_value(MetaSettings, name, value)
        except SettingsError as exc:
            raise ValueError(str(exc).removeprefix(f"{name}: ")) from None

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

    def _check_roles(self) -> None:
        for role in ("control", "treatment"):
            sys_id = getattr(self, role)
            if sys_id is not None and sys_id not in self.systems:
                raise ValueError(
                    f"{role}: system {sys_id!r} is not defined under `systems` "
                    f"(defined: {', '.join(self.systems) or 'none'})"
                )

    @model_validator(mode="after")
    def _consistent(self) -> ExperimentConfig:
        both = [k for k in ("tasks", "systems") if getattr(self, k)]
        if self.scores is not None and both:
            raise ValueError(
                f"`scores` and `{'`/`'.join(both)}` are both given; use either one tidy "
                "`scores` table (its datasets and systems are read from it) or `tasks` and "
                "`systems` with their files, not both")
        logs = [k for k, c in self.systems.items() if c.logs]
        if logs:
            files = [k for k, c in self.systems.items() if c.files or not c.logs]
            if files:
                raise ValueError(
                    f"systems.{files[0]}: give every system its logs (`systems: {{name: "
                    f"path}}`) or every system its files per task, not a mix (systems with "
                    f"logs: {', '.join(logs)})")
            if self.tasks:
                raise ValueError(
                    "tasks: not used when the systems name their logs (the datasets are the "
                    "logs' tasks); remove `tasks`")
            self._check_roles()
        entries = [] if self.scores is None or isinstance(self.scores, str) else self.scores
        named = logs or (entries and all(isinstance(e, ScoresEntry) and e.system is not None
                                         for e in entries))
        if self.system_from is not None and (named or self.scores is None):
            raise ValueError(
                "system_from: not used, because every system is named in the file ("
                + ("`systems: {name: logs}`" if logs else "`scores` entries with `system`"
                   if named else "`systems` with files per task") + "); remove it")
        if self.scores is None and not logs:
            if not self.tasks:
                raise ValueError("tasks: empty task list (name at least one task, or give `scores`)")
            ids = [t.id for t in self.tasks]
            dups = sorted({i for i in ids if ids.count(i) > 1})
            if dups:
                raise ValueError(f"tasks: duplicate task id(s) {', '.join(dups)}")
            self._check_roles()
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


class _UniqueKeyLoader(yaml.SafeLoader):
    """yaml.SafeLoader that rejects a key given twice in one mapping (the last would win)."""


def _construct_mapping(loader: _UniqueKeyLoader, node: yaml.MappingNode, deep: bool = False
                       ) -> dict[Any, Any]:
    seen: dict[Any, int] = {}
    for key_node, _ in node.value:
        key = loader.construct_object(key_node, deep=deep)
        line = key_node.start_mark.line + 1
        if key in seen:
            raise yaml.constructor.ConstructorError(
                None, None, f"duplicate key {key!r} (first at line {seen[key]}, again at line "
                f"{line}); keep one", key_node.start_mark)
        seen[key] = line
    return loader.construct_mapping(node, deep=deep)


_UniqueKeyLoader.add_constructor(
    yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_mapping)


def _key_line(path: Path, parts: list[str]) -> int | None:
    """The line of the YAML key at ``parts`` (``["meta", "seeds"]``; a top-level meta-analysis
    key may also stand under ``meta:``) in ``path``, or None (not found, not a YAML file). Read
    again on error only, from the node tree's marks."""
    if not parts or path.suffix.lower() not in (".yaml", ".yml"):
        return None
    try:
        node = yaml.compose(path.read_text(encoding="utf-8-sig"), Loader=yaml.SafeLoader)
    except (OSError, UnicodeDecodeError, yaml.YAMLError):
        return None
    candidates = [parts] + ([["meta", *parts]] if parts[0] in META_KEYS else [])
    for candidate in candidates:
        current, line = node, None
        for part in candidate:
            if isinstance(current, yaml.MappingNode):
                hit = next(((k, v) for k, v in current.value if str(k.value) == part), None)
                if hit is None:
                    break
                line, current = hit[0].start_mark.line + 1, hit[1]
            elif isinstance(current, yaml.SequenceNode) and part.isdigit() \
                    and int(part) < len(current.value):
                current = current.value[int(part)]
                line = current.start_mark.line + 1
            else:
                break
        else:
            return line
    return None


def _format_validation(path: Path, exc: ValidationError, options: frozenset[str] = frozenset()) -> str:
    """One line per error (at most 5): the key (``meta.method``) or option (``--method``) and why."""
    msgs = []
    for err in exc.errors()[:5]:
        parts = [str(p) for p in err["loc"]]
        if parts and parts[0].startswith("meta_"):  # ``meta:`` section keys, stored prefixed
            parts = ["meta", parts[0].removeprefix("meta_"), *parts[1:]]
        loc = ".".join(parts) or "(top level)"
        msg = err["msg"].removeprefix("Value error, ")
        if err["type"] == "extra_forbidden":
            msg = "unknown key"
        elif err["type"] == "missing":
            msg = "required key is missing"
        if "input" in err and err["type"] not in ("extra_forbidden", "missing", "value_error"):
            msg += f"; got {err['input']!r}"
        key = str(err["loc"][0]) if err["loc"] else ""
        line = _key_line(path, parts)
        where = (f"option --{key.replace('_', '-')}" if key in options
                 else f"{path}:{line}: {loc}" if line else f"{path}: {loc}")
        msgs.append(f"{where}: {msg}")
    more = f" (+{len(exc.errors()) - 5} more)" if len(exc.errors()) > 5 else ""
    return "; ".join(msgs) + more


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
    def scores_paths(self) -> list[Path]:
        """The files of ``scores`` (its patterns expanded when the YAML was loaded), in order;
        empty without ``scores``."""
        return [p for p, _ in self.score_inputs]

    @property
    def score_inputs(self) -> list[tuple[Path, str | None]]:
        """(path, system named in the YAML or None) of each ``scores`` entry, in order."""
        scores = self.config.scores
        if scores is None:
            return []
        entries = [scores] if isinstance(scores, str) else scores
        return [(self.path(e), None) if isinstance(e, str) else (self.path(e.path), e.system)
                for e in entries]

    def log_paths(self, system_id: str) -> list[Path]:
        """The logs (files, folders) of a system named by its logs (``systems: {id: path}``)."""
        return [self.path(p) for p in self.config.systems[system_id].logs]

    @property
    def task_labels(self) -> dict[str, str]:
        return {t.id: t.label for t in self.config.tasks}

    def system_label(self, system_id: str | None) -> str:
        if system_id is None:
            return ""
        sys_cfg = self.config.systems.get(system_id)
        return sys_cfg.name if sys_cfg and sys_cfg.name else system_id

    @property
    def system_labels(self) -> dict[str, str]:
        return {s: self.system_label(s) for s in self.config.systems}

    @property
    def is_ir(self) -> bool:
        return any(t.qrels for t in self.config.tasks)

    def settings(self, cls: type[_S]) -> _S:
        """The settings of one command from this file: its section (``compare:``,
        ``aggregate:``; for ``meta``, the ``meta:`` section or the top-level keys), the shared
        top-level keys (``level``, and ``missing`` where the command takes it) when written in
        the file, over the defaults of ``cls``. A combination the settings refuse is a
        :class:`ConfigError` naming the file and the key."""
        cfg = self.config
        fields = settings_fields(cls)
        given: dict[str, Any] = {k: getattr(cfg, k) for k, (_, meta) in fields.items()
                                 if meta.yaml in ("top", "both") and k in cfg.model_fields_set}
        if cls is MetaSettings:
            given.update({k: getattr(cfg, f"meta_{k}") for k in META_SECTION_ONLY
                          if getattr(cfg, f"meta_{k}") is not None})
            given.update({k: getattr(cfg, k) for k in META_KEYS if getattr(cfg, k) is not None})
            section = "meta"
        else:
            section = cls.section
            values = getattr(cfg, section).model_dump()
            given.update({k: v for k, v in values.items() if v is not None})
        try:
            return cls(**given)
        except SettingsError as exc:
            raise ConfigError(f"{self.source}: {section}.{exc}") from None


def _apply_overrides(raw: dict[str, Any], overrides: dict[str, Any]
                     ) -> tuple[dict[str, Any], dict[str, Any]]:
    """Command-line ``overrides`` over the file's keys: meta-analysis options replace the
    ``meta:`` section's keys when the file has that section (``meta_X`` options always go there
    as ``X``), the others the top-level keys. Returns the merged mapping and the options given."""
    given = {k: v for k, v in overrides.items() if v is not None}
    section_only = {k.removeprefix("meta_"): v for k, v in given.items() if k.startswith("meta_")}
    section = raw.get("meta")
    if isinstance(section, dict) or section_only:
        base = dict(section) if isinstance(section, dict) else {}
        in_section = section_only | ({k: v for k, v in given.items() if k in META_KEYS}
                                     if isinstance(section, dict) else {})
        raw = {**raw, "meta": {**base, **in_section}}
        given_top = {k: v for k, v in given.items()
                     if not k.startswith("meta_") and (k not in META_KEYS
                                                       or not isinstance(section, dict))}
    else:
        given_top = given
    return {**raw, **given_top}, given


#: nodes visited at most when checking a YAML value (aliases can make a small file huge)
MAX_YAML_NODES = 1_000_000


def _check_size(raw: Any, path: Path) -> None:
    """Reject YAML nested deeper than the depth limit, or whose aliases expand to more than
    :data:`MAX_YAML_NODES` values (a "billion laughs" file), naming the file; iterative."""
    limit = current_limits().max_depth
    stack: list[tuple[Any, int, str]] = [(raw, 0, "")]
    visited = 0
    while stack:
        node, depth, key = stack.pop()
        visited += 1
        if visited > MAX_YAML_NODES:
            raise ConfigError(f"{path}: the YAML expands to more than {MAX_YAML_NODES} values "
                              f"(aliases repeated?); an experiment file is much smaller")
        if depth > limit:
            raise ConfigError(f"{path}: {key or '(top level)'}: nested more than {limit} levels "
                              f"deep (set RANGER_EVAL_MAX_DEPTH to raise the limit)")
        if isinstance(node, dict):
            stack.extend((v, depth + 1, f"{key}.{k}" if key else str(k)) for k, v in node.items())
        elif isinstance(node, list):
            stack.extend((v, depth + 1, f"{key}[{i}]") for i, v in enumerate(node))


def _matches(pattern: str, base: Path) -> list[str]:
    """The paths ``pattern`` names, relative to ``base``: itself when it has no wildcard (or a
    file of that exact name exists), else its matches (``**`` spans folders), sorted."""
    p = Path(pattern).expanduser()
    full = p if p.is_absolute() else base / p
    if not glob.has_magic(pattern) or full.exists():
        return [pattern]
    return sorted(glob.glob(str(full), recursive=True))


def _expand_many(pattern: str, base: Path, source: Path | str, key: str,
                 first: dict[Path, str]) -> list[str]:
    """The files (or folders) ``pattern`` matches under ``key``; none, or a file already
    named by another pattern (``first``: resolved path → pattern), is a :class:`ConfigError`."""
    found = _matches(pattern, base)
    if not found:
        raise ConfigError(f"{source}: {key}: pattern {pattern!r} matches no file "
                          f"(relative to {base})")
    for f in found:
        resolved = (base / Path(f).expanduser()).resolve()
        if resolved in first:
            raise ConfigError(f"{source}: {key}: {f} is given twice (also by "
                              f"{first[resolved]!r}); each scores file may be listed once")
        first[resolved] = pattern
    return found


def expand_globs(raw: dict[str, Any], base: Path, source: Path | str) -> dict[str, Any]:
    """Expand the wildcards (``*``, ``?``, ``[...]``, ``**``) of the input paths of a config
    mapping, relative to ``base`` (the YAML's folder).

    ``scores`` (one pattern or a list of paths and patterns) becomes every match, sorted by
    path within each pattern; a pattern that matches nothing and a file matched twice are
    :class:`ConfigError` s naming the key and the pattern. The single-file keys
    (``systems.<id>.files.<task>`` / ``runs``, ``tasks[i].qrels``, ``qrels.<collection>``) take
    a pattern only when it matches exactly one file.
    """
    out = dict(raw)
    scores = out.get("scores")
    if isinstance(scores, (str, list)) and scores:
        patterns = [scores] if isinstance(scores, str) else scores
        if all(isinstance(s, str) or isinstance(s, dict) and isinstance(s.get("path"), str)
               for s in patterns):
            files: list[Any] = []
            first: dict[Path, str] = {}
            for i, entry in enumerate(patterns):
                key = "scores" if isinstance(scores, str) else f"scores[{i}]"
                pattern = entry if isinstance(entry, str) else entry["path"]
                for f in _expand_many(pattern, base, source, key, first):
                    files.append(f if isinstance(entry, str) else {**entry, "path": f})
            out["scores"] = files[0] if isinstance(scores, str) and len(files) == 1 else files

    def one(value: Any, key: str) -> Any:
        if not isinstance(value, str) or not glob.has_magic(value):
            return value
        found = _matches(value, base)
        if len(found) != 1:
            what = "no file" if not found else f"{len(found)} files ({', '.join(found[:3])}" + (
                ", ...)" if len(found) > 3 else ")")
            raise ConfigError(f"{source}: {key}: pattern {value!r} matches {what}; this key "
                              f"names one file (relative to {base})")
        return found[0]

    systems = out.get("systems")
    if isinstance(systems, dict):
        new_systems: dict[Any, Any] = {}
        seen: dict[Path, str] = {}
        for sid, cfg in systems.items():
            if isinstance(cfg, (str, list)):  # systems: {name: logs}
                cfg = {"logs": cfg}
            if isinstance(cfg, dict) and isinstance(cfg.get("logs"), (str, list)):
                logs = [cfg["logs"]] if isinstance(cfg["logs"], str) else cfg["logs"]
                cfg = {**cfg, "logs": [f for i, p in enumerate(logs) for f in (
                    _expand_many(p, base, source, f"systems.{sid}.logs[{i}]", seen)
                    if isinstance(p, str) else [p])]}
            if isinstance(cfg, dict):
                cfg = dict(cfg)
                for fkey in ("files", "runs"):
                    if isinstance(cfg.get(fkey), dict):
                        cfg[fkey] = {t: one(f, f"systems.{sid}.{fkey}.{t}")
                                     for t, f in cfg[fkey].items()}
            new_systems[sid] = cfg
        out["systems"] = new_systems
    if isinstance(out.get("qrels"), dict):
        out["qrels"] = {c: one(f, f"qrels.{c}") for c, f in out["qrels"].items()}
    if isinstance(out.get("tasks"), list):
        out["tasks"] = [dict(t, qrels=one(t["qrels"], f"tasks[{i}].qrels"))
                        if isinstance(t, dict) and "qrels" in t else t
                        for i, t in enumerate(out["tasks"])]
    return out


def experiment_from_table(path: str | Path, **overrides: Any) -> Experiment:
    """An experiment over one scores table or tool output (no YAML): ``scores: path`` plus the
    command-line ``overrides`` (e.g. control, treatment, metric, format).

    The file is not read here; its path is made absolute and the experiment's folder is the
    file's folder.

    Parameters
    ----------
    path : str or Path
        The scores table or tool output.
    **overrides
        Experiment keys by their option names (``control="bm25"``, ``level=0.9``); None values
        are ignored, as for :func:`load_experiment`.

    Returns
    -------
    Experiment
        The validated ``config`` (``scores`` is the absolute ``path``) and ``base``, the file's
        folder.

    Raises
    ------
    ConfigError
        An invalid override, named as its command-line option (``option --level``).

    Examples
    --------
    >>> from ranger_eval.io.config import experiment_from_table
    >>> exp = experiment_from_table("scores.csv", control="bm25", treatment="dense",
    ...                             metric="ndcg@10")
    >>> exp.config.control, exp.config.treatment, exp.config.metric
    ('bm25', 'dense', 'ndcg@10')
    >>> exp.config.scores.endswith("scores.csv")
    True
    >>> experiment_from_table("scores.csv", level=2)
    Traceback (most recent call last):
    ...
    ranger_eval.errors.ConfigError: option --level: must be strictly between 0 and 1 (e.g. 0.95); got 2
    """
    path = Path(path)
    raw, _ = _apply_overrides({"scores": str(path.resolve())}, overrides)
    try:
        config = ExperimentConfig.model_validate(raw)
    except ValidationError as exc:
        raise ConfigError(_format_validation(path, exc, frozenset(raw) - {"scores"})) from None
    return Experiment(config, path.resolve().parent, path)


def load_experiment(path: str | Path, **overrides: Any) -> Experiment:
    """Load and validate an experiment YAML; ``overrides`` (e.g. method="DL") replace its keys.

    Overrides come from command-line options: an invalid one is reported as ``option --KEY``,
    not as a key of the file. Relative paths inside the file are resolved against its folder.
    The YAML is read with a safe loader that refuses duplicate keys, within the size and depth
    limits of :mod:`ranger_eval.io.files` (``RANGER_EVAL_MAX_DEPTH``).

    Parameters
    ----------
    path : str or Path
        The experiment YAML (docs/config.md lists its keys).
    **overrides
        Keys that replace the file's, by their option names (``level=0.9``, ``method="DL"``).

    Returns
    -------
    Experiment
        The validated ``config`` (an ``ExperimentConfig``), the folder ``base`` its paths are
        resolved against, and helpers that list its score files and labels.

    Raises
    ------
    ConfigError
        Unreadable or invalid YAML, an unknown or invalid key (named with its line), or an invalid
        override (named as ``--KEY``).

    Examples
    --------
    >>> import tempfile
    >>> from ranger_eval import load_experiment
    >>> from ranger_eval.demo import write_demo
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     path = write_demo(folder)
    ...     experiment = load_experiment(path, level=0.9)
    >>> experiment.config.metric, experiment.config.level, list(experiment.config.systems)
    ('accuracy', 0.9, ['baseline', 'compressed'])
    """
    path = Path(path)
    try:
        with open_text(path, what="experiment YAML", max_bytes=MAX_CONFIG_BYTES) as fh:
            text = fh.read()
    except InputError as exc:
        raise ConfigError(str(exc)) from None
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read ({exc.strerror})") from None

    if _too_deep(text, current_limits().max_depth):  # flow collections: [[[...]]] / {{...}}
        raise ConfigError(f"{path}: invalid YAML (nested more than "
                          f"{current_limits().max_depth} levels deep; set RANGER_EVAL_MAX_DEPTH "
                          f"to raise the limit)")
    try:
        raw = yaml.load(text, Loader=_UniqueKeyLoader)  # noqa: S506 (a SafeLoader subclass)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f":{mark.line + 1}" if mark is not None else ""
        raise ConfigError(f"{path}{where}: invalid YAML ({getattr(exc, 'problem', exc)})") from None
    except RecursionError:
        raise ConfigError(f"{path}: invalid YAML (nested too deeply)") from None
    if not isinstance(raw, dict):
        raise ConfigError(f"{path}: expected a mapping of keys at the top level")
    _check_size(raw, path)
    raw = expand_globs(raw, path.resolve().parent, path)
    raw, given = _apply_overrides(raw, overrides)
    try:
        config = ExperimentConfig.model_validate(raw)
    except ValidationError as exc:
        raise ConfigError(_format_validation(path, exc, frozenset(given))) from None
    return Experiment(config, path.resolve().parent, path)
