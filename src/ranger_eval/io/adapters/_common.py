"""What every adapter returns, and the helpers they share."""
from __future__ import annotations

import math
import re
import warnings
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ...errors import Hint, InputError, RangerWarning, ScoresError
from ...scores import BOUNDS, CLUSTER_NAME, Scores

__all__ = [
    "CORPUS_COLUMNS",
    "REPORTED_COLUMNS",
    "AdapterResult",
    "Rows",
    "format_number",
]

#: Columns of :attr:`AdapterResult.corpus` (per-item inputs of corpus-level metrics).
CORPUS_COLUMNS = (
    "dataset", "system", "metric", "item", "aggregation", "higher_is_better",
    "value", "label", "prediction", "raw", "set_metric",
)
#: Columns of :attr:`AdapterResult.reported` (the aggregate numbers the tool itself wrote).
REPORTED_COLUMNS = ("dataset", "system", "metric", "statistic", "value", "comparable")


def agrees(ours: float, reported: float, tolerance: float) -> bool:
    """Whether a value recomputed from a log's items equals the tool's own aggregate:
    ``|ours − reported| ≤ tolerance · max(1, |reported|)`` (relative, absolute below 1);
    ``False`` when either is NaN."""
    return abs(ours - reported) <= tolerance * max(1.0, abs(reported))


def format_number(value: object) -> str:
    return repr(value) if not isinstance(value, str) else repr(value[:60])


class Rows:
    """Column-wise accumulator for a tidy table (cheaper than a list of dicts)."""

    def __init__(self, columns: Sequence[str]) -> None:
        self.columns = tuple(columns)
        self.data: dict[str, list[Any]] = {c: [] for c in self.columns}

    def add(self, **values: Any) -> None:
        for c in self.columns:
            self.data[c].append(values.get(c))

    def __len__(self) -> int:
        return len(self.data[self.columns[0]])

    def frame(self) -> pd.DataFrame:
        return pd.DataFrame(self.data, columns=list(self.columns))


def directions(values: Iterable[bool | None]) -> pd.Series:
    """A nullable boolean column (``pd.NA`` where the format does not say)."""
    return pd.Series(pd.array(list(values), dtype="boolean"))


@dataclass(frozen=True)
class AdapterResult:
    """Everything an adapter read from one input.

    ``scores``
        per-item scores (:class:`~ranger_eval.scores.Scores`), or None when the input holds
        none (a BEIR run; an lm-eval task whose only metrics are corpus-level). Metadata
        columns: ``higher_is_better`` (nullable boolean, ``<NA>`` where the format does not
        say) and the format's own (``doc_hash``, ``label``, ``prediction``, ``split`` ...).
    ``corpus``
        per-item *inputs* of corpus-level metrics that cannot be averaged per item (lm-eval's
        ``f1``, ``mcc``, ``bleu``, ``chrf``, ``ter``, perplexities) with columns
        :data:`CORPUS_COLUMNS`, never averaged into ``Scores``. ``set_metric`` names the
        :mod:`ranger_eval.setmetrics` metric that computes the tool's aggregate from the
        ``label``/``prediction`` pairs (``f1``, ``mcc``, ``bleu``, ``chrf``, ``ter``; the
        likelihoods ``weighted_perplexity`` and ``bits_per_byte`` with label = words or bytes,
        prediction = log-likelihood) or from ``value`` (``perplexity``): those rows become
        scores that ``compare`` and ``meta`` test on the set-level path; the others (None)
        cannot be tested and are left out of the scores with a note. None when there are none.
    ``run``
        a ranked run ``query_id, doc_id, score`` (BEIR result dicts) for
        :func:`ranger_eval.ir.evaluate`; None otherwise.
    ``reported``
        the aggregates the tool itself wrote (:data:`REPORTED_COLUMNS`); ``comparable`` marks
        the rows that are the plain mean of the per-item values, which :meth:`agreement`
        checks.
    ``notes``
        everything skipped or dropped, counted (each note was also issued as a warning).
    ``finished``
        whether the tool's run finished (Inspect: the log's ``status`` is ``success``); None
        when the format does not say. A folder tree that holds a finished and an unfinished run
        of one model on one task reads the finished one (:mod:`ranger_eval.io.logtree`).
    """

    format: str
    source: str
    scores: Scores | None = None
    corpus: pd.DataFrame | None = None
    run: pd.DataFrame | None = None
    reported: pd.DataFrame = field(
        default_factory=lambda: pd.DataFrame(columns=list(REPORTED_COLUMNS))
    )
    notes: tuple[str, ...] = ()
    finished: bool | None = None

    def agreement(self) -> pd.DataFrame:
        """The tool's own aggregates next to the mean of our per-item values.

        One row per comparable reported aggregate: ``dataset, system, metric, statistic,
        reported, ours, n_items, difference`` (``ours - reported``). With seeds (epochs,
        train trials, resamples) each item's value is first averaged over its seeds, as
        :meth:`Scores.values` does.
        """
        cols = ["dataset", "system", "metric", "statistic", "reported", "ours", "n_items",
                "difference"]
        rep = self.reported
        if self.scores is None or rep.empty:
            return pd.DataFrame(columns=cols)
        rep = rep[rep["comparable"].astype(bool)]
        df = self.scores.frame
        per_item = df.groupby(["dataset", "system", "metric", "item"], sort=False)["value"].mean()
        ours = per_item.groupby(level=[0, 1, 2], sort=False).agg(["mean", "size"]).reset_index()
        ours.columns = ["dataset", "system", "metric", "ours", "n_items"]
        out = rep.rename(columns={"value": "reported"}).merge(
            ours, on=["dataset", "system", "metric"], how="inner"
        )
        out["difference"] = out["ours"] - out["reported"].astype(float)
        return out[cols].reset_index(drop=True)


#: Per-query IR measures in [0, 1] as trec_eval -q and PyTerrier name them (ir_measures style
#: ``nDCG@10``, ``AP(rel=2)``, ``P@10``, ``R@100``, ``RR@10``, ``Success@5``, ``Judged@10``,
#: ``Rprec``; trec_eval ``ndcg_cut_10``, ``map``, ``P_10``, ``recall_100``, ``recip_rank``,
#: ``success_5``, ``bpref``, ``iprec_at_recall_0.10``, ``set_F`` …). The counts (``num_ret``,
#: ``NumRel`` …) and ``utility`` are not ranged. ``ranger_eval.ir.measure_bounds`` ranges the
#: same names (io does not import ir; tests/test_bounds_known.py checks that they agree).
IR_UNIT_MEASURE = re.compile(
    r"^(?:(?:ndcg|ap|rr|p|r|success|judged)(?:\(rel=\d+\))?(?:@\d+)?(?:\(rel=\d+\))?|rprec"
    r"(?:\(rel=\d+\))?|ndcg_cut[._]\d+|map|map_cut[._]\d+|recip_rank|p[._]\d+|recall[._]\d+"
    r"|success[._]\d+|bpref|iprec_at_recall[._][0-9.]+|set_(?:p|recall|f|relative_p|map)"
    r"|11pt_avg|infap|gm_bpref)$", re.IGNORECASE)


class Builder:
    """Collects an adapter's rows, notes and reported aggregates, then validates them once."""

    def __init__(self, fmt: str, path: Path, extra: Sequence[str] = ()) -> None:
        self.format = fmt
        self.path = path
        self.extra = tuple(extra)
        base = ("dataset", "system", "metric", "item", "value", "higher_is_better")
        self.rows = Rows(base + self.extra)
        self.corpus = Rows(CORPUS_COLUMNS + tuple(c for c in self.extra if c not in CORPUS_COLUMNS))
        self.reported = Rows(REPORTED_COLUMNS)
        self.notes: list[str] = []
        #: (dataset, system) whose log holds every item the tool scored → the file holding the
        #: tool's aggregates (agreement checks).
        self.complete: dict[tuple[str, str], Path] = {}
        #: the log field read as each item's cluster (``cluster=``), and what it held:
        #: (dataset, item) → (cluster id, where it was read)
        self.cluster_field: str | None = None
        self.clusters: dict[tuple[str, str], tuple[str, str]] = {}
        #: the range of metrics the tool's metadata fixes (an IR measure, lm-eval's acc, an
        #: Inspect C/I score): :meth:`bound`; ``unbounded`` wins (a numeric Inspect scorer)
        self.bounds: dict[str, tuple[float, float]] = {}
        self.unbounded: set[str] = set()

    def bound(self, metric: str, lo: float = 0.0, hi: float = 1.0) -> None:
        """Record that ``metric`` lies in [lo, hi] by the tool's metadata; the scores declare
        it (:meth:`~ranger_eval.Scores.with_bounds`) when every value of the metric is inside,
        so that the intervals of its means stay in range."""
        self.bounds[metric] = (float(lo), float(hi))

    def cluster(self, where: str, dataset: str, item: str, fields: object, what: str) -> None:
        """Record the cluster of ``item``: ``fields[cluster_field]`` (``what`` names the
        container, e.g. "metadata"). A missing or empty field, a value that is not a string
        or an integer, and an item given two clusters are errors naming ``where``."""
        key = self.cluster_field
        if key is None:
            return
        if not isinstance(fields, dict) or key not in fields:
            have = ", ".join(map(repr, list(fields)[:10])) if isinstance(fields, dict) else "none"
            raise InputError(f"{where}: item {item} has no {what} field {key!r} to read its "
                             f"cluster from (cluster: {key}); its {what} fields: {have}")
        value = fields[key]
        if isinstance(value, float) and value.is_integer():
            value = int(value)
        if isinstance(value, bool) or not isinstance(value, (str, int)) or not str(value).strip():
            raise InputError(f"{where}: item {item}: {what} field {key!r} is "
                             f"{format_number(value)}; a cluster id must be a non-empty string "
                             f"or an integer")
        cid = str(value)
        seen = self.clusters.setdefault((dataset, item), (cid, where))
        if seen[0] != cid:
            raise InputError(f"{where}: item {item} of {dataset!r} has {what} {key!r} = "
                             f"{cid!r} but {seen[0]!r} at {seen[1]}; an item has one cluster")

    def _known_bounds(self, df: pd.DataFrame) -> dict[str, tuple[float, float]]:
        """The recorded ranges (:meth:`bound`) of the metrics whose values all lie inside
        them (a tool that writes a metric on another scale, e.g. 0–100, declares nothing)."""
        out: dict[str, tuple[float, float]] = {}
        if not self.bounds:
            return out
        values = df["value"].to_numpy(dtype=np.float64)
        for metric, (lo, hi) in self.bounds.items():
            if metric in self.unbounded:
                continue
            v = values[(df["metric"] == metric).to_numpy(dtype=bool)]
            if v.size and ((v >= lo) & (v <= hi)).all():
                out[metric] = (lo, hi)
        return out

    def note(self, message: str, hints: Sequence[Hint] = ()) -> None:
        """Record (and warn about) something skipped or dropped; ``hints``: the keywords the
        message names (a :class:`RangerWarning`, which the command line says as options)."""
        text = f"{self.path}: {message}"
        self.notes.append(text)
        warnings.warn(RangerWarning(text, hints=hints), stacklevel=4)

    def report(self, dataset: str, system: str, metric: str, statistic: str, value: object,
               comparable: bool) -> None:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            return  # "N/A" stderr and the like
        if not math.isfinite(float(value)):
            return
        self.reported.add(dataset=dataset, system=system, metric=metric, statistic=statistic,
                          value=float(value), comparable=comparable)

    def result(self, *, run: pd.DataFrame | None = None) -> AdapterResult:
        scores = None
        if len(self.rows):
            df = self.rows.frame()
            df["higher_is_better"] = directions(df["higher_is_better"])
            df["value"] = df["value"].astype(np.float64)
            if self.cluster_field is not None:
                df["cluster"] = [self.clusters[d, i][0]
                                 for d, i in zip(df["dataset"], df["item"], strict=True)]
                df.attrs[CLUSTER_NAME] = self.cluster_field  # the signature's cluster:<field>
            known = self._known_bounds(df)
            if known:
                df.attrs[BOUNDS] = known
            try:
                scores = Scores(df, source=str(self.path))
            except ScoresError as exc:
                raise InputError(f"{exc}; expected {self.format} output with one value per "
                                 f"item") from None
        corpus = None
        if len(self.corpus):
            corpus = self.corpus.frame()
            if self.cluster_field is not None:
                corpus["cluster"] = [self.clusters[d, i][0] for d, i in
                                     zip(corpus["dataset"], corpus["item"], strict=True)]
            corpus["higher_is_better"] = directions(corpus["higher_is_better"])
            corpus["value"] = corpus["value"].astype(np.float64)
        reported = self.reported.frame()
        reported["comparable"] = reported["comparable"].astype(bool)
        reported["value"] = reported["value"].astype(np.float64)
        return AdapterResult(format=self.format, source=str(self.path), scores=scores,
                             corpus=corpus, run=run, reported=reported, notes=tuple(self.notes))
