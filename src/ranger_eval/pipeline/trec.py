"""``ranger-eval trec``: trec_eval-compatible evaluation of one or more runs (:func:`run_trec`).

Output layout follows trec_eval (``%-22s\\t%s\\t%6.4f``: measure, query id or ``all``, value; counts
as integers); ``per_query`` (``-q``) adds per-query rows, ``complete`` (``-c``) averages over all
qrels topics with missing ones scored 0, ``max_docs`` (``-M N``) keeps the top N documents,
``relevance_level`` (``-l N``) sets the relevance threshold. Measures are printed as they were
asked for (``map`` and ``ndcg_cut.10`` print ``map`` and ``ndcg_cut_10`` as trec_eval does;
``ndcg@10`` prints ``nDCG@10`` as ir_measures does; a trec_eval list such as ``P`` prints
``P@5``, ``P@10`` …). A run is named by its run tag (the 6th field), by its file name when it
has no single tag or shares it with another run given (a warning says which); with several runs
every line starts with the run's name; several runs are evaluated in one
:func:`ranger_eval.ir.evaluate_many` call (qrels indexed once, runs parsed concurrently). Under
``-c`` the ``NumRel`` ``all`` value is trec_eval's: the qrels documents with a label > 0 over all
qrels topics, even with ``-l`` ≠ 1, where the per-topic values count labels ≥ ``-l`` (a warning
gives both numbers when they differ; ``ir.summarize`` sums the per-topic values).
"""
from __future__ import annotations

import csv
import io
import json
import warnings
from collections.abc import Sequence
from pathlib import Path

import pandas as pd

from ..errors import ConfigError, Said
from ..ir import evaluation
from ..ir.errors import IgnoredTopicsWarning
from ..ir.evaluation import PreparedQrels
from ..ir.measures import parse_measure, parse_measures, written_names
from ..ir.readers import run_tag
from ._run import CommandRun

__all__ = ["DEFAULT_MEASURES", "FORMATS", "run_trec"]

#: The output formats of ``ranger-eval trec --format``.
FORMATS = ("trec", "tsv", "csv", "json")
#: The measures ``ranger-eval trec`` evaluates when none is asked for.
DEFAULT_MEASURES = ("NumRet", "NumRel", "NumRelRet", "AP", "Rprec", "RR", "P@5", "P@10", "nDCG",
                    "nDCG@10")


def _run_names(runs: list[Path]) -> tuple[list[str], list[str]]:
    """The name of each run and the notes that say where a name did not come from the data.

    A run is named by its run tag (:func:`ranger_eval.ir.readers.run_tag`); by its file name
    (its path when two runs share a file name) when it has no tag, mixes tags, or shares its tag
    with another run given."""
    files = [p.name for p in runs]
    if len(set(files)) != len(files):
        files = [str(p) for p in runs]
    tags = [run_tag(p) for p in runs]
    names: list[str] = []
    untagged: list[str] = []
    shared: list[str] = []
    for file, tag in zip(files, tags, strict=True):
        if tag is not None and tags.count(tag) == 1 and (tag not in files or tag == file):
            names.append(tag)
            continue
        names.append(file)
        (untagged if tag is None else shared).append(file if tag is None else f"{file} ({tag})")
    notes = []
    if untagged:
        notes.append(f"{', '.join(untagged)}: named by the file name: no single run tag "
                     "(4-field run, or several tags in the file)")
    if shared:
        notes.append(f"{', '.join(shared)}: named by the file name: the run tag is not unique "
                     "among the runs given")
    return names, notes


def _as_written(frame: pd.DataFrame, asked: list[str]) -> pd.DataFrame:
    """``frame`` with its measures named as the user wrote them (``-m map`` → ``map``)."""
    written = written_names(asked)
    return frame.assign(measure=frame["measure"].map(lambda m: written.get(m, m)))


def _fmt_value(value: float, count: bool) -> str:
    return str(int(round(value))) if count else f"{value:6.4f}"


def _plain(value: float, count: bool) -> int | float:
    return int(round(value)) if count else float(value)


def _render(blocks: list[tuple[str, pd.DataFrame, pd.DataFrame]], fmt: str, per_query: bool,
            prefix: bool) -> str:
    """blocks: (run name, per-query DataFrame, summary DataFrame)."""
    counts: dict[str, bool] = {}

    def is_count(m: str) -> bool:
        if m not in counts:
            counts[m] = parse_measure(m).is_count
        return counts[m]

    rows: list[tuple[str, str, str, float]] = []
    for name, per_q, summary in blocks:
        if per_query:
            rows.extend((name, m, q, v) for q, m, v in per_q[["query_id", "measure", "value"]]
                        .itertuples(index=False))
        rows.extend((name, m, "all", v) for m, v in summary[["measure", "value"]]
                    .itertuples(index=False))
    if fmt == "trec":
        lines = []
        for run, m, q, v in rows:
            line = f"{m:<22}\t{q}\t{_fmt_value(v, is_count(m))}"
            lines.append(f"{run}\t{line}" if prefix else line)
        return "\n".join(lines) + "\n"
    if fmt == "json":
        recs = [{"run": r, "measure": m, "query_id": q, "value": _plain(v, is_count(m))}
                for r, m, q, v in rows]
        return json.dumps(recs, indent=1) + "\n"
    buf = io.StringIO()
    writer = csv.writer(buf, delimiter="\t" if fmt == "tsv" else ",", lineterminator="\n")
    writer.writerow(["run", "measure", "query_id", "value"])
    writer.writerows((r, m, q, _plain(v, is_count(m))) for r, m, q, v in rows)
    return buf.getvalue()


def _trec_eval_complete_num_rel(summary: pd.DataFrame, qrels: PreparedQrels, level: int,
                                run: str, notes: list[str]) -> pd.DataFrame:
    """trec_eval's ``num_rel`` ``all`` value under ``-c`` (m_num_rel.c, te_calc_avg_num_rel):
    the number of qrels documents with a label > 0 over all qrels topics, whatever ``-l`` says,
    where its per-topic values count labels >= ``-l``. The two differ only when ``-l`` is not 1
    (and the qrels hold labels 0 or >= 2): the trec_eval value is printed and a note appended to
    ``notes`` gives both."""
    rows = [i for i, m in enumerate(summary["measure"])
            if (pm := parse_measure(m)).name == "NumRel" and pm.rel is None]
    if not rows:
        return summary
    trec_value = float((qrels.label > 0).sum())
    per_topic = float(summary["value"].iloc[rows[0]])
    if trec_value == per_topic:
        return summary
    out = summary.copy()
    out.loc[out.index[rows], "value"] = trec_value
    notes.append(
        f"{run}: NumRel 'all' = {int(trec_value)} as trec_eval -c prints it: the qrels documents "
        f"with a label > 0 over all {qrels.n_topics} qrels topics, whatever -l says; the "
        f"per-topic NumRel values (label >= {level}) sum to {int(per_topic)}")
    return out


def run_trec(qrels: str | Path, runs: Sequence[str | Path], measures: Sequence[str] | None = None,
             *, per_query: bool = False, complete: bool = False, max_docs: int | None = None,
             relevance_level: int = 1, format: str = "trec", float32: bool = False,
             allow_no_overlap: bool = False) -> CommandRun:
    """``ranger-eval trec``: evaluate ``runs`` against ``qrels`` with trec_eval semantics
    (``measures``: default :data:`DEFAULT_MEASURES`; the keywords are the command's options,
    see the module docstring). Nothing is written: the run's ``result`` is the text the command
    prints in ``format`` (one of :data:`FORMATS`), ``parts["runs"]`` the (name, per-query
    table, summary table) of each run in the order given, ``warnings`` the warnings raised and
    the notes on run names and ``NumRel``. A run sharing no topic with the qrels raises
    :class:`~ranger_eval.ir.errors.NoCommonTopicsError` unless ``allow_no_overlap``.

    Parameters
    ----------
    qrels : str or Path
        The qrels file.
    runs : sequence of str or Path
        The run files.
    measures : sequence of str or None, default None
        The measures; None: :data:`DEFAULT_MEASURES`.
    per_query : bool, default False
        Also print each query's values (``-q``).
    complete : bool, default False
        Average over every qrels topic (``-c``).
    max_docs : int or None, default None
        Documents per topic evaluated (``-M``).
    relevance_level : int, default 1
        The lowest relevant label (``-l``).
    format : str, default "trec"
        The output format, one of :data:`FORMATS`.
    float32 : bool, default False
        Scores as trec_eval's 32-bit floats.
    allow_no_overlap : bool, default False
        Allow a run sharing no topic with the qrels.

    Returns
    -------
    CommandRun
        The run (see above).

    Raises
    ------
    NoCommonTopicsError
        A run sharing no topic with the qrels (unless ``allow_no_overlap``).

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> from ranger_eval.pipeline import run_trec
    >>> with tempfile.TemporaryDirectory() as name:
    ...     qrels, run = Path(name, "qrels"), Path(name, "run")
    ...     _ = qrels.write_text("1 0 d1 1\\n1 0 d2 0\\n1 0 d3 1\\n")
    ...     _ = run.write_text("1 Q0 d1 1 3.0 bm25\\n1 Q0 d2 2 2.0 bm25\\n1 Q0 d3 3 1.0 bm25\\n")
    ...     result = run_trec(qrels, [run], ["map", "P@2"])
    >>> print(result.result, end="")
    map                   	all	0.8333
    P@2                   	all	0.5000
    """
    if format not in FORMATS:
        raise ConfigError(f"option --format: unknown format {format!r}; use one of "
                          f"{', '.join(FORMATS)}")
    paths = [Path(r) for r in runs]
    asked = list(measures) if measures else list(DEFAULT_MEASURES)
    ms = parse_measures(asked)
    notes: list[str] = []
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", IgnoredTopicsWarning)
        q = evaluation.prepare_qrels(qrels)
        # one batch call: the qrels are indexed once and the runs parsed concurrently;
        # systems are keyed by position, so a run given twice is printed twice
        many = evaluation.evaluate_many(
            q, {str(i): run for i, run in enumerate(paths)}, ms,
            missing="zero" if complete else "drop",
            score_precision="float32" if float32 else "float64",
            max_docs=max_docs, relevance_level=relevance_level,
            allow_no_overlap=allow_no_overlap)
        system = many["system"].to_numpy()
        blocks = []
        names, name_notes = _run_names(paths)
        if len(paths) > 1 or format != "trec":  # the names are printed
            notes += name_notes
        for i, name in enumerate(names):
            per_q = (many[system == str(i)].drop(columns="system")
                     .reset_index(drop=True))
            summary = evaluation.summarize(per_q)
            per_q, summary = _as_written(per_q, asked), _as_written(summary, asked)
            if complete:
                summary = _trec_eval_complete_num_rel(summary, q, relevance_level, name, notes)
            blocks.append((name, per_q, summary))
    said = [*(Said(str(w.message), getattr(w.message, "hints", ())) for w in caught), *notes]
    text = _render(blocks, format, per_query, prefix=len(paths) > 1)
    return CommandRun(text, (), tuple(said), None, "trec", {"runs": tuple(blocks)})
