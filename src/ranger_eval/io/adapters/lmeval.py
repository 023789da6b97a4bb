"""lm-evaluation-harness ``--log_samples`` output → per-item scores.

Since v0.4.3 the harness writes, per model, ``results_<date>.json`` (aggregates, configs, model
name) and one ``samples_<task>_<date>.jsonl`` per task (one JSON line per document and filter),
paired by the shared ``<date>``. v0.4.0–0.4.2 wrote ``<model_args>_<task>.jsonl`` holding one
indented JSON *array*, next to a results file of the user's choosing (``results.json`` by
default). The ``filter`` and ``metrics`` keys of a sample exist only since v0.4.7.

Names: dataset = task name (each subtask of a group such as MMLU is its own dataset), system =
the model name of the results file, item = ``doc_id`` (checked against ``doc_hash``), metric =
the metric name, suffixed ``,<filter>`` unless the filter is lm-eval's default ``none``
(``exact_match,flexible-extract``).
"""
from __future__ import annotations

import hashlib
import json
import math
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pandas as pd

from ...errors import InputError
from ...setmetrics import metric as set_metric
from ..files import check_input_file, open_text
from ._common import AdapterResult, Builder, agrees, format_number
from ._json import JsonStream, iter_jsonl, load_json, snippet

__all__ = ["FORMAT", "check_doc_hashes", "read"]

FORMAT = "lm-eval"
EXPECTED = "lm-evaluation-harness --log_samples output"
_DATE = r"\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}(?:\.\d+)?"
SAMPLES_RE = re.compile(rf"^samples_(.+)_({_DATE})\.jsonl$")
RESULTS_RE = re.compile(rf"^results_({_DATE})\.json$")
#: Keys of a logged sample that are not metrics.
RESERVED = frozenset({
    "doc_id", "doc", "target", "arguments", "resps", "filtered_resps", "filter", "metrics",
    "doc_hash", "prompt_hash", "target_hash",
})
#: lm-eval's registered metrics: aggregation and direction (lm_eval/api/metrics.py, v0.4.9;
#: unchanged in v0.4.13).
KNOWN: dict[str, tuple[str, bool]] = {
    "acc": ("mean", True), "acc_norm": ("mean", True), "acc_mutual_info": ("mean", True),
    "acc_bytes": ("mean", True), "exact_match": ("mean", True), "acc_all": ("mean", True),
    "perplexity": ("perplexity", False), "word_perplexity": ("weighted_perplexity", False),
    "byte_perplexity": ("weighted_perplexity", False), "bits_per_byte": ("bits_per_byte", False),
    "mcc": ("matthews_corrcoef", True), "f1": ("f1", True), "bleu": ("bleu", True),
    "chrf": ("chrf", True), "ter": ("ter", True), "brier_score": ("brier_score", False),
    "bypass": ("bypass", True),
}
MEAN_AGGREGATIONS = ("mean", "nanmean")
#: lm-eval's aggregation functions (lm_eval/api/metrics.py) by their Python name, for results
#: files that record ``aggregation`` as a function's repr (``"<function mean at 0x7f…>"``: a task
#: YAML giving ``aggregation: !function …``, or lm-eval serialising its own default).
_FUNCTIONS = {
    "mean": "mean", "nanmean": "nanmean", "median": "median", "perplexity": "perplexity",
    "weighted_perplexity": "weighted_perplexity", "bits_per_byte": "bits_per_byte",
    "f1_score": "f1", "matthews_corrcoef": "matthews_corrcoef", "bleu": "bleu", "chrf": "chrf",
    "chrfpp": "chrf++", "ter": "ter", "brier_score": "brier_score",
}
_FUNCTION_REPR = re.compile(r"^<function (?:[\w.]+\.)?(\w+) at 0x[0-9a-fA-F]+>$")
#: Corpus-level aggregations that Ranger's set-level path (:mod:`ranger_eval.setmetrics`)
#: computes exactly as lm-eval does (lm_eval/api/metrics.py, v0.4.13), by aggregation name →
#: set-level metric. From the logged ``[gold, prediction]`` pairs: ``f1`` is
#: ``sklearn.metrics.f1_score(golds, preds)`` (binary, positive class 1),
#: ``matthews_corrcoef`` is ``sklearn.metrics.matthews_corrcoef``, ``bleu`` / ``chrf`` /
#: ``chrf++`` / ``ter`` are sacrebleu's ``corpus_bleu`` / ``corpus_chrf`` (``word_order=2``
#: for chrF++) / ``corpus_ter`` of the predictions against one reference per item. From the
#: log-likelihoods: ``perplexity`` is exp(−mean ll) of the per-item ll (the ``value``);
#: ``weighted_perplexity`` (word_perplexity, byte_perplexity) exp(−Σ ll / Σ n) and
#: ``bits_per_byte`` −Σ ll / (Σ n · ln 2) of the logged ``[ll, n]`` pairs, read as
#: ``label`` = n (the document's words or bytes) and ``prediction`` = ll. ``median`` is
#: ``sorted(x)[len(x) // 2]`` of the per-item values (``upper_median``).
SET_METRICS: dict[str, str] = {
    "f1": "f1", "matthews_corrcoef": "mcc", "bleu": "bleu", "chrf": "chrf", "chrf++": "chrf++",
    "ter": "ter", "perplexity": "perplexity", "weighted_perplexity": "weighted_perplexity",
    "bits_per_byte": "bits_per_byte", "median": "upper_median",
}
#: Aggregations of one number per item that are not its mean (the number is the ``value``).
OF_VALUES = ("perplexity", "median")
#: Aggregations logged as ``[log-likelihood, words or bytes]`` (label = the count).
WEIGHTED = ("weighted_perplexity", "bits_per_byte")
#: Aggregations logged as ``[reference, prediction]`` text pairs (sacrebleu).
TEXT = ("bleu", "chrf", "chrf++", "ter")
#: Aggregations that are the mean of a per-item number computed from the logged sample:
#: ``brier_score`` is ``mean_i Σ_k (p_ik − 1[k = gold_i])²`` (lm-eval's ``brier_score``), so an
#: item's score is its own Brier score and the task's is their mean.
PER_ITEM_MEANS = ("brier_score",)
MAX_RESULTS_BYTES = 512 * 2**20


def _sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def doc_hash(doc: Any) -> str:
    """lm-eval's ``doc_hash``: sha256 of ``json.dumps(doc, indent=2, ensure_ascii=False)``."""
    return _sha256(json.dumps(doc, indent=2, ensure_ascii=False))


#: lm-eval's per-item metrics whose values lie in [0, 1] (accuracies, exact match, per-item
#: F1 and the like, pass@k): their intervals stay in [0, 1]. A
#: metric written on another scale (0–100) is not declared (the values decide,
#: ``Builder.bound``); perplexities, BLEU, chrF, TER, likelihoods and the Brier score (in
#: [0, 2] over several classes) are not ranged.
UNIT_METRICS = frozenset({
    "acc", "acc_norm", "acc_mutual_info", "exact_match", "exact", "em", "f1", "accuracy",
    "contains", "pass@1", "pass_at_1", "pass@k", "mc1", "mc2", "prompt_level_strict_acc",
    "inst_level_strict_acc", "prompt_level_loose_acc", "inst_level_loose_acc",
})


def metric_name(metric: str, filter_key: str) -> str:
    """``exact_match`` for lm-eval's default filter ``none``, else ``exact_match,<filter>``."""
    return metric if filter_key == "none" else f"{metric},{filter_key}"


def aggregation_name(recorded: str) -> str:
    """A results file's ``aggregation``: a registered name (``"f1"``) as it is; the repr of one
    of lm-eval's own aggregation functions (``"<function f1_score at 0x…>"``) as its name
    (``"f1"``); any other function's repr unchanged (unknown: its samples go to ``corpus``)."""
    m = _FUNCTION_REPR.match(recorded.strip())
    if m and m.group(1) in _FUNCTIONS:
        return _FUNCTIONS[m.group(1)]
    return recorded


# ---------------------------------------------------------------------------- results file
def _load_json(path: Path, what: str) -> Any:
    return load_json(path, expected=what, max_bytes=MAX_RESULTS_BYTES)


def _is_results(obj: Any) -> bool:
    return isinstance(obj, dict) and isinstance(obj.get("results"), dict) and (
        "configs" in obj or "config" in obj or "versions" in obj)


def _load_results(path: Path) -> dict[str, Any]:
    obj = _load_json(path, "an lm-evaluation-harness results JSON file")
    if not _is_results(obj):
        raise InputError(
            f"{path}: not an lm-evaluation-harness results file (no 'results' and 'configs'); "
            f"expected the results_<date>.json written next to the samples files"
        )
    return dict(obj)


def _model_args(results: dict[str, Any]) -> Any:
    config = results.get("config")
    return config.get("model_args") if isinstance(config, dict) else None


def system_name(results: dict[str, Any], path: Path) -> str:
    """``model_name``; else ``config.model_args`` (its ``pretrained=``/``model=``/``path=``
    value, or the whole string); else ``model_name_sanitized``; else ``config.model``."""
    name = results.get("model_name")
    if isinstance(name, str) and name:
        return name
    args = _model_args(results)
    if isinstance(args, str) and args:
        parts = dict(p.split("=", 1) for p in args.split(",") if "=" in p)
        args = parts or args
    if isinstance(args, dict):
        for key in ("pretrained", "model", "path", "engine", "model_name"):
            if isinstance(args.get(key), str) and args[key]:
                return str(args[key])
    if isinstance(args, str) and args:
        return args
    sanitized = results.get("model_name_sanitized")
    if isinstance(sanitized, str) and sanitized:
        return sanitized
    config = results.get("config")
    if isinstance(config, dict) and isinstance(config.get("model"), str):
        return str(config["model"])
    raise InputError(f"{path}: no model name (neither 'model_name' nor 'config.model_args'); "
                     f"expected an lm-evaluation-harness results file")


class _Task:
    """What the results file says about one task."""

    def __init__(self, results: dict[str, Any], task: str) -> None:
        self.name = task
        res = results.get("results", {}).get(task)
        self.keys: dict[str, Any] = res if isinstance(res, dict) else {}
        filters: list[str] = []
        self.metrics: set[str] = set()
        for key in self.keys:
            if "," in key:
                metric, filt = key.split(",", 1)
                if not metric.endswith("_stderr"):
                    self.metrics.add(metric)
                    if filt not in filters:
                        filters.append(filt)
        self.filters = filters
        config = results.get("configs", {}).get(task)
        self.aggregation: dict[str, str] = {}
        self.direction: dict[str, bool] = {}
        if isinstance(config, dict) and isinstance(config.get("metric_list"), list):
            for entry in config["metric_list"]:
                if isinstance(entry, dict) and isinstance(entry.get("metric"), str):
                    if isinstance(entry.get("aggregation"), str):
                        self.aggregation[entry["metric"]] = aggregation_name(entry["aggregation"])
                    if isinstance(entry.get("higher_is_better"), bool):
                        self.direction[entry["metric"]] = entry["higher_is_better"]
        hib = results.get("higher_is_better", {})
        if isinstance(hib, dict) and isinstance(hib.get(task), dict):
            for m, h in hib[task].items():
                if isinstance(h, bool):
                    self.direction[m] = h
        n = results.get("n-samples", {})
        eff = n.get(task, {}).get("effective") if isinstance(n, dict) and isinstance(
            n.get(task), dict) else None
        self.n_effective: int | None = eff if isinstance(eff, int) else None

    def aggregation_of(self, metric: str) -> str | None:
        if metric in self.aggregation:
            return self.aggregation[metric]
        if metric in KNOWN:
            return KNOWN[metric][0]
        return None

    def direction_of(self, metric: str) -> bool | None:
        if metric in self.direction:
            return self.direction[metric]
        return KNOWN[metric][1] if metric in KNOWN else None


# ---------------------------------------------------------------------------- pairing
def _sanitized_args(results: dict[str, Any]) -> str | None:
    args = _model_args(results)
    return re.sub("/|=", "__", args) if isinstance(args, str) else None


def _first_char(path: Path) -> str:
    with open_text(path, what=EXPECTED, json=True) as fh:
        head = fh.read(4096).lstrip()
    return head[:1]


def _old_task(results: dict[str, Any], samples: Path) -> str | None:
    prefix = _sanitized_args(results)
    if prefix is None:
        return None
    for task in results.get("configs", {}) or {}:
        if samples.name == f"{prefix}_{task}.jsonl":
            return str(task)
    return None


def _results_for_old_samples(samples: Path) -> tuple[Path, dict[str, Any], str]:
    found = []
    for cand in sorted(samples.parent.glob("*.json")):
        if not cand.is_file() or cand.stat().st_size > MAX_RESULTS_BYTES:
            continue
        try:
            obj = _load_json(cand, "a results file")
        except InputError:
            continue
        if _is_results(obj):
            task = _old_task(obj, samples)
            if task is not None:
                found.append((cand, obj, task))
    if not found:
        raise InputError(
            f"{samples}: no lm-evaluation-harness results file beside it whose model_args and "
            f"tasks give this file name (<model_args>_<task>.jsonl, lm-eval 0.4.0–0.4.2); the "
            f"results JSON is needed for the model name and the reported aggregates"
        )
    if len(found) > 1:
        raise InputError(f"{samples}: several results files match it: "
                         f"{', '.join(str(f[0]) for f in found)}; pass one of them instead")
    return found[0]


def _pairs(path: Path, without_samples: list[Path] | None = None,
           ) -> list[tuple[Path, dict[str, Any], list[tuple[Path, str]]]]:
    """(results file, its content, [(samples file, task)]) for an input path. In a folder,
    results files without samples are listed in ``without_samples`` instead of failing."""
    if path.is_dir():
        out = []
        results_files = sorted(p for p in path.rglob("results*.json") if p.is_file())
        for rp in results_files:
            if RESULTS_RE.match(rp.name) or rp.name == "results.json":
                try:
                    out.extend(_pairs(rp))
                except InputError as exc:
                    if without_samples is None or "--log_samples" not in str(exc):
                        raise
                    without_samples.append(rp)
        if not out and without_samples:
            raise InputError(f"{path}: its results files have no per-sample files beside them "
                             f"({', '.join(p.name for p in without_samples[:3])}); per-item "
                             f"scores need lm-eval's --log_samples output")
        if not out:
            raise InputError(f"{path}: no lm-evaluation-harness results_<date>.json (or "
                             f"results.json) in this folder; expected {EXPECTED}")
        return out
    check_input_file(path, what=f"{FORMAT} file")
    m = SAMPLES_RE.match(path.name)
    if m:
        task, date = m.group(1), m.group(2)
        rp = path.with_name(f"results_{date}.json")
        if not rp.is_file():
            raise InputError(
                f"{path}: missing its results file {rp.name} in the same folder (lm-eval writes "
                f"results_<date>.json and samples_<task>_<date>.jsonl together; the results "
                f"file gives the model name and the aggregates)"
            )
        return [(rp, _load_results(rp), [(path, task)])]
    m = RESULTS_RE.match(path.name)
    if m:
        date = m.group(1)
        results = _load_results(path)
        samples = []
        for sp in sorted(path.parent.glob(f"samples_*_{date}.jsonl")):
            sm = SAMPLES_RE.match(sp.name)
            if sm and sm.group(2) == date:
                samples.append((sp, sm.group(1)))
        if not samples:
            raise InputError(
                f"{path}: no samples_<task>_{date}.jsonl beside it: per-item scores need "
                f"lm-eval's --log_samples output"
            )
        return [(path, results, samples)]
    # older layouts: the content says which
    if _first_char(path) == "[":
        rp, results, task = _results_for_old_samples(path)
        return [(rp, results, [(path, task)])]
    results = _load_results(path)
    prefix = _sanitized_args(results)
    samples = []
    for task in results.get("configs", {}) or {}:
        sp = path.with_name(f"{prefix}_{task}.jsonl")
        if prefix is not None and sp.is_file():
            samples.append((sp, str(task)))
    if not samples:
        raise InputError(
            f"{path}: no per-sample file beside this results file (samples_<task>_<date>.jsonl "
            f"or <model_args>_<task>.jsonl); per-item scores need lm-eval's --log_samples output"
        )
    return [(path, results, samples)]


# ---------------------------------------------------------------------------- samples
def _iter_samples(path: Path) -> Iterator[tuple[int, Any]]:
    """(line, sample) from a JSONL file or, for lm-eval ≤ 0.4.2, a JSON array."""
    if _first_char(path) == "[":
        with JsonStream(path, expected=f"{EXPECTED} (a JSON array of samples)") as js:
            for _ in js.array():
                js.peek()
                line = js.line()
                yield line, js.value()
            js.end()
    else:
        yield from iter_jsonl(path, expected=f"{EXPECTED} (samples JSONL)")


def _read_samples(b: Builder, path: Path, task: _Task, system: str,
                  check_hash: bool, assumed: set[str]) -> int:
    """Add one samples file's rows; returns its number of distinct documents."""
    dataset = task.name
    seen: dict[tuple[str, str], int] = {}
    occurrences: dict[str, int] = {}
    hashes: dict[str, tuple[str, int]] = {}
    skipped: dict[str, int] = {}
    items: set[str] = set()
    for line, s in _iter_samples(path):
        where = f"{path}:{line}"
        if not isinstance(s, dict) or "doc_id" not in s:
            raise InputError(f"{where}: not an lm-eval sample (a JSON object with 'doc_id'): "
                             f"{snippet(json.dumps(s))}; expected {EXPECTED}")
        doc_id = s["doc_id"]
        if isinstance(doc_id, bool) or not isinstance(doc_id, (int, str)):
            raise InputError(f"{where}: doc_id {format_number(doc_id)} is not an integer or "
                             f"string; expected {EXPECTED}")
        item = doc_id if isinstance(doc_id, str) else str(doc_id)
        items.add(item)
        b.cluster(where, dataset, item, s.get("doc"), "doc")
        filt = s.get("filter")
        if not isinstance(filt, str):  # before v0.4.7: k-th occurrence of a doc is filter k
            k = occurrences.get(item, 0)
            occurrences[item] = k + 1
            filters = task.filters or ["none"]
            if k >= len(filters):
                raise InputError(
                    f"{where}: doc_id {item} appears {k + 1} times but task {dataset!r} has "
                    f"{len(filters)} filter(s) ({', '.join(filters)}) in the results file"
                )
            filt = filters[k]
        if (item, filt) in seen:
            raise InputError(f"{where}: doc_id {item} (filter {filt!r}) repeats line "
                             f"{seen[item, filt]}; expected one line per document and filter")
        seen[item, filt] = line
        h = s.get("doc_hash")
        if h is not None and check_hash:
            if "doc" in s:
                computed = doc_hash(s["doc"])
                if computed != h:
                    raise InputError(
                        f"{where}: doc_hash mismatch for doc_id {item}: the line says {h} but "
                        f"its doc hashes to {computed} (the file was edited, or this doc_id is "
                        f"not the document it claims to be)"
                    )
            if item in hashes and hashes[item][0] != h:
                raise InputError(
                    f"{where}: doc_hash mismatch for doc_id {item}: {h} here but "
                    f"{hashes[item][0]} on line {hashes[item][1]}"
                )
            hashes.setdefault(item, (str(h), line))
        names = s.get("metrics")
        if not isinstance(names, list):
            names = [k for k in s if k not in RESERVED and (k in task.metrics or (
                not task.metrics and isinstance(s[k], (int, float))))]
        for m in names:
            if m not in s:
                raise InputError(f"{where}: metric {m!r} is listed in 'metrics' but has no value; "
                                 f"expected {EXPECTED}")
            _add_value(b, where, dataset, system, item, str(m), filt, s[m], task, h, skipped,
                       assumed)
    for m, n in skipped.items():
        why = "NaN under nanmean" if m.endswith("(NaN)") else "bypass metric"
        b.note(f"task {dataset!r}: {n} sample(s) of metric {m!r} skipped ({why})")
    if task.n_effective is not None and len(items) != task.n_effective:
        b.note(f"task {dataset!r}: {path.name} holds {len(items)} documents but lm-eval scored "
               f"{task.n_effective} (n-samples.effective); the reported aggregates cover all "
               f"{task.n_effective}")
    return len(items)


def _add_value(b: Builder, where: str, dataset: str, system: str, item: str, metric: str,
               filt: str, value: Any, task: _Task, h: Any, skipped: dict[str, int],
               assumed: set[str]) -> None:
    agg = task.aggregation_of(metric)
    name = metric_name(metric, filt)
    hib = task.direction_of(metric)
    scalar = isinstance(value, (int, float))  # bool is an int
    if agg == "bypass":
        skipped[name] = skipped.get(name, 0) + 1
        return
    if scalar and (agg in MEAN_AGGREGATIONS or agg is None):
        v = float(value)
        if not math.isfinite(v):
            if agg == "nanmean" and math.isnan(v):
                key = f"{name} (NaN)"
                skipped[key] = skipped.get(key, 0) + 1
                return
            raise InputError(f"{where}: non-finite {metric!r} value {value!r} for doc_id {item}")
        if agg is None:
            assumed.add(f"{dataset}/{name}")
        if metric in UNIT_METRICS:  # acc, exact_match ...: the range is [0, 1]
            b.bound(name)
        b.rows.add(dataset=dataset, system=system, metric=name, item=item, value=v,
                   higher_is_better=hib, doc_hash=h)
        return
    if agg in PER_ITEM_MEANS:
        b.rows.add(dataset=dataset, system=system, metric=name, item=item,
                   value=_brier(where, metric, item, value), higher_is_better=hib, doc_hash=h)
        return
    label = prediction = set_metric = None
    if scalar and agg in OF_VALUES:  # the item's log-likelihood (perplexity) or value
        if not math.isfinite(float(value)):
            raise InputError(f"{where}: non-finite {metric!r} value {value!r} for doc_id {item}")
        set_metric = SET_METRICS[agg]
    elif isinstance(value, list) and len(value) == 2:
        label, prediction = value
        set_metric = SET_METRICS.get(agg or "")
        if agg in WEIGHTED:  # [loglik, words or bytes]: the count is the item's label
            prediction, label = _weighted_pair(where, metric, item, value)
        elif agg in TEXT:
            label, prediction, set_metric = _text_pair(label, prediction, set_metric)
    elif agg in SET_METRICS:
        kind = ("a number" if agg in OF_VALUES else "a [log-likelihood, count] pair"
                if agg in WEIGHTED else "a [gold, prediction] pair")
        raise InputError(f"{where}: metric {metric!r} (aggregation {agg}) of doc_id {item} is "
                         f"{snippet(json.dumps(value))}; lm-eval logs {kind}")
    b.corpus.add(dataset=dataset, system=system, metric=name, item=item,
                 aggregation=agg or "unknown", higher_is_better=hib,
                 value=float(value) if scalar else math.nan, label=label, prediction=prediction,
                 raw=json.dumps(value, ensure_ascii=False), doc_hash=h, set_metric=set_metric)


def _weighted_pair(where: str, metric: str, item: str, value: list[Any]) -> tuple[float, float]:
    """(log-likelihood, words or bytes) of a ``weighted_perplexity`` / ``bits_per_byte``
    sample, both finite numbers and the count >= 0; else an :class:`InputError`."""
    ll, n = value
    ok = all(isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)
             for x in (ll, n))
    if not ok or n < 0:
        raise InputError(f"{where}: metric {metric!r} of doc_id {item} is "
                         f"{snippet(json.dumps(value))}; lm-eval logs [log-likelihood, number of "
                         f"words or bytes] (finite, the count >= 0)")
    return float(ll), float(n)


def _text_pair(ref: Any, pred: Any, set_metric: str | None) -> tuple[Any, Any, str | None]:
    """A sacrebleu sample as lm-eval's ``_sacreformat`` reads it: the prediction (or the only
    entry of a one-element list) against the reference (or the only entry of a one-element
    list). Several references per item cannot be one ``label``: the sample then keeps no
    set-level metric (left out of the scores with a note, refused by name when asked for)."""
    if isinstance(pred, list) and len(pred) == 1:
        pred = pred[0]
    if isinstance(ref, list) and len(ref) == 1:
        ref = ref[0]
    if isinstance(ref, list) or isinstance(pred, list):
        return ref, pred, None
    return ref, pred, set_metric


def _brier(where: str, metric: str, item: str, value: Any) -> float:
    """One item's Brier score Σ_k (p_k − 1[k = gold])² from lm-eval's ``[gold, probs]`` (probs
    logged as a numpy vector's text, ``"[0.42789086 0.57210914]"``)."""
    try:
        gold, probs = value
        p = _probabilities(probs)
        g = int(gold)
        if isinstance(gold, bool) or g != gold or not 0 <= g < len(p):
            raise ValueError
        if not all(math.isfinite(x) for x in p):
            raise ValueError
    except (TypeError, ValueError):
        raise InputError(f"{where}: metric {metric!r} of doc_id {item} is "
                         f"{snippet(json.dumps(value))}; lm-eval logs [gold class index, "
                         f"class probabilities] with the index among the classes") from None
    return math.fsum((pk - (1.0 if k == g else 0.0)) ** 2 for k, pk in enumerate(p))


def check_doc_hashes(frame: pd.DataFrame, source: str = "") -> None:
    """Every (dataset, item) must carry one ``doc_hash`` across systems (rows without a hash
    are not checked); else an :class:`InputError` naming the item, systems and hashes."""
    if "doc_hash" not in frame.columns:
        return
    df = frame.loc[frame["doc_hash"].notna(), ["dataset", "item", "system", "doc_hash"]]
    df = df.drop_duplicates(["dataset", "item", "doc_hash"])
    dup = df.duplicated(["dataset", "item"], keep=False)
    if dup.any():
        bad = df[dup].sort_values(["dataset", "item"]).head(2)
        (d, i, s1, h1), (_, _, s2, h2) = bad.itertuples(index=False)
        where = f"{source}: " if source else ""
        raise InputError(
            f"{where}doc_hash mismatch on dataset {d!r}, doc_id {i}: system {s1!r} has {h1} but "
            f"{s2!r} has {h2}; the doc_ids do not name the same documents ({int(dup.sum())} "
            f"rows affected), so the systems cannot be paired by item"
        )


def read(path: str | Path, *, check_doc_hash: bool = True,
         cluster: str | None = None, default_system: str | None = None) -> AdapterResult:
    """Read lm-eval per-sample output: a samples file, a results file or a folder of them.

    ``check_doc_hash``: recompute each sample's ``doc_hash`` from its ``doc`` and require one
    hash per ``doc_id`` (within a file, and across the systems of a folder). ``cluster``: the
    field of each sample's ``doc`` that holds its cluster id (e.g. MMLU's ``subject``), read
    into the ``cluster`` column; a sample without it is an error naming the file and line.
    ``default_system``: the system of a results file that names no model (a folder tree passes
    its folder name: lm-eval writes ``<output_path>/<model_name_sanitized>/``), with a note;
    without it such a file is an error.
    """
    path = Path(path)
    b = Builder(FORMAT, path, extra=("doc_hash",))
    b.cluster_field = cluster
    assumed: set[str] = set()
    done: set[Path] = set()
    without_samples: list[Path] = []
    for rp, results, samples in _pairs(path, without_samples):
        try:
            system = system_name(results, rp)
        except InputError:
            if default_system is None:
                raise
            system = default_system
            b.note(f"{rp.name} names no model: system {system!r} from its folder")
        for sp, task_name in samples:
            if sp in done:
                continue
            done.add(sp)
            if task_name not in results.get("results", {}) and task_name not in results.get(
                    "configs", {}):
                raise InputError(f"{sp}: task {task_name!r} is not in its results file {rp.name}"
                                 f"; expected the results file of the same run")
            task = _Task(results, task_name)
            n_docs = _read_samples(b, sp, task, system, check_doc_hash, assumed)
            complete = task.n_effective is None or n_docs == task.n_effective
            _report(b, task, system, assumed, complete, rp)
    for rp in without_samples:
        b.note(f"{rp} has no samples files beside it (run without --log_samples): not read")
    if assumed:
        b.note(f"no aggregation known for {', '.join(sorted(assumed))}: per-item values "
               f"treated as a mean (checked against the reported aggregate below)")
    res = b.result()
    if res.scores is not None and check_doc_hash:
        check_doc_hashes(res.scores.frame, str(path))
    _check_agreement(b, res)
    if res.corpus is not None:
        left = res.corpus[res.corpus["set_metric"].isna()]
        for (d, m, agg), n in left.groupby(["dataset", "metric", "aggregation"],
                                           sort=True).size().items():
            why = ("its samples hold several references per item" if agg in TEXT else
                   "Ranger's set-level metrics do not compute it")
            b.note(f"task {d!r}: metric {m!r} is corpus-level (lm-eval aggregation {agg}), "
                   f"not a mean of per-item values, and {why}: its {n} sample(s) are left out "
                   f"of the scores (they are in "
                   f"load_adapter(path).corpus; compare it with a set-level metric_fn callable)")
    return AdapterResult(format=res.format, source=res.source, scores=res.scores,
                         corpus=res.corpus, run=None, reported=res.reported,
                         notes=tuple(b.notes))


def _report(b: Builder, task: _Task, system: str, assumed: set[str], complete: bool,
            results_path: Path) -> None:
    """The results file's aggregates; comparable only when the samples file is complete
    (the agreement check then recomputes every one it knows)."""
    for key, value in task.keys.items():
        if "," not in key:
            continue
        metric, filt = key.split(",", 1)
        if metric.endswith("_stderr"):
            base = metric[: -len("_stderr")]
            b.report(task.name, system, metric_name(base, filt), "stderr", value, False)
            continue
        agg = task.aggregation_of(metric)
        name = metric_name(metric, filt)
        comparable = complete and (agg in MEAN_AGGREGATIONS or agg in PER_ITEM_MEANS
                                   or f"{task.name}/{name}" in assumed)
        b.report(task.name, system, name, agg or "aggregate", value, comparable)
        if complete:
            b.complete[task.name, system] = results_path


def _weighted(items: list[Any]) -> tuple[float, float]:
    ll = [float(x[0]) for x in items]
    n = [float(x[1]) for x in items]
    return math.fsum(ll), math.fsum(n)


def _probabilities(text: Any) -> list[float]:
    """A logged numpy vector (``"[0.42789086 0.57210914]"``, brier_score) as floats."""
    if isinstance(text, list):
        return [float(x) for x in text]
    return [float(x) for x in str(text).strip("[] \n").split()]


def _sacrebleu(agg: str, items: list[Any]) -> float | None:
    try:
        import sacrebleu
    except ImportError:  # pragma: no cover - sacrebleu is a test dependency
        return None
    # lm-eval's _sacreformat: a reference per item or a list of them (streams zipped)
    golds = [x[0] for x in items]
    if not isinstance(golds[0], list):
        golds = [[g] for g in golds]
    refs = [[str(r) for r in stream] for stream in zip(*golds, strict=False)]  # as lm-eval
    preds = [str(x[1][0]) if isinstance(x[1], list) else str(x[1]) for x in items]
    if agg == "bleu":
        return float(sacrebleu.corpus_bleu(preds, refs).score)
    if agg == "chrf":
        return float(sacrebleu.corpus_chrf(preds, refs).score)
    if agg == "chrf++":
        return float(sacrebleu.corpus_chrf(preds, refs, word_order=2).score)
    return float(sacrebleu.corpus_ter(preds, refs).score)


def tool_aggregate(aggregation: str, items: list[Any]) -> float | None:
    """lm-eval's aggregation ``aggregation`` of the logged per-sample values, as
    lm_eval/api/metrics.py (v0.4.13) computes it; None for an aggregation it does not know.

    mean / nanmean: Σx/n (NaN left out); median: ``sorted(x)[n // 2]``; perplexity:
    exp(−mean loglik); weighted_perplexity: exp(−Σ loglik / Σ words-or-bytes); bits_per_byte:
    −Σ loglik / Σ bytes / ln 2; f1: binary F1 of the ``[gold, prediction]`` pairs (positive
    class 1, = ``sklearn.metrics.f1_score``); matthews_corrcoef: MCC of the pairs; bleu, chrf,
    chrf++, ter: sacrebleu's corpus scores of the predictions against one reference each;
    brier_score: mean over items of Σ_k (p_k − 1[k = gold])².
    """
    if not items:
        return None
    if aggregation in MEAN_AGGREGATIONS:
        vals = [float(x) for x in items]
        if aggregation == "nanmean":
            vals = [v for v in vals if not math.isnan(v)]
        return math.fsum(vals) / len(vals) if vals else None
    if aggregation == "median":
        return float(sorted(float(x) for x in items)[len(items) // 2])
    if aggregation == "perplexity":
        return math.exp(-math.fsum(float(x) for x in items) / len(items))
    if aggregation in ("weighted_perplexity", "bits_per_byte"):
        ll, n = _weighted(items)
        return math.exp(-ll / n) if aggregation == "weighted_perplexity" else -ll / n / math.log(2)
    if aggregation in ("f1", "matthews_corrcoef"):
        golds = [x[0] for x in items]
        preds = [x[1] for x in items]
        return set_metric(SET_METRICS[aggregation], error=InputError)(golds, preds)
    if aggregation in ("bleu", "chrf", "chrf++", "ter"):
        return _sacrebleu(aggregation, items)
    if aggregation == "brier_score":  # per-item Brier scores (as read) or lm-eval's samples
        per_item = [float(x) if isinstance(x, (int, float)) else _brier("", "brier_score", "", x)
                    for x in items]
        return math.fsum(per_item) / len(per_item)
    return None


#: Relative tolerance of the agreement check: lm-eval writes full-precision floats, so only
#: summation order differs (1e-9); brier_score's probabilities are logged by numpy's repr
#: with 8 significant digits (1e-6).
TOLERANCE: dict[str, float] = {"brier_score": 1e-6}
DEFAULT_TOLERANCE = 1e-9


def _check_agreement(b: Builder, res: AdapterResult) -> None:
    """Recompute each aggregate of a complete samples file as lm-eval does and stop when it
    differs from the results file's number (an edited or mismatched file); note the
    aggregations that cannot be recomputed."""
    rep = res.reported
    done = [(d, s) in b.complete for d, s in zip(rep["dataset"], rep["system"], strict=True)]
    rep = rep[pd.Series(done, index=rep.index, dtype=bool) & (rep["statistic"] != "stderr")]
    if rep.empty:
        return
    values: dict[tuple[str, str, str], list[Any]] = {}
    if res.scores is not None:
        df = res.scores.frame
        for key, grp in df.groupby(["dataset", "system", "metric"], sort=False)["value"]:
            values[key] = grp.tolist()  # type: ignore[index]
    if res.corpus is not None:
        c = res.corpus
        for key, grp in c.groupby(["dataset", "system", "metric"], sort=False)["raw"]:
            values[key] = [json.loads(r) for r in grp]  # type: ignore[index]
    unknown: list[str] = []
    for d, s, m, agg, reported in zip(rep["dataset"], rep["system"], rep["metric"],
                                      rep["statistic"], rep["value"], strict=True):
        items = values.get((d, s, m))
        if items is None:
            continue
        ours = tool_aggregate(str(agg), items)
        if ours is None:
            unknown.append(f"{d}/{m} ({agg})")
            continue
        tol = TOLERANCE.get(str(agg), DEFAULT_TOLERANCE)
        if not agrees(ours, float(reported), tol):
            raise InputError(
                f"{b.complete[d, s]}: task {d!r}, system {s!r}, metric {m!r}: this results file "
                f"reports {float(reported)!r} ({agg} of {len(items)} samples) but the samples "
                f"give {ours!r} (relative tolerance {tol:g}); the samples and results files "
                f"do not belong together or one was edited"
            )
    if unknown:
        b.note(f"aggregate(s) {', '.join(sorted(set(unknown)))} not recomputed (aggregation "
               f"unknown to Ranger): not checked against the samples")
