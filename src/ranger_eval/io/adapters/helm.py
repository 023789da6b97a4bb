"""HELM run folders → per-item scores.

A HELM run folder (``benchmark_output/runs/<suite>/<run name>/``) holds
``per_instance_stats.json`` (one entry per instance and train trial, each with a list of
stats), ``stats.json`` (the aggregates), ``run_spec.json`` and ``scenario_state.json``.

Names: dataset = ``run_spec.name`` without its ``model=`` and ``model_deployment=`` arguments
(``mmlu:subject=philosophy,method=multiple_choice_joint``), system = ``adapter_spec.model``
(``openai/gpt2``), item = ``instance_id``, metric = the stat name (``exact_match``), value =
the stat's ``mean`` for that instance; stats of perturbed instances become metrics named
``<stat>[<perturbation>]``; several train trials become seeds.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any

from ...errors import InputError
from ..files import check_input_file
from ._common import AdapterResult, Builder, agrees
from ._json import JsonStream, load_json

__all__ = ["BOOKKEEPING", "FORMAT", "read"]

FORMAT = "helm"
EXPECTED = "a HELM run folder (per_instance_stats.json with run_spec.json)"
#: Per-instance stats that describe the request, not the quality of the answer; not read
#: unless asked for by ``metrics=``.
BOOKKEEPING = frozenset({
    "num_references", "num_train_trials", "num_prompt_tokens", "num_completion_tokens",
    "num_output_tokens", "num_train_instances", "prompt_truncated", "training_co2_cost",
    "training_energy_cost", "inference_runtime", "inference_idealized_runtime",
    "inference_denoised_runtime", "batch_size", "finish_reason_length", "finish_reason_stop",
    "finish_reason_endoftext", "finish_reason_unknown", "num_perplexity_tokens", "num_bytes",
    "max_prob", "num_instances",
})
#: Perturbation fields that describe how HELM aggregates, not which perturbation it is.
_PERTURBATION_FLAGS = ("name", "robustness", "fairness", "computed_on")


def _run_folder(path: Path) -> tuple[Path, Path]:
    if path.is_dir():
        stats = path / "per_instance_stats.json"
        if not stats.is_file():
            raise InputError(f"{path}: no per_instance_stats.json in this folder; expected "
                             f"{EXPECTED}")
        return path, stats
    check_input_file(path, what="HELM per_instance_stats.json")
    return path.parent, path


def _names(folder: Path) -> tuple[str, str]:
    """(dataset, system) from run_spec.json, else scenario_state.json, else the folder name."""
    spec_path = folder / "run_spec.json"
    name: str | None = None
    model: str | None = None
    if spec_path.is_file():
        try:
            spec = load_json(spec_path, expected="HELM's run_spec.json")
        except InputError as exc:
            raise InputError(f"{exc}; expected HELM's run_spec.json") from None
        if isinstance(spec, dict):
            name = spec.get("name") if isinstance(spec.get("name"), str) else None
            adapter = spec.get("adapter_spec")
            if isinstance(adapter, dict) and isinstance(adapter.get("model"), str):
                model = adapter["model"]
    state_path = folder / "scenario_state.json"
    if model is None and state_path.is_file():
        # scenario_state.json can be large: stream its top level, stop at adapter_spec
        with JsonStream(state_path, expected="HELM's scenario_state.json") as js:
            for key in js.object():
                if key == "adapter_spec":
                    adapter = js.value()
                    if isinstance(adapter, dict) and isinstance(adapter.get("model"), str):
                        model = adapter["model"]
                    break
                js.skip()
    if name is None:
        name = folder.name
    args = name.split(":", 1)
    kept = [a for a in (args[1].split(",") if len(args) > 1 else [])
            if not a.startswith(("model=", "model_deployment="))]
    if model is None:
        found = [a.split("=", 1)[1] for a in (args[1].split(",") if len(args) > 1 else [])
                 if a.startswith("model=")]
        if not found:
            raise InputError(f"{folder}: no model name (no run_spec.json, scenario_state.json "
                             f"or model= in the folder name); expected {EXPECTED}")
        model = found[0]
    dataset = args[0] + (":" + ",".join(kept) if kept else "")
    return dataset, model


def _suffix(stat_name: dict[str, Any], perturbation: Any) -> str:
    parts = []
    if stat_name.get("k") is not None:
        parts.append(f"k={stat_name['k']}")
    if stat_name.get("sub_split"):
        parts.append(f"sub_split={stat_name['sub_split']}")
    pert = stat_name.get("perturbation") or perturbation
    if isinstance(pert, dict) and pert.get("name"):
        extra = ",".join(f"{k}={v}" for k, v in sorted(pert.items())
                         if k not in _PERTURBATION_FLAGS and v is not None)
        parts.append(str(pert["name"]) + (f":{extra}" if extra else ""))
    return "[" + ";".join(parts) + "]" if parts else ""


def read(path: str | Path, *, split: str = "test",
         metrics: list[str] | tuple[str, ...] | None = None) -> AdapterResult:
    """Read a HELM run folder (or its ``per_instance_stats.json``).

    ``split``: the evaluation split to read (HELM evaluates ``test`` and sometimes ``valid``);
    ``metrics``: stat names to read (default: every stat except :data:`BOOKKEEPING`).
    """
    folder, stats_path = _run_folder(Path(path))
    dataset, system = _names(folder)
    wanted = set(metrics) if metrics is not None else None
    entries: list[tuple[int, dict[str, Any]]] = []
    with JsonStream(stats_path, expected="HELM's per_instance_stats.json (a JSON array)") as js:
        if js.peek() != "[":
            raise js.error("not a JSON array")
        for _ in js.array():
            js.peek()
            line = js.line()
            entry = js.value()
            if not isinstance(entry, dict) or "instance_id" not in entry or not isinstance(
                    entry.get("stats"), list):
                raise InputError(f"{stats_path}:{line}: not a per-instance entry (an object with "
                                 f"instance_id and stats); expected {EXPECTED}")
            entries.append((line, entry))
        js.end()
    trials = {e.get("train_trial_index", 0) for _, e in entries}
    multi = len(trials) > 1
    b = Builder(FORMAT, stats_path, extra=(("seed",) if multi else ()) + ("split",))
    other_splits: dict[str, set[str]] = {}
    kept_instances: set[str] = set()
    found_metrics: set[str] = set()
    for line, e in entries:
        item = str(e["instance_id"])
        for stat in e["stats"]:
            name = stat.get("name") if isinstance(stat, dict) else None
            if not isinstance(name, dict) or not isinstance(name.get("name"), str):
                raise InputError(f"{stats_path}:{line}: instance {item}: a stat without a name; "
                                 f"expected {EXPECTED}")
            base = name["name"]
            if name.get("split") != split:
                other_splits.setdefault(str(name.get("split")), set()).add(item)
                continue
            if (base in BOOKKEEPING) if wanted is None else (base not in wanted):
                continue
            if not stat.get("count"):
                continue  # an empty stat: no value for this instance
            mean = stat.get("mean")
            if isinstance(mean, bool) or not isinstance(mean, (int, float)):
                raise InputError(f"{stats_path}:{line}: instance {item}: stat {base!r} has mean "
                                 f"{mean!r}; expected a number")
            metric = base + _suffix(name, e.get("perturbation"))
            found_metrics.add(base)
            kept_instances.add(item)
            b.rows.add(dataset=dataset, system=system, metric=metric, item=item,
                       value=float(mean), higher_is_better=None,
                       seed=str(e.get("train_trial_index", 0)), split=split)
    for sp, ids in sorted(other_splits.items()):
        only = ids - kept_instances
        if only:
            b.note(f"{len(only)} instance(s) of split {sp!r} not read (split={split!r}; pass "
                   f"split={sp!r} to read them)")
    if wanted is not None and wanted - found_metrics:
        raise InputError(f"{stats_path}: no stat named {', '.join(sorted(wanted - found_metrics))}"
                         f" on split {split!r}")
    n_scored = _report(b, folder / "stats.json", dataset, system, split)
    res = b.result()
    if res.scores is None:
        raise InputError(f"{stats_path}: no per-instance scores on split {split!r}; expected "
                         f"{EXPECTED}")
    in_split = {str(e["instance_id"]) for _, e in entries if any(
        isinstance(st, dict) and isinstance(st.get("name"), dict)
        and st["name"].get("split") == split for st in e["stats"])}
    _check_agreement(b, res, folder / "stats.json", split, n_scored, len(in_split))
    return AdapterResult(format=res.format, source=res.source, scores=res.scores,
                         reported=res.reported, notes=tuple(b.notes))


#: Relative tolerance of the agreement check: stats.json holds full-precision floats.
TOLERANCE = 1e-9


def _check_agreement(b: Builder, res: AdapterResult, stats: Path, split: str,
                     n_scored: int | None, n_read: int) -> None:
    """stats.json's mean of each stat is the mean over instances of the per-instance means
    (over train trials: the mean of the per-trial means); recompute it from the instances
    read. A mismatch on a complete run is an error; a partial per_instance_stats.json (fewer
    instances than stats.json's ``num_instances``) is noted and not checked."""
    if n_scored is not None and n_read < n_scored:
        b.note(f"{stats.name} reports {n_scored} instance(s) on split {split!r} but "
               f"per_instance_stats.json holds {n_read}: a partial run folder; HELM's "
               f"aggregates cover all {n_scored} and are not checked against the {n_read}")
        return
    agree = res.agreement()
    for m, reported, ours, n in zip(agree["metric"], agree["reported"], agree["ours"],
                                    agree["n_items"], strict=True):
        if not agrees(float(ours), float(reported), TOLERANCE):
            raise InputError(
                f"{stats}: stat {m!r} (split {split!r}): HELM reports mean {reported!r} but "
                f"the {n} instance(s) of per_instance_stats.json give {ours!r} (relative "
                f"tolerance {TOLERANCE:g}); the files do not belong to one run or one was "
                f"edited"
            )


def _report(b: Builder, path: Path, dataset: str, system: str, split: str) -> int | None:
    """Record stats.json's aggregates; returns its ``num_instances`` of ``split`` (None when
    it does not say)."""
    if not path.is_file():
        return None
    try:
        stats = load_json(path, expected="HELM's stats.json")
    except InputError as exc:
        b.note(f"{path.name} not read ({exc}): HELM's aggregates not read")
        return None
    n_scored: int | None = None
    for stat in stats if isinstance(stats, list) else []:
        name = stat.get("name") if isinstance(stat, dict) else None
        if not isinstance(name, dict) or name.get("split") != split:
            continue
        if name.get("name") == "num_instances" and name.get("perturbation") is None:
            mean = stat.get("mean")
            if isinstance(mean, (int, float)) and not isinstance(mean, bool) and float(
                    mean).is_integer():
                n_scored = int(mean)
        if name.get("perturbation") is not None and name["perturbation"].get(
                "computed_on") != "perturbed":
            continue  # "worst"/"original" aggregates are not means of per-instance rows
        metric = str(name.get("name")) + _suffix(name, None)
        b.report(dataset, system, metric, "mean", stat.get("mean"), True)
    return n_scored
