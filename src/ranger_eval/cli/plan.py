"""``ranger-eval plan``: power, sample size or minimum detectable effect of a planned comparison,
from parameters (``--test paired-t --effect 0.02 --sd 0.1 --power 0.8``) or simulated from a pilot
file (``--pilot pilot.csv --treatment B --control A --effect 0.02 --power 0.8``).

The options of the analysis (``--test``, ``--alternative``, ``--level``, ``--margin``,
``--n-resamples``, ``--seed``) are generated from :class:`~ranger_eval.settings.PlanSettings`;
the others describe the quantity solved for, the data expected or the pilot file. This module
only parses them and calls :func:`ranger_eval.pipeline.plan.run_plan`."""
from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from ..errors import ConfigError
from ..settings import PlanSettings
from ._common import (
    CLUSTER_HELP,
    command_line,
    friendly_errors,
    imports_done,
    report_written,
    warn,
)
from ._options import OutOption, default_out, setting_option

_NUMBER = "(leave out the one to solve for)"


def register(app: typer.Typer) -> None:
    @app.command("plan")
    @friendly_errors
    def plan(  # noqa: PLR0913 - one option per keyword of ranger_eval.plan
        test: Annotated[str | None, setting_option(PlanSettings, "test")] = None,
        effect: float | None = typer.Option(  # noqa: UP007
            None, "--effect", help="True difference treatment - control, in the metric's units "
            f"(standardised without --sd) {_NUMBER}."),
        n: float | None = typer.Option(  # noqa: UP007
            None, "--n", help=f"Items (per group for welch and proportions-z) {_NUMBER}."),
        power: float | None = typer.Option(  # noqa: UP007
            None, "--power", help=f"Power, e.g. 0.8 {_NUMBER}."),
        level: Annotated[float | None, setting_option(PlanSettings, "level")] = None,
        alternative: Annotated[str | None, setting_option(PlanSettings, "alternative")] = None,
        sd: float | None = typer.Option(  # noqa: UP007
            None, "--sd", help="SD of the item-level differences (paired-t) or of the scores "
            "(welch); the between-item SD with --within-sd."),
        p_control: float | None = typer.Option(  # noqa: UP007
            None, "--p-control", help="Control's proportion (binary tests)."),
        p_treatment: float | None = typer.Option(  # noqa: UP007
            None, "--p-treatment", help="Treatment's proportion (instead of --effect)."),
        correlation: float | None = typer.Option(  # noqa: UP007
            None, "--correlation", help="φ correlation of the two systems' correctness "
            "(mcnemar)."),
        icc: float = typer.Option(0.0, "--icc", help="Intra-cluster correlation of the items."),
        cluster_size: int = typer.Option(1, "--cluster-size", help="Items per cluster."),
        k_samples: int = typer.Option(1, "--k-samples", help="Samples per item (averaged)."),
        within_sd: float | None = typer.Option(  # noqa: UP007
            None, "--within-sd", help="SD of one system's samples on one item."),
        margin: Annotated[float | None, setting_option(PlanSettings, "margin")] = None,
        pilot: Path | None = typer.Option(  # noqa: UP007
            None, "--pilot", help="Pilot scores (table, tool output or YAML): simulate from "
            "its per-item differences."),
        treatment: str | None = typer.Option(None, "--treatment", help="Pilot: the treatment."),  # noqa: UP007
        control: str | None = typer.Option(None, "--control", help="Pilot: the control."),  # noqa: UP007
        dataset: str | None = typer.Option(None, "--dataset", help="Pilot: the dataset."),  # noqa: UP007
        metric: str | None = typer.Option(None, "--metric", help="Pilot: the metric."),  # noqa: UP007
        cluster: str | None = typer.Option(  # noqa: UP007
            None, "--cluster", metavar="FIELD",
            help="Pilot: " + CLUSTER_HELP[0].lower() + CLUSTER_HELP[1:]
            + " The simulations draw whole clusters and the plan answers in whole clusters."),
        n_resamples: Annotated[int | None, setting_option(PlanSettings, "n_resamples")] = None,
        seed: Annotated[int | None, setting_option(PlanSettings, "seed")] = None,
        out: OutOption = default_out("plan"),
    ) -> None:
        """Plan a comparison: solve for the one of --effect, --n, --power left out; writes
        plan.md, plan.json and manifest.json."""
        from ..pipeline.plan import run_plan

        imports_done()
        settings = PlanSettings.from_options({
            "test": test, "level": level, "alternative": alternative,
            "n_resamples": n_resamples, "seed": seed, "margin": margin})
        if pilot is not None:
            if n is not None and float(n) != int(n):
                raise ConfigError(f"option --n: a whole number of items with --pilot; got {n}")
            if margin is not None:
                raise ConfigError("option --margin: a plan from --pilot simulates superiority "
                                  "tests; plan an equivalence or non-inferiority test without "
                                  "--pilot (with the pilot's SD as --sd)")
            run = run_plan(out, command_line(), pilot=pilot, metric=metric,
                           effect=effect, n=None if n is None else int(n), power=power,
                           treatment=treatment, control=control, dataset=dataset,
                           cluster=cluster, settings=settings)
        else:
            pilot_only = {"--treatment": treatment, "--control": control, "--dataset": dataset,
                          "--metric": metric, "--cluster": cluster,
                          "--n-resamples": n_resamples, "--seed": seed}
            stray = [k for k, v in pilot_only.items() if v is not None]
            if stray:
                raise ConfigError(f"option {', '.join(stray)}: only with --pilot (a pilot "
                                  "file's systems, dataset, metric and cluster field, and its "
                                  "simulations; without a pilot, --icc and --cluster-size "
                                  "describe the clusters and the power is computed exactly)")
            whole = n is not None and float(n).is_integer()
            run = run_plan(out, command_line(), effect=effect,
                           n=int(n) if whole and n is not None else n, power=power,
                           sd=sd, p_control=p_control,
                           p_treatment=p_treatment, correlation=correlation, icc=icc,
                           cluster_size=cluster_size, k_samples=k_samples, within_sd=within_sd,
                           settings=settings)
        warn(run.warnings)
        typer.echo(run.result.summary())
        report_written(run.written)
