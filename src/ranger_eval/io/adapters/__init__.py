"""Adapters: read the files evaluation tools already write, as :class:`~ranger_eval.scores.Scores`.

=============  ==========================================================  ===================
format         what is read                                                module
=============  ==========================================================  ===================
lm-eval        lm-evaluation-harness ``--log_samples`` output              :mod:`.lmeval`
inspect        Inspect AI eval logs (``.json`` and ``.eval``)              :mod:`.inspectai`
helm           HELM run folders (``per_instance_stats.json`` ...)          :mod:`.helm`
pyterrier      PyTerrier per-query tables (``name,qid,measure,value``)     :mod:`.pyterrier`
trec-eval-q    ``trec_eval -q`` output                                     :mod:`.trec_eval`
beir           BEIR result dicts ``{qid: {docid: score}}`` (a *run*)       :mod:`.beir`
tsml           tsml / tsml-eval results files                              :mod:`.tsml`
=============  ==========================================================  ===================

:func:`read_adapter` returns the per-item ``Scores``; :func:`load_adapter` returns the whole
:class:`AdapterResult` (scores, corpus-level metric inputs, a run, the tool's own aggregates
and what was skipped). The format is recognised from the content (:func:`sniff`) unless
``format=`` is given. See docs/adapters.md.
"""
from __future__ import annotations

import warnings
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from ...errors import Hint, InputError, suggest
from ...scores import Scores
from ...setmetrics import NAMES, metric
from . import beir, helm, inspectai, lmeval, pyterrier, trec_eval, tsml
from ._common import CORPUS_COLUMNS, REPORTED_COLUMNS, AdapterResult
from ._naming import (
    SYSTEM_SOURCES,
    check_system_from,
    concat_inputs,
    name_systems,
    run_inputs,
    shared_key_error,
)
from ._sniff import EXTENSIONS, TreeInputs, detect, folder_inputs, input_format, tree_inputs
from .beir import read_beir_run
from .inspectai import value_to_float
from .lmeval import check_doc_hashes

__all__ = [
    "CORPUS_COLUMNS",
    "EXTENSIONS",
    "FORMATS",
    "REPORTED_COLUMNS",
    "SYSTEM_SOURCES",
    "AdapterResult",
    "TreeInputs",
    "adapter_scores",
    "check_corpus_metrics",
    "check_doc_hashes",
    "check_system_from",
    "detect",
    "folder_inputs",
    "input_format",
    "load_adapter",
    "normalize_format",
    "read_adapter",
    "read_adapters",
    "read_beir_run",
    "run_inputs",
    "shared_key_error",
    "sniff",
    "tree_inputs",
    "value_to_float",
]

#: Reader and accepted keyword options of each format.
_READERS: Mapping[str, tuple[Callable[..., AdapterResult], tuple[str, ...]]] = {
    "lm-eval": (lmeval.read, ("check_doc_hash", "cluster", "default_system")),
    "inspect": (inspectai.read, ("cluster", "default_system")),
    "helm": (helm.read, ("split", "metrics")),
    "pyterrier": (pyterrier.read, ("dataset",)),
    "trec-eval-q": (trec_eval.read, ("dataset",)),
    "beir": (beir.read, ()),
    "tsml": (tsml.read, ()),
}
FORMATS: tuple[str, ...] = tuple(_READERS)
_ALIASES = {
    "lm-evaluation-harness": "lm-eval", "lmeval": "lm-eval", "inspect-ai": "inspect",
    "trec-eval": "trec-eval-q", "treceval": "trec-eval-q", "tsml-eval": "tsml", "pt": "pyterrier",
}


def normalize_format(format: str, path: str | Path | None = None) -> str:
    """The canonical format name (``lm_eval`` → ``lm-eval``); unknown names are an error."""
    key = str(format).strip().lower().replace("_", "-")
    key = _ALIASES.get(key, key)
    if key not in _READERS:
        where = f"{path}: " if path is not None else ""
        raise InputError(f"{where}unknown format {format!r}; use one of "
                         f"{', '.join(FORMATS)}" + suggest(format, FORMATS))
    return key


def sniff(path: str | Path) -> str:
    """The format of ``path`` recognised from its content; an error when none fits."""
    fmt = input_format(path)
    if fmt is None:
        hint = Hint("format")
        raise InputError(
            f"{path}: not a recognised evaluation output (expected one of {', '.join(FORMATS)}: "
            f"see docs/adapters.md); {hint.text} to choose one", hints=[hint]
        )
    return fmt


def load_adapter(path: str | Path, format: str | None = None, *, system: str | None = None,
                 system_from: str | Sequence[str] | None = None,
                 **options: Any) -> AdapterResult:
    """Read ``path`` with the adapter for ``format`` (sniffed when None); all of it.

    ``system`` names the input's (one) system; ``system_from`` builds system names from the
    log's fields instead of the model name (``run_id``, ``task_args.<key>``, ``file`` ...:
    see :mod:`._naming`), so that logs of one model can be told apart. ``options`` go to the
    format's reader: lm-eval ``check_doc_hash`` and ``cluster`` (a ``doc`` field); inspect
    ``cluster`` (a sample-metadata key); lm-eval and inspect ``default_system`` (the system of
    a log that names no model); helm ``split``, ``metrics``; pyterrier and
    trec-eval-q ``dataset``.
    """
    sources = check_system_from(system_from)
    fmt = normalize_format(format, path) if format is not None else sniff(path)
    reader, allowed = _READERS[fmt]
    unknown = [k for k in options if k not in allowed]
    if unknown:
        raise InputError(
            f"{path}: option(s) {', '.join(unknown)} not used by format {fmt!r}"
            + (f" (its options: {', '.join(allowed)})" if allowed else " (it takes none)")
        )
    res = reader(path, **options)
    if system is None and not sources:
        return res
    return name_systems(res, Path(path), system=system, system_from=sources)


def read_adapter(path: str | Path, format: str | None = None, **options: Any) -> Scores:
    """Per-item :class:`Scores` from an evaluation tool's output (see :func:`load_adapter`).

    A BEIR result dict is a run, not scores: use :func:`read_beir_run` with
    :func:`ranger_eval.ir.evaluate`. Inputs whose metrics are all corpus-level (lm-eval ``f1``,
    ``bleu`` ...) have no per-item scores: use ``load_adapter(path).corpus``.
    """
    return adapter_scores(load_adapter(path, format, **options), path)


def adapter_scores(res: AdapterResult, path: str | Path) -> Scores:
    """The per-item :class:`Scores` of an adapter's result (see :func:`read_adapter`)."""
    pairs = pairs_as_scores(res.corpus)
    if res.scores is not None:
        return res.scores if pairs is None else Scores.concat([res.scores, pairs])
    if pairs is not None:
        return pairs
    if res.run is not None:
        raise InputError(
            f"{path}: a BEIR result dict is a run (documents and scores per query), not per-query "
            f"scores: evaluate it with ranger_eval.ir.evaluate(qrels, read_beir_run(path), "
            f"measures), then ranger_eval.ir.to_scores(...)"
        )
    metrics = sorted(set(res.corpus["metric"])) if res.corpus is not None else []
    raise InputError(
        f"{path}: no per-item metrics; {', '.join(metrics) or 'its metrics'} are corpus-level "
        f"(not a mean of per-item values): see load_adapter(path).corpus"
    )


def pairs_as_scores(corpus: pd.DataFrame | None) -> Scores | None:
    """Corpus-level metrics whose aggregate a set-level metric computes (``set_metric``:
    lm-eval f1, mcc, bleu, chrf, ter, perplexities …) as per-item rows with ``label``,
    ``prediction`` and ``set_metric`` columns. ``compare`` and ``meta`` test such a metric
    with its ``set_metric`` automatically (the tool's own number, e.g. lm-eval's f1 or
    word_perplexity), never the mean of ``value``.

    Rows: ``[gold, prediction]`` pairs keep them as text labels and predictions, ``value`` =
    whether they are equal; the likelihood metrics ``weighted_perplexity`` and
    ``bits_per_byte`` have ``label`` = the item's words or bytes and ``prediction`` = its
    log-likelihood (written as exact decimal text, read back as numbers), ``value`` = the
    log-likelihood; ``perplexity`` (a metric of the ``value`` column alone) has ``value`` = the
    log-likelihood and no label or prediction. Other rows stay in ``corpus`` only (the adapter
    notes them)."""
    if corpus is None or corpus.empty:
        return None

    declared = {str(m) for m in corpus["set_metric"].dropna()}
    of_values = {m for m in declared if m in NAMES and metric(m, error=InputError).inputs
                 == "values"}
    by_values = corpus["set_metric"].isin(of_values)
    have = ((corpus["set_metric"].notna() & ~by_values & corpus["label"].notna()
             & corpus["prediction"].notna()) | (by_values & corpus["value"].notna()))
    if not have.any():
        return None
    rows = corpus.loc[have, ["dataset", "system", "metric", "item", "label", "prediction",
                             "set_metric", "value", "higher_is_better",
                             *(["cluster"] if "cluster" in corpus.columns else [])]].copy()
    rows["higher_is_better"] = rows["higher_is_better"].astype("boolean")  # the tool's direction
    pairs = ~by_values[have]
    numeric = pairs & rows["set_metric"].isin(("weighted_perplexity", "bits_per_byte"))
    text = pairs & ~numeric
    rows["value"] = rows["value"].astype(float)
    rows.loc[text, "value"] = (rows.loc[text, "label"].astype(str)
                               == rows.loc[text, "prediction"].astype(str)).astype(float)
    rows.loc[numeric, "value"] = rows.loc[numeric, "prediction"].astype(float)
    for col in ("label", "prediction"):  # str(float) is its exact shortest repr
        rows[col] = rows[col].astype(str).where(pairs, None)
    return Scores(rows.reset_index(drop=True))


def read_adapters(paths: Iterable[str | Path], format: str | None = None,
                  **options: Any) -> Scores:
    """Several outputs (e.g. one per system) as one :class:`Scores`.

    Duplicate keys are an error, and lm-eval ``doc_hash`` values must agree across systems
    (a ``doc_id`` must name the same document in every run). When some inputs have seeds
    (epochs, train trials, resamples) and others not, the latter get seed ``"0"``. Two inputs
    holding one key (two logs of one model) are an error naming both files and the
    ``system_from`` that tells them apart; ``options`` may hold ``system``/``system_from``.
    """
    inputs = [Path(p) for p in paths]
    frames = [read_adapter(p, format, **options).raw_frame for p in inputs]
    if not frames:
        raise InputError("no input files given")
    scores = concat_inputs(frames, inputs)
    check_doc_hashes(scores.frame, f"{len(frames)} inputs")
    return scores


def check_corpus_metrics(paths: Iterable[str | Path], metrics: Iterable[str],
                         format: str | None = None) -> None:
    """Refuse a requested metric that an input holds only as a corpus-level metric no
    set-level metric computes (an lm-eval aggregation other than lm-eval's own, such as a
    task's ``!function``, or sacrebleu metrics with several references per item:
    left out of the scores with a note): an :class:`InputError` naming the metric, the file,
    the tool's aggregation and what to do, instead of "unknown metric". Inputs that are not an
    evaluation tool's output, or cannot be read, are passed over (the caller reads them)."""
    wanted = [str(m) for m in metrics]
    for path in paths:
        try:
            fmt = normalize_format(format, path) if format not in (None, "auto") else (
                input_format(path))
            if fmt is None or fmt not in _READERS:
                continue
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                corpus = load_adapter(path, fmt).corpus
        except InputError:
            continue
        if corpus is None:
            continue
        left = corpus[corpus["set_metric"].isna()]
        for m in wanted:
            aggs = sorted(set(left.loc[left["metric"] == m, "aggregation"].astype(str)))
            if aggs:
                why = ("its samples hold several references per item, which one label per "
                       "item cannot carry" if all(a in lmeval.TEXT for a in aggs) else
                       "none of Ranger's set-level metrics computes it")
                raise InputError(
                    f"{path}: metric {m!r} is corpus-level ({fmt} aggregation "
                    f"{', '.join(aggs)}: not a mean of per-item values) and {why}, so it cannot "
                    f"be compared or meta-analysed from this log; choose a per-item or "
                    f"set-level metric, or test it in Python with a metric_fn callable on "
                    f"load_adapter(path).corpus"
                )
