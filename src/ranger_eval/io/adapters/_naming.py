"""Naming the system of a log: ``system_from`` (a field the log carries) or an explicit name.

By default every adapter names the system after the model (Inspect ``eval.model``, lm-eval's
model name, HELM ``adapter_spec.model``), so two logs of one model — two temperatures, a task
argument, a second run — hold the same keys. ``system_from`` builds the name from other fields
of the log instead; an explicit ``system=`` replaces it outright.

Sources (one, or several joined with a space, e.g. ``["model", "task_args.cot"]``):

==========================  =====================================================  =========
source                      value                                                  formats
==========================  =====================================================  =========
``model``                   the model name (the default)                           all
``file``                    the input's file name without extension (folder name;  all
                            lm-eval: the folder of the results file)
``run_id``                  ``eval.run_id``; lm-eval: the results file's date      inspect,
                            (``results_<date>.json``: one run)                     lm-eval
``task``                    ``eval.task``                                          inspect
``task_args.<key>``         ``eval.task_args[key]`` (``-T key=value``)             inspect
``model_args.<key>``        Inspect ``eval.model_args[key]`` (``-M``); lm-eval     inspect,
                            ``config.model_args`` (``key=value,...`` parsed)       lm-eval
``generate_config.<key>``   Inspect ``eval.model_generate_config[key]``            inspect,
                            (``--temperature`` ...); HELM ``adapter_spec[key]``    helm
``config.<key>``            Inspect ``eval.config[key]`` (``epochs``, ``limit``    inspect,
                            ...); lm-eval results ``config[key]``                  lm-eval
``eval.<field>``            any field of Inspect's ``eval`` header                 inspect
==========================  =====================================================  =========

``task_args``, ``model_args``, ``generate_config`` and ``config`` sources show as ``key=value``
(``cot=true``), the others as the value; values that are not text are written as JSON
(``true``, ``0.7``). A source the log does not carry is an error
naming the file and the keys it has.
"""
from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from ...errors import InputError, ScoresError, suggest
from ...scores import Scores, concat_frames
from . import helm, inspectai, lmeval
from ._common import AdapterResult
from ._json import load_json
from ._sniff import input_format

__all__ = ["SYSTEM_SOURCES", "check_system_from", "log_fields", "name_systems"]

#: Sources without a key, and the prefixes of keyed sources (``task_args.<key>``).
PLAIN_SOURCES = ("model", "file", "run_id", "task")
KEYED_SOURCES = ("task_args", "model_args", "generate_config", "config", "eval")
SYSTEM_SOURCES = PLAIN_SOURCES + tuple(f"{k}.<key>" for k in KEYED_SOURCES)


def check_system_from(spec: str | Sequence[str] | None) -> tuple[str, ...]:
    """The sources of ``spec`` (a name, a comma-separated text or a list); () for None.
    An unknown source is an :class:`InputError` listing the known ones."""
    if spec is None:
        return ()
    parts = spec.split(",") if isinstance(spec, str) else list(spec)
    out: list[str] = []
    for part in parts:
        if not isinstance(part, str) or not part.strip():
            raise InputError(f"system_from: {part!r} is not a source name; use one of "
                             f"{', '.join(SYSTEM_SOURCES)}")
        part = part.strip()
        prefix, dot, key = part.partition(".")
        if (part not in PLAIN_SOURCES) and not (prefix in KEYED_SOURCES and dot and key):
            hint = (f" ({prefix} needs a key: {prefix}.<key>)" if prefix in KEYED_SOURCES
                    else suggest(part, PLAIN_SOURCES + KEYED_SOURCES))
            raise InputError(f"system_from: unknown source {part!r}; use one of "
                             f"{', '.join(SYSTEM_SOURCES)}{hint}")
        out.append(part)
    return tuple(out)


def _inspect_fields(path: Path) -> list[tuple[str, dict[str, Any]]]:
    log = inspectai._Log()
    it = (inspectai._iter_eval_log(path, log) if inspectai._is_zip(path)
          else inspectai._iter_json_log(path, log))
    next(it, None)  # the header is read before the first sample
    close = getattr(it, "close", None)
    if close is not None:  # a generator: release the file now
        close()
    ev = log.header.get("eval")
    if not isinstance(ev, dict) or not isinstance(ev.get("model"), str):
        raise InputError(f"{path}: no 'eval.model'; expected an Inspect AI eval log")
    return [(ev["model"], {
        "model": ev["model"], "run_id": ev.get("run_id"), "task": ev.get("task"),
        "task_args": ev.get("task_args"), "model_args": ev.get("model_args"),
        "generate_config": ev.get("model_generate_config"), "config": ev.get("config"),
        "eval": ev,
    })]


def _lmeval_fields(path: Path) -> list[tuple[str, dict[str, Any]]]:
    out = []
    for rp, results, _ in lmeval._pairs(path, []):
        model = lmeval.system_name(results, rp)
        config = results.get("config")
        config = config if isinstance(config, dict) else {}
        args = config.get("model_args")
        if isinstance(args, str):
            args = dict(p.split("=", 1) for p in args.split(",") if "=" in p)
        date = lmeval.RESULTS_RE.match(rp.name)
        out.append((model, {"model": model, "model_args": args, "config": config,
                            "run_id": date.group(1) if date else None,
                            "file": rp.parent.name}))
    return out


def _helm_fields(path: Path) -> list[tuple[str, dict[str, Any]]]:
    folder, _ = helm._run_folder(path)
    _, model = helm._names(folder)
    spec_path = folder / "run_spec.json"
    adapter: Any = None
    if spec_path.is_file():
        spec = load_json(spec_path, expected="HELM's run_spec.json")
        adapter = spec.get("adapter_spec") if isinstance(spec, dict) else None
    return [(model, {"model": model, "generate_config": adapter})]


_FIELDS = {"inspect": _inspect_fields, "lm-eval": _lmeval_fields, "helm": _helm_fields}


def log_fields(path: Path, fmt: str) -> list[tuple[str, dict[str, Any]]]:
    """[(system as the adapter names it, {source: value})] of one input: one entry per system
    (an lm-eval folder may hold several results files)."""
    reader = _FIELDS.get(fmt)
    return reader(path) if reader is not None else []


def run_inputs(path: Path, fmt: str) -> list[Path]:
    """The runs of one input that can be named one by one: the results files (with samples)
    of an lm-eval output folder; ``[path]`` for every other input."""
    if fmt != "lm-eval" or not path.is_dir():
        return [path]

    return list(dict.fromkeys(rp for rp, _, _ in lmeval._pairs(path, [])))


def _text(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False,
                                                           default=str)


def _value(path: Path, fmt: str, fields: dict[str, Any], source: str) -> str:
    if source == "file":
        name = str(fields.get("file") or path.name)
        for suffix in (".gz", ".eval", ".json", ".jsonl", ".txt", ".tsv", ".csv"):
            name = name.removesuffix(suffix)
        return name
    prefix, _, key = source.partition(".")
    if prefix not in fields or (not key and fields[prefix] is None):
        have = sorted(k for k, v in fields.items() if v is not None) + ["file"]
        raise InputError(f"{path}: system_from {source!r}: a {fmt} log has no {prefix!r} "
                         f"(it gives {', '.join(have)})")
    if not key:
        return _text(fields[prefix])
    mapping = fields[prefix]
    if not isinstance(mapping, dict) or key not in mapping:
        keys = sorted(mapping) if isinstance(mapping, dict) else []
        raise InputError(f"{path}: system_from {source!r}: the log's {prefix} has no key {key!r} "
                         f"({'its keys: ' + ', '.join(map(str, keys)) if keys else 'it is empty'})"
                         + suggest(key, [str(k) for k in keys]))
    value = _text(mapping[key])
    return value if prefix == "eval" else f"{key}={value}"


def _renamed(frame: pd.DataFrame | None, mapping: dict[str, str]) -> pd.DataFrame | None:
    if frame is None or frame.empty:
        return frame
    return frame.assign(system=frame["system"].astype(str).map(lambda s: mapping.get(s, s)))


def name_systems(res: AdapterResult, path: Path, *, system: str | None = None,
                 system_from: Sequence[str] = ()) -> AdapterResult:
    """``res`` with its system named ``system`` (the input must hold one system), or built
    from the log's ``system_from`` fields (see the module docstring)."""
    present = sorted({str(s) for frame in (res.scores.frame if res.scores else None, res.corpus,
                                           res.reported) if frame is not None
                      for s in frame["system"].unique()})
    if system is not None:
        if len(present) > 1:
            raise InputError(f"{path}: holds {len(present)} systems ({', '.join(present[:5])}); "
                             f"one name ({system!r}) cannot stand for them all: list their "
                             f"files one by one, or name them with system_from")
        mapping = {s: system for s in present}
    elif not system_from or tuple(system_from) == ("model",):
        return res
    else:
        found = log_fields(path, res.format)
        if not found and any(s != "file" and s != "model" for s in system_from):
            raise InputError(f"{path}: system_from {', '.join(system_from)}: {res.format} input "
                             f"carries no such fields; for this format use model or file")
        by_model = dict(found) or {s: {"model": s} for s in present}
        mapping = {}
        for original, fields in by_model.items():
            mapping[original] = " ".join(_value(path, res.format, fields, src)
                                         for src in system_from)
        clash = [s for s in set(mapping.values()) if list(mapping.values()).count(s) > 1]
        if clash:
            raise InputError(f"{path}: system_from {', '.join(system_from)} gives the name "
                             f"{clash[0]!r} to several systems of this input "
                             f"({', '.join(k for k, v in mapping.items() if v == clash[0])})")
    scores = res.scores
    if scores is not None:
        frame = _renamed(scores.raw_frame, mapping)  # with its samples (Inspect epochs)
        assert frame is not None
        scores = Scores(frame, source=str(path))
    reported = _renamed(res.reported, mapping)
    return AdapterResult(format=res.format, source=res.source, scores=scores,
                         corpus=_renamed(res.corpus, mapping), run=res.run,
                         reported=res.reported if reported is None else reported,
                         notes=res.notes)


#: Fields compared between two logs that share keys, to suggest a ``system_from``.
_TELLING = ("task_args", "model_args", "generate_config", "config")


def _differences(a: Path, b: Path) -> list[str]:
    """``source (value in a / value in b)`` for each field that tells two logs apart."""
    try:
        fa, fb = input_format(a), input_format(b)
        if fa is None or fa != fb:
            return []
        la, lb = log_fields(a, fa), log_fields(b, fb)
    except InputError:
        return []
    if len(la) != 1 or len(lb) != 1:
        return []
    (_, xa), (_, xb) = la[0], lb[0]
    out = []
    for prefix in _TELLING:
        va, vb = xa.get(prefix), xb.get(prefix)
        da: dict[Any, Any] = va if isinstance(va, dict) else {}
        db: dict[Any, Any] = vb if isinstance(vb, dict) else {}
        for key in sorted(set(da) | set(db), key=str):
            if key in da and key in db and da[key] != db[key]:
                out.append(f"{prefix}.{key} ({_text(da[key])} / {_text(db[key])})")
    if xa.get("run_id") is not None and xa.get("run_id") != xb.get("run_id"):
        out.append(f"run_id ({_text(xa['run_id'])} / {_text(xb['run_id'])})")
    return out


def shared_key_error(frames: Sequence[pd.DataFrame], paths: Sequence[Path]) -> InputError | None:
    """The error for inputs that hold the same (dataset, system, metric, item[, seed]) key:
    it names the first key two inputs share, both files, the fields that tell them apart, and
    how to name their systems. None when no two inputs share a key (the error is elsewhere)."""
    keys = [c for c in ("dataset", "system", "metric", "item", "seed", "prompt", "sample")
            if all(c in f.columns for f in frames)]
    tagged = pd.concat([f[keys].astype(str).assign(_input=i) for i, f in enumerate(frames)],
                       ignore_index=True)
    dup = tagged[tagged.duplicated(keys, keep=False)]
    if dup.empty:
        return None
    first = dup.iloc[0]
    same = dup[(dup[keys] == first[keys]).all(axis=1)]
    inputs = sorted(set(same["_input"]))
    if len(inputs) < 2:
        return None  # repeated within one input: its own reader names the lines
    a, b = paths[inputs[0]], paths[inputs[1]]
    n = int(dup.drop_duplicates(keys).shape[0])
    key = ", ".join(f"{c} {first[c]!r}" for c in keys)
    differ = _differences(a, b)
    option = differ[0].split(" ", 1)[0] if differ else "run_id"
    told = (f"; the two logs differ in {', '.join(differ[:4])}" if differ else "")
    return InputError(
        f"{a} and {b} both hold {key} ({n} key(s) shared): both name the system "
        f"{first['system']!r} (by default the log's model name){told}. Name the systems per log: --system-from {option} (YAML "
        f"`system_from: {option}`; sources: {', '.join(SYSTEM_SOURCES)}), or explicitly in the "
        f"YAML (`systems: {{baseline: {a.name}, other: {b.name}}}` or `scores: [{{path: "
        f"{a.name}, system: baseline}}, ...]`)")


def concat_inputs(frames: Sequence[pd.DataFrame], paths: Sequence[Path],
                  source: str | None = None) -> Scores:
    """Several inputs' tidy frames as one :class:`Scores`; inputs without seeds get seed
    ``"0"`` when others have seeds. Two inputs holding one key are an error naming both
    (:func:`shared_key_error`)."""
    if any("seed" in f.columns for f in frames):  # one run without seeds is seed "0"
        frames = [f if "seed" in f.columns else f.assign(seed="0") for f in frames]
    if any("sample" in f.columns for f in frames):  # one generation per item is K = 1
        frames = [f if "sample" in f.columns else f.assign(sample="1") for f in frames]
    try:
        return Scores(concat_frames(frames), source=source)
    except ScoresError as exc:
        shared = shared_key_error(frames, paths) if "share a key" in str(exc) else None
        if shared is not None:
            raise shared from None
        raise InputError(f"{exc} (across {', '.join(map(str, paths[:5]))}"
                         f"{', ...' if len(paths) > 5 else ''})") from None
