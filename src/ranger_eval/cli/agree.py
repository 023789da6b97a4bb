"""``ranger-eval agree RATINGS``: agreement between raters (Krippendorff's α, Cohen's or Fleiss'
κ) with a bootstrap interval over items, and with ``--judge NAME`` the alternative annotator
test of that rater (an LLM judge) against the others (Calderon, Reichart & Dror 2025).

RATINGS is a long table ``item, rater, value`` (one row per rating; a missing rating is an
absent row or an empty value), or scores whose ``system`` column is the rater. This module only
parses the options (one per :class:`~ranger_eval.settings.AgreementSettings` and
:class:`~ranger_eval.settings.AltTestSettings` field) and calls
:func:`ranger_eval.pipeline.agree.run_agree`.
"""
from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from ..settings import AgreementSettings, AltTestSettings
from ._common import command_line, friendly_errors, imports_done, report_written, warn
from ._options import FiguresOption, HtmlOption, OutOption, default_out, setting_option


def register(app: typer.Typer) -> None:
    @app.command("agree")
    @friendly_errors
    def agree(  # noqa: PLR0913 - one option per settings field
        ratings: Annotated[Path, typer.Argument(
            help="Ratings: a table item, rater, value (one row per rating), or scores whose "
                 "system column is the rater.")],
        coefficient: Annotated[str | None, setting_option(AgreementSettings, "method",
                                                          "--coefficient")] = None,
        scale: Annotated[str | None, setting_option(AgreementSettings, "scale")] = None,
        weights: Annotated[str | None, setting_option(AgreementSettings, "weights")] = None,
        level: Annotated[float | None, setting_option(AgreementSettings, "level")] = None,
        n_resamples: Annotated[int | None,
                               setting_option(AgreementSettings, "n_resamples")] = None,
        seed: Annotated[int | None, setting_option(AgreementSettings, "seed")] = None,
        judge: Annotated[str | None, typer.Option(
            "--judge", help="A rater (e.g. the LLM judge) to test against the others with the "
                            "alternative annotator test.")] = None,
        epsilon: Annotated[float | None, setting_option(AltTestSettings, "epsilon")] = None,
        metric: Annotated[str | None, setting_option(AltTestSettings, "metric")] = None,
        fdr: Annotated[float | None, setting_option(AltTestSettings, "fdr")] = None,
        min_raters: Annotated[int | None, setting_option(AltTestSettings, "min_raters")] = None,
        min_items: Annotated[int | None, setting_option(AltTestSettings, "min_items")] = None,
        out: OutOption = default_out("agree"),
        figures: FiguresOption = None,
        html: HtmlOption = False,
    ) -> None:
        """Agreement between raters with a bootstrap interval over items; with --judge, the
        alternative annotator test of that rater and its figure; tables, manifest.json and
        (--html) report.html."""
        from ..pipeline.agree import run_agree

        imports_done()
        run = run_agree(ratings, out, command_line(), figures=figures, html=html, judge=judge,
                        method=coefficient, scale=scale, weights=weights, level=level, n_resamples=n_resamples, seed=seed,
                        epsilon=epsilon, metric=metric, fdr=fdr, min_raters=min_raters,
                        min_items=min_items)
        warn(run.warnings)
        typer.echo(run.result.summary())
        if "alt_test" in run.parts:
            typer.echo(run.parts["alt_test"].summary())
        typer.echo(str(run.result.signature))
        report_written(run.written)
