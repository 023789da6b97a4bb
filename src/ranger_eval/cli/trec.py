"""``ranger-eval trec``: trec_eval-compatible evaluation of one or more runs.

Output layout follows trec_eval (``%-22s\\t%s\\t%6.4f``: measure, query id or ``all``, value; counts
as integers); ``-q`` adds per-query rows, ``-c`` averages over all qrels topics with missing ones
scored 0, ``-M N`` keeps the top N documents, ``-l N`` sets the relevance threshold. Measures are
printed as they were asked for (``-m map`` and ``-m ndcg_cut.10`` print ``map`` and
``ndcg_cut_10`` as trec_eval does; ``-m ndcg@10`` prints ``nDCG@10`` as ir_measures does; a
trec_eval list such as ``-m P`` prints ``P@5``, ``P@10`` …). A run is named by its run
tag (the 6th field), by its file name when it has no single tag or shares it with another run
given (a warning says which); with several runs every line starts with the run's name; several runs are evaluated in one :func:`ranger_eval.ir.evaluate_many`
call (qrels indexed once, runs parsed concurrently). Under ``-c`` the ``NumRel`` ``all`` value is trec_eval's: the qrels
documents with a label > 0 over all qrels topics, even with ``-l`` ≠ 1, where the per-topic values
count labels ≥ ``-l`` (a warning gives both numbers when they differ; ``ir.summarize`` sums the
per-topic values). Bad input: one line on stderr and exit status 2 — including a run that
shares no topic with the qrels (trec_eval would print nothing, or zeros with ``-c``), unless
``--allow-no-overlap`` is given (then a warning and the output as trec_eval's).
"""
from __future__ import annotations

from pathlib import Path

import typer

from ._common import cli_message, fail, friendly_errors, imports_done, warn


def register(app: typer.Typer) -> None:
    """Add the ``trec`` command to ``app``."""

    @app.command("trec")
    @friendly_errors
    def trec(
        qrels: Path = typer.Argument(..., help="Qrels file (qid iter docid relevance)."),
        runs: list[Path] = typer.Argument(..., help="Run file(s): TREC 6-field or 4-field."),
        measure: list[str] | None = typer.Option(
            None, "-m", "--measure",
            help="Measure, ir_measures or trec_eval syntax (nDCG@10, AP, P(rel=2)@10, "
                 "ndcg_cut.10); repeatable."),
        per_query: bool = typer.Option(False, "-q", "--per-query",
                                       help="Also print per-query values."),
        complete: bool = typer.Option(
            False, "-c", "--complete",
            help="Average over all qrels topics; topics missing from a run score 0."),
        max_docs: int | None = typer.Option(None, "-M", "--max-docs",
                                     help="Evaluate only the top N documents per topic."),
        level: int = typer.Option(1, "-l", "--relevance-level",
                                  help="Minimum label counted as relevant by binary measures."),
        fmt: str = typer.Option("trec", "--format", help="trec, tsv, csv or json."),
        float32: bool = typer.Option(
            False, "--float32", help="Round scores to float32 (trec_eval 9 / pytrec_eval)."),
        allow_no_overlap: bool = typer.Option(
            False, "--allow-no-overlap",
            help="Evaluate a run that shares no topic with the qrels (warning) instead of "
                 "failing."),
    ) -> None:
        """Evaluate runs against qrels with trec_eval semantics."""
        from ..ir.errors import NoCommonTopicsError
        from ..pipeline.trec import run_trec

        imports_done()

        try:
            run = run_trec(qrels, runs, measure, per_query=per_query, complete=complete,
                           max_docs=max_docs, relevance_level=level, format=fmt,
                           float32=float32, allow_no_overlap=allow_no_overlap)
        except NoCommonTopicsError as exc:
            raise fail(exc.describe("use --allow-no-overlap to evaluate it anyway")) from None
        except (ValueError, OSError, TypeError) as exc:
            raise fail(cli_message(exc)) from None
        warn(run.warnings)
        typer.echo(run.result, nl=False)
